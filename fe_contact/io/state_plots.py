"""Contact states on plots: the intervals in which a contact sticks, slips or is open, read
off its ``<name>_state`` column (``state_intervals``), shaded behind the curves of time plots
(``shade_states``, ``STATE_BANDS``), and the state of each point of a candidate grid over time
(``plot_point_states``).
"""

from __future__ import annotations

import numpy as np

from ..steppers.contact_report import STATE_CODES

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
