"""Painleve's rod: the inconsistent and the indeterminate case named, the lift-off branch taken.

A uniform rod (m = 1 kg, half-length l = 0.5 m, I = m l^2 / 3) on prismatic x, y and a
revolute joint at its centre, its lower end on the rigid line y = 0, the end sliding to -x so
that friction mu N acts along +x. The gap acceleration of the end is (sympy, below)

    g'' = a0 + N / m (1 + 3 cos(theta) (cos(theta) - mu sin(theta))),  a0 = -g + l sin(theta) w^2

(w = theta'). For mu above a critical value the bracket is negative at some angles (001 remark
10.3.13): with a0 < 0 no N >= 0 keeps the end out of the line (inconsistent), with a0 > 0 both
N = 0 (the end lifts off at a0) and N = -a0 m / bracket (it stays) solve the contact problem
(indeterminate). A ``Sliding`` (bilateral) contact cannot lift off: both cases end the run with
a failed result that names them. A ``Unilateral`` contact takes the lift-off branch.
"""

import numpy as np
import pytest
import sympy as sp

from fe_contact import (
    Body,
    ContactPair,
    Joint,
    Line,
    Model,
    Point,
    Sliding,
    TreeModel,
    Unilateral,
    assemble,
    simulate,
)
from fe_contact.steppers.painleve import contact_problem

G, MASS, HALF = 9.81, 1.0, 0.5
THETA = np.radians(60.0)
X_RATE = -4.0  # m/s: the centre's x velocity; the end slides at X_RATE + l sin(theta) w < 0


def rod(law, rate: float):
    """The rod at THETA, turning at ``rate`` (rad/s), its end on the line with zero normal
    velocity (y' = l cos(theta) w) and sliding to -x."""
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.0, 0.0), Body(MASS, MASS * HALF**2 / 3)),
        joints=(
            Joint("prismatic"),
            Joint("prismatic", parent=0, angle=np.pi / 2),
            Joint("revolute", parent=1, angle=-np.pi / 2),
        ),
    )
    contact = ContactPair("end", Point(2, (-HALF, 0.0)), Line((0.0, 0.0), (0.0, 1.0)), law)
    system = assemble(Model(tree=tree, contacts=(contact,)))
    q0 = np.array([0.0, HALF * np.sin(THETA), THETA])
    u0 = np.array([X_RATE, HALF * np.cos(THETA) * rate, rate])
    assert X_RATE + HALF * np.sin(THETA) * rate < 0.0  # the end slides to -x
    return system, q0, u0


def rod_contact_equation():
    """(a0, bracket, critical mu) from Newton-Euler for the rod, by sympy: the end's gap
    acceleration is linear in N, a0 + N / m bracket (friction +mu N along x, the end sliding
    to -x); the critical mu is the least mu at which the bracket can vanish."""
    m, l, g, I, N, mu, th, w = sp.symbols("m l g I N mu theta w", positive=True)
    fx, fy = mu * N, N  # force on the end (-l cos, -l sin) from the centre
    xdd, ydd = fx / m, fy / m - g
    thdd = ((-l * sp.cos(th)) * fy - (-l * sp.sin(th)) * fx) / I
    # gap = y - l sin(theta): its second derivative
    gdd = ydd - l * sp.cos(th) * thdd + l * sp.sin(th) * w**2
    gdd = sp.expand(gdd.subs(I, m * l**2 / 3))
    a0 = gdd.subs(N, 0)
    bracket = sp.simplify(sp.diff(gdd, N) * m)
    del xdd
    # bracket = 0 <=> mu = (1 + 3 cos^2) / (3 sin cos) = (t^2 + 4) / (3 t) with t = tan(theta)
    t = sp.symbols("t", positive=True)
    mu_of_t = sp.simplify(sp.solve(sp.Eq(bracket, 0), mu)[0].subs(th, sp.atan(t)))
    t_star = sp.solve(sp.diff(mu_of_t, t), t)
    return a0, bracket, sp.nsimplify(mu_of_t.subs(t, t_star[0])), (th, w, mu, g, l)


def values(rate: float, mu: float):
    """(a0 m/s^2, bracket) of the rod at THETA, rate, mu from the sympy derivation."""
    a0, bracket, _, (th, w, mu_s, g, l) = rod_contact_equation()
    subs = {th: THETA, w: rate, mu_s: mu, g: G, l: HALF}
    return float(a0.subs(subs)), float(bracket.subs(subs))


