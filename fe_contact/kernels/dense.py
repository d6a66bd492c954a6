"""Small dense linear algebra of the compiled step (numba): LU with partial pivoting and its
reciprocal 1-norm condition number, solves with the factors (also transposed and for several
columns), products and the largest entry. The blocks are m x m with m the number of constraint
rows (one to a few): written out, they cost less than LAPACK's calls through numpy. And the
Painleve margin of the Delassus blocks (``painleve_margin``), the one definition of both
steps."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .jit import inner


@inner
def lu_decompose(a):
    """LU factors with partial pivoting of a small square matrix a (not changed) and the
    reciprocal of its 1-norm condition number (0 when singular or not finite)."""
    n = a.shape[0]
    lu = a.copy()
    piv = np.arange(n)
    for k in range(n):
        p = k
        big = abs(lu[k, k])
        for i in range(k + 1, n):
            if abs(lu[i, k]) > big:
                big = abs(lu[i, k])
                p = i
        if not big > 0.0 or not np.isfinite(big):
            return lu, piv, 0.0
        if p != k:
            for j in range(n):
                lu[k, j], lu[p, j] = lu[p, j], lu[k, j]
            piv[k], piv[p] = piv[p], piv[k]
        for i in range(k + 1, n):
            lu[i, k] /= lu[k, k]
            f = lu[i, k]
            for j in range(k + 1, n):
                lu[i, j] -= f * lu[k, j]
    norm_a = 0.0
    norm_i = 0.0
    e = np.empty(n)
    for j in range(n):
        col_a = 0.0
        for i in range(n):
            col_a += abs(a[i, j])
            e[i] = 0.0
        norm_a = max(norm_a, col_a)
        e[j] = 1.0
        x = lu_solve(lu, piv, e)
        norm_i = max(norm_i, np.sum(np.abs(x)))
    if not np.isfinite(norm_i) or norm_a * norm_i == 0.0:
        return lu, piv, 0.0
    return lu, piv, 1.0 / (norm_a * norm_i)


@inner
def lu_solve(lu, piv, b):
    """x with A x = b from ``lu_decompose``'s factors (PA = LU)."""
    n = b.size
    x = np.empty(n)
    for i in range(n):
        acc = b[piv[i]]
        for k in range(i):
            acc -= lu[i, k] * x[k]
        x[i] = acc
    for i in range(n - 1, -1, -1):
        acc = x[i]
        for k in range(i + 1, n):
            acc -= lu[i, k] * x[k]
        x[i] = acc / lu[i, i]
    return x


@inner
def lu_solve_t(lu, piv, b):
    """x with A^T x = b from ``lu_decompose``'s factors: U^T L^T P x = b."""
    n = b.size
    y = np.empty(n)
    for i in range(n):
        acc = b[i]
        for k in range(i):
            acc -= lu[k, i] * y[k]
        y[i] = acc / lu[i, i]
    for i in range(n - 1, -1, -1):
        acc = y[i]
        for k in range(i + 1, n):
            acc -= lu[k, i] * y[k]
        y[i] = acc
    x = np.empty(n)
    for i in range(n):
        x[piv[i]] = y[i]
    return x


@inner
def lu_solve_columns(lu, piv, a, cols):
    """X (m, cols.size) with A X = a[:, cols] (forward and back substitution in place)."""
    m = a.shape[0]
    k = cols.size
    out = np.empty((m, k))
    for i in range(m):
        src = a[piv[i]]
        for j in range(k):
            out[i, j] = src[cols[j]]
    for i in range(m):
        for p in range(i):
            f = lu[i, p]
            if f != 0.0:
                for j in range(k):
                    out[i, j] -= f * out[p, j]
    for i in range(m - 1, -1, -1):
        for p in range(i + 1, m):
            f = lu[i, p]
            if f != 0.0:
                for j in range(k):
                    out[i, j] -= f * out[p, j]
        d = lu[i, i]
        for j in range(k):
            out[i, j] /= d
    return out


@inner
def matvec(a, x):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        acc = 0.0
        for j in range(a.shape[1]):
            acc += a[i, j] * x[j]
        out[i] = acc
    return out


@inner
def abs_max(x):
    """The largest entry of x and 0 (``np.max(x, initial=0.0)``; a NaN propagates). It takes
    no absolute value: its callers pass |x| (``np.abs(x)``) for the largest magnitude."""
    out = 0.0
    for v in x:
        if v > out or v != v:  # a NaN propagates, as in numpy
            out = v
    return out


@inner
def matvec_t(a, x):
    """a^T x."""
    out = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j] += a[i, j] * x[i]
    return out


@inner
def take_columns(a, cols):
    out = np.empty((a.shape[0], cols.size))
    for i in range(a.shape[0]):
        for j in range(cols.size):
            out[i, j] = a[i, cols[j]]
    return out


@njit(cache=True)
def painleve_margin(D0, D):
    """The Painleve margin min Re eig(D) / max |eig(sym D0)| of the Delassus blocks D = J M^-1
    J_Sigma^T and D0 = J M^-1 J^T (m x m): exact, in closed form, up to two rows; beyond,
    the lower bound min eig(sym D) / max |eig(sym D0)| (the field of values of D holds every
    eigenvalue; numba has no complex eigenvalues of a real matrix). At 0 a slipping contact's
    normal force is not determined (Painleve); ``partitioned_step.StepAlgebra`` computes the
    exact value beyond two rows."""
    m = D.shape[0]
    if m == 1:
        return D[0, 0] / abs(D0[0, 0])
    if m == 2:
        a, b, c = D0[0, 0], 0.5 * (D0[0, 1] + D0[1, 0]), D0[1, 1]
        mean, radius = 0.5 * (a + c), math.hypot(0.5 * (a - c), b)
        scale = max(abs(mean + radius), abs(mean - radius))
        half = 0.5 * (D[0, 0] + D[1, 1])
        disc = half * half - (D[0, 0] * D[1, 1] - D[0, 1] * D[1, 0])
        low = half - math.sqrt(disc) if disc >= 0.0 else half
        return low / scale
    scale = np.max(np.abs(np.linalg.eigvalsh(0.5 * (D0 + D0.T))))
    return np.min(np.linalg.eigvalsh(0.5 * (D + D.T))) / scale
