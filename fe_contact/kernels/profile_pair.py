"""Compiled kinematics of a pair of curved profiles (``coupling.profile_contact``, Bauchau
(000), secs. 2-5) for the compliant contacts of the compiled step (``kernels.compliant``)
and its unilateral pairs with rows (``kernels.evaluate.PAIR``, with the remainders of
``pair_remainders``).

Each side of the pair is a curve p0(eta) drawn in the frame of its body
(``coupling.frames.BodyFrame``): a tree body, a body carried by a linear beam at its material
point s (origin o = r(s, q), angle theta = atan2(r'(s, q)), rows N and N' / |r'|^2 of the
beam's shape functions), or the plane. A material point x of the body is at o + R x with the
Jacobian J_o + (R' x) j_theta (000 eq. 4). The candidate contact pair (eta_k, eta_l) is the
Newton solution of 000 eqs. (5)-(6) (``kernels.curves.pair_newton``) from the last one; when
there is none (or it fails) the global search of ``profile_contact`` comes first: the control
polygons' bounding boxes, then the nearest pair of 40 N samples per curve. The record is that
of ``profile_geometry.touching`` (or ``far_apart``): gap g = n_l . (Z_k - Z_l), n = n_l,
t = n turned by -90 degrees, W_N = n . (J_k - J_l), W_T = t . (J_k - J_l), the acceleration
remainders NaN (not needed by a compliant law without rolling).

``pairs``, the pressed tuple's part for them (``steppers.compiled_plan.pressed_arrays``):
frame kind (n_p, 2) int (per side: -1 the contact is not a profile pair, 0 a tree body, 1 a
body carried by a beam, 2 the plane), frame index (n_p, 2) int (the tree body or the beam),
frame s (n_p, 2) (the carried body's material point, m), curve (2 n_p, 4) int (per curve, the
profile's then the target's: first knot, knot count, first control point, degree), curve
range (2 n_p, 2) (a, b of eta's knot parameter), knots, control points (., 2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .beam import (
    ELEMENT,
    GAP,
    H00,
    N_FIELDS,
    NX,
    NY,
    PX,
    PY,
    QX,
    QY,
    REM,
    REM_T,
    SRATE,
    TX,
    TY,
    VN,
    VT,
    S,
    fields,
    local_curve,
    shape,
)
from .curves import FOUND, MAX_DERIVATIVE, curve_derivatives, pair_newton
from .jit import inner
from .tree import kinematics, point

# the record's field of the profile's parameter eta_k (a compliant contact has no Hessian
# core): ``ContactKinematics.profile_parameter``
ETA = H00
TREE, CARRIED, PLANE = 0, 1, 2


def spline_rows(sides, n_knots: int = 0, n_points: int = 0):
    """The rows the kernels read of the sides' B-splines, appended after n_knots knots and
    n_points control points already packed.

    Parameters
    ----------
    sides : sequence of Profile
        The sides whose ``curve.spline`` (knots, control points, degree, a, b) are packed.
    n_knots, n_points : int, optional
        The knots and control points of the curves packed before these (0 by default).

    Returns
    -------
    tuple
        ``(curves, ranges, knots, points, n_knots, n_points)``: per side (first knot, number
        of knots, first control point, degree) and its parameter range (a, b); the knot
        vectors and the (k, 2) control points; the counts after these sides.

    Examples
    --------
    A quadratic Bezier face (three control points, m) packed after 4 knots and 2 points:

    >>> from fe_contact.curves import Curve
    >>> from fe_contact.sides import Profile
    >>> face = Profile(0, Curve.bezier([(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)]))
    >>> curves, ranges, knots, points, nk, npt = spline_rows([face], 4, 2)
    >>> curves[0], points[0].shape, (nk, npt)
    ((4, 6, 2, 2), (3, 2), (10, 5))
    """
    curves, ranges, knots, points = [], [], [], []
    for side in sides:
        knot, control, degree, a, b = side.curve.spline
        curves.append((n_knots, len(knot), n_points, degree))
        ranges.append((a, b))
        knots.append(np.asarray(knot, dtype=float))
        points.append(np.asarray(control, dtype=float).reshape(-1, 2))
        n_knots += len(knot)
        n_points += len(points[-1])
    return curves, ranges, knots, points, n_knots, n_points


SAMPLES = 40  # per control point (``profile_geometry.SAMPLES``)


@inner
def frame(T, B, kind, index, s, q, u, ut, ang, rot, origin, omega, ov, terms):
    """(angle, origin (2,), velocity (2,), J_o (2, n), angular velocity, angular row (n,)) of
    a side's body frame (``coupling.frames.body_frame``); ut = u[:n_tree]."""
    nt = ut.size
    n = q.size
    jo = np.zeros((2, n))
    row = np.zeros(n)
    if kind == TREE:
        p, v, J, _ = point(T, index, 0.0, 0.0, ut, rot, origin, omega, ov, terms)
        A, rev = T[0], T[3]
        for k in range(nt):
            jo[0, k] = J[0, k]
            jo[1, k] = J[1, k]
            row[k] = A[index, k] * rev[k]
        w = 0.0
        for k in range(nt):
            w += row[k] * u[k]
        return ang[index], p, v, jo, w, row
    if kind == CARRIED:
        rx, ry, sx, sy, _, _ = local_curve(B, index, s, q)
        frame_b, cols = B[1], B[5]
        nx, ny = frame_b[index, 5], frame_b[index, 6]
        e = _element_at(B, index, s)
        size2 = sx * sx + sy * sy
        v = np.zeros(2)
        rate_x = 0.0
        rate_y = 0.0
        for j in range(4):
            c = cols[e, j]
            if c < 0:
                continue
            N, Nx, _ = shape(B, e, j, s)
            jo[0, c] += N * nx
            jo[1, c] += N * ny
            v[0] += N * nx * u[c]
            v[1] += N * ny * u[c]
            rate_x += Nx * nx * u[c]
            rate_y += Nx * ny * u[c]
            row[c] += (sx * Nx * ny - sy * Nx * nx) / size2
        w = (sx * rate_y - sy * rate_x) / size2
        return np.arctan2(sy, sx), np.array([rx, ry]), v, jo, w, row
    return 0.0, np.zeros(2), np.zeros(2), jo, 0.0, row


