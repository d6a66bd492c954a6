"""Peak memory (RSS) of ``fe-contact run MODEL --record-every 100`` against the run's length.

Run: python benchmarks/memory.py [--steps 10000 100000] [--models slider disk_on_beam]
[--frame-every 0]. Each run is a fresh process (``python -m fe_contact.cli -q run ...``) whose
peak resident set size is read from the kernel when it ends (``os.wait4``), so the numbers
include the interpreter, numpy, scipy, numba and the compiled kernels (about 200 MB before the
first step). The models are the example files with t_end set to the number of steps times h:

* slider: ``examples/slider.toml``, generalised-alpha, h = 1e-4 s (the compiled step);
* disk_on_beam: ``examples/disk_on_beam.toml``, Moreau-Jean, h = 1e-3 s.

``--frame-every`` sets ``output.frame_every`` (default 0: no ParaView frames, so that the
figures measure the history, the kept rows and the scalar results). Prints one line per run and
the ratio of the longest to the shortest run per model; memory is flat in the run's length when
the ratio stays near 1.

``--elements N [N ...]`` measures instead the peak RSS against the size of the model: the
slider example with its strip made N elements of 4 cm (2 N + 2 unknowns; the example's element
length, so that the iteration matrix's conditioning stays that of the example), 20 steps, for each N, and
prints the bytes per unknown between consecutive sizes (the slope that
``limits.BYTES_PER_UNKNOWN`` bounds; a quadratic term would make the slope grow with N).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = {
    "slider": ("examples/slider.toml", 1e-4),
    "disk_on_beam": ("examples/disk_on_beam.toml", 1e-3),
}


def peak_rss(argv: list[str]) -> tuple[float, float, int]:
    """(peak RSS in MB, wall time in s, exit code) of a fresh process running ``argv``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    err = process.stderr.read().decode()
    process.stderr.close()
    if process.returncode != 0:
        print(err, file=sys.stderr)
    return usage.ru_maxrss / 1024.0, time.perf_counter() - start, process.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--frame-every", type=float, default=0.0)
    parser.add_argument("--elements", type=int, nargs="+", default=None)
    args = parser.parse_args()
    if args.elements:
        return model_size(sorted(args.elements))
    print(f"{'model':<14} {'steps':>8} {'peak RSS [MB]':>14} {'wall [s]':>9}")
    for name in args.models:
        path, h = MODELS[name]
        peaks = []
        for steps in args.steps:
            with tempfile.TemporaryDirectory() as out:
                argv = [
                    sys.executable,
                    "-m",
                    "fe_contact.cli",
                    "-q",
                    "run",
                    str(ROOT / path),
                    "--set",
                    f"simulation.t_end={steps * h!r}",
                    "--set",
                    f"output.frame_every={args.frame_every!r}",
                    "--record-every",
                    "100",
                    "--out",
                    str(Path(out) / "run"),
                ]
                rss, wall, code = peak_rss(argv)
            peaks.append(rss)
            failed = "" if code == 0 else f"  (exit {code})"
            print(f"{name:<14} {steps:>8} {rss:14.1f} {wall:9.1f}{failed}", flush=True)
        print(f"{name:<14} longest / shortest run: {peaks[-1] / peaks[0]:.3f}", flush=True)


def model_size(sizes: list[int]) -> None:
    """Peak RSS of 20 steps of the slider example against its strip's number of elements."""
    path, h = MODELS["slider"]
    print(
        f"{'elements':>9} {'unknowns':>9} {'peak RSS [MB]':>14} {'wall [s]':>9} {'kB/unknown':>11}"
    )
    last = None
    for n in sizes:
        with tempfile.TemporaryDirectory() as out:
            argv = [sys.executable, "-m", "fe_contact.cli", "-q", "run", str(ROOT / path)]
            argv += [
                "--set",
                f"structures.strip.n_elements={n}",
                "--set",
                f"structures.strip.length={0.04 * n!r}",
                "--set",
                f"simulation.t_end={20 * h!r}",
            ]
            argv += ["--set", "output.frame_every=0.0", "--out", str(Path(out) / "run")]
            rss, wall, code = peak_rss(argv)
        unknowns = 2 * n + 2
        slope = "" if last is None else f"{(rss - last[1]) * 1024 / (unknowns - last[0]):11.2f}"
        failed = "" if code == 0 else f"  (exit {code})"
        print(f"{n:>9} {unknowns:>9} {rss:14.1f} {wall:9.1f} {slope}{failed}", flush=True)
        last = (unknowns, rss)


if __name__ == "__main__":
    main()