def test_the_critical_friction_coefficient_is_four_thirds():
    """The bracket 1 + 3 cos (cos - mu sin) from Newton-Euler, and its least root in mu:
    (t^2 + 4) / (3 t) is least at tan(theta) = 2, mu = 4/3."""
    a0, bracket, mu_crit, (th, w, mu, g, l) = rod_contact_equation()
    assert mu_crit == sp.Rational(4, 3)
    assert sp.simplify(bracket - (1 + 3 * sp.cos(th) * (sp.cos(th) - mu * sp.sin(th)))) == 0
    assert sp.simplify(a0 - (-g + l * sp.sin(th) * w**2)) == 0
    # at 60 deg the bracket is negative for mu = 2 (1 - 1.848) and positive for mu = 1.2
    assert values(0.0, 2.0)[1] < 0.0 < values(0.0, 1.2)[1]


def test_the_stepper_contact_problem_is_the_rods():
    """The stepper's D = J M^-1 J_Sigma^T and a0 = A - J M^-1 F of the end equal bracket / m
    and -g + l sin(theta) w^2 of the derivation (to 1e-12: sums of a few terms of order 10
    with the round-off of 2x2 rotations and a 3x3 solve, some 100 eps times 10)."""
    from fe_contact.coupling.constraints import evaluate_state
    from fe_contact.steppers.alpha import alpha_parameters
    from fe_contact.steppers.partitioned_step import StepAlgebra

    for rate in (0.0, 6.0):
        system, q0, u0 = rod(Sliding(2.0), rate)
        ev = evaluate_state(system, q0, u0, 0.0, slip_sign=np.array([-1.0]))
        problem = StepAlgebra(system, alpha_parameters(0.9)).contact_problem(ev, [0])
        a0, bracket = values(rate, 2.0)
        assert problem.free_acceleration[0] == pytest.approx(a0, abs=1e-12)
        assert problem.delassus[0, 0] == pytest.approx(bracket / MASS, abs=1e-12)


@pytest.mark.parametrize("law", [Sliding(2.0), Unilateral(2.0)], ids=["Sliding", "Unilateral"])
def test_the_inconsistent_case_is_named_in_a_failed_result(law):
    """At rest normally (w = 0: a0 = -g) with mu = 2 > 4/3 at 60 deg (bracket -0.848): no
    N >= 0 solves the contact problem. simulate returns a failed result with no row (no state
    of the start admits a motion) that names the inconsistent case and a0; with mu = 1.2 < 4/3
    the same rod slides on."""
    system, q0, u0 = rod(law, 0.0)
    res = simulate(system, (0.0, 1e-3), (q0, u0), h=1e-4)
    assert res.status == "failed" and not res.success
    assert res.t.size == 0 and res.q.shape == (0, 3) and res.n_steps == 0
    assert "PainleveError" in res.message and "inconsistent case" in res.message, res.message
    assert "end: -9.81 m/s^2" in res.message  # a0 = -g, formatted with 4 digits
    assert "at the start, t = 0 s" in res.message
    below = type(law)(1.2)
    system, q0, u0 = rod(below, 0.0)
    res = simulate(system, (0.0, 1e-3), (q0, u0), h=1e-4)
    assert res.status == "finished", res.message


def test_the_indeterminate_case_is_named_in_a_failed_result():
    """Turning at w = 6 rad/s, a0 = -g + l sin(60 deg) 36 = 5.778 m/s^2 > 0 with the bracket
    -0.848: N = 0 (lift-off at a0) and N = -a0 m / bracket = 6.814 N (the end stays) both
    solve the contact problem. A Sliding contact cannot lift off: a failed result naming the
    indeterminate case and both solutions (the values of the derivation, to the 4 digits
    printed)."""
    a0, bracket = values(6.0, 2.0)
    system, q0, u0 = rod(Sliding(2.0), 6.0)
    res = simulate(system, (0.0, 1e-3), (q0, u0), h=1e-4)
    assert res.status == "failed" and res.t.size == 0
    assert "indeterminate case: 2 solutions" in res.message, res.message
    assert f"end stays with N = {-a0 * MASS / bracket:.4g} N" in res.message
    assert f"end lifts off at {a0:.4g} m/s^2" in res.message


