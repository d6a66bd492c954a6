"""Compiled (numba) kernels of the rough many-point contact of Slavic-Boltezar (003), secs. 2-3,
and of the complementarity problem its steps and impacts pose:

* ``polyline_pairs``: every point-segment pair of a body polyline against a wheel's rim, both
  graphs over the polar angle about the wheel's centre (003 eq. (11), the set I_G), with the
  gaps (``coupling.rough_contact`` for the geometry and its choices); ``tree_pairs`` the same
  for the polyline on a tree body at the tree's coordinates q;
* ``contact_rows``: for the closed pairs the contact points, normals and tangents in the ground
  frame and the rows w_N, w_T and the wheel's terms what of g' = w . u + what (003 eqs. (7),
  (13), (15)); ``closed_rows`` the same for the pairs with gaps up to a tolerance;
* ``anitescu_potra_lcp`` and ``complementary_pivoting``: the impulse laws as the linear
  complementarity problem of Anitescu and Potra and Lemke's complementary pivoting on it
  (``coupling.lcp.coulomb_lcp`` and ``coupling.lcp.lemke`` document both and call these),
  ``lcp_projection`` the impulses of its solution (the three kept in ``kernels.lemke``, which
  the Moreau-Jean sub-step's kernels import too), ``coulomb_impulses`` the three in one
  call, ``checked_coulomb_impulses`` that call with its check and compliant retries
  (``coupling.impact.solve_coulomb``);
* ``midpoint_step``: the linear algebra of the event-driven stepper's smooth step (its
  Delassus matrix and free velocity), ``smooth_step`` that step from the tree's equations of
  motion to its checked impulses, ``book_losses``: the contacts' losses booked on the
  vertices of both polylines, ``smooth_losses``: a smooth step's contact work split by
  ``steppers.impulse_work`` and booked so, ``pair_gaps``: the closed contacts' gaps at the end
  of a step and whether an open one penetrated (its event control).

A rough run takes tens of thousands of steps of a few closed contacts each: the numpy versions
spent their time in per-call overhead (small arrays, np.block, np.outer per pivot), which
these remove.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .impulse_work import impulse_work_terms
from .jit import inner
from .lemke import anitescu_potra_lcp, complementary_pivoting, lcp_projection
from .pairwise import pairwise_sum
from .tree import equations, kinematics, point

__all__ = [
    "anitescu_potra_lcp",
    "checked_coulomb_impulses",
    "closed_rows",
    "complementary_pivoting",
    "contact_rows",
    "coulomb_impulses",
    "lcp_projection",
    "midpoint_step",
    "pair_gaps",
    "polyline_pairs",
    "tree_pairs",
    "book_losses",
    "smooth_losses",
    "smooth_step",
]


@inner
def _over(theta_sorted, theta):
    """Index k with theta_sorted[k] <= theta < theta_sorted[k + 1] (numpy's searchsorted on the
    left, minus one) and whether 0 <= k < len - 1."""
    n = theta_sorted.size
    k = np.searchsorted(theta_sorted, theta) - 1
    return k, (k >= 0) and (k < n - 1)


@njit(cache=True)
def polyline_pairs(
    origin, angle, alpha, body_points, body_normals, wheel, wheel_normals, theta_wheel, corner
):  # fmt: skip
    """All point-segment pairs of a body polyline against a wheel's rim, in the wheel's frame.

    origin (2,) m and angle (rad): the body frame's origin and orientation in the ground frame;
    alpha (rad): the wheel's angle. body_points (2, n_b) and body_normals (2, n_b - 1): the
    body's vertices (clockwise about the wheel's centre) and segment normals in its frame;
    wheel (2, n_w), wheel_normals (2, n_w - 1): the rim's vertices (counter-clockwise) and
    segment normals in the wheel's frame, theta_wheel (n_w,) their unwrapped polar angles
    (increasing); corner: a wheel vertex nearer a body vertex than corner times the body
    segment's length is not paired with that segment.

    Returns body (2, n_b) and its normals (2, n_b - 1) in the wheel's frame; ia, ka (int),
    gap_a (m): body vertex ia over wheel segment ka (ka, ka + 1), g = n_w . (p - w_ka); ib, kb,
    gap_b: wheel vertex ib under body segment kb, g = n_b . (w_ib - p_kb).
    """
    n_b = body_points.shape[1]
    ca, sa = math.cos(-alpha), math.sin(-alpha)
    ox = ca * origin[0] - sa * origin[1]
    oy = sa * origin[0] + ca * origin[1]
    angle = angle - alpha
    c, s = math.cos(angle), math.sin(angle)
    body = np.empty((2, n_b))
    normals = np.empty((2, n_b - 1))
    theta = np.empty(n_b)
    t0 = theta_wheel[0]
    for j in range(n_b):
        px, py = body_points[0, j], body_points[1, j]
        bx = ox + (c * px - s * py)
        by = oy + (s * px + c * py)
        body[0, j], body[1, j] = bx, by
        theta[j] = t0 + np.mod(math.atan2(by, bx) - t0 + np.pi, 2 * np.pi) - np.pi
    for j in range(n_b - 1):
        nx, ny = body_normals[0, j], body_normals[1, j]
        normals[0, j] = c * nx - s * ny
        normals[1, j] = s * nx + c * ny
    # body vertices over wheel segments
    ia = np.empty(n_b, np.int64)
    ka = np.empty(n_b, np.int64)
    gap_a = np.empty(n_b)
    m_a = 0
    for j in range(n_b):
        k, ok = _over(theta_wheel, theta[j])
        if ok:
            ia[m_a], ka[m_a] = j, k
            gap_a[m_a] = wheel_normals[0, k] * (body[0, j] - wheel[0, k]) + wheel_normals[1, k] * (
                body[1, j] - wheel[1, k]
            )
            m_a += 1
    # wheel vertices under body segments (the body's vertices run clockwise: reversed order)
    lo = np.searchsorted(theta_wheel, theta.min())
    hi = np.searchsorted(theta_wheel, theta.max())
    rev = theta[::-1].copy()
    increasing = True
    for j in range(n_b - 1):
        if not rev[j + 1] - rev[j] > 0.0:
            increasing = False
    size = max(hi - lo, 0) if increasing else 0
    ib = np.empty(size, np.int64)
    kb = np.empty(size, np.int64)
    gap_b = np.empty(size)
    m_b = 0
    for i in range(lo, lo + size):
        kr, ok = _over(rev, theta_wheel[i])
        if not ok:
            continue
        k = n_b - 2 - kr
        wx, wy = wheel[0, i], wheel[1, i]
        near = min(
            math.sqrt((wx - body[0, k]) ** 2 + (wy - body[1, k]) ** 2),
            math.sqrt((wx - body[0, k + 1]) ** 2 + (wy - body[1, k + 1]) ** 2),
        )
        dx, dy = body[0, k + 1] - body[0, k], body[1, k + 1] - body[1, k]
        if not near > corner * math.sqrt(dx * dx + dy * dy):
            continue
        ib[m_b], kb[m_b] = i, k
        gap_b[m_b] = normals[0, k] * (wx - body[0, k]) + normals[1, k] * (wy - body[1, k])
        m_b += 1
    return body, normals, ia[:m_a], ka[:m_a], gap_a[:m_a], ib[:m_b], kb[:m_b], gap_b[:m_b]


@njit(cache=True)
def tree_pairs(
    T, body, q, alpha, body_points, body_normals, wheel, wheel_normals, theta_wheel, corner
):  # fmt: skip
    """``polyline_pairs`` of the polyline of body ``body`` of the tree T (``kernels.tree``) at
    its coordinates q (n,) against the wheel at the angle alpha (rad), the other arguments as
    ``polyline_pairs`` takes them. Returns ``polyline_pairs``' eight arrays, then the body
    frame's origin (2,) m in the ground frame and its Jacobian (2, n)."""
    zero = np.zeros(q.size)
    angle, rot, origin, _, omega, ov, terms = kinematics(T, q, zero)
    _, _, j0, _ = point(T, body, 0.0, 0.0, zero, rot, origin, omega, ov, terms)
    at = origin[body].copy()
    pts, normals, ia, ka, gap_a, ib, kb, gap_b = polyline_pairs(
        at, angle[body], alpha, body_points, body_normals, wheel, wheel_normals, theta_wheel, corner
    )
    return pts, normals, ia, ka, gap_a, ib, kb, gap_b, at, j0


