"""The impact module (``coupling.impact``) against closed forms, without any stepper: a point
mass hitting a rigid line obliquely with friction (Newton's and Poisson's laws), a rod landing
on two points, and the sign of the energy lost.

Round-off: the impulses come from Lemke's pivoting on a problem of at most 4 contacts (a few
dozen operations per entry) or from a 2x2 to 4x4 LU solve; every comparison allows 1e3 machine
epsilons of the problem's scale (the mass times the speed for impulses, the speed for
velocities, the kinetic energy for losses), far above that round-off and far below any error
of the laws (which would be of the order of the scale itself).
"""

import numpy as np
import pytest

from fe_contact import Unilateral
from fe_contact.coupling.impact import contact_impact, newton_impact, poisson_impact

EPS = np.finfo(float).eps
TOL = 1e3 * EPS  # relative round-off bound of the module docstring
MASS = 2.0  # kg, the point mass
VN = 2.0  # m/s, its approach speed


def point_delassus(mass=MASS):
    """G of a point mass on the line y = 0: W_N = (0, 1), W_T = (1, 0), G = diag(1/m, 1/m)."""
    return np.eye(2) / mass


def newton_closed_form(v_t, mu, e_n, e_t, mass=MASS, v_n=VN):
    """(P_N, P_T, v_n+, v_t+, loss) of Newton's law for a point hitting a line at (v_t, -v_n):
    stick (v_t+ = -e_T v_t) when the impulse it needs, m (1 + e_T) |v_t|, lies within
    mu P_N = mu m (1 + e_N) v_n; else it slides, P_T = -mu P_N sign(v_t)."""
    p_n = mass * (1.0 + e_n) * v_n
    if mass * (1.0 + e_t) * abs(v_t) <= mu * p_n:
        p_t = -mass * (1.0 + e_t) * v_t
    else:
        p_t = -mu * p_n * np.sign(v_t)
    after_n, after_t = -v_n + p_n / mass, v_t + p_t / mass
    loss = 0.5 * mass * (v_n**2 + v_t**2 - after_n**2 - after_t**2)
    return p_n, p_t, after_n, after_t, loss


CASES = [  # (v_t m/s, mu, e_N, e_T): stick and slide, with and without restitution
    (0.3, 0.5, 0.5, 0.0),  # stick: 0.6 N s needed, 3.0 N s allowed
    (1.0, 0.2, 0.5, 0.0),  # slide: 2 N s needed, 1.2 N s allowed
    (-1.0, 0.2, 0.5, 0.0),  # the same, the other way
    (0.4, 0.9, 0.0, 0.5),  # stick with tangential restitution: v_t+ = -0.2 m/s
    (1.5, 0.3, 0.8, 0.8),  # slide with e_T = e_N
    (0.7, 0.0, 0.7, 0.0),  # frictionless: v_t kept
]


@pytest.mark.parametrize(("v_t", "mu", "e_n", "e_t"), CASES)
def test_newton_point_hits_a_line_obliquely(v_t, mu, e_n, e_t, measured):
    """Newton's law with Coulomb friction on the impulses, through the law (several contacts'
    form, ``newton_impact``) and through the one-contact form with held rows
    (``contact_impact``, the generalised-alpha stepper's): the closed form above."""
    p_n, p_t, after_n, after_t, loss = newton_closed_form(v_t, mu, e_n, e_t)
    law = Unilateral(mu=mu, restitution_normal=e_n, restitution_tangent=e_t)
    gdot = np.array([-VN, v_t])
    res = law.impact_impulses(point_delassus(), gdot)
    scale_p, scale_e = MASS * VN, 0.5 * MASS * VN**2
    assert abs(res.total[0] - p_n) <= TOL * scale_p
    assert abs(res.total[1] - p_t) <= TOL * scale_p
    measured.close(
        "velocities after (normal, tangential)",
        res.gdot_after[:2],
        [after_n, after_t],
        atol=TOL * VN,
        unit="m/s",
        reference="Newton's restitution with Coulomb friction on the impulses (closed form)",
    )
    measured("energy lost", abs(res.loss[0] - loss), TOL * scale_e, unit="J", reference="the same")
    one = contact_impact(point_delassus(), gdot, law)
    assert abs(one.impulse[0] - p_n) <= TOL * scale_p
    assert abs(one.impulse[1] - p_t) <= TOL * scale_p
    assert abs(one.velocity_after[1] - after_t) <= TOL * VN
    assert abs(one.loss - loss) <= TOL * scale_e
    assert loss >= 0.0  # the closed form itself dissipates: (1 - e^2) terms, friction


