"""Speed of fe_contact on the reference cases, with its own discretisation error at the chosen
step, and the sliding mass side by side with Exudyn when it is installed (``pip install
".[bench]"``).

Run: python benchmarks/speed.py [--quick] [--out benchmarks/results]. Prints and writes
``speed.csv`` (one row per case: wall time per simulated second, time per step, Newton
iterations per step, own error at the chosen step, and the step), ``scaling.csv`` (time per step
of the sliding mass against the number of beam elements, both codes) and ``scaling.png``.

Cases (the issue's list):

* sliding mass (``fe_contact.papers.lipinski.sliding_mass_model``, mu = 0) on 10 and 80
  elements, and on 1000 elements (a 1000-element beam with a sliding point);
* the manipulator on the cantilever, mu = 0.2, 0.6 s (002 sec. 9; initial statics excluded);
* the disk on the string, 004 example 1 (Moreau-Jean, 2 s).

Own error: every case runs at h and h/2; the error of the run at h is estimated by Richardson
extrapolation for a second-order method, |y_h - y_h/2| * 4/3, as the largest difference over
the common output times of the tracked coordinates (the mass position in m; the tree angles in
rad for the manipulator; the disk centre in m for the disk). Moreau-Jean is first order: its
estimate uses |y_h - y_h/2| * 2.

Wall time is the time ``simulate`` spends (stepper set-up with its consistent initial state
and the steps), not building the model. Every run is done once before it is timed, so that
caches do not count; the first run's extra time is reported separately ("compile"). The
generalised-alpha cases run the compiled step (``steppers.compiled``, numba); its JIT
compilation is cached on disk (``cache=True``): the benchmark first reports the time to load
(or, on a fresh install, to compile) the kernels. ``--reference`` also times every
generalised-alpha case on the Python step (``compiled=False``) and prints the speed-up.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

from fe_contact.demos import disk_on_string
from fe_contact.demos.sliding_mass import model_file
from fe_contact.papers.lipinski import Manipulator, manipulator_initial_state
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

HERE = Path(__file__).resolve().parent
TARGET_ERROR = 1e-6  # m, the accuracy at which the two codes are compared


def sliding_mass(n_elements: int, h: float, t_end: float, compiled: bool = True):
    """(result, tracked (n_t, 2) mass positions) of the sliding mass, mu = 0."""
    run_file = model_file(mu=0.0, n_elements=n_elements, t_end=t_end, h=h)
    system = assemble(run_file.model)
    q0, u0 = run_file.initial.state(system)
    result = simulate(system, (0.0, t_end), (q0, u0), h=h, rho_inf=0.9, compiled=compiled)
    return result, result.q[:, system.layout.tree]


def manipulator(h: float, t_end: float, compiled: bool = True):
    """The manipulator, mu = 0.2 (``run_case``'s run without its files)."""
    system, init = manipulator_initial_state(Manipulator(), 0.2)
    r = simulate(system, (0.0, t_end), (init.q0, init.u0), h=h, rho_inf=0.9, compiled=compiled)
    return r, r.q[:, :3]  # the three joint angles (the tree comes first in the layout)


def kernels_ready() -> float:
    """Seconds to load (or compile, on a fresh install) the compiled step's kernels: one
    short run of the sliding mass in this process."""
    t0 = time.perf_counter()
    sliding_mass(10, 1e-3, 2e-3)
    return time.perf_counter() - t0


def disk(h: float, t_end: float):
    _, r = disk_on_string.run(example=1, t_end=t_end, h=h, out=None, plot=False)
    return r, r.q[:, :2]


def own_error(run, h: float, t_end: float, order: int):
    """(result at h, wall time at h, error estimate): runs at h and h/2."""
    coarse, y1 = run(h, t_end)
    fine, y2 = run(h / 2, t_end)
    n = min(len(y1), (len(y2) + 1) // 2)
    diff = np.max(np.abs(y1[:n] - y2[: 2 * n : 2]))
    return coarse, diff * 2**order / (2**order - 1)


def timed(run, h: float, t_end: float):
    """Runs twice: (result of the second run, first-run extra time in s)."""
    first, _ = run(h, t_end)
    second, _ = run(h, t_end)
    return second, max(first.wall_time - second.wall_time, 0.0)


def row(name, run, h, t_end, order=2, reference=False):
    result, compile_time = timed(run, h, t_end)
    _, error = own_error(run, h, t_end, order)
    steps = max(result.n_steps, 1)
    extra = {}
    if reference:
        python, _ = timed(lambda h_, t_: run(h_, t_, compiled=False), h, t_end)
        extra = {
            "python step per step [us]": 1e6 * python.wall_time / max(python.n_steps, 1),
            "speed-up": python.wall_time / result.wall_time,
        }
    return {
        "case": name,
        "h [s]": h,
        "t_end [s]": t_end,
        "status": result.status,
        "wall per simulated s [s/s]": result.wall_time / t_end,
        "time per step [us]": 1e6 * result.wall_time / steps,
        "newton per step": result.n_newton / steps,
        "own error": error,
        "compile [s]": compile_time,
        **extra,
    }


def exudyn_available() -> bool:
    try:
        import exudyn  # noqa: F401
    except ImportError:
        return False
    return True


def scaling(elements, t_end: float, h: float, with_exudyn: bool):
    rows = []
    for n in elements:
        result, _ = timed(lambda h_, t_, n=n: sliding_mass(n, h_, t_), h, t_end)
        entry = {"elements": n, "fe_contact per step [us]": 1e6 * result.wall_time / result.n_steps}
        if with_exudyn:
            from exudyn_sliding_mass import run_exudyn

            try:
                run_exudyn(n_elements=n, h=h, t_end=t_end)  # warm-up
                ex = run_exudyn(n_elements=n, h=h, t_end=t_end)
                entry["exudyn per step [us]"] = 1e6 * ex["solver_time"] / ex["steps"]
            except RuntimeError as err:  # Exudyn's Newton did not converge at this step
                print(f"   Exudyn, {n} elements: {err}")
                entry["exudyn per step [us]"] = float("nan")
        rows.append(entry)
        print("  ", ", ".join(f"{k} = {v:.4g}" for k, v in entry.items()), flush=True)
    return rows


def equal_accuracy(t_end: float, steps_fe, steps_ex):
    """The largest step of each code whose own error is <= TARGET_ERROR, and the wall times
    per simulated second there (sliding mass, 10 elements)."""
    from exudyn_sliding_mass import own_error as exudyn_error
    from exudyn_sliding_mass import run_exudyn

    def fe(h, t):
        return sliding_mass(10, h, t)

    out = {}
    for h in steps_fe:
        _, error = own_error(fe, h, t_end, 2)
        if error <= TARGET_ERROR:
            result, _ = timed(fe, h, t_end)
            out["fe_contact"] = (h, error, result.wall_time / t_end)
            break
    for h in steps_ex:
        try:
            error = exudyn_error(10, h, t_end)
        except RuntimeError as err:  # Exudyn's Newton did not converge at this step
            print(f"   Exudyn, h = {h:g} s: {err}")
            continue
        if error <= TARGET_ERROR:
            run_exudyn(n_elements=10, h=h, t_end=t_end)
            ex = run_exudyn(n_elements=10, h=h, t_end=t_end)
            out["exudyn"] = (h, error, ex["solver_time"] / t_end)
            break
    return out


def write_csv(rows, path: Path) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, keys)
        writer.writeheader()
        writer.writerows(rows)


def plot_scaling(rows, path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 4.0), layout="constrained")
    ax = fig.subplots()
    n = [r["elements"] for r in rows]
    ax.loglog(n, [r["fe_contact per step [us]"] for r in rows], "o-", label="fe_contact")
    if rows and "exudyn per step [us]" in rows[0]:
        ax.loglog(n, [r["exudyn per step [us]"] for r in rows], "s-", label="Exudyn 1.13.6")
    ref = np.array(n, dtype=float)
    base = rows[0]["fe_contact per step [us]"]
    ax.loglog(ref, base * ref / ref[0], "k:", lw=0.8, label="linear in elements")
    ax.set_xlabel("beam elements")
    ax.set_ylabel("wall time per step [us]")
    ax.set_title("Sliding mass on the cantilever (generalised-alpha)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.savefig(path, dpi=150)


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
        choices=("cases", "scaling", "accuracy"),
        default=("cases", "scaling", "accuracy"),
        help="which parts to run (default all)",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    scale = 0.1 if args.quick else 1.0
    with_exudyn = exudyn_available() and not args.no_exudyn
    sys.path.insert(0, str(HERE))
    wall0 = time.perf_counter()

    print(f"compiled kernels loaded (compiled if not cached) in {kernels_ready():.2f} s")
    cases = [
        (
            "sliding mass, 10 elements",
            lambda h, t, **k: sliding_mass(10, h, t, **k),
            1e-3,
            0.2 * scale,
            2,
        ),
        (
            "sliding mass, 80 elements",
            lambda h, t, **k: sliding_mass(80, h, t, **k),
            1e-3,
            0.2 * scale,
            2,
        ),
        (
            "sliding point, 1000 elements",
            lambda h, t, **k: sliding_mass(1000, h, t, **k),
            1e-3,
            0.05 * scale,
            2,
        ),
        ("manipulator, mu = 0.2", manipulator, 5e-4, 0.6 * scale, 2),
        ("disk on string, example 1", disk, 1e-3, 2.0 * scale, 1),
    ]
    rows = []
    if "cases" not in args.parts:
        cases = []
    print(
        f"{'case':32s} {'h [s]':>8} {'s/s':>8} {'us/step':>9} {'newton':>7} {'own error':>10} "
        f"{'compile':>8}"
    )
    for name, run, h, t_end, order in cases:
        reference = args.reference and order == 2  # the generalised-alpha cases
        r = row(name, run, h, t_end, order, reference)
        rows.append(r)
        line = (
            f"{name:32s} {h:8.1e} {r['wall per simulated s [s/s]']:8.3f} "
            f"{r['time per step [us]']:9.1f} {r['newton per step']:7.2f} {r['own error']:10.2e} "
            f"{r['compile [s]']:8.2f}"
        )
        if reference:
            line += (
                f"   (Python step {r['python step per step [us]']:.0f} us/step, "
                f"x{r['speed-up']:.1f})"
            )
        print(line, flush=True)
    if rows:
        write_csv(rows, args.out / "speed.csv")

    if "scaling" in args.parts:
        print("time per step of the sliding mass against the number of elements (h = 1e-4 s):")
        elements = [10, 20, 40, 80, 160, 320, 640, 1000]
        # h = 1e-4 s: Exudyn's fixed-step Newton does not converge at 1e-3 s from 40 elements on
        scaled = scaling(elements, 0.002 if args.quick else 0.01, 1e-4, with_exudyn)
        write_csv(scaled, args.out / "scaling.csv")
        plot_scaling(scaled, args.out / "scaling.png")
        ratio = scaled[-1]["fe_contact per step [us]"] / scaled[0]["fe_contact per step [us]"]
        print(f"cost at 1000 / at 10 elements: {ratio:.1f} (linear: 100)")

    if with_exudyn and "accuracy" in args.parts:
        t_end = 0.1 * scale if args.quick else 0.1
        acc = equal_accuracy(
            t_end,
            (5e-3, 4e-3, 2.5e-3, 2e-3, 1e-3, 5e-4),
            (1e-3, 5e-4, 4e-4, 2.5e-4, 2e-4, 1e-4, 5e-5),
        )
        for code, (h, error, per_second) in acc.items():
            print(
                f"{code:10s} at own error <= {TARGET_ERROR:g} m: h = {h:g} s (error {error:.2e} m), "
                f"{per_second:.3f} s per simulated s"
            )
        if len(acc) == 2:
            print(
                f"Exudyn / fe_contact wall time at equal accuracy: "
                f"{acc['exudyn'][2] / acc['fe_contact'][2]:.2f}"
            )
        write_csv(
            [
                {"code": k, "h [s]": v[0], "own error [m]": v[1], "wall per simulated s": v[2]}
                for k, v in acc.items()
            ],
            args.out / "equal_accuracy.csv",
        )
    elif (
        not with_exudyn
        and not args.no_exudyn
        and ("scaling" in args.parts or "accuracy" in args.parts)
    ):
        print("Exudyn not installed (pip install '.[bench]'): no side-by-side figures")
    print(f"benchmark wall time {time.perf_counter() - wall0:.0f} s; results in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
