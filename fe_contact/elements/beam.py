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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from skfem import Basis, BilinearForm, LinearForm, MeshLine
from skfem.helpers import dd

from .. import validation as check
from ..limits import element_ratio
from .hermite import ElementLineHermiteLocal, shape_coefficients

SUPPORT_KINDS = ("clamped", "pinned", "free")
STANDARD_GRAVITY = 9.81


def _positive(name: str, value, unit: str) -> float:
    return check.real(name, value, low=0.0, low_open=True, unit=unit)


def _support(name: str, value) -> str:
    return check.choice(f"{name} support", value, SUPPORT_KINDS)


@dataclass(frozen=True, kw_only=True)
class BeamSpec:
    """What the beam is: geometry, section, material, supports and placement (SI units).

    Give the section either as a rectangle (``width`` and ``height``) or directly as ``area`` and
    ``second_moment``. Give the mesh either as ``n_elements`` equal elements or as ``node_x``, the
    increasing node coordinates from 0 to ``length``. All parameters are keyword-only.

    Parameters
    ----------
    length : float
        Length, m.
    youngs_modulus : float
        Young's modulus E, Pa.
    density : float
        Density, kg/m^3.
    n_elements : int, optional
        Number of equal elements (ignored when ``node_x`` is given); 10 by default.
    width : float or None, optional
        Width of a rectangular section, m (bending about the width axis).
    height : float or None, optional
        Height of a rectangular section, m.
    area : float or None, optional
        Cross-section area, m^2 (with ``second_moment``, instead of width and height).
    second_moment : float or None, optional
        Second moment of area I, m^4.
    node_x : tuple of float or None, optional
        Explicit node coordinates, m, strictly increasing from 0 to ``length``.
    left : {"clamped", "pinned", "free"}, optional
        Support at x = 0; "clamped" by default.
    right : {"clamped", "pinned", "free"}, optional
        Support at x = length; "free" by default.
    rayleigh_alpha : float, optional
        Mass-proportional Rayleigh damping alpha, 1/s (002 eq. 17: C = alpha M + beta K); 0 by
        default.
    rayleigh_beta : float, optional
        Stiffness-proportional Rayleigh damping beta, s; 0 by default.
    origin : tuple of float, shape (2,), optional
        Position of x = 0 in the plane, m; (0, 0) by default.
    angle : float, optional
        Direction of the undeformed beam axis in the plane, rad; 0 by default.
    axial_force : float, optional
        Axial pre-tension N, N (tension positive, constant along the beam); it adds the
        geometric stiffness N int w' v' dx to K (Rayleigh's beta K includes it). A compression
        past the first buckling load (K not positive definite on the free DOFs) is refused by
        ``assemble_beam``. 0 by default.

    Raises
    ------
    ValueError
        Naming the first bad parameter: a field out of its range, a mesh that is not
        increasing from 0 to ``length``, or a section given both ways or half given.
    TypeError
        For a value of the wrong kind.

    Examples
    --------
    The strip of the manipulator example (002 sec. 9): EI = E b h^3 / 12 and rho A:

    >>> from fe_contact import BeamSpec
    >>> strip = BeamSpec(length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> print(f"EI = {strip.bending_stiffness:.4f} N m^2, rho A = {strip.mass_per_length:.4g} kg/m")
    EI = 0.5906 N m^2, rho A = 0.0705 kg/m
    >>> BeamSpec(length=0.4, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015,
    ...          left="welded")
    Traceback (most recent call last):
    ...
    ValueError: ...left...
    """

    length: float = field(metadata=check.rule(_positive, unit="m"))
    youngs_modulus: float = field(metadata=check.rule(_positive, unit="Pa"))
    density: float = field(metadata=check.rule(_positive, unit="kg/m^3"))
    n_elements: int = 10
    width: float | None = field(default=None, metadata=check.rule(_positive, unit="m"))
    height: float | None = field(default=None, metadata=check.rule(_positive, unit="m"))
    area: float | None = field(default=None, metadata=check.rule(_positive, unit="m^2"))
    second_moment: float | None = field(default=None, metadata=check.rule(_positive, unit="m^4"))
    node_x: tuple[float, ...] | None = None
    left: str = field(default="clamped", metadata=check.rule(_support))
    right: str = field(default="free", metadata=check.rule(_support))
    rayleigh_alpha: float = field(default=0.0, metadata=check.rule(check.real, low=0.0, unit="1/s"))
    rayleigh_beta: float = field(default=0.0, metadata=check.rule(check.real, low=0.0, unit="s"))
    origin: tuple[float, float] = field(
        default=(0.0, 0.0), metadata=check.rule(check.vector, unit="m")
    )
    angle: float = field(default=0.0, metadata=check.rule(check.real, unit="rad"))
    axial_force: float = field(default=0.0, metadata=check.rule(check.real, unit="N"))

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        """Raise ValueError (TypeError for a value of the wrong kind) naming the first bad
        parameter: each field's own check (its ``check.rule`` metadata, which a model file
        reports for every field at once), then the mesh and the section."""
        check.check_fields(self)
        if self.node_x is None:
            n = check.positive_int("BeamSpec.n_elements", self.n_elements)
            element_ratio("BeamSpec.n_elements", self.length, self.length / n)
        else:
            x = check.finite_array("BeamSpec.node_x", self.node_x, (np.size(self.node_x),))
            if x.size < 2:
                raise ValueError("node_x must list at least two node coordinates (one element)")
            if np.any(np.diff(x) <= 0.0):
                raise ValueError("node_x must be strictly increasing")
            if abs(x[0]) > 1e-12 * self.length or abs(x[-1] - self.length) > 1e-12 * self.length:
                raise ValueError(
                    f"node_x must run from 0 to length={self.length}, got {x[0]} ... {x[-1]}"
                )
            element_ratio("BeamSpec.node_x", self.length, float(np.min(np.diff(x))))
        rect = self.width is not None or self.height is not None
        direct = self.area is not None or self.second_moment is not None
        if rect and direct:
            raise ValueError("give the section as width and height, or as area and second_moment")
        if rect and (self.width is None or self.height is None):
            raise ValueError("a rectangular section needs both width and height")
        if direct and (self.area is None or self.second_moment is None):
            raise ValueError("a direct section needs both area and second_moment")
        if not rect and not direct:
            raise ValueError(
                "the section is missing: give width and height, or area and second_moment"
            )

    @property
    def section_area(self) -> float:
        """Cross-section area A in m^2."""
        return self.width * self.height if self.area is None else float(self.area)

    @property
    def section_second_moment(self) -> float:
        """Second moment of area I in m^4 (b h^3 / 12 for the rectangle)."""
        if self.second_moment is None:
            return self.width * self.height**3 / 12.0
        return float(self.second_moment)

    @property
    def bending_stiffness(self) -> float:
        """E I in N m^2."""
        return self.youngs_modulus * self.section_second_moment

    @property
    def mass_per_length(self) -> float:
        """rho A in kg/m."""
        return self.density * self.section_area

    def nodes(self) -> np.ndarray:
        """Node coordinates along the beam, shape (n_nodes,), m."""
        if self.node_x is not None:
            return np.asarray(self.node_x, dtype=float)
        return np.linspace(0.0, self.length, self.n_elements + 1)


