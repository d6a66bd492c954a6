"""The gap's second derivative in q (``coupling.kinematics.gap_hessian``) against central
differences of the gap's gradient W_N, each evaluated afresh (the closest point projected
again at every perturbed state): a point on the hanging string (rho = g + R = 0), a disk of
radius R above the string (rho = R + g > 0) and a point on a deflected beam. The profile
centres move on prismatic joints or a floating body's translations, so the centre's own second
derivative, which the Hessian leaves out, is zero here and the reference is the whole Hessian.

Tolerance: central differences with step eps_q = 1e-6 err by about eps_q^2 times the third
derivative (entries up to about 1e4 1/m^2 on 1/8 m elements, so 1e-8) plus the rows'
round-off over the step (1e-16 |W_N| / 1e-6 = 1e-10 per unit entry); 1e-6 times the largest
entry bounds both with a margin of 100.
"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact import Circle, ContactPair, Model, Unilateral, assemble, simulate
from fe_contact.coupling.constraints import contact_at
from fe_contact.multibody.builders import floating_body
from fe_contact.papers.eugster_glocker import hanging_string, table1_string
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.papers.slider_on_string import Trolley, slider_on_string

EPS_Q = 1e-6


def hessian_pair(system, q, u):
    """(U C U^T, central differences of W_N) of contact 0 at q."""
    kin = contact_at(system, 0, q, u)
    U, C = kin.gap_hessian
    exact = U @ C @ U.T
    fd = np.zeros_like(exact)
    for j in range(q.size):
        e = np.zeros(q.size)
        e[j] = EPS_Q
        plus = contact_at(system, 0, q + e, u, s_guess=kin.parameter).w_normal
        minus = contact_at(system, 0, q - e, u, s_guess=kin.parameter).w_normal
        fd[:, j] = (plus - minus) / (2 * EPS_Q)
    return exact, fd, kin


def test_point_on_the_hanging_string():
    scenario = slider_on_string(Trolley())
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    exact, fd, kin = hessian_pair(system, q0, u0)
    assert abs(kin.gap) < 1e-9  # on the string: rho = 0
    scale = np.abs(fd).max()
    assert scale > 1.0  # a Hessian that matters (the curve turns under the trolley)
    np.testing.assert_allclose(exact, fd, rtol=0, atol=1e-6 * scale)


def test_disk_above_the_string():
    """rho = R + g with R = 0.1 m and a 2 cm gap: the rho terms of the Hessian (D, w w^T)."""
    radius = 0.1
    model = Model(
        tree=floating_body(1.0, 0.005),
        structures={"string": table1_string(8)},
        contacts=(ContactPair("disk", Circle(2, radius), "string", Unilateral(0.3)),),
    )
    system = assemble(model)
    lay = system.layout
    q_string = hanging_string(8)[system.structures["string"].string.free_dofs]
    q, u = system.initial_state([0.3, 0.0, 0.0])
    q[lay.structure("string")] = q_string
    below = contact_at(system, 0, q, u)  # the string under x = 0.3, then the disk 2 cm above
    q[lay.tree.start : lay.tree.start + 2] = below.point + (radius + 0.02) * below.normal
    exact, fd, kin = hessian_pair(system, q, u)
    assert abs(kin.gap - 0.02) < 1e-3
    scale = np.abs(fd).max()
    np.testing.assert_allclose(exact, fd, rtol=0, atol=1e-6 * scale)
    U, C = kin.gap_hessian
    assert abs(C[1, 1]) > 0.0  # the rho term is present


@pytest.mark.parametrize("x0", [0.1, 0.3])
def test_point_on_the_deflected_beam(x0):
    system = assemble(sliding_mass_model(n_elements=6))
    q0, u0 = sliding_mass_initial_state(system, x0=x0)
    exact, fd, _ = hessian_pair(system, q0, u0)
    scale = np.abs(fd).max()
    np.testing.assert_allclose(exact, fd, rtol=0, atol=1e-6 * scale)


def test_the_curvature_terms_make_the_trolley_step_converge_in_fewer_iterates():
    """The step's Newton iteration on the trolley sliding down the sagging string, with the
    curvature terms (``compliant.curvature_terms``, ``dependent_newton_step``'s ``curved``):
    4.61 iterates per step over 0.2 s at h = 1 ms (4.67 without ``remainder_gradient``; 5.91
    without any, when the corrections fell by a factor of about 3e-3 per iterate: linear
    convergence). 5.2 leaves a margin for the rounding of other machines; a Newton matrix
    without the terms fails it."""
    scenario = slider_on_string(Trolley())
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    result = simulate(system, (0.0, 0.2), (q0, u0), h=1e-3, rho_inf=1.0)
    assert result.status == "finished"
    assert result.n_newton / result.n_steps <= 5.2


def test_remainder_gradient_against_differences_of_the_remainder():
    """``remainder_gradient``, the part of dA/dq through the beam's curvature (of order s'^2),
    against central differences of the remainder A at fixed u (the closest point projected
    again), for the mass sliding at 30 m/s over the deflected beam. It carries A's
    q-derivative on the contact element's rotations to 2.4e-5 (measured); what it leaves
    out (the parameter's motion over w''' on the slider's own column, and the terms through
    |r'| and n) is 1.9 % of the largest entry (measured). Bounds: 1e-3 on the rotations
    (differences err by eps_q^2 times A's fourth derivative, below 1e-6 here) and 5 % on the
    whole row; zero on the tree's columns."""
    system = assemble(sliding_mass_model(n_elements=6))
    lay = system.layout
    q, u = sliding_mass_initial_state(system, x0=0.3)
    u = np.zeros_like(u)
    u[lay.tree.start] = 30.0  # the slider's speed along the beam, m/s
    kin = contact_at(system, 0, q, u)
    gradient = kin.remainder_gradient
    fd = np.zeros(q.size)
    for j in range(q.size):
        e = np.zeros(q.size)
        e[j] = EPS_Q
        plus = contact_at(system, 0, q + e, u, s_guess=kin.parameter).remainder
        minus = contact_at(system, 0, q - e, u, s_guess=kin.parameter).remainder
        fd[j] = (plus - minus) / (2 * EPS_Q)
    scale = np.abs(fd).max()
    assert scale > 1e4  # order s'^2 / element length: it matters
    main = np.abs(gradient) > 1e-3 * scale  # the rotations of the contact element's nodes
    assert main.sum() == 2
    np.testing.assert_allclose(gradient[main], fd[main], rtol=1e-3)
    assert np.abs(gradient - fd).max() <= 0.05 * scale
    assert np.all(gradient[lay.tree] == 0.0)


def test_the_pantograph_at_train_speed_converges_in_few_iterates():
    """The exact (Unilateral) contact of the pantograph head sliding at 250 km/h along a
    contact wire of 0.5 m elements: with the curvature terms and ``remainder_gradient`` in the
    Newton matrix the iteration converges quadratically, 4.0 iterates per step at h = 1 ms
    (measured; 9.9 without ``remainder_gradient``, and on 0.25 m elements every step failed
    its 12 iterates and was halved before the curvature terms were used on linear beams).
    5.0 leaves a margin for the rounding of other machines. The coordinate-partitioned form:
    the energy-consistent one (the scenario's default for the exact contact) has discrete
    gradients for rows and no curvature terms (9.1 iterates per step here)."""
    from fe_contact.papers.pantograph import KMH, pantograph_on_catenary

    v = 250.0 * KMH
    run = pantograph_on_catenary(
        1, speed=v, contact="exact", max_element_length=0.5, x_start=5.0, x_end=5.0 + 0.02 * v,
        energy_consistent=False,
    )  # fmt: skip
    result = run.run(assemble(run.model))
    assert result.status == "finished", result.message
    assert result.n_halved == 0
    assert result.n_newton / result.n_steps <= 5.0


def test_dependent_row_terms_are_the_products_with_the_dense_hessian():
    """The curvature terms of the dependent Newton step (``kernels.curvature
    .dependent_row_terms``, the Python and the compiled step's) against the dense
    H = U C U^T of the trolley on the hanging string: 1/2 dq^T H dq, (H dq)_ind . u_ind and
    (H dq)_U. Tolerance: 64 eps times the sums of the magnitudes of the products' terms
    (|U| |C| |U|^T |dq| and its products with |dq|, |u|): the sums are taken in other orders."""
    from fe_contact.kernels.curvature import dependent_row_terms

    scenario = slider_on_string(Trolley())
    system = assemble(scenario.model)
    kin = contact_at(system, 0, scenario.q0, scenario.u0)
    U, C = kin.gap_hessian
    n = U.shape[0]
    rng = np.random.default_rng(7)
    dq, u = 1e-3 * rng.standard_normal(n), rng.standard_normal(n)
    dependent = np.array([1, 5, n - 2])
    independent = np.setdiff1d(np.arange(n), dependent)
    H = U @ C @ U.T
    H_dq = H @ dq
    row = np.zeros(dependent.size)
    h_q, h_u = dependent_row_terms(
        np.ascontiguousarray(U[:, 0]),
        np.ascontiguousarray(U[:, 1]),
        np.array([C[0, 0], C[0, 1], C[1, 1]]),
        dq,
        u,
        independent,
        dependent,
        row,
    )
    abs_H_dq = np.abs(U) @ np.abs(C) @ np.abs(U).T @ np.abs(dq)
    tol = 64 * np.finfo(float).eps
    assert abs(h_q - 0.5 * dq @ H_dq) <= tol * 0.5 * (np.abs(dq) @ abs_H_dq)
    assert abs(h_u - H_dq[independent] @ u[independent]) <= tol * (
        abs_H_dq[independent] @ np.abs(u[independent])
    )
    np.testing.assert_allclose(row, H_dq[dependent], rtol=0, atol=tol * abs_H_dq.max())
    assert np.abs(H_dq).max() > 1e-6  # the trolley's curve turns: the terms are not all zero
