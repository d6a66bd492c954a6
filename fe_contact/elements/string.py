"""Absolute-nodal string element on Hermite cubics, Eugster-Glocker (004), secs. 3-4.

The planar position ``r(s)`` of the material point ``s`` in ``[0, length]`` is interpolated with
cubic Hermite polynomials from the nodal positions ``r`` and nodal slope vectors ``r' = dr/ds``
(``ElementVector(ElementLineHermiteLocal(), 2)`` on a scikit-fem ``MeshLine`` over ``[0, length]``;
the Hermite cubics of ``elements.hermite``, written in the element coordinate and exact to rounding
on meshes of any number of elements).
The motion is C1 across nodes; this is the same polynomial space as the cubic Bezier element of
Eugster-Glocker (004), eq. (4), written with nodal rather than Bezier control coordinates.

Degrees of freedom (scikit-fem ordering): node ``n`` owns the global dofs ``4n .. 4n+3`` =
``(x, y, x', y')``, i.e. position then slope; ``model.position_dofs`` and ``model.slope_dofs``,
shape ``(2, n_nodes)``, name them. The 8 local dofs of element ``e`` are
``model.basis.element_dofs[:, e] = (x0, y0, x0', y0', x1, y1, x1', y1')``.

Sign conventions: forces are generalized forces conjugate to ``q`` (``f_int`` enters the
equations of motion as ``M q'' + f_int(q) = f_ext``, Eugster-Glocker (004), eq. (11));
gravity is the vector ``spec.gravity`` (default ``(0, -9.81)`` m/s^2); the unit normal is the unit
tangent turned by +90 degrees, ``n = (-t_y, t_x)``; the curvature is positive when the string
turns towards ``n`` (counter-clockwise).

Mechanics: the reference configuration ``r_ref`` is stress free; its line density is ``density``
(``rho0 A`` in kg/m), mass element ``dm = rho0 |r_ref'| ds``, Eugster-Glocker (004), eq. (12).
The stretch is ``nu = |r'| / |r_ref'|``, eq. (15); the tension ``T(nu)`` is given by a tension law
(``NeoHookean``, eq. (17), or ``LinearElastic``) and acts along the tangent, eqs. (6), (16).
With ``bending_stiffness = EI > 0`` the string becomes a geometrically exact (Reissner/Antman,
shear-rigid) beam: the bending strain is the exact rotation rate of the tangent per unit reference
arc length ``kappa = (r' x r'') / (|r'|^2 |r_ref'|)``, the bending energy per unit reference
length ``EI/2 (kappa - kappa_ref)^2``. This measure is invariant under rigid rotations and equals
the geometric curvature for an inextensible string.

When the reference curve is parametrised by arc length (always for ``StraightReference``),
``s`` is the unstretched arc length and ``length`` the unstretched length. For other
parametrisations eqs. (12) and (15) hold as written with ``|r_ref'| != 1``. The metric
``|r_ref'|`` is evaluated on the *interpolated* reference, so ``q = model.q_ref`` is exactly
stress free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from skfem import Basis, BilinearForm, ElementVector, MeshLine
from skfem.helpers import dot, grad

from .. import validation as check
from ..limits import element_ratio
from .hermite import ElementLineHermiteLocal
from .string_energy import averaged_internal_force, averaged_tangent
from .string_forces import (
    element_coordinates,
    internal_force,
    internal_force_form,
    strain_energy,
    tangent_stiffness,
)
from .tension import LinearElastic, NeoHookean, check_law

__all__ = [
    "SUPPORT_KINDS",
    "CurveReference",
    "LinearElastic",
    "NeoHookean",
    "NodalReference",
    "PointJacobian",
    "StraightReference",
    "StringModel",
    "StringPoints",
    "StringSpec",
    "Support",
    "assemble_string",
    "averaged_internal_force",
    "averaged_tangent",
    "dynamics_rhs",
    "evaluate",
    "expand_state",
    "find_element",
    "gravity_energy",
    "gravity_force",
    "internal_force",
    "internal_force_form",
    "kinetic_energy",
    "point_load",
    "position_jacobian",
    "reduce_state",
    "rigid_body_modes",
    "strain_energy",
    "tangent_stiffness",
]

# Rows of ``basis.nodal_dofs`` fixed by each support kind: 0, 1 = position x, y; 2, 3 = slope.
SUPPORT_KINDS = {"pinned": (0, 1), "clamped": (0, 1, 2, 3), "fixed_x": (0,), "fixed_y": (1,)}


# --------------------------------------------------------------------------------------------
# Reference configurations and supports
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StraightReference:
    """Straight stress-free reference from ``start`` to ``end`` (m), parametrised by arc length.

    ``|end - start|`` must equal the string length: the reference is the undeformed state. To hang
    a string between points closer than its length, prescribe the support positions instead.

    Examples
    --------
    The reference must be as long as the string (it is the stress-free state):

    >>> from fe_contact import LinearElastic, StringSpec
    >>> from fe_contact.elements.string import StraightReference
    >>> spec = StringSpec(length=1.0, n_elements=4, density=0.3, law=LinearElastic(100.0),
    ...                   reference=StraightReference((0.0, 0.0), (0.6, 0.8)))
    >>> StringSpec(length=1.0, n_elements=4, density=0.3, law=LinearElastic(100.0),
    ...            reference=StraightReference((0.0, 0.0), (0.5, 0.0)))
    Traceback (most recent call last):
    ...
    ValueError: reference: |end - start| = 0.5 m differs from length = 1 m; ...
    """

    start: tuple[float, float]
    end: tuple[float, float]

    def __post_init__(self):
        for name in ("start", "end"):
            value = check.vector(f"StraightReference.{name}", getattr(self, name), unit="m")
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class CurveReference:
    """Stress-free reference given by callables ``position(s)`` and ``slope(s) = d position/ds``.

    Both map s, shape ``(m,)``, to an array of shape ``(2, m)``; they are sampled at the nodes.

    Examples
    --------
    A quarter circle of radius 1 m as the stress-free shape, parametrised by arc length:

    >>> from fe_contact import LinearElastic, StringSpec
    >>> from fe_contact.elements.string import CurveReference, assemble_string
    >>> arc = CurveReference(position=lambda s: np.array([np.cos(s), np.sin(s)]),
    ...                      slope=lambda s: np.array([-np.sin(s), np.cos(s)]))
    >>> string = assemble_string(StringSpec(length=np.pi / 2, n_elements=4, density=0.3,
    ...                                     law=LinearElastic(100.0), reference=arc))
    >>> string.q_ref[string.position_dofs[:, -1]].round(6) + 0.0
    array([0., 1.])
    """

    position: Callable[[np.ndarray], np.ndarray]
    slope: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True, eq=False)
class NodalReference:
    """Stress-free reference from nodal values: positions and slopes, each shape ``(2, n_nodes)``.

    Examples
    --------
    Two nodes of a straight string along +x (slopes (1, 0)):

    >>> from fe_contact import LinearElastic, StringSpec
    >>> from fe_contact.elements.string import NodalReference, assemble_string
    >>> ref = NodalReference(positions=np.array([[0.0, 1.0], [0.0, 0.0]]),
    ...                      slopes=np.array([[1.0, 1.0], [0.0, 0.0]]))
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=1, density=0.3,
    ...                                     law=LinearElastic(100.0), reference=ref))
    >>> string.q_ref[string.position_dofs].tolist()
    [[0.0, 1.0], [0.0, 0.0]]
    """

    positions: np.ndarray
    slopes: np.ndarray


@dataclass(frozen=True)
class Support:
    """Support at the node with material coordinate ``s`` (m).

    kind : "pinned" fixes the position, "clamped" fixes position and slope vector dr/ds,
        "fixed_x" / "fixed_y" fix only that position component (a roller on a guide).
    position : final prescribed position (m), shape (2,); None keeps the reference position.
        Only the fixed components are used.
    slope : final prescribed slope vector dr/ds (only for "clamped"), shape (2,); None keeps the
        reference slope. Its length is the stretch at the support.

    Examples
    --------
    A pinned end, and a clamped end whose slope is prescribed along +y:

    >>> from fe_contact import Support
    >>> Support(0.0).kind, Support(1.0, "clamped", slope=(0.0, 1.0)).slope
    ('pinned', (0.0, 1.0))
    >>> Support(0.5, "pinned", slope=(1.0, 0.0))
    Traceback (most recent call last):
    ...
    ValueError: Support.slope: a slope (1.0, 0.0) can only be prescribed for kind 'clamped', not 'pinned'
    """

    s: float
    kind: str = "pinned"
    position: tuple[float, float] | None = None
    slope: tuple[float, float] | None = None

    def __post_init__(self):
        object.__setattr__(self, "s", check.real("Support.s", self.s, low=0.0, unit="m"))
        check.choice("Support.kind", self.kind, SUPPORT_KINDS)
        for name in ("position", "slope"):
            if getattr(self, name) is not None:
                value = check.vector(f"Support.{name}", getattr(self, name))
                object.__setattr__(self, name, value)
        if self.slope is not None and self.kind != "clamped":
            raise ValueError(
                f"Support.slope: a slope {self.slope!r} can only be prescribed for kind "
                f"'clamped', not {self.kind!r}"
            )


@dataclass(frozen=True)
class StringSpec:
    """What the string is; variants come from ``dataclasses.replace``.

    length : float, parameter range / unstretched length L in m.
    n_elements : int, number of Hermite elements (uniform mesh).
    density : float, line density rho0 A of the reference configuration in kg/m.
    law : tension law with tension(nu), dtension(nu), energy(nu).
    bending_stiffness : float, EI in N m^2 (0 = perfectly flexible string).
    reference : StraightReference | CurveReference | NodalReference | None
        (None = straight from (0, 0) along +x).
    supports : tuple of Support.
    gravity : gravitational acceleration vector in m/s^2, shape (2,).
    intorder : polynomial order integrated exactly by the Gauss rule (6 = 4 points).
    stiffness_damping : beta in s, structural damping force beta K_t(q) q' with the tangent
        stiffness at the current state (0 = undamped, as in 004). It vanishes at rest, so it
        does not change equilibria; the damping matrix follows the geometric stiffness, so it
        damps the transverse modes of a taut string, which a constant C = beta K(q_ref) of
        the straight reference would not.

    Examples
    --------
    A string of EA = 100 N pinned at (0, 0) and pulled to (1.01, 0): 1 % stretch, so a uniform
    tension EA (nu - 1) = 1 N, which is also the pull of the right support:

    >>> from fe_contact import (LinearElastic, Model, StringSpec, Support, assemble,
    ...                         static_equilibrium)
    >>> from fe_contact.elements.string import evaluate
    >>> spec = StringSpec(length=1.0, n_elements=4, density=0.3, law=LinearElastic(100.0),
    ...                   gravity=(0.0, 0.0),
    ...                   supports=(Support(0.0), Support(1.0, position=(1.01, 0.0))))
    >>> system = assemble(Model(structures={"string": spec}, gravity=(0.0, 0.0)))
    >>> state = static_equilibrium(system)
    >>> string = system.structures["string"]
    >>> full = string.full(state.q[system.layout.structure("string")])
    >>> evaluate(string.string, full, np.array([0.0, 0.5, 1.0])).tension.round(6).tolist()
    [1.0, 1.0, 1.0]
    >>> state.support_reactions["string"][string.string.position_dofs[:, -1]].round(6) + 0.0
    array([1., 0.])
    """

    length: float
    n_elements: int
    density: float
    law: object
    bending_stiffness: float = 0.0
    reference: StraightReference | CurveReference | NodalReference | None = None
    supports: tuple[Support, ...] = ()
    gravity: tuple[float, float] = (0.0, -9.81)
    intorder: int = 6
    stiffness_damping: float = 0.0

    def __post_init__(self):
        length = check.real("StringSpec.length", self.length, low=0.0, low_open=True, unit="m")
        n = check.positive_int("StringSpec.n_elements", self.n_elements)
        element_ratio("StringSpec.n_elements", length, length / n)
        check.real("StringSpec.density", self.density, low=0.0, low_open=True, unit="kg/m")
        check.real("StringSpec.stiffness_damping", self.stiffness_damping, low=0.0, unit="s")
        check_law(self.law)
        check.real("StringSpec.bending_stiffness", self.bending_stiffness, low=0.0, unit="N m^2")
        object.__setattr__(
            self, "gravity", check.vector("StringSpec.gravity", self.gravity, unit="m/s^2")
        )
        check.positive_int("StringSpec.intorder", self.intorder)
        if isinstance(self.supports, Support) or not isinstance(self.supports, tuple | list):
            check.fail("StringSpec.supports", self.supports, "a tuple of Support", TypeError)
        for i, support in enumerate(self.supports):
            check.instance(f"StringSpec.supports[{i}]", support, Support, "a Support")
            end = length * (1.0 + 1e-9)  # the node tolerance of the assembly
            check.real(f"StringSpec.supports[{i}].s", support.s, high=end, unit="m")
        if isinstance(self.reference, StraightReference):
            chord = float(np.hypot(*np.subtract(self.reference.end, self.reference.start)))
            if abs(chord - self.length) > 1e-9 * self.length:
                raise ValueError(
                    f"reference: |end - start| = {chord:g} m differs from length = "
                    f"{self.length:g} m; the reference is the stress-free state, so its length "
                    "is the unstretched length (prescribe Support.position to hang the string "
                    "between other points)"
                )
        elif self.reference is not None and not isinstance(
            self.reference, (CurveReference, NodalReference)
        ):
            raise ValueError(
                f"reference: got {self.reference!r}; allowed: None, StraightReference, "
                "CurveReference or NodalReference"
            )


# --------------------------------------------------------------------------------------------
# Model: everything constant, assembled once
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StringModel:
    """Assembled string; holds nothing that changes in time.

    spec : StringSpec.
    basis : skfem CellBasis on ``ElementVector(ElementLineHermiteLocal(), 2)``.
    nodes : material coordinates of the nodes in m, shape (n_nodes,).
    mass_matrix : sparse CSR, shape (n_dofs, n_dofs), Eugster-Glocker (004), eq. (14).
    q_ref : reference (stress-free) coordinates, shape (n_dofs,).
    q_prescribed : q_ref with the final prescribed support values at the fixed dofs.
    fixed_dofs, free_dofs : sorted dof indices; ``q[fixed_dofs] = q_prescribed[fixed_dofs]``.
    position_dofs, slope_dofs : dof indices, shape (2, n_nodes); rows x, y.
    dx : quadrature weight times element length, shape (n_elements, n_qp), m.
    shape_values, shape_slopes, shape_curvatures : scalar Hermite functions N_a, dN_a/ds,
        d2N_a/ds2 at the quadrature points, shape (n_elements, 4, n_qp); local dof
        ``2 a + c`` is component c of scalar function a.
    strain_operator : (n_elements, n_qp, 8, 4) maps local dofs to (r'_x, r'_y, r''_x, r''_y).
    ref_metric : |r_ref'| at quadrature points, shape (n_elements, n_qp).
    ref_bending_strain : (r_ref' x r_ref'') / |r_ref'|^2, shape (n_elements, n_qp), 1/m.

    Examples
    --------
    See ``assemble_string``; the nodes of 4 equal elements:

    >>> from fe_contact import LinearElastic, StringSpec, Support
    >>> from fe_contact.elements.string import assemble_string
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=4, density=0.3,
    ...                                     law=LinearElastic(100.0),
    ...                                     supports=(Support(0.0), Support(1.0))))
    >>> string.nodes.tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """

    spec: StringSpec
    basis: Basis
    nodes: np.ndarray
    mass_matrix: sp.csr_matrix
    q_ref: np.ndarray
    q_prescribed: np.ndarray
    fixed_dofs: np.ndarray
    free_dofs: np.ndarray
    position_dofs: np.ndarray
    slope_dofs: np.ndarray
    dx: np.ndarray
    shape_values: np.ndarray
    shape_slopes: np.ndarray
    shape_curvatures: np.ndarray
    strain_operator: np.ndarray
    ref_metric: np.ndarray
    ref_bending_strain: np.ndarray
    _csr_inverse: np.ndarray = field(repr=False)
    _csr_indices: np.ndarray = field(repr=False)
    _csr_indptr: np.ndarray = field(repr=False)

    @property
    def n_dofs(self) -> int:
        return int(self.basis.N)

    @property
    def n_elements(self) -> int:
        return int(self.spec.n_elements)

    @property
    def rest_length(self) -> float:
        """Arc length of the interpolated reference, m."""
        return float(np.sum(self.dx * self.ref_metric))


@BilinearForm
def _mass_form(u, v, w):
    """rho0 |r_ref'| u . v, Eugster-Glocker (004), eqs. (12), (14)."""
    r_ref_s = grad(w.r_ref)[:, 0]
    return w.density * np.sqrt(dot(r_ref_s, r_ref_s)) * dot(u, v)


