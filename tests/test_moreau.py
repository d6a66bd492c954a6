"""Moreau-Jean time stepping with set-valued contact laws: a rigid disk on lines and on the string.

References, each independent of the integrator: the closed-form bounce height e^2 H and the
superball impact (Newton's law with tangential restitution); the rolling/slipping disk on an
incline (2/3 g sin a, g (sin a - mu cos a), 2 mu g cos a / R); finite differences of the gap for
the force directions of Eugster-Glocker (004), eqs. (22)-(25); brute-force enumeration of the
complementarity problem for the impulse solver; and a static equilibrium of string + disk obtained
by constrained minimisation of the potential energy (scipy SLSQP, checked by its KKT conditions)
for the rest state of 004's example 1.
"""

import csv
import itertools
from functools import cache

import numpy as np
import pytest
from scipy.linalg import eigh
from scipy.optimize import linprog, minimize, nnls

from fe_contact.coupling.setvalued import (
    ContactLaw,
    ContactSolverError,
    coulomb_lcp,
    disk_string_kinematics,
    lemke,
    natural_residual,
    solve_contact_impulses,
)
from fe_contact.demos import disk_on_string
from fe_contact.elements.string import (
    evaluate,
    gravity_force,
    internal_force,
    position_jacobian,
    strain_energy,
    tangent_stiffness,
)
from fe_contact.integrate.moreau import (
    Disk,
    RigidLine,
    candidate_kinematics,
    disk_contact_model,
    initial_state,
    simulate,
    string_coordinates,
)

G = 9.81
DISK = Disk.from_areal_density(0.1, 100.0)  # R = 0.1 m, m = 3.14 kg


def assert_step_invariants(res, gap_tol):
    """Every step: closed gaps >= -gap_tol, P_N >= 0, |P_T| <= mu P_N, penetration <= gap_tol.

    The cone holds exactly (the solver projects), up to round-off 1e-12 relative.
    """
    closed = res.n_active > 0
    assert np.all(res.min_closed_gap[closed] >= -gap_tol)
    assert np.all(res.max_penetration <= gap_tol)
    assert np.all(res.normal_impulses >= 0.0)
    cone = res.friction[None, :] * res.normal_impulses
    assert np.all(np.abs(res.tangent_impulses) <= cone * (1.0 + 1e-12) + 1e-300)
    assert np.all(np.isfinite(res.total_energy))


# --------------------------------------------------------------------------------------------
# Rigid lines: closed-form references
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("restitution", [0.5, 0.0])
def test_disk_dropped_on_ground_bounces_to_e_squared_height(restitution):
    H, h = 0.2, 2e-4
    ground = RigidLine((0.0, 0.0), (0.0, 1.0), ContactLaw(0.3, restitution))
    model = disk_contact_model(DISK, lines=(ground,))
    q0, u0 = initial_state(model, (0.0, DISK.radius + H))
    res = simulate(model, q0, u0, t_end=0.55, h=h)
    height = res.disk_position[:, 1] - DISK.radius
    first = np.flatnonzero(res.n_active > 0)[0]
    v_impact = np.sqrt(2.0 * G * H)
    # Error of the discrete impact: the closing step is detected up to one step of travel
    # (h v_impact) late, and the pre-impact velocity differs by up to g h; the rebound height
    # then differs by at most (1 + e^2) h v_impact (h = 2e-4 s: 5e-4 m for e = 0.5).
    tol = (1.0 + restitution**2) * h * v_impact
    # the second impact (t ~ 0.2 + 0.4 e s) is after the peak; 0.55 s covers the first flight
    peak = height[first:].max()
    assert abs(peak - restitution**2 * H) <= tol, (peak, restitution**2 * H, tol)
    # penetration: at most one step of travel at the impact speed (+ g h gained in that step)
    gap_tol = h * (v_impact + G * h)
    assert_step_invariants(res, gap_tol=gap_tol)
    if restitution == 0.0:
        assert np.all(np.abs(height[first:]) <= gap_tol)  # stays down
        assert np.all(res.n_active[first + 1 :] == 1)
        # energy never increases (midpoint contact term ~ m g^2 h^2, see the string test)
        assert np.diff(res.total_energy).max() <= DISK.mass * G**2 * h**2


