"""Compiled (numba) product of a matrix in LAPACK band storage with a vector: the damping
force C_f(q) u of a Moreau-Jean step's flexible block (``steppers.effective_mass``), where
a loop over the diagonals in numpy cost a few array operations per diagonal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["band_product"]


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
