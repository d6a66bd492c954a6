"""The configuration of a system at one state, drawn to scale (``plot_configuration``,
``configuration_figure``): the structures with their supports, the rigid lines, the tree's
bodies and joints, the circle profiles and, for a StepReport, the contact force arrows, with a
zoom at the contact of the largest normal force. It is drawn from positions only
(``io.frames.geometry_blocks``) and the report's contact forces (``io.contact_blocks``):
nothing is recomputed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from ..sides import Line
from ..structures import BeamStructure
from ..system import System
from .contact_blocks import contact_block
from .figure_files import FORMATS, save_figure
from .frames import geometry_blocks


def _support_marks(ax, system: System, size: float) -> None:
    """A short wall across a clamped end, a triangle under a pinned end of every beam."""
    for structure in system.structures.values():
        if not isinstance(structure, BeamStructure):
            continue
        beam = structure.beam
        for end, kind in ((0.0, beam.spec.left), (beam.spec.length, beam.spec.right)):
            p = beam.origin + end * beam.t0
            if kind == "clamped":
                a, b = p - 0.5 * size * beam.n0, p + 0.5 * size * beam.n0
                ax.plot([a[0], b[0]], [a[1], b[1]], color="0.3", lw=3, solid_capstyle="butt")
            elif kind == "pinned":
                ax.plot(*p, marker="^", color="0.3", ms=9, ls="none")


def _line_targets(ax, system: System) -> None:
    """The rigid lines that contacts touch, drawn across the whole axes."""
    seen = set()
    for c in system.model.contacts:
        line = c.target
        if isinstance(line, Line) and (line.point, line.normal) not in seen:
            seen.add((line.point, line.normal))
            p = np.asarray(line.point)
            direction = np.array([line.normal[1], -line.normal[0]])
            ax.axline(p, p + direction, color="0.3", lw=1.5)


MIN_ARROW = 0.06  # shortest drawn force arrow, as a fraction of the size of the drawing
_ARROW_COLOURS = {"normal": "tab:red", "friction": "tab:orange"}  # as in the animations
_DOT_ZORDER = 4  # the contact points, above the lines (2) and the profiles
ARROW_ZORDER = 5  # the force arrows, above the contact points


def _arrow_lengths(vectors: np.ndarray, scale: float, shortest: float) -> np.ndarray:
    """Drawn length of each force vector (k, 2): scale |f|, at least ``shortest`` (0 if f = 0)."""
    size = np.linalg.norm(vectors, axis=1)
    return np.where(size > 0.0, np.maximum(scale * size, shortest), 0.0)


def _force_arrows(ax, at, forces, scale: float, shortest: float, labels) -> list:
    """FancyArrowPatches from the points ``at`` (k, 2) along each force (name -> (k, 2)),
    scale m/N but never shorter than ``shortest`` m; labelled once per force (labels: name ->
    label or None). Returns the arrows' tips and tails (for the data limits)."""
    from matplotlib.patches import FancyArrowPatch

    ends = []
    for name, vectors in forces.items():
        lengths = _arrow_lengths(vectors, scale, shortest)
        label = labels.get(name)
        for p, f, length in zip(at, vectors, lengths, strict=True):
            if length <= 0.0:
                continue
            tip = p + length * f / np.linalg.norm(f)
            arrow = FancyArrowPatch(
                tuple(p),
                tuple(tip),
                arrowstyle="-|>",
                mutation_scale=14,
                lw=2.2,
                color=_ARROW_COLOURS[name],
                shrinkA=0.0,
                shrinkB=0.0,
                zorder=ARROW_ZORDER,  # above the beam and the contact dot
                label=label or "_nolegend_",
                gid=f"{name}_force",
            )
            ax.add_artist(arrow)
            ends += [p, tip]
            label = None
    return ends


def _draw_scene(ax, system: System, blocks, structures, length: float) -> None:
    """Structures, supports, lines, the tree and the profiles (shared by the axes and the inset)."""
    for points, label, axis in structures:
        if axis is not None:
            ax.plot(*axis.T, ls="--", lw=0.8, color="0.6")
        ax.plot(points[:, 0], points[:, 1], lw=2.0, label=label, gid=f"structure {label}")
    _support_marks(ax, system, 0.08 * length)
    _line_targets(ax, system)
    if "tree" in blocks:
        tree_b = blocks["tree"]
        for kind, conn in tree_b.cells:
            if kind == "line":
                ax.add_collection(
                    LineCollection(tree_b.points[conn], colors="0.15", linewidths=2.5)
                )
            else:  # the joints' vertices (carriers of floating bodies have none)
                joints = tree_b.points[conn[:, 0]]
                ax.plot(*joints.T, "o", ms=6, mfc="white", mec="0.15", label="joints")
    for c in system.model.contacts:
        disk = blocks.get(f"{c.name}_profile")
        if disk is not None:
            for _, conn in disk.cells:
                ax.add_collection(LineCollection(disk.points[conn], colors="0.3", linewidths=1.5))


