"""Compiled and Python orchestration side by side on every demo and example model
(``python benchmarks/agreement.py [--out DIR] [--models WORD ...]``).

Each model of ``speed_demos.MODELS`` (the demos and example models, each run by its own code
over a horizon through its contact events) is run twice: as it runs (the compiled step, the
compiled Moreau-Jean sub-step or the event-driven stepper's batches wherever the system
allows them) and with every run of ``simulate`` forced onto the Python step
(generalised-alpha ``compiled=False``; Moreau-Jean without its compiled sub-step; event-driven
``batch=False``). The two runs of each ``simulate`` call are compared: the time grids, the
events, and the largest difference of the positions q and velocities u over the run, each
relative to the largest |q| (|u|) of the Python run (so a difference of a few 1e-16 is
round-off of the coordinates' size, and a growing difference is round-off amplified by the
motion, e.g. a frictionless contact or a stick-slip decision taken a step apart).

Writes ``agreement.csv`` (one row per run of ``simulate``; with ``--models`` the rows of those
models are replaced in the table, the others kept) and prints a table; the Markdown
table of ``docs/details/speed.md`` ("Compiled against Python on every demo") is
``markdown_table``. Models whose runs take no compiled step either way are listed as such (the
comparison would compare the Python step with itself).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import speed_demos  # noqa: E402 - the benchmarks' folder is on the path only now


@contextmanager
def python_steps():
    """While active, every ``simulate`` takes the Python step: generalised-alpha without its
    compiled step, Moreau-Jean without its compiled sub-step, event-driven without batches."""
    from fe_contact.steppers import simulate as sim_module

    make = sim_module.make_stepper

    def make_stepper(system, t0, q0, u0, method, h, settings, t_end=None):
        settings = dict(settings)
        if method == "generalized-alpha":
            settings["compiled"] = False
        elif method == "event-driven":
            settings["batch"] = False
        stepper = make(system, t0, q0, u0, method, h, settings, t_end)
        if method == "moreau":
            stepper._whole = None  # the Python sub-step (as the Moreau-Jean tests force it)
        return stepper

    sim_module.make_stepper = make_stepper
    try:
        yield
    finally:
        sim_module.make_stepper = make


def _largest(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(largest |a - b|, largest |b|) over the common rows of two (k, n) arrays."""
    k = min(len(a), len(b))
    if k == 0 or a.shape[1:] != b.shape[1:]:
        return float("nan"), float("nan")
    diff = np.abs(np.asarray(a[:k], float) - np.asarray(b[:k], float))
    return float(np.nanmax(diff, initial=0.0)), float(np.nanmax(np.abs(b[:k]), initial=0.0))


def compare(fast, slow) -> dict:
    """The comparison of one run of ``simulate`` taken both ways (``SimulationResult``s)."""
    same_grid = len(fast.t) == len(slow.t) and np.allclose(
        fast.t, slow.t, rtol=0.0, atol=1e-9 * max(abs(float(slow.t[-1])), 1e-300)
    )
    events_fast = [(round(float(e[0]), 9), *e[1:]) for e in fast.events]
    events_slow = [(round(float(e[0]), 9), *e[1:]) for e in slow.events]
    dq, q_scale = _largest(fast.q, slow.q)
    du, u_scale = _largest(fast.u, slow.u)
    n = min(len(fast.t), len(slow.t))
    end_dq, _ = _largest(fast.q[n - 1 : n], slow.q[n - 1 : n]) if n else (float("nan"), 0.0)
    return {
        "same time grid": same_grid,
        "rows (compiled / Python)": f"{len(fast.t)} / {len(slow.t)}",
        "events (compiled / Python)": f"{len(fast.events)} / {len(slow.events)}",
        "same events": [e[1:] for e in events_fast] == [e[1:] for e in events_slow],
        "largest event time difference [s]": (
            max(
                (abs(a[0] - b[0]) for a, b in zip(events_fast, events_slow, strict=True)),
                default=0.0,
            )
            if len(events_fast) == len(events_slow)
            else float("nan")
        ),
        "max |dq| / max |q|": dq / q_scale if q_scale > 0 else dq,
        "max |du| / max |u|": du / u_scale if u_scale > 0 else du,
        "end |dq| / max |q|": end_dq / q_scale if q_scale > 0 else end_dq,
        "max |q|": q_scale,
        "max |u|": u_scale,
    }


