"""The base of every stepper, after scipy's ``OdeSolver`` (scipy/integrate/_ivp/base.py).

A stepper is a step object: its ``__init__(system, t0, q0, u0, h, **settings)`` checks its input
(``check_start``), makes the initial state consistent and calls ``Stepper.__init__``; its
``_step_impl(h)`` advances by one step and returns the ``StepReport`` of the step's end.
``Stepper.step`` does what is common to all of them:

* ``status``: "running" until a step fails ("failed"), a terminal event ends the run
  (``StopRun``: "event") or t reaches ``t_bound`` ("finished"); a stepper that is not running
  refuses to step;
* ``t_old`` (the start of the last completed step, None before the first), ``report`` (the
  StepReport of the last completed step, None before the first), ``n_steps``;
* failure capture: the exception is kept as ``error`` and its text as ``message``, the state
  (t, q, u) of the last completed step is kept (each stepper restores its own further state),
  and the exception is raised on to the caller (``simulate`` turns it into the result's status).

A run to t_end (``bound``): a stepper of fixed steps (``fixed_steps``) takes
ceil((t_end - t0) / h) steps, the last shortened to end on t_end exactly; one whose steps vary
(the event-driven one) stops no step past t_end; then status "finished".

What a stepper may offer besides is declared here with its default: ``t_bound`` (None: steps
of h, the caller ends the run), ``events`` (located events, (t, contact, kind)), ``losses``
(``ProfileLosses``), ``n_rejected`` and ``n_retried`` (steps retried smaller), ``steps(n_max)``
(several steps in one call, a ``batch.StepBatch``; None: only ``step()``).
"""

from __future__ import annotations

import math

import numpy as np

from .. import validation as check
from ..rough import Polyline
from ..system import System
from ..workspace import Workspace
from .step_report import StepReport

STATUSES = ("running", "finished", "failed", "event")


class StopRun(RuntimeError):
    """A terminal event: the run ends cleanly with status "event" and this message (raised by a
    stepper's step or by an observer).

    Examples
    --------
    A mass sliding at 0.5 m/s (no gravity, no friction) from 0.01 m before the end of a beam
    leaves it at t = 0.01 / 0.5 = 0.02 s; the stepper stops the run there with status "event":

    >>> import numpy as np
    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, Sliding,
    ...                         TreeModel, assemble, simulate)
    >>> slider = TreeModel(bodies=(Body(1e-9, 1e-12), Body(0.02, 1e-9)),
    ...                    joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    ...                    gravity=(0.0, 0.0))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=slider, structures={"beam": strip}, gravity=(0.0, 0.0),
    ...                         contacts=(ContactPair("slider", Point(1), "beam", Sliding()),)))
    >>> result = simulate(system, (0.0, 0.05), system.initial_state([0.39, 0.0], [0.5, 0.0]), h=2e-3)
    >>> result.status, round(float(result.t[-1]), 6)
    ('event', 0.02)
    """


class SingularSystem(RuntimeError):
    """A linear system of a step is singular or ill-shaped (numpy's LinAlgError), also after
    the step's halvings; the message names the time.

    Examples
    --------
    >>> from fe_contact.steppers.base import SingularSystem
    >>> issubclass(SingularSystem, RuntimeError)
    True
    """


class StepTooLarge(RuntimeError):
    """A contact's closest point jumps off its structure from inside it within a step, also
    after the step's halvings: not a located event, but a step too large for the motion.

    Examples
    --------
    >>> from fe_contact.steppers.base import StepTooLarge
    >>> issubclass(StepTooLarge, RuntimeError)
    True
    """


