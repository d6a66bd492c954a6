"""Compliant contacts (``model.Compliant``) in the generalised-alpha step: their force is an
applied force of the equations of motion (``coupling.constraints.compliant_forces``), not a
constraint row. ``tangent_solver`` adds its stiffness to the structures' block of the step's
iteration matrix, ``compliant_report`` reports it."""

from __future__ import annotations

import numpy as np

from .result import ContactReport, open_contact


def compliant_report(name: str, force, h: float, state: str | None = None) -> ContactReport:
    """The ContactReport of a compliant contact's ``CompliantForce`` at the end of a step of h
    (impulses: force times h). ``state``: "stick" while a rolling row holds it (default:
    "slip" while it pushes, else "open")."""
    c = force.contact
    if c is None or not force.normal_force > 0.0:
        return open_contact(name, np.inf if c is None else c.gap)
    f_n, f_t = force.normal_force, force.friction_force
    return ContactReport(
        name=name,
        state=state or "slip",
        point=c.point[None, :],
        normal=c.normal[None, :],
        tangent=c.tangent[None, :],
        parameter=np.array([c.parameter]),
        gap=np.array([c.gap]),
        slip_velocity=np.array([c.slip_velocity]),
        normal_force=np.array([f_n]),
        friction_force=np.array([f_t]),
        normal_impulse=np.array([f_n * h]),
        friction_impulse=np.array([f_t * h]),
        min_gap=c.gap,
    )


class _Updated:
    """Solves (G + U K U^T) x = r by the Woodbury identity from a solver of G (``lu``):
    x = y - Z (I + K U^T Z)^-1 K U^T y with y = G^-1 r, Z = G^-1 U; K may be singular."""

    def __init__(self, lu, U, K):
        self.lu, self.U, self.K = lu, U, K
        self.Z = lu.solve(np.ascontiguousarray(U))
        self.S = np.eye(K.shape[0]) + K @ (U.T @ self.Z)

    def solve(self, r):
        y = self.lu.solve(r)
        return y - self.Z @ np.linalg.solve(self.S, self.K @ (self.U.T @ y))


def tangent_solver(lu, ev, h: float, algebra):
    """The solver of the structures' block G_f with the tangent of the compliant contacts that
    push (``CompliantForce.tangent``: bp K_q + gp K_u over the flexible part of W = [W_N, W_T],
    bp, gp the step's d q / d z and d u / d z) added by a rank-2 update per contact: without
    it the stiff Hertz law and the steep continuous friction law near v_t = 0 (slope
    mu F_n / v0) would make the iteration a slow fixed-point one, or diverge. The tree part
    and the tree-structure coupling of the tangent are left out (the tree's iteration matrix
    is its mass matrix alone, as for its other forces)."""
    if lu is None or not ev.compliant:
        return lu
    bp, gp = algebra.coefficients(h)
    flexible = algebra.system.layout.flexible
    columns, blocks = [], []
    for f in ev.compliant:
        if f.tangent is None or not f.normal_force > 0.0:
            continue
        k_q, k_u = f.tangent
        columns += [f.contact.w_normal[flexible], f.contact.w_tangent[flexible]]
        blocks.append(bp * k_q + gp * k_u)
    if not blocks:
        return lu
    U = np.column_stack(columns)
    if not np.any(U):
        return lu
    K = np.zeros((U.shape[1], U.shape[1]))
    for i, block in enumerate(blocks):
        K[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = block
    return _Updated(lu, U, K)


__all__ = ["compliant_report", "tangent_solver"]
