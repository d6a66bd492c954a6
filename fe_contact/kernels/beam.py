"""Compiled geometry of linear Euler-Bernoulli beams (Lipinski (002), sec. 3) and the contact of
a profile with one: the curve r(s, q) = origin + s t0 + w(s) n0 at a material point, the closest
point (Bauchau (000), eq. 5 for a point), the contact kinematics of ``coupling.kinematics``
(gap, W_N, W_T, remainders), the record of a profile on a rigid line (``rigid_line_record``)
and the banded Cholesky solves of the structures' block.

The same formulas as ``structures.BeamStructure`` and ``coupling.kinematics.structure_contact``
(see their docstrings). ``beam_arrays`` packs the beams of a system into flat arrays: per beam
(``meta``) its first element, element count, first node and (``frame``) length, origin, t0, n0;
per element its left node x0, length, the system columns of its four shape functions (-1 for a
support) and their monomial coefficients in the local coordinate. ``diagonal_storage`` keeps
the structures' matrices also on their diagonals, where the products (``band_matvec``)
vectorise.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .curvature import hessian_core, remainder_slope
from .jit import inner

# fields of a contact record (``contact``): one float row per contact; H00, H01, H11 the core C
# of the gap's Hessian d^2 g / dq^2 = U C U^T (``coupling.kinematics.gap_hessian``, zero on a
# rigid line), whose columns U = [v, w] and the remainder gradient are the contact's ``hessian``
S, ELEMENT, PX, PY, QX, QY, NX, NY, TX, TY, GAP, VN, VT, REM, SRATE, REM_T, H00, H01, H11 = range(
    19
)
N_FIELDS = 19


def beam_arrays(structures, layout) -> tuple:
    """(meta (n_beams, 3) int, frame (n_beams, 7), nodes, x0, le, cols (n_el, 4) int,
    coef (n_el, 4, 4)) of the BeamStructures ``structures`` (name -> structure, all beams)."""
    meta, frame, nodes, x0, le, cols, coef = [], [], [], [], [], [], []
    n_el = n_nodes = 0
    for name, st in structures.items():  # whole arrays per beam (copies of the beam's own)
        beam = st.beam
        ne = beam.n_elements
        start = layout.structure(name).start
        meta.append((n_el, ne, n_nodes))
        frame.append((st.length, *beam.origin, *beam.t0, *beam.n0))
        at = np.asarray(beam.nodes, dtype=float)
        nodes.append(at)
        x0.append(at[:ne])
        le.append(np.asarray(beam.element_length, dtype=float)[:ne])
        local = np.asarray(st.free_index)[np.asarray(beam.element_dofs)[:ne]]
        cols.append(np.where(local >= 0, local + start, -1).reshape(ne, 4))
        coef.append(np.asarray(beam.coefficients, dtype=float)[:ne].reshape(ne, 4, 4))
        n_el += ne
        n_nodes += ne + 1

    def joined(parts, shape, dtype):
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(shape, dtype)

    return (
        np.array(meta, dtype=np.int64).reshape(-1, 3),
        np.array(frame, dtype=float).reshape(-1, 7),
        joined(nodes, (0,), float),
        joined(x0, (0,), float),
        joined(le, (0,), float),
        joined(cols, (0, 4), np.int64),
        joined(coef, (0, 4, 4), float),
    )


@inner
def _element(B, b, s):
    meta, nodes = B[0], B[2]
    e0, ne, n0 = meta[b, 0], meta[b, 1], meta[b, 2]
    local = np.searchsorted(nodes[n0 : n0 + ne + 1], s) - 1
    return e0 + min(max(local, 0), ne - 1)


@inner
def shape(B, e, j, s):
    """N_j, N_j', N_j'' of shape function j of element e at s (d/ds)."""
    x0, le, coef = B[3], B[4], B[6]
    L = le[e]
    z = (s - x0[e]) / L
    c0, c1, c2, c3 = coef[e, j, 0], coef[e, j, 1], coef[e, j, 2], coef[e, j, 3]
    return (
        c0 + z * (c1 + z * (c2 + z * c3)),
        (c1 + z * (2.0 * c2 + 3.0 * z * c3)) / L,
        (2.0 * c2 + 6.0 * z * c3) / (L * L),
    )


