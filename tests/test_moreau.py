"""Moreau-Jean time stepping with set-valued contact laws: a rigid disk (a ``floating_body``) on
rigid lines and on the hanging string of Eugster-Glocker (004), sec. 5, on the common System.

References, each independent of the integrator: the closed-form bounce height e^2 H and the
superball impact (Newton's law with tangential restitution); the rolling/slipping disk on an
incline (2/3 g sin a, g (sin a - mu cos a), 2 mu g cos a / R); finite differences of the gap for
the force directions of 004 eqs. (22)-(25); a static equilibrium of string + disk obtained by
constrained minimisation of the potential energy (scipy SLSQP, checked by its KKT conditions)
for the frictionless rest state of 004's example 1, and, with friction (mu = 0.2), Newton's
static solution of the string under the disk's final contact forces and a run with another step.
The ParaView series is read back with meshio and compared with the result and the geometry.
(The solver of the impulse problem is tested in test_contact_solver.py.)
"""

import csv
from functools import cache

import numpy as np
import pytest
from scipy.linalg import eigh
from scipy.optimize import least_squares, linprog, minimize, nnls
from series import cells, frame_files, part, read_frame

from fe_contact import (
    Circle,
    ContactPair,
    Line,
    Model,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)
from fe_contact.cli import main as cli_main
from fe_contact.coupling.kinematics import grid_contacts, profile_state
from fe_contact.demos import disk_on_string
from fe_contact.elements.string import (
    assemble_string,
    gravity_force,
    internal_force,
    point_load,
    position_jacobian,
    strain_energy,
    string_points_at,
    tangent_stiffness,
)
from fe_contact.elements.string_statics import string_static_shape
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel, bias_forces, mass_matrix
from fe_contact.papers import eugster_glocker as eg
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.observers import VtkObserver

G = 9.81
MU = eg.FRICTION  # 0.2, 004 Table 1
TOL = disk_on_string.PENETRATION_TOLERANCE  # 1e-5 m
RADIUS = 0.1
MASS = 100.0 * np.pi * RADIUS**2  # R = 0.1 m, rho = 100 kg/m^2: m = 3.14 kg
INERTIA = 0.5 * MASS * RADIUS**2


def total_energy(r):
    return r["kinetic_energy"] + r["potential_energy"] + r["elastic_energy"]


def closed_points(r, k, contact=0):
    """The ContactReport of a stored row (the run kept its reports)."""
    return r.reports[k].contacts[contact]


def assert_step_invariants(system, r, gap_tol):
    """Every stored step: closed points' gaps >= -gap_tol, no candidate deeper than gap_tol,
    P_N >= 0 and |P_T| <= mu P_N (the solver projects: exact up to 1e-12 relative)."""
    mu = {c.name: c.law.mu for c in system.model.contacts}
    for c in system.model.contacts:
        assert np.all(-np.minimum(r[f"{c.name}_gap"], 0.0) <= gap_tol)
    for rep in r.reports:
        for c in rep.contacts:
            assert np.all(c.gap >= -gap_tol)
            assert np.all(c.normal_impulse >= 0.0)
            pressed = c.normal_impulse > 0.0
            ratio = np.abs(c.friction_impulse[pressed]) / c.normal_impulse[pressed]
            assert np.all(ratio <= (1.0 + 1e-12) * mu[c.name])
            assert np.all(c.friction_impulse[~pressed] == 0.0)
    assert np.all(np.isfinite(total_energy(r)))


def max_slip(r, k):
    """Largest |slip velocity| over the pressed points of stored row k."""
    c = closed_points(r, k)
    pressed = c.normal_impulse > 0.0
    return float(np.abs(c.slip_velocity[pressed]).max(initial=0.0))


def disk_on_lines(*pairs):
    """System of the disk (R = 0.1 m, m = 3.14 kg) with one contact per (name, Line, law)."""
    return assemble(
        Model(
            tree=floating_body(MASS, INERTIA),
            contacts=tuple(
                ContactPair(name, Circle(2, RADIUS), line, law) for name, line, law in pairs
            ),
        )
    )


# --------------------------------------------------------------------------------------------
# Rigid lines: closed-form references
# --------------------------------------------------------------------------------------------


def drop_and_rebound(system, restitution, sub_stepping, H=0.2, h=2e-4):
    """The disk of radius RADIUS dropped from H above the ground onto it (Moreau-Jean, step h,
    with or without the sub-steps of tolerance TOL). Returns (result, height of the lowest
    point, index of the first closed step, tolerance of the rebound peak against e^2 H, gap
    tolerance):

    with sub-steps the closure is found within a sub-step whose travel is <= TOL: the impact
    comes at most TOL / v late, its speed is off by <= g TOL / v, so the launch point is off by
    <= TOL and the rebound height by <= e^2 TOL more (measured 2.5e-6 m for e = 0.5); without,
    the closing step is detected up to one step of travel (h v_impact) late and the pre-impact
    velocity differs by up to g h: the rebound height by at most (1 + e^2) h v_impact (5e-4 m
    for e = 0.5), the penetration at most one step of travel (+ g h gained in it)."""
    q0, u0 = system.initial_state([0.0, RADIUS + H, 0.0])
    r = simulate(
        system,
        (0.0, 0.55),  # the second impact (t ~ 0.2 + 0.4 e s) is after the first peak
        (q0, u0),
        method="moreau",
        h=h,
        keep_reports=True,
        penetration_tolerance=TOL if sub_stepping else None,
    )
    assert r.status == "finished", r.message
    first = np.flatnonzero(r["disk_n_closed"] > 0)[0]
    v_impact = np.sqrt(2.0 * G * H)
    if sub_stepping:
        tol, gap_tol = (1.0 + restitution**2) * TOL, TOL
    else:
        tol, gap_tol = (1.0 + restitution**2) * h * v_impact, h * (v_impact + G * h)
    return r, r.q[:, 1] - RADIUS, first, tol, gap_tol


