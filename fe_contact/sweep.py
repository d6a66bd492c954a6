"""Parameter sweeps of a model file: the cartesian product of varied key paths, one run folder
per case, on local processes or on a dask.distributed cluster.

``Variation.parse("contacts.tip.mu=0:0.3:7")`` (7 values from 0 to 0.3) or
``"structures.beam.n_elements=4,8"`` (a list); ``plan`` checks every case before any work;
``run_sweep`` runs them (``jobs`` processes, or ``scheduler`` = a dask scheduler address) and
writes ``OUT/<case>/`` (a run folder, see ``fe_contact.runner``), ``OUT/summary.csv`` (one row
per case: the varied values, status, message, the scalar results of ``[output] results``) and a
figure of one result against the first varied parameter. A case that fails is reported in its
row; the others go on. A case whose folder already holds a finished run of the same model file
is not run again.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import itertools
import math
import os
import socket
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import kernels
from .io.model_file import ModelFileError, apply_override, parse_document, parse_value
from .limits import check_cases
from .runner import (
    WRITER_FILE,
    claim_folder,
    execute,
    fingerprint,
    prepare,
    read_status,
    run_files,
)
from .steppers.simulate import simulate

LOCK_FILE = ".lock"  # a case folder's lock while a case runs in it (``case_lock``)


@dataclass(frozen=True)
class Variation:
    """A varied key path and its values."""

    key_path: str
    values: tuple

    @classmethod
    def parse(cls, text: str, max_count: int | None = None) -> Variation:
        """``KEY.PATH=START:STOP:COUNT`` (COUNT equally spaced values, integers when START and
        STOP are integers and every value is one) or ``KEY.PATH=V1,V2,...``; ValueError
        naming what is allowed. A COUNT above ``max_count`` (default ``limits.max_cases``: a
        sweep could not take more cases) is refused before any value is made."""
        key, sep, spec = text.partition("=")
        allowed = "allowed: KEY.PATH=START:STOP:COUNT or KEY.PATH=V1,V2,..."
        if not sep or not key.strip() or not spec.strip():
            raise ValueError(f"{text!r}; {allowed}")
        key = key.strip()
        if ":" in spec:
            parts = spec.split(":")
            if len(parts) != 3:
                raise ValueError(f"{text!r}; {allowed}")
            start, stop, count = (parse_value(p.strip()) for p in parts)
            numbers = all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in (start, stop)
            )
            if not numbers or not all(math.isfinite(v) for v in (start, stop)):
                raise ValueError(f"{text!r}: START and STOP must be numbers; {allowed}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise ValueError(f"{text!r}: COUNT = {count!r}; allowed: an integer >= 1")
            check_cases(count, max_count, f"--vary {text}: COUNT")
            values = np.linspace(start, stop, count).tolist() if count > 1 else [start]
            if isinstance(start, int) and isinstance(stop, int):
                if all(float(v).is_integer() for v in values):
                    values = [int(v) for v in values]
            else:
                values = [_decimal(float(v)) for v in values]
        else:
            values = [parse_value(p.strip()) for p in spec.split(",")]
        if len(set(map(repr, values))) != len(values):
            raise ValueError(f"{text!r}: repeated values; allowed: distinct values")
        return cls(key, tuple(values))


def _decimal(value: float) -> float:
    """The shortest decimal within 4 ulp of ``value``: linspace's 0.09999999999999999 is the
    0.1 the user meant (and names the case folder mu=0.1)."""
    short = float(f"{value:.15g}")
    return short if abs(short - value) <= 4 * math.ulp(value) else value


@dataclass(frozen=True)
class Case:
    """One combination: its folder name, the (key path, value) overrides and the document."""

    name: str
    overrides: tuple
    document: dict


def case_name(overrides, variations) -> str:
    """``mu=0.1_n_elements=8``: the last key of each varied path (the whole path when two
    varied paths end alike) = the value's repr, so 0.1 and 0.1000001 never share a folder."""
    last = [v.key_path.rsplit(".", 1)[-1] for v in variations]
    labels = [
        key if last.count(key) == 1 else v.key_path for key, v in zip(last, variations, strict=True)
    ]
    parts = []
    for label, (_, value) in zip(labels, overrides, strict=True):
        text = value if isinstance(value, str) else repr(value)
        parts.append(f"{label}={text}".replace("/", "_").replace(" ", ""))
    return "_".join(parts)


def case_count(variations) -> int:
    """The number of cases of the cartesian product of ``variations``."""
    return math.prod(len(v.values) for v in variations)


