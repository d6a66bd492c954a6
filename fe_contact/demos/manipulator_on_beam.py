"""The manipulator sliding on the cantilever: Lipinski (002), sec. 9, with the data and choices of
``papers.lipinski``.

``fe-contact demo manipulator [--mu MU ...] [--t-end T] [--h H] [--jobs N] [--joint3 prismatic]
[--drive-reversal T] [--lift-off] [--vtk 0.2|all|none] [--set NAME=VALUE] [--out DIR]`` runs one case per friction coefficient
(the sweep 0, 0.05, 0.1, 0.15, 0.2, 0.3 by default) of the model of
``fe_contact.papers.lipinski`` (its docstring lists the data and every choice we made where 002
is silent: all joints revolute, body 1 horizontal, joint 2 turning clockwise at 0.2 rad/s, spring
rest angles from the frictionless static pose with a 0.5 N normal force, a quasi-static start per
mu; generalised-alpha with rho_inf = 0.9 and h = 5e-4 s).

Outputs in ``--out`` (default ``out/manipulator``): ``mu_<mu>/model.toml`` per case (the case as
a model file: ``fe-contact run`` runs it again), ``mu_<mu>/history.csv`` per case (every column
of the run in the library's vocabulary, SI units in the header: ``tip_normal_force``,
``tip_friction_force``, ``tip_slip_velocity``, ``tip_parameter`` (the contact's x on the beam),
``drive_1_force`` (the driving torque at joint 2, N m), the energy balance), ``torque.png/.svg``
(driving torque at joint 2 vs time, one curve per mu), ``configuration.png/.svg`` (mechanism and
deflected beam to scale at the end time with the contact forces), ``summary.csv`` (printed too),
the ParaView series ``mu_<mu>/frames.pvd`` of the mu = 0.2 case (``--vtk all``: every case) and
``manipulator.gif`` (an animation of that series). The exit code is 1 when a case does not reach
the end time; the other cases still run and are reported.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from .. import kernels
from ..io import model_sections as mf
from ..io.model_writer import save_model
from ..io.plots import plot_configuration
from ..papers.lipinski import (
    CONTACT,
    MU_SWEEP,
    Manipulator,
    apply_settings,
    manipulator,
    manipulator_model,
    manipulator_pose,
)
from ..scenario import Scenario
from ..steppers.observers import CsvObserver, ProgressObserver, VtkObserver
from ..system import assemble
from . import DemoParser, count, folder, nonnegative, positive
from .manipulator_figures import TORQUE, plot_torques

ENERGY_TERMS = (
    "kinetic_energy",
    "potential_energy",
    "elastic_energy",
    "work_drives",
    "dissipated_damping",
    "dissipated_friction",
    "dissipated_numerical",
)


MODEL_FILE_RESULTS = (
    f"mean:{TORQUE}",
    f"mean:{CONTACT}_normal_force",
    f"final:{CONTACT}_parameter",
    "final:dissipated_friction",
)


class LastReport:
    """Observer keeping the latest StepReport (the contact point and forces of the end state)."""

    def __init__(self):
        self.report = None

    def __call__(self, system, report, row):
        self.report = report

    def add_batch(self, system, batch, rows):
        """The report of a batch's last step (``steppers.observers``)."""
        self.report = batch.report(batch.n - 1)


@dataclass
class MuCase:
    """One mu of the sweep: its scenario (``papers.lipinski.manipulator``: model, start and its
    details), result (SimulationResult), summary row and the StepReport of the last state (None
    when the case could not start)."""

    mu: float
    scenario: Scenario | None
    result: object
    summary: dict
    last: object = None


def case_dir(out, mu: float) -> Path:
    return Path(out) / f"mu_{mu:g}"


def energy_terms(result) -> dict:
    """The energy-balance terms of a run (J, arrays): energies, work of the drive, dissipation."""
    return {name: np.asarray(result[name]) for name in ENERGY_TERMS}


