"""Speed of fe_contact on the speed issue's rows, each with its target, the ratio to it and
how many steps ran compiled and how many on the Python step; the reference cases with their own
discretisation error at the chosen step; the sliding mass side by side with Exudyn when it is
installed (``pip install ".[bench]"``).

Run: python benchmarks/speed.py [--quick] [--reference] [--parts PART ...] [--cases WORD ...]
[--out benchmarks/results]. Writes ``speed.csv`` (one row per reference case: wall and CPU
time per simulated second and per step, Newton iterations per step, own error, the step
counts), ``targets.csv`` (one row per row of the issue: figure, wall, CPU, target, ratio, met;
rows of parts run separately are merged), ``scaling.csv`` / ``scaling.png`` (time per step of
the sliding mass against the number of beam elements, both codes) and ``equal_accuracy.csv``.
``--quick`` shortens every run (a smoke test, its table ``targets_quick.csv``; its figures are
not the benchmark's). ``--reference`` also times the generalised-alpha cases on the Python step
(``compiled=False``) and the scale case too.

Parts (``--parts``, default all):

* cases: the sliding mass (``fe_contact.demos.sliding_mass``, mu = 0) on 10 and 80 elements and
  a sliding point on 1000; the manipulator, mu = 0.2, 0.6 s (002 sec. 9); the trolley on the
  string (``fe-contact demo slider-on-string``, 1 s, h = 1 ms); the disk on the string, 004
  example 1 (Moreau-Jean, 2 s);
* cam-lock: ``fe-contact demo cam-lock`` (4 cases, 2 s, h = 1e-4 s) measured per case on a
  window of its approach (the first 0.01 s, contact open) and one of its contact phase (from
  0.6 s, the closing at 0.64 s, to 0.75 s, case 0 to 1.1 s: ``cam_lock_phases.py``'s windows),
  the whole demo estimated from them (labelled); ``--cam-whole``: the whole demo measured
  instead, each case in a process of its own (the row says which);
* pin-on-wheel: ``fe-contact demo pin-on-wheel`` with its defaults in a child process, its CPU
  time (its two worker processes included);
* first-run: the README's first demo (``fe-contact demo manipulator``) on a fresh copy of the
  package (no numba cache), the kernels compiling in a background process meanwhile, then
  again on the cache it wrote; and the compilation in the foreground: the demo's simulation
  in a fresh process on another fresh copy, minus the same process on the cache it wrote;
* scale: a pinned contact wire of 5000 elements (10 002 unknowns) under 20 kN with a light
  point driven along it at 80 m/s (``speed_rows.scale_model``), compiled path;
* scaling, accuracy: the side-by-side with Exudyn 1.13.6 (below);
* demos: every demo's and example model's step path (``speed_demos.py``: each model run by
  its own code over a horizon through its contact events, a warm-up run first; per run the
  stepper, the step path, the compiled / Python / fell-back counters, the CPU time per
  simulated second and why sub-steps ran on the Python step), written to ``demo_paths.csv``;
  ``--cases WORD`` selects models here too.

Own error: every reference case runs at h and h/2; the error of the run at h is estimated by
Richardson extrapolation for a second-order method, |y_h - y_h/2| * 4/3, as the largest
difference over the common output times of the tracked coordinates (the mass position in m; the
tree angles in rad for the manipulator; the disk centre in m for the disk; the trolley's (x, y)
in m). Moreau-Jean is first order: its estimate uses |y_h - y_h/2| * 2.

Times: the wall time ``simulate`` spends (stepper set-up with its consistent initial state and
the steps, not building the model) and the process CPU time around the same call. Every case
runs once before it is timed, so that caches do not count; the first run's extra time is
reported separately ("compile"); the cheap cases are the best of 2 timed runs. The machine is
shared: the ratio to a target is taken on the CPU time (``target_row``).

Side by side with Exudyn 1.13.6 (``exudyn_sliding_mass.py``: the same model as ANCF cables with
Exudyn's sliding joint; Exudyn's time is its ``SolveDynamic`` call, its static initial state
excluded; its settings and why are in that module's docstring). Both codes' times here are the
best of ``REPEATS`` = 3 runs after a warm-up run.

* Scaling: time per step of both codes at h = 1e-4 s over 0.01 s for 10..1000 elements (equal
  h, not equal accuracy).
* Equal accuracy (10, 100 and 1000 elements, ``--accuracy-elements``): for each code the
  largest step of its list whose own error is <= 1e-6 m (fe_contact: the Richardson estimate
  above; Exudyn: max |x(h) - x(h/16)|, its sliding joint being first order), and the wall and
  CPU time per simulated second there, over 0.5 s (the sliding-mass demo's run) and 0.1 s
  (which favours Exudyn: its first-order error has not accumulated yet, while fe_contact's 40
  steps carry its stepper's set-up). A finer mesh's search starts at the steps found for the
  coarser one (``largest_meeting``: up while the error is within the target, else down).

Measured figures and what they mean: ``docs/details/speed.md``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np
from speed_rows import counts, timed_simulate
from speed_targets import (
    COUNT_KEYS,
    exudyn_targets,
    run_cam_lock,
    run_first_run,
    run_pin_on_wheel,
    run_scale,
    target_row,
)

from fe_contact.demos import disk_on_string
from fe_contact.demos.sliding_mass import model_file
from fe_contact.papers import lipinski
from fe_contact.system import assemble

HERE = Path(__file__).resolve().parent
TARGET_ERROR = 1e-6  # m, the accuracy at which the two codes are compared


def sliding_mass(n_elements: int, h: float, t_end: float, compiled: bool = True):
    """(result, tracked (n_t, 2) mass positions, CPU s of ``simulate``) of the sliding mass,
    mu = 0."""
    run_file = model_file(mu=0.0, n_elements=n_elements, t_end=t_end, h=h)
    system = assemble(run_file.model)
    q0, u0 = run_file.initial.state(system)
    result, cpu = timed_simulate(
        system, (0.0, t_end), (q0, u0), h=h, rho_inf=0.9, compiled=compiled
    )
    return result, result.q[:, system.layout.tree], cpu


_sliding_mass = sliding_mass  # (result, tracked, CPU s), as the side-by-side helpers read it


def manipulator(h: float, t_end: float, compiled: bool = True):
    """The manipulator, mu = 0.2 (``run_case``'s run without its files): (result, the three
    joint angles (the tree comes first in the layout), CPU s)."""
    scenario = lipinski.manipulator(lipinski.Manipulator(), 0.2)
    system = scenario.assemble()
    r, cpu = timed_simulate(
        system, (0.0, t_end), (scenario.q0, scenario.u0), h=h, rho_inf=0.9, compiled=compiled
    )
    return r, r.q[:, :3], cpu


def kernels_ready() -> float:
    """Seconds to load (or compile, on a fresh install) the compiled step's kernels: one
    short run of the sliding mass in this process."""
    t0 = time.perf_counter()
    sliding_mass(10, 1e-3, 2e-3)
    return time.perf_counter() - t0


def slider_on_string(h: float, t_end: float, compiled: bool = True):
    """The trolley on the hanging string (``fe-contact demo slider-on-string``: 8 elements,
    mu = 0.05, rho_inf = 1; the static start excluded): the trolley's coordinates (x, y)."""
    from fe_contact.papers.slider_on_string import slider_on_string as trolley

    scenario = trolley()
    system = scenario.assemble()
    settings = {**scenario.settings, "h": h, "compiled": compiled}
    r, cpu = timed_simulate(system, (0.0, t_end), (scenario.q0, scenario.u0), **settings)
    return r, r.q[:, system.layout.tree], cpu


