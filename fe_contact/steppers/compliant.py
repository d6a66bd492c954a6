"""Reports of compliant contacts (``model.Compliant``): their force is an applied force of the
equations of motion (``coupling.constraints.compliant_forces``), not a constraint row."""

from __future__ import annotations

import numpy as np

from .result import ContactReport, open_contact


def compliant_report(name: str, force, h: float, state: str | None = None) -> ContactReport:
    """The ContactReport of a compliant contact's ``CompliantForce`` at the end of a step of h
    (impulses: force times h). ``state``: "stick" while a rolling row holds it (default:
    "slip" while it pushes, else "open")."""
    c = force.contact
    if c is None or not force.normal_force > 0.0:
        return open_contact(name, np.inf if c is None else c.gap)
    f_n, f_t = force.normal_force, force.friction_force
    return ContactReport(
        name=name,
        state=state or "slip",
        point=c.point[None, :],
        normal=c.normal[None, :],
        tangent=c.tangent[None, :],
        parameter=np.array([c.parameter]),
        gap=np.array([c.gap]),
        slip_velocity=np.array([c.slip_velocity]),
        normal_force=np.array([f_n]),
        friction_force=np.array([f_t]),
        normal_impulse=np.array([f_n * h]),
        friction_impulse=np.array([f_t * h]),
        min_gap=c.gap,
    )


__all__ = ["compliant_report"]
