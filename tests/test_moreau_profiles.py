"""Moreau-Jean time stepping with curved profiles (``model.Profile``, Bauchau (000) eqs. 5-7,
14, 17) under set-valued Unilateral laws (Eugster-Glocker (004) secs. 4.4-4.5).

References, each independent of the curved-contact code:
* a closed B-spline disk (24 control points, radius within +-6.2e-7 m of R = 0.1 m) dropped on
  a straight ground Profile fixed in the plane bounces to e^2 H (Newton's impact law), within
  the tolerances of the Circle-on-Line case of test_moreau.py plus the profile's radial error;
* a body that only translates, with a parabolic (quadratic Bezier) foot, on an inclined
  straight ground Profile: its contact point is one material point (where the parabola's
  tangent is parallel to the incline), so the motion is that of a Point on a Line exactly:
  closed-form accelerations (stick for mu >= tan a, g (sin a - mu cos a) when it slips) and the
  Point-on-Line run to round-off;
* a Circle on the straight inclined ground Profile: the closed-form rolling and slipping
  accelerations of the Circle-on-Line case (2/3 g sin a; g (sin a - mu cos a), 2 mu g cos a / R);
* the B-spline disk rolling on the incline: the instantaneous centre is the contact point, so
  |v| = |omega| r_c with r_c = |c - p| in [r_min, r_max] of the profile, and energy
  conservation bounds the speed between the values of circles of radius r_min and r_max;
* the parabolic foot dropped on a cantilever (a Profile against a structure) comes to rest
  with the beam in the static equilibrium of the body's weight at the contact's material
  point (the beam's stiffness matrix, and P s^3 / 3 EI).
Every run: energy never increases across impacts (round-off; where a rolling B-spline's
contact point moves, single steps gain at most the stepper's timing work, work_contact_timing),
gaps >= -(stated tolerance), P_N >= 0 and |P_T| <= mu P_N.
"""

import numpy as np
import pytest
from test_moreau import drop_and_rebound

from fe_contact import (
    BeamSpec,
    Circle,
    ContactPair,
    Line,
    Model,
    Point,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)
from fe_contact.curves import Curve
from fe_contact.model import Compliant, Profile
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.steppers.moreau import MoreauJean

G = 9.81
RADIUS = 0.1
MASS = 100.0 * np.pi * RADIUS**2  # the disk of test_moreau.py: 3.14 kg
INERTIA = 0.5 * MASS * RADIUS**2
TOL = 1e-5  # sub-stepping penetration tolerance, m (as the disk on the string)
ANGLE = np.radians(30.0)
ALONG = np.array([np.cos(ANGLE), np.sin(ANGLE)])
NORMAL = np.array([-np.sin(ANGLE), np.cos(ANGLE)])


def disk_curve(n=24):
    """Closed uniform cubic B-spline on a regular n-gon (counter-clockwise: outward normal),
    scaled so that its radius lies in [R - d, R + d] (sampled at 20001 points; d = 6.2e-7 m
    for n = 24); its seam is near the top (eta = 0 and 1 are the same point). Returns
    (curve, r_min, r_max)."""
    angle = np.pi / 2 + 2 * np.pi * np.arange(n) / n
    points = np.c_[np.cos(angle), np.sin(angle)]
    points = np.vstack([points, points[:3]])  # wrap: a closed uniform B-spline
    r = np.hypot(*Curve.bspline(points, 3, clamped=False).position(np.linspace(0, 1, 20001)).T)
    scale = RADIUS / (0.5 * (r.min() + r.max()))
    return Curve.bspline(points * scale, 3, clamped=False), r.min() * scale, r.max() * scale


DISK, R_MIN, R_MAX = disk_curve()
FLAT = Profile(None, Curve.bezier([[1.0, 0.0], [-1.0, 0.0]]))  # right to left: normal up
INCLINE = Profile(None, Curve.bezier([2.0 * ALONG, -2.0 * ALONG]))  # normal (-sin a, cos a)


def disk_system(profile, target, law):
    return assemble(
        Model(
            tree=floating_body(MASS, INERTIA), contacts=(ContactPair("disk", profile, target, law),)
        )
    )


def total_energy(r):
    return r["kinetic_energy"] + r["potential_energy"] + r["elastic_energy"]


def assert_invariants(r, name, mu, gap_tol, energy_rise):
    """Gaps >= -gap_tol, P_N >= 0, |P_T| <= mu P_N, energy never up by more than energy_rise."""
    assert r.status == "finished", r.message
    assert r[f"{name}_gap"].min() >= -gap_tol, (r[f"{name}_gap"].min(), gap_tol)
    for rep in r.reports:
        for c in rep.contacts:
            assert np.all(c.gap >= -gap_tol)
            assert np.all(c.normal_impulse >= 0.0)
            assert np.all(np.abs(c.friction_impulse) <= (1 + 1e-12) * mu * c.normal_impulse)
    assert np.diff(total_energy(r)).max() <= energy_rise


