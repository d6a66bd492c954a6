"""The pin on the rotating wheel, Slavic-Boltezar (003), secs. 2-4: model, Poisson impacts with
friction, per-point losses, energy balance, apparent friction coefficient and run-in wear."""

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.coupling.rough_contact import (
    RoughContact,
    closed_contacts,
    poisson_impact,
    solve_coulomb,
)
from fe_contact.model import ContactPair, Model, Polyline, Unilateral, Wheel
from fe_contact.multibody.tree import (
    bias_forces,
    kinetic_energy,
    mass_matrix,
    point_velocity,
)
from fe_contact.papers.slavic_boltezar import (
    PIN,
    PinOnWheel,
    pin_face,
    pin_on_wheel,
    pin_tree,
    run_in,
    simulate_pin,
    smooth_apparent_cof,
    wheel_rim,
)
from fe_contact.rough import arc_profile, form_free_rz, peak_to_valley, rough_arc
from fe_contact.steppers.event_driven import EventDriven
from fe_contact.system import assemble

DATA = PinOnWheel()


def rough_pair(model: Model) -> RoughContact:
    """The contact kinematics of the model's rough pair (the pin's face on the wheel's rim)."""
    return RoughContact.from_pair(model.tree, model.contacts[0])


# ------------------------------------------------------------------------------------------
# The model: 003 eqs. (22), (29), (30)
# ------------------------------------------------------------------------------------------


def test_tree_gives_mass_matrix_and_forces_of_003_eqs_29_30():
    """M and h of 003 (with p k_r for the misprinted p k_phi) at a few states; rel. 1e-12."""
    d = replace(DATA, s=2e-4)
    tree = pin_tree(d)
    m, a, J = d.mass, d.a, d.inertia
    rng = np.random.default_rng(0)
    for _ in range(4):
        r, phi = rng.uniform(-1e-5, 1e-5), rng.uniform(-0.3, 0.3)
        rd, phid = rng.uniform(-1, 1), rng.uniform(-50, 50)
        M = np.array(
            [
                [m, 0.5 * a * m * np.sin(phi)],
                [0.5 * a * m * np.sin(phi), 0.25 * a**2 * m + J],
            ]
        )
        h = np.array(
            [
                -0.5 * a * m * np.cos(phi) * phid**2 - d.p * d.k_r - d.k_r * r - d.c_r * rd,
                -d.k_phi * phi - d.c_phi * phid,
            ]
        )
        q, u = np.array([r, phi]), np.array([rd, phid])
        assert np.allclose(mass_matrix(tree, q), M, rtol=1e-12, atol=0)
        assert np.allclose(-bias_forces(tree, q, u), h, rtol=1e-12, atol=1e-15)


def test_contact_rows_give_the_relative_velocity_of_the_contact_points():
    """w_N . u + what = N . (v_pin(C) - v_wheel(C)) with v_pin from the tree's point velocity
    (003 eqs. (3)-(7)), for every candidate contact; to 1e-12 m/s."""
    contact = rough_pair(pin_on_wheel(replace(DATA, s=-3e-4)).model)
    q, u = np.array([-1.5e-6, 2e-3]), np.array([0.3, -40.0])
    t = 1e-4
    cs = closed_contacts(contact, q, u, t, np.inf)
    assert cs.size > 100
    gdot = cs.w @ u + cs.what
    pose_angle = q[1]  # the pin's frame turns by phi
    origin = np.array([contact.tree.joints[0].location[0], contact.tree.joints[0].location[1]])
    origin = origin + np.array([0.0, q[0]])
    for k in range(0, cs.size, 17):
        c = cs.point[:, k]
        rot = np.array(
            [[np.cos(pose_angle), np.sin(pose_angle)], [-np.sin(pose_angle), np.cos(pose_angle)]]
        )
        local = rot @ (c - origin)
        v_pin = point_velocity(contact.tree, q, u, PIN, local)
        v_wheel = contact.omega * np.array([-c[1], c[0]])
        rel = v_pin - v_wheel
        assert gdot[k] == pytest.approx(cs.normal[:, k] @ rel, abs=1e-12)
        assert gdot[cs.size + k] == pytest.approx(cs.tangent[:, k] @ rel, abs=1e-12)


