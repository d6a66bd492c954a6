"""Time histories of a run, written incrementally to CSV as the run goes.

Every step appends one row of named scalar columns (SI units in the header) to ``history.csv``;
``SimulationResult`` holds the same columns as arrays plus the coordinate and multiplier
histories, and ``save_npz`` stores everything. A run that stops on an error keeps all rows written.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


class HistoryWriter:
    """Appends rows of a fixed set of columns to a CSV file, flushing each row."""

    def __init__(self, path, columns: list[tuple[str, str]]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.names = [name for name, _ in columns]
        self._fh = open(self.path, "w", newline="")  # noqa: SIM115 - closed in close()
        self._csv = csv.writer(self._fh)
        self._csv.writerow([f"{n} [{unit}]" if unit else n for n, unit in columns])
        self._fh.flush()

    def write(self, row: dict) -> None:
        self._csv.writerow([repr(float(row[n])) for n in self.names])
        self._fh.flush()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


@dataclass(frozen=True)
class SimulationResult:
    """Histories of a run (k = number of stored steps).

    t : (k,) s. q, u : (k, n) coordinates and velocities (tree joints, then beam free DOFs).
    multipliers : (k, m), by ``constraint_names`` (contacts: normal force N; drives: torque N m or
    force N; loops: N). columns : dict name -> (k,) of every named scalar history (same as the CSV):
    normal force, friction force, slip velocity, contact position and element per contact,
    residuals, energies, work and dissipation, ``energy_error``. status : "finished", "event" or
    "failed"; message : why it stopped; n_steps, n_newton, n_factorizations, n_halved : counters
    (steps taken, Newton iterations, factorisations of G, steps retried as two halves); success : finished or stopped by a terminal event cleanly.
    """

    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    multipliers: np.ndarray
    constraint_names: tuple[str, ...]
    columns: dict = field(repr=False)
    status: str = "finished"
    message: str = ""
    n_steps: int = 0
    n_newton: int = 0
    n_factorizations: int = 0
    n_halved: int = 0
    wall_time: float = 0.0

    @property
    def success(self) -> bool:
        return self.status in ("finished", "event")

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def save_npz(self, path) -> None:
        np.savez(
            path,
            t=self.t,
            q=self.q,
            u=self.u,
            multipliers=self.multipliers,
            constraint_names=np.array(self.constraint_names),
            status=self.status,
            message=self.message,
            **{f"col_{k}": v for k, v in self.columns.items()},
        )
