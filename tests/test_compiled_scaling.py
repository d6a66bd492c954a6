"""The pieces that keep the compiled step's cost linear in the element count with a small
constant (``kernels.beam.band_solve``, ``on_pattern`` / ``csr_matvec2``, ``diagonal_storage`` /
``band_matvec``, ``kernels.step.excess_with_floor``), each against an independent reference
(numpy's dense solve, scipy's sparse products, the full round-off floor of
``StepAlgebra.residual_floor``), and the compiled step on a 100-element beam against the Python
step."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp

from fe_contact.kernels.beam import (
    band_matvec,
    band_solve,
    csr_matvec,
    csr_matvec2,
    diagonal_storage,
    on_pattern,
)
from fe_contact.kernels.step import excess_with_floor
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.system import assemble

EPS = np.finfo(float).eps


def banded_spd(n, bw, rng):
    """A symmetric positive definite matrix of bandwidth bw (diagonally dominant) as a dense
    array and its factor in ``band_solve``'s form (reciprocal diagonal in row 0)."""
    A = np.zeros((n, n))
    for k in range(1, bw + 1):
        off = rng.uniform(-1.0, 1.0, n - k)
        A += np.diag(off, k) + np.diag(off, -k)
    A += np.diag(2.0 * bw + rng.uniform(0.5, 1.5, n))
    ab = np.zeros((bw + 1, n))
    for k in range(bw + 1):
        ab[k, : n - k] = np.diag(A, -k)
    L = np.ascontiguousarray(scipy.linalg.cholesky_banded(ab, lower=True))
    L[0] = 1.0 / L[0]
    return A, L


@pytest.mark.parametrize("bw", [3, 2, 5])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 7])
def test_band_solve_solves_the_banded_system(bw, k):
    rng = np.random.default_rng(10 * bw + k)
    n = 300
    A, L = banded_spd(n, bw, rng)
    B = rng.standard_normal((n, k))
    X = B.copy()
    band_solve(L, X)
    exact = np.linalg.solve(A, B)
    # backward-stable Cholesky: the error is a small multiple of eps cond(A) |x|; with
    # diagonal dominance cond(A) < 10, and 100 eps cond(A) leaves room for the sums of
    # 2 bw + 1 terms in each substitution
    cond = np.linalg.cond(A)
    assert np.max(np.abs(X - exact)) <= 100 * EPS * cond * np.max(np.abs(exact))


def test_band_solve_treats_the_columns_independently():
    """Columns solved together give the same bits as each solved alone (the bandwidth-3
    kernel interleaves four and two columns: nothing of one may leak into another)."""
    rng = np.random.default_rng(3)
    _, L = banded_spd(200, 3, rng)
    B = rng.standard_normal((200, 7))
    together = B.copy()
    band_solve(L, together)
    for j in range(7):
        alone = np.ascontiguousarray(B[:, j : j + 1])
        band_solve(L, alone)
        np.testing.assert_array_equal(alone[:, 0], together[:, j])


def test_products_on_a_common_pattern_match_scipy():
    rng = np.random.default_rng(5)
    n = 40
    M = sp.random(n, n, density=0.1, random_state=rng, format="csr") + sp.eye(n)
    K = sp.random(n, n, density=0.1, random_state=rng, format="csr")  # another pattern
    pattern = (abs(M) + abs(K)).tocsr()
    Mp, Kp = on_pattern(M, pattern), on_pattern(K, pattern)
    offset = 3
    x = rng.standard_normal(n + offset)
    y = rng.standard_normal(n + offset)
    out_m, out_k, single = np.empty(n), np.empty(n), np.empty(n)
    csr_matvec2(Mp, Kp, x, y, out_m, out_k, offset)
    csr_matvec(Mp, x, single, offset)
    # sums of at most ~6 products of O(1) numbers: 16 eps of the scale bounds their round-off
    scale = max(np.max(np.abs(M.toarray())), np.max(np.abs(K.toarray()))) * n
    assert np.max(np.abs(out_m - M @ x[offset:])) <= 16 * EPS * scale
    assert np.max(np.abs(out_k - K @ y[offset:])) <= 16 * EPS * scale
    np.testing.assert_array_equal(single, out_m)  # the same sums in the same order


def test_products_on_the_diagonals_match_scipy_and_the_csr_sums():
    """A banded pattern (a beam's: half-bandwidth 3, explicit zeros in it) on its diagonals:
    the products match scipy's, and are the CSR products' sums to the last bit (the same
    entries summed in the same order, a slot outside the pattern adding an exact zero)."""
    rng = np.random.default_rng(11)
    n = 50
    diagonals = {d: rng.uniform(-1.0, 1.0, n - abs(d)) for d in range(-3, 4) if d != 2}
    M = sp.diags(list(diagonals.values()), list(diagonals), format="csr")
    K = sp.diags([rng.uniform(1.0, 2.0, n)], [0], format="csr")  # a narrower pattern
    pattern = (abs(M) + abs(K)).tocsr()
    triples = [on_pattern(X, pattern) for X in (M, K)]
    D = diagonal_storage(triples, n)
    assert D.shape == (2, 7, n)
    offset = 2
    for _ in range(5):
        x = rng.standard_normal(n + offset) * 10.0 ** rng.uniform(-3, 3)
        for X, triple, band in zip((M, K), triples, D, strict=True):
            got, csr = np.empty(n), np.empty(n)
            band_matvec(band, x, got, offset)
            csr_matvec(triple, x, csr, offset)
            np.testing.assert_array_equal(got, csr)
            scale = np.max(np.abs(X.toarray())) * np.max(np.abs(x)) * 7
            assert np.max(np.abs(got - X @ x[offset:])) <= 16 * EPS * scale


