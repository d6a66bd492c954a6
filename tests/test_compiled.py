"""The compiled generalised-alpha step (``steppers.compiled``) against the Python step.

Both steppers take the same equations, tests and iterates (Lipinski (002), eqs. 73, 76,
78a-b); they differ in the factorisation of the structures' block (banded Cholesky against
SuperLU) and in the order of sums, i.e. in round-off. Run in lockstep from the same state, the
trajectories must therefore agree to round-off amplified by the stiff beam: positions to 1e-10
relative to their range (we see ~1e-12), velocities and multipliers to 1e-8 relative (we see
~1e-10: the beam's highest modes, omega ~ 1e5 rad/s, carry velocities of eps cond(G_f)). A
step that the compiled path does not take must come out of the Python path, identically.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse.linalg as spla

from fe_contact.elements.beam import point_load
from fe_contact.model import Circle, ContactPair, Line, Model, Sliding, Unilateral
from fe_contact.multibody.builders import floating_body
from fe_contact.papers.lipinski import (
    Manipulator,
    manipulator,
    sliding_mass_initial_state,
    sliding_mass_model,
)
from fe_contact.steppers.compiled import unsupported
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.steppers.simulate import StopRun, simulate
from fe_contact.system import assemble, energies


def lockstep(system, q0, u0, h, n_steps, **settings):
    """Step the Python and the compiled stepper side by side; (python, compiled, reports)."""
    py = GeneralizedAlpha(system, 0.0, q0, u0, h=h, **settings)
    cc = GeneralizedAlpha(system, 0.0, q0, u0, h=h, compiled=True, **settings)
    assert (py.step_path, cc.step_path) == ("python", "compiled")
    reports = []
    for _ in range(n_steps):
        reports.append((py.step(), cc.step()))
    return py, cc, reports


def assert_same(reports, q_rel=1e-10, rel=1e-8):
    q_py = np.array([a.q for a, _ in reports])
    q_cc = np.array([b.q for _, b in reports])
    span = np.maximum(np.ptp(q_py, axis=0), np.abs(q_py).max(axis=0))
    assert np.all(np.abs(q_py - q_cc) <= q_rel * np.maximum(span, 1e-300))
    u_py = np.array([a.u for a, _ in reports])
    u_cc = np.array([b.u for _, b in reports])
    assert np.max(np.abs(u_py - u_cc)) <= rel * np.max(np.abs(u_py))
    lam_py = np.array([a.multipliers for a, _ in reports])
    lam_cc = np.array([b.multipliers for _, b in reports])
    assert np.max(np.abs(lam_py - lam_cc)) <= rel * max(np.max(np.abs(lam_py)), 1.0)
    for a, b in reports:
        assert a.t == pytest.approx(b.t, abs=1e-14)
        ea, eb = a.energy, b.energy
        assert eb.total == pytest.approx(ea.total, rel=1e-10, abs=1e-13)
        assert eb.kinetic == pytest.approx(ea.kinetic, rel=1e-8, abs=1e-13)
        for key, value in a.work.items():
            assert b.work[key] == pytest.approx(value, rel=1e-8, abs=1e-13), key
        for ca, cb in zip(a.contacts, b.contacts, strict=True):
            assert ca.state == cb.state
            assert cb.parameter == pytest.approx(ca.parameter, abs=1e-12, nan_ok=True)
            assert cb.normal_force == pytest.approx(ca.normal_force, rel=rel)
            assert cb.friction_force == pytest.approx(ca.friction_force, rel=rel, abs=1e-14)


@pytest.fixture(scope="module")
def sliding_mass():
    def make(mu):
        system = assemble(sliding_mass_model(mu, 10))
        return system, *sliding_mass_initial_state(system)

    return make


@pytest.mark.parametrize("mu", [0.0, 0.2])
def test_sliding_mass_matches_the_python_step(sliding_mass, mu):
    system, q0, u0 = sliding_mass(mu)
    py, cc, reports = lockstep(system, q0, u0, 1e-3, 60)
    assert_same(reports)
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0
    # the same Newton iterations, give or take an iterate at the tolerance's edge
    assert abs(cc.n_newton - py.n_newton) <= 2


def test_stick_is_located_at_the_same_time_and_held_compiled(sliding_mass):
    # the mass slows down at about mu g and sticks near t = 0.27 s (test_sliding.py)
    system, q0, u0 = sliding_mass(0.2)
    py, cc, reports = lockstep(system, q0, u0, 1e-3, 300)
    assert [e[1:] for e in py.events] == [("mass", "stick")]
    assert [e[1:] for e in cc.events] == [("mass", "stick")]
    assert cc.events[0][0] == pytest.approx(py.events[0][0], abs=1e-9)
    assert_same(reports)
    assert reports[-1][1].contacts[0].state == "stick"
    assert cc.n_fallback == 0  # the stick row is compiled too


def test_manipulator_matches_the_python_step():
    """Three revolute joints, a drive, friction 0.2 against the slide (002 sec. 9)."""
    scenario = manipulator(Manipulator(), 0.2)
    system = scenario.assemble()
    py, cc, reports = lockstep(system, scenario.q0, scenario.u0, 5e-4, 60, rho_inf=0.9)
    assert_same(reports)
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0
    torque_py = np.array([a.drive_forces[0] for a, _ in reports])
    torque_cc = np.array([b.drive_forces[0] for _, b in reports])
    assert np.max(np.abs(torque_py - torque_cc)) <= 1e-9  # N m, of about 0.6 N m


@pytest.mark.slow
def test_friction_oscillator_on_its_belt_matches_the_python_step():
    """A block on a spring on a driven belt (a line on a translating body), mu_s > mu_k: it
    sticks, breaks loose at x = mu_s N / k and sticks again (``papers.friction_oscillator``);
    the stick rows along the moving line and every event compiled."""
    from fe_contact.papers.friction_oscillator import friction_oscillator, limit_cycle

    scenario = friction_oscillator()
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    py, cc, reports = lockstep(system, q0, u0, 1e-3, 1100)
    assert [e[1:] for e in cc.events] == [e[1:] for e in py.events]
    assert [e[2] for e in cc.events][:3] == ["slip", "stick", "slip"]
    for a, b in zip(py.events, cc.events, strict=True):
        assert b[0] == pytest.approx(a[0], abs=1e-9)
    # the first breakaway where the spring force reaches mu_s N (closed form)
    assert cc.events[0][0] == pytest.approx(limit_cycle().x_break / 0.1, abs=1e-6)
    assert_same(reports)
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0


def test_mass_on_a_fixed_incline_matches_the_python_step():
    """The sliding mass on a rigid incline (30 degrees, mu = 0.2) instead of the beam: it
    accelerates at g (sin a - mu cos a) down the slope."""
    tree = sliding_mass_model(0.0, 2).tree
    angle = np.pi / 6
    slope = Line.incline(angle)
    pair = ContactPair("mass", Circle(1, 0.01), slope, Sliding(0.2))
    system = assemble(Model(tree=tree, contacts=(pair,), gravity=tree.gravity))
    along = np.array([np.cos(angle), np.sin(angle)])
    q0 = 0.5 * along + 0.01 * np.array(slope.normal)
    u0 = -0.1 * along
    py, cc, reports = lockstep(system, q0, u0, 1e-3, 100)
    assert_same(reports)
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0
    a = 9.81 * (np.sin(angle) - 0.2 * np.cos(angle))
    t, q = reports[-1][1].t, reports[-1][1].q
    travelled = float((q0 - q) @ along)
    assert travelled == pytest.approx(0.1 * t + 0.5 * a * t * t, rel=1e-6)


def test_circle_on_the_beam_matches_the_python_step(sliding_mass):
    """A circle (radius 5 mm) instead of the point on the beam, mu = 0.2: the radius terms of
    the contact kinematics (the centre on the offset curve)."""
    system, q0, u0 = sliding_mass(0.2)
    pair = ContactPair("mass", Circle(1, 0.005), "beam", Sliding(0.2))
    system = assemble(replace(system.model, contacts=(pair,)))
    point = system.structures["beam"].curve(q0[0], q0[2:])
    q0 = q0.copy()
    q0[:2] = point.position + 0.005 * point.normal
    py, cc, reports = lockstep(system, q0, u0, 1e-3, 60)
    assert_same(reports)
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0


RADIUS = 0.01


def rolling_disk_on_beam(mu=0.8):
    """A disk (radius RADIUS, 20 g, J = m r^2 / 2) at x = 0.2 m on the sliding mass's
    cantilever deflected by its own and the disk's weight, rolling along it at 0.3 m/s."""
    r, m, x0, v = RADIUS, 0.02, 0.2, 0.3
    base = sliding_mass_model(mu, 10)
    tree = floating_body(m, 0.5 * m * r * r, gravity=base.tree.gravity)
    pair = ContactPair("disk", Circle(2, r), "beam", Sliding(mu))
    system = assemble(replace(base, tree=tree, contacts=(pair,)))
    beam = system.structures["beam"]
    load = beam.load + point_load(beam.beam, x0, force=-m * 9.81)[beam.beam.free_dofs]
    w = spla.spsolve(beam.stiffness_matrix.tocsc(), load)
    point = beam.curve(x0, w)
    q0, u0 = system.initial_state()
    q0[:2] = point.position + r * point.normal
    q0[3:] = w
    u0[:2] = v * point.slope / np.linalg.norm(point.slope)
    u0[2] = -v / r
    return system, q0, u0