def test_newton_slide_that_reverses_with_tangential_restitution():
    """Glocker's tangential law slides against xi_T = v_t+ + e_T v_t-, not against v_t+: for
    |v_t| < mu (1 + e_N) v_n < (1 + e_T) |v_t| the contact cannot stick (it needs more than
    the cone) and slides with P_T = -mu P_N sign(v_t), which reverses v_t to
    v_t - mu (1 + e_N) v_n sign(v_t), of size below e_T |v_t| (so it still loses energy).
    Here v_t = 1, mu (1 + e_N) v_n = 1.2, (1 + e_T) v_t = 1.5."""
    mu, e_n, e_t, v_t = 0.6, 0.0, 0.5, 1.0
    law = Unilateral(mu=mu, restitution_normal=e_n, restitution_tangent=e_t)
    gdot = np.array([-VN, v_t])
    expected_t = v_t - mu * (1.0 + e_n) * VN  # -0.2 m/s
    for after, impulse in (
        (law.impact_impulses(point_delassus(), gdot).gdot_after, None),
        (None, contact_impact(point_delassus(), gdot, law)),
    ):
        velocity = after if after is not None else impulse.velocity_after
        assert abs(velocity[1] - expected_t) <= TOL * VN
        assert abs(velocity[0]) <= TOL * VN  # plastic: it stays on the line
    assert abs(expected_t) < e_t * v_t  # the tangential energy falls


@pytest.mark.parametrize(
    ("v_t", "mu", "e_n", "e_t", "nu"),
    [
        (1.0, 0.2, 0.5, 0.5, 0.0),  # slides through both phases
        (0.3, 0.5, 0.6, 0.4, 0.0),  # sticks at the end of compression, nothing stored back
        (0.3, 0.5, 0.6, 0.4, 1.0),  # sticks, and gets e_T of its tangential impulse back
    ],
)
def test_poisson_point_hits_a_line(v_t, mu, e_n, e_t, nu):
    """Poisson's law of Slavic-Boltezar (003), sec. 2.2, for a point mass: compression
    P_NC = m v_n with P_TC = -m v_t (stick, |v_t| <= mu v_n) or -mu P_NC sign(v_t) (slide);
    expansion P_NE = e_N P_NC and P_TE = e_T P_TC (slide) or nu e_T P_TC (stick): the normal
    velocity after the compression is 0, after the expansion e_N v_n > 0, so no correction.
    Losses per phase, 003 eqs. (18)-(20): the kinetic energy's drop in each phase."""
    law = Unilateral(
        mu=mu,
        restitution_normal=e_n,
        restitution_tangent=e_t,
        impact="poisson",
        reversibility=nu,
    )
    res = law.impact_impulses(point_delassus(), np.array([-VN, v_t]))
    p_nc = MASS * VN
    stick = abs(v_t) <= mu * VN
    p_tc = -MASS * v_t if stick else -mu * p_nc * np.sign(v_t)
    p_ne, p_te = e_n * p_nc, (nu if stick else 1.0) * e_t * p_tc
    v_tc = v_t + p_tc / MASS
    v_ne, v_te = p_ne / MASS, v_tc + p_te / MASS
    scale_p, scale_e = MASS * VN, 0.5 * MASS * VN**2
    for got, want in (
        (res.normal_compression[0], p_nc),
        (res.tangent_compression[0], p_tc),
        (res.normal_expansion[0], p_ne),
        (res.tangent_expansion[0], p_te),
    ):
        assert abs(got - want) <= TOL * scale_p
    assert abs(res.gdot_compression[0]) <= TOL * VN
    assert abs(res.gdot_after[0] - v_ne) <= TOL * VN
    assert abs(res.gdot_after[1] - v_te) <= TOL * VN
    loss_c = 0.5 * MASS * (VN**2 + v_t**2 - v_tc**2)
    loss_e = 0.5 * MASS * (v_tc**2 - v_ne**2 - v_te**2)
    assert abs(res.loss_compression[0] - loss_c) <= TOL * scale_e
    assert abs(res.loss_expansion[0] - loss_e) <= TOL * scale_e
    assert loss_c + loss_e >= 0.0


