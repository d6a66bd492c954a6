"""Matplotlib figures of a run: time histories of named columns and the configuration at one state.

Figures are made with ``matplotlib.figure.Figure`` (no pyplot state, no display needed) and saved
as PNG and SVG. Axis labels carry SI units: those of ``history_columns(system)`` when a system is
given, otherwise read off the column names with the same vocabulary (``contact_gap`` is in m,
``tree_kinetic_energy`` in J, see :func:`column_unit`), unless a ``units`` table says otherwise.
Time plots shade the intervals where a contact sticks or is open, read off its ``<name>_state``
column (:func:`shade_states`). The configuration is drawn from positions only
(``io.frames.geometry_blocks``) and, for a StepReport, its contact forces: nothing is
recomputed.

The figures are made by one module per family, whose names are importable from here:
``io.history_plots`` (``plot_histories``, ``histories_figure``, ``column_unit``),
``io.state_plots`` (``state_intervals``, ``shade_states``, ``plot_point_states``),
``io.configuration_plot`` (``plot_configuration``, ``configuration_figure``) and
``io.figure_files`` (``save_figure``).
"""

from .configuration_plot import (
    ARROW_ZORDER,
    MIN_ARROW,
    configuration_figure,
    plot_configuration,
)
from .figure_files import FORMATS, save_figure
from .history_plots import column_unit, histories_figure, plot_histories
from .state_plots import (
    POINT_STATE_COLOURS,
    STATE_BANDS,
    contacts_with_states,
    plot_point_states,
    shade_states,
    state_intervals,
)

__all__ = [
    "ARROW_ZORDER",
    "FORMATS",
    "MIN_ARROW",
    "POINT_STATE_COLOURS",
    "STATE_BANDS",
    "column_unit",
    "configuration_figure",
    "contacts_with_states",
    "histories_figure",
    "plot_configuration",
    "plot_histories",
    "plot_point_states",
    "save_figure",
    "shade_states",
    "state_intervals",
]
