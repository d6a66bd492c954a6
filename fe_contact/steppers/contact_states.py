"""Contact states of the partitioned stepper: slip, stick, and the events that switch them.

A sliding contact slips with kinetic friction mu |lambda| against its slip direction (the
sign is part of the state, 002 eq. 63). When its slip velocity reaches zero it sticks if the
friction force that holds it, the multiplier of an added tangential row (``StickAnchor`` in
``coupling.constraints``), lies within mu_s lambda_N; otherwise it slips on the other way.
A sticking contact breaks loose when that force leaves the cone, and slips in the direction
the static force was resisting (001 sec. 10.3.2). Each switch is located in time by re-taking
the step (Illinois method on the step size) and the integration restarts there from consistent
accelerations and multipliers. The methods below are mixed into ``GeneralizedAlpha``.

Contacts with a ``Unilateral`` law are, besides, open or closed. A closed one opens when its
normal force would turn negative (located like the other events) and flies free; an open one
closes when its gap reaches zero, through an impact at the impulse level: Newton's law
g'+ = -e_N g'- with Coulomb friction on the impulses (|P_T| <= mu P_N; stick with
tangential restitution v_t+ = -e_T v_t-, or slip against v_t+ + e_T v_t-), every other
closed row held at the velocity level, solved by enumerating stick and the two slip
directions (``coupling.impact.contact_impact``, the phases the law gives:
``Unilateral.impact_phases``). The contact stays closed when it does not bounce (g'+ = 0),
and the kinetic energy it takes goes to ``dissipated_impact``.
"""

from __future__ import annotations

import numpy as np

from ..coupling.constraints import stick_anchor
from ..coupling.impact import contact_impact
from ..coupling.kinematics import ContactLeftStructure, line_geometry, profile_state
from ..coupling.partition import ConstraintError
from ..model import Line
from ..system import energies
from .base import StepTooLarge, StopRun
from .compliant import RollingStates


