"""The generalised-alpha stepper with its Newton iteration compiled (numba), where it applies.

``CompiledStep`` is the compiled step of a ``GeneralizedAlpha`` made with ``compiled=True``:
the stepper asks it first for each step (``_newton_step``) and for batches of quiet steps
(``steps``), and commits what it took. A step is one compiled call of ``kernels.loop.steps``
taking one step, the entry point of the batches too, so that numba compiles one entry point
of the Newton iteration (``kernels.step.iterate``) and not two. In it: the tree's kinematics and dynamics, the contacts' closest points and kinematics, the
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
undamped open string (``StringSpec`` with a tension law the kernels evaluate) or none,
bilateral ``Sliding`` contacts of points or circles on beams or on rigid lines (fixed, or
on a translating body) with Coulomb friction, slipping or sticking, ``Dropper`` links between
material points of the linear beams (``kernels.links``: their taut tangent added to G_f in the
links' band order, factorised per iterate as ``linked_band`` does it in the Python step) and
``Compliant`` normal forces without friction of body points on the beams and between pairs of
curved profiles on tree bodies, beam-carried bodies or the plane, those also with the
continuous friction law (000 eq. 10; ``kernels.compliant``, ``kernels.profile_pair``: their
tangent bordered as ``compliant.bordered_solve`` borders it; the cam lock's cases 0 and 1);
the pantograph on its overhead line (``papers.pantograph``, the "penalty" contact) is such a
system. ``Unilateral`` contacts of body points on the linear beams too (their friction as a
Sliding contact's, slipping or sticking): while
closed, the normal row the Python step gives them (after the drives' rows), while open their
gap only; a batch stops before a step in which a closed one's normal force or an open one's
gap turns negative, and the Python step locates the opening or the impact
(``kernels.evaluate.normal_rows``, ``kernels.loop``): the "exact" pantograph in the plain
form (``energy_consistent=False``). A ``Unilateral`` pair of curved profiles (the cam lock's
case 3, ``compiled_scope.row_pair``) has the same rows, its kinematics those of
``kernels.profile_pair`` with the acceleration remainders by the Python step's central
differences and its stick row the rolling row W_T u = 0 (``kernels.evaluate.PAIR``). What a step cannot finish
is handed back to the Python step, which redoes the step from the committed state: a contact
leaving its beam, a nearly singular J_u or J_Sigma,u (Painleve), a Newton iteration that does
not converge, a drive giving a non-finite value. A sticking circle rolls: its velocity-level
row takes its position value from the committed state's W_T (``constraints.rolling_position``).
Events (stick, reversal), restarts, reports and the bookkeeping of the step stay in
``GeneralizedAlpha``. Systems with strings beside other structures, closed or damped strings,
loop closures, unilateral contacts on other sides, the energy-consistent
form (``steppers.energy_consistent``; its own compiled step, ``steppers.compiled_consistent``,
takes part of it), the continuous friction law on constraint rows,
compliant contacts of points with friction, the switches of a rolling pair of profiles (the
cam lock's case 2: its steps while it slips, is open or rolls, its row W_T u = 0 with the
Python step's order, value and multiplier, are compiled, ``kernels.compliant.rolling_rows``;
a batch stops before a step that starts or ends the rolling, which the Python step
switches), and
links from a body point or on a string take the Python step
(``GeneralizedAlpha`` makes no ``CompiledStep`` for them). A system with compliant contacts or
links takes its quiet steps in batches too: the kernels write each step's links
(``kernels.links.link_states``) and compliant contacts' records, and the batch's reports and
history columns of those contacts come from these arrays (``_link_steps``, ``_pressed_steps``:
the states "taut"/"slack", "slip"/"open", forces, points and gaps each step's report gives).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from ..coupling.constraints import Evaluation
from ..coupling.contact import compliant_force, link_forces
from ..coupling.kinematics import ContactKinematics
from ..coupling.links import links_state
from ..kernels import announce_compilation
from ..kernels import links as link_kernel
from ..kernels.beam import (
    ELEMENT,
    GAP,
    H00,
    H01,
    H11,
    N_FIELDS,
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
from ..kernels.compliant import ROLLING
from ..kernels.evaluate import CLOSED, PAIR, UNILATERAL
from ..kernels.loop import STOPS
from ..kernels.loop import steps as loop_steps
from ..kernels.profile_pair import ETA
from ..kernels.step import FLAT, delassus
from ..system import Energies, System
from .batch import BATCH_ENTRIES, POWER_KEYS, StepBatch, batch_outputs, step_work
from .compiled_plan import Plan
from .compiled_scope import pressed_contact, row_contacts, row_pair, unsupported
from .newton import NewtonDivergence
from .partitioned_step import StepAlgebra, margin_of
from .step_state import ContactMode, StepState

# the factor of M_f given to ``kernels.loop.steps`` when it forms no Painleve margin
NO_FACTOR = np.ones((1, 0))
# the compliant contacts' modes the kernels take, by their code (``kernels.compliant``)
COMPLIANT_MODES = (ContactMode.FORCE_LAW, ContactMode.ROLL, ContactMode.RELEASED)
KERNEL_MODE = {int(m): code for code, m in enumerate(COMPLIANT_MODES)}


@functools.lru_cache(maxsize=64)
def _pieces(n: int, k: int, m: int, c: int, t: int, l: int, p: int) -> tuple:  # noqa: E741
    """(start, stop, shape) of each piece of the flat result of ``kernels.loop.steps``
    (``kernels.step.FLAT``) for n coordinates, k independent ones, m rows, c contacts, t
    tree coordinates, l links with constant rows and p compliant contacts."""
    sizes = {"n": n, "k": k, "m": m, "c": c, "t": t, "l": l, "p": p}
    out, start = [], 0
    for _, dims in FLAT:
        shape = tuple(int(d) if d.isdigit() else sizes[d] for d in dims.split())
        size = math.prod(shape)
        out.append((start, start + size, shape))
        start += size
    return tuple(out)


def _slow_at_start(stepper) -> bool:
    """True when a compliant contact with rolling, under its force law, pushes at the
    committed state with a slip speed below v0 / 2: the Python step's next step starts it
    rolling there (``ContactModes.first_event``), which a batch does not do."""
    modes = stepper.modes
    for i in range(modes.n_rows, modes.mode.size):
        if "roll" in modes.kinds(i) and modes.indicator(i, "roll", stepper.evaluation, None) < 0:
            return True
    return False


def _split(flat: np.ndarray, pieces: tuple) -> list[np.ndarray]:
    """The pieces of the flat result as views."""
    return [flat[a:b].reshape(shape) for a, b, shape in pieces]


def _kinematics(r, w_n, w_t, hess, on_beam: bool, pair: bool = False) -> ContactKinematics:
    """The ``ContactKinematics`` of a contact's record r (``kernels.beam.N_FIELDS``), rows
    W_N, W_T (n,) and Hessian columns hess (3, n) (its gap's Hessian when ``on_beam``);
    ``pair``: a pair of curved profiles, whose record holds the profile's parameter
    (``kernels.profile_pair.ETA``)."""
    return ContactKinematics(
        parameter=float(r[S]),
        element=int(r[ELEMENT]),
        point=r[PX : PX + 2],
        profile_point=r[QX : QX + 2],
        normal=r[NX : NX + 2],
        tangent=r[TX : TX + 2],
        gap=float(r[GAP]),
        normal_velocity=float(r[VN]),
        slip_velocity=float(r[VT]),
        w_normal=w_n,
        w_tangent=w_t,
        remainder=float(r[REM]),
        parameter_rate=float(r[SRATE]),
        tangent_remainder=float(r[REM_T]),
        gap_hessian=(
            (hess[:2].T, np.array([[r[H00], r[H01]], [r[H01], r[H11]]])) if on_beam else None
        ),
        remainder_gradient=hess[2] if on_beam else None,
        profile_parameter=float(r[ETA]) if pair else np.nan,
    )


def _link_steps(system, q, u, links) -> dict:
    """The ``batch.StepBatch`` contacts of the links of ``system.link_rows`` over k steps, by
    model index, as each step's report gives them (``compliant.compliant_report`` of
    ``link_forces``): taut while the tension the kernels evaluated (links (k, l,
    N_LINK_FIELDS), ``kernels.links.link_states``) pulls with their gap negative, else slack;
    the point on side b, the normal, the gap and the parameter of ``links_state`` at each
    step's (q, u) (k, n) (no friction, no slip)."""
    rows = system.link_rows
    k, n_l = q.shape[0], rows.size
    rec = np.zeros((k, n_l, N_FIELDS))
    for j in range(k):  # numpy's sums of each step, as the step's ``links_state``
        state = links_state(system, q[j], u[j])
        rec[j, :, PX : PX + 2] = state.point_b
        rec[j, :, NX : NX + 2] = state.normal
        rec[j, :, TX] = state.normal[:, 1]
        rec[j, :, TX + 1] = -state.normal[:, 0]
        rec[j, :, GAP] = state.gap
    rec[:, :, S] = rows.parameter
    taut = links[:, :, link_kernel.GAP] < 0.0
    tension = np.where(taut, links[:, :, link_kernel.TENSION], 0.0)
    closed = tension > 0.0
    zero = np.zeros(k)
    out = {}
    for i, pair in enumerate(rows.pairs.tolist()):
        c = system.model.contacts[pair]
        states = np.where(closed[:, i], c.law.state_name(True), c.law.state_name(False))
        out[pair] = (c.name, states, rec[:, i], tension[:, i], zero, closed[:, i])
    return out


