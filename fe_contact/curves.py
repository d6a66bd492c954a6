"""Planar parametric curves for contact profiles: Bézier curves of any degree and B-splines
given by their control polygons (Bauchau (000), sec. 2.2), evaluated by the compiled kernels of
``kernels.curves``.

A curve maps its parameter eta in [0, 1] (a material coordinate along the curve that does not
measure length) to a point p0(eta) in the frame of the body that carries it, with the
derivatives p1 = dp0/deta, p2 = d2p0/deta2 (000 eq. 2) and p3. ``RigidCurvePoint`` gives the unit
tangent t = p1 / |p1| and the outward normal n = t x b with b = e_z, the normal of the plane
(000 eq. 3): n = (t_y, -t_x), outward for a curve traversed counter-clockwise around the body;
the signed curvature kappa = (p1 x p2) / |p1|^3 (> 0 where the curve turns left, i.e. where a
counter-clockwise profile is convex) and the eta-derivatives of t and n that a contact's
Jacobian needs: dt/deta = kappa |p1| (-n), dn/deta = kappa |p1| t.

A Bézier curve of degree d has d + 1 control points and the knots (0,)*(d+1) + (1,)*(d+1).
A B-spline of degree d with N control points is ``clamped`` (default: it starts at the first and
ends at the last control point, open uniform knots) or uniform (knots equally spaced, the curve
runs over the middle N - d knot spans only, mapped to [0, 1]). 000 gives its cubic B-spline
(Table 3) by its polygon alone; which knots it used is not stated.

This module is geometry only; the contact pairs of profiles are built on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validation as check
from .kernels import curves as kernel

PERP = np.array([[0.0, -1.0], [1.0, 0.0]])  # turns a planar vector by +90 degrees


@dataclass(frozen=True)
class RigidCurvePoint:
    """A rigid curve (a ``Curve`` in its body's frame) at one parameter eta.

    Not a material point of a deformable structure: that is ``structures.CurvePoint`` (arc
    length s, rows dr/dq, normal the tangent turned by +90 degrees, where this outward normal is
    the tangent turned by -90 degrees).

    Parameters
    ----------
    eta : float
        The curve parameter, in [0, 1].
    position : ndarray, shape (2,)
        Position, m.
    p1 : ndarray, shape (2,)
        First eta-derivative of the position, m per unit eta.
    p2 : ndarray, shape (2,)
        Second eta-derivative, m per unit eta^2.
    p3 : ndarray, shape (2,)
        Third eta-derivative, m per unit eta^3.
    tangent : ndarray, shape (2,)
        Unit tangent.
    normal : ndarray, shape (2,)
        Outward unit normal.
    curvature : float
        Signed curvature kappa, 1/m.
    speed : float
        |p1|, m per unit eta.
    tangent_rate : ndarray, shape (2,)
        eta-derivative of the tangent, 1 per unit eta.
    normal_rate : ndarray, shape (2,)
        eta-derivative of the normal, 1 per unit eta.

    Examples
    --------
    At the vertex of y = x^2: tangent +x, outward normal (t_y, -t_x) = (0, -1), curvature 2 1/m:

    >>> from fe_contact.curves import Curve
    >>> g = Curve.bezier([(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)]).at(0.5)
    >>> g.tangent.round(4).tolist(), g.normal.round(4).tolist(), round(g.curvature, 4)
    ([1.0, 0.0], [0.0, -1.0], 2.0)
    """

    eta: float
    position: np.ndarray
    p1: np.ndarray
    p2: np.ndarray
    p3: np.ndarray
    tangent: np.ndarray
    normal: np.ndarray
    curvature: float
    speed: float
    tangent_rate: np.ndarray
    normal_rate: np.ndarray


class Curve:
    """A planar B-spline curve on eta in [0, 1] (use ``Curve.bezier`` or ``Curve.bspline``),
    evaluated by the compiled kernels of ``kernels.curves`` (de Boor's basis functions and their
    derivatives; the same polynomials as scipy's ``BSpline`` on these knots).

    Parameters
    ----------
    knots : ndarray, shape (n_points + degree + 1,)
        The knot vector in the spline's own parameter.
    control_points : ndarray, shape (n_points, 2)
        Its control points, m.
    degree : int
        The polynomial degree, >= 1.
    kind : str
        "bezier" or "bspline".
    eta_range : tuple of float, shape (2,)
        (a, b): eta in [0, 1] maps to the knot parameter a + (b - a) eta; a = 0 for a clamped
        curve.

    Examples
    --------
    The quadratic Bezier curve through (-1, 1), (0, -1), (1, 1) is the parabola y = x^2
    (x = 2 eta - 1): at eta = 0.75, (0.5, 0.25); the closest point to (0, -1) is its vertex:

    >>> from fe_contact.curves import Curve
    >>> parabola = Curve.bezier([(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)])
    >>> parabola.position(0.75).round(4).tolist()
    [0.5, 0.25]
    >>> round(parabola.closest((0.0, -1.0)), 6)
    0.5
    """

    def __init__(self, knots, control_points: np.ndarray, degree: int, kind: str, eta_range):
        self.knots = np.ascontiguousarray(knots, dtype=float)
        self.control_points = np.ascontiguousarray(control_points, dtype=float)
        self.kind = kind
        self.degree = int(degree)
        # eta in [0, 1] spans the knots from 0 for a Bezier curve and a clamped B-spline, the
        # middle N - d spans (from knot d >= 1) for a uniform one
        self.clamped = float(eta_range[0]) == 0.0
        self._a, self._b = float(eta_range[0]), float(eta_range[1])

    @property
    def spline(self) -> tuple:
        """(knots, control_points, degree, a, b): the curve as the kernels of
        ``kernels.curves`` take it (eta in [0, 1] is the knot parameter a + (b - a) eta)."""
        return self.knots, self.control_points, self.degree, self._a, self._b

    def __eq__(self, other) -> bool:
        """Value equality: the same kind, degree, clamping and control points (exactly, as
        ``np.array_equal``), hence the same curve (the knots follow from these).

        Examples
        --------
        >>> from fe_contact.curves import Curve
        >>> points = [(0.0, 0.0), (1.0, 1.0), (2.0, 0.0)]
        >>> Curve.bezier(points) == Curve.bezier(points), Curve.bezier(points) == Curve.bspline(points, 2)
        (True, False)
        """
        if not isinstance(other, Curve):
            return NotImplemented
        same = (self.kind, self.degree, self.clamped) == (other.kind, other.degree, other.clamped)
        return same and bool(np.array_equal(self.control_points, other.control_points))

    def __hash__(self) -> int:
        # the points as Python floats: hash(-0.0) == hash(0.0), as array_equal has them equal
        points = tuple(np.asarray(self.control_points, dtype=float).ravel().tolist())
        return hash((self.kind, self.degree, self.clamped, points))

    @classmethod
    def bezier(cls, control_points) -> Curve:
        """The Bézier curve of the (d + 1, 2) control points (degree d >= 1, in m)."""
        points = _points("Curve.bezier.control_points", control_points, 2)
        d = len(points) - 1
        knots = np.concatenate((np.zeros(d + 1), np.ones(d + 1)))
        return cls(knots, points, d, "bezier", (0.0, 1.0))

    @classmethod
    def bspline(cls, control_points, degree: int = 3, clamped: bool = True) -> Curve:
        """The B-spline of ``degree`` on the (N, 2) control points (N > degree), clamped (open
        uniform knots: it interpolates the end points) or uniform (see the module)."""
        degree = check.integer("Curve.bspline.degree", degree, low=1)
        points = _points("Curve.bspline.control_points", control_points, degree + 1)
        if not isinstance(clamped, bool):
            check.fail("Curve.bspline.clamped", clamped, "True or False", TypeError)
        n = len(points)
        if clamped:
            inner = np.linspace(0.0, 1.0, n - degree + 1)[1:-1]
            knots = np.concatenate((np.zeros(degree + 1), inner, np.ones(degree + 1)))
            span = (0.0, 1.0)
        else:
            knots = np.arange(n + degree + 1, dtype=float)
            span = (float(degree), float(n))
        return cls(knots, points, degree, "bspline", span)

    def derivatives(self, eta, order: int = 0) -> np.ndarray:
        """p0 and its eta-derivatives up to ``order`` (0-3) at the parameters ``eta`` (m,)
        (extrapolated beyond [0, 1]): (m, order + 1, 2), m per unit eta^k."""
        etas = np.ascontiguousarray(eta, dtype=float).reshape(-1)
        return kernel.curve_points(*self.spline, etas, int(order))

    def position(self, eta) -> np.ndarray:
        """p0 at eta (scalar: (2,); array (m,): (m, 2)), m."""
        shape = np.shape(eta)
        return self.derivatives(eta)[:, 0, :].reshape(shape + (2,))

    def at(self, eta: float) -> RigidCurvePoint:
        """The geometry at eta in [0, 1] (000 eqs. 2-3)."""
        eta = check.real("Curve.at.eta", eta, low=0.0, high=1.0)
        out = np.empty((4, 2))
        kernel.curve_derivatives(*self.spline, eta, out)
        p0, p1, p2, p3 = out
        speed = float(np.hypot(*p1))
        if not speed > 0.0:
            raise ValueError(
                f"Curve.at: the curve has no tangent at eta = {eta!r} (dp/deta = 0: repeated "
                f"control points)"
            )
        t = p1 / speed
        n = np.array([t[1], -t[0]])
        kappa = float(p1[0] * p2[1] - p1[1] * p2[0]) / speed**3
        return RigidCurvePoint(
            eta=eta,
            position=p0,
            p1=p1,
            p2=p2,
            p3=p3,
            tangent=t,
            normal=n,
            curvature=kappa,
            speed=speed,
            tangent_rate=-kappa * speed * n,
            normal_rate=kappa * speed * t,
        )

    def closest(self, point, eta_guess: float | None = None, tol: float = 1e-14) -> float:
        """The parameter eta in [0, 1] of the curve's point closest to ``point`` (2,) m.

        Newton on the orthogonality condition (point - p0) . p1 = 0 (000 eq. 6 with a point for
        the other curve; ``kernels.curves.closest_point``) from ``eta_guess``; without a guess,
        a global search first: the nearest of 20 N + 1 samples along the curve (N control
        points). An end of the curve is returned when the closest point lies there."""
        p = np.asarray(check.vector("Curve.closest.point", point, unit="m"))
        if eta_guess is None:
            samples = np.linspace(0.0, 1.0, 20 * len(self.control_points) + 1)
            eta = float(samples[np.argmin(np.sum((self.position(samples) - p) ** 2, axis=1))])
        else:
            eta = min(max(check.real("Curve.closest.eta_guess", eta_guess), 0.0), 1.0)
        return float(kernel.closest_point(*self.spline, float(p[0]), float(p[1]), eta, tol))


def _points(name: str, value, minimum: int) -> np.ndarray:
    try:
        points = np.array(value, dtype=float)
    except (TypeError, ValueError):
        check.fail(
            name, value, f"an (N, 2) array of control points in m, N >= {minimum}", TypeError
        )
    if points.ndim != 2 or points.shape[1] != 2 or len(points) < minimum:
        check.fail(name, value, f"an (N, 2) array of control points in m, N >= {minimum}")
    if not np.all(np.isfinite(points)):
        check.fail(name, value, "finite coordinates in m")
    return points


__all__ = ["Curve", "RigidCurvePoint"]
