"""Dissipation invariants of the steppers: friction and impacts never give energy back, and the
generalised-alpha scheme's own loss (``dissipated_numerical``) is booked from the scheme.

Models: a disk rolling on a simply supported beam (Unilateral(mu), beam starting undeformed,
so that it sags under the disk and the disk rattles, sticks and slips on it) and a pendulum
whose tip hits a cantilever (e_N = 0.8, oblique), for mu in {0, 0.1, 0.4}, with both steppers.
"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact.elements.beam import BeamSpec
from fe_contact.model import Circle, ContactPair, Model, Point, Unilateral
from fe_contact.multibody.builders import floating_body
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.steppers.alpha import alpha_parameters
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

STEEL = dict(youngs_modulus=2.1e11)


def disk_on_simply_supported_beam(mu: float):
    """A 0.5 kg disk (R = 5 cm) rolling at 1 m/s on a 1 m pinned-pinned steel strip
    (20 x 5 mm, 8 elements) that starts undeformed: the beam sags under the disk."""
    beam = BeamSpec(length=1.0, density=7800.0, width=0.02, height=0.005, n_elements=8,
                    left="pinned", right="pinned", **STEEL)  # fmt: skip
    radius, mass = 0.05, 0.5
    model = Model(
        tree=floating_body(mass, 0.5 * mass * radius**2),
        structures={"beam": beam},
        contacts=(ContactPair("disk", Circle(2, radius), "beam", Unilateral(mu)),),
    )
    system = assemble(model)
    q0, u0 = system.initial_state([0.2, radius + 1e-3, 0.0], [1.0, 0.0, -1.0 / radius])
    return system, q0, u0


def pendulum_on_cantilever(mu: float, e: float = 0.8):
    """A 0.1 kg rod pendulum (0.25 m, pivot at (0.1, 0.2) m) released horizontally; its tip
    hits the weightless cantilever strip of Lipinski (002) at x = 0.25 m, obliquely (normal
    and tangential velocity 0.6 : 0.8), with Newton's e_N = e."""
    beam = BeamSpec(length=0.4, density=4.7e3, width=0.01, height=0.0015, n_elements=6,
                    **STEEL)  # fmt: skip
    length, mass = 0.25, 0.1
    tree = TreeModel(
        bodies=(Body(mass, mass * length**2 / 12, (length / 2, 0.0)),),
        joints=(Joint("revolute", None, location=(0.1, 0.2), angle=-np.pi / 2),),
    )
    model = Model(
        tree=tree,
        structures={"beam": beam},
        contacts=(ContactPair("tip", Point(0, (length, 0.0)), "beam", Unilateral(mu, e)),),
        structure_gravity=False,
    )
    system = assemble(model)
    q0, u0 = system.initial_state([np.pi / 2], [0.0])
    return system, q0, u0


# (model, t_end s): the disk lands at 0.02 s and rattles; the pendulum's tip hits at 0.18 s
CASES = {"disk": (disk_on_simply_supported_beam, 0.08), "pendulum": (pendulum_on_cantilever, 0.3)}


@pytest.mark.slow
@pytest.mark.parametrize("method", ["generalized-alpha", "moreau"])
@pytest.mark.parametrize("mu", [0.0, 0.1, 0.4])
@pytest.mark.parametrize("case", sorted(CASES))
def test_friction_and_impacts_dissipate_in_every_step(case, mu, method):
    """Generalised-alpha: the per-step increments of dissipated_friction and dissipated_impact
    are >= -1e-12 J (a round-off bound: 1e4 eps times the 0.1-0.4 J of mechanical energy of
    the runs, for the sums of products of forces and velocities that form them).

    Moreau-Jean books the contact work of a step by the midpoint rule, -P (g'_A + g'_E) / 2,
    which the scheme's balance needs to close exactly (theta = 1/2); a step in which a
    contact that was separating at its start carries an impulse books P_N g'_N,A / 2 > 0
    against itself (``steppers.moreau``): measured down to -1.4e-5 J in one step of the disk.
    So for Moreau-Jean the running totals are >= -1e-12 J and dissipated_numerical is 0; the
    balance closes to 1e-12 J (round-off of the 0.4 J of the run) for the disk, whose mass
    matrix is constant, and to 1e-6 J for the pendulum (the midpoint rule on its rotating
    inertia errs by O(h^2): 7.9e-7 J of its 0.1 J at h = 1e-3 s)."""
    build, t_end = CASES[case]
    system, q0, u0 = build(mu)
    res = simulate(system, (0.0, t_end), (q0, u0), method=method, h=1e-3)
    assert res.status == "finished", res.message
    assert res["dissipated_impact"][-1] > 0.0  # it did hit
    for key in ("dissipated_friction", "dissipated_impact"):
        if method == "moreau":
            assert res[key].min() >= -1e-12, (key, res[key].min())
        else:
            steps = np.diff(res[key])
            assert steps.min() >= -1e-12, (key, steps.min(), res.t[1 + np.argmin(steps)])
    if mu == 0.0:
        assert np.all(res["dissipated_friction"] == 0.0)
    if method == "moreau":
        assert np.all(res["dissipated_numerical"] == 0.0)
        bound = 1e-12 if case == "disk" else 1e-6
        assert np.max(np.abs(res["energy_error"])) < bound


