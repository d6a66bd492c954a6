"""Compiled (numba) kernels of matrices in LAPACK band storage for a Moreau-Jean step's flexible
block (``steppers.effective_mass``): the product with a vector (the damping force C_f(q) u),
where a loop over the diagonals in numpy cost a few array operations per diagonal, the
scatter of element entries into the band, and the banded LU factors and solves (LAPACK's dgbtf2
and dgbtrs, in the same storage and pivots), which a compiled step calls without leaving numba;
the banded Cholesky factors and solves of a symmetric positive definite matrix (LAPACK's dpbtf2
and dpbtrs, upper storage: the structures' block of a generalised-alpha step with its taut
links, ``steppers.linked_band``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "add_entries",
    "band_cholesky_factor",
    "band_cholesky_solve",
    "band_lu_factor",
    "band_lu_solve",
    "band_product",
    "smooth_band",
]


@njit(cache=True)
def band_product(ab, band, x):
    """A x (n,) for A (n, n) in dgbtrf band storage ``ab`` (3 band + 1, n): the entry (i, j) at
    ``ab[2 band + i - j, j]`` (the first ``band`` rows are dgbtrf's fill-in space, not read).
    Each out[i] is summed over the diagonals d = i - j = -band..band in that order."""
    n = x.size
    out = np.zeros(n)
    for d in range(-band, band + 1):
        row = 2 * band + d
        if d >= 0:
            for j in range(n - d):
                out[j + d] += ab[row, j] * x[j]
        else:
            for j in range(-d, n):
                out[j + d] += ab[row, j] * x[j]
    return out


@njit(cache=True)
def add_entries(ab, flat, keep, values):
    """ab + the entries values.ravel()[keep] summed into the flat positions ``flat`` of a zero
    array of ab's size in their order, then added to ab (flat, shape (size,)): what ``ab +
    np.bincount(flat, values.ravel()[keep], minlength=size)`` gives, to the last bit (the
    element tangents of a string scattered into the band, ``steppers.effective_mass``)."""
    summed = np.zeros(ab.size)
    v = values.ravel()
    for i in range(flat.size):
        summed[flat[i]] += v[keep[i]]
    out = np.empty(ab.size)
    for i in range(ab.size):
        out[i] = ab[i] + summed[i]
    return out


@njit(cache=True)
def smooth_band(load, force, damping, band, u, mass, stiffness, c, k):
    """The flexible part of a Moreau-Jean step's smooth forces and effective mass in one call
    (``steppers.effective_mass``): (load - f_int - C u (n,), M + c C + k K in band storage),
    with load, force = f_int and u (n,), damping C, mass M and stiffness K in dgbtrf band
    storage (3 band + 1, n) and the scalars c = theta h, k = theta^2 h^2; evaluated as numpy
    evaluates ``(load - force) - C u`` and ``(M + c C) + k K``, to the last bit."""
    n = u.size
    damped = band_product(damping, band, u)
    out = np.empty(n)
    for i in range(n):
        out[i] = (load[i] - force[i]) - damped[i]
    ab = np.empty(mass.shape)
    for r in range(mass.shape[0]):
        for j in range(mass.shape[1]):
            ab[r, j] = (mass[r, j] + c * damping[r, j]) + k * stiffness[r, j]
    return out, ab


@njit(cache=True)
def band_lu_factor(ab, band):
    """LU factors with partial pivoting of A (n, n) in dgbtrf band storage ``ab`` (3 band + 1,
    n; not changed), as LAPACK's unblocked dgbtf2 computes them (dgbtrf for a band narrower
    than its block size): (lu (3 band + 1, n), piv (n,) 0-based row interchanges, info: 0, or
    k + 1 when the pivot of column k is zero). The multipliers of column j are in rows
    2 band + 1.. of ``lu[:, j]``, U (band + 2 band superdiagonals with the fill-in) above."""
    n = ab.shape[1]
    kv = 2 * band
    lu = ab.copy()
    piv = np.zeros(n, dtype=np.int64)
    for j in range(n):  # the fill-in space starts as zeros
        for i in range(max(0, kv - j), band):
            lu[i, j] = 0.0
    info = 0
    ju = 0  # the last column that U reaches so far
    for j in range(n):
        km = min(band, n - 1 - j)
        p = 0
        big = abs(lu[kv, j])
        for i in range(1, km + 1):
            if abs(lu[kv + i, j]) > big:
                big = abs(lu[kv + i, j])
                p = i
        piv[j] = j + p
        if lu[kv + p, j] != 0.0:
            ju = max(ju, min(j + band + p, n - 1))
            if p != 0:  # swap rows j and j + p over the columns j..ju
                for c in range(j, ju + 1):
                    a = lu[kv + j - c, c]
                    lu[kv + j - c, c] = lu[kv + j + p - c, c]
                    lu[kv + j + p - c, c] = a
            if km > 0:
                scale = 1.0 / lu[kv, j]
                for i in range(1, km + 1):
                    lu[kv + i, j] *= scale
                for c in range(j + 1, ju + 1):  # rank-one update of the trailing rows
                    f = lu[kv + j - c, c]
                    if f != 0.0:
                        for i in range(1, km + 1):
                            lu[kv + j + i - c, c] -= lu[kv + i, j] * f
        elif info == 0:
            info = j + 1
    return lu, piv, info


@njit(cache=True)
def band_lu_solve(lu, piv, band, rhs):
    """X (n, k) with A X = rhs (n, k) from ``band_lu_factor``'s factors (those of dgbtrf too), as
    dgbtrs solves: L with the row interchanges column by column, then U by columns from the
    last."""
    n = lu.shape[1]
    kv = 2 * band
    x = rhs.copy()
    k = x.shape[1]
    for j in range(n - 1):
        lm = min(band, n - 1 - j)
        p = piv[j]
        if p != j:
            for c in range(k):
                a = x[p, c]
                x[p, c] = x[j, c]
                x[j, c] = a
        for i in range(1, lm + 1):
            f = lu[kv + i, j]
            if f != 0.0:
                for c in range(k):
                    x[j + i, c] -= f * x[j, c]
    for c in range(k):
        for j in range(n - 1, -1, -1):
            if x[j, c] != 0.0:
                x[j, c] /= lu[kv, j]
                t = x[j, c]
                for i in range(max(0, j - kv), j):
                    x[i, c] -= t * lu[kv + i - j, j]
    return x


@njit(cache=True)
def band_cholesky_factor(ab):
    """The Cholesky factor U (A = U^T U) of a symmetric positive definite A (n, n) given by its
    upper band storage ``ab`` (b + 1, n): the entry (i, j), i <= j, at ``ab[b + i - j, j]``, as
    LAPACK's dpbtrf takes it (uplo "U"); ``ab`` is not changed. Unblocked, as dpbtf2 computes
    it: column by column, the row of U scaled by its diagonal, then the rank-one update of the
    trailing block. Returns (U in the same storage, info: 0, or k + 1 when the leading minor
    of order k + 1 is not positive)."""
    kd = ab.shape[0] - 1
    n = ab.shape[1]
    U = ab.copy()
    for j in range(n):
        ajj = U[kd, j]
        if not ajj > 0.0:
            return U, j + 1
        ajj = np.sqrt(ajj)
        U[kd, j] = ajj
        kn = min(kd, n - 1 - j)
        if kn > 0:
            scale = 1.0 / ajj
            for c in range(1, kn + 1):
                U[kd - c, j + c] *= scale
            for c1 in range(1, kn + 1):  # A(j + c2, j + c1) -= U(j, j + c2) U(j, j + c1)
                x1 = U[kd - c1, j + c1]
                if x1 != 0.0:
                    for c2 in range(1, c1 + 1):
                        U[kd + c2 - c1, j + c1] -= U[kd - c2, j + c2] * x1
    return U, 0


@njit(cache=True)
def band_cholesky_solve(U, rhs):
    """X (n, k) with U^T U X = rhs (n, k) from ``band_cholesky_factor``'s U (that of dpbtrf
    too): U^T by rows from the first, then U by rows from the last."""
    kd = U.shape[0] - 1
    n = U.shape[1]
    x = rhs.copy()
    k = x.shape[1]
    for c in range(k):
        for j in range(n):
            acc = x[j, c]
            for i in range(max(0, j - kd), j):
                acc -= U[kd + i - j, j] * x[i, c]
            x[j, c] = acc / U[kd, j]
        for j in range(n - 1, -1, -1):
            acc = x[j, c]
            for r in range(j + 1, min(n, j + kd + 1)):
                acc -= U[kd + j - r, r] * x[r, c]
            x[j, c] = acc / U[kd, j]
    return x
