"""What a system is: one frozen description for every model (all SI units).

A ``Model`` holds a joint-coordinate tree of rigid bodies (or none), any number of named
structures (``BeamSpec``: linear Euler-Bernoulli beam of Lipinski (002); ``StringSpec``:
absolute-nodal string or geometrically exact beam of Eugster-Glocker (004)), contact pairs
between a profile on a body and a structure or a rigid line, drives (prescribed joint motion),
loop closures, point loads on structures and gravity. ``assemble(model)`` turns it into a
``System``; variants come from ``dataclasses.replace``.

Profiles sit on a tree body: ``Point`` (an edge or a tip) and ``Circle`` (a disk or a roller).
Both answer the same questions through ``profile_centre`` and ``radius``: a point is a circle of
radius zero. Curved and rough profiles (Bezier/B-spline, polylines) will implement the same
two-curve contact through the closest-point conditions of Bauchau (000), eqs. (5)-(6).

Contact laws are separate objects:

* ``Sliding(mu)``: the bilateral sliding contact of Lipinski (002), secs. 4-7: the profile stays
  on the structure, Coulomb friction mu |lambda| opposes the slip (002, eq. 63). It is a
  constraint of the partitioned generalised-alpha stepper.
* ``Unilateral(mu, restitution_normal, restitution_tangent)``: the set-valued laws of
  Eugster-Glocker (004), eqs. (26)-(27), with Newton's impact law (004 sec. 4.5), for the
  Moreau-Jean stepper.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .elements.beam import BeamSpec
from .elements.string import StringSpec
from .multibody.drive import Drive
from .multibody.tree import TreeModel

STANDARD_GRAVITY = (0.0, -9.81)


def _number(value, name: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{where}: {name} = {value!r}; allowed: a number")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{where}: {name} = {value!r}; allowed: a finite number")
    return value


def _pair(value, name: str, where: str) -> tuple[float, float]:
    if isinstance(value, str) or np.ndim(value) != 1 or len(value) != 2:
        raise ValueError(f"{where}: {name} = {value!r}; allowed: a pair (x, y) of numbers in m")
    return (_number(value[0], name, where), _number(value[1], name, where))


# ------------------------------------------------------------------------------------------
# Profiles on bodies and rigid targets
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """A point of tree body ``body`` at ``at`` = (x, y) in m in the body's frame, or the name of
    a point of the tree (``TreeModel.points``)."""

    body: int
    at: tuple[float, float] | str = (0.0, 0.0)

    radius = 0.0

    def __post_init__(self):
        if isinstance(self.body, bool) or not isinstance(self.body, int | np.integer):
            raise TypeError(f"Point: body = {self.body!r}; allowed: a tree body index (int)")
        if not isinstance(self.at, str):
            object.__setattr__(self, "at", _pair(self.at, "at", "Point"))


@dataclass(frozen=True)
class Circle:
    """A circle of ``radius`` m centred at ``centre`` (x, y) m in the frame of tree body ``body``
    (a disk, a wheel, a roller). Its material points turn with the body: friction acts at the
    circle's contact point, so it rolls or slips."""

    body: int
    radius: float
    centre: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self):
        if isinstance(self.body, bool) or not isinstance(self.body, int | np.integer):
            raise TypeError(f"Circle: body = {self.body!r}; allowed: a tree body index (int)")
        radius = _number(self.radius, "radius", "Circle")
        if radius <= 0.0:
            raise ValueError(f"Circle: radius = {self.radius!r}; allowed: a length > 0 in m")
        object.__setattr__(self, "radius", radius)
        object.__setattr__(self, "centre", _pair(self.centre, "centre", "Circle"))

    @property
    def at(self) -> tuple[float, float]:
        return self.centre


@dataclass(frozen=True)
class Line:
    """A rigid straight line fixed in the plane through ``point`` (m) whose ``normal`` points to
    the free side (normalised on construction)."""

    point: tuple[float, float]
    normal: tuple[float, float]

    def __post_init__(self):
        object.__setattr__(self, "point", _pair(self.point, "point", "Line"))
        n = np.asarray(_pair(self.normal, "normal", "Line"))
        size = float(np.hypot(*n))
        if size == 0.0:
            raise ValueError(f"Line: normal = {self.normal!r}; allowed: a nonzero 2-vector")
        if abs(size - 1.0) > 4.0 * np.finfo(float).eps:  # a unit normal is kept as given, so
            n = n / size  # that Line(line.point, line.normal) == line
        object.__setattr__(self, "normal", (float(n[0]), float(n[1])))

    @classmethod
    def incline(cls, angle: float, point=(0.0, 0.0)) -> Line:
        """Line rising at ``angle`` rad towards +x, free side above: n = (-sin a, cos a)."""
        return cls(tuple(point), (-math.sin(angle), math.cos(angle)))


