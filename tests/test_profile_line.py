"""A curved Profile against a rigid Line (``coupling.profile_line``): the support point of the
profile in the direction of minus the line's normal, Bauchau (000), eqs. (5)-(7), (14), (17)
with a straight second curve, under the generalised-alpha stepper's contact states."""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import minimize_scalar

from fe_contact.coupling.constraints import contact_at
from fe_contact.coupling.kinematics import ContactLeftStructure
from fe_contact.curves import Curve
from fe_contact.model import (
    Compliant,
    ContactPair,
    Line,
    Model,
    Profile,
    Sliding,
    Unilateral,
)
from fe_contact.multibody.builders import floating_body
from fe_contact.multibody.drive import Drive
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

G, M, J = 9.81, 2.0, 0.01
THETA = 0.3
ALONG = np.array([np.cos(THETA), np.sin(THETA)])


def parabola(a: float, b: float) -> Curve:
    """The foot y = -b/2 + b x^2 / (2 a^2), |x| <= a: vertex (0, -b/2), curvature radius
    a^2 / b there; the quadratic Bezier of (-a, 0), (0, -b), (a, 0) (counter-clockwise)."""
    return Curve.bezier([[-a, 0.0], [0.0, -b], [a, 0.0]])


def parabola_by_hand(a: float, b: float, eta: float):
    """p0, p1, p2 of ``parabola(a, b)`` written out (Bernstein polynomials), not via Curve."""
    p0 = np.array([a * (2 * eta - 1), -2 * b * eta * (1 - eta)])
    p1 = np.array([2 * a, -2 * b * (1 - 2 * eta)])
    p2 = np.array([0.0, 4 * b])
    return p0, p1, p2


def foot_model(target, law, a=0.1, b=0.2):
    tree = floating_body(M, J, gravity=(0.0, -G))
    pair = ContactPair("foot", Profile(2, parabola(a, b)), target, law)
    return assemble(Model(tree=tree, contacts=(pair,), gravity=(0.0, -G)))


STRAIGHT = Profile(None, Curve.bezier([3.0 * ALONG, 0.5 * ALONG, -3.0 * ALONG]))

LAWS = {
    "rolls": (Sliding(0.8), 0.1),
    "slips": (Sliding(0.05), 0.1),
    "impact": (Unilateral(0.8), 0.11),
    "compliant": (Compliant("linear", 1e5, 0.5, 0.8, v0=1e-2, rolling=True), 0.105),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(LAWS))
def test_foot_on_an_incline_line_moves_as_on_the_straight_profile(case):
    """A body with a parabolic foot (curvature radius 5 cm at its vertex) on the incline
    (theta = 0.3) given as a Line moves as on the same incline given as a straight Bezier
    Profile fixed in the plane (the profile-profile path, 000 eqs. 5-7), to the Newton
    tolerance (1e-9 m, rad): rolling (hard contact, mu = 0.8: stick = rolling), slipping
    (mu = 0.05), dropped from 1 cm with a Unilateral law (an impact, then rolling) and with a
    rolling Compliant law (linear, 1e5 N/m). Same contact states and events on both.

    The impact is the exception to the Newton tolerance: the two geometries give the same gap
    to an ulp or two, but the impact's location ends on a last sub-step whose length (1e-12 to
    1e-7 s) follows those ulps, and the sub-steps after it grow from that length (9 or 21 in
    the step of the impact), so the rolling that follows is integrated on other sub-steps:
    measured 2.3e-9 rad at 0.25 s with OpenBLAS's Prescott kernels, 2e-12 with the default
    ones; bound 1e-8, still far below the scheme's own error at h = 1 ms."""
    law, y0 = LAWS[case]
    runs = []
    for target in (STRAIGHT, Line.incline(THETA)):
        system = foot_model(target, law)
        q0, u0 = system.initial_state([0.0, y0, 0.0], [0.0, 0.0, 0.0])
        # y0 is set by hand, 2.3 mm off the incline for the Sliding laws: the stepper
        # projects the start onto the contact (start_tol=None)
        result = simulate(system, (0.0, 0.25), (q0, u0), h=1e-3, start_tol=None)
        assert result.status == "finished", result.message
        runs.append(result)
    assert np.max(np.abs(runs[0].q - runs[1].q)) < (1e-8 if case == "impact" else 1e-9)
    assert list(runs[0]["foot_state"]) == list(runs[1]["foot_state"])
    assert abs(runs[1].q[-1, 0]) > 0.02  # it moved down the incline: 2 cm and more
    if case == "rolls":
        assert set(runs[1]["foot_state"]) == {"stick"}
        assert np.max(np.abs(runs[1]["foot_slip_velocity"])) < 1e-12
        assert np.max(np.abs(runs[1]["dissipated_friction"])) == 0.0
    if case == "slips":
        assert set(runs[1]["foot_state"]) == {"slip"}


