"""The Stribeck law with a viscous term (``laws.Stribeck``) against its closed form:

    F_t = -(mu_k + (mu_s - mu_k) exp(-(v / v_s)^2)) F_n sign(v) (1 - exp(-|v| / v0)) - c_v v

(the Coulomb-Stribeck part regularised at rest as Bauchau's (000) eq. (10), the viscous part
c_v v smooth already). A block of weight m g held in place on a belt that runs at the constant
speed V slips at v = -V relative to it: in the steady state its normal force is m g and the
force that holds it is -F_t(-V) of that formula, whatever the dynamics that lead there.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fe_contact import (
    Body,
    ContactPair,
    Drive,
    Joint,
    Line,
    Model,
    Point,
    TreeModel,
    assemble,
    simulate,
)
from fe_contact.io.model_file import load_model, model_text, save_model
from fe_contact.laws import STEPPERS, Stribeck

M, G = 0.5, 9.81  # kg, m/s^2
# the regularisation's v0 = v_s / 10 (steeper ones: test_a_steep_regularisation_converges)
MU_K, MU_S, V_S, C_V, V0 = 0.2, 0.5, 0.1, 0.8, 1e-2  # -, -, m/s, N s/m, m/s
LAW = Stribeck(MU_K, MU_S, V0, v_s=V_S, c_v=C_V)


def friction(v: float, normal: float) -> float:
    """The formula above, typed from the definition (not from the law's code)."""
    mu = MU_K + (MU_S - MU_K) * math.exp(-((v / V_S) ** 2))
    return -mu * normal * math.copysign(1.0, v) * (1.0 - math.exp(-abs(v) / V0)) - C_V * v


def block_on_belt(speed: float, law=LAW) -> Model:
    """Body 0 the belt (prismatic x, driven at ``speed``), body 1 the block's carriage
    (prismatic x, held at x = 0 by a drive), body 2 the block (prismatic y) pressed on the
    belt's top face by its weight."""
    tree = TreeModel(
        bodies=(Body(1.0, 0.0), Body(0.0, 0.0), Body(M, 0.0)),
        joints=(
            Joint("prismatic", name="belt"),
            Joint("prismatic", name="block_x"),
            Joint("prismatic", parent=1, angle=np.pi / 2, name="block_y"),
        ),
        gravity=(0.0, -G),
    )
    belt = Line((0.0, 0.0), (0.0, 1.0), body=0)
    return Model(
        tree=tree,
        contacts=(ContactPair("block", Point(body=2), belt, law),),
        drives=(Drive.constant_velocity(0, 0.0, speed), Drive.constant_velocity(1, 0.0, 0.0)),
    )


def block_on_floor(law=LAW) -> Model:
    """A block (prismatic x, then y) on a fixed horizontal line."""
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(M, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
        gravity=(0.0, -G),
    )
    floor = Line((0.0, 0.0), (0.0, 1.0))
    return Model(tree=tree, contacts=(ContactPair("block", Point(body=1), floor, law),))


@pytest.mark.parametrize("speed", [0.005, 0.1, 0.5])  # in the rise, the Stribeck fall, beyond
def test_block_on_a_moving_belt_feels_the_formula(speed, measured):
    """Over 20 steps of 1e-3 s (the block is held, so the state is steady from the start): the
    normal force is m g, the friction column and the force of the drive that holds the block
    equal the formula at v = -V to 1e-9 relative (the Newton tolerance rtol = 1e-10 of the
    forces and the round-off of the constraint solve; the law is evaluated in one place, the
    holding force comes out of the equations of motion)."""
    system = assemble(block_on_belt(speed))
    q0, u0 = system.initial_state(q_tree=[0.0, 0.0, 0.0], u_tree=[speed, 0.0, 0.0])
    result = simulate(system, (0.0, 0.02), (q0, u0), h=1e-3, method="generalized-alpha")
    assert result.status == "finished", result.message
    expected = friction(-speed, M * G)
    scale = MU_S * M * G
    assert np.max(np.abs(result["block_normal_force"] - M * G)) < 1e-9 * M * G
    assert np.max(np.abs(result["block_slip_velocity"] + speed)) < 1e-12
    measured(
        "friction force on the block",
        np.max(np.abs(result["block_friction_force"] - expected)),
        1e-9 * scale,
        unit="N",
        reference="the Stribeck curve at the belt's speed, written out",
    )
    # drive_1 holds the block against the friction; drive_0 keeps the belt at V against it
    assert np.max(np.abs(result["drive_1_force"] + expected)) < 1e-9 * scale
    assert np.max(np.abs(result["drive_0_force"] - expected)) < 1e-9 * scale


def test_every_stepper_that_takes_the_law_runs_it_and_the_others_refuse_it():
    """The law says which steppers take it (generalised-alpha, in Python: the compiled kernels
    and the Moreau-Jean contact problem have Coulomb's constant mu); the others refuse the
    model with an error naming the contact."""
    assert LAW.steppers == {"generalized-alpha"} and not LAW.compiled
    system = assemble(block_on_floor())
    q0, u0 = system.initial_state(q_tree=[0.0, 0.0], u_tree=[0.2, 0.0])
    for method in STEPPERS:
        if method in LAW.steppers:
            result = simulate(system, (0.0, 2e-3), (q0, u0), h=1e-3, method=method)
            assert result.status == "finished"
        else:
            with pytest.raises(ValueError, match="block"):
                simulate(system, (0.0, 2e-3), (q0, u0), h=1e-3, method=method)


def test_derivatives_match_finite_differences():
    """d(F_t / F_n) / dv (``friction_slope``) and dF_v / dv (``viscous_force``) against central
    differences of step 1e-8 m/s (1e-6 v0): truncation (dv / v0)^2 ~ 1e-12 of the slope,
    round-off eps / dv ~ 2e-8 of the factor: 1e-6 of the slope's scale mu_s / v0 admits both."""
    dv = 1e-8
    for v in (-0.5, -0.12, -0.03, -1e-3, 3e-3, 0.04, 0.1, 0.6):
        difference = (LAW.friction_factor(v + dv) - LAW.friction_factor(v - dv)) / (2 * dv)
        assert abs(LAW.friction_slope(v) - difference) < 1e-6 * MU_S / V0, v
        f_v, slope = LAW.viscous_force(v)
        assert f_v == -C_V * v
        difference = (LAW.viscous_force(v + dv)[0] - LAW.viscous_force(v - dv)[0]) / (2 * dv)
        assert abs(slope - difference) < 1e-6 * C_V, v
        # the two parts make the formula (its F_n-scaled part at F_n = 1 N and 7 N)
        for normal in (1.0, 7.0):
            total = -LAW.friction_factor(v) * normal + f_v
            assert abs(total - friction(v, normal)) < 8 * np.finfo(float).eps * MU_S * normal


def test_friction_power_is_never_positive():
    """F_t v <= 0 for every slip velocity and normal force (the law), and, in a run where the
    block is launched along a fixed line and slows through the Stribeck fall to rest (0.3 s),
    the friction power column is <= 0 at every step, the dissipated friction never decreases and
    the balance closes to 1e-3 of the kinetic energy lost (measured 9e-5: the trapezoidal
    booking of a power that falls to 0 in the creep on the time scale v0 / (mu_s g) = 2 ms,
    two steps)."""
    for v in np.concatenate((-np.logspace(-6, 1, 30), np.logspace(-6, 1, 30))):
        for normal in (0.0, 0.1, 10.0):
            assert friction(v, normal) * v <= 0.0
            assert (-LAW.friction_factor(v) * normal + LAW.viscous_force(v)[0]) * v <= 0.0
    system = assemble(block_on_floor())
    q0, u0 = system.initial_state(q_tree=[0.0, 0.0], u_tree=[0.2, 0.0])
    result = simulate(system, (0.0, 0.3), (q0, u0), h=1e-3)
    assert result.status == "finished", result.message
    assert result["joint_0_u"][-1] < 1e-6  # it came to (a creeping) rest
    assert np.all(result["friction_power"] <= 0.0)
    assert np.all(np.diff(result["dissipated_friction"]) >= 0.0)
    loss = 0.5 * M * 0.2**2
    assert np.max(np.abs(result["energy_error"])) < 1e-3 * loss


@pytest.mark.parametrize("v0", [1e-3, 1e-4])
def test_a_steep_regularisation_converges(v0):
    """The block launched at 0.2 m/s comes to rest under a law whose slope at rest
    mu_s F_n / v0 makes h mu_s g / v0 = 4.9 and 49 at h = 1e-3 s: the step's iteration matrix
    holds that slope (with it out, the iteration diverged at 4.9 near v = 3e-6 m/s), and the
    balance closes to 1e-3 of the kinetic energy lost (measured 1.1e-4, the trapezoidal
    booking of the friction power)."""
    law = Stribeck(MU_K, MU_S, v0, v_s=0.05, c_v=C_V)
    system = assemble(block_on_floor(law))
    q0, u0 = system.initial_state(q_tree=[0.0, 0.0], u_tree=[0.2, 0.0])
    result = simulate(system, (0.0, 0.3), (q0, u0), h=1e-3)
    assert result.status == "finished", result.message
    assert abs(result["joint_0_u"][-1]) < 1e-9
    assert np.all(result["friction_power"] <= 0.0)
    loss = 0.5 * M * 0.2**2
    assert np.max(np.abs(result["energy_error"])) < 1e-3 * loss


def test_the_law_is_written_and_read_in_model_files(tmp_path):
    model = block_on_belt(0.05)
    assert 'law = "stribeck"' in model_text(model)
    assert load_model(save_model(model, tmp_path / "belt.toml")).model == model


def test_bad_parameters_are_refused_naming_them():
    with pytest.raises(ValueError, match=r"Stribeck\.v0"):
        Stribeck(0.2, 0.5, v_s=0.05)
    with pytest.raises(ValueError, match=r"Stribeck\.v_s"):
        Stribeck(0.2, 0.5, 1e-3)
    with pytest.raises(ValueError, match=r"Stribeck\.c_v"):
        Stribeck(0.2, 0.5, 1e-3, v_s=0.05, c_v=-1.0)
    with pytest.raises(ValueError, match=r"mu_s"):
        Stribeck(0.5, 0.2, 1e-3, v_s=0.05)
