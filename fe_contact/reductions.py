"""Scalar results of a run, ``"STATISTIC:COLUMN"`` (``"max:tip_normal_force"``): a statistic of
one history column, computed either from the whole column (``reduce_column``) or row by row as
the run goes (``StreamingResults``, an observer of ``simulate``), so that a long run never has to
keep or read back its history to report them.

Statistics: ``final`` (last row), ``initial`` (first row), ``max``, ``min``, ``mean``,
``max_abs`` (largest |value|). As numpy's reductions do, a NaN anywhere in the column makes
``max``, ``min``, ``mean`` and ``max_abs`` NaN; an empty column gives NaN. The streamed values
are the same numbers as those of the whole column, except ``mean``, which is a compensated
(Neumaier) running sum divided by the count: it differs from numpy's pairwise sum by round-off
only (a few ulp of the mean of |value|, see ``tests/test_bounds.py``).
"""

from __future__ import annotations

import math

import numpy as np

STATISTICS = ("final", "initial", "max", "min", "mean", "max_abs")


def parse_spec(text: str) -> tuple[str, str]:
    """("max", "tip_normal_force") from "max:tip_normal_force"; ValueError otherwise."""
    stat, sep, column = text.partition(":")
    if not sep or stat not in STATISTICS or not column:
        raise ValueError(f"allowed: STATISTIC:COLUMN with STATISTIC one of {', '.join(STATISTICS)}")
    return stat, column


def reduce_column(values, stat: str) -> float:
    """``stat`` of a whole column (a sequence of floats, shape (k,)); NaN when it is empty."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return math.nan
    with np.errstate(invalid="ignore"):  # inf - inf in a mean: NaN, as documented
        return _reduce(values, stat)


def _reduce(values: np.ndarray, stat: str) -> float:
    return float(
        {
            "final": lambda v: v[-1],
            "initial": lambda v: v[0],
            "max": np.max,
            "min": np.min,
            "mean": np.mean,
            "max_abs": lambda v: np.max(np.abs(v)),
        }[stat](values)
    )


class RunningStatistic:
    """One statistic of one column, updated one value at a time in O(1) memory."""

    def __init__(self, stat: str):
        if stat not in STATISTICS:
            raise ValueError(f"statistic: got {stat!r}; allowed: one of {', '.join(STATISTICS)}")
        self.stat = stat
        self.reset()

    def reset(self) -> None:
        """Forget every value (a new run)."""
        self.count = 0
        self.first = math.nan
        self.last = math.nan
        self.high = -math.inf
        self.low = math.inf
        self.high_abs = 0.0
        self.nan = False
        self.infinite = set()  # the infinite values met: {inf}, {-inf} or both
        self._sum = 0.0
        self._compensation = 0.0  # Neumaier's running correction of _sum

    def add(self, value: float) -> None:
        x = float(value)
        if self.count == 0:
            self.first = x
        self.count += 1
        self.last = x
        if math.isnan(x):
            self.nan = True
            return
        if math.isinf(x):  # kept out of the sum: inf - inf there would make the mean NaN
            self.high, self.low, self.high_abs = max(self.high, x), min(self.low, x), math.inf
            self.infinite.add(x)
            return
        self.high = max(self.high, x)
        self.low = min(self.low, x)
        self.high_abs = max(self.high_abs, abs(x))
        total = self._sum + x
        if abs(self._sum) >= abs(x):
            self._compensation += (self._sum - total) + x
        else:
            self._compensation += (x - total) + self._sum
        self._sum = total

    @property
    def value(self) -> float:
        if self.count == 0:
            return math.nan
        if self.stat == "final":
            return self.last
        if self.stat == "initial":
            return self.first
        if self.nan:
            return math.nan
        if self.stat == "mean":
            if self.infinite:  # numpy: inf, -inf, or NaN for both
                return next(iter(self.infinite)) if len(self.infinite) == 1 else math.nan
            return (self._sum + self._compensation) / self.count
        return {"max": self.high, "min": self.low, "max_abs": self.high_abs}[self.stat]


class StreamingResults:
    """An observer of ``simulate`` that keeps the scalar results ``specs`` ("STAT:COLUMN") up to
    date with every row (the initial state and every step: the rows of ``history.csv``).
    ``values()`` : dict spec -> float at any time. Memory does not grow with the run."""

    def __init__(self, specs):
        self.specs = tuple(specs)
        self._stats = []
        for spec in self.specs:
            stat, column = parse_spec(spec)
            self._stats.append((column, RunningStatistic(stat)))

    def start(self, system, n_steps: int) -> None:
        for _, stat in self._stats:
            stat.reset()

    def __call__(self, system, report, row) -> None:
        for column, stat in self._stats:
            stat.add(row[column])

    def add_batch(self, system, batch, rows) -> None:
        """The rows of a batch's steps (``steppers.observers``), in order."""
        for column, stat in self._stats:
            for value in rows[column].tolist():
                stat.add(value)

    def values(self) -> dict:
        return {spec: stat.value for spec, (_, stat) in zip(self.specs, self._stats, strict=True)}


__all__ = ["STATISTICS", "RunningStatistic", "StreamingResults", "parse_spec", "reduce_column"]
