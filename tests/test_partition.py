"""Modified coordinate partitioning (Lipinski (002), sec. 8) against the augmented system, and the
shapes of model the one System takes: a structure alone, a chain alone, two beams in one model.

Both solvers solve M q'' + F = J_Sigma^T lambda, J q'' + A = 0, by different algebra (dense
B1..B5 elimination versus a sparse LU of [[M, -J_Sigma^T], [J, 0]]); at well-conditioned states
they must agree to round-off, so 1e-10 relative is a fair bound.
"""

import dataclasses

import numpy as np
import pytest
import scipy.sparse.linalg as spla

from fe_contact.coupling.constraints import evaluate_state
from fe_contact.coupling.partition import (
    augmented_accelerations,
    choose_dependent,
    make_partition,
    partitioned_accelerations,
    recover_dependent,
)
from fe_contact.elements.beam import BeamSpec, assemble_beam, beam_fields, natural_modes
from fe_contact.elements.string import Support
from fe_contact.model import ContactPair, LoopClosure, Model, Point, PointLoad, Sliding
from fe_contact.multibody.drive import Drive
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel, point_position
from fe_contact.papers.eugster_glocker import table1_string
from fe_contact.papers.lipinski import (
    cantilever_strip,
    sliding_mass_initial_state,
    sliding_mass_model,
)
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

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
    w = beam_fields(beam0, q_full, [xi]).deflection[0]
    origin = p - xi * beam0.t0 - w * beam0.n0
    beam = dataclasses.replace(BEAM, origin=tuple(origin))
    elbow = point_position(tree, q_b, 2, (0.1, 0.0))
    rate = 0.7
    model = Model(
        tree=tree,
        structures={"beam": beam},
        contacts=(ContactPair("tip", Point(5, "tip"), "beam", Sliding(mu)),),
        drives=(Drive.constant_velocity(1, q_b[1], rate),),
        loops=(LoopClosure(body_a=2, point_a="elbow", body_b=None, point_b=tuple(elbow)),),
    )
    system = assemble(model)
    lay = system.layout
    q = np.concatenate([q_b, q_full[system.structures["beam"].beam.free_dofs]])
    u = rng.normal(size=lay.n)
    u[lay.structure("beam")] *= 1e-2
    u[1] = rate
    ev = evaluate_state(system, q, u, 0.0, constraints_only=True)
    part = make_partition(system, choose_dependent(ev.jac[:, lay.tree]))
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


def test_recover_dependent_takes_the_callers_evaluation_as_its_first_iterate():
    system, part, q_on, u = consistent_system(0, 0.3)
    q = q_on.copy()
    q[part.dependent] += 1e-3  # off the constraints: Newton iterates from here
    ev = evaluate_state(system, q, u, 0.0, constraints_only=True)
    q_own, u_own = recover_dependent(system, part, q, u, 0.0)
    q_given, u_given = recover_dependent(system, part, q, u, 0.0, evaluation=ev)
    assert np.array_equal(q_given, q_own) and np.array_equal(u_given, u_own)
    # the evaluation is taken as it is: one on the constraints ends the iteration at once
    on = evaluate_state(system, q_on, u, 0.0, constraints_only=True)
    q_kept, _ = recover_dependent(system, part, q, u, 0.0, evaluation=on)
    assert np.array_equal(q_kept, q)


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
        structures={"rail": beam},
        contacts=(ContactPair("tip", Point(1, "tip"), "rail", Sliding(mu)),),
        structure_gravity=False,
    )
    system = assemble(model)
    q0 = np.zeros(system.layout.n)
    q0[1] = theta
    u0 = np.zeros(system.layout.n)
    u0[0] = 1.0
    return system, q0, u0


def test_excessive_friction_fails_with_the_painleve_case():
    """The tip at rest on the rail under gravity (a0 < 0) with mu = 1 above the critical
    0.14: no N >= 0 holds it, the inconsistent case, a failed result without a step."""
    system, q0, u0 = painleve_rod(mu=1.0)
    res = simulate(system, (0.0, 0.01), (q0, u0), h=1e-4)
    assert res.status == "failed" and res.t.size == 0 and res.n_steps == 0
    assert "PainleveError" in res.message and "Painleve case" in res.message, res.message


