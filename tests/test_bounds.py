"""Bounds before any work and results streamed as a run goes.

* The scalar results of ``run`` / ``sweep`` (final, initial, max, min, mean, max_abs of a
  history column) reduced row by row equal those reduced from the whole ``history.csv``.
* A run of too many steps, a model of too many unknowns, a run that would keep too many rows
  and a sweep of too many cases are refused before any work (in a fraction of a second,
  allocating less than a megabyte), with the estimate and how to raise the limit; raised, the
  same work is accepted.
* Magnitudes that overflow or make the matrices singular in floating point are refused at
  construction, naming the parameter; within the band the matrices are finite and factorise.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
import tracemalloc

import numpy as np
import pytest
import scipy.linalg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fe_contact import (
    BeamSpec,
    Body,
    Circle,
    LinearElastic,
    Model,
    StringSpec,
    assemble,
    load_model,
    save_model,
    simulate,
)
from fe_contact.cli import main
from fe_contact.demos import sliding_mass
from fe_contact.elements.beam import assemble_beam
from fe_contact.limits import (
    CASES_ENV,
    MEMORY_ENV,
    STEPS_ENV,
    LimitExceeded,
    memory_estimate,
)
from fe_contact.reductions import STATISTICS, RunningStatistic, reduce_column
from fe_contact.steppers.result import read_history
from fe_contact.steppers.simulate import result_memory
from fe_contact.sweep import Variation, plan

EPS = np.finfo(float).eps
STEEL = dict(youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015)


@pytest.fixture(autouse=True)
def default_limits(monkeypatch):
    """The library's own defaults, whatever the environment of the test run says."""
    for name in (MEMORY_ENV, STEPS_ENV, CASES_ENV):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture()
def model_path(tmp_path):
    """The sliding-mass demo's model file, 50 ms (500 steps), with every statistic of three
    columns as its results."""
    run_file = sliding_mass.model_file(mu=0.2, t_end=0.05)
    columns = ("mass_normal_force", "mass_parameter", "energy_error")
    specs = [f"{s}:{c}" for s in STATISTICS for c in columns]
    output = dataclasses.replace(run_file.output, results=tuple(specs), frame_every=0.0)
    path = save_model(dataclasses.replace(run_file, output=output), tmp_path / "sliding.toml")
    return path, specs


def refused_quickly(call, *words):
    """``call()`` raises LimitExceeded within 0.5 s, allocating less than 1 MB (measured by
    tracemalloc: numpy's buffers are traced), with every one of ``words`` in its message."""
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(LimitExceeded) as info:
        call()
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 0.5, elapsed
    assert peak < 1e6, peak
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    return str(info.value)


# -- results reduced as the run goes --------------------------------------------------------


def test_streamed_results_equal_the_whole_history(model_path, tmp_path):
    path, specs = model_path
    assert "mean:energy_error" in path.read_text()
    out = tmp_path / "run"
    assert main(["run", str(path), "--out", str(out), "--record-every", "7", "-q"]) == 0
    streamed = json.loads((out / "status.json").read_text())["results"]
    history = read_history(out / "history.csv")
    assert len(history["t"]) == 501
    for spec in specs:
        stat, column = spec.split(":")
        whole = reduce_column(history[column], stat)
        if stat == "mean":
            # Neumaier's compensated sum errs by <= 2 eps |sum| and numpy's pairwise sum by
            # <= (log2 k + 1) eps sum|v| (Higham, ch. 4); each division adds an ulp
            values = history[column]
            bound = (math.log2(values.size) + 4.0) * EPS * np.mean(np.abs(values))
            assert abs(streamed[spec] - whole) <= bound, (spec, streamed[spec], whole)
        else:
            # a selected row (first, last, largest): the CSV holds repr(float), which reads
            # back to the same double, and no arithmetic is involved
            assert streamed[spec] == whole, spec
    assert streamed["max:mass_normal_force"] > 0.0  # the mass presses on the beam


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(-1e6, 1e6),
            st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0]),
        ),
        min_size=0,
        max_size=200,
    )
)
def test_running_statistics_against_numpy(values):
    for stat in STATISTICS:
        running = RunningStatistic(stat)
        for v in values:
            running.add(v)
        whole = reduce_column(values, stat)
        if math.isnan(whole):
            assert math.isnan(running.value), (stat, values)
        elif stat == "mean" and math.isfinite(whole):
            # as above: compensated against pairwise summation
            k = len(values)
            bound = (math.log2(k) + 4.0) * EPS * np.mean(np.abs(values))
            assert abs(running.value - whole) <= bound, (stat, running.value, whole)
        else:
            assert running.value == whole, (stat, running.value, whole)


