"""Nothing a run computed is lost, and nothing escapes a step.

A fault after the start (a drive's actuator returning NaN, an observer raising) ends the run with
status "failed" on every path (batched compiled, compiled step by step, Python, Moreau-Jean,
event-driven): every completed step is a row of the result (``len(t) == n_steps + 1``, on the
step grid without a gap), and the message names the cause and the time of the last completed
step. The last step of every stepper ends on t_end.
"""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from fe_contact import (
    BeamSpec,
    Body,
    Circle,
    ContactPair,
    Joint,
    Line,
    Model,
    Point,
    Sliding,
    TreeModel,
    Unilateral,
    assemble,
    simulate,
)
from fe_contact.multibody.builders import floating_body
from fe_contact.papers.slavic_boltezar import PinOnWheel, pin_model

T_FAIL = 0.01005  # s: the actuators return NaN from here on (between two steps of any grid)


def nan_from(t_fail, value=0.0):
    def actuator(t):
        return float("nan") if t >= t_fail else value

    return actuator


def slider(actuator=None):
    """The README's 20 g slider on the steel strip (mu 0.2), its x actuator given."""
    beam = BeamSpec(
        length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
    )
    cart = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.02, 0.0)),
        joints=(
            Joint("prismatic", actuator=actuator),
            Joint("prismatic", parent=0, angle=np.pi / 2),
        ),
    )
    model = Model(
        tree=cart,
        structures={"strip": beam},
        contacts=(ContactPair("slider", Point(body=1), "strip", Sliding(mu=0.2)),),
        structure_gravity=False,
    )
    system = assemble(model)
    return system, system.initial_state(q_tree=[0.1, 0.0], u_tree=[0.5, 0.0])


def disk(actuator=None):
    """A 1 kg disk resting on the ground (Unilateral mu 0.5), its rotation's actuator given
    (Moreau-Jean)."""
    tree = floating_body(1.0, 0.005)
    joints = (*tree.joints[:2], dataclasses.replace(tree.joints[2], actuator=actuator))
    model = Model(
        tree=dataclasses.replace(tree, joints=joints),
        contacts=(ContactPair("disk", Circle(2, 0.1), Line((0, 0), (0, 1)), Unilateral(0.5)),),
    )
    system = assemble(model)
    return system, system.initial_state([0.0, 0.1, 0.0])


def pin(actuator=None):
    """The rough pin on the wheel of Slavic-Boltezar (003), its swing joint's actuator given
    (event-driven)."""
    model = pin_model(dataclasses.replace(PinOnWheel(), t_end=6e-5))
    joints = (model.tree.joints[0], dataclasses.replace(model.tree.joints[1], actuator=actuator))
    model = dataclasses.replace(model, tree=dataclasses.replace(model.tree, joints=joints))
    system = assemble(model)
    return system, system.initial_state()


# (name, build, method, h, settings, t_fail): the paths of simulate
PATHS = [
    ("batched", slider, "generalized-alpha", 1e-4, {}, T_FAIL),
    ("compiled", slider, "generalized-alpha", 1e-4, {"batch": False}, T_FAIL),
    ("python", slider, "generalized-alpha", 1e-4, {"compiled": False}, T_FAIL),
    ("moreau", disk, "moreau", 1e-4, {}, T_FAIL),
    ("event-driven", pin, "event-driven", 1e-7, {"batch": False}, 3.05e-5),
    ("batched", pin, "event-driven", 1e-7, {}, 3.05e-5),  # quiet steps in one call
]


def assert_all_steps_kept(r, h, method):
    """Every completed step is a row, without a gap, and the message names the last one's time.
    The fixed-step steppers' times are sums of h: compared to k h within 100 ulps of the end
    time (a sum of n terms errs by at most n eps |t|, n <= 400 here); the event-driven stepper
    halves a step that closes a contact too deep, so its steps are h or h / 2^j."""
    assert r.status == "failed" and not r.success
    assert r.t.size == r.n_steps + 1, (r.t.size, r.n_steps)
    if method == "event-driven":
        steps = np.diff(r.t)
        halvings = np.log2(h / steps)
        np.testing.assert_allclose(halvings, np.round(halvings), atol=1e-6)
        assert np.all(steps <= h * (1 + 1e-9))
    else:
        k = np.arange(r.t.size)
        np.testing.assert_allclose(r.t, k * h, rtol=0.0, atol=100 * np.spacing(r.t[-1]))
    assert np.all(np.isfinite(r.q)) and np.all(np.isfinite(r.u))
    assert f"last completed step at t = {r.t[-1]:.6g} s" in r.message, r.message


