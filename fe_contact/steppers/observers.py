"""Observers of a run: they write what the steppers report, as the run goes.

An observer is a callable ``observer(system, report, row)`` (a StepReport and its history row),
with optional ``start(system, n_steps)`` and ``close()``; ``simulate`` calls them with the
initial state and after every step. A stepper never writes a file; an observer never runs
physics.

A stepper that takes many steps in one compiled call hands them over as a batch
(``steppers.batch.StepBatch``, ``steppers.moreau_batch``, ``steppers.rough_batch.RoughBatch``:
arrays with one entry per step). An observer may then also have ``add_batch(system, batch,
rows)``, which takes the batch's steps at once: ``rows`` holds the history columns of every
step of the batch (the values ``history_row`` gives each step's report, to the bit but the
velocity residual's, whose sums differ by a few ulp), and t, q, u and the multipliers; ``batch.report(j)`` rebuilds the report of its step j when one is
needed. When every observer of a run has it, no StepReport is built for the batch's steps
(``recording.Recorder.add``); else each observer is called once per step with the report
rebuilt from the batch, as for a step taken alone. The observers below have it: the history
file is written one flush per batch, the ParaView series rebuilds the reports of its frames
only, and the progress lines are those of the steps one by one.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

from .. import validation as check
from ..columns import history_columns
from ..io.history_file import HistoryWriter


class CsvObserver:
    """Writes every row to a CSV file, so a run that stops or fails leaves every row computed so far.

    Header ``name [unit]``, one row per step, flushed.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.

    Examples
    --------
    A pendulum's history written every step (header with units), 5 steps + the initial row:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> import tempfile, pathlib, csv
    >>> from fe_contact.steppers.observers import CsvObserver
    >>> with tempfile.TemporaryDirectory() as out:
    ...     path = pathlib.Path(out) / "history.csv"
    ...     _ = simulate(system, (0.0, 0.005), system.initial_state(), h=1e-3,
    ...                  observers=[CsvObserver(path)])
    ...     rows = list(csv.reader(path.open()))
    >>> rows[0][0], len(rows) - 1
    ('t [s]', 6)
    """

    def __init__(self, path):
        self.path = Path(path)
        self._writer = None

    def start(self, system, n_steps: int) -> None:
        self._writer = HistoryWriter(self.path, history_columns(system))

    def __call__(self, system, report, row) -> None:
        if self._writer is None:
            self.start(system, 0)
        self._writer.write(row)

    def add_batch(self, system, batch, rows) -> None:
        """The rows of a batch's steps, written and flushed at once."""
        if self._writer is None:
            self.start(system, 0)
        self._writer.write_columns(rows, batch.n)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


