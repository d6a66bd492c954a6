"""Body frames for profiles: a tree body, a body carried by a structure, or the plane.

A profile's curve p0(eta) is drawn in the frame of its body (Bauchau (000), eq. 4:
Z = u_0 + u + R R_0 p0). ``BodyFrame`` holds that frame at one state (q, u): origin o and its
velocity, the angle theta and angular velocity, their Jacobian rows over the system's velocity
vector (n entries) and the acceleration remainders (o'' = J_o u' + a_o, theta'' = j u' + a_th).
A material point x (body coordinates) is then at o + R(theta) x with velocity J_o u +
theta' R'(theta) x, the Jacobian J_o + R' x j and remainder a_o + R' x a_th - theta'^2 R x.

* tree body: its pose and the kinematics of its origin (Lipinski (002), eqs. 1-3); the angle of
  a planar tree is linear in the joint coordinates, so a_th = 0;
* carried body (``model.CarriedBody``) on a beam at s: o = r(s, q), affine in q (a_o = 0);
  theta = theta0 + atan(w'(s)) with theta0 the direction of the beam's reference axis t0, so
  that the body's axes are (t0, n0) in the undeformed state; j = N_x / (1 + w'^2), a_th =
  -2 w' (w'')^2 / (1 + w'^2)^2 with w' the slope rate. On a string (no rotary inertia) the
  frame turns with the direction of r'(s) likewise (theta = atan2(r'));
* the plane (body None): o = 0, theta = 0, everything else zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..curves import PERP
from ..multibody.tree import angular_jacobian, body_poses, point_kinematics


@dataclass(frozen=True, eq=False)
class BodyFrame:
    """A body's frame at one state (see the module docstring); rows are (n,) or (2, n)."""

    origin: np.ndarray
    velocity: np.ndarray
    jacobian: np.ndarray
    remainder: np.ndarray
    angle: float
    angular_velocity: float
    angular_row: np.ndarray
    angular_remainder: float

    @property
    def rotation(self) -> np.ndarray:
        c, s = math.cos(self.angle), math.sin(self.angle)
        return np.array([[c, -s], [s, c]])

    def point(self, local):
        """(position (2,), velocity (2,), Jacobian (2, n), remainder (2,)) of the material
        point at body coordinates ``local``."""
        x = self.rotation @ np.asarray(local, dtype=float)
        rx = PERP @ x  # R' x = e_z x (R x)
        w = self.angular_velocity
        return (
            self.origin + x,
            self.velocity + w * rx,
            self.jacobian + np.outer(rx, self.angular_row),
            self.remainder + rx * self.angular_remainder - w * w * x,
        )

    def vector(self, local) -> np.ndarray:
        """A body vector (tangent, normal) in the plane."""
        return self.rotation @ np.asarray(local, dtype=float)


def body_frame(system, body, q, u) -> BodyFrame:
    """The frame of ``body`` (tree body index, carried body name, or None) at (q, u)."""
    n = system.layout.n
    lay = system.layout
    if body is None:
        z = np.zeros(n)
        return BodyFrame(np.zeros(2), np.zeros(2), np.zeros((2, n)), np.zeros(2), 0.0, 0.0, z, 0.0)
    if isinstance(body, str):
        return _carried_frame(system, body, q, u)
    tree = system.tree
    q_t, u_t = q[lay.tree], u[lay.tree]
    pk = point_kinematics(tree, q_t, u_t, body, (0.0, 0.0))
    jac = np.zeros((2, n))
    jac[:, lay.tree] = pk.jacobian
    row = np.zeros(n)
    row[lay.tree] = angular_jacobian(tree, body)
    return BodyFrame(
        origin=pk.position,
        velocity=pk.velocity,
        jacobian=jac,
        remainder=pk.acceleration_remainder,
        angle=float(body_poses(tree, q_t).angle[body]),
        angular_velocity=float(row @ u),
        angular_row=row,
        angular_remainder=0.0,
    )


def _carried_frame(system, name: str, q, u) -> BodyFrame:
    lay = system.layout
    n = lay.n
    carried = {b.name: b for b in system.model.carried}[name]
    structure = system.structures[carried.structure]
    sl = lay.structure(carried.structure)
    q_s, u_s = q[sl], u[sl]
    cp = structure.curve(carried.s, q_s)
    cols = sl.start + cp.dofs
    jac = np.zeros((2, n))
    np.add.at(jac.T, cols, cp.rows.T)
    slope = cp.slope
    slope_rate = cp.rows_s @ u_s[cp.dofs]  # d r'/dt
    size2 = float(slope @ slope)
    # theta = atan2(r'): d theta = (r' x d r') / |r'|^2
    row_local = (slope[0] * cp.rows_s[1] - slope[1] * cp.rows_s[0]) / size2
    row = np.zeros(n)
    np.add.at(row, cols, row_local)
    w = float(slope[0] * slope_rate[1] - slope[1] * slope_rate[0]) / size2
    # theta'' = (r' x r'')/|r'|^2 - 2 (r' x r'_dot)(r' . r'_dot)/|r'|^4 with r'_dot = R_s u
    # (affine in q, no remainder of its own): the second term is the remainder
    remainder = -2.0 * w * float(slope @ slope_rate) / size2
    theta = math.atan2(slope[1], slope[0])  # on a beam: angle(t0) + atan(w')
    return BodyFrame(
        origin=cp.position,
        velocity=cp.rows @ u_s[cp.dofs],
        jacobian=jac,
        remainder=np.zeros(2),
        angle=theta,
        angular_velocity=w,
        angular_row=row,
        angular_remainder=remainder,
    )


def carried_rows(structure, s: float, q_s) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dofs, position rows (2, k), angle row (k,)) of the material point s of a structure at
    its coordinates q_s: the shape-function rows N and N' / (1 + w'^2) through which a carried
    body's mass and rotary inertia enter the mass matrix (``system``)."""
    cp = structure.curve(s, q_s)
    slope = cp.slope
    row = (slope[0] * cp.rows_s[1] - slope[1] * cp.rows_s[0]) / float(slope @ slope)
    return cp.dofs, cp.rows, row


__all__ = ["BodyFrame", "body_frame", "carried_rows"]