def summarize(mu: float, result, wall_time: float) -> dict:
    """The summary row of one case (SI)."""
    torque = np.asarray(result[TORQUE])
    largest = max(float(np.max(np.abs(v))) for v in energy_terms(result).values())
    error = float(np.max(np.abs(result["energy_error"])))
    return {
        "mu": mu,
        "status": result.status,
        "t_end [s]": float(result.t[-1]),
        "mean_torque [N m]": float(np.mean(torque)),
        "max_torque [N m]": float(np.max(torque)),
        "min_torque [N m]": float(np.min(torque)),
        "mean_normal_force [N]": float(np.mean(result[f"{CONTACT}_normal_force"])),
        "final_contact_x [m]": float(result[f"{CONTACT}_parameter"][-1]),
        "drive_work [J]": float(result["work_drives"][-1]),
        "friction_dissipation [J]": float(result["dissipated_friction"][-1]),
        "energy_error [J]": error,
        "energy_error_relative": error / largest,
        "max_residual_position [m]": float(np.max(result["residual_position"])),
        "max_residual_velocity [m/s]": float(np.max(result["residual_velocity"])),
        "wall_time [s]": wall_time,
        "message": result.message,
    }


SUMMARY_KEYS = (
    "mu",
    "status",
    "t_end [s]",
    "mean_torque [N m]",
    "max_torque [N m]",
    "min_torque [N m]",
    "mean_normal_force [N]",
    "final_contact_x [m]",
    "drive_work [J]",
    "friction_dissipation [J]",
    "energy_error [J]",
    "energy_error_relative",
    "max_residual_position [m]",
    "max_residual_velocity [m/s]",
    "wall_time [s]",
    "message",
)


def run_case(
    mu: float,
    data: Manipulator | None = None,
    t_end: float = 0.6,
    h: float = 5e-4,
    rho_inf: float = 0.9,
    out=None,
    vtk: bool = False,
    frame_interval: float = 0.01,
    progress: bool | None = False,
    **settings,
) -> MuCase:
    """Simulate one friction coefficient; writes ``OUT/mu_<mu>/model.toml`` (the case as a model
    file) and ``history.csv`` (and the ParaView series ``frames.pvd`` when ``vtk``) as the run
    goes when ``out`` is given. ``settings`` go
    to the stepper (``max_newton``, ``max_halvings``, ...)."""
    data = Manipulator() if data is None else data
    wall0 = time.perf_counter()
    scenario = manipulator(data, mu)
    system = scenario.assemble()
    last = LastReport()
    observers = [last]
    if out is not None:
        folder = case_dir(out, mu)
        run_file = mf.ModelFile(
            system.model,
            mf.Simulation(t_end, h=h, settings={"rho_inf": rho_inf, **settings}),
            mf.InitialState.from_state(system, scenario.q0, scenario.u0),
            mf.Output(frame_every=frame_interval if vtk else 0.0, results=MODEL_FILE_RESULTS),
        )
        save_model(run_file, folder / "model.toml")
        observers.append(CsvObserver(folder / "history.csv"))
        if vtk:
            stride = max(int(round(frame_interval / h)), 1)
            observers.append(VtkObserver(folder, name="frames", stride=stride))
    if progress:
        observers.append(ProgressObserver())
    result = scenario.run(
        system,
        t_span=(0.0, t_end),
        h=h,
        rho_inf=rho_inf,
        observers=observers,
        **settings,
    )
    wall = time.perf_counter() - wall0
    return MuCase(
        mu=float(mu),
        scenario=scenario,
        result=result,
        summary=summarize(mu, result, wall),
        last=last.report,
    )


def _run_case_job(args, progress=False):
    """run_case that never raises: a case that cannot start is reported as failed."""
    try:
        return run_case(*args, progress=progress)
    except Exception as err:  # noqa: BLE001 - reported per case, the sweep goes on
        summary = dict.fromkeys(SUMMARY_KEYS, float("nan"))
        summary.update(mu=float(args[0]), status="failed", message=f"{type(err).__name__}: {err}")
        return MuCase(mu=float(args[0]), scenario=None, result=None, summary=summary)


