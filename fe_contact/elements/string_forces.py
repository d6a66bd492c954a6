"""Per-step kernels of the string element, Eugster-Glocker (004), eqs. (15)-(17): internal
force and tangent stiffness through the compiled element kernel (``kernels.string``), strain
energy vectorised over all quadrature points of all elements, and the plain scikit-fem
``internal_force_form`` they are checked against. Re-exported by ``elements.string``; the
conventions are those of its docstring."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from skfem import LinearForm
from skfem.helpers import dd, dot, grad

from ..kernels.string import element_response, section_strains
from .string_model import StringModel
from .tension import check_law


def element_coordinates(element_dofs: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Gather q per element as shape (n_elements, 4, 2): [element, scalar function, component]."""
    return q[element_dofs].T.reshape(-1, 4, 2)


def _section_strains(model: StringModel, q: np.ndarray):
    """(r' (n_elements, n_qp, 2), r'' (same; zeros without bending stiffness), stretch nu =
    |r'| / |r_ref'| (n_elements, n_qp)) at the quadrature points (``kernels.string``)."""
    return section_strains(
        np.asarray(q, dtype=float),
        model.basis.element_dofs,
        model.shape_slopes,
        model.shape_curvatures,
        model.ref_metric,
        float(model.spec.bending_stiffness) > 0.0,
    )


def _element_response(model: StringModel, q: np.ndarray, order: int):
    """Element forces (n_elements, 8) and, for order 2, element tangents (n_elements, 8, 8)
    (``kernels.string.element_response``; the tension law evaluated here, on arrays)."""
    law = model.spec.law
    a, b, nu = _section_strains(model, q)
    tension = np.ascontiguousarray(law.tension(nu), dtype=float)
    if order >= 2:
        # a writable copy: a broadcast view is read-only, which numba compiles a second time
        dtension = np.array(np.broadcast_to(law.dtension(nu), nu.shape), dtype=float)
    else:
        dtension = tension
    return element_response(
        a,
        b,
        tension,
        dtension,
        model.ref_metric,
        float(model.spec.bending_stiffness),
        model.ref_bending_strain,
        model.shape_slopes,
        model.shape_curvatures,
        model.dx,
        order,
    )


def _scatter_force(model: StringModel, f_e: np.ndarray) -> np.ndarray:
    return np.bincount(
        model.basis.element_dofs.T.ravel(), weights=f_e.ravel(), minlength=model.n_dofs
    )


def internal_force(model: StringModel, q: np.ndarray) -> np.ndarray:
    """Internal forces f_int(q), shape (n_dofs,), Eugster-Glocker (004), eq. (16) (+ bending).

    Gathers q per element, evaluates the element kernel (``kernels.string``) on the cached
    skfem tables, scatters with np.bincount.
    Entries at the fixed dofs are returned too: there f_int - f_ext is the support reaction.
    """
    f_e, _ = _element_response(model, q, order=1)
    return _scatter_force(model, f_e)


def tangent_stiffness(model: StringModel, q: np.ndarray) -> sp.csr_matrix:
    """Consistent tangent d f_int / dq (material + geometric), sparse CSR (n_dofs, n_dofs)."""
    _, k_e = _element_response(model, q, order=2)
    return assemble_element_tangents(model, k_e)


def assemble_element_tangents(model: StringModel, k_e: np.ndarray) -> sp.csr_matrix:
    """The sparse matrix of element tangents k_e (n_elements, 8, 8) (local dof order of
    ``basis.element_dofs``), CSR (n_dofs, n_dofs) in the model's fixed sparsity pattern."""
    data = np.bincount(model._csr_inverse, weights=k_e.ravel(), minlength=model._csr_indices.size)
    return sp.csr_matrix(
        (data, model._csr_indices, model._csr_indptr), shape=(model.n_dofs, model.n_dofs)
    )


def assemble_section_tangent(model: StringModel, tangent: np.ndarray) -> sp.csr_matrix:
    """The sparse matrix sum_e int B^T D B dx of section tangents D (n_elements, n_quad, 4, 4)
    at the quadrature points (B: ``model.strain_operator``), CSR (n_dofs, n_dofs) in the
    model's fixed sparsity pattern (the energy-consistent average's tangent)."""
    weighted = np.einsum(
        "eqik,eqkl->eqil", model.strain_operator, tangent * model.dx[..., None, None]
    )
    k_e = np.einsum("eqil,eqjl->eij", weighted, model.strain_operator)
    return assemble_element_tangents(model, k_e)


def element_tangents(model: StringModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(f_int(q) (n_dofs,), element tangents (n_elements, 8, 8)) from one element evaluation:
    the force of ``internal_force`` and the blocks that ``tangent_stiffness`` scatters (the
    same kernel, so the same values to the last bit); local dof order of
    ``basis.element_dofs``."""
    f_e, k_e = _element_response(model, q, order=2)
    return _scatter_force(model, f_e), k_e


def _strain_energy_density(model: StringModel, q: np.ndarray) -> np.ndarray:
    """Energy per ds at the quadrature points, (n_elements, n_qp): W(nu) |r_ref'| (004, eq. 15)
    plus EI/(2 |r_ref'|) (kappa - kappa_ref)^2 with kappa = (r' x r'') / |r'|^2."""
    a, b, nu = _section_strains(model, q)
    metric = model.ref_metric
    energy = metric * model.spec.law.energy(nu)
    bending_stiffness = float(model.spec.bending_stiffness)
    if bending_stiffness > 0.0:
        cross = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
        excess = cross / np.sum(a**2, axis=-1) - model.ref_bending_strain
        energy = energy + 0.5 * bending_stiffness / metric * excess**2
    return energy


def strain_energy(model: StringModel, q: np.ndarray) -> float:
    """Elastic energy in J: integral of W(nu) |r_ref'| ds plus the bending energy."""
    return float(np.sum(_strain_energy_density(model, q) * model.dx))


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