class ContactStates(RollingStates):
    """Mixin of GeneralizedAlpha: state indicators, event location and switching."""

    # -- rows -------------------------------------------------------------------------------
    def _rows(self) -> dict:
        """Keywords of ``evaluate_state`` for the present contact states; the committed
        state's evaluation is the base of the rolling rows' position values."""
        return dict(
            stick=self._stick,
            unilateral=self._unilateral,
            closed=self._closed,
            base=getattr(self, "evaluation", None),
            workspace=self.workspace,
        )

    def _slip_tangent(self, ev, lam):
        """d(-F_t) / dv_t (N s/m) of each closed, slipping contact of the rows whose friction
        depends on v_t, lambda_N d factor / dv_t - dF_v / dv_t at the normal force of ``lam``
        (the last iterate's multipliers), for ``compliant.bordered_solve``; None when every
        one is 0 (Coulomb's constant mu)."""
        slopes = ev.slip_slopes
        if not np.any(slopes):
            return None
        slip = np.zeros(len(ev.contacts))
        for i, c in enumerate(ev.contacts[: len(self._sliding)]):
            if c is not None and self._stick[i] is None and self._is_closed(i):
                slip[i] = lam[self._normal_row(i)] * slopes[i, 0] - slopes[i, 1]
        return slip

    def _curved_rows(self, ev) -> tuple:
        """(contact index, normal row) of each closed contact of ``ev``."""
        return tuple(
            (i, self._normal_row(i))
            for i, c in enumerate(ev.contacts[: len(self._sliding)])
            if c is not None and self._is_closed(i)
        )

    def _closed_normals(self, ev, lam) -> tuple:
        """(contact index, normal row, lambda_N) of each closed contact of ``ev`` at the
        multipliers ``lam`` (for ``compliant.curvature_terms``)."""
        if lam is None or len(lam) != ev.phi.size:
            return ()
        return tuple((i, row, float(lam[row])) for i, row in self._curved_rows(ev))

    def _is_closed(self, i: int) -> bool:
        return i < self._n_bilateral or self._closed[i - self._n_bilateral]

    def _normal_row(self, i: int) -> int:
        """Row (and multiplier) index of the normal row of closed contact i."""
        if i < self._n_bilateral:
            return i
        j = i - self._n_bilateral
        return self._m0 + sum(self._closed[:j])

    def _stick_row(self, i: int) -> int:
        """Row (and multiplier) index of the stick constraint of sticking contact i."""
        before = sum(a is not None for a in self._stick[:i])
        return self._m0 + sum(self._closed) + before

    # -- events -----------------------------------------------------------------------------
    def _kinds(self, i: int) -> tuple[str, ...]:
        """The events that can end the present state of contact i."""
        if i >= len(self._sliding):
            return self._rolling_kinds(i)
        if not self._is_closed(i):
            return ("close",)
        kinds = ("open",) if i >= self._n_bilateral else ()
        if self._stick[i] is not None:
            return kinds + ("slip",)
        return kinds + (("stop",) if self._contact_law(i).sticks else ())

    def _contact_law(self, i: int):
        """The ContactLaw of contact i (row order: Sliding, then Unilateral)."""
        return self.system.model.contacts[self._sliding[i]].law

    def _indicator(self, i: int, kind: str, ev, lam) -> float:
        """>= 0 while the state holds: the gap of an open contact (m), the normal force of a
        closed unilateral one (N), slip_sign v_t while it slips (m/s), mu_s lambda_N - |lambda_T|
        while it sticks (N)."""
        if i >= len(self._sliding):
            return self._rolling_indicator(i, kind, ev, lam)
        c = ev.contacts[i]
        if kind == "close":
            return np.inf if c is None else c.gap
        if kind == "open":
            return float(lam[self._normal_row(i)])
        if kind == "stop":
            return self._slip_sign[i] * c.slip_velocity
        bound = self._contact_law(i).static_coefficient * lam[self._normal_row(i)]
        return bound - abs(lam[self._stick_row(i)])

    def _first_event(self, start):
        """(contact, kind) of the earliest state change in the step just taken from ``start``,
        by linear interpolation of the indicators; None when every state holds."""
        best, first = None, np.inf
        self._rearm()
        for i in range(len(self._stick)):
            for kind in self._kinds(i):
                armed = start.anchors[i] is None  # (not just released and re-armed)
                if (
                    kind == "roll"
                    and armed
                    and self._indicator(i, kind, start.evaluation, start.multipliers) < 0
                ):
                    return i, kind  # slow enough at the start already: rolls from there
                a = self._indicator(i, kind, self.evaluation, self.multipliers)
                if a >= 0.0:
                    continue
                b = max(self._indicator(i, kind, start.evaluation, start.multipliers), 0.0)
                if b / (b - a) < first:
                    best, first = (i, kind), b / (b - a)
        return best

    def _locate(self, start, i: int, kind: str, span: float):
        """Re-take the step from ``start`` to the time where indicator i reaches zero (Illinois
        method on the step size, to ``event_tol`` in time); ends just past the switch."""
        lo, hi = 0.0, span
        f_lo = max(self._indicator(i, kind, start.evaluation, start.multipliers), 0.0)
        if kind == "roll" and f_lo == 0.0:  # already slow enough at the start: roll from there
            self.restore(start)
            return self.evaluation
        if kind in ("stop", "slip", "open") and f_lo == 0.0 and self._at_start != (start.t, i):
            # the state no longer holds at the start (a contact that leaves an impact or a
            # switch slipping at v_t = 0 and at once slips back): switch there. Taken to the
            # end of the sub-step instead, it slipped the wrong way under friction that pushed
            # (a disk rattling on a sagging beam: -4.9e-5 J of friction work in one sub-step).
            # Once per contact and time: a second such switch at the same start takes the
            # sub-step (it cannot loop).
            self._at_start = (start.t, i)
            self.restore(start)
            return self.evaluation
        f_hi = self._indicator(i, kind, self.evaluation, self.multipliers)
        side = 0
        ev = self.evaluation
        while hi - lo > self.event_tol and f_lo > 0.0:
            dt = hi - f_hi * (hi - lo) / (f_hi - f_lo)
            dt = min(max(dt, lo + 0.01 * (hi - lo)), hi - 0.01 * (hi - lo))
            self.restore(start)
            ev = self._advance(dt, self.max_halvings)
            f = self._indicator(i, kind, ev, self.multipliers)
            if f < 0.0:
                hi, f_hi = dt, f
                f_lo = 0.5 * f_lo if side == -1 else f_lo
                side = -1
            else:
                lo, f_lo = dt, f
                f_hi = 0.5 * f_hi if side == 1 else f_hi
                side = 1
                if f == 0.0:
                    return ev
        if self.t != start.t + hi:
            self.restore(start)
            ev = self._advance(hi, self.max_halvings)
        return ev

    def _leaving(self, err, start, span: float) -> int:
        """The contact that left its structure in the sub-step from ``start`` (span s, taken
        with its halvings), when it is a unilateral one (which then opens). A bilateral
        contact ends the run: ``_left_end`` locates it and raises."""
        if err.pair is None or err.pair not in self._unilateral:
            self._left_end(err, start, span)
        return self._sliding.index(err.pair)

    def _left_end(self, err, start, span: float) -> None:
        """A bilateral contact's closest point left its structure within the sub-step from
        ``start`` (span s) and its halvings. The last time at which it is still on the
        structure is located by bisection to ``event_tol`` and committed; the contact is there
        at an end of its structure (within 1e-6 of its length plus ten times what it slides in
        event_tol) when it truly slides off: StopRun, with the located time. Otherwise its
        closest point jumped off from inside the structure (a step too large for the motion,
        the trolley of ``examples/slider_on_string.toml`` at h = 0.05 s: s = -0.44 m from
        s = 0.2 m): StepTooLarge."""
        pair = self.system.model.contacts[err.pair] if err.pair is not None else None
        if pair is None or err.pair not in self._sliding or not isinstance(pair.target, str):
            raise StepTooLarge(f"{err}, and the time it left could not be located") from err
        i = self._sliding.index(err.pair)
        ev = self._leave(start, i, span)
        c = ev.contacts[i]
        length = self.system.structures[pair.target].length
        rate = abs(np.nan_to_num(c.parameter_rate))
        distance = min(abs(c.parameter), abs(length - c.parameter))
        if distance <= 1e-6 * length + 10.0 * rate * self.event_tol:
            raise StopRun(
                f"{err} at t = {self.t:.9g} s (located to {self.event_tol:g} s: the contact is "
                f"at s = {c.parameter:.6g} m, an end of {pair.target!r})"
            )
        raise StepTooLarge(
            f"{err} in the step from t = {start.t:.6g} s, also after {self.max_halvings} "
            f"halvings, from inside the structure (s = {c.parameter:.6g} m at t = "
            f"{self.t:.9g} s, the last time it is found on it): the step is too large for the "
            "motion; allowed: a smaller h or more max_halvings"
        )

    def _leave(self, start, i: int, span: float):
        """Bisection of the step from ``start`` to the last time, within ``event_tol``, at
        which closed contact i is still on its structure; commits there."""
        lo, hi = 0.0, span
        while hi - lo > self.event_tol:
            mid = 0.5 * (lo + hi)
            self.restore(start)
            try:
                self._advance(mid, self.max_halvings, leaving=False)
                lo = mid
            except ContactLeftStructure:
                hi = mid
        self.restore(start)
        if lo > 0.0:
            self._advance(lo, self.max_halvings, leaving=False)
        return self.evaluation

    def _substep_limit(self, dt_last: float, v_last) -> float:
        """The step-size control of Bauchau (000) sec. 6 for contacts with the continuous law:
        while |v_t| < 3 v0 the next sub-step is chosen so that v_t changes by about v0 / 10,
        extrapolating linearly from the last sub-step (dt_last, its slip velocities v_last)."""
        limit = np.inf
        if v_last is None or dt_last <= 0.0:
            return limit
        for i, c in enumerate(self.evaluation.contacts):
            v0 = self._v0[i]
            if (
                np.isnan(v0)
                or c is None
                or not self._is_closed(i)
                or abs(c.slip_velocity) >= 3 * v0
            ):
                continue
            rate = abs(c.slip_velocity - v_last[i]) / dt_last
            if rate > 0.0:
                limit = min(limit, 0.1 * v0 / rate)
        return max(limit, self.min_substep)

    def _close_substep(self, work: dict, t_start: float, ev) -> None:
        """Add the work of the sub-step from t_start to the state ev (trapezoidal rule)."""
        powers = self._power_terms(ev, self.multipliers)
        dt = self.t - t_start
        for key in powers:
            work[key] += 0.5 * dt * (self._powers[key] + powers[key])
        self._powers = powers
        if self.averaged.active:  # the sliding contacts' friction work as the step does it
            friction = self._sliding_friction(ev, self.multipliers)
            work["dissipated_friction"] += self.averaged.friction_work(ev.q, *friction, dt)

    def _sliding_friction(self, ev, lam) -> tuple[np.ndarray, float]:
        """(generalised friction force (n,), N, of the closed Sliding contacts in the equations
        of motion: the friction part of J_Sigma^T lambda (slip) or the stick rows' J^T lambda;
        the friction power of ``_power_terms`` for them, W)."""
        force, power = np.zeros(ev.q.size), 0.0
        for i, c in enumerate(ev.contacts[: len(self._sliding)]):
            if c is None or not self._is_closed(i):
                continue
            row = self._normal_row(i)
            if self._stick[i] is None:
                force += (ev.jac_sigma[row] - ev.jac[row]) * lam[row] + c.w_tangent * ev.viscous[i]
                power += (ev.friction[i] * lam[row] - ev.viscous[i]) * c.slip_velocity
            else:
                force += ev.jac[self._stick_row(i)] * lam[self._stick_row(i)]
        return force, float(power)

    def _switch(self, i: int, kind: str) -> None:
        """Change the state of contact i at the present time: ``stop`` (its slip velocity
        reached zero: stick if the static cone holds it, else slip the other way), ``slip``
        (its static friction force left the cone), ``open`` (its normal force reached zero),
        ``close`` (its gap reached zero: an impact), ``leave`` (it left its structure's end:
        it opens, and may come back)."""
        if kind in ("roll", "release"):
            self._switch_rolling(i, kind)
        elif kind == "stop":
            self._try_stick(i, count=True)
        elif kind == "slip":
            lam_t = self.multipliers[self._stick_row(i)]
            self._stick[i] = None
            self._slip_sign[i] = -np.sign(lam_t)
            self._log(i, "slip")
            self._restart()
        elif kind in ("open", "leave"):
            self._stick[i] = None
            self._closed[i - self._n_bilateral] = False
            self._log(i, kind)
            self._restart()
        else:
            self._impact(i)
        self._open_pulled(count=True)

    def _open_pulled(self, count: bool) -> None:
        """Open every closed unilateral contact whose normal multiplier is negative at the
        present state (pulled, not pressed), and restart. A switch of another contact (a
        landing that does not bounce, a stick or slip) can leave one so; kept closed, it
        held the bodies together and its friction mu lambda_N with lambda_N < 0 pushed along
        the slip until the end of the step (its opening is located from a positive normal
        force only): a pendulum tip rattling on a cantilever gained 1.1e-5 J in one step."""
        for j in range(len(self._unilateral)):
            i = self._n_bilateral + j
            if self._closed[j] and self.multipliers[self._normal_row(i)] < 0.0:
                self._stick[i] = None
                self._closed[j] = False
                if count:
                    self._log(i, "open")
                self._restart()

    def _closed_rows(self):
        """(normal rows (k,), names (k,), may open (k,)) of the closed contacts: the
        complementarity rows of the Painleve test (``StepAlgebra.check_painleve``); a
        Unilateral contact may open, a Sliding one not. A sticking contact is left out: its
        rows are equations there (it has no kinetic friction to make the case, and its stick
        row would stay with its normal row open)."""
        closed = self._painleve_contacts()
        names = [self.system.model.contacts[self._sliding[i]].name for i in closed]
        rows = np.array([self._normal_row(i) for i in closed], dtype=int)
        return rows, names, np.array([i >= self._n_bilateral for i in closed], dtype=bool)

    def _painleve_contacts(self) -> list[int]:
        return [
            i for i in range(len(self._sliding)) if self._is_closed(i) and self._stick[i] is None
        ]

    def _lift_off(self, branch) -> None:
        """Take the lift-off branch of a Painleve state (``painleve.ContactProblem.lift_off``):
        the closed Unilateral contacts that it opens (N = 0, contact acceleration > 0) open
        here, and the integration restarts."""
        closed = self._painleve_contacts()
        for j, i in enumerate(closed):
            if not branch.active[j]:
                self._stick[i] = None
                self._closed[i - self._n_bilateral] = False
                self._log(i, "open")
        self._restart()

    def _try_stick(self, i: int, count: bool) -> None:
        """Stick contact i where it is if the friction force that holds it lies within
        mu_s lambda_N (001 sec. 10.3.2); otherwise slip in the direction the contact would
        accelerate, against the static friction force it would need."""
        pair = self.system.model.contacts[self._sliding[i]]
        lay = self.system.layout
        contact = self.evaluation.contacts[i]
        centre = line_point = None  # a structure or a curved profile: anchored at its parameter
        if isinstance(pair.target, Line):
            centre = contact.profile_point  # a curved profile rolls: anchored where it touches
            if not pair.curved:
                centre = profile_state(
                    self.system.tree,
                    self.q[lay.tree],
                    self.u[lay.tree],
                    pair.profile.body,
                    self.system.profile_points[self._sliding[i]],
                ).centre.position
            line_point = line_geometry(
                self.system.tree, self.q[lay.tree], self.u[lay.tree], pair.target
            )[0]
        self._stick[i] = stick_anchor(contact, pair.target, centre, line_point)
        try:
            self._restart()
        except ConstraintError as err:
            raise ConstraintError(
                f"contact {pair.name!r} stops slipping at t = {self.t:.6g} s and would stick, "
                f"which adds a tangential row: {err}; allowed: a tree with a coordinate per "
                "row, or method='moreau' for a Unilateral contact (no partition)"
            ) from err
        lam = self.multipliers
        lam_t = lam[self._stick_row(i)]
        if pair.law.holds_stick(lam[self._normal_row(i)], lam_t):
            if count:
                self._log(i, "stick")
            return
        self._stick[i] = None
        self._slip_sign[i] = -np.sign(lam_t)
        if count:
            self._log(i, "reversal")
        self._restart()

    def _log(self, i: int, kind: str) -> None:
        self.events.append((self.t, self.system.model.contacts[self._sliding[i]].name, kind))

    # -- impacts ----------------------------------------------------------------------------
    def _mass_solve(self, ev, rhs: np.ndarray) -> np.ndarray:
        """M^-1 rhs for the block-diagonal mass diag(M_t(q), M_f); rhs (n, k)."""
        lay = self.system.layout
        out = np.empty_like(rhs)
        out[lay.tree] = np.linalg.solve(ev.mass_tree, rhs[lay.tree]) if lay.n_tree else 0.0
        if lay.n_flexible:
            out[lay.flexible] = self.algebra.mass_lu.solve(np.ascontiguousarray(rhs[lay.flexible]))
        return out

    def _impact(self, i: int) -> None:
        """Impact of open unilateral contact i whose gap has just closed (module docstring)."""
        j = i - self._n_bilateral
        law = self.system.model.contacts[self._sliding[i]].law
        ev = self.evaluation
        c = ev.contacts[i]
        W = np.column_stack([c.w_normal, c.w_tangent, ev.jac.T])
        X = self._mass_solve(ev, W)
        D = W.T @ X  # Delassus matrix of the normal, tangential and closed rows
        pre = W.T @ self.u
        pre[2:] += ev.phi_t
        v_n = pre[0]
        if v_n >= 0.0:
            # the gap closed while it was opening (a fast structure passed the point within
            # the step): nothing hits, and Newton's law g'+ = -e_N g'- would need a pulling
            # impulse P_N < 0, which the law excludes (P_N = 0 solves it, g'+ = g'- >= 0). A
            # pendulum tip on a ringing cantilever gained 8e-4 J in one such "impact"
            return
        name = self.system.model.contacts[self._sliding[i]].name
        # Newton: one phase; Poisson: compression, expansion (``coupling.impact``)
        result = contact_impact(D, pre, law, name, self.t)
        P = result.impulse
        self.u = self.u + X @ P
        after = W.T @ self.u
        # the kinetic energy changes by P . W^T (u- + u+) / 2 (exactly, for u+ = u- + M^-1 W P):
        # the contact rows' part is the impact loss, never negative for these laws (Newton:
        # -P_N g'-_N (1 - e_N) / 2 >= 0); the constraint rows' part is the work of the drives'
        # impulses, -P phi_t (passive joints and loops do none). That alone is booked on the
        # drives: the restart after the impact also moves the dependent coordinates back onto
        # the constraints (a landing found at the end of a sub-step has penetrated), which no
        # force does; booked on the drives as well, it gave a model without drives 5.3e-4 J of
        # drive work (a disk rattling on a sagging beam, h = 1e-3 s), and it belongs to the
        # balance error (it falls with h: 1.2e-3, 2.3e-4, 5.0e-5 J at h = 1e-3, 5e-4, 2.5e-4 s)
        loss = result.loss
        self._log(i, "impact")
        bounced = after[0] > 1e-9 * max(1.0, abs(v_n))
        if not bounced:
            self._closed[j] = True
            self._slip_sign[i] = np.sign(after[1])
        self._restart()
        self._impact_loss += loss
        self._impact_work += -float(P[2:] @ ev.phi_t)  # the drives' impulses
        if not bounced and self._slip_sign[i] == 0.0 and law.sticks:
            self._try_stick(i, count=True)

    def _energies(self, ev):
        """``system.energies`` at the evaluated state ev."""
        return energies(self.system, ev.q, ev.u, ev.t, self.workspace)

    def _power_terms(self, ev, lam) -> dict:
        model = self.system.model
        E = self._energy = self._energies(ev)
        n_c = self._n_bilateral
        drive = sum(lam[n_c + k] * ev.u[d.joint] for k, d in enumerate(model.drives))
        friction = (
            sum(
                (ev.friction[i] * lam[self._normal_row(i)] - ev.viscous[i]) * c.slip_velocity
                for i, c in enumerate(ev.contacts)
                if self._stick[i] is None and self._is_closed(i)
            )
            + E.contact_friction_power
        )  # compliant contacts (model.Compliant)
        return {
            "work_drives": float(drive),
            "work_loads": E.load_power,
            "dissipated_damping": E.damping_power,
            "dissipated_friction": float(friction),
        }
