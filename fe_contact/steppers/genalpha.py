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
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from .. import validation as check
from ..coupling.constraints import evaluate_state, mass_times, sliding_contacts
from ..coupling.kinematics import ContactLeftStructure
from ..coupling.partition import (
    ConstraintError,
    Partition,
    b_matrices,
    choose_dependent,
    make_partition,
    recover_dependent,
)
from ..system import System
from .alpha import alpha_parameters, numerical_dissipation
from .base import SingularSystem, Stepper, StepTooLarge, StopRun, check_start
from .compliant import bordered_solve, curvature_terms
from .contact_states import ContactStates
from .energy_consistent import averaged_forces
from .partitioned_step import StepAlgebra, dependent_newton_step, multipliers
from .result import StepReport, open_contact, point_contact
from .step_state import StepState

# after a located event the sub-steps grow from the last one by at most this factor until they
# reach h: a full step right after the tiny sub-step that ends on an event takes the stiff
# modes' accelerations of that sub-step into a step with omega h >> 1 and overshoots (a mass
# lifting off a near-rigid cantilever, E = 2.1e15 Pa, h = 1e-3 s: +4.2e-2 J from 1.25e-2 J);
# grown by 4 at most, the balance only loses energy to the numerical damping of rho_inf < 1
STEP_GROWTH = 4.0
# a contact whose slip speed at the start is at most this is at rest on its target and sticks
# if the static cone holds it: the round-off of a slip velocity W_T u computed from speeds of
# order 1 m/s is about 1e-16 m/s (its sign differs between BLAS kernels), and no slip that
# matters physically is this slow
REST_SLIP = 1e-12  # m/s


class NewtonDivergence(RuntimeError):
    """The step's Newton iteration did not converge."""


