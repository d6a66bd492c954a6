"""The speed issue's rows as printed and tabled by ``speed.py``: each row's target, the ratio
to it (on the CPU time) and the compiled / Python-step counts, and the parts of the benchmark
that measure the rows beyond the reference cases (``speed_rows`` does the measuring)."""

from __future__ import annotations

import numpy as np
import speed_rows

# the speed issue's targets: (row, figure, unit, target, sense); sense "<=" : the figure must
# not exceed the target (ratio = measured / target); ">=" : it must reach it (ratio = target /
# measured); a ratio <= 1 meets the target, above 1 it is the factor still to gain. The ratio
# is taken on the CPU time where there is one: the targets are what a user meets on a machine
# of their own, where wall and CPU time agree; on the shared machine the wall time also
# counts the waits for a core (up to 6 times the CPU time under a load of 10 on 2 cores)
TARGETS = {
    "slider on string": ("wall per simulated s, h = 1 ms", "s/s", 0.2, "<="),
    "cam-lock demo": (
        "whole demo (4 cases to 2 s, h = 1e-4 s), estimated from approach and contact windows",
        "s",
        60.0,
        "<=",
    ),
    "cam-lock demo, measured": (
        "whole demo (4 cases to 2 s, h = 1e-4 s), measured: one process per case",
        "s",
        60.0,
        "<=",
    ),
    "cam-lock per step": (
        "time per step, mean of the 4 cases (estimated demo / its 8e4 steps)",
        "us",
        100.0,
        "<=",
    ),
    "cam-lock per step, measured": (
        "time per step of the whole demo measured (run_case's own CPU / its 8e4 steps)",
        "us",
        100.0,
        "<=",
    ),
    "disk on string": ("wall per simulated s, example 1 (Moreau-Jean)", "s/s", 0.2, "<="),
    "pin-on-wheel": ("time of the default demo (the target: its CPU time)", "s", 15.0, "<="),
    "sliding point 1000": ("time per step, 1000 elements", "us", 150.0, "<="),
    "exudyn": ("Exudyn / fe_contact time", "x", 10.0, ">="),
    "first run": ("wall time of the README's first demo, fresh installation", "s", 30.0, "<="),
    "compilation": ("numba compile time in the foreground, fresh cache", "s", None, ""),
    "scale": ("time per step, 5000 elements, point at 80 m/s", "us", None, ""),
}


def target_row(key, measured, cpu=None, counted=None, note="", label=None):
    """Print and return one row of the issue's table: the measured figure (and its CPU
    counterpart), the target, the ratio to it and the compiled / fell-back counts."""
    figure, unit, target, sense = TARGETS[key]
    basis = measured if cpu is None else cpu
    if target is None or not np.isfinite(basis):
        ratio = float("nan")
    elif sense == "<=":
        ratio = basis / target
    else:
        ratio = target / basis
    met = "-" if not np.isfinite(ratio) else ("met" if ratio <= 1.0 else "missed")
    counted = counted or {}
    row_ = {
        "row": label or key,
        "figure": figure,
        "measured": measured,
        "CPU": float("nan") if cpu is None else cpu,
        "unit": unit,
        "target": float("nan") if target is None else target,
        "sense": sense,
        "ratio to target": ratio,
        "met": met,
        **{k: counted.get(k, "") for k in COUNT_KEYS},
        "note": note,
    }
    text = f"{measured:.4g} {unit}"
    if cpu is not None:
        text += f" (CPU {cpu:.4g})"
    goal = "no target" if target is None else f"target {sense} {target:g} {unit}"
    on = "" if cpu is None else " on CPU"
    ratio_text = "" if not np.isfinite(ratio) else f", ratio{on} {ratio:.3g} ({met})"
    steps = ""
    if counted:
        steps = (
            f"; steps: {counted['step path']}, {counted['compiled']} compiled, "
            f"{counted['python']} Python, {counted['fell back']} fell back"
        )
    print(f"** {label or key}: {figure}: {text}; {goal}{ratio_text}{steps}", flush=True)
    if note:
        print(f"   {note}", flush=True)
    return row_


COUNT_KEYS = ("step path", "n_steps", "n_substeps", "compiled", "python", "fell back")


