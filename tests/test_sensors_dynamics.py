"""Acceleration sensors, the energy of each part and the sensors as ParaView field data.

The arm: body 0 swings freely about BASE under gravity (revolute), body 1 is driven out along
it at a constant 0.3 m/s (prismatic), a cantilever beam beside it. Its equation of motion in
closed form (angular momentum about BASE, with the slider's r1'' = 0 by its drive):

    (I0 + m0 c0^2 + I1 + m1 r1^2) theta'' + 2 m1 r1 r1' theta' = g_y cos(theta) (m0 c0 + m1 r1)

gives theta'' from the stored state; a point at rho = (r1 + TIP_x, TIP_y) in body 0's frame then
has the acceleration R(theta) (2 theta' e_z x rho' + theta'' e_z x rho - theta'^2 rho) (rho' =
(r1', 0), rho'' = 0): the sensors' J q'' + J' q' against it. Accelerations are also compared
with central differences in time of the velocity sensors, the beam's with scikit-fem's probes
of the reported q''.
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
    PointLoad,
    StringSpec,
    StructureSensor,
    Support,
    TreeModel,
    assemble,
    simulate,
)
from fe_contact.elements.beam import beam_fields as evaluate_beam
from fe_contact.multibody.drive import Drive
from fe_contact.steppers.result import history_columns

EPS = np.finfo(float).eps
BASE = np.array([0.0, 0.3])  # m
ARM = 0.1  # m, the slider's joint on the arm at q_1 = 0
TIP = np.array([0.05, 0.02])  # m, the sensed point on the slider
M0, I0, C0 = 1.0, 0.01, 0.1  # kg, kg m^2, m: the arm, its centre of mass on its x axis
M1, I1 = 0.5, 0.005  # the slider, its centre of mass at its joint
RATE = 0.3  # m/s, the slider's drive
H = 1e-4  # s

SENSORS = (
    BodyPointSensor("end", 1, tuple(TIP), "acceleration"),
    BodyPointSensor("end_velocity", 1, tuple(TIP), "velocity"),
    BodySensor("arm_acceleration", 0, "angular_acceleration"),
    BodySensor("arm_rate", 0, "angular_velocity"),
    StructureSensor("mid", "beam", 0.13, "acceleration"),
    StructureSensor("mid_velocity", "beam", 0.13, "velocity"),
)


def arm_model(beam=True, sensors=SENSORS) -> Model:
    tree = TreeModel(
        bodies=(Body(mass=M0, inertia=I0, centre_of_mass=(C0, 0.0)), Body(mass=M1, inertia=I1)),
        joints=(
            Joint("revolute", None, tuple(BASE), name="shoulder"),
            Joint("prismatic", 0, (ARM, 0.0), stiffness=50.0),
        ),
    )
    spec = BeamSpec(
        length=0.4, youngs_modulus=2.1e11, density=4.7e3, n_elements=4, width=0.01, height=0.0015
    )
    structures = {"beam": spec} if beam else {}
    if not beam:
        sensors = tuple(s for s in sensors if not isinstance(s, StructureSensor))
    drive = Drive.constant_velocity(1, 0.02, RATE)
    return Model(tree=tree, structures=structures, drives=(drive,), sensors=sensors)


@pytest.fixture(scope="module")
def arm_system():
    return assemble(arm_model())


def arm_start(system):
    return system.initial_state(q_tree=[0.5, 0.02], u_tree=[0.0, RATE])


RUNS = {
    "compiled": dict(method="generalized-alpha"),
    "python": dict(method="generalized-alpha", compiled=False),
}


@pytest.fixture(scope="module", params=list(RUNS))
def arm_run(request, arm_system):
    result = simulate(
        arm_system,
        (0.0, 0.01),
        arm_start(arm_system),
        h=H,
        keep_reports=True,
        **RUNS[request.param],
    )
    assert result.success, result.message
    return request.param, result


def rotation(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def cross_z(v):
    """e_z x v."""
    return np.array([-v[1], v[0]])


def arm_angular_acceleration(q, u, g_y):
    """theta'' of the module docstring's equation, from the state."""
    r1, r1_dot = ARM + q[1], u[1]
    inertia = I0 + M0 * C0**2 + I1 + M1 * r1**2
    torque = g_y * np.cos(q[0]) * (M0 * C0 + M1 * r1)
    return (torque - 2.0 * M1 * r1 * r1_dot * u[0]) / inertia


