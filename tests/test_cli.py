"""The command line: `fe-contact run` equals the same model run in Python, column by column;
output folders are never shared; every invalid option exits 2 with one line, before any work;
--help at every level, --version, demo --list."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fe_contact import __version__, assemble, save_model, simulate
from fe_contact.cli import main
from fe_contact.demos import sliding_mass
from fe_contact.steppers.result import read_history


@pytest.fixture()
def model_path(tmp_path):
    """The sliding-mass demo's model file, 3 ms long (30 steps)."""
    run_file = sliding_mass.model_file(mu=0.0, t_end=0.003)
    return save_model(run_file, tmp_path / "sliding.toml")


def test_run_equals_the_model_built_in_python(model_path, tmp_path):
    out = tmp_path / "run"
    code = main(["run", str(model_path), "--set", "contacts.mass.mu=0.15", "--out", str(out), "-q"])
    assert code == 0
    history = read_history(out / "history.csv")
    run_file = sliding_mass.model_file(mu=0.15, t_end=0.003)  # the same model, in Python
    system = assemble(run_file.model)
    result = simulate(system, (0.0, 0.003), run_file.initial.state(system), h=1e-4, rho_inf=0.9)
    assert result.success and len(result.t) == 31
    assert set(history) == set(result.columns)
    for name, column in result.columns.items():
        if column.dtype.kind == "f":
            assert np.array_equal(history[name], column), name
        else:
            assert list(history[name]) == list(column), name
    assert result["dissipated_friction"][-1] > 0.0  # the --set mu took effect
    status = json.loads((out / "status.json").read_text())
    assert status["status"] == "finished"
    assert status["results"]["final:mass_parameter"] == result["mass_parameter"][-1]
    # what ran is written beside the history, and runs again to the same numbers
    again = tmp_path / "again"
    assert main(["run", str(out / "model.toml"), "--out", str(again), "-q"]) == 0
    assert (again / "history.csv").read_text() == (out / "history.csv").read_text()


