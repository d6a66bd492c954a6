"""The bilateral constraint set of the partitioned stepper, evaluated at one state.

Coordinates q = (q_t, q_f): the tree's joint coordinates and the structures' free coordinates
(``System.layout``). Equations of motion with the constraint set (Lipinski (002), eqs. 71a-b,
60-62):

    M_t(q_t) q_t'' + F_t(q_t, q_t', t)           = J_Sigma,t^T lambda
    M_f q_f'' + C_f q_f' + f_int(q_f) - Q_f       = J_Sigma,f^T lambda
    J q'' + A = 0,   J q' + phi_t = 0,   phi(q, t) = 0

Rows, in the order of ``Model.constraint_names()``: every ``Sliding`` contact (one row: the gap
of ``coupling.kinematics``, multiplier = the normal force in N, positive while the target pushes
the profile away), every drive (one row q_j - q_j(t), multiplier = driving torque or force) and
every loop closure (two rows, multipliers = the closure's force on body a, N). The friction rows
of J_Sigma (002 eqs. 67-68, 71c) are ``-sign(v_t) mu W_T`` per contact, so that J_Sigma^T lambda
contains the Coulomb force -sign(v_t) mu lambda t on the profile and its reaction on the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..laws import continuous_friction
from ..multibody.tree import equations_of_motion, point_kinematics
from ..system import System
from .contact import (
    CompliantForce,
    compliant_contacts,
    compliant_force,
    compliant_forces,
    contact_at,
)
from .kinematics import ContactKinematics, ContactLeftStructure, line_geometry, profile_state


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The system at one state (q, u, t).

    mass_tree : (n_t, n_t). forces : (n,) F of M q'' + F = J_Sigma^T lambda. phi : (m,)
    position residuals. jac : (m, n) J. jac_sigma : (m, n) J_Sigma (002 eq. 71c). remainder :
    (m,) A. phi_t : (m,). contacts : ContactKinematics per Sliding contact (in row order).
    slip_sign : (n_sliding,) friction directions used. contact_index : model index of each.
    compliant : CompliantForce of each Compliant contact (its force is part of ``forces``).
    friction : (n_sliding,) F_t / F_n of each contact while it slips, ``ContactLaw.
    friction_factor`` (its friction force on the profile is -friction lambda_N along the
    tangent); None: mu slip_sign (a constant-mu Coulomb law, as the compiled step builds it).
    viscous : (n_sliding,) the friction force of each closed, slipping contact that does not
    scale with its normal force (N, on the profile along the tangent, ``ContactLaw.
    viscous_force``; part of ``forces``); None: zeros. slip_slopes : (n_sliding, 2) of each
    closed, slipping contact whose friction depends on v_t, d factor / dv_t (s/m,
    ``friction_slope``) and dF_v / dv_t (N s/m), for the step's iteration matrix; None: zeros.
    """

    t: float
    q: np.ndarray
    u: np.ndarray
    mass_tree: np.ndarray | None
    forces: np.ndarray | None
    phi: np.ndarray
    jac: np.ndarray
    jac_sigma: np.ndarray
    remainder: np.ndarray
    phi_t: np.ndarray
    contacts: tuple[ContactKinematics, ...]
    slip_sign: np.ndarray
    contact_index: tuple[int, ...]
    compliant: tuple[CompliantForce, ...] = ()
    friction: np.ndarray | None = None
    viscous: np.ndarray | None = None
    slip_slopes: np.ndarray | None = None

    def __post_init__(self):
        n = len(self.contacts)  # None: Coulomb's constant mu (the compiled step)
        if self.viscous is None:
            object.__setattr__(self, "viscous", np.zeros(n))
        if self.slip_slopes is None:
            object.__setattr__(self, "slip_slopes", np.zeros((n, 2)))


@dataclass(frozen=True)
class StickAnchor:
    """Where a sticking contact holds: the material parameter s* of the target (m along the
    structure, or along a rigid line from its point) and the tangent t* (2,) at the onset of
    stick. A point profile is pinned there at the position level, t* . (c - r(s*, q)) = 0, so
    it cannot creep; a circle rolls, W_T u = 0 (velocity level, nonholonomic)."""

    parameter: float
    direction: tuple[float, float]


def stick_anchor(contact: ContactKinematics, target, profile_point, line_point=None) -> StickAnchor:
    """The anchor of a contact that starts to stick in the state ``contact``; ``target`` is the
    pair's target (a structure name or a Line), ``profile_point`` the profile's centre and
    ``line_point`` a line's point in the plane now (default its fixed point)."""
    if isinstance(target, str) or not hasattr(target, "normal"):  # a structure or a Profile
        s_star = contact.parameter
    else:  # a rigid line: the coordinate of the foot point along the line
        base = np.asarray(target.point if line_point is None else line_point)
        s_star = float(contact.tangent @ (np.asarray(profile_point) - base))
    return StickAnchor(float(s_star), (float(contact.tangent[0]), float(contact.tangent[1])))