def test_disk_rolling_on_the_beam_matches_the_python_step():
    """A disk (r = 1 cm, 20 g, J = m r^2 / 2) rolls at 0.3 m/s on the statically deflected
    cantilever with mu = 0.8: the contact sticks throughout, i.e. rolls (W_T u = 0, whose
    position value is the trapezoid of W_T u since the committed state). The compiled step
    takes every step itself (no fallback) and matches the Python step to round-off; the
    friction does no work, so kinetic + potential + elastic energy stays constant (to 1e-9 J
    of 2.8e-3 J: we see 2e-10 J, the Newton tolerance), and the disk turns by the arc it
    rolls, Delta s = -r Delta(theta - alpha) with alpha the beam's slope angle (to 1e-3
    relative: the beam's material points move across its axis, which the arc ignores; we see
    2e-4)."""
    system, q0, u0 = rolling_disk_on_beam()
    r = RADIUS
    beam = system.structures["beam"]
    py, cc, reports = lockstep(system, q0, u0, 1e-3, 200)
    assert_same(reports)
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0
    assert all(b.contacts[0].state == "stick" for _, b in reports)
    energy = [b.energy.total for _, b in reports]
    assert np.ptp(energy) < 1e-9
    # Rolling: the friction power is F_T v_T with v_T = W_T u the round-off of the sticking
    # row, which the partition solves to about eps cond(J_u) |u| (cond(J_u) < 1e2 here); a
    # step's friction work is then below h |F_T| 1e3 eps |u|_max, with |u|_max the disk's 30
    # rad/s (a further factor r = 1e-2 m of margin): 1e-18 J here; 1.9e-22 J and exact zeros
    # seen on different BLAS kernels.
    eps = np.finfo(float).eps
    u_max = max(np.max(np.abs(b.u)) for _, b in reports)
    for _, b in reports:
        bound = 1e-3 * np.max(np.abs(b.contacts[0].friction_force)) * 1e3 * eps * u_max
        assert abs(b.work["dissipated_friction"]) <= bound

    def arc_and_turn(report):
        s = float(np.ravel(report.contacts[0].parameter)[0])
        slope = beam.curve(s, report.q[3:]).slope
        return s, report.q[2] - np.arctan2(slope[1], slope[0])

    (s0, turn0), (s1, turn1) = arc_and_turn(reports[0][1]), arc_and_turn(reports[-1][1])
    assert s1 - s0 > 0.05  # it rolled 5 cm and more along the beam
    assert s1 - s0 == pytest.approx(-r * (turn1 - turn0), rel=1e-3)


