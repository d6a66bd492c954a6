"""Quiet steps of the compiled generalised-alpha stepper taken in one compiled call, and what
they report, as arrays.

``GeneralizedAlpha.steps`` (``compiled.CompiledStep.steps``) runs ``kernels.loop.steps`` from
its committed state into the arrays of ``batch_outputs`` and commits what it took as
``GeneralizedAlpha.step`` commits a step in which nothing but the step happens (no contact
event, no restart, no sub-step), with the work of each step by ``step_work``. A ``StepBatch``
holds those steps' reports: ``columns`` gives the history columns of ``result.history_row`` as
arrays, ``report`` the ``StepReport`` of one step, for observers.
The step that ends a batch early is left to ``step()``, which takes it the one way it takes
every step.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np

from ..columns import BALANCE_COLUMNS, CONTACT_COLUMNS, WORK_KEYS
from ..kernels.beam import GAP, N_FIELDS, NX, PX, TX, VT, S
from ..kernels.links import N_LINK_FIELDS
from ..kernels.loop import N_ENERGY, N_POWER
from ..part_energies import has_compliant, part_energy_arrays
from ..sensors import state_arrays
from ..system import Energies
from .contact_report import ContactReport, open_contact
from .step_report import StepReport

# the output arrays of a batch hold at most this many numbers per state array (K n)
BATCH_ENTRIES = 1 << 20
POWER_KEYS = WORK_KEYS[:N_POWER]  # the keys of ``mode_reports.power_terms``, in its order


class StepBatch:
    """n consecutive full steps of one stepper (``GeneralizedAlpha.steps``). t (n,), q,
    u and the accelerations acceleration (n, n_q), lam = (multipliers (n, m) by
    ``Model.constraint_names()``, drive forces (n, d)), work (n, 7): the work of each step by
    WORK_KEYS, energy (n, 7) as ``kernels.step.packed_energies``, residual (n, 2), n_newton (n,),
    records (n, n_c, N_FIELDS) the contacts with rows, contacts: per model contact (name,
    state, its records (n, N_FIELDS), normal force (n,), friction force (n,), closed): state
    a str and closed None for a contact with rows (closed at its one point in every step),
    state (n,) str and closed (n,) bool for a link or a compliant contact (its law's states,
    no point where not closed: ``compliant.compliant_report``); h the step; ``stop`` why the
    batch ended (``STOPS``)."""

    def __init__(
        self, n, stop, t, q, u, records, energy, work, residual, its, acc, *, h, lam, contacts
    ):
        self.n, self.stop = n, stop
        self.t, self.q, self.u, self.acceleration = t, q, u, acc
        self.residual, self.n_newton, self.records = residual, its, records
        self.energy, self.work = energy, work
        self.h = h
        self.multipliers, self.drive_forces = lam
        # per model contact: (name, state, records, normal force, friction force, closed)
        self.contacts = contacts

    def energies(self, j: int) -> Energies:
        return Energies(*self.energy[j].tolist())

    def report(self, j: int) -> StepReport:
        """The StepReport of step j (what ``GeneralizedAlpha.step`` returns)."""
        contacts = []
        for name, state, records, normal, friction, closed in self.contacts:
            r = records[j]
            if closed is not None and not closed[j]:  # no point: a link or force law off
                report = open_contact(name, float(r[GAP]))
                state_j = str(state[j])
                contacts.append(report if state_j == "open" else replace(report, state=state_j))
                continue
            f_n, f_t = float(normal[j]), float(friction[j])
            contacts.append(
                ContactReport(
                    name=name,
                    state=state if closed is None else str(state[j]),
                    point=r[PX : PX + 2][None, :].copy(),
                    normal=r[NX : NX + 2][None, :].copy(),
                    tangent=r[TX : TX + 2][None, :].copy(),
                    parameter=np.array([r[S]]),
                    gap=np.array([r[GAP]]),
                    slip_velocity=np.array([r[VT]]),
                    normal_force=np.array([f_n]),
                    friction_force=np.array([f_t]),
                    normal_impulse=np.array([f_n * self.h]),
                    friction_impulse=np.array([f_t * self.h]),
                    min_gap=float(r[GAP]),
                )
            )
        return StepReport(
            t=float(self.t[j]),
            q=self.q[j].copy(),
            u=self.u[j].copy(),
            contacts=tuple(contacts),
            drive_forces=self.drive_forces[j].copy(),
            multipliers=self.multipliers[j].copy(),
            work=dict(zip(WORK_KEYS, self.work[j].tolist(), strict=True)),
            residual_position=float(self.residual[j, 0]),
            residual_velocity=float(self.residual[j, 1]),
            h=self.h,
            n_newton=int(self.n_newton[j]),
            n_substeps=1,
            energy=self.energies(j),
            acceleration=self.acceleration[j].copy(),
        )

    def columns(self, system, work: dict, energy0: float) -> dict:
        """The history columns of the n steps, by the columns' own definitions
        (``columns.CONTACT_COLUMNS`` and ``BALANCE_COLUMNS`` read from the batch's reports as
        arrays, ``_Steps``): the values of ``result.history_row``, step by step. ``work`` :
        the work accumulated before them (dict WORK_KEYS -> J), updated to the batch's end."""
        accumulated = accumulated_work(work, self.work)
        steps = _Steps(self)
        col = {"t": self.t}
        for view in steps.contacts:
            for column in CONTACT_COLUMNS:
                col[f"{view.name}_{column.name}"] = column_array(column.value(view), self.n)
        for k, name in enumerate(system.model.drive_names()):
            col[f"{name}_force"] = self.drive_forces[:, k].copy()
        energy = Energies(*self.energy.T)
        steps.contacts = [view.closed_points() for view in steps.contacts]
        for column in BALANCE_COLUMNS:
            col[column.name] = column_array(
                column.value(steps, energy, accumulated, energy0), self.n
            )
        _, _, gravity, springs, elastic = (self.energy[:, k] for k in range(5))
        known = None
        if len(system.structures) == 1 and not system.linear_flexible:
            # one string (``compiled_scope.unsupported``): its strain energy is the structures'
            # elastic energy the kernels booked, not evaluated again
            known = {next(iter(system.structures)): elastic.copy()}
        # the links' and compliant contacts' elastic energy, as ``part_energies`` reads it
        contact = energy.contact_elastic if has_compliant(system.model) else None
        col.update(part_energy_arrays(system, self.q, self.u, gravity, springs, contact, known))
        col.update(state_arrays(system, self.q, self.u, self.acceleration))
        return col


