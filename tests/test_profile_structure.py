"""A curved profile (model.Profile) against a beam's deformed centre line: the closest-point
conditions of Bauchau (000), eqs. (5)-(6) on (eta, s), the gap eq. (7) and the rows of eqs.
(14), (17) with the beam's material point, for compliant (Hertz) and hard contact."""

import numpy as np
import pytest

from fe_contact.coupling.constraints import contact_at
from fe_contact.coupling.frames import body_frame
from fe_contact.coupling.profile_structure import closest_on_structure
from fe_contact.curves import Curve
from fe_contact.elements.beam import BeamSpec
from fe_contact.model import Compliant, ContactPair, Line, Model, PointLoad, Profile, Sliding
from fe_contact.multibody.builders import floating_body
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

G = 9.81


def crown(radius, half_angle):
    """Cubic Bezier approximation of the circular arc of ``radius`` about (0, radius) from
    -90 - half_angle to -90 + half_angle degrees (counter-clockwise round the body: its lowest
    point at the origin, outward normal down there), control points at 4/3 tan(half / 4) R
    along the end tangents (radial error ~ 1e-4 R at half = 0.6 rad)."""
    centre = np.array([0.0, radius])
    a0, a1 = -0.5 * np.pi - half_angle, -0.5 * np.pi + half_angle
    k = 4.0 / 3.0 * np.tan(half_angle / 2.0) * radius
    p0 = centre + radius * np.array([np.cos(a0), np.sin(a0)])
    p3 = centre + radius * np.array([np.cos(a1), np.sin(a1)])
    t0 = np.array([-np.sin(a0), np.cos(a0)])
    t1 = np.array([-np.sin(a1), np.cos(a1)])
    return Curve.bezier([p0, p0 + k * t0, p3 - k * t1, p3])


def beam_spec(ei, length=1.0, n_elements=6, origin=(0.0, 0.0), beta=0.0):
    return BeamSpec(
        length=length,
        youngs_modulus=ei / 1e-8,
        density=2000.0,
        area=1e-3,
        second_moment=1e-8,
        n_elements=n_elements,
        origin=origin,
        rayleigh_beta=beta,
    )