def agreement_rows(words=None) -> list[dict]:
    """Run every model of ``speed_demos.MODELS`` (those whose name holds one of ``words``)
    both ways and compare each run of ``simulate``."""
    rows = []
    models = speed_demos.MODELS
    if words:
        models = [m for m in models if any(w in m[0] for w in words)]
    for name, horizon, run_model in models:
        taken = {}
        for way in ("compiled", "python"):
            runs = []
            cpu0 = time.process_time()
            try:
                with speed_demos.recording(runs):
                    if way == "python":
                        with python_steps():
                            run_model()
                    else:
                        run_model()
            except Exception as err:  # noqa: BLE001 - a model that fails is a row saying so
                runs = [{"error": f"{type(err).__name__}: {err}"}]
            taken[way] = (runs, time.process_time() - cpu0)
        fast, slow = taken["compiled"][0], taken["python"][0]
        for k, (a, b) in enumerate(zip(fast, slow, strict=False)):
            label = name if len(fast) == 1 else f"{name} [run {k + 1}]"
            row = {"model": label, "horizon": horizon}
            if "error" in a or "error" in b:
                row["note"] = a.get("error") or b.get("error")
                rows.append(row)
                continue
            ra, rb = a["result"], b["result"]
            row.update(
                {
                    "method": speed_demos.method_label(a),
                    "steps compiled / Python (compiled run)": f"{ra.n_compiled} / {ra.n_python}",
                    "status (compiled / Python)": f"{ra.status} / {rb.status}",
                    "CPU compiled [s]": round(a["cpu"], 3),
                    "CPU Python [s]": round(b["cpu"], 3),
                }
            )
            if ra.n_compiled == 0:
                row["note"] = "no compiled step in either run: " + (
                    speed_demos.python_reason(a) or "-"
                )
            else:
                row.update(compare(ra, rb))
            rows.append(row)
            print(_line(row), flush=True)
        if len(fast) != len(slow):
            rows.append({"model": name, "horizon": horizon,
                         "note": f"{len(fast)} runs compiled, {len(slow)} on the Python step"})  # fmt: skip
    return rows


def _line(row: dict) -> str:
    if "max |dq| / max |q|" not in row:
        return f"{row['model'][:50]:50s} {row.get('note', '')}"
    return (
        f"{row['model'][:50]:50s} grid {'=' if row['same time grid'] else 'x'} events "
        f"{row['events (compiled / Python)']:>9s} {'=' if row['same events'] else 'x'}  "
        f"dq {row['max |dq| / max |q|']:.1e}  du {row['max |du| / max |u|']:.1e}  "
        f"CPU {row['CPU compiled [s]']:.2f} / {row['CPU Python [s]']:.2f} s"
    )


def merged_rows(rows: list[dict], path: Path) -> list[dict]:
    """The rows of the table at path (if any) with those of this run in their places (by
    model; a model not in the table goes at the end): ``--models`` refreshes some rows."""
    if not path.exists():
        return rows
    with open(path, newline="") as fh:
        old = list(csv.DictReader(fh))
    where = {r["model"]: i for i, r in enumerate(old)}
    for r in rows:
        if r["model"] in where:
            old[where[r["model"]]] = r
        else:
            old.append(r)
    return [{k: v for k, v in r.items() if v not in (None, "")} for r in old]


def write_csv(rows: list[dict], path: Path) -> None:
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def markdown_table(path) -> str:
    """The rows of ``agreement.csv`` at ``path`` as the Markdown table of
    ``docs/details/speed.md``."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    lines = [
        "| model | method | steps compiled / Python | events compiled / Python | same time grid "
        "and events | max dq / max q | max du / max u | CPU compiled / Python |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if not r.get("max |dq| / max |q|"):
            lines.append(f"| {r['model']} | {r.get('method', '')} | | | {r['note']} | | | |")
            continue
        same = r["same time grid"] == "True" and r["same events"] == "True"
        dt = float(r["largest event time difference [s]"])
        lines.append(
            f"| {r['model']} | {r['method']} | {r['steps compiled / Python (compiled run)']} "
            f"| {r['events (compiled / Python)']} | {'yes' if same else 'no'}"
            f"{f' (event times to {dt:.0e} s)' if same and dt > 0 else ''} "
            f"| {float(r['max |dq| / max |q|']):.1e} | {float(r['max |du| / max |u|']):.1e} "
            f"| {float(r['CPU compiled [s]']):.2f} / {float(r['CPU Python [s]']):.2f} s |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--models", nargs="+", metavar="WORD", help="only these models")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    rows = agreement_rows(args.models)
    args.out.mkdir(parents=True, exist_ok=True)
    name = "agreement.csv"
    if args.models:  # the rows measured now in their places of the table
        rows = merged_rows(rows, args.out / name)
    write_csv(rows, args.out / name)
    print(markdown_table(args.out / name))
    print(f"benchmark wall time {time.perf_counter() - t0:.0f} s; {args.out / name}")


if __name__ == "__main__":
    main()
