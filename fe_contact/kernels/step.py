"""The compiled Newton iteration of one generalised-alpha step (``steppers.genalpha``) for a
tree with drives and bilateral sliding contacts (slipping or sticking) on linear beams, a
string and rigid lines.

The same equations and tests as ``steppers.newton.newton_step`` (Lipinski (002), eqs. 73,
76, 78a-b; the bordered solve of ``partitioned_step.StepAlgebra``; the Newton test of
``partitioned_step.newton_converged``), on flat arrays. ``P`` is the constant tuple built by
``steppers.compiled.Plan`` (passed packed: ``kernels.pack``):

    (T, B, contacts, drive joints, (joint stiffness, damping, rest), flexible, n_tree, string)

with T from ``kernels.tree.tree_arrays``, B from ``kernels.beam.beam_arrays``, contacts =
(body, local point (n_c, 2), radius, side, beam (-1: a line), mu, line point and normal
(n_c, 4), line carrier body (-1: fixed)) and flexible = (M_f, C_f, K_f, |M_f|, |C_f|, |K_f| as
CSR triples on one sparsity pattern (``kernels.beam.on_pattern``), load (n_f,), diagonal of
M_f) and string the arrays of a system whose one structure is a string
(``compiled_plan.string_arrays``; its first entry (present, half-band, n_free) says present 0
otherwise): then K_f above is zero, the string's force, tangent and energy come from
``kernels.string`` and a contact's target "beam" 0 is the string. After it: the links
(``kernels.links``), the compliant contacts (``kernels.compliant``) and the six matrices of
flexible on their diagonals (``kernels.beam.diagonal_storage``, empty where not kept), through
which ``kernels.beam.structure_product`` forms their products. The status codes are those of
``kernels.evaluate`` (``evaluate_system``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .band import band_cholesky_solve, band_lu_solve
from .beam import (
    H00,
    N_FIELDS,
    band_matvec,
    band_solve,
    structure_product,
)
from .compliant import (
    ROLLING,
    compliant_border,
    compliant_states,
    compliant_sums,
    keep_parameters,
    roll_off_friction,
    rolling_rows,
    subtract_compliant_forces,
)
from .curvature import dependent_row_terms
from .dense import (
    abs_max,
    lu_decompose,
    lu_solve,
    lu_solve_columns,
    lu_solve_t,
    matvec,
    matvec_t,
    take_columns,
)
from .evaluate import FAILED, LEFT, OK, SINGULAR, evaluate_system, normal_rows
from .jit import inner
from .links import N_LINK_FIELDS, link_energies, link_states, linked_factor
from .pack import unpack
from .string import hold_factor, holds_factor, iteration_factor, string_forces
from .tree import kinematics

# the pieces of a step's flat result (``flatten``), in order, with their shapes in terms of n
# (coordinates), k (independent ones), m (rows), c (contacts), t (tree coordinates), l (links
# with constant rows: ``kernels.links``), p (compliant contacts: ``kernels.compliant``)
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
    ("hessian", "c 3 n"),
    ("mass_tree", "t t"),
    ("forces", "n"),
    ("links", f"l {N_LINK_FIELDS}"),
    ("pressed", f"p {N_FIELDS}"),
    ("pressed_w_normal", "p n"),
    ("pressed_w_tangent", "p n"),
)
EPS = np.finfo(float).eps


@inner
def _hessian_support(hess_i):
    """The columns (ascending) on which a contact's Hessian columns v, w or its remainder
    gradient (hess_i (3, n), ``kernels.beam.contact``) are not zero (a tree's few and its
    element's), found in one pass that vectorises. The curvature terms of
    ``kernels.curvature`` summed over them are those summed over all n columns: the others
    add exact zeros there (skipped, or added to a row: which changes at most a zero's
    sign)."""
    n = hess_i.shape[1]
    v, w, g = hess_i[0], hess_i[1], hess_i[2]
    found = np.empty(n, np.uint8)
    for k in range(n):
        found[k] = (v[k] != 0.0) | (w[k] != 0.0) | (g[k] != 0.0)
    return np.flatnonzero(found)


@inner
def _hessian_product_on(v, w, core, x, cols):
    """``kernels.curvature.hessian_product`` summed over cols (``_hessian_support``): the
    same sums in the same order."""
    vx = 0.0
    wx = 0.0
    for k in cols:
        if v[k] == 0.0 and w[k] == 0.0:
            continue
        vx += v[k] * x[k]
        wx += w[k] * x[k]
    return core[0] * vx + core[1] * wx, core[1] * vx + core[2] * wx


@inner
def _dependent_row_terms_on(hess_i, core, q, q_ev, u, dependent, row):
    """``kernels.curvature.dependent_row_terms`` with dq = q - q_ev for independent columns
    in ascending order (those not in ``dependent``), summed over the contact's support
    (``_hessian_support``): the same sums in the same order, O(support) but for the one pass
    that finds it."""
    v, w = hess_i[0], hess_i[1]
    cols = _hessian_support(hess_i)
    vx = 0.0
    wx = 0.0
    for k in cols:  # ``hessian_product`` of dq
        if v[k] == 0.0 and w[k] == 0.0:
            continue
        d = q[k] - q_ev[k]
        vx += v[k] * d
        wx += w[k] * d
    alpha = core[0] * vx + core[1] * wx
    beta = core[1] * vx + core[2] * wx
    hq = 0.0
    hu = 0.0
    for k in cols:
        if v[k] == 0.0 and w[k] == 0.0:
            continue
        hq += (q[k] - q_ev[k]) * (alpha * v[k] + beta * w[k])
    for k in cols:
        if v[k] == 0.0 and w[k] == 0.0:
            continue
        independent = True
        for j in range(dependent.size):
            if dependent[j] == k:
                independent = False
        if independent:
            hu += (alpha * v[k] + beta * w[k]) * u[k]
    for j in range(dependent.size):
        row[j] += alpha * v[dependent[j]] + beta * w[dependent[j]]
    return 0.5 * hq, hu


@inner
def _dependent_step(U, ind, jac, phi, phit, q_ev, t_ev, q, u, t, hess, core, nrow):
    """``partitioned_step.dependent_newton_step``: one Newton step of the constraints from the
    evaluation (jac, phi, phit at q_ev, t_ev) for the dependent coordinates of (q, u), with
    the curvature of the contacts' normal rows (row nrow[i] of contact i, none while it is
    open: ``kernels.evaluate.normal_rows``): hess (n_c, 3, n) their Hessians' columns v, w
    (``kernels.beam.contact``) and core (n_c, 3) their cores, zero for a contact without one
    (a rigid line)."""
    m = U.size
    Ju = np.empty((m, m))
    rhs = np.empty((m, 2))
    for i in range(m):
        for j in range(m):
            Ju[i, j] = jac[i, U[j]]
        aq = 0.0
        au = 0.0
        for k in ind:  # a row's zeros (all but a few columns) add exact zeros: skipped
            if jac[i, k] == 0.0:
                continue
            aq += jac[i, k] * (q[k] - q_ev[k])
            au += jac[i, k] * u[k]
        rhs[i, 0] = phi[i] + aq + phit[i] * (t - t_ev)
        rhs[i, 1] = au + phit[i]
    ascending = True  # the independent columns in ascending order (a partition's are)
    for j in range(1, ind.size):
        if ind[j] <= ind[j - 1]:
            ascending = False
    for i in range(core.shape[0]):
        if core[i, 0] == 0.0 and core[i, 1] == 0.0 and core[i, 2] == 0.0:
            continue
        r = nrow[i]
        if r < 0:  # open: no row
            continue
        if ascending:
            hq, hu = _dependent_row_terms_on(hess[i], core[i], q, q_ev, u, U, Ju[r])
        else:
            hq, hu = dependent_row_terms(
                hess[i, 0], hess[i, 1], core[i], q - q_ev, u, ind, U, Ju[r]
            )
        rhs[r, 0] += hq
        rhs[r, 1] += hu
    lu, piv, rc = lu_decompose(Ju)
    if rc <= 1e-13:
        return False
    sol_q = lu_solve(lu, piv, rhs[:, 0].copy())
    sol_u = lu_solve(lu, piv, rhs[:, 1].copy())
    for j in range(m):
        q[U[j]] = q_ev[U[j]] - sol_q[j]
        u[U[j]] = -sol_u[j]
    return True


@njit(cache=True, inline="always")  # one call site (iterate): no layer of its own
def _recover(P, U, q, u, drive, actuators, cstate, qb, wb):
    """``partition.recover_dependent``: Newton on the position constraints (to 1e-12, 25
    iterations), then the velocity constraints, for the dependent coordinates; in place."""
    m = U.size
    s_none = np.full(cstate.shape[0], np.nan)
    for _ in range(25):
        st, phi, jac, _, _, phit, _, _, _, _, _, _ = evaluate_system(
            P, q, u, drive, actuators, cstate, s_none, qb, wb, np.zeros(0), np.int64(1)
        )
        if st != OK:
            return st
        Ju = np.empty((m, m))
        for i in range(m):
            for j in range(m):
                Ju[i, j] = jac[i, U[j]]
        if np.max(np.abs(phi)) <= 1e-12:
            break
        lu, piv, rc = lu_decompose(Ju)
        if rc <= 1e-13:
            return SINGULAR
        dq = lu_solve(lu, piv, phi)
        for j in range(m):
            q[U[j]] -= dq[j]
    else:
        return FAILED
    rest = matvec(jac, u) + phit
    for i in range(m):
        for j in range(m):
            rest[i] -= Ju[i, j] * u[U[j]]
    lu, piv, rc = lu_decompose(Ju)
    if rc <= 1e-13:
        return SINGULAR
    du = lu_solve(lu, piv, rest)
    for j in range(m):
        u[U[j]] = -du[j]
    return OK


@inner
def _consistent(phi, jac, u, phit, tol):
    if phi.size == 0:
        return True
    velocity = matvec(jac, u) + phit
    return np.max(np.abs(phi)) <= tol and np.max(np.abs(velocity)) <= tol


@inner
def _abs_row_dot(A, x, offset, row):
    """sum_k |A|_row,k |x[offset + k]| over the stored entries of ``row`` of the CSR triple A
    (which holds |A|), in ``csr_matvec``'s order."""
    indptr, indices, data = A
    total = 0.0
    for k in range(indptr[row], indptr[row + 1]):
        total += data[k] * abs(x[offset + indices[k]])
    return total


