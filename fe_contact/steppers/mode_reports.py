"""What the partitioned stepper (``genalpha``) reports of a state: each contact's state and
forces, read from its mode and the multipliers of the rows (``contact_states.ContactModes``),
and the power terms of the energy balance.

A closed contact with rows reports its normal multiplier lambda_N (N) and its friction force:
the kinetic friction -mu sign(v_t) lambda_N plus the viscous part while it slips (Lipinski
(002), eq. 63), the stick row's multiplier while it sticks. In the energy-consistent form the
normal force is the step's normal impulse over h instead (``ConsistentContacts``). A compliant
contact reports its force law (``compliant.compliant_report``), or, while it rolls, the
rolling row's multiplier as its friction force.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .compliant import compliant_report
from .contact_report import ContactReport, open_contact, point_contact


def power_terms(system, modes, ev, lam, energy) -> dict:
    """The power terms of the balance at the evaluated state ev, W.

    Parameters
    ----------
    system : System
        The assembled system (its model's drives).
    modes : ContactModes
        The contacts' modes (``contact_states``).
    ev : Evaluation
        The state (``coupling.constraints.Evaluation``).
    lam : ndarray, shape (m,)
        The multipliers of its rows (N, N m).
    energy : Energies
        ``system.energies`` at ev (load, damping and compliant friction powers).

    Returns
    -------
    dict
        ``work_drives`` (the drives' multipliers times their joint rates), ``work_loads``,
        ``dissipated_damping``, ``dissipated_friction`` (the slipping contacts' and the
        compliant contacts'), W; the keys of ``batch.POWER_KEYS`` in its order.
    """
    n_c = modes.n_bilateral
    drive = sum(lam[n_c + k] * ev.u[d.joint] for k, d in enumerate(system.model.drives))
    # and the compliant contacts' (model.Compliant)
    friction = modes.friction_power(ev, lam) + energy.contact_friction_power
    return {
        "work_drives": float(drive),
        "work_loads": energy.load_power,
        "dissipated_damping": energy.damping_power,
        "dissipated_friction": float(friction),
    }


def contact_reports(system, modes, ev, lam, h: float, normal_impulse=None) -> tuple:
    """The ContactReport of every contact of the model at the end of a step of h.

    Parameters
    ----------
    system : System
        The assembled system.
    modes : ContactModes
        The contacts' modes (``contact_states``).
    ev : Evaluation
        The state at the end of the step.
    lam : ndarray, shape (m,)
        The multipliers of its rows (N, N m).
    h : float
        The step, s (impulses are forces times h).
    normal_impulse : ndarray, shape (n_rows,), optional
        The energy-consistent form's normal impulse of each contact with rows over the step,
        N s: reported as the normal force impulse / h. None: the normal multipliers.

    Returns
    -------
    tuple of ContactReport
        In the model's order of contacts.
    """
    reports = []
    by_model = {k: i for i, k in enumerate(modes.sliding)}
    compliant = {f.index: f for f in ev.compliant}
    for k, pair in enumerate(system.model.contacts):
        if k in compliant:  # a force law (model.Compliant), not a constraint row
            reports.append(_compliant(modes, pair.name, compliant[k], lam, h))
            continue
        i = by_model[k]
        c = ev.contacts[i]
        if not modes.is_closed(i):
            reports.append(open_contact(pair.name, np.inf if c is None else c.gap))
            continue
        normal = float(lam[modes.normal_row(i)])
        if not modes.is_sticking(i):
            state, friction = "slip", -ev.friction[i] * normal + ev.viscous[i]
        else:
            state, friction = "stick", float(lam[modes.stick_row(i)])
        if normal_impulse is not None:
            # the mean force of the step: the impulse the bodies received over it (the
            # steps' h Lambda, the projections closing J u + phi_t = 0, impacts), / h
            normal = float(normal_impulse[i]) / h
        reports.append(point_contact(pair.name, state, c, normal, friction, h))
    return tuple(reports)


def _compliant(modes, name: str, force, lam, h: float) -> ContactReport:
    i = modes.n_rows + modes.compliant.index(force.index)
    if not modes.is_rolling(i) or force.contact is None:
        return compliant_report(name, force, h, law=modes.law(i))
    rolling = float(lam[modes.rolling_row(i)])
    return compliant_report(name, dataclasses.replace(force, friction_force=rolling), h, "stick")


__all__ = ["contact_reports", "power_terms"]
