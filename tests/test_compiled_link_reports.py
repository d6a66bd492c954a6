"""The pantograph's droppers and head (``papers.pantograph``, the "penalty" contact) in batches
of compiled steps: the reports and history columns of the links and of the compliant head
built from the kernels' arrays (``batch.StepBatch``, ``compiled._link_steps``) against those
the Python step builds from its own evaluation (``compiled=False``), step by step.

Two spans, 0.25 m elements, h = 1 ms, 0.15 s from the static start at 250 km/h: the head
pressing all along, dropper d1 going slack at 0.069 s and taut again at 0.137 s, d2 slack and
taut twice between 0.121 and 0.145 s. The two runs differ by the round-off of the compiled
step (``test_compiled_pantograph``); measured here (250 km/h, and 350 km/h to 0.31 s, where
the head leaves the wire for one step): the droppers' tensions 1.7e-10 and 4.4e-10 N (4e3 and
8e3 eps of the head's 198 and 248 N), the head's force 2.7e-11 N, points and gaps 2.4e-15 m,
the energies 6.2e-11 J (3 eps of the largest, 1.05e5 J). The states of every contact in every
step are the same; the bounds below are a few times those.
"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact.columns import CONTACT_COLUMNS
from fe_contact.papers.pantograph import pantograph_on_catenary
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.system import assemble

EPS = np.finfo(float).eps
T_END = 0.15


@pytest.fixture(scope="module")
def runs():
    """(system, scenario, {"python", "batches", "reports", "steps"}: SimulationResult): the
    Python step; compiled batches with columns only; compiled batches with every report
    kept; the compiled step one step per call."""
    run = pantograph_on_catenary(2, contact="penalty")
    system = assemble(run.model)
    span = (0.0, T_END)
    out = {
        "python": run.run(system, t_span=span, compiled=False, keep_reports=True),
        "batches": run.run(system, t_span=span, compiled=True),
        "reports": run.run(system, t_span=span, compiled=True, keep_reports=True),
        "steps": run.run(system, t_span=span, compiled=True, batch=False),
    }
    return system, run, out


def test_a_line_with_links_and_a_compliant_head_takes_batches_of_steps(runs):
    system, run, out = runs
    stepper = GeneralizedAlpha(system, 0.0, run.q0, run.u0, compiled=True, **run.settings)
    batch = stepper.steps(100)
    assert batch is not None and batch.n > 1 and batch.stop == "done"
    for result in out.values():
        assert result.success and result.n_steps == round(T_END / 1e-3)
    assert out["batches"].n_compiled == out["batches"].n_steps


def _contact_columns(result, name):
    return {c.name: result[f"{name}_{c.name}"] for c in CONTACT_COLUMNS}


def _compare_columns(system, py, cc):
    """The contact columns of every pair and the balance columns that read them, of the
    compiled run cc against the Python step's py."""
    head_force = np.max(py["head_normal_force"])
    for pair in system.model.contacts:
        a, b = _contact_columns(py, pair.name), _contact_columns(cc, pair.name)
        assert np.array_equal(a["state"], b["state"]), pair.name
        assert np.array_equal(a["n_closed"], b["n_closed"]), pair.name
        # NaN (no point: a slack dropper, the head off the wire) in the same steps; the
        # forces to the droppers' stiffness times the positions' round-off (measured
        # 4.4e-10 N, 8e3 eps of the head's force)
        for key in ("normal_force", "normal_impulse", "friction_force", "friction_impulse"):
            np.testing.assert_allclose(b[key], a[key], rtol=0, atol=3e4 * EPS * head_force)
        # points, gaps and parameters: the positions' round-off (11 eps of their size)
        for key in ("gap", "point_x", "point_y", "parameter", "slip_velocity"):
            scale = max(np.nanmax(np.abs(a[key]), initial=0.0), 1.0)
            np.testing.assert_allclose(b[key], a[key], rtol=0, atol=1e3 * EPS * scale)
    assert np.all(py["friction_power"] == 0.0)  # no friction, nothing slips
    np.testing.assert_array_equal(cc["friction_power"], 0.0)  # not NaN where a point is off
    # the energies against the largest (as ``test_compiled_pantograph``: 100 eps of it)
    scale = max(np.max(np.abs(py[k])) for k in ("kinetic_energy", "potential_energy"))
    for key in ("contact_elastic_energy", "elastic_energy"):
        np.testing.assert_allclose(cc[key], py[key], rtol=0, atol=100 * EPS * scale)


@pytest.mark.parametrize("path", ["batches", "reports", "steps"])
def test_the_compiled_reports_of_the_links_and_the_head_are_the_python_steps(runs, path):
    system, _, out = runs
    py, cc = out["python"], out[path]
    assert cc.n_python == 0
    # a dropper that goes slack and taut again in the Python step's own history
    d1 = py["d1_state"]
    slack = np.flatnonzero(d1 == "slack")
    assert slack.size and d1[0] == "taut" and np.any(d1[slack[-1] + 1 :] == "taut")
    assert set(py["head_state"]) == {"slip"}  # the head pressing all along
    _compare_columns(system, py, cc)


def test_the_head_leaving_the_wire_is_reported_as_the_python_step_reports_it():
    # at 350 km/h the head leaves the wire for one step at 0.308 s: no point, no force
    run = pantograph_on_catenary(2, speed=350 / 3.6, contact="penalty")
    system = assemble(run.model)
    span = (0.0, 0.31)
    py = run.run(system, t_span=span, compiled=False)
    cc = run.run(system, t_span=span, compiled=True)
    assert cc.n_compiled == cc.n_steps == py.n_steps
    off = py["head_state"] == "open"
    assert np.any(off) and np.all(py["head_normal_force"][off] == 0.0)
    assert np.all(py["head_gap"][off] > 0.0) and np.all(np.isnan(py["head_point_x"][off]))
    _compare_columns(system, py, cc)


def test_the_kept_reports_of_a_batch_are_the_python_steps(runs):
    _, _, out = runs
    py, cc = out["python"].reports, out["reports"].reports
    assert len(py) == len(cc)
    for a, b in zip(py, cc, strict=True):
        for x, y in zip(a.contacts, b.contacts, strict=True):
            assert (x.name, x.state, x.n_points) == (y.name, y.state, y.n_points)
            np.testing.assert_allclose(y.normal_force, x.normal_force, rtol=0, atol=1e-9)
            np.testing.assert_allclose(y.point, x.point, rtol=0, atol=1e-10)  # m
            np.testing.assert_allclose(y.normal, x.normal, rtol=0, atol=1e-12)
            assert abs(y.min_gap - x.min_gap) <= 1e-12