# -- the step count --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slider():
    """The sliding-mass system and its initial state (a few ms of simulated time)."""
    run_file = sliding_mass.model_file(mu=0.2, t_end=0.002)
    system = assemble(run_file.model)
    return system, run_file.initial.state(system)


def test_a_step_of_1e_30_is_refused_with_the_step_count(slider):
    system, y0 = slider
    message = refused_quickly(
        lambda: simulate(system, (0.0, 0.2), y0, h=1e-30),
        "simulate.h",
        "2e+29 steps",
        "1e+08",
        "max_steps=",
        STEPS_ENV,
    )
    assert message.startswith("simulate.h: got 1e-30")


def test_the_step_limit_is_raised_when_asked(slider, monkeypatch):
    system, y0 = slider
    # 20 steps of 1e-4 s: refused under a limit of 19, run under 20, by keyword and by env
    refused_quickly(lambda: simulate(system, (0.0, 0.002), y0, h=1e-4, max_steps=19), "20 steps")
    result = simulate(system, (0.0, 0.002), y0, h=1e-4, max_steps=20)
    assert result.status == "finished" and result.n_steps == 20
    monkeypatch.setenv(STEPS_ENV, "19")
    refused_quickly(lambda: simulate(system, (0.0, 0.002), y0, h=1e-4), "limit of 19 steps")


def test_a_step_that_cannot_advance_the_time_is_refused(slider):
    system, y0 = slider
    # ulp(1e10) = 1.9e-6 s: t + 1e-7 == t in floating point, though the count is only 1e6
    refused_quickly(
        lambda: simulate(system, (1e10, 1e10 + 0.1), y0, h=1e-7), "simulate.h", "4 ulp(t)"
    )


def test_a_run_keeping_too_many_rows_is_refused(slider):
    system, y0 = slider
    # 1e7 steps of 1e-6 s kept one by one: more than 1e9 bytes
    refused_quickly(
        lambda: simulate(system, (0.0, 10.0), y0, h=1e-6, max_memory=1e9),
        "simulate.store_every",
        "rows",
        "max_memory=",
        MEMORY_ENV,
    )