def test_profiles_of_the_example():
    """The face has 100 vertices about 10 um apart over the width a, Rz 1.25 um; the rim Rz
    2.5 um with the same spacing over the arc passing under the pin in t_end."""
    face, rim = pin_face(DATA), wheel_rim(DATA)
    assert face.n_points == 100
    spacing = np.linalg.norm(np.diff(face.points, axis=1), axis=0)
    assert 9e-6 < spacing.mean() < 11e-6
    assert peak_to_valley(face) == pytest.approx(1.25e-6, rel=1e-9)
    assert peak_to_valley(rim) == pytest.approx(2.5e-6, rel=1e-9)
    arc = np.ptp(np.arctan2(rim.points[1], rim.points[0])) * DATA.R
    assert arc > DATA.a + 2 * np.pi * DATA.f * DATA.R * DATA.t_end


# ------------------------------------------------------------------------------------------
# Impacts: 003 eqs. (14)-(15), (18)-(20)
# ------------------------------------------------------------------------------------------

MASS = 2.0


def test_degenerate_contacts_are_solved_within_the_laws():
    """Three contacts a few nm apart on nearly parallel segments of a 2-dof body (G of rank 2,
    eigenvalues down to 1e-16 of the largest): the impulses satisfy the unilateral and Coulomb
    laws (P_N >= 0, |P_T| <= mu P_N, xi_N >= 0 where P_N = 0, xi_N = 0 where P_N > 0, slip
    opposite to P_T) to 1e-6 of the velocities."""
    rng = np.random.default_rng(3)
    minv = np.diag([1.0 / 1.65e-6, 1.0 / 6.9e-13])
    angle = np.pi / 2 + np.array([0.0, 1e-4, 1.01e-4])
    arm = np.array([1.0e-4, 1.0e-4 + 3e-9, 1.0e-4 + 5e-9])
    w_n = np.column_stack((np.sin(angle), arm * np.cos(angle) * 10))
    w_t = np.column_stack((-np.cos(angle), arm * np.sin(angle)))
    w = np.vstack((w_n, w_t))
    G = w @ minv @ w.T
    for _ in range(5):
        c = np.concatenate((rng.uniform(-0.4, -0.2, 3), rng.uniform(-0.3, -0.2, 3)))
        p = solve_coulomb(G, c, np.full(3, 0.125))
        xi = G @ p + c
        scale = np.abs(c).max()
        assert np.all(p[:3] >= 0) and np.all(np.abs(p[3:]) <= 0.125 * p[:3] * (1 + 1e-12))
        assert np.all(xi[:3] >= -1e-6 * scale)
        assert np.all(np.abs(xi[:3][p[:3] > 0]) <= 1e-6 * scale)
        slipping = np.abs(xi[3:]) > 1e-6 * scale
        assert np.all(p[3:][slipping] * xi[3:][slipping] <= 0)
        assert np.allclose(np.abs(p[3:][slipping]), 0.125 * p[:3][slipping], rtol=1e-9)


