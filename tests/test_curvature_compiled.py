"""The contact's curvature terms in the compiled step's iteration matrix (``kernels.curvature``,
``kernels.step.curvature_border``) against central differences of what they differentiate,
each evaluated afresh by the compiled kernels (``kernels.step.packed_evaluation``: the closest
point projected again at every perturbed state); the compiled and the Python step on a point
sliding fast along a tensioned wire; and the Newton iterations that the terms save there.

The point moves on two prismatic joints (the sliding mass's tree), so the centre's own second
derivative, which the Hessian leaves out (``coupling.kinematics``), is zero: the references
are the whole derivatives.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.kernels.step import curvature_border, packed_evaluation
from fe_contact.model import BeamSpec
from fe_contact.multibody.drive import Drive
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.steppers.alpha import alpha_parameters
from fe_contact.steppers.compiled import Plan
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.system import assemble

H = 1e-3  # s, the step of the fast-sliding runs
EPS = np.finfo(float).eps


def coefficients(h: float, rho_inf: float = 0.9):
    """(beta', gamma') of a step h: dq / dq'' and du / dq'' of the generalised-alpha update."""
    p = alpha_parameters(rho_inf)
    return (
        h * h * p.beta * (1 - p.alpha_f) / (1 - p.alpha_m),
        h * p.gamma * (1 - p.alpha_f) / (1 - p.alpha_m),
    )


class Evaluator:
    """The compiled evaluation of a system with one sliding contact and no drives."""

    def __init__(self, system):
        self.plan = Plan(system)
        self.n = system.layout.n
        self.cstate = np.zeros((1, 5))  # slipping, slip sign 0 (frictionless)

    def __call__(self, q, u, s_guess):
        out = packed_evaluation(
            *self.plan.packed,
            np.ascontiguousarray(q, dtype=float),
            np.ascontiguousarray(u, dtype=float),
            np.zeros((0, 3)),
            np.zeros(2),
            self.cstate,
            np.array([s_guess]),
            np.zeros(self.n),
            np.zeros((1, self.n)),
        )
        assert out[0] == 0  # OK: the point is on the beam
        return out


def cantilever(speed: float, bent: bool):
    """(system, evaluator, q, u) of the sliding mass on the 10-element cantilever strip at
    x = 0.17 m (inside element 5), moving along the beam at ``speed``: on the beam deflected by
    its own weight and the mass's (``bent``), or on the straight beam at rest."""
    system = assemble(sliding_mass_model(0.0, 10))
    q, u = sliding_mass_initial_state(system, x0=0.17, speed=speed)
    if not bent:
        lay = system.layout
        q[lay.tree] = (0.17, 0.0)
        q[lay.flexible] = 0.0
        u[lay.tree] = (speed, 0.0)
        u[lay.flexible] = 0.0
    return system, Evaluator(system), q, u


def test_stiffness_block_is_the_normal_force_turning_with_the_beam():
    """The bordered rows K U^T, -U^T of ``curvature_border`` form U K U^T = -beta' lambda_N H
    with H = d W_N / dq: against central differences of the compiled W_N on the bent beam.

    Tolerance: the step eps_q = 1e-6 m (or rad) leaves eps_q^2 times the third derivative (the
    Hermite element's N''' ~ 12 / l^3 = 1.9e5 1/m^3 on 4 cm elements: 2e-7) plus the rows'
    round-off eps |W_N| / eps_q ~ 2e-10 and the closest point's tolerance (1e-13 times the
    beam length, 4e-14 m) times |n . R_s| ~ 40 1/m over 2 eps_q: 1e-6; against entries of H up
    to 28 1/m, 1e-7 times the largest entry bounds them all (we see 1.2e-9 of it)."""
    system, ev, q, u = cantilever(0.5, bent=True)
    n = q.size
    out = ev(q, u, 0.17)
    _, phi, jac, js, _, _, rec, _, _, _, _, hess = out
    assert abs(phi[0]) < 1e-12  # on the deflected beam
    bp, gp = coefficients(H)
    lam = np.array([2.5])  # N
    acc = np.zeros(n)
    jac_b, js_b = curvature_border(
        Plan(system).contacts[4], bp, gp, jac, js, rec, hess, acc, np.asarray(u, float), lam
    )
    assert jac_b.shape == (3, n) and js_b.shape == (3, n)
    stiffness = (-js_b[1:]).T @ jac_b[1:]  # U K U^T
    s = float(rec[0, 0])
    fd = np.zeros((n, n))
    eps_q = 1e-6
    for k in range(n):
        e = np.zeros(n)
        e[k] = eps_q
        plus = ev(q + e, u, s)[2][0]
        minus = ev(q - e, u, s)[2][0]
        fd[:, k] = (plus - minus) / (2 * eps_q)
    assert np.abs(fd).max() > 1.0  # a Hessian that matters: the beam is bent under the mass
    scale = bp * lam[0] * np.abs(fd).max()
    np.testing.assert_allclose(stiffness, -bp * lam[0] * fd, rtol=0, atol=1e-7 * scale)
    np.testing.assert_allclose(stiffness, stiffness.T, rtol=0, atol=1e-12 * scale)