def sweep(
    mus=MU_SWEEP,
    data: Manipulator | None = None,
    t_end: float = 0.6,
    h: float = 5e-4,
    out=None,
    vtk=(0.2,),
    jobs: int = 1,
    progress: bool | None = None,
) -> list[MuCase]:
    """Run every mu (in ``jobs`` processes when > 1; when numba's cache does not hold the
    kernels yet, the first mu runs in this process first, so that they compile once and the
    workers load them); ``vtk`` : the mus whose ParaView series is written ("all": every case).
    Returns the cases in the order of ``mus``."""
    data = Manipulator() if data is None else data
    mus = [float(m) for m in mus]
    if not mus:
        raise ValueError("mus must hold at least one friction coefficient")
    if isinstance(jobs, bool) or int(jobs) != jobs or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    if progress is None:
        progress = sys.stderr.isatty()
    with_vtk = [vtk == "all" or any(np.isclose(m, v) for v in (vtk or ())) for m in mus]
    args = [(m, data, t_end, h, 0.9, out, v) for m, v in zip(mus, with_vtk, strict=True)]
    if jobs == 1:
        return [_run_case_job(a, progress) for a in args]
    cases = {}
    if not kernels.cached():
        # the first run after installing compiles the kernels: once, here, before the workers
        # start (they load them from the cache), instead of in every worker at once
        first, args = args[0], args[1:]
        cases[first[0]] = _run_case_job(first, progress)
    with ProcessPoolExecutor(max_workers=int(jobs)) as pool:
        futures = {pool.submit(_run_case_job, a): a[0] for a in args}
        done = as_completed(futures)
        if progress:
            from tqdm import tqdm

            done = tqdm(done, total=len(futures), desc="cases", unit="case")
        for future in done:
            cases[futures[future]] = future.result()
    return [cases[m] for m in mus]


# -- outputs -------------------------------------------------------------------------------------


