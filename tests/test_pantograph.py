"""The pantograph under the catenary (``papers.pantograph``): quasi-static runs against static
solves and a linear flexibility solve, both contact laws, loss of contact, the energy balance,
the contact-force statistics against a hand computation, and the data's validation."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve

from fe_contact import assemble, simulate, static_equilibrium
from fe_contact.papers.catenary import vertical_rows
from fe_contact.papers.pantograph import (
    ACCEPTANCE,
    DSA380_PANTOGRAPH,
    EN50318_PANTOGRAPH,
    THREE_MASS_PANTOGRAPH,
    PantographData,
    contact_force_statistics,
    pantograph_force,
    pantograph_on_catenary,
    pantograph_tree,
    run_statistics,
)

# the slow runs take the undamped three-mass pantograph: the reference one's frame (15 kg on
# 50 N/m with 90 N s/m) settles in c / k = 1.8 s, longer than the 0.5 s run, and its damper's
# c v (0.14 N at the wire's slope) is no part of a static solve
DATA = THREE_MASS_PANTOGRAPH
F0 = DATA.static_force
K1 = DATA.frame_stiffness
X0, X1 = 20.0, 20.5  # m: the head's start and end on one 55 m span (between two droppers)
SLOW = 1.0  # m/s: slow enough for a quasi-static run (the wire's waves travel at 122 m/s)


def run_small(contact):
    """One span, 1 m elements, the head from X0 to X1 at 1 m/s (0.5 s, 250 steps of 2 ms)."""
    run = pantograph_on_catenary(
        1,
        speed=SLOW,
        contact=contact,
        data=DATA,
        max_element_length=1.0,
        x_start=X0,
        x_end=X1,
        h=2e-3,
    )
    system = assemble(run.model)
    result = run.run(system)
    assert result.success, result.message
    return run, system, result


@pytest.fixture(scope="module")
def exact():
    return run_small("exact")


@pytest.fixture(scope="module")
def penalty():
    return run_small("penalty")


def head_height(q, data=DATA):
    """z_h = q1 + (z2 - z1) + ...: the sum of the vertical joints' coordinates."""
    return np.sum(q[..., 1 : 1 + data.n_stages], axis=-1)


def energy_scale(result):
    keys = ("kinetic_energy", "potential_energy", "elastic_energy", "work_drives", "work_loads")
    return max(float(np.max(np.abs(result[k]))) for k in keys)


@pytest.mark.slow  # the 1 m/s runs: about 6 s of CPU each, with their static solves
@pytest.mark.parametrize("contact", ["exact", "penalty"])
def test_slow_pantograph_is_quasi_static(contact, exact, penalty, measured):
    """At 1 m/s the contact force and the head's height at the end equal the static solve's
    (``static_equilibrium`` with the base held at X1), and the static force is the pantograph's
    F0 - k1 z_h (its weight is carried by the uplift actuator: gravity acts on it but is not
    part of the contact force at rest)."""
    run, system, result = exact if contact == "exact" else penalty
    state = static_equilibrium(system, result.q[-1], t=run.t_span[1])
    z_static = head_height(state.q)
    force = result["head_normal_force"][-1]
    # dynamic remainder of a 1 m/s run: the masses' and the wire's oscillation about the static
    # state after the start, measured 0.3 N of 120 N; 1 % allowed
    assert abs(force - state.normal_force["head"]) < 0.01 * F0
    # the head's height: 3 um of 5.8 mm measured; 1 % of the static height allowed
    assert abs(head_height(result.q[-1]) - z_static) < 0.01 * abs(z_static)
    # the static normal force against the pantograph's closed form: the vertical balance
    # N cos(theta) = F0 - k1 z_h with the wire's slope theta under the head (< 0.03 rad), so
    # N within 1e-3 relative
    measured("static N vs F0 - k1 z3", abs(state.normal_force["head"] - (F0 - K1 * z_static)), 1e-3 * F0, unit="N")  # fmt: skip


