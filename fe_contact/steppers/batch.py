"""Quiet steps of the compiled generalised-alpha stepper taken in one compiled call, and what
they report, as arrays.

``take_steps`` runs ``kernels.loop.steps`` from the committed state of a
``compiled.CompiledGeneralizedAlpha`` and commits what it took as ``GeneralizedAlpha.step``
commits a step in which nothing but the step happens (no contact event, no restart, no
sub-step). A ``StepBatch`` holds those steps' reports: ``columns`` gives the history columns
of ``result.history_row`` as arrays, ``report`` the ``StepReport`` of one step, for observers.
The step that ends a batch early is left to ``step()``, which takes it the one way it takes
every step.
"""

from __future__ import annotations

import numpy as np

from ..kernels.beam import GAP, N_FIELDS, NX, PX, TX, VT, S
from ..kernels.loop import N_ENERGY, N_POWER, STOPS, steps
from ..part_energies import part_energy_arrays
from ..sensors import state_arrays
from ..system import Energies
from .result import BALANCE_COLUMNS, CONTACT_COLUMNS, WORK_KEYS, ContactReport, StepReport

# the output arrays of a batch hold at most this many numbers per state array (K n)
BATCH_ENTRIES = 1 << 20
POWER_KEYS = WORK_KEYS[:N_POWER]  # the keys of ``ContactStates._power_terms``, in its order


