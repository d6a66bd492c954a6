"""A benchmark's rows (dicts with the same keys, in order) written as one CSV file with a
header, its folder made; the path printed. Shared by the scripts of ``benchmarks/``."""

from __future__ import annotations

import csv
from pathlib import Path


def write_rows(path, rows: list[dict]) -> Path:
    """Write ``rows`` to ``path`` (columns: the first row's keys) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"written: {path}")
    return path