def disk(h: float, t_end: float):
    """004 example 1 (``fe-contact demo disk-on-string``, Moreau-Jean): the disk's centre; the
    CPU time includes building the model (a few ms)."""
    cpu0 = time.process_time()
    _, r = disk_on_string.run(example=1, t_end=t_end, h=h, out=None, plot=False)
    return r, r.q[:, :2], time.process_time() - cpu0


def own_error(run, h: float, t_end: float, order: int):
    """(result at h, error estimate): runs at h and h/2."""
    coarse, y1, _ = run(h, t_end)
    fine, y2, _ = run(h / 2, t_end)
    n = min(len(y1), (len(y2) + 1) // 2)
    diff = np.max(np.abs(y1[:n] - y2[: 2 * n : 2]))
    return coarse, diff * 2**order / (2**order - 1)


def timed(run, h: float, t_end: float, repeats: int = 1):
    """A first run, then ``repeats`` more: (the fastest of these by wall time, its CPU s,
    first-run extra wall time in s)."""
    first, _, _ = run(h, t_end)
    runs = [run(h, t_end) for _ in range(repeats)]
    best = min(runs, key=lambda r: r[0].wall_time)
    return best[0], best[2], max(first.wall_time - best[0].wall_time, 0.0)


REPEATS = 3  # side-by-side timings: the best of this many runs, after a warm-up run


def best_fe(n_elements: int, h: float, t_end: float, repeats: int = REPEATS):
    """fe_contact's sliding mass: (wall s, CPU s, steps), each time the least of ``repeats``
    runs after a warm-up run (wall: ``simulate``'s own wall time; CPU: process time around
    the ``simulate`` call)."""
    _sliding_mass(n_elements, h, t_end)
    runs = [_sliding_mass(n_elements, h, t_end) for _ in range(repeats)]
    walls = [r[0].wall_time for r in runs]
    return min(walls), min(r[2] for r in runs), max(runs[0][0].n_steps, 1)


def best_exudyn(n_elements: int, h: float, t_end: float, repeats: int = REPEATS):
    """Exudyn's sliding mass: (wall s, CPU s, steps) of its ``SolveDynamic`` call, each the
    least of ``repeats`` runs after a warm-up run."""
    from exudyn_sliding_mass import run_exudyn

    run_exudyn(n_elements=n_elements, h=h, t_end=t_end)
    runs = [run_exudyn(n_elements=n_elements, h=h, t_end=t_end) for _ in range(repeats)]
    wall = min(r["solver_time"] for r in runs)
    return wall, min(r["solver_cpu_time"] for r in runs), runs[0]["steps"]


def row(name, run, h, t_end, order=2, reference=False, repeats=1):
    result, cpu, compile_time = timed(run, h, t_end, repeats)
    _, error = own_error(run, h, t_end, order)
    steps = max(result.n_steps, 1)
    extra = {}
    if reference:
        python, python_cpu, _ = timed(lambda h_, t_: run(h_, t_, compiled=False), h, t_end)
        extra = {
            "python step per step [us]": 1e6 * python.wall_time / max(python.n_steps, 1),
            "python step CPU per step [us]": 1e6 * python_cpu / max(python.n_steps, 1),
            "speed-up": python.wall_time / result.wall_time,
            "speed-up (CPU)": python_cpu / cpu,
        }
    return {
        "case": name,
        "h [s]": h,
        "t_end [s]": t_end,
        "status": result.status,
        "wall per simulated s [s/s]": result.wall_time / t_end,
        "CPU per simulated s [s/s]": cpu / t_end,
        "time per step [us]": 1e6 * result.wall_time / steps,
        "CPU per step [us]": 1e6 * cpu / steps,
        "newton per step": result.n_newton / steps,
        "own error": error,
        "compile [s]": compile_time,
        **counts(result),
        **extra,
    }


def exudyn_available() -> bool:
    try:
        import exudyn  # noqa: F401
    except ImportError:
        return False
    return True


def fe_counts(n_elements: int, h: float, t_end: float) -> str:
    """ "compiled/Python/fell back" sub-step counts of fe_contact's sliding mass run."""
    c = counts(sliding_mass(n_elements, h, t_end)[0])
    return f"{c['compiled']}/{c['python']}/{c['fell back']}"


def scaling(elements, t_end: float, h: float, with_exudyn: bool):
    rows = []
    codes = ("fe_contact", "exudyn") if with_exudyn else ("fe_contact",)
    for n in elements:
        entry = {"elements": n}
        for code in codes:
            try:
                wall, cpu, steps = (best_fe if code == "fe_contact" else best_exudyn)(n, h, t_end)
            except RuntimeError as err:  # Exudyn's Newton did not converge at this step
                print(f"   {code}, {n} elements: {err}")
                wall, cpu, steps = float("nan"), float("nan"), 1
            entry[f"{code} per step [us]"] = 1e6 * wall / steps
            entry[f"{code} CPU per step [us]"] = 1e6 * cpu / steps
        entry["fe_contact steps"] = fe_counts(n, h, t_end)
        rows.append(entry)
        print(
            f"   {n:5d} elements: "
            + ", ".join(
                f"{code} {entry[f'{code} per step [us]']:7.1f} us/step "
                f"(CPU {entry[f'{code} CPU per step [us]']:7.1f})"
                for code in codes
            ),
            flush=True,
        )
    return rows


def largest_meeting(steps, meets, start=None):
    """The largest step of ``steps`` (in decreasing order) for which ``meets(h)`` holds, None
    when none does. Without ``start`` the steps are tried from the largest down; with it (a
    step of the list where the answer is expected, e.g. the one found for a coarser mesh) from
    there: up while it holds, else down. Both give the same step when the error grows with h;
    the second spares the costly small steps of a fine mesh."""
    steps = list(steps)
    if start is None or start not in steps:
        return next((h for h in steps if meets(h)), None)
    i = steps.index(start)
    if meets(steps[i]):
        while i > 0 and meets(steps[i - 1]):
            i -= 1
        return steps[i]
    return next((h for h in steps[i + 1 :] if meets(h)), None)


def equal_accuracy(t_end: float, steps_fe, steps_ex, n_elements: int = 10, start=None):
    """The largest step of each code (from steps_fe, steps_ex) whose own error over (0, t_end)
    is <= TARGET_ERROR, and the wall time per simulated second there (sliding mass,
    ``n_elements`` elements; ``start``: {code: step} where the search starts,
    ``largest_meeting``): {code: (h, own error, s per simulated s, CPU per simulated s,
    fe_contact's step counts)}; a code missing when none of its steps reaches the target."""
    from exudyn_sliding_mass import own_error as exudyn_error

    start = start or {}

    def fe(h, t):
        return sliding_mass(n_elements, h, t)

    errors = {}

    def fe_meets(h):
        _, errors["fe_contact", h] = own_error(fe, h, t_end, 2)
        print(
            f"      fe_contact h = {h:g} s: own error {errors['fe_contact', h]:.2e} m", flush=True
        )
        return errors["fe_contact", h] <= TARGET_ERROR

    def exudyn_meets(h):
        try:
            errors["exudyn", h] = exudyn_error(n_elements, h, t_end)
        except RuntimeError as err:  # Exudyn's Newton did not converge at this step
            print(f"   Exudyn, h = {h:g} s: {err}")
            return False
        print(f"      Exudyn     h = {h:g} s: own error {errors['exudyn', h]:.2e} m", flush=True)
        return errors["exudyn", h] <= TARGET_ERROR

    out = {}
    h = largest_meeting(steps_fe, fe_meets, start.get("fe_contact"))
    if h is not None:
        wall, cpu, _ = best_fe(n_elements, h, t_end)
        counted = fe_counts(n_elements, h, t_end)
        out["fe_contact"] = (h, errors["fe_contact", h], wall / t_end, cpu / t_end, counted)
    h = largest_meeting(steps_ex, exudyn_meets, start.get("exudyn"))
    if h is not None:
        wall, cpu, _ = best_exudyn(n_elements, h, t_end)
        out["exudyn"] = (h, errors["exudyn", h], wall / t_end, cpu / t_end, "")
    return out


def accuracy_rows(horizons, steps_fe, steps_ex, elements=(10,)):
    """equal_accuracy at each (label, t_end) of horizons and each element count (the search
    of a finer mesh starting at the steps found for the coarser one); prints one line per
    code and the ratio; returns the CSV rows."""
    rows = []
    for label, t_end in horizons:
        found = {}
        for n_elements in elements:
            print(f"{label}, t_end = {t_end:g} s, {n_elements} elements:", flush=True)
            acc = equal_accuracy(t_end, steps_fe, steps_ex, n_elements, found)
            found = {code: v[0] for code, v in acc.items()}
            rows += _accuracy_rows(label, t_end, n_elements, acc)
    return rows


def _accuracy_rows(label, t_end, n_elements, acc):
    """The printed lines and CSV rows of one ``equal_accuracy`` comparison."""
    rows = []
    both = len(acc) == 2
    ratio = acc["exudyn"][2] / acc["fe_contact"][2] if both else float("nan")
    ratio_cpu = acc["exudyn"][3] / acc["fe_contact"][3] if both else float("nan")
    for code in ("fe_contact", "exudyn"):
        if code not in acc:
            print(f"   {code:10s}: no step of the list reaches own error <= {TARGET_ERROR:g} m")
            continue
        h, error, per_second, cpu_per_second, steps = acc[code]
        print(
            f"   {code:10s} at own error <= {TARGET_ERROR:g} m: h = {h:g} s "
            f"(error {error:.2e} m), {per_second:.3f} s per simulated s "
            f"(CPU {cpu_per_second:.3f})"
        )
        rows.append(
            {
                "case": f"t_end = {t_end:g} s, {n_elements} elements, {code}",
                "comparison": label,
                "t_end [s]": t_end,
                "elements": n_elements,
                "code": code,
                "h [s]": h,
                "own error [m]": error,
                "wall per simulated s": per_second,
                "CPU per simulated s": cpu_per_second,
                "exudyn / fe_contact (wall)": ratio,
                "exudyn / fe_contact (CPU)": ratio_cpu,
                "fe_contact steps": steps,
            }
        )
    print(
        f"   Exudyn / fe_contact at equal accuracy: wall time {ratio:.2f}, "
        f"CPU time {ratio_cpu:.2f}",
        flush=True,
    )
    return rows


def write_csv(rows, path: Path) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, keys, lineterminator="\n")  # the files are stored with LF
        writer.writeheader()
        writer.writerows(rows)