@inner
def _floor_row(flex, nt, q, u, acc, i):
    """``StepAlgebra.residual_floor`` of coordinate i (N): 16 eps (|M_f| |a| + |C_f| |u| +
    |K_f| |q|)_i on a flexible coordinate (the row sums of ``csr_matvec``, in its order), 0 on
    the tree's."""
    if i < nt:
        return 0.0
    _, _, _, aM, aC, aK, _, _ = flex
    row = i - nt
    t1 = _abs_row_dot(aM, acc, nt, row)
    t2 = _abs_row_dot(aC, u, nt, row)
    t3 = _abs_row_dot(aK, q, nt, row)
    return 16.0 * EPS * (t1 + t2 + t3)


@inner
def _floor(diagonals, nt, q, u, acc):
    """``_floor_row`` of every flexible coordinate (n_f,): 16 eps (|M_f| |a| + |C_f| |u| +
    |K_f| |q|) with |M_f|, |C_f|, |K_f| on their diagonals (diagonals[3:6]), each row's sums
    in ``csr_matvec``'s order (``kernels.beam.band_matvec``)."""
    nf = q.size - nt
    x = np.empty((3, nf))
    for i in range(nf):
        x[0, i] = abs(acc[nt + i])
        x[1, i] = abs(u[nt + i])
        x[2, i] = abs(q[nt + i])
    t = np.empty((3, nf))
    for k in range(3):
        band_matvec(diagonals[3 + k], x[k], t[k], 0)
    floor = np.empty(nf)
    for i in range(nf):
        floor[i] = 16.0 * EPS * (t[0, i] + t[1, i] + t[2, i])
    return floor