def free_beam(rho_inf: float, h: float, t_end: float = 0.05):
    """The cantilever strip with a random initial velocity (all its modes, up to omega h >> 1)
    and no gravity: a linear free vibration."""
    beam = BeamSpec(length=0.4, density=4.7e3, width=0.01, height=0.0015, n_elements=6,
                    **STEEL)  # fmt: skip
    tree = TreeModel(
        bodies=(Body(0.1, 1e-3),),
        joints=(Joint("revolute", location=(1.0, 1.0)),),
        gravity=(0.0, 0.0),
    )
    system = assemble(Model(tree=tree, structures={"beam": beam}, gravity=(0.0, 0.0)))
    q0, u0 = system.initial_state([0.0], [0.0])
    u0[system.layout.flexible] = 0.05 * np.random.default_rng(0).normal(
        size=system.layout.n_flexible
    )
    return simulate(system, (0.0, t_end), (q0, u0), h=h, rho_inf=rho_inf)


def test_numerical_dissipation_is_zero_for_rho_1_and_closes_a_free_vibration():
    """rho_inf = 1 (the trapezoidal rule): no numerical dissipation (to 1e-18 J, round-off of
    products of 1e-5 J-scale terms); rho_inf = 0.9 and 0.5 damp the beam's unresolved modes:
    dissipated_numerical > 0 at the end, growing with the damping, and the balance closes to
    1e-15 J (round-off of the 1e-5 J of the run) because in a free vibration of a linear
    system the scheme's loss is the energy change itself. Per step the loss is not of one
    sign (the energy of a resolved mode wobbles within a period while it decays: see the
    single-oscillator test), but over the run it is positive."""
    e0 = None
    totals = {}
    for rho in (1.0, 0.9, 0.5):
        res = free_beam(rho, 1e-4)
        assert res.status == "finished", res.message
        e0 = res["kinetic_energy"][0] if e0 is None else e0
        assert np.max(np.abs(res["energy_error"])) < 1e-15 * max(1.0, e0 / 1e-5)
        totals[rho] = res["dissipated_numerical"][-1]
    assert abs(totals[1.0]) < 1e-18
    assert 0.0 < totals[0.9] < totals[0.5] < e0


def oscillator_by_hand(rho_inf: float, omega_h: float, n: int) -> np.ndarray:
    """The energy E_k = (v^2 + x^2) / 2 of x'' + x = 0 (m = k = 1, x0 = 1, v0 = 0.3) under the
    generalised-alpha recurrence in the Arnold-Bruls form, written out here: solve
    x''_n+1 + x_n+1 = 0 with x_n+1 = x_n + h v_n + h^2 ((1/2 - beta) a_n + beta a_n+1) and
    (1 - alpha_m) a_n+1 + alpha_m a_n = (1 - alpha_f) x''_n+1 + alpha_f x''_n."""
    p = alpha_parameters(rho_inf)
    h = omega_h
    c = (1 - p.alpha_f) / (1 - p.alpha_m)
    x, v = 1.0, 0.3
    acc = a = -x
    energy = [0.5 * (v * v + x * x)]
    for _ in range(n):
        d = (p.alpha_f * acc - p.alpha_m * a) / (1 - p.alpha_m)
        acc1 = -(x + h * v + h * h * ((0.5 - p.beta) * a + p.beta * d)) / (1 + h * h * p.beta * c)
        a1 = c * acc1 + d
        x, v = (
            x + h * v + h * h * ((0.5 - p.beta) * a + p.beta * a1),
            v + h * ((1 - p.gamma) * a + p.gamma * a1),
        )
        acc, a = acc1, a1
        energy.append(0.5 * (v * v + x * x))
    return np.array(energy)


@pytest.mark.parametrize("rho_inf", [0.9, 0.5, 0.0])
@pytest.mark.parametrize("omega_h", [0.3, 10.0])
def test_numerical_dissipation_of_one_oscillator_is_its_energy_decay(rho_inf, omega_h):
    """A point mass (1 kg) on a spring (1 N/m: a prismatic joint's spring, omega = 1 rad/s):
    dissipated_numerical step by step equals E_n - E_n+1 of the recurrence done by hand
    (oscillator_by_hand), to 1e-13 of the initial energy (round-off of 60 steps)."""
    n = 60
    tree = TreeModel(
        bodies=(Body(1.0, 0.0),), joints=(Joint("prismatic", stiffness=1.0),), gravity=(0.0, 0.0)
    )
    system = assemble(Model(tree=tree, gravity=(0.0, 0.0)))
    res = simulate(system, (0.0, n * omega_h), (np.array([1.0]), np.array([0.3])),
                   h=omega_h, rho_inf=rho_inf)  # fmt: skip
    assert res.status == "finished", res.message
    energy = oscillator_by_hand(rho_inf, omega_h, n)
    decay = energy[0] - energy
    assert res.t.size == n + 1
    np.testing.assert_allclose(res["dissipated_numerical"], decay, rtol=0, atol=1e-13 * energy[0])
    assert decay[-1] > 0.0  # it does decay (rho_inf < 1)


def test_balance_error_falls_at_order_2_with_numerical_dissipation_booked():
    """A pendulum (rod, 0.1 kg, 0.25 m) swinging on a joint spring, with rho_inf = 0.9: the
    numerical dissipation is booked, so the largest balance error over 0.3 s is the
    trapezoidal work of gravity and the spring: order 2 in h (ratio 4 +- 1 per halving)."""
    length, mass = 0.25, 0.1
    tree = TreeModel(
        bodies=(Body(mass, mass * length**2 / 12, (length / 2, 0.0)),),
        joints=(Joint("revolute", location=(0.0, 0.0), stiffness=0.5, damping=0.002),),
    )
    system = assemble(Model(tree=tree))
    errors = []
    for h in (4e-3, 2e-3, 1e-3):
        res = simulate(system, (0.0, 0.3), (np.array([0.3]), np.array([0.0])), h=h)
        assert res.status == "finished", res.message
        assert res["dissipated_numerical"][-1] != 0.0
        errors.append(np.max(np.abs(res["energy_error"])))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 3.0) & (ratios < 5.0)), (errors, ratios)