def test_gap_and_rows_against_finite_differences(measured):
    """A crowned Bezier profile on a free body, turned by 0.2 rad, pressed 17 mm into a
    cantilever bent by a 5 N tip load (static, tip slope -0.05), moving along a random
    velocity of all DOFs: the contact point satisfies 000 eqs. (5)-(6) (parallel tangents,
    joining vector along the normal); the gap equals the least signed distance of 20001
    profile samples to the beam (each by the beam's own projection; sampling error
    ~ R (d eta)^2 < 1e-9 m); W_N u is the central difference of the gap along q + eps u and
    the normal velocity, A its second difference, W_T u the tangential relative velocity of
    the two material points held at (eta, s) (000 eq. 14) and W^T F does the work F . v_rel
    (000 eq. 17), the beam's DOFs taking the reaction. Tolerances: 1e-7 relative for first
    differences (eps |u| = 1e-6, errors ~ eps^2 kappa), 1e-4 for the second difference."""
    ei, length = 50.0, 1.0
    pair = ContactPair("c", Profile(2, crown(0.05, 0.8)), "beam", Compliant("hertz", 1e8))
    model = Model(
        tree=floating_body(1.0, 1e-3),
        structures={"beam": beam_spec(ei)},
        contacts=(pair,),
        loads=(PointLoad("beam", length, (0.0, -5.0)),),
        structure_gravity=False,
    )
    system = assemble(model)
    beam, lay = system.structures["beam"], system.layout
    sl = lay.structure("beam")
    q = np.zeros(system.n)
    q[sl] = np.linalg.solve(beam.stiffness_matrix.toarray(), beam.load)
    measured.close(
        "tip deflection",
        q[sl][-2],
        -5.0 * length**3 / (3 * ei),
        rtol=1e-10,
        atol=1e-8,
        unit="m",
        reference="F L^3 / (3 EI)",
    )  # deformed for real
    q[lay.tree] = [0.6, -0.03, 0.2]
    u = np.random.default_rng(7).normal(size=system.n)
    c = contact_at(system, 0, q, u)
    frame = body_frame(system, 2, q, u)
    profile = pair.profile.curve
    g = profile.at(c.profile_parameter)
    cp = beam.curve(c.parameter, q[sl])
    tk = frame.vector(g.tangent)
    measured(  # 000 eq. (5)
        "cross product of the tangents",
        abs(tk[0] * cp.tangent[1] - tk[1] * cp.tangent[0]),
        1e-10,
        reference="parallel tangents",
    )
    measured(  # 000 eq. (6)
        "joining vector along the tangent",
        abs((c.profile_point - cp.position) @ cp.tangent),
        1e-12,
        unit="m",
        reference="joining vector along the normal",
    )
    # independent gap: least signed distance of the profile's points to the beam
    eta = np.linspace(0.0, 1.0, 20001)
    pts = profile.position(eta) @ frame.rotation.T + frame.origin
    best = np.inf
    for p in pts[::20]:  # coarse pass, then refine round the best sample
        s = beam.project(p, q[sl])
        best = min(best, beam.curve(s, q[sl]).normal @ (p - beam.curve(s, q[sl]).position))
    signed = []
    window = np.abs(eta - c.profile_parameter) < 0.01
    for p in pts[window]:
        s = beam.project(p, q[sl], c.parameter)
        b = beam.curve(s, q[sl])
        signed.append(b.normal @ (p - b.position))
    assert -0.03 < c.gap < -0.005
    measured.close(
        "gap, coarse samples",
        best,
        c.gap,
        rtol=1e-5,
        atol=1e-4,
        unit="m",
        reference="least signed distance of profile samples",
    )
    measured.close(
        "gap",
        min(signed),
        c.gap,
        rtol=0.0,
        atol=1e-9,
        unit="m",
        reference="least signed distance of 20001 profile samples",
    )
    eps = 1e-6 / np.max(np.abs(u))

    def gap(x):
        return contact_at(system, 0, x, u, remainder=False).gap

    g_plus, g0, g_minus = gap(q + eps * u), gap(q), gap(q - eps * u)
    rate = (g_plus - g_minus) / (2 * eps)
    measured.close(
        "W_N u",
        c.w_normal @ u,
        rate,
        rtol=1e-7,
        atol=0.0,
        unit="m/s",
        reference="central difference of the gap",
    )
    measured.close(
        "normal velocity",
        c.normal_velocity,
        rate,
        rtol=1e-7,
        atol=0.0,
        unit="m/s",
        reference="central difference of the gap",
    )
    eps2 = 1e-4 / np.max(np.abs(u))
    second = (gap(q + eps2 * u) - 2 * g0 + gap(q - eps2 * u)) / eps2**2
    measured.close(
        "remainder A",
        c.remainder,
        second,
        rtol=1e-4,
        atol=1e-8,
        unit="m/s^2",
        reference="second difference of the gap",
    )
    local = g.position

    def points(x):
        zk = body_frame(system, 2, x, u).point(local)[0]
        return zk - beam.curve(c.parameter, x[sl]).position

    relative = (points(q + eps * u) - points(q - eps * u)) / (2 * eps)
    measured.close(
        "slip velocity",
        c.slip_velocity,
        c.tangent @ relative,
        rtol=1e-7,
        atol=0.0,
        unit="m/s",
        reference="central difference of the material points",
    )
    measured.close("W_T u", c.w_tangent @ u, c.slip_velocity, rtol=1e-12, atol=1e-8, unit="m/s")
    generalised = 100.0 * c.w_normal + 30.0 * c.w_tangent
    force = 100.0 * c.normal + 30.0 * c.tangent
    measured.close(
        "work rate of W^T F",
        generalised @ u,
        force @ relative,
        rtol=1e-7,
        atol=0.0,
        unit="W",
        reference="F . v_rel, 000 eq. (17)",
    )
    # the beam's DOFs take the reaction -F along n0 = (0, 1) at s: -F_y N(s)
    rows = np.zeros(beam.n_dofs)
    np.add.at(rows, cp.dofs, cp.rows[1])
    measured.close(
        "beam's generalised reaction",
        generalised[sl],
        -force[1] * rows,
        rtol=1e-5,
        atol=1e-12,
        reference="-F_y N(s)",
    )


