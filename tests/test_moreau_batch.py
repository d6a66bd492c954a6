"""Steps of one compiled Moreau-Jean sub-step reported from the kernel's flat arrays
(``kernels.moreau.substep``'s energies, ``steppers.moreau_batch``) against independent
evaluations: ``system.energies`` of the reported state, the report of the Python sub-step
(``MoreauJean._report`` on ``ClosedContacts``), and ``step_report.history_row`` of each report
with the Python energies.

Tolerances: the kernel sums the energies in loops and by other formulas (1/2 u^T M u through
the band for the string; 1/2 u^T (sum I jw^T jw) u for the tree's rotation) where numpy sums
products of arrays: round-off of the energies' size (100 J in example 1), held to 1e-11 J
(measured 4.4e-16 J over 2 s). The Python sub-step differs from the compiled one by round-off
per step (``test_moreau_substep``: q to 1e-12 m, u to 1e-9 m/s over these 300 steps); the
reports' impulses are held to 1e-9 N s, points and gaps to 1e-12 m. The batched history and
the rows of the reports use the same arithmetic for every column but the energies.
"""

import numpy as np
import pytest

from fe_contact.papers import eugster_glocker as eg
from fe_contact.steppers import moreau_batch
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.moreau_substep import WholeSubstep
from fe_contact.steppers.simulate import simulate
from fe_contact.steppers.step_report import history_row, no_work
from fe_contact.system import energies

ENERGY_TOL = 1e-11  # J
FIELDS = ("tree_kinetic", "structure_kinetic", "gravity", "tree_springs", "structure_elastic")
FIELDS += ("damping_power", "load_power")


def example_1(steps, compiled, monkeypatch):
    """(system, reports) of example 1 (the heavy disk dropped on the string, theta 0.55)."""
    scenario = eg.disk_on_string(1, 2, eg.FRICTION, 0.0, None)
    system = scenario.assemble()
    with monkeypatch.context() as patch:
        if not compiled:
            patch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
        stepper = MoreauJean(system, 0.0, scenario.q0, scenario.u0, h=1e-3, theta=0.55)
        reports = [stepper.step() for _ in range(steps)]
    return system, reports


def test_kernel_energies_are_those_of_the_state(monkeypatch):
    """The energies a compiled step reports are ``system.energies`` of its state, term by term
    (the impact at ~0.045 s and 0.25 s in contact)."""
    system, reports = example_1(300, True, monkeypatch)
    assert sum(r.contacts[0].n_points > 0 for r in reports) > 200
    for r in reports:
        python = energies(system, r.q, r.u, r.t)
        for field in FIELDS:
            assert abs(getattr(r.energy, field) - getattr(python, field)) <= ENERGY_TOL, field
        assert r.energy.structure_elastic_parts[0][0] == python.structure_elastic_parts[0][0]
        assert abs(r.energy.total - python.total) <= ENERGY_TOL


def test_compiled_report_is_the_python_report(monkeypatch):
    """The report built from the flat arrays (``compiled_report``) is that of the Python
    sub-step's ``ClosedContacts``: the same closed candidates and states, the same impulses,
    points, normals and gaps to round-off."""
    _, fast = example_1(300, True, monkeypatch)
    _, plain = example_1(300, False, monkeypatch)
    closed = 0
    for a, b in zip(fast, plain, strict=True):
        assert a.t == b.t and a.n_substeps == b.n_substeps and a.n_newton == b.n_newton
        for c, d in zip(a.contacts, b.contacts, strict=True):
            assert c.state == d.state and c.point_state == d.point_state
            assert c.n_points == d.n_points
            closed += c.n_points
            np.testing.assert_allclose(c.normal_impulse, d.normal_impulse, rtol=0, atol=1e-9)
            np.testing.assert_allclose(c.friction_impulse, d.friction_impulse, rtol=0, atol=1e-9)
            np.testing.assert_allclose(c.normal_force, d.normal_force, rtol=0, atol=1e-6)
            np.testing.assert_allclose(c.slip_velocity, d.slip_velocity, rtol=0, atol=1e-9)
            for field in ("point", "normal", "tangent", "gap", "parameter"):
                np.testing.assert_allclose(
                    getattr(c, field), getattr(d, field), rtol=0, atol=1e-12, err_msg=field
                )
            assert abs(c.min_gap - d.min_gap) <= 1e-12
    assert closed > 500


@pytest.fixture(scope="module")
def histories():
    """Example 1 over 0.3 s simulated twice: batched (no observer) and with every report
    kept (``keep_reports``: the recorder builds each step's report and row)."""
    scenario = eg.disk_on_string(1, 2, eg.FRICTION, 0.0, None)
    system = scenario.assemble()
    calls = []
    columns = moreau_batch.MoreauBatch.columns
    mp = pytest.MonkeyPatch()
    mp.setattr(
        moreau_batch.MoreauBatch,
        "columns",
        lambda self, *a: calls.append(self.n) or columns(self, *a),
    )
    try:
        kw = {"method": "moreau", "h": 1e-3, "theta": 0.55}
        batched = simulate(system, (0.0, 0.3), (scenario.q0, scenario.u0), **kw)
    finally:
        mp.undo()
    kept = simulate(system, (0.0, 0.3), (scenario.q0, scenario.u0), keep_reports=True, **kw)
    return system, batched, kept, calls


def test_batched_history_is_the_rows_of_the_reports(histories):
    """Every history column of the batched run equals ``history_row`` of the reports of the
    same steps, with the Python energies of each reported state and the work summed step by
    step (states and counts exactly; forces, points and energies to round-off)."""
    system, batched, kept, calls = histories
    assert batched.status == kept.status == "finished"
    assert sum(calls) > 0.8 * batched.n_steps  # most steps were batched
    assert len(kept.reports) == batched.t.size
    np.testing.assert_array_equal(batched.q, kept.q)
    first = kept.reports[0]
    energy0 = energies(system, first.q, first.u, first.t).total
    work = no_work()
    for k, report in enumerate(kept.reports):
        for key, value in report.work.items():
            work[key] += value
        row = history_row(
            system, report, energies(system, report.q, report.u, report.t), work, energy0
        )
        for name, value in row.items():
            got = batched.columns[name][k] if name != "t" else batched.t[k]
            if isinstance(value, str):
                assert got == value, (name, k)
            else:
                np.testing.assert_allclose(
                    got, value, rtol=1e-12, atol=ENERGY_TOL, equal_nan=True, err_msg=name
                )


def test_a_step_failing_inside_a_batch_keeps_every_completed_step(monkeypatch):
    """A sub-step that raises in the middle of a batch (before the impact, at the step to
    t = 0.021 s) ends the run "failed": the 20 completed steps of the batch are rows, on the
    step grid, and the message names the error and the last completed step."""
    scenario = eg.disk_on_string(1, 2, eg.FRICTION, 0.0, None)
    system = scenario.assemble()
    run = WholeSubstep.run

    def failing(self, stepper, h, may_reject):
        if stepper.t >= 0.0205:
            raise FloatingPointError("a test's failure")
        return run(self, stepper, h, may_reject)

    monkeypatch.setattr(WholeSubstep, "run", failing)
    kw = {"method": "moreau", "h": 1e-3, "theta": 0.55}
    r = simulate(system, (0.0, 0.1), (scenario.q0, scenario.u0), **kw)
    assert r.status == "failed" and "a test's failure" in r.message, r.message
    assert "last completed step at t = 0.021 s" in r.message, r.message
    assert r.n_steps == 21 and r.t.size == 22
    np.testing.assert_allclose(r.t, 1e-3 * np.arange(22), atol=1e-12)
