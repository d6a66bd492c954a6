"""What the beam is: its description ``BeamSpec`` and the assembled ``Beam`` (the constant
matrices and the tables of its shape functions), Lipinski (002), sec. 3.

``elements.beam`` assembles a ``Beam`` from a ``BeamSpec`` and exports the names of this module,
of ``elements.beam_points`` (evaluation at material points) and of ``elements.beam_analysis``
(the beam's linear analyses); those two import the types from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from skfem import Basis

from .. import validation as check
from ..limits import element_ratio

SUPPORT_KINDS = ("clamped", "pinned", "free")


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
