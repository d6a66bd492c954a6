"""The system at one state for the compiled step (numba): ``coupling.constraints.evaluate_state``
for a tree with drives and sliding or unilateral contacts on linear beams, a string and rigid
lines, unilateral pairs of curved profiles (``PAIR``, ``kernels.profile_pair``), and the
links with constant rows between material points of linear beams (``kernels.links``) and the
compliant contacts of body points on them (``kernels.compliant``), whose forces are part of F
(the compliant contacts' closest points start from s_guess[n_c:], afresh where it ends), on
flat arrays (``kernels.step`` describes the constant tuple P).

Status codes: OK, LEFT (a contact's closest point beyond its beam's end), SINGULAR (J_u or
J_Sigma,u nearly singular), FAILED (no convergence, a non-finite correction, the constraints
not closed, a link whose clamps coincide, an iteration matrix that is not positive definite); anything but OK hands the step back to the Python stepper.
"""

from __future__ import annotations

import numpy as np

from .beam import (
    GAP,
    N_FIELDS,
    REM,
    REM_T,
    S,
    closest,
    contact,
    rigid_line_record,
    stick_row,
    structure_product,
)
from .compliant import compliant_states, subtract_compliant_forces
from .jit import inner
from .links import link_states, subtract_link_forces
from .profile_pair import ETA, pair_record, pair_remainders
from .string import closest as string_closest
from .string import nearest_node, string_contact, string_forces, string_stick_row
from .tree import dynamics, kinematics, point

OK, LEFT, SINGULAR, FAILED = 0, 1, 2, 3
# cstate's columns beyond the slip sign, the stick flag and the anchor (s*, t*): 1 for a
# unilateral contact (after the bilateral ones), 1 while it is closed (``normal_rows``)
UNILATERAL, CLOSED = 5, 6
# the beam index of a contact with rows that is a pair of curved profiles
# (``compiled_scope.row_pair``): its carrier is its row in the pairs' arrays
# (``kernels.profile_pair``), its eta_l starts from s_guess[i], its eta_k from
# s_guess[n_c + 2 n_p + i] (after the compliant contacts' parameters, ``kernels.compliant``)
PAIR = -2


@inner
def normal_rows(cstate, nd):
    """The rows of a state's contact modes, as ``contact_states.ContactModes`` orders them:
    (row of each contact's normal row (n_c,), -1 while a unilateral contact is open; the first
    drive row; the first stick row; the number of rows). The bilateral contacts' rows come
    first, then the nd drives', then the closed unilateral contacts' (in contact order), then
    one per sticking contact. cstate (n_c, 5) (no unilateral contacts) or (n_c, 7)
    (``UNILATERAL``, ``CLOSED``)."""
    nc = cstate.shape[0]
    rows = np.empty(nc, np.int64)
    wide = cstate.shape[1] > CLOSED
    nb = 0
    for i in range(nc):
        if not (wide and cstate[i, UNILATERAL] != 0.0):
            rows[i] = nb
            nb += 1
    row = nb + nd
    for i in range(nc):
        if wide and cstate[i, UNILATERAL] != 0.0:
            if cstate[i, CLOSED] != 0.0:
                rows[i] = row
                row += 1
            else:
                rows[i] = -1
    first_stick = row
    for i in range(nc):
        if cstate[i, 1] != 0.0:
            row += 1
    return rows, nb, first_stick, row


