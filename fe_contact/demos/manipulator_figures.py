"""Figures of the manipulator demo: driving torque per mu and the configuration at the end time.

Both are drawn from what a run returned (the SimulationResult's columns, the last StepReport's
contact point, directions and forces); nothing is recomputed. Matplotlib's ``Figure`` (Agg, no
display), saved as PNG and SVG with the text kept as text.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib import rc_context
from matplotlib.figure import Figure

from ..multibody.tree import body_poses, point_position
from ..papers.lipinski import BEAM, CONTACT, DRIVEN_JOINT

TORQUE = f"drive_{DRIVEN_JOINT}_force"  # the driving torque at joint 2, N m

FORMATS = ("png", "svg")


def save_figure(fig: Figure, path, formats=FORMATS, dpi: int = 150) -> list[Path]:
    """Save ``fig`` as ``path`` with each suffix of ``formats``; returns the written paths."""
    path = Path(path)
    if path.suffix.lower() in (".png", ".svg", ".pdf"):
        path = path.with_suffix("")
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    with rc_context({"svg.fonttype": "none"}):
        for fmt in formats:
            target = path.with_name(f"{path.name}.{fmt}")
            fig.savefig(target, dpi=dpi)
            written.append(target)
    return written


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
    with the normal and friction forces on the end-effector as arrows (the largest 15 % of the
    beam's length)."""
    lay = system.layout
    q = report.q
    structure = system.structures[BEAM]
    beam = structure.beam
    length = structure.length
    fig = Figure(figsize=(8.0, 4.0), layout="constrained")
    ax = fig.add_subplot()
    axis = np.array([beam.origin, beam.origin + length * beam.t0])
    ax.plot(axis[:, 0], axis[:, 1], ls="--", lw=0.8, color="0.6", label="undeformed beam axis")
    s = np.linspace(0.0, length, 20 * len(structure.nodes))
    r = structure.positions(s, q[lay.structure(BEAM)])
    ax.plot(r[:, 0], r[:, 1], color="tab:blue", lw=2.0, label="beam")
    clamp = 0.04 * length * beam.n0
    ends = np.array([beam.origin - clamp, beam.origin + clamp])
    ax.plot(ends[:, 0], ends[:, 1], color="0.3", lw=3, solid_capstyle="butt")
    tree = system.tree
    q_tree = q[lay.tree]
    joints = body_poses(tree, q_tree).origin
    end = point_position(tree, q_tree, *tree.points["end_effector"])
    chain = np.vstack([joints, end])
    ax.plot(chain[:, 0], chain[:, 1], color="0.15", lw=2.5, label="bodies")
    ax.plot(*joints.T, "o", ms=6, mfc="white", mec="0.15", label="joints")
    contact = next(c for c in report.contacts if c.name == CONTACT)
    if contact.n_points:
        at = contact.point[0]
        normal = contact.normal_force[0] * contact.normal[0]
        friction = contact.friction_force[0] * contact.tangent[0]
        largest = max(float(np.hypot(*normal)), float(np.hypot(*friction)))
        scale = 0.15 * length / largest if largest > 0.0 else 0.0
        for vector, colour, name in (
            (normal, "tab:red", "normal"),
            (friction, "tab:orange", "friction"),
        ):
            ax.quiver(
                at[0],
                at[1],
                scale * vector[0],
                scale * vector[1],
                angles="xy",
                scale_units="xy",
                scale=1.0,
                color=colour,
                width=0.004,
                zorder=3,  # above the beam: the friction arrow lies along it
                label=f"{name} force on body",
            )
        ax.plot(*at, "o", ms=4, color="tab:red")
        if scale > 0.0:
            ax.text(
                0.01,
                0.01,
                f"force arrows: 1 N = {1e3 * scale:.3g} mm",
                transform=ax.transAxes,
                fontsize="small",
                va="bottom",
            )
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    ax.set_title(title if title is not None else f"t = {report.t:.6g} s")
    return save_figure(fig, path)


__all__ = ["plot_configuration", "plot_torques", "save_figure"]
