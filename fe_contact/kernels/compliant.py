"""The compliant contacts of body points on linear beams and of pairs of curved profiles
(``laws.Compliant``: the normal force, the continuous friction law of 000 eq. 10 of a pair,
and its rolling row W_T u = 0 while it rolls, ``rolling_rows``) in the compiled step (numba).

A compliant contact is a force law, not a constraint row: at the closest point of the beam
(``kernels.beam.closest`` and ``contact``, the sliding contacts' kinematics) its approach is
a = -g, a' = -W_N u, its force F_n(a, a') (``laws.compliant.compliant_normal_force``, the
Python step's law too) enters the equations of motion as W_N^T F_n (``forces`` holds minus
it), and while it pushes its tangent U K U^T (U = [W_N, W_T], K = beta' K_q + gamma' K_u with
K_q, K_u of ``coupling.contact.CompliantForce.tangent``) borders the iteration matrix as
``steppers.compliant.bordered_solve`` borders it. Its energy c a^(p+1) / (p + 1) is elastic,
(F_n - c a^p) a' is dissipated.

The closest points' searches start from the contact parameters s_guess[n_c:] after the
sliding contacts' (``kernels.step.iterate`` moves them to each iterate's, as the Python step
moves the run's ``Workspace`` guesses: started from the committed point instead, the search
stops within its tolerance elsewhere, and on 0.25 m elements the third iterate's correction
came out 1.2e-7 against 3.6e-9, one iterate more).

A pair of curved profiles (``kernels.profile_pair``: a tree body's, a beam-carried body's or
a fixed profile against another) has the same law on its gap; its two parameters (eta_l, the
target's, and eta_k, the profile's) start from s_guess[start + i] and s_guess[start + n_p + i]
(``keep_parameters`` writes them back), and its record holds eta_k in the field
``profile_pair.ETA``.

``C``, their constant tuple (P[9] of ``kernels.step``): (body (n_p,) int, local point (n_p, 2),
beam (n_p,) int, side (n_p,), law (n_p, 7): exponent p, stiffness c, damping D, friction
coefficient mu and v0 of the continuous law (000 eq. 10; mu = 0: none), the slip speed v0 / 2
below which a pushing rolling contact starts to roll (0: a law that does not roll;
``rolling_entry``), the static coefficient mu_s of its rolling (``rolling_release``)), then the
profile pairs' arrays of ``kernels.profile_pair``: frame kind (n_p, 2) int (-1: a body point on
a beam), frame index (n_p, 2) int, frame s (n_p, 2), curve (2 n_p, 4) int, curve range
(2 n_p, 2), knots, control points), all empty for a system without such contacts.
"""

from __future__ import annotations

import numpy as np

from ..laws.compliant import compliant_elastic, compliant_normal_force
from .beam import GAP, N_FIELDS, REM_T, VN, VT, S, closest, contact
from .jit import inner
from .profile_pair import ETA, pair_rates, pair_record
from .tree import kinematics, point

# the columns of the laws' values (``compliant_states``): F_n, dF_n/da, dF_n/da', elastic
# energy, damping power, then the friction of the continuous law (000 eq. 10): F_t, the
# factor f = F_t / -F_n, its slope df/dv_t, the friction power -F_t v_t
FORCE, SLOPE, RATE_SLOPE, ENERGY, POWER, FRICTION, FACTOR, FACTOR_SLOPE, FRICTION_POWER = range(9)
N_VALUES = 9


