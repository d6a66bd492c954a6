"""Does the pin-on-wheel demo's coarse step reproduce 003's fine one?

003 integrates with steps of at most 1e-9 s; the demo uses 1e-7 s so that its default run (five
misalignments and five re-shapings of 1 ms each) finishes in minutes. This script runs one case
(default: the rough pin at s = +0.4 mm over 0.2 ms) with several largest steps and prints the
apparent coefficient mu_xy, the total loss W on both profiles, the drive's work, the counts of
steps and impacts, and the wall time, with the relative differences to the finest step.

    python benchmarks/pin_on_wheel_step.py [--s 4e-4] [--t-end 2e-4] [--steps 1e-7 1e-8 1e-9]

Results are written to benchmarks/results/pin_on_wheel_step.txt (appended, with the date).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from fe_contact.papers.slavic_boltezar import PinOnWheel, simulate_pin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--s", type=float, default=4e-4)
    parser.add_argument("--t-end", type=float, default=2e-4)
    parser.add_argument("--steps", type=float, nargs="+", default=[1e-7, 3e-8, 1e-8, 1e-9])
    args = parser.parse_args()
    data = replace(PinOnWheel(), s=args.s, t_end=args.t_end)
    rows = []
    for h in sorted(args.steps, reverse=True):
        start = time.perf_counter()
        run = simulate_pin(data, h)
        wall = time.perf_counter() - start
        w = run.loss_face.sum() + run.loss_rim.sum()
        rows.append((h, run.mu_xy, w, run.work["work_drives"], run.n_steps, run.n_impacts, wall))
    fine = rows[-1]
    lines = [
        f"# {time.strftime('%Y-%m-%d %H:%M')} s = {args.s:g} m, t_end = {args.t_end:g} s",
        f"{'h [s]':>8}{'mu_xy':>10}{'d mu_xy':>10}{'W [J]':>12}{'d W':>9}{'drive [J]':>12}"
        f"{'steps':>9}{'impacts':>9}{'wall [s]':>10}",
    ]
    for h, mu, w, work, steps, impacts, wall in rows:
        lines.append(
            f"{h:8.0e}{mu:10.5f}{mu / fine[1] - 1:10.2e}{w:12.4e}{w / fine[2] - 1:9.1e}"
            f"{work:12.4e}{steps:9d}{impacts:9d}{wall:10.1f}"
        )
    text = "\n".join(lines)
    print(text)
    out = Path(__file__).parent / "results" / "pin_on_wheel_step.txt"
    out.parent.mkdir(exist_ok=True)
    with open(out, "a") as fh:
        fh.write(text + "\n\n")


if __name__ == "__main__":
    main()
