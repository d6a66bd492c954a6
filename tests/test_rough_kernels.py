"""The compiled kernels of the rough contact (``fe_contact.kernels.rough``) against independent
references: the pair search against a brute-force search over every segment, the contact rows
against the time derivative of the gaps, Lemke's pivoting against the complementarity
conditions and Coulomb's law checked directly."""

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.coupling.rough_contact import (
    CORNER,
    RoughContact,
    candidate_pairs,
    closed_contacts,
    share_loss,
)
from fe_contact.coupling.setvalued import natural_residual
from fe_contact.kernels import rough as kernels
from fe_contact.multibody.tree import angular_jacobian, body_poses
from fe_contact.papers.slavic_boltezar import PinOnWheel, pin_on_wheel
from fe_contact.rough import segment_normals
from fe_contact.steppers.impulse_work import impulse_work_points


def pin_contact(s: float) -> RoughContact:
    model = pin_on_wheel(replace(PinOnWheel(), s=s)).model
    return RoughContact.from_pair(model.tree, model.contacts[0])


def polar(points):
    return np.arctan2(points[1], points[0])


def brute_force_pairs(contact, q, t):
    """Every pair by looping over all segments: a body vertex (ground frame turned into the
    wheel's by -alpha with a rotation matrix) over the wheel segment whose polar angles bracket
    it; a wheel vertex under the body segment whose polar angles bracket it, unless it lies on
    one of that segment's vertices (CORNER). Gaps along the segment's outward normal."""
    pose = body_poses(contact.tree, q)
    alpha = contact.wheel_angle(t)
    to_wheel = np.array([[np.cos(alpha), np.sin(alpha)], [-np.sin(alpha), np.cos(alpha)]])
    turn = np.array(
        [
            [np.cos(pose.angle[contact.body]), -np.sin(pose.angle[contact.body])],
            [np.sin(pose.angle[contact.body]), np.cos(pose.angle[contact.body])],
        ]
    )
    body = to_wheel @ (pose.origin[contact.body][:, None] + turn @ contact.profile.points)
    wheel = contact.wheel.points
    th_w, th_b = polar(wheel), polar(body)

    def outward(a, b):
        d = (b - a) / np.linalg.norm(b - a)
        return np.array([d[1], -d[0]])

    found = {}
    for j in range(body.shape[1]):
        for k in range(wheel.shape[1] - 1):
            if th_w[k] <= th_b[j] < th_w[k + 1]:
                found[2 * j + 1] = outward(wheel[:, k], wheel[:, k + 1]) @ (
                    body[:, j] - wheel[:, k]
                )
    for i in range(wheel.shape[1]):
        for k in range(body.shape[1] - 1):  # clockwise: th_b[k] > th_b[k + 1]
            if th_b[k + 1] <= th_w[i] < th_b[k]:
                a, b = body[:, k], body[:, k + 1]
                near = min(np.linalg.norm(wheel[:, i] - a), np.linalg.norm(wheel[:, i] - b))
                if near > CORNER * np.linalg.norm(b - a):
                    found[2 * i] = outward(a, b) @ (wheel[:, i] - a)
    return found


@pytest.mark.parametrize("s, q, t", [(0.0, (-1.5e-6, 2e-3), 1e-4), (4e-4, (3e-7, -0.01), 7e-4)])
def test_pair_search_finds_the_pairs_of_a_brute_force_search(s, q, t):
    """Same pairs (keys) and gaps as a search over every segment; gaps to 1e-16 m (about 40
    round-offs of the rim's radius, 0.011 m: both subtract coordinates of that size)."""
    contact = pin_contact(s)
    gap, key = candidate_pairs(contact, np.array(q), t).gaps()
    reference = brute_force_pairs(contact, np.array(q), t)
    assert key.size > 100
    assert sorted(key.tolist()) == sorted(reference)
    assert np.abs(gap - np.array([reference[k] for k in key.tolist()])).max() <= 1e-16


