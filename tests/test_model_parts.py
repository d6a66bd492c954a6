"""Model-file tables derived from the dataclasses (``io.model_parts``): curved profiles (Bezier
and B-spline control points), compliant laws, carried bodies, rough polylines and wheels and
every drive kind are written and read back equal to the Python model; their mistakes are
reported at their key paths by the dataclasses' own checks; a model read from its file runs
to the same history as the Python model."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from fe_contact import (
    Body,
    Circle,
    ContactPair,
    Drive,
    Joint,
    Line,
    Model,
    ModelFileError,
    TreeModel,
    Unilateral,
    assemble,
    load_model,
    save_model,
)
from fe_contact.curves import Curve
from fe_contact.io.model_file import Simulation, model_document, parse_document
from fe_contact.laws import Compliant
from fe_contact.model import Profile
from fe_contact.multibody.drive import LinearMotion
from fe_contact.papers import bauchau
from fe_contact.papers import slavic_boltezar as sb
from fe_contact.steppers.observers import CsvObserver
from fe_contact.steppers.result import read_history
from fe_contact.steppers.simulate import simulate

EPS = np.finfo(float).eps


def differences(a, b, path="model") -> list[str]:
    """Field-by-field equality of what compares by identity (the rough profiles' Polyline and
    Wheel are eq=False: they hold arrays): dataclasses by their fields, arrays and numbers
    exactly (a float written with all its digits reads back as the same double); a Curve
    compares by value (``Curve.__eq__``)."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return [f"{path}: {type(a).__name__} != {type(b).__name__}"]
        return [
            d
            for f in dataclasses.fields(a)
            for d in differences(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
        ]
    if isinstance(a, dict):
        if list(a) != list(b):
            return [f"{path}: keys {list(a)} != {list(b)}"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}[{k!r}]")]
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        same = np.shape(a) == np.shape(b) and np.array_equal(a, b)
        return [] if same else [f"{path}: arrays differ"]
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        if len(a) != len(b):
            return [f"{path}: lengths {len(a)} != {len(b)}"]
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b and type(a) is type(b) else [f"{path}: {a!r} != {b!r}"]


def cam_lock(case: int) -> Model:
    """Bauchau's (000) cam lock (a Profile on the cam against a Profile on a CarriedBody of the
    beam, the case's Compliant or Unilateral law), its cam turned at a constant 2 rad/s: the
    paper's drive is a Python function of t, which a file cannot hold."""
    model = bauchau.cam_lock(case).model
    return dataclasses.replace(model, drives=(Drive.constant_velocity(0, 0.0, 2.0),))


def sled() -> Model:
    """A sled on a prismatic x-y carriage: a circle on a fixed uniform B-spline bump (a
    Profile fixed in the plane, no ``body`` key) and a clamped quadratic B-spline runner on a
    floor under a linear compliant law with damping, friction and rolling."""
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(2.0, 0.01, (0.0, 0.05))),
        joints=(Joint("prismatic"), Joint("prismatic", 0, angle=np.pi / 2)),
    )
    bump = Curve.bspline([(-1.0, 0.0), (-0.3, 0.0), (0.0, 0.1), (0.3, 0.0), (1.0, 0.0)], 3, False)
    runner = Curve.bspline([(-0.2, 0.02), (-0.1, 0.0), (0.1, 0.0), (0.2, 0.02)], 2)
    law = Compliant("linear", 1e6, damping=0.05, mu=0.3, mu_s=0.4, v0=1e-3, rolling=True)
    return Model(
        tree=tree,
        contacts=(
            ContactPair("wheel", Circle(1, 0.05, (0.1, 0.0)), Profile(None, bump), Unilateral(0.2)),
            ContactPair("runner", Profile(1, runner), Line((0.0, -0.1), (0.0, 1.0)), law),
        ),
    )


@pytest.mark.parametrize("case", sorted(bauchau.CASES))
def test_curved_profiles_carried_bodies_and_compliant_laws_round_trip(case, tmp_path):
    model = cam_lock(case)
    loaded = load_model(save_model(model, tmp_path / "m.toml")).model
    assert loaded == model  # the curves compare by value
    pair = loaded.contacts[0]
    assert pair.profile.body == 2 and pair.target.body == "body"  # a tree body, a carried one


def test_fixed_and_uniform_bspline_profiles_round_trip(tmp_path):
    model = sled()
    path = save_model(model, tmp_path / "m.toml")
    loaded = load_model(path).model
    assert loaded == model
    assert loaded.contacts[0].target.body is None and not loaded.contacts[0].target.curve.clamped
    assert loaded.contacts[1].law == model.contacts[1].law
    # written again, the same text
    again = save_model(loaded, tmp_path / "again.toml")
    assert again.read_text().splitlines()[1:] == path.read_text().splitlines()[1:]


