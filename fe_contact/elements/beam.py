"""Planar Euler-Bernoulli beam on Hermite cubics, Lipinski (002), sec. 3.

The beam lies along the unit vector ``t0 = (cos angle, sin angle)`` from ``origin``; the material
coordinate ``x`` runs from 0 to ``length`` along it and the transverse displacement ``w(x)`` is measured
along ``n0 = (-sin angle, cos angle)``. The theory is linear (small deflections, no axial motion), as in
the paper. Each node carries the DOFs ``(w, w')`` in scikit-fem's order, which is the element vector of
Lipinski (002), eq. (8): ``(w_i, w'_i, w_j, w'_j)``.

An axial pre-tension N (``BeamSpec.axial_force``, N, tension positive, constant along the beam: a
wire tensioned between its supports) adds the geometric stiffness N w' v' to the bending stiffness,
the linearised potential N/2 int w'^2 dx of the stretched axis; it stiffens the beam (omega_n of a
pinned-pinned beam grows by sqrt(1 + N L^2 / (EI n^2 pi^2))) and, compressive, softens it down to
its first buckling load, beyond which ``assemble_beam`` refuses it.

Mass, stiffness and Rayleigh damping (002 eqs. 16-17) are assembled once with scikit-fem
``BilinearForm`` s on ``ElementLineHermiteLocal`` (``elements.hermite``: the Hermite cubics written in
the element coordinate zeta, exact to rounding on meshes of any number of elements). Point
evaluations (deflection, slope, curvature, and the shape-function rows and their derivatives with
respect to zeta, 002 eqs. 12, 31, 41) use that element's own monomial coefficients
(``hermite.shape_coefficients``), so the contact coupling and the assembly share one set of shape
functions.

This module assembles the beam (the scikit-fem forms, the supports, the buckling check, the
self-weight load) and exports the whole element: the description and the assembled type
(``elements.beam_model``: ``BeamSpec``, ``Beam``), the evaluation at material points
(``elements.beam_points``: ``shape_rows``, ``beam_fields``, ``material_point``, ``point_load``)
and the beam's linear analyses (``elements.beam_analysis``: ``static_deflection``,
``natural_modes``, the energies).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from skfem import Basis, BilinearForm, LinearForm, MeshLine
from skfem.helpers import dd

from .. import validation as check
from ..constants import STANDARD_GRAVITY
from .beam_analysis import (
    Modes,
    elastic_energy,
    kinetic_energy,
    natural_modes,
    static_deflection,
)
from .beam_model import SUPPORT_KINDS, Beam, BeamSpec
from .beam_points import (
    BeamFields,
    ShapeRows,
    beam_fields,
    locate,
    material_point,
    point_load,
    shape_rows,
    shape_rows_at,
)
from .hermite import ElementLineHermiteLocal, shape_coefficients

__all__ = [
    "SUPPORT_KINDS",
    "Beam",
    "BeamFields",
    "BeamSpec",
    "Modes",
    "ShapeRows",
    "assemble_beam",
    "beam_fields",
    "bending_form",
    "consistent_mass",
    "distributed_load",
    "elastic_energy",
    "geometric_stiffness",
    "kinetic_energy",
    "locate",
    "material_point",
    "natural_modes",
    "point_load",
    "self_weight",
    "shape_rows",
    "shape_rows_at",
    "static_deflection",
]


@BilinearForm
def consistent_mass(u, v, w):
    """rho A u v: the consistent mass of Lipinski (002), eq. (16)."""
    return w.rho_A * u * v


@BilinearForm
def bending_form(u, v, w):
    """E I u'' v'': the bilinear form of the bending stiffness matrix, Lipinski (002), eq. (16)
    (E I itself is ``BeamSpec.bending_stiffness``)."""
    return w.EI * dd(u)[0, 0] * dd(v)[0, 0]


@BilinearForm
def geometric_stiffness(u, v, w):
    """N u' v': the stiffness of an axial pre-tension N, from the potential N/2 int w'^2 dx."""
    return w.N * u.grad[0] * v.grad[0]


@LinearForm
def distributed_load(v, w):
    """q v for a uniform transverse load q in N/m."""
    return w.q * v


def _support_dofs(basis: Basis, node: int, kind: str) -> list[int]:
    w_dof, slope_dof = basis.nodal_dofs[:, node]
    return {"clamped": [w_dof, slope_dof], "pinned": [w_dof], "free": []}[kind]


