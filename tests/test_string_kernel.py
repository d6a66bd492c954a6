"""The string's compiled element kernel (``kernels.string``, through ``elements.string_forces``)
against references that do not use it: second finite differences of the strain energy (computed
by the law's ``energy`` and the bending formula, not by the kernel), the closed form of a
uniformly stretched straight string, the rotation equivariance of the internal force, the
closest point (``kernels.string.closest``) against a scalar minimisation of the distance, and the
generalised-alpha iteration matrix in band storage (``FlexibleBlock.iteration_matrix``) against
a dense assembly of M + gamma' C + beta' K from the sparse tangent.
"""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from fe_contact.curves import PERP
from fe_contact.elements.string import (
    LinearElastic,
    NeoHookean,
    StraightReference,
    StringSpec,
    Support,
    assemble_string,
    internal_force,
    strain_energy,
    string_points_at,
    tangent_stiffness,
)
from fe_contact.elements.string_forces import element_tangents
from fe_contact.model import Model
from fe_contact.papers.slider_on_string import slider_on_string
from fe_contact.steppers.effective_mass import FlexibleBlock
from fe_contact.system import assemble

LAWS = {"neo_hookean": NeoHookean(k=853.75), "linear": LinearElastic(EA=853.75)}


def curved_state(law, bending_stiffness, n_elements=1, seed=3):
    """A string of length 1 m and a deformed state of it: the reference bent into an arc,
    moved by a random perturbation (nodal positions and slopes)."""
    spec = StringSpec(
        length=1.0,
        n_elements=n_elements,
        density=0.3142,
        law=law,
        bending_stiffness=bending_stiffness,
    )
    model = assemble_string(spec)
    rng = np.random.default_rng(seed)
    q = model.q_ref.copy()
    s = model.nodes
    q[model.position_dofs[1]] += 0.1 * np.sin(np.pi * s)  # an arc, then noise
    q[model.slope_dofs[1]] += 0.1 * np.pi * np.cos(np.pi * s)
    q += 0.03 * rng.standard_normal(q.size)
    return model, q


@pytest.mark.parametrize("bending_stiffness", [0.0, 0.2])
@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_element_tangent_is_the_energy_hessian(law_name, bending_stiffness):
    """One element: its kernel tangent (8, 8) against the Hessian of the strain energy by
    second central differences, and its force against the energy's first differences."""
    model, q = curved_state(LAWS[law_name], bending_stiffness)
    force, k_e = element_tangents(model, q)
    dofs = model.basis.element_dofs[:, 0]  # the element's local dof order
    step = 1e-4
    hessian = np.empty((8, 8))
    gradient = np.empty(8)
    for i in range(8):
        e_i = np.zeros(q.size)
        e_i[dofs[i]] = step
        gradient[i] = (strain_energy(model, q + e_i) - strain_energy(model, q - e_i)) / (2 * step)
        for j in range(8):
            e_j = np.zeros(q.size)
            e_j[dofs[j]] = step
            hessian[i, j] = (
                strain_energy(model, q + e_i + e_j)
                - strain_energy(model, q + e_i - e_j)
                - strain_energy(model, q - e_i + e_j)
                + strain_energy(model, q - e_i - e_j)
            ) / (4 * step * step)
    scale = np.abs(k_e[0]).max()
    # truncation O(step^2 E'''') and rounding eps E / step^2, each ~1e-8 of the scale
    # (measured 2e-8 to 6e-8); 1e-5 is far below an error of one term of the tangent (the
    # geometric or the bending part: >= 1e-2 of the scale)
    assert np.abs(k_e[0] - hessian).max() <= 1e-5 * scale
    assert np.abs(force[dofs] - gradient).max() <= 1e-7 * np.abs(force).max()


