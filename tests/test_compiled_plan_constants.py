"""The compiled plan's constant arrays formed without scipy's sums: ``common_pattern`` against
the pattern of |M| + |C| + |K| with each matrix placed on it (``kernels.beam.on_pattern``),
and the asymmetry of a matrix on that pattern against the dense max |G - G^T|."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fe_contact.kernels.beam import on_pattern
from fe_contact.steppers.compiled_plan import common_pattern, symmetry_bound


def _random_band(rng, n, fmt, zeros=0):
    dense = np.zeros((n, n))
    for d in (-2, -1, 0, 1, 2):
        idx = np.arange(max(0, -d), min(n, n - d))
        dense[idx, idx + d] = rng.standard_normal(idx.size)
    dense[rng.integers(0, n, zeros), rng.integers(0, n, zeros)] = 0.0  # holes in the band
    m = sp.csc_matrix(dense) if fmt == "csc" else sp.csr_matrix(dense)
    return m, dense


@pytest.mark.parametrize("fmt", ["csc", "csr"])
def test_common_pattern_is_the_pattern_of_the_sum(fmt):
    rng = np.random.default_rng(3)
    n = 23
    mats = [_random_band(rng, n, fmt, zeros=z) for z in (0, 5, 9)]
    sparse = [m for m, _ in mats]
    sparse[1] = sparse[1] * 0.0  # stored entries, all zero: no pattern of their own
    got = common_pattern(sparse)
    pattern = (abs(sparse[0]) + abs(sparse[1]) + abs(sparse[2])).tocsr()
    for (indptr, indices, data), X in zip(got, sparse, strict=True):
        ref = on_pattern(X, pattern)
        assert np.array_equal(indptr, ref[0]) and np.array_equal(indices, ref[1])
        assert np.array_equal(data, ref[2])
        # and the CSR triple is the matrix itself
        back = sp.csr_matrix((data, indices, indptr), shape=(n, n)).toarray()
        assert np.array_equal(back, X.toarray())
    # every nonzero entry of any matrix is on the pattern, and nothing else
    union = (np.abs(mats[0][1]) + np.abs(mats[2][1])) != 0.0
    indptr, indices = got[0][:2]
    rows = np.repeat(np.arange(n), np.diff(indptr))
    on = np.zeros((n, n), dtype=bool)
    on[rows, indices] = True
    assert np.array_equal(on, union)


def test_common_pattern_takes_matrices_not_in_canonical_form():
    rng = np.random.default_rng(4)
    a, _ = _random_band(rng, 9, "csr")
    b = sp.coo_matrix(([1.0, 2.0, -1.0], ([0, 0, 8], [0, 0, 1])), shape=(9, 9))  # duplicates
    got = common_pattern((a, b))
    for (indptr, indices, data), X in zip(got, (a, b), strict=True):
        back = sp.csr_matrix((data, indices, indptr), shape=(9, 9)).toarray()
        assert np.array_equal(back, X.toarray())


def test_plan_asymmetry_bound_holds_for_a_nonsymmetric_stiffness():
    """A stiffness made slightly nonsymmetric: the plan's bound of G's asymmetry (from the
    asymmetries it records for M, C, K) is at least the dense max |G - G^T|."""
    from fe_contact.steppers import compiled_plan

    rng = np.random.default_rng(5)
    n = 30
    M, Md = _random_band(rng, n, "csc")
    K, Kd = _random_band(rng, n, "csc")
    M = sp.csc_matrix(Md + Md.T)
    K = sp.csc_matrix(Kd + Kd.T + 1e-7 * np.triu(Kd, 1))
    C = sp.csc_matrix((n, n))
    signed = common_pattern((M, C, K))
    indptr, indices = signed[0][:2]
    row = np.repeat(np.arange(n), np.diff(indptr))
    where, present = compiled_plan._mirror(row, indices, n)
    asym = [
        (compiled_plan._mirror_asymmetry(d, where, present), float(np.max(np.abs(d))))
        for _, _, d in signed
    ]
    for X, (a, _) in zip((M, C, K), asym, strict=True):
        dense = X.toarray()
        assert a == np.max(np.abs(dense - dense.T))
    bp, gp = 1e-3, 1e-2
    G = (M + gp * C + bp * K).toarray()
    assert np.max(np.abs(G - G.T)) <= symmetry_bound(asym, bp, gp)
    assert asym[2][0] > 0.0 and asym[0][0] == 0.0