# --------------------------------------------------------------------------------------------
# (1) bounce of a B-spline disk on a ground profile
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("restitution", "sub_stepping"), [(0.5, True), (0.5, False), (0.0, True)])
def test_bspline_disk_dropped_on_ground_profile_bounces_to_e_squared_height(
    restitution, sub_stepping
):
    H, h = 0.2, 2e-4
    system = disk_system(Profile(2, DISK), FLAT, Unilateral(0.3, restitution))
    r, height, first, tol, gap_tol = drop_and_rebound(system, restitution, sub_stepping, H, h)
    # the Circle-on-Line tolerances plus the profile's radial error d = R_MAX - RADIUS (the
    # lowest point lies within d of R below the centre)
    d = R_MAX - RADIUS
    tol += d
    peak = height[first:].max()
    assert abs(peak - restitution**2 * H) <= tol, (peak, restitution**2 * H, tol)
    # the impulse acts through the centre up to the profile's normal error (~ d N / R): the
    # disk neither turns nor drifts sideways beyond round-off of that order
    assert np.abs(r.q[:, 2]).max() < 1e-10 and np.abs(r.q[:, 0]).max() < 1e-10
    # energy never increases (round-off; with e = 0 the closing step's midpoint term is at most
    # m g^2 h^2, see test_moreau.py)
    assert_invariants(r, "disk", 0.3, gap_tol, MASS * G**2 * h**2)
    if restitution == 0.0:
        assert np.all(np.abs(height[first:]) <= gap_tol + d)  # stays down
        assert np.all(r["disk_n_closed"][first + 1 :] == 1)


# --------------------------------------------------------------------------------------------
# (2) incline: exact comparisons with Point/Circle on a Line
# --------------------------------------------------------------------------------------------

CURVATURE = 5.0  # the foot y = -0.05 + k x^2 (1/m), a quadratic Bezier is that parabola
FOOT_HALF = 0.1


def foot_tree():
    """A body (2 kg) that only translates: q = (y, x), body angle 0."""
    return TreeModel(
        (Body(0.0, 0.0), Body(2.0, 0.01)),
        (Joint("prismatic", None, angle=np.pi / 2), Joint("prismatic", 0, angle=-np.pi / 2)),
        gravity=(0.0, -G),
    )


def foot_curve():
    w, y0, k = FOOT_HALF, -0.05, CURVATURE
    return Curve.bezier([[-w, y0 + k * w * w], [0.0, y0 - k * w * w], [w, y0 + k * w * w]])