def test_simulate_takes_the_compiled_step_by_default(sliding_mass):
    system, q0, u0 = sliding_mass(0.0)
    a = simulate(system, (0.0, 0.02), (q0, u0), h=1e-3, compiled=False)
    b = simulate(system, (0.0, 0.02), (q0, u0), h=1e-3)
    assert (a.step_path, b.step_path) == ("python", "compiled")
    assert np.max(np.abs(a.q - b.q)) <= 1e-12
    for name in ("mass_normal_force", "kinetic_energy", "energy_error"):
        assert np.allclose(a[name], b[name], rtol=1e-8, atol=1e-12), name
    with pytest.raises(TypeError, match="compiled = 'yes'"):
        simulate(system, (0.0, 0.01), (q0, u0), compiled="yes")


def test_leaving_the_beam_falls_back_and_stops_like_the_python_step(sliding_mass):
    """0.1 m before the free end at 2 m/s: the contact leaves the beam near t = 0.05 s."""
    system, _, _ = sliding_mass(0.0)
    q0, u0 = sliding_mass_initial_state(system, x0=0.3, speed=2.0)
    steppers = [
        GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3),
        GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3, compiled=True),
    ]
    messages = []
    for st in steppers:
        with pytest.raises(StopRun) as stop:
            for _ in range(100):
                st.step()
        messages.append(str(stop.value))
    assert messages[0] == messages[1] and "left structure 'beam'" in messages[0]
    py, cc = steppers
    assert 0.045 < cc.t < 0.055 and cc.t == pytest.approx(py.t, abs=1e-12)
    assert np.max(np.abs(cc.q - py.q)) <= 1e-10
    assert cc.n_fallback >= 1  # the step that left was handed to the Python step


