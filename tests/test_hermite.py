"""The Hermite line element in local coordinates (``elements.hermite``) against closed forms.

Element matrices: EI/le^3 [[12, 6le, -12, 6le], ...] and rhoA le/420 [[156, 22le, 54, -13le],
...], typed here from the textbook (Przemieniecki), on short meshes and on the last element of a
100 000-element cantilever (where scikit-fem's global ``ElementLineHermite`` is singular). Fields:
the interpolated uniform curvature and the nodal interpolant of the cantilever's cubic deflection
P x^2 (3L - x) / (6 EI) at 100 ... 100 000 elements; the solve P L^3 / (3 EI) where double
precision allows it. Drop-in: the same DOFs, order, signs and matrices as ``ElementLineHermite``
on a short mesh, scalar and in ``ElementVector``.
"""

import numpy as np
import pytest
from skfem import (
    Basis,
    BilinearForm,
    ElementLineHermite,
    ElementVector,
    Functional,
    LinearForm,
    MeshLine,
)
from skfem.helpers import dd, dot, grad

from fe_contact.elements.beam import (
    BeamSpec,
    assemble_beam,
    beam_fields,
    bending_form,
    consistent_mass,
    point_load,
    shape_rows,
    static_deflection,
)
from fe_contact.elements.hermite import ElementLineHermiteLocal, shape_coefficients

EPS = np.finfo(float).eps
LENGTH, EI, RHO_A = 0.4, 0.5906, 0.0705  # the manipulator's cantilever (002 sec. 9)

# Closed forms (Przemieniecki, Theory of Matrix Structural Analysis, eqs. 5.116 and 11.23), in
# the DOFs (w_0, le w'_0, w_1, le w'_1): the le factors are applied by SCALE below.
STIFFNESS = np.array([[12, 6, -12, 6], [6, 4, -6, 2], [-12, -6, 12, -6], [6, 2, -6, 4]], float)
MASS = np.array([[156, 22, 54, -13], [22, 4, 13, -3], [54, 13, 156, -22], [-13, -3, -22, 4]], float)


def element_matrices(nodes, element):
    """(K_e, M_e, le) of one element of MeshLine(nodes), assembled by scikit-fem alone."""
    basis = Basis(MeshLine(nodes), ElementLineHermiteLocal(), elements=np.array([element]))
    dofs = basis.element_dofs[:, 0]
    K = bending_form.assemble(basis, EI=EI)[dofs][:, dofs].toarray()
    M = consistent_mass.assemble(basis, rho_A=RHO_A)[dofs][:, dofs].toarray()
    # the element's length as the mesh stores it: a difference of nearby doubles, exact
    return K, M, nodes[element + 1] - nodes[element]


@pytest.mark.parametrize(
    "nodes, element",
    [
        (np.array([0.0, 0.1, 0.35, 0.4]), 1),  # a 0.25 m element
        (np.linspace(0.0, LENGTH, 10_001), 9_999),  # the global element was off by 6e-4 here
        (np.linspace(0.0, LENGTH, 100_001), 99_999),  # 4e-6 m at x = 0.4 m: L / le = 1e5
        (np.array([0.0, 1e-3, 2e-3]) + 400.0, 1),  # 1 mm at 400 m: x / le = 4e5
    ],
)
def test_element_matrices_match_closed_forms(nodes, element, measured):
    K, M, le = element_matrices(nodes, element)
    scale = np.array([1.0, le, 1.0, le])
    K_ref = EI / le**3 * STIFFNESS * np.outer(scale, scale)
    M_ref = RHO_A * le / 420.0 * MASS * np.outer(scale, scale)
    # Each entry is a 4-point Gauss sum of products of cubic polynomials in xi (a few roundings
    # each, Gauss points and weights rounded once) times le powers: a few eps of the sum of the
    # terms' magnitudes, which is at most about three times the largest entry. 32 eps of the
    # largest entry of each (dimensionless) matrix leaves a factor of ~3 over that estimate; the
    # global element was off by 6e-4 relative at L / le = 1e4 and singular at 1e5.
    measured(
        "element stiffness matrix",
        np.max(np.abs(K - K_ref)),
        32 * EPS * np.max(np.abs(K_ref)),
        unit="N/m, N, N m",
        reference="EI / l^3 times the cubic Hermite beam's stiffness table",
    )
    measured(
        "element mass matrix",
        np.max(np.abs(M - M_ref)),
        32 * EPS * np.max(np.abs(M_ref)),
        unit="kg, kg m, kg m^2",
        reference="rho A l / 420 times the consistent mass table",
    )