class GeneralizedAlpha(ContactStates, Stepper):
    """Step object: ``step()`` advances by h and returns a StepReport; ``t``, ``q``, ``u``,
    ``acceleration``, ``multipliers``; counters ``n_steps``, ``n_newton``, ``n_substeps``
    (steps including the halves of retried steps), ``n_halved``, ``n_factorizations``.

    h : step, s. rho_inf : spectral radius at infinite frequency. tol : Newton tolerance on
    the position correction, m (or rad). rtol : relative Newton tolerance on the acceleration
    correction, the residual of the reduced equations and the change of the multipliers
    between iterates, against the size of the forces (see ``_converged``); the default 1e-10
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
    exactly V(q_n+1) - V(q_n) (linear structures: unchanged, already exact), and the sliding
    contacts' friction work is booked as (F_n + F_n+1) / 2 . (q_n+1 - q_n), the work the step
    lets it do; with constraint rows these are written in discrete-gradient form (every
    coordinate on the trapezoidal rule, the rows closed at position level, their force
    G_Sigma^T Lambda with G dq = phi_n+1 - phi_n; friction booked as its work on the discrete
    slip), so that the balance closes to round-off on a tree of constant mass
    (``steppers.energy_consistent``).
    error_tol : None (fixed steps h), or a local error bound (m, rad) per sub-step: each step h
    (the output interval) is then taken in sub-steps chosen by an error estimate (``_control``),
    large where the motion is smooth, small near events; ``n_rejected`` counts the retries.
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
        self.algebra = StepAlgebra(system, self.params)
        model = system.model
        self._n_bilateral = len(sliding_contacts(system))
        self._unilateral = tuple(
            k for k, c in enumerate(model.contacts) if not c.bilateral and not c.compliant
        )
        self._sliding = sliding_contacts(system) + self._unilateral  # every contact, row order
        self._m0 = len(model.constraint_names())
        self._mu = np.array([model.contacts[k].mu for k in self._sliding])
        laws = [model.contacts[k].law for k in self._sliding]
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
        self._stick = [None] * len(self._sliding)  # StickAnchor of each sticking contact
        self._stick += self._rolling_entries()  # then the rolling state of compliant contacts
        self._closed = [False] * len(self._unilateral)
        self._impact_loss = self._impact_work = 0.0  # impacts' loss, drives' impulse work
        self._numerical = 0.0  # the scheme's own loss in the step (``numerical_dissipation``)
        self._at_start = None  # (time, contact) of the last switch located at a sub-step's start
        self.gap_tol = check.real("gap_tol", gap_tol, low=0.0, unit="m")
        self.events = []  # (t, contact name, kind) of every located contact event
        self.t = float(t0)
        ev = evaluate_state(system, q0, u0, self.t, constraints_only=True, **self._rows())
        self._s = np.array([np.nan if c is None else c.parameter for c in ev.contacts])
        slip = np.array([0.0 if c is None else c.slip_velocity for c in ev.contacts])
        self._slip_sign = np.where(np.abs(slip) <= REST_SLIP, 0.0, np.sign(slip))
        approaching = []
        for j, k in enumerate(self._unilateral):
            c = ev.contacts[self._n_bilateral + j]
            if c is None or c.gap > self.gap_tol:
                continue
            if c.gap < -self.gap_tol:
                raise ValueError(
                    f"initial state: contact {model.contacts[k].name!r} penetrates its target "
                    f"by {-c.gap:.3e} m; allowed: gap >= -gap_tol = {-self.gap_tol:g} m"
                )
            if c.normal_velocity < -self.gap_tol:
                approaching.append(self._n_bilateral + j)  # hits at t0
            elif c.normal_velocity <= self.gap_tol:
                self._closed[j] = True  # resting at zero gap: closed from the first step
        self.q, self.u = np.asarray(q0, dtype=float), np.asarray(u0, dtype=float)
        self.pseudo = None  # the algorithmic accelerations: consistent ones at the first restart
        self._restart()
        self._open_pulled(count=False)  # a resting contact that is pulled away opens
        for i in approaching:
            self._impact(i)
        for i, sign in enumerate(self._slip_sign):
            coulomb = self._contact_law(i).sticks
            if sign == 0.0 and self._is_closed(i) and coulomb and not self._stick[i]:
                self._try_stick(i, count=False)  # at rest: sticks if the friction cone holds

    @property
    def n_retried(self) -> int:
        """Steps retried as two halves so far (``n_halved``)."""
        return self.n_halved

    @property
    def n_factorizations(self) -> int:
        """Sparse LU factorisations of the structures' block so far."""
        return self.algebra.n_factorizations

    def _restart(self):
        """Choose the partition for the present rows, recover the dependent coordinates and
        velocities and start the integrator from the consistent accelerations and multipliers
        (at the start and after every change of a contact state)."""
        system = self.system
        ev = evaluate_state(
            system, self.q, self.u, self.t, constraints_only=True, s_guess=self._s, **self._rows()
        )
        self.part = self._choose(ev)
        u_before = self.u
        self.q, self.u = recover_dependent(
            system, self.part, self.q, self.u, self.t, rows=self._rows()
        )
        if self.averaged.contacts and self.pseudo is not None:  # not at the start
            # keep the velocities but for their part across the new rows (an impulse):
            # recovered from J u = 0 the kinetic energy would change at first order in it
            ev = self._evaluate(self.q, u_before, self.t, self._slip_sign)
            self.u, loss = self.averaged.project(ev, self._mass_solve)
            self._numerical += loss
        ev = self._evaluate(self.q, self.u, self.t, self._slip_sign)
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
        branch = self.algebra.check_painleve(ev, self._mu, self._closed_rows())
        self._powers = self._power_terms(ev, self.multipliers)
        if self.averaged.active:
            self.averaged.friction_start(ev.q, *self._sliding_friction(ev, self.multipliers))
        if branch is not None:
            self._lift_off(branch)

    # -- evaluation and partition -----------------------------------------------------------
    def _evaluate(self, q, u, t, slip_sign):
        return evaluate_state(
            self.system, q, u, t, slip_sign=slip_sign, s_guess=self._s, **self._rows()
        )

    def _constraints(self, u, t):
        """The rows at (q, u, t) as a function of q (constraints only)."""
        return functools.partial(
            evaluate_state, self.system, u=u, t=t, constraints_only=True, s_guess=self._s,
            **self._rows(),
        )  # fmt: skip

    def _evaluate_mid(self, q1, u1, t1, slip_sign):
        """The rows at the midpoint of the step from the committed state to (q1, u1, t1)."""
        return evaluate_state(
            self.system,
            0.5 * (self.q + q1),
            0.5 * (self.u + u1),
            0.5 * (self.t + t1),
            slip_sign=slip_sign,
            constraints_only=True,
            s_guess=self._s,
            **self._rows(),
        )

    def _choose(self, ev) -> Partition:
        """The partition of the rows of ev: dependent tree coordinates (002 eq. 72), and
        structure coordinates for the rows the tree cannot take (``choose_dependent``)."""
        lay = self.system.layout
        try:
            dependent = choose_dependent(ev.jac[:, lay.tree])
        except ConstraintError:
            if not lay.n_flexible:
                raise
            dependent = choose_dependent(ev.jac[:, lay.tree], ev.jac[:, lay.flexible])
        part = make_partition(self.system, dependent)
        self._cond0 = self._cond(ev, part)
        return part

    @staticmethod
    def _cond(ev, part) -> float:
        if part.dependent.size == 0:
            return 1.0
        return float(np.linalg.cond(ev.jac[:, part.dependent]))

    def _consistent(self, ev) -> bool:
        if ev.phi.size == 0:
            return True
        velocity = ev.jac @ ev.u + ev.phi_t
        return bool(np.max(np.abs(ev.phi)) <= self.tol and np.max(np.abs(velocity)) <= self.tol)

    # -- stepping ---------------------------------------------------------------------------
    def _converged(self, delta, inertia_delta, r, scale, lam, last, bp, floor=None) -> bool:
        """The Newton test of an iterate. All must hold: the position correction
        bp |delta| <= tol; the residual of the reduced equations and the acceleration correction
        weighted by the diagonal of the mass matrix (so that both are forces, and the round-off
        eps cond(G) of a stiff structure's accelerations weighs as little as its nodal masses)
        <= rtol ``scale`` (the largest inertia or applied generalised force, at least 1 N) plus
        ``floor()`` (per independent coordinate, N: the round-off level of the residual, only
        computed when the residual is above rtol ``scale``); the
        error of the multipliers, estimated from their change since the last iterate
        (``last``: its |delta| and lambda) and the contraction theta = |delta_k| / |delta_k-1|
        of the iteration as theta / (1 - theta) |lambda_k - lambda_k-1|, <= rtol max(1 N,
        |lambda|).

        Round-off: when the iteration no longer contracts (theta >= 1/2), what changes from
        iterate to iterate is round-off (eps cond(G) of a fine, stiff mesh: on a 1000-element
        cantilever the residual stalls at ~10 times its bound and the position correction at
        ~1e-9, in the slopes of the nodes); such an iterate is taken when its residual and
        position correction are within 1e4 times their bounds."""
        d = np.max(np.abs(delta), initial=0.0)
        stalled = last is not None and last[0] > 0 and d >= 0.5 * last[0]

        def worst(bound):
            return max(
                bp * d / self.tol,
                np.max(np.abs(r) / bound, initial=0.0),
                np.max(np.abs(inertia_delta) / bound, initial=0.0),
            )

        excess = worst(self.rtol * scale)
        if excess > 1.0 and floor is not None:
            excess = worst(self.rtol * scale + floor())
        if excess > 1.0:
            return bool(stalled and excess <= 1e4)
        if lam.size == 0:
            return True
        if last is None:
            return False
        if stalled:
            return True
        d_last, lam_last = last
        theta = d / d_last if d_last > 0 else 0.0
        error = theta / (1.0 - theta) * np.max(np.abs(lam - lam_last))
        return bool(error <= self.rtol * max(1.0, np.max(np.abs(lam))))

    def _floor(self, q, u, acc, ind) -> np.ndarray:
        return self.algebra.residual_floor(q, u, acc)[ind] + self.averaged.residual_floor()

    def _newton_step(self, h: float):
        """One step of size h from the committed state; commits it. Raises NewtonDivergence."""
        s = self.system
        p = self.params
        part = self.part
        ind, U = part.independent, part.dependent
        nv = part.independent_tree.size
        bp, gp = self.algebra.coefficients(h)
        t1 = self.t + h
        y_n, v_n = self.q[ind], self.u[ind]
        ydd_n, a_n = self.acceleration[ind], self.pseudo[ind]
        ydd = ydd_n.copy()
        if self._previous is not None:  # linear extrapolation of the accelerations
            acc_prev, h_prev = self._previous
            ydd += (h / h_prev) * (ydd_n - acc_prev[ind])
        slip_sign = self._slip_sign
        last = None
        prev = self.evaluation
        q1, u1 = self.q, self.u
        lu = self.algebra.g_solver(h, self.q)
        last_iterate = None  # |delta| and lambda at the last iterate
        consistent = self.averaged.contacts
        # the closed contacts' curvature terms in the Newton matrix and the dependent step
        # (``compliant.curvature_terms``; the compiled step has the same, ``kernels.curvature``):
        # not in the energy-consistent form, whose constraint rows are discrete gradients. A
        # contact sliding fast along a beam needs them: at 250 km/h under the catenary the
        # iteration without them gains only a factor 7 per iterate (the order-u^2 terms are half
        # the contact element's diagonal)
        curving = not consistent
        for _ in range(self.max_newton):
            a1 = (p.alpha_f * ydd_n + (1 - p.alpha_f) * ydd - p.alpha_m * a_n) / (1 - p.alpha_m)
            q1 = (q1 if prev is None else prev.q).copy()
            u1 = (u1 if prev is None else prev.u).copy()
            q1[ind] = y_n + h * v_n + h * h * ((0.5 - p.beta) * a_n + p.beta * a1)
            u1[ind] = v_n + h * ((1 - p.gamma) * a_n + p.gamma * a1)
            recovered = prev is None
            if recovered:
                q1, u1 = recover_dependent(s, part, q1, u1, t1, rows=self._rows())
            else:
                curved = self._curved_rows(prev) if curving else ()
                q1, u1 = dependent_newton_step(prev, part, q1, u1, t1, curved)
            if consistent:
                q1, u1, mid = self.averaged.dependent_state(
                    part,
                    self.evaluation,
                    self.u,
                    q1,
                    u1,
                    h,
                    self._constraints(u1, t1),
                    functools.partial(self._evaluate_mid, t1=t1, slip_sign=slip_sign),
                )
            ev = self.averaged.step(self.q, self._evaluate(q1, u1, t1, slip_sign))
            acc = np.empty(s.layout.n)
            acc[ind] = ydd
            if consistent:  # the constraints in discrete-gradient form (energy_consistent)
                inertia, r, lam = self.averaged.reduced(
                    ev, self.evaluation, mid, part, acc, h, self.u, self.acceleration
                )
            else:
                B1, B2, B3, B4, B5 = b_matrices(ev, part)
                acc[U] = -(B1 @ ydd[:nv] + B2 @ ydd[nv:] + B3)
                inertia = mass_times(s, ev, acc)
                e = inertia + ev.forces
                r = e[ind] - np.hstack([B4, B5]).T @ e[U]
            rhs = np.zeros(s.layout.n)
            rhs[ind] = -r
            if not s.linear_flexible and last is not None:
                lu = self.algebra.g_solver(h, self.averaged.tangent_state(self.q, q1))
            lam_now = self.multipliers if last_iterate is None else lam
            slip = self._slip_tangent(ev, lam_now)
            closed = self._closed_normals(ev, lam_now) if curving else ()
            curvature = curvature_terms(ev, closed, acc, u1, (bp, gp))
            delta = bordered_solve(self.algebra, ev, rhs, h, lu, slip, curvature)[ind]
            self.n_newton += 1
            last = delta
            if not np.all(np.isfinite(delta)):
                break
            if not consistent:
                lam = multipliers(ev, part, inertia + ev.forces)
            scale = max(1.0, np.abs(inertia).max(initial=0.0), np.abs(ev.forces).max(initial=0.0))
            inertia_delta = self.algebra.mass_diagonal(ev)[ind] * delta
            floor = functools.partial(self._floor, q1, u1, acc, ind)
            if self._converged(delta, inertia_delta, r, scale, lam, last_iterate, bp, floor):
                # the one-step update of the dependent coordinates may leave a constraint
                # residual: recover them exactly in the next iterate. After an exact recovery
                # the residual is what recover_dependent reaches (on a stiff, fast-vibrating
                # beam the contact point's projection tolerance alone moves J u by 1e-11 m/s)
                # (energy_consistent: ``dependent_state`` closed the rows, if not far off)
                closed = consistent and np.max(np.abs(ev.phi), initial=0.0) <= self.tol
                if recovered or closed or self._consistent(ev):
                    break
                if not consistent:
                    # one more constraint Newton step on the dependent coordinates from this
                    # iterate's own linearisation (the last one used the previous iterate's):
                    # quadratic, it usually closes the constraints without a further iterate
                    q1, u1 = dependent_newton_step(ev, part, q1, u1, t1)
                    ev = self.averaged.step(self.q, self._evaluate(q1, u1, t1, slip_sign))
                    if self._consistent(ev):
                        break
                prev = None
            else:
                prev = ev
            last_iterate = (np.max(np.abs(delta), initial=0.0), lam)
            ydd = ydd + delta
        else:
            raise NewtonDivergence(
                f"Newton did not converge in {self.max_newton} iterations at t = {t1:.6g} s "
                f"(last position correction {np.max(np.abs(bp * last)):.3e}); try a smaller h"
            )
        if not np.all(np.isfinite(delta)):
            raise NewtonDivergence(f"the Newton correction is not finite at t = {t1:.6g} s")
        start = (self.u, self.acceleration, self.pseudo)
        loss = 0.0
        if consistent:  # J u = 0 holds in the discrete form only: closed by an impulse
            u1, loss = self.averaged.project(ev, self._mass_solve)
            ev = dataclasses.replace(self._evaluate(q1, u1, t1, slip_sign), forces=ev.forces)
        self.t, self.q, self.u = t1, q1, u1
        self.averaged.commit(ev)
        self._previous = (self.acceleration, h)
        self.acceleration = acc
        self.pseudo = acc.copy()
        self.pseudo[ind] = a1
        self._numerical += self._step_dissipation(h, part, start, a1, ev) + loss
        self.multipliers = lam
        self.evaluation = ev
        self._s = np.array([np.nan if c is None else c.parameter for c in ev.contacts])
        self.n_substeps += 1
        if self._cond(ev, part) > self.recondition * max(self._cond0, 1.0):
            self.part = self._choose(ev)
        return ev

    def _step_dissipation(self, h: float, part, start, a1, ev) -> float:
        """``numerical_dissipation`` of the sub-step of h just committed from ``start`` =
        (u, q'', a) at its start with the partition part; ev : the evaluation at its end."""
        end = (self.u, self.acceleration)
        return numerical_dissipation(self.system, self.params, h, part, start, end, a1, ev)

    def _advance(self, h: float, depth: int, leaving: bool = True):
        """A step of h; on NewtonDivergence, a singular linear system, constraints that do
        not close or (``leaving``) a contact leaving its structure, two steps of h/2,
        recursively ``depth`` deep (``n_halved`` counts them)."""
        try:
            return self._newton_step(h)
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
                    self.evaluation, self._mu, err, self._closed_rows()
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
                event = self._first_event(start)
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
        for i, k in enumerate(self._sliding[: self._n_bilateral]):
            if lam[i] < 0.0:
                name = self.system.model.contacts[k].name
                self.restore(saved)
                raise StopRun(
                    f"normal force of contact {name!r} turned negative ({lam[i]:.4g} N) near "
                    f"t = {t_end:.6g} s: the bilateral sliding contact would separate"
                )
        branch = self.algebra.check_painleve(self.evaluation, self._mu, self._closed_rows())
        if branch is not None:
            self._lift_off(branch)
        work["dissipated_impact"] = self._impact_loss
        work["dissipated_numerical"] = self._numerical
        work["work_contact_timing"] = 0.0  # impulses at instants, not over a step: none
        work["work_drives"] = work.get("work_drives", 0.0) + self._impact_work
        return self._report(self.evaluation, work)

    # -- contact states ---------------------------------------------------------------------
    def _control(self, start, dt: float) -> bool:
        """Error control of a sub-step of dt just taken from ``start``: the local error of the
        positions is estimated as |1/6 - beta| dt^2 |q''_n+1 - q''_n| (the third-order term the
        Newmark family leaves out); above ``error_tol`` the sub-step is undone and False
        returned, with the next try at dt (tol / est)^(1/3) times 0.9 (at least a fifth, not
        below min_substep); accepted, the next sub-step may grow up to twice."""
        change = np.max(np.abs(self.acceleration - start.acceleration), initial=0.0)
        estimate = abs(1.0 / 6.0 - self.params.beta) * dt * dt * change
        factor = 0.9 * (self.error_tol / estimate) ** (1.0 / 3.0) if estimate > 0 else 2.0
        if estimate > self.error_tol and dt > self.min_substep:
            self.restore(start)
            self.n_rejected += 1
            self._dt_next = max(dt * max(factor, 0.2), self.min_substep)
            return False
        self._dt_next = dt * min(factor, 2.0)
        return True

    def _slip_velocities(self):
        if np.all(np.isnan(self._v0)):
            return None
        return [np.nan if c is None else c.slip_velocity for c in self.evaluation.contacts]

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
            slip_sign=self._slip_sign.copy(),
            anchors=tuple(self._stick),
            closed=tuple(self._closed),
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
        self._slip_sign, self._stick = state.slip_sign.copy(), list(state.anchors)
        self._closed, self._previous = list(state.closed), state.previous
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
        reports = []
        by_model = {k: i for i, k in enumerate(self._sliding)}
        compliant = {f.index: f for f in ev.compliant}
        for k, pair in enumerate(model.contacts):
            if k in compliant:  # a force law (model.Compliant), not a constraint row
                reports.append(self._compliant_report(pair.name, compliant[k]))
                continue
            i = by_model[k]
            c = ev.contacts[i]
            if not self._is_closed(i):
                reports.append(open_contact(pair.name, np.inf if c is None else c.gap))
                continue
            normal = float(lam[self._normal_row(i)])
            if self._stick[i] is None:
                state, friction = "slip", -ev.friction[i] * normal + ev.viscous[i]
            else:
                state, friction = "stick", float(lam[self._stick_row(i)])
            reports.append(point_contact(pair.name, state, c, normal, friction, self._h_step))
        n_c = self._n_bilateral
        velocity = ev.jac @ ev.u + ev.phi_t
        m = len(model.constraint_names())
        return StepReport(
            t=self.t,
            q=self.q.copy(),
            u=self.u.copy(),
            contacts=tuple(reports),
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


__all__ = [
    "GeneralizedAlpha",
    "NewtonDivergence",
    "SingularSystem",
    "alpha_parameters",
    "numerical_dissipation",
    "open_contact",
]