@inner
def compliant_states(P, q, u, s_guess, start):
    """Every compliant contact at (q, u): (status, records (n_p, N_FIELDS), W_N and W_T
    (n_p, n), law values (n_p, 5)); the closest points' searches start at s_guess[start + i]
    (NaN or beyond the array: afresh; a profile pair's eta_k at s_guess[start + n_p + i]).
    status 0 (OK), or 1 (LEFT) when a closest point lies beyond its beam's end (the Python
    step then has no force there) or a profile pair has no contact point."""
    T, B, nt, C = P[0], P[1], P[6], P[9]
    body, local, beam, side, law = C[0], C[1], C[2], C[3], C[4]
    pairs = (C[5], C[6], C[7], C[8], C[9], C[10], C[11])
    n = q.size
    n_p = body.size
    rec = np.zeros((n_p, N_FIELDS))
    wn = np.zeros((n_p, n))
    wt = np.zeros((n_p, n))
    values = np.zeros((n_p, N_VALUES))
    if n_p == 0:
        return 0, rec, wn, wt, values
    qt = q[:nt].copy()
    ut = u[:nt].copy()
    ang, rot, origin, _, omega, ov, terms = kinematics(T, qt, ut)
    A, rev = T[0], T[3]
    jw = np.empty(nt)
    hess = np.zeros((3, n))
    for i in range(n_p):
        if pairs[0][i, 0] >= 0:  # a pair of curved profiles (``kernels.profile_pair``)
            guess_l = s_guess[start + i] if start + i < s_guess.size else np.nan
            at = start + n_p + i
            guess_k = s_guess[at] if at < s_guess.size else np.nan
            kin = (ang, rot, origin, omega, ov, terms)
            if pair_record(T, B, pairs, i, q, u, ut, kin, guess_k, guess_l, rec[i], wn[i], wt[i]):
                return 1, rec, wn, wt, values
            _law_values(law[i], rec[i], values[i])
            continue
        b = body[i]
        p, v, J, a = point(T, b, local[i, 0], local[i, 1], ut, rot, origin, omega, ov, terms)
        for k in range(nt):
            jw[k] = A[b, k] * rev[k]
        guess = s_guess[start + i] if start + i < s_guess.size else np.nan
        s, inside = closest(B, beam[i], p[0], p[1], q, guess, 1e-13)
        if not inside:
            return 1, rec, wn, wt, values
        contact(
            B,
            beam[i],
            s,
            q,
            u,
            side[i],
            0.0,
            p,
            v,
            J,
            a,
            jw,
            omega[b],
            nt,
            rec[i],
            wn[i],
            wt[i],
            hess,
        )
        _law_values(law[i], rec[i], values[i])
    return 0, rec, wn, wt, values


@inner
def _law_values(law, rec, values):
    """A contact's law values (``FORCE`` .. ``FRICTION_POWER``) from its record, into values
    (N_VALUES,): ``coupling.contact.compliant_force`` with law = (exponent, stiffness,
    damping, mu, v0); the friction of the continuous law (000 eq. 10, ``ContactLaw.
    friction_factor``, ``friction_slope``) when mu > 0 (v0 > 0 then)."""
    approach = -rec[GAP]
    rate = -rec[VN]
    exponent, stiffness, damping = law[0], law[1], law[2]
    force, slope, rate_slope = compliant_normal_force(exponent, stiffness, damping, approach, rate)
    values[FORCE] = force
    values[SLOPE] = slope
    values[RATE_SLOPE] = rate_slope
    if rec[GAP] < 0.0:  # closed: its energy and damping power (``compliant_force``)
        values[ENERGY] = compliant_elastic(exponent, stiffness, approach)
        values[POWER] = (force - stiffness * approach**exponent) * rate
        mu, v0 = law[3], law[4]
        if mu > 0.0:
            v_t = rec[VT]
            speed = abs(v_t)
            factor = np.sign(v_t) * -np.expm1(-speed / v0) * mu
            values[FACTOR] = factor
            values[FACTOR_SLOPE] = mu * np.exp(-speed / v0) / v0
            values[FRICTION] = -factor * force
            values[FRICTION_POWER] = -values[FRICTION] * v_t


# a compliant contact's mode in the compiled step (``step_state.ContactMode``'s FORCE_LAW,
# ROLL and RELEASED): under its force law, rolling (a row W_T u = 0), just released
FORCE_LAW, ROLLING, RELEASED = 0, 1, 2


@inner
def rolling_entry(P, rec, values, mode) -> bool:
    """True when a compliant contact with rolling (``Compliant.rolling``) under its force law
    (mode (n_p,) FORCE_LAW) would start to roll at the state of the records rec (n_p,
    N_FIELDS) and law values (n_p, N_VALUES) of ``compliant_states``: it pushes (F_n > 0) and
    its slip speed |v_t| is below v0 / 2 (``ContactModes.indicator``, event "roll")."""
    law = P[9][4]
    for i in range(rec.shape[0]):
        if mode[i] != FORCE_LAW:
            continue
        if values[i, FORCE] > 0.0 and abs(rec[i, VT]) < law[i, 5]:
            return True
    return False