def test_drop_in_for_scikit_fems_element_on_a_short_mesh():
    """Same DOFs, order and signs: matrices, point rows (value, slope, curvature) and the
    vector element of the string agree with ``ElementLineHermite`` where that one is accurate.

    On a 4-element mesh the global element's Vandermonde matrices have condition numbers of
    ~1e3, so its matrices are good to ~1e-12 relative; 1e-10 leaves a margin of 100.
    """
    mesh = MeshLine(np.array([0.0, 0.1, 0.35, 0.4, 0.7]))
    new, old = Basis(mesh, ElementLineHermiteLocal()), Basis(mesh, ElementLineHermite())
    assert np.array_equal(new.element_dofs, old.element_dofs)
    assert np.array_equal(new.nodal_dofs, old.nodal_dofs)
    for form, w in ((bending_form, {"EI": EI}), (consistent_mass, {"rho_A": RHO_A})):
        a, b = form.assemble(new, **w).toarray(), form.assemble(old, **w).toarray()
        assert np.max(np.abs(a - b)) <= 1e-10 * np.max(np.abs(b))
    points = np.array([[0.05, 0.1, 0.36, 0.69]])
    a, b = new.probes(points).toarray(), old.probes(points).toarray()
    assert np.max(np.abs(a - b)) <= 1e-10 * np.max(np.abs(b))
    # slope and curvature rows through gbasis with per-point elements (as contact does)
    element = np.array([0, 1, 2, 3])
    local = mesh.mapping().invF(points[:, :, None], tind=element)
    for j in range(4):
        fa = new.elem.gbasis(new.mapping, local, j, tind=element)[0]
        fb = old.elem.gbasis(old.mapping, local, j, tind=element)[0]
        for da, db in ((fa.grad, fb.grad), (fa.hess, fb.hess)):
            assert np.max(np.abs(da - db)) <= 1e-10 * np.max(np.abs(db))

    @BilinearForm
    def vector_mass(u, v, w):
        return dot(u, v) + dot(grad(u), grad(v))

    new2 = Basis(mesh, ElementVector(ElementLineHermiteLocal(), 2))
    old2 = Basis(mesh, ElementVector(ElementLineHermite(), 2))
    assert np.array_equal(new2.element_dofs, old2.element_dofs)
    a, b = vector_mass.assemble(new2).toarray(), vector_mass.assemble(old2).toarray()
    assert np.max(np.abs(a - b)) <= 1e-10 * np.max(np.abs(b))


def test_shape_coefficients_are_the_basis_of_the_assembly():
    """The beam's point rows (``shape_rows``, from ``shape_coefficients``) equal the element's
    own gbasis at the same points: one set of shape functions for contact and assembly."""
    nodes = np.array([0.0, 0.13, 0.2, 0.4])
    beam = assemble_beam(
        BeamSpec(
            length=0.4,
            youngs_modulus=2.1e11,
            density=4.7e3,
            width=0.01,
            height=0.0015,
            node_x=tuple(nodes),
        )
    )
    x = np.array([0.01, 0.13, 0.17, 0.33, 0.4])
    rows = shape_rows(beam, x)
    local = rows.zeta[None, :, None]
    for j in range(4):
        f = beam.basis.elem.gbasis(beam.basis.mapping, local, j, tind=rows.element)[0]
        for order, field in enumerate((np.asarray(f), f.grad[0], f.hess[0, 0])):
            # entries are O(1) / le^order; each side is a cubic evaluated with a handful of
            # roundings: 16 eps of the row's scale
            ref = field[:, 0]
            got = rows.dx(order)[:, j]
            assert np.max(np.abs(got - ref)) <= 16 * EPS * np.max(np.abs(rows.dx(order)))
    c = shape_coefficients(np.array([0.5]))[0]
    # Przemieniecki's N_j(xi) at xi = 1/2: 1/2, le/8, 1/2, -le/8 (exact in binary)
    assert np.array_equal(c @ 0.5 ** np.arange(4), [0.5, 0.5 / 8, 0.5, -0.5 / 8])


