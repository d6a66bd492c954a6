"""Speed of the disk on the string (Eugster-Glocker (004), sec. 5; ``demos.disk_on_string``)
with the Moreau-Jean stepper: wall time per simulated second, time per step, contact-solver
sweeps and sub-steps per step, the best of ``--repeat`` runs (and their best CPU time), after
one untimed run of 0.2 s that loads the compiled kernels and goes through the impact to the
first contact problem that needs De Saxce's fixed point (its one-off import of scipy.optimize
is not timed).

Run: python benchmarks/disk_on_string.py [--example 1] [--t-end 2] [--h 1e-3] [--elements 2]
[--repeat 3] [--profile]. ``--profile`` prints the 25 functions of largest cumulative time
of one more run under cProfile (its overhead roughly doubles the Python-heavy parts).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from fe_contact.demos import disk_on_string


def run(example: int, t_end: float, h: float, elements: int):
    """(result, CPU time of the run in s: on a shared machine less noisy than wall time)."""
    cpu = time.process_time()
    _, result = disk_on_string.run(
        example=example, n_elements=elements, t_end=t_end, h=h, out=None, plot=False
    )
    return result, time.process_time() - cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--example", type=int, choices=(1, 2), default=1)
    parser.add_argument("--t-end", type=float, default=2.0)
    parser.add_argument("--h", type=float, default=1e-3)
    parser.add_argument("--elements", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    run(args.example, min(args.t_end, 0.2), args.h, args.elements)
    print(f"warm-up run (kernels loaded or compiled): {time.perf_counter() - t0:.2f} s")
    best, best_cpu = None, None
    for _ in range(max(args.repeat, 1)):
        result, cpu = run(args.example, args.t_end, args.h, args.elements)
        if best is None or result.wall_time < best.wall_time:
            best = result
        best_cpu = cpu if best_cpu is None else min(cpu, best_cpu)
    steps = max(best.n_steps, 1)
    print(
        f"example {args.example}, {args.elements} elements, h = {args.h:g} s, "
        f"t_end = {args.t_end:g} s: {best.status}"
    )
    print(f"  wall time per simulated second: {best.wall_time / args.t_end:.3f} s/s")
    print(f"  time per step: {1e6 * best.wall_time / steps:.0f} us")
    print(
        f"  CPU time per simulated second (whole run, model set-up included): "
        f"{best_cpu / args.t_end:.3f} s/s"
    )
    print(f"  contact-solver sweeps per step: {best.n_newton / steps:.2f}")
    print(f"  sub-steps per step: {best.n_substeps / steps:.3f}")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(run, args.example, args.t_end, args.h, args.elements)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