# three closed contacts of a rough pin (n_pin = 50, h = 2e-7 s) where Lemke's pivoting on G
# itself ends on a ray: G of rank 2 with near-duplicate rows
DEGENERATE_G = np.array(
    [
        [
            911482.5149897286,
            431325.41918006755,
            432184.79569972394,
            -463609.11928734963,
            -594650.860610054,
            -594607.0626267288,
        ],
        [
            431325.41918006766,
            694926.4375345628,
            694471.665709166,
            370530.2555327168,
            282290.75612931204,
            282358.16815522243,
        ],
        [
            432184.795699724,
            694471.665709166,
            694019.2160568848,
            369057.7801573215,
            280740.7647249898,
            280808.1361055131,
        ],
        [
            -463609.1192873497,
            370530.2555327168,
            369057.7801573215,
            944829.5479964728,
            979956.9927019571,
            979990.8280832879,
        ],
        [
            -594650.8606100539,
            282290.75612931204,
            280740.7647249897,
            979956.9927019569,
            1035325.6513712826,
            1035350.695147705,
        ],
        [
            -594607.0626267288,
            282358.16815522243,
            280808.1361055131,
            979990.8280832878,
            1035350.6951477051,
            1035375.7454694458,
        ],
    ]
)
DEGENERATE_C = np.array(
    [
        -0.029345714193252524,
        -0.04674179576308647,
        -0.04677337998344093,
        -0.26654725842614596,
        -0.2588932606051375,
        -0.2588979507188391,
    ]
)


def test_a_degenerate_case_from_a_run_is_solved_within_the_laws():
    """The laws hold with G itself to the regularisation's velocity eps max(diag G) |P|
    (eps <= 1e-6: 4e-8 m/s here against c ~ 0.3 m/s)."""
    G, c = DEGENERATE_G, DEGENERATE_C
    p = solve_coulomb(G, c, np.full(3, 0.125))
    xi = G @ p + c
    bound = 2e-6 * np.diag(G).max() * np.abs(p).max()
    assert np.all(p[:3] >= 0) and np.all(np.abs(p[3:]) <= 0.125 * p[:3] * (1 + 1e-12))
    assert np.all(xi[:3] >= -bound)
    assert np.all(np.abs(xi[:3][p[:3] > 0]) <= bound)
    slipping = np.abs(xi[3:]) > bound
    assert np.all(p[3:][slipping] * xi[3:][slipping] <= 0)


def _point_mass_impact(v_n, v_t, mu, eps_n, eps_t, nu=0.0):
    G = np.eye(2) / MASS
    return poisson_impact(G, np.array([v_n, v_t]), np.array([mu]), eps_n, eps_t, nu)


@pytest.mark.parametrize("eps_n", [0.0, 0.5, 1.0])
def test_frictionless_impact_rebounds_with_minus_eps_n(eps_n):
    """Poisson's law for a point mass on a plane: v_N+ = -eps_N v_N-, impulse (1 + eps_N) m |v|,
    Lambda_NE = eps_N Lambda_NC; loss = (1 - eps_N^2) m v^2 / 2."""
    res = _point_mass_impact(-3.0, 0.7, 0.0, eps_n, 0.0)
    assert res.gdot_after[0] == pytest.approx(3.0 * eps_n, rel=1e-12, abs=1e-14)
    assert res.gdot_after[1] == pytest.approx(0.7, rel=1e-12)
    assert res.normal_compression[0] == pytest.approx(MASS * 3.0, rel=1e-12)
    assert res.normal_expansion[0] == pytest.approx(eps_n * MASS * 3.0, rel=1e-12, abs=1e-14)
    loss = res.loss_compression.sum() + res.loss_expansion.sum()
    assert loss == pytest.approx(0.5 * MASS * 9.0 * (1 - eps_n**2), rel=1e-12, abs=1e-12)


def test_sliding_impact_with_friction_closed_form():
    """Slip throughout: Lambda_T = -mu (1 + eps_T) Lambda_NC (= -mu Lambda_N, Coulomb for the
    whole impulse when eps_T = eps_N), v_T+ = v_T - mu (1 + eps_N) |v_N|; cone holds."""
    mu, eps = 0.125, 0.5
    res = _point_mass_impact(-2.0, 1.5, mu, eps, eps)
    lam_n = res.normal_compression[0] + res.normal_expansion[0]
    lam_t = res.tangent_compression[0] + res.tangent_expansion[0]
    assert lam_n == pytest.approx((1 + eps) * MASS * 2.0, rel=1e-12)
    assert lam_t == pytest.approx(-mu * lam_n, rel=1e-12)
    assert res.gdot_after[0] == pytest.approx(eps * 2.0, rel=1e-12)
    assert res.gdot_after[1] == pytest.approx(1.5 - mu * (1 + eps) * 2.0, rel=1e-12)
    assert abs(res.tangent_compression[0]) <= mu * res.normal_compression[0] * (1 + 1e-12)
    assert abs(res.tangent_expansion[0]) <= mu * res.normal_expansion[0] * (1 + 1e-12)


