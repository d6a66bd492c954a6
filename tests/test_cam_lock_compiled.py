"""Bauchau's locking mechanism (000 sec. 7.2), cases 0 and 1 (Hertz contact between the cam's
and the mid-span body's Bezier profiles, without friction and with the continuous law of 000
eq. 10), on the compiled generalised-alpha step (``kernels.profile_pair``,
``kernels.compliant``) against the Python step.

Both steps solve the same equations with the same law (``laws.compliant``), the same contact
pair (000 eqs. 5-6 by ``kernels.curves.pair_newton``, warm-started from the last iterate's
parameters) and the same iteration matrix (the Hertz tangent bordered as
``compliant.bordered_solve`` borders it); they differ in the order of sums and the
factorisations, and so can stop a step's Newton iteration one iterate apart (2 of 1691
iterates over the window below). Measured over 0.63-0.68 s at h = 1e-4 s (the contact closes
at 0.641 s, peak force 5.09 kN): positions 1.6e-14 (m or rad) of 0.32, velocities 1.0e-10 of
3.6, the normal force 1.6e-7 N (3.2e-11 of its peak: the Hertz stiffness, some 2e8 N/m, times
the positions' round-off), the driving torque 1.2e-8 N m of 491 N m. Case 1 (4 of 1671
iterates apart; the friction law's slope mu F_n / v0, some 7e5 N s/m, amplifies the stops):
positions 3.1e-13 of 0.32, velocities 2.3e-9 of 5.3, the normal force 5.4e-6 N of 5.67 kN
(9.5e-10), the torque 4.9e-7 N m of 1.45 kN m, the friction work 1.4e-10 J of 5.7 J. The
bounds below are a few ten to a few hundred times those. Case 2 (rolling) takes its steps
under the continuous law and its rolling ones on the compiled step, its switches on the
Python step (``test_case_2_rolls_and_slips_alike_on_both_steps``); case 3 (hard contact)
takes its steps while closed (slipping or sticking) or open on the compiled step with the
Python step's rows, and its impacts and switches on the Python step
(``test_case_3_closes_slips_and_opens_alike_on_both_steps``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.coupling.profile_contact import curved_contact
from fe_contact.demos.cam_lock import SENSORS, rolling_intervals
from fe_contact.papers.bauchau import Geometry, cam_lock
from fe_contact.steppers.compiled_scope import unsupported

WINDOW = (0.63, 0.68)  # s: 11 ms of approach, then 39 ms in contact


def both(case: int, t_span):
    """(compiled, python) results of ``case`` over t_span at h = 1e-4 s."""
    scenario = cam_lock(case, Geometry(), t_span[0])
    scenario = replace(scenario, model=replace(scenario.model, sensors=SENSORS))
    system = scenario.assemble()
    return tuple(
        scenario.run(system, t_span=t_span, h=1e-4, compiled=compiled) for compiled in (True, False)
    )


# (positions, velocities, forces and friction work) relative to their largest values
BOUNDS = {0: (1e-11, 1e-8, 1e-8), 1: (1e-10, 1e-7, 1e-7)}


def _case_2_from(t0: float):
    """Case 2's scenario from t0 (the cam at Phi(t0), the rest at rest) with the demo's
    sensors, and its assembled system."""
    scenario = cam_lock(2, Geometry(), t0)
    scenario = replace(scenario, model=replace(scenario.model, sensors=SENSORS))
    return scenario, scenario.assemble()


def test_every_case_is_compiled():
    for case in (0, 1, 2, 3):  # the compliant laws' forces, and the hard contact's rows
        assert unsupported(cam_lock(case, Geometry(), 0.0).assemble()) is None, case


@pytest.mark.parametrize("case", [0, 1])
def test_in_contact_agrees_with_the_python_step(case):
    compiled, python = both(case, WINDOW)
    bound_q, bound_u, bound_f = BOUNDS[case]
    assert compiled.success and python.success
    assert compiled.n_compiled == compiled.n_substeps and compiled.n_python == 0
    assert python.n_compiled == 0
    assert compiled.t.size == python.t.size
    force = python["cam_normal_force"]
    closed = force > 0.0
    assert 0.2 < np.mean(closed) < 0.9 and np.max(force) > 1e3  # closes in the window
    assert np.array_equal(compiled["cam_state"], python["cam_state"])
    assert np.max(np.abs(compiled.q - python.q)) <= bound_q * np.max(np.abs(python.q))
    assert np.max(np.abs(compiled.u - python.u)) <= bound_u * np.max(np.abs(python.u))
    columns = ("cam_normal_force", "cam_friction_force", "drive_0_force", "cam_gap")
    for column in (*columns, "cam_parameter", "dissipated_friction"):
        a, b = compiled[column][closed], python[column][closed]
        assert np.max(np.abs(a - b)) <= bound_f * max(np.max(np.abs(b)), 1e-300), column
    # the energy balance closes alike: the kernels' contact energy and friction power are the
    # Python step's
    work = python["work_drives"][-1]
    assert np.max(np.abs(compiled["energy_error"] - python["energy_error"])) <= 1e-9 * work
    friction = python["dissipated_friction"][-1]
    assert (friction == 0.0) if case == 0 else (friction > 0.3 * work)


def test_case_0_while_apart_reports_the_polygons_distance():
    """Before the contact (from rest at 0 s) the pair is far apart: the gap is the distance
    of the control polygons' boxes, as the Python step reports it."""
    compiled, python = both(0, (0.0, 0.005))
    assert compiled.n_python == 0 and compiled.n_compiled == compiled.n_substeps
    gap = python["cam_gap"]
    assert np.all(gap > 0.1)
    assert np.max(np.abs(compiled["cam_gap"] - gap)) <= 1e-12 * np.max(gap)
    assert np.all(compiled["cam_normal_force"] == 0.0)