@pytest.mark.slow  # the 1 m/s runs: about 6 s of CPU each, with their static solves
def test_wire_uplift_against_a_linear_flexibility_solve(exact, measured):
    """The static rise of the contact wire under the head equals G(x, x) F, with G the contact
    wire's flexibility at x from one linear solve of the two wires (their stiffness with the
    tension and the springs) coupled by the droppers' axial stiffness (all taut), F the
    vertical force F0 - k1 z_h."""
    run, system, _ = exact
    q_static = run.q0  # the builder's start: static_equilibrium with the base held at X0
    alone = assemble(run.details["line"].model)  # the catenary without the pantograph
    q_line = static_equilibrium(alone).q
    wire, messenger = (alone.structures[w] for w in ("contact_wire", "messenger"))
    n_c = wire.n_dofs
    k_blocks = sp.block_diag([wire.stiffness_matrix, messenger.stiffness_matrix]).tolil()
    for pair in run.details["line"].model.contacts:
        s = pair.profile.s
        b = np.concatenate([vertical_rows(wire, s)[0][0], -vertical_rows(messenger, s)[0][0]])
        k_blocks += pair.law.stiffness * sp.csr_matrix(np.outer(b, b))
    row = np.concatenate([vertical_rows(wire, X0)[0][0], np.zeros(messenger.n_dofs)])
    flexibility = row @ spsolve(k_blocks.tocsc(), row)
    force = F0 - K1 * head_height(q_static)
    part = system.layout.structure("contact_wire")
    rise = vertical_rows(wire, X0)[0][0] @ (
        q_static[part] - q_line[alone.layout.structure("contact_wire")]
    )
    assert n_c == part.stop - part.start
    # measured 2.2e-4 of 45.5 mm: linear theory against the nonlinear statics (the droppers'
    # turning and the contact normal's slope are second order); 1e-3 relative allowed
    measured("static wire rise vs G(x, x) F", abs(rise - flexibility * force), 1e-3 * abs(flexibility * force), unit="m")  # fmt: skip


@pytest.mark.slow  # the 1 m/s runs: about 6 s of CPU each, with their static solves
def test_penalty_force_is_stiffness_times_penetration(penalty):
    """Compliant("linear", 50 kN/m): F = k (-gap) at every step while in contact."""
    run, _, result = penalty
    gap, force = result["head_gap"], result["head_normal_force"]
    closed = gap < 0.0
    assert closed[1:].all()
    # F and gap are read from the same state: round-off of k * gap, 1e-9 relative allowed
    k = run.details["data"].penalty_stiffness
    assert np.allclose(force[1:], -k * gap[1:], rtol=1e-9, atol=0.0)


@pytest.mark.slow  # the 1 m/s runs: about 6 s of CPU each, with their static solves
@pytest.mark.parametrize("contact", ["exact", "penalty"])
def test_energy_balance_closes(contact, exact, penalty, measured):
    """rho_inf = 1: the balance (kinetic + potential + elastic = initial + work of the drive
    and the loads - damping) closes to 1e-6 of its largest term (measured 4e-8 and 3e-9)."""
    _, _, result = exact if contact == "exact" else penalty
    measured("energy balance error", np.max(np.abs(result["energy_error"])), 1e-6 * energy_scale(result), unit="J")  # fmt: skip
    assert abs(result["work_drives"][-1]) > 0.0  # the drive works against the sloped normal


# the wire's slope under the head between 20 and 20.5 m of the span: |w'| <= 2e-3, so the
# vertical part of the normal force is smaller than the force by w'^2 / 2 <= 2e-6 relative
TILT = 1e-5


@pytest.mark.slow  # the 1 m/s runs: about 6 s of CPU each, with their static solves
def test_pantograph_force_is_the_penalty_force_over_each_step(penalty, measured):
    """The force from the pantograph's momentum balance (``pantograph_force``) against the
    penalty law's recorded force, both over each 2 ms step (the recorded force's mean of the
    step's ends: the trapezoidal rule that is the velocity update at rho_inf = 1): equal up to
    the normal's tilt, 1e-5 of the force (measured 1.3e-4 N of 120 N)."""
    run, system, result = penalty
    t, x, force = pantograph_force(run, system, result)
    recorded = result["head_normal_force"]
    step_mean = 0.5 * (recorded[1:] + recorded[:-1])
    assert t.shape == force.shape == (result.t.size - 1,)
    np.testing.assert_allclose(x, 0.5 * (result.q[1:, 0] + result.q[:-1, 0]), rtol=0, atol=1e-12)
    measured("pantograph force - penalty force", np.max(np.abs(force - step_mean)), TILT * np.max(recorded), unit="N")  # fmt: skip


