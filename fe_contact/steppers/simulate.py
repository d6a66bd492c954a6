"""simulate(system, t_span, y0, method=...) -> SimulationResult: the one driver of every run.

A stepper is a step object (after scipy's ``OdeSolver``) with

* ``__init__(system, t0, q0, u0, h, **settings)``: checks its input, makes the initial state
  consistent (dependent coordinates, constraints) and builds ``initial_report()``;
* ``step(h=None) -> StepReport``: advances by its h, or by the given h (``simulate`` shortens
  the last step so that the run ends exactly on t_end); raises on failure (any exception),
  leaving the committed state unchanged;
* attributes ``t``, ``q``, ``u``, ``h``, ``status`` and the counters ``n_steps``,
  ``n_newton``, ``n_substeps``.

``simulate`` loops over the steps, accumulates the work terms of the reports, builds the
history rows and hands every report to the observers (CSV, ParaView frames, progress): a
stepper never writes a file. Events that end a run (a sliding contact leaving its structure)
are raised by the stepper as ``StopRun``; everything computed up to then is kept.

A stepper with a ``t_bound`` (the event-driven one, whose steps shorten to locate closings)
takes steps of its own length and stops itself on t_bound: ``simulate`` gives it t_end and steps
while its ``status`` is "running".
"""

from __future__ import annotations

import math
import time

import numpy as np
import threadpoolctl

from .. import validation as check
from ..consistency import check_consistent_start
from ..model import Polyline
from ..system import System, energies
from .result import SimulationResult, StepReport, history_columns, history_row

METHODS = ("generalized-alpha", "moreau", "event-driven")


class StopRun(RuntimeError):
    """A terminal event: the run ends cleanly with status "event" and this message."""


def check_start(system: System, h, q0, u0, method: str) -> tuple[float, np.ndarray, np.ndarray]:
    """The common input checks of a stepper: ``system`` a System whose contacts ``method``
    takes, h a finite step > 0 (s), q0 and u0 finite of shape (n,); the offending entry is
    named. Returns (h, q0, u0) copies."""
    check.instance("system", system, System, "a System (assemble)")
    _check_rough(system, method)
    h = check.real("h", h, low=0.0, low_open=True, unit="s", meaning="a finite step")
    lay = system.layout
    q0 = check.finite_array("q0", q0, (lay.n,), lay.coordinate_name)
    u0 = check.finite_array("u0", u0, (lay.n,), lay.coordinate_name)
    return h, q0, u0


_CONTROLLER = []


def _blas_controller() -> threadpoolctl.ThreadpoolController:
    """The process's thread pools (found once: the search reads the loaded libraries, ~2 ms;
    the BLAS libraries are loaded with numpy and scipy, before any run)."""
    if not _CONTROLLER:
        _CONTROLLER.append(threadpoolctl.ThreadpoolController())
    return _CONTROLLER[0]


def _check_rough(system: System, method: str) -> None:
    """Rough pairs (a Polyline on a Wheel) and Poisson's reversibility need "event-driven"."""
    if method == "event-driven" or not isinstance(system, System):
        return
    for c in system.model.contacts:
        if isinstance(c.profile, Polyline):
            check.fail(
                f"simulate.method (contact {c.name!r}: a Polyline on a Wheel)",
                method,
                "'event-driven'",
            )
        if getattr(c.law, "reversibility", 0.0):
            check.fail(
                f"simulate.method (contact {c.name!r}: reversibility {c.law.reversibility:g})",
                method,
                "'event-driven', or reversibility 0",
            )


def make_stepper(
    system: System, t0: float, q0, u0, method: str, h: float | None, settings, t_end=None
):
    """The stepper of ``method`` on ``system`` from (t0, q0, u0); t_end (s) bounds the
    event-driven stepper's steps (``t_bound``)."""
    _check_rough(system, method)
    if method == "generalized-alpha":  # compiled where it applies (``compiled=False``: not)
        from .compiled import generalized_alpha

        Stepper, settings = generalized_alpha(system, settings)
    elif method == "moreau":
        from .moreau import MoreauJean as Stepper
    elif method == "event-driven":
        from .event_driven import EventDriven as Stepper

        if t_end is not None:
            settings = {**settings, "t_bound": t_end}
    else:
        raise ValueError(f"simulate: method = {method!r}; allowed: {METHODS}")
    if h is not None:
        settings = {**settings, "h": h}
    return Stepper(system, t0, q0, u0, **settings)


