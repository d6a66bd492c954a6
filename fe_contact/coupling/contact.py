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

import functools
from dataclasses import dataclass, replace

import numpy as np

from ..kernels.links import ENERGY, GAP, RATE_SLOPE, SLOPE, TENSION, VN
from ..laws.dropper import Dropper, dropper_energy, dropper_tension
from .contact_points import contact_points
from .kinematics import ContactKinematics, ContactLeftStructure
from .links import LinksState, link_contact, links_state, zero_row


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
    (``coupling.links.links_state``; its W_T is zero), else None.
    force_row : (n,) the row along which the normal force acts in the equations when it is
    not W_N (the energy-consistent form's discrete gradient of the gap over the step,
    ``steppers.force_laws.ForceLaws``): d forces / dq = [force_row, W_T] K_q W^T;
    None (the default): W_N."""

    index: int
    contact: ContactKinematics | None
    normal_force: float
    friction_force: float
    energy: float
    damping_power: float
    friction_power: float
    tangent: np.ndarray | None = None
    rows: tuple[np.ndarray, np.ndarray] | None = None
    force_row: np.ndarray | None = None


def _force_terms(f_n, dn_da, dn_drate, elastic, rate, f, slope, viscous, viscous_slope, slip):
    """(F_t, K_q, K_u, damping power, friction power) of compliant contacts (``CompliantForce``)
    from their law's normal force F_n(a, a') and its derivatives, its elastic part c a^p, the
    approach rate a', the friction factor f = F_t / F_n and its slope d f / d v_t, the viscous
    friction F_v and its slope, and the slip velocity v_t: floats of one contact, or arrays
    (L,) of L contacts (K_q, K_u then (L, 2, 2))."""
    f_t = -f * f_n + viscous
    # a = -g, a' = -W_N u: d(-W_N F_n - W_T F_t) through F_n(a, a') and F_t(F_n, v_t)
    k_q = np.zeros(np.shape(f_n) + (2, 2))
    k_u = np.zeros(np.shape(f_n) + (2, 2))
    k_q[..., 0, 0], k_q[..., 1, 0] = dn_da, -f * dn_da
    k_u[..., 0, 0], k_u[..., 1, 0] = dn_drate, -f * dn_drate
    k_u[..., 1, 1] = f_n * slope - viscous_slope
    return f_t, k_q, k_u, (f_n - elastic) * rate, -f_t * slip


def compliant_force(
    law, contact: ContactKinematics | None, index: int, rows=None
) -> CompliantForce:
    """The force of a ``Compliant`` law at the contact (see ``model.Compliant``); ``rows``: the
    (dofs, values) of a link's W_N (``CompliantForce.rows``) or None."""
    if contact is None or not contact.gap < 0.0:
        return CompliantForce(index, contact, 0.0, 0.0, 0.0, 0.0, 0.0, rows=rows)
    a, rate = -contact.gap, -contact.normal_velocity
    f_n, dn_da, dn_drate = law.normal_force(a, rate)
    f = slope = 0.0  # F_t / F_n and its derivative d / d v_t
    if law.mu > 0.0:
        f = law.friction_factor(contact.slip_velocity)
        slope = law.friction_slope(contact.slip_velocity)
    viscous, viscous_slope = law.viscous_force(contact.slip_velocity) if f_n > 0.0 else (0, 0)
    elastic = law.stiffness * a**law.exponent
    f_t, k_q, k_u, damping, friction = _force_terms(
        f_n, dn_da, dn_drate, elastic, rate, f, slope, viscous, viscous_slope, contact.slip_velocity
    )
    return CompliantForce(
        index=index,
        contact=contact,
        normal_force=f_n,
        friction_force=f_t,
        energy=law.elastic_energy(a),
        damping_power=damping,
        friction_power=friction,
        tangent=(k_q, k_u),
        rows=rows,
    )


