"""The work of a step's contact impulses compiled (numba), split into its three columns of
definite sign (``impulse_work_terms``, ``impulse_work_sums``: the formulas of
``steppers.impulse_work``, its module docstring), each term in numpy's order of operations and
the sums in numpy's pairwise order (``kernels.pairwise``), so that the compiled columns are
numpy's to the last bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .pairwise import pairwise_sum

__all__ = ["impulse_work_sums", "impulse_work_terms"]


@njit(cache=True)
def _positive(x):
    """np.maximum(x, 0.0): x where x >= 0 or x is NaN, else 0."""
    return x if (x >= 0.0 or np.isnan(x)) else 0.0


@njit(cache=True)
def impulse_work_terms(normal, tangent, gamma_start, gamma_end, restitution, friction, theta):
    """(impact, friction, timing) per contact point, each (m,) in J and >= 0, of impulses P_N,
    P_T (m,) with the contact velocities gamma^A, gamma^E, restitutions e (2m,) ordered (N..,
    T..) and friction coefficients mu (m,): the terms of ``steppers.impulse_work`` (its module
    docstring), each evaluated in numpy's order of operations."""
    m = normal.size
    impact = np.empty(m)
    loss_t = np.empty(m)
    gain = np.empty(m)
    for i in range(m):
        j = m + i
        xi_n = gamma_end[i] + restitution[i] * gamma_start[i]
        xi_t = gamma_end[j] + restitution[j] * gamma_start[j]
        start_n = ((1.0 - theta * (1.0 + restitution[i])) * normal[i]) * gamma_start[i]
        start_t = ((1.0 - theta * (1.0 + restitution[j])) * tangent[i]) * gamma_start[j]
        coulomb = (friction[i] * normal[i]) * np.abs(xi_t)
        impact[i] = _positive(-start_n) + theta * (normal[i] * _positive(-xi_n))
        loss_t[i] = theta * coulomb + _positive(-start_t)
        gain[i] = (_positive(start_n) + _positive(start_t)) + theta * (
            normal[i] * _positive(xi_n) + (tangent[i] * xi_t + coulomb)
        )
    return impact, loss_t, gain


@njit(cache=True)
def impulse_work_sums(normal, tangent, gamma_start, gamma_end, restitution, friction, theta):
    """``impulse_work_terms`` summed over the points in numpy's order (``pairwise_sum``):
    (dissipated_impact, dissipated_friction, work_contact_timing), J."""
    impact, loss_t, gain = impulse_work_terms(
        normal, tangent, gamma_start, gamma_end, restitution, friction, theta
    )
    return pairwise_sum(impact), pairwise_sum(loss_t), pairwise_sum(gain)
