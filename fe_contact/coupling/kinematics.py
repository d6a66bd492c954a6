"""Kinematics of a contact between a profile on a tree body and a structure or a rigid line.

One construction serves every pair (a Point is a Circle of radius R = 0). With the profile's
centre c (a body point), the target curve r(s, q) of a structure (``structures.Structure``) and
``side`` = +1 when the profile lies on the side of the curve's normal n_s:

* contact parameter: the closest point s of the deformed curve to c,
  ``(c - r(s)) . r'(s) = 0`` (Bauchau (000), eqs. 5-6 with a point for the second curve); for
  the linear beam on the constraint manifold this is Lipinski's (002) eq. (26a) exactly, since
  there c lies on the curve;
* normal ``n = side n_s`` (from the target to the profile), tangent ``t = n`` turned by -90
  degrees (for side = +1 the curve's own tangent), Eugster-Glocker (004), eq. (21);
* gap ``g = n . (c - r(s)) - R`` (000 eq. 7; 004 eq. 23); for the beam and R = 0 this is 002's
  eq. (23) scaled by k = 1/sqrt(1 + w'^2), so that its multiplier is the normal force in N;
* normal velocity ``g' = W_N . u`` with ``W_N = [n . J_c, -n . R(s)]`` (002 eqs. 34, 44 in the
  scaled form; 004 eq. 22): the s-derivative drops out by the orthogonality condition;
* slip velocity of the profile's material point Q = c - R n against the structure's material
  point at s, ``v_t = W_T . u``, ``W_T = [t . J_c + R jw, -t . R(s)]`` (002 eq. 57; 004 eq. 25
  with the rolling term R phi');
* normal acceleration remainder A with ``g'' = W_N . u' + A`` (002 eq. 45 in general form):
  ``A = side (n_s . a_c - s' n_s . R_s(s) u - omega t_s . (c' - v_m))`` with the material
  velocity ``v_m = R(s) u``, the rate of the contact parameter
  ``s' = (a t_s . (c' - v_m) + d . R_s u) / (a^2 - d . r'')`` (d = c - r, a = |r'|) and the
  rotation rate of the tangent ``omega = n_s . (r'' s' + R_s u) / a``. On the beam and the
  manifold this reduces to Lipinski's corrected eq. (45),
  ``A = side k ((n0 - w' t0) . a_p - w'' x'^2 - 2 x' N' q_c')``;
* the gap's second derivative in q (the contact's geometric stiffness, ``gap_hessian``):
  differentiating ``W_N`` once more, with ``s_q`` from the orthogonality condition and
  ``n_q = -a_hat (n . r'_q) / a``, gives with ``rho = g + R`` (= n . d),
  ``v = a_hat . [J_c, -R(s)] / a`` and ``w = n . [0, R_s(s)]``
  ``g_qq = -(a^2 / D) (v w^T + w v^T + (n . r'') v v^T) - (rho / D) w w^T``,
  ``D = a^2 - rho n . r''`` (the denominator of s'): a rank-2 matrix on the tree's and the
  contact element's columns. It holds the structure's curve and the profile centre's first
  derivatives; the centre's own second derivative ``n . c_qq`` (a body point of a chain with
  revolute joints) is not in it. Its products give the terms of a Newton matrix that the rows
  alone miss: ``-lambda g_qq`` in the stiffness (the normal force turning with the curve) and
  ``2 (g_qq u)^T``, ``(g_qq q'')^T`` in the u- and q-derivatives of ``W_N u' + A``
  (``A = u^T g_qq u`` for this scleronomic gap);
* of the q-derivative of ``A`` beyond ``(g_qq q'')^T``, the part through the curve's
  curvature ``kappa = n . r''`` (``remainder_gradient``): ``dA/dkappa = -((a^2 v.u + rho
  w.u) / D)^2`` (differentiating the entries of g_qq above in kappa) times ``n . R_ss(s)``, of
  order s'^2 (at rho = 0 it is ``-s'^2 n . R_ss``: the centripetal acceleration of a point
  following the curve at s'). The other third derivatives of g (through a, n and the
  centre's Jacobian) are left out. On the pantograph at 250 km/h this term alone is about
  half of the contact element's diagonal in the Newton matrix.

Jacobian rows are dense over the system's velocity vector (``n`` entries); ``tree_columns``
and ``structure_columns`` place the tree's and the structure's parts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..curves import PERP
from ..kernels import curvature
from ..kernels import grid as kernels
from ..multibody.tree import (
    PointKinematics,
    TreeModel,
    angular_jacobian,
    body_poses,
    point_kinematics,
)
from ..structures import CurvePoint, Structure, material_velocity, slope_velocity


class ContactLeftStructure(RuntimeError):
    """The closest point of a sliding contact left the structure at one of its ends.
    ``pair`` : the model index of the contact pair (None when not known)."""

    def __init__(self, message: str, pair: int | None = None):
        super().__init__(message)
        self.pair = pair


@dataclass(frozen=True, eq=False)
class ContactKinematics:
    """One contact point at one state (n = system velocities).

    parameter : material coordinate s on the target, m (NaN on a line). element : its element
        (-1 on a line). point : (2,) contact point on the target, m. profile_point : (2,) the
        profile's contact point Q = c - R n, m.
    normal : (2,) unit, from the target to the profile. tangent : (2,) the normal turned by -90
        degrees. gap : m. normal_velocity, slip_velocity : m/s.
    w_normal, w_tangent : (n,) rows W_N, W_T. remainder : A, m/s^2 (NaN when not computed).
    parameter_rate : s', m/s. tangent_remainder : A_T with v_t' = W_T u' + A_T while the contact
    stays closed (g' = 0), m/s^2: ``A_T = t . a_c - s' t . R_s(s) u`` (the frame's rotation
    meets only the normal relative velocity, which is zero). profile_parameter : eta of the
    contact point on a curved profile (``profile_contact``; NaN otherwise); on a Profile target
    ``parameter`` is its eta. gap_hessian : (U (n, 2), C (2, 2)) with d^2 g / dq^2 = U C U^T
    (module docstring; structure contacts only, else None). remainder_gradient : (n,) the
    part of dA/dq through the curve's curvature, 1/s^2 (module docstring; structure contacts
    with ``remainder``, else None).
    """

    parameter: float
    element: int
    point: np.ndarray
    profile_point: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    gap: float
    normal_velocity: float
    slip_velocity: float
    w_normal: np.ndarray
    w_tangent: np.ndarray
    remainder: float
    parameter_rate: float
    tangent_remainder: float = np.nan
    profile_parameter: float = np.nan
    gap_hessian: tuple[np.ndarray, np.ndarray] | None = None
    remainder_gradient: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class ProfileState:
    """The profile's centre c as a body point: kinematics (position, velocity, J_c, a_c), the
    body's angular-velocity row jw (n_tree,) and its angular velocity, rad/s."""

    centre: PointKinematics
    angular_row: np.ndarray
    angular_velocity: float


