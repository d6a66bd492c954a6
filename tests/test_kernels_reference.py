"""Compiled kernels that were checked only against their Python twins (the Python step in
lockstep with the compiled one), here each against an independent reference: closed forms
(a beam bent into a cubic, which the Hermite elements hold exactly; the strain and kinetic
energy integrals of that cubic; a circle's distances), finite differences of the kernel's own
values for the derivatives it returns, the roots of a polynomial by ``np.roots`` for the closest
point, numpy's dense LAPACK solve for the small LU of the compiled step, the Coulomb laws with
a brute-force enumeration for the contact solver, the energy balance of a linear step for the
numerical dissipation and the equations of motion for whole compiled steps.

Kernels: ``kernels.beam`` (``local_curve``, ``closest``, ``contact``, ``stick_row``,
``rigid_line_record``), ``kernels.string`` (``string_contact``, ``string_stick_row``,
``iteration_factor``, ``nearest_node``), ``kernels.step`` (``packed_energies``; ``iterate`` with
``kernels.evaluate.evaluate_system`` through the compiled stepper), ``kernels.dense`` (the LU,
its solves and products), ``kernels.grid``, ``kernels.contact`` (the contact solver),
``kernels.numerical.step_dissipation`` and ``kernels.band.smooth_band``. Kernels without a
Python entry point (``jit.inner``) are called through small compiled wrappers here.

The beam is the cantilever strip of Lipinski (002), sec. 9 (0.4 m, 10 elements, clamped at
x = 0 and lying along +x) under the sliding mass (a point on two prismatic joints, q_tree its
position). Its deflection is w(s) = a s^2 + b s^3 (w(0) = w'(0) = 0: the clamp), given by its
nodal values and slopes; a cubic Hermite element reproduces a cubic exactly, so every value
below has a closed form up to round-off.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from fe_contact.kernels import dense
from fe_contact.kernels.band import band_lu_solve
from fe_contact.kernels.beam import (
    GAP,
    H00,
    H01,
    H11,
    N_FIELDS,
    NX,
    NY,
    PX,
    PY,
    REM,
    REM_T,
    SRATE,
    TX,
    TY,
    VN,
    VT,
    S,
    beam_arrays,
    closest,
    contact,
    local_curve,
    rigid_line_record,
)
from fe_contact.kernels.numerical import step_dissipation
from fe_contact.kernels.string import (
    iteration_factor,
    nearest_node,
    string_contact,
    string_forces,
    string_stick_row,
)
from fe_contact.papers.lipinski import BEAM, SLIDING_MASS, sliding_mass_model
from fe_contact.system import assemble

EPS = np.finfo(float).eps
A2, A3 = 0.05, 0.2  # 1/m, 1/m^2: w(s) = A2 s^2 + A3 s^3, at most 21 mm at the tip


def w_cubic(s):
    """w, w', w'' of the cubic deflection (closed form)."""
    return A2 * s**2 + A3 * s**3, 2 * A2 * s + 3 * A3 * s**2, 2 * A2 + 6 * A3 * s


@pytest.fixture(scope="module")
def cantilever():
    """(system, B, q) of the sliding mass on the 10-element strip bent into the cubic, the mass
    at the origin (the tests set it)."""
    system = assemble(sliding_mass_model(0.0, 10))
    B = beam_arrays(system.structures, system.layout)
    lay = system.layout
    nodes = system.structures[BEAM].beam.nodes
    q = np.zeros(lay.n)
    w, wx, _ = w_cubic(nodes[1:])  # node 0 is clamped (no columns)
    q[lay.flexible] = np.column_stack([w, wx]).ravel()  # (w, w') per free node
    assert B[5][0, 2] == lay.flexible.start  # the first free column is w at node 1
    return system, B, q


def test_beam_curve_of_a_cubic_deflection_is_the_cubic(cantilever):
    """r(s) = (s, w(s)), r' = (1, w'), r'' = (0, w'') of ``local_curve`` at 41 points (the nodes
    and inside the elements) against the closed form. Round-off: four products of monomial
    coefficients (at most 3 in size) with values up to |q|_max = 0.1 (a slope), their
    derivatives scaled by 1/L_e and 1/L_e^2 (L_e = 0.04 m): 64 eps |q|_max / L_e^k for the k-th
    derivative. A wrong coefficient or scale (say a 1/L_e dropped) is off by O(|q|): 1e12 times
    the bound."""
    system, B, q = cantilever
    scale = np.abs(q).max()
    le = B[4][0]
    for s in np.linspace(0.0, 0.4, 41) + np.r_[0.0, np.full(39, 3e-3), 0.0]:
        rx, ry, ax, ay, cx, cy = local_curve(B, 0, s, q)
        w, wx, wxx = w_cubic(s)
        assert abs(rx - s) <= 4 * EPS * 0.4
        assert abs(ry - w) <= 64 * EPS * scale
        assert ax == 1.0 and cx == 0.0  # t0 = (1, 0), n0 = (0, 1): the x parts are exact
        assert abs(ay - wx) <= 64 * EPS * scale / le
        assert abs(cy - wxx) <= 64 * EPS * scale / le**2
    # beyond the ends the curve is clipped to [0, L]
    assert local_curve(B, 0, 0.5, q)[:2] == local_curve(B, 0, 0.4, q)[:2]


def closest_by_roots(px, py):
    """The real roots s in [0, L] of d/ds |r(s) - p|^2 / 2 = (s - px) + (w - py) w' (a quintic
    in s, by ``np.roots``), the one nearest to p."""
    w = np.polynomial.Polynomial([0.0, 0.0, A2, A3])
    f = np.polynomial.Polynomial([-px, 1.0]) + (w - py) * w.deriv()
    roots = np.roots(f.coef[::-1])
    real = roots[np.abs(roots.imag) < 1e-9].real
    real = real[(real >= 0.0) & (real <= 0.4)]
    return real[np.argmin((real - px) ** 2 + (w(real) - py) ** 2)]


@pytest.mark.parametrize(
    ("px", "py", "guess"),
    [(0.17, 0.03, 0.17), (0.05, -0.02, np.inf), (0.33, 0.05, 0.1), (0.25, 0.012, np.inf)],
)
def test_beam_closest_point_is_the_root_of_the_distance_quintic(cantilever, px, py, guess):
    """``closest`` (Newton from a guess, or from the nearest node when the guess is inf) against
    the root of the quintic (s - px) + (w(s) - py) w'(s) = 0 by ``np.roots`` (eigenvalues of the
    companion matrix: error about eps |coefficients| / |f'(s)|, f' >= 0.9 here; 1e-12 m is
    about 1e4 eps L). Newton's own stop is tol L = 1e-14 * 0.4 m on the last step, quadratic
    convergence leaves far less. A wrong derivative in the iteration (say w' for w'') stops
    elsewhere or converges only linearly, to 1e-14 L per step: off by more than 1e-12 m."""
    _, B, q = cantilever
    s, inside = closest(B, 0, px, py, q, guess, 1e-14)
    assert inside
    assert abs(s - closest_by_roots(px, py)) <= 1e-12


def test_beam_closest_point_beyond_the_free_end_is_outside(cantilever):
    """A point beyond the free end, off its end tangent's foot: ``inside`` False and s the
    foot's parameter L + (p - r(L)) . r'(L) / |r'(L)|^2 (closed form, round-off 1e-15 m)."""
    _, B, q = cantilever
    px, py = 0.45, 0.0
    s, inside = closest(B, 0, px, py, q, 0.3, 1e-14)
    w, wx, _ = w_cubic(0.4)
    foot = 0.4 + ((px - 0.4) + (py - w) * wx) / (1 + wx**2)
    assert not inside and foot > 0.4
    assert abs(s - foot) <= 1e-15


RADIUS = 0.01  # m, the profile's radius in the contact tests