@njit(cache=True)
def excess_with_floor(flex, nt, q, u, acc, ind, r, inertia_delta, bound, first, diagonals):
    """The Newton test's excess with the round-off floor added to the bound: max(first,
    |r_j| / (bound + floor_j), |inertia_delta_j| / (bound + floor_j)). The floor is formed
    only for the rows above the plain bound (the others stay <= 1 with it): when the result
    exceeds 1 it equals that of the full floor (``StepAlgebra.residual_floor``), otherwise
    both are <= 1. O(n) only where the residual is above its bound. diagonals: the six
    matrices of flex on their diagonals (``kernels.beam.diagonal_storage``; (6, 0, 0): not
    kept); with them and many rows above the bound, the floor of every row is formed in three
    vectorised products (``_floor``: the same sums, so the same values)."""
    out = first
    above = 0
    for j in range(ind.size):
        if not (abs(r[j]) / bound <= 1.0 and abs(inertia_delta[j]) / bound <= 1.0):
            above += 1
    floor = np.zeros(0)
    if diagonals.shape[1] > 0 and 32 * above > q.size - nt:
        floor = _floor(diagonals, nt, q, u, acc)
    for j in range(ind.size):
        ar = abs(r[j])
        ad = abs(inertia_delta[j])
        if ar / bound <= 1.0 and ad / bound <= 1.0:
            continue
        i = ind[j]
        if floor.size == 0:
            fb = bound + _floor_row(flex, nt, q, u, acc, i)
        else:
            fb = bound + (0.0 if i < nt else floor[i - nt])
        for v in (ar / fb, ad / fb):
            if v > out or v != v:  # a NaN propagates, as in ``abs_max``
                out = v
    return out


@inner
def _bordered(P, Lg, piv, order, bp, gp, mass_tree, jac, js, rhs, nb):
    """``StepAlgebra.bordered_solve``: X with T_Sigma^T G T X_ind = -r, the structures' block
    G_f = M_f + gamma' C_f + beta' K_f through its banded Cholesky factor Lg (linear beams;
    piv and order empty), for a string its banded LU factors (Lg, piv) of ``kernels.band``, or
    with the taut links' tangent the upper banded Cholesky factor Lg of ``kernels.links.
    linked_factor`` in the links' band order ``order`` (position -> coordinate). The last nb
    rows of jac and js border a low-rank term U K U^T of the matrix (``compliant.bordered_solve``:
    jac's rows K U^T, js's rows -U^T, and -1 on their diagonal: the extra unknowns y = K U^T X),
    so that G_f keeps its factor."""
    nt = P[6]
    stiffness, damping, _ = P[4]
    n = rhs.size
    nf = n - nt
    m = jac.shape[0]
    # the structure columns on which some row of jac or js is not zero (a contact's: its
    # element's few), found in one pass that vectorises: the scans and products below run
    # over them only (the other columns add exact zeros)
    found = np.zeros(nf, np.uint8)
    for i in range(m):
        row_j = jac[i, nt:]
        row_s = js[i, nt:]
        for k in range(nf):
            found[k] |= (row_j[k] != 0.0) | (row_s[k] != 0.0)
    support = np.flatnonzero(found)
    # G_f^-1 J_Sigma,f^T column by column, for the rows not zero on the structures (a drive's
    # row is): a zero column stays zero
    live = np.empty(m, np.int64)
    n_live = 0
    for i in range(m):
        for k in support:
            if js[i, nt + k] != 0.0:
                live[n_live] = i
                n_live += 1
                break
    Z = np.zeros((nf, n_live + 1))
    for k in range(nf):
        Z[k, 0] = rhs[nt + k]
    for k in support:
        for c in range(n_live):
            Z[k, 1 + c] = js[live[c], nt + k]
    if piv.size:
        Z = band_lu_solve(Lg, piv, P[7][0][1], Z)
    elif order.size:  # in the links' band order and back (``BandCholesky.solve``)
        Zp = np.empty_like(Z)
        for p in range(nf):
            Zp[p] = Z[order[p]]
        Zp = band_cholesky_solve(Lg, Zp)
        for p in range(nf):
            Z[order[p]] = Zp[p]
    else:
        band_solve(Lg, Z)
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
        # J_f W over the stored entries of the row (a contact's: its element's few columns),
        # each sum in the order of k as over the whole row
        acc = 0.0
        for k in support:
            a = jac[i, nt + k]
            if a == 0.0:
                continue
            acc += a * Z[k, 0]
            for c in range(n_live):
                small[nt + i, nt + live[c]] += a * Z[k, 1 + c]
        b[nt + i] = -acc
    for i in range(m - nb, m):
        small[nt + i, nt + i] -= 1.0
    lu, piv, rc = lu_decompose(small)
    if rc == 0.0:
        return np.full(n, np.nan)
    x = lu_solve(lu, piv, b)
    X = np.empty(n)
    X[:nt] = x[:nt]
    for k in range(nf):  # each sum in the order of c, one column at a time (vectorised)
        X[nt + k] = Z[k, 0]
    for c in range(n_live):
        xc = x[nt + live[c]]
        for k in range(nf):
            X[nt + k] += Z[k, 1 + c] * xc
    return X


