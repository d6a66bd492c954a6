"""Moreau-Jean time stepping with set-valued contact laws: a rigid disk on lines and on the string.

References, each independent of the integrator: the closed-form bounce height e^2 H and the
superball impact (Newton's law with tangential restitution); the rolling/slipping disk on an
incline (2/3 g sin a, g (sin a - mu cos a), 2 mu g cos a / R); finite differences of the gap for
the force directions of Eugster-Glocker (004), eqs. (22)-(25); brute-force enumeration of the
complementarity problem for the impulse solver; a static equilibrium of string + disk obtained
by constrained minimisation of the potential energy (scipy SLSQP, checked by its KKT conditions)
for the frictionless rest state of 004's example 1, and, with friction (mu = 0.2), Newton's
static solution of the string under the disk's final contact forces and a run with another step.
The ParaView series is read back with meshio and compared with the result and the geometry.
"""

import csv
import itertools
import xml.etree.ElementTree as ET
from functools import cache

import meshio
import numpy as np
import pytest
from scipy.linalg import eigh
from scipy.optimize import least_squares, linprog, minimize, nnls

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
    point_load,
    position_jacobian,
    strain_energy,
    tangent_stiffness,
)
from fe_contact.elements.string_statics import static_equilibrium
from fe_contact.steppers.moreau_old import (
    PENETRATION_TOLERANCE,
    Disk,
    MoreauJean,
    MoreauPvdWriter,
    RigidLine,
    candidate_kinematics,
    disk_contact_model,
    initial_state,
    simulate,
    string_coordinates,
)

