"""The one entry point of the contact kinematics, ``coupling.contact_points``, per pair kind.

For every kind (link, curved, line, closest, grid) the entry point's gaps are checked against a
closed form (a disk over a straight beam or a tilted line, the lowest point of a parabolic foot
over the ground, the stretch of a link, the distances of a circle to the grid's material points)
and its W_N against central differences of its own gap in q (the gap is the constraint function;
W_N its gradient, Lipinski (002), eq. 34). The Moreau-Jean stepper's closed-contact rows and the
generalised-alpha stepper's kinematics (``evaluate_state``) of the same pair at the same state
both come from it and agree.

Tolerances. Central differences with step 1e-6 m (or rad) on gaps of O(0.1) m with curvatures
of O(10) 1/m: truncation ~ h^2 g''' / 6 ~ 1e-10, round-off ~ eps |g| / h ~ 3e-11; 1e-7 on rows of
O(1) leaves a wide margin. Closed-form gaps: a few operations on O(1) numbers, 16 eps.
"""

import numpy as np
import pytest

from fe_contact import BeamSpec, Circle, ContactPair, Line, Model, Point, Unilateral, assemble
from fe_contact.coupling.constraints import contact_at, evaluate_state
from fe_contact.coupling.contact_points import (
    ContactPoints,
    contact_gaps,
    contact_points,
    pair_kind,
    pair_plan,
)
from fe_contact.coupling.kinematics import ContactLeftStructure
from fe_contact.curves import Curve
from fe_contact.laws import Dropper
from fe_contact.model import Profile
from fe_contact.multibody.builders import floating_body
from fe_contact.steppers.grid_pairs import GridPair
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.structure_points import MaterialPoint

EPS = np.finfo(float).eps
RADIUS = 0.05
BEAM = BeamSpec(
    length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
)
FD_STEP = 1e-6
FD_TOL = 1e-7  # module docstring
# a parabolic foot y = 2.5 x^2 on its body, vertex at the body's origin: the quadratic Bezier
# (-0.1, 0.05), (0, -0.05), (0.1, 0.05) traversed left to right (outward normal downwards)
FOOT = Curve.bezier([(-0.1, 0.05), (0.0, -0.05), (0.1, 0.05)])
TILT = Line(point=(0.1, -0.02), normal=(-0.3, 1.0))


def disk(target, law=None, profile=None, **pair):
    """A floating body (q = x, y, angle) with a profile (default: a disk of radius RADIUS at
    its origin) against ``target``, and the beam "b" (free, unloaded) in every system."""
    return assemble(
        Model(
            tree=floating_body(1.0, 1e-3),
            structures={"b": BEAM},
            contacts=(
                ContactPair(
                    "c",
                    Circle(2, RADIUS) if profile is None else profile,
                    target,
                    Unilateral(0.3) if law is None else law,
                    **pair,
                ),
            ),
        )
    )


SYSTEMS = {
    "closest": disk("b"),
    "grid": disk("b", search="grid", n_candidates=9),
    "line": disk(TILT),
    "curved": disk(Line((0.0, 0.0), (0.0, 1.0)), profile=Profile(2, FOOT)),
    "link": disk(
        MaterialPoint("b", 0.2),
        Dropper(stiffness=1e5, length=0.1),
        profile=Point(2, (0.0, 0.0)),
    ),
}


def state(system, centre, angle=0.0, beam=0.0, rng=None):
    """(q, u): the body at centre (m) turned by angle (rad); the beam's free coordinates scaled
    random numbers (beam: their size, m or rad) or at rest."""
    q, u = system.initial_state([centre[0], centre[1], angle])
    q, u = q.copy(), u.copy()
    flexible = system.layout.flexible
    rng = np.random.default_rng(3) if rng is None else rng
    q[flexible] += beam * rng.normal(size=q[flexible].size)
    u[:] = rng.normal(size=u.size)
    return q, u


def gap_gradient(system, q, column: int = 0):
    """Central differences of the entry point's gap (candidate ``column``) in q."""
    out = np.zeros(q.size)
    for j in range(q.size):
        e = np.zeros(q.size)
        e[j] = FD_STEP
        plus = contact_points(system, 0, q + e, remainder=False).gap[column]
        minus = contact_points(system, 0, q - e, remainder=False).gap[column]
        out[j] = (plus - minus) / (2.0 * FD_STEP)
    return out


def test_each_pair_has_the_kind_it_is_built_for():
    assert {kind: pair_kind(s, 0) for kind, s in SYSTEMS.items()} == {k: k for k in SYSTEMS}
    # the one-point callers see a grid pair's closest point
    assert pair_kind(SYSTEMS["grid"], 0, search="closest") == "closest"
    with pytest.raises(ValueError, match="search must be None or 'closest'"):
        pair_kind(SYSTEMS["grid"], 0, search="nearest")