@njit(cache=True)
def curvature_border(c_beam, bp, gp, jac, js, rec, hess, acc, u, lam):
    """``curvature_rows`` with row i of contact i (every contact closed)."""
    nrow = np.arange(c_beam.size)
    return curvature_rows(c_beam, nrow, bp, gp, jac, js, rec, hess, acc, u, lam)


@inner
def curvature_rows(c_beam, nrow, bp, gp, jac, js, rec, hess, acc, u, lam):
    """(J_b, J_Sigma,b) (m + 2 n_b, n): the rows J, J_Sigma of an iterate with the curvature
    terms of its n_b closed contacts on beams (c_beam[i] >= 0, nrow[i] >= 0; row nrow[i] of
    contact i: ``kernels.evaluate.normal_rows``), as
    ``compliant.bordered_solve`` forms them with ``compliant.curvature_terms``: each contact's
    row gains ``kernels.curvature.curvature_row`` at the multipliers lam, and its stiffness
    U K U^T is bordered by two rows, K U^T in J_b and -U^T in J_Sigma,b, in the order of the
    contacts (``_bordered`` with nb = 2 n_b). rec, hess: the contacts' records and Hessian
    columns (``evaluate_system``); acc, u (n,): the iterate's q'' and u."""
    m, n = jac.shape
    n_curved = 0
    for i in range(c_beam.size):
        if c_beam[i] >= 0 and nrow[i] >= 0:
            n_curved += 1
    jac_b = np.zeros((m + 2 * n_curved, n))
    js_b = np.zeros((m + 2 * n_curved, n))
    jac_b[:m] = jac
    js_b[:m] = js
    row = m
    for i in range(c_beam.size):
        if c_beam[i] < 0 or nrow[i] < 0:
            continue
        r = nrow[i]
        v = hess[i, 0]
        w = hess[i, 1]
        g = hess[i, 2]
        core = rec[i, H00 : H00 + 3].copy()
        # ``kernels.curvature.curvature_row`` over the contact's support: outside it v, w
        # and the gradient vanish, and the row there keeps its value (a zero's sign apart)
        cols = _hessian_support(hess[i])
        au, bu = _hessian_product_on(v, w, core, u, cols)
        aa, ba = _hessian_product_on(v, w, core, acc, cols)
        cv = 2.0 * gp * au + bp * aa
        cw = 2.0 * gp * bu + bp * ba
        target = jac_b[r]
        for k in cols:
            target[k] += cv * v[k] + cw * w[k] + bp * g[k]
        K00 = -bp * lam[r] * core[0]
        K01 = -bp * lam[r] * core[1]
        K11 = -bp * lam[r] * core[2]
        # the bordered rows K U^T and -U^T, zero outside the support (``_bordered`` skips
        # the zeros of a row)
        for k in cols:
            jac_b[row, k] = K00 * v[k] + K01 * w[k]
            jac_b[row + 1, k] = K01 * v[k] + K11 * w[k]
            js_b[row, k] = -v[k]
            js_b[row + 1, k] = -w[k]
        row += 2
    return jac_b, js_b


@inner
def no_evaluation(m, n):
    """An evaluation's tuple of empty arrays (the type of ``evaluate_system``'s result; its
    status an int64, not the literal constant, so that its callers compile once for both)."""
    a1 = np.zeros(0)
    a2 = np.zeros((0, 0))
    a3 = np.zeros((0, 0, 0))
    return np.int64(FAILED), a1, np.zeros((m, n)), a2, a1, a1, a2, a2, a2, a2, a1, a3


