"""Hypothesis over model files and library inputs: every draw either runs (its run finishes, or
ends with status "failed" and a message) or is refused with a ValueError / TypeError whose
message names the drawn parameter. Nothing else: no LinAlgError, no overflow, no hang (every
run is bounded by the step and memory limits), no message that does not say what was wrong.

The counts of a run of these tests (draws, ran, refused naming the parameter, other) are
printed (``pytest -s``) and quoted in the README."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fe_contact import BeamSpec, Body, assemble, load_model, simulate
from fe_contact.io.model_file import ModelFileError
from fe_contact.limits import STEPS_ENV, LimitExceeded
from fe_contact.runner import prepare

SLIDER = Path(__file__).resolve().parents[1] / "examples" / "slider.toml"
DRAWS = 200  # model-file draws: about 30 s of CPU (marked slow)
# library draws: each assembles and runs a beam model, about 0.25 s of CPU a draw (100 for
# the suite's time)
LIBRARY_DRAWS = 100
MAX_STEPS = 5000
T_END = 0.002  # 20 steps of the file's h = 1e-4 s: every draw that runs is short

KEYS = (
    "structures.strip.length",
    "structures.strip.n_elements",
    "structures.strip.youngs_modulus",
    "structures.strip.density",
    "structures.strip.width",
    "structures.strip.height",
    "tree.bodies.1.mass",
    "tree.bodies.1.inertia",
    "tree.bodies.1.joint.angle",
    "contacts.slider.mu",
    "simulation.h",
    "simulation.t_end",
    "initial.tree_q",
    "initial.tree_u",
    "gravity",
)
EXTREMES = (0.0, -1.0, 1e300, -1e300, 1e-200, 5e-324, 1e30, 1e-30, 3e30, 1e-31, 0.5, 2.5e3)
NUMBERS = st.one_of(
    st.sampled_from(EXTREMES),
    st.floats(1e-3, 10.0),  # plausible values of most keys: many draws run
    st.integers(1, 5000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**12), 10**12),
)
VALUES = st.one_of(
    NUMBERS,
    st.lists(NUMBERS, min_size=0, max_size=3),
    st.sampled_from(["x", "", True, "moreau"]),
)

MODEL_FILE_COUNTS: Counter = Counter()
LIBRARY_COUNTS: Counter = Counter()


def names(message: str, key: str) -> bool:
    """The message names the parameter of ``key`` (its key path, or its last part)."""
    last = key.rsplit(".", 1)[-1]
    return key in message or last in message


OTHERS: list = []  # (keys, message) of the draws counted "other"
FAILED_RUNS: list = []  # (keys, message) of the runs that ended with status "failed"


def outcome(call, keys, counts: Counter) -> None:
    """Run ``call``; count "ran" / "ran, failed" / "refused by a limit" (``LimitExceeded``:
    memory or step count, which depend on the machine) / "refused naming the parameter" (a ValueError
    or TypeError naming one of ``keys``) / "refused naming the initial state" (a changed model
    that its initial state contradicts, e.g. a beam shorter than where the slider starts: the
    model file's key path "initial", or simulate's "initial state at t = ..." naming q0);
    anything else is "other", and the draw fails with its message."""
    try:
        result = call()
    except LimitExceeded as err:
        if any(names(str(err), key) for key in keys):  # a magnitude out of range, named
            counts["refused naming the parameter"] += 1
            return
        # a run or model beyond a memory or step limit (the memory limit depends on the
        # machine): refused with the estimate and how to raise the limit
        assert "raise the limit" in str(err), str(err)
        counts["refused by a limit"] += 1
        return
    except (ValueError, TypeError) as err:
        message = str(err)
        if any(names(message, key) for key in keys):
            counts["refused naming the parameter"] += 1
            return
        if isinstance(err, ModelFileError) and all(p.path == "initial" for p in err.problems):
            counts["refused naming the initial state"] += 1
            return
        if message.startswith("initial state at t = "):  # simulate's q0 against the model
            counts["refused naming the initial state"] += 1
            return
        counts["other"] += 1
        OTHERS.append((keys, f"{type(err).__name__}: {message}"))
        return
    except Exception as err:  # noqa: BLE001 - counted, then reported
        counts["other"] += 1
        OTHERS.append((keys, f"{type(err).__name__}: {err}"))
        return
    counts["ran" if result.success else "ran, failed"] += 1
    if not result.success:  # a failed run says why and where
        FAILED_RUNS.append((keys, result.message))
        assert result.message and "t = " in result.message, result.message


@settings(
    max_examples=DRAWS,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=1, max_size=2))
def model_file_draws(drawn):
    overrides = [("simulation.t_end", T_END), *drawn.items()]

    def run():
        prepared = prepare(load_model(SLIDER, overrides))
        sim = prepared.model_file.simulation
        return simulate(
            prepared.system,
            (sim.t_start, sim.t_end),
            (prepared.q0, prepared.u0),
            method=sim.method,
            h=sim.h,
            **sim.settings,
        )

    outcome(run, tuple(drawn), MODEL_FILE_COUNTS)


@pytest.fixture(autouse=True)
def few_steps(monkeypatch):
    """Every run of a draw is bounded: at most MAX_STEPS steps (the step limit of the library,
    lowered here so that a drawn t_end of 5000 s is refused, not run)."""
    monkeypatch.setenv(STEPS_ENV, str(MAX_STEPS))


@pytest.mark.slow
def test_model_file_draws_run_or_name_the_parameter():
    MODEL_FILE_COUNTS.clear()
    OTHERS.clear()
    FAILED_RUNS.clear()
    model_file_draws()
    total = sum(MODEL_FILE_COUNTS.values())
    print(f"\nmodel files: {total} draws: {dict(MODEL_FILE_COUNTS)}; failed runs: {FAILED_RUNS}")
    assert MODEL_FILE_COUNTS["other"] == 0, "\n".join(map(str, OTHERS))
    assert MODEL_FILE_COUNTS["refused naming the parameter"] > 0  # the draws reach the bounds


BEAM_KEYS = ("length", "youngs_modulus", "density", "width", "height", "n_elements")
SIMULATE_KEYS = ("h", "t_end", "store_every")


@st.composite
def library_inputs(draw):
    beam = {key: draw(NUMBERS) for key in draw(st.sets(st.sampled_from(BEAM_KEYS), max_size=2))}
    body = {key: draw(NUMBERS) for key in draw(st.sets(st.sampled_from(("mass",)), max_size=1))}
    run = {k: draw(NUMBERS) for k in draw(st.sets(st.sampled_from(SIMULATE_KEYS), max_size=1))}
    return beam, body, run


@settings(
    max_examples=LIBRARY_DRAWS,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(library_inputs())
def library_draws(inputs):
    beam, body, run = inputs
    keys = tuple(f"BeamSpec.{k}" for k in beam) + tuple(f"Body.{k}" for k in body)
    keys += tuple("simulate.t_span" if k == "t_end" else f"simulate.{k}" for k in run)
    if not keys:
        keys = ("none",)

    def call():
        model_file = load_model(SLIDER, [("simulation.t_end", T_END)])
        model = model_file.model
        spec = model.structures["strip"]
        kwargs = {
            k: getattr(spec, k)
            for k in ("length", "youngs_modulus", "density", "width", "height", "n_elements")
        }
        strip = BeamSpec(**{**kwargs, **beam}, left=spec.left, right=spec.right)
        bodies = list(model.tree.bodies)
        if body:
            bodies[1] = Body(body["mass"], bodies[1].inertia, bodies[1].centre_of_mass)
        tree = dataclasses.replace(model.tree, bodies=tuple(bodies))
        system = assemble(dataclasses.replace(model, structures={"strip": strip}, tree=tree))
        q0, u0 = model_file.initial.state(system)
        t_end = run.get("t_end", T_END)
        return simulate(
            system,
            (0.0, t_end),
            (q0, u0),
            h=run.get("h", 1e-4),
            store_every=run.get("store_every", 1),
        )

    outcome(call, keys, LIBRARY_COUNTS)


@pytest.mark.slow
def test_library_draws_run_or_name_the_parameter():
    LIBRARY_COUNTS.clear()
    OTHERS.clear()
    FAILED_RUNS.clear()
    library_draws()
    total = sum(LIBRARY_COUNTS.values())
    print(f"\nlibrary: {total} draws: {dict(LIBRARY_COUNTS)}; failed runs: {FAILED_RUNS}")
    assert LIBRARY_COUNTS["other"] == 0, OTHERS
    assert not math.isnan(total)
