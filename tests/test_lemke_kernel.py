"""The compiled Lemke stage (``kernels.lemke.lemke_impulses``) against the pivoting of
``coupling.lcp`` and against the LCP's own conditions, on Coulomb problems with many contacts
on few degrees of freedom (G singular: degenerate pivots), and the Python solver's Lemke stage
compiled against its numpy form.

Tolerances: the LCP conditions to 1e-9 of the problem's size (|A|_inf |z|_inf + |b|_inf: the
pivoting's round-off on tableaus of up to 64 rows is some 1e-13 of it); the law residual to the
solver's tolerance times the velocity scale (its acceptance test); velocities of two solutions
of one singular problem to 1e-8 of the scale, as in ``test_capstan_compiled``.
"""

import numpy as np

from fe_contact.coupling.setvalued import (
    ContactSolverError,
    coulomb_lcp,
    lcp_impulses,
    lemke,
    natural_residual,
    solve_contact_impulses,
)
from fe_contact.kernels.lemke import lemke_impulses

TOL = 1e-9


def _coulomb_problem(rng, zero_friction=False):
    """G = W^T D W of m contacts on n < m dofs (singular), c = W^T v."""
    m, n = int(rng.integers(4, 16)), int(rng.integers(3, 7))
    w_n = rng.normal(size=(n, m))
    w_n[0] = np.abs(w_n[0]) + 0.2  # moving along dof 0 opens every contact
    w = np.hstack((w_n, rng.normal(size=(n, m))))
    delassus = w.T @ np.diag(rng.uniform(0.1, 10.0, n)) @ w
    offset = w.T @ rng.normal(size=n)
    mu = np.zeros(m) if zero_friction else rng.uniform(0.0, 0.8, m)
    return delassus, offset, mu


def _law_residual(delassus, offset, mu, P):
    m = mu.size
    xi = delassus @ P + offset
    r = 1.0 / np.diag(delassus)
    scale = max(np.abs(offset).max(), np.abs(xi - offset).max(), 1e-12)
    return natural_residual(P[:m], P[m:], xi[:m], xi[m:], mu, r[:m], r[m:]), scale, xi


def test_compiled_stage_pivots_as_coupling_lcp_and_meets_the_lcp():
    """Where ``coupling.lcp.lemke`` solves the LCP the kernel's projected impulses are its
    z's (to round-off), z meets w >= 0, z >= 0, w . z = 0, and the stage's impulses (polished
    where needed) meet Coulomb's laws; where it fails (ray, cycle) the kernel fails too."""
    rng = np.random.default_rng(7)
    solved = 0
    for k in range(60):
        delassus, offset, mu = _coulomb_problem(rng, zero_friction=k % 5 == 0)
        m = mu.size
        r = 1.0 / np.diag(delassus)
        scale_c = np.abs(offset).max()
        P, projected, ok, pivoted, pivots, _ = lemke_impulses(delassus, offset, mu, r, TOL, scale_c)
        A, b = coulomb_lcp(delassus, offset, mu)
        z, reference_pivots = lemke(A, b)
        assert pivoted == (z is not None)
        assert pivots == reference_pivots
        if z is None:
            assert not ok
            continue
        size = np.abs(A).max() * np.abs(z).max() + np.abs(b).max()
        w = A @ z + b
        assert np.all(z >= -1e-9 * size) and np.all(w >= -1e-9 * size)
        assert abs(w @ z) <= 1e-9 * size * size
        assert np.abs(projected - lcp_impulses(z, mu)).max() <= 1e-12 * max(np.abs(z).max(), 1)
        if ok:
            residual, scale, _ = _law_residual(delassus, offset, mu, P)
            assert residual <= TOL * max(scale, scale_c)
            assert np.all(P[:m] >= 0.0) and np.all(np.abs(P[m:]) <= mu * P[:m] * (1 + 1e-12))
            solved += 1
    assert solved >= 40


def test_ray_termination_is_a_failure():
    """A normal row with G_NN < 0 and c_N < 0 (xi_N = -P_N - 1 < 0 for every P_N >= 0): the
    LCP has no solution; both pivotings end on a ray, the stage reports no impulses."""
    delassus = np.array([[-1.0, 0.0], [0.0, 1.0]])
    offset = np.array([-1.0, 0.0])
    mu = np.array([0.5])
    z, _ = lemke(*coulomb_lcp(delassus, offset, mu))
    assert z is None
    _, _, ok, pivoted, _, _ = lemke_impulses(delassus, offset, mu, np.ones(2), TOL, 1.0)
    assert not ok and not pivoted


def test_python_stage_compiled_as_its_numpy_form():
    """``solve_contact_impulses`` with the sweeps and Newton iterations skipped past (a cold
    start, no warm sweeps solving it first): the Lemke stage compiled and in numpy give
    impulses meeting the laws and the same velocities (unique on a singular G)."""
    rng = np.random.default_rng(3)
    compared = 0
    for _ in range(40):
        delassus, offset, mu = _coulomb_problem(rng)
        kwargs = dict(n_warm_sweeps=1, max_iterations=1, skip=("newton", "de-saxce"))
        try:
            fast = solve_contact_impulses(delassus, offset, mu, compiled=True, **kwargs)
            slow = solve_contact_impulses(delassus, offset, mu, compiled=False, **kwargs)
        except ContactSolverError:  # a problem beyond the stages kept here
            continue
        if "lemke" not in (fast.method, slow.method):
            continue
        assert fast.method == slow.method
        P_fast = np.concatenate((fast.normal, fast.tangent))
        P_slow = np.concatenate((slow.normal, slow.tangent))
        res_fast, scale, xi_fast = _law_residual(delassus, offset, mu, P_fast)
        res_slow, _, xi_slow = _law_residual(delassus, offset, mu, P_slow)
        assert res_fast <= TOL * scale and res_slow <= TOL * scale
        assert np.abs(xi_fast - xi_slow).max() <= 1e-8 * scale
        compared += 1
    assert compared >= 20
