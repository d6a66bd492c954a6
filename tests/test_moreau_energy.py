"""Moreau-Jean books its own numerical loss (``steppers.moreau``, module docstring "Energy").

The theta-method with theta > 1/2 takes (theta - 1/2) ([u]^T M [u] + [q] . [dV/dq]) out of
every step; booked as ``dissipated_numerical`` it closes the balance, and ``energy_error`` stays
the scheme's real error: round-off for linear structures and springs (with damping, contacts,
friction and impacts), O(h^3) per step for the nonlinear string. The closed forms come from a
sympy derivation of the scheme's one-step map for a spring-mass (``test_spring_mass_*``), the
system's own M and K for the beam, and convergence in h for the string.

Round-off bounds: a step adds to the error a few roundings of sums of O(n) products at the
energy scale E (the energies, the booked works); 8 eps E per step, summed over the steps, is
stated below where it is used.
"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact import (
    BeamSpec,
    Body,
    Circle,
    ContactPair,
    Joint,
    Model,
    TreeModel,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)
from fe_contact.papers import eugster_glocker as eg
from fe_contact.steppers.moreau import MoreauJean

EPS = np.finfo(float).eps


def spring_mass(mass=0.5, stiffness=800.0, damping=0.0):
    """A point mass on a horizontal prismatic joint with a spring (and a damper): q = x;
    gravity is normal to the joint's axis and does no work."""
    tree = TreeModel(
        bodies=(Body(mass, 0.0),),
        joints=(Joint("prismatic", stiffness=stiffness, damping=damping),),
    )
    return assemble(Model(tree=tree))


def test_spring_mass_one_step_loss_is_the_derived_closed_form(measured):
    """sympy: one step of the scheme for m x'' + c x' + k x = 0 (predictor q_P = q + theta h u,
    effective mass m + theta h c + theta^2 h^2 k, force -k q_P - c u) loses exactly
    (theta - 1/2)(m [u]^2 + k [q]^2) + h c u_theta^2; the stepper's booked loss and damping
    over each of 40 steps equal these closed forms evaluated on its own history, and the
    energy's fall equals their sum, to 8 eps of the energy per step (a few roundings)."""
    import sympy

    m, k, c, h, th, q, u = sympy.symbols("m k c h theta q u", real=True)
    du = h * (-k * (q + th * h * u) - c * u) / (m + th * h * c + th**2 * h**2 * k)
    u1 = u + du
    dq = h * u + th * h * du
    energy = lambda q_, u_: (m * u_**2 + k * q_**2) / 2  # noqa: E731
    u_theta = (1 - th) * u + th * u1
    loss = (th - sympy.Rational(1, 2)) * (m * du**2 + k * dq**2)
    assert sympy.simplify(energy(q, u) - energy(q + dq, u1) - loss - h * c * u_theta**2) == 0

    values = {m: 0.5, k: 800.0, c: 0.3, h: 2e-3}
    loss_errors, damping_errors, fall_errors = [], [], []
    e0 = 0.5 * 800.0 * 0.01**2 + 0.5 * 0.5 * 0.2**2
    for theta in (0.5, 0.7, 1.0):
        system = spring_mass(0.5, 800.0, 0.3)
        stepper = MoreauJean(system, 0.0, [0.01], [0.2], h=2e-3, theta=theta)
        for _ in range(40):
            q_a, u_a = float(stepper.q[0]), float(stepper.u[0])
            report = stepper.step()
            at = {**values, th: theta, q: q_a, u: u_a}
            expected_loss = float(loss.subs(at))
            expected_damping = float((h * c * u_theta**2).subs(at))
            loss_errors.append(abs(report.work["dissipated_numerical"] - expected_loss))
            damping_errors.append(abs(report.work["dissipated_damping"] - expected_damping))
            fall = energy(q_a, u_a) - energy(float(report.q[0]), float(report.u[0]))
            fall = float(fall.subs(values))
            booked = report.work["dissipated_numerical"] + report.work["dissipated_damping"]
            fall_errors.append(abs(fall - booked))
        if theta == 0.5:
            assert report.work["dissipated_numerical"] == 0.0
    reference = "sympy: (theta - 1/2)(m [u]^2 + k [q]^2) + h c u_theta^2 per step"
    for quantity, errors in (
        ("booked numerical loss per step", loss_errors),
        ("booked damping per step", damping_errors),
        ("energy's fall vs the booked losses per step", fall_errors),
    ):
        measured.each(quantity, errors, 8 * EPS * e0, unit="J", reference=reference)