def arm_point_acceleration(q, u, g_y):
    """The acceleration of the sensed point (module docstring)."""
    theta_dd = arm_angular_acceleration(q, u, g_y)
    rho = np.array([ARM + q[1] + TIP[0], TIP[1]])
    rho_dot = np.array([u[1], 0.0])
    local = 2.0 * u[0] * cross_z(rho_dot) + theta_dd * cross_z(rho) - u[0] ** 2 * rho
    return rotation(q[0]) @ local


def test_acceleration_columns_and_units(arm_system):
    units = dict(history_columns(arm_system))
    assert units["end_ax"] == units["end_ay"] == "m/s^2"
    assert units["arm_acceleration"] == "rad/s^2"
    assert units["mid_ax"] == units["mid_ay"] == "m/s^2"


def test_tree_accelerations_match_the_closed_form(arm_run, arm_system, measured):
    """The generalised-alpha q'' solves the reduced equations at the end of each step to the
    Newton tolerance (rtol = 1e-10 of forces ~10 N on masses ~1 kg): theta'' ~ 10 rad/s^2 to
    ~1e-9; 1e-7 m/s^2 (rad/s^2) is that with a margin of 100 (measured: 7e-11 m/s^2 on the
    point, 5e-10 rad/s^2 on theta'')."""
    name, result = arm_run
    g_y = arm_system.model.gravity[1]
    for k in (0, 1, 17, 50, -1):
        q, u = result.q[k], result.u[k]
        expected = arm_point_acceleration(q, u, g_y)
        sensed = np.array([result["end_ax"][k], result["end_ay"][k]])
        measured.close(
            f"end point acceleration ({name}, row {k})",
            sensed,
            expected,
            rtol=0.0,
            atol=1e-7,
            unit="m/s^2",
            reference="the arm's closed-form J q'' + J' q'",
        )
        theta_dd = arm_angular_acceleration(q, u, g_y)
        measured(
            f"arm angular acceleration ({name}, row {k})",
            abs(result["arm_acceleration"][k] - theta_dd),
            1e-7,
            unit="rad/s^2",
            reference="the arm's closed-form theta''",
        )
    assert abs(result["arm_acceleration"][0]) > 1.0  # gravity swings the arm: not a zero test


def test_accelerations_match_central_differences_of_the_velocity_sensors(arm_run, measured):
    """(v(t + h) - v(t - h)) / 2h against a(t): the generalised-alpha scheme is second order
    (gamma = 1/2 + alpha_f - alpha_m), so the two agree to O(h^2) times the third derivative
    of the acceleration: the arm (omega ~ 10 rad/s, |a| ~ 5 m/s^2) to
    (h omega)^2 |a| ~ 5e-6 m/s^2, tolerance 1e-4 (measured 1.3e-6). The beam's point carries
    its modes up to ~2e4 rad/s after its release under its weight; the numerical damping of
    rho_inf = 0.9 leaves the highest ones (omega h > 1) out of step with any difference, so
    its tolerance is 5 % of its largest acceleration (measured 2.8 %)."""
    name, result = arm_run
    t = result["t"]
    for velocity, acceleration, tol in (
        ("end_velocity_vx", "end_ax", 1e-4),
        ("end_velocity_vy", "end_ay", 1e-4),
        ("mid_velocity_vy", "mid_ay", 5e-2 * np.max(np.abs(result["mid_ay"]))),
    ):
        v = result[velocity]
        difference = (v[2:] - v[:-2]) / (t[2:] - t[:-2])
        error = np.max(np.abs(difference - result[acceleration][1:-1]))
        measured(
            f"{acceleration} ({name})",
            error,
            tol,
            unit="m/s^2",
            reference=f"central difference of {velocity} over 2 h",
        )


def test_structure_accelerations_are_the_probes_of_the_reported_accelerations(arm_run, arm_system):
    """r is affine in q, so r'' = (dr/dq) q'': scikit-fem's probe of the reported q'' at s =
    0.13 m (``elements.beam.beam_fields``); four shape-function terms of accelerations up to
    ~1e2 m/s^2: 1e3 eps of 1e2 m/s^2."""
    name, result = arm_run
    structure = arm_system.structures["beam"]
    part = arm_system.layout.structure("beam")
    for k in (0, 17, 50, -1):
        acc = result.reports[k].acceleration
        probe = evaluate_beam(structure.beam, structure.full(acc[part]), [0.13])
        assert abs(result["mid_ay"][k] - probe.deflection[0]) <= 1e3 * EPS * 1e2, (name, k)
        assert abs(result["mid_ax"][k]) <= 4 * EPS
    assert np.ptp(result["mid_ay"]) > 1e-2  # the beam vibrates: the check compared something


