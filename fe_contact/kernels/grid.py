"""Compiled (numba) candidate-grid contact of a circle against fixed material points of a
structure, Eugster-Glocker (004), eqs. (20)-(25): gaps, directions and the dense rows W_N, W_T
of every candidate in one call (``coupling.kinematics.grid_contacts`` calls it; a Moreau-Jean
step evaluates it for the closed candidates of every grid pair). The candidates are few (tens)
and the arithmetic is a few flops each: the numpy version spent its time in per-call overhead
(einsum, np.add.at, broadcasting), which this removes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["gaps_and_frames", "grid_rows", "material_points"]


@njit(cache=True)
def material_points(offset, rows, dofs, q):
    """Positions (m, 2) of m material points of a structure, r_i = offset_i + dr_i/dq q, from
    their rows dr_i/dq (m, 2, k) on the free coordinates dofs (m, k) and the positions offset
    (m, 2) at q = 0 (``structures.base.PointRows``), at the free coordinates q (n_s,)."""
    m, k = dofs.shape
    out = np.empty((m, 2))
    for i in range(m):
        x = 0.0
        y = 0.0
        for a in range(k):
            value = q[dofs[i, a]]
            x += rows[i, 0, a] * value
            y += rows[i, 1, a] * value
        out[i, 0] = offset[i, 0] + x
        out[i, 1] = offset[i, 1] + y
    return out


@njit(cache=True)
def gaps_and_frames(centre, radius, positions):
    """Gaps (m,), normals and tangents (m, 2) of a circle of centre c (2,) and radius R against
    the material points r_i (positions (m, 2)): n_i = (c - r_i) / |c - r_i|, t_i = n_i turned
    by -90 degrees, g_i = |c - r_i| - R, Eugster-Glocker (004), eqs. (21), (23)."""
    m = positions.shape[0]
    gap = np.empty(m)
    normal = np.empty((m, 2))
    tangent = np.empty((m, 2))
    for i in range(m):
        dx = centre[0] - positions[i, 0]
        dy = centre[1] - positions[i, 1]
        distance = np.sqrt(dx * dx + dy * dy)
        nx = dx / distance
        ny = dy / distance
        gap[i] = distance - radius
        normal[i, 0], normal[i, 1] = nx, ny
        tangent[i, 0], tangent[i, 1] = ny, -nx
    return gap, normal, tangent


@njit(cache=True)
def grid_rows(
    centre, velocity, jacobian, angular_row, angular_velocity, radius, positions, dofs, rows, u_s,
    column0, tree0, n,
):  # fmt: skip
    """Candidate contacts of a circle (centre c (2,), velocity c' (2,), Jacobian J_c (2, n_tree),
    angular-velocity row jw (n_tree,) and angular velocity phi' of its body, radius R) against
    the material points r_i (positions (m, 2)) of a structure: dofs (m, k) the points' free
    coordinates, rows (m, 2, k) dr_i / dq, u_s the structure's velocities (n_s,); column0 and
    tree0 the first columns of the structure and of the tree in the system's n velocities.

    n_i = (c - r_i) / |c - r_i|, t_i = n_i turned by -90 degrees, g_i = |c - r_i| - R
    (004 eqs. 21, 23; ``gaps_and_frames``); W_N = [n_i . J_c, -n_i . dr_i/dq], W_T = [t_i . J_c + R jw,
    -t_i . dr_i/dq] (eqs. 22, 25, the rolling term R phi'). Returns gap (m,), normal, tangent
    (m, 2), W_N, W_T (n, m), normal velocity W_N u and slip velocity W_T u (m,) in m/s.
    """
    m = positions.shape[0]
    k = dofs.shape[1]
    n_tree = jacobian.shape[1]
    gap, normal, tangent = gaps_and_frames(centre, radius, positions)
    w_n = np.zeros((n, m))
    w_t = np.zeros((n, m))
    v_n = np.empty(m)
    v_t = np.empty(m)
    for i in range(m):
        nx, ny = normal[i, 0], normal[i, 1]
        tx, ty = tangent[i, 0], tangent[i, 1]
        for j in range(n_tree):
            w_n[tree0 + j, i] = nx * jacobian[0, j] + ny * jacobian[1, j]
            w_t[tree0 + j, i] = tx * jacobian[0, j] + ty * jacobian[1, j] + radius * angular_row[j]
        vx = 0.0  # material velocity of r_i
        vy = 0.0
        for a in range(k):
            dof = dofs[i, a]
            rx = rows[i, 0, a]
            ry = rows[i, 1, a]
            w_n[column0 + dof, i] -= nx * rx + ny * ry
            w_t[column0 + dof, i] -= tx * rx + ty * ry
            vx += rx * u_s[dof]
            vy += ry * u_s[dof]
        rel_x = velocity[0] - vx
        rel_y = velocity[1] - vy
        v_n[i] = nx * rel_x + ny * rel_y
        v_t[i] = tx * rel_x + ty * rel_y + radius * angular_velocity
    return gap, normal, tangent, w_n, w_t, v_n, v_t
