"""Euler-Bernoulli beam against closed-form solutions (Lipinski (002), sec. 3).

References used here are independent of the code: the characteristic equations of the cantilever and
the simply supported beam, the elementary deflection formulas, and the printed shape functions of
002 eqs. (12), (31), (41).
"""

import dataclasses

import numpy as np
import pytest
import scipy.linalg
from scipy.optimize import brentq

from fe_contact.elements.beam import (
    BeamSpec,
    assemble_beam,
    beam_fields,
    material_point,
    natural_modes,
    point_load,
    self_weight,
    shape_rows,
    static_deflection,
)

# MISSION's manipulator beam: EI = 0.5906 N m^2, rho A = 0.0705 kg/m.
SPEC = BeamSpec(
    length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
)
EI = SPEC.bending_stiffness
RHO_A = SPEC.mass_per_length
L = SPEC.length


def cantilever_roots(n):
    """beta_n L: roots of 1 + cos(x) cosh(x) = 0, bracketed near (2k - 1) pi / 2."""
    f = lambda x: 1.0 + np.cos(x) * np.cosh(x)  # noqa: E731
    return np.array(
        [brentq(f, (k - 0.5) * np.pi - 0.5, (k - 0.5) * np.pi + 0.5) for k in range(1, n + 1)]
    )


def test_section_properties_match_mission():
    assert EI == pytest.approx(2.1e11 * 0.01 * 0.0015**3 / 12, rel=1e-14)
    assert EI == pytest.approx(0.5906, rel=1e-4)
    assert RHO_A == pytest.approx(0.0705, rel=1e-12)


def test_cantilever_frequencies_match_analytic(measured):
    beam = assemble_beam(SPEC)
    exact = cantilever_roots(3) ** 2 * np.sqrt(EI / (RHO_A * L**4))
    modes = natural_modes(beam, 3)
    # 10 Hermite elements: relative error well below 1e-3 for the first three modes.
    measured.close(
        "cantilever omega_1..3, 10 elements",
        modes.omega,
        exact,
        rtol=1e-3,
        unit="rad/s",
        reference="roots of 1 + cos(bL) cosh(bL) = 0",
    )
    assert modes.omega[0] == pytest.approx(63.6, abs=0.05)  # MISSION's figure
    np.testing.assert_allclose(modes.frequency, exact / (2 * np.pi), rtol=1e-3)


def test_cantilever_frequency_error_converges_at_fourth_order():
    exact = cantilever_roots(3) ** 2 * np.sqrt(EI / (RHO_A * L**4))
    errors = []
    meshes = (6, 12, 24)
    for n in meshes:
        beam = assemble_beam(dataclasses.replace(SPEC, n_elements=n))
        errors.append(np.abs(natural_modes(beam, 3).omega - exact) / exact)
    errors = np.array(errors)
    rates = np.log2(errors[:-1] / errors[1:])
    # Hermite cubics: eigenvalue error O(h^4) (degree 3, fourth-order operator); frequency too.
    assert np.all(rates > 3.8), rates
    # measured 3.88-3.99 with the shift-invert solver (the dense one gave 4.21 for the first
    # mode between 6 and 12 elements: round-off, not convergence)
    assert np.all(rates < 4.1), rates


def test_first_frequency_on_fine_meshes_respects_the_ritz_bound():
    # The consistent-mass Hermite model is a Ritz approximation: omega_1 >= exact, with an
    # error falling as (10 / n)^4 from 8.6e-7 at 10 elements. The computed frequency also
    # carries round-off: the stiffness entries (12 EI / l^3 with l = L / n) cancel over the
    # smooth first mode by a factor of about n^4, so the relative round-off of omega_1 is
    # bounded by eps n^4 (measured: 2e-10 to 6e-10 at 80 elements, 5e-9 at 300, under three
    # OpenBLAS kernels; the bound is 9e-9 and 1.8e-6). The Ritz inequality is therefore
    # asserted where the Ritz error is far above that round-off (10 and 20 elements: 8.6e-7
    # and 5.4e-8 against 2e-12 and 4e-11), and on fine meshes the error is bounded by the
    # Ritz error plus the round-off bound: the dense solver used before broke it (-3.6e-7 at
    # 80 elements, +5.7e-5 at 300).
    eps = np.finfo(float).eps
    exact = cantilever_roots(1)[0] ** 2 * np.sqrt(EI / (RHO_A * L**4))

    def error(n):
        beam = assemble_beam(dataclasses.replace(SPEC, n_elements=n))
        return natural_modes(beam, 3).omega[0] / exact - 1.0

    coarse = {n: error(n) for n in (10, 20)}
    for n, e in coarse.items():
        assert e > eps * n**4, (n, e)
    # fourth order between them: 16 to within 2 %
    assert abs(coarse[10] / coarse[20] / 16.0 - 1.0) < 0.02, coarse
    for n in (80, 300):
        ritz = coarse[10] * (10 / n) ** 4
        assert abs(error(n)) <= ritz + eps * n**4, n


