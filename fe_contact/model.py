"""What a system is: one frozen description for every model (all SI units).

A ``Model`` holds a joint-coordinate tree of rigid bodies (or none), any number of named
structures (``BeamSpec``: linear Euler-Bernoulli beam of Lipinski (002); ``StringSpec``:
absolute-nodal string or geometrically exact beam of Eugster-Glocker (004)), contact pairs
between a profile on a body and a structure or a rigid line, drives (prescribed joint motion),
loop closures, point loads on structures and gravity. ``assemble(model)`` turns it into a
``System``; variants come from ``dataclasses.replace``.

The sides of a contact (``Point``, ``Circle``, ``Line``, ``Profile`` and the ``CarriedBody`` a
profile may sit on) are defined in ``fe_contact.sides``; this module exports them too.

Contact laws are separate objects:

* ``Sliding(mu)``: the bilateral sliding contact of Lipinski (002), secs. 4-7: the profile stays
  on the structure, Coulomb friction mu |lambda| opposes the slip (002, eq. 63). It is a
  constraint of the partitioned generalised-alpha stepper.
* ``Unilateral(mu, restitution_normal, restitution_tangent)``: the set-valued laws of
  Eugster-Glocker (004), eqs. (26)-(27), with Newton's impact law (004 sec. 4.5), for the
  Moreau-Jean stepper.
* ``Compliant(kind, stiffness, damping, mu, mu_s, v0, rolling)`` (``fe_contact.laws``): linear
  or Hertz force of the approach with Hunt-Crossley damping, the continuous friction law and
  rolling of Bauchau (000), for the generalised-alpha stepper.

Rough many-point contact (Slavic-Boltezar (003), secs. 2-4): a ``Polyline`` (a discretised rough
profile, ``fe_contact.rough.RoughProfile``) on a tree body against the rim of a ``Wheel`` turning at a
prescribed speed (both defined in ``fe_contact.rough``), with a ``Unilateral`` law whose impact
is "poisson": every vertex of either polyline on a segment of the other is a contact point
(``coupling.rough_contact``), for the event-driven stepper (``steppers.event_driven``, method
"event-driven").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from . import validation as check
from .columns import check_column_names
from .constants import STANDARD_GRAVITY
from .elements.beam_model import BeamSpec
from .elements.string import StringSpec
from .laws import Compliant, ContactLaw, Dropper, Sliding, Unilateral
from .multibody.drive import Drive
from .multibody.tree_model import TreeModel, resolve_point
from .rough import Polyline, Wheel, check_rough_pair
from .sensors import SENSOR_TYPES, BodyPointSensor, BodySensor, StructureSensor, check_sensors
from .sides import CarriedBody, Circle, Line, Point, Profile, check_body_point
from .structure_points import MaterialPoint, SpringSupport

# ------------------------------------------------------------------------------------------
# Contact pairs and links
# ------------------------------------------------------------------------------------------


SEARCHES = ("closest", "grid")


@dataclass(frozen=True)
class ContactPair:
    """A profile on a body touching a structure, a rigid ``Line`` or a Profile; or a link.

    A link (``Dropper``) joins a ``MaterialPoint`` of a structure or a body ``Point`` to a
    ``MaterialPoint`` of a structure.

    Parameters
    ----------
    name : str
        Label of the contact in results and files (an identifier).
    profile : Point, Circle, Profile, Polyline or MaterialPoint
        The touching side (a MaterialPoint or a Point for a link).
    target : str, Line, Profile, Wheel or MaterialPoint
        Name of a structure of the model, a Line, or a Profile (a curve on a body or fixed in
        the plane); the target of a Polyline is a Wheel (with a Unilateral law of impact
        "poisson": the event-driven stepper); a MaterialPoint for a link
        (``structure_points.MaterialPoint``).
    law : Sliding, Unilateral, Compliant or Dropper, optional
        Sliding (bilateral, generalised-alpha; the default, frictionless), Unilateral
        (set-valued, both steppers), Compliant (a force law, generalised-alpha) or Dropper (a
        tension-only link, a force law of the generalised-alpha stepper).
    side : {1, -1}, optional
        +1 (the default) when the profile lies on the side of the structure's normal (the unit
        tangent turned by +90 degrees: above a structure along +x), -1 on the other side (a
        Point, Circle or Profile against a structure).
    search : {"closest", "grid"}, optional
        "closest" (the default): the contact point is the closest point of the deformed curve
        (projection, Bauchau (000), eqs. 5-7), one contact point; "grid": a circle against
        ``n_candidates`` material points equally spaced along the structure (Eugster-Glocker
        (004), eq. 20), each a unilateral contact (Moreau-Jean only).
    n_candidates : int, optional
        Number of grid points for search "grid" (>= 2 then); 0 by default.

    Raises
    ------
    TypeError
        When ``profile``, ``target`` or ``law`` is of another type.
    ValueError
        When a part has the wrong value (named in the message): a link between other sides, ``side`` other than +1 or -1, an
        unknown ``search``, or a grid search without a Circle, a structure and a Unilateral
        law.

    Examples
    --------
    The end of body 2 sliding with mu = 0.2 on the structure "beam", and a disk (Unilateral,
    Moreau-Jean) on the string:

    >>> from fe_contact import Circle, ContactPair, Point, Sliding, Unilateral
    >>> tip = ContactPair("tip", Point(2, (0.3, 0.0)), "beam", Sliding(mu=0.2))
    >>> tip.mu, tip.bilateral
    (0.2, True)
    >>> disk = ContactPair("disk", Circle(2, 0.1), "string", Unilateral(mu=0.3))
    >>> disk.bilateral
    False
    """

    name: str
    profile: Point | Circle | Profile | Polyline | MaterialPoint
    target: str | Line | Profile | Wheel | MaterialPoint
    law: Sliding | Unilateral | Compliant | Dropper = Sliding()
    side: int = 1
    search: str = "closest"
    n_candidates: int = 0

    def __post_init__(self):
        check.identifier("ContactPair.name", self.name)
        where = f"ContactPair {self.name!r}"
        check.instance(
            f"{where}.profile",
            self.profile,
            Point | Circle | Profile | Polyline | MaterialPoint,
            "a Point, Circle, Profile, Polyline or MaterialPoint",
        )
        check.instance(
            f"{where}.target",
            self.target,
            str | Line | Profile | Wheel | MaterialPoint,
            "a structure name, Line, Profile, Wheel or MaterialPoint",
        )
        check.instance(
            f"{where}.law",
            self.law,
            ContactLaw,
            "Sliding, Unilateral, Compliant, Dropper (or a subclass of one)",
        )
        if self.law.link or isinstance(self.profile, MaterialPoint):
            check.instance(
                f"{where}.profile", self.profile, Point | MaterialPoint, "a Point or MaterialPoint"
            )
            check.instance(f"{where}.target", self.target, MaterialPoint, "a MaterialPoint")
        if isinstance(self.target, MaterialPoint) and not self.law.link:
            check.fail(f"{where}.law", self.law, "a link law (Dropper) between two points")
        if self.law.link:
            if isinstance(self.profile, Point) and self.law.mass > 0.0:
                check.fail(
                    f"{where}.law.mass",
                    self.law.mass,
                    "0 when a side is a body Point (give the body the clamp's mass)",
                )
            if self.profile == self.target:
                check.fail(f"{where}.target", self.target, "a point other than the profile")
            if self.search != "closest":
                check.fail(f"{where}.search", self.search, "'closest' for a link")
            return
        if isinstance(self.profile, Profile) and isinstance(self.target, Line):
            body, carrier = self.profile.body, self.target.body
            if body is None and carrier is None:  # a fixed Profile on a fixed Line never moves
                check.fail(f"{where}.profile.body", body, "a moving body when the Line is fixed")
            if body is not None and body == carrier:  # a body does not touch itself
                check.fail(f"{where}.target.body", carrier, f"a body other than {body!r}")
        check_rough_pair(where, self.profile, self.target, self.law, Unilateral)
        object.__setattr__(self, "side", check.choice(f"{where}.side", self.side, (1, -1)))
        check.choice(f"{where}.search", self.search, SEARCHES)
        grid = self.search == "grid"
        n_candidates = check.integer(
            f"{where}.n_candidates", self.n_candidates, low=2 if grid else 0
        )
        object.__setattr__(self, "n_candidates", n_candidates)
        if grid:
            if not isinstance(self.profile, Circle) or isinstance(self.target, Line):
                raise ValueError(f"{where}: search 'grid' needs a Circle against a structure")
            if self.law.constraint != "unilateral":
                raise ValueError(f"{where}: search 'grid' needs a Unilateral law")

    @property
    def mu(self) -> float:
        return self.law.mu

    @property
    def bilateral(self) -> bool:
        return self.law.constraint == "bilateral"

    @property
    def compliant(self) -> bool:
        return self.law.constraint == "compliant"

    @property
    def link(self) -> bool:
        """True for a link (``Dropper``) between two points: a force law, not a contact."""
        return self.law.link

    @property
    def curved(self) -> bool:
        """True when a Profile takes part (profile or target)."""
        return isinstance(self.profile, Profile) or isinstance(self.target, Profile)


# ------------------------------------------------------------------------------------------
# Loop closures and loads
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoopClosure:
    """A loop closure: a point of one body coincides with a point of another body or of the ground.

    Two constraint rows; their multipliers are the force of the closure on body a, in N.

    Parameters
    ----------
    body_a : int
        Index of the first tree body.
    point_a : tuple of float, shape (2,), or str
        Point (x, y) in m in body a's frame, or the name of a tree point.
    body_b : int or None, optional
        Index of the second tree body; None (the default): the ground.
    point_b : tuple of float, shape (2,), or str, optional
        Point in body b's frame (x, y in m, or a tree point's name), or, when ``body_b`` is
        None, a fixed point (x, y) in m of the plane; (0, 0) by default.
    name : str, optional
        Label of the closure's rows (an identifier), "loop" by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``name`` is not an identifier, a body index is negative, a point is not a pair
        of finite numbers or a name, or ``point_b`` is a name while ``body_b`` is None.

    Examples
    --------
    The end of body 1 (0.2 m) pinned to the ground at (0.2, 0): two constraint rows, whose
    multipliers are the force of the pin in N:

    >>> from fe_contact import LoopClosure
    >>> pin = LoopClosure(body_a=1, point_a=(0.2, 0.0), point_b=(0.2, 0.0), name="pin")
    >>> pin.body_b is None
    True
    """

    body_a: int
    point_a: tuple[float, float] | str
    body_b: int | None = None
    point_b: tuple[float, float] | str = (0.0, 0.0)
    name: str = "loop"

    def __post_init__(self):
        check.identifier("LoopClosure.name", self.name)
        where = f"LoopClosure {self.name!r}"
        object.__setattr__(self, "body_a", check.integer(f"{where}.body_a", self.body_a, low=0))
        object.__setattr__(self, "point_a", check_body_point(f"{where}.point_a", self.point_a))
        if self.body_b is not None:
            body_b = check.integer(f"{where}.body_b", self.body_b, low=0)
            object.__setattr__(self, "body_b", body_b)
        elif isinstance(self.point_b, str):
            check.fail(f"{where}.point_b", self.point_b, "a point (x, y) in m of the plane")
        object.__setattr__(self, "point_b", check_body_point(f"{where}.point_b", self.point_b))


@dataclass(frozen=True)
class PointLoad:
    """A constant force at a material point of a structure.

    Parameters
    ----------
    structure : str
        Name of the structure.
    s : float
        Material coordinate of the point along the structure, m.
    force : tuple of float, shape (2,)
        Force (fx, fy) in N.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``s`` or ``force`` is not finite.

    Examples
    --------
    2 N down at the tip of a 0.4 m beam:

    >>> from fe_contact import PointLoad
    >>> PointLoad("beam", 0.4, (0.0, -2.0))
    PointLoad(structure='beam', s=0.4, force=(0.0, -2.0))
    """

    structure: str
    s: float
    force: tuple[float, float]

    def __post_init__(self):
        check.instance("PointLoad.structure", self.structure, str, "the name of a structure")
        object.__setattr__(self, "s", check.real("PointLoad.s", self.s, unit="m"))
        object.__setattr__(self, "force", check.vector("PointLoad.force", self.force, unit="N"))


# ------------------------------------------------------------------------------------------
# The model
# ------------------------------------------------------------------------------------------


def _parts(name: str, value, kind: type | tuple[type, ...]) -> tuple:
    """A tuple of ``kind`` objects given as any iterable (not a single one)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    words = " or ".join(k.__name__ for k in kinds)
    allowed = f"a tuple of {words} objects"
    if isinstance(value, (*kinds, str)) or not isinstance(value, Iterable):
        check.fail(f"Model.{name}", value, allowed, TypeError)
    items = tuple(value)
    for i, item in enumerate(items):
        check.instance(f"Model.{name}[{i}]", item, kinds, f"a {words}")
    return items