@inner
def fields(B, e, s, x):
    """w, w', w'' of element e at s on the system vector x (supports are zero)."""
    cols = B[5]
    w = 0.0
    wx = 0.0
    wxx = 0.0
    for j in range(4):
        c = cols[e, j]
        if c >= 0:
            N, Nx, Nxx = shape(B, e, j, s)
            w += N * x[c]
            wx += Nx * x[c]
            wxx += Nxx * x[c]
    return w, wx, wxx


@njit(cache=True)  # also called from Python
def local_curve(B, b, s, q):
    """r, r', r'' of beam b at s (clipped to [0, length]) as (rx, ry, ax, ay, cx, cy)."""
    frame = B[1]
    length = frame[b, 0]
    s = min(max(s, 0.0), length)
    e = _element(B, b, s)
    w, wx, wxx = fields(B, e, s, q)
    ox, oy, tx, ty = frame[b, 1], frame[b, 2], frame[b, 3], frame[b, 4]
    nx, ny = frame[b, 5], frame[b, 6]
    return (
        ox + s * tx + w * nx,
        oy + s * ty + w * ny,
        tx + wx * nx,
        ty + wx * ny,
        wxx * nx,
        wxx * ny,
    )


@njit(cache=True)
def closest(B, b, px, py, q, s_guess, tol):
    """Closest material point of beam b to (px, py): (s, inside) with ``inside`` False when it
    lies beyond an end (``Structure.closest``: the same iteration and end rule)."""
    frame, meta, nodes = B[1], B[0], B[2]
    length = frame[b, 0]
    if not np.isfinite(s_guess):
        n0, ne = meta[b, 2], meta[b, 1]
        best = np.inf
        s = 0.0
        for k in range(ne + 1):
            x = nodes[n0 + k]
            rx, ry, _, _, _, _ = local_curve(B, b, x, q)
            d = (rx - px) ** 2 + (ry - py) ** 2
            if d < best:
                best = d
                s = x
    else:
        s = min(max(s_guess, 0.0), length)
    scale = max(length, 1e-300)
    for _ in range(30):
        rx, ry, ax, ay, cx, cy = local_curve(B, b, s, q)
        dx = px - rx
        dy = py - ry
        f = dx * ax + dy * ay
        df = dx * cx + dy * cy - (ax * ax + ay * ay)
        if df >= 0.0:
            df = -(ax * ax + ay * ay)
        step = -f / df
        if abs(step) <= tol * scale:
            return s, True
        s_new = s + step
        if s_new < 0.0 or s_new > length:
            end = 0.0 if s_new < 0.0 else length
            rx, ry, ax, ay, _, _ = local_curve(B, b, end, q)
            beyond = end + ((px - rx) * ax + (py - ry) * ay) / (ax * ax + ay * ay)
            if 0.0 <= beyond <= length:
                return end, True
            return beyond, False
        s = s_new
    return s, True


@inner
def contact_frame(side, tsx, tsy, c, rx, ry):
    """(ns, n, t, d) of a contact on side ``side`` (+1 or -1) of a curve with unit tangent ts
    = (tsx, tsy) at r = (rx, ry): the curve's normal ns (ts turned by +90 degrees), the
    contact normal n = side ns, the contact tangent t (n turned by -90 degrees) and the
    distance vector d = c - r to the centre c, each as two floats."""
    nsx = -tsy
    nsy = tsx
    nx = side * nsx
    ny = side * nsy
    return nsx, nsy, nx, ny, ny, -nx, c[0] - rx, c[1] - ry