def test_moderate_friction_on_rod_runs():
    system, q0, u0 = painleve_rod(mu=0.05)  # below the critical 0.082
    res = simulate(system, (0.0, 0.002), (q0, u0), h=1e-4)
    assert res.status in ("finished", "event"), res.message


# -- one System for every shape of model --------------------------------------------------------


def _crossings(t, y):
    """Times where y changes sign (linear interpolation between the samples)."""
    k = np.flatnonzero(np.sign(y[:-1]) * np.sign(y[1:]) < 0)
    return t[k] - y[k] * (t[k + 1] - t[k]) / (y[k + 1] - y[k])


def test_beam_alone_vibrates_at_its_first_frequency():
    """A model with a structure and no tree: free vibration of the cantilever strip from its first
    mode shape (1 mm at the tip, no gravity). Its period is 2 pi / omega_1 with
    omega_1 = 1.8751^2 sqrt(EI / (rho A L^4)) = 63.6 rad/s; 10 Hermite elements err by 5e-6 and
    the stepper (rho_inf = 1, 1000 steps per period) by (omega h)^2 / 12 = 3e-6."""
    spec = cantilever_strip()
    system = assemble(Model(structures={"beam": spec}, gravity=(0.0, 0.0)))
    assert system.layout.n_tree == 0 and system.layout.n == system.layout.n_flexible
    beam = system.structures["beam"].beam
    tip = int(np.flatnonzero(beam.free_dofs == beam.basis.nodal_dofs[0, -1])[0])
    shape = natural_modes(beam, 1).shapes[beam.free_dofs, 0]
    q0 = 1e-3 * shape / shape[tip]
    omega = 1.8751**2 * np.sqrt(spec.bending_stiffness / (spec.mass_per_length * spec.length**4))
    period = 2 * np.pi / omega
    n_steps = 1000
    res = simulate(system, (0.0, period), (q0, np.zeros_like(q0)), h=period / n_steps, rho_inf=1.0)
    assert res.status == "finished", res.message
    assert res.t.size == n_steps + 1
    down, up = _crossings(res.t, res.q[:, tip])  # a quarter and three quarters of a period
    assert 2.0 * (up - down) == pytest.approx(period, rel=1e-3)
    # after one period the state is back where it started
    np.testing.assert_allclose(res.q[-1], q0, rtol=0, atol=1e-3 * np.max(np.abs(q0)))
    np.testing.assert_allclose(res.u[-1], 0.0, rtol=0, atol=1e-3 * omega * np.max(np.abs(q0)))
    assert np.max(np.abs(res["energy_error"])) < 1e-8 * res["elastic_energy"][0]


