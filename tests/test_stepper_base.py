"""The step base (``steppers.base.Stepper``): status, t_old, counters and failure capture are
the same for every stepper, and a StopRun ends a run as an event wherever it is raised."""

import numpy as np
import pytest

from fe_contact import (
    BeamSpec,
    Body,
    ContactPair,
    Joint,
    Model,
    Point,
    Sliding,
    TreeModel,
    assemble,
    simulate,
)
from fe_contact.steppers.base import SingularSystem, Stepper, StopRun
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.result import StepReport

G = 9.81  # m/s^2, the library's default gravity
LENGTH = 0.5  # m, the point-mass pendulum's arm

EPS = np.finfo(float).eps


def pendulum():
    """1 kg at 0.5 m on a revolute joint, released from horizontal: early on
    theta(t) = -g t^2 / (2 l) + O(t^4)."""
    tree = TreeModel(bodies=(Body(1.0, 0.0, (LENGTH, 0.0)),), joints=(Joint("revolute"),))
    return assemble(Model(tree=tree))


class FreeFall(Stepper):
    """A particle under constant acceleration a, stepped exactly (q + u h + a h^2 / 2): a
    stepper of nothing but the base, to test the base alone."""

    method = "free-fall"

    def __init__(self, t0, q0, u0, h, a, t_bound=None, fail_at=None):
        super().__init__(None, t0, h)
        self.q, self.u, self.a = np.array([q0]), np.array([u0]), a
        self.t_bound, self.fail_at = t_bound, fail_at

    def _step_impl(self, h):
        h = self.h if h is None else h
        if self.t_bound is not None:
            h = min(h, self.t_bound - self.t)
        self.n_substeps += 1
        if self.fail_at is not None and self.t + h > self.fail_at:
            self.q = self.q + np.nan  # a half-done step: the base must restore the state
            raise ArithmeticError(f"no motion past t = {self.fail_at} s")
        self.q = self.q + self.u * h + 0.5 * self.a * h * h
        self.u = self.u + self.a * h
        self.t = self.t + h
        none = np.zeros(0)
        return StepReport(self.t, self.q.copy(), self.u.copy(), (), none, none, {}, h=h)


def test_the_base_counts_steps_and_finishes_on_t_bound():
    """Steps of 0.1 s to t_bound = 0.25 s: two full steps and one of 0.05 s, then "finished";
    the state is the closed form q = u0 t + a t^2 / 2 at t = 0.25 s to round-off (a few
    additions of numbers of order 1: 8 eps of the position scale 1 m)."""
    st = FreeFall(0.0, 0.0, 1.0, 0.1, -G, t_bound=0.25)
    assert (st.status, st.t_old, st.report, st.n_steps) == ("running", None, None, 0)
    times = []
    while st.status == "running":
        report = st.step()
        times.append((st.t_old, st.t))
        assert st.report is report
    assert st.status == "finished" and st.n_steps == 3 == st.n_substeps
    assert [a for a, _ in times] == [0.0, times[0][1], times[1][1]]
    assert st.t == 0.25
    assert abs(st.q[0] - (0.25 - 0.5 * G * 0.25**2)) <= 8 * EPS
    with pytest.raises(RuntimeError, match="FreeFall.step: the stepper is 'finished'"):
        st.step()


def test_a_failed_step_keeps_the_last_good_state_and_the_error():
    """A step that fails half-done: status "failed", the exception kept with its text, t, q,
    u, t_old and n_steps those of the last completed step; stepping on is refused."""
    st = FreeFall(0.0, 0.0, 0.0, 0.1, -G, fail_at=0.25)
    st.step()
    good = st.step()
    with pytest.raises(ArithmeticError):
        st.step()
    assert st.status == "failed" and isinstance(st.error, ArithmeticError)
    assert st.message == "no motion past t = 0.25 s" == str(st.error)
    assert (st.t, st.n_steps, st.report) == (good.t, 2, good)
    assert st.t_old < st.t and np.array_equal(st.q, good.q) and np.array_equal(st.u, good.u)
    assert st.n_substeps == 3  # the failed attempt is counted as tried, not as a step
    with pytest.raises(RuntimeError, match="'failed'"):
        st.step()


def test_a_step_h_that_is_not_a_finite_positive_time_is_refused_by_name():
    st = FreeFall(0.0, 0.0, 0.0, 0.1, -G)
    with pytest.raises(ValueError, match=r"FreeFall\.step\.h: got -0\.1"):
        st.step(-0.1)
    assert st.status == "running" and st.n_steps == 0