def test_a_unilateral_contact_takes_the_lift_off_branch(measured):
    """The indeterminate state with a Unilateral contact: the end lifts off at t = 0 (an
    "open" event) and the rod flies free: x = x0 + x' t, y = y0 + y' t - g t^2 / 2,
    theta = theta0 + w t, the gap y - l sin(theta) of the end in closed form (to 1e-12 m: the
    generalised-alpha update is exact for constant accelerations; round-off of sums of order
    1 m over 100 steps). Its acceleration at the start is a0 = 5.778 m/s^2 of the derivation:
    2 gap(t) / t^2 -> a0, to the third-order term l cos(theta) w^3 t / 3 (5e-4 relative at
    t = 1e-4 s); the normal force is zero throughout."""
    a0, bracket = values(6.0, 2.0)
    assert a0 > 0.0 > bracket
    system, q0, u0 = rod(Unilateral(2.0), 6.0)
    res = simulate(system, (0.0, 0.01), (q0, u0), h=1e-4)
    assert res.status == "finished", res.message
    assert res.events[0] == (0.0, "end", "open") and len(res.events) == 1
    t = res.t
    x = q0[0] + u0[0] * t
    y = q0[1] + u0[1] * t - 0.5 * G * t**2
    theta = q0[2] + u0[2] * t
    measured.close(
        "free flight (x, y, theta) after the lift-off",
        res.q,
        np.column_stack([x, y, theta]),
        atol=1e-12,
        unit="m, rad",
        reference="the closed-form free flight",
    )
    gap = y - HALF * np.sin(theta)
    np.testing.assert_allclose(res["end_gap"][1:], gap[1:], rtol=0, atol=1e-12)
    assert np.all(res["end_gap"][1:] > 0.0)
    jerk = HALF * np.cos(THETA) * 6.0**3  # d^3 gap / dt^3 at the start, m/s^3
    early = 2 * res["end_gap"][1] / t[1] ** 2
    assert early == pytest.approx(a0 + jerk * t[1] / 3, rel=1e-6)
    measured.close(
        "gap acceleration at the lift-off",
        early,
        a0,
        rtol=1e-3,
        unit="m/s^2",
        reference="a0 of the sympy derivation of the rod's contact equation",
    )
    assert np.all(np.nan_to_num(res["end_normal_force"][1:]) == 0.0)


def test_contact_problem_counts_the_solutions_of_one_row():
    """The scalar problem c = a0 + d N, N >= 0, c >= 0, N c = 0: one solution for d > 0 (N =
    -a0 / d when a0 < 0, else lift-off), none for d < 0 and a0 < 0, two for d < 0 and a0 > 0;
    a drive row (an equation) alongside leaves the counts as they are. The solves are of 1x1
    and 2x2 blocks with entries of order 1: exact to 1e-15 here."""
    cases = [(2.0, -4.0, "unique", [2.0]), (2.0, 3.0, "unique", [0.0])]
    cases += [(-2.0, -4.0, "inconsistent", []), (-2.0, 3.0, "indeterminate", [1.5, 0.0])]
    for d, a0, kind, normals in cases:
        problem = contact_problem(np.array([[d]]), np.array([a0]), [0])
        assert problem.kind == kind
        found = sorted((s.multipliers[0] for s in problem.solutions), reverse=True)
        np.testing.assert_allclose(found, normals, atol=1e-15)
        # with a drive row coupled to it: D = [[d, 0.5], [0.5, 1]], the drive held at c = 0
        D = np.array([[d + 0.25, 0.5], [0.5, 1.0]])  # its Schur complement on row 0 is d
        coupled = contact_problem(D, np.array([a0, 0.0]), [0])
        assert coupled.kind == kind
    lift = contact_problem(np.array([[-2.0]]), np.array([3.0]), [0]).lift_off(np.array([True]))
    assert lift is not None and not lift.active[0] and lift.accelerations[0] == 3.0
    none = contact_problem(np.array([[-2.0]]), np.array([3.0]), [0]).lift_off(np.array([False]))
    assert none is None  # a Sliding contact may not open


# --------------------------------------------------------------------------------------------
# Painleve states reached during the motion
# --------------------------------------------------------------------------------------------


def painleve_angles(mu: float):
    """The angles (rad) between which the bracket 1 + 3 cos (cos - mu sin) of the sympy
    derivation is negative: its roots tan(theta) = (3 mu -+ sqrt(9 mu^2 - 16)) / 2."""
    _, bracket, _, (th, w, mu_s, g, l) = rod_contact_equation()
    t = sp.symbols("t", positive=True)
    on_tan = sp.simplify(bracket.subs(mu_s, mu).subs(th, sp.atan(t)) * (1 + t**2))
    return sorted(float(sp.atan(root)) for root in sp.solve(on_tan, t))