@pytest.mark.parametrize("mu", [0.3, 0.1])
def test_disk_on_incline_rolls_or_slips(mu):
    angle = np.radians(30.0)  # rolling needs mu >= tan(30 deg) / 3 = 0.192
    incline = RigidLine.incline(angle, law=ContactLaw(mu))
    model = disk_contact_model(DISK, lines=(incline,))
    q0, u0 = initial_state(model, DISK.radius * incline.unit_normal)
    h = 1e-3
    res = simulate(model, q0, u0, t_end=0.5, h=h)
    down = -np.array([np.cos(angle), np.sin(angle)])
    speed = res.disk_velocity @ down
    k0 = 100  # t = 0.1 s; the contact closes for good within the first steps (round-off gap)
    assert np.all(res.n_active[50:] == 1)
    span = res.t[-1] - res.t[k0]
    acceleration = (speed[-1] - speed[k0]) / span
    spin_up = (res.disk_angular_velocity[-1] - res.disk_angular_velocity[k0]) / span
    # With a persistently closed contact and constant forces the scheme reproduces constant
    # accelerations exactly; the remaining error is the contact solver's tolerance (1e-9).
    if mu >= np.tan(angle) / 3.0:
        np.testing.assert_allclose(acceleration, 2.0 / 3.0 * G * np.sin(angle), rtol=1e-9)
        np.testing.assert_allclose(spin_up, acceleration / DISK.radius, rtol=1e-9)
        assert np.abs(res.max_slip_velocity[k0:]).max() < 1e-9
    else:
        expected = G * (np.sin(angle) - mu * np.cos(angle))
        np.testing.assert_allclose(acceleration, expected, rtol=1e-9)
        np.testing.assert_allclose(spin_up, 2 * mu * G * np.cos(angle) / DISK.radius, rtol=1e-9)
    assert_step_invariants(res, gap_tol=G * h**2)  # one free step at most: g h^2
    assert np.diff(res.total_energy).max() <= DISK.mass * G**2 * h**2


def test_superball_impact_tangential_restitution():
    """Spinning disk dropped on a rough ground with e_N = 0, e_T = 1 (sticking impact).

    Impact equations: dv_x = P_T / m, d omega = R P_T / J, gamma_T = v_x + R omega; e_T = 1
    reverses gamma_T: P_T = -2 m R omega0 / 3, so v_x' = -2 R omega0 / 3, omega' = -omega0 / 3.
    """
    ground = RigidLine((0.0, 0.0), (0.0, 1.0), ContactLaw(10.0, 0.0, 1.0))
    model = disk_contact_model(DISK, lines=(ground,))
    omega0 = 20.0
    q0, u0 = initial_state(model, (0.0, DISK.radius + 0.05), disk_angular_velocity=omega0)
    res = simulate(model, q0, u0, t_end=0.15, h=1e-3)
    first = np.flatnonzero(res.n_active > 0)[0]
    np.testing.assert_allclose(
        res.disk_velocity[first, 0], -2 * DISK.radius * omega0 / 3, rtol=1e-8
    )
    np.testing.assert_allclose(res.disk_angular_velocity[first], -omega0 / 3, rtol=1e-8)


# --------------------------------------------------------------------------------------------
# Kinematics and the impulse solver
# --------------------------------------------------------------------------------------------


