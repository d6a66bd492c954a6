"""Consecutive quiet steps of the generalised-alpha stepper in one compiled call (numba).

``steps`` takes up to K full steps of h from the committed state, each exactly as
``GeneralizedAlpha.step`` takes a step in which nothing happens: the Newton iteration of
``kernels.step.iterate``, then the commit (the accelerations, the algorithmic accelerations,
the predictor's previous accelerations), the energies and powers at the new state and the work
of the step by the trapezoidal rule (``GeneralizedAlpha._close_substep``) and the scheme's own loss
(``kernels.numerical``). It records per step
what ``simulate`` keeps, and stops BEFORE committing a step in which the Python step could do
anything else: a Newton iteration that is not OK, an event indicator of
``ContactModes.first_event`` turning negative (a slipping contact's slip velocity passing
zero, a sticking contact's friction force leaving the static cone, a pushing compliant contact
with rolling slowing below v0 / 2, where it starts to roll, a rolling one's friction force,
the multiplier of its row W_T u = 0, leaving the static cone, a closed unilateral contact's
normal force turning negative, where it opens, an open one's gap turning negative, where it
hits), a bilateral contact's normal force turning negative (the run ends there), cond(J_u)
above the limit at which the partition is chosen anew,
a Painleve margin (``StepAlgebra.check_painleve``) that is not safely positive, a step size
whose iteration matrix is not the factor given, or a step that does not end on t + h. That step
is then taken again by the Python step, which does what it must.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .beam import GAP, H00, N_FIELDS, VT, S
from .compliant import (
    compliant_states,
    compliant_sums,
    keep_parameters,
    rearmed,
    roll_off_friction,
    rolling_entry,
    rolling_release,
)
from .dense import painleve_margin, take_columns
from .evaluate import CLOSED, FAILED, OK, UNILATERAL, normal_rows
from .jit import inner
from .links import link_energies, link_states
from .numerical import step_dissipation
from .pack import unpack
from .step import delassus, flatten, iterate, no_evaluation, state_energies
from .string import held_factor

# why ``steps`` stopped (the index into STOPS)
STOPS = (
    "done",  # all K steps taken
    "newton",  # the iteration did not finish OK (the Python step retries, halves, reports)
    "event",  # a contact event indicator turned negative
    "separation",  # a normal force turned negative
    "partition",  # cond(J_u) above the limit: the partition is chosen anew
    "painleve",  # the Painleve margin is not safely above the error threshold
    "factor",  # the step's iteration matrix is not the factor given
    "time",  # the step does not end on t + h to 1e-12 h
    "diverged",  # single: no convergence in max_newton iterations (as the Python step's)
)
# the Python step raises at a Painleve margin <= 1e-9; a batch stops where it is <= this
PAINLEVE_SAFE = 1e-6
N_ENERGY = 8  # ``kernels.step.packed_energies``, then the links' elastic energy
N_POWER = 4  # drives, loads, damping, friction (``GeneralizedAlpha._power_terms``)


@inner
def _powers(P, q, u, lam, rec, cstate, mu, actuators, pressed, energy, power):
    """The energies (``kernels.step.packed_energies``, then the links' elastic energy:
    ``system.Energies.contact_elastic``) and the powers of ``_power_terms`` at a state, written
    into energy and power; pressed: the compliant contacts' (elastic energy, damping power,
    friction power)
    (``kernels.compliant.compliant_sums``)."""
    e = state_energies(P, q, u, actuators, pressed[1])
    for k in range(7):
        energy[k] = e[k]
    elastic = 0.0  # the links' and the compliant contacts' (``system.Energies.contact_elastic``)
    if P[8][0].shape[0] > 0:
        elastic = link_energies(P[8], q, u)[0]
    if P[9][0].size > 0:
        elastic += pressed[0]
    energy[7] = elastic
    d_joint = P[3]
    nc = cstate.shape[0]
    nrow, d0, _, _ = normal_rows(cstate, d_joint.size)
    drive = 0.0
    for k in range(d_joint.size):
        drive += lam[d0 + k] * u[d_joint[k]]
    friction = 0.0
    for i in range(nc):
        if cstate[i, 1] == 0.0 and nrow[i] >= 0:  # slipping (closed)
            friction += mu[i] * lam[nrow[i]] * cstate[i, 0] * rec[i, VT]
    power[0] = drive
    power[1] = e[6]
    power[2] = e[5]
    power[3] = friction + pressed[2]  # + the compliant contacts' friction power


@njit(cache=True, no_cfunc_wrapper=True)
def steps(
    F,
    I,
    H,
    Lg,
    Gb,
    LM,
    alpha,
    key,
    t,
    h,
    drive,
    actuators,
    ind,
    U,
    q,
    u,
    acc,
    pseudo,
    acc_prev,
    h_prev,
    prev,
    lam_n,
    cstate,
    s,
    rolling,
    tol,
    rtol,
    max_newton,
    mu,
    mu_s,
    cond_limit,
    single,
    out_t,
    out_q,
    out_u,
    out_lam,
    out_rec,
    out_energy,
    out_power,
    out_residual,
    out_newton,
    out_numerical,
    out_acc,
    out_links,
    out_pressed,
):
    """Up to K = out_t.size steps of h from the committed state at t (module docstring).

    alpha = (alpha_m, alpha_f, gamma, beta); key = (beta', gamma') of the factor Lg of G_f
    (``Plan.factor``) and of Gb, G_f in the links' band order (``Plan.link_band``; (1, 0)
    without links: ``kernels.step.iterate``); LM the factor of M_f (Painleve margin; used only when some mu > 0);
    drive (K, n_d, 3) and actuators (K, n_t) at the steps' end times; (q, u, acc, pseudo) the
    committed state, acc_prev and h_prev > 0 the predictor's previous accelerations and step
    (h_prev <= 0: none); prev = (q, u, phi, J, phi_t, t, W_T, Hessian columns, Hessian cores) of
    the committed evaluation and lam_n its multipliers (``kernels.step.iterate``; W_T (n_c +
    n_p, n): the contacts' with rows, then the compliant contacts'); cstate, s and rolling (the
    compliant contacts' modes) as ``kernels.step.iterate`` takes them, rolling updated in
    place to the last step taken's (a released contact under its force law again:
    ``kernels.compliant.rearmed``); mu, mu_s per contact; cond_limit the cond(J_u) at
    which the partition is chosen anew. single: one step of exactly h (t1 = t + h) with
    (beta', gamma') = key, committed whatever happens in it (no event, separation, partition
    or Painleve test: ``GeneralizedAlpha.step`` makes them): the compiled step of
    ``steppers.compiled``, through this one entry point.

    Per step j it writes out_t, out_q, out_u, out_lam (all rows), out_rec (the contact records),
    out_energy (``energies``), out_power (the powers at the new state), out_residual (largest
    |phi| and |J u + phi_t|), out_newton (iterations), out_numerical (the scheme's own loss
    in the step, J: ``kernels.numerical.step_dissipation``), out_acc (the accelerations
    q'' at the end of the step), out_links (the links, ``kernels.links.link_states``) and
    out_pressed (the compliant contacts' records, searched again from the step's end
    parameters as the last step's FLAT array is). Returns (steps taken, the index of
    the reason it stopped in STOPS, the last step's ``kernels.step.FLAT`` array (empty when
    none was taken), its accelerations and algorithmic accelerations, the predictor's
    previous accelerations and step, and cond_2(J_u) at the last step's end (computed when
    single or U.size > 1, else 1: exactly cond_2 of one row))."""
    P = unpack(F, I, H)
    am, af, gamma, beta = alpha
    nc = cstate.shape[0]
    friction = False
    for i in range(nc):
        if mu[i] > 0.0:
            friction = True
    reason = 0
    taken = 0
    last_a1 = np.zeros(0)
    last_lam = np.zeros(0)
    last_ev = no_evaluation(np.int64(0), np.int64(0))  # int64: one compilation
    cond = 1.0
    held = held_factor(P[7])  # a string's last factor of G_f (``kernels.step.iterate``)
    next_mode = rolling.copy()
    for j in range(1 if single else out_t.size):
        if single:  # the step as ``steppers.compiled`` asks for it
            dt = h
            t1 = t + h
            bp, gp = key
        else:
            t_end = t + h
            dt = t_end - t
            bp = dt * dt * beta * (1 - af) / (1 - am)
            gp = dt * gamma * (1 - af) / (1 - am)
            if abs(key[0] - bp) > 1e-12 * bp or abs(key[1] - gp) > 1e-12 * gp:
                reason = 6
                break
            t1 = t + dt
            if t_end - t1 > 1e-12 * h:
                reason = 7
                break
        ydd0 = acc[ind].copy()
        if h_prev > 0.0:
            ydd0 += (dt / h_prev) * (acc[ind] - acc_prev[ind])
        coef = (dt, bp, gp, am, af, gamma, beta, t1)
        status, its, q1, u1, acc1, a1, lam, ev = iterate(
            P,
            Lg,
            Gb,
            coef,
            drive[j],
            actuators[j],
            ind,
            U,
            q,
            u,
            acc,
            pseudo,
            ydd0,
            prev,
            lam_n,
            cstate,
            s,
            rolling,
            tol,
            rtol,
            max_newton,
            held,
        )
        if status != OK:
            # single: a Newton iteration run to max_newton iterations (its last correction
            # finite or not) is one the Python step does not finish either (NewtonDivergence)
            reason = 8 if single and status == FAILED and its >= max_newton else 1
            break
        _, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
        if single or U.size > 1:  # cond_2 of one row is 1 (exactly, as np.linalg.cond gives it)
            cond = np.linalg.cond(take_columns(jac, U))
        if not single:  # the tests of the module docstring, in the Python step's order
            nrow, _, row, _ = normal_rows(cstate, drive.shape[1])
            for i in range(nc):
                if cstate[i, 1] != 0.0:  # sticking: mu_s lambda_N - |lambda_T| >= 0
                    if mu_s[i] * lam[nrow[i]] - abs(lam[row]) < 0.0:
                        reason = 2
                    row += 1
                elif mu[i] > 0.0 and cstate[i, 0] * rec[i, VT] < 0.0:  # slipping on
                    reason = 2
            # a compliant contact that starts to roll or is released; a released one may
            # roll again from the next step on once it has sped up (``ContactModes.rearm``)
            if reason == 0 and P[9][0].size > 0:
                _, crec, _, _, values = compliant_states(P, q1, u1, s, nc)
                if rolling_entry(P, crec, values, rolling):
                    reason = 2
                if rolling_release(P, values, rolling, lam, row):
                    reason = 2
                next_mode = rearmed(P, crec, values, rolling)
            wide = cstate.shape[1] > CLOSED
            for i in range(nc):  # a unilateral contact that opens (N < 0) or closes (gap < 0)
                if reason == 0 and wide and cstate[i, UNILATERAL] != 0.0:
                    if nrow[i] >= 0 and lam[nrow[i]] < 0.0 or nrow[i] < 0 and rec[i, GAP] < 0.0:
                        reason = 2
            for i in range(nc):
                if reason == 0 and nrow[i] >= 0 and lam[nrow[i]] < 0.0:
                    reason = 3
            if reason == 0 and U.size > 1 and cond > cond_limit:
                reason = 4
            if reason == 0 and friction and phi.size > 0:
                D0, D = delassus(F, I, H, LM, mass_tree, jac, js)
                if not painleve_margin(D0, D) > PAINLEVE_SAFE:
                    reason = 5
            if reason != 0:
                break
        # commit
        out_numerical[j] = step_dissipation(
            P, alpha, dt, ind, U, u, u1, acc, acc1, pseudo, a1, mass_tree, jac
        )
        power = out_power[j]
        for i in range(nc):
            s[i] = rec[i, S]
        pressed = (0.0, 0.0, 0.0)
        w_base = wt  # the next step's base of the rolling rows: W_T at the new state
        if P[9][0].size > 0:  # the compliant contacts' closest points at the new state
            _, crec, _, cwt, values = compliant_states(P, q1, u1, s, nc)
            keep_parameters(P, crec, s, nc)
            roll_off_friction(values, rolling)
            pressed = compliant_sums(values)
            w_base = np.empty((nc + cwt.shape[0], q1.size))
            w_base[:nc] = wt
            w_base[nc:] = cwt
            if not single:
                rolling[:] = next_mode
        _powers(P, q1, u1, lam, rec, cstate, mu, actuators[j], pressed, out_energy[j], power)
        acc_prev = acc
        h_prev = dt
        pseudo = acc1.copy()
        pseudo[ind] = a1
        acc = acc1
        q, u, t = q1, u1, t1
        prev = (q1, u1, phi, jac, phit, t1, w_base, hess, rec[:, H00 : H00 + 3].copy())
        lam_n = lam
        out_t[j] = t1
        out_q[j] = q1
        out_u[j] = u1
        out_acc[j] = acc1
        out_lam[j] = lam
        for i in range(nc):
            for f in range(N_FIELDS):
                out_rec[j, i, f] = rec[i, f]
        if P[8][0].shape[0] > 0:  # the links and compliant contacts at the end, as ``flat``
            out_links[j] = link_states(P[8], q1, u1)[1]
        if P[9][0].size > 0:
            out_pressed[j] = compliant_states(P, q1, u1, s, nc)[1]
        worst_q = 0.0
        worst_u = 0.0
        if phi.size:
            velocity = jac @ u1 + phit  # (BLAS, as numpy forms it in ``GeneralizedAlpha``)
            for i in range(phi.size):
                worst_q = max(worst_q, abs(phi[i]))
                worst_u = max(worst_u, abs(velocity[i]))
        out_residual[j, 0] = worst_q
        out_residual[j, 1] = worst_u
        out_newton[j] = its
        last_a1, last_lam, last_ev = a1, lam, ev
        taken += 1
    flat = np.zeros(0)
    if taken > 0:
        _, states, _ = link_states(P[8], q, u)  # the links at the end (``kernels.links``)
        _, crec, cwn, cwt, _ = compliant_states(P, q, u, s, nc)
        flat = flatten(q, u, acc, last_a1, last_lam, last_ev, states, (crec, cwn, cwt))
    return taken, reason, flat, acc, pseudo, acc_prev, h_prev, cond