def test_a_second_run_refuses_the_folder_unless_overwrite(model_path, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", str(model_path), "--out", str(out), "-q"]) == 0
    before = (out / "history.csv").read_text()
    (out / "frames_00042.vtu").write_text("stale frame of an older run")
    (out / "frames_00042.vtm").write_text("stale frame of an older run")
    (out / "frames_00042").mkdir()  # its parts
    (out / "frames_00042" / "frames_00042_0.vtu").write_text("stale part")
    (out / "frames_notes").mkdir()  # not a frame's folder
    (out / "notes.txt").write_text("the user's own file")
    capsys.readouterr()
    code = main(["run", str(model_path), "--set", "contacts.mass.mu=0.3", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--overwrite" in err
    assert (out / "history.csv").read_text() == before  # untouched
    code = main(
        [
            "run",
            str(model_path),
            "--set",
            "contacts.mass.mu=0.3",
            "--out",
            str(out),
            "--overwrite",
            "-q",
        ]
    )
    assert code == 0
    assert (out / "history.csv").read_text() != before
    assert not (out / "frames_00042.vtu").exists()  # another run's frame: cleared
    assert not (out / "frames_00042.vtm").exists() and not (out / "frames_00042").exists()
    assert (out / "frames_notes").is_dir()  # not a frame's folder: kept
    assert (out / "notes.txt").exists()  # not a run's file: kept


def test_a_failed_run_exits_1_with_its_message_and_keeps_its_history(model_path, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(
        [
            "run",
            str(model_path),
            "--set",
            "simulation.max_newton=1",
            "--set",
            "simulation.max_halvings=0",
            "--out",
            str(out),
            "-q",
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "failed: NewtonDivergence" in err and "Traceback" not in err
    history = read_history(out / "history.csv")
    assert len(history["t"]) >= 1 and history["t"][0] == 0.0
    assert json.loads((out / "status.json").read_text())["status"] == "failed"


def _invalid_command_lines(good: str, a_file: str):
    vary = ["--vary", "contacts.mass.mu=0,0.1"]
    return [
        ["bogus"],
        ["--nope"],
        ["demo", "no-such-demo"],
        ["run"],
        ["run", "missing.toml"],
        ["run", good, "--bogus"],
        ["run", good, "--set", "no-equals-sign"],
        ["run", good, "--set", "contacts.mass.mu=-1"],
        ["run", good, "--set", "contacts.mass.colour=1"],
        ["run", good, "--set", "structures.beam.n_elements=0"],
        ["run", good, "--set", "simulation.method=euler"],
        ["run", good, "--set", "simulation.method=moreau"],  # a sliding contact
        ["run", good, "--set", "simulation.h=-1e-3"],
        ["run", good, "--set", "simulation.t_end=0"],
        ["run", good, "--set", "tree.bodies.5.mass=1"],
        ["run", good, "--set", 'output.results=["max:no_such_column"]'],
        ["run", good, "--set", "initial.tree_q=[0.1]"],
        ["run", good, "--out", a_file],
        ["run", good, "--record-every", "0"],
        ["run", good, "--record-every", "2.5"],
        ["-q", "-v", "run", good, "--bogus"],
        ["sweep", good],
        ["sweep", good, "--vary", "contacts.mass.mu"],
        ["sweep", good, "--vary", "contacts.mass.mu=0:1"],
        ["sweep", good, "--vary", "contacts.mass.mu=0:1:0"],
        ["sweep", good, "--vary", "contacts.mass.mu=0:x:3"],
        ["sweep", good, "--vary", "contacts.mass.mu=0.1,0.1"],
        ["sweep", good, "--vary", "contacts.mass.mu=-1,0.1"],
        ["sweep", good, "--vary", "simulation.method=euler,moreau"],
        ["sweep", good, *vary, "--vary", "contacts.mass.mu=0.3,0.4"],
        ["sweep", good, *vary, "--jobs", "0"],
        ["sweep", good, *vary, "--jobs", "two"],
        ["sweep", good, *vary, "--jobs", "2", "--scheduler", "tcp://127.0.0.1:8786"],
        ["sweep", good, *vary, "--scheduler", "not an address"],
        ["sweep", good, *vary, "--result", "maximum:mass_normal_force"],
        ["sweep", good, *vary, "--result", "max:no_such_column"],
        ["sweep", good, *vary, "--plot", "max"],
        ["sweep", good, *vary, "--set", "contacts.mass.mu=x"],
        ["sweep", good, *vary, "--out", a_file],
        ["info"],
        ["info", "missing.toml"],
        ["info", good, "--set", "tree.bodies.1.mass=-1"],
        ["info", good, "--unknown"],
        # every demo's options
        ["demo", "manipulator", "--mu", "-0.1"],
        ["demo", "manipulator", "--mu", "x"],
        ["demo", "manipulator", "--t-end", "0"],
        ["demo", "manipulator", "--h", "-1"],
        ["demo", "manipulator", "--jobs", "0"],
        ["demo", "manipulator", "--vtk", "xyz"],
        ["demo", "manipulator", "--joint3", "spherical"],
        ["demo", "manipulator", "--elements", "0"],
        ["demo", "manipulator", "--drive-reversal", "-1"],
        ["demo", "manipulator", "--set", "bogus=1"],
        ["demo", "manipulator", "--set", "masses=1,2"],
        ["demo", "manipulator", "--out", a_file],
        ["demo", "beam", "--modes", "0"],
        ["demo", "beam", "--elements", "0"],
        ["demo", "beam", "--out", a_file],
        ["demo", "disk-on-string", "--example", "3"],
        ["demo", "disk-on-string", "--elements", "0"],
        ["demo", "disk-on-string", "--t-end", "-1"],
        ["demo", "disk-on-string", "--h", "0"],
        ["demo", "disk-on-string", "--theta", "2"],
        ["demo", "disk-on-string", "--damping", "-1"],
        ["demo", "disk-on-string", "--vtk-stride", "-1"],
        ["demo", "disk-on-string", "--penetration-tolerance", "-1"],
        ["demo", "disk-on-string", "--out", a_file],
        ["demo", "sliding-mass", "--mu", "-1"],
        ["demo", "sliding-mass", "--elements", "0"],
        ["demo", "sliding-mass", "--t-end", "0"],
        ["demo", "sliding-mass", "--h", "0"],
        ["demo", "sliding-mass", "--out", a_file],
        ["demo", "slider-on-string", "--mu", "-1"],
        ["demo", "slider-on-string", "--mass", "0"],
        ["demo", "slider-on-string", "--elements", "0"],
        ["demo", "slider-on-string", "--t-end", "0"],
        ["demo", "slider-on-string", "--h", "0"],
        ["demo", "slider-on-string", "--out", a_file],
        ["demo", "disk-on-beam", "--t-end", "0"],
        ["demo", "disk-on-beam", "--h", "0"],
        ["demo", "disk-on-beam", "--speed", "nan"],
        ["demo", "disk-on-beam", "--out", a_file],
        ["demo", "friction-oscillator", "--set", "mass=-1"],
        ["demo", "friction-oscillator", "--set", "bogus=1"],
        ["demo", "friction-oscillator", "--t-end", "0"],
        ["demo", "friction-oscillator", "--h", "0"],
        ["demo", "friction-oscillator", "--out", a_file],
        ["demo", "pin-on-wheel", "--set", "mu=-1"],
        ["demo", "pin-on-wheel", "--set", "bogus=1"],
        ["demo", "pin-on-wheel", "--set", "n_pin=2.5"],
        ["demo", "pin-on-wheel", "--misalignments", "0.02"],
        ["demo", "pin-on-wheel", "--reshapings", "-1"],
        ["demo", "pin-on-wheel", "--jobs", "0"],
        ["demo", "pin-on-wheel", "--t-end", "0"],
        ["demo", "pin-on-wheel", "--h", "0"],
        ["demo", "pin-on-wheel", "--out", a_file],
    ]


def test_every_invalid_option_exits_2_with_one_line_before_any_work(
    model_path, tmp_path, monkeypatch, capsys
):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    a_file = work / "a_file.txt"
    a_file.write_text("not a folder")
    for argv in _invalid_command_lines(str(model_path), str(a_file)):
        code = main(argv)
        captured = capsys.readouterr()
        err = captured.err.strip()
        assert code == 2, argv
        assert err and "\n" not in err, (argv, err)
        assert "Traceback" not in err and captured.out == "", argv
        assert sorted(p.name for p in work.iterdir()) == ["a_file.txt"], argv  # nothing written


def test_messages_name_the_option_the_value_and_what_is_allowed(model_path, capsys):
    main(["run", str(model_path), "--set", "contacts.mass.mu=-1"])
    assert capsys.readouterr().err.strip() == (
        "fe-contact run: --set: contacts.mass.mu = -1: allowed: a friction coefficient >= 0 "
        "(Sliding.mu)"
    )
    main(["sweep", str(model_path), "--vary", "contacts.mass.mu=0.1", "--jobs", "0"])
    err = capsys.readouterr().err
    assert "--jobs" in err and "'0'" in err and "allowed: an integer >= 1" in err


def test_help_at_every_level_version_and_demo_list(capsys):
    for argv in (
        ["--help"],
        ["demo", "--help"],
        ["run", "--help"],
        ["sweep", "--help"],
        ["info", "--help"],
        ["demo", "sliding-mass", "--help"],
    ):
        assert main(argv) == 0, argv
        assert "usage:" in capsys.readouterr().out, argv
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"fe-contact {__version__}"
    assert main(["demo", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in ("manipulator", "disk-on-beam", "sliding-mass"))


def test_info_describes_the_model(model_path, capsys):
    assert main(["info", str(model_path)]) == 0
    out = capsys.readouterr().out
    assert "degrees of freedom: 22 (tree 2, beam 20)" in out
    assert "mass: point (0, 0) m of body 1 on beam; sliding, mu = 0" in out
    assert "generalized-alpha" in out and "(30 steps)" in out


def test_the_installed_command_prints_one_line_without_traceback(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "fe_contact.cli",
            "sweep",
            str(tmp_path / "x.toml"),
            "--vary",
            "a=1",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "is not a file" in done.stderr
    assert list(Path(tmp_path).iterdir()) == []


def test_the_manipulator_demo_writes_a_model_file_that_runs_again(tmp_path):
    from fe_contact.demos.manipulator_on_beam import case_dir, run_case

    case = run_case(0.1, t_end=0.002, out=tmp_path / "demo", vtk=True)
    folder = case_dir(tmp_path / "demo", 0.1)
    from fe_contact import load_model

    loaded = load_model(folder / "model.toml")
    assert loaded.model.contacts[0].law.mu == 0.1 and loaded.simulation.h == 5e-4
    assert np.array_equal(loaded.initial.state(assemble(loaded.model))[0], case.scenario.q0)
    out = tmp_path / "run"
    assert main(["run", str(folder / "model.toml"), "--out", str(out), "-q"]) == 0
    ran, demo = read_history(out / "history.csv"), read_history(folder / "history.csv")
    assert ran["t"].size == 5
    for name, column in demo.items():
        assert (
            np.array_equal(ran[name], column)
            if column.dtype.kind == "f"
            else (list(ran[name]) == list(column))
        ), name


def test_progress_goes_through_logging_and_quiet_verbose_set_its_level(
    model_path, tmp_path, capsys
):
    """Without a terminal, a run logs progress lines (logger fe_contact.progress, INFO) on
    stderr, naming the run; the global -q leaves only warnings and errors; -v is accepted."""
    import logging

    assert main(["run", str(model_path), "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "run sliding.toml: " in err and "t = 0.003 s, step 30/30" in err
    assert main(["-q", "run", str(model_path), "--out", str(tmp_path / "b")]) == 0
    assert "step" not in capsys.readouterr().err
    assert main(["--verbose", "run", str(model_path), "--out", str(tmp_path / "c")]) == 0
    assert "step 30/30" in capsys.readouterr().err
    # the level holds for the command only
    assert logging.getLogger("fe_contact").getEffectiveLevel() == logging.INFO


def test_record_every_keeps_memory_flat_and_the_results_exact(model_path, tmp_path):
    """--record-every 10 over 30 steps: the result keeps the states 0, 10, 20, 30 (memory
    grows with steps / N), the CSV every step, and the scalar results (taken from the CSV)
    equal those of a run that keeps every state."""
    full, sparse = tmp_path / "full", tmp_path / "sparse"
    assert main(["-q", "run", str(model_path), "--out", str(full)]) == 0
    assert main(["-q", "run", str(model_path), "--out", str(sparse), "--record-every", "10"]) == 0
    assert (full / "history.csv").read_text() == (sparse / "history.csv").read_text()
    status = [json.loads((d / "status.json").read_text()) for d in (full, sparse)]
    assert status[0]["results"] == status[1]["results"]
    run_file = sliding_mass.model_file(mu=0.0, t_end=0.003)
    system = assemble(run_file.model)
    result = simulate(system, (0.0, 0.003), run_file.initial.state(system), h=1e-4, store_every=10)
    np.testing.assert_allclose(result.t, [0.0, 0.001, 0.002, 0.003], atol=1e-15)


def test_a_run_killed_with_sigkill_leaves_whole_rows_and_a_readable_series(tmp_path):
    """fe-contact run in a subprocess, killed with SIGKILL mid-run: every CSV row written is
    whole (as many fields as the header, all numbers where numbers belong) and the .pvd lists
    only frames that exist and read."""
    import os
    import signal
    import time
    import xml.etree.ElementTree as ET

    import meshio

    run_file = sliding_mass.model_file(mu=0.1, t_end=2.0)
    path = save_model(run_file, tmp_path / "long.toml")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fe_contact.cli", "-q", "run", str(path), "--out", str(out)]
    cmd += ["--set", "output.frame_every=0.002"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    history = out / "history.csv"
    deadline = time.time() + 600  # (a loaded machine may first compile the kernels: minutes)
    while time.time() < deadline and proc.poll() is None:
        if history.exists() and history.stat().st_size > 200_000:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()  # still running: kill it mid-run
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    lines = history.read_text().splitlines()
    header = lines[0].split(",")
    assert len(lines) > 100
    for line in lines[1:]:
        fields = line.split(",")
        assert len(fields) == len(header), line
        float(fields[0])  # the time
    root = ET.parse(out / "frames.pvd").getroot()
    frames = [out / d.get("file") for d in root.iter("DataSet")]
    assert len(frames) > 5
    for frame in frames:  # every part file of every frame: meshio reads it
        vtm = ET.parse(frame).getroot()
        parts = [frame.parent / d.get("file") for d in vtm.iter("DataSet") if d.get("file")]
        assert parts and all(len(meshio.read(p).points) > 0 for p in parts)


def test_the_installed_distribution_reports_the_packages_version():
    """One version everywhere: the distribution's metadata (what pip shows) is read from
    ``fe_contact.__version__`` (pyproject's dynamic version), so ``fe-contact --version`` and
    ``pip show fe_contact`` agree. Before, they said 0.2.0 and 0.1.0."""
    from importlib.metadata import version

    assert version("fe_contact") == __version__


def test_every_demo_help_is_short_and_says_where_the_rest_is(capsys):
    """A demo's --help is its usage, the first paragraph of its module's docstring and where
    the rest is (``python -m pydoc`` of the module, the docs page): not the whole docstring
    (the manipulator's printed 107 lines with the paper module's as epilog)."""
    from fe_contact.cli import DEMOS

    for name, (module, _) in DEMOS.items():
        assert main(["demo", name, "--help"]) == 0, name
        out = capsys.readouterr().out
        assert out.startswith("usage:"), name
        assert f"python -m pydoc {module}" in out, name
        assert len(out.splitlines()) <= 45, (name, len(out.splitlines()))


def demo_parsers(monkeypatch) -> dict:
    """Every demo's argument parser, as its ``main`` builds it (caught at ``parse_args``)."""
    import argparse

    from fe_contact.cli import DEMOS

    class Built(Exception):
        pass

    parsers = {}

    def catch(self, *args, **kwargs):
        parsers[self.prog] = self
        raise Built

    with monkeypatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", catch)
        for name in DEMOS:
            with pytest.raises(Built):
                main(["demo", name])
    assert len(parsers) == len(DEMOS)
    return parsers


def test_every_option_has_help_and_the_options_one_style(monkeypatch):
    """Every option of every command and demo says what it is in --help; the options shared
    by several have one style: ``--set NAME=VALUE`` once per value (repeated, never several
    values after one flag) and ``--jobs`` by default one process per CPU core, at most one per
    case (the demos' and the sweep's alike). Before, four demo options and two ``--set`` had
    no help, two demos took several values after one ``--set``, and ``--jobs`` defaulted to 1
    for ``sweep`` and 2 for ``pin-on-wheel``."""
    import argparse

    from fe_contact.cli import build_parser

    top = build_parser()
    (commands,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    parsers = {**commands.choices, **demo_parsers(monkeypatch)}
    shared = {"--set": [], "--jobs": []}
    for prog, parser in parsers.items():
        for action in parser._actions:
            if not action.option_strings:
                continue
            assert action.help, (prog, action.option_strings)
            if action.option_strings[0] in shared:
                shared[action.option_strings[0]].append((prog, action))
    assert len(shared["--set"]) >= 5 and len(shared["--jobs"]) >= 3
    for prog, action in shared["--set"]:
        assert isinstance(action, argparse._AppendAction) and action.nargs is None, prog
        assert "repeatable" in action.help, prog
    for prog, action in shared["--jobs"]:
        assert action.default is None and "one per CPU core" in action.help, prog


def test_a_sweep_without_jobs_runs_one_process_per_core_at_most_one_per_case(
    model_path, tmp_path, capsys
):
    """The sweep's default --jobs, as the demos': here 2 cases on min(cores, 2) processes."""
    import os

    out = tmp_path / "sweep"
    argv = ["sweep", str(model_path), "--vary", "contacts.mass.mu=0.1,0.2", "--out", str(out)]
    assert main(argv) == 0
    jobs = min(os.cpu_count() or 1, 2)
    assert f"2 cases (limit 1000: --max-cases) on {jobs} local process" in capsys.readouterr().err
    assert (out / "summary.csv").read_text().count("finished") == 2


def test_the_documented_invalid_sweep_is_refused_with_the_printed_line(monkeypatch, capsys):
    """The example of an invalid command on the model-files page (docs/details/model_files.md)
    is refused as printed there: exit 2, that one line, before any case is built (no output
    folder). Before, the page's example was a valid sweep, which ran."""
    import re

    root = Path(__file__).resolve().parents[1]
    page = (root / "docs" / "details" / "model_files.md").read_text()
    found = re.search(r"with exit code 2, e\.g\. `(fe-contact [^`]+)` prints `([^`]+)`", page)
    assert found, "model_files.md: the example of an invalid command is missing"
    command, printed = (" ".join(g.split()) for g in found.groups())
    monkeypatch.chdir(root)
    out = root / "out" / "sliding_mass_sweep"
    existed = out.exists()
    assert main(command.split()[1:]) == 2
    err = capsys.readouterr().err.strip()
    assert err == printed
    assert out.exists() == existed  # nothing written
