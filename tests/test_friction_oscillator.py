"""The friction oscillator (a block on a spring on a moving belt, mu_s = 0.4 > mu_k = 0.3):
its stick-slip limit cycle against the piecewise closed form of
``fe_contact.papers.friction_oscillator`` (derived there by hand; checked here independently of
the stepper by integrating the slip phase with scipy), and the demo's command line."""

import csv

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fe_contact.cli import main as cli_main
from fe_contact.demos.friction_oscillator import last_cycle
from fe_contact.papers.friction_oscillator import (
    Oscillator,
    closed_form_position,
    friction_oscillator,
    limit_cycle,
)
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble


def test_closed_form_cycle_matches_an_ode_solution_of_the_slip_phase():
    """The slip phase from the break-away point (x_b, V) under m x'' = -k x + mu_k m g, by
    DOP853 with an event at x' = V: it lasts the closed form's slip time, peaks at x_max and
    x_min, and ends at x_stick (1e-9)."""
    data = Oscillator()
    cycle = limit_cycle(data)
    k, m, g = data.stiffness, data.mass, data.gravity

    def rhs(t, y):
        return [y[1], (-k * y[0] + data.mu_k * m * g) / m]

    def restick(t, y):
        return y[1] - data.belt_speed

    restick.direction = 1.0
    sol = solve_ivp(
        rhs,
        (1e-9, 2.0),
        [cycle.x_break + data.belt_speed * 1e-9, data.belt_speed],
        method="DOP853",
        rtol=1e-12,
        atol=1e-14,
        events=restick,
        dense_output=True,
    )
    t_end = sol.t_events[0][0]
    assert t_end == pytest.approx(cycle.slip, abs=1e-9)
    assert sol.y_events[0][0][0] == pytest.approx(cycle.x_stick, abs=1e-9)
    x = sol.sol(np.linspace(1e-9, t_end, 20001))[0]
    assert x.max() == pytest.approx(cycle.x_max, abs=1e-9)
    assert x.min() == pytest.approx(cycle.x_min, abs=1e-9)


def test_limit_cycle_of_the_simulation_matches_the_closed_form(measured):
    """5 s with h = 1 ms: the period from the located stick events to 1e-5 s (the stepper's
    phase error (omega h)^2 / 12 per radian: 8e-6 relative), the stick time to 1e-8 s (x' = V
    exactly while stuck: only the position where the simulated slip ended, 5e-10 m off, moves
    it), x(t) to 4e-6 m everywhere
    (1e-6 at h = 0.5 ms: order 2). While stuck the slip velocity is zero to round-off and the
    friction does no work; friction power never negative; the balance closes to the
    quadrature of the belt drive's power (2.5e-8 J)."""
    data = Oscillator()
    cycle = limit_cycle(data)
    scenario = friction_oscillator(data)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    res = simulate(assemble(model), (0.0, 5.0), (q0, u0), h=1e-3)
    assert res.status == "finished", res.message
    period, stick = last_cycle(res)
    reference = "the piecewise closed-form limit cycle (papers.friction_oscillator)"
    measured("period", abs(period - cycle.period), 1e-5, unit="s", reference=reference)
    measured("stick time", abs(stick - cycle.stick), 1e-8, unit="s", reference=reference)
    measured(
        "position over 5 s",
        np.max(np.abs(res.q[:, 0] - closed_form_position(data, res.t))),
        4e-6,
        unit="m",
        reference=reference,
    )
    stuck = res["block_state"] == "stick"
    assert np.max(np.abs(res["block_slip_velocity"][stuck])) < 1e-12
    d_friction = np.diff(res["dissipated_friction"])
    assert np.all(d_friction >= -1e-15)
    both = stuck[1:] & stuck[:-1]
    assert np.all(d_friction[both] == 0.0)
    assert np.max(np.abs(res["energy_error"])) < 5e-8


def test_demo_writes_history_with_x_and_velocity_and_figures(tmp_path):
    out = tmp_path / "osc"
    args = ["demo", "friction-oscillator", "--t-end", "1", "--out", str(out)]
    for value in ("mass=1", "stiffness=100", "belt_speed=0.1", "mu_s=0.4", "mu_k=0.3"):
        args += ["--set", value]  # one --set per value, as in every command
    assert cli_main(args) == 0
    with open(out / "history.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    assert "x [m]" in header and "velocity [m/s]" in header
    assert all(len(r) == len(header) for r in rows)
    x = np.array([float(r[header.index("x [m]")]) for r in rows[1:]])
    assert x[0] == 0.0 and x.max() == pytest.approx(limit_cycle().x_max, abs=1e-5)
    for name in ("phase.png", "position.png", "model.toml"):
        assert (out / name).stat().st_size > 0
    assert cli_main(["demo", "friction-oscillator", "--set", "mu_s=0.1"]) == 2  # below mu_k
    assert cli_main(["demo", "friction-oscillator", "--set", "speed=1"]) == 2