def assemble_string(spec: StringSpec) -> StringModel:
    """Build the mesh, basis, reference, constant mass matrix, supports and cached tables.

    Examples
    --------
    4 elements: 5 nodes of (x, y, x', y'), 20 DOFs; two pinned ends fix 4 of them:

    >>> from fe_contact import LinearElastic, StringSpec, Support
    >>> from fe_contact.elements.string import assemble_string
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=4, density=0.3,
    ...                                     law=LinearElastic(100.0),
    ...                                     supports=(Support(0.0), Support(1.0))))
    >>> string.n_dofs, string.free_dofs.size
    (20, 16)
    """
    nodes = np.linspace(0.0, spec.length, spec.n_elements + 1)
    mesh = MeshLine(nodes)
    basis = Basis(mesh, ElementVector(ElementLineHermiteLocal(), 2), intorder=spec.intorder)
    nodal = basis.nodal_dofs
    position_dofs, slope_dofs = nodal[0:2], nodal[2:4]

    q_ref = np.zeros(basis.N)
    positions, slopes = _reference_nodal_values(spec, nodes)
    q_ref[position_dofs] = positions
    q_ref[slope_dofs] = slopes

    fixed, q_prescribed = _support_dofs(spec, nodes, nodal, q_ref)
    free = np.setdiff1d(np.arange(basis.N), fixed)

    # scalar Hermite tables from skfem: local dof 2a is component 0 of scalar function a
    shape_values = np.stack([np.asarray(basis.basis[2 * a][0])[0] for a in range(4)], axis=1)
    shape_slopes = np.stack([basis.basis[2 * a][0].grad[0, 0] for a in range(4)], axis=1)
    shape_curvatures = np.stack([basis.basis[2 * a][0].hess[0, 0, 0] for a in range(4)], axis=1)
    n_elements, n_qp = basis.dx.shape
    strain_operator = np.zeros((n_elements, n_qp, 8, 4))
    for a in range(4):
        for c in range(2):
            strain_operator[:, :, 2 * a + c, c] = shape_slopes[:, a, :]
            strain_operator[:, :, 2 * a + c, 2 + c] = shape_curvatures[:, a, :]

    q_e = element_coordinates(basis.element_dofs, q_ref)
    r_s = np.einsum("eac,eaq->ceq", q_e, shape_slopes)
    r_ss = np.einsum("eac,eaq->ceq", q_e, shape_curvatures)
    ref_metric = np.sqrt(np.sum(r_s**2, axis=0))
    ref_bending_strain = (r_s[0] * r_ss[1] - r_s[1] * r_ss[0]) / ref_metric**2

    mass = _mass_form.assemble(basis, r_ref=q_ref, density=float(spec.density)).tocsr()

    # sparsity pattern of the element stiffness scatter, computed once
    dofs = basis.element_dofs.T  # (n_elements, 8)
    rows = np.repeat(dofs[:, :, None], 8, axis=2).ravel()
    cols = np.repeat(dofs[:, None, :], 8, axis=1).ravel()
    linear, inverse = np.unique(rows.astype(np.int64) * basis.N + cols, return_inverse=True)
    csr_rows, csr_indices = np.divmod(linear, basis.N)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(csr_rows, minlength=basis.N))))

    return StringModel(
        spec=spec,
        basis=basis,
        nodes=nodes,
        mass_matrix=mass,
        q_ref=q_ref,
        q_prescribed=q_prescribed,
        fixed_dofs=fixed,
        free_dofs=free,
        position_dofs=position_dofs,
        slope_dofs=slope_dofs,
        dx=basis.dx,
        shape_values=shape_values,
        shape_slopes=shape_slopes,
        shape_curvatures=shape_curvatures,
        strain_operator=strain_operator,
        ref_metric=ref_metric,
        ref_bending_strain=ref_bending_strain,
        _csr_inverse=inverse.ravel(),
        _csr_indices=csr_indices,
        _csr_indptr=indptr,
    )


