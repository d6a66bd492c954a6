"""The ``friction_power`` history column against a block sliding to rest on a fixed line.

A block of mass m on a horizontal line (Coulomb friction mu, gravity g) launched at v0 slides
with the constant deceleration mu g: v(t) = v0 - mu g t until it stops at v0 / (mu g), so the
friction force -mu m g sign(v) does the power P(t) = -mu m g v(t) and has taken
int_0^t -P dt = mu m g (v0 t - mu g t^2 / 2) by time t.
"""

import numpy as np
import pytest

from fe_contact import (
    Body,
    ContactPair,
    Joint,
    Line,
    Model,
    Point,
    Sliding,
    TreeModel,
    assemble,
    simulate,
)

M, MU, G, V0 = 0.5, 0.3, 9.81, 1.0  # kg, -, m/s^2, m/s: stops at t = 0.34 s


def block_on_line():
    block = TreeModel(  # x then y of a point mass: q = (x, y)
        bodies=(Body(0.0, 0.0), Body(M, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
        gravity=(0.0, -G),
    )
    floor = Line((0.0, 0.0), (0.0, 1.0))
    return Model(tree=block, contacts=(ContactPair("block", Point(body=1), floor, Sliding(MU)),))


@pytest.mark.parametrize("compiled", [True, False])
def test_friction_power_is_the_closed_form_and_integrates_to_the_dissipation(compiled, measured):
    """Over 0.2 s (h = 1e-3 s; the compiled stepper takes its quiet steps in batches, whose
    column is read from each step's report): the column equals -mu m g v(t) to 1e-9 of
    mu m g v0 (the constant deceleration is integrated exactly by generalised-alpha, so only
    the Newton tolerance rtol = 1e-10 of the forces and round-off remain), never exceeds 0, and
    its trapezoidal integral, exact for the linear P(t), is minus ``dissipated_friction`` to the
    same relative 1e-9."""
    system = assemble(block_on_line())
    q0, u0 = system.initial_state(q_tree=[0.0, 0.0], u_tree=[V0, 0.0])
    result = simulate(system, (0.0, 0.2), (q0, u0), h=1e-3, compiled=compiled)
    assert result.status == "finished"
    t, power = result["t"], result["friction_power"]
    scale = MU * M * G * V0  # 1.47 W
    measured(
        "friction power",
        np.max(np.abs(power - (-MU * M * G * (V0 - MU * G * t)))),
        1e-9 * scale,
        unit="W",
        reference="-mu m g (v0 - mu g t) of the decelerating block",
    )
    assert np.all(power <= 0.0)
    work = np.concatenate(([0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(t))))
    assert np.max(np.abs(-work - result["dissipated_friction"])) < 1e-9 * scale * t[-1]
    exact = MU * M * G * (V0 * t - MU * G * t**2 / 2)
    measured(
        "dissipated friction",
        np.max(np.abs(result["dissipated_friction"] - exact)),
        1e-9 * scale * t[-1],
        unit="J",
        reference="the integral of the closed-form power",
    )
