"""Model files of structures, drives and the catenary's parts, derived from their dataclasses
(``io.model_parts``): beams and strings (tension law, reference, supports), every drive kind,
``Dropper`` links between ``MaterialPoint`` sides and ``SpringSupport`` s are written and read
back equal; their mistakes are all reported at once at their key paths by the dataclasses' own
checks; the catenary read from its file reruns to the Python model's history."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fe_contact import (
    BeamSpec,
    Body,
    Drive,
    Joint,
    LinearElastic,
    Model,
    ModelFileError,
    NeoHookean,
    StringSpec,
    Support,
    TreeModel,
    assemble,
    load_model,
    save_model,
)
from fe_contact.curves import Curve
from fe_contact.elements.string import NodalReference, StraightReference
from fe_contact.io.model_file import model_document, parse_document
from fe_contact.io.model_parts import fields_of, key_reference
from fe_contact.io.model_problems import MISSING
from fe_contact.laws import Stribeck
from fe_contact.model import CarriedBody
from fe_contact.papers.catenary import catenary
from fe_contact.steppers.observers import CsvObserver
from fe_contact.steppers.result import read_history
from fe_contact.steppers.simulate import simulate


def problems_of(doc: dict) -> dict:
    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    return {p.path: p for p in info.value.problems}


@pytest.mark.parametrize("n_spans", [1, 2])
def test_the_catenary_round_trips(n_spans, tmp_path):
    """Two pre-tensioned beams, a Dropper between two MaterialPoints at each dropper, the clamps
    (CarriedBody) and, with 2 spans, the spring supports of the middle mast."""
    model = catenary(n_spans=n_spans, max_element_length=2.0).model
    assert len(model.supports) == 2 * (n_spans - 1)
    path = save_model(model, tmp_path / "catenary.toml")
    loaded = load_model(path).model
    assert loaded == model
    assert loaded.contacts[0].link and loaded.carried == model.carried
    # written again, the same text
    again = save_model(loaded, tmp_path / "again.toml")
    assert again.read_text().splitlines()[1:] == path.read_text().splitlines()[1:]


def history(model: Model, t_end: float, h: float, folder) -> dict:
    system = assemble(model)
    path = folder / "history.csv"
    simulate(system, (0.0, t_end), system.initial_state(), h=h, observers=[CsvObserver(path)])
    return read_history(path)


def test_the_catenary_read_from_its_file_runs_as_the_python_model(tmp_path):
    """One span released from the unstressed reference (it sags under its weight, the droppers
    go taut), 10 generalised-alpha steps of 1 ms. The file keeps every digit, so both runs are
    the same doubles through the same code in one process: the histories are identical, no
    tolerance (np.array_equal, NaN in the same rows)."""
    model = catenary(n_spans=1, max_element_length=2.0).model
    loaded = load_model(save_model(model, tmp_path / "m.toml")).model
    (tmp_path / "py").mkdir()
    (tmp_path / "file").mkdir()
    a = history(model, 1e-2, 1e-3, tmp_path / "py")
    b = history(loaded, 1e-2, 1e-3, tmp_path / "file")
    assert a["t"].size == 11 and list(a) == list(b)
    assert {"d0_normal_force", "kinetic_energy"} <= set(a)
    assert np.max(a["d0_normal_force"]) > 0.0  # the droppers pull: the run is not trivial
    for name, column in a.items():
        if column.dtype.kind == "f":
            assert np.array_equal(column, b[name], equal_nan=True), name
        else:
            assert list(column) == list(b[name]), name


def test_mistakes_in_droppers_and_spring_supports_carry_their_key_paths():
    doc = model_document(catenary(n_spans=2, max_element_length=2.0).model)
    doc["contacts"]["d0"]["stiffness"] = -1.0
    doc["contacts"]["d1"]["target"]["s"] = "far"
    doc["contacts"]["d2"]["profile"]["colour"] = "red"
    doc["supports"][0]["stiffness"] = -5.0
    doc["supports"][1]["direction"] = [0.0, 0.0]
    found = problems_of(doc)
    assert set(found) == {
        "contacts.d0.stiffness",
        "contacts.d1.target.s",
        "contacts.d2.profile.colour",
        "supports.0.stiffness",
        "supports.1.direction",
    }
    assert "(Dropper.stiffness)" in found["contacts.d0.stiffness"].message
    assert "(MaterialPoint.s)" in found["contacts.d1.target.s"].message
    assert "allowed keys: kind, structure, s" in found["contacts.d2.profile.colour"].message
    assert found["supports.0.stiffness"].value == -5.0
    assert "a nonzero vector" in found["supports.1.direction"].message
    # a cross-reference: a spring on a structure the model does not have
    doc = model_document(catenary(n_spans=2, max_element_length=2.0).model)
    doc["supports"][0]["structure"] = "feeder"
    (problem,) = problems_of(doc).values()
    assert problem.path == "supports.0.structure" and problem.value == "feeder"


def everything_string() -> StringSpec:
    s = np.linspace(0.0, 1.0, 3)
    nodal = NodalReference(np.vstack([s, 0.0 * s]), np.vstack([np.ones(3), np.zeros(3)]))
    return StringSpec(
        length=1.0,
        n_elements=2,
        density=0.3,
        law=NeoHookean(853.75),
        bending_stiffness=1e-3,
        reference=nodal,
        supports=(Support(0.0, "clamped", slope=(1.0, 0.0)), Support(1.0, position=(0.9, 0.1))),
        gravity=(0.0, -1.62),
        intorder=4,
        stiffness_damping=1e-4,
    )


def test_strings_round_trip_with_the_files_gravity(tmp_path):
    """Every StringSpec part: the tension law and reference tagged by ``type``, the supports;
    the string's gravity is the file's ``gravity`` (the model's)."""
    string = everything_string()
    straight = dataclasses.replace(
        string, law=LinearElastic(500.0), reference=StraightReference((0.0, 0.0), (0.6, 0.8))
    )
    model = Model(structures={"a": string, "b": straight}, gravity=(0.0, -1.62))
    loaded = load_model(save_model(model, tmp_path / "m.toml")).model
    back = loaded.structures["a"]
    # a NodalReference holds arrays and compares by identity: its arrays exactly, the rest ==
    assert dataclasses.replace(back, reference=None) == dataclasses.replace(string, reference=None)
    assert np.array_equal(back.reference.positions, string.reference.positions)
    assert np.array_equal(back.reference.slopes, string.reference.slopes)
    assert loaded.structures["b"] == straight
    table = model_document(model)["structures"]["a"]
    assert "gravity" not in table and table["law"] == {"type": "neo_hookean", "k": 853.75}


def test_every_mistake_of_a_structure_is_reported_at_once():
    """BeamSpec, StringSpec and their parts stop at their first error; the file reports every
    field's own check (``validation.rule``) at once, then the values together."""
    beam = BeamSpec(length=0.4, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015)
    rope = dataclasses.replace(everything_string(), gravity=(0.0, -9.81))
    doc = model_document(Model(structures={"beam": beam, "rope": rope}))
    b, r = doc["structures"]["beam"], doc["structures"]["rope"]
    b.update(length=0.0, youngs_modulus="steel", rayleigh_beta=-1.0, right="welded")
    b["origin"] = [0.0, 0.0, 1.0]
    r.update(density=0.0, intorder=0)
    r["law"] = {"type": "mooney", "k": 1.0}
    r["reference"]["positions"] = [[0.0, 1.0], [0.0]]
    r["supports"][1]["kind"] = "glued"
    found = problems_of(doc)
    assert set(found) == {
        "structures.beam.length",
        "structures.beam.youngs_modulus",
        "structures.beam.rayleigh_beta",
        "structures.beam.right",
        "structures.beam.origin",
        "structures.rope.density",
        "structures.rope.intorder",
        "structures.rope.law.type",
        "structures.rope.reference.positions",
        "structures.rope.supports.1.kind",
    }
    assert "(BeamSpec.length)" in found["structures.beam.length"].message
    assert "'neo_hookean' or 'linear_elastic'" in found["structures.rope.law.type"].message
    assert "'pinned', 'clamped'" in found["structures.rope.supports.1.kind"].message
    # with the fields right, the checks of the values together: a section needs both sizes
    doc = model_document(Model(structures={"beam": beam}))
    del doc["structures"]["beam"]["height"]
    (problem,) = problems_of(doc).values()
    assert problem.path == "structures.beam.width" and "both width and height" in problem.message
    doc["structures"]["beam"]["type"] = "rod"
    (problem,) = problems_of(doc).values()
    assert (problem.path, problem.value) == ("structures.beam.type", "rod")
    assert "'beam' or 'string'" in problem.message


def test_a_drive_in_a_file_gives_what_its_factory_requires():
    """``q0`` is required (Drive.constant_velocity and Drive.reversing require it); without a
    ``kind`` a drive is constant_velocity; the factory checks the values, at their keys."""
    tree = TreeModel(bodies=(Body(1.0, 0.01, (0.2, 0.0)),), joints=(Joint("revolute"),))
    model = Model(tree=tree, drives=(Drive.constant_velocity(0, 0.1, 0.2),))
    doc = model_document(model)
    assert doc["drives"] == [{"kind": "constant_velocity", "joint": 0, "q0": 0.1, "rate": 0.2}]
    del doc["drives"][0]["kind"]
    assert parse_document(doc).model == model
    del doc["drives"][0]["q0"]
    (problem,) = problems_of(doc).values()
    assert (problem.path, problem.value) == ("drives.0.q0", MISSING)
    assert problem.message == "missing; this key is required"
    doc["drives"] = [
        {"kind": "reversing", "joint": 0, "q0": 0.0, "rate": 0.2, "t_reverse": 0.5, "ramp": -1.0},
        {"kind": "sinusoidal", "joint": 0},
        {"joint": 0, "q0": 0.0, "rate": 0.2, "colour": "red"},
    ]
    found = problems_of(doc)
    assert set(found) == {"drives.0.ramp", "drives.1.kind", "drives.2.colour"}
    assert "(Drive.reversing.ramp)" in found["drives.0.ramp"].message
    assert "'constant_velocity' or 'reversing'" in found["drives.1.kind"].message
    assert found["drives.2.colour"].message.endswith("kind, joint, q0, rate")


def test_carried_bodies_are_written():
    """``model_tables`` (the one path from a Model to a file) writes ``Model.carried``: a
    model whose only parts are a beam and its clamp reads back with the clamp."""
    beam = BeamSpec(length=2.0, youngs_modulus=1.0, density=1.0, area=1.0, second_moment=1.0)
    model = Model(structures={"w": beam}, carried=(CarriedBody("clamp", "w", 1.5, 0.2),))
    doc = model_document(model)
    assert doc["carried"] == [
        {"name": "clamp", "structure": "w", "s": 1.5, "mass": 0.2, "inertia": 0.0}
    ]
    assert parse_document(doc).model == model


def test_a_required_key_whose_default_is_none_is_not_optional():
    """Stribeck's v0 and v_s default to None but the law refuses None: the key reference lists
    them as required (``validation.rule(required=True)``), Sliding's v0 stays optional."""
    from fe_contact.laws import FILE_LAWS

    keys = fields_of(Stribeck)
    assert keys["v_s"][1] is MISSING and keys["v0"][1] is MISSING and keys["mu_s"][1] is None
    (row,) = [r for r in key_reference(FILE_LAWS) if r.startswith("| `stribeck`")]
    assert "`v_s`," in row and "`v0`," in row and "`v_s` (optional)" not in row
    (row,) = [r for r in key_reference(FILE_LAWS) if r.startswith("| `sliding`")]
    assert "`v0` (optional)" in row
    with pytest.raises(ValueError, match="Stribeck.v_s"):
        Stribeck(mu=0.2, v0=1e-4)


def test_curves_compare_by_value():
    """Two curves built from the same kind, degree, clamping and control points are equal (and
    hash alike); any difference makes them unequal."""
    points = [(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (3.0, 1.0)]
    a, b = Curve.bspline(points, 2), Curve.bspline(np.array(points), 2)
    assert a == b and hash(a) == hash(b) and a is not b
    moved = [(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (3.0, 1.0 + 1e-15)]
    assert a != Curve.bspline(moved, 2)
    assert a != Curve.bspline(points, 3) and a != Curve.bspline(points, 2, clamped=False)
    assert a != Curve.bezier(points) and a != "curve"
