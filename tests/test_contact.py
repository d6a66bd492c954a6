"""Contact kinematics of a body point on a beam (Lipinski (002), secs. 4-5, 7), checked by finite
differences of the constraint function itself, never against the formulas under test.

The kinematics under test are ``coupling.kinematics.structure_contact`` (closest point of the
deformed beam, gap = signed distance; on the constraint manifold this is 002's eq. 26a with the
gap of eq. 23 scaled by k = 1/sqrt(1 + w'^2), so that W_N is the gradient of the gap and the
multiplier the normal force in N) and the constraint rows of ``coupling.constraints``.

Tolerances: central differences with step 1e-6 have truncation error ~1e-12 relative and round-off
~1e-10 relative on these O(1) quantities, so 1e-7 relative (the issue's figure) has ample margin.
"""

import dataclasses

import numpy as np
import pytest

from fe_contact.coupling.constraints import evaluate_state
from fe_contact.coupling.kinematics import profile_state, structure_contact
from fe_contact.elements.beam import BeamSpec, beam_fields
from fe_contact.model import ContactPair, Model, Point, Sliding
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel, point_kinematics
from fe_contact.system import assemble

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


def system_with_beam(beam: BeamSpec, side: int = 1, mu: float = 0.0):
    model = Model(
        tree=TREE,
        structures={"beam": beam},
        contacts=(ContactPair("tip", Point(BODY, LOCAL), "beam", Sliding(mu), side=side),),
    )
    return assemble(model)


REFERENCE = system_with_beam(BEAM)


def random_state(rng, system=REFERENCE):
    """(q, u), each (n,): tree coordinates and velocities, then the beam's free DOFs."""
    n_b = system.layout.n_tree
    n_c = system.layout.n_flexible
    q = np.concatenate(
        [rng.uniform(-1.0, 1.0, n_b) * np.array([0.5, 1.0, 0.05]), 1e-2 * rng.normal(size=n_c)]
    )
    u = np.concatenate([rng.normal(size=n_b), 0.1 * rng.normal(size=n_c)])
    return q, u


def place_beam_under_point(q, side, mu=0.0, xi=0.23):
    """System whose deflected beam passes 3 mm from the body point, on the side ``side`` of it
    (any gap works for these tests)."""
    lay = REFERENCE.layout
    p = point_kinematics(TREE, q[lay.tree], np.zeros(3), BODY, LOCAL).position
    beam0 = REFERENCE.structures["beam"].beam
    w = beam_fields(beam0, beam0.expand(q[lay.flexible]), [xi]).deflection[0]
    origin = p - xi * beam0.t0 - (w + side * 3e-3) * beam0.n0
    return system_with_beam(dataclasses.replace(BEAM, origin=tuple(origin)), side, mu)


def contact(system, q, u, side):
    """structure_contact at the closest point of the deformed beam to the body point."""
    lay = system.layout
    structure = system.structures["beam"]
    sl = lay.structure("beam")
    profile = profile_state(system.tree, q[lay.tree], u[lay.tree], BODY, LOCAL)
    s = structure.project(profile.centre.position, q[sl])
    return structure_contact(structure, sl, q[sl], u[sl], profile, lay.tree, lay.n, 0.0, side, s)