@pytest.mark.parametrize(("theta", "rayleigh"), [(0.5, 0.0), (0.7, 0.0), (1.0, 0.0), (0.7, 5.0)])
def test_linear_beam_free_vibration_books_the_energy_it_loses(theta, rayleigh, measured):
    """A clamped-free beam (6 elements) set vibrating by a random velocity (all its modes, up to
    omega h ~ 40 at h = 1e-3 s, which theta > 1/2 damps away), 50 steps: the balance closes to
    round-off, 8 eps of E0 per step (measured <= 62 eps in all); the booked loss equals
    (theta - 1/2) sum ([u]^T M [u] + [q]^T K [q]) from the history with the system's M and K
    (the same bound); theta = 1/2 books exactly 0. Without the booking the error would be the
    loss itself: 97 % of E0 at theta = 0.7."""
    beam = BeamSpec(length=0.4, n_elements=6, youngs_modulus=2.1e11, density=4.7e3, width=0.01,
                    height=0.0015, rayleigh_alpha=rayleigh)  # fmt: skip
    system = assemble(Model(structures={"beam": beam}, structure_gravity=False))
    lay = system.layout
    q0, u0 = system.initial_state()
    u0[lay.flexible] = 0.1 * np.random.default_rng(0).normal(size=lay.n_flexible)
    r = simulate(system, (0.0, 0.05), (q0, u0), method="moreau", h=1e-3, theta=theta)
    assert r.status == "finished", r.message
    energy = np.asarray(r["kinetic_energy"]) + np.asarray(r["elastic_energy"])
    n_steps = len(r.t) - 1
    bound = 8 * EPS * energy[0] * n_steps
    measured("energy balance error, 50 steps", np.max(np.abs(r["energy_error"])), bound, unit="J")
    dq = np.diff(r.q[:, lay.flexible], axis=0)
    du = np.diff(r.u[:, lay.flexible], axis=0)
    m, k = system.mass_flexible, system.stiffness_flexible
    per_step = np.einsum("ij,ij->i", du, (m @ du.T).T) + np.einsum("ij,ij->i", dq, (k @ dq.T).T)
    closed = (theta - 0.5) * np.cumsum(per_step)
    loss = np.asarray(r["dissipated_numerical"])
    measured("booked loss vs closed form", np.max(np.abs(loss[1:] - closed)), bound, unit="J")
    if theta == 0.5:
        assert np.all(loss == 0.0)
    else:
        assert loss[-1] > 0.5 * energy[0]  # the high modes are gone: the check is not empty
    if rayleigh:
        assert r["dissipated_damping"][-1] > 1e3 * bound  # damping booked alongside


def hanging_string_run(theta, h, n_elements=4, t_end=0.04):
    """The string of 004 Table 1 (neo-Hookean, pinned ends) from its static sag, moving with
    the velocity 5 (q_static - q_reference) (smooth: mostly its lowest modes), to t_end."""
    system = assemble(Model(structures={"string": eg.table1_string(n_elements)}))
    lay = system.layout
    string = system.structures["string"]
    q0, u0 = system.initial_state()
    q0[lay.flexible] = eg.hanging_string(n_elements)[string.string.free_dofs]
    u0[lay.flexible] = 5.0 * (q0[lay.flexible] - string.initial_coordinates())
    r = simulate(system, (0.0, t_end), (q0, u0), method="moreau", h=h, theta=theta)
    assert r.status == "finished", r.message
    return r


@pytest.mark.parametrize("theta", [0.55, 1.0])
def test_string_balance_error_is_third_order_per_step_and_the_loss_first_order(theta, measured):
    """The nonlinear string: the balance's error per step (the largest change of energy_error
    in one step) falls with h^3, the trapezoidal rule's remainder on the strain energy (O(|dq|^3),
    module docstring); measured ratios per halving 7.4-7.9 (theta = 0.55) and 6.7-7.2 (theta =
    1) from h = 5e-4 s, required >= 2^2.5 = 5.7. The booked loss over the fixed time 0.04 s is
    O(h): it halves with h, measured ratios 1.75-1.95, required 1.6-2.2. The error at the end is
    below 1e-3 of the booked loss at the finest h (measured 3.9e-4 and 9.3e-5): booked, the loss
    has left the error."""
    steps, losses, ends = [], [], []
    for h in (5e-4, 2.5e-4, 1.25e-4):
        r = hanging_string_run(theta, h)
        error = np.asarray(r["energy_error"])
        steps.append(np.max(np.abs(np.diff(error))))
        ends.append(abs(error[-1]))
        losses.append(float(r["dissipated_numerical"][-1]))
    for coarse, fine in zip(steps, steps[1:], strict=False):
        assert coarse / fine >= 2.0**2.5
    for coarse, fine in zip(losses, losses[1:], strict=False):
        assert 1.6 <= coarse / fine <= 2.2
    measured(
        "energy balance error at the end, finest h",
        ends[-1],
        1e-3 * losses[-1],
        unit="J",
        reference="energy balance, against the booked loss",
    )


