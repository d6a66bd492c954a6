"""Cost of keeping a ParaView ``.pvd`` index valid after every frame, against the frame count.

Run: python benchmarks/pvd_index.py [--frames 5000] [--repeat 3] [--with-frames 0]

Two ways of listing n frames, each valid after every frame (a run killed at any moment leaves
an index ParaView opens):

* rewrite: the whole index written to a temporary file that atomically replaces it after each
  frame (what ``io.vtk.PvdWriter`` did up to November 2026, reproduced here): O(n^2) bytes;
* append: ``io.pvd.PvdIndex``, each line written into blank room before the closing tags,
  the file rewritten with twice the room when it runs out: O(n) bytes.

Prints the bytes written to the index and the wall time (best of ``--repeat``) of each, and the
final index parsed back (both list the n times). ``--with-frames N`` also
times ``PvdWriter`` writing N small frames (one beam of 10 elements: the .vtm with its part),
for the share of the index in a frame's cost.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from fe_contact.io.pvd import PvdIndex


def rewrite_every_frame(path: Path, n: int) -> int:
    """The old index: all lines rewritten and atomically replaced after each frame; bytes."""
    lines, written = [], 0
    for k in range(n):
        lines.append(
            f'    <DataSet timestep="{1e-3 * k!r}" group="" part="0" '
            f"file={quoteattr(f'frames_{k:05d}.vtm')}/>"
        )
        text = (
            '<?xml version="1.0"?>\n'
            '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
            "  <Collection>\n" + "\n".join(lines) + "\n  </Collection>\n</VTKFile>\n"
        )
        tmp = path.with_suffix(".pvd.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
        written += len(text)
    return written


def append_every_frame(path: Path, n: int) -> int:
    index = PvdIndex(path)
    for k in range(n):
        index.append(1e-3 * k, f"frames_{k:05d}.vtm")
    index.compact()
    return index.bytes_written


def timed(fn, path: Path, n: int, repeat: int):
    best, written = np.inf, 0
    for _ in range(repeat):
        path.unlink(missing_ok=True)
        t0 = time.perf_counter()
        written = fn(path, n)
        best = min(best, time.perf_counter() - t0)
    return best, written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--with-frames", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{args.frames} frames, index valid after each (best of {args.repeat}):")
        for label, fn in (("rewrite", rewrite_every_frame), ("append", append_every_frame)):
            path = folder / f"{label}.pvd"
            seconds, written = timed(fn, path, args.frames, args.repeat)
            times = [float(d.get("timestep")) for d in ET.parse(path).iter("DataSet")]
            assert len(times) == args.frames, (label, len(times))
            print(
                f"  {label:8s} {written / 1e6:10.2f} MB written  {seconds:8.3f} s  "
                f"final index {path.stat().st_size / 1e3:.0f} kB, {len(times)} times read back"
            )
        if args.with_frames:
            from fe_contact.elements.beam import BeamSpec, assemble_beam
            from fe_contact.io.vtk import PvdWriter, beam_block

            beam = assemble_beam(
                BeamSpec(
                    length=0.4,
                    n_elements=10,
                    youngs_modulus=2.1e11,
                    density=4.7e3,
                    width=0.01,
                    height=0.0015,
                )
            )
            block = [beam_block(beam, np.zeros(beam.n_dofs))]
            t0 = time.perf_counter()
            with PvdWriter(folder / "series", "frames") as writer:
                for k in range(args.with_frames):
                    writer.write(1e-3 * k, block)
            seconds = time.perf_counter() - t0
            print(
                f"  PvdWriter, {args.with_frames} beam frames: {seconds:.2f} s "
                f"({1e3 * seconds / args.with_frames:.2f} ms a frame, index "
                f"{writer.index.bytes_written / 1e6:.2f} MB written)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