@BilinearForm
def consistent_mass(u, v, w):
    """rho A u v: the consistent mass of Lipinski (002), eq. (16)."""
    return w.rho_A * u * v


@BilinearForm
def bending_stiffness(u, v, w):
    """E I u'' v'': the bending stiffness of Lipinski (002), eq. (16)."""
    return w.EI * dd(u)[0, 0] * dd(v)[0, 0]


@BilinearForm
def geometric_stiffness(u, v, w):
    """N u' v': the stiffness of an axial pre-tension N, from the potential N/2 int w'^2 dx."""
    return w.N * u.grad[0] * v.grad[0]


@LinearForm
def distributed_load(v, w):
    """q v for a uniform transverse load q in N/m."""
    return w.q * v


@dataclass(frozen=True, eq=False)
class Beam:
    """The assembled beam: constant matrices and the tables used by point evaluations.

    Parameters
    ----------
    spec : BeamSpec
        The beam's description.
    basis : skfem.Basis
        The scikit-fem basis on ElementLineHermiteLocal.
    mass_matrix : scipy.sparse.csr_matrix, shape (n_dofs, n_dofs)
        Consistent mass matrix, full (supports not applied).
    stiffness_matrix : scipy.sparse.csr_matrix, shape (n_dofs, n_dofs)
        Bending (and geometric) stiffness matrix, full.
    damping_matrix : scipy.sparse.csr_matrix, shape (n_dofs, n_dofs)
        Rayleigh damping matrix, full.
    free_dofs : ndarray of int
        DOFs left free by the supports.
    fixed_dofs : ndarray of int
        DOFs fixed to zero by the supports.
    nodes : ndarray, shape (n_nodes,)
        Node coordinates, m.
    element_dofs : ndarray of int, shape (n_elements, 4)
        Global DOFs (w_i, w'_i, w_j, w'_j) of each element.
    element_length : ndarray, shape (n_elements,)
        Element lengths, m.
    coefficients : ndarray, shape (n_elements, 4, 4)
        Shape function j of element e is ``sum_k coefficients[e, j, k] * zeta**k`` with zeta
        in [0, 1] (002 eq. 12).
    t0 : ndarray, shape (2,)
        Unit tangent of the undeformed axis.
    n0 : ndarray, shape (2,)
        Unit normal of the undeformed axis.

    Examples
    --------
    See ``assemble_beam``:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam
    >>> spec = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                 width=0.01, height=0.0015)
    >>> beam = assemble_beam(spec)
    >>> beam.n_elements, (beam.t0 + 0.0).tolist(), (beam.n0 + 0.0).tolist()  # + 0.0: no -0.0
    (4, [1.0, 0.0], [0.0, 1.0])
    """

    spec: BeamSpec
    basis: Basis
    mass_matrix: sp.csr_matrix
    stiffness_matrix: sp.csr_matrix
    damping_matrix: sp.csr_matrix
    free_dofs: np.ndarray
    fixed_dofs: np.ndarray
    nodes: np.ndarray
    element_dofs: np.ndarray
    element_length: np.ndarray
    coefficients: np.ndarray
    t0: np.ndarray
    n0: np.ndarray
    _reduced: dict = field(default_factory=dict, repr=False)

    @property
    def n_dofs(self) -> int:
        return int(self.basis.N)

    @property
    def n_elements(self) -> int:
        return int(self.element_dofs.shape[0])

    @property
    def origin(self) -> np.ndarray:
        return np.asarray(self.spec.origin, dtype=float)

    def reduced(self, name: str) -> sp.csr_matrix:
        """The ``"mass"``, ``"stiffness"`` or ``"damping"`` matrix on the free DOFs (cached)."""
        if name not in self._reduced:
            full = {
                "mass": self.mass_matrix,
                "stiffness": self.stiffness_matrix,
                "damping": self.damping_matrix,
            }[name]
            self._reduced[name] = full[self.free_dofs][:, self.free_dofs].tocsr()
        return self._reduced[name]

    def expand(self, u_free: np.ndarray) -> np.ndarray:
        """Full DOF vector(s) from free-DOF values; fixed DOFs are zero. Shape (n_dofs, ...)."""
        u_free = np.asarray(u_free, dtype=float)
        full = np.zeros((self.n_dofs,) + u_free.shape[1:])
        full[self.free_dofs] = u_free
        return full


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
    stiffness = bending_stiffness.assemble(basis, EI=spec.bending_stiffness).tocsr()
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
    z = zeta[:, None]
    c0, c1, c2, c3 = coef[..., 0], coef[..., 1], coef[..., 2], coef[..., 3]
    return ShapeRows(
        element=element,
        zeta=zeta,
        dofs=beam.element_dofs[element],
        length=beam.element_length[element],
        N=c0 + z * (c1 + z * (c2 + z * c3)),
        N_z=c1 + z * (2.0 * c2 + 3.0 * z * c3),
        N_zz=2.0 * c2 + 6.0 * z * c3,
        N_zzz=np.broadcast_to(6.0 * c3, c3.shape).copy(),
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
    c = beam.coefficients[e]
    N = c[:, 0] + z * (c[:, 1] + z * (c[:, 2] + z * c[:, 3]))
    N_x = (c[:, 1] + z * (2.0 * c[:, 2] + 3.0 * z * c[:, 3])) / le
    N_xx = (2.0 * c[:, 2] + 6.0 * z * c[:, 3]) / (le * le)
    return e, beam.element_dofs[e], N, N_x, N_xx


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


def self_weight(beam: Beam, gravity=(0.0, -STANDARD_GRAVITY)) -> np.ndarray:
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
