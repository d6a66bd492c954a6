"""The event-driven stepper's quiet steps in one compiled call (``EventDriven.steps``,
``kernels.rough_steps.quiet_steps``, ``steppers.rough_batch``) against the same run taken one
``step()`` at a time (``batch=False``), through the pin's landing and its impacts.

Both paths do the same operations in the same order, so they agree to round-off: the bound
below (1e-9 relative) leaves room for a BLAS whose products differ in the last bit."""

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.papers.slavic_boltezar import PinOnWheel, pin_on_wheel, simulate_pin
from fe_contact.steppers import event_driven
from fe_contact.steppers.event_driven import EventDriven

DATA = replace(PinOnWheel(), t_end=6e-5)  # the pin lands at 1.2 us; impacts follow
RTOL = 1e-9


def close(a, b, scale) -> bool:
    """a and b (arrays) within RTOL of scale, NaN where the other is NaN."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(
        np.allclose(a, b, rtol=0.0, atol=RTOL * scale, equal_nan=True)
    )


def same_history(one, other) -> None:
    """Two SimulationResults of the same run: same steps, events, states, columns, losses."""
    assert one.n_steps == other.n_steps and one.n_substeps == other.n_substeps
    assert [e[1:] for e in one.events] == [e[1:] for e in other.events]
    assert close([e[0] for e in one.events], [e[0] for e in other.events], DATA.t_end)
    assert close(one.t, other.t, DATA.t_end)
    for values, others in ((one.q, other.q), (one.u, other.u)):
        assert close(values, others, np.abs(values).max(axis=0))
    for name, values in one.columns.items():
        others = other.columns[name]
        if values.dtype.kind in "UO":
            assert values.tolist() == others.tolist(), name
        else:
            assert close(values, others, max(np.nanmax(np.abs(values), initial=0.0), 1e-300)), name
    for mine, theirs in zip(one.losses, other.losses, strict=True):
        assert close(mine.profile, theirs.profile, mine.profile.max())
        assert close(mine.target, theirs.target, mine.target.max())


@pytest.fixture(scope="module")
def runs():
    scenario = pin_on_wheel(DATA)
    system = scenario.assemble()
    one_by_one = scenario.run(system, batch=False)
    batched = scenario.run(system)
    return system, scenario, one_by_one, batched


def test_batched_run_is_the_run_step_by_step(runs):
    _, _, one_by_one, batched = runs
    assert batched.success and len(batched.events) >= 4
    same_history(batched, one_by_one)


def test_counters_say_which_steps_ran_in_batches(runs):
    """The result's counters: the batched run's steps taken in compiled batches (n_compiled,
    counted from the batches' own lengths here) and those ``step()`` took (n_python), the
    run step by step all Python."""
    system, scenario, one_by_one, batched = runs
    assert (batched.step_path, one_by_one.step_path) == ("compiled", "python")
    assert one_by_one.n_compiled == 0 and one_by_one.n_python == one_by_one.n_substeps
    stepper = EventDriven(system, 0.0, scenario.q0, scenario.u0, t_bound=DATA.t_end)
    in_batches = 0
    while stepper.status == "running":
        left = stepper.steps_left()
        batch = stepper.steps(left - 1) if left > 1 else None
        in_batches += 0 if batch is None else batch.n
        if batch is None or batch.stop != "done":
            stepper.step()
    assert stepper.n_compiled == in_batches > 0
    assert batched.n_compiled == in_batches
    assert batched.n_python == batched.n_substeps - in_batches > 0


def test_batched_run_balances_its_energy(runs):
    """Work of the wheel's drive = change of mechanical energy + damper losses + sum of W(s),
    to the midpoint rule's error (``test_pin_on_wheel``: 1e-5 of the drive's work)."""
    _, _, _, batched = runs
    work = batched["work_drives"][-1]
    assert work > 0.0
    assert abs(batched["energy_error"][-1]) < 1e-5 * work
    loss = batched.losses[0]
    dissipated = batched["dissipated_friction"][-1] + batched["dissipated_impact"][-1]
    assert loss.profile.sum() + loss.target.sum() == pytest.approx(dissipated, rel=1e-9)


def test_reports_of_a_batch_are_the_reports_of_its_steps(runs):
    """keep_reports and an observer that reads reports: the batch's reports (``report``) give
    the history of the steps' own, and every step is seen once, in order."""
    system, scenario, one_by_one, _ = runs
    seen = []
    reports = scenario.run(
        system, keep_reports=True, observers=[lambda s, r, row: seen.append(r.t)]
    )
    same_history(reports, one_by_one)
    assert close(seen, one_by_one.t, DATA.t_end)
    assert len(reports.reports) == len(one_by_one.t)
    closed = [r.contacts[0].n_points for r in reports.reports]
    assert close(closed, one_by_one["pin_n_closed"], 1.0)


def test_a_batch_stops_before_the_step_that_needs_python(runs):
    """From rest the pin falls freely until its first closing: the batch stops at the step
    that penetrates (a halving, Python's), which ``step()`` then takes, halved."""
    system, scenario, _, _ = runs
    stepper = EventDriven(system, 0.0, scenario.q0, scenario.u0, t_bound=DATA.t_end)
    batch = stepper.steps(1000)
    assert batch.n > 0 and batch.stop == "step" and batch.reason == "halving"
    assert stepper.n_steps == batch.n and stepper.t == batch.t[-1]
    report = stepper.step()
    assert stepper.n_rejected > 0 and report.h < stepper.h


def test_contact_angles_from_a_batch_are_those_of_the_reports(monkeypatch):
    """The pin's contact-angle observer reads a batch's arrays: the same angles and weights as
    from the reports of a run step by step."""
    batched = simulate_pin(DATA)

    class OneByOne(event_driven.EventDriven):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "batch": False})

    monkeypatch.setattr(event_driven, "EventDriven", OneByOne)  # simulate's stepper
    one_by_one = simulate_pin(DATA)
    assert batched.angles.size == one_by_one.angles.size > 0
    assert close(batched.angles, one_by_one.angles, np.pi)
    assert close(batched.weights, one_by_one.weights, one_by_one.weights.max())


def test_a_stride_keeps_the_same_rows_batched(runs):
    """store_every = 7: the batched run keeps every 7th step and the last, as step by step."""
    system, scenario, _, _ = runs
    batched = scenario.run(system, store_every=7)
    one_by_one = scenario.run(system, store_every=7, batch=False)
    assert 7 < batched.t.size < one_by_one.n_steps
    same_history(batched, one_by_one)


def test_impacts_are_taken_in_the_batches(runs):
    """Poisson's impacts at the start of a step are taken in the compiled call (the events of
    the run step by step, ``test_batched_run_is_the_run_step_by_step``): the loop of
    ``simulate`` finds most of them in its batches."""
    system, scenario, one_by_one, _ = runs
    stepper = EventDriven(system, 0.0, scenario.q0, scenario.u0, t_bound=DATA.t_end)
    in_batches = 0
    while stepper.status == "running":
        left = stepper.steps_left()
        if left > 1:
            batch = stepper.steps(left - 1)
            in_batches += int(batch.impact.sum())
            if batch.stop == "done":
                continue
        stepper.step()
    assert stepper.n_impacts == len(stepper.events) == len(one_by_one.events)
    assert 0 < in_batches <= stepper.n_impacts