def write_mu_summary(cases: list[MuCase], path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = list(SUMMARY_KEYS)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(keys)
        for case in cases:
            writer.writerow([case.summary[k] for k in keys])
    return path


def format_summary(cases: list[MuCase]) -> str:
    head = (
        f"{'mu':>5} {'status':>8} {'mean tau':>9} {'max tau':>9} {'mean N':>8} {'x_end':>8} "
        f"{'E err rel':>9} {'max phi':>9} {'wall':>6}"
    )
    lines = [
        head,
        f"{'':>5} {'':>8} {'[N m]':>9} {'[N m]':>9} {'[N]':>8} {'[m]':>8} "
        f"{'':>9} {'[m]':>9} {'[s]':>6}",
    ]
    for case in cases:
        s = case.summary
        lines.append(
            f"{case.mu:5.3g} {s['status']:>8} {s['mean_torque [N m]']:9.5f} "
            f"{s['max_torque [N m]']:9.5f} {s['mean_normal_force [N]']:8.4f} "
            f"{s['final_contact_x [m]']:8.5f} {s['energy_error_relative']:9.2e} "
            f"{s['max_residual_position [m]']:9.2e} {s['wall_time [s]']:6.1f}"
        )
    return "\n".join(lines)


def shown_case(cases: list[MuCase]) -> MuCase | None:
    """The case drawn in the configuration figure and animated: mu = 0.2, else the last that
    ran; None when none ran."""
    ran = [c for c in cases if c.result is not None]
    return next((c for c in ran if np.isclose(c.mu, 0.2)), ran[-1] if ran else None)


def plot_sweep(
    cases: list[MuCase], data: Manipulator, torque_path, configuration_path
) -> list[Path]:
    """The sweep's figures from its results (nothing is run again): the driving torque of every
    case (002 Fig. 7b) and the configuration of ``shown_case`` at its last state (Fig. 7a), each
    as PNG and SVG. Returns the written paths."""
    show = shown_case(cases)
    if show is None:
        raise ValueError("cases: no case ran, so there is nothing to draw")
    written = plot_torques(cases, torque_path)
    system = assemble(manipulator_model(data, show.mu))
    t_end = show.result.t[-1]
    return written + plot_configuration(
        system,
        show.last,
        configuration_path,
        title=f"manipulator on the cantilever, mu = {show.mu:g}, t = {t_end:.3g} s (002 Fig. 7a)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = DemoParser(prog="fe-contact demo manipulator", description=__doc__, module=__name__)
    parser.add_argument(
        "--mu", type=nonnegative(), nargs="+", default=list(MU_SWEEP), help="friction coefficients"
    )
    parser.add_argument(
        "--t-end", type=positive("s"), default=0.6, help="end time, s (default 0.6)"
    )
    parser.add_argument("--h", type=positive("s"), default=5e-4, help="time step, s (default 5e-4)")
    parser.add_argument("--out", type=folder, default="out/manipulator", help="output folder")
    parser.add_argument(
        "--jobs",
        type=count,
        default=None,
        help="parallel processes (default: one per CPU core, at most one per mu)",
    )
    parser.add_argument(
        "--vtk",
        default="0.2",
        help="ParaView series for this mu, 'all' or 'none' (default 0.2)",
    )
    parser.add_argument(
        "--joint3", choices=("revolute", "prismatic"), default=None, help="kind of joint 3"
    )
    parser.add_argument("--elements", type=count, default=None, help="beam elements (default 10)")
    parser.add_argument(
        "--drive-reversal",
        type=positive("s"),
        default=None,
        metavar="T",
        help="joint 2 reverses at T s (a smooth 20 ms turn): the end-effector stops, sticks or "
        "slips back",
    )
    parser.add_argument(
        "--lift-off",
        action="store_true",
        help="a unilateral contact (same mu) that lifts off and lands again, instead of the "
        "bilateral sliding contact of 002",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override any Manipulator field (e.g. contact_x=0.12, masses=1.7,0.45,0.365, "
        "beam.youngs_modulus=2e11); repeatable",
    )
    parser.add_argument("--no-animation", action="store_true", help="skip the GIF")
    return parser


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        data = apply_settings(Manipulator(), args.set)
        if args.joint3:
            data = replace(data, joint3=args.joint3)
        if args.elements is not None:
            data = replace(data, beam=replace(data.beam, n_elements=args.elements))
        if args.drive_reversal is not None:
            data = replace(data, drive_reversal=args.drive_reversal)
        if args.lift_off:
            data = replace(data, lift_off=True)
        if args.vtk == "all":
            vtk = "all"
        elif args.vtk == "none":
            vtk = ()
        else:
            try:
                vtk = (float(args.vtk),)
            except ValueError:
                raise ValueError(
                    f"--vtk: got {args.vtk!r}; allowed: one of the mu values, 'all' or 'none'"
                ) from None
        if args.jobs is not None and args.jobs < 1:
            raise ValueError(f"--jobs must be an integer >= 1, got {args.jobs!r}")
        if not args.t_end > 0 or not args.h > 0:
            raise ValueError(f"--t-end and --h must be > 0, got {args.t_end!r}, {args.h!r}")
        pose = manipulator_pose(data)
    except ValueError as err:
        return parser.refuse(str(err))
    out = Path(args.out)
    unit = "m" if data.joint3 == "prismatic" else "rad"
    print(
        f"initial pose: joint angles q = {np.round(pose.q[:3], 6).tolist()} (rad"
        f"{', joint 3 in m' if data.joint3 == 'prismatic' else ''}), contact at x = "
        f"{data.contact_x:g} m; spring rest positions: joint 1 {pose.rest[0]:.6f} rad, joint 3 "
        f"{pose.rest[1]:.6f} {unit} for a frictionless normal force of {data.normal_force:g} N "
        f"(driving torque {pose.torque:.5f} N m)"
    )
    print(f"running mu = {', '.join(f'{m:g}' for m in args.mu)} to t = {args.t_end:g} s ...")
    jobs = args.jobs if args.jobs is not None else min(os.cpu_count() or 1, len(args.mu))
    if vtk and not args.no_animation:  # the GIF's off-screen check runs beside the sweep
        from ..io.render import start_offscreen_check

        start_offscreen_check()
    cases = sweep(args.mu, data, args.t_end, args.h, out, vtk, jobs)
    print(format_summary(cases))
    written = [write_mu_summary(cases, out / "summary.csv")]
    show = shown_case(cases)
    if show is None:
        for c in cases:
            print(f"case mu = {c.mu:g} FAILED: {c.summary['message']}", file=sys.stderr)
        return 1
    written += plot_sweep(cases, data, out / "torque.png", out / "configuration.png")
    for case in cases:
        for name in ("history.csv", "frames.pvd"):
            if (case_dir(out, case.mu) / name).exists():
                written.append(case_dir(out, case.mu) / name)
    pvd = case_dir(out, show.mu) / "frames.pvd"
    if pvd.exists() and not args.no_animation:
        from ..io.render import render_animation

        written.append(render_animation(pvd, out / "manipulator.gif", title=f"mu = {show.mu:g}"))
    print("wrote:")
    for p in written:
        print(f"  {p}")
    failed = [c for c in cases if c.summary["status"] != "finished"]
    for c in failed:
        print(f"case mu = {c.mu:g} FAILED: {c.summary['message']}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