def test_frictionless_foot_slides_with_g_sin_theta_and_carries_m_g_cos_theta(measured):
    """Turned with the incline (angle theta), the foot's vertex is its support point and lies
    on the body's axis through the mass centre: the frictionless contact force passes through
    the mass centre, so the body slides without turning, at g sin(theta), and the normal
    force is m g cos(theta) (closed form; the support point found at an inner parameter of
    the turned curve). Tolerance 1e-10 relative (exact quadratic motion)."""
    line = Line.incline(THETA)
    system = foot_model(line, Sliding(0.0))
    q0, u0 = system.initial_state([*(0.1 * np.array(line.normal)), THETA], [0.0, 0.0, 0.0])
    result = simulate(system, (0.0, 0.3), (q0, u0), h=1e-3)
    assert result.status == "finished", result.message
    t = result.t
    s = -(result.q[:, :2] - q0[:2]) @ ALONG
    measured.close(
        "distance slid",
        s,
        0.5 * G * np.sin(THETA) * t * t,
        rtol=1e-10,
        atol=1e-14,
        unit="m",
        reference="g sin(theta) t^2 / 2",
    )
    assert np.max(np.abs(result.q[:, 2] - THETA)) < 1e-12
    normal = result["foot_normal_force"]
    measured.close(  # np.allclose's criterion: its default atol 1e-8 kept
        "normal force",
        normal,
        M * G * np.cos(THETA),
        rtol=1e-10,
        atol=1e-8,
        unit="N",
        reference="m g cos(theta)",
    )
    assert np.max(np.abs(result["foot_gap"])) < 1e-12


def _lowest(a, b, phi):
    """min over the foot of the height of its points, the body turned by phi (independent:
    a bounded scalar minimisation of the hand-written Bezier)."""

    def height(eta):
        p0 = parabola_by_hand(a, b, eta)[0]
        return np.sin(phi) * p0[0] + np.cos(phi) * p0[1]

    best = minimize_scalar(height, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-12})
    return best.fun, best.x


def _arc(a, b, eta0, eta1) -> float:
    return quad(lambda e: np.hypot(*parabola_by_hand(a, b, e)[1]), eta0, eta1, epsabs=1e-14)[0]


@pytest.mark.slow
def test_rocking_foot_rolls_with_the_small_angle_period_and_the_rolled_arc():
    """A rocker (foot of curvature radius rho = 0.2 m at its vertex, mass centre c = 0.1 m
    above it, mu = 0.8) on a horizontal Line, let go at phi0 = 0.01 rad, rolls without
    slipping: small-angle period 2 pi sqrt((J + m c^2) / (m g (rho - c))) (0.777 s; the
    nonlinear and integration errors are ~phi0^2 and (omega h)^2, below 1e-4 relative), and
    its mass centre's x follows the arc length rolled on the floor, x = x_c0 + L(eta0 -> eta)
    - (R p0(eta))_x (the holonomic rolling constraint, integrated by the stepper from W_T u =
    0: 1e-10 m over 0.85 s, of the 2 mm it travels; measured 7e-13 m). Kinetic + potential
    energy constant to 1e-9 J (measured 5e-12 J); the period is off by 7.6e-6."""
    a, b = 0.2, 0.2
    rho, c = a * a / b, b / 2
    phi0 = 0.01
    omega = np.sqrt(M * G * (rho - c) / (J + M * c * c))
    period = 2.0 * np.pi / omega
    system = foot_model(Line((0.0, 0.0), (0.0, 1.0)), Sliding(0.8), a, b)
    low0, eta0 = _lowest(a, b, phi0)
    q0, u0 = system.initial_state([0.0, -low0, phi0], [0.0, 0.0, 0.0])
    result = simulate(system, (0.0, 1.1 * period), (q0, u0), h=1e-3)
    assert result.status == "finished", result.message
    assert set(result["foot_state"]) == {"stick"}
    assert np.max(np.abs(result["energy_error"])) < 1e-9
    phi, t = result.q[:, 2], result.t
    i = np.flatnonzero((phi[:-1] > 0.0) != (phi[1:] > 0.0))
    crossings = t[i] - phi[i] * (t[i + 1] - t[i]) / (phi[i + 1] - phi[i])
    assert len(crossings) == 2
    assert crossings[1] - crossings[0] == pytest.approx(0.5 * period, rel=1e-4)
    x_c0 = q0[0] + (np.array([np.cos(phi0), -np.sin(phi0)]) @ parabola_by_hand(a, b, eta0)[0])
    for k in range(0, len(t), 97):
        _, eta = _lowest(a, b, phi[k])
        p0 = parabola_by_hand(a, b, eta)[0]
        x = x_c0 + _arc(a, b, eta0, eta) - (np.cos(phi[k]) * p0[0] - np.sin(phi[k]) * p0[1])
        assert abs(result.q[k, 0] - x) < 1e-10