def _inset_bounds(ax, points: np.ndarray, centre: np.ndarray) -> list:
    """[x0, y0, w, h] (axes fraction) of the corner of ``ax`` (not the upper right one, where
    the legend is) covering the fewest drawn points, then the one farthest from ``centre``."""
    fraction = ax.transLimits.transform(points)
    c = ax.transLimits.transform(centre)
    width, height = 0.3, 0.4
    best = None
    for x0, y0 in ((0.03, 0.15), (0.03, 0.55), (0.67, 0.15)):
        inside = np.all((fraction >= [x0, y0]) & (fraction <= [x0 + width, y0 + height]), axis=1)
        mid = np.array([x0 + 0.5 * width, y0 + 0.5 * height])
        key = (int(inside.sum()), -float(np.linalg.norm(mid - c)))
        if best is None or key < best[0]:
            best = (key, [x0, y0, width, height])
    return best[1]


def plot_configuration(
    system: System,
    state,
    path,
    *,
    forces: bool = True,
    force_scale: float | None = None,
    deflection_scale: float = 1.0,
    inset: bool = True,
    title: str | None = None,
    formats: Sequence[str] = FORMATS,
    size: tuple[float, float] = (8.0, 4.0),
    dpi: int = 150,
) -> list[Path]:
    """Draw the system at one state, to scale.

    Every structure, the tree's bodies and joints, the circle profiles, the rigid lines and
    (for a StepReport) the contact forces.

    Parameters
    ----------
    system : System
        The assembled model.
    state : StepReport or array_like, shape (n,)
        A StepReport (its q, contact points and forces) or coordinates q (no forces).
    path : str or os.PathLike
        File name; its suffix is replaced by each of ``formats``.
    forces : bool, optional
        Draw the contact force arrows (see ``configuration_figure``); True by default.
    force_scale : float or None, optional
        Arrow length per force, m/N; None: the largest arrow is 15 % of the drawing.
    deflection_scale : float, optional
        Factor on the beams' deflections; 1 (to scale) by default.
    inset : bool, optional
        A zoom around the contact point of the largest normal force; True by default.
    title : str or None, optional
        The figure's title.
    formats : sequence of str, optional
        File formats; ("png", "svg") by default.
    size : tuple of float, shape (2,), optional
        (width, height) in inches; (8, 4) by default.
    dpi : int, optional
        Resolution of the raster formats; 150 by default.

    Returns
    -------
    list of pathlib.Path
        The written paths.

    Examples
    --------
    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> import tempfile, pathlib
    >>> from fe_contact.io.plots import plot_configuration
    >>> with tempfile.TemporaryDirectory() as out:
    ...     paths = plot_configuration(system, result.reports[-1], pathlib.Path(out) / "rest",
    ...                                formats=("svg",))
    ...     print([p.name for p in paths], "N" in paths[0].read_text())
    ['rest.svg'] True
    """
    fig = configuration_figure(
        system,
        state,
        forces=forces,
        force_scale=force_scale,
        deflection_scale=deflection_scale,
        inset=inset,
        title=title,
        size=size,
    )
    return save_figure(fig, path, formats, dpi)


