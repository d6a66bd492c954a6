"""The impulse laws of a Moreau-Jean step as a linear complementarity problem (LCP) and
Lemke's complementary pivoting, Eugster-Glocker (004), eqs. (26)-(27), in the polyhedral form of
Anitescu and Potra (friction impulse P_T = beta+ - beta-), which Lemke's algorithm processes
for any friction coefficient.

Dense contact (many candidates on one element: more contact rows than the degrees of freedom
they touch) makes the Delassus matrix G singular and the LCP degenerate: ratios tie in the
pivoting, and round-off breaks the lexicographic rule that resolves the ties in exact
arithmetic, so the pivoting cycles. ``regularised_solutions`` solves nearby problems instead:
G + eps g I (g = max diag G: a small compliance, positive definite) with the free velocities
perturbed by delta |c| (generic values: no ties), whose solutions meet the laws with G itself
to within (eps g |P| + delta |c|) in velocity and are the starts from which the active-set
Newton iterations of ``setvalued`` reach the exact solution.
"""

from __future__ import annotations

import numpy as np

from ..kernels import rough as kernels

__all__ = [
    "SCHEDULE",
    "coulomb_lcp",
    "lcp_impulses",
    "lemke",
    "regularised_solutions",
    "status_solution",
]

# (compliance eps of G + eps max(diag G) I, perturbation delta of the free velocity) in the
# order ``regularised_solutions`` tries them
SCHEDULE = ((1e-8, 1e-10), (0.0, 1e-10), (1e-8, 1e-8), (0.0, 1e-8), (1e-6, 1e-8))
GOLDEN = 0.5 * (np.sqrt(5.0) - 1.0)  # fractional parts of k GOLDEN: spread, none repeated


def coulomb_lcp(delassus: np.ndarray, offset: np.ndarray, friction: np.ndarray):
    """The impulse laws as an LCP ``w = A z + b >= 0, z >= 0, w . z = 0`` (Anitescu-Potra form).

    z = (P_N, beta+, beta-, lambda), each (m,), with P_T = beta+ - beta-; w = (xi_N,
    xi_T + lambda, -xi_T + lambda, mu P_N - beta+ - beta-). A solution gives P_N >= 0 with
    xi_N >= 0, P_N xi_N = 0 (004 eq. (26)), |P_T| <= mu P_N and, where xi_T != 0,
    P_T = -sign(xi_T) mu P_N, lambda = |xi_T| (004 eq. (27)). Returns (A (4m, 4m), b (4m,))
    (``kernels.rough.anitescu_potra_lcp``).
    """
    G = np.ascontiguousarray(delassus, dtype=float)
    c = np.ascontiguousarray(offset, dtype=float)
    mu = np.ascontiguousarray(friction, dtype=float).reshape(-1)
    m = mu.size
    if G.shape != (2 * m, 2 * m) or c.shape != (2 * m,):
        raise ValueError(
            f"coulomb_lcp: delassus {G.shape} and offset {c.shape} for {m} friction "
            f"coefficients; allowed: shapes ({2 * m}, {2 * m}) and ({2 * m},)"
        )
    return kernels.anitescu_potra_lcp(G, c, mu)


def lemke(
    matrix: np.ndarray,
    vector: np.ndarray,
    max_pivots: int | None = None,
):
    """Lemke's complementary pivoting for ``w = A z + b >= 0, z >= 0, w . z = 0``.

    Covering vector e = (1, ..., 1); lexicographic minimum-ratio test (ties within a relative
    1e-11, which resolves the degenerate pivots that redundant contacts produce), and the
    artificial variable leaves whenever it ties. Should round-off make the pivoting return to
    a basis it has left (a cycle, which exact lexicographic pivoting cannot do), it stops.
    Dense tableau, n = b.size (``kernels.rough.complementary_pivoting``).
    Returns (z, n_pivots); z is None on ray termination, on a cycle or after max_pivots
    (default 50 n).
    """
    A = np.ascontiguousarray(matrix, dtype=float)
    b = np.ascontiguousarray(vector, dtype=float)
    n = b.size
    if A.shape != (n, n):
        raise ValueError(f"lemke: matrix {A.shape} for a vector of {n}; allowed: ({n}, {n})")
    max_pivots = 50 * n if max_pivots is None else int(max_pivots)
    z, pivots, solved = kernels.complementary_pivoting(A, b, max_pivots)
    return (z if solved else None), int(pivots)