def test_rough_polyline_on_a_wheel_round_trips(tmp_path):
    """Slavic-Boltezar's (003) pin on the wheel: the pin's rough face (a Polyline) and the
    wheel's rough rim (a Wheel), each RoughProfile's three (2, n) arrays exactly."""
    data = sb.PinOnWheel()
    model = sb.pin_model(data)
    simulation = Simulation(1e-5, "event-driven", h=1e-7, settings={"penetration": 1e-8})
    loaded = load_model(save_model(model, tmp_path / "m.toml", simulation=simulation))
    assert differences(model, loaded.model) == []
    assert loaded.simulation == simulation
    face = loaded.model.contacts[0].profile.profile
    assert face.points.shape == (2, model.contacts[0].profile.profile.n_points)


def test_every_drive_kind_round_trips_and_a_function_is_refused(tmp_path):
    """Drives: constant velocity, reversing (``Drive.reversing``); actuators: a constant and a
    LinearMotion. A drive of Python functions cannot be written: the error says which."""
    tree = TreeModel(
        bodies=(Body(1.0, 0.01, (0.2, 0.0)), Body(0.5, 0.0), Body(0.2, 0.001, (0.1, 0.0))),
        joints=(
            Joint("revolute"),
            Joint("prismatic", 0, (0.4, 0.0)),
            Joint("revolute", 1, actuator=LinearMotion(0.3, -0.1)),
        ),
    )
    drives = (Drive.constant_velocity(0, 0.1, 0.2), Drive.reversing(1, 0.05, -0.3, 0.4, 0.05))
    model = Model(tree=tree, drives=drives)
    loaded = load_model(save_model(model, tmp_path / "m.toml")).model
    assert loaded == model
    kinds = [d["kind"] for d in model_document(model)["drives"]]
    assert kinds == ["constant_velocity", "reversing"]
    swing = Drive(0, np.sin, np.cos, lambda t: -np.sin(t))
    with pytest.raises(ValueError, match="drive on joint 0: only constant-velocity and reversing"):
        save_model(dataclasses.replace(model, drives=(swing,)), tmp_path / "x.toml")


def test_mistakes_in_the_new_tables_carry_their_key_paths():
    doc = model_document(cam_lock(1))
    doc["contacts"]["cam"]["profile"]["curve"]["kind"] = "nurbs"
    doc["contacts"]["cam"]["target"]["body"] = "bodyy"
    doc["contacts"]["cam"]["target"]["colour"] = "red"
    doc["contacts"]["cam"]["stiffness"] = -1.0
    doc["carried"][0]["structure"] = "bean"
    doc["carried"][1]["mass"] = -4.0
    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    found = {p.path: p for p in info.value.problems}
    # cross-references (carried.0.structure "bean", the target's carried body "bodyy") are
    # checked once every table is well-formed, the carried bodies before the contacts
    assert set(found) == {
        "contacts.cam.profile.curve.kind",
        "contacts.cam.target.colour",
        "contacts.cam.stiffness",
        "carried.1.mass",
    }
    assert "allowed: 'bezier' or 'bspline'" in found["contacts.cam.profile.curve.kind"].message
    assert (
        "unknown key; allowed keys: kind, body, curve"
        in found["contacts.cam.target.colour"].message
    )
    assert "Compliant.stiffness" in found["contacts.cam.stiffness"].message
    assert found["carried.1.mass"].value == -4.0
    doc = model_document(cam_lock(1))
    doc["carried"][0]["structure"] = "bean"
    doc["contacts"]["cam"]["target"]["body"] = "bodyy"
    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    (problem,) = info.value.problems
    assert problem.path == "carried.0.structure" and problem.value == "bean"
    doc["carried"][0]["structure"] = "beam"
    doc["contacts"]["cam"]["profile"]["curve"]["control_points"] = [[0.0, 0.0]]
    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    found = {p.path: p for p in info.value.problems}
    assert set(found) == {"contacts.cam.profile.curve.control_points"}
    doc["contacts"]["cam"]["profile"]["curve"]["control_points"] = [[0.0, 0.0], [0.1, 0.0]]
    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    (problem,) = info.value.problems
    assert problem.path == "contacts.cam.target.body" and problem.value == "bodyy"
    assert "CarriedBody" in problem.message


def test_a_profile_table_refuses_the_flattened_keys():
    doc = model_document(sled())
    doc["contacts"]["runner"]["body"] = 1
    doc["contacts"]["wheel"]["profile"] = "square"
    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    found = {p.path: p for p in info.value.problems}
    assert set(found) == {"contacts.runner.body", "contacts.wheel.profile"}
    assert "allowed: as contacts.runner.profile.body" in found["contacts.runner.body"].message
    assert "'point', 'circle' or a table with a kind" in found["contacts.wheel.profile"].message


def history(model: Model, q0, u0, t_end: float, h: float, method: str, folder) -> dict:
    system = assemble(model)
    path = folder / "history.csv"
    simulate(system, (0.0, t_end), (q0, u0), method=method, h=h, observers=[CsvObserver(path)])
    return read_history(path)


