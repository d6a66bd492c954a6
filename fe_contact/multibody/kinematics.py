"""Kinematics of a planar rigid-body tree in joint coordinates, Lipinski (002), sec. 2.

The poses and velocities of all bodies of a ``TreeModel`` (``multibody.tree_model``: bodies,
joints, named points) at a state; the kinematics of one body point (position, Jacobian,
acceleration remainder) are in ``multibody.body_points``. The dynamics (``tree_dynamics``) and
the applied forces and energies (``tree_forces``) are built on them; ``multibody.tree`` gathers
them all. The names of ``tree_model`` and ``body_points`` are importable from here too.

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

from dataclasses import dataclass

import numpy as np

from ..kernels import tree as kernels
from .body_points import (
    PointKinematics,
    angular_jacobian,
    point_acceleration_remainder,
    point_jacobian,
    point_kinematics,
    point_position,
    point_velocity,
)
from .tree_model import Body, Topology, TreeModel, checked_state, resolve_point

__all__ = [
    "Body",
    "BodyPoses",
    "BodyVelocities",
    "PointKinematics",
    "Topology",
    "TreeModel",
    "angular_jacobian",
    "body_poses",
    "body_velocities",
    "checked_state",
    "joint_poses",
    "joint_velocities",
    "point_acceleration_remainder",
    "point_jacobian",
    "point_kinematics",
    "point_position",
    "point_velocity",
    "resolve_point",
]


# ---------------------------------------------------------------------------------------------
# Poses and velocities of all bodies, Lipinski (002), eqs. (1), (2a)
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


def _bodies(tree: TreeModel, q, u):
    """``kernels.tree.body_states`` at q, u (zero when None)."""
    q = checked_state(tree, q, "q")
    u = np.zeros(q.size) if u is None else checked_state(tree, u, "u")
    return kernels.body_states(tree.topology.kernel_arrays, q, u)


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
