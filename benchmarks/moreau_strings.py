"""CPU time of the Moreau-Jean step on strings: the disk on the string (Eugster-Glocker (004),
example 1, h = 1 ms, 2 s) and the open belt drive (``papers.belt``, its first 0.1 s by default).

``python benchmarks/moreau_strings.py [--t-belt 0.1] [--repeat 3] [--profile] [--csv PATH
--label NAME]`` prints, per case, the CPU time per simulated second (process time, since the
machine is shared: wall time follows the load), the steps, sub-steps and contact-solver sweeps
per step. The numba kernels are loaded (or compiled) by a warm-up run first: for the disk 0.2 s,
through the impact to the first contact problem that needs De Saxce's fixed point, so that its
one-off import of scipy.optimize (0.26 s of CPU under load, 0.13 s per simulated s of the 2 s
run) is not timed; for the belt 0.005 s (in contact from the start).
``--profile`` adds cProfile's 25 most expensive functions by cumulative CPU time. ``--csv``
appends one row per timed run to PATH (``benchmarks/results/moreau_strings.csv``), labelled
``--label`` (e.g. the commit), with the machine's load average at its start.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import os
import pstats
import time
from pathlib import Path

from fe_contact.demos import disk_on_string
from fe_contact.papers import belt


def disk(t_end: float = 2.0):
    return disk_on_string.run(example=1, t_end=t_end, h=1e-3, out=None, plot=False)[1]


def belt_drive(t_end: float):
    scenario = belt.belt_drive()
    return scenario.run(t_span=(0.0, t_end))


def measure(name: str, run, t_end: float, repeat: int, profile: bool, warm_up: float) -> list[dict]:
    """The timed runs of one case as rows (``--csv``), printed as they finish, after a warm-up
    run of ``warm_up`` s (the kernels loaded or compiled, the contact solver's imports made)."""
    run(min(t_end, warm_up))
    rows = []
    for _ in range(repeat):
        load = os.getloadavg()[0]
        start = time.process_time()
        result = run(t_end)
        cpu = time.process_time() - start
        print(
            f"{name}: {cpu / t_end:.3f} s of CPU per simulated s ({t_end:g} s), "
            f"{result.n_steps} steps, {result.n_substeps} sub-steps, "
            f"{result.n_newton / result.n_steps:.2f} sweeps per step"
        )
        rows.append(
            {
                "case": name,
                "t_end [s]": t_end,
                "CPU per simulated s [s/s]": cpu / t_end,
                "n_steps": result.n_steps,
                "n_substeps": result.n_substeps,
                "sweeps per step": result.n_newton / result.n_steps,
                "load average": load,
            }
        )
    if profile:
        profiler = cProfile.Profile(time.process_time)
        profiler.runcall(run, t_end)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-disk", type=float, default=2.0, help="s simulated of example 1")
    parser.add_argument("--t-belt", type=float, default=0.1, help="s simulated of the belt")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per case")
    parser.add_argument("--profile", action="store_true", help="also profile one run per case")
    parser.add_argument("--csv", type=Path, help="append the timed runs to this CSV file")
    parser.add_argument("--label", default="", help="the runs' label in the CSV (the code)")
    args = parser.parse_args(argv)
    rows = measure("disk on string, example 1", disk, args.t_disk, args.repeat, args.profile, 0.2)
    rows += measure("open belt drive", belt_drive, args.t_belt, args.repeat, args.profile, 0.005)
    if args.csv is not None:
        new = not args.csv.exists()
        with open(args.csv, "a", newline="") as fh:
            writer = csv.DictWriter(fh, ["code", *rows[0]])
            if new:
                writer.writeheader()
            writer.writerows({"code": args.label, **row} for row in rows)


if __name__ == "__main__":
    main()
