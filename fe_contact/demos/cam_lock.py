"""Bauchau's locking mechanism (000, sec. 7.2): a cam turned against a body at the mid-span of
a cantilever with a tip mass; Hertz contact between two Bezier profiles with friction and
rolling (model, data and the choices where the paper is silent: ``papers.bauchau``).

``fe-contact demo cam-lock [--cases 0 1 2 3] [--t-end T] [--h H] [--jobs N] [--out DIR]``

Cases: 0 no friction; 1 the continuous law (000 eq. 10), mu_k = 0.3, v0 = 2.5 mm/s; 2 case 1
with rolling (mu_s = 0.3) when |v_t| < v0 / 2; 3 (ours) hard contact with Coulomb friction.
The cases are independent runs: ``--jobs`` runs them in that many processes at once (default:
one per case, at most one per CPU), each writing its own folder as it goes; the results are
those of one process (each case's run is the same computation wherever it runs).

Writes to ``--out`` (default ``out/cam_lock``): ``case_<n>/history.csv`` (the standard
history with the energy-balance columns and the demo's sensors ``tip_displacement [m]``,
``midspan_displacement [m]`` and ``beam_root_moment [N m]`` (EI w''(0)); the cam support's
root moment is ``drive_0_force [N m]``, as the support is rigid, and the figure's mean
sub-step is h / ``n_substeps``), ``case_<n>/frames.pvd`` (the
ParaView series: beam, cam and mid-span profiles as polylines, the contact point with its force
vectors and state), ``summary.csv`` (one row per case) and the figures of 000 figs. 12-17:
``displacements``, ``torque``, ``root_moments``, ``normal_force``, ``friction_work`` and
``step_size`` (.png and .svg), rolling intervals marked. It prints the driving torque after
1 s of case 0 beside the paper's -1.0 kN m.
"""

from __future__ import annotations

import csv
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from .. import validation as check
from ..papers.bauchau import (
    CASES,
    LENGTH,
    PAPER_TORQUE,
    T_END,
    Geometry,
    H,
    cam_lock,
)
from ..sensors import StructureSensor
from ..steppers.observers import standard_observers
from . import DemoParser, count, folder, positive

# what the figures need beyond the standard columns, as history columns: the beam's tip and
# mid-span deflections (m) and E I w'' at its root (N m); the cam support's root moment is the
# drive's torque, ``drive_0_force`` (the support is rigid)
SENSORS = (
    StructureSensor("tip_displacement", "beam", LENGTH, "deflection"),
    StructureSensor("midspan_displacement", "beam", 0.5 * LENGTH, "deflection"),
    StructureSensor("beam_root_moment", "beam", 0.0, "moment"),
)
SUMMARY = (
    "case",
    "description",
    "status",
    "torque_after_1s [N m]",
    "paper_torque_case0 [N m]",
    "max_normal_force [N]",
    "friction_work [J]",
    "work_drives [J]",
    "max_abs_energy_error [J]",
    "rolling_events",
    "n_steps",
    "n_substeps",
    "wall_time [s]",
)


def run_case(case: int, t_end: float, h: float, out=None, geometry=None, t0=0.0):
    """Simulate one case (``papers.bauchau.cam_lock``, the SENSORS added) from t0 to t_end (s)
    with the step h (s); returns (system, result, extra) with extra["wall_time"] (s)."""
    scenario = cam_lock(case, Geometry() if geometry is None else geometry, t0)
    scenario = replace(scenario, model=replace(scenario.model, sensors=SENSORS))
    system = scenario.assemble()
    observers = []
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        observers = standard_observers(out, h, 0.01)
    start = time.perf_counter()
    result = scenario.run(system, t_span=(t0, t_end), h=h, observers=observers)
    return system, result, {"wall_time": time.perf_counter() - start}


def step_size(result, h: float) -> np.ndarray:
    """The mean sub-step of each output step (s; NaN for the initial row)."""
    substeps = result["n_substeps"]
    return np.where(substeps > 0, h / np.maximum(substeps, 1), np.nan)


def rolling_intervals(result) -> list[tuple[float, float]]:
    """(start, end) of the stick (rolling) phases from the located events."""
    spans, start = [], None
    for t, _, kind in result.events:
        if kind == "stick":
            start = t
        elif kind in ("slip", "open", "release") and start is not None:
            spans.append((start, t))
            start = None
    if start is not None:
        spans.append((start, float(result.t[-1])))
    return spans


def torque_after(result, t: float = 1.0) -> float:
    """The mean driving torque from t to the end of the run (N m; NaN if the run is shorter)."""
    late = result.t >= t
    if not np.any(late):
        return float("nan")
    return float(np.mean(result["drive_0_force"][late]))


def summary_row(case: int, result, extra: dict) -> dict:
    return {
        "case": case,
        "description": CASES[case],
        "status": result.status,
        "torque_after_1s [N m]": torque_after(result),
        "paper_torque_case0 [N m]": PAPER_TORQUE if case == 0 else float("nan"),
        "max_normal_force [N]": float(np.max(result["cam_normal_force"])),
        "friction_work [J]": float(result["dissipated_friction"][-1]),
        "work_drives [J]": float(result["work_drives"][-1]),
        "max_abs_energy_error [J]": float(np.max(np.abs(result["energy_error"]))),
        "rolling_events": len(rolling_intervals(result)),
        "n_steps": result.n_steps,
        "n_substeps": result.n_substeps,
        "wall_time [s]": extra["wall_time"],
    }


