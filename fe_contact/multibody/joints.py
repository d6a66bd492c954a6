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

JOINT_KINDS = ("revolute", "prismatic")


def _finite_float(value: object, name: str, where: str) -> float:
    """``float(value)`` or a ValueError naming ``name`` if it is not a finite real number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}{name} must be a finite real number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{where}{name} must be a finite real number, got {value!r}")
    return number


def _vector2(value: object, name: str, where: str) -> tuple[float, float]:
    """``value`` as a tuple of two finite floats or a ValueError naming ``name``."""
    try:
        items = tuple(value)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"{where}{name} must be a pair (x, y) of numbers, got {value!r}") from None
    if len(items) != 2:
        raise ValueError(f"{where}{name} must be a pair (x, y) of numbers, got {value!r}")
    return (_finite_float(items[0], name, where), _finite_float(items[1], name, where))


@dataclass(frozen=True)
class Joint:
    """Revolute or prismatic joint i between body i and its parent.

    kind : "revolute" or "prismatic".
    parent : index of the parent body (bodies are numbered 0..n-1 in the order given), which must
        be lower than i, or None for the ground.
    location : (x, y) in m, the joint's point (origin of body i's frame at q_i = 0) in the
        parent's frame (in the ground frame for parent None).
    angle : rad. Revolute: constant offset, body angle = parent angle + angle + q_i. Prismatic:
        direction of the sliding axis in the parent's frame (the mobility vector a^i of 002,
        eq. 2a); body angle = parent angle + angle and q_i is the displacement along the axis.
    stiffness : >= 0, N m/rad (revolute) or N/m (prismatic); spring force -stiffness (q_i - rest).
    damping : >= 0, N m s/rad or N s/m; damper force -damping q_i'.
    rest : rest position of the spring, rad or m.
    actuator : None, a constant, or a callable ``actuator(t) -> float``: generalised force (N m or
        N) applied by the joint on body i in the direction of increasing q_i.
    """

    kind: str
    parent: int | None = None
    location: tuple[float, float] = (0.0, 0.0)
    angle: float = 0.0
    stiffness: float = 0.0
    damping: float = 0.0
    rest: float = 0.0
    actuator: float | Callable[[float], float] | None = None

    def __post_init__(self) -> None:
        if self.kind not in JOINT_KINDS:
            raise ValueError(f"Joint kind must be one of {JOINT_KINDS}, got {self.kind!r}")
        if self.parent is not None and (
            isinstance(self.parent, bool) or not isinstance(self.parent, int) or self.parent < 0
        ):
            raise ValueError(
                f"Joint parent must be None (ground) or a body index >= 0, got {self.parent!r}"
            )
        object.__setattr__(self, "location", _vector2(self.location, "location", "Joint "))
        for name in ("angle", "stiffness", "damping", "rest"):
            object.__setattr__(self, name, _finite_float(getattr(self, name), name, "Joint "))
        for name in ("stiffness", "damping"):
            if getattr(self, name) < 0.0:
                raise ValueError(f"Joint {name} must be >= 0, got {getattr(self, name)!r}")
        if self.actuator is not None and not callable(self.actuator):
            object.__setattr__(self, "actuator", _finite_float(self.actuator, "actuator", "Joint "))


def actuator_force(joint: Joint, t: float) -> float:
    """Generalised force of the joint's actuator at time ``t`` (0.0 without an actuator)."""
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
