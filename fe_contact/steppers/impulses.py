"""The velocity jumps of one instant in the partitioned stepper (``genalpha``): an impact of a
contact whose gap has just closed, and the stop of a rolling contact's slip.

Both are an impulse P on a set of rows W (n, k): the velocities jump to u+ = u- + M^-1 W P,
the rows' velocities to W^T u+ = W^T u- + D P with the Delassus matrix D = W^T M^-1 W, and every
closed constraint row (joints, drives, other contacts) is held, J u+ + phi_t = 0. The impulse
of an impact comes from the contact's law (``coupling.impact.contact_impact``: Newton's or
Poisson's law with Coulomb friction on the impulses); the stop of a slip is the mass-orthogonal
projection onto W_T u+ = 0 with the closed rows held. The kinetic energy changes by
P . W^T (u- + u+) / 2 exactly: the contact rows' part is the loss of the jump, the constraint
rows' part -P . phi_t the work of the drives' impulses (passive joints and loops do none).

What a stepper does around a jump (the modes it switches, the restart from consistent
accelerations, the booking of loss and work) is its own; these functions only do the
arithmetic, on explicit arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..coupling.impact import contact_impact

# a contact leaves an impact with a normal velocity above this fraction of its approach
# speed (at least 1 m/s times it) when it bounces; below, it stays closed (g'+ = 0)
BOUNCE_TOL = 1e-9


@dataclass(frozen=True)
class ImpactJump:
    """The velocity jump of one contact's impact (``impact_jump``).

    Parameters
    ----------
    velocity : ndarray, shape (n,)
        The velocities after the impact, u+ = u- + M^-1 W P.
    impulse : ndarray, shape (2 + m,)
        P, N s: the normal and tangential impulse of the contact, then those of the m held
        constraint rows (N s, or N m s on a joint row).
    velocity_after : ndarray, shape (2 + m,)
        W^T u+ of the rows (m/s, or rad/s on a joint row), without phi_t.
    loss : float
        The kinetic energy the contact's law takes, J (>= 0 for Newton's and Poisson's laws).
    drive_work : float
        The work of the held rows' impulses, -P_rows . phi_t, J (zero without drives).
    bounced : bool
        The contact separates after the impact: its normal velocity exceeds BOUNCE_TOL times
        max(1 m/s, its approach speed).
    """

    velocity: np.ndarray
    impulse: np.ndarray
    velocity_after: np.ndarray
    loss: float
    drive_work: float
    bounced: bool


def impact_jump(ev, contact, u, mass_solve, law, name: str = "") -> ImpactJump | None:
    """The impact of a contact whose gap has just closed, with the closed rows of ev held.

    Parameters
    ----------
    ev : Evaluation
        The state at the impact (``coupling.constraints.Evaluation``): its rows ``jac``
        (m, n) and ``phi_t`` (m,), its time ``t`` (s) and tree mass matrix.
    contact : ContactKinematics
        The contact that hits: its rows ``w_normal`` and ``w_tangent`` (n,).
    u : ndarray, shape (n,)
        The velocities before the impact, u-.
    mass_solve : callable
        ``mass_solve(ev, rhs)`` : M^-1 rhs (``partitioned_step.StepAlgebra.mass_solve``).
    law : ContactLaw
        The contact's law, with ``impact_phases()`` and ``mu`` (``coupling.impact``).
    name : str
        The contact's name, for the error of an impact without a solution.

    Returns
    -------
    ImpactJump or None
        None when the contact does not approach (g'-_N >= 0: a fast structure passed the
        point within the step; Newton's law g'+ = -e_N g'- would need a pulling impulse
        P_N < 0, which the law excludes, so P_N = 0 solves it and nothing hits).
    """
    W = np.column_stack([contact.w_normal, contact.w_tangent, ev.jac.T])
    X = mass_solve(ev, W)
    D = W.T @ X  # Delassus matrix of the normal, tangential and closed rows
    pre = W.T @ u
    pre[2:] += ev.phi_t
    v_n = pre[0]
    if v_n >= 0.0:
        return None
    # Newton: one phase; Poisson: compression, expansion (``coupling.impact``)
    result = contact_impact(D, pre, law, name, ev.t)
    P = result.impulse
    velocity = u + X @ P
    after = W.T @ velocity
    return ImpactJump(
        velocity=velocity,
        impulse=P,
        velocity_after=after,
        loss=result.loss,
        drive_work=-float(P[2:] @ ev.phi_t),
        bounced=bool(after[0] > BOUNCE_TOL * max(1.0, abs(v_n))),
    )


def stop_slip_jump(ev, w_tangent, u, mass_solve) -> tuple[np.ndarray, float]:
    """The tangential impulse that stops a contact's slip at once, the closed rows of ev held:
    u+ = u- + M^-1 W P with W = [W_T, J^T] and W^T u+ + (0, phi_t) = 0 (least squares: the
    rows may be dependent), the mass-orthogonal projection of u- onto them.

    Parameters
    ----------
    ev : Evaluation
        The state at the stop: its rows ``jac`` (m, n), ``phi_t`` (m,) and tree mass matrix.
    w_tangent : ndarray, shape (n,)
        The contact's tangential row W_T.
    u : ndarray, shape (n,)
        The velocities before, u-.
    mass_solve : callable
        ``mass_solve(ev, rhs)`` : M^-1 rhs (``partitioned_step.StepAlgebra.mass_solve``).

    Returns
    -------
    velocity : ndarray, shape (n,)
        u+.
    loss : float
        The kinetic energy the tangential impulse takes, -P_T v_t- / 2 >= 0, J (the
        tangential row ends at rest). The held rows' part of the change is the caller's to
        book (the drives' impulse work).
    """
    W = np.column_stack([w_tangent, ev.jac.T])
    X = mass_solve(ev, W)
    pre = W.T @ u
    pre[1:] += ev.phi_t
    P = np.linalg.lstsq(W.T @ X, -pre, rcond=None)[0]
    return u + X @ P, -0.5 * float(P[0] * pre[0])


__all__ = ["BOUNCE_TOL", "ImpactJump", "impact_jump", "stop_slip_jump"]
