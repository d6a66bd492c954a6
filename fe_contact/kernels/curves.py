"""Compiled (numba) geometry of the planar B-spline and Bezier profiles, Bauchau (000), secs.
2.2-5: the curve point and its eta-derivatives for a batch of parameters, and the three Newton
solves of the contact point, each on one curve in a body frame (rotation by ``angle``, then
``origin``):

* ``closest_point``: the parameter of a curve's point closest to a point, Newton on the
  orthogonality condition (p - p0) . p1 = 0 (000 eq. 6 with a point for the other curve);
* ``pair_newton``: the candidate contact pair (eta_k, eta_l) of two curves, Newton on
  f1 = T_k x T_l = 0, f2 = (Z_k - Z_l) . T_l = 0 (000 eqs. 5-6);
* ``support_newton``: the support point of a curve in the direction -n of a line's normal,
  Newton on n . T(eta) = 0 (000 eq. 5 with a straight second curve).

A curve is given as ``curves.Curve`` holds it: ``knots`` (n_coef + degree + 1,) of the spline
in its knot parameter x, ``coefficients`` (n_coef, 2), the control points in m, ``degree`` and
(a, b): eta in [0, 1] is the knot parameter x = a + (b - a) eta. A derivative with respect to
eta is (b - a)^k times the one with respect to x. The basis functions and their derivatives are
those of Piegl and Tiller, The NURBS Book (2nd ed., 1997), algorithms A2.1 (the knot span) and
A2.3 (the derivatives of the nonzero basis functions); outside [x_degree, x_n_coef] the
polynomial of the first or last span is continued (as scipy's ``BSpline`` extrapolates).

The Python modules (``curves``, ``coupling.profile_contact``, ``profile_line``,
``profile_structure``) call these and keep only the global searches' choices and the
bookkeeping. A Newton solve returns a status code with its parameters: ``FOUND``, ``FLAT``
(a singular Jacobian: parallel flats, no isolated contact point), ``BEYOND`` (pushed past an
end of a curve), ``WRONG_SIDE`` (converged on a pair whose outward normals do not face each
other) or ``NOT_CONVERGED`` (the iteration limit).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .jit import inner

FOUND, FLAT, BEYOND, WRONG_SIDE, NOT_CONVERGED = 0, 1, 2, 3, 4
MAX_DERIVATIVE = 3  # p0 .. p3

__all__ = [
    "BEYOND",
    "FLAT",
    "FOUND",
    "NOT_CONVERGED",
    "WRONG_SIDE",
    "pair_newton",
    "closest_point",
    "curve_derivatives",
    "curve_points",
    "support_newton",
]


@inner
def _span(knots, degree, n_coef, x):
    """The knot span i in [degree, n_coef - 1] with knots[i] <= x < knots[i + 1] (the last
    span at its right end and beyond, the first below it): Piegl-Tiller A2.1."""
    if x >= knots[n_coef]:
        return n_coef - 1
    if x <= knots[degree]:
        low = degree
        while knots[low + 1] <= knots[degree] and low < n_coef - 1:
            low += 1  # the first span of nonzero length
        return low
    low, high = degree, n_coef
    while high - low > 1:
        mid = (low + high) // 2
        if x < knots[mid]:
            high = mid
        else:
            low = mid
    return low


@inner
def _basis_derivatives(knots, degree, span, x, n_der, ders):
    """The nonzero basis functions N_{span-degree+j} (j = 0..degree) at x and their first
    ``n_der`` x-derivatives into ders[k, j] (Piegl-Tiller A2.3)."""
    p = degree
    ndu = np.empty((p + 1, p + 1))
    left = np.empty(p + 1)
    right = np.empty(p + 1)
    a = np.empty((2, p + 1))
    ndu[0, 0] = 1.0
    for j in range(1, p + 1):
        left[j] = x - knots[span + 1 - j]
        right[j] = knots[span + j] - x
        saved = 0.0
        for r in range(j):
            ndu[j, r] = right[r + 1] + left[j - r]
            temp = ndu[r, j - 1] / ndu[j, r]
            ndu[r, j] = saved + right[r + 1] * temp
            saved = left[j - r] * temp
        ndu[j, j] = saved
    for j in range(p + 1):
        ders[0, j] = ndu[j, p]
    for r in range(p + 1):
        s1, s2 = 0, 1
        a[0, 0] = 1.0
        for k in range(1, n_der + 1):
            d = 0.0
            rk, pk = r - k, p - k
            if r >= k:
                a[s2, 0] = a[s1, 0] / ndu[pk + 1, rk]
                d = a[s2, 0] * ndu[rk, pk]
            j1 = 1 if rk >= -1 else -rk
            j2 = k - 1 if r - 1 <= pk else p - r
            for j in range(j1, j2 + 1):
                a[s2, j] = (a[s1, j] - a[s1, j - 1]) / ndu[pk + 1, rk + j]
                d += a[s2, j] * ndu[rk + j, pk]
            if r <= pk:
                a[s2, k] = -a[s1, k - 1] / ndu[pk + 1, r]
                d += a[s2, k] * ndu[r, pk]
            ders[k, r] = d
            s1, s2 = s2, s1
    factor = float(p)
    for k in range(1, n_der + 1):
        for j in range(p + 1):
            ders[k, j] *= factor
        factor *= p - k


@njit(cache=True)
def curve_derivatives(knots, coefficients, degree, a, b, eta, out):
    """p0(eta) and its eta-derivatives p1, p2, p3 (000 eq. 2) into out (4, 2), m per unit
    eta^k; those above the degree are zero."""
    n_coef = coefficients.shape[0]
    x = a + (b - a) * eta
    span = _span(knots, degree, n_coef, x)
    n_der = min(MAX_DERIVATIVE, degree)
    ders = np.zeros((MAX_DERIVATIVE + 1, degree + 1))
    _basis_derivatives(knots, degree, span, x, n_der, ders)
    scale = 1.0
    for k in range(MAX_DERIVATIVE + 1):
        sx = 0.0
        sy = 0.0
        if k <= n_der:
            for j in range(degree + 1):
                c = span - degree + j
                sx += ders[k, j] * coefficients[c, 0]
                sy += ders[k, j] * coefficients[c, 1]
        out[k, 0] = scale * sx
        out[k, 1] = scale * sy
        scale *= b - a


@njit(cache=True)
def curve_points(knots, coefficients, degree, a, b, etas, n_der):
    """p0 .. p_n_der at each of the parameters etas (m,): (m, n_der + 1, 2)."""
    m = etas.shape[0]
    result = np.empty((m, n_der + 1, 2))
    one = np.empty((MAX_DERIVATIVE + 1, 2))
    for i in range(m):
        curve_derivatives(knots, coefficients, degree, a, b, etas[i], one)
        for k in range(n_der + 1):
            result[i, k, 0] = one[k, 0]
            result[i, k, 1] = one[k, 1]
    return result


@inner
def _world(knots, coefficients, degree, a, b, c, s, ox, oy, eta, out, world):
    """(Z, T, T') (000 eq. 4) of curve point eta in a frame of rotation (c, s) and origin o
    into world (3, 2)."""
    curve_derivatives(knots, coefficients, degree, a, b, eta, out)
    world[0, 0] = c * out[0, 0] - s * out[0, 1] + ox
    world[0, 1] = s * out[0, 0] + c * out[0, 1] + oy
    for k in (1, 2):
        world[k, 0] = c * out[k, 0] - s * out[k, 1]
        world[k, 1] = s * out[k, 0] + c * out[k, 1]


@njit(cache=True)
def closest_point(knots, coefficients, degree, a, b, px, py, eta, tol):
    """The parameter in [0, 1] of the curve's point closest to p = (px, py) m (in the curve's
    frame), by Newton on (p - p0) . p1 = 0 from ``eta`` (at most 50 iterations; where
    (p - p0) . p2 - |p1|^2 >= 0, not a minimum along the curve, a gradient step with -|p1|^2
    instead). An end of the curve when the closest point lies there."""
    out = np.empty((MAX_DERIVATIVE + 1, 2))
    for _ in range(50):
        curve_derivatives(knots, coefficients, degree, a, b, eta, out)
        dx = px - out[0, 0]
        dy = py - out[0, 1]
        speed2 = out[1, 0] * out[1, 0] + out[1, 1] * out[1, 1]
        f = dx * out[1, 0] + dy * out[1, 1]
        df = dx * out[2, 0] + dy * out[2, 1] - speed2
        if df >= 0.0:
            df = -speed2
        new = min(max(eta - f / df, 0.0), 1.0)
        if abs(new - eta) <= tol:
            return new
        eta = new
    return eta


@njit(cache=True)
def pair_newton(
    knots_k,
    coef_k,
    degree_k,
    a_k,
    b_k,
    angle_k,
    origin_k,
    knots_l,
    coef_l,
    degree_l,
    a_l,
    b_l,
    angle_l,
    origin_l,
    eta_k,
    eta_l,
    tol,
):
    """(status, eta_k, eta_l): the candidate contact pair of curve k (in the frame of angle_k
    rad and origin_k (2,) m) and curve l, Newton on 000 eqs. (5)-(6) from (eta_k, eta_l), at
    most 30 iterations, each step damped to a tenth of the parameter range. FOUND only with
    opposite tangents (T_k . T_l < 0: the outward normals face each other)."""
    ck, sk = math.cos(angle_k), math.sin(angle_k)
    cl, sl = math.cos(angle_l), math.sin(angle_l)
    out = np.empty((MAX_DERIVATIVE + 1, 2))
    wk = np.empty((3, 2))
    wl = np.empty((3, 2))
    for _ in range(30):
        _world(
            knots_k, coef_k, degree_k, a_k, b_k, ck, sk, origin_k[0], origin_k[1], eta_k, out, wk
        )
        _world(
            knots_l, coef_l, degree_l, a_l, b_l, cl, sl, origin_l[0], origin_l[1], eta_l, out, wl
        )
        dx = wk[0, 0] - wl[0, 0]
        dy = wk[0, 1] - wl[0, 1]
        tk0, tk1, tl0, tl1 = wk[1, 0], wk[1, 1], wl[1, 0], wl[1, 1]
        f1 = tk0 * tl1 - tk1 * tl0
        f2 = dx * tl0 + dy * tl1
        dot = tk0 * tl0 + tk1 * tl1
        j11 = wk[2, 0] * tl1 - wk[2, 1] * tl0
        j12 = tk0 * wl[2, 1] - tk1 * wl[2, 0]
        j21 = dot
        j22 = dx * wl[2, 0] + dy * wl[2, 1] - (tl0 * tl0 + tl1 * tl1)
        det = j11 * j22 - j12 * j21
        scale = (tk0 * tk0 + tk1 * tk1) * (tl0 * tl0 + tl1 * tl1)
        if not abs(det) > 1e-12 * scale:
            return FLAT, eta_k, eta_l
        step_k = (j22 * f1 - j12 * f2) / det
        step_l = (j11 * f2 - j21 * f1) / det
        size = max(abs(step_k), abs(step_l))
        if size > 0.1:  # damped: at most a tenth of the parameter range per iteration
            step_k *= 0.1 / size
            step_l *= 0.1 / size
        new_k = eta_k - step_k
        new_l = eta_l - step_l
        if min(new_k, new_l) < -1e-9 or max(new_k, new_l) > 1.0 + 1e-9:
            new_k = min(max(new_k, 0.0), 1.0)
            new_l = min(max(new_l, 0.0), 1.0)
            if abs(new_k - eta_k) <= tol and abs(new_l - eta_l) <= tol:
                return BEYOND, eta_k, eta_l
        if max(abs(new_k - eta_k), abs(new_l - eta_l)) <= tol:
            if dot < 0.0:
                return FOUND, new_k, new_l
            return WRONG_SIDE, new_k, new_l
        eta_k, eta_l = new_k, new_l
    return NOT_CONVERGED, eta_k, eta_l


@njit(cache=True)
def support_newton(knots, coefficients, degree, a, b, angle, normal, eta, tol):
    """(status, eta): the support point of the curve (in the frame of ``angle`` rad) in the
    direction -``normal`` (2,), Newton on n . T(eta) = 0 from ``eta``, at most 40 iterations
    damped to a tenth of the parameter range; FOUND only where the curve's outward normal
    (T turned by -90 degrees) is against n."""
    c, s = math.cos(angle), math.sin(angle)
    out = np.empty((MAX_DERIVATIVE + 1, 2))
    w = np.empty((3, 2))
    for _ in range(40):
        _world(knots, coefficients, degree, a, b, c, s, 0.0, 0.0, eta, out, w)
        f = normal[0] * w[1, 0] + normal[1] * w[1, 1]
        df = normal[0] * w[2, 0] + normal[1] * w[2, 1]
        if not abs(df) > 1e-12 * (w[1, 0] * w[1, 0] + w[1, 1] * w[1, 1]):
            return FLAT, eta
        step = f / df
        if abs(step) > 0.1:
            step = 0.1 if step > 0.0 else -0.1
        new = eta - step
        if new < -1e-9 or new > 1.0 + 1e-9:
            new = min(max(new, 0.0), 1.0)
            if abs(new - eta) <= tol:
                return BEYOND, eta
        if abs(new - eta) <= tol:
            _world(knots, coefficients, degree, a, b, c, s, 0.0, 0.0, new, out, w)
            # the outward normal (T_y, -T_x) / |T| against n
            if w[1, 1] * normal[0] - w[1, 0] * normal[1] < 0.0:
                return FOUND, new
            return WRONG_SIDE, new
        eta = new
    return NOT_CONVERGED, eta
