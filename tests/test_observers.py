"""Observers on a Moreau-Jean run (a disk dropped onto a cantilever): the ParaView series and
the CSV written live equal what is written afterwards from the result, a failing run leaves a
valid series, and progress is reported without a terminal."""

import numpy as np
import pytest
import pyvista as pv
from PIL import Image
from series import cells, frame_files, has_colour, part

from fe_contact import (
    BeamSpec,
    Circle,
    ContactPair,
    Model,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)
from fe_contact.io.render import load_scene, render_frame
from fe_contact.io.vtk import (
    write_pvd,
)
from fe_contact.steppers.observers import CsvObserver, ProgressObserver, VtkObserver
from fe_contact.steppers.result import (
    history_columns,
    read_history,
)

pv.OFF_SCREEN = True

RADIUS = 0.05  # m, the disk


# --- observers on a Moreau-Jean run: a disk dropped onto a cantilever ---------------------------


def _disk_on_beam():
    beam = BeamSpec(
        length=0.4,
        n_elements=4,
        youngs_modulus=2.1e11,
        density=4.7e3,
        width=0.01,
        height=0.0015,
    )
    mass = 0.1 * np.pi * RADIUS**2
    model = Model(
        tree=floating_body(mass, 0.5 * mass * RADIUS**2),
        structures={"beam": beam},
        contacts=(ContactPair("disk", Circle(2, RADIUS), "beam", Unilateral(0.2)),),
    )
    system = assemble(model)
    return system, system.initial_state([0.1, RADIUS + 0.005, 0.0], [0.3, 0.0, 0.0])


@pytest.fixture(scope="module")
def moreau_run(tmp_path_factory):
    """Falls 5 mm, lands after ~35 ms and bounces: open and closed frames in one series."""
    system, y0 = _disk_on_beam()
    out = tmp_path_factory.mktemp("moreau")
    observers = [
        CsvObserver(out / "history.csv"),
        VtkObserver(out / "live", stride=7),
        ProgressObserver("disk"),
    ]
    result = simulate(
        system, (0.0, 0.06), y0, method="moreau", h=1e-3, keep_reports=True, observers=observers
    )
    assert result.status == "finished", result.message
    write_pvd(result, system, out / "after", stride=7)
    return system, result, out


def test_moreau_series_live_equals_afterwards(moreau_run):
    system, result, out = moreau_run
    live, after = frame_files(out / "live/frames.pvd"), frame_files(out / "after/frames.pvd")
    rows = [*range(0, len(result.t), 7), len(result.t) - 1]  # 60 steps: the last is written
    np.testing.assert_array_equal([t for t, _ in live], result.t[rows])
    np.testing.assert_array_equal([t for t, _ in after], result.t[rows])
    n_closed = []
    for (_, a_path), (_, b_path), k in zip(live, after, rows, strict=True):
        for name in ("beam", "tree", "disk_profile", "contacts"):
            a, b = part(a_path, name), part(b_path, name)
            if a is None or b is None:  # an empty block (all contacts open) has no file
                assert name == "contacts" and a is b is None
                continue
            np.testing.assert_array_equal(a.points, b.points)
            assert sorted(a.point_data.keys()) == sorted(b.point_data.keys())
            for key in a.point_data.keys():
                np.testing.assert_array_equal(a.point_data[key], b.point_data[key])
        contacts = part(a_path, "contacts")
        if contacts is None:
            n_closed.append(0)
            assert result["disk_normal_force"][k] == 0.0  # open: no force, none written
            continue
        closed = cells(contacts, "vertex")[contacts.point_data["contact"] == 0, 0]
        n_closed.append(len(closed))
        normal = np.linalg.norm(contacts.point_data["normal_force"][closed], axis=1)
        assert np.sum(normal) == pytest.approx(result["disk_normal_force"][k], rel=1e-12)
    assert 0 in n_closed and max(n_closed) > 0  # frames with the contact open and closed
    written = [part(p, "contacts") for _, p in live]
    assert len({tuple(sorted(c.point_data.keys())) for c in written if c is not None}) == 1