@pytest.mark.parametrize("nu", [0.0, 1.0])
def test_sticking_impact_with_tangential_restitution(nu):
    """|v_T| < mu |v_N|: the contact sticks at the end of compression (Lambda_TC = -m v_T);
    the stored tangential impulse comes back as nu eps_T Lambda_TC: v_T+ = -nu eps_T v_T."""
    mu, eps_n, eps_t = 0.5, 0.5, 0.4
    res = _point_mass_impact(-2.0, 0.3, mu, eps_n, eps_t, nu)
    assert res.tangent_compression[0] == pytest.approx(-MASS * 0.3, rel=1e-12)
    assert res.gdot_compression[1] == pytest.approx(0.0, abs=1e-14)
    assert res.gdot_after[1] == pytest.approx(-nu * eps_t * 0.3, rel=1e-12, abs=1e-14)
    assert res.gdot_after[0] == pytest.approx(eps_n * 2.0, rel=1e-12)
    lam_n = res.normal_compression[0] + res.normal_expansion[0]
    lam_t = res.tangent_compression[0] + res.tangent_expansion[0]
    assert abs(lam_t) <= mu * lam_n


def test_single_rough_on_flat_impact_loss_equals_sum_of_point_losses():
    """003 eqs. (18)-(20): the kinetic energy lost in the impact of a rough face on a flat
    (wheel at rest: the drive does no work) equals the sum of the per-point losses of both
    phases; each point's impulse lies in the friction cone; to round-off (1e-12 relative)."""
    d = PinOnWheel(v=1.0 + 1e-3 + 2e-6, R=1.0, f=1.0, s=0.0)
    tree = pin_tree(d)
    face = rough_arc(
        (0.0, -d.v), d.v - d.a, np.pi / 2 + 4.5e-4, np.pi / 2 - 4.5e-4, 60, rz=1e-6, seed=4
    )
    rim = arc_profile((0.0, 0.0), d.R, np.pi / 2 - 2e-3, np.pi / 2 + 2e-3, 401)
    contact = RoughContact(tree, PIN, face, rim, 0.0, mu=0.3, eps_n=0.5, eps_t=0.5)
    # lower the pin until its lowest vertex touches the rim
    probe = closed_contacts(contact, np.zeros(2), np.zeros(2), 0.0, np.inf)
    q = np.array([-probe.gap.min(), 0.0])
    u = np.array([-0.2, 3.0])  # falling and turning: an oblique impact
    cs = closed_contacts(contact, q, u, 0.0, 1e-12)
    assert cs.size >= 1
    M = mass_matrix(tree, q)
    G = cs.w @ np.linalg.solve(M, cs.w.T)
    gdot = cs.w @ u + cs.what
    assert gdot[: cs.size].min() < 0
    res = poisson_impact(G, gdot, np.full(cs.size, 0.3), 0.5, 0.5)
    u_after = u + np.linalg.solve(M, cs.w.T @ res.total)
    lost = kinetic_energy(tree, q, u) - kinetic_energy(tree, q, u_after)
    per_point = res.loss_compression.sum() + res.loss_expansion.sum()
    assert lost > 0
    assert per_point == pytest.approx(lost, rel=1e-10)
    m = cs.size
    for phase_n, phase_t in (
        (res.normal_compression, res.tangent_compression),
        (res.normal_expansion, res.tangent_expansion),
    ):
        assert np.all(phase_n >= 0)
        assert np.all(np.abs(phase_t) <= 0.3 * phase_n * (1 + 1e-9) + 1e-20)
    assert np.all(res.gdot_after[:m] >= -1e-12)  # no approach after the impact