def test_failed_steps_are_halved_on_the_compiled_step():
    """With max_newton = 4 some steps of the closing fail at h (0.63-0.68 s, 18 of 500 measured)
    and are taken as two halves: the compiled step's failed Newton iteration raises as the
    Python step's would (no step handed back to it), and the halved run keeps its energy
    balance as the run without halvings does (7.0e-4 of the drive's work measured, 7.6e-4
    without halvings)."""
    scenario = cam_lock(0, Geometry(), WINDOW[0])
    scenario = replace(scenario, model=replace(scenario.model, sensors=SENSORS))
    result = scenario.run(scenario.assemble(), t_span=WINDOW, h=1e-4, max_newton=4)
    assert result.success and result.step_path == "compiled"
    assert result.n_halved > 0
    assert result.n_fallback == 0 and result.n_python == 0
    assert result.n_compiled == result.n_substeps == result.n_steps + result.n_halved
    work = result["work_drives"][-1]
    assert work > 1.0
    assert np.max(np.abs(result["energy_error"])) <= 2e-3 * work


@pytest.mark.parametrize("t0", [0.66, 0.8])
def test_python_step_geometry_is_the_kernels_and_the_body_frames(t0, monkeypatch):
    """The Python step's kinematics of the cam's pair (``coupling.profile_contact``) come from
    the compiled step's kernel (``kernels.profile_pair.pair_kinematics``); the body frames'
    (``coupling.frames``, ``Curve``) are an implementation of their own: the two agree to
    round-off at states of the turned cam pressed into the skid (the beam bent, every
    coordinate moving), the remainders (central differences over 1e-6 m) to 1e-9."""
    from fe_contact.coupling import profile_contact

    scenario = cam_lock(3, Geometry(), t0)
    system = scenario.assemble()
    rng = np.random.default_rng(3)
    fields = ("gap", "normal_velocity", "slip_velocity", "w_normal", "w_tangent", "point")
    kernel_arrays = profile_contact.kernel_pair
    for _ in range(5):
        q = scenario.q0 + 1e-3 * rng.standard_normal(system.n)
        u = scenario.u0 + rng.standard_normal(system.n)
        monkeypatch.setattr(profile_contact, "kernel_pair", kernel_arrays)
        assert kernel_arrays(system, 0) is not None
        a = profile_contact.curved_contact(system, 0, q, u)
        monkeypatch.setattr(profile_contact, "kernel_pair", lambda system, k: None)
        b = profile_contact.curved_contact(system, 0, q, u)
        assert b.gap < 0.0  # pressed in: the deepest point's conditions (000 eqs. 5-6)
        for name in fields:
            np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=1e-14)
        assert abs(a.parameter - b.parameter) < 1e-12
        assert abs(a.profile_parameter - b.profile_parameter) < 1e-12
        for name in ("remainder", "tangent_remainder"):
            x, y = getattr(a, name), getattr(b, name)
            assert np.isfinite(x) and abs(x - y) < 1e-9 * max(1.0, abs(y))


