"""The result counts the sub-steps taken compiled and those handed to the Python step.

``SimulationResult.step_path`` says whether the run's stepper has a compiled step;
``n_compiled`` + ``n_python`` = ``n_substeps`` (completed sub-steps), and ``n_fallback`` counts
the compiled attempts handed to the Python step (which completes, halves or stops them). The physics that forces a hand-back: a mass sliding off the
free end of its beam; the compiled step stops at the beam's end, the Python step locates the
departure.
"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble


@pytest.fixture(scope="module")
def system():
    return assemble(sliding_mass_model(0.0, 10))


def test_a_compiled_run_counts_every_step_compiled(system):
    q0, u0 = sliding_mass_initial_state(system)
    result = simulate(system, (0.0, 0.05), (q0, u0), h=1e-3)
    assert result.status == "finished"
    assert result.step_path == "compiled"
    assert result.n_substeps >= result.n_steps == 50  # 0.05 s in steps of 1 ms
    assert result.n_compiled == result.n_substeps
    assert result.n_fallback == 0 and result.n_python == 0


def test_a_run_forced_to_python_counts_none_compiled(system):
    q0, u0 = sliding_mass_initial_state(system)
    result = simulate(system, (0.0, 0.02), (q0, u0), h=1e-3, compiled=False)
    assert result.step_path == "python"
    assert result.n_compiled == 0 and result.n_fallback == 0
    assert result.n_python == result.n_substeps >= 20


def test_leaving_the_beam_is_handed_to_the_python_step(system):
    """0.1 m before the 0.4 m beam's free end at 2 m/s: the mass leaves near t = 0.05 s."""
    q0, u0 = sliding_mass_initial_state(system, x0=0.3, speed=2.0)
    result = simulate(system, (0.0, 0.1), (q0, u0), h=1e-3)
    assert result.status == "event" and "left structure 'beam'" in result.message
    # it left where the beam ends: x = 0.4 m at t ~ 0.1 m / (2 m/s); the coarse bounds allow
    # for the beam's deflection slowing the slide (a few percent)
    assert 0.045 < result.t[-1] < 0.055
    assert result.step_path == "compiled"
    assert result.n_fallback >= 1  # the step that left (and the halves tried on the way)
    assert result.n_compiled + result.n_python == result.n_substeps
    assert result.n_compiled >= 40  # the slide before the end ran compiled
    assert np.all(np.isfinite(result.q))