@inner
def flatten(q1, u1, acc, a1, lam, ev, links, pressed):
    """The step's result as one flat array (``FLAT``); links: ``kernels.links.link_states``
    at the state (n_l, N_LINK_FIELDS), pressed: the records, W_N and W_T of the compliant
    contacts (``kernels.compliant.compliant_states``)."""
    _, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
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
        hess.ravel(),
        mass_tree.ravel(),
        forces,
        links.ravel(),
        pressed[0].ravel(),
        pressed[1].ravel(),
        pressed[2].ravel(),
    )
    size = 0
    for a in parts:
        size += a.size
    flat = np.empty(size)
    k = 0
    for a in parts:
        flat[k : k + a.size] = a
        k += a.size
    return flat


@inner
def trial_iterate(base, ind, start, ydd, update):
    """An iterate's coordinates from the independent accelerations ydd (k,): copies of
    base = (q, u) (n,) with the independent ones ind (k,) moved by the scheme's update from
    start = (y_n, v_n, q''_n, a_n) (k,) of the committed state, update = (h, alpha_m,
    alpha_f, gamma, beta): a_n+1 = (alpha_f q''_n + (1 - alpha_f) q''_n+1 - alpha_m a_n) /
    (1 - alpha_m), y_n+1 = y_n + h v_n + h^2 ((1/2 - beta) a_n + beta a_n+1), v_n+1 = v_n +
    h ((1 - gamma) a_n + gamma a_n+1), written out per entry: the operations, in the same
    order, of the array expressions of ``GeneralizedAlpha``. Returns (q, u, a_n+1 (k,))."""
    h, am, af, gamma, beta = update
    y_n, v_n, ydd_n, a_n = start
    c_f = 1 - af
    c_m = 1 - am
    hh = h * h
    c_beta = 0.5 - beta
    c_gamma = 1 - gamma
    q1 = base[0].copy()
    u1 = base[1].copy()
    a1 = np.empty(ind.size)
    for j in range(ind.size):
        a1[j] = (af * ydd_n[j] + c_f * ydd[j] - am * a_n[j]) / c_m
        q1[ind[j]] = y_n[j] + h * v_n[j] + hh * (c_beta * a_n[j] + beta * a1[j])
        u1[ind[j]] = v_n[j] + h * (c_gamma * a_n[j] + gamma * a1[j])
    return q1, u1, a1


@inner
def with_rolling_rows(P, ev, q, u, crec, cwt, rolling, qb, wb):
    """(status, ev) with the rows W_T u = 0 of the rolling compliant contacts
    (``kernels.compliant.rolling_rows``, from their records crec and rows cwt of
    ``compliant_states`` at (q, u)) appended to the evaluation ev of ``evaluate_system``, as
    ``coupling.constraints.evaluate_state`` appends them after the sticking contacts' rows
    (J_Sigma = J, phi_t = 0); wb (n_c + n_p, n): the committed W_T of the contacts with rows,
    then of the compliant ones (the base of the trapezoid). status LEFT when a rolling
    contact has no contact point."""
    st, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
    nc = rec.shape[0]
    rst, r_phi, r_jac, r_rem = rolling_rows(P, q, u, crec, cwt, rolling, qb, wb[nc:])
    if rst != 0:
        return LEFT, ev
    m, n = jac.shape
    r = r_phi.size
    phi2 = np.zeros(m + r)
    jac2 = np.zeros((m + r, n))
    js2 = np.zeros((m + r, n))
    rem2 = np.zeros(m + r)
    phit2 = np.zeros(m + r)
    phi2[:m] = phi
    jac2[:m] = jac
    js2[:m] = js
    rem2[:m] = rem
    phit2[:m] = phit
    phi2[m:] = r_phi
    jac2[m:] = r_jac
    js2[m:] = r_jac
    rem2[m:] = r_rem
    return OK, (st, phi2, jac2, js2, rem2, phit2, rec, wn, wt, mass_tree, forces, hess)