def _case(task) -> tuple:
    """(result, extra) of ``run_case`` for task = (case, t_end, h, out, geometry): what a worker
    process returns (the system stays there)."""
    _, result, extra = run_case(*task)
    return result, extra


def run(
    cases=(0, 1, 2, 3),
    t_end: float = 2.0,
    h: float = 1e-4,
    out=None,
    geometry=None,
    jobs: int = 1,
):
    """Run the cases, ``jobs`` of them at once in worker processes (1: one after the other in
    this process); returns {case: (result, extra)}; with ``out`` writes everything (each case
    its folder as it runs, then the summary and the figures from the histories' columns)."""
    jobs = check.positive_int("jobs", jobs)
    tasks = [
        (case, t_end, h, None if out is None else Path(out) / f"case_{case}", geometry)
        for case in cases
    ]
    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            done = list(pool.map(_case, tasks))
    else:
        done = [_case(task) for task in tasks]
    runs = dict(zip(cases, done, strict=True))
    if out is not None:
        out = Path(out)
        rows = [summary_row(case, *runs[case]) for case in cases]
        with open(out / "summary.csv", "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=SUMMARY)
            writer.writeheader()
            writer.writerows(rows)
        _figures(out, runs, h)
    return runs


def _figures(out: Path, runs: dict, h: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io.plots import save_figure

    styles = {0: "-", 1: "--", 2: "-.", 3: ":"}

    def figure(name, ylabel, curves, marks=True, log=False):
        fig, ax = plt.subplots(figsize=(7, 3.8))
        if log:
            ax.set_yscale("log")
        for case, (result, extra) in runs.items():
            for label, y in curves(result, extra):
                ax.plot(result.t, y, styles[case], lw=0.9, label=f"case {case}{label}")
            if marks and case == 2:
                for k, (a, b) in enumerate(rolling_intervals(result)):
                    ax.axvspan(
                        a,
                        b,
                        color="tab:green",
                        alpha=0.2,
                        lw=0,
                        label="rolling (case 2)" if k == 0 else None,
                    )
        ax.set_xlabel("t [s]")
        ax.set_ylabel(ylabel)
        ax.legend(loc="best", fontsize="x-small")
        fig.tight_layout()
        save_figure(fig, out / name)
        plt.close(fig)

    figure(
        "displacements",
        "transverse displacement [m]",
        lambda r, e: [(" tip", r["tip_displacement"]), (" mid-span", r["midspan_displacement"])],
    )
    figure("torque", "driving torque [N m]", lambda r, e: [("", r["drive_0_force"])])
    figure(
        "root_moments",
        "root bending moment [N m]",
        lambda r, e: [(" beam", r["beam_root_moment"]), (" cam support", r["drive_0_force"])],
    )
    figure("normal_force", "normal contact force [N]", lambda r, e: [("", r["cam_normal_force"])])
    figure(
        "friction_work",
        "work of the friction forces [J]",
        lambda r, e: [("", r["dissipated_friction"])],
    )
    figure("step_size", "mean sub-step [s]", lambda r, e: [("", step_size(r, h))], log=True)


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo cam-lock", description=__doc__, module=__name__)
    parser.add_argument(
        "--cases",
        nargs="+",
        type=int,
        default=[0, 1, 2, 3],
        metavar="N",
        help="cases to run, among 0 1 2 3 (default all)",
    )
    parser.add_argument("--t-end", type=positive("s"), default=T_END, help="end time in s")
    parser.add_argument("--h", type=positive("s"), default=H, help="output step in s")
    parser.add_argument(
        "--jobs",
        type=count,
        default=None,
        metavar="N",
        help="parallel processes, one case each (default: one per CPU core, at most one per case)",
    )
    parser.add_argument("--out", type=folder, default="out/cam_lock", help="output folder")
    args = parser.parse_args(argv)
    bad = [c for c in args.cases if c not in CASES]
    if bad:
        parser.fail("--cases", bad, f"cases among {sorted(CASES)}")
    cases = tuple(dict.fromkeys(args.cases))
    jobs = args.jobs or min(os.cpu_count() or 1, len(cases))
    runs = run(cases, args.t_end, args.h, args.out, jobs=jobs)
    failed = False
    for case, (result, _) in runs.items():
        failed |= not result.success
        print(f"case {case} ({CASES[case]}): {result.status}: {result.message}")
        torque = torque_after(result)
        if np.isfinite(torque):
            line = f"  driving torque after 1 s: {torque:9.1f} N m"
        else:
            line = f"  driving torque after 1 s: not reached (the run ends at {result.t[-1]:.3g} s)"
        print(line + (f"   (000: {PAPER_TORQUE:.0f} N m)" if case == 0 else ""))
        print(
            f"  friction work {result['dissipated_friction'][-1]:.4g} J, "
            f"max |energy error| {np.max(np.abs(result['energy_error'])):.3g} J of "
            f"{result['work_drives'][-1]:.4g} J done by the drive"
        )
    print(f"written to {args.out}/")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
