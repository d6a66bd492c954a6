"""The Moreau-Jean stepper on the common System: a disk as a tree body (floating_body) against
rigid lines and a stiff inclined beam, against closed forms. (The disk on the hanging string of
004 is tested in test_moreau.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact import (
    BeamSpec,
    Circle,
    ContactPair,
    Drive,
    Line,
    LoopClosure,
    Model,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)

G = 9.81


def test_bounce_on_a_line_reaches_e_squared_h_and_the_balance_closes():
    # Newton's impact law with e_N = 0.5: rebound to e^2 H (h = 1e-3 s: the impact instant is
    # resolved to a step, 1e-5 relative); theta = 1/2 keeps the discrete energy balance exact:
    # kinetic + potential + impact dissipation is constant to round-off (1e-12 J).
    mass, radius, height = 2.0, 0.1, 0.2
    model = Model(
        tree=floating_body(mass, 0.5 * mass * radius**2),
        contacts=(
            ContactPair("disk", Circle(2, radius), Line((0, 0), (0, 1)), Unilateral(0.0, 0.5)),
        ),
    )
    system = assemble(model)
    q0, u0 = system.initial_state([0.0, radius + height, 0.0])
    r = simulate(system, (0.0, 0.45), (q0, u0), method="moreau", h=1e-3)
    assert r.status == "finished", r.message
    y = r.q[:, 1] - radius
    first = int(np.argmin(y[:300]))
    assert np.max(y[first + 5 :]) == pytest.approx(0.25 * height, rel=1e-4)
    assert np.max(np.abs(r["energy_error"])) < 1e-12
    assert r["dissipated_impact"][-1] > 0.0


@pytest.mark.parametrize("mu", [0.5, 0.05])
def test_disk_on_a_stiff_inclined_beam_rolls_or_slips(mu):
    # A disk released on a beam 1000 times stiffer than steel inclined by 0.3 rad: it rolls
    # with a = g sin(a) / (1 + J/(m R^2)) when mu is large enough (tan(a)/3 < mu), slips with
    # a = g (sin a - mu cos a) otherwise. Tolerance 1e-4: the beam's compliance and the
    # initial settling of the contact (penetration ~1e-5 m).
    angle, mass, radius = 0.3, 1.0, 0.05
    inertia = 0.5 * mass * radius**2
    ramp = BeamSpec(
        length=1.0,
        n_elements=4,
        youngs_modulus=2.1e14,
        density=4.7e3,
        width=0.05,
        height=0.02,
        angle=angle,
    )
    model = Model(
        tree=floating_body(mass, inertia),
        structures={"ramp": ramp},
        contacts=(ContactPair("disk", Circle(2, radius), "ramp", Unilateral(mu)),),
        structure_gravity=False,
    )
    system = assemble(model)
    t0 = np.array([np.cos(angle), np.sin(angle)])
    n0 = np.array([-np.sin(angle), np.cos(angle)])
    centre = 0.3 * t0 + radius * n0
    q0, u0 = system.initial_state([*centre, 0.0])
    r = simulate(system, (0.0, 0.3), (q0, u0), method="moreau", h=1e-3)
    assert r.status == "finished", r.message
    travel = (r.q[-1, :2] - centre) @ t0
    acceleration = 2.0 * travel / r.t[-1] ** 2
    rolling = np.tan(angle) / 3.0 < mu
    expected = (
        -G * np.sin(angle) / (1.0 + inertia / (mass * radius**2))
        if rolling
        else -G * (np.sin(angle) - mu * np.cos(angle))
    )
    assert acceleration == pytest.approx(expected, rel=1e-4)
    assert r["disk_state"][-1] == ("stick" if rolling else "slip")
    assert np.max(np.abs(r["energy_error"])) < 1e-12
    # the impulses stay in the friction cone
    assert np.all(np.abs(r["disk_friction_impulse"]) <= mu * r["disk_normal_impulse"] + 1e-15)


@pytest.mark.parametrize("acceleration", [1.0, 4.0])
def test_driven_wheel_rolls_or_spins_with_the_closed_form_torque(acceleration, measured):
    # A wheel on the ground whose angle is driven, phi(t) = -a t^2 / (2 R) (a drive on the
    # floating body's revolute joint, a bilateral row of the Moreau-Jean step). Rolling needs
    # the friction force m a <= mu m g: then x = a t^2 / 2 and the drive torque is
    # T = -(J + m R^2) a / R (moment balance J phi'' = T + R F_T, F_T = m a); beyond it
    # (mu g = 2.45 m/s^2 < 4) the wheel spins and slips, x'' = mu g, T = J phi'' - R mu m g.
    # Constant accelerations are reproduced exactly by the scheme: tolerance 1e-9 relative
    # (the contact solver's). theta = 1/2: the discrete energy balance closes to round-off,
    # with the drive's work and the friction dissipation.
    mass, radius, mu = 2.0, 0.1, 0.25
    inertia = 0.5 * mass * radius**2
    alpha = -acceleration / radius
    model = Model(
        tree=floating_body(mass, inertia),
        contacts=(ContactPair("wheel", Circle(2, radius), Line((0, 0), (0, 1)), Unilateral(mu)),),
        drives=(Drive(2, lambda t: 0.5 * alpha * t**2, lambda t: alpha * t, lambda t: alpha),),
    )
    system = assemble(model)
    q0, u0 = system.initial_state([0.0, radius, 0.0])
    r = simulate(system, (0.0, 0.5), (q0, u0), method="moreau", h=1e-3)
    assert r.status == "finished", r.message
    t = r.t
    np.testing.assert_allclose(r.q[:, 2], 0.5 * alpha * t**2, atol=1e-12)  # the drive holds
    assert np.max(r["residual_position"]) < 1e-12
    rolling = acceleration <= mu * G
    a_x = acceleration if rolling else mu * G
    reference = "rolling: a = alpha R; spinning: a = mu g; torque I alpha - R m a"
    measured.close(
        "wheel centre velocity", r.u[1:, 0], a_x * t[1:], rtol=1e-9, unit="m/s", reference=reference
    )
    torque = inertia * alpha - radius * mass * a_x
    measured.close(
        "drive torque", r["drive_2_force"][1:], torque, rtol=1e-9, unit="N m", reference=reference
    )
    assert set(r["wheel_state"][1:]) == {"stick" if rolling else "slip"}
    assert np.max(np.abs(r["energy_error"])) < 1e-10
    if rolling:
        assert np.max(np.abs(r["dissipated_friction"])) < 1e-12
    else:
        assert r["dissipated_friction"][-1] > 0.0


def test_physical_pendulum_by_a_loop_closure_has_its_period():
    # A disk pinned at its rim to the ground by a LoopClosure (two bilateral rows): a physical
    # pendulum of period T = 2 pi sqrt((J + m R^2) / (m g R)) (1 + theta0^2 / 16 + ...). theta =
    # 1/2 is second order: at h = 1e-3 s the period is within 1e-5 relative (measured by the
    # zero crossings of the angle, interpolated linearly).
    mass, radius, theta0 = 1.0, 0.2, 0.05
    inertia = 0.5 * mass * radius**2
    model = Model(
        tree=floating_body(mass, inertia),
        loops=(LoopClosure(2, (0.0, radius)),),
    )
    system = assemble(model)
    # the pin at the origin, the centre below it at angle theta0 from the vertical
    centre = radius * np.array([np.sin(theta0), -np.cos(theta0)])
    q0, u0 = system.initial_state([*centre, theta0])
    r = simulate(system, (0.0, 2.0), (q0, u0), method="moreau", h=1e-3)
    assert r.status == "finished", r.message
    assert np.max(r["residual_position"]) < 1e-9
    angle = r.q[:, 2]
    down = np.flatnonzero((angle[:-1] > 0.0) & (angle[1:] <= 0.0))
    crossings = r.t[down] + (r.t[down + 1] - r.t[down]) * angle[down] / (
        angle[down] - angle[down + 1]
    )
    period = float(np.mean(np.diff(crossings)))
    exact = 2 * np.pi * np.sqrt((inertia + mass * radius**2) / (mass * G * radius))
    exact *= 1.0 + theta0**2 / 16.0
    assert period == pytest.approx(exact, rel=1e-5)
    # the pin carries the weight plus the centripetal force: its vertical multiplier
    # oscillates about m g (mean over whole periods within 1e-3)
    assert np.mean(r.multipliers[1:, 1]) == pytest.approx(mass * G, rel=1e-3)


@pytest.mark.parametrize("method", ["moreau", "generalized-alpha"])
@pytest.mark.parametrize("h", [1e-3, 0.1])
def test_the_last_step_ends_on_t_end(method, h):
    # A free fall, y = y0 - g t^2 / 2, which both schemes integrate exactly (constant force).
    # The span 0.0105 s is no multiple of h: the last step is shortened to end on t_end, also
    # when h is longer than the whole span (one step of 0.0105 s).
    system = assemble(Model(tree=floating_body(1.0, 0.01)))
    q0, u0 = system.initial_state([0.0, 1.0, 0.0], [0.5, 0.0, 0.0])
    r = simulate(system, (0.0, 0.0105), (q0, u0), method=method, h=h)
    assert r.status == "finished", r.message
    assert r.t[-1] == pytest.approx(0.0105, abs=1e-15)
    assert r.t.size == (12 if h == 1e-3 else 2)
    np.testing.assert_allclose(r.q[-1, :2], (0.5 * 0.0105, 1.0 - 0.5 * G * 0.0105**2), atol=1e-14)
    np.testing.assert_allclose(r.u[-1, :2], (0.5, -G * 0.0105), atol=1e-13)