def test_case_2_rolls_and_slips_alike_on_both_steps():
    """Case 2 (rolling): the compiled step takes every step, those in which the contact slips
    or is open and the rolling ones (its row W_T u = 0, ``kernels.compliant.rolling_rows``),
    and stops a batch where a pushing contact slows below v0 / 2 or a rolling one's friction
    force leaves the static cone; the Python step starts the rolling there and releases it
    (``GeneralizedAlpha``), the steps that locate those events compiled too. A lead run from
    0.6 s (compiled) finds where it rolls; from 2 ms before such a start (restarted there with
    consistent accelerations; the first start where the restarted Python run rolls), 30 ms on
    both steps. Up to the first event both are the same motion to round-off (measured: q 4e-15
    and u 2e-12 of their largest, under two BLAS kernels), and it is the same event, the start
    of rolling, located within 8e-7 s (the event's location, a tenth of the 1e-4 s step held;
    ``test_case_2_rolling_steps_agree_from_a_rolling_state`` compares the rolling steps).
    After it the two are not compared step by step: the continuous friction law's
    slope, mu F_n / v0 ~ 5e5 N s/m, amplifies round-off some 10-fold per 20-30 ms, and a
    rolling start decided one step apart (a threshold |v_t| = v0 / 2) makes the windows differ
    by up to 1e-3 of q (measured over 30 ms on other starts); both roll, with the friction
    force in the static cone while rolling (000 sec. 6) and no slip, W_T u = 0 (measured
    2.8e-16 m/s, speeds up to 3.3 m/s)."""
    scenario, system = _case_2_from(0.6)
    lead = scenario.run(system, t_span=(0.6, 1.3), h=1e-4)
    rolling = lead["cam_state"] == "stick"
    starts = np.flatnonzero(rolling[1:] & ~rolling[:-1]) + 1
    assert starts.size and lead.n_python == 0  # it rolls (0.848 s, measured), compiled
    assert lead.n_compiled == lead.n_substeps
    for start in starts[:6]:
        k = int(np.searchsorted(lead.t, lead.t[start] - 2e-3))
        t0 = float(lead.t[k])
        t1 = t0 + 0.03
        again = replace(scenario, q0=lead.q[k].copy(), u0=lead.u[k].copy(), t_span=(t0, t1))
        python = again.run(system, t_span=(t0, t1), h=1e-4, compiled=False)
        if rolling_intervals(python):
            break
    else:
        pytest.fail("no restart before the lead run's rolling starts rolls within 30 ms")
    compiled = again.run(system, t_span=(t0, t1), h=1e-4)
    assert compiled.success and python.success
    assert compiled.n_python == 0 and compiled.n_compiled == compiled.n_substeps
    assert python.n_compiled == 0
    assert rolling_intervals(compiled)
    (tc, _, kind_c), (tp, _, kind_p) = compiled.events[0], python.events[0]
    assert kind_c == kind_p == "stick" and abs(tc - tp) <= 1e-5
    n = int(np.searchsorted(python.t, tp))  # the rows before the first event
    assert n > 1 and np.array_equal(compiled.t[:n], python.t[:n])
    assert np.max(np.abs(compiled.q[:n] - python.q[:n])) <= 1e-12 * np.max(np.abs(python.q))
    assert np.max(np.abs(compiled.u[:n] - python.u[:n])) <= 1e-9 * np.max(np.abs(python.u))
    for run in (compiled, python):
        stick = np.flatnonzero(run["cam_state"] == "stick")
        assert stick.size
        # rolling holds the friction force within the static cone mu_s F_n (000 sec. 6)
        friction, normal = run["cam_friction_force"][stick], run["cam_normal_force"][stick]
        assert np.all(normal > 0.0)
        assert np.all(np.abs(friction) <= 0.3 * normal * (1 + 1e-6))
        # and the profiles roll without slip: W_T u = 0 at each rolling step's end
        for j in stick:
            contact = curved_contact(system, 0, run.q[j], run.u[j], remainder=False)
            assert abs(contact.slip_velocity) <= 1e-12 * np.max(np.abs(run.u))