def test_stepper_books_the_impact_of_a_rough_face_on_its_profiles():
    """The same drop through the stepper: its first step starts with the impact; the losses on
    both profiles add up to the kinetic + spring energy lost (drive at rest, dampers off) plus
    the timing work of the smooth steps' impulses."""
    d = PinOnWheel(v=1.0 + 1e-3 + 2e-6, R=1.0, f=1.0, s=0.0, c_r=0.0, c_phi=0.0)
    tree = pin_tree(d)
    face = rough_arc(
        (0.0, -d.v), d.v - d.a, np.pi / 2 + 4.5e-4, np.pi / 2 - 4.5e-4, 60, rz=1e-6, seed=4
    )
    rim = arc_profile((0.0, 0.0), d.R, np.pi / 2 - 2e-3, np.pi / 2 + 2e-3, 401)
    law = Unilateral(0.3, 0.5, 0.5, impact="poisson")
    pair = ContactPair("pin", Polyline(PIN, face), Wheel(rim, 0.0), law)
    system = assemble(Model(tree=tree, contacts=(pair,), gravity=(0.0, 0.0)))
    contact = RoughContact.from_pair(tree, pair)
    probe = closed_contacts(contact, np.zeros(2), np.zeros(2), 0.0, np.inf)
    stepper = EventDriven(system, 0.0, [-probe.gap.min(), 0.0], [-0.2, 3.0], 1e-8)
    report = stepper.step()
    assert stepper.events == [(0.0, "pin", "impact")] and stepper.n_impacts == 1
    assert report.work["dissipated_impact"] > 0
    total_w = stepper.loss_profile.sum() + stepper.loss_target.sum()
    assert stepper.loss_profile.sum() == pytest.approx(stepper.loss_target.sum(), rel=1e-12)
    for _ in range(200):
        stepper.step()
    total_w = stepper.loss_profile.sum() + stepper.loss_target.sum()
    lost = stepper.energy_0 - stepper.mechanical_energy()
    assert stepper.work["work_drives"] == 0.0
    # the smooth steps' impulses also give energy where they act along the start velocity
    # (work_contact_timing, >= 0; 1.3e-10 J here): the profiles' losses are that much more
    timing = stepper.work["work_contact_timing"]
    assert timing >= 0.0
    assert total_w - timing == pytest.approx(lost, rel=1e-9)


# ------------------------------------------------------------------------------------------
# A run: energy balance, apparent coefficient
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def short_run():
    return simulate_pin(replace(DATA, t_end=6e-5), h=1e-7)


def test_energy_balance_over_a_run(short_run, measured):
    """Work of the wheel's drive = change of mechanical energy + damper losses + sum of W(s) on
    both profiles. The bookkeeping of the contacts is exact and the midpoint rule conserves the
    springs' energy; M(phi) and the Coriolis forces are taken at the start of each step, which
    leaves 1e-6 to 3e-6 of the drive's work for h = 2.5e-8 to 1e-7 s: tolerance 1e-5."""
    run = short_run
    work = run.work["work_drives"]
    assert work > 1e-6
    measured(
        "energy balance error",
        abs(run.energy_error),
        1e-5 * work,
        unit="J",
        reference="1e-5 of the drive's work",
    )
    total_w = run.loss_face.sum() + run.loss_rim.sum()
    dissipated = run.work["dissipated_friction"] + run.work["dissipated_impact"]
    assert total_w == pytest.approx(dissipated, rel=1e-9)
    assert run.loss_face.sum() == pytest.approx(run.loss_rim.sum(), rel=1e-9)
    # the contacts dissipate: friction and impacts never give energy back (beyond round-off)
    assert run.loss_face.min() > -1e-15 * total_w
    assert run.n_impacts > 0