@inner
def _element_at(B, b, s):
    """The element of beam b that holds s (``kernels.beam``'s choice: the left one at a
    node)."""
    meta, nodes = B[0], B[2]
    e0, ne, n0 = meta[b, 0], meta[b, 1], meta[b, 2]
    s = min(max(s, 0.0), B[1][b, 0])
    local = np.searchsorted(nodes[n0 : n0 + ne + 1], s) - 1
    return e0 + min(max(local, 0), ne - 1)


@inner
def _curve(pairs, c):
    """(knots, control points, degree, a, b) of curve c of the pairs' table."""
    meta, ab, knots, points = pairs[3], pairs[4], pairs[5], pairs[6]
    k0, nk, p0, degree = meta[c, 0], meta[c, 1], meta[c, 2], meta[c, 3]
    return knots[k0 : k0 + nk], points[p0 : p0 + nk - degree - 1], degree, ab[c, 0], ab[c, 1]


@inner
def _box(points, angle, ox, oy):
    """(x min, y min, x max, y max) of the control points turned by ``angle``, moved by o."""
    c, s = np.cos(angle), np.sin(angle)
    lo = np.array([np.inf, np.inf])
    hi = np.array([-np.inf, -np.inf])
    for i in range(points.shape[0]):
        x = points[i, 0] * c - points[i, 1] * s + ox
        y = points[i, 0] * s + points[i, 1] * c + oy
        lo[0], lo[1] = min(lo[0], x), min(lo[1], y)
        hi[0], hi[1] = max(hi[0], x), max(hi[1], y)
    return lo, hi


@inner
def _samples(curve, angle, origin):
    """``profile_geometry.world_samples``: (eta (m,), Z (m, 2))."""
    knots, points, degree, a, b = curve
    eta = np.linspace(0.0, 1.0, SAMPLES * points.shape[0] + 1)
    c, s = np.cos(angle), np.sin(angle)
    out = np.empty((MAX_DERIVATIVE + 1, 2))
    z = np.empty((eta.size, 2))
    for i in range(eta.size):
        curve_derivatives(knots, points, degree, a, b, eta[i], out)
        z[i, 0] = out[0, 0] * c + out[0, 1] * -s + origin[0]
        z[i, 1] = out[0, 0] * s + out[0, 1] * c + origin[1]
    return eta, z


@inner
def _search(ck, ak, ok, cl, al, ol):
    """The nearest pair of sampled points (eta_k, eta_l) (``profile_contact._search``)."""
    ek, zk = _samples(ck, ak, ok)
    el, zl = _samples(cl, al, ol)
    best = np.inf
    bi = 0
    bj = 0
    for i in range(ek.size):
        for j in range(el.size):
            dx = zk[i, 0] - zl[j, 0]
            dy = zk[i, 1] - zl[j, 1]
            d2 = dx * dx + dy * dy
            if d2 < best:
                best, bi, bj = d2, i, j
    return ek[bi], el[bj]