def test_systems_it_does_not_take_run_on_the_python_step(sliding_mass):
    system, q0, u0 = sliding_mass(0.0)
    model = system.model
    floor = ContactPair("floor", Circle(1, 0.01), Line((0.0, -0.1), (0.0, 1.0)), Unilateral())
    line_system = assemble(replace(model, contacts=(floor,)))
    assert "a unilateral law (hard contact" in unsupported(line_system)
    stepper = GeneralizedAlpha(line_system, 0.0, q0, u0, h=1e-3, compiled=True)
    assert stepper.step_path == "python" and stepper.compiled_step is None
    assert GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3).step_path == "python"


def test_compiled_energies_equal_system_energies(sliding_mass):
    """The energies kernel against ``system.energies`` at a deflected, moving state with
    joint springs, dampers and an actuator (the manipulator), and on the sliding mass."""
    from fe_contact.kernels.step import packed_energies as kernel
    from fe_contact.multibody.tree import actuator_forces
    from fe_contact.steppers.compiled import Plan

    scenario = manipulator(Manipulator(), 0.2)

    system = scenario.assemble()
    rng = np.random.default_rng(3)
    for sys_, q, u in (
        (system, scenario.q0, scenario.u0 + 0.1 * rng.standard_normal(scenario.u0.size)),
        (*sliding_mass(0.0),),
    ):
        plan = Plan(sys_)
        ref = energies(sys_, q, u, 0.1)
        got = kernel(*plan.packed, q, u, actuator_forces(sys_.tree, 0.1))
        names = ("tree_kinetic", "structure_kinetic", "gravity", "tree_springs")
        names += ("structure_elastic", "damping_power", "load_power")
        for name, value in zip(names, got, strict=True):
            assert value == pytest.approx(getattr(ref, name), rel=1e-12, abs=1e-15), name


def test_runs_of_one_system_share_its_constant_arrays_and_agree(sliding_mass):
    """The compiled step's constant arrays are formed once per system and shared by its runs
    (``compiled_plan.Plan``): the kernels only read them, so a run of the system repeats an
    earlier one bit for bit, also after a run with another step in between."""
    from fe_contact.steppers.compiled import Plan

    system, q0, u0 = sliding_mass(0.2)
    first = simulate(system, (0.0, 0.02), (q0, u0), h=1e-3, compiled=True)
    assert Plan(system).packed[0] is Plan(system).packed[0]
    simulate(system, (0.0, 0.02), (q0, u0), h=4e-4, compiled=True)
    again = simulate(system, (0.0, 0.02), (q0, u0), h=1e-3, compiled=True)
    assert first.n_compiled == again.n_compiled > 0
    for a, b in ((first.q, again.q), (first.u, again.u), (first.multipliers, again.multipliers)):
        assert np.array_equal(a, b)
