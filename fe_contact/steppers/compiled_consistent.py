"""The energy-consistent generalised-alpha step compiled (``kernels.consistent_step``), where
it applies (``compiled_scope.consistent_unsupported``).

``ConsistentCompiledStep`` is the compiled step of a ``GeneralizedAlpha`` made with
``compiled=True, energy_consistent=True``: one compiled call per (sub-)step, no batches. It
packs the committed state and the force handling's carried part (``ConsistentContacts``:
f_used of the beams, the droppers' e_used and approaches, the damping forces and loads of the
committed state, c_used = M q'' + F) for the kernel and writes back what the step leaves
(the carried part, the work booked by the dampers, the loads and the drives, the normal
impulse of the closed contacts, the projection's loss in the scheme's own), as
``steppers.newton.newton_step`` with ``ConsistentContacts`` leaves them, so that Python and
compiled steps alternate: events, restarts and transitions stay in Python, and so do the steps
the kernel does not finish (``n_fallback``), and, without a compiled attempt (``n_python``),
those that move by less than ``energy_consistent.SMALL_STEP`` (held in the rows' velocity
form by the Python step). A sticking contact's positional row (``StickAnchor``) is one more
row of the kernel's evaluation (its anchor in the contacts' state): its discrete gradient and
Lambda as any other row's, its force doing no work over the step (G dq = phi_1 - phi_0 = 0).
"""

from __future__ import annotations

import numpy as np

from ..kernels.consistent_step import DIVERGED, WORK_FIELDS, consistent_step
from ..kernels.evaluate import OK
from ..system import Energies
from .compiled import CompiledStep
from .energy_consistent import GRADIENT_SWITCH, SMALL_STEP
from .force_laws import LAW_SWITCH, ForceLaws
from .newton import NewtonDivergence
from .partitioned_step import partition_condition