def test_the_compiled_batches_report_the_accelerations(arm_system, monkeypatch):
    """Most steps of the compiled run are taken in batches (``steppers.batch``): their
    acceleration columns are those of the steps taken one by one in Python, to the Newton
    tolerance of the two iterations (1e-7 m/s^2 as above), and never NaN. Their part energies
    (Python, from the batch's states) sum to the totals of the compiled kernel (another
    summation order) to round-off: 64 eps of the largest part."""
    from fe_contact.steppers import batch

    batches = []
    columns = batch.StepBatch.columns

    def spy(self, *args):
        batches.append(self.n)
        return columns(self, *args)

    monkeypatch.setattr(batch.StepBatch, "columns", spy)
    start = arm_start(arm_system)
    quiet = simulate(arm_system, (0.0, 0.005), start, h=H)
    assert sum(batches) >= 40  # most of the 50 steps
    python = simulate(arm_system, (0.0, 0.005), start, h=H, compiled=False)
    for column in ("end_ax", "end_ay", "arm_acceleration"):
        assert np.all(np.isfinite(quiet[column])), column
        assert np.allclose(quiet[column], python[column], rtol=0.0, atol=1e-7), column
    check_part_sums("batches", quiet)


def test_moreau_jean_reports_the_mean_acceleration_of_each_step(measured):
    """Moreau-Jean has no q'': its acceleration is the velocity change over the step,
    (u_n+1 - u_n) / h (as its forces are impulse / h), NaN at the start. A structure point's
    r is affine in q, so its acceleration is exactly the difference of its velocity sensor
    over h (round-off of velocities ~1e-2 m/s over h: 64 eps 1e-2 / h), and so is the arm's
    angular acceleration (its own joint's). A body point's is J q'' + J' q' at the end state,
    which differs from the mean of its acceleration over the step (its velocity difference)
    by about h / 2 times its jerk; the same first order separates it from the closed form.
    The jerk bound j is taken from the closed form along the run (29 m/s^3, 55 rad/s^3):
    tolerance 4 h j (measured: 0.6 h j against the velocity difference, 0.25 h j and 0.9 h j
    against the closed form of the point and of theta'')."""
    system = assemble(arm_model())
    result = simulate(system, (0.0, 0.005), arm_start(system), h=H, method="moreau")
    assert result.success, result.message
    for column in ("end_ax", "end_ay", "arm_acceleration", "mid_ay"):
        assert np.isnan(result[column][0]), column
    t = result["t"]
    dt = t[1:] - t[:-1]
    mid = np.diff(result["mid_velocity_vy"]) / dt
    measured.close(
        "beam point acceleration",
        result["mid_ay"][1:],
        mid,
        rtol=0.0,
        atol=64 * EPS * 1e-2 / H,
        unit="m/s^2",
        reference="velocity sensor's difference over h",
    )
    arm = np.diff(result["arm_rate"]) / dt
    measured.close(
        "arm angular acceleration",
        result["arm_acceleration"][1:],
        arm,
        rtol=0.0,
        atol=64 * EPS * 1.0 / H,
        unit="rad/s^2",
        reference="angular velocity's difference over h",
    )
    g_y = system.model.gravity[1]
    rows = range(1, len(t))
    closed = np.array([arm_point_acceleration(result.q[k], result.u[k], g_y) for k in rows])
    theta_dd = np.array([arm_angular_acceleration(result.q[k], result.u[k], g_y) for k in rows])
    jerk = np.max(np.abs(np.diff(closed, axis=0) / dt[1:, None]))
    spin_jerk = np.max(np.abs(np.diff(theta_dd) / dt[1:]))
    assert 10.0 < jerk < 100.0 and 10.0 < spin_jerk < 100.0  # the scale the bounds assume
    for axis in ("x", "y"):
        end = np.diff(result[f"end_velocity_v{axis}"]) / dt
        measured(
            f"end point acceleration a{axis}",
            np.max(np.abs(result[f"end_a{axis}"][1:] - end)),
            4 * H * jerk,
            unit="m/s^2",
            reference="velocity sensor's difference over h",
        )
    sensed = np.column_stack([result["end_ax"][1:], result["end_ay"][1:]])
    measured(
        "end point acceleration",
        np.max(np.abs(sensed - closed)),
        4 * H * jerk,
        unit="m/s^2",
        reference="the arm's closed form at the end state",
    )
    measured(
        "arm angular acceleration against the closed form",
        np.max(np.abs(result["arm_acceleration"][1:] - theta_dd)),
        4 * H * spin_jerk,
        unit="rad/s^2",
        reference="the arm's closed-form theta'' at the end state",
    )


