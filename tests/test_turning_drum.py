"""The capstan with the drum turned at constant speed (``papers.capstan.turning_drum``): the
string anchored at its tight end and loaded by T_slack at its slack end, the drum driven under
it. In steady state the string rests and slips on the whole arc, the anchor holds
T_slack e^{mu theta} (Euler-Eytelwein) and the drive supplies the friction torque
R (T_tight - T_slack); turned the other way the anchor holds T_slack e^{-mu theta}.

Coarse model (6 elements, 20 candidates, h = 2e-3 s, 0.15 s): about 0.5 s per run. Steady
state: the tension waves of the start (wave speed sqrt(EA / rho0 A) = 224 m/s over a string of
0.26 m, damped by the string's stiffness damping) have died out to below 0.1 % of the slip
force from t = 0.064 s (measured); the rows from t = 0.075 s are averaged.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from fe_contact.elements.string import string_points_at
from fe_contact.papers import capstan as cp
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

COARSE = replace(cp.CapstanData(), n_elements=6, n_candidates=20)
H = 2e-3  # s
T_END = 0.15  # s
STEADY = 0.075  # s, start of the averaging window
SPEED = 2.0  # rad/s; the drum's surface moves at R SPEED = 0.1 m/s


def run(speed):
    scenario = cp.turning_drum(COARSE, speed)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    result = simulate(system, (0.0, T_END), (q0, u0), method="moreau", h=H, theta=0.55,
                      keep_reports=True)  # fmt: skip
    assert result.success, result.message
    return system, result


@pytest.fixture(scope="module")
def forward():
    """Clockwise: the drum drags the string from the anchor towards the slack end."""
    return run(-SPEED)


@pytest.fixture(scope="module")
def backward():
    """Counter-clockwise: the drum drags the string towards the anchor."""
    return run(SPEED)


def steady(result):
    return result.t >= STEADY - 1e-12


def test_slip_torque_closed_form():
    """R T_slack (e^{mu theta} - 1) written out for the defaults: 0.05 m, 2 N, 0.3, pi."""
    data = cp.CapstanData()
    assert data.slip_torque == pytest.approx(0.05 * 2.0 * (math.exp(0.3 * math.pi) - 1.0),
                                             rel=1e-14)  # fmt: skip


def test_drive_torque_and_anchor_tension(forward):
    """Steady state: the anchor's tension averages T_slack e^{mu theta} within 1 % and the
    drive torque -R T_slack (e^{mu theta} - 1) within 1 % (measured -0.11 % and -0.19 %: the
    C1 string on the coarse candidate grid holds slightly less than e^{mu theta}, as in the
    capstan, docs/details/capstan.md). Each steady row is within 0.5 % of the mean (the
    plateau's ringing, measured <= 0.06 %)."""
    system, result = forward
    data = COARSE
    rows = steady(result)
    tension = cp.tight_tension(system, result.q)[rows]
    torque = np.asarray(result["drive_0_force"])[rows]
    assert np.mean(tension) == pytest.approx(data.slip_force, rel=1e-2)
    assert np.mean(torque) == pytest.approx(-data.slip_torque, rel=1e-2)
    assert np.max(np.abs(tension / np.mean(tension) - 1.0)) < 5e-3
    assert np.max(np.abs(torque / np.mean(torque) - 1.0)) < 5e-3


def test_drum_balance_against_the_string(forward):
    """Two independent measurements of the same torque, row by row in steady state: the drive's
    multiplier and R (T_anchor - T_slack) from the string's tension at its anchored end (the
    string at rest: its balance carries the tension difference of its ends to the drum).
    Allowed 1 % of the slip torque (measured 0.07 %; the string's own inertia and damping
    under the residual ringing)."""
    system, result = forward
    data = COARSE
    rows = steady(result)
    tension = cp.tight_tension(system, result.q)[rows]
    torque = np.asarray(result["drive_0_force"])[rows]
    string_side = -data.radius * (tension - data.slack_tension)
    assert np.max(np.abs(torque - string_side)) < 1e-2 * data.slip_torque


def test_whole_arc_slips(forward):
    """In every steady row every candidate pressed on the drum (normal force above 1e-6 of the
    mean) slips: its slip velocity relative to the drum is the drum's surface speed R |omega|
    = 0.1 m/s within 2 % (the string nearly rests: its residual ringing, measured 0.66 %), and
    its friction force lies on the cone, |F_T| = mu N within 1e-6 of the largest N (the
    projection on the cone is exact to round-off: measured 1e-16). The closed
    candidates cover the arc: at least (theta R / spacing) - 1 of them."""
    _, result = forward
    data = COARSE
    spacing = data.length / (data.n_candidates - 1)
    n_arc = int(data.wrap * data.radius / spacing) - 1
    for report, t in zip(result.reports, result.t, strict=False):
        if t < STEADY:
            continue
        contact = report.contacts[0]
        normal = np.asarray(contact.normal_force)
        pressed = normal > 1e-6 * np.mean(normal[normal > 0.0])
        assert np.count_nonzero(pressed) >= n_arc
        slip = np.abs(np.asarray(contact.slip_velocity)[pressed])
        assert np.max(np.abs(slip / (data.radius * SPEED) - 1.0)) < 2e-2
        friction = np.abs(np.asarray(contact.friction_force)[pressed])
        assert np.max(np.abs(friction - data.mu * normal[pressed])) < 1e-6 * np.max(normal)


def test_drum_turned_the_other_way(backward):
    """Counter-clockwise the friction on the arc points towards the anchor, which now holds
    the smaller tension T_slack e^{-mu theta} (0.779 N), within 1 % (measured +0.46 %); the
    drive torque is +R T_slack (1 - e^{-mu theta}), within 1 % (measured +0.20 %)."""
    system, result = backward
    data = COARSE
    rows = steady(result)
    tension = np.mean(cp.tight_tension(system, result.q)[rows])
    torque = np.mean(np.asarray(result["drive_0_force"])[rows])
    low = data.slack_tension * math.exp(-data.mu * data.wrap)
    assert tension == pytest.approx(low, rel=1e-2)
    assert torque == pytest.approx(data.radius * (data.slack_tension - low), rel=1e-2)


def test_energy_balance(forward):
    """The drive's work goes into friction, the string's elastic energy (its stretch to the
    tension e^{mu phi}) and its damping; the slack end's load does T_slack times the end's
    displacement. Residual: the theta-method's own unbooked loss, allowed 1 % of the drive's
    work (measured 0.02 %). In steady state the drive's power equals the friction loss
    rate within 1 % (the string rests and stores nothing: measured 0.003 %), and the friction
    power is never positive."""
    system, result = forward
    data = COARSE
    structure = system.structures["string"]
    sl = system.layout.structure("string")
    end = np.array(
        [string_points_at(structure.string, structure.full(q[sl]), [data.length]).position[:, 0]
         for q in (result.q[0], result.q[-1])]
    )  # fmt: skip
    direction = cp.capstan_path(data, data.length)[1][:, 0]
    slack_work = data.slack_tension * float(direction @ (end[1] - end[0]))
    drive = np.asarray(result["work_drives"])
    kinetic = np.asarray(result["kinetic_energy"])
    elastic = np.asarray(result["elastic_energy"])
    friction = np.asarray(result["dissipated_friction"])
    damping = np.asarray(result["dissipated_damping"])
    residual = (
        drive[-1] + slack_work
        - (kinetic[-1] - kinetic[0]) - (elastic[-1] - elastic[0]) - friction[-1] - damping[-1]
    )  # fmt: skip
    assert drive[-1] > 0.0
    assert abs(residual) < 1e-2 * drive[-1]
    rows = np.flatnonzero(steady(result))
    k0, k1 = rows[0], rows[-1]
    assert friction[k1] - friction[k0] == pytest.approx(drive[k1] - drive[k0], rel=1e-2)
    assert np.all(np.asarray(result["friction_power"]) <= 0.0)


def test_bad_speed_names_the_parameter():
    with pytest.raises(ValueError, match="turning_drum.speed"):
        cp.turning_drum(COARSE, 0.0)
    with pytest.raises(ValueError, match="turning_drum.speed"):
        cp.turning_drum(COARSE, float("nan"))