class StepBatch:
    """n consecutive full steps of one stepper (``take_steps``). t (n,), q, u and the
    accelerations acceleration (n, n_q),
    multipliers (n, m) by ``Model.constraint_names()``, work (n, 7): the work of each step
    by WORK_KEYS, energy (n, 7) as ``kernels.step.packed_energies``, residual (n, 2), n_newton (n,),
    records (n, n_c, N_FIELDS) the contacts; ``stop`` why the batch ended (``STOPS``)."""

    def __init__(self, stepper, n, stop, t, q, u, lam, records, energy, work, residual, its, acc):
        self.n, self.stop = n, stop
        self.t, self.q, self.u, self.acceleration = t, q, u, acc
        self.residual, self.n_newton, self.records = residual, its, records
        self.energy, self.work = energy, work
        model = stepper.system.model
        m0 = len(model.constraint_names())
        self.multipliers = lam[:, :m0]
        self.h = stepper.h
        n_c = stepper._n_bilateral
        self.drive_forces = lam[:, n_c : n_c + len(model.drives)]
        # per model contact: (name, state, normal force, friction force)
        by_model = {k: i for i, k in enumerate(stepper._sliding)}
        self.contacts = []
        for k, pair in enumerate(model.contacts):
            i = by_model[k]
            normal = lam[:, i]
            if stepper._stick[i] is None:
                state, friction = "slip", -stepper._slip_sign[i] * stepper._mu[i] * normal
            else:
                state, friction = "stick", lam[:, stepper._stick_row(i)]
            self.contacts.append((pair.name, state, i, normal, friction))

    def energies(self, j: int) -> Energies:
        return Energies(*self.energy[j].tolist())

    def report(self, j: int) -> StepReport:
        """The StepReport of step j (what ``GeneralizedAlpha.step`` returns)."""
        contacts = []
        for name, state, i, normal, friction in self.contacts:
            r = self.records[j, i]
            f_n, f_t = float(normal[j]), float(friction[j])
            contacts.append(
                ContactReport(
                    name=name,
                    state=state,
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
        """The history columns of the n steps (``result.history_row``'s, the same arithmetic)
        with ``work`` the work accumulated before them (dict WORK_KEYS -> J: updated to the
        end of the batch)."""
        n = self.n
        col = {"t": self.t}
        for name, state, i, normal, friction in self.contacts:
            r = self.records[:, i]
            col[f"{name}_state"] = np.full(n, state)
            col[f"{name}_normal_force"] = normal.copy()
            col[f"{name}_friction_force"] = np.array(friction, dtype=float)
            col[f"{name}_normal_impulse"] = normal * self.h
            col[f"{name}_friction_impulse"] = friction * self.h
            col[f"{name}_slip_velocity"] = r[:, VT].copy()
            col[f"{name}_gap"] = r[:, GAP].copy()
            col[f"{name}_parameter"] = r[:, S].copy()
            col[f"{name}_n_closed"] = np.ones(n, dtype=int)
        for k, name in enumerate(system.model.drive_names()):
            col[f"{name}_force"] = self.drive_forces[:, k].copy()
        tk, sk, gravity, springs, se = (self.energy[:, k] for k in range(5))
        kinetic = tk + sk
        elastic = springs + se + 0.0
        col["kinetic_energy"] = kinetic
        col["potential_energy"] = gravity.copy()
        col["elastic_energy"] = elastic
        col["tree_kinetic_energy"] = tk.copy()
        col["structure_kinetic_energy"] = sk.copy()
        col["structure_elastic_energy"] = se.copy()
        col.update(part_energy_arrays(system, self.q, self.u, gravity, springs))
        for k, key in enumerate(WORK_KEYS):  # accumulated as simulate does, step by step
            col[key] = np.add.accumulate(np.concatenate(([work[key]], self.work[:, k])))[1:]
            work[key] = float(col[key][-1])
        col["energy_error"] = (
            kinetic
            + gravity
            + elastic
            - energy0
            - col["work_drives"]
            - col["work_loads"]
            + col["dissipated_damping"]
            + col["dissipated_friction"]
            + col["dissipated_impact"]
            + col["dissipated_numerical"]
            - col["work_contact_timing"]
        )
        col["residual_position"] = self.residual[:, 0].copy()
        col["residual_velocity"] = self.residual[:, 1].copy()
        col["n_newton"] = self.n_newton.copy()
        col["n_substeps"] = np.ones(n, dtype=int)
        col["solver_residual"] = np.zeros(n)
        # an array form of ``result``'s friction_power, summed in its order (read per step
        # from the reports it cost a third of a compiled run's wall time)
        col["friction_power"] = np.zeros(n)
        for _, _, i, _, friction in self.contacts:
            col["friction_power"] = col["friction_power"] + friction * self.records[:, i, VT]
        self._generic_columns(col, work, energy0)
        col.update(state_arrays(system, self.q, self.u, self.acceleration))
        return col

    def _generic_columns(self, col: dict, work: dict, energy0: float) -> None:
        """The columns of ``result`` that ``columns`` has no array form for, read from each
        step's report as ``history_row`` reads them (one definition of every column; an array
        form here is only faster)."""
        first = self.contacts[0][0] if self.contacts else None  # a contact's name
        contact = [c for c in CONTACT_COLUMNS if first and f"{first}_{c.name}" not in col]
        balance = [c for c in BALANCE_COLUMNS if c.name not in col]
        if not contact and not balance:
            return
        rows = {}
        for j in range(self.n):
            report = self.report(j)
            done = {key: float(col[key][j]) for key in WORK_KEYS}
            for c in report.contacts:
                for column in contact:
                    rows.setdefault(f"{c.name}_{column.name}", []).append(column.value(c))
            for column in balance:
                value = column.value(report, self.energies(j), done, energy0)
                rows.setdefault(column.name, []).append(value)
        col.update({name: np.asarray(values) for name, values in rows.items()})


def take_steps(st, n_max: int) -> StepBatch | None:
    """Up to n_max full steps of ``st`` (a CompiledGeneralizedAlpha) in one compiled call,
    committed (``CompiledGeneralizedAlpha.steps``)."""
    if (
        not st.batch
        or n_max < 1
        or st.error_tol is not None
        or st._cap is not None  # sub-steps growing after an event
        or len(st._stick) != st._n_bilateral
        or not np.all(np.isnan(st._v0))
        or np.any(st.part.dependent >= st.system.layout.n_tree)  # structure ones: Python
    ):
        return None
    plan = st.plan
    h = st.h
    n = st.q.size
    size = max(1, min(n_max, st._batch_size, BATCH_ENTRIES // n))
    times = np.empty(size)
    t = st.t
    for j in range(size):  # the end times of the steps, as ``step()`` computes them
        t_end = t + h
        t = t + (t_end - t)
        times[j] = t
    LM = np.ones((1, 0))
    if np.any(st._mu > 0):
        LM = plan.factor(0.0, 0.0)
        if LM is None:
            return None
    t_end = st.t + h
    key = st.algebra.coefficients(t_end - st.t)
    factor = plan.factor(*key)
    if factor is None:
        return None
    drive, actuators = plan.motions(times)
    size = drive.shape[0]
    if size == 0:
        return None
    times = times[:size]
    ind, U = plan.indices(st.part)
    ev = st.evaluation
    prev = st._prev()
    cstate = st._cstate()
    if st._previous is None:
        acc_prev, h_prev = st.acceleration, 0.0
    else:
        acc_prev, h_prev = st._previous
    p = st.params
    m = ev.phi.size
    nc = cstate.shape[0]
    out = (
        np.empty(size),
        np.empty((size, n)),
        np.empty((size, n)),
        np.empty((size, m)),
        np.empty((size, nc, N_FIELDS)),
        np.empty((size, N_ENERGY)),
        np.empty((size, N_POWER)),
        np.empty((size, 2)),
        np.empty(size, dtype=np.int64),
        np.empty(size),
        np.empty((size, n)),
    )
    taken, stop, flat, _, _, acc_prev, h_prev = steps(
        *plan.packed,
        factor,
        LM,
        (p.alpha_m, p.alpha_f, p.gamma, p.beta),
        key,
        st.t,
        h,
        drive,
        actuators,
        ind,
        U,
        st.q,
        st.u,
        st.acceleration,
        st.pseudo,
        acc_prev,
        h_prev,
        prev,
        cstate,
        st._s.copy(),
        st.tol,
        st.rtol,
        st.max_newton,
        np.asarray(st._mu, dtype=float),
        np.asarray(st._mu_s, dtype=float),
        st.recondition * max(st._cond0, 1.0),
        *out,
    )
    # the next batch: twice as long after a full one, short again after an early stop
    st._batch_size = min(2 * size, 4096) if taken == size else 16
    t_out, q, u, lam, records, energy, power, residual, its, numerical, acc = (
        a[:taken] for a in out
    )
    # work of each step by the trapezoidal rule (``ContactStates._close_substep``)
    p_all = np.vstack([[st._powers[k] for k in POWER_KEYS], power])
    t_all = np.concatenate(([st.t], t_out))
    dt = t_all[1:] - t_all[:-1]
    work = np.zeros((taken, len(WORK_KEYS)))
    work[:, :N_POWER] = 0.5 * dt[:, None] * (p_all[:-1] + p_all[1:])
    work[:, 0] += 0.0  # the drives' impulse work: no impact
    work[:, WORK_KEYS.index("dissipated_numerical")] = numerical
    batch = StepBatch(
        st, taken, STOPS[stop], t_out, q, u, lam, records, energy, work, residual, its, acc
    )
    if taken == 0:
        return batch
    # commit the last step as ``step()`` commits it
    t_last = float(t_all[-2])
    st.n_steps += taken
    st.n_compiled += taken
    st.n_newton += int(its.sum())
    st._previous = (acc_prev, h_prev)
    st._commit(flat, float(t_out[-1]), ind, cstate[:, 0].copy())
    st.n_substeps += taken - 1
    st._newton0, st._substeps0 = st.n_newton - int(its[-1]), st.n_substeps - 1
    st._energy = batch.energies(taken - 1)
    st._powers = dict(zip(POWER_KEYS, power[-1].tolist(), strict=True))
    st._h_step = h
    st._v_last, st._dt_last = None, (t_last + h) - t_last
    st._impact_loss = st._impact_work = st._numerical = 0.0
    st.t_old, st.report = t_last, batch.report(taken - 1)  # as ``Stepper.step`` keeps them
    return batch


__all__ = ["BATCH_ENTRIES", "StepBatch", "take_steps"]