def gap_of(system, side, q):
    return contact(system, q, np.zeros_like(q), side).gap


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_jacobian_equals_finite_differences(seed, side):
    rng = np.random.default_rng(seed)
    q, u = random_state(rng)
    system = place_beam_under_point(q, side)
    c = contact(system, q, u, side)
    assert c.gap == pytest.approx(3e-3, rel=1e-3)  # the point is on the side ``side``
    eps = 1e-6
    fd = np.array(
        [
            (gap_of(system, side, q + eps * e) - gap_of(system, side, q - eps * e)) / (2 * eps)
            for e in np.eye(q.size)
        ]
    )
    # W_N is the gradient of the gap, the signed distance (002 eq. 34 scaled by k): the
    # multiplier is then the force in N. Tree and beam columns alike:
    lay = system.layout
    np.testing.assert_allclose(c.w_normal[lay.tree], fd[lay.tree], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(c.w_normal[lay.flexible], fd[lay.flexible], rtol=1e-7, atol=1e-9)
    # the constraint row of the partitioned stepper is the same row
    ev = evaluate_state(system, q, u, 0.0)
    assert ev.phi[0] == pytest.approx(c.gap, rel=1e-12)
    np.testing.assert_allclose(ev.jac[0], c.w_normal, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("seed", [3, 4])
def test_remainder_equals_second_time_derivative(seed, side):
    # Along q(t) = q + u t + a t^2 / 2 the constraint's second derivative is W_N a + A.
    rng = np.random.default_rng(seed)
    q, u = random_state(rng)
    system = place_beam_under_point(q, side)
    n_b = system.layout.n_tree
    a = np.concatenate([rng.normal(size=n_b), 0.1 * rng.normal(size=system.layout.n_flexible)])
    c = contact(system, q, u, side)
    h = 1e-4

    def g(t):
        return gap_of(system, side, q + u * t + 0.5 * a * t * t)

    def central(h):
        return (g(h) - 2 * g(0.0) + g(-h)) / h**2

    # Richardson extrapolation: the closest-point gap has a larger fourth derivative than the
    # vertical gap of 002 eq. (23), so the plain central difference (error h^2 g^(4) / 12, about
    # 3e-6 relative here) would not resolve the 1e-6 tolerance; the extrapolated one errs by O(h^4).
    second = (4.0 * central(0.5 * h) - central(h)) / 3.0
    predicted = c.w_normal @ a + c.remainder
    assert predicted == pytest.approx(second, rel=1e-6, abs=1e-6)


def test_slip_velocity_is_relative_tangential_velocity():
    rng = np.random.default_rng(7)
    q, u = random_state(rng)
    system = place_beam_under_point(q, 1)
    lay = system.layout
    c = contact(system, q, u, 1)
    beam = system.structures["beam"].beam
    # Independent: finite difference of (body point - beam material point at x_c) along t.
    x_c = c.parameter
    h = 1e-6

    def rel(t):
        p = point_kinematics(TREE, q[lay.tree] + u[lay.tree] * t, u[lay.tree], BODY, LOCAL)
        full = beam.expand(q[lay.flexible] + u[lay.flexible] * t)
        w = beam_fields(beam, full, [x_c]).deflection[0]
        return p.position - (beam.origin + x_c * beam.t0 + w * beam.n0)

    v_rel = (rel(h) - rel(-h)) / (2 * h)
    assert c.slip_velocity == pytest.approx(float(c.tangent @ v_rel), rel=1e-7)
    assert c.slip_velocity == pytest.approx(float(c.w_tangent @ u), rel=1e-12)
    assert abs(c.normal @ c.tangent) < 1e-14
    assert np.linalg.norm(c.normal) == pytest.approx(1.0, rel=1e-14)


def test_friction_rows_dissipate_on_velocity_manifold():
    # With J u = 0 (no normal relative velocity), the friction power of the friction part of
    # J_Sigma^T lambda on both bodies equals -mu lambda |v_t| (002 eqs. 63-68): never positive.
    rng = np.random.default_rng(11)
    q, u = random_state(rng)
    mu, lam = 0.3, 2.5
    system = place_beam_under_point(q, 1, mu)
    ev = evaluate_state(system, q, u, 0.0)
    # adjust the first tree velocity so that the normal relative velocity vanishes
    u = u.copy()
    u[0] -= (ev.jac[0] @ u) / ev.jac[0, 0]
    ev = evaluate_state(system, q, u, 0.0)
    assert abs(ev.jac[0] @ u) < 1e-12
    c = ev.contacts[0]
    assert ev.slip_sign[0] == np.sign(c.slip_velocity)
    friction_row = ev.jac_sigma[0] - ev.jac[0]  # -sign(v_t) mu W_T (002 eq. 71c)
    power = lam * (friction_row @ u)
    assert power == pytest.approx(-mu * lam * abs(c.slip_velocity), rel=1e-10)
    assert power < 0


def test_contact_pair_validation():
    with pytest.raises(ValueError, match="friction coefficient >= 0"):
        Sliding(mu=-0.1)
    with pytest.raises(ValueError, match=r"side: got 0; allowed: one of 1, -1"):
        ContactPair("tip", Point(0, (0, 0)), "beam", side=0)


def test_beam_closest_point_by_its_float_kernel_equals_the_curve_path(monkeypatch):
    """The beam's closest-point iteration evaluates r, r', r'' in plain floats; it finds the
    same material point as the iteration on ``curve`` (to 1e-15 m) and that point satisfies
    the orthogonality condition (p - r) . r' = 0 to the iteration's tolerance, on a randomly
    deflected beam."""
    from fe_contact.structures import BeamStructure, Structure

    system = assemble(
        Model(
            structures={
                "beam": BeamSpec(
                    length=0.4,
                    n_elements=10,
                    youngs_modulus=2.1e11,
                    density=4.7e3,
                    width=0.01,
                    height=0.0015,
                )
            }
        )
    )
    beam = system.structures["beam"]
    q = 1e-3 * np.random.default_rng(1).standard_normal(beam.n_dofs)
    points = [(0.05, 0.01), (0.1537, -0.02), (0.33, 0.004), (0.399, 0.03)]
    fast = [beam.closest(p, q, p[0] + 0.01) for p in points]
    monkeypatch.setattr(BeamStructure, "_local_curve", Structure._local_curve)
    for p, (s_fast, c) in zip(points, fast, strict=True):
        s_ref, _ = beam.closest(p, q, p[0] + 0.01)
        assert abs(s_fast - s_ref) < 1e-15
        # the iteration stops at a step <= 1e-13 L = 4e-14 m, so (p - r) . r' <= ~4e-14 m
        assert abs((np.array(p) - c.position) @ c.slope) < 1e-13