def run_cam_lock(quick: bool, whole: bool = False):
    """The cam lock's rows: estimated from windows of each case's approach and contact phase
    (``speed_rows.cam_lock``, rows labelled "(windows' estimate)"); with ``whole``, the whole
    demo measured instead (one process per case, ``speed_rows.cam_lock_whole``): the rows
    "cam-lock demo" and "cam-lock per step (whole demo)". An estimate never takes a measured
    row's name."""
    if whole:
        cam = speed_rows.cam_lock_whole(t_end=0.02 if quick else speed_rows.CAM_T_END)
        per_case = ", ".join(
            f"case {c} {v['process CPU [s]']:.1f} s CPU ({v['status']}, {v['n_substeps']} "
            f"sub-steps, {v['python']} Python)"
            for c, v in cam["per case"].items()
        )
        note = (
            f"MEASURED{' (QUICK: to 0.02 s, not the demo)' if quick else ''}: each case's "
            f"run_case to {cam['t_end [s]']:g} s in a child process of its own (imports, "
            f"model build and the kernels' loading included; run_case's own CPU "
            f"{cam['run_case CPU [s]']:.1f} s); {per_case}"
        )
        steps = cam["counts"]["n_steps"]
        per_step = 1e6 * cam["run_case CPU [s]"] / max(steps, 1)
        step_note = (
            f"MEASURED{' (QUICK)' if quick else ''}: run_case's own CPU "
            f"{cam['run_case CPU [s]']:.1f} s over {steps} steps "
            f"({cam['counts']['n_substeps']} sub-steps: the halvings at closings, releases and "
            "rolling transitions); the windows' estimate (row 'cam-lock per step') leaves "
            "the halvings and the phases after the windows out"
        )
        return [
            target_row(
                "cam-lock per step, measured",
                per_step,
                per_step,
                cam["counts"],
                step_note,
                label="cam-lock per step (whole demo)",
            ),
            target_row(
                "cam-lock demo, measured",
                cam["wall [s]"],
                cam["CPU [s]"],
                cam["counts"],
                note,
                label="cam-lock demo",
            ),
        ]
    cam = speed_rows.cam_lock(quick=quick)
    per_case = "; ".join(
        f"case {c}: "
        + ", ".join(
            f"{phase} {w['window [s]'][0]:g}-{w['window [s]'][1]:g} s {w['CPU per step [us]']:.0f} "
            f"us CPU per step ({w['steps']} steps, {w['substeps']} sub-steps)"
            for phase, w in v.items()
        )
        for c, v in cam["per case"].items()
    )
    quick_note = "QUICK: windows of a tenth; " if quick else ""
    measured = (
        f"{quick_note}measured: {cam['measured steps']} steps, {cam['measured wall [s]']:.1f} s "
        f"wall, {cam['measured CPU [s]']:.1f} s CPU; {per_case}"
    )
    estimate = (
        f"{quick_note}ESTIMATED, not measured whole: per case the CPU per step of its approach "
        f"window (from 0 s, contact open) times the steps to {speed_rows.CAM_CONTACT_FROM:g} s, "
        "plus that of its contact window (the closing at 0.64 s with its halvings, and the "
        "contact after it) times the steps from there to 2 s; the phases after the window "
        "(rolling, release) are taken at the window's cost, their halvings are not in it: a "
        "lower bound; --cam-whole measures the demo"
    )
    return [
        target_row(
            "cam-lock per step",
            cam["estimated per step wall [us]"],
            cam["estimated per step CPU [us]"],
            cam["counts"],
            measured,
            label="cam-lock per step (windows' estimate)",
        ),
        target_row(
            "cam-lock demo",
            cam["estimated demo wall [s]"],
            cam["estimated demo CPU [s]"],
            cam["counts"],
            estimate,
            label="cam-lock demo (windows' estimate)",
        ),
    ]


def run_pin_on_wheel(quick: bool):
    pin = speed_rows.pin_on_wheel(quick)
    note = (
        "fe-contact demo pin-on-wheel in a child process (2 worker processes; CPU of all); "
        "event-driven stepper: no compiled step"
    )
    if quick:
        note = "QUICK: one run of 1e-5 s, not the demo; " + note
    return [
        target_row(
            "pin-on-wheel",
            pin["wall [s]"],
            pin["CPU [s]"],
            {"step path": "python", "compiled": 0, "python": "all", "fell back": 0},
            note,
        )
    ]


