"""Generalised-alpha integration of the partitioned equations, for stiff structures.

The unknowns of a step are the accelerations z of the independent coordinates (the tree's
independent joints and all structure DOFs). Their positions and velocities follow the
generalised-alpha update (Chung-Hulbert, in the Arnold-Bruls form) with spectral radius
``rho_inf`` at infinite frequency; the dependent tree coordinates are recovered from the
constraints at every iterate, so nothing drifts. The residual is the reduced equations
(Lipinski (002), eqs. 78a-b) at the end of the step, ``T_Sigma^T (M q'' + F) = 0``, solved by
Newton's method with the matrix ``T_Sigma^T (M + gamma' C + beta' K) T`` applied through the
bordered system

    [[G_t, -J_Sigma,t^T], [G_f, -J_Sigma,f^T], [J_t, J_f, 0]],   G_f = M_f + gamma' C_f + beta' K_f

G_f is factorised once per step size when every structure is linear (sparse LU, banded: the
cost of a step grows linearly with the number of elements) and at every iterate with the
tangent stiffness when a string is present (``partitioned_step.StepAlgebra`` holds these
solves). Multipliers come from 002 eq. (76). The step is
fixed (``h``); 1e-4 s resolves the first beam modes of the papers' examples (omega h < 0.1)
while the numerical damping removes the unresolved highest ones (omega ~ 1e5 rad/s).

Contacts: ``Sliding`` pairs (bilateral, Coulomb friction with kinetic mu and static mu_s).
Each is in a state, slip (with its direction) or stick (an added tangential row); the switches
between them are located in time inside the step and the step is completed from there
(``contact_states``). A contact leaving its structure, or a normal force turning negative (the
bilateral contact would separate), ends the run; everything up to the last step is kept.

This module is the stepper: its state, the sub-step loop and the switches of the contact modes
at the events it meets. What these use is written elsewhere, on explicit arguments: the
Newton iteration of a step from the committed ``StepState`` (``newton``), the step's linear
algebra and Newton test (``partitioned_step``), the modes and their indicators
(``contact_states``), the time of an event and the sub-step controls (``event_location``),
the velocity jumps of an impact or a stopped slip (``impulses``), the contacts' reports and
the power terms (``mode_reports``).
"""

from __future__ import annotations

import logging

import numpy as np

from .. import validation as check
from ..coupling.constraints import evaluate_state
from ..coupling.kinematics import ContactLeftStructure
from ..coupling.partition import (
    ConstraintError,
    Partition,
    recover_dependent,
)
from ..system import System, energies
from .alpha import alpha_parameters
from .background_compile import pending_kernels
from .base import SingularSystem, Stepper, StepTooLarge, StopRun, check_start
from .compiled import CompiledStep
from .compiled_consistent import ConsistentCompiledStep
from .compiled_scope import consistent_unsupported, unsupported
from .contact_states import ContactModes, anchor_at
from .energy_consistent import averaged_forces
from .event_location import (
    STEP_GROWTH,
    error_control,
    illinois,
    last_success,
    slides_off_end,
    substep_limit,
)
from .impulses import impact_jump, stop_slip_jump
from .mode_reports import contact_reports, power_terms
from .newton import NewtonContext, NewtonDivergence, newton_step
from .partitioned_step import StepAlgebra, choose_partition
from .step_report import StepReport
from .step_state import ContactMode, StepState