def test_string_alone_vibrates_at_the_taut_string_frequency():
    """A model with only a string: the neo-Hookean string of 004 Table 1 without gravity,
    pinned at (0, 0) and (1.2, 0), so uniformly stretched to nu = 1.2 with the tension
    T = k/3 (nu - nu^-2) = 218 N. Small transverse vibration (1e-4 m) from the first mode
    v = A sin(pi s / L): the wave equation rho0 v_tt = (T / nu) v_ss in the material
    coordinate gives omega_1 = (pi / L) sqrt(T / (nu rho0)) = 68.3 rad/s. 8 Hermite elements
    err by ~1e-6 on omega_1, the stepper (rho_inf = 1, 400 steps per period) by
    (omega h)^2 / 12 = 2e-5, the amplitude (stretching of the string) by ~A^2 / L^2."""
    stretch, amplitude = 1.2, 1e-4
    spec = dataclasses.replace(
        table1_string(8),
        gravity=(0.0, 0.0),
        supports=(Support(0.0, "pinned"), Support(1.0, "pinned", position=(stretch, 0.0))),
    )
    system = assemble(Model(structures={"string": spec}, gravity=(0.0, 0.0)))
    assert system.layout.n_tree == 0 and not system.model.contacts
    string = system.structures["string"].string
    s = string.nodes
    full = np.zeros(string.n_dofs)
    wave = np.pi / spec.length
    full[string.position_dofs[0]] = stretch * s
    full[string.position_dofs[1]] = amplitude * np.sin(wave * s)
    full[string.slope_dofs[0]] = stretch
    full[string.slope_dofs[1]] = amplitude * wave * np.cos(wave * s)
    q0 = full[string.free_dofs]
    tension = spec.law.tension(stretch)
    omega = wave * np.sqrt(tension / (stretch * spec.density))
    period = 2 * np.pi / omega
    res = simulate(
        system, (0.0, 1.5 * period), (q0, np.zeros_like(q0)), h=period / 400, rho_inf=1.0
    )
    assert res.status == "finished", res.message
    middle = int(np.flatnonzero(string.free_dofs == string.position_dofs[1, 4])[0])  # s = L/2
    down, up = _crossings(res.t, res.q[:, middle])[:2]
    assert 2.0 * (up - down) == pytest.approx(period, rel=1e-4)
    # the balance closes to round-off of the 15 J of stretch energy, far below the 3e-6 J
    # of the vibration
    assert np.max(np.abs(res["energy_error"])) < 1e-6 * res["kinetic_energy"].max()


def test_chain_alone_swings_at_the_pendulum_period():
    """A model with a tree and no structure: a physical pendulum (m = 1 kg, centre of mass
    d = 0.2 m from the pivot, I_c = 0.01 kg m^2) released from 0.05 rad. Small-angle period
    T0 = 2 pi sqrt(I_O / (m g d)) = 1.003 s, I_O = I_c + m d^2; the amplitude lengthens it by
    T0 (theta0^2 / 16 + 11 theta0^4 / 3072) = 1.6e-4 T0, the stepper (h = 1 ms) by 3e-6 T0."""
    m, d, inertia, theta0, g = 1.0, 0.2, 0.01, 0.05, 9.81
    tree = TreeModel((Body(m, inertia, (d, 0.0)),), (Joint("revolute", angle=-np.pi / 2),))
    system = assemble(Model(tree=tree))
    assert system.layout.n_flexible == 0 and not system.structures
    period0 = 2 * np.pi * np.sqrt((inertia + m * d * d) / (m * g * d))
    res = simulate(
        system, (0.0, 2.1 * period0), (np.array([theta0]), np.zeros(1)), h=1e-3, rho_inf=1.0
    )
    assert res.status == "finished", res.message
    first, _, third = _crossings(res.t, res.q[:, 0])[:3]
    correction = theta0**2 / 16 + 11 * theta0**4 / 3072
    assert abs((third - first) / period0 - 1.0) < 2.0 * correction  # the small-angle period
    assert (third - first) / period0 - 1.0 == pytest.approx(correction, abs=1e-5)
    assert np.max(np.abs(res["energy_error"])) < 1e-8


def two_beam_model(second: bool, load: float = 1.0):
    """The sliding mass on ``beam`` (no self-weight) and, when ``second``, a second strip
    ``other`` 0.2 m below it with a point load ``load`` N down at its tip."""
    model = sliding_mass_model(0.1, 10, structure_gravity=False)
    if not second:
        return model
    other = cantilever_strip(8, origin=(0.0, -0.2))
    return dataclasses.replace(
        model,
        structures={**model.structures, "other": other},
        loads=(PointLoad("other", 0.4, (0.0, -load)),),
    )


