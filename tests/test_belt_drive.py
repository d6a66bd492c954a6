"""The belt drive (``papers.belt``): an elastic belt over two pulleys of equal radius, the
driver at constant speed, the driven pulley under a load torque; the steady state against
the creep theory of Grashof and Reynolds.

One run of the coarse model (20 elements, 56 candidates per pulley, h = 2e-3 s, 0.4 s of a
belt at 1 m/s) takes about 30 s of wall time: the tests that need it are marked slow. The
start (the belt at rest with T2 everywhere, the driver at full speed) has flushed out once the
belt has run over a pulley's half turn (pi R / (omega R) = 0.16 s); the steady window is
0.2 s to 0.4 s.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from fe_contact.papers import belt as bp
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

COARSE = replace(bp.BeltData(), n_elements=20, n_candidates=56)
H = 2e-3  # s
T_END = 0.4  # s
STEADY = 0.2  # s


@pytest.fixture(scope="module")
def coarse():
    scenario = bp.belt_drive(COARSE)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    result = simulate(system, (0.0, T_END), (q0, u0), method="moreau", h=H, theta=0.55,
                      keep_reports=True)  # fmt: skip
    assert result.success, result.message
    return system, result


def window(result):
    return np.flatnonzero(result.t >= STEADY - 1e-12)


def test_closed_forms_written_out(measured):
    """The data's steady state against the formulas typed out (the fixed point to 1e-12
    relative): ratio = (1 + T2 / EA) / (1 + T1 / EA); the driven pulley's balance
    (T1 - T2) R = M0 + c omega2 + beta omega2 R I2 with omega2 = ratio omega1 and I the
    integral of T over the arc, T_entry (pi - c_a) + (T1 - T2) / mu, c_a = ln(T1 / T2) / mu
    (sympy integrates the tension profile); the driver's torque (T1 - T2) R + beta omega1 R I1.
    """
    import sympy

    d = bp.BeltData()
    t1, t2, ratio = d.tight_tension, d.slack_tension, d.speed_ratio
    creep = math.log(t1 / t2) / d.mu
    phi, x = sympy.symbols("phi x", positive=True)
    a = math.pi - creep
    integral = {
        0: float(sympy.integrate(t1, (phi, 0, a))
                 + sympy.integrate(t1 * sympy.exp(-d.mu * x), (x, 0, creep))),
        1: float(sympy.integrate(t2, (phi, 0, a))
                 + sympy.integrate(t2 * sympy.exp(d.mu * x), (x, 0, creep))),
    }  # fmt: skip
    measured.close(
        "speed ratio",
        ratio,
        (1 + t2 / d.axial_stiffness) / (1 + t1 / d.axial_stiffness),
        rtol=1e-12,
        reference="(1 + T2 / EA) / (1 + T1 / EA)",
    )
    omega2 = d.speed * ratio
    drag = d.stiffness_damping * omega2 * d.radius * integral[1]
    load = d.load_torque + d.load_damping * omega2 + drag
    measured.close(
        "tight tension",
        t1,
        t2 + load / d.radius,
        rtol=1e-12,
        unit="N",
        reference="driven pulley's torque balance, sympy arc integral",
    )
    driver = (t1 - t2) * d.radius + d.stiffness_damping * d.speed * d.radius * integral[0]
    measured.close(
        "driver torque",
        d.driver_torque,
        driver,
        rtol=1e-12,
        unit="N m",
        reference="(T1 - T2) R + beta omega1 R I1, sympy arc integral",
    )
    measured.close(
        "creep angle", d.creep_angle, creep, rtol=1e-12, unit="rad", reference="ln(T1 / T2) / mu"
    )
    assert d.creep_angle < math.pi  # the defaults transmit without gross slip


def test_path_is_continuous_with_unit_tangents(measured):
    """The path's pieces join: positions continuous to 1e-12 m across each junction (double
    round-off on 0.5 m), tangents unit and continuous."""
    d = bp.BeltData()
    marks = np.cumsum([d.feed, math.pi * d.radius, d.centre_distance, math.pi * d.radius])
    eps = 1e-9
    for m in marks:
        p, t = bp.belt_path(d, [m - eps, m + eps])
        measured(
            "position jump across a junction", np.max(np.abs(p[:, 1] - p[:, 0])), 3 * eps, unit="m"
        )
        measured(  # turning at 1 / R
            "tangent jump across a junction",
            np.max(np.abs(t[:, 1] - t[:, 0])),
            4 * eps / d.radius,
        )
    _, t = bp.belt_path(d, np.linspace(0.0, d.length, 101))
    measured.close("tangent length", np.hypot(t[0], t[1]), 1.0, rtol=0.0, atol=1e-14)


@pytest.mark.slow
def test_span_tensions_and_torque(coarse, measured):
    """Steady window (means over its rows; the spans vibrate transversely at the candidates'
    passing frequency, the upper span's tension by about 8 % from row to row): the lower span
    holds the tensioner's T2 and the upper span T1 (``BeltData.tight_tension``) within 1 %
    (measured -0.18 % and +0.15 %); T1 / T2 <= e^{mu pi}; the driver's torque averages
    ``BeltData.driver_torque`` within 1 % (measured +0.32 %). Without the drag of the string's
    stiffness damping on the arcs (``BeltData._steady``) T1 would be 5.152 N and the torque
    (T1 - T2) R = 0.158 N m: the simulation gives 1.8 % and 7.1 % more."""
    system, result = coarse
    d = COARSE
    rows = window(result)
    upper = np.mean([bp.span_tension(system, d, result.q[k]) for k in rows])
    lower = np.mean([bp.span_tension(system, d, result.q[k], upper=False) for k in rows])
    torque = float(np.mean(np.asarray(result["drive_0_force"])[rows]))
    reference = "Grashof-Reynolds creep theory (BeltData)"
    measured.close(
        "slack span tension T2", lower, d.slack_tension, rtol=1e-2, unit="N", reference=reference
    )
    measured.close(
        "tight span tension T1", upper, d.tight_tension, rtol=1e-2, unit="N", reference=reference
    )
    assert upper / lower <= math.exp(d.mu * math.pi)
    measured.close(
        "driver torque", torque, d.driver_torque, rtol=1e-2, unit="N m", reference=reference
    )


@pytest.mark.slow
def test_energy_balance_closes(coarse, measured):
    """The driver's work (1.34 J over the run) against the energies and the booked losses:
    with the theta-method's own loss booked (``dissipated_numerical``, 0.25 % of the driver's
    work here: what the error would hold unbooked) the balance closes to 3e-5 of the driver's
    work (measured 9.3e-6 on this grid, 1.8e-6 on the default one: the string's nonlinear
    remainder, which falls with h once the steps are no longer halved for deep closings,
    ``test_energy_balance_closes_to_1e_6_of_the_drivers_work_at_h_125_us``)."""
    _, result = coarse
    work = float(result["work_drives"][-1])
    assert work > 1.0
    measured(
        "energy balance error",
        np.max(np.abs(result["energy_error"])),
        3e-5 * work,
        unit="J",
        reference="3e-5 of the driver's work",
    )
    assert result["dissipated_numerical"][-1] > 1e-3 * work


@pytest.mark.slow
def test_speed_ratio_against_creep_theory(coarse, measured):
    """omega_driven / omega_driver over the steady window (the ratio of the angles turned)
    against (1 + eps_slack) / (1 + eps_tight), eps = T / EA: the speed loss 1 - ratio (3.08 %)
    within 15 % of itself (measured -0.05 %: 0.969255 against 0.969240). Why 15 %: the
    driven pulley rings at the candidates' passing frequency (about 2 % in speed), and over
    windows of 0.1 s to 0.15 s the measured loss wandered by up to 12 % in trial runs."""
    _, result = coarse
    d = COARSE
    rows = window(result)
    k0, k1 = rows[0], rows[-1]
    driver = np.asarray(result["driver_q"])
    driven = np.asarray(result["driven_q"])
    ratio = (driven[k1] - driven[k0]) / (driver[k1] - driver[k0])
    measured.close(
        "speed loss 1 - omega_driven / omega_driver",
        1.0 - ratio,
        1.0 - d.speed_ratio,
        rtol=0.15,
        reference="(1 + eps_slack) / (1 + eps_tight), creep theory",
    )


@pytest.mark.slow
@pytest.mark.parametrize("pulley", [0, 1])
def test_adhesion_and_creep_arcs(coarse, pulley, measured):
    """On each pulley (0 the driver, 1 the driven one) the belt sticks on the adhesion arc from
    the entry, phi < pi - ln(T1 / T2) / mu, and slides on the creep arc before the exit, with
    the slip speed (pulley's surface minus belt) omega R (T_entry - T(phi)) / (EA + T_entry),
    T(phi) = T_entry e^{-+mu (phi - phi_a)} (the belt's material speed omega R (1 + eps) /
    (1 + eps_entry)). Candidates closed in the steady window's rows, one candidate spacing
    (0.48 rad) away from the arcs' edge phi_a on either side: on the adhesion arc their mean
    |slip| is below 0.5 % of the belt speed omega R (measured 0.015 % and 0.065 %; the creep
    arc's mean is 2 %); on the creep arc their mean slip speed is the closed form's mean over
    the same points within 15 % (measured -3.5 % on the driver, -8.4 % on the driven pulley,
    whose entry tension T2 makes its slip smaller and noisier; the arcs' edge is resolved to
    a candidate spacing, 0.48 rad, a quarter of the creep arc)."""
    _, result = coarse
    d = COARSE
    speed = d.speed * d.radius
    entry = d.tight_tension if pulley == 0 else d.slack_tension
    edge = math.pi - d.creep_angle
    spacing = d.length / (d.n_candidates - 1) / d.radius
    sign = -1.0 if pulley == 0 else 1.0  # the tension falls on the driver, rises on the driven
    adhesion, creep, closed = [], [], []
    for k in window(result):
        contact = result.reports[k].contacts[pulley]
        phi = bp.arc_from_entry(d, pulley, np.asarray(contact.point).T)
        slip = np.asarray(contact.slip_velocity)
        pressed = np.asarray(contact.normal_force) > 0.0
        adhesion.append(slip[pressed & (phi < edge - spacing)])
        on_creep = pressed & (phi > edge + spacing) & (phi < math.pi)
        creep.append(slip[on_creep])
        tension = entry * np.exp(sign * d.mu * (phi[on_creep] - edge))
        closed.append(speed * (entry - tension) / (d.axial_stiffness + entry))
    adhesion, creep, closed = (np.concatenate(x) for x in (adhesion, creep, closed))
    assert adhesion.size > 100 and creep.size > 100
    measured(
        "mean slip in the adhesion arc",
        np.mean(np.abs(adhesion)),
        5e-3 * speed,
        unit="m/s",
        reference="no slip where the belt adheres",
    )
    measured.close(
        "mean slip speed on the creep arc",
        np.mean(creep),
        np.mean(closed),
        rtol=0.15,
        unit="m/s",
        reference="creep theory: omega R (T_entry - T(phi)) / (EA + T_entry)",
    )


def test_bad_data_names_the_parameter():
    with pytest.raises(ValueError, match="BeltData.centre_distance"):
        bp.BeltData(centre_distance=0.1)
    with pytest.raises(ValueError, match="BeltData.feed"):
        bp.BeltData(feed=0.46)
    with pytest.raises(ValueError, match="BeltData.mu"):
        bp.BeltData(mu=0.0)
    with pytest.raises(ValueError, match="BeltData.n_candidates"):
        bp.BeltData(n_candidates=1)


@pytest.mark.slow
def test_energy_balance_closes_to_1e_6_of_the_drivers_work_at_h_125_us(measured):
    """The issue's requirement: drive work = load work + friction + damping (+ the booked
    numerical loss and the energies' change) to 1e-6 of the driver's work. The balance's error
    is the string's nonlinear remainder alone (``test_moreau_energy``, the belt's start step by
    step), O(|[q]|^3) per (sub-)step; on the coarse grid over the 0.4 s it falls from 9.2e-6
    (h = 2 ms) to 3.2e-6, 1.1e-6 and 2.6e-7 of the driver's work at h = 0.5, 0.25, 0.125 ms
    (second order from 0.25 ms; the steps are halved for deep closings at any h, so coarser
    runs are not in the asymptotic range). At h = 0.125 ms the largest |energy_error| over the
    run is 2.8e-7 of the driver's work (1.34 J), within the required 1e-6; the run costs about
    as much as the 2 ms one (4400 sub-steps against 4100)."""
    scenario = bp.belt_drive(COARSE)
    system = assemble(scenario.model)
    result = simulate(system, (0.0, T_END), (scenario.q0, scenario.u0), method="moreau",
                      h=1.25e-4, theta=0.55)  # fmt: skip
    assert result.success, result.message
    work = float(result["work_drives"][-1])
    assert work > 1.0
    measured(
        "energy balance residual", np.max(np.abs(result["energy_error"])), 1e-6 * work, unit="J"
    )
