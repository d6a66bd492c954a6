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

from .contact import active_set_newton, law_residual
from .jit import inner

__all__ = [
    "LEMKE_POLISH",
    "anitescu_potra_lcp",
    "complementary_pivoting",
    "lcp_projection",
    "lemke_impulses",
]

LEMKE_POLISH = 10  # active-set Newton iterations that polish the pivoting's impulses
PIVOTS_PER_ROW = 50  # at most this many pivots per LCP row (``coupling.lcp.lemke``)


@njit(cache=True)
def anitescu_potra_lcp(delassus, offset, friction):
    """The impulse laws of m contacts as the LCP ``w = A z + b >= 0, z >= 0, w . z = 0`` of
    Anitescu and Potra (``coupling.lcp.coulomb_lcp``): z = (P_N, beta+, beta-, lambda),
    A = [[G_NN, G_NT, -G_NT, 0], [G_TN, G_TT, -G_TT, I], [-G_TN, -G_TT, G_TT, I],
    [diag mu, -I, -I, 0]], b = (c_N, c_T, -c_T, 0). delassus G (2m, 2m), offset c (2m,),
    friction mu (m,). Returns (A (4m, 4m), b (4m,))."""
    m = friction.size
    A = np.zeros((4 * m, 4 * m))
    b = np.zeros(4 * m)
    for i in range(m):
        for j in range(m):
            g_nn, g_nt = delassus[i, j], delassus[i, m + j]
            g_tn, g_tt = delassus[m + i, j], delassus[m + i, m + j]
            A[i, j], A[i, m + j], A[i, 2 * m + j] = g_nn, g_nt, -g_nt
            A[m + i, j], A[m + i, m + j], A[m + i, 2 * m + j] = g_tn, g_tt, -g_tt
            A[2 * m + i, j], A[2 * m + i, m + j], A[2 * m + i, 2 * m + j] = -g_tn, -g_tt, g_tt
        A[m + i, 3 * m + i] = 1.0
        A[2 * m + i, 3 * m + i] = 1.0
        A[3 * m + i, i] = friction[i]
        A[3 * m + i, m + i] = -1.0
        A[3 * m + i, 2 * m + i] = -1.0
        b[i] = offset[i]
        b[m + i] = offset[m + i]
        b[2 * m + i] = -offset[m + i]
    return A, b


@inner
def _tied(tableau, column, rows, k, lowest_out):
    """The rows of ``rows`` whose ratio tableau[row, k] / column[row] is within a relative 1e-11
    of the lowest."""
    lowest = np.inf
    for r in rows:
        lowest = min(lowest, tableau[r, k] / column[r])
    bound = lowest + 1e-11 * max(1.0, abs(lowest))
    count = 0
    for r in rows:
        if tableau[r, k] / column[r] <= bound:
            lowest_out[count] = r
            count += 1
    return lowest_out[:count].copy()


@njit(cache=True)
def complementary_pivoting(matrix, vector, max_pivots):
    """Lemke's complementary pivoting for ``w = A z + b >= 0, z >= 0, w . z = 0`` with the
    covering vector (1, ..., 1), the lexicographic minimum-ratio test with ties within a
    relative 1e-11, the artificial variable leaving whenever it ties, and a stop when a basis
    repeats (a cycle that round-off lets in). Dense tableau [B^-1 | B^-1 (-A) | B^-1 (-e) |
    B^-1 b] for w - A z - e z0 = b, n = b.size (``coupling.lcp.lemke``).

    Returns (z (n,), pivots, solved): solved False on ray termination, on a cycle or after
    max_pivots pivots.
    """
    n = vector.size
    z = np.zeros(n)
    if n == 0 or vector.min() >= 0.0:
        return z, 0, True
    width = 2 * n + 2
    tableau = np.zeros((n, width))
    for i in range(n):
        tableau[i, i] = 1.0
        for j in range(n):
            tableau[i, n + j] = -matrix[i, j]
        tableau[i, 2 * n] = -1.0
        tableau[i, width - 1] = vector[i]
    basis = np.arange(n)  # basic variable per row: 0..n-1 = w, n..2n-1 = z, 2n = z0
    artificial = 2 * n
    row = int(np.argmin(vector))
    entering = artificial
    visited = np.empty((16, n), np.int64)
    hashes = np.empty(16, np.int64)
    n_visited = 0
    scratch = np.empty(n, np.int64)
    for pivots in range(1, max_pivots + 1):
        pivot = tableau[row, entering]
        for j in range(width):
            tableau[row, j] /= pivot
        for i in range(n):
            if i == row:
                continue
            f = tableau[i, entering]
            for j in range(width):
                tableau[i, j] -= f * tableau[row, j]
        leaving = basis[row]
        basis[row] = entering
        if leaving == artificial:
            values = np.zeros(2 * n + 1)
            for i in range(n):
                values[basis[i]] = tableau[i, width - 1]
            return values[n : 2 * n].copy(), pivots, True
        key = np.sort(basis)
        code = 0
        for v in key:
            code = code * 1000003 + v
        for v in range(n_visited):
            if hashes[v] == code and np.all(visited[v] == key):
                return z, pivots, False  # a cycle
        if n_visited == hashes.size:
            grown = np.empty((2 * n_visited, n), np.int64)
            grown[:n_visited] = visited
            visited = grown
            more = np.empty(2 * n_visited, np.int64)
            more[:n_visited] = hashes
            hashes = more
        visited[n_visited] = key
        hashes[n_visited] = code
        n_visited += 1
        entering = leaving + n if leaving < n else leaving - n
        largest = 0.0
        for i in range(n):
            largest = max(largest, abs(tableau[i, entering]))
        threshold = 1e-12 * max(1.0, largest)
        count = 0
        for i in range(n):
            if tableau[i, entering] > threshold:
                scratch[count] = i
                count += 1
        if count == 0:
            return z, pivots, False  # ray termination
        column = tableau[:, entering].copy()
        tied = _tied(tableau, column, scratch[:count], width - 1, np.empty(n, np.int64))
        found = -1
        for r in tied:
            if basis[r] == artificial:
                found = r
                break
        if found >= 0:
            row = found
            continue
        for k in range(n):  # lexicographic tie-break on the rows of B^-1
            if tied.size == 1:
                break
            tied = _tied(tableau, column, tied, k, np.empty(n, np.int64))
        row = tied[0]
    return z, max_pivots, False


@njit(cache=True)
def lcp_projection(z, friction):
    """(P_N, P_T) (2m,) of a solution z (4m,) of ``anitescu_potra_lcp``: P_N = max(z_N, 0),
    P_T = beta+ - beta- clipped to [-mu P_N, mu P_N] (the admissible sets, against round-off)."""
    m = friction.size
    p = np.empty(2 * m)
    for i in range(m):
        p_n = max(z[i], 0.0)
        bound = friction[i] * p_n
        p[i] = p_n
        p[m + i] = min(max(z[m + i] - z[2 * m + i], -bound), bound)
    return p


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
    matrix, vector = anitescu_potra_lcp(delassus, offset, friction)
    z, pivots, pivoted = complementary_pivoting(matrix, vector, PIVOTS_PER_ROW * vector.size)
    if not pivoted:
        return np.zeros(2 * m), np.zeros(2 * m), False, False, pivots, 0
    projected = lcp_projection(z, friction)
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