def test_csv_observer_writes_the_result_columns(moreau_run):
    system, result, out = moreau_run
    header = (out / "history.csv").read_text().splitlines()[0].split(",")
    assert header == [f"{n} [{u}]" if u else n for n, u in history_columns(system)]
    history = read_history(out / "history.csv")
    for name, values in result.columns.items():
        if values.dtype.kind in "US":  # the contact states
            np.testing.assert_array_equal(history[name], values)
        else:
            np.testing.assert_array_equal(history[name], values.astype(float))


def test_render_draws_the_disk_as_a_body(moreau_run, tmp_path):
    system, result, out = moreau_run
    frames = frame_files(out / "live/frames.pvd")
    scene = load_scene(frames[-1][1], frames[-1][0])
    assert len(scene.elastic_lines) == 8 * 4  # the beam only
    assert len(scene.body_lines) == 48 + 1  # the disk's rim and spoke
    png = render_frame(out / "live/frames.pvd", tmp_path / "disk.png", backend="matplotlib")
    image = np.asarray(Image.open(png).convert("RGB"))
    assert has_colour(image, (0x1F, 0x77, 0xB4)) and has_colour(image, (0x26, 0x26, 0x26))


def test_failed_run_leaves_a_valid_series_and_history(tmp_path):
    """The contact solver gives up when the disk lands (one sweep allowed): the series and the
    CSV end at the last state computed, and pyvista reads them."""
    system, y0 = _disk_on_beam()
    observers = [CsvObserver(tmp_path / "history.csv"), VtkObserver(tmp_path, stride=10)]
    result = simulate(
        system, (0.0, 0.06), y0, method="moreau", h=1e-3, max_iterations=1, observers=observers
    )
    assert result.status == "failed" and "did not converge" in result.message
    assert 10 < len(result.t) < 61
    reader = pv.get_reader(str(tmp_path / "frames.pvd"))
    times = np.asarray(reader.time_values)
    rows = [*range(0, len(result.t), 10), len(result.t) - 1]
    np.testing.assert_array_equal(times, result.t[sorted(set(rows))])
    reader.set_active_time_point(len(times) - 1)
    assert part(reader.read()[0], "beam").n_points > 0
    np.testing.assert_array_equal(read_history(tmp_path / "history.csv")["t"], result.t)


def test_progress_lines_without_a_terminal(capsys):
    class _At:
        def __init__(self, t):
            self.t = t

    progress = ProgressObserver("run")
    progress.start(None, 20)
    for k in range(21):  # the initial state and 20 steps
        progress(None, _At(0.1 * k), {})
    progress.close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 10 and lines[-1].startswith("run: t = 2 s, step 20/20 (100 %")
    progress.start(None, 20)
    for k in range(6):
        progress(None, _At(0.1 * k), {})
    progress.close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and lines[-1].startswith("run: stopped at t = 0.5 s, step 5/20")


def test_runs_use_one_blas_thread_unless_told():
    """The small matrices of a step are solved on one BLAS thread during a run (threadpoolctl),
    whatever the process's setting; threads=None leaves the process's setting alone; the
    setting is restored after the run."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}

    system, y0 = _disk_on_beam()
    seen = []

    def observer(system, report, row):
        seen.append(blas_threads())

    with threadpool_limits(limits=2, user_api="blas"):
        outside = blas_threads()
        assert outside == {2}  # so that the run's single thread is a change (a 2-core machine)
        simulate(system, (0.0, 0.002), y0, method="moreau", h=1e-3, observers=[observer])
        assert blas_threads() == outside
        inside = seen[-1]
        seen.clear()
        simulate(
            system, (0.0, 0.002), y0, method="moreau", h=1e-3, observers=[observer], threads=None
        )
    assert inside == {1}
    assert seen[-1] == outside
    with pytest.raises(ValueError, match="simulate.threads"):
        simulate(system, (0.0, 0.002), y0, method="moreau", h=1e-3, threads=0)