def sliding_contacts(system: System) -> tuple[int, ...]:
    """Model indices of the bilateral (Sliding) contacts, in constraint-row order."""
    return tuple(i for i, c in enumerate(system.model.contacts) if c.bilateral)


def _rolls(pair) -> bool:
    """A sticking pair rolls (velocity-level row W_T u = 0) when a circle or a curved profile
    takes part; a sticking point is pinned at the position level."""
    return pair.profile.radius > 0.0 or pair.curved


def rolling_position(w_base, w, q_base, q) -> float:
    """psi = (W_T(q_b) + W_T(q)) / 2 . (q - q_b): the trapezoidal integral of a rolling row's
    velocity W_T u from the committed state q_b to q (``evaluate_state``'s ``base``).

    Rolling is holonomic in the plane (the arc lengths rolled on the two curves are equal), but
    that integral has no closed form on a Bezier curve or a deformed beam. Integrated by the
    trapezoidal rule over each step, its error is O(h^3) per step and O(h^2) over a run, the
    order of the generalised-alpha step; psi = 0 instead (the dependent coordinates moved by
    W_T of the last iterate only) is a rectangle rule, first order: a body with a parabolic
    foot rolling down an incline then lost 1.2e-5 J in 0.3 s at h = 1e-3 s and half that at
    h / 2, where the trapezoid keeps the balance to second order."""
    return float(0.5 * (np.asarray(w_base) + np.asarray(w)) @ (np.asarray(q) - q_base))


def _compliant_contact(ev, index: int):
    """The ContactKinematics of Compliant contact ``index`` (model order) in evaluation ev."""
    if ev is None:
        return None
    for f in ev.compliant:
        if f.index == index:
            return f.contact
    return None


def _stick_row(system: System, k: int, anchor: StickAnchor, q, u, contact: ContactKinematics):
    """(phi, J row, A) of the tangential row of sticking contact k (see StickAnchor); a rolling
    row's phi is 0 here (its position value is ``rolling_position`` from a base state)."""
    lay = system.layout
    pair = system.model.contacts[k]
    if _rolls(pair):  # rolling: W_T u = 0 (velocity level)
        return 0.0, contact.w_tangent, contact.tangent_remainder
    prof = profile_state(
        system.tree, q[lay.tree], u[lay.tree], pair.profile.body, system.profile_points[k]
    )
    pk = prof.centre
    t_star = np.asarray(anchor.direction)
    row = np.zeros(lay.n)
    row[lay.tree] = t_star @ pk.jacobian
    if isinstance(pair.target, str):
        sl = lay.structure(pair.target)
        cp = system.structures[pair.target].curve(anchor.parameter, q[sl])
        np.add.at(row, sl.start + cp.dofs, -(t_star @ cp.rows))
        anchor_point = cp.position
    remainder = float(t_star @ pk.acceleration_remainder)
    if not isinstance(pair.target, str):
        point, _, carrier = line_geometry(system.tree, q[lay.tree], u[lay.tree], pair.target)
        anchor_point = point + anchor.parameter * t_star
        if carrier is not None:  # a translating line: its material point moves with the body
            row[lay.tree] -= t_star @ carrier.jacobian
            remainder -= float(t_star @ carrier.acceleration_remainder)
    # the target's material point is linear in q (beam and string alike): only c and a
    # translating line's body have a remainder
    return float(t_star @ (pk.position - anchor_point)), row, remainder


def _normal_row(factor, c, sticking, row, phi, jac, jac_sigma, remainder) -> None:
    """Fill the normal row of contact c: gap, W_N, remainder, and W_N - factor W_T in
    J_Sigma while it slips (002 eq. 71c; factor = ``ContactLaw.friction_factor``)."""
    phi[row] = c.gap
    jac[row] = c.w_normal
    remainder[row] = c.remainder
    slipping = not sticking and factor != 0.0
    jac_sigma[row] = c.w_normal - factor * c.w_tangent if slipping else c.w_normal