def plan(
    document: dict, variations, source: str = "<model>", max_cases: int | None = None
) -> list[Case]:
    """Every case of the cartesian product, each checked (validated, assembled, initial state
    and result columns) before any work; ModelFileError naming the first failing case. More
    cases than ``max_cases`` (default ``limits.max_cases``: $FE_CONTACT_MAX_CASES, else 1000)
    are refused (``limits.LimitExceeded``) before the first is built."""
    if not variations:
        raise ValueError("a sweep needs at least one --vary KEY.PATH=VALUES")
    keys = [v.key_path for v in variations]
    if len(set(keys)) != len(keys):
        raise ValueError(f"a key path is varied twice: {keys}; allowed: each once")
    check_cases(case_count(variations), max_cases)
    cases = []
    for values in itertools.product(*(v.values for v in variations)):
        overrides = tuple(zip(keys, values, strict=True))
        doc = copy.deepcopy(document)
        for key, value in overrides:
            apply_override(doc, key, value)
        label = ", ".join(f"{k}={v!r}" for k, v in overrides)
        try:
            prepare(parse_document(doc, f"{source} [{label}]"))
        except ModelFileError as err:
            raise err from None
        cases.append(Case(case_name(overrides, variations), overrides, doc))
    return cases


def run_sweep_case(
    case: Case, out, source: str = "<model>", overwrite: bool = False, record_every: int = 1
) -> dict:
    """Run one case into ``out/case.name`` and return its summary row; never raises (a case
    that fails is a row with status "failed" and the message). A folder that already holds a
    finished run of the same model file is reused, unless ``overwrite``. The case runs holding
    its folder's lock (``case_lock``): a second sweep into the same folder waits for it and then
    reuses its run. ``record_every``: the run keeps every N-th state in memory (``execute``)."""
    folder = Path(out) / case.name
    row = {"case": case.name, **dict(case.overrides)}
    try:
        mf = parse_document(case.document, source)
        folder.mkdir(parents=True, exist_ok=True)
        with case_lock(folder):
            status = read_status(folder)
            same = status and status.get("fingerprint") == fingerprint(mf)
            if not overwrite and same and status["status"] == "finished":
                return {
                    **row,
                    "status": "finished",
                    "message": status["message"],
                    "skipped": True,
                    **status["results"],
                }
            prepared = prepare(mf)
            claim_folder(folder, overwrite=True, writer="sweep case")
            result = execute(prepared, folder, record_every=record_every)
            status = read_status(folder)
        return {
            **row,
            "status": result.status,
            "message": result.message,
            "skipped": False,
            **status["results"],
        }
    except Exception as err:  # noqa: BLE001 - reported in the case's row, the sweep goes on
        return {
            **row,
            "status": "failed",
            "message": f"{type(err).__name__}: {err}",
            "skipped": False,
        }


@contextlib.contextmanager
def case_lock(folder, poll: float = 0.05):
    """Hold ``folder/.lock`` while a case runs. The lock file is created atomically (O_CREAT |
    O_EXCL: of two processes one creates it, the other finds it) and holds "host pid"; a
    process that finds it waits (polling every ``poll`` s) until it is gone. A lock left by a
    process that no longer runs on this host is broken."""
    path = Path(folder) / LOCK_FILE
    while True:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if _stale(path):
                path.unlink(missing_ok=True)
            else:
                time.sleep(poll)
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(f"{socket.gethostname()} {os.getpid()}")
        break
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def _stale(path: Path) -> bool:
    """A lock file written by a process of this host that no longer runs."""
    try:
        host, pid = path.read_text().split()
        pid = int(pid)
    except (OSError, ValueError):  # gone, or being written
        return False
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


# steps of the first case taken in the sweep's own process before its workers start, when
# numba's cache lacks the kernels (``_compile_first``)
FIRST_STEPS = 3


def _compile_first(case: Case, source: str) -> None:
    """When numba's cache lacks the kernels (the first run after installing), take the first
    FIRST_STEPS steps of ``case`` in this process, nothing written: the kernels its step path
    uses compile once, here, and the workers load them from the cache instead of each
    compiling them at once. A case that cannot run reports why itself when it runs."""
    if kernels.cached():
        return
    try:
        prepared = prepare(parse_document(case.document, source))
        sim = prepared.model_file.simulation
        t_end = min(sim.t_end, sim.t_start + FIRST_STEPS * sim.step())
        y0 = (prepared.q0, prepared.u0)
        simulate(
            prepared.system, (sim.t_start, t_end), y0, method=sim.method, h=sim.h, **sim.settings
        )
    except Exception:  # noqa: BLE001 - the case's own run reports it in its row
        pass


