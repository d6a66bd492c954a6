"""Event-driven integration of a tree with many rough point-segment contacts on a driven wheel,
Slavic-Boltezar (003), sec. 2 (after Pfeiffer-Glocker), with the energy losses of sec. 3.

Each step from (t, q, u):

1. The closed contacts I_S (gap <= ``closing``) are found (``coupling.rough_contact``).
2. Impact: if any of them approaches faster than ``impact_velocity`` (g_N' < -impact_velocity),
   Poisson's impact with friction (003 eqs. (14)-(15), compression then expansion) is solved on
   all of I_S and the velocities jump; its per-point losses (003 eqs. (18)-(20)) are booked.
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

Energy bookkeeping (J, accumulated in ``work``): ``work_drives`` = -P . what (the wheel's drive),
``dissipated_damping`` = h u_m^T C u_m, ``dissipated_friction`` the smooth contacts' loss
-P . (W^T u_m + what) and ``dissipated_impact`` the impacts' losses; the per-point losses are
shared half by half by the two profiles into ``loss_body`` and ``loss_wheel`` (W(s) of 003).
So work_drives = change of (kinetic + spring) energy + dissipated_damping + sum of W(s), up to
the midpoint rule's error of the configuration-dependent mass matrix.

The stepper has the common shape (``step()``, ``status``, ``t``, ``q``, ``u``, counters) and
writes nothing: ``step()`` returns a ``RoughStepReport`` for observers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validation as check
from ..coupling.rough_contact import (
    ContactSet,
    RoughContact,
    closed_contacts,
    gaps,
    poisson_impact,
    share_loss,
    solve_coulomb,
)
from ..coupling.setvalued import ContactSolverError
from ..multibody.tree import bias_forces, kinetic_energy, mass_matrix, potential_energy

__all__ = ["EventDriven", "RoughStepReport"]

WORK = ("work_drives", "dissipated_damping", "dissipated_friction", "dissipated_impact")


@dataclass(frozen=True, eq=False)
class RoughStepReport:
    """One accepted step. t, h : s. q, u : (n,). impulse : (2,) N s, the contacts' impulse on the
    body over the step (impacts included), in the ground's x, y; normal_impulse : (2,) N s, its
    part along the contact normals. n_closed : contacts in I_S.
    n_stick, n_slip : closed contacts with a positive normal impulse that stick or slip at the
    end of the step. impact : True if the step began with an impact. angles : (k,) rad and
    normal_impulses : (k,) N s of the contacts that carried load in the step (003 fig. 10).
    work : dict WORK -> J over the step. min_gap : m, the smallest gap at the end."""

    t: float
    h: float
    q: np.ndarray
    u: np.ndarray
    impulse: np.ndarray
    normal_impulse: np.ndarray
    n_closed: int
    n_stick: int
    n_slip: int
    impact: bool
    angles: np.ndarray
    normal_impulses: np.ndarray
    work: dict
    min_gap: float


class EventDriven:
    """Event-driven stepper for a ``RoughContact`` (module docstring).

    contact : RoughContact. t0 : s. q0, u0 : (n,). h : the largest step in s (003: 1e-9 s).
    penetration : m, the largest penetration of a closing contact (003: 2.5e-8 m).
    closing : m, gap below which a contact is closed (default 1e-3 penetration).
    impact_velocity : m/s, approach speed above which a closed contact impacts.
    max_halvings : how often a step may be halved to locate a closing.

    Counters: n_steps, n_rejected, n_impacts, n_lcp. ``work`` accumulates WORK (J);
    ``loss_body``, ``loss_wheel`` the per-vertex losses W (J).
    """

    def __init__(
        self,
        contact: RoughContact,
        t0: float,
        q0,
        u0,
        h: float,
        *,
        penetration: float = 2.5e-8,
        closing: float | None = None,
        impact_velocity: float = 1e-6,
        max_halvings: int = 30,
    ):
        check.instance("EventDriven.contact", contact, RoughContact, "a RoughContact")
        n = contact.tree.n_bodies
        self.contact = contact
        self.t = check.real("EventDriven.t0", t0, unit="s")
        self.q = check.finite_array("EventDriven.q0", q0, (n,)).copy()
        self.u = check.finite_array("EventDriven.u0", u0, (n,)).copy()
        self.h = check.real("EventDriven.h", h, low=0.0, low_open=True, unit="s")
        self.penetration = check.real(
            "EventDriven.penetration", penetration, low=0.0, low_open=True, unit="m"
        )
        closing = 1e-3 * self.penetration if closing is None else closing
        self.closing = check.real("EventDriven.closing", closing, low=0.0, unit="m")
        self.impact_velocity = check.real(
            "EventDriven.impact_velocity", impact_velocity, low=0.0, low_open=True, unit="m/s"
        )
        self.max_halvings = check.integer("EventDriven.max_halvings", max_halvings, low=0)
        tree = contact.tree
        self._stiffness = np.array([j.stiffness for j in tree.joints])
        self._damping = np.array([j.damping for j in tree.joints])
        self._rest = np.array([j.rest for j in tree.joints])
        self.status = "running"
        self.message = ""
        self.n_steps = self.n_rejected = self.n_impacts = self.n_lcp = 0
        self.work = dict.fromkeys(WORK, 0.0)
        self.loss_body = np.zeros(contact.profile.n_points)
        self.loss_wheel = np.zeros(contact.wheel.n_points)
        self.energy_0 = self.mechanical_energy()

    def mechanical_energy(self) -> float:
        """Kinetic + joint-spring (+ gravity) energy of the tree at the current state, J."""
        tree = self.contact.tree
        return kinetic_energy(tree, self.q, self.u) + potential_energy(tree, self.q)

    def energy_error(self) -> float:
        """work_drives - (E - E_0) - dissipated_damping - (sum W_body + sum W_wheel), J."""
        return (
            self.work["work_drives"]
            - (self.mechanical_energy() - self.energy_0)
            - self.work["dissipated_damping"]
            - self.loss_body.sum()
            - self.loss_wheel.sum()
        )

    # -- one step ------------------------------------------------------------------------------

    def step(self, t_bound: float | None = None) -> RoughStepReport:
        """Advance by one accepted step (at most ``h``, not past ``t_bound``). When the contact
        problem of the step cannot be solved the stepper keeps its state, its ``status``
        becomes "failed" with the solver's ``message``, and the ContactSolverError is raised."""
        if self.status != "running":
            raise RuntimeError(f"EventDriven.step: the stepper is {self.status}")
        try:
            return self._step(t_bound)
        except ContactSolverError as err:
            self.status = "failed"
            self.message = str(err)
            raise

    def _step(self, t_bound):
        contact = self.contact
        work = dict.fromkeys(WORK, 0.0)
        impulse = np.zeros(4)  # x, y of the whole impulse, then of its normal part
        cs = closed_contacts(contact, self.q, self.u, self.t, self.closing)
        impact = False
        if cs.size:
            gdot = cs.w @ self.u + cs.what
            if np.any(gdot[: cs.size] < -self.impact_velocity):
                impact = True
                self._impact(cs, gdot, work, impulse)
        h = self.h if t_bound is None else min(self.h, t_bound - self.t)
        for halving in range(self.max_halvings + 1):
            trial = self._smooth(cs, h)
            q1, u1, p, u_m = trial
            gap, key = gaps(contact, q1, self.t + h)
            new = ~np.isin(key, 2 * cs.vertex + cs.body_vertex)
            if not np.any(gap[new] < -self.penetration) or halving == self.max_halvings:
                break
            self.n_rejected += 1
            h *= 0.5
        self._book_smooth(cs, p, u_m, h, work, impulse)
        self.q, self.u, self.t = q1, u1, self.t + h
        self.n_steps += 1
        for key in WORK:
            self.work[key] += work[key]
        if t_bound is not None and self.t >= t_bound:
            self.status = "finished"
        m = cs.size
        loaded = p[:m] > 0.0 if m else np.zeros(0, bool)
        slip_v = (cs.w[m:] @ u1 + cs.what[m:]) if m else np.zeros(0)
        sticking = np.abs(slip_v) <= 1e-9 * max(1.0, abs(contact.omega))
        return RoughStepReport(
            t=self.t,
            h=h,
            q=self.q.copy(),
            u=self.u.copy(),
            impulse=impulse[:2],
            normal_impulse=impulse[2:],
            n_closed=m,
            n_stick=int(np.sum(loaded & sticking)),
            n_slip=int(np.sum(loaded & ~sticking)),
            impact=impact,
            angles=cs.angle[loaded],
            normal_impulses=p[:m][loaded],
            work=work,
            min_gap=float(gap.min(initial=np.inf)),
        )

    def _impact(self, cs: ContactSet, gdot, work, impulse) -> None:
        m = cs.size
        M = mass_matrix(self.contact.tree, self.q)
        minv_w = np.linalg.solve(M, cs.w.T)
        G = cs.w @ minv_w
        c = self.contact
        res = poisson_impact(G, gdot, np.full(m, c.mu), c.eps_n, c.eps_t, c.nu, time=self.t)
        total = res.total
        self.u = self.u + minv_w @ total
        loss = res.loss_compression + res.loss_expansion
        share_loss(cs, loss, self.loss_body, self.loss_wheel)
        work["work_drives"] += float(-total @ cs.what)
        work["dissipated_impact"] += float(loss.sum())
        impulse[:2] += cs.normal @ total[:m] + cs.tangent @ total[m:]
        impulse[2:] += cs.normal @ total[:m]
        self.n_impacts += 1
        self.n_lcp += 2

    def _smooth(self, cs: ContactSet, h: float):
        """(q1, u1, P, u_m) of a midpoint step of length h with the contact impulses P."""
        tree = self.contact.tree
        q0, u0 = self.q, self.u
        K, C = self._stiffness, self._damping
        M = mass_matrix(tree, q0)
        spring = K * (q0 - self._rest)
        nonlinear = bias_forces(tree, q0, u0, self.t) - spring - C * u0
        A = 2.0 * M / h + np.diag(C + 0.5 * h * K)
        b = 2.0 * M @ u0 / h - nonlinear - spring
        free = np.linalg.solve(A, b)
        m = cs.size
        p = np.zeros(2 * m)
        if m:
            a_inv_w = np.linalg.solve(A, cs.w.T)
            G = (2.0 / h) * cs.w @ a_inv_w
            offset = cs.w @ (2.0 * free - u0) + cs.what
            p = solve_coulomb(G, offset, np.full(m, self.contact.mu), time=self.t)
            self.n_lcp += 1
            u_m = free + a_inv_w @ p / h
        else:
            u_m = free
        return q0 + h * u_m, 2.0 * u_m - u0, p, u_m

    def _book_smooth(self, cs: ContactSet, p, u_m, h, work, impulse) -> None:
        work["dissipated_damping"] += float(h * np.sum(self._damping * u_m**2))
        m = cs.size
        if not m:
            return
        gdot_m = cs.w @ u_m + cs.what
        loss = -(p[:m] * gdot_m[:m] + p[m:] * gdot_m[m:])
        share_loss(cs, loss, self.loss_body, self.loss_wheel)
        work["work_drives"] += float(-p @ cs.what)
        work["dissipated_friction"] += float(loss.sum())
        impulse[:2] += cs.normal @ p[:m] + cs.tangent @ p[m:]
        impulse[2:] += cs.normal @ p[:m]
