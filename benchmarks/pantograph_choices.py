"""How the analysis choices move the EN 50318 statistics of a finished pantograph run: the
histories saved by ``benchmarks/pantograph.py --history PREFIX`` (t, the head's x, the raw
contact force, the uplift at the steady arms, the section) analysed again, without a new run,
with

- the filter: the default (Butterworth of order 4 at 20 Hz run forwards and backwards,
  ``low_pass``), order 2 forwards and backwards, order 4 forwards only (a causal filter, with
  its phase lag), 15 Hz and 25 Hz cut-offs, and no filter (the raw force on the uniform grid);
- the section: the run's (half a span after the start to the end), the whole spans inside it
  (support to support), and each whole span alone.

Run: python benchmarks/pantograph_choices.py FILE.npz [FILE.npz ...] [--span 55]
[--section X_A X_B] [--out FILE] (``--section``: one section for all files, e.g. to compare
runs of two steps over the same stretch);
one row per file and choice in ``benchmarks/results/pantograph_choices.csv``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from rows_csv import write_rows
from scipy.signal import butter, sosfilt, sosfiltfilt

RESULTS = Path(__file__).parent / "results" / "pantograph_choices.csv"
FILTERS = {
    "20 Hz, order 4, zero phase (default)": (20.0, 4, True),
    "20 Hz, order 2, zero phase": (20.0, 2, True),
    "20 Hz, order 4, causal": (20.0, 4, False),
    "15 Hz, order 4, zero phase": (15.0, 4, True),
    "25 Hz, order 4, zero phase": (25.0, 4, True),
    "none (raw)": (None, 0, True),
}


def uniform(t, y):
    """(t_u, y_u): ``y`` on the uniform grid of the median step of ``t`` (as ``low_pass``)."""
    dt = float(np.median(np.diff(t)))
    n = int(math.floor((t[-1] - t[0]) / dt + 1e-9)) + 1
    t_u = t[0] + dt * np.arange(n)
    return t_u, np.interp(t_u, t, y)


def filtered(t_u, raw, cutoff, order, zero_phase):
    """The force through one filter of ``FILTERS`` (the whole history, then cut to a section)."""
    if cutoff is None:
        return raw
    sos = butter(order, cutoff, btype="low", fs=1.0 / (t_u[1] - t_u[0]), output="sos")
    return sosfiltfilt(sos, raw) if zero_phase else sosfilt(sos, raw, zi=None)


def statistics(f):
    mean, std = float(np.mean(f)), float(np.std(f))
    return {
        "mean": mean,
        "std": std,
        "stat_max": mean + 3 * std,
        "stat_min": mean - 3 * std,
        "max": float(np.max(f)),
        "min": float(np.min(f)),
    }


def sections(section, span):
    """(name, (x_a, x_b)) of the run's section, its whole spans, and each whole span."""
    x_a, x_b = section
    first, last = math.ceil(x_a / span - 1e-9), math.floor(x_b / span + 1e-9)
    out = [("run's section", (x_a, x_b))]
    if last - first >= 1:
        out.append((f"whole spans {first}-{last}", (first * span, last * span)))
        out += [(f"span {k}-{k + 1}", (k * span, (k + 1) * span)) for k in range(first, last)]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--span", type=float, default=55.0, help="span length, m")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--section", type=float, nargs=2, help="X_A X_B in m, in place of each run's section"
    )
    args = parser.parse_args(argv)
    rows = []
    for path in args.files:
        run = np.load(path)
        t, x, force = run["t"], run["x"], run["force"]
        t_u, raw = uniform(t, force)
        x_u = np.interp(t_u, t, x)
        start = x_u[0]
        for label, (cutoff, order, zero_phase) in FILTERS.items():
            f = filtered(t_u, raw, cutoff, order, zero_phase)
            section = tuple(args.section or run["section"])
            for name, (x_a, x_b) in sections(section, args.span):
                inside = (x_u >= x_a) & (x_u <= x_b)
                row = {"file": path.name, "filter": label, "section": name}
                row.update(x_a=x_a, x_b=x_b, start=start)
                row.update(statistics(f[inside]))
                rows.append(row)
                if label.endswith("(default)") or name == "run's section":
                    print(
                        f"{path.name:24s} {label:38s} {name:18s} mean {row['mean']:6.1f} "
                        f"std {row['std']:5.1f} max {row['max']:6.1f} min {row['min']:6.1f}"
                    )
    write_rows(args.out, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
