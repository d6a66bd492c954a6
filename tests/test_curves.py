"""Profile curves (Bauchau (000), sec. 2.2): Bézier curves against their Bernstein form derived
with sympy, a Bézier parabola against its closed-form curvature, uniform cubic B-splines
against their closed-form values at the knots, the outward normal of 000's cam profile, the
closest point, and the input checks."""

import numpy as np
import pytest
import sympy as sp

from fe_contact.curves import Curve

TABLE_4 = [(-0.1, 0.2), (-1.0, 0.0), (0.0, -0.3), (1.0, 0.0), (0.1, 0.2)]  # 000, m
TABLE_5 = [(-0.025, -0.025), (0.025, -0.1), (0.125, 0.0), (0.025, 0.1), (-0.025, 0.025)]
ETAS = [0.0, 0.13, 0.5, 0.87, 1.0]


def test_bezier_equals_its_bernstein_form_with_three_derivatives(measured):
    """p0 = sum_i C(d, i) eta^i (1 - eta)^(d - i) P_i and its eta-derivatives, by sympy, at
    five parameters including both ends: equal to 1e-14 m (round-off of degree-4 sums)."""
    eta = sp.symbols("eta")
    d = len(TABLE_4) - 1
    p = [
        sum(
            sp.binomial(d, i) * eta**i * (1 - eta) ** (d - i) * sp.Rational(str(P[c]))
            for i, P in enumerate(TABLE_4)
        )
        for c in (0, 1)
    ]
    curve = Curve.bezier(TABLE_4)
    errors = []
    for e in ETAS:
        g = curve.at(e)
        for k, got in enumerate((g.position, g.p1, g.p2, g.p3)):
            want = [float(sp.diff(pc, eta, k).subs(eta, e)) for pc in p]
            errors.append(np.abs(np.asarray(got) - want))
    measured.each(
        "position and three eta-derivatives at 5 parameters",
        np.concatenate(errors),
        1e-14,
        unit="m",
        reference="the Bernstein form, differentiated by sympy",
    )


def test_bezier_parabola_curvature_tangent_and_normal():
    """Control points (-1, 1), (0, -1), (1, 1) give y = x^2 with x = 2 eta - 1: curvature
    2 / (1 + 4 x^2)^(3/2) (positive: the curve turns left), unit tangent (1, 2x) / sqrt(1 + 4 x^2),
    outward normal t x e_z = (t_y, -t_x) (below the parabola, away from its convex side)."""
    curve = Curve.bezier([(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)])
    for e in ETAS:
        x = 2 * e - 1
        g = curve.at(e)
        root = np.sqrt(1 + 4 * x * x)
        np.testing.assert_allclose(g.position, [x, x * x], atol=1e-15)
        assert g.curvature == pytest.approx(2 / root**3, rel=1e-14)
        np.testing.assert_allclose(g.tangent, np.array([1.0, 2 * x]) / root, atol=1e-15)
        np.testing.assert_allclose(g.normal, np.array([2 * x, -1.0]) / root, atol=1e-15)
        assert g.speed == pytest.approx(2 * root, rel=1e-14)


def test_tangent_and_normal_rates_are_their_eta_derivatives():
    """dt/deta = -kappa |p1| n and dn/deta = kappa |p1| t against central differences of the
    unit vectors (step 1e-6: truncation ~1e-12, round-off ~1e-10)."""
    curve = Curve.bezier(TABLE_4)
    for e in (0.1, 0.4, 0.77):
        g = curve.at(e)
        lo, hi = curve.at(e - 1e-6), curve.at(e + 1e-6)
        np.testing.assert_allclose(g.tangent_rate, (hi.tangent - lo.tangent) / 2e-6, atol=1e-8)
        np.testing.assert_allclose(g.normal_rate, (hi.normal - lo.normal) / 2e-6, atol=1e-8)


def test_cam_profile_normal_points_out_of_the_cam():
    """000's cam (Table 5) runs counter-clockwise round its body's origin: at its nose (eta =
    0.5, the point (0.0625 + ..., 0) on the +x side) the outward normal is +x, and everywhere the
    normal points away from the origin of the body (the profile is star-shaped about it)."""
    curve = Curve.bezier(TABLE_5)
    nose = curve.at(0.5)
    assert nose.position[0] > 0.05 and abs(nose.position[1]) < 1e-15
    np.testing.assert_allclose(nose.normal, [1.0, 0.0], atol=1e-15)
    for e in np.linspace(0.05, 0.95, 19):
        g = curve.at(e)
        assert g.normal @ g.position > 0.0


