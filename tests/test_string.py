"""Absolute-nodal string element against independent references.

Hanging string: Eugster-Glocker (004), Table 1, against the extensible catenary obtained here by
shooting along the unstretched arc length. Beam limit: Euler-Bernoulli cantilever and the
inextensible elastica (shooting on theta'' = (P/EI) cos(theta), checked against Mattiasson's
table). Kernels: finite-difference tangent, energy gradient, plain skfem LinearForm assembly.
"""

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq, fsolve
from scipy.sparse.linalg import splu

from fe_contact.elements.static_error import StaticSolveError
from fe_contact.elements.string import (
    CurveReference,
    LinearElastic,
    NeoHookean,
    NodalReference,
    StraightReference,
    StringSpec,
    Support,
    assemble_string,
    expand_state,
    gravity_energy,
    gravity_force,
    internal_force,
    internal_force_form,
    kinetic_energy,
    point_load,
    position_jacobian,
    reduce_state,
    strain_energy,
    string_points_at,
    tangent_stiffness,
)
from fe_contact.elements.string_statics import StaticConvergenceError, string_static_shape

# Eugster-Glocker (004), Table 1
LENGTH, SPAN, RHO0, K_STRING, G = 1.0, 0.8, 0.3142, 853.75, 9.81
LAWS = {"neo_hookean": NeoHookean(k=K_STRING), "linear": LinearElastic(EA=K_STRING)}


def exact_stretch(law, tension):
    """Invert T(nu) = tension independently of the library's law objects."""
    if isinstance(law, LinearElastic):
        return 1.0 + tension / law.EA
    # neo-Hookean, eq. (17): nu^3 - (3 T / k) nu^2 - 1 = 0 has exactly one positive real root
    roots = np.roots([1.0, -3.0 * tension / law.k, 0.0, -1.0])
    return float(max(r.real for r in roots if abs(r.imag) < 1e-12 and r.real > 0.0))


@cache
def exact_catenary(law):
    """Extensible catenary by shooting on the unstretched arc length s in [0, L].

    dx/ds = nu(T) H / T, dy/ds = nu(T) V / T, V = V0 + rho0 g s, T = sqrt(H^2 + V^2);
    H and V0 are found so that the end lands at (SPAN, 0). Returns (H, V0, solution).
    """

    def rhs(s, y, horizontal, vertical0):
        vertical = vertical0 + RHO0 * G * s
        tension = np.hypot(horizontal, vertical)
        nu = exact_stretch(law, tension)
        return [nu * horizontal / tension, nu * vertical / tension]

    def shoot(params):
        return solve_ivp(
            rhs,
            (0.0, LENGTH),
            [0.0, 0.0],
            args=tuple(params),
            rtol=1e-12,
            atol=1e-14,
            dense_output=True,
        )

    def mismatch(params):
        end = shoot(params).y[:, -1]
        return [end[0] - SPAN, end[1]]

    params = fsolve(mismatch, [1.0, -0.5 * RHO0 * G * LENGTH], xtol=1e-13)
    assert np.max(np.abs(mismatch(params))) < 1e-11
    return params[0], params[1], shoot(params)


def hanging_model(law, n_elements):
    """004's string: reference straight (0,0)-(1,0), right end moved to (0.8, 0)."""
    spec = StringSpec(
        length=LENGTH,
        n_elements=n_elements,
        density=RHO0,
        law=law,
        supports=(Support(0.0, "pinned"), Support(LENGTH, "pinned", position=(SPAN, 0.0))),
        gravity=(0.0, -G),
    )
    return assemble_string(spec)