@inner
def iterate(
    P,
    Lg,
    Gb,
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
    lam_n,
    cstate,
    s_guess,
    rolling,
    tol,
    rtol,
    max_newton,
    held,
):
    """The Newton iteration of one step on the unpacked constant tuple P, Lg (the banded
    Cholesky factor of G_f of linear beams; a string's G_f is factorised here at each iterate
    with its tangent stiffness, ``kernels.string.iteration_factor``, the last one kept in
    ``held`` (``kernels.string.held_factor``): the next step's first iterate, at the same
    coordinates and beta', takes it instead of factorising again), Gb (G_f in the links'
    band order, upper band storage: with links that pull, G_f and their tangent are factorised
    here at each iterate, ``kernels.links.linked_factor``; (1, 0) without links), coef = (h, beta',
    gamma', alpha_m, alpha_f, gamma, beta, t1), drive, actuators, ind, U, q_n, u_n, acc_n,
    pseudo_n, ydd0 (the predicted independent accelerations), prev = (q, u, phi, J, phi_t, t,
    W_T, Hessian columns (n_c, 3, n), Hessian cores (n_c, 3)) of the committed state's
    evaluation, lam_n its multipliers, cstate, s_guess, rolling (n_p,) the compliant contacts'
    modes (``kernels.compliant.FORCE_LAW``, ``ROLLING``, ``RELEASED``: a rolling one has no
    friction from its law and a row W_T u = 0 after the others, ``with_rolling_rows``; its
    base W_T is row n_c + i of prev's W_T), tol, rtol, max_newton. Returns
    (status, iterations, q, u, accelerations, algorithmic accelerations of the independent
    coordinates, multipliers, the last evaluation as ``evaluate_system`` returns it).

    The iteration matrix holds the curvature terms of the contacts on beams
    (``kernels.curvature``, as ``compliant.curvature_terms`` adds them in the Python step),
    with the multipliers of the last iterate (lam_n at the first one), and the dependent step
    the curvature of their rows (``_dependent_step``)."""
    h, bp, gp, am, af, gamma, beta, t1 = coef
    nt = P[6]
    flex = P[5]
    on_string = P[7][0][0] == 1  # G_f factorised per iterate, the given Lg not used
    piv = np.zeros(0, np.int64)
    no_order = np.zeros(0, np.int64)
    links = P[8]
    has_links = links[0].shape[0] > 0
    has_pressed = P[9][0].size > 0  # compliant contacts (``kernels.compliant``)
    mass_f = flex[7]
    n = q_n.size
    m = U.size
    k = ind.size
    update = (h, am, af, gamma, beta)  # the scheme's update of ind (``trial_iterate``)
    y_n = q_n[ind]
    v_n = u_n[ind]
    ydd_n = acc_n[ind]
    a_n = pseudo_n[ind]
    ydd = ydd0.copy()
    pq, pu, pphi, pjac, pphit, pt, wb, phess, pcore = prev
    c_beam = P[2][4]
    nc = c_beam.size
    nrow = normal_rows(cstate, drive.shape[0])[0]  # -1: an open unilateral contact
    n_curved = 0  # closed contacts on beams: the curvature terms (two bordered rows each)
    for i in range(nc):
        if c_beam[i] >= 0 and nrow[i] >= 0:
            n_curved += 1
    no_core = np.zeros((0, 3))
    no_force = np.zeros(0)  # the string's force and tangent "not given" (``evaluate_system``)
    no_tangents = np.zeros((0, 8, 8))
    qb = pq  # the committed state: the base of the rolling rows
    n_rolling = 0
    for i in range(rolling.size):
        if rolling[i] == ROLLING:
            n_rolling += 1
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
    ev = no_evaluation(m, n)
    r = np.empty(k)
    delta = np.empty(k)
    inertia_delta = np.empty(k)
    # the compliant contacts' rows and law values at the iterate (``kernels.compliant``)
    cwn = np.zeros((0, n))
    cwt = np.zeros((0, n))
    cvals = np.zeros((0, n))
    for _ in range(max_newton):
        q1, u1, a1 = trial_iterate(
            (pq, pu) if have_prev else (q1, u1), ind, (y_n, v_n, ydd_n, a_n), ydd, update
        )
        recovered = not have_prev
        if recovered and n_rolling > 0:  # without its rolling rows: the Python step's
            status = FAILED
            break
        if recovered:
            st = _recover(P, U, q1, u1, drive, actuators, cstate, qb, wb)
            if st != OK:
                status = st
                break
        elif not _dependent_step(U, ind, pjac, pphi, pphit, pq, pt, q1, u1, t1, phess, pcore, nrow):
            status = SINGULAR
            break
        f_string = no_force
        tangents = no_tangents
        if on_string and iterations > 0:  # the force and the tangent at q1 in one evaluation
            f_string, tangents, _ = string_forces(P[7], q1, nt, np.int64(2))
        ev = evaluate_system(
            P, q1, u1, drive, actuators, cstate, s_guess, qb, wb, f_string, np.int64(0)
        )
        st, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
        if st != OK:
            status = st
            break
        if has_pressed:  # the compliant contacts' forces, last in F (``evaluate_system``)
            cst, crec, cwn, cwt, cvals = compliant_states(P, q1, u1, s_guess, nc)
            if cst != OK:
                status = LEFT
                break
            if n_rolling > 0:
                roll_off_friction(cvals, rolling)
            subtract_compliant_forces(cwn, cwt, cvals, forces)
            # the next searches start here, as in Python (the run's ``Workspace``)
            keep_parameters(P, crec, s_guess, nc)
            if n_rolling > 0:
                rst, ev = with_rolling_rows(P, ev, q1, u1, crec, cwt, rolling, qb, wb)
                if rst != OK:
                    status = LEFT
                    break
                st, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
        lu_j, piv_j, rc_j = lu_decompose(take_columns(jac, U))
        lu_s, piv_s, rc_s = lu_decompose(take_columns(js, U))
        if rc_j <= 1e-13 or rc_s <= 1e-13:
            status = SINGULAR
            break
        B12 = lu_solve_columns(lu_j, piv_j, jac, ind)
        B3 = lu_solve(lu_j, piv_j, rem)
        B45 = lu_solve_columns(lu_s, piv_s, js, ind)
        acc = np.empty(n)
        for j in range(k):
            acc[ind[j]] = ydd[j]
        acc_u = matvec(B12, ydd)
        for j in range(m):
            acc[U[j]] = -(acc_u[j] + B3[j])
        # the residual e = M q'' + F and its reduction r = T^T e (Lipinski (002), eq. 78a)
        inertia = np.empty(n)
        inertia[:nt] = matvec(mass_tree, acc[:nt])
        structure_product(P[10][0], flex[0], acc, inertia[nt:], nt)
        e = np.empty(n)
        for i in range(n):
            e[i] = inertia[i] + forces[i]
        eU = np.empty(m)
        for j in range(m):
            eU[j] = e[U[j]]
        reduced = matvec_t(B45, eU)
        rhs = np.zeros(n)
        for j in range(k):
            r[j] = e[ind[j]] - reduced[j]
            rhs[ind[j]] = -r[j]
        if on_string:  # G_f with the tangent at q_n, then at the iterate (``GeneralizedAlpha``)
            q_g = q_n if iterations == 0 else q1
            if iterations == 0 and holds_factor(held, q_g, nt, bp):
                Lg, piv = held[1], held[2]
            else:
                Lg, piv, info = iteration_factor(P[7], q_g, nt, bp, tangents)
                if info != 0:
                    status = FAILED
                    break
                hold_factor(held, q_g, nt, bp, Lg, piv)
        L_it = Lg
        order = no_order
        if has_links:  # G_f with the tangent of the links that pull (``compliant.bordered_solve``)
            _, states, w = link_states(links, q1, u1)  # (their clamps apart: ``evaluate_system``)
            U_l, info, taut = linked_factor(links, Gb, states, w, bp, gp, nt)
            if info != 0:
                status = FAILED
                break
            if taut > 0:
                L_it = U_l
                order = links[6]
        if has_pressed:  # bordered by the compliant contacts that push, then the curvature
            jac_b, js_b, nb = jac, js, np.int64(0)
            if n_curved > 0 and (have_last or lam_n.size == m):
                lam_now = lam if have_last else lam_n
                jac_b, js_b = curvature_rows(
                    c_beam, nrow, bp, gp, jac, js, rec, hess, acc, u1, lam_now
                )
                nb = np.int64(2 * n_curved)
            jac_b, js_b, added = compliant_border(jac_b, js_b, m, cwn, cwt, cvals, bp, gp)
            X = _bordered(P, L_it, piv, order, bp, gp, mass_tree, jac_b, js_b, rhs, nb + added)
        elif n_curved > 0 and (have_last or lam_n.size == m):
            lam_now = lam if have_last else lam_n
            jac_b, js_b = curvature_rows(c_beam, nrow, bp, gp, jac, js, rec, hess, acc, u1, lam_now)
            X = _bordered(P, L_it, piv, order, bp, gp, mass_tree, jac_b, js_b, rhs, 2 * n_curved)
        else:
            X = _bordered(P, L_it, piv, order, bp, gp, mass_tree, jac, js, rhs, np.int64(0))
        finite = True
        for j in range(k):
            delta[j] = X[ind[j]]
            finite = finite and np.isfinite(delta[j])
        iterations += 1
        if not finite:
            status = FAILED
            break
        lam = lu_solve_t(lu_s, piv_s, eU)
        # the Newton test (``partitioned_step.newton_converged``)
        scale = max(1.0, _abs_max_of(inertia), _abs_max_of(forces))
        for j in range(k):
            i = ind[j]
            inertia_delta[j] = (mass_tree[i, i] if i < nt else mass_f[i - nt]) * delta[j]
        d = _abs_max_of(delta)
        stalled = have_last and d_last > 0 and d >= 0.5 * d_last
        bound = rtol * scale
        correction = bp * d / tol
        excess_r = _abs_max_over(r, bound)
        excess_i = _abs_max_over(inertia_delta, bound)
        excess = max(correction, excess_r, excess_i)
        # a stalled iterate is taken when its excess with the floor is <= 1e4 (below): the
        # floor only lowers the excess, so that one whose parts are all <= 1e4 (none NaN)
        # is taken without forming it
        settled = stalled and correction <= 1e4 and excess_r <= 1e4 and excess_i <= 1e4
        if excess > 1.0 and not settled and (stalled or not correction > 1.0):
            # above its bound: with the round-off floor added (its value matters only when
            # the iteration has stalled; otherwise a correction above tol decides it)
            excess = excess_with_floor(
                flex, nt, q1, u1, acc, ind, r, inertia_delta, bound, correction, P[10]
            )
        if excess > 1.0:
            converged = stalled and excess <= 1e4
        elif not have_last:
            converged = False
        elif stalled:
            converged = True
        else:
            theta = d / d_last if d_last > 0 else 0.0
            error = theta / (1.0 - theta) * abs_max(np.abs(lam - lam_last))
            converged = error <= rtol * max(1.0, abs_max(np.abs(lam)))
        if converged:
            if recovered or _consistent(phi, jac, u1, phit, tol):
                status = OK
                break
            if not _dependent_step(
                U, ind, jac, phi, phit, q1.copy(), t1, q1, u1, t1, hess, no_core, nrow
            ):
                status = SINGULAR
                break
            here = np.int64(0 if n_rolling > 0 else 1)  # the compliant forces here, or below
            ev = evaluate_system(
                P, q1, u1, drive, actuators, cstate, s_guess, qb, wb, no_force, here
            )
            st, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
            if st != OK:
                status = st
                break
            if n_rolling > 0:  # as ``evaluate_system`` subtracts them, the rolling ones' rows
                cst, crec, cwn, cwt, cvals = compliant_states(P, q1, u1, s_guess, nc)
                if cst != OK:
                    status = LEFT
                    break
                roll_off_friction(cvals, rolling)
                subtract_compliant_forces(cwn, cwt, cvals, forces)
                rst, ev = with_rolling_rows(P, ev, q1, u1, crec, cwt, rolling, qb, wb)
                if rst != OK:
                    status = LEFT
                    break
                st, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
            if _consistent(phi, jac, u1, phit, tol):
                status = OK
                break
            have_prev = False
        else:
            have_prev = True
            pq, pu, pphi, pjac, pphit, pt = q1, u1, phi, jac, phit, t1
            phess, pcore = hess, rec[:, H00 : H00 + 3].copy()
        have_last = True
        d_last = d
        lam_last = lam
        for j in range(k):
            ydd[j] += delta[j]
    return status, iterations, q1, u1, acc, a1, lam, ev


