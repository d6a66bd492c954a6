"""Compliant contacts (``model.Compliant``) in the generalised-alpha step: their force is an
applied force of the equations of motion (``coupling.constraints.compliant_forces``), not a
constraint row. ``bordered_solve`` adds its tangent to the step's iteration matrix,
``compliant_report`` reports it.

Rolling (``Compliant.rolling``, Bauchau (000) secs. 5-6): a rolling compliant contact has a
velocity-level row W_T u = 0 whose multiplier is its friction force; its modes and their
switches are those of ``contact_states.ContactModes``, located in time as the other contact
events."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..kernels.curvature import curvature_row
from .contact_report import ContactReport, open_contact, point_contact


def _block_diag(*blocks) -> np.ndarray:
    """The square blocks on the diagonal of one matrix. numpy alone: scipy.linalg.block_diag's
    array-API dispatch costs about 0.2 ms a call, more than the Newton solve it feeds."""
    size = sum(b.shape[0] for b in blocks)
    out = np.zeros((size, size))
    k = 0
    for b in blocks:
        m = b.shape[0]
        out[k : k + m, k : k + m] = b
        k += m
    return out


def compliant_report(
    name: str, force, h: float, state: str | None = None, law=None
) -> ContactReport:
    """The ContactReport of a compliant contact's ``CompliantForce`` at the end of a step of h
    (impulses: force times h). ``state``: "stick" while a rolling row holds it (default: the
    ``law``'s ``state_name``, "slip" while it pushes, else "open"; a Dropper's "taut",
    "slack")."""
    c = force.contact
    closed = c is not None and force.normal_force > 0.0
    name_of = "slip" if law is None else law.state_name(closed)
    if not closed:
        report = open_contact(name, np.inf if c is None else c.gap)
        return report if name_of == "open" else replace(report, state=name_of)
    return point_contact(name, state or name_of, c, force.normal_force, force.friction_force, h)


def _folded_links(ev, n_tree: int, bp: float, gp: float):
    """The tangent of the taut links with constant rows (``CompliantForce.rows``, all on the
    structures: W_T = 0, so d forces / dz = K w w^T with K = bp dT/da + gp dT/da') as the
    (values, rows, cols) of a sparse (n_f, n_f) matrix, and the set of their model indices;
    (None, ()) when none is taut."""
    taut = [
        f
        for f in ev.compliant
        if f.rows is not None and f.tangent is not None and f.normal_force > 0.0
    ]
    taut = [f for f in taut if f.rows[0].min() >= n_tree]
    if not taut:
        return None, ()
    dofs = np.array([f.rows[0] for f in taut]) - n_tree  # (links, k): one width for all
    w = np.array([f.rows[1] for f in taut])
    k = np.array([bp * f.tangent[0][0, 0] + gp * f.tangent[1][0, 0] for f in taut])
    width = dofs.shape[1]
    rows = np.repeat(dofs, width, axis=1).ravel()
    cols = np.tile(dofs, (1, width)).ravel()
    values = (k[:, None, None] * w[:, :, None] * w[:, None, :]).ravel()
    return (values, rows, cols), {f.index for f in taut}


def _tangent(ev, bp: float, gp: float, slip=None, folded=()):
    """(U (n, k), K (k, k), V (n, k)) of the pushing compliant contacts: d forces / dz =
    V K U^T with K = bp K_q + gp K_u per contact (``CompliantForce.tangent``), and of the
    slipping contacts of the rows whose friction depends on v_t (``slip``: d(-F_t) / dv_t per
    contact in ``ev.contacts`` order, N s/m, 0 for none): a column W_T and gp times that; or
    None. V is U (the same array) unless a contact's force acts along another row than its
    W_N (``CompliantForce.force_row``). ``folded`` : model indices of the links whose tangent
    is in the factorised block (``_folded_links``), left out here."""
    columns, blocks, rows = [], [], []
    for f in ev.compliant:
        if f.tangent is None or not f.normal_force > 0.0 or f.index in folded:
            continue
        k_q, k_u = f.tangent
        columns += [f.contact.w_normal, f.contact.w_tangent]
        rows += [f.contact.w_normal if f.force_row is None else f.force_row, f.contact.w_tangent]
        blocks.append(bp * k_q + gp * k_u)
    for c, k in zip(ev.contacts, () if slip is None else slip, strict=False):
        if k != 0.0:
            columns.append(c.w_tangent)
            rows.append(c.w_tangent)
            blocks.append(np.array([[gp * k]]))
    if not blocks:
        return None
    U = np.column_stack(columns)
    same = all(f.force_row is None for f in ev.compliant)
    return U, _block_diag(*blocks), U if same else np.column_stack(rows)


def bordered_solve(algebra, ev, rhs, h: float, lu, slip=None, curvature=None):
    """``StepAlgebra.bordered_solve`` with the tangent of the compliant contacts that push
    added to the iteration matrix: (G + V K U^T) X - J_Sigma^T lambda = R, J X = 0 (V = U but
    for a contact with a ``force_row``), written as
    a bordered system with y = K U^T X as extra unknowns (rows K U^T X - y = 0), so that the
    structures' block G_f keeps its factorisation. Without it the stiff Hertz law and the steep
    continuous friction law near v_t = 0 (slope mu F_n / v0, 6.7e5 N s/m on the cam at
    5.6 kN) make the Newton iteration a fixed-point one that diverges at h = 1e-4 s. ``slip``
    adds the same for the friction of the constraint rows' contacts (``_tangent``), with the
    normal force of the last iterate: without it a block coming to rest under the continuous
    law diverged at h mu_s g / v0 = 4.9. ``curvature`` : the closed contacts' curvature terms
    (``curvature_terms``) or None: their rows are added to J and their stiffness to G.

    The taut links with constant rows on linear structures (the droppers of a catenary) are not
    bordered: their tangent K w w^T (a few entries each, ``_folded_links``) is added to G_f,
    factorised anew for the iterate (``StepAlgebra.g_solver_with``: a banded Cholesky in the
    links' band order, ``linked_band``). The matrix is the same, so is the solution to
    round-off; one factorisation of the structures' block replaces a solve per link (90
    droppers on 10 spans: 90 right-hand sides on 10 000 unknowns per iterate)."""
    bp, gp = algebra.coefficients(h)
    folded = ()
    if lu is not None and algebra.system.linear_flexible and ev.compliant:
        extra, folded = _folded_links(ev, algebra.system.layout.n_tree, bp, gp)
        if folded:
            n_f = algebra.system.layout.n_flexible
            lu = algebra.g_solver_with(h, sp.coo_matrix((extra[0], extra[1:]), (n_f, n_f)))
    if ev.compliant or slip is not None:
        tangent = _tangent(ev, bp, gp, slip, folded)
    else:
        tangent = None
    if curvature is not None:
        jac_extra, U_c, K_c = curvature
        ev = replace(ev, jac=ev.jac + jac_extra)
        V_c = U_c
        if tangent is not None:
            same = tangent[2] is tangent[0]
            U_c = np.column_stack([tangent[0], U_c])
            V_c = U_c if same else np.column_stack([tangent[2], V_c])
            K_c = _block_diag(tangent[1], K_c)
        tangent = U_c, K_c, V_c
    if tangent is None:
        return algebra.bordered_solve(ev, rhs, h, lu)
    U, K, V = tangent
    lay = algebra.system.layout
    m, c = ev.phi.size, U.shape[1]
    js = np.vstack([ev.jac_sigma, -V.T])
    jac = np.vstack([ev.jac, K @ U.T])
    D = np.zeros((m + c, m + c))
    D[m:, m:] = -np.eye(c)
    G_t = ev.mass_tree + gp * np.diag(algebra._tree_damping) + bp * np.diag(algebra._tree_stiffness)
    Js_t, Js_f = js[:, lay.tree], js[:, lay.flexible]
    J_t, J_f = jac[:, lay.tree], jac[:, lay.flexible]
    R_t, R_f = rhs[lay.tree], rhs[lay.flexible]
    if lu is not None:
        Wr = lu.solve(R_f)
        W = lu.solve(np.ascontiguousarray(Js_f.T))
    else:
        Wr, W = np.zeros(0), np.zeros((0, m + c))
    small = np.vstack([np.hstack([G_t, -Js_t.T]), np.hstack([J_t, J_f @ W + D])])
    x = np.linalg.solve(small, np.concatenate([R_t, -J_f @ Wr]))
    X = np.empty(lay.n)
    X[lay.tree] = x[: lay.n_tree]
    X[lay.flexible] = Wr + W @ x[lay.n_tree :]
    return X


def curvature_terms(ev, closed, acc, u, h_coefficients):
    """The terms of the closed structure contacts' curvature (``kinematics.gap_hessian``,
    H = d^2 g / dq^2 = U C U^T) in the Newton matrix of a step whose positions and velocities
    move by bp and gp times the accelerations: ``(jac_extra (m, n), U (n, k), K (k, k))`` with
    ``jac_extra[row] = gp 2 (H u)^T + bp (H q'')^T`` (the u- and q-derivatives of
    ``W_N q'' + A``, ``A = u^T H u``; of the q-derivative's third-derivative part, of order
    u^2, only the contact's ``remainder_gradient``, through the curve's curvature) and
    ``U K U^T = -bp lambda_N H`` (the normal force turning with the curve), per contact from
    the kernel the compiled step uses (``kernels.curvature.curvature_row``); or
    None when no closed contact has a Hessian. ``closed`` : (contact index in ``ev.contacts``,
    its normal row, lambda_N) of each closed contact; acc, u : the iterate's q'', u.

    Without them the iteration on a trolley sliding on a sagging string converges linearly,
    by a factor 3e-3 per iterate (six iterates per step at h = 1 ms); with them by 2e-5."""
    bp, gp = h_coefficients
    jac_extra, cols, blocks = None, [], []
    acc, u = np.ascontiguousarray(acc, dtype=float), np.ascontiguousarray(u, dtype=float)
    for i, row, lam in closed:
        kin = ev.contacts[i]
        if kin is None or kin.gap_hessian is None:
            continue
        U, C = kin.gap_hessian
        if jac_extra is None:
            jac_extra = np.zeros_like(ev.jac)
        v, w = np.ascontiguousarray(U[:, 0]), np.ascontiguousarray(U[:, 1])
        core = np.array([C[0, 0], C[0, 1], C[1, 1]])
        gradient = kin.remainder_gradient  # the part of dA/dq of order u^2
        gradient = np.zeros(v.size) if gradient is None else gradient
        blocks.append(curvature_row(v, w, core, gradient, acc, u, lam, bp, gp, jac_extra[row]))
        cols.append(U)
    if jac_extra is None:
        return None
    return jac_extra, np.column_stack(cols), _block_diag(*blocks)


__all__ = ["bordered_solve", "compliant_report", "curvature_terms"]
