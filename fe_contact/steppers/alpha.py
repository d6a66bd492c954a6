"""The generalised-alpha scheme itself: its parameters for a spectral radius (Chung-Hulbert)
and the energy it takes out of a step (``numerical_dissipation``), which the stepper books as
``dissipated_numerical``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validation as check
from ..coupling.constraints import mass_times
from ..system import System


@dataclass(frozen=True)
class AlphaParameters:
    alpha_m: float
    alpha_f: float
    gamma: float
    beta: float


def numerical_dissipation(
    system: System, params: AlphaParameters, h: float, part, start, end, a1, ev
) -> float:
    """The energy the generalised-alpha scheme itself takes out of one step of h, J.

    The step updates the independent coordinates k from (q_n, u_n, q''_n, a_n) by
    [u] = h ((1 - gamma) a_n + gamma a_n+1) and [q] = h u_n + h^2 ((1/2 - beta) a_n +
    beta a_n+1), with the algorithmic accelerations a and the true ones q'' tied by
    (1 - alpha_m) a_n+1 + alpha_m a_n = (1 - alpha_f) q''_n+1 + alpha_f q''_n (Arnold-Bruls;
    [x] = x_n+1 - x_n, <x> = (x_n + x_n+1) / 2). So [u] = h <q''> + dv and [q] = h <u> + dq:

        dv = h (<a> - <q''>) + h (gamma - 1/2) [a],    dq = h^2 (beta - gamma / 2) [a].

    For M u'' + K q = f (M, K constant) with the equations held at both ends, the energy
    E = u M u / 2 + q K q / 2 changes by <u> M [u] + <q> K [q] = [q] . <f> - D with

        D = -<u> . M dv + dq . M <q''>,

    exactly (the Chung-Hulbert identity in this form; K <q> = <f> - M <q''>): [q] . <f> is
    the work of the applied forces, D the scheme's own loss. With rho_inf = 1 (alpha_m =
    alpha_f = gamma = 1/2, beta = 1/4) dq = 0 and <a> = <q''>: D = 0 to round-off. In a free
    vibration D = E_n - E_n+1 step by step; that is not >= 0 in every step for rho_inf < 1
    (the energy of a resolved mode wobbles within a period while it decays), only over
    periods. With constraints the scheme acts on the independent coordinates k and the
    dependent ones follow, u_U = -B u_k + ... (B = J_U^-1 J_k, Lipinski (002), eq. 73b): the
    products are taken with the reduced mass T^T M T, T = [I; -B], i.e. M <u> and M <q''> are
    reduced by T^T x = x_k - B^T x_U. M = diag(M_t(q_n+1), M_f), and T at the step's end (the
    tree's varying mass makes it exact only to O(h^3) per step there, which the balance's
    trapezoidal work errs by anyway).

    part : the step's Partition. start, end : (u, q'', a) at the step's start and (u, q'') at
    its end, each (n,); a1 : (k,) the end's algorithmic accelerations of the independent
    coordinates; ev : the Evaluation at the end (M_t, J). ``kernels.numerical`` is the
    compiled twin.
    """
    u_n, acc_n, pseudo_n = start
    u1, acc1 = end
    ind, U = part.independent, part.dependent
    ubar, abar = 0.5 * (u_n + u1), 0.5 * (acc_n + acc1)
    mu, ma = mass_times(system, ev, ubar), mass_times(system, ev, abar)
    mu_k, ma_k = mu[ind], ma[ind]
    if U.size:
        B = np.linalg.solve(ev.jac[:, U], ev.jac[:, ind])
        mu_k, ma_k = mu_k - B.T @ mu[U], ma_k - B.T @ ma[U]
    p = params
    da = a1 - pseudo_n[ind]
    dv = h * (0.5 * (pseudo_n[ind] + a1) - abar[ind]) + h * (p.gamma - 0.5) * da
    dq = h * h * (p.beta - 0.5 * p.gamma) * da
    return float(dq @ ma_k - mu_k @ dv)


def alpha_parameters(rho_inf: float) -> AlphaParameters:
    """Chung-Hulbert parameters for spectral radius rho_inf in [0, 1]."""
    rho_inf = check.real("rho_inf", rho_inf, low=0.0, high=1.0)
    alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
    alpha_f = rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + alpha_f - alpha_m
    return AlphaParameters(alpha_m, alpha_f, gamma, 0.25 * (gamma + 0.5) ** 2)


__all__ = ["AlphaParameters", "alpha_parameters", "numerical_dissipation"]
