"""Compiled kinematics and dynamics of a joint-coordinate tree, Lipinski (002), eqs. (1)-(3), (7).

The same formulas as ``multibody.tree`` and ``multibody.tree_dynamics`` (see their docstrings),
written out with planar vectors as (x, y) pairs in loops over the bodies, for numba: a call
costs no Python and allocates only its results. ``tree_arrays`` packs a TreeModel's constant
arrays into the tuple the kernels take.

Planar algebra: R(theta) v is (c v_x - s v_y, s v_x + c v_y); e_z x v is (-v_y, v_x).
"""

from __future__ import annotations

import numpy as np
from numba import njit


def tree_arrays(tree) -> tuple:
    """The constant arrays of ``tree`` (a TreeModel) in the order the kernels unpack them:
    ancestors A (n, n), parents P (n, n), on_ground (n,), revolute (n,), prismatic (n,),
    angle offsets (n,), joint locations (n, 2), prismatic axes (n, 2), masses (n,), centres of
    mass (n, 2), rotational mass matrix (n, n), gravity (2,)."""
    topo = tree._topology

    def xy(z):
        return np.ascontiguousarray(np.column_stack([np.real(z), np.imag(z)]), dtype=float)

    def arr(a):
        return np.ascontiguousarray(a, dtype=float)

    return (
        arr(topo.ancestors),
        arr(topo.parents),
        arr(topo.on_ground),
        arr(topo.revolute),
        arr(topo.prismatic),
        arr(topo.angle),
        xy(topo.location),
        xy(topo.axis),
        arr(topo.mass),
        xy(topo.centre_of_mass),
        arr(topo.rotational_mass_matrix),
        np.array([topo.gravity.real, topo.gravity.imag]),
    )


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


@njit(cache=True, inline="always")
def kinematics(T, q, u):
    """Everything the point and dynamics kernels share at one state."""
    ang, rot, origin, r = poses(T, q)
    omega, ov = velocities(T, u, rot, r)
    terms = _terms(T, u, omega, rot, ov)
    return ang, rot, origin, r, omega, ov, terms


@njit(cache=True)
def dynamics(T, q, u, stiffness, damping, rest, actuators, rot, origin, omega, ov, terms):
    """M (n, n) and F (n,) of M q'' + F = Q, Lipinski (002), eqs. (7b)-(7c): the projected
    Newton-Euler form of ``tree_dynamics`` with the joint springs, dampers and actuator forces
    (``actuators``, (n,), at the time of the state)."""
    A, rev, pris = T[0], T[3], T[4]
    mass, com, rotmass, g = T[8], T[9], T[10], T[11]
    n = q.size
    Jx = np.zeros((n, n))
    Jy = np.zeros((n, n))
    remx = np.zeros(n)
    remy = np.zeros(n)
    for i in range(n):
        ax = rot[i, 0] * com[i, 0] - rot[i, 1] * com[i, 1]
        ay = rot[i, 1] * com[i, 0] + rot[i, 0] * com[i, 1]
        px = origin[i, 0] + ax
        py = origin[i, 1] + ay
        vx = ov[i, 0] - omega[i] * ay
        vy = ov[i, 1] + omega[i] * ax
        sx = 0.0
        sy = 0.0
        for k in range(n):
            a = A[i, k]
            if a == 0.0:
                continue
            Jx[i, k] = a * (-rev[k] * (py - origin[k, 1]) + pris[k] * rot[k, 0])
            Jy[i, k] = a * (rev[k] * (px - origin[k, 0]) + pris[k] * rot[k, 1])
            sx += a * terms[k, 0]
            sy += a * terms[k, 1]
        remx[i] = -(omega[i] * vy + sy)
        remy[i] = omega[i] * vx + sx
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
