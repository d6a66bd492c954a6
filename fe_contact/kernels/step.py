"""The compiled Newton iteration of one generalised-alpha step (``steppers.genalpha``) for a
tree with drives and bilateral sliding contacts on linear beams, every contact slipping.

The same equations and tests as ``GeneralizedAlpha._newton_step`` (Lipinski (002), eqs. 73,
76, 78a-b; the bordered solve of ``partitioned_step.StepAlgebra``; the Newton test of
``GeneralizedAlpha._converged``), on flat arrays. ``P`` is the constant tuple built by
``steppers.compiled.Plan``:

    (T, B, contacts, drive joints, (joint stiffness, damping, rest), flexible, n_tree)

with T from ``kernels.tree.tree_arrays``, B from ``kernels.beam.beam_arrays``, contacts =
(body, local point (n_c, 2), radius, side, beam, mu) and flexible = (M_f, C_f, K_f, |M_f|,
|C_f|, |K_f| as CSR triples, load (n_f,), diagonal of M_f).

Status codes (anything but OK hands the step back to the Python stepper, which redoes it and
raises or handles what it finds): OK, LEFT (a contact's closest point beyond its beam's end),
SINGULAR (J_u or J_Sigma,u nearly singular: the Python path names the case), FAILED (no
convergence, a non-finite correction, or the constraints not closed).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .beam import (
    GAP,
    N_FIELDS,
    REM,
    REM_T,
    band_solve,
    closest,
    contact,
    csr_matvec,
    line_contact,
    stick_row,
)
from .pack import unpack
from .tree import dynamics, kinematics, point

OK, LEFT, SINGULAR, FAILED = 0, 1, 2, 3
# the pieces of ``newton``'s flat result, in order, with their shapes in terms of n (coordinates),
# k (independent ones), m (rows), c (contacts), t (tree coordinates)
FLAT = (
    ("q", "n"),
    ("u", "n"),
    ("acc", "n"),
    ("a1", "k"),
    ("lam", "m"),
    ("phi", "m"),
    ("jac", "m n"),
    ("jac_sigma", "m n"),
    ("remainder", "m"),
    ("phi_t", "m"),
    ("records", f"c {N_FIELDS}"),
    ("w_normal", "c n"),
    ("w_tangent", "c n"),
    ("mass_tree", "t t"),
    ("forces", "n"),
)
EPS = np.finfo(float).eps


@njit(cache=True)
def evaluate(P, q, u, drive, actuators, cstate, s_guess):
    """The system at (q, u) and the step's time (``coupling.constraints.evaluate_state``):
    status, phi, J, J_Sigma, A, phi_t (rows: contacts, drives, then one per sticking
    contact), the contact records (n_c, N_FIELDS), W_N and W_T (n_c, n), M_t and F (empty
    when a contact left its beam). cstate (n_c, 5): per contact its slip sign, 1 while it
    sticks (else 0), and its anchor s* and t* (``StickAnchor``). (M_t and F are computed also
    where only the constraints are needed: a flag would compile the kernel twice.)"""
    T, B, contacts, d_joint, joints, flex, nt = P
    c_body, c_local, c_radius, c_side, c_beam, c_mu, c_line, c_carrier = contacts
    n = q.size
    nc = c_body.size
    nd = d_joint.size
    m = nc + nd
    for i in range(nc):
        if cstate[i, 1] != 0.0:
            m += 1
    phi = np.zeros(m)
    jac = np.zeros((m, n))
    js = np.zeros((m, n))
    rem = np.zeros(m)
    phit = np.zeros(m)
    rec = np.zeros((nc, N_FIELDS))
    wn = np.zeros((nc, n))
    wt = np.zeros((nc, n))
    mass_tree = np.zeros((0, 0))
    forces = np.zeros(0)
    qt = q[:nt].copy()
    ut = u[:nt].copy()
    ang, rot, origin, _, omega, ov, terms = kinematics(T, qt, ut)
    A, rev = T[0], T[3]
    jw = np.empty(nt)
    for i in range(nc):
        b = c_body[i]
        p, v, J, a = point(T, b, c_local[i, 0], c_local[i, 1], ut, rot, origin, omega, ov, terms)
        for k in range(nt):
            jw[k] = A[b, k] * rev[k]
        if c_beam[i] < 0:  # a rigid line, fixed or on a translating body
            px, py, nx, ny, vb, Jb, ab = _line(
                T, c_line[i], c_carrier[i], ut, ang, rot, origin, omega, ov, terms
            )
            line_contact(
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
        else:
            s, inside = closest(B, c_beam[i], p[0], p[1], q, s_guess[i], 1e-13)
            if not inside:
                return LEFT, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces
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
            )
        phi[i] = rec[i, GAP]
        rem[i] = rec[i, REM]
        mu = c_mu[i] if cstate[i, 1] == 0.0 else 0.0
        for k in range(n):
            jac[i, k] = wn[i, k]
            js[i, k] = wn[i, k] - cstate[i, 0] * mu * wt[i, k] if mu > 0.0 else wn[i, k]
    for k in range(nd):
        row = nc + k
        j = d_joint[k]
        phi[row] = qt[j] - drive[k, 0]
        jac[row, j] = 1.0
        js[row, j] = 1.0
        phit[row] = -drive[k, 1]
        rem[row] = -drive[k, 2]
    row = nc + nd
    for i in range(nc):
        if cstate[i, 1] == 0.0:
            continue
        if c_radius[i] > 0.0:  # rolling: W_T u = 0 with its remainder
            jac[row] = wt[i]
            rem[row] = rec[i, REM_T]
        else:
            b = c_body[i]
            p, _, J, a = point(
                T, b, c_local[i, 0], c_local[i, 1], ut, rot, origin, omega, ov, terms
            )
            if c_beam[i] >= 0:
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
    csr_matvec(Cf, u, cu, nt)
    csr_matvec(Kf, q, kq, nt)
    for i in range(nf):
        forces[nt + i] = cu[i] + kq[i] - load[i]
    return OK, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces


@njit(cache=True)
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


@njit(cache=True)
def _lu(a):
    """LU factors with partial pivoting of a small square matrix a (not changed) and the
    reciprocal of its 1-norm condition number (0 when singular or not finite)."""
    n = a.shape[0]
    lu = a.copy()
    piv = np.arange(n)
    for k in range(n):
        p = k
        big = abs(lu[k, k])
        for i in range(k + 1, n):
            if abs(lu[i, k]) > big:
                big = abs(lu[i, k])
                p = i
        if not big > 0.0 or not np.isfinite(big):
            return lu, piv, 0.0
        if p != k:
            for j in range(n):
                lu[k, j], lu[p, j] = lu[p, j], lu[k, j]
            piv[k], piv[p] = piv[p], piv[k]
        for i in range(k + 1, n):
            lu[i, k] /= lu[k, k]
            f = lu[i, k]
            for j in range(k + 1, n):
                lu[i, j] -= f * lu[k, j]
    norm_a = 0.0
    norm_i = 0.0
    e = np.empty(n)
    for j in range(n):
        col_a = 0.0
        for i in range(n):
            col_a += abs(a[i, j])
            e[i] = 0.0
        norm_a = max(norm_a, col_a)
        e[j] = 1.0
        x = _solve(lu, piv, e)
        norm_i = max(norm_i, np.sum(np.abs(x)))
    if not np.isfinite(norm_i) or norm_a * norm_i == 0.0:
        return lu, piv, 0.0
    return lu, piv, 1.0 / (norm_a * norm_i)


@njit(cache=True)
def _solve(lu, piv, b):
    """x with A x = b from ``_lu``'s factors (PA = LU)."""
    n = b.size
    x = np.empty(n)
    for i in range(n):
        acc = b[piv[i]]
        for k in range(i):
            acc -= lu[i, k] * x[k]
        x[i] = acc
    for i in range(n - 1, -1, -1):
        acc = x[i]
        for k in range(i + 1, n):
            acc -= lu[i, k] * x[k]
        x[i] = acc / lu[i, i]
    return x