def test_case_2_rolling_steps_agree_from_a_rolling_state():
    """The compiled rolling steps against the Python ones: restarted at a state where the lead
    run (compiled, from 0.6 s) has just started to roll, both steps start rolling there at
    once (a pushing contact slower than v0 / 2 at the start) and take the rolling steps, each
    with its row W_T u = 0, until its friction force leaves the static cone and they release
    it: the same events, the release located at the same time to round-off (the indicator
    mu_s F_n - |lambda_T| of the rolling steps that locate it; measured 2e-16 to 2e-12 s over
    ten starts and two BLAS kernels), and the same motion to round-off up to the next event
    after it (measured up to 7e-12 of q and 1.2e-9 of u, the largest over 84 rows with the
    continuous law's amplification; 4e-15 and 2.4e-12 on the start taken here)."""
    scenario, system = _case_2_from(0.6)
    lead = scenario.run(system, t_span=(0.6, 1.0), h=1e-4)
    rolling = lead["cam_state"] == "stick"
    starts = np.flatnonzero(rolling[1:] & ~rolling[:-1]) + 1
    for start in starts[:8]:
        t0 = float(lead.t[start])
        again = replace(scenario, q0=lead.q[start].copy(), u0=lead.u[start].copy())
        python = again.run(system, t_span=(t0, t0 + 0.01), h=1e-4, compiled=False)
        kinds = [kind for _, _, kind in python.events]
        if kinds[:2] == ["stick", "slip"] and len(kinds) > 2:
            break
    else:
        pytest.fail("no restart at the lead run's rolling starts rolls, is released and goes on")
    compiled = again.run(system, t_span=(t0, t0 + 0.01), h=1e-4)
    assert compiled.success and python.success
    assert compiled.n_python == 0 and compiled.n_compiled == compiled.n_substeps
    (t_roll, _, roll), (t_release, _, release) = compiled.events[:2]
    assert (roll, release) == ("stick", "slip")
    assert t_roll == python.events[0][0] == t0  # rolls from the start
    assert abs(t_release - python.events[1][0]) <= 1e-9
    m = int(np.searchsorted(python.t, python.events[2][0]))  # the rows before the next event
    assert m > 2 and np.array_equal(compiled.t[:m], python.t[:m])
    assert np.max(np.abs(compiled.q[:m] - python.q[:m])) <= 1e-10 * np.max(np.abs(python.q))
    assert np.max(np.abs(compiled.u[:m] - python.u[:m])) <= 1e-8 * np.max(np.abs(python.u))


def test_case_2_batches_take_rolling_and_released_steps(monkeypatch):
    """The batches of the compiled step take the rolling steps and those just released
    (``kernels.loop.steps`` carries the compliant contacts' modes: a released contact under
    its force law again once its slip speed reaches v0 / 2 or it opens, ``ContactModes.rearm``),
    and the hysteresis holds: after each release (or a start of rolling refused, "reversal")
    the contact rolls again only after its slip speed has reached v0 / 2 at some step between
    or it has opened (000 sec. 6). Over 0.6-1.3 s, measured: 218 rolling starts, 509 rolling and
    257 released steps in batches; with the minimum versions of numpy, scipy and numba, 145,
    457 and 139 (case 2's path is chaotic: over 0.6-1.0 s the latter released none in a batch,
    having rolled 8 times only, so the window is this long)."""
    from fe_contact.steppers import compiled as compiled_step
    from fe_contact.steppers.step_state import ContactMode

    batched = {ContactMode.ROLL: 0, ContactMode.RELEASED: 0, ContactMode.FORCE_LAW: 0}
    take = compiled_step.CompiledStep._take_batch

    def recording(self, stepper, n_max):
        mode = ContactMode(int(stepper.modes.mode[-1]))
        taken = take(self, stepper, n_max)
        if taken is not None:
            batched[mode] += taken[0].n
        return taken

    monkeypatch.setattr(compiled_step.CompiledStep, "_take_batch", recording)
    scenario, system = _case_2_from(0.6)
    run = scenario.run(system, t_span=(0.6, 1.3), h=1e-4)
    assert run.success and run.n_python == 0
    assert batched[ContactMode.ROLL] > 0 and batched[ContactMode.RELEASED] > 0
    v0 = system.model.contacts[0].law.v0
    normal = run["cam_normal_force"]
    pairs = 0
    for (t_free, _, freed), (t_roll, _, rolls) in zip(run.events, run.events[1:], strict=False):
        if freed not in ("slip", "reversal") or rolls != "stick":
            continue
        rows = np.flatnonzero((run.t > t_free) & (run.t <= t_roll))
        if rows.size == 0:  # both events located within one step: no recorded state between
            continue
        pairs += 1
        slip = [
            curved_contact(system, 0, run.q[j], run.u[j], remainder=False).slip_velocity
            for j in rows
        ]
        assert np.max(np.abs(slip)) >= 0.5 * v0 or np.any(normal[rows] <= 0.0), t_free
    assert pairs > 5


