"""Modified coordinate partitioning (Lipinski (002), sec. 8) against the augmented system.

Both solve M q'' + F = J_Sigma^T lambda, J q'' + A = 0, by different algebra (dense B1..B5
elimination versus a sparse LU of [[M, -J_Sigma^T], [J, 0]]); at well-conditioned states they must
agree to round-off, so 1e-10 relative is a fair bound.
"""

import dataclasses

import numpy as np
import pytest

from fe_contact.coupling.contact import ContactSpec
from fe_contact.coupling.partition import (
    PainleveError,
    augmented_accelerations,
    choose_dependent,
    make_partition,
    partitioned_accelerations,
    recover_dependent,
)
from fe_contact.elements.beam import BeamSpec, assemble_beam, evaluate
from fe_contact.integrate.genalpha import integrate
from fe_contact.multibody.drive import Drive
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel, point_position
from fe_contact.system import LoopClosure, Model, assemble, evaluate_state

BEAM = BeamSpec(
    length=0.4,
    n_elements=6,
    youngs_modulus=2.1e11,
    density=4.7e3,
    width=0.01,
    height=0.0015,
    rayleigh_beta=1e-5,
)


def chain_tree():
    bodies = tuple(Body(0.3 + 0.1 * i, 0.002 + 0.001 * i, (0.05, 0.01)) for i in range(6))
    joints = (Joint("revolute", location=(0.0, 0.3), stiffness=5.0, damping=0.05),) + tuple(
        Joint(
            "prismatic" if i == 3 else "revolute",
            parent=i - 1,
            location=(0.1, 0.0),
            angle=0.2 * i,
            stiffness=2.0,
        )
        for i in range(1, 6)
    )
    return TreeModel(
        bodies=bodies, joints=joints, points={"tip": (5, (0.1, 0.0)), "elbow": (2, (0.1, 0.0))}
    )


def consistent_system(seed, mu):
    rng = np.random.default_rng(seed)
    tree = chain_tree()
    q_b = rng.uniform(-0.6, 0.6, 6)
    beam0 = assemble_beam(BEAM)
    q_full = 1e-4 * rng.normal(size=beam0.n_dofs)  # a physically sized deflection
    q_full[beam0.fixed_dofs] = 0.0
    xi = 0.21
    p = point_position(tree, q_b, 5, (0.1, 0.0))
    w = evaluate(beam0, q_full, [xi]).deflection[0]
    origin = p - xi * beam0.t0 - w * beam0.n0
    beam = dataclasses.replace(BEAM, origin=tuple(origin))
    elbow = point_position(tree, q_b, 2, (0.1, 0.0))
    rate = 0.7
    model = Model(
        tree=tree,
        beam=beam,
        contacts=(ContactSpec(body=5, point="tip", mu=mu),),
        drives=(Drive.constant_velocity(1, q_b[1], rate),),
        loops=(LoopClosure(body_a=2, point_a="elbow", body_b=None, point_b=tuple(elbow)),),
    )
    system = assemble(model)
    q = np.concatenate([q_b, q_full[system.beam.free_dofs]])
    u = rng.normal(size=system.layout.n)
    u[system.layout.beam] *= 1e-2
    u[1] = rate
    ev = evaluate_state(system, q, u, 0.0, constraints_only=True)
    part = make_partition(system, choose_dependent(ev.jac[:, system.layout.tree]))
    q, u = recover_dependent(system, part, q, u, 0.0)
    return system, part, q, u


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mu", [0.0, 0.3])
def test_partitioned_equals_augmented(seed, mu):
    system, part, q, u = consistent_system(seed, mu)
    ev = evaluate_state(system, q, u, 0.0)
    assert np.max(np.abs(ev.phi)) < 1e-12
    assert np.max(np.abs(ev.jac @ u + ev.phi_t)) < 1e-12
    a = partitioned_accelerations(system, ev, part)
    b = augmented_accelerations(system, ev)
    np.testing.assert_allclose(
        a.acceleration, b.acceleration, rtol=0, atol=1e-10 * np.max(np.abs(b.acceleration))
    )
    np.testing.assert_allclose(
        a.multipliers, b.multipliers, rtol=0, atol=1e-10 * np.max(np.abs(b.multipliers))
    )
    # the accelerations satisfy the acceleration-level constraints
    assert np.max(np.abs(ev.jac @ a.acceleration + ev.remainder)) < 1e-9 * np.max(
        np.abs(a.acceleration)
    )
    B1, _, _, B4, _ = a.B
    if mu == 0.0:
        np.testing.assert_allclose(B4, B1, rtol=1e-12, atol=1e-12)  # classical partitioning
    else:
        assert np.max(np.abs(B4 - B1)) > 1e-3 * np.max(np.abs(B1))  # 002: B1 != B4 with friction