@pytest.mark.parametrize(("theta", "restitution"), [(0.7, 0.0), (1.0, 0.0), (0.7, 0.5)])
def test_disk_dropped_sliding_on_a_beam_balance_closes(theta, restitution, measured):
    """A disk (constant mass matrix: a floating body about its centre) dropped 5 mm onto a
    clamped-clamped steel beam at 1 m/s sideways, mu = 0.3: it hits (Newton, e_N as given),
    bounces, slides and sticks (rolls) in 150 steps. Linear beam, constant mass, the contact
    impulses' work booked with the velocity u_theta they act with: the balance closes to
    round-off, 200 eps of the energy scale (the largest of |E| and the friction loss; measured
    <= 7 eps), while the booked numerical loss is 6-7 % of E0 (what the error would be
    without it)."""
    mass, radius = 0.2, 0.02
    beam = BeamSpec(length=0.6, n_elements=6, youngs_modulus=2.1e11, density=7.8e3, width=0.02,
                    height=0.004, left="clamped", right="clamped")  # fmt: skip
    law = Unilateral(0.3, restitution)
    model = Model(
        tree=floating_body(mass, 0.5 * mass * radius**2),
        structures={"beam": beam},
        contacts=(ContactPair("disk", Circle(2, radius), "beam", law),),
    )
    system = assemble(model)
    q0, u0 = system.initial_state([0.15, radius + 0.005, 0.0], [1.0, 0.0, 0.0])
    r = simulate(system, (0.0, 0.15), (q0, u0), method="moreau", h=1e-3, theta=theta)
    assert r.status == "finished", r.message
    energy = r["kinetic_energy"] + r["elastic_energy"] + r["potential_energy"]
    scale = max(np.max(np.abs(energy)), r["dissipated_friction"][-1])
    measured(
        "energy balance error",
        np.max(np.abs(r["energy_error"])),
        200 * EPS * scale,
        unit="J",
        reference="energy balance (invariant)",
    )
    assert r["dissipated_numerical"][-1] > 0.05 * energy[0]
    assert r["dissipated_friction"][-1] > 0.1 * energy[0]
    assert {"slip", "stick", "open"} <= set(r["disk_state"])
    for name in ("dissipated_friction", "dissipated_impact", "work_contact_timing"):
        assert np.all(np.diff(r[name]) >= 0.0), name


def test_a_failed_step_retried_equals_the_step_never_failed(monkeypatch):
    """A step that fails (here: the contact solver raises on its first call of the step, after
    the closest-point searches have moved their warm starts to the predicted position) leaves
    the stepper as it found it, the warm starts of the searches included: retried, it gives the
    state, impulses and works of a stepper that never failed, from the same state, to the last
    bit (the same operations on the same numbers). The profile is the B-spline disk of
    test_moreau_profiles.py (a curved pair: its (eta, s) warm start lives in the workspace)
    rolling onto a beam."""
    from test_moreau_profiles import DISK, INERTIA, MASS, RADIUS

    from fe_contact.model import Profile
    from fe_contact.steppers import moreau

    beam = BeamSpec(length=0.6, n_elements=6, youngs_modulus=2.1e11, density=7.8e3, width=0.02,
                    height=0.004, left="clamped", right="clamped")  # fmt: skip
    model = Model(
        tree=floating_body(MASS, INERTIA),
        structures={"beam": beam},
        contacts=(ContactPair("disk", Profile(2, DISK), "beam", Unilateral(0.3)),),
    )
    system = assemble(model)
    q0, u0 = system.initial_state([0.25, RADIUS + 0.001, 0.0], [0.5, -0.3, 0.0])
    steppers = [MoreauJean(system, 0.0, q0, u0, h=1e-3, theta=0.7) for _ in range(2)]
    for stepper in steppers:
        for _ in range(8):  # into contact: the closest-point search has a warm start
            stepper.step()
    failed = steppers[0]
    assert failed.report.contacts[0].state != "open" and failed.workspace.profile_parameters
    solve = moreau.solve_contact_impulses
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("contact solver failed (test)")
        return solve(*args, **kwargs)

    start = (failed.t, failed.q, failed.u, dict(failed.workspace.profile_parameters))
    with monkeypatch.context() as patch:
        patch.setattr(moreau, "solve_contact_impulses", failing)
        with pytest.raises(RuntimeError, match="test"):
            failed._step_impl(None)
        assert failed.t == start[0] and failed.q is start[1] and failed.u is start[2]
        kept = failed.workspace.profile_parameters
        assert kept.keys() == start[3].keys()
        assert all(np.array_equal(kept[k], start[3][k]) for k in kept)
        retried = failed._step_impl(None)
    fresh = steppers[1].step()
    assert np.array_equal(retried.q, fresh.q) and np.array_equal(retried.u, fresh.u)
    assert retried.work == fresh.work
    a, b = retried.contacts[0], fresh.contacts[0]
    assert np.array_equal(a.normal_impulse, b.normal_impulse)
    assert np.array_equal(a.friction_impulse, b.friction_impulse)