def test_modes_are_mass_normalised():
    beam = assemble_beam(SPEC)
    modes = natural_modes(beam, 4)
    gram = modes.shapes.T @ (beam.mass_matrix @ modes.shapes)
    np.testing.assert_allclose(gram, np.eye(4), atol=1e-10)
    stiff = modes.shapes.T @ (beam.stiffness_matrix @ modes.shapes)
    np.testing.assert_allclose(stiff, np.diag(modes.omega**2), rtol=1e-9, atol=1e-6)


def test_simply_supported_frequencies(measured):
    spec = dataclasses.replace(SPEC, left="pinned", right="pinned", n_elements=20)
    modes = natural_modes(assemble_beam(spec), 3)
    n = np.arange(1, 4)
    exact = (n * np.pi) ** 2 * np.sqrt(EI / (RHO_A * L**4))
    measured.close(
        "pinned-pinned omega_1..3, 20 elements",
        modes.omega,
        exact,
        rtol=1e-4,
        unit="rad/s",
        reference="(n pi)^2 sqrt(EI / (rho A L^4))",
    )


def test_free_free_beam_has_two_rigid_modes(measured):
    spec = dataclasses.replace(SPEC, left="free", right="free")
    modes = natural_modes(assemble_beam(spec), 3)
    assert np.all(modes.omega[:2] < 1e-3 * modes.omega[2])
    # First elastic free-free root 4.7300 (same equation as the cantilever's: cos cosh = 1).
    root = brentq(lambda x: np.cos(x) * np.cosh(x) - 1.0, 4.5, 5.0)
    measured.close(
        "free-free first elastic omega",
        modes.omega[2],
        root**2 * np.sqrt(EI / (RHO_A * L**4)),
        rtol=1e-3,
        unit="rad/s",
        reference="root of cos(bL) cosh(bL) = 1",
    )


def test_tip_force_deflection_exact(measured):
    beam = assemble_beam(SPEC)
    P = 1.7
    u = static_deflection(beam, point_load(beam, L, force=P))
    tip = beam_fields(beam, u, [L])
    measured.close(
        "cantilever tip deflection under a tip force",
        tip.deflection[0],
        P * L**3 / (3 * EI),
        rtol=1e-9,
        unit="m",
        reference="P L^3 / (3 EI)",
    )
    assert tip.slope[0] == pytest.approx(P * L**2 / (2 * EI), rel=1e-9)


def test_fields_inside_elements_exact_for_cubic_solution():
    # Under a tip force the exact deflection P x^2 (3L - x) / (6 EI) is one cubic, so the Hermite
    # solution equals it everywhere, not only at nodes: this checks w, w', w'' at arbitrary x.
    beam = assemble_beam(SPEC)
    P = -2.0
    u = static_deflection(beam, point_load(beam, L, force=P))
    x = np.random.default_rng(1).uniform(0, L, 50)
    f = beam_fields(beam, u, x)
    scale = abs(P) * L**3 / EI
    np.testing.assert_allclose(f.deflection, P * x**2 * (3 * L - x) / (6 * EI), atol=1e-12 * scale)
    np.testing.assert_allclose(f.slope, P * x * (2 * L - x) / (2 * EI), atol=1e-11 * scale / L)
    np.testing.assert_allclose(f.curvature, P * (L - x) / EI, atol=1e-10 * scale / L**2)


