"""Compiled (numba) parts of the set-valued contact solver of a Moreau-Jean step
(``coupling.setvalued.solve_contact_impulses``): one projected Gauss-Seidel sweep on the
proximal equations of Eugster-Glocker (004), eqs. (26)-(27), the law residual of an iterate,
and the active-set Newton iterations. Each is written out as its numpy reference in
``coupling.setvalued`` (same operations in the same order; dot products and least-squares
solves differ from numpy's BLAS and LAPACK calls in round-off). The problems are small (2 m
rows for m closed contacts, a few to a few tens): Python's per-call overhead, not arithmetic,
is what these remove.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .jit import inner

__all__ = ["active_set_newton", "gauss_seidel_sweep", "law_residual", "warm_sweeps"]


@njit(cache=True)
def gauss_seidel_sweep(G, c, mu, diag, alpha, P):
    """One sweep over the m contacts, in place on P (2m,): per contact the normal, then the
    tangential proximal equation with the current impulses, r = alpha / G_ii."""
    m = mu.size
    n = 2 * m
    for i in range(m):
        j = m + i
        s = 0.0
        for k in range(n):
            s += G[i, k] * P[k]
        p_n = P[i] - alpha / diag[i] * (s + c[i])
        p_n = p_n if p_n > 0.0 else 0.0
        P[i] = p_n
        bound = mu[i] * p_n
        s = 0.0
        for k in range(n):
            s += G[j, k] * P[k]
        p_t = P[j] - alpha / diag[j] * (s + c[j])
        if -bound > p_t:  # min(max(p_t, -bound), bound) as in Python
            p_t = -bound
        if bound < p_t:
            p_t = bound
        P[j] = p_t


@inner
def _natural_residual(P, xi, mu, r):
    """``setvalued.natural_residual`` on the stacked vectors (r = r-factors (2m,))."""
    m = mu.size
    worst = 0.0
    for i in range(m):
        z = P[i] - r[i] * xi[i]
        z = z if z > 0.0 else 0.0  # np.maximum(z, 0) for finite z
        res = abs(P[i] - z) / r[i]
        if res > worst or res != res:  # a NaN stays (np.max propagates it)
            worst = res
    for i in range(m):
        j = m + i
        bound = mu[i] * P[i]
        z = P[j] - r[j] * xi[j]
        if z < -bound:  # np.clip(z, -bound, bound)
            z = -bound
        if z > bound:
            z = bound
        res = abs(P[j] - z) / r[j]
        if res > worst or res != res:
            worst = res
    return worst


@njit(cache=True)
def law_residual(G, c, mu, r, P, xi):
    """xi = G P + c (written into xi), the law residual in m/s (``natural_residual`` with the
    r-factors r) and max |G P|_inf, the scale of the tolerance beside |c|_inf."""
    n = c.size
    big = 0.0
    for i in range(n):
        s = 0.0
        for k in range(n):
            s += G[i, k] * P[k]
        xi[i] = s + c[i]
        change = abs(xi[i] - c[i])
        if change > big:
            big = change
    return _natural_residual(P, xi, mu, r), big


@njit(cache=True)
def active_set_newton(G, c, mu, P, r, tolerance, max_newton):
    """``setvalued._active_set_newton``: semismooth Newton iterations from P (not changed) on
    the statuses (open, stick, slip) of z = P - r xi, each the least correction of P in the
    least-squares sense (rcond 1e-13). Returns (P, iterations, converged)."""
    m = mu.size
    n = 2 * m
    P = P.copy()
    xi = np.empty(n)
    for iteration in range(1, max_newton + 1):
        A = np.eye(n)
        b = np.zeros(n)
        for i in range(n):
            s = 0.0
            for k in range(n):
                s += G[i, k] * P[k]
            xi[i] = s + c[i]
        for i in range(m):
            z_n = P[i] - r[i] * xi[i]
            if not z_n > 0.0:  # open: P_N = 0, P_T = 0
                continue
            A[i, :] = G[i, :]
            b[i] = -c[i]
            j = m + i
            z_t = P[j] - r[j] * xi[j]
            p_n = P[i] if P[i] > 0.0 else 0.0
            if abs(z_t) < mu[i] * p_n:  # stick: xi_T = 0
                A[j, :] = G[j, :]
                b[j] = -c[j]
            else:  # slip: P_T = sign(z_T) mu P_N
                A[j, i] = -np.sign(z_t) * mu[i]
        rhs = b - A @ P
        step = np.linalg.lstsq(A, rhs, rcond=1e-13)[0]
        for k in range(n):
            P[k] += step[k]
            if not np.isfinite(P[k]):
                return P, iteration, False
        for i in range(m):
            P[i] = P[i] if P[i] > 0.0 else 0.0
        for i in range(m):
            bound = mu[i] * P[i]
            j = m + i
            if P[j] < -bound:
                P[j] = -bound
            if P[j] > bound:
                P[j] = bound
        if law_residual(G, c, mu, r, P, xi)[0] <= tolerance:
            return P, iteration, True
    return P, max_newton, False


@njit(cache=True)
def warm_sweeps(G, c, mu, diag, alpha, P, r, tol, n_sweeps, scale_c, xi, residuals):
    """The first sweeps of ``setvalued.solve_contact_impulses`` in one call: up to n_sweeps
    ``gauss_seidel_sweep``s on P (in place), each followed by ``law_residual`` (xi written)
    and its scale max(scale_c, |G P|_inf, 1e-12); stops after the first sweep whose residual
    is at most tol times its scale. residuals[:sweeps] receives each sweep's residual.
    Returns (sweeps, residual, scale, the smallest residual / scale seen, that residual)."""
    best_ratio = np.inf
    best_residual = np.inf
    residual = np.inf
    scale = max(scale_c, 1e-12)
    for sweep in range(1, n_sweeps + 1):
        gauss_seidel_sweep(G, c, mu, diag, alpha, P)
        residual, big = law_residual(G, c, mu, r, P, xi)
        scale = max(scale_c, big, 1e-12)
        residuals[sweep - 1] = residual
        if residual / scale < best_ratio:
            best_ratio = residual / scale
            best_residual = residual
        if residual <= tol * scale:
            return sweep, residual, scale, best_ratio, best_residual
    return n_sweeps, residual, scale, best_ratio, best_residual