def check_method(system: System, method: str) -> None:
    """Refuse a contact that ``method`` does not take, naming the contact.

    A rough pair (a Polyline on a Wheel) or Poisson's reversibility is taken by "event-driven"
    only.

    Parameters
    ----------
    system : System
        The assembled model.
    method : str
        The stepper's name.

    Raises
    ------
    ValueError
        Naming the contact and the stepper that takes it.

    Examples
    --------
    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> check_method(assemble(Model(tree=pendulum)), "moreau") is None
    True
    """
    if method == "event-driven" or not isinstance(system, System):
        return
    for c in system.model.contacts:
        if isinstance(c.profile, Polyline):
            check.fail(
                f"simulate.method (contact {c.name!r}: a Polyline on a Wheel)",
                method,
                "'event-driven'",
            )
        if c.law.steppers == {"event-driven"}:  # Poisson's law with reversibility
            check.fail(
                f"simulate.method (contact {c.name!r}: a law of the event-driven stepper only)",
                method,
                "'event-driven', or a law other steppers take (Poisson's with reversibility 0)",
            )


def check_start(system: System, h, q0, u0, method: str) -> tuple[float, np.ndarray, np.ndarray]:
    """The common input checks of a stepper; the offending entry is named.

    Parameters
    ----------
    system : System
        A System whose contacts ``method`` takes.
    h : float
        The step, s (finite, > 0).
    q0 : array_like, shape (n,)
        Start coordinates, finite.
    u0 : array_like, shape (n,)
        Start velocities, finite.
    method : str
        The stepper's name.

    Returns
    -------
    h : float
        The step, s.
    q0 : ndarray, shape (n,)
        A copy of the coordinates.
    u0 : ndarray, shape (n,)
        A copy of the velocities.

    Raises
    ------
    ValueError
        For a bad step, a start of the wrong shape or not finite, or a contact that ``method``
        does not take.
    TypeError
        When ``system`` is not a System.

    Examples
    --------
    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> check_start(system, 1e-3, [0.0, 1.0], [0.0], "generalized-alpha")
    Traceback (most recent call last):
    ...
    ValueError: q0: got length 2, shape (2,); allowed: a real array of shape (1,)
    """
    check.instance("system", system, System, "a System (assemble)")
    check_method(system, method)
    h = check.real("h", h, low=0.0, low_open=True, unit="s", meaning="a finite step")
    lay = system.layout
    q0 = check.finite_array("q0", q0, (lay.n,), lay.coordinate_name)
    u0 = check.finite_array("u0", u0, (lay.n,), lay.coordinate_name)
    return h, q0, u0


