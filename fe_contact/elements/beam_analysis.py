"""The beam's linear analyses on its own (``elements.beam`` re-exports these names): the static
deflection K u = f, the natural modes K phi = omega^2 M phi, and the elastic and kinetic energies,
all on the constant matrices of the assembled ``Beam`` (Lipinski (002), eqs. 16-17).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse.linalg as spla

from .beam_model import Beam


def _require_no_rigid_modes(beam: Beam) -> None:
    kinds = (beam.spec.left, beam.spec.right)
    if "clamped" not in kinds and kinds != ("pinned", "pinned"):
        raise ValueError(
            f"supports left={kinds[0]!r}, right={kinds[1]!r} leave a rigid-body mode; a static "
            "solve needs one clamped end or both ends pinned"
        )


def static_deflection(beam: Beam, load: np.ndarray) -> np.ndarray:
    """Solve K u = f on the free DOFs.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    load : ndarray, shape (n_dofs,)
        The load vector f (N, N m).

    Returns
    -------
    ndarray, shape (n_dofs,)
        The full DOF vector u (m, rad), zero at the fixed DOFs.

    Raises
    ------
    ValueError
        When ``load`` has another shape.

    Examples
    --------
    A cantilever under 1 N at its tip: P L^3 / (3 EI), exact at the nodes with Hermite cubics:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import point_load, static_deflection
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.elements.beam import beam_fields
    >>> w = beam_fields(beam, u, 0.4).deflection[0]
    >>> closed = -0.4**3 / (3 * spec.bending_stiffness)
    >>> print(f"{w * 1e3:.4f} mm, -P L^3 / (3 EI) = {closed * 1e3:.4f} mm")
    -36.1199 mm, -P L^3 / (3 EI) = -36.1199 mm
    """
    _require_no_rigid_modes(beam)
    load = np.asarray(load, dtype=float)
    if load.shape != (beam.n_dofs,):
        raise ValueError(f"load must have shape ({beam.n_dofs},), got {load.shape}")
    u_free = spla.spsolve(beam.reduced("stiffness").tocsc(), load[beam.free_dofs])
    return beam.expand(u_free)


@dataclass(frozen=True)
class Modes:
    """Natural modes, mass-normalised (shapes.T M shapes = I).

    Parameters
    ----------
    omega : ndarray, shape (n_modes,)
        Circular frequencies, rad/s.
    frequency : ndarray, shape (n_modes,)
        Frequencies, Hz.
    shapes : ndarray, shape (n_dofs, n_modes)
        Mode shapes on the full DOF vector.

    Examples
    --------
    See ``natural_modes``; the shapes are mass-normalised:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import natural_modes
    >>> modes = natural_modes(beam, n_modes=3)
    >>> phi = modes.shapes
    >>> bool(np.allclose(phi.T @ beam.mass_matrix @ phi, np.eye(3), atol=1e-10))
    True
    """

    omega: np.ndarray
    frequency: np.ndarray
    shapes: np.ndarray


def natural_modes(beam: Beam, n_modes: int = 6) -> Modes:
    """Lowest natural modes of the undamped beam, K phi = omega^2 M phi on the free DOFs.

    Shift-invert Lanczos on the sparse matrices (``scipy.sparse.linalg.eigsh``, sigma = 0, or a
    small negative shift when K is singular, a beam with rigid-body modes): it resolves the
    lowest eigenvalues to about 1e-9 relative on any mesh, where a dense solver loses them in
    the round-off of the largest (omega_max / omega_1 grows as n_elements^2: with 80 elements
    the dense first frequency fell 4e-7 below the exact one, which the consistent-mass Ritz
    bound forbids). Only when nearly all modes are asked for, the dense solver is used.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    n_modes : int, optional
        Number of modes, in [1, number of free DOFs]; 6 by default.

    Returns
    -------
    Modes
        The modes in increasing frequency.

    Raises
    ------
    ValueError
        When ``n_modes`` is out of range.

    Examples
    --------
    The first frequency of the manipulator's cantilever, (beta_1 L)^2 sqrt(EI / (rho A L^4))
    with beta_1 L = 1.875104 (10 elements: 1e-6 above it):

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam, natural_modes
    >>> spec = BeamSpec(length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> modes = natural_modes(assemble_beam(spec), n_modes=2)
    >>> exact = 1.875104**2 * np.sqrt(spec.bending_stiffness / (spec.mass_per_length * 0.4**4))
    >>> print(f"{modes.omega[0]:.5g} rad/s, closed form {exact:.5g} rad/s")
    63.605 rad/s, closed form 63.605 rad/s
    """
    n_free = beam.free_dofs.size
    if not isinstance(n_modes, int | np.integer) or not 1 <= n_modes <= n_free:
        raise ValueError(f"n_modes must be an integer in [1, {n_free}], got {n_modes!r}")
    K = beam.reduced("stiffness").tocsc()
    M = beam.reduced("mass").tocsc()
    if n_modes >= n_free - 1:
        eigval, vec = scipy.linalg.eigh(K.toarray(), M.toarray(), subset_by_index=(0, n_modes - 1))
    else:
        try:
            eigval, vec = spla.eigsh(K, k=n_modes, M=M, sigma=0.0, which="LM")
        except RuntimeError:  # K singular (rigid-body modes): shift below zero
            shift = 1e-9 * float(K.diagonal().mean() / M.diagonal().mean())
            eigval, vec = spla.eigsh(K, k=n_modes, M=M, sigma=-shift, which="LM")
        order = np.argsort(eigval)
        eigval, vec = eigval[order], vec[:, order]
        vec = vec / np.sqrt(np.einsum("ik,ik->k", vec, M @ vec))[None, :]
    omega = np.sqrt(np.clip(eigval, 0.0, None))
    return Modes(omega=omega, frequency=omega / (2 * np.pi), shapes=beam.expand(vec))


def elastic_energy(beam: Beam, u: np.ndarray) -> float:
    """Strain energy 1/2 u^T K u.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    u : ndarray, shape (n_dofs,)
        Full DOF vector (m, rad).

    Returns
    -------
    float
        The energy, J.

    Examples
    --------
    The strain energy of the cantilever under 1 N at the tip is P^2 L^3 / (6 EI):

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import point_load, static_deflection
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.elements.beam import elastic_energy
    >>> print(f"{elastic_energy(beam, u):.4g} J = {0.4**3 / (6 * spec.bending_stiffness):.4g} J")
    0.01806 J = 0.01806 J
    """
    return 0.5 * float(u @ (beam.stiffness_matrix @ u))


def kinetic_energy(beam: Beam, v: np.ndarray) -> float:
    """Kinetic energy 1/2 v^T M v.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    v : ndarray, shape (n_dofs,)
        Full DOF velocity vector (m/s, rad/s).

    Returns
    -------
    float
        The energy, J.

    Examples
    --------
    A free-free beam translating at 1 m/s: m v^2 / 2 with m = rho A L:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam, kinetic_energy
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015, left="free", right="free")
    >>> beam = assemble_beam(spec)
    >>> v = np.zeros(beam.n_dofs)
    >>> v[beam.basis.nodal_dofs[0]] = 1.0
    >>> print(f"{kinetic_energy(beam, v):.4g} J = {0.5 * spec.mass_per_length * 0.4:.4g} J")
    0.0141 J = 0.0141 J
    """
    return 0.5 * float(v @ (beam.mass_matrix @ v))