# ------------------------------------------------------------------------------------------
# Contact laws
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sliding:
    """Bilateral sliding contact with Coulomb friction mu |lambda|, Lipinski (002), secs. 4-7."""

    mu: float = 0.0

    def __post_init__(self):
        mu = _number(self.mu, "mu", "Sliding")
        if mu < 0.0:
            raise ValueError(f"Sliding: mu = {self.mu!r}; allowed: a friction coefficient >= 0")
        object.__setattr__(self, "mu", mu)


@dataclass(frozen=True)
class Unilateral:
    """Unilateral contact with Coulomb friction and Newton's impact law as set-valued laws,
    Eugster-Glocker (004), eqs. (26)-(27) and sec. 4.5.

    mu : friction coefficient >= 0. restitution_normal, restitution_tangent : e_N, e_T in [0, 1].
    """

    mu: float = 0.0
    restitution_normal: float = 0.0
    restitution_tangent: float = 0.0

    def __post_init__(self):
        for name in ("mu", "restitution_normal", "restitution_tangent"):
            value = _number(getattr(self, name), name, "Unilateral")
            if value < 0.0 or (name != "mu" and value > 1.0):
                allowed = ">= 0" if name == "mu" else "in [0, 1]"
                raise ValueError(f"Unilateral: {name} = {value!r}; allowed: a number {allowed}")
            object.__setattr__(self, name, value)


SEARCHES = ("closest", "grid")


@dataclass(frozen=True)
class ContactPair:
    """A profile on a tree body touching a structure (by name) or a rigid ``Line``.

    name : label of the contact in results and files (an identifier).
    profile : Point or Circle. target : name of a structure of the model, or a Line.
    law : Sliding (bilateral, generalised-alpha) or Unilateral (set-valued, Moreau-Jean).
    side : +1 when the profile lies on the side of the structure's normal (the unit tangent
        turned by +90 degrees: above a structure along +x), -1 on the other side.
    search : "closest": the contact point is the closest point of the deformed curve
        (projection, Bauchau (000), eqs. 5-7), one contact point; "grid": a circle against
        ``n_candidates`` material points equally spaced along the structure (Eugster-Glocker
        (004), eq. 20), each a unilateral contact (Moreau-Jean only).
    n_candidates : number of grid points for search "grid".
    """

    name: str
    profile: Point | Circle
    target: str | Line
    law: Sliding | Unilateral = Sliding()
    side: int = 1
    search: str = "closest"
    n_candidates: int = 0

    def __post_init__(self):
        where = f"ContactPair {self.name!r}"
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"ContactPair: name = {self.name!r}; allowed: an identifier")
        if not isinstance(self.profile, Point | Circle):
            raise TypeError(f"{where}: profile = {self.profile!r}; allowed: Point or Circle")
        if not isinstance(self.target, str | Line):
            raise TypeError(
                f"{where}: target = {self.target!r}; allowed: a structure name or a Line"
            )
        if not isinstance(self.law, Sliding | Unilateral):
            raise TypeError(f"{where}: law = {self.law!r}; allowed: Sliding or Unilateral")
        if self.side not in (1, -1):
            raise ValueError(f"{where}: side = {self.side!r}; allowed: +1 or -1")
        if self.search not in SEARCHES:
            raise ValueError(f"{where}: search = {self.search!r}; allowed: {SEARCHES}")
        if self.search == "grid":
            if not isinstance(self.profile, Circle) or isinstance(self.target, Line):
                raise ValueError(f"{where}: search 'grid' needs a Circle against a structure")
            if not isinstance(self.law, Unilateral):
                raise ValueError(f"{where}: search 'grid' needs a Unilateral law")
            if (
                isinstance(self.n_candidates, bool)
                or not isinstance(self.n_candidates, int | np.integer)
                or self.n_candidates < 2
            ):
                raise ValueError(
                    f"{where}: n_candidates = {self.n_candidates!r}; allowed: an integer >= 2 "
                    "with search 'grid'"
                )
        if isinstance(self.target, Line) and isinstance(self.law, Sliding):
            raise ValueError(f"{where}: a Line target takes a Unilateral law")

    @property
    def mu(self) -> float:
        return self.law.mu

    @property
    def bilateral(self) -> bool:
        return isinstance(self.law, Sliding)


