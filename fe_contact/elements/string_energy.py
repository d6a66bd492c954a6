"""Energy-consistent averaged internal force of the string: the discrete gradient of its strain
energy over a time step (Simo-Tarnow's energy-momentum form for the tension law). Re-exported by
``elements.string``; the conventions are those of its docstring.

Derivation. At a quadrature point the axial strain energy per ds is ``W_hat(e) = |r_ref'| W(nu)``
with the Green-Lagrange-type strain ``e = 1/2 |r'|^2`` (here ``r' = a``) and the stretch
``nu = |a| / |r_ref'| = sqrt(2 e) / |r_ref'|``. The strain ``e`` is quadratic in q and ``a`` is
linear in q, so over a step from q0 to q1

    e1 - e0 = 1/2 (|a1|^2 - |a0|^2) = a_mid . (a1 - a0),   a_mid = (a0 + a1) / 2 = a(q_mid)

holds exactly (not to O(h^2)): the midpoint strain gradient ``de/da = a_mid`` turns the strain
increment into the displacement increment. Hence with the averaged stress

    S_avg = (W_hat(e1) - W_hat(e0)) / (e1 - e0)      (limit dW_hat/de(e_mid) = T / |a| at e1 = e0)

the averaged force ``f_avg = sum_qp dx B^T (S_avg a_mid)`` (B the strain operator that maps the
element dofs to ``a``) satisfies, to round-off,

    f_avg . (q1 - q0) = sum_qp dx S_avg (e1 - e0) = V(q1) - V(q0),

and ``f_avg(q, q) = sum dx B^T (T/|a|) a = f_int(q)``. A strain measure that is not quadratic in
q (e.g. the stretch nu itself, or the Biot strain nu - 1) has no such exact midpoint identity.

In terms of the tension law: ``S_avg = Q(nu0, nu1) / |r_ref'|`` with the law's *energy
quotient* ``Q = (W(nu1) - W(nu0)) / ((nu1^2 - nu0^2) / 2)`` (J/m), whose limit at nu0 = nu1 is
``T(nu) / nu``. ``NeoHookean`` (Eugster-Glocker (004), eq. 17) and ``LinearElastic`` give Q in
closed form without cancellation (``energy_quotient``); a user law without that method gets the
difference quotient, with the midpoint limit ``T(nu_m) / nu_m`` where ``|nu1^2 - nu0^2|`` is
within ``QUOTIENT_SWITCH`` of ``nu0^2 + nu1^2`` (there the rounding of W1 - W0 would dominate).

The bending term (``bending_stiffness > 0``) is not covered: its strain ``r' x r'' / |r'|^2`` is
not quadratic in q, and ``averaged_internal_force`` refuses it with a ValueError.

Tangent: ``averaged_tangent`` is the exact derivative d f_avg / d q1 (not symmetric). A time
stepper whose residual holds ``2 f_avg(q_n, q_n+1) - f_n`` may use ``tangent_stiffness`` at q_n+1
instead: ``2 d f_avg / d q1 = K(q_mid) + O(|q1 - q0|) = K(q1) + O(|q1 - q0|)``, a consistent
approximation with which Newton's method converges linearly at a rate O(|q1 - q0|).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .string_forces import assemble_section_tangent, element_coordinates
from .string_model import StringModel

# relative size of nu1^2 - nu0^2 below which a law without ``energy_quotient`` takes the
# midpoint limit T / nu: the difference quotient's rounding is eps W / (nu1^2 - nu0^2), the
# limit's truncation error W''' (nu1^2 - nu0^2)^2 / 24: both ~1e-11 relative here
QUOTIENT_SWITCH = 1e-5


def energy_quotient(law, nu0, nu1) -> np.ndarray:
    """``(W(nu1) - W(nu0)) / ((nu1^2 - nu0^2) / 2)`` in J/m (any matching shapes), its limit
    ``T(nu) / nu`` where the stretches agree; the law's own closed form when it has one."""
    own = getattr(law, "energy_quotient", None)
    if callable(own):
        return own(nu0, nu1)
    nu0, nu1 = np.asarray(nu0, dtype=float), np.asarray(nu1, dtype=float)
    d2 = 0.5 * (nu1 * nu1 - nu0 * nu0)
    close = np.abs(d2) <= QUOTIENT_SWITCH * 0.5 * (nu0 * nu0 + nu1 * nu1)
    safe = np.where(close, 1.0, d2)
    nu_m = np.sqrt(0.5 * (nu0 * nu0 + nu1 * nu1))  # the stretch of the midpoint strain e_mid
    return np.where(close, law.tension(nu_m) / nu_m, (law.energy(nu1) - law.energy(nu0)) / safe)


