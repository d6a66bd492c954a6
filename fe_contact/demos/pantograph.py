"""``fe-contact demo pantograph``: the lumped-mass pantograph on the simple catenary at speed.

The model is ``fe_contact.papers.pantograph`` (the catenary of ``papers.catenary``, the
pantograph's data and sources, the statistics). For each ``--speed`` (km/h) it writes to
``OUT/<speed>kmh/``: ``model.toml`` (the run as a model file: ``fe-contact run`` of it gives
the same history), ``history.csv`` (the standard columns), ``frames.pvd`` + ``.vtm`` (ParaView), ``summary.csv`` (the contact-force statistics over the analysis section beside the
EN 50318 acceptance ranges, as published in the literature), ``contact_force.png/.svg`` (the
contact force against the position, raw and filtered at 20 Hz) and ``uplift.png/.svg`` (the
contact wire's rise at the steady arms); ``OUT/summary.csv`` has one row per speed; the table
is printed.

The full EN 50318 case (10 spans, 0.25 m elements) runs the Python step (unilateral and
compliant contacts are not compiled): see docs/details/pantograph.md for its cost; the defaults
here (3 spans, 0.5 m elements) take minutes.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ..io.model_sections import InitialState, ModelFile, Output, Simulation
from ..io.model_writer import save_model
from ..papers.pantograph import (
    ACCEPTANCE,
    CONTACTS,
    HEAD,
    KMH,
    ContactForceStatistics,
    low_pass,
    pantograph_force,
    pantograph_on_catenary,
    run_statistics,
    steady_arm_uplift,
)
from ..steppers.observers import standard_observers
from ..system import assemble
from . import DemoParser, count, folder, positive

QUANTITIES = (
    ("mean", "mean", "N"),
    ("std", "standard deviation", "N"),
    ("stat_max", "statistical maximum", "N"),
    ("stat_min", "statistical minimum", "N"),
    ("max", "actual maximum", "N"),
    ("min", "actual minimum", "N"),
    ("uplift", "maximum uplift at the steady arms", "m"),
    ("loss_of_contact", "loss of contact", "%"),
)


def run_speed(
    out,
    speed_kmh: float,
    n_spans: int = 3,
    contact: str = "exact",
    max_element_length: float = 0.5,
    h: float = 1e-3,
    vtk_every: float | None = 0.01,
    progress: bool = True,
    plot: bool = True,
):
    """One speed (km/h): simulate, write the files in ``out``; returns (run, system, result,
    statistics)."""
    run = pantograph_on_catenary(
        n_spans,
        speed=speed_kmh * KMH,
        contact=contact,
        max_element_length=max_element_length,
        h=h,
    )
    system = assemble(run.model)
    out = Path(out)
    model_file = ModelFile(
        run.model,
        Simulation(run.t_span[1], run.method, t_start=run.t_span[0], h=run.settings["h"],
                   settings={"rho_inf": run.settings["rho_inf"]}),
        InitialState.from_state(system, run.q0, run.u0),
        Output(frame_every=vtk_every or 0.0, results=(f"max:{HEAD}_normal_force",)),
    )  # fmt: skip
    save_model(model_file, out / "model.toml")
    desc = f"pantograph {speed_kmh:g} km/h" if progress else None
    observers = standard_observers(out, h, vtk_every, desc)
    result = run.run(system, observers=observers)
    stats = run_statistics(run, system, result)
    write_statistics(out / "summary.csv", {speed_kmh: stats})
    if plot:
        plot_run(run, system, result, out)
    return run, system, result, stats


def acceptance(speed_kmh: float) -> dict | None:
    """The acceptance ranges of ``papers.pantograph.ACCEPTANCE`` at this speed, else None."""
    return ACCEPTANCE.get(int(round(speed_kmh))) if float(speed_kmh).is_integer() else None


def write_statistics(path, stats: dict[float, ContactForceStatistics]) -> None:
    """One row per speed (km/h): the statistics and, where the standard has them, the
    acceptance ranges (low, high)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    names = [q for q, _, _ in QUANTITIES]
    header = ["speed_kmh"]
    for name in names:
        header += [name, f"{name}_low", f"{name}_high"]
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for speed, s in stats.items():
            ranges = acceptance(speed) or {}
            row = [f"{speed:g}"]
            for name in names:
                low, high = ranges.get(name, ("", ""))
                row += [f"{getattr(s, name):.6g}", low, high]
            writer.writerow(row)


