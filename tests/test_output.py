"""Output of a coupled run: VTK series read back, plots and off-screen pictures.

Every check compares what was written with the model evaluated independently at the stored state:
the written beam is the model's deflection at the sample points, the written contact forces are the
multipliers times the contact directions.
"""

import xml.etree.ElementTree as ET

import meshio
import numpy as np
import pytest
import pyvista as pv
from PIL import Image, ImageSequence
from series import cells, frame_files, has_colour, part, read_frame

from fe_contact import (
    BeamSpec,
    Circle,
    ContactPair,
    Drive,
    Line,
    Model,
    Point,
    Sliding,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)
from fe_contact.coupling.constraints import contact_at
from fe_contact.elements.beam import (
    assemble_beam,
    beam_fields,
    point_load,
    self_weight,
    static_deflection,
)
from fe_contact.elements.string import (
    LinearElastic,
    StringSpec,
    Support,
    assemble_string,
)
from fe_contact.elements.string import string_points_at as evaluate_string
from fe_contact.io.plots import column_unit, plot_configuration, plot_histories
from fe_contact.io.pvd import PvdIndex
from fe_contact.io.render import (
    load_scene,
    offscreen_available,
    read_series,
    render_animation,
    render_frame,
    start_offscreen_check,
    write_gif,
)
from fe_contact.io.vtk import (
    SUPPORT_CODES,
    Block,
    PvdWriter,
    beam_block,
    disk_block,
    frame_blocks,
    frame_multiblock,
    geometry_blocks,
    save_frame,
    string_block,
    tree_block,
    write_pvd,
)
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel, point_position
from fe_contact.sensors import joint_and_sensor_columns
from fe_contact.steppers.observers import VtkObserver
from fe_contact.steppers.result import (
    ContactReport,
    StepReport,
    history_columns,
    no_work,
    open_contact,
)

pv.OFF_SCREEN = True

MASS = 0.02  # kg, the slider pressing on the beam
X0 = 0.1  # m, where it starts on the beam
SPEED = 0.5  # m/s, initial sliding speed along the beam
STRIDE = 5
SAMPLES = 6  # per beam element


