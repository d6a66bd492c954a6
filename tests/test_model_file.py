"""Model files (fe_contact.io.model_file): every demo's model and every example file
round-trips exactly; mistakes are all reported with their key paths; unknown keys are errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

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
    ModelFileError,
    Point,
    PointLoad,
    StringSpec,
    Support,
    TreeModel,
    Unilateral,
    floating_body,
    load_model,
    save_model,
)
from fe_contact.elements.string import NodalReference
from fe_contact.io.model_file import (
    InitialState,
    Output,
    Simulation,
    apply_override,
    parse_value,
    read_document,
)
from fe_contact.multibody.drive import LinearMotion
from fe_contact.papers import eugster_glocker as eg
from fe_contact.papers.lipinski import Manipulator, manipulator_model, sliding_mass_model
from fe_contact.papers.slider_on_string import slider_on_string

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def same(a, b, path="model", rtol=0.0):
    """Field-by-field equality of frozen descriptions; returns the list of differing paths.
    Numbers compare exactly, or, with ``rtol`` > 0, float arrays to within rtol times the
    largest magnitude in the pair."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return [f"{path}: {type(a).__name__} != {type(b).__name__}"]
        out = []
        for f in dataclasses.fields(a):
            if f.compare:
                out += same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", rtol)
        return out
    if isinstance(a, dict) or hasattr(a, "items") and not isinstance(a, np.ndarray):
        if list(a) != list(b):
            return [f"{path}: keys {list(a)} != {list(b)}"]
        return [d for k in a for d in same(a[k], b[k], f"{path}[{k!r}]", rtol)]
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if np.shape(a) != np.shape(b):
            return [f"{path}: shapes {np.shape(a)} != {np.shape(b)}"]
        a, b = np.asarray(a), np.asarray(b)
        if rtol > 0.0 and a.dtype.kind == "f" and a.size:
            scale = max(np.max(np.abs(a)), np.max(np.abs(b)))
            ok = np.max(np.abs(a - b)) <= rtol * scale
        else:
            ok = np.array_equal(a, b)
        return [] if ok else [f"{path}: arrays differ"]
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        numbers = a and all(type(x) is float for x in (*a, *b))
        if rtol > 0.0 and numbers and len(a) == len(b):
            return same(np.array(a), np.array(b), path, rtol)
        if len(a) != len(b):
            return [f"{path}: lengths {len(a)} != {len(b)}"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in same(x, y, f"{path}[{i}]", rtol)
        ]
    return [] if a == b and type(a) is type(b) else [f"{path}: {a!r} != {b!r}"]


def disk_on_string_model(example: int = 2) -> Model:
    """The model of 004's example: a disk with a grid of candidate points on the string."""
    radius, mass, inertia = eg.disk_of_example(example)
    law = Unilateral(eg.FRICTION)
    n_candidates = eg.DISKS[example][2]
    return Model(
        tree=floating_body(mass, inertia),
        structures={"string": eg.table1_string(2)},
        contacts=(ContactPair("disk", Circle(2, radius), "string", law, -1, "grid", n_candidates),),
    )