@njit(cache=True)
def contact(
    B, b, s, q, u, side, radius, c, cv, Jc, ac, jw, omega_body, n_tree, out, wn, wt, hessian
):
    """Contact kinematics of a profile (centre c, velocity cv, Jacobian Jc (2, n_tree),
    acceleration remainder ac, angular row jw, angular velocity omega_body) with beam b at s
    (``coupling.kinematics.structure_contact``): the record ``out`` (N_FIELDS,), the rows
    W_N, W_T (n,) and ``hessian`` (3, n) = (v, w, remainder gradient), filled in place.

    The gap's Hessian (``coupling.kinematics.gap_hessian``) on the beam, r = o + s t0 + w n0:
    the core C and D from ``kernels.curvature.hessian_core`` with a = |r'|, rho = n . d and
    kappa = n . r'' = w'' n . n0 (H00, H01, H11 of the record); the columns of
    ``kernels.curvature.hessian_columns`` with the beam's rows dr/dq = n0 N, dr'/dq = n0 N'
    (v = [r' . J_c / a^2, -(r' . n0) N / a^2], w = [0, (n . n0) N'], filled here without
    forming the rows); the remainder gradient (``ContactKinematics.remainder_gradient``) is
    ``kernels.curvature.remainder_slope`` times (n . n0) N'' on the element's columns."""
    frame, cols = B[1], B[5]
    length = frame[b, 0]
    s = min(max(s, 0.0), length)
    e = _element(B, b, s)
    w, wx, wxx = fields(B, e, s, q)
    ox, oy, t0x, t0y, n0x, n0y = (
        frame[b, 1],
        frame[b, 2],
        frame[b, 3],
        frame[b, 4],
        frame[b, 5],
        frame[b, 6],
    )
    rx = ox + s * t0x + w * n0x
    ry = oy + s * t0y + w * n0y
    ax = t0x + wx * n0x
    ay = t0y + wx * n0y
    bx = wxx * n0x
    by = wxx * n0y
    k = 1.0 / np.sqrt(1.0 + wx * wx)
    tsx = k * ax
    tsy = k * ay
    nsx, nsy, nx, ny, tx, ty, dx, dy = contact_frame(side, tsx, tsy, c, rx, ry)
    um, umx, _ = fields(B, e, s, u)
    relx = cv[0] - um * n0x
    rely = cv[1] - um * n0y
    for i in range(wn.size):
        wn[i] = 0.0
        wt[i] = 0.0
        hessian[0, i] = 0.0
        hessian[1, i] = 0.0
        hessian[2, i] = 0.0
    a2 = ax * ax + ay * ay
    for j in range(n_tree):
        wn[j] = nx * Jc[0, j] + ny * Jc[1, j]
        wt[j] = tx * Jc[0, j] + ty * Jc[1, j] + radius * jw[j]
        hessian[0, j] = (ax * Jc[0, j] + ay * Jc[1, j]) / a2
    nn = nx * n0x + ny * n0y
    tn = tx * n0x + ty * n0y
    an = ax * n0x + ay * n0y
    rho = nx * dx + ny * dy
    kappa = nx * bx + ny * by
    c00, c01, c11, D = hessian_core(a2, rho, kappa)
    vu = (ax * relx + ay * rely) / a2
    dA_dkappa = remainder_slope(a2, rho, D, vu, nn * umx)
    for j in range(4):
        col = cols[e, j]
        if col >= 0:
            N, Nx, Nxx = shape(B, e, j, s)
            wn[col] += -(nn * N)
            wt[col] += -(tn * N)
            hessian[0, col] += -(an * N) / a2
            hessian[1, col] += nn * Nx
            hessian[2, col] += dA_dkappa * (nn * Nxx)
    out[H00] = c00
    out[H01] = c01
    out[H11] = c11
    curve_record(
        side, radius, c, cv, ac, omega_body, s, e - B[0][b, 0], rx, ry, ax, ay, bx, by,
        tsx, tsy, relx, rely, umx * n0x, umx * n0y, out,
    )  # fmt: skip