@pytest.mark.slow
@pytest.mark.parametrize("restitution", [0.5, 0.0])
@pytest.mark.parametrize("sub_stepping", [False, True])
def test_disk_dropped_on_ground_bounces_to_e_squared_height(restitution, sub_stepping, measured):
    H, h = 0.2, 2e-4
    system = disk_on_lines(("disk", Line((0.0, 0.0), (0.0, 1.0)), Unilateral(0.3, restitution)))
    r, height, first, tol, gap_tol = drop_and_rebound(system, restitution, sub_stepping, H, h)
    peak = height[first:].max()
    measured("bounce height vs e^2 H", abs(peak - restitution**2 * H), tol, unit="m")
    assert_step_invariants(system, r, gap_tol=gap_tol)
    if restitution == 0.0:
        assert np.all(np.abs(height[first:]) <= gap_tol)  # stays down
        assert np.all(r["disk_n_closed"][first + 1 :] == 1)
        # energy never increases (midpoint contact term ~ m g^2 h^2, see the string test)
        assert np.diff(total_energy(r)).max() <= MASS * G**2 * h**2


@pytest.mark.parametrize("mu", [0.3, 0.1])
def test_disk_on_incline_rolls_or_slips(mu):
    angle = np.radians(30.0)  # rolling needs mu >= tan(30 deg) / 3 = 0.192
    incline = Line.incline(angle)
    system = disk_on_lines(("disk", incline, Unilateral(mu)))
    q0, u0 = system.initial_state([*(RADIUS * np.asarray(incline.normal)), 0.0])
    h = 1e-3
    r = simulate(system, (0.0, 0.5), (q0, u0), method="moreau", h=h, keep_reports=True)
    down = -np.array([np.cos(angle), np.sin(angle)])
    speed = r.u[:, :2] @ down
    k0 = 100  # t = 0.1 s; the contact closes for good within the first steps (round-off gap)
    assert np.all(r["disk_n_closed"][50:] == 1)
    span = r.t[-1] - r.t[k0]
    acceleration = (speed[-1] - speed[k0]) / span
    spin_up = (r.u[-1, 2] - r.u[k0, 2]) / span
    # With a persistently closed contact and constant forces the scheme reproduces constant
    # accelerations exactly; the remaining error is the contact solver's tolerance (1e-9).
    if mu >= np.tan(angle) / 3.0:
        np.testing.assert_allclose(acceleration, 2.0 / 3.0 * G * np.sin(angle), rtol=1e-9)
        np.testing.assert_allclose(spin_up, acceleration / RADIUS, rtol=1e-9)
        assert max(max_slip(r, k) for k in range(k0, r.t.size)) < 1e-9
        assert set(r["disk_state"][k0:]) == {"stick"}
    else:
        expected = G * (np.sin(angle) - mu * np.cos(angle))
        np.testing.assert_allclose(acceleration, expected, rtol=1e-9)
        np.testing.assert_allclose(spin_up, 2 * mu * G * np.cos(angle) / RADIUS, rtol=1e-9)
        assert set(r["disk_state"][k0:]) == {"slip"}
    assert_step_invariants(system, r, gap_tol=G * h**2)  # one free step at most: g h^2
    assert np.diff(total_energy(r)).max() <= MASS * G**2 * h**2
    # theta = 1/2: the discrete energy balance (friction work included) closes to round-off
    assert np.max(np.abs(r["energy_error"])) < 1e-12


def test_superball_impact_tangential_restitution():
    """Spinning disk dropped on a rough ground with e_N = 0, e_T = 1 (sticking impact).

    Impact equations: dv_x = P_T / m, d omega = R P_T / J, gamma_T = v_x + R omega; e_T = 1
    reverses gamma_T: P_T = -2 m R omega0 / 3, so v_x' = -2 R omega0 / 3, omega' = -omega0 / 3.
    """
    system = disk_on_lines(("disk", Line((0.0, 0.0), (0.0, 1.0)), Unilateral(10.0, 0.0, 1.0)))
    omega0 = 20.0
    q0, u0 = system.initial_state([0.0, RADIUS + 0.05, 0.0], [0.0, 0.0, omega0])
    r = simulate(system, (0.0, 0.15), (q0, u0), method="moreau", h=1e-3)
    first = np.flatnonzero(r["disk_n_closed"] > 0)[0]
    np.testing.assert_allclose(r.u[first, 0], -2 * RADIUS * omega0 / 3, rtol=1e-8)
    np.testing.assert_allclose(r.u[first, 2], -omega0 / 3, rtol=1e-8)


