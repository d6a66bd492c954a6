"""Contact modes of the partitioned stepper: slip, stick, open, roll, and what the rows, the
event indicators and the friction terms need of them (``ContactModes``).

A sliding contact slips with kinetic friction mu |lambda| against its slip direction (the
sign is part of the mode, 002 eq. 63). When its slip velocity reaches zero it sticks if the
friction force that holds it, the multiplier of an added tangential row (``StickAnchor`` in
``coupling.constraints``), lies within mu_s lambda_N; otherwise it slips on the other way.
A sticking contact breaks loose when that force leaves the cone, and slips in the direction
the static force was resisting (001 sec. 10.3.2). Each switch is located in time by re-taking
the step (Illinois method on the step size) and the integration restarts there from consistent
accelerations and multipliers (``GeneralizedAlpha``).

Contacts with a ``Unilateral`` law are, besides, open or closed. A closed one opens when its
normal force would turn negative (located like the other events) and flies free; an open one
closes when its gap reaches zero, through an impact at the impulse level: Newton's law
g'+ = -e_N g'- with Coulomb friction on the impulses (|P_T| <= mu P_N; stick with
tangential restitution v_t+ = -e_T v_t-, or slip against v_t+ + e_T v_t-), every other
closed row held at the velocity level, solved by enumerating stick and the two slip
directions (``coupling.impact.contact_impact``, the phases the law gives:
``Unilateral.impact_phases``). The contact stays closed when it does not bounce (g'+ = 0),
and the kinetic energy it takes goes to ``dissipated_impact``.

Rolling (``Compliant.rolling``, Bauchau (000) secs. 5-6): a compliant contact is under its
force law (FORCE_LAW), rolling (ROLL: a velocity-level row W_T u = 0 whose multiplier is the
friction force; the law's friction is off, so the friction does no work while it rolls) or
just released (RELEASED: under its force law, it may roll again only once |v_t| has exceeded
v0 / 2, so that a release is not undone at once). A slipping contact that pushes starts to
roll when |v_t| falls to v0 / 2 (event "stick"), if the friction force it then needs lies
within mu_s F_n (else it keeps slipping, "reversal"); a rolling one is released when that
force leaves the cone mu_s F_n (event "slip"), which also happens when the contact opens
(F_n = 0).
"""

from __future__ import annotations

import numpy as np

from ..coupling.constraints import compliant_contacts, sliding_contacts, stick_anchor
from ..coupling.kinematics import line_geometry, profile_state
from ..sides import Line
from .step_state import ContactMode

# a contact whose slip speed at the start is at most this is at rest on its target and sticks
# if the static cone holds it: the round-off of a slip velocity W_T u computed from speeds of
# order 1 m/s is about 1e-16 m/s (its sign differs between BLAS kernels), and no slip that
# matters physically is this slow
REST_SLIP = 1e-12  # m/s