def test_contact_row_is_the_derivative_of_the_normal_acceleration():
    """The contact's row of the compiled iteration matrix (``curvature_border``: W_N with the
    curvature terms) against central differences of the normal acceleration constraint
    f(dz) = W_N(q + beta' dz) (q'' + dz) + A(q + beta' dz, u + gamma' dz) over every coordinate
    (the step's update moves positions and velocities by beta' and gamma' times the
    accelerations). On the straight beam at rest with the point on it, every third derivative
    of the gap that the kernels leave out (through |r'|, the normal's turning and the point's
    own second derivative) is zero, so the reference is the whole derivative: there A =
    -2 V w_t' - V^2 w'' (the beam's slope rate and curvature under the point moving at V), and
    the row holds W_N + 2 gamma' (H u)^T + beta' (H q'')^T - beta' V^2 N'' (the last the
    remainder gradient). At V = 50 m/s and h = 1 ms the terms are of the size of W_N's entries
    (2 gamma' V N' ~ 2, beta' V^2 N'' ~ 2): without them the row is off by 94 % of its
    largest entry.

    Tolerance: f is a quadratic form in dz but for the closest point's and the normal's
    dependence on q, smooth on the scale of the element; the step eps_a = 1 m/s^2 moves q by
    beta' eps_a = 2.5e-7 m, leaving third-order terms far below 1e-9; the closest point's
    tolerance (4e-14 m) moves f by about |n . R_s| |q''| 4e-14 ~ 2e-11 per evaluation, 1e-11
    over 2 eps_a; round-off eps |f| / eps_a ~ 1e-14. 1e-8 times the largest entry (2.7) bounds
    them (we see 1.3e-10 of it)."""
    system, ev, q, u = cantilever(50.0, bent=False)
    n = q.size
    rng = np.random.default_rng(3)
    acc = rng.uniform(-10.0, 10.0, n)  # m/s^2, rad/s^2: an iterate's accelerations
    bp, gp = coefficients(H)
    out = ev(q, u, 0.17)
    _, phi, jac, js, rem, _, rec, _, _, _, _, hess = out
    assert abs(phi[0]) < 1e-15
    jac_b, _ = curvature_border(
        Plan(system).contacts[4],
        bp,
        gp,
        jac,
        js,
        rec,
        hess,
        acc,
        np.asarray(u, float),
        np.array([3.0]),
    )

    def f(dz):
        o = ev(q + bp * dz, u + gp * dz, 0.17)
        return float(o[2][0] @ (acc + dz) + o[4][0])

    eps_a = 1.0
    fd = np.empty(n)
    for k in range(n):
        e = np.zeros(n)
        e[k] = eps_a
        fd[k] = (f(e) - f(-e)) / (2 * eps_a)
    scale = np.abs(fd).max()
    assert np.abs(fd - jac[0]).max() > 0.1 * scale  # the terms matter here
    np.testing.assert_allclose(jac_b[0], fd, rtol=0, atol=1e-8 * scale)