def test_disk_in_a_v_groove_rests_on_both_flanks():
    """Two lines at +-45 deg, mu = 0.3: the disk dropped off-centre into the groove ends at rest
    touching both flanks, its centre R sqrt(2) above the vertex (geometry). With friction the
    split of the load between the flanks is statically indeterminate; what must hold is the
    disk's balance: the contact forces (along the lines' normals and tangents) sum to the
    weight and have no moment about the centre."""
    law = Unilateral(0.3)
    s = 1.0 / np.sqrt(2.0)
    normals = {"left": (s, s), "right": (-s, s)}
    system = disk_on_lines(*((name, Line((0.0, 0.0), n), law) for name, n in normals.items()))
    q0, u0 = system.initial_state([0.02, RADIUS * np.sqrt(2.0) + 0.05, 0.0])
    r = simulate(system, (0.0, 1.0), (q0, u0), method="moreau", h=1e-3, keep_reports=True)
    assert r.status == "finished", r.message
    np.testing.assert_allclose(r.q[-1, :2], (0.0, RADIUS * np.sqrt(2.0)), atol=TOL)
    assert np.hypot(*r.u[-1, :2]) < 1e-9
    total = np.zeros(2)
    moment = 0.0
    for k, n in enumerate(normals.values()):
        c = closed_points(r, -1, k)
        assert c.n_points == 1
        np.testing.assert_allclose(c.normal[0], n, atol=1e-15)
        force = c.normal_force[0] * c.normal[0] + c.friction_force[0] * c.tangent[0]
        total += force
        arm = -RADIUS * c.normal[0]
        moment += arm[0] * force[1] - arm[1] * force[0]
    np.testing.assert_allclose(total, (0.0, MASS * G), rtol=1e-9, atol=1e-9 * MASS * G)
    assert abs(moment) <= 1e-9 * MASS * G * RADIUS
    assert_step_invariants(system, r, gap_tol=TOL)


# --------------------------------------------------------------------------------------------
# Kinematics of the candidate grid
# --------------------------------------------------------------------------------------------


def test_string_contact_directions_match_finite_differences():
    """w_N . u = d g_N / dt (004 eq. (24)) and w_T . u = e_T . (v_Q - v_P) (004 eq. (25)), for
    every candidate of a 3-element string in a non-static state and a random velocity."""
    radius = 0.2
    model = Model(
        tree=floating_body(1.0, 0.02),
        structures={"string": eg.table1_string(3)},
        contacts=(
            ContactPair(
                "disk", Circle(2, radius), "string", Unilateral(MU), search="grid", n_candidates=15
            ),
        ),
    )
    system = assemble(model)
    lay = system.layout
    sl = lay.structure("string")
    string = system.structures["string"].string
    grid = system.grids[0]
    rng = np.random.default_rng(0)
    q, _ = system.initial_state([0.35, -0.05, 0.3])
    q[sl] = eg.hanging_string(3)[string.free_dofs] + 0.01 * rng.normal(size=sl.stop - sl.start)
    u = rng.normal(size=lay.n)
    prof = profile_state(system.tree, q[lay.tree], u[lay.tree], 2, system.profile_points[0])
    positions = grid.positions(q[sl])
    gap, normal, tangent, w_n, w_t, _, _ = grid_contacts(
        prof, radius, positions, grid.dofs, grid.rows, u[sl], sl, lay.tree, lay.n
    )
    eps = 1e-7

    def gaps(qq):
        full = string.q_prescribed.copy()
        full[string.free_dofs] = qq[sl]
        p = string_points_at(string, full, grid.s).position
        return np.hypot(*(qq[:2, None] - p)) - radius

    rate = (gaps(q + eps * u) - gaps(q - eps * u)) / (2 * eps)
    np.testing.assert_allclose(w_n.T @ u, rate, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gap, gaps(q), atol=1e-14)
    # tangential: velocity of the disk's material point Q = M - R e_N minus that of P
    v_m, omega = u[:2], u[2]
    arm = -radius * normal.T  # Q - M, (2, m)
    v_q = v_m[:, None] + omega * np.array([-arm[1], arm[0]])
    u_full = np.zeros(string.n_dofs)
    u_full[string.free_dofs] = u[sl]
    v_p = (position_jacobian(string, grid.s).sparse() @ u_full).reshape(-1, 2).T
    np.testing.assert_allclose(w_t.T @ u, np.sum(tangent.T * (v_q - v_p), 0), atol=1e-12)


def test_disk_coordinates_are_those_of_a_free_planar_tree():
    """floating_body's (x, y, phi) with M = diag(m, m, J) and the weight as its only force:
    the tree prismatic-x, prismatic-y, revolute typed out by hand, at an arbitrary state."""
    _, mass, inertia = eg.disk_of_example(1)
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.0, 0.0), Body(mass, inertia)),
        joints=(
            Joint("prismatic"),
            Joint("prismatic", parent=0, angle=np.pi / 2),
            Joint("revolute", parent=1, angle=-np.pi / 2),
        ),
        gravity=(0.0, -9.81),
    )
    q, u = np.array([0.4, -0.2, 1.3]), np.array([0.7, -1.1, 5.0])
    for t in (tree, floating_body(mass, inertia)):
        np.testing.assert_allclose(mass_matrix(t, q), np.diag([mass, mass, inertia]), atol=1e-12)
        np.testing.assert_allclose(bias_forces(t, q, u), [0.0, mass * 9.81, 0.0], atol=1e-12)