def test_each_pair_plan_holds_the_constants_of_its_pair():
    """The plan decided once per pair: the disk's radius and centre, the beam's columns and
    candidate grid for the structure pairs; a grid pair seen through its closest point has no
    grid; the stepper's grid evaluation takes grid pairs alone, with a clear error."""
    for kind, system in SYSTEMS.items():
        plan = pair_plan(system, 0)
        assert plan.kind == kind and plan.n == system.layout.n
        assert plan.tree == system.layout.tree
        if kind in ("closest", "grid", "line"):
            assert plan.radius == RADIUS and plan.body == 2
            np.testing.assert_array_equal(plan.local, [0.0, 0.0])
    grid = pair_plan(SYSTEMS["grid"], 0)
    assert grid.columns == SYSTEMS["grid"].layout.structure("b") and grid.target == "b"
    assert grid.grid is SYSTEMS["grid"].grids[0] and grid.grid.s.size == 9
    closest = pair_plan(SYSTEMS["grid"], 0, search="closest")
    assert closest.kind == "closest" and closest.grid is None
    assert closest.structure is SYSTEMS["grid"].structures["b"]
    with pytest.raises(ValueError, match="is a closest pair; GridPair takes a candidate grid"):
        GridPair(SYSTEMS["closest"], 0)


def test_closest_point_gap_of_a_disk_over_the_straight_beam_and_w_n_by_differences():
    system = SYSTEMS["closest"]
    q, u = state(system, (0.23, 0.08))
    p = contact_points(system, 0, q, u)
    assert isinstance(p, ContactPoints) and p.size == 1 and p.kind == "closest"
    # undeformed beam along +x from the origin: the gap is the centre's height minus R
    assert abs(p.gap[0] - (0.08 - RADIUS)) <= 16 * EPS
    assert abs(p.parameter[0] - 0.23) <= 16 * EPS * BEAM.length
    np.testing.assert_allclose(p.normal[0], [0.0, 1.0], rtol=0.0, atol=16 * EPS)
    # deformed beam, turned disk: W_N is the gradient of the gap
    q, u = state(system, (0.23, 0.08), angle=0.4, beam=2e-3)
    p = contact_points(system, 0, q, u)
    np.testing.assert_allclose(p.w_normal[:, 0], gap_gradient(system, q), rtol=0, atol=FD_TOL)
    assert p.normal_velocity[0] == pytest.approx(p.w_normal[:, 0] @ u, abs=1e-13)
    assert p.single() is p.kinematics


def test_line_gap_of_a_disk_over_a_tilted_line_and_w_n_by_differences():
    system = SYSTEMS["line"]
    centre = np.array([0.3, 0.2])
    q, u = state(system, centre, angle=0.7)
    p = contact_points(system, 0, q, u)
    n = np.array([-0.3, 1.0]) / np.hypot(0.3, 1.0)
    expected = float(n @ (centre - np.array([0.1, -0.02]))) - RADIUS
    assert abs(p.gap[0] - expected) <= 16 * EPS
    np.testing.assert_allclose(p.w_normal[:, 0], gap_gradient(system, q), rtol=0, atol=FD_TOL)
    assert np.isnan(p.parameter[0])


def test_grid_gaps_are_the_distances_to_the_material_points_and_w_n_by_differences():
    system = SYSTEMS["grid"]
    centre = np.array([0.17, 0.06])
    q, u = state(system, centre)
    s_i = np.linspace(0.0, BEAM.length, 9)  # 9 equidistant candidates on the straight beam
    expected = np.hypot(centre[0] - s_i, centre[1]) - RADIUS
    scan = contact_gaps(system, 0, q)
    full = contact_points(system, 0, q, u)
    for gaps in (scan.gap, full.gap):
        np.testing.assert_allclose(gaps, expected, rtol=0.0, atol=16 * EPS)
    assert scan.normal is None and full.size == 9
    np.testing.assert_array_equal(full.key, np.arange(9))
    # a subset of candidates, geometry alone: the same points, no rows
    some = contact_points(system, 0, q, u, rows=False, candidates=[2, 5])
    assert some.w_normal is None
    np.testing.assert_allclose(some.gap, expected[[2, 5]], rtol=0.0, atol=16 * EPS)
    q, u = state(system, centre, angle=0.3, beam=2e-3)
    full = contact_points(system, 0, q, u)
    for i in (1, 4, 7):
        np.testing.assert_allclose(
            full.w_normal[:, i], gap_gradient(system, q, i), rtol=0, atol=FD_TOL
        )
    with pytest.raises(ValueError, match="candidate grid of 9 points"):
        full.single()


