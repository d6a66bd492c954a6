"""The pantograph's energy balance at train speed in the energy-consistent form: the droppers'
tension-only force and the penalty contact's force in discrete-gradient form
(``steppers.force_laws.ForceLaws``), the dampers' and the drive's work booked as the step
does it."""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact import assemble
from fe_contact.papers.pantograph import pantograph_on_catenary

SPEED = 250.0 / 3.6  # m/s
ELEMENT = 5.0  # m: the coarse line's elements
T_END = 0.3  # s: the head runs 20.8 m, over four of the wire's nodes


@pytest.fixture(scope="module")
def coarse():
    """One span, 5 m elements, 250 km/h, the penalty contact, h = 2 ms, energy-consistent."""
    run = pantograph_on_catenary(
        1,
        speed=SPEED,
        contact="penalty",
        max_element_length=ELEMENT,
        h=2e-3,
        energy_consistent=True,
    )
    system = assemble(run.model)
    result = run.run(system, t_span=(0.0, T_END))
    assert result.success, result.message
    return run, system, result


def dropper_switches(result) -> int:
    """How many times a dropper went slack or taut between two recorded steps."""
    names = [c for c in result.columns if c.endswith("_state") and c != "head_state"]
    states = [np.asarray(result[c]) for c in names]
    assert names and all(set(s[1:]) <= {"taut", "slack"} for s in states)
    return sum(int(np.count_nonzero(s[1:] != s[:-1])) for s in states)


def test_energy_balance_closes_at_train_speed(coarse, measured):
    """Kinetic + potential + elastic energy (the droppers' and the contact's included) =
    initial + the drive's work - the dampers' loss, to 1e-6 of the largest elastic energy
    (219 J; measured 2e-11 J over 0.3 s, round-off, with 20 dropper switches). The droppers
    switch, so their kinked force is exercised; the plain form (the trapezoidal rule on the
    laws, the drive, the dampers and the lift) leaves 0.022 J here, 1e-4, and the
    energy-consistent form with the laws on the trapezoidal rule and the drive's work booked
    from its multipliers at the steps' ends left 0.13 J."""
    run, system, result = coarse
    assert dropper_switches(result) >= 10
    x = result.q[:, 0]  # the base, and with it the head, at the train's speed
    nodes = np.arange(ELEMENT, 55.0, ELEMENT)
    assert np.count_nonzero((nodes > x[0]) & (nodes < x[-1])) >= 3
    assert np.all(result["head_normal_force"][1:] > 0.0)  # in contact throughout
    scale = float(np.max(np.abs(result["elastic_energy"])))
    error = float(np.max(np.abs(result["energy_error"])))
    measured("energy balance error at 250 km/h", error, 1e-6 * scale, unit="J")
    assert abs(result["work_drives"][-1]) > 1e-3 * scale  # the drive's work is in the balance


def test_damping_work_is_a_loss_in_every_step(coarse):
    """The dampers' work booked per step, dq . (D_n + D_n+1) / 2 (the wires' Rayleigh damping,
    the droppers'), is a loss: never negative (for C u with C positive semi-definite it is
    (u_n + u_n+1) C (u_n + u_n+1) h / 4 >= 0)."""
    _, _, result = coarse
    steps = np.diff(result["dissipated_damping"])
    assert np.all(steps >= 0.0)
    assert result["dissipated_damping"][-1] > 0.0


def test_a_damped_hertz_landing_balances_to_round_off(measured):
    """The force laws' discrete gradient on a nonlinear law with damping: a 1 kg disk meets a
    flat ground at 1 m/s (no gravity) through a Hertz law (1e7 N/m^1.5) with Hunt-Crossley
    damping D = 0.3 s/m, energy-consistent at h = 1e-4 s (45 steps in contact). It leaves at
    e v_in, e from the Hunt-Crossley relation D v (1 + e) = ln((1 + D v) / (1 - e D v))
    (0.8329; measured 0.8330, tolerance 5e-3 for the step), and the balance kinetic before =
    kinetic after + the damping's work closes to 1e-9 of the loss (measured 2e-11; the
    trapezoidal rule on the damping power leaves 3e-3 of it at this step)."""
    from scipy.optimize import brentq

    from fe_contact.curves import Curve
    from fe_contact.model import Circle, Compliant, ContactPair, Model, Profile
    from fe_contact.multibody.joints import Joint
    from fe_contact.multibody.tree import Body, TreeModel
    from fe_contact.steppers.simulate import simulate

    ground = Profile(None, Curve.bezier([[1.0, 0.0], [0.2, 0.0], [-1.0, 0.0]]))
    joint = Joint("prismatic", None, angle=0.5 * np.pi)
    tree = TreeModel((Body(1.0, 0.001),), (joint,), gravity=(0.0, 0.0))
    law = Compliant("hertz", 1e7, damping=0.3)
    pair = ContactPair("disk", Circle(0, 0.05), ground, law)
    system = assemble(Model(tree=tree, contacts=(pair,), gravity=(0.0, 0.0)))
    q0, u0 = system.initial_state([0.0501], [-1.0])
    result = simulate(system, (0.0, 0.04), (q0, u0), h=1e-4, rho_inf=1.0, energy_consistent=True)
    assert result.success, result.message
    x = 0.3 * 1.0
    e = brentq(lambda e: x * (1 + e) - np.log((1 + x) / (1 - e * x)), 1e-12, 1 - 1e-12)
    measured("rebound speed / impact speed", abs(result.u[-1, 0] - e), 5e-3)
    loss = float(result["dissipated_damping"][-1])
    assert np.isclose(loss, 0.5 * (1.0 - result.u[-1, 0] ** 2), rtol=1e-9)
    measured("energy balance error", float(np.max(np.abs(result["energy_error"]))), 1e-9 * loss, unit="J")  # fmt: skip