# --------------------------------------------------------------------------------------------
# The disk on the string, Eugster-Glocker (004), sec. 5
# --------------------------------------------------------------------------------------------


@cache
def example1(h, t_end=0.6, n_elements=2, theta=0.5, penetration_tolerance=TOL):
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
        keep_reports=True,
    )


def string_model(system):
    return system.structures["string"].string


def full_string(system, q):
    string = string_model(system)
    full = string.q_prescribed.copy()
    full[string.free_dofs] = q[system.layout.structure("string")]
    return full


def relative_speed_bound(system, r):
    """Largest |v_disk| + max_i |v_P(s_i)| over the run, m/s: bounds every closing speed."""
    string = string_model(system)
    jac = position_jacobian(string, system.grids[0].s).sparse()
    u_full = np.zeros((r.t.size, string.n_dofs))
    u_full[:, string.free_dofs] = r.u[:, system.layout.structure("string")]
    v_points = np.hypot(*(jac @ u_full.T).reshape(-1, 2, r.t.size).transpose(1, 0, 2))
    return float(np.max(np.hypot(*r.u[:, :2].T) + v_points.max(axis=0)))


def disk_mass(system):
    return system.tree.bodies[2].mass


@pytest.mark.parametrize("sub_stepping", [False, True])
def test_example1_invariants_and_energy(sub_stepping):
    h = 1e-3
    system, r = example1(h, penetration_tolerance=TOL if sub_stepping else None)
    assert r.status == "finished", r.message
    assert r["disk_n_closed"].max() >= 5  # the string wraps around the disk
    if sub_stepping:
        # every stored state within the tolerance (1e-5 m), where fixed steps penetrate by up to
        # one step of travel (measured 3e-4 m); the sub-steps are few: the closures only
        assert_step_invariants(system, r, gap_tol=TOL)
        _, fixed = example1(h, penetration_tolerance=None)
        assert -fixed["disk_gap"].min() > 10.0 * TOL
        n = r.t.size - 1
        assert n < r["n_substeps"].sum() < 2 * n
    else:
        # one step of travel at the largest relative speed: a contact closes (g_N(q_P) <= 0) at
        # most one step after it was still open, and then stops penetrating (gamma_N,E >= 0)
        assert_step_invariants(system, r, gap_tol=h * relative_speed_bound(system, r))
        assert np.all(r["n_substeps"][1:] == 1)
    assert r["solver_residual"].max() <= 1e-9 * 10.0  # tol * velocity scale (|c| < 10 m/s)
    # e = 0, theta = 1/2: each step changes the energy by 1/2 (gamma_A + gamma_E) . P plus the
    # O(h^3) error of the linearised midpoint rule on the string. A closed contact with P != 0
    # can have gamma_A != 0 only up to ~ g h (it was closed or closing in the previous step), and
    # P ~ m g h, so an increase is bounded by m g^2 h^2 (= 2.7e-3 J here; observed < 1e-5 J).
    energy = total_energy(r)
    assert np.diff(energy).max() <= disk_mass(system) * G**2 * h**2
    assert energy[-1] < energy[0]


@pytest.mark.slow
def test_example1_halving_the_step():
    (_, coarse), (_, fine) = example1(2e-3), example1(1e-3)
    k = np.rint(coarse.t / 1e-3).astype(int)
    difference = np.abs(coarse.q[:, :2] - fine.q[k, :2]).max()
    # first-order scheme with impacts: each contact closure is resolved to within one step, so
    # the trajectory error is of the order v_max h (v_max = largest disk speed, h coarse step)
    v_max = np.hypot(*fine.u[:, :2].T).max()
    assert difference <= v_max * 2e-3, (difference, v_max * 2e-3)
    assert np.abs(coarse.q[:, 2] - fine.q[k, 2]).max() <= v_max * 2e-3 / 0.3


def test_fine_string_does_not_force_small_steps():
    """16 elements: omega_max h ~ 11 at h = 2e-3 s; theta = 0.6 keeps the run bounded."""
    string = assemble_string(eg.table1_string(16))
    free = string.free_dofs
    stiffness = tangent_stiffness(string, eg.hanging_string(16)).toarray()[np.ix_(free, free)]
    mass = string.mass_matrix.toarray()[np.ix_(free, free)]
    omega_max = np.sqrt(eigh(stiffness, mass, eigvals_only=True).max())
    h = 2e-3
    assert omega_max * h > 10.0  # an explicit scheme would need h < 2 / omega_max = 3.7e-4 s
    system, r = example1(h, t_end=0.5, n_elements=16, theta=0.6)
    assert r.status == "finished", r.message
    assert r["disk_n_closed"].max() >= 8
    # sub-stepping keeps the penetration below its tolerance also here, where fixed steps
    # penetrate by 3 mm (the string's contact points move fast)
    assert_step_invariants(system, r, gap_tol=TOL)
    # theta > 1/2 dissipates; the contact term of a step is bounded as for theta = 1/2
    assert np.diff(total_energy(r)).max() <= disk_mass(system) * G**2 * h**2