def test_poisson_one_contact_with_held_rows_agrees_when_it_slides_through():
    """The generalised-alpha stepper's Poisson phases (``contact_impact``: P_NE = e_N P_NC,
    Coulomb in each phase) and 003's (``poisson_impact``) give the same impulses to a point
    that slides through the impact when e_T = e_N: -mu (1 + e_N) P_NC tangentially."""
    mu, e = 0.2, 0.5
    law = Unilateral(mu=mu, restitution_normal=e, restitution_tangent=e, impact="poisson")
    gdot = np.array([-VN, 1.0])
    one = contact_impact(point_delassus(), gdot, law)
    want_n, want_t = (1.0 + e) * MASS * VN, -mu * (1.0 + e) * MASS * VN
    assert abs(one.impulse[0] - want_n) <= TOL * MASS * VN
    assert abs(one.impulse[1] - want_t) <= TOL * MASS * VN
    assert len(one.phases) == 2 and abs(one.phases[1][0] - e * MASS * VN) <= TOL * MASS * VN
    both = poisson_impact(point_delassus(), gdot, np.array([mu]), e, e)
    assert abs(both.total[1] - want_t) <= TOL * MASS * VN


def rod(length=0.5, mass=3.0):
    """(M^-1 W, G) of a rod (x, y, theta) lying flat at theta = 0 on two points at its ends:
    rows N_1, N_2, T_1, T_2 with W_N = (0, 1, -+L/2), W_T = (1, 0, 0); I = m L^2 / 12."""
    inertia = mass * length**2 / 12.0
    W = np.array(
        [
            [0.0, 0.0, 1.0, 1.0],
            [1.0, 1.0, 0.0, 0.0],
            [-length / 2, length / 2, 0.0, 0.0],
        ]
    )
    minv_w = W / np.array([mass, mass, inertia])[:, None]
    return W, minv_w, W.T @ minv_w


@pytest.mark.parametrize("e_n", [0.0, 0.6])
def test_rod_lands_flat_on_two_points_and_slides(e_n):
    """A rod falling flat at v = 1.5 m/s while moving sideways at 2 m/s lands on both ends
    (Newton, mu = 0.3): by symmetry P_N = m (1 + e_N) v / 2 at each end and it slides,
    P_T = -mu P_N, so v_y+ = e_N v, v_x+ = 2 - mu (1 + e_N) v, no rotation."""
    mass, v, vx, mu = 3.0, 1.5, 2.0, 0.3
    W, minv_w, G = rod(mass=mass)
    u = np.array([vx, -v, 0.0])
    law = Unilateral(mu=mu, restitution_normal=e_n)
    res = law.impact_impulses(G, W.T @ u)
    after = u + minv_w @ res.total
    p_n = mass * (1.0 + e_n) * v / 2.0
    scale_p = mass * max(v, vx)
    assert np.all(np.abs(res.total[:2] - p_n) <= TOL * scale_p)
    assert np.all(np.abs(res.total[2:] + mu * p_n) <= TOL * scale_p)
    want = np.array([vx - mu * (1.0 + e_n) * v, e_n * v, 0.0])
    speed = max(v, vx) / np.array([1.0, 1.0, 0.25])  # m/s, m/s, rad/s (the ends at L/2)
    assert np.all(np.abs(after - want) <= TOL * speed)
    kinetic = 0.5 * mass * (u[:2] @ u[:2])
    drop = kinetic - 0.5 * mass * (after[:2] @ after[:2])
    assert abs(res.loss.sum() - drop) <= TOL * kinetic


