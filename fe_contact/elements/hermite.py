"""Cubic Hermite line element written in the element's local coordinate, for scikit-fem.

scikit-fem's ``ElementLineHermite`` is an ``ElementGlobal``: it builds each element's basis by
inverting a Vandermonde matrix of monomials in the *global* coordinate x. For short elements far
from x = 0 that matrix is ill-conditioned (its condition number grows like (x / le)^3) and the
shape functions lose accuracy: the bending energy of a uniform curvature on a 0.4 m cantilever
was off by 6e-6 relative at 1000 elements, 2e-2 at 10 000, and the matrix was singular at
100 000. ``ElementLineHermiteLocal`` writes the same functions in the local coordinate
``xi = (x - x_0) / le`` in [0, 1] (Lipinski (002), eq. 12):

    N1 = 1 - 3 xi^2 + 2 xi^3          N2 = le (xi - 2 xi^2 + xi^3)
    N3 = 3 xi^2 - 2 xi^3              N4 = le (-xi^2 + xi^3)

and takes x-derivatives by the chain rule, d/dx = (1 / le) d/dxi; no global monomial appears,
so each value and derivative is a few rounding errors from exact on any mesh.

The degrees of freedom, their order and signs are those of ``ElementLineHermite``: per node the
value ``u`` and the slope ``u_x = du/dx``, local order ``(u_0, u_x0, u_1, u_x1)`` with node 0 the
first vertex of the mesh cell (``mesh.t[0]``), so ``le = x(t[1]) - x(t[0])`` is signed and the
formulas hold for a cell of either orientation. The element plugs into ``Basis``,
``BilinearForm``, ``LinearForm``, ``ElementVector`` and ``Basis.probes`` as the global one does:
``gbasis`` returns a ``DiscreteField`` with ``value`` (n_elements, n_points), ``grad``
(1, n_elements, n_points) and ``hess`` (1, 1, n_elements, n_points), as the global element does
(no third derivative, which no form needs: it would add a third to the basis tables), so
``skfem.helpers.dd(u)[0, 0]`` is u''.
"""

from __future__ import annotations

import numpy as np
from skfem.element import DiscreteField, Element
from skfem.mapping import MappingAffine
from skfem.refdom import RefLine

# Monomial coefficients in xi of the four shape functions before the length factor:
# N_j(xi) = SCALE_j * sum_k POWERS[j, k] xi^k, SCALE = (1, le, 1, le).
POWERS = np.array(
    [
        [1.0, 0.0, -3.0, 2.0],
        [0.0, 1.0, -2.0, 1.0],
        [0.0, 0.0, 3.0, -2.0],
        [0.0, 0.0, -1.0, 1.0],
    ]
)
LENGTH_POWER = (0, 1, 0, 1)  # N_j carries le ** LENGTH_POWER[j]


def shape_coefficients(length) -> np.ndarray:
    """Monomial coefficients in xi of each element's four shape functions.

    length : (n,) element lengths le in m (signed: x(t[1]) - x(t[0])).
    Returns (n, 4, 4): shape function j of element e is ``sum_k c[e, j, k] xi**k``,
    xi in [0, 1] (Lipinski (002), eq. 12); its x-derivatives are the xi-derivatives / le^order.
    """
    le = np.asarray(length, dtype=float).reshape(-1)
    scale = le[:, None] ** np.asarray(LENGTH_POWER, dtype=float)[None, :]  # (n, 4)
    return scale[:, :, None] * POWERS[None, :, :]


class ElementLineHermiteLocal(Element):
    """H2-conforming cubic Hermite line element with 4 DOFs, in local coordinates.

    A drop-in replacement of scikit-fem's ``ElementLineHermite`` (same DOFs, order and signs),
    exact to rounding on any mesh; see the module docstring.
    """

    nodal_dofs = 2
    maxdeg = 3
    dofnames = ["u", "u_x"]
    doflocs = np.array([[0.0], [0.0], [1.0], [1.0]])
    refdom = RefLine

    def gbasis(self, mapping, X, i, tind=None):
        """Shape function ``i`` and its first two x-derivatives at local points ``X``.

        X : (1, n_points) shared by all elements, or (1, n_elements, n_points).
        tind : optional element indices. Returns a one-tuple of ``DiscreteField``.
        """
        if not 0 <= int(i) < 4:
            self._index_error()
        if not isinstance(mapping, MappingAffine):
            raise ValueError(
                f"ElementLineHermiteLocal: got a mapping of type {type(mapping).__name__}; "
                "allowed: the affine mapping of a MeshLine (the chain rule d/dx = (1 / le) d/dxi "
                "holds for straight cells of constant length only)"
            )
        i = int(i)
        X = np.asarray(X, dtype=float)
        jac = np.asarray(mapping.DF(X, tind=tind))[0, 0]  # dx/dxi = le, (n_elements, n_points)
        xi = np.broadcast_to(X[0], jac.shape)
        a0, a1, a2, a3 = POWERS[i]
        p = a0 + xi * (a1 + xi * (a2 + xi * a3))
        dp = a1 + xi * (2.0 * a2 + 3.0 * a3 * xi)
        ddp = 2.0 * a2 + 6.0 * a3 * xi
        # d^k N / dx^k = le^(LENGTH_POWER - k) d^k p / dxi^k (chain rule, affine map)
        if LENGTH_POWER[i]:
            value, grad, hess = jac * p, dp, ddp / jac
        else:
            value, grad, hess = p, dp / jac, ddp / (jac * jac)
        return (
            DiscreteField(
                value=np.array(value),
                grad=np.array(grad)[None],
                hess=np.array(hess)[None, None],
            ),
        )


__all__ = ["ElementLineHermiteLocal", "LENGTH_POWER", "POWERS", "shape_coefficients"]