@inner
def curve_record(
    side, radius, c, cv, ac, omega_body, s, element, rx, ry, ax, ay, bx, by, tsx, tsy, relx,
    rely, rsx, rsy, out,
):  # fmt: skip
    """The fields of a contact's record (``contact``) but the Hessian core, for a profile
    (centre c, velocity cv, acceleration remainder ac, angular velocity omega_body, radius)
    on side ``side`` of a structure's curve at its material point s in element ``element``
    (counted within the structure): r = (rx, ry), r' = (ax, ay), r'' = (bx, by), the unit
    tangent (tsx, tsy) = r'/|r'|, the velocity (relx, rely) of the centre relative to the
    material point and the slope's rate dr'/dt = (rsx, rsy). The rate s' of the contact
    point, the normal's rotation rate and the remainders A (normal row) and A_T (tangent row)
    as ``coupling.kinematics.structure_contact`` has them; the one copy for beams and
    strings."""
    nsx, nsy, nx, ny, tx, ty, dx, dy = contact_frame(side, tsx, tsy, c, rx, ry)
    a = np.hypot(ax, ay)
    s_rate = (a * (tsx * relx + tsy * rely) + (dx * rsx + dy * rsy)) / (a * a - (dx * bx + dy * by))
    omega = (nsx * (bx * s_rate + rsx) + nsy * (by * s_rate + rsy)) / a
    A = side * (
        (nsx * ac[0] + nsy * ac[1])
        - s_rate * (nsx * rsx + nsy * rsy)
        - omega * (tsx * relx + tsy * rely)
    )
    A_T = (tx * ac[0] + ty * ac[1]) - s_rate * (tx * rsx + ty * rsy)
    out[S] = s
    out[ELEMENT] = element
    out[PX] = rx
    out[PY] = ry
    out[QX] = c[0] - radius * nx
    out[QY] = c[1] - radius * ny
    out[NX] = nx
    out[NY] = ny
    out[TX] = tx
    out[TY] = ty
    out[GAP] = (nx * dx + ny * dy) - radius
    out[VN] = nx * relx + ny * rely
    out[VT] = (tx * relx + ty * rely) + radius * omega_body
    out[REM] = A
    out[SRATE] = s_rate
    out[REM_T] = A_T


@njit(cache=True)
def stick_row(B, b, s_star, tx, ty, q, c, Jc, ac, n_tree, row):
    """(phi, A) of the tangential row of a point sticking to beam b at its material point
    s_star with the tangent (tx, ty) of the onset (``coupling.constraints.StickAnchor``):
    phi = t* . (c - r(s*, q)); the row t* . J_c on the tree and -t* . dr/dq on the beam is
    written into ``row`` (n,); A = t* . a_c (r is linear in q)."""
    frame, cols = B[1], B[5]
    s = min(max(s_star, 0.0), frame[b, 0])
    e = _element(B, b, s)
    w, _, _ = fields(B, e, s, q)
    n0x, n0y = frame[b, 5], frame[b, 6]
    rx = frame[b, 1] + s * frame[b, 3] + w * n0x
    ry = frame[b, 2] + s * frame[b, 4] + w * n0y
    for k in range(row.size):
        row[k] = 0.0
    for j in range(n_tree):
        row[j] = tx * Jc[0, j] + ty * Jc[1, j]
    tn = tx * n0x + ty * n0y
    for j in range(4):
        col = cols[e, j]
        if col >= 0:
            N, _, _ = shape(B, e, j, s)
            row[col] += -(tn * N)
    return tx * (c[0] - rx) + ty * (c[1] - ry), tx * ac[0] + ty * ac[1]