def test_two_beams_assemble_block_diagonal():
    one = assemble(two_beam_model(False))
    two = assemble(two_beam_model(True))
    lay = two.layout
    assert lay.structure_names == ("beam", "other")
    first, second = lay.structure("beam"), lay.structure("other")
    single = assemble_beam(cantilever_strip())
    other = assemble_beam(cantilever_strip(8, origin=(0.0, -0.2)))
    assert (first.start, first.stop) == (2, 2 + single.free_dofs.size)
    assert (second.start, second.stop) == (first.stop, first.stop + other.free_dofs.size)
    assert lay.flexible == slice(2, second.stop) and lay.n == second.stop
    M = two.mass_flexible.toarray()
    a = slice(first.start - 2, first.stop - 2)
    b = slice(second.start - 2, second.stop - 2)
    np.testing.assert_array_equal(M[a, a], single.reduced("mass").toarray())
    np.testing.assert_array_equal(M[b, b], other.reduced("mass").toarray())
    assert not np.any(M[a, b]) and not np.any(M[b, a])
    np.testing.assert_array_equal(M[a, a], one.mass_flexible.toarray())
    K = two.stiffness_flexible.toarray()
    np.testing.assert_array_equal(K[b, b], other.reduced("stiffness").toarray())
    assert not np.any(K[a, b]) and not np.any(K[b, a])


def test_loaded_second_beam_deflects_and_leaves_the_slide_alone():
    """The loaded strip deflects P L^3 / (3 EI) at its tip (Hermite cubics are exact for a tip
    load), and the sliding mass on the first strip moves exactly as without the second one."""
    P = 1.0
    two = assemble(two_beam_model(True, P))
    lay = two.layout
    q_f = spla.spsolve(two.stiffness_flexible.tocsc(), two.load_flexible)
    off = lay.n_tree
    first, second = lay.structure("beam"), lay.structure("other")
    assert not np.any(q_f[first.start - off : first.stop - off])  # no load on the first strip
    q_other = q_f[second.start - off : second.stop - off]
    spec = two.model.structures["other"]
    tip = two.structures["other"].curve(spec.length, q_other).position
    expected = P * spec.length**3 / (3 * spec.bending_stiffness)
    assert tip[1] - (-0.2) == pytest.approx(-expected, rel=1e-10)
    # the slide with the second strip at rest in its static deflection
    one = assemble(two_beam_model(False))
    q1, u1 = sliding_mass_initial_state(one)
    q2, u2 = two.initial_state()
    q2[: first.stop], u2[: first.stop] = q1, u1
    q2[second] = q_other
    span = (0.0, 0.02)
    a = simulate(one, span, (q1, u1), h=1e-4)
    b = simulate(two, span, (q2, u2), h=1e-4)
    assert a.status == b.status == "finished", (a.message, b.message)
    np.testing.assert_allclose(b.q[:, : first.stop], a.q, rtol=0, atol=1e-13)
    np.testing.assert_allclose(b.multipliers, a.multipliers, rtol=0, atol=1e-10)
    # the loaded strip stays in its static deflection (round-off of K q - f only)
    scale = np.max(np.abs(q_other))
    np.testing.assert_allclose(
        b.q[:, second], np.broadcast_to(q_other, b.q[:, second].shape), rtol=0, atol=1e-12 * scale
    )


def test_step_algebra_keeps_a_bounded_number_of_factors_and_refactorises_correctly():
    """A run that locates many events takes the step at many sizes: the factors of G_f are
    kept for the most recent FACTORS_KEPT sizes only, and a size met again after its factor
    was dropped is factorised anew and still solves G_f x = b (its residual within 1e-12 |G| |x|: a backward-stable solve of
    a few hundred unknowns leaves ~1e-14)."""
    from fe_contact.steppers.alpha import alpha_parameters
    from fe_contact.steppers.partitioned_step import FACTORS_KEPT, StepAlgebra

    system = assemble(sliding_mass_model(mu=0.0, n_elements=4))
    algebra = StepAlgebra(system, alpha_parameters(0.9))
    q = np.zeros(system.layout.n)
    sizes = [1e-4 * (1.0 + 0.1 * k) for k in range(3 * FACTORS_KEPT)]
    for h in sizes:
        algebra.g_solver(h, q)
    assert len(algebra._g_factor) == FACTORS_KEPT
    assert algebra.n_factorizations == len(sizes)
    algebra.g_solver(sizes[-1], q)  # kept: not factorised again
    assert algebra.n_factorizations == len(sizes)
    h = sizes[0]  # dropped long ago: factorised again
    lu = algebra.g_solver(h, q)
    assert algebra.n_factorizations == len(sizes) + 1
    bp, gp = algebra.coefficients(h)
    G = system.mass_flexible + gp * system.damping_flexible + bp * system.stiffness_flexible
    b = np.random.default_rng(3).standard_normal(G.shape[0])
    x = lu.solve(b)
    # backward stable: the residual is at most a few n eps |G| |x|
    bound = 1e-12 * abs(G).max() * np.max(np.abs(x))
    assert np.max(np.abs(G @ x - b)) <= bound