def test_contact_rows_give_the_rate_of_the_gaps():
    """w_N . u + what_N of every candidate (closing = inf) equals dg/dt along the motion
    q(t) = q0 + u (t - t0) by central differences of the pair search's gaps; dt = 1e-9 s: the
    difference's truncation (dt^2 times the third derivative, accelerations of omega^2 R) is
    below 1e-12 m/s, its round-off 1e-18 m / 1e-9 s = 1e-9 m/s; tolerance 1e-8 m/s against
    rates of 0.3 m/s."""
    from fe_contact.coupling.rough_contact import closed_contacts

    contact = pin_contact(-3e-4)
    q0, u, t0, dt = np.array([-1.5e-6, 2e-3]), np.array([0.3, -40.0]), 1e-4, 1e-9
    cs = closed_contacts(contact, q0, u, t0, np.inf)
    assert cs.size > 100
    rate = cs.w[: cs.size] @ u + cs.what[: cs.size]
    keys = 2 * cs.vertex + cs.body_vertex
    ahead = dict(zip(*candidate_pairs(contact, q0 + dt * u, t0 + dt).gaps()[::-1], strict=True))
    back = dict(zip(*candidate_pairs(contact, q0 - dt * u, t0 - dt).gaps()[::-1], strict=True))
    both = [i for i, k in enumerate(keys.tolist()) if k in ahead and k in back]
    assert len(both) > 0.9 * cs.size  # pairs that keep their segment over +-dt
    fd = np.array([(ahead[keys[i]] - back[keys[i]]) / (2 * dt) for i in both])
    assert np.abs(rate[both] - fd).max() <= 1e-8
    assert np.abs(rate).max() > 0.1


def coulomb_problem(rng, m, n):
    """G = W^T M^-1 W and c = W^T u of m contacts on n coordinates (often 2m > n: redundant)."""
    w = rng.normal(size=(n, 2 * m))
    w[0, :m] = np.abs(w[0, :m]) + 0.2  # moving along coordinate 0 opens every contact
    inv_mass = np.diag(rng.uniform(0.1, 10.0, n))
    return w.T @ inv_mass @ w, w.T @ rng.normal(size=n), rng.uniform(0.0, 1.0, m)