@pytest.mark.slow
def test_rolling_foot_on_the_line_balances_energy_at_second_order():
    """Rolling down the incline Line (mu = 0.8) the friction does no work; the rolling row
    W_T u = 0 is integrated by the trapezoidal rule per step, so the balance error over 0.3 s
    falls about fourfold when h is halved (second order; 2.2e-7 J and 5.6e-8 J at h = 1e-3 s
    and 5e-4 s, of the 0.32 J released)."""
    system = foot_model(Line.incline(THETA), Sliding(0.8))
    q0, u0 = system.initial_state([0.0, 0.1, 0.0], [0.0, 0.0, 0.0])
    errors = []
    for h in (1e-3, 5e-4):
        result = simulate(system, (0.0, 0.3), (q0, u0), h=h, start_tol=None)  # projected
        assert result.status == "finished", result.message
        assert set(result["foot_state"]) == {"stick"}
        errors.append(np.max(np.abs(result["energy_error"])))
    assert errors[0] < 5e-7
    assert 3.0 < errors[0] / errors[1] < 5.0


def belt_model(law, speed):
    """A belt (body 0, prismatic along x, driven at ``speed``) carrying a horizontal Line, and
    the rocker (bodies 1-3: x, y sliders and the turning body 3) on it."""
    bodies = (Body(1.0, 0.0), Body(0.0, 0.0), Body(0.0, 0.0), Body(M, J))
    joints = (
        Joint("prismatic", None, angle=0.0),
        Joint("prismatic", None, angle=0.0),
        Joint("prismatic", 1, angle=0.5 * np.pi),
        Joint("revolute", 2, angle=-0.5 * np.pi),
    )
    tree = TreeModel(bodies, joints, gravity=(0.0, -G))
    pair = ContactPair("foot", Profile(3, parabola(0.2, 0.2)), Line((0.0, 0.0), (0.0, 1.0), 0), law)
    drive = Drive.constant_velocity(0, 0.0, speed)
    return assemble(Model(tree=tree, contacts=(pair,), drives=(drive,), gravity=(0.0, -G)))


@pytest.mark.slow
@pytest.mark.parametrize("law", [Sliding(0.8), Sliding(0.05)], ids=["rolls", "slips"])
def test_on_a_moving_belt_the_relative_motion_is_that_on_the_fixed_floor(law):
    """A Line on a translating body (a belt at 0.3 m/s): the rocker set down on it with the
    belt's velocity and a spin of 0.5 rad/s slips, then sticks (rolls on the moving line),
    relative to the belt exactly as on a fixed floor (Galilean invariance): 1e-9 m, rad, the
    same events to 1e-9 s. The belt moves at constant speed, so its drive force balances the
    friction force that the foot puts on it (1e-9 N)."""
    speed, phi0 = 0.3, 0.05
    low0, _ = _lowest(0.2, 0.2, phi0)
    fixed = foot_model(Line((0.0, 0.0), (0.0, 1.0)), law, 0.2, 0.2)
    q0, u0 = fixed.initial_state([0.0, -low0, phi0], [0.0, 0.0, 0.5])
    still = simulate(fixed, (0.0, 0.4), (q0, u0), h=1e-3)
    belt = belt_model(law, speed)
    q0, u0 = belt.initial_state([0.0, 0.0, -low0, phi0], [speed, speed, 0.0, 0.5])
    moving = simulate(belt, (0.0, 0.4), (q0, u0), h=1e-3)
    for result in (still, moving):
        assert result.status == "finished", result.message
    assert np.allclose(moving.t, still.t, rtol=0.0, atol=1e-12)
    assert np.allclose(moving.q[:, 0], speed * moving.t, rtol=0.0, atol=1e-12)
    relative = moving.q[:, 1:] - np.outer(moving.q[:, 0], [1.0, 0.0, 0.0])
    assert np.max(np.abs(relative - still.q)) < 1e-9
    assert list(moving["foot_state"]) == list(still["foot_state"])
    assert [e[1:] for e in moving.events] == [("foot", "stick")]
    assert moving.events[0][0] == pytest.approx(still.events[0][0], abs=1e-9)
    assert still["foot_state"][0] == "slip" and still["foot_state"][-1] == "stick"
    friction = moving["foot_friction_force"]
    assert np.max(np.abs(friction)) > 0.5
    assert np.allclose(moving["drive_0_force"], friction, rtol=0.0, atol=1e-9)