def static_disk_on_string(system, q0):
    """Frictionless static equilibrium of string + disk, independent of the integrator.

    Minimises U(q) - f_g . q + m g y over the free string dofs and the disk centre subject to
    g_i = |r(s_i) - c| - R >= 0 at the candidate points (SLSQP with exact gradients, in
    unknowns scaled by their start's size), starting from the released configuration q0. Returns (disk centre, KKT residual / |gradient|, min
    gap).
    """
    string = string_model(system)
    s_i = system.grids[0].s
    radius = system.model.contacts[0].profile.radius
    free = string.free_dofs
    nf = free.size
    f_g = gravity_force(string)
    dense_jac = position_jacobian(string, s_i).sparse().toarray()
    weight = disk_mass(system) * G

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
        d = x[nf:, None] - string_points_at(string, full(x), s_i).position
        return d, np.hypot(*d)

    def gaps(x):
        return directions(x)[1] - radius

    def gaps_jacobian(x):
        d, dist = directions(x)
        e = d / dist
        jac = np.zeros((dist.size, nf + 2))
        jac[:, nf:] = e.T
        jac[:, :nf] = -np.einsum("ci,icj->ij", e, dense_jac.reshape(-1, 2, string.n_dofs))[:, free]
        return jac

    x0 = np.concatenate((q0[system.layout.structure("string")], q0[:2]))
    # SLSQP in scaled unknowns y = x / scale (the string's positions, slopes near 1, the centre):
    # unscaled, scipy 1.10's SLSQP under OpenBLAS's Prescott kernels stopped at a gap of
    # -1.9e-6 m (KKT 1e-6); scaled it reaches gaps of -1e-11 m and KKT 1e-11 on every BLAS and
    # scipy tried. It ends on its line search's round-off (status 8) either way, and where it
    # stops depends on that round-off (in one CI worker, -1.5e-9 m after the restart, where the
    # same call alone gave -1.4e-11 m): restarted from its end while it failed or leaves a gap
    # below -1e-10 m, at most three runs.
    scale = np.maximum(np.abs(x0), 1e-2)
    y = x0 / scale
    for _ in range(3):
        result = minimize(
            lambda y: energy(y * scale),
            y,
            jac=lambda y: gradient(y * scale) * scale,
            method="SLSQP",
            constraints=[
                {
                    "type": "ineq",
                    "fun": lambda y: gaps(y * scale),
                    "jac": lambda y: gaps_jacobian(y * scale) * scale,
                }
            ],
            options={"maxiter": 500, "ftol": 1e-14},
        )
        y = result.x
        if result.success and gaps(y * scale).min() > -1e-10:
            break
    x = y * scale
    active = gaps(x) < 1e-8
    _, kkt = nnls(gaps_jacobian(x)[active].T, gradient(x))  # grad = J^T lambda, lambda >= 0
    return x[nf:], kkt / np.linalg.norm(gradient(x)), gaps(x).min()


@cache
def damped_rest(h, friction):
    """Example 1 with string damping beta K_t(q), beta = 0.1 s (not in 004), run for 2.5 s:
    the disk comes to rest in ~2 s; damping does not change equilibria."""
    return disk_on_string.run(
        1,
        t_end=2.5,
        h=h,
        out=None,
        friction=friction,
        stiffness_damping=0.1,
        plot=False,
        keep_reports=True,
    )


@cache
def frictionless_minimum():
    """(disk centre, KKT residual, min gap) of ``static_disk_on_string`` for example 1."""
    scenario = eg.disk_on_string(1, friction=0.0)
    model, q0 = scenario.model, scenario.q0
    return static_disk_on_string(assemble(model), q0)


@pytest.mark.slow
def test_example1_comes_to_rest_at_the_static_equilibrium():
    # Friction makes the rest state path dependent (any friction-admissible equilibrium), so the
    # comparison with the minimum of the potential is made with mu = 0 (see the next test for
    # mu = 0.2).
    _, r = damped_rest(2e-3, 0.0)
    assert r.status == "finished", r.message
    assert r["disk_n_closed"][-1] >= 3  # several closed contacts hold the disk
    assert np.hypot(*r.u[-1, :2]) < 1e-3
    centre, kkt, min_gap = frictionless_minimum()
    # a converged constrained minimum: KKT to 1e-5 of the gradient, and feasible to 1e-8 m,
    # 1e-4 of the 1e-4 m the rest state is compared with below (SLSQP ends on its line search's
    # round-off: 1e-11 m on most BLAS, 1.5e-9 m seen once; the centre moves by as much)
    assert kkt < 1e-5 and min_gap > -1e-8
    # The rest state carries the penetration of the last closures, <= the sub-stepping
    # tolerance 1e-5 m, and a residual oscillation |v| / omega (|v| = 6e-5 m/s at 2.5 s: a slow
    # sliding mode without friction). 1e-4 m = 10 x the penetration tolerance still fails for
    # any error of the dynamics or the contact geometry of that size (measured: 1e-5 m).
    assert -r["disk_gap"][-1] <= TOL
    np.testing.assert_allclose(r.q[-1, :2], centre, atol=1e-4)


