"""Sensors and the joint columns of a history, against direct evaluations of the stored state.

Every sensor column of a run is compared, at several stored times, with the quantity computed
here from the stored q and u by another route: the tree's point kinematics in closed form for
the two-joint arm below, scikit-fem's probes and ``elements.beam.beam_fields`` for the beam, the
string's ``string_points_at`` with a central difference in s for its stretch; velocities also against
central differences in time of the stored positions. Each stepper is run: generalised-alpha on
its compiled path (quiet steps in one compiled call), generalised-alpha in Python and
Moreau-Jean.
"""

import numpy as np
import pytest

from fe_contact import (
    BeamSpec,
    Body,
    BodyPointSensor,
    BodySensor,
    Joint,
    LinearElastic,
    Model,
    StringSpec,
    StructureSensor,
    Support,
    TreeModel,
    assemble,
    simulate,
)
from fe_contact.elements.beam import beam_fields as evaluate_beam
from fe_contact.elements.string_points import string_points_at as evaluate_string
from fe_contact.multibody.drive import Drive
from fe_contact.steppers.result import history_columns

EPS = np.finfo(float).eps
BASE = np.array([0.0, 0.3])  # m, the arm's joint on the ground
ARM = 0.1  # m, the slider's joint on the arm at q_1 = 0
TIP = np.array([0.05, 0.02])  # m, the sensed point on the slider's body
EI = 2.1e11 * 0.01 * 0.0015**3 / 12.0  # N m^2, the strip of the manipulator example
H = 1e-4  # s


def arm_tree(name_first=True) -> TreeModel:
    """Body 0 turns about BASE (revolute joint "shoulder"); body 1 slides along body 0's x
    axis from (ARM, 0) on a spring (prismatic joint, unnamed: joint_1)."""
    return TreeModel(
        bodies=(
            Body(mass=1.0, inertia=0.01, centre_of_mass=(0.1, 0.0)),
            Body(mass=0.5, inertia=0.005),
        ),
        joints=(
            Joint("revolute", None, tuple(BASE), name="shoulder" if name_first else None),
            Joint("prismatic", 0, (ARM, 0.0), stiffness=50.0),
        ),
    )


SENSORS = (
    BodyPointSensor("end", 1, tuple(TIP)),
    BodyPointSensor("end_velocity", 1, tuple(TIP), "velocity"),
    BodySensor("arm", 0, "angle"),
    BodySensor("spin", 1, "angular_velocity"),
    StructureSensor("tip", "beam", 0.4, "deflection"),
    StructureSensor("mid", "beam", 0.13, "position"),
    StructureSensor("mid_shift", "beam", 0.13, "displacement"),
    StructureSensor("mid_slope", "beam", 0.13, "slope"),
    StructureSensor("mid_curvature", "beam", 0.13, "curvature"),
    StructureSensor("root_moment", "beam", 0.0, "moment"),
    StructureSensor("mid_velocity", "beam", 0.13, "velocity"),
)


def arm_model(sensors=SENSORS) -> Model:
    beam = BeamSpec(
        length=0.4, youngs_modulus=2.1e11, density=4.7e3, n_elements=4, width=0.01, height=0.0015
    )
    # the slider is driven out at 0.3 m/s (a drive: a constraint row, which the compiled
    # stepper needs); the arm swings freely
    drive = Drive.constant_velocity(1, 0.02, 0.3)
    return Model(tree=arm_tree(), structures={"beam": beam}, drives=(drive,), sensors=sensors)


@pytest.fixture(scope="module")
def arm_system():
    return assemble(arm_model())


def arm_start(system):
    # the arm released at 0.5 rad with the slider moving out; the beam straight at rest
    # (it swings under its weight)
    return system.initial_state(q_tree=[0.5, 0.02], u_tree=[0.0, 0.3])


RUNS = {
    "compiled": dict(method="generalized-alpha"),
    "python": dict(method="generalized-alpha", compiled=False),
    "moreau": dict(method="moreau"),
}


