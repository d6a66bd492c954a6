"""The pantograph on the EN 50318-sized line (``papers.pantograph``): 10 spans of 55 m with
elements of at most 0.25 m on both wires, the pantograph at 250 and 300 km/h for ``--t-end``
seconds of simulated time with the penalty contact (``--contact exact`` for the exact one),
generalised-alpha, h = 1 ms (``--h``), rho_inf = 1.

The head starts at the support ``--start-span`` spans from the line's first anchor (default 3,
so that a 3 s run at 300 km/h, 250 m, ends two spans before the last anchor): the line's ends
are two or more spans away through the whole run. The statistics (``contact_force_statistics`` of the force on
the pantograph, ``pantograph_force``, beside the recorded force's mean and spread: filtered at 20 Hz, mean, standard deviation, mean +- 3 std, extremes, loss of contact, uplift at
the steady arms) are taken from half a span after the start to the end of the run; they are
printed beside the EN 50318 acceptance ranges (``papers.pantograph.ACCEPTANCE``) with the cost:
CPU and wall time per simulated second, Newton iterations per step. One row per speed is
written to ``benchmarks/results/pantograph.csv``.

Run: python benchmarks/pantograph.py [--speed 250 300] [--t-end 3] [--spans 10]
[--element 0.25] [--contact penalty|exact] [--start-span 3] [--pantograph NAME]
[--wire-damping benchmark|none] [--h 1e-3] [--form consistent|plain] [--python]
[--out FILE] [--history PREFIX]. The 10-span line has 2 x 2200 elements and 8804
unknowns; its static start is a static solve of the whole model.

``--pantograph``: "en50318" (the two-mass reference pantograph, the default), "three-mass"
(the UI project's pantograph read bottom to top) or "three-mass-reversed" (the same numbers
read top to bottom: the 6 kg mass is the head on the 160 N/m spring, the 7.5 kg one the frame
on 7000 N/m) or "dsa380" (the three-mass DSA380 pantograph of two public sources,
``papers.pantograph.DSA380_PANTOGRAPH``). ``--wire-damping none`` drops the wires' Rayleigh
damping. ``--form plain``: the exact contact in the plain generalised-alpha form
(``energy_consistent=False``), which the compiled step takes (``steppers.compiled``; the
default "consistent" form has its own, ``steppers.compiled_consistent``), for its cost: at speed its head takes an
impulse the wire does not feel (``papers.pantograph.pantograph_on_catenary``). ``--python``:
every step on the Python step (``compiled=False``), for the compiled step's gain.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from rows_csv import write_rows

from fe_contact import assemble
from fe_contact.demos.pantograph import QUANTITIES, acceptance, table
from fe_contact.papers.catenary import EN50318, LINE_60M
from fe_contact.papers.pantograph import (
    DSA380_PANTOGRAPH,
    EN50318_PANTOGRAPH,
    HEAD,
    KMH,
    THREE_MASS_PANTOGRAPH,
    contact_force_statistics,
    pantograph_force,
    pantograph_on_catenary,
    steady_arm_uplift,
)

P = THREE_MASS_PANTOGRAPH
PANTOGRAPHS = {
    "en50318": EN50318_PANTOGRAPH,
    "three-mass": P,
    "three-mass-reversed": replace(
        P,
        frame_mass=P.head_mass,
        frame_stiffness=P.head_stiffness,
        frame_damping=P.head_damping,
        head_mass=P.frame_mass,
        head_stiffness=P.frame_stiffness,
        head_damping=P.frame_damping,
    ),
    "dsa380": DSA380_PANTOGRAPH,
}
WIRE_DAMPING = {
    "benchmark": EN50318,
    "none": replace(EN50318, rayleigh_alpha=0.0, rayleigh_beta=0.0),
}
LINES = {"55m": EN50318, "60m": LINE_60M}

RESULTS = Path(__file__).parent / "results" / "pantograph.csv"


def run_speed(
    speed_kmh,
    t_end,
    spans,
    element,
    contact,
    start_span,
    pantograph="en50318",
    wires="benchmark",
    h=1e-3,
    history=None,
    line="55m",
    form="consistent",
    python=False,
):
    """(statistics, cost dict) of one run; ``history``: None or an .npz path for the run's
    t (s), x (m, the head), force (N, raw), uplift (m, (n_t, n_arms)) and arms (m)."""
    v = speed_kmh * KMH
    data = LINES[line]
    if wires == "none":
        data = replace(data, rayleigh_alpha=0.0, rayleigh_beta=0.0)
    offsets = data.dropper_offsets()
    x_start = start_span * data.span
    x_end = min(x_start + v * t_end, spans * data.span - 0.5 * (offsets[1] - offsets[0]))
    t0, c0 = time.perf_counter(), time.process_time()
    run = pantograph_on_catenary(
        spans,
        speed=v,
        contact=contact,
        data=PANTOGRAPHS[pantograph],
        line_data=data,
        max_element_length=element,
        x_start=x_start,
        x_end=x_end,
        h=h,
        energy_consistent=False if form == "plain" else None,
    )
    system = assemble(run.model)
    setup_wall, setup_cpu = time.perf_counter() - t0, time.process_time() - c0
    section = (x_start + 0.5 * data.span, x_end)
    arms = run.details["steady_arms"]
    run = replace(run, details={**run.details, "section": section})
    t0, c0 = time.perf_counter(), time.process_time()
    result = run.run(system, compiled=False) if python else run.run(system)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    x = result.q[:, system.layout.tree.start]
    uplift = steady_arm_uplift(system, result.q, run.q0, arms, section)
    force = result[f"{HEAD}_normal_force"]
    impulse = result[f"{HEAD}_normal_impulse"]
    # the statistics of the force on the pantograph (its momentum balance over each step);
    # the recorded force's are kept beside them (they differ for the exact contact at speed)
    t_p, x_p, force_p = pantograph_force(run, system, result)
    stats = contact_force_statistics(
        t_p, x_p, force_p, section, uplift=uplift, contact=(result.t, x, force)
    )
    recorded = contact_force_statistics(result.t, x, force, section, uplift=uplift)
    # the exact contact's impacts: impulses over a step, not in the force history
    within = (x >= section[0]) & (x <= section[1])
    span_t = float(result.t[within][-1] - result.t[within][0])
    impulse_mean = float(np.sum(impulse[within])) / span_t
    if history is not None:
        inside = [a for a in arms if section[0] <= a <= section[1]]
        np.savez_compressed(
            history,
            t=result.t,
            x=x,
            force=force,
            impulse=impulse,
            pantograph_t=t_p,
            pantograph_x=x_p,
            pantograph_force=force_p,
            uplift=uplift,
            arms=inside,
            section=section,
        )
    simulated = float(result.t[-1] - result.t[0])
    steps = max(int(result.n_steps), 1)
    cost = {
        "status": result.status,
        "substeps_compiled": int(result.n_compiled),
        "substeps_python": int(result.n_substeps - result.n_compiled),
        "n": system.layout.n,
        "droppers": system.link_rows.size,
        "simulated_s": simulated,
        "steps": steps,
        "newton_per_step": result.n_newton / steps,
        "setup_cpu_s": setup_cpu,
        "setup_wall_s": setup_wall,
        "cpu_per_simulated_s": cpu / simulated,
        "wall_per_simulated_s": wall / simulated,
        "cpu_per_step_ms": 1e3 * cpu / steps,
        "impulse_mean_N": impulse_mean,
        "recorded_mean_N": recorded.mean,
        "recorded_std_N": recorded.std,
        "section_start_m": section[0],
        "section_end_m": section[1],
    }
    return stats, cost


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed", type=float, nargs="+", default=[250.0, 300.0])
    parser.add_argument("--t-end", type=float, default=3.0)
    parser.add_argument("--spans", type=int, default=10)
    parser.add_argument("--element", type=float, default=0.25)
    parser.add_argument("--contact", choices=("penalty", "exact"), default="penalty")
    parser.add_argument("--start-span", type=int, default=3)
    parser.add_argument("--pantograph", choices=tuple(PANTOGRAPHS), default="en50318")
    parser.add_argument("--wire-damping", choices=tuple(WIRE_DAMPING), default="benchmark")
    parser.add_argument("--line", choices=tuple(LINES), default="55m")
    parser.add_argument("--h", type=float, default=1e-3, help="the step, s")
    parser.add_argument("--form", choices=("consistent", "plain"), default="consistent")
    parser.add_argument("--python", action="store_true", help="compiled=False")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--history", help="save each run's history to HISTORY_<speed>.npz")
    args = parser.parse_args(argv)
    span = LINES[args.line].span
    if not 0 <= args.start_span < args.spans:
        parser.error(f"--start-span {args.start_span}: allowed 0 .. --spans - 1 = {args.spans - 1}")
    for speed in args.speed:  # the analysis section starts half a span after the start
        need = 0.5 * span / (speed * KMH)
        if not args.t_end > need:
            parser.error(
                f"--t-end {args.t_end:g}: at {speed:g} km/h the pantograph covers "
                f"{speed * KMH * args.t_end:.1f} m, not the half span ({0.5 * span:g} m) after "
                f"its start before the analysis section begins; allowed: --t-end > {need:.3g} s"
            )
    rows = []
    for speed in args.speed:
        stats, cost = run_speed(
            speed,
            args.t_end,
            args.spans,
            args.element,
            args.contact,
            args.start_span,
            args.pantograph,
            args.wire_damping,
            args.h,
            None if args.history is None else f"{args.history}_{speed:g}.npz",
            args.line,
            args.form,
            args.python,
        )
        print(table({speed: stats}))
        print(
            f"  {args.spans} spans, {cost['n']} unknowns, {cost['droppers']} droppers, "
            f"{args.contact} ({args.form}): {cost['status']}, {cost['simulated_s']:.3f} s simulated in "
            f"{cost['steps']} steps ({cost['substeps_compiled']} sub-steps compiled, "
            f"{cost['substeps_python']} in Python), {cost['newton_per_step']:.2f} Newton "
            "iterations per step; "
            f"{cost['cpu_per_simulated_s']:.1f} s of CPU ({cost['wall_per_simulated_s']:.1f} s "
            f"wall) per simulated s, {cost['cpu_per_step_ms']:.1f} ms of CPU per step; set-up "
            f"{cost['setup_cpu_s']:.1f} s of CPU; the impacts' impulses over the section "
            f"divided by its duration: {cost['impulse_mean_N']:.2f} N",
            flush=True,
        )
        ranges = acceptance(speed) or {}
        row = {"speed_kmh": speed, "spans": args.spans, "element_m": args.element}
        row["contact"] = args.contact
        row["form"] = args.form
        row["python"] = args.python
        row["h_s"] = args.h
        row["pantograph"] = args.pantograph
        row["wire_damping"] = args.wire_damping
        row["line"] = args.line
        for name, _, _ in QUANTITIES:
            low, high = ranges.get(name, (np.nan, np.nan))
            row.update({name: getattr(stats, name), f"{name}_low": low, f"{name}_high": high})
        rows.append({**row, **cost})
    write_rows(args.out, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