@inner
def rigid_line_record(
    radius, c, cv, Jc, ac, jw, omega_body, nx, ny, px, py, vb, Jb, ab, n_tree, out, wn, wt
):
    """The contact record of a profile (as in ``contact``) on a rigid line (not a beam) through
    (px, py) with unit normal (nx, ny), fixed or carried by a translating body whose point there
    has the velocity vb, Jacobian Jb and acceleration remainder ab (zeros when fixed): the
    compiled twin of ``coupling.kinematics.line_contact``; fills ``out``, W_N and W_T in place."""
    tx = ny
    ty = -nx
    gap = nx * (c[0] - px) + ny * (c[1] - py) - radius
    vx = cv[0] - vb[0]
    vy = cv[1] - vb[1]
    rx = ac[0] - ab[0]
    ry = ac[1] - ab[1]
    for i in range(wn.size):
        wn[i] = 0.0
        wt[i] = 0.0
    for j in range(n_tree):
        jx = Jc[0, j] - Jb[0, j]
        jy = Jc[1, j] - Jb[1, j]
        wn[j] = nx * jx + ny * jy
        wt[j] = tx * jx + ty * jy + radius * jw[j]
    out[S] = np.nan
    out[ELEMENT] = -1.0
    out[PX] = c[0] - (gap + radius) * nx
    out[PY] = c[1] - (gap + radius) * ny
    out[QX] = c[0] - radius * nx
    out[QY] = c[1] - radius * ny
    out[NX] = nx
    out[NY] = ny
    out[TX] = tx
    out[TY] = ty
    out[GAP] = gap
    out[VN] = nx * vx + ny * vy
    out[VT] = (tx * vx + ty * vy) + radius * omega_body
    out[REM] = nx * rx + ny * ry
    out[SRATE] = 0.0
    out[REM_T] = tx * rx + ty * ry
    out[H00] = 0.0  # a straight rigid line: the gap is linear in the centre, no Hessian
    out[H01] = 0.0
    out[H11] = 0.0


# ---------------------------------------------------------------------------------------------
# The structures' block: sparse products and the banded Cholesky factor of G_f
# ---------------------------------------------------------------------------------------------


def csr_arrays(matrix) -> tuple:
    """(indptr, indices, data) of a sparse matrix in CSR form."""
    m = matrix.tocsr()
    return (
        np.ascontiguousarray(m.indptr, dtype=np.int64),
        np.ascontiguousarray(m.indices, dtype=np.int64),
        np.ascontiguousarray(m.data, dtype=float),
    )


def on_pattern(matrix, pattern) -> tuple:
    """(indptr, indices, data) of the sparse ``matrix`` on the sparsity pattern of
    ``pattern`` (CSR, holding every stored entry of ``matrix``; explicit zeros where matrix
    has none), indices sorted: matrices given on one pattern share indptr and indices
    (``csr_matvec2``)."""
    p = pattern.tocsr()
    if not p.has_sorted_indices:
        p = p.copy()
        p.sort_indices()
    rows = np.repeat(np.arange(p.shape[0]), np.diff(p.indptr))
    m = matrix.tocsr()
    data = np.zeros(0)
    if m.has_canonical_format and p.nnz:  # each entry once: placed by its (row, column) key
        n_col = max(p.shape[1], 1)
        keys = rows * n_col + p.indices
        stored = m.data != 0.0
        own = (np.repeat(np.arange(m.shape[0]), np.diff(m.indptr)) * n_col + m.indices)[stored]
        at = np.minimum(np.searchsorted(keys, own), keys.size - 1)
        if np.any(keys[at] != own):
            raise ValueError("on_pattern: the pattern does not hold every entry of the matrix")
        data = np.zeros(p.nnz)
        data[at] = m.data[stored]
    else:
        if p.nnz:
            data = np.asarray(m[rows, p.indices], dtype=float).ravel()
        if np.count_nonzero(data) != np.count_nonzero(matrix.tocoo().data):
            raise ValueError("on_pattern: the pattern does not hold every entry of the matrix")
    return (
        np.ascontiguousarray(p.indptr, dtype=np.int64),
        np.ascontiguousarray(p.indices, dtype=np.int64),
        np.ascontiguousarray(data),
    )


