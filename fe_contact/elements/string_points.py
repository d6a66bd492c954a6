"""Evaluation of the string at arbitrary material points (``elements.string`` re-exports these
names): containing elements, Hermite functions at points, positions/tangents/curvature/tension,
the position Jacobian dr/dq used by contact kinematics (Eugster-Glocker (004), eqs. 20-22), and
the reduced state of the free coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..curves import PERP
from .string_model import StringModel

# --------------------------------------------------------------------------------------------
# Evaluation at arbitrary material points (contact coupling)
# --------------------------------------------------------------------------------------------


def find_element(model: StringModel, s) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Containing element of material points (np.searchsorted), shape (m,) each.

    Returns (s as array, element index, local coordinate in [0, 1]). A point on a node belongs
    to the element on its right (the last node to the last element).
    """
    s = np.atleast_1d(np.asarray(s, dtype=float))
    length = model.spec.length
    tol = 1e-12 * length
    if s.ndim != 1 or np.any(~np.isfinite(s)) or np.any(s < -tol) or np.any(s > length + tol):
        raise ValueError(
            f"s: got values in [{np.min(s):g}, {np.max(s):g}]; allowed: a scalar or 1-d array "
            f"of material coordinates in [0, {length:g}] m"
        )
    s = np.clip(s, 0.0, length)
    element = np.clip(np.searchsorted(model.nodes, s, side="right") - 1, 0, model.n_elements - 1)
    local = (s - model.nodes[element]) / (model.nodes[element + 1] - model.nodes[element])
    return s, element, local


def point_shape_functions(model: StringModel, element: np.ndarray, local: np.ndarray):
    """Scalar Hermite functions of the containing element, each shape (4, m): N, N', N''."""
    scalar = model.basis.elem.elem
    points = local.reshape(1, -1, 1)
    fields = [scalar.gbasis(model.basis.mapping, points, a, tind=element)[0] for a in range(4)]
    values = np.array([np.asarray(f)[:, 0] for f in fields])
    slopes = np.array([f.grad[0, :, 0] for f in fields])
    curvatures = np.array([f.hess[0, 0, :, 0] for f in fields])
    return values, slopes, curvatures


@dataclass(frozen=True, eq=False)
class StringPoints:
    """Kinematics and tension at material points; m = number of points.

    s, element : shape (m,); position, slope (dr/ds), tangent (unit), normal (unit, tangent
    turned +90 deg) : shape (2, m); curvature (signed, 1/m, per unit current length), stretch,
    tension (N) : shape (m,). Position and slope are continuous; the curvature jumps at nodes,
    where it is taken from the element on the right (the last node: the last element). The
    tension from the pointwise stretch is far less accurate than positions for a stiff string
    (the stretch is 1 + O(T/EA)); the support reactions of a static solve are accurate.
    """

    s: np.ndarray
    element: np.ndarray
    position: np.ndarray
    slope: np.ndarray
    tangent: np.ndarray
    normal: np.ndarray
    curvature: np.ndarray
    stretch: np.ndarray
    tension: np.ndarray


def string_points_at(model: StringModel, q: np.ndarray, s) -> StringPoints:
    """Position, tangent, normal, curvature, stretch and tension at material coordinates s."""
    s, element, local = find_element(model, s)
    values, slopes, curvatures = point_shape_functions(model, element, local)
    q_p = q[model.basis.element_dofs[:, element]].reshape(4, 2, -1)  # [a, component, point]
    position = np.einsum("am,acm->cm", values, q_p)
    r_s = np.einsum("am,acm->cm", slopes, q_p)
    r_ss = np.einsum("am,acm->cm", curvatures, q_p)
    ref_p = model.q_ref[model.basis.element_dofs[:, element]].reshape(4, 2, -1)
    metric = np.sqrt(np.sum(np.einsum("am,acm->cm", slopes, ref_p) ** 2, axis=0))
    length = np.sqrt(np.sum(r_s**2, axis=0))
    tangent = r_s / length
    stretch = length / metric
    return StringPoints(
        s=s,
        element=element,
        position=position,
        slope=r_s,
        tangent=tangent,
        normal=PERP @ tangent,
        curvature=(r_s[0] * r_ss[1] - r_s[1] * r_ss[0]) / length**3,
        stretch=stretch,
        tension=model.spec.law.tension(stretch),
    )


@dataclass(frozen=True, eq=False)
class PointJacobian:
    """dr/dq at m material points: r(s_k) = block[k] @ q[dofs[k]].

    s : (m,); dofs : (m, 8) global dofs of the containing element; block : (m, 2, 8);
    n_dofs : total number of dofs (for the sparse form).
    """

    s: np.ndarray
    dofs: np.ndarray
    block: np.ndarray
    n_dofs: int

    def sparse(self) -> sp.csr_matrix:
        """The Jacobian as CSR, shape (2 m, n_dofs); rows 2k, 2k+1 are x, y of point k."""
        m = self.s.size
        rows = np.repeat(np.arange(2 * m), 8)
        cols = np.repeat(self.dofs, 2, axis=0).ravel()
        return sp.csr_matrix((self.block.ravel(), (rows, cols)), shape=(2 * m, self.n_dofs))


def position_jacobian(model: StringModel, s) -> PointJacobian:
    """Jacobian dr/dq at material coordinates s (constant in q: r is linear in q)."""
    s, element, local = find_element(model, s)
    values, _, _ = point_shape_functions(model, element, local)
    block = np.zeros((s.size, 2, 8))
    for a in range(4):
        for c in range(2):
            block[:, c, 2 * a + c] = values[a]
    return PointJacobian(
        s=s, dofs=model.basis.element_dofs[:, element].T.copy(), block=block, n_dofs=model.n_dofs
    )


# --------------------------------------------------------------------------------------------
# Dynamics on the free dofs: M q'' + f_int(q) = f_ext
# --------------------------------------------------------------------------------------------


def reduce_state(model: StringModel, q: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
    """State y = (q_free, u_free), shape (2 n_free,), from full q, u (u = None: at rest)."""
    u = np.zeros_like(q) if u is None else u
    return np.concatenate((q[model.free_dofs], u[model.free_dofs]))  # a closed string's
    # last node repeats its first: its values are not unknowns


def expand_state(model: StringModel, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Full (q, u), each shape (n_dofs,), from y; fixed dofs at q_prescribed, at rest."""
    n_free = model.free_dofs.size
    q = model.expand(y[:n_free])
    u = model.reduction @ y[n_free:]
    return q, u