@inner
def _newton(ck, ak, ok, cl, al, ol, eta_k, eta_l):
    kk, pk, dk, a_k, b_k = ck
    kl, pl, dl, a_l, b_l = cl
    return pair_newton(
        kk, pk, dk, a_k, b_k, ak, ok, kl, pl, dl, a_l, b_l, al, ol, eta_k, eta_l, 1e-13
    )


@inner
def _far_apart(distance, out):
    """``profile_geometry.far_apart``: an open pair ``distance`` apart (rows zero)."""
    out[:] = 0.0
    for f in (S, PX, PY, QX, QY, NX, NY, TX, TY, ETA):
        out[f] = np.nan
    out[ELEMENT] = -1.0
    out[GAP] = distance


@inner
def pair_record(T, B, pairs, i, q, u, ut, kin, guess_k, guess_l, out, wn, wt):
    """The record (``kernels.beam.N_FIELDS``, eta_k in ``ETA``), W_N and W_T (n,) of profile
    pair i at (q, u) into out, wn, wt (``coupling.profile_contact._build`` and
    ``curved_contact`` without remainders); kin: (angle, rot, origin, omega, ov, terms) of ``kernels.tree.kinematics``, ut = u[:n_tree];
    the Newton solve starts from (guess_k, guess_l) (NaN: the global search). Returns 0, or
    1 when the pair has no contact point (the Python step then reports it)."""
    ang, rot, origin, omega, ov, terms = kin
    kind, index, s_at = pairs[0], pairs[1], pairs[2]
    ak, ok, vk0, jk0, wk, rowk = frame(
        T, B, kind[i, 0], index[i, 0], s_at[i, 0], q, u, ut, ang, rot, origin, omega, ov, terms
    )
    al, ol, vl0, jl0, wl, rowl = frame(
        T, B, kind[i, 1], index[i, 1], s_at[i, 1], q, u, ut, ang, rot, origin, omega, ov, terms
    )
    ck = _curve(pairs, 2 * i)
    cl = _curve(pairs, 2 * i + 1)
    found = False
    eta_k = eta_l = np.nan
    if np.isfinite(guess_k) and np.isfinite(guess_l):
        st, eta_k, eta_l = _newton(ck, ak, ok, cl, al, ol, guess_k, guess_l)
        found = st == FOUND
        if not found:  # lost the warm start: the global search (``closest_pair``)
            sk, sl = _search(ck, ak, ok, cl, al, ol)
            st, eta_k, eta_l = _newton(ck, ak, ok, cl, al, ol, sk, sl)
            found = st == FOUND
    if not found:  # afresh (``_build`` without a guess): far apart, or search and Newton
        lo_k, hi_k = _box(ck[1], ak, ok[0], ok[1])
        lo_l, hi_l = _box(cl[1], al, ol[0], ol[1])
        gx = max(max(lo_k[0] - hi_l[0], lo_l[0] - hi_k[0]), 0.0)
        gy = max(max(lo_k[1] - hi_l[1], lo_l[1] - hi_k[1]), 0.0)
        box = np.hypot(gx, gy)
        if box > 0.0:
            _far_apart(box, out)
            wn[:] = 0.0
            wt[:] = 0.0
            return 0
        sk, sl = _search(ck, ak, ok, cl, al, ol)
        st, eta_k, eta_l = _newton(ck, ak, ok, cl, al, ol, sk, sl)
        if st != FOUND:
            return 1
    d = np.empty((MAX_DERIVATIVE + 1, 2))
    # the profile's material point (``BodyFrame.point``)
    curve_derivatives(ck[0], ck[1], ck[2], ck[3], ck[4], eta_k, d)
    c, s = np.cos(ak), np.sin(ak)
    xk0 = c * d[0, 0] - s * d[0, 1]
    xk1 = s * d[0, 0] + c * d[0, 1]
    # the target's point, its unit tangent and outward normal (``Curve.at``) in the plane
    curve_derivatives(cl[0], cl[1], cl[2], cl[3], cl[4], eta_l, d)
    cl_, sl_ = np.cos(al), np.sin(al)
    xl0 = cl_ * d[0, 0] - sl_ * d[0, 1]
    xl1 = sl_ * d[0, 0] + cl_ * d[0, 1]
    speed = np.hypot(d[1, 0], d[1, 1])
    tx, ty = d[1, 0] / speed, d[1, 1] / speed
    nx = cl_ * ty - sl_ * -tx
    ny = sl_ * ty + cl_ * -tx
    zk0, zk1 = ok[0] + xk0, ok[1] + xk1
    zl0, zl1 = ol[0] + xl0, ol[1] + xl1
    # velocities v_o + w R' x (R' x = (-x1, x0)) and the relative one
    rvx = (vk0[0] + wk * -xk1) - (vl0[0] + wl * -xl1)
    rvy = (vk0[1] + wk * xk0) - (vl0[1] + wl * xl0)
    gap = nx * (zk0 - zl0) + ny * (zk1 - zl1)
    tgx, tgy = ny, -nx
    for k in range(q.size):
        jx = (jk0[0, k] + -xk1 * rowk[k]) - (jl0[0, k] + -xl1 * rowl[k])
        jy = (jk0[1, k] + xk0 * rowk[k]) - (jl0[1, k] + xl0 * rowl[k])
        wn[k] = nx * jx + ny * jy
        wt[k] = tgx * jx + tgy * jy
    out[:] = 0.0
    out[S] = eta_l
    out[ELEMENT] = -1.0
    out[PX], out[PY] = zl0, zl1
    out[QX], out[QY] = zk0, zk1
    out[NX], out[NY] = nx, ny
    out[TX], out[TY] = tgx, tgy
    out[GAP] = gap
    out[VN] = nx * rvx + ny * rvy
    out[VT] = tgx * rvx + tgy * rvy
    out[REM] = np.nan
    out[SRATE] = np.nan
    out[REM_T] = np.nan
    out[ETA] = eta_k
    return 0