def lcp_impulses(z: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """(P_N, P_T) of a solution z of ``coulomb_lcp``, projected on the admissible sets
    (``kernels.rough.lcp_projection``)."""
    z = np.ascontiguousarray(z, dtype=float)
    return kernels.lcp_projection(z, np.ascontiguousarray(mu, dtype=float).reshape(-1))


def regularised_solutions(
    delassus: np.ndarray,
    offset: np.ndarray,
    friction: np.ndarray,
    schedule: tuple = SCHEDULE,
    pivots_per_row: int = 10,
):
    """Solutions of nearby impulse problems, one per (eps, delta) of schedule:
    ``xi = (G + eps g I) P + c + delta |c|_inf u`` (g = max diag G; u_k in (0, 1) the fractional
    parts of (k + 1) times the golden ratio, on every row of the LCP), by Lemke's pivoting on
    ``coulomb_lcp`` with the matrix divided by g, so that its tolerances see entries of order
    one.

    G + eps g I is positive definite, and the perturbation gives the ratios of the pivoting
    generic values, so that no two tie: what the lexicographic rule does in exact arithmetic,
    done with margins (delta |c|) far above round-off. On the dense problems of the disk on a
    string (25 to 36 closed contacts, G of rank 20 of 50 and 36 of 72), where the plain
    pivoting cycles (a basis repeats after 100-320 pivots), eps = 1e-8 and delta = 1e-10 solve
    each in 180-320 pivots. Since the natural residual (``setvalued.natural_residual``,
    r = 1 / G_ii) is 1-Lipschitz in the velocities and the friction rows are shifted by at most
    delta |c| / g, a solution meets the laws with G to within about
    ``eps g |P|_inf + delta |c|_inf`` m/s (3e-9 to 5e-9 m/s there); its statuses (open, stick,
    slip) are those of an exact solution once eps and delta are small enough, and one Newton
    iteration of ``setvalued`` finishes from there.

    delassus : G, shape (2m, 2m); offset : c, shape (2m,); friction : mu, shape (m,).
    pivots_per_row : at most this many pivots per LCP row (n = 4m rows) per entry.
    Yields (eps, delta, P or None when the pivoting failed, pivots), P (2m,) in its sets.
    """
    G = np.asarray(delassus, dtype=float)
    c = np.asarray(offset, dtype=float)
    mu = np.asarray(friction, dtype=float)
    n = G.shape[0]
    g = float(np.max(np.diag(G)))
    size = float(np.abs(c).max(initial=0.0))
    u = np.modf(GOLDEN * np.arange(1, 2 * n + 1))[0]
    for eps, delta in schedule:
        matrix, vector = coulomb_lcp((G + eps * g * np.eye(n)) / g, c, mu)
        vector = vector + delta * size * u
        z, pivots = lemke(matrix, vector, pivots_per_row * vector.size)
        yield eps, delta, (None if z is None else lcp_impulses(z / g, mu)), pivots


def status_solution(delassus: np.ndarray, offset: np.ndarray, friction: np.ndarray, impulses):
    """The impulses of the statuses that ``impulses`` P (2m,) show, solved exactly: open where
    P_N = 0 (P_N = P_T = 0), stick where |P_T| < mu P_N (xi_N = xi_T = 0), slip where
    P_T = -+ mu P_N (xi_N = 0, P_T = sign(P_T) mu P_N), 004 eqs. (26)-(27) read as linear
    equations; of the impulses that satisfy them (G singular: redundant contacts) the least
    correction of P (least squares), projected on the admissible sets. Returns (2m,).

    A solution of a regularised problem (``regularised_solutions``) shows the statuses of an
    exact one, but the active-set Newton iterations of ``setvalued``, which read them from
    z = P - xi / G_ii, may not: where a contact is degenerate (P_N = 0 and xi_N ~ 1e-9 m/s, or
    a stick at |P_T| ~ mu P_N) the regularisation moves xi by its own size, enough to change
    such a status, and on a singular G the equations of a wrong status set have no solution,
    so the iterations jump and cycle. The dropped disk on a string of 16 elements (theta = 0.5,
    34 closed contacts, G of rank 36 of 68): Newton cycles from 3.4e-8 m/s, this solve reaches
    4.4e-16 m/s.
    """
    G = np.asarray(delassus, dtype=float)
    c = np.asarray(offset, dtype=float)
    mu = np.asarray(friction, dtype=float)
    P = np.array(impulses, dtype=float)
    m = mu.size
    closed = P[:m] > 0.0
    stick = closed & (np.abs(P[m:]) < mu * P[:m])
    slip = np.flatnonzero(closed & ~stick)
    A = np.eye(2 * m)
    b = np.zeros(2 * m)
    rows = np.concatenate((np.flatnonzero(closed), m + np.flatnonzero(stick)))
    A[rows] = G[rows]
    b[rows] = -c[rows]
    A[m + slip, slip] = -np.sign(P[m + slip]) * mu[slip]  # P_T - sign(P_T) mu P_N = 0
    P = P + np.linalg.lstsq(A, b - A @ P, rcond=1e-13)[0]
    P[:m] = np.maximum(P[:m], 0.0)
    P[m:] = np.clip(P[m:], -mu * P[:m], mu * P[:m])
    return P