@njit(cache=True)
def contact_rows(
    body, body_normals, wheel, wheel_normals, ia, ka, ib, kb, alpha, omega, origin, j0, jw
):  # fmt: skip
    """The closed contacts of ``polyline_pairs``' pairs: body vertices ia over wheel segments
    ka, then wheel vertices ib under body segments kb (m = m_a + m_b), in the wheel's frame
    (body (2, n_b), body_normals, wheel, wheel_normals as ``polyline_pairs`` returns and takes
    them).

    alpha (rad), omega (rad/s): the wheel's angle and angular velocity; origin (2,) m the body
    frame's origin in the ground frame, j0 (2, n) its Jacobian and jw (n,) the body's
    angular-velocity row (the tree's n coordinates).

    Per contact: C the touching vertex, N the wheel segment's normal (body vertex) or minus the
    body segment's (wheel vertex), both turned by alpha into the ground frame, T = (N_y, -N_x),
    xi the position of C's projection on the opposite segment (clipped to [0, 1]);
    J(C) = j0 + e_z x (C - o) jw, w_N = N . J(C), w_T = T . J(C) and what = -(N, T) . v_W with
    v_W = omega e_z x C, the wheel's velocity at C (003 eqs. (7), (13), (15)).

    Returns point, normal, tangent (2, m), w (2m, n) (the rows w_N, then w_T), what (2m,) m/s,
    xi (m,).
    """
    m_a = ia.size
    m = m_a + ib.size
    n = jw.size
    point = np.empty((2, m))
    normal = np.empty((2, m))
    tangent = np.empty((2, m))
    xi = np.empty(m)
    w = np.empty((2 * m, n))
    what = np.empty(2 * m)
    c, s = math.cos(alpha), math.sin(alpha)
    for i in range(m):
        if i < m_a:
            j, k = ia[i], ka[i]
            px, py = body[0, j], body[1, j]
            nx, ny = wheel_normals[0, k], wheel_normals[1, k]
            ax, ay = wheel[0, k], wheel[1, k]
            dx, dy = wheel[0, k + 1] - ax, wheel[1, k + 1] - ay
        else:
            j, k = ib[i - m_a], kb[i - m_a]
            px, py = wheel[0, j], wheel[1, j]
            nx, ny = -body_normals[0, k], -body_normals[1, k]
            ax, ay = body[0, k], body[1, k]
            dx, dy = body[0, k + 1] - ax, body[1, k + 1] - ay
        x = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
        xi[i] = min(max(x, 0.0), 1.0)
        gx, gy = c * px - s * py, s * px + c * py  # to the ground frame
        nx, ny = c * nx - s * ny, s * nx + c * ny
        tx, ty = ny, -nx
        point[0, i], point[1, i] = gx, gy
        normal[0, i], normal[1, i] = nx, ny
        tangent[0, i], tangent[1, i] = tx, ty
        rx, ry = gx - origin[0], gy - origin[1]
        for a in range(n):
            jx = j0[0, a] - ry * jw[a]
            jy = j0[1, a] + rx * jw[a]
            w[i, a] = nx * jx + ny * jy
            w[m + i, a] = tx * jx + ty * jy
        vx, vy = -omega * gy, omega * gx
        what[i] = -(nx * vx + ny * vy)
        what[m + i] = -(tx * vx + ty * vy)
    return point, normal, tangent, w, what, xi


