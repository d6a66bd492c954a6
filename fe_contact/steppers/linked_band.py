"""The structures' block of a step with the taut links' tangent, G_f + sum_i K_i w_i w_i^T, in
a band order: linear structures joined by links with constant rows (the two wires and the
droppers of a catenary, ``coupling.links.LinkRows``), factorised by a banded Cholesky.

G_f = M_f + gamma' C_f + beta' K_f is symmetric positive definite, and so is each K_i w_i
w_i^T with K_i > 0 (a taut dropper: K = beta' dT/da + gamma' dT/da'). Numbered structure by
structure, the links make the matrix as wide as a structure (the natural half-bandwidth of
the 10-span catenary is 4400); numbered by the reverse Cuthill-McKee order of the pattern of
G_f with every link taut, the two wires' coordinates interleave along the line and the
half-bandwidth falls to 7 (8800 unknowns, 90 droppers). The order depends on the system
alone and is computed once; per iterate the links' entries are added to the band of G_f
(kept per step size) and LAPACK's ``dpbtrf`` factorises it: O(n b^2), without the sparse
format's conversions and SuperLU's ordering (1.2 ms against 6-7 ms for SuperLU on the
catenary, the solves about three times cheaper). The solution is the same to round-off.

SuperLU stays for what the band does not fit: a band wider than ``BAND_LIMIT`` (its
fill-reducing order is left to choose) and a matrix that is not positive definite (a link
law with a negative slope).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg.lapack import dpbtrf, dpbtrs
from scipy.sparse.csgraph import reverse_cuthill_mckee

__all__ = ["BAND_LIMIT", "BandCholesky", "LinkedBand", "linked_band"]

# the widest half-bandwidth factorised in band storage (O(n b^2)); beyond it SuperLU
BAND_LIMIT = 64


class BandCholesky:
    """The Cholesky factors of a symmetric positive definite matrix in a band order, with the
    ``solve`` of a SuperLU object: ``solve(b)`` for b of shape (n,) or (n, k)."""

    def __init__(self, factor: np.ndarray, order: np.ndarray):
        self.factor = factor  # (b + 1, n) LAPACK upper band storage of U, A_p = U^T U
        self.order = order  # (n,) position in the band order -> row of the matrix

    def solve(self, rhs) -> np.ndarray:
        b = np.asarray(rhs, dtype=float)
        if b.size == 0:
            return np.zeros(b.shape)
        x, info = dpbtrs(self.factor, b[self.order], lower=0)
        if info != 0:
            raise ValueError(f"dpbtrs: argument {-info} is not valid")
        out = np.empty_like(x)
        out[self.order] = x
        return out


class LinkedBand:
    """The band order of the structures' block of ``system`` with every link of
    ``system.link_rows`` on the structures taut (module docstring).

    order : (n_f,) the flexible coordinates (0-based within the block) in the band order;
    position : (n_f,) its inverse. band : half-bandwidth b in that order."""

    def __init__(self, system):
        lay = system.layout
        n_f = lay.n_flexible
        rows = system.link_rows
        dofs = rows.dofs[np.all(rows.dofs >= lay.n_tree, axis=1)] - lay.n_tree
        width = dofs.shape[1]
        i = [np.repeat(dofs, width, axis=1).ravel()]
        j = [np.tile(dofs, (1, width)).ravel()]
        for m in (system.mass_flexible, system.damping_flexible, system.stiffness_flexible):
            if m is not None:
                coo = sp.coo_matrix(m)
                i.append(coo.row)
                j.append(coo.col)
        i, j = np.concatenate(i), np.concatenate(j)
        pattern = sp.csr_matrix((np.ones(i.size), (i, j)), shape=(n_f, n_f))
        self.n = n_f
        self.order = np.asarray(reverse_cuthill_mckee(pattern, symmetric_mode=True), np.int64)
        self.position = np.empty(n_f, dtype=np.int64)
        self.position[self.order] = np.arange(n_f)
        self.band = int(np.abs(self.position[i] - self.position[j]).max(initial=0))

    def _flat(self, rows, cols):
        """Flat indices into the upper band storage ``ab[b + p - r, r]`` (p <= r, in the band
        order) of the entries (rows, cols) on or above the diagonal there, and that mask; None
        when one lies outside the band."""
        p, r = self.position[rows], self.position[cols]
        upper = p <= r
        p, r = p[upper], r[upper]
        if np.any(r - p > self.band):
            return None
        return (self.band + p - r) * self.n + r, upper

    def matrix_band(self, matrix) -> np.ndarray:
        """The upper band storage (b + 1, n_f) of the symmetric ``matrix`` (sparse (n_f, n_f),
        its pattern within that of G_f) in the band order; its entries above the diagonal
        there are read."""
        coo = sp.coo_matrix(matrix)
        flat, upper = self._flat(coo.row, coo.col)
        size = (self.band + 1) * self.n
        return np.bincount(flat, coo.data[upper], minlength=size).reshape(self.band + 1, self.n)

    def factorize(self, band_g: np.ndarray, extra) -> BandCholesky | None:
        """The ``BandCholesky`` of G_f + ``extra``: band_g, G_f's ``matrix_band``; extra, the
        symmetric sparse (n_f, n_f) tangent of the taut links (COO: values, rows, cols).
        None when an entry of extra lies outside the band or the sum is not positive
        definite."""
        coo = sp.coo_matrix(extra)
        found = self._flat(coo.row, coo.col)
        if found is None:
            return None
        flat, upper = found
        ab = band_g + np.bincount(flat, coo.data[upper], minlength=band_g.size).reshape(
            band_g.shape
        )
        factor, info = dpbtrf(ab, lower=0, overwrite_ab=1)
        if info != 0:
            return None
        return BandCholesky(factor, self.order)


def linked_band(system) -> LinkedBand | None:
    """The ``LinkedBand`` of ``system``, or None when its structures are not linear, no link
    has constant rows on them, or the band is wider than ``BAND_LIMIT``."""
    lay = system.layout
    if not lay.n_flexible or not system.linear_flexible or not system.link_rows.size:
        return None
    band = LinkedBand(system)
    return band if band.band <= BAND_LIMIT else None
