"""The Newton iteration of one partitioned generalised-alpha step, as a function of the
committed state.

``newton_step(context, state, h)`` takes the state a step starts from (the frozen
``StepState`` of ``GeneralizedAlpha.save``) and what stays the same from step to step
(``NewtonContext``: the system, the scheme's parameters, the step's linear algebra, the
contacts' modes, the force handling, the tolerances) and returns the state at its end
(``dataclasses.replace`` of the one given), or raises. The unknowns are the accelerations z of
the independent coordinates; positions and velocities follow the generalised-alpha update
(Chung-Hulbert, in the Arnold-Bruls form), the dependent coordinates the constraints, and the
residual is the reduced equations ``T_Sigma^T (M q'' + F) = 0`` at the step's end (Lipinski
(002), eqs. 73, 76, 78a-b), solved through the bordered system of ``partitioned_step`` with
the test ``partitioned_step.newton_converged``. With the energy-consistent force handling
(``energy_consistent.ConsistentContacts``) the rows are in discrete-gradient form.
``kernels.step`` is the compiled twin.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..coupling.constraints import evaluate_state, mass_times
from ..coupling.partition import b_matrices, recover_dependent
from ..system import System
from .alpha import AlphaParameters, numerical_dissipation
from .compliant import bordered_solve, curvature_terms
from .contact_states import ContactModes
from .energy_consistent import PlainForces
from .partitioned_step import (
    StepAlgebra,
    choose_partition,
    dependent_newton_step,
    multipliers,
    newton_converged,
    partition_condition,
)
from .step_state import StepState


class NewtonDivergence(RuntimeError):
    """The step's Newton iteration did not converge."""


@dataclass(frozen=True)
class NewtonContext:
    """What a generalised-alpha step works with besides its starting state.

    Parameters
    ----------
    system : System
        The assembled model.
    params : AlphaParameters
        The scheme's parameters (``alpha.alpha_parameters``).
    algebra : StepAlgebra
        The step's solves (``partitioned_step``); it keeps the factorisations of G_f per step
        size and counts them.
    modes : ContactModes
        The contacts' modes and their rows (``contact_states``); ``newton_step`` puts them in
        the modes of the state it starts from (``ContactModes.restore``) and reads them.
    forces : PlainForces
        The force handling (``energy_consistent.averaged_forces``); ``newton_step`` puts its
        committed part back from the state's ``forces``, uses it for the iterates' forces and
        returns its part after the step in the new state's ``forces``.
    workspace : Workspace
        The run's caches and warm starts (``workspace.Workspace``).
    tol : float
        Newton tolerance on the position correction, m (or rad).
    rtol : float
        Relative Newton tolerance of the forces (``partitioned_step.newton_converged``).
    max_newton : int
        Iterations per step.
    recondition : float
        The dependent coordinates are chosen anew after the step when cond(J_u) has grown by
        this factor since they were chosen.
    """

    system: System
    params: AlphaParameters
    algebra: StepAlgebra
    modes: ContactModes
    forces: PlainForces
    workspace: object
    tol: float
    rtol: float
    max_newton: int
    recondition: float


@dataclass(frozen=True)
class NewtonStep:
    """The outcome of ``newton_step``.

    Parameters
    ----------
    state : StepState
        The state at the step's end, to commit (``GeneralizedAlpha.restore``).
    n_iterations : int
        Newton iterations taken.
    dissipation : float
        The scheme's own loss in the step, J: ``alpha.numerical_dissipation`` plus, with the
        energy-consistent rows, the kinetic energy the velocity projection removed (already
        added to ``state.numerical``).
    """

    state: StepState
    n_iterations: int
    dissipation: float