def merge_csv(rows, path: Path, key: str) -> None:
    """Write rows to path, keeping the rows of an existing file whose ``key`` this run did not
    measure (so that parts run separately fill one table): a measured row takes its old row's
    place, a new one goes at the end."""
    merged = []
    if path.exists():
        with open(path, newline="") as fh:
            merged = list(csv.DictReader(fh))
    where = {r[key]: i for i, r in enumerate(merged)}
    for r in rows:
        if r[key] in where:
            merged[where[r[key]]] = r
        else:
            merged.append(r)
    write_csv(merged, path)


def plot_scaling(rows, path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 4.0), layout="constrained")
    ax = fig.subplots()
    n = [r["elements"] for r in rows]
    for code, label, style in (
        ("fe_contact", "fe_contact", "o-"),
        ("exudyn", "Exudyn 1.13.6", "s-"),
    ):
        if rows and f"{code} per step [us]" in rows[0]:
            (line,) = ax.loglog(n, [r[f"{code} per step [us]"] for r in rows], style, label=label)
            ax.loglog(
                n,
                [r[f"{code} CPU per step [us]"] for r in rows],
                "--",
                color=line.get_color(),
                lw=0.8,
                label=f"{label}, CPU time",
            )
    ref = np.array(n, dtype=float)
    base = rows[0]["fe_contact per step [us]"]
    ax.loglog(ref, base * ref / ref[0], "k:", lw=0.8, label="linear in elements")
    ax.set_xlabel("beam elements")
    ax.set_ylabel("time per step [us] (best of 3 runs)")
    ax.set_title("Sliding mass on the cantilever (generalised-alpha)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.savefig(path, dpi=150)


PARTS = (
    "cases",
    "cam-lock",
    "pin-on-wheel",
    "first-run",
    "scale",
    "scaling",
    "accuracy",
    "demos",
)


def run_cases(args, scale):
    """The reference cases (one ``speed.csv`` row each) and their target rows."""
    cases = [
        (
            "sliding mass, 10 elements",
            lambda h, t, **k: sliding_mass(10, h, t, **k),
            1e-3,
            0.2 * scale,
            2,
            2,
        ),
        (
            "sliding mass, 80 elements",
            lambda h, t, **k: sliding_mass(80, h, t, **k),
            1e-3,
            0.2 * scale,
            2,
            2,
        ),
        (
            "sliding point, 1000 elements",
            lambda h, t, **k: sliding_mass(1000, h, t, **k),
            1e-3,
            0.2 * scale,
            2,
            2,
        ),
        ("manipulator, mu = 0.2", manipulator, 5e-4, 0.6 * scale, 2, 2),
        ("slider on string, 8 elements", slider_on_string, 1e-3, 1.0 * scale, 2, 1),
        ("disk on string, example 1", disk, 1e-3, 2.0 * scale, 1, 1),
    ]
    if args.cases:
        cases = [c for c in cases if any(word in c[0] for word in args.cases)]
    rows, targets = [], []
    print(
        f"{'case':32s} {'h [s]':>8} {'s/s':>8} {'CPU s/s':>8} {'us/step':>9} {'newton':>7} "
        f"{'own error':>10} {'compile':>8}  steps: compiled / Python / fell back"
    )
    for name, run, h, t_end, order, repeats in cases:
        # the generalised-alpha cases (the compiled step takes them all)
        reference = args.reference and order == 2
        r = row(name, run, h, t_end, order, reference, repeats)
        rows.append(r)
        line = (
            f"{name:32s} {h:8.1e} {r['wall per simulated s [s/s]']:8.3f} "
            f"{r['CPU per simulated s [s/s]']:8.3f} "
            f"{r['time per step [us]']:9.1f} {r['newton per step']:7.2f} {r['own error']:10.2e} "
            f"{r['compile [s]']:8.2f}  {r['step path']}: {r['compiled']} / {r['python']} / "
            f"{r['fell back']}"
        )
        if reference:
            line += (
                f"   (Python step {r['python step per step [us]']:.0f} us/step, CPU "
                f"{r['python step CPU per step [us]']:.0f}: x{r['speed-up']:.1f}, CPU "
                f"x{r['speed-up (CPU)']:.1f})"
            )
        print(line, flush=True)
        counted = {k: r[k] for k in COUNT_KEYS}
        if name.startswith("slider on string"):
            targets.append(
                target_row(
                    "slider on string",
                    r["wall per simulated s [s/s]"],
                    r["CPU per simulated s [s/s]"],
                    counted,
                )
            )
        elif name.startswith("disk on string"):
            targets.append(
                target_row(
                    "disk on string",
                    r["wall per simulated s [s/s]"],
                    r["CPU per simulated s [s/s]"],
                    counted,
                    "Moreau-Jean: each sub-step one compiled call (kernels.moreau.substep, "
                    "with the end state's energies), those needing De Saxce's stages handed "
                    "to the Python sub-step (fell back); quiet steps batched, their history "
                    "columns from flat arrays (steppers.moreau_batch)",
                )
            )
        elif name.startswith("sliding point, 1000"):
            targets.append(
                target_row(
                    "sliding point 1000",
                    r["time per step [us]"],
                    r["CPU per step [us]"],
                    counted,
                    f"over {t_end:g} s: the stepper's set-up is spread over the steps",
                )
            )
    return rows, targets


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--quick", action="store_true", help="shorter runs (a smoke test)")
    parser.add_argument("--no-exudyn", action="store_true", help="leave Exudyn out")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="also time the generalised-alpha cases on the Python step (compiled=False)",
    )
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=PARTS,
        default=PARTS,
        help="which parts to run (default all)",
    )
    parser.add_argument(
        "--cam-whole",
        action="store_true",
        help="cam-lock: measure the whole demo, one process per case (about 4 min of CPU)",
    )
    parser.add_argument(
        "--accuracy-elements",
        nargs="+",
        type=int,
        default=(10, 100, 1000),
        metavar="N",
        help="accuracy: the element counts of the equal-accuracy comparison (default 10 100 1000;"
        " Exudyn's 1000 elements over 0.5 s take about 20 min of CPU)",
    )
    parser.add_argument(
        "--cases",
        nargs="+",
        metavar="WORD",
        help="only the cases whose name contains one of these words (e.g. string)",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    scale = 0.1 if args.quick else 1.0
    with_exudyn = exudyn_available() and not args.no_exudyn
    sys.path.insert(0, str(HERE))
    wall0 = time.perf_counter()

    print(f"compiled kernels loaded (compiled if not cached) in {kernels_ready():.2f} s")
    targets, failed = [], []

    def part(name, run):
        """Run one part; a failing part is reported (and the exit code is 1), the others run."""
        if name not in args.parts:
            return
        try:
            targets.extend(run())
        except Exception as err:  # noqa: BLE001 - reported, and the run's exit code says so
            failed.append(name)
            print(f"!! part {name} FAILED: {type(err).__name__}: {err}", flush=True)

    def cases():
        rows, found = run_cases(args, scale)
        if rows:
            merge_csv(rows, args.out / "speed.csv", "case")
        return found

    part("cases", cases)
    part("cam-lock", lambda: run_cam_lock(args.quick, args.cam_whole))
    part("pin-on-wheel", lambda: run_pin_on_wheel(args.quick))
    part("first-run", lambda: run_first_run(args.quick))
    part("scale", lambda: run_scale(args.quick, args.reference))

    def demos():
        from rows_csv import write_rows
        from speed_demos import HEADER, demo_rows

        print(HEADER)
        rows = demo_rows(args.cases)
        keys = list(dict.fromkeys(k for r in rows for k in r))
        rows = [{k: r.get(k, "") for k in keys} for r in rows]
        if args.cases:  # some models only: their rows replace theirs in the table
            merge_csv(rows, args.out / "demo_paths.csv", "model")
        else:
            write_rows(args.out / "demo_paths.csv", rows)
        return []

    part("demos", demos)

    scaled, accuracy = [], []
    if "scaling" in args.parts:
        print("time per step of the sliding mass against the number of elements (h = 1e-4 s):")
        if with_exudyn:
            print(
                "   (Exudyn: EigenSparse solver, absolute Newton tolerance at its round-off floor;"
                " see exudyn_sliding_mass.py)"
            )
        elements = [10, 20, 40, 80, 160, 320, 640, 1000]
        # h = 1e-4 s: Exudyn's first-order sliding joint needs small steps (at 1e-3 s its
        # modified Newton takes 7-10 iterations per step, 20 ms per step at 1000 elements)
        scaled = scaling(elements, 0.002 if args.quick else 0.01, 1e-4, with_exudyn)
        write_csv(scaled, args.out / "scaling.csv")
        plot_scaling(scaled, args.out / "scaling.png")
        for code in ("fe_contact", "exudyn"):
            key = f"{code} per step [us]"
            if key in scaled[0]:
                ratio = scaled[-1][key] / scaled[0][key]
                print(f"{code} cost at 1000 / at 10 elements: {ratio:.1f} (linear: 100)")

    if with_exudyn and "accuracy" in args.parts:
        quick = " [--quick: a tenth]" if args.quick else ""
        accuracy = accuracy_rows(
            (
                (f"demo's horizon (primary){quick}", round(0.5 * scale, 12)),
                (
                    f"short horizon (Exudyn's O(h) error not yet accumulated){quick}",
                    round(0.1 * scale, 12),
                ),
            ),
            (5e-3, 4e-3, 2.5e-3, 2e-3, 1.25e-3, 1e-3, 5e-4, 2.5e-4),
            (5e-4, 4e-4, 2.5e-4, 2e-4, 1e-4, 5e-5, 2.5e-5, 1.25e-5),
            args.accuracy_elements,
        )
        merge_csv(accuracy, args.out / "equal_accuracy.csv", "case")
    elif (
        not with_exudyn
        and not args.no_exudyn
        and ("scaling" in args.parts or "accuracy" in args.parts)
    ):
        print("Exudyn not installed (pip install '.[bench]'): no side-by-side figures")
    if with_exudyn:
        targets += exudyn_targets(scaled, accuracy)
    if targets:
        print(
            "the speed issue's rows (wall, CPU; the ratio on CPU time where there is one: <= 1"
            " meets the target, above 1 is the factor to gain):"
        )
        for t in targets:
            ratio = t["ratio to target"]
            print(
                f"   {t['row']:45s} {t['measured']:11.4g} {t['CPU']:11.4g} {t['unit']:4s} "
                f"target {t['sense'] or '-':2s} {t['target']:<8g} ratio {ratio:7.3g} {t['met']}"
            )
        name = "targets_quick.csv" if args.quick else "targets.csv"
        merge_csv(targets, args.out / name, "row")
    print(f"benchmark wall time {time.perf_counter() - wall0:.0f} s; results in {args.out}")
    if failed:
        print(f"failed parts: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
