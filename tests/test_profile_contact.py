"""Curved profiles (model.Profile) in contact: the closest-point conditions of Bauchau (000),
eqs. (5)-(6), the gap eq. (7) and its rates, against closed forms and finite differences."""

import numpy as np
import pytest
from scipy.interpolate import BSpline

from fe_contact.coupling.constraints import contact_at
from fe_contact.coupling.frames import BodyFrame
from fe_contact.coupling.profile_contact import closest_pair
from fe_contact.curves import Curve
from fe_contact.model import Compliant, ContactPair, Model, Profile
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.system import assemble

HALF_PI = 0.5 * np.pi


def arc(radius, a0, a1, n=24):
    """A clamped cubic B-spline fitted (least squares, 400 samples) to the circular arc of
    ``radius`` about the origin from angle a0 to a1 (counter-clockwise): with 24 control
    points over 140 degrees its radial error is below 1e-6 R (checked below)."""
    inner = np.linspace(0.0, 1.0, n - 2)[1:-1]
    knots = np.concatenate((np.zeros(4), inner, np.ones(4)))
    eta = np.linspace(0.0, 1.0, 400)
    angle = a0 + (a1 - a0) * eta
    target = radius * np.column_stack((np.cos(angle), np.sin(angle)))
    basis = BSpline.design_matrix(eta, knots, 3).toarray()
    points = np.linalg.lstsq(basis, target, rcond=None)[0]
    curve = Curve.bspline(points, 3)
    check = curve.position(np.linspace(0, 1, 1001))
    assert np.max(np.abs(np.hypot(check[:, 0], check[:, 1]) - radius)) < 1e-6 * radius
    return curve


def frame(origin, angle, n=1):
    z = np.zeros(n)
    return BodyFrame(
        np.asarray(origin, float), np.zeros(2), np.zeros((2, n)), np.zeros(2), angle, 0.0, z, 0.0
    )


@pytest.mark.parametrize("distance", [0.35, 0.3, 0.2995])
def test_two_circles_meet_on_the_centre_line(distance):
    """Two circular arcs (R_k = 0.1 m on a body turned by 0.7 rad, R_l = 0.2 m) facing each
    other: the candidate points lie on the centre line, Z_l = c_l + R_l e, Z_k = c_k - R_k e,
    and the gap is |c_k - c_l| - R_k - R_l, apart, touching and penetrating by 0.5 mm.
    Tolerance 1e-6 m: the arcs' radial error (< 2e-7 m) and Newton's 1e-13."""
    direction = np.array([np.cos(0.4), np.sin(0.4)])
    c_l = np.array([0.1, -0.2])
    c_k = c_l + distance * direction
    turn = 0.7
    centre_angle_k = np.arctan2(-direction[1], -direction[0]) - turn  # faces circle l
    curve_k = arc(0.1, centre_angle_k - 1.2, centre_angle_k + 1.2)
    curve_l = arc(0.2, 0.4 - 1.0, 0.4 + 1.0)
    fk, fl = frame(c_k, turn), frame(c_l, 0.0)
    for guess in (None, (0.3, 0.7)):
        eta_k, eta_l = closest_pair(curve_k, fk, curve_l, fl, guess)
        zk = fk.rotation @ curve_k.position(eta_k) + c_k
        zl = curve_l.position(eta_l) + c_l
        assert np.allclose(zl, c_l + 0.2 * direction, atol=1e-6)
        assert np.allclose(zk, c_k - 0.1 * direction, atol=1e-6)
        normal = curve_l.at(eta_l).normal
        assert np.isclose(normal @ (zk - zl), distance - 0.3, atol=1e-6)


def test_parallel_flats_have_no_candidate_pair():
    """Two straight profiles face to face: the conditions hold along a whole segment (000 eq. 5
    vanishes identically), so no isolated pair is returned."""
    flat_k = Curve.bezier([[0.2, 0.0], [-0.2, 0.0]])  # lower face of a body above
    flat_l = Curve.bezier([[-0.5, 0.0], [0.5, 0.0]])
    assert closest_pair(flat_k, frame((0.0, 0.01), 0.0), flat_l, frame((0, 0), 0.0)) is None


def two_bodies():
    """Two free planar bodies (x, y, phi each): tree bodies 2 and 5."""
    bodies = [Body(0.0, 0.0), Body(0.0, 0.0), Body(2.0, 0.01)] * 2
    joints = []
    for first in (None, 2):
        parent0 = None
        joints += [
            Joint("prismatic", parent0, angle=0.0),
            Joint("prismatic", 0 if first is None else 3, angle=HALF_PI),
            Joint("revolute", 1 if first is None else 4, angle=-HALF_PI),
        ]
    return TreeModel(tuple(bodies), tuple(joints), gravity=(0.0, -9.81))