def _pressed_steps(system, k: int, records, pair: bool = False) -> tuple:
    """The ``batch.StepBatch`` contact of compliant contact k over the steps of its records
    (k, N_FIELDS) (``kernels.compliant``): its law evaluated at each step as the step's
    report evaluates it (``compliant_force``, ``compliant.compliant_report``)."""
    contact = system.model.contacts[k]
    law = contact.law
    zeros = np.zeros(system.layout.n)
    normal, friction = np.zeros(len(records)), np.zeros(len(records))
    for j, r in enumerate(records):
        f = compliant_force(law, _kinematics(r, zeros, zeros, None, False, pair), k)
        normal[j], friction[j] = f.normal_force, f.friction_force
    closed = normal > 0.0
    states = np.where(closed, law.state_name(True), law.state_name(False))
    return contact.name, states, records, normal, friction, closed


class CompiledAlgebra(StepAlgebra):
    """``StepAlgebra`` whose Painleve margin (J M^-1 J_Sigma^T) is formed compiled."""

    def __init__(self, system: System, params, plan: Plan):
        super().__init__(system, params, plan.absolute)
        self.plan = plan

    def painleve_margin(self, ev, mu) -> float:
        if not np.any(mu > 0) or ev.phi.size == 0:
            return 1.0
        LM = self.plan.factor(0.0, 0.0)
        if LM is None:
            return super().painleve_margin(ev, mu)
        D0, D = delassus(*self.plan.packed, LM, ev.mass_tree, ev.jac, ev.jac_sigma)
        return margin_of(D0, D)


