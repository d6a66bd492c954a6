"""The kernels compiled in a background process (``steppers.background_compile``): a run that
finds no cache takes the Python step until that process is done, then goes on compiled; one
compilation runs at a time (a lock file); the ``fe-contact`` command asks for it, the library
compiles in the foreground unless told.

The comparisons: a waiting run takes exactly the Python step's operations (the same code, the
same process), so it agrees with a ``compiled=False`` run to a few ulps of the state's scale
(1e-13 relative: the bound leaves room for BLAS's threads, not for another step); after the
switch it takes the compiled step, which agrees with the Python step to round-off amplified by
the stiff beam (tests/test_compiled.py: positions 1e-10 of their range, velocities 1e-8).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import fe_contact.kernels as kernels
from fe_contact import assemble, simulate
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.steppers import background_compile as bg


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder of its own, without the kernels (as on a fresh installation)."""
    monkeypatch.setattr(kernels, "cache_folder", lambda: tmp_path)
    monkeypatch.setattr(kernels, "cached", lambda: False)
    monkeypatch.setattr(kernels, "_announced", False)
    return tmp_path


@pytest.fixture
def sliding():
    system = assemble(sliding_mass_model(0.2, 4))
    return system, sliding_mass_initial_state(system, 0.1, 0.5)


def test_compile_mode_names_the_variable_and_the_allowed_modes(monkeypatch):
    monkeypatch.setenv(bg.ENVIRONMENT, "later")
    with pytest.raises(ValueError, match=r"\$FE_CONTACT_COMPILE = 'later'; allowed: foreground"):
        bg.compile_mode()
    with pytest.raises(ValueError, match="mode = 'now'"):
        bg.compile_mode("now")
    monkeypatch.delenv(bg.ENVIRONMENT)
    assert bg.compile_mode() == "foreground"  # the library's default


def test_a_waiting_run_takes_the_python_step(cache, sliding, monkeypatch):
    """While the background compilation runs, a compiled run takes every step in Python (no
    step compiled, none handed back) and says once why."""
    system, y0 = sliding
    started = []
    monkeypatch.setattr(bg, "start", lambda command=None: started.append(1) or True)
    monkeypatch.setattr(bg, "compiling", lambda: True)
    monkeypatch.setenv(bg.ENVIRONMENT, "background")
    waiting = simulate(system, (0.0, 0.02), y0, h=1e-3)
    python = simulate(system, (0.0, 0.02), y0, h=1e-3, compiled=False)
    assert started and waiting.status == python.status == "finished"
    assert (waiting.n_compiled, waiting.n_fallback, waiting.n_substeps) == (0, 0, 20)
    scale = np.max(np.abs(python.q), axis=0) + 1e-300
    assert np.all(np.abs(waiting.q - python.q) <= 1e-13 * scale)
    assert np.max(np.abs(waiting.u - python.u)) <= 1e-13 * np.max(np.abs(python.u))


def test_a_waiting_run_goes_on_compiled_when_the_kernels_are_ready(cache, sliding, monkeypatch):
    """The compilation ends during the run: the later quiet steps are compiled, and the whole
    run agrees with a run compiled from the start to the compiled step's round-off."""
    system, y0 = sliding
    monkeypatch.setattr(bg, "start", lambda command=None: True)
    monkeypatch.setattr(bg, "CHECK_EVERY", 0.0)
    looks = []

    def compiling():  # done at the fourth look (the first one is at the run's start)
        looks.append(1)
        return len(looks) < 4

    monkeypatch.setattr(bg, "compiling", compiling)
    monkeypatch.setattr(kernels, "cached", lambda: len(looks) >= 4)  # written when done
    monkeypatch.setenv(bg.ENVIRONMENT, "background")
    switched = simulate(system, (0.0, 0.05), y0, h=1e-3)
    monkeypatch.setattr(kernels, "cached", lambda: True)
    monkeypatch.setenv(bg.ENVIRONMENT, "foreground")
    compiled = simulate(system, (0.0, 0.05), y0, h=1e-3)
    assert switched.status == compiled.status == "finished"
    assert 0 < switched.n_compiled < switched.n_substeps == 50
    assert compiled.n_compiled == 50
    span = np.maximum(np.ptp(compiled.q, axis=0), np.max(np.abs(compiled.q), axis=0)) + 1e-300
    assert np.all(np.abs(switched.q - compiled.q) <= 1e-10 * span)
    assert np.max(np.abs(switched.u - compiled.u)) <= 1e-8 * np.max(np.abs(compiled.u))