def pressed_forces(system, r, k, h):
    """(s_i, lambda_N, lambda_T, contact forces on the disk (2, m)) of the pressed candidates of
    stored row k, the forces as impulse / h along directions computed here from the geometry:
    e_N from the string point to the centre (004 eq. (21)), e_T = (e_N,y, -e_N,x)."""
    c = closed_points(r, k)
    pressed = c.normal_impulse > 0.0
    s_i = c.parameter[pressed]
    lam_n, lam_t = c.normal_impulse[pressed] / h, c.friction_impulse[pressed] / h
    points = string_points_at(string_model(system), full_string(system, r.q[k]), s_i).position
    e_n = r.q[k, :2][:, None] - points
    e_n /= np.hypot(*e_n)
    e_t = np.array([e_n[1], -e_n[0]])
    return s_i, lam_n, lam_t, e_n * lam_n + e_t * lam_t


@pytest.mark.slow
def test_example1_with_friction_rest_height_is_a_static_equilibrium():
    """mu = 0.2, the demo's friction: the rest height checked without the time stepping.

    Friction holds the string in a pre-stressed shape (|lambda_T| / lambda_N up to 0.19 at rest),
    4 mm below the frictionless minimum, so that minimum is no reference here. Instead:

    1. Newton on the string (``string_static_shape``, load stepping from the hanging string)
       under gravity and the disk's final contact forces lambda = P / h as dead loads, then the
       disk centre from geometry alone: |c - r(s_i)| = R at the pressed candidates (least
       squares); and the disk's own balance, sum of the contact forces = -m g, no moment;
    2. a long damped run with another step size (h = 4e-3 s instead of 2e-3 s).

    Both to 1e-4 m = 10 x the penetration tolerance: the pressed gaps lie in [-1e-5, 0] m, and
    the rest states of different steps differ only by the timing of the closures, which the
    sub-steps resolve to the same tolerance (measured: 5e-6 m and 8e-6 m).
    """
    h = 2e-3
    system, r = damped_rest(h, MU)
    assert np.hypot(*r.u[-1, :2]) < 1e-6 and r["disk_n_closed"][-1] >= 3
    s_i, lam_n, lam_t, forces = pressed_forces(system, r, -1, h)
    assert s_i.size >= 3
    assert np.max(np.abs(lam_t) / lam_n) > 0.1  # friction carries load
    weight = disk_mass(system) * G
    np.testing.assert_allclose(forces.sum(axis=1), (0.0, weight), atol=1e-5 * weight)
    radius = system.model.contacts[0].profile.radius
    assert abs(radius * lam_t.sum()) <= 1e-5 * weight * radius
    # 1. Newton on the string under these forces (the string gets -F), from the hanging shape
    string = string_model(system)
    load = gravity_force(string) + point_load(string, s_i, -forces)
    q_newton = string_static_shape(string, load, q0=eg.hanging_string(2).copy()).q
    points = string_points_at(string, q_newton, s_i).position
    fit = least_squares(
        lambda c: np.hypot(*(c[:, None] - points)) - radius,
        points.mean(axis=1) + (0.0, radius),
        xtol=1e-15,
        ftol=1e-15,
        gtol=1e-15,
    )
    np.testing.assert_allclose(fit.x, r.q[-1, :2], atol=1e-4)
    # 2. another step size
    _, other = damped_rest(4e-3, MU)
    assert np.hypot(*other.u[-1, :2]) < 1e-6
    np.testing.assert_allclose(other.q[-1, :2], r.q[-1, :2], atol=1e-4)
    # and not the frictionless minimum
    assert abs(r.q[-1, 1] - frictionless_minimum()[0][1]) > 1e-3


def test_example1_with_friction_rests_in_a_friction_admissible_equilibrium():
    """At rest, static contact forces in the Coulomb cones balance gravity and elasticity.

    Independent of the integrator's impulses: an LP finds lambda_N >= 0, |lambda_T| <= mu lambda_N
    minimising |f_ext - f_int + W lambda|_1 at the final configuration, with W of the closed
    candidates (``grid_contacts``, checked against finite differences above).
    """
    system, r = damped_rest(2e-3, MU)
    assert np.hypot(*r.u[-1, :2]) < 1e-3 and r["disk_n_closed"][-1] >= 3
    lay = system.layout
    sl = lay.structure("string")
    q = r.q[-1]
    string = string_model(system)
    force = np.zeros(lay.n)
    force[sl] = (gravity_force(string) - internal_force(string, full_string(system, q)))[
        string.free_dofs
    ]
    force[:3] = (0.0, -disk_mass(system) * G, 0.0)
    grid = system.grids[0]
    closed = np.flatnonzero(np.isin(grid.s, closed_points(r, -1).parameter))
    zero = np.zeros(lay.n)
    prof = profile_state(system.tree, q[lay.tree], zero[lay.tree], 2, system.profile_points[0])
    radius = system.model.contacts[0].profile.radius
    _, _, _, w_n, w_t, _, _ = grid_contacts(
        prof,
        radius,
        grid.positions(q[sl])[closed],
        grid.dofs[closed],
        grid.rows[closed],
        zero[sl],
        sl,
        lay.tree,
        lay.n,
    )
    m, n = closed.size, lay.n
    # variables: lambda_N (m), beta+ (m), beta- (m), s+ (n), s- (n); lambda_T = beta+ - beta-
    a_eq = np.hstack((w_n, w_t, -w_t, np.eye(n), -np.eye(n)))
    a_ub = np.hstack((-MU * np.eye(m), np.eye(m), np.eye(m), np.zeros((m, 2 * n))))
    cost = np.concatenate((np.zeros(3 * m), np.ones(2 * n)))
    lp = linprog(cost, A_ub=a_ub, b_ub=np.zeros(m), A_eq=a_eq, b_eq=-force, bounds=(0, None))
    assert lp.status == 0
    # residual of the force balance: below 1e-4 of the disk's weight (the disk is at rest to
    # |v| < 1e-3 m/s; inertia forces of the residual motion are far smaller)
    assert lp.fun <= 1e-4 * disk_mass(system) * G