class GeneralizedAlpha(Stepper):
    """Step object: ``step()`` advances by h and returns a StepReport; ``t``, ``q``, ``u``,
    ``acceleration``, ``multipliers``; counters ``n_steps``, ``n_newton``, ``n_substeps``
    (steps including the halves of retried steps), ``n_halved``, ``n_factorizations``.

    h : step, s. rho_inf : spectral radius at infinite frequency. tol : Newton tolerance on
    the position correction, m (or rad). rtol : relative Newton tolerance on the acceleration
    correction, the residual of the reduced equations and the change of the multipliers
    between iterates, against the size of the forces (``partitioned_step.newton_converged``); the default 1e-10
    keeps the iteration error below the discretisation error down to steps where that is 1e-10
    (a three-link chain: 9e-9 rad at h = 4e-5 s, in order 2). max_newton : iterations per step. max_halvings : a
    step whose Newton iteration fails is retried as two halves, recursively this deep.
    recondition : the dependent coordinates are chosen anew when cond(J_u) grows by this factor.
    event_tol : a contact event (stick, breakaway, reversal) is located to this time, s.
    max_events : more events than this within one step stop the run (chattering). ``events``
    lists (t, contact, kind) of every event. gap_tol : at the start a unilateral contact with
    |gap| <= gap_tol (m) and no normal velocity is closed (resting); a larger penetration is an
    error. min_substep : the smallest sub-step (s) of the step-size control that contacts with
    the continuous friction law (``Sliding.v0``) ask for while |v_t| < 3 v0 (Bauchau (000),
    sec. 6): the step is then taken in sub-steps that change v_t by about v0 / 10.
    energy_consistent : only with rho_inf = 1 (the trapezoidal rule): the structures' internal
    force enters each step as the discrete gradient f_avg(q_n, q_n+1) of their strain energy
    (``Structure.averaged_internal_force``, ``elements.string_energy``) in place of the
    trapezoidal average of f_int(q_n) and f_int(q_n+1), so that its work over the step is
    exactly V(q_n+1) - V(q_n) (linear structures: unchanged, already exact), the force laws'
    (Compliant contacts, droppers) elastic force likewise (``ForceLaws``), and the sliding
    contacts' friction work, the dampers' and the drives' work are booked as the work the step
    lets them do, e.g. (F_n + F_n+1) / 2 . (q_n+1 - q_n); with constraint rows these are written in discrete-gradient form (every
    coordinate on the trapezoidal rule, the rows closed at position level, their force
    G_Sigma^T Lambda with G dq = phi_n+1 - phi_n; friction booked as its work on the discrete
    slip), so that the balance closes to round-off on a tree of constant mass
    (``steppers.energy_consistent``). Both sides of a contact then receive the same impulse
    (a dependent coordinate no longer takes its velocity from J u + phi_t = 0 alone), and a
    closed contact's reported normal force is the step's normal impulse over h (h Lambda of
    each sub-step, the projections' impulses, impacts); a unilateral one opens where the
    sub-step's mean normal force Lambda reaches zero.
    error_tol : None (fixed steps h), or a local error bound (m, rad) per sub-step: each step h
    (the output interval) is then taken in sub-steps chosen by an error estimate (``_control``),
    large where the motion is smooth, small near events; ``n_rejected`` counts the retries.
    compiled : the step taken in one compiled call (``compiled.CompiledStep``) where the system
    is one it takes (``compiled.unsupported``), with energy-consistent forces
    (``compiled_consistent.ConsistentCompiledStep``) where that form's kernel takes it
    (``compiled_scope.consistent_unsupported``), the Python step where that hands a step back; ``simulate`` asks for it unless told not to.
    ``step_path`` is then "compiled" and ``n_compiled``, ``n_fallback`` count the sub-steps
    taken compiled and those handed back. batch : with the compiled step, quiet steps are
    taken several in one compiled call (``steps``).
    """

    method = "generalized-alpha"

    def __init__(
        self,
        system: System,
        t0: float,
        q0,
        u0,
        h: float = 1e-4,
        rho_inf: float = 0.9,
        tol: float = 1e-12,
        rtol: float = 1e-10,
        max_newton: int = 12,
        max_halvings: int = 3,
        recondition: float = 100.0,
        event_tol: float = 1e-10,
        max_events: int = 20,
        gap_tol: float = 1e-9,
        min_substep: float = 1e-9,
        error_tol: float | None = None,
        energy_consistent: bool = False,
        compiled: bool = False,
        batch: bool = True,
    ):
        h, q0, u0 = check_start(system, h, q0, u0, self.method)
        grid = [c.name for c in system.model.contacts if c.search == "grid"]
        if grid:
            raise ValueError(
                f"contacts {grid} use the candidate grid, which the generalised-alpha stepper "
                "does not take; allowed: search='closest', or method='moreau'"
            )
        Stepper.__init__(self, system, t0, h)
        self._h_step = self.h  # size of the step being reported
        self.params = alpha_parameters(rho_inf)
        self.averaged = averaged_forces(system, rho_inf, energy_consistent)
        self.tol = check.real("tol", tol, low=0.0, low_open=True, unit="m")
        self.rtol = check.real("rtol", rtol, low=0.0, low_open=True, high=1e-2)
        self.max_newton = check.positive_int("max_newton", max_newton)
        self.max_halvings = check.integer("max_halvings", max_halvings, low=0)
        self.event_tol = check.real("event_tol", event_tol, low=0.0, low_open=True, unit="s")
        self.max_events = check.positive_int("max_events", max_events)
        self.recondition = check.real("recondition", recondition, low=1.0)
        self.n_halved = 0
        self._newton0 = self._substeps0 = 0  # counters at the start of the current step
        for name, value in (("compiled", compiled), ("batch", batch)):
            if not isinstance(value, bool):
                raise TypeError(f"simulate: {name} = {value!r}; allowed: True or False")
        self.compiled_step = None  # the compiled step, where it applies
        # the kernels compiling in a background process meanwhile (``background_compile``)
        self._pending = None
        if compiled and not energy_consistent and unsupported(system) is None:
            self._pending = pending_kernels()
            if self._pending is None:
                self.compiled_step = CompiledStep(system, batch)
            else:
                self._batch = batch
        elif compiled and energy_consistent and consistent_unsupported(system) is None:
            self.compiled_step = ConsistentCompiledStep(system)  # one step per call
        self.algebra = self._make_algebra(system)
        model = system.model
        self.modes = ContactModes(system)  # the contacts' modes and their rows
        if self.averaged.contacts:
            self.averaged.normal_impulse = np.zeros(self.modes.n_rows)
        self._mu = np.array([model.contacts[k].mu for k in self.modes.sliding])
        laws = [model.contacts[k].law for k in self.modes.sliding]
        self._mu_s = np.array([law.static_coefficient for law in laws], dtype=float)
        v0 = [law.characteristic_velocity for law in laws]
        self._v0 = np.array([np.nan if v is None else v for v in v0])
        self.min_substep = check.real("min_substep", min_substep, low=0.0, low_open=True, unit="s")
        if error_tol is not None:
            error_tol = check.real("error_tol", error_tol, low=0.0, low_open=True, unit="m")
        self.error_tol = error_tol
        self._dt_next = self.h
        self._cap = None  # the largest next sub-step while they grow after an event
        self.n_rejected = 0
        self._v_last, self._dt_last = None, 0.0  # slip velocities and size of the last sub-step
        self._impact_loss = self._impact_work = 0.0  # impacts' loss, drives' impulse work
        self._numerical = 0.0  # the scheme's own loss in the step (``numerical_dissipation``)
        self._at_start = None  # (time, contact) of the last switch located at a sub-step's start
        self.gap_tol = check.real("gap_tol", gap_tol, low=0.0, unit="m")
        self.events = []  # (t, contact name, kind) of every located contact event
        self.t = float(t0)
        rows = self._rows()
        ev = evaluate_state(system, q0, u0, self.t, constraints_only=True, **rows)
        self._s = np.array([np.nan if c is None else c.parameter for c in ev.contacts])
        approaching = self.modes.start(ev.contacts, self.gap_tol)  # those that hit at t0
        self.q, self.u = np.asarray(q0, dtype=float), np.asarray(u0, dtype=float)
        self.pseudo = None  # the algorithmic accelerations: consistent ones at the first restart
        self._restart(start=(ev, rows))
        self._open_pulled(count=False)  # a resting contact that is pulled away opens
        for i in approaching:
            self._impact(i)
        for i in range(self.modes.n_rows):
            rest = self.modes.mode[i] == ContactMode.REST
            if rest and self.modes.law(i).sticks:
                self._try_stick(i, count=False)  # at rest: sticks if the friction cone holds

    def _make_algebra(self, system: System) -> StepAlgebra:
        """The solves of this stepper's steps (``StepAlgebra``; with the compiled step, its
        Painleve margin formed compiled)."""
        if self.compiled_step is not None:
            return self.compiled_step.algebra(system, self.params)
        return StepAlgebra(system, self.params)

    @property
    def step_path(self) -> str:
        """ "compiled" when steps are taken compiled where they can be, else "python"."""
        return "python" if self.compiled_step is None else "compiled"

    @property
    def n_compiled(self) -> int:
        """Sub-steps taken by the compiled step so far."""
        return 0 if self.compiled_step is None else self.compiled_step.n_compiled

    @property
    def n_fallback(self) -> int:
        """Sub-steps the compiled step handed back to the Python step so far."""
        return 0 if self.compiled_step is None else self.compiled_step.n_fallback

    @property
    def n_retried(self) -> int:
        """Steps retried as two halves so far (``n_halved``)."""
        return self.n_halved

    @property
    def n_factorizations(self) -> int:
        """Sparse LU factorisations of the structures' block so far."""
        return self.algebra.n_factorizations

    @property
    def friction_coefficients(self) -> np.ndarray:
        """(n_rows,) the kinetic friction coefficient mu of each contact with rows, in the
        order of ``modes.sliding`` (a copy)."""
        return self._mu.copy()

    @property
    def static_coefficients(self) -> np.ndarray:
        """(n_rows,) the static friction coefficient mu_s of each contact with rows (a copy)."""
        return self._mu_s.copy()

    @property
    def characteristic_velocities(self) -> np.ndarray:
        """(n_rows,) v0 (m/s) of the continuous friction law of each contact with rows, nan
        where its law has none (Coulomb's) (a copy)."""
        return self._v0.copy()

    @property
    def substep_cap(self) -> float | None:
        """The largest next sub-step (s) while the sub-steps grow back to h after a located
        event (``event_location.STEP_GROWTH``), None when they are not held back."""
        return self._cap

    def _restart(self, start=None):
        """Choose the partition for the present rows, recover the dependent coordinates and
        velocities and start the integrator from the consistent accelerations and multipliers
        (at the start and after every change of a contact state).

        start : (Evaluation, rows) of ``evaluate_state(system, q, u, t, constraints_only=True,
            **rows)`` at the present state (no warm start), or None; the partition is chosen
            on it when it evaluates what this restart would (``_same_evaluation``).

        The evaluation the partition is chosen on (no warm start, as ``recover_dependent``
        evaluates) is the first iterate of the recovery of the dependent coordinates: the
        same state and rows, evaluated once.
        """
        system = self.system
        rows = self._rows()
        if start is not None and self._same_evaluation(start[1], rows):
            ev = start[0]
        else:
            ev = evaluate_state(system, self.q, self.u, self.t, constraints_only=True, **rows)
        self.part = self._choose(ev)
        u_before = self.u
        self.q, self.u = recover_dependent(
            system, self.part, self.q, self.u, self.t, rows=rows, evaluation=ev
        )
        if self.averaged.contacts and self.pseudo is not None:  # not at the start
            # keep the velocities but for their part across the new rows (an impulse):
            # recovered from J u = 0 the kinetic energy would change at first order in it
            ev = self._evaluate(self.q, u_before, self.t, self.modes.slip_sign)
            self.u, loss, impulse = self.averaged.project(ev, self.algebra.mass_solve)
            self._numerical += loss
            self._book_impulse(impulse)
        ev = self._evaluate(self.q, self.u, self.t, self.modes.slip_sign)
        self.acceleration, self.multipliers = self.algebra.accelerations(ev, self.part)
        self.evaluation = ev
        # The algorithmic accelerations of the structures run on through a restart, as through
        # any step: set to the consistent accelerations, a stiff mode (omega h >> 1) overshoots
        # in the next step by a factor ~ (omega h)^2 / 4 in energy (a mass landing on a
        # near-rigid cantilever gained 15 J from 0.0125 J that way); the tree's are reset.
        previous = self.pseudo
        self.pseudo = self.acceleration.copy()
        self.averaged.restart(ev, self.acceleration)
        if previous is not None:
            flexible = self.system.layout.flexible
            self.pseudo[flexible] = previous[flexible]
        self._previous = None  # (accelerations, step) of the step before, for the predictor
        branch = self.algebra.check_painleve(ev, self._mu, self.modes.closed_rows())
        self._powers = self._power_terms(ev, self.multipliers)
        if self.averaged.active:
            self.averaged.friction_start(ev.q, *self.modes.sliding_friction(ev, self.multipliers))
            self.averaged.work_start()
        if branch is not None:
            self._lift_off(branch)

    # -- evaluation and partition -----------------------------------------------------------
    def _same_evaluation(self, then: dict, now: dict) -> bool:
        """Does ``evaluate_state`` with the keywords ``now`` evaluate what it did with ``then``
        at the same (q, u, t)? Yes when they name the same rows (the same objects, or tuples of
        the same flags and anchors) and the run's warm starts are still empty: a contact search
        that read one (a Compliant contact's, a curved profile's) could land elsewhere in the
        last digits after the searches between the two evaluations wrote them."""
        ws = self.workspace
        if ws.contact_parameters or ws.profile_parameters or then.keys() != now.keys():
            return False
        for key, a in then.items():
            b = now[key]
            if a is b:
                continue
            if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)):
                return False
            if not all(x is y for x, y in zip(a, b, strict=True)):
                return False
        return True

    def _rows(self) -> dict:
        """Keywords of ``evaluate_state`` for the present contact modes; the committed
        state's evaluation is the base of the rolling rows' position values."""
        return self.modes.rows(getattr(self, "evaluation", None), self.workspace)

    def _evaluate(self, q, u, t, slip_sign):
        return evaluate_state(
            self.system, q, u, t, slip_sign=slip_sign, s_guess=self._s, **self._rows()
        )

    def _choose(self, ev) -> Partition:
        """The partition of the rows of ev (``partitioned_step.choose_partition``); keeps its
        cond(J_u)."""
        part, self._cond0 = choose_partition(self.system, ev)
        return part

    # -- stepping ---------------------------------------------------------------------------
    def _newton_step(self, h: float, halving: bool = False):
        """One step of size h from the committed state (the compiled step where it takes it,
        else ``newton.newton_step``); commits it. Raises NewtonDivergence (with ``halving``,
        a halving left, also straight from the compiled step: the Python step is not tried)."""
        if self.compiled_step is not None:
            try:
                taken = self.compiled_step.step(self, h, halving)
            except NewtonDivergence:
                self.n_newton += self.max_newton  # as the Python step counts its iterations
                raise
            if taken is not None:
                state, n_newton, cond = taken
                self.n_newton += n_newton
                self.n_substeps += 1
                self.restore(state)
                if cond > self.recondition * max(state.cond0, 1.0):
                    self.part = self._choose(self.evaluation)
                return self.evaluation
        context = NewtonContext(
            self.system,
            self.params,
            self.algebra,
            self.modes,
            self.averaged,
            self.workspace,
            self.tol,
            self.rtol,
            self.max_newton,
            self.recondition,
        )
        step = newton_step(context, self.save(), h, self._count_iterate)
        self.restore(step.state)
        self.n_substeps += 1
        return self.evaluation

    def _count_iterate(self) -> None:
        self.n_newton += 1

    def _advance(self, h: float, depth: int, leaving: bool = True):
        """A step of h; on NewtonDivergence, a singular linear system, constraints that do
        not close or (``leaving``) a contact leaving its structure, two steps of h/2,
        recursively ``depth`` deep (``n_halved`` counts them)."""
        try:
            return self._newton_step(h, depth > 0)
        except (
            NewtonDivergence,
            np.linalg.LinAlgError,
            ConstraintError,
            ContactLeftStructure,
        ) as err:
            left = isinstance(err, ContactLeftStructure)
            if depth <= 0 or left and (not leaving or h <= self.event_tol):
                if left:  # located and judged by the caller (``_leaving``)
                    raise
                self.algebra.check_painleve_near(
                    self.evaluation, self._mu, err, self.modes.closed_rows()
                )
                if isinstance(err, np.linalg.LinAlgError):
                    raise SingularSystem(
                        f"a linear system of the step from t = {self.t:.6g} s by {h:.3g} s is "
                        f"singular ({err}), also after {self.max_halvings} halvings"
                    ) from err
                raise
        self.n_halved += 1
        t_end = self.t + h
        self._advance(0.5 * h, depth - 1, leaving)
        return self._advance(t_end - self.t, depth - 1, leaving)  # ends on t + h exactly

    def _step_impl(self, h: float | None) -> StepReport:
        """Advance by h (default: the stepper's h; ``simulate`` shortens the last step so that
        it ends on t_end). A change of contact state inside the step (a slip velocity reaching
        zero, a sticking friction force leaving the static cone) is located in time to
        ``event_tol`` by re-taking the step with the Illinois method on its indicator, the
        state is switched there and the step is completed from the switch. Raises StopRun at a
        terminal event, other errors on failure (``Stepper.step``)."""
        h = self.h if h is None else h
        self._h_step = h
        t_end = self.t + h
        self._newton0, self._substeps0 = self.n_newton, self.n_substeps
        saved = self.save()
        if self.averaged.contacts:  # the contacts' impulse over this step, booked as it goes
            self.averaged.normal_impulse = np.zeros(self.modes.n_rows)
        work = dict.fromkeys(self._powers, 0.0)
        self._impact_loss = self._impact_work = self._numerical = 0.0
        try:
            events = 0
            while events <= self.max_events:
                start = self.save()
                dt = min(t_end - self.t, self._substep_limit(self._dt_last, self._v_last))
                if self.error_tol is not None:
                    dt = min(dt, self._dt_next)
                if self._cap is not None:
                    dt = min(dt, self._cap)
                v_before = self._slip_velocities()
                try:
                    ev = self._advance(dt, self.max_halvings)
                except ContactLeftStructure as err:
                    i = self._leaving(err, start, t_end - start.t)
                    ev = self._leave(start, i, t_end - start.t)
                    self._close_substep(work, start.t, ev)
                    self._switch(i, "leave")
                    continue
                if self.error_tol is not None and not self._control(start, dt):
                    continue  # rejected: retried with the smaller sub-step
                event = self.modes.first_event(start, self.evaluation, self.multipliers)
                if event is None:
                    self._close_substep(work, start.t, ev)
                    self._v_last, self._dt_last = v_before, dt
                    if self._cap is not None:
                        grown = STEP_GROWTH * self._cap
                        self._cap = grown if grown < self.h else None
                    if t_end - self.t <= 1e-12 * h:
                        break
                    continue
                events += 1
                i, kind = event
                ev = self._locate(start, i, kind, dt)
                self._close_substep(work, start.t, ev)
                self._switch(i, kind)
                self._v_last, self._dt_last = None, 0.0
                self._cap = STEP_GROWTH * max(self.t - start.t, self.event_tol)
                if t_end - self.t <= 1e-12 * h:
                    break
            else:
                raise RuntimeError(
                    f"more than {self.max_events} contact events in the step ending at "
                    f"t = {t_end:.6g} s (chattering between stick and slip); try a smaller h"
                )
        except ContactLeftStructure as err:  # left in a located sub-step: not located itself
            self.restore(saved)
            raise StepTooLarge(f"{err} in the step ending at t = {t_end:.6g} s") from None
        except StopRun:  # a located contact leaving: the run ends at the step's start
            self.restore(saved)
            raise
        except Exception as err:  # the step fails whole: its sub-steps are undone
            self.restore(saved)
            if isinstance(err, np.linalg.LinAlgError):  # a switch's restart (a new partition)
                raise SingularSystem(f"{err} in the step ending at t = {t_end:.6g} s") from err
            raise
        lam = self.multipliers
        for i, k in enumerate(self.modes.sliding[: self.modes.n_bilateral]):
            if lam[i] < 0.0:
                name = self.system.model.contacts[k].name
                self.restore(saved)
                raise StopRun(
                    f"normal force of contact {name!r} turned negative ({lam[i]:.4g} N) near "
                    f"t = {t_end:.6g} s: the bilateral sliding contact would separate"
                )
        branch = self.algebra.check_painleve(self.evaluation, self._mu, self.modes.closed_rows())
        if branch is not None:
            self._lift_off(branch)
        work["dissipated_impact"] = self._impact_loss
        work["dissipated_numerical"] = self._numerical
        work["work_contact_timing"] = 0.0  # impulses at instants, not over a step: none
        work["work_drives"] = work.get("work_drives", 0.0) + self._impact_work
        return self._report(self.evaluation, work)

    # -- contact states ---------------------------------------------------------------------
    def _control(self, start, dt: float) -> bool:
        """Error control of a sub-step of dt just taken from ``start``
        (``event_location.error_control``): above ``error_tol`` the sub-step is undone and
        False returned, the next try smaller; accepted, the next sub-step may grow."""
        change = np.max(np.abs(self.acceleration - start.acceleration), initial=0.0)
        accepted, self._dt_next = error_control(
            change, dt, self.params.beta, self.error_tol, self.min_substep
        )
        if not accepted:
            self.restore(start)
            self.n_rejected += 1
        return accepted

    def _slip_velocities(self):
        if np.all(np.isnan(self._v0)):
            return None
        return [np.nan if c is None else c.slip_velocity for c in self.evaluation.contacts]

    def _locate(self, start, i: int, kind: str, span: float):
        """Re-take the step from ``start`` to the time where indicator i reaches zero
        (``event_location.illinois``, to ``event_tol`` in time); ends just past the switch."""
        f_lo = max(self.modes.indicator(i, kind, start.evaluation, start.multipliers), 0.0)
        if kind == "roll" and f_lo == 0.0:  # already slow enough at the start: roll from there
            self.restore(start)
            return self.evaluation
        if kind in ("stop", "slip", "open") and f_lo == 0.0 and self._at_start != (start.t, i):
            # the state no longer holds at the start (a contact that leaves an impact or a
            # switch slipping at v_t = 0 and at once slips back): switch there. Taken to the
            # end of the sub-step instead, it slipped the wrong way under friction that pushed
            # (a disk rattling on a sagging beam: -4.9e-5 J of friction work in one sub-step).
            # Once per contact and time: a second such switch at the same start takes the
            # sub-step (it cannot loop).
            self._at_start = (start.t, i)
            self.restore(start)
            return self.evaluation
        f_hi = self.modes.indicator(i, kind, self.evaluation, self.multipliers)

        def retake(dt):
            self.restore(start)
            ev = self._advance(dt, self.max_halvings)
            return self.modes.indicator(i, kind, ev, self.multipliers)

        hi = illinois(retake, f_lo, f_hi, span, self.event_tol)
        if kind == "open" and self.averaged.contacts:
            # energy-consistent: the indicator is the sub-step's mean normal force Lambda, whose
            # zero at hi is where the force itself (linear in time to first order) has been
            # negative for the second half: it reaches zero at hi / 2, where the contact opens.
            # At hi a particle leaving a circular hump (h = 1 ms) opened 0.42 ms late
            hi = 0.5 * hi
        if self.t != start.t + hi:
            self.restore(start)
            self._advance(hi, self.max_halvings)
        return self.evaluation

    def _leaving(self, err, start, span: float) -> int:
        """The contact that left its structure in the sub-step from ``start`` (span s, taken
        with its halvings), when it is a unilateral one (which then opens). A bilateral
        contact ends the run: ``_left_end`` locates it and raises."""
        if err.pair is None or err.pair not in self.modes.unilateral:
            self._left_end(err, start, span)
        return self.modes.sliding.index(err.pair)

    def _left_end(self, err, start, span: float) -> None:
        """A bilateral contact's closest point left its structure within the sub-step from
        ``start`` (span s) and its halvings. The last time at which it is still on the
        structure is located by bisection to ``event_tol`` and committed; the contact is there
        at an end of its structure (within 1e-6 of its length plus ten times what it slides in
        event_tol) when it truly slides off: StopRun, with the located time. Otherwise its
        closest point jumped off from inside the structure (a step too large for the motion,
        the trolley of ``examples/slider_on_string.toml`` at h = 0.05 s: s = -0.44 m from
        s = 0.2 m): StepTooLarge."""
        pair = self.system.model.contacts[err.pair] if err.pair is not None else None
        if pair is None or err.pair not in self.modes.sliding or not isinstance(pair.target, str):
            raise StepTooLarge(f"{err}, and the time it left could not be located") from err
        i = self.modes.sliding.index(err.pair)
        ev = self._leave(start, i, span)
        c = ev.contacts[i]
        length = self.system.structures[pair.target].length
        if slides_off_end(c.parameter, c.parameter_rate, length, self.event_tol):
            raise StopRun(
                f"{err} at t = {self.t:.9g} s (located to {self.event_tol:g} s: the contact is "
                f"at s = {c.parameter:.6g} m, an end of {pair.target!r})"
            )
        raise StepTooLarge(
            f"{err} in the step from t = {start.t:.6g} s, also after {self.max_halvings} "
            f"halvings, from inside the structure (s = {c.parameter:.6g} m at t = "
            f"{self.t:.9g} s, the last time it is found on it): the step is too large for the "
            "motion; allowed: a smaller h or more max_halvings"
        )

    def _leave(self, start, i: int, span: float):
        """Bisection of the step from ``start`` to the last time, within ``event_tol``, at
        which closed contact i is still on its structure (``event_location.last_success``);
        commits there."""

        def attempt(dt) -> bool:
            self.restore(start)
            try:
                self._advance(dt, self.max_halvings, leaving=False)
            except ContactLeftStructure:
                return False
            return True

        lo = last_success(attempt, span, self.event_tol)
        self.restore(start)
        if lo > 0.0:
            self._advance(lo, self.max_halvings, leaving=False)
        return self.evaluation

    def _substep_limit(self, dt_last: float, v_last) -> float:
        """The continuous friction law's bound on the next sub-step
        (``event_location.substep_limit``) after the last one (dt_last, the slip velocities
        v_last at its start)."""
        closed = self.modes.mode != ContactMode.OPEN
        return substep_limit(
            self.evaluation.contacts, closed, self._v0, v_last, dt_last, self.min_substep
        )

    def steps(self, n_max: int):
        """Up to n_max full steps of h taken in one compiled call and committed, each counted
        as ``step()`` counts it (``compiled.CompiledStep.steps``): a ``batch.StepBatch`` of
        what they report (0 steps when the next one needs ``step()``), or None without the
        compiled step or when the state or settings need ``step()``."""
        if self._pending is not None and self._pending.ready():
            self._go_compiled()
        if self.compiled_step is None:
            return None
        taken = self.compiled_step.steps(self, n_max)
        if taken is None:
            return None
        batch, state, t_last = taken
        if batch.n == 0:
            return batch
        self.n_steps += batch.n
        self.n_newton += int(batch.n_newton.sum())
        self.n_substeps += batch.n
        self.restore(state)
        self._record_quiet_step(
            t_last, batch.h, int(batch.n_newton[-1]), batch.energies(batch.n - 1)
        )
        self.t_old, self.report = t_last, batch.report(batch.n - 1)  # as ``Stepper.step`` keeps
        return batch

    def _go_compiled(self) -> None:
        """The kernels the background process compiled are in the cache: the next steps are
        taken compiled (``background_compile``), with the compiled step's algebra."""
        self._pending = None
        self.compiled_step = CompiledStep(self.system, self._batch)
        algebra = self._make_algebra(self.system)
        algebra.n_factorizations = self.algebra.n_factorizations
        self.algebra = algebra
        logging.getLogger("fe_contact.kernels").info(
            "the numba kernels are compiled: the run goes on on the compiled step at t = %.6g s",
            self.t,
        )

    def _record_quiet_step(self, t_start: float, h: float, n_newton: int, energy) -> None:
        """Keep the bookkeeping of a step of h from t_start to the present state that was
        taken and committed (``restore``) without ``_step_impl``: one sub-step, no event, no
        impact, no restart, as ``_step_impl`` leaves it after such a step. The compiled batch
        (``steppers.compiled``) gives it the step's Newton iterations n_newton (already added
        to ``n_newton``, as its sub-step to ``n_substeps``) and the energies at its end
        (``system.Energies``, booked by the kernels). Kept here: the step size the report
        gives, the counters at the step's start, the energies, and the last sub-step's size
        with no slip velocities at its start (the continuous friction law's sub-step limit,
        ``_substep_limit``: a batch runs only without that law)."""
        self._h_step = h
        self._newton0, self._substeps0 = self.n_newton - n_newton, self.n_substeps - 1
        self._energy = energy
        self._v_last, self._dt_last = None, (t_start + h) - t_start

    def _close_substep(self, work: dict, t_start: float, ev) -> None:
        """Add the work of the sub-step from t_start to the state ev (trapezoidal rule)."""
        powers = self._power_terms(ev, self.multipliers)
        dt = self.t - t_start
        for key in powers:
            work[key] += 0.5 * dt * (self._powers[key] + powers[key])
        if self.averaged.active:  # the contacts', force laws' and drives' work as done
            friction = self.modes.sliding_friction(ev, self.multipliers)
            work["dissipated_friction"] += self.averaged.friction_work(ev.q, *friction, dt)
            for key, value in self.averaged.work_corrections(self._powers, powers, dt).items():
                work[key] += value
        self._powers = powers

    def _switch(self, i: int, kind: str) -> None:
        """Change the state of contact i at the present time: ``stop`` (its slip velocity
        reached zero: stick if the static cone holds it, else slip the other way), ``slip``
        (its static friction force left the cone), ``open`` (its normal force reached zero),
        ``close`` (its gap reached zero: an impact), ``leave`` (it left its structure's end:
        it opens, and may come back)."""
        if kind in ("roll", "release"):
            self._switch_rolling(i, kind)
        elif kind == "stop":
            self._try_stick(i, count=True)
        elif kind == "slip":
            lam_t = self.multipliers[self.modes.stick_row(i)]
            self.modes.slip(i, -np.sign(lam_t))
            self._log(i, "slip")
            self._restart()
        elif kind in ("open", "leave"):
            self.modes.open(i)
            self._log(i, kind)
            self._restart()
        else:
            self._impact(i)
        self._open_pulled(count=True)

    def _open_pulled(self, count: bool) -> None:
        """Open every closed unilateral contact whose normal multiplier is negative at the
        present state (pulled, not pressed), and restart. A switch of another contact (a
        landing that does not bounce, a stick or slip) can leave one so; kept closed, it
        held the bodies together and its friction mu lambda_N with lambda_N < 0 pushed along
        the slip until the end of the step (its opening is located from a positive normal
        force only): a pendulum tip rattling on a cantilever gained 1.1e-5 J in one step."""
        for i in range(self.modes.n_bilateral, self.modes.n_rows):
            if self.modes.is_closed(i) and self.multipliers[self.modes.normal_row(i)] < 0.0:
                self.modes.open(i)
                if count:
                    self._log(i, "open")
                self._restart()

    def _lift_off(self, branch) -> None:
        """Take the lift-off branch of a Painleve state (``painleve.ContactProblem.lift_off``):
        the closed Unilateral contacts that it opens (N = 0, contact acceleration > 0) open
        here, and the integration restarts."""
        closed = self.modes.painleve_contacts()
        for j, i in enumerate(closed):
            if not branch.active[j]:
                self.modes.open(i)
                self._log(i, "open")
        self._restart()

    def _try_stick(self, i: int, count: bool) -> None:
        """Stick contact i where it is if the friction force that holds it lies within
        mu_s lambda_N (001 sec. 10.3.2); otherwise slip in the direction the contact would
        accelerate, against the static friction force it would need."""
        pair = self.system.model.contacts[self.modes.sliding[i]]
        contact = self.evaluation.contacts[i]
        self.modes.stick(i, anchor_at(self.system, self.modes.sliding[i], contact, self.q, self.u))
        try:
            self._restart()
        except ConstraintError as err:
            raise ConstraintError(
                f"contact {pair.name!r} stops slipping at t = {self.t:.6g} s and would stick, "
                f"which adds a tangential row: {err}; allowed: a tree with a coordinate per "
                "row, or method='moreau' for a Unilateral contact (no partition)"
            ) from err
        lam = self.multipliers
        lam_t = lam[self.modes.stick_row(i)]
        if pair.law.holds_stick(lam[self.modes.normal_row(i)], lam_t):
            if count:
                self._log(i, "stick")
            return
        self.modes.slip(i, -np.sign(lam_t))
        if count:
            self._log(i, "reversal")
        self._restart()

    def _book_impulse(self, rows: np.ndarray) -> None:
        """Add the impulse on the present rows, rows (m,) N s, to the closed contacts' normal
        impulse of the step (``ConsistentContacts.normal_impulse``)."""
        self.averaged.normal_impulse += self.modes.closed_normal(rows)

    def _log(self, i: int, kind: str) -> None:
        self.events.append((self.t, self.system.model.contacts[self.modes.sliding[i]].name, kind))

    def _impact(self, i: int) -> None:
        """Impact of open unilateral contact i whose gap has just closed (``impulses``)."""
        law = self.system.model.contacts[self.modes.sliding[i]].law
        ev = self.evaluation
        name = self.system.model.contacts[self.modes.sliding[i]].name
        jump = impact_jump(ev, ev.contacts[i], self.u, self.algebra.mass_solve, law, name)
        if jump is None:  # the gap closed while it was opening: nothing hits
            # (a pendulum tip on a ringing cantilever gained 8e-4 J in one such "impact")
            return
        self.u = jump.velocity
        P = jump.impulse
        # only the drives' impulse work is booked on the drives: the restart after the impact
        # also moves the dependent coordinates back onto the constraints (a landing found at
        # the end of a sub-step has penetrated), which no force does; booked on the drives as
        # well, it gave a model without drives 5.3e-4 J of drive work (a disk rattling on a
        # sagging beam, h = 1e-3 s), and it belongs to the balance error (it falls with h:
        # 1.2e-3, 2.3e-4, 5.0e-5 J at h = 1e-3, 5e-4, 2.5e-4 s)
        if self.averaged.contacts:
            self.averaged.normal_impulse[i] += P[0]
            self._book_impulse(P[2:])
        self._log(i, "impact")
        if not jump.bounced:
            self.modes.slip(i, np.sign(jump.velocity_after[1]))  # closed
        self._restart()
        self._impact_loss += jump.loss
        self._impact_work += jump.drive_work
        if not jump.bounced and self.modes.mode[i] == ContactMode.REST and law.sticks:
            self._try_stick(i, count=True)

    def _energies(self, ev):
        """``system.energies`` at the evaluated state ev (those the compiled step booked at
        its end when ev is that step's)."""
        if self.compiled_step is not None:
            booked, booked_energies = self.compiled_step.booked
            if ev is booked:
                return booked_energies
        return energies(self.system, ev.q, ev.u, ev.t, self.workspace)

    def _power_terms(self, ev, lam) -> dict:
        """``mode_reports.power_terms`` at ev, W; keeps the energies at ev."""
        self._energy = self._energies(ev)
        return power_terms(self.system, self.modes, ev, lam, self._energy)

    def _switch_rolling(self, i: int, kind: str) -> None:
        name = self.modes.name(i)
        if kind == "release":
            self.modes.release(i)
            self.events.append((self.t, name, "slip"))
            self._restart()
            return
        self._stop_slip(i)
        self.modes.roll(i)
        self._restart()
        lam = self.multipliers[self.modes.rolling_row(i)]
        f = self.modes.compliant_force(i, self.evaluation)
        if self.modes.law(i).holds_stick(f.normal_force, lam):
            self.events.append((self.t, name, "stick"))
            return
        self.modes.release(i)
        self.events.append((self.t, name, "reversal"))
        self._restart()

    def _stop_slip(self, i: int) -> None:
        """The jump into rolling: the contact rolls from |v_t| = v0 / 2 on (000 sec. 6), so its
        slip velocity drops to zero at once, by a tangential impulse with the closed rows held
        (``impulses.stop_slip_jump``; recovering the dependent velocities by the coordinate
        partition instead changed the kinetic energy by m u_dep dv, with no force to book it
        on: a foot hopping down an incline lost 5.7e-3 J in 0.25 s whatever the step). The
        kinetic energy it takes is booked as an impact loss; the rest of the change of the
        energy across the restart is the drives' impulse work, as in an impact."""
        ev = self.evaluation
        contact = self.modes.compliant_force(i, ev).contact
        energy0 = self._energy.total
        self.u, loss = stop_slip_jump(ev, contact.w_tangent, self.u, self.algebra.mass_solve)
        self._restart()
        self._impact_loss += loss
        self._impact_work += self._energy.total - energy0 + loss

    def save(self) -> StepState:
        """The stepper's state now (``StepState``), for ``restore``."""
        return StepState(
            t=self.t,
            q=self.q,
            u=self.u,
            acceleration=self.acceleration,
            pseudo=self.pseudo,
            multipliers=self.multipliers,
            evaluation=self.evaluation,
            parameters=self._s.copy(),
            partition=self.part,
            mode=self.modes.mode.copy(),
            anchors=tuple(self.modes.anchors),
            previous=self._previous,
            powers=dict(self._powers),
            cond0=self._cond0,
            n_events=len(self.events),
            impact_loss=self._impact_loss,
            impact_work=self._impact_work,
            numerical=self._numerical,
            forces=self.averaged.save(),
        )

    def restore(self, state: StepState) -> None:
        """Put the stepper back in ``state`` (from ``save``): the same next step follows. The
        events located since are dropped; the counters stay."""
        self.t, self.q, self.u = state.t, state.q, state.u
        self.acceleration, self.pseudo = state.acceleration, state.pseudo
        self.multipliers, self.evaluation = state.multipliers, state.evaluation
        self._s, self.part = state.parameters.copy(), state.partition
        self.modes.restore(state.mode, state.anchors)
        self._previous = state.previous
        self._powers, self._cond0 = dict(state.powers), state.cond0
        del self.events[state.n_events :]
        self._impact_loss, self._impact_work = state.impact_loss, state.impact_work
        self._numerical = state.numerical
        self.averaged.restore(state.forces)

    def initial_report(self) -> StepReport:
        return self._report(self.evaluation, None)

    def _report(self, ev, work) -> StepReport:
        model = self.system.model
        lam = self.multipliers
        consistent = self.averaged.contacts and work is not None
        impulse = self.averaged.normal_impulse if consistent else None
        reports = contact_reports(self.system, self.modes, ev, lam, self._h_step, impulse)
        n_c = self.modes.n_bilateral
        velocity = ev.jac @ ev.u + ev.phi_t
        m = len(model.constraint_names())
        return StepReport(
            t=self.t,
            q=self.q.copy(),
            u=self.u.copy(),
            contacts=reports,
            drive_forces=np.asarray(lam[n_c : n_c + len(model.drives)], dtype=float),
            multipliers=np.asarray(lam[:m], dtype=float),
            work=work if work is not None else {},
            residual_position=float(np.max(np.abs(ev.phi), initial=0.0)),
            residual_velocity=float(np.max(np.abs(velocity), initial=0.0)),
            h=self._h_step,
            n_newton=self.n_newton - self._newton0,
            n_substeps=self.n_substeps - self._substeps0,
            energy=self._energy,
            acceleration=self.acceleration.copy(),
        )


__all__ = ["GeneralizedAlpha"]