def test_belt_start_balance_error_is_the_strings_nonlinear_remainder(measured):
    """The belt drive's start (``papers.belt``, coarse: 20 elements, 56 candidates per pulley;
    the driver at 20 rad/s under a belt at rest), 12 steps of 1 ms without sub-steps: in every
    step the balance's error (the change of ``energy_error``) is the string's nonlinear
    remainder of the module docstring's "Energy", computed here from the string's own V, f_int
    and K_t alone,

        R + [q] . (g_A + theta [g] - g~),  R = [V] - [q] . (g_A + g_E) / 2,
        g~ = g(q_P) + theta^2 h K_t(q_P) [u],

    to round-off: the drive's work, the pulleys' load and damping, the belt's damping and every
    contact impulse (closings, openings, slip and stick on both grids) are booked with the
    velocity they act with, and nothing else is left. Bound: 256 eps of the step's energy scale
    (the largest of the energies, the |booked works| and the sums |[q]| . |g| of the
    remainder's products): each of these is a sum over the string's ~100 DOFs or quadrature
    points, which rounds to at most ~n eps of its absolute sum (measured <= 60 eps). The
    remainder itself is far above round-off (the sum of its |values| over the steps is > 1e-7
    J; their signed sum was -8.9e-6 J): the test sees a booking that misses any part."""
    from dataclasses import replace

    from fe_contact.papers import belt as bp
    from fe_contact.system import energies

    data = replace(bp.BeltData(), n_elements=20, n_candidates=56)
    scenario = bp.belt_drive(data)
    system = assemble(scenario.model)
    theta, h = 0.55, 1e-3
    stepper = MoreauJean(system, 0.0, scenario.q0, scenario.u0, h=h, theta=theta,
                         penetration_tolerance=None)  # fmt: skip
    belt = system.structures["belt"]
    sl = system.layout.structure("belt")
    booked_in = ("work_drives", "work_loads", "work_contact_timing")
    booked_out = ("dissipated_damping", "dissipated_friction", "dissipated_impact",
                  "dissipated_numerical")  # fmt: skip
    energy = energies(system, stepper.q, stepper.u, 0.0).total
    remainders, closed, stuck, mismatch, bounds = [], [], [], [], []
    for _ in range(12):
        q_a, u_a = stepper.q[sl], stepper.u[sl]
        report = stepper.step()
        assert report.n_substeps == 1
        q_e, u_e = report.q[sl], report.u[sl]
        dq, du = q_e - q_a, u_e - u_a
        q_p = q_a + theta * h * u_a
        g_a, g_e = belt.internal_force(q_a), belt.internal_force(q_e)
        g_t = belt.internal_force(q_p) + theta**2 * h * (belt.tangent_stiffness(q_p) @ du)
        remainder = (belt.elastic_energy(q_e) - belt.elastic_energy(q_a)
                     - dq @ (g_a + g_e) / 2 + dq @ (g_a + theta * (g_e - g_a) - g_t))  # fmt: skip
        work = report.work
        error = (report.energy.total - energy - sum(work[k] for k in booked_in)
                 + sum(work[k] for k in booked_out))  # fmt: skip
        products = [float(np.abs(dq) @ np.abs(g)) for g in (g_a, g_e, g_t)]
        scale = max(abs(report.energy.total), abs(energy), *(abs(w) for w in work.values()),
                    *products)  # fmt: skip
        mismatch.append(abs(error - remainder))
        bounds.append(256 * EPS * scale)
        remainders.append(remainder)
        energy = report.energy.total
        closed.append([c.normal_force.size for c in report.contacts])
        stuck.append([np.count_nonzero(np.abs(c.slip_velocity) <= 1e-6) for c in report.contacts])
    measured.each(
        "step's balance error vs the string's remainder",
        mismatch,
        bounds,
        unit="J",
        reference="R + [q] . (g_A + theta [g] - g~) from V, f_int and K_t",
    )
    assert np.sum(np.abs(remainders)) > 1e-7
    closed, stuck = np.array(closed), np.array(stuck)
    # candidates close and open on both pulleys, and points stick and slip on both
    assert np.all(np.ptp(closed, axis=0) > 0)
    assert np.all(np.max(stuck, axis=0) > 0) and np.all(np.min(closed - stuck, axis=0) > 0)
