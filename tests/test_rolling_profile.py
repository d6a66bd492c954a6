"""A disk rolling or slipping on a rigid Bezier-described incline (hard contact, model.Sliding
with stick = rolling, Bauchau (000) sec. 5)."""

import numpy as np
import pytest

from fe_contact.curves import Curve
from fe_contact.model import Circle, ContactPair, Model, Profile, Sliding
from fe_contact.multibody.builders import floating_body
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

G, R, M = 9.81, 0.1, 2.0


def disk_on_incline(theta, mu):
    d = np.array([np.cos(theta), np.sin(theta)])
    ground = Profile(None, Curve.bezier([3.0 * d, 0.5 * d, -3.0 * d]))  # counter-clockwise
    tree = floating_body(M, 0.5 * M * R * R, gravity=(0.0, -G))
    pair = ContactPair("disk", Circle(2, R), ground, Sliding(mu))
    system = assemble(Model(tree=tree, contacts=(pair,), gravity=(0.0, -G)))
    normal = np.array([-np.sin(theta), np.cos(theta)])
    q0, u0 = system.initial_state([*(R * normal), 0.0], [0.0, 0.0, 0.0])
    return system, q0, u0, d


@pytest.mark.parametrize("theta", [0.0, 0.3])
def test_disk_rolls_with_two_thirds_g_sin_theta(theta):
    """mu = 0.5 > tan(theta) / 3: the disk rolls, its centre accelerates down the incline at
    (2/3) g sin(theta) (uniform disk, J = m R^2 / 2), it turns by s / R, the friction does no
    work (kinetic + potential constant to the step's 1e-9 J) and the static friction force
    is m g sin(theta) / 3. Tolerance 1e-8 relative (exact quadratic motion, h = 1e-3 s)."""
    system, q0, u0, d = disk_on_incline(theta, 0.5)
    result = simulate(system, (0.0, 0.5), (q0, u0), h=1e-3, keep_reports=True)
    assert result.success, result.message
    t = result.t[-1]
    s = -(result.q[-1, :2] - q0[:2]) @ d  # distance travelled down the incline
    a = 2.0 / 3.0 * G * np.sin(theta)
    assert np.isclose(s, 0.5 * a * t * t, rtol=1e-8, atol=1e-12)
    assert np.isclose(result.q[-1, 2], s / R, rtol=1e-8, atol=1e-12)  # rolls: phi = s / R
    assert np.max(np.abs(result["dissipated_friction"])) == 0.0
    assert np.max(np.abs(result["energy_error"])) < 1e-9
    report = result.reports[-1].contacts[0]
    assert report.state == "stick"
    assert np.isclose(
        abs(report.friction_force[0]), M * G * np.sin(theta) / 3, rtol=1e-8, atol=1e-9
    )


def test_disk_slips_below_the_rolling_limit():
    """mu = 0.05 < tan(0.3)/3 = 0.103: the disk slips down: its centre accelerates at
    g (sin - mu cos), it spins up at 2 mu g cos / R, and the friction dissipates mu m g cos
    times the slip distance (kinetic + potential + dissipated constant). Tolerance 1e-8."""
    theta, mu = 0.3, 0.05
    system, q0, u0, d = disk_on_incline(theta, mu)
    result = simulate(system, (0.0, 0.5), (q0, u0), h=1e-3)
    assert result.success, result.message
    t = result.t[-1]
    s = -(result.q[-1, :2] - q0[:2]) @ d
    a = G * (np.sin(theta) - mu * np.cos(theta))
    alpha = 2.0 * mu * G * np.cos(theta) / R
    assert np.isclose(s, 0.5 * a * t * t, rtol=1e-8)
    assert np.isclose(result.u[-1, 2], alpha * t, rtol=1e-8)
    slip = s - R * result.q[-1, 2]
    friction_work = mu * M * G * np.cos(theta) * slip
    assert np.isclose(result["dissipated_friction"][-1], friction_work, rtol=1e-6)
    assert abs(result["energy_error"][-1]) < 1e-6 * friction_work