@pytest.mark.parametrize(("name", "build", "method", "h", "settings", "t_fail"), PATHS)
def test_a_drive_returning_nan_keeps_every_completed_step(name, build, method, h, settings, t_fail):
    """The actuator returns NaN from t_fail on: the run keeps every step before the failing one
    (the batched path used to drop the 52 steps of the batch that reached t_fail: 49 rows to
    0.0048 s instead of 101 to 0.01 s). The failing step is the first whose forces are wanted at
    or after t_fail: its end for the implicit steppers, its start or its middle for Moreau-Jean's
    predictor and the event-driven midpoint rule, so the last kept step lies within one step of
    t_fail."""
    system, y0 = build(nan_from(t_fail))
    r = simulate(system, (0.0, 4 * t_fail), y0, method=method, h=h, **settings)
    assert_all_steps_kept(r, h, method)
    assert "returned nan" in r.message, r.message
    assert t_fail - h <= r.t[-1] < t_fail + h
    if method == "generalized-alpha":  # the end of the failing step is its first force
        assert r.t[-1] < t_fail <= r.t[-1] + h
        assert r.t.size == 101  # the steps to 0.01 s


class FailingObserver:
    """An observer that raises on its ``n``-th call (the first is the initial state)."""

    def __init__(self, n):
        self.n, self.calls = n, 0

    def __call__(self, system, report, row):
        self.calls += 1
        if self.calls == self.n:
            raise RuntimeError("disk full")


@pytest.mark.parametrize(("name", "build", "method", "h", "settings", "t_fail"), PATHS)
def test_an_observer_raising_keeps_every_completed_step(name, build, method, h, settings, t_fail):
    """An observer raising on its 101st call (the report of step 100) ends the run; the rows are
    every step the stepper completed (the batched path completes a batch before showing it to
    the observers: its later steps are kept too), and the message names the cause, the time the
    observer failed at and the last completed step (it used to name the batch's start)."""
    system, y0 = build()
    r = simulate(
        system,
        (0.0, 4 * t_fail),
        y0,
        method=method,
        h=h,
        observers=[FailingObserver(101)],
        **settings,
    )
    assert_all_steps_kept(r, h, method)
    assert f"disk full in an observer at t = {r.t[100]:.6g} s" in r.message, r.message
    assert r.t.size >= 101
    if name != "batched":
        assert r.t.size == 101


# (name, build, method, h, settings, t_end): t_end a multiple of h, or not (a short last step)
ENDS = [
    ("batched", slider, "generalized-alpha", 1e-4, {}, 0.2),
    ("batched", slider, "generalized-alpha", 1e-4, {}, 0.02005),
    ("compiled", slider, "generalized-alpha", 1e-4, {"batch": False}, 0.2),
    ("python", slider, "generalized-alpha", 1e-4, {"compiled": False}, 0.0301),
    ("python", slider, "generalized-alpha", 1e-4, {"compiled": False}, 0.02005),
    ("moreau", disk, "moreau", 1e-4, {}, 0.2),
    ("moreau", disk, "moreau", 1e-4, {}, 0.02005),
    ("event-driven", pin, "event-driven", 1e-7, {}, 3.333e-5),
]


@pytest.mark.parametrize(("name", "build", "method", "h", "settings", "t_end"), ENDS)
def test_the_last_step_ends_on_t_end(name, build, method, h, settings, t_end):
    """The run ends on t_end within 2 ulps of t_end (the sum t + (t_end - t) is exact when
    t_end / 2 <= t <= t_end, Sterbenz's lemma, so the last step lands on t_end; 2 ulps leave room
    for a stepper that forms its end time another way). The generalised-alpha run used to end at
    0.1999999999999943 for t_end = 0.2, 206 ulps short: the last step was taken as h whenever
    t_end - t was within 1e-9 h of it."""
    system, y0 = build()
    r = simulate(system, (0.0, t_end), y0, method=method, h=h, **settings)
    assert r.status == "finished", r.message
    assert abs(r.t[-1] - t_end) <= 2 * np.spacing(t_end), (repr(r.t[-1]), t_end)
    assert np.all(np.diff(r.t) > 0.0)


