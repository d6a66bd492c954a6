"""Every demo's and example model's step path (``speed.py --parts demos``): each model run by
its own code (the demo's ``run`` or model builder with its stepper settings, the example model
file through ``runner.prepare`` / ``runner.execute`` as ``fe-contact run`` runs it, the gallery
script run as it is) over a horizon that passes through its contact events, and per run of
``simulate`` the stepper, the step path and the counters of ``SimulationResult``, the CPU time
per simulated second and, where sub-steps ran on the Python step, why.

Recording: while a model runs, ``steppers.simulate.make_stepper`` and
``steppers.recording.Recorder.result`` are wrapped (``recording``) so that each run of
``simulate``, whoever calls it, hands over its stepper and its result; the CPU time of a run is
the process time from the stepper's construction (its consistent initial state included) to
its result. Nothing else of the library is changed.

Why the Python step runs (``python_reason``):

* generalised-alpha without its compiled step: the compiled plan's reason
  (``steppers.compiled_scope.unsupported``, for the energy-consistent form
  ``consistent_unsupported``) or "compiled=False";
* generalised-alpha with it: the sub-steps it declined or handed back (dependent structure
  coordinates, no banded factor of G_f, a drive it cannot evaluate, an iteration that did not
  finish: ``CompiledStep.step``), counted as "fell back" where it tried;
* Moreau-Jean: the first condition of the compiled sub-step that the system misses
  (``moreau_substep.substep_unsupported``), or, with the compiled sub-step, the sub-steps it handed back (a singular block, the
  contact problem beyond De Saxce's fixed point and Lemke's pivoting, a state that is not
  finite);
* event-driven: the steps its compiled batches leave to ``step()``.
"""

from __future__ import annotations

import os
import runpy
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def recording(runs: list):
    """While active, append to ``runs`` one dict per completed ``simulate`` run: its stepper,
    settings, result and CPU s (stepper construction to result)."""
    from fe_contact.steppers import recording as rec_module
    from fe_contact.steppers import simulate as sim_module

    make, result = sim_module.make_stepper, rec_module.Recorder.result
    started = {}

    def make_stepper(system, t0, q0, u0, method, h, settings, t_end=None):
        cpu0 = time.process_time()
        stepper = make(system, t0, q0, u0, method, h, settings, t_end)
        started[id(stepper)] = (cpu0, method, dict(settings))
        return stepper

    def recorded(self, stepper, *args, **kwargs):
        out = result(self, stepper, *args, **kwargs)
        cpu0, method, settings = started.pop(id(stepper), (None, None, {}))
        runs.append(
            {
                "stepper": stepper,
                "method": method,
                "settings": settings,
                "result": out,
                "cpu": float("nan") if cpu0 is None else time.process_time() - cpu0,
            }
        )
        return out

    sim_module.make_stepper = make_stepper
    rec_module.Recorder.result = recorded
    try:
        yield runs
    finally:
        sim_module.make_stepper = make
        rec_module.Recorder.result = result


def method_label(run) -> str:
    """generalized-alpha, energy-consistent (generalised-alpha with ``energy_consistent``),
    moreau or event-driven."""
    if run["method"] == "generalized-alpha" and run["settings"].get("energy_consistent"):
        return "energy-consistent"
    return run["method"]


def moreau_unsupported(stepper) -> str | None:
    """Why the Moreau-Jean sub-step does not run in one compiled call
    (``moreau_substep.substep_unsupported``), None when it does."""
    from fe_contact.steppers.moreau_substep import substep_unsupported

    return substep_unsupported(stepper)


def python_reason(run) -> str:
    """Why sub-steps of the run ran on the Python step ("" when none did)."""
    from fe_contact.steppers.compiled_scope import consistent_unsupported, unsupported

    stepper, result = run["stepper"], run["result"]
    method = method_label(run)
    if result.n_python == 0:
        return ""
    if method == "event-driven":
        if stepper.step_path == "python":
            return "no batches (actuators, or batch=False)"
        return (
            "steps the batches leave to step(): a halving, the impulses' last resort, a singular "
            "step, Newton's impact, the step to the end"
        )
    if method in ("generalized-alpha", "energy-consistent"):
        if stepper.compiled_step is None:
            if method == "energy-consistent":
                why = consistent_unsupported(stepper.system)
                return "compiled=False" if why is None else f"energy-consistent plan: {why}"
            why = unsupported(stepper.system)
            return "compiled=False" if why is None else f"plan: {why}"
        declined = result.n_python - result.n_fallback
        return (
            f"compiled step declined {declined} sub-steps and handed back {result.n_fallback} "
            "(dependent structure coordinates, no factor of G_f, a drive it cannot evaluate, "
            "an iteration that did not finish"
            + (
                ", energy-consistent sub-steps too short for the rows' position form)"
                if method == "energy-consistent"
                else ")"
            )
        )
    if stepper._whole is None:
        return f"no compiled sub-step: {moreau_unsupported(stepper)}"
    return (
        f"compiled sub-step handed back {result.n_fallback} sub-steps (a singular block, a "
        "contact problem beyond De Saxce's fixed point and Lemke's pivoting: regularised "
        "Lemke, Tresca's fixed point; a state not finite)"
    )


