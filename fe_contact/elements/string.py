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

import numpy as np
import scipy.sparse as sp
from skfem import Basis, BilinearForm, ElementVector, MeshLine
from skfem.helpers import dot, grad

from .hermite import ElementLineHermiteLocal
from .string_energy import averaged_internal_force, averaged_tangent
from .string_forces import (
    element_coordinates,
    internal_force,
    internal_force_form,
    strain_energy,
    tangent_stiffness,
)
from .string_model import (
    SUPPORT_KINDS,
    CurveReference,
    NodalReference,
    StraightReference,
    StringModel,
    StringSpec,
    Support,
)
from .tension import LinearElastic, NeoHookean

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
    "string_points_at",
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


@BilinearForm
def _mass_form(u, v, w):
    """rho0 |r_ref'| u . v, Eugster-Glocker (004), eqs. (12), (14)."""
    r_ref_s = grad(w.r_ref)[:, 0]
    return w.density * np.sqrt(dot(r_ref_s, r_ref_s)) * dot(u, v)


def assemble_string(spec: StringSpec) -> StringModel:
    """Build the mesh, basis, reference, constant mass matrix, supports and cached tables.

    Parameters
    ----------
    spec : StringSpec
        What the string is: length, elements, line density, tension law, reference,
        supports (checked by ``StringSpec`` itself).

    Returns
    -------
    StringModel
        The assembled string: its Hermite basis on ``spec.n_elements`` elements, the constant
        mass matrix of Eugster-Glocker (004), eqs. (12), (14), shape (n_dofs, n_dofs), the
        stress-free reference ``q_ref``, the fixed and free dofs, and the quadrature tables.

    Raises
    ------
    ValueError
        When the reference's nodal values are not finite of shape (2, n_nodes), a nodal
        slope is zero, a closed string's reference does not close on itself, a support is
        not at a node or two supports share a node.

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
    free, free_index, reduction = _unknowns(spec, nodal, fixed, basis.N)

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
        dx=_constant(basis.dx),
        shape_values=shape_values,
        shape_slopes=_constant(shape_slopes),
        shape_curvatures=_constant(shape_curvatures),
        strain_operator=strain_operator,
        ref_metric=_constant(ref_metric),
        ref_bending_strain=_constant(ref_bending_strain),
        _csr_inverse=inverse.ravel(),
        _csr_indices=csr_indices,
        _csr_indptr=indptr,
        free_index=free_index,
        reduction=reduction,
    )


def _constant(values) -> np.ndarray:
    """A read-only C-ordered copy of the model's constant arrays that the kernels read, the same
    type on the Python and the compiled path (numba compiles a kernel once per array type)."""
    out = np.array(values, dtype=float, order="C")
    out.setflags(write=False)
    return out


def _unknowns(spec: StringSpec, nodal: np.ndarray, fixed: np.ndarray, n_dofs: int):
    """(free_dofs, free_index, reduction P) of ``StringModel``. An open string's unknowns are
    its free dofs in order; a closed string's are those of nodes 0 .. n-1 in the order
    0, n-1, 1, n-2, ... (each element then couples nodes at most three places apart in that
    order, the periodic band folded into an ordinary one), its last node mapped on its first.
    """
    n_nodes = nodal.shape[1]
    if spec.closed:
        half = np.arange(n_nodes - 1)
        order = np.empty(n_nodes - 1, dtype=np.int64)
        order[0::2] = half[: (n_nodes) // 2]
        order[1::2] = half[::-1][: (n_nodes - 1) // 2]
        candidates = nodal[:, order].T.ravel()
    else:
        candidates = np.arange(n_dofs)
    free = candidates[~np.isin(candidates, fixed)]
    free_index = -np.ones(n_dofs, dtype=np.int64)
    free_index[free] = np.arange(free.size)
    if spec.closed:
        free_index[nodal[:, -1]] = free_index[nodal[:, 0]]
    rows = np.flatnonzero(free_index >= 0)
    reduction = sp.csr_matrix(
        (np.ones(rows.size), (rows, free_index[rows])), shape=(n_dofs, free.size)
    )
    return free, free_index, reduction


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
    if spec.closed:
        gap = float(np.max(np.abs(positions[:, -1] - positions[:, 0])))
        turn = float(np.max(np.abs(slopes[:, -1] - slopes[:, 0])))
        if gap > 1e-9 * spec.length or turn > 1e-9 * float(np.hypot(*slopes[:, 0])):
            raise ValueError(
                f"reference: a closed string's reference must close on itself; its position "
                f"at s = length is {gap:g} m and its slope {turn:g} from those at s = 0; "
                "allowed: the same position and slope (to 1e-9 relative)"
            )
        positions, slopes = positions.copy(), slopes.copy()  # the user's arrays stay
        positions[:, -1], slopes[:, -1] = positions[:, 0], slopes[:, 0]
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
        if spec.closed and node == 0:  # the last node is the first: prescribed alike below
            fixed.extend(nodal_dofs[rows, -1])
        values = np.full(4, np.nan)
        if support.position is not None:
            values[0:2] = support.position
        if support.slope is not None:
            values[2:4] = support.slope
        for row in rows:
            if np.isfinite(values[row]):
                q_prescribed[nodal_dofs[row, node]] = values[row]
                if spec.closed and node == 0:
                    q_prescribed[nodal_dofs[row, -1]] = values[row]
    return np.array(sorted(fixed), dtype=np.int64), q_prescribed


def rigid_body_modes(model: StringModel, q: np.ndarray | None = None) -> np.ndarray:
    """Planar rigid motions at q (default q_ref) as columns.

    Translation x, translation y, and rotation about the origin (positions and slopes turn).

    Parameters
    ----------
    model : StringModel
        The assembled string.
    q : array_like, shape (n_dofs,), optional
        Nodal positions (m) and slopes at which the rotation is taken; ``model.q_ref`` by
        default.

    Returns
    -------
    numpy.ndarray, shape (n_dofs, 3)
        Columns: unit translation along x, along y (m per m), and the rotation rate about
        the origin (m per rad for positions, per rad for slopes).

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
    """Consistent gravity load, Eugster-Glocker (004), eq. (19), first term.

    Parameters
    ----------
    model : StringModel
        The assembled string; its ``spec.gravity`` (m/s^2) and line density (kg/m) give the
        load.

    Returns
    -------
    numpy.ndarray, shape (n_dofs,)
        The generalized gravity force integral of N^T g dm, in N on the position dofs (and
        N m on the slope dofs).

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
    """Gravity potential -integral g . r dm (zero at q = 0); exact since r is linear in q.

    Parameters
    ----------
    model : StringModel
        The assembled string.
    q : array_like, shape (n_dofs,)
        Nodal positions (m) and slopes.

    Returns
    -------
    float
        The potential energy of gravity in J.

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
    """Kinetic energy 1/2 u^T M u.

    Parameters
    ----------
    model : StringModel
        The assembled string (its constant mass matrix M).
    u : array_like, shape (n_dofs,)
        Nodal velocities in m/s (slope rates in 1/s).

    Returns
    -------
    float
        The kinetic energy in J.

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
    """Consistent nodal load J(s)^T F of point forces.

    Parameters
    ----------
    model : StringModel
        The assembled string.
    s : float or array_like, shape (m,)
        Material coordinates of the points of application in m, in [0, length].
    force : array_like, shape (2,) or (2, m)
        Force (x, y) in N, one for all points or one per point.

    Returns
    -------
    numpy.ndarray, shape (n_dofs,)
        The generalized force in N on the position dofs (N m on the slope dofs).

    Raises
    ------
    ValueError
        When ``s`` is not a scalar or 1-d array of finite material coordinates in
        [0, length].

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


# Evaluation at points lives in string_points (re-exported here).
from .string_points import (  # noqa: E402, F401
    PointJacobian,
    StringPoints,
    expand_state,
    find_element,
    point_shape_functions,  # noqa: F401 - used by structures
    position_jacobian,
    reduce_state,
    string_points_at,
)