@pytest.mark.parametrize(
    ("given", "error", "message"),
    [
        (
            [0.1],
            ValueError,
            r"initial_state\.q_tree: got length 1, shape \(1,\); allowed: a real "
            r"array of shape \(2,\)",
        ),
        ([0.1, 0.0, 0.0], ValueError, r"q_tree: got length 3, shape \(3,\).*shape \(2,\)"),
        ([[0.1, 0.0]], ValueError, r"q_tree: got shape \(1, 2\).*shape \(2,\)"),
        (
            ["x", 0],
            TypeError,
            r"initial_state\.q_tree\[0\] \(tree joint 0\): got 'x'; allowed: a "
            r"real number",
        ),
        ([0.0, None], TypeError, r"q_tree\[1\] \(tree joint 1\): got None"),
        ([np.nan, 0.0], ValueError, r"q_tree\[0\] \(tree joint 0\): got nan; allowed: finite"),
    ],
)
def test_initial_state_refuses_a_tree_state_of_the_wrong_length_or_kind(given, error, message):
    """The slider has 2 tree coordinates: one value is not broadcast to both (it used to give
    [0.1, 0.1]), a string is named as the entry it is (it used to be numpy's "could not convert
    string to float" without the parameter), for q_tree and u_tree alike."""
    system, _ = slider()
    with pytest.raises(error, match=message):
        system.initial_state(q_tree=given)
    with pytest.raises(error, match=message.replace("q_tree", "u_tree")):
        system.initial_state(u_tree=given)
    q, u = system.initial_state(q_tree=(0.1, -0.2), u_tree=np.array([0.5, 0.0]))
    assert q[:2].tolist() == [0.1, -0.2] and u[:2].tolist() == [0.5, 0.0]


def pendulum_on_cantilever():
    """A 0.1 kg pendulum (a 0.2 m bar pivoted at (0, 0.15) m) whose tip hits the manipulator's
    steel cantilever (Lipinski (002) sec. 9) with friction mu = 0.3, swinging down at 2 rad/s
    from 1.3 mm above it."""
    from fe_contact.papers.lipinski import cantilever_strip

    arm = 0.2
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
    return system, system.initial_state(q_tree=[-0.84], u_tree=[-2.0])


def rebound(r):
    """(time the pendulum turns back up after its first impact, s; time and angle, rad, of
    the top of that rebound) from a result's stored steps."""
    t, q, u = r.t, r.q[:, 0], r.u[:, 0]
    hit = np.flatnonzero(r["tip_state"] != "open")[0]
    k = hit + np.argmax(u[hit:] > 0.0)
    top = k + np.argmax(u[k:] < 0.0)
    return t[k], t[top], q[top]


@pytest.mark.slow  # the two runs take ~20 s and ~8 s on 2 shared cores
def test_a_pendulum_hitting_the_cantilever_runs_to_the_end_as_with_moreau_jean():
    """The tip lands (t = 4.04 ms), rattles (some 40 impacts and lift-offs in 50 ms) and
    stops slipping: sticking adds a tangential row, and 2 rows on a tree of 1 coordinate are
    partitioned with one beam coordinate dependent (``partition.choose_dependent``; it used
    to end the run, and before that to escape the step as numpy's LinAlgError). The run
    reaches t_end with the constraints closed (|phi| within 10 times the Newton tolerance
    1e-12 m: the beam's round-off), friction and impact losses that never fall, and the
    motion of Moreau-Jean (no partition) on the same grid: the first impact in the same step
    (Moreau-Jean finds it at the end of the step that contains it), the pendulum turning back
    up and the top of its rebound within 2.5 ms, and that top within 1e-2 rad. Those are the
    generalised-alpha's errors on the rattle (measured: 0.5 ms, 1.4e-3 rad, 1.4 ms at
    h = 1e-4 s; 0.3 ms, 4e-4 rad, 0.2 ms at h = 5e-5 s, while Moreau-Jean's figures move by
    0.05 ms, 1e-4 rad and 0.15 ms from h = 1e-4 to 2.5e-5 s). The rattle's sequence of some 40
    impacts is chaotic: under OPENBLAS_CORETYPE=Prescott the rebound's top differs by 3.2e-3
    rad instead of 1.4e-3 rad; with the contact's curvature terms in the Newton matrix (which
    change each step's iterates, not its solution) the turn back up came 0.4 ms early, and
    1.1 ms under Prescott. So the angle is bounded by 1e-2 rad (1.2 % of the 0.86 rad swing:
    the energy the rattle leaves to the rebound) and both times by 2.5 ms, not by one BLAS
    kernel's or one iteration's figure."""
    system, (q0, u0) = pendulum_on_cantilever()
    h = 1e-4
    r = simulate(system, (0.0, 0.05), (q0, u0), h=h)
    assert r.status == "finished" and r.t[-1] == 0.05, r.message
    counts = r.event_counts()
    assert counts["impact"] > 10 and counts["open"] > 10
    assert counts["stick"] + counts["reversal"] > 0  # a stick row was partitioned
    assert np.max(r["residual_position"]) <= 1e-11
    for loss in ("dissipated_friction", "dissipated_impact"):
        assert np.all(np.diff(r[loss]) >= 0.0), loss  # sums of non-negative sub-step terms
    moreau = simulate(system, (0.0, 0.05), (q0, u0), method="moreau", h=h)
    assert moreau.status == "finished" and moreau.t[-1] == 0.05
    t_impact = next(t for t, _, kind in r.events if kind == "impact")
    t_closed = moreau.t[np.flatnonzero(moreau["tip_state"] != "open")[0]]
    assert t_closed - h < t_impact <= t_closed
    up, top, angle = rebound(r)
    up_mj, top_mj, angle_mj = rebound(moreau)
    assert abs(up - up_mj) <= 2.5e-3
    assert abs(top - top_mj) <= 2.5e-3
    assert abs(angle - angle_mj) <= 1e-2


