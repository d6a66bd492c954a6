"""``fe-contact demo pantograph`` on a coarse one-span line: its files, its summary against the
statistics it returns, its energy balance, and its refusals of bad options."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from fe_contact.cli import main as cli_main
from fe_contact.demos import pantograph as demo


@pytest.fixture(scope="module")
def coarse(tmp_path_factory):
    """One span, 5 m elements, 250 km/h, penalty contact, 2 ms steps (0.63 s, 316 steps)."""
    out = tmp_path_factory.mktemp("pantograph")
    run, system, result, stats = demo.run_speed(
        out, 250.0, n_spans=1, contact="penalty", max_element_length=5.0, h=2e-3, progress=False
    )
    return out, run, system, result, stats


@pytest.mark.slow  # the coarse run with its files: ~10 s alone, more on a busy machine
def test_demo_writes_its_files_and_the_summary_holds_its_statistics(coarse):
    out, _, _, result, stats = coarse
    for name in ("history.csv", "frames.pvd", "summary.csv", "contact_force.png", "uplift.png"):
        assert (out / name).is_file(), name
    with (out / "summary.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and rows[0]["speed_kmh"] == "250"
    # written with 6 significant digits: 1e-5 relative
    assert float(rows[0]["mean"]) == pytest.approx(stats.mean, rel=1e-5)
    assert float(rows[0]["std"]) == pytest.approx(stats.std, rel=1e-5)
    assert (float(rows[0]["std_low"]), float(rows[0]["std_high"])) == (26.0, 31.0)
    assert result.success


@pytest.mark.slow  # the coarse run with its files: ~10 s alone, more on a busy machine
def test_demo_run_balances_its_energy(coarse):
    """At 250 km/h the drive's work, the contact's stored energy, the dampers' loss (the
    pantograph's and the wires' Rayleigh damping: 2.2 J) and the motion close the balance to
    5e-4 of the largest elastic energy (measured 3.4e-4: 0.075 J of 219 J; rho_inf = 1, no
    friction). The remainder is the trapezoidal rule's O(h^2) booking of a head that crosses
    the 5 m elements' kinks at 0.139 m per step: halving h divides it by 3.0
    (docs/details/pantograph.md); at 1 m/s it is 4e-8 (tests/test_pantograph.py)."""
    _, _, _, result, _ = coarse
    scale = float(np.max(np.abs(result["elastic_energy"])))
    assert np.max(np.abs(result["energy_error"])) < 5e-4 * scale
    # the penalty law: the force is k times the penetration while in contact
    gap, force = result["head_gap"][1:], result["head_normal_force"][1:]
    closed = gap < 0.0
    assert np.allclose(force[closed], -50e3 * gap[closed], rtol=1e-9, atol=0.0)
    assert np.all(force[~closed] == 0.0)


@pytest.mark.slow  # the coarse run with its files: ~10 s alone, more on a busy machine
def test_table_marks_values_outside_the_ranges(coarse):
    *_, stats = coarse
    text = demo.table({250.0: stats})
    assert "EN 50318: [110, 120]" in text
    assert "ok" in text or "OUT" in text


@pytest.mark.parametrize(
    ("option", "value"), [("--contact", "soft"), ("--speed", "-3"), ("--spans", "0")]
)
def test_demo_refuses_bad_options(option, value, tmp_path, capsys):
    out = str(tmp_path / "o")
    assert cli_main(["demo", "pantograph", option, value, "--out", out]) == 2
    assert option in capsys.readouterr().err
