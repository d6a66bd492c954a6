"""What a run keeps: the rows of the result and the observers' calls, one ``Recorder`` per run.

``simulate`` hands the recorder every completed step, one at a time (a ``StepReport``) or
several taken in one call (a ``batch.StepBatch``), through ``Recorder.add``. The recorder
accumulates the work terms, builds the history rows (``result.history_row``, or the same
arithmetic on whole columns for a batch nobody needs the reports of), keeps every
``store_every``-th row (the first and the last always) and calls the observers with each
report and its row. A row is kept before the observers see it, so a failing observer loses no
state.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..columns import history_columns
from ..system import Energies, System, energies
from .result import SimulationResult
from .step_report import StepReport, history_row, no_work


class Recorder:
    """The rows of one run (module docstring).

    Parameters
    ----------
    system : System
        The run's System.
    first : StepReport
        The initial report (its row is kept and the observers see it).
    observers : sequence of callable, optional
        Callables ``observer(system, report, row)``, with optional ``start(system, n_steps)``
        (called here with n_steps), ``close()`` (``close``) and ``add_batch(system, batch,
        rows)`` (the steps of a batch at once: its arrays and its rows, a dict of the history
        columns, t, q, u and multipliers with one entry per step; when every observer has it,
        no report of the batch is built here); none by default.
    n_steps : int, optional
        Expected number of steps (for the observers' ``start``); 0 by default.
    store_every : int, optional
        Keep every k-th step; 1 by default.
    keep_reports : bool, optional
        Keep the StepReport of every kept row; False by default.

    Examples
    --------
    Three steps of a pendulum recorded, every second one kept (and the last):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> from fe_contact.steppers.genalpha import GeneralizedAlpha
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> stepper = GeneralizedAlpha(system, 0.0, [0.0], [0.0], h=1e-3)
    >>> rec = Recorder(system, stepper.initial_report(), (), 3, store_every=2)
    >>> for _ in range(3):
    ...     rec.add(stepper.step(), last=stepper.n_steps == 3)
    >>> rows = rec.rows()
    >>> [round(float(t), 6) for t in rows["t"]]
    [0.0, 0.002, 0.003]
    """

    def __init__(
        self,
        system: System,
        first: StepReport,
        observers=(),
        n_steps: int = 0,
        store_every: int = 1,
        keep_reports: bool = False,
    ):
        self.system = system
        self.observers = tuple(observers)
        self.store_every = int(store_every)
        self.keep_reports = bool(keep_reports)
        self.work = no_work()  # accumulated work terms, J (WORK_KEYS)
        self.energy = first.energy or energies(system, first.q, first.u, first.t)
        self.energy0 = self.energy.total
        self.names = [c for c, _ in history_columns(system)]
        self.m = len(system.model.constraint_names())
        self.reports = []  # the kept StepReports (keep_reports)
        self.t_done = first.t  # the last completed step: its state is kept (stored or pending)
        self.t_observer = None  # the time of the report an observer failed on
        # the rows' values by column; t, q, u and the multipliers read from the reports
        self._state = ("t", "q", "u", "multipliers")
        self._row_names = [c for c in self.names if c not in self._state]
        self._store = {c: [] for c in (*self._row_names, *self._state)}
        self._parts = []  # the stored rows: dicts of arrays, in order (``_flush``)
        self._pending = []  # how to keep the last state, not stored because of the stride
        self._k = 0  # the index of the next step (0: the initial state)
        for obs in self.observers:
            if hasattr(obs, "start"):
                obs.start(system, n_steps)
        self.add(first, last=True)

    # -- the one entry -------------------------------------------------------------------------
    def add(self, steps, last: bool = False) -> None:
        """Record the step(s) ``steps``: a StepReport (``last``: the run's last step, always
        kept) or a ``batch.StepBatch`` of several, all committed by the stepper."""
        if isinstance(steps, StepReport):
            row = self._row(steps, last)
            self._notify(steps, row)
            return
        whole = all(hasattr(obs, "add_batch") for obs in self.observers)
        if self.keep_reports or not whole:  # every report of the batch is needed
            done = [(r, self._row(r, False)) for r in map(steps.report, range(steps.n))]
            for report, row in done:
                self._notify(report, row)
            return
        rows = self._columns(steps)
        for obs in self.observers:  # observers that read a batch's arrays
            try:
                obs.add_batch(self.system, steps, rows)
            except Exception:
                self.t_observer = float(steps.t[0])
                raise

    def close(self) -> None:
        """``close()`` every observer that has it (at the end of a run, also a failed one)."""
        for obs in self.observers:
            close = getattr(obs, "close", None)
            if close is not None:
                close()

    def rows(self) -> dict:
        """The kept rows as arrays: every history column, t (k,), q and u (k, n), multipliers
        (k, m); the last computed state is added when the stride skipped it."""
        if self._pending:
            self._pending[0]()
            self._pending.clear()
        self._flush()
        keys = (*self._row_names, *self._state)
        return {c: np.concatenate([p[c] for p in self._parts]) for c in keys}

    # -- rows ----------------------------------------------------------------------------------
    def _row(self, report: StepReport, last: bool) -> dict:
        """Accumulate the step's work and energies, build its row and keep it (or keep how to
        keep it: the stride)."""
        for key, value in report.work.items():
            self.work[key] += value
        k = self._k
        self._k += 1
        try:
            self.energy = report.energy or energies(self.system, report.q, report.u, report.t)
        except Exception:
            # the step is complete but a force of its end state cannot be evaluated (an
            # actuator failing there): its state is kept, with the energies unknown
            self.energy = Energies(*[math.nan] * len(dataclasses.fields(Energies)))
            self._keep_row(report, k, True)
            raise
        return self._keep_row(report, k, last)

    def _keep_row(self, report: StepReport, k: int, last: bool) -> dict:
        row = history_row(self.system, report, self.energy, self.work, self.energy0)
        self._pending.clear()
        if last or k % self.store_every == 0:
            self._keep(report, row)  # before the observers: a failing observer loses no state
        else:
            self._pending.append(lambda: self._keep(report, row))
        self.t_done = report.t
        return row

    def _keep(self, report: StepReport, row: dict) -> None:
        store = self._store
        for c in self._row_names:
            store[c].append(row[c])
        store["t"].append(report.t)
        store["q"].append(report.q.copy())
        store["u"].append(report.u.copy())
        store["multipliers"].append(np.asarray(report.multipliers, dtype=float).copy())
        if self.keep_reports:
            self.reports.append(report)

    def _notify(self, report: StepReport, row: dict) -> None:
        for obs in self.observers:
            try:
                obs(self.system, report, row)
            except Exception:
                self.t_observer = report.t
                raise

    def _columns(self, batch) -> dict:
        """The rows of a batch from its columns (no report built), stride applied; returns the
        batch's columns, every step's (history columns, t, q, u, multipliers)."""
        cols = batch.columns(self.system, self.work, self.energy0)
        self.energy = batch.energies(batch.n - 1)
        cols.update(q=batch.q, u=batch.u, multipliers=batch.multipliers)
        k = self._k
        self._k += batch.n
        stored = np.flatnonzero((np.arange(k, k + batch.n) % self.store_every) == 0)
        self._pending.clear()
        if stored.size == batch.n:  # every step kept: the batch's own arrays, not copied
            self._flush()
            self._parts.append(cols)
        elif stored.size:
            self._flush()
            self._parts.append({c: v[stored] for c, v in cols.items()})
        if stored.size == 0 or stored[-1] != batch.n - 1:
            last = {c: v[-1:] for c, v in cols.items()}
            self._pending.append(lambda: (self._flush(), self._parts.append(last)))
        self.t_done = float(batch.t[-1])
        return cols

    def _flush(self) -> None:
        store = self._store
        if store["t"]:
            part = {c: np.asarray(store[c]) for c in (*self._row_names, "t", "q", "u")}
            n = len(store["t"])
            part["multipliers"] = np.asarray(store["multipliers"]).reshape(n, self.m)
            self._parts.append(part)
        for v in store.values():
            v.clear()

    def result(self, stepper, status: str, message: str, wall_time: float) -> SimulationResult:
        """The SimulationResult of the kept rows and the stepper's counters."""
        rows = self.rows()
        return SimulationResult(
            t=rows["t"],
            q=rows["q"],
            u=rows["u"],
            multipliers=rows["multipliers"],
            constraint_names=self.system.model.constraint_names(),
            columns={c: rows[c] for c in self.names},
            method=stepper.method,
            status=status,
            message=message,
            n_steps=stepper.n_steps,
            n_newton=stepper.n_newton,
            n_substeps=stepper.n_substeps,
            wall_time=wall_time,
            reports=tuple(self.reports),
            events=tuple(stepper.events),
            losses=tuple(stepper.losses),
            n_halved=stepper.n_retried,
            step_path=stepper.step_path,
            n_compiled=stepper.n_compiled,
            n_fallback=stepper.n_fallback,
        )


__all__ = ["Recorder"]
