"""Event-driven integration of a tree with a rough many-point contact on a driven wheel,
Slavic-Boltezar (003), sec. 2 (after Pfeiffer-Glocker), with the energy losses of sec. 3:
``simulate(system, t_span, (q0, u0), method="event-driven")`` on a Model whose one contact is a
``Polyline`` on a ``Wheel`` with a ``Unilateral`` law of impact "poisson".

Each step from (t, q, u):

1. The closed contacts I_S (gap <= ``closing``) are found (``coupling.rough_contact``).
2. Impact: if any of them approaches faster than ``impact_velocity`` (g_N' < -impact_velocity),
   Poisson's impact with friction (003 eqs. (14)-(15), compression then expansion;
   ``coupling.impact.poisson_impact``) is solved on all of I_S and the velocities jump; its
   per-point losses (003 eqs. (18)-(20)) are booked.
3. Smooth motion with the contact forces of I_S: the joint springs and dampers are integrated by
   the implicit midpoint rule (energy-consistent for them), with the contact impulses P = h lambda
   of the step from the linear complementarity problem of Coulomb's law (stick, slip, detach)
   posed on the velocities at the end of the step, g' = G P + c with G = (2/h) W^T A^-1 W,
   A = 2 M / h + C + h K / 2. This is the impulse form over one step of the force-level problem
   003 eqs. (12)-(13) (a contact with g_N' = 0 stays closed while its force is positive; one
   that sticks, g_T' = 0, keeps |lambda_T| <= mu lambda_N); the two agree as h -> 0.
4. Event control: a contact open at the start that has penetrated more than ``penetration``
   (003: 2.5e-8 m) at the end of the step rejects the step, which is halved (at most
   ``max_halvings`` times) so that the closing is found to within the tolerance; the next step
   then starts with its impact.

Energy bookkeeping (J, per step in ``StepReport.work``, accumulated in ``work``):
``work_drives`` = -P . what (the wheel's drive), ``work_loads`` = h Q_act . u_m (joint
actuators), ``dissipated_damping`` = h u_m^T C u_m; the smooth contacts' work P . (W^T u_m +
what) (relative velocities, u_m = (u_0 + u_1) / 2) is split by ``impulse_work`` into
``dissipated_friction``, ``dissipated_impact`` (its normal rows) and ``work_contact_timing``, each
>= 0 in every step (the laws hold at the end velocity, the midpoint rule lets the impulses act on
the start velocity too); ``dissipated_impact`` also takes the impacts' losses (003 eqs. (18)-(20),
>= 0). The per-point losses (friction and impact, not the timing work) are shared half by half by
the two polylines into ``loss_profile`` and ``loss_target`` (W(s) of 003). So work_drives +
work_loads + work_contact_timing = change of mechanical energy + dissipated_damping + sum of W(s),
up to the midpoint rule's error of the configuration-dependent mass matrix.

Quiet steps (no halving, impulses found by the compiled pivoting, Poisson's impacts, not the
step to ``t_bound``) are taken several in one compiled call (``steps``: ``kernels.rough_steps``, a
``steppers.rough_batch.RoughBatch`` of flat per-step arrays), each with the operations of
``step()``, so that a run gives the same floats batched or not (``batch=False``); the step that
needs Python is left to ``step()``.

The stepper derives from ``steppers.base.Stepper`` (``step()``, ``initial_report()``,
``status``, ``t``, ``q``, ``u``, ``h``, counters) with a ``t_bound`` that its steps do not pass,
and writes nothing: ``step()`` returns a ``StepReport`` whose one contact report is a
``RoughContactReport``; ``events`` lists the impacts and ``losses`` the W per vertex.
"""

from __future__ import annotations

import math

import numpy as np

