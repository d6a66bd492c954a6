"""Discretised rough contact profiles and their re-shaping by wear, Slavic-Boltezar (003), secs. 3
and 4.1.

A profile is a polyline of vertices fixed to a body, ``points`` (2, n) in m in the body's frame,
ordered so that the body's material lies on the left of the direction of travel: the outward
normal of a segment with unit tangent t is n = (t_y, -t_x). A convex wheel rim therefore runs
counter-clockwise, a concave face lying above a wheel runs clockwise about the wheel's centre.

The rough profile is a smooth reference curve (an arc) whose vertices are displaced along the
reference's outward normals by random heights h (003 sec. 4.1: "the discrete points are
randomised in the radial direction"). The heights are drawn as a random walk of the local slope,
so that the change of slope between neighbouring segments stays within ``max_slope_change``
(003: 15 deg), kept inside a band and scaled so that the peak-to-valley height of h is ``rz``.
The heights lie in [-rz, 0]: the reference curve touches the highest peaks and the valleys are
cut into the body (our choice; it keeps 003's initial clearance of the pin, v - a - R, open).
We take Rz as the peak-to-valley height of the profile's heights (the one-sampling-length form
of the ISO Rz); 003 gives no definition. Everything is reproducible from ``seed``
(``numpy.random.default_rng``).

Wear, 003 eqs. (16)-(17): with the loss of mechanical energy W per vertex, r_W = W / max W and
each vertex moves inward along its vertex normal by u = u_max r_W (``reshape``).

In a ``Model`` (``fe_contact.model``) a profile is a ``Polyline`` on a tree body that touches the
rim of a driven ``Wheel`` (a ContactPair with a Poisson ``Unilateral`` law, for the event-driven
stepper).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validation as check

__all__ = [
    "Polyline",
    "RoughProfile",
    "Wheel",
    "arc_profile",
    "check_rough_pair",
    "form_free_rz",
    "peak_to_valley",
    "reshape",
    "rough_arc",
    "segment_normals",
    "turning_angles",
    "vertex_normals",
]


def _readonly(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class RoughProfile:
    """A polyline profile fixed to a body (module docstring for the orientation).

    Parameters
    ----------
    points : ndarray, shape (2, n)
        Vertices in m in the body's frame, material on the left; n >= 2.
    reference : ndarray, shape (2, n)
        The smooth curve the vertices were built from, m (the roughness is measured from it
        along ``reference_normals``).
    reference_normals : ndarray, shape (2, n)
        Unit outward normals of the reference at its vertices.

    Raises
    ------
    ValueError
        When an array is not of shape (2, n), n >= 2, or not finite.
    TypeError
        When an array is not numeric.

    Examples
    --------
    A smooth arc has no roughness; moving one vertex 1 um inward gives it a height of -1 um:

    >>> from fe_contact.rough import RoughProfile, arc_profile
    >>> arc = arc_profile((0.0, 0.0), 0.05, 0.0, np.pi / 2, 10)
    >>> dented = arc.points.copy()
    >>> dented[:, 4] -= 1e-6 * arc.reference_normals[:, 4]
    >>> profile = RoughProfile(dented, arc.reference, arc.reference_normals)
    >>> print(f"{profile.heights()[4]:.4g} m, n = {profile.n_points}")
    -1e-06 m, n = 10
    """

    points: np.ndarray
    reference: np.ndarray
    reference_normals: np.ndarray

    def __post_init__(self):
        n = np.shape(self.points)[-1] if np.ndim(self.points) == 2 else 0
        if n < 2:
            check.fail(
                "RoughProfile.points", np.shape(self.points), "an array of shape (2, n), n >= 2"
            )
        for name in ("points", "reference", "reference_normals"):
            value = check.finite_array(f"RoughProfile.{name}", getattr(self, name), (2, n))
            object.__setattr__(self, name, _readonly(value))

    @property
    def n_points(self) -> int:
        return self.points.shape[1]

    def heights(self) -> np.ndarray:
        """(n,) roughness heights in m: (points - reference) . reference_normals."""
        return np.sum((self.points - self.reference) * self.reference_normals, axis=0)


@dataclass(frozen=True, eq=False)
class Polyline:
    """A discretised rough profile on a tree body, Slavic-Boltezar (003), sec. 4.1.

    As a ContactPair's profile it touches the rim of a ``Wheel``, each of its vertices and each
    of the rim's a possible contact point. Its vertices run clockwise about the wheel's centre
    (material on the left of the direction of travel, ``fe_contact.rough``).

    Parameters
    ----------
    body : int
        Index of the tree body (>= 0).
    profile : RoughProfile
        The vertices, m in the body's frame (``fe_contact.rough.RoughProfile``).

    Raises
    ------
    TypeError
        When ``body`` is not an integer or ``profile`` is not a RoughProfile.
    ValueError
        When ``body`` is negative.

    Examples
    --------
    A pin's face: a clockwise arc of radius 2 mm about its centre (material outside the circle):

    >>> from fe_contact import Polyline
    >>> from fe_contact.rough import arc_profile
    >>> face = arc_profile((0.0, 0.0), 0.002, np.pi, 0.0, 21)
    >>> pin = Polyline(body=0, profile=face)
    >>> pin.profile.n_points
    21
    """

    body: int
    profile: RoughProfile

    radius = 0.0
    at = (0.0, 0.0)

    def __post_init__(self):
        object.__setattr__(self, "body", check.integer("Polyline.body", self.body, low=0))
        check.instance("Polyline.profile", self.profile, RoughProfile, "a RoughProfile")


@dataclass(frozen=True, eq=False)
class Wheel:
    """A rigid wheel turning about the plane's origin at a prescribed angle alpha_0 + omega t.

    The driven wheel of Slavic-Boltezar (003), sec. 4 (003 eq. (22): alpha = 2 pi f t). Its
    drive does the work -P . what of the contact impulses P (``coupling.rough_contact``).

    Parameters
    ----------
    rim : RoughProfile
        The rim polyline in the wheel's frame, counter-clockwise about the origin
        (``fe_contact.rough.RoughProfile``).
    omega : float
        Angular velocity, rad/s (negative: clockwise).
    alpha_0 : float, optional
        Angle at t = 0, rad; 0 by default.

    Raises
    ------
    TypeError
        When ``rim`` is not a RoughProfile or a number has the wrong kind.
    ValueError
        When ``omega`` or ``alpha_0`` is not finite, or the rim does not run counter-clockwise
        about the origin.

    Examples
    --------
    A wheel of radius 0.05 m (a quarter of its rim, 91 vertices) turning clockwise at 2 pi rad/s:

    >>> from fe_contact import Wheel
    >>> from fe_contact.rough import arc_profile
    >>> rim = arc_profile((0.0, 0.0), 0.05, -np.pi / 4, np.pi / 4, 91)
    >>> wheel = Wheel(rim=rim, omega=-2 * np.pi)
    >>> print(f"rim speed {abs(wheel.omega) * 0.05:.4g} m/s")
    rim speed 0.3142 m/s
    """

    rim: RoughProfile
    omega: float
    alpha_0: float = 0.0

    def __post_init__(self):
        check.instance("Wheel.rim", self.rim, RoughProfile, "a RoughProfile")
        object.__setattr__(self, "omega", check.real("Wheel.omega", self.omega, unit="rad/s"))
        object.__setattr__(self, "alpha_0", check.real("Wheel.alpha_0", self.alpha_0, unit="rad"))
        theta = np.unwrap(np.arctan2(self.rim.points[1], self.rim.points[0]))
        if np.any(np.diff(theta) <= 0):
            check.fail("Wheel.rim", "profile", "vertices counter-clockwise about (0, 0)")


def check_rough_pair(where: str, profile, target, law, unilateral) -> None:
    """Check that a ContactPair pairs a Polyline with a Wheel only, both ways, under Poisson's law.

    Parameters
    ----------
    where : str
        The pair's name in messages.
    profile : object
        The pair's profile.
    target : object
        The pair's target.
    law : ContactLaw
        The pair's law.
    unilateral : type
        The model's Unilateral class; a rough pair's law must be one with impact "poisson".

    Raises
    ------
    ValueError
        When a Polyline meets anything but a Wheel (or a Wheel anything but a Polyline), or the
        law's impact is not "poisson".
    TypeError
        When a rough pair's law is not Unilateral.

    Examples
    --------
    A Polyline touches a Wheel only:

    >>> from fe_contact import Polyline, Sliding, Unilateral
    >>> from fe_contact.rough import arc_profile, check_rough_pair
    >>> pin = Polyline(0, arc_profile((0.0, 0.0), 0.002, np.pi, 0.0, 21))
    >>> check_rough_pair("contacts[0]", pin, "beam", Unilateral(), Unilateral)
    Traceback (most recent call last):
    ...
    ValueError: contacts[0]: profile Polyline against target str; allowed: a Polyline against a Wheel, ...
    """
    if isinstance(profile, Polyline) != isinstance(target, Wheel):
        raise ValueError(
            f"{where}: profile {type(profile).__name__} against target "
            f"{type(target).__name__}; allowed: a Polyline against a Wheel, and a "
            "Wheel touched by a Polyline only"
        )
    if isinstance(profile, Polyline):
        check.instance(f"{where}.law", law, unilateral, "a Unilateral law")
        check.choice(f"{where}.law.impact", law.impact, ("poisson",))


def segment_normals(points) -> np.ndarray:
    """Unit outward normals (t_y, -t_x) of the segments of a polyline.

    Parameters
    ----------
    points : ndarray, shape (2, n)
        The vertices, m.

    Returns
    -------
    ndarray, shape (2, n - 1)
        The normals.

    Examples
    --------
    A polyline along +x: the outward normal (t_y, -t_x) points to -y (material on the left):

    >>> from fe_contact.rough import segment_normals
    >>> segment_normals([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]]) + 0.0
    array([[ 0.,  0.],
           [-1., -1.]])
    """
    d = np.diff(np.asarray(points, dtype=float), axis=1)
    t = d / np.linalg.norm(d, axis=0)
    return np.vstack((t[1], -t[0]))


def vertex_normals(points) -> np.ndarray:
    """Unit outward normals at the vertices.

    The normalised mean of the adjacent segments' normals (the end vertices take their one
    segment's normal).

    Parameters
    ----------
    points : ndarray, shape (2, n)
        The vertices, m.

    Returns
    -------
    ndarray, shape (2, n)
        The normals.

    Examples
    --------
    At the inner vertices of a polygon inscribed in a circle (counter-clockwise) the mean of
    the two segment normals is radial:

    >>> from fe_contact.rough import arc_profile, vertex_normals
    >>> arc = arc_profile((0.0, 0.0), 1.0, 0.0, np.pi / 2, 4)
    >>> bool(np.allclose(vertex_normals(arc.points)[:, 1:-1], arc.points[:, 1:-1], atol=1e-15))
    True
    """
    ns = segment_normals(points)
    n = np.empty((2, ns.shape[1] + 1))
    n[:, 0], n[:, -1] = ns[:, 0], ns[:, -1]
    n[:, 1:-1] = ns[:, :-1] + ns[:, 1:]
    return n / np.linalg.norm(n, axis=0)


def turning_angles(points) -> np.ndarray:
    """Change of slope between neighbouring segments (signed).

    Parameters
    ----------
    points : ndarray, shape (2, n)
        The vertices, m.

    Returns
    -------
    ndarray, shape (n - 2,)
        The angles, rad.

    Examples
    --------
    A right-angle turn to the left (+90 degrees), then one to the right:

    >>> from fe_contact.rough import turning_angles
    >>> np.degrees(turning_angles([[0.0, 1.0, 1.0, 2.0], [0.0, 0.0, 1.0, 1.0]])).round(4)
    array([ 90., -90.])
    """
    d = np.diff(np.asarray(points, dtype=float), axis=1)
    angle = np.arctan2(d[1], d[0])
    return np.angle(np.exp(1j * np.diff(angle)))


def peak_to_valley(profile: RoughProfile) -> float:
    """Rz: the peak-to-valley height of the profile's heights (module docstring).

    Parameters
    ----------
    profile : RoughProfile
        The profile.

    Returns
    -------
    float
        Rz, m.

    Examples
    --------
    A smooth arc with one vertex 3 um deep:

    >>> from fe_contact.rough import RoughProfile, arc_profile, peak_to_valley
    >>> arc = arc_profile((0.0, 0.0), 0.05, 0.0, np.pi / 2, 10)
    >>> dented = arc.points - 3e-6 * (np.arange(10) == 4) * arc.reference_normals
    >>> print(f"{peak_to_valley(RoughProfile(dented, arc.reference, arc.reference_normals)):.4g} m")
    3e-06 m
    """
    return float(np.ptp(profile.heights()))


def form_free_rz(profile: RoughProfile) -> float:
    """Rz of the heights after removing their least-squares straight line over the vertex index.

    The form that a tilt of the whole face leaves; roughness standards remove the form before
    measuring Rz.

    Parameters
    ----------
    profile : RoughProfile
        The profile.

    Returns
    -------
    float
        Rz, m.

    Examples
    --------
    A face tilted as a whole (heights growing linearly along it) has a peak-to-valley height
    but no roughness once the straight line is removed:

    >>> from fe_contact.rough import RoughProfile, arc_profile, form_free_rz, peak_to_valley
    >>> arc = arc_profile((0.0, 0.0), 0.05, 0.0, np.pi / 2, 10)
    >>> tilted = arc.points + 1e-6 * np.arange(10) * arc.reference_normals
    >>> profile = RoughProfile(tilted, arc.reference, arc.reference_normals)
    >>> print(f"Rz {peak_to_valley(profile):.4g} m, form-free {form_free_rz(profile) < 1e-15}")
    Rz 9e-06 m, form-free True
    """
    h = profile.heights()
    x = np.arange(h.size, dtype=float)
    return float(np.ptp(h - np.polyval(np.polyfit(x, h, 1), x)))


def arc_profile(
    centre, radius: float, angle_start: float, angle_end: float, n_points: int
) -> RoughProfile:
    """A smooth arc of vertices about a centre.

    Counter-clockwise (end > start) it bounds a convex body (a wheel, outward normal pointing
    away from the centre); clockwise (end < start) a concave face whose material lies outside
    the circle (outward normal pointing to the centre).

    Parameters
    ----------
    centre : tuple of float, shape (2,)
        Centre (x, y), m.
    radius : float
        Radius, m (> 0).
    angle_start : float
        Angle of the first vertex, rad.
    angle_end : float
        Angle of the last vertex, rad (different from ``angle_start``).
    n_points : int
        Number of vertices, >= 3.

    Returns
    -------
    RoughProfile
        The arc, its own reference.

    Raises
    ------
    TypeError
        When a value has the wrong kind.
    ValueError
        When ``radius`` is not positive, ``n_points`` is below 3 or the two angles are equal.

    Examples
    --------
    A quarter circle of 10 vertices: every segment turns by 90 / 9 = 10 degrees, and the
    outward normals of a counter-clockwise arc point away from the centre:

    >>> from fe_contact.rough import arc_profile, turning_angles
    >>> arc = arc_profile((0.0, 0.0), 0.05, 0.0, np.pi / 2, 10)
    >>> np.degrees(turning_angles(arc.points)).round(6).tolist() == [10.0] * 8
    True
    >>> arc.reference_normals[:, -1].round(4) + 0.0
    array([0., 1.])
    """
    c = check.vector("arc_profile.centre", centre, unit="m")
    radius = check.real("arc_profile.radius", radius, low=0.0, low_open=True, unit="m")
    a0 = check.real("arc_profile.angle_start", angle_start, unit="rad")
    a1 = check.real("arc_profile.angle_end", angle_end, unit="rad")
    n = check.integer("arc_profile.n_points", n_points, low=3)
    if a0 == a1:
        check.fail("arc_profile.angle_end", angle_end, "an angle different from angle_start")
    theta = np.linspace(a0, a1, n)
    radial = np.vstack((np.cos(theta), np.sin(theta)))
    points = np.asarray(c)[:, None] + radius * radial
    normals = radial if a1 > a0 else -radial
    return RoughProfile(points, points, normals)


def rough_arc(
    centre,
    radius: float,
    angle_start: float,
    angle_end: float,
    n_points: int,
    *,
    rz: float,
    max_slope_change: float = np.radians(15.0),
    seed: int = 0,
) -> RoughProfile:
    """``arc_profile`` with random heights along its normals.

    The heights follow the random walk of the module docstring.

    Parameters
    ----------
    centre : tuple of float, shape (2,)
        Centre (x, y), m.
    radius : float
        Radius, m (> 0).
    angle_start : float
        Angle of the first vertex, rad.
    angle_end : float
        Angle of the last vertex, rad.
    n_points : int
        Number of vertices, >= 3.
    rz : float
        Peak-to-valley height of the heights, m (>= 0; keyword-only).
    max_slope_change : float, optional
        Largest change of slope between neighbouring segments, rad, in (0, pi/2); pi/12 by
        default.
    seed : int, optional
        Seed of the random walk, >= 0; 0 by default.

    Returns
    -------
    RoughProfile
        The rough arc, with the smooth arc as its reference.

    Raises
    ------
    TypeError
        When a value has the wrong kind.
    ValueError
        When a value is out of range, or ``max_slope_change`` is not more than the smooth
        arc's own turn between vertices.

    Examples
    --------
    A pin face of radius 2 mm, 41 vertices, Rz = 2 um: heights in [-Rz, 0], slope changes of at
    most 15 degrees (the default):

    >>> from fe_contact.rough import peak_to_valley, rough_arc, turning_angles
    >>> face = rough_arc((0.0, 0.0), 0.002, np.pi, 0.0, 41, rz=2e-6, seed=1)
    >>> h = face.heights()
    >>> print(f"Rz = {peak_to_valley(face):.4g} m, heights {h.min():.4g} .. {h.max() + 0.0:.4g} m")
    Rz = 2e-06 m, heights -2e-06 .. 0 m
    >>> bool(np.degrees(np.abs(turning_angles(face.points))).max() <= 15.0)
    True
    """
    smooth = arc_profile(centre, radius, angle_start, angle_end, n_points)
    rz = check.real("rough_arc.rz", rz, low=0.0, unit="m")
    bound = check.real(
        "rough_arc.max_slope_change",
        max_slope_change,
        low=0.0,
        high=np.pi / 2,
        low_open=True,
        high_open=True,
        unit="rad",
    )
    seed = check.integer("rough_arc.seed", seed, low=0)
    if rz == 0.0:
        return smooth
    spacing = float(np.linalg.norm(smooth.points[:, 1] - smooth.points[:, 0]))
    base_turn = float(np.max(np.abs(turning_angles(smooth.points)), initial=0.0))
    if base_turn >= bound:
        check.fail(
            "rough_arc.max_slope_change",
            max_slope_change,
            f"more than the smooth arc's own turn {base_turn:.3g} rad between vertices",
        )
    rng = np.random.default_rng(seed)
    step = bound - base_turn
    for _ in range(200):
        h = _slope_walk(rng, smooth.n_points, spacing, 0.5 * rz, step)
        if np.ptp(h) == 0.0:  # a flat walk cannot be scaled to rz: a smaller step, as below
            step *= 0.9
            continue
        h = (h - h.max()) * (rz / np.ptp(h))
        points = smooth.points + h * smooth.reference_normals
        if np.max(np.abs(turning_angles(points))) <= bound:
            return RoughProfile(points, smooth.reference, smooth.reference_normals)
        step *= 0.9
    raise RuntimeError(  # pragma: no cover - the step shrinks geometrically
        f"rough_arc: no profile with rz = {rz:g} m within {bound:g} rad found"
    )


def _stop_height(slope: float, spacing: float, step: float) -> float:
    """Height gained while the slope angle returns from ``slope`` to 0 by ``step`` per segment."""
    k = np.arange(1, int(abs(slope) / step) + 2)
    return float(np.sign(slope) * spacing * np.sum(np.tan(np.maximum(abs(slope) - k * step, 0))))


def _slope_walk(rng, n: int, spacing: float, band: float, step: float) -> np.ndarray:
    """Heights (n,) in [-band, band] whose segment slope angles change by at most ``step``."""
    h = np.empty(n)
    h[0] = rng.uniform(-band, band)
    slope = 0.0
    trial = np.linspace(-step, step, 41)
    for k in range(1, n):
        slopes = np.clip(slope + trial, -1.4, 1.4)
        nxt = h[k - 1] + spacing * np.tan(slopes)
        ahead = nxt + np.array([_stop_height(s, spacing, step) for s in slopes])
        ok = (np.abs(nxt) <= band) & (np.abs(ahead) <= band)
        if np.any(ok):
            slope = float(rng.choice(slopes[ok]))
        else:  # turn back as fast as allowed
            slope = float(slopes[np.argmin(np.abs(ahead))])
        h[k] = h[k - 1] + spacing * np.tan(slope)
    return h


def reshape(profile: RoughProfile, loss, u_max: float) -> RoughProfile:
    """The profile worn by Slavic-Boltezar (003) eqs. (16)-(17).

    Vertex j moves inward along its vertex normal by u_j = u_max W_j / max W. A profile with no
    loss at all is returned unchanged.

    Parameters
    ----------
    profile : RoughProfile
        The profile.
    loss : array_like, shape (n,)
        Loss W >= 0 per vertex, J.
    u_max : float
        The largest wear depth, m (>= 0).

    Returns
    -------
    RoughProfile
        The worn profile (the same reference).

    Raises
    ------
    TypeError
        When a value has the wrong kind.
    ValueError
        When ``loss`` has another shape, is not finite or is negative, or ``u_max`` is
        negative.

    Examples
    --------
    Wear by 003 eqs. (16)-(17): the vertex that lost the most energy moves u_max = 1 um
    inward, one that lost half as much 0.5 um, one that lost none stays (inner vertices of an
    arc, whose vertex normals are its reference normals):

    >>> from fe_contact.rough import arc_profile, reshape
    >>> arc = arc_profile((0.0, 0.0), 0.05, 0.0, np.pi / 2, 5)
    >>> worn = reshape(arc, [0.0, 0.0, 0.5, 1.0, 0.0], u_max=1e-6)
    >>> (worn.heights()[1:4] * 1e6).round(6) + 0.0
    array([ 0. , -0.5, -1. ])
    """
    w = check.finite_array("reshape.loss", loss, (profile.n_points,))
    if np.any(w < 0):
        check.fail("reshape.loss", float(w.min()), "losses >= 0 J")
    u_max = check.real("reshape.u_max", u_max, low=0.0, unit="m")
    if w.max() == 0.0:
        return profile
    u = u_max * w / w.max()
    points = profile.points - u * vertex_normals(profile.points)
    return RoughProfile(points, profile.reference, profile.reference_normals)