@njit(cache=True)
def pair_kinematics(T, B, pairs, i, q, u, n_tree, guess_k, guess_l, step):
    """``pair_record`` called from Python: (status, record (``kernels.beam.N_FIELDS``,),
    W_N (n,), W_T (n,)) of profile pair i at (q, u) (the tree's coordinates q[:n_tree]), the
    Newton solve started from (guess_k, guess_l) (NaN: the global search); status 0, or 1
    when the pair has no contact point. With a ``step`` (n,) also the normal and slip
    velocities at (q + step, u) and (q - step, u), each solved from the contact point found at
    q (the central differences of ``coupling.profile_contact.curved_contact``).

    Parameters
    ----------
    T, B : tuple
        The tree's (``kernels.tree.tree_arrays``) and the beams' (``kernels.beam.beam_arrays``)
        constant arrays.
    pairs : tuple
        The profile pairs' arrays (module docstring).
    i : int
        The pair's row in ``pairs``.
    q, u : ndarray, shape (n,)
        The state.
    n_tree : int
        The tree's coordinates (the first of q).
    guess_k, guess_l : float
        The last eta_k and eta_l, or NaN.
    step : ndarray, shape (n,) or (0,)
        The displacement of the central differences, or none.

    Returns
    -------
    status : int
    record : ndarray, shape (N_FIELDS,)
        Gap, normal, points, velocities, eta_l in ``S`` and eta_k in ``ETA``.
    w_normal, w_tangent : ndarray, shape (n,)
    rates : ndarray, shape (4,)
        (v_n, v_t) at q + step, then at q - step, m/s; NaN where not computed or without a
        contact point there.
    """
    qt = q[:n_tree].copy()
    ut = u[:n_tree].copy()
    ang, rot, origin, _, omega, ov, terms = kinematics(T, qt, ut)
    record = np.zeros(N_FIELDS)
    wn = np.zeros(q.size)
    wt = np.zeros(q.size)
    kin = (ang, rot, origin, omega, ov, terms)
    status = pair_record(T, B, pairs, i, q, u, ut, kin, guess_k, guess_l, record, wn, wt)
    rates = np.full(4, np.nan)
    if status != 0 or step.size == 0 or np.isnan(record[ETA]):
        return status, record, wn, wt, rates
    pair_rates(T, B, pairs, i, q, u, ut, n_tree, record, step, rates)
    return status, record, wn, wt, rates


@inner
def pair_rates(T, B, pairs, i, q, u, ut, n_tree, record, step, rates):
    """(v_n, v_t) of profile pair i at (q + step, u), then at (q - step, u), into rates (4,),
    each solved from the contact point of its record at q (eta_k in ``ETA``, eta_l in ``S``);
    left as they are (NaN) where there is no contact point: the central differences of
    ``coupling.profile_contact.curved_contact`` and of a rolling row's remainder
    (``kernels.compliant.rolling_rows``). ut = u[:n_tree]."""
    moved = np.zeros(N_FIELDS)
    wn = np.zeros(q.size)
    wt = np.zeros(q.size)
    for j in range(2):
        qs = q + step if j == 0 else q - step
        qt = qs[:n_tree].copy()
        ang, rot, origin, _, omega, ov, terms = kinematics(T, qt, ut)
        kin = (ang, rot, origin, omega, ov, terms)
        eta_k, eta_l = record[ETA], record[S]
        if pair_record(T, B, pairs, i, qs, u, ut, kin, eta_k, eta_l, moved, wn, wt):
            continue
        if not np.isnan(moved[ETA]):  # not the boxes' distance (``_kernel_build``)
            rates[2 * j] = moved[VN]
            rates[2 * j + 1] = moved[VT]