@Functional
def _bending_energy(w):
    return 0.5 * w.EI * dd(w.u)[0, 0] ** 2


@pytest.mark.parametrize("n_elements", [100, 1000, 10_000, 100_000])
def test_uniform_curvature_energy_is_exact(n_elements):
    """w = kappa x^2 / 2 interpolated from its nodal values and slopes: 1/2 EI kappa^2 L.

    The Hermite cubics reproduce the quadratic exactly, so only round-off remains: at a Gauss
    point w'' = sum_j u_j N_j'' adds terms up to kappa L^2 / 2 * 6 / le^2 (values) and
    kappa L * 4 / le (slopes), 6 kappa (L / le)^2 in all, each with a few roundings; the
    relative error of kappa is then at most ~50 eps (L / le)^2 and that of the energy twice it:
    bound 100 eps (L / le)^2 (2e-12 at 100 elements, 2e-4 at 100 000; measured 5e-14, 2e-13,
    3e-12, 4e-10 as the errors average over the Gauss points).
    """
    kappa = 0.3
    nodes = np.linspace(0.0, LENGTH, n_elements + 1)
    basis = Basis(MeshLine(nodes), ElementLineHermiteLocal())
    u = np.zeros(basis.N)
    u[basis.nodal_dofs[0]] = 0.5 * kappa * nodes**2
    u[basis.nodal_dofs[1]] = kappa * nodes
    energy = _bending_energy.assemble(basis, u=basis.interpolate(u), EI=EI)
    exact = 0.5 * EI * kappa**2 * LENGTH
    assert abs(energy / exact - 1.0) <= 100 * EPS * n_elements**2


def cantilever(n_elements):
    spec = BeamSpec(
        length=LENGTH,
        youngs_modulus=2.1e11,
        density=4.7e3,
        width=0.01,
        height=0.0015,
        n_elements=n_elements,
    )
    return assemble_beam(spec)


@pytest.mark.parametrize("n_elements", [100, 1000, 10_000, 100_000])
def test_cantilever_deflection_satisfies_the_assembled_equations(n_elements):
    """The tip-loaded cantilever's deflection w = P x^2 (3L - x) / (6 EI) is cubic, so its nodal
    values and slopes solve K u = f exactly (Hermite elements are nodally exact); assembled K
    and f must agree with it to the round-off of the product K u.

    Row i of K u sums terms K_ij u_j; their magnitudes (|K| |u|)_i bound the round-off: with
    at most 6 terms and a few roundings in each entry, |K u - f|_i <= 16 eps (|K| |u|)_i. The
    old global element fails this from 1000 elements on (its entries were off by 4e-7 there).
    """
    beam = cantilever(n_elements)
    P = 1.0
    EIb = beam.spec.bending_stiffness
    x = beam.nodes
    u = np.zeros(beam.n_dofs)
    u[beam.basis.nodal_dofs[0]] = P * x**2 * (3 * LENGTH - x) / (6 * EIb)
    u[beam.basis.nodal_dofs[1]] = P * x * (2 * LENGTH - x) / (2 * EIb)
    f = point_load(beam, LENGTH, force=P)
    K = beam.reduced("stiffness")
    free = beam.free_dofs
    residual = K @ u[free] - f[free]
    scale = abs(K) @ np.abs(u[free])
    assert np.all(np.abs(residual) <= 16 * EPS * scale)