from .. import validation as check
from ..coupling.impact import solve_coulomb
from ..coupling.rough_contact import (
    ContactSet,
    RoughContact,
    candidate_pairs,
    closed_contacts,
    search_frames,
    share_loss,
)
from ..kernels import rough as kernels
from ..kernels.rough_steps import quiet_steps
from ..model import Model
from ..multibody.tree import (
    actuator_forces,
    kinetic_energy,
    mass_matrix,
    potential_energy,
)
from ..rough import Polyline
from .base import SingularSystem, Stepper, check_start
from .batch import accumulated_work
from .contact_report import ProfileLosses, RoughContactReport
from .rough_batch import BATCH_STEPS, RoughBatch, stop_of
from .step_report import StepReport, no_work

__all__ = ["EventDriven", "rough_pair"]


def rough_pair(model: Model):
    """The one ContactPair of ``model`` that the event-driven stepper takes (a Polyline on a
    Wheel on a tree without structures, drives, loops, loads or carried bodies); ValueError
    naming what else the model holds."""
    if model.tree is None:
        check.fail("system.model.tree", None, "a TreeModel (the event-driven stepper moves one)")
    for part in ("structures", "drives", "loops", "loads", "carried"):
        if getattr(model, part):
            check.fail(
                f"system.model.{part}",
                list(getattr(model, part)),
                "none for the event-driven stepper (a tree with one rough pair)",
            )
    rough = [c for c in model.contacts if isinstance(c.profile, Polyline)]
    if len(model.contacts) != 1 or len(rough) != 1:
        check.fail(
            "system.model.contacts",
            [c.name for c in model.contacts],
            "exactly one contact, a Polyline on a Wheel (the event-driven stepper)",
        )
    pair = rough[0]
    law = pair.law
    check.real(
        f"contacts[{pair.name!r}].law.restitution_tangent",
        law.restitution_tangent,
        low=0.0,
        high=law.restitution_normal,
        meaning="a restitution coefficient not above restitution_normal (the impulse of "
        "Poisson's expansion stays in the friction cone)",
    )
    return pair