G = 9.81
MU = disk_on_string.MU  # 0.2, 004 Table 1
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
@pytest.mark.parametrize("sub_stepping", [False, True])
def test_disk_dropped_on_ground_bounces_to_e_squared_height(restitution, sub_stepping):
    H, h = 0.2, 2e-4
    ground = RigidLine((0.0, 0.0), (0.0, 1.0), ContactLaw(0.3, restitution))
    model = disk_contact_model(DISK, lines=(ground,))
    q0, u0 = initial_state(model, (0.0, DISK.radius + H))
    tol_pen = PENETRATION_TOLERANCE if sub_stepping else None
    res = simulate(model, q0, u0, t_end=0.55, h=h, penetration_tolerance=tol_pen)
    height = res.disk_position[:, 1] - DISK.radius
    first = np.flatnonzero(res.n_active > 0)[0]
    v_impact = np.sqrt(2.0 * G * H)
    if sub_stepping:
        # the closure is found within a sub-step whose travel is <= tol: the impact comes at
        # most tol / v late, its speed is off by <= g tol / v, so the launch point is off by
        # <= tol and the rebound height by <= e^2 tol more (measured 2.5e-6 m for e = 0.5)
        tol = (1.0 + restitution**2) * PENETRATION_TOLERANCE
        gap_tol = PENETRATION_TOLERANCE
    else:
        # Error of the discrete impact: the closing step is detected up to one step of travel
        # (h v_impact) late, and the pre-impact velocity differs by up to g h; the rebound
        # height then differs by at most (1 + e^2) h v_impact (h = 2e-4 s: 5e-4 m for e = 0.5).
        tol = (1.0 + restitution**2) * h * v_impact
        # penetration: at most one step of travel at the impact speed (+ g h gained in it)
        gap_tol = h * (v_impact + G * h)
    # the second impact (t ~ 0.2 + 0.4 e s) is after the peak; 0.55 s covers the first flight
    peak = height[first:].max()
    assert abs(peak - restitution**2 * H) <= tol, (peak, restitution**2 * H, tol)
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
def example1(h, t_end=0.6, n_elements=2, theta=0.5, penetration_tolerance=PENETRATION_TOLERANCE):
    """Example 1 (Table 1: nel = 2, ncp = 20, mu = 0.2, e = 0), no damping, theta = 1/2."""
    return disk_on_string.run(
        1,
        n_elements=n_elements,
        t_end=t_end,
        h=h,
        theta=theta,
        out=None,
        plot=False,
        penetration_tolerance=penetration_tolerance,
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


@pytest.mark.parametrize("sub_stepping", [False, True])
def test_example1_invariants_and_energy(sub_stepping):
    h = 1e-3
    outcome = example1(h, penetration_tolerance=PENETRATION_TOLERANCE if sub_stepping else None)
    res = outcome.result
    disk = outcome.model.disk
    assert res.n_active.max() >= 5  # the string wraps around the disk
    if sub_stepping:
        # every stored state and every closed predictor gap within the tolerance (1e-5 m), where
        # fixed steps penetrate by up to one step of travel (measured 3e-4 m); the sub-steps are
        # few: the closures only
        assert_step_invariants(res, gap_tol=PENETRATION_TOLERANCE)
        fixed = example1(h, penetration_tolerance=None).result
        assert fixed.max_penetration.max() > 10.0 * PENETRATION_TOLERANCE
        assert res.t.size - 1 < res.n_substeps.sum() < 2 * (res.t.size - 1)
    else:
        assert_step_invariants(res, gap_tol=penetration_bound(outcome))
        assert np.all(res.n_substeps[1:] == 1)
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
    # sub-stepping keeps the penetration below its tolerance also here, where fixed steps
    # penetrate by 3 mm (the string's contact points move fast)
    assert_step_invariants(res, gap_tol=PENETRATION_TOLERANCE)
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


@cache
def damped_rest(h, friction):
    """Example 1 with string damping C = beta K, beta = 0.1 s (not in 004), run for 2.5 s: the
    disk comes to rest in ~2 s; damping does not change equilibria."""
    return disk_on_string.run(
        1, t_end=2.5, h=h, out=None, friction=friction, stiffness_damping=0.1, plot=False
    )


@cache
def frictionless_minimum():
    """(disk centre, KKT residual, min gap) of ``static_disk_on_string`` for example 1."""
    return static_disk_on_string(disk_on_string.setup(1, friction=0.0).model)


def test_example1_comes_to_rest_at_the_static_equilibrium():
    # Friction makes the rest state path dependent (any friction-admissible equilibrium), so the
    # comparison with the minimum of the potential is made with mu = 0 (see the next test for
    # mu = 0.2).
    res = damped_rest(2e-3, 0.0).result
    assert res.n_active[-1] >= 3  # several closed contacts hold the disk
    assert np.hypot(*res.disk_velocity[-1]) < 1e-3
    centre, kkt, min_gap = frictionless_minimum()
    assert kkt < 1e-5 and min_gap > -1e-9  # a converged constrained minimum
    # The rest state carries the penetration of the last closures, <= the sub-stepping
    # tolerance 1e-5 m (fixed steps: up to 1e-4 m at h = 1e-3 s), and a residual oscillation
    # |v| / omega (|v| = 6e-5 m/s at 2.5 s: a slow sliding mode without friction). Issue 8
    # asks for 1e-3 m; 1e-4 m = 10 x the penetration tolerance still fails for any error of the
    # dynamics or the contact geometry of that size (measured: 1e-5 m).
    assert res.max_penetration[-1] <= PENETRATION_TOLERANCE
    np.testing.assert_allclose(res.disk_position[-1], centre, atol=1e-4)


def test_example1_with_friction_rest_height_is_a_static_equilibrium():
    """mu = 0.2, the demo's friction: the rest height checked without the time stepping.

    Friction holds the string in a pre-stressed shape (|lambda_T| / lambda_N up to 0.19 at rest),
    4 mm below the frictionless minimum, so that minimum is no reference here. Instead:

    1. Newton on the string (``static_equilibrium``, load stepping from the hanging string)
       under gravity and the disk's final contact forces lambda = P / h as dead loads, then the
       disk centre from geometry alone: |c - r(s_i)| = R at the pressed candidates (least
       squares); and the disk's own balance, sum of the contact forces = -m g, no moment;
    2. a long damped run with another step size (h = 4e-3 s instead of 2e-3 s).

    Issue 8 asks for 1e-3 m. Both are asserted to 1e-4 m = 10 x the penetration tolerance: the
    pressed gaps lie in [-1e-5, 0] m, and the rest states of different steps differ only by the
    timing of the closures, which the sub-steps resolve to the same tolerance (measured: 5e-6 m
    and 8e-6 m; with fixed steps h = 1e-3 s and 2e-3 s differ by 6e-4 m).
    """
    h = 2e-3
    outcome = damped_rest(h, MU)
    res, model = outcome.result, outcome.model
    disk, string = model.disk, model.string
    assert np.hypot(*res.disk_velocity[-1]) < 1e-6 and res.n_active[-1] >= 3
    q = res.q[-1]
    lam_n, lam_t = res.normal_impulses[-1] / h, res.tangent_impulses[-1] / h
    pressed = np.flatnonzero(lam_n > 0.0)
    assert pressed.size >= 3
    assert np.max(np.abs(lam_t[pressed]) / lam_n[pressed]) > 0.1  # friction carries load
    # contact forces on the disk, e_N from the string point to the centre (004 eq. (21))
    points = evaluate(string, string_coordinates(model, q), model.contact_points[pressed])
    e_n = res.disk_position[-1][:, None] - points.position
    e_n /= np.hypot(*e_n)
    e_t = np.array([e_n[1], -e_n[0]])
    forces = e_n * lam_n[pressed] + e_t * lam_t[pressed]  # (2, m), N
    weight = disk.mass * G
    np.testing.assert_allclose(forces.sum(axis=1), (0.0, weight), atol=1e-5 * weight)
    assert abs(disk.radius * lam_t[pressed].sum()) <= 1e-5 * weight * disk.radius
    # 1. Newton on the string under these forces (the string gets -F), from the hanging shape
    _, q_hanging = disk_on_string.hanging_string(string.n_elements)
    load = gravity_force(string) + point_load(string, model.contact_points[pressed], -forces)
    q_newton = static_equilibrium(string, load, q0=q_hanging).q
    r = evaluate(string, q_newton, model.contact_points[pressed]).position
    fit = least_squares(
        lambda c: np.hypot(*(c[:, None] - r)) - disk.radius,
        r.mean(axis=1) + (0.0, disk.radius),
        xtol=1e-15,
        ftol=1e-15,
        gtol=1e-15,
    )
    np.testing.assert_allclose(fit.x, res.disk_position[-1], atol=1e-4)
    # 2. another step size
    other = damped_rest(4e-3, MU).result
    assert np.hypot(*other.disk_velocity[-1]) < 1e-6
    np.testing.assert_allclose(other.disk_position[-1], res.disk_position[-1], atol=1e-4)
    # and not the frictionless minimum
    assert abs(res.disk_position[-1, 1] - frictionless_minimum()[0][1]) > 1e-3


def test_example1_with_friction_rests_in_a_friction_admissible_equilibrium():
    """At rest, static contact forces in the Coulomb cones balance gravity and elasticity.

    Independent of the integrator's impulses: an LP finds lambda_N >= 0, |lambda_T| <= mu lambda_N
    minimising |f_ext - f_int + W lambda|_1 at the final configuration.
    """
    outcome = damped_rest(2e-3, MU)
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
    assert_step_invariants(res, gap_tol=PENETRATION_TOLERANCE)


def test_demo_writes_csv_plot_and_paraview_series(tmp_path):
    assert disk_on_string.main(["--example", "2", "--t-end", "0.02", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "example2_history.csv") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:3] == ["t [s]", "disk_x [m]", "disk_y [m]"]
    assert "max_penetration [m]" in rows[0] and "n_substeps" in rows[0]
    assert len(rows) == 22
    assert (tmp_path / "example2.png").stat().st_size > 0
    pvd = tmp_path / "example2_frames" / "example2.pvd"
    assert len(ET.parse(pvd).getroot().find("Collection").findall("DataSet")) == 3  # every 10 ms


def read_pvd(pvd):
    """[(time, meshio.Mesh)] of a .pvd collection, in its order."""
    sets = ET.parse(pvd).getroot().find("Collection").findall("DataSet")
    return [(float(d.get("timestep")), meshio.read(pvd.parent / d.get("file"))) for d in sets]


def cells_of_part(mesh, part, kind):
    """Connectivity of the cells of one kind ("line", "vertex") that belong to block ``part``."""
    rows = [
        block.data[np.asarray(parts) == part]
        for block, parts in zip(mesh.cells, mesh.cell_data["part"], strict=True)
        if block.type == kind
    ]
    return np.concatenate(rows) if rows else np.zeros((0, 2 if kind == "line" else 1), int)


def test_paraview_series_of_example1_matches_the_result(tmp_path):
    """Frames every 10 ms read back with meshio: times, string, disk outline and contact forces.

    The references come from the result and the string's shape functions, not from the writer:
    the contact points are r(s_i), e_N = (centre - r) / |centre - r|, e_T = (e_N,y, -e_N,x)
    (004 eq. (21)), and the forces are the recorded impulses / h (the mean force of the step).
    """
    h, stride = 1e-3, 0.01
    outcome = disk_on_string.run(1, t_end=0.2, h=h, out=tmp_path, plot=False, vtk_stride=stride)
    res, model = outcome.result, outcome.model
    string, disk = model.string, model.disk
    pvd = tmp_path / "example1_frames" / "example1.pvd"
    assert pvd in outcome.files
    frames = read_pvd(pvd)
    times = np.array([t for t, _ in frames])
    np.testing.assert_allclose(times, stride * np.arange(21), rtol=0, atol=1e-12)
    s = np.linspace(0.0, string.spec.length, 16 * string.n_elements + 1)
    n_with_contacts = 0
    for t, mesh in frames:
        k = int(round(t / h))
        assert res.t[k] == t
        q_string = string_coordinates(model, res.q[k])
        # string: polyline through r(s) with the tension of the neo-Hookean law
        line = np.unique(cells_of_part(mesh, 0, "line"))
        exact = evaluate(string, q_string, s)
        np.testing.assert_allclose(mesh.points[line, :2], exact.position.T, atol=1e-12)
        np.testing.assert_allclose(mesh.point_data["tension"][line], exact.tension, rtol=1e-12)
        # disk: rim points at distance R from the centre, plus the centre (end of the spoke)
        outline = np.unique(cells_of_part(mesh, 1, "line"))
        radii = np.hypot(*(mesh.points[outline, :2] - res.disk_position[k]).T)
        assert np.sum(radii < 1e-12) == 1
        np.testing.assert_allclose(radii[radii > 1e-12], disk.radius, rtol=1e-12)
        # contacts: exactly the closed candidates of the step, with their forces
        vertices = cells_of_part(mesh, 2, "vertex")[:, 0]
        closed = np.flatnonzero(np.isfinite(res.slip_velocity[k]))
        index = mesh.point_data["contact"][vertices].astype(int)
        np.testing.assert_array_equal(np.sort(index), closed)
        if closed.size == 0:
            continue
        n_with_contacts += 1
        r = evaluate(string, q_string, model.contact_points[index]).position  # (2, m)
        np.testing.assert_allclose(mesh.points[vertices, :2], r.T, atol=1e-12)
        d = res.disk_position[k][:, None] - r
        e_n = d / np.hypot(*d)
        e_t = np.array([e_n[1], -e_n[0]])
        lam_n = res.normal_impulses[k, index] / h
        lam_t = res.tangent_impulses[k, index] / h
        scale = 1e-9 * max(1.0, np.abs(lam_n).max())
        normal_force = mesh.point_data["normal_force"][vertices]
        friction_force = mesh.point_data["friction_force"][vertices]
        np.testing.assert_allclose(normal_force[:, :2], (e_n * lam_n).T, atol=scale)
        np.testing.assert_allclose(friction_force[:, :2], (e_t * lam_t).T, atol=scale)
        assert np.all(normal_force[:, 2] == 0.0)
        gap = np.hypot(*d) - disk.radius
        np.testing.assert_allclose(mesh.point_data["gap"][vertices], gap, atol=1e-12)
        np.testing.assert_allclose(
            mesh.point_data["slip_velocity"][vertices], res.slip_velocity[k, index], atol=1e-12
        )
    assert n_with_contacts >= 10  # the disk lands at ~0.045 s


def test_interrupted_run_leaves_a_valid_series(tmp_path):
    case = disk_on_string.setup(1)
    h = 1e-3
    writer = MoreauPvdWriter(case.model, tmp_path, h, name="cut", stride=5)

    class Stop(Exception):
        pass

    def observer(t, q, u, report):
        writer.observe(t, q, u, report)
        if t >= 0.0235:
            raise Stop

    with pytest.raises(Stop):
        simulate(case.model, case.q0, case.u0, 0.2, h=h, observer=observer)
    frames = read_pvd(tmp_path / "cut.pvd")  # never closed: the index is valid after each frame
    np.testing.assert_allclose([t for t, _ in frames], [0.0, 0.005, 0.01, 0.015, 0.02])


def test_bad_input_is_rejected_with_clear_errors():
    case = disk_on_string.setup(2)
    with pytest.raises(ValueError, match="penetration_tolerance"):
        MoreauJean(case.model, case.q0, case.u0, penetration_tolerance=-1e-5)
    with pytest.raises(ValueError, match="max_halvings"):
        MoreauJean(case.model, case.q0, case.u0, max_halvings=-1)
    with pytest.raises(ValueError, match="vtk_stride"):
        disk_on_string.run(2, t_end=0.01, out=None, vtk_stride=-0.01)
    with pytest.raises(ValueError, match="stride"):
        MoreauPvdWriter(case.model, "unused", 1e-3, stride=0)


def test_disk_coordinates_are_those_of_a_free_planar_tree():
    """The Moreau disk's (x, y, phi) with M = diag(m, m, J) and the weight as its only force are
    the joint coordinates of the tree prismatic-x, prismatic-y, revolute (issue 8: free bodies as
    trees); the tree's mass matrix and bias forces say so at an arbitrary state."""
    from fe_contact.multibody.joints import Joint
    from fe_contact.multibody.tree import Body, TreeModel, bias_forces, mass_matrix

    disk = Disk.from_areal_density(0.3, 100.0)
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.0, 0.0), Body(disk.mass, disk.inertia)),
        joints=(
            Joint("prismatic"),
            Joint("prismatic", parent=0, angle=np.pi / 2),
            Joint("revolute", parent=1, angle=-np.pi / 2),
        ),
        gravity=(0.0, -9.81),
    )
    q, u = np.array([0.4, -0.2, 1.3]), np.array([0.7, -1.1, 5.0])
    np.testing.assert_allclose(
        mass_matrix(tree, q), np.diag([disk.mass, disk.mass, disk.inertia]), atol=1e-12
    )
    np.testing.assert_allclose(bias_forces(tree, q, u), [0.0, disk.mass * 9.81, 0.0], atol=1e-12)