def test_acceleration_sensors_in_a_model_file_round_trip(tmp_path, arm_system):
    from fe_contact import load_model, save_model
    from fe_contact.io.model_file import InitialState, ModelFile, Output, Simulation

    run = ModelFile(
        arm_system.model,
        Simulation(0.001, h=H),
        InitialState.from_state(arm_system, *arm_start(arm_system)),
        Output(frame_every=0.0),
    )
    path = save_model(run, tmp_path / "arm.toml")
    assert 'quantity = "angular_acceleration"' in path.read_text()
    assert load_model(path).model.sensors == arm_system.model.sensors


# -- energy per part --------------------------------------------------------------------------


def test_part_energy_columns_are_named_by_part(arm_system):
    units = dict(history_columns(arm_system))
    for name in (
        "tree_potential_energy",
        "tree_elastic_energy",
        "beam_kinetic_energy",
        "beam_elastic_energy",
        "beam_potential_energy",
    ):
        assert units[name] == "J", name
    assert "contact_elastic_energy" not in units  # no compliant contact


def check_part_sums(name, result):
    """kinetic = tree + beam, potential = tree + beam, elastic = tree + beam (no compliant
    contact), to 64 eps of the largest part (a sum of two terms, computed by the same or,
    for the compiled kernel's totals, other summations of ~20 products each)."""
    sums = {
        "kinetic_energy": ("tree_kinetic_energy", "beam_kinetic_energy"),
        "potential_energy": ("tree_potential_energy", "beam_potential_energy"),
        "elastic_energy": ("tree_elastic_energy", "beam_elastic_energy"),
    }
    for total, parts in sums.items():
        terms = np.array([result[p] for p in parts])
        scale = np.max(np.abs(terms))
        error = np.max(np.abs(terms.sum(axis=0) - result[total]))
        assert error <= 64 * EPS * scale, (name, total, error, scale)
    assert np.ptp(result["beam_kinetic_energy"]) > 0.0  # the beam moves: parts that change


def test_part_energies_sum_to_the_totals(arm_run):
    """The generalised-alpha runs (per-step reports; the batches: above) and Moreau-Jean."""
    check_part_sums(*arm_run)
    system = assemble(arm_model())
    moreau = simulate(system, (0.0, 0.002), arm_start(system), h=H, method="moreau")
    assert moreau.success, moreau.message
    check_part_sums("moreau", moreau)


def test_a_pendulum_part_energies_in_closed_form(measured):
    """A pendulum on a torsion spring: kinetic 1/2 I_O omega^2 (I_O = I + m c^2), gravity
    -m g . x_c with x_c = BASE + c (cos theta, sin theta), spring 1/2 k (theta - rest)^2, from
    the stored state, to round-off of ~1 J: 64 eps (Moreau-Jean, Python generalised alpha)."""
    m, inertia, c, k, rest = 2.0, 0.03, 0.25, 4.0, 0.2
    tree = TreeModel(
        bodies=(Body(mass=m, inertia=inertia, centre_of_mass=(c, 0.0)),),
        joints=(Joint("revolute", None, tuple(BASE), stiffness=k, rest=rest),),
    )
    system = assemble(Model(tree=tree))
    g = np.array(system.model.gravity)
    for method in ("moreau", "generalized-alpha"):
        start = system.initial_state(q_tree=[-0.4], u_tree=[1.5])
        result = simulate(system, (0.0, 0.02), start, h=1e-3, method=method)
        assert result.success, result.message
        theta, omega = result.q[:, 0], result.u[:, 0]
        kinetic = 0.5 * (inertia + m * c**2) * omega**2
        centre = BASE[:, None] + c * np.array([np.cos(theta), np.sin(theta)])
        gravity = -m * (g @ centre)
        spring = 0.5 * k * (theta - rest) ** 2
        for column, closed, formula in (
            ("tree_kinetic_energy", kinetic, "1/2 I_O omega^2"),
            ("tree_potential_energy", gravity, "-m g . x_c"),
            ("tree_elastic_energy", spring, "1/2 k (theta - rest)^2"),
        ):
            measured.close(
                f"{column} ({method})",
                result[column],
                closed,
                rtol=0,
                atol=64 * EPS,
                unit="J",
                reference=formula,
            )
        assert np.ptp(omega) > 0.01  # it swings