class CompiledStep:
    """The compiled step of one generalised-alpha run (module docstring): what a
    ``GeneralizedAlpha`` made with ``compiled=True`` asks before it takes a step in Python.

    ``step(stepper, h)`` takes one step of h from the stepper's committed state in one
    compiled call and returns what it took (or None: the Python step takes it); ``steps``
    takes up to n_max quiet steps in one call. Both read the stepper's committed state and
    settings and leave committing to it. ``n_compiled`` counts the (sub-)steps taken
    compiled, ``n_fallback`` those handed back to the Python step after a compiled attempt;
    ``booked`` is (evaluation, its energies) of the last compiled step, the energies the
    kernels booked at its end.

    Parameters
    ----------
    system : System
        A system the compiled step takes (``unsupported(system)`` is None).
    batch : bool
        Quiet steps taken several in one compiled call (``steps``); ``GeneralizedAlpha``
        checks it with its other settings.
    """

    def __init__(self, system: System, batch: bool = True):
        self.plan = Plan(system)  # this run's: it keeps the factors of its step sizes
        # model indices of the compliant contacts taken as forces (``kernels.compliant``)
        self._pressed = tuple(
            k for k, c in enumerate(system.model.contacts) if pressed_contact(system, c)
        )
        # which of them are pairs of curved profiles (``kernels.profile_pair``)
        self._pairs = tuple(bool(b) for b in self.plan.P[9][5][: len(self._pressed), 0] >= 0)
        # (row, model index) of the contacts with rows that are pairs of curved profiles
        # (``compiled_scope.row_pair``), whose searches start from the run's ``Workspace``
        index = {id(c): k for k, c in enumerate(system.model.contacts)}
        self._row_pairs = tuple(
            (i, index[id(c)])
            for i, c in enumerate(row_contacts(system.model))
            if row_pair(system, c)
        )
        announce_compilation()  # the first compiled run after installation compiles
        self.n_compiled = self.n_fallback = 0
        self.booked = (None, None)
        self.batch = batch
        # steps of the next batch (``steps``): a short run (some tens of steps) in one call
        self._batch_size = 64
        self._wait, self._backoff = 0, 1  # batches not tried after one that took no step
        # what single steps reuse: the output arrays of one step (read out after each call),
        # the last partition checked and the last evaluation's arrays (``_prev``): the
        # retakes that locate an event start from the same state again and again
        self._single_out = {}
        self._checked = (None, False)
        self._last_prev = (None, (), None)

    def algebra(self, system: System, params) -> CompiledAlgebra:
        """The step's solves, with the Painleve margin formed compiled from this run's
        factors."""
        return CompiledAlgebra(system, params, self.plan)

    def step(self, stepper, h: float, halving: bool = False):
        """One step of h from ``stepper``'s committed state in one compiled call: (the state
        at its end, for ``restore``; its Newton iterations; cond(J_u) at its end), or None
        when the Python step takes it (structure coordinates among the dependent ones, no
        factor for this step size, a drive the kernels cannot evaluate, an iteration that did
        not finish OK: ``n_fallback`` counts the last). With ``halving`` (the step is halved
        if it fails), a Newton iteration that ran to ``max_newton`` iterations raises
        NewtonDivergence, as the Python step would, instead of handing the step back; the
        contact parameters of its last iterate are kept, as the Python step keeps them."""
        part, on_structure = self._checked
        if part is not stepper.part:
            part = stepper.part
            on_structure = bool(np.any(part.dependent >= stepper.system.layout.n_tree))
            self._checked = (part, on_structure)
        if on_structure:
            return None  # structure coordinates among the dependent ones: the Python step
        plan = self.plan
        bp, gp = stepper.algebra.coefficients(h)
        factor = plan.factor(bp, gp)
        t1 = stepper.t + h
        motion = plan.motion(t1)
        if factor is None or motion is None:
            return None
        ind, U = plan.indices(stepper.part)
        state = stepper.save()
        acc_prev, h_prev = (stepper.acceleration, 0.0) if state.previous is None else state.previous
        p = stepper.params
        cstate = self._cstate(stepper)
        slip_sign = cstate[:, 0].copy()
        out = self._single_outputs(stepper, cstate.shape[0])
        s = self._parameters(stepper, state)
        rolling = self._kernel_modes(stepper)
        taken, stop, flat, _, _, _, _, cond = loop_steps(
            *plan.packed,
            factor,
            plan.link_band(bp, gp),
            NO_FACTOR,
            (p.alpha_m, p.alpha_f, p.gamma, p.beta),
            (bp, gp),
            stepper.t,
            h,
            motion[0][None],
            motion[1][None],
            ind,
            U,
            stepper.q,
            stepper.u,
            stepper.acceleration,
            stepper.pseudo,
            acc_prev,
            h_prev,
            self._prev(stepper),
            self._multipliers(stepper),
            cstate,
            s,
            rolling,
            stepper.tol,
            stepper.rtol,
            stepper.max_newton,
            np.asarray(stepper.friction_coefficients, dtype=float),
            np.asarray(stepper.static_coefficients, dtype=float),
            0.0,
            True,  # one step of h, committed whatever happens in it (``step()`` tests)
            *out,
        )
        if taken == 0 and halving and STOPS[stop] == "diverged":
            self._keep_parameters(stepper, s, cstate.shape[0])
            raise NewtonDivergence(
                f"Newton did not converge in {stepper.max_newton} iterations at t = {t1:.6g} s "
                "(compiled step); try a smaller h"
            )
        if taken == 0:  # the iteration did not finish OK: the Python step retries, reports
            self.n_fallback += 1
            return None
        _, _, _, _, _, energy, _, _, its, numerical = out[:10]
        self.n_compiled += 1
        self._keep_parameters(stepper, s, cstate.shape[0])
        committed = self._committed(
            stepper,
            state,
            flat,
            t1,
            ind,
            slip_sign,
            previous=(state.acceleration, h),
            numerical=state.numerical + float(numerical[0]),
        )
        booked = energy[0].tolist()
        parts = ()
        if self.plan.one_string:  # the structures' elastic energy is the string's own
            parts = ((next(iter(stepper.system.structures)), booked[4]),)
        friction = 0.0  # the compliant contacts' friction power, as ``system.energies`` sums it
        for f in committed.evaluation.compliant:
            friction += f.friction_power
        energies = Energies(*booked, contact_friction_power=friction, structure_elastic_parts=parts)
        self.booked = (committed.evaluation, energies)
        return committed, int(its[0]), cond

    def _committed(
        self, stepper, state: StepState, flat, t1: float, ind, slip_sign, **changes
    ) -> StepState:
        """``state`` (the committed state, ``save``) moved to the end t1 of the compiled
        step(s) whose result is ``flat`` (``kernels.step.FLAT``): time, coordinates,
        velocities, accelerations, multipliers, evaluation and contact parameters from
        ``flat``, the other fields the step(s) changed from ``changes`` (``StepState``
        fields), for ``restore``."""
        system = stepper.system
        n_links = system.link_rows.size
        pieces = _pieces(
            stepper.q.size,
            ind.size,
            stepper.part.dependent.size,
            slip_sign.size,
            self.plan.P[6],
            n_links,
            len(self._pressed),
        )
        parts = _split(flat, pieces if n_links or self._pressed else pieces[:16])
        (q1, u1, acc, a1, lam, phi, jac, js, rem, phit, rec, wn, wt, hess, mass_tree, forces) = (
            parts[:16]
        )
        compliant = ()
        if n_links or self._pressed:  # the forces as the kernels evaluated them, model order
            forces_of = {}
            if n_links:
                forces_of = link_forces(system, links_state(system, q1, u1), parts[16])
            modes = stepper.modes
            for k, pair, r, w_n, w_t in zip(self._pressed, self._pairs, *parts[17:20], strict=True):
                kin = _kinematics(r, w_n, w_t, None, False, pair)
                law = system.model.contacts[k].law
                if modes.is_rolling(modes.n_rows + modes.compliant.index(k)):
                    # no friction from its law: its row's multiplier (``compliant_forces``)
                    law = dataclasses.replace(law, mu=0.0, mu_s=0.0, v0=None, rolling=False)
                forces_of[k] = compliant_force(law, kin, k)
            compliant = tuple(forces_of[k] for k in stepper.modes.compliant)
        on_beam = self.plan.contacts[4] >= 0
        pairs = self.plan.contacts[4] == PAIR
        contacts = tuple(
            _kinematics(r, wn[i], wt[i], hess[i], on_beam[i], pairs[i]) for i, r in enumerate(rec)
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
            contact_index=stepper.modes.sliding,
            friction=stepper.friction_coefficients * slip_sign,  # constant-mu Coulomb
            compliant=compliant,
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

    def _outputs(self, stepper, size: int, n_c: int) -> tuple:
        """``batch.batch_outputs`` of ``size`` steps of this run (n_c contacts with rows)."""
        n_l = stepper.system.link_rows.size
        m = stepper.evaluation.phi.size
        return batch_outputs(size, stepper.q.size, m, n_c, n_l, len(self._pressed))

    def _single_outputs(self, stepper, n_c: int) -> tuple:
        """``_outputs`` of one step, the same arrays for every step of the same sizes (what
        ``step`` reads from them it copies out before the next call)."""
        key = (stepper.q.size, stepper.evaluation.phi.size, n_c)
        out = self._single_out.get(key)
        if out is None:
            out = self._single_out[key] = self._outputs(stepper, 1, n_c)
        return out

    def _parameters(self, stepper, state: StepState) -> np.ndarray:
        """The contact parameters the searches start from: the sliding contacts' (committed),
        then the compliant contacts' (``kernels.compliant``; the run's ``Workspace``, NaN:
        afresh; a profile pair's eta_l), then the profile pairs' eta_k (NaN for the others),
        then, with contacts with rows that are pairs of curved profiles, their eta_k (n_c,)
        (``kernels.evaluate.PAIR``: their eta_l in the first n_c, both from the Workspace)."""
        if not self._pressed and not self._row_pairs:
            return state.parameters.copy()
        ws = stepper.workspace
        nan2 = (np.nan, np.nan)
        etas = [ws.profile_parameters.get(k, nan2) if pair else nan2 for k, pair in self._known()]
        pressed = [
            etas[j][1] if pair else ws.contact_parameters.get(k, np.nan)
            for j, (k, pair) in enumerate(self._known())
        ]
        second = [eta[0] for eta in etas]
        s = np.concatenate([state.parameters, np.array(pressed + second, dtype=float)])
        if not self._row_pairs:
            return s
        n_c = state.parameters.size
        s = np.concatenate([s, np.full(n_c, np.nan)])
        for i, k in self._row_pairs:
            s[i], s[-n_c + i] = ws.profile_parameters.get(k, nan2)[::-1]
        return s

    def _known(self):
        return zip(self._pressed, self._pairs, strict=True)

    def _keep_parameters(self, stepper, s: np.ndarray, n_c: int) -> None:
        """The compliant contacts' parameters s[n_c:] after the step(s) into the run's
        ``Workspace``, where the next searches start (``_parameters``): a profile pair's
        (eta_k, eta_l), or none while its polygons are apart (``profile_contact``)."""
        ws = stepper.workspace
        n_p = len(self._pressed)
        for j, (k, pair) in enumerate(self._known()):
            if not pair:
                ws.contact_parameters[k] = float(s[n_c + j])
            elif np.isfinite(s[n_c + j]) and np.isfinite(s[n_c + n_p + j]):
                ws.profile_parameters[k] = (float(s[n_c + n_p + j]), float(s[n_c + j]))
            else:
                ws.profile_parameters.pop(k, None)
        for i, k in self._row_pairs:
            eta_k = s[n_c + 2 * n_p + i]
            if np.isfinite(s[i]) and np.isfinite(eta_k):
                ws.profile_parameters[k] = (float(eta_k), float(s[i]))
            else:
                ws.profile_parameters.pop(k, None)

    def _cstate(self, stepper) -> np.ndarray:
        """Per contact: slip sign, 1 while it sticks, its anchor, 1 for a unilateral contact,
        1 while it is closed (``kernels.loop.steps``, ``kernels.evaluate.normal_rows``)."""
        modes = stepper.modes
        slip_sign = np.asarray(modes.slip_sign, dtype=float)
        cstate = np.zeros((slip_sign.size, CLOSED + 1))
        cstate[:, 0] = slip_sign
        for i, anchor in enumerate(modes.anchors):
            if anchor is not None:
                cstate[i, 1:5] = (1.0, anchor.parameter, *anchor.direction)
        cstate[modes.n_bilateral :, UNILATERAL] = 1.0
        cstate[:, CLOSED] = modes.mode[: slip_sign.size] != ContactMode.OPEN
        return cstate

    def _prev(self, stepper) -> tuple:
        """(q, u, phi, J, phi_t, t, W_T, Hessian columns, Hessian cores) of the committed
        evaluation (``kernels.loop.steps``): W_T (n_c + n_p, n), of the contacts with rows then
        of the compliant contacts, is the base of a rolling circle's or pair's position value;
        the columns (n_c, 3, n) and cores (n_c, 3) of the contacts' gap Hessians
        (``kinematics.gap_hessian``; zeros for none) curve the first iterate's dependent
        step. The kernels only read them: those of the last evaluation are kept
        for as long as it and the anchors are the same objects."""
        ev = stepper.evaluation
        n_c = len(stepper.modes.slip_sign)
        anchors = tuple(stepper.modes.anchors)
        last_ev, last_anchors, last = self._last_prev
        if (
            ev is last_ev
            and len(anchors) == len(last_anchors)
            and all(a is b for a, b in zip(anchors, last_anchors, strict=True))
            and last[6].shape[0] == n_c + len(self._pressed)
        ):
            return last
        w_t = np.zeros((n_c, ev.q.size))
        hess = np.zeros((n_c, 3, ev.q.size))
        core = np.zeros((n_c, 3))
        for i, c in enumerate(ev.contacts[:n_c]):
            if c is not None and stepper.modes.anchors[i] is not None:
                w_t[i] = c.w_tangent
            if c is not None and c.gap_hessian is not None:
                U, C = c.gap_hessian
                hess[i, :2] = U.T
                core[i] = C[0, 0], C[0, 1], C[1, 1]
        if self._pressed:  # then the compliant contacts' (the base of their rolling rows)
            w_p = np.zeros((len(self._pressed), ev.q.size))
            by_index = {f.index: f for f in ev.compliant}
            for j, k in enumerate(self._pressed):
                f = by_index.get(k)
                if f is not None and f.contact is not None:
                    w_p[j] = f.contact.w_tangent
            w_t = np.vstack([w_t, w_p])
        prev = (ev.q, ev.u, ev.phi, ev.jac, ev.phi_t, float(ev.t), w_t, hess, core)
        self._last_prev = (ev, anchors, prev)
        return prev

    def _kernel_modes(self, stepper) -> np.ndarray:
        """The modes of the compliant contacts of the kernels (``kernels.compliant``'s
        FORCE_LAW, ROLLING, RELEASED), in their order (n_p,)."""
        modes = stepper.modes
        return np.array(
            [
                KERNEL_MODE[int(modes.mode[modes.n_rows + modes.compliant.index(k)])]
                for k in self._pressed
            ],
            dtype=np.int64,
        )

    def _modes_after(self, stepper, mode: np.ndarray, rolling: np.ndarray) -> np.ndarray:
        """``mode`` (``ContactModes.mode``, a copy) with the compliant contacts' modes rolling
        (n_p,) of the kernels after a batch (a released contact under its force law again)."""
        modes = stepper.modes
        mode = mode.copy()
        for k, kernel_mode in zip(self._pressed, rolling, strict=True):
            mode[modes.n_rows + modes.compliant.index(k)] = COMPLIANT_MODES[int(kernel_mode)]
        return mode

    def _multipliers(self, stepper) -> np.ndarray:
        """The committed multipliers, those of the first iterate's curvature terms (an empty
        array when they are not of the present rows: no curvature terms then, as in
        ``ContactModes.closed_normals``)."""
        lam = np.asarray(stepper.multipliers, dtype=float)
        return lam if lam.size == stepper.evaluation.phi.size else np.zeros(0)

    def _take_batch(self, stepper, n_max: int):
        """``steps`` without its back-off: up to n_max full steps in one compiled call from
        the committed state; None when the state or settings need ``step()``."""
        if (
            not self.batch
            or n_max < 1
            or stepper.error_tol is not None
            or stepper.substep_cap is not None  # sub-steps growing after an event
            or not np.all(np.isin(stepper.modes.mode[stepper.modes.n_rows :], COMPLIANT_MODES))
            or not np.all(np.isnan(stepper.characteristic_velocities))
            or np.any(stepper.part.dependent >= stepper.system.layout.n_tree)  # structure ones
            or _slow_at_start(stepper)
        ):
            return None
        plan = self.plan
        h = stepper.h
        n = stepper.q.size
        size = max(1, min(n_max, self._batch_size, BATCH_ENTRIES // n))
        times = np.empty(size)
        t = stepper.t
        for j in range(size):  # the end times of the steps, as ``step()`` computes them
            t_end = t + h
            t = t + (t_end - t)
            times[j] = t
        LM = NO_FACTOR
        mu = np.asarray(stepper.friction_coefficients, dtype=float)
        if np.any(mu > 0):
            LM = plan.factor(0.0, 0.0)
            if LM is None:
                return None
        key = stepper.algebra.coefficients((stepper.t + h) - stepper.t)
        factor = plan.factor(*key)
        if factor is None:
            return None
        drive, actuators = plan.motions(times)
        size = drive.shape[0]
        if size == 0:
            return None
        ind, U = plan.indices(stepper.part)
        cstate = self._cstate(stepper)
        state = stepper.save()
        acc_prev, h_prev = (stepper.acceleration, 0.0) if state.previous is None else state.previous
        p = stepper.params
        s = self._parameters(stepper, state)
        rolling = self._kernel_modes(stepper)
        rolls = rolling == ROLLING  # the same through the batch: a release stops it
        out = self._outputs(stepper, size, cstate.shape[0])
        taken, stop, flat, _, _, acc_prev, h_prev, _ = loop_steps(
            *plan.packed,
            factor,
            plan.link_band(*key),
            LM,
            (p.alpha_m, p.alpha_f, p.gamma, p.beta),
            key,
            stepper.t,
            h,
            drive,
            actuators,
            ind,
            U,
            stepper.q,
            stepper.u,
            stepper.acceleration,
            stepper.pseudo,
            acc_prev,
            h_prev,
            self._prev(stepper),
            self._multipliers(stepper),
            cstate,
            s,
            rolling,
            stepper.tol,
            stepper.rtol,
            stepper.max_newton,
            mu,
            np.asarray(stepper.static_coefficients, dtype=float),
            stepper.recondition * max(state.cond0, 1.0),
            False,
            *out,
        )
        # the next batch: twice as long after a full one, short again after an early stop
        self._batch_size = min(2 * size, 4096) if taken == size else 16
        t_out, q, u, lam, records, energy, power, residual, its, numerical, acc, links, pressed = (
            a[:taken] for a in out
        )
        work = step_work(stepper.t, state.powers, t_out, power, numerical)
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
            lam=self._batch_multipliers(stepper, lam),
            contacts=self._batch_contacts(stepper, lam, records, q, u, links, pressed, rolls),
        )
        if taken == 0:
            return batch, None, None
        self.n_compiled += taken
        self._keep_parameters(stepper, s, cstate.shape[0])
        committed = self._committed(
            stepper,
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
            mode=self._modes_after(stepper, state.mode, rolling),
        )
        return batch, committed, float(t_out[-2]) if taken > 1 else float(stepper.t)

    def _batch_multipliers(self, stepper, lam: np.ndarray) -> tuple:
        """(multipliers (k, m) by ``Model.constraint_names()``, drive forces (k, d)) of the
        kernel's rows lam (k, rows)."""
        model = stepper.system.model
        m0 = len(model.constraint_names())
        n_c = stepper.modes.n_bilateral
        return lam[:, :m0], lam[:, n_c : n_c + len(model.drives)]

    def _batch_contacts(self, stepper, lam, records, q, u, links, pressed, rolls) -> list:
        """Per model contact over k steps: (name, state, records (k, N_FIELDS), normal force
        (k,), friction force (k,), closed) (``batch.StepBatch``) from the kernel's rows lam
        (k, rows) and records (k, n_c, N_FIELDS) of the contacts with rows, its links' states
        (k, l, N_LINK_FIELDS) and its compliant contacts' records (k, p, N_FIELDS), each as
        the step's report gives it (``_link_steps``, ``_pressed_steps``); rolls (p,): the
        compliant contacts that roll through the batch ("stick", their friction force the
        multiplier of their row, ``mode_reports``)."""
        system = stepper.system
        by_model = {k: i for i, k in enumerate(stepper.modes.sliding)}
        mu = stepper.friction_coefficients
        out = {}
        for k, i in by_model.items():
            name = system.model.contacts[k].name
            if not stepper.modes.is_closed(i):  # an open unilateral contact: no point
                n = lam.shape[0]
                out[k] = (name, np.full(n, "open"), records[:, i], np.zeros(n), np.zeros(n))
                out[k] += (np.zeros(n, dtype=bool),)
                continue
            normal = lam[:, stepper.modes.normal_row(i)]
            if stepper.modes.anchors[i] is None:
                state, friction = "slip", -stepper.modes.slip_sign[i] * mu[i] * normal
            else:
                state, friction = "stick", lam[:, stepper.modes.stick_row(i)]
            out[k] = (name, state, records[:, i], normal, friction, None)
        if system.link_rows.size:
            out.update(_link_steps(system, q, u, links))
        row = stepper.evaluation.phi.size - int(np.count_nonzero(rolls))  # the rolling rows
        for j, k in enumerate(self._pressed):
            out[k] = _pressed_steps(system, k, pressed[:, j], self._pairs[j])
            if rolls[j]:
                name, states, rec, normal, _, closed = out[k]
                states = np.where(closed, "stick", states)
                out[k] = (name, states, rec, normal, lam[:, row], closed)
                row += 1
        return [out[k] for k in range(len(system.model.contacts))]

    def steps(self, stepper, n_max: int):
        """Up to n_max full steps of h from ``stepper``'s committed state in one compiled call
        (``kernels.loop.steps``), as many as follow one another with nothing but the step
        happening in them: (``batch.StepBatch`` of what they report, the state after the
        last, for ``restore``; the time at the last one's start), (a batch of 0 steps, None,
        None) when the next one needs ``step()``, or None when the stepper's state or
        settings need ``step()`` anyway (error control, sub-steps growing after an event, an
        iteration matrix that is not symmetric positive definite). After a batch that took no
        step none is tried for the next 1, 2, 4, ... 64 calls (None), until one takes steps."""
        if self._wait:
            self._wait -= 1
            return None
        taken = self._take_batch(stepper, n_max)
        if taken is not None and taken[0].n:
            self._backoff = 1
        elif taken is not None:
            self._wait, self._backoff = self._backoff, min(2 * self._backoff, 64)
        return taken


__all__ = ["CompiledAlgebra", "CompiledStep", "Plan", "unsupported"]
