"""The kernels compiled in a background process while the first runs take the Python step.

The first compiled run after an installation spends 1-2 minutes of CPU compiling the numba
kernels (``kernels.announce_compilation``). In the ``background`` mode a run that finds no
cache starts one detached process that compiles them (the module
``fe_contact.compile_kernels`` of the same copy of the package, ``job_command``: a short run of the manipulator on the cantilever,
whose compiled step calls the same entry kernels, with the same argument types, as every
generalised-alpha run on the compiled step) and takes its own steps in Python meanwhile (the
same step, its results those of the compiled step to round-off: ``compiled=False``); when
that process has finished, a running generalised-alpha run goes on compiled from its next
quiet step (``GeneralizedAlpha.steps``) and later runs load the kernels from the cache. In
the ``foreground`` mode (the library's default) a run compiles the kernels itself before its
first compiled step, as before.

The mode: the ``FE_CONTACT_COMPILE`` environment variable, ``foreground`` or ``background``;
the ``fe-contact`` command sets ``background`` unless the variable is set (its worker
processes inherit it). A lock file in numba's cache folder (``kernels.cache_folder``) holds
the background process's id while it runs, so that runs started meanwhile (a sweep's
workers) neither start another nor switch before it is done; its output goes to
``background-compile.log`` beside it. A lock whose process is gone (killed; on Linux, one whose
process number now belongs to a process that is not the job) or older than ``STALE_AFTER`` is
taken over.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from .. import kernels

ENVIRONMENT = "FE_CONTACT_COMPILE"
MODES = ("foreground", "background")
LOCK_NAME = "background-compile.lock"
LOG_NAME = "background-compile.log"
JOB = "fe_contact.compile_kernels"  # the module the background process runs
STALE_AFTER = 3600.0  # s: a lock this old is taken over (a compilation takes minutes)
CHECK_EVERY = 1.0  # s of wall time between two looks at the lock of a pending run
STARTING = 10.0  # s: a lock this young counts while its process does not show the job yet


def compile_mode(mode: str | None = None) -> str:
    """``mode``, else ``$FE_CONTACT_COMPILE``, else "foreground"; checked against ``MODES``.

    Parameters
    ----------
    mode : str or None
        "foreground" (a run compiles the kernels it needs before its first compiled step) or
        "background" (a run without cached kernels starts their compilation in a detached
        process and takes the Python step until it is done).

    Returns
    -------
    str
        One of ``MODES``.

    Raises
    ------
    ValueError
        The mode (or the variable) is not one of ``MODES``; the message names which.

    Examples
    --------
    >>> compile_mode("background")
    'background'
    """
    source = "mode"
    if mode is None:
        mode, source = os.environ.get(ENVIRONMENT) or "foreground", f"${ENVIRONMENT}"
    if mode not in MODES:
        raise ValueError(f"{source} = {mode!r}; allowed: {', '.join(MODES)}")
    return mode


def _lock_path() -> Path:
    return kernels.cache_folder() / LOCK_NAME


def _running(lock: Path) -> bool:
    """Does ``lock`` name a process that still runs and is not stale?"""
    try:
        text = lock.read_text(encoding="utf-8").split()
        pid, started = int(text[0]), float(text[1])
    except (OSError, ValueError, IndexError):
        try:  # claimed, its process id not written yet (``start`` is starting it)
            return time.time() - lock.stat().st_mtime < STARTING
        except OSError:
            return False
    if time.time() - started > STALE_AFTER:
        return False
    try:  # where the system shows command lines (Linux): the process must be the job, not
        # another that took the number of one that died with the machine (a container's); a
        # child just forked shows its parent's command line until it runs the job
        shown = Path(f"/proc/{pid}/cmdline").read_bytes()
        return JOB.encode() in shown or time.time() - started < STARTING
    except FileNotFoundError:
        if Path("/proc/self/cmdline").exists():
            return False  # no such process
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it runs
        return True
    return True


def compiling() -> bool:
    """True while a background compilation of the kernels runs (its lock names a live
    process).

    Returns
    -------
    bool
        Whether the lock file names a live process started less than ``STALE_AFTER`` ago.

    Examples
    --------
    >>> isinstance(compiling(), bool)
    True
    """
    return _running(_lock_path())


def start(command: list[str] | None = None) -> bool:
    """Start the background compilation unless one runs: a detached process (its own
    session, lower priority) running ``command`` (default: this module's ``main``) with this
    process's environment, its lock claimed here and its output in ``background-compile.log``.

    Parameters
    ----------
    command : list of str or None
        The arguments after the interpreter (default ``job_command()``: the module
        ``fe_contact.compile_kernels`` of this package); a process counts as the compilation
        while its command line names ``JOB``.

    Returns
    -------
    bool
        True when a compilation runs now (started here or before), False when it could not be
        started (the cache folder is not writable, the process did not start).

    Examples
    --------
    >>> start.__name__
    'start'
    """
    lock = _lock_path()
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if _running(lock):
                return True
            try:  # stale: its process is gone
                lock.unlink()
            except OSError:
                pass
            continue
        except OSError:
            return False
        break
    else:
        return _running(lock)
    command = job_command() if command is None else list(command)
    try:
        with open(lock.parent / LOG_NAME, "w", encoding="utf-8") as log:
            child = subprocess.Popen(
                [sys.executable, *command],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, ENVIRONMENT: "foreground"},
            )
    except OSError:
        os.close(fd)
        lock.unlink(missing_ok=True)
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f"{child.pid} {time.time()!r}\n")
    return True


def job_command(statement: str | None = None) -> list[str]:
    """The interpreter's arguments that run ``statement`` (default: the job's ``main``) with
    THIS copy of the package first on the path: ``python -m`` would import the copy in the
    working directory first (a source checkout the package was installed from), whose cache
    the installed copy never reads.

    Parameters
    ----------
    statement : str or None
        Python statements run after the path is set (default: ``JOB``'s ``main``, its exit
        code the process's).

    Returns
    -------
    list of str
        ``["-c", code]``; the code names ``JOB``.

    Examples
    --------
    >>> job_command()[0]
    '-c'
    """
    root = str(Path(kernels.__file__).resolve().parents[2])
    if statement is None:
        statement = f"from {JOB} import main; raise SystemExit(main())"
    return ["-c", f"import sys; sys.path.insert(0, {root!r}); {statement}  # {JOB}"]


class PendingKernels:
    """The kernels compiling in a background process, seen from one run: ``ready()`` is True
    once that process has finished and the cache holds the entry kernels (looked at no more
    often than every ``CHECK_EVERY`` s of wall time).

    Examples
    --------
    >>> PendingKernels().ready()  # just made: not looked at before CHECK_EVERY s
    False
    """

    def __init__(self):
        self._next = time.monotonic() + CHECK_EVERY

    def ready(self) -> bool:
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + CHECK_EVERY
        return not compiling() and kernels.cached()


MESSAGE = (
    "the numba kernels compile in a background process (once after installation, 1-2 minutes "
    "of CPU); until they are ready runs take the Python step (the same step, slower; its "
    "results those of the compiled step to round-off)"
)


def pending_kernels(mode: str | None = None) -> PendingKernels | None:
    """What a run on the compiled step waits for: None when it compiles or loads the kernels
    itself (the ``foreground`` mode, or the cache holds them), else a ``PendingKernels`` (the
    background compilation started if none runs; said once per process, as
    ``kernels.announce_compilation`` says it).

    Parameters
    ----------
    mode : str or None
        ``compile_mode``'s argument.

    Returns
    -------
    PendingKernels or None
        What the run waits for, or None when it compiles or loads the kernels itself.

    Examples
    --------
    >>> pending_kernels("foreground") is None
    True
    """
    if compile_mode(mode) == "foreground" or (kernels.cached() and not compiling()):
        return None
    if not start():
        return None  # it cannot run in the background: compile here
    kernels.announce(MESSAGE)
    return PendingKernels()


def release() -> None:
    """Remove the lock when it names this process (the background compilation is done); a
    lock naming another process stays.

    Examples
    --------
    >>> release()  # this process holds no lock: nothing is removed
    """
    lock = _lock_path()
    try:
        if int(lock.read_text(encoding="utf-8").split()[0]) == os.getpid():
            lock.unlink()
    except (OSError, ValueError, IndexError):
        pass
