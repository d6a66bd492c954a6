"""Kinematics of a point fixed to a body of a tree, Lipinski (002), eqs. (1)-(3).

Position, velocity, Jacobian dp/dq and acceleration remainder of a body point, one at a time
or all at once (``point_kinematics``), and the constant angular row jw of a body; the columns
of J and of the remainder are those of the conventions of ``multibody.kinematics``. The
arithmetic is the kernel ``kernels.tree.point_state`` (also called by the compiled loop);
``multibody.tree`` re-exports these functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validation as check
from ..kernels import tree as kernels
from .tree_model import TreeModel, checked_state


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


def _body_index(tree: TreeModel, body: object) -> int:
    return check.index("body", body, tree.n_bodies, "body")


def _local(local: object) -> tuple[float, float]:
    return check.vector("local (a point in the body frame)", local, unit="m")


def _point(tree: TreeModel, q, u, body, local):
    """``kernels.tree.point_state`` at q, u (zero when None) for a checked body point."""
    b = _body_index(tree, body)
    x, y = _local(local)
    q = checked_state(tree, q, "q")
    u = np.zeros(q.size) if u is None else checked_state(tree, u, "u")
    return kernels.point_state(tree.topology.kernel_arrays, q, u, b, float(x), float(y))


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
    return tree.topology.angular_jacobians[_body_index(tree, body)].copy()