def cam_pair():
    cam = Curve.bezier(
        [[-0.025, -0.025], [0.025, -0.1], [0.125, 0.0], [0.025, 0.1], [-0.025, 0.025]]
    )  # Bauchau (000) Table 5
    skid = Curve.bezier([[-0.1, 0.2], [-1.0, 0.0], [0.0, -0.3], [1.0, 0.0], [0.1, 0.2]])  # T. 4
    pair = ContactPair("cam", Profile(2, cam), Profile(5, skid), Compliant("hertz", 2e10))
    return assemble(Model(tree=two_bodies(), contacts=(pair,)))


def test_gap_rates_against_finite_differences():
    """Bauchau's cam (Table 5) under the skid of Table 4, both on free bodies, moving and
    turning: W_N u equals the central difference of the gap along q + eps u, the remainder A
    the second difference (u' = 0), and W_T u the tangential relative velocity of the two
    material points held at their eta (000 eq. 14) by differences of their positions.
    Tolerances: 1e-7 relative (differences with eps |u| = 1e-5 m, errors ~ eps^2 kappa)."""
    system = cam_pair()
    q = np.array([0.0, 0.0, 0.3, -0.02, 0.18, 0.05])
    u = np.array([0.4, -0.3, 2.0, -0.1, 0.2, -1.5])
    c = contact_at(system, 0, q, u)
    assert -0.02 < c.gap < 0.05
    eps = 1e-5 / np.max(np.abs(u))

    def gap(x):
        return contact_at(system, 0, x, u, remainder=False).gap

    g_plus, g0, g_minus = gap(q + eps * u), gap(q), gap(q - eps * u)
    rate = (g_plus - g_minus) / (2 * eps)
    assert np.isclose(c.w_normal @ u, rate, rtol=1e-7, atol=1e-9)
    assert np.isclose(c.normal_velocity, rate, rtol=1e-7, atol=1e-9)
    assert np.isclose(c.remainder, (g_plus - 2 * g0 + g_minus) / eps**2, rtol=1e-4, atol=1e-5)
    # tangential relative velocity of the material points at fixed eta
    from fe_contact.coupling.frames import body_frame

    cam, skid = system.model.contacts[0].profile, system.model.contacts[0].target
    pk = cam.curve.position(c.profile_parameter)
    pl = skid.curve.position(c.parameter)

    def points(x):
        return (body_frame(system, 2, x, u).point(pk)[0], body_frame(system, 5, x, u).point(pl)[0])

    (ak, al), (bk, bl) = points(q + eps * u), points(q - eps * u)
    relative = ((ak - al) - (bk - bl)) / (2 * eps)
    assert np.isclose(c.slip_velocity, c.tangent @ relative, rtol=1e-7, atol=1e-9)
    assert np.isclose(c.w_tangent @ u, c.slip_velocity, rtol=1e-12, atol=1e-12)
    # generalised contact force (000 eq. 17) does the work F . relative velocity
    force = 100.0 * c.normal + 30.0 * c.tangent
    generalised = c.w_normal * 100.0 + c.w_tangent * 30.0
    assert np.isclose(generalised @ u, force @ relative, rtol=1e-7)


def test_profile_input_is_checked():
    """A Profile names its body; a Profile against a structure names one of the model; the
    Moreau-Jean stepper refuses a pair with a Compliant law (a force law)."""
    from fe_contact.steppers.simulate import simulate

    cam = Curve.bezier([[0.0, 0.0], [0.1, 0.1], [0.0, 0.2]])
    with pytest.raises(TypeError, match="Profile.curve"):
        Profile(0, [[0.0, 0.0], [1.0, 0.0]])
    pair = ContactPair("c", Profile(2, cam), "beam", Compliant("hertz", 1e9))
    with pytest.raises(TypeError, match="target: got 'beam'"):  # no such structure
        Model(tree=two_bodies(), contacts=(pair,))
    pair = ContactPair("c", Profile("nobody", cam), Profile(5, cam), Compliant("hertz", 1e9))
    with pytest.raises(ValueError, match="nobody"):
        Model(tree=two_bodies(), contacts=(pair,))
    system = cam_pair()
    q, u = system.initial_state()
    with pytest.raises(ValueError, match="Compliant laws, which the Moreau-Jean"):
        simulate(system, (0.0, 0.01), (q, u), method="moreau")
