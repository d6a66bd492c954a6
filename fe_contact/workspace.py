"""Workspace: the state of one run that is not the mechanical state (Pinocchio's Model/Data).

A ``System`` is constant: it is shared freely between runs, threads and processes, and no
attribute of it is written after ``assemble``. What a run learns on the way and reuses as a
starting guess lives in a ``Workspace``, made by each stepper for its run (``Stepper.workspace``)
and passed explicitly to the contact searches that read and write it:

- the contact parameter s (m) of each Compliant contact on a structure, the start of the next
  closest-point search (``coupling.contact.compliant_forces``);
- the parameters (eta, s) of each curved profile's contact point, the start of the next
  closest-point solve (``coupling.profile_contact.curved_contact``).

A function given ``workspace=None`` starts every search afresh and keeps nothing: the same
contact point (a converged closest point), reached from the global start.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=False)
class Workspace:
    """Warm starts of one run's contact searches.

    contact_parameters : dict, model contact index -> s (m), the last contact parameter of a
        Compliant contact on a structure.
    profile_parameters : dict, model contact index -> (2,) ndarray, the last (eta, s) of a
        curved profile's contact point (eta on the profile, s on its partner).
    """

    contact_parameters: dict = field(default_factory=dict)
    profile_parameters: dict = field(default_factory=dict)


__all__ = ["Workspace"]