@pytest.mark.parametrize("stepper", [GeneralizedAlpha, MoreauJean])
def test_every_stepper_counts_steps_and_t_old(stepper):
    """Three steps of 1 ms of the pendulum: n_steps 3, t_old the start of the third step, and
    theta = -g t^2 / (2 l) to 2e-7 rad (the O(t^4) term, g^2 t^4 / (4 l^2) ~ 3e-10 rad here,
    and the steppers' first-order start errors of O(g h t / l) for Moreau-Jean's theta = 1/2
    momentum step: 1.8e-7 rad at t = 3 ms)."""
    system = pendulum()
    st = stepper(system, 0.0, np.zeros(1), np.zeros(1), h=1e-3)
    assert isinstance(st, Stepper) and st.status == "running" and st.t_old is None
    for _ in range(3):
        st.step()
    assert st.n_steps == 3 and st.status == "running"
    assert st.t == pytest.approx(3e-3, abs=4 * EPS * 3e-3)  # three additions of h
    assert st.t_old == pytest.approx(2e-3, abs=4 * EPS * 3e-3)
    assert st.q[0] == pytest.approx(-G * st.t**2 / (2 * LENGTH), abs=2e-7)


def test_a_singular_step_fails_the_generalized_alpha_stepper_and_keeps_its_state(monkeypatch):
    """After two good steps every linear solve is singular: SingularSystem is raised after the
    halvings, the stepper's status is "failed" with the error kept, and its state is that of
    the second step (on the pendulum's closed form to 2e-7 rad, as above)."""
    system = pendulum()
    st = GeneralizedAlpha(system, 0.0, np.zeros(1), np.zeros(1), h=1e-3)
    st.step()
    good = st.step()

    def singular(self, dt, halving=False):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(GeneralizedAlpha, "_newton_step", singular)
    with pytest.raises(SingularSystem):
        st.step()
    assert st.status == "failed" and isinstance(st.error, SingularSystem)
    assert "singular" in st.message and st.message == str(st.error)
    assert st.t == good.t and st.n_steps == 2 and np.array_equal(st.q, good.q)
    assert st.q[0] == pytest.approx(-G * st.t**2 / (2 * LENGTH), abs=2e-7)


def slider_system():
    """A 20 g mass sliding without friction or gravity on a 0.4 m strip (the StopRun example)."""
    slider = TreeModel(
        bodies=(Body(1e-9, 1e-12), Body(0.02, 1e-9)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
        gravity=(0.0, 0.0),
    )
    strip = BeamSpec(
        length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
    )
    contact = ContactPair("slider", Point(1), "beam", Sliding())
    model = Model(tree=slider, structures={"beam": strip}, gravity=(0.0, 0.0), contacts=(contact,))
    return assemble(model)


def test_a_contact_leaving_its_structure_is_an_event_of_the_stepper():
    """At 0.5 m/s from 0.01 m before the free end the mass leaves the strip at t = 0.02 s: the
    step that would pass it raises StopRun and the stepper's status is "event", its state the
    last completed step's, at or before 0.02 s (x = 0.39 m + 0.5 t: no force along the strip,
    to 1e-9 m, the Newton tolerance's order)."""
    system = slider_system()
    q0, u0 = system.initial_state([0.39, 0.0], [0.5, 0.0])
    st = GeneralizedAlpha(system, 0.0, q0, u0, h=2e-3)
    with pytest.raises(StopRun):
        for _ in range(20):
            st.step()
    assert st.status == "event" and isinstance(st.error, StopRun) and "left" in st.message
    assert st.t == st.report.t and st.t <= 0.02 + 1e-9
    assert st.q[0] == pytest.approx(0.39 + 0.5 * st.t, abs=1e-9)


def test_stop_run_from_an_observer_ends_the_run_as_an_event():
    """An observer that raises StopRun once the pendulum has turned by 1e-3 rad: the run ends
    with status "event" and the StopRun's message, the state it stopped on kept as the last
    row; that row is the first past 1e-3 rad, at t = sqrt(2 l 1e-3 / g) = 10.1 ms on the
    closed form, so the 11th step of 1 ms."""
    system = pendulum()

    def stop_when_turned(system, report, row):
        if report.q[0] < -1e-3:
            raise StopRun(f"turned by {-report.q[0]:.3e} rad at t = {report.t:.3g} s")

    for method in ("generalized-alpha", "moreau"):
        r = simulate(
            system,
            (0.0, 0.05),
            system.initial_state(),
            method=method,
            h=1e-3,
            observers=[stop_when_turned],
        )
        assert r.status == "event" and r.success, (method, r.message)  # a clean end
        assert r.message.startswith("turned by") and len(r.t) == 12, (method, r.message)
        # t: eleven additions of 1 ms, each rounding by at most eps times the sum (<= 11 ms)
        assert r.t[-1] == pytest.approx(11e-3, abs=11 * EPS * 11e-3)
        assert r.q[-1, 0] < -1e-3 < r.q[-2, 0]


def test_an_observer_failing_otherwise_still_fails_the_run():
    """An observer raising another exception gives status "failed", naming it."""
    system = pendulum()

    def broken(system, report, row):
        if report.t > 0.0:
            raise KeyError("no such column")

    r = simulate(system, (0.0, 0.01), system.initial_state(), h=1e-3, observers=[broken])
    assert r.status == "failed" and "KeyError" in r.message and "in an observer" in r.message