def table(stats: dict[float, ContactForceStatistics]) -> str:
    """The statistics beside the acceptance ranges, one column per speed."""
    lines = []
    for speed, s in stats.items():
        ranges = acceptance(speed) or {}
        lines.append(f"{speed:g} km/h (filtered at {s.cutoff:g} Hz, order {s.order}, twice)")
        for name, label, unit in QUANTITIES:
            value = getattr(s, name)
            scale = 1e3 if unit == "m" else 1.0
            shown = "mm" if unit == "m" else unit
            low, high = ranges.get(name, (np.nan, np.nan))
            inside = "" if name not in ranges else (" ok" if low <= value <= high else " OUT")
            lines.append(
                f"  {label:<36s} {value * scale:9.2f} {shown:<2s}   EN 50318: "
                f"[{low * scale:g}, {high * scale:g}]{inside}"
            )
    return "\n".join(lines)


def plot_run(run, system, result, out) -> None:
    """contact_force: raw and filtered force on the pantograph (``pantograph_force``, the
    statistics' force) against the head's position, the section marked;
    uplift: the contact wire's rise at the steady arms in the section against time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io.plots import save_figure

    t, x, force = pantograph_force(run, system, result)  # the statistics' force
    t_u, raw, filtered = low_pass(t, force)
    x_u = np.interp(t_u, t, x)
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(x_u, raw, lw=0.5, color="0.6", label="raw")
    ax.plot(x_u, filtered, lw=1.2, label="low-pass 20 Hz")
    ax.axvspan(*run.details["section"], color="C2", alpha=0.08, label="analysis section")
    ax.set_xlabel("head position x [m]")
    ax.set_ylabel("contact force [N]")
    ax.set_title(f"{run.details['speed'] / KMH:.0f} km/h, {run.details['contact']} contact")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, Path(out) / "contact_force")
    plt.close(fig)
    uplift = steady_arm_uplift(
        system, result.q, run.q0, run.details["steady_arms"], run.details["section"]
    )
    fig, ax = plt.subplots(figsize=(8, 3.5))
    inside = [
        a
        for a in run.details["steady_arms"]
        if run.details["section"][0] <= a <= run.details["section"][1]
    ]
    for k, arm in enumerate(inside):
        ax.plot(result.t, 1e3 * uplift[:, k], label=f"steady arm at {arm:g} m")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("contact wire rise [mm]")
    if inside:
        ax.legend()
    fig.tight_layout()
    save_figure(fig, Path(out) / "uplift")
    plt.close(fig)


def run(
    out="out/pantograph",
    speeds=(250.0, 300.0),
    n_spans: int = 3,
    contact: str = "exact",
    max_element_length: float = 0.5,
    h: float = 1e-3,
    vtk_every: float | None = 0.01,
    progress: bool = True,
    plot: bool = True,
) -> dict[float, ContactForceStatistics]:
    """Every speed (km/h) in ``OUT/<speed>kmh/``, ``OUT/summary.csv``; returns the statistics
    per speed."""
    out = Path(out)
    stats = {}
    for speed in speeds:
        where = out / f"{speed:g}kmh"
        *_, stats[speed] = run_speed(
            where, speed, n_spans, contact, max_element_length, h, vtk_every, progress, plot
        )
    write_statistics(out / "summary.csv", stats)
    return stats


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo pantograph", description=__doc__, module=__name__)
    parser.add_argument(
        "--speed", type=positive("km/h"), nargs="+", default=[250.0, 300.0], help="km/h"
    )
    parser.add_argument("--spans", type=count, default=3, help="number of spans")
    parser.add_argument(
        "--contact",
        choices=CONTACTS,
        default="exact",
        help="the head on the wire: exact (unilateral, a multiplier) or penalty (50 kN/m spring)",
    )
    parser.add_argument(
        "--element", type=positive("m"), default=0.5, help="longest element on the wires, m"
    )
    parser.add_argument("--h", type=positive("s"), default=1e-3, help="step, s")
    parser.add_argument("--out", type=folder, default="out/pantograph", help="output folder")
    args = parser.parse_args(argv)
    stats = run(args.out, args.speed, args.spans, args.contact, args.element, args.h)
    print(table(stats))
    print(f"files in {args.out}")
    return 0


__all__ = ["main", "run", "run_speed", "table", "write_statistics"]
