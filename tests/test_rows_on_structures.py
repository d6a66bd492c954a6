"""More bilateral rows than tree coordinates: the partition takes the rest from a structure.

A point mass on prismatic x and y joints, both driven (x = 0.1 m + 0.5 m/s t, y = -A t^2 / 2),
its point sliding bilaterally (mu = 0.1) on the manipulator's cantilever (002 sec. 9; EI =
0.5906 N m^2, 0.4 m, 4 elements, no self-weight): three rows on two tree coordinates. The
model used to be refused at construction; the generalised-alpha partition
(``coupling.partition.choose_dependent``) makes both joints dependent on the drives and one
beam coordinate dependent on the contact row, so the beam is pressed down along the path.
References: the rows themselves, the energy balance, and the quasi-static contact force of a
cantilever loaded at x, P = 3 EI delta / x^3 (the forcing, 0.2 s, is slow against the beam's
first mode, 63.6 rad/s).
"""

import numpy as np
import pytest

from fe_contact import (
    Body,
    ContactPair,
    Joint,
    LoopClosure,
    Model,
    Point,
    Sliding,
    TreeModel,
    assemble,
)
from fe_contact.elements.beam import BeamSpec
from fe_contact.multibody.drive import Drive
from fe_contact.steppers.simulate import simulate

PUSH = 1.0  # m/s^2: the driven y acceleration, downwards
SPEED = 0.5  # m/s along the beam


def pressed_beam(drives=True):
    tree = TreeModel(
        bodies=(Body(1e-9, 1e-12), Body(0.5, 1e-9)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )
    beam = BeamSpec(
        length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
    )
    moves = (
        Drive(0, lambda t: 0.1 + SPEED * t, lambda t: SPEED, lambda t: 0.0),
        Drive(1, lambda t: -0.5 * PUSH * t**2, lambda t: -PUSH * t, lambda t: -PUSH),
    )
    contact = ContactPair("contact", Point(1), "beam", Sliding(0.1))
    return Model(
        tree=tree,
        structures={"beam": beam},
        contacts=(contact,),
        drives=moves if drives else (),
        structure_gravity=False,
    ), beam


def test_three_rows_on_two_tree_coordinates_run_on_the_beam():
    """The run goes to 0.2 s with the rows closed (position residual below 1e-12 m, velocity
    below 1e-10 m/s: the Newton tolerances, measured 1.5e-16 m and 9.8e-13 m/s), the energy
    balance closed (to 1e-6 J of the 0.025 J friction dissipates: measured 4.3e-8 J), friction dissipating,
    and the beam pressed: the normal force at the end within 5 % of the quasi-static
    3 EI |y| / x^3 (4.43 N at x = 0.2 m, y = -0.02 m; the start excites the beam's first mode,
    which rings on: measured 1.2 % with h = 1 ms)."""
    model, beam = pressed_beam()
    system = assemble(model)
    q0, u0 = system.initial_state([0.1, 0.0])
    u0[0] = SPEED
    res = simulate(system, (0.0, 0.2), (q0, u0), h=1e-3)
    assert res.status == "finished", res.message
    assert np.max(res["residual_position"]) <= 1e-12
    assert np.max(res["residual_velocity"]) <= 1e-10
    assert abs(res["energy_error"][-1]) <= 1e-6
    assert res["dissipated_friction"][-1] > 0.0
    x, y = res.q[-1, 0], res.q[-1, 1]
    assert x == pytest.approx(0.2, abs=1e-12) and y == pytest.approx(-0.02, abs=1e-12)
    EI = beam.youngs_modulus * beam.width * beam.height**3 / 12.0
    static = 3.0 * EI * abs(y) / x**3
    assert res["contact_normal_force"][-1] == pytest.approx(static, rel=5e-2)


def test_a_model_without_structures_still_needs_a_tree_coordinate_per_row():
    """Two drives and a loop closure's two rows on a two-coordinate tree and no structure:
    refused at construction, naming the counts."""
    model, _ = pressed_beam()
    with pytest.raises(ValueError, match="4 bilateral constraint rows .* only 2 tree coordinates"):
        Model(
            tree=model.tree,
            drives=model.drives,
            loops=(LoopClosure(1, (0.0, 0.0), None, (0.1, 0.0), name="pin"),),
        )
