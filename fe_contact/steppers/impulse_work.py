"""The work of a Moreau-Jean step's contact impulses, split into columns of definite sign (also
the event-driven stepper's smooth steps: the same laws on the end velocity, with e = 0).

Notation of Eugster-Glocker (004), eqs. (24)-(27) and sec. 4.5: per closed contact point the
rows w_N, w_T at the predicted position q_P, the contact velocities gamma^A = w^T u_A at the
start and gamma^E = w^T u_E at the end of the step, the impulses P_N, P_T, Newton's impact law
on the velocity xi = gamma^E + e gamma^A with e_N, e_T in [0, 1], and the impulse laws

    P_N >= 0,  xi_N >= 0,  P_N xi_N = 0                       (004 eq. (26) on impulse level)
    |P_T| <= mu P_N,  P_T xi_T = -mu P_N |xi_T|                (004 eq. (27): Coulomb, and De
                                                                 Saxce's maximal dissipation)

The theta-method pairs the impulses with the velocity it moves the positions by, u_theta =
(1 - theta) u_A + theta u_E (``steppers.moreau``: q_E - q_A = h u_theta): they do the work
P gamma^theta on the step (per row, N and T), gamma^theta = (1 - theta) gamma^A + theta
gamma^E, which is P (gamma^A + gamma^E) / 2 for theta = 1/2 (the event-driven stepper's). With
gamma^theta = theta xi + c gamma^A, c = 1 - theta (1 + e) in [-1, 1/2], it is

    P gamma^theta = theta P xi  +  c P gamma^A.
                    law part       start part

The law part is 0 in the normal row and -theta mu P_N |xi_T| <= 0 in the tangential row when
the laws hold exactly. The contact solver returns impulses that lie exactly in their sets (P_N >=
0, |P_T| <= mu P_N) and velocities xi within its tolerance, so the law part is that exact value
plus an excess: theta P_N xi_N (either sign) and theta (P_T xi_T + mu P_N |xi_T|), which lies in
[0, 2 theta mu P_N |xi_T|] because |P_T xi_T| <= mu P_N |xi_T|. The start part is a loss where
c P gamma^A <= 0 and a gain where it is > 0. Hence three columns, each a sum of terms that are
>= 0 by the laws alone:

    dissipated_impact   = sum_N [ max(-c_N P_N gamma_N^A, 0) + theta P_N max(-xi_N, 0) ]
    dissipated_friction = sum_T [ theta mu P_N |xi_T| + max(-c_T P_T gamma_T^A, 0) ]
    work_contact_timing = sum_N [ max(c_N P_N gamma_N^A, 0) + theta P_N max(xi_N, 0) ]
                        + sum_T [ max(c_T P_T gamma_T^A, 0) + theta (P_T xi_T + mu P_N |xi_T|) ]

and work_contact_timing - dissipated_impact - dissipated_friction = sum P gamma^theta: the
balance is the scheme's, unchanged. In floating point each term is a product or sum of numbers
of known sign, exact in sign; so is P_T xi_T + fl(mu P_N) |xi_T| where the solver clipped P_T to
[-fl(mu P_N), fl(mu P_N)] (rounding is monotone: |fl(P_T xi_T)| <= fl(fl(mu P_N) |xi_T|));
where it did not (its least-distance path builds P_T = mu (l- - l+)), P_T may lie an ulp outside
and the term be a few eps of mu P_N |xi_T| below 0.

What ``work_contact_timing`` is: the law sets the impulse by the velocity at the end of the step,
and the scheme lets it act on the start velocity too (weight c; c = (1 - e) / 2 for theta = 1/2,
c = 0 for theta = 1 and e = 0: backward Euler pairs the impulse with the end velocity alone).
Where that start velocity runs along the impulse the impulse gives energy: a contact closed at
the predicted position (g_N(q_P) <= 0) while its points separate at u_A (gamma_N^A > 0), and a
friction impulse along a start slip that stops or reverses within the step (P_T gamma_T^A > 0).
In sustained contact gamma^A is the O(h) change of the rows w(q_P) from one step to the next, the
impulse is O(h): the column grows by O(h^2) per step and falls with h. The law excess (the
solver's tolerance) adds to it where it is a gain; P_N xi_N < 0 (an impulse on a contact still
closing at the end) is a loss, booked as an impact's.
"""

from __future__ import annotations

import numpy as np

from ..kernels import impulse_work as kernels


def _arrays(*values):
    return tuple(np.ascontiguousarray(v, dtype=float) for v in values)


def impulse_work_points(
    normal: np.ndarray,
    tangent: np.ndarray,
    gamma_start: np.ndarray,
    gamma_end: np.ndarray,
    restitution: np.ndarray,
    friction: np.ndarray,
    theta: float = 0.5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The columns of the module docstring per contact point, J: (impact, friction, timing),
    each of shape (m,) and >= 0 (the terms of the sums over N and T of one point).

    normal, tangent : impulses P_N >= 0, P_T with |P_T| <= mu P_N, N s, shape (m,).
    gamma_start, gamma_end : gamma^A, gamma^E = W^T u_A, W^T u_E, m/s, shape (2m,) ordered
        (N_1..N_m, T_1..T_m) like ``W = [W_N, W_T]`` (relative velocities of the contact
        points: a moving target's own velocity included).
    restitution : (e_N.., e_T..) in [0, 1], shape (2m,), same order. friction : mu, shape (m,).
    theta : the weight of the end velocity in the velocity the impulses work with, in [1/2, 1]
        (Moreau-Jean's theta; 1/2 the midpoint rule).
    """
    impact, loss_t, gain = kernels.impulse_work_terms(
        *_arrays(normal, tangent, gamma_start, gamma_end, restitution, friction), float(theta)
    )
    return impact, loss_t, gain


def impulse_work(
    normal, tangent, gamma_start, gamma_end, restitution, friction, theta: float = 0.5
) -> dict:
    """``impulse_work_points`` summed over the points: {"dissipated_impact": >= 0,
    "dissipated_friction": >= 0, "work_contact_timing": >= 0}, J; compiled
    (``kernels.impulse_work.impulse_work_sums``: the terms summed in numpy's order)."""
    impact, loss_t, gain = kernels.impulse_work_sums(
        *_arrays(normal, tangent, gamma_start, gamma_end, restitution, friction), float(theta)
    )
    return {
        "dissipated_impact": float(impact),
        "dissipated_friction": float(loss_t),
        "work_contact_timing": float(gain),
    }


__all__ = ["impulse_work", "impulse_work_points"]
