"""Compiled (numba) kernels of the Moreau-Jean step (``steppers.moreau``): the work of a
step's contact impulses split into its three columns of definite sign (``impulse_work_terms``, ``impulse_work_sums``, the
formulas of ``steppers.impulse_work``), and numpy's pairwise summation (``pairwise_sum``) that
its sums follow, so that the compiled columns are numpy's to the last bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["impulse_work_sums", "impulse_work_terms", "pairwise_sum"]


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


@njit(cache=True)
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