def beam_contact(B, q, u, s_guess=0.2):
    """(record, W_N, W_T, hessian) of ``contact`` for a circle of radius RADIUS centred at the
    sliding mass (c = q[:2], J_c = I, a_c = 0: two prismatic joints) on side +1 of the beam, at
    the closest point found afresh by ``closest``."""
    n = q.size
    s, inside = closest(B, 0, q[0], q[1], q, s_guess, 1e-15)
    assert inside
    out, wn, wt, hessian = np.zeros(N_FIELDS), np.zeros(n), np.zeros(n), np.zeros((3, n))
    c, cv = q[:2].copy(), u[:2].copy()
    zero = np.zeros(2)
    contact(B, 0, s, q, u, 1.0, RADIUS, c, cv, np.eye(2), zero, zero, 0.0, 2, out, wn, wt, hessian)
    return out, wn, wt, hessian


@pytest.fixture(scope="module")
def moving_contact(cantilever):
    """(B, q, u): the circle 25 mm above the bent beam at x = 0.21 m, moving at (0.7, -0.2) m/s
    over a beam moving with random nodal velocities (0.05 rms): an open, closing contact."""
    system, B, q = cantilever
    q = q.copy()
    q[:2] = (0.21, w_cubic(0.21)[0] + 0.025)
    u = np.zeros(q.size)
    u[:2] = (0.7, -0.2)
    u[2:] = 0.05 * np.random.default_rng(1).standard_normal(q.size - 2)
    return B, q, u


def test_beam_contact_gap_and_frame_are_the_closed_form(moving_contact):
    """Gap |c - r(s*)| - R and normal (c - r) / |c - r| with s* the quintic's root (as in the
    closest-point test) and r(s*) = (s*, w(s*)); the tangent is the normal turned by -90
    degrees. 1e-12 m and 1e-10 (the root's error 1e-12 m times the slope and 1/distance). The
    radius not subtracted, or the normal taken from the profile to the curve, is off by 1e-2 m
    or 2."""
    B, q, _ = moving_contact
    out, _, _, _ = beam_contact(B, q, np.zeros(q.size))
    s = closest_by_roots(q[0], q[1])
    d = q[:2] - np.array([s, w_cubic(s)[0]])
    assert abs(out[S] - s) <= 1e-12
    assert abs(out[GAP] - (np.hypot(*d) - RADIUS)) <= 1e-12
    assert np.abs(out[[NX, NY]] - d / np.hypot(*d)).max() <= 1e-10
    assert out[TX] == out[NY] and out[TY] == -out[NX]


def test_beam_contact_rows_are_the_derivatives_of_the_gap(moving_contact):
    """W_N = dg/dq by central differences of the kernel's own gap (closest point solved afresh
    at every perturbed q), step 1e-6 (m, and rad for the slopes): truncation h^2 g''' / 6 with
    |g'''| below 1e3 (the Hessian's entries reach 30, their derivatives a few hundred), round-off
    eps |g| / h, 1e-11: 1e-8 (measured 9e-10). And the Hessian U C U^T (columns and core of
    the record) against central differences of W_N, step 1e-6: truncation h^2 W_N''' / 6 (the
    error falls by 100 per decade of h: 1e-3, 1e-5, 1e-7 at h = 1e-4, 1e-5, 1e-6), tolerance
    1e-6 on entries up to 30. The slip row: W_T u equals the record's slip velocity, which is
    t . (c' - dr/dt|_s) by central differences of ``local_curve`` at the fixed s* (exact: r
    is linear in q), to 1e-12 m/s. A wrong sign of any N_j, a dropped term of the Hessian or
    of the slip velocity is off by O(1)."""
    B, q, u = moving_contact
    out, wn, wt, hessian = beam_contact(B, q, u)
    n, h = q.size, 1e-6
    steps = h * np.eye(n)
    fd_wn = np.array(
        [beam_contact(B, q + e, u)[0][GAP] - beam_contact(B, q - e, u)[0][GAP] for e in steps]
    )
    assert np.abs(fd_wn / (2 * h) - wn).max() <= 1e-8
    U = hessian[:2].T
    core = np.array([[out[H00], out[H01]], [out[H01], out[H11]]])
    fd_h = np.array([beam_contact(B, q + e, u)[1] - beam_contact(B, q - e, u)[1] for e in steps])
    assert np.abs(fd_h / (2 * h) - U @ core @ U.T).max() <= 1e-6
    s = out[S]
    dr = (
        np.array(local_curve(B, 0, s, q + h * u)[:2])
        - np.array(local_curve(B, 0, s, q - h * u)[:2])
    ) / (2 * h)
    assert abs(out[VT] - out[[TX, TY]] @ (u[:2] - dr)) <= 1e-12
    assert abs(wt @ u - out[VT]) <= 1e-12


def test_beam_contact_rates_and_remainders_are_the_time_derivatives(moving_contact):
    """Along q(t) = q + u t (q'' = 0, a_c = 0): g' = v_N, s*' = s' (the record's parameter rate)
    and g'' = A (the normal remainder) by central differences in t of the kernel's gap and
    closest point. Step 1e-6 s for the rates (truncation h^2 f''' / 6 below 1e-10, round-off
    eps |f| / h about 1e-11: 1e-9); A by the second difference of g with step 1e-4 s
    (truncation h^2 g'''' / 12, measured 4e-6 on A = 0.54 m/s^2 and falling by 100 per decade;
    round-off 4 eps |g| / h^2 = 1e-9: 2e-5) and by the first difference of v_N with step 1e-6 s
    (measured 7e-10: 1e-8). The slip row's remainder A_T is defined for a closed contact
    moving with g' = 0 (``ContactKinematics``: the frame's rotation meets only the normal
    relative velocity): there v_t' = A_T, checked with the profile's velocity made tangent
    (v_N = 0) by the first difference of v_t, step 1e-6 s, 1e-8. Wrong by O(1) if a term of
    s' or of A (the curvature's, omega's) were dropped."""
    B, q, u = moving_contact
    out = beam_contact(B, q, u)[0]

    def at(t, h_u=u):
        return beam_contact(B, q + t * h_u, h_u)[0]

    h = 1e-6
    plus, minus = at(h), at(-h)
    assert abs((plus[GAP] - minus[GAP]) / (2 * h) - out[VN]) <= 1e-9
    assert abs((plus[S] - minus[S]) / (2 * h) - out[SRATE]) <= 1e-9
    assert abs((plus[VN] - minus[VN]) / (2 * h) - out[REM]) <= 1e-8
    ht = 1e-4
    second = (at(ht)[GAP] - 2 * out[GAP] + at(-ht)[GAP]) / ht**2
    assert abs(second - out[REM]) <= 2e-5
    assert min(abs(out[VN]), abs(out[SRATE]), abs(out[REM])) > 0.1  # none is trivially zero
    # a tangent motion: v_N = 0
    ut = u.copy()
    ut[:2] -= out[VN] * out[[NX, NY]]
    closed = beam_contact(B, q, ut)[0]
    assert abs(closed[VN]) <= 1e-15
    rate = (at(h, ut)[VT] - at(-h, ut)[VT]) / (2 * h)
    assert abs(rate - closed[REM_T]) <= 1e-8
    assert abs(closed[REM_T]) > 1e-3


