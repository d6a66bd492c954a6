"""Compiled (numba) kernels of the Moreau-Jean step (``steppers.moreau``, Eugster-Glocker
(004), sec. 4.4): the factors of the effective mass ``M_eff = blockdiag(M_t + theta h C_j +
theta^2 h^2 K_j, flexible band)`` and solves with them (``tree_factor``, ``block_solve``), the
contact problem's Delassus matrix and offset (``delassus_offset``) and the end state of a
sub-step (``end_state``); the work of a step's
contact impulses split into its three columns of definite sign (``impulse_work_terms``,
``impulse_work_sums``, the formulas of ``steppers.impulse_work``), and numpy's pairwise
summation (``pairwise_sum``) that its sums follow, so that the compiled columns are numpy's to
the last bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .band import band_lu_solve
from .dense import lu_decompose, lu_solve_columns
from .jit import inner

__all__ = [
    "block_solve",
    "delassus_offset",
    "end_state",
    "impulse_work_sums",
    "impulse_work_terms",
    "pairwise_sum",
    "tree_factor",
]


@njit(cache=True)
def _block(a, start, n):
    """numpy's pairwise sum of a[start:start + n] for n <= 128 (``_pairwise_sum`` of its umath
    loops): a running sum from -0.0 below 8 terms, else 8 running sums combined as a tree."""
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[start + i]
        return res
    r = np.empty(8)
    for j in range(8):
        r[j] = a[start + j]
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += a[start + i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[start + i]
        i += 1
    return res


@inner
def _pairwise(a, start, n):
    """numpy's pairwise sum of a[start:start + n]: blocks of at most 128 terms (``_block``);
    a longer run is split in two halves (the first a multiple of 8 terms) whose sums are
    added. numpy recurses; this walks the same tree with an explicit stack (numba's cache
    does not keep recursive functions)."""
    size = 256  # 3 entries per level of a tree at most 62 levels deep
    starts = np.empty(size, dtype=np.int64)
    lengths = np.empty(size, dtype=np.int64)
    combine = np.empty(size, dtype=np.bool_)
    values = np.empty(size)
    top = 1
    starts[0], lengths[0], combine[0] = start, n, False
    count = 0
    while top > 0:
        top -= 1
        s, k = starts[top], lengths[top]
        if combine[top]:  # both halves done: left + right
            values[count - 2] = values[count - 2] + values[count - 1]
            count -= 1
        elif k <= 128:
            values[count] = _block(a, s, k)
            count += 1
        else:
            half = k // 2
            half -= half % 8
            starts[top], lengths[top], combine[top] = s, k, True
            starts[top + 1], lengths[top + 1], combine[top + 1] = s + half, k - half, False
            starts[top + 2], lengths[top + 2], combine[top + 2] = s, half, False
            top += 3
    return values[0]


@njit(cache=True)
def pairwise_sum(a):
    """sum(a) for a (n,) contiguous, as ``np.sum`` adds it: 0 + numpy's pairwise sum."""
    return 0.0 + _pairwise(a, 0, a.size)


@njit(cache=True)
def _positive(x):
    """np.maximum(x, 0.0): x where x >= 0 or x is NaN, else 0."""
    return x if (x >= 0.0 or np.isnan(x)) else 0.0


@njit(cache=True)
def impulse_work_terms(normal, tangent, gamma_start, gamma_end, restitution, friction, theta):
    """(impact, friction, timing) per contact point, each (m,) in J and >= 0, of impulses P_N,
    P_T (m,) with the contact velocities gamma^A, gamma^E, restitutions e (2m,) ordered (N..,
    T..) and friction coefficients mu (m,): the terms of ``steppers.impulse_work`` (its module
    docstring), each evaluated in numpy's order of operations."""
    m = normal.size
    impact = np.empty(m)
    loss_t = np.empty(m)
    gain = np.empty(m)
    for i in range(m):
        j = m + i
        xi_n = gamma_end[i] + restitution[i] * gamma_start[i]
        xi_t = gamma_end[j] + restitution[j] * gamma_start[j]
        start_n = ((1.0 - theta * (1.0 + restitution[i])) * normal[i]) * gamma_start[i]
        start_t = ((1.0 - theta * (1.0 + restitution[j])) * tangent[i]) * gamma_start[j]
        coulomb = (friction[i] * normal[i]) * np.abs(xi_t)
        impact[i] = _positive(-start_n) + theta * (normal[i] * _positive(-xi_n))
        loss_t[i] = theta * coulomb + _positive(-start_t)
        gain[i] = (_positive(start_n) + _positive(start_t)) + theta * (
            normal[i] * _positive(xi_n) + (tangent[i] * xi_t + coulomb)
        )
    return impact, loss_t, gain