def test_point_load_between_nodes_gives_exact_nodal_deflections(measured):
    beam = assemble_beam(SPEC)
    P, a = 3.0, 0.137  # between nodes 0.12 and 0.16
    u = static_deflection(beam, point_load(beam, a, force=P))
    x = beam.nodes
    exact = np.where(x <= a, P * x**2 * (3 * a - x), P * a**2 * (3 * x - a)) / (6 * EI)
    w_nodes = u[beam.basis.nodal_dofs[0]]
    measured.close(
        "nodal deflections, point load between nodes",
        w_nodes,
        exact,
        atol=1e-9 * np.max(np.abs(exact)),
        unit="m",
        reference="the cantilever's closed-form deflection under P at a",
    )
    slope_exact = np.where(x <= a, P * x * (2 * a - x), P * a**2) / (2 * EI)
    np.testing.assert_allclose(
        u[beam.basis.nodal_dofs[1]], slope_exact, rtol=0, atol=1e-9 * np.max(np.abs(slope_exact))
    )


def test_tip_moment():
    beam = assemble_beam(SPEC)
    m = 0.25
    u = static_deflection(beam, point_load(beam, L, moment=m))
    x = np.linspace(0, L, 17)
    np.testing.assert_allclose(
        beam_fields(beam, u, x).deflection, m * x**2 / (2 * EI), rtol=1e-9, atol=1e-15
    )


def test_self_weight_deflection(measured):
    beam = assemble_beam(SPEC)
    g = 9.81
    u = static_deflection(beam, self_weight(beam, (0.0, -g)))
    q = -RHO_A * g
    assert u[beam.basis.nodal_dofs[0, -1]] == pytest.approx(q * L**4 / (8 * EI), rel=1e-9)
    x = beam.nodes
    exact = q * x**2 * (6 * L**2 - 4 * L * x + x**2) / (24 * EI)
    measured.close(
        "cantilever nodal deflections under self-weight",
        u[beam.basis.nodal_dofs[0]],
        exact,
        rtol=1e-9,
        atol=1e-16,
        unit="m",
        reference="q x^2 (6 L^2 - 4 L x + x^2) / (24 EI)",
    )


def test_self_weight_uses_normal_component_of_gravity():
    spec = dataclasses.replace(SPEC, angle=np.pi / 6)
    beam = assemble_beam(spec)
    f_tilted = self_weight(beam, (0.0, -9.81))
    f_flat = self_weight(assemble_beam(SPEC), (0.0, -9.81))
    np.testing.assert_allclose(
        f_tilted, np.cos(np.pi / 6) * f_flat, rtol=1e-12, atol=1e-14 * np.max(np.abs(f_flat))
    )


def test_shape_rows_match_printed_hermite_functions():
    # 002 eqs. (12) first row, (31) first row, (41) first row, with l = element length.
    beam = assemble_beam(dataclasses.replace(SPEC, node_x=(0.0, 0.05, 0.2, 0.4)))
    x = np.array([0.01, 0.07, 0.15, 0.33, 0.4])
    r = shape_rows(beam, x)
    z, l = r.zeta[:, None], r.length[:, None]
    N = np.hstack(
        [
            2 * z**3 - 3 * z**2 + 1,
            l * (z**3 - 2 * z**2 + z),
            -2 * z**3 + 3 * z**2,
            l * (z**3 - z**2),
        ]
    )
    N_z = np.hstack(
        [6 * z**2 - 6 * z, l * (3 * z**2 - 4 * z + 1), -6 * z**2 + 6 * z, l * (3 * z**2 - 2 * z)]
    )
    N_zz = np.hstack([12 * z - 6, l * (6 * z - 4), -12 * z + 6, l * (6 * z - 2)])
    np.testing.assert_allclose(r.N, N, atol=1e-13)
    np.testing.assert_allclose(r.N_z, N_z, atol=1e-12)
    np.testing.assert_allclose(r.N_zz, N_zz, atol=1e-11)
    np.testing.assert_array_equal(r.element, [0, 1, 1, 2, 2])


