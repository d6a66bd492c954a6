"""The generalised-alpha stepper with its Newton iteration compiled (numba), where it applies.

``CompiledGeneralizedAlpha`` is ``GeneralizedAlpha`` whose step (``_newton_step``) runs in one
compiled call: ``kernels.loop.steps`` taking one step, the entry point of the batches too, so
that numba compiles one entry point of the Newton iteration (``kernels.step.iterate``) and not
two. In it: the tree's kinematics and dynamics, the contacts' closest points and kinematics, the
partitioning (Lipinski (002), eqs. 73, 76, 78a-b), the bordered solve with the structures'
block G_f = M_f + gamma' C_f + beta' K_f factorised once per step size (banded Cholesky: G_f is
symmetric positive definite for linear beams with Rayleigh damping) or, for a string, with its
tangent stiffness K_t(q) at each iterate as the Python step forms it (banded LU,
``kernels.string.iteration_factor``), the Newton test, and the
step's energies and the scheme's own loss, all on flat arrays laid out by ``StateLayout``.
Python is touched once per step. The equations, the tests and the order of the iterates are
those of the Python step, so the trajectories agree to round-off (the factorisation and the
order of the sums differ). The iteration matrix holds the curvature terms of the contacts on
beams (``kernels.curvature``, the Python step's kernel too): a point running at 80 m/s along a
tensioned wire of 5000 elements takes 5 iterations per step with them, 44 and step halvings
without.

What it takes (``unsupported`` says why a system is not taken): a tree (revolute and
prismatic joints, springs, dampers, actuators), drives, linear beams (``BeamSpec``), one
undamped open string (``StringSpec`` with a tension law the kernels evaluate) or none, and
bilateral ``Sliding`` contacts of points or circles on beams or on rigid lines (fixed, or
on a translating body) with Coulomb friction, slipping or sticking. What a step cannot finish
is handed back to the Python step, which redoes the step from the committed state: a contact
leaving its beam, a nearly singular J_u or J_Sigma,u (Painleve), a Newton iteration that does
not converge, a drive giving a non-finite value. A sticking circle rolls: its velocity-level
row takes its position value from the committed state's W_T (``constraints.rolling_position``).
Events (stick, reversal), restarts, reports and the bookkeeping of the step stay in
``GeneralizedAlpha``. Systems with strings beside other structures, closed or damped strings,
loop closures, unilateral contacts or the continuous friction law run on ``GeneralizedAlpha``
unchanged.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from ..coupling.constraints import Evaluation
from ..coupling.kinematics import ContactKinematics
from ..kernels import announce_compilation
from ..kernels.beam import (
    ELEMENT,
    GAP,
    H00,
    H01,
    H11,
    NX,
    PX,
    QX,
    REM,
    REM_T,
    SRATE,
    TX,
    VN,
    VT,
    S,
)
from ..kernels.loop import STOPS
from ..kernels.loop import steps as loop_steps
from ..kernels.step import FLAT, delassus
from ..system import Energies, System
from .batch import BATCH_ENTRIES, POWER_KEYS, StepBatch, batch_outputs, step_work
from .compiled_plan import Plan, unsupported
from .genalpha import GeneralizedAlpha
from .partitioned_step import StepAlgebra, margin_of
from .step_state import StepState

# the factor of M_f given to ``kernels.loop.steps`` when it forms no Painleve margin
NO_FACTOR = np.ones((1, 0))


@functools.lru_cache(maxsize=64)
def _pieces(n: int, k: int, m: int, c: int, t: int) -> tuple:
    """(start, stop, shape) of each piece of the flat result of ``kernels.loop.steps``
    (``kernels.step.FLAT``) for n coordinates, k independent ones, m rows, c contacts and t
    tree coordinates."""
    sizes = {"n": n, "k": k, "m": m, "c": c, "t": t}
    out, start = [], 0
    for _, dims in FLAT:
        shape = tuple(int(d) if d.isdigit() else sizes[d] for d in dims.split())
        size = math.prod(shape)
        out.append((start, start + size, shape))
        start += size
    return tuple(out)


def _split(flat: np.ndarray, pieces: tuple) -> list[np.ndarray]:
    """The pieces of the flat result as views."""
    return [flat[a:b].reshape(shape) for a, b, shape in pieces]


class CompiledAlgebra(StepAlgebra):
    """``StepAlgebra`` whose Painleve margin (J M^-1 J_Sigma^T) is formed compiled."""

    def __init__(self, system: System, params, plan: Plan):
        super().__init__(system, params)
        self.plan = plan

    def painleve_margin(self, ev, mu) -> float:
        if not np.any(mu > 0) or ev.phi.size == 0:
            return 1.0
        LM = self.plan.factor(0.0, 0.0)
        if LM is None:
            return super().painleve_margin(ev, mu)
        D0, D = delassus(*self.plan.packed, LM, ev.mass_tree, ev.jac, ev.jac_sigma)
        return margin_of(D0, D)


class CompiledGeneralizedAlpha(GeneralizedAlpha):
    """``GeneralizedAlpha`` with the compiled step where it applies (module docstring); the
    same settings. ``n_compiled`` counts the steps taken compiled, ``n_fallback`` those handed
    back to the Python step after a compiled attempt. A compiled step or batch commits what it
    took as the parent's ``StepState`` (``save``, ``dataclasses.replace``, ``restore``), plus
    ``_record_quiet_step`` after a batch; it reads the parent's settings through its
    properties."""

    def __init__(self, system: System, t0: float, q0, u0, batch: bool = True, **settings):
        self.plan = Plan(system)  # this run's: it keeps the factors of its step sizes
        announce_compilation()  # the first compiled run after installation compiles
        self.n_compiled = self.n_fallback = 0
        self._step_energies = (None, None)  # (evaluation, its energies) of the compiled step
        if not isinstance(batch, bool):
            raise TypeError(f"simulate: batch = {batch!r}; allowed: True or False")
        self.batch = batch
        self._batch_size = 16  # steps of the next batch (``steps``)
        self._wait, self._backoff = 0, 1  # batches not tried after one that took no step
        super().__init__(system, t0, q0, u0, **settings)

    def _make_algebra(self, system: System) -> StepAlgebra:
        # the Painleve margin formed compiled, with this run's factors
        return CompiledAlgebra(system, self.params, self.plan)

    def _energies(self, ev) -> Energies:
        """The energies at ev: those the compiled step booked at its end (``kernels.loop``), or
        ``system.energies`` at an evaluation of the Python step."""
        booked, energies = self._step_energies
        if ev is booked:
            return energies
        return super()._energies(ev)

    def _newton_step(self, h: float):
        result = self._compiled_step(h)
        if result is None:
            return super()._newton_step(h)
        return result

    def _compiled_step(self, h: float):
        if np.any(self.part.dependent >= self.system.layout.n_tree):
            return None  # structure coordinates among the dependent ones: the Python step
        plan = self.plan
        bp, gp = self.algebra.coefficients(h)
        factor = plan.factor(bp, gp)
        t1 = self.t + h
        motion = plan.motion(t1)
        if factor is None or motion is None:
            return None
        ind, U = plan.indices(self.part)
        state = self.save()
        acc_prev, h_prev = (self.acceleration, 0.0) if state.previous is None else state.previous
        p = self.params
        cstate = self._cstate()
        slip_sign = cstate[:, 0].copy()
        out = batch_outputs(1, self.q.size, self.evaluation.phi.size, cstate.shape[0])
        taken, _, flat, _, _, _, _, cond = loop_steps(
            *plan.packed,
            factor,
            NO_FACTOR,
            (p.alpha_m, p.alpha_f, p.gamma, p.beta),
            (bp, gp),
            self.t,
            h,
            motion[0][None],
            motion[1][None],
            ind,
            U,
            self.q,
            self.u,
            self.acceleration,
            self.pseudo,
            acc_prev,
            h_prev,
            self._prev(),
            self._multipliers(),
            cstate,
            state.parameters.copy(),
            self.tol,
            self.rtol,
            self.max_newton,
            np.asarray(self.friction_coefficients, dtype=float),
            np.asarray(self.static_coefficients, dtype=float),
            0.0,
            True,  # one step of h, committed whatever happens in it (``step()`` tests)
            *out,
        )
        if taken == 0:  # the iteration did not finish OK: the Python step retries, reports
            self.n_fallback += 1
            return None
        _, _, _, _, _, energy, _, _, its, numerical, _ = out
        self.n_newton += int(its[0])
        self.n_substeps += 1
        self.n_compiled += 1
        self.restore(
            self._committed(
                state,
                flat,
                t1,
                ind,
                slip_sign,
                previous=(state.acceleration, h),
                numerical=state.numerical + float(numerical[0]),
            )
        )
        booked = energy[0].tolist()
        parts = ()
        if self.plan.one_string:  # the structures' elastic energy is the string's own
            parts = ((next(iter(self.system.structures)), booked[4]),)
        self._step_energies = (self.evaluation, Energies(*booked, structure_elastic_parts=parts))
        if cond > self.recondition * max(state.cond0, 1.0):
            self.part = self._choose(self.evaluation)
        return self.evaluation

    def _committed(self, state: StepState, flat, t1: float, ind, slip_sign, **changes) -> StepState:
        """``state`` (the committed state, ``save``) moved to the end t1 of the compiled
        step(s) whose result is ``flat`` (``kernels.step.FLAT``): time, coordinates,
        velocities, accelerations, multipliers, evaluation and contact parameters from
        ``flat``, the other fields the step(s) changed from ``changes`` (``StepState``
        fields), for ``restore``."""
        pieces = _pieces(
            self.q.size, ind.size, self.part.dependent.size, slip_sign.size, self.plan.P[6]
        )
        (q1, u1, acc, a1, lam, phi, jac, js, rem, phit, rec, wn, wt, hess, mass_tree, forces) = (
            _split(flat, pieces)
        )
        on_beam = self.plan.contacts[4] >= 0
        contacts = tuple(
            ContactKinematics(
                parameter=float(r[S]),
                element=int(r[ELEMENT]),
                point=r[PX : PX + 2],
                profile_point=r[QX : QX + 2],
                normal=r[NX : NX + 2],
                tangent=r[TX : TX + 2],
                gap=float(r[GAP]),
                normal_velocity=float(r[VN]),
                slip_velocity=float(r[VT]),
                w_normal=wn[i],
                w_tangent=wt[i],
                remainder=float(r[REM]),
                parameter_rate=float(r[SRATE]),
                tangent_remainder=float(r[REM_T]),
                gap_hessian=(
                    (hess[i, :2].T, np.array([[r[H00], r[H01]], [r[H01], r[H11]]]))
                    if on_beam[i]
                    else None
                ),
                remainder_gradient=hess[i, 2] if on_beam[i] else None,
            )
            for i, r in enumerate(rec)
        )
        evaluation = Evaluation(
            t=t1,
            q=q1,
            u=u1,
            mass_tree=mass_tree,
            forces=forces,
            phi=phi,
            jac=jac,
            jac_sigma=js,
            remainder=rem,
            phi_t=phit,
            contacts=contacts,
            slip_sign=slip_sign.copy(),
            contact_index=self.modes.sliding,
            friction=self.friction_coefficients * slip_sign,  # constant-mu Coulomb
        )
        pseudo = acc.copy()
        pseudo[ind] = a1
        return dataclasses.replace(
            state,
            t=t1,
            q=q1,
            u=u1,
            acceleration=acc,
            pseudo=pseudo,
            multipliers=lam,
            evaluation=evaluation,
            parameters=rec[:, S].copy(),
            **changes,
        )

    def _cstate(self) -> np.ndarray:
        """Per contact: slip sign, 1 while it sticks, its anchor (``kernels.loop.steps``)."""
        slip_sign = np.asarray(self.modes.slip_sign, dtype=float)
        cstate = np.zeros((slip_sign.size, 5))
        cstate[:, 0] = slip_sign
        for i, anchor in enumerate(self.modes.anchors):
            if anchor is not None:
                cstate[i, 1:] = (1.0, anchor.parameter, *anchor.direction)
        return cstate

    def _prev(self) -> tuple:
        """(q, u, phi, J, phi_t, t, W_T, Hessian columns, Hessian cores) of the committed
        evaluation (``kernels.loop.steps``): W_T (n_c, n) is the base of a rolling circle's
        position value; the columns (n_c, 3, n) and cores (n_c, 3) of the contacts' gap
        Hessians (``kinematics.gap_hessian``; zeros for none) curve the first iterate's
        dependent step."""
        ev = self.evaluation
        n_c = len(self.modes.slip_sign)
        w_t = np.zeros((n_c, ev.q.size))
        hess = np.zeros((n_c, 3, ev.q.size))
        core = np.zeros((n_c, 3))
        for i, c in enumerate(ev.contacts[:n_c]):
            if c is not None and self.modes.anchors[i] is not None:
                w_t[i] = c.w_tangent
            if c is not None and c.gap_hessian is not None:
                U, C = c.gap_hessian
                hess[i, :2] = U.T
                core[i] = C[0, 0], C[0, 1], C[1, 1]
        return (ev.q, ev.u, ev.phi, ev.jac, ev.phi_t, float(ev.t), w_t, hess, core)

    def _multipliers(self) -> np.ndarray:
        """The committed multipliers, those of the first iterate's curvature terms (an empty
        array when they are not of the present rows: no curvature terms then, as in
        ``ContactModes.closed_normals``)."""
        lam = np.asarray(self.multipliers, dtype=float)
        return lam if lam.size == self.evaluation.phi.size else np.zeros(0)

    def _take_batch(self, n_max: int):
        """Up to n_max full steps in one compiled call from the committed state, committed
        (``steps``); None when the state or settings need ``step()``."""
        if (
            not self.batch
            or n_max < 1
            or self.error_tol is not None
            or self.substep_cap is not None  # sub-steps growing after an event
            or self.modes.mode.size != self.modes.n_bilateral
            or not np.all(np.isnan(self.characteristic_velocities))
            or np.any(self.part.dependent >= self.system.layout.n_tree)  # structure ones
        ):
            return None
        plan = self.plan
        h = self.h
        n = self.q.size
        size = max(1, min(n_max, self._batch_size, BATCH_ENTRIES // n))
        times = np.empty(size)
        t = self.t
        for j in range(size):  # the end times of the steps, as ``step()`` computes them
            t_end = t + h
            t = t + (t_end - t)
            times[j] = t
        LM = NO_FACTOR
        mu = np.asarray(self.friction_coefficients, dtype=float)
        if np.any(mu > 0):
            LM = plan.factor(0.0, 0.0)
            if LM is None:
                return None
        key = self.algebra.coefficients((self.t + h) - self.t)
        factor = plan.factor(*key)
        if factor is None:
            return None
        drive, actuators = plan.motions(times)
        size = drive.shape[0]
        if size == 0:
            return None
        ind, U = plan.indices(self.part)
        cstate = self._cstate()
        state = self.save()
        acc_prev, h_prev = (self.acceleration, 0.0) if state.previous is None else state.previous
        p = self.params
        out = batch_outputs(size, n, self.evaluation.phi.size, cstate.shape[0])
        taken, stop, flat, _, _, acc_prev, h_prev, _ = loop_steps(
            *plan.packed,
            factor,
            LM,
            (p.alpha_m, p.alpha_f, p.gamma, p.beta),
            key,
            self.t,
            h,
            drive,
            actuators,
            ind,
            U,
            self.q,
            self.u,
            self.acceleration,
            self.pseudo,
            acc_prev,
            h_prev,
            self._prev(),
            self._multipliers(),
            cstate,
            state.parameters.copy(),
            self.tol,
            self.rtol,
            self.max_newton,
            mu,
            np.asarray(self.static_coefficients, dtype=float),
            self.recondition * max(state.cond0, 1.0),
            False,
            *out,
        )
        # the next batch: twice as long after a full one, short again after an early stop
        self._batch_size = min(2 * size, 4096) if taken == size else 16
        t_out, q, u, lam, records, energy, power, residual, its, numerical, acc = (
            a[:taken] for a in out
        )
        work = step_work(self.t, state.powers, t_out, power, numerical)
        batch = StepBatch(
            taken,
            STOPS[stop],
            t_out,
            q,
            u,
            records,
            energy,
            work,
            residual,
            its,
            acc,
            h=h,
            lam=self._batch_multipliers(lam),
            contacts=self._batch_contacts(lam),
        )
        if taken == 0:
            return batch
        # commit the last step as ``step()`` commits it
        t_last = float(t_out[-2]) if taken > 1 else float(self.t)
        self.n_steps += taken
        self.n_compiled += taken
        self.n_newton += int(its.sum())
        self.n_substeps += taken
        self.restore(
            self._committed(
                state,
                flat,
                float(t_out[-1]),
                ind,
                cstate[:, 0].copy(),
                previous=(acc_prev, h_prev),
                powers=dict(zip(POWER_KEYS, power[-1].tolist(), strict=True)),
                impact_loss=0.0,
                impact_work=0.0,
                numerical=0.0,
            )
        )
        self._record_quiet_step(t_last, h, int(its[-1]), batch.energies(taken - 1))
        self.t_old, self.report = t_last, batch.report(taken - 1)  # as ``Stepper.step`` keeps
        return batch

    def _batch_multipliers(self, lam: np.ndarray) -> tuple:
        """(multipliers (k, m) by ``Model.constraint_names()``, drive forces (k, d)) of the
        kernel's rows lam (k, rows)."""
        model = self.system.model
        m0 = len(model.constraint_names())
        n_c = self.modes.n_bilateral
        return lam[:, :m0], lam[:, n_c : n_c + len(model.drives)]

    def _batch_contacts(self, lam: np.ndarray) -> list:
        """Per model contact over k steps: (name, state, its index in the kernel's records,
        normal force (k,), friction force (k,)) from the kernel's rows lam (k, rows)."""
        by_model = {k: i for i, k in enumerate(self.modes.sliding)}
        mu = self.friction_coefficients
        out = []
        for k, pair in enumerate(self.system.model.contacts):
            i = by_model[k]
            normal = lam[:, i]
            if self.modes.anchors[i] is None:
                state, friction = "slip", -self.modes.slip_sign[i] * mu[i] * normal
            else:
                state, friction = "stick", lam[:, self.modes.stick_row(i)]
            out.append((pair.name, state, i, normal, friction))
        return out

    def steps(self, n_max: int):
        """Up to n_max full steps of h in one compiled call (``kernels.loop.steps``), as many
        as follow one another with nothing but the step happening in them; each is committed
        and counted as ``step()`` does. Returns a ``batch.StepBatch`` of what they report (0
        steps when the next one needs ``step()``), or None when the stepper's state or
        settings need ``step()`` anyway (error control, sub-steps growing after an event, an
        iteration matrix that is not symmetric positive definite). After a batch that took no
        step none is tried for the next 1, 2, 4, ... 64 calls (None), until one takes steps."""
        if self._wait:
            self._wait -= 1
            return None
        batch = self._take_batch(n_max)
        if batch is not None and batch.n:
            self._backoff = 1
        elif batch is not None:
            self._wait, self._backoff = self._backoff, min(2 * self._backoff, 64)
        return batch


def generalized_alpha(system: System, settings: dict):
    """(stepper class, settings) of method "generalized-alpha": the compiled stepper when
    ``settings["compiled"]`` (default True) and the system is one it takes, else the Python
    one; the ``compiled`` key is removed from the settings, and ``batch`` (default True:
    quiet steps taken several in one compiled call, ``CompiledGeneralizedAlpha.steps``) is passed to the
    compiled stepper only."""
    settings = dict(settings)
    wanted = settings.pop("compiled", True)
    batch = settings.pop("batch", True)
    for name, value in (("compiled", wanted), ("batch", batch)):
        if not isinstance(value, bool):
            raise TypeError(f"simulate: {name} = {value!r}; allowed: True or False")
    if wanted and not settings.get("energy_consistent", False) and unsupported(system) is None:
        return CompiledGeneralizedAlpha, {**settings, "batch": batch}
    return GeneralizedAlpha, settings


__all__ = [
    "CompiledAlgebra",
    "CompiledGeneralizedAlpha",
    "Plan",
    "generalized_alpha",
    "unsupported",
]