def test_compiled_energies_of_a_cubic_state_are_the_closed_form_integrals():
    """``kernels.step.packed_energies`` (the compiled step's energies) on the strip with Rayleigh
    damping (alpha = 2 1/s, beta = 1e-4 s), bent into the cubic w(s) = a s^2 + b s^3 and moving
    with the cubic rate w'(s, t) = c s^2 + d s^3, the mass at (0.1, 0.05) m moving at (0.7, -0.2)
    m/s, against the integrals of the Euler-Bernoulli beam, Lipinski (002), sec. 3, in closed
    form (EI = E b h^3 / 12, rho A = rho b h from the strip's dimensions): kinetic 1/2 m |v|^2 and
    1/2 rho A int (c s^2 + d s^3)^2 ds, elastic 1/2 EI int (2a + 6b s)^2 ds, gravity m g y +
    rho A g int w ds, damping power alpha rho A int w'^2 + beta EI int w''^2 (of the rate).
    The Hermite cubics hold the cubics exactly and the element integrals (degree 6 at most)
    are exact Gauss rules, so only round-off separates them: sums of about 150 products
    of entries of M, K with the state, bounded by 256 eps times the sum of their magnitudes
    (|u|^T |M| |u|, |q|^T |K| |q|: the elastic energy, 0.016 J, is a difference of terms up to
    1e2 J; measured 3e-15 J against a bound of 2e-11 J). A wrong factor 1/2, a missing self
    weight or damping term is off by O(1)."""
    from fe_contact.kernels.step import packed_energies
    from fe_contact.papers.lipinski import cantilever_strip
    from fe_contact.steppers.compiled import Plan

    strip = cantilever_strip(rayleigh_alpha=2.0, rayleigh_beta=1e-4)
    system = assemble(sliding_mass_model(0.0, 10, beam=strip))
    lay = system.layout
    nodes = system.structures[BEAM].beam.nodes[1:]
    a, b, c, d, L, g, m = A2, A3, 0.3, -0.5, 0.4, 9.81, SLIDING_MASS
    q, u = np.zeros(lay.n), np.zeros(lay.n)
    q[:2], u[:2] = (0.1, 0.05), (0.7, -0.2)
    q[lay.flexible] = np.column_stack(
        [a * nodes**2 + b * nodes**3, 2 * a * nodes + 3 * b * nodes**2]
    ).ravel()
    u[lay.flexible] = np.column_stack(
        [c * nodes**2 + d * nodes**3, 2 * c * nodes + 3 * d * nodes**2]
    ).ravel()
    EI = strip.youngs_modulus * strip.width * strip.height**3 / 12
    rho_A = strip.density * strip.width * strip.height
    s = np.polynomial.Polynomial([0.0, 1.0])
    w, rate = a * s**2 + b * s**3, c * s**2 + d * s**3

    def integral(p):
        return p.integ()(L) - p.integ()(0.0)

    expected = {
        "tree kinetic": 0.5 * m * (0.7**2 + 0.2**2),
        "structure kinetic": 0.5 * rho_A * integral(rate**2),
        "gravity": m * g * 0.05 + rho_A * g * integral(w),
        "tree springs": 0.0,
        "structure elastic": 0.5 * EI * integral(w.deriv(2) ** 2),
        "damping power": 2.0 * rho_A * integral(rate**2) + 1e-4 * EI * integral(rate.deriv(2) ** 2),
        "load power": 0.0,
    }
    # round-off scales: the sums of |terms| of the products u^T M u, q^T K q, u^T K u (a smooth
    # field's energy is a small difference of large stiffness terms: 1/2 q^T K q is 0.016 J
    # from terms up to 1e2 J)
    beam = system.structures[BEAM]
    qf, uf = np.abs(q[lay.flexible]), np.abs(u[lay.flexible])
    abs_m, abs_k = abs(beam.mass_matrix), abs(beam.stiffness_matrix)
    scale = {
        "structure kinetic": uf @ (abs_m @ uf),
        "gravity": rho_A * g * integral(w) + m * g * 0.05,  # w >= 0 on [0, L]
        "structure elastic": qf @ (abs_k @ qf),
        "damping power": 2.0 * uf @ (abs_m @ uf) + 1e-4 * uf @ (abs_k @ uf),
    }
    got = packed_energies(*Plan(system).packed, q, u, np.zeros(2))
    for (name, value), kernel in zip(expected.items(), got, strict=True):
        bound = 256 * EPS * max(scale.get(name, 0.0), abs(value))
        assert abs(kernel - value) <= bound, (name, kernel, value, bound)


# The wrappers of compiled-only kernels are not cached: numba's cache would check this file
# only, not the kernel modules whose functions it compiles in (``fe_contact.kernels``).
@njit(cache=False)
def _lu_condition(a):
    """The reciprocal condition number of ``lu_decompose`` alone."""
    return dense.lu_decompose(a)[2]


@njit(cache=False)
def _dense_kernels(a, b, rhs, cols, x):
    """Calls the small dense kernels (compiled-only functions without a Python entry point)."""
    lu, piv, rcond = dense.lu_decompose(a)
    return (
        lu,
        piv,
        rcond,
        dense.lu_solve(lu, piv, b),
        dense.lu_solve_t(lu, piv, b),
        dense.lu_solve_columns(lu, piv, rhs, cols),
        dense.matvec(a, x),
        dense.matvec_t(a, b),
        dense.take_columns(rhs, cols),
    )


def test_small_dense_lu_solves_against_numpys_lapack():
    """``kernels.dense`` (the compiled step's LU of the constraint blocks, 1 to a few rows) on
    random matrices (n = 1..6, half of them scaled to need row interchanges) against LAPACK
    through numpy. The factors: P A = L U with a permutation P and |P A - L U| <= 2 n eps |L||U|
    entrywise (Higham, Accuracy and Stability, thm. 9.3, gamma_n); the solves A x = b,
    A^T x = b, A X = R[:, cols]: forward error of two backward-stable solves,
    |x - x_lapack| <= 8 n eps kappa_inf(A) |x|_inf; the reciprocal 1-norm condition number
    against 1 / np.linalg.cond(A, 1), relative 8 n eps kappa_1(A) (the inverse's columns are
    such solves); products against the dense product, n eps |A| |x| (gamma_n). A wrong
    pivot row, a transposed factor or a swapped index is off by O(1). A singular matrix and
    one with a NaN give rcond = 0 (the step's signal)."""
    rng = np.random.default_rng(5)
    for trial in range(60):
        n = 1 + trial % 6
        a = rng.standard_normal((n, n))
        if trial % 2:
            a[np.diag_indices(n)] *= 1e-3  # small diagonal: pivoting needed
        b, x = rng.standard_normal(n), rng.standard_normal(n)
        rhs = rng.standard_normal((n, n + 2))
        cols = rng.permutation(n + 2)[: max(1, n - 1)]
        lu, piv, rcond, xs, xt, X, ax, atb, taken = _dense_kernels(a, b, rhs, cols, x)
        assert sorted(piv) == list(range(n))
        lower = np.tril(lu, -1) + np.eye(n)
        upper = np.triu(lu)
        bound = 2 * n * EPS * (np.abs(lower) @ np.abs(upper))
        assert np.all(np.abs(a[piv] - lower @ upper) <= bound)
        k_inf, k_1 = np.linalg.cond(a, np.inf), np.linalg.cond(a, 1)
        for got, ref in (
            (xs, np.linalg.solve(a, b)),
            (xt, np.linalg.solve(a.T, b)),
            (X, np.linalg.solve(a, rhs[:, cols])),
        ):
            assert np.abs(got - ref).max() <= 8 * n * EPS * k_inf * np.abs(ref).max()
        assert abs(rcond * k_1 - 1.0) <= 8 * n * EPS * k_1
        assert np.all(np.abs(ax - a @ x) <= n * EPS * (np.abs(a) @ np.abs(x)))
        assert np.all(np.abs(atb - a.T @ b) <= n * EPS * (np.abs(a.T) @ np.abs(b)))
        assert np.array_equal(taken, rhs[:, cols])  # a copy: no arithmetic
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert _lu_condition(singular) == 0.0
    assert _lu_condition(np.array([[1.0, np.nan], [0.0, 1.0]])) == 0.0


