"""A point mass sliding on a beam: closed-form checks and invariants of the coupled solver.

The beam, contact, friction and partitioned stepper all take part; the references are the
rigid-surface formulas (block on an incline) and the energy balance.
"""

import csv

import numpy as np
import pytest

from fe_contact.cli import main as cli_main
from fe_contact.demos.sliding_mass import run
from fe_contact.papers.lipinski import (
    cantilever_strip,
    sliding_mass_initial_state,
    sliding_mass_model,
)
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

G = 9.81
NAME = "mass"  # the contact pair of the sliding mass


def stiff_system(mu, angle=0.0):
    """Mass on a 1e4 times stiffer, weightless beam inclined by ``angle`` (sliding downhill)."""
    beam = cantilever_strip(4, youngs_modulus=2.1e15, angle=-angle)
    system = assemble(sliding_mass_model(mu, 4, beam=beam, structure_gravity=False))
    return system, sliding_mass_initial_state(system, x0=0.1, speed=0.5)


def stiff_slide(mu, angle, t_end=0.04):
    system, y0 = stiff_system(mu, angle)
    # rho_inf = 0.5 damps the unresolved modes of the very stiff beam (omega ~ 1e7 rad/s)
    res = simulate(system, (0.0, t_end), y0, h=1e-4, rho_inf=0.5)
    assert res.status == "finished", res.message
    t0 = system.structures["beam"].beam.t0
    speed = res.u[:, :2] @ t0
    return res, speed


def test_frictionless_slide_on_stiff_level_beam_keeps_speed():
    res, speed = stiff_slide(mu=0.0, angle=0.0)
    # beam deflection ~1e-8 m: speed constant to ~1e-6 relative
    np.testing.assert_allclose(speed, 0.5, rtol=1e-6)
    np.testing.assert_allclose(res[f"{NAME}_normal_force"], 0.02 * G, rtol=1e-4)


def test_friction_decelerates_at_mu_g(measured):
    mu = 0.3
    res, speed = stiff_slide(mu=mu, angle=0.0)
    slope = np.polyfit(res.t, speed, 1)[0]
    measured.close(
        "deceleration, mu = 0.3", slope, -mu * G, rtol=1e-4, unit="m/s^2", reference="mu g"
    )
    np.testing.assert_allclose(res[f"{NAME}_normal_force"], 0.02 * G, rtol=1e-4)
    np.testing.assert_allclose(res[f"{NAME}_friction_force"], -mu * 0.02 * G, rtol=1e-4)


@pytest.mark.parametrize("mu", [0.0, 0.2])
def test_incline_acceleration(mu, measured):
    theta = 0.3
    res, speed = stiff_slide(mu=mu, angle=theta)
    slope = np.polyfit(res.t, speed, 1)[0]
    measured.close(
        f"acceleration on a 0.3 rad incline, mu = {mu}",
        slope,
        G * (np.sin(theta) - mu * np.cos(theta)),
        rtol=1e-4,
        unit="m/s^2",
        reference="g (sin(theta) - mu cos(theta))",
    )
    np.testing.assert_allclose(res[f"{NAME}_normal_force"], 0.02 * G * np.cos(theta), rtol=1e-4)


def total_energy(res):
    return res["kinetic_energy"] + res["potential_energy"] + res["elastic_energy"]


def test_frictionless_undamped_run_conserves_energy():
    system, res = run(mu=0.0, t_end=0.15, progress=False)
    assert res.status == "finished", res.message
    E = total_energy(res)
    assert np.max(np.abs(E - E[0])) < 1e-6 * abs(E[0])
    assert np.max(res["residual_position"]) < 1e-10
    assert np.max(res["residual_velocity"]) < 1e-10
    assert res[f"{NAME}_parameter"][-1] > 0.17  # it did slide