# ------------------------------------------------------------------------------------------
# Loop closures and loads
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoopClosure:
    """Point ``point_a`` of body ``body_a`` coincides with ``point_b`` of ``body_b`` (None: the
    ground, then ``point_b`` is a fixed point in the plane). Two rows; multipliers: the force of
    the closure on body a, N."""

    body_a: int
    point_a: tuple[float, float] | str
    body_b: int | None = None
    point_b: tuple[float, float] | str = (0.0, 0.0)
    name: str = "loop"


@dataclass(frozen=True)
class PointLoad:
    """A constant force ``force`` (fx, fy) in N at the material point ``s`` m of a structure."""

    structure: str
    s: float
    force: tuple[float, float]

    def __post_init__(self):
        object.__setattr__(self, "s", _number(self.s, "s", "PointLoad"))
        object.__setattr__(self, "force", _pair(self.force, "force", "PointLoad"))


# ------------------------------------------------------------------------------------------
# The model
# ------------------------------------------------------------------------------------------


def resolve_point(tree: TreeModel | None, body, point, where: str) -> tuple[float, float]:
    """Local coordinates (x, y) of a body point given by coordinates or by name."""
    n = 0 if tree is None else tree.n_bodies
    if isinstance(body, bool) or not isinstance(body, int | np.integer) or not 0 <= body < n:
        allowed = "the model has no tree" if n == 0 else f"a body index 0..{n - 1}"
        raise ValueError(f"{where}: body {body!r} does not exist; allowed: {allowed}")
    if isinstance(point, str):
        if point not in tree.points:
            raise ValueError(f"{where}: no point named {point!r}; known: {sorted(tree.points)}")
        point_body, local = tree.points[point]
        if point_body != body:
            raise ValueError(f"{where}: point {point!r} is on body {point_body}, not {body}")
        return tuple(local)
    return _pair(point, "point", where)


