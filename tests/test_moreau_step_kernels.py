"""The compiled linear algebra of a Moreau-Jean sub-step (``kernels.band.band_lu_factor``,
``band_lu_solve``; ``kernels.moreau.tree_factor``, ``block_solve``, ``delassus_offset``,
``end_state``) against numpy's dense algebra on the matrices they stand for.

Tolerances: a solve by LU with partial pivoting has a backward error of a few n eps |L||U||x|
(Higham, Accuracy and Stability, thm. 9.4); the matrices here are diagonally dominated (as
M_eff is at h = 1 ms), so the residual |A x - b| is bounded by 100 n eps |A| |x| entrywise,
which a wrong index or a missed row interchange exceeds by orders of magnitude. Products are
sums of n terms: bounded by n eps times the sum of the magnitudes of the products.
"""

import numpy as np
from scipy.linalg.lapack import dgbtrf

from fe_contact.kernels.band import band_lu_factor, band_lu_solve
from fe_contact.kernels.moreau import block_solve, delassus_offset, end_state, tree_factor

EPS = np.finfo(float).eps


def banded(rng, n, b, dominant=True):
    """A random (n, n) matrix with half-bandwidth b and its dgbtrf band storage (the
    fill-in rows garbage: the factorisation must not read them)."""
    dense = rng.normal(size=(n, n))
    i, j = np.indices((n, n))
    dense[np.abs(i - j) > b] = 0.0
    if dominant:
        dense += np.diag(np.full(n, 0.5 * (2 * b + 1)))
    ab = rng.normal(size=(3 * b + 1, n))
    inside = np.abs(i - j) <= b
    ab[2 * b + i[inside] - j[inside], j[inside]] = dense[inside]
    return dense, ab


def assert_solved(a, x, rhs):
    bound = 100 * a.shape[0] * EPS * (np.abs(a) @ np.abs(x))
    assert np.all(np.abs(a @ x - rhs) <= bound)


def test_band_factor_solves_the_dense_system():
    """Also without diagonal dominance (row interchanges taken) and at n = 1, b = 0."""
    rng = np.random.default_rng(2)
    for n, b, dominant in ((1, 0, True), (8, 3, True), (12, 7, False), (30, 5, False)):
        dense, ab = banded(rng, n, b, dominant)
        lu, piv, info = band_lu_factor(ab, b)
        assert info == 0
        rhs = rng.normal(size=(n, 3))
        x = band_lu_solve(lu, piv, b, rhs)
        assert_solved(dense, x, rhs)
        if not dominant:  # the pivots are LAPACK's: the same row interchanges
            assert np.array_equal(piv, dgbtrf(ab.copy(), b, b)[1])


def test_band_factor_reports_a_zero_pivot():
    dense = np.diag([1.0, 0.0, 2.0])
    ab = np.zeros((4, 3))
    ab[2] = np.diag(dense)
    assert band_lu_factor(ab, 1)[2] == 2  # column 2 (1-based), as dgbtrf's info


def test_block_solve_solves_the_block_diagonal_effective_mass():
    """M_eff = blockdiag(M_t + diag(c C_j + k K_j), band): the tree's block from a symmetric
    positive mass matrix with joint dampers and springs, the structures' from a band."""
    rng = np.random.default_rng(4)
    for n_t, n_f, b in ((3, 12, 7), (0, 8, 3), (2, 0, 0)):
        a = rng.normal(size=(n_t, n_t))
        mass = a @ a.T + np.eye(n_t)
        damping, stiffness = rng.uniform(0, 1, n_t), rng.uniform(0, 100, n_t)
        c, k = 0.55e-3, 0.55**2 * 1e-6
        lu, piv, rcond = tree_factor(mass, damping, stiffness, c, k)
        assert n_t == 0 or rcond > 0.0
        dense_f, ab = banded(rng, n_f, b) if n_f else (np.zeros((0, 0)), np.zeros((1, 0)))
        band_lu, band_piv, info = band_lu_factor(ab, b)
        assert info == 0
        m_eff = np.zeros((n_t + n_f, n_t + n_f))
        m_eff[:n_t, :n_t] = mass + np.diag(c * damping + k * stiffness)
        m_eff[n_t:, n_t:] = dense_f
        rhs = rng.normal(size=(n_t + n_f, 4))
        x = block_solve(lu, piv, band_lu, band_piv, b, rhs)
        assert_solved(m_eff, x, rhs)


def test_singular_tree_block_has_zero_condition():
    mass = np.array([[1.0, 1.0], [1.0, 1.0]])
    assert tree_factor(mass, np.zeros(2), np.zeros(2), 1e-3, 1e-6)[2] == 0.0


def test_contact_problem_and_end_state_are_the_formulas():
    """G = W^T M^-1 W, c = W^T u_free + e W^T u_A, u_E = u_free + M^-1 W P, q_E = q_A + h u_A
    + theta h (u_E - u_A), gamma = W^T u, evaluated by numpy on the same inputs."""
    rng = np.random.default_rng(6)
    n, m2, h, theta = 11, 6, 1e-3, 0.55
    w = rng.normal(size=(n, m2))
    minv_w = rng.normal(size=(n, m2))
    u_free, u_a, q_a = rng.normal(size=(3, n))
    e = rng.uniform(0, 1, m2)
    p = rng.normal(size=m2)
    delassus, offset = delassus_offset(w, minv_w, u_free, u_a, e)
    bound = n * EPS * (np.abs(w).T @ np.abs(minv_w))
    assert np.all(np.abs(delassus - w.T @ minv_w) <= bound)
    ref = w.T @ u_free + e * (w.T @ u_a)
    bound = 2 * n * EPS * (np.abs(w).T @ (np.abs(u_free) + np.abs(u_a)))
    assert np.all(np.abs(offset - ref) <= bound)
    u_e, q_e, gamma_a, gamma_e = end_state(q_a, u_a, u_free, minv_w, p, w, h, theta)
    u_ref = u_free + minv_w @ p
    assert np.all(
        np.abs(u_e - u_ref) <= 2 * m2 * EPS * (np.abs(u_free) + np.abs(minv_w) @ np.abs(p))
    )
    q_ref = q_a + h * u_a + theta * h * (u_e - u_a)
    assert np.all(np.abs(q_e - q_ref) <= 4 * EPS * (np.abs(q_a) + h * (np.abs(u_a) + np.abs(u_e))))
    assert np.all(np.abs(gamma_a - w.T @ u_a) <= n * EPS * (np.abs(w).T @ np.abs(u_a)))
    assert np.all(np.abs(gamma_e - w.T @ u_e) <= n * EPS * (np.abs(w).T @ np.abs(u_e)))
    # no closed contact: the free state
    u0, q0, g_a, g_e = end_state(
        q_a, u_a, u_free, np.zeros((n, 0)), np.zeros(0), np.zeros((n, 0)), h, theta
    )
    assert np.array_equal(u0, u_free) and g_a.size == 0 and g_e.size == 0