def test_gap_rows_and_remainders_against_an_independent_derivation():
    """On the belt model at a turned, moving state: the gap is the least height of the foot
    above the line (bounded minimisation of the hand-written Bezier, 1e-12 m); W_N is the
    gradient of that gap (central differences, 1e-8); W_T = t . dZ/dq at the support point's
    eta minus the belt's t . e_x (hand-written: dZ/dphi = e_z x R p0, 1e-12); A = g'' along
    q + t u at constant u (second differences of the independent gap, 1e-5 relative);
    A_T = t . (-phi'^2 R p0 + phi' eta' e_z x R p1) with eta' = -phi' n . (e_z x R p1) /
    n . R p2 from n . R p1(eta) = 0 (1e-6 relative)."""
    a = b = 0.2
    system = belt_model(Sliding(0.3), 0.3)
    line_y = 0.0
    q = np.array([0.04, 0.02, 0.12, 0.35])
    u = np.array([0.3, -0.2, 0.1, 1.7])

    def gap(qq):
        low, eta = _lowest(a, b, qq[3])
        return qq[2] + low - line_y, eta

    kin = contact_at(system, 0, q, u)
    g, eta = gap(q)
    assert kin.gap == pytest.approx(g, abs=1e-12)
    assert kin.profile_parameter == pytest.approx(eta, abs=1e-6)
    eps = 1e-6
    grad = np.array([(gap(q + eps * e)[0] - gap(q - eps * e)[0]) / (2 * eps) for e in np.eye(4)])
    assert np.allclose(kin.w_normal, grad, rtol=0.0, atol=1e-8)
    phi = q[3]
    rot = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
    perp = np.array([[0.0, -1.0], [1.0, 0.0]])  # e_z x
    p0, p1, p2 = parabola_by_hand(a, b, kin.profile_parameter)
    n, t = np.array([0.0, 1.0]), np.array([1.0, 0.0])
    w_t = np.array([-t[0], t[0], t[1], t @ perp @ rot @ p0])
    assert np.allclose(kin.w_tangent, w_t, rtol=0.0, atol=1e-12)
    assert kin.slip_velocity == pytest.approx(w_t @ u, abs=1e-12)
    delta = 1e-4
    second = (gap(q + delta * u)[0] - 2 * g + gap(q - delta * u)[0]) / delta**2
    assert kin.remainder == pytest.approx(second, rel=1e-5)
    w = u[3]
    eta_rate = -w * (n @ perp @ rot @ p1) / (n @ rot @ p2)
    a_t = t @ (-w * w * rot @ p0 + w * eta_rate * perp @ rot @ p1)
    assert kin.tangent_remainder == pytest.approx(a_t, rel=1e-6)