@inner
def _abs_max_of(x):
    """``abs_max(np.abs(x))`` without the temporary array: the largest of the bit patterns of
    the x_i with their sign cleared, which are ordered as the magnitudes (a NaN's above
    inf's: a NaN propagates, as in ``abs_max``), so that the loop vectorises; a short x
    compared value by value (the same result, without the bit pattern's array)."""
    if x.size < 64:
        out = 0.0
        for v in x:
            a = abs(v)
            if a > out or a != a:  # a NaN propagates
                out = a
        return out
    bits = x.view(np.int64)
    top = np.int64(0)
    for i in range(bits.size):
        b = bits[i] & np.int64(0x7FFFFFFFFFFFFFFF)
        if b > top:
            top = b
    return np.array([top]).view(np.float64)[0]


@inner
def _abs_max_over(x, bound):
    """``abs_max(np.abs(x) / bound)`` without the temporary array, bound > 0: the largest
    |x_i| divided once (a correctly rounded division by bound is monotone in |x_i|)."""
    return _abs_max_of(x) / bound


@njit(cache=True)
def packed_evaluation(F, I, H, q, u, drive, actuators, cstate, s_guess, qb, wb):
    """``kernels.evaluate.evaluate_system`` on the packed constant tuple (F, I, H) of
    ``steppers.compiled.Plan.packed``: the system at one state, for a caller in Python."""
    P = unpack(F, I, H)
    return evaluate_system(
        P, q, u, drive, actuators, cstate, s_guess, qb, wb, np.zeros(0), np.int64(1)
    )


