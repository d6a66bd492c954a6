"""Running a model file: check everything before any file is written, then simulate with the
standard observers into one output folder.

A run's folder holds ``model.toml`` (what ran, written first), ``history.csv`` (every step),
the ParaView series ``frames.pvd`` + ``frames_#####.vtm`` and ``status.json`` (status,
message, the scalar results, written last). ``prepare`` checks the initial state's sizes and
the output's result columns against the assembled system; ``claim_folder`` refuses a folder
that holds another run's files, or was written by another command (``demo``, ``sweep``: its
``.fe-contact`` file names the command), unless told to clear them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .columns import history_columns
from .consistency import check_consistent_start
from .io.model_file import ModelFileError, Problem, parse_result
from .io.model_problems import MISSING, library_call
from .io.model_sections import ModelFile
from .io.model_writer import model_text
from .limits import LimitExceeded, check_steps, step_count
from .reductions import StreamingResults, reduce_column
from .steppers.observers import CsvObserver, ProgressObserver, VtkObserver
from .steppers.simulate import check_result_memory, make_stepper, simulate
from .system import System, assemble

RUN_FILES = ("model.toml", "history.csv", "frames.pvd", "status.json")
RUN_PATTERNS = ("frames_*.vtm", "frames_*.vtu")  # frames (.vtu: of older versions)
RUN_FOLDERS = ("frames_[0-9]*",)  # the parts of frame frames_#####.vtm
WRITER_FILE = ".fe-contact"  # the command that wrote a folder, one line (``claim_folder``)


class FolderInUse(RuntimeError):
    """An output folder that holds another run's files."""


@dataclass(frozen=True, eq=False)
class PreparedRun:
    """A checked run: the model file, its assembled system and initial state (q0, u0)."""

    model_file: ModelFile
    system: System
    q0: np.ndarray
    u0: np.ndarray


def prepare(model_file: ModelFile) -> PreparedRun:
    """Assemble and check a run before any work: a [simulation] table, the initial state's
    sizes, the result columns of [output]. Raises ModelFileError with every problem."""
    source = model_file.source
    problems = []
    if model_file.simulation is None:
        problems.append(
            Problem("simulation", None, "missing; a run needs [simulation] with t_end (s)")
        )
    try:
        system = assemble(model_file.model)
    except LimitExceeded as err:  # the memory estimate, before anything is allocated
        raise ModelFileError(
            source, [*problems, Problem("structures", MISSING, str(err))]
        ) from None
    try:
        t_start = 0.0 if model_file.simulation is None else model_file.simulation.t_start
        q0, u0 = model_file.initial.state(system, source, t=t_start)
    except ModelFileError as err:
        problems += err.problems
        q0 = u0 = None
    numeric = {name for name, unit in history_columns(system) if not name.endswith("_state")}
    specs = [(f"output.results.{i}", r) for i, r in enumerate(model_file.output.results)]
    if model_file.output.plot is not None:
        specs.append(("output.plot", model_file.output.plot))
    for path, spec in specs:
        _, column = parse_result(spec)
        if column not in numeric:
            problems.append(
                Problem(
                    path,
                    spec,
                    f"no numeric history column {column!r}; allowed: " + ", ".join(sorted(numeric)),
                )
            )
    sim = model_file.simulation
    if q0 is not None:  # the start on the constraints (what simulate checks first)
        try:
            check_consistent_start(system, q0, 0.0 if sim is None else sim.t_start)
        except ValueError as err:
            problems.append(Problem("initial", MISSING, str(err)))
    if not problems:  # bounds before any work: the step count, the rows the run keeps
        try:
            check_steps(sim.t_start, sim.t_end, sim.step(), where="simulation")
        except LimitExceeded as err:
            problems.append(Problem("simulation.h", sim.h, str(err).split(": ", 1)[1]))
    if not problems:  # the stepper checks its settings and the start
        settings = {"method": sim.method, "h": sim.h, **sim.settings}
        try:
            library_call(
                lambda: make_stepper(
                    system, sim.t_start, q0, u0, sim.method, sim.h, sim.settings, sim.t_end
                ),
                ("simulation",),
                settings,
                problems,
            )
        except Exception as err:  # noqa: BLE001 - a start that fails is a problem of the file
            message = f"the stepper cannot start: {type(err).__name__}: {err}"
            problems.append(Problem("simulation", MISSING, message))
    if problems:
        raise ModelFileError(source, problems)
    return PreparedRun(model_file, system, q0, u0)


def check_run_memory(prepared: PreparedRun, record_every: int = 1) -> None:
    """Refuse, before any file is written, a run whose kept rows (every ``record_every``-th
    state) exceed the memory limit (``steppers.simulate.check_result_memory``); a
    ModelFileError naming --record-every and the estimate."""
    mf = prepared.model_file
    sim = mf.simulation
    n_steps = step_count(sim.t_start, sim.t_end, sim.step())
    try:
        check_result_memory(prepared.system, n_steps, record_every, False)
    except LimitExceeded as err:
        message = str(err).split(", which ", 1)[1]
        message = message.replace("a larger store_every", "a larger --record-every N").replace(
            "keep_reports=False, or raise the limit with simulate(..., max_memory=BYTES) or",
            "or raise the limit with",
        )
        raise ModelFileError(
            mf.source, [Problem("--record-every", record_every, message)]
        ) from None