@pytest.mark.parametrize("mu", [0.8, 0.3])
def test_translating_parabolic_foot_on_incline_profile_moves_as_a_point_on_a_line(mu):
    # the foot's point whose tangent is parallel to the incline: n . (1, 2 k x) = 0
    x = np.tan(ANGLE) / (2 * CURVATURE)
    local = np.array([x, -0.05 + CURVATURE * x * x])
    start = -local - 1e-9 * NORMAL  # the point 1e-9 m into the incline: closed from step 1
    runs = {}
    for name, profile, target in (
        ("point", Point(1, tuple(local)), Line.incline(ANGLE)),
        ("foot", Profile(1, foot_curve()), INCLINE),
    ):
        model = Model(
            tree=foot_tree(), contacts=(ContactPair("c", profile, target, Unilateral(mu)),)
        )
        system = assemble(model)
        q0, u0 = system.initial_state([start[1], start[0]])
        h = 1e-3
        r = simulate(system, (0.0, 0.5), (q0, u0), method="moreau", h=h, keep_reports=True)
        assert_invariants(r, "c", mu, 1e-9 + 1e-15, 1e-12)
        assert np.all(r["c_n_closed"][1:] == 1)
        runs[name] = r
    foot, point = runs["foot"], runs["point"]
    # one material point of a translating body: the same motion (round-off of the geometry)
    np.testing.assert_allclose(foot.q, point.q, rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(foot.u, point.u, rtol=0.0, atol=1e-10)
    speed = foot.u[:, ::-1] @ -ALONG  # u = (y', x')
    if mu >= np.tan(ANGLE):
        assert np.abs(foot.u).max() < 1e-12 and set(foot["c_state"][1:]) == {"stick"}
    else:
        acceleration = (speed[-1] - speed[10]) / (foot.t[-1] - foot.t[10])
        expected = G * (np.sin(ANGLE) - mu * np.cos(ANGLE))
        np.testing.assert_allclose(acceleration, expected, rtol=1e-9)  # solver tol 1e-9
        assert set(foot["c_state"][1:]) == {"slip"}
        # friction dissipates: its work equals the loss of mechanical energy (balance 1e-12)
        assert foot["dissipated_friction"][-1] > 0.1
        assert np.max(np.abs(foot["energy_error"])) < 1e-12


@pytest.mark.parametrize("mu", [0.3, 0.1])
def test_circle_on_incline_profile_rolls_or_slips_in_closed_form(mu, measured):
    system = disk_system(Circle(2, RADIUS), INCLINE, Unilateral(mu))
    q0, u0 = system.initial_state([*(RADIUS * NORMAL), 0.0])
    h = 1e-3
    r = simulate(system, (0.0, 0.5), (q0, u0), method="moreau", h=h, keep_reports=True)
    speed = r.u[:, :2] @ -ALONG
    k0 = 100
    assert np.all(r["disk_n_closed"][50:] == 1)
    span = r.t[-1] - r.t[k0]
    acceleration = (speed[-1] - speed[k0]) / span
    spin_up = (r.u[-1, 2] - r.u[k0, 2]) / span
    if mu >= np.tan(ANGLE) / 3.0:
        reference = "rolling disk: a = 2/3 g sin(theta), angular a / R"
        measured.close(
            "acceleration",
            acceleration,
            2.0 / 3.0 * G * np.sin(ANGLE),
            rtol=1e-9,
            unit="m/s^2",
            reference=reference,
        )
        measured.close(
            "angular acceleration",
            spin_up,
            acceleration / RADIUS,
            rtol=1e-9,
            unit="rad/s^2",
            reference=reference,
        )
        assert set(r["disk_state"][k0:]) == {"stick"}
    else:
        reference = "slipping disk: a = g (sin - mu cos), angular 2 mu g cos / R"
        measured.close(
            "acceleration",
            acceleration,
            G * (np.sin(ANGLE) - mu * np.cos(ANGLE)),
            rtol=1e-9,
            unit="m/s^2",
            reference=reference,
        )
        measured.close(
            "angular acceleration",
            spin_up,
            2 * mu * G * np.cos(ANGLE) / RADIUS,
            rtol=1e-9,
            unit="rad/s^2",
            reference=reference,
        )
        assert set(r["disk_state"][k0:]) == {"slip"}
    assert_invariants(r, "disk", mu, G * h**2, MASS * G**2 * h**2)  # one free step: g h^2
    assert np.max(np.abs(r["energy_error"])) < 1e-12


def test_bspline_disk_rolls_down_incline_profile_as_its_radii_allow():
    """Rolling without slip: the contact point is the instantaneous centre, v = omega x (c - p)
    with |c - p| = r_c in [r_min, r_max]; with the energy lost L (>= 0, measured), (m r_c^2 +
    J) omega^2 / 2 = m g dh - L and v^2 = 2 (g dh - L / m) / (1 + J / (m r_c^2)) lies between
    the values for r_min and r_max (dh the drop of the centre, measured)."""
    system = disk_system(Profile(2, DISK), INCLINE, Unilateral(0.3))
    q0, u0 = system.initial_state([*(RADIUS * NORMAL), 0.0])
    h = 1e-3
    r = simulate(system, (0.0, 0.4), (q0, u0), method="moreau", h=h, keep_reports=True)
    # single steps may gain the timing work (work_contact_timing, steppers.impulse_work): the
    # rolling B-spline's contact point moves to material points whose normal velocity under u_A
    # is not zero (the radius undulates by 1.2e-6 m); bound per step as test_moreau.py, m g^2 h^2
    assert_invariants(r, "disk", 0.3, G * h**2 + (R_MAX - R_MIN), MASS * G**2 * h**2)
    energy = total_energy(r)
    drop = r.q[0, 1] - r.q[-1, 1]
    assert drop > 0.1  # it rolled (2/3 g sin a t^2 / 2 sin a = 0.13 m of drop at 0.4 s)
    # over the run: at most 1e-5 J above the start (2.5e-6 of m g dh = 4 J; measured 2.0e-6 J)
    assert np.max(energy - energy[0]) <= 1e-5
    k0 = 50
    assert np.all(r["disk_n_closed"][k0:] == 1) and set(r["disk_state"][k0:]) == {"stick"}
    v = np.hypot(r.u[k0:, 0], r.u[k0:, 1])
    omega = np.abs(r.u[k0:, 2])
    # |v| / |omega| = r_c (relative 1e-8: the solver's tolerance 1e-9 m/s on slip ~ 1 m/s)
    assert np.all(v >= (1 - 1e-8) * R_MIN * omega) and np.all(v <= (1 + 1e-8) * R_MAX * omega)
    # the discrete balance (contact terms included) closes to 1e-12 J
    assert np.max(np.abs(r["energy_error"])) < 1e-12
    lost = energy[0] - energy[-1]
    assert -1e-12 <= lost <= 1e-5
    low = 2 * (G * drop - lost / MASS) / (1 + INERTIA / (MASS * R_MIN**2))
    high = 2 * (G * drop) / (1 + INERTIA / (MASS * R_MAX**2))
    assert low * (1 - 1e-9) <= v[-1] ** 2 <= high * (1 + 1e-9), (low, v[-1] ** 2, high)


# --------------------------------------------------------------------------------------------
# (3) a structure: the parabolic foot resting on a cantilever
# --------------------------------------------------------------------------------------------


def test_parabolic_foot_comes_to_rest_on_a_cantilever_in_static_equilibrium():
    """The translating body (2 kg) with the parabolic foot dropped from 1 cm onto a cantilever
    (EI = 2e3 N m^2, 1 m, 10 elements, Rayleigh beta = 1e-2 s), e = 0, mu = 0.8, at x = 0.7 m:
    the Profile-structure pair (000 eqs. 5-7 on (eta, s), rows of eq. 17). At rest the body
    carries its weight through the contact, so the beam is in the static equilibrium of the
    vertical force m g at the contact's material point s: K q = R(s)^T (0, -m g), solved here
    with the beam's own stiffness matrix (tip deflection at s ~ P s^3 / 3 EI = 1.1e-3 m).
    Tolerance 1e-6 (m and rad, 4e-4 of the largest coordinate): what the remaining high-mode
    vibration leaves after 0.5 s (measured 7e-8)."""
    ei = 2e3
    spec = BeamSpec(
        length=1.0,
        youngs_modulus=ei / 1e-8,
        density=2000.0,
        area=1e-3,
        second_moment=1e-8,
        n_elements=10,
        rayleigh_beta=1e-2,
    )
    law = Unilateral(0.8)
    model = Model(
        tree=foot_tree(),
        structures={"beam": spec},
        contacts=(ContactPair("foot", Profile(1, foot_curve()), "beam", law),),
        structure_gravity=False,
    )
    system = assemble(model)
    q0, u0 = system.initial_state([0.06, 0.7])  # foot's lowest point 1 cm above the beam
    r = simulate(
        system,
        (0.0, 0.5),
        (q0, u0),
        method="moreau",
        h=1e-3,
        keep_reports=True,
        penetration_tolerance=TOL,
    )
    # a closed contact may drift by 1e-3 tol per sub-step beyond its start gap (the stepper's
    # penetration check): the gap bound tol (1 + 1e-3 n_substeps); energy never up (round-off)
    substeps = sum(rep.n_substeps for rep in r.reports)
    assert_invariants(r, "foot", 0.8, TOL * (1 + 1e-3 * substeps), 1e-12)
    contact = r.reports[-1].contacts[0]
    assert contact.state == "stick"
    beam, sl = system.structures["beam"], system.layout.structure("beam")
    s = float(contact.parameter[0])
    assert abs(s - 0.7) < 1e-3  # it landed where dropped (the foot's vertex, tilted 2e-3 rad)
    cp = beam.curve(s, r.q[-1][sl])
    load = np.zeros(beam.n_dofs)
    np.add.at(load, cp.dofs, cp.rows.T @ np.array([0.0, -2.0 * G]))
    static = np.linalg.solve(beam.stiffness_matrix.toarray(), load)
    assert np.abs(static).max() > 1e-3  # the beam really bends under the foot
    np.testing.assert_allclose(r.q[-1][sl], static, rtol=0.0, atol=1e-6)
    # the deflection at the load point against the closed form P s^3 / (3 EI) (6e-4 relative:
    # the load point lies 2.4e-4 m off the node at 0.7 m, where the cubic elements are exact)
    np.testing.assert_allclose(cp.position[1], -2.0 * G * s**3 / (3 * ei), rtol=1e-3)


# --------------------------------------------------------------------------------------------
# (4) compliant laws stay with the generalised-alpha stepper
# --------------------------------------------------------------------------------------------


def test_compliant_profile_pair_is_rejected_by_moreau_naming_the_contact():
    system = disk_system(Profile(2, DISK), FLAT, Compliant("hertz", 1e7))
    q0, u0 = system.initial_state([0.0, 0.2, 0.0])
    with pytest.raises(ValueError, match=r"contacts \['disk'\] have Compliant laws.*generalized"):
        simulate(system, (0.0, 0.01), (q0, u0), method="moreau", h=1e-3)
    with pytest.raises(ValueError, match="Compliant"):
        MoreauJean(system, 0.0, q0, u0)