@njit(cache=True)
def closed_rows(
    body, body_normals, wheel, wheel_normals, ia, ka, gap_a, ib, kb, gap_b, closing, alpha,
    omega, origin, j0, jw
):  # fmt: skip
    """``contact_rows`` of the pairs of ``polyline_pairs`` (ia, ka, gap_a, ib, kb, gap_b) whose
    gap is at most ``closing`` (m), the other arguments as ``contact_rows`` takes them.

    Returns ``contact_rows``' point, normal, tangent, w, what, xi, then per closed contact its
    gap (m,) m, body_vertex (m,) bool (a body vertex over a wheel segment), vertex (m,) int
    (the touching vertex) and segment (m,) int (the opposite segment's first vertex).
    """
    sa = gap_a <= closing
    sb = gap_b <= closing
    ca, kca, cb, kcb = ia[sa], ka[sa], ib[sb], kb[sb]
    point, normal, tangent, w, what, xi = contact_rows(
        body, body_normals, wheel, wheel_normals, ca, kca, cb, kcb, alpha, omega, origin, j0, jw
    )
    m_a = ca.size
    m = m_a + cb.size
    gap = np.empty(m)
    body_vertex = np.empty(m, np.bool_)
    vertex = np.empty(m, np.int64)
    segment = np.empty(m, np.int64)
    gap[:m_a] = gap_a[sa]
    gap[m_a:] = gap_b[sb]
    body_vertex[:m_a] = True
    body_vertex[m_a:] = False
    vertex[:m_a] = ca
    vertex[m_a:] = cb
    segment[:m_a] = kca
    segment[m_a:] = kcb
    return point, normal, tangent, w, what, xi, gap, body_vertex, vertex, segment


