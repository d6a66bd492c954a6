"""Compiled (numba) kernels of matrices in LAPACK band storage for a Moreau-Jean step's flexible
block (``steppers.effective_mass``): the product with a vector (the damping force C_f(q) u),
where a loop over the diagonals in numpy cost a few array operations per diagonal, and the
scatter of element entries into the band.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["add_entries", "band_product", "smooth_band"]


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