@pytest.mark.parametrize(
    ("omega", "e_n"),
    [(2.0, 0.5), (-3.0, 0.0), (10.0, 0.5), (20.0, 0.5)],  # the last: end 2 is not hit
)
def test_rod_lands_tilting_on_two_points_frictionless(omega, e_n):
    """The rod lands at v = 1 m/s turning at omega (rad/s): the ends approach at
    a_i = v +- omega L / 2 (end 1 at -L/2). With I = m L^2 / 12, G_NN = (1/m) [[4, -2], [-2, 4]]
    and its inverse (m / 12) [[4, 2], [2, 4]]: both ends hit when both impulses
    P = (1 + e) (m / 12) (4 a_1 + 2 a_2, 2 a_1 + 4 a_2) come out >= 0 (at omega = 10 end 2
    moves up, a_2 = -1.5 m/s, but end 1's impulse turns the rod onto it); else only end 1,
    P_1 = (1 + e) (m / 4) a_1, and end 2 keeps xi_2 = g'_2+ + e g'_2- >= 0."""
    mass, length, v = 3.0, 0.5, 1.0
    W, minv_w, G = rod(length, mass)
    u = np.array([0.0, -v, omega])
    a1, a2 = v + omega * length / 2, v - omega * length / 2
    want = (1.0 + e_n) * mass / 12.0 * np.array([4 * a1 + 2 * a2, 2 * a1 + 4 * a2])
    if want.min() < 0.0:
        assert omega == 20.0  # the one case built for it
        want = np.array([(1.0 + e_n) * mass / 4.0 * a1, 0.0])
    res = newton_impact(G, W.T @ u, np.zeros(2), e_n)
    scale = mass * (v + abs(omega) * length / 2)
    assert np.all(np.abs(res.total[:2] - want) <= TOL * scale)
    assert np.all(np.abs(res.total[2:]) <= TOL * scale)
    xi = res.gdot_after[:2] + e_n * res.gdot_before[:2]
    assert np.all(xi >= -TOL * scale / mass)
    after = u + minv_w @ res.total
    inertia = mass * length**2 / 12.0
    kinetic = 0.5 * (mass * v**2 + inertia * omega**2)
    drop = kinetic - 0.5 * (mass * (after[:2] @ after[:2]) + inertia * after[2] ** 2)
    assert abs(res.loss.sum() - drop) <= TOL * kinetic


def test_loss_is_never_negative_for_plastic_impacts():
    """-P . (g'- + g'+) / 2 = -P . g'+ + P^T G P / 2 >= 0 when e = 0: P_N g'_N+ = 0 and
    P_T g'_T+ = -mu P_N |g'_T+| <= 0 by the laws, and G is positive semidefinite. 200 random
    problems of 1 to 3 contacts (G = W^T M^-1 W of random W and masses, 2 to 3 more dofs
    than contact rows), Newton's and Poisson's laws, and the one-contact form with two held
    rows that hold before the impact; round-off allowed: 1e3 eps of |P| |g'|, the size of
    the terms that cancel."""
    rng = np.random.default_rng(20261126)
    for _ in range(200):
        m = int(rng.integers(1, 4))
        n = 2 * m + 2 + int(rng.integers(0, 2))  # dofs: room for two held rows
        W = rng.normal(size=(n, 2 * m))
        minv = 1.0 / rng.uniform(0.5, 5.0, size=n)
        G = W.T @ (minv[:, None] * W)
        gdot = rng.normal(size=2 * m)
        gdot[:m] = -np.abs(gdot[:m])  # every contact approaches
        mu = rng.uniform(0.0, 1.0, size=m)
        for res in (
            newton_impact(G, gdot, mu, 0.0),
            poisson_impact(G, gdot, mu, 0.0, 0.0),
        ):
            scale = np.abs(res.total).max() * np.abs(gdot).max()
            assert res.loss.sum() >= -TOL * scale
        held = rng.normal(size=(n, 2))  # one contact with two held rows (a joint, a drive)
        Wc = np.column_stack((W[:, :1], W[:, m : m + 1], held))
        Dc = Wc.T @ (minv[:, None] * Wc)
        pre = np.array([-abs(gdot[0]), gdot[m], 0.0, 0.0])  # the held rows hold before
        law = Unilateral(mu=float(mu[0]))
        one = contact_impact(Dc, pre, law)
        assert one.loss >= -TOL * np.abs(one.impulse).max() * np.abs(pre).max()
