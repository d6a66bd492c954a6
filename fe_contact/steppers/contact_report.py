"""What a step reports of each contact pair: its state, points, forces and impulses.

A ``ContactReport`` per contact pair of the model is part of every ``StepReport``
(``steppers.step_report``); a ``RoughContactReport`` adds the impulses and the losses of a rough
pair (a ``Polyline`` on a ``Wheel``), and ``ProfileLosses`` holds the loss per vertex of its
polylines over a run (Slavic-Boltezar (003), eqs. (18)-(20)). ``point_states`` and
``pair_state`` give the state of the points of a grid or a polyline over an impulsive step and
of the pair; ``point_contact`` and ``open_contact`` build the report of a pair closed at one
point and of an open pair. ``STATE_CODES`` are the states as numbers in files.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

CONTACT_STATES = ("slip", "stick", "open", "taut", "slack")  # taut, slack: a Dropper
STATE_CODES = {"open": 0, "slip": 1, "stick": 2, "taut": 3, "slack": 4}  # as numbers in files
STICK_SPEED = 1e-6  # m/s: a pressed point of a grid slipping slower than this sticks


@dataclass(frozen=True, eq=False)
class ContactReport:
    """One contact pair at the end of a step.

    k below is the number of its contact points: 1 for a closest-point contact, the closed
    candidates of a grid, 0 when open.

    Parameters
    ----------
    name : str
        The pair's name.
    state : str
        "slip", "stick" or "open" (a compliant contact or a link: its own states).
    point : ndarray, shape (k, 2)
        Contact points on the target, m.
    normal : ndarray, shape (k, 2)
        Unit normals, from the target to the profile.
    tangent : ndarray, shape (k, 2)
        Unit tangents.
    parameter : ndarray, shape (k,)
        Material coordinate s, m (NaN on a line).
    gap : ndarray, shape (k,)
        Gaps, m.
    slip_velocity : ndarray, shape (k,)
        Slip velocities, m/s.
    normal_force : ndarray, shape (k,)
        Force on the profile along the normal, N (for an impulsive stepper the mean force of
        the step, impulse / h).
    friction_force : ndarray, shape (k,)
        Force on the profile along the tangent, N (mean force for an impulsive stepper).
    normal_impulse : ndarray, shape (k,)
        The normal force integrated over the step, N s.
    friction_impulse : ndarray, shape (k,)
        The friction force integrated over the step, N s.
    min_gap : float
        Smallest gap of the pair at the end of the step (all its points or candidates), m; it
        is the only value that is meaningful while the pair is open.
    point_state : tuple of str, shape (k,), optional
        The state of each point, "slip", "stick" or "open" (a closed candidate that took no
        normal impulse), from the stepper (``point_states``); None: each point is in the
        pair's ``state`` (a closest-point contact's one point). ``states`` gives it always.

    Examples
    --------
    The resting mass of ``StepReport``'s example: one closed point; its normal force is a
    little more than m g = 0.4905 N because the deflected beam's normal leans (as in the static
    solution, 0.4911 N):

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> contact = result.reports[-1].contacts[0]
    >>> contact.n_points, round(float(contact.normal_force[0]), 4)
    (1, 0.4911)
    """

    name: str
    state: str
    point: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    parameter: np.ndarray
    gap: np.ndarray
    slip_velocity: np.ndarray
    normal_force: np.ndarray
    friction_force: np.ndarray
    normal_impulse: np.ndarray
    friction_impulse: np.ndarray
    min_gap: float
    point_state: tuple[str, ...] | None = None

    @property
    def n_points(self) -> int:
        return int(self.gap.size)

    @property
    def states(self) -> tuple[str, ...]:
        """The state of each of the k points (``point_state``, or the pair's state for each)."""
        if self.point_state is not None:
            return tuple(self.point_state)
        return (self.state,) * self.n_points

    @property
    def state_codes(self) -> np.ndarray:
        """The states of the k points as the numbers of ``STATE_CODES`` (0 open, 1 slip, 2
        stick), int32, shape (k,)."""
        return np.array([STATE_CODES[s] for s in self.states], dtype=np.int32).reshape(-1)

    @functools.cached_property
    def main(self) -> int:
        """Index of the point with the largest normal force (-1 when there is none)."""
        if self.gap.size == 0:
            return -1
        return int(np.argmax(self.normal_force))


@dataclass(frozen=True, eq=False)
class RoughContactReport(ContactReport):
    """The report of a rough pair (a ``Polyline`` on a ``Wheel``).

    Its k points are the closed point-segment contacts of the step, with the impulses of the
    step (impact and smooth motion); its fields are those of ``ContactReport`` and four more.

    Parameters
    ----------
    name : str
        The pair's name.
    state : str
        "slip", "stick" or "open".
    point : ndarray, shape (k, 2)
        Contact points, m.
    normal : ndarray, shape (k, 2)
        Unit contact normals.
    tangent : ndarray, shape (k, 2)
        Unit tangents.
    parameter : ndarray, shape (k,)
        NaN (no material coordinate on a polyline pair).
    gap : ndarray, shape (k,)
        Gaps, m.
    slip_velocity : ndarray, shape (k,)
        Slip velocities, m/s.
    normal_force : ndarray, shape (k,)
        Mean normal forces of the step (impulse / h), N.
    friction_force : ndarray, shape (k,)
        Mean friction forces of the step, N.
    normal_impulse : ndarray, shape (k,)
        Normal impulses of the step, N s.
    friction_impulse : ndarray, shape (k,)
        Friction impulses of the step, N s.
    min_gap : float
        Smallest gap of the pair at the end of the step, m.
    point_state : tuple of str, shape (k,), optional
        The state of each point, "slip", "stick" or "open" (``point_states``); None: each
        point is in the pair's ``state``.
    impulse_xy : ndarray, shape (2,), optional
        The pair's whole impulse on the profile over the step, plane axes, N s.
    normal_impulse_xy : ndarray, shape (2,), optional
        Its part along the contact normals, N s.
    loss_profile : float, optional
        The loss booked on the profile's vertices since the start of the run, J
        (Slavic-Boltezar (003), eqs. (18)-(20)).
    loss_target : float, optional
        The loss booked on the rim's vertices since the start of the run, J.

    Examples
    --------
    An open rough pair carries no impulse:

    >>> from fe_contact.steppers.contact_report import RoughContactReport, open_contact
    >>> report = RoughContactReport(**vars(open_contact("pin", 1e-4)))
    >>> report.impulse_xy.tolist(), report.loss_profile
    ([0.0, 0.0], 0.0)
    """

    impulse_xy: np.ndarray = field(default_factory=lambda: np.zeros(2))
    normal_impulse_xy: np.ndarray = field(default_factory=lambda: np.zeros(2))
    loss_profile: float = 0.0
    loss_target: float = 0.0


@dataclass(frozen=True, eq=False)
class ProfileLosses:
    """The loss of mechanical energy W per vertex of a rough pair's polylines over a run.

    Slavic-Boltezar (003), eqs. (18)-(20), the input of the re-shaping of 003 eqs. (16)-(17).

    Parameters
    ----------
    name : str
        The pair's name.
    profile : ndarray, shape (n_profile,)
        Loss on the Polyline's vertices, J.
    target : ndarray, shape (n_rim,)
        Loss on the Wheel's rim vertices, J.

    Examples
    --------
    >>> from fe_contact.steppers.contact_report import ProfileLosses
    >>> losses = ProfileLosses("pin", profile=np.array([0.0, 1e-4, 3e-4]), target=np.zeros(720))
    >>> print(f"{losses.profile.sum():.4g} J on the pin, {losses.target.sum():.4g} J on the rim")
    0.0004 J on the pin, 0 J on the rim
    """

    name: str
    profile: np.ndarray
    target: np.ndarray


def point_states(normal_impulse, slip_velocity, mu: float) -> tuple[str, ...]:
    """The state of each closed point of a grid or polyline over an impulsive step: "open"
    where it took no normal impulse (P_N = 0: closed by its gap, but not pressed), "stick"
    where it was pressed and slips slower than ``STICK_SPEED`` with mu > 0, else "slip".

    Parameters
    ----------
    normal_impulse : array_like, shape (k,)
        Normal impulses of the step, N s.
    slip_velocity : array_like, shape (k,)
        Slip velocities at the end of the step, m/s.
    mu : float
        The pair's friction coefficient.

    Returns
    -------
    tuple of str, shape (k,)
        "open", "stick" or "slip" per point.

    Examples
    --------
    >>> from fe_contact.steppers.contact_report import pair_state, point_states
    >>> states = point_states([1e-3, 1e-3, 0.0], [0.0, 0.02, 0.5], mu=0.3)
    >>> states, pair_state(states)
    (('stick', 'slip', 'open'), 'slip')
    """
    pressed = np.asarray(normal_impulse, dtype=float) > 0.0
    still = np.abs(np.asarray(slip_velocity, dtype=float)) <= STICK_SPEED
    return tuple(
        "open" if not p else "stick" if s and mu > 0.0 else "slip"
        for p, s in zip(pressed, still, strict=True)
    )


def pair_state(states) -> str:
    """The state of a pair from its points' (``point_states``): "stick" when at least one
    point sticks and none slips, else "slip" (also when no point is pressed).

    Parameters
    ----------
    states : sequence of str
        The points' states, "open", "stick" or "slip".

    Returns
    -------
    str
        "stick" or "slip".

    Examples
    --------
    >>> from fe_contact.steppers.contact_report import pair_state
    >>> pair_state(("stick", "open", "stick")), pair_state(("open", "open"))
    ('stick', 'slip')
    """
    return "stick" if "stick" in states and "slip" not in states else "slip"


def point_contact(name: str, state: str, c, normal: float, friction: float, h: float):
    """The report of a pair closed at the one point of its ``ContactKinematics``.

    Parameters
    ----------
    name : str
        The pair's name.
    state : str
        "slip" or "stick".
    c : ContactKinematics
        The contact point's kinematics (point, normal, tangent, parameter, gap, slip
        velocity).
    normal : float
        Normal force, N.
    friction : float
        Friction force, N.
    h : float
        The step, s; the impulses are the forces times h.

    Returns
    -------
    ContactReport
        The report, with one point (k = 1).

    Examples
    --------
    The impulses are the forces times the step:

    >>> from types import SimpleNamespace
    >>> from fe_contact.steppers.contact_report import point_contact
    >>> c = SimpleNamespace(point=np.array([0.3, 0.0]), normal=np.array([0.0, 1.0]),
    ...                     tangent=np.array([1.0, 0.0]), parameter=0.3, gap=0.0, slip_velocity=0.1)
    >>> report = point_contact("tip", "slip", c, normal=2.0, friction=-0.4, h=1e-3)
    >>> report.normal_impulse.tolist(), report.friction_impulse.tolist()
    ([0.002], [-0.0004])
    """
    return ContactReport(
        name=name,
        state=state,
        point=c.point[None, :],
        normal=c.normal[None, :],
        tangent=c.tangent[None, :],
        parameter=np.array([c.parameter]),
        gap=np.array([c.gap]),
        slip_velocity=np.array([c.slip_velocity]),
        normal_force=np.array([normal]),
        friction_force=np.array([friction]),
        normal_impulse=np.array([normal * h]),
        friction_impulse=np.array([friction * h]),
        min_gap=c.gap,
    )


def open_contact(name: str, min_gap: float) -> ContactReport:
    """The report of a pair with no closed point.

    Parameters
    ----------
    name : str
        The pair's name.
    min_gap : float
        Smallest gap of the pair, m.

    Returns
    -------
    ContactReport
        State "open", with no points (k = 0).

    Examples
    --------
    >>> from fe_contact.steppers.contact_report import open_contact
    >>> report = open_contact("tip", min_gap=0.002)
    >>> report.state, report.n_points, report.main, report.min_gap
    ('open', 0, -1, 0.002)
    """
    empty = np.zeros(0)
    return ContactReport(
        name=name,
        state="open",
        point=np.zeros((0, 2)),
        normal=np.zeros((0, 2)),
        tangent=np.zeros((0, 2)),
        parameter=empty,
        gap=empty,
        slip_velocity=empty,
        normal_force=empty,
        friction_force=empty,
        normal_impulse=empty,
        friction_impulse=empty,
        min_gap=float(min_gap),
    )


__all__ = [
    "CONTACT_STATES",
    "ContactReport",
    "ProfileLosses",
    "RoughContactReport",
    "STATE_CODES",
    "STICK_SPEED",
    "open_contact",
    "pair_state",
    "point_contact",
    "point_states",
]