@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_uniformly_stretched_string_has_the_closed_form_force(law_name, measured):
    """A straight string stretched uniformly by nu along x: the tension T(nu) is constant, so
    f_int = T t [N_a]_0^L: (-T, 0) at the first node's position, (T, 0) at the last one's,
    zero on every slope and interior position (Eugster-Glocker (004), eq. 16); the energy is
    L W(nu); the tangent on an axial stretch of the positions is dT/dnu along x at the ends."""
    law = LAWS[law_name]
    length, nu = 1.0, 1.07
    model = assemble_string(StringSpec(length=length, n_elements=4, density=0.3142, law=law))
    q = nu * model.q_ref  # positions nu s, slopes (nu, 0)
    f = internal_force(model, q)
    tension = law.tension(nu)
    expected = np.zeros(model.n_dofs)
    expected[model.position_dofs[0, 0]] = -tension
    expected[model.position_dofs[0, -1]] = tension
    # round-off: per element sums of 4 quadrature terms up to a few T (the Hermite slopes'
    # extremes times the weights) that cancel to zero on the slopes and at interior nodes:
    # measured 60 eps T; bound 256 eps T
    measured(
        "end forces of the uniformly stretched string",
        np.abs(f - expected).max(),
        256 * np.finfo(float).eps * tension,
        unit="N",
        reference="+-T(nu) along the string at its ends, zero inside",
    )
    assert strain_energy(model, q) == pytest.approx(length * law.energy(nu), rel=1e-13)
    # d f / d nu along q_ref: the stretch rate changes T by dT/dnu (the ends' x entries)
    df = tangent_stiffness(model, q) @ model.q_ref
    expected_rate = np.zeros(model.n_dofs)
    expected_rate[model.position_dofs[0, 0]] = -law.dtension(nu)
    expected_rate[model.position_dofs[0, -1]] = law.dtension(nu)
    # round-off as for f (measured 1e-15 of dT/dnu)
    assert np.abs(df - expected_rate).max() <= 1e-12 * law.dtension(nu)


@pytest.mark.parametrize("bending_stiffness", [0.0, 0.2])
def test_tangent_on_a_rigid_rotation_turns_the_force(bending_stiffness):
    """f_int(R q) = R f_int(q) for every rotation R (the energy is invariant), so its
    derivative along the infinitesimal rotation PERP q (positions and slopes alike) is
    K(q) PERP q = PERP f_int(q), with no reference to finite differences."""
    model, q = curved_state(LAWS["neo_hookean"], bending_stiffness, n_elements=3)
    turned = np.empty_like(q)
    pairs = np.concatenate((model.position_dofs, model.slope_dofs), axis=1)  # (2, k): x, y
    turned[pairs[0]], turned[pairs[1]] = PERP @ q[pairs]
    f = internal_force(model, q)
    f_turned = np.empty_like(f)
    f_turned[pairs[0]], f_turned[pairs[1]] = PERP @ f[pairs]
    lhs = tangent_stiffness(model, q) @ turned
    # round-off of K q with K ~ |K| and q ~ 1: 1e-12 of |K| |q| leaves a wide margin
    scale = abs(tangent_stiffness(model, q)).max() * np.abs(q).max()
    assert np.abs(lhs - f_turned).max() <= 1e-12 * scale