def _reference_nodal_values(spec: StringSpec, nodes: np.ndarray):
    """Nodal positions and slopes of the reference, each shape (2, n_nodes)."""
    reference = spec.reference
    n_nodes = nodes.size
    if reference is None:
        reference = StraightReference((0.0, 0.0), (spec.length, 0.0))
    if isinstance(reference, StraightReference):
        start = np.asarray(reference.start, dtype=float)
        chord = np.asarray(reference.end, dtype=float) - start
        direction = chord / np.linalg.norm(chord)
        positions = start[:, None] + direction[:, None] * nodes[None, :]
        slopes = np.repeat(direction[:, None], n_nodes, axis=1)
    elif isinstance(reference, CurveReference):
        positions = np.asarray(reference.position(nodes), dtype=float)
        slopes = np.asarray(reference.slope(nodes), dtype=float)
    else:
        positions = np.asarray(reference.positions, dtype=float)
        slopes = np.asarray(reference.slopes, dtype=float)
    for name, values in (("positions", positions), ("slopes", slopes)):
        if values.shape != (2, n_nodes) or not np.all(np.isfinite(values)):
            raise ValueError(
                f"reference: {name} have shape {values.shape}; allowed: finite values of shape "
                f"(2, n_nodes) = (2, {n_nodes})"
            )
    if np.any(np.hypot(*slopes) == 0.0):
        raise ValueError("reference: a nodal slope dr_ref/ds is zero; allowed: nonzero slopes")
    return positions, slopes