def configuration_figure(
    system: System,
    state,
    *,
    forces: bool = True,
    force_scale: float | None = None,
    deflection_scale: float = 1.0,
    inset: bool = True,
    title: str | None = None,
    size: tuple[float, float] = (8.0, 4.0),
) -> Figure:
    """The Figure of ``plot_configuration`` (not saved).

    Parameters
    ----------
    system : System
        The assembled model.
    state : StepReport or array_like, shape (n,)
        A StepReport (its q, contact points and forces) or coordinates q (no forces).
    forces : bool, optional
        Draw the contact force arrows (normal and friction on the profiles), in front of the
        structures and the contact points, each at least ``MIN_ARROW`` (6 %) of the size of
        the drawing long (a force that is not zero never vanishes under the beam); the legend
        gives each force in N (the sum over the closed points). True by default.
    force_scale : float or None, optional
        Arrow length per force, m/N; None (the default): the largest arrow is 15 % of the size
        of the drawing.
    deflection_scale : float, optional
        Factor on the beams' deflections (1, the default: to scale; another value is stated in
        the legend, and contact points then no longer sit on the drawn beam).
    inset : bool, optional
        With forces, a zoom around the contact point of the largest normal force (the profile,
        the structure and both arrows, drawn again at a scale of the zoom) in a corner; True by
        default.
    title : str or None, optional
        The figure's title; None (the default): none.
    size : tuple of float, shape (2,), optional
        (width, height) in inches; (8, 4) by default.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Examples
    --------
    A mass resting on a cantilever, drawn to scale with its contact force:

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> import matplotlib.pyplot as plt
    >>> from fe_contact.io.plots import configuration_figure
    >>> fig = configuration_figure(system, result.reports[-1])
    >>> len(fig.axes) >= 1
    True
    >>> plt.close(fig)
    """
    report = None if isinstance(state, np.ndarray | list | tuple) else state
    q = np.asarray(state if report is None else report.q, dtype=float)
    blocks = {b.name: b for b in geometry_blocks(system, q)}
    if report is not None and system.model.contacts:
        blocks["contacts"] = contact_block(system, report)
    fig = Figure(figsize=size, layout="constrained")
    ax = fig.add_subplot()
    extent, structures = [], []
    for name, structure in system.structures.items():
        b = blocks[name]
        points = b.points
        label, axis = name, None
        if isinstance(structure, BeamStructure):
            beam = structure.beam
            axis = np.array([beam.origin, beam.origin + beam.spec.length * beam.t0])
            points = points - (1.0 - deflection_scale) * b.point_data["displacement"]
            if deflection_scale != 1.0:
                label = f"{name}, deflection x {deflection_scale:g}"
        structures.append((points, label, axis))
        extent.append(points)
    for b in blocks.values():
        if b.name.endswith("_profile") or b.name == "tree":
            extent.append(b.points)
    length = float(np.ptp(np.vstack(extent), axis=0).max()) if extent else 1.0
    length = length if length > 0.0 else 1.0
    _draw_scene(ax, system, blocks, structures, length)
    c_block = blocks.get("contacts")
    zoom = None
    if forces and c_block is not None and np.any(c_block.point_data["contact"] >= 0):
        at = c_block.points
        vectors = {
            "normal": c_block.point_data["normal_force"],
            "friction": c_block.point_data["friction_force"],
        }
        largest = float(np.max(np.linalg.norm(np.vstack(list(vectors.values())), axis=1)))
        if force_scale is None:
            force_scale = 0.15 * length / largest if largest > 0.0 else 0.0
        labels = {
            name: f"{name} force on profile, {np.linalg.norm(v.sum(axis=0)):.4g} N"
            for name, v in vectors.items()
        }
        shortest = MIN_ARROW * length
        ends = _force_arrows(ax, at, vectors, force_scale, shortest, labels)
        if ends:
            ax.update_datalim(np.array(ends))
        ax.plot(*at.T, "o", ms=4, color="0.1", zorder=_DOT_ZORDER, label="contact point")
        if force_scale > 0.0:
            ax.text(
                0.01,
                0.01,
                f"force arrows: 1 N = {1e3 * force_scale:.3g} mm "
                f"(at least {1e3 * shortest:.3g} mm)",
                transform=ax.transAxes,
                fontsize="small",
                va="bottom",
            )
        if inset and largest > 0.0:
            zoom = (at, vectors, at[int(np.argmax(np.linalg.norm(vectors["normal"], axis=1)))])
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    if title is None:
        title = "configuration" if report is None else f"t = {report.t:.6g} s"
    ax.set_title(title)
    if zoom is not None:
        _zoom_inset(ax, system, blocks, structures, length, extent, *zoom)
    return fig


def _zoom_inset(ax, system, blocks, structures, length, extent, at, vectors, centre) -> None:
    """A zoom of half-width 5 % of the drawing around ``centre`` with the arrows redrawn
    (the largest 75 % of the half-width, none shorter than 40 %), linked to the main axes."""
    from matplotlib.ticker import MaxNLocator

    half = 0.05 * length
    largest = float(np.max(np.linalg.norm(np.vstack(list(vectors.values())), axis=1)))
    ax.apply_aspect()
    inset = ax.inset_axes(_inset_bounds(ax, np.vstack(extent), centre))
    _draw_scene(inset, system, blocks, structures, length)
    _force_arrows(inset, at, vectors, 0.75 * half / largest, 0.4 * half, {})
    inset.plot(*at.T, "o", ms=4, color="0.1", zorder=_DOT_ZORDER)
    inset.set_xlim(centre[0] - half, centre[0] + half)
    inset.set_ylim(centre[1] - half, centre[1] + half)
    inset.set_aspect("equal", adjustable="box")
    inset.tick_params(labelsize="x-small")
    inset.xaxis.set_major_locator(MaxNLocator(3))
    inset.yaxis.set_major_locator(MaxNLocator(3))
    inset.set_title("zoom at the contact (arrows rescaled)", fontsize="x-small")
    ax.indicate_inset_zoom(inset, edgecolor="0.3")