def test_iteration_matrix_in_band_storage_solves_the_dense_system():
    """G_f = M_f + gamma' C_f(q) + beta' K_t(q) of a hanging, stiffness-damped string, factorised
    in band storage, against numpy's dense solve of the same matrix assembled from the
    structure's sparse mass, damping and tangent."""
    spec = StringSpec(
        length=1.0,
        n_elements=5,
        density=0.3142,
        law=NeoHookean(k=853.75),
        reference=StraightReference((-0.4, 0.0), (0.6, 0.0)),
        supports=(Support(0.0, position=(-0.4, 0.0)), Support(1.0, position=(0.4, 0.0))),
        stiffness_damping=0.02,
    )
    system = assemble(Model(structures={"string": spec}))
    st = system.structures["string"]
    rng = np.random.default_rng(5)
    q = st.initial_coordinates() + 0.02 * rng.standard_normal(st.n_dofs)
    gp, bp = 5e-4, 2.5e-7  # gamma', beta' of h = 1 ms, rho_inf = 1
    factor = FlexibleBlock(system).iteration_matrix(q, gp, bp)
    dense = (st.mass_matrix + gp * st.damping(q) + bp * st.tangent_stiffness(q)).toarray()
    rhs = rng.standard_normal((st.n_dofs, 3))
    x = factor.solve(rhs)
    # G_f is dominated by the mass (condition number ~1e2 here): the solutions agree to
    # round-off, 1e-12 of the solution
    reference = np.linalg.solve(dense, rhs)
    assert np.abs(x - reference).max() <= 1e-12 * np.abs(reference).max()
    assert np.abs(factor.solve(rhs[:, 1]) - x[:, 1]).max() <= 1e-14 * np.abs(x).max()


def hanging_string():
    """The string of the trolley example (004 Table 1, 8 elements) in static equilibrium under
    its weight: its Structure, free coordinates, StringModel and full dof vector."""
    scenario = slider_on_string()
    model, q0 = scenario.model, scenario.q0
    system = assemble(model)
    st = system.structures["string"]
    q = q0[system.layout.structure("string")]
    return st, q, st.string, st.full(q)


@pytest.mark.parametrize(
    ("point", "start"),
    [((0.1, -0.2), 0.5), ((0.35, -0.25), 0.0), ((0.62, -0.05), 0.9), ((0.7, -0.02), None)],
)
def test_closest_point_minimises_the_distance(point, start):
    """The compiled closest-point iteration (started far off, or at the nearest node) against
    a bounded scalar minimisation of |p - r(s)|^2 for points within 5 cm of the string (where
    the closest point is unique), r evaluated through scikit-fem's shape functions (``string_points_at``), from a
    bracket around the best of 801 samples along the string."""
    st, q, model, q_full = hanging_string()
    p = np.array(point)
    s, cp = st.closest(p, q, start)

    def distance(x):
        return float(np.sum((string_points_at(model, q_full, [x]).position[:, 0] - p) ** 2))

    grid = np.linspace(0.0, st.length, 801)
    best = grid[int(np.argmin([distance(x) for x in grid]))]
    low, high = max(best - st.length / 800, 0.0), min(best + st.length / 800, st.length)
    reference = minimize_scalar(
        distance, bounds=(low, high), method="bounded", options={"xatol": 1e-11}
    )
    assert reference.success
    assert cp is not None
    # the minimiser stops at xatol 1e-11 m, on a distance flat to second order (its rounding
    # eps |p - r|^2 moves the minimum by ~sqrt(eps) |p - r| ~ 1e-9 m); the iteration at 1e-13 m
    assert abs(s - reference.x) <= 1e-8
    position = string_points_at(model, q_full, [s]).position[:, 0]
    # r(s) through the Structure's own polynomials and through scikit-fem's: round-off
    assert np.abs(cp.position - position).max() <= 1e-14


def test_closest_point_beyond_an_end_is_outside():
    """A point beyond the right support, off the end tangent's foot: no contact point, and the
    parameter lies past the length (the point's foot on the end tangent's continuation)."""
    st, q, model, q_full = hanging_string()
    end = string_points_at(model, q_full, [st.length])
    p = end.position[:, 0] + 0.1 * end.tangent[:, 0] + 0.01 * end.normal[:, 0]
    s, cp = st.closest(p, q, st.length - 0.05)
    assert cp is None
    # foot on the tangent line: s = L + (p - r(L)) . r'(L) / |r'(L)|^2 = L + 0.1 / |r'(L)|
    expected = st.length + 0.1 / np.hypot(*end.slope[:, 0])
    assert abs(s - expected) <= 1e-12
