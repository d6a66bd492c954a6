"""numpy's pairwise summation compiled (numba): ``pairwise_sum(a)`` adds a contiguous (n,) array
in the order ``np.sum`` adds it (numpy's ``_pairwise_sum`` of its umath loops: blocks of at most
128 terms, eight running sums in a block, longer runs split in halves), so that sums formed in
kernels equal numpy's to the last bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .jit import inner

__all__ = ["pairwise_sum"]


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