def accumulated_work(work: dict, rows: np.ndarray) -> dict:
    """The work accumulated after each of n steps, by WORK_KEYS ((n,) each, J), summed step by
    step as the recorder sums it from ``work`` (dict WORK_KEYS -> J, the work before them),
    which is updated to the last step's. rows : (n, len(WORK_KEYS)), each step's work."""
    accumulated = {}
    for k, key in enumerate(WORK_KEYS):
        accumulated[key] = np.add.accumulate(np.concatenate(([work[key]], rows[:, k])))[1:]
        work[key] = float(accumulated[key][-1])
    return accumulated


def column_array(values, n: int) -> np.ndarray:
    """A history column's values over n steps as an (n,) array of its own (a constant, as a
    column gives one for every step, spread)."""
    values = np.asarray(values)
    return np.full(n, values) if values.ndim == 0 else values.copy()


class _Steps:
    """The reports of a batch's n steps as arrays (what ``Column.value`` reads): contacts (one
    ``_ContactSteps`` per model contact), the residuals (n,), n_newton (n,), n_substeps and
    solver_residual."""

    def __init__(self, batch: StepBatch):
        n = batch.n
        self.contacts = [
            _ContactSteps(name, state, records, normal, friction, batch.h, n, closed)
            for name, state, records, normal, friction, closed in batch.contacts
        ]
        self.residual_position = batch.residual[:, 0]
        self.residual_velocity = batch.residual[:, 1]
        self.n_newton = batch.n_newton
        self.n_substeps = np.ones(n, dtype=int)
        self.solver_residual = np.zeros(n)