@pytest.mark.slow  # the 1 m/s runs: about 6 s of CPU each, with their static solves
def test_exact_multiplier_carries_the_pantograph_at_low_speed(exact, measured):
    """At 1 m/s the exact law's multiplier, integrated over the run (trapezoidal rule), is the
    impulse the pantograph's momentum balance needs, to the normal's tilt (1e-5 relative of
    the impulse; measured 4.3e-5 N s of 60.4 N s). In the coordinate-partitioned form at speed
    the sum itself drifts (46 N s of 77 N s at 300 km/h, the details page), which this test
    would see; the energy-consistent form, the scenario's default, holds it at speed too
    (``test_contact_impulse``)."""
    run, system, result = exact
    t, x, force = pantograph_force(run, system, result)
    dt = np.diff(result.t)
    recorded = result["head_normal_force"]
    impulse = float(np.sum(0.5 * (recorded[1:] + recorded[:-1]) * dt))
    measured("pantograph impulse - exact multiplier's impulse", abs(float(np.sum(force * dt)) - impulse), TILT * impulse, unit="N s")  # fmt: skip
    stats = run_statistics(run, system, result)
    stats_recorded = run_statistics(run, system, result, force="recorded")
    measured("mean force, pantograph - recorded", abs(stats.mean - stats_recorded.mean), 1e-3 * stats.mean, unit="N")  # fmt: skip
    with pytest.raises(ValueError, match="force"):
        run_statistics(run, system, result, force="multiplier")


@pytest.mark.slow  # the 1 m/s runs: about 6 s of CPU each, with their static solves
def test_lifting_the_head_off_is_an_event(exact):
    """With a pull-down of 100 N in place of the uplift the head leaves the wire: the exact
    contact opens (an event), the force is zero after it and the gap opens."""
    run, _, _ = exact
    pull = replace(run.details["data"], static_force=-100.0)
    model = replace(run.model, tree=pantograph_tree(pull, SLOW, 9.81))
    system = assemble(model)
    result = simulate(system, (0.0, 0.05), (run.q0, run.u0), h=2e-3, rho_inf=1.0)
    assert result.success, result.message
    states = list(result["head_state"])
    assert states[-1] != states[0]
    assert result["head_gap"][-1] > 0.0
    opened = [t for t, name, kind in result.events if name == "head" and kind == "open"]
    assert len(opened) == 1
    # the pull acts on the frame; the head follows through its spring, and the wire, pushed up
    # 7 mm by the head, follows it down a while: the contact opens once, inside the run
    assert 0.0 < opened[0] < 0.05
    after = result.t > opened[0]
    assert np.all(result["head_normal_force"][after] == 0.0)
    assert np.all(result["head_normal_force"][result.t < opened[0]][1:] > 0.0)


def synthetic(t):
    """120 N + 20 N at 2 Hz + 10 N at 5 Hz (kept by a 20 Hz filter) + 30 N at 200 Hz
    (removed)."""
    w = 2.0 * np.pi
    return (
        120.0 + 20.0 * np.sin(w * 2.0 * t) + 10.0 * np.cos(w * 5.0 * t) + 30 * np.sin(w * 200 * t)
    )