def wire(n_elements: int, speed: float = 80.0, x0: float = 1.0):
    """(system, q0, u0): a 0.2 kg point on two prismatic joints sliding frictionless and
    bilateral (``Sliding``) on a pinned wire of 0.1 m elements under 20 kN (EI = 195 N m^2,
    rho A = 1.35 kg/m: the EN 50318 contact wire; weightless), its x driven at ``speed`` from x0
    (``benchmarks/speed_rows.scale_model`` on a short wire). The wire's wave speed is
    sqrt(20e3 / 1.35) = 122 m/s."""
    beam = BeamSpec(
        length=0.1 * n_elements,
        n_elements=n_elements,
        youngs_modulus=1.0,  # EI and rho A given as second_moment and area with E = rho = 1
        density=1.0,
        area=1.35,
        second_moment=195.0,
        left="pinned",
        right="pinned",
        axial_force=20e3,
    )
    model = sliding_mass_model(0.0, n_elements, beam=beam, mass=0.2, structure_gravity=False)
    model = replace(model, drives=(Drive.constant_velocity(0, x0, speed),))
    system = assemble(model)
    q0, u0 = system.initial_state(q_tree=[x0, 0.0], u_tree=[speed, 0.0])
    return system, q0, u0


@pytest.fixture(scope="module")
def fast_runs():
    """The point at 80 m/s on a 60-element wire, 40 steps of 1 ms, Python and compiled steps
    in lockstep: (python, compiled, [(python report, compiled report)])."""
    system, q0, u0 = wire(60)
    py = GeneralizedAlpha(system, 0.0, q0, u0, h=H)
    cc = GeneralizedAlpha(system, 0.0, q0, u0, h=H, compiled=True)
    reports = [(py.step(), cc.step()) for _ in range(40)]
    return py, cc, reports


def test_compiled_and_python_steps_agree_on_the_fast_slide(fast_runs):
    """Both steps hold the same curvature terms (one kernel) and take the same iterates: they
    differ in the factorisation of the structures' block (banded Cholesky against SuperLU) and
    the order of sums only, i.e. in round-off.

    Bound: a step's result differs by the round-off of its last iterate, eps times cond(G_f)
    (about 1e3 here: 20 kN over 0.1 m elements against their masses, at h = 1 ms) times the
    scale, carried over 40 steps by the scheme's stable recursion: 1e4 eps times the largest
    wire deflection (2.2e-4 m) for every position, times the largest velocity of the wire
    (0.058 m/s) and of the point (80 m/s) for theirs, and times the largest normal force (2 N)
    for it. We see 190 eps, 1.1e3 eps (the wire's unresolved modes, omega h >> 1, carry the
    most), 0.04 eps and 6.0e2 eps of these scales."""
    py, cc, reports = fast_runs
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0
    lay = py.system.layout
    q_py = np.array([a.q for a, _ in reports])
    q_cc = np.array([b.q for _, b in reports])
    deflection = np.abs(q_py[:, lay.flexible]).max()
    assert deflection > 1e-4  # the wire deflects under the running point
    assert np.abs(q_py - q_cc).max() <= 1e4 * EPS * deflection
    u_py = np.array([a.u for a, _ in reports])
    u_cc = np.array([b.u for _, b in reports])
    for part in (lay.flexible, lay.tree):  # the wire's velocities, the point's
        speed = np.abs(u_py[:, part]).max()
        assert np.abs(u_py[:, part] - u_cc[:, part]).max() <= 1e4 * EPS * speed
    f_py = np.array([a.contacts[0].normal_force for a, _ in reports])
    f_cc = np.array([b.contacts[0].normal_force for _, b in reports])
    assert np.abs(f_py - f_cc).max() <= 1e4 * EPS * np.abs(f_py).max()
    assert [a.n_newton for a, _ in reports] == [b.n_newton for _, b in reports]


def test_newton_converges_quadratically_on_the_fast_slide(fast_runs):
    """With the exact Newton matrix the iteration converges quadratically: from the predicted
    accelerations, one iterate to reach the step's solution, one to see its correction at the
    round-off level, one to confirm the multipliers' error: at most three per step, and no step
    halved. Measured before the terms were in the compiled step: 10.4 iterations per step (11
    at most, none halved) on the compiled step and the same on the Python step (which then had
    them only with a unilateral contact on linear beams): the iteration converged linearly;
    with them 3 in every step on both."""
    py, cc, reports = fast_runs
    for stepper in (py, cc):
        per_step = [r.n_newton for r in (a if stepper is py else b for a, b in reports)]
        assert max(per_step) <= 3
        assert stepper.n_halved == 0