def _support_dofs(spec: StringSpec, nodes, nodal_dofs, q_ref):
    """Fixed dofs (sorted) and the full vector of prescribed final values."""
    tol = 1e-9 * spec.length
    q_prescribed = q_ref.copy()
    fixed = []
    used_nodes = set()
    for support in spec.supports:
        node = int(np.argmin(np.abs(nodes - support.s)))
        if abs(nodes[node] - support.s) > tol:
            raise ValueError(
                f"supports: s = {support.s!r} m is not a node; allowed: node coordinates "
                f"k * {spec.length / spec.n_elements:g} m, k = 0..{spec.n_elements}"
            )
        if node in used_nodes:
            raise ValueError(f"supports: two supports at node s = {nodes[node]:g} m")
        used_nodes.add(node)
        rows = list(SUPPORT_KINDS[support.kind])
        fixed.extend(nodal_dofs[rows, node])
        values = np.full(4, np.nan)
        if support.position is not None:
            values[0:2] = support.position
        if support.slope is not None:
            values[2:4] = support.slope
        for row in rows:
            if np.isfinite(values[row]):
                q_prescribed[nodal_dofs[row, node]] = values[row]
    return np.array(sorted(fixed), dtype=np.int64), q_prescribed


def rigid_body_modes(model: StringModel, q: np.ndarray | None = None) -> np.ndarray:
    """Planar rigid motions at q (default q_ref) as columns, shape (n_dofs, 3).

    Translation x, translation y, and rotation about the origin (positions and slopes turn).

    Examples
    --------
    Translations and the rotation about the origin; a rigid rotation of a straight string
    along +x moves its end (x = 1) along +y:

    >>> from fe_contact import LinearElastic, StringSpec, Support
    >>> from fe_contact.elements.string import assemble_string
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=4, density=0.3,
    ...                                     law=LinearElastic(100.0),
    ...                                     supports=(Support(0.0), Support(1.0))))
    >>> from fe_contact.elements.string import rigid_body_modes
    >>> modes = rigid_body_modes(string)
    >>> modes.shape, (modes[string.position_dofs[:, -1], 2] + 0.0).tolist()  # + 0.0: no -0.0
    ((20, 3), [0.0, 1.0])
    """
    q = model.q_ref if q is None else q
    modes = np.zeros((model.n_dofs, 3))
    modes[model.position_dofs[0], 0] = 1.0
    modes[model.position_dofs[1], 1] = 1.0
    for dofs in (model.position_dofs, model.slope_dofs):
        modes[dofs[0], 2] = -q[dofs[1]]
        modes[dofs[1], 2] = q[dofs[0]]
    return modes


