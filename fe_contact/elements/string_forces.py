"""Per-step kernels of the string element, Eugster-Glocker (004), eqs. (15)-(17): internal
force, tangent stiffness and strain energy, vectorised over all quadrature points of all
elements, and the plain scikit-fem ``internal_force_form`` they are checked against. Re-exported
by ``elements.string``; the conventions are those of its docstring."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from skfem import LinearForm
from skfem.helpers import dd, dot, grad

from ..curves import PERP
from .tension import check_law

if TYPE_CHECKING:
    from .string import StringModel


def element_coordinates(element_dofs: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Gather q per element as shape (n_elements, 4, 2): [element, scalar function, component]."""
    return q[element_dofs].T.reshape(-1, 4, 2)


def _section_response(model: StringModel, q: np.ndarray, order: int):
    """Energy density per ds, generalized stresses and their tangent at quadrature points.

    Strain vector per quadrature point: ``(r'_x, r'_y, r''_x, r''_y)``; below ``a = r'``,
    ``b = r''``, ``cross = a x b``, ``m2 = |a|^2``, ``metric = |r_ref'|``, bending strain
    ``cross / m2`` (rotation of the tangent per ds).
    Returns energy (n_elements, n_qp); if order >= 1 stress (n_elements, n_qp, 4) =
    d(energy)/d(strain); if order >= 2 tangent (n_elements, n_qp, 4, 4).
    Axial part: Eugster-Glocker (004), eqs. (15)-(16); bending: exact rotation rate of the tangent.
    """
    law = model.spec.law
    bending_stiffness = float(model.spec.bending_stiffness)
    q_e = element_coordinates(model.basis.element_dofs, q)
    a = np.einsum("eac,eaq->eqc", q_e, model.shape_slopes)  # r'
    metric = model.ref_metric
    m2 = np.sum(a**2, axis=-1)
    m = np.sqrt(m2)
    nu = m / metric
    energy = metric * law.energy(nu)
    if bending_stiffness > 0.0:
        b = np.einsum("eac,eaq->eqc", q_e, model.shape_curvatures)  # r''
        cross = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
        bending_strain = cross / m2
        excess = bending_strain - model.ref_bending_strain
        energy = energy + 0.5 * bending_stiffness / metric * excess**2
    if order == 0:
        return energy, None, None

    tension = law.tension(nu)
    t = a / m[..., None]
    stress = np.zeros(a.shape[:2] + (4,))
    stress[..., 0:2] = tension[..., None] * t
    if bending_stiffness > 0.0:
        c_a = -b @ PERP.T  # d(cross)/d(r') = -perp(r'')
        c_b = a @ PERP.T  # d(cross)/d(r'') = perp(r')
        g_a = c_a / m2[..., None] - 2.0 * (cross / m2**2)[..., None] * a
        g_b = c_b / m2[..., None]
        moment = bending_stiffness / metric * excess  # EI kappa-excess / |r_ref'|
        stress[..., 0:2] += moment[..., None] * g_a
        stress[..., 2:4] = moment[..., None] * g_b
    if order == 1:
        return energy, stress, None

    eye = np.eye(2)
    tt = t[..., :, None] * t[..., None, :]
    tangent = np.zeros(a.shape[:2] + (4, 4))
    axial_stiffness = law.dtension(nu) / metric  # dT/d|r'|
    geometric_stiffness = tension / m  # T / |r'|, transverse
    tangent[..., 0:2, 0:2] = axial_stiffness[..., None, None] * tt + geometric_stiffness[
        ..., None, None
    ] * (eye - tt)
    if bending_stiffness > 0.0:
        g = np.concatenate((g_a, g_b), axis=-1)
        h = np.zeros_like(tangent)
        outer = c_a[..., :, None] * a[..., None, :]
        h[..., 0:2, 0:2] = (
            -2.0 * (outer + np.swapaxes(outer, -1, -2)) / (m2**2)[..., None, None]
            - 2.0 * (cross / m2**2)[..., None, None] * eye
            + 8.0 * (cross / m2**3)[..., None, None] * a[..., :, None] * a[..., None, :]
        )
        h_ab = (
            -PERP / m2[..., None, None]
            - 2.0 * a[..., :, None] * c_b[..., None, :] / (m2**2)[..., None, None]
        )
        h[..., 0:2, 2:4] = h_ab
        h[..., 2:4, 0:2] = np.swapaxes(h_ab, -1, -2)
        tangent += (bending_stiffness / metric)[..., None, None] * (
            g[..., :, None] * g[..., None, :] + excess[..., None, None] * h
        )
    return energy, stress, tangent


