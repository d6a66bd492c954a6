"""Prescribed joint motion of a tree, Lipinski (002), secs. 2 and 9.

A drive prescribes q_j = q_j(t), a rheonomic constraint with the Jacobian row e_j. Its multiplier
lambda_j enters M q'' + F = Q + e_j lambda_j (Lipinski (002), eq. 7a), so the driving torque
(N m, revolute) or force (N, prismatic) is the joint's row of M q'' + F - Q, positive along q_j:
the value the manipulator example (Lipinski (002), sec. 9, Fig. 7b) reports for its joint 2
turning at 0.2 rad/s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import validation as check


@dataclass(frozen=True)
class LinearMotion:
    """t -> value + rate * t (picklable, for parameter sweeps over processes).

    Parameters
    ----------
    value : float
        Value at t = 0 (rad or m, or the rate of a derivative).
    rate : float, optional
        Rate per second; 0 by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``value`` or ``rate`` is not a finite number.

    Examples
    --------
    >>> from fe_contact.multibody.drive import LinearMotion
    >>> round(LinearMotion(0.1, 0.2)(2.0), 4)
    0.5
    """

    value: float
    rate: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", check.real("LinearMotion.value", self.value))
        object.__setattr__(self, "rate", check.real("LinearMotion.rate", self.rate))

    def __call__(self, t: float) -> float:
        return self.value + self.rate * t


@dataclass(frozen=True)
class ReversingMotion:
    """A derivative of a motion at a rate that reverses smoothly (picklable, like LinearMotion).

    The velocity is rate (1 - 2 S(x)), S(x) = 3 x^2 - 2 x^3 the cubic smooth step over
    x = (t - t_reverse) / ramp + 1/2 in [0, 1].

    Parameters
    ----------
    value : float
        Position at t = 0, rad or m.
    rate : float
        Velocity before the reversal, rad/s or m/s.
    t_reverse : float
        Middle of the reversal, s.
    ramp : float
        Duration of the reversal, s.
    order : {0, 1, 2}
        The derivative returned: position, velocity or acceleration.

    Examples
    --------
    Velocity +0.2 before the ramp, -0.2 after it, 0 at its middle (the cubic step is 1/2 there):

    >>> from fe_contact.multibody.drive import ReversingMotion
    >>> v = ReversingMotion(0.0, 0.2, t_reverse=1.0, ramp=0.1, order=1)
    >>> [round(v(t), 4) + 0.0 for t in (0.9, 1.0, 1.1)]  # + 0.0: no "-0.0"
    [0.2, 0.0, -0.2]
    """

    value: float
    rate: float
    t_reverse: float
    ramp: float
    order: int

    def __call__(self, t: float) -> float:
        start = self.t_reverse - 0.5 * self.ramp
        x = min(max((t - start) / self.ramp, 0.0), 1.0)
        if self.order == 2:
            return -2.0 * self.rate * 6.0 * x * (1.0 - x) / self.ramp
        if self.order == 1:
            return self.rate * (1.0 - 2.0 * (3.0 * x * x - 2.0 * x**3))
        # the integral of S over the ramp: ramp (x^3 - x^4 / 2), then 1/2 ramp + (t - end)
        integral = self.ramp * (x**3 - 0.5 * x**4) + max(t - start - self.ramp, 0.0)
        return self.value + self.rate * t - 2.0 * self.rate * integral


@dataclass(frozen=True)
class Drive:
    """Prescribed motion q = position(t), q' = velocity(t), q'' = acceleration(t) of a joint.

    The three callables take t in s and return rad (rad/s, rad/s^2) for a revolute or m (m/s,
    m/s^2) for a prismatic joint; they must be consistent derivatives of each other.

    Parameters
    ----------
    joint : int
        Index of the driven joint.
    position : callable
        t -> q(t), rad or m.
    velocity : callable
        t -> q'(t), rad/s or m/s.
    acceleration : callable
        t -> q''(t), rad/s^2 or m/s^2.

    Raises
    ------
    TypeError
        When ``joint`` is not an integer or a motion is not callable.
    ValueError
        When ``joint`` is negative.

    Examples
    --------
    Joint 0 turned at 0.2 rad/s from 0.1 rad, and the same motion written out:

    >>> from fe_contact import Drive
    >>> drive = Drive.constant_velocity(0, 0.1, 0.2)
    >>> [round(drive.position(2.0), 4), round(drive.velocity(2.0), 4), round(drive.acceleration(2.0), 4)]
    [0.5, 0.2, 0.0]
    >>> swing = Drive(0, position=np.sin, velocity=np.cos, acceleration=lambda t: -np.sin(t))
    >>> round(float(swing.position(np.pi / 2)), 4)
    1.0
    """

    joint: int
    position: Callable[[float], float]
    velocity: Callable[[float], float]
    acceleration: Callable[[float], float]

    def __post_init__(self) -> None:
        object.__setattr__(self, "joint", check.integer("Drive.joint", self.joint, low=0))
        for name in ("position", "velocity", "acceleration"):
            check.function(f"Drive.{name}", getattr(self, name), "a callable of t")

    @classmethod
    def constant_velocity(cls, joint: int, q0: float, rate: float) -> Drive:
        """q_joint(t) = q0 + rate t, e.g. ``Drive.constant_velocity(1, 0.0, 0.2)`` (0.2 rad/s)."""
        q0 = check.real("Drive.constant_velocity.q0", q0)
        rate = check.real("Drive.constant_velocity.rate", rate)
        return cls(
            joint=joint,
            position=LinearMotion(q0, rate),
            velocity=LinearMotion(rate),
            acceleration=LinearMotion(0.0),
        )

    @classmethod
    def reversing(
        cls, joint: int, q0: float, rate: float, t_reverse: float, ramp: float = 0.02
    ) -> Drive:
        """q_joint' = rate until t_reverse - ramp / 2, then -rate from t_reverse + ramp / 2,
        turning with a smooth cubic step in between (the acceleration stays finite), from
        q_joint(0) = q0; t_reverse and ramp in s."""
        q0 = check.real("Drive.reversing.q0", q0)
        rate = check.real("Drive.reversing.rate", rate)
        ramp = check.real("Drive.reversing.ramp", ramp, low=0.0, low_open=True, unit="s")
        t_reverse = check.real("Drive.reversing.t_reverse", t_reverse, low=0.5 * ramp, unit="s")
        motion = [ReversingMotion(q0, rate, t_reverse, ramp, order) for order in (0, 1, 2)]
        return cls(joint, *motion)
