"""The energy-consistent internal force of the generalised-alpha stepper at rho_inf = 1.

At rho_inf = 1 (alpha_m = alpha_f = gamma = 1/2, beta = 1/4) the update of the independent
coordinates is the trapezoidal rule, q_n+1 - q_n = h (u_n + u_n+1) / 2 and
u_n+1 - u_n = h (q''_n + q''_n+1) / 2, whatever the algorithmic accelerations, so over a step
the structures' kinetic energy changes by (q_n+1 - q_n) . M (q''_n + q''_n+1) / 2: the internal
force acts through the average (f_n + f_n+1) / 2 of the forces in the equations of motion at
t_n and t_n+1. That average does the work V(q_n+1) - V(q_n) exactly only when V is quadratic
(beams); for a string it errs at O(h^3) per step.

With the option, the structures' force in the equations at t_n+1 is
``f_used,n+1 = 2 f_avg(q_n, q_n+1) - f_used,n``, f_avg the discrete gradient
(``Structure.averaged_internal_force``), f_used,n the force in the committed accelerations
(f_int(q_n) after a restart, where the accelerations are recomputed): the average of the two is
f_avg, whose work is V(q_n+1) - V(q_n) to round-off. f_used differs from f_int(q) by an
alternating O(h^2) term, so the reported accelerations do too. The Newton matrix takes
the tangent stiffness at the midpoint: d f_used,n+1 / d q_n+1 = 2 d f_avg / d q_n+1 =
K(q_mid) + O(|q_n+1 - q_n|), a consistent approximation (Newton converges linearly, fast).

Friction: the same average carries the friction force F (the friction part of J_Sigma^T lambda
of a slipping Sliding contact, the stick row's J^T lambda of a sticking one), so its work over
a sub-step is (F_0 + F_1) / 2 . (q_1 - q_0), the friction force times the displacement
increment; with the option that, not the trapezoidal rule on the friction power, is booked in
``dissipated_friction`` (Compliant contacts keep the trapezoidal rule).

Constraints (``ConsistentContacts``, used when the model has constraint rows). Without more,
two parts of the constraint treatment stay in the balance at O(h^3) per step: the dependent
coordinates recovered from J u = 0 do not follow the trapezoidal update, and the normal force
of a contact on a curved target works on the chord (J_0 dq and J_1 dq are O(h^2), not zero).
With the option the constraints are written in Gonzalez's discrete-gradient form (Gonzalez,
J. Nonlinear Sci. 1996; for constraints Gonzalez 1999), within the partitioned step:

* every coordinate, the dependent ones included, follows the trapezoidal rule:
  q_n+1 - q_n = h (u_n + u_n+1) / 2 and u_n+1 - u_n = h (q''_n + q''_n+1) / 2; the dependent
  positions close the constraints at position level, phi(q_n+1) = 0, their velocities and
  accelerations follow from these two relations (not from J u = 0 and its derivative);
* the constraint and friction forces over the step are G_Sigma^T Lambda with one multiplier
  Lambda per row for the step and the discrete gradient of the rows (``discrete_gradient``)

      G = J(q_mid) + (phi(q_n+1) - phi(q_n) - J(q_mid) dq) dq^T / (dq . dq),   dq = q_n+1 - q_n,

  so that G dq = phi(q_n+1) - phi(q_n) exactly: 0 to the tolerance of the position
  recovery. J(q_mid) is the rows' Jacobian at the midpoint configuration (for a contact the
  gradient of the signed distance to the closest point, exact also off the curve and whichever
  element holds the point); G_Sigma = G - sign mu W_T(q_mid) on a slipping contact's normal
  row (Lipinski (002), eq. 71c, at the midpoint); rows that depend on time (drives) keep
  J(q_mid) (their phi is linear in q).
  As for the internal force, the equations at t_n+1 hold the constraint force
  c_used,n+1 = 2 G_Sigma^T Lambda - c_used,n (c_used = M q'' + F of the committed state), and
  the reduced equations eliminate Lambda with the null space of G_Sigma (002 eqs. 76, 78 with
  G_Sigma for J_Sigma). ``multipliers`` are the Lambda of the step (the normal force of the
  step's middle). The Newton matrix borders the structures' block with G_Sigma^T in its
  multiplier columns and J(q_n+1) in its rows (``newton_rows``): the iteration converges
  quadratically (no curvature terms needed; -beta' Lambda H(q_mid), the force turning with
  the curve, changed no iterate count on the pantograph at 250 km/h).

Over a step then, with M constant (a structure; a tree of prismatic joints or point masses),

    Delta T = dq . M (q''_n + q''_n+1) / 2 = -dq . F_avg + Lambda . (G dq) + Lambda . (G_Sigma - G) dq,

the first term is -Delta V (f_avg, gravity, quadratic springs), the second is zero, and the
third is the friction work: the friction force times the discrete slip increment
-mu |Lambda| W_T(q_mid) dq, booked as ``dissipated_friction``; it is >= 0 while the slip keeps
its sign within the (sub-)step (slip reversals are located and end a sub-step). A sticking
point profile's row is positional, its force does no work. The balance closes to the Newton
residual (rtol) and the position tolerance of the constraints.

The velocity constraint: the scheme holds it only in the discrete form G u_mid = 0; left so,
J(q_n+1) u_n+1 alternates in sign from step to step and grows with the unresolved modes of an
undamped string (4e-3 m/s on the trolley after 2 s at h = 1 ms), and a tiny sub-step after a
located event would have to reverse it (forces of 1e3 N and more). So after every step and at
every restart (``project``) an impulse along the constraint forces, the M-orthogonal projection
onto J u + phi_t = 0, closes it to round-off, and the kinetic energy it removes (>= 0) is booked
as ``dissipated_numerical``: the balance stays closed, and the scheme's own loss is reported (the
trolley: 2.1e-6 J with mu = 0.05, 1.5e-5 J without friction, over 2 s at h = 1 ms, of 3.5 J).
Sub-steps that move by less than SMALL_STEP hold the rows in their velocity form
(``dependent_state``).

The drives' work: a drive's row keeps J(q_mid), its force over the step is Lambda, and its
work Lambda (q_j,n+1 - q_j,n) is what ``work_corrections`` books (the trapezoidal
rule on lambda u, with the Lambda of two successive steps, erred by h v (Lambda_n -
Lambda_n+1) / 2 per step: 0.15 J of 219 J for the pantograph's base at 250 km/h, h = 2 ms).

Force laws (``Compliant`` contacts and ``Dropper`` links): their elastic force takes the
same form, e_used,n+1 = 2 e_avg - e_used,n with e_avg the discrete gradient of each law's
energy (``steppers.force_laws``, whose docstring gives the form and its choices).

Not covered: a tree whose mass matrix depends on q (revolute joints: the trapezoidal kinetic
energy identity errs at O(h^3)), rolling rows (velocity level) and the compliant contacts'
friction.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..coupling.constraints import mass_times
from ..coupling.contact import compliant_contacts
from ..coupling.partition import PainleveError
from ..kernels.consistent import discrete_gradient, reduced_residual, velocity_projection
from ..multibody.tree_dynamics import actuator_forces
from ..system import System
from .force_laws import ElasticState, ForceLaws

# below this size of the step's displacement |dq| (m, rad, slope; the metric of
# ``discrete_gradient``) the discrete gradient is the midpoint Jacobian itself: the correction's
# rounding grows as eps / |dq|, while what it corrects, phi_1 - phi_0 - J_mid dq, is
# O(kappa |dq|^3) < 1e-27 m there
GRADIENT_SWITCH = 1e-9
# a step whose displacement h max|u_n| (m, rad, slope) is below this holds the rows in their
# velocity form at the midpoint (``ConsistentContacts.dependent_state``): at h = 3e-6 s and
# 0.3 m/s the positions' rounding gives 4 eps |q| / h^2 ~ 4e-5 m/s^2, and what the velocity
# form lets the rows drift, kappa |dq|^3, is below 1e-18 m
SMALL_STEP = 1e-5
EPS = np.finfo(float).eps


class PlainForces:
    """The stepper without the option: the equations hold f_int(q_n+1) as evaluated."""

    active = False
    contacts = False  # True: the constraints in discrete-gradient form (ConsistentContacts)

    def restart(self, ev, acceleration=None) -> None:
        pass

    def residual_floor(self) -> float | np.ndarray:
        """The round-off level the scheme adds to the reduced residual of the last iterate
        (N, per independent coordinate): none."""
        return 0.0

    def step(self, q_n, ev):
        return ev

    def commit(self, ev) -> None:
        pass

    def tangent_state(self, q_n, q1):
        """The state whose tangent stiffness enters the Newton matrix of the step to q1."""
        return q1

    def newton_rows(self, ev):
        """The evaluation whose rows border the Newton matrix of the iterate ev: ev itself."""
        return ev

    def save(self):
        return None

    def restore(self, saved) -> None:
        pass


class AveragedForces(PlainForces):
    """Replaces the structures' internal force in each evaluation at t_n+1 by f_used,n+1 (module
    docstring); ``used`` : f_used of the committed state, (n_flexible,), N. Books the sliding
    contacts' friction work of a (sub-)step as the step does it (module docstring);
    ``friction`` : (q, generalised friction force, friction power) at the sub-step's start."""

    active = True

    def __init__(self, system: System):
        self.system = system
        self.used = None
        self._pending = None
        self.friction = None
        # the force laws (module docstring): None without any; of the committed state, their
        # (ElasticState, elastic force in its equations (n,), N)
        self.laws = ForceLaws(system) if compliant_contacts(system) else None
        self.elastic = None
        # of the committed state: the damping forces and the joints' actuator forces in its
        # equations, (n,) each, N; the work of the committed steps so far, J, by balance
        # column (``work_corrections``), and those at the sub-step's start
        self.damping = self.loads = None
        self.booked = {"dissipated_damping": 0.0, "work_loads": 0.0}
        self._marks = dict(self.booked)

    def friction_start(self, q, force, power) -> None:
        """The state (q, generalised friction force (n,), N, its power, W) a sub-step starts
        from: at a restart (the contact state may have changed) and after each sub-step."""
        self.friction = (q, force, power)

    def friction_work(self, q1, force1, power1, dt: float) -> float:
        """What to add to the trapezoidal friction dissipation 0.5 dt (P_0 + P_1) of the
        sub-step just closed at q1 so that it is the discrete work -(F_0 + F_1) / 2 . (q1 - q0)
        the forces do in the step; marks q1 as the next start. J."""
        q0, force0, power0 = self.friction
        self.friction_start(q1, force1, power1)
        discrete = -0.5 * float((force0 + force1) @ (q1 - q0))
        return discrete - 0.5 * dt * (power0 + power1)

    def work_start(self) -> None:
        """Marks the present state as the start of a sub-step for ``work_corrections``."""
        self._marks = dict(self.booked)

    def work_corrections(self, powers0: dict, powers1: dict, dt: float) -> dict:
        """What to add to the trapezoidal rule 0.5 dt (P_0 + P_1) of the balance's columns in
        the sub-step of dt just closed (powers0, powers1 : the power terms at its ends, W, by
        column) so that each is the work its forces did in the sub-step's steps (module
        docstring): the dampers' dq . (D_n + D_n+1) / 2, the joint actuators' dq .
        (Q_n + Q_n+1) / 2 (and the drives' Lambda (q_j,n+1 - q_j,n), ``ConsistentContacts``);
        marks the next start. J by column."""
        out = {
            key: (value - self._marks[key]) - 0.5 * dt * (powers0[key] + powers1[key])
            for key, value in self.booked.items()
        }
        self._marks = dict(self.booked)
        return out

    def load_force(self, ev) -> np.ndarray:
        """(n,) the joints' actuator forces at ev's time (``actuator_forces``), N; the
        structures' loads are constant, their work is in the potential energy."""
        lay = self.system.layout
        out = np.zeros(lay.n)
        if self.system.tree is not None:
            out[lay.tree] = actuator_forces(self.system.tree, ev.t)
        return out

    def damping_force(self, ev, laws=None) -> np.ndarray:
        """(n,) the damping forces in the equations at ev, N: the joint dampers' c_j u_j, the
        structures' C(q) u and the force laws' (``ForceLaws.damping_force``; laws : their
        ElasticState at ev, None without laws)."""
        system = self.system
        lay = system.layout
        out = np.zeros(lay.n)
        if system.tree is not None:
            out[lay.tree] = system.tree.topology.damping * ev.u[lay.tree]
        out[lay.flexible] = system.flexible_damping(ev.q) @ ev.u[lay.flexible]
        if laws is not None:
            out += self.laws.damping_force(laws)
        return out

    def restart(self, ev, acceleration=None) -> None:
        self.used = self.system.flexible_internal_force(ev.q)
        state = None
        if self.laws is not None:
            state = self.laws.state(ev.q, ev.u, ev)
            self.elastic = (state, self.laws.elastic_force(state))
        self.damping = self.damping_force(ev, state)
        self.loads = self.load_force(ev)

    def step(self, q_n, ev):
        system = self.system
        flexible = system.layout.flexible
        used = 2.0 * system.flexible_averaged_internal_force(q_n, ev.q) - self.used
        forces = ev.forces.copy()
        forces[flexible] += used - system.flexible_internal_force(ev.q)
        elastic = state1 = None
        if self.laws is not None:
            laws = self.laws
            state0, used0 = self.elastic
            state1 = laws.state(ev.q, ev.u, ev)
            guesses = {
                f.index: f.contact.parameter
                for f in ev.compliant
                if f.index in laws.others and f.contact is not None
            }
            mid = laws.state(0.5 * (q_n + ev.q), ev.u, guesses=guesses)
            average, rows = laws.averaged(state0, state1, mid, ev.q - q_n)
            used1 = 2.0 * average - used0
            forces += used1 - laws.elastic_force(state1)
            elastic = state1, used1
            if rows:  # the contacts' tangent: their force acts along the discrete gradient
                ev = dataclasses.replace(ev, compliant=_consistent_tangents(ev.compliant, rows))
        damping, loads = self.damping_force(ev, state1), self.load_force(ev)
        dq = ev.q - q_n
        work = {
            "dissipated_damping": 0.5 * float(dq @ (self.damping + damping)),
            "work_loads": 0.5 * float(dq @ (self.loads + loads)),
        }
        self._pending = used, elastic, damping, loads, work
        return dataclasses.replace(ev, forces=forces)

    def commit(self, ev) -> None:
        self.used, elastic, self.damping, self.loads, work = self._pending
        if elastic is not None:
            self.elastic = elastic
        for key, value in work.items():
            self.booked[key] += value

    def tangent_state(self, q_n, q1):
        """The midpoint: 2 d f_avg / d q1 = K(q_mid) + O(|q1 - q_n|) with a smaller error than
        K(q1) (the averaged stress is the midpoint one to O(|q1 - q_n|^2))."""
        return 0.5 * (q_n + q1)

    def save(self):
        work = self.elastic, self.damping, self.loads, dict(self.booked), dict(self._marks)
        return self.used, self.friction, work

    def restore(self, saved) -> None:
        self.used, self.friction, work = saved
        self.elastic, self.damping, self.loads, booked, marks = work
        self.booked, self._marks = dict(booked), dict(marks)