def newton_step(
    context: NewtonContext,
    state: StepState,
    h: float,
    iterate: Callable[[], None] | None = None,
) -> NewtonStep:
    """One generalised-alpha step of h from the committed ``state`` (module docstring).

    Parameters
    ----------
    context : NewtonContext
        The system, parameters, solves, modes, force handling and tolerances.
    state : StepState
        The state the step starts from (``GeneralizedAlpha.save``); not changed.
    h : float
        The step, s.
    iterate : callable, optional
        ``iterate()`` is called at each Newton iterate, also in a step that fails (the
        caller's iteration counter).

    Returns
    -------
    NewtonStep
        The state at t + h (time, coordinates, velocities, accelerations, algorithmic
        accelerations, multipliers, evaluation, contact parameters, the predictor's
        (accelerations, h), the scheme's loss, the force handling's part, and the partition
        chosen anew when cond(J_u) grew by ``recondition``), the iterations and the loss.

    Raises
    ------
    NewtonDivergence
        No convergence in ``max_newton`` iterations, or a correction that is not finite.
    numpy.linalg.LinAlgError, ConstraintError, ContactLeftStructure
        From the solves and the evaluations of the iterates.
    """
    s = context.system
    p = context.params
    algebra = context.algebra
    modes = context.modes
    averaged = context.forces
    modes.restore(state.mode, state.anchors)
    averaged.restore(state.forces)
    rows = modes.rows(state.evaluation, context.workspace)
    s_guess = state.parameters

    def evaluate(q, u, t, slip_sign):
        return evaluate_state(s, q, u, t, slip_sign=slip_sign, s_guess=s_guess, **rows)

    part = state.partition
    ind, U = part.independent, part.dependent
    nv = part.independent_tree.size
    bp, gp = algebra.coefficients(h)
    t1 = state.t + h
    y_n, v_n = state.q[ind], state.u[ind]
    ydd_n, a_n = state.acceleration[ind], state.pseudo[ind]
    ydd = ydd_n.copy()
    if state.previous is not None:  # linear extrapolation of the accelerations
        acc_prev, h_prev = state.previous
        ydd += (h / h_prev) * (ydd_n - acc_prev[ind])
    slip_sign = modes.slip_sign
    last = None
    prev = state.evaluation
    q1, u1 = state.q, state.u
    lu = algebra.g_solver(h, state.q)
    last_iterate = None  # |delta| and lambda at the last iterate
    n_iterations = 0
    consistent = averaged.contacts
    # the closed contacts' curvature terms in the Newton matrix and the dependent step
    # (``compliant.curvature_terms``; the compiled step has the same, ``kernels.curvature``):
    # not in the energy-consistent form, whose constraint rows are discrete gradients. A
    # contact sliding fast along a beam needs them: at 250 km/h under the catenary the
    # iteration without them gains only a factor 7 per iterate (the order-u^2 terms are half
    # the contact element's diagonal)
    curving = not consistent
    for _ in range(context.max_newton):
        a1 = (p.alpha_f * ydd_n + (1 - p.alpha_f) * ydd - p.alpha_m * a_n) / (1 - p.alpha_m)
        q1 = (q1 if prev is None else prev.q).copy()
        u1 = (u1 if prev is None else prev.u).copy()
        q1[ind] = y_n + h * v_n + h * h * ((0.5 - p.beta) * a_n + p.beta * a1)
        u1[ind] = v_n + h * ((1 - p.gamma) * a_n + p.gamma * a1)
        recovered = prev is None
        if recovered:
            q1, u1 = recover_dependent(s, part, q1, u1, t1, rows=rows)
        else:
            curved = modes.curved_rows(prev) if curving else ()
            q1, u1 = dependent_newton_step(prev, part, q1, u1, t1, curved)
        if consistent:
            q1, u1, mid = averaged.dependent_state(
                part,
                state.evaluation,
                state.u,
                q1,
                u1,
                h,
                functools.partial(
                    evaluate_state,
                    s,
                    u=u1,
                    t=t1,
                    constraints_only=True,
                    s_guess=s_guess,
                    **rows,
                ),
                functools.partial(_midpoint, s, state, rows, t1=t1, slip_sign=slip_sign),
            )
        ev = averaged.step(state.q, evaluate(q1, u1, t1, slip_sign))
        acc = np.empty(s.layout.n)
        acc[ind] = ydd
        if consistent:  # the constraints in discrete-gradient form (energy_consistent)
            inertia, r, lam = averaged.reduced(
                ev, state.evaluation, mid, part, acc, h, state.u, state.acceleration
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
            lu = algebra.g_solver(h, averaged.tangent_state(state.q, q1))
        lam_now = state.multipliers if last_iterate is None else lam
        slip = modes.slip_tangent(ev, lam_now)
        closed = modes.closed_normals(ev, lam_now) if curving else ()
        curvature = curvature_terms(ev, closed, acc, u1, (bp, gp))
        delta = bordered_solve(algebra, averaged.newton_rows(ev), rhs, h, lu, slip, curvature)[ind]
        n_iterations += 1
        if iterate is not None:
            iterate()
        last = delta
        if not np.all(np.isfinite(delta)):
            break
        if not consistent:
            lam = multipliers(ev, part, inertia + ev.forces)
        scale = max(1.0, np.abs(inertia).max(initial=0.0), np.abs(ev.forces).max(initial=0.0))
        inertia_delta = algebra.mass_diagonal(ev)[ind] * delta
        floor = functools.partial(_floor, algebra, averaged, q1, u1, acc, ind)
        if newton_converged(
            delta, inertia_delta, r, scale, lam, last_iterate, bp, context.tol, context.rtol, floor
        ):
            # the one-step update of the dependent coordinates may leave a constraint
            # residual: recover them exactly in the next iterate. After an exact recovery
            # the residual is what recover_dependent reaches (on a stiff, fast-vibrating
            # beam the contact point's projection tolerance alone moves J u by 1e-11 m/s)
            # (energy_consistent: ``dependent_state`` closed the rows, if not far off)
            closed = consistent and np.max(np.abs(ev.phi), initial=0.0) <= context.tol
            if recovered or closed or _on_constraints(ev, context.tol):
                break
            if not consistent:
                # one more constraint Newton step on the dependent coordinates from this
                # iterate's own linearisation (the last one used the previous iterate's):
                # quadratic, it usually closes the constraints without a further iterate
                q1, u1 = dependent_newton_step(ev, part, q1, u1, t1)
                ev = averaged.step(state.q, evaluate(q1, u1, t1, slip_sign))
                if _on_constraints(ev, context.tol):
                    break
            prev = None
        else:
            prev = ev
        last_iterate = (np.max(np.abs(delta), initial=0.0), lam)
        ydd = ydd + delta
    else:
        raise NewtonDivergence(
            f"Newton did not converge in {context.max_newton} iterations at t = {t1:.6g} s "
            f"(last position correction {np.max(np.abs(bp * last)):.3e}); try a smaller h"
        )
    if not np.all(np.isfinite(delta)):
        raise NewtonDivergence(f"the Newton correction is not finite at t = {t1:.6g} s")
    loss = 0.0
    if consistent:  # J u = 0 holds in the discrete form only: closed by an impulse
        u1, loss, impulse = averaged.project(ev, algebra.mass_solve)
        # the rows' impulse over the step: h Lambda through G_Sigma, and the projection's
        averaged.normal_impulse += modes.closed_normal(h * lam + impulse)
        ev = dataclasses.replace(evaluate(q1, u1, t1, slip_sign), forces=ev.forces)
    averaged.commit(ev)
    pseudo = acc.copy()
    pseudo[ind] = a1
    start = (state.u, state.acceleration, state.pseudo)
    dissipation = numerical_dissipation(s, p, h, part, start, (u1, acc), a1, ev) + loss
    partition, cond0 = part, state.cond0
    if partition_condition(ev, part) > context.recondition * max(state.cond0, 1.0):
        partition, cond0 = choose_partition(s, ev)
    end = dataclasses.replace(
        state,
        t=t1,
        q=q1,
        u=u1,
        acceleration=acc,
        pseudo=pseudo,
        multipliers=lam,
        evaluation=ev,
        parameters=np.array([np.nan if c is None else c.parameter for c in ev.contacts]),
        partition=partition,
        previous=(state.acceleration, h),
        cond0=cond0,
        numerical=state.numerical + dissipation,
        forces=averaged.save(),
    )
    return NewtonStep(end, n_iterations, dissipation)


def _midpoint(system, state, rows, q1, u1, t1, slip_sign):
    """The rows at the midpoint of the step from ``state`` to (q1, u1, t1)."""
    return evaluate_state(
        system,
        0.5 * (state.q + q1),
        0.5 * (state.u + u1),
        0.5 * (state.t + t1),
        slip_sign=slip_sign,
        constraints_only=True,
        s_guess=state.parameters,
        **rows,
    )


def _floor(algebra, averaged, q, u, acc, ind) -> np.ndarray:
    """The round-off level of the reduced residual of an iterate, per independent coordinate,
    N (``StepAlgebra.residual_floor`` and the force handling's)."""
    return algebra.residual_floor(q, u, acc)[ind] + averaged.residual_floor()


def _on_constraints(ev, tol: float) -> bool:
    """Whether the rows and their velocities at ev hold to tol (m, m/s)."""
    if ev.phi.size == 0:
        return True
    velocity = ev.jac @ ev.u + ev.phi_t
    return bool(np.max(np.abs(ev.phi)) <= tol and np.max(np.abs(velocity)) <= tol)


__all__ = ["NewtonContext", "NewtonDivergence", "NewtonStep", "newton_step"]
