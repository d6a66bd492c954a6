"""The energy-consistent form's constraint kernels (``kernels.consistent``) against the
identities they are built for: the discrete gradient's G dq = phi_1 - phi_0 (for the circle
phi = (|x|^2 - 1) / 2, whose discrete gradient is known in closed form: the midpoint x_mid),
and the projection's J u+ + phi_t = 0 with the kinetic energy removed equal to that of the
velocity change, (u - u+) . M (u - u+) / 2, for scleronomic rows."""

from __future__ import annotations

import numpy as np

from fe_contact.kernels.consistent import (
    discrete_gradient,
    link_averaged_force,
    reduced_residual,
    velocity_projection,
)

RNG = np.random.default_rng(7)


def test_the_discrete_gradient_of_a_quadratic_row_is_its_midpoint_gradient():
    """phi = (|x|^2 - 1) / 2 is quadratic: its midpoint gradient x_mid already satisfies
    x_mid . dq = phi_1 - phi_0, so the correction vanishes (to round-off); a Jacobian off by
    a perturbation is corrected onto G dq = phi_1 - phi_0."""
    x0, x1 = RNG.normal(size=3), RNG.normal(size=3)
    phi = lambda x: np.array([0.5 * (x @ x - 1.0)])  # noqa: E731
    mid = 0.5 * (x0 + x1)[None, :]
    no = np.zeros(1, dtype=np.bool_)
    G, _ = discrete_gradient(mid, mid, phi(x0), phi(x1), x1 - x0, no, False, 1e-9)
    assert np.allclose(G, mid, rtol=0.0, atol=1e-14)
    off = mid + RNG.normal(size=(1, 3))
    G, G_sigma = discrete_gradient(off, off + 1.0, phi(x0), phi(x1), x1 - x0, no, False, 1e-9)
    assert abs(G[0] @ (x1 - x0) - (phi(x1) - phi(x0))[0]) <= 1e-14
    assert np.allclose(G_sigma - G, 1.0, rtol=0.0, atol=1e-14)  # the same correction


def test_rheonomic_rows_small_steps_and_tiny_displacements_keep_the_midpoint_jacobian():
    jac = RNG.normal(size=(2, 4))
    dq = RNG.normal(size=4)
    phi0, phi1 = RNG.normal(size=2), RNG.normal(size=2)
    G, _ = discrete_gradient(jac, jac, phi0, phi1, dq, np.array([True, False]), False, 1e-9)
    assert np.array_equal(G[0], jac[0])
    assert abs(G[1] @ dq - (phi1[1] - phi0[1])) <= 1e-13
    no = np.zeros(2, dtype=np.bool_)
    assert np.array_equal(discrete_gradient(jac, jac, phi0, phi1, dq, no, True, 1e-9)[0], jac)
    tiny = 1e-10 * dq / np.linalg.norm(dq)
    assert np.array_equal(discrete_gradient(jac, jac, phi0, phi1, tiny, no, False, 1e-9)[0], jac)


def test_the_projection_closes_the_rows_and_removes_the_kinetic_energy_of_the_change():
    n, m = 6, 2
    A = RNG.normal(size=(n, n))
    M = A @ A.T + n * np.eye(n)
    jac = RNG.normal(size=(m, n))
    u = RNG.normal(size=n)
    minv_jt = np.linalg.solve(M, jac.T)
    u1, loss, impulse = velocity_projection(jac, u, np.zeros(m), minv_jt)
    assert np.max(np.abs(jac @ u1)) <= 1e-13 * np.max(np.abs(jac @ u))
    change = u - u1
    assert np.isclose(loss, 0.5 * change @ M @ change, rtol=1e-12)
    assert loss >= 0.0
    # the impulse is along the constraint forces: M (u1 - u) = J^T impulse
    assert np.allclose(M @ (u1 - u), jac.T @ impulse, rtol=0.0, atol=1e-12)
    phi_t = RNG.normal(size=m)
    u2, _, _ = velocity_projection(jac, u, phi_t, minv_jt)
    assert np.max(np.abs(jac @ u2 + phi_t)) <= 1e-13 * np.max(np.abs(jac @ u + phi_t))


def test_the_reduced_residual_is_the_work_on_the_rows_null_space():
    """r = e_I - B^T e_U is the virtual work of e on the motions that keep G_Sigma x = 0
    (x_U = -B x_I): r . x_I = e . x for each such x; and 2 G_Sigma,U^T Lambda = e_U."""
    n, m = 7, 2
    G = RNG.normal(size=(m, n))
    e = RNG.normal(size=n)
    U = np.array([4, 1], dtype=np.int64)
    ind = np.array([0, 2, 3, 5, 6], dtype=np.int64)
    r, lam, _ = reduced_residual(G, e, U, ind)
    for _ in range(3):
        x = np.zeros(n)
        x[ind] = RNG.normal(size=ind.size)
        x[U] = -np.linalg.solve(G[:, U], G[:, ind] @ x[ind])
        assert abs(G @ x).max() <= 1e-12 * np.abs(x).max()
        assert np.isclose(r @ x[ind], e @ x, rtol=1e-12, atol=1e-12)
    assert np.allclose(2.0 * G[:, U].T @ lam, e[U], rtol=0.0, atol=1e-12)


def test_the_links_averaged_force_does_the_secant_work():
    """Each link's force along its discrete gradient does secant * (a_1 - a_0) over dq (its
    energy change), a DOF listed twice (padding) counted once; below the switch the link keeps
    its midpoint gradient."""
    n = 9
    dofs = np.array([[0, 3, 5, 5], [2, 3, 7, 8], [1, 1, 1, 1]], dtype=np.int64)
    first = np.array(
        [[True, True, True, False], [True, True, True, True], [True, False, False, False]]
    )
    gradient = RNG.normal(size=dofs.shape)
    gradient[~first] = 0.0  # the padding carries no gradient
    da = RNG.normal(size=3)
    secant = RNG.uniform(1.0, 2.0, size=3)
    dq = RNG.normal(size=n)
    for link in range(3):  # the force of each link alone
        one = np.zeros(3)
        one[link] = secant[link]
        f = link_averaged_force(dofs, first, gradient, da, dq, one, 1e-4, n)
        assert np.isclose(f @ dq, secant[link] * da[link], rtol=1e-12, atol=1e-14)
        assert np.count_nonzero(f) <= np.count_nonzero(first[link])
    tiny = 1e-9 * dq
    f = link_averaged_force(dofs, first, gradient, da, tiny, secant, 1e-4, n)
    expected = np.zeros(n)
    np.add.at(expected, dofs, secant[:, None] * gradient)
    assert np.allclose(f, expected, rtol=1e-14, atol=0.0)