def everything_model() -> Model:
    """Every kind of table: named points, actuators, loops, loads, a nodal reference, a rigid
    line, a circle, an explicit beam mesh and section."""
    s = np.linspace(0.0, 0.5, 3)
    nodal = NodalReference(np.vstack([s, 0.1 * s]), np.vstack([np.ones(3), 0.1 * np.ones(3)]))
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.0, 0.0), Body(0.3, 1e-3, (0.01, 0.0)), Body(0.1, 2e-4)),
        joints=(
            Joint("prismatic", actuator=0.25),
            Joint("prismatic", 0, angle=np.pi / 2),
            Joint("revolute", 1, angle=-np.pi / 2, damping=0.01, actuator=LinearMotion(0.1, -0.3)),
            Joint("revolute", 2, (0.05, 0.0), stiffness=3.0, rest=1 / 3),
        ),
        points={"rim": (2, (0.1, 0.0)), "tip": (3, (0.2, 0.0))},
    )
    beam = BeamSpec(
        length=0.4,
        youngs_modulus=2.1e11,
        density=4.7e3,
        area=1.5e-5,
        second_moment=2.8125e-12,
        node_x=(0.0, 0.1, 0.25, 0.4),
        left="pinned",
        right="pinned",
        rayleigh_alpha=0.1 + 0.2,
        rayleigh_beta=1e-5,
        origin=(-0.1, 0.2),
        angle=0.05,
    )
    string = StringSpec(
        length=float(np.hypot(0.5, 0.05)),
        n_elements=2,
        density=0.3,
        law=LinearElastic(500.0),
        bending_stiffness=1e-3,
        reference=nodal,
        supports=(Support(0.0, "clamped", slope=(1.0, 0.1)), Support(0.5, "fixed_y")),
    )
    return Model(
        tree=tree,
        structures={"beam": beam, "rope": string},
        contacts=(
            ContactPair("wheel", Circle(2, 0.1, (0.0, 0.01)), "beam", Unilateral(0.3, 0.5, 0.1)),
            ContactPair("floor", Point(3, "tip"), Line((0.0, -1.0), (0.1, 1.0)), Unilateral(0.2)),
        ),
        drives=(Drive.constant_velocity(3, 0.1, -0.5),),
        loops=(LoopClosure(2, "rim", None, (0.3, 0.4), name="hold"),),
        loads=(PointLoad("rope", 0.25, (0.0, -1.5)), PointLoad("beam", 0.4, (0.2, 0.0))),
    )


DEMO_MODELS = {
    "manipulator": lambda: manipulator_model(mu=0.2),
    "manipulator_prismatic": lambda: manipulator_model(Manipulator(joint3="prismatic"), 0.1),
    "sliding_mass": lambda: sliding_mass_model(0.1),
    "slider_on_string": lambda: slider_on_string().model,
    "disk_on_beam": lambda: eg.disk_on_beam().model,
    "disk_on_string": disk_on_string_model,
    "beam_only": lambda: Model(structures={"beam": manipulator_model().structures["beam"]}),
    "everything": everything_model,
}


@pytest.mark.parametrize("name", list(DEMO_MODELS))
def test_every_demo_model_round_trips(name, tmp_path):
    model = DEMO_MODELS[name]()
    simulation = Simulation(0.25, "moreau", h=1e-3, settings={"theta": 0.55})
    output = Output(0.02, ("final:kinetic_energy", "max:energy_error"), "max:energy_error")
    path = save_model(model, tmp_path / "model.toml", simulation=simulation, output=output)
    loaded = load_model(path)
    assert same(model, loaded.model) == []
    assert loaded.simulation == simulation and loaded.output == output
    if name != "everything":  # a NodalReference compares by identity, hence `same` above
        assert loaded.model == model
    # written again, the file is the same text
    again = save_model(loaded, tmp_path / "again.toml")
    assert again.read_text().splitlines()[1:] == path.read_text().splitlines()[1:]


def test_floats_and_initial_state_are_exact(tmp_path):
    model = sliding_mass_model(0.1 + 0.2)
    from fe_contact import assemble

    system = assemble(model)
    rng = np.random.default_rng(1)
    q0, u0 = rng.standard_normal(system.layout.n) / 3.0, rng.standard_normal(system.layout.n)
    initial = InitialState.from_state(system, q0, u0)
    path = save_model(model, tmp_path / "m.toml", initial=initial)
    loaded = load_model(path)
    assert loaded.model.contacts[0].law.mu == 0.1 + 0.2
    q1, u1 = loaded.initial.state(system)
    assert np.array_equal(q1, q0) and np.array_equal(u1, u0)