def profile_state(tree: TreeModel, q_tree, u_tree, body: int, local) -> ProfileState:
    """Kinematics of a profile's centre on ``body`` at the tree state (Lipinski (002), eqs. 1-3)."""
    row = angular_jacobian(tree, body)
    return ProfileState(
        centre=point_kinematics(tree, q_tree, u_tree, body, local),
        angular_row=row,
        angular_velocity=float(row @ u_tree),
    )


def _scatter(n: int, tree_columns: slice, tree_part, cols=None, part=None) -> np.ndarray:
    row = np.zeros(n)
    row[tree_columns] = tree_part
    if cols is not None:
        np.add.at(row, cols, part)
    return row


def structure_contact(
    structure: Structure,
    columns: slice,
    q_s: np.ndarray,
    u_s: np.ndarray,
    profile: ProfileState,
    tree_columns: slice,
    n: int,
    radius: float,
    side: int,
    s: float,
    remainder: bool = True,
    curve_point: CurvePoint | None = None,
) -> ContactKinematics:
    """Contact of a profile (centre state ``profile``, radius R) with ``structure`` at the
    material point ``s`` (the closest point: see ``Structure.project``).

    columns : slice of the structure's free coordinates in the system vector; q_s, u_s : its
    coordinates and velocities; curve_point : ``structure.curve(s, q_s)`` if already known.
    Returns ContactKinematics (module docstring).
    """
    cp = structure.curve(s, q_s) if curve_point is None else curve_point
    pk = profile.centre
    c, c_dot = pk.position, pk.velocity
    n_s, t_s = cp.normal, cp.tangent
    normal = side * n_s
    tangent = -PERP @ normal
    d = c - cp.position
    v_m = material_velocity(cp, u_s)
    rel = c_dot - v_m
    cols = columns.start + cp.dofs
    w_n = _scatter(n, tree_columns, normal @ pk.jacobian, cols, -(normal @ cp.rows))
    w_t = _scatter(
        n,
        tree_columns,
        tangent @ pk.jacobian + radius * profile.angular_row,
        cols,
        -(tangent @ cp.rows),
    )
    a = float(np.hypot(*cp.slope))
    rs_u = slope_velocity(cp, u_s)
    s_rate = (a * float(t_s @ rel) + float(d @ rs_u)) / (a * a - float(d @ cp.slope_rate))
    A = A_T = np.nan
    gradient = None
    hessian = gap_hessian(cp, pk.jacobian, normal, d, n, tree_columns, cols)
    if remainder:
        # dA/dkappa (module docstring) with v.u = a_hat . (c' - v_m) / a, w.u = n . R_s u
        a2 = float(cp.slope @ cp.slope)
        rho = float(normal @ d)
        D = curvature.hessian_core(a2, rho, float(normal @ cp.slope_rate))[3]
        dA_dkappa = curvature.remainder_slope(
            a2, rho, D, float(cp.slope @ rel) / a2, float(normal @ rs_u)
        )
        gradient = _scatter(n, tree_columns, 0.0, cols, dA_dkappa * (normal @ cp.rows_ss))
        omega = float(n_s @ (cp.slope_rate * s_rate + rs_u)) / a
        A = side * (
            float(n_s @ pk.acceleration_remainder)
            - s_rate * float(n_s @ rs_u)
            - omega * float(t_s @ rel)
        )
        A_T = float(tangent @ pk.acceleration_remainder) - s_rate * float(tangent @ rs_u)
    return ContactKinematics(
        parameter=cp.s,
        element=cp.element,
        point=cp.position,
        profile_point=c - radius * normal,
        normal=normal,
        tangent=tangent,
        gap=float(normal @ d) - radius,
        normal_velocity=float(normal @ rel),
        slip_velocity=float(tangent @ rel) + radius * profile.angular_velocity,
        w_normal=w_n,
        w_tangent=w_t,
        remainder=A,
        parameter_rate=s_rate,
        tangent_remainder=A_T,
        gap_hessian=hessian,
        remainder_gradient=gradient,
    )