def test_grid_gaps_of_points_on_a_circle_are_the_radius_difference():
    """``kernels.grid.gaps_and_frames``: points r_i = c + rho (cos th_i, sin th_i) around the
    centre of a circle of radius R have the gaps rho - R, the normals -(cos th_i, sin th_i)
    (from the point to the centre, Eugster-Glocker (004), eq. (21)) and the tangents the
    normals turned by -90 degrees. Round-off: a hypot and a division, 8 eps rho (1e-16 m). A
    gap without the radius or a normal of the wrong sense is off by R or 2."""
    from fe_contact.kernels.grid import gaps_and_frames

    centre, rho, radius = np.array([0.3, -0.1]), 0.05, 0.02
    th = np.linspace(0.0, 2 * np.pi, 13)[:-1]
    direction = np.column_stack([np.cos(th), np.sin(th)])
    gap, normal, tangent = gaps_and_frames(centre, radius, centre + rho * direction)
    assert np.abs(gap - (rho - radius)).max() <= 8 * EPS * rho
    assert np.abs(normal + direction).max() <= 8 * EPS
    assert np.array_equal(tangent, np.column_stack([normal[:, 1], -normal[:, 0]]))


def test_grid_rows_are_the_derivatives_of_the_gaps_and_slips():
    """``kernels.grid.grid_rows`` for a disk on a crank (q_t = (x, y, phi): centre c = (x, y) +
    l (cos phi, sin phi), radius R, rolling row e_phi) against four material points moving
    linearly with six structure coordinates, r_i = r_i0 + rows_i q_s[dofs_i]: W_N = dg/dq by
    central differences of g_i = |c - r_i| - R (004 eqs. 21-22) written here in numpy, step
    1e-6 (truncation h^2 g''' / 6 with |g'''| ~ 1 / |c - r|^2 < 1e3, round-off eps |g| / h:
    1e-8); W_T the same differences of t_i . (c - r_i) with the t_i held (eq. 25) plus R on
    phi, the rolling term; v_N = dg/dt by central differences in time along q + u t, 1e-8,
    and v_T = W_T u to 4 n eps |W_T|^T |u| (two sums in other orders). Any row with a wrong
    sign or column is off by O(1)."""
    from fe_contact.kernels.grid import grid_rows

    rng = np.random.default_rng(3)
    arm, radius, n_t, n_s, m = 0.1, 0.02, 3, 6, 4
    n = n_t + n_s
    origin = np.array([[0.2, 0.0], [0.25, 0.02], [0.3, -0.01], [0.35, 0.01]])
    dofs = np.array([[0, 1], [1, 2], [2, 3], [4, 5]])
    rows = 0.3 * rng.standard_normal((m, 2, 2))

    def centre(q):
        return q[:2] + arm * np.array([np.cos(q[2]), np.sin(q[2])])

    def points(q):
        qs = q[n_t:]
        return origin + np.einsum("ijk,ik->ij", rows, qs[dofs])

    def gaps(q):
        return np.hypot(*(centre(q) - points(q)).T) - radius

    def kernel(q, u):
        jac = np.array([[1.0, 0.0, -arm * np.sin(q[2])], [0.0, 1.0, arm * np.cos(q[2])]])
        jw = np.array([0.0, 0.0, 1.0])
        return grid_rows(
            centre(q), jac @ u[:n_t], jac, jw, u[2], radius, points(q), dofs, rows, u[n_t:],
            n_t, 0, n,
        )  # fmt: skip

    q = np.r_[0.2, 0.06, -1.2, 0.01 * rng.standard_normal(n_s)]
    u = rng.standard_normal(n)
    gap, normal, tangent, w_n, w_t, v_n, v_t = kernel(q, u)
    assert np.abs(gap - gaps(q)).max() <= 1e-15
    h = 1e-6
    steps = h * np.eye(n)
    fd_n = np.array([gaps(q + e) - gaps(q - e) for e in steps]) / (2 * h)
    assert np.abs(fd_n - w_n).max() <= 1e-8

    def slips(q):  # t_i . (c - r_i) with the tangents of q held
        return np.einsum("ij,ij->i", tangent, centre(q) - points(q))

    fd_t = np.array([slips(q + e) - slips(q - e) for e in steps]) / (2 * h)
    fd_t[2] += radius  # rolling: R phi'
    assert np.abs(fd_t - w_t).max() <= 1e-8
    assert np.abs((gaps(q + h * u) - gaps(q - h * u)) / (2 * h) - v_n).max() <= 1e-8
    assert np.all(np.abs(w_t.T @ u - v_t) <= 4 * n * EPS * (np.abs(w_t).T @ np.abs(u)))


@njit(cache=False)
def _string_contact(string, s, q, u, radius, c, cv, jac, n_tree):
    """``kernels.string.string_contact`` (compiled-only) on side +1 with a_c = 0 and no
    rolling row: (record, W_N, W_T, hessian)."""
    n = q.size
    out, wn, wt, hessian = np.zeros(N_FIELDS), np.zeros(n), np.zeros(n), np.zeros((3, n))
    zero = np.zeros(n_tree)
    string_contact(
        string[9], string[10], string[2], string[3], n_tree, s, q, u, 1.0, radius, c, cv, jac,
        np.zeros(2), zero, 0.0, n_tree, out, wn, wt, hessian,
    )  # fmt: skip
    return out, wn, wt, hessian


def test_string_contact_rows_and_rates_are_the_derivatives_of_its_gap():
    """``kernels.string.string_contact`` (the compiled step's contact with the absolute-nodal
    string) for a circle of radius 10 mm, centre c(q) = c0 + J q_tree (a random J, J
    constant: a_c = 0), above the trolley's sagging string of 004 (8 elements) deformed by
    random free coordinates of 3 mm rms and moving randomly: against central differences of
    its own gap, closest point and velocities with the closest point solved afresh
    (``kernels.string.closest``), as the beam contact's test: W_N = dg/dq and
    U C U^T = dW_N/dq (step 1e-6, 1e-8 and 1e-6 relative to the largest entry: truncation
    h^2 f''' / 6), g' = v_N, s*' = s' and v_N' = A along q + u t (step 1e-6 s, 1e-8 relative
    to the rate), A_T = v_T' with the circle moving tangentially (v_N = 0, as
    ``ContactKinematics`` defines A_T), and v_T = W_T u. Measured: 4e-11 on W_N (0.68), 1e-9 on
    H (10), 3e-11, 3e-10, 6e-10 on v_N, s', A (1.1, 0.49, 6.9), 4e-9 on A_T (10.7). Off by O(1)
    with a wrong sign, row or dropped term."""
    from fe_contact.kernels.string import closest as string_closest
    from fe_contact.papers.slider_on_string import Trolley, slider_on_string
    from fe_contact.steppers.compiled import Plan

    scenario = slider_on_string(Trolley())
    system = assemble(scenario.model)
    string = Plan(system).P[7]
    nodes, coefficients, columns, fixed = string[9], string[10], string[2], string[3]
    nt, n = system.layout.n_tree, system.layout.n
    rng = np.random.default_rng(2)
    jac = np.eye(2, nt) + 0.3 * rng.standard_normal((2, nt))
    q = scenario.q0.copy()
    q[nt:] += 3e-3 * rng.standard_normal(n - nt)
    u = rng.standard_normal(n)
    s0 = 0.42
    # the centre 30 mm above the string's point at s0, along its normal
    record = _string_contact(string, s0, q, 0 * u, RADIUS, np.zeros(2), np.zeros(2), jac, nt)[0]
    rx, ry, nsx, nsy = record[[PX, PY, NX, NY]]
    c0 = np.array([rx, ry]) + 0.03 * np.array([nsx, nsy]) - jac @ q[:nt]

    def at(q, u):
        c = c0 + jac @ q[:nt]
        s, inside = string_closest(nodes, coefficients, columns, fixed, q[nt:], c[0], c[1],
                                   s0, 1e-15, False)  # fmt: skip
        assert inside
        return _string_contact(string, s, q, u, RADIUS, c, jac @ u[:nt], jac, nt)

    out, wn, wt, hessian = at(q, u)
    assert 0.015 < out[GAP] < 0.025
    h = 1e-6
    steps = h * np.eye(n)
    fd_wn = np.array([at(q + e, u)[0][GAP] - at(q - e, u)[0][GAP] for e in steps]) / (2 * h)
    assert np.abs(fd_wn - wn).max() <= 1e-8 * np.abs(wn).max()
    U = hessian[:2].T
    core = np.array([[out[H00], out[H01]], [out[H01], out[H11]]])
    H = U @ core @ U.T
    fd_h = np.array([at(q + e, u)[1] - at(q - e, u)[1] for e in steps]) / (2 * h)
    assert np.abs(fd_h - H).max() <= 1e-6 * np.abs(H).max()
    assert np.all(np.abs(wt @ u - out[VT]) <= 4 * n * EPS * (np.abs(wt) @ np.abs(u)))
    plus, minus = at(q + h * u, u)[0], at(q - h * u, u)[0]
    for rate, value, field in ((GAP, VN, "v_N"), (S, SRATE, "s'"), (VN, REM, "A")):
        fd = (plus[rate] - minus[rate]) / (2 * h)
        assert abs(fd - out[value]) <= 1e-8 * max(abs(out[value]), 1.0), field
    ut = u.copy()
    ut[:nt] -= np.linalg.lstsq(jac, out[VN] * out[[NX, NY]], rcond=None)[0]
    closed = at(q, ut)[0]
    assert abs(closed[VN]) <= 1e-12
    fd = (at(q + h * ut, ut)[0][VT] - at(q - h * ut, ut)[0][VT]) / (2 * h)
    assert abs(fd - closed[REM_T]) <= 1e-8 * max(abs(closed[REM_T]), 1.0)


