"""The saved state of a generalised-alpha step: what ``GeneralizedAlpha.save`` keeps and
``GeneralizedAlpha.restore`` puts back (the start of a step that fails whole, the start of a
sub-step re-taken to locate an event; the state a step's Newton iteration starts from and
returns, ``newton.newton_step``), and the contact modes it holds.

A ``StepState`` is frozen: to change one field, ``dataclasses.replace(state, t=...)``. Its
arrays and containers are the stepper's own at the time of saving (the stepper replaces them
when it steps, it does not write into them); ``restore`` copies the ones the stepper changes
in place.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np


class ContactMode(enum.IntEnum):
    """The mode of a contact of the generalised-alpha stepper (``StepState.modes``).

    OPEN : a unilateral contact that is open (no rows). STICK : closed, held by a tangential
    row (its multiplier is the static friction force). SLIP_FORWARD, SLIP_BACKWARD : closed,
    slipping with positive or negative slip velocity (kinetic friction against it, Lipinski
    (002), eq. 63). REST : closed and at rest without a stick row (no slip direction yet).
    ROLL : a compliant contact rolling (``steppers.contact_states``). FORCE_LAW : a compliant
    contact under its force law. RELEASED : a compliant contact under its force law, just
    released from rolling: it may roll again once its slip speed has exceeded v0 / 2.

    Examples
    --------
    >>> ContactMode(1).name, int(ContactMode.SLIP_BACKWARD)
    ('STICK', 3)
    """

    OPEN = 0
    STICK = 1
    SLIP_FORWARD = 2
    SLIP_BACKWARD = 3
    REST = 4
    ROLL = 5
    FORCE_LAW = 6
    RELEASED = 7


@dataclass(frozen=True, eq=False)
class StepState:
    """The state of a GeneralizedAlpha stepper between two (sub-)steps (module docstring).

    Parameters
    ----------
    t : float
        Time, s.
    q : ndarray, shape (n,)
        Coordinates.
    u : ndarray, shape (n,)
        Velocities.
    acceleration : ndarray, shape (n,)
        Accelerations q''.
    pseudo : ndarray, shape (n,)
        The algorithmic accelerations a of the generalised-alpha update.
    multipliers : ndarray, shape (m,)
        Multipliers of the present rows.
    evaluation : Evaluation
        The ``coupling.constraints.Evaluation`` at (t, q, u).
    parameters : ndarray, shape (n_c,)
        The contact parameters s (m; nan where none), the warm start of the closest points.
    partition : Partition
        The ``coupling.partition.Partition`` in use.
    mode : ndarray, shape (n_contacts,), int8
        The ContactMode of each contact (``contact_states.ContactModes``: the contacts with
        rows, Sliding then Unilateral, then the Compliant ones).
    anchors : tuple
        Per contact with rows, the StickAnchor of its stick row while it sticks, else None.
    previous : tuple or None
        (accelerations, h) of the step before, for the predictor, or None.
    powers : dict
        The power terms (W) at t (``GeneralizedAlpha._power_terms``).
    cond0 : float
        The condition number of J_u when the partition was chosen.
    n_events : int
        len(events) at t.
    impact_loss : float
        The step's impact loss so far, J.
    impact_work : float
        The drives' impulse work so far, J.
    numerical : float
        The scheme's own loss so far, J.
    forces : object
        What the force handling saves (``energy_consistent``).

    Examples
    --------
    The state after two steps of a pendulum, and a copy at another time:

    >>> import dataclasses
    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> from fe_contact.steppers.genalpha import GeneralizedAlpha
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> stepper = GeneralizedAlpha(assemble(Model(tree=pendulum)), 0.0, [0.0], [0.0], h=1e-3)
    >>> _ = stepper.step(), stepper.step()
    >>> state = stepper.save()
    >>> round(state.t, 6), dataclasses.replace(state, t=1.0).t, state.modes.size
    (0.002, 1.0, 0)
    """

    t: float
    q: np.ndarray
    u: np.ndarray
    acceleration: np.ndarray
    pseudo: np.ndarray
    multipliers: np.ndarray
    evaluation: object
    parameters: np.ndarray
    partition: object
    mode: np.ndarray
    anchors: tuple
    previous: tuple | None
    powers: dict
    cond0: float
    n_events: int
    impact_loss: float
    impact_work: float
    numerical: float
    forces: object

    @property
    def modes(self) -> np.ndarray:
        """(n_contacts,) the ContactMode members of ``mode`` (object array)."""
        modes = np.empty(self.mode.size, dtype=object)
        modes[:] = [ContactMode(m) for m in self.mode]
        return modes


__all__ = ["ContactMode", "StepState"]