def catenary_errors(law, n_elements):
    """Relative errors of midspan sag, end tensions |F_A|, |F_B| and horizontal tension."""
    horizontal, vertical0, exact = exact_catenary(law)
    model = hanging_model(law, n_elements)
    solution = string_static_shape(model)  # gravity 0 -> 1, then support (1,0) -> (0.8,0)
    sag = -string_points_at(model, solution.q, 0.5 * LENGTH).position[1, 0]
    exact_sag = -exact.sol(0.5 * LENGTH)[1]
    force_a = solution.reactions[model.position_dofs[:, 0]]
    force_b = solution.reactions[model.position_dofs[:, -1]]
    tension_a = np.hypot(horizontal, vertical0)
    tension_b = np.hypot(horizontal, vertical0 + RHO0 * G * LENGTH)
    return np.array(
        [
            abs(sag / exact_sag - 1.0),
            abs(np.hypot(*force_a) / tension_a - 1.0),
            abs(np.hypot(*force_b) / tension_b - 1.0),
            abs(-force_a[0] / horizontal - 1.0),
        ]
    )


@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_hanging_string_matches_extensible_catenary(law_name, measured):
    errors = catenary_errors(LAWS[law_name], 8)
    # measured: sag 2.3e-4, |F_A| and |F_B| 1.3e-5, H 4.3e-5 for both laws
    for what, error in zip(("midspan sag", "|F_A|", "|F_B|", "H"), errors, strict=True):
        measured(
            f"{what}, 8 elements (relative)",
            error,
            1e-3,
            reference="the extensible catenary (shooting solution)",
        )


@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_hanging_string_converges_under_refinement(law_name):
    sag_errors = [catenary_errors(LAWS[law_name], n)[0] for n in (2, 4, 8, 16)]
    # measured: 3.6e-2, 4.9e-3, 2.3e-4, 1.1e-5
    assert np.all(np.diff(sag_errors) < 0.0), sag_errors
    assert sag_errors[-1] < 1e-4


def test_hanging_string_support_force_matches_gravity():
    model = hanging_model(LAWS["neo_hookean"], 4)
    solution = string_static_shape(model)
    total = solution.reactions[model.position_dofs].sum(axis=1)
    assert np.allclose(total, [0.0, RHO0 * G * LENGTH], rtol=0.0, atol=1e-9)