def scalar_result(result, spec: str) -> float:
    """The value of ``"STATISTIC:COLUMN"`` for a SimulationResult or a dict of columns (nan
    without states); ``reductions.reduce_column``."""
    stat, column = parse_result(spec)
    return reduce_column(result[column], stat)


def run_files(folder) -> list[Path]:
    """The files of a run in ``folder`` (none when it does not exist), and the folders of its
    frames' parts (remove them with :func:`remove_run_files`)."""
    folder = Path(folder)
    found = [folder / name for name in RUN_FILES if (folder / name).exists()]
    for pattern in RUN_PATTERNS:
        found += sorted(folder.glob(pattern))
    for pattern in RUN_FOLDERS:
        found += sorted(p for p in folder.glob(pattern) if p.is_dir())
    return found


def remove_run_files(paths) -> None:
    """Delete the files and folders of ``run_files``."""
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def folder_writer(folder) -> str | None:
    """The command that wrote ``folder`` (its ``WRITER_FILE``: "run", "demo NAME", "sweep",
    "sweep case"), None when no command of this library wrote it."""
    try:
        return (Path(folder) / WRITER_FILE).read_text().strip() or "an unknown command"
    except OSError:
        return None


def claim_folder(folder, overwrite: bool = False, writer: str = "run") -> Path:
    """The output folder of a new run of ``writer`` ("run", "demo NAME", ...): FolderInUse when
    it holds another run's files or was written by another command, unless ``overwrite`` (the
    run files are deleted then; nothing else in the folder is touched). The folder is marked
    as written by ``writer`` (``WRITER_FILE``)."""
    folder = Path(folder)
    found = run_files(folder)
    other = folder_writer(folder)
    if other is not None and not any(p.name != WRITER_FILE for p in folder.iterdir()):
        other = None  # nothing written but the mark (a run refused after its claim)
    if (found or other is not None) and not overwrite:
        names = ", ".join(p.name for p in found[:3]) + (", ..." if len(found) > 3 else "")
        by = f"written by 'fe-contact {other}'" if other is not None else ""
        what = "; ".join(x for x in (by, names) if x)
        raise FolderInUse(
            f"{folder} holds another run's files ({what}); allowed: an empty or new folder, "
            "or --overwrite to clear them"
        )
    remove_run_files(found)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / WRITER_FILE).write_text(writer + "\n")
    return folder


def fingerprint(model_file: ModelFile) -> str:
    """A short hash of what a run computes (its model file's text)."""
    return hashlib.sha256(model_text(model_file).encode()).hexdigest()[:16]


def execute(prepared: PreparedRun, folder, progress: str | None = None, record_every: int = 1):
    """Simulate a prepared run into a claimed ``folder``: ``model.toml`` first, then the
    history and frames as it goes, ``status.json`` at the end. Returns the SimulationResult.
    ``record_every`` : the result keeps every N-th state (and the last), so that memory stays
    flat on long runs; the CSV keeps every step, and the scalar results of ``[output] results``
    are reduced row by row as the run goes (``reductions.StreamingResults``): nothing is read
    back."""
    from .io.model_writer import save_model

    mf, folder = prepared.model_file, Path(folder)
    sim = mf.simulation
    save_model(mf, folder / "model.toml")
    h = sim.step()
    results = StreamingResults(mf.output.results)  # reduced as the run goes
    observers = [CsvObserver(folder / "history.csv"), results]
    if mf.output.frame_every > 0.0:
        stride = max(1, round(mf.output.frame_every / h))
        observers.append(VtkObserver(folder, "frames", stride=stride))
    if progress is not None:
        observers.append(ProgressObserver(progress))
    result = simulate(
        prepared.system,
        (sim.t_start, sim.t_end),
        (prepared.q0, prepared.u0),
        method=sim.method,
        h=sim.h,
        observers=observers,
        store_every=record_every,
        **sim.settings,
    )
    status = {
        "status": result.status,
        "message": result.message,
        "t": float(result.t[-1]) if len(result.t) else None,
        "n_steps": int(result.n_steps),
        "fingerprint": fingerprint(mf),
        "results": results.values(),
    }
    tmp = folder / "status.json.tmp"
    tmp.write_text(json.dumps(status, indent=1))
    tmp.replace(folder / "status.json")
    return result


def read_status(folder) -> dict | None:
    """The ``status.json`` of a run folder, None when absent or unreadable."""
    try:
        return json.loads((Path(folder) / "status.json").read_text())
    except (OSError, ValueError):
        return None


__all__ = [
    "FolderInUse",
    "PreparedRun",
    "WRITER_FILE",
    "check_run_memory",
    "claim_folder",
    "execute",
    "fingerprint",
    "folder_writer",
    "prepare",
    "read_status",
    "remove_run_files",
    "run_files",
    "scalar_result",
]