def test_example2_rolls_on_the_string():
    system, r = disk_on_string.run(2, t_end=0.6, h=1e-3, out=None, plot=False, keep_reports=True)
    assert r.status == "finished", r.message
    speed = np.hypot(*r.u[:, :2].T)
    moving = (r["disk_normal_impulse"] > 0.0) & (speed > 0.1)
    assert moving.sum() > 300  # the disk rolls down for most of the run
    # rolling: the contact point does not slide; exceptions are the switches from one candidate
    # point to the next (an impact, where the friction impulse may be bounded)
    slip = np.array([max_slip(r, k) for k in np.flatnonzero(moving)])
    assert np.mean(slip < 1e-9) > 0.9
    assert slip.max() < 1e-2 * 0.1  # always < 1 % of the disk's speed
    # rolling kinematics: the centre speed equals |omega| R (instantaneous centre at the contact
    # on a nearly fixed string: the string is 100 times heavier than the disk); integrated
    # over the run the two path lengths agree to the string's motion and the polygonal support
    # (signed: moving towards +x on a support below, the disk turns clockwise, v_x = -omega R)
    dt = np.diff(r.t)
    path = np.sum(speed[1:] * dt)
    path_signed = np.sum(np.sign(r.u[1:, 0]) * speed[1:] * dt)
    rolled_signed = np.sum(-r.u[1:, 2] * RADIUS * dt)
    assert abs(rolled_signed - path_signed) <= 0.03 * path
    assert_step_invariants(system, r, gap_tol=TOL)


# --------------------------------------------------------------------------------------------
# The demo's files
# --------------------------------------------------------------------------------------------


def test_demo_writes_csv_plot_and_paraview_series(tmp_path):
    assert disk_on_string.main(["--example", "2", "--t-end", "0.02", "--out", str(tmp_path)]) == 0
    folder = tmp_path / "example2"
    with open(folder / "history.csv") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:2] == ["t [s]", "disk_state"]
    for column in ("disk_normal_impulse [N s]", "disk_gap [m]", "disk_n_closed", "n_substeps"):
        assert column in rows[0]
    assert "energy_error [J]" in rows[0]
    assert len(rows) == 22
    assert (folder / "example2.png").stat().st_size > 0
    assert len(frame_files(folder / "frames.pvd")) == 3  # every 10 ms
    # the run as a model file: fe-contact run reproduces the history to the last digit
    again = tmp_path / "again"
    assert cli_main(["run", str(folder / "model.toml"), "--out", str(again), "-q"]) == 0
    assert (again / "history.csv").read_text() == (folder / "history.csv").read_text()