def _check_flexible(model: StringModel) -> None:
    if model.spec.bending_stiffness > 0.0:
        raise ValueError(
            f"bending_stiffness = {model.spec.bending_stiffness:g} N m^2: the energy-consistent "
            "average is implemented for the tension law only (the bending strain is not "
            "quadratic in q); allowed: a string with bending_stiffness = 0"
        )


def _slopes(model: StringModel, q: np.ndarray) -> np.ndarray:
    """r' at the quadrature points, shape (n_elements, n_qp, 2)."""
    q_e = element_coordinates(model.basis.element_dofs, q)
    return np.einsum("eac,eaq->eqc", q_e, model.shape_slopes)


def averaged_stress(model: StringModel, q0: np.ndarray, q1: np.ndarray):
    """(S_avg (n_elements, n_qp) in N per unit |r'|, a_mid (n_elements, n_qp, 2), a0, a1): the
    averaged stress of the module docstring and the slopes at the midpoint and the two ends."""
    _check_flexible(model)
    a0, a1 = _slopes(model, q0), _slopes(model, q1)
    metric = model.ref_metric
    nu0 = np.sqrt(np.sum(a0**2, axis=-1)) / metric
    nu1 = np.sqrt(np.sum(a1**2, axis=-1)) / metric
    S = energy_quotient(model.spec.law, nu0, nu1) / metric
    return S, 0.5 * (a0 + a1), a0, a1


def averaged_internal_force(model: StringModel, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    """Discrete gradient f_avg(q0, q1), shape (n_dofs,), N: ``f_avg . (q1 - q0) = V(q1) - V(q0)``
    and ``f_avg(q, q) = internal_force(q)`` (module docstring). q0, q1 : full dof vectors."""
    S, a_mid, _, _ = averaged_stress(model, q0, q1)
    stress = np.zeros(S.shape + (4,))
    stress[..., 0:2] = S[..., None] * a_mid
    f_e = np.einsum("eqik,eqk->ei", model.strain_operator, stress * model.dx[..., None])
    return np.bincount(
        model.basis.element_dofs.T.ravel(), weights=f_e.ravel(), minlength=model.n_dofs
    )


def averaged_tangent(model: StringModel, q0: np.ndarray, q1: np.ndarray) -> sp.csr_matrix:
    """Exact d f_avg(q0, q1) / d q1, sparse CSR (n_dofs, n_dofs), not symmetric.

    Per quadrature point d(S a_mid)/d a1 = S/2 I + a_mid (dS/de1 a1)^T with
    dS/de1 = (W_hat'(e1) - S) / (e1 - e0) (limit W_hat''(e_mid) / 2, taken where
    |e1 - e0| <= QUOTIENT_SWITCH (e0 + e1)), W_hat'(e) = T / |a|,
    W_hat''(e) = (T'(nu) nu - T(nu)) / (|r_ref'|^3 nu^3)."""
    S, a_mid, a0, a1 = averaged_stress(model, q0, q1)
    law, metric = model.spec.law, model.ref_metric
    e0, e1 = 0.5 * np.sum(a0**2, axis=-1), 0.5 * np.sum(a1**2, axis=-1)
    nu1 = np.sqrt(2.0 * e1) / metric
    de = e1 - e0
    close = np.abs(de) <= QUOTIENT_SWITCH * (e0 + e1)
    nu_m = np.sqrt(e0 + e1) / metric
    limit = 0.5 * (law.dtension(nu_m) * nu_m - law.tension(nu_m)) / (metric**3 * nu_m**3)
    slope = law.tension(nu1) / (metric * nu1)
    dS = np.where(close, limit, (slope - S) / np.where(close, 1.0, de))
    block = (
        0.5 * S[..., None, None] * np.eye(2)
        + (dS[..., None, None] * a_mid[..., :, None]) * (a1[..., None, :])
    )
    tangent = np.zeros(S.shape + (4, 4))
    tangent[..., 0:2, 0:2] = block
    return assemble_section_tangent(model, tangent)