def test_a_tip_loaded_cantilever_stores_its_strain_energy_in_closed_form(measured):
    """A cantilever at rest under a tip force P (no gravity): strain energy P^2 L^3 / (6 EI),
    the load's potential -P w_tip = -P^2 L^3 / (3 EI), no kinetic energy; exact for Hermite
    cubics (the deflection is cubic), to the static solve's tolerance (1e-10 relative) and
    round-off: 1e-9 relative."""
    from fe_contact.statics import static_equilibrium

    P, L = 2.0, 0.4
    spec = BeamSpec(
        length=L, youngs_modulus=2.1e11, density=4.7e3, n_elements=4, width=0.01, height=0.0015
    )
    model = Model(
        structures={"strip": spec},
        loads=(PointLoad("strip", L, (0.0, -P)),),
        gravity=(0.0, 0.0),
    )
    system = assemble(model)
    static = static_equilibrium(system)
    result = simulate(system, (0.0, 2e-4), (static.q, static.u), h=1e-4)
    assert result.success, result.message
    EI = spec.bending_stiffness
    strain = P**2 * L**3 / (6.0 * EI)
    measured.close(
        "strain energy",
        result["strip_elastic_energy"][0],
        strain,
        rtol=1e-9,
        unit="J",
        reference="P^2 L^3 / (6 EI)",
    )
    measured.close(
        "load potential",
        result["strip_potential_energy"][0],
        -2.0 * strain,
        rtol=1e-9,
        unit="J",
        reference="-P^2 L^3 / (3 EI)",
    )
    assert result["strip_kinetic_energy"][0] == 0.0  # u = 0 exactly
    assert result["tree_potential_energy"][0] == 0.0 and result["tree_elastic_energy"][0] == 0.0


def test_string_part_energies_sum_to_the_totals_on_moreau_jean():
    """A pinned string falling under its weight: its three parts are the totals (no tree) to
    round-off (the same functions summed in another order: 64 eps of the largest)."""
    spec = StringSpec(
        length=1.0,
        n_elements=4,
        density=0.5,
        law=LinearElastic(100.0),
        supports=(Support(0.0, "pinned"), Support(1.0, "pinned")),
    )
    system = assemble(Model(structures={"cable": spec}))
    result = simulate(system, (0.0, 0.01), system.initial_state(), method="moreau", h=2e-4)
    assert result.success, result.message
    for total, part in (
        ("kinetic_energy", "cable_kinetic_energy"),
        ("potential_energy", "cable_potential_energy"),
        ("elastic_energy", "cable_elastic_energy"),
    ):
        scale = np.max(np.abs(result[part]))
        assert np.allclose(result[part], result[total], rtol=0, atol=64 * EPS * scale), total
    assert result["cable_potential_energy"][-1] < 0.0  # it fell


def test_a_structure_whose_energy_columns_clash_is_refused():
    spec = arm_model().structures["beam"]
    for name in ("tree", "structure"):
        with pytest.raises(ValueError, match=rf"Model\.structures name.*'{name}'.*no other"):
            Model(structures={name: spec})


# -- ParaView field data ----------------------------------------------------------------------


def test_paraview_frames_carry_the_time_and_the_sensors_as_field_data(tmp_path, arm_system):
    """Each frame of the observer's series (and of write_pvd from the kept reports) holds
    ``TimeValue`` and every joint and sensor column of its row, read back by pyvista: the
    same float64 values as the history (written in binary: bit for bit)."""
    import pyvista as pv

    from fe_contact.io.vtk import write_pvd
    from fe_contact.sensors import joint_and_sensor_columns
    from fe_contact.steppers.observers import VtkObserver

    observer = VtkObserver(tmp_path / "live", stride=4)
    result = simulate(
        arm_system,
        (0.0, 0.001),
        arm_start(arm_system),
        h=H,
        observers=[observer],
        keep_reports=True,
    )
    assert result.success, result.message
    names = [c for c, _ in joint_and_sensor_columns(arm_system.model, arm_system.tree)]
    assert "end_ax" in names and "shoulder_q" in names
    after = write_pvd(result, arm_system, tmp_path / "after", stride=4)
    for pvd in (observer.pvd_path, after):
        reader = pv.get_reader(str(pvd))
        assert len(reader.time_values) == 4  # rows 0, 4, 8 and the last, 10
        for time, k in zip(reader.time_values, (0, 4, 8, 10), strict=True):
            reader.set_active_time_value(time)
            frame = reader.read()
            if isinstance(frame, pv.MultiBlock) and "TimeValue" not in frame.field_data:
                frame = frame[0]  # the pvd reader wraps the data set of a time in a block
            assert float(frame.field_data["TimeValue"][0]) == result["t"][k]
            for name in names:
                assert float(frame.field_data[name][0]) == result[name][k], (pvd, name, k)


