"""Quiet steps of the event-driven stepper taken in one compiled call, and what they report,
as arrays.

``EventDriven.steps`` runs ``kernels.rough_steps.quiet_steps`` from its state: the steps in
which nothing needs Python (no halving, the impulses found by the kernel, Poisson's impacts
included, not the run's last step), each with the operations of ``EventDriven.step``. A ``RoughBatch`` holds
them: ``columns`` gives the history columns of ``step_report.history_row`` as arrays (the rough
pair's columns computed by the kernel, the balance columns by their own definitions),
``report`` the ``StepReport`` of one step, for observers; ``normal`` and ``normal_impulse`` are
the closed points' normals and normal impulses of all its steps in order. The step that ends a
batch early is left to ``step()``, which takes it the one way it takes every step.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..columns import BALANCE_COLUMNS, CONTACT_COLUMNS, ROUGH_COLUMNS, WORK_KEYS
from ..kernels.rough_steps import POINT_FIELDS, SCALAR_FIELDS, STOPS
from ..part_energies import part_energy_arrays
from ..sensors import state_arrays
from ..system import Energies
from .batch import accumulated_work, column_array
from .contact_report import RoughContactReport
from .step_report import StepReport

BATCH_STEPS = 1024  # steps of one batch at most: a run's memory does not grow with its length
STATE_NAMES = ("open", "slip", "stick")  # the kernel's state codes
_P = {name: k for k, name in enumerate(POINT_FIELDS)}
_S = {name: k for k, name in enumerate(SCALAR_FIELDS)}


class RoughBatch:
    """n consecutive quiet steps of the event-driven stepper (module docstring).

    Parameters
    ----------
    name : str
        The rough pair's name.
    stop : str
        "done" when the batch took the steps it was asked for, "step" when the next step is
        ``step()``'s (a halving, the run's last step, ...); ``reason`` says which
        (``kernels.rough_steps.STOPS``).
    arrays : tuple
        What ``kernels.rough_steps.quiet_steps`` returns after its first three values: t (n,),
        q, u, acceleration (n, n_q), work (n, 7), energy (n, 4), the pair's columns (n, 15),
        state codes (n,), closed points (n,), offsets (n + 1,), the points (k, 10) and whether
        each step started with an impact (n,) bool.
    h : float
        The step, s.
    stick_speed : float
        m/s: a loaded point slipping no faster sticks (the stepper's test).

    Examples
    --------
    A pin on the wheel (003 sec. 4.1) for 10 steps of 0.1 us, before it lands: one batch
    takes all but the last step (``step()``'s), and its columns are those of a step's row:

    >>> from fe_contact import assemble
    >>> from fe_contact.papers.slavic_boltezar import PinOnWheel, pin_model
    >>> from fe_contact.steppers.event_driven import EventDriven
    >>> from fe_contact.steppers.step_report import no_work
    >>> system = assemble(pin_model(PinOnWheel(t_end=1e-6)))
    >>> stepper = EventDriven(system, 0.0, np.zeros(2), np.zeros(2), t_bound=1e-6)
    >>> batch = stepper.steps(100)
    >>> batch.n, batch.stop, batch.reason
    (9, 'step', 'bound')
    >>> columns = batch.columns(system, no_work(), 0.0)
    >>> str(columns["pin_state"][-1]), int(columns["pin_n_closed"][-1])
    ('open', 0)
    """

    def __init__(self, name: str, stop: str, reason: str, arrays, h: float, stick_speed: float):
        self.name, self.stop, self.reason, self.h = name, stop, reason, h
        self.stick_speed = stick_speed
        (
            self.t,
            self.q,
            self.u,
            self.acceleration,
            self.work,
            self.energy,
            self.scalars,
            self.state,
            self.closed,
            self.offsets,
            self.points,
            self.impact,
        ) = arrays
        self.n = self.t.size
        self.multipliers = np.zeros((self.n, 0))
        self.drive_forces = np.zeros((self.n, 0))

    @property
    def normal(self) -> np.ndarray:
        """(k, 2) the unit normals of the closed points of all steps, in order."""
        return self.points[:, _P["normal_x"] : _P["normal_y"] + 1]

    @property
    def normal_impulse(self) -> np.ndarray:
        """(k,) N s, their normal impulses."""
        return self.points[:, _P["normal_impulse"]]

    def _energies(self, rows) -> Energies:
        """Energies of the values (a list of 4 floats) or columns ((n, 4) array) of
        ``kernels.rough_steps.ENERGY_FIELDS``."""
        tree_kinetic, gravity, springs, damping_power = rows if isinstance(rows, list) else rows.T
        return Energies(
            tree_kinetic=tree_kinetic,
            structure_kinetic=0.0,
            gravity=gravity,
            tree_springs=springs,
            structure_elastic=0.0,
            damping_power=damping_power,
            load_power=0.0,
        )

    def energies(self, j: int) -> Energies:
        """``system.energies`` of the end state of step j."""
        return self._energies(self.energy[j].tolist())

    def report(self, j: int) -> StepReport:
        """The StepReport of step j (what ``EventDriven.step`` returns)."""
        rows = self.points[self.offsets[j] : self.offsets[j + 1]]
        s = self.scalars[j]
        h = self.h
        rate = 1.0 / h if h > 0.0 else 0.0
        p_n = rows[:, _P["normal_impulse"]].copy()
        p_t = rows[:, _P["friction_impulse"]].copy()
        slip = rows[:, _P["slip_velocity"]].copy()
        codes = self._point_codes(p_n, slip)
        contact = RoughContactReport(
            name=self.name,
            state=STATE_NAMES[int(self.state[j])],
            point=rows[:, 0:2].copy(),
            normal=rows[:, 2:4].copy(),
            tangent=rows[:, 4:6].copy(),
            parameter=np.full(p_n.size, np.nan),
            gap=rows[:, _P["gap"]].copy(),
            slip_velocity=slip,
            normal_force=p_n * rate,
            friction_force=p_t * rate,
            normal_impulse=p_n,
            friction_impulse=p_t,
            min_gap=float(s[_S["gap"]]),
            point_state=codes,
            impulse_xy=s[_S["impulse_x"] : _S["impulse_y"] + 1].copy(),
            normal_impulse_xy=s[_S["normal_impulse_x"] : _S["normal_impulse_y"] + 1].copy(),
            loss_profile=float(s[_S["loss_profile"]]),
            loss_target=float(s[_S["loss_target"]]),
        )
        return StepReport(
            t=float(self.t[j]),
            q=self.q[j].copy(),
            u=self.u[j].copy(),
            contacts=(contact,),
            drive_forces=np.zeros(0),
            multipliers=np.zeros(0),
            work=dict(zip(WORK_KEYS, self.work[j].tolist(), strict=True)),
            h=h,
            n_substeps=1,
            acceleration=self.acceleration[j].copy(),
        )

    def _point_codes(self, p_n, slip) -> tuple[str, ...]:
        still = (np.abs(slip) <= self.stick_speed).tolist()
        return tuple(
            "open" if not on else "stick" if s else "slip"
            for on, s in zip((p_n > 0.0).tolist(), still, strict=True)
        )

    def columns(self, system, work: dict, energy0: float) -> dict:
        """The history columns of the n steps (the values of ``step_report.history_row``,
        step by step). ``work`` : the work accumulated before them (dict WORK_KEYS -> J),
        updated to the batch's end."""
        n = self.n
        accumulated = accumulated_work(work, self.work)
        col = {"t": self.t}
        values = {
            "state": np.array(STATE_NAMES)[self.state],
            "parameter": np.full(n, np.nan),
            "n_closed": self.closed.copy(),
        }
        values.update({name: self.scalars[:, k] for k, name in enumerate(SCALAR_FIELDS)})
        for column in CONTACT_COLUMNS + ROUGH_COLUMNS:
            col[f"{self.name}_{column.name}"] = values[column.name]
        energy = self._energies(self.energy)
        steps = SimpleNamespace(
            contacts=(),
            residual_position=np.zeros(n),
            residual_velocity=np.zeros(n),
            n_newton=np.zeros(n, dtype=int),
            n_substeps=np.ones(n, dtype=int),
            solver_residual=np.zeros(n),
        )
        for column in BALANCE_COLUMNS:
            col[column.name] = column_array(column.value(steps, energy, accumulated, energy0), n)
        col["friction_power"] = values["friction_power"]  # sum of F_t v_t over the points
        gravity, springs = self.energy[:, 1], self.energy[:, 2]
        col.update(part_energy_arrays(system, self.q, self.u, gravity, springs))
        col.update(state_arrays(system, self.q, self.u, self.acceleration))
        return col


def stop_of(code: int) -> tuple[str, str]:
    """("done" or "step", the reason of ``kernels.rough_steps.STOPS``) of a stop code."""
    reason = STOPS[int(code)]
    return ("done" if reason == "full" else "step"), reason


__all__ = ["BATCH_STEPS", "STATE_NAMES", "RoughBatch", "stop_of"]