@pytest.mark.parametrize("n_elements", [100, 1000])
def test_cantilever_tip_deflection_by_the_solve(n_elements):
    """P L^3 / (3 EI) from ``static_deflection`` (a sparse LU of the reduced K).

    The discrete answer is exact; the solve's round-off is bounded by cond(K) eps, and cond(K)
    grows like (L / le)^4 (its largest eigenvalue ~ EI / le^3, its smallest ~ EI le / L^4 with
    the slopes scaled by le): bound eps n^4 (2e-8 at 100 elements, 2e-4 at 1000; measured 2e-9
    and 1.4e-5). At 10 000 elements the bound is 2 and the measured error 2e-2 (5e-2 with
    LAPACK's banded Cholesky), at 100 000 the answer is lost (-1.0): this is the conditioning
    of K in absolute nodal DOFs, the same for any element (the equations themselves hold to
    round-off, ``test_cantilever_deflection_satisfies_the_assembled_equations``).
    """
    beam = cantilever(n_elements)
    P = 1.0
    u = static_deflection(beam, point_load(beam, LENGTH, force=P))
    tip = beam_fields(beam, u, [LENGTH]).deflection[0]
    exact = P * LENGTH**3 / (3 * beam.spec.bending_stiffness)
    assert abs(tip / exact - 1.0) <= EPS * n_elements**4


def test_linear_form_load_is_the_closed_form(measured):
    """A uniform load q on a 100 000-element mesh: each element gives q le (1/2, le/12, 1/2,
    -le/12); 8 eps of the entry's scale (a 4-point Gauss sum of cubic values)."""

    @LinearForm
    def load(v, w):
        return 2.0 * v

    nodes = np.linspace(0.0, LENGTH, 100_001)
    basis = Basis(MeshLine(nodes), ElementLineHermiteLocal())
    f = load.assemble(basis)
    le = np.diff(nodes)
    ref = np.zeros(basis.N)
    np.add.at(ref, basis.nodal_dofs[0, :-1], 2.0 * le / 2)
    np.add.at(ref, basis.nodal_dofs[0, 1:], 2.0 * le / 2)
    np.add.at(ref, basis.nodal_dofs[1, :-1], 2.0 * le**2 / 12)
    np.add.at(ref, basis.nodal_dofs[1, 1:], -2.0 * le**2 / 12)
    values, slopes = basis.nodal_dofs[0], basis.nodal_dofs[1]
    reference = "q l / 2 and +-q l^2 / 12 per element end"
    measured(
        "uniform load, value entries",
        np.max(np.abs(f[values] - ref[values])),
        8 * EPS * np.max(np.abs(ref[values])),
        unit="N",
        reference=reference,
    )
    # interior slope entries cancel (le^2/12 - le^2/12): compare against the terms' scale
    measured(
        "uniform load, slope entries",
        np.max(np.abs(f[slopes] - ref[slopes])),
        8 * EPS * 2.0 * np.max(le) ** 2 / 12,
        unit="N m",
        reference=reference,
    )


def test_gbasis_rejects_a_mapping_that_is_not_affine():
    from skfem.mapping import MappingIsoparametric

    mesh = MeshLine(np.array([0.0, 0.5, 1.0]))
    mapping = MappingIsoparametric(mesh, mesh.elem())
    with pytest.raises(ValueError, match="MappingIsoparametric.*affine mapping of a MeshLine"):
        ElementLineHermiteLocal().gbasis(mapping, np.array([[0.5]]), 0)


def test_gbasis_rejects_an_index_beyond_the_four_functions():
    basis = Basis(MeshLine(np.array([0.0, 1.0])), ElementLineHermiteLocal())
    with pytest.raises(ValueError, match="Index larger"):
        basis.elem.gbasis(basis.mapping, np.array([[0.5]]), 4)