def test_lemke_on_the_coulomb_lcp_meets_the_laws():
    """Lemke's pivoting on the Anitescu-Potra LCP of random (often redundant) problems: z >= 0,
    w = A z + b >= 0 and z . w = 0 (checked on A z + b computed here); and in the contacts'
    terms, xi = G P + c: P_N >= 0, xi_N >= 0, P_N xi_N = 0, |P_T| <= mu P_N, P_T = -mu P_N
    sign(xi_T) where xi_T != 0. Tolerances 1e-9 times the problem's scale (entries of order
    one: round-off of the pivoting grows with its pivots)."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        m, n = int(rng.integers(1, 6)), int(rng.integers(2, 8))
        G, c, mu = coulomb_problem(rng, m, n)
        A, b = kernels.anitescu_potra_lcp(G, c, mu)
        z, pivots, solved = kernels.complementary_pivoting(A, b, 50 * b.size)
        assert solved and pivots >= 0
        w = A @ z + b
        scale = max(1.0, np.abs(z).max(), np.abs(b).max())
        assert z.min() >= -1e-9 * scale and w.min() >= -1e-9 * scale
        assert abs(z @ w) <= 1e-9 * scale**2
        p_n, p_t = z[:m], z[m : 2 * m] - z[2 * m : 3 * m]
        xi = G @ np.concatenate((p_n, p_t)) + c
        assert np.all(xi[:m] >= -1e-9 * scale) and np.all(np.abs(p_n * xi[:m]) <= 1e-9 * scale**2)
        assert np.all(np.abs(p_t) <= mu * p_n + 1e-9 * scale)
        sliding = np.abs(xi[m:]) > 1e-7 * scale
        expected = -mu * p_n * np.sign(xi[m:])
        assert np.allclose(p_t[sliding], expected[sliding], rtol=0, atol=1e-9 * scale)


def test_lemke_reports_an_lcp_without_solution():
    """w = -z - 1 >= 0 has no z >= 0: ray termination, not solved; b >= 0: z = 0 at once."""
    z, _, solved = kernels.complementary_pivoting(np.array([[-1.0]]), np.array([-1.0]), 10)
    assert not solved
    z, pivots, solved = kernels.complementary_pivoting(np.eye(2), np.array([1.0, 0.5]), 10)
    assert solved and pivots == 0 and np.all(z == 0.0)


def test_coulomb_impulses_meet_the_laws_with_and_without_compliance():
    """``coulomb_impulses`` on random problems: with compliance 0 the laws hold with G itself
    (xi = G P + c: P_N >= 0, xi_N >= 0, P_N xi_N = 0, |P_T| <= mu P_N, slip opposite xi_T) to
    1e-9 of the problem's scale; with compliance eps they hold with G + eps max(diag G) I."""
    rng = np.random.default_rng(17)
    for trial in range(30):
        m, n = int(rng.integers(1, 5)), int(rng.integers(2, 8))
        G, c, mu = coulomb_problem(rng, m, n)
        eps = (0.0, 1e-6)[trial % 2]
        p, solved = kernels.coulomb_impulses(G, c, mu, eps, 200 * m)
        assert solved
        xi = (G + eps * np.diag(G).max() * np.eye(2 * m)) @ p + c
        scale = max(1.0, np.abs(c).max(), np.abs(p).max() * np.abs(G).max())
        p_n, p_t = p[:m], p[m:]
        assert np.all(p_n >= 0.0) and np.all(np.abs(p_t) <= mu * p_n)
        assert np.all(xi[:m] >= -1e-9 * scale)
        assert np.all(np.abs(p_n * xi[:m]) <= 1e-9 * scale * max(1.0, np.abs(p).max()))
        sliding = np.abs(xi[m:]) > 1e-7 * scale
        assert np.allclose(p_t[sliding], -mu[sliding] * p_n[sliding] * np.sign(xi[m:][sliding]))


def test_lcp_projection_is_the_projection_on_the_admissible_sets():
    """P_N = max(z_N, 0); P_T = beta+ - beta- clipped to the cone [-mu P_N, mu P_N]: closed form
    for a contact pushed outside the cone, one inside it and one with z_N < 0."""
    mu = np.array([0.5, 0.5, 0.3])
    z = np.array([2.0, 1.0, -1e-12, 3.0, 0.1, 0.2, 0.5, 0.2, 0.0, 0.0, 0.0, 0.0])
    p = kernels.lcp_projection(z, mu)
    assert p.tolist() == [2.0, 1.0, 0.0, 1.0, -0.1, 0.0]


def test_midpoint_step_solves_the_midpoint_equations():
    """free = u_m of M (u1 - u0) / h = -(F - K (q0 - rest) - C u0) - K (q_m - rest) - C u_m
    with u1 = 2 u_m - u0, q_m = q0 + h u_m / 2 (the implicit midpoint rule for the joint
    springs and dampers); and for any impulses P the end velocity u1 = 2 (free + A^-1 W^T P /
    h) - u0 gives W u1 + what = G P + offset. Residuals relative 1e-12 (a 3 x 3 solve of
    condition about 1e3)."""
    rng = np.random.default_rng(5)
    n, m2, h = 3, 4, 1e-4
    B = rng.normal(size=(n, n))
    M = B @ B.T + n * np.eye(n)
    F, K, C = rng.normal(size=n), rng.uniform(0, 1e3, n), rng.uniform(0, 1.0, n)
    rest, q0, u0 = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    W, what = rng.normal(size=(m2, n)), rng.normal(size=m2)
    free, a_inv_w, G, offset = kernels.midpoint_step(M, F, K, C, rest, q0, u0, h, W, what)
    u1 = 2 * free - u0
    qm = q0 + 0.5 * h * free
    lhs = M @ (u1 - u0) / h
    rhs = -(F - K * (q0 - rest) - C * u0) - K * (qm - rest) - C * free
    assert np.abs(lhs - rhs).max() <= 1e-12 * np.abs(M @ u0 / h).max()
    P = rng.normal(size=m2)
    A = 2 * M / h + np.diag(C + 0.5 * h * K)
    u1 = 2 * (free + np.linalg.solve(A, W.T @ P) / h) - u0
    assert np.abs(W @ u1 + what - (G @ P + offset)).max() <= 1e-12 * np.abs(G @ P).max()
    assert np.abs(a_inv_w - np.linalg.solve(A, W.T)).max() <= 1e-12 * np.abs(a_inv_w).max()


