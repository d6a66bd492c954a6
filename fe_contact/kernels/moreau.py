"""Compiled (numba) kernels of the Moreau-Jean step (``steppers.moreau``, Eugster-Glocker
(004), sec. 4.4): the factors of the effective mass ``M_eff = blockdiag(M_t + theta h C_j +
theta^2 h^2 K_j, flexible band)`` and solves with them (``tree_factor``, ``block_solve``), the
contact problem's Delassus matrix and offset (``delassus_offset``) and the end state of a
sub-step (``end_state``); a whole sub-step of a tree (or none) with one structure (a string) or linear beams,
candidate grids and, on a beam, a closest-point pair or a profile pair in one call (``substep``: these
kernels with those of the tree, the string or the sparse products of the beam
(``sparse_product``), the band, the grids, the beam's closest point and contact
(``kernels.beam``) and the contact solver's sweeps, active-set Newton and De Saxce's fixed
point, in the Python sub-step's order; the work of its contact impulses by
``kernels.impulse_work``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .band import add_entries, band_lu_factor, band_lu_solve, band_product, smooth_band
from .beam import GAP, N_FIELDS
from .beam import closest as beam_closest
from .beam import contact as beam_contact
from .contact import active_set_newton, law_residual, warm_sweeps
from .de_saxce import de_saxce_fixed_point
from .dense import lu_decompose, lu_solve, lu_solve_columns
from .grid import gaps_and_frames, grid_rows, material_points
from .impulse_work import impulse_work_sums
from .jit import inner
from .lemke import lemke_impulses
from .profile_pair import LINE_FOUND, LINE_NONE, centre_line_contact
from .string import string_response
from .tree import body_states, equations, point_state

__all__ = [
    "block_solve",
    "closest_gap",
    "closest_record",
    "delassus_offset",
    "end_state",
    "line_gap",
    "line_record",
    "sparse_product",
    "substep",
    "tree_factor",
]


@njit(cache=True)
def tree_factor(mass, damping, stiffness, c, k):
    """LU factors of the tree's block of the effective mass, M_t + diag(c C_j + k K_j) with the
    joint dampers C_j and springs K_j (n_t,) and c = theta h, k = theta^2 h^2, M_t (n_t, n_t):
    (lu, piv, reciprocal condition number; ``kernels.dense.lu_decompose``: 0 when singular)."""
    m_eff = mass.copy()
    for i in range(mass.shape[0]):
        m_eff[i, i] = mass[i, i] + (c * damping[i] + k * stiffness[i])
    return lu_decompose(m_eff)


@inner
def _rows_times(rows, x):
    """rows @ x (k,) summed in a loop."""
    k, n = rows.shape
    out = np.empty(k)
    for i in range(k):
        acc = 0.0
        for r in range(n):
            acc += rows[i, r] * x[r]
        out[i] = acc
    return out


@inner
def _orthogonal(y, rows, minv_jt, schur_lu, schur_piv):
    """y (n, k) in place: y - M^-1 J^T S^-1 J y, the solve made orthogonal to the bilateral
    rows J (``substep``)."""
    n, k = y.shape
    n_b = rows.shape[0]
    for c in range(k):
        col = y[:, c].copy()
        z = lu_solve(schur_lu, schur_piv, _rows_times(rows, col))
        for r in range(n):
            acc = 0.0
            for j in range(n_b):
                acc += minv_jt[r, j] * z[j]
            y[r, c] = col[r] - acc


@njit(cache=True)
def block_solve(tree_lu, tree_piv, band_lu, band_piv, band, rhs):
    """X (n, k) with M_eff X = rhs (n, k) for the block-diagonal effective mass: the tree's
    first n_t rows by ``tree_factor``'s factors (n_t, n_t), the structures' by the banded
    factors (``kernels.band.band_lu_factor``; band_lu of shape (3 band + 1, n - n_t))."""
    n_t = tree_lu.shape[0]
    n, k = rhs.shape
    out = np.empty((n, k))
    if n_t:
        out[:n_t] = lu_solve_columns(tree_lu, tree_piv, rhs[:n_t], np.arange(k))
    if n > n_t:
        out[n_t:] = band_lu_solve(band_lu, band_piv, band, rhs[n_t:])
    return out


@inner
def _transposed_product(a, b):
    """a^T b for a (n, k) and b (n, l), each entry summed over the n rows in order."""
    n, k = a.shape
    out = np.zeros((k, b.shape[1]))
    for i in range(k):
        for j in range(b.shape[1]):
            acc = 0.0
            for r in range(n):
                acc += a[r, i] * b[r, j]
            out[i, j] = acc
    return out


@njit(cache=True)
def delassus_offset(w, minv_w, u_free, u_start, restitution):
    """The contact problem xi = G P + c of a sub-step (004 sec. 4.5): the Delassus matrix
    G = W^T M_eff^-1 W (2m, 2m) and the offset c = W^T u_free + e W^T u_A (2m,), from the
    rows W (n, 2m), M_eff^-1 W (n, 2m), the free and start velocities (n,) and Newton's
    restitutions e (2m,)."""
    n, k = w.shape
    delassus = _transposed_product(w, minv_w)
    offset = np.empty(k)
    for i in range(k):
        free = 0.0
        start = 0.0
        for r in range(n):
            free += w[r, i] * u_free[r]
            start += w[r, i] * u_start[r]
        offset[i] = free + restitution[i] * start
    return delassus, offset


@njit(cache=True)
def end_state(q_start, u_start, u_free, minv_w, impulses, w, h, theta):
    """The end of a sub-step (``steppers.moreau``, step 5): u_E = u_free + M_eff^-1 W P,
    q_E = q_A + h u_A + theta h (u_E - u_A) (n,), and the contact velocities gamma^A = W^T u_A,
    gamma^E = W^T u_E (2m,), from the impulses P (2m,) ordered (N.., T..)."""
    n, k = w.shape
    u_end = u_free.copy()
    for j in range(k):
        p = impulses[j]
        for r in range(n):
            u_end[r] += minv_w[r, j] * p
    q_end = np.empty(n)
    for r in range(n):
        q_end[r] = q_start[r] + h * u_start[r] + theta * h * (u_end[r] - u_start[r])
    gamma_start = np.empty(k)
    gamma_end = np.empty(k)
    for j in range(k):
        a = 0.0
        e = 0.0
        for r in range(n):
            a += w[r, j] * u_start[r]
            e += w[r, j] * u_end[r]
        gamma_start[j] = a
        gamma_end[j] = e
    return u_end, q_end, gamma_start, gamma_end


@njit(cache=True)
def sparse_product(indptr, indices, data, by_columns, x):
    """A x (n,) for a sparse A (n, n) given by its compressed arrays, summed as scipy's
    sparsetools sum it: by columns (CSC, ``by_columns`` True: out[i] += a_ij x_j for j = 0..n-1)
    or by rows (CSR: out[i] = sum over the row's stored entries in their order), each out[i]
    from 0.0, so that the product is ``A @ x``'s to the last bit."""
    n = x.size
    out = np.zeros(n)
    if by_columns:
        for j in range(n):
            for k in range(indptr[j], indptr[j + 1]):
                out[indices[k]] += data[k] * x[j]
    else:
        for i in range(n):
            acc = out[i]
            for k in range(indptr[i], indptr[i + 1]):
                acc += data[k] * x[indices[k]]
            out[i] = acc
    return out


# ---------------------------------------------------------------------------------------------
# A whole sub-step of a tree with one structure and candidate grids (``steppers.moreau``)
# ---------------------------------------------------------------------------------------------

# codes of ``substep``'s outcome (scalars[0])
DONE = 0  # committed: the end state, the impulses and the work columns are written
REJECTED = 1  # a candidate would penetrate deeper than allowed: the sub-step is halved
HANDED_BACK = 2  # the Python sub-step takes it (a singular block, the contact solver's cascade
#                  beyond Lemke's pivoting, a state that is not finite)
# least-distance problems per start of De Saxce's fixed point, Python's: a smaller budget
# would save a failure's cost (300-430 problems, 85 ms on the capstan, before Lemke's
# pivoting solves the problem in 1-2 ms; 40 % of the capstan's time in 6 sub-steps of 100;
# solved runs need up to 227), but it changes which solution is found: Coulomb's law
# with redundant contacts may have several, the start from stick and that from the free slip
# reach different ones (30 per start: the capstan's q moved by 2e-4 m of 1 m)
DE_SAXCE_PROBLEMS = 150


@inner
def _scan(tree, grids, q, gaps, positions, centres):
    """Every grid candidate at q (n,): gaps (M,), material points (M, 2) and each pair's
    circle centre (n_pairs, 2) written (``steppers.grid_pairs.GridPair.scan``)."""
    topology, t0, t1 = tree[0], tree[6], tree[7]
    start, body, local, radius, _, columns, offset, rows, dofs = grids[:9]
    rest = np.zeros(t1 - t0)
    q_t = q[t0:t1].copy()
    for p in range(body.size):
        a, b = start[p], start[p + 1]
        centre = point_state(topology, q_t, rest, body[p], local[p, 0], local[p, 1])[0]
        centres[p, 0], centres[p, 1] = centre[0], centre[1]
        points = material_points(
            offset[a:b], rows[a:b], dofs[a:b], q[columns[p, 0] : columns[p, 1]]
        )
        positions[a:b] = points
        gaps[a:b] = gaps_and_frames(centre, radius[p], points)[0]


@inner
def _closest_contact(tree, closest, q, u, s, wn, wt):
    """The closest-point pair of a body's circle (or point) on the beam at (q, u) (n,) and the
    material point s: the record of ``kernels.beam.contact`` (N_FIELDS,), W_N and W_T written
    into wn, wt (n,) (``coupling.kinematics.structure_contact``)."""
    topology, t0, t1 = tree[0], tree[6], tree[7]
    beam, body, local, radius, side, angular = closest[1:7]
    q_t = q[t0:t1].copy()
    u_t = u[t0:t1].copy()
    centre, velocity, jacobian, remainder = point_state(
        topology, q_t, u_t, body, local[0], local[1]
    )
    spin = 0.0
    for i in range(t1 - t0):
        spin += angular[i] * u_t[i]
    record = np.empty(N_FIELDS)
    beam_contact(
        beam, 0, s, q, u, side, radius, centre, velocity, jacobian, remainder, angular, spin,
        t1 - t0, record, wn, wt, np.empty((3, q.size)),
    )  # fmt: skip
    return record


@inner
def _closest_gap(tree, closest, q, s_guess):
    """(gap, s) of the closest-point pair at q (n,), its search started at s_guess (NaN: at
    the nearest node; ``Structure.closest``, tolerance 1e-13 of the length): gap +inf and
    s_guess kept when the closest point lies beyond an end of the beam (no contact point)."""
    topology, t0, t1 = tree[0], tree[6], tree[7]
    beam, body, local = closest[1], closest[2], closest[3]
    q_t = q[t0:t1].copy()
    centre = point_state(topology, q_t, np.zeros(t1 - t0), body, local[0], local[1])[0]
    s, inside = beam_closest(beam, 0, centre[0], centre[1], q, s_guess, 1e-13)
    if not inside:
        return np.inf, s_guess
    n = q.size
    record = _closest_contact(tree, closest, q, np.zeros(n), s, np.empty(n), np.empty(n))
    return record[GAP], s


@njit(cache=True)
def closest_gap(tree, closest, q, s_guess):
    """``substep``'s closest-point search at q (n,) from Python, for the end state's scan:
    (gap, s) (gap +inf and s_guess kept without a contact point), the arguments as
    ``substep``'s."""
    return _closest_gap(tree, closest, q, s_guess)


@njit(cache=True)
def closest_record(tree, closest, q, u, s):
    """The record of ``kernels.beam.contact`` (N_FIELDS,) of ``substep``'s closest-point pair
    at (q, u) (n,) and the material point s (the geometry of its point for a report)."""
    n = q.size
    return _closest_contact(tree, closest, q, u, s, np.empty(n), np.empty(n))


@inner
def _line_gap(tree, profile, q, guess):
    """The gap of ``substep``'s profile pair at q (n,) at rest, its warm start guess (2,)
    moved (``kernels.profile_pair.centre_line_contact``; ``coupling.contact_points
    .contact_gaps``): +inf without a contact point, the boxes' distance while they are apart."""
    n = q.size
    record = np.empty(N_FIELDS)
    status = centre_line_contact(
        tree[0], profile[1], profile[2], q, np.zeros(n), tree[7], guess, record, np.empty(n),
        np.empty(n),
    )  # fmt: skip
    if status == LINE_NONE:
        return np.inf
    return record[GAP]


@njit(cache=True)
def line_gap(tree, profile, q, guess):
    """``substep``'s profile-pair gap at rest, called from Python for the end state's scan.

    Parameters
    ----------
    tree, profile : tuple
        ``substep``'s arguments of the same names.
    q : ndarray, shape (n,)
        The coordinates.
    guess : ndarray, shape (2,)
        The warm start (eta, s), NaN for none; moved to the point found (written).

    Returns
    -------
    float
        The gap, m: +inf without a contact point, the boxes' distance while they are apart.

    Examples
    --------
    See ``tests/test_moreau_two_beams_compiled.py`` (the batched history of the two beams,
    whose end-state gaps these are, against the Python sub-step's).
    """
    return _line_gap(tree, profile, q, guess)


@njit(cache=True)
def line_record(tree, profile, q, u, guess):
    """``substep``'s profile pair at (q, u), called from Python for a report's geometry.

    Parameters
    ----------
    tree, profile : tuple
        ``substep``'s arguments of the same names.
    q, u : ndarray, shape (n,)
        The state.
    guess : ndarray, shape (2,)
        The warm start (eta, s), NaN for none; moved to the point found (written).

    Returns
    -------
    status : int
        ``kernels.profile_pair.LINE_FOUND``, ``LINE_NONE`` or ``LINE_APART``.
    record : ndarray, shape (N_FIELDS,)
        The point's record (``kernels.profile_pair.centre_line_record``).

    Examples
    --------
    See ``tests/test_moreau_two_beams_compiled.py`` (the reported point of the two beams'
    pad against the Python sub-step's).
    """
    n = q.size
    record = np.empty(N_FIELDS)
    status = centre_line_contact(
        tree[0], profile[1], profile[2], q, u, tree[7], guess, record, np.empty(n), np.empty(n)
    )
    return status, record


@inner
def _penetrates(gaps, before, tolerance):
    """Does a candidate lie deeper than allowed, -g > max(tol, 1e-3 tol - g_A)?"""
    for i in range(gaps.size):
        allowed = max(tolerance, 1e-3 * tolerance - before[i])
        if -gaps[i] > allowed:
            return True
    return False


@inner
def _end_energies(joints, mass, band, load, reference, q, u, t0, t1, f0, f1, power_f, out):
    """The energies of the end state (q, u) (n,) of ``substep`` into out[11:17] (``system.energies``'
    terms): the tree's kinetic energy 1/2 (sum m_i |v_ci|^2 + u^T (sum I_i jw_i^T jw_i) u), the
    structure's 1/2 u M_f u (M_f in band storage, band b), the tree's potential of gravity
    -sum m_i g . x_ci, its joint springs 1/2 sum k_j (q_j - rest_j)^2, the structure's load
    potential -Q_f . (q - q_ref) and the dampers' power: the joints' sum c_j u_j^2 plus the
    structure's ``power_f`` (u C_f u of a linear structure, else 0; J and W)."""
    topology, stiffness, joint_damping, rest = joints
    n_t = t1 - t0
    n_f = f1 - f0
    body_mass, rotational, gravity = topology[8], topology[10], topology[11]
    q_t = q[t0:t1].copy()
    u_t = u[t0:t1].copy()
    _, _, centre, _, _, velocity = body_states(topology, q_t, u_t)
    moving = 0.0
    height = 0.0
    for i in range(n_t):
        moving += body_mass[i] * (velocity[i, 0] * velocity[i, 0] + velocity[i, 1] * velocity[i, 1])
        height -= body_mass[i] * (centre[i, 0] * gravity[0] + centre[i, 1] * gravity[1])
    turning = 0.0
    springs = 0.0
    dampers = 0.0
    for i in range(n_t):
        row = 0.0
        for j in range(n_t):
            row += rotational[i, j] * u_t[j]
        turning += u_t[i] * row
        springs += stiffness[i] * (q_t[i] - rest[i]) ** 2
        dampers += joint_damping[i] * (u_t[i] * u_t[i])
    u_f = u[f0:f1].copy()
    m_u = band_product(mass, band, u_f)
    kinetic_f = 0.0
    potential_f = 0.0
    for i in range(n_f):
        kinetic_f += u_f[i] * m_u[i]
        potential_f -= load[i] * (q[f0 + i] - reference[i])
    out[11] = 0.5 * (moving + turning)
    out[12] = 0.5 * kinetic_f
    out[13] = height
    out[14] = 0.5 * springs
    out[15] = potential_f
    out[16] = dampers + power_f


@njit(cache=True)
def substep(
    tree,
    structure,
    flexible,
    grids,
    closest,
    profile,
    q_a,
    u_a,
    actuators,
    forces_a,
    settings,
    drives,
    out,
):
    """One Moreau-Jean sub-step (``steppers.moreau``, steps 1, 2, 4, 5 and the work columns)
    of a tree (possibly empty: no coordinates) with one structure, a string (its tension law
    compiled), or linear beams as one block, and candidate grids (and a closest-point pair
    on the beam, or a profile pair against a beam's centre line), in one call.

    tree : (topology arrays, joint stiffness, damping, rest (n_t,), the effective mass's C_j,
        K_j (n_t,), first and last coordinate of the tree in the system) of ``kernels.tree``;
        a system without a tree has an empty one (n_t = 0).
    structure : (linear, string, flat, keep, stiffness, damping): whether the structure is
        linear (its force K q, K and C_f constant: a beam), else a string whose arguments of
        ``kernels.string.string_response`` after q are ``string``, with the flat band
        positions and kept entries of its element tangents (``kernels.band.add_entries``);
        K and C_f of a linear structure as (indptr, indices, data, by columns) of
        ``sparse_product`` (the matrices the Python sub-step multiplies; a string's unread).
    flexible : (first and last coordinate of the structure, load Q_f (n_f,), M_f, C_f and the
        linear stiffness in band storage (3 b + 1, n_f), the band b, stiffness damping beta per
        column (n_f,), whether C_f(q) is not zero, the structure's reference coordinates q_ref
        (n_f,), from which its load potential is measured).
    grids : stacked candidates of the n_pairs grid pairs: first candidate of each pair
        (n_pairs + 1,), body, circle centre in the body (n_pairs, 2), radius, angular-velocity
        rows (n_pairs, n_t), the structure's columns (n_pairs, 2), the points' offsets (M, 2),
        rows (M, 2, k) and dofs (M, k) (``structures.base.PointRows``), mu, e_N, e_T per pair.
    closest : (whether the model's last pair is a closest-point pair of a body's circle or point
        on the linear beam, the beam's arrays (``kernels.beam.beam_arrays``), body, centre in
        the body (2,), radius, side, angular-velocity row (n_t,), the last closest point s in
        m (NaN: none yet), mu, e_N, e_T): its point searched at q_P, at q_A and q_E where the
        penetration is checked, each search started where the last one ended, and its rows
        at q_P taken at the last point found (the Python sub-step's sequence); it comes last
        in the contact problem, as the last pair.
    profile : None (no such pair: none of its code is compiled), or (True: the model's last
        pair is a profile against a linear beam's centre line, the beams' arrays (``kernels.beam.beam_arrays``), the pair's arrays
        (``kernels.profile_pair.line_arrays``), mu, e_N, e_T): its point
        (``kernels.profile_pair.centre_line_contact``) found where the closest-point pair's
        is, in the same sequence, from the warm start out[10] (the tree's coordinates first);
        never with a closest-point pair.
    q_a, u_a : the start (n,); actuators : joint actuator forces at t_A and at t = 0 (2, n_t);
        forces_a : dV/dq at q_A (n,) (read for theta > 1/2).
    settings : (h, theta, theta h, theta^2 h^2, touch tolerance, contact tolerance, the
        contact solver's sweeps, penetration tolerance, whether to check it).
    drives : (J (n_b, n), b (n_b,), n_d) of the bilateral rows J u_E = b of the sub-step (the
        drives first, n_d of them, then loop closures; ``MoreauJean._bilateral``), n_b = 0:
        none. The impulses Lambda are eliminated as in the Python sub-step: M_eff^-1 J^T, the
        Schur complement S = J M_eff^-1 J^T (``kernels.dense.lu_decompose``), u_free
        corrected by Lambda_free = S^-1 (b - J u_free), every later solve made orthogonal to
        the rows (y - M_eff^-1 J^T S^-1 J y) and Lambda = Lambda_free - S^-1 J M_eff^-1 W P.
    out : (state (2, n): u_E, q_E; closed (2, M + 1): pair and candidate; impulses and
        gamma^E (2, 2 M + 2), ordered (N.., T..) over the closed; the end scan: gaps (M,), points (M, 2),
        centres (n_pairs, 2); dV/dq at q_E (n,); scalars (18,): outcome (``DONE``,
        ``REJECTED``, ``HANDED_BACK``), closed count m (of a sub-step handed back: 1 when De
        Saxce's fixed point and Lemke's pivoting failed, which the Python solver need not try
        again, else 0), the
        contact solver's sweeps (also of a sub-step rejected at q_E), law residual, the work columns
        dissipated_impact, dissipated_friction, work_contact_timing, dissipated_damping,
        work_loads, dissipated_numerical, the structure's strain energy at q_E, and the
        energies of the end state (``_end_energies``): the tree's and the structure's kinetic
        energy, the tree's potential of gravity and joint springs, the structure's load
        potential and the dampers' power); the closest-point pair's last point s (1,), also
        of a rejected sub-step), the bilateral impulses Lambda (n_b,) in N s and the drives'
        work Lambda[:n_d] . J[:n_d] u_theta (scalars' 18th entry), written; a closed closest-point pair is listed as pair
        n_pairs, candidate 0, as a closed profile pair is; the profile pair's warm start
        (eta, s) (2,) (NaN: none), read and moved, also by a rejected sub-step).

    Each part is the kernel the Python sub-step calls (``kernels.tree.equations``,
    ``tree_factor``, ``kernels.string.string_response``, ``kernels.band.smooth_band`` and
    ``band_lu_factor`` (a linear structure: (Q_f - K q) - C_f u by ``sparse_product`` and the
    band (M_f + theta h C_f) + theta^2 h^2 K, as ``FlexibleBlock.step``), ``block_solve``,
    ``kernels.grid.grid_rows``, ``delassus_offset``, ``kernels.contact.warm_sweeps`` and
    ``active_set_newton``, ``kernels.de_saxce.de_saxce_fixed_point``,
    ``kernels.lemke.lemke_impulses``, ``end_state``,
    ``impulse_work_sums``); the closest point and its
    rows are ``kernels.beam.closest`` and ``contact``, the compiled step's twins of
    ``Structure.closest`` and ``coupling.kinematics.structure_contact`` that the Python
    sub-step calls (equal to the last bit on the disk on the beam and the pendulum on the
    cantilever); dot products are summed in loops (round-off against numpy's).
    """
    topology, stiffness_j, damping_j, rest_j, c_joint, k_joint, t0, t1 = tree
    linear, string, flat, keep, stiffness_f, damping_f = structure
    f0, f1, load, mass, damping, stiffness, band, beta, damped, string_reference = flexible
    start, body, local, radius, angular, columns, offset, rows, dofs, mu_p, e_n, e_t = grids
    h, theta, th, th2, touch, tol, max_sweeps, penetration, check = settings
    state, closed, contact, gaps_e, points_e, centres_e, forces_e, scalars, parameter = out[:9]
    jac, rhs, n_d = drives
    lam = out[9]
    # ``profile is not None`` is decided when the kernel is compiled (numba prunes the branch
    # for a None argument): without a profile pair none of its code is compiled
    guess = out[10]  # the profile pair's warm start (eta, s), moved as the Python sub-step's
    n_b = rhs.size
    active, mu_c, e_n_c, e_t_c = closest[0], closest[8], closest[9], closest[10]
    s_cur = closest[7]
    n = q_a.size
    n_t = t1 - t0
    n_f = f1 - f0
    big_m = offset.shape[0]
    n_pairs = body.size
    scalars[:] = 0.0
    # 1. predictor, and the penetration check at q_P against the gaps at q_A
    q_p = np.empty(n)
    for i in range(n):
        q_p[i] = q_a[i] + th * u_a[i]
    gap_p = gap_a = np.inf  # the closest-point pair's (or the profile pair's)
    gaps_a = np.empty(big_m)
    if check:  # q_A first: the closest-point search then ends at q_P's point, the rows' one
        _scan(tree, grids, q_a, gaps_a, np.empty((big_m, 2)), np.empty((n_pairs, 2)))
        if active:
            gap_a, s_cur = _closest_gap(tree, closest, q_a, s_cur)
        if profile is not None:
            gap_a = _line_gap(tree, profile, q_a, guess)
    gaps_p = np.empty(big_m)
    points_p = np.empty((big_m, 2))
    centres_p = np.empty((n_pairs, 2))
    _scan(tree, grids, q_p, gaps_p, points_p, centres_p)
    if active:
        gap_p, s_cur = _closest_gap(tree, closest, q_p, s_cur)
    single = active  # a closest-point or profile pair, the last
    if profile is not None:
        gap_p = _line_gap(tree, profile, q_p, guess)
        single = True
    if check:
        parameter[0] = s_cur
        if _penetrates(gaps_p, gaps_a, penetration) or (
            single and -gap_p > max(penetration, 1e-3 * penetration - gap_a)
        ):
            scalars[0] = REJECTED
            return
    # 2. smooth forces and the effective mass at q_P
    q_t = q_p[t0:t1].copy()
    u_t = u_a[t0:t1].copy()
    mass_t, bias = equations(topology, q_t, u_t, stiffness_j, damping_j, rest_j, actuators[0])
    tree_lu, tree_piv, rcond = tree_factor(mass_t, c_joint, k_joint, th, th2)
    if n_t and not rcond > 0.0:
        scalars[0] = HANDED_BACK
        return
    u_f = u_a[f0:f1].copy()
    c_band = damping
    if linear:  # K q and C_f u as the Python sub-step's sparse products, the constant band
        force_f = sparse_product(*stiffness_f, q_p[f0:f1].copy())
        damped_u = sparse_product(*damping_f, u_f)
        smooth_f = np.empty(n_f)
        for i in range(n_f):
            smooth_f[i] = (load[i] - force_f[i]) - damped_u[i]
        ab = np.empty(mass.shape)
        for r in range(mass.shape[0]):
            for j in range(n_f):
                ab[r, j] = (mass[r, j] + th * damping[r, j]) + th2 * stiffness[r, j]
    else:
        force_f, tangents, _ = string_response(q_p[f0:f1].copy(), *string, 2, n_f)
        k_band = add_entries(stiffness.ravel(), flat, keep, tangents).reshape(mass.shape)
        if damped:
            c_band = damping.copy()
            for j in range(n_f):
                if beta[j] != 0.0:
                    for r in range(mass.shape[0]):
                        c_band[r, j] += beta[j] * k_band[r, j]
        smooth_f, ab = smooth_band(load, force_f, c_band, band, u_f, mass, k_band, th, th2)
    band_lu, band_piv, info = band_lu_factor(ab, band)
    if info != 0:
        scalars[0] = HANDED_BACK
        return
    impulse = np.zeros((n, 1))
    for i in range(n_t):
        impulse[t0 + i, 0] = h * -bias[i]
    for i in range(n_f):
        impulse[f0 + i, 0] = h * smooth_f[i]
    change = block_solve(tree_lu, tree_piv, band_lu, band_piv, band, impulse)
    u_free = np.empty(n)
    for i in range(n):
        u_free[i] = u_a[i] + change[i, 0]
    # 3. the drives and loop closures: u_E = u_free + M^-1 (J^T Lambda + W P) with J u_E = b
    minv_jt = np.zeros((n, n_b))
    schur_lu = np.zeros((n_b, n_b))
    schur_piv = np.arange(n_b)
    if n_b:
        jac_t = jac.T.copy()
        minv_jt = block_solve(tree_lu, tree_piv, band_lu, band_piv, band, jac_t)
        schur = _transposed_product(jac_t, minv_jt)
        schur_lu, schur_piv, rcond_b = lu_decompose(schur)
        if not rcond_b > 0.0:
            scalars[0] = HANDED_BACK
            return
        lam[:] = lu_solve(schur_lu, schur_piv, rhs - _rows_times(jac, u_free))
        for r in range(n):
            acc = 0.0
            for j in range(n_b):
                acc += minv_jt[r, j] * lam[j]
            u_free[r] += acc
    # 4. the closed candidates at q_P, their rows and the contact problem
    m = 0
    for i in range(big_m):
        if gaps_p[i] <= touch:
            m += 1
    pressed = active and gap_p <= touch  # the closest-point pair closed, last
    if pressed:
        m += 1
    w_line = np.empty((2, n))
    if profile is not None:
        if gap_p <= touch:  # its rows at q_P (searched again, as ``_closed`` does)
            record = np.empty(N_FIELDS)
            status = centre_line_contact(
                topology, profile[1], profile[2], q_p, u_a, t1, guess, record, w_line[0],
                w_line[1],
            )  # fmt: skip
            if status == LINE_FOUND:  # without a contact point, or apart: open
                pressed = True
                m += 1
                mu_c, e_n_c, e_t_c = profile[3], profile[4], profile[5]
    w = np.zeros((n, 2 * m))
    e = np.empty(2 * m)
    mu = np.empty(m)
    j = 0
    for p in range(n_pairs):
        a, b = start[p], start[p + 1]
        which = np.flatnonzero(gaps_p[a:b] <= touch) + a
        count = which.size
        if count == 0:
            continue
        centre, velocity, jacobian, _ = point_state(
            topology, q_t, u_t, body[p], local[p, 0], local[p, 1]
        )
        spin = 0.0
        for i in range(n_t):
            spin += angular[p, i] * u_t[i]
        c0, c1 = columns[p, 0], columns[p, 1]
        rows_p = grid_rows(
            centre, velocity, jacobian, angular[p], spin, radius[p], points_p[which],
            dofs[which], rows[which], u_a[c0:c1].copy(), c0, t0, n,
        )  # fmt: skip
        w[:, j : j + count] = rows_p[3]
        w[:, m + j : m + j + count] = rows_p[4]
        for i in range(count):
            closed[0, j + i] = p
            closed[1, j + i] = which[i] - a
            e[j + i] = e_n[p]
            e[m + j + i] = e_t[p]
            mu[j + i] = mu_p[p]
        j += count
    if pressed:
        if active:
            _closest_contact(tree, closest, q_p, u_a, s_cur, w[:, j], w[:, m + j])
        else:  # the profile pair's rows, found above
            w[:, j] = w_line[0]
            w[:, m + j] = w_line[1]
        closed[0, j] = n_pairs
        closed[1, j] = 0
        e[j] = e_n_c
        e[m + j] = e_t_c
        mu[j] = mu_c
    impulses = np.zeros(2 * m)
    minv_w = np.zeros((n, 0))
    sweeps = 0
    residual = 0.0
    if m:
        minv_w = block_solve(tree_lu, tree_piv, band_lu, band_piv, band, w)
        if n_b:
            _orthogonal(minv_w, jac, minv_jt, schur_lu, schur_piv)
        delassus, offset_c = delassus_offset(w, minv_w, u_free, u_a, e)
        diag = np.empty(2 * m)
        for i in range(2 * m):
            diag[i] = delassus[i, i]
            if not diag[i] > 0.0:
                scalars[0] = HANDED_BACK
                return
        r_unit = 1.0 / diag
        scale_c = 0.0
        for i in range(2 * m):
            scale_c = max(scale_c, abs(offset_c[i]))
        xi = np.empty(2 * m)
        warm = min(4, max_sweeps)
        sweeps, residual, scale, _, _ = warm_sweeps(
            delassus, offset_c, mu, diag, 1.0, impulses, r_unit, tol, warm, scale_c, xi,
            np.empty(warm),
        )  # fmt: skip
        if not residual <= tol * scale:
            if sweeps != 4:  # the sweeps after the warm ones: Python's
                scalars[0] = HANDED_BACK
                return
            trial, _, converged = active_set_newton(
                delassus, offset_c, mu, impulses, r_unit, tol * scale, 3
            )
            if not converged:  # De Saxce's fixed point (G singular: a string on a drum)
                trial, converged, _, _ = de_saxce_fixed_point(
                    delassus, offset_c, mu, r_unit, tol, DE_SAXCE_PROBLEMS
                )
            if not converged:  # Lemke's pivoting, polished (the Python solver's next stage)
                trial, _, converged, _, _, _ = lemke_impulses(
                    delassus, offset_c, mu, r_unit, tol, scale
                )
            if not converged:  # regularised Lemke and Tresca's fixed point: Python's
                scalars[0] = HANDED_BACK
                scalars[1] = 1.0
                return
            impulses = trial
            residual = law_residual(delassus, offset_c, mu, r_unit, impulses, xi)[0]
    if n_b and m:  # Lambda = Lambda_free - S^-1 J M^-1 W P
        w_p = np.zeros((n, 1))
        for r in range(n):
            acc = 0.0
            for j in range(2 * m):
                acc += w[r, j] * impulses[j]
            w_p[r, 0] = acc
        plain = block_solve(tree_lu, tree_piv, band_lu, band_piv, band, w_p)[:, 0].copy()
        lam -= lu_solve(schur_lu, schur_piv, _rows_times(jac, plain))
    scalars[2] = sweeps  # counted also when the end state is rejected, as in Python
    # 5. the end state, the penetration check at q_E
    u_e, q_e, gamma_a, gamma_e = end_state(q_a, u_a, u_free, minv_w, impulses, w, h, theta)
    for i in range(n):
        if not (np.isfinite(u_e[i]) and np.isfinite(q_e[i])):
            scalars[0] = HANDED_BACK
            return
    _scan(tree, grids, q_e, gaps_e, points_e, centres_e)
    if check:
        gap_e = np.inf
        if active:
            gap_e, s_cur = _closest_gap(tree, closest, q_e, s_cur)
        if profile is not None:
            gap_e = _line_gap(tree, profile, q_e, guess)
        parameter[0] = s_cur
        if _penetrates(gaps_e, gaps_a, penetration) or (
            single and -gap_e > max(penetration, 1e-3 * penetration - gap_a)
        ):
            scalars[0] = REJECTED
            return
    # the work columns (``steppers.impulse_work``, ``MoreauJean._smooth_work``)
    impact, friction, timing = impulse_work_sums(
        impulses[:m], impulses[m:], gamma_a, gamma_e, e, mu, theta
    )
    u_theta = np.empty(n)
    for i in range(n):
        u_theta[i] = (1.0 - theta) * u_a[i] + theta * u_e[i]
    joint_damping = 0.0
    joint_loads = 0.0
    for i in range(n_t):
        v = u_theta[t0 + i]
        joint_damping += c_joint[i] * (v * v)
        joint_loads += actuators[0, i] * v
    dissipated = h * joint_damping
    loads = h * joint_loads
    if damped:
        if linear:
            c_u = sparse_product(*damping_f, u_theta[f0:f1].copy())
        else:
            c_u = band_product(c_band, band, u_theta[f0:f1].copy())
        flexible_damping = 0.0
        for i in range(n_f):
            flexible_damping += u_theta[f0 + i] * c_u[i]
        dissipated += h * flexible_damping
    mass_e, bias_e = equations(
        topology, q_e[t0:t1].copy(), np.zeros(n_t), stiffness_j, damping_j, rest_j, actuators[1]
    )
    power_f = 0.0  # u_E C_f u_E of a linear structure (a string's: evaluated in Python)
    if linear:
        force_e = sparse_product(*stiffness_f, q_e[f0:f1].copy())
        strain = 0.0
        for i in range(n_f):
            strain += q_e[f0 + i] * force_e[i]
        strain *= 0.5
        if damped:
            c_u = sparse_product(*damping_f, u_e[f0:f1].copy())
            for i in range(n_f):
                power_f += u_e[f0 + i] * c_u[i]
    else:
        force_e, _, strain = string_response(q_e[f0:f1].copy(), *string, 1, n_f)
    for i in range(n_t):
        forces_e[t0 + i] = bias_e[i]
    for i in range(n_f):
        forces_e[f0 + i] = force_e[i]
    numerical = 0.0
    if theta > 0.5:  # theta = 1/2: no loss
        du = u_e - u_a
        kinetic = 0.0
        for r in range(n_t):
            row = 0.0
            for c in range(n_t):
                row += mass_t[r, c] * du[t0 + c]
            kinetic += du[t0 + r] * row
        m_du = band_product(mass, band, du[f0:f1].copy())
        for i in range(n_f):
            kinetic += du[f0 + i] * m_du[i]
        potential = 0.0
        for i in range(t0, t1):
            potential += (q_e[i] - q_a[i]) * (forces_e[i] - forces_a[i])
        if linear:  # [q]^T K [q], not a difference of two forces (the Python sub-step's)
            dq = q_e[f0:f1] - q_a[f0:f1]
            k_dq = sparse_product(*stiffness_f, dq)
            for i in range(n_f):
                potential += dq[i] * k_dq[i]
        else:
            for i in range(f0, f1):
                potential += (q_e[i] - q_a[i]) * (forces_e[i] - forces_a[i])
        numerical = (theta - 0.5) * (kinetic + potential)
    joints = (topology, stiffness_j, damping_j, rest_j)
    _end_energies(
        joints, mass, band, load, string_reference, q_e, u_e, t0, t1, f0, f1, power_f, scalars
    )
    state[0] = u_e
    state[1] = q_e
    contact[0, : 2 * m] = impulses
    contact[1, : 2 * m] = gamma_e
    parameter[0] = s_cur
    scalars[0] = DONE
    scalars[1] = m
    scalars[3] = residual
    scalars[4], scalars[5], scalars[6] = impact, friction, timing
    scalars[7], scalars[8], scalars[9] = dissipated, loads, numerical
    scalars[10] = strain
    drive_work = 0.0
    if n_b:
        j_u = _rows_times(jac[:n_d], u_theta)
        for i in range(n_d):
            drive_work += lam[i] * j_u[i]
    scalars[17] = drive_work