@njit(cache=True)
def _solve_t(lu, piv, b):
    """x with A^T x = b from ``_lu``'s factors: U^T L^T P x = b."""
    n = b.size
    y = np.empty(n)
    for i in range(n):
        acc = b[i]
        for k in range(i):
            acc -= lu[k, i] * y[k]
        y[i] = acc / lu[i, i]
    for i in range(n - 1, -1, -1):
        acc = y[i]
        for k in range(i + 1, n):
            acc -= lu[k, i] * y[k]
        y[i] = acc
    x = np.empty(n)
    for i in range(n):
        x[piv[i]] = y[i]
    return x


@njit(cache=True)
def _solve_columns(lu, piv, a, cols):
    """X (m, cols.size) with A X = a[:, cols] (forward and back substitution in place)."""
    m = a.shape[0]
    k = cols.size
    out = np.empty((m, k))
    for i in range(m):
        src = a[piv[i]]
        for j in range(k):
            out[i, j] = src[cols[j]]
    for i in range(m):
        for p in range(i):
            f = lu[i, p]
            if f != 0.0:
                for j in range(k):
                    out[i, j] -= f * out[p, j]
    for i in range(m - 1, -1, -1):
        for p in range(i + 1, m):
            f = lu[i, p]
            if f != 0.0:
                for j in range(k):
                    out[i, j] -= f * out[p, j]
        d = lu[i, i]
        for j in range(k):
            out[i, j] /= d
    return out


