"""Matplotlib figures of a run: time histories of named columns and the configuration at one state.

Figures are made with ``matplotlib.figure.Figure`` (no pyplot state, no display needed) and saved
as PNG and SVG. Axis labels carry SI units: those of ``history_columns(system)`` when a system is
given, otherwise read off the column names with the same vocabulary (``contact_gap`` is in m,
``tree_kinetic_energy`` in J, see :func:`column_unit`), unless a ``units`` table says otherwise.
Time plots shade the intervals where a contact sticks or is open, read off its ``<name>_state``
column (:func:`shade_states`). The configuration is drawn from positions only
(``io.vtk.geometry_blocks``) and, for a StepReport, its contact forces: nothing is recomputed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib import rc_context
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from ..model import Line
from ..steppers.result import (
    BALANCE_COLUMNS,
    CONTACT_COLUMNS,
    ROUGH_COLUMNS,
    STATE_CODES,
    history_columns,
)
from ..structures import BeamStructure
from ..system import System
from .vtk import contact_block, geometry_blocks

# Unit of a column by its exact name, then by the end of its name, then by its start: the
# result's own columns from their definitions (``steppers.result.Column``), then the rest.
_UNIT_BY_NAME = {"t": "s", "total_energy": "J"} | {c.name: c.unit for c in BALANCE_COLUMNS}
_UNIT_BY_SUFFIX = (
    *((f"_{c.name}", c.unit) for c in ROUGH_COLUMNS + CONTACT_COLUMNS),
    ("_x", "m"),  # a sensed position
    ("_element", ""),
    ("_torque", "N m or N"),
    ("_force", "N m or N"),  # a drive's force or torque, drive_<joint>_force
    ("_energy", "J"),
)
_UNIT_BY_PREFIX = (("work_", "J"), ("dissipated_", "J"))
_BRACKETED = re.compile(r"^(?P<name>.*?)\s*\[(?P<unit>[^\]]*)\]\s*$")

FORMATS = ("png", "svg")


def column_unit(name: str, units: Mapping[str, str] | None = None) -> str:
    """SI unit of a history column: from ``units``, a trailing ``[unit]``, or the name's pattern.

    Parameters
    ----------
    name : str
        The column's name.
    units : mapping of str to str or None, optional
        Name -> unit, taken first; None by default.

    Returns
    -------
    str
        The unit; "" for a dimensionless or unknown column (the label then has no unit).

    Examples
    --------
    >>> from fe_contact.io.plots import column_unit
    >>> column_unit("tip_normal_force"), column_unit("kinetic_energy"), column_unit("gap [mm]")
    ('N', 'J', 'mm')
    """
    if units and name in units:
        return units[name]
    match = _BRACKETED.match(name)
    if match:
        return match["unit"]
    if name in _UNIT_BY_NAME:
        return _UNIT_BY_NAME[name]
    for suffix, unit in _UNIT_BY_SUFFIX:
        if name.endswith(suffix):
            return unit
    for prefix, unit in _UNIT_BY_PREFIX:
        if name.startswith(prefix):
            return unit
    return ""


def _label(name: str, unit: str) -> str:
    match = _BRACKETED.match(name)
    text = (match["name"] if match else name).replace("_", " ")
    return f"{text} [{unit}]" if unit else text


def _targets(path, formats: Sequence[str]) -> list[Path]:
    """``path`` with each suffix of ``formats`` (a given .png/.svg/.pdf suffix is replaced)."""
    if isinstance(formats, str):
        formats = (formats,)
    if not formats:
        raise ValueError("formats must name at least one file format, e.g. ('png', 'svg')")
    path = Path(path)
    if path.suffix.lower() in (".png", ".svg", ".pdf"):
        path = path.with_suffix("")
    path.parent.mkdir(parents=True, exist_ok=True)
    return [path.with_name(f"{path.name}.{fmt.lstrip('.')}") for fmt in formats]


def save_figure(fig: Figure, path, formats: Sequence[str] = FORMATS, dpi: int = 150) -> list[Path]:
    """Save a figure in each format (suffix replaced).

    SVG keeps its text as text (searchable, editable).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    path : str or os.PathLike
        File name; its suffix is replaced by each format.
    formats : sequence of str, optional
        File formats; ("png", "svg") by default.
    dpi : int, optional
        Resolution of the raster formats; 150 by default.

    Returns
    -------
    list of pathlib.Path
        The written paths.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import matplotlib.pyplot as plt
    >>> from fe_contact.io.plots import save_figure
    >>> fig, ax = plt.subplots()
    >>> with tempfile.TemporaryDirectory() as out:
    ...     paths = save_figure(fig, pathlib.Path(out) / "empty.png")
    >>> [p.name for p in paths]
    ['empty.png', 'empty.svg']
    >>> plt.close(fig)
    """
    written = []
    with rc_context({"svg.fonttype": "none"}):
        for target in _targets(path, formats):
            fig.savefig(target, dpi=dpi)
            written.append(target)
    return written


def _groups(columns) -> list[list[str]]:
    """One list of column names per axes: "a" -> [[a]]; [a, b] -> [[a], [b]]; [[a, b]] -> one."""
    if isinstance(columns, str):
        return [[columns]]
    groups = [[c] if isinstance(c, str) else list(c) for c in columns]
    if not groups or any(not g for g in groups):
        raise ValueError(f"columns must name at least one column per axes, got {columns!r}")
    return groups


def _history(result) -> tuple[np.ndarray, Mapping]:
    """(time (k,), columns) of a SimulationResult or of a mapping name -> (k,) with "t"."""
    if isinstance(result, Mapping):
        if "t" not in result:
            raise KeyError(f"the columns need a time column 't'; known: {sorted(result)}")
        return np.asarray(result["t"], dtype=float), result
    return np.asarray(result.t, dtype=float), result.columns


# Contact states shaded on time plots: the states a band marks and their colours (slip is the
# unshaded default of a sliding contact).
STATE_BANDS = {"stick": "tab:green", "open": "0.55"}
_STATE_NAMES = {code: name for name, code in STATE_CODES.items()}  # 0 open, 1 slip, 2 stick
_HATCHES = ("", "//", "\\\\", "xx", "..")


def _state_names(states) -> np.ndarray:
    """Contact states as names: strings ("slip", "stick", "open"; a SimulationResult, a CSV
    read by ``read_history``) or the numbers of ``io.vtk.STATE_CODES`` (0 open, 1 slip, 2
    stick); NaN (no row) becomes ""."""
    values = np.asarray(states)
    if values.dtype.kind in "iuf":
        return np.array(
            ["" if not np.isfinite(v) else _STATE_NAMES[int(round(v))] for v in values.ravel()]
        )
    return np.array([str(v).strip().lower() for v in values.ravel()])


def state_intervals(time, states) -> dict[str, list[tuple[float, float]]]:
    """Start and end times of each contact state, from a state column.

    Row k > 0 reports the state at the end of the step (t[k-1], t[k]], in which the contact
    law held, so a run of rows k0..k1 in one state covers [t[k0 - 1], t[k1]]; row 0 (the initial
    state) covers the instant t[0] only, and an interval of no length is left out.

    Parameters
    ----------
    time : array_like, shape (k,)
        Times, s.
    states : array_like of str, shape (k,)
        The state column.

    Returns
    -------
    dict of str to list of tuple of float
        State -> (start, end) intervals in s, in time order, those of one state not
        overlapping.

    Raises
    ------
    ValueError
        When there is not one state per time.

    Examples
    --------
    Row k reports the state over the step (t[k-1], t[k]]: the contact sticks over [0.1, 0.3] s:

    >>> from fe_contact.io.plots import state_intervals
    >>> state_intervals([0.0, 0.1, 0.2, 0.3, 0.4], ["slip", "slip", "stick", "stick", "slip"])
    {'slip': [(0.0, 0.1), (0.3, 0.4)], 'stick': [(0.1, 0.3)]}
    """
    time = np.asarray(time, dtype=float)
    names = _state_names(states)
    if names.shape != time.shape:
        raise ValueError(f"a state per time: got {names.shape} states for {time.shape} times")
    out: dict[str, list[tuple[float, float]]] = {}
    k = 0
    while k < time.size:
        j = k
        while j + 1 < time.size and names[j + 1] == names[k]:
            j += 1
        span = (float(time[max(k - 1, 0)]), float(time[j]))
        if names[k] and span[1] > span[0]:
            spans = out.setdefault(str(names[k]), [])
            if spans and spans[-1][1] >= span[0]:
                spans[-1] = (spans[-1][0], span[1])
            else:
                spans.append(span)
        k = j + 1
    return out


def contacts_with_states(history) -> list[str]:
    """The contact names that have a ``<name>_state`` column, in column order.

    Parameters
    ----------
    history : mapping of str to array_like
        The columns.

    Returns
    -------
    list of str
        The contact names.

    Examples
    --------
    >>> from fe_contact.io.plots import contacts_with_states
    >>> contacts_with_states(["t", "tip_state", "tip_normal_force", "disk_state"])
    ['tip', 'disk']
    """
    return [c[: -len("_state")] for c in history if c.endswith("_state") and len(c) > 6]


def shade_states(axes, time, history, contacts=None, states=tuple(STATE_BANDS)) -> dict:
    """Shade the intervals where a contact's state column is one of ``states``, behind the curves.

    Intervals from ``state_intervals``, one colour per state (``STATE_BANDS``) and one hatch per
    contact.

    Parameters
    ----------
    axes : matplotlib.axes.Axes or list of Axes
        The axes to shade.
    time : array_like, shape (k,)
        Times, s.
    history : mapping of str to array_like
        The columns, with the ``<name>_state`` columns.
    contacts : sequence of str or None, optional
        Contact names; None (the default): every state column of ``history``.
    states : sequence of str, optional
        The states shaded; ("stick", "open") by default.

    Returns
    -------
    dict
        Label -> a legend handle, one per (contact, state) that occurs ("stick", or
        "<contact> stick" when several contacts are shaded); empty when there are no state
        columns.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fe_contact.io.plots import shade_states
    >>> fig, ax = plt.subplots()
    >>> history = {"t": [0.0, 0.1, 0.2, 0.3], "tip_state": ["slip", "stick", "stick", "slip"]}
    >>> list(shade_states(ax, history["t"], history))
    ['stick']
    >>> plt.close(fig)
    """
    from matplotlib.patches import Patch

    axes = [axes] if not isinstance(axes, list | tuple | np.ndarray) else list(axes)
    contacts = contacts_with_states(history) if contacts is None else list(contacts)
    handles = {}
    for i, contact in enumerate(contacts):
        intervals = state_intervals(time, history[f"{contact}_state"])
        hatch = _HATCHES[i % len(_HATCHES)]
        for state in states:
            spans = intervals.get(state, [])
            if not spans:
                continue
            label = state if len(contacts) == 1 else f"{contact} {state}"
            style = dict(
                facecolor=STATE_BANDS.get(state, "0.8"),
                alpha=0.18,
                hatch=hatch or None,
                lw=0.0,
                zorder=0.5,  # behind the grid and the curves
            )
            for ax in axes:
                for t0, t1 in spans:
                    ax.axvspan(t0, t1, gid=f"{contact}_state {state}", **style)
            handles[label] = Patch(label=label, **style)
    return handles


POINT_STATE_COLOURS = {"stick": "tab:green", "slip": "tab:orange", "open": "0.6"}


def plot_point_states(ax, time, angle, states, size: float = 2.5) -> dict:
    """Each contact point of a run as a square at its ``angle`` (x) and ``time`` (y), coloured
    by its state (``POINT_STATE_COLOURS``): where on an arc a candidate grid sticks or slips,
    and how that moves in time (``ContactReport.states``).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on.
    time : array_like, shape (m,)
        The points' times, s.
    angle : array_like, shape (m,)
        The points' angles, rad (or any coordinate along the contact).
    states : array_like, shape (m,)
        State names ("open", "stick", "slip") or ``STATE_CODES`` numbers.
    size : float, optional
        Marker size, points.

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        State -> the plotted line, for the states that occur.

    Raises
    ------
    ValueError
        When time, angle and states differ in shape.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fe_contact.io.plots import plot_point_states
    >>> fig, ax = plt.subplots()
    >>> sorted(plot_point_states(ax, [0.0, 0.0, 0.1], [0.2, 1.5, 0.2], [2, 1, 2]))
    ['slip', 'stick']
    >>> plt.close(fig)
    """
    time, angle = np.asarray(time, dtype=float), np.asarray(angle, dtype=float)
    names = _state_names(states)
    if not time.shape == angle.shape == names.shape:
        raise ValueError(
            f"time, angle and states: one each per point; got shapes {time.shape}, "
            f"{angle.shape}, {names.shape}"
        )
    lines = {}
    for name, colour in POINT_STATE_COLOURS.items():
        on = names == name
        if np.any(on):
            (lines[name],) = ax.plot(angle[on], time[on], "s", color=colour, ms=size, lw=0,
                                     label=name)  # fmt: skip
    return lines


def plot_histories(
    result,
    columns,
    path,
    *,
    system: System | None = None,
    units: Mapping[str, str] | None = None,
    title: str | None = None,
    formats: Sequence[str] = FORMATS,
    width: float = 7.0,
    height_per_axes: float = 2.2,
    dpi: int = 150,
    states: bool | Sequence[str] = True,
) -> list[Path]:
    """Plot history columns against time; write PNG and SVG.

    Parameters
    ----------
    result : SimulationResult or mapping of str to ndarray
        A ``SimulationResult`` or its columns, a mapping name -> (k,) with the time "t" (e.g.
        ``steppers.result.read_history`` of a CSV written by ``CsvObserver``).
    columns : str, list of str or list of list of str
        A name, a list of names (one axes each, stacked, shared time axis) or a list of lists
        (the names of a list share one axes and one unit, with a legend).
    path : str or os.PathLike
        File name; its suffix is replaced by each of ``formats``.
    system : System or None, optional
        Take the units from ``history_columns(system)``; None by default.
    units : mapping of str to str or None, optional
        Name -> unit, overriding both that and ``column_unit``.
    title : str or None, optional
        The figure's title.
    formats : sequence of str, optional
        File formats; ("png", "svg") by default.
    width : float, optional
        Width, inches; 7 by default.
    height_per_axes : float, optional
        Height of each axes, inches; 2.2 by default.
    dpi : int, optional
        Resolution of the raster formats; 150 by default.
    states : bool or sequence of str, optional
        Shade the intervals where a contact sticks or is open (its ``<name>_state`` column,
        ``shade_states``) on every axes, one legend entry per state above them; True (the
        default): every contact with a state column, a list: those contacts, False: none.
        Without state columns the figure is unchanged.

    Returns
    -------
    list of pathlib.Path
        The written paths.

    Examples
    --------
    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> import tempfile, pathlib
    >>> from fe_contact.io.plots import plot_histories
    >>> result = simulate(system, (0.0, 0.02), system.initial_state(), h=1e-3)
    >>> with tempfile.TemporaryDirectory() as out:
    ...     paths = plot_histories(result, "joint_0_q", pathlib.Path(out) / "angle", formats=("png",))
    ...     print([p.name for p in paths], paths[0].stat().st_size > 0)
    ['angle.png'] True
    """
    fig = histories_figure(
        result,
        columns,
        system=system,
        units=units,
        title=title,
        width=width,
        height_per_axes=height_per_axes,
        states=states,
    )
    return save_figure(fig, path, formats, dpi)


def histories_figure(
    result,
    columns,
    *,
    system: System | None = None,
    units: Mapping[str, str] | None = None,
    title: str | None = None,
    width: float = 7.0,
    height_per_axes: float = 2.2,
    states: bool | Sequence[str] = True,
) -> Figure:
    """The Figure of ``plot_histories`` (not saved).

    Parameters
    ----------
    result : SimulationResult or mapping of str to ndarray
        The run, or its columns with the time "t".
    columns : str, list of str or list of list of str
        As in ``plot_histories``.
    system : System or None, optional
        Take the units from ``history_columns(system)``; None by default.
    units : mapping of str to str or None, optional
        Name -> unit, overriding both that and ``column_unit``.
    title : str or None, optional
        The figure's title.
    width : float, optional
        Width, inches; 7 by default.
    height_per_axes : float, optional
        Height of each axes, inches; 2.2 by default.
    states : bool or sequence of str, optional
        Shade the contacts' states, as in ``plot_histories``; True by default.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ValueError
        When the columns of one axes have different units.

    Examples
    --------
    The angle of a pendulum released from horizontal, 20 ms:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> import matplotlib.pyplot as plt
    >>> from fe_contact.io.plots import histories_figure
    >>> result = simulate(system, (0.0, 0.02), system.initial_state(), h=1e-3)
    >>> fig = histories_figure(result, ["joint_0_q", "kinetic_energy"], system=system)
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['joint 0 q [rad]', 'kinetic energy [J]']
    >>> plt.close(fig)
    """
    groups = _groups(columns)
    time, history = _history(result)
    if system is not None:
        units = {**{n: u for n, u in history_columns(system) if u}, **(units or {})}
    missing = [c for g in groups for c in g if c not in history]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in the result; known: {sorted(history)}")
    fig = Figure(figsize=(width, height_per_axes * len(groups) + 0.6), layout="constrained")
    axes = fig.subplots(len(groups), 1, sharex=True, squeeze=False)[:, 0]
    for ax, group in zip(axes, groups, strict=True):
        group_units = {column_unit(c, units) for c in group}
        if len(group_units) > 1:
            raise ValueError(
                f"columns {group} share one axes but have the units {sorted(group_units)}; "
                "plot them on separate axes"
            )
        (unit,) = group_units
        for name in group:
            ax.plot(time, np.asarray(history[name], dtype=float), label=_label(name, ""))
        if len(group) == 1:
            ax.set_ylabel(_label(group[0], unit))
        else:
            ax.set_ylabel(f"[{unit}]" if unit else "")
            ax.legend(loc="best", fontsize="small")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time t [s]")
    if states:
        handles = shade_states(
            list(axes), time, history, contacts=None if states is True else list(states)
        )
        if handles:
            fig.legend(
                handles=list(handles.values()),
                loc="outside upper right",
                ncols=len(handles),
                fontsize="small",
                frameon=False,
            )
    if title:
        fig.suptitle(title)
    return fig


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