@dataclass(frozen=True)
class Model:
    """A whole planar system (SI units).

    tree : TreeModel or None (no rigid bodies).
    structures : mapping name -> BeamSpec | StringSpec (names are identifiers), in order.
    contacts : tuple of ContactPair. drives : tuple of Drive (prescribed joint motion).
    loops : tuple of LoopClosure. loads : tuple of PointLoad on structures.
    gravity : (g_x, g_y) in m/s^2 for every part; a tree or string spec that states another
        gravity is rejected (one gravity per model).
    structure_gravity : apply gravity to the structures (their self-weight).
    """

    tree: TreeModel | None = None
    structures: Mapping[str, BeamSpec | StringSpec] = field(default_factory=dict)
    contacts: tuple[ContactPair, ...] = ()
    drives: tuple[Drive, ...] = ()
    loops: tuple[LoopClosure, ...] = ()
    loads: tuple[PointLoad, ...] = ()
    gravity: tuple[float, float] = STANDARD_GRAVITY
    structure_gravity: bool = True

    def __post_init__(self):
        if self.tree is not None and not isinstance(self.tree, TreeModel):
            raise TypeError(f"Model: tree = {self.tree!r}; allowed: a TreeModel or None")
        if not isinstance(self.structures, Mapping):
            raise TypeError(
                f"Model: structures = {self.structures!r}; allowed: a mapping name -> "
                "BeamSpec | StringSpec"
            )
        object.__setattr__(self, "structures", dict(self.structures))
        for key in ("contacts", "drives", "loops", "loads"):
            object.__setattr__(self, key, tuple(getattr(self, key)))
        object.__setattr__(self, "gravity", _pair(self.gravity, "gravity", "Model"))
        self._check_structures()
        self._check_tree_parts()
        if self.tree is None and not self.structures:
            raise ValueError("Model: nothing to simulate; give a tree, a structure or both")

    def _check_structures(self):
        g = np.asarray(self.gravity)
        for name, spec in self.structures.items():
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"Model: structure name {name!r}; allowed: an identifier")
            if not isinstance(spec, BeamSpec | StringSpec):
                raise TypeError(
                    f"Model: structures[{name!r}] = {type(spec).__name__}; allowed: BeamSpec "
                    "or StringSpec"
                )
            if isinstance(spec, StringSpec) and not np.allclose(spec.gravity, g, atol=0.0):
                raise ValueError(
                    f"Model: structures[{name!r}].gravity = {tuple(spec.gravity)} differs from "
                    f"Model.gravity = {self.gravity}; allowed: the same vector (one gravity)"
                )
        if self.tree is not None and not np.allclose(self.tree.gravity, g, atol=0.0):
            raise ValueError(
                f"Model: tree.gravity = {tuple(self.tree.gravity)} differs from Model.gravity = "
                f"{self.gravity}; allowed: the same vector (one gravity per model)"
            )
        for load in self.loads:
            if not isinstance(load, PointLoad):
                raise TypeError(f"Model: loads hold PointLoad objects, got {load!r}")
            if load.structure not in self.structures:
                raise ValueError(
                    f"Model: PointLoad on structure {load.structure!r}, which does not exist; "
                    f"known: {sorted(self.structures)}"
                )
            length = self.structures[load.structure].length
            if not 0.0 <= load.s <= length:
                raise ValueError(
                    f"Model: PointLoad at s = {load.s!r} m; allowed: 0 <= s <= {length} m "
                    f"(the length of {load.structure!r})"
                )

    def _check_tree_parts(self):
        tree = self.tree
        n_b = 0 if tree is None else tree.n_bodies
        names = [c.name for c in self.contacts]
        for contact in self.contacts:
            if not isinstance(contact, ContactPair):
                raise TypeError(f"Model: contacts hold ContactPair objects, got {contact!r}")
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"Model: contact names must be unique, repeated: {sorted(dup)}")
        clash = set(names) & set(self.structures)
        if clash:
            raise ValueError(f"Model: names used for a contact and a structure: {sorted(clash)}")
        for c in self.contacts:
            where = f"contact {c.name!r}"
            resolve_point(tree, c.profile.body, c.profile.at, where)
            if isinstance(c.target, str) and c.target not in self.structures:
                raise ValueError(
                    f"{where}: target structure {c.target!r} does not exist; known: "
                    f"{sorted(self.structures)}"
                )
        joints = []
        for d in self.drives:
            if not isinstance(d, Drive):
                raise TypeError(f"Model: drives hold Drive objects, got {d!r}")
            if not 0 <= d.joint < n_b:
                raise ValueError(
                    f"Model: drive on joint {d.joint}, which does not exist; allowed: "
                    + ("no drives without a tree" if n_b == 0 else f"0..{n_b - 1}")
                )
            joints.append(d.joint)
        if len(set(joints)) != len(joints):
            raise ValueError(f"Model: a joint may be driven once only, got joints {joints}")
        for loop in self.loops:
            if not isinstance(loop, LoopClosure):
                raise TypeError(f"Model: loops hold LoopClosure objects, got {loop!r}")
            resolve_point(tree, loop.body_a, loop.point_a, f"loop {loop.name!r}")
            if loop.body_b is not None:
                resolve_point(tree, loop.body_b, loop.point_b, f"loop {loop.name!r}")
            else:
                _pair(loop.point_b, "point_b", f"loop {loop.name!r}")
        n_rows = sum(c.bilateral for c in self.contacts) + len(self.drives) + 2 * len(self.loops)
        if n_rows > n_b:
            raise ValueError(
                f"Model: {n_rows} bilateral constraint rows (sliding contacts, drives, loop "
                f"rows) but only {n_b} tree coordinates; the dependent coordinates of the "
                "partitioning are taken from the tree, so it needs at least one per row"
            )

    # -- derived facts --------------------------------------------------------------------
    @property
    def n_tree(self) -> int:
        return 0 if self.tree is None else self.tree.n_bodies

    def drive_names(self) -> tuple[str, ...]:
        return tuple(f"drive_{d.joint}" for d in self.drives)

    def constraint_names(self) -> tuple[str, ...]:
        """Names of the bilateral constraint rows of the partitioned stepper, in order:
        sliding contacts (normal force N), drives (torque N m or force N), loop rows (N)."""
        names = [c.name for c in self.contacts if c.bilateral]
        names += list(self.drive_names())
        for loop in self.loops:
            names += [f"{loop.name}_x", f"{loop.name}_y"]
        return tuple(names)


__all__ = [
    "Circle",
    "ContactPair",
    "Line",
    "LoopClosure",
    "Model",
    "Point",
    "PointLoad",
    "Sliding",
    "Unilateral",
    "resolve_point",
]