@njit(cache=True)
def _dependent_step(U, ind, jac, phi, phit, q_ev, t_ev, q, u, t):
    """``partitioned_step.dependent_newton_step``: one Newton step of the constraints from the
    evaluation (jac, phi, phit at q_ev, t_ev) for the dependent coordinates of (q, u)."""
    m = U.size
    Ju = np.empty((m, m))
    rhs = np.empty((m, 2))
    for i in range(m):
        for j in range(m):
            Ju[i, j] = jac[i, U[j]]
        aq = 0.0
        au = 0.0
        for k in ind:
            aq += jac[i, k] * (q[k] - q_ev[k])
            au += jac[i, k] * u[k]
        rhs[i, 0] = phi[i] + aq + phit[i] * (t - t_ev)
        rhs[i, 1] = au + phit[i]
    lu, piv, rc = _lu(Ju)
    if rc <= 1e-13:
        return False
    sol_q = _solve(lu, piv, rhs[:, 0].copy())
    sol_u = _solve(lu, piv, rhs[:, 1].copy())
    for j in range(m):
        q[U[j]] = q_ev[U[j]] - sol_q[j]
        u[U[j]] = -sol_u[j]
    return True


@njit(cache=True)
def _recover(P, U, q, u, drive, actuators, cstate):
    """``partition.recover_dependent``: Newton on the position constraints (to 1e-12, 25
    iterations), then the velocity constraints, for the dependent coordinates; in place."""
    m = U.size
    s_none = np.full(cstate.shape[0], np.nan)
    for _ in range(25):
        st, phi, jac, _, _, phit, _, _, _, _, _ = evaluate(
            P, q, u, drive, actuators, cstate, s_none
        )
        if st != OK:
            return st
        Ju = np.empty((m, m))
        for i in range(m):
            for j in range(m):
                Ju[i, j] = jac[i, U[j]]
        if np.max(np.abs(phi)) <= 1e-12:
            break
        lu, piv, rc = _lu(Ju)
        if rc <= 1e-13:
            return SINGULAR
        dq = _solve(lu, piv, phi)
        for j in range(m):
            q[U[j]] -= dq[j]
    else:
        return FAILED
    rest = _matvec(jac, u) + phit
    for i in range(m):
        for j in range(m):
            rest[i] -= Ju[i, j] * u[U[j]]
    lu, piv, rc = _lu(Ju)
    if rc <= 1e-13:
        return SINGULAR
    du = _solve(lu, piv, rest)
    for j in range(m):
        u[U[j]] = -du[j]
    return OK


@njit(cache=True)
def _matvec(a, x):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        acc = 0.0
        for j in range(a.shape[1]):
            acc += a[i, j] * x[j]
        out[i] = acc
    return out


@njit(cache=True)
def _amax(x):
    """The largest entry of x, 0 for none (numpy's max with initial=0 on |.|)."""
    out = 0.0
    for v in x:
        if v > out or v != v:  # a NaN propagates, as in numpy
            out = v
    return out


@njit(cache=True)
def _matvec_t(a, x):
    """a^T x."""
    out = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j] += a[i, j] * x[i]
    return out


@njit(cache=True)
def _consistent(phi, jac, u, phit, tol):
    if phi.size == 0:
        return True
    velocity = _matvec(jac, u) + phit
    return np.max(np.abs(phi)) <= tol and np.max(np.abs(velocity)) <= tol