class ConsistentCompiledStep(CompiledStep):
    """The compiled energy-consistent step of one run (module docstring); ``step`` as
    ``CompiledStep.step``, ``steps`` takes no batches (None).

    Parameters
    ----------
    system : System
        A system the kernel takes (``compiled_scope.consistent_unsupported`` is None).
    """

    def __init__(self, system):
        super().__init__(system, batch=False)
        rows = system.link_rows
        n_l = rows.size
        if n_l:
            laws = ForceLaws(system)
            stiffness, exponent, first = laws.stiffness, laws.exponent, laws.first
        else:
            stiffness, exponent = np.zeros(0), np.zeros(0)
            first = np.zeros((0, rows.dofs.shape[1] if rows.dofs.ndim == 2 else 0), dtype=bool)
        self._laws = (
            np.ascontiguousarray(stiffness[:n_l], dtype=float),
            np.ascontiguousarray(exponent[:n_l], dtype=float),
            np.ascontiguousarray(first, dtype=np.bool_),
            LAW_SWITCH,
            GRADIENT_SWITCH,
        )
        model = system.model
        n_c = sum(1 for c in model.contacts if c.bilateral)
        self._drive_rows = n_c + np.arange(len(model.drives), dtype=np.int64)
        self._drive_joints = np.array([d.joint for d in model.drives], dtype=np.int64)
        # the steps handed to the Python step without a compiled attempt: those held in the
        # rows' velocity form (SMALL_STEP)
        self.n_python = 0

    def steps(self, stepper, n_max: int):
        """No batches: every step is one call (``step``)."""
        return None

    def _carried(self, stepper) -> tuple:
        """The force handling's committed part, as the kernel takes it."""
        a = stepper.averaged
        n = stepper.q.size
        if a.laws is not None:
            state, used_l = a.elastic
            approach = np.ascontiguousarray(state.approach, dtype=float)
        else:
            used_l, approach = np.zeros(n), np.zeros(0)
        return tuple(
            np.ascontiguousarray(x, dtype=float)
            for x in (a.used, used_l, approach, a.damping, a.loads, a.constraint_force)
        )

    def step(self, stepper, h: float, halving: bool = False):
        """One step of h from ``stepper``'s committed state in one compiled call: (the state
        at its end, for ``restore``; its Newton iterations; cond(J_u) at its end), or None
        when the Python step takes it (``CompiledStep.step``; also a step that moves by less
        than SMALL_STEP, and one without dependent coordinates)."""
        system = stepper.system
        part = stepper.part
        if part.dependent.size == 0 or np.any(part.dependent >= system.layout.n_tree):
            return None
        if h * np.max(np.abs(stepper.u), initial=0.0) < SMALL_STEP:
            self.n_python += 1
            return None  # the rows in their velocity form: the Python step
        plan = self.plan
        bp, gp = stepper.algebra.coefficients(h)
        factor = plan.factor(bp, gp)
        mass_factor = plan.factor(0.0, 0.0)
        t1 = stepper.t + h
        motion = plan.motion(t1)
        middle = plan.motion(0.5 * (stepper.t + t1))
        if factor is None or mass_factor is None or motion is None or middle is None:
            return None
        ind, U = plan.indices(part)
        state = stepper.save()
        ydd0 = state.acceleration[ind].copy()
        if state.previous is not None:  # linear extrapolation, as ``newton_step``
            acc_prev, h_prev = state.previous
            ydd0 += (h / h_prev) * (state.acceleration[ind] - acc_prev[ind])
        p = stepper.params
        cstate = self._cstate(stepper)
        slip_sign = cstate[:, 0].copy()
        s = self._parameters(stepper, state)
        try:
            out = consistent_step(
                *plan.packed,
                factor,
                plan.link_band(bp, gp),
                mass_factor,
                (p.alpha_m, p.alpha_f, p.gamma, p.beta),
                (h, bp, gp, t1),
                motion[0],
                motion[1],
                middle[0],
                middle[1],
                ind,
                U,
                stepper.q,
                stepper.u,
                stepper.acceleration,
                stepper.pseudo,
                ydd0,
                self._prev(stepper),
                cstate,
                s,
                self._carried(stepper),
                self._laws,
                self._drive_rows,
                self._drive_joints,
                stepper.tol,
                stepper.rtol,
                stepper.max_newton,
            )
        except np.linalg.LinAlgError:  # a singular G_Sigma,u: the Python step says why
            self.n_fallback += 1
            return None
        status, its, q1, u1, acc, a1, lam, ev, links, carried, work, impulse, loss, energy = out
        if status == DIVERGED and halving:
            raise NewtonDivergence(
                f"Newton did not converge in {stepper.max_newton} iterations at t = {t1:.6g} s "
                "(compiled energy-consistent step); try a smaller h"
            )
        if status != OK:
            self.n_fallback += 1
            return None
        self.n_compiled += 1
        committed = self._commit(stepper, state, h, lam, carried, work, impulse)
        _, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
        pieces = (q1, u1, acc, a1, lam, phi, jac, js, rem, phit, rec, wn, wt, hess, mass_tree)
        flat = np.concatenate([np.ravel(x) for x in (*pieces, forces, links)])  # ``FLAT``
        end = self._committed(
            stepper,
            state,
            flat,
            t1,
            ind,
            slip_sign,
            previous=(state.acceleration, h),
            numerical=state.numerical + float(loss) + float(work[WORK_FIELDS.index("projection")]),
            forces=committed,
        )
        # the energies the kernel booked at the step's end, read by ``GeneralizedAlpha._energies``
        # (the droppers' friction power is zero)
        parts = ()
        if plan.one_string:  # the structures' elastic energy is the string's own
            parts = ((next(iter(system.structures)), float(energy[4])),)
        energies = Energies(
            *energy.tolist(), contact_friction_power=0.0, structure_elastic_parts=parts
        )
        self.booked = (end.evaluation, energies)
        return end, int(its), partition_condition(end.evaluation, part)

    def _commit(self, stepper, state, h: float, lam, carried, work, impulse):
        """Write the step's carried part, work and impulse into the stepper's force handling
        (``ConsistentContacts.commit_taken``, the normal impulse as ``newton_step`` books it)
        and return its ``save()``."""
        a = stepper.averaged
        a.restore(state.forces)
        used_f, used_l, approach, damping, loads, e, gradient, tension = carried
        a.commit_taken(
            (used_f, used_l, approach, gradient, tension, damping, loads, e),
            dict(zip(WORK_FIELDS, work.tolist(), strict=True)),
            stepper.modes.closed_normal(h * lam + impulse),
        )
        return a.save()


__all__ = ["ConsistentCompiledStep"]
