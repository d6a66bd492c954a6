"""The curvature terms of a closed structure contact in the Newton iteration of a
generalised-alpha step (numba), written once for the Python step
(``steppers.compliant.curvature_terms``, ``steppers.partitioned_step.dependent_newton_step``)
and the compiled one (``kernels.step.iterate``).

The gap's Hessian is H = d^2 g / dq^2 = U C U^T with U = [v, w] (n, 2) and the symmetric core
C = [[c00, c01], [c01, c11]] (``coupling.kinematics.gap_hessian``). The normal row's constraint
at acceleration level is W_N(q) q'' + A(q, u) = 0 with A = u^T H u for a scleronomic gap; in a
step whose positions and velocities move by beta' and gamma' times the accelerations, its
derivative adds to the row ``gamma' 2 (H u)^T + beta' ((H q'')^T + dA/dq|kappa)`` (the last the
contact's ``remainder_gradient``, of order s'^2), and the normal force lambda_N turning with the
curve adds ``-beta' lambda_N H`` to the iteration matrix (as U K U^T, K = -beta' lambda_N C).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def hessian_product(v, w, core, x):
    """(alpha, beta) with H x = alpha v + beta w for H = U C U^T, U = [v, w] (n,) each, core
    (3,) = (c00, c01, c11), x (n,)."""
    vx = 0.0
    wx = 0.0
    for k in range(x.size):
        vx += v[k] * x[k]
        wx += w[k] * x[k]
    return core[0] * vx + core[1] * wx, core[1] * vx + core[2] * wx


@njit(cache=True)
def curvature_row(v, w, core, gradient, acc, u, lam, bp, gp, row):
    """Add the curvature terms of one closed contact's normal row to ``row`` (n,), in place:
    ``row += 2 gp H u + bp (H q'' + gradient)``, and return K (2, 2) = -bp lambda_N C, the
    block of its stiffness U K U^T (module docstring). v, w (n,): the columns of U; core (3,);
    gradient (n,): the remainder gradient (1/s^2; zeros when not computed); acc, u (n,): the
    iterate's q'' and u; lam: lambda_N, N; bp, gp: beta', gamma' (s^2, s)."""
    au, bu = hessian_product(v, w, core, u)
    aa, ba = hessian_product(v, w, core, acc)
    cv = 2.0 * gp * au + bp * aa
    cw = 2.0 * gp * bu + bp * ba
    for k in range(row.size):
        row[k] += cv * v[k] + cw * w[k] + bp * gradient[k]
    K = np.empty((2, 2))
    K[0, 0] = -bp * lam * core[0]
    K[0, 1] = -bp * lam * core[1]
    K[1, 0] = K[0, 1]
    K[1, 1] = -bp * lam * core[2]
    return K


__all__ = ["curvature_row", "hessian_product"]