# --------------------------------------------------------------------------------------------
# External forces and energies
# --------------------------------------------------------------------------------------------


def gravity_force(model: StringModel) -> np.ndarray:
    """Consistent gravity load, shape (n_dofs,), Eugster-Glocker (004), eq. (19), first term.

    Examples
    --------
    The vertical load sums to the weight rho0 A L g = 0.3 x 1 x 9.81 = 2.943 N:

    >>> from fe_contact import LinearElastic, StringSpec, Support
    >>> from fe_contact.elements.string import assemble_string
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=4, density=0.3,
    ...                                     law=LinearElastic(100.0),
    ...                                     supports=(Support(0.0), Support(1.0))))
    >>> from fe_contact.elements.string import gravity_force
    >>> print(f"{gravity_force(string)[string.position_dofs[1]].sum():.4g} N")
    -2.943 N
    """
    gravity = np.asarray(model.spec.gravity, dtype=float)
    density = model.spec.density * model.ref_metric * model.dx  # (n_elements, n_qp), kg
    f_a = np.einsum("eaq,eq->ea", model.shape_values, density)
    f_e = f_a[:, :, None] * gravity[None, None, :]
    return np.bincount(
        model.basis.element_dofs.T.ravel(), weights=f_e.ravel(), minlength=model.n_dofs
    )


