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
    Line,
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
