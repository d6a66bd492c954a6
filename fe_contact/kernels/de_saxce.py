"""Compiled (numba) De Saxce fixed point of the set-valued contact solver
(``coupling.setvalued._de_saxce_fixed_point``): Coulomb's law as the fixed point of
least-distance problems in the velocities, each solved exactly by NNLS, and polished by the
active-set Newton iterations of ``kernels.contact``. It is what solves the contact problems of
a string wrapped on a drum (twenty-odd sticking contacts, G singular): the sweeps and Newton
iterations from rest do not.

The NNLS is Lawson and Hanson's active-set algorithm (Solving Least Squares Problems, 1974,
ch. 23), written out here because scipy's ``nnls`` cannot be called from numba; it follows
scipy's tolerance (10 eps |A|_1 max(rows, columns)) and iteration budget. Its solutions differ
from scipy's in round-off; the velocities of each least-distance problem are unique.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .contact import active_set_newton, law_residual
from .jit import inner

__all__ = ["de_saxce_fixed_point", "nnls"]


@inner
def _passive_solution(A, b, passive):
    """The least-squares solution of A[:, passive] x = b (QR), scattered into (n,), zeros
    elsewhere, and whether the passive columns are independent (else the solution is not
    computed)."""
    n = A.shape[1]
    count = 0
    for j in range(n):
        if passive[j]:
            count += 1
    cols = np.empty(count, dtype=np.int64)
    k = 0
    for j in range(n):
        if passive[j]:
            cols[k] = j
            k += 1
    sub = np.empty((A.shape[0], count))
    for i in range(A.shape[0]):
        for k in range(count):
            sub[i, k] = A[i, cols[k]]
    s = np.zeros(n)
    if count == 0:
        return s, True
    if count > A.shape[0]:
        return s, False
    # the passive columns are independent (Lawson and Hanson, ch. 23): QR, back substitution
    q, r = np.linalg.qr(sub)
    largest = 0.0
    for k in range(count):
        largest = max(largest, abs(r[k, k]))
    for k in range(count):
        if not abs(r[k, k]) > 1e-13 * largest:
            return s, False
    z = np.ascontiguousarray(q.T) @ b
    for k in range(count - 1, -1, -1):
        t = z[k]
        for i in range(k + 1, count):
            t -= r[k, i] * z[i]
        z[k] = t / r[k, k]
    for k in range(count):
        s[cols[k]] = z[k]
    return s, True


@njit(cache=True)
def nnls(A, b, max_iterations, passive):
    """min |A x - b| subject to x >= 0 by Lawson and Hanson's active-set algorithm.

    Parameters
    ----------
    A : ndarray, shape (rows, n)
    b : ndarray, shape (rows,)
    max_iterations : int
        Of the outer loop (scipy: 3 n).
    passive : ndarray of bool, shape (n,)
        In: a guess of the columns with x > 0 (all False: Lawson and Hanson's start from
        x = 0); out: those of the solution. A guess is first made feasible (the least-squares
        solution on it, columns with x <= 0 dropped until none is left), which is the
        algorithm's invariant; a good guess (the last problem's set, in a fixed point over
        nearby problems) leaves a few least-squares solves instead of one per column.

    Returns
    -------
    x : ndarray, shape (n,)
    converged : bool

    Hand-written because scipy's ``nnls`` cannot be called from numba.

    Examples
    --------
    >>> import numpy as np
    >>> from fe_contact.kernels.de_saxce import nnls
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> x, ok = nnls(A, np.array([1.0, -1.0]), 6, np.zeros(2, dtype=bool))
    >>> [round(float(v), 12) for v in x], ok
    ([1.0, 0.0], True)
    """
    rows, n = A.shape
    norm_1 = 0.0
    for j in range(n):
        s = 0.0
        for i in range(rows):
            s += abs(A[i, j])
        norm_1 = max(norm_1, s)
    tol = 10.0 * np.finfo(np.float64).eps * norm_1 * max(rows, n)
    a_t = np.ascontiguousarray(A.T)
    x = np.zeros(n)
    w = np.empty(n)
    while passive.any():  # the guess made feasible: x_P the least-squares solution, > tol
        s, independent = _passive_solution(A, b, passive)
        if not independent:  # a guess of dependent columns: Lawson and Hanson's start
            passive[:] = False
            break
        dropped = False
        for j in range(n):
            if passive[j] and s[j] <= tol:
                passive[j] = False
                dropped = True
        if not dropped:
            x[:] = s
            break
    for _ in range(max_iterations):
        residual = b - A @ x
        w[:] = a_t @ residual
        best = -1
        for j in range(n):
            if not passive[j] and w[j] > tol and (best < 0 or w[j] > w[best]):
                best = j
        if best < 0:
            return x, True
        passive[best] = True
        s, independent = _passive_solution(A, b, passive)
        while independent:
            alpha = np.inf
            for j in range(n):
                if passive[j] and s[j] <= tol:
                    drop = x[j] - s[j]
                    alpha = min(alpha, x[j] / drop if drop > 0.0 else 0.0)
            if alpha == np.inf:
                break
            for j in range(n):
                x[j] += alpha * (s[j] - x[j])
                if passive[j] and x[j] <= tol:
                    passive[j] = False
                    x[j] = 0.0
            s, independent = _passive_solution(A, b, passive)
        if not independent:  # round-off made the passive columns dependent
            return x, False
        x[:] = s
    return x, False


@inner
def _problem(b_t, C, E, c, mu, s, target, passive):
    """One least-distance problem with the frozen slip s: (ok, F (m,), P (2m,), lam (2m,),
    xi_T (m,)); ok False when NNLS fails or the half-planes have no common point."""
    m = mu.size
    r = b_t.shape[1]
    shifted = c.copy()
    for i in range(m):
        shifted[i] += s[i]
    d = -(E.T @ shifted)
    lhs = np.empty((r + 1, 2 * m))
    lhs[:r] = C.T
    lhs[r] = d
    u, converged = nnls(lhs, target, 100 * 2 * m, passive)
    F = np.empty(m)
    lam = np.empty(2 * m)
    xi_t = np.empty(m)
    if not converged:
        return False, F, np.empty(2 * m), lam, xi_t
    rest = lhs @ u - target
    if not abs(rest[-1]) > 1e-12:
        return False, F, np.empty(2 * m), lam, xi_t
    lam[:] = u / -rest[-1]
    y = -rest[:r] / rest[-1]
    xi_t[:] = b_t @ y + c[m:]
    for i in range(m):
        F[i] = mu[i] * abs(xi_t[i]) - s[i]
    return True, F, E @ lam, lam, xi_t


@inner
def _jacobian(b_t, C, mu, m, lam, xi_t):
    """dF/ds of the last problem from its active half-planes (``_de_saxce_fixed_point``)."""
    count = 0
    for k in range(lam.size):
        if lam[k] > 0.0:
            count += 1
    active = np.empty((count, C.shape[1]))
    d_a = np.zeros((count, m))
    k = 0
    for j in range(lam.size):
        if lam[j] > 0.0:
            active[k] = C[j]
            if j < m:  # d d / d s = -E^T[:, :m]: -1 on l+ and l- of contact j
                d_a[k, j] = -1.0
            else:
                d_a[k, j - m] = -1.0
            k += 1
    active_t = np.ascontiguousarray(active.T)
    dy = active_t @ np.linalg.lstsq(active @ active_t, d_a, rcond=1e-12)[0]
    jac = b_t @ dy
    for i in range(m):
        sign = 1.0 if xi_t[i] > 0.0 else (-1.0 if xi_t[i] < 0.0 else 0.0)
        for j in range(m):
            jac[i, j] *= mu[i] * sign
        jac[i, i] -= 1.0
    return jac


@inner
def _measure(G, c, mu, r_unit, scale_c, P, xi):
    """(law residual, its scale max(|c|_inf, |G P|_inf, 1e-12)) of P; xi = G P + c written."""
    residual, big = law_residual(G, c, mu, r_unit, P, xi)
    return residual, max(scale_c, big, 1e-12)


@inner
def _same_statuses(P, xi, mu, r, statuses):
    """Are the statuses of P (``setvalued._statuses``: 0 open, 1 stick, 2 + sign(z_T) slip)
    those in statuses (m,)? They are written there."""
    m = mu.size
    same = True
    for i in range(m):
        z_n = P[i] - r[i] * xi[i]
        z_t = P[m + i] - r[m + i] * xi[m + i]
        status = 0
        if z_n > 0.0:
            sign = 1 if z_t > 0.0 else (-1 if z_t < 0.0 else 0)
            status = 3 + sign
            if abs(z_t) < mu[i] * (P[i] if P[i] > 0.0 else 0.0):
                status = 1
        if status != statuses[i]:
            same = False
            statuses[i] = status
    return same


@inner
def _iterate(G, c, mu, r_unit, scale_c, tol, b_t, C, E, start, target, max_outer, counts, failed):
    """``setvalued._iterate_de_saxce`` from the slip start: (ok, P); counts[0] += problems,
    counts[1] += Newton iterations of the polishes. failed : the statuses (m,) of the last
    polish that failed and its tolerance ([m], -1 for none): a polish from the same statuses
    with no larger a tolerance is skipped, as in ``setvalued.solve_contact_impulses``."""
    m = mu.size
    s = start.copy()
    passive = np.zeros(2 * m, dtype=np.bool_)  # NNLS's columns, passed on between problems
    xi = np.empty(2 * m)
    ok, F, P, lam, xi_t = _problem(b_t, C, E, c, mu, s, target, passive)
    counts[0] += 1
    rejected = 0
    omega, best, since = 1.0, np.inf, 0
    for outer in range(1, max_outer + 1):
        if not ok:
            return False, P
        residual, scale = _measure(G, c, mu, r_unit, scale_c, P, xi)
        if residual <= tol * scale:
            return True, P
        if outer >= 3:
            repeat = _same_statuses(P, xi, mu, r_unit, failed)  # P's statuses written
            if not (repeat and failed[m] >= 0.0 and tol * scale <= failed[m]):
                trial, iterations, converged = active_set_newton(
                    G, c, mu, P, r_unit, tol * scale, 2
                )
                counts[1] += iterations
                if converged:
                    return True, trial
                failed[m] = tol * scale
        if rejected < 2:
            jac = _jacobian(b_t, C, mu, m, lam, xi_t)
            newton = s - np.linalg.lstsq(jac, F)[0]
            for i in range(m):
                newton[i] = newton[i] if newton[i] > 0.0 else 0.0
            ok_t, F_t, P_t, lam_t, xi_t_t = _problem(b_t, C, E, c, mu, newton, target, passive)
            counts[0] += 1
            if ok_t and np.abs(F_t).max() < np.abs(F).max():
                s, ok, F, P, lam, xi_t, rejected = newton, ok_t, F_t, P_t, lam_t, xi_t_t, 0
                continue
            rejected += 1
        size = np.abs(F).max()
        if size < best:
            best, since = size, 0
        else:
            since += 1
        if since >= 10:
            omega, best, since = max(0.5 * omega, 0.125), np.inf, 0
        s = s + omega * F
        ok, F, P, lam, xi_t = _problem(b_t, C, E, c, mu, s, target, passive)
        counts[0] += 1
    return False, P


@njit(cache=True)
def de_saxce_fixed_point(G, c, mu, r_unit, tol, max_outer):
    """``setvalued._de_saxce_fixed_point`` compiled, its polish the active-set Newton
    iterations (two) of ``kernels.contact`` from the third iterate on.

    G : (2m, 2m) Delassus matrix; c : (2m,) offset; mu : (m,); r_unit : (2m,) r-factors of
    the law residual (1 / G_ii); tol : relative tolerance of the law residual (as
    ``solve_contact_impulses``); max_outer : problems per start (half the Python budget).
    Returns (P (2m,), converged, problems solved, Newton iterations of the polishes).
    """
    m = mu.size
    n = 2 * m
    counts = np.zeros(2, dtype=np.int64)
    failed = np.full(m + 1, -1.0)  # statuses of the last failed polish, its tolerance
    scale_c = 0.0
    for i in range(n):
        scale_c = max(scale_c, abs(c[i]))
    w, V = np.linalg.eigh(0.5 * (G + G.T))
    limit = 1e-12 * max(w[-1], 0.0)
    r = 0
    for k in range(n):
        if w[k] > limit:
            r += 1
    if r == 0:
        return np.zeros(n), False, 0, 0
    B = np.empty((r, n))
    k = 0
    for j in range(n):
        if w[j] > limit:
            root = np.sqrt(w[j])
            for i in range(n):
                B[k, i] = root * V[i, j]
            k += 1
    E = np.zeros((n, n))
    for i in range(m):
        E[i, i] = 1.0
        E[i, m + i] = 1.0
        E[m + i, i] = -mu[i]
        E[m + i, m + i] = mu[i]
    C = np.ascontiguousarray(E.T) @ np.ascontiguousarray(B.T)  # the half-planes: C y >= d(s)
    b_t = np.ascontiguousarray(B.T[m:])  # xi_T = b_t y + c_T
    target = np.zeros(r + 1)
    target[-1] = 1.0
    start = np.zeros(m)
    for attempt in range(2):  # from stick, then from the free slip
        if attempt == 1:
            for i in range(m):
                start[i] = mu[i] * abs(c[m + i])
        ok, P = _iterate(
            G, c, mu, r_unit, scale_c, tol, b_t, C, E, start, target, max_outer, counts, failed
        )
        if ok:
            return P, True, counts[0], counts[1]
    return np.zeros(n), False, counts[0], counts[1]
