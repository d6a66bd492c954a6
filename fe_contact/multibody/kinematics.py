"""The planar rigid-body tree in joint coordinates and its kinematics, Lipinski (002), sec. 2.

``TreeModel`` (bodies, joints, named points) and the poses, velocities, point Jacobians and
acceleration remainders that the dynamics (``tree_dynamics``) and the applied forces and
energies (``tree_forces``) are built from; ``multibody.tree`` gathers all three.

Conventions
-----------
Bodies are numbered 0..n-1 in the order given and joint i connects body i to its parent p (ground
or a body with a lower number, so the succession order of 002 is the numbering), hence the tree
has n joint coordinates q, shape (n,). The frame of body i has its origin o_i at joint i and the
angle theta_i (counter-clockwise from the ground x axis), R(.) is the planar rotation:

    revolute:   theta_i = theta_p + angle_i + q_i,  o_i = o_p + R(theta_p) location_i
    prismatic:  theta_i = theta_p + angle_i,        o_i = o_p + R(theta_p) (location_i + q_i a_i)

with a_i = (cos angle_i, sin angle_i) and theta_ground = 0, o_ground = 0. These are the ordered
products and sums along the reference chain 0kCh^i of Lipinski (002), eq. (1); they are evaluated
for all bodies at once with the constant ancestor matrix ``A[i, k] = 1`` if joint k lies in 0kCh^i.

A point x fixed to body b has the velocity x' = J q' with the columns (Lipinski (002), eqs. 2a, 3)

    J[:, k] = A[b, k] * (e_z x (x - o_k))     for a revolute joint k,
    J[:, k] = A[b, k] * (cos theta_k, sin theta_k)   for a prismatic joint k,

and the acceleration x'' = J q'' + a_rem with the remainder a_rem = J' q' (Lipinski (002),
eqs. 2d, 3cd): e_z x (x' - o_k') for a revolute and omega_k e_z x a_k for a prismatic column. In
the plane the angular velocity is omega_b = jw_b q' with the constant row jw_b[k] = A[b, k] for
revolute k (else 0), and its remainder is identically zero.

Implementation note: the arithmetic is written once, in the numba kernels of ``kernels.tree``
(also called by the compiled loop); the functions here check their input and call them with the
constant arrays packed once per TreeModel (``Topology.kernel_arrays``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields

import numpy as np

from .. import validation as check
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
    gravity: tuple[float, float] = (0.0, -9.81)
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


# ---------------------------------------------------------------------------------------------
# Kinematics, Lipinski (002), eqs. (1)-(3)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BodyPoses:
    """Positions of all bodies, Lipinski (002), eq. (1).

    Parameters
    ----------
    angle : numpy.ndarray, shape (n,)
        Orientation theta_i of each body frame in rad.
    origin : numpy.ndarray, shape (n, 2)
        Origin o_i of each body frame (the point of joint i) in m.
    centre_of_mass : numpy.ndarray, shape (n, 2)
        Centres of mass in m in the ground frame.

    Examples
    --------
    See ``body_poses``:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import body_poses
    >>> body_poses(arm, [0.0, 0.0]).origin.shape
    (2, 2)
    """

    angle: np.ndarray
    origin: np.ndarray
    centre_of_mass: np.ndarray


@dataclass(frozen=True)
class BodyVelocities:
    """Velocities of all bodies, Lipinski (002), eq. (2a).

    Parameters
    ----------
    angular_velocity : numpy.ndarray, shape (n,)
        Angular velocity omega_i of each body in rad/s.
    origin_velocity : numpy.ndarray, shape (n, 2)
        Velocity of each body frame's origin in m/s.
    centre_of_mass_velocity : numpy.ndarray, shape (n, 2)
        Velocity of each centre of mass in m/s.

    Examples
    --------
    See ``body_velocities``:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import body_velocities
    >>> body_velocities(arm, [0.0, 0.0], [0.0, 2.0]).angular_velocity.tolist()
    [0.0, 2.0]
    """

    angular_velocity: np.ndarray
    origin_velocity: np.ndarray
    centre_of_mass_velocity: np.ndarray


@dataclass(frozen=True)
class PointKinematics:
    """Everything about one body point at one state, Lipinski (002), eqs. (1)-(3).

    Parameters
    ----------
    position : numpy.ndarray, shape (2,)
        Position in m in the ground frame, eq. (1).
    velocity : numpy.ndarray, shape (2,)
        Velocity in m/s, ``jacobian @ q'``, eq. (2a).
    jacobian : numpy.ndarray, shape (2, n)
        dp/dq, eq. (3b).
    acceleration_remainder : numpy.ndarray, shape (2,)
        a_rem in m/s^2: acceleration = ``jacobian @ q'' + acceleration_remainder``, eq. (3d).

    Examples
    --------
    See ``point_kinematics``:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import point_kinematics
    >>> point_kinematics(arm, [0.0, 0.0], [0.0, 0.0], 1, (0.2, 0.0)).jacobian.shape
    (2, 2)
    """

    position: np.ndarray
    velocity: np.ndarray
    jacobian: np.ndarray
    acceleration_remainder: np.ndarray


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


def _body_index(tree: TreeModel, body: object) -> int:
    return check.index("body", body, tree.n_bodies, "body")


def _local(local: object) -> tuple[float, float]:
    return check.vector("local (a point in the body frame)", local, unit="m")


def _complex(xy: np.ndarray) -> np.ndarray:
    """Real (n, 2) -> complex (n,) x + i y."""
    return xy[:, 0] + 1j * xy[:, 1]


def _pairs(z) -> np.ndarray:
    """Complex (n,) -> real (n, 2), C-contiguous."""
    z = np.asarray(z, dtype=complex)
    return np.ascontiguousarray(np.column_stack([z.real, z.imag]))


def joint_poses(topo: Topology, q: np.ndarray):
    """Body angles, orientations, origins and joint offsets as complex numbers.

    Lipinski (002), eq. (1): T^i and x^i as products and sums along 0kCh^i (the ancestor matrix A).

    Parameters
    ----------
    topo : Topology
        The constant arrays of the tree (``TreeModel.topology``).
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint (not checked).

    Returns
    -------
    angle : numpy.ndarray, shape (n,)
        Body angles theta_i in rad.
    rotation : numpy.ndarray of complex, shape (n,)
        Orientations exp(i theta_i).
    origin : numpy.ndarray of complex, shape (n,)
        Body frame origins o_i = x + i y in m.
    r : numpy.ndarray of complex, shape (n,)
        o_i - o_p, from the parent's origin (the ground's: 0) in m.

    Examples
    --------
    The two-link arm at q = (pi/2, -pi/2): angles, and the joint origins as complex numbers
    x + i y (joint 1 at (0, 0.2)):

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import joint_poses
    >>> angle, rotation, origin, r = joint_poses(arm.topology, np.array([np.pi / 2, -np.pi / 2]))
    >>> angle.round(4), (origin.round(4) + 0).tolist()
    (array([1.5708, 0.    ]), [0j, 0.2j])
    """
    angle, rotation, origin, r = kernels.poses(
        topo.kernel_arrays, np.ascontiguousarray(q, dtype=float)
    )
    return angle, _complex(rotation), _complex(origin), _complex(r)


def joint_velocities(topo: Topology, u: np.ndarray, rotation: np.ndarray, r: np.ndarray):
    """Angular velocities and complex origin velocities, Lipinski (002), eq. (2a).

    Sums along 0kCh^i:

    d/dt r_i = omega_p i r_i + q_i' a_i with the world axis a_i = exp(i theta_i) (prismatic).

    Parameters
    ----------
    topo : Topology
        The constant arrays of the tree (``TreeModel.topology``).
    u : array_like, shape (n,)
        Joint velocities q': rad/s for a revolute, m/s for a prismatic joint (not checked).
    rotation : numpy.ndarray of complex, shape (n,)
        Orientations exp(i theta_i) from ``joint_poses``.
    r : numpy.ndarray of complex, shape (n,)
        Joint offsets o_i - o_p in m from ``joint_poses``.

    Returns
    -------
    omega : numpy.ndarray, shape (n,)
        Angular velocities in rad/s.
    origin_velocity : numpy.ndarray of complex, shape (n,)
        Velocities of the body frame origins, v_x + i v_y in m/s.

    Examples
    --------
    The stretched arm turning at joint 0 with 1 rad/s: joint 1 (0.2 m out) moves at 0.2 m/s
    along +y (0.2j):

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import joint_poses, joint_velocities
    >>> q, u = np.zeros(2), np.array([1.0, 0.0])
    >>> _, rotation, _, r = joint_poses(arm.topology, q)
    >>> omega, v = joint_velocities(arm.topology, u, rotation, r)
    >>> omega.tolist(), (v.round(4) + 0).tolist()
    ([1.0, 1.0], [0j, 0.2j])
    """
    omega, origin_velocity = kernels.velocities(
        topo.kernel_arrays, np.ascontiguousarray(u, dtype=float), _pairs(rotation), _pairs(r)
    )
    return omega, _complex(origin_velocity)


def _point(tree: TreeModel, q, u, body, local):
    """``kernels.tree.point_state`` at q, u (zero when None) for a checked body point."""
    b = _body_index(tree, body)
    x, y = _local(local)
    q = checked_state(tree, q, "q")
    u = np.zeros(q.size) if u is None else checked_state(tree, u, "u")
    return kernels.point_state(tree._topology.kernel_arrays, q, u, b, float(x), float(y))


def _bodies(tree: TreeModel, q, u):
    """``kernels.tree.body_states`` at q, u (zero when None)."""
    q = checked_state(tree, q, "q")
    u = np.zeros(q.size) if u is None else checked_state(tree, u, "u")
    return kernels.body_states(tree._topology.kernel_arrays, q, u)


def body_poses(tree: TreeModel, q) -> BodyPoses:
    """Orientation, frame origin and centre of mass of every body, Lipinski (002), eq. (1).

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.

    Returns
    -------
    BodyPoses
        Angles (n,) in rad, origins and centres of mass (n, 2) in m.

    Raises
    ------
    ValueError
        When ``q`` (or ``u``) is not of shape (n,), naming it.

    Examples
    --------
    A two-link arm (0.2 m links) at q = (pi/2, -pi/2): link 1 points up, link 2 along +x from
    (0, 0.2); its centre of mass is at (0.1, 0.2):

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import body_poses
    >>> poses = body_poses(arm, [np.pi / 2, -np.pi / 2])
    >>> np.round(poses.angle, 4), np.round(poses.origin[1], 4), np.round(poses.centre_of_mass[1], 4)
    (array([1.5708, 0.    ]), array([0. , 0.2]), array([0.1, 0.2]))
    """
    angle, origin, com, _, _, _ = _bodies(tree, q, None)
    return BodyPoses(angle=angle, origin=origin, centre_of_mass=com)


def body_velocities(tree: TreeModel, q, u) -> BodyVelocities:
    """Angular velocity, origin and centre-of-mass velocity of every body, Lipinski (002), eq. (2a).

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.
    u : array_like, shape (n,)
        Joint velocities q': rad/s for a revolute, m/s for a prismatic joint.

    Returns
    -------
    BodyVelocities
        Angular velocities (n,) in rad/s, origin and centre-of-mass velocities (n, 2) in m/s.

    Raises
    ------
    ValueError
        When ``q`` (or ``u``) is not of shape (n,), naming it.

    Examples
    --------
    The stretched two-link arm turning at joint 1 with 1 rad/s: omega = 1 for both links, and the
    centre of mass of link 2 (at x = 0.3 m) moves at 0.3 m/s along +y:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import body_velocities
    >>> v = body_velocities(arm, [0.0, 0.0], [1.0, 0.0])
    >>> np.round(v.angular_velocity, 4), np.round(v.centre_of_mass_velocity[1], 4)
    (array([1., 1.]), array([0. , 0.3]))
    """
    _, _, _, omega, origin_velocity, com_velocity = _bodies(tree, q, u)
    return BodyVelocities(
        angular_velocity=omega,
        origin_velocity=origin_velocity,
        centre_of_mass_velocity=com_velocity,
    )


def point_position(tree: TreeModel, q, body: int, local) -> np.ndarray:
    """Ground-frame position of the point ``local`` fixed to ``body``, Lipinski (002), eq. (1).

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.
    body : int
        Index of the body, 0..n-1.
    local : array_like, shape (2,)
        The point (x, y) in m in the frame of ``body``.

    Returns
    -------
    numpy.ndarray, shape (2,)
        The position (x, y) in m.

    Raises
    ------
    TypeError
        When ``body`` is not an integer or ``local`` is not a pair of numbers.
    ValueError
        When ``body`` is out of range, ``local`` is not finite, or a joint vector (``q``,
        ``u``) is not of shape (n,).

    Examples
    --------
    The tip of the two-link arm at q = (pi/2, -pi/2) is at (l2, l1) = (0.2, 0.2):

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import point_position
    >>> np.round(point_position(arm, [np.pi / 2, -np.pi / 2], 1, (0.2, 0.0)), 4)
    array([0.2, 0.2])
    """
    return _point(tree, q, None, body, local)[0]


def point_velocity(tree: TreeModel, q, u, body: int, local) -> np.ndarray:
    """Ground-frame velocity of the point ``local`` fixed to ``body``, Lipinski (002), eq. (2a).

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.
    u : array_like, shape (n,)
        Joint velocities q': rad/s for a revolute, m/s for a prismatic joint.
    body : int
        Index of the body, 0..n-1.
    local : array_like, shape (2,)
        The point (x, y) in m in the frame of ``body``.

    Returns
    -------
    numpy.ndarray, shape (2,)
        The velocity in m/s.

    Raises
    ------
    TypeError
        When ``body`` is not an integer or ``local`` is not a pair of numbers.
    ValueError
        When ``body`` is out of range, ``local`` is not finite, or a joint vector (``q``,
        ``u``) is not of shape (n,).

    Examples
    --------
    The stretched arm turning at joint 1 with 1 rad/s: the tip (0.4 m out) moves at 0.4 m/s:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import point_velocity
    >>> np.round(point_velocity(arm, [0.0, 0.0], [1.0, 0.0], 1, (0.2, 0.0)), 4)
    array([0. , 0.4])
    """
    return _point(tree, q, u, body, local)[1]


def point_jacobian(tree: TreeModel, q, body: int, local) -> np.ndarray:
    """Jacobian dp/dq of the point ``local`` on ``body``, Lipinski (002), eq. (3b).

    Column k is e_z x (p - o_k) for a revolute and the axis (cos theta_k, sin theta_k) for a
    prismatic joint k in the point's reference chain 0kCh^body, zero otherwise.

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.
    body : int
        Index of the body, 0..n-1.
    local : array_like, shape (2,)
        The point (x, y) in m in the frame of ``body``.

    Returns
    -------
    numpy.ndarray, shape (2, n)
        dp/dq: m/rad in a revolute column, dimensionless in a prismatic one.

    Raises
    ------
    TypeError
        When ``body`` is not an integer or ``local`` is not a pair of numbers.
    ValueError
        When ``body`` is out of range, ``local`` is not finite, or a joint vector (``q``,
        ``u``) is not of shape (n,).

    Examples
    --------
    For the stretched two-link arm, column k is e_z x (tip - joint k): (0, 0.4) and (0, 0.2):

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import point_jacobian
    >>> np.round(point_jacobian(arm, [0.0, 0.0], 1, (0.2, 0.0)), 4)
    array([[0. , 0. ],
           [0.4, 0.2]])
    """
    return _point(tree, q, None, body, local)[2]


def point_acceleration_remainder(tree: TreeModel, q, u, body: int, local) -> np.ndarray:
    """Acceleration remainder a_rem with p'' = J q'' + a_rem of a body point.

    Lipinski (002), eqs. (2d), (3d).

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.
    u : array_like, shape (n,)
        Joint velocities q': rad/s for a revolute, m/s for a prismatic joint.
    body : int
        Index of the body, 0..n-1.
    local : array_like, shape (2,)
        The point (x, y) in m in the frame of ``body``.

    Returns
    -------
    numpy.ndarray, shape (2,)
        a_rem = J' q' in m/s^2.

    Raises
    ------
    TypeError
        When ``body`` is not an integer or ``local`` is not a pair of numbers.
    ValueError
        When ``body`` is out of range, ``local`` is not finite, or a joint vector (``q``,
        ``u``) is not of shape (n,).

    Examples
    --------
    A point 0.5 m out on a link turning at 2 rad/s: the centripetal acceleration -omega^2 r
    = -2 m/s^2, towards the joint:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.multibody.tree import point_acceleration_remainder
    >>> link = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> np.round(point_acceleration_remainder(link, [0.0], [2.0], 0, (0.5, 0.0)), 4)
    array([-2.,  0.])
    """
    return _point(tree, q, u, body, local)[3]


def point_kinematics(tree: TreeModel, q, u, body: int, local) -> PointKinematics:
    """Position, velocity, Jacobian and acceleration remainder of a body point in one pass.

    Lipinski (002), eqs. (1)-(3).

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.
    u : array_like, shape (n,)
        Joint velocities q': rad/s for a revolute, m/s for a prismatic joint.
    body : int
        Index of the body, 0..n-1.
    local : array_like, shape (2,)
        The point (x, y) in m in the frame of ``body``.

    Returns
    -------
    PointKinematics
        Position (2,) in m, velocity (2,) in m/s, Jacobian (2, n) and acceleration
        remainder (2,) in m/s^2.

    Raises
    ------
    TypeError
        When ``body`` is not an integer or ``local`` is not a pair of numbers.
    ValueError
        When ``body`` is out of range, ``local`` is not finite, or a joint vector (``q``,
        ``u``) is not of shape (n,).

    Examples
    --------
    Everything at once; the velocity is the Jacobian times the joint velocities, eq. (2a):

    >>> from fe_contact import Body, Joint, TreeModel
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(1.0, 0.01, (0.1, 0.0))),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))))
    >>> from fe_contact.multibody.tree import point_kinematics
    >>> k = point_kinematics(arm, [0.3, -0.6], [1.0, 0.5], 1, (0.2, 0.0))
    >>> bool(np.allclose(k.velocity, k.jacobian @ [1.0, 0.5], rtol=0, atol=1e-15))
    True
    """
    position, velocity, jacobian, remainder = _point(tree, q, u, body, local)
    return PointKinematics(
        position=position,
        velocity=velocity,
        jacobian=jacobian,
        acceleration_remainder=remainder,
    )


def angular_jacobian(tree: TreeModel, body: int) -> np.ndarray:
    """Constant row jw with omega_body = jw @ q', Lipinski (002), eqs. (2a), (3a).

    jw[k] = 1 for revolute joints k in the body's reference chain, else 0. In the plane the
    angular acceleration is jw @ q'' exactly: its remainder (Lipinski (002), eq. 3c) is zero.

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    body : int
        Index of the body, 0..n-1.

    Returns
    -------
    numpy.ndarray, shape (n,)
        jw, a copy (rad/s of the body per rad/s of each joint).

    Raises
    ------
    TypeError
        When ``body`` is not an integer.
    ValueError
        When ``body`` is out of range.

    Examples
    --------
    Two revolute joints and a prismatic one on top: body 2 turns with q1' + q2':

    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.multibody.tree import angular_jacobian
    >>> tree = TreeModel(bodies=(Body(1.0, 0.01),) * 3,
    ...                  joints=(Joint("revolute"), Joint("revolute", parent=0),
    ...                          Joint("prismatic", parent=1)))
    >>> angular_jacobian(tree, 2)
    array([1., 1., 0.])
    """
    return tree._topology.angular_jacobians[_body_index(tree, body)].copy()


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
    >>> from fe_contact.multibody.kinematics import resolve_point
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