BAD = """
gravity = [0.0, -9.81]
colour = "red"
[structures.beam]
type = "beam"
length = -0.4
youngs_modulus = 2.1e11
density = "heavy"
width = 0.01
height = 0.0015
left = "glued"
n_elemnts = 3
[[tree.bodies]]
mass = 0.0
inertia = 0.0
joint = { kind = "prismatic", stifness = 2.0 }
[[tree.bodies]]
mass = 0.02
inertia = 0.0
joint = { kind = "prismatic", parent = 1, angle = 1.57 }
[contacts.tip]
body = 1
at = 5
target = "beam"
mu = -0.3
[simulation]
method = "moreau"
t_end = 0.1
rho_inf = 0.9
[output]
results = ["maximum:tip_normal_force"]
"""


def test_several_mistakes_are_reported_together(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BAD)
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    found = {p.path: p for p in info.value.problems}
    assert set(found) == {
        "colour",
        "structures.beam.length",
        "structures.beam.density",
        "structures.beam.left",
        "structures.beam.n_elemnts",
        "tree.bodies.0.joint.stifness",
        "tree.bodies.1.joint.parent",
        "contacts.tip.at",
        "contacts.tip.mu",
        "simulation.rho_inf",
        "output.results.0",
    }
    assert found["contacts.tip.mu"].value == -0.3
    assert found["contacts.tip.mu"].message == "allowed: a friction coefficient >= 0 (Sliding.mu)"
    assert "'clamped', 'pinned', 'free'" in found["structures.beam.left"].message
    assert "unknown key" in found["simulation.rho_inf"].message
    assert "theta" in found["simulation.rho_inf"].message  # what is allowed for moreau
    assert "unknown key" in found["tree.bodies.0.joint.stifness"].message
    text = str(info.value)
    assert text.startswith(f"{path}: 11 problems")
    assert "contacts.tip.mu = -0.3" in text


def test_library_errors_carry_their_key_path(tmp_path):
    doc = read_document(EXAMPLES / "sliding_mass.toml")
    del doc["structures"]["beam"]["height"]  # BeamSpec: "needs both width and height"
    doc["contacts"]["mass"]["target"] = "bean"  # Model: no such structure
    doc["loads"] = [{"structure": "beam", "s": 0.5, "force": [0.0, -1.0]}]  # beyond the beam
    from fe_contact.io.model_file import parse_document

    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    paths = [p.path for p in info.value.problems]
    assert paths == ["structures.beam.width"]  # the other parts need the beam
    doc["structures"]["beam"]["height"] = 0.0015
    with pytest.raises(ModelFileError) as info:
        parse_document(doc, "m.toml")
    paths = {p.path: p for p in info.value.problems}
    assert set(paths) == {"contacts.mass.target", "loads.0.s"}
    assert paths["contacts.mass.target"].value == "bean"
    assert "allowed: one of 'beam'" in paths["contacts.mass.target"].message
    assert "[0, 0.4] in m" in paths["loads.0.s"].message


def test_unknown_keys_are_errors_everywhere(tmp_path):
    for key_path in (
        "structures.beam.colour",
        "tree.bodies.1.joint.springiness",
        "contacts.mass.friction",
        "initial.tree_x",
        "simulation.theta",  # a Moreau setting in a generalised-alpha run
        "output.colour",
        "nonsense",
    ):
        doc = read_document(EXAMPLES / "sliding_mass.toml")
        apply_override(doc, key_path, 1.0)
        from fe_contact.io.model_file import parse_document

        with pytest.raises(ModelFileError) as info:
            parse_document(doc, "m.toml")
        assert [p.path for p in info.value.problems] == [key_path]
        assert "unknown key" in info.value.problems[0].message


def test_overrides_parse_toml_values():
    assert parse_value("0.2") == 0.2 and parse_value("3") == 3 and parse_value("true") is True
    assert parse_value("[1.0, 2]") == [1.0, 2] and parse_value("unilateral") == "unilateral"
    doc = {"a": {"b": [{"c": 1}]}}
    apply_override(doc, "a.b.0.c", 2)
    apply_override(doc, "a.d.e", "x")
    assert doc == {"a": {"b": [{"c": 2}], "d": {"e": "x"}}}
    with pytest.raises(ValueError, match="allowed: an index 0..0"):
        apply_override(doc, "a.b.3.c", 1)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_example_files_load_and_round_trip(path, tmp_path):
    loaded = load_model(path)
    assert loaded.simulation is not None and loaded.simulation.t_end > 0.0
    again = load_model(save_model(loaded, tmp_path / path.name))
    assert same(loaded, again, "file") == []