def internal_force(model: StringModel, q: np.ndarray) -> np.ndarray:
    """Internal forces f_int(q), shape (n_dofs,), Eugster-Glocker (004), eq. (16) (+ bending).

    Gathers q per element, contracts with the cached skfem tables, scatters with np.bincount.
    Entries at the fixed dofs are returned too: there f_int - f_ext is the support reaction.
    """
    _, stress, _ = _section_response(model, q, order=1)
    f_e = np.einsum("eqik,eqk->ei", model.strain_operator, stress * model.dx[..., None])
    return np.bincount(
        model.basis.element_dofs.T.ravel(), weights=f_e.ravel(), minlength=model.n_dofs
    )


def tangent_stiffness(model: StringModel, q: np.ndarray) -> sp.csr_matrix:
    """Consistent tangent d f_int / dq (material + geometric), sparse CSR (n_dofs, n_dofs)."""
    _, _, tangent = _section_response(model, q, order=2)
    return assemble_section_tangent(model, tangent)


def assemble_section_tangent(model: StringModel, tangent: np.ndarray) -> sp.csr_matrix:
    """The sparse matrix sum_e int B^T D B dx of section tangents D (n_elements, n_quad, 4, 4)
    at the quadrature points (B: ``model.strain_operator``), CSR (n_dofs, n_dofs) in the
    model's fixed sparsity pattern."""
    weighted = np.einsum(
        "eqik,eqkl->eqil", model.strain_operator, tangent * model.dx[..., None, None]
    )
    k_e = np.einsum("eqil,eqjl->eij", weighted, model.strain_operator)
    data = np.bincount(model._csr_inverse, weights=k_e.ravel(), minlength=model._csr_indices.size)
    return sp.csr_matrix(
        (data, model._csr_indices, model._csr_indptr), shape=(model.n_dofs, model.n_dofs)
    )


def element_tangents(model: StringModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(f_int(q) (n_dofs,), element tangents (n_elements, 8, 8)) from one section response:
    the force of ``internal_force`` and the blocks that ``tangent_stiffness`` scatters (the
    same operations, so the same values to the last bit); local dof order of
    ``basis.element_dofs``."""
    _, stress, tangent = _section_response(model, q, order=2)
    f_e = np.einsum("eqik,eqk->ei", model.strain_operator, stress * model.dx[..., None])
    force = np.bincount(
        model.basis.element_dofs.T.ravel(), weights=f_e.ravel(), minlength=model.n_dofs
    )
    weighted = np.einsum(
        "eqik,eqkl->eqil", model.strain_operator, tangent * model.dx[..., None, None]
    )
    return force, np.einsum("eqil,eqjl->eij", weighted, model.strain_operator)


def strain_energy(model: StringModel, q: np.ndarray) -> float:
    """Elastic energy in J: integral of W(nu) |r_ref'| ds plus the bending energy."""
    energy, _, _ = _section_response(model, q, order=0)
    return float(np.sum(energy * model.dx))


def internal_force_form(law, bending_stiffness: float = 0.0) -> LinearForm:
    """Plain scikit-fem LinearForm of the internal virtual work, the reference for the kernels.

    Assemble with ``internal_force_form(law, EI).assemble(model.basis, r=q, r_ref=model.q_ref)``;
    Eugster-Glocker (004), eq. (16), T(nu) r'/|r'| . delta r', plus
    EI/|r_ref'| (kappa - kappa_ref) delta(r' x r'' / |r'|^2) for the bending part.
    """
    check_law(law)

    def form(v, w):
        r_s, r_ss = grad(w.r)[:, 0], dd(w.r)[:, 0, 0]
        ref_s, ref_ss = grad(w.r_ref)[:, 0], dd(w.r_ref)[:, 0, 0]
        v_s, v_ss = grad(v)[:, 0], dd(v)[:, 0, 0]
        length = np.sqrt(dot(r_s, r_s))
        metric = np.sqrt(dot(ref_s, ref_s))
        work = law.tension(length / metric) / length * dot(r_s, v_s)
        if bending_stiffness > 0.0:
            cross = r_s[0] * r_ss[1] - r_s[1] * r_ss[0]
            ref_strain = (ref_s[0] * ref_ss[1] - ref_s[1] * ref_ss[0]) / metric**2
            d_cross = v_s[0] * r_ss[1] - v_s[1] * r_ss[0] + r_s[0] * v_ss[1] - r_s[1] * v_ss[0]
            d_strain = d_cross / length**2 - 2.0 * cross * dot(r_s, v_s) / length**4
            work = work + bending_stiffness / metric * (cross / length**2 - ref_strain) * d_strain
        return work

    return LinearForm(form)