def gravity_energy(model: StringModel, q: np.ndarray) -> float:
    """Gravity potential -integral g . r dm in J (zero at q = 0); exact since r is linear in q.

    Examples
    --------
    Lifting the whole string by 1 m raises its potential by m g h = 2.943 J:

    >>> from fe_contact import LinearElastic, StringSpec, Support
    >>> from fe_contact.elements.string import assemble_string
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=4, density=0.3,
    ...                                     law=LinearElastic(100.0),
    ...                                     supports=(Support(0.0), Support(1.0))))
    >>> from fe_contact.elements.string import gravity_energy
    >>> lifted = string.q_ref.copy()
    >>> lifted[string.position_dofs[1]] += 1.0
    >>> print(f"{gravity_energy(string, lifted) - gravity_energy(string, string.q_ref):.4g} J")
    2.943 J
    """
    return float(-gravity_force(model) @ q)


def kinetic_energy(model: StringModel, u: np.ndarray) -> float:
    """Kinetic energy 1/2 u^T M u in J; u : shape (n_dofs,), m/s.

    Examples
    --------
    The string translating at 2 m/s: m v^2 / 2 = 0.3 x 4 / 2 = 0.6 J:

    >>> from fe_contact import LinearElastic, StringSpec, Support
    >>> from fe_contact.elements.string import assemble_string
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=4, density=0.3,
    ...                                     law=LinearElastic(100.0),
    ...                                     supports=(Support(0.0), Support(1.0))))
    >>> from fe_contact.elements.string import kinetic_energy
    >>> v = np.zeros(string.n_dofs)
    >>> v[string.position_dofs[0]] = 2.0
    >>> print(f"{kinetic_energy(string, v):.4g} J")
    0.6 J
    """
    return float(0.5 * u @ (model.mass_matrix @ u))