@pytest.mark.slow
def test_ground_profile_as_the_pairs_profile_rolls_a_curved_foot_as_the_target_does():
    """A Profile fixed in the plane may be the pair's profile and a tree body's Profile its
    target: the contact is the same two curves with the roles swapped (000 eqs. 5-7 are
    symmetric in them), so a body with a parabolic foot (curvature radius 5 cm at its lowest
    point) rolling down the incline without slipping (mu = 0.8) must move as it does with the
    roles the other way round, to the Newton tolerance (1e-9 m, rad). While it rolls (state
    stick: the velocity-level row W_T u = 0) the slip velocity is zero to round-off, the gap
    stays closed and the friction does no work."""
    theta = 0.3
    d = np.array([np.cos(theta), np.sin(theta)])
    ground = Profile(None, Curve.bezier([3.0 * d, 0.5 * d, -3.0 * d]))
    foot = Profile(2, Curve.bezier([[-0.1, 0.0], [0.0, -0.2], [0.1, 0.0]]))
    runs = []
    for profile, target in ((foot, ground), (ground, foot)):
        tree = floating_body(M, 0.01, gravity=(0.0, -G))
        pair = ContactPair("foot", profile, target, Sliding(0.8))
        system = assemble(Model(tree=tree, contacts=(pair,), gravity=(0.0, -G)))
        q0, u0 = system.initial_state([0.0, 0.1, 0.0], [0.0, 0.0, 0.0])
        # the foot is placed by hand 2.3 mm off the incline: projected (start_tol=None)
        result = simulate(system, (0.0, 0.3), (q0, u0), h=1e-3, start_tol=None)
        assert result.success, result.message
        assert set(result["foot_state"]) == {"stick"}
        assert np.max(np.abs(result["foot_slip_velocity"])) < 1e-12
        assert np.max(np.abs(result["foot_gap"])) < 1e-12
        assert np.max(np.abs(result["dissipated_friction"])) == 0.0
        runs.append(result)
    assert np.max(np.abs(runs[0].q - runs[1].q)) < 1e-9
    assert abs(runs[0].q[-1, 0] - runs[0].q[0, 0]) > 0.05  # it did roll: 5 cm and more


@pytest.mark.slow  # 4.8 s of CPU (one core), 2026-11-25
def test_rolling_curved_foot_balances_energy_at_second_order():
    """The rolling row of a curved profile constrains velocities (W_T u = 0); the dependent
    coordinates follow its position-level counterpart, the trapezoidal integral of W_T along
    the step (0.5 (W_T(q_n) + W_T(q_n+1)) (q_n+1 - q_n) = 0). Without friction work the
    kinetic + potential energy of the parabolic foot rolling down the incline is then kept to
    the step's second order: the largest balance error over 0.3 s falls about fourfold when h
    is halved (2.2e-7 J and 5.6e-8 J at h = 1e-3 s and 5e-4 s; following the end-of-step W_T
    alone, a rectangle rule, left 1.2e-5 J and 6.1e-6 J: first order)."""
    theta = 0.3
    d = np.array([np.cos(theta), np.sin(theta)])
    ground = Profile(None, Curve.bezier([3.0 * d, 0.5 * d, -3.0 * d]))
    foot = Profile(2, Curve.bezier([[-0.1, 0.0], [0.0, -0.2], [0.1, 0.0]]))
    tree = floating_body(M, 0.01, gravity=(0.0, -G))
    pair = ContactPair("foot", foot, ground, Sliding(0.8))
    system = assemble(Model(tree=tree, contacts=(pair,), gravity=(0.0, -G)))
    q0, u0 = system.initial_state([0.0, 0.1, 0.0], [0.0, 0.0, 0.0])
    errors = []
    for h in (1e-3, 5e-4):
        result = simulate(system, (0.0, 0.3), (q0, u0), h=h, start_tol=None)  # projected
        assert result.success, result.message
        assert set(result["foot_state"]) == {"stick"}
        errors.append(np.max(np.abs(result["energy_error"])))
    assert errors[0] < 5e-7  # of the 0.32 J of potential energy released
    assert 3.0 < errors[0] / errors[1] < 5.0
