"""Where the time goes in the speed issue's rows that miss their target: cProfile's top entries
(own time, ``tottime``) of a short run of each, as shares of the profiled run's total.

Run: python benchmarks/speed_profile.py [--cases WORD ...] [--top N]. The profiler slows the
Python step by about a third and sees a compiled (numba) call as one entry: for the compiled
rows the split is between the compiled kernels and the Python around them.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cases():
    sys.path.insert(0, str(HERE))
    import speed
    import speed_rows

    from fe_contact.demos.cam_lock import SENSORS
    from fe_contact.papers.bauchau import Geometry, cam_lock

    cam = cam_lock(1, Geometry())  # built here: its set-up is not profiled
    cam = replace(cam, model=replace(cam.model, sensors=SENSORS))
    cam_system = cam.assemble()
    return {
        "slider on string (0.2 s)": lambda: speed.slider_on_string(1e-3, 0.2),
        "disk on string (0.3 s)": lambda: speed.disk(1e-3, 0.3),
        "cam-lock case 1 (0.005 s)": lambda: cam.run(cam_system, t_span=(0.0, 0.005), h=1e-4),
        "sliding point, 1000 elements (0.1 s)": lambda: speed.sliding_mass(1000, 1e-3, 0.1),
        "scale, 5000 elements (0.01 s)": lambda: speed_rows.scale_case(0.01, repeats=1),
    }


def profile(run, top: int) -> None:
    run()  # once before: caches, numba's loading
    prof = cProfile.Profile()
    prof.enable()
    run()
    prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt
    entries = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    print(f"   profiled total {total:.2f} s")
    for (file, line, name), (_, calls, tottime, _, _) in entries:
        where = f"{Path(file).parent.name}/{Path(file).name}:{line}" if line else file
        print(
            f"   {100 * tottime / total:5.1f} %  {tottime:7.3f} s  {calls:8d} calls  {name} "
            f"({where})"
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", metavar="WORD", help="only cases naming a WORD")
    parser.add_argument("--top", type=int, default=8, help="entries per case (default 8)")
    args = parser.parse_args(argv)
    for name, run in cases().items():
        if args.cases and not any(word in name for word in args.cases):
            continue
        print(name, flush=True)
        profile(run, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