def test_curved_foot_gap_is_the_height_of_its_vertex_and_w_n_by_differences():
    system = SYSTEMS["curved"]
    q, u = state(system, (0.05, 0.03))
    p = contact_points(system, 0, q, u)
    # the parabola's lowest point is its vertex at the body's origin (angle 0)
    assert abs(p.gap[0] - 0.03) <= 1e-12  # Newton on the support point stops at 1e-13 in eta
    q, u = state(system, (0.05, 0.03), angle=0.2)
    p = contact_points(system, 0, q, u)
    np.testing.assert_allclose(p.w_normal[:, 0], gap_gradient(system, q), rtol=0, atol=FD_TOL)


def test_link_gap_is_minus_its_stretch_and_w_n_by_differences():
    system = SYSTEMS["link"]
    centre = np.array([0.25, 0.12])
    q, u = state(system, centre, angle=0.5)
    p = contact_points(system, 0, q, u)
    # the body point at the body's origin, the material point s = 0.2 m of the straight beam
    assert abs(p.gap[0] - (0.1 - np.hypot(0.05, 0.12))) <= 16 * EPS
    q, u = state(system, centre, angle=0.5, beam=2e-3)
    p = contact_points(system, 0, q, u)
    np.testing.assert_allclose(p.w_normal[:, 0], gap_gradient(system, q), rtol=0, atol=FD_TOL)


def test_a_closest_point_beyond_the_beam_is_missing_and_raises_in_contact_at():
    system = SYSTEMS["closest"]
    q, u = state(system, (0.6, 0.08))
    p = contact_points(system, 0, q, u)
    assert p.missing and p.gap[0] == np.inf and p.kinematics is None
    with pytest.raises(ContactLeftStructure, match="outside"):
        contact_at(system, 0, q, u)


@pytest.mark.parametrize(("kind", "tol"), [("closest", 8), ("line", 8), ("curved", None)])
def test_moreau_and_genalpha_get_the_same_kinematics(kind, tol):
    """Moreau-Jean's closed-contact rows and the generalised-alpha stepper's kinematics
    (``evaluate_state`` of a closed Unilateral pair) of one pair at one state.

    Closest point and line: the same arithmetic on the same inputs (the closest point found by
    the same search from the same start); products of small arrays may still take other BLAS
    paths, so 8 eps times the row's largest entry. Curved: Moreau-Jean solves twice (gaps, then
    rows, the second warm-started from the first) and evaluate_state once from the global search:
    Newton stops within 1e-13 in the parameters, so the rows agree to 1e-10 of their scale."""
    system = SYSTEMS[kind]
    centre = {"closest": (0.23, 0.048), "line": (0.3, 0.05), "curved": (0.05, -1e-4)}[kind]
    q, u = state(system, centre, angle=0.2 if kind != "curved" else 0.05, beam=1e-4)
    moreau = MoreauJean(system, 0.0, q, u)
    gaps = moreau.gaps(q)
    assert gaps[0][0] < 0.0  # closed
    closed = moreau._closed(q, u, gaps)
    genalpha = evaluate_state(system, q, u, 0.0, unilateral=(0,), closed=[True]).contacts[0]
    pairs = [
        (closed.w_n[:, 0], genalpha.w_normal),
        (closed.w_t[:, 0], genalpha.w_tangent),
        (closed.normal[0], genalpha.normal),
        (closed.point[0], genalpha.point),
        (closed.gap, np.array([genalpha.gap])),
    ]
    for a, b in pairs:
        scale = np.max(np.abs(b))
        bound = tol * EPS * scale if tol is not None else 1e-10 * max(scale, 1.0)
        np.testing.assert_allclose(a, b, rtol=0.0, atol=bound)


def test_a_rough_polyline_pair_is_named_and_referred_to_its_own_contact_set():
    """The rough pair (Slavic-Boltezar (003)) depends on time; the entry point refuses it with
    the pair's name and where to go instead."""
    from fe_contact.papers.slavic_boltezar import PinOnWheel, pin_model

    system = assemble(pin_model(PinOnWheel()))
    assert pair_kind(system, 0) == "rough"
    q, u = system.initial_state()
    with pytest.raises(ValueError, match=r"contact '\w+' is a rough Polyline.*rough_contact"):
        contact_points(system, 0, q, u)
    with pytest.raises(ValueError, match="rough_contact.closed_contacts"):
        contact_gaps(system, 0, q)