def run_first_run(quick: bool):
    first = speed_rows.first_run(0.06 if quick else 0.6)
    demo_note = (
        f"fe-contact demo manipulator{' --t-end 0.06' if quick else ''} on a fresh copy of the "
        f"package (no numba cache): {first['demo first wall [s]']:.1f} s wall / "
        f"{first['demo first CPU [s]']:.1f} s CPU (its workers included) on the Python step "
        f"while the kernels compile in a detached process (message shown: "
        f"{'yes' if first['demo said background'] else 'NO'}; that process: "
        f"{first['background CPU [s]']:.1f} s of CPU, done {first['background waited [s]']:.0f} s "
        f"after the demo); the same command then: {first['demo again wall [s]']:.1f} s wall / "
        f"{first['demo again CPU [s]']:.1f} s CPU (compiled, from the cache)"
    )
    fg_note = (
        f"FE_CONTACT_COMPILE=foreground: cold process {first['cold wall [s]']:.1f} s wall / "
        f"{first['cold CPU [s]']:.1f} s CPU (a fresh copy of the package, no numba cache) minus "
        f"warm process {first['warm wall [s]']:.1f} / {first['warm CPU [s]']:.1f} s: this "
        f"machine's compile time under its current load; message 'compiling the numba kernels' "
        f"shown: {'yes' if first['message'] else 'NO'} (on the warm run: "
        f"{'yes' if first['message in warm run'] else 'no'})"
    )
    counted = {
        "step path": "compiled",
        "compiled": first["compiled steps"],
        "python": first["substeps"] - first["compiled steps"],
        "fell back": "",
    }
    waiting = {"step path": "python", "compiled": 0, "python": "all", "fell back": 0}
    return [
        target_row(
            "first run",
            first["demo first wall [s]"],
            None,  # what the user waits for: wall time (CPU in the note)
            waiting,
            demo_note,
        ),
        target_row(
            "compilation",
            first["compile wall [s]"],
            first["compile CPU [s]"],
            counted,
            fg_note,
        ),
    ]


def run_scale(quick: bool, reference: bool):
    t_end = 0.005 if quick else 0.05
    rows = []
    paths = (True, False) if reference else (True,)
    for compiled in paths:
        sc = speed_rows.scale_case(t_end=t_end, compiled=compiled, repeats=1 if quick else 2)
        note = (
            f"{sc['unknowns']} unknowns, h = {sc['h [s]']:g} s over {t_end:g} s: "
            f"{sc['wall per simulated s [s/s]']:.3g} s per simulated s (CPU "
            f"{sc['CPU per simulated s [s/s]']:.3g}), {sc['newton per step']:.1f} Newton "
            f"iterations per step; status {sc['status']}, largest |energy_error| "
            f"{sc['max |energy_error| [J]']:.2e} J, position residual "
            f"{sc['max residual_position [m]']:.1e} m"
        )
        rows.append(
            target_row(
                "scale",
                sc["wall per step [us]"],
                sc["CPU per step [us]"],
                sc["counts"],
                note,
                label="scale" if compiled else "scale, compiled=False",
            )
        )
    return rows


def split_counts(text: str):
    """fe_contact's "compiled/Python/fell back" counts as ``target_row`` takes them (None when
    not measured)."""
    if not text:
        return None
    compiled, python, fell_back = text.split("/")
    return {"step path": "compiled", "compiled": compiled, "python": python, "fell back": fell_back}


def exudyn_targets(scaled, accuracy):
    """Target rows of the side-by-side: equal accuracy at each horizon, and per step at equal
    h at each element count (not at equal accuracy: labelled)."""
    rows = []
    seen = set()
    for r in accuracy:
        n_elements = r.get("elements", 10)
        if (r["comparison"], n_elements) in seen:
            continue
        seen.add((r["comparison"], n_elements))
        rows.append(
            target_row(
                "exudyn",
                r["exudyn / fe_contact (wall)"],
                r["exudyn / fe_contact (CPU)"],
                split_counts(r.get("fe_contact steps", "")),
                f"equal own error <= 1e-6 m, {n_elements} elements",
                label=f"exudyn, equal accuracy, t_end = {r['t_end [s]']:g} s"
                + ("" if n_elements == 10 else f", {n_elements} elements"),
            )
        )
    for r in scaled:
        fe, ex = r.get("fe_contact per step [us]"), r.get("exudyn per step [us]")
        if fe is None or ex is None:
            continue
        rows.append(
            target_row(
                "exudyn",
                ex / fe,
                r["exudyn CPU per step [us]"] / r["fe_contact CPU per step [us]"],
                split_counts(r.get("fe_contact steps", "")),
                "per step at equal h = 1e-4 s (not at equal accuracy)",
                label=f"exudyn, {r['elements']} elements, per step",
            )
        )
    return rows
