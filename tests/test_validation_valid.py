"""Valid values of every public spec construct, and the models built from them assemble
(hypothesis); and the inputs that earlier versions accepted silently or let fail deep inside
numpy (a rigid line through a NaN point, a string support at s = NaN, NaN gravity)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_validation_properties import ASSEMBLES, BEAM, BEAM_RECT, STRING, rejects, small_system

from fe_contact import (
    BeamSpec,
    Body,
    Circle,
    ContactPair,
    Drive,
    Joint,
    Line,
    LinearElastic,
    LoopClosure,
    Model,
    NeoHookean,
    Point,
    PointLoad,
    Sliding,
    StringSpec,
    Support,
    TreeModel,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)

# ------------------------------------------------------------------------------------------
# Valid values construct, and the models built from them assemble
# ------------------------------------------------------------------------------------------


def positive(low=1e-3, high=1e3):
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


def coordinate(bound=1.0):
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False)


PAIRS = st.tuples(coordinate(), coordinate()) | st.builds(
    lambda x, y: np.array([x, y]), coordinate(), coordinate()
)
SUPPORT_KIND = st.sampled_from(["clamped", "pinned", "free"])


@st.composite
def beam_specs(draw):
    n = draw(st.integers(1, 3))
    length = draw(positive(0.05, 5.0))
    section = draw(st.booleans())
    return BeamSpec(
        length=length,
        youngs_modulus=draw(positive(1e6, 1e12)),
        density=draw(positive(10.0, 1e4)),
        n_elements=n,
        width=draw(positive(1e-3, 0.1)) if section else None,
        height=draw(positive(1e-4, 0.01)) if section else None,
        area=None if section else draw(positive(1e-6, 1e-3)),
        second_moment=None if section else draw(positive(1e-12, 1e-8)),
        left=draw(SUPPORT_KIND),
        right=draw(SUPPORT_KIND),
        rayleigh_alpha=draw(st.floats(0.0, 10.0)),
        rayleigh_beta=draw(st.floats(0.0, 1e-3)),
        origin=draw(PAIRS),
        angle=draw(coordinate(np.pi)),
        node_x=draw(st.none() | st.just(tuple(np.linspace(0.0, length, n + 1)))),
    )


@st.composite
def string_specs(draw, gravity):
    n = draw(st.integers(1, 3))
    length = draw(positive(0.1, 5.0))
    nodes = draw(st.lists(st.integers(0, n), min_size=1, max_size=2, unique=True))
    kinds = st.sampled_from(["pinned", "clamped", "fixed_x", "fixed_y"])
    supports = tuple(Support(k * length / n, draw(kinds)) for k in nodes)
    law = draw(st.builds(NeoHookean, positive(1.0, 1e4)) | st.builds(LinearElastic, positive()))
    return StringSpec(
        length=length,
        n_elements=n,
        density=draw(positive(1e-3, 10.0)),
        law=law,
        bending_stiffness=draw(st.floats(0.0, 1.0)),
        supports=supports,
        gravity=gravity,
        intorder=draw(st.integers(4, 8)),
    )


@st.composite
def chains(draw, gravity):
    n = draw(st.integers(1, 3))
    bodies = tuple(
        Body(draw(positive(0.01, 10.0)), draw(positive(1e-4, 1.0)), draw(PAIRS)) for _ in range(n)
    )
    joints = tuple(
        Joint(
            draw(st.sampled_from(["revolute", "prismatic"])),
            None if i == 0 else draw(st.integers(0, i - 1)),
            draw(PAIRS),
            angle=draw(coordinate(np.pi)),
            stiffness=draw(st.floats(0.0, 100.0)),
            damping=draw(st.floats(0.0, 1.0)),
            rest=draw(coordinate()),
            actuator=draw(st.none() | coordinate() | st.just(np.sin)),
        )
        for i in range(n)
    )
    return TreeModel(bodies, joints, points={"tip": (n - 1, draw(PAIRS))}, gravity=gravity)


GRAVITY = st.tuples(coordinate(20.0), coordinate(20.0))


@ASSEMBLES
@given(data=st.data())
def test_valid_structures_construct_and_assemble(data):
    """Beams and strings with valid parameters, point loads anywhere on them: the system has
    one coordinate per free dof and finite constant matrices and loads."""
    gravity = data.draw(GRAVITY, label="gravity")
    beam = data.draw(beam_specs(), label="beam")
    string = data.draw(string_specs(gravity), label="string")
    loads = (
        PointLoad("beam", data.draw(st.floats(0.0, beam.length)), data.draw(PAIRS)),
        PointLoad("cable", data.draw(st.floats(0.0, string.length)), data.draw(PAIRS)),
    )
    system = assemble(
        Model(structures={"beam": beam, "cable": string}, loads=loads, gravity=gravity)
    )
    n_beam = system.structures["beam"].n_dofs
    assert (
        n_beam
        == 2 * (beam.n_elements + 1)
        - {"clamped": 2, "pinned": 1, "free": 0}[beam.left]
        - {"clamped": 2, "pinned": 1, "free": 0}[beam.right]
    )
    assert system.n == n_beam + system.structures["cable"].n_dofs
    assert np.all(np.isfinite(system.mass_flexible.toarray()))
    assert np.all(np.isfinite(system.load_flexible))


@ASSEMBLES
@given(data=st.data())
def test_valid_trees_with_contacts_drives_and_loops_assemble(data):
    """A chain of 1-3 bodies with a profile sliding on a beam, and a drive or a loop when the
    chain has the coordinates for them: it assembles and resolves its points."""
    gravity = data.draw(GRAVITY, label="gravity")
    tree = data.draw(chains(gravity), label="tree")
    n = tree.n_bodies
    last = n - 1
    profile = data.draw(
        st.builds(Point, st.just(last), st.just("tip") | PAIRS)
        | st.builds(Circle, st.just(last), positive(1e-3, 1.0), PAIRS),
        label="profile",
    )
    law = Sliding(data.draw(st.floats(0.0, 2.0)))
    pair = ContactPair("edge", profile, "beam", law, side=data.draw(st.sampled_from([1, -1])))
    extra = data.draw(st.sampled_from(["none", "drive", "loop"][: min(n, 3)]), label="extra")
    drives = (Drive.constant_velocity(0, data.draw(coordinate()), data.draw(coordinate())),)
    loops = (LoopClosure(0, data.draw(PAIRS), None, data.draw(PAIRS)),)
    model = Model(
        tree=tree,
        structures={"beam": data.draw(beam_specs(), label="beam")},
        contacts=(pair,),
        drives=drives if extra == "drive" else (),
        loops=loops if extra == "loop" and n == 3 else (),
        gravity=gravity,
    )
    system = assemble(model)
    assert system.n == n + system.structures["beam"].n_dofs
    expected = tree.points["tip"][1] if profile.at == "tip" else profile.at
    np.testing.assert_array_equal(system.profile_points[0], expected)


@ASSEMBLES
@given(data=st.data())
def test_valid_unilateral_contacts_assemble(data):
    """A floating disk over a string (candidate grid) and a rigid line (Moreau-Jean models)."""
    gravity = data.draw(GRAVITY, label="gravity")
    body = floating_body(
        data.draw(positive(0.01, 10.0)),
        data.draw(positive(1e-4, 1.0)),
        gravity=gravity,
        points={"rim": data.draw(PAIRS)},
        centre_of_mass=data.draw(PAIRS),
    )
    law = Unilateral(*(data.draw(st.floats(0.0, 1.0)) for _ in range(3)))
    disk = Circle(2, data.draw(positive(1e-3, 1.0)), data.draw(PAIRS))
    angle = data.draw(coordinate(1.0))
    n_candidates = data.draw(st.integers(2, 12))
    contacts = (
        ContactPair("grid", disk, "cable", law, search="grid", n_candidates=n_candidates),
        ContactPair("floor", Point(2, "rim"), Line.incline(angle, data.draw(PAIRS)), law),
    )
    string = data.draw(string_specs(gravity), label="string")
    system = assemble(
        Model(tree=body, structures={"cable": string}, contacts=contacts, gravity=gravity)
    )
    assert system.n == 3 + system.structures["cable"].n_dofs
    assert system.grids[1] is None
    normal = contacts[1].target.normal
    assert math.isclose(math.hypot(*normal), 1.0, rel_tol=1e-12)


# ------------------------------------------------------------------------------------------
# Inputs that earlier versions accepted silently or let fail inside numpy
# ------------------------------------------------------------------------------------------


def test_rigid_line_with_a_nan_point_is_rejected():
    """It used to disable itself (every gap NaN), so the disk fell through."""
    message = rejects(lambda: Line((math.nan, 0.0), (0.0, 1.0)), "Line.point")
    assert "got (nan, 0.0); allowed: 2 finite numbers (x, y) in m" in message
    rejects(lambda: Line.incline(math.nan), "angle")
    rejects(lambda: Line((0.0, 0.0), (math.inf, 1.0)), "Line.normal")


def test_support_at_nan_is_rejected():
    """It used to pin node 0 (argmin of NaN distances) without a word."""
    with pytest.raises(ValueError, match=r"Support\.s: got nan; allowed: a finite number >= 0"):
        Support(math.nan)
    spec = StringSpec(**STRING)
    with pytest.raises(ValueError, match=r"supports\[0\]\.s: got 1\.5"):
        StringSpec(**{**STRING, "supports": (Support(1.5),)})
    assert spec.supports == ()


@pytest.mark.parametrize("g", [(0.0, math.nan), (math.inf, -9.81), (math.nan, math.nan)])
def test_non_finite_gravity_is_rejected_everywhere(g):
    """It used to give a NaN trajectory with no error."""
    rejects(lambda: Model(structures={"beam": BEAM}, gravity=g), "Model.gravity")
    rejects(lambda: floating_body(1.0, 0.1, gravity=g), "gravity")
    rejects(lambda: StringSpec(**STRING, gravity=g), "StringSpec.gravity")
    rejects(lambda: TreeModel((Body(1.0, 0.1),), (Joint("revolute"),), gravity=g), "gravity")


def test_formerly_deep_errors_now_name_the_parameter():
    """Inputs that used to fail inside numpy with 'ufunc isfinite not supported' or 'truth
    value of an array is ambiguous'."""
    rejects(lambda: BeamSpec(**{**BEAM_RECT, "origin": ("0", "0")}), "BeamSpec.origin")
    rejects(lambda: BeamSpec(**{**BEAM_RECT, "angle": "0.1"}), "BeamSpec.angle")
    rejects(lambda: BeamSpec(**{**BEAM_RECT, "left": np.array(["clamped"])}), "left")
    rejects(lambda: StringSpec(**{**STRING, "bending_stiffness": "0"}), "bending_stiffness")
    rejects(lambda: NeoHookean(np.ones(2)), "NeoHookean.k")
    rejects(lambda: Support(0.0, np.array(["pinned"])), "Support.kind")
    rejects(lambda: ContactPair("tip", Point(0), "beam", side=np.array([1])), "side")
    system = small_system()
    rejects(lambda: simulate(system, ("0", "1"), system.initial_state()), "t_span")