@njit(cache=True)
def csr_matvec2(A, B, x, y, out_a, out_b, offset):
    """out_a = A x[offset:] and out_b = B y[offset:] in one pass over the indices of the CSR
    triples A and B, which share their sparsity pattern (``on_pattern``); each sum in
    ``csr_matvec``'s order."""
    indptr, indices, a = A
    b = B[2]
    for i in range(indptr.size - 1):
        acc_a = 0.0
        acc_b = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            j = offset + indices[k]
            acc_a += a[k] * x[j]
            acc_b += b[k] * y[j]
        out_a[i] = acc_a
        out_b[i] = acc_b


@njit(cache=True)
def csr_matvec(A, x, out, offset):
    """out[i] = (A x[offset:])_i for the CSR triple A."""
    indptr, indices, data = A
    for i in range(indptr.size - 1):
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += data[k] * x[offset + indices[k]]
        out[i] = acc


# diagonal storage is used while the band holds at most this many slots per stored entry
# (Hermite beams: 7 slots per row for about 6 entries)
BAND_FILL = 2.0
# and for matrices of at least this many rows (below, the CSR products cost no more)
DIAGONALS_FROM = 64


def diagonal_storage(triples, n: int) -> np.ndarray:
    """The n x n matrices given as CSR triples on one sparsity pattern (``on_pattern``) on
    their diagonals: D (len(triples), 2 b + 1, n) with D[k, d, i] = A_k[i, i + d - b], b the
    pattern's half-bandwidth, zero outside A_k's pattern and the matrix; an empty
    (len(triples), 0, 0) when the band holds more than BAND_FILL slots per stored entry (then
    the CSR products stay: ``structure_product``)."""
    empty = np.zeros((len(triples), 0, 0))
    if not triples or n == 0:
        return empty
    indptr, indices = triples[0][0], triples[0][1]
    if indices.size == 0:
        return empty
    rows = np.repeat(np.arange(n), np.diff(indptr))
    b = int(np.max(np.abs(indices - rows)))
    if (2 * b + 1) * n > BAND_FILL * indices.size:
        return empty
    D = np.zeros((len(triples), 2 * b + 1, n))
    flat = D.reshape(len(triples), -1)  # a view: slot (d, i) at d n + i
    slots = (indices - rows + b) * n + rows
    for k, (_, _, data) in enumerate(triples):
        flat[k, slots] = data
    return D


@njit(cache=True)
def band_matvec(D, x, out, offset):
    """out[i] = (A x[offset:])_i for A on its diagonals D (2 b + 1, n) (``diagonal_storage``):
    each sum over the columns i - b .. i + b in ascending order, as ``csr_matvec`` sums the
    stored entries of a row (a slot outside the pattern adds an exact zero), one diagonal at a
    time over all rows, so that the loops vectorise without reordering any sum."""
    w, n = D.shape
    b = (w - 1) // 2
    for i in range(n):
        out[i] = 0.0
    for d in range(w):
        s = d - b
        lo = max(0, -s)
        hi = min(n, n - s)
        if hi <= lo:
            continue
        dv = D[d, lo:hi]
        xv = x[offset + lo + s : offset + hi + s]
        ov = out[lo:hi]
        for i in range(hi - lo):
            ov[i] += dv[i] * xv[i]