def test_tensioned_string_of_10000_elements_sags_as_the_elastic_catenary(measured):
    """A 100 m contact wire (1.08 kg/m, EA = 1.2e8 N) of 10 000 string elements (le = 1 cm),
    pinned at both ends, stretched by 2e4 / EA and hung under gravity: midspan sag and the
    quarter point against the elastic catenary (Irvine, Cable Structures, eqs. 2.4-2.5):

        x(s) = H s / EA + (H / w) [asinh(V(s) / H) - asinh(V0 / H)],
        y(s) = (T(s) - T0) / w + (V0 s + w s^2 / 2) / EA,   V(s) = V0 + w s, V0 = -w L / 2,

    with H from x(L) = span. The cubic Hermite interpolation error (le / R)^4 with a curvature
    radius R = H / w ~ 2.6 km is ~1e-22; what is left is round-off: the positions are stored to
    eps |x| ~ 2e-14 m, which moves the tension by EA eps |x| / le ~ 3e-4 N, almost entirely
    along the wire. Bound 1e-8 relative on the sag (0.48 m), 1e-8 m on the quarter point;
    measured 1.7e-10 and 6e-11 m.

    ``string_static_shape`` stops at its round-off floor 10 eps ||(|K| |q|)_free||, 0.4 N here,
    30 times the true one (the sag was off by 4e-5), so two more Newton steps with the public
    force and tangent follow it.
    """
    from scipy.optimize import brentq
    from scipy.sparse.linalg import spsolve

    from fe_contact.elements.string import (
        LinearElastic,
        StringSpec,
        Support,
        assemble_string,
        gravity_force,
        internal_force,
        tangent_stiffness,
    )
    from fe_contact.elements.string import string_points_at as evaluate_string
    from fe_contact.elements.string_statics import string_static_shape

    L, rho, EA, g = 100.0, 1.08, 1.2e8, 9.81
    strain = 2e4 / EA
    span, w = L * (1.0 + strain), rho * g
    H = brentq(
        lambda H: H * L / EA + 2.0 * H / w * np.arcsinh(w * L / (2.0 * H)) - span,
        1.0,
        1e6,
        xtol=1e-12,
        rtol=4 * EPS,
    )
    V0, T0 = -0.5 * w * L, np.hypot(H, 0.5 * w * L)
    model = assemble_string(
        StringSpec(
            length=L,
            n_elements=10_000,
            density=rho,
            law=LinearElastic(EA=EA),
            supports=(Support(0.0, "pinned"), Support(L, "pinned", position=(span, 0.0))),
            gravity=(0.0, -g),
        )
    )
    q = model.q_ref.copy()
    q[model.position_dofs[0]] *= 1.0 + strain
    q[model.slope_dofs[0]] *= 1.0 + strain
    q = string_static_shape(model, q0=q, n_load_steps=1).q
    free, weight = model.free_dofs, gravity_force(model)
    for _ in range(2):
        residual = (internal_force(model, q) - weight)[free]
        q[free] -= spsolve(tangent_stiffness(model, q)[free][:, free].tocsc(), residual)
    s = np.array([0.5 * L, 0.25 * L])
    V = V0 + w * s
    x = H * s / EA + H / w * (np.arcsinh(V / H) - np.arcsinh(V0 / H))
    y = (np.hypot(H, V) - T0) / w + (V0 * s + 0.5 * w * s**2) / EA
    position = evaluate_string(model, q, s).position
    reference = "the elastic catenary (closed form)"
    measured(
        "midspan sag (relative), 10000 elements",
        abs(position[1, 0] / y[0] - 1.0),
        1e-8,
        reference=reference,
    )
    measured(
        "quarter-span position, 10000 elements",
        np.max(np.abs(position[:, 1] - [x[1], y[1]])),
        1e-8,
        unit="m",
        reference=reference,
    )