def test_statistics_of_a_synthetic_signal():
    """Filtered mean, std, max and min of a known signal by hand: over a section of whole
    periods the mean is 120 N, the std sqrt(20^2 / 2 + 10^2 / 2) N; 20 sin(4 pi t) +
    10 cos(10 pi t) has its extremes where the derivative vanishes (found on a fine grid);
    the 200 Hz part is gone (the order-4 filter run twice passes 1 / (1 + 10^8) of it)."""
    t = np.arange(0.0, 3.0, 1e-4)
    x = 10.0 * t  # 10 m/s; the section [10, 20] m is t in [1, 2] s: whole periods
    stats = contact_force_statistics(t, x, synthetic(t), (10.0, 20.0))
    fine = np.linspace(1.0, 2.0, 400001)
    slow = 120.0 + 20.0 * np.sin(4 * np.pi * fine) + 10.0 * np.cos(10 * np.pi * fine)
    std = math.sqrt(20.0**2 / 2 + 10.0**2 / 2)
    # the pass band's gain at 5 Hz is 1 / (1 + (5/20)^8) = 1 - 1.5e-5, 1.5e-4 N on 10 N
    # (measured 1.6e-4 N on the extremes, 3e-6 on the std, 3e-11 N on the mean); the section's
    # ends are within a sample (1e-4 of a period): 1e-3 N on mean and extremes, 1e-4 relative
    # on the std allowed
    assert abs(stats.mean - 120.0) < 1e-3
    assert abs(stats.std - std) < 1e-4 * std
    assert abs(stats.max - slow.max()) < 1e-3
    assert abs(stats.min - slow.min()) < 1e-3
    assert abs(stats.stat_max - (stats.mean + 3 * stats.std)) < 1e-12 * 200.0
    assert abs(stats.stat_min - (stats.mean - 3 * stats.std)) < 1e-12 * 200.0
    assert stats.loss_of_contact == 0.0
    assert stats.order == 4 and stats.cutoff == 20.0


def test_loss_of_contact_percentage():
    """max(0, 50 + 100 sin(2 pi t)) is zero where sin < -1/2: one third of each period."""
    t = np.arange(0.0, 4.0, 1e-4)
    force = np.maximum(0.0, 50.0 + 100.0 * np.sin(2.0 * np.pi * t))
    stats = contact_force_statistics(t, t, force, (1.0, 3.0))
    # sampling: the four ends of the zero sets in the 2 s section are each within one sample
    # of 1e-4 s, 4e-4 s / 2 s = 0.02 %; 0.03 % allowed
    assert abs(stats.loss_of_contact - 100.0 / 3.0) < 0.03


def test_statistics_refuse_bad_input():
    t = np.arange(0.0, 1.0, 1e-3)
    with pytest.raises(ValueError, match="section"):
        contact_force_statistics(t, t, t, (5.0, 6.0))
    with pytest.raises(ValueError, match="cutoff"):
        contact_force_statistics(t, t, t, (0.2, 0.8), cutoff=600.0)
    with pytest.raises(ValueError, match="t: "):
        contact_force_statistics(t[::-1], t, t, (0.2, 0.8))


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("head_mass", 0.0, ValueError),
        ("upper_mass", -1.0, ValueError),
        ("upper_stiffness", 100.0, ValueError),  # no upper frame (upper_mass 0) to carry it
        ("frame_stiffness", -1.0, ValueError),
        ("upper_damping", math.nan, ValueError),
        ("static_force", "120", TypeError),
        ("penalty_stiffness", 0.0, ValueError),
    ],
)
def test_pantograph_data_is_validated(field, value, error):
    with pytest.raises(error, match=f"PantographData.{field}: got"):
        PantographData(**{field: value})


def test_builder_refuses_bad_arguments():
    with pytest.raises(ValueError, match="contact: got 'soft'"):
        pantograph_on_catenary(1, speed=1.0, contact="soft", max_element_length=5.0)
    with pytest.raises(ValueError, match="speed: got"):
        pantograph_on_catenary(1, speed=0.0, max_element_length=5.0)
    with pytest.raises(ValueError, match="x_start: got"):
        pantograph_on_catenary(1, speed=1.0, max_element_length=5.0, x_start=80.0)


def test_acceptance_table_is_ordered():
    for speed, table in ACCEPTANCE.items():
        assert speed in (250, 300)
        assert all(low <= high for low, high in table.values())


