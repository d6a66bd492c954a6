"""Output folders are never shared by accident: every command that writes a folder (run, demo,
sweep) refuses one written by another run unless --overwrite, and two sweeps into one folder run
each case once, under the case folder's lock, without losing a case."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fe_contact import save_model
from fe_contact.cli import main
from fe_contact.demos import sliding_mass
from fe_contact.steppers.result import read_history
from fe_contact.sweep import case_lock

ROOT = Path(__file__).resolve().parents[1]


def test_a_demo_refuses_a_run_folder_unless_overwrite(tmp_path, capsys):
    """`demo sliding-mass --out DIR` into the folder of a `run` used to write its history over the
    run's and leave the run's status.json beside it; it is refused (exit 2, one line naming
    --overwrite, the run's files untouched), and with --overwrite the run's files are cleared
    (no status.json left) and the demo's history is the only one (t_end 2 ms at h = 1e-4 s: 21
    rows). A second demo into its own folder is refused as well."""
    model = save_model(sliding_mass.model_file(mu=0.0, t_end=0.003), tmp_path / "sliding.toml")
    out = tmp_path / "out"
    assert main(["run", str(model), "--out", str(out), "-q"]) == 0
    status = (out / "status.json").read_text()
    history = (out / "history.csv").read_text()
    capsys.readouterr()
    demo = ["demo", "sliding-mass", "--t-end", "0.002", "--out", str(out)]
    assert main(demo) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--overwrite" in err and "fe-contact run" in err, err
    assert (out / "status.json").read_text() == status
    assert (out / "history.csv").read_text() == history
    assert main([*demo, "--overwrite"]) == 0
    assert not (out / "status.json").exists()  # the run's status: cleared with its files
    assert len(read_history(out / "history.csv")["t"]) == 21
    capsys.readouterr()
    assert main(demo) == 2  # a demo's folder is another run's folder too
    err = capsys.readouterr().err
    assert "fe-contact demo sliding-mass" in err and "--overwrite" in err, err
    # `run` refuses the demo's folder, and a sweep refuses it
    assert main(["run", str(model), "--out", str(out), "-q"]) == 2
    sweep = ["sweep", str(model), "--vary", "contacts.mass.mu=0,0.1", "--out", str(out), "-q"]
    assert main(sweep) == 2
    assert "demo sliding-mass" in capsys.readouterr().err


@pytest.mark.slow  # two processes that import the library: ~17 s on 2 shared cores
def test_two_sweeps_into_one_folder_do_not_collide(tmp_path):
    """Two `fe-contact sweep` processes started together into one folder, 4 cases each (3 ms,
    30 steps, a ParaView frame every 5 steps): without the locks they lost 1 to 3 of their 4
    cases to `FileNotFoundError: .../frames.pvd.tmp` (both wrote the same case folder at once). Each case now runs under its folder's lock
    (created with O_CREAT | O_EXCL): both sweeps report 4 of 4 finished, each case ran once
    (the other sweep waited and reused it), and no lock or temporary file is left."""
    model = save_model(sliding_mass.model_file(mu=0.0, t_end=0.003), tmp_path / "sliding.toml")
    out = tmp_path / "sweep"
    cmd = [sys.executable, "-m", "fe_contact.cli", "-q", "sweep", str(model)]
    cmd += ["--vary", "contacts.mass.mu=0:0.3:4", "--set", "output.frame_every=5e-4"]
    cmd += ["--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    # a guard against a hang, not a speed bound: in a fresh install or after an edit of the
    # kernels both processes compile them first (1-2 min each alone; 120 s timed out under load)
    outputs = [p.communicate(timeout=900) for p in procs]
    for proc, (stdout, stderr) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, stderr
        assert "4 of 4 cases finished" in stdout, (stdout, stderr)
    with open(out / "summary.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 4 and all(r["status"] == "finished" for r in rows)
    for row in rows:
        folder = out / row["case"]
        assert json.loads((folder / "status.json").read_text())["status"] == "finished"
        assert len(read_history(folder / "history.csv")["t"]) == 31
    left = [p.name for p in out.rglob("*") if p.name.endswith((".tmp", ".lock"))]
    assert left == []


def test_a_lock_left_by_a_process_that_ended_is_broken(tmp_path):
    """A case folder whose lock names a process of this host that no longer runs (a killed
    sweep) is taken over; a live process's lock is not."""
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    import socket

    (tmp_path / ".lock").write_text(f"{socket.gethostname()} {int(dead.stdout)}")
    with case_lock(tmp_path) as path:
        assert path.read_text().split()[1] == str(os.getpid())
    assert not path.exists()