class ContactModes:
    """The mode of each contact of a generalised-alpha stepper (``step_state.ContactMode``)
    and the rows, indicators and friction terms that follow from them.

    Contact index i runs over the contacts with constraint rows, ``sliding`` (model indices:
    the Sliding contacts, then the Unilateral ones, in row order), then over the Compliant
    ones, ``compliant``: i >= n_rows is compliant contact i - n_rows.

    mode : ndarray, shape (n_rows + n_compliant,), int8
        The ContactMode of each contact. Changed only through the methods below.
    anchors : list, length n_rows
        The StickAnchor of each sticking contact (its tangential row), None for the others.
    slip_sign : ndarray, shape (n_rows,)
        (read-only) +1, -1 while a contact slips forward or backward, 0 otherwise.
    """

    def __init__(self, system):
        self.system = system
        model = system.model
        self.n_bilateral = len(sliding_contacts(system))
        self.unilateral = tuple(
            k for k, c in enumerate(model.contacts) if not c.bilateral and not c.compliant
        )
        self.sliding = sliding_contacts(system) + self.unilateral
        self.compliant = compliant_contacts(system)
        self.m0 = len(model.constraint_names())
        self.n_rows = len(self.sliding)
        self.mode = np.empty(self.n_rows + len(self.compliant), dtype=np.int8)
        self.mode[: self.n_bilateral] = ContactMode.REST
        self.mode[self.n_bilateral : self.n_rows] = ContactMode.OPEN
        self.mode[self.n_rows :] = ContactMode.FORCE_LAW
        self.anchors = [None] * self.n_rows
        self._update()

    def start(self, contacts, gap_tol: float) -> list[int]:
        """Set the modes of the initial state: a Sliding contact slips in the direction of its
        slip velocity (at rest within REST_SLIP, m/s); a Unilateral one with |gap| <= gap_tol
        (m) is closed (slipping, or at rest) when its normal velocity is within gap_tol of
        zero (m/s), and hits at the start when it approaches faster.

        Parameters
        ----------
        contacts : sequence
            Per contact with rows, its ContactKinematics at the start, or None.
        gap_tol : float
            The gap (m) and normal velocity (m/s) counted as zero.

        Returns
        -------
        list of int
            The contacts that hit at the start (their impacts are the caller's).

        Raises
        ------
        ValueError
            When a Unilateral contact penetrates its target by more than gap_tol.
        """
        slip = np.array([0.0 if c is None else c.slip_velocity for c in contacts])
        slip_sign = np.where(np.abs(slip) <= REST_SLIP, 0.0, np.sign(slip))
        n_bilateral = self.n_bilateral
        for i in range(n_bilateral):
            self.slip(i, slip_sign[i])
        approaching = []
        for j, k in enumerate(self.unilateral):
            c = contacts[n_bilateral + j]
            if c is None or c.gap > gap_tol:
                continue
            if c.gap < -gap_tol:
                raise ValueError(
                    f"initial state: contact {self.system.model.contacts[k].name!r} penetrates "
                    f"its target by {-c.gap:.3e} m; allowed: gap >= -gap_tol = {-gap_tol:g} m"
                )
            if c.normal_velocity < -gap_tol:
                approaching.append(n_bilateral + j)  # hits at t0
            elif c.normal_velocity <= gap_tol:  # resting at zero gap: closed from the start
                self.slip(n_bilateral + j, slip_sign[n_bilateral + j])
        return approaching

    # -- the rows of the present modes ------------------------------------------------------
    def _update(self) -> None:
        """Row indices and the keywords of ``evaluate_state`` after a change of mode."""
        mode, n, nb = self.mode, self.n_rows, self.n_bilateral
        closed = mode[:n] != ContactMode.OPEN
        sticking = np.flatnonzero(mode[:n] == ContactMode.STICK)
        rolling = mode[n:] == ContactMode.ROLL
        n_closed = int(np.count_nonzero(closed[nb:]))
        self._normal = np.full(n, -1)
        self._normal[:nb] = np.arange(nb)
        self._normal[nb + np.flatnonzero(closed[nb:])] = self.m0 + np.arange(n_closed)
        self._stick = np.full(n, -1)
        self._stick[sticking] = self.m0 + n_closed + np.arange(sticking.size)
        self._rolling = np.full(rolling.size, -1)
        first = self.m0 + n_closed + sticking.size
        self._rolling[rolling] = first + np.arange(int(np.count_nonzero(rolling)))
        sign = np.zeros(n)
        sign[mode[:n] == ContactMode.SLIP_FORWARD] = 1.0
        sign[mode[:n] == ContactMode.SLIP_BACKWARD] = -1.0
        sign.flags.writeable = False
        self._slip_sign = sign
        self._keywords = dict(
            stick=tuple(self.anchors),
            unilateral=self.unilateral,
            closed=tuple(bool(c) for c in closed[nb:]),
            rolling=tuple(bool(r) for r in rolling) if rolling.size else None,
        )

    def closed_normal(self, rows) -> np.ndarray:
        """Per contact with rows, the entry of ``rows`` (m,) at its normal row while it is
        closed, 0 while it is open: (n_rows,), e.g. the contacts' normal impulses, N s."""
        out = np.zeros(self.n_rows)
        closed = self._normal >= 0
        out[closed] = np.asarray(rows)[self._normal[closed]]
        return out

    def rows(self, base, workspace) -> dict:
        """Keywords of ``evaluate_state`` for the present modes; ``base`` (the committed
        state's evaluation, or None) is the base of the rolling rows' position values."""
        return dict(self._keywords, base=base, workspace=workspace)

    @property
    def slip_sign(self) -> np.ndarray:
        return self._slip_sign

    # a mode is read as an int: numpy's int8 against an IntEnum member converts the member on
    # each comparison (about 17 us, against 0.3 us as ints; a catenary's 90 droppers are read
    # several times per step)
    def is_closed(self, i: int) -> bool:
        return int(self.mode[i]) != ContactMode.OPEN

    def is_sticking(self, i: int) -> bool:
        return int(self.mode[i]) == ContactMode.STICK

    def is_rolling(self, i: int) -> bool:
        return int(self.mode[i]) == ContactMode.ROLL

    def normal_row(self, i: int) -> int:
        """Row (and multiplier) index of the normal row of closed contact i."""
        return int(self._normal[i])

    def stick_row(self, i: int) -> int:
        """Row (and multiplier) index of the stick constraint of sticking contact i."""
        return int(self._stick[i])

    def rolling_row(self, i: int) -> int:
        """Row (and multiplier) index of the rolling row of rolling compliant contact i."""
        return int(self._rolling[i - self.n_rows])

    # -- switching --------------------------------------------------------------------------
    def _set(self, i: int, mode: ContactMode, anchor=None) -> None:
        self.mode[i] = mode
        if i < self.n_rows:
            self.anchors[i] = anchor
        self._update()

    def slip(self, i: int, sign: float) -> None:
        """Contact i slips with the direction sign (+1, -1; 0: at rest, no direction)."""
        mode = (
            ContactMode.REST
            if sign == 0.0
            else ContactMode.SLIP_FORWARD
            if sign > 0.0
            else ContactMode.SLIP_BACKWARD
        )
        self._set(i, mode)

    def stick(self, i: int, anchor) -> None:
        """Contact i sticks, held by the tangential row of ``anchor`` (a StickAnchor)."""
        self._set(i, ContactMode.STICK, anchor)

    def open(self, i: int) -> None:
        self._set(i, ContactMode.OPEN)

    def roll(self, i: int) -> None:
        self._set(i, ContactMode.ROLL)

    def release(self, i: int) -> None:
        self._set(i, ContactMode.RELEASED)

    def save(self) -> tuple[np.ndarray, tuple]:
        """(mode, anchors): copies for ``restore``."""
        return self.mode.copy(), tuple(self.anchors)

    def restore(self, mode: np.ndarray, anchors: tuple) -> None:
        """Put back the modes and anchors of ``save``. The rows follow from them alone: when
        both are the present ones (a step committed through ``GeneralizedAlpha.restore``
        without a switch) they are kept, not derived again (``_update``: about 0.1 ms)."""
        same = len(anchors) == len(self.anchors) and all(
            a is b for a, b in zip(anchors, self.anchors, strict=True)
        )
        if same and np.array_equal(mode, self.mode):
            return
        self.mode = np.array(mode, dtype=np.int8)
        self.anchors = list(anchors)
        self._update()

    # -- laws and the compliant contacts' forces --------------------------------------------
    def model_index(self, i: int) -> int:
        """The model index of contact i."""
        return self.sliding[i] if i < self.n_rows else self.compliant[i - self.n_rows]

    def law(self, i: int):
        """The ContactLaw of contact i."""
        return self.system.model.contacts[self.model_index(i)].law

    def name(self, i: int) -> str:
        return self.system.model.contacts[self.model_index(i)].name

    def compliant_force(self, i: int, ev):
        """The CompliantForce of compliant contact i in ev, or None."""
        return ev.compliant[i - self.n_rows] if ev.compliant else None

    # -- events -----------------------------------------------------------------------------
    def kinds(self, i: int) -> tuple[str, ...]:
        """The events that can end the present mode of contact i."""
        mode = int(self.mode[i])
        if i >= self.n_rows:
            if not self.law(i).rolling:
                return ()
            return (
                ("release",)
                if mode == ContactMode.ROLL
                else ("roll",)
                if mode == ContactMode.FORCE_LAW
                else ()
            )
        if mode == ContactMode.OPEN:
            return ("close",)
        kinds = ("open",) if i >= self.n_bilateral else ()
        if mode == ContactMode.STICK:
            return kinds + ("slip",)
        return kinds + (("stop",) if self.law(i).sticks else ())

    def indicator(self, i: int, kind: str, ev, lam) -> float:
        """>= 0 while the mode holds: the gap of an open contact (m), the normal force of a
        closed unilateral one (N), slip_sign v_t while it slips (m/s), mu_s lambda_N -
        |lambda_T| while it sticks (N); of a compliant contact: |v_t| - v0 / 2 while it slips
        (m/s; +inf while open), mu_s F_n - |lambda_T| while it rolls (N)."""
        if i >= self.n_rows:
            f = self.compliant_force(i, ev)
            law = self.law(i)
            if kind == "roll":
                if f is None or f.contact is None or not f.normal_force > 0.0:
                    return np.inf
                return abs(f.contact.slip_velocity) - 0.5 * law.v0
            normal = 0.0 if f is None else f.normal_force
            return law.mu_s * normal - abs(float(lam[self.rolling_row(i)]))
        c = ev.contacts[i]
        if kind == "close":
            return np.inf if c is None else c.gap
        if kind == "open":
            return float(lam[self.normal_row(i)])
        if kind == "stop":
            return self._slip_sign[i] * c.slip_velocity
        bound = self.law(i).static_coefficient * lam[self.normal_row(i)]
        return bound - abs(lam[self.stick_row(i)])

    def rearm(self, ev) -> None:
        """A released contact may roll again once |v_t| >= v0 / 2 in ev (or it has opened)."""
        for i in range(self.n_rows, self.mode.size):
            if int(self.mode[i]) == ContactMode.RELEASED:
                f = self.compliant_force(i, ev)
                if f is None or f.contact is None or not f.normal_force > 0.0:
                    self._set(i, ContactMode.FORCE_LAW)
                elif abs(f.contact.slip_velocity) >= 0.5 * self.law(i).v0:
                    self._set(i, ContactMode.FORCE_LAW)

    def first_event(self, start, ev, lam):
        """(contact, kind) of the earliest change of mode in the step just taken from
        ``start`` (a StepState) to the state evaluated as ev with multipliers lam, by linear
        interpolation of the indicators; None when every mode holds."""
        best, first = None, np.inf
        self.rearm(ev)
        for i in range(self.mode.size):
            for kind in self.kinds(i):
                armed = int(start.mode[i]) == ContactMode.FORCE_LAW  # not just released, re-armed
                if (
                    kind == "roll"
                    and armed
                    and self.indicator(i, kind, start.evaluation, start.multipliers) < 0
                ):
                    return i, kind  # slow enough at the start already: rolls from there
                a = self.indicator(i, kind, ev, lam)
                if a >= 0.0:
                    continue
                b = max(self.indicator(i, kind, start.evaluation, start.multipliers), 0.0)
                if b / (b - a) < first:
                    best, first = (i, kind), b / (b - a)
        return best

    # -- friction and the closed rows -------------------------------------------------------
    def slip_tangent(self, ev, lam):
        """d(-F_t) / dv_t (N s/m) of each closed, slipping contact of the rows whose friction
        depends on v_t, lambda_N d factor / dv_t - dF_v / dv_t at the normal force of ``lam``
        (the last iterate's multipliers), for ``compliant.bordered_solve``; None when every
        one is 0 (Coulomb's constant mu)."""
        slopes = ev.slip_slopes
        if not np.any(slopes):
            return None
        slip = np.zeros(len(ev.contacts))
        for i, c in enumerate(ev.contacts[: self.n_rows]):
            if c is not None and self._slipping(i):
                slip[i] = lam[self.normal_row(i)] * slopes[i, 0] - slopes[i, 1]
        return slip

    def _slipping(self, i: int) -> bool:
        """Contact i is closed and has no stick row."""
        return int(self.mode[i]) not in (ContactMode.OPEN, ContactMode.STICK)

    def curved_rows(self, ev) -> tuple:
        """(contact index, normal row) of each closed contact of ``ev``."""
        return tuple(
            (i, self.normal_row(i))
            for i, c in enumerate(ev.contacts[: self.n_rows])
            if c is not None and self.is_closed(i)
        )

    def closed_normals(self, ev, lam) -> tuple:
        """(contact index, normal row, lambda_N) of each closed contact of ``ev`` at the
        multipliers ``lam`` (for ``compliant.curvature_terms``)."""
        if lam is None or len(lam) != ev.phi.size:
            return ()
        return tuple((i, row, float(lam[row])) for i, row in self.curved_rows(ev))

    def sliding_friction(self, ev, lam) -> tuple[np.ndarray, float]:
        """(generalised friction force (n,), N, of the closed Sliding contacts in the equations
        of motion: the friction part of J_Sigma^T lambda (slip) or the stick rows' J^T lambda;
        their friction power, W)."""
        force, power = np.zeros(ev.q.size), 0.0
        for i, c in enumerate(ev.contacts[: self.n_rows]):
            if c is None or not self.is_closed(i):
                continue
            row = self.normal_row(i)
            if not self.is_sticking(i):
                force += (ev.jac_sigma[row] - ev.jac[row]) * lam[row] + c.w_tangent * ev.viscous[i]
                power += (ev.friction[i] * lam[row] - ev.viscous[i]) * c.slip_velocity
            else:
                force += ev.jac[self.stick_row(i)] * lam[self.stick_row(i)]
        return force, float(power)

    def friction_power(self, ev, lam) -> float:
        """The friction power of the closed, slipping contacts of the rows, W."""
        return sum(
            (ev.friction[i] * lam[self.normal_row(i)] - ev.viscous[i]) * c.slip_velocity
            for i, c in enumerate(ev.contacts)
            if self._slipping(i)
        )

    def painleve_contacts(self) -> list[int]:
        """The closed contacts without a stick row."""
        return [i for i in range(self.n_rows) if self._slipping(i)]

    def closed_rows(self):
        """(normal rows (k,), names (k,), may open (k,)) of the closed contacts: the
        complementarity rows of the Painleve test (``StepAlgebra.check_painleve``); a
        Unilateral contact may open, a Sliding one not. A sticking contact is left out: its
        rows are equations there (it has no kinetic friction to make the case, and its stick
        row would stay with its normal row open)."""
        closed = self.painleve_contacts()
        names = [self.name(i) for i in closed]
        rows = np.array([self.normal_row(i) for i in closed], dtype=int)
        return rows, names, np.array([i >= self.n_bilateral for i in closed], dtype=bool)


def anchor_at(system, k: int, contact, q, u):
    """Where contact k of the model sticks now: the StickAnchor of its tangential row
    (``coupling.constraints.stick_anchor``). A contact on a structure, or a curved profile on
    a line, is anchored at its contact parameter; a point profile on a line at its centre.

    Parameters
    ----------
    system : System
        The assembled system.
    k : int
        The model index of the contact.
    contact : ContactKinematics
        Its kinematics now.
    q, u : ndarray, shape (n,)
        Coordinates and velocities now.

    Returns
    -------
    StickAnchor
    """
    pair = system.model.contacts[k]
    lay = system.layout
    centre = line_point = None  # a structure or a curved profile: anchored at its parameter
    if isinstance(pair.target, Line):
        centre = contact.profile_point  # a curved profile rolls: anchored where it touches
        if not pair.curved:
            centre = profile_state(
                system.tree, q[lay.tree], u[lay.tree], pair.profile.body, system.profile_points[k]
            ).centre.position
        line_point = line_geometry(system.tree, q[lay.tree], u[lay.tree], pair.target)[0]
    return stick_anchor(contact, pair.target, centre, line_point)


__all__ = ["REST_SLIP", "ContactModes", "anchor_at"]