def test_rayleigh_damping_ratios():
    # For C = alpha M + beta K each mode has damping ratio alpha / (2 w) + beta w / 2
    # (002 eq. 17); read them off the eigenvalues of the first-order system.
    spec = dataclasses.replace(SPEC, n_elements=4, rayleigh_alpha=2.0, rayleigh_beta=1e-5)
    beam = assemble_beam(spec)
    M = beam.reduced("mass").toarray()
    K = beam.reduced("stiffness").toarray()
    C = beam.reduced("damping").toarray()
    n = M.shape[0]
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-np.linalg.solve(M, K), -np.linalg.solve(M, C)]])
    lam = scipy.linalg.eigvals(A)
    lam = lam[np.imag(lam) > 0]
    lam = lam[np.argsort(np.abs(lam))][:3]
    omega_n = np.abs(lam)
    ratio = -np.real(lam) / omega_n
    expected = 2.0 / (2 * omega_n) + 1e-5 * omega_n / 2
    np.testing.assert_allclose(ratio, expected, rtol=1e-8)


def test_material_point_in_plane():
    spec = dataclasses.replace(SPEC, origin=(1.0, 2.0), angle=np.pi / 2)
    beam = assemble_beam(spec)
    u = static_deflection(beam, point_load(beam, L, force=1.0))
    p = material_point(beam, [L], u)[:, 0]
    d = L**3 / (3 * EI)
    # axis along +y, positive deflection along n0 = (-1, 0)
    np.testing.assert_allclose(p, [1.0 - d, 2.0 + L], rtol=1e-12)


def test_locate_rejects_points_off_the_beam():
    beam = assemble_beam(SPEC)
    with pytest.raises(ValueError, match="outside the beam"):
        shape_rows(beam, [0.5])


def test_static_solve_rejects_mechanism():
    beam = assemble_beam(dataclasses.replace(SPEC, left="pinned", right="free"))
    with pytest.raises(ValueError, match="rigid-body mode"):
        static_deflection(beam, np.zeros(beam.n_dofs))


def test_static_solve_rejects_wrong_load_length():
    beam = assemble_beam(SPEC)
    with pytest.raises(ValueError, match="load must have shape"):
        static_deflection(beam, np.zeros(3))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"length": 0.0}, "length"),
        ({"length": -1.0}, "length"),
        ({"youngs_modulus": 0.0}, "youngs_modulus"),
        ({"density": -4700.0}, "density"),
        ({"n_elements": 0}, "n_elements"),
        ({"n_elements": 2.5}, "n_elements"),
        ({"width": 0.0}, "width"),
        ({"height": -0.001}, "height"),
        ({"left": "welded"}, "left support"),
        ({"right": "hinge"}, "right support"),
        ({"rayleigh_alpha": -1.0}, "rayleigh_alpha"),
        ({"rayleigh_beta": -1.0}, "rayleigh_beta"),
        ({"node_x": (0.0, 0.3, 0.2, 0.4)}, "node_x must be strictly increasing"),
        ({"node_x": (0.0, 0.2, 0.3)}, "node_x must run from 0"),
        ({"origin": (0.0,)}, "origin"),
        ({"angle": float("nan")}, "angle"),
    ],
)
def test_bad_input_raises_clear_error(change, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(SPEC, **change)


def test_section_must_be_complete_and_unambiguous():
    base = dict(length=0.4, youngs_modulus=2.1e11, density=4700.0)
    with pytest.raises(ValueError, match="section is missing"):
        BeamSpec(**base)
    with pytest.raises(ValueError, match="both width and height"):
        BeamSpec(**base, width=0.01)
    with pytest.raises(ValueError, match="both area and second_moment"):
        BeamSpec(**base, area=1e-5)
    with pytest.raises(ValueError, match="or as area and second_moment"):
        BeamSpec(**base, width=0.01, height=0.001, area=1e-5)
    with pytest.raises(ValueError, match="second_moment"):
        BeamSpec(**base, area=1e-5, second_moment=0.0)


def test_natural_modes_rejects_bad_count():
    with pytest.raises(ValueError, match="n_modes"):
        natural_modes(assemble_beam(SPEC), 0)
