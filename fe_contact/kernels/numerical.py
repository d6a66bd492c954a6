"""The algorithmic dissipation of one generalised-alpha step, compiled (numba).

The energy identity of the scheme (Chung-Hulbert, Arnold-Bruls form; the derivation is in
``steppers.alpha.numerical_dissipation``, whose numpy twin this is) on the independent
coordinates k of the step, with the step's
start (q_n, u_n, q''_n, a_n) and end (q_n+1, u_n+1, q''_n+1, a_n+1), h and
(alpha_m, alpha_f, gamma, beta):

    dv = h (<a> - <q''>) + h (gamma - 1/2) [a]      (= [u] - h <q''>)
    dq = h^2 (beta - gamma / 2) [a]                  (= [q] - h <u>)
    D  = -(M <u>)_k . dv_k + dq_k . (M <q''>)_k

with [x] = x_n+1 - x_n, <x> = (x_n + x_n+1) / 2 and M = diag(M_t(q_n+1), M_f). For
rho_inf = 1 (alpha_m = alpha_f = 1/2, gamma = 1/2, beta = 1/4) both dv and dq vanish (dv to
round-off: <a> = <q''> is what the recurrence then states).
"""

from __future__ import annotations

import numpy as np

from .beam import structure_product
from .dense import lu_decompose, lu_solve_columns, matvec, matvec_t, take_columns
from .jit import inner


@inner
def step_dissipation(P, alpha, h, ind, U, u_n, u1, acc_n, acc1, pseudo_n, a1, mass_tree, jac):
    """D of the step (module docstring), J. P : the unpacked constant tuple of
    ``kernels.step``; ind (k,) the independent coordinates; u_n, u1, acc_n, acc1, pseudo_n
    (n,) the velocities, accelerations and algorithmic accelerations at the step's start and
    end; a1 (k,) the end's algorithmic accelerations of ind; mass_tree (n_t, n_t) M_t(q_n+1);
    U (m,) the dependent coordinates and jac (m, n) the constraint Jacobian at the end (the
    products are reduced by T^T x = x_k - B^T x_U, B = J_U^-1 J_k, as in
    ``alpha.numerical_dissipation``)."""
    am, af, gamma, beta = alpha
    flex, nt = P[5], P[6]
    n = u_n.size
    ubar = 0.5 * (u_n + u1)
    abar = 0.5 * (acc_n + acc1)
    mu = np.empty(n)
    ma = np.empty(n)
    mu[:nt] = matvec(mass_tree, ubar[:nt])
    ma[:nt] = matvec(mass_tree, abar[:nt])
    out = np.empty(n - nt)
    structure_product(P[10][0], flex[0], ubar, out, nt)
    mu[nt:] = out
    structure_product(P[10][0], flex[0], abar, out, nt)
    ma[nt:] = out
    mu_k = mu[ind]
    ma_k = ma[ind]
    if U.size:
        lu, piv, _ = lu_decompose(take_columns(jac, U))
        B = lu_solve_columns(lu, piv, jac, ind)
        mu_k -= matvec_t(B, mu[U])
        ma_k -= matvec_t(B, ma[U])
    total = 0.0
    for j in range(ind.size):
        i = ind[j]
        da = a1[j] - pseudo_n[i]
        dv = h * (0.5 * (pseudo_n[i] + a1[j]) - abar[i]) + h * (gamma - 0.5) * da
        dq = h * h * (beta - 0.5 * gamma) * da
        total += dq * ma_k[j] - mu_k[j] * dv
    return total