class VtkObserver:
    """Writes ParaView frames of a run; a run that stops early leaves a valid series.

    Every ``stride``-th report (the first included, and the last one on ``close``) becomes a
    frame ``DIRECTORY/NAME_#####.vtm`` (named blocks, ``io.vtk``, with the time and the row's
    joint and sensor columns as field data) of ``DIRECTORY/NAME.pvd``; the index gains a line
    after every frame (``io.pvd.PvdIndex``).

    Parameters
    ----------
    directory : str or os.PathLike
        The series' folder (created).
    name : str, optional
        Stem of the series' files; "frames" by default.
    stride : int, optional
        Write every k-th report, k >= 1; 1 by default.
    samples_per_element : int, optional
        Points per element of the structures' polylines, >= 1; 8 by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``stride`` or ``samples_per_element`` is not a positive integer.

    Examples
    --------
    A frame every 2nd step of 5 (and the last), with the ParaView state script:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> import tempfile, pathlib
    >>> from fe_contact.steppers.observers import VtkObserver
    >>> with tempfile.TemporaryDirectory() as out:
    ...     frames = VtkObserver(out, stride=2)
    ...     _ = simulate(system, (0.0, 0.005), system.initial_state(), h=1e-3, observers=[frames])
    ...     names = sorted(p.name for p in pathlib.Path(out).iterdir() if p.is_file())
    >>> names[:2], len(names) - 2  # the index, the state script, frames at steps 0, 2, 4, 5
    (['frames.pvd', 'frames.pvsm.py'], 4)
    """

    def __init__(self, directory, name: str = "frames", stride: int = 1, samples_per_element=8):
        stride = check.positive_int("VtkObserver.stride", stride)
        samples_per_element = check.positive_int(
            "VtkObserver.samples_per_element", samples_per_element
        )
        self.directory = Path(directory)
        self.name = name
        self.stride = stride
        self.samples_per_element = samples_per_element
        self._writer = None
        self._count = 0
        self._last = None
        self._system = None

    def start(self, system, n_steps: int) -> None:
        """A new series (a new run): frames are counted from the next report on."""
        self._writer = None
        self._count = 0
        self._last = None
        self._system = system

    def _write(self, system, report, row) -> None:
        from ..io.vtk import PvdWriter, frame_blocks, frame_field_data

        if self._writer is None:
            self._writer = PvdWriter(self.directory, self.name)
        blocks = frame_blocks(system, report, self.samples_per_element)
        self._writer.write(report.t, blocks, frame_field_data(system, report.t, row))

    def __call__(self, system, report, row) -> None:
        self._system = system
        if self._count % self.stride == 0:
            self._write(system, report, row)
            self._last = None
        else:
            self._last = (report, row)
        self._count += 1

    def add_batch(self, system, batch, rows) -> None:
        """The frames among a batch's steps: the reports of those steps rebuilt
        (``batch.report(j)``), every other step only counted (the batch's last one kept for
        ``close``)."""
        self._system = system
        n = int(batch.n)
        first = (-self._count) % self.stride  # the batch's first step that is a frame
        frames = range(first, n, self.stride)
        for j in frames:
            self._write(system, batch.report(j), _row_of(rows, j))
        self._count += n
        if n and (not frames or frames[-1] != n - 1):
            self._last = (batch.report(n - 1), _row_of(rows, n - 1))
        elif n:
            self._last = None

    @property
    def pvd_path(self) -> Path:
        return self.directory / f"{self.name}.pvd"

    def close(self) -> None:
        if self._last is not None:
            self._write(self._system, *self._last)
            self._last = None
        if self._writer is not None:
            self._writer.close()


class _Stderr(logging.Handler):
    """Writes records to the sys.stderr of the moment (so that redirections made after the
    logger was set up, such as a test's capture, are honoured)."""

    def emit(self, record):
        try:
            print(self.format(record), file=sys.stderr, flush=True)
        except Exception:  # noqa: BLE001 - logging must not break a run
            self.handleError(record)


def progress_logger() -> logging.Logger:
    """The logger ``fe_contact.progress`` of the progress lines.

    Unless the application set up handlers for ``fe_contact`` itself, its lines go to stderr at
    INFO; the command line's --quiet raises the level of ``fe_contact`` to WARNING, --verbose
    lowers it to DEBUG.

    Returns
    -------
    logging.Logger
        The logger.

    Examples
    --------
    >>> from fe_contact.steppers.observers import progress_logger
    >>> progress_logger().name
    'fe_contact.progress'
    """
    package = logging.getLogger("fe_contact")
    if not package.handlers:
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(message)s"))
        package.addHandler(handler)
        package.propagate = False
        if package.level == logging.NOTSET:
            package.setLevel(logging.INFO)
    return logging.getLogger("fe_contact.progress")