@njit(cache=True)
def _floor(flex, nt, q, u, acc, ind):
    """``StepAlgebra.residual_floor`` on the independent coordinates."""
    _, _, _, aM, aC, aK, _, _ = flex
    n = q.size
    nf = n - nt
    out = np.zeros(n)
    aa = np.abs(acc)
    au = np.abs(u)
    aq = np.abs(q)
    t1 = np.empty(nf)
    t2 = np.empty(nf)
    t3 = np.empty(nf)
    csr_matvec(aM, aa, t1, nt)
    csr_matvec(aC, au, t2, nt)
    csr_matvec(aK, aq, t3, nt)
    for i in range(nf):
        out[nt + i] = 16.0 * EPS * (t1[i] + t2[i] + t3[i])
    return out[ind]


@njit(cache=True)
def _bordered(P, Lg, bp, gp, mass_tree, jac, js, rhs):
    """``StepAlgebra.bordered_solve``: X with T_Sigma^T G T X_ind = -r, the structures' block
    G_f = M_f + gamma' C_f + beta' K_f through its banded Cholesky factor Lg."""
    nt = P[6]
    stiffness, damping, _ = P[4]
    n = rhs.size
    nf = n - nt
    m = jac.shape[0]
    Z = np.empty((nf, m + 1))
    for k in range(nf):
        Z[k, 0] = rhs[nt + k]
        for i in range(m):
            Z[k, 1 + i] = js[i, nt + k]
    band_solve(Lg, Z)
    Wr = Z[:, 0]
    W = Z[:, 1:]
    size = nt + m
    small = np.zeros((size, size))
    b = np.empty(size)
    for i in range(nt):
        for j in range(nt):
            small[i, j] = mass_tree[i, j]
        small[i, i] += gp * damping[i] + bp * stiffness[i]
        for j in range(m):
            small[i, nt + j] = -js[j, i]
        b[i] = rhs[i]
    for i in range(m):
        for j in range(nt):
            small[nt + i, j] = jac[i, j]
        acc = 0.0
        for k in range(nf):
            acc += jac[i, nt + k] * Wr[k]
        b[nt + i] = -acc
        for j in range(m):
            acc = 0.0
            for k in range(nf):
                acc += jac[i, nt + k] * W[k, j]
            small[nt + i, nt + j] = acc
    lu, piv, rc = _lu(small)
    if rc == 0.0:
        return np.full(n, np.nan)
    x = _solve(lu, piv, b)
    X = np.empty(n)
    X[:nt] = x[:nt]
    for k in range(nf):
        acc = Wr[k]
        for j in range(m):
            acc += W[k, j] * x[nt + j]
        X[nt + k] = acc
    return X


@njit(cache=True)
def _empty(m, n):
    """An evaluation's tuple of empty arrays (the type of ``evaluate``'s result)."""
    a1 = np.zeros(0)
    a2 = np.zeros((0, 0))
    return FAILED, a1, np.zeros((m, n)), a2, a1, a1, a2, a2, a2, a2, a1


@njit(cache=True)
def _columns(a, cols):
    out = np.empty((a.shape[0], cols.size))
    for i in range(a.shape[0]):
        for j in range(cols.size):
            out[i, j] = a[i, cols[j]]
    return out