def test_diagonal_storage_is_left_out_for_a_pattern_far_from_a_band():
    M = sp.csr_matrix(np.eye(40) + np.eye(40, k=30))  # half-bandwidth 30 for 50 entries
    assert diagonal_storage([on_pattern(M, M)], 40).shape == (1, 0, 0)


def test_on_pattern_refuses_a_pattern_without_the_matrix_entries():
    M = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]]))
    with pytest.raises(ValueError, match="does not hold every entry"):
        on_pattern(M, sp.eye(2, format="csr"))


def test_excess_with_the_floor_on_the_rows_above_the_bound_equals_the_full_floor():
    """The Newton test's excess with the round-off floor (``partitioned_step.newton_converged``):
    formed on the rows above the plain bound only, it equals the one with the floor of every
    row whenever that exceeds 1, and stays <= 1 when that does."""
    rng = np.random.default_rng(7)
    nt, nf = 2, 60
    n = nt + nf
    mats = [
        sp.diags(
            [rng.uniform(1, 2, nf - 1), rng.uniform(5, 6, nf), rng.uniform(1, 2, nf - 1)],
            [-1, 0, 1],
            format="csr",
        )
        * s
        for s in (1.0, 1e2, 1e6)
    ]
    pattern = abs(mats[0]) + abs(mats[1]) + abs(mats[2])
    flex = (
        *(on_pattern(m, pattern) for m in mats),
        *(on_pattern(abs(m), pattern) for m in mats),
        np.zeros(nf),
        mats[0].diagonal(),
    )
    ind = np.arange(1, n)  # coordinate 0 (of the tree) dependent
    none = np.zeros((6, 0, 0))  # no diagonal storage: the floor of the rows above, from CSR
    on_diagonals = diagonal_storage(list(flex[:6]), nf)
    assert on_diagonals.shape == (6, 3, nf)
    checked_above = checked_below = 0
    for _ in range(200):
        q, u, acc = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3) for _k in range(3))
        floor = np.zeros(n)
        floor[nt:] = (
            16
            * EPS
            * (
                abs(mats[0]) @ np.abs(acc[nt:])
                + abs(mats[1]) @ np.abs(u[nt:])
                + abs(mats[2]) @ np.abs(q[nt:])
            )
        )
        floor = floor[ind]
        bound = np.median(floor) * rng.uniform(0.1, 3.0)
        # below and above the bound with the floor, and many rows above the plain bound
        top = rng.uniform(0.5, 1.5)
        r = (bound + floor) * rng.uniform(0.0, top, ind.size) * rng.choice([-1, 1], ind.size)
        inertia_delta = (bound + floor) * rng.uniform(0.0, top, ind.size)
        first = rng.uniform(0.0, 1.5)
        full = max(
            first,
            np.max(np.abs(r) / (bound + floor)),
            np.max(np.abs(inertia_delta) / (bound + floor)),
        )
        for diagonals in (none, on_diagonals):  # the floor row by row, or of every row
            got = excess_with_floor(
                flex, nt, q, u, acc, ind, r, inertia_delta, bound, first, diagonals
            )
            if full > 1.0:
                # the floor's sums in another order than scipy's: a few eps relative
                assert got == pytest.approx(full, rel=8 * EPS)
                checked_above += 1
            else:
                assert got <= 1.0
                checked_below += 1
    assert checked_above > 20 and checked_below > 20  # both cases were met


def test_compiled_step_on_100_elements_matches_the_python_step():
    """The sliding mass with friction on 100 elements (202 unknowns), where the iteration
    reaches the round-off floor of the stiff, fine mesh and the floor enters the Newton test
    (``partitioned_step.newton_converged``): the compiled step follows the Python step. The test
    accepts an iterate that no longer contracts within 1e4 times its bounds, so the two
    steps may stop on different iterates at that level (we see 5.6e-10 of the range in q,
    5.6e-9 and 3.4e-9 relative in u and the multipliers over 30 steps; on 10 elements
    ``tests/test_compiled.py`` holds 1e-10 and 1e-8): bounds 1e-8 and 1e-7."""
    system = assemble(sliding_mass_model(0.2, 100))
    q0, u0 = sliding_mass_initial_state(system)
    py = GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3)
    cc = GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3, compiled=True)
    reports = [(py.step(), cc.step()) for _ in range(30)]
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0
    q_py = np.array([a.q for a, _ in reports])
    q_cc = np.array([b.q for _, b in reports])
    span = np.maximum(np.ptp(q_py, axis=0), np.abs(q_py).max(axis=0))
    assert np.all(np.abs(q_py - q_cc) <= 1e-8 * np.maximum(span, 1e-300))
    u_py = np.array([a.u for a, _ in reports])
    u_cc = np.array([b.u for _, b in reports])
    assert np.max(np.abs(u_py - u_cc)) <= 1e-7 * np.max(np.abs(u_py))
    lam_py = np.array([a.multipliers for a, _ in reports])
    lam_cc = np.array([b.multipliers for _, b in reports])
    assert np.max(np.abs(lam_py - lam_cc)) <= 1e-7 * np.max(np.abs(lam_py))
    # stopping on different iterates at the round-off floor costs one iterate more or less in a
    # step. In how many steps depends on the BLAS's rounding, so only the per-step bound is
    # asserted: 3 of the 30 steps here (100 against 103 iterations), 7 under numpy 1.x on
    # another CPU, 4 before the contact's curvature terms were in the iteration matrix
    its = np.array([(a.n_newton, b.n_newton) for a, b in reports])
    assert np.all(np.abs(its[:, 0] - its[:, 1]) <= 1)