def test_friction_and_damping_energy_balance(tmp_path, measured):
    system, res = run(
        mu=0.1, t_end=0.15, out=tmp_path, rayleigh_alpha=1.0, rayleigh_beta=1e-5, progress=False
    )
    assert res.status == "finished", res.message
    E0 = total_energy(res)[0]
    measured(
        "energy balance error, friction and Rayleigh damping",
        np.max(np.abs(res["energy_error"])),
        1e-6 * abs(E0),
        unit="J",
        reference="initial energy = energy + losses (bound: 1e-6 of it)",
    )
    friction_work = res["dissipated_friction"]
    assert np.all(np.diff(friction_work) >= 0.0)  # friction power never positive
    assert friction_work[-1] > 0.0 and res["dissipated_damping"][-1] > 0.0
    # friction force opposes the slip at every step
    assert np.all(res[f"{NAME}_friction_force"] * res[f"{NAME}_slip_velocity"] <= 0.0)
    with open(tmp_path / "history.csv") as fh:
        header = next(csv.reader(fh))
    for name in (
        "t",
        f"{NAME}_parameter",
        f"{NAME}_normal_force",
        f"{NAME}_friction_force",
        f"{NAME}_slip_velocity",
        f"{NAME}_gap",
        "residual_position",
        "residual_velocity",
        "kinetic_energy",
        "potential_energy",
        "elastic_energy",
        "dissipated_friction",
        "dissipated_damping",
        "energy_error",
    ):
        assert any(h.split(" [")[0] == name for h in header), name


def test_leaving_the_beam_stops_cleanly_and_keeps_history(tmp_path):
    system, res = run(mu=0.0, t_end=0.2, x0=0.3, speed=2.0, out=tmp_path, progress=False)
    assert res.status == "event"
    assert "left structure 'beam'" in res.message
    # 0.1 m at about 2 m/s: the contact reaches the tip near t = 0.05 s
    assert 0.045 < res.t[-1] < 0.055
    assert res[f"{NAME}_parameter"][-1] <= 0.4
    with open(tmp_path / "history.csv") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) - 1 == res.t.size  # every step was written as it came


def test_cli_sliding_mass(tmp_path, capsys):
    code = cli_main(["demo", "sliding-mass", "--t-end", "0.01", "--out", str(tmp_path)])
    assert code == 0
    assert (tmp_path / "history.csv").exists()
    assert "status: finished" in capsys.readouterr().out


def test_sliding_mass_stops_at_v0_over_mu_g_and_sticks_on_the_beam(measured):
    """Decelerating at mu g from 0.5 m/s on the (very stiff, level) beam, the slip velocity
    reaches zero at t = v0 / (mu g) after x = v0^2 / (2 mu g); there the contact sticks (no
    force pulls it on) and the mass stays put on the beam's material point for good. Stop time
    to 1e-6 s (event location; the beam's deflection ~1e-8 m shifts it less); position to
    1e-7 m; friction dissipates the initial kinetic energy m v0^2 / 2."""
    mu = 0.3
    system, y0 = stiff_system(mu)
    res = simulate(system, (0.0, 0.3), y0, h=1e-4, rho_inf=0.5)
    assert res.status == "finished", res.message
    [(t_stop, name, kind)] = res.events
    assert (name, kind) == (NAME, "stick")
    measured("stop time", abs(t_stop - 0.5 / (mu * G)), 1e-6, unit="s", reference="v0 / (mu g)")
    stuck = res.t >= t_stop
    assert np.all(res[f"{NAME}_state"][stuck] == "stick")
    assert np.all(res[f"{NAME}_state"][~stuck] == "slip")
    x_stop = 0.1 + 0.5**2 / (2 * mu * G)
    np.testing.assert_allclose(res[f"{NAME}_parameter"][stuck], x_stop, atol=1e-7)
    assert np.ptp(res.q[stuck, 0]) == 0.0  # no creep
    assert res["dissipated_friction"][-1] == pytest.approx(0.5 * 0.02 * 0.5**2, rel=1e-5)
    assert np.max(np.abs(res["energy_error"])) < 1e-10
