"""Contact kinematics of a body point on a beam (Lipinski (002), secs. 4-5, 7), checked by finite
differences of the constraint function itself, never against the formulas under test.

Tolerances: central differences with step 1e-6 have truncation error ~1e-12 relative and round-off
~1e-10 relative on these O(1) quantities, so 1e-7 relative (the issue's figure) has ample margin.
"""

import dataclasses

import numpy as np
import pytest

from fe_contact.coupling.contact import ContactSpec, contact_kinematics, friction_rows
from fe_contact.elements.beam import BeamSpec, assemble_beam, evaluate
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel, point_kinematics

BEAM = BeamSpec(
    length=0.4,
    n_elements=5,
    youngs_modulus=2.1e11,
    density=4.7e3,
    width=0.01,
    height=0.0015,
    origin=(0.05, -0.02),
    angle=0.3,
)
TREE = TreeModel(
    bodies=(Body(1.0, 0.01, (0.1, 0.0)), Body(0.5, 0.002, (0.1, 0.0)), Body(0.3, 0.001)),
    joints=(
        Joint("revolute", location=(0.0, 0.3)),
        Joint("revolute", parent=0, location=(0.2, 0.0)),
        Joint("prismatic", parent=1, location=(0.2, 0.0), angle=0.4),
    ),
)
LOCAL = (0.05, 0.01)
BODY = 2


def random_state(rng, beam):
    q_b = rng.uniform(-1.0, 1.0, 3) * np.array([0.5, 1.0, 0.05])
    u_b = rng.normal(size=3)
    q_c = 1e-2 * rng.normal(size=beam.n_dofs)
    q_c[beam.fixed_dofs] = 0.0
    u_c = 0.1 * rng.normal(size=beam.n_dofs)
    u_c[beam.fixed_dofs] = 0.0
    return q_b, u_b, q_c, u_c


def place_beam_under_point(q_b, q_c, side, xi=0.23):
    """Beam spec whose deflected axis passes near the body point (any gap works for these tests)."""
    p = point_kinematics(TREE, q_b, np.zeros(3), BODY, LOCAL).position
    beam0 = assemble_beam(BEAM)
    w = evaluate(beam0, q_c, [xi]).deflection[0]
    origin = p - xi * beam0.t0 - (w + side * 3e-3) * beam0.n0
    return assemble_beam(dataclasses.replace(BEAM, origin=tuple(origin)))