def test_the_partition_refuses_more_rows_than_tree_coordinates():
    """Two rows on one tree coordinate: a ConstraintError that says so, not a (2, 1) J_u."""
    from fe_contact.coupling.partition import ConstraintError, choose_dependent

    with pytest.raises(ConstraintError, match="2 constraint rows on a tree of 1 coordinates"):
        choose_dependent(np.array([[1.0], [0.5]]))
    assert choose_dependent(np.array([[0.0, 2.0]])).tolist() == [1]


def test_a_singular_solve_in_a_step_halves_the_step(monkeypatch):
    """A step whose linear system is singular (numpy's LinAlgError) is retried as two halves,
    as one whose Newton iteration diverges: here the full step's solve fails once, the halves
    go through, and the step ends at h with n_halved = 1 on the same state as two steps of h / 2
    (to 1e-12 rad: the iterations stop at the Newton tolerance). When the halves fail too the
    run fails with SingularSystem naming the time."""
    from fe_contact.steppers.genalpha import GeneralizedAlpha

    tree = TreeModel((Body(1.0, 0.01, (0.2, 0.0)),), (Joint("revolute", angle=-np.pi / 2),))
    system = assemble(Model(tree=tree))
    q0, u0 = np.array([0.3]), np.zeros(1)
    h = 1e-3
    original = GeneralizedAlpha._newton_step
    calls = []

    def singular_once(self, dt, halving=False):
        calls.append(dt)
        if len(calls) == 1:
            raise np.linalg.LinAlgError("Singular matrix")
        return original(self, dt, halving)

    monkeypatch.setattr(GeneralizedAlpha, "_newton_step", singular_once)
    stepper = GeneralizedAlpha(system, 0.0, q0, u0, h=h)
    report = stepper.step()
    assert calls == [h, h / 2, h / 2] and stepper.n_halved == 1 and report.t == h
    monkeypatch.setattr(GeneralizedAlpha, "_newton_step", original)
    halves = GeneralizedAlpha(system, 0.0, q0, u0, h=h / 2)
    halves.step()
    halves.step()
    np.testing.assert_allclose(report.q, halves.q, atol=1e-12)

    def always_singular(self, dt, halving=False):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(GeneralizedAlpha, "_newton_step", always_singular)
    r = simulate(system, (0.0, 0.01), (q0, u0), h=h, compiled=False)
    assert r.status == "failed" and r.t.size == 1
    assert "SingularSystem: a linear system of the step from t = 0 s" in r.message, r.message
    assert "after 3 halvings" in r.message


@pytest.mark.slow
def test_a_step_too_large_for_the_trolley_is_halved_not_reported_as_leaving():
    """The trolley of examples/slider_on_string.toml at h = 0.05 s used to stop at once with
    "contact 'trolley' left structure 'string' ... s = -0.46 m": the closest point of a Newton
    iterate of the too-large step jumped off the string from s = 0.2 m. The step is now halved
    (up to 3 times) before anything is reported: the run goes through to 0.3 s with the
    halvings counted, the trolley stays on the string, and its end position agrees with the run
    at h = 0.005 s (no halving) to 1 mm (the end positions differ by 0.2 mm: second order in
    the 6.25 mm-wide halved steps); the energy balance (rho_inf = 1: no numerical damping)
    errs by < 0.05 J against a kinetic energy of up to 0.38 J (0.010 J at h = 0.05 s, 0.003 J
    at 0.005 s)."""
    from fe_contact.io.model_file import load_model
    from fe_contact.runner import prepare

    example = prepare(load_model(Path(__file__).parents[1] / "examples/slider_on_string.toml", []))
    runs = {
        h: simulate(example.system, (0.0, 0.3), (example.q0, example.u0), h=h, rho_inf=1.0)
        for h in (0.05, 0.005)
    }
    coarse, fine = runs[0.05], runs[0.005]
    assert coarse.status == "finished", coarse.message
    assert coarse.n_halved > 0 and fine.n_halved == 0
    assert coarse.t[-1] == 0.3 and coarse.t.size == 7
    s = coarse["trolley_parameter"]
    assert np.all((s > 0.0) & (s < 1.0))
    np.testing.assert_allclose(coarse.q[-1, :2], fine.q[-1, :2], atol=1e-3)
    assert np.max(np.abs(coarse["energy_error"])) < 0.05