def test_the_pin_lands_and_slides(short_run):
    """After landing the pin rests on the wheel: r settles near -(clearance) and the contact
    carries about the preload k_r (p + r) (003 sec. 4.1), within 20 % over the late part."""
    run = short_run
    late = run.t > 3e-5
    dt = np.diff(np.concatenate(([0.0], run.t)))
    f_y = run.impulse[late, 1].sum() / dt[late].sum()
    spring = DATA.k_r * (DATA.p + run.q[late, 0].mean())
    assert f_y == pytest.approx(spring, rel=0.2)
    assert 0.05 < run.mu_xy < 0.2


@pytest.mark.parametrize("s", [-4e-4, -2e-4, 2e-4, 4e-4])
def test_smooth_one_point_model_gives_eq_32(s, measured):
    """Smooth profiles touching at one point (003 fig. 8): the pin's tip is a vertex (a
    three-vertex face whose side vertices stay 1 um above the smooth rim, 1 um segments). The
    apparent coefficient F_x / F_y is 003 eq. (32), cot(phi - phi_mu), exactly (1e-9) with phi
    the direction of the contact's normal impulse, and with cos phi = s / R within 0.2 %.
    Budget: the rim's segments tilt the normal by <= 5e-5 rad (0.05 %); the tip sits at
    s + a sin(phi_pin) with the pin's tilt phi_pin ~ 1e-3 rad or less over the run (0.1 %);
    observed 0.01 % to 0.05 %. At s = +-0.4 mm eq. (32) differs from mu by 28 %."""
    d = replace(
        DATA,
        s=s,
        rz_pin=0.0,
        rz_wheel=0.0,
        tip_radius=5e-5,
        n_pin=3,
        wheel_spacing=1e-6,
        t_end=8e-5,
    )
    run = simulate_pin(d, h=1e-7, average_from=0.5)
    expected = smooth_apparent_cof(s, d.R, d.mu)
    measured.close(
        f"apparent friction coefficient F_x / F_y, s = {s * 1e3:g} mm",
        run.mu_xy,
        expected,
        rtol=0.002,
        reference="003 eq. (32) with cos(phi) = s / R",
    )
    assert abs(expected - d.mu) > 0.1 * d.mu
    # all loaded contacts slide, lambda_T = mu lambda_N along +t: with phi the direction of
    # the normal part of the contact impulse, F_x / F_y = cot(phi - phi_mu) exactly
    late = run.t > 0.5 * d.t_end
    normal = run.normal_impulse[late].sum(axis=0)
    phi = np.arctan2(normal[1], normal[0])
    assert run.mu_xy == pytest.approx(1.0 / np.tan(phi - np.arctan(d.mu)), rel=1e-9)


def test_eq_32_closed_form(measured):
    """cot(phi - phi_mu) equals F_x / F_y of eq. (31) with F_T = mu F_N, and mu at s = 0."""
    s = np.linspace(-4e-4, 4e-4, 9)
    phi = np.arccos(s / DATA.R)
    fx = np.cos(phi) + DATA.mu * np.sin(phi)
    fy = np.sin(phi) - DATA.mu * np.cos(phi)
    measured.close(  # np.allclose's criterion: its default atol 1e-8 kept
        "apparent friction coefficient, eq. (32)",
        smooth_apparent_cof(s, DATA.R, DATA.mu),
        fx / fy,
        rtol=1e-13,
        atol=1e-8,
        reference="F_x / F_y of 003 eq. (31) with F_T = mu F_N",
    )
    assert smooth_apparent_cof(0.0, DATA.R, DATA.mu) == pytest.approx(DATA.mu, rel=1e-13)


# ------------------------------------------------------------------------------------------
# Run-in wear: 003 sec. 4.2
# ------------------------------------------------------------------------------------------