@njit(cache=True)
def coulomb_impulses(delassus, offset, friction, compliance, max_pivots):
    """Impulses (2m,) of ``xi = G' P + c`` under the unilateral and Coulomb laws by Lemke's
    pivoting on ``anitescu_potra_lcp`` (``coupling.impact.solve_coulomb``), with the compliant
    G' = G + compliance max(diag G) I divided by g = max(diag G') (pivots on entries of order
    one; P = z / g). delassus G (2m, 2m), offset c (2m,), friction mu (m,).

    Returns (P, solved): solved False when the pivoting failed (``complementary_pivoting``).
    """
    n = offset.size
    shifted = delassus.copy()
    if compliance != 0.0:
        largest = -np.inf
        for i in range(n):
            largest = max(largest, delassus[i, i])
        for i in range(n):
            shifted[i, i] = delassus[i, i] + compliance * largest
    scale = -np.inf
    for i in range(n):
        scale = max(scale, shifted[i, i])
    A, b = anitescu_potra_lcp(shifted / scale, offset, friction)
    z, _, solved = complementary_pivoting(A, b, max_pivots)
    return lcp_projection(z / scale, friction), solved


@inner
def _nan_max(values, initial):
    """values.max(initial=initial), NaN when one is NaN (numpy's)."""
    largest = initial
    for v in values:
        if np.isnan(v):
            return v
        largest = max(largest, v)
    return largest


@inner
def _python_max(a, b):
    """Python's max(a, b): b where b > a, else a."""
    return b if b > a else a


@njit(cache=True)
def checked_coulomb_impulses(delassus, offset, friction, tol):
    """``coulomb_impulses`` with the compliances 0, 1e-10, 1e-8, 1e-6 in turn (at most
    200 m pivots each), the first whose impulses P meet the laws with G itself to ``tol``
    relative accepted (``coupling.impact.solve_coulomb``, which documents the test): the
    natural residual of ``coupling.setvalued.natural_residual`` with r = 1 / diag G at
    xi = G P + c at most tol max(|c|, |xi - c|, 1e-12) + 2 eps max(diag G) max|P|.
    delassus G (2m, 2m), offset c (2m,), friction mu (m,).

    Returns (P (2m,), solved): solved False when no compliance gave accepted impulses.
    """
    m = friction.size
    n = offset.size
    diag = np.empty(n)
    for i in range(n):
        diag[i] = delassus[i, i]
    r = 1.0 / diag
    largest_diag = _nan_max(diag, -np.inf)
    for eps in (0.0, 1e-10, 1e-8, 1e-6):
        p, solved = coulomb_impulses(delassus, offset, friction, eps, 50 * 4 * m)
        if not solved:
            continue
        xi = delassus @ p + offset
        res_n = np.empty(m)
        res_t = np.empty(m)
        for i in range(m):
            x = p[i] - r[i] * xi[i]
            res_n[i] = abs(p[i] - (x if (x >= 0.0 or np.isnan(x)) else 0.0)) / r[i]
            bound = friction[i] * p[i]
            x = p[m + i] - r[m + i] * xi[m + i]
            clipped = min(max(x, -bound), bound) if not np.isnan(x) else x
            res_t[i] = abs(p[m + i] - clipped) / r[m + i]
        res = _python_max(_nan_max(res_n, 0.0), _nan_max(res_t, 0.0))
        size = _python_max(
            _nan_max(np.abs(offset), -np.inf), _nan_max(np.abs(xi - offset), -np.inf)
        )
        allowed = tol * _python_max(size, 1e-12)
        if res <= allowed + 2.0 * eps * largest_diag * _nan_max(np.abs(p), -np.inf):
            return p, True
    return np.zeros(n), False