class _ContactSteps:
    """One single-point contact over n steps, as a ``ContactReport`` with arrays: every field
    of the report, per-point fields (n, 1), the point, normal and tangent (n, 1, 2), min_gap
    (n,), state and point_state (n,) strings; so a column may read any field of the report.
    closed : (n,) bool, the steps in which it has its point (None: all); in the others it
    reads as ``open_contact``'s report: no force, NaN at the point, its gap."""

    main = 0  # the point with the largest normal force: the only one

    def __init__(self, name, state, records, normal, friction, h, n, closed=None):
        self.name = name
        self.state = np.full(n, state) if closed is None else np.asarray(state)
        self.point_state = self.state[:, None]
        normal = np.asarray(normal, dtype=float)
        friction = np.asarray(friction, dtype=float)
        point = records[:, None, PX : PX + 2].copy()
        unit = records[:, None, NX : NX + 2].copy()
        tangent = records[:, None, TX : TX + 2].copy()
        slip = records[:, VT].copy()
        parameter = records[:, S].copy()
        if closed is not None:  # an open report: no point (NaN where read), no force
            off = ~np.asarray(closed, dtype=bool)
            for values in (point, unit, tangent, slip, parameter):
                values[off] = np.nan
            normal = np.where(off, 0.0, normal)
            friction = np.where(off, 0.0, friction)
        self.point, self.normal, self.tangent = point, unit, tangent
        self.gap = records[:, GAP][:, None]
        self.normal_force = normal[:, None]
        self.friction_force = friction[:, None]
        self.normal_impulse = self.normal_force * h
        self.friction_impulse = self.friction_force * h
        self.slip_velocity = slip[:, None]
        self.parameter = parameter[:, None]
        self.min_gap = records[:, GAP]
        self.n_points = np.ones(n, dtype=int) if closed is None else np.asarray(closed, int)
        self._open = None if closed is None else off

    def closed_points(self) -> _ContactSteps:
        """This view with no slip velocity (0 m/s, not NaN) where it has no point: the sums
        over a step's closed points (the friction power) read nothing there."""
        if self._open is None:
            return self
        view = copy.copy(self)
        view.slip_velocity = np.where(self._open[:, None], 0.0, self.slip_velocity)
        return view


def batch_outputs(size: int, n: int, m: int, n_c: int, n_l: int = 0, n_p: int = 0) -> tuple:
    """The arrays ``kernels.loop.steps`` writes for up to ``size`` steps of n coordinates, m
    constraint rows, n_c contacts, n_l links with constant rows and n_p compliant contacts:
    t, q, u, multipliers, records, energy, power, residual, n_newton, numerical loss,
    accelerations, the links' states (``kernels.links.link_states``) and the compliant
    contacts' records."""
    return (
        np.empty(size),
        np.empty((size, n)),
        np.empty((size, n)),
        np.empty((size, m)),
        np.empty((size, n_c, N_FIELDS)),
        np.empty((size, N_ENERGY)),
        np.empty((size, N_POWER)),
        np.empty((size, 2)),
        np.empty(size, dtype=np.int64),
        np.empty(size),
        np.empty((size, n)),
        np.empty((size, n_l, N_LINK_FIELDS)),
        np.empty((size, n_p, N_FIELDS)),
    )


def step_work(t0: float, powers0: dict, t: np.ndarray, power: np.ndarray, numerical) -> np.ndarray:
    """The work of each of k steps (k, len(WORK_KEYS)), J, by the trapezoidal rule on the
    powers (``GeneralizedAlpha._close_substep``): t0 and powers0 (dict POWER_KEYS -> W) at the
    start, t (k,) and power (k, N_POWER) at the steps' ends; numerical (k,) the scheme's own
    loss of each step."""
    p_all = np.vstack([[powers0[k] for k in POWER_KEYS], power])
    t_all = np.concatenate(([t0], t))
    dt = t_all[1:] - t_all[:-1]
    work = np.zeros((t.size, len(WORK_KEYS)))
    work[:, :N_POWER] = 0.5 * dt[:, None] * (p_all[:-1] + p_all[1:])
    work[:, WORK_KEYS.index("dissipated_numerical")] = numerical
    return work


__all__ = [
    "BATCH_ENTRIES",
    "POWER_KEYS",
    "StepBatch",
    "accumulated_work",
    "batch_outputs",
    "column_array",
    "step_work",
]