@inner
def pair_remainders(T, B, pairs, i, q, u, ut, n_tree, record):
    """The acceleration remainders A = d(W_N)/dt u and A_T = d(W_T)/dt u of profile pair i at
    (q, u) into its record's ``REM`` and ``REM_T`` (its contact point from ``pair_record``):
    the central differences of ``coupling.profile_contact.curved_contact`` (the normal and
    slip velocities at q +- eps u, ``pair_rates``, eps = 1e-6 / max|u|; zero for u = 0, NaN
    where a side has no contact point). ut = u[:n_tree]."""
    n = q.size
    size = 0.0
    for k in range(n):
        size = max(size, abs(u[k]))
    if size == 0.0:
        record[REM] = 0.0
        record[REM_T] = 0.0
        return
    tiny = size < 1e-290  # 1e-6 / size would overflow
    eps = 1e-6 if tiny else 1e-6 / size
    step = np.empty(n)
    for k in range(n):
        step[k] = eps * (u[k] / size) if tiny else eps * u[k]
    rates = np.full(4, np.nan)
    pair_rates(T, B, pairs, i, q, u, ut, n_tree, record, step, rates)
    scale = size / 2e-6 if tiny else 1.0 / (2.0 * eps)
    record[REM] = (rates[0] - rates[2]) * scale if tiny else (rates[0] - rates[2]) / (2.0 * eps)
    record[REM_T] = (rates[1] - rates[3]) * scale if tiny else (rates[1] - rates[3]) / (2.0 * eps)


# ---------------------------------------------------------------------------------------------
# A profile against a linear beam's deformed centre line (``coupling.profile_structure``)
# ---------------------------------------------------------------------------------------------

# outcomes of ``centre_line_record``: a contact point found, none (parallel flats, an end of
# the profile or of the beam), or the profile's control polygon apart from the centre line's
# samples (the record's gap is the boxes' distance, eta NaN: an open pair)
LINE_FOUND, LINE_NONE, LINE_APART = 0, 1, 2
LINE_SAMPLES = 8  # centre-line samples per element (``profile_structure._PER_ELEMENT``)


def line_arrays(kind: int, index: int, s: float, curve, beam: int, side: float, samples):
    """The arguments ``line`` of ``centre_line_record`` for a profile against a linear beam.

    Parameters
    ----------
    kind, index : int
        The profile's body frame (``TREE``, ``CARRIED`` or ``PLANE``) and its tree body or
        carrying beam (the beam's row of ``kernels.beam.beam_arrays``).
    s : float
        The carried body's material point on its beam, m (0 for the other frames).
    curve : Curve
        The profile's curve in its body frame.
    beam : int
        The target beam's row of ``kernels.beam.beam_arrays``.
    side : float
        The pair's side: the normal is side times the centre line's normal (its tangent
        turned by +90 degrees).
    samples : array_like, shape (m,)
        The material points of the centre line's samples, m (``System.centre_line_samples``:
        8 per element).

    Returns
    -------
    tuple
        (kind, index, s, knots, control points (k, 2), degree, a, b, beam, side, samples).

    Examples
    --------
    >>> from fe_contact.curves import Curve
    >>> pad = Curve.bezier([(-0.01, -0.008), (0.0, -0.012), (0.01, -0.008)])
    >>> line = line_arrays(CARRIED, 0, 0.3, pad, 1, -1.0, [0.0, 0.1, 0.2])
    >>> line[0] == CARRIED, line[4].shape, line[5], line[10].tolist()
    (True, (3, 2), 2, [0.0, 0.1, 0.2])
    """
    knots, control, degree, a, b = curve.spline
    return (
        int(kind),
        int(index),
        float(s),
        np.ascontiguousarray(knots, dtype=float),
        np.ascontiguousarray(np.reshape(control, (-1, 2)), dtype=float),
        int(degree),
        float(a),
        float(b),
        int(beam),
        float(side),
        np.ascontiguousarray(samples, dtype=float),
    )