def test_string_contact_directions_match_finite_differences():
    """w_N . u = d g_N / dt (004 eq. (24)) and w_T . u = e_T . (v_Q - v_P) (004 eq. (25))."""
    string, q_static = disk_on_string.hanging_string(3)
    model = disk_contact_model(Disk(0.2, 1.0, 0.02), string, n_contact_points=15)
    rng = np.random.default_rng(0)
    q, _ = initial_state(model, (0.35, -0.05), 0.3, q_string=q_static)
    u = rng.normal(size=model.layout.n)
    which = np.arange(model.n_string_points)
    kin = candidate_kinematics(model, q, which)
    eps = 1e-7

    def gaps(qq):
        centre = qq[model.layout.disk][:2]
        p = evaluate(string, string_coordinates(model, qq), model.contact_points).position
        return np.hypot(*(centre[:, None] - p)) - 0.2

    rate = (gaps(q + eps * u) - gaps(q - eps * u)) / (2 * eps)
    np.testing.assert_allclose(kin.w_normal.T @ u, rate, rtol=1e-6, atol=1e-8)
    # tangential: velocity of the disk's material point Q = M - R e_N minus that of P
    v_m, omega = u[model.layout.disk][:2], u[model.layout.disk][2]
    arm = -0.2 * kin.normal  # Q - M
    v_q = v_m[:, None] + omega * np.array([-arm[1], arm[0]])
    u_string = np.zeros(string.n_dofs)
    u_string[string.free_dofs] = u[model.layout.string]
    v_p = position_jacobian(string, model.contact_points).sparse() @ u_string
    v_p = v_p.reshape(-1, 2).T
    np.testing.assert_allclose(
        kin.w_tangent.T @ u, np.sum(kin.tangent * (v_q - v_p), 0), atol=1e-12
    )
    np.testing.assert_allclose(kin.gap, gaps(q), atol=1e-14)
    # the vectorised kernel agrees with the per-point call
    single = disk_string_kinematics(
        position_jacobian(string, model.contact_points[[4]]),
        string_coordinates(model, q),
        q[model.layout.disk][:2],
        0.2,
        model.string_index,
        model.disk_index,
        model.layout.n,
    )
    np.testing.assert_allclose(single.w_tangent[:, 0], kin.w_tangent[:, 4], atol=1e-15)


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


# --------------------------------------------------------------------------------------------
# The disk on the string, Eugster-Glocker (004), sec. 5
# --------------------------------------------------------------------------------------------


@cache
def example1(h, t_end=0.6, n_elements=2, theta=0.5):
    """Example 1 (Table 1: nel = 2, ncp = 20, mu = 0.2, e = 0), no damping, theta = 1/2."""
    return disk_on_string.run(
        1, n_elements=n_elements, t_end=t_end, h=h, theta=theta, out=None, plot=False
    )


def relative_speed_bound(outcome):
    """Largest |v_disk| + max_i |v_P(s_i)| over the run, m/s: bounds every closing speed."""
    res, model = outcome.result, outcome.model
    string = model.string
    jac = position_jacobian(string, model.contact_points).sparse()
    u_string = np.zeros((res.t.size, string.n_dofs))
    u_string[:, string.free_dofs] = res.u[:, model.layout.string]
    v_points = np.hypot(*(jac @ u_string.T).reshape(-1, 2, res.t.size).transpose(1, 0, 2))
    return float(np.max(np.hypot(*res.disk_velocity.T) + v_points.max(axis=0)))


def penetration_bound(outcome):
    """One step of travel at the largest relative speed: a contact closes (g_N(q_P) <= 0) at most
    one step after it was still open, and then stops penetrating (gamma_N,E >= 0)."""
    return outcome.result.h * relative_speed_bound(outcome)


def test_example1_invariants_and_energy():
    h = 1e-3
    outcome = example1(h)
    res = outcome.result
    disk = outcome.model.disk
    assert res.n_active.max() >= 5  # the string wraps around the disk
    assert_step_invariants(res, gap_tol=penetration_bound(outcome))
    assert res.solver_residual.max() <= 1e-9 * 10.0  # tol * velocity scale (|c| < 10 m/s)
    # e = 0, theta = 1/2: each step changes the energy by 1/2 (gamma_A + gamma_E) . P plus the
    # O(h^3) error of the linearised midpoint rule on the string. A closed contact with P != 0
    # can have gamma_A != 0 only up to ~ g h (it was closed or closing in the previous step), and
    # P ~ m g h, so an increase is bounded by m g^2 h^2 (= 2.7e-3 J here; observed < 1e-5 J).
    assert np.diff(res.total_energy).max() <= disk.mass * G**2 * h**2
    assert res.total_energy[-1] < res.total_energy[0]


def test_example1_halving_the_step():
    coarse, fine = example1(2e-3).result, example1(1e-3).result
    k = np.rint(coarse.t / fine.h).astype(int)
    difference = np.abs(coarse.disk_position - fine.disk_position[k]).max()
    # first-order scheme with impacts: each contact closure is resolved to within one step, so
    # the trajectory error is of the order v_max h (v_max = largest disk speed, h coarse step)
    v_max = np.hypot(*fine.disk_velocity.T).max()
    assert difference <= v_max * coarse.h, (difference, v_max * coarse.h)
    assert np.abs(coarse.disk_angle - fine.disk_angle[k]).max() <= v_max * coarse.h / 0.3