# --- the models -----------------------------------------------------------------------------


def _manipulator():
    from fe_contact.demos.manipulator_on_beam import run_case

    run_case(0.2)  # the demo's case mu = 0.2, its whole 0.6 s


def _sliding_mass():
    from fe_contact.demos.sliding_mass import run

    run(progress=False)  # the demo's defaults: mu = 0, 10 elements, 0.5 s at 1e-4 s


def _slider_on_string(energy_consistent=False):
    from fe_contact.demos.slider_on_string import run

    with tempfile.TemporaryDirectory() as out:
        run(out, 1.0, vtk_every=0.0, progress=False, plot=False,
            energy_consistent=energy_consistent)  # fmt: skip


def _disk_on_string(example):
    from fe_contact.demos.disk_on_string import run

    run(example, out=None, plot=False, vtk_stride=None)  # the example's 2 s


def _disk_on_beam():
    from fe_contact.demos.disk_on_beam import run

    with tempfile.TemporaryDirectory() as out:
        run(out, t_end=0.5, vtk_every=0.0, progress=False, plot=False)


def _friction_oscillator():
    from fe_contact.demos.friction_oscillator import run
    from fe_contact.papers.friction_oscillator import Oscillator

    run(Oscillator(), t_end=5.0)  # the demo's default horizon


def _pin_on_wheel():
    from fe_contact.papers.slavic_boltezar import H, PinOnWheel, simulate_pin

    simulate_pin(replace(PinOnWheel(), t_end=2e-4), H)  # a fifth of the demo's 1 ms run


def _cam_lock(case):
    from fe_contact.demos.cam_lock import run_case

    # the contact phase (benchmarks/cam_lock_phases.py): from 0.6 s, closing at 0.64 s
    run_case(case, 0.7, 1e-4, t0=0.6)


def _capstan():
    from fe_contact.demos.capstan import run

    run(t_end=0.1, out=None, plot=False)


def _belt_drive():
    from fe_contact.demos.belt_drive import run

    run(t_end=0.05, out=None, plot=False)


def _pantograph(contact="exact"):
    from fe_contact.papers.pantograph import KMH, pantograph_on_catenary

    # the demo's run_speed at 250 km/h (3 spans, 0.5 m elements, h = 1 ms), over 0.2 s
    run = pantograph_on_catenary(3, speed=250.0 * KMH, contact=contact, max_element_length=0.5)
    system = run.assemble()
    run.run(system, t_span=(run.t_span[0], run.t_span[0] + 0.2))


def _model_file(name):
    from fe_contact.io.model_file import load_model
    from fe_contact.runner import execute, prepare

    with tempfile.TemporaryDirectory() as out:
        execute(prepare(load_model(ROOT / "examples" / name)), out)


def _gallery(name):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    show = plt.show
    plt.show = lambda *a, **k: None
    cwd = os.getcwd()
    try:
        with tempfile.TemporaryDirectory() as out:
            os.chdir(out)  # a script that writes files writes them there
            runpy.run_path(str(ROOT / "examples" / name), run_name="__main__")
    finally:
        os.chdir(cwd)
        plt.show = show
        plt.close("all")


MODELS = (
    ("demo manipulator, mu = 0.2", "0.6 s (whole case)", _manipulator),
    ("demo sliding-mass", "0.5 s (whole demo)", _sliding_mass),
    ("demo slider-on-string", "1 s of 2", _slider_on_string),
    (
        "demo slider-on-string --energy-consistent",
        "1 s of 2",
        lambda: _slider_on_string(True),
    ),
    ("demo disk-on-string, example 1", "2 s (whole example)", lambda: _disk_on_string(1)),
    ("demo disk-on-string, example 2", "2 s (whole example)", lambda: _disk_on_string(2)),
    ("demo disk-on-beam", "0.5 s of 1", _disk_on_beam),
    ("demo friction-oscillator", "5 s (whole demo)", _friction_oscillator),
    ("demo pin-on-wheel (one run)", "0.2 ms of 1 ms", _pin_on_wheel),
    *(
        (
            f"demo cam-lock, case {c}",
            "0.6-0.7 s (contact closes at 0.64 s)",
            lambda c=c: _cam_lock(c),
        )
        for c in range(4)
    ),
    ("demo capstan", "0.1 s", _capstan),
    ("demo belt-drive", "0.05 s", _belt_drive),
    ("demo pantograph, 250 km/h (exact contact)", "0.2 s", _pantograph),
    ("demo pantograph, 250 km/h --contact penalty", "0.2 s", lambda: _pantograph("penalty")),
    *(
        (f"examples/{name}", "its t_end", lambda name=name: _model_file(name))
        for name in (
            "sliding_mass.toml",
            "slider.toml",
            "slider_on_string.toml",
            "disk_on_beam.toml",
        )
    ),
    *(
        (f"examples/{name}", "the script as it is", lambda name=name: _gallery(name))
        for name in (
            "plot_cam_on_beam.py",
            "plot_disk_on_beam.py",
            "plot_friction_sweep.py",
            "plot_pendulum_on_cantilever.py",
            "plot_trolley_on_cable.py",
            "plot_two_beams.py",
        )
    ),
)

