"""Figures of the manipulator demo: driving torque per mu and the configuration at the end time.

Both are drawn from what a run returned (the SimulationResult's columns, the last StepReport's
contact point, directions and forces); nothing is recomputed. Matplotlib's ``Figure`` (Agg, no
display), saved as PNG and SVG with the text kept as text.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ..io.plots import plot_configuration as plot_configuration_of
from ..io.plots import save_figure
from ..papers.lipinski import DRIVEN_JOINT

TORQUE = f"drive_{DRIVEN_JOINT}_force"  # the driving torque at joint 2, N m


def plot_torques(cases, path) -> list[Path]:
    """Driving torque at joint 2 versus time, one curve per mu (002 Fig. 7b); PNG and SVG."""
    fig = Figure(figsize=(7.0, 4.0), layout="constrained")
    ax = fig.add_subplot()
    for case in cases:
        r = case.result
        if r is None:
            continue
        ax.plot(r.t, r[TORQUE], label=f"mu = {case.mu:g}")
    ax.set_xlabel("time t [s]")
    ax.set_ylabel("driving torque at joint 2 [N m]")
    ax.set_title("Manipulator on the cantilever: driving torque (002 Fig. 7b)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return save_figure(fig, path)


def plot_configuration(system, report, path, title: str | None = None) -> list[Path]:
    """The mechanism and the deflected beam to scale at the state of ``report`` (a StepReport),
    with the normal and friction forces on the end-effector (``fe_contact.io.plots``)."""
    return plot_configuration_of(system, report, path, title=title)


__all__ = ["plot_configuration", "plot_torques", "save_figure"]