def test_a_contact_sliding_off_the_beam_is_located_at_its_end():
    """The frictionless mass of the sliding-mass demo slides off the 0.4 m beam (from x = 0.1 m
    at 0.5 m/s): the event is reported with the time located to event_tol = 1e-10 s, where the
    contact is at the beam's end, whatever the step: at h = 2e-3 s and h = 2e-2 s the located
    times agree to 2e-5 s (the trajectories differ by the step's discretisation error) and lie
    at 0.549 s, after the 0.3 m / 0.5 m/s = 0.6 s of a mass sliding on a straight beam minus the
    beam's sag. At h = 0.1 s the Newton iterates of the step overshoot the end, the located
    state is 1.1e-5 m short of it, and the run fails as a step too large instead."""
    import re

    from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model

    system = assemble(sliding_mass_model(0.0, 6))
    q0, u0 = sliding_mass_initial_state(system, 0.1, 0.5)
    located = []
    for h in (2e-3, 2e-2):
        r = simulate(system, (0.0, 0.8), (q0, u0), h=h)
        assert r.status == "event", r.message
        assert "left structure 'beam'" in r.message and "located to 1e-10 s" in r.message
        assert "the contact is at s = 0.4 m, an end of 'beam'" in r.message
        t_left = float(re.search(r"at t = ([0-9.e-]+) s \(located", r.message).group(1))
        assert r.t[-1] < t_left <= r.t[-1] + h
        located.append(t_left)
    assert abs(located[0] - located[1]) < 2e-5 and 0.54 < located[0] < 0.6
    r = simulate(system, (0.0, 0.8), (q0, u0), h=0.1)
    assert r.status == "failed" and "StepTooLarge" in r.message and "too large" in r.message


@pytest.mark.parametrize(
    ("build", "method", "cls", "where", "h", "settings"),
    [
        (disk, "moreau", "moreau.MoreauJean", "_substep", 1e-4, {}),
        # the Python step (a batch's kernel hands a singular step to it: ``quiet_steps``)
        (pin, "event-driven", "event_driven.EventDriven", "_smooth", 1e-7, {"batch": False}),
    ],
)
def test_moreau_and_event_driven_halve_a_step_whose_system_is_singular(
    monkeypatch, build, method, cls, where, h, settings
):
    """Moreau-Jean and the event-driven stepper retry a (sub-)step whose linear system is
    singular as halves too: one singular solve costs one halving (Moreau-Jean: n_halved one
    more than without it; event-driven: its first step is h / 2, exact in binary) and the run
    finishes on t_end (within 2 ulps); a solve that is always singular fails the run with
    SingularSystem naming the time, keeping the initial state, instead of numpy's LinAlgError
    escaping the step."""
    import importlib

    module, name = cls.split(".")
    stepper = getattr(importlib.import_module(f"fe_contact.steppers.{module}"), name)
    original = getattr(stepper, where)
    calls = []

    def singular_once(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise np.linalg.LinAlgError("Singular matrix")
        return original(self, *args, **kwargs)

    system, y0 = build()
    plain = simulate(system, (0.0, 20 * h), y0, method=method, h=h, **settings)
    monkeypatch.setattr(stepper, where, singular_once)
    r = simulate(system, (0.0, 20 * h), y0, method=method, h=h, **settings)
    assert r.status == "finished", r.message
    if method == "moreau":  # one halving more than the run without the singular solve
        assert r.n_halved == plain.n_halved + 1
    else:  # the first step is the half (the pin's closings halve later steps of both runs)
        assert r.t[1] == 0.5 * h and plain.t[1] == h and r.n_halved >= 1
    assert abs(r.t[-1] - 20 * h) <= 2 * np.spacing(20 * h)

    def always_singular(self, *args, **kwargs):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(stepper, where, always_singular)
    r = simulate(system, (0.0, 20 * h), y0, method=method, h=h, **settings)
    assert r.status == "failed" and r.t.size == 1
    assert "SingularSystem: a linear system of the" in r.message, r.message
    assert "singular (Singular matrix), also after" in r.message
