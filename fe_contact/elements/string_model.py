"""The absolute-nodal string's description and its assembled constant tables.

``StringSpec`` (length, elements, line density, tension law, bending stiffness, gravity,
``Support`` s and the stress-free reference: ``StraightReference``, ``CurveReference``,
``NodalReference``) says what a string is; ``StringModel`` is what ``elements.string.
assemble_string`` builds from it once: the scikit-fem basis, the mass matrix and the Hermite
tables at the quadrature points that the internal forces (``string_forces``), the discrete
energy gradient (``string_energy``) and the evaluation at points (``string_points``) read. The
interpolation, coordinates and conventions are those of ``elements.string``; Eugster-Glocker
(004), secs. 3-4.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from skfem import Basis

from .. import validation as check
from ..constants import STANDARD_GRAVITY
from ..limits import element_ratio
from .tension import check_law

# Rows of ``basis.nodal_dofs`` fixed by each support kind: 0, 1 = position x, y; 2, 3 = slope.
SUPPORT_KINDS = {"pinned": (0, 1), "clamped": (0, 1, 2, 3), "fixed_x": (0,), "fixed_y": (1,)}


# --------------------------------------------------------------------------------------------
# Reference configurations and supports
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StraightReference:
    """Straight stress-free reference from ``start`` to ``end``, parametrised by arc length.

    ``|end - start|`` must equal the string length (checked by ``StringSpec``): the reference
    is the undeformed state. To hang a string between points closer than its length, prescribe
    the support positions instead.

    Parameters
    ----------
    start : tuple of float, shape (2,)
        Position (x, y) of the material point s = 0 in m.
    end : tuple of float, shape (2,)
        Position (x, y) of the material point s = length in m.

    Raises
    ------
    TypeError
        When ``start`` or ``end`` is not a sequence of numbers.
    ValueError
        When ``start`` or ``end`` is not a pair of finite numbers of a physical magnitude.

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

    Both are sampled at the nodes; a parametrisation other than by arc length keeps
    ``|r_ref'| != 1`` in Eugster-Glocker (004), eqs. (12), (15).

    Parameters
    ----------
    position : callable
        Maps material coordinates s in m, shape (m,), to reference positions in m, shape
        (2, m).
    slope : callable
        Maps s, shape (m,), to the slope vectors dr_ref/ds, shape (2, m), nonzero.

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
    """Stress-free reference from nodal values of positions and slopes.

    Parameters
    ----------
    positions : array_like, shape (2, n_nodes)
        Reference positions of the nodes in m, rows x, y.
    slopes : array_like, shape (2, n_nodes)
        Reference slope vectors dr_ref/ds of the nodes, nonzero, rows x, y.

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
    """Support at the node with material coordinate ``s``.

    Parameters
    ----------
    s : float
        Material coordinate of the supported node in m, >= 0 (a node of the mesh, checked at
        assembly).
    kind : str, optional
        "pinned" (the default) fixes the position, "clamped" fixes position and slope vector
        dr/ds, "fixed_x" / "fixed_y" fix only that position component (a roller on a guide).
    position : tuple of float, shape (2,), optional
        Final prescribed position in m; None (the default) keeps the reference position.
        Only the fixed components are used.
    slope : tuple of float, shape (2,), optional
        Final prescribed slope vector dr/ds (only for "clamped"); None (the default) keeps
        the reference slope. Its length is the stretch at the support.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs), naming the
        parameter.
    ValueError
        When ``s`` is negative or not finite, ``kind`` is not one of the four kinds,
        ``position`` or ``slope`` is not a pair of finite numbers, or a slope is given for a
        kind other than "clamped".

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

    Parameters
    ----------
    length : float
        Parameter range / unstretched length L in m, > 0.
    n_elements : int
        Number of Hermite elements (uniform mesh), >= 1.
    density : float
        Line density rho0 A of the reference configuration in kg/m, > 0 (Eugster-Glocker
        (004), eq. (12)).
    law : object
        Tension law with ``tension(nu)``, ``dtension(nu)`` (N) and ``energy(nu)`` (J/m),
        vectorised over numpy arrays: ``NeoHookean`` (004, eq. (17)) or ``LinearElastic``.
    bending_stiffness : float, optional
        EI in N m^2, >= 0; 0 (the default) is a perfectly flexible string.
    reference : StraightReference or CurveReference or NodalReference or None, optional
        The stress-free reference; None (the default) is straight from (0, 0) along +x.
    supports : tuple of Support, optional
        The supports, each at a node; none by default.
    gravity : tuple of float, shape (2,), optional
        Gravitational acceleration vector in m/s^2; (0, -9.81) by default.
    intorder : int, optional
        Polynomial order integrated exactly by the Gauss rule; 6 (4 points) by default.
    stiffness_damping : float, optional
        beta in s, >= 0: structural damping force beta K_t(q) q' with the tangent stiffness
        at the current state (0, the default, is undamped, as in 004). It vanishes at rest,
        so it does not change equilibria; the damping matrix follows the geometric stiffness,
        so it damps the transverse modes of a taut string, which a constant
        C = beta K(q_ref) of the straight reference would not.
    closed : bool, optional
        A closed (periodic) string, a ring or a belt (False by default): the last element
        ends on the first node (s = length is s = 0), so a node's coordinates are unknowns
        once; the reference must close on itself (position and slope at s = length those at
        s = 0), so it is a ``CurveReference`` or a ``NodalReference``; supports at
        s = length are refused (that node is the one at s = 0).

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, ``supports`` not a
        tuple of Support, ``closed`` not a bool), naming the parameter.
    ValueError
        When a number is out of its range above, ``law`` lacks the tension law's methods,
        a straight reference's length differs from ``length``, a closed string has a
        straight reference or a support at s = length, or the elements are shorter than
        length / 1e6 (``limits.LimitExceeded``).

    Examples
    --------
    A string of EA = 100 N pinned at (0, 0) and pulled to (1.01, 0): 1 % stretch, so a uniform
    tension EA (nu - 1) = 1 N, which is also the pull of the right support:

    >>> from fe_contact import (LinearElastic, Model, StringSpec, Support, assemble,
    ...                         static_equilibrium)
    >>> from fe_contact.elements.string import string_points_at
    >>> spec = StringSpec(length=1.0, n_elements=4, density=0.3, law=LinearElastic(100.0),
    ...                   gravity=(0.0, 0.0),
    ...                   supports=(Support(0.0), Support(1.0, position=(1.01, 0.0))))
    >>> system = assemble(Model(structures={"string": spec}, gravity=(0.0, 0.0)))
    >>> state = static_equilibrium(system)
    >>> string = system.structures["string"]
    >>> full = string.full(state.q[system.layout.structure("string")])
    >>> string_points_at(string.string, full, np.array([0.0, 0.5, 1.0])).tension.round(6).tolist()
    [1.0, 1.0, 1.0]
    >>> state.support_reactions["string"][string.string.position_dofs[:, -1]].round(6) + 0.0
    array([1., 0.])
    """

    # each field's own check (``check.rule``): run by __post_init__ and, on every key at once,
    # by a model file's reader
    length: float = field(metadata=check.rule(check.real, low=0.0, low_open=True, unit="m"))
    n_elements: int = field(metadata=check.rule(check.positive_int))
    density: float = field(metadata=check.rule(check.real, low=0.0, low_open=True, unit="kg/m"))
    law: object
    bending_stiffness: float = field(
        default=0.0, metadata=check.rule(check.real, low=0.0, unit="N m^2")
    )
    reference: StraightReference | CurveReference | NodalReference | None = None
    supports: tuple[Support, ...] = ()
    gravity: tuple[float, float] = STANDARD_GRAVITY
    intorder: int = field(default=6, metadata=check.rule(check.positive_int))
    stiffness_damping: float = field(
        default=0.0, metadata=check.rule(check.real, low=0.0, unit="s")
    )
    closed: bool = field(
        default=False, metadata=check.rule(check.instance, types=bool, what="True or False")
    )

    def __post_init__(self):
        check.check_fields(self)
        length, n = float(self.length), int(self.n_elements)
        element_ratio("StringSpec.n_elements", length, length / n)
        check_law(self.law)
        object.__setattr__(
            self, "gravity", check.vector("StringSpec.gravity", self.gravity, unit="m/s^2")
        )
        if isinstance(self.supports, Support) or not isinstance(self.supports, tuple | list):
            check.fail("StringSpec.supports", self.supports, "a tuple of Support", TypeError)
        for i, support in enumerate(self.supports):
            check.instance(f"StringSpec.supports[{i}]", support, Support, "a Support")
            end = length * (1.0 + 1e-9)  # the node tolerance of the assembly
            check.real(f"StringSpec.supports[{i}].s", support.s, high=end, unit="m")
            if self.closed and support.s > length * (1.0 - 1e-9):
                check.fail(
                    f"StringSpec.supports[{i}].s", support.s,
                    f"< length = {length:g} m on a closed string (its node s = length is the "
                    "node s = 0: support that one)",
                )  # fmt: skip
        if self.closed and (
            self.reference is None or isinstance(self.reference, StraightReference)
        ):
            check.fail(
                "StringSpec.reference", self.reference,
                "a CurveReference or NodalReference that closes on itself for a closed string "
                "(a straight reference cannot close)",
            )  # fmt: skip
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

    Built by ``assemble_string``, not by hand (its private CSR scatter tables are left out
    below).

    Parameters
    ----------
    spec : StringSpec
        What the string is.
    basis : skfem.CellBasis
        The basis on ``ElementVector(ElementLineHermiteLocal(), 2)``.
    nodes : numpy.ndarray, shape (n_nodes,)
        Material coordinates of the nodes in m.
    mass_matrix : scipy.sparse.csr_matrix, shape (n_dofs, n_dofs)
        Constant mass matrix in kg, Eugster-Glocker (004), eq. (14).
    q_ref : numpy.ndarray, shape (n_dofs,)
        Reference (stress-free) coordinates.
    q_prescribed : numpy.ndarray, shape (n_dofs,)
        q_ref with the final prescribed support values at the fixed dofs.
    fixed_dofs, free_dofs : numpy.ndarray of int
        Dof indices; ``q[fixed_dofs] = q_prescribed[fixed_dofs]``, the unknowns are
        ``q[free_dofs]`` (sorted on an open string). A closed string's last node repeats its
        first: its dofs are in neither; its free dofs are ordered node by node from both ends
        inwards (nodes 0, n-1, 1, n-2, ...), so that the last element couples coordinates at
        most three nodes apart (a narrow band, ``steppers.effective_mass``).
    position_dofs, slope_dofs : numpy.ndarray of int, shape (2, n_nodes)
        Dof indices of the nodal positions and slopes; rows x, y.
    dx : numpy.ndarray, shape (n_elements, n_qp)
        Quadrature weight times element length in m.
    shape_values, shape_slopes, shape_curvatures : numpy.ndarray, shape (n_elements, 4, n_qp)
        Scalar Hermite functions N_a, dN_a/ds, d2N_a/ds2 at the quadrature points; local dof
        ``2 a + c`` is component c of scalar function a.
    strain_operator : numpy.ndarray, shape (n_elements, n_qp, 8, 4)
        Maps local dofs to (r'_x, r'_y, r''_x, r''_y).
    ref_metric : numpy.ndarray, shape (n_elements, n_qp)
        |r_ref'| at the quadrature points.
    ref_bending_strain : numpy.ndarray, shape (n_elements, n_qp)
        (r_ref' x r_ref'') / |r_ref'|^2 in 1/m.
    free_index : numpy.ndarray of int, shape (n_dofs,)
        The unknown of each dof, -1 at a fixed dof (a closed string's last node: the unknowns
        of the first).
    reduction : scipy.sparse.csr_matrix, shape (n_dofs, n_free)
        P: ``q = q_fixed + P q[free_dofs]``; forces reduce as P^T f, matrices as P^T K P.

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
    free_index: np.ndarray = field(repr=False)
    reduction: sp.csr_matrix = field(repr=False)

    @property
    def n_dofs(self) -> int:
        return int(self.basis.N)

    @property
    def n_elements(self) -> int:
        return int(self.spec.n_elements)

    @property
    def closed(self) -> bool:
        """True for a closed (periodic) string (``StringSpec.closed``)."""
        return bool(self.spec.closed)

    def expand(self, q_free: np.ndarray) -> np.ndarray:
        """Full dofs (n_dofs,) from the unknowns (n_free,): fixed dofs prescribed, a closed
        string's last node equal to its first."""
        full = self.q_prescribed.copy()
        full[self.free_dofs] = q_free
        if self.closed:
            last, first = self.basis.nodal_dofs[:, -1], self.basis.nodal_dofs[:, 0]
            full[last] = full[first]
        return full

    def reduce(self, force: np.ndarray) -> np.ndarray:
        """P^T f: a generalised force on the full dofs (n_dofs,) as one on the unknowns
        (n_free,) (a closed string's last node adds to its first)."""
        if not self.closed:
            return force[self.free_dofs]
        return self.reduction.T @ force

    def reduce_matrix(self, matrix) -> sp.csr_matrix:
        """P^T K P, sparse CSR (n_free, n_free), of a matrix on the full dofs."""
        if not self.closed:
            return matrix[self.free_dofs][:, self.free_dofs].tocsr()
        p = self.reduction
        return (p.T @ (matrix @ p)).tocsr()

    @property
    def rest_length(self) -> float:
        """Arc length of the interpolated reference, m."""
        return float(np.sum(self.dx * self.ref_metric))
