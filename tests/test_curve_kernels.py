"""The compiled profile geometry (``kernels.curves``, Bauchau (000), secs. 2.2-5) against
independent references: the closed-form uniform cubic B-spline segment and its derivatives
(sympy), central finite differences of a clamped B-spline, the closest point of a parabola
from the roots of its cubic, the contact pair of two facing parabolas from the roots of the
cubic their symmetry gives, the lowest point of a turned parabola in closed form, and the
statuses of flats and of a solution beyond a curve's end."""

import math

import numpy as np
import pytest
import sympy as sp

from fe_contact.curves import Curve
from fe_contact.kernels import curves as kernel

PARABOLA = [(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)]  # y = x^2, x = 2 eta - 1
POLYGON = [(0.0, 0.0), (0.3, 0.5), (0.9, 0.4), (1.2, -0.2), (1.8, 0.1), (2.0, 0.7), (2.6, 0.5)]


def test_uniform_cubic_bspline_equals_its_closed_form_segment_with_three_derivatives():
    """A uniform cubic B-spline on N = 7 points runs over N - 3 = 4 knot spans; on span i with
    local t in [0, 1], p = ((1-t)^3 P_i + (3t^3 - 6t^2 + 4) P_i+1 + (-3t^3 + 3t^2 + 3t + 1)
    P_i+2 + t^3 P_i+3) / 6, and eta = (i + t) / 4, so d^k/deta^k = 4^k d^k/dt^k (sympy). A batch
    of 9 parameters (knots and interior points): equal to 1e-13 in units of the polygon's size
    (2.6 m; sums of 4 terms with coefficients <= 4^3 / 6 ~ 11: about 50 eps)."""
    t = sp.symbols("t")
    blend = [(1 - t) ** 3, 3 * t**3 - 6 * t**2 + 4, -3 * t**3 + 3 * t**2 + 3 * t + 1, t**3]
    points = np.array(POLYGON)
    curve = Curve.bspline(POLYGON, 3, clamped=False)
    etas = np.array([0.0, 0.1, 0.25, 0.3, 0.5, 0.61, 0.75, 0.9, 1.0])
    got = curve.derivatives(etas, 3)
    for m, eta in enumerate(etas):
        i = min(int(eta * 4), 3)
        local = eta * 4 - i
        for k in range(4):
            want = [
                float(
                    4**k
                    * sum(
                        sp.diff(b, t, k).subs(t, local) * points[i + j, c]
                        for j, b in enumerate(blend)
                    )
                    / 6
                )
                for c in (0, 1)
            ]
            np.testing.assert_allclose(got[m, k], want, rtol=0, atol=1e-13 * 2.6 * 4**k)


def test_clamped_bspline_derivatives_are_central_differences_of_lower_ones():
    """dp_k/deta = p_(k+1) by central differences with step 1e-5 away from the knots (the
    truncation error h^2 |p_(k+2)| / 6 < 1e-8 for |p_(k+2)| < 300 m, the round-off 1e-16 |p_k| /
    h < 1e-9): to 1e-6 of the derivative's size."""
    curve = Curve.bspline(POLYGON, 3)
    h = 1e-5
    etas = np.array([0.07, 0.31, 0.52, 0.88])  # knots at multiples of 1/4: not at them
    centre = curve.derivatives(etas, 3)
    plus = curve.derivatives(etas + h, 3)
    minus = curve.derivatives(etas - h, 3)
    for k in range(3):
        fd = (plus[:, k] - minus[:, k]) / (2 * h)
        scale = np.max(np.abs(centre[:, k + 1]))
        np.testing.assert_allclose(fd, centre[:, k + 1], rtol=0, atol=1e-6 * scale)


def test_derivatives_above_the_degree_vanish_and_a_scalar_keeps_its_shape():
    """A quadratic has p3 = 0 exactly (no term is summed); position of a scalar is (2,)."""
    curve = Curve.bezier(PARABOLA)
    assert np.all(curve.derivatives([0.2, 0.7], 3)[:, 3] == 0.0)
    assert curve.position(0.5).shape == (2,)
    assert curve.position(np.zeros((2, 3))).shape == (2, 3, 2)