def test_uniform_cubic_bspline_at_its_knots():
    """A uniform cubic B-spline on N points runs over N - 3 knot spans; at the span ends it is
    (P_i + 4 P_i+1 + P_i+2) / 6 with the derivative (P_i+2 - P_i) / 2 per knot span (times
    N - 3 per unit eta), closed forms of the uniform basis. 000's cavity polygon (Table 3)."""
    table_3 = np.array(
        [(0.10, 0.10), (0.20, 0.05), (0.20, -0.05), (0.04, -0.05), (0.09, -0.15),
         (-0.09, -0.15), (-0.04, -0.05), (-0.20, -0.05), (-0.20, 0.05), (-0.10, 0.10)]
    )  # fmt: skip
    curve = Curve.bspline(table_3, clamped=False)
    spans = len(table_3) - 3
    for i in range(spans + 1):
        g = curve.at(i / spans)
        P0, P1, P2 = table_3[i : i + 3]
        np.testing.assert_allclose(g.position, (P0 + 4 * P1 + P2) / 6, atol=1e-15)
        np.testing.assert_allclose(g.p1, spans * (P2 - P0) / 2, atol=1e-13)
        np.testing.assert_allclose(g.p2, spans**2 * (P0 - 2 * P1 + P2), atol=1e-12)


def test_clamped_bspline_interpolates_its_ends_and_a_single_span_is_the_bezier():
    """A clamped B-spline starts at the first control point along P1 - P0 and ends at the last;
    with degree + 1 points it is the Bézier curve of the same polygon."""
    points = np.array(TABLE_4)
    curve = Curve.bspline(points, degree=3)
    start, end = curve.at(0.0), curve.at(1.0)
    np.testing.assert_allclose(start.position, points[0], atol=1e-15)
    np.testing.assert_allclose(end.position, points[-1], atol=1e-15)
    d = points[1] - points[0]
    np.testing.assert_allclose(start.tangent, d / np.hypot(*d), atol=1e-15)
    single = Curve.bspline(points, degree=4)
    bezier = Curve.bezier(points)
    for e in ETAS:
        np.testing.assert_allclose(single.at(e).p2, bezier.at(e).p2, atol=1e-13)


def test_closest_point_of_a_point_off_the_curve():
    """A point 0.2 m along the outward normal of the parabola at eta = 0.3 projects back onto
    eta = 0.3 (to 1e-12), with or without a guess; a point beyond the curve's end gives the
    end."""
    curve = Curve.bezier([(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)])
    g = curve.at(0.3)
    point = g.position + 0.2 * g.normal
    assert curve.closest(point) == pytest.approx(0.3, abs=1e-12)
    assert curve.closest(point, eta_guess=0.9) == pytest.approx(0.3, abs=1e-12)
    assert curve.closest((3.0, 2.0)) == 1.0


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: Curve.bezier([(0.0, 0.0)]), ValueError, "Curve.bezier.control_points"),
        (lambda: Curve.bezier([(0.0, 0.0), (1.0, np.nan)]), ValueError, "finite"),
        (lambda: Curve.bezier([(0.0, 0.0, 0.0), (1.0, 1.0, 1.0)]), ValueError, r"\(N, 2\)"),
        (lambda: Curve.bezier("abc"), TypeError, "control points"),
        (lambda: Curve.bspline(TABLE_4[:3], degree=3), ValueError, "N >= 4"),
        (lambda: Curve.bspline(TABLE_4, degree=0), ValueError, "Curve.bspline.degree"),
        (lambda: Curve.bspline(TABLE_4, clamped="yes"), TypeError, "Curve.bspline.clamped"),
        (lambda: Curve.bezier(TABLE_4).at(1.5), ValueError, "Curve.at.eta"),
        (lambda: Curve.bezier([(0.0, 0.0), (0.0, 0.0)]).at(0.5), ValueError, "no tangent"),
    ],
)
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()