def test_drive_multiplier_is_joint_torque():
    # The drive's multiplier equals the driven joint's row of M q'' + F - J_other^T lambda_other.
    system, part, q, u = consistent_system(5, 0.2)
    ev = evaluate_state(system, q, u, 0.0)
    sol = partitioned_accelerations(system, ev, part)
    M = ev.mass_tree
    lay = system.layout
    e = M @ sol.acceleration[lay.tree] + ev.forces[lay.tree]
    others = np.delete(np.arange(ev.phi.size), 1)  # row 1 is the drive (contacts first)
    torque = e[1] - ev.jac_sigma[others][:, 1] @ sol.multipliers[others]
    assert sol.multipliers[1] == pytest.approx(torque, rel=1e-10)


def painleve_rod(mu):
    """Painleve's rod on a carriage: a 0.1 kg carriage slides along x carrying the hinge of a
    0.5 kg, 0.3 m rod whose tip rests on a massive rail 0.299 m below, the rod nearly vertical.

    The carriage moves along +x, so friction on the tip acts along -x and turns the rod into the
    rail. Hand computation for the tree alone: M = [[0.6, 0.07475], [0.07475, 0.015]], J = [0,
    0.0245], J_Sigma = [-mu, 0.0245 - 0.299 mu], so J M^-1 J_Sigma^T ~ 0.0147 - 0.1046 mu changes
    sign at mu = 0.1405; the rail's small compliance adds a positive term (critical mu a bit above).
    """
    tree = TreeModel(
        bodies=(Body(0.1, 1e-4), Body(0.5, 0.5 * 0.3**2 / 12, (0.15, 0.0))),
        joints=(Joint("prismatic"), Joint("revolute", parent=0)),
        points={"tip": (1, (0.3, 0.0))},
    )
    theta = -np.arcsin(0.299 / 0.3)
    # a massive rail (705 kg/m): a light beam's own mobility keeps J M^-1 J_Sigma^T positive
    beam = BeamSpec(
        length=0.4,
        n_elements=4,
        youngs_modulus=2.1e11,
        density=4.7e7,
        width=0.01,
        height=0.0015,
        origin=(-0.1, -0.299),
    )
    model = Model(
        tree=tree,
        beam=beam,
        contacts=(ContactSpec(body=1, point="tip", mu=mu),),
        beam_gravity=False,
    )
    system = assemble(model)
    q0 = np.zeros(system.layout.n)
    q0[1] = theta
    u0 = np.zeros(system.layout.n)
    u0[0] = 1.0
    return system, q0, u0


def test_excessive_friction_raises_painleve_error():
    system, q0, u0 = painleve_rod(mu=1.0)
    with pytest.raises(PainleveError, match="Painleve"):
        integrate(system, (0.0, 0.01), q0, u0, h=1e-4, progress=False)


def test_moderate_friction_on_rod_runs():
    system, q0, u0 = painleve_rod(mu=0.05)  # below the critical 0.082
    res = integrate(system, (0.0, 0.002), q0, u0, h=1e-4, progress=False)
    assert res.status in ("finished", "event"), res.message