@pytest.mark.parametrize("point", [(0.3, 2.0), (-0.7, 0.1), (0.05, -0.4), (2.0, 0.5)])
def test_closest_point_of_a_parabola_is_a_root_of_its_cubic(point):
    """The closest point (x, x^2) of y = x^2 to p minimises (x - px)^2 + (x^2 - py)^2: a real
    root of 2 x^3 + (1 - 2 py) x - px = 0 (numpy's roots, the nearest of them, clipped to the
    curve's x in [-1, 1]). eta = (x + 1) / 2 to 1e-10 (Newton stops at 1e-14; numpy's
    companion-matrix roots carry ~1e-12 of round-off)."""
    px, py = point
    roots = np.roots([2.0, 0.0, 1.0 - 2.0 * py, -px])
    xs = np.clip(roots[np.abs(roots.imag) < 1e-9].real, -1.0, 1.0)
    x = xs[np.argmin((xs - px) ** 2 + (xs**2 - py) ** 2)]
    curve = Curve.bezier(PARABOLA)
    start = curve.closest(point)  # the global search, then Newton
    assert start == pytest.approx((x + 1.0) / 2.0, abs=1e-10)
    k = curve.spline
    eta = kernel.closest_point(*k, px, py, 0.5, 1e-14)  # Newton alone from the vertex
    assert eta == pytest.approx((x + 1.0) / 2.0, abs=1e-10)


def test_contact_pair_of_two_facing_parabolas_is_the_root_of_their_cubic():
    """Curve l: y = x^2 in place; curve k: the same parabola turned by pi about its origin,
    placed at o = (c, h): Z_k = (c - x, h - x^2), below l, the outward normals facing. By the
    symmetry about (c/2, h/2) the pair has eta_k = eta_l, x = 2 eta - 1, tangents (1, 2x) and
    -(1, 2x) parallel (000 eq. 5), and eq. 6: (c - 2x, h - 2x^2) . (1, 2x) = 0, i.e.
    -4 x^3 + (2h - 2) x + c = 0, one real root for h < 1. To 1e-10 (Newton to 1e-13)."""
    c, h = 0.3, -0.5
    roots = np.roots([-4.0, 0.0, 2.0 * h - 2.0, c])
    x = float(roots[np.abs(roots.imag) < 1e-9].real[0])
    k = Curve.bezier(PARABOLA).spline
    status, eta_k, eta_l = kernel.pair_newton(
        *k, math.pi, np.array([c, h]), *k, 0.0, np.zeros(2), 0.4, 0.6, 1e-13
    )
    assert status == kernel.FOUND
    assert eta_k == pytest.approx((x + 1.0) / 2.0, abs=1e-10)
    assert eta_l == pytest.approx((x + 1.0) / 2.0, abs=1e-10)


def test_two_parallel_straight_profiles_have_no_isolated_pair():
    """Two straight segments with opposite directions: T_k x T_l = 0 for every pair, a singular
    Jacobian (FLAT), as for a straight line: FLAT."""
    segment = Curve.bezier([(0.0, 0.0), (1.0, 0.0)]).spline
    status, _, _ = kernel.pair_newton(
        *segment, math.pi, np.array([1.0, -0.1]), *segment, 0.0, np.zeros(2), 0.5, 0.5, 1e-13
    )
    assert status == kernel.FLAT
    status, _ = kernel.support_newton(*segment, 0.0, np.array([0.0, 1.0]), 0.5, 1e-13)
    assert status == kernel.FLAT


def test_support_point_of_a_turned_parabola_is_its_lowest_point():
    """y = x^2 turned by theta: the tangent R (1, 2x) is horizontal (n = e_y: n . T = 0) at
    sin(theta) + 2 x cos(theta) = 0, x = -tan(theta) / 2, and the outward normal there points
    down, against n: FOUND at eta = (x + 1) / 2 to 1e-12. Turned by 1.5 rad the lowest point
    x = -7 lies beyond the curve's end: BEYOND."""
    k = Curve.bezier(PARABOLA).spline
    n = np.array([0.0, 1.0])
    theta = 0.3
    status, eta = kernel.support_newton(*k, theta, n, 0.5, 1e-13)
    assert status == kernel.FOUND
    assert eta == pytest.approx((1.0 - math.tan(theta) / 2.0) / 2.0, abs=1e-12)
    status, eta = kernel.support_newton(*k, 0.3, -n, 0.5, 1e-13)  # the top: the wrong side
    assert status == kernel.WRONG_SIDE
    status, _ = kernel.support_newton(*k, 1.5, n, 0.5, 1e-13)
    assert status == kernel.BEYOND
