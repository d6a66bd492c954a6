"""What every curved-profile pair uses (``profile_contact`` against another profile,
``profile_structure`` against a structure, ``profile_line`` against a rigid line): the number of
samples per control point of the global search, a curve point in the plane, the control
polygon's bounding box (a Bezier or B-spline curve lies in its polygon's convex hull) and the
distance of two boxes, and the ``ContactKinematics`` of a pair that touches or is far apart
(Bauchau (000), secs. 2-5).
"""

from __future__ import annotations

import numpy as np

from ..curves import PERP
from .kinematics import ContactKinematics

SAMPLES = 40


def cross2(a, b) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def world_point(curve, frame, eta: float):
    """(Z, T, T') of curve point eta in the plane (000 eq. 4)."""
    p0, p1, p2 = curve.derivatives(eta, 2)[0]
    R = frame.rotation
    return R @ p0 + frame.origin, R @ p1, R @ p2


def world_samples(curve, frame, n_per_point: int = SAMPLES):
    """(eta, Z): ``n_per_point`` N + 1 parameters equally spaced on [0, 1] (N control points)
    and the curve's points there in the plane, (m,) and (m, 2) m."""
    eta = np.linspace(0.0, 1.0, n_per_point * len(curve.control_points) + 1)
    return eta, curve.position(eta) @ frame.rotation.T + frame.origin


def polygon_box(curve, frame):
    pts = curve.control_points @ frame.rotation.T + frame.origin
    return pts.min(axis=0), pts.max(axis=0)


def box_distance(a, b) -> float:
    gap = np.maximum(np.maximum(a[0] - b[1], b[0] - a[1]), 0.0)
    return float(np.hypot(*gap))


def touching(parameter, element, point, profile_point, normal, gap, rel_v, rel_j, eta=np.nan):
    """The ContactKinematics of a pair touching at the target's material point ``point`` and
    the profile's ``profile_point``: unit ``normal`` (2,) (the tangent is -e_z x n), ``gap``,
    the relative velocity ``rel_v`` (2,) and Jacobian ``rel_j`` (2, n) of the profile's point
    against the target's; the profile parameter ``eta``. The acceleration remainders are NaN
    here (``curved_contact`` adds them)."""
    tangent = -PERP @ normal
    return ContactKinematics(
        parameter=float(parameter),
        element=element,
        point=point,
        profile_point=profile_point,
        normal=normal,
        tangent=tangent,
        gap=gap,
        normal_velocity=float(normal @ rel_v),
        slip_velocity=float(tangent @ rel_v),
        w_normal=normal @ rel_j,
        w_tangent=tangent @ rel_j,
        remainder=np.nan,
        parameter_rate=np.nan,
        tangent_remainder=np.nan,
        profile_parameter=float(eta),
    )


def far_apart(distance: float, n: int) -> ContactKinematics:
    """An open pair whose control polygons are ``distance`` apart (a lower bound of the gap)."""
    z = np.zeros(n)
    nan2 = np.full(2, np.nan)
    return ContactKinematics(
        parameter=np.nan,
        element=-1,
        point=nan2,
        profile_point=nan2,
        normal=nan2,
        tangent=nan2,
        gap=distance,
        normal_velocity=0.0,
        slip_velocity=0.0,
        w_normal=z,
        w_tangent=z,
        remainder=0.0,
        parameter_rate=0.0,
        tangent_remainder=0.0,
    )