@pytest.fixture(scope="module", params=list(RUNS))
def arm_run(request, arm_system):
    result = simulate(arm_system, (0.0, 0.01), arm_start(arm_system), h=H, **RUNS[request.param])
    assert result.success, result.message
    return request.param, result


def rotation(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def arm_point(q):
    """The sensed point in closed form: o1 = BASE + R(q0) (ARM + q1, 0), p = o1 + R(q0) TIP."""
    return BASE + rotation(q[0]) @ (np.array([ARM + q[1], 0.0]) + TIP)


def arm_velocity(q, u):
    """d/dt of arm_point: q0' e_z x (p - BASE) + q1' R(q0) (1, 0)."""
    arm = arm_point(q) - BASE
    return u[0] * np.array([-arm[1], arm[0]]) + u[1] * rotation(q[0])[:, 0]


ROWS = (0, 17, 50, 83, -1)


def test_joint_columns_are_named_by_joint_with_units_by_kind(arm_system):
    units = dict(history_columns(arm_system))
    assert units["shoulder_q"] == "rad" and units["shoulder_u"] == "rad/s"
    assert units["joint_1_q"] == "m" and units["joint_1_u"] == "m/s"
    unnamed = dict(history_columns(assemble(Model(tree=arm_tree(name_first=False)))))
    assert unnamed["joint_0_q"] == "rad" and "shoulder_q" not in unnamed


def test_sensor_units(arm_system):
    units = dict(history_columns(arm_system))
    expected = {
        "end_x": "m",
        "end_velocity_vy": "m/s",
        "arm": "rad",
        "spin": "rad/s",
        "tip": "m",
        "mid_x": "m",
        "mid_shift_y": "m",
        "mid_slope": "rad",
        "mid_curvature": "1/m",
        "root_moment": "N m",
        "mid_velocity_vy": "m/s",
    }
    assert {k: units[k] for k in expected} == expected


def test_joint_columns_are_the_stored_coordinates(arm_run):
    _, result = arm_run
    # copies of the stored floats: equal bit for bit
    assert np.array_equal(result["shoulder_q"], result.q[:, 0])
    assert np.array_equal(result["joint_1_u"], result.u[:, 1])


def test_tree_sensors_match_the_closed_form(arm_run, measured):
    name, result = arm_run
    assert len(result.t) == 101
    for k in ROWS:
        q, u = result.q[k], result.u[k]
        # a few rotations and sums of numbers <= 0.5 m: round-off, 1e3 eps m for slack
        point = np.array([result["end_x"][k], result["end_y"][k]])
        measured.close(
            f"end point ({name}, row {k})",
            point,
            arm_point(q),
            rtol=0.0,
            atol=1e3 * EPS,
            unit="m",
            reference="the arm's closed-form kinematics",
        )
        velocity = [result["end_velocity_vx"][k], result["end_velocity_vy"][k]]
        measured.close(
            f"end point velocity ({name}, row {k})",
            velocity,
            arm_velocity(q, u),
            rtol=0.0,
            atol=1e3 * EPS,
            unit="m/s",
            reference="the arm's closed-form kinematics",
        )
        # body 0's angle is its revolute coordinate; body 1 slides on it: the same rotation
        measured(
            f"body angle ({name}, row {k})",
            abs(result["arm"][k] - q[0]),
            4.0 * EPS,
            unit="rad",
            reference="the revolute coordinate",
        )
        measured(
            f"body angular velocity ({name}, row {k})",
            abs(result["spin"][k] - u[0]),
            4.0 * EPS,
            unit="rad/s",
            reference="the revolute speed",
        )


def test_velocity_sensors_match_finite_differences_in_time(arm_run, measured):
    """The central difference of the stored positions over 2 h against the velocity sensor:
    the same motion to O((h omega)^2 / 6) relative for a motion of frequency omega. The arm
    (omega ~ 10 rad/s): 1e-6 m/s of ~0.3 m/s (measured 5e-8). The beam at s = 0.13 m carries
    its modes up to ~1e3 rad/s after the release, (1e-4 * 1e3)^2 / 6 ~ 2e-3 relative
    (measured 2e-3 of 0.025 m/s): 1e-2 of its largest speed."""
    name, result = arm_run
    t = result["t"]
    for column, velocity, tol in (
        ("end_x", "end_velocity_vx", 1e-6),
        ("mid_y", "mid_velocity_vy", 1e-2 * np.max(np.abs(result["mid_velocity_vy"]))),
    ):
        x = result[column]
        difference = (x[2:] - x[:-2]) / (t[2:] - t[:-2])
        error = np.max(np.abs(difference - result[velocity][1:-1]))
        measured(
            f"{velocity} ({name})",
            error,
            tol,
            unit="m/s",
            reference=f"central difference of {column} over 2 h",
        )


def test_beam_sensors_match_scikit_fem(arm_run, arm_system, measured):
    name, result = arm_run
    errors = {}  # quantity -> (error, tolerance, unit) per row, asserted after the rows

    def check(quantity, error, tolerance, unit):
        errors.setdefault(quantity, []).append((error, tolerance, unit))

    structure = arm_system.structures["beam"]
    beam = structure.beam
    part = arm_system.layout.structure("beam")
    for k in ROWS:
        w_full = structure.full(result.q[k, part])
        v_full = structure.full(result.u[k, part])
        tip = float((beam.basis.probes(np.array([[0.4]])) @ w_full)[0])
        mid = evaluate_beam(beam, w_full, [0.13])
        root = evaluate_beam(beam, w_full, [0.0])
        velocity = float(evaluate_beam(beam, v_full, [0.13]).deflection[0])
        w, slope, curvature = mid.deflection[0], mid.slope[0], mid.curvature[0]
        # deflections ~1e-3 m from sums of four shape-function terms: 1e3 eps of 1e-2 m
        atol = 1e3 * EPS * 1e-2
        check("tip deflection against the basis probe", abs(result["tip"][k] - tip), atol, "m")
        check("material point x", abs(result["mid_x"][k] - 0.13), 4 * EPS * 0.13, "m")
        check("deflection at 0.13 m", abs(result["mid_y"][k] - w), atol, "m")
        check("displacement x", abs(result["mid_shift_x"][k]), 4 * EPS * 0.13, "m")
        check("displacement y", abs(result["mid_shift_y"][k] - w), atol, "m")
        # slope and curvature ~1e-2 rad and ~1e-1 1/m, from the same four terms
        check(
            "slope angle", abs(result["mid_slope"][k] - np.arctan(slope)), 1e3 * EPS * 1e-1, "rad"
        )
        geometric = curvature / (1.0 + slope**2) ** 1.5  # the curve's curvature
        check("geometric curvature", abs(result["mid_curvature"][k] - geometric), 1e3 * EPS, "1/m")
        # E I w'' at the clamped root (linear theory, Lipinski (002), eq. 16): ~1e-1 N m
        moment = abs(result["root_moment"][k] - EI * root.curvature[0])
        check("root moment E I w''", moment, 1e3 * EPS, "N m")
        check("velocity x", abs(result["mid_velocity_vx"][k]), 4 * EPS, "m/s")
        vy = abs(result["mid_velocity_vy"][k] - velocity)
        check("velocity y", vy, 1e3 * EPS * 1e-1, "m/s")
    for quantity, rows in errors.items():
        error, tolerance, unit = zip(*rows, strict=True)
        measured.each(f"{name}: {quantity}", error, tolerance, unit=unit[0],
                      reference="the beam evaluated with scikit-fem's basis")  # fmt: skip
    # the beam moved: the checks above compared something that changes
    assert np.ptp(result["tip"]) > 1e-5


# -- a string ---------------------------------------------------------------------------------

EA = 100.0  # N


def string_model() -> Model:
    spec = StringSpec(
        length=1.0,
        n_elements=4,
        density=0.5,
        law=LinearElastic(EA),
        supports=(Support(0.0, "pinned"), Support(1.0, "pinned")),
    )
    sensors = (
        StructureSensor("pull", "cable", 0.3, "tension"),
        StructureSensor("sag", "cable", 0.55, "deflection"),
        StructureSensor("point", "cable", 0.55, "position"),
        StructureSensor("speed", "cable", 0.55, "velocity"),
    )
    return Model(structures={"cable": spec}, sensors=sensors)


@pytest.mark.parametrize("method", ["generalized-alpha", "moreau"])
def test_string_sensors_match_the_string_evaluated_directly(method, measured):
    system = assemble(string_model())
    structure = system.structures["cable"]
    result = simulate(system, (0.0, 0.02), system.initial_state(), method=method, h=2e-4)
    assert result.success, result.message
    errors = {}  # quantity -> (error, tolerance) per row, asserted after the rows
    for k in (10, 50, -1):
        q, u = result.q[k], result.u[k]
        full = structure.full(q)
        # the stretch from a central difference of positions along s (the reference is
        # straight, |r_ref'| = 1): r is cubic in the element, so the error is
        # delta^2 |r'''| / 6 ~ 1e-10 |r'''| plus round-off eps / delta ~ 1e-11
        delta = 1e-5
        ahead, behind = evaluate_string(
            structure.string, full, [0.3 + delta, 0.3 - delta]
        ).position.T
        stretch = np.hypot(*(ahead - behind)) / (2 * delta)
        errors.setdefault("tension EA (stretch - 1) [N]", []).append(
            (abs(result["pull"][k] - EA * (stretch - 1.0)), 1e-7 * EA)
        )
        here = evaluate_string(structure.string, full, [0.55]).position[:, 0]
        errors.setdefault("position [m]", []).extend(
            [
                (abs(result["point_x"][k] - here[0]), 8 * EPS),
                (abs(result["point_y"][k] - here[1]), 8 * EPS),
            ]
        )
        # the reference lies along +x: the deflection is the y of the point
        errors.setdefault("deflection [m]", []).append((abs(result["sag"][k] - here[1]), 8 * EPS))
        # r is affine in q: r(q + u) - r(q) = (dr/dq) u, to round-off of |r| ~ 1 m
        moved = evaluate_string(structure.string, structure.full(q + u), [0.55]).position[:, 0]
        speed = np.abs(np.array([result["speed_vx"][k], result["speed_vy"][k]]) - (moved - here))
        errors.setdefault("velocity (dr/dq) u [m/s]", []).extend((e, 64 * EPS) for e in speed)
    for quantity, rows in errors.items():
        error, tolerance = zip(*rows, strict=True)
        measured.each(f"{method}: {quantity}", error, tolerance,
                      reference="the string evaluated directly")  # fmt: skip
    # the string falls and its tension waves: the checks compared something that changes
    assert np.ptp(result["pull"]) > 1e-3 and result["sag"][-1] < -1e-4


# -- the two paths of a run write the same rows -----------------------------------------------


def test_the_csv_holds_the_sensor_columns_of_the_result(tmp_path, arm_system, monkeypatch):
    from fe_contact.steppers import batch
    from fe_contact.steppers.observers import CsvObserver
    from fe_contact.steppers.result import read_history

    batches = []
    columns = batch.StepBatch.columns

    def spy(self, *args):
        batches.append(self.n)
        return columns(self, *args)

    start = arm_start(arm_system)
    monkeypatch.setattr(batch.StepBatch, "columns", spy)
    quiet = simulate(arm_system, (0.0, 0.005), start, h=H)  # compiled batches
    assert sum(batches) >= 40  # most of the 50 steps took the batch path
    path = tmp_path / "history.csv"
    written = simulate(arm_system, (0.0, 0.005), start, h=H, observers=[CsvObserver(path)])
    csv = read_history(path)
    for name in ("end_x", "end_velocity_vy", "arm", "tip", "root_moment", "shoulder_q"):
        # the CSV holds repr(float): the same floats
        assert np.array_equal(csv[name], written[name]), name
        # the batch and the step-by-step path take the same steps; their states agree to
        # the Newton tolerance (not bit for bit: the compiled kernel sums in another order)
        scale = max(np.max(np.abs(written[name])), 1e-6)
        assert np.allclose(quiet[name], written[name], rtol=0, atol=1e-8 * scale), name
    with open(path) as fh:
        header = fh.readline()
    assert "end_x [m]" in header and "shoulder_u [rad/s]" in header


# -- bad sensors are refused when the model is built -----------------------------------------


@pytest.mark.parametrize(
    ("sensor", "words"),
    [
        (BodyPointSensor("hand", 2), ["'hand'", "body", "0..1"]),
        (BodySensor("hand", 5, "angle"), ["'hand'", "body", "0..1"]),
        (BodyPointSensor("hand", 1, "wrist"), ["'hand'", "wrist", "a point of the tree"]),
        (StructureSensor("far", "beam", 0.5), ["'far'", ".s", "0.5", "[0, 0.4]"]),
        (StructureSensor("far", "bridge", 0.1), ["'far'", "structure", "'beam'"]),
        (StructureSensor("pull", "beam", 0.1, "tension"), ["'pull'", "quantity", "deflection"]),
        (BodySensor("shoulder_q", 0), ["shoulder_q", "name", "no other history column"]),
    ],
)
def test_a_bad_sensor_is_refused_naming_it(sensor, words):
    with pytest.raises(ValueError) as info:
        arm_model(sensors=(sensor,))
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_bad_sensor_arguments_are_refused_at_construction():
    with pytest.raises(ValueError, match=r"BodyPointSensor 'p'\.quantity.*'position'"):
        BodyPointSensor("p", 0, quantity="acceleration_x")
    with pytest.raises(ValueError, match=r"StructureSensor 's'\.quantity.*'tension'"):
        StructureSensor("s", "beam", 0.1, "stress")
    with pytest.raises(ValueError, match="Python identifier"):
        BodySensor("my angle", 0)
    with pytest.raises(TypeError, match=r"Model\.sensors\[0\].*BodyPointSensor"):
        arm_model(sensors=("end",))


def test_a_string_without_bending_stiffness_has_no_moment():
    spec = string_model().structures["cable"]
    with pytest.raises(ValueError, match="'m'.*quantity.*without bending stiffness"):
        Model(structures={"cable": spec}, sensors=(StructureSensor("m", "cable", 0.5, "moment"),))


def test_joint_names_are_used_once():
    with pytest.raises(ValueError, match=r"\['joint_1'\].*once"):
        TreeModel(
            bodies=(Body(1.0, 0.1), Body(1.0, 0.1)),
            joints=(Joint("revolute", name="joint_1"), Joint("revolute", 0)),
        )
    with pytest.raises(ValueError, match="Joint.name.*identifier"):
        Joint("revolute", name="the elbow")


# -- model files ------------------------------------------------------------------------------


def test_a_model_file_with_sensors_round_trips_and_reruns_to_the_same_history(tmp_path):
    from fe_contact import load_model, save_model
    from fe_contact.io.model_file import InitialState, ModelFile, Output, Simulation

    model = arm_model()
    system = assemble(model)
    q0, u0 = arm_start(system)
    run = ModelFile(
        model,
        Simulation(0.003, h=H),
        InitialState.from_state(system, q0, u0),
        Output(frame_every=0.0, results=("max:tip",)),
    )
    path = save_model(run, tmp_path / "arm.toml")
    text = path.read_text()
    assert "[[output.sensors]]" in text and 'kind = "structure"' in text
    assert 'name = "shoulder"' in text
    loaded = load_model(path)
    assert loaded.model.sensors == model.sensors
    assert loaded.model.tree.joints[0].name == "shoulder"
    assert loaded.output == run.output
    again = assemble(loaded.model)
    first = simulate(system, (0.0, 0.003), (q0, u0), h=H)
    second = simulate(again, (0.0, 0.003), loaded.initial.state(again), h=H)
    assert list(second.columns) == list(first.columns)
    for name in ("end_x", "mid_velocity_vy", "root_moment", "shoulder_u"):
        # the same floats in, the same operations: the same history bit for bit
        assert np.array_equal(first[name], second[name]), name


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({"kind": "gauge", "name": "g"}, ["output.sensors.0.kind", "'gauge'", "'body_point'"]),
        (
            {"kind": "structure", "name": "g", "structure": "beam", "s": 0.9},
            ["output.sensors.0", "0.9", "[0, 0.4]"],
        ),
        (
            {"kind": "body", "name": "g", "body": 0, "quantity": "speed"},
            ["output.sensors.0.quantity", "speed"],
        ),
        ({"kind": "body_point", "name": "g", "body": 7}, ["output.sensors.0", "7", "0..1"]),
    ],
)
def test_a_bad_sensor_table_is_a_problem_with_its_key_path(table, words):
    from fe_contact.io.model_file import ModelFileError, model_document, parse_document

    doc = model_document(arm_model(sensors=()))
    doc["output"] = {"sensors": [table]}
    with pytest.raises(ModelFileError) as info:
        parse_document(doc)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_a_sweep_summarises_and_plots_a_sensor_with_its_unit(tmp_path):
    """Two cases of the arm's model file with the slider's spring stiffness varied: the
    summary holds max:end_x per case, the figure's axis says m."""
    import csv

    from fe_contact import save_model
    from fe_contact.cli import main
    from fe_contact.io.model_file import InitialState, ModelFile, Output, Simulation

    model = arm_model()
    system = assemble(model)
    run = ModelFile(
        model,
        Simulation(0.002, h=H),
        InitialState.from_state(system, *arm_start(system)),
        Output(frame_every=0.0, results=("max:end_x", "final:root_moment")),
    )
    path = save_model(run, tmp_path / "arm.toml")
    out = tmp_path / "sweep"
    vary = "tree.bodies.0.joint.damping=0.0,0.5"
    code = main(["sweep", str(path), "--vary", vary, "--jobs", "1", "--out", str(out), "-q"])
    assert code == 0
    with open(out / "summary.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["status"] for r in rows] == ["finished", "finished"]
    # the sensed point's largest x: the arm starts at 0.5 rad and falls (x grows), the
    # point's x at the start is BASE + R(0.5) (ARM + 0.02 + TIP): a bound it must exceed
    x0 = arm_point([0.5, 0.02])[0]
    for row in rows:
        assert float(row["max:end_x"]) >= x0
    svg = (out / "max_end_x.svg").read_text()
    assert "max:end_x [m]" in svg


# -- the demos declare what their figures need -----------------------------------------------


def test_the_sliding_mass_history_has_the_mass_position_and_the_tip_deflection(tmp_path, measured):
    from fe_contact.demos import sliding_mass
    from fe_contact.steppers.result import read_history

    system, result = sliding_mass.run(t_end=0.005, out=tmp_path, progress=False)
    assert result.success, result.message
    history = read_history(tmp_path / "history.csv")
    with open(tmp_path / "history.csv") as fh:
        header = fh.readline()
    for column in ("mass_x [m]", "mass_y [m]", "tip_deflection [m]", "joint_0_q [m]"):
        assert column in header
    # the sliders are x then y from the origin: the mass's position is (q_0, q_1), to
    # round-off (the y slider's axis is (cos pi/2, 1) = (6e-17, 1)): 8 eps of 1 m
    for column, joint in (("mass_x", "joint_0_q"), ("mass_y", "joint_1_q")):
        measured.close(
            column,
            history[column],
            history[joint],
            rtol=0,
            atol=8 * EPS,
            unit="m",
            reference=f"slider coordinate {joint}",
        )
    # the mass is on the beam: its y is the beam's deflection under it, to the position
    # residual of the sliding constraint (<= 1e-10 m here) plus round-off
    structure = system.structures["beam"]
    part = system.layout.structure("beam")
    for k in (0, 20, -1):
        on_beam = structure.curve(result["mass_parameter"][k], result.q[k, part]).position
        measured(
            f"mass height on the beam, row {k}",
            abs(history["mass_y"][k] - on_beam[1]),
            1e-10 + 1e3 * EPS * 1e-2,
            unit="m",
            reference="the beam's curve at the contact parameter",
        )
        tip = float(
            (structure.beam.basis.probes(np.array([[0.4]])) @ structure.full(result.q[k, part]))[0]
        )
        assert abs(history["tip_deflection"][k] - tip) <= 1e3 * EPS * 1e-2
    # the mass slides out at ~0.5 m/s from x = 0.1 m
    measured.close(
        "mass position at the end",
        history["mass_x"][-1],
        0.1 + 0.5 * 0.005,
        rtol=1e-2,
        atol=0,
        unit="m",
        reference="x0 + v t at 0.5 m/s",
    )


def test_the_manipulator_history_has_its_end_point_on_the_beam(measured):
    """The end-effector sensor of the manipulator: the end point slides on the beam, so it is
    the beam's curve at the contact parameter, to the sliding constraint's position residual
    (the run's residual_position) plus round-off of 0.4 m."""
    from fe_contact.demos.manipulator_on_beam import run_case
    from fe_contact.papers.lipinski import manipulator_model

    case = run_case(0.1, t_end=0.01)
    result = case.result
    assert result.success, result.message
    system = assemble(manipulator_model(mu=0.1))
    beam = system.structures["beam"]
    part = system.layout.structure("beam")
    for k in (0, 5, -1):
        on_beam = beam.curve(result["tip_parameter"][k], result.q[k, part]).position
        tol = float(np.max(result["residual_position"])) + 1e3 * EPS * 0.4
        for axis, column in enumerate(("end_effector_x", "end_effector_y")):
            measured(
                f"{column}, row {k}",
                abs(result[column][k] - on_beam[axis]),
                tol,
                unit="m",
                reference="the beam's curve at the contact parameter",
            )
    units = dict(history_columns(system))
    assert units["end_effector_x"] == "m" and units["joint_1_q"] == "rad"
    assert units["drive_1_force"] == "N m"  # the joint-2 torque of 002 Fig. 7b


def test_the_disk_on_beam_history_has_the_disk_centre(measured):
    from fe_contact.demos import disk_on_beam

    run_file = disk_on_beam.model_file(t_end=0.01, h=1e-3)
    system = assemble(run_file.model)
    result = simulate(system, (0.0, 0.01), run_file.initial.state(system), method="moreau", h=1e-3)
    assert result.success, result.message
    # the disk is carried by an x and a y slider from the origin: its centre is (q_0, q_1),
    # to round-off (the y slider's axis is (cos pi/2, 1) = (6e-17, 1)): 8 eps of 1 m
    for axis, column in enumerate(("disk_centre_x", "disk_centre_y")):
        measured.close(
            column,
            result[column],
            result.q[:, axis],
            rtol=0,
            atol=8 * EPS,
            unit="m",
            reference=f"slider coordinate q_{axis}",
        )
    assert result["disk_centre_y"][-1] < result["disk_centre_y"][0]  # it falls


def test_sensors_given_to_simulate_join_the_models(arm_system):
    """A run's own sensors: the model's columns and theirs, the same values as when the model
    declares them (the same evaluation of the same states)."""
    start = arm_start(arm_system)
    extra = (BodySensor("slider_angle", 1), StructureSensor("quarter", "beam", 0.1, "deflection"))
    declared = assemble(arm_model(sensors=(*SENSORS, *extra)))
    given = simulate(arm_system, (0.0, 0.002), start, h=H, sensors=extra)
    built = simulate(declared, (0.0, 0.002), start, h=H)
    assert list(given.columns) == list(built.columns)
    for name in ("slider_angle", "quarter", "tip", "end_x"):
        assert np.array_equal(given[name], built[name]), name
    assert "quarter" not in dict(history_columns(arm_system))  # the system is left as it was
    with pytest.raises(ValueError, match=r"Model\.sensors\[11\] \('far'\)\.s"):
        simulate(arm_system, (0.0, 0.002), start, sensors=(StructureSensor("far", "beam", 1.0),))
    with pytest.raises(TypeError, match="simulate.sensors"):
        simulate(arm_system, (0.0, 0.002), start, sensors=BodySensor("a", 0))