@njit(cache=True)
def midpoint_step(mass, bias, stiffness, damping, rest, q0, u0, h, w, what):
    """The linear part of the event-driven smooth step of length h from (q0, u0) (n,)
    (``steppers.event_driven``): with the joint springs K (stiffness), dampers C (damping) and
    rest positions (n,) taken by the implicit midpoint rule and the rest of the forces, F
    (bias, n) less the springs and dampers, at the start,

        A = 2 M / h + diag(C + h K / 2),  b = 2 M u0 / h - (F - K (q0 - rest) - C u0) - K (q0 - rest)

    the free midpoint velocity A^-1 b, A^-1 W for the contact rows w (2m, n), the Delassus
    matrix of the impulses at the end velocity G = (2/h) w A^-1 w^T and the end velocity
    without impulses w (2 A^-1 b - u0) + what. Returns (free (n,), a_inv_w (n, 2m), G (2m, 2m),
    offset (2m,)); numpy's LinAlgError when A is singular.
    """
    n = q0.size
    k = what.size
    spring = stiffness * (q0 - rest)
    nonlinear = bias - spring - damping * u0
    A = 2.0 * mass / h
    for i in range(n):
        A[i, i] += damping[i] + 0.5 * h * stiffness[i]
    rhs = np.empty((n, k + 1))
    rhs[:, 0] = 2.0 * mass @ u0 / h - nonlinear - spring
    for j in range(k):
        rhs[:, j + 1] = w[j]
    solution = np.linalg.solve(A, rhs)
    free = solution[:, 0].copy()
    a_inv_w = np.ascontiguousarray(solution[:, 1:])
    if k == 0:
        return free, a_inv_w, np.zeros((0, 0)), np.zeros(0)
    G = (2.0 / h) * (w @ a_inv_w)
    offset = w @ (2.0 * free - u0) + what
    return free, a_inv_w, G, offset


@njit(cache=True)
def smooth_step(T, q0, u0, h, joints, actuators, w, what, friction, tol):
    """The event-driven stepper's smooth step of length h from (q0, u0) (n,) of the tree T
    (``kernels.tree``) with m closed contacts: M and F of ``kernels.tree.equations`` (joints:
    the joints' stiffness, damping and rest position (3, n); actuators: their forces (n,) at
    the step's start), ``midpoint_step`` with the rows w (2m, n), what (2m,), then the impulses
    of ``checked_coulomb_impulses`` (friction (m,), tol) when m > 0.

    Returns (free (n,), a_inv_w (n, 2m), G (2m, 2m), offset (2m,), P (2m,), solved): solved
    False when the impulses were not accepted (P zero then); numpy's LinAlgError when the
    step's matrix is singular.
    """
    stiffness, damping, rest = joints[0], joints[1], joints[2]
    mass, bias = equations(T, q0, u0, stiffness, damping, rest, actuators)
    free, a_inv_w, G, offset = midpoint_step(
        mass, bias, stiffness, damping, rest, q0, u0, h, w, what
    )
    if friction.size == 0:
        return free, a_inv_w, G, offset, np.zeros(0), True
    p, solved = checked_coulomb_impulses(G, offset, friction, tol)
    return free, a_inv_w, G, offset, p, solved


