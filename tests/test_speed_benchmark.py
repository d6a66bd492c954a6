"""``benchmarks/speed.py`` runs (a quick cheap case) and prints the issue's target ratio with the
compiled / Python-step counts, so that the benchmark cannot silently break again. No timing is
asserted: the figures depend on the machine and its load."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def speed(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import speed

    return speed


def test_quick_run_prints_the_target_ratio_and_the_step_counts(speed, tmp_path, capsys):
    argv = ["--quick", "--no-exudyn", "--parts", "cases", "--cases", "1000 elements"]
    assert speed.main([*argv, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "** sliding point 1000: time per step, 1000 elements:" in out
    assert "target <= 150 us, ratio on CPU" in out
    with open(tmp_path / "targets_quick.csv", newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["met"] in ("met", "missed")
    assert float(row["ratio to target"]) == pytest.approx(float(row["CPU"]) / 150.0, rel=1e-12)
    # every step of the frictionless slide on the beam runs compiled: nothing leaves the beam
    assert row["step path"] == "compiled"
    assert int(row["compiled"]) == int(row["n_substeps"]) >= int(row["n_steps"]) == 20
    assert int(row["python"]) == 0 and int(row["fell back"]) == 0
    with open(tmp_path / "speed.csv", newline="") as fh:
        (case,) = list(csv.DictReader(fh))
    # the own error at h = 1 ms (Richardson estimate from the run at h/2): a small fraction
    # (1 %) of the 1 cm the mass slides in 0.02 s at 0.5 m/s; a broken h/2 run would not be
    assert 0.0 < float(case["own error"]) < 1e-4


def test_a_missed_target_reads_as_the_factor_to_gain(speed, capsys):
    """The ratio is CPU / target for a cost, target / CPU for a speed-up (Exudyn's)."""
    slow = speed.target_row("slider on string", 4.0, 1.0, None)
    assert slow["ratio to target"] == pytest.approx(5.0, rel=1e-12)  # 1.0 s/s against 0.2
    assert slow["met"] == "missed"
    fast = speed.target_row("exudyn", 40.0, 20.0, None)
    assert fast["ratio to target"] == pytest.approx(0.5, rel=1e-12)  # 20x against >= 10x
    assert fast["met"] == "met"
    assert "ratio on CPU 5 (missed)" in capsys.readouterr().out


def test_the_cam_locks_estimate_never_takes_the_measured_rows_name(speed, monkeypatch):
    """Run alone, the windows' estimate of the cam lock replaced the measured demo's row of the
    table under the same name (two figures, one name): its rows now say they are estimates.
    The measurements are stood in for (their figures are not what is checked here)."""
    import speed_rows
    import speed_targets

    window = {"window [s]": (0.0, 0.01), "CPU per step [us]": 1.0, "steps": 1, "substeps": 1}
    counts = {"step path": "compiled", "n_steps": 1, "n_substeps": 1, "compiled": 1}
    counts |= {"python": 0, "fell back": 0}
    estimate = {"per case": {0: {"open": window}}, "counts": counts, "measured steps": 1}
    for key in ("measured wall [s]", "measured CPU [s]", "estimated per step wall [us]"):
        estimate[key] = 1.0
    for key in ("estimated per step CPU [us]", "estimated demo wall [s]"):
        estimate[key] = 1.0
    estimate["estimated demo CPU [s]"] = 1.0
    case = {"process CPU [s]": 1.0, "status": "finished", "n_substeps": 1, "python": 0}
    whole = {"per case": {0: case}, "t_end [s]": 2.0, "run_case CPU [s]": 1.0, "counts": counts}
    whole |= {"wall [s]": 1.0, "CPU [s]": 1.0}
    monkeypatch.setattr(speed_rows, "cam_lock", lambda quick=False: estimate)
    monkeypatch.setattr(speed_rows, "cam_lock_whole", lambda t_end=None: whole)
    estimated = {r["row"] for r in speed_targets.run_cam_lock(False)}
    measured = {r["row"] for r in speed_targets.run_cam_lock(False, whole=True)}
    assert measured == {"cam-lock demo", "cam-lock per step (whole demo)"}
    assert not estimated & measured and all("estimate" in r for r in estimated)


def test_a_part_run_alone_replaces_its_rows_in_place(speed, tmp_path):
    """A part measured alone (``--parts cases --cases disk``) updates its rows where they stand
    and keeps the others' (before, the cases' table kept only the measured row and the targets'
    table moved it to the end)."""
    path = tmp_path / "table.csv"
    speed.write_csv([{"case": c, "value": "old"} for c in ("a", "b", "c")], path)
    speed.merge_csv([{"case": "b", "value": "new"}, {"case": "d", "value": "new"}], path, "case")
    with open(path, newline="") as fh:
        rows = [(r["case"], r["value"]) for r in csv.DictReader(fh)]
    assert rows == [("a", "old"), ("b", "new"), ("c", "old"), ("d", "new")]


def test_demo_paths_part_names_the_step_path_and_why_the_python_step_runs(speed, tmp_path):
    argv = ["--no-exudyn", "--parts", "demos", "--cases", "sliding-mass", "plot_two_beams"]
    assert speed.main([*argv, "--out", str(tmp_path)]) == 0
    with open(tmp_path / "demo_paths.csv", newline="") as fh:
        rows = {r["model"]: r for r in csv.DictReader(fh)}
    # the frictionless slide on the beam: every sub-step compiled, no reason given
    slide = rows["demo sliding-mass"]
    assert (slide["method"], slide["step path"], slide["python step reason"]) == (
        "generalized-alpha",
        "compiled",
        "",
    )
    assert int(slide["n_compiled"]) == int(slide["n_substeps"]) >= int(slide["steps"]) > 0
    # two cantilevers pressed together, no rigid body: Moreau-Jean's compiled sub-step takes
    # them (an empty tree, the two beams one block, the pad's profile on b's centre line)
    beams = rows["examples/plot_two_beams.py"]
    assert (beams["method"], beams["step path"]) == ("moreau", "compiled")
    assert int(beams["n_compiled"]) == int(beams["n_substeps"]) > 0 and int(beams["n_python"]) == 0
    assert beams["python step reason"] == ""
    # a demo without time stepping is listed with what it computes instead
    assert "no time stepping" in rows["demo beam"]["status"]


def test_agreement_forces_the_python_step_and_compares_the_runs(monkeypatch):
    """``benchmarks/agreement.py``: inside ``python_steps`` a run that takes the compiled step
    takes none, and ``compare`` of the two runs of the sliding mass (10 elements, 0.05 s, the
    compiled step reproduces the Python one to round-off: the coordinates to 1e-12 of their
    largest value, the rates, the Newton iterations' tolerance amplified by the beam's
    stiffness, to 1e-8) finds the same grid and a difference of that size; a run shifted by
    1 mm is reported so."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import agreement

    from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
    from fe_contact.steppers.simulate import simulate
    from fe_contact.system import assemble

    system = assemble(sliding_mass_model(0.2, 10))
    q0, u0 = sliding_mass_initial_state(system, 0.1, 0.5)
    fast = simulate(system, (0.0, 0.05), (q0, u0), h=1e-3)
    with agreement.python_steps():
        slow = simulate(system, (0.0, 0.05), (q0, u0), h=1e-3)
    assert fast.n_compiled == fast.n_substeps == 50 and slow.n_compiled == 0
    same = agreement.compare(fast, slow)
    assert same["same time grid"] and same["same events"]
    assert same["max |dq| / max |q|"] <= 1e-12 and same["max |du| / max |u|"] <= 1e-8
    shifted = type("Shifted", (), {"t": slow.t, "events": slow.events, "u": slow.u,
                                   "q": slow.q + 1e-3})  # fmt: skip
    moved = agreement.compare(shifted, slow)
    assert moved["max |dq| / max |q|"] == pytest.approx(1e-3 / same["max |q|"], rel=1e-9)


@pytest.mark.parametrize("start", [None, 1e-3, 5e-4, 2.5e-4, 5e-3, 7e-3])
def test_the_equal_accuracy_search_finds_the_largest_step_within_the_target(speed, start):
    # an error growing as h^2 (fe_contact's order) crosses 1e-6 m between 5e-4 and 1e-3 s: the
    # search from any start (or none) must end on 5e-4 s, the largest step of the list within
    # the target, and must try a step only once
    steps = (5e-3, 2.5e-3, 1e-3, 5e-4, 2.5e-4, 1e-4)
    tried = []

    def meets(h):
        tried.append(h)
        return 2.0 * h**2 <= 1e-6

    assert speed.largest_meeting(steps, meets, start) == 5e-4
    assert len(tried) == len(set(tried))
    assert speed.largest_meeting(steps, lambda h: False, start) is None
