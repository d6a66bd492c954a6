"""The impulse solver of the Moreau-Jean step (``coupling.setvalued``): its solutions against
the laws (natural residual of 004 eqs. 26-27) and against a brute-force enumeration of the
contact statuses (open, stick, slip+, slip-), Lemke's pivoting on the Coulomb LCP of redundant
contacts, and a clear error when it fails."""

import itertools

import numpy as np
import pytest

from fe_contact.coupling.setvalued import (
    ContactSolverError,
    coulomb_lcp,
    lemke,
    natural_residual,
    solve_contact_impulses,
)


def random_pointed_problem(rng, m, n):
    """Delassus problem G = W^T M^-1 W, c = W^T u of m contacts on n dofs, all separable."""
    w_n = rng.normal(size=(n, m))
    w_n[0] = np.abs(w_n[0]) + 0.2  # moving along dof 0 opens every contact
    w = np.hstack((w_n, rng.normal(size=(n, m))))
    inv_mass = np.diag(rng.uniform(0.1, 10.0, n))
    return w.T @ inv_mass @ w, w.T @ rng.normal(size=n), rng.uniform(0.0, 1.0, m)


def test_impulse_solver_satisfies_the_laws_and_matches_enumeration():
    rng = np.random.default_rng(3)
    for trial in range(30):
        m, n = int(rng.integers(1, 5)), int(rng.integers(2, 9))  # often redundant: 2m > n
        delassus, offset, mu = random_pointed_problem(rng, m, n)
        sol = solve_contact_impulses(delassus, offset, mu, tol=1e-10)
        xi = delassus @ np.concatenate((sol.normal, sol.tangent)) + offset
        r = 1.0 / np.diag(delassus)
        residual = natural_residual(sol.normal, sol.tangent, xi[:m], xi[m:], mu, r[:m], r[m:])
        assert residual <= 1e-10 * max(1.0, np.abs(offset).max())
        assert np.all(sol.normal >= 0.0) and np.all(np.abs(sol.tangent) <= mu * sol.normal)
        # the post-impact relative velocities are unique where G is not: compare with a
        # brute-force search over the statuses (open, stick, slip+, slip-) of every contact
        found = []
        for status in itertools.product(range(4), repeat=m):
            A, b = np.eye(2 * m), np.zeros(2 * m)
            for i, s in enumerate(status):
                if s > 0:
                    A[i], b[i] = delassus[i], -offset[i]
                if s == 1:
                    A[m + i], b[m + i] = delassus[m + i], -offset[m + i]
                if s >= 2:
                    A[m + i, i] = -(1.0 if s == 2 else -1.0) * mu[i]
            P = np.linalg.lstsq(A, b, rcond=None)[0]
            if np.linalg.norm(A @ P - b) > 1e-9:
                continue
            x = delassus @ P + offset
            if natural_residual(P[:m], P[m:], x[:m], x[m:], mu, r[:m], r[m:]) < 1e-9:
                found.append(x)
        assert found, trial
        assert min(np.abs(x - xi).max() for x in found) < 1e-7


def test_lemke_solves_coulomb_lcp_of_redundant_contacts():
    rng = np.random.default_rng(5)
    for _ in range(50):
        delassus, offset, mu = random_pointed_problem(rng, 6, 4)  # 12 rows on 4 dofs
        A, b = coulomb_lcp(delassus, offset, mu)
        z, _ = lemke(A, b)
        assert z is not None
        w = A @ z + b
        scale = max(1.0, np.abs(z).max())
        assert z.min() >= -1e-10 * scale and w.min() >= -1e-9 * scale
        assert abs(z @ w) <= 1e-9 * scale**2


def test_solver_failure_raises_clear_error():
    rng = np.random.default_rng(7)
    delassus, offset, mu = random_pointed_problem(rng, 6, 4)
    with pytest.raises(ContactSolverError, match="did not converge") as info:
        # one sweep, no pivoting (the fallback starts after 5 sweeps): cannot converge
        solve_contact_impulses(delassus, offset, mu, max_iterations=1, n_warm_sweeps=5, time=0.1)
    assert info.value.n_contacts == 6 and info.value.residual > info.value.tolerance
    assert "t = 0.1 s" in str(info.value)


def test_de_saxce_fixed_point_solves_redundant_contacts_with_unique_velocities():
    """Many contacts on few dofs (G singular, the impulses not unique): the fixed point of
    least-distance problems in the velocities (``_de_saxce_fixed_point``, no sweeps before it)
    meets the laws to 1e-10 of the velocities involved, and its post-impact velocities equal
    those of Lemke's pivoting, solved independently, where the pivoting succeeds (the
    velocities are unique where the impulses are not: within 1e-8, the pivoting's round-off
    on these 60-row tableaus)."""
    from fe_contact.coupling.setvalued import _de_saxce_fixed_point

    rng = np.random.default_rng(11)
    compared = 0
    for _ in range(30):
        m, n = int(rng.integers(6, 16)), int(rng.integers(3, 7))
        delassus, offset, mu = random_pointed_problem(rng, m, n)
        mu = 0.3 * mu
        r = 1.0 / np.diag(delassus)
        scale = max(np.abs(offset).max(), 1e-12)

        def measure(P, delassus=delassus, offset=offset, mu=mu, r=r, m=m, scale=scale):
            x = delassus @ P + offset
            return natural_residual(P[:m], P[m:], x[:m], x[m:], mu, r[:m], r[m:]), scale

        P, _ = _de_saxce_fixed_point(delassus, offset, mu, measure, 1e-10, lambda P: None)
        assert P is not None
        xi = delassus @ P + offset
        assert measure(P)[0] <= 1e-10 * scale
        assert np.all(P[:m] >= 0.0) and np.all(np.abs(P[m:]) <= mu * P[:m] * (1 + 1e-12))
        z, _ = lemke(*coulomb_lcp(delassus, offset, mu))
        if z is not None:
            lemke_xi = delassus @ np.concatenate((z[:m], z[m : 2 * m] - z[2 * m : 3 * m])) + offset
            assert np.abs(lemke_xi - xi).max() <= 1e-8 * scale
            compared += 1
    assert compared >= 20
