"""Time histories of named columns of a run (``plot_histories``, ``histories_figure``), with
axis labels in SI units (``column_unit``) and the intervals where a contact sticks or is open
shaded (``io.state_plots``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ..columns import BALANCE_COLUMNS, CONTACT_COLUMNS, ROUGH_COLUMNS, history_columns
from ..system import System
from .figure_files import FORMATS, save_figure
from .state_plots import shade_states

# Unit of a column by its exact name, then by the end of its name, then by its start: the
# result's own columns from their definitions (``columns.Column``), then the rest.
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
        ``io.history_file.read_history`` of a CSV written by ``CsvObserver``).
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