def test_a_model_file_with_too_many_steps_exits_2_before_any_work(model_path, tmp_path, capsys):
    path, _ = model_path
    out = tmp_path / "run"
    code = main(["run", str(path), "--set", "simulation.h=1e-30", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert "simulation.h" in err and "5e+28 steps" in err and STEPS_ENV in err
    assert not out.exists()


# -- memory of a model -----------------------------------------------------------------------


def test_a_billion_elements_are_refused_at_construction():
    message = refused_quickly(
        lambda: BeamSpec(length=0.4, n_elements=1_000_000_000, **STEEL), "BeamSpec.n_elements"
    )
    assert "ratio 1e+09" in message and "1e+06" in message


def test_the_element_ratio_limit_sits_at_a_million():
    """L / le <= 1e6 is accepted (the local Hermite element is exact on any mesh; the limit is
    the round-off of curvature in nodal fields, ``limits`` docstring), one more element is not.
    Only the specs are built: nothing is assembled."""
    BeamSpec(length=0.4, n_elements=1_000_000, **STEEL)
    refused_quickly(
        lambda: BeamSpec(length=0.4, n_elements=1_000_001, **STEEL), "BeamSpec.n_elements", "1e+06"
    )


def test_memory_estimate_refused_and_accepted_when_raised(monkeypatch):
    beams = {f"b{i}": BeamSpec(length=0.4, n_elements=10, **STEEL) for i in range(3)}
    model = Model(structures=beams)
    n = 3 * 22  # 2 DOFs per node, 11 nodes per beam, no tree (the clamped ones counted too)
    need = memory_estimate(n)
    assert need == 5000.0 * n  # 330 000 bytes: exact in doubles
    message = refused_quickly(
        lambda: assemble(model, max_memory=need - 1.0),
        "BeamSpec.n_elements of structure 'b0'",
        "66 unknowns",
        f"{need:.3g} bytes",
        "max_memory=",
        MEMORY_ENV,
    )
    assert "got 10" in message
    system = assemble(model, max_memory=need)
    assert system.layout.n == n - 3 * 2  # the state leaves out each clamp's two DOFs
    monkeypatch.setenv(MEMORY_ENV, str(need - 1.0))
    refused_quickly(lambda: assemble(model), MEMORY_ENV)


def test_a_model_file_over_the_memory_limit_exits_2(model_path, tmp_path, capsys, monkeypatch):
    path, _ = model_path
    monkeypatch.setenv(MEMORY_ENV, "1000")
    out = tmp_path / "run"
    assert main(["run", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "structures: BeamSpec.n_elements of structure 'beam'" in err
    assert "limit of 1e+03 bytes" in err and MEMORY_ENV in err and not out.exists()


def test_a_long_run_keeping_every_row_exits_2_and_runs_with_record_every(
    model_path, tmp_path, capsys, monkeypatch
):
    path, _ = model_path
    system = assemble(load_model(path).model)
    need = result_memory(system, 500, 1, False)  # 502 rows (the first and last kept always)
    assert result_memory(system, 500, 100, False) < need / 50
    monkeypatch.setenv(MEMORY_ENV, str(need / 2))
    out = tmp_path / "run"
    assert main(["run", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("fe-contact run: --record-every = 1: keeps 500 rows")
    assert "a larger --record-every N" in err and MEMORY_ENV in err and not out.exists()
    assert main(["run", str(path), "--out", str(out), "--record-every", "100", "-q"]) == 0


# -- sweeps ----------------------------------------------------------------------------------


def test_a_million_values_are_refused_before_they_are_made():
    refused_quickly(
        lambda: Variation.parse("contacts.slider.mu=0:0.3:1000000"),
        "1000000 cases",
        "limit of 1000",
        "--max-cases",
        CASES_ENV,
    )


def test_a_sweep_over_the_limit_is_refused_and_runs_when_asked(model_path, tmp_path, capsys):
    path, _ = model_path
    text = path.read_text().replace("t_end = 0.05", "t_end = 0.001")
    path.write_text(text)
    out = tmp_path / "sweep"
    argv = ["sweep", str(path), "--vary", "contacts.mass.mu=0:0.2:3", "--out", str(out)]
    assert main([*argv, "--max-cases", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "3 cases" in err and "limit of 2 cases" in err
    assert "--max-cases" in err and not out.exists()
    assert main([*argv, "--max-cases", "3", "--record-every", "4"]) == 0
    err = capsys.readouterr().err
    # --jobs not given: one process per CPU core, at most one per case (the demos' default)
    jobs = min(os.cpu_count() or 1, 3)
    where = f"on {jobs} local process{'es' * (jobs > 1)}"
    assert f"3 cases (limit 3: --max-cases) {where}" in err
    assert (out / "summary.csv").read_text().count("finished") == 3


def test_plan_counts_the_product_before_building_a_case():
    variations = [
        Variation.parse("contacts.mass.mu=0:0.3:40"),
        Variation.parse("structures.beam.n_elements=1:40:40"),
    ]
    # the document is not even read: the count (1600 > 1000) comes first
    refused_quickly(lambda: plan({}, variations), "1600 cases", "limit of 1000")


# -- magnitudes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda: BeamSpec(length=1e300, **STEEL), "BeamSpec.length"),
        (lambda: BeamSpec(**{**STEEL, "youngs_modulus": 1e300}, length=0.4), "BeamSpec.youngs"),
        (lambda: BeamSpec(**{**STEEL, "width": 1e-200}, length=0.4), "BeamSpec.width"),
        (lambda: Body(mass=1e300, inertia=0.0), "Body.mass"),
        (lambda: Body(mass=1.0, inertia=1e300), "Body.inertia"),
        (lambda: BeamSpec(**{**STEEL, "height": 1e-31}, length=0.4), "BeamSpec.height"),
        (lambda: Circle(body=0, radius=1e-200), "Circle.radius"),
        (lambda: LinearElastic(EA=1e300), "LinearElastic.EA"),
        (
            lambda: StringSpec(length=1e300, n_elements=4, density=0.3, law=LinearElastic(1e3)),
            "StringSpec.length",
        ),
        (lambda: Body(1.0, 1.0, centre_of_mass=(1e300, 0.0)), "Body.centre_of_mass"),
    ],
)
def test_extreme_magnitudes_are_refused_naming_the_parameter(make, name):
    message = refused_quickly(make, name)
    assert "magnitude" in message and "floating point" in message


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.floats(-30.0, 30.0), min_size=5, max_size=5))
def test_within_the_band_the_beam_matrices_are_finite_and_factorise(logs):
    length, modulus, density, width, height = (10.0**x for x in logs)
    spec = BeamSpec(
        length=length,
        n_elements=4,
        youngs_modulus=modulus,
        density=density,
        width=width,
        height=height,
    )
    beam = assemble_beam(spec)  # clamped at the left: both matrices symmetric positive definite
    free = beam.free_dofs
    for matrix in (beam.mass_matrix, beam.stiffness_matrix):
        dense = matrix.toarray()[np.ix_(free, free)]
        assert np.all(np.isfinite(dense))
        # Cholesky is invariant under the symmetric diagonal scaling that the Hermite slopes
        # bring (entries ~ le and le^3): it succeeds when the matrix is positive definite in
        # floating point, the test of "not singular"
        factor = scipy.linalg.cholesky(dense, lower=True)
        assert np.all(np.diag(factor) > 0.0)