@njit(cache=False)
def _step_dissipation(P, alpha, h, ind, U, u_n, u1, acc_n, acc1, pseudo_n, a1, mass_tree, jac):
    """``kernels.numerical.step_dissipation`` (compiled-only)."""
    return step_dissipation(P, alpha, h, ind, U, u_n, u1, acc_n, acc1, pseudo_n, a1, mass_tree, jac)


@pytest.mark.parametrize("rho_inf", [0.6, 0.9, 1.0])
def test_step_dissipation_closes_the_energy_balance_of_a_linear_step(rho_inf):
    """``kernels.numerical.step_dissipation`` on one generalised-alpha step of a linear system
    (the sliding mass's 20 g point, free of the beam, under gravity, and the strip under its
    own weight: M q'' + K q = f with M = diag(m I, M_f), K = diag(0, K_f) constant), the step
    solved here with numpy from the Chung-Hulbert recurrences (Arnold-Bruls form, a_n not
    equal to q''_n). The reference is the energy balance of that step, exact for a linear
    system (``steppers.alpha.numerical_dissipation``): D = [q] . f - [u M u / 2 + q K q / 2].
    The balance holds exactly for exact arithmetic; the float64 step (q1, u1, a1 rounded)
    leaves the reference uncertain by a few hundred eps times the energy scale S = sum over
    both ends of |u|^T |M| |u| + |q|^T |K| |q| + |q| . |f| (measured 280 eps S at rho_inf = 1,
    the same with the balance summed in extended precision): bound 4 n^2 eps S (n = 22). With
    a_n != q''_n the scheme's D is large (3e5 to 4e6 J of either sign on this stiff random
    state for rho_inf < 1, more than 1e6 times the bound: a wrong sign or a dropped dq or dv
    term fails); at rho_inf = 1 D is zero to the bound."""
    from fe_contact.steppers.alpha import alpha_parameters
    from fe_contact.steppers.compiled import Plan

    system = assemble(sliding_mass_model(0.0, 10))
    lay = system.layout
    n, nt = lay.n, lay.n_tree
    beam = system.structures[BEAM]
    m = SLIDING_MASS
    M = np.zeros((n, n))
    K = np.zeros((n, n))
    M[:nt, :nt] = m * np.eye(nt)
    M[nt:, nt:] = beam.mass_matrix.toarray()
    K[nt:, nt:] = beam.stiffness_matrix.toarray()
    f = np.r_[0.0, -9.81 * m, beam.load]
    p = alpha_parameters(rho_inf)
    am, af, gamma, beta, h = p.alpha_m, p.alpha_f, p.gamma, p.beta, 1e-3
    rng = np.random.default_rng(4)
    q_n = np.r_[0.2, 0.1, 1e-3 * rng.standard_normal(n - nt)]
    u_n = np.r_[0.5, -0.3, 0.1 * rng.standard_normal(n - nt)]
    acc_n = np.linalg.solve(M, f - K @ q_n)
    pseudo_n = acc_n + 0.2 * np.abs(acc_n).max() * rng.standard_normal(n)  # a_n != q''_n
    # M x + K q_n+1(x) = f with a_n+1 = ((1 - af) x + af q''_n - am a_n) / (1 - am)
    c = h * h * beta / (1 - am)
    q_pred = q_n + h * u_n + h * h * (0.5 - beta) * pseudo_n + c * (af * acc_n - am * pseudo_n)
    acc1 = np.linalg.solve(M + c * (1 - af) * K, f - K @ q_pred)
    a1 = ((1 - af) * acc1 + af * acc_n - am * pseudo_n) / (1 - am)
    q1 = q_n + h * u_n + h * h * ((0.5 - beta) * pseudo_n + beta * a1)
    u1 = u_n + h * ((1 - gamma) * pseudo_n + gamma * a1)
    residual_scale = np.abs(M) @ np.abs(acc1) + np.abs(K) @ np.abs(q1) + np.abs(f)
    assert np.all(np.abs(M @ acc1 + K @ q1 - f) <= 1e-12 * residual_scale.max())  # solved

    def energy(q, u):
        return 0.5 * u @ M @ u + 0.5 * q @ K @ q

    reference = (q1 - q_n) @ f - (energy(q1, u1) - energy(q_n, u_n))
    scale = sum(
        np.abs(u) @ np.abs(M) @ np.abs(u)
        + np.abs(q) @ np.abs(K) @ np.abs(q)
        + np.abs(q) @ np.abs(f)
        for q, u in ((q_n, u_n), (q1, u1))
    )
    P = Plan(system).P
    got = _step_dissipation(
        P, (am, af, gamma, beta), h, np.arange(n), np.zeros(0, dtype=np.int64), u_n, u1, acc_n,
        acc1, pseudo_n, a1, m * np.eye(nt), np.zeros((0, n)),
    )  # fmt: skip
    bound = 4 * n * n * EPS * scale
    assert abs(got - reference) <= bound, (got, reference, bound)
    if rho_inf < 1.0:
        assert abs(reference) > 1e6 * bound


@njit(cache=False)
def _string_stick_row(string, offset, s_star, tx, ty, q, c, jac, ac, n_tree):
    """``kernels.string.string_stick_row`` (compiled-only): (phi, A, row)."""
    row = np.zeros(q.size)
    phi, rem = string_stick_row(
        string[9], string[10], string[2], string[3], offset, s_star, tx, ty, q, c, jac, ac,
        n_tree, row,
    )  # fmt: skip
    return phi, rem, row


