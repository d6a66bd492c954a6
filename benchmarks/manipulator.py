"""Wall time of one manipulator case (issue 7 target: < 10 s for 0.6 s simulated at mu = 0.2).

Run: python benchmarks/manipulator.py [--mu 0.2] [--t-end 0.6] [--h 5e-4] [--elements 10 20 40]
[--profile]. Prints, per beam element count: wall time of the whole case (initial statics + run),
the ratio wall time / simulated time, steps, Newton iterations per step and the cost per step;
``--profile`` adds the ten most expensive functions (cProfile, cumulative) of the first case.
"""

import argparse
import cProfile
import pstats
import time
from dataclasses import replace

from fe_contact.demos.manipulator_on_beam import run_case
from fe_contact.papers.lipinski import Manipulator


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mu", type=float, default=0.2)
    parser.add_argument("--t-end", type=float, default=0.6)
    parser.add_argument("--h", type=float, default=5e-4)
    parser.add_argument("--elements", type=int, nargs="*", default=[10, 20, 40, 80])
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    print(
        f"manipulator on the cantilever, mu = {args.mu:g}, t_end = {args.t_end:g} s, "
        f"h = {args.h:g} s"
    )
    print(
        f"{'elements':>8} {'wall [s]':>9} {'wall/sim':>9} {'steps':>6} {'newton/step':>12} "
        f"{'ms/step':>8} {'ratio':>6}"
    )
    base = None
    for k, n in enumerate(args.elements):
        data = Manipulator()
        data = replace(data, beam=replace(data.beam, n_elements=n))
        profiler = cProfile.Profile() if args.profile and k == 0 else None
        wall0 = time.perf_counter()
        if profiler:
            profiler.enable()
        case = run_case(args.mu, data, t_end=args.t_end, h=args.h)
        if profiler:
            profiler.disable()
        wall = time.perf_counter() - wall0
        r = case.result
        base = base or wall
        print(
            f"{n:>8} {wall:9.2f} {wall / r.t[-1]:9.2f} {r.n_steps:>6} "
            f"{r.n_newton / r.n_steps:12.2f} {1e3 * r.wall_time / r.n_steps:8.2f} "
            f"{wall / base:6.2f}"
        )
        if profiler:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(12)


if __name__ == "__main__":
    main()