def test_share_loss_books_half_on_each_polyline_by_interpolation():
    """Against np.add.at written here: half of each loss on the touching vertex, the other
    half on the opposite segment's ends as (1 - xi, xi); the total is kept (to round-off of
    the sums, 1e-15 relative)."""
    rng = np.random.default_rng(2)
    m, n_b, n_w = 12, 8, 10
    body_vertex = rng.random(m) < 0.5
    vertex = np.where(body_vertex, rng.integers(0, n_b, m), rng.integers(0, n_w, m))
    segment = np.where(body_vertex, rng.integers(0, n_w - 1, m), rng.integers(0, n_b - 1, m))
    xi, loss = rng.random(m), rng.random(m)
    body_w, wheel_w = np.zeros(n_b), np.zeros(n_w)
    kernels.book_losses(loss, body_vertex, vertex, segment, xi, body_w, wheel_w)
    ref_b, ref_w = np.zeros(n_b), np.zeros(n_w)
    for i in range(m):
        touching, opposite = (ref_b, ref_w) if body_vertex[i] else (ref_w, ref_b)
        np.add.at(touching, vertex[i], loss[i] / 2)
        np.add.at(
            opposite, [segment[i], segment[i] + 1], [(1 - xi[i]) * loss[i] / 2, xi[i] * loss[i] / 2]
        )
    assert np.abs(body_w - ref_b).max() <= 1e-15 * loss.sum()
    assert np.abs(wheel_w - ref_w).max() <= 1e-15 * loss.sum()
    assert body_w.sum() + wheel_w.sum() == pytest.approx(loss.sum(), rel=1e-15)


def closed_set(s, q, t, closing):
    contact = pin_contact(s)
    pairs = candidate_pairs(contact, np.array(q), t)
    return contact, pairs, closed_contacts(contact, np.array(q), np.zeros(2), t, closing, pairs)


def test_closed_rows_are_the_rows_of_the_pairs_within_the_tolerance():
    """The contacts of ``closed_contacts`` (``kernels.closed_rows``) are the pairs whose gap is
    at most the tolerance (read from the pairs' keys here), each with ``contact_rows``' rows
    of that selection, equal to the last bit (the same kernel on the same numbers)."""
    contact, pairs, cs = closed_set(0.0, (-1.5e-6, 2e-3), 1e-4, -7e-7)
    gap, key = pairs.gaps()
    chosen = gap <= -7e-7
    assert 0 < chosen.sum() < gap.size
    assert sorted((2 * cs.vertex + cs.body_vertex).tolist()) == sorted(key[chosen].tolist())
    sa, sb = pairs.gap_a <= -7e-7, pairs.gap_b <= -7e-7
    frames = (pairs.ia[sa], pairs.ka[sa], pairs.ib[sb], pairs.kb[sb])
    rows = kernels.contact_rows(
        pairs.body_pts,
        pairs.body_normals,
        contact.wheel.points,
        segment_normals(contact.wheel.points),
        *frames,
        pairs.alpha,
        contact.omega,
        pairs.origin,
        pairs.j0,
        angular_jacobian(contact.tree, contact.body).astype(float),
    )
    mine = (cs.point, cs.normal, cs.tangent, cs.w, cs.what, cs.xi)
    for value, reference in zip(mine, rows, strict=True):
        assert np.array_equal(value, reference)
    assert np.array_equal(cs.gap, np.concatenate((pairs.gap_a[sa], pairs.gap_b[sb])))


