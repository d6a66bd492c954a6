"""The first compiled run says that it compiles (else ~1-2 silent minutes look like a hang)."""

from log_records import records

import fe_contact.kernels as kernels
from fe_contact import assemble, simulate
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model


def test_a_run_without_cached_kernels_announces_the_compilation(monkeypatch):
    system = assemble(sliding_mass_model(0.0, 4))
    y0 = sliding_mass_initial_state(system, 0.1, 0.5)
    monkeypatch.setattr(kernels, "_announced", False)
    monkeypatch.setattr(kernels, "cached", lambda: False)  # as on a fresh installation
    with records("fe_contact.kernels") as said:
        simulate(system, (0.0, 0.002), y0, h=1e-3)
        simulate(system, (0.0, 0.002), y0, h=1e-3)
    assert len(said) == 1 and "compiling the numba kernels" in said[0]  # once per process


def test_a_script_without_logging_is_told_on_stderr(monkeypatch, capsys):
    """No handler would receive the INFO record (a script that configures no logging): the
    message goes to stderr, once."""
    import logging

    logger = logging.getLogger("fe_contact.kernels")
    monkeypatch.setattr(logger, "propagate", False)
    monkeypatch.setattr(logger, "handlers", [])
    monkeypatch.setattr(kernels, "_announced", False)
    monkeypatch.setattr(kernels, "cached", lambda: False)
    kernels.announce_compilation()
    kernels.announce_compilation()
    err = capsys.readouterr().err
    assert err.count("compiling the numba kernels") == 1


def test_a_run_with_cached_kernels_says_nothing(monkeypatch):
    system = assemble(sliding_mass_model(0.0, 4))
    y0 = sliding_mass_initial_state(system, 0.1, 0.5)
    simulate(system, (0.0, 0.002), y0, h=1e-3)  # compiles or loads: the cache now holds them
    assert kernels.cached()
    monkeypatch.setattr(kernels, "_announced", False)
    with records("fe_contact.kernels") as said:
        simulate(system, (0.0, 0.002), y0, h=1e-3)
    assert not said


def test_cache_folders_follow_numba_cache_dir(tmp_path):
    """With ``NUMBA_CACHE_DIR`` set numba keeps the kernels' cache files in a folder of its own
    naming; ``cache_folders`` names the same folder (numba's own dispatcher says where it
    writes), so that ``cached`` sees them and stale ones are dropped there too: a cache file
    older than the sources, put there before the import, is gone after it."""
    import os
    import subprocess
    import sys

    probe = (
        "import fe_contact.kernels as k\n"
        "from fe_contact.kernels import loop\n"
        "print(loop.steps._cache._cache_path)\n"
        "print(k.cache_folders()[0])\n"
        "print(k.cached())\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    numba_folder, ours, cached = first.stdout.split()
    assert ours == numba_folder and ours.startswith(str(tmp_path))
    assert cached == "False"  # the package's own cache does not count: numba will not read it
    stale = tmp_path / numba_folder[len(str(tmp_path)) + 1 :] / "step.iterate-1.py311.nbi"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text("")
    os.utime(stale, (0.0, 0.0))  # older than every source
    again = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert not stale.exists()


def test_a_stale_cache_file_is_one_whose_module_or_imports_changed(tmp_path):
    """Only the cache files of the edited module and of the modules that import it, directly or
    through others, are stale (``kernels.stale_cache_files``): a.py (newest) <- b.py <- c.py,
    d.py on its own; by hand: b's and c's cache files older than a.py are stale, a's newer one
    and d's are kept, and a file of an unknown module counts against the newest source."""
    import os

    package, cache = tmp_path / "package", tmp_path / "cache"
    package.mkdir()
    cache.mkdir()
    sources = {
        "a": "def f():\n    return 1\n",
        "b": "from .a import f\n",
        "c": "from . import b\n",
        "d": "import math\n",
    }
    times = {"a": 100.0, "b": 50.0, "c": 50.0, "d": 50.0}
    for name, text in sources.items():
        path = package / f"{name}.py"
        path.write_text(text)
        os.utime(path, (times[name], times[name]))
    files = {
        "a.f-1.py311.nbi": 150.0,  # newer than a.py: kept
        "b.g-1.py311.nbi": 75.0,  # older than a.py, which b imports: stale
        "c.h-1.py311.nbc": 75.0,  # older than a.py, which c imports through b: stale
        "d.k-1.py311.nbi": 75.0,  # d imports nothing of the package: kept
        "gone.k-1.py311.nbi": 75.0,  # no such module: against the newest source, stale
    }
    for name, when in files.items():
        (cache / name).write_text("")
        os.utime(cache / name, (when, when))
    deps = kernels.module_dependencies(package)
    assert deps == {
        "a": {"a"},
        "b": {"a", "b"},
        "c": {"a", "b", "c"},
        "d": {"d"},
    }
    stale = sorted(p.name for p in kernels.stale_cache_files(cache, package))
    assert stale == ["b.g-1.py311.nbi", "c.h-1.py311.nbc", "gone.k-1.py311.nbi"]