def test_parallel_flats_and_ends_have_no_contact_point():
    """A straight profile on the undeformed straight beam: 000 eq. (5) holds along a whole
    segment, no isolated pair (None). A crowned profile beyond the beam's free end: None (the
    pair is open there)."""
    flat = Curve.bezier([[-0.1, 0.0], [0.1, 0.0]])
    pair = ContactPair("c", Profile(2, flat), "beam", Compliant("hertz", 1e8))
    model = Model(
        tree=floating_body(1.0, 1e-3), structures={"beam": beam_spec(50.0)}, contacts=(pair,)
    )
    system = assemble(model)
    q = np.zeros(system.n)
    q[system.layout.tree] = [0.5, 0.001, 0.0]
    frame = body_frame(system, 2, q, q)
    beam = system.structures["beam"]
    q_s = q[system.layout.structure("beam")]
    assert closest_on_structure(flat, frame, beam, q_s, 1, [(0.5, 0.5)]) is None
    q[system.layout.tree] = [1.2, 0.001, 0.0]
    frame = body_frame(system, 2, q, q)
    assert closest_on_structure(crown(0.05, 0.8), frame, beam, q_s, 1, [(0.5, 0.9)]) is None


A, RADIUS, MASS, EI_REST = 0.8, 0.05, 1.0, 2000.0


def body_on_cantilever(law, beta):
    """A body of 1 kg on a vertical slider (x fixed, no rotation) whose crowned profile rests
    on a cantilever (L = 1 m, EI = 2000 N m^2, massive but weightless) at a = 0.8 m: the
    beam's origin is put at (-a, 0) so that the slider's line x = 0 meets s = a."""
    tree = TreeModel(
        (Body(MASS, 1e-3),), (Joint("prismatic", None, angle=0.5 * np.pi),), gravity=(0.0, -G)
    )
    # the slider's body frame is turned by +90 degrees (the joint's axis): draw the crown in it
    turned = crown(RADIUS, 0.6).control_points @ np.array([[0.0, 1.0], [-1.0, 0.0]]).T
    pair = ContactPair("c", Profile(0, Curve.bezier(turned)), "beam", law)
    spec = beam_spec(EI_REST, n_elements=5, origin=(-A, 0.0), beta=beta)
    model = Model(tree=tree, structures={"beam": spec}, contacts=(pair,), structure_gravity=False)
    system = assemble(model)
    q0, u0 = system.initial_state()
    return system, q0, u0


def deflection_closed_forms(s, length=1.0):
    """(deflection at the load point, at the tip) of a cantilever under the weight at s."""
    w = MASS * G
    return w * s**3 / (3 * EI_REST), w * s**2 * (3 * length - s) / (6 * EI_REST)


def test_hertz_profile_rests_on_the_cantilever(measured):
    """The body settles (Hunt-Crossley D = 100 s/m, beam damping beta = 0.01 s: the slow mode
    body-on-beam at 108 rad/s has a damping ratio ~0.5, residual after 0.4 s ~ 1e-9 of the
    deflection): the beam deflects under the weight W = m g applied at the contact's s as a
    cantilever, W s^3 / (3 EI) there and W s^2 (3L - s) / (6 EI) at the tip (Hermite
    elements are exact at the nodes; s = 0.79992 m lies 8e-5 m (R times the slope 1.6e-3)
    from the node 0.8, inside an element, where the cubic interpolation of the exact
    piecewise-cubic deflection errs by far less than 1e-7), and the Hertz approach is
    (W / (c1 cos(slope)))^(2/3) (the slider takes the horizontal part of the force).
    Tolerances: 1e-7 relative on the deflections and 1e-6 on the approach and the normal
    force (measured: 2e-9 and 7e-9; the residual motion, < 1e-8 m/s, moves them by < 1e-7;
    the crown's Bezier error does not enter: the law is given in the approach)."""
    c1 = 1e8
    system, q0, u0 = body_on_cantilever(Compliant("hertz", c1, damping=100.0), beta=0.01)
    result = simulate(system, (0.0, 0.6), (q0, u0), h=1e-3)
    assert result.success, result.message
    q = result.q[-1]
    assert np.max(np.abs(result.u[-1])) < 1e-8  # residual amplitude ~ u / 108 rad/s < 1e-10 m
    c = contact_at(system, 0, q, np.zeros_like(q))
    sl = system.layout.structure("beam")
    beam = system.structures["beam"]
    s = c.parameter
    assert 0.79 < s < 0.81
    at_load, at_tip = deflection_closed_forms(s)
    w_load = -beam.curve(s, q[sl]).position[1]
    w_tip = -beam.curve(1.0, q[sl]).position[1]
    measured.close(
        "deflection under the load",
        w_load,
        at_load,
        rtol=1e-7,
        atol=0.0,
        unit="m",
        reference="W s^3 / (3 EI)",
    )
    measured.close(
        "tip deflection",
        w_tip,
        at_tip,
        rtol=1e-7,
        atol=0.0,
        unit="m",
        reference="W s^2 (3L - s) / (6 EI)",
    )
    slope = beam.curve(s, q[sl]).slope
    cos = slope[0] / np.hypot(*slope)
    approach = (MASS * G / (c1 * cos)) ** (2.0 / 3.0)
    measured.close(
        "Hertz approach",
        -c.gap,
        approach,
        rtol=1e-6,
        atol=0.0,
        unit="m",
        reference="(W / (c1 cos))^(2/3)",
    )
    measured.close(
        "normal force",
        result["c_normal_force"][-1],
        MASS * G / cos,
        rtol=1e-6,
        atol=1e-8,
        unit="N",
        reference="m g / cos(slope)",
    )