@inner
def evaluate_system(P, q, u, drive, actuators, cstate, s_guess, qb, wb, f_string, pressed_here):
    """The system at (q, u) and the step's time (``coupling.constraints.evaluate_state``):
    status, phi, J, J_Sigma, A, phi_t (rows: the bilateral contacts, drives, the closed
    unilateral contacts, then one per sticking contact: ``normal_rows``), the contact records (n_c, N_FIELDS), W_N and W_T (n_c, n), M_t and F (empty
    when a contact left its beam), and per contact the columns v, w of its gap's Hessian and
    its remainder gradient (n_c, 3, n) (``kernels.beam.contact``; zeros on a rigid line).
    cstate (n_c, 5) or (n_c, 7): per contact its slip sign, 1 while it
    sticks (else 0), its anchor s* and t* (``StickAnchor``), then 1 for a unilateral contact
    and 1 while it is closed (``normal_rows``); qb and wb (n_c, n) the
    committed state's q and W_T rows, the base of a rolling circle's position value
    (``constraints.rolling_position``). (M_t and F are computed also
    where only the constraints are needed: a flag would compile the kernel twice.) f_string:
    the string's internal force at q when the caller has it (``kernels.string.string_forces``,
    the same kernel, so the same values), else empty: computed here. pressed_here: 1, the
    compliant contacts' forces are subtracted from F here; 0, the caller does it, last, as
    here (``kernels.step.iterate``, which also needs their records and rows)."""
    T, B, contacts, d_joint, joints, flex, nt, string, links, pressed, diagonals = P
    on_string = string[0][0] == 1  # the structure is one string (``kernels.step``)
    nodes, coefficients, columns, fixed = string[9], string[10], string[2], string[3]
    c_body, c_local, c_radius, c_side, c_beam, c_mu, c_line, c_carrier = contacts
    n = q.size
    nc = c_body.size
    nd = d_joint.size
    nrow, d0, row0, m = normal_rows(cstate, nd)
    phi = np.zeros(m)
    jac = np.zeros((m, n))
    js = np.zeros((m, n))
    rem = np.zeros(m)
    phit = np.zeros(m)
    rec = np.zeros((nc, N_FIELDS))
    wn = np.zeros((nc, n))
    wt = np.zeros((nc, n))
    hess = np.zeros((nc, 3, n))
    mass_tree = np.zeros((0, 0))
    forces = np.zeros(0)
    qt = q[:nt].copy()
    ut = u[:nt].copy()
    ang, rot, origin, _, omega, ov, terms = kinematics(T, qt, ut)
    A, rev = T[0], T[3]
    jw = np.empty(nt)
    n_p = pressed[0].size
    for i in range(nc):
        b = c_body[i]
        p, v, J, a = point(T, b, c_local[i, 0], c_local[i, 1], ut, rot, origin, omega, ov, terms)
        for k in range(nt):
            jw[k] = A[b, k] * rev[k]
        if c_beam[i] == PAIR:  # ``coupling.profile_contact.curved_contact``
            kin = (ang, rot, origin, omega, ov, terms)
            if not _pair_record(
                P, i, q, u, ut, kin, s_guess, nrow[i] >= 0, n_p, rec[i], wn[i], wt[i]
            ):
                return LEFT, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess
        elif c_beam[i] < 0:  # a rigid line, fixed or on a translating body
            px, py, nx, ny, vb, Jb, ab = _line(
                T, c_line[i], c_carrier[i], ut, ang, rot, origin, omega, ov, terms
            )
            rigid_line_record(
                c_radius[i],
                p,
                v,
                J,
                a,
                jw,
                omega[b],
                nx,
                ny,
                px,
                py,
                vb,
                Jb,
                ab,
                nt,
                rec[i],
                wn[i],
                wt[i],
            )
        elif on_string:
            qs = q[nt:]
            s = s_guess[i]
            if not np.isfinite(s):
                s = nearest_node(nodes, coefficients, columns, fixed, qs, p[0], p[1])
            s, inside = string_closest(
                nodes, coefficients, columns, fixed, qs, p[0], p[1], s, 1e-13, False
            )
            if not inside:
                return LEFT, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess
            string_contact(
                nodes,
                coefficients,
                columns,
                fixed,
                nt,
                s,
                q,
                u,
                c_side[i],
                c_radius[i],
                p,
                v,
                J,
                a,
                jw,
                omega[b],
                nt,
                rec[i],
                wn[i],
                wt[i],
                hess[i],
            )
        else:
            s, inside = closest(B, c_beam[i], p[0], p[1], q, s_guess[i], 1e-13)
            if not inside:
                return LEFT, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess
            contact(
                B,
                c_beam[i],
                s,
                q,
                u,
                c_side[i],
                c_radius[i],
                p,
                v,
                J,
                a,
                jw,
                omega[b],
                nt,
                rec[i],
                wn[i],
                wt[i],
                hess[i],
            )
        r = nrow[i]
        if r < 0:  # an open unilateral contact: its record only (its gap closes it)
            continue
        phi[r] = rec[i, GAP]
        rem[r] = rec[i, REM]
        mu = c_mu[i] if cstate[i, 1] == 0.0 else 0.0
        for k in range(n):
            jac[r, k] = wn[i, k]
            js[r, k] = wn[i, k] - cstate[i, 0] * mu * wt[i, k] if mu > 0.0 else wn[i, k]
    for k in range(nd):
        row = d0 + k
        j = d_joint[k]
        phi[row] = qt[j] - drive[k, 0]
        jac[row, j] = 1.0
        js[row, j] = 1.0
        phit[row] = -drive[k, 1]
        rem[row] = -drive[k, 2]
    row = row0
    for i in range(nc):
        if cstate[i, 1] == 0.0:
            continue
        if c_radius[i] > 0.0 or c_beam[i] == PAIR:  # rolling: W_T u = 0 with its remainder
            jac[row] = wt[i]
            rem[row] = rec[i, REM_T]
            psi = 0.0  # its position value: the trapezoid of W_T u since the base
            for k in range(n):
                psi += (wb[i, k] + wt[i, k]) * (q[k] - qb[k])
            phi[row] = 0.5 * psi
        else:
            b = c_body[i]
            p, _, J, a = point(
                T, b, c_local[i, 0], c_local[i, 1], ut, rot, origin, omega, ov, terms
            )
            if c_beam[i] >= 0 and on_string:
                phi[row], rem[row] = string_stick_row(
                    nodes,
                    coefficients,
                    columns,
                    fixed,
                    nt,
                    cstate[i, 2],
                    cstate[i, 3],
                    cstate[i, 4],
                    q,
                    p,
                    J,
                    a,
                    nt,
                    jac[row],
                )
            elif c_beam[i] >= 0:
                phi[row], rem[row] = stick_row(
                    B,
                    c_beam[i],
                    cstate[i, 2],
                    cstate[i, 3],
                    cstate[i, 4],
                    q,
                    p,
                    J,
                    a,
                    nt,
                    jac[row],
                )
            else:  # pinned at s* along the line (``coupling.constraints._stick_row``)
                px, py, _, _, _, Jb, ab = _line(
                    T, c_line[i], c_carrier[i], ut, ang, rot, origin, omega, ov, terms
                )
                tx, ty = cstate[i, 3], cstate[i, 4]
                for k in range(nt):
                    jac[row, k] = tx * (J[0, k] - Jb[0, k]) + ty * (J[1, k] - Jb[1, k])
                ax = px + cstate[i, 2] * tx
                ay = py + cstate[i, 2] * ty
                phi[row] = tx * (p[0] - ax) + ty * (p[1] - ay)
                rem[row] = tx * (a[0] - ab[0]) + ty * (a[1] - ab[1])
        js[row] = jac[row]
        row += 1
    stiffness, damping, rest = joints
    mass_tree, f_t = dynamics(
        T, qt, ut, stiffness, damping, rest, actuators, rot, origin, omega, ov, terms
    )
    Mf, Cf, Kf, _, _, _, load, _ = flex
    nf = n - nt
    forces = np.empty(n)
    forces[:nt] = f_t
    cu = np.empty(nf)
    kq = np.empty(nf)
    structure_product(diagonals[1], Cf, u, cu, nt)
    structure_product(diagonals[2], Kf, q, kq, nt)
    if on_string:  # C_f u + f_int(q) - load, f_int of the string's kernel
        f_int = f_string
        if f_int.size == 0:
            f_int, _, _ = string_forces(string, q, nt, np.int64(1))
        for i in range(nf):
            forces[nt + i] = (cu[i] + f_int[i]) - load[i]
    else:
        for i in range(nf):
            forces[nt + i] = cu[i] + kq[i] - load[i]
    if links[0].shape[0] > 0:  # the links that pull: W_N^T T (``kernels.links``)
        ok, states, w = link_states(links, q, u)
        if not ok:
            return FAILED, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess
        subtract_link_forces(links, states, w, forces)
    if pressed[0].size > 0 and pressed_here == 1:  # those that push: W_N^T F_n + W_T^T F_t
        st, _, cwn, cwt, values = compliant_states(P, q, u, s_guess, nc)
        if st != OK:
            return LEFT, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess
        subtract_compliant_forces(cwn, cwt, values, forces)
    return OK, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess


@inner
def _pair_record(P, i, q, u, ut, kin, s_guess, closed, n_p, rec, wn, wt):
    """The record (with its remainders A and A_T), W_N and W_T of contact i, a pair of curved
    profiles (``PAIR``), into rec, wn, wt, as ``coupling.profile_contact.curved_contact``
    builds them (kin: ``kernels.tree.kinematics`` at q, as ``pair_record`` takes them,
    ut = u[:n_tree]): the solve starts from the last one, s_guess[i] (eta_l) and
    s_guess[n_c + 2 n_p + i] (eta_k), which it updates (NaN while the polygons' boxes are
    apart, where the next solve starts afresh). False when the pair has no contact point, or
    is closed with its polygons apart (the Python step then takes the step)."""
    T, B, contacts, nt, pressed = P[0], P[1], P[2], P[6], P[9]
    pairs = (pressed[5], pressed[6], pressed[7], pressed[8], pressed[9], pressed[10], pressed[11])
    nc = contacts[0].size
    j = contacts[7][i]
    at = nc + 2 * n_p + i
    guess_k = s_guess[at] if at < s_guess.size else np.nan
    if pair_record(T, B, pairs, j, q, u, ut, kin, guess_k, s_guess[i], rec, wn, wt):
        return False
    s_guess[i] = rec[S]
    if at < s_guess.size:
        s_guess[at] = rec[ETA]
    if np.isnan(rec[ETA]):  # apart: the record of ``profile_geometry.far_apart``
        return not closed
    pair_remainders(T, B, pairs, j, q, u, ut, nt, rec)
    return True


@inner
def _line(T, line, carrier, ut, ang, rot, origin, omega, ov, terms):
    """A rigid line's point (px, py) and unit normal (nx, ny) now, and the velocity, Jacobian
    and acceleration remainder of its point (zeros for a fixed line): ``line`` = (point,
    normal) in the plane, or in the frame of the translating body ``carrier`` (-1: fixed)."""
    nt = ut.size
    if carrier < 0:
        return line[0], line[1], line[2], line[3], np.zeros(2), np.zeros((2, nt)), np.zeros(2)
    pb, vb, Jb, ab = point(T, carrier, line[0], line[1], ut, rot, origin, omega, ov, terms)
    c = np.cos(ang[carrier])
    s = np.sin(ang[carrier])
    return pb[0], pb[1], c * line[2] - s * line[3], s * line[2] + c * line[3], vb, Jb, ab
