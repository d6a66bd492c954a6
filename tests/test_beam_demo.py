"""The beam demo and the ParaView writer it uses: physics read back from the written files."""

import meshio
import numpy as np
import pytest
import pyvista as pv

from fe_contact.cli import main as cli_main
from fe_contact.demos.beam_modes import MANIPULATOR_BEAM, run
from fe_contact.elements.beam import assemble_beam, beam_fields, self_weight, static_deflection
from fe_contact.io.vtk import PvdWriter, beam_block


def test_demo_frequencies_and_files(tmp_path):
    result = run(tmp_path, n_modes=3, plot=False)
    # Analytic Euler-Bernoulli values from the characteristic equation, 1e-3 with 10 elements.
    np.testing.assert_allclose(result.omega, result.omega_exact, rtol=1e-3)
    q = MANIPULATOR_BEAM.mass_per_length * 9.81
    exact_tip = -q * MANIPULATOR_BEAM.length**4 / (8 * MANIPULATOR_BEAM.bending_stiffness)
    assert result.tip_deflection_self_weight == pytest.approx(exact_tip, rel=1e-9)
    reader = pv.get_reader(str(tmp_path / "mode_1.pvd"))
    assert len(reader.time_values) == 25
    period = 2 * np.pi / result.omega[0]
    assert reader.time_values[-1] == pytest.approx(period, rel=1e-12)


def test_written_beam_points_equal_evaluated_deflection(tmp_path):
    beam = assemble_beam(MANIPULATOR_BEAM)
    u = static_deflection(beam, self_weight(beam))
    with PvdWriter(tmp_path, "w") as writer:
        writer.write(0.5, [beam_block(beam, u, samples_per_element=5)])
    mesh = meshio.read(tmp_path / "w_00000" / "w_00000_0.vtu")  # the beam: part 0 of frame 0
    x = mesh.points[:, 0]
    w = beam_fields(beam, u, x).deflection
    np.testing.assert_allclose(mesh.points[:, 1], w, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        mesh.point_data["bending_moment"],
        MANIPULATOR_BEAM.bending_stiffness * beam_fields(beam, u, x).curvature,
        rtol=1e-12,
        atol=1e-14,
    )
    assert len(x) == 10 * 5 + 1
    assert mesh.cell_data["element"][0].max() == 9


def test_pvd_stride_and_index_valid_after_each_frame(tmp_path):
    beam = assemble_beam(MANIPULATOR_BEAM)
    writer = PvdWriter(tmp_path, "s", stride=2)
    for k in range(5):
        writer.write(0.1 * k, [beam_block(beam, np.zeros(beam.n_dofs))])
        reader = pv.get_reader(str(writer.pvd_path))
        assert len(reader.time_values) == k // 2 + 1  # valid index after every frame
    np.testing.assert_allclose(reader.time_values, [0.0, 0.2, 0.4])


def test_cli_runs_beam_demo(tmp_path, capsys):
    assert cli_main(["demo", "beam", "--out", str(tmp_path), "--modes", "2"]) == 0
    assert "63.60" in capsys.readouterr().out  # first frequency, MISSION: 63.6 rad/s
    assert (tmp_path / "modes.png").stat().st_size > 0


def test_cli_rejects_unknown_demo(capsys):
    assert cli_main(["demo", "nonexistent"]) == 2
    assert "unknown demo" in capsys.readouterr().err