@njit(cache=True)
def impulse_work_sums(normal, tangent, gamma_start, gamma_end, restitution, friction, theta):
    """``impulse_work_terms`` summed over the points in numpy's order (``pairwise_sum``):
    (dissipated_impact, dissipated_friction, work_contact_timing), J."""
    impact, loss_t, gain = impulse_work_terms(
        normal, tangent, gamma_start, gamma_end, restitution, friction, theta
    )
    return pairwise_sum(impact), pairwise_sum(loss_t), pairwise_sum(gain)


@njit(cache=True)
def tree_factor(mass, damping, stiffness, c, k):
    """LU factors of the tree's block of the effective mass, M_t + diag(c C_j + k K_j) with the
    joint dampers C_j and springs K_j (n_t,) and c = theta h, k = theta^2 h^2, M_t (n_t, n_t):
    (lu, piv, reciprocal condition number; ``kernels.dense.lu_decompose``: 0 when singular)."""
    m_eff = mass.copy()
    for i in range(mass.shape[0]):
        m_eff[i, i] = mass[i, i] + (c * damping[i] + k * stiffness[i])
    return lu_decompose(m_eff)


@njit(cache=True)
def block_solve(tree_lu, tree_piv, band_lu, band_piv, band, rhs):
    """X (n, k) with M_eff X = rhs (n, k) for the block-diagonal effective mass: the tree's
    first n_t rows by ``tree_factor``'s factors (n_t, n_t), the structures' by the banded
    factors (``kernels.band.band_lu_factor``; band_lu of shape (3 band + 1, n - n_t))."""
    n_t = tree_lu.shape[0]
    n, k = rhs.shape
    out = np.empty((n, k))
    if n_t:
        out[:n_t] = lu_solve_columns(tree_lu, tree_piv, rhs[:n_t], np.arange(k))
    if n > n_t:
        out[n_t:] = band_lu_solve(band_lu, band_piv, band, rhs[n_t:])
    return out


@njit(cache=True)
def delassus_offset(w, minv_w, u_free, u_start, restitution):
    """The contact problem xi = G P + c of a sub-step (004 sec. 4.5): the Delassus matrix
    G = W^T M_eff^-1 W (2m, 2m) and the offset c = W^T u_free + e W^T u_A (2m,), from the
    rows W (n, 2m), M_eff^-1 W (n, 2m), the free and start velocities (n,) and Newton's
    restitutions e (2m,)."""
    n, k = w.shape
    delassus = np.zeros((k, k))
    offset = np.empty(k)
    for i in range(k):
        for j in range(k):
            acc = 0.0
            for r in range(n):
                acc += w[r, i] * minv_w[r, j]
            delassus[i, j] = acc
        free = 0.0
        start = 0.0
        for r in range(n):
            free += w[r, i] * u_free[r]
            start += w[r, i] * u_start[r]
        offset[i] = free + restitution[i] * start
    return delassus, offset


@njit(cache=True)
def end_state(q_start, u_start, u_free, minv_w, impulses, w, h, theta):
    """The end of a sub-step (``steppers.moreau``, step 5): u_E = u_free + M_eff^-1 W P,
    q_E = q_A + h u_A + theta h (u_E - u_A) (n,), and the contact velocities gamma^A = W^T u_A,
    gamma^E = W^T u_E (2m,), from the impulses P (2m,) ordered (N.., T..)."""
    n, k = w.shape
    u_end = u_free.copy()
    for j in range(k):
        p = impulses[j]
        for r in range(n):
            u_end[r] += minv_w[r, j] * p
    q_end = np.empty(n)
    for r in range(n):
        q_end[r] = q_start[r] + h * u_start[r] + theta * h * (u_end[r] - u_start[r])
    gamma_start = np.empty(k)
    gamma_end = np.empty(k)
    for j in range(k):
        a = 0.0
        e = 0.0
        for r in range(n):
            a += w[r, j] * u_start[r]
            e += w[r, j] * u_end[r]
        gamma_start[j] = a
        gamma_end[j] = e
    return u_end, q_end, gamma_start, gamma_end