def same_history(a: dict, b: dict) -> None:
    """Every column equal to round-off: the two runs take the same code path on the same
    doubles (the file keeps every digit), so they differ at most where a threaded BLAS sums
    in another order: 16 eps of the column's largest magnitude bounds that."""
    assert list(a) == list(b)
    for name, column in a.items():
        if column.dtype.kind != "f":
            assert list(column) == list(b[name]), name
            continue
        other = b[name]
        # NaN marks what a row does not have (the slip of an open contact): the same rows
        assert np.array_equal(np.isnan(column), np.isnan(other)), name
        column, other = column[~np.isnan(column)], other[~np.isnan(other)]
        scale = float(np.max(np.abs(column), initial=0.0))
        assert np.max(np.abs(column - other), initial=0.0) <= 16 * EPS * scale, name


def test_a_cam_lock_read_from_its_file_runs_as_the_python_model(tmp_path):
    """Profiles, a carried body and Hertz's compliant law with friction (case 1), 20 steps."""
    model = cam_lock(1)
    loaded = load_model(save_model(model, tmp_path / "m.toml")).model
    q0, u0 = assemble(model).initial_state()
    (tmp_path / "py").mkdir()
    (tmp_path / "file").mkdir()
    a = history(model, q0, u0, 2e-3, 1e-4, "generalized-alpha", tmp_path / "py")
    b = history(loaded, q0, u0, 2e-3, 1e-4, "generalized-alpha", tmp_path / "file")
    assert a["t"].size == 21
    same_history(a, b)


def test_a_pin_on_a_wheel_read_from_its_file_runs_as_the_python_model(tmp_path):
    """A rough Polyline on a Wheel (Poisson's impacts, event-driven), 30 steps of 0.1 us."""
    model = sb.pin_model(sb.PinOnWheel())
    loaded = load_model(save_model(model, tmp_path / "m.toml")).model
    q0, u0 = np.zeros(2), np.zeros(2)
    (tmp_path / "py").mkdir()
    (tmp_path / "file").mkdir()
    a = history(model, q0, u0, 3e-6, 1e-7, "event-driven", tmp_path / "py")
    b = history(loaded, q0, u0, 3e-6, 1e-7, "event-driven", tmp_path / "file")
    assert a["t"].size > 10
    same_history(a, b)


PAGE = Path(__file__).resolve().parents[1] / "docs" / "details" / "model_files.md"


def test_the_pages_key_tables_are_the_dataclasses():
    """The model-file page lists each tagged union's keys as ``key_reference`` derives them
    from the dataclasses: a new field (or a changed default) shows as a stale row here."""
    from fe_contact.io.model_parts import (
        DRIVES,
        PARTS,
        SENSORS,
        SIDES,
        STRUCTURES,
        key_reference,
    )
    from fe_contact.laws import FILE_LAWS

    text = PAGE.read_text()
    # the library's laws (a test may register its own)
    laws = {k: c for k, c in FILE_LAWS.items() if c.__module__.startswith("fe_contact.")}
    for kinds in (STRUCTURES, SIDES, laws, PARTS, DRIVES, SENSORS):
        for row in key_reference(kinds):
            assert row in text, row


def test_the_pages_cam_lock_tables_are_the_papers_model():
    """The page's TOML of the cam lock's carried body and contact (case 1) builds the paper's
    objects: the same CarriedBody and law, the same control points."""
    import re

    import tomllib

    text = re.findall(r"```toml\n(.*?)```", PAGE.read_text(), re.S)[1]
    doc = model_document(cam_lock(1))
    doc["carried"] = tomllib.loads(text)["carried"] + doc["carried"][:1]
    doc["contacts"] = tomllib.loads(text)["contacts"]
    page = parse_document(doc, "page").model
    model = cam_lock(1)
    assert page.carried == (model.carried[1], model.carried[0])
    assert page.contacts == model.contacts


def test_bodies_and_joints_are_checked_by_their_dataclasses():
    """A tree's bodies and joints are Body and Joint tables (an actuator table is a
    LinearMotion): their values are checked by those classes, at their key paths."""
    tree = TreeModel(
        bodies=(Body(1.0, 0.01, (0.2, 0.0)), Body(0.5, 0.0)),
        joints=(Joint("revolute", actuator=LinearMotion(0.3, -0.1)), Joint("prismatic", 0)),
    )
    doc = model_document(Model(tree=tree))
    bodies = doc["tree"]["bodies"]
    bodies[0]["joint"]["actuator"]["rate"] = "fast"
    bodies[0]["colour"] = "red"
    bodies[1]["inertia"] = -1.0
    bodies[1]["joint"]["kind"] = "spherical"
    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    found = {p.path: p for p in info.value.problems}
    assert set(found) == {
        "tree.bodies.0.joint.actuator.rate",
        "tree.bodies.0.colour",
        "tree.bodies.1.inertia",
        "tree.bodies.1.joint.kind",
    }
    assert "(LinearMotion.rate)" in found["tree.bodies.0.joint.actuator.rate"].message
    assert found["tree.bodies.0.colour"].message.endswith("centre_of_mass, joint")
    assert "(Body.inertia)" in found["tree.bodies.1.inertia"].message
    assert "'revolute'" in found["tree.bodies.1.joint.kind"].message