@njit(cache=True)
def book_losses(loss, body_vertex, vertex, segment, xi, body_w, wheel_w):
    """Add the contacts' losses (m,) J half to each polyline (body_w (n_b,), wheel_w (n_w,)):
    all of a half to the touching vertex, the other half to the opposite segment's vertices
    (segment, segment + 1) by linear interpolation at xi (``coupling.rough_contact``); the
    body vertices' contacts first, each sum in the contacts' order."""
    m = loss.size
    for side in range(2):
        touching, opposite = (body_w, wheel_w) if side == 0 else (wheel_w, body_w)
        for i in range(m):
            if body_vertex[i] == (side == 0):
                touching[vertex[i]] += 0.5 * loss[i]
        for i in range(m):
            if body_vertex[i] == (side == 0):
                opposite[segment[i]] += (1.0 - xi[i]) * (0.5 * loss[i])
        for i in range(m):
            if body_vertex[i] == (side == 0):
                opposite[segment[i] + 1] += xi[i] * (0.5 * loss[i])


@njit(cache=True)
def smooth_losses(p, gamma_0, gamma_1, friction, body_vertex, vertex, segment, xi, body_w, wheel_w):
    """The work of a smooth step's impulses p (2m,) = (P_N, P_T) of m contacts with the
    relative velocities gamma_0, gamma_1 (2m,) at its start and end and friction coefficients
    (m,), split per contact into impact, friction and timing terms (``steppers.impulse_work``
    with e = 0 and theta = 1/2, ``kernels.impulse_work.impulse_work_terms``); the impact and friction
    losses booked on the vertices by ``book_losses`` (body_vertex, vertex, segment, xi as it
    takes them, into body_w (n_b,) and wheel_w (n_w,)). Returns the sums (friction, impact,
    timing) in J, each added in numpy's order (``kernels.pairwise.pairwise_sum``)."""
    m = friction.size
    impact, loss_t, gain = impulse_work_terms(
        p[:m].copy(), p[m:].copy(), gamma_0, gamma_1, np.zeros(2 * m), friction, 0.5
    )
    book_losses(impact + loss_t, body_vertex, vertex, segment, xi, body_w, wheel_w)
    return pairwise_sum(loss_t), pairwise_sum(impact), pairwise_sum(gain)


@njit(cache=True)
def pair_gaps(ia, gap_a, ib, gap_b, body_vertex, vertex, n_body, n_wheel, depth):
    """The candidate pairs of ``polyline_pairs`` (body vertices ia with gaps gap_a, wheel
    vertices ib with gaps gap_b, m) against m closed contacts (body_vertex (m,) bool: a body
    vertex; vertex (m,) int: the touching vertex) of polylines of n_body and n_wheel vertices.

    Returns gap (m,): each closed contact's vertex's gap among the pairs (NaN where it has no
    pair; the last of repeated vertices); penetrated: whether a pair whose vertex is not closed
    has a gap below -depth (m); min_gap: the smallest gap of all pairs (inf without pairs,
    NaN when a gap is NaN), m.
    """
    on_body = np.full(n_body, np.nan)
    closed_body = np.zeros(n_body, np.bool_)
    on_wheel = np.full(n_wheel, np.nan)
    closed_wheel = np.zeros(n_wheel, np.bool_)
    for i in range(ia.size):
        on_body[ia[i]] = gap_a[i]
    for i in range(ib.size):
        on_wheel[ib[i]] = gap_b[i]
    m = vertex.size
    gap = np.empty(m)
    for i in range(m):
        if body_vertex[i]:
            gap[i] = on_body[vertex[i]]
            closed_body[vertex[i]] = True
        else:
            gap[i] = on_wheel[vertex[i]]
            closed_wheel[vertex[i]] = True
    penetrated = False
    for i in range(ia.size):
        if not closed_body[ia[i]] and gap_a[i] < -depth:
            penetrated = True
    for i in range(ib.size):
        if not closed_wheel[ib[i]] and gap_b[i] < -depth:
            penetrated = True
    low_a, low_b = _lowest(gap_a), _lowest(gap_b)
    return gap, penetrated, low_b if low_b < low_a else low_a  # Python's min(low_a, low_b)


@inner
def _lowest(values):
    """values.min(initial=inf), NaN when one is NaN (numpy's)."""
    lowest = np.inf
    for v in values:
        if np.isnan(v):
            return v
        lowest = min(lowest, v)
    return lowest