@njit(cache=True)
def packed_energies(F, I, H, q, u, actuators):
    """``system.energies`` of a tree and linear beams at (q, u): (tree kinetic, structure
    kinetic, gravity and load potential, joint springs, structure elastic, damping power (the
    links' with constant rows included), load power), J and W; ``actuators`` (n_t,) the
    actuator forces at the state's time. The links' elastic energy: ``kernels.links.
    link_energies``."""
    P = unpack(F, I, H)
    pressed = 0.0
    if P[9][0].size > 0:  # the compliant contacts' damping power, their points found afresh
        st, _, _, _, values = compliant_states(P, q, u, np.zeros(0), np.int64(0))
        if st == 0:
            pressed = compliant_sums(values)[1]
    return state_energies(P, q, u, actuators, pressed)


@inner
def state_energies(P, q, u, actuators, pressed_power):
    """``packed_energies`` on the unpacked constant tuple P; pressed_power: the compliant
    contacts' damping power (``kernels.compliant.compliant_sums``, 0 without them)."""
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
    tk = 0.5 * (v2 + ut @ matvec(rotmass, ut))
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
    diagonals = P[10]
    structure_product(diagonals[0], flex[0], u, mu_, nt)
    structure_product(diagonals[1], flex[1], u, cu, nt)
    structure_product(diagonals[2], flex[2], q, ku, nt)
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
    elastic = 0.5 * se
    if P[7][0][0] == 1:  # a string (K_f is zero): its strain energy from its kernel
        _, _, elastic = string_forces(P[7], q, nt, np.int64(0))
    damping_power = tdp + sdp
    if P[8][0].shape[0] > 0 or P[9][0].size > 0:  # the links' and the compliant contacts'
        contact_power = 0.0  # damping power, in the model's order (``system.energies``)
        if P[8][0].shape[0] > 0:
            contact_power = link_energies(P[8], q, u)[1]
        if P[9][0].size > 0:
            contact_power += pressed_power
        damping_power += contact_power
    return (
        tk,
        0.5 * sk,
        grav + sg,
        0.5 * springs,
        elastic,
        damping_power,
        actuators @ ut,
    )


@njit(cache=True)
def delassus(F, I, H, LM, mass_tree, jac, js):
    """(J M^-1 J^T, J M^-1 J_Sigma^T) with M = diag(M_t, M_f), M_f through its banded
    Cholesky factor LM (``StepAlgebra.painleve_margin``)."""
    nt = H[H.shape[0] - 1, 0]
    m, n = jac.shape
    nf = n - nt
    lu, piv, _ = lu_decompose(mass_tree)
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
            x_t = lu_solve(lu, piv, src[j, :nt].copy())
            out = D0 if which == 0 else D
            for i in range(m):
                acc = 0.0
                for k in range(nt):
                    acc += jac[i, k] * x_t[k]
                for k in range(nf):
                    acc += jac[i, nt + k] * X[k, which * m + j]
                out[i, j] = acc
    return D0, D


# the pieces of ``iterate`` that the energy-consistent step (``kernels.consistent_step``)
# calls too, under public names (the same compiled functions)
bordered = _bordered
dependent_step = _dependent_step
recover_dependent_rows = _recover
consistent_rows = _consistent