def test_symmetry_bound_holds_for_the_iteration_matrix():
    """``compiled_plan.symmetry_bound`` (with which ``Plan.factor`` skips the test of G_f's
    symmetry per step size) bounds max |G_ij - G_ji| of G_f = M_f + gamma' C_f + beta' K_f
    summed in floating point, for the cam lock's beam (M_f and K_f symmetric only to
    round-off: 9e-19 and 2.3e-10 of entries up to 40 and 2e7) over step sizes from 1e-9 to
    1e-2 s, and stays below the factor's tolerance 1e-13 max |G| there."""
    from fe_contact.steppers.compiled_plan import symmetry_bound

    system = cam_lock(2, Geometry(), 0.6).assemble()
    matrices = [
        m.toarray()
        for m in (system.mass_flexible, system.damping_flexible, system.stiffness_flexible)
    ]
    asymmetries = tuple((np.max(np.abs(m - m.T)), np.max(np.abs(m))) for m in matrices)
    for h in np.geomspace(1e-9, 1e-2, 15):
        bp, gp = 0.25 * h * h, 0.5 * h
        g = matrices[0] + gp * matrices[1] + bp * matrices[2]
        bound = symmetry_bound(asymmetries, bp, gp)
        assert np.max(np.abs(g - g.T)) <= bound <= 1e-13 * np.max(np.abs(g))


def _hard_contact_holds(result, law):
    """The hard contact's laws at every reported step of ``result``: closed, it pushes and its
    gap is closed; open, its gap is open; slipping, its friction force is mu N against the
    slip (Coulomb's cone, dissipating); sticking, it stays within mu_s N and does not slip."""
    state = result["cam_state"]
    normal, friction = result["cam_normal_force"], result["cam_friction_force"]
    gap, slip_velocity = result["cam_gap"], result["cam_slip_velocity"]
    closed, slip, stick = state != "open", state == "slip", state == "stick"
    assert np.all(normal[closed] > 0.0) and np.all(normal[~closed] == 0.0)
    assert np.max(np.abs(gap[closed])) < 1e-12 and np.all(gap[~closed] > -1e-12)  # m
    cone = np.abs(np.abs(friction[slip]) - law.mu * normal[slip])
    assert np.all(cone <= 1e-12 * normal[slip])
    assert np.all(friction[slip] * slip_velocity[slip] <= 0.0)
    assert np.all(np.abs(friction[stick]) <= law.static_coefficient * normal[stick])
    assert np.max(np.abs(slip_velocity[stick]), initial=0.0) < 1e-9  # m/s


def _hard_contact_pair(scenario, system, t_span):
    """(compiled, python) results of ``scenario`` (case 3) over t_span at h = 1e-4 s."""
    return tuple(
        scenario.run(system, t_span=t_span, h=1e-4, compiled=compiled) for compiled in (True, False)
    )