NOT_STEPPED = (("demo beam", "modes and static deflection: no time stepping"),)


def demo_rows(words=None) -> list[dict]:
    """Run every model of ``MODELS`` (those whose name contains one of ``words``, when given)
    twice, the first run a warm-up, and return for the second one row per ``simulate`` run: model, horizon, method, step path, counters, CPU
    per simulated s and the reason for Python steps."""
    rows = []
    models = MODELS if not words else [m for m in MODELS if any(w in m[0] for w in words)]
    for name, horizon, run_model in models:
        runs = []
        try:  # a first run, not recorded: numba's loading from its cache, caches of the library
            run_model()
        except Exception:  # noqa: BLE001 - the recorded run below reports it
            pass
        cpu0 = time.process_time()
        try:
            with recording(runs):
                run_model()
        except Exception as err:  # noqa: BLE001 - a model that fails is a row that says so
            print(f"!! {name}: {type(err).__name__}: {err}", flush=True)
            runs.append({"error": f"{type(err).__name__}: {err}"})
        total = time.process_time() - cpu0
        for k, run in enumerate(runs):
            label = name if len(runs) == 1 else f"{name} [run {k + 1}]"
            if "error" in run:
                rows.append({"model": label, "horizon": horizon, "status": run["error"]})
                continue
            r = run["result"]
            span = float(r.t[-1] - r.t[0]) if len(r.t) else 0.0
            rows.append(
                {
                    "model": label,
                    "horizon": horizon,
                    "method": method_label(run),
                    "status": r.status,
                    "simulated [s]": round(span, 9),
                    "step path": r.step_path,
                    "steps": r.n_steps,
                    "n_substeps": r.n_substeps,
                    "n_compiled": r.n_compiled,
                    "n_python": r.n_python,
                    "n_fallback": r.n_fallback,
                    "CPU [s]": round(run["cpu"], 3),
                    "CPU per simulated s [s/s]": (
                        round(run["cpu"] / span, 4) if span > 0 else float("nan")
                    ),
                    "python step reason": python_reason(run),
                }
            )
            print(_line(rows[-1]), flush=True)
        print(f"   ({name}: {total:.1f} s CPU in all, model building and outputs included)")
    for name, why in NOT_STEPPED:
        rows.append({"model": name, "horizon": "-", "status": why})
    return rows


def _line(row: dict) -> str:
    return (
        f"{row['model'][:48]:48s} {row['method']:18s} {row['step path']:8s} "
        f"{row['steps']:6d} {row['n_compiled']:6d} {row['n_python']:6d} {row['n_fallback']:5d} "
        f"{row['CPU per simulated s [s/s]']:9.4g}  {row['python step reason']}"
    )


HEADER = (
    f"{'model':48s} {'method':18s} {'path':8s} {'steps':>6s} {'compl':>6s} {'python':>6s} "
    f"{'fell':>5s} {'CPU s/s':>9s}  reason for Python steps"
)


def markdown_table(path) -> str:
    """The rows of ``demo_paths.csv`` at ``path`` as the Markdown table of
    ``docs/details/speed.md`` ("Every demo's step path")."""
    import csv

    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    lines = [
        "| model | horizon | method | path | steps | compiled / Python / fell back "
        "| CPU per simulated s | why the Python step |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if not r["method"]:
            lines.append(f"| {r['model']} | {r['horizon']} | {r['status']} | | | | | |")
            continue
        cpu = float(r["CPU per simulated s [s/s]"])
        lines.append(
            f"| {r['model']} | {r['horizon']} | {r['method']} | {r['step path']} | {r['steps']} "
            f"| {r['n_compiled']} / {r['n_python']} / {r['n_fallback']} | {cpu:.3g} s/s "
            f"| {r['python step reason'] or '-'} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":  # the table of docs/details/speed.md from the committed CSV
    print(markdown_table(ROOT / "benchmarks" / "results" / "demo_paths.csv"))
