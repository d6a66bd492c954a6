"""Steps of the Moreau-Jean stepper taken in compiled sub-steps (``steppers.moreau``,
``kernels.moreau.substep``), reported as arrays.

``MoreauJean.steps`` takes steps one by one as ``step()`` does; each one whose sub-steps were
all compiled (a tree with one string or linear beam and its pairs, or linear beams with a
profile pair; halved or not, none handed back to the Python sub-step) is kept as a
``FlatStep``: the state, the kernel's energies and work columns, and per contact pair the
values its history columns read (``pair_values``, a closest-point or profile pair's
``closest_values`` from its geometry at the end state), without a
``ContactReport``. A
``MoreauBatch`` holds such steps: ``columns`` gives the history columns of
``step_report.history_row`` as arrays, by the columns' own definitions (``columns``), and
``report`` the ``StepReport`` of one step (``compiled_report``), for observers. The first
step that is not such a step ends the batch; ``step()`` returns its report.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..columns import BALANCE_COLUMNS, CONTACT_COLUMNS, WORK_KEYS
from ..part_energies import part_energy_arrays
from ..sensors import state_arrays
from ..system import Energies
from .batch import accumulated_work, column_array
from .contact_report import ContactReport, open_contact, pair_state, point_states
from .step_report import StepReport

BATCH_STEPS = 256  # steps of one batch at most: a run's memory does not grow with its length


@dataclass(frozen=True, eq=False)
class PairValues:
    """What the history columns of one contact pair read from its report (``CONTACT_COLUMNS``)
    after one step: state, the sums over its closed points of the mean forces and impulses (N,
    N s) and of the friction power F_T gamma_T (W), the slip velocity (m/s), parameter (m)
    and position (m) of its point with the largest normal force (NaN when it has none), its
    smallest gap (m), the number of closed points, and whether all of them are open (no
    impulse)."""

    state: str
    normal_force: float
    friction_force: float
    normal_impulse: float
    friction_impulse: float
    friction_power: float
    slip_velocity: float
    parameter: float
    point: tuple
    min_gap: float
    n_points: int
    all_open: bool


def pair_values(grid, scan, which, normal, tangent, slip, mu: float, h: float) -> PairValues:
    """The ``PairValues`` of a grid pair after a step of one sub-step.

    Parameters
    ----------
    grid : GridPair
        The pair's constants (``steppers.grid_pairs``).
    scan : GridScan
        Its candidates at the end state.
    which : ndarray, shape (k,)
        The closed candidates, ascending (k = 0: open).
    normal, tangent : ndarray, shape (k,)
        Their normal and tangential impulses, N s.
    slip : ndarray, shape (k,)
        Their slip velocities gamma_T at the end, m/s.
    mu : float
        The pair's friction coefficient.
    h : float
        The step, s.

    Returns
    -------
    PairValues
        The values ``ContactReport`` of the same step gives its columns, with the same
        arithmetic (the sums by ``np.add.reduce`` over the points, as ``columns``).

    Examples
    --------
    An open pair has no point: its forces are 0 and its point NaN (a run in ``MoreauJean``
    calls this with a grid pair's constants; an open pair reads only the scan's gaps):

    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> scan = SimpleNamespace(gap=np.array([0.2, 0.1]))
    >>> none = np.zeros(0)
    >>> v = pair_values(None, scan, np.zeros(0, dtype=int), none, none, none, 0.3, 1e-3)
    >>> v.state, v.normal_force, v.min_gap, v.n_points, bool(np.isnan(v.slip_velocity))
    ('open', 0.0, 0.1, 0, True)
    """
    min_gap = float(np.min(scan.gap))
    if not which.size:
        return _open_values(min_gap)
    return _closed_values(
        normal, tangent, slip, mu, h, min_gap, grid.grid.s[which], scan.positions[which]
    )


def _open_values(min_gap: float) -> PairValues:
    """The ``PairValues`` of an open pair: no point, no force."""
    nan = float("nan")
    return PairValues("open", 0.0, 0.0, 0.0, 0.0, 0.0, nan, nan, (nan, nan), min_gap, 0, True)


def _closed_values(normal, tangent, slip, mu, h, min_gap, parameters, points) -> PairValues:
    """The ``PairValues`` of a pair closed at k points (their impulses, slip velocities,
    material parameters (k,) and points (k, 2)): the sums by ``np.add.reduce`` over the points,
    the point of the largest normal force for the rest (``ContactReport``'s arithmetic)."""
    normal_force, friction_force = normal / h, tangent / h
    states = point_states(normal, slip, mu)
    main = int(np.argmax(normal_force))
    return PairValues(
        state=pair_state(states),
        normal_force=float(np.add.reduce(normal_force)),
        friction_force=float(np.add.reduce(friction_force)),
        normal_impulse=float(np.add.reduce(normal)),
        friction_impulse=float(np.add.reduce(tangent)),
        friction_power=float(np.add.reduce(friction_force * slip)),
        slip_velocity=float(slip[main]),
        parameter=float(parameters[main]),
        point=(float(points[main, 0]), float(points[main, 1])),
        min_gap=min_gap,
        n_points=int(normal.size),
        all_open=all(p == "open" for p in states),
    )


def closest_values(geometry, gaps, normal, tangent, slip, mu: float, h: float) -> PairValues:
    """The ``PairValues`` of a closest-point pair after a step (``pair_values``' arithmetic).

    Parameters
    ----------
    geometry : tuple or None
        (gap, normal, tangent, point, parameter) of its point at the end state, arrays of one
        point (``WholeSubstep.end_scans``), or None: no point there (it left the structure,
        or it was not closed in the step).
    gaps : ndarray, shape (1,)
        Its gap at the end state, m (+inf without a point).
    normal, tangent : ndarray, shape (k,)
        Its impulses in the step (k = 1 when it was closed, else 0), N s.
    slip : ndarray, shape (k,)
        Its slip velocity gamma_T at the end, m/s.
    mu : float
        The pair's friction coefficient.
    h : float
        The step, s.

    Returns
    -------
    PairValues
        The values ``ContactReport`` of the same step gives its columns; open without a point
        at the end (as ``MoreauJean._report`` reports it).

    Examples
    --------
    A pair whose point left the structure is open:

    >>> import numpy as np
    >>> v = closest_values(None, np.array([np.inf]), np.ones(1), np.zeros(1), np.zeros(1), 0.3,
    ...                    1e-3)
    >>> v.state, v.normal_force, v.n_points
    ('open', 0.0, 0)
    """
    min_gap = float(np.min(gaps))
    if not normal.size or geometry is None:
        return _open_values(min_gap)
    return _closed_values(normal, tangent, slip, mu, h, min_gap, geometry[4], geometry[3])


@dataclass(frozen=True, eq=False)
class FlatStep:
    """One step of compiled sub-steps: t (s), q, u, the mean acceleration (n,), its energies
    at the end, work by WORK_KEYS (J), contact-solver sweeps, sub-steps, law residual, per
    pair its ``PairValues``, and what ``compiled_report`` needs for its ``StepReport``
    (``source``: the sub-step, or the sub-steps merged, the pairs' scans at the end, h,
    u_A, the closest-point pair's geometry at the end, ``WholeSubstep.end_scans``)."""

    t: float
    q: np.ndarray
    u: np.ndarray
    acceleration: np.ndarray
    energy: Energies
    work: tuple
    n_newton: int
    n_substeps: int
    solver_residual: float
    pairs: tuple
    source: tuple


def compiled_report(stepper, step: FlatStep) -> StepReport:
    """The StepReport of a ``FlatStep`` of ``stepper`` (a ``MoreauJean``), with every
    closed point's geometry (from the end state's scan): the report ``step()`` returns.

    Parameters
    ----------
    stepper : MoreauJean
        The stepper that took it (its grid pairs and model).
    step : FlatStep
        The step.

    Returns
    -------
    StepReport
        Its report.

    Examples
    --------
    >>> from fe_contact.steppers.moreau_batch import MoreauBatch
    >>> MoreauBatch([]).n  # a run of the disk on the string calls this for its observers
    0
    """
    sub, scans, h, u_a, geometry = step.source
    pair, candidate = sub.closed.pair, sub.closed.candidate
    m = pair.size
    p_n, p_t = 0.0 + sub.p_n, 0.0 + sub.p_t
    slip = sub.gamma_e[m:]
    reports = []
    for k, contact in enumerate(stepper.system.model.contacts):
        scan = scans[k]
        gaps = getattr(scan, "gap", scan)  # a grid's scan, a closest-point pair's gap
        rows = np.flatnonzero(pair == k)
        grid = k in stepper._grid
        if not rows.size or not (grid or k in geometry):
            reports.append(open_contact(contact.name, float(np.min(gaps))))
            continue
        if grid:
            which = candidate[rows]
            gap, normal, tangent, point, parameter = stepper.grid_pair(k).geometry(which, scan)
        else:
            gap, normal, tangent, point, parameter = geometry[k]
        pn, pt, gamma = p_n[rows], p_t[rows], slip[rows]
        states = point_states(pn, gamma, contact.mu)
        reports.append(
            ContactReport(
                name=contact.name,
                state=pair_state(states),
                point=point,
                normal=normal,
                tangent=tangent,
                parameter=np.asarray(parameter, dtype=float),
                gap=gap,
                slip_velocity=gamma,
                normal_force=pn / h,
                friction_force=pt / h,
                normal_impulse=pn,
                friction_impulse=pt,
                min_gap=float(np.min(gaps)),
                point_state=states,
            )
        )
    return StepReport(
        t=step.t,
        q=step.q.copy(),
        u=step.u.copy(),
        contacts=tuple(reports),
        drive_forces=np.zeros(0),
        multipliers=np.zeros(0),
        work=dict(zip(WORK_KEYS, step.work, strict=True)),
        residual_position=0.0,
        residual_velocity=0.0,
        h=h,
        n_newton=step.n_newton,
        n_substeps=step.n_substeps,
        solver_residual=step.solver_residual,
        energy=step.energy,
        acceleration=step.acceleration.copy(),
    )


class MoreauBatch:
    """Consecutive ``FlatStep``s of one ``MoreauJean`` run (module docstring): n, t (n,),
    q, u (n, n_q), multipliers (n, 0); ``stop`` "done" when all the steps asked for were
    taken, else "step" (the next one is ``step()``'s)."""

    def __init__(self, steps, stepper=None, stop: str = "done"):
        self.steps = list(steps)
        self.stepper = stepper
        self.stop = stop
        self.n = len(self.steps)
        if self.n:
            self.t = np.array([s.t for s in self.steps])
            self.q = np.array([s.q for s in self.steps])
            self.u = np.array([s.u for s in self.steps])
            self.multipliers = np.zeros((self.n, 0))

    def energies(self, j: int) -> Energies:
        return self.steps[j].energy

    def report(self, j: int) -> StepReport:
        """The StepReport of step j (what ``MoreauJean.step`` returns)."""
        return compiled_report(self.stepper, self.steps[j])

    def columns(self, system, work: dict, energy0: float) -> dict:
        """The history columns of the n steps by the columns' definitions (``CONTACT_COLUMNS``
        and ``BALANCE_COLUMNS`` read from views of the steps' values as arrays): the values
        of ``step_report.history_row``, step by step. ``work``: the work accumulated before
        them (dict WORK_KEYS -> J), updated to the batch's end."""
        steps = self.steps
        accumulated = accumulated_work(work, np.array([s.work for s in steps]))
        col = {"t": self.t}
        pairs = []
        for k, contact in enumerate(system.model.contacts):
            view = _PairSteps(contact.name, [s.pairs[k] for s in steps])
            pairs.append(view)
            for column in CONTACT_COLUMNS:
                col[f"{contact.name}_{column.name}"] = column_array(column.value(view), self.n)
        fields = ("tree_kinetic", "structure_kinetic", "gravity", "tree_springs")
        fields += ("structure_elastic", "damping_power", "load_power")
        energy = Energies(*(np.array([getattr(s.energy, f) for s in steps]) for f in fields))
        view = _Steps(steps, pairs)
        for column in BALANCE_COLUMNS:
            col[column.name] = column_array(
                column.value(view, energy, accumulated, energy0), self.n
            )
        known = {}
        for j, s in enumerate(steps):
            for name, value in s.energy.structure_elastic_parts:
                known.setdefault(name, np.empty(self.n))[j] = value
        col.update(
            part_energy_arrays(
                system, self.q, self.u, energy.gravity, energy.tree_springs, None, known
            )
        )
        acc = np.array([s.acceleration for s in steps])
        col.update(state_arrays(system, self.q, self.u, acc))
        return col


class _PairSteps:
    """One pair over n steps as a ``ContactReport`` whose per-point fields hold one value per
    step (n, 1): the sums over the points (forces, impulses), the values at the point of the
    largest normal force (slip velocity, parameter, position), so that ``CONTACT_COLUMNS``
    read the values of the reports (``main`` 0: that point; NaN where the pair is open)."""

    main = 0

    def __init__(self, name, values):
        self.name = name
        self.state = np.array([v.state for v in values])
        self.normal_force = np.array([[v.normal_force] for v in values])
        self.friction_force = np.array([[v.friction_force] for v in values])
        self.normal_impulse = np.array([[v.normal_impulse] for v in values])
        self.friction_impulse = np.array([[v.friction_impulse] for v in values])
        self.slip_velocity = np.array([[v.slip_velocity] for v in values])
        self.parameter = np.array([[v.parameter] for v in values])
        self.point = np.array([[v.point] for v in values])
        self.min_gap = np.array([v.min_gap for v in values])
        self.n_points = np.array([v.n_points for v in values])
        # for ``friction_power``: the sum of F_T gamma_T over the points, as a product of
        # (n, 1) arrays whose sum over the one point is that sum
        self.power = _Power(np.array([[v.friction_power] for v in values]))


class _Power:
    """A pair's friction power over n steps as ``BALANCE_COLUMNS``' friction_power reads it:
    friction_force (n, 1) the power, slip_velocity 1."""

    def __init__(self, power):
        self.friction_force = power
        self.slip_velocity = 1.0


class _Steps:
    """The reports of the n steps as arrays, as ``BALANCE_COLUMNS`` read them."""

    def __init__(self, steps, pairs):
        n = len(steps)
        self.contacts = [p.power for p in pairs]
        self.residual_position = np.zeros(n)
        self.residual_velocity = np.zeros(n)
        self.n_newton = np.array([s.n_newton for s in steps])
        self.n_substeps = np.array([s.n_substeps for s in steps])
        self.solver_residual = np.array([s.solver_residual for s in steps])


__all__ = [
    "BATCH_STEPS",
    "FlatStep",
    "MoreauBatch",
    "PairValues",
    "closest_values",
    "compiled_report",
    "pair_values",
]