def gap_of(beam, side, q_b, q_c):
    pk = point_kinematics(TREE, q_b, np.zeros(3), BODY, LOCAL)
    return contact_kinematics(beam, side, pk, q_c, np.zeros_like(q_c)).gap


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_jacobian_equals_finite_differences(seed, side):
    rng = np.random.default_rng(seed)
    q_b, u_b, q_c, u_c = random_state(rng, assemble_beam(BEAM))
    beam = place_beam_under_point(q_b, q_c, side)
    pk = point_kinematics(TREE, q_b, u_b, BODY, LOCAL)
    c = contact_kinematics(beam, side, pk, q_c, u_c)
    eps = 1e-6
    fd_b = np.array(
        [
            (gap_of(beam, side, q_b + eps * e, q_c) - gap_of(beam, side, q_b - eps * e, q_c))
            / (2 * eps)
            for e in np.eye(3)
        ]
    )
    fd_c = np.zeros(beam.n_dofs)
    for j in c.beam_dofs:
        e = np.zeros(beam.n_dofs)
        e[j] = eps
        fd_c[j] = (gap_of(beam, side, q_b, q_c + e) - gap_of(beam, side, q_b, q_c - e)) / (2 * eps)
    # J_n is k times the gradient of the gap (002 eq. 34): the multiplier is then the force in N.
    np.testing.assert_allclose(c.jac_tree / c.k, fd_b, rtol=1e-7, atol=1e-9)
    full = np.zeros(beam.n_dofs)
    full[c.beam_dofs] = c.jac_beam / c.k
    np.testing.assert_allclose(full, fd_c, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("seed", [3, 4])
def test_remainder_equals_second_time_derivative(seed, side):
    # Along q(t) = q + u t + a t^2 / 2 the constraint's second derivative is (J a + A) / k.
    rng = np.random.default_rng(seed)
    q_b, u_b, q_c, u_c = random_state(rng, assemble_beam(BEAM))
    beam = place_beam_under_point(q_b, q_c, side)
    a_b, a_c = rng.normal(size=3), 0.1 * rng.normal(size=beam.n_dofs)
    a_c[beam.fixed_dofs] = 0.0
    pk = point_kinematics(TREE, q_b, u_b, BODY, LOCAL)
    c = contact_kinematics(beam, side, pk, q_c, u_c)
    h = 1e-4

    def g(t):
        return gap_of(
            beam, side, q_b + u_b * t + 0.5 * a_b * t * t, q_c + u_c * t + 0.5 * a_c * t * t
        )

    second = (g(h) - 2 * g(0.0) + g(-h)) / h**2
    predicted = (c.jac_tree @ a_b + c.jac_beam @ a_c[c.beam_dofs] + c.remainder) / c.k
    assert predicted == pytest.approx(second, rel=1e-6, abs=1e-6)


def test_slip_velocity_is_relative_tangential_velocity():
    rng = np.random.default_rng(7)
    q_b, u_b, q_c, u_c = random_state(rng, assemble_beam(BEAM))
    beam = place_beam_under_point(q_b, q_c, 1)
    pk = point_kinematics(TREE, q_b, u_b, BODY, LOCAL)
    c = contact_kinematics(beam, 1, pk, q_c, u_c)
    # Independent: finite difference of (body point - beam material point at x_c) along t.
    x_c = c.parameter
    h = 1e-6

    def rel(t):
        p = point_kinematics(TREE, q_b + u_b * t, u_b, BODY, LOCAL).position
        w = evaluate(beam, q_c + u_c * t, [x_c]).deflection[0]
        return p - (beam.origin + x_c * beam.t0 + w * beam.n0)

    v_rel = (rel(h) - rel(-h)) / (2 * h)
    assert c.slip_velocity == pytest.approx(float(c.tangent @ v_rel), rel=1e-7)
    assert abs(c.normal @ c.tangent) < 1e-14
    assert np.linalg.norm(c.normal) == pytest.approx(1.0, rel=1e-14)


def test_friction_rows_dissipate_on_velocity_manifold():
    # With J u = 0 (no normal relative velocity), the friction power of J_T^T lambda on both bodies
    # equals -mu lambda |v_t| (002 eqs. 63-68): never positive.
    rng = np.random.default_rng(11)
    q_b, u_b, q_c, u_c = random_state(rng, assemble_beam(BEAM))
    beam = place_beam_under_point(q_b, q_c, 1)
    pk = point_kinematics(TREE, q_b, u_b, BODY, LOCAL)
    c = contact_kinematics(beam, 1, pk, q_c, u_c)
    # adjust the first tree velocity so that the normal relative velocity vanishes
    u_b = u_b.copy()
    normal_rate = c.jac_tree @ u_b + c.jac_beam @ u_c[c.beam_dofs]
    u_b[0] -= normal_rate / c.jac_tree[0]
    pk = point_kinematics(TREE, q_b, u_b, BODY, LOCAL)
    c = contact_kinematics(beam, 1, pk, q_c, u_c)
    assert abs(c.jac_tree @ u_b + c.jac_beam @ u_c[c.beam_dofs]) < 1e-12
    mu, lam = 0.3, 2.5
    jt_b, jt_c = friction_rows(c, mu, np.sign(c.slip_velocity))
    power = lam * (jt_b @ u_b + jt_c @ u_c[c.beam_dofs])
    assert power == pytest.approx(-mu * lam * abs(c.slip_velocity), rel=1e-10)
    assert power < 0


def test_contact_spec_validation():
    with pytest.raises(ValueError, match="mu must be >= 0"):
        ContactSpec(body=0, point=(0, 0), mu=-0.1)
    with pytest.raises(ValueError, match="side must be"):
        ContactSpec(body=0, point=(0, 0), side=0)
