"""CPU time per step of the cam lock's four cases in their two phases, and the outputs that a
change of the profile geometry must leave unchanged: run on two source trees, compare.

* open: the first 0.01 s from t = 0 (the cam's approach, contact open; as ``speed.py``);
* contact: from t0 = 0.6 s (``papers.bauchau.cam_lock(case, t0=0.6)``: the cam at Phi(0.6),
  the rest at rest, which it is then up to the inertia of the cam's support springs; the
  contact closes at 0.64 s) to 0.75 s, case 0 to 1.1 s (its driving torque after 1 s).

With ``--whole T``: each case's whole run from 0 to T s instead (one process, one case after
the other, after a 2 ms run that loads the kernels), its CPU time, sub-steps (compiled / on
the Python step) and events printed: how the speed page measures case 2's whole run.

Run: PYTHONPATH=TREE python benchmarks/cam_lock_phases.py LABEL OUT.npz [--csv FILE]
[--cases 2 3] [--whole 2] (the histories of each contact run go to OUT.npz; a row per case and phase is appended to
FILE, default benchmarks/results/curved_profiles.csv). Then
python benchmarks/cam_lock_phases.py --compare A.npz B.npz prints the largest differences.
"""

from __future__ import annotations

import argparse
import csv
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

COLUMNS = (
    "drive_0_force",
    "cam_normal_force",
    "dissipated_friction",
    "tip_displacement",
    "midspan_displacement",
)


def scenario(case: int, t0: float):
    from fe_contact.demos.cam_lock import SENSORS
    from fe_contact.papers.bauchau import Geometry, cam_lock

    s = cam_lock(case, Geometry(), t0)
    s = replace(s, model=replace(s.model, sensors=SENSORS))
    return s, s.assemble()


def measure(label: str, npz: Path, table: Path, cases=(0, 1, 2, 3)) -> None:
    from fe_contact.demos.cam_lock import torque_after
    from fe_contact.papers.bauchau import Geometry, cam_lock

    rows, histories = [], {}
    cpu0 = time.process_time()
    for _ in range(5):
        cam_lock(1, Geometry())
    build = (time.process_time() - cpu0) / 5
    for case in cases:
        for phase, t0, t1 in (("open", 0.0, 0.01), ("contact", 0.6, 1.1 if case == 0 else 0.75)):
            s, system = scenario(case, t0)
            if phase == "open":
                s.run(system, t_span=(t0, t0 + 0.002), h=1e-4)  # caches, numba's loading
            cpu0 = time.process_time()
            result = s.run(system, t_span=(t0, t1), h=1e-4)
            cpu = time.process_time() - cpu0
            torque = torque_after(result) if phase == "contact" and case == 0 else float("nan")
            rows.append(
                {
                    "label": label,
                    "case": case,
                    "phase": phase,
                    "t0 [s]": t0,
                    "t1 [s]": t1,
                    "status": result.status,
                    "n_steps": result.n_steps,
                    "n_substeps": result.n_substeps,
                    "CPU per step [us]": round(1e6 * cpu / max(result.n_steps, 1), 1),
                    "build CPU [s]": round(build, 4),
                    "torque after 1 s [N m]": torque,
                    "max normal force [N]": float(np.max(result["cam_normal_force"])),
                }
            )
            if phase == "contact":
                histories[f"{case}/t"] = np.asarray(result.t)
                for column in COLUMNS:
                    histories[f"{case}/{column}"] = np.asarray(result[column])
            print(rows[-1], flush=True)
    np.savez(npz, **histories)
    new = not table.exists()
    with open(table, "a", newline="") as fh:
        writer = csv.DictWriter(fh, list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)


def whole(label: str, t_end: float, cases=(0, 1, 2, 3)) -> None:
    """CPU time of each case's whole run from 0 to t_end, printed."""
    for case in cases:
        s, system = scenario(case, 0.0)
        s.run(system, t_span=(0.0, 0.002), h=1e-4)  # caches, numba's loading
        cpu0 = time.process_time()
        result = s.run(system, t_span=(0.0, t_end), h=1e-4)
        cpu = time.process_time() - cpu0
        print(
            f"{label} case {case}: {cpu:.2f} s of CPU to {t_end:g} s, {result.status}, "
            f"{result.n_substeps} sub-steps ({result.n_compiled} compiled, "
            f"{result.n_python} on the Python step), {len(result.events)} events",
            flush=True,
        )


def compare(a: Path, b: Path) -> None:
    """The largest difference of each column between the two runs, relative to its largest
    magnitude."""
    x, y = np.load(a), np.load(b)
    for key in sorted(x.files):
        if key.endswith("/t"):
            continue
        u, v = x[key], y[key]
        if u.shape != v.shape:
            print(f"{key}: different lengths {u.shape} {v.shape}")
            continue
        scale = max(float(np.max(np.abs(u))), 1e-300)
        diff = float(np.max(np.abs(u - v)))
        print(f"{key:30s} max |diff| {diff:10.3e}  relative to max |value| {diff / scale:10.3e}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("label", nargs="?")
    parser.add_argument("npz", nargs="?", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    here = Path(__file__).resolve().parent
    parser.add_argument("--csv", type=Path, default=here / "results" / "curved_profiles.csv")
    parser.add_argument("--cases", nargs="+", type=int, default=[0, 1, 2, 3])
    parser.add_argument("--whole", type=float, default=None, metavar="T")
    args = parser.parse_args(argv)
    if args.compare:
        compare(*args.compare)
    elif args.whole is not None:
        whole(args.label or "run", args.whole, tuple(args.cases))
    else:
        measure(args.label, args.npz, args.csv, tuple(args.cases))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
