"""The friction oscillator: a block on a spring pressed on a moving belt, stick-slip with
mu_s > mu_k (model and closed form in ``fe_contact.papers.friction_oscillator``).

``fe-contact demo friction-oscillator [--set NAME=VALUE] ... [--t-end T] [--h H] [--out DIR]``
with NAME one of mass (kg), stiffness (N/m), belt_speed (m/s), mu_s, mu_k, gravity (m/s^2);
one ``--set`` per value, as in every command: ``--set mass=1 --set stiffness=100``.

Writes to ``--out`` (default ``out/friction_oscillator``): ``history.csv`` (the standard
history, written as the run goes, then completed with the block's position ``x [m]`` and
velocity ``velocity [m/s]``), ``model.toml``, ``phase.png/.svg`` (x against x', with the
closed-form limit cycle) and ``position.png/.svg`` (x(t) with the stick intervals shaded). It
prints the period, stick time, x_max and x_min of the run's last full cycle next to the closed
form.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np

from ..io.model_sections import InitialState, ModelFile, Output, Simulation
from ..io.model_writer import save_model
from ..papers.friction_oscillator import (
    CONTACT,
    Oscillator,
    friction_oscillator,
    limit_cycle,
)
from ..steppers.observers import standard_observers
from . import DemoParser, folder, overrides, positive


def settings(items) -> Oscillator:
    """A Oscillator with ``NAME=VALUE`` overrides; ValueError naming a bad one."""
    return overrides(Oscillator(), items)


def run(data: Oscillator, t_end: float = 5.0, h: float = 1e-3, out=None):
    """Simulate; returns (system, result). With ``out``: history, model file and figures."""
    scenario = friction_oscillator(data)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = scenario.assemble()
    observers = []
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        run_file = ModelFile(
            model,
            Simulation(t_end, h=h),
            InitialState.from_state(system, q0, u0),
            Output(frame_every=0.0),
        )
        save_model(run_file, out / "model.toml")  # the run: ``fe-contact run`` runs it again
        observers = standard_observers(out, h, None)
    result = scenario.run(system, t_span=(0.0, t_end), h=h, observers=observers)
    if out is not None:
        _complete_history(out / "history.csv", result)
        _figures(out, data, result)
    return system, result


def _complete_history(path: Path, result) -> None:
    """Add the block's x [m] and velocity [m/s] to the written history (same rows)."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    rows[0] += ["x [m]", "velocity [m/s]"]
    for row, x, v in zip(rows[1:], result.q[:, 0], result.u[:, 0], strict=True):
        row += [repr(float(x)), repr(float(v))]
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    os.replace(tmp, path)


def stick_intervals(result) -> list[tuple[float, float]]:
    """(start, end) times of the stick phases, from the located events (exact times, where
    ``io.plots.state_intervals`` of the state column ends them on whole steps)."""
    spans, start = [], 0.0 if result[f"{CONTACT}_state"][0] == "stick" else None
    for t, _, kind in result.events:
        if kind == "stick":
            start = t
        elif kind == "slip" and start is not None:
            spans.append((start, t))
            start = None
    if start is not None:
        spans.append((start, float(result.t[-1])))
    return spans


def _figures(out: Path, data: Oscillator, result) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io.plots import save_figure

    cycle = limit_cycle(data)
    theta = np.linspace(cycle.phase, np.pi - cycle.phase, 400)
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.plot(result.q[:, 0], result.u[:, 0], lw=1.0, label="simulation")
    ax.plot(
        cycle.centre + cycle.amplitude * np.cos(theta),
        -cycle.amplitude * cycle.omega * np.sin(theta),
        "k--",
        lw=0.8,
        label="closed form (slip)",
    )
    ax.plot([cycle.x_stick, cycle.x_break], [data.belt_speed] * 2, "k:", lw=0.8, label="stick")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("x' [m/s]")
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    save_figure(fig, out / "phase")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for k, (a, b) in enumerate(stick_intervals(result)):
        ax.axvspan(a, b, color="tab:orange", alpha=0.25, lw=0, label="stick" if k == 0 else None)
    ax.plot(result.t, result.q[:, 0], lw=1.0, label="x")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("x [m]")
    ax.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    save_figure(fig, out / "position")
    plt.close(fig)


def last_cycle(result):
    """(period, stick time) of the last full cycle from the located events, or None."""
    sticks = [t for t, _, k in result.events if k == "stick"]
    slips = [t for t, _, k in result.events if k == "slip"]
    if len(sticks) < 2 or not any(sticks[-2] < t < sticks[-1] for t in slips):
        return None
    release = next(t for t in slips if sticks[-2] < t < sticks[-1])
    return sticks[-1] - sticks[-2], release - sticks[-2]


def main(argv=None) -> int:
    parser = DemoParser(
        prog="fe-contact demo friction-oscillator", description=__doc__, module=__name__
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override an Oscillator field (e.g. mass=1, belt_speed=0.1); repeatable",
    )
    parser.add_argument(
        "--t-end", type=positive("s"), default=5.0, help="end time in s (default 5)"
    )
    parser.add_argument(
        "--h", type=positive("s"), default=1e-3, help="time step in s (default 1e-3)"
    )
    parser.add_argument(
        "--out", type=folder, default="out/friction_oscillator", help="output folder"
    )
    args = parser.parse_args(argv)
    try:
        data = settings(args.set)
        for name in ("t_end", "h"):
            value = getattr(args, name)
            if not (np.isfinite(value) and value > 0):
                raise ValueError(
                    f"--{name.replace('_', '-')}: got {value!r}; allowed: a time > 0 s"
                )
    except ValueError as err:
        return parser.refuse(str(err))
    _, result = run(data, args.t_end, args.h, args.out)
    cycle = limit_cycle(data)
    print(f"status: {result.status}: {result.message}")
    print(f"events: {result.event_counts()}")
    measured = last_cycle(result)
    x = result.q[:, 0]
    print(f"{'':14}{'closed form':>14}{'simulation':>14}")
    if measured is not None:
        print(f"{'period [s]':14}{cycle.period:14.6f}{measured[0]:14.6f}")
        print(f"{'stick [s]':14}{cycle.stick:14.6f}{measured[1]:14.6f}")
    print(f"{'x_max [m]':14}{cycle.x_max:14.6g}{x.max():14.6g}")
    late = result.t > cycle.x_break / data.belt_speed
    if np.any(late):
        print(f"{'x_min [m]':14}{cycle.x_min:14.6g}{x[late].min():14.6g}")
    print(f"written to {args.out}/")
    return 0 if result.success else 1


if __name__ == "__main__":
    raise SystemExit(main())