@njit(cache=True)
def newton(
    F,
    I,
    H,
    Lg,
    coef,
    drive,
    actuators,
    ind,
    U,
    q_n,
    u_n,
    acc_n,
    pseudo_n,
    ydd0,
    prev,
    cstate,
    s_guess,
    tol,
    rtol,
    max_newton,
):
    """One step (``GeneralizedAlpha._newton_step``). coef = (h, beta', gamma', alpha_m,
    alpha_f, gamma, beta, t1); prev = (q, u, phi, J, phi_t, t) of the committed state's
    evaluation; ydd0 the predicted independent accelerations; (F, I, H) the constant arrays
    (``pack``). Returns (status, iterations, cond_2(J_u) of the last evaluation, one flat array
    of q, u, the accelerations, the algorithmic accelerations of the independent coordinates,
    the multipliers and the evaluation's arrays as ``evaluate`` returns them: ``FLAT``); a
    single array because numba converts every returned array to Python one by one."""
    P = unpack(F, I, H)
    h, bp, gp, am, af, gamma, beta, t1 = coef
    nt = P[6]
    flex = P[5]
    mass_f = flex[7]
    n = q_n.size
    nf = n - nt
    m = U.size
    y_n = q_n[ind]
    v_n = u_n[ind]
    ydd_n = acc_n[ind]
    a_n = pseudo_n[ind]
    ydd = ydd0.copy()
    pq, pu, pphi, pjac, pphit, pt = prev
    pq = pq.copy()
    pu = pu.copy()
    have_prev = True
    q1 = q_n.copy()
    u1 = u_n.copy()
    have_last = False
    d_last = 0.0
    lam_last = np.zeros(m)
    acc = np.zeros(n)
    a1 = a_n.copy()
    lam = np.zeros(m)
    iterations = 0
    status = FAILED
    ev = _empty(m, n)
    for _ in range(max_newton):
        a1 = (af * ydd_n + (1 - af) * ydd - am * a_n) / (1 - am)
        if have_prev:
            q1 = pq.copy()
            u1 = pu.copy()
        else:
            q1 = q1.copy()
            u1 = u1.copy()
        q1[ind] = y_n + h * v_n + h * h * ((0.5 - beta) * a_n + beta * a1)
        u1[ind] = v_n + h * ((1 - gamma) * a_n + gamma * a1)
        recovered = not have_prev
        if recovered:
            st = _recover(P, U, q1, u1, drive, actuators, cstate)
            if st != OK:
                status = st
                break
        elif not _dependent_step(U, ind, pjac, pphi, pphit, pq, pt, q1, u1, t1):
            status = SINGULAR
            break
        ev = evaluate(P, q1, u1, drive, actuators, cstate, s_guess)
        st, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces = ev
        if st != OK:
            status = st
            break
        lu_j, piv_j, rc_j = _lu(_columns(jac, U))
        lu_s, piv_s, rc_s = _lu(_columns(js, U))
        if rc_j <= 1e-13 or rc_s <= 1e-13:
            status = SINGULAR
            break
        B12 = _solve_columns(lu_j, piv_j, jac, ind)
        B3 = _solve(lu_j, piv_j, rem)
        B45 = _solve_columns(lu_s, piv_s, js, ind)
        acc = np.empty(n)
        acc[ind] = ydd
        acc[U] = -(_matvec(B12, ydd) + B3)
        inertia = np.empty(n)
        inertia[:nt] = _matvec(mass_tree, acc[:nt])
        mf = np.empty(nf)
        csr_matvec(flex[0], acc, mf, nt)
        inertia[nt:] = mf
        e = inertia + forces
        eU = e[U]
        r = e[ind] - _matvec_t(B45, eU)
        rhs = np.zeros(n)
        rhs[ind] = -r
        delta = _bordered(P, Lg, bp, gp, mass_tree, jac, js, rhs)[ind]
        iterations += 1
        if not np.all(np.isfinite(delta)):
            status = FAILED
            break
        lam = _solve_t(lu_s, piv_s, eU)
        scale = max(1.0, _amax(np.abs(inertia)), _amax(np.abs(forces)))
        diag = np.empty(n)
        for i in range(nt):
            diag[i] = mass_tree[i, i]
        diag[nt:] = mass_f
        inertia_delta = diag[ind] * delta
        d = _amax(np.abs(delta))
        stalled = have_last and d_last > 0 and d >= 0.5 * d_last
        bound = rtol * scale
        excess = max(bp * d / tol, _amax(np.abs(r) / bound), _amax(np.abs(inertia_delta) / bound))
        if excess > 1.0:
            fb = bound + _floor(flex, nt, q1, u1, acc, ind)
            excess = max(bp * d / tol, _amax(np.abs(r) / fb), _amax(np.abs(inertia_delta) / fb))
        if excess > 1.0:
            converged = stalled and excess <= 1e4
        elif not have_last:
            converged = False
        elif stalled:
            converged = True
        else:
            theta = d / d_last if d_last > 0 else 0.0
            error = theta / (1.0 - theta) * _amax(np.abs(lam - lam_last))
            converged = error <= rtol * max(1.0, _amax(np.abs(lam)))
        if converged:
            if recovered or _consistent(phi, jac, u1, phit, tol):
                status = OK
                break
            if not _dependent_step(U, ind, jac, phi, phit, q1.copy(), t1, q1, u1, t1):
                status = SINGULAR
                break
            ev = evaluate(P, q1, u1, drive, actuators, cstate, s_guess)
            st, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces = ev
            if st != OK:
                status = st
                break
            if _consistent(phi, jac, u1, phit, tol):
                status = OK
                break
            have_prev = False
        else:
            have_prev = True
            pq, pu, pphi, pjac, pphit, pt = q1, u1, phi, jac, phit, t1
        have_last = True
        d_last = d
        lam_last = lam
        ydd = ydd + delta
    if status != OK:
        return status, iterations, 0.0, np.zeros(0)
    cond = np.linalg.cond(_columns(ev[2], U))
    _, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces = ev
    parts = (
        q1,
        u1,
        acc,
        a1,
        lam,
        phi,
        jac.ravel(),
        js.ravel(),
        rem,
        phit,
        rec.ravel(),
        wn.ravel(),
        wt.ravel(),
        mass_tree.ravel(),
        forces,
    )
    size = 0
    for a in parts:
        size += a.size
    flat = np.empty(size)
    k = 0
    for a in parts:
        flat[k : k + a.size] = a
        k += a.size
    return status, iterations, cond, flat