def test_stick_rows_are_the_tangential_distance_and_its_gradient(cantilever):
    """The tangential row of a point sticking at a material point s* with the onset's tangent
    t* (``coupling.constraints.StickAnchor``): phi = t* . (c - r(s*, q)), its row dphi/dq and
    A = t* . a_c. ``kernels.beam.stick_row`` against the closed form on the cubic beam
    (r(s*) = (s*, w(s*))) and central differences of that closed form (phi is linear in q:
    the differences are exact but for round-off eps |phi| / h, step 1e-3: 1e-12);
    ``kernels.string.string_stick_row`` on the trolley's string against central differences
    of the string's own curve (``kernels.string.closest``'s curve: the contact record's point
    of ``string_contact``), 1e-12. Centre c(q) = c0 + J q_tree with a random J; a_c random.
    A wrong sign or column of a shape function is off by O(1)."""
    from fe_contact.kernels.beam import stick_row
    from fe_contact.papers.slider_on_string import Trolley, slider_on_string
    from fe_contact.steppers.compiled import Plan

    system, B, q_beam = cantilever
    rng = np.random.default_rng(8)
    nt = 2
    t_star = np.array([np.cos(0.3), np.sin(0.3)])
    ac = rng.standard_normal(2)
    h = 1e-3
    # the beam: the closed form
    jac = rng.standard_normal((2, nt))
    c0 = np.array([0.2, 0.05])
    s_star = 0.23

    def phi_beam(q):
        c = c0 + jac @ q[:nt]
        return t_star @ (c - np.array([s_star, 0.0])) - t_star[1] * beam_w(q)

    def beam_w(q):  # w(s*) of the beam's nodal values by the Hermite cubics of element 5
        x0, le = 0.2, 0.04
        z = (s_star - x0) / le
        shapes = [1 - 3 * z**2 + 2 * z**3, le * (z - 2 * z**2 + z**3), 3 * z**2 - 2 * z**3,
                  le * (-(z**2) + z**3)]  # fmt: skip
        return np.dot(shapes, q[nt + 8 : nt + 12])  # (w, w') of nodes 5 and 6

    q = q_beam.copy()
    q[:nt] = (0.01, -0.02)
    row = np.zeros(q.size)
    phi, rem = stick_row(B, 0, s_star, *t_star, q, c0 + jac @ q[:nt], jac, ac, nt, row)
    expected = t_star @ (c0 + jac @ q[:nt] - np.array([s_star, w_cubic(s_star)[0]]))
    assert abs(phi - expected) <= 1e-15
    assert abs(phi_beam(q) - expected) <= 1e-15  # the hand Hermite cubics hold the cubic
    fd = np.array([phi_beam(q + e) - phi_beam(q - e) for e in h * np.eye(q.size)]) / (2 * h)
    assert np.abs(fd - row).max() <= 1e-12
    assert rem == t_star @ ac
    # the string: its own curve
    scenario = slider_on_string(Trolley())
    string_system = assemble(scenario.model)
    string = Plan(string_system).P[7]
    n = string_system.layout.n
    qs = scenario.q0 + np.r_[0.0, 0.0, 3e-3 * rng.standard_normal(n - nt)]
    s_star = 0.37

    def point(q):
        record = _string_contact(string, s_star, q, 0 * q, 0.0, np.zeros(2), np.zeros(2), jac, nt)
        return record[0][[PX, PY]]

    def phi_string(q):
        return t_star @ (c0 + jac @ q[:nt] - point(q))

    phi, rem, row = _string_stick_row(string, nt, s_star, *t_star, qs, c0 + jac @ qs[:nt], jac,
                                      ac, nt)  # fmt: skip
    assert abs(phi - phi_string(qs)) <= 1e-15
    fd = np.array([phi_string(qs + e) - phi_string(qs - e) for e in h * np.eye(n)]) / (2 * h)
    assert np.abs(fd - row).max() <= 1e-12
    assert np.abs(row[nt:]).max() > 0.1 and rem == t_star @ ac


def coulomb_laws_hold(P, xi, mu, tol):
    """The impulse laws of Eugster-Glocker (004), eqs. (26)-(27), to tol (m/s, and tol times
    max(|P|, 1) for the products): P_N >= 0, xi_N >= 0, P_N xi_N = 0, |P_T| <= mu P_N, xi_T = 0
    where |P_T| < mu P_N (stick), P_T xi_T <= 0 and |P_T| = mu P_N where xi_T != 0 (slip)."""
    m = mu.size
    pn, pt, xn, xt = P[:m], P[m:], xi[:m], xi[m:]
    size = max(np.abs(P).max(), 1.0)
    return bool(
        pn.min() >= -tol
        and xn.min() >= -tol
        and np.all(np.abs(pn * xn) <= tol * size)
        and np.all(np.abs(pt) <= mu * pn + tol)
        and np.all(pt * xt <= tol * size)
        and np.all((np.abs(xt) <= tol) | (np.abs(np.abs(pt) - mu * pn) <= tol * size))
    )


def test_compiled_contact_solver_meets_the_coulomb_laws_and_the_enumerated_solution():
    """``kernels.contact`` (three ``warm_sweeps`` of ``gauss_seidel_sweep`` and
    ``law_residual``, then ``active_set_newton`` when they have not converged) on random
    Delassus problems of 1 to 3 contacts (G = W^T M^-1 W, often redundant: 2m > n), checked
    against the laws themselves rather than the numpy solver it copies (Eugster-Glocker
    (004), eqs. (26)-(27), with xi = G P + c; ``coulomb_laws_hold``), and xi against a
    brute-force search over the statuses (open, stick, slip+, slip-) of every contact, each a
    linear solve (xi is unique where G is singular).
    Tolerances: the solver stops at the natural residual 1e-11 times the velocity scale V =
    max(|c|, |G P|, 1): the laws to 1e-9 V (and P_N xi_N to 1e-9 V |P|), xi to the
    enumeration's 1e-7 V; 17 of the 29 solved problems go through the Newton iterations. A
    wrong clip, sign or status rule leaves O(V) violations."""
    import itertools

    from test_contact_solver import random_pointed_problem

    from fe_contact.kernels.contact import active_set_newton, law_residual, warm_sweeps

    rng = np.random.default_rng(21)
    solved = newton = 0
    for _ in range(30):
        m, n = int(rng.integers(1, 4)), int(rng.integers(2, 7))
        G, c, mu = random_pointed_problem(rng, m, n)
        diag = np.diag(G).copy()
        r = 1.0 / diag
        P = np.zeros(2 * m)
        xi = np.empty(2 * m)
        residuals = np.empty(3)
        scale_c = np.abs(c).max()
        _, residual, scale, _, _ = warm_sweeps(
            G, c, mu, diag, 1.0, P, r, 1e-11, 3, scale_c, xi, residuals
        )
        if residual > 1e-11 * scale:
            P, _, ok = active_set_newton(G, c, mu, P, r, 1e-11 * scale, 20)
            if not ok:
                continue
            newton += 1
        solved += 1
        residual, big = law_residual(G, c, mu, r, P, xi)
        V = max(scale_c, big, 1.0)
        assert residual <= 1e-11 * V
        # xi = G P + c: sums of 6 terms against BLAS, 16 eps |G| |P| + eps |c|
        assert np.all(np.abs(xi - (G @ P + c)) <= 16 * EPS * (np.abs(G) @ np.abs(P) + np.abs(c)))
        assert coulomb_laws_hold(P, xi, mu, 1e-9 * V)
        found = []
        for status in itertools.product(range(4), repeat=m):
            A, b = np.eye(2 * m), np.zeros(2 * m)
            for i, s in enumerate(status):
                if s > 0:
                    A[i], b[i] = G[i], -c[i]
                if s == 1:
                    A[m + i], b[m + i] = G[m + i], -c[m + i]
                if s >= 2:
                    A[m + i, i] = -(1.0 if s == 2 else -1.0) * mu[i]
            Q = np.linalg.lstsq(A, b, rcond=None)[0]
            if np.linalg.norm(A @ Q - b) > 1e-9 * V:
                continue
            x = G @ Q + c
            if coulomb_laws_hold(Q, x, mu, 1e-9 * V):
                found.append(x)
        assert found
        assert min(np.abs(x - xi).max() for x in found) <= 1e-7 * V
    assert solved >= 25 and newton >= 10, (solved, newton)  # measured 29 and 17


@njit(cache=False)
def _string_iteration(string, q, offset, bp, rhs):
    """``kernels.string.iteration_factor`` (compiled-only) and a solve with its factors, and
    the string's internal force (``string_forces``, order 1) at q."""
    lu, piv, info = iteration_factor(string, q, offset, bp, np.zeros((0, 8, 8)))
    force = string_forces(string, q, offset, np.int64(1))[0]
    return band_lu_solve(lu, piv, string[0][1], rhs), info, force


