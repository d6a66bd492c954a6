"""Every demo that writes a ``model.toml`` beside its ``history.csv`` wrote the run it made:
``fe-contact run`` of that file gives the same history, column by column (short runs; the
manipulator's case is in test_cli)."""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact.cli import main
from fe_contact.steppers.result import read_history

EPS = np.finfo(float).eps


def run_sliding_mass(out):
    from fe_contact.demos import sliding_mass

    sliding_mass.run(mu=0.2, t_end=0.005, out=out, progress=False)
    return out


def run_friction_oscillator(out):
    from fe_contact.demos import friction_oscillator

    friction_oscillator.run(friction_oscillator.Oscillator(), t_end=0.05, out=out)
    return out


def run_slider_on_string(out):
    from fe_contact.demos import slider_on_string

    slider_on_string.run(out, t_end=0.008, vtk_every=0.0, progress=False, plot=False)
    return out


def run_disk_on_beam(out):
    from fe_contact.demos import disk_on_beam

    disk_on_beam.run(out, t_end=0.02, vtk_every=0.0, progress=False, plot=False)
    return out


def run_disk_on_string(out):
    from fe_contact.demos import disk_on_string

    disk_on_string.run(1, t_end=0.02, out=out, plot=False, vtk_stride=None)
    return out / "example1"


def run_pantograph(out):
    from fe_contact.demos import pantograph

    # one span of 5 m elements at 250 km/h, penalty contact: 316 steps of 2 ms
    pantograph.run_speed(
        out, 250.0, n_spans=1, contact="penalty", max_element_length=5.0, h=2e-3,
        vtk_every=None, progress=False, plot=False,
    )  # fmt: skip
    return out


DEMOS = {
    "sliding_mass": run_sliding_mass,
    "friction_oscillator": run_friction_oscillator,
    "slider_on_string": run_slider_on_string,
    "disk_on_beam": run_disk_on_beam,
    "disk_on_string": run_disk_on_string,
    "pantograph": run_pantograph,
}
# columns a demo adds to its history after the run (from the result, not a stepper's report)
ADDED = {"friction_oscillator": {"x", "velocity"}}


@pytest.mark.parametrize("name", list(DEMOS))
def test_a_demos_model_file_runs_to_the_demos_history(name, tmp_path):
    folder = DEMOS[name](tmp_path / "demo")
    out = tmp_path / "run"
    assert main(["run", str(folder / "model.toml"), "--out", str(out), "-q"]) == 0
    demo, ran = read_history(folder / "history.csv"), read_history(out / "history.csv")
    assert set(demo) - set(ran) == ADDED.get(name, set())
    assert set(ran) <= set(demo)
    assert ran["t"].size == demo["t"].size > 5
    for column, values in ran.items():
        expected = demo[column]
        if values.dtype.kind != "f":
            assert list(values) == list(expected), column
            continue
        # the same model, state and stepper settings (the file keeps every digit) through the
        # same code: equal but for a threaded BLAS summing in another order, a few eps of the
        # column's largest magnitude (16 eps bounds it); NaN (what a row does not have, such
        # as the slip of an open contact) in the same rows
        assert np.array_equal(np.isnan(values), np.isnan(expected)), column
        values, expected = values[~np.isnan(values)], expected[~np.isnan(expected)]
        scale = float(np.max(np.abs(expected), initial=0.0))
        assert np.max(np.abs(values - expected), initial=0.0) <= 16 * EPS * scale, column
