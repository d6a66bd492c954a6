"""CPU time of the Moreau-Jean step on strings: the disk on the string (Eugster-Glocker (004),
example 1, h = 1 ms, 2 s) and the open belt drive (``papers.belt``, its first 0.1 s by default).

``python benchmarks/moreau_strings.py [--t-belt 0.1] [--repeat 3] [--profile]`` prints, per
case, the CPU time per simulated second (process time, since the machine is shared: wall time
follows the load), the steps, sub-steps and contact-solver sweeps per step. The numba kernels
are loaded (or compiled) by a short warm-up run first. ``--profile`` adds cProfile's 25 most
expensive functions by cumulative CPU time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from fe_contact.demos import disk_on_string
from fe_contact.papers import belt


def disk(t_end: float = 2.0):
    return disk_on_string.run(example=1, t_end=t_end, h=1e-3, out=None, plot=False)[1]


def belt_drive(t_end: float):
    scenario = belt.belt_drive()
    return scenario.run(t_span=(0.0, t_end))


def measure(name: str, run, t_end: float, repeat: int, profile: bool) -> None:
    run(min(t_end, 0.005))  # warm-up: the kernels loaded or compiled
    for _ in range(repeat):
        start = time.process_time()
        result = run(t_end)
        cpu = time.process_time() - start
        print(
            f"{name}: {cpu / t_end:.3f} s of CPU per simulated s ({t_end:g} s), "
            f"{result.n_steps} steps, {result.n_substeps} sub-steps, "
            f"{result.n_newton / result.n_steps:.2f} sweeps per step"
        )
    if profile:
        profiler = cProfile.Profile(time.process_time)
        profiler.runcall(run, t_end)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-disk", type=float, default=2.0, help="s simulated of example 1")
    parser.add_argument("--t-belt", type=float, default=0.1, help="s simulated of the belt")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per case")
    parser.add_argument("--profile", action="store_true", help="also profile one run per case")
    args = parser.parse_args(argv)
    measure("disk on string, example 1", disk, args.t_disk, args.repeat, args.profile)
    measure("open belt drive", belt_drive, args.t_belt, args.repeat, args.profile)


if __name__ == "__main__":
    main()
