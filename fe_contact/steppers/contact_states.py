"""Contact states of the partitioned stepper: slip, stick, and the events that switch them.

A sliding contact slips with kinetic friction mu |lambda| against its slip direction (the
sign is part of the state, 002 eq. 63). When its slip velocity reaches zero it sticks if the
friction force that holds it, the multiplier of an added tangential row (``StickAnchor`` in
``coupling.constraints``), lies within mu_s lambda_N; otherwise it slips on the other way.
A sticking contact breaks loose when that force leaves the cone, and slips in the direction
the static force was resisting (001 sec. 10.3.2). Each switch is located in time by re-taking
the step (Illinois method on the step size) and the integration restarts there from consistent
accelerations and multipliers. The methods below are mixed into ``GeneralizedAlpha``.
"""

from __future__ import annotations

import numpy as np

from ..coupling.constraints import stick_anchor
from ..coupling.kinematics import profile_state
from ..system import energies


class ContactStates:
    """Mixin of GeneralizedAlpha: state indicators, event location and switching."""

    def _stick_row(self, i: int) -> int:
        """Row (and multiplier) index of the stick constraint of sticking contact i."""
        before = sum(a is not None for a in self._stick[:i])
        return len(self.system.model.constraint_names()) + before

    def _indicators(self, ev, lam) -> np.ndarray:
        """Per sliding contact, a number that is >= 0 while its state holds: slip_sign v_t for
        a slipping contact (m/s), mu_s lambda_N - |lambda_T| for a sticking one (N)."""
        out = np.empty(len(self._sliding))
        for i, c in enumerate(ev.contacts):
            if self._stick[i] is None:
                out[i] = self._slip_sign[i] * c.slip_velocity if self._mu[i] > 0 else np.inf
            else:
                out[i] = self._mu_s[i] * lam[i] - abs(lam[self._stick_row(i)])
        return out

    def _first_event(self, start):
        """(contact, kind) of the earliest state change in the step just taken from ``start``,
        by linear interpolation of the indicators; None when every state holds."""
        if not self._sliding:
            return None
        before = self._indicators(start[6], start[5])
        after = self._indicators(self.evaluation, self.multipliers)
        crossed = np.flatnonzero(after < 0.0)
        if crossed.size == 0:
            return None
        b, a = np.maximum(before[crossed], 0.0), after[crossed]
        i = int(crossed[np.argmin(b / (b - a))])
        return i, ("slip" if self._stick[i] is not None else "stop")

    def _locate(self, start, i: int, kind: str, span: float):
        """Re-take the step from ``start`` to the time where indicator i reaches zero (Illinois
        method on the step size, to ``event_tol`` in time); ends just past the switch."""
        lo, hi = 0.0, span
        f_lo = max(float(self._indicators(start[6], start[5])[i]), 0.0)
        f_hi = float(self._indicators(self.evaluation, self.multipliers)[i])
        side = 0
        ev = self.evaluation
        while hi - lo > self.event_tol and f_lo > 0.0:
            dt = hi - f_hi * (hi - lo) / (f_hi - f_lo)
            dt = min(max(dt, lo + 0.01 * (hi - lo)), hi - 0.01 * (hi - lo))
            self._restore(start)
            ev = self._advance(dt, self.max_halvings)
            f = float(self._indicators(ev, self.multipliers)[i])
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
        if self.t != start[0] + hi:
            self._restore(start)
            ev = self._advance(hi, self.max_halvings)
        return ev

    def _close_substep(self, work: dict, t_start: float, ev) -> None:
        """Add the work of the sub-step from t_start to the state ev (trapezoidal rule)."""
        powers = self._power_terms(ev, self.multipliers)
        dt = self.t - t_start
        for key in powers:
            work[key] += 0.5 * dt * (self._powers[key] + powers[key])
        self._powers = powers

    def _switch(self, i: int, kind: str) -> None:
        """Change the state of sliding contact i at the present time: ``stop`` (its slip
        velocity reached zero: stick if the static cone holds it, else slip the other way) or
        ``slip`` (its static friction force left the cone)."""
        if kind == "stop":
            self._try_stick(i, count=True)
            return
        lam_t = self.multipliers[self._stick_row(i)]
        self._stick[i] = None
        self._slip_sign[i] = -np.sign(lam_t)
        self._log(i, "slip")
        self._restart()

    def _try_stick(self, i: int, count: bool) -> None:
        """Stick contact i where it is if the friction force that holds it lies within
        mu_s lambda_N (001 sec. 10.3.2); otherwise slip in the direction the contact would
        accelerate, against the static friction force it would need."""
        pair = self.system.model.contacts[self._sliding[i]]
        lay = self.system.layout
        contact = self.evaluation.contacts[i]
        centre = profile_state(
            self.system.tree,
            self.q[lay.tree],
            self.u[lay.tree],
            pair.profile.body,
            self.system.profile_points[self._sliding[i]],
        ).centre.position
        self._stick[i] = stick_anchor(contact, pair.target, centre)
        self._restart()
        lam = self.multipliers
        lam_t = lam[self._stick_row(i)]
        if abs(lam_t) <= self._mu_s[i] * lam[i] * (1.0 + 1e-12):
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

    def _power_terms(self, ev, lam) -> dict:
        s = self.system
        model = s.model
        n_c = len(self._sliding)
        E = self._energy = energies(s, ev.q, ev.u, ev.t)
        drive = sum(lam[n_c + k] * ev.u[d.joint] for k, d in enumerate(model.drives))
        friction = sum(
            self._mu[i] * lam[i] * self._slip_sign[i] * c.slip_velocity
            for i, c in enumerate(ev.contacts)
            if self._stick[i] is None
        )
        return {
            "work_drives": float(drive),
            "work_loads": E.load_power,
            "dissipated_damping": E.damping_power,
            "dissipated_friction": float(friction),
        }
