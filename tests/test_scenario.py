"""The papers' runnable cases are Scenarios: each builds, starts on the model's constraints and
runs, through ``Scenario.run``, the very history of the explicit ``assemble`` + ``simulate`` call.

Residual bound: every start below is placed on its bilateral constraints by construction (a
tree coordinate set to a point of the curve it slides on, a drive's angle at t0) or by Newton
on the constraints (the manipulator's ``recover_dependent``), so its residual is a round-off of
the coordinates' scale (<= 1 m): 1e-9 m (or rad) is far above that round-off (~1e-15) and far
below any modelling error. The string supports are checked as ``simulate`` checks a start
(``constraint_violations``, to a quarter element).

Histories: ``Scenario.run`` calls ``simulate`` with the same system, start, method and settings
(one BLAS thread, ``simulate``'s default), so the arrays are bitwise equal; a difference would
mean that ``run`` dropped or changed a setting.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from fe_contact import Scenario, assemble, simulate
from fe_contact.consistency import constraint_violations
from fe_contact.coupling.constraints import evaluate_state
from fe_contact.papers import (
    bauchau,
    belt,
    capstan,
    eugster_glocker,
    friction_oscillator,
    lipinski,
    slavic_boltezar,
    slider_on_string,
)

RESIDUAL = 1e-9  # m or rad, see the module docstring
COARSE_BELT = belt.BeltData(n_elements=20, n_candidates=56)  # as tests/test_belt_drive.py
COARSE_CAPSTAN = capstan.CapstanData(n_elements=6, n_candidates=20)  # test_turning_drum

SCENARIOS = {
    "friction-oscillator": lambda: friction_oscillator.friction_oscillator(),
    "slider-on-string": lambda: slider_on_string.slider_on_string(),
    "cam-lock": lambda: bauchau.cam_lock(3),
    "manipulator": lambda: lipinski.manipulator(lipinski.Manipulator(), 0.2),
    "sliding-mass": lambda: lipinski.sliding_mass(0.1),
    "capstan": lambda: capstan.capstan(COARSE_CAPSTAN),
    "turning-drum": lambda: capstan.turning_drum(COARSE_CAPSTAN, -2.0),
    "belt-drive": lambda: belt.belt_drive(COARSE_BELT),
    "disk-on-string": lambda: eugster_glocker.disk_on_string(2),
    "dropped-disk": lambda: eugster_glocker.dropped_disk(8),
    "disk-on-beam": lambda: eugster_glocker.disk_on_beam(),
    "pin-on-wheel": lambda: slavic_boltezar.pin_on_wheel(),
}


# the belt drive assembles 20 elements and 2 x 56 candidates: over 10 s on the shared machine
SLOW = {"belt-drive"}
NAMES = [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(SCENARIOS)]


@pytest.mark.parametrize("name", NAMES)
def test_each_paper_scenario_starts_on_its_constraints(name):
    scenario = SCENARIOS[name]()
    assert isinstance(scenario, Scenario)
    system = scenario.assemble()
    assert scenario.q0.shape == scenario.u0.shape == (system.layout.n,)
    t0 = scenario.t_span[0]
    phi = evaluate_state(system, scenario.q0, np.zeros(system.layout.n), t0).phi
    assert phi.size == len(scenario.model.constraint_names())
    assert np.max(np.abs(phi), initial=0.0) < RESIDUAL
    # the same rows, and the string supports as simulate's start check reads them (the chord of
    # the elements beside a support against its end slopes, to a quarter element: a coarse check
    # that the start reaches its supports, not a residual; the supports' own DOFs are fixed)
    assert constraint_violations(system, scenario.q0, t0, RESIDUAL) == []


@pytest.mark.parametrize("name", NAMES)
def test_run_is_the_explicit_simulate_call(name):
    scenario = SCENARIOS[name]()
    h = scenario.settings["h"]
    t0 = scenario.t_span[0]
    t_span = (t0, t0 + 3 * h)  # three steps: the settings act from the first
    system = scenario.assemble()
    mine = scenario.run(system, t_span=t_span)
    explicit = simulate(
        assemble(scenario.model),
        t_span,
        (np.array(scenario.q0), np.array(scenario.u0)),
        method=scenario.method,
        **scenario.settings,
    )
    assert mine.success and explicit.success
    assert mine.t.size == explicit.t.size >= 2
    for field in ("t", "q", "u"):
        assert np.array_equal(getattr(mine, field), getattr(explicit, field)), field
    assert np.array_equal(mine["energy_error"], explicit["energy_error"])


def test_the_manipulator_details_hold_its_start_forces():
    # the frictionless start is the chosen pose: its normal force is Manipulator.normal_force
    # (0.5 N, the number that fixes the springs) to the Newton tolerance of the pose, 1e-12 N
    scenario = lipinski.manipulator(lipinski.Manipulator(), 0.0)
    assert scenario.details["normal_force"] == pytest.approx(0.5, abs=1e-12)
    assert scenario.details["torque"] == scenario.details["frictionless_torque"]
    with pytest.raises(TypeError):
        scenario.details["torque"] = 0.0  # read-only


def test_a_scenario_goes_to_a_process_pool_and_back():
    # a sweep runs its cases in processes: the scenario is pickled with its read-only parts
    scenario = friction_oscillator.friction_oscillator()
    back = pickle.loads(pickle.dumps(scenario))
    assert back.name == scenario.name and back.method == scenario.method
    assert dict(back.settings) == dict(scenario.settings) and back.t_span == scenario.t_span
    assert np.array_equal(back.q0, scenario.q0) and not back.q0.flags.writeable


def test_bad_scenarios_are_refused_by_name():
    good = friction_oscillator.friction_oscillator()
    args = (good.name, good.model, good.q0, good.u0)
    with pytest.raises(ValueError, match="Scenario.t_span"):
        Scenario(*args, (1.0, 0.5))
    with pytest.raises(ValueError, match="Scenario.method"):
        Scenario(*args, (0.0, 1.0), "rk4")
    with pytest.raises(ValueError, match="Scenario.u0"):
        Scenario(good.name, good.model, good.q0, good.u0[:2], (0.0, 1.0))
    with pytest.raises(ValueError, match="Scenario.q0"):
        Scenario(good.name, good.model, good.q0 * np.nan, good.u0, (0.0, 1.0))
    with pytest.raises(TypeError, match="Scenario.model"):
        Scenario(good.name, "model", good.q0, good.u0, (0.0, 1.0))
    with pytest.raises(ValueError, match="Scenario.settings"):
        Scenario(*args, (0.0, 1.0), settings=[("h", 1e-3)])
    with pytest.raises(ValueError):
        good.q0[0] = 1.0  # the start is read-only: a caller cannot change a shared scenario
