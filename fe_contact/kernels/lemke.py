"""Compiled (numba) Lemke stage of the set-valued contact solver
(``coupling.setvalued.solve_contact_impulses``, the stage after De Saxce's fixed point): the
impulse laws as the LCP of Anitescu and Potra (``kernels.rough.anitescu_potra_lcp``), Lemke's
complementary pivoting (``kernels.rough.complementary_pivoting``, the kernel that
``coupling.lcp.lemke`` calls), the solution's impulses projected on their admissible sets
(``kernels.rough.lcp_projection``), and, when their law residual is above the tolerance, ten
active-set Newton iterations from them (``kernels.contact.active_set_newton``), the stage's
polish. The compiled Moreau-Jean sub-step (``kernels.moreau.substep``) calls it when De Saxce's
fixed point fails, and the Python solver's Lemke stage calls it when ``compiled`` is set: one
code for both, operation for operation that of the Python stage.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import rough  # a module (rough imports moreau, which imports this one)
from .contact import active_set_newton, law_residual

__all__ = ["LEMKE_POLISH", "lemke_impulses"]

LEMKE_POLISH = 10  # active-set Newton iterations that polish the pivoting's impulses
PIVOTS_PER_ROW = 50  # at most this many pivots per LCP row (``coupling.lcp.lemke``)


@njit(cache=True)
def lemke_impulses(delassus, offset, friction, r, tol, scale):
    """The impulses of Lemke's pivoting on the Anitescu-Potra LCP of G P + c, polished.

    Parameters
    ----------
    delassus : ndarray, shape (2m, 2m)
        Delassus matrix G, ordered (N.., T..); may be singular.
    offset : ndarray, shape (2m,)
        Free velocities c in m/s.
    friction : ndarray, shape (m,)
        Friction coefficients mu.
    r : ndarray, shape (2m,)
        r-factors of the law residual (1 / G_ii).
    tol : float
        Relative tolerance of the law residual.
    scale : float
        Velocity scale in m/s of the caller's acceptance test (the sweeps'): the pivoting's
        impulses are accepted as they are when their residual is at most ``tol * scale``;
        otherwise the Newton polish works to ``tol`` times max(|c|_inf, |G P|_inf, 1e-12).

    Returns
    -------
    impulses : ndarray, shape (2m,)
        (P_N, P_T) in N s: the solution when ``solved``; else the pivoting's projected
        impulses (zeros when the pivoting failed).
    projected : ndarray, shape (2m,)
        The pivoting's impulses before the polish (zeros when it failed).
    solved : bool
        Whether the stage solved the problem.
    pivoted : bool
        Whether the pivoting reached a solution (not a ray, a cycle or the pivot budget of 50
        per LCP row).
    pivots : int
        Pivots made.
    newton : int
        Newton iterations of the polish (0: not polished).

    Examples
    --------
    >>> import numpy as np
    >>> G = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> P, _, solved, _, _, _ = lemke_impulses(
    ...     G, np.array([-1.0, 0.2]), np.array([0.5]), 1.0 / np.diag(G), 1e-9, 1.0)
    >>> bool(solved), np.round(P, 4).tolist()  # sliding: P_T = -mu P_N
    (True, [0.5714, -0.2857])
    """
    m = friction.size
    matrix, vector = rough.anitescu_potra_lcp(delassus, offset, friction)
    z, pivots, pivoted = rough.complementary_pivoting(matrix, vector, PIVOTS_PER_ROW * vector.size)
    if not pivoted:
        return np.zeros(2 * m), np.zeros(2 * m), False, False, pivots, 0
    projected = rough.lcp_projection(z, friction)
    xi = np.empty(2 * m)
    residual, big = law_residual(delassus, offset, friction, r, projected, xi)
    if not residual > tol * scale:  # as the Python stage reads it (a NaN is accepted)
        return projected.copy(), projected, True, True, pivots, 0
    size = 1e-12
    for i in range(2 * m):
        size = max(size, abs(offset[i]))
    size = max(size, big)
    impulses, newton, solved = active_set_newton(
        delassus, offset, friction, projected, r, tol * size, LEMKE_POLISH
    )
    return impulses, projected, solved, True, pivots, newton