def test_string_iteration_matrix_is_the_mass_plus_the_force_derivative():
    """``kernels.string.iteration_factor``: G_f = M_f + beta' K_t(q) of the trolley's string
    (004, 8 elements) at a sagging, randomly deformed state, factorised in band storage,
    against a dense matrix built independently: M_f the structure's sparse scikit-fem mass
    matrix, K_t central differences of the string's internal force (``string_forces``),
    step 1e-6 m (truncation h^2 f''' / 6 relative 1e-12 of K_t's scale, round-off eps |f| / h:
    1e-10 of it), with beta' = h^2 / 4 at h = 1 ms: beta' K_t reaches 0.12 of M_f's largest
    entry. Checked on three right-hand sides b: the kernel's solution x has |G_dense x - b|
    below 1e-8 |G_dense| |x| (measured 2.4e-10: the differences' error; the solve's round-off
    is far below); a missing or doubled tangent leaves a residual of about 0.1 |G| |x|, a
    block scattered on wrong columns one of the same order."""
    from fe_contact.papers.slider_on_string import Trolley, slider_on_string
    from fe_contact.steppers.compiled import Plan

    scenario = slider_on_string(Trolley())
    system = assemble(scenario.model)
    string = Plan(system).P[7]
    lay = system.layout
    nt, n = lay.n_tree, lay.n
    nf = n - nt
    rng = np.random.default_rng(6)
    q = scenario.q0 + np.r_[np.zeros(nt), 3e-3 * rng.standard_normal(nf)]
    bp, h = 0.25e-6, 1e-6
    rhs = rng.standard_normal((nf, 3))
    x, info, _ = _string_iteration(string, q, nt, bp, rhs)
    assert info == 0
    columns = []
    for e in np.eye(n)[nt:]:
        plus = _string_iteration(string, q + h * e, nt, bp, rhs)[2]
        minus = _string_iteration(string, q - h * e, nt, bp, rhs)[2]
        columns.append((plus - minus) / (2 * h))
    tangent = np.array(columns).T
    mass = system.structures["string"].mass_matrix.toarray()
    G = mass + bp * tangent
    assert np.abs(bp * tangent).max() > 0.1 * np.abs(mass).max()  # the tangent counts
    residual = np.abs(G @ x - rhs)
    assert np.all(residual <= 1e-8 * (np.abs(G) @ np.abs(x)))


@njit(cache=False)
def _rigid_line_record(radius, c, cv, jac, ac, jw, omega, normal, point, vb, jb, ab, n):
    """``kernels.beam.rigid_line_record`` (compiled-only): (record, W_N, W_T)."""
    out, wn, wt = np.zeros(N_FIELDS), np.zeros(n), np.zeros(n)
    rigid_line_record(
        radius, c, cv, jac, ac, jw, omega, normal[0], normal[1], point[0], point[1], vb, jb, ab,
        jac.shape[1], out, wn, wt,
    )  # fmt: skip
    return out, wn, wt


def test_rigid_line_record_is_the_distance_to_a_carried_line_and_its_derivatives():
    """``kernels.beam.rigid_line_record``: a disk (radius R, centre c(q) of a body on a crank,
    q = (x, y, phi, z)) on a line through p(q) = p0 + (0, z) (carried by the prismatic z) with
    the unit normal n: g = n . (c - p) - R (closed form), W_N = dg/dq and W_T = d(t . (c -
    p))/dq + R e_phi by central differences of those closed forms (step 1e-6, truncation
    h^2 |c'''| / 6 < 1e-13 with the 0.1 m crank: 1e-10), v_N = dg/dt, A = d^2 g / dt^2 and A_T
    = d^2 (t . (c - p)) / dt^2 along q + u t (steps 1e-6 s and 1e-4 s, 1e-8 and 1e-6). The
    contact point is the foot of c on the line. A wrong sign (line velocity added, not
    subtracted) is off by O(1)."""
    arm, radius = 0.1, 0.02
    normal = np.array([np.sin(0.2), np.cos(0.2)])
    tangent = np.array([normal[1], -normal[0]])
    p0 = np.array([0.1, -0.05])

    def centre(q):
        return q[:2] + arm * np.array([np.cos(q[2]), np.sin(q[2])])

    def line_point(q):
        return p0 + np.array([0.0, q[3]])

    def gap(q):
        return normal @ (centre(q) - line_point(q)) - radius

    def along(q):
        return tangent @ (centre(q) - line_point(q))

    def kernel(q, u):
        jac = np.array([[1.0, 0.0, -arm * np.sin(q[2]), 0.0], [0.0, 1.0, arm * np.cos(q[2]), 0.0]])
        ac = -arm * u[2] ** 2 * np.array([np.cos(q[2]), np.sin(q[2])])
        jb = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
        jw = np.array([0.0, 0.0, 1.0, 0.0])
        return _rigid_line_record(radius, centre(q), jac @ u, jac, ac, jw, u[2], normal,
                                  line_point(q), jb @ u, jb, np.zeros(2), 4)  # fmt: skip

    q = np.array([0.3, 0.2, 0.7, 0.01])
    u = np.array([0.4, -0.3, 2.0, 0.5])
    out, wn, wt = kernel(q, u)
    assert abs(out[GAP] - gap(q)) <= 1e-15
    foot = centre(q) - (gap(q) + radius) * normal
    assert np.abs(out[[PX, PY]] - foot).max() <= 1e-15
    assert np.array_equal(out[[NX, NY]], normal) and np.array_equal(out[[TX, TY]], tangent)
    h = 1e-6
    steps = h * np.eye(4)
    fd_n = np.array([gap(q + e) - gap(q - e) for e in steps]) / (2 * h)
    fd_t = np.array([along(q + e) - along(q - e) for e in steps]) / (2 * h)
    fd_t[2] += radius
    assert np.abs(fd_n - wn).max() <= 1e-10 and np.abs(fd_t - wt).max() <= 1e-10
    assert abs((gap(q + h * u) - gap(q - h * u)) / (2 * h) - out[VN]) <= 1e-10
    assert abs(wt @ u - out[VT]) <= 1e-15
    ht = 1e-4
    for f, value in ((gap, out[REM]), (along, out[REM_T])):
        second = (f(q + ht * u) - 2 * f(q) + f(q - ht * u)) / ht**2
        assert abs(second - value) <= 1e-6
    assert abs(out[REM]) > 0.1


def test_compiled_step_ends_on_the_equations_of_motion_and_the_constraint():
    """The compiled generalised-alpha step (``kernels.step.iterate`` with
    ``kernels.evaluate.evaluate_system``, through ``GeneralizedAlpha(compiled=True)``) for
    the sliding mass (20 g) on the 10-element strip, started on the static deflection at 0.12
    m, sliding at 0.5 m/s with small random beam velocities (1 mm/s rms): after each of ten
    steps of 1 ms the reported end state satisfies the equations of motion assembled here,
    M q'' + K q - f = W_N^T lambda_N (M = diag(m I, M_f) and K, f of scikit-fem, the mass's
    weight, W_N of ``kernels.beam.contact``, itself checked against central differences
    above), and the bilateral contact's position and velocity constraints g = 0, W_N u = 0.
    Tolerances: the Newton iteration stops on corrections below rtol = 1e-10 relative, which
    leaves the residual below 1e-8 of the largest row's sum of its terms' magnitudes (measured
    at most 1.4e-10 of it, in the first step); the constraints to 1e-12 m and m/s (measured
    1e-17). A wrong sign of the contact force or of gravity, a missing stiffness or mass term
    gives a residual of the size of the terms."""
    from fe_contact.papers.lipinski import sliding_mass_initial_state
    from fe_contact.steppers.genalpha import GeneralizedAlpha

    system = assemble(sliding_mass_model(0.0, 10))
    lay = system.layout
    n, nt = lay.n, lay.n_tree
    B = beam_arrays(system.structures, lay)
    beam = system.structures[BEAM]
    q0, u0 = sliding_mass_initial_state(system, x0=0.12, speed=0.5)
    u0[lay.flexible] += 1e-3 * np.random.default_rng(0).standard_normal(n - nt)
    stepper = GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3, compiled=True, rho_inf=0.8)
    assert stepper.step_path == "compiled"
    M, K = np.zeros((n, n)), np.zeros((n, n))
    M[:nt, :nt] = SLIDING_MASS * np.eye(nt)
    M[nt:, nt:] = beam.mass_matrix.toarray()
    K[nt:, nt:] = beam.stiffness_matrix.toarray()
    f = np.r_[0.0, -9.81 * SLIDING_MASS, beam.load]
    for _ in range(10):
        report = stepper.step()
        q, u, acc, lam = report.q, report.u, report.acceleration, report.multipliers[0]
        out, wn, _, _ = beam_contact(B, q, u)
        residual = M @ acc + K @ q - f - wn * lam
        scale = np.abs(M) @ np.abs(acc) + np.abs(K) @ np.abs(q) + np.abs(f) + np.abs(wn * lam)
        assert np.all(np.abs(residual) <= 1e-8 * scale.max())
        assert abs(out[GAP] + RADIUS) <= 1e-12 and abs(out[VN]) <= 1e-12
        assert lam > 0.01  # pressed: the contact force takes part