def pulled_rod(law, theta: float, pull: float):
    """The rod at rest at ``theta``, its end on the line, its centre pulled to -x by a force
    growing as pull t (N; an actuator on the x joint: it enters neither the gap acceleration
    nor the bracket, only the tangential balance). The end sticks at the start (at rest, the
    static cone holds it) until the friction force it needs reaches mu N."""
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.0, 0.0), Body(MASS, MASS * HALF**2 / 3)),
        joints=(
            Joint("prismatic", actuator=lambda t: -pull * t),
            Joint("prismatic", parent=0, angle=np.pi / 2),
            Joint("revolute", parent=1, angle=-np.pi / 2),
        ),
    )
    contact = ContactPair("end", Point(2, (-HALF, 0.0)), Line((0.0, 0.0), (0.0, 1.0)), law)
    system = assemble(Model(tree=tree, contacts=(contact,)))
    return system, np.array([0.0, HALF * np.sin(theta), theta]), np.zeros(3)


def test_a_breakaway_into_the_painleve_range_lifts_off(measured):
    """The pulled rod (60 deg, 200 t N, mu = mu_s = 2) pivots on its stuck end until, at
    about 0.215 s and 75.6 deg, the friction force it needs reaches 2 N: the end would slip
    to -x, and the angle lies in the Painleve range of mu = 2 (37.4 to 79.2 deg, the roots of
    the derivation's bracket). There the sticking solution is also a slipping one (T = mu N),
    so a0 + bracket N / m = 0 with bracket < 0: a0 > 0, the indeterminate case, and a
    ``Unilateral`` end takes the lift-off branch at the breakaway ("slip" and "open" at the
    same instant, located inside a step of 1 ms). Checked against the derivation: on the
    last sticking row the gap acceleration a0 + (N (1 + 3 cos^2) - 3 T sin cos) / m of the
    stick's multipliers vanishes (to 1e-3 of its largest term: the generalised-alpha
    multipliers close the rows at position level, at acceleration level to O(h); measured
    5e-5), with bracket < 0 < a0 on the rows on both sides. Then the rod flies: with no
    contact force y and theta follow the closed-form free flight from the first row after the
    lift-off (to 1e-12 m and rad: the generalised-alpha update is exact for constant
    accelerations; round-off of sums of order 1 over 35 steps), with the gap positive."""
    low, high = painleve_angles(2.0)
    assert np.degrees(low) == pytest.approx(37.38, abs=0.01)
    assert np.degrees(high) == pytest.approx(79.19, abs=0.01)
    system, q0, u0 = pulled_rod(Unilateral(2.0), THETA, 200.0)
    res = simulate(system, (0.0, 0.25), (q0, u0), h=1e-3)
    assert res.status == "finished", res.message
    (t_slip, _, slip), (t_open, _, opened) = res.events
    assert (slip, opened) == ("slip", "open") and t_slip == t_open
    k = np.searchsorted(res.t, t_open)  # the first row after the lift-off
    assert res["end_state"][k - 1] == "stick" and res["end_state"][k] == "open"
    a0_expr, bracket_expr, _, (th, w, mu, g, l) = rod_contact_equation()
    for row in (k - 1, k):
        subs = {th: res.q[row, 2], w: res.u[row, 2], mu: 2.0, g: G, l: HALF}
        assert low < res.q[row, 2] < high
        assert float(a0_expr.subs(subs)) > 0.0 > float(bracket_expr.subs(subs))
    theta = res.q[k - 1, 2]
    a0 = float(a0_expr.subs({th: theta, w: res.u[k - 1, 2], g: G, l: HALF}))
    normal, friction = res["end_normal_force"][k - 1], res["end_friction_force"][k - 1]
    assert 0.0 < friction <= 2.0 * normal
    terms = (a0, normal * (1 + 3 * np.cos(theta) ** 2) / MASS)
    terms += (-3 * friction * np.sin(theta) * np.cos(theta) / MASS,)
    measured(
        "gap acceleration of the stick's multipliers at the breakaway",
        abs(sum(terms)),
        1e-3 * max(abs(x) for x in terms),
        unit="m/s^2",
        reference="a0 + bracket N / m - 3 T sin cos / m = 0 (sympy derivation)",
    )
    tau = res.t[k:] - res.t[k]
    y = res.q[k, 1] + res.u[k, 1] * tau - 0.5 * G * tau**2
    angle = res.q[k, 2] + res.u[k, 2] * tau
    np.testing.assert_allclose(res.q[k:, 1], y, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.q[k:, 2], angle, rtol=0, atol=1e-12)
    assert np.all(res["end_gap"][k:] > 0.0) and np.all(res["end_normal_force"][k:] == 0.0)