def evaluate_state(
    system: System,
    q,
    u,
    t: float,
    slip_sign=None,
    constraints_only: bool = False,
    s_guess=None,
    stick=None,
    unilateral=(),
    closed=None,
    rolling=None,
    base=None,
    workspace=None,
) -> Evaluation:
    """Evaluate the dynamics and the bilateral constraints at (q, u, t).

    slip_sign : (n_sliding,) signs of the slip velocity used for friction; by default the signs
    at this state (002 eq. 63). A contact with the continuous law (``Sliding.v0``) takes
    ``continuous_friction`` of its slip velocity at this state instead. s_guess : (n_sliding,) warm starts of the contact parameters.
    stick : (n_sliding,) a StickAnchor for each sticking contact, None for a sliding one; a
    sticking contact has no kinetic friction in J_Sigma and one more row, appended after the
    model's rows in contact order, whose multiplier is its static friction force (N, along its
    tangent, on the profile). unilateral : model indices of Unilateral contacts to evaluate
    too (after the Sliding ones: ``contacts``, ``slip_sign``, ``s_guess`` and ``stick`` run
    over both); closed : a flag per unilateral contact; the closed ones have a normal row after
    the model's rows (before the stick rows), an open one beyond its structure's end has the
    kinematics None. ``constraints_only`` skips M and F. rolling : a flag per Compliant contact
    (model order), True where it rolls, or None (none rolls): a rolling one has a
    velocity-level row W_T u = 0 after the stick rows (Bauchau (000), eq. 23), whose
    multiplier is its friction force, and no friction from its law.
    base : the Evaluation of the last committed state (q_b), or None. A rolling row (velocity
    level: a sticking circle or curved profile, a rolling Compliant contact) has no position
    constraint of its own; with a base its position value is the trapezoidal integral of its
    velocity W_T u since the base, psi = (W_T(q_b) + W_T(q)) / 2 . (q - q_b), from which a
    step recovers its dependent coordinates (``rolling_position``). Without a base it is 0.
    workspace : the run's ``Workspace`` (warm starts of the Compliant contacts' and the curved
    profiles' searches, read and updated), or None (those searches start afresh).
    """
    lay = system.layout
    tree = system.tree
    model = system.model
    q = np.asarray(q, dtype=float)
    u = np.asarray(u, dtype=float)
    if q.shape != (lay.n,) or u.shape != (lay.n,):
        raise ValueError(f"q and u must have shape ({lay.n},), got {q.shape} and {u.shape}")
    index = sliding_contacts(system) + tuple(unilateral)
    n_bilateral = len(index) - len(unilateral)
    if rolling is not None:
        rolling = [bool(r) for r in rolling]
    closed = [True] * n_bilateral + list(closed if closed is not None else [True] * len(unilateral))
    m0 = len(model.constraint_names())
    sticking = [] if stick is None else [i for i, a in enumerate(stick) if a is not None]
    compliant = None
    if rolling is not None and any(rolling):
        compliant = compliant_forces(system, q, u, rolling, workspace)
    n_rolling = 0 if rolling is None else sum(rolling)
    m = m0 + sum(closed[n_bilateral:]) + len(sticking) + n_rolling
    phi = np.zeros(m)
    jac = np.zeros((m, lay.n))
    jac_sigma = np.zeros((m, lay.n))
    remainder = np.zeros(m)
    phi_t = np.zeros(m)
    contacts = []
    signs = np.zeros(len(index))
    friction = np.zeros(len(index))
    viscous = np.zeros(len(index))
    slopes = np.zeros((len(index), 2))
    normal_rows = []  # (contact, row) of the normal rows, filled after the loops for unilateral
    for i, k in enumerate(index):
        guess = None if s_guess is None else s_guess[i]
        try:
            c = contact_at(
                system, k, q, u, guess, remainder=not constraints_only, workspace=workspace
            )
        except ContactLeftStructure:
            if closed[i]:
                raise
            c = None  # an open contact beyond the structure's end: no closest point
        contacts.append(c)
        if c is None:
            continue
        law = model.contacts[k].law
        direction = None if slip_sign is None else float(slip_sign[i])
        friction[i] = law.friction_factor(c.slip_velocity, direction)
        if closed[i] and i not in sticking:
            viscous[i], slopes[i, 1] = law.viscous_force(c.slip_velocity)
            if law.characteristic_velocity is not None or not law.coulomb():
                slopes[i, 0] = law.friction_slope(c.slip_velocity)
        if law.characteristic_velocity is not None:  # the continuous law, Bauchau (000) eq. (10)
            signs[i] = continuous_friction(c.slip_velocity, law.characteristic_velocity)
        else:
            signs[i] = np.sign(c.slip_velocity) if direction is None else direction
        if closed[i]:
            normal_rows.append(i)
    row = 0
    for i in normal_rows[:n_bilateral]:
        _normal_row(
            friction[i],
            contacts[i],
            i in sticking,
            row,
            phi,
            jac,
            jac_sigma,
            remainder,
        )
        row += 1
    unilateral_start = m0
    q_t, u_t = q[lay.tree], u[lay.tree]
    for d in model.drives:
        motion = (d.position(t), d.velocity(t), d.acceleration(t))
        if not all(math.isfinite(v) for v in motion):
            raise FloatingPointError(
                f"the drive of joint {d.joint} gave (position, velocity, acceleration) = "
                f"{motion!r} at t = {t:.6g} s; allowed: finite values"
            )
        phi[row] = q_t[d.joint] - motion[0]
        jac[row, d.joint] = 1.0
        jac_sigma[row, d.joint] = 1.0
        phi_t[row] = -motion[1]
        remainder[row] = -motion[2]
        row += 1
    for loop, (pa, pb) in zip(model.loops, system.loop_points, strict=True):
        ka = point_kinematics(tree, q_t, u_t, loop.body_a, pa)
        pos, jl, rem = ka.position.copy(), ka.jacobian.copy(), ka.acceleration_remainder.copy()
        if loop.body_b is None:
            pos -= np.asarray(pb)
        else:
            kb = point_kinematics(tree, q_t, u_t, loop.body_b, pb)
            pos -= kb.position
            jl -= kb.jacobian
            rem -= kb.acceleration_remainder
        phi[row : row + 2] = pos
        jac[row : row + 2, lay.tree] = jl
        jac_sigma[row : row + 2, lay.tree] = jl
        remainder[row : row + 2] = rem
        row += 2
    for j, i in enumerate(normal_rows[n_bilateral:]):
        _normal_row(
            friction[i],
            contacts[i],
            i in sticking,
            unilateral_start + j,
            phi,
            jac,
            jac_sigma,
            remainder,
        )
        row += 1
    for i in sticking:
        k = index[i]
        phi[row], jac[row], remainder[row] = _stick_row(system, k, stick[i], q, u, contacts[i])
        jac_sigma[row] = jac[row]
        if base is not None and _rolls(model.contacts[k]) and base.contacts[i] is not None:
            phi[row] = rolling_position(base.contacts[i].w_tangent, jac[row], base.q, q)
        row += 1
    for j, rolls in enumerate(rolling or ()):  # rolling: W_T u = 0 (000 eq. 23)
        if not rolls:
            continue
        c = compliant[j].contact
        if c is None:
            raise ContactLeftStructure(
                f"rolling contact {model.contacts[compliant[j].index].name!r} has no contact point",
                pair=compliant[j].index,
            )
        jac[row] = jac_sigma[row] = c.w_tangent
        remainder[row] = c.tangent_remainder
        before = _compliant_contact(base, compliant[j].index)
        if before is not None:
            phi[row] = rolling_position(before.w_tangent, c.w_tangent, base.q, q)
        row += 1
    mass_tree = forces = None
    if not constraints_only:
        forces = np.empty(lay.n)
        if tree is not None:
            eom = equations_of_motion(tree, q_t, u_t, t)
            mass_tree = eom.mass_matrix
            forces[lay.tree] = eom.bias_forces
        else:
            mass_tree = np.zeros((0, 0))
        forces[lay.flexible] = (
            system.flexible_damping(q) @ u[lay.flexible]
            + system.flexible_internal_force(q)
            - system.load_flexible
        )
        if compliant is None:
            compliant = compliant_forces(system, q, u, rolling, workspace)
        for i, f_v in enumerate(viscous):  # the friction that does not scale with F_n
            if f_v != 0.0:
                forces -= contacts[i].w_tangent * f_v
        for f in compliant:  # applied generalised forces W_N^T F_n + W_T^T F_t (000 eq. 17)
            if f.normal_force > 0.0 and f.rows is not None:  # a link: W_N's entries, W_T = 0
                np.subtract.at(forces, f.rows[0], f.rows[1] * f.normal_force)
            elif f.normal_force > 0.0:
                c = f.contact
                forces -= c.w_normal * f.normal_force + c.w_tangent * f.friction_force
    return Evaluation(
        t=t,
        q=q,
        u=u,
        mass_tree=mass_tree,
        forces=forces,
        phi=phi,
        jac=jac,
        jac_sigma=jac_sigma,
        remainder=remainder,
        phi_t=phi_t,
        contacts=tuple(contacts),
        slip_sign=signs,
        contact_index=index,
        friction=friction,
        viscous=viscous,
        slip_slopes=slopes,
        compliant=() if constraints_only or compliant is None else compliant,
    )


def mass_times(system: System, ev: Evaluation, a: np.ndarray) -> np.ndarray:
    """M a for the block-diagonal mass matrix diag(M_t(q), M_f), shape (n,)."""
    lay = system.layout
    out = np.empty(lay.n)
    out[lay.tree] = ev.mass_tree @ a[lay.tree]
    out[lay.flexible] = system.mass_flexible @ a[lay.flexible]
    return out


__all__ = [
    "CompliantForce",
    "ContactLeftStructure",
    "compliant_contacts",
    "compliant_force",
    "compliant_forces",
    "Evaluation",
    "StickAnchor",
    "continuous_friction",
    "rolling_position",
    "stick_anchor",
    "contact_at",
    "evaluate_state",
    "mass_times",
    "sliding_contacts",
]
