"""The constant description of a planar rigid-body tree, Lipinski (002), sec. 2.

``Body`` (mass, inertia, centre of mass), ``TreeModel`` (bodies, joints, named points, gravity)
and the constant arrays derived from it once (``Topology``, with the tuple the kernels of
``kernels.tree`` take); ``checked_state`` (a joint vector of the tree's shape) and
``resolve_point`` (a body point by name or coordinates) check input against a tree. The
numbering of bodies and joints and the frames are those of ``multibody.kinematics``, which
computes the poses, velocities, point Jacobians and acceleration remainders at a state;
``multibody.tree`` gathers both with the dynamics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields

import numpy as np

from .. import validation as check
from ..constants import STANDARD_GRAVITY
from ..kernels import tree as kernels
from .joints import Joint


@dataclass(frozen=True)
class Body:
    """Rigid planar body.

    Zero mass and inertia are allowed: Lipinski (002), sec. 2 builds multi-degree-of-freedom
    connections from joints and massless bodies (e.g. a point mass on an x slider and a y
    slider). ``TreeModel`` rejects a tree in which some joint moves neither mass nor inertia
    (its mass matrix would be singular).

    Parameters
    ----------
    mass : float
        Mass in kg, >= 0.
    inertia : float
        Moment of inertia about the centre of mass in kg m^2, >= 0.
    centre_of_mass : tuple of float, shape (2,), optional
        Centre of mass (x, y) in m in the body's frame (origin at its joint); (0, 0) by
        default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs), naming the
        parameter.
    ValueError
        When ``mass`` or ``inertia`` is negative or not finite, or ``centre_of_mass`` is not
        a pair of finite numbers.

    Examples
    --------
    A slender rod of 0.2 m and 0.45 kg about its middle, m l^2 / 12:

    >>> from fe_contact import Body
    >>> rod = Body(mass=0.45, inertia=0.45 * 0.2**2 / 12, centre_of_mass=(0.1, 0.0))
    >>> print(f"{rod.inertia:.4g} kg m^2")
    0.0015 kg m^2
    >>> Body(mass=-1.0, inertia=0.0)
    Traceback (most recent call last):
    ...
    ValueError: ...mass...
    """

    mass: float
    inertia: float
    centre_of_mass: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        for name, unit in (("mass", "kg"), ("inertia", "kg m^2")):
            value = check.real(f"Body.{name}", getattr(self, name), low=0.0, unit=unit)
            object.__setattr__(self, name, value)
        com = check.vector("Body.centre_of_mass", self.centre_of_mass, unit="m")
        object.__setattr__(self, "centre_of_mass", com)


@dataclass(frozen=True)
class Topology:
    """Constant arrays derived from a TreeModel (read-only); n = number of bodies.

    Built by ``TreeModel`` (``TreeModel.topology``), not by hand. Planar vectors are rows
    (x, y) of (n, 2) arrays.

    Parameters
    ----------
    ancestors : numpy.ndarray, shape (n, n)
        A[i, k] = 1 if joint k is in the reference chain 0kCh^i (k == i included), Lipinski
        (002), eq. (1).
    parents : numpy.ndarray, shape (n, n)
        P[i, p] = 1 for the parent p of body i (a zero row: the ground).
    on_ground : numpy.ndarray, shape (n,)
        1 where the parent is the ground, else 0.
    revolute, prismatic : numpy.ndarray, shape (n,)
        1 where joint i is of that kind, else 0.
    angular_jacobians : numpy.ndarray, shape (n, n)
        Row b is jw_b = A[b] * revolute, omega_b = jw_b @ q'.
    angle : numpy.ndarray, shape (n,)
        Joint angle offsets (revolute) or axis directions (prismatic) in rad.
    location : numpy.ndarray, shape (n, 2)
        Joint locations in m in the parents' frames.
    axis : numpy.ndarray, shape (n, 2)
        (cos angle, sin angle) for a prismatic joint, 0 for a revolute one.
    mass : numpy.ndarray, shape (n,)
        Body masses in kg.
    inertia : numpy.ndarray, shape (n,)
        Moments of inertia about the centres of mass in kg m^2.
    centre_of_mass : numpy.ndarray, shape (n, 2)
        Centres of mass in m in the body frames.
    rotational_mass_matrix : numpy.ndarray, shape (n, n)
        sum_i I_i jw_i^T jw_i in kg m^2, constant in the plane.
    stiffness : numpy.ndarray, shape (n,)
        Joint spring stiffnesses (N m/rad or N/m).
    damping : numpy.ndarray, shape (n,)
        Joint damper coefficients (N m s/rad or N s/m).
    rest : numpy.ndarray, shape (n,)
        Joint spring rest coordinates (rad or m).
    gravity : numpy.ndarray, shape (2,)
        Gravitational acceleration in m/s^2.
    actuated : tuple of (int, Joint)
        The joints with an actuator, with their indices.
    kernel_arrays : tuple
        The tuple T that the numba kernels of ``kernels.tree`` take (``kernels.tree.pack_tree``).

    Examples
    --------
    The two-link arm: joint 0 is in the chain of both bodies, joint 1 in that of body 1:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> arm.topology.ancestors
    array([[1., 0.],
           [1., 1.]])
    """

    ancestors: np.ndarray  # (n, n), A[i, k] = 1 if joint k is in 0kCh^i (k == i included)
    parents: np.ndarray  # (n, n), P[i, p] = 1 for the parent p of body i (zero row: ground)
    on_ground: np.ndarray  # (n,), 1 where the parent is the ground
    revolute: np.ndarray  # (n,) 0/1
    prismatic: np.ndarray  # (n,) 0/1
    angular_jacobians: np.ndarray  # (n, n), row b = jw_b = A[b] * revolute
    angle: np.ndarray  # (n,) joint angle offsets / axis directions
    location: np.ndarray  # (n, 2), joint locations in the parents' frames
    axis: np.ndarray  # (n, 2), (cos angle, sin angle) for prismatic joints, 0 for revolute
    mass: np.ndarray  # (n,)
    inertia: np.ndarray  # (n,)
    centre_of_mass: np.ndarray  # (n, 2), in the body frames
    rotational_mass_matrix: np.ndarray  # (n, n), sum_i I_i jw_i^T jw_i (constant in the plane)
    stiffness: np.ndarray  # (n,)
    damping: np.ndarray  # (n,)
    rest: np.ndarray  # (n,)
    gravity: np.ndarray  # (2,) m/s^2
    actuated: tuple[tuple[int, Joint], ...]  # joints with an actuator
    kernel_arrays: tuple  # the tuple T of ``kernels.tree`` (``kernels.tree.pack_tree``)

    def __post_init__(self) -> None:
        # read-only, also after unpickling: the kernels are compiled for read-only constants
        for value in (*vars(self).values(), *self.kernel_arrays):
            if isinstance(value, np.ndarray):
                value.setflags(write=False)

    def __reduce__(self):
        return (Topology, tuple(getattr(self, f.name) for f in fields(self)))


class _Points(Mapping):
    """Read-only, picklable mapping name -> (body, (x, y)) (``TreeModel.points``)."""

    __slots__ = ("_items",)

    def __init__(self, items: dict[str, tuple[int, tuple[float, float]]]) -> None:
        self._items = dict(items)

    def __getitem__(self, name: str) -> tuple[int, tuple[float, float]]:
        return self._items[name]

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return repr(self._items)

    def __reduce__(self):
        return (_Points, (self._items,))


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class TreeModel:
    """Constant description of a planar tree of rigid bodies, Lipinski (002), sec. 2.

    Parameters
    ----------
    bodies : tuple or list of Body
        The bodies, numbered 0..n-1 in this order; at least one.
    joints : tuple or list of Joint
        One per body; joint i connects body i to ``joints[i].parent``, which is None (ground)
        or an index lower than i. Joint names are unique (an unnamed joint i is
        ``joint_<i>``).
    points : mapping of str to (int, (float, float)), optional
        Named points (end-effectors, contact edges): name -> (body, (x, y)), (x, y) in m in
        the body's frame; an iterable of (name, (body, (x, y))) pairs is also accepted and
        must not repeat a name. Stored as a read-only mapping;
        ``point_position(tree, q, *tree.points["tip"])``. No named points by default.
    gravity : tuple of float, shape (2,), optional
        (g_x, g_y) in m/s^2; (0, -9.81) by default.

    Raises
    ------
    TypeError
        When ``bodies`` or ``joints`` is not a tuple or list of Body / Joint, or a point name
        is not a string.
    ValueError
        When there is no body, the joints are not one per body, a parent is not an earlier
        body, a joint name repeats, a point is malformed or names an unknown body,
        ``gravity`` is not a pair of finite numbers, or some joint moves neither mass nor
        inertia (a singular mass matrix, Lipinski (002), eq. (7b)).

    Examples
    --------
    A pendulum (1 kg at 0.5 m) on a revolute joint: at q = 0 it points along +x and gravity
    pulls it down with the torque -m g l = -4.905 N m:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.multibody.tree import point_position
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),),
    ...                      points={"bob": (0, (0.5, 0.0))})
    >>> bob = point_position(pendulum, np.array([np.pi / 2]), *pendulum.points["bob"])
    >>> [round(float(x), 4) for x in bob]
    [0.0, 0.5]
    """

    bodies: tuple[Body, ...]
    joints: tuple[Joint, ...]
    points: Mapping[str, tuple[int, tuple[float, float]]] = field(
        default_factory=lambda: _Points({}), hash=False
    )
    gravity: tuple[float, float] = STANDARD_GRAVITY
    _topology: Topology = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        bodies = _sequence("TreeModel.bodies", self.bodies, Body)
        joints = _sequence("TreeModel.joints", self.joints, Joint)
        n = len(bodies)
        if n == 0:
            raise ValueError("TreeModel bodies must hold at least one Body, got none")
        if len(joints) != n:
            raise ValueError(
                f"TreeModel joints must hold one Joint per body ({n}), got {len(joints)}"
            )
        for i, joint in enumerate(joints):
            if joint.parent is not None and joint.parent >= n:
                raise ValueError(
                    f"TreeModel joints[{i}].parent = {joint.parent} is an unknown body; allowed: "
                    f"None (ground) or a body index 0..{i - 1}"
                )
            if joint.parent is not None and joint.parent >= i:
                raise ValueError(
                    f"TreeModel joints[{i}].parent = {joint.parent} is not an earlier body "
                    f"(bodies must follow their parents); allowed: None (ground) or 0..{i - 1}"
                )
        names = [j.name or f"joint_{i}" for i, j in enumerate(joints)]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(
                f"TreeModel joints: the names {repeated} are used more than once (an unnamed "
                "joint i is called joint_<i>); allowed: each joint name once"
            )
        object.__setattr__(self, "bodies", bodies)
        object.__setattr__(self, "joints", joints)
        gravity = check.vector("TreeModel.gravity", self.gravity, unit="m/s^2")
        object.__setattr__(self, "gravity", gravity)
        object.__setattr__(self, "points", _Points(_normalise_points(self.points, n)))
        topology = _build_topology(bodies, joints, self.gravity)
        _check_inertia(topology)
        object.__setattr__(self, "_topology", topology)

    @property
    def n_bodies(self) -> int:
        """Number of bodies = number of joints = number of joint coordinates."""
        return len(self.bodies)

    @property
    def topology(self) -> Topology:
        """The constant arrays of the tree (``Topology``), with the tuple the kernels of
        ``kernels.tree`` take (``Topology.kernel_arrays``)."""
        return self._topology


def _sequence(name: str, value, kind: type) -> tuple:
    """A tuple of ``kind`` objects given as a tuple or a list."""
    if not isinstance(value, tuple | list):
        check.fail(name, value, f"a tuple of {kind.__name__} objects", TypeError)
    for i, item in enumerate(value):
        check.instance(f"{name}[{i}]", item, kind, f"a {kind.__name__}")
    return tuple(value)


def _normalise_points(points: object, n: int) -> dict[str, tuple[int, tuple[float, float]]]:
    """Validated copy of ``points`` as a dict name -> (body, (x, y))."""
    items: Iterable = points.items() if isinstance(points, Mapping) else points  # type: ignore
    result: dict[str, tuple[int, tuple[float, float]]] = {}
    try:
        pairs = list(items)
    except TypeError:
        raise ValueError(
            f"TreeModel points must map names to (body, (x, y)), got {points!r}"
        ) from None
    for pair in pairs:
        try:
            name, (body, local) = pair
        except (TypeError, ValueError):
            raise ValueError(
                f"TreeModel points entries must be name -> (body, (x, y)), got {pair!r}"
            ) from None
        check.instance("TreeModel.points name", name, str, "a string")
        if name in result:
            raise ValueError(
                f"TreeModel points has a duplicate name {name!r}; names must be unique"
            )
        body = check.index(f"TreeModel.points[{name!r}].body", body, n, "body")
        result[name] = (body, check.vector(f"TreeModel.points[{name!r}] position", local))
    return result


def _check_inertia(topo: Topology) -> None:
    """Every joint must move some inertia, else its row of M (Lipinski (002), eq. 7b) vanishes.

    Necessary condition, by joint k and the bodies it carries (0kCh^i contains k): a prismatic
    joint needs a positive carried mass, a revolute one a positive carried mass or inertia.
    """
    carried_mass = topo.mass.dot(topo.ancestors)  # (n,), column k sums the bodies joint k moves
    carried_inertia = topo.inertia.dot(topo.ancestors)
    for k in range(topo.mass.shape[0]):
        if topo.prismatic[k] and carried_mass[k] == 0.0:
            raise ValueError(
                f"TreeModel bodies: prismatic joint {k} moves bodies of total mass 0; allowed: a "
                f"positive mass on body {k} or a body it carries (else M would be singular)"
            )
        if topo.revolute[k] and carried_mass[k] == 0.0 and carried_inertia[k] == 0.0:
            raise ValueError(
                f"TreeModel bodies: revolute joint {k} moves no mass and no inertia; allowed: a "
                f"positive mass or inertia on body {k} or a body it carries (the mass matrix "
                "would be singular)"
            )


def _build_topology(
    bodies: tuple[Body, ...], joints: tuple[Joint, ...], gravity: tuple[float, float]
) -> Topology:
    n = len(bodies)
    ancestors = np.zeros((n, n))
    parents = np.zeros((n, n))
    for i, joint in enumerate(joints):
        if joint.parent is not None:
            ancestors[i] = ancestors[joint.parent]
            parents[i, joint.parent] = 1.0
        ancestors[i, i] = 1.0
    revolute = np.array([j.kind == "revolute" for j in joints], dtype=float)
    prismatic = 1.0 - revolute
    angle = np.array([j.angle for j in joints])
    angular_jacobians = ancestors * revolute
    mass = np.array([b.mass for b in bodies])
    inertia = np.array([b.inertia for b in bodies])
    arrays = {
        "ancestors": ancestors,
        "parents": parents,
        "on_ground": 1.0 - parents.sum(axis=1),
        "revolute": revolute,
        "prismatic": prismatic,
        "angular_jacobians": angular_jacobians,
        "angle": angle,
        "location": np.array([j.location for j in joints], dtype=float).reshape(n, 2),
        "axis": prismatic[:, None] * np.column_stack([np.cos(angle), np.sin(angle)]),
        "mass": mass,
        "inertia": inertia,
        "centre_of_mass": np.array([b.centre_of_mass for b in bodies], dtype=float).reshape(n, 2),
        "rotational_mass_matrix": angular_jacobians.T @ (inertia[:, None] * angular_jacobians),
        "stiffness": np.array([j.stiffness for j in joints]),
        "damping": np.array([j.damping for j in joints]),
        "rest": np.array([j.rest for j in joints]),
        "gravity": np.array(gravity, dtype=float),
    }
    kernel_arrays = kernels.pack_tree(
        ancestors=ancestors,
        parents=parents,
        revolute=revolute,
        angle=angle,
        location=arrays["location"],
        mass=mass,
        centre_of_mass=arrays["centre_of_mass"],
        rotational_mass_matrix=arrays["rotational_mass_matrix"],
        gravity=arrays["gravity"],
    )
    return Topology(
        **{name: _readonly(value) for name, value in arrays.items()},
        actuated=tuple((i, j) for i, j in enumerate(joints) if j.actuator is not None),
        kernel_arrays=kernel_arrays,
    )


def checked_state(tree: TreeModel, value: object, name: str) -> np.ndarray:
    """``value`` as a float array of shape (n,) or a ValueError naming ``name``.

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    value : array_like, shape (n,)
        Joint coordinates, velocities or forces, one entry per joint.
    name : str
        The parameter's name for the error message ("q", "u").

    Returns
    -------
    numpy.ndarray, shape (n,)
        ``value`` as floats, C-contiguous and writable (a copy where needed: the kernels are
        compiled for such arrays).

    Raises
    ------
    ValueError
        When ``value`` is not of shape (n,).

    Examples
    --------
    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.multibody.tree import checked_state
    >>> tree = TreeModel(bodies=(Body(1.0, 0.01),), joints=(Joint("revolute"),))
    >>> checked_state(tree, [0.5], "q")
    array([0.5])
    >>> checked_state(tree, [0.5, 0.1], "q")
    Traceback (most recent call last):
    ...
    ValueError: q must have shape (1,) (one entry per joint), got (2,)
    """
    array = np.asarray(value, dtype=float)
    if array.shape != (len(tree.bodies),):
        raise ValueError(
            f"{name} must have shape ({len(tree.bodies)},) (one entry per joint), got {array.shape}"
        )
    if not (array.flags.c_contiguous and array.flags.writeable):
        array = array.copy()  # the kernels are compiled for C-contiguous, writable arrays
    return array


def resolve_point(tree: TreeModel | None, body, point, where: str) -> tuple[float, float]:
    """Local coordinates (x, y) of a body point given by coordinates or by name.

    Parameters
    ----------
    tree : TreeModel or None
        The tree whose named points (``TreeModel.points``) a name refers to; None: there is
        no tree (every body index is refused).
    body : int
        Index of the body the point is on, 0..n-1.
    point : str or array_like, shape (2,)
        A name of ``tree.points`` on ``body``, or the coordinates (x, y) in m in the body's
        frame.
    where : str
        What the point belongs to ("contact 'tip'"), the prefix of the error messages.

    Returns
    -------
    tuple of float
        (x, y) in m in the frame of ``body``.

    Raises
    ------
    TypeError
        When ``body`` is not an integer or ``point`` is neither a name nor a pair of numbers.
    ValueError
        When ``body`` is out of range, a name is not a point of the tree or is on another
        body, or the coordinates are not finite.

    Examples
    --------
    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.multibody.tree_model import resolve_point
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0),), joints=(Joint("revolute"),),
    ...                  points={"tip": (0, (0.3, 0.0))})
    >>> resolve_point(tree, 0, "tip", "contact 'tip'"), resolve_point(tree, 0, (0.1, 0.0), "x")
    ((0.3, 0.0), (0.1, 0.0))
    """
    n = 0 if tree is None else tree.n_bodies
    body = check.index(f"{where}.body", body, n, "tree body")
    if isinstance(point, str):
        if point not in tree.points:
            check.fail(f"{where}.point", point, f"a point of the tree, {sorted(tree.points)}")
        point_body, local = tree.points[point]
        if point_body != body:
            raise ValueError(f"{where}: point {point!r} is on body {point_body}, not {body}")
        return tuple(local)
    return check.vector(f"{where}.point", point, unit="m")