def _slider_on_beam():
    """A point mass on an x-y slider (two prismatic joints) sliding with friction on a cantilever."""
    tree = TreeModel(
        bodies=(Body(1e-9, 1e-12), Body(MASS, 1e-9)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )
    beam = BeamSpec(
        length=0.4,
        n_elements=4,
        youngs_modulus=2.1e11,
        density=4.7e3,
        width=0.01,
        height=0.0015,
    )
    contact = ContactPair("contact", Point(1), "beam", Sliding(0.1))
    return assemble(Model(tree=tree, structures={"beam": beam}, contacts=(contact,)))


def _start(system, x0):
    """The slider at rest on the beam statically deflected by its weight and the slider's."""
    beam = system.structures["beam"].beam
    u_static = static_deflection(beam, self_weight(beam) + point_load(beam, x0, -MASS * 9.81))
    q0, u0 = system.initial_state([x0, beam_fields(beam, u_static, [x0]).deflection[0]])
    q0[system.layout.structure("beam")] = u_static[beam.free_dofs]
    return q0, u0


def _beam_full(system, q):
    return system.structures["beam"].full(q[system.layout.structure("beam")])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The slider resting on the statically deflected beam, pushed along it for 5 ms; the
    series is written live by the observer and afterwards from the result."""
    system = _slider_on_beam()
    q0, u0 = _start(system, X0)
    u0[0] = SPEED
    live = tmp_path_factory.mktemp("live")
    observer = VtkObserver(live, "slider", stride=STRIDE, samples_per_element=SAMPLES)
    result = simulate(
        system, (0.0, 0.005), (q0, u0), h=1e-4, keep_reports=True, observers=[observer]
    )
    assert result.status == "finished", result.message
    out = tmp_path_factory.mktemp("series")
    pvd = write_pvd(result, system, out, name="slider", stride=STRIDE, samples_per_element=SAMPLES)
    return system, result, pvd, live / "slider.pvd"


# --- VTK series ---------------------------------------------------------------------------------


def test_series_frames_and_times(run):
    system, result, pvd, _ = run
    expected = result.t[::STRIDE]
    frames = frame_files(pvd)
    assert len(frames) == len(expected) == 11
    np.testing.assert_array_equal([t for t, _ in frames], expected)  # repr: exact round trip
    reader = pv.get_reader(str(pvd))
    np.testing.assert_array_equal(reader.time_values, expected)
    reader.set_active_time_point(4)
    frame = reader.read()[0]
    assert frame.keys() == ["structures", "bodies", "contacts"]
    assert frame["structures"].keys() == ["beam"] and frame["bodies"].keys() == ["tree"]
    # meshio reads the same parts: the .vtm lists them by name (parsed here independently)
    vtm = ET.parse(frames[4][1]).getroot()
    files = {d.get("name"): frames[4][1].parent / d.get("file") for d in vtm.iter("DataSet")}
    assert sorted(files) == ["beam", "contacts", "tree"]
    for name, arrays in (
        ("beam", ("displacement", "slope", "curvature", "bending_moment")),
        ("tree", ("body", "joint")),
        ("contacts", ("normal_force", "friction_force", "contact_force", "gap", "state")),
    ):
        grid, mesh = part(frame, name), meshio.read(files[name])
        np.testing.assert_array_equal(grid.points, mesh.points)
        assert sorted(grid.point_data.keys()) == sorted(mesh.point_data) and arrays
        for key in arrays:
            np.testing.assert_array_equal(grid.point_data[key], mesh.point_data[key])
    for key in ("body", "joint"):  # identifiers are integers in both readers
        assert np.issubdtype(meshio.read(files["tree"]).point_data[key].dtype, np.integer)
    assert part(frame, "contacts").active_vectors_name == "contact_force"  # Glyph's default


def test_written_beam_equals_model_deflection(run):
    system, result, pvd, _ = run
    beam = system.structures["beam"].beam
    x_expected = np.linspace(0.0, beam.spec.length, SAMPLES * beam.n_elements + 1)
    for k, (t, path) in enumerate(frame_files(pvd)):
        mesh = part(path, "beam")
        ids = np.unique(cells(mesh, "line"))
        np.testing.assert_array_equal(ids, np.arange(mesh.n_points))
        x, y = mesh.points[ids, 0], mesh.points[ids, 1]
        np.testing.assert_allclose(x, x_expected, rtol=0, atol=1e-15)
        fields = beam_fields(beam, _beam_full(system, result.q[k * STRIDE]), x_expected)
        np.testing.assert_allclose(y, fields.deflection, rtol=0, atol=1e-15)
        np.testing.assert_allclose(mesh.point_data["displacement"][ids, 1], fields.deflection)
        assert np.all(mesh.points[:, 2] == 0.0)
        assert "body" not in mesh.point_data  # no padding: a beam has no tree body
        assert t == result.t[k * STRIDE]


def test_written_contact_forces_are_multipliers_times_directions(run):
    system, result, pvd, _ = run
    pair = system.model.contacts[0]
    for k, (_, path) in enumerate(frame_files(pvd)):
        step = k * STRIDE
        q, u = result.q[step], result.u[step]
        mesh = part(path, "contacts")
        (cid,) = cells(mesh, "vertex")[:, 0]
        c = contact_at(system, 0, q, u)  # the kinematics at the stored state, independently
        N = result.multipliers[step, 0]
        F = result["contact_friction_force"][step]
        normal = mesh.point_data["normal_force"][cid]
        friction = mesh.point_data["friction_force"][cid]
        np.testing.assert_allclose(normal, [*(N * c.normal), 0.0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(friction, [*(F * c.tangent), 0.0], rtol=1e-12, atol=1e-15)
        # Coulomb, sliding: |F| = mu N against the slip (002 eq. 63); the body is pushed up.
        assert np.linalg.norm(friction) == pytest.approx(pair.mu * N, rel=1e-12)
        assert np.dot(friction[:2], c.tangent) * result["contact_slip_velocity"][step] < 0
        assert normal[1] > 0 and N > 0
        position = point_position(system.tree, q[system.layout.tree], 1, (0.0, 0.0))
        np.testing.assert_allclose(mesh.points[cid, :2], position, rtol=0, atol=1e-12)
        assert mesh.point_data["gap"][cid] == result["contact_gap"][step]
        assert mesh.point_data["slip_velocity"][cid] == pytest.approx(
            result["contact_slip_velocity"][step], rel=1e-12
        )
        assert mesh.point_data["parameter"][cid] == pytest.approx(result["contact_parameter"][step])


def test_series_written_live_equals_series_written_afterwards(run):
    """VtkObserver during the run and write_pvd afterwards give the same times, structure points
    and contact force vectors."""
    _, _, pvd, live = run
    ours, theirs = frame_files(live), frame_files(pvd)
    np.testing.assert_array_equal([t for t, _ in ours], [t for t, _ in theirs])
    for (_, a_path), (_, b_path) in zip(ours, theirs, strict=True):
        for name in ("beam", "tree"):
            np.testing.assert_array_equal(part(a_path, name).points, part(b_path, name).points)
        a, b = part(a_path, "contacts"), part(b_path, "contacts")
        np.testing.assert_array_equal(a.points, b.points)
        for name in ("normal_force", "friction_force"):
            np.testing.assert_array_equal(a.point_data[name], b.point_data[name])


def test_interrupted_run_leaves_valid_series(run, tmp_path):
    system, result, _, _ = run
    with pytest.raises(RuntimeError, match="diverged"):
        with PvdWriter(tmp_path, "broken") as writer:
            for k in range(len(result.t)):
                if k == 3:
                    raise RuntimeError("Newton diverged")
                writer.write(result.t[k], frame_blocks(system, result.reports[k]))
    reader = pv.get_reader(str(tmp_path / "broken.pvd"))
    np.testing.assert_array_equal(reader.time_values, result.t[:3])
    for _, path in frame_files(tmp_path / "broken.pvd"):
        assert len(meshio.read(path.with_suffix("") / f"{path.stem}_0.vtu").points) > 0
    assert not list(tmp_path.glob("*.tmp"))


def test_run_stopped_by_an_event_leaves_its_frames(tmp_path):
    """A slider launched towards the free end leaves the beam: the series written so far stays
    valid and ends at the last state before the event."""
    system = _slider_on_beam()
    q0, u0 = _start(system, 0.395)
    u0[0] = 1.0  # m/s: leaves after about 5 ms
    observer = VtkObserver(tmp_path, stride=10)
    result = simulate(system, (0.0, 0.05), (q0, u0), h=1e-4, observers=[observer])
    assert result.status == "event" and "left structure 'beam'" in result.message
    reader = pv.get_reader(str(tmp_path / "frames.pvd"))
    times = np.asarray(reader.time_values)
    assert 3 <= len(times) and times[-1] == result.t[-1]
    reader.set_active_time_point(len(times) - 1)
    assert part(reader.read()[0], "beam").n_points > 0


def test_bad_vtk_stride_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="stride"):
        VtkObserver(tmp_path, stride=0)


def test_write_pvd_needs_the_reports(run, tmp_path):
    system, result, _, _ = run
    bare = simulate(system, (0.0, 0.0005), (result.q[0], result.u[0]), h=1e-4)
    with pytest.raises(ValueError, match="keep_reports"):
        write_pvd(bare, system, tmp_path)


def test_tree_block_joints_points_and_segments():
    tree = TreeModel(
        bodies=(Body(1.0, 0.1), Body(0.5, 0.01), Body(0.2, 0.01)),
        joints=(
            Joint("revolute", location=(0.1, 0.2)),
            Joint("revolute", parent=0, location=(0.3, 0.0)),
            Joint("revolute", parent=1),  # at body 1's origin: no segment
        ),
        points={"tip": (2, (0.25, 0.0)), "centre": (1, (0.0, 0.0))},
    )
    q = np.array([0.3, -0.7, 0.4])
    block = tree_block(tree, q, extra_points=[(0, (0.1, 0.05))])
    origins = np.array([point_position(tree, q, b, (0.0, 0.0)) for b in range(3)])
    np.testing.assert_allclose(block.points[:3], origins, atol=1e-15)
    np.testing.assert_allclose(block.points[3], point_position(tree, q, 2, (0.25, 0.0)))
    np.testing.assert_allclose(block.points[5], point_position(tree, q, 0, (0.1, 0.05)))
    kinds = dict(block.cells)
    np.testing.assert_array_equal(kinds["vertex"][:, 0], [0, 1, 2])
    # tip (body 2), extra point (body 0), joint 0 -> joint 1 (body 0); not "centre", not joint 2.
    np.testing.assert_array_equal(kinds["line"], [[2, 3], [0, 5], [0, 1]])
    np.testing.assert_array_equal(block.cell_data["body"][1], [2, 0, 0])
    np.testing.assert_array_equal(block.point_data["body"], [0, 1, 2, 2, 1, 0])
    np.testing.assert_array_equal(block.point_data["joint"], [0, 1, 2, -1, -1, -1])


def test_string_block_polyline_fields():
    spec = StringSpec(
        length=1.0,
        n_elements=3,
        density=0.1,
        law=LinearElastic(EA=100.0),
        supports=(Support(0.0), Support(1.0)),
    )
    model = assemble_string(spec)
    q = model.q_ref.copy()
    q[model.position_dofs[1]] += 0.05 * np.sin(np.pi * model.nodes)  # sag the string
    q[model.position_dofs[0]] *= 1.01  # stretch it by 1 %
    block = string_block(model, q, samples_per_element=4)
    s = np.linspace(0.0, 1.0, 13)
    state = evaluate_string(model, q, s)
    np.testing.assert_allclose(block.points, state.position.T, atol=1e-15)
    np.testing.assert_allclose(block.point_data["tension"], state.tension)
    reference = evaluate_string(model, model.q_ref, s)
    np.testing.assert_allclose(
        block.point_data["displacement"], (state.position - reference.position).T, atol=1e-15
    )
    assert block.cells[0][1].shape == (12, 2)


def test_disk_block_outline_and_spoke():
    block = disk_block((0.2, -0.1), angle=0.3, radius=0.05, n=16)
    rim = block.points[:16] - [0.2, -0.1]
    np.testing.assert_allclose(np.hypot(rim[:, 0], rim[:, 1]), 0.05)
    np.testing.assert_allclose(np.arctan2(rim[0, 1], rim[0, 0]), 0.3)
    lines = block.cells[0][1]
    assert lines.shape == (17, 2) and list(lines[-1]) == [16, 0]
    with pytest.raises(ValueError, match="radius"):
        disk_block((0, 0), 0.0, -1.0)


def test_mixed_frame_with_string_and_disk(tmp_path):
    spec = StringSpec(length=1.0, n_elements=2, density=0.1, law=LinearElastic(EA=100.0))
    model = assemble_string(spec)
    with PvdWriter(tmp_path, "mixed") as writer:
        writer.write(0.0, [string_block(model, model.q_ref), disk_block((0.5, 0.3), 0.0, 0.1)])
    frame = read_frame(tmp_path / "mixed_00000.vtm")
    assert frame.keys() == ["structures", "bodies"]  # no contacts block: none was written
    string, disk = part(frame, "string"), part(frame, "disk")
    assert string.point_data["tension"].shape == (string.n_points,)
    assert string.cell_data["element"].dtype == np.int32
    np.testing.assert_array_equal(string.cell_data["element"], np.repeat([0, 1], 8))
    # no padding: the disk (a free outline) carries neither tension nor element nor body
    assert not set(disk.point_data.keys()) | set(disk.cell_data.keys())


# --- plots --------------------------------------------------------------------------------------


def test_units_from_column_names():
    assert column_unit("contact_normal_force") == "N"
    assert column_unit("pin_slip_velocity") == "m/s"
    assert column_unit("contact_gap") == "m"
    assert column_unit("contact_x") == "m"
    assert column_unit("dissipated_friction") == "J"
    assert column_unit("beam_elastic_energy") == "J"
    assert column_unit("angle [rad]") == "rad"
    assert column_unit("mystery") == ""
    assert column_unit("mystery", {"mystery": "kg"}) == "kg"


def test_plot_histories_writes_png_and_svg_with_units(run, tmp_path):
    _, result, _, _ = run
    paths = plot_histories(
        result,
        ["contact_normal_force", ["tree_kinetic_energy", "structure_elastic_energy"]],
        tmp_path / "histories.png",
    )
    assert [p.suffix for p in paths] == [".png", ".svg"]
    assert all(p.stat().st_size > 1000 for p in paths)
    svg = paths[1].read_text()
    for label in ("contact normal force [N]", "time t [s]", "[J]", "structure elastic energy"):
        assert label in svg
    with pytest.raises(ValueError, match="units"):
        plot_histories(result, [["contact_gap", "contact_normal_force"]], tmp_path / "x")
    with pytest.raises(KeyError, match="no column"):
        plot_histories(result, "nonexistent", tmp_path / "x")


def test_plot_configuration_draws_mechanism_to_scale(run, tmp_path):
    system, result, _, _ = run
    paths = plot_configuration(system, result.reports[20], tmp_path / "configuration")
    image = np.asarray(Image.open(paths[0]).convert("RGB"))
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10
    svg = paths[1].read_text()
    assert "x [m]" in svg and "force arrows: 1 N =" in svg


# --- pictures without a display -----------------------------------------------------------------


def _colours(image: np.ndarray) -> int:
    return len(np.unique(image.reshape(-1, image.shape[-1]), axis=0))


def test_scene_read_back_from_series(run):
    system, result, pvd, _ = run
    frames = frame_files(pvd)
    scene = load_scene(frames[2][1], frames[2][0])
    assert scene.time == frames[2][0]
    assert len(scene.elastic_lines) == SAMPLES * system.structures["beam"].beam.n_elements
    np.testing.assert_array_equal(
        scene.joints, np.array([0, 1]) + np.unique(scene.elastic_lines).size
    )
    np.testing.assert_allclose(
        scene.normal_force[0, 1], result.multipliers[2 * STRIDE, 0], rtol=1e-3
    )


@pytest.mark.slow
def test_offscreen_snapshot_and_animation_pyvista(run, tmp_path):
    _, _, pvd, _ = run
    assert offscreen_available(), (
        "VTK cannot render off-screen: install EGL (apt-get install libegl1 libgl1-mesa-dri) "
        "or OSMesa (libosmesa6)"
    )
    png = render_frame(pvd, tmp_path / "snapshot.png", frame=3, backend="pyvista")
    image = np.asarray(Image.open(png).convert("RGB"))
    assert image.shape == (600, 1200, 3)
    assert _colours(image) > 10
    assert has_colour(image, (0x1F, 0x77, 0xB4))  # the beam
    assert has_colour(image, (0xD6, 0x27, 0x28), tol=60)  # the normal force arrow
    # the friction arrow (mu = 0.1: 10 % of the normal one) lies along the beam, drawn in front
    assert has_colour(image, (0xFF, 0x7F, 0x0E), tol=40)
    gif = render_animation(
        pvd, tmp_path / "motion.gif", window_size=(400, 200), backend="pyvista", title="mu = 0.1"
    )
    frames = [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(Image.open(gif))]
    assert len(frames) == len(frame_files(pvd))
    assert all(_colours(f) > 5 for f in frames)
    # every frame carries the title and its time: the text band differs from an untitled frame
    # and between the first and last frames (t = 0 and t = 5 ms)
    plain = render_animation(
        pvd, tmp_path / "plain.gif", frames=[0], window_size=(400, 200), backend="pyvista"
    )
    untitled = np.asarray(Image.open(plain).convert("RGB"))
    band = (slice(0, 25), slice(0, 400))
    assert np.any(frames[0][band] != untitled[band])
    assert np.any(frames[0][band] != frames[-1][band])


def test_matplotlib_fallback_snapshot_and_animation(run, tmp_path):
    _, _, pvd, _ = run
    png = render_frame(pvd, tmp_path / "snapshot.png", backend="matplotlib")
    image = np.asarray(Image.open(png).convert("RGB"))
    assert _colours(image) > 10 and has_colour(image, (0x1F, 0x77, 0xB4))
    gif = render_animation(pvd, tmp_path / "motion.gif", frames=[0, 5, 10], backend="matplotlib")
    assert Image.open(gif).n_frames == 3
    with pytest.raises(ValueError, match="GIF"):
        render_animation(pvd, tmp_path / "motion.mp4", backend="matplotlib")
    with pytest.raises(IndexError, match="11 frames"):
        render_frame(pvd, tmp_path / "x.png", frame=11, backend="matplotlib")


def test_gif_keeps_up_to_256_flat_colours_exactly_and_the_frames_and_their_delays(tmp_path):
    """``write_gif``: 40 frames, each with its own bars of flat colours drawn from 120 in all
    (a colour of the last frame only among them, as an arrow that appears at the end), come
    back exactly (one palette, no dithering); each frame shown 1 / fps s; two equal frames in a
    row are one frame shown twice as long."""
    rng = np.random.default_rng(7)
    colours = rng.integers(0, 256, (120, 3)).astype(np.uint8)
    frames = []
    for k in range(40):
        image = np.empty((48, 64, 3), np.uint8)
        image[:] = colours[0]
        for j in range(1 + k % 4):
            image[12 * j : 12 * j + 6, 4:60] = colours[1 + (3 * k + j) % 118]
        frames.append(image)
    frames[-1][40:46, 2:10] = colours[119]
    gif = Image.open(write_gif(frames, tmp_path / "bars.gif", fps=25))
    back = [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(gif)]
    assert len(back) == 40
    for got, drawn in zip(back, frames, strict=True):
        np.testing.assert_array_equal(got, drawn)
    gif.seek(0)
    assert gif.info["duration"] == 40  # ms
    held = Image.open(write_gif([frames[0], frames[0], frames[1]], tmp_path / "held.gif", fps=25))
    assert held.n_frames == 2 and held.info["duration"] == 80
    with pytest.raises(ValueError, match="at least one frame"):
        write_gif([], tmp_path / "none.gif")
    with pytest.raises(ValueError, match="fps"):
        write_gif(frames, tmp_path / "x.gif", fps=0.0)


def test_offscreen_check_started_early_gives_the_answer_of_a_check_made_late():
    """``start_offscreen_check`` runs the check's subprocess beside what follows;
    ``offscreen_available`` then takes its answer (the same as a check of its own)."""
    from fe_contact.io import render

    render.offscreen_available.cache_clear()
    late = render.offscreen_available()
    render.offscreen_available.cache_clear()
    start_offscreen_check()
    assert render._probe is not None
    start_offscreen_check()  # running: not started twice
    assert render.offscreen_available() == late
    assert render._probe is None
    start_offscreen_check()  # answered: nothing to start
    assert render._probe is None


def test_saved_frame_reads_back_as_pyvista_saves_it(tmp_path):
    """``save_frame`` (zlib at level 1) writes the frame that pyvista's ``save`` (level 5)
    writes: the same parts, points and arrays to the bit, read by pyvista and by meshio."""
    system = _slider_on_beam()
    q = np.zeros(system.layout.n)
    q[system.layout.structure("beam")] = 1e-3 * np.arange(system.layout.n_flexible)
    frame = frame_multiblock(geometry_blocks(system, q), {"TimeValue": 0.25})
    ours = read_frame(save_frame(frame, tmp_path / "ours.vtm"))
    frame.save(tmp_path / "theirs.vtm")
    theirs = read_frame(tmp_path / "theirs.vtm")
    assert ours.keys() == theirs.keys()
    for group in ours.keys():
        a, b = ours[group], theirs[group]
        parts = zip(a, b, strict=True) if isinstance(a, pv.MultiBlock) else [(a, b)]
        for x, y in parts:
            np.testing.assert_array_equal(x.points, y.points)
            assert sorted(x.point_data.keys()) == sorted(y.point_data.keys())
            for name in x.point_data.keys():
                np.testing.assert_array_equal(x.point_data[name], y.point_data[name])
    ours_parts = sorted((tmp_path / "ours").glob("*.vtu"))
    theirs_parts = sorted((tmp_path / "theirs").glob("*.vtu"))
    assert len(ours_parts) == len(theirs_parts) > 0
    for vtu, reference in zip(ours_parts, theirs_parts, strict=True):
        np.testing.assert_array_equal(meshio.read(vtu).points, meshio.read(reference).points)
    (tmp_path / "a_file").write_text("")
    with pytest.raises(OSError, match="could not write"):
        save_frame(frame, tmp_path / "a_file" / "x.vtm")  # a file where a folder belongs


def test_beam_block_still_matches_evaluate():
    system = _slider_on_beam()
    beam = system.structures["beam"].beam
    u = static_deflection(beam, self_weight(beam))
    block = beam_block(beam, u, samples_per_element=3)
    np.testing.assert_allclose(
        block.points[:, 1], beam_fields(beam, u, block.points[:, 0]).deflection, atol=1e-15
    )


# --- any System: two structures, circle profiles, open contacts (hand-made reports) -------------

RADIUS = 0.05  # m, the disk


def _beam_string_disk():
    """A disk (floating body) between a cantilever above and a string below: two structures."""
    beam = BeamSpec(
        length=0.4,
        n_elements=3,
        youngs_modulus=2.1e11,
        density=4.7e3,
        width=0.01,
        height=0.0015,
        origin=(0.0, 0.12),
    )
    string = StringSpec(
        length=0.5,
        n_elements=4,
        density=0.1,
        law=LinearElastic(EA=100.0),
        supports=(Support(0.0), Support(0.5)),
    )
    contacts = (
        ContactPair("top", Circle(2, RADIUS), "beam", Unilateral(0.2), side=-1),
        ContactPair(
            "bottom", Circle(2, RADIUS), "string", Unilateral(0.2), search="grid", n_candidates=6
        ),
    )
    tree = floating_body(0.01, 0.5 * 0.01 * RADIUS**2)
    return assemble(
        Model(tree=tree, structures={"beam": beam, "string": string}, contacts=contacts)
    )


def _closed(name, points, normal_force, friction_force, angle):
    """A ContactReport with its points on a line at ``angle`` rad (normals turned by +90 deg)."""
    k = len(points)
    tangent = np.tile([np.cos(angle), np.sin(angle)], (k, 1))
    fn, ft = np.asarray(normal_force, float), np.asarray(friction_force, float)
    return ContactReport(
        name=name,
        state="slip",
        point=np.asarray(points, float),
        normal=tangent @ np.array([[0.0, 1.0], [-1.0, 0.0]]),
        tangent=tangent,
        parameter=np.asarray(points, float)[:, 0],
        gap=np.linspace(-2e-6, -1e-6, k),
        slip_velocity=np.full(k, 0.03),
        normal_force=fn,
        friction_force=ft,
        normal_impulse=1e-3 * fn,
        friction_impulse=1e-3 * ft,
        min_gap=-2e-6,
    )


def _report(t, q, contacts):
    return StepReport(
        t=t,
        q=q,
        u=np.zeros_like(q),
        contacts=tuple(contacts),
        drive_forces=np.zeros(0),
        multipliers=np.zeros(0),
        work=no_work(),
    )


def test_frames_of_two_structures_and_open_contacts_keep_their_blocks(tmp_path):
    """A beam and a string are two polylines at the structures' positions; the disk is an outline
    of its body; the contact vertices come from the report; a frame with every contact open has
    an empty contacts block (no made-up zeros), and every frame has the same named blocks."""
    system = _beam_string_disk()
    rng = np.random.default_rng(1)
    q, _ = system.initial_state([0.2, 0.05, 0.4])
    q[system.layout.flexible] += 1e-3 * rng.standard_normal(system.layout.n_flexible)
    top = _closed("top", [[0.19, 0.12], [0.21, 0.121]], [0.3, 0.1], [-0.06, 0.02], 0.01)
    bottom = _closed("bottom", [[0.2, 0.0]], [0.5], [0.1], -0.02)
    reports = [
        _report(0.0, q, [open_contact("top", 0.01), open_contact("bottom", 0.02)]),
        _report(0.1, q, [top, open_contact("bottom", 0.02)]),
        _report(0.2, q, [top, bottom]),
    ]
    with PvdWriter(tmp_path, "mixed") as writer:
        for r in reports:
            writer.write(r.t, frame_blocks(system, r, samples_per_element=SAMPLES))
    frames = [read_frame(path) for _, path in frame_files(writer.pvd_path)]
    names = [b.name for b in frame_blocks(system, reports[0])]
    assert names == ["beam", "string", "tree", "top_profile", "bottom_profile", "contacts"]
    for frame in frames:
        assert frame.keys() == ["structures", "bodies", "contacts"]
        assert frame["structures"].keys() == ["beam", "string"]
        assert frame["bodies"].keys() == ["tree", "top_profile", "bottom_profile"]
    frame = frames[0]
    for name in ("beam", "string"):
        mesh = part(frame, name)
        structure = system.structures[name]
        s = np.linspace(0.0, structure.length, SAMPLES * (len(structure.nodes) - 1) + 1)
        expected = structure.positions(s, q[system.layout.structure(name)])
        np.testing.assert_allclose(mesh.points[:, :2], expected, rtol=0, atol=1e-14)
        assert "body" not in mesh.point_data
    string = system.structures["string"]
    state = evaluate_string(string.string, string.full(q[system.layout.structure("string")]), s)
    written = part(frame, "string").point_data
    # T = EA (nu - 1): the writer samples s as node + le t, this test by linspace, an ulp apart;
    # the stretch nu ~ 1 then differs by a few ulp and T by EA times that (EA = 100 N here), which
    # is 1e-12 of a tension near zero (4.4e-14 N of -0.042 N measured): 16 eps EA absolute.
    np.testing.assert_allclose(
        written["tension"], state.tension, rtol=1e-12, atol=16 * np.finfo(float).eps * 100.0
    )
    assert "bending_moment" not in written and "tension" not in part(frame, "beam").point_data
    for name in ("top_profile", "bottom_profile"):  # the disk's outline turns with its body
        mesh = part(frame, name)
        rim = mesh.points[:-1, :2] - q[:2]
        np.testing.assert_allclose(np.hypot(*rim.T), RADIUS, rtol=1e-12)
        assert np.arctan2(rim[0, 1], rim[0, 0]) == pytest.approx(q[2], rel=1e-12)
        np.testing.assert_array_equal(mesh.point_data["body"], 2)
    # the carriers of the floating body are not drawn: one joint vertex, at the disk's centre
    tree = part(frame, "tree")
    (joint,) = cells(tree, "vertex")[:, 0]
    np.testing.assert_allclose(tree.points[joint, :2], q[:2], atol=1e-15)
    contacts = [part(f, "contacts") for f in frames]
    assert contacts[0] is None or contacts[0].n_points == 0  # all open: an empty block
    assert [c.n_points for c in contacts[1:]] == [2, 3]
    data, points = contacts[2].point_data, contacts[2].points
    np.testing.assert_array_equal(data["contact"], [0, 0, 1])
    assert data["contact"].dtype == data["state"].dtype == np.int32
    for c, rows in ((top, slice(0, 2)), (bottom, slice(2, 3))):
        np.testing.assert_array_equal(points[rows, :2], c.point)
        fn, ft = c.normal_force[:, None] * c.normal, c.friction_force[:, None] * c.tangent
        np.testing.assert_allclose(data["normal_force"][rows, :2], fn, rtol=1e-15)
        np.testing.assert_allclose(data["friction_force"][rows, :2], ft, rtol=1e-15)
        np.testing.assert_allclose(data["contact_force"][rows, :2], fn + ft, rtol=1e-15)
        np.testing.assert_array_equal(data["gap"][rows], c.gap)
        np.testing.assert_array_equal(data["slip_velocity"][rows], c.slip_velocity)
    reader = pv.get_reader(str(writer.pvd_path))
    np.testing.assert_array_equal(reader.time_values, [0.0, 0.1, 0.2])
    arrays = []
    for k in (1, 2):
        reader.set_active_time_point(k)
        arrays.append(sorted(part(reader.read()[0], "contacts").point_data.keys()))
    assert arrays[0] == arrays[1]


def test_geometry_needs_the_whole_state(tmp_path):
    system = _beam_string_disk()
    with pytest.raises(ValueError, match="coordinates"):
        geometry_blocks(system, np.zeros(3))
    with pytest.raises(ValueError, match="samples_per_element"):
        VtkObserver(tmp_path, samples_per_element=0)


def test_configuration_from_coordinates_and_a_rigid_line(tmp_path):
    system = _beam_string_disk()
    q, _ = system.initial_state([0.2, 0.05, 0.4])
    paths = plot_configuration(system, q, tmp_path / "mixed")
    svg = paths[1].read_text()
    assert "beam" in svg and "string" in svg and "force arrows" not in svg
    model = Model(
        tree=floating_body(1.0, 0.01),
        contacts=(ContactPair("disk", Circle(2, 0.1), Line((0, 0), (0, 1)), Unilateral()),),
    )
    bounce = assemble(model)
    paths = plot_configuration(bounce, bounce.initial_state([0.0, 0.3, 0.0])[0], tmp_path / "b")
    image = np.asarray(Image.open(paths[0]).convert("RGB"))
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10


def test_units_are_those_of_the_history_columns(run, tmp_path):
    system = _beam_string_disk()
    driven = Model(
        tree=system.model.tree,
        structures=system.model.structures,
        contacts=system.model.contacts,
        drives=(Drive.constant_velocity(0, 0.0, 0.1),),
    )
    columns = history_columns(assemble(driven))
    # joint 0 of the floating disk is its prismatic x: its drive holds a force
    assert driven.tree.joints[0].kind == "prismatic"
    assert ("drive_0_force", "N") in columns
    joints = {name for name, _ in joint_and_sensor_columns(driven, driven.tree)}
    for name, unit in columns:
        if name.startswith("drive_"):  # the name alone cannot tell a torque from a force
            assert column_unit(name) == "N m or N" and column_unit(name, dict(columns)) == unit
        elif name in joints:  # nor the name of a joint column an angle from a length
            assert column_unit(name, dict(columns)) == unit
        else:
            assert column_unit(name) == unit, name
    _, result, _, _ = run
    history = {"t": result.t, **result.columns}
    paths = plot_histories(
        history, ["contact_normal_impulse", "contact_parameter"], tmp_path / "h", system=run[0]
    )
    svg = paths[1].read_text()
    assert "contact normal impulse [N s]" in svg and "contact parameter [m]" in svg


def test_blocks_are_checked_and_named_within_their_group(tmp_path):
    """A structure may be called "tree" (the blocks are named within their group); a group
    outside structures/bodies/contacts or two parts of one name in a group are refused."""
    spec = StringSpec(length=1.0, n_elements=2, density=0.1, law=LinearElastic(EA=100.0))
    model = assemble_string(spec)
    disk = disk_block((0.5, 0.3), 0.0, 0.1, name="tree", body=0)
    with PvdWriter(tmp_path, "named") as writer:
        writer.write(0.0, [string_block(model, model.q_ref, name="tree"), disk])
    frame = read_frame(tmp_path / "named_00000.vtm")
    assert frame["structures"].keys() == ["tree"] and frame["bodies"].keys() == ["tree"]
    assert "tension" in frame["structures"]["tree"].point_data
    np.testing.assert_array_equal(frame["bodies"]["tree"].point_data["body"], 0)
    with pytest.raises(ValueError, match="group must be one of"):
        Block("x", np.zeros((1, 2)), [("vertex", [[0]])], {}, group="parts")
    twice = [string_block(model, model.q_ref), string_block(model, model.q_ref)]
    with pytest.raises(ValueError, match="structures blocks of a frame need distinct names"):
        PvdWriter(tmp_path, "twice").write(0.0, twice)


def test_read_series_lists_the_frames_and_refuses_an_empty_index(run, tmp_path):
    """pyvista's PVD reader lists the frames as the index does (parsed here with ElementTree);
    an index without frames is a clear error."""
    _, _, pvd, _ = run
    assert read_series(pvd) == frame_files(pvd)
    PvdIndex(tmp_path / "empty.pvd")
    with pytest.raises(ValueError, match="lists no frames"):
        read_series(tmp_path / "empty.pvd")


def test_supports_scale_bar_and_axes_in_the_pictures(run, tmp_path):
    """A beam's supported ends are vertices of its block with their kind (``SUPPORT_CODES``)
    and the element they end; ``load_scene`` reads them back with the direction into the beam,
    and the picture draws the clamp (dark strokes left of the beam's root, where nothing else
    is drawn), the scale bar and the axes."""
    pinned = assemble_beam(
        BeamSpec(
            length=2.0,
            n_elements=5,
            youngs_modulus=2e11,
            density=7800.0,
            width=0.01,
            height=0.01,
            left="pinned",
            right="pinned",
        )
    )
    block = beam_block(pinned, np.zeros(pinned.n_dofs), samples_per_element=4)
    ((kind, vertices),) = [c for c in block.cells if c[0] == "vertex"]
    np.testing.assert_array_equal(np.ravel(vertices), [0, 20])  # the two ends of 5 x 4 segments
    support = block.cell_data["support"]
    assert support[0].tolist() == [0] * 20 and support[1].tolist() == [1, 1]
    assert block.cell_data["element"][1].tolist() == [0, 4]
    assert SUPPORT_CODES == {"free": 0, "pinned": 1, "clamped": 2}

    system, _, pvd, _ = run
    t, frame = frame_files(pvd)[-1]
    scene = load_scene(frame, t)
    assert scene.support_kinds.tolist() == [2]  # the cantilever's clamp at x = 0
    np.testing.assert_allclose(scene.points[scene.supports[0]], [0.0, 0.0], atol=1e-12)
    # into the beam along x: the first chord from the clamp, whose slope is below the beam's
    # largest slope (about 1e-3 rad under the slider's weight here)
    np.testing.assert_allclose(scene.support_tangents[0], [1.0, 0.0], atol=5e-3)
    png = render_frame(pvd, tmp_path / "marks.png", backend="matplotlib")
    image = np.asarray(Image.open(png).convert("RGB")).astype(int)
    blue = np.argwhere(np.all(np.abs(image - (0x1F, 0x77, 0xB4)) < 30, axis=2))
    root_row, root_col = blue[np.argmin(blue[:, 1])]
    dark = np.all(image < 80, axis=2)
    assert dark[root_row - 40 : root_row + 40, : root_col - 2].sum() > 20  # the clamp's strokes
    assert dark[-120:, :400].sum() > 100  # the scale bar, its label and the axes, lower left