@pytest.mark.slow  # 5.8 s of CPU (one core), 2026-11-25
def test_hard_contact_normal_force_and_energy(measured):
    """The same body with hard frictionless contact (Sliding, bilateral: the profile stays on
    the beam): released at rest on the undeformed beam, it oscillates with the beam; with beam
    damping it settles where the normal force carries the weight, F_n cos(slope) = m g
    (1e-6 relative; measured 6e-9), and the tip deflection is the cantilever's (1e-7;
    measured 1.5e-9). Without damping, over 0.1 s (about two periods of the 108 rad/s mode,
    4e-3 J of kinetic energy exchanged) the energy balance (kinetic + elastic + potential +
    dissipated) closes to 1e-5 of the largest kinetic energy (measured 1.6e-7): the
    generalised-alpha step with rho_inf = 1 conserves energy up to O(h^2) and the frictionless
    contact does no work (W_N u = 0 on the constraint manifold); a contact force with a wrong
    row (say the beam's part left out) would do work of the order of the energy itself."""
    system, q0, u0 = body_on_cantilever(Sliding(0.0), beta=0.01)
    result = simulate(system, (0.0, 0.6), (q0, u0), h=1e-3)
    assert result.success, result.message
    q = result.q[-1]
    c = contact_at(system, 0, q, np.zeros_like(q))
    sl = system.layout.structure("beam")
    beam = system.structures["beam"]
    slope = beam.curve(c.parameter, q[sl]).slope
    cos = slope[0] / np.hypot(*slope)
    measured.close(
        "normal force",
        result["c_normal_force"][-1],
        MASS * G / cos,
        rtol=1e-6,
        atol=1e-8,
        unit="N",
        reference="m g / cos(slope)",
    )
    tip = -beam.curve(1.0, q[sl]).position[1]
    measured.close(
        "tip deflection",
        tip,
        deflection_closed_forms(c.parameter)[1],
        rtol=1e-7,
        atol=0.0,
        unit="m",
        reference="W s^2 (3L - s) / (6 EI)",
    )
    measured("gap of the bilateral contact", abs(c.gap), 1e-9, unit="m", reference="0")
    system, q0, u0 = body_on_cantilever(Sliding(0.0), beta=0.0)
    result = simulate(system, (0.0, 0.1), (q0, u0), h=2e-4, rho_inf=1.0)
    assert result.success, result.message
    kinetic = np.max(result["kinetic_energy"])
    assert kinetic > 1e-3  # the motion: ~ 4e-3 J exchanged
    measured(
        "energy balance residual", np.max(np.abs(result["energy_error"])), 1e-5 * kinetic, unit="J"
    )


def test_profile_pairs_are_checked():
    """A Profile against a structure the model lacks, and a fixed Profile against a fixed
    Line (neither can move), are refused by name."""
    pair = ContactPair("c", Profile(2, crown(0.05, 0.8)), "rail", Compliant("hertz", 1e8))
    with pytest.raises(ValueError, match="rail"):
        Model(tree=floating_body(1.0, 1e-3), structures={"beam": beam_spec(50.0)}, contacts=(pair,))
    with pytest.raises(ValueError, match="profile.body"):
        ContactPair("c", Profile(None, crown(0.05, 0.8)), Line((0.0, 0.0), (0.0, 1.0)))
