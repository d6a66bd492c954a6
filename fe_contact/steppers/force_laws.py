"""The force laws' elastic energy in discrete-gradient form (the energy-consistent
generalised-alpha step at rho_inf = 1, ``steppers.energy_consistent``).

The force laws (``ForceLaws``: ``Compliant`` contacts and ``Dropper`` links, each an applied
force of its approach a = -gap, the penetration or the link's stretch). Each one's elastic energy
phi(a) = c a^(p+1) / (p + 1) (a > 0, else 0) has a kink at a = 0 (a dropper going slack, a
contact opening), and a compliant contact's a(q) is the distance to the closest point of a
moving target: the trapezoidal rule on c a^p d a / d q errs at O(h^3) per step where smooth and
at O(h) across the kink (at 250 km/h on 5 m elements, h = 2 ms, with about 160 dropper
switches, and with the dampers', the lift's and the drive's work on the trapezoidal rule (below):
3.4e-4 of the largest elastic energy). With the option (``energy_consistent=True``) each law's elastic force in the
equations at t_n+1 is ``e_used,n+1 = 2 e_avg - e_used,n``, as the structures' force, with

    e_avg = (phi(a_n+1) - phi(a_n)) / (a_n+1 - a_n) G_a,
    G_a = d a / d q (q_mid) + (a_n+1 - a_n - d a / d q (q_mid) . dq_a) dq_a / |dq_a|^2,

dq_a the step's dq on the law's own DOFs (a link's, or those of the contact's point and its
target's elements), so that dq . e_avg = phi(a_n+1) - phi(a_n) to round-off (the secant slope
is formed without cancellation, ``ForceLaws.secant``; below |dq_a| = LAW_SWITCH the midpoint
gradient alone, whose error is below the correction's rounding there). The rest of a law's
force, its damping (and the clamp at zero tension), is taken as evaluated at t_n+1, as the
structures' Rayleigh damping C u and the joint dampers are. The damping work is booked as the
step does it, dq . (D_n + D_n+1) / 2 per step (``AveragedForces.work_corrections``; the trapezoidal rule on
the power u C u errs by h Delta u C Delta u / 4 >= 0 per step), and so is the joint actuators'
work (their rule on Q u over a sub-step taken in two halves erred by h Q (2 u_mid - u_n -
u_n+1) / 4). The Newton matrix takes a compliant contact's force along -G_a with the secant's
derivative as its normal stiffness (``CompliantForce.force_row``, ``ForceLaws.secant_slope``;
with the law's own tangent along W_N(q_n+1) the iteration gained only a factor 1e-3 per iterate
at 250 km/h); a link keeps its law's tangent (exact for a linear law between two steps of one
state; a slack-taut switch costs a few iterates). The alternating part of e_used costs the
predictor an iterate where the plain form needs one (a disk at rest on a Hertz law: 3 iterates
per step for 1.3). A law's friction (a compliant contact's) keeps the trapezoidal rule.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..coupling.contact import compliant_contacts, contact_at
from ..coupling.kinematics import ContactLeftStructure
from ..coupling.links import links_state
from ..kernels.consistent import link_averaged_force
from ..system import System

# below this size of a force law's |dq_a| (m and slopes, ``ForceLaws.averaged``) its approach's
# discrete gradient is the midpoint gradient: the correction divides the rounding of the
# approaches (eps times the positions, up to 1e-14 m on a 55 m span) by |dq_a|, which at the
# start of a run from rest (|dq_a| ~ 1e-8 m) gave forces of 1e-3 N of noise and Newton stalled;
# what it leaves out, the curvature of a(q) times |dq_a|^3 (1e-12 m on a 1 m dropper), does
# 1e-9 J of work at 1 kN per step
LAW_SWITCH = 1e-4


@dataclasses.dataclass(frozen=True, eq=False)
class ElasticState:
    """The approaches of the force laws (``Compliant`` contacts and links) at one state and their
    gradients: the links of ``System.link_rows`` as ``approach`` (L,) and ``gradient`` (L, k)
    at their DOFs (``LinkRows.dofs``), the other Compliant contacts as ``contact_approach``
    (C,) and dense ``contact_gradient`` (C, n). a = -gap (m: a link's stretch, a contact's
    penetration), d a / d q = -W_N; a contact without a closest point has a = -inf and a zero
    gradient. ``normal_force`` (L + C,) the laws' forces (N, damping included) at the state,
    links first, or None where not evaluated (the midpoint)."""

    approach: np.ndarray
    gradient: np.ndarray
    contact_approach: np.ndarray
    contact_gradient: np.ndarray
    normal_force: np.ndarray | None = None


class ForceLaws:
    """The elastic energies of a system's force laws (``Compliant`` contacts and ``Dropper``
    links), each c a^(p+1) / (p + 1) of its approach a > 0 (zero for a <= 0), in
    discrete-gradient form over a step (module docstring). ``system`` : the assembled model."""

    def __init__(self, system: System):
        self.system = system
        compliant = compliant_contacts(system)
        rows = system.link_rows
        linked = set(rows.pairs.tolist())
        self.others = tuple(k for k in compliant if k not in linked)
        # each entry of ev.compliant (model order of the Compliant contacts) in the order
        # links first, then the others
        order = {k: i for i, k in enumerate(rows.pairs.tolist())}
        order.update({k: rows.size + j for j, k in enumerate(self.others)})
        self.position = np.array([order[k] for k in compliant], dtype=np.int64)
        laws = [system.model.contacts[k].law for k in (*rows.pairs.tolist(), *self.others)]
        self.stiffness = np.array([law.stiffness for law in laws], dtype=float)
        self.exponent = np.array([law.exponent for law in laws], dtype=float)
        self.dofs = rows.dofs
        # a DOF listed twice in a link's row (its padding) counts once in |dq|
        first = np.ones(rows.dofs.shape, dtype=bool)
        for j in range(1, rows.dofs.shape[1]):
            first[:, j] = np.all(rows.dofs[:, :j] != rows.dofs[:, j : j + 1], axis=1)
        self.first = first
        self.size = len(compliant)

    def energy(self, approach) -> np.ndarray:
        """c a^(p+1) / (p + 1) per law (links first), J; approach (L + C,), m."""
        a = np.maximum(approach, 0.0)
        return self.stiffness * a ** (self.exponent + 1.0) / (self.exponent + 1.0)

    def slope(self, approach) -> np.ndarray:
        """The elastic force c a^p per law, N."""
        return self.stiffness * np.maximum(approach, 0.0) ** self.exponent

    def state(self, q, u, ev=None, guesses=None) -> ElasticState:
        """The ``ElasticState`` at (q, u); ev : the full Evaluation there (its contacts' points
        and the laws' forces are taken from it), or None (the contacts are searched here from
        ``guesses``, the model-indexed contact parameters, and no forces are kept)."""
        system = self.system
        n = system.layout.n
        if system.link_rows.size:
            links = links_state(system, q, u)
            approach, gradient = -links.gap, -links.w_normal
        else:
            approach, gradient = np.zeros(0), np.zeros((0, 0))
        kinematics = {}
        if ev is not None:
            kinematics = {f.index: f.contact for f in ev.compliant if f.index in self.others}
        a_c = np.full(len(self.others), -np.inf)
        g_c = np.zeros((len(self.others), n))
        for j, k in enumerate(self.others):
            if ev is None:
                guess = None if guesses is None else guesses.get(k)
                try:
                    kin = contact_at(system, k, q, u, guess, remainder=False)
                except ContactLeftStructure:
                    kin = None
            else:
                kin = kinematics[k]
            if kin is not None:
                a_c[j], g_c[j] = -kin.gap, -kin.w_normal
        forces = None
        if ev is not None:
            forces = np.zeros(self.size)
            forces[self.position] = [f.normal_force for f in ev.compliant]
        return ElasticState(approach, gradient, a_c, g_c, forces)

    def generalized(self, state: ElasticState, values) -> np.ndarray:
        """(n,) the sum of values_j d a_j / d q over the laws (values (L + C,), links first)."""
        out = np.zeros(self.system.layout.n)
        n_links = state.approach.size
        if n_links:
            np.add.at(out, self.dofs, values[:n_links, None] * state.gradient)
        if state.contact_approach.size:
            out += values[n_links:] @ state.contact_gradient
        return out

    def elastic_force(self, state: ElasticState) -> np.ndarray:
        """(n,) the gradient of the laws' elastic energy at the state, N: c a^p d a / d q."""
        return self.generalized(state, self.slope(self._approach(state)))

    def damping_force(self, state: ElasticState) -> np.ndarray:
        """(n,) the laws' force beyond the elastic one, (F - c a^p) d a / d q, N (their
        damping; a clamped law's too): it does the work the laws dissipate."""
        a = self._approach(state)
        return self.generalized(state, state.normal_force - self.slope(a))

    def secant(self, a0, a1) -> np.ndarray:
        """(phi(a_1) - phi(a_0)) / (a_1 - a_0) per law (links first), N: c a^p where a_1 = a_0;
        while both approaches are positive c / (p + 1) a_0^(p+1) expm1((p + 1) log1p(x)) /
        (a_1 - a_0), x = (a_1 - a_0) / a_0, without the cancellation of the energies'
        difference (for p = 1 that is c (a_0 + a_1) / 2); zero where both are <= 0."""
        a0, a1 = np.asarray(a0, dtype=float), np.asarray(a1, dtype=float)
        da = a1 - a0
        out = self.slope(a0)
        c, p1 = self.stiffness, self.exponent + 1.0
        both = (a0 > 0.0) & (a1 > 0.0) & (da != 0.0)
        if np.any(both):
            x = da[both] / a0[both]
            rise = a0[both] ** p1[both] * np.expm1(p1[both] * np.log1p(x))
            out[both] = c[both] / p1[both] * rise / da[both]
        # one end open: the energy of the other over the step's change (|da| >= its approach)
        one = ((a0 > 0.0) != (a1 > 0.0)) & np.isfinite(da)
        out[one] = (self.energy(a1) - self.energy(a0))[one] / da[one]
        out[(a0 <= 0.0) & (a1 <= 0.0)] = 0.0
        return out

    @staticmethod
    def _approach(state: ElasticState) -> np.ndarray:
        return np.concatenate([state.approach, state.contact_approach])

    def averaged(self, s0: ElasticState, s1: ElasticState, mid: ElasticState, dq):
        """(F (n,), rows): the discrete gradient F of the laws' elastic energy between s0 and
        s1 (mid: the midpoint's state; dq = q1 - q0), N, and rows, by model index of each
        Compliant contact that is not a link, (its -G_a (n,), ``CompliantForce.force_row``;
        its ``secant_slope``). Its work dq . F is E(q1) - E(q0) to round-off:
        per law F_j = (phi(a_1) - phi(a_0)) / (a_1 - a_0) G_j, with G_j the discrete gradient
        of its approach on its own DOFs, G_j = d a_j / d q (q_mid) + (a_1 - a_0 - d a_j / d q
        (q_mid) . dq_j) dq_j / |dq_j|^2 (``ConsistentContacts.discrete_gradient``'s form)."""
        a0, a1, a_mid = self._approach(s0), self._approach(s1), self._approach(mid)
        da = a1 - a0
        finite = np.isfinite(da)
        secant = self.secant(a0, a1)
        out = np.zeros(self.system.layout.n)
        n_links = s0.approach.size
        if n_links:
            out += link_averaged_force(
                self.dofs,
                self.first,
                np.ascontiguousarray(mid.gradient, dtype=float),
                np.ascontiguousarray(da[:n_links]),
                np.ascontiguousarray(dq, dtype=float),
                np.ascontiguousarray(secant[:n_links]),
                LAW_SWITCH,
                out.size,
            )
        rows = {}
        for j, k in enumerate(self.others):
            i = n_links + j
            g = mid.contact_gradient[j]
            if not (finite[i] and np.isfinite(a_mid[i])):
                continue  # no closest point at one end: the plain forces
            on = (s0.contact_gradient[j] != 0.0) | (s1.contact_gradient[j] != 0.0) | (g != 0.0)
            step = np.where(on, dq, 0.0)
            size2 = float(step @ step)
            if size2 > LAW_SWITCH**2:
                g = g + (da[i] - float(g @ dq)) / size2 * step
            out += secant[i] * g
            rows[k] = -g, self.secant_slope(i, a0[i], a1[i], a_mid[i], secant[i])
        return out, rows

    def secant_slope(self, i: int, a0: float, a1: float, a_mid: float, secant: float) -> float:
        """2 d secant / d a_1 - phi''(a_1) of law i (N/m): what the tangent of the force
        2 e_avg - e_used,n in the equations at t_n+1 differs by from the law's own at a_1
        (0 for a linear law between two steps of one state; ``AveragedForces.step``)."""
        c, p = self.stiffness[i], self.exponent[i]

        def second(a):
            return c * p * a ** (p - 1.0) if a > 0.0 else 0.0

        da = a1 - a0
        if abs(da) <= 1e-6 * max(abs(a0), abs(a1)):
            return second(a_mid) - second(a1)  # 2 d secant / d a_1 -> phi''(a_mid)
        slope1 = c * max(a1, 0.0) ** p
        return 2.0 * (slope1 - secant) / da - second(a1)


__all__ = ["LAW_SWITCH", "ElasticState", "ForceLaws"]
