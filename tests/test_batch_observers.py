"""The standard observers take a compiled run's batches at once (``add_batch``): the history
file, the ParaView series, the progress lines and the streamed results of a batched run are
those of the same run stepped one step at a time (``batch=False``), where every observer sees
every step's report."""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest

from fe_contact.papers.friction_oscillator import friction_oscillator
from fe_contact.reductions import StreamingResults
from fe_contact.steppers.observers import CsvObserver, ProgressObserver, VtkObserver
from fe_contact.steppers.result import read_history
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

T_END, H, STRIDE = 0.3, 1e-3, 13  # 300 steps: the oscillator breaks loose and sticks
# the batch computes the velocity residual's column by its own sums: within a few ulp of the
# velocities (|u| < 1 m/s), 1e-15 m/s
RESIDUAL = 1e-15
RESULTS = (
    "max:block_normal_force",
    "mean:dissipated_friction",
    "final:block_slip_velocity",
    "max_abs:energy_error",
)


def _run(folder, batch: bool):
    scenario = friction_oscillator()
    system = assemble(scenario.model)
    results = StreamingResults(RESULTS)
    observers = [
        CsvObserver(folder / "history.csv"),
        VtkObserver(folder, "frames", stride=STRIDE),
        ProgressObserver("oscillator"),
        results,
    ]
    lines = []
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: lines.append(re.sub(r"\([^()]*s\)$", "", record.getMessage()))
    logger = logging.getLogger("fe_contact.progress")
    logger.addHandler(handler)
    try:
        r = simulate(
            system, (0.0, T_END), (scenario.q0, scenario.u0), h=H, observers=observers,
            batch=batch,
        )  # fmt: skip
    finally:
        logger.removeHandler(handler)
    return r, results.values(), lines


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return tmp_path_factory.mktemp("batched"), tmp_path_factory.mktemp("stepped")


def test_observers_write_a_batched_run_as_the_run_step_by_step(folders):
    batched, stepped = folders
    a, values_a, lines_a = _run(batched, True)
    b, values_b, lines_b = _run(stepped, False)
    assert a.status == b.status == "finished"
    assert a.n_compiled > 0.9 * a.n_steps  # the batched run took its steps in batches
    # the history file: every step, the same numbers
    ha, hb = read_history(batched / "history.csv"), read_history(stepped / "history.csv")
    assert list(ha) == list(hb) and len(ha["t"]) == round(T_END / H) + 1
    for name, x in ha.items():
        y = hb[name]
        if x.dtype.kind in "UO":
            assert x.tolist() == y.tolist(), name
        elif name == "residual_velocity":
            assert np.max(np.abs(x - y)) <= RESIDUAL, name
        else:
            assert np.array_equal(x, y, equal_nan=True), name
    # the ParaView series: the same frames (every STRIDE-th step and the last), the same files
    frames_a = sorted(p.name for p in batched.glob("frames_*"))
    frames_b = sorted(p.name for p in stepped.glob("frames_*"))
    n = round(T_END / H)
    n_frames = sum(name.endswith(".vtm") for name in frames_a)
    assert frames_a == frames_b and n_frames == n // STRIDE + 1 + (n % STRIDE != 0)
    for name in frames_a:
        fa, fb = batched / name, stepped / name
        if fa.is_file():
            assert fa.read_bytes() == fb.read_bytes(), name
        else:
            for part in fa.iterdir():
                assert part.read_bytes() == (fb / part.name).read_bytes(), part.name
    assert (batched / "frames.pvd").read_text() == (stepped / "frames.pvd").read_text()
    # the progress lines at the same steps and times, and the streamed results
    assert lines_a == lines_b and len(lines_a) >= 10
    assert values_a.keys() == values_b.keys() and values_a
    for key, value in values_a.items():
        assert value == values_b[key] or (np.isnan(value) and np.isnan(values_b[key])), key