@inner
def _line_world(line, angle, origin, eta, d):
    """(Z, T, T') (000 eq. 4) of the profile's point eta in its body frame (angle, origin),
    each (2,): ``profile_geometry.world_point``."""
    knots, points, degree, a, b = line[3], line[4], line[5], line[6], line[7]
    curve_derivatives(knots, points, degree, a, b, eta, d)
    c, s = np.cos(angle), np.sin(angle)
    z = np.array([c * d[0, 0] - s * d[0, 1] + origin[0], s * d[0, 0] + c * d[0, 1] + origin[1]])
    t = np.array([c * d[1, 0] - s * d[1, 1], s * d[1, 0] + c * d[1, 1]])
    t1 = np.array([c * d[2, 0] - s * d[2, 1], s * d[2, 0] + c * d[2, 1]])
    return z, t, t1


@inner
def _line_samples(B, line, q):
    """The centre line's sample points (m, 2) at q and their slopes by ``np.gradient``'s
    differences over the samples' material points (second order inside, first at the ends)."""
    beam, s = line[8], line[10]
    m = s.size
    points = np.empty((m, 2))
    for i in range(m):
        rx, ry, _, _, _, _ = local_curve(B, beam, s[i], q)
        points[i, 0], points[i, 1] = rx, ry
    slope = np.empty((m, 2))
    for c in range(2):
        slope[0, c] = (points[1, c] - points[0, c]) / (s[1] - s[0])
        slope[m - 1, c] = (points[m - 1, c] - points[m - 2, c]) / (s[m - 1] - s[m - 2])
        for i in range(1, m - 1):
            hd, hs = s[i] - s[i - 1], s[i + 1] - s[i]
            slope[i, c] = (
                hd * hd * points[i + 1, c]
                + (hs * hs - hd * hd) * points[i, c]
                - hs * hs * points[i - 1, c]
            ) / (hs * hd * (hd + hs))
    return points, slope


@inner
def _line_start(B, line, angle, origin, q):
    """(eta, s) of the profile sample of least signed distance side n . (Z - r) to its
    nearest centre-line sample, and that sample's s (``profile_structure._global_start``)."""
    side, s = line[9], line[10]
    curve = (line[3], line[4], line[5], line[6], line[7])
    eta, z = _samples(curve, angle, origin)
    points, slope = _line_samples(B, line, q)
    best = np.inf
    eta0 = s0 = 0.0
    for i in range(eta.size):
        near = np.inf
        j = 0
        for k in range(s.size):
            dx = z[i, 0] - points[k, 0]
            dy = z[i, 1] - points[k, 1]
            d2 = dx * dx + dy * dy
            if d2 < near:
                near, j = d2, k
        nx, ny = -slope[j, 1], slope[j, 0]
        size = np.hypot(nx, ny)
        signed = side * (
            (nx / size) * (z[i, 0] - points[j, 0]) + (ny / size) * (z[i, 1] - points[j, 1])
        )
        if signed < best:
            best, eta0, s0 = signed, eta[i], s[j]
    return eta0, s0


@inner
def _line_apart(B, line, angle, origin, q):
    """The distance of the boxes of the profile's control polygon and of the centre line's
    samples (0 when they overlap: ``profile_geometry.box_distance``)."""
    lo_k, hi_k = _box(line[4], angle, origin[0], origin[1])
    points, _ = _line_samples(B, line, q)
    lo_x, lo_y, hi_x, hi_y = np.inf, np.inf, -np.inf, -np.inf
    for i in range(points.shape[0]):
        lo_x, lo_y = min(lo_x, points[i, 0]), min(lo_y, points[i, 1])
        hi_x, hi_y = max(hi_x, points[i, 0]), max(hi_y, points[i, 1])
    gx = max(max(lo_k[0] - hi_x, lo_x - hi_k[0]), 0.0)
    gy = max(max(lo_k[1] - hi_y, lo_y - hi_k[1]), 0.0)
    return np.hypot(gx, gy)


