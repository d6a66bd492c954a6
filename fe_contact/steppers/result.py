"""What a run returns: the ``SimulationResult``, one vocabulary for every stepper.

Every stepper's ``step()`` returns a ``StepReport`` (``steppers.step_report``): the new state,
one ``ContactReport`` per contact pair of the model (``steppers.contact_report``), the drive and
loop forces, and the work done over the step by drives, applied loads, damping, friction and
impacts. ``simulate`` turns the reports into rows of named scalar columns (``history_columns``
/ ``history_row``, the vocabulary of shared/DESIGN.md, SI units) for the CSV observer
(``io.history_file``) and the ``SimulationResult``; each column is defined once
(``fe_contact.columns``), with its unit and how it is read from a report (``CONTACT_COLUMNS``,
``ROUGH_COLUMNS``, ``BALANCE_COLUMNS``). This module also exports those names from their homes.

The columns, in order: ``t [s]``; per contact pair ``<name>_<column>`` for each of
``CONTACT_COLUMNS`` (and ``ROUGH_COLUMNS`` for a rough pair, a ``Polyline`` on a ``Wheel``); per
drive ``<name>_force`` (N m or N); the ``BALANCE_COLUMNS`` (energies, the work and dissipation
since the start, the balance ``energy_error``, friction power, residuals, the stepper's effort);
the energy of each part (``part_energies``); per tree joint ``<joint>_q`` and ``<joint>_u``; the
columns of the model's sensors (``fe_contact.sensors``). Each column's unit and meaning are
typed once, in ``fe_contact.columns`` (the documentation's columns table is generated from
them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..columns import (
    BALANCE_COLUMNS,
    CONTACT_COLUMNS,
    ROUGH_COLUMNS,
    WORK_KEYS,
    Column,
    history_columns,
)
from ..io.history_file import HistoryWriter, read_history
from .contact_report import (
    CONTACT_STATES,
    STATE_CODES,
    STICK_SPEED,
    ContactReport,
    ProfileLosses,
    RoughContactReport,
    open_contact,
    pair_state,
    point_states,
)
from .step_report import StepReport, history_row, no_work


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Histories of a run of either stepper (k = stored states, row 0 the initial state).

    Parameters
    ----------
    t : ndarray, shape (k,)
        Times, s.
    q : ndarray, shape (k, n)
        Coordinates (``system.layout``), m and rad.
    u : ndarray, shape (k, n)
        Velocities, m/s and rad/s.
    multipliers : ndarray, shape (k, m)
        Bilateral constraint forces by ``constraint_names`` (N, N m).
    constraint_names : tuple of str
        Names of the bilateral rows, ``Model.constraint_names()``.
    columns : dict of str to ndarray
        Name -> history, shape (k,), of every scalar (the CSV's columns;
        ``result["tip_normal_force"]``).
    method : str, optional
        "generalized-alpha" (the default), "moreau" or "event-driven".
    status : str, optional
        "finished" (the default), "event" or "failed".
    message : str, optional
        Why it stopped.
    n_steps : int, optional
        Steps taken.
    n_newton : int, optional
        Newton iterations (sweeps of the contact solver for Moreau-Jean).
    n_substeps : int, optional
        Sub-steps taken.
    wall_time : float, optional
        Wall time of the run, s.
    reports : tuple of StepReport, optional
        The last StepReport per stored row when ``keep_reports`` was asked (for writers),
        else ().
    events : tuple, optional
        The contact events (located in time, except Moreau-Jean's: at the end of the step that
        saw them), (t [s], contact name, kind) with kind "stick",
        "slip" (a stuck contact breaks loose), "reversal" (the slip velocity passed zero and
        the contact slips on the other way), "open" (lift-off), "impact" (an open contact
        closes; for a rough pair: a step that begins with Poisson's impact), "leave" (it slid
        off its structure's end); ``event_counts()`` counts them per kind.
    losses : tuple of ProfileLosses, optional
        One per rough pair (the W per vertex of both polylines at the end of the run), else
        ().
    n_halved : int, optional
        Steps retried as two halves: a Newton divergence, a singular system, a contact
        jumping off its structure; Moreau-Jean's and the event-driven stepper's sub-steps
        halved for a closing contact.
    step_path : str, optional
        "compiled" when the run's stepper has a compiled step (generalised-alpha on a system
        ``steppers.compiled`` takes; Moreau-Jean on a tree with one compiled string or linear
        beam and grid pairs, on the beam also a closest-point pair, ``steppers.moreau_substep``),
        else "python" (the default): the Python
        generalised-alpha step (``compiled=False``, profiles, unilateral contacts, the
        energy-consistent option, ...), Moreau-Jean's Python sub-step (its contact solver's
        numba kernels called from Python) and the event-driven stepper.
    n_compiled : int, optional
        Sub-steps that ran in one compiled call (generalised-alpha: the Newton iteration,
        alone or in a batch of quiet steps; Moreau-Jean: the whole sub-step); 0 on the
        "python" path.
    n_fallback : int, optional
        Compiled attempts handed to the Python step (a contact leaving its structure, a
        near-singular or Painleve case, a Newton failure; Moreau-Jean: a contact problem that
        needs De Saxce's stages, a singular block), which then completed the sub-step
        (counted in ``n_python``), halved it or stopped at a located event. 0 on the "python"
        path.

    Examples
    --------
    A point mass pendulum (1 kg, l = 0.5 m) released from horizontal, 20 ms: the kinetic
    energy it gained, about m (g t)^2 / 2 = 0.01925 J, is the potential energy it lost, and the
    energy balance closes (``energy_error``, J):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> result = simulate(system, (0.0, 0.02), system.initial_state(), h=1e-3)
    >>> print(f"{result['kinetic_energy'][-1]:.4g} J, {result['potential_energy'][-1]:.4g} J")
    0.01925 J, -0.01925 J
    >>> result.success, bool(np.abs(result["energy_error"]).max() < 1e-8)
    (True, True)
    """

    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    multipliers: np.ndarray
    constraint_names: tuple[str, ...]
    columns: dict = field(repr=False)
    method: str = "generalized-alpha"
    status: str = "finished"
    message: str = ""
    n_steps: int = 0
    n_newton: int = 0
    n_substeps: int = 0
    wall_time: float = 0.0
    reports: tuple = field(default=(), repr=False)
    events: tuple = field(default=(), repr=False)
    losses: tuple = field(default=(), repr=False)
    n_halved: int = 0
    step_path: str = "python"
    n_compiled: int = 0
    n_fallback: int = 0

    @property
    def success(self) -> bool:
        return self.status in ("finished", "event")

    @property
    def n_python(self) -> int:
        """Sub-steps completed by the Python step: ``n_substeps - n_compiled``."""
        return self.n_substeps - self.n_compiled

    def __getitem__(self, name: str) -> np.ndarray:
        """The history column ``name`` (see ``columns`` for the names and their units)."""
        try:
            return self.columns[name]
        except KeyError:
            raise KeyError(
                f"no history column {name!r}; the columns are: {', '.join(self.columns)}"
            ) from None

    def to_dataframe(self):
        """The history as a pandas DataFrame indexed by time ``t`` (s), one column per history
        column (pandas is optional: ``pip install pandas``)."""
        try:
            import pandas as pd
        except ImportError as error:
            raise ImportError("to_dataframe needs pandas: pip install pandas") from error
        frame = pd.DataFrame({k: np.asarray(v) for k, v in self.columns.items() if k != "t"})
        frame.index = pd.Index(np.asarray(self.columns["t"]), name="t")
        return frame

    def event_counts(self) -> dict:
        """Number of contact events per kind (see ``events``)."""
        counts = dict.fromkeys(("stick", "slip", "reversal", "open", "impact", "leave"), 0)
        for _, _, kind in self.events:
            counts[kind] = counts.get(kind, 0) + 1
        return counts


__all__ = [
    "BALANCE_COLUMNS",
    "CONTACT_COLUMNS",
    "CONTACT_STATES",
    "Column",
    "ContactReport",
    "HistoryWriter",
    "ProfileLosses",
    "ROUGH_COLUMNS",
    "RoughContactReport",
    "STATE_CODES",
    "STICK_SPEED",
    "SimulationResult",
    "StepReport",
    "WORK_KEYS",
    "history_columns",
    "history_row",
    "no_work",
    "open_contact",
    "pair_state",
    "point_states",
    "read_history",
]