@inner
def rolling_release(P, values, mode, lam, first) -> bool:
    """True when a rolling contact (mode ROLLING) is released at the state of the law values
    (n_p, N_VALUES) and multipliers lam: its friction force, the multiplier of its rolling
    row (rows from ``first`` on, in the contacts' order), leaves the static cone,
    mu_s F_n - |lambda_T| < 0 (``ContactModes.indicator``, event "release")."""
    law = P[9][4]
    row = first
    for i in range(mode.size):
        if mode[i] != ROLLING:
            continue
        if law[i, 6] * values[i, FORCE] - abs(lam[row]) < 0.0:
            return True
        row += 1
    return False


@inner
def rearmed(P, rec, values, mode):
    """The modes after a step that ends at the records rec and law values of
    ``compliant_states`` (``ContactModes.rearm``): a released contact (RELEASED) is under its
    force law again once it no longer pushes or its slip speed |v_t| has reached v0 / 2."""
    law = P[9][4]
    out = mode.copy()
    for i in range(mode.size):
        if mode[i] == RELEASED:
            if not values[i, FORCE] > 0.0 or abs(rec[i, VT]) >= law[i, 5]:
                out[i] = FORCE_LAW
    return out


@inner
def roll_off_friction(values, mode):
    """The law values (n_p, N_VALUES) of ``compliant_states`` with no friction for the
    rolling contacts (mode ROLLING), in place: their law's friction is off while they roll,
    their friction force is the multiplier of their row (``compliant_forces``: the law with
    mu = 0)."""
    for i in range(mode.size):
        if mode[i] == ROLLING:
            values[i, FRICTION] = 0.0
            values[i, FACTOR] = 0.0
            values[i, FACTOR_SLOPE] = 0.0
            values[i, FRICTION_POWER] = 0.0


@inner
def rolling_rows(P, q, u, rec, wt, mode, qb, wb):
    """The rows W_T u = 0 of the rolling contacts (mode ROLLING; 000 eq. 23), in the contacts'
    order, as ``coupling.constraints.evaluate_state`` appends them: (status, phi (r,), J (r, n)
    (= J_Sigma), A (r,)) with J = W_T of the records rec and rows wt of ``compliant_states``
    at (q, u), A the tangent remainder by the central differences of
    ``coupling.profile_contact.curved_contact`` (along u over 1e-6 / max|u|) and phi the
    trapezoid of W_T u since the committed state qb, whose W_T is wb (n_p, n)
    (``constraints.rolling_position``). status 1 when a rolling contact has no contact point
    or is a pair far apart (the Python step then takes it)."""
    T, B, nt = P[0], P[1], P[6]
    pairs = (P[9][5], P[9][6], P[9][7], P[9][8], P[9][9], P[9][10], P[9][11])
    n = q.size
    r = 0
    for i in range(mode.size):
        if mode[i] == ROLLING:
            r += 1
    phi = np.zeros(r)
    jac = np.zeros((r, n))
    rem = np.zeros(r)
    if r == 0:
        return 0, phi, jac, rem
    size = 0.0
    for k in range(n):
        size = max(size, abs(u[k]))
    tiny = size < 1e-290  # 1e-6 / size would overflow (``curved_contact``)
    eps = 1e-6 if tiny else 1e-6 / size
    step = np.empty(n)
    for k in range(n):
        step[k] = eps * (u[k] / size) if tiny else eps * u[k]
    ut = u[:nt].copy()
    row = 0
    for i in range(mode.size):
        if mode[i] != ROLLING:
            continue
        if pairs[0][i, 0] < 0 or np.isnan(rec[i, ETA]):
            return 1, phi, jac, rem
        a_t = 0.0
        if size > 0.0:
            rates = np.full(4, np.nan)
            pair_rates(T, B, pairs, i, q, u, ut, nt, rec[i], step, rates)
            difference = rates[1] - rates[3]
            a_t = difference * (size / 2e-6) if tiny else difference / (2.0 * eps)
        psi = 0.0
        for k in range(n):
            jac[row, k] = wt[i, k]
            psi += (wb[i, k] + wt[i, k]) * (q[k] - qb[k])
        phi[row] = 0.5 * psi
        rem[row] = a_t
        rec[i, REM_T] = a_t
        row += 1
    return 0, phi, jac, rem


