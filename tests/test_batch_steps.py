"""Quiet steps taken several in one compiled call (``steppers.batch``) against ``step()``.

A batch takes exactly the steps ``GeneralizedAlpha.step`` takes when nothing but the step
happens in them (the same compiled Newton iteration, commit, energies and trapezoidal work),
and stops before any step in which an event, a restart, a re-partition or a failure could
happen; ``step()`` takes that one. A run with batches must therefore reproduce the run
without them (``batch=False``) bit for bit: every history column, the states, multipliers,
events, status and message. The one exception is ``residual_velocity``, the largest
|J u + phi_t|, formed by BLAS in both but through different calls: it agrees to 1e-16 m/s, at
its own round-off level (~1e-13 m/s).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_compiled import rolling_disk_on_beam

from fe_contact.papers.friction_oscillator import friction_oscillator
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.steppers.observers import CsvObserver
from fe_contact.steppers.result import read_history
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble


@pytest.fixture
def counted(monkeypatch):
    """Counts the steps taken in batches (dict: calls, steps)."""
    count = {"calls": 0, "steps": 0}
    original = GeneralizedAlpha.steps

    def steps(self, n_max):
        batch = original(self, n_max)
        count["calls"] += 1
        count["steps"] += 0 if batch is None else batch.n
        return batch

    monkeypatch.setattr(GeneralizedAlpha, "steps", steps)
    return count


def sliding_mass(mu, n_elements=10, speed=0.5):
    system = assemble(sliding_mass_model(mu, n_elements))
    return system, *sliding_mass_initial_state(system, 0.1, speed)


def oscillator():
    scenario = friction_oscillator()
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    return assemble(model), q0, u0


def assert_identical(a, b):
    assert (a.status, a.message) == (b.status, b.message)
    assert a.events == b.events
    assert (a.n_steps, a.n_newton, a.n_substeps) == (b.n_steps, b.n_newton, b.n_substeps)
    for name in ("t", "q", "u", "multipliers"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and np.array_equal(x, y), name
    assert list(a.columns) == list(b.columns)
    for name, x in a.columns.items():
        y = b.columns[name]
        assert x.shape == y.shape and x.dtype.kind == y.dtype.kind, name
        if name == "residual_velocity":
            assert np.max(np.abs(x - y)) <= 1e-16, name
        else:
            assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name


@pytest.mark.parametrize(
    "case, t_end, h, events",
    [
        ("frictionless", 0.2, 1e-3, []),
        ("sticks", 0.3, 1e-3, ["stick"]),  # slows at about mu g and sticks near t = 0.27 s
        ("oscillator", 1.1, 1e-3, ["slip", "stick", "slip"]),  # breaks loose, sticks, again
        ("rolls", 0.2, 1e-3, []),  # a disk rolling on the beam (sticking from the start)
    ],
)
def test_batches_reproduce_the_step_by_step_run(counted, case, t_end, h, events):
    system, q0, u0 = {
        "frictionless": lambda: sliding_mass(0.0),
        "sticks": lambda: sliding_mass(0.2),
        "oscillator": oscillator,
        "rolls": rolling_disk_on_beam,
    }[case]()
    a = simulate(system, (0.0, t_end), (q0, u0), h=h)
    taken = counted["steps"]
    b = simulate(system, (0.0, t_end), (q0, u0), h=h, batch=False)
    assert counted["steps"] == taken  # batch=False takes none
    n = round(t_end / h)
    # all but the steps around the events (and the last) were taken in batches
    assert taken >= n - 1 - 4 * len(events)
    assert [e[2] for e in a.events] == events
    assert a.status == "finished"
    assert_identical(a, b)
    # every 7th state kept (and the last)
    a = simulate(system, (0.0, t_end), (q0, u0), h=h, store_every=7)
    b = simulate(system, (0.0, t_end), (q0, u0), h=h, store_every=7, batch=False)
    assert len(a.t) == n // 7 + 1 + (n % 7 != 0)
    assert_identical(a, b)


def test_leaving_the_beam_ends_the_run_as_step_by_step(counted):
    # at 0.5 m/s from x = 0.1 m the mass leaves the 0.4 m beam near t = 0.55 s
    system, q0, u0 = sliding_mass(0.0, n_elements=6)
    a = simulate(system, (0.0, 0.8), (q0, u0), h=2e-3)
    b = simulate(system, (0.0, 0.8), (q0, u0), h=2e-3, batch=False)
    assert a.status == "event" and "left structure" in a.message
    assert counted["steps"] >= 250
    assert_identical(a, b)


def test_observers_stride_and_reports_see_every_step_as_step_by_step(counted, tmp_path):
    system, q0, u0 = oscillator()
    runs, seen_by = {}, {}
    for batch in (True, False):
        csv = CsvObserver(tmp_path / f"{batch}.csv")
        seen = []
        runs[batch] = simulate(
            system,
            (0.0, 0.6),
            (q0, u0),
            h=1e-3,
            observers=(csv, lambda system, report, row, seen=seen: seen.append((report.t, row))),
            store_every=7,
            keep_reports=True,
            batch=batch,
        )
        seen_by[batch] = seen
    a, b = runs[True], runs[False]
    assert counted["steps"] >= 550
    assert_identical(a, b)
    assert len(a.t) == 600 // 7 + 2  # the initial state, every 7th step and the last
    assert len(seen_by[True]) == len(seen_by[False]) == 601
    for (ta, ra), (tb, rb) in zip(seen_by[True], seen_by[False], strict=True):
        assert ta == tb and ra.keys() == rb.keys()
        for key, value in ra.items():
            if key != "residual_velocity":
                assert value == rb[key] or (value != value and rb[key] != rb[key]), key
    for ra, rb in zip(a.reports, b.reports, strict=True):
        assert np.array_equal(ra.q, rb.q) and ra.work == rb.work
        assert ra.energy == rb.energy
        for ca, cb in zip(ra.contacts, rb.contacts, strict=True):
            assert ca.state == cb.state
            for field in ("point", "normal", "tangent", "normal_force", "friction_impulse"):
                assert np.array_equal(getattr(ca, field), getattr(cb, field)), field
    ha, hb = read_history(tmp_path / "True.csv"), read_history(tmp_path / "False.csv")
    for name, x in ha.items():
        if name != "residual_velocity":
            assert np.array_equal(x, hb[name], equal_nan=x.dtype.kind == "f"), name


def test_batch_setting_is_checked():
    system, q0, u0 = sliding_mass(0.0)
    with pytest.raises(TypeError, match="batch"):
        simulate(system, (0.0, 0.01), (q0, u0), h=1e-3, batch="no")