def test_catenary_counts_take_numpy_integers():
    """A count from numpy (a sweep over np.arange) is an integer; a bool or a float is not."""
    from fe_contact.papers.catenary import CatenaryData, catenary

    assert CatenaryData(n_droppers=np.int64(9)).n_droppers == 9
    assert type(CatenaryData(n_droppers=np.int64(9)).n_droppers) is int
    line = catenary(np.int64(1), max_element_length=5.0)
    assert line.dropper_x.size == 9
    with pytest.raises(ValueError, match="n_spans: got True"):
        catenary(True, max_element_length=5.0)
    with pytest.raises(ValueError, match="CatenaryData.n_droppers: got 9.0"):
        CatenaryData(n_droppers=9.0)


def test_the_start_is_a_resting_contact_not_an_impact():
    """The head starts on the sagging wire with the base moving: its vertical rate follows the
    wire, so the contact's normal velocity is zero (to round-off of the rates, 1e-12 m/s) and
    the exact contact is closed from the first step, with no impact event at t = 0 (the start
    once had the head moving horizontally and hit the wire's slope)."""
    from fe_contact.coupling.contact import contact_at

    run = pantograph_on_catenary(
        1, speed=20.0, contact="exact", max_element_length=5.0, x_start=5.0, h=2e-3
    )
    system = assemble(run.model)
    kin = contact_at(system, len(run.model.contacts) - 1, run.q0, run.u0)
    assert abs(kin.normal_velocity) <= 1e-12 * 20.0
    result = run.run(system, t_span=(0.0, 0.01))
    assert result.events == ()
    assert np.all(result["head_state"][1:] != "open")
    assert np.all(result["head_normal_force"][1:] > 0.0)


def test_dsa380_pantograph_rests_on_the_wire_with_its_static_force():
    """The DSA380 data validate (three stages, the head the top body) and build a line model
    whose static start carries the pantograph's static force: the penalty force k_c times the
    penetration equals F0 - s3 z_h (the lower frame's 0.1 N/m spring, stretched by the head's
    height z_h) with N cos(theta) for the wire's slope theta under the head (measured 3e-8 N
    of 120 N; 5e-4 N without the cos). The pantograph's weight (18.9 kg, 185 N) is carried by
    its actuator, not by the wire, and its stiff upper springs (14100 and 9430 N/m) are at rest
    length in contact: an error in either would miss by newtons."""
    from fe_contact.coupling.contact import contact_at

    data = DSA380_PANTOGRAPH
    assert data.n_stages == 3 and data.masses == (5.8, 6.0, 7.12)
    run = pantograph_on_catenary(
        1, speed=20.0, contact="penalty", data=data, max_element_length=5.0, x_start=5.0
    )
    system = assemble(run.model)
    kin = contact_at(system, len(run.model.contacts) - 1, run.q0, run.u0)
    force = data.penalty_stiffness * max(-kin.gap, 0.0)
    z_head = float(np.sum(run.q0[1 : 1 + data.n_stages]))
    expected = data.static_force - data.frame_stiffness * z_head
    cos_theta = abs(kin.normal[1])
    # the vertical balance N cos(theta) = F0 - s3 z_h to the static solve's round-off; 1e-3 of
    # F0 allowed, as for the three-mass pantograph above
    assert abs(force * cos_theta - expected) < 1e-3 * data.static_force
    assert abs(force - expected) < 2e-3 * data.static_force