class ConsistentContacts(AveragedForces):
    """``AveragedForces`` and the constraints in discrete-gradient form (module docstring).
    ``constraint_force`` : c_used = M q'' + F of the committed state, (n,), N;
    ``dissipated`` : the friction work booked by the committed steps so far, J."""

    contacts = True

    def __init__(self, system: System):
        super().__init__(system)
        self.constraint_force = None
        self.dissipated = 0.0
        self._start = (0.0, 0.0)  # (friction power, dissipated) at the sub-step's start
        self._pending_constraint = None
        self._pending_dissipated = 0.0
        self._floor = 0.0
        self._gradient = None  # G_Sigma of the last ``reduced``, (m, n)
        self.small = False  # the present step is held in the velocity form (``dependent_state``)
        # per contact with rows (``ContactModes`` index): the normal impulse the bodies have
        # received since the stepper's present step began, N s (``GeneralizedAlpha`` books it)
        self.normal_impulse = np.zeros(0)
        # the drives' rows and joints (their work: ``booked["work_drives"]``)
        model = system.model
        n_c = sum(1 for c in model.contacts if c.bilateral)
        self._drive_rows = n_c + np.arange(len(model.drives), dtype=np.int64)
        self._drive_joints = np.array([d.joint for d in model.drives], dtype=np.int64)
        self.booked["work_drives"] = 0.0
        self._marks = dict(self.booked)
        self._pending_driven = 0.0

    def restart(self, ev, acceleration=None) -> None:
        super().restart(ev)
        self.constraint_force = mass_times(self.system, ev, acceleration) + ev.forces

    @staticmethod
    def project(ev, mass_solve):
        """(u (n,), kinetic energy removed, J, the rows' impulse -nu (m,), N s): ev.u projected
        onto the velocity constraints J u + phi_t = 0 at ev.q in the metric of the mass matrix,
        u - M^-1 J^T nu with (J M^-1 J^T) nu = J u + phi_t, the smallest change of the kinetic
        energy that closes them (an impulse along the constraint forces). The energy removed,
        nu . J u - nu . (J M^-1 J^T) nu / 2 (v D^-1 v / 2 >= 0 for scleronomic rows), is the
        scheme's own loss. The impulse is positive along J^T lambda (for a contact's normal
        row, pressing). mass_solve(ev, rhs) : M^-1 rhs."""
        if ev.phi.size == 0:
            return np.array(ev.u, dtype=float), 0.0, np.zeros(0)
        minv_jt = np.ascontiguousarray(mass_solve(ev, np.ascontiguousarray(ev.jac.T)))
        u, loss, impulse = velocity_projection(
            np.ascontiguousarray(ev.jac, dtype=float),
            np.ascontiguousarray(ev.u, dtype=float),
            np.ascontiguousarray(ev.phi_t, dtype=float),
            minv_jt,
        )
        return u, float(loss), impulse

    def dependent_state(self, part, ev0, u_n, q1, u1, h: float, constraints, midpoint):
        """(q1, u1, ev_mid): the dependent coordinates of an iterate on the trapezoidal rule and
        the rows at the step's midpoint. ev0 : the committed state's evaluation; q1, u1 : the
        iterate with its dependent entries recovered from the constraints; constraints(q) and
        midpoint(q1, u1) : the rows at q and at the midpoint (Evaluations).

        A step that moves by at least SMALL_STEP (estimated h max|u_n|): q1 closes the
        constraints to the recovery's tolerance (1e-12 m), one more Newton step on them takes
        it to round-off (the dependent accelerations 4 (q_U,n+1 - q_U,n - h u_U,n) / h^2 - ...
        would carry a tolerance-sized scatter of the positions into the residual: 4e-12 m /
        h^2 = 4e-6 N on 1 kg at h = 1 ms, and the Newton iteration would stall there), and
        u_U,n+1 = 2 (q_U,n+1 - q_U,n) / h - u_U,n. A smaller step (a sub-step next to a
        located event): the rounding of the positions, eps |q| 4 / h^2, would swamp the
        accelerations (4e4 m/s^2 at h = 1e-10 s), so the rows are held in their velocity
        form at the midpoint instead, J(q_mid) u_mid + phi_t = 0 with u_mid = (u_n + u_n+1) / 2
        and q_U,n+1 = q_U,n + h u_U,mid: the rows' force then does the work
        Lambda J(q_mid) dq = -h Lambda phi_t (zero for a contact), and the rows drift by
        O(kappa |dq|^3) < 1e-18 m (``discrete_gradient`` is told so through ``small``)."""
        U = part.dependent
        q1, u1 = q1.copy(), u1.copy()
        q_n = ev0.q
        self.small = h * np.max(np.abs(u_n), initial=0.0) < SMALL_STEP
        if not U.size:
            return q1, u1, midpoint(q1, u1)
        if self.small:
            mid = midpoint(q1, u1)  # at the dependent coordinates recovered from the rows
            ind = part.independent
            u_mid = 0.5 * (u_n + u1)
            rest = mid.jac[:, ind] @ u_mid[ind] + mid.phi_t
            u_mid_U = -np.linalg.solve(mid.jac[:, U], rest)
            u1[U] = 2.0 * u_mid_U - u_n[U]
            q1[U] = q_n[U] + h * u_mid_U
            return q1, u1, mid
        ev = constraints(q1)
        q1[U] -= np.linalg.solve(ev.jac[:, U], ev.phi)
        u1[U] = 2.0 * (q1[U] - q_n[U]) / h - u_n[U]
        return q1, u1, midpoint(q1, u1)

    def discrete_gradient(self, ev0, ev1, ev_mid):
        """(G, G_Sigma), each (m, n): the discrete gradient of the rows between the
        evaluations ev0 and ev1 from the midpoint one ev_mid, with G dq = phi_1 - phi_0 to
        round-off on every row without explicit time dependence (module docstring); the
        friction part G_Sigma - G is ev_mid's."""
        return discrete_gradient(
            np.ascontiguousarray(ev_mid.jac, dtype=float),
            np.ascontiguousarray(ev_mid.jac_sigma, dtype=float),
            np.ascontiguousarray(ev0.phi, dtype=float),
            np.ascontiguousarray(ev1.phi, dtype=float),
            np.ascontiguousarray(ev1.q - ev0.q, dtype=float),
            (ev0.phi_t != 0.0) | (ev1.phi_t != 0.0),  # rheonomic rows: J_mid
            bool(self.small),
            GRADIENT_SWITCH,
        )

    def reduced(self, ev, ev0, ev_mid, part, acc, h: float, u_n, acc_n):
        """The residual of an iterate whose state at t_n+1 is ev (forces with f_used): fills
        the dependent accelerations of the trapezoidal rule into acc (n,) and returns
        (M acc (n,), r (n_ind,), Lambda (m,)) with ``r = T_G^T (M q''_n+1 + F_n+1 + c_used,n)``,
        T_G the null space of G_Sigma on the partition's dependent coordinates, and Lambda
        from its dependent rows, 2 G_Sigma,U^T Lambda = (M q''_n+1 + F_n+1 + c_used,n)_U.
        ev0 : the committed state's evaluation, ev_mid : the midpoint's (constraints only)."""
        U, ind = part.dependent, part.independent
        acc[U] = 2.0 * (ev.u[U] - u_n[U]) / h - acc_n[U]
        inertia = mass_times(self.system, ev, acc)
        e = inertia + ev.forces
        total = e + self.constraint_force
        G, G_sigma = self.discrete_gradient(ev0, ev, ev_mid)
        if U.size:
            try:
                r, lam, B = reduced_residual(
                    np.ascontiguousarray(G_sigma, dtype=float), total, U, ind
                )
            except np.linalg.LinAlgError:
                raise PainleveError(
                    "G_Sigma,u (the discrete gradient's block of the dependent coordinates) is "
                    "singular: friction too large?"
                ) from None
            # the dependent accelerations 4 (q_U,n+1 - q_U,n - h u_U,n) / h^2 - ... carry the
            # rounding of the positions (a few eps |q|) times 4 / h^2: in a tiny sub-step of an
            # event's location (h = 1e-6 s) that is 1e-3 m/s^2, far above rtol
            if self.small:
                # the rounding of the velocities, 4 eps |u| / h, of all coordinates: a step this
                # short resolves the independent accelerations no better, and their corrections
                # are weighed against this level too (``newton_converged``; under another BLAS, one at
                # h = 1e-13 s after a stick event cycled at 0.02 m/s^2 there)
                noise = 8.0 * EPS * (np.abs(ev.u) + np.abs(u_n)) / h
            else:
                noise = np.zeros(ev.q.size)
                noise[U] = 8.0 * EPS * (np.abs(ev.q[U]) + np.abs(ev0.q[U])) / (h * h)
            spread = np.abs(mass_times(self.system, ev, noise))
            self._floor = spread[ind] + np.abs(B).T @ spread[U]
        else:
            lam, r = np.zeros(0), total[ind]
            self._floor = 0.0
        dq = ev.q - ev0.q
        self._gradient = G_sigma
        self._pending_constraint = e
        self._pending_dissipated = -float(lam @ ((G_sigma - G) @ dq))
        self._pending_driven = 0.0
        if lam.size and self._drive_rows.size:
            self._pending_driven = float(lam[self._drive_rows] @ dq[self._drive_joints])
        return inertia, r, lam

    def newton_rows(self, ev):
        """ev with G_Sigma of the last ``reduced`` in place of J_Sigma: the forces of the
        residual act along G_Sigma^T (not J_Sigma(q_n+1)^T), so the Newton matrix's
        multiplier columns take it; the constraint rows keep J(q_n+1), the derivative of
        phi(q_n+1) = 0 through which the dependent accelerations follow the independent ones
        (4 beta' / h^2 = 1). With J_Sigma(q_n+1)^T the iteration converged linearly, by a
        factor ~30 per iterate on the pantograph at 250 km/h (8 to 9 iterates per step, the
        columns off by O(kappa |dq|)); with G_Sigma^T quadratically (3)."""
        return dataclasses.replace(ev, jac_sigma=self._gradient)

    def residual_floor(self) -> float | np.ndarray:
        """The round-off of the dependent accelerations in the last iterate's residual, (n_ind,)
        N (see ``reduced``)."""
        return self._floor

    def commit(self, ev) -> None:
        super().commit(ev)
        self.constraint_force = self._pending_constraint
        self.dissipated += self._pending_dissipated
        self.booked["work_drives"] += self._pending_driven

    def commit_taken(self, carried, work: dict, rows_impulse) -> None:
        """Commit a step taken elsewhere (the compiled step, ``kernels.consistent_step``) from
        the committed state: what ``step``, ``reduced``, ``project`` and ``commit`` leave.
        carried : (f_used of the structures (n_f,), the laws' e_used (n,), their approaches
        (L,), their gradients (L, k), their forces (L,), the damping forces (n,), the loads
        (n,), c_used (n,)) at the step's end; work : the step's work by column of ``booked``
        and "friction" (-Lambda . (G_Sigma - G) dq), J; rows_impulse : the closed contacts'
        normal impulse over the step (h Lambda and the projection's), N s."""
        used, used_laws, approach, gradient, force, damping, loads, constraint = carried
        self.normal_impulse = self.normal_impulse + rows_impulse
        self.used = used
        if self.laws is not None:
            n = self.system.layout.n
            state = ElasticState(approach, gradient, np.zeros(0), np.zeros((0, n)), force)
            self.elastic = (state, used_laws)
        self.damping, self.loads = damping, loads
        for key in ("dissipated_damping", "work_loads", "work_drives"):
            self.booked[key] += work[key]
        self.constraint_force = constraint
        self.dissipated += work["friction"]
        self.small = False

    def friction_start(self, q, force, power) -> None:
        self._start = (power, self.dissipated)

    def friction_work(self, q1, force1, power1, dt: float) -> float:
        """What to add to the trapezoidal friction dissipation 0.5 dt (P_0 + P_1) of the
        sub-step just closed so that it is the friction work its steps did,
        -Lambda . (G_Sigma - G) dq each (module docstring). J."""
        power0, mark = self._start
        self._start = (power1, self.dissipated)
        return (self.dissipated - mark) - 0.5 * dt * (power0 + power1)

    def save(self):
        impulse = self.normal_impulse.copy()
        return super().save(), self.constraint_force, self.dissipated, self._start, impulse

    def restore(self, saved) -> None:
        base, self.constraint_force, self.dissipated, self._start, impulse = saved
        self.normal_impulse = impulse.copy()
        super().restore(base)