def test_a_tree_with_fewer_coordinates_than_rows_takes_structure_coordinates():
    """A pendulum (0.1 kg, 0.2 m, pivot (0, 0.15) m) whose tip sticks on the manipulator's
    cantilever (a closed Unilateral contact and its stick row): 2 rows on 1 tree coordinate.
    The tree alone cannot be partitioned (002 takes one dependent tree coordinate per row);
    with the structures' block the angle and one beam coordinate are dependent, and the
    partitioned accelerations and multipliers (002 eqs. 78a-b, 76) equal those of the
    augmented system, the reference solver (1e-10 of their size, as above: solves of
    condition ~1e6 with the beam's stiff modes)."""
    from fe_contact.coupling.constraints import stick_anchor
    from fe_contact.coupling.partition import ConstraintError
    from fe_contact.model import Unilateral

    arm = 0.2
    theta = -np.arcsin(0.15 / arm)  # the tip on the undeformed beam
    tree = TreeModel(
        bodies=(Body(0.1, 0.1 * arm**2 / 12, (arm / 2, 0.0)),),
        joints=(Joint("revolute", location=(0.0, 0.15)),),
    )
    model = Model(
        tree=tree,
        structures={"beam": cantilever_strip()},
        contacts=(ContactPair("tip", Point(0, (arm, 0.0)), "beam", Unilateral(0.3)),),
    )
    system = assemble(model)
    lay = system.layout
    rng = np.random.default_rng(3)
    q = np.zeros(lay.n)
    q[0] = theta
    q[lay.flexible] = 1e-6 * rng.normal(size=lay.n_flexible)
    u = np.zeros(lay.n)
    u[lay.flexible] = 1e-2 * rng.normal(size=lay.n_flexible)
    rows = dict(unilateral=(0,), closed=[True])
    ev = evaluate_state(system, q, u, 0.0, constraints_only=True, **rows)
    rows["stick"] = [stick_anchor(ev.contacts[0], "beam", None)]
    ev = evaluate_state(system, q, u, 0.0, constraints_only=True, **rows)
    assert ev.phi.size == 2  # the normal row and the stick row
    with pytest.raises(ConstraintError, match="2 constraint rows on a tree of 1 coordinates"):
        choose_dependent(ev.jac[:, lay.tree])
    dependent = choose_dependent(ev.jac[:, lay.tree], ev.jac[:, lay.flexible])
    assert dependent[0] == 0 and dependent.size == 2 and dependent[1] >= lay.n_tree
    part = make_partition(system, dependent)
    assert sorted([*part.dependent, *part.independent]) == list(range(lay.n))
    q, u = recover_dependent(system, part, q, u, 0.0, rows=rows)
    ev = evaluate_state(system, q, u, 0.0, **rows)
    assert np.max(np.abs(ev.phi)) < 1e-12  # the Newton tolerance of recover_dependent
    assert np.max(np.abs(ev.jac @ u + ev.phi_t)) < 1e-12
    a = partitioned_accelerations(system, ev, part)
    b = augmented_accelerations(system, ev)
    np.testing.assert_allclose(
        a.acceleration, b.acceleration, rtol=0, atol=1e-10 * np.max(np.abs(b.acceleration))
    )
    np.testing.assert_allclose(
        a.multipliers, b.multipliers, rtol=0, atol=1e-10 * np.max(np.abs(b.multipliers))
    )