def test_far_gap_is_a_lower_bound_and_an_end_is_no_contact_point():
    """Far above the line (no warm start) the gap is the control polygon's least height, a
    lower bound of the true gap (convex hull); turned by 1.2 rad the foot's lowest point is
    an end of the open curve (the support point lies beyond it), and upside down its only
    point with n . T = 0 is its top (the outward normal along n): no contact point, as for two
    profiles (``ContactLeftStructure`` for a closed pair)."""
    system = foot_model(Line((0.0, 0.0), (0.0, 1.0)), Sliding(0.3))
    q = np.array([0.0, 0.5, 0.0])
    kin = contact_at(system, 0, q, np.zeros(3))
    assert kin.gap == pytest.approx(0.5 - 0.2)  # the middle control point at y = -0.2
    assert kin.gap <= 0.5 - 0.1
    system = foot_model(Line((0.0, 0.0), (0.0, 1.0)), Sliding(0.3))
    with pytest.raises(ContactLeftStructure):  # its end (-0.036, -0.093) m is 3 mm down
        contact_at(system, 0, np.array([0.0, 0.09, 1.2]), np.zeros(3))
    system = foot_model(Line((0.0, 0.0), (0.0, 1.0)), Sliding(0.3))
    with pytest.raises(ContactLeftStructure):  # upside down: n . T = 0 at the top only
        contact_at(system, 0, np.array([0.0, -0.001, np.pi]), np.zeros(3))


def test_profile_on_a_line_refuses_what_cannot_work():
    """Refused by name: a fixed Profile on a fixed Line (nothing moves), a Profile on the
    body that carries its Line and a grid search."""
    foot = parabola(0.1, 0.2)
    floor = Line((0.0, 0.0), (0.0, 1.0))
    with pytest.raises(ValueError, match=r"profile\.body"):
        ContactPair("foot", Profile(None, foot), floor, Sliding(0.3))
    with pytest.raises(ValueError, match=r"target\.body"):
        ContactPair("foot", Profile(2, foot), Line((0.0, 0.0), (0.0, 1.0), 2), Sliding(0.3))
    with pytest.raises(ValueError, match="search"):
        ContactPair("foot", Profile(2, foot), floor, Unilateral(), search="grid", n_candidates=5)


def test_moreau_jean_drops_the_foot_on_the_line_as_on_the_straight_profile():
    """Under Moreau-Jean (a closest-point candidate with the same gap and rows) the foot
    dropped from 1 cm onto the incline (Unilateral, mu = 0.8, e = 0.5) moves as on the
    straight Profile, to 1e-9 m, rad (Newton tolerance of the two support-point searches)."""
    runs = []
    for target in (STRAIGHT, Line.incline(THETA)):
        system = foot_model(target, Unilateral(0.8, restitution_normal=0.5))
        q0, u0 = system.initial_state([0.0, 0.11, 0.0], [0.0, 0.0, 0.0])
        result = simulate(system, (0.0, 0.2), (q0, u0), method="moreau", h=1e-3)
        assert result.status == "finished", result.message
        runs.append(result)
    assert np.max(np.abs(runs[0].q - runs[1].q)) < 1e-9
    assert np.ptp(runs[1].q[:, 1]) > 0.005  # it fell and bounced


@pytest.mark.slow  # 3.9 s of CPU (one core), 2026-11-25
def test_compliant_contact_stops_slipping_into_rolling_with_a_booked_impulse():
    """A rolling Compliant law switches to rolling where |v_t| falls below v0 / 2 (000 sec. 6):
    the slip velocity jumps to zero by a tangential impulse whose kinetic energy loss,
    -P_T v_t / 2 > 0, is booked (``dissipated_impact``). The foot dropped on the incline hops
    (open, slip, roll, five times in 0.25 s); its balance then converges with the step, 3.8e-4 J
    and 3.8e-5 J at h = 5e-4 s and 2.5e-4 s (without the impulse, the coordinate partition
    recovered the rolling velocities with an unbooked change of kinetic energy: 6.0e-3 J and
    5.7e-3 J, whatever the step)."""
    law = Compliant("linear", 1e5, 0.5, 0.8, v0=1e-2, rolling=True)
    system = foot_model(Line.incline(THETA), law)
    q0, u0 = system.initial_state([0.0, 0.105, 0.0], [0.0, 0.0, 0.0])
    errors = []
    for h in (5e-4, 2.5e-4):
        result = simulate(system, (0.0, 0.25), (q0, u0), h=h)
        assert result.status == "finished", result.message
        assert result.event_counts()["stick"] >= 3  # it rolls, and more than once
        loss = result["dissipated_impact"]
        assert loss[-1] > 0.0 and np.all(np.diff(loss) >= 0.0)
        errors.append(np.max(np.abs(result["energy_error"])))
    assert errors[0] < 1e-3 and errors[1] < 2e-4
    assert errors[1] < 0.5 * errors[0]