@pytest.mark.parametrize(
    "data",
    [EN50318_PANTOGRAPH, THREE_MASS_PANTOGRAPH, DSA380_PANTOGRAPH],
    ids=["two", "three", "dsa380"],
)
def test_pantograph_alone_against_its_linear_equations(data):
    """The pantograph without the wire, its base held: the static frame rises by F0 / k_frame
    and every spring above it carries F0 less than at rest in contact (spring statics); from
    there, the head lifted by 1 mm moves as the linear chain m z'' + c z' + k z = 0 in absolute
    heights (the springs and dampers between neighbours, the frame's to the roof), solved by
    the matrix exponential of its first-order form: a derivation independent of the tree."""
    from scipy.linalg import expm

    from fe_contact import Model
    from fe_contact.multibody.drive import Drive

    g = 9.81
    model = Model(
        tree=pantograph_tree(data, 0.0, g), drives=(Drive.constant_velocity(0, 0.0, 1e-9),)
    )
    system = assemble(model)
    n = data.n_stages
    state = static_equilibrium(system, system.initial_state()[0])
    springs = [data.frame_stiffness, data.upper_stiffness, data.head_stiffness]
    springs = springs if n == 3 else [springs[0], springs[2]]
    dampers = [data.frame_damping, data.upper_damping, data.head_damping]
    dampers = dampers if n == 3 else [dampers[0], dampers[2]]
    # statics: round-off of a 2-3 unknown solve on springs of 50-15500 N/m, 1e-9 m allowed
    expected = [data.static_force / k for k in springs]
    assert np.allclose(state.q[1 : 1 + n], expected, rtol=0.0, atol=1e-9)
    masses = np.diag(data.masses)
    stiffness, damping = np.zeros((n, n)), np.zeros((n, n))
    for j, (k, c) in enumerate(zip(springs, dampers, strict=True)):
        # spring j between mass j - 1 (the roof for j = 0) and mass j
        rows = [j] if j == 0 else [j - 1, j]
        signs = np.array([1.0]) if j == 0 else np.array([-1.0, 1.0])
        stiffness[np.ix_(rows, rows)] += k * np.outer(signs, signs)
        damping[np.ix_(rows, rows)] += c * np.outer(signs, signs)
    a = np.block(
        [
            [np.zeros((n, n)), np.eye(n)],
            [-np.linalg.solve(masses, stiffness), -np.linalg.solve(masses, damping)],
        ]
    )
    q0 = state.q.copy()
    q0[n] += 1e-3  # the head's joint: the head 1 mm up, the rest still
    u0 = np.zeros_like(q0)
    u0[0] = 1e-9
    h = 2.5e-4
    result = simulate(system, (0.0, 0.25), (q0, u0), h=h, rho_inf=1.0)
    assert result.success, result.message
    z0 = np.concatenate([np.zeros(n), np.zeros(n)])
    z0[n - 1] = 1e-3
    heights = np.cumsum(result.q[:, 1 : 1 + n] - state.q[1 : 1 + n], axis=1)
    exact = np.array([(expm(a * t) @ z0)[:n] for t in result.t])
    # the trapezoidal rule's phase error (omega h)^2 / 12 per radian: omega up to 250 rad/s
    # (the three-mass upper stage), 3e-4 rad per radian over 60 rad, 2 % of the 1 mm
    # amplitude at worst, less on the slower two-mass head; 2e-5 m allowed
    assert np.max(np.abs(heights - exact)) < 2e-5


def test_loss_of_contact_from_the_contact_history_not_from_step_means():
    """A contact open for 0.4 ms in each 10 ms (the force zero there, 4 % of the time) seen
    through its means over 1 ms steps never reads zero; given the contact's own history
    (``contact=``), the loss of contact is its 4 % (to one sample of 1e-5 s per opening, 0.1 %
    of the time), and the other statistics stay those of the step means."""
    t = np.arange(0.0, 2.0, 1e-5)
    phase = np.mod(t, 1e-2)
    force = np.where(phase < 4e-4, 0.0, 120.0)
    t_mean = np.arange(5e-4, 2.0, 1e-3)
    means = force.reshape(-1, 100).mean(axis=1)  # each 1 ms step's mean force
    section = (0.5, 1.5)
    plain = contact_force_statistics(t_mean, t_mean, means, section)
    assert plain.loss_of_contact == 0.0
    seen = contact_force_statistics(t_mean, t_mean, means, section, contact=(t, t, force))
    assert abs(seen.loss_of_contact - 4.0) <= 0.1
    assert seen.mean == plain.mean and seen.std == plain.std
    with pytest.raises(ValueError, match="contact"):
        contact_force_statistics(t_mean, t_mean, means, section, contact=(t, t, force[:-1]))
    with pytest.raises(ValueError, match="contact"):
        contact_force_statistics(t_mean, t_mean, means, section, contact=(t, t + 9.0, force))
