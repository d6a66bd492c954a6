"""Every public constructor rejects bad input with a message that names the parameter, and takes
good input: property-based (hypothesis) over each parameter of each public spec.

For each (constructor, parameter) pair a strategy draws invalid values of that one parameter
(strings, None, bools and arrays where numbers belong; NaN and inf; zero or negative values where
> 0 is required; wrong-length tuples; non-integer or non-positive counts; indices of bodies,
joints or structures that do not exist) while every other parameter keeps a valid value; the
call must raise ValueError or TypeError whose message contains the parameter's name. Valid draws
must construct, and the models built from them must ``assemble``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fe_contact import (
    BeamSpec,
    Body,
    BodyPointSensor,
    BodySensor,
    Circle,
    Compliant,
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
    Polyline,
    Sliding,
    Stribeck,
    StringSpec,
    StructureSensor,
    Support,
    TreeModel,
    Unilateral,
    Wheel,
    assemble,
    floating_body,
    simulate,
)
from fe_contact.elements.beam import SUPPORT_KINDS as BEAM_SUPPORTS
from fe_contact.elements.string import SUPPORT_KINDS as STRING_SUPPORTS
from fe_contact.elements.string import StraightReference
from fe_contact.laws import COMPLIANT_KINDS
from fe_contact.model import CarriedBody
from fe_contact.multibody import JOINT_KINDS
from fe_contact.rough import arc_profile
from fe_contact.sensors import BODY_QUANTITIES, POINT_QUANTITIES, STRUCTURE_QUANTITIES
from fe_contact.structure_points import SpringSupport

# (data_too_large: older hypothesis versions, 6.0 among them, overrun their buffer while
# drawing the nested invalid values and report it as a failed health check)
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
CHECKS = settings(max_examples=25, deadline=None, suppress_health_check=QUIET)
ASSEMBLES = settings(max_examples=40, deadline=None, suppress_health_check=QUIET)

# ------------------------------------------------------------------------------------------
# Invalid values
# ------------------------------------------------------------------------------------------

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf, np.float64("nan")])
NOT_A_NUMBER = st.sampled_from(["1.0", "abc", None, True, [1.0], (1.0, 2.0), np.zeros(2), {}])
NEGATIVE = st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False)
BAD_REAL = NON_FINITE | NOT_A_NUMBER
BAD_NON_NEGATIVE = BAD_REAL | NEGATIVE
BAD_POSITIVE = BAD_NON_NEGATIVE | st.sampled_from([0, 0.0, -0.0])
BAD_UNIT_INTERVAL = BAD_NON_NEGATIVE | st.floats(min_value=1.0 + 1e-9, allow_infinity=False)
NON_INTEGRAL = st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != int(x))
BAD_COUNT = (
    st.integers(max_value=0)
    | NON_INTEGRAL
    | st.sampled_from([1.0, 2.0, "3", None, True, math.nan, math.inf, (2,)])
)
BAD_INDEX_TYPE = st.sampled_from([None, "0", 0.5, 1.0, True, (0,), math.nan])
BAD_PAIR = (
    st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=4)
    .filter(lambda xs: len(xs) != 2)
    .map(tuple)
    | st.tuples(BAD_REAL, st.floats(allow_nan=False, allow_infinity=False))
    | st.tuples(st.floats(allow_nan=False, allow_infinity=False), BAD_REAL)
    | st.sampled_from(["xy", None, 1.0, np.zeros((2, 2)), {"x": 0.0, "y": 0.0}])
)
BAD_POINT = BAD_PAIR.filter(lambda v: not isinstance(v, str))  # a string names a tree point
NOT_A_STRING = NOT_A_NUMBER.filter(lambda v: not isinstance(v, str))
NOT_AN_IDENTIFIER = st.text(max_size=6).filter(lambda s: not s.isidentifier()) | NOT_A_STRING


def other_text(allowed, max_size: int):
    """Strings that are not one of ``allowed``: hypothesis also draws string constants of the
    code under test (a valid "prismatic" for a joint kind), so they are filtered out."""
    return st.text(max_size=max_size).filter(lambda s: s not in allowed)


NOT_A_CALLABLE = st.sampled_from([None, 1.0, "sin", (1.0,)])


def rejects(build, name: str):
    """``build()`` raises ValueError or TypeError naming ``name``; returns the message."""
    with pytest.raises((ValueError, TypeError)) as err:
        build()
    message = str(err.value)
    assert name in message, f"{name!r} not named in {message!r}"
    return message


# ------------------------------------------------------------------------------------------
# Valid bases: each constructor with good values, so one parameter at a time can go bad
# ------------------------------------------------------------------------------------------

BEAM_RECT = dict(length=0.4, youngs_modulus=2.1e11, density=7800.0, n_elements=2, width=0.01)
BEAM_RECT["height"] = 0.001
BEAM_DIRECT = {**BEAM_RECT, "width": None, "height": None, "area": 1e-5, "second_moment": 1e-12}
STRING = dict(length=1.0, n_elements=2, density=0.1, law=NeoHookean(k=100.0))
STRING_SPEC = StringSpec(**STRING)
TREE3 = TreeModel(
    bodies=(Body(1.0, 0.01), Body(0.5, 0.002), Body(0.3, 0.001)),
    joints=(Joint("revolute"), Joint("revolute", 0, (0.2, 0.0)), Joint("prismatic", 1)),
    points={"tip": (2, (0.1, 0.0))},
)
BEAM = BeamSpec(**BEAM_RECT)
PAIR = ContactPair("tip", Point(2, (0.1, 0.0)), "beam")
RIM = arc_profile((0.0, 0.0), 0.05, 0.0, 1.0, 5)  # counter-clockwise: a wheel's rim
FACE = arc_profile((0.0, 0.0), 0.05, 1.0, 0.0, 5)  # clockwise: a face around the wheel
DRIVE = Drive.constant_velocity(1, 0.0, 0.2)
GRID = dict(name="disk", profile=Circle(2, 0.1), target="beam", law=Unilateral(0.2), search="grid")
GRID["n_candidates"] = 5


def model(**changes):
    base = dict(tree=TREE3, structures={"beam": BEAM}, contacts=(PAIR,))
    return Model(**{**base, **changes})


CASES = {
    # (constructor, valid keyword arguments, {parameter: strategy of invalid values})
    "BeamSpec": (
        BeamSpec,
        BEAM_RECT,
        {
            "length": BAD_POSITIVE,
            "youngs_modulus": BAD_POSITIVE,
            "density": BAD_POSITIVE,
            "n_elements": BAD_COUNT,
            "width": BAD_POSITIVE,
            "height": BAD_POSITIVE,
            "left": other_text(BEAM_SUPPORTS, 8) | NOT_A_NUMBER,
            "right": other_text(BEAM_SUPPORTS, 8) | NOT_A_NUMBER,
            "rayleigh_alpha": BAD_NON_NEGATIVE,
            "rayleigh_beta": BAD_NON_NEGATIVE,
            "origin": BAD_PAIR,
            "angle": BAD_REAL,
            "axial_force": BAD_REAL,
            "node_x": st.sampled_from(
                ["0 0.4", (0.0, math.nan, 0.4), (0.0, 0.3, 0.2, 0.4), (0.0,), (0.0, 0.2), [None]]
            ),
        },
    ),
    "BeamSpec direct section": (
        BeamSpec,
        BEAM_DIRECT,
        {"area": BAD_POSITIVE, "second_moment": BAD_POSITIVE},
    ),
    "StringSpec": (
        StringSpec,
        STRING,
        {
            "length": BAD_POSITIVE,
            "n_elements": BAD_COUNT,
            "density": BAD_POSITIVE,
            "law": st.sampled_from([None, 1.0, "neo-hookean", NeoHookean, lambda nu: nu]),
            "bending_stiffness": BAD_NON_NEGATIVE,
            "stiffness_damping": BAD_NON_NEGATIVE,
            "gravity": BAD_PAIR,
            "intorder": BAD_COUNT,
            "supports": st.sampled_from(
                [Support(0.0), (Support(1.5),), (1.0,), ("pinned",), None, 1.0]
            ),
            "reference": st.sampled_from(
                [StraightReference((0.0, 0.0), (0.8, 0.0)), (0.0, 1.0), "straight"]
            ),
            "closed": st.sampled_from([1, 0, "true", None, 1.0]),
        },
    ),
    "Support": (
        Support,
        dict(s=0.0, kind="clamped"),
        {
            "s": BAD_NON_NEGATIVE,
            "kind": other_text(STRING_SUPPORTS, 8) | NOT_A_NUMBER,
            "position": BAD_PAIR.filter(lambda v: v is not None),
            "slope": BAD_PAIR.filter(lambda v: v is not None),
        },
    ),
    "StraightReference": (
        StraightReference,
        dict(start=(0.0, 0.0), end=(1.0, 0.0)),
        {"start": BAD_PAIR, "end": BAD_PAIR},
    ),
    "NeoHookean": (NeoHookean, dict(k=1.0), {"k": BAD_POSITIVE}),
    "LinearElastic": (LinearElastic, dict(EA=1.0), {"EA": BAD_POSITIVE}),
    "Body": (
        Body,
        dict(mass=1.0, inertia=0.1),
        {"mass": BAD_NON_NEGATIVE, "inertia": BAD_NON_NEGATIVE, "centre_of_mass": BAD_PAIR},
    ),
    "Joint": (
        Joint,
        dict(kind="revolute", parent=0),
        {
            "kind": other_text(JOINT_KINDS, 10) | NOT_A_NUMBER,
            "parent": st.integers(max_value=-1) | BAD_INDEX_TYPE.filter(lambda b: b is not None),
            "location": BAD_PAIR,
            "angle": BAD_REAL,
            "stiffness": BAD_NON_NEGATIVE,
            "damping": BAD_NON_NEGATIVE,
            "rest": BAD_REAL,
            "actuator": NON_FINITE | st.sampled_from(["1.0", True, [1.0], np.zeros(2)]),
            "name": NOT_AN_IDENTIFIER.filter(lambda v: v is not None),
        },
    ),
    "BodyPointSensor": (
        BodyPointSensor,
        dict(name="hand", body=0, at=(0.1, 0.0), quantity="position"),
        {
            "name": NOT_AN_IDENTIFIER,
            "body": st.integers(max_value=-1) | BAD_INDEX_TYPE,
            "at": BAD_POINT,
            "quantity": other_text(POINT_QUANTITIES, 10) | NOT_A_NUMBER,
        },
    ),
    "BodySensor": (
        BodySensor,
        dict(name="arm", body=0, quantity="angle"),
        {
            "name": NOT_AN_IDENTIFIER,
            "body": st.integers(max_value=-1) | BAD_INDEX_TYPE,
            "quantity": other_text(BODY_QUANTITIES, 10) | NOT_A_NUMBER,
        },
    ),
    "StructureSensor": (
        StructureSensor,
        dict(name="tip", structure="beam", s=0.4, quantity="deflection"),
        {
            "name": NOT_AN_IDENTIFIER,
            "structure": NOT_A_STRING,
            "s": BAD_REAL,
            "quantity": other_text(STRUCTURE_QUANTITIES, 10) | NOT_A_NUMBER,
        },
    ),
    "TreeModel": (
        TreeModel,
        dict(bodies=(Body(1.0, 0.1), Body(1.0, 0.1)), joints=(Joint("revolute"),) * 2),
        {
            "bodies": st.sampled_from([Body(1.0, 0.1), (Body(1.0, 0.1), 1.0), None, ()]),
            "joints": st.sampled_from(
                [(Joint("revolute"),), (Joint("revolute"), "revolute"), Joint("revolute")]
            ),
            "points": st.sampled_from(
                [{"tip": (2, (0.1, 0.0))}, {"tip": (-1, (0.0, 0.0))}, {"tip": (0, (math.nan, 0))}]
            )
            | BAD_INDEX_TYPE.map(lambda b: {"tip": (b, (0.0, 0.0))}),
            "gravity": BAD_PAIR,
        },
    ),
    "floating_body": (
        floating_body,
        dict(mass=1.0, inertia=0.1),
        {
            "mass": BAD_NON_NEGATIVE,
            "inertia": BAD_NON_NEGATIVE,
            "gravity": BAD_PAIR,
            "centre_of_mass": BAD_PAIR,
            "points": st.sampled_from([[("rim", (0.1, 0.0))], "rim"])
            | BAD_POINT.map(lambda at: {"rim": at}),
        },
    ),
    "Drive": (
        Drive,
        dict(joint=0, position=np.sin, velocity=np.cos, acceleration=np.sin),
        {
            "joint": st.integers(max_value=-1) | BAD_INDEX_TYPE,
            "position": NOT_A_CALLABLE,
            "velocity": NOT_A_CALLABLE,
            "acceleration": NOT_A_CALLABLE,
        },
    ),
    "Drive.constant_velocity": (
        Drive.constant_velocity,
        dict(joint=0, q0=0.0, rate=0.2),
        {"joint": st.integers(max_value=-1) | BAD_INDEX_TYPE, "q0": BAD_REAL, "rate": BAD_REAL},
    ),
    "Point": (
        Point,
        dict(body=0, at=(0.0, 0.0)),
        {"body": st.integers(max_value=-1) | BAD_INDEX_TYPE, "at": BAD_POINT},
    ),
    "Circle": (
        Circle,
        dict(body=0, radius=0.1),
        {
            "body": st.integers(max_value=-1) | BAD_INDEX_TYPE,
            "radius": BAD_POSITIVE,
            "centre": BAD_PAIR,
        },
    ),
    "Line": (
        Line,
        dict(point=(0.0, 0.0), normal=(0.0, 1.0)),
        {
            "point": BAD_PAIR,
            "normal": BAD_PAIR | st.just((0.0, 0.0)),
            "body": st.integers(max_value=-1) | BAD_INDEX_TYPE.filter(lambda b: b is not None),
        },
    ),
    "Line.incline": (Line.incline, dict(angle=0.1), {"angle": BAD_REAL, "point": BAD_PAIR}),
    "Polyline": (
        Polyline,
        dict(body=2, profile=FACE),
        {
            "body": st.integers(max_value=-1) | BAD_INDEX_TYPE,
            "profile": st.sampled_from([None, FACE.points, (0.0, 0.0), Point(2)]),
        },
    ),
    "Wheel": (
        Wheel,
        dict(rim=RIM, omega=-10.0),
        {
            # a clockwise rim (the face's orientation) is as wrong as no profile at all
            "rim": st.sampled_from([None, RIM.points, FACE, 0.05]),
            "omega": BAD_REAL,
            "alpha_0": BAD_REAL,
        },
    ),
    "Sliding": (
        Sliding,
        dict(mu=0.1),
        # mu_s below the kinetic mu = 0.1 is as wrong as a negative one; None means mu_s = mu
        {
            "mu": BAD_NON_NEGATIVE,
            "mu_s": (BAD_NON_NEGATIVE | st.sampled_from([0.0, 0.05])).filter(
                lambda v: v is not None
            ),
            "v0": BAD_POSITIVE.filter(lambda v: v is not None),
        },
    ),
    "Stribeck": (
        Stribeck,
        dict(mu=0.2, mu_s=0.3, v0=1e-4, v_s=0.01),
        # mu_s below the kinetic mu = 0.2 is wrong; v0 and v_s are required (None is refused)
        {
            "mu": BAD_NON_NEGATIVE,
            "mu_s": (BAD_NON_NEGATIVE | st.sampled_from([0.0, 0.1])).filter(
                lambda v: v is not None
            ),
            "v0": BAD_POSITIVE,
            "v_s": BAD_POSITIVE,
            "c_v": BAD_NON_NEGATIVE,
        },
    ),
    "Compliant": (
        Compliant,
        dict(kind="hertz", stiffness=1e9, mu=0.2, v0=1e-3),
        # with mu > 0 the characteristic velocity v0 is required (None is refused)
        {
            "kind": other_text(COMPLIANT_KINDS, 8) | NOT_A_NUMBER,
            "stiffness": BAD_POSITIVE,
            "damping": BAD_NON_NEGATIVE,
            "mu": BAD_NON_NEGATIVE,
            "mu_s": (BAD_NON_NEGATIVE | st.sampled_from([0.0, 0.1])).filter(
                lambda v: v is not None
            ),
            "v0": BAD_POSITIVE,
            "rolling": st.sampled_from([None, 0, 1, 1.0, "True"]),
        },
    ),
    "Unilateral": (
        Unilateral,
        dict(mu=0.1),
        {
            "mu": BAD_NON_NEGATIVE,
            "restitution_normal": BAD_UNIT_INTERVAL,
            "restitution_tangent": BAD_UNIT_INTERVAL,
            "impact": st.sampled_from(["Newton", "stronge", "", None, 1.0]),
            "reversibility": BAD_UNIT_INTERVAL,
        },
    ),
    "ContactPair": (
        ContactPair,
        dict(name="tip", profile=Point(0), target="beam"),
        {
            "name": NOT_AN_IDENTIFIER,
            "profile": st.sampled_from([None, (0, (0.0, 0.0)), 0, Line((0, 0), (0, 1))]),
            "target": st.sampled_from([None, 0, ("beam",), Point(1)]),
            "law": st.sampled_from([None, 0.1, "sliding", Sliding]),
            "side": st.integers().filter(lambda k: k not in (1, -1))
            | st.sampled_from([1.0 + 1e-9, "1", None, math.nan, (1,)]),
            "search": st.text(max_size=8).filter(lambda s: s not in ("closest", "grid"))
            | NOT_A_NUMBER,
            "n_candidates": st.integers(max_value=-1) | NON_INTEGRAL | BAD_INDEX_TYPE,
        },
    ),
    "ContactPair grid": (
        ContactPair,
        GRID,
        {"n_candidates": st.integers(max_value=1) | NON_INTEGRAL | BAD_INDEX_TYPE},
    ),
    "LoopClosure": (
        LoopClosure,
        dict(body_a=1, point_a=(0.2, 0.0), body_b=None, point_b=(0.4, 0.0)),
        {
            "body_a": st.integers(max_value=-1) | BAD_INDEX_TYPE,
            "point_a": BAD_POINT,
            "body_b": st.integers(max_value=-1) | BAD_INDEX_TYPE.filter(lambda b: b is not None),
            "point_b": BAD_PAIR,
            "name": NOT_AN_IDENTIFIER,
        },
    ),
    "PointLoad": (
        PointLoad,
        dict(structure="beam", s=0.2, force=(0.0, -1.0)),
        {"structure": NOT_A_STRING, "s": BAD_REAL, "force": BAD_PAIR},
    ),
    "Model": (
        model,
        {},
        {
            "tree": st.sampled_from([Body(1.0, 0.1), "tree", (Body(1.0, 0.1),), 3]),
            "structures": st.sampled_from(
                [BEAM, [BEAM], {"2beam": BEAM}, {"": BEAM}, {1: BEAM}, {"beam": "spec"}]
            ),
            "contacts": st.sampled_from([PAIR, (PAIR, "tip"), "tip", None])
            | st.integers(min_value=3, max_value=99).map(
                lambda b: (ContactPair("tip", Point(b), "beam"),)
            )
            | st.text(min_size=1, max_size=6)
            .filter(lambda s: s.isidentifier() and s != "beam")
            .map(lambda target: (ContactPair("tip", Point(2), target),)),
            "drives": st.sampled_from([DRIVE, (DRIVE, DRIVE), ("drive",), None])
            | st.integers(min_value=3, max_value=99).map(
                lambda j: (Drive.constant_velocity(j, 0.0, 0.2),)
            ),
            "loops": st.sampled_from([LoopClosure(0, (0.1, 0.0)), (1,)])
            | st.integers(min_value=3, max_value=99).map(lambda b: (LoopClosure(b, (0, 0)),))
            | st.just((LoopClosure(2, "elbow"),)),
            "loads": st.sampled_from([PointLoad("beam", 0.1, (0, 1)), ("load",)])
            | st.floats(min_value=0.4 + 1e-6, max_value=1e6).map(
                lambda s: (PointLoad("beam", s, (0.0, -1.0)),)
            )
            | st.floats(max_value=-1e-9, min_value=-1e6).map(
                lambda s: (PointLoad("beam", s, (0.0, -1.0)),)
            )
            | st.just((PointLoad("string", 0.1, (0.0, -1.0)),)),
            "gravity": BAD_PAIR | st.just((0.0, -1.62)),
            "structure_gravity": st.sampled_from([None, 1, "yes", np.zeros(1)]),
            # not sensors, an unknown body or structure, s off the beam, a quantity the
            # beam does not have, a column name taken (the joint columns joint_<i>_q)
            "sensors": st.sampled_from(
                [
                    "tip",
                    ("tip",),
                    BodySensor("arm", 0),
                    (StructureSensor("tip", "rope", 0.1),),
                    (StructureSensor("tip", "beam", 0.1, "tension"),),
                    (BodySensor("joint_0_q", 0),),
                ]
            )
            | st.integers(min_value=3, max_value=99).map(lambda b: (BodyPointSensor("p", b),))
            | st.floats(min_value=0.4 + 1e-6, max_value=1e6).map(
                lambda s: (StructureSensor("tip", "beam", s),)
            ),
            "carried": st.sampled_from(
                [
                    CarriedBody("b", "beam", 0.1, 1.0),
                    ("b",),
                    (CarriedBody("b", "rope", 0.1, 1.0),),
                    (CarriedBody("b", "beam", 0.1, 1.0), CarriedBody("b", "beam", 0.2, 1.0)),
                ]
            )
            | st.floats(min_value=0.4 + 1e-6, max_value=1e6).map(
                lambda s: (CarriedBody("b", "beam", s, 1.0),)
            ),
            "supports": st.sampled_from(
                [
                    SpringSupport("beam", 0.1, 1.0),
                    ("spring",),
                    (SpringSupport("rope", 0.1, 1.0),),
                ]
            )
            | st.floats(min_value=0.4 + 1e-6, max_value=1e6).map(
                lambda s: (SpringSupport("beam", s, 1.0),)
            ),
        },
    ),
}
PARAMETERS = [(case, name) for case, (_, _, bad) in CASES.items() for name in bad]


@pytest.mark.parametrize(("case", "name"), PARAMETERS, ids=[f"{c}-{n}" for c, n in PARAMETERS])
@CHECKS
@given(data=st.data())
def test_invalid_value_is_rejected_naming_the_parameter(case, name, data):
    build, valid, bad = CASES[case]
    value = data.draw(bad[name], label=name)
    rejects(lambda: build(**{**valid, name: value}), name)


def test_every_parameter_of_every_public_spec_is_covered():
    """Each class and function exported for building models has invalid-value cases for each
    of its parameters (the cases above draw them)."""
    import dataclasses
    import inspect

    import fe_contact

    covered: dict[str, set] = {}
    for case, (_, _, bad) in CASES.items():
        covered.setdefault(case.split()[0], set()).update(bad)
    not_specs = {"SimulationResult", "System", "assemble", "simulate"}
    # model files are checked key by key in test_model_file.py
    not_specs |= {"ModelFile", "ModelFileError", "load_model", "save_model"}
    # the static solver and its result: its input checks are in test_statics.py
    not_specs |= {"StaticEquilibriumError", "StaticState", "static_equilibrium"}
    # a runnable case of a built model: its input checks are in test_scenario.py
    not_specs |= {"Scenario"}
    exported = set(fe_contact.__all__) - not_specs
    assert exported <= set(covered)
    for name in exported:
        obj = getattr(fe_contact, name)
        if dataclasses.is_dataclass(obj):
            params = {f.name for f in dataclasses.fields(obj) if f.init}
        else:
            params = set(inspect.signature(obj).parameters)
        assert params == covered[name], name


# ------------------------------------------------------------------------------------------
# simulate: run parameters and the initial state
# ------------------------------------------------------------------------------------------

_SYSTEM = []


def small_system():
    """A three-body chain and a two-element cantilever (3 + 4 coordinates), assembled once."""
    if not _SYSTEM:
        _SYSTEM.append(assemble(Model(tree=TREE3, structures={"beam": BEAM})))
        assert _SYSTEM[0].n == 7
    return _SYSTEM[0]


BAD_SPAN = (
    st.floats(allow_nan=False, allow_infinity=False).map(lambda t: (t, t))
    | st.tuples(st.floats(0.0, 10.0), st.floats(-10.0, -1e-3)).map(lambda p: (p[0], p[0] + p[1]))
    | st.tuples(NON_FINITE, st.just(1.0))
    | st.tuples(st.just(0.0), NON_FINITE)
    | st.sampled_from(["0 1", (0.0,), (0.0, 0.5, 1.0), None, 1.0, (0.0, "1")])
)
SIMULATE_BAD = {
    "t_span": BAD_SPAN,
    "h": BAD_POSITIVE.filter(lambda v: v is not None),
    "store_every": BAD_COUNT,
    "method": st.text(max_size=12).filter(lambda s: s not in ("generalized-alpha", "moreau"))
    | NOT_A_STRING,
    "y0": st.sampled_from([None, "q0 u0", (np.zeros(3),), 1.0]),
    "rho_inf": BAD_UNIT_INTERVAL,
    "tol": BAD_POSITIVE,
    "max_newton": BAD_COUNT,
    "max_halvings": st.integers(max_value=-1) | NON_INTEGRAL | BAD_INDEX_TYPE,
    "max_events": BAD_COUNT,
    "event_tol": BAD_POSITIVE,
    "rtol": BAD_POSITIVE | st.sampled_from([0.5, 1.0]),
    "min_substep": BAD_POSITIVE,
    "error_tol": BAD_POSITIVE.filter(lambda v: v is not None),
    "gap_tol": BAD_NON_NEGATIVE,
}


@pytest.mark.parametrize("name", list(SIMULATE_BAD))
@CHECKS
@given(data=st.data())
def test_simulate_rejects_invalid_run_parameters(name, data):
    system = small_system()
    args = dict(t_span=(0.0, 1e-3), y0=system.initial_state())
    value = data.draw(SIMULATE_BAD[name], label=name)
    rejects(lambda: simulate(system, **{**args, name: value}), name)


@CHECKS
@given(
    which=st.sampled_from(["q0", "u0"]),
    index=st.integers(0, 6),  # 3 joints, 4 free beam coordinates
    value=NON_FINITE | st.sampled_from(["x", None]),
)
def test_initial_state_names_the_offending_coordinate(which, index, value):
    """A NaN, inf or non-number in q0 or u0 is named by its index and what it is."""
    system = small_system()
    q0, u0 = system.initial_state()
    state = {"q0": q0.astype(object), "u0": u0.astype(object)}
    state[which][index] = value
    message = rejects(lambda: simulate(system, (0.0, 1e-3), (state["q0"], state["u0"])), which)
    if isinstance(value, float):
        assert f"{which}[{index}] ({system.layout.coordinate_name(index)})" in message
        assert ("joint" in message) == (index < 3)


@CHECKS
@given(which=st.sampled_from(["q0", "u0"]), n=st.integers(0, 20).filter(lambda n: n != 7))
def test_initial_state_of_the_wrong_shape_is_rejected(which, n):
    system = small_system()
    state = dict(zip(("q0", "u0"), system.initial_state(), strict=True))
    state[which] = np.zeros(n)
    message = rejects(lambda: simulate(system, (0.0, 1e-3), (state["q0"], state["u0"])), which)
    assert "(7,)" in message