def gap_hessian(cp: CurvePoint, jac_c, normal, d, n: int, tree_columns: slice, cols):
    """(U (n, 2), C (2, 2)) with d^2 g / dq^2 = U C U^T for the gap of a profile centre (Jacobian
    ``jac_c`` (2, n_tree)) against the curve point ``cp``, contact normal ``normal``,
    ``d = c - r(s)`` (module docstring); ``cols``: the curve point's DOFs in the system. The
    geometry is the compiled beam contact's (``kernels.curvature.hessian_core`` and
    ``hessian_columns``)."""
    slope = np.ascontiguousarray(cp.slope, dtype=float)
    normal = np.ascontiguousarray(normal, dtype=float)
    c00, c01, c11, _ = curvature.hessian_core(
        float(slope @ slope), float(normal @ d), float(normal @ cp.slope_rate)
    )
    U = np.empty((2, n))
    curvature.hessian_columns(
        slope,
        normal,
        np.ascontiguousarray(jac_c, dtype=float),
        np.ascontiguousarray(cp.rows, dtype=float),
        np.ascontiguousarray(cp.rows_s, dtype=float),
        tree_columns.start,
        np.ascontiguousarray(cols, dtype=np.int64),
        U[0],
        U[1],
    )
    return U.T, np.array([[c00, c01], [c01, c11]])


def line_geometry(tree: TreeModel | None, q_tree, u_tree, line):
    """(point (2,), unit normal (2,), carrier) of a ``model.Line`` at the tree state: fixed in
    the plane (carrier None), or on a translating body (carrier: the PointKinematics of its
    point; every material point of a translating body shares its velocity, Jacobian and
    acceleration remainder)."""
    if line.body is None:
        return np.asarray(line.point, dtype=float), np.asarray(line.normal, dtype=float), None
    carrier = point_kinematics(tree, q_tree, u_tree, line.body, line.point)
    angle = float(body_poses(tree, q_tree).angle[line.body])
    c, s = np.cos(angle), np.sin(angle)
    normal = np.array([[c, -s], [s, c]]) @ np.asarray(line.normal, dtype=float)
    return carrier.position, normal, carrier