def test_a_far_off_trial_of_the_static_line_search_is_halved_quietly():
    """004's string (linear law, EA = 1827 N) with a vanishing bending stiffness (EI = 9.6e-255
    N m^2, a drawn property test case): a full Newton step of the static solve lands far off
    (slopes whose squares overflow); the line search halves it without a floating-point
    warning and the solve ends in equilibrium: the support forces carry the weight rho0 g L
    (to 1e-9 N, the solver's residual on forces of ~3 N)."""
    import warnings

    spec = StringSpec(
        length=LENGTH,
        n_elements=8,
        density=RHO0,
        law=LinearElastic(EA=1827.204143140032),
        bending_stiffness=9.56873204782001e-255,
        supports=(Support(0.0, "pinned"), Support(LENGTH, "pinned", position=(SPAN, 0.0))),
        gravity=(0.0, -G),
    )
    model = assemble_string(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        solution = string_static_shape(model)
    total = solution.reactions[model.position_dofs].sum(axis=1)
    assert np.allclose(total, [0.0, RHO0 * G * LENGTH], rtol=0.0, atol=1e-9)


@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_axial_bar_has_exact_stretch(law_name, measured):
    law = LAWS[law_name]
    force = 0.3 * K_STRING
    spec = StringSpec(
        length=2.0,
        n_elements=3,
        density=RHO0,
        law=law,
        supports=(Support(0.0, "pinned"), Support(2.0, "fixed_y")),
        gravity=(0.0, 0.0),
    )
    model = assemble_string(spec)
    solution = string_static_shape(model, point_load(model, 2.0, (force, 0.0)), n_load_steps=3)
    nu = exact_stretch(law, force)
    points = string_points_at(model, solution.q, np.linspace(0.0, 2.0, 13))
    measured.close(
        "stretch under an end force", points.stretch, nu, rtol=1e-10, reference="the tension law"
    )
    assert np.allclose(points.tension, force, rtol=1e-10, atol=0.0)
    assert np.allclose(points.position[0], nu * points.s, rtol=1e-10, atol=1e-12)


def cantilever_model(n_elements, axial_stiffness):
    spec = StringSpec(
        length=1.0,
        n_elements=n_elements,
        density=1.0,
        law=LinearElastic(EA=axial_stiffness),
        bending_stiffness=1.0,
        supports=(Support(0.0, "clamped"),),
        gravity=(0.0, 0.0),
    )
    return assemble_string(spec)


def test_small_tip_load_gives_euler_bernoulli_deflection(measured):
    model = cantilever_model(4, 1e5)
    load = 1e-3  # P L^2 / EI; the elastica correction is O(load^2)
    solution = string_static_shape(model, point_load(model, 1.0, (0.0, -load)), n_load_steps=1)
    deflection = -string_points_at(model, solution.q, 1.0).position[1, 0]
    # measured: 1.3e-7 relative
    measured.close(
        "tip deflection, P L^2 / EI = 1e-3",
        deflection,
        load / 3.0,
        rtol=1e-4,
        unit="m",
        reference="P L^3 / (3 EI)",
    )


def elastica_tip(load):
    """Inextensible cantilever, tip load P downwards: EI theta'' = P cos(theta), theta(0) = 0,
    theta'(L) = 0 (L = EI = 1). Shooting on theta'(0). Returns (u, v) = (L - x_tip, -y_tip)."""

    def shoot(curvature0):
        return solve_ivp(
            lambda s, y: [y[1], load * np.cos(y[0]), np.cos(y[0]), np.sin(y[0])],
            (0.0, 1.0),
            [0.0, curvature0, 0.0, 0.0],
            rtol=1e-12,
            atol=1e-14,
        ).y[:, -1]

    curvature0 = brentq(lambda k0: shoot(k0)[1], -load - 1e-9, 0.0, xtol=1e-15)
    end = shoot(curvature0)
    return 1.0 - end[2], -end[3]


# Mattiasson (1981), tip displacements u/L, v/L of the elastica under P L^2 / EI = 1, 2, 5
MATTIASSON = {1.0: (0.05643, 0.30172), 2.0: (0.16064, 0.49346), 5.0: (0.38763, 0.71379)}


@pytest.mark.parametrize("load", sorted(MATTIASSON))
def test_large_tip_load_reproduces_elastica(load, measured):
    exact = np.array(elastica_tip(load))
    assert np.allclose(exact, MATTIASSON[load], rtol=0.0, atol=1e-5)  # the shooting itself
    model = cantilever_model(16, 1e5)  # EA L^2 / EI = 1e5: axial strain <= 5e-5
    solution = string_static_shape(model, point_load(model, 1.0, (0.0, -load)), n_load_steps=2)
    tip = string_points_at(model, solution.q, 1.0).position[:, 0]
    computed = np.array([1.0 - tip[0], -tip[1]])
    # measured relative errors <= 5.4e-5 (u) and 2.3e-5 (v)
    measured.close(
        f"tip displacements (u, v), P L^2 / EI = {load:g}",
        computed,
        exact,
        rtol=1e-3,
        unit="m",
        reference="the elastica by shooting (Mattiasson's table)",
    )


def string_rhs(model):
    """y' = f(t, y) of the string alone under gravity, y = (q_free, u_free), for solve_ivp:
    M_ff u' = (f_grav - f_int(q))_free, the fixed coordinates held at q_prescribed (Eugster-
    Glocker (004), eq. (11); no Christoffel term, r is linear in q)."""
    free = model.free_dofs
    n_free = free.size
    lu = splu(model.mass_matrix[free][:, free].tocsc())
    weight = gravity_force(model)

    def rhs(t, y):
        q = model.q_prescribed.copy()
        q[free] = y[:n_free]
        residual = weight - internal_force(model, q)
        return np.concatenate((y[n_free:], lu.solve(residual[free])))

    return rhs


def total_energy(model, y):
    q, u = expand_state(model, y)
    return kinetic_energy(model, u) + strain_energy(model, q) + gravity_energy(model, q)


@pytest.mark.parametrize("case", ["hanging_string", "falling_cantilever"])
def test_free_vibration_conserves_energy(case):
    if case == "hanging_string":
        model = hanging_model(LAWS["neo_hookean"], 4)
        q0 = string_static_shape(model).q
        u0 = np.zeros(model.n_dofs)
        u0[model.position_dofs[1]] = 1.0  # kick upwards, m/s
        u0[model.fixed_dofs] = 0.0
    else:  # clamped beam released horizontally, swings down under gravity
        model = cantilever_model(4, K_STRING)
        model = assemble_string(replace(model.spec, density=RHO0, gravity=(0.0, -G)))
        q0, u0 = model.q_ref, np.zeros(model.n_dofs)
    y0 = reduce_state(model, q0, u0)
    result = solve_ivp(string_rhs(model), (0.0, 0.1), y0, method="DOP853", rtol=1e-10, atol=1e-12)
    assert result.success
    energy = np.array([total_energy(model, y) for y in result.y.T])
    kinetic = np.array([kinetic_energy(model, expand_state(model, y)[1]) for y in result.y.T])
    assert kinetic.max() > 1e-2  # something moves, J
    # measured drift: 6e-13 J (string, max kinetic 0.11 J), 3e-16 J (beam, 0.08 J)
    assert np.max(np.abs(energy - energy[0])) < 1e-8 * kinetic.max()


def arc_reference(radius=0.7):
    """Circular arc parametrised by arc length; the Hermite interpolant has |r'| != 1."""
    return CurveReference(
        position=lambda s: radius * np.array([np.sin(s / radius), 1.0 - np.cos(s / radius)]),
        slope=lambda s: np.array([np.cos(s / radius), np.sin(s / radius)]),
    )


def deformed_model_state(law_name, bending_stiffness, seed=3):
    spec = StringSpec(
        length=1.0,
        n_elements=3,
        density=RHO0,
        law=LAWS[law_name],
        bending_stiffness=bending_stiffness,
        reference=arc_reference(),
    )
    model = assemble_string(spec)
    rng = np.random.default_rng(seed)
    return model, model.q_ref + 0.05 * rng.standard_normal(model.n_dofs)


@pytest.mark.parametrize("bending_stiffness", [0.0, 0.2])
@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_tangent_is_finite_difference_jacobian(law_name, bending_stiffness):
    model, q = deformed_model_state(law_name, bending_stiffness)
    stiffness = tangent_stiffness(model, q).toarray()
    step = 1e-6
    columns = []
    for j in range(model.n_dofs):
        dq = np.zeros(model.n_dofs)
        dq[j] = step
        columns.append((internal_force(model, q + dq) - internal_force(model, q - dq)) / (2 * step))
    finite_difference = np.array(columns).T
    # measured: about 1e-10 relative
    assert np.max(np.abs(stiffness - finite_difference)) < 1e-6 * np.max(np.abs(stiffness))
    assert np.allclose(stiffness, stiffness.T, rtol=0.0, atol=1e-12 * np.max(np.abs(stiffness)))


@pytest.mark.parametrize("bending_stiffness", [0.0, 0.2])
@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_internal_force_is_energy_gradient(law_name, bending_stiffness):
    model, q = deformed_model_state(law_name, bending_stiffness)
    step = 1e-6
    gradient = np.zeros(model.n_dofs)
    for j in range(model.n_dofs):
        dq = np.zeros(model.n_dofs)
        dq[j] = step
        gradient[j] = (strain_energy(model, q + dq) - strain_energy(model, q - dq)) / (2 * step)
    force = internal_force(model, q)
    assert np.max(np.abs(gradient - force)) < 1e-6 * np.max(np.abs(force))


@pytest.mark.parametrize("bending_stiffness", [0.0, 0.2])
@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_vectorised_force_equals_linear_form(law_name, bending_stiffness):
    model, q = deformed_model_state(law_name, bending_stiffness)
    form = internal_force_form(model.spec.law, bending_stiffness)
    reference = form.assemble(model.basis, r=q, r_ref=model.q_ref)
    force = internal_force(model, q)
    assert np.max(np.abs(force - reference)) < 1e-12 * np.max(np.abs(reference))


@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_rigid_motion_is_stress_free(law_name):
    model, _ = deformed_model_state(law_name, 0.2)
    angle, shift = 0.9, np.array([0.3, -1.2])
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    q = np.zeros(model.n_dofs)
    q[model.position_dofs] = rotation @ model.q_ref[model.position_dofs] + shift[:, None]
    q[model.slope_dofs] = rotation @ model.q_ref[model.slope_dofs]
    assert strain_energy(model, q) < 1e-14
    assert np.max(np.abs(internal_force(model, q))) < 1e-11


def test_mass_matrix_gives_total_mass_and_gravity():
    model, _ = deformed_model_state("linear", 0.0)
    translation = np.zeros(model.n_dofs)
    translation[model.position_dofs[1]] = 1.0
    total_mass = RHO0 * model.rest_length
    assert translation @ model.mass_matrix @ translation == pytest.approx(total_mass, rel=1e-13)
    assert gravity_force(model) @ translation == pytest.approx(-G * total_mass, rel=1e-13)
    assert model.rest_length == pytest.approx(1.0, rel=1e-4)  # arc length of the interpolant


def test_point_quantities_on_a_circle():
    radius = 0.7
    spec = StringSpec(
        length=1.0, n_elements=16, density=RHO0, law=LAWS["linear"], reference=arc_reference(radius)
    )
    model = assemble_string(spec)
    s = np.linspace(0.0, 1.0, 41)  # includes nodes
    points = string_points_at(model, model.q_ref, s)
    center = np.array([[0.0], [radius]])
    assert np.allclose(np.hypot(*(points.position - center)), radius, rtol=1e-5)
    assert np.allclose(points.curvature, 1.0 / radius, rtol=1e-3)
    inward = (center - points.position) / radius
    assert np.allclose(np.sum(points.normal * inward, axis=0), 1.0, atol=1e-6)
    assert np.allclose(np.sum(points.normal * points.tangent, axis=0), 0.0, atol=1e-14)
    assert np.allclose(points.stretch, 1.0, atol=1e-14)
    # same values as scikit-fem's own point evaluation (element_finder + probes)
    rng = np.random.default_rng(0)
    q = model.q_ref + 0.1 * rng.standard_normal(model.n_dofs)
    # (per component: the vector basis's probes need scikit-fem >= 12, the split works in 10)
    probes = np.vstack([b.probes(s[None, :]) @ x for x, b in model.basis.split(q)])
    assert np.allclose(string_points_at(model, q, s).position, probes, rtol=0.0, atol=1e-13)


def test_position_jacobian_and_point_load():
    model, q = deformed_model_state("neo_hookean", 0.0)
    s = np.array([0.0, 0.2, 1.0 / 3.0, 0.77, 1.0])
    jacobian = position_jacobian(model, s)
    positions = string_points_at(model, q, s).position
    blocks = np.einsum("kcj,kj->ck", jacobian.block, q[jacobian.dofs])
    assert np.allclose(blocks, positions, rtol=0.0, atol=1e-14)
    assert jacobian.sparse().shape == (2 * s.size, model.n_dofs)
    assert np.allclose(jacobian.sparse() @ q, positions.T.ravel(), rtol=0.0, atol=1e-14)
    forces = np.array([[1.0, -2.0, 0.5, 3.0, 0.0], [0.0, 1.0, -1.0, 2.0, 4.0]])
    virtual = np.random.default_rng(1).standard_normal(model.n_dofs)
    work = np.sum(forces * (jacobian.sparse() @ virtual).reshape(-1, 2).T)
    assert point_load(model, s, forces) @ virtual == pytest.approx(work, rel=1e-13)


# ----------------------------------------------------------------------------- validation


def valid_spec(**changes):
    spec = StringSpec(length=1.0, n_elements=2, density=1.0, law=NeoHookean(k=1.0))
    return replace(spec, **changes)


def test_rejects_non_positive_length():
    with pytest.raises(ValueError, match="length"):
        valid_spec(length=0.0)


def test_rejects_non_positive_element_count():
    with pytest.raises(ValueError, match="n_elements"):
        valid_spec(n_elements=0)


def test_rejects_non_integer_element_count():
    with pytest.raises(ValueError, match="n_elements"):
        valid_spec(n_elements=2.5)


def test_rejects_non_positive_density():
    with pytest.raises(ValueError, match="density"):
        valid_spec(density=-0.3)


def test_rejects_non_positive_neo_hookean_stiffness():
    with pytest.raises(ValueError, match="k: got 0.0"):
        NeoHookean(k=0.0)


def test_rejects_non_positive_axial_stiffness():
    with pytest.raises(ValueError, match="EA: got -1.0"):
        LinearElastic(EA=-1.0)


def test_rejects_negative_bending_stiffness():
    with pytest.raises(ValueError, match="bending_stiffness"):
        valid_spec(bending_stiffness=-1.0)


def test_rejects_law_without_methods():
    with pytest.raises(ValueError, match="law"):
        valid_spec(law=lambda nu: nu - 1.0)


def test_rejects_law_with_non_callable_method():
    class Broken:
        tension = 3.0
        dtension = staticmethod(np.ones_like)
        energy = staticmethod(np.zeros_like)

    with pytest.raises(ValueError, match="tension"):
        valid_spec(law=Broken())


def test_rejects_unknown_support_kind():
    with pytest.raises(ValueError, match="kind"):
        Support(0.0, "welded")


def test_rejects_support_between_nodes():
    with pytest.raises(ValueError, match="not a node"):
        assemble_string(valid_spec(supports=(Support(0.3),)))


def test_rejects_reference_of_wrong_length():
    with pytest.raises(ValueError, match="reference"):
        valid_spec(reference=StraightReference((0.0, 0.0), (0.8, 0.0)))


def test_rejects_nodal_reference_of_wrong_shape():
    reference = NodalReference(positions=np.zeros((2, 2)), slopes=np.ones((2, 2)))
    with pytest.raises(ValueError, match="reference"):
        assemble_string(valid_spec(reference=reference))


def test_rejects_rigid_body_mode_in_static_solve():
    model = assemble_string(valid_spec(supports=(Support(0.0, "pinned"),)))
    with pytest.raises(ValueError, match="rigid-body mode"):
        string_static_shape(model)


def test_rejects_point_outside_string():
    model = assemble_string(valid_spec())
    with pytest.raises(ValueError, match="s: got"):
        string_points_at(model, model.q_ref, [0.5, 1.2])


def test_reports_non_convergence():
    model = cantilever_model(4, 1e5)
    with pytest.raises(StaticConvergenceError) as info:
        string_static_shape(
            model, point_load(model, 1.0, (0.0, -5.0)), n_load_steps=1, max_iterations=1
        )
    error = info.value
    assert error.phase == "load" and error.step == 1 and error.n_iterations == 1
    assert error.residual_norm > 0.0 and 0.0 < error.load_factor < 1.0
    # the base shared with the whole model's statics carries the same facts under its names
    assert isinstance(error, StaticSolveError) and error.residual == error.residual_norm