# ------------------------------------------------------------------------------------------
# Run-in wear: 003 sec. 4.2, eqs. (16)-(17)
# ------------------------------------------------------------------------------------------


def _participation(w):
    """(sum W)^2 / (n sum W^2): the fraction of vertices that effectively carry the loss (1:
    all alike; 1/n: one vertex)."""
    return w.sum() ** 2 / (w.size * np.sum(w**2))


@pytest.fixture(scope="module")
def wear_runs():
    """Five re-shapings of 0.3 ms runs with 50 vertices on the face (20 um apart) and h = 2e-7
    s: the demo's loop made small (about 10 s)."""
    data = replace(DATA, t_end=3e-4, n_pin=50, seed_pin=1, seed_wheel=11)
    return data, run_in(data, 5, h=2e-7)


@pytest.mark.slow
def test_run_in_spreads_the_loss_over_more_of_the_face(wear_runs):
    """003 fig. 5: at first a few asperities take the load; every re-shaped face carries its
    loss W on more vertices (the participation ratio grows) and max W / mean W is lower after
    five re-shapings. Not a law of the model: on seeds 1-5 of this setting both held; on five
    seeds of the demo's (1 ms, 100 vertices) the participation grew after every re-shaping in
    four (in one it came back to its first value after the fifth) and max W / mean W ended
    lower in three (it fluctuates by about +-30 % from one re-shaping to the next)."""
    _, runs = wear_runs
    first = _participation(runs[0].loss_face)
    assert first < 0.15  # a few vertices carry it
    for run in runs[1:]:
        assert _participation(run.loss_face) > first
    ratio = [r.loss_face.max() / r.loss_face.mean() for r in runs]
    assert ratio[-1] < ratio[0]


@pytest.mark.slow
def test_run_in_wears_peaks_and_rz_does_not_grow(wear_runs):
    """Each re-shaping moves vertices inward by at most u_max (003 eq. (17)), the most loaded
    one by exactly u_max. After five re-shapings the rim's Rz and the face's form-free Rz
    (least-squares line removed) are not larger than at first (so on seeds 1-5). A valley next
    to a loaded segment shares its loss (the loss at a point of a segment goes to both ends),
    so Rz may grow by a nanometre from one re-shaping to the next; and the face's plain Rz may
    grow a little where the pin's tilt brings a valley at its edge into contact (up to 5 % on
    seeds 1-5): bounded here by 10 %."""
    data, runs = wear_runs
    for before, after in zip(runs[:-1], runs[1:], strict=True):
        depth = np.linalg.norm(after.face.points - before.face.points, axis=0)
        assert depth.max() == pytest.approx(data.u_max, rel=1e-9)
        assert np.argmax(depth) == np.argmax(before.loss_face)
    assert form_free_rz(runs[-1].face) < form_free_rz(runs[0].face)
    assert peak_to_valley(runs[-1].face) < 1.1 * data.rz_pin
    assert peak_to_valley(runs[-1].rim) < data.rz_wheel


def test_same_seeds_same_profiles():
    """The profiles come from their seeds alone: equal for equal seeds, different otherwise."""
    assert np.array_equal(pin_face(DATA).points, pin_face(replace(DATA)).points)
    assert np.array_equal(wheel_rim(DATA).points, wheel_rim(replace(DATA)).points)
    other = replace(DATA, seed_pin=DATA.seed_pin + 1)
    assert not np.allclose(pin_face(other).points, pin_face(DATA).points, rtol=0, atol=1e-9)


# ------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, value, error",
    [
        ("a", 0.0, ValueError),
        ("k_r", -1.0, ValueError),
        ("mu", float("nan"), ValueError),
        ("eps_N", 1.5, ValueError),
        ("eps_T", 0.8, ValueError),  # above eps_N = 0.5
        ("nu", -0.1, ValueError),
        ("n_pin", 2, ValueError),
        ("n_pin", 10.5, ValueError),
        ("v", 0.0115, ValueError),  # pin inside the wheel
        ("tip_radius", 1e-3, ValueError),  # more than a / 2
        ("rz_pin", "rough", TypeError),
    ],
)
def test_bad_numbers_are_named(name, value, error):
    with pytest.raises(error, match=f"PinOnWheel.{name}"):
        replace(DATA, **{name: value})