@inner
def keep_parameters(P, rec, s_guess, start):
    """The contact parameters of the compliant contacts' records rec (n_p, N_FIELDS) into
    s_guess[start + i] (and a profile pair's eta_k into s_guess[start + n_p + i]), where the
    next searches start (the run's ``Workspace``)."""
    kind = P[9][5]
    n_p = rec.shape[0]
    for i in range(n_p):
        s_guess[start + i] = rec[i, S]
        if kind[i, 0] >= 0:
            s_guess[start + n_p + i] = rec[i, ETA]


@inner
def subtract_compliant_forces(wn, wt, values, forces):
    """forces (n,) minus W_N^T F_n + W_T^T F_t (F_t = 0 without friction) of every compliant
    contact that pushes, in place (``coupling.constraints.evaluate_state``)."""
    for i in range(values.shape[0]):
        force = values[i, FORCE]
        if force > 0.0:
            friction = values[i, FRICTION]
            for k in range(forces.size):
                forces[k] -= wn[i, k] * force + wt[i, k] * friction


@inner
def compliant_border(jac, js, m, wn, wt, values, bp, gp):
    """(J_b, J_Sigma,b): the first m rows of jac and js (those of the constraints), then two
    rows per compliant contact that pushes, K U^T in J_b and -U^T in J_Sigma,b with U = [W_N,
    W_T] and K = bp K_q + gp K_u (``CompliantForce.tangent``): [[bp dF/da + gp dF/da', 0],
    [-f (bp dF/da + gp dF/da'), gp F_n df/dv_t]] with the friction factor f (0 without
    friction: the second row zero), then the rest of jac's and
    js's rows (a curvature border): ``compliant.bordered_solve``'s order. Returns (J_b,
    J_Sigma,b, the number of rows added)."""
    rows, n = jac.shape
    pushing = 0
    for i in range(values.shape[0]):
        if values[i, FORCE] > 0.0:
            pushing += 1
    jac_b = np.zeros((rows + 2 * pushing, n))
    js_b = np.zeros((rows + 2 * pushing, n))
    jac_b[:m] = jac[:m]
    js_b[:m] = js[:m]
    row = m
    for i in range(values.shape[0]):
        if not values[i, FORCE] > 0.0:
            continue
        k00 = bp * values[i, SLOPE] + gp * values[i, RATE_SLOPE]
        for k in range(n):
            jac_b[row, k] = k00 * wn[i, k] + 0.0 * wt[i, k]
            js_b[row, k] = -wn[i, k]
            js_b[row + 1, k] = -wt[i, k]
        f = values[i, FACTOR]
        if f != 0.0 or values[i, FACTOR_SLOPE] != 0.0:  # the continuous law's friction
            k10 = bp * (-f * values[i, SLOPE]) + gp * (-f * values[i, RATE_SLOPE])
            k11 = gp * (values[i, FORCE] * values[i, FACTOR_SLOPE])
            for k in range(n):
                jac_b[row + 1, k] = k10 * wn[i, k] + k11 * wt[i, k]
        row += 2
    jac_b[row:] = jac[m:]
    js_b[row:] = js[m:]
    return jac_b, js_b, 2 * pushing


@inner
def compliant_sums(values):
    """(elastic energy, damping power, friction power) of the compliant contacts, J, W and W,
    summed in their order from their law values (``compliant_states``). Kept apart from the
    search: a kernel that calls ``compliant_states`` compiles the beam's contact kinematics
    into its own code."""
    elastic = 0.0
    power = 0.0
    friction = 0.0
    for i in range(values.shape[0]):
        elastic += values[i, ENERGY]
        power += values[i, POWER]
        friction += values[i, FRICTION_POWER]
    return elastic, power, friction