class ProgressObserver:
    """Progress of a run, through the logging module (``progress_logger``; level INFO).

    A tqdm bar when stderr is a terminal, otherwise a line every ~10 % of the steps and one at
    the end (so that a log shows that a long run is alive and where it stopped). Without
    ``start`` (used outside ``simulate``) the number of steps is unknown: a line every 100
    steps.

    Parameters
    ----------
    desc : str, optional
        The label of the bar and of the lines; "simulating" by default.

    Examples
    --------
    Outside a terminal it logs a line every ~10 % of the steps on ``fe_contact.progress``:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> from fe_contact.steppers.observers import ProgressObserver
    >>> progress = ProgressObserver("pendulum")
    >>> _ = simulate(system, (0.0, 0.005), system.initial_state(), h=1e-3, observers=[progress])
    >>> progress.steps
    5
    """

    def __init__(self, desc: str = "simulating"):
        self.desc = desc
        self._bar = None
        self._calls = 0  # reports seen; the first is the initial state
        self._total = None
        self._every = 100
        self._t0 = None
        self._t = None

    @property
    def steps(self) -> int:
        """Steps reported so far."""
        return max(self._calls - 1, 0)

    def start(self, system, n_steps: int) -> None:
        self._calls = 0
        self._total = max(int(n_steps), 1)
        self._every = max(self._total // 10, 1)
        self._t0 = time.perf_counter()
        if sys.stderr.isatty() and progress_logger().isEnabledFor(logging.INFO):
            from tqdm import tqdm

            self._bar = tqdm(total=self._total, desc=self.desc, unit="step", leave=False)

    def _line(self, what: str) -> None:
        steps = f"step {self.steps}" if self._total is None else f"step {self.steps}/{self._total}"
        share = "" if self._total is None else f"{100 * self.steps / self._total:.0f} %, "
        progress_logger().info(
            f"{self.desc}: {what}t = {self._t:.6g} s, {steps} "
            f"({share}{time.perf_counter() - self._t0:.1f} s)"
        )

    def __call__(self, system, report, row) -> None:
        if self._t0 is None:
            self._t0 = time.perf_counter()
        self._t = report.t
        self._calls += 1
        if self.steps == 0:
            return
        if self._bar is not None:
            self._bar.update(1)
        elif self.steps % self._every == 0:
            self._line("")

    def add_batch(self, system, batch, rows) -> None:
        """A batch's steps counted, with the lines the steps one by one would log (at the
        steps they would log at)."""
        if self._t0 is None:
            self._t0 = time.perf_counter()
        n = int(batch.n)
        t = rows["t"]
        if self._bar is not None:
            before = self.steps
            self._calls += n
            self._t = float(t[-1])
            self._bar.update(self.steps - before)
            return
        for j in range(n):
            self._calls += 1
            self._t = float(t[j])
            if self.steps and self.steps % self._every == 0:
                self._line("")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._t is not None:
            stopped = self._total is not None and self.steps < self._total
            if stopped or self.steps % self._every:
                self._line("stopped at " if stopped else "done, ")


def _row_of(rows: dict, j: int) -> dict:
    """The row of a batch's step j from the batch's columns (``add_batch``)."""
    return {c: v[j] for c, v in rows.items()}


def standard_observers(out, h: float, frame_every: float | None, desc: str | None = None) -> list:
    """The demos' set of observers.

    ``OUT/history.csv`` every step, the ParaView series ``OUT/frames.pvd`` about every
    ``frame_every`` s of simulated time, and progress when ``desc`` is given.

    Parameters
    ----------
    out : str or os.PathLike
        The output folder.
    h : float
        The step, s.
    frame_every : float or None
        Time between frames, s; None or 0: no series.
    desc : str or None, optional
        Label of the progress lines; None (the default): no progress.

    Returns
    -------
    list
        The observers (CsvObserver, VtkObserver, ProgressObserver).

    Examples
    --------
    The demos' set without a ParaView series: the CSV history and progress:

    >>> import tempfile
    >>> from fe_contact.steppers.observers import standard_observers
    >>> with tempfile.TemporaryDirectory() as out:
    ...     observers = standard_observers(out, h=1e-3, frame_every=None, desc="demo")
    >>> [type(o).__name__ for o in observers]
    ['CsvObserver', 'ProgressObserver']
    """
    out = Path(out)
    observers = [CsvObserver(out / "history.csv")]
    if frame_every:
        observers.append(VtkObserver(out, "frames", stride=max(1, round(frame_every / h))))
    if desc is not None:
        observers.append(ProgressObserver(desc))
    return observers


__all__ = ["CsvObserver", "ProgressObserver", "VtkObserver", "standard_observers"]