@dataclass(frozen=True)
class Model:
    """A whole planar system (SI units).

    Parameters
    ----------
    tree : TreeModel or None, optional
        The joint-coordinate tree of rigid bodies; None (the default): no rigid bodies.
    structures : mapping of str to BeamSpec or StringSpec, optional
        Structures by name (names are identifiers), in order; none by default.
    contacts : tuple of ContactPair, optional
        Contacts and links.
    drives : tuple of Drive, optional
        Prescribed joint motions (``multibody.drive.Drive``).
    loops : tuple of LoopClosure, optional
        Loop closures.
    loads : tuple of PointLoad, optional
        Constant point loads on structures.
    gravity : tuple of float, shape (2,), optional
        (g_x, g_y) in m/s^2 for every part, (0, -9.81) by default; a tree or string spec that
        states another gravity is rejected (one gravity per model).
    structure_gravity : bool, optional
        Apply gravity to the structures (their self-weight); True by default.
    carried : tuple of CarriedBody, optional
        Rigid bodies clamped to material points of structures (their weight follows
        ``gravity`` whatever ``structure_gravity`` says).
    sensors : tuple of BodyPointSensor, BodySensor or StructureSensor, optional
        Named quantities recorded as history columns every step (``fe_contact.sensors``).
    supports : tuple of SpringSupport, optional
        Springs and dashpots from material points of beams to the ground
        (``fe_contact.structure_points``).

    Raises
    ------
    TypeError
        When a part has the wrong type, or a tuple of parts is given as a single part or a
        non-iterable.
    ValueError
        When names clash or repeat, a part refers to a body, joint,
        point or structure the model does not have, gravities differ, there are more bilateral
        constraint rows than coordinates, or there is nothing to simulate.

    Examples
    --------
    A point mass of 0.05 kg on a vertical slider at x = 0.3 m, resting on a steel cantilever:

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> beam = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> model = Model(tree=tree, structures={"beam": beam},
    ...               contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),))
    >>> model.n_tree, model.constraint_names()
    (1, ())
    """

    tree: TreeModel | None = None
    structures: Mapping[str, BeamSpec | StringSpec] = field(default_factory=dict)
    contacts: tuple[ContactPair, ...] = ()
    drives: tuple[Drive, ...] = ()
    loops: tuple[LoopClosure, ...] = ()
    loads: tuple[PointLoad, ...] = ()
    gravity: tuple[float, float] = STANDARD_GRAVITY
    structure_gravity: bool = True
    carried: tuple[CarriedBody, ...] = ()
    sensors: tuple[BodyPointSensor | BodySensor | StructureSensor, ...] = ()
    supports: tuple[SpringSupport, ...] = ()

    def __post_init__(self):
        if self.tree is not None:
            check.instance("Model.tree", self.tree, TreeModel, "a TreeModel or None")
        check.instance(
            "Model.structures", self.structures, Mapping, "a mapping name -> BeamSpec | StringSpec"
        )
        object.__setattr__(self, "structures", dict(self.structures))
        kinds = {
            "contacts": ContactPair,
            "drives": Drive,
            "loops": LoopClosure,
            "loads": PointLoad,
            "carried": CarriedBody,
            "supports": SpringSupport,
        }
        for key, kind in kinds.items():
            object.__setattr__(self, key, _parts(key, getattr(self, key), kind))
        object.__setattr__(
            self, "gravity", check.vector("Model.gravity", self.gravity, unit="m/s^2")
        )
        check.instance("Model.structure_gravity", self.structure_gravity, bool, "True or False")
        self._check_structures()
        self._check_tree_parts()
        object.__setattr__(self, "sensors", _parts("sensors", self.sensors, SENSOR_TYPES))
        check_sensors(self)
        check_column_names(self)
        if self.tree is None and not self.structures:
            raise ValueError("Model: nothing to simulate; give a tree, a structure or both")

    def _check_structures(self):
        g = np.asarray(self.gravity)
        for name, spec in self.structures.items():
            check.identifier("Model.structures name", name)
            check.instance(
                f"Model.structures[{name!r}]", spec, BeamSpec | StringSpec, "BeamSpec or StringSpec"
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
        names = [b.name for b in self.carried]
        if len(set(names)) != len(names):
            check.fail("Model.carried names", names, "names used once")
        for i, body in enumerate(self.carried):
            check.choice(f"Model.carried[{i}].structure", body.structure, self.structures)
            spec = self.structures[body.structure]
            check.real(f"Model.carried[{i}].s", body.s, low=0.0, high=spec.length, unit="m")
            if isinstance(spec, StringSpec) and body.inertia > 0.0:
                raise ValueError(
                    f"Model.carried[{i}]: a body with rotary inertia on the string "
                    f"{body.structure!r}; allowed: inertia = 0 on a string (its rotation is not "
                    "linear in the string's coordinates), any inertia on a beam"
                )
        for i, load in enumerate(self.loads):
            check.choice(f"Model.loads[{i}].structure", load.structure, self.structures)
            length = self.structures[load.structure].length
            check.real(f"Model.loads[{i}].s", load.s, low=0.0, high=length, unit="m")
        for i, support in enumerate(self.supports):
            where = f"Model.supports[{i}]"
            check.choice(f"{where}.structure", support.structure, self.structures)
            spec = self.structures[support.structure]
            if not isinstance(spec, BeamSpec):
                check.fail(f"{where}.structure", support.structure, "the name of a beam")
            check.real(f"{where}.s", support.s, low=0.0, high=spec.length, unit="m")

    def _check_tree_parts(self):
        tree = self.tree
        n_b = 0 if tree is None else tree.n_bodies
        names = [c.name for c in self.contacts]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            check.fail("Model.contacts names", sorted(dup), "names used once")
        clash = set(names) & set(self.structures)
        if clash:
            check.fail("Model.contacts names", sorted(clash), "names that no structure has")
        carried = [b.name for b in self.carried]
        for c in self.contacts:
            where = f"Model.contacts[{c.name!r}]"
            for part in ("profile", "target"):
                p = getattr(c, part)
                if not isinstance(p, Profile) or p.body is None:
                    continue
                if not isinstance(p.body, str):
                    check.index(f"{where}.{part}.body", p.body, n_b, "tree body")
                elif p.body not in carried:
                    check.fail(
                        f"{where}.{part}.body", p.body, f"a CarriedBody of the model, {carried}"
                    )
            for part in ("profile", "target"):
                side = getattr(c, part)
                if isinstance(side, MaterialPoint):
                    check.choice(f"{where}.{part}.structure", side.structure, self.structures)
                    length = self.structures[side.structure].length
                    check.real(f"{where}.{part}.s", side.s, low=0.0, high=length, unit="m")
            if not isinstance(c.profile, Profile | MaterialPoint):
                resolve_point(tree, c.profile.body, c.profile.at, f"{where}.profile")
            if isinstance(c.target, str):
                check.choice(f"{where}.target", c.target, self.structures)
            elif isinstance(c.target, Line) and c.target.body is not None:
                b = check.index(f"{where}.target.body", c.target.body, n_b, "tree body")
                from .multibody.tree import angular_jacobian

                if np.any(angular_jacobian(tree, b)):  # a revolute joint in its chain
                    check.fail(
                        f"{where}.target.body",
                        b,
                        "a body that only translates (prismatic joints in its chain)",
                    )
        joints = []
        for i, d in enumerate(self.drives):
            joints.append(check.index(f"Model.drives[{i}].joint", d.joint, n_b, "tree joint"))
        if len(set(joints)) != len(joints):
            check.fail("Model.drives joints", joints, "each joint driven once at most")
        for loop in self.loops:
            where = f"Model.loops[{loop.name!r}]"
            resolve_point(tree, loop.body_a, loop.point_a, f"{where}.body_a")
            if loop.body_b is not None:
                resolve_point(tree, loop.body_b, loop.point_b, f"{where}.body_b")
        n_rows = sum(c.bilateral for c in self.contacts) + len(self.drives) + 2 * len(self.loops)
        if n_rows > n_b and not self.structures:
            # with structures, the partition takes the rows the tree cannot from their
            # coordinates (``coupling.partition.choose_dependent``)
            raise ValueError(
                f"Model: {n_rows} bilateral constraint rows (sliding contacts, drives, loop "
                f"rows) but only {n_b} tree coordinates and no structure; the dependent "
                "coordinates of the partitioning are taken from the tree and the structures, "
                "so they need at least one per row"
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
    "CarriedBody",
    "Circle",
    "Compliant",
    "ContactPair",
    "Dropper",
    "Line",
    "LoopClosure",
    "MaterialPoint",
    "Model",
    "Point",
    "PointLoad",
    "Polyline",
    "Profile",
    "Sliding",
    "SpringSupport",
    "Unilateral",
    "Wheel",
    "resolve_point",
]
