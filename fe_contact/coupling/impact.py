"""The impact problem of one instant, written once: Newton's and Poisson's impact laws with
Coulomb friction on the impulses, for every stepper that meets an impact.

Given the Delassus matrix ``G = W^T M^-1 W`` of the rows in the impact (W = [W_N, W_T], and for
``contact_impact`` the closed constraint rows after them), the relative velocities ``gdot``
before the impact and the contact law, the impulses P make the velocities ``G P + gdot``:

* Newton's law (Eugster-Glocker (004), sec. 4.5; Glocker's inclusions): with
  ``xi = gdot+ + e gdot-`` (e = e_N on the normal rows, e_T on the tangential ones),
  ``P_N >= 0 _|_ xi_N >= 0`` and ``-P_T in mu P_N Sign(xi_T)`` (004 eqs. (26)-(27)). It is the
  contact problem ``xi = G P + c`` of ``setvalued`` with ``c = (1 + e) gdot``: the problem of a
  Moreau-Jean step (``steppers.moreau``) without the smooth forces of the step (h -> 0);
  ``newton_impact``.
* Poisson's law (Slavic-Boltezar (003), sec. 2.2, after Pfeiffer-Glocker): a compression phase
  to zero approach (Newton's with e = 0), then an expansion of ``e_N`` times the compression
  impulse (``e_T``, or ``nu e_T`` where the contact sticks, tangentially) corrected so that no
  contact penetrates; ``poisson_impact``.
* ``contact_impact``: the impact of one contact whose gap has just closed while other rows
  are closed and held as equations (J u+ + phi_t = 0: joints, drives, other contacts), the
  phases the law gives (``Unilateral.impact_phases``: Newton's one, Poisson's compression and
  expansion); the generalised-alpha stepper's impact (``steppers.impulses.impact_jump``).

The energy lost in a phase is ``-P . (gdot_start + gdot_end) / 2`` (003 eqs. (18)-(20)), exactly
the drop of kinetic energy of ``u+ = u- + M^-1 W P`` when the rows carry no prescribed
velocity. It is >= 0 for a plastic impact (e = 0: ``-P . gdot+ >= 0`` by the laws and
``P^T G P >= 0``) and for a point on a line (G diagonal: the (1 - e^2) terms and friction);
with restitution where rows couple (G not diagonal) the laws do not guarantee it (Glocker,
Multibody Syst. Dyn. 2013, gives conditions), and the steppers book what it is.

Why Moreau-Jean's per-step solve stays in ``steppers.moreau``: its ``c`` holds, besides
``e gamma_A``, the free velocity of the step's smooth forces, its problem takes every closed
contact of the step (persistent ones too) warm-started from the last step, and its solver
settings (tolerance, compiled kernels) are the stepper's. The problem is ``newton_impact``'s
at h = 0; ``newton_impact`` solves it by Lemke's pivoting first (``solve_coulomb``: exact for
the few contacts of an impact), with the step's cascade (``setvalued.solve_contact_impulses``)
behind it.

Why ``contact_impact`` is not ``newton_impact`` on the augmented rows: it holds the closed
rows as equations (they may pull: a drive, a joint), which the inclusions do not, and the
Poisson expansion of one contact prescribes P_N = e_N P_NC exactly. For a point on a line
both give the closed form (Newton's law; Poisson's when it slides through with e_T = e_N:
``tests/test_impact.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels import rough as kernels
from ..kernels.rough_steps import blas_matvec, poisson_expansion
from .setvalued import solve_contact_impulses

__all__ = [
    "ContactImpact",
    "ImpactImpulses",
    "contact_impact",
    "newton_impact",
    "phase_impulse",
    "phase_loss",
    "poisson_impact",
    "solve_coulomb",
]


def solve_coulomb(delassus, offset, mu, time=None, tol: float = 1e-9) -> np.ndarray:
    """Impulses (2m,) = (P_N, P_T) of ``xi = G P + c`` under the unilateral and Coulomb laws,
    ``mu`` (m,): Lemke's pivoting on the LCP ``setvalued.coulomb_lcp`` (with G scaled by its
    largest diagonal entry: the pivots of G ~ 1e6 s/kg against c ~ 0.1 m/s lose the degenerate
    ties otherwise; ``kernels.rough.coulomb_impulses``), accepted when the laws
    hold to ``tol`` relative (``setvalued.natural_residual``, as in
    ``setvalued.solve_contact_impulses``).

    Two closed contacts a few nanometres apart on nearly parallel segments make G singular
    beyond what the pivoting resolves in floating point; then the LCP is solved again with the
    compliance G + eps max(diag G) I, eps = 1e-10, 1e-8, 1e-6, whose solution is accepted when
    it meets the laws with G itself up to that compliance's velocity eps max(diag G) |P| (for
    the pin at most 3e-7 m/s against slip velocities of 0.3 m/s), and at last by
    ``setvalued.solve_contact_impulses``, whose ContactSolverError reports a failure."""
    G = np.ascontiguousarray(delassus, dtype=float)
    c = np.ascontiguousarray(offset, dtype=float)
    mu = np.ascontiguousarray(mu, dtype=float).reshape(-1)
    m = mu.size
    if G.shape != (2 * m, 2 * m) or c.shape != (2 * m,):
        raise ValueError(
            f"solve_coulomb: delassus {G.shape} and offset {c.shape} for {m} friction "
            f"coefficients; allowed: shapes ({2 * m}, {2 * m}) and ({2 * m},)"
        )
    p, solved = kernels.checked_coulomb_impulses(G, c, mu, float(tol))
    if solved:
        return p
    res = solve_contact_impulses(G, c, mu, time=time)
    return np.concatenate((res.normal, res.tangent))


@dataclass(frozen=True)
class ImpactImpulses:
    """Result of ``poisson_impact`` or ``newton_impact`` for m contacts, all (m,) in N s or m/s.

    normal_compression, tangent_compression, normal_expansion, tangent_expansion : impulses
    (Newton's law has one phase, reported as the compression; its expansion is zero).
    gdot_before, gdot_compression, gdot_after : (2m,) relative velocities (N rows, then T) at
    the start, at the end of compression and at the end of expansion.
    loss_compression, loss_expansion : (m,) J, 003 eqs. (18)-(20).
    """

    normal_compression: np.ndarray
    tangent_compression: np.ndarray
    normal_expansion: np.ndarray
    tangent_expansion: np.ndarray
    gdot_before: np.ndarray
    gdot_compression: np.ndarray
    gdot_after: np.ndarray
    loss_compression: np.ndarray
    loss_expansion: np.ndarray

    @property
    def total(self) -> np.ndarray:
        """(2m,) the whole impulse (Lambda_N, Lambda_T) of both phases."""
        return np.concatenate(
            (
                self.normal_compression + self.normal_expansion,
                self.tangent_compression + self.tangent_expansion,
            )
        )

    @property
    def loss(self) -> np.ndarray:
        """(m,) J, the energy lost at each contact over both phases."""
        return self.loss_compression + self.loss_expansion


def phase_loss(impulse, start, end) -> np.ndarray:
    """(m,) J: the energy lost at each of m contacts in a phase of impulses ``impulse`` (2m,)
    between the relative velocities ``start`` and ``end`` (2m,), -P . (start + end) / 2 per
    contact (003 eqs. (18)-(20))."""
    m = impulse.size // 2
    work = impulse * 0.5 * (start + end)
    return -(work[:m] + work[m:])


def newton_impact(delassus, gdot, mu, e_n, e_t=0.0, time=None) -> ImpactImpulses:
    """Impact with friction by Newton's law on m contacts (module docstring), 004 sec. 4.5:
    ``xi = gdot+ + e gdot-`` with ``P_N >= 0 _|_ xi_N >= 0``, ``-P_T in mu P_N Sign(xi_T)``.

    delassus : (2m, 2m) G = W^T M^-1 W with W = [W_N, W_T]. gdot : (2m,) relative velocities
    before the impact (N rows, then T) in m/s. mu, e_n, e_t : (m,) or scalars, e in [0, 1].
    """
    G = np.asarray(delassus, dtype=float)
    g_a = np.asarray(gdot, dtype=float)
    m = g_a.size // 2
    mu = np.broadcast_to(np.asarray(mu, dtype=float), (m,)).copy()
    e = np.concatenate(np.broadcast_arrays(np.broadcast_to(e_n, (m,)), np.broadcast_to(e_t, (m,))))
    p = solve_coulomb(G, (1.0 + e) * g_a, mu, time)
    g_e = G @ p + g_a
    zero = np.zeros(m)
    return ImpactImpulses(
        normal_compression=p[:m],
        tangent_compression=p[m:],
        normal_expansion=zero,
        tangent_expansion=zero.copy(),
        gdot_before=g_a,
        gdot_compression=g_e,
        gdot_after=g_e,
        loss_compression=phase_loss(p, g_a, g_e),
        loss_expansion=np.zeros(m),
    )


def poisson_impact(
    delassus, gdot, mu, eps_n: float, eps_t: float, nu: float = 0.0, stick_tol=1e-12, time=None
) -> ImpactImpulses:
    """Impact with friction by Poisson's law, Slavic-Boltezar (003), eqs. (14)-(15), (18)-(20):

    * compression: gdot_C = G Lambda_C + gdot_A with Lambda_NC >= 0 _|_ gdot_NC >= 0 and
      Coulomb's law |Lambda_TC| <= mu Lambda_NC, Lambda_TC = -mu Lambda_NC sign(gdot_TC) where
      gdot_TC != 0;
    * expansion: Lambda_E = Lambda_E0 + dLambda with Lambda_NE0 = eps_N Lambda_NC,
      Lambda_TE0 = eps_T Lambda_TC for contacts that slide at the end of compression and
      nu eps_T Lambda_TC for those that stick (nu: reversibility of the tangential impulse
      stored at a sticking contact), and dLambda satisfying the compression laws (with the cone
      |dLambda_T| <= mu dLambda_N) for gdot_E = G dLambda + (gdot_C + G Lambda_E0). 003 only
      names nu (after Pfeiffer-Glocker); with nu = 1 this is the inequality form of Poisson's
      law of Glocker (Multibody Syst. Dyn. 2013, part II). A contact that slides through the
      impact thus carries -mu (1 + eps_T) Lambda_NC, Coulomb's law for the whole impulse when
      eps_T = eps_N. With eps_T <= eps_N the impulse of each phase stays in the friction cone.

    Each phase is the complementarity problem of ``setvalued`` solved by ``solve_coulomb``;
    the expansion's start is ``kernels.rough_steps.poisson_expansion``, which the compiled
    event-driven step (``poisson_jump``) takes too.

    delassus : (2m, 2m) G = W^T M^-1 W with W = [W_N, W_T]. gdot : (2m,) relative velocities
    before the impact (N rows, then T) in m/s. mu : (m,). eps_n, eps_t, nu : in [0, 1].
    stick_tol : m/s, |gdot_TC| below which a contact sticks at the end of compression.
    """
    G = np.ascontiguousarray(delassus, dtype=float)
    g_a = np.ascontiguousarray(gdot, dtype=float)
    mu = np.asarray(mu, dtype=float)
    m = mu.size
    p_c = solve_coulomb(G, g_a, mu, time)
    g_c, p_e0 = poisson_expansion(G, p_c, g_a, eps_n, eps_t, nu, stick_tol)
    p_d = solve_coulomb(G, g_c + blas_matvec(G, p_e0), mu, time)
    p_e = p_e0 + p_d
    g_e = blas_matvec(G, p_e) + g_c
    return ImpactImpulses(
        normal_compression=p_c[:m],
        tangent_compression=p_c[m:],
        normal_expansion=p_e[:m],
        tangent_expansion=p_e[m:],
        gdot_before=g_a,
        gdot_compression=g_c,
        gdot_after=g_e,
        loss_compression=phase_loss(p_c, g_a, g_c),
        loss_expansion=phase_loss(p_e, g_c, g_e),
    )


@dataclass(frozen=True)
class ContactImpact:
    """Result of ``contact_impact`` on k rows (normal, tangential, then the held rows).

    impulse : (k,) N s, the whole impulse of all phases (P_N, P_T, the held rows' impulses).
    phases : tuple of (k,) N s, the impulse of each phase (``Unilateral.impact_phases``).
    velocity_after : (k,) m/s (or rad/s on a held joint row), W^T u+ (with the held rows'
    phi_t if the caller added it to the velocities before).
    loss : J, the energy lost at the contact, -P_c . (gdot_c- + gdot_c+) / 2 over its normal
    and tangential rows (>= 0 for these laws; the held rows' part is the work of their
    impulses, the caller's to book).
    """

    impulse: np.ndarray
    phases: tuple
    velocity_after: np.ndarray
    loss: float


def contact_impact(delassus, velocity, law, name: str = "", time: float = 0.0) -> ContactImpact:
    """The impact of one contact whose gap has just closed (rows 0 and 1: normal and
    tangential) while the rows 2: are held as equations (their velocities kept at zero), with
    the phases ``law.impact_phases()`` (Newton: one; Poisson: compression, then expansion of
    e_N times the compression's normal impulse), each by ``phase_impulse``.

    Its Poisson expansion is not ``poisson_impact``'s: the normal impulse is e_N P_NC exactly
    and the tangential one sticks (v_t back to 0 from the end of compression) or slips within
    mu P_NE, where 003 stores e_T P_TC (nu e_T P_TC at a sticking contact); the two agree for
    a contact that slides through the impact with e_T = e_N (``tests/test_impact.py``).

    delassus : (k, k) W^T M^-1 W of the rows. velocity : (k,) their velocities before the
    impact (the held rows with their phi_t). law : a law with ``impact_phases()`` and ``mu``.
    """
    D = np.asarray(delassus, dtype=float)
    pre = np.asarray(velocity, dtype=float)
    P = np.zeros(pre.size)
    phases = []
    for phase in law.impact_phases():
        normal = None if phase.expansion is None else phase.expansion * P[0]
        e_n, e_t = phase.restitution_normal, phase.restitution_tangent
        p = phase_impulse(D, pre + D @ P, law.mu, e_n, e_t, normal, name, time)
        phases.append(p)
        P = P + p
    after = pre + D @ P
    loss = -0.5 * float(P[:2] @ (pre[:2] + after[:2]))
    return ContactImpact(impulse=P, phases=tuple(phases), velocity_after=after, loss=loss)


def phase_impulse(D, pre, mu, e_n, e_t, normal_impulse=None, name="", t=0.0) -> np.ndarray:
    """Impulses (P_N, P_T, P_rows) of one impact phase: the closed rows keep J u+ + phi_t = 0;
    normally g'+ = -e_N g'- (or, with ``normal_impulse``, P_N given: an expansion phase);
    tangentially stick, v_t+ = -e_T v_t- with |P_T| <= mu P_N, else slip, P_T = -sign mu P_N
    with sign the direction of xi_T = v_t+ + e_T v_t- (Glocker's inclusion with Newton's law,
    as ``newton_impact``; the direction of v_t+ when e_T = 0), tried in that order. With
    e_T > 0 a contact with |v_t-| < mu (1 + e_N) |v_n-| < (1 + e_T) |v_t-| can neither stick
    nor keep its slip direction: it slides and v_t reverses (to less than e_T |v_t-|).
    ``pre`` : the velocities of the rows before the phase (normal, tangential, closed rows),
    D their Delassus matrix. RuntimeError naming the contact ``name`` and the time ``t`` (s)
    when neither holds."""
    v_n, v_t = pre[0], pre[1]
    target = -pre.copy()
    if normal_impulse is None:
        target[0] = -(1.0 + e_n) * v_n
    candidates = [("stick", 0.0)]
    if mu > 0.0:
        s0 = np.sign(v_t) or 1.0
        candidates += [("slip", s0), ("slip", -s0)]
    else:
        candidates = [("slip", 0.0)]
    for mode, sign in candidates:
        A = D.copy()
        rhs = target.copy()
        if normal_impulse is not None:
            A[0] = 0.0
            A[0, 0], rhs[0] = 1.0, normal_impulse
        if mode == "stick":
            rhs[1] = -(1.0 + e_t) * v_t
        else:  # P_T = -sign mu P_N: replace the tangential row
            A[1] = 0.0
            A[1, 0], A[1, 1] = sign * mu, 1.0
            rhs[1] = 0.0
        try:
            p = np.linalg.solve(A, rhs)
        except np.linalg.LinAlgError:
            continue
        after = pre + D @ p
        if mode == "stick" and abs(p[1]) <= mu * p[0] * (1.0 + 1e-12) + 1e-15:
            return p
        if mode == "slip" and (sign == 0.0 or sign * (after[1] + e_t * v_t) >= -1e-12):
            return p
    raise RuntimeError(f"no impact solution (stick or slip) for contact {name!r} at t = {t:.6g} s")