def line_contact(
    point,
    line_normal,
    profile: ProfileState,
    tree_columns: slice,
    n: int,
    radius: float,
    carrier: PointKinematics | None = None,
) -> ContactKinematics:
    """Contact of a profile with a rigid line through ``point`` with unit normal ``line_normal``
    (towards the free side): n = line normal, g = n . (c - p) - R, W_N = [n . (J_c - J_b)],
    W_T = [t . (J_c - J_b) + R jw], A = n . (a_c - a_b) (004 eqs. 21-25 with the line's foot
    point at rest, or moving with its translating body: ``carrier``, see ``line_geometry``)."""
    pk = profile.centre
    normal = np.asarray(line_normal, dtype=float)
    tangent = -PERP @ normal
    c = pk.position
    gap = float(normal @ (c - np.asarray(point, dtype=float))) - radius
    velocity, jacobian, rem = pk.velocity, pk.jacobian, pk.acceleration_remainder
    if carrier is not None:
        velocity = velocity - carrier.velocity
        jacobian = jacobian - carrier.jacobian
        rem = rem - carrier.acceleration_remainder
    return ContactKinematics(
        parameter=np.nan,
        element=-1,
        point=c - (gap + radius) * normal,
        profile_point=c - radius * normal,
        normal=normal,
        tangent=tangent,
        gap=gap,
        normal_velocity=float(normal @ velocity),
        slip_velocity=float(tangent @ velocity) + radius * profile.angular_velocity,
        w_normal=_scatter(n, tree_columns, normal @ jacobian),
        w_tangent=_scatter(n, tree_columns, tangent @ jacobian + radius * profile.angular_row),
        remainder=float(normal @ rem),
        parameter_rate=0.0,
        tangent_remainder=float(tangent @ rem),
    )


def grid_gaps(centre, radius: float, positions: np.ndarray) -> np.ndarray:
    """Gaps |c - r_i| - R of a circle against fixed material points r_i (m, 2), Eugster-Glocker
    (004), eq. (23); shape (m,) (``kernels.grid.gaps_and_frames``)."""
    return grid_geometry(centre, radius, positions)[0]


def grid_geometry(centre, radius: float, positions: np.ndarray):
    """Gaps (m,), normals and tangents (m, 2) of a circle of centre c against fixed material
    points r_i (m, 2): n_i = (c - r_i) / |c - r_i|, t_i = n_i turned by -90 degrees,
    g_i = |c - r_i| - R, Eugster-Glocker (004), eqs. (21), (23) (``kernels.grid``)."""
    return kernels.gaps_and_frames(
        np.asarray(centre, dtype=float),
        float(radius),
        np.ascontiguousarray(positions, dtype=float),
    )


def grid_contacts(
    profile: ProfileState,
    radius: float,
    positions: np.ndarray,
    dofs: np.ndarray,
    rows: np.ndarray,
    u_s: np.ndarray,
    columns: slice,
    tree_columns: slice,
    n: int,
):
    """Candidate contacts of a circle against fixed material points of a structure,
    Eugster-Glocker (004), eqs. (21)-(25), over the m points (``kernels.grid.grid_rows``).

    positions : (m, 2) r_i; dofs : (m, k) free-coordinate indices; rows : (m, 2, k) dr/dq.
    Returns (gap (m,), normal (m, 2), tangent (m, 2), W_N (n, m), W_T (n, m),
    normal_velocity (m,), slip_velocity (m,)).
    """
    pk = profile.centre
    return kernels.grid_rows(
        pk.position,
        pk.velocity,
        np.ascontiguousarray(pk.jacobian),
        np.ascontiguousarray(profile.angular_row, dtype=float),
        float(profile.angular_velocity),
        float(radius),
        np.ascontiguousarray(positions, dtype=float),
        np.ascontiguousarray(dofs),
        np.ascontiguousarray(rows, dtype=float),
        np.ascontiguousarray(u_s, dtype=float),
        columns.start,
        tree_columns.start,
        n,
    )


__all__ = [
    "ContactKinematics",
    "ContactLeftStructure",
    "ProfileState",
    "grid_contacts",
    "grid_gaps",
    "grid_geometry",
    "line_contact",
    "line_geometry",
    "profile_state",
    "structure_contact",
]