@njit(cache=True)
def band_matvec_rows(D, X, out, offset):
    """``band_matvec`` of each row of a batch of states: out[j] = A X[j, offset:offset + n]
    for the n x n matrix A on its diagonals D, in one call (the same sums as one row at a
    time).

    Parameters
    ----------
    D : ndarray, shape (2 b + 1, n)
        A on its diagonals (``diagonal_storage``).
    X : ndarray, shape (k, m)
        The states, m >= offset + n; each row contiguous.
    out : ndarray, shape (k, n)
        Filled in place.
    offset : int
        The column of X where A's columns start (a structure's first coordinate).

    Returns
    -------
    None

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[0.0, 1.0, 1.0], [2.0, 2.0, 2.0], [1.0, 1.0, 0.0]])  # tridiagonal
    >>> X = np.array([[9.0, 1.0, 0.0, 0.0], [9.0, 0.0, 1.0, 0.0]])
    >>> out = np.empty((2, 3))
    >>> band_matvec_rows(D, X, out, 1)
    >>> out.tolist()
    [[2.0, 1.0, 0.0], [1.0, 2.0, 1.0]]
    """
    for j in range(X.shape[0]):
        band_matvec(D, X[j], out[j], offset)


@njit(cache=True)
def structure_product(D, A, x, out, offset):
    """out = A x[offset:] for a matrix of the structures given as the CSR triple A and on its
    diagonals D (``diagonal_storage``; (0, 0): not kept): ``band_matvec`` where D is kept,
    else ``csr_matvec``, the same sums in the same order either way."""
    if D.shape[0] > 0:
        band_matvec(D, x, out, offset)
    else:
        csr_matvec(A, x, out, offset)


@njit(cache=True)
def band_solve(L, X):
    """Solve L L^T Y = X in place for the columns of X (n, k), one column after the other;
        L in scipy's lower banded form (bw + 1, n), C-contiguous, except that its first row holds
        the reciprocals of the diagonal (``steppers.compiled.Plan.factor``). O(n bw k); the
        bandwidth 3 of Hermite beams (two coordinates per node) keeps the last three values of
        the recursion in registers (``_band_solve_3``, four columns together in
    ``_band_solve_3_quad``, two in ``_band_solve_3_pair``: the same operations in the same
    order; each recursion is bound by its latency, so columns solved together cost about
    what one costs)."""
    bw = L.shape[0] - 1
    n, k = X.shape
    if bw == 3:
        j = 0
        while j + 4 <= k:  # four columns at a time: their recursions interleave
            _band_solve_3_quad(L, X, j)
            j += 4
        if j + 2 <= k:
            _band_solve_3_pair(L, X, j)
            j += 2
        if j < k:
            _band_solve_3(L, X, j)
        return
    for j in range(k):
        for i in range(n):
            acc = X[i, j]
            for k0 in range(max(0, i - bw), i):
                acc -= L[i - k0, k0] * X[k0, j]
            X[i, j] = acc * L[0, i]
        for i in range(n - 1, -1, -1):
            acc = X[i, j]
            for k0 in range(i + 1, min(n, i + bw + 1)):
                acc -= L[k0 - i, i] * X[k0, j]
            X[i, j] = acc * L[0, i]


@inner
def _band_solve_3(L, X, j):
    """``band_solve`` of column j for bandwidth 3: x1, x2, x3 hold the last three values
    (zero before the first row: their terms are then skipped, as in the general loop)."""
    n = X.shape[0]
    x1 = x2 = x3 = 0.0
    for i in range(n):
        acc = X[i, j]
        if i >= 3:
            acc -= L[3, i - 3] * x3
        if i >= 2:
            acc -= L[2, i - 2] * x2
        if i >= 1:
            acc -= L[1, i - 1] * x1
        x = acc * L[0, i]
        X[i, j] = x
        x3 = x2
        x2 = x1
        x1 = x
    x1 = x2 = x3 = 0.0
    for i in range(n - 1, -1, -1):
        acc = X[i, j]
        if i + 1 < n:
            acc -= L[1, i] * x1
        if i + 2 < n:
            acc -= L[2, i] * x2
        if i + 3 < n:
            acc -= L[3, i] * x3
        x = acc * L[0, i]
        X[i, j] = x
        x3 = x2
        x2 = x1
        x1 = x