@njit(cache=True)
def energies(F, I, H, q, u, actuators):
    """``system.energies`` of a tree and linear beams at (q, u): (tree kinetic, structure
    kinetic, gravity and load potential, joint springs, structure elastic, damping power,
    load power), J and W; ``actuators`` (n_t,) the actuator forces at the state's time."""
    P = unpack(F, I, H)
    T, flex, nt = P[0], P[5], P[6]
    stiffness, damping, rest = P[4]
    mass, com, rotmass, g = T[8], T[9], T[10], T[11]
    qt = q[:nt].copy()
    ut = u[:nt].copy()
    _, rot, origin, _, omega, ov, _ = kinematics(T, qt, ut)
    v2 = 0.0
    grav = 0.0
    for i in range(nt):
        ax = rot[i, 0] * com[i, 0] - rot[i, 1] * com[i, 1]
        ay = rot[i, 1] * com[i, 0] + rot[i, 0] * com[i, 1]
        vx = ov[i, 0] - omega[i] * ay
        vy = ov[i, 1] + omega[i] * ax
        v2 += mass[i] * (vx * vx + vy * vy)
        grav -= mass[i] * ((origin[i, 0] + ax) * g[0] + (origin[i, 1] + ay) * g[1])
    tk = 0.5 * (v2 + ut @ _matvec(rotmass, ut))
    springs = 0.0
    tdp = 0.0
    for j in range(nt):
        springs += stiffness[j] * (qt[j] - rest[j]) ** 2
        tdp += damping[j] * ut[j] ** 2
    n = q.size
    nf = n - nt
    mu_ = np.empty(nf)
    ku = np.empty(nf)
    cu = np.empty(nf)
    csr_matvec(flex[0], u, mu_, nt)
    csr_matvec(flex[2], q, ku, nt)
    csr_matvec(flex[1], u, cu, nt)
    load = flex[6]
    sk = 0.0
    se = 0.0
    sg = 0.0
    sdp = 0.0
    for i in range(nf):
        sk += u[nt + i] * mu_[i]
        se += q[nt + i] * ku[i]
        sg -= load[i] * q[nt + i]
        sdp += u[nt + i] * cu[i]
    return (
        tk,
        0.5 * sk,
        grav + sg,
        0.5 * springs,
        0.5 * se,
        tdp + sdp,
        actuators @ ut,
    )


@njit(cache=True)
def delassus(F, I, H, LM, mass_tree, jac, js):
    """(J M^-1 J^T, J M^-1 J_Sigma^T) with M = diag(M_t, M_f), M_f through its banded
    Cholesky factor LM (``StepAlgebra.painleve_margin``)."""
    nt = H[H.shape[0] - 1, 0]
    m, n = jac.shape
    nf = n - nt
    lu, piv, _ = _lu(mass_tree)
    X = np.empty((nf, 2 * m))
    for j in range(m):
        for k in range(nf):
            X[k, j] = jac[j, nt + k]
            X[k, m + j] = js[j, nt + k]
    band_solve(LM, X)
    D0 = np.zeros((m, m))
    D = np.zeros((m, m))
    for j in range(m):
        for which in range(2):
            src = jac if which == 0 else js
            x_t = _solve(lu, piv, src[j, :nt].copy())
            out = D0 if which == 0 else D
            for i in range(m):
                acc = 0.0
                for k in range(nt):
                    acc += jac[i, k] * x_t[k]
                for k in range(nf):
                    acc += jac[i, nt + k] * X[k, which * m + j]
                out[i, j] = acc
    return D0, D