def _local(cases, out, source, jobs, report, overwrite, record_every):
    rows = {}
    if jobs > 1 and cases:
        _compile_first(cases[0], source)
    if jobs == 1:
        for case in cases:
            rows[case.name] = report(run_sweep_case(case, out, source, overwrite, record_every))
        return rows
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(run_sweep_case, case, out, source, overwrite, record_every)
            for case in cases
        ]
        for future in as_completed(futures):
            row = report(future.result())
            rows[row["case"]] = row
    return rows


def _dask(cases, out, source, scheduler, report, overwrite, record_every):
    from dask.distributed import Client
    from dask.distributed import as_completed as dask_completed

    rows = {}
    with Client(scheduler) as client:
        futures = [
            client.submit(
                run_sweep_case, case, str(out), source, overwrite, record_every, pure=False
            )
            for case in cases
        ]
        for future in dask_completed(futures):
            row = report(future.result())
            rows[row["case"]] = row
    return rows


def run_sweep(
    cases: list[Case],
    variations,
    results,
    out,
    jobs: int = 1,
    scheduler: str | None = None,
    source: str = "<model>",
    report=None,
    overwrite: bool = False,
    record_every: int = 1,
) -> list[dict]:
    """Run the cases (``jobs`` local processes, or on the dask scheduler at ``scheduler``) and
    write ``summary.csv``; returns the rows in the order of ``cases``. ``report(row)`` is
    called as each case ends. ``overwrite``: run every case again (else a case finished
    before with the same model file is reused). ``record_every``: each run keeps every N-th
    state in memory (its results are reduced as it goes, ``execute``)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / WRITER_FILE).write_text("sweep\n")
    done = {}

    def pending(case):
        return {"case": case.name, **dict(case.overrides), "status": "pending", "message": ""}

    def finished(row):
        done[row["case"]] = row
        rows = [done.get(case.name) or pending(case) for case in cases]
        write_summary(rows, variations, results, out / "summary.csv")
        return report(row) if report is not None else row

    write_summary([pending(case) for case in cases], variations, results, out / "summary.csv")
    if scheduler is not None:
        rows = _dask(cases, out, source, scheduler, finished, overwrite, record_every)
    else:
        rows = _local(cases, out, source, jobs, finished, overwrite, record_every)
    return [rows[case.name] for case in cases]


def write_summary(rows, variations, results, path) -> Path:
    """One row per case; written to a temporary file of this process and renamed over
    ``path``, so that a reader (or a kill) never sees half a table, and two sweeps writing
    into one folder do not take each other's temporary file."""
    keys = ["case", *(v.key_path for v in variations), "status", "message", *results]
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(keys)
        for row in rows:
            writer.writerow([_cell(row.get(k, math.nan)) for k in keys])
    os.replace(tmp, path)
    return path


def _cell(value):
    return repr(value) if isinstance(value, float) else value


def plot_result(rows, variations, spec: str, path, unit: str = "") -> list[Path]:
    """``spec`` against the first varied parameter, one line per combination of the others;
    failed cases are left out; ``unit``: the SI unit of the column (on the axis, ``spec
    [unit]``). Writes PNG and SVG."""
    from matplotlib.figure import Figure

    from .io.plots import save_figure

    first, others = variations[0], variations[1:]
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.subplots()
    groups = {}
    for row in rows:
        key = tuple(row[v.key_path] for v in others)
        groups.setdefault(key, []).append(row)
    for key, group in groups.items():
        ok = [r for r in group if r["status"] != "failed" and spec in r]
        x = [r[first.key_path] for r in ok]
        y = [r[spec] for r in ok]
        label = ", ".join(f"{v.key_path} = {k!r}" for v, k in zip(others, key, strict=True))
        ax.plot(x, y, "o-", label=label or None)
    ax.set_xlabel(first.key_path)
    ax.set_ylabel(f"{spec} [{unit}]" if unit else spec)
    ax.grid(True, alpha=0.3)
    if others:
        ax.legend(fontsize=8)
    return save_figure(fig, path)


__all__ = [
    "LOCK_FILE",
    "Case",
    "case_count",
    "case_lock",
    "Variation",
    "case_name",
    "plan",
    "plot_result",
    "run_sweep_case",
    "run_sweep",
    "write_summary",
    "run_files",
]