@inner
def _band_solve_3_pair(L, X, j):
    """``_band_solve_3`` of the columns j and j + 1 together (x.. and y.. their last values)."""
    n = X.shape[0]
    x1 = x2 = x3 = 0.0
    y1 = y2 = y3 = 0.0
    for i in range(n):
        a = X[i, j]
        b = X[i, j + 1]
        if i >= 3:
            f = L[3, i - 3]
            a -= f * x3
            b -= f * y3
        if i >= 2:
            f = L[2, i - 2]
            a -= f * x2
            b -= f * y2
        if i >= 1:
            f = L[1, i - 1]
            a -= f * x1
            b -= f * y1
        d = L[0, i]
        x3, x2, x1 = x2, x1, a * d
        y3, y2, y1 = y2, y1, b * d
        X[i, j] = x1
        X[i, j + 1] = y1
    x1 = x2 = x3 = 0.0
    y1 = y2 = y3 = 0.0
    for i in range(n - 1, -1, -1):
        a = X[i, j]
        b = X[i, j + 1]
        if i + 1 < n:
            f = L[1, i]
            a -= f * x1
            b -= f * y1
        if i + 2 < n:
            f = L[2, i]
            a -= f * x2
            b -= f * y2
        if i + 3 < n:
            f = L[3, i]
            a -= f * x3
            b -= f * y3
        d = L[0, i]
        x3, x2, x1 = x2, x1, a * d
        y3, y2, y1 = y2, y1, b * d
        X[i, j] = x1
        X[i, j + 1] = y1


@inner
def _band_solve_3_quad(L, X, j):
    """``_band_solve_3`` of the columns j .. j + 3 together (a.., b.., c.., e.. their last
    values)."""
    n = X.shape[0]
    a1 = a2 = a3 = 0.0
    b1 = b2 = b3 = 0.0
    c1 = c2 = c3 = 0.0
    e1 = e2 = e3 = 0.0
    for i in range(n):
        a = X[i, j]
        b = X[i, j + 1]
        c = X[i, j + 2]
        e = X[i, j + 3]
        if i >= 3:
            f = L[3, i - 3]
            a -= f * a3
            b -= f * b3
            c -= f * c3
            e -= f * e3
        if i >= 2:
            f = L[2, i - 2]
            a -= f * a2
            b -= f * b2
            c -= f * c2
            e -= f * e2
        if i >= 1:
            f = L[1, i - 1]
            a -= f * a1
            b -= f * b1
            c -= f * c1
            e -= f * e1
        d = L[0, i]
        a3, a2, a1 = a2, a1, a * d
        b3, b2, b1 = b2, b1, b * d
        c3, c2, c1 = c2, c1, c * d
        e3, e2, e1 = e2, e1, e * d
        X[i, j] = a1
        X[i, j + 1] = b1
        X[i, j + 2] = c1
        X[i, j + 3] = e1
    a1 = a2 = a3 = 0.0
    b1 = b2 = b3 = 0.0
    c1 = c2 = c3 = 0.0
    e1 = e2 = e3 = 0.0
    for i in range(n - 1, -1, -1):
        a = X[i, j]
        b = X[i, j + 1]
        c = X[i, j + 2]
        e = X[i, j + 3]
        if i + 1 < n:
            f = L[1, i]
            a -= f * a1
            b -= f * b1
            c -= f * c1
            e -= f * e1
        if i + 2 < n:
            f = L[2, i]
            a -= f * a2
            b -= f * b2
            c -= f * c2
            e -= f * e2
        if i + 3 < n:
            f = L[3, i]
            a -= f * a3
            b -= f * b3
            c -= f * c3
            e -= f * e3
        d = L[0, i]
        a3, a2, a1 = a2, a1, a * d
        b3, b2, b1 = b2, b1, b * d
        c3, c2, c1 = c2, c1, c * d
        e3, e2, e1 = e2, e1, e * d
        X[i, j] = a1
        X[i, j + 1] = b1
        X[i, j + 2] = c1
        X[i, j + 3] = e1