@inner
def _line_newton(B, line, angle, origin, q, eta, s, tol):
    """(found, eta, s) of the candidate contact point from (eta, s): Newton on the two
    orthogonality conditions with T_l = r', T_l' = r'' (``profile_structure
    .closest_on_structure``: 40 iterations, steps damped to a tenth of the ranges, the end
    rule, accepted with the profile's outward normal against n)."""
    beam, side = line[8], line[9]
    length = B[1][beam, 0]
    scale = max(length, 1e-300)
    d = np.empty((MAX_DERIVATIVE + 1, 2))
    x0, x1 = eta, s / scale
    for _ in range(40):
        zk, tk, tk1 = _line_world(line, angle, origin, x0, d)
        rx, ry, ax, ay, cx, cy = local_curve(B, beam, x1 * scale, q)
        dx, dy = zk[0] - rx, zk[1] - ry
        f0 = tk[0] * ay - tk[1] * ax
        f1 = dx * ax + dy * ay
        j00 = tk1[0] * ay - tk1[1] * ax
        j01 = (tk[0] * cy - tk[1] * cx) * scale
        j10 = tk[0] * ax + tk[1] * ay
        j11 = (dx * cx + dy * cy - (ax * ax + ay * ay)) * scale
        det = j00 * j11 - j01 * j10
        size_k = tk[0] * tk[0] + tk[1] * tk[1]
        size_l = ax * ax + ay * ay
        if not abs(det) > 1e-12 * size_k * size_l * scale:
            break  # parallel flats: no isolated candidate pair
        # the 2 x 2 solve with partial pivoting (LAPACK's getrf / getrs)
        if abs(j10) > abs(j00):
            r = j00 / j10
            step1 = (f0 - r * f1) / (j01 - r * j11)
            step0 = (f1 - j11 * step1) / j10
        else:
            r = j10 / j00
            step1 = (f1 - r * f0) / (j11 - r * j01)
            step0 = (f0 - j01 * step1) / j00
        size = max(abs(step0), abs(step1))
        if size > 0.1:  # damped: a tenth of the ranges per iteration at most
            step0 *= 0.1 / size
            step1 *= 0.1 / size
        n0, n1 = x0 - step0, x1 - step1
        if min(n0, n1) < -1e-9 or max(n0, n1) > 1.0 + 1e-9:
            n0, n1 = min(max(n0, 0.0), 1.0), min(max(n1, 0.0), 1.0)
            if abs(n0 - x0) <= tol and abs(n1 - x1) <= tol:
                break  # pushed past an end of the profile or of the beam
        if max(abs(n0 - x0), abs(n1 - x1)) <= tol:
            if side * j10 > 0.0:  # the profile's outward normal against n
                return True, n0, n1 * scale
            break
        x0, x1 = n0, n1
    return False, np.nan, np.nan


@inner
def centre_line_record(T, B, line, q, u, ut, kin, guess_eta, guess_s, out, wn, wt):
    """The record (``kernels.beam.N_FIELDS``: s, element, the beam's point in ``PX``, ``PY``,
    the profile's in ``QX``, ``QY``, n, t, gap, v_n, v_t, eta in ``ETA``), W_N and W_T (n,)
    of a profile against a linear beam's centre line at (q, u) into out, wn, wt
    (``coupling.profile_structure.structure_build``; ``line`` of ``line_arrays``): from the
    warm start (guess_eta, guess_s), then the global start; without one (NaN) the boxes'
    test first. n = side times the centre line's normal at s, g = n . (Z_k - r(s)), t = n
    turned by -90 degrees, W_N = n . (J_k - J_l), W_T = t . (J_k - J_l) with J_l the beam's
    shape-function rows at s. kin: ``kernels.tree.kinematics`` without r; ut = u[:n_tree].
    Returns ``LINE_FOUND``, ``LINE_NONE`` or ``LINE_APART`` (the boxes' distance in
    out[GAP], eta NaN)."""
    ang, rot, origin, omega, ov, terms = kin
    kind, index, s_at, beam, side = line[0], line[1], line[2], line[8], line[9]
    ak, ok, vk0, jk0, wk, rowk = frame(
        T, B, kind, index, s_at, q, u, ut, ang, rot, origin, omega, ov, terms
    )
    found = False
    eta = s = np.nan
    if np.isfinite(guess_eta) and np.isfinite(guess_s):
        found, eta, s = _line_newton(B, line, ak, ok, q, guess_eta, guess_s, 1e-13)
    else:
        box = _line_apart(B, line, ak, ok, q)
        if box > 0.0:
            _far_apart(box, out)
            wn[:] = 0.0
            wt[:] = 0.0
            return LINE_APART
    if not found:
        e0, s0 = _line_start(B, line, ak, ok, q)
        found, eta, s = _line_newton(B, line, ak, ok, q, e0, s0, 1e-13)
    if not found:
        return LINE_NONE
    d = np.empty((MAX_DERIVATIVE + 1, 2))
    _line_world(line, ak, ok, eta, d)  # p0(eta) in d[0]; R p0 as ``BodyFrame.point``
    c, sn = np.cos(ak), np.sin(ak)
    xk0 = c * d[0, 0] - sn * d[0, 1]
    xk1 = sn * d[0, 0] + c * d[0, 1]
    zk0, zk1 = ok[0] + xk0, ok[1] + xk1
    # the beam's material point s (``BeamStructure.curve``)
    frame_b, cols = B[1], B[5]
    s = min(max(s, 0.0), frame_b[beam, 0])
    e = _element_at(B, beam, s)
    w, wx, _ = fields(B, e, s, q)
    ox, oy, tx0, ty0 = frame_b[beam, 1], frame_b[beam, 2], frame_b[beam, 3], frame_b[beam, 4]
    nx0, ny0 = frame_b[beam, 5], frame_b[beam, 6]
    rx, ry = ox + s * tx0 + w * nx0, oy + s * ty0 + w * ny0
    k = 1.0 / np.sqrt(1.0 + wx * wx)
    tx, ty = k * (tx0 + wx * nx0), k * (ty0 + wx * ny0)
    nx, ny = side * -ty, side * tx
    tgx, tgy = ny, -nx
    jl = np.zeros((2, q.size))
    vl0 = 0.0
    vl1 = 0.0
    for j in range(4):
        col = cols[e, j]
        if col < 0:
            continue
        N = shape(B, e, j, s)[0]
        jl[0, col] += nx0 * N
        jl[1, col] += ny0 * N
        vl0 += nx0 * N * u[col]
        vl1 += ny0 * N * u[col]
    rvx = (vk0[0] + wk * -xk1) - vl0
    rvy = (vk0[1] + wk * xk0) - vl1
    for i in range(q.size):
        jx = (jk0[0, i] + -xk1 * rowk[i]) - jl[0, i]
        jy = (jk0[1, i] + xk0 * rowk[i]) - jl[1, i]
        wn[i] = nx * jx + ny * jy
        wt[i] = tgx * jx + tgy * jy
    out[:] = 0.0
    out[S] = s
    out[ELEMENT] = e - B[0][beam, 0]
    out[PX], out[PY] = rx, ry
    out[QX], out[QY] = zk0, zk1
    out[NX], out[NY] = nx, ny
    out[TX], out[TY] = tgx, tgy
    out[GAP] = nx * (zk0 - rx) + ny * (zk1 - ry)
    out[VN] = nx * rvx + ny * rvy
    out[VT] = tgx * rvx + tgy * rvy
    out[REM] = np.nan
    out[SRATE] = np.nan
    out[REM_T] = np.nan
    out[ETA] = eta
    return LINE_FOUND