def test_fine_string_does_not_force_small_steps():
    """16 elements: omega_max h ~ 11 at h = 2e-3 s; theta = 0.6 keeps the run bounded."""
    string, q_static = disk_on_string.hanging_string(16)
    free = string.free_dofs
    stiffness = tangent_stiffness(string, q_static).toarray()[np.ix_(free, free)]
    mass = string.mass_matrix.toarray()[np.ix_(free, free)]
    omega_max = np.sqrt(eigh(stiffness, mass, eigvals_only=True).max())
    h = 2e-3
    assert omega_max * h > 10.0  # an explicit scheme would need h < 2 / omega_max = 3.7e-4 s
    outcome = example1(h, t_end=0.5, n_elements=16, theta=0.6)
    res = outcome.result
    assert res.n_active.max() >= 8
    assert_step_invariants(res, gap_tol=penetration_bound(outcome))
    # theta > 1/2 dissipates; the contact term of a step is bounded as for theta = 1/2
    assert np.diff(res.total_energy).max() <= outcome.model.disk.mass * G**2 * h**2


def static_disk_on_string(model):
    """Frictionless static equilibrium of string + disk, independent of the integrator.

    Minimises U(q) - f_g . q + m g y over the free string dofs and the disk centre subject to
    g_i = |r(s_i) - c| - R >= 0 at the candidate points (SLSQP with exact gradients), starting
    from the released configuration. Returns (disk centre, KKT residual / |gradient|).
    """
    string, disk = model.string, model.disk
    free = string.free_dofs
    nf = free.size
    f_g = gravity_force(string)
    dense_jac = position_jacobian(string, model.contact_points).sparse().toarray()
    weight = disk.mass * G

    def full(x):
        q = string.q_prescribed.copy()
        q[free] = x[:nf]
        return q

    def energy(x):
        q = full(x)
        return strain_energy(string, q) - f_g @ q + weight * x[nf + 1]

    def gradient(x):
        return np.concatenate(((internal_force(string, full(x)) - f_g)[free], [0.0, weight]))

    def directions(x):
        d = x[nf:, None] - evaluate(string, full(x), model.contact_points).position
        return d, np.hypot(*d)

    def gaps(x):
        return directions(x)[1] - disk.radius

    def gaps_jacobian(x):
        d, dist = directions(x)
        e = d / dist
        jac = np.zeros((dist.size, nf + 2))
        jac[:, nf:] = e.T
        jac[:, :nf] = -np.einsum("ci,icj->ij", e, dense_jac.reshape(-1, 2, string.n_dofs))[:, free]
        return jac

    case = disk_on_string.setup(1, friction=0.0)
    x0 = np.concatenate((case.q0[model.layout.string], case.q0[model.layout.disk][:2]))
    result = minimize(
        energy,
        x0,
        jac=gradient,
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": gaps, "jac": gaps_jacobian}],
        options={"maxiter": 500, "ftol": 1e-14},
    )
    x = result.x
    active = gaps(x) < 1e-8
    _, kkt = nnls(gaps_jacobian(x)[active].T, gradient(x))  # grad = J^T lambda, lambda >= 0
    return x[nf:], kkt / np.linalg.norm(gradient(x)), gaps(x).min()


def test_example1_comes_to_rest_at_the_static_equilibrium():
    # Friction makes the rest state path dependent (any friction-admissible equilibrium), so the
    # comparison with the minimum of the potential is made with mu = 0. Damping C = beta K with
    # beta = 0.1 s (not in 004) brings the disk to rest in ~2 s; it does not change equilibria.
    h = 1e-3
    outcome = disk_on_string.run(
        1, t_end=2.5, h=h, out=None, friction=0.0, stiffness_damping=0.1, plot=False
    )
    res = outcome.result
    assert res.n_active[-1] >= 3  # several closed contacts hold the disk
    assert np.hypot(*res.disk_velocity[-1]) < 1e-3
    centre, kkt, min_gap = static_disk_on_string(outcome.model)
    assert kkt < 1e-5 and min_gap > -1e-9  # a converged constrained minimum
    # the rest state carries the penetration of the last closures (<= 1e-4 m at h = 1e-3 s)
    assert res.max_penetration[-1] < 1e-4
    np.testing.assert_allclose(res.disk_position[-1], centre, atol=1e-3)


