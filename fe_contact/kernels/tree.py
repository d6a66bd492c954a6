"""Kinematics and dynamics of a joint-coordinate tree, Lipinski (002), eqs. (1)-(3), (7).

The one implementation of the tree's arithmetic: the Python functions of ``multibody.kinematics``,
``multibody.tree_dynamics`` and ``multibody.tree_forces`` call these kernels, and so do the
compiled loop (``kernels.step``, ``kernels.evaluate``) and the sensors. Planar vectors are
(x, y) pairs in loops over the bodies, for numba: a call costs no Python and allocates only its
results. ``tree_arrays`` gives a TreeModel's constant arrays (packed once, when the TreeModel is
built, by ``pack_tree``) in the tuple T the kernels take.

Planar algebra: R(theta) v is (c v_x - s v_y, s v_x + c v_y); e_z x v is (-v_y, v_x).
"""

from __future__ import annotations

import numpy as np
from numba import njit


def pack_tree(
    ancestors,
    parents,
    revolute,
    angle,
    location,
    mass,
    centre_of_mass,
    rotational_mass_matrix,
    gravity,
) -> tuple:
    """The tuple T of the kernels from a tree's constant arrays (n bodies), read-only copies:
    ancestors A (n, n), parents P (n, n), on_ground (n,), revolute (n,), prismatic (n,),
    angle offsets (n,), joint locations (n, 2) in m, prismatic axes (n, 2) = (cos angle,
    sin angle) (zero rows for revolute joints), masses (n,) in kg, centres of mass (n, 2) in m,
    rotational mass matrix sum_i I_i jw_i^T jw_i (n, n) in kg m^2, gravity (2,) in m/s^2."""

    def arr(a):
        a = np.array(a, dtype=float, order="C")
        a.setflags(write=False)
        return a

    revolute = arr(revolute)
    prismatic = 1.0 - revolute
    angle = arr(angle)
    axis = prismatic[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    return (
        arr(ancestors),
        arr(parents),
        arr(1.0 - np.sum(parents, axis=1)),
        revolute,
        arr(prismatic),
        angle,
        arr(np.reshape(location, (-1, 2))),
        arr(axis),
        arr(mass),
        arr(np.reshape(centre_of_mass, (-1, 2))),
        arr(rotational_mass_matrix),
        arr(np.reshape(gravity, (2,))),
    )


def tree_arrays(tree) -> tuple:
    """The constant arrays T of ``tree`` (a TreeModel) in the order the kernels unpack them
    (see ``pack_tree``); packed once per TreeModel and shared by every call."""
    return tree.topology.kernel_arrays


@njit(cache=True, inline="always")
def poses(T, q):
    """Body angles (n,), orientations (n, 2) = (cos, sin), origins (n, 2) and joint vectors
    r = o_i - o_parent (n, 2), Lipinski (002), eq. (1)."""
    A, P, on_ground, rev, pris, angle0, loc, axis = T[0], T[1], T[2], T[3], T[4], T[5], T[6], T[7]
    n = q.size
    ang = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for k in range(n):
            if A[i, k] != 0.0:
                acc += A[i, k] * (angle0[k] + rev[k] * q[k])
        ang[i] = acc
    rot = np.empty((n, 2))
    for i in range(n):
        rot[i, 0] = np.cos(ang[i])
        rot[i, 1] = np.sin(ang[i])
    r = np.empty((n, 2))
    for i in range(n):
        px = on_ground[i]
        py = 0.0
        for p in range(n):
            if P[i, p] != 0.0:
                px += P[i, p] * rot[p, 0]
                py += P[i, p] * rot[p, 1]
        lx = loc[i, 0] + pris[i] * q[i] * axis[i, 0]
        ly = loc[i, 1] + pris[i] * q[i] * axis[i, 1]
        r[i, 0] = px * lx - py * ly
        r[i, 1] = px * ly + py * lx
    origin = np.zeros((n, 2))
    for i in range(n):
        for k in range(n):
            if A[i, k] != 0.0:
                origin[i, 0] += A[i, k] * r[k, 0]
                origin[i, 1] += A[i, k] * r[k, 1]
    return ang, rot, origin, r


@njit(cache=True, inline="always")
def velocities(T, u, rot, r):
    """Angular velocities (n,) and origin velocities (n, 2), Lipinski (002), eq. (2a)."""
    A, P, rev, pris = T[0], T[1], T[3], T[4]
    n = u.size
    omega = np.zeros(n)
    for i in range(n):
        for k in range(n):
            omega[i] += A[i, k] * rev[k] * u[k]
    inc = np.empty((n, 2))
    for i in range(n):
        wp = 0.0
        for p in range(n):
            wp += P[i, p] * omega[p]
        inc[i, 0] = pris[i] * u[i] * rot[i, 0] - wp * r[i, 1]
        inc[i, 1] = pris[i] * u[i] * rot[i, 1] + wp * r[i, 0]
    ov = np.zeros((n, 2))
    for i in range(n):
        for k in range(n):
            if A[i, k] != 0.0:
                ov[i, 0] += A[i, k] * inc[k, 0]
                ov[i, 1] += A[i, k] * inc[k, 1]
    return omega, ov


@njit(cache=True, inline="always")
def _terms(T, u, omega, rot, ov):
    """The column derivatives of the Jacobians times q', (n, 2) (002 eq. 2d)."""
    rev, pris = T[3], T[4]
    n = u.size
    out = np.empty((n, 2))
    for k in range(n):
        out[k, 0] = pris[k] * u[k] * omega[k] * rot[k, 0] - rev[k] * u[k] * ov[k, 0]
        out[k, 1] = pris[k] * u[k] * omega[k] * rot[k, 1] - rev[k] * u[k] * ov[k, 1]
    return out


@njit(cache=True)
def point(T, b, lx, ly, u, rot, origin, omega, ov, terms):
    """Position (2,), velocity (2,), Jacobian (2, n) and acceleration remainder (2,) of the
    point (lx, ly) of body b (002 eqs. 1-3); ``terms`` from ``_terms``."""
    A, rev, pris = T[0], T[3], T[4]
    n = u.size
    ax = rot[b, 0] * lx - rot[b, 1] * ly
    ay = rot[b, 1] * lx + rot[b, 0] * ly
    p = np.array([origin[b, 0] + ax, origin[b, 1] + ay])
    v = np.array([ov[b, 0] - omega[b] * ay, ov[b, 1] + omega[b] * ax])
    J = np.zeros((2, n))
    sx = 0.0
    sy = 0.0
    for k in range(n):
        a = A[b, k]
        if a == 0.0:
            continue
        J[0, k] = a * (-rev[k] * (p[1] - origin[k, 1]) + pris[k] * rot[k, 0])
        J[1, k] = a * (rev[k] * (p[0] - origin[k, 0]) + pris[k] * rot[k, 1])
        sx += a * terms[k, 0]
        sy += a * terms[k, 1]
    wx = omega[b] * v[0] + sx
    wy = omega[b] * v[1] + sy
    rem = np.array([-wy, wx])
    return p, v, J, rem


@njit(cache=True)
def kinematics(T, q, u):
    """Everything the point and dynamics kernels share at one state."""
    ang, rot, origin, r = poses(T, q)
    omega, ov = velocities(T, u, rot, r)
    terms = _terms(T, u, omega, rot, ov)
    return ang, rot, origin, r, omega, ov, terms


@njit(cache=True)
def dynamics(T, q, u, stiffness, damping, rest, actuators, rot, origin, omega, ov, terms):
    """M (n, n) and F (n,) of M q'' + F = Q, Lipinski (002), eqs. (7b)-(7c), in the projected
    Newton-Euler (Jourdain) form, which gives the same M and F as the recursive elimination of
    eqs. (5)-(7c):

        M = sum_i m_i Jc_i^T Jc_i + I_i jw_i^T jw_i
        F = sum_i m_i Jc_i^T (a_rem_i - g) + K (q - rest) + C q' - actuators

    with Jc_i and a_rem_i the Jacobian and acceleration remainder of the centre of mass of body
    i (``point``), g the gravity, K, C the joint stiffnesses and dampings (n,) and ``actuators``
    (n,) the joint actuator forces at the time of the state."""
    mass, com, rotmass, g = T[8], T[9], T[10], T[11]
    n = q.size
    Jx = np.empty((n, n))
    Jy = np.empty((n, n))
    remx = np.empty(n)
    remy = np.empty(n)
    for i in range(n):
        _, _, J, rem = point(T, i, com[i, 0], com[i, 1], u, rot, origin, omega, ov, terms)
        Jx[i] = J[0]
        Jy[i] = J[1]
        remx[i] = rem[0]
        remy[i] = rem[1]
    M = rotmass.copy()
    F = np.zeros(n)
    for k in range(n):
        for m in range(n):
            acc = 0.0
            for i in range(n):
                acc += mass[i] * (Jx[i, k] * Jx[i, m] + Jy[i, k] * Jy[i, m])
            M[k, m] += acc
        f = 0.0
        for i in range(n):
            f += mass[i] * (Jx[i, k] * (remx[i] - g[0]) + Jy[i, k] * (remy[i] - g[1]))
        F[k] = f + stiffness[k] * (q[k] - rest[k]) + damping[k] * u[k] - actuators[k]
    return M, F


@njit(cache=True)
def point_state(T, q, u, b, lx, ly):
    """Position (2,) in m, velocity (2,) in m/s, Jacobian (2, n) and acceleration remainder
    (2,) in m/s^2 of the point (lx, ly) (m, in the frame of body b) at q, u (n,) (002 eqs. 1-3)."""
    _, rot, origin, _, omega, ov, terms = kinematics(T, q, u)
    return point(T, b, lx, ly, u, rot, origin, omega, ov, terms)


@njit(cache=True)
def body_point_states(T, q, u, b, lx, ly):
    """``point_state`` at each of k states in one call (Lipinski (002), eqs. 1-3).

    Parameters
    ----------
    T : tuple
        The tree's arrays (``tree_arrays``).
    q, u : ndarray, shape (k, n)
        Joint coordinates and velocities of the k states, one per row (C order).
    b : int
        The body the point is fixed to.
    lx, ly : float
        The point in the frame of body b, m.

    Returns
    -------
    p : ndarray, shape (k, 2)
        Positions, m.
    v : ndarray, shape (k, 2)
        Velocities, m/s.
    J : ndarray, shape (k, 2, n)
        Jacobians of the position.
    rem : ndarray, shape (k, 2)
        Acceleration remainders J'(q, q') q', m/s^2.

    Examples
    --------
    A point 0.5 m along one revolute body turning at 2 rad/s: at angle theta it is at
    0.5 (cos theta, sin theta), and its remainder is the centripetal -0.5 * 2^2 (cos, sin):

    >>> import numpy as np
    >>> from fe_contact import Body, Joint, TreeModel
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> q = np.array([[0.0], [np.pi / 2]])
    >>> u = np.array([[2.0], [2.0]])
    >>> p, v, J, rem = body_point_states(tree_arrays(tree), q, u, 0, 0.5, 0.0)
    >>> (np.round(p, 12) + 0.0).tolist(), (np.round(rem, 12) + 0.0).tolist()
    ([[0.5, 0.0], [0.0, 0.5]], [[-2.0, 0.0], [0.0, -2.0]])
    """
    k, n = q.shape
    p = np.empty((k, 2))
    v = np.empty((k, 2))
    J = np.empty((k, 2, n))
    rem = np.empty((k, 2))
    for j in range(k):
        p[j], v[j], J[j], rem[j] = point_state(T, q[j], u[j], b, lx, ly)
    return p, v, J, rem


@njit(cache=True)
def body_states(T, q, u):
    """Angles (n,) in rad, origins (n, 2) and centres of mass (n, 2) in m, angular velocities
    (n,) in rad/s, origin and centre-of-mass velocities (n, 2) in m/s of all bodies at q, u (n,),
    Lipinski (002), eqs. (1), (2a)."""
    ang, rot, origin, _, omega, ov, _ = kinematics(T, q, u)
    com = T[9]
    n = q.size
    c = np.empty((n, 2))
    vc = np.empty((n, 2))
    for i in range(n):
        ax = rot[i, 0] * com[i, 0] - rot[i, 1] * com[i, 1]
        ay = rot[i, 1] * com[i, 0] + rot[i, 0] * com[i, 1]
        c[i, 0] = origin[i, 0] + ax
        c[i, 1] = origin[i, 1] + ay
        vc[i, 0] = ov[i, 0] - omega[i] * ay
        vc[i, 1] = ov[i, 1] + omega[i] * ax
    return ang, origin, c, omega, ov, vc


@njit(cache=True)
def equations(T, q, u, stiffness, damping, rest, actuators):
    """M (n, n) and F (n,) of M q'' + F = Q at q, u (n,): ``kinematics`` then ``dynamics``."""
    _, rot, origin, _, omega, ov, terms = kinematics(T, q, u)
    return dynamics(T, q, u, stiffness, damping, rest, actuators, rot, origin, omega, ov, terms)