class EventDriven(Stepper):
    """Event-driven stepper for a tree with one rough pair (module docstring).

    system : System of a Model with one ContactPair of a Polyline on a Wheel (``rough_pair``).
    t0 : s. q0, u0 : (n,) the tree's coordinates and velocities. h : the largest step in s
    (003: 1e-9 s; default 1e-7 s). t_bound : s or None, the time no step passes (then
    ``status`` becomes "finished"; ``simulate`` sets it to t_end).
    penetration : m, the largest penetration of a closing contact (003: 2.5e-8 m).
    closing : m, gap below which a contact is closed (default 1e-3 penetration).
    impact_velocity : m/s, approach speed above which a closed contact impacts.
    max_halvings : how often a step may be halved to locate a closing.
    batch : take quiet steps in one compiled call (``steps``; default True); False: every
    step by ``step()``, with the same results.

    Counters: n_steps (accepted), n_substeps (steps computed, rejected halvings included),
    n_rejected, n_impacts, n_lcp (complementarity problems solved), n_newton (0: no Newton
    iterations). ``work`` accumulates WORK_KEYS (J); ``loss_profile``, ``loss_target`` the W
    per vertex (J) of the Polyline and of the Wheel's rim; ``events`` (t [s], name, "impact").
    """

    method = "event-driven"
    fixed_steps = False  # steps shortened to locate closings, none past t_bound

    def __init__(
        self,
        system,
        t0: float,
        q0,
        u0,
        h: float = 1e-7,
        *,
        t_bound: float | None = None,
        penetration: float = 2.5e-8,
        closing: float | None = None,
        impact_velocity: float = 1e-6,
        max_halvings: int = 30,
        batch: bool = True,
    ):
        h, q0, u0 = check_start(system, h, q0, u0, self.method)
        t0 = check.real("EventDriven.t0", t0, unit="s")
        Stepper.__init__(self, system, t0, h)
        self.pair = rough_pair(system.model)
        tree = system.tree
        try:
            self.contact = RoughContact.from_pair(tree, self.pair)
        except ValueError as err:
            raise ValueError(f"contact {self.pair.name!r}: {err}") from err
        self.q, self.u = q0, u0
        if t_bound is not None:
            self.bound(t_bound)
        self.penetration = check.real(
            "EventDriven.penetration", penetration, low=0.0, low_open=True, unit="m"
        )
        closing = 1e-3 * self.penetration if closing is None else closing
        self.closing = check.real("EventDriven.closing", closing, low=0.0, unit="m")
        self.impact_velocity = check.real(
            "EventDriven.impact_velocity", impact_velocity, low=0.0, low_open=True, unit="m/s"
        )
        self.max_halvings = check.integer("EventDriven.max_halvings", max_halvings, low=0)
        self._stiffness = np.array([j.stiffness for j in tree.joints])
        self._damping = np.array([j.damping for j in tree.joints])
        self._rest = np.array([j.rest for j in tree.joints])
        self._actuated = any(j.actuator is not None for j in tree.joints)
        self._joints = np.array([self._stiffness, self._damping, self._rest])
        self._no_actuators = np.zeros(tree.n_bodies)
        self.n_rejected = self.n_impacts = self.n_lcp = 0
        self.work = no_work()
        self.loss_profile = np.zeros(self.contact.profile.n_points)
        self.loss_target = np.zeros(self.contact.wheel.n_points)
        self._n_vertices = (self.contact.profile.n_points, self.contact.wheel.n_points)
        self._mu = np.full(1, self.contact.mu)
        self.events = []
        self.energy_0 = self.mechanical_energy()
        self._pairs = None  # the candidate pairs of the last step's end, (q, t)
        self.batch = bool(batch) and not self._actuated  # actuators: forces of t in Python
        self._stick_speed = 1e-9 * max(1.0, abs(self.contact.omega))

    @property
    def losses(self) -> tuple[ProfileLosses, ...]:
        """The W per vertex booked so far (copies), one ProfileLosses."""
        return (ProfileLosses(self.pair.name, self.loss_profile.copy(), self.loss_target.copy()),)

    def mechanical_energy(self) -> float:
        """Kinetic + joint-spring (+ gravity) energy of the tree at the current state, J."""
        tree = self.contact.tree
        return kinetic_energy(tree, self.q, self.u) + potential_energy(tree, self.q)

    def energy_error(self) -> float:
        """work_drives + work_loads + work_contact_timing - (E - E_0) - dissipated_damping -
        (sum W_profile + sum W_target), J (the history's ``energy_error`` with the other sign)."""
        return (
            self.work["work_drives"]
            + self.work["work_loads"]
            - (self.mechanical_energy() - self.energy_0)
            - self.work["dissipated_damping"]
            - self.loss_profile.sum()
            - self.loss_target.sum()
            + self.work["work_contact_timing"]
        )

    def initial_report(self) -> StepReport:
        """The state at t0 with the contacts closed there (no impulse yet)."""
        pairs = candidate_pairs(self.contact, self.q, self.t)
        cs = closed_contacts(self.contact, self.q, self.u, self.t, self.closing, pairs)
        m = cs.size
        slip_v = cs.w[m:] @ self.u + cs.what[m:]
        gap_end, _, min_gap = self._gaps(pairs, cs)
        contact = self._contact_report(
            cs, np.zeros(2 * m), slip_v, gap_end, min_gap, np.zeros(4), 0.0
        )
        return self._report(contact, no_work(), 0.0, 0)

    def _gaps(self, pairs, cs: ContactSet):
        """(gap (m,) m of the closed contacts cs among the candidate pairs, whether an open
        pair penetrated by more than ``penetration``, the pairs' smallest gap in m):
        ``kernels.rough.pair_gaps``."""
        return kernels.pair_gaps(
            pairs.ia,
            pairs.gap_a,
            pairs.ib,
            pairs.gap_b,
            cs.body_vertex,
            cs.vertex,
            *self._n_vertices,
            self.penetration,
        )

    # -- quiet steps in one call ------------------------------------------------------------------

    @property
    def step_path(self) -> str:
        """ "compiled" when quiet steps run in compiled batches (``steps``: ``batch`` True and no
        actuators), else "python"; ``n_compiled`` counts the steps the batches took."""
        return "compiled" if self.batch else "python"

    def steps_left(self) -> int | None:
        """Steps of h to ``t_bound`` (halvings aside), None without a bound or with ``batch``
        False (``simulate`` then takes every step by ``step()``)."""
        if self.t_bound is None or not self.batch:
            return None
        return max(1, int(math.ceil((self.t_bound - self.t) / self.h - 1e-9)))

    def steps(self, n_max: int) -> RoughBatch | None:
        """Up to n_max (at most ``BATCH_STEPS``) steps from the present state in one compiled
        call (``kernels.rough_steps.quiet_steps``), each taken as ``step()`` takes it (Poisson's
        impacts included), until a step needs Python: a halving, the impulses' last resort, a
        singular step, Newton's impact or the step to ``t_bound``, which is left to ``step()``. Returns the ``RoughBatch`` of the
        steps taken, committed (state, counters, work, losses); None with ``batch`` False."""
        if not self.batch:
            return None
        contact = self.contact
        frames = search_frames(contact)
        tree = contact.tree
        topo = tree.topology
        t_bound = math.inf if self.t_bound is None else self.t_bound
        k, stop, n_lcp, *arrays = quiet_steps(
            topo.kernel_arrays,
            contact.body,
            np.ascontiguousarray(self.q, dtype=float),
            np.ascontiguousarray(self.u, dtype=float),
            self.t,
            self.h,
            t_bound,
            max(0, min(int(n_max), BATCH_STEPS)),
            self._joints,
            (topo.mass, topo.inertia, topo.gravity, topo.stiffness, topo.rest, topo.damping),
            self.closing,
            self.impact_velocity,
            self.penetration,
            self.max_halvings > 0,
            *frames.polylines,
            frames.jw,
            contact.omega,
            contact.alpha_0,
            contact.mu,
            self._stick_speed,
            1e-9,
            self.loss_profile,
            self.loss_target,
            self.pair.law.impact == "poisson",  # Poisson's impact is compiled; Newton's is not
            contact.eps_n,
            contact.eps_t,
            contact.nu,
        )
        done, reason = stop_of(stop)
        batch = RoughBatch(self.pair.name, done, reason, arrays, self.h, self._stick_speed)
        if k:
            starts = np.concatenate(([self.t], batch.t[:-1]))
            for t in starts[batch.impact].tolist():  # the impacts at the steps' starts
                self.events.append((t, self.pair.name, "impact"))
            self.n_impacts += int(batch.impact.sum())
            self.t_old = float(batch.t[-2]) if k > 1 else self.t
            self.t = float(batch.t[-1])
            self.q, self.u = batch.q[-1].copy(), batch.u[-1].copy()
            self.n_steps += k
            self.n_substeps += k
            self.n_compiled += k
            self.n_lcp += n_lcp
            accumulated_work(self.work, batch.work)
            self._pairs = None
            self.report = batch.report(k - 1)
        return batch

    # -- one step ------------------------------------------------------------------------------

    def _step_impl(self, h_max: float | None) -> StepReport:
        """Advance by one accepted step (at most ``h_max``, default the stepper's h, and not
        past ``t_bound``). When the contact problem of the step cannot be solved the stepper
        keeps its state and the ContactSolverError is raised (``Stepper.step``: status
        "failed", the solver's ``message``)."""
        contact = self.contact
        u_start = self.u
        work = no_work()
        impulse = np.zeros(4)  # x, y of the whole impulse, then of its normal part
        pairs = self._pairs  # found at the end of the last step when it ended in this state
        if pairs is None or pairs.q is not self.q or pairs.t != self.t:
            pairs = candidate_pairs(contact, self.q, self.t)
        cs = closed_contacts(contact, self.q, self.u, self.t, self.closing, pairs)
        m = cs.size
        p_impact = np.zeros(2 * m)
        if m:
            gdot = cs.w @ self.u + cs.what
            if np.any(gdot[:m] < -self.impact_velocity):
                p_impact = self._impact(cs, gdot, work, impulse)
                self.events.append((self.t, self.pair.name, "impact"))
        h = self.h if h_max is None else h_max
        if self.t_bound is not None:
            h = min(h, self.t_bound - self.t)
        for halving in range(self.max_halvings + 1):
            self.n_substeps += 1
            try:
                q1, u1, p, u_m = self._smooth(cs, h)
            except np.linalg.LinAlgError as err:  # a singular system: the step is halved
                if halving == self.max_halvings:
                    raise SingularSystem(
                        f"a linear system of the step from t = {self.t:.6g} s by {h:.3g} s is "
                        f"singular ({err}), also after {self.max_halvings} halvings"
                    ) from err
                self.n_rejected += 1
                h *= 0.5
                continue
            pairs = candidate_pairs(contact, q1, self.t + h)
            gap_end, penetrated, min_gap = self._gaps(pairs, cs)
            if not penetrated or halving == self.max_halvings:
                break
            self.n_rejected += 1
            h *= 0.5
        self._book_smooth(cs, p, u_m, h, work, impulse)
        self.q, self.u, self.t = q1, u1, self.t + h
        self._pairs = pairs
        for name in work:
            self.work[name] += work[name]
        slip_v = (cs.w[m:] @ u1 + cs.what[m:]) if m else np.zeros(0)
        report = self._contact_report(cs, p_impact + p, slip_v, gap_end, min_gap, impulse, h)
        return self._report(report, work, h, halving + 1, (u1 - u_start) / h)

    def _report(
        self, contact: RoughContactReport, work, h, n_substeps, acceleration=None
    ) -> StepReport:
        """The StepReport of the state; acceleration : (n,) the mean q'' of the step (its
        velocity change over h, the impact included), None at the start."""
        return StepReport(
            t=self.t,
            q=self.q.copy(),
            u=self.u.copy(),
            contacts=(contact,),
            drive_forces=np.zeros(0),
            multipliers=np.zeros(0),
            work=work,
            h=h,
            n_substeps=n_substeps,
            acceleration=acceleration,
        )

    def _contact_report(self, cs: ContactSet, p, slip_v, gap_end, min_gap, impulse, h):
        """The RoughContactReport of the closed contacts cs with their impulses p (2m,) over
        the step h (impact and smooth part), slip velocities, gaps (m,) and the smallest gap
        of all candidate pairs (m) at the end (``_gaps``)."""
        m = cs.size
        sticking = (np.abs(slip_v) <= 1e-9 * max(1.0, abs(self.contact.omega))).tolist()
        loaded = (p[:m] > 0.0).tolist()
        point_state = tuple(
            "open" if not on else "stick" if still else "slip"
            for on, still in zip(loaded, sticking, strict=True)
        )
        state = "open"
        if any(loaded):
            state = "slip" if "slip" in point_state else "stick"
        rate = 1.0 / h if h > 0.0 else 0.0
        return RoughContactReport(
            name=self.pair.name,
            state=state,
            point=cs.point.T.copy(),
            normal=cs.normal.T.copy(),
            tangent=cs.tangent.T.copy(),
            parameter=np.full(m, np.nan),
            gap=gap_end,
            slip_velocity=slip_v,
            normal_force=p[:m] * rate,
            friction_force=p[m:] * rate,
            normal_impulse=p[:m].copy(),
            friction_impulse=p[m:].copy(),
            min_gap=float(min_gap),
            point_state=point_state,
            impulse_xy=impulse[:2].copy(),
            normal_impulse_xy=impulse[2:].copy(),
            loss_profile=float(self.loss_profile.sum()),
            loss_target=float(self.loss_target.sum()),
        )

    def _impact(self, cs: ContactSet, gdot, work, impulse) -> np.ndarray:
        """Poisson's impact on the closed contacts cs; returns its impulses (2m,)."""
        m = cs.size
        M = mass_matrix(self.contact.tree, self.q)
        minv_w = np.linalg.solve(M, cs.w.T)
        G = cs.w @ minv_w
        res = self.pair.law.impact_impulses(G, gdot, time=self.t)  # Poisson's (003 sec. 2.2)
        total = res.total
        self.u = self.u + minv_w @ total
        loss = res.loss
        share_loss(cs, loss, self.loss_profile, self.loss_target)
        work["work_drives"] += float(-total @ cs.what)
        work["dissipated_impact"] += float(loss.sum())
        impulse[:2] += cs.normal @ total[:m] + cs.tangent @ total[m:]
        impulse[2:] += cs.normal @ total[:m]
        self.n_impacts += 1
        self.n_lcp += 2
        return total

    def _smooth(self, cs: ContactSet, h: float):
        """(q1, u1, P, u_m) of a midpoint step of length h with the contact impulses P
        (``kernels.rough.smooth_step``; ``solve_coulomb``'s last resort where its kernel gives
        none)."""
        q0, u0 = self.q, self.u
        tree = self.contact.tree
        actuators = actuator_forces(tree, self.t) if self._actuated else self._no_actuators
        m = cs.size
        free, a_inv_w, G, offset, p, solved = kernels.smooth_step(
            tree.topology.kernel_arrays,
            q0,
            u0,
            h,
            self._joints,
            actuators,
            cs.w,
            cs.what,
            self._friction(m),
            1e-9,
        )
        if m:
            if not solved:
                p = solve_coulomb(G, offset, self._friction(m), time=self.t)
            self.n_lcp += 1
            u_m = free + a_inv_w @ p / h
        else:
            u_m = free
        return q0 + h * u_m, 2.0 * u_m - u0, p, u_m

    def _friction(self, m: int) -> np.ndarray:
        """(m,) the friction coefficient of m contacts (one array kept per run, grown)."""
        if self._mu.size < m:
            self._mu = np.full(2 * m, self.contact.mu)
        return self._mu[:m]

    def _book_smooth(self, cs: ContactSet, p, u_m, h, work, impulse) -> None:
        work["dissipated_damping"] += float(h * np.sum(self._damping * u_m**2))
        if self._actuated:  # the actuators' forces of bias_forces, at the step's start
            work["work_loads"] += float(h * actuator_forces(self.contact.tree, self.t) @ u_m)
        m = cs.size
        if not m:
            return
        # the contact work -P . (gamma_0 + gamma_1) / 2 split into columns >= 0 (``impulse_work``;
        # the smooth step's laws hold on gamma_1, e = 0); self.u is still the step's start u_0
        gamma_0 = cs.w @ self.u + cs.what
        gamma_1 = cs.w @ (2.0 * u_m - self.u) + cs.what
        friction, impact, timing = kernels.smooth_losses(
            p,
            gamma_0,
            gamma_1,
            self._friction(m),
            cs.body_vertex,
            cs.vertex,
            cs.segment,
            cs.xi,
            self.loss_profile,
            self.loss_target,
        )
        work["work_drives"] += float(-p @ cs.what)
        work["dissipated_friction"] += friction
        work["dissipated_impact"] += impact
        work["work_contact_timing"] += timing
        impulse[:2] += cs.normal @ p[:m] + cs.tangent @ p[m:]
        impulse[2:] += cs.normal @ p[:m]
