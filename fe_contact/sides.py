"""The sides of a contact, each on a tree body, on a structure or fixed in the plane (SI units).

Profiles sit on a tree body: ``Point`` (an edge or a tip) and ``Circle`` (a disk or a roller).
Both answer the same questions through ``at`` (the centre on the body) and ``radius``: a point
is a circle of radius zero. A ``Profile`` is a curve (Bezier or B-spline) on a tree body, on a
rigid body carried by a structure (``CarriedBody``) or fixed in the plane; two curves touch
where the closest-point conditions of Bauchau (000), eqs. (5)-(6), hold
(``coupling.profile_contact``). A ``Line`` is a rigid straight target, fixed or on a
translating body.

A ``ContactPair`` of ``fe_contact.model`` joins two sides under a contact law; the other sides
are a structure (by name), a material point of a structure (``structure_points.MaterialPoint``)
and the rough polylines and wheels of ``fe_contact.rough``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import validation as check
from .curves import Curve


def check_body_point(name: str, value) -> tuple[float, float] | str:
    """A point of a body, checked: the name of a tree point, or local coordinates (x, y) in m.

    A name is returned as given (the ``Model`` resolves it against the tree); coordinates are
    returned as a pair of floats.

    Parameters
    ----------
    name : str
        The label of the value in an error message (``Point.at``, ``LoopClosure 'pin'.point_a``).
    value : str or tuple of float, shape (2,)
        The name of a tree point (``TreeModel.points``), or (x, y) in m in the body's frame.

    Returns
    -------
    str or tuple of float
        The name, or the point (x, y) in m.

    Raises
    ------
    TypeError
        When ``value`` has the wrong kind, naming ``name``.
    ValueError
        When ``value`` is neither a name nor a pair of finite numbers.

    Examples
    --------
    >>> from fe_contact.sides import check_body_point
    >>> check_body_point("Point.at", (0.3, 0))
    (0.3, 0.0)
    >>> check_body_point("Point.at", "tip")
    'tip'
    """
    return value if isinstance(value, str) else check.vector(name, value, unit="m")


# ------------------------------------------------------------------------------------------
# Profiles on bodies and rigid targets
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """A point of a tree body: an edge, a tip (a circle of radius zero).

    Parameters
    ----------
    body : int
        Index of the tree body (>= 0).
    at : tuple of float, shape (2,), or str, optional
        The point (x, y) in m in the body's frame, or the name of a point of the tree
        (``TreeModel.points``); (0, 0) by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``body`` is not a non-negative integer or ``at`` is neither a pair of finite
        numbers nor a name.

    Examples
    --------
    The end of a 0.3 m body, and a named point of the tree:

    >>> from fe_contact import Point
    >>> Point(2, (0.3, 0.0))
    Point(body=2, at=(0.3, 0.0))
    >>> Point(0, "tip").at
    'tip'
    """

    body: int
    at: tuple[float, float] | str = (0.0, 0.0)

    radius = 0.0

    def __post_init__(self):
        object.__setattr__(self, "body", check.integer("Point.body", self.body, low=0))
        object.__setattr__(self, "at", check_body_point("Point.at", self.at))


@dataclass(frozen=True)
class Circle:
    """A circle on a tree body: a disk, a wheel, a roller.

    Its material points turn with the body: friction acts at the circle's contact point, so it
    rolls or slips.

    Parameters
    ----------
    body : int
        Index of the tree body (>= 0).
    radius : float
        Radius in m, > 0.
    centre : tuple of float, shape (2,), optional
        Centre (x, y) in m in the body's frame; (0, 0) by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``body`` is not a non-negative integer, ``radius`` is not positive or ``centre``
        is not a pair of finite numbers.

    Examples
    --------
    >>> from fe_contact import Circle
    >>> wheel = Circle(body=2, radius=0.05)
    >>> print(f"rim length {2 * np.pi * wheel.radius:.4g} m")
    rim length 0.3142 m
    >>> Circle(body=0, radius=0.0)
    Traceback (most recent call last):
    ...
    ValueError: ...radius...
    """

    body: int
    radius: float
    centre: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self):
        object.__setattr__(self, "body", check.integer("Circle.body", self.body, low=0))
        radius = check.real("Circle.radius", self.radius, low=0.0, low_open=True, unit="m")
        object.__setattr__(self, "radius", radius)
        object.__setattr__(self, "centre", check.vector("Circle.centre", self.centre, unit="m"))

    @property
    def at(self) -> tuple[float, float]:
        return self.centre


@dataclass(frozen=True)
class Line:
    """A rigid straight line: fixed in the plane, or a flat profile of a translating tree body.

    Parameters
    ----------
    point : tuple of float, shape (2,)
        A point of the line in m (in the body's frame when ``body`` is given).
    normal : tuple of float, shape (2,)
        Normal pointing to the free side (normalised on construction; a unit normal is kept as
        given).
    body : int or None, optional
        None (fixed in the plane, the default) or the tree body that carries the line; that
        body must only translate: every joint of its chain prismatic, as a belt or a sliding
        table.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``point`` or ``normal`` is not a pair of finite numbers, ``normal`` is zero or
        ``body`` is not a non-negative integer.

    Examples
    --------
    A floor y = 0 and a 30 degree incline (the normal is normalised on construction):

    >>> from fe_contact import Line
    >>> floor = Line(point=(0.0, 0.0), normal=(0.0, 2.0))
    >>> floor.normal
    (0.0, 1.0)
    >>> slope = Line.incline(np.radians(30.0))
    >>> [round(float(n), 4) for n in slope.normal]
    [-0.5, 0.866]
    """

    point: tuple[float, float]
    normal: tuple[float, float]
    body: int | None = None

    def __post_init__(self):
        if self.body is not None:
            object.__setattr__(self, "body", check.integer("Line.body", self.body, low=0))
        object.__setattr__(self, "point", check.vector("Line.point", self.point, unit="m"))
        n = np.asarray(check.vector("Line.normal", self.normal))
        size = float(np.hypot(*n))
        if size == 0.0:
            check.fail("Line.normal", self.normal, "a nonzero vector (x, y)")
        if abs(size - 1.0) > 4.0 * np.finfo(float).eps:  # a unit normal is kept as given, so
            n = n / size  # that Line(line.point, line.normal) == line
        object.__setattr__(self, "normal", (float(n[0]), float(n[1])))

    @classmethod
    def incline(cls, angle: float, point=(0.0, 0.0)) -> Line:
        """Line rising at ``angle`` rad towards +x, free side above: n = (-sin a, cos a)."""
        angle = check.real("Line.incline.angle", angle, unit="rad")
        return cls(point, (-math.sin(angle), math.cos(angle)))


@dataclass(frozen=True)
class Profile:
    """A curved profile (Bezier or B-spline) on a body or fixed in the plane, Bauchau (000), sec. 2.2.

    The curve is traversed counter-clockwise around the body, so that its normal
    n = (t_y, -t_x) points out of the body (000 eq. 3). As a ContactPair's profile it touches a
    target Profile (two curves, 000 eqs. 5-7), a structure's deformed centre line (by name, on
    the pair's ``side``) or a rigid ``Line`` (at its support point in the direction of minus
    the line's normal, ``coupling.profile_line``); as a target it is touched by a Point, a
    Circle or a Profile.

    Parameters
    ----------
    body : int, str or None
        The frame the curve is drawn in: a tree body (int), a body carried by a structure (the
        name of a ``CarriedBody``), or None (fixed in the plane: the curve in plane
        coordinates).
    curve : Curve
        The curve (``curves.Curve``, control points in m).

    Raises
    ------
    TypeError
        When ``body`` is not an int, a str or None, or ``curve`` is not a
        ``curves.Curve``.
    ValueError
        When ``body`` is a negative integer or a str that is not an identifier.

    Examples
    --------
    A parabolic cam face y = x^2 (a quadratic Bezier curve, m) on tree body 0:

    >>> from fe_contact.curves import Curve
    >>> from fe_contact.sides import Profile
    >>> face = Profile(0, Curve.bezier([(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)]))
    >>> print(f"curvature at the vertex {face.curve.at(0.5).curvature:.4g} 1/m (2 for y = x^2)")
    curvature at the vertex 2 1/m (2 for y = x^2)
    """

    body: int | str | None
    curve: Curve

    def __post_init__(self):
        if isinstance(self.body, str):
            check.identifier("Profile.body", self.body)
        elif self.body is not None:
            object.__setattr__(self, "body", check.integer("Profile.body", self.body, low=0))
        check.instance("Profile.curve", self.curve, Curve, "a curves.Curve (bezier or bspline)")

    radius = 0.0
    at = (0.0, 0.0)


@dataclass(frozen=True)
class CarriedBody:
    """A rigid body clamped to a material point of a structure (Bauchau's (000) tip and mid-span
    bodies, sec. 7.2).

    Its mass centre is the material point, and its frame turns with the structure's slope there
    (the frame's axes are the structure's reference axes t0, n0 turned by atan(w'): see
    ``system``). Its mass and rotary inertia enter the structure's mass matrix as
    m N^T N + J N'^T N', and its weight enters the structure's load.

    Parameters
    ----------
    name : str
        The name by which a Profile refers to it (an identifier).
    structure : str
        Name of the structure it is clamped to.
    s : float
        Material coordinate of the clamp along the structure, m (>= 0).
    mass : float
        Mass in kg (>= 0).
    inertia : float, optional
        Rotary inertia about the mass centre, kg m^2 (>= 0); 0 by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``name`` is not an identifier, or ``s``, ``mass`` or ``inertia`` is negative or
        not finite.

    Examples
    --------
    A 0.1 kg tip mass clamped to the end of the beam "beam" (its weight loads the beam):

    >>> from fe_contact.sides import CarriedBody
    >>> CarriedBody("tip_mass", "beam", s=0.4, mass=0.1).inertia
    0.0
    """

    name: str
    structure: str
    s: float
    mass: float
    inertia: float = 0.0

    def __post_init__(self):
        check.identifier("CarriedBody.name", self.name)
        check.instance("CarriedBody.structure", self.structure, str, "a structure name")
        object.__setattr__(self, "s", check.real("CarriedBody.s", self.s, low=0.0, unit="m"))
        mass = check.real("CarriedBody.mass", self.mass, low=0.0, unit="kg")
        object.__setattr__(self, "mass", mass)
        inertia = check.real("CarriedBody.inertia", self.inertia, low=0.0, unit="kg m^2")
        object.__setattr__(self, "inertia", inertia)


__all__ = ["CarriedBody", "Circle", "Line", "Point", "Profile", "check_body_point"]