def point_load(model: StringModel, s, force) -> np.ndarray:
    """Consistent nodal load J(s)^T F of point forces, shape (n_dofs,).

    s : float or shape (m,), material coordinates in m; force : shape (2,) or (2, m), N.

    Examples
    --------
    A point force of 2 N down anywhere on the string: its nodal loads sum to 2 N:

    >>> from fe_contact import LinearElastic, StringSpec, Support
    >>> from fe_contact.elements.string import assemble_string
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=4, density=0.3,
    ...                                     law=LinearElastic(100.0),
    ...                                     supports=(Support(0.0), Support(1.0))))
    >>> from fe_contact.elements.string import point_load
    >>> f = point_load(string, 0.3, (0.0, -2.0))
    >>> print(f"{f[string.position_dofs[1]].sum():.4g} N")
    -2 N
    """
    jac = position_jacobian(model, s)
    force = np.broadcast_to(np.asarray(force, dtype=float).reshape(2, -1), (2, jac.s.size))
    f_e = np.einsum("kcj,ck->kj", jac.block, force)
    return np.bincount(jac.dofs.ravel(), weights=f_e.ravel(), minlength=model.n_dofs)


# Evaluation at points and stand-alone dynamics live in string_points (re-exported here).
from .string_points import (  # noqa: E402, F401
    PointJacobian,
    StringPoints,
    dynamics_rhs,
    evaluate,
    expand_state,
    find_element,
    point_shape_functions,  # noqa: F401 - used by structures
    position_jacobian,
    reduce_state,
)
