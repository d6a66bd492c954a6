"""Step-halving sequences of the generalised-alpha stepper at its default tolerances: the errors
against an independent or a fine reference fall at the stepper's order 2 (a ratio of 4 per
halving) down to 1e-10 and below, so that a smaller step never gives a worse result.

This holds only when the Newton iteration of a step is converged to well below the
discretisation error: a test on the position correction alone stops too early when h is small
(it allows acceleration errors ~ tol / h^2), and the error then grows again as h falls.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from test_stick_slip import OMEGA, G, K, M, block_on_spring

from fe_contact.model import Model
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.multibody.tree_dynamics import bias_forces, mass_matrix
from fe_contact.papers.lipinski import (
    cantilever_strip,
    sliding_mass_initial_state,
    sliding_mass_model,
)
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble


def assert_second_order(measured, quantity, errors, floor, unit, reference):
    """Each halving divides the error by 4 (within 3 %) until it reaches ``floor``, and no
    halving makes it larger; both recorded through ``measured`` as ``quantity``."""
    errors = np.asarray(errors)
    assert np.all(np.diff(errors) < 0.0), errors
    ratios = errors[:-1] / errors[1:]
    measured.each(
        f"{quantity}: error ratio per halving, distance from 4",
        np.abs(ratios - 4.0),
        0.12,
        reference="second order: 4 per halving of h",
    )
    measured(f"{quantity}: finest step's error", errors[-1], floor, unit=unit, reference=reference)


def three_link_chain() -> TreeModel:
    """Three hinged links (0.2 m apart, masses 1.0, 0.8, 0.6 kg, centres 0.1 m along each link,
    I_c = 0.01 kg m^2) hanging from the origin under gravity."""
    bodies = tuple(Body(1.0 - 0.2 * i, 0.01, (0.1, 0.0)) for i in range(3))
    joints = (Joint("revolute"),) + tuple(
        Joint("revolute", parent=i - 1, location=(0.2, 0.0)) for i in (1, 2)
    )
    return TreeModel(bodies=bodies, joints=joints)


@pytest.mark.slow  # 9.9 s of CPU (one core), 2026-11-25
def test_chain_converges_at_second_order_down_to_1e_10(measured):
    """The chain swings for 0.05 s from q0 = (-pi/2 + 0.3, 0.2, -0.2) rad with joint rates
    (0.5, -1, 1) rad/s, with 8 ... 8192 steps. Reference: the same equations M(q) q'' + F = 0 by
    scipy's DOP853 at rtol 1e-13 (an independent integrator; its error ~1e-13 rad)."""
    tree = three_link_chain()
    system = assemble(Model(tree=tree))
    q0 = np.array([-np.pi / 2 + 0.3, 0.2, -0.2])
    u0 = np.array([0.5, -1.0, 1.0])
    t_end = 0.05

    def rhs(t, y):
        q, u = y[:3], y[3:]
        return np.concatenate([u, np.linalg.solve(mass_matrix(tree, q), -bias_forces(tree, q, u))])

    y0 = np.concatenate([q0, u0])
    reference = solve_ivp(rhs, (0, t_end), y0, method="DOP853", rtol=1e-13, atol=1e-14).y[:3, -1]
    errors = []
    for n in (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192):
        res = simulate(system, (0.0, t_end), (q0, u0), h=t_end / n)
        assert res.status == "finished", res.message
        errors.append(np.max(np.abs(res.q[-1] - reference)))
    assert errors[0] > 1e-6  # the sequence starts where the discretisation error is visible
    assert_second_order(
        measured, "chain angles", errors, 1e-10, "rad", "scipy's DOP853 at rtol 1e-13"
    )


@pytest.fixture(scope="module")
def sliding_mass():
    """The sliding mass of Lipinski (002) (mu = 0.1) on a 6-element strip with stiffness-
    proportional damping beta = 1e-4 s, which damps the unresolved highest bending modes
    (omega ~ 3e4 rad/s, zeta ~ 1.5) and leaves the first (63 rad/s, zeta = 0.003): the
    solution is then smooth at every step of the sequence, so the order shows from the start."""
    system = assemble(sliding_mass_model(0.1, beam=cantilever_strip(6, rayleigh_beta=1e-4)))
    return system, sliding_mass_initial_state(system)


def test_sliding_mass_converges_at_second_order_down_to_1e_10(sliding_mass, measured):
    """The mass slides 0.05 s with 25 ... 1600 steps; reference: the same model with 12 800
    steps (its own error is 1/64 of the finest case's, ~3e-13 m). Errors in the position of the
    mass (x and y, m) and in all beam coordinates (m, rad)."""
    system, (q0, u0) = sliding_mass
    t_end = 0.05
    reference = simulate(system, (0.0, t_end), (q0, u0), h=t_end / 12800)
    assert reference.status == "finished", reference.message
    mass, beam = [], []
    for n in (25, 50, 100, 200, 400, 800, 1600):
        res = simulate(system, (0.0, t_end), (q0, u0), h=t_end / n)
        assert res.status == "finished", res.message
        error = np.abs(res.q[-1] - reference.q[-1])
        mass.append(np.max(error[:2]))
        beam.append(np.max(error[2:]))
    assert mass[0] > 1e-7
    # the coarsest step (h = 2 ms) is still pre-asymptotic (ratio 3.5); from 50 steps on the
    # ratio is 4 within 1 %
    fine = "the same model with 12 800 steps"
    assert_second_order(measured, "sliding mass position", mass[1:], 1e-10, "m", fine)
    # the beam's slopes need omega h < 1 for the second bending mode as well: monotone
    # throughout, the ratio 4 from 200 steps on (ratios 3.0, 3.8, 4.0, 4.0, 4.0)
    assert np.all(np.diff(beam) < 0.0), beam
    assert_second_order(measured, "beam coordinates", beam[3:], 2e-9, "m, rad", fine)


def test_stick_slip_trajectory_converges_at_second_order_down_to_1e_10(measured):
    """The block on a spring (tests/test_stick_slip.py) released at rest from x0 = 1 mm with
    mu_k = 0.01, mu_s = 0.015 (m = 0.5 kg, k = 200 N/m): it slips, stops at t = pi / omega and
    reverses (a located event), and at t = 0.2 s is slipping back. Closed form: harmonic
    motion about x_c = d = mu_k m g / k, then about -d from x1 = 2 d - x0. With 50 ... 6400
    steps the error falls by 4 per halving to 2.6e-11 m: the event location keeps the order."""
    mu, mu_s, x0, t_end = 0.01, 0.015, 1e-3, 0.2
    system = block_on_spring(mu, mu_s)
    d = mu * M * G / K
    x1 = 2 * d - x0  # where it stops at pi / omega
    exact = -d + (x1 + d) * np.cos(OMEGA * (t_end - np.pi / OMEGA))
    errors = []
    for n in (50, 100, 200, 400, 800, 1600, 3200, 6400):
        res = simulate(system, (0.0, t_end), (np.array([x0, 0.0]), np.zeros(2)), h=t_end / n)
        assert res.status == "finished", res.message
        assert [kind for _, _, kind in res.events] == ["reversal"]
        errors.append(abs(res.q[-1, 0] - exact))
    assert_second_order(
        measured,
        "block position at 0.2 s",
        errors,
        1e-10,
        "m",
        "harmonic motion about -+ mu_k m g / k (closed form)",
    )
