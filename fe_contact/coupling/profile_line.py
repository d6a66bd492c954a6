"""A curved profile (``model.Profile``) against a rigid straight line (``model.Line``), Bauchau
(000), eqs. (5)-(7), (14), (17) with a straight line for the second curve.

The line goes through p with unit normal n towards its free side, fixed in the plane or on a
translating tree body (``frames.body_frame`` of the line's body: p and n in its frame). The
contact point of the profile's curve Z(eta) = o + R p0(eta) is its support point in the
direction -n, where the tangent is perpendicular to the line's normal (000 eq. 5 with T_l along
the line):

    f(eta) = n . T(eta) = 0,   f'(eta) = n . T'(eta)

solved by Newton's method on eta from the last solution (the warm start that
``profile_contact.curved_contact`` keeps per pair), damped to a tenth of the parameter range
per iteration. The accepted solution has the profile's outward normal against n (the lowest
point of a convex foot, not its top). When the pair first closes (no warm start, or Newton
fails) a global search starts Newton from the least of n . (Z - p) over 40 N samples of the
curve; while the control polygon lies wholly on the free side (a Bezier or B-spline curve lies
in its polygon's convex hull) the pair is open with min n . (P_i - p) over the control points as
its gap, a lower bound of the true one.

* gap g = n . (Z(eta) - p) (000 eq. 7; > 0 apart, < 0 the approach of a compliant contact);
* foot point Z_l = Z - g n on the line, the line's material point there moves with its body;
* tangent t = n turned by -90 degrees; W_N = n . (J_k - J_l), W_T = t . (J_k - J_l) with the
  Jacobians of the profile's material point at eta and of the line's material point at Z_l
  (000 eq. 14: the eta-rate drops out since n . T = 0); the generalised contact forces are
  W_N^T F_n + W_T^T F_t (000 eq. 17);
* parameter: the coordinate of Z_l along the line from p, t . (Z_l - p), in m (where a
  sticking contact's anchor is measured for a Point or Circle on a line);
* the acceleration remainders A, A_T (the curvature terms of rolling) are the directional
  central differences of ``profile_contact.curved_contact``.

As for two profiles: a straight stretch of the profile parallel to the line (f vanishes
identically: two flats) has no isolated contact point, Newton meets f' = 0 and the pair has no
contact point (None); a support point beyond an end of an open curve (the curve's end is its
lowest point) is None too: the pair is open, or a bilateral one has left the profile.
"""

from __future__ import annotations

import numpy as np

from ..curves import PERP
from ..kernels import curves as kernel
from .frames import body_frame
from .profile_geometry import far_apart, touching, world_samples


def _global_start(curve, frame, normal, point) -> float:
    """eta of the least of n . (Z - p) over 40 N samples of the curve (N control points)."""
    eta, z = world_samples(curve, frame)
    return float(eta[int(np.argmin((z - point) @ normal))])


def support_point(curve, frame, normal, starts, tol: float = 1e-13):
    """eta of the support point of the curve (in ``frame``) in the direction -``normal``:
    n . T(eta) = 0 with the curve's outward normal against n (module docstring; Newton in
    ``kernels.curves.support_newton``), or None (a flat parallel to the line, or the support
    point beyond an end of the curve). ``starts``: starting values of eta tried in turn
    (callables are evaluated when reached)."""
    normal = np.ascontiguousarray(normal, dtype=float)
    for start in starts:
        eta = float(start() if callable(start) else start)
        status, eta = kernel.support_newton(*curve.spline, float(frame.angle), normal, eta, tol)
        if status == kernel.FOUND:
            return float(eta)
    return None


def line_build(system, k: int, q, u, guess):
    """``profile_contact._build`` for a Profile against a Line: (kinematics without
    remainders, (eta, line coordinate)), (None, None) without a contact point, or (far, None)
    while the control polygon lies on the free side and there is no warm start."""
    pair = system.model.contacts[k]
    n_total = system.layout.n
    line = pair.target
    curve = pair.profile.curve
    frame = body_frame(system, pair.profile.body, q, u)
    carrier = body_frame(system, line.body, q, u)
    point = carrier.point(line.point)[0]
    normal = carrier.vector(line.normal)
    if guess is None:
        polygon = curve.control_points @ frame.rotation.T + frame.origin
        lower = float(np.min((polygon - point) @ normal))
        if lower > 0.0:
            return far_apart(lower, n_total), None
        starts = [lambda: _global_start(curve, frame, normal, point)]
    else:
        starts = [guess[0], lambda: _global_start(curve, frame, normal, point)]
    eta = support_point(curve, frame, normal, starts)
    if eta is None:
        return None, None
    zk, vk, jk, _ = frame.point(curve.at(eta).position)
    gap = float(normal @ (zk - point))
    foot = zk - gap * normal
    zl, vl, jl, _ = carrier.point(carrier.rotation.T @ (foot - carrier.origin))
    s = float((-PERP @ normal) @ (zl - point))  # along the line's tangent
    kin = touching(s, -1, zl, zk, normal, gap, vk - vl, jk - jl, eta)
    return kin, (float(eta), s)


__all__ = ["line_build", "support_point"]
