"""Contact pair k of a model at a state (q, u): its kinematics on whichever target it has, and
the force of a ``Compliant`` law there.

``contact_at`` is the kinematics of one pair (the closest point on a structure, a line, or a
curved profile's contact point; ``coupling.kinematics``: gap, W_N, W_T, slip velocity,
remainders), the single-point view of the one entry point ``contact_points.contact_points``;
``compliant_forces`` evaluates every ``Compliant`` pair's normal and friction force, its
elastic energy and the powers it dissipates. Both take an assembled ``System``
(``fe_contact.system``), which reads the compliant contacts' energy from here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .contact_points import contact_points
from .kinematics import ContactKinematics, ContactLeftStructure
from .links import link_contact, links_state, zero_row


@dataclass(frozen=True, eq=False)
class CompliantForce:
    """The force of a ``Compliant`` contact at one state: model index, kinematics (None: no
    contact point), normal force F_n >= 0 (N, on the profile along the normal), friction force
    F_t (N, on the profile along the tangent), the elastic energy c a^(p+1)/(p+1) (J) and the
    powers it dissipates (damping: (F_n - c a^p) a' >= 0, friction: -F_t v_t >= 0, W).
    tangent : (K_q, K_u), the (2, 2) derivatives of the generalised force W^T (F_n, F_t) with
    W = [W_N, W_T] taken through the law only: d forces / dq = W K_q W^T, d forces / du =
    W K_u W^T (``forces`` holds minus the contact force; None while open).
    rows : (dofs (k,), values (k,)) the nonzero entries of W_N of a link with constant rows
    (``coupling.links.links_state``; its W_T is zero), else None."""

    index: int
    contact: ContactKinematics | None
    normal_force: float
    friction_force: float
    energy: float
    damping_power: float
    friction_power: float
    tangent: np.ndarray | None = None
    rows: tuple[np.ndarray, np.ndarray] | None = None


def compliant_force(
    law, contact: ContactKinematics | None, index: int, rows=None
) -> CompliantForce:
    """The force of a ``Compliant`` law at the contact (see ``model.Compliant``); ``rows``: the
    (dofs, values) of a link's W_N (``CompliantForce.rows``) or None."""
    if contact is None or not contact.gap < 0.0:
        return CompliantForce(index, contact, 0.0, 0.0, 0.0, 0.0, 0.0, rows=rows)
    a, rate = -contact.gap, -contact.normal_velocity
    f_n, dn_da, dn_drate = law.normal_force(a, rate)
    elastic = law.stiffness * a**law.exponent
    f = slope = 0.0  # F_t / F_n and its derivative d / d v_t
    if law.mu > 0.0:
        f = law.friction_factor(contact.slip_velocity)
        slope = law.friction_slope(contact.slip_velocity)
    viscous, viscous_slope = law.viscous_force(contact.slip_velocity) if f_n > 0.0 else (0, 0)
    f_t = -f * f_n + viscous
    # a = -g, a' = -W_N u: d(-W_N F_n - W_T F_t) through F_n(a, a') and F_t(F_n, v_t)
    k_q = np.array([[dn_da, 0.0], [-f * dn_da, 0.0]])
    k_u = np.array([[dn_drate, 0.0], [-f * dn_drate, f_n * slope - viscous_slope]])
    return CompliantForce(
        index=index,
        contact=contact,
        normal_force=f_n,
        friction_force=f_t,
        energy=law.elastic_energy(a),
        damping_power=(f_n - elastic) * rate,
        friction_power=-f_t * contact.slip_velocity,
        tangent=(k_q, k_u),
        rows=rows,
    )


def compliant_contacts(system) -> tuple[int, ...]:
    """Model indices of the Compliant contacts."""
    return tuple(i for i, c in enumerate(system.model.contacts) if c.compliant)


def compliant_forces(system, q, u, rolling=None, workspace=None) -> tuple[CompliantForce, ...]:
    """The forces of every Compliant contact at (q, u), in model order. ``rolling``: a flag per
    Compliant contact; a rolling one has its acceleration remainders computed and no friction
    from the law (its friction force is the multiplier of its rolling row). ``workspace``: the
    run's ``Workspace`` (its contact parameters start the closest-point searches and are
    updated), or None (every search starts afresh)."""
    out = []
    guesses = {} if workspace is None else workspace.contact_parameters
    links = system.link_rows
    if links.size:  # every link with constant rows in one call (``coupling.links``)
        state = links_state(system, q, u)
        dense = state.dense_rows(system.layout.n)
        zeros = zero_row(system.layout.n)
        at = {k: i for i, k in enumerate(links.pairs.tolist())}
    for j, k in enumerate(compliant_contacts(system)):
        if links.size and k in at:
            i = at[k]
            kin = link_contact(system, state, i, dense[i], zeros)
            rows = (state.dofs[i], state.w_normal[i])
            out.append(compliant_force(system.model.contacts[k].law, kin, k, rows))
            continue
        rolls = rolling is not None and bool(rolling[j])
        try:
            kin = contact_at(system, k, q, u, guesses.get(k), remainder=rolls, workspace=workspace)
        except ContactLeftStructure:
            kin = None
        if (
            kin is not None
            and np.isfinite(kin.parameter)
            and isinstance(system.model.contacts[k].target, str)
        ):
            guesses[k] = kin.parameter
        law = system.model.contacts[k].law
        if rolls:
            law = replace(law, mu=0.0, mu_s=0.0, v0=None, rolling=False)
        out.append(compliant_force(law, kin, k))
    return tuple(out)


def contact_at(
    system, k: int, q, u, s_guess=None, remainder=True, workspace=None
) -> ContactKinematics:
    """Kinematics of contact k of the model at (q, u): its one point (a closest point on a
    structure, also for a grid pair; a line's; a curved profile's; a link's), the single-point
    view of ``contact_points.contact_points``.

    system : System; q, u : (n,); s_guess : the last contact parameter on a structure (m) or None.
    workspace : the run's ``Workspace`` (a curved profile's warm start) or None.

    Raises ContactLeftStructure when the closest point lies beyond an end of the structure (or
    a curved pair has no candidate point).
    """
    points = contact_points(
        system, k, q, u, s_guess, remainder=remainder, search="closest", workspace=workspace
    )
    return points.single()
