"""simulate(system, t_span, y0, method=...) -> SimulationResult: the one driver of every run.

A stepper is a step object derived from ``steppers.base.Stepper`` (after scipy's
``OdeSolver``): ``__init__(system, t0, q0, u0, h, **settings)`` checks its input, makes the
initial state consistent and builds ``initial_report()``; ``step(h=None) -> StepReport``
advances by its h or the given one (``simulate`` shortens the last step so that the run ends
exactly on t_end) and keeps ``status``, ``t_old``, the counters and, on failure, the error and
the last completed state (``steppers.base``).

``simulate`` loops over the steps, accumulates the work terms of the reports, builds the
history rows and hands every report to the observers (CSV, ParaView frames, progress): a
stepper never writes a file. A terminal event (a sliding contact leaving its structure) is a
``StopRun`` raised by the stepper or by an observer: the run ends with status "event" and
everything computed up to then is kept.

A stepper with a ``t_bound`` (the event-driven one, whose steps shorten to locate closings)
takes steps of its own length and stops itself on t_bound: ``simulate`` gives it t_end and steps
while its ``status`` is "running".
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time

import numpy as np
import threadpoolctl

from .. import validation as check
from ..consistency import check_consistent_start, constraint_violations
from ..limits import MEMORY_ENV, LimitExceeded, check_steps, max_memory
from ..model import Polyline
from ..sensors import with_sensors
from ..system import Energies, System, energies
from .base import SingularSystem, StopRun, check_method
from .result import SimulationResult, StepReport, history_columns, history_row, no_work

METHODS = ("generalized-alpha", "moreau", "event-driven")
LOG = logging.getLogger("fe_contact.simulate")


_CONTROLLER = []


def _blas_controller() -> threadpoolctl.ThreadpoolController:
    """The process's thread pools (found once: the search reads the loaded libraries, ~2 ms;
    the BLAS libraries are loaded with numpy and scipy, before any run)."""
    if not _CONTROLLER:
        _CONTROLLER.append(threadpoolctl.ThreadpoolController())
    return _CONTROLLER[0]


def choose_method(system: System) -> tuple[str, str]:
    """(method, reason): the stepper that suits the model's contacts, for ``method="auto"``.

    * a rough pair (a Polyline on a Wheel) or Poisson's reversibility: "event-driven", the
      only stepper that takes them;
    * a Sliding (bilateral) or Compliant law, or Poisson's impact law: "generalized-alpha",
      the only stepper that takes them (second order, events located in time);
    * otherwise, with Unilateral contacts (candidate grids, many impacts and simultaneous
      contacts): "moreau", whose energy balance closes through impacts and stick-slip;
    * no contacts: "generalized-alpha".

    A model that mixes contacts no single stepper takes is refused, naming the contacts.

    Examples
    --------
    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> from fe_contact.steppers.simulate import choose_method
    >>> choose_method(system)
    ('generalized-alpha', 'no contacts')
    """
    check.instance("system", system, System, "a System (assemble)")
    contacts = system.model.contacts
    rough = [c.name for c in contacts if isinstance(c.profile, Polyline)]
    rough += [c.name for c in contacts if c.law.steppers == {"event-driven"}]
    grid = [c.name for c in contacts if c.search == "grid"]
    smooth = [c.name for c in contacts if "moreau" not in c.law.steppers]
    if rough:
        return "event-driven", f"rough contact {rough} (a Polyline on a Wheel, or reversibility)"
    if grid and smooth:
        raise ValueError(
            f"simulate.method = 'auto': contacts {grid} use the candidate grid (Moreau-Jean "
            f"only) and contacts {sorted(set(smooth))} need the generalised-alpha stepper "
            "(Sliding, Compliant or Poisson's impact law); no stepper takes both: use "
            "search='closest' or Unilateral laws with Newton's impact law"
        )
    if smooth:
        names = sorted(set(smooth))
        return "generalized-alpha", f"contacts {names} are Sliding, Compliant or Poisson's"
    if contacts:
        return "moreau", "Unilateral contacts only (impacts, stick-slip, candidate grids)"
    return "generalized-alpha", "no contacts"


def default_step(method: str) -> float:
    """The step h (s) a stepper takes when none is given (its ``h`` default).

    Examples
    --------
    >>> from fe_contact.steppers.simulate import default_step
    >>> default_step("generalized-alpha"), default_step("moreau")
    (0.0001, 0.001)
    """
    import inspect

    if method == "moreau":
        from .moreau import MoreauJean as Stepper
    elif method == "event-driven":
        from .event_driven import EventDriven as Stepper
    else:
        from .genalpha import GeneralizedAlpha as Stepper
    return float(inspect.signature(Stepper).parameters["h"].default)


ROW_BYTES = 32  # a stored history value: a Python float (24 B) and its list slot (8 B)
ARRAY_BYTES = 112  # the header of each stored (n,) array: q, u, multipliers
REPORT_BYTES = 2000  # a kept StepReport with one ContactReport, beyond its q and u


def result_memory(system: System, n_steps: float, store_every: int, keep_reports: bool) -> float:
    """Bytes the rows a run keeps will take: (n_steps / store_every + 2) rows of the history
    columns, q, u and the multipliers (and the reports when kept).

    Examples
    --------
    Keeping every 10th row of a run takes about a tenth of the memory:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> from fe_contact.steppers.simulate import result_memory
    >>> every, tenth = result_memory(system, 1000, 1, False), result_memory(system, 1000, 10, False)
    >>> round(every / tenth, 1)
    9.8
    """
    rows = float(n_steps) / store_every + 2.0
    n, m = system.layout.n, len(system.model.constraint_names())
    per_row = ROW_BYTES * len(history_columns(system)) + 3 * ARRAY_BYTES + 8.0 * (2 * n + m)
    if keep_reports:
        per_row += REPORT_BYTES + 8.0 * 2 * n
    return rows * per_row


def check_result_memory(system, n_steps, store_every, keep_reports, limit=None) -> float:
    """Refuse a run whose kept rows exceed ``limits.max_memory`` (``result_memory``).

    Examples
    --------
    A billion stored rows are refused before the run, with what to change:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> from fe_contact.steppers.simulate import check_result_memory
    >>> check_result_memory(system, 1e9, 1, False, limit=1e6)
    Traceback (most recent call last):
    ...
    fe_contact.limits.LimitExceeded: simulate.store_every: got 1, which keeps 1e+09 rows ...
    """
    need, allowed = result_memory(system, n_steps, store_every, keep_reports), max_memory(limit)
    if need > allowed:
        raise LimitExceeded(
            f"simulate.store_every: got {store_every!r}, which keeps {n_steps / store_every:.4g} "
            f"rows of {system.layout.n} coordinates, an estimated {need:.3g} bytes, above the "
            f"limit of {allowed:.3g} bytes; allowed: a larger store_every (the CSV observer "
            "still writes every step), keep_reports=False, or raise the limit with "
            f"simulate(..., max_memory=BYTES) or the environment variable {MEMORY_ENV}=BYTES"
        )
    return need


def make_stepper(
    system: System, t0: float, q0, u0, method: str, h: float | None, settings, t_end=None
):
    """The stepper of ``method`` on ``system`` from (t0, q0, u0); t_end (s) bounds the
    event-driven stepper's steps (``t_bound``).

    Examples
    --------
    The generalised-alpha stepper of a pendulum released from horizontal, three steps of 1 ms
    (what ``simulate`` runs in its loop):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> from fe_contact.steppers.simulate import make_stepper
    >>> stepper = make_stepper(system, 0.0, np.zeros(1), np.zeros(1), "generalized-alpha", 1e-3, {})
    >>> for _ in range(3):
    ...     _ = stepper.step()
    >>> round(stepper.t, 6), stepper.n_steps
    (0.003, 3)
    """
    check_method(system, method)
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
    max_steps: float | None = None,
    max_memory: float | None = None,
    sensors=None,
    **settings,
) -> SimulationResult:
    """Integrate ``system`` from t_span[0] to t_span[1] (s) from the state y0 = (q0, u0).

    method : "generalized-alpha" (partitioned, Sliding contacts, drives, loops), "moreau"
        (Moreau-Jean, Unilateral contacts) or "event-driven" (a tree with a rough pair, a
        Polyline on a Wheel: ``steppers.event_driven``), or "auto": chosen by the model's
        contacts (``choose_method``; the choice is logged at INFO on "fe_contact.simulate").
        h : the step in s (default: the stepper's; the event-driven stepper's largest step).
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
        constraint and its residual, before any step. None: no check; the stepper pulls the
        dependent coordinates onto the constraints in its first step, and each constraint
        violated by more than ``PROJECTION_LOGGED`` is logged (INFO, ``fe_contact.simulate``).
    max_steps : a run of more than (t_end - t0) / h steps is refused before any work
        (``limits.LimitExceeded`` with the count; default $FE_CONTACT_MAX_STEPS, else 1e8),
        and so is a step too small to advance t in floating point.
    max_memory : bytes; a run whose stored rows (``result_memory``: every ``store_every``-th
        state, its history columns, the reports when kept) would exceed it is refused before
        any work (default $FE_CONTACT_MAX_MEMORY, else half of the physical memory).
    sensors : None or a tuple of sensors of this run (``fe_contact.sensors``), added to the
        model's own: their columns join the history (the CSV, ``result[name]``); checked as
        ``Model.sensors``.
    settings : passed to the stepper (e.g. ``rho_inf``, ``theta``, ``max_halvings``);
        ``compiled=False`` keeps the generalised-alpha step in Python (``steppers.compiled``).
    Returns a SimulationResult. A failure after the start (Newton divergence, a singular system,
    a contact solver that does not converge, an exception in an observer) does not raise: the
    result has status "failed", the message and every state computed so far. A start state
    that admits no motion (the inconsistent or indeterminate Painleve case, constraints that
    cannot be closed) gives a failed result with no rows; bad input (ValueError, TypeError)
    raises before any step.

    Examples
    --------
    A point mass pendulum (1 kg at l = 0.5 m) released from horizontal, 20 steps of 1 ms:
    theta'' = -g cos(theta) / l, so early on theta(t) ~ -g t^2 / (2 l):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=tree))
    >>> result = simulate(system, (0.0, 0.02), system.initial_state(), h=1e-3)
    >>> result.status, len(result.t)
    ('finished', 21)
    >>> closed = -9.81 * 0.02**2 / (2 * 0.5)
    >>> print(f"theta = {result.q[-1, 0]:.4g} rad, -g t^2 / (2 l) = {closed:.4g} rad")
    theta = -0.003924 rad, -g t^2 / (2 l) = -0.003924 rad
    """
    t0, t_end = check.vector("simulate.t_span", t_span, unit="s")
    if sensors is not None and isinstance(system, System):
        system = with_sensors(system, sensors)
    if not t_end > t0:
        check.fail("simulate.t_span", t_span, "finite (t0, t_end) with t_end > t0 in s")
    check.positive_int("simulate.store_every", store_every)
    if threads is not None:
        check.positive_int("simulate.threads", threads)
    check.choice("simulate.method", method, (*METHODS, "auto"))
    if method == "auto":
        method, reason = choose_method(system)
        LOG.info("simulate: method %r chosen: %s", method, reason)
    if h is not None:
        check.real("simulate.h", h, low=0.0, low_open=True, unit="s", meaning="a finite step")
    n_steps = check_steps(t0, t_end, default_step(method) if h is None else h, max_steps)
    if isinstance(system, System):
        check_result_memory(system, n_steps, store_every, keep_reports, max_memory)
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
    elif isinstance(system, System):
        _log_projection(system, q0, t0)
    if threads is None:
        return _run(
            system, t0, t_end, q0, u0, method, h, observers, store_every, keep_reports, settings
        )
    with _blas_controller().limit(limits=threads, user_api="blas"):
        return _run(
            system, t0, t_end, q0, u0, method, h, observers, store_every, keep_reports, settings
        )


PROJECTION_LOGGED = 1e-12  # m or rad: below it a start is on its constraints to round-off


def _log_projection(system: System, q0, t0: float) -> None:
    """Log the constraints that the first step will pull the state onto (start_tol=None)."""
    lay = system.layout
    q = check.finite_array("q0", q0, (lay.n,), lay.coordinate_name)
    for v in constraint_violations(system, q, t0, PROJECTION_LOGGED):
        LOG.info(
            "initial state projected onto %s by the first step (start_tol=None): "
            "violated by %.3e %s at t = %g s",
            v.name,
            v.residual,
            v.unit,
            t0,
        )


def _run(system, t0, t_end, q0, u0, method, h, observers, store_every, keep_reports, settings):
    wall0 = time.perf_counter()
    try:
        stepper = make_stepper(system, t0, q0, u0, method, h, settings, t_end)
    except NotImplementedError:
        raise
    except (RuntimeError, ArithmeticError, np.linalg.LinAlgError) as err:
        # the start admits no motion (a Painleve case) or its algebra breaks down: no row
        message = f"{type(err).__name__}: {err} (at the start, t = {t0:.6g} s: no step taken)"
        return _empty_result(system, method, message, time.perf_counter() - wall0)
    n_total = max(1, int(math.ceil((t_end - t0) / stepper.h - 1e-9)))
    bounded = stepper.t_bound is not None  # steps of its own, to t_end
    work = no_work()
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
    t_done = report.t  # the last completed step: its state is kept (stored or pending)
    t_observer = None  # the time of the report an observer failed on

    def store_step(report: StepReport, k: int, last: bool) -> dict:
        nonlocal t_done
        row = history_row(system, report, energy, work, energy0)
        pending.clear()
        if last or k % store_every == 0:
            keep(report, row)  # before the observers: a failing observer loses no state
        else:
            pending.append(lambda: keep(report, row))
        t_done = report.t
        return row

    def notify(report: StepReport, row: dict):
        nonlocal t_observer
        for obs in observers:
            try:
                obs(system, report, row)
            except Exception:
                t_observer = report.t
                raise

    def record(report: StepReport, k: int, last: bool):
        notify(report, store_step(report, k, last))

    def record_batch(batch, k: int):
        """Steps k .. k + batch.n - 1, taken in one call (``batch.StepBatch``): all of them
        are kept before the observers see them (the stepper has committed them all)."""
        nonlocal energy, t_done
        if observers or keep_reports:  # the per-step path, with the reports of the batch
            done = []
            for j in range(batch.n):
                report = batch.report(j)
                for key, value in report.work.items():
                    work[key] += value
                energy = report.energy
                done.append((report, store_step(report, k + j, False)))
            for report, row in done:
                notify(report, row)
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
        t_done = float(batch.t[-1])

    status, message = "finished", f"reached t = {t_end:g} s"
    batches = getattr(stepper, "steps", None)
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
                    backoff = 1
                    if batch.stop == "done":
                        continue
                elif batch is not None:  # none taken: none tried for a while (doubling)
                    wait, backoff = backoff, min(2 * backoff, 64)
            h_k = None  # the stepper's h; the last step ends on t_end exactly
            if not bounded and k == n_total:
                # t_end - t is exact for t_end / 2 <= t <= t_end (Sterbenz), so that
                # t + h_k == t_end in floating point: the run ends on t_end, not an ulp off
                h_k = t_end - stepper.t
            try:
                report = stepper.step(h_k)
            except StopRun as stop:
                status, message = "event", str(stop)
                break
            for key, value in report.work.items():
                work[key] += value
            try:
                energy = report.energy or energies(system, report.q, report.u, report.t)
            except Exception:
                # the step is complete but a force of its end state cannot be evaluated (an
                # actuator failing there): its state is kept, with the energies unknown
                energy = Energies(*[math.nan] * len(dataclasses.fields(Energies)))
                store_step(report, k, True)
                raise
            record(report, k, stepper.status != "running" if bounded else k == n_total)
            k += 1
    except StopRun as stop:  # a terminal event raised by an observer: its report is kept
        status, message = "event", str(stop)
    except Exception as err:  # noqa: BLE001 - a failing run returns what it computed
        status = "failed"
        # the last completed step is the last report kept (a failing step may have committed
        # some of its sub-steps: the stepper's own t may lie past it)
        where = "" if t_observer is None else f" in an observer at t = {t_observer:.6g} s"
        message = f"{type(err).__name__}: {err}{where} (last completed step at t = {t_done:.6g} s)"
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
        events=tuple(stepper.events),
        losses=tuple(stepper.losses),
        n_halved=stepper.n_retried,
    )


def _empty_result(system: System, method: str, message: str, wall: float) -> SimulationResult:
    """The failed result of a run whose stepper could not start: no state, every history of
    length 0 (t (0,), q and u (0, n), multipliers (0, m))."""
    n, m = system.layout.n, len(system.model.constraint_names())
    return SimulationResult(
        t=np.zeros(0),
        q=np.zeros((0, n)),
        u=np.zeros((0, n)),
        multipliers=np.zeros((0, m)),
        constraint_names=system.model.constraint_names(),
        columns={c: np.zeros(0) for c, _ in history_columns(system)},
        method=method,
        status="failed",
        message=message,
        wall_time=wall,
    )


__all__ = [
    "METHODS",
    "SingularSystem",
    "StopRun",
    "check_result_memory",
    "default_step",
    "result_memory",
    "simulate",
]