def test_a_bilateral_breakaway_into_the_painleve_range_is_a_failed_result():
    """The same rod with a ``Sliding`` (bilateral) end cannot lift off: the run ends at the
    breakaway with a failed result naming the indeterminate case, the rows up to it kept."""
    system, q0, u0 = pulled_rod(Sliding(2.0), THETA, 200.0)
    res = simulate(system, (0.0, 0.25), (q0, u0), h=1e-3)
    assert res.status == "failed"
    assert "indeterminate case: 2 solutions" in res.message, res.message
    assert 0.2 < res.t[-1] < 0.25 and np.all(res["end_state"][1:] == "stick")


@pytest.mark.parametrize("law", [Sliding(2.0), Unilateral(2.0)], ids=["Sliding", "Unilateral"])
def test_sliding_into_the_painleve_boundary_pressed_is_a_failed_result(law):
    """The rod at 36 deg, turning at 5.5 rad/s, its end sliding to -x at 18.4 m/s, mu = 2: the
    bracket falls from 0.11 to 0 as it turns towards 37.38 deg (the derivation's root) while
    the end stays pressed (a0 < 0), so N = -a0 m / bracket grows without bound (8.3 N at the
    start). Lifting off is not consistent there (a0 < 0) and past the root no N >= 0 exists:
    the run ends with a failed result naming the inconsistent case approached. Against the
    derivation at the last row: the angle within 0.1 deg below the root, a0 < 0 < bracket
    < 0.01, and the normal force N = -a0 m / bracket (to 1e-2 relative: the step's
    multiplier is that of the end of a step of 1e-4 s, over which N changes by 10 % here;
    measured 1e-4 relative)."""
    low, _ = painleve_angles(2.0)
    theta0 = np.radians(36.0)
    system, _, _ = rod(law, 0.0)
    q0 = np.array([0.0, HALF * np.sin(theta0), theta0])
    u0 = np.array([-20.0, HALF * np.cos(theta0) * 5.5, 5.5])
    res = simulate(system, (0.0, 0.01), (q0, u0), h=1e-4)
    assert res.status == "failed" and 0.0 < res.t[-1] < 0.005
    assert "inconsistent case approached" in res.message, res.message
    assert "lifting off is not consistent" in res.message
    theta, rate = res.q[-1, 2], res.u[-1, 2]
    assert low - np.radians(0.1) < theta < low
    a0, bracket, _, (th, w, mu, g, l) = rod_contact_equation()
    subs = {th: theta, w: rate, mu: 2.0, g: G, l: HALF}
    a0, bracket = float(a0.subs(subs)), float(bracket.subs(subs))
    assert a0 < 0.0 < bracket < 0.01
    assert res["end_normal_force"][-1] == pytest.approx(-a0 * MASS / bracket, rel=1e-2)
    assert np.all(res["end_state"] == "slip")


def test_more_contacts_than_enumerated_say_that_the_case_is_not_named():
    """Eleven copies of the inconsistent row (d = -2, a0 = -4, uncoupled): 2^11 active sets
    are more than MAX_ENUMERATED = 10 allows; the problem says so in words instead of naming a
    case, and seeks no lift-off; ten copies are enumerated and found inconsistent (each row
    alone has no solution)."""
    from fe_contact.steppers.painleve import MAX_ENUMERATED

    names = [f"c{i}" for i in range(MAX_ENUMERATED + 1)]
    many = contact_problem(-2.0 * np.eye(11), np.full(11, -4.0), np.arange(11))
    assert many.kind is None and many.solutions is None
    assert many.lift_off(np.ones(11, dtype=bool)) is None
    text = many.describe(names)
    assert "11 closed contacts, more than MAX_ENUMERATED = 10" in text
    assert "2^11 active sets are not enumerated" in text
    ten = contact_problem(-2.0 * np.eye(10), np.full(10, -4.0), np.arange(10))
    assert ten.kind == "inconsistent"
    assert ten.describe(names[:10]).startswith("inconsistent case")
