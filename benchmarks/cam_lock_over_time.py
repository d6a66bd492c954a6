"""CPU time per step of one cam-lock case along its run, in bins of 0.1 s: how the cost of the
contact phase compares with the approach that ``speed.py`` measures (``speed_rows.cam_lock``).

Run: python benchmarks/cam_lock_over_time.py [--case N] [--t-end T]. Prints the CPU time per
step in each 0.1 s bin (an observer stamps ``time.process_time`` at every step; the model's
build is not timed), the whole run's, and the time of the first closed contact.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

from fe_contact.demos.cam_lock import SENSORS
from fe_contact.papers.bauchau import Geometry, H, cam_lock


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", type=int, default=1, help="0-3 (default 1)")
    parser.add_argument("--t-end", type=float, default=1.2, help="s (default 1.2)")
    args = parser.parse_args(argv)
    scenario = cam_lock(args.case, Geometry())
    scenario = replace(scenario, model=replace(scenario.model, sensors=SENSORS))
    system = scenario.assemble()
    stamps = []

    def stamp(system, report, row):
        stamps.append((report.t, time.process_time()))

    cpu0 = time.process_time()
    result = scenario.run(system, t_span=(0.0, args.t_end), h=H, observers=[stamp])
    cpu = time.process_time() - cpu0
    print(
        f"case {args.case}, 0-{args.t_end:g} s, h = {H:g} s: {result.status}, {result.n_steps} "
        f"steps ({result.n_substeps} sub-steps), {cpu:.1f} s CPU, "
        f"{1e3 * cpu / max(result.n_steps, 1):.2f} ms per step"
    )
    t = np.array([s[0] for s in stamps])
    c = np.array([s[1] for s in stamps])
    for k in range(int(np.ceil(args.t_end / 0.1 - 1e-9))):
        idx = np.flatnonzero((t >= 0.1 * k) & (t < 0.1 * (k + 1)))
        if idx.size > 1:
            per = (c[idx[-1]] - c[idx[0]]) / (idx.size - 1)
            print(f"   t {0.1 * k:.1f}-{0.1 * (k + 1):.1f} s: {1e3 * per:.2f} ms of CPU per step")
    force = result["cam_normal_force"]
    first = result.t[np.argmax(force > 0)] if np.any(force > 0) else None
    print(f"first closed contact at t = {first} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