def test_one_compilation_runs_at_a_time_and_a_dead_ones_lock_is_taken_over(cache):
    """``start`` claims the lock with the child's process id; a second ``start`` while it runs
    starts nothing; once the child is gone its lock is stale and ``start`` takes it over."""
    sleeper = ["-c", "import time; time.sleep(60)", bg.JOB]  # names the job
    assert bg.start(sleeper)
    pid = int((cache / bg.LOCK_NAME).read_text().split()[0])
    try:
        assert bg.compiling()
        assert bg.start(["-c", "raise SystemExit(3)"])  # runs already: not started
        assert int((cache / bg.LOCK_NAME).read_text().split()[0]) == pid
    finally:
        os.kill(pid, 9)
        try:
            os.waitpid(pid, 0)  # reaped: not a zombie that os.kill(pid, 0) still finds
        except ChildProcessError:  # subprocess reaped it already
            pass
    assert not bg.compiling()  # its process is gone
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:  # a live process that is not the job took its number (Linux shows command lines)
        started = time.time() - 2.0 * bg.STARTING  # not one being started
        (cache / bg.LOCK_NAME).write_text(f"{other.pid} {started!r}\n")
        if os.path.exists("/proc/self/cmdline"):
            assert not bg.compiling()
    finally:
        other.kill()
        other.wait()
    quick = ["-c", "pass"]
    assert bg.start(quick)
    assert int((cache / bg.LOCK_NAME).read_text().split()[0]) != pid


def test_a_lock_older_than_stale_after_is_not_a_running_compilation(cache):
    (cache / bg.LOCK_NAME).write_text(f"{os.getpid()} {time.time() - bg.STALE_AFTER - 1.0!r}\n")
    assert not bg.compiling()  # this process runs, but the lock is too old to be its


def test_the_background_job_releases_its_lock(cache, monkeypatch):
    """The detached process's job (``fe_contact.compile_kernels.main``) removes the lock that
    names it when done, also when its run fails; a lock naming another process stays."""
    from fe_contact import compile_kernels

    def failing(*args, **kwargs):
        raise RuntimeError("no run here")

    monkeypatch.setattr(compile_kernels, "simulate", failing)
    monkeypatch.setattr(compile_kernels.os, "nice", lambda inc: 0)
    (cache / bg.LOCK_NAME).write_text(f"{os.getpid() + 1} {time.time()!r}\n")
    with pytest.raises(RuntimeError, match="no run here"):
        compile_kernels.main()
    assert (cache / bg.LOCK_NAME).exists()  # not its own
    (cache / bg.LOCK_NAME).write_text(f"{os.getpid()} {time.time()!r}\n")
    with pytest.raises(RuntimeError, match="no run here"):
        compile_kernels.main()
    assert not (cache / bg.LOCK_NAME).exists()


def test_the_command_asks_for_the_background_and_leaves_the_environment_as_it_was(monkeypatch):
    from fe_contact import cli

    seen = []
    monkeypatch.delenv(bg.ENVIRONMENT, raising=False)
    monkeypatch.setattr(cli, "_main", lambda argv: seen.append(os.environ.get(bg.ENVIRONMENT)) or 0)
    assert cli.main(["demo"]) == 0
    assert seen == ["background"] and bg.ENVIRONMENT not in os.environ
    monkeypatch.setenv(bg.ENVIRONMENT, "foreground")  # the user's choice wins
    assert cli.main(["demo"]) == 0
    assert seen[-1] == "foreground" and os.environ[bg.ENVIRONMENT] == "foreground"


def test_a_cached_installation_neither_waits_nor_starts_anything(monkeypatch, tmp_path):
    monkeypatch.setattr(kernels, "cache_folder", lambda: tmp_path)
    monkeypatch.setattr(kernels, "cached", lambda: True)
    monkeypatch.setattr(bg, "start", lambda command=None: pytest.fail("started"))
    assert bg.pending_kernels("background") is None


def test_the_job_runs_this_copy_of_the_package_not_the_one_in_the_working_directory(tmp_path):
    """The README's first command runs in the source checkout it installed from: the job must
    import the installed copy (whose cache the runs read), not the checkout's ``fe_contact``
    that ``python -m`` would find first in the working directory (a decoy here)."""
    import fe_contact

    decoy = tmp_path / "fe_contact"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise ImportError('the decoy was imported')\n")
    command = bg.job_command("import fe_contact; print(fe_contact.__file__)")
    assert bg.JOB in command[-1]  # what ``compiling`` looks for in its command line
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, *command], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == fe_contact.__file__


def test_a_lock_claimed_but_not_yet_written_is_a_compilation_being_started(cache):
    """``start`` claims the lock before it knows the child's number: another run reading the
    empty lock then must not take it for a dead one's (and start a second compilation),
    unless it has stayed empty longer than ``STARTING``."""
    lock = cache / bg.LOCK_NAME
    lock.write_text("")
    assert bg.compiling()
    old = time.time() - 2.0 * bg.STARTING
    os.utime(lock, (old, old))
    assert not bg.compiling()
