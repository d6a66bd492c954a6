"""One-degree-of-freedom joints of a planar tree, Lipinski (002), sec. 2.

A joint connects body i to its parent (``None`` = ground, the reference body 0 of 002) and carries
one relative coordinate q_i: an angle in rad for ``"revolute"``, a displacement in m for
``"prismatic"`` (002: phi^i with rotational mobility vector e^i, or p^i with translational mobility
vector a^i). Springs, dampers and actuators act along that coordinate.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .. import validation as check

JOINT_KINDS = ("revolute", "prismatic")


@dataclass(frozen=True)
class Joint:
    """Revolute or prismatic joint i between body i and its parent.

    Parameters
    ----------
    kind : {"revolute", "prismatic"}
        The joint's kind.
    parent : int or None, optional
        Index of the parent body (bodies are numbered 0..n-1 in the order given), which must
        be lower than i, or None (the default) for the ground.
    location : tuple of float, shape (2,), optional
        (x, y) in m, the joint's point (origin of body i's frame at q_i = 0) in the parent's
        frame (in the ground frame for parent None); (0, 0) by default.
    angle : float, optional
        rad. Revolute: constant offset, body angle = parent angle + angle + q_i. Prismatic:
        direction of the sliding axis in the parent's frame (the mobility vector a^i of 002,
        eq. 2a); body angle = parent angle + angle and q_i is the displacement along the axis.
        0 by default.
    stiffness : float, optional
        >= 0, N m/rad (revolute) or N/m (prismatic); spring force -stiffness (q_i - rest). 0 by
        default.
    damping : float, optional
        >= 0, N m s/rad or N s/m; damper force -damping q_i'. 0 by default.
    rest : float, optional
        Rest position of the spring, rad or m; 0 by default.
    actuator : float, callable or None, optional
        None (the default), a constant, or a callable ``actuator(t) -> float``: generalised
        force (N m or N) applied by the joint on body i in the direction of increasing q_i.
    name : str or None, optional
        The joint's name (an identifier) in results and files; None: unnamed.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``kind`` is unknown, ``stiffness`` or ``damping`` is negative, a number (a
        constant ``actuator`` too) is not finite, or ``name`` is not an identifier.

    Examples
    --------
    A revolute joint with a torsion spring, and a prismatic joint sliding along +y:

    >>> from fe_contact import Joint
    >>> hinge = Joint("revolute", stiffness=10.0, damping=0.1, rest=0.2)
    >>> print(f"spring torque at q = 0: {-hinge.stiffness * (0.0 - hinge.rest):.4g} N m")
    spring torque at q = 0: 2 N m
    >>> slider = Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2)
    >>> Joint("spherical")
    Traceback (most recent call last):
    ...
    ValueError: ...kind...
    """

    kind: str
    parent: int | None = None
    location: tuple[float, float] = (0.0, 0.0)
    angle: float = 0.0
    stiffness: float = 0.0
    damping: float = 0.0
    rest: float = 0.0
    actuator: float | Callable[[float], float] | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        check.choice("Joint.kind", self.kind, JOINT_KINDS)
        if self.name is not None:
            check.identifier("Joint.name", self.name)
        if self.parent is not None:
            object.__setattr__(self, "parent", check.integer("Joint.parent", self.parent, low=0))
        object.__setattr__(
            self, "location", check.vector("Joint.location", self.location, unit="m")
        )
        revolute = self.kind == "revolute"
        units = {
            "angle": "rad",
            "stiffness": "N m/rad" if revolute else "N/m",
            "damping": "N m s/rad" if revolute else "N s/m",
            "rest": "rad" if revolute else "m",
        }
        for name, unit in units.items():
            low = 0.0 if name in ("stiffness", "damping") else None
            value = check.real(f"Joint.{name}", getattr(self, name), low=low, unit=unit)
            object.__setattr__(self, name, value)
        if self.actuator is not None and not callable(self.actuator):
            unit = "N m" if revolute else "N"
            value = check.real("Joint.actuator", self.actuator, unit=unit)
            object.__setattr__(self, "actuator", value)


def actuator_force(joint: Joint, t: float) -> float:
    """Generalised force of the joint's actuator at a time.

    Parameters
    ----------
    joint : Joint
        The joint.
    t : float
        Time, s.

    Returns
    -------
    float
        The force, N m or N (0.0 without an actuator).

    Examples
    --------
    A constant torque and one that grows linearly in time:

    >>> from fe_contact import Joint
    >>> from fe_contact.multibody.joints import actuator_force
    >>> actuator_force(Joint("revolute", actuator=1.5), 0.3)
    1.5
    >>> round(actuator_force(Joint("prismatic", actuator=lambda t: 2.0 * t), 0.3), 4)
    0.6
    """
    if joint.actuator is None:
        return 0.0
    if callable(joint.actuator):
        value = float(joint.actuator(t))
        if not math.isfinite(value):
            raise FloatingPointError(
                f"the actuator of a {joint.kind} joint returned {value!r} at t = {t:.6g} s; "
                "allowed: a finite force (N m or N)"
            )
        return value
    return joint.actuator