def test_paraview_series_of_example1_matches_the_result(tmp_path):
    """Frames every 10 ms read back with pyvista: times, string, disk outline and contact forces.

    The references come from the result and the string's shape functions, not from the writer:
    the contact points are r(s_i), e_N = (centre - r) / |centre - r|, e_T = (e_N,y, -e_N,x)
    (004 eq. (21)), and the forces are the recorded impulses / h (the mean force of the step).
    Named blocks: the structure "string", the disk's outline "<contact>_profile", "contacts".
    """
    h, stride = 1e-3, 0.01
    system, r = disk_on_string.run(
        1, t_end=0.2, h=h, out=tmp_path, plot=False, vtk_stride=stride, keep_reports=True
    )
    string = string_model(system)
    radius = system.model.contacts[0].profile.radius
    frames = frame_files(tmp_path / "example1" / "frames.pvd")
    times = np.array([t for t, _ in frames])
    np.testing.assert_allclose(times, stride * np.arange(21), rtol=0, atol=1e-12)
    s = np.linspace(0.0, string.spec.length, 8 * string.n_elements + 1)
    n_with_contacts = 0
    for t, path in frames:
        frame = read_frame(path)
        (profile,) = [n for n in frame["bodies"].keys() if n.endswith("_profile")]
        k = int(round(t / h))
        assert r.t[k] == t
        q_full = full_string(system, r.q[k])
        # string: polyline through r(s) with the tension of the neo-Hookean law
        mesh = part(frame, "string")
        line = np.unique(cells(mesh, "line"))
        exact = string_points_at(string, q_full, s)
        np.testing.assert_allclose(mesh.points[line, :2], exact.position.T, atol=1e-12)
        np.testing.assert_allclose(mesh.point_data["tension"][line], exact.tension, rtol=1e-12)
        # disk: rim points at distance R from the centre, plus the centre (end of the spoke)
        mesh = part(frame, profile)
        outline = np.unique(cells(mesh, "line"))
        radii = np.hypot(*(mesh.points[outline, :2] - r.q[k, :2]).T)
        assert np.sum(radii < 1e-12) == 1
        np.testing.assert_allclose(radii[radii > 1e-12], radius, rtol=1e-12)
        # contacts: exactly the closed candidates of the step, with their forces
        mesh = part(frame, "contacts")
        c = closed_points(r, k)
        if c.n_points == 0:
            assert mesh is None  # no closed point: an empty block, no file
            continue
        vertices = cells(mesh, "vertex")[:, 0]
        n_with_contacts += 1
        s_i = mesh.point_data["parameter"][vertices]
        np.testing.assert_array_equal(np.sort(s_i), np.sort(c.parameter))
        order = np.argsort(s_i)
        vertices, s_i = vertices[order], s_i[order]
        index = np.argsort(c.parameter)
        points = string_points_at(string, q_full, s_i).position  # (2, m)
        np.testing.assert_allclose(mesh.points[vertices, :2], points.T, atol=1e-12)
        d = r.q[k, :2][:, None] - points
        e_n = d / np.hypot(*d)
        e_t = np.array([e_n[1], -e_n[0]])
        lam_n = c.normal_impulse[index] / h
        lam_t = c.friction_impulse[index] / h
        scale = 1e-9 * max(1.0, np.abs(lam_n).max())
        normal_force = mesh.point_data["normal_force"][vertices]
        friction_force = mesh.point_data["friction_force"][vertices]
        np.testing.assert_allclose(normal_force[:, :2], (e_n * lam_n).T, atol=scale)
        np.testing.assert_allclose(friction_force[:, :2], (e_t * lam_t).T, atol=scale)
        assert np.all(normal_force[:, 2] == 0.0)
        gap = np.hypot(*d) - radius
        np.testing.assert_allclose(mesh.point_data["gap"][vertices], gap, atol=1e-12)
        np.testing.assert_allclose(
            mesh.point_data["slip_velocity"][vertices], c.slip_velocity[index], atol=1e-12
        )
    assert n_with_contacts >= 10  # the disk lands at ~0.045 s


def test_run_stopped_by_an_observer_keeps_its_history_and_a_valid_series(tmp_path):
    """An exception in an observer ends the run with status "failed": the result holds every
    state up to the failure (and, as after any batch of steps, those the stepper took in the
    same call: ``steppers.moreau_batch``), the message names the time of the failure, and the
    series (stride 5) is valid up to the last reported state (the pending one is written on
    close)."""
    scenario = eg.disk_on_string(1)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)

    def stop(system, report, row):
        if report.t >= 0.0235:
            raise RuntimeError("stopped by the user")

    r = simulate(
        system,
        (0.0, 0.2),
        (q0, u0),
        method="moreau",
        h=1e-3,
        observers=[VtkObserver(tmp_path, "cut", stride=5), stop],
    )
    assert r.status == "failed" and "stopped by the user" in r.message
    assert "in an observer at t = 0.024 s" in r.message, r.message
    np.testing.assert_allclose(r.t[:25], 1e-3 * np.arange(25), atol=1e-12)
    np.testing.assert_allclose(np.diff(r.t), 1e-3, atol=1e-12)  # no step lost
    frames = frame_files(tmp_path / "cut.pvd")
    np.testing.assert_allclose([t for t, _ in frames], [0.0, 0.005, 0.01, 0.015, 0.02, 0.024])
    bodies = read_frame(frames[-1][1])["bodies"]
    (last,) = [g for n, g in zip(bodies.keys(), bodies, strict=True) if n.endswith("_profile")]
    centre = last.points[np.unique(cells(last, "line")), :2]
    assert np.any(np.all(np.abs(centre - r.q[24, :2]) < 1e-12, axis=1))


def test_bad_input_is_rejected_with_clear_errors():
    scenario = eg.disk_on_string(2)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    with pytest.raises(ValueError, match="penetration_tolerance"):
        MoreauJean(system, 0.0, q0, u0, penetration_tolerance=-1e-5)
    with pytest.raises(ValueError, match="max_halvings"):
        MoreauJean(system, 0.0, q0, u0, max_halvings=-1)
    with pytest.raises(ValueError, match="theta"):
        MoreauJean(system, 0.0, q0, u0, theta=0.4)
    with pytest.raises(ValueError, match="vtk_stride"):
        disk_on_string.run(2, t_end=0.01, out=None, vtk_stride=-0.01)
    with pytest.raises(ValueError, match="example"):
        disk_on_string.run(3, out=None)
    with pytest.raises(ValueError, match="stride"):
        VtkObserver(".", stride=0)
