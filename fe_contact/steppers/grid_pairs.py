"""Candidate-grid pairs of a Moreau-Jean step (``steppers.moreau``) on their constant data.

A grid pair (a circle on a tree body against fixed material points of a structure,
Eugster-Glocker (004), eqs. (20)-(25)) is evaluated several times per step: the gaps of every
candidate at q_P, q_A and q_E, the rows of the closed ones at q_P and the geometry of the
reported ones at q_E. Its kind and constants are the pair's plan
(``coupling.contact_points.pair_plan``, the one ``contact_points`` dispatches on), decided
once; here the centre comes from the tree kernel (``kernels.tree.point_state``) and the
candidates from the grid kernels (``kernels.grid``), the same kernels the general path calls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..coupling.contact_points import pair_plan
from ..kernels import grid as grid_kernels
from ..kernels import tree as tree_kernels
from ..multibody.tree import angular_jacobian

__all__ = ["GridPair", "GridScan"]


@dataclass(frozen=True, eq=False)
class GridScan:
    """Every candidate of a grid pair at one q: gap (m,) in m, the circle's centre (2,) and
    the material points (m, 2) in m."""

    gap: np.ndarray
    centre: np.ndarray
    positions: np.ndarray


class GridPair:
    """Contact k of ``system`` (a grid pair: its ``coupling.contact_points.pair_plan`` is of
    kind "grid", else ValueError) with its plan's constants: ``scan(q)`` the gaps,
    ``rows(q, u, which, scan)`` the W columns and geometry of the candidates ``which``,
    ``geometry(which, scan)`` their geometry alone."""

    def __init__(self, system, k: int):
        plan = pair_plan(system, k)
        if plan.kind != "grid":
            raise ValueError(
                f"contact {plan.name!r} is a {plan.kind} pair; GridPair takes a candidate grid "
                "(a Circle on a structure with search='grid')"
            )
        self.plan = plan
        self.k = k
        self.grid = plan.grid
        self.columns = plan.columns
        self.tree = plan.tree
        self.n = plan.n
        self.body = plan.body
        self.local = (float(plan.local[0]), float(plan.local[1]))
        self.radius = plan.radius
        self.topology = system.tree.topology.kernel_arrays
        self.angular_row = np.ascontiguousarray(angular_jacobian(system.tree, self.body), float)
        self._rest = np.zeros(system.layout.n_tree)

    def _point(self, q, u):
        q_t = np.ascontiguousarray(q[self.tree])
        u_t = self._rest if u is None else np.ascontiguousarray(u[self.tree])
        return tree_kernels.point_state(self.topology, q_t, u_t, self.body, *self.local)

    def scan(self, q) -> GridScan:
        """The gaps |c - r_i| - R of every candidate at q (n,) (004 eq. 23)."""
        centre = self._point(q, None)[0]
        positions = np.ascontiguousarray(self.grid.positions(q[self.columns]))
        gap = grid_kernels.gaps_and_frames(centre, self.radius, positions)[0]
        return GridScan(gap, centre, positions)

    def rows(self, q, u, which, scan: GridScan):
        """(gap, normal, tangent, W_N, W_T, point, parameter) of the candidates ``which`` (j,)
        at (q, u) (``kernels.grid.grid_rows``); ``scan`` : ``scan(q)``."""
        centre, velocity, jacobian, _ = self._point(q, u)
        u_t = u[self.tree]
        positions = scan.positions[which]
        gap, normal, tangent, w_n, w_t, _, _ = grid_kernels.grid_rows(
            centre,
            velocity,
            jacobian,
            self.angular_row,
            float(self.angular_row @ u_t),
            self.radius,
            positions,
            self.grid.dofs[which],
            self.grid.rows[which],
            np.ascontiguousarray(u[self.columns]),
            self.columns.start,
            self.tree.start,
            self.n,
        )
        return gap, normal, tangent, w_n, w_t, positions, self.grid.s[which]

    def geometry(self, which, scan: GridScan):
        """(gap, normal, tangent, point, parameter) of the candidates ``which`` (j,)."""
        positions = scan.positions[which]
        gap, normal, tangent = grid_kernels.gaps_and_frames(scan.centre, self.radius, positions)
        return gap, normal, tangent, positions, self.grid.s[which]