# case 3's hard contact (``Unilateral(mu=0.3)``): its rows on the compiled step
# (``kernels.evaluate.PAIR``), its impacts, openings, stick and slip located as on the Python
# step. Over 0.63-0.66 s it closes at 0.6408 s, slips, opens in the step to 0.6426 s, closes
# again at 0.643 s, opens at 0.6499 s and closes at 0.651 s. Measured, until the step in which
# it first opens: positions 7.8e-16 (5.1e-16 on OpenBLAS's Prescott kernels) and velocities
# 1.7e-12 of their largest values apart (the open approach 5e-22 and 4e-19); by 0.66 s,
# after three impacts located to the event tolerance, 3.6e-11 and 2.3e-7. From a slipping
# state at 1.035 s (reached on the compiled step) it sticks at 1.0359 s, slips at 1.0415 s,
# sticks, slips and sticks again by 1.045 s: until it slips again (through the located
# stick) 5.0e-13 (4.2e-13) and 2.3e-10 (2.8e-10); by 1.045 s 6.8e-12 and 4.6e-9. The bounds
# are some forty times those; the rest is held to the same events and the contact's laws
# (``_hard_contact_holds``).
HARD_BOUNDS = {"slip": (3e-14, 1e-10), "stick": (2e-11, 1e-8)}


def _agree_until(compiled, python, bounds):
    """q and u to ``bounds`` (relative to their largest values) until the step of the second
    event located in the window (a step the Python step took in sub-steps): after it, a tie
    at an event (a contact that opens and at once closes again at a gap of round-off: 0.6426
    s on OpenBLAS's Prescott kernels) can make the two steps take it apart."""
    bound_q, bound_u = bounds
    located = python.t[python["n_substeps"] > 1]
    before = python.t < located[1]
    q_scale, u_scale = np.max(np.abs(python.q)), np.max(np.abs(python.u))
    assert np.max(np.abs(compiled.q[before] - python.q[before])) <= bound_q * q_scale
    assert np.max(np.abs(compiled.u[before] - python.u[before])) <= bound_u * u_scale


def _events(result):
    """(time, state) where the hard contact's state changes."""
    state = result["cam_state"]
    changes = np.nonzero(state[1:] != state[:-1])[0] + 1
    return [(float(result.t[i]), str(state[i])) for i in changes]


def test_case_3_closes_slips_and_opens_alike_on_both_steps():
    scenario = cam_lock(3, Geometry(), 0.63)
    scenario = replace(scenario, model=replace(scenario.model, sensors=SENSORS))
    compiled, python = _hard_contact_pair(scenario, scenario.assemble(), (0.63, 0.66))
    assert compiled.success and python.success
    assert compiled.n_compiled > 0 and python.n_compiled == 0
    assert compiled.t.size == python.t.size
    assert np.array_equal(compiled["cam_state"], python["cam_state"])
    events = _events(python)
    assert [s for _, s in events][:4] == ["slip", "open", "slip", "open"]
    assert np.allclose([t for t, _ in _events(compiled)], [t for t, _ in events], rtol=0, atol=1e-9)
    _agree_until(compiled, python, HARD_BOUNDS["slip"])  # until it first opens
    law = scenario.model.contacts[0].law
    for result in (compiled, python):
        _hard_contact_holds(result, law)


def test_case_3_sticks_and_slips_alike_on_both_steps():
    scenario = cam_lock(3, Geometry(), 0.63)
    scenario = replace(scenario, model=replace(scenario.model, sensors=SENSORS))
    system = scenario.assemble()
    before = scenario.run(system, t_span=(0.63, 1.035), h=1e-4, compiled=True)
    assert before["cam_state"][-1] == "slip"
    t0 = float(before.t[-1])
    scenario = replace(scenario, q0=before.q[-1].copy(), u0=before.u[-1].copy(), t_span=(t0, 1.045))
    compiled, python = _hard_contact_pair(scenario, system, (t0, 1.045))
    assert compiled.success and python.success
    assert compiled.n_compiled > 0 and python.n_compiled == 0
    assert np.array_equal(compiled["cam_state"], python["cam_state"])
    events = _events(python)
    assert [s for _, s in events][:2] == ["stick", "slip"]
    assert np.allclose([t for t, _ in _events(compiled)], [t for t, _ in events], rtol=0, atol=1e-9)
    # sticking steps are compiled too: more compiled steps than slipping ones
    sticking = np.count_nonzero(python["cam_state"] == "stick")
    assert sticking > 20 and compiled.n_compiled > compiled.t.size - sticking
    _agree_until(compiled, python, HARD_BOUNDS["stick"])  # until it slips again
    law = scenario.model.contacts[0].law
    for result in (compiled, python):
        _hard_contact_holds(result, law)