def test_pair_gaps_reads_the_closed_contacts_gaps_and_the_penetrations():
    """``pair_gaps`` against a dictionary of the pairs by key written here: each closed
    contact's gap at the end of a later configuration, the smallest gap of all pairs, and a
    penetration when (and only when) a pair not closed at the start lies below -depth."""
    contact, _, cs = closed_set(0.0, (-1.5e-6, 2e-3), 1e-4, -7e-7)
    later = candidate_pairs(contact, np.array((-1.49e-6, 2e-3)), 1.001e-4)
    gap, key = later.gaps()
    by_key = dict(zip(key.tolist(), gap.tolist(), strict=True))
    closed_keys = (2 * cs.vertex + cs.body_vertex).tolist()
    expected = [by_key.get(k, np.nan) for k in closed_keys]
    n_vertices = (contact.profile.n_points, contact.wheel.n_points)
    open_gaps = [g for k, g in by_key.items() if k not in set(closed_keys)]
    for depth in (1e-9, -min(open_gaps) + 1e-12, -min(open_gaps) - 1e-12):
        gap_end, penetrated, min_gap = kernels.pair_gaps(
            later.ia, later.gap_a, later.ib, later.gap_b, cs.body_vertex, cs.vertex,
            *n_vertices, depth,
        )  # fmt: skip
        assert np.array_equal(gap_end, np.array(expected), equal_nan=True)
        assert penetrated == (min(open_gaps) < -depth)
        assert min_gap == gap.min()


def test_checked_coulomb_impulses_meet_the_laws_with_the_delassus_matrix():
    """``checked_coulomb_impulses`` on random problems: accepted impulses meet the laws with G
    itself (natural residual of ``coupling.setvalued``, r = 1 / diag G) to its tolerance plus
    the compliance's velocity."""
    rng = np.random.default_rng(23)
    for _ in range(30):
        m, n = int(rng.integers(1, 5)), int(rng.integers(2, 8))
        G, c, mu = coulomb_problem(rng, m, n)
        p, solved = kernels.checked_coulomb_impulses(G, c, mu, 1e-9)
        assert solved
        xi = G @ p + c
        r = 1.0 / np.diag(G)
        res = natural_residual(p[:m], p[m:], xi[:m], xi[m:], mu, r[:m], r[m:])
        allowed = 1e-9 * max(np.abs(c).max(), np.abs(xi - c).max(), 1e-12)
        assert res <= allowed + 2e-6 * np.diag(G).max() * np.abs(p).max()


def test_smooth_losses_are_the_impulse_work_split_and_booked():
    """``smooth_losses`` against ``impulse_work_points`` and ``share_loss`` called one after the
    other (the numpy path): the same vertex losses and sums to the last bit."""
    contact, _, cs = closed_set(0.0, (-1.5e-6, 2e-3), 1e-4, -5e-7)
    m = cs.size
    rng = np.random.default_rng(3)
    mu = np.full(m, 0.3)
    p_n = rng.uniform(0.0, 1e-6, m)
    p = np.concatenate((p_n, rng.uniform(-1.0, 1.0, m) * mu * p_n))
    g0, g1 = rng.normal(size=2 * m), rng.normal(size=2 * m)
    n_b, n_w = contact.profile.n_points, contact.wheel.n_points
    body, wheel = np.zeros(n_b), np.zeros(n_w)
    sums = kernels.smooth_losses(
        p, g0, g1, mu, cs.body_vertex, cs.vertex, cs.segment, cs.xi, body, wheel
    )
    impact, friction, timing = impulse_work_points(p[:m], p[m:], g0, g1, np.zeros(2 * m), mu)
    body_ref, wheel_ref = np.zeros(n_b), np.zeros(n_w)
    share_loss(cs, impact + friction, body_ref, wheel_ref)
    assert np.array_equal(body, body_ref) and np.array_equal(wheel, wheel_ref)
    assert sums == (float(friction.sum()), float(impact.sum()), float(timing.sum()))
    assert body.sum() > 0.0