class Stepper:
    """Base of the steppers (module docstring).

    A subclass implements ``_step_impl(h)`` and ``initial_report()``.

    Parameters
    ----------
    system : System
        The assembled model.
    t0 : float
        Start time, s.
    h : float
        The step, s.

    Attributes
    ----------
    t : float
        Time of the present state, s.
    q : ndarray, shape (n,)
        Coordinates.
    u : ndarray, shape (n,)
        Velocities.
    status : str
        One of ``STATUSES``.
    message : str
        Why it stopped; "" while running.
    error : Exception or None
        The error that stopped it; None while running.
    t_old : float or None
        Time of the state before the last step, s.
    report : StepReport
        The report of the last step.
    n_steps : int
        Completed steps.
    n_newton : int
        Iterations (each stepper's meaning).
    n_substeps : int
        Sub-steps (each stepper's meaning).

    Examples
    --------
    A pendulum (1 kg at 0.5 m) released from horizontal, two steps of 1 ms, then a step whose
    h is refused (the status stays "running"):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> from fe_contact.steppers.genalpha import GeneralizedAlpha
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> stepper = GeneralizedAlpha(assemble(Model(tree=pendulum)), 0.0, [0.0], [0.0], h=1e-3)
    >>> for _ in range(2):
    ...     _ = stepper.step()
    >>> stepper.status, stepper.n_steps, round(stepper.t_old, 6), round(stepper.t, 6)
    ('running', 2, 0.001, 0.002)
    >>> stepper.step(-1e-3)
    Traceback (most recent call last):
    ...
    ValueError: GeneralizedAlpha.step.h: got -0.001; allowed: a finite step > 0 in s
    >>> stepper.status
    'running'
    """

    method = ""  # the name ``simulate`` knows the stepper by
    t_bound: float | None = None  # no step passes it; status "finished" on reaching it
    events: tuple | list = ()  # (t [s], contact name, kind) of the located events
    losses: tuple = ()  # ProfileLosses of rough pairs
    n_rejected = 0  # steps rejected and retried smaller
    fixed_steps = True  # steps of h (False: a stepper that chooses its steps, up to t_bound)

    def __init__(self, system: System, t0: float, h: float):
        self.system = system
        self.workspace = Workspace()  # this run's warm starts; the System stays constant
        self.t = float(t0)
        self.h = float(h)
        self.t_old = None
        self.report = None
        self.status = "running"
        self.message = ""
        self.error = None
        self.n_steps = self.n_newton = self.n_substeps = 0
        self._n_bound = None  # the step count that reaches t_bound (fixed steps)

    def bound(self, t_end: float) -> None:
        """Let the run end on t_end (s): ``t_bound``; with fixed steps the count of steps
        ceil((t_end - t) / h) from now (the last one shortened to end on t_end exactly)."""
        name = f"{type(self).__name__}.t_bound"
        self.t_bound = check.real(name, t_end, low=self.t, unit="s")
        if self.fixed_steps:
            steps = max(1, int(math.ceil((self.t_bound - self.t) / self.h - 1e-9)))
            self._n_bound = self.n_steps + steps

    def steps_left(self) -> int | None:
        """Steps of h to t_bound (``bound``), None without a count (no bound, or steps of
        the stepper's choosing)."""
        return None if self._n_bound is None else self._n_bound - self.n_steps

    @property
    def n_retried(self) -> int:
        """Steps retried smaller (halvings, rejected sub-steps) so far."""
        return int(self.n_rejected)

    def initial_report(self) -> StepReport:
        """The StepReport of the initial (consistent) state."""
        raise NotImplementedError

    def _step_impl(self, h: float | None) -> StepReport:
        """Advance by one step (h s, or the stepper's own when None) and return its report;
        raise on failure with the stepper's state restored to the step's start."""
        raise NotImplementedError

    def steps(self, n_max: int):
        """Up to n_max steps in one call (``batch.StepBatch``), or None: this stepper takes
        steps one ``step()`` at a time."""
        return None

    # how steps are taken: "python" (this stepper's own), or "compiled" where a stepper has
    # a compiled step (``GeneralizedAlpha``), with its counters
    step_path = "python"
    n_compiled = 0
    n_fallback = 0

    def step(self, h: float | None = None) -> StepReport:
        """Advance by one step (h s; default the stepper's) and return its StepReport.

        RuntimeError when the stepper is not running. A step that fails raises on with the
        status "failed" (``StopRun``: "event"), the exception in ``error`` and its text in
        ``message``; t, q and u stay those of the last completed step.
        """
        if self.status != "running":
            raise RuntimeError(
                f"{type(self).__name__}.step: the stepper is {self.status!r} "
                f"({self.message}); allowed: step() while the status is 'running'"
            )
        if h is not None:
            name = f"{type(self).__name__}.step.h"
            h = check.real(name, h, low=0.0, low_open=True, unit="s", meaning="a finite step")
        elif self._n_bound is not None and self.n_steps + 1 >= self._n_bound:
            # t_end - t is exact for t_end / 2 <= t <= t_end (Sterbenz), so that t + h ==
            # t_end in floating point: the run ends on t_end, not an ulp off
            h = self.t_bound - self.t
        t, q, u = self.t, self.q, self.u
        try:
            report = self._step_impl(h)
        except Exception as err:
            self.status = "event" if isinstance(err, StopRun) else "failed"
            self.error, self.message = err, str(err)
            self.t, self.q, self.u = t, q, u
            raise
        self.t_old = t
        self.n_steps += 1
        self.report = report
        if self.n_steps == self._n_bound or (
            self._n_bound is None and self.t_bound is not None and self.t >= self.t_bound
        ):
            self.status = "finished"
            self.message = f"reached t_bound = {self.t_bound:g} s"
        return report


__all__ = [
    "STATUSES",
    "SingularSystem",
    "StepTooLarge",
    "Stepper",
    "StopRun",
    "check_method",
    "check_start",
]
