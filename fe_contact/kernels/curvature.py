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

The geometry of H itself is written here once too, for the Python contact of any structure
(``coupling.kinematics.gap_hessian``) and the compiled beam contact (``kernels.beam.contact``):
with a = |r'|, rho = n . d (d = c - r(s)) and kappa = n . r'', ``hessian_core`` gives C and
D = a^2 - rho kappa, ``hessian_columns`` the columns v = [r' . J_c, -r' . dr/dq] / a^2 and
w = [0, n . dr'/dq], and ``remainder_slope`` the factor -((a^2 v.u + rho w.u) / D)^2 of the
remainder gradient (the module docstring of ``coupling.kinematics``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .jit import inner


@njit(cache=True)
def hessian_core(a2, rho, kappa):
    """(c00, c01, c11, D) of the gap Hessian's core C = -(a^2 / D) [[kappa, 1], [1, 0]] -
    (rho / D) e_2 e_2^T with D = a^2 - rho kappa (the denominator of the contact parameter's
    rate s'): a2 = |r'|^2, rho = n . (c - r), m, and kappa = n . r'', 1/m (module docstring)."""
    D = a2 - rho * kappa
    return -(a2 / D) * kappa, -(a2 / D), -rho / D, D


@njit(cache=True)
def remainder_slope(a2, rho, D, vu, wu):
    """dA/dkappa = -((a^2 v.u + rho w.u) / D)^2, m^2/s^2, of the normal acceleration remainder
    A through the curve's curvature kappa (module docstring); the remainder gradient is this
    times n . d r''/dq. vu = v . u, wu = w . u (the columns of ``hessian_columns``)."""
    return -(((a2 * vu + rho * wu) / D) ** 2)


@njit(cache=True)
def hessian_columns(slope, normal, jac_c, rows, rows_s, tree_start, cols, v, w):
    """Fill the columns v, w (n,) of the gap Hessian's U = [v, w] in place (zeroed first):
    v = r' . J_c / a^2 on the tree's columns (``jac_c`` (2, n_tree) from ``tree_start``) and
    -r' . dr/dq / a^2 on the curve point's (``rows`` (2, k) at the system columns ``cols``
    (k,)); w = n . dr'/dq (``rows_s`` (2, k)) there. slope = r' (2,), normal = n (2,)."""
    a2 = slope[0] * slope[0] + slope[1] * slope[1]
    for i in range(v.size):
        v[i] = 0.0
        w[i] = 0.0
    for j in range(jac_c.shape[1]):
        v[tree_start + j] = (slope[0] * jac_c[0, j] + slope[1] * jac_c[1, j]) / a2
    for i in range(cols.size):
        c = cols[i]
        v[c] += -(slope[0] * rows[0, i] + slope[1] * rows[1, i]) / a2
        w[c] += normal[0] * rows_s[0, i] + normal[1] * rows_s[1, i]


@inner
def hessian_product(v, w, core, x):
    """(alpha, beta) with H x = alpha v + beta w for H = U C U^T, U = [v, w] (n,) each, core
    (3,) = (c00, c01, c11), x (n,)."""
    vx = 0.0
    wx = 0.0
    for k in range(x.size):  # v and w vanish but on a few columns: their zeros add exact zeros
        if v[k] == 0.0 and w[k] == 0.0:
            continue
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


@njit(cache=True)
def dependent_row_terms(v, w, core, dq, u, independent, dependent, row):
    """The curvature terms of a normal row in the Newton step of the dependent coordinates
    (``steppers.partitioned_step.dependent_newton_step``): with H dq (``hessian_product``)
    for dq (n,) = q - q_ev, returns (1/2 dq^T H dq, m; (H dq)_ind . u_ind, m/s) for the
    position and velocity right-hand sides and adds (H dq)_U to ``row`` (m,), the row of
    J_U, in place. independent, dependent : int arrays of the columns; u (n,)."""
    alpha, beta = hessian_product(v, w, core, dq)
    hq = 0.0
    hu = 0.0
    for k in range(dq.size):  # (the zeros of v and w skipped, as in ``hessian_product``)
        if v[k] == 0.0 and w[k] == 0.0:
            continue
        hq += dq[k] * (alpha * v[k] + beta * w[k])
    for k in independent:
        if v[k] == 0.0 and w[k] == 0.0:
            continue
        hu += (alpha * v[k] + beta * w[k]) * u[k]
    for j in range(dependent.size):
        row[j] += alpha * v[dependent[j]] + beta * w[dependent[j]]
    return 0.5 * hq, hu


__all__ = [
    "curvature_row",
    "dependent_row_terms",
    "hessian_columns",
    "hessian_core",
    "hessian_product",
    "remainder_slope",
]
