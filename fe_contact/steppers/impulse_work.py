"""The work of a Moreau-Jean step's contact impulses, split into columns of definite sign (also
the event-driven stepper's smooth steps: the same laws on the end velocity, with e = 0).

Notation of Eugster-Glocker (004), eqs. (24)-(27) and sec. 4.5: per closed contact point the
rows w_N, w_T at the predicted position q_P, the contact velocities gamma^A = w^T u_A at the
start and gamma^E = w^T u_E at the end of the step, the impulses P_N, P_T, Newton's impact law
on the velocity xi = gamma^E + e gamma^A with e_N, e_T in [0, 1], and the impulse laws

    P_N >= 0,  xi_N >= 0,  P_N xi_N = 0                       (004 eq. (26) on impulse level)
    |P_T| <= mu P_N,  P_T xi_T = -mu P_N |xi_T|                (004 eq. (27): Coulomb, and De
                                                                 Saxce's maximal dissipation)

The impulses do the work P (gamma^A + gamma^E) / 2 on the step (per row, N and T); for theta =
1/2 and linear smooth forces this is the exact discrete energy balance of the step. With
(gamma^A + gamma^E) / 2 = xi / 2 + (1 - e) gamma^A / 2 it is

    P (gamma^A + gamma^E) / 2 = P xi / 2  +  (1 - e) P gamma^A / 2.
                                 law part      start part

The law part is 0 in the normal row and -mu P_N |xi_T| / 2 <= 0 in the tangential row when the
laws hold exactly. The contact solver returns impulses that lie exactly in their sets (P_N >= 0,
|P_T| <= mu P_N) and velocities xi within its tolerance, so the law part is that exact value
plus an excess: P_N xi_N / 2 (either sign) and (P_T xi_T + mu P_N |xi_T|) / 2, which lies in
[0, mu P_N |xi_T|] because |P_T xi_T| <= mu P_N |xi_T|. The start part is a loss where the
impulse opposes the start velocity (P gamma^A <= 0; 1 - e >= 0) and a gain where it points along
it. Hence three columns, each a sum of terms that are >= 0 by the laws alone:

    dissipated_impact   = sum_N [ (1 - e_N) P_N max(-gamma_N^A, 0) + P_N max(-xi_N, 0) ] / 2
    dissipated_friction = sum_T [ mu P_N |xi_T| + (1 - e_T) max(-P_T gamma_T^A, 0) ] / 2
    work_contact_timing = sum_N [ (1 - e_N) P_N max(gamma_N^A, 0) + P_N max(xi_N, 0) ] / 2
                        + sum_T [ (1 - e_T) max(P_T gamma_T^A, 0) + P_T xi_T + mu P_N |xi_T| ] / 2

and work_contact_timing - dissipated_impact - dissipated_friction = sum P (gamma^A + gamma^E) / 2:
the balance is the midpoint rule's, unchanged. In floating point each term is a product or sum
of numbers of known sign, exact in sign; so is P_T xi_T + fl(mu P_N) |xi_T| where the solver
clipped P_T to [-fl(mu P_N), fl(mu P_N)] (rounding is monotone: |fl(P_T xi_T)| <=
fl(fl(mu P_N) |xi_T|)); where it did not (its least-distance path builds P_T = mu (l- - l+)),
P_T may lie an ulp outside and the term be a few eps of mu P_N |xi_T| below 0.

What ``work_contact_timing`` is: the law sets the impulse by the velocity at the end of the step,
and the midpoint rule lets it act on the start velocity too. Where that start velocity runs along
the impulse the impulse gives energy: a contact closed at the predicted position (g_N(q_P) <= 0)
while its points separate at u_A (gamma_N^A > 0), and a friction impulse along a start slip that
stops or reverses within the step (P_T gamma_T^A > 0). In sustained contact gamma^A is the O(h)
change of the rows w(q_P) from one step to the next, the impulse is O(h): the column grows by
O(h^2) per step and falls with h. The law excess (the solver's tolerance) adds to it where it
is a gain; P_N xi_N < 0 (an impulse on a contact still closing at the end) is a loss, booked as
an impact's.
"""

from __future__ import annotations

import numpy as np


def impulse_work_points(
    normal: np.ndarray,
    tangent: np.ndarray,
    gamma_start: np.ndarray,
    gamma_end: np.ndarray,
    restitution: np.ndarray,
    friction: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The columns of the module docstring per contact point, J: (impact, friction, timing),
    each of shape (m,) and >= 0 (the terms of the sums over N and T of one point).

    normal, tangent : impulses P_N >= 0, P_T with |P_T| <= mu P_N, N s, shape (m,).
    gamma_start, gamma_end : gamma^A, gamma^E = W^T u_A, W^T u_E, m/s, shape (2m,) ordered
        (N_1..N_m, T_1..T_m) like ``W = [W_N, W_T]`` (relative velocities of the contact
        points: a moving target's own velocity included).
    restitution : (e_N.., e_T..) in [0, 1], shape (2m,), same order. friction : mu, shape (m,).
    """
    m = normal.size
    xi = gamma_end + restitution * gamma_start
    start = (1.0 - restitution) * np.concatenate((normal, tangent)) * gamma_start
    xi_n, xi_t = xi[:m], xi[m:]
    start_n, start_t = start[:m], start[m:]
    coulomb = friction * normal * np.abs(xi_t)  # fl(mu P_N) |xi_T| >= |P_T xi_T|
    impact = np.maximum(-start_n, 0.0) + normal * np.maximum(-xi_n, 0.0)
    loss_t = coulomb + np.maximum(-start_t, 0.0)
    gain = (
        np.maximum(start_n, 0.0)
        + normal * np.maximum(xi_n, 0.0)
        + np.maximum(start_t, 0.0)
        + (tangent * xi_t + coulomb)
    )
    return 0.5 * impact, 0.5 * loss_t, 0.5 * gain


def impulse_work(normal, tangent, gamma_start, gamma_end, restitution, friction) -> dict:
    """``impulse_work_points`` summed over the points: {"dissipated_impact": >= 0,
    "dissipated_friction": >= 0, "work_contact_timing": >= 0}, J."""
    impact, loss_t, gain = impulse_work_points(
        normal, tangent, gamma_start, gamma_end, restitution, friction
    )
    return {
        "dissipated_impact": float(impact.sum()),
        "dissipated_friction": float(loss_t.sum()),
        "work_contact_timing": float(gain.sum()),
    }


__all__ = ["impulse_work", "impulse_work_points"]