def simulate(
    system: System,
    t_span,
    y0,
    method: str = "generalized-alpha",
    h: float | None = None,
    observers=(),
    store_every: int = 1,
    keep_reports: bool = False,
    threads: int | None = 1,
    start_tol: float | None = 1e-6,
    **settings,
) -> SimulationResult:
    """Integrate ``system`` from t_span[0] to t_span[1] (s) from the state y0 = (q0, u0).

    method : "generalized-alpha" (partitioned, Sliding contacts, drives, loops), "moreau"
        (Moreau-Jean, Unilateral contacts) or "event-driven" (a tree with a rough pair, a
        Polyline on a Wheel: ``steppers.event_driven``). h : the step in s (default: the
        stepper's; the event-driven stepper's largest step).
    observers : callables ``observer(system, report, row)`` called with the initial state and
        after every step (``CsvObserver``, ``VtkObserver``, ``ProgressObserver`` in
        ``fe_contact.steppers.observers``); ``close()`` is called at the end if they have it.
    store_every : keep every k-th state in the result (the first and last always).
    keep_reports : keep the StepReport of every stored state in ``result.reports``.
    threads : BLAS threads during the run (default 1: the matrices of a step are small, and
        several threads fighting over them cost more than they give; None leaves the process's
        setting alone). Set through threadpoolctl for the run only.
    start_tol : the initial state must satisfy every bilateral constraint (sliding contacts,
        drives, loop closures) to this tolerance (m or rad) and reach every string support
        (``consistency.constraint_violations``); else ValueError naming each violated
        constraint and its residual, before any step. None: no check (the stepper pulls the
        dependent coordinates onto the constraints in its first step).
    settings : passed to the stepper (e.g. ``rho_inf``, ``theta``, ``max_halvings``);
        ``compiled=False`` keeps the generalised-alpha step in Python (``steppers.compiled``).
    Returns a SimulationResult. A failure after the start (Newton divergence, a singular system,
    a contact solver that does not converge, an exception in an observer) does not raise: the
    result has status "failed", the message and every state computed so far.
    """
    t0, t_end = check.vector("simulate.t_span", t_span, unit="s")
    if not t_end > t0:
        check.fail("simulate.t_span", t_span, "finite (t0, t_end) with t_end > t0 in s")
    check.positive_int("simulate.store_every", store_every)
    if threads is not None:
        check.positive_int("simulate.threads", threads)
    check.choice("simulate.method", method, METHODS)
    if h is not None:
        check.real("simulate.h", h, low=0.0, low_open=True, unit="s", meaning="a finite step")
    allowed = "a pair (q0, u0) of arrays of shape (n,)"
    if not isinstance(y0, tuple | list | np.ndarray):
        check.fail("simulate.y0", y0, allowed, TypeError)
    if len(y0) != 2:
        check.fail("simulate.y0", y0, allowed)
    q0, u0 = y0
    if start_tol is not None:
        start_tol = check.real("simulate.start_tol", start_tol, low=0.0, unit="m or rad")
        if isinstance(system, System):
            lay = system.layout
            q = check.finite_array("q0", q0, (lay.n,), lay.coordinate_name)
            check_consistent_start(system, q, t0, start_tol)
    if threads is None:
        return _run(
            system, t0, t_end, q0, u0, method, h, observers, store_every, keep_reports, settings
        )
    with _blas_controller().limit(limits=threads, user_api="blas"):
        return _run(
            system, t0, t_end, q0, u0, method, h, observers, store_every, keep_reports, settings
        )


