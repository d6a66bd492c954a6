"""simulate(system, t_span, y0, method=...) -> SimulationResult: the one driver of every run.

A stepper is a step object derived from ``steppers.base.Stepper`` (after scipy's
``OdeSolver``): ``__init__(system, t0, q0, u0, h, **settings)`` checks its input, makes the
initial state consistent and builds ``initial_report()``; ``step(h=None) -> StepReport``
advances by its h or the given one (``simulate`` shortens the last step so that the run ends
exactly on t_end) and keeps ``status``, ``t_old``, the counters and, on failure, the error and
the last completed state (``steppers.base``).

``simulate`` bounds the stepper to t_end (``Stepper.bound``) and steps while its ``status``
is "running" (several steps in one call where the stepper offers it, ``Stepper.steps``),
handing every step to the run's ``recording.Recorder``: it accumulates the work terms of the
reports, builds and keeps the history rows and calls the observers (CSV, ParaView frames,
progress); a stepper never writes a file. A terminal event (a sliding contact leaving its
structure) is a ``StopRun`` raised by the stepper or by an observer: the run ends with status
"event" and everything computed up to then is kept.
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np
import threadpoolctl

from .. import validation as check
from ..columns import history_columns
from ..consistency import check_consistent_start, constraint_violations
from ..limits import MEMORY_ENV, LimitExceeded, check_steps, max_memory
from ..rough import Polyline
from ..sensors import with_sensors
from ..system import System
from .base import SingularSystem, StopRun, check_method
from .recording import Recorder
from .result import SimulationResult

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
    """The stepper that suits the model's contacts, for ``method="auto"``.

    * a rough pair (a Polyline on a Wheel) or Poisson's reversibility: "event-driven", the
      only stepper that takes them;
    * a Sliding (bilateral) or Compliant law, or Poisson's impact law: "generalized-alpha",
      the only stepper that takes them (second order, events located in time);
    * otherwise, with Unilateral contacts (candidate grids, many impacts and simultaneous
      contacts): "moreau", whose energy balance closes through impacts and stick-slip;
    * no contacts: "generalized-alpha".

    Parameters
    ----------
    system : System
        The assembled model.

    Returns
    -------
    method : str
        "event-driven", "generalized-alpha" or "moreau".
    reason : str
        Why, naming the contacts.

    Raises
    ------
    TypeError
        When ``system`` is not a System.
    ValueError
        For a model that mixes contacts no single stepper takes, naming the contacts.

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
    """The step h a stepper takes when none is given (its ``h`` default).

    Parameters
    ----------
    method : str
        One of ``steppers.simulate.METHODS``.

    Returns
    -------
    float
        The step, s.

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
    """Bytes the rows a run keeps will take.

    (n_steps / store_every + 2) rows of the history columns, q, u and the multipliers (and the
    reports when kept).

    Parameters
    ----------
    system : System
        The assembled model.
    n_steps : float
        Number of steps of the run.
    store_every : int
        Every k-th state is kept.
    keep_reports : bool
        Whether the StepReport of every kept state is kept too.

    Returns
    -------
    float
        The estimate, bytes.

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

    Parameters
    ----------
    system : System
        The assembled model.
    n_steps : float
        Number of steps of the run.
    store_every : int
        Every k-th state is kept.
    keep_reports : bool
        Whether the StepReport of every kept state is kept too.
    limit : float or None, optional
        Bytes; None (the default): $FE_CONTACT_MAX_MEMORY, else half of the physical memory.

    Returns
    -------
    float
        The bytes the kept rows will take.

    Raises
    ------
    LimitExceeded
        When they exceed the limit (``limits.LimitExceeded``, a ValueError; the message says
        how to raise the limit).

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
    """The stepper of ``method`` on ``system`` from (t0, q0, u0).

    Parameters
    ----------
    system : System
        The assembled model.
    t0 : float
        Start time, s.
    q0 : ndarray, shape (n,)
        Start coordinates (m, rad).
    u0 : ndarray, shape (n,)
        Start rates (m/s, rad/s).
    method : str
        One of ``steppers.simulate.METHODS``.
    h : float or None
        The step in s; None: the stepper's default (``default_step``).
    settings : mapping
        The stepper's own keyword arguments (e.g. ``rho_inf``, ``theta``).
    t_end : float or None, optional
        The run ends there, s (``Stepper.bound``: status "finished" on reaching it); None (the
        default): no end.

    Returns
    -------
    Stepper
        The stepper, at t0.

    Raises
    ------
    ValueError
        When ``method`` is not one of ``METHODS`` or a setting is out of range.

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
        from .genalpha import GeneralizedAlpha as Stepper

        settings = {"compiled": True, **settings}
    elif method == "moreau":
        from .moreau import MoreauJean as Stepper
    elif method == "event-driven":
        from .event_driven import EventDriven as Stepper
    else:
        raise ValueError(f"simulate: method = {method!r}; allowed: {METHODS}")
    if h is not None:
        settings = {**settings, "h": h}
    stepper = Stepper(system, t0, q0, u0, **settings)
    if t_end is not None:
        stepper.bound(t_end)
    return stepper


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
    """Integrate ``system`` from t_span[0] to t_span[1] from the state y0 = (q0, u0).

    A failure after the start (Newton divergence, a singular system, a contact solver that does
    not converge, an exception in an observer) does not raise: the result has status "failed",
    the message and every state computed so far. A start state that admits no motion (the
    inconsistent or indeterminate Painleve case, constraints that cannot be closed) gives a
    failed result with no rows; bad input (ValueError, TypeError) raises before any step.

    Parameters
    ----------
    system : System
        The assembled model.
    t_span : tuple of float, shape (2,)
        (t0, t_end) in s, t_end > t0.
    y0 : tuple of ndarray
        (q0, u0), each of shape (n,): coordinates (m, rad) and rates (m/s, rad/s), laid out as
        ``system.layout``.
    method : str, optional
        "generalized-alpha" (the default: partitioned, Sliding contacts, drives, loops),
        "moreau" (Moreau-Jean, Unilateral contacts) or "event-driven" (a tree with a rough
        pair, a Polyline on a Wheel: ``steppers.event_driven``), or "auto": chosen by the
        model's contacts (``choose_method``; the choice is logged at INFO on
        "fe_contact.simulate").
    h : float or None, optional
        The step in s; None (the default): the stepper's (the event-driven stepper's largest
        step).
    observers : sequence of callable, optional
        Callables ``observer(system, report, row)`` called with the initial state and after
        every step (``CsvObserver``, ``VtkObserver``, ``ProgressObserver`` in
        ``fe_contact.steppers.observers``); ``close()`` is called at the end if they have it.
    store_every : int, optional
        Keep every k-th state in the result (the first and last always); 1 by default.
    keep_reports : bool, optional
        Keep the StepReport of every stored state in ``result.reports``; False by default.
    threads : int or None, optional
        BLAS threads during the run, set through threadpoolctl for the run only; 1 by default
        (the matrices of a step are small, and several threads fighting over them cost more
        than they give); None leaves the process's setting alone.
    start_tol : float or None, optional
        The initial state must satisfy every bilateral constraint (sliding contacts, drives,
        loop closures) to this tolerance (m or rad) and reach every string support
        (``consistency.constraint_violations``), else ValueError naming each violated
        constraint and its residual, before any step; 1e-6 by default. None: no check; the
        stepper pulls the dependent coordinates onto the constraints in its first step, and
        each constraint violated by more than ``PROJECTION_LOGGED`` is logged (INFO,
        ``fe_contact.simulate``).
    max_steps : float or None, optional
        A run of more than (t_end - t0) / h steps is refused before any work
        (``limits.LimitExceeded`` with the count), and so is a step too small to advance t in
        floating point; None (the default): $FE_CONTACT_MAX_STEPS, else 1e8.
    max_memory : float or None, optional
        Bytes; a run whose stored rows (``result_memory``: every ``store_every``-th state, its
        history columns, the reports when kept) would exceed it is refused before any work;
        None (the default): $FE_CONTACT_MAX_MEMORY, else half of the physical memory.
    sensors : tuple of sensors or None, optional
        Sensors of this run (``fe_contact.sensors``), added to the model's own: their columns
        join the history (the CSV, ``result[name]``); checked as ``Model.sensors``.
    **settings : dict
        Passed to the stepper (e.g. ``rho_inf``, ``theta``, ``max_halvings``);
        ``compiled=False`` keeps the generalised-alpha step in Python (``steppers.compiled``).

    Returns
    -------
    SimulationResult
        The histories, with status "finished", "event" or "failed" and its message.

    Raises
    ------
    TypeError
        When ``y0`` is not a pair (q0, u0).
    ValueError
        For an argument out of range (named in the message), a start state that violates a
        constraint by more than ``start_tol``, or a run beyond ``max_steps`` or
        ``max_memory`` (``limits.LimitExceeded``).

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
    """The loop: steps (several in one call where the stepper offers it, ``Stepper.steps``)
    until the stepper's status leaves "running", each handed to the run's ``Recorder``."""
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
    rec = Recorder(system, stepper.initial_report(), observers, n_total, store_every, keep_reports)
    status, message = "finished", f"reached t = {t_end:g} s"
    try:
        while stepper.status == "running":
            left = stepper.steps_left()
            if left is not None and left > 1:  # quiet steps in one call (the last left to step)
                batch = stepper.steps(left - 1)
                if batch is not None and batch.n:
                    rec.add(batch)
                    if batch.stop == "done":
                        continue
            report = stepper.step()
            rec.add(report, last=stepper.status != "running")
    except StopRun as stop:  # a terminal event of a step or an observer: its report is kept
        status, message = "event", str(stop)
    except Exception as err:  # noqa: BLE001 - a failing run returns what it computed
        status = "failed"
        # the last completed step is the last report kept (a failing step may have committed
        # some of its sub-steps: the stepper's own t may lie past it)
        t_obs = rec.t_observer
        where = "" if t_obs is None else f" in an observer at t = {t_obs:.6g} s"
        message = (
            f"{type(err).__name__}: {err}{where} (last completed step at t = {rec.t_done:.6g} s)"
        )
    finally:
        rec.close()
    return rec.result(stepper, status, message, time.perf_counter() - wall0)


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