def _consistent_tangents(forces, rows) -> tuple:
    """The CompliantForce of each contact in ``rows`` (model index -> (-G_a (n,), the change
    of its normal stiffness, N/m; ``ForceLaws.averaged``)) with its force along -G_a and its
    tangent's dF_n / da changed by that much: the Newton matrix of the averaged force."""
    out = []
    for f in forces:
        if f.index not in rows or f.tangent is None:
            out.append(f)
            continue
        row, change = rows[f.index]
        k_q = f.tangent[0].copy()
        k_q[0, 0] += change
        out.append(dataclasses.replace(f, force_row=row, tangent=(k_q, f.tangent[1])))
    return tuple(out)


def averaged_forces(system: System, rho_inf: float, energy_consistent: bool) -> PlainForces:
    """The force handling of a GeneralizedAlpha stepper: ``AveragedForces`` when
    ``energy_consistent`` (which needs rho_inf = 1: only there the step averages the forces of
    t_n and t_n+1 with equal weights; ``ConsistentContacts`` when the model has constraint
    rows), else ``PlainForces``. Structures without an averaged
    force (a string with bending stiffness) are refused here, before the first step."""
    if not isinstance(energy_consistent, bool | np.bool_):
        raise TypeError(f"energy_consistent = {energy_consistent!r}; allowed: True or False")
    if not energy_consistent:
        return PlainForces()
    if rho_inf != 1.0:
        raise ValueError(
            f"rho_inf = {rho_inf!r} with energy_consistent=True: the energy-consistent internal "
            "force needs the trapezoidal rule of rho_inf = 1 (alpha_m = alpha_f = gamma = 1/2, "
            "beta = 1/4); allowed: rho_inf = 1, or energy_consistent=False"
        )
    for structure in system.structures.values():
        q = structure.initial_coordinates()
        structure.averaged_internal_force(q, q)  # raises for what it cannot average
    model = system.model
    if model.constraint_names() or any(not c.bilateral and not c.compliant for c in model.contacts):
        return ConsistentContacts(system)
    return AveragedForces(system)


__all__ = [
    "AveragedForces",
    "ConsistentContacts",
    "PlainForces",
    "averaged_forces",
]