def test_example_files_are_the_demos_models():
    from fe_contact.demos import disk_on_beam, slider_on_string, sliding_mass

    for name, module in (
        ("sliding_mass", sliding_mass),
        ("slider_on_string", slider_on_string),
        ("disk_on_beam", disk_on_beam),
    ):
        loaded = load_model(EXAMPLES / f"{name}.toml")
        built = module.model_file()
        assert same(built.model, loaded.model) == [], name
        # The demos compute their initial states (a static solve of the beam or string, through
        # LAPACK); the files hold the values printed on one machine, and another BLAS kernel
        # rounds the solve differently in the last bits (1e-16 seen on 0.1). The static solves'
        # forward error is bounded by eps cond(K), about 7e-10 for the 10-element beam (cond
        # 3e6): 1e-9 of the state's scale admits that and nothing an edit of a model could do.
        assert same(built.initial, loaded.initial, rtol=1e-9) == [], name
        assert built.simulation == loaded.simulation, name


def test_the_readme_model_file_is_the_readme_python_model():
    import re

    import tomllib

    from fe_contact import Sliding, assemble
    from fe_contact.io.model_file import parse_document
    from fe_contact.runner import prepare

    page = Path(__file__).resolve().parents[1] / "docs" / "details" / "model_files.md"
    text = re.search(r"```toml\n(.*?)```", page.read_text(), re.S).group(1)
    loaded = prepare(parse_document(tomllib.loads(text), "README"))
    # the Getting started's examples/slider.toml is the model file of the model-files page
    assert tomllib.loads((EXAMPLES / "slider.toml").read_text()) == tomllib.loads(text)
    beam = BeamSpec(
        length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
    )
    cart = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.02, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )
    model = Model(
        tree=cart,
        structures={"strip": beam},
        contacts=(ContactPair("slider", Point(body=1), "strip", Sliding(mu=0.2)),),
        structure_gravity=False,
    )
    assert loaded.model_file.model == model
    q0, u0 = assemble(model).initial_state(q_tree=[0.1, 0.0], u_tree=[0.5, 0.0])
    assert np.array_equal(loaded.q0, q0) and np.array_equal(loaded.u0, u0)
    assert loaded.model_file.simulation == Simulation(0.2, h=1e-4)


def test_reversing_drive_round_trips_and_its_motion_is_consistent(tmp_path):
    """Drive.reversing: position, velocity and acceleration are consistent derivatives (the
    velocity integrates to the position, to quadrature accuracy; the acceleration is the
    velocity's slope), the rate turns from +rate to -rate over the ramp, and a model with it is
    written to and read back from a model file exactly."""
    from scipy.integrate import quad

    from fe_contact.multibody.drive import Drive
    from fe_contact.papers import lipinski

    drive = Drive.reversing(1, 0.3, -0.2, 0.3, 0.02)
    for t in (0.1, 0.295, 0.3, 0.305, 0.5):
        travel = quad(drive.velocity, 0.0, t, points=[0.29, 0.31], epsabs=1e-14)[0]
        assert drive.position(t) == pytest.approx(0.3 + travel, abs=1e-13)
        slope = (drive.velocity(t + 1e-7) - drive.velocity(t - 1e-7)) / 2e-7
        assert drive.acceleration(t) == pytest.approx(slope, abs=1e-5)
    assert drive.velocity(0.28) == -0.2 and drive.velocity(0.32) == 0.2
    data = lipinski.Manipulator(drive_reversal=0.3)
    model = lipinski.manipulator(data, 0.2).model
    from fe_contact.io.model_file import load_model, save_model

    assert load_model(save_model(model, tmp_path / "m.toml")).model == model