class LinkForce(CompliantForce):
    """The ``CompliantForce`` of link i of a ``LinksState`` of every ``System.link_rows``: its
    ``contact`` (the ``ContactKinematics``, W_N as a dense (n,) row) is formed when first read.
    A Newton iterate needs the force, its tangent and the rows W_N (``rows``) only; the
    history's reports at the end of a step read the kinematics."""

    def __init__(self, index: int, rows, link, values=None, tangent=None):
        """index : model index; rows : (dofs, values) of W_N; link : (system, LinksState, i,
        a read-only zero row for W_T), what ``contact`` is formed from; values : (F_n, F_t,
        energy, damping power, friction power) of a taut link, None for a slack one (all
        zero, no tangent)."""
        f_n, f_t, energy, damping, friction = (0.0,) * 5 if values is None else values
        self.__dict__.update(  # frozen: set once, here
            force_row=None,
            index=index,
            normal_force=f_n,
            friction_force=f_t,
            energy=energy,
            damping_power=damping,
            friction_power=friction,
            tangent=tangent,
            rows=rows,
            _link=link,
        )

    @functools.cached_property
    def contact(self) -> ContactKinematics:
        system, state, i, zeros = self._link
        return link_contact(system, state, i, w_tangent=zeros)


def link_forces(system, state: LinksState, evaluated=None) -> dict[int, CompliantForce]:
    """The ``CompliantForce`` of every link of ``system.link_rows`` at ``state``
    (``links.links_state`` of all), by model index: ``compliant_force`` of each, with the
    ``Dropper`` laws evaluated for all links at once (``dropper_tension``, ``dropper_energy``;
    a link has no friction: W_T = 0, v_t = 0), their kinematics formed when read
    (``LinkForce``). Links of another law, or of a Dropper subclass with its own force (not
    ``compiled``), take ``compliant_force`` one by one.
    ``evaluated`` : the links' gaps, normal velocities and laws at the state as the compiled
    step evaluated them (``kernels.links.link_states``, (L, N_LINK_FIELDS)), taken instead of
    evaluating them here; None (the default) evaluates them."""
    n = system.layout.n
    zeros = zero_row(n)
    pairs = state.pairs.tolist()
    laws = [system.model.contacts[k].law for k in pairs]
    if not all(isinstance(law, Dropper) and law.compiled for law in laws):
        dense = state.dense_rows(n)
        return {
            k: compliant_force(
                law,
                link_contact(system, state, i, dense[i], zeros),
                k,
                (state.dofs[i], state.w_normal[i]),
            )
            for i, (k, law) in enumerate(zip(pairs, laws, strict=True))
        }
    stiffness = np.array([law.stiffness for law in laws])
    damping = np.array([law.damping for law in laws])
    gap, normal_velocity = state.gap, state.normal_velocity
    if evaluated is not None:
        gap, normal_velocity = evaluated[:, GAP], evaluated[:, VN]
    a, rate = -gap, -normal_velocity
    if evaluated is None:
        f_n, dn_da, dn_drate = dropper_tension(stiffness, damping, a, rate)
        energy = dropper_energy(stiffness, a)
    else:
        f_n, dn_da, dn_drate, energy = (
            np.ascontiguousarray(evaluated[:, j]) for j in (TENSION, SLOPE, RATE_SLOPE, ENERGY)
        )
    zero = np.zeros(a.size)
    elastic = stiffness * a ** np.array([law.exponent for law in laws])
    f_t, k_q, k_u, power, friction = _force_terms(
        f_n, dn_da, dn_drate, elastic, rate, zero, zero, zero, zero, zero
    )
    taut = (gap < 0.0).tolist()
    values = np.column_stack([f_n, f_t, energy, power, friction]).tolist()
    rows = list(zip(state.dofs, state.w_normal, strict=True))
    return {
        k: LinkForce(k, rows[i], (system, state, i, zeros), values[i], (k_q[i], k_u[i]))
        if taut[i]
        else LinkForce(k, rows[i], (system, state, i, zeros))
        for i, k in enumerate(pairs)
    }


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
    # every link with constant rows in one call (``coupling.links``)
    links = link_forces(system, links_state(system, q, u)) if system.link_rows.size else {}
    for j, k in enumerate(compliant_contacts(system)):
        if k in links:
            out.append(links[k])
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