@inner
def centre_line_contact(T, B, line, q, u, n_tree, guess, out, wn, wt):
    """``centre_line_record`` from the warm start guess (2,) = (eta, s), NaN for none, which
    it moves as ``coupling.profile_contact.curved_contact`` keeps the run's: to the point
    found; a warm start that finds none is dropped (NaN) and the pair searched afresh.
    Returns the outcome; the tree's coordinates are q[:n_tree]."""
    qt = q[:n_tree].copy()
    ut = u[:n_tree].copy()
    ang, rot, origin, _, omega, ov, terms = kinematics(T, qt, ut)
    kin = (ang, rot, origin, omega, ov, terms)
    status = centre_line_record(T, B, line, q, u, ut, kin, guess[0], guess[1], out, wn, wt)
    if status == LINE_NONE and np.isfinite(guess[0]):
        guess[0] = guess[1] = np.nan
        status = centre_line_record(T, B, line, q, u, ut, kin, np.nan, np.nan, out, wn, wt)
    if status == LINE_FOUND:
        guess[0], guess[1] = out[ETA], out[S]
    return status


@njit(cache=True)
def centre_line_kinematics(T, B, line, q, u, n_tree, guess):
    """``centre_line_contact`` called from Python.

    Parameters
    ----------
    T, B : tuple
        The tree's (``kernels.tree.tree_arrays``) and the beams' (``kernels.beam.beam_arrays``)
        constant arrays.
    line : tuple
        The pair's arrays (``line_arrays``).
    q, u : ndarray, shape (n,)
        The state.
    n_tree : int
        The tree's coordinates (the first of q).
    guess : ndarray, shape (2,)
        The warm start (eta, s), NaN for none; moved to the point found (written).

    Returns
    -------
    status : int
        ``LINE_FOUND``, ``LINE_NONE`` or ``LINE_APART``.
    record : ndarray, shape (N_FIELDS,)
    w_normal, w_tangent : ndarray, shape (n,)

    Examples
    --------
    See ``tests/test_moreau_two_beams_compiled.py``: the record against
    ``coupling.profile_contact.curved_contact`` on the two beams of
    ``examples/plot_two_beams.py``.
    """
    record = np.zeros(N_FIELDS)
    wn = np.zeros(q.size)
    wt = np.zeros(q.size)
    status = centre_line_contact(T, B, line, q, u, n_tree, guess, record, wn, wt)
    return status, record, wn, wt
