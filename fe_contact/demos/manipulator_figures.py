"""Figures of the manipulator demo: driving torque per mu and the configuration at the end time.

Both are drawn from what a run returned (the SimulationResult's columns, the last StepReport's
contact point, directions and forces); nothing is recomputed. Matplotlib's ``Figure`` (Agg, no
display), saved as PNG and SVG with the text kept as text.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ..io.plots import STATE_BANDS, contacts_with_states, save_figure, shade_states, state_intervals
from ..papers.lipinski import DRIVEN_JOINT

TORQUE = f"drive_{DRIVEN_JOINT}_force"  # the driving torque at joint 2, N m


def plot_torques(cases, path) -> list[Path]:
    """Driving torque at joint 2 versus time, one curve per mu (002 Fig. 7b); PNG and SVG.

    Where the results have contact state columns, the intervals in which the end-effector
    sticks or is open are shaded (``io.plots.shade_states``): on the torque axes for a single
    mu, in a strip per mu under them for several (only the mus that stick or open: a run that
    slips throughout has no strip); one legend entry per state.
    """
    ran = [case for case in cases if case.result is not None]
    shaded = [case for case in ran if _switches(case.result)]  # only cases that stick or open
    strips = len(shaded) if len(shaded) > 1 else 0
    fig = Figure(figsize=(7.0, 4.0 + 0.35 * strips), layout="constrained")
    axes = fig.subplots(
        1 + strips, 1, sharex=True, squeeze=False, height_ratios=[8] + [1] * strips
    )[:, 0]
    ax = axes[0]
    for case in ran:
        r = case.result
        ax.plot(r.t, r[TORQUE], label=f"mu = {case.mu:g}")
    handles = {}
    if len(shaded) == 1:
        handles = shade_states(ax, shaded[0].result.t, shaded[0].result.columns)
    for strip, case in zip(axes[1:], shaded if strips else [], strict=True):
        for label, handle in shade_states(strip, case.result.t, case.result.columns).items():
            handles.setdefault(label, handle)
        strip.set_yticks([])
        strip.set_ylabel(f"mu = {case.mu:g}", rotation=0, ha="right", va="center", fontsize=8)
    axes[-1].set_xlabel("time t [s]")
    ax.set_ylabel("driving torque at joint 2 [N m]")
    ax.set_title("Manipulator on the cantilever: driving torque (002 Fig. 7b)")
    ax.grid(True, alpha=0.3)
    curves, labels = ax.get_legend_handles_labels()
    ax.legend(curves + list(handles.values()), labels + list(handles), loc="best", fontsize="small")
    return save_figure(fig, path)


def _switches(result) -> bool:
    """True when a contact of the result sticks or is open somewhere (else: slips throughout)."""
    return any(
        state_intervals(result.t, result.columns[f"{name}_state"]).keys() & set(STATE_BANDS)
        for name in contacts_with_states(result.columns)
    )


__all__ = ["plot_torques", "save_figure"]