def assemble_beam(spec: BeamSpec) -> Beam:
    """Assemble mass, stiffness and Rayleigh damping once with scikit-fem (002 eqs. 16-17).

    Parameters
    ----------
    spec : BeamSpec
        The beam's description.

    Returns
    -------
    Beam
        The assembled beam.

    Raises
    ------
    ValueError
        When a compressive ``axial_force`` reaches the first buckling load (K not positive
        definite on the free DOFs).

    Examples
    --------
    4 elements: 5 nodes of (w, w'), the clamped node's two DOFs fixed; the consistent mass
    matrix carries the beam's mass rho A L in translation:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> beam.n_dofs, beam.fixed_dofs.size
    (10, 2)
    >>> ones = np.zeros(beam.n_dofs)
    >>> ones[beam.basis.nodal_dofs[0]] = 1.0  # w = 1 at every node, w' = 0
    >>> print(f"{ones @ beam.mass_matrix @ ones:.4g} kg = rho A L = {spec.mass_per_length * 0.4:.4g} kg")
    0.0282 kg = rho A L = 0.0282 kg
    """
    nodes = spec.nodes()
    mesh = MeshLine(nodes)
    basis = Basis(mesh, ElementLineHermiteLocal())
    mass = consistent_mass.assemble(basis, rho_A=spec.mass_per_length).tocsr()
    stiffness = bending_form.assemble(basis, EI=spec.bending_stiffness).tocsr()
    if spec.axial_force != 0.0:
        stiffness = (stiffness + geometric_stiffness.assemble(basis, N=spec.axial_force)).tocsr()
    damping = (spec.rayleigh_alpha * mass + spec.rayleigh_beta * stiffness).tocsr()
    fixed = sorted(
        set(_support_dofs(basis, 0, spec.left))
        | set(_support_dofs(basis, len(nodes) - 1, spec.right))
    )
    fixed = np.asarray(fixed, dtype=int)
    free = np.setdiff1d(np.arange(basis.N), fixed)
    if spec.axial_force < 0.0:
        _require_below_buckling(spec, stiffness[free][:, free])
    element_dofs = np.ascontiguousarray(basis.element_dofs.T)
    c, s = np.cos(spec.angle), np.sin(spec.angle)
    return Beam(
        spec=spec,
        basis=basis,
        mass_matrix=mass,
        stiffness_matrix=stiffness,
        damping_matrix=damping,
        free_dofs=free,
        fixed_dofs=fixed,
        nodes=nodes,
        element_dofs=element_dofs,
        element_length=np.diff(nodes),
        coefficients=shape_coefficients(np.diff(nodes)),
        t0=np.array([c, s]),
        n0=np.array([-s, c]),
    )


def _require_below_buckling(spec: BeamSpec, stiffness: sp.spmatrix) -> None:
    """Refuse a compressive ``axial_force`` at or past the first buckling load: the stiffness
    on the free DOFs, (n_free, n_free), must stay positive definite (a banded Cholesky
    factorisation; a support that leaves a rigid-body mode buckles under any compression)."""
    coo = stiffness.tocoo()
    n = stiffness.shape[0]
    band = int(np.max(np.abs(coo.row - coo.col))) if coo.nnz else 0
    upper = np.zeros((band + 1, n))
    keep = coo.col >= coo.row
    upper[band + coo.row[keep] - coo.col[keep], coo.col[keep]] = coo.data[keep]
    try:
        scipy.linalg.cholesky_banded(upper, lower=False)
    except np.linalg.LinAlgError:
        pinned = np.pi**2 * spec.bending_stiffness / spec.length**2
        check.fail(
            "BeamSpec.axial_force",
            spec.axial_force,
            "a tension (> 0), or a compression below the first buckling load of the beam on its "
            f"supports (left={spec.left!r}, right={spec.right!r}; pinned-pinned: pi^2 EI / L^2 "
            f"= {pinned:.6g} N): the stiffness with this force is not positive definite",
        )


def self_weight(beam: Beam, gravity=STANDARD_GRAVITY) -> np.ndarray:
    """Consistent load of the beam's weight.

    Only the component of gravity normal to the axis acts (linear theory, no axial DOFs).

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    gravity : tuple of float, shape (2,), optional
        Gravity (g_x, g_y), m/s^2; (0, -9.81) by default.

    Returns
    -------
    ndarray, shape (n_dofs,)
        The load vector (N, N m).

    Examples
    --------
    A cantilever under its own weight sags q L^4 / (8 EI) at the tip (q = rho A g):

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import beam_fields, self_weight, static_deflection
    >>> u = static_deflection(beam, self_weight(beam))
    >>> q = spec.mass_per_length * 9.81
    >>> w, closed = beam_fields(beam, u, 0.4).deflection[0], -q * 0.4**4 / (8 * spec.bending_stiffness)
    >>> print(f"{w * 1e3:.4f} mm, {closed * 1e3:.4f} mm")
    -3.7471 mm, -3.7471 mm
    """
    q = beam.spec.mass_per_length * float(np.dot(np.asarray(gravity, dtype=float), beam.n0))
    return distributed_load.assemble(beam.basis, q=q)