def test_example1_with_friction_rests_in_a_friction_admissible_equilibrium():
    """At rest, static contact forces in the Coulomb cones balance gravity and elasticity.

    Independent of the integrator's impulses: an LP finds lambda_N >= 0, |lambda_T| <= mu lambda_N
    minimising |f_ext - f_int + W lambda|_1 at the final configuration.
    """
    outcome = disk_on_string.run(1, t_end=2.5, h=2e-3, out=None, stiffness_damping=0.1)
    res, model = outcome.result, outcome.model
    assert np.hypot(*res.disk_velocity[-1]) < 1e-3 and res.n_active[-1] >= 3
    q = res.q[-1]
    q_string = string_coordinates(model, q)
    force = np.zeros(model.layout.n)
    force[model.layout.string] = (
        gravity_force(model.string) - internal_force(model.string, q_string)
    )[model.string.free_dofs]
    force[model.layout.disk] = (0.0, -model.disk.mass * G, 0.0)
    closed = np.flatnonzero(res.slip_velocity[-1] == res.slip_velocity[-1])  # closed: not NaN
    kin = candidate_kinematics(model, q, closed)
    m, n = closed.size, model.layout.n
    mu = 0.2
    # variables: lambda_N (m), beta+ (m), beta- (m), s+ (n), s- (n); lambda_T = beta+ - beta-
    a_eq = np.hstack((kin.w_normal, kin.w_tangent, -kin.w_tangent, np.eye(n), -np.eye(n)))
    a_ub = np.hstack((-mu * np.eye(m), np.eye(m), np.eye(m), np.zeros((m, 2 * n))))
    cost = np.concatenate((np.zeros(3 * m), np.ones(2 * n)))
    lp = linprog(cost, A_ub=a_ub, b_ub=np.zeros(m), A_eq=a_eq, b_eq=-force, bounds=(0, None))
    assert lp.status == 0
    # residual of the force balance: below 1e-4 of the disk's weight (the disk is at rest to
    # |v| < 1e-3 m/s; inertia forces of the residual motion are far smaller)
    assert lp.fun <= 1e-4 * model.disk.mass * G


def test_example2_rolls_on_the_string():
    outcome = disk_on_string.run(2, t_end=0.6, h=1e-3, out=None, plot=False)
    res = outcome.result
    radius = 0.1
    speed = np.hypot(*res.disk_velocity.T)
    moving = (res.normal_impulse > 0.0) & (speed > 0.1)
    assert moving.sum() > 300  # the disk rolls down for most of the run
    # rolling: the contact point does not slide; exceptions are the switches from one candidate
    # point to the next (an impact, where the friction impulse may be bounded)
    slip = res.max_slip_velocity[moving]
    assert np.mean(slip < 1e-9) > 0.9
    assert slip.max() < 1e-2 * 0.1  # always < 1 % of the disk's speed
    # rolling kinematics: the centre speed equals |omega| R (instantaneous centre at the contact
    # on a nearly fixed string: the string is 100 times heavier than the disk); integrated
    # over the run the two path lengths agree to the string's motion and the polygonal support
    # (signed: moving towards +x on a support below, the disk turns clockwise, v_x = -omega R)
    dt = np.diff(res.t)
    path = np.sum(speed[1:] * dt)
    path_signed = np.sum(np.sign(res.disk_velocity[1:, 0]) * speed[1:] * dt)
    rolled_signed = np.sum(-res.disk_angular_velocity[1:] * radius * dt)
    assert abs(rolled_signed - path_signed) <= 0.03 * path
    assert_step_invariants(res, gap_tol=penetration_bound(outcome))


def test_demo_writes_csv_and_plot(tmp_path):
    assert disk_on_string.main(["--example", "2", "--t-end", "0.02", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "example2_history.csv") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:3] == ["t [s]", "disk_x [m]", "disk_y [m]"]
    assert len(rows) == 22
    assert (tmp_path / "example2.png").stat().st_size > 0