def test_profiles_in_the_wrong_direction_are_rejected():
    contact = rough_pair(pin_on_wheel(replace(DATA, t_end=1e-5)).model)
    face = contact.profile
    flipped = type(face)(face.points[:, ::-1], face.reference[:, ::-1], face.reference_normals)
    with pytest.raises(ValueError, match="RoughContact.profile"):
        replace(contact, profile=flipped)
    rim = contact.wheel
    flipped = type(rim)(rim.points[:, ::-1], rim.reference[:, ::-1], rim.reference_normals)
    with pytest.raises(ValueError, match="RoughContact.wheel"):
        replace(contact, wheel=flipped)
    with pytest.raises(ValueError, match="RoughContact.eps_t"):
        replace(contact, eps_t=0.9)


def test_an_unsolvable_contact_problem_ends_the_run_with_its_message(monkeypatch):
    """The stepper keeps its last state, reports "failed" and the solver's message; the run
    returns the history up to there."""
    import fe_contact.steppers.event_driven as event_driven
    from fe_contact.coupling.setvalued import ContactSolverError

    def unsolvable(*args, **kwargs):
        raise ContactSolverError(3, 2000, 1e-4, 1e-10, 1.0, time=1.0)

    compiled = event_driven.kernels

    class Unsolved:  # the compiled smooth step finds no impulses: solve_coulomb's last resort
        def __getattr__(self, name):
            return getattr(compiled, name)

        @staticmethod
        def smooth_step(*args):
            return (*compiled.smooth_step(*args)[:5], False)

    class OneByOne(event_driven.EventDriven):  # every step by step(): the kernels above
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "batch": False})

    monkeypatch.setattr(event_driven, "kernels", Unsolved())
    monkeypatch.setattr(event_driven, "solve_coulomb", unsolvable)
    monkeypatch.setattr(event_driven, "EventDriven", OneByOne)
    run = simulate_pin(replace(DATA, t_end=2e-5), h=1e-7)
    assert run.status == "failed" and "did not converge for 3 closed contacts" in run.message
    assert 0 < run.t.size < 200 and run.t[-1] < 2e-5


@pytest.mark.slow  # 3.8 s of CPU (one core), 2026-11-25
def test_demo_writes_the_apparent_coefficient_table_and_figures(tmp_path):
    """A short demo run: apparent_cof.csv has the columns of the issue, its smooth column is
    003 eq. (32), the rough coefficient grows with s as eq. (32) does (the misalignment turns
    the contact normal), and every figure and re-shaped profile is written."""
    import csv

    from fe_contact.demos.pin_on_wheel import run as demo_run

    data = replace(DATA, t_end=6e-5)
    s_values = (-4e-4, 4e-4)
    demo_run(data, s_values, reshapings=1, h=2e-7, jobs=1, out=tmp_path)
    with open(tmp_path / "apparent_cof.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["s [m]", "mu_xy_smooth", "mu_xy_rough"]
    table = np.array(rows[1:], dtype=float)
    assert np.allclose(table[:, 0], s_values)
    assert np.allclose(table[:, 1], smooth_apparent_cof(table[:, 0], DATA.R, DATA.mu), rtol=1e-15)
    assert table[0, 2] < DATA.mu < table[1, 2]
    for name in ("apparent_cof", "r", "phi", "loss", "profiles", "contact_angles"):
        assert (tmp_path / f"{name}.png").stat().st_size > 0
    for k in (0, 1):
        assert (tmp_path / "profiles" / f"face_{k}.csv").exists()
        assert (tmp_path / "profiles" / f"rim_{k}.csv").exists()
