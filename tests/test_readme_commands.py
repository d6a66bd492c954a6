"""Every shell command of the README is run: here (the demo commands, as printed) or by the
CI script ``.ci/run`` (the set-up, test, lint and documentation commands, which install
packages), or by the test named for it. A command added to the README without a way of being
run fails ``test_every_readme_command_is_run``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
CI = (ROOT / ".ci" / "run").read_text()
WORDS = ("fe-contact", "pip", "python", "python3", "pytest", "ruff", "sphinx-build", "pvpython")


def readme_commands() -> list[str]:
    """The README's shell commands: the lines of its bash blocks and the inline code spans
    (joined across line breaks) that start with a command's name."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        commands += [line.strip() for line in block.splitlines() if line.strip()]
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    for span in re.findall(r"`([^`]+)`", prose):
        span = " ".join(span.split())
        if span.split()[0] in WORDS:
            commands.append(span)
    return commands


def in_ci(*parts: str) -> bool:
    """Each part is a command of ``.ci/run`` (verbatim, on one of its lines)."""
    lines = [" ".join(line.split()) for line in CI.splitlines() if not line.startswith("#")]
    return all(any(part in line for line in lines) for part in parts)


def has_test(path: str) -> bool:
    """``tests/FILE::NAME`` names a test function of this suite."""
    file, name = path.split("::")
    return f"def {name}(" in (ROOT / "tests" / file).read_text()


# How each README command runs: ("here", argv of fe-contact), ("ci", the commands of
# .ci/run it is made of) or ("test", the test that runs it).
RUNS = {
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && fe-contact demo "
    "manipulator": ("here", ["demo", "manipulator"]),
    'python3 -m venv .venv && . .venv/bin/activate && pip install ".[test]" && pytest': (
        "ci",
        ["python3 -m venv .venv", ". .venv/bin/activate", 'pip install ".[test]"', "pytest"],
    ),
    "fe-contact demo --list": ("here", ["demo", "--list"]),
    "fe-contact demo pantograph": (
        "test",
        "test_pantograph_demo.py::test_demo_writes_its_files_and_the_summary_holds_its_statistics",
    ),
    "fe-contact demo capstan / belt-drive": (
        "test",
        "test_capstan.py::test_demo_writes_its_files",
        "test_belt_drive_demo.py::test_demo_writes_every_file",
    ),
    "fe-contact run / sweep / info / demo": ("here", ["--help"]),
    "pvpython frames.pvsm.py": (
        "test",
        "test_paraview_state.py::test_state_script_opens_the_series_and_glyphs_the_contact_forces",
    ),
    'pip install ".[docs]" && sphinx-build -W docs docs/_build/html': (
        "ci",
        ['pip install ".[docs]"', "sphinx-build -W docs docs/_build/html"],
    ),
    'pip install -e ".[test,dev]"': ("ci", ['pip install ".[test]"', 'pip install ".[dev]"']),
    "ruff check . && ruff format --check . && pytest": (
        "ci",
        ["ruff check .", "ruff format --check .", "pytest"],
    ),
    'pytest -m "not slow"': ("ci", ["pytest"]),  # the same suite, a selection of it
    "python -m fe_contact.docs_figures [--quick] [--check]": (
        "test",
        "test_docs_figures.py::test_every_simulated_number_of_the_readme_is_what_the_command_prints",
    ),
}


def test_every_readme_command_is_run():
    """Each command of the README is listed in RUNS, and what RUNS says runs it exists: the
    commands in ``.ci/run``, the named tests in this suite (the "here" ones run below)."""
    commands = readme_commands()
    assert len(commands) >= 10, commands  # the parse found the set-up block and the spans
    unlisted = [c for c in commands if c not in RUNS]
    assert not unlisted, f"README commands that no test or CI step runs: {unlisted}"
    for command in set(commands):
        how, *what = RUNS[command]
        if how == "ci":
            assert in_ci(*what[0]), (command, what[0])
        elif how == "test":
            assert all(has_test(path) for path in what), (command, what)
    # the "not slow" selection is a selection of the suite CI runs: the marker is declared
    assert '"slow:' in (ROOT / "pyproject.toml").read_text()


def test_the_readme_stays_short():
    """About 150 lines: what it is, the set-up commands, one picture, the example, the
    capability table and the links; the rest is on the documentation's pages."""
    lines = README.splitlines()
    assert len(lines) <= 160, len(lines)
    assert len(re.findall(r"!\[[^\]]*\]\(", README)) == 1  # one picture


def cli(argv, cwd) -> subprocess.CompletedProcess:
    """``fe-contact ARGV`` as a user runs it (the console script is ``fe_contact.cli:main``),
    on this checkout."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    code = "import sys; from fe_contact.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )


def test_the_demo_list_and_the_commands_run_as_printed(tmp_path):
    """``fe-contact demo --list`` lists the demos the README names; ``fe-contact --help``
    lists the four commands of ``fe-contact run / sweep / info / demo``."""
    listed = cli(RUNS["fe-contact demo --list"][1], tmp_path)
    assert listed.returncode == 0, listed.stderr
    for name in re.findall(r"^\| `([a-z-]+)`", README, re.MULTILINE):  # the demos table
        assert name in listed.stdout, name
    usage = cli(RUNS["fe-contact run / sweep / info / demo"][1], tmp_path)
    assert usage.returncode == 0, usage.stderr
    for name in "fe-contact run / sweep / info / demo".split()[1::2]:
        assert name in usage.stdout, name


@pytest.mark.slow  # the full manipulator demo: 6 friction coefficients, GIF (~10 s of CPU)
def test_the_first_readme_command_runs_the_manipulator_demo(tmp_path):
    """``fe-contact demo manipulator`` as printed (after the install): exit 0, the files the
    README names under ``out/manipulator/``, and run again it refuses the folder it wrote
    (exit 2), as the README says."""
    done = cli(["demo", "manipulator"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "out" / "manipulator"
    assert list(out.glob("*.png")) and list(out.glob("*.gif"))  # figures and the animation
    assert list(out.rglob("history.csv")) and list(out.rglob("*.pvd"))  # CSV and ParaView
    again = cli(["demo", "manipulator"], tmp_path)
    assert again.returncode == 2 and "--overwrite" in again.stderr
