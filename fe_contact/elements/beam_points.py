"""The beam at its material points, Lipinski (002), eqs. 12, 31, 41 (``elements.beam`` re-exports
these names): the element and element coordinate of a point, the Hermite shape-function rows and
their derivatives there, the deflection, slope and curvature, the position in the plane, and the
consistent load of a point force.

The rows come from the assembled element's own monomial coefficients (``Beam.coefficients``,
``hermite.shape_coefficients``), so the contact coupling and the assembly share one set of shape
functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .beam_model import Beam


@dataclass(frozen=True)
class ShapeRows:
    """Shape-function rows at m points on the beam (002 eqs. 12, 31, 41).

    Derivatives are with respect to the element coordinate zeta = (x - x_e) / l_e, so
    d/dx = (1 / l_e) d/dzeta as in the paper.

    Parameters
    ----------
    element : ndarray of int, shape (m,)
        The element holding each point.
    zeta : ndarray, shape (m,)
        Element coordinate in [0, 1].
    dofs : ndarray of int, shape (m, 4)
        Global DOFs of that element.
    length : ndarray, shape (m,)
        Element length l_e, m.
    N : ndarray, shape (m, 4)
        The shape-function rows.
    N_z : ndarray, shape (m, 4)
        Their first zeta-derivatives.
    N_zz : ndarray, shape (m, 4)
        Their second zeta-derivatives.
    N_zzz : ndarray, shape (m, 4)
        Their third zeta-derivatives.

    Examples
    --------
    See ``shape_rows``; ``dx`` turns zeta-derivatives into x-derivatives:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import shape_rows
    >>> rows = shape_rows(beam, [0.15])
    >>> rows.dx(1).shape, float(rows.length[0])
    ((1, 4), 0.1)
    """

    element: np.ndarray
    zeta: np.ndarray
    dofs: np.ndarray
    length: np.ndarray
    N: np.ndarray
    N_z: np.ndarray
    N_zz: np.ndarray
    N_zzz: np.ndarray

    def dx(self, order: int) -> np.ndarray:
        """Rows of d^order w / dx^order, shape (m, 4)."""
        rows = (self.N, self.N_z, self.N_zz, self.N_zzz)[order]
        return rows / self.length[:, None] ** order


def locate(beam: Beam, x) -> tuple[np.ndarray, np.ndarray]:
    """Element index and element coordinate zeta of material coordinates x (vectorised).

    A node belongs to the element on its left, except x = 0.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    x : array_like, shape (m,)
        Material coordinates, m.

    Returns
    -------
    element : ndarray of int, shape (m,)
        The element holding each point.
    zeta : ndarray, shape (m,)
        Element coordinate in [0, 1].

    Raises
    ------
    ValueError
        For points outside [0, length].

    Examples
    --------
    x = 0.25 m lies a quarter into element 2 (elements of 0.1 m); a node belongs to the element
    on its left:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import locate
    >>> element, zeta = locate(beam, [0.25, 0.2])
    >>> element.tolist(), zeta.round(6).tolist()
    ([2, 1], [0.5, 1.0])
    """
    x = np.atleast_1d(np.asarray(x, dtype=float))
    length = beam.spec.length
    tol = 1e-12 * length
    if np.any(x < -tol) or np.any(x > length + tol):
        bad = x[(x < -tol) | (x > length + tol)][0]
        raise ValueError(f"x = {bad!r} m lies outside the beam [0, {length}] m")
    element = np.clip(np.searchsorted(beam.nodes, x, side="left") - 1, 0, beam.n_elements - 1)
    zeta = (x - beam.nodes[element]) / beam.element_length[element]
    return element, zeta


def shape_rows(beam: Beam, x) -> ShapeRows:
    """Shape-function rows and zeta-derivatives at material coordinates x.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    x : array_like, shape (m,)
        Material coordinates, m.

    Returns
    -------
    ShapeRows
        The rows at the m points.

    Examples
    --------
    The Hermite rows of w at a node are (1, 0, 0, 0) and (0, 0, 1, 0); they sum to 1 (a
    translation) everywhere:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import shape_rows
    >>> rows = shape_rows(beam, [0.1, 0.15])
    >>> (rows.N[0].round(12) + 0.0).tolist()
    [0.0, 0.0, 1.0, 0.0]
    >>> float(rows.N[1, 0] + rows.N[1, 2])
    1.0
    """
    element, zeta = locate(beam, x)
    coef = beam.coefficients[element]  # (m, 4 functions, 4 powers)
    N, N_z, N_zz = _polynomial_rows(coef, zeta[:, None])
    c3 = coef[..., 3]
    return ShapeRows(
        element=element,
        zeta=zeta,
        dofs=beam.element_dofs[element],
        length=beam.element_length[element],
        N=N,
        N_z=N_z,
        N_zz=N_zz,
        N_zzz=np.broadcast_to(6.0 * c3, c3.shape).copy(),
    )


def _polynomial_rows(coef, z):
    """The rows N, dN/dzeta, d2N/dzeta2 of the element cubics ``coef`` (..., 4 functions,
    4 powers) at zeta ``z`` (broadcast against coef[..., 0]), by Horner's rule: the one
    evaluation behind ``shape_rows`` and its scalar fast path ``shape_rows_at``."""
    c0, c1, c2, c3 = coef[..., 0], coef[..., 1], coef[..., 2], coef[..., 3]
    return (
        c0 + z * (c1 + z * (c2 + z * c3)),
        c1 + z * (2.0 * c2 + 3.0 * z * c3),
        2.0 * c2 + 6.0 * z * c3,
    )


def shape_rows_at(beam: Beam, x: float):
    """Scalar fast path of ``shape_rows`` for one point (per-step contact kernels).

    The rows come from the same element polynomials as ``shape_rows``.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    x : float
        Material coordinate, m.

    Returns
    -------
    element : int
        The element holding the point.
    dofs : ndarray of int, shape (4,)
        Its global DOFs.
    N : ndarray, shape (4,)
        The row of w.
    N_x : ndarray, shape (4,)
        The row of w' (d/dx).
    N_xx : ndarray, shape (4,)
        The row of w''.

    Raises
    ------
    ValueError
        Outside [0, length].

    Examples
    --------
    The scalar fast path gives the rows of ``shape_rows``:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import shape_rows, shape_rows_at
    >>> e, dofs, N, N_x, N_xx = shape_rows_at(beam, 0.15)
    >>> rows = shape_rows(beam, [0.15])
    >>> e, bool(np.allclose(N_xx, rows.dx(2)[0], rtol=1e-14))
    (1, True)
    """
    length = beam.spec.length
    if not -1e-12 * length <= x <= length * (1 + 1e-12):
        raise ValueError(f"x = {x!r} m lies outside the beam [0, {length}] m")
    e = min(max(int(np.searchsorted(beam.nodes, x, side="left")) - 1, 0), beam.n_elements - 1)
    le = beam.element_length[e]
    z = (x - beam.nodes[e]) / le
    N, N_z, N_zz = _polynomial_rows(beam.coefficients[e], z)
    return e, beam.element_dofs[e], N, N_z / le, N_zz / (le * le)


@dataclass(frozen=True)
class BeamFields:
    """Deflection w (m), slope w' (rad), curvature w'' (1/m) at m points.

    Parameters
    ----------
    x : ndarray, shape (m,)
        Material coordinates, m.
    deflection : ndarray, shape (m,)
        Deflection w, m.
    slope : ndarray, shape (m,)
        Slope w', rad.
    curvature : ndarray, shape (m,)
        Curvature w'', 1/m.

    Examples
    --------
    See ``beam_fields``:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import point_load, static_deflection
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.elements.beam import beam_fields
    >>> beam_fields(beam, u, [0.1, 0.2, 0.3]).deflection.shape
    (3,)
    """

    x: np.ndarray
    deflection: np.ndarray
    slope: np.ndarray
    curvature: np.ndarray


def beam_fields(beam: Beam, u: np.ndarray, x) -> BeamFields:
    """w, w', w'' of the full DOF vector u at material coordinates x.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    u : ndarray, shape (n_dofs,)
        Full DOF vector (m, rad).
    x : array_like, shape (m,)
        Material coordinates, m, in [0, length].

    Returns
    -------
    BeamFields
        Deflection, slope and curvature at x.

    Examples
    --------
    Deflection, slope and curvature of the cantilever under 1 N at its tip at x = 0.2 m:
    w = -P x^2 (3 L - x) / (6 EI), w' = -P x (2 L - x) / (2 EI), w'' = -P (L - x) / EI:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import point_load, static_deflection
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.elements.beam import beam_fields
    >>> f = beam_fields(beam, u, [0.2])
    >>> EI, x, L = spec.bending_stiffness, 0.2, 0.4
    >>> [round(float(v), 5) for v in (f.deflection[0], f.slope[0], f.curvature[0])]
    [-0.01129, -0.10159, -0.33862]
    >>> closed = (-x**2 * (3 * L - x) / (6 * EI), -x * (2 * L - x) / (2 * EI), -(L - x) / EI)
    >>> [round(v, 5) for v in closed]
    [-0.01129, -0.10159, -0.33862]
    """
    rows = shape_rows(beam, x)
    ue = np.asarray(u, dtype=float)[rows.dofs]
    return BeamFields(
        x=np.atleast_1d(np.asarray(x, dtype=float)),
        deflection=np.einsum("mj,mj->m", rows.dx(0), ue),
        slope=np.einsum("mj,mj->m", rows.dx(1), ue),
        curvature=np.einsum("mj,mj->m", rows.dx(2), ue),
    )


def point_load(beam: Beam, x: float, force: float = 0.0, moment: float = 0.0) -> np.ndarray:
    """Consistent nodal load of a transverse point force and a moment at x.

    Virtual work: force * delta w(x) + moment * delta w'(x).

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    x : float
        Material coordinate, m.
    force : float, optional
        Transverse force along n0, N; 0 by default.
    moment : float, optional
        Moment, N m; 0 by default.

    Returns
    -------
    ndarray, shape (n_dofs,)
        The load vector (N, N m).

    Examples
    --------
    1 N at the tip of a cantilever; a moment M = 1 N m there bends it to the slope
    M L / (EI):

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import beam_fields, point_load, static_deflection
    >>> u = static_deflection(beam, point_load(beam, 0.4, moment=1.0))
    >>> print(f"{beam_fields(beam, u, 0.4).slope[0]:.4f} rad = {0.4 / spec.bending_stiffness:.4f} rad")
    0.6772 rad = 0.6772 rad
    """
    rows = shape_rows(beam, [x])
    f = np.zeros(beam.n_dofs)
    np.add.at(f, rows.dofs[0], force * rows.dx(0)[0] + moment * rows.dx(1)[0])
    return f


def material_point(beam: Beam, x, u: np.ndarray) -> np.ndarray:
    """Positions in the plane of the beam's material points after deflection.

    Parameters
    ----------
    beam : Beam
        The assembled beam.
    x : array_like, shape (m,)
        Material coordinates, m.
    u : ndarray, shape (n_dofs,)
        Full DOF vector (m, rad).

    Returns
    -------
    ndarray, shape (2, m)
        Positions, m.

    Examples
    --------
    The tip of the cantilever under 1 N, in the plane (origin at the clamp, axis along +x):

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> from fe_contact.elements.beam import point_load, static_deflection
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.elements.beam import material_point
    >>> material_point(beam, [0.4], u).round(4)
    array([[ 0.4   ],
           [-0.0361]])
    """
    fields = beam_fields(beam, u, x)
    return (
        beam.origin[:, None]
        + beam.t0[:, None] * fields.x[None, :]
        + beam.n0[:, None] * fields.deflection[None, :]
    )