def test_smooth_band_is_the_dense_force_and_effective_mass():
    """``kernels.band.smooth_band`` (the Moreau-Jean step's flexible forces and effective
    mass) on random banded M, C, K (n = 9, half-bandwidth 2) stored here in dgbtrf band
    storage (entry (i, j) at ab[2 b + i - j, j]): load - f - C u against the dense product
    (round-off n eps (|C| |u| + |load| + |f|): gamma_n of a sum of 2b + 1 products) and M +
    c C + k K against the dense sum read back from the band (elementwise: two roundings, 4 eps
    of the magnitudes). A shifted diagonal or a wrong coefficient is off by O(1)."""
    from fe_contact.kernels.band import smooth_band

    rng = np.random.default_rng(12)
    n, b = 9, 2
    dense_band = np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= b

    def banded():
        return np.where(dense_band, rng.standard_normal((n, n)), 0.0)

    def storage(A):
        ab = np.zeros((3 * b + 1, n))
        for i, j in zip(*np.nonzero(dense_band), strict=True):
            ab[2 * b + i - j, j] = A[i, j]
        return ab

    def read_back(ab):
        A = np.zeros((n, n))
        for i, j in zip(*np.nonzero(dense_band), strict=True):
            A[i, j] = ab[2 * b + i - j, j]
        return A

    M, C, K = banded(), banded(), banded()
    load, force, u = rng.standard_normal((3, n))
    c, k = 0.5e-3, 0.25e-6
    out, ab = smooth_band(load, force, storage(C), b, u, storage(M), storage(K), c, k)
    expected = load - force - C @ u
    bound = n * EPS * (np.abs(C) @ np.abs(u) + np.abs(load) + np.abs(force))
    assert np.all(np.abs(out - expected) <= bound)
    G = M + c * C + k * K
    assert np.all(
        np.abs(read_back(ab) - G) <= 4 * EPS * (np.abs(M) + c * np.abs(C) + k * np.abs(K))
    )
    assert np.all(ab[:b] == 0.0)  # dgbtrf's fill-in rows stay empty


@njit(cache=False)
def _nearest_node(string, q, px, py):
    """``kernels.string.nearest_node`` (compiled-only)."""
    return nearest_node(string[9], string[10], string[2], string[3], q, px, py)


def test_nearest_node_is_the_brute_force_nearest_node():
    """``kernels.string.nearest_node`` (the start of the string's closest-point search without a
    guess) on the trolley's deformed string for 20 random points against the node of the least
    distance found here by evaluating every node's position (``string_contact``'s record).
    Exact equality (a node's coordinate is returned, no arithmetic); a search that skipped
    the last node or compared squared distances of the wrong coordinates fails for some of
    the 20 points."""
    from fe_contact.papers.slider_on_string import Trolley, slider_on_string
    from fe_contact.steppers.compiled import Plan

    scenario = slider_on_string(Trolley())
    system = assemble(scenario.model)
    string = Plan(system).P[7]
    nt = system.layout.n_tree
    rng = np.random.default_rng(13)
    q = scenario.q0 + np.r_[np.zeros(nt), 3e-3 * rng.standard_normal(scenario.q0.size - nt)]
    nodes = string[9]
    zero = np.zeros(2)
    positions = np.array(
        [_string_contact(string, s, q, 0 * q, 0.0, zero, zero, np.eye(2, nt), nt)[0][[PX, PY]]
         for s in nodes]
    )  # fmt: skip
    lo, hi = positions.min(axis=0) - 0.1, positions.max(axis=0) + 0.1
    for p in rng.uniform(lo, hi, (20, 2)):
        distances = np.hypot(*(positions - p).T)
        assert _nearest_node(string, q[nt:], *p) == nodes[np.argmin(distances)]


def test_compiled_string_step_ends_on_the_equations_of_motion_and_the_constraint():
    """The compiled generalised-alpha step on the absolute-nodal string (``kernels.step``'s
    string branch: ``string_forces``, ``iteration_factor``, ``string_contact``): the frictionless
    trolley (1 kg) released on the sagging string of 004 at 0.3 m/s; after each of five steps
    of 1 ms the reported end state satisfies M q'' + f_int(q) - f = W_N^T lambda_N assembled
    here (M_f the scikit-fem mass matrix, f_int the structure's internal force, which
    test_moreau_string_kernels checks against the plain scikit-fem LinearForm, f the weights,
    W_N of ``string_contact`` checked above by central differences) and g = 0, W_N u = 0.
    Tolerances as in the beam's test: 1e-8 of the largest row's magnitudes (measured 6e-12),
    the constraints to 1e-12 m and 1e-11 m/s (measured 1e-16 m, 1e-13 m/s: the velocity
    constraint is met through the Newton's tolerance)."""
    from fe_contact.kernels.string import closest as string_closest
    from fe_contact.papers.slider_on_string import Trolley, slider_on_string
    from fe_contact.steppers.compiled import Plan
    from fe_contact.steppers.genalpha import GeneralizedAlpha

    scenario = slider_on_string(Trolley(mu=0.0))
    system = assemble(scenario.model)
    lay = system.layout
    nt, n = lay.n_tree, lay.n
    string = Plan(system).P[7]
    structure = system.structures["string"]
    mass = system.tree.bodies[1].mass
    M = np.zeros((n, n))
    M[:nt, :nt] = mass * np.eye(nt)
    M[nt:, nt:] = structure.mass_matrix.toarray()
    f = np.r_[0.0, -9.81 * mass, structure.load]
    stepper = GeneralizedAlpha(
        system, 0.0, scenario.q0, scenario.u0, h=1e-3, compiled=True, rho_inf=1.0
    )
    assert stepper.step_path == "compiled"
    for _ in range(5):
        report = stepper.step()
        q, u, acc, lam = report.q, report.u, report.acceleration, report.multipliers[0]
        c = q[:nt].copy()
        s, inside = string_closest(string[9], string[10], string[2], string[3], q[nt:], c[0],
                                   c[1], 0.3, 1e-15, False)  # fmt: skip
        assert inside
        out, wn, _, _ = _string_contact(string, s, q, u, 0.0, c, u[:nt].copy(), np.eye(2), nt)
        f_int = np.r_[np.zeros(nt), structure.internal_force(q[nt:])]
        residual = M @ acc + f_int - f - wn * lam
        scale = np.abs(M) @ np.abs(acc) + np.abs(f_int) + np.abs(f) + np.abs(wn * lam)
        assert np.all(np.abs(residual) <= 1e-8 * scale.max())
        assert abs(out[GAP]) <= 1e-12 and abs(out[VN]) <= 1e-11
        assert lam > 1.0  # the trolley's weight, 9.8 N, presses it on