def test_a_compliant_contact_has_its_elastic_energy_column(measured):
    """A 1 kg disk (radius 0.05 m) on a vertical slider released 5e-4 m deep in flat ground
    with a linear compliant law F = c a (c = 1e5 N/m: it rises, equilibrium at 1e-4 m):
    ``contact_elastic_energy`` is c a^2 / 2 with a = 0.05 m - q from the stored state (0 when
    a < 0), and elastic = tree springs + contact (no structure), to 64 eps of c a^2 / 2 ~
    1e-2 J (round-off of a few products)."""
    from fe_contact.curves import Curve
    from fe_contact.model import Circle, Compliant, ContactPair, Profile

    c, radius = 1e5, 0.05
    ground = Profile(None, Curve.bezier([[1.0, 0.0], [0.2, 0.0], [-1.0, 0.0]]))
    tree = TreeModel((Body(1.0, 0.001),), (Joint("prismatic", None, angle=0.5 * np.pi),))
    pair = ContactPair("disk", Circle(0, radius), ground, Compliant("linear", c, damping=0.3))
    system = assemble(Model(tree=tree, contacts=(pair,)))
    assert dict(history_columns(system))["contact_elastic_energy"] == "J"
    result = simulate(system, (0.0, 5e-3), system.initial_state([radius - 5e-4], [0.0]), h=1e-4)
    assert result.success, result.message
    approach = np.maximum(radius - result.q[:, 0], 0.0)
    expected = 0.5 * c * approach**2
    scale = 0.5 * c * 5e-4**2
    measured.close(
        "contact elastic energy",
        result["contact_elastic_energy"],
        expected,
        rtol=0,
        atol=64 * EPS * scale,
        unit="J",
        reference="c a^2 / 2",
    )
    total = result["tree_elastic_energy"] + result["contact_elastic_energy"]
    assert np.allclose(result["elastic_energy"], total, rtol=0, atol=64 * EPS * scale)
    assert np.ptp(result["contact_elastic_energy"]) > 0.1 * scale  # the disk moves


def test_the_event_driven_stepper_reports_the_mean_acceleration_of_each_step(measured):
    """The rough pin on the wheel (003, event-driven, impacts in the run): the pin's angular
    acceleration is its joint's velocity change over each step (the impacts' jumps included),
    NaN at the start; to round-off of the rates over the step, 64 eps max|phi'| / h."""
    from dataclasses import replace

    from fe_contact.papers.slavic_boltezar import PinOnWheel, pin_model

    data = replace(PinOnWheel(), t_end=2e-5)
    sensors = (BodySensor("pin_rate", 1, "angular_velocity"),)
    sensors += (BodySensor("pin_spin", 1, "angular_acceleration"),)
    system = assemble(replace(pin_model(data), sensors=sensors))
    result = simulate(
        system,
        (0.0, data.t_end),
        system.initial_state(),
        method="event-driven",
        h=1e-7,
        penetration=data.penetration,
    )
    assert result.success, result.message
    assert np.isnan(result["pin_spin"][0])
    assert result.event_counts()["impact"] > 0
    dt = np.diff(result["t"])
    difference = np.diff(result["pin_rate"]) / dt
    tol = 64 * EPS * np.max(np.abs(result["pin_rate"])) / np.min(dt)
    measured.close(
        "pin angular acceleration",
        result["pin_spin"][1:],
        difference,
        rtol=0,
        atol=tol,
        unit="rad/s^2",
        reference="angular velocity's change over each step",
    )
    assert np.ptp(result["pin_spin"][1:]) > 1e3 * tol  # the pin turns, hit by the wheel