def _run(system, t0, t_end, q0, u0, method, h, observers, store_every, keep_reports, settings):
    wall0 = time.perf_counter()
    stepper = make_stepper(system, t0, q0, u0, method, h, settings, t_end)
    n_total = max(1, int(math.ceil((t_end - t0) / stepper.h - 1e-9)))
    bounded = getattr(stepper, "t_bound", None) is not None  # steps of its own, to t_end
    work = dict.fromkeys(("work_drives", "work_loads", "dissipated_damping"), 0.0)
    work.update(dissipated_friction=0.0, dissipated_impact=0.0)
    report = stepper.initial_report()
    energy = report.energy or energies(system, report.q, report.u, report.t)
    energy0 = energy.total
    names = [c for c, _ in history_columns(system)]
    store = {c: [] for c in names}
    ts, qs, us, lams, reps = [], [], [], [], []
    parts = []  # the stored rows: dicts of arrays, in order (``flush``)
    observers = tuple(observers)
    for obs in observers:
        if hasattr(obs, "start"):
            obs.start(system, n_total)
    m = len(system.model.constraint_names())

    def keep(report: StepReport, row: dict):
        for c in names:
            store[c].append(row[c])
        ts.append(report.t)
        qs.append(report.q.copy())
        us.append(report.u.copy())
        lams.append(np.asarray(report.multipliers, dtype=float).copy())
        if keep_reports:
            reps.append(report)

    def flush():
        if ts:
            part = {c: np.asarray(v) for c, v in store.items()}
            part.update(t=np.asarray(ts), q=np.asarray(qs), u=np.asarray(us))
            part["multipliers"] = np.asarray(lams).reshape(len(ts), m)
            parts.append(part)
        for v in (*store.values(), ts, qs, us, lams):
            v.clear()

    pending = []  # how to keep the last computed state, not stored because of the stride

    def record(report: StepReport, k: int, last: bool):
        row = history_row(system, report, energy, work, energy0)
        pending.clear()
        if last or k % store_every == 0:
            keep(report, row)  # before the observers: a failing observer loses no state
        else:
            pending.append(lambda: keep(report, row))
        for obs in observers:
            obs(system, report, row)

    def record_batch(batch, k: int):
        """Steps k .. k + batch.n - 1, taken in one call (``batch.StepBatch``)."""
        nonlocal energy
        if observers or keep_reports:  # the per-step path, with the reports of the batch
            for j in range(batch.n):
                report = batch.report(j)
                for key, value in report.work.items():
                    work[key] += value
                energy = report.energy
                record(report, k + j, False)
            return
        cols = batch.columns(system, work, energy0)
        energy = batch.energies(batch.n - 1)
        cols.update(q=batch.q, u=batch.u, multipliers=batch.multipliers)
        stored = np.flatnonzero((np.arange(k, k + batch.n) % store_every) == 0)
        pending.clear()
        if stored.size:
            flush()
            parts.append({c: v[stored] for c, v in cols.items()})
        if stored.size == 0 or stored[-1] != batch.n - 1:
            pending.append(lambda: (flush(), parts.append({c: v[-1:] for c, v in cols.items()})))

    status, message = "finished", f"reached t = {t_end:g} s"
    batches = getattr(stepper, "steps", None)
    t_done = report.t
    try:
        record(report, 0, True)
        k, wait, backoff = 1, 0, 1
        while stepper.status == "running" if bounded else k <= n_total:
            if wait:
                wait -= 1
            elif batches is not None and k < n_total:  # quiet steps in one compiled call
                batch = batches(n_total - k)  # (the last step is left to step())
                if batch is not None and batch.n:
                    record_batch(batch, k)
                    k += batch.n
                    t_done = float(batch.t[-1])
                    backoff = 1
                    if batch.stop == "done":
                        continue
                elif batch is not None:  # none taken: none tried for a while (doubling)
                    wait, backoff = backoff, min(2 * backoff, 64)
            h_k = None  # the stepper's h; the last step ends on t_end
            if (
                not bounded
                and k == n_total
                and abs(t_end - stepper.t - stepper.h) > 1e-9 * stepper.h
            ):
                h_k = t_end - stepper.t
            try:
                report = stepper.step(h_k)
            except StopRun as stop:
                status, message = "event", str(stop)
                break
            for key, value in report.work.items():
                work[key] += value
            energy = report.energy or energies(system, report.q, report.u, report.t)
            record(report, k, stepper.status != "running" if bounded else k == n_total)
            t_done = report.t
            k += 1
    except Exception as err:  # noqa: BLE001 - a failing run returns what it computed
        status = "failed"
        # the last completed step is the last report (a failing step may have committed
        # some of its sub-steps: the stepper's own t may lie past it)
        message = f"{type(err).__name__}: {err} (last completed step at t = {t_done:.6g} s)"
    finally:
        for obs in observers:
            close = getattr(obs, "close", None)
            if close is not None:
                close()
    if pending:
        pending[0]()  # the last computed state, skipped by the stride
    flush()
    rows = {c: np.concatenate([p[c] for p in parts]) for c in (*names, "q", "u", "multipliers")}
    return SimulationResult(
        t=rows["t"],
        q=rows["q"],
        u=rows["u"],
        multipliers=rows["multipliers"],
        constraint_names=system.model.constraint_names(),
        columns={c: rows[c] for c in names},
        method=method,
        status=status,
        message=message,
        n_steps=stepper.n_steps,
        n_newton=stepper.n_newton,
        n_substeps=stepper.n_substeps,
        wall_time=time.perf_counter() - wall0,
        reports=tuple(reps),
        events=tuple(getattr(stepper, "events", ())),
        losses=tuple(getattr(stepper, "losses", ())),
    )


__all__ = ["METHODS", "StopRun", "simulate"]
