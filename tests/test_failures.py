"""A run that fails after its start keeps what it computed: ``simulate`` returns status "failed",
a message that names the cause and the time, and every state up to the last completed step; the
CSV history and the ParaView series written as the run went agree with the result.

Failure kinds: an exception raised in a user callback (a joint actuator), a non-finite force
from a callable, a contact problem that the impulse solver cannot solve to its tolerance, a
mechanism driven into a locking position (no configuration closes its loop), and a rod sliding
into its Painleve range, for both steppers where they apply.
"""

import dataclasses

import numpy as np
import pytest
from series import frame_files

from fe_contact import Circle, ContactPair, Line, Model, Unilateral, assemble, simulate
from fe_contact.model import LoopClosure
from fe_contact.multibody.builders import floating_body
from fe_contact.multibody.drive import Drive
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.steppers.observers import standard_observers
from fe_contact.steppers.result import read_history

H = 1e-3
T_FAIL = 0.0505  # s: the callbacks fail from here on


def failing_actuator(kind):
    def actuator(t):
        if t >= T_FAIL:
            if kind == "callback":
                raise RuntimeError("torque sensor lost")
            return float("nan")
        return 0.1

    return actuator


def pendulum(kind):
    """A physical pendulum whose joint actuator fails at T_FAIL (generalised-alpha)."""
    joint = Joint("revolute", angle=-np.pi / 2, actuator=failing_actuator(kind))
    tree = TreeModel((Body(1.0, 0.01, (0.2, 0.0)),), (joint,))
    system = assemble(Model(tree=tree))
    return system, (np.array([0.05]), np.zeros(1)), {}


def disk(kind):
    """The disk resting on the ground with a failing actuator on its rotation (Moreau-Jean)."""
    tree = floating_body(1.0, 0.005)
    joints = tree.joints[:2] + (
        dataclasses.replace(tree.joints[2], actuator=failing_actuator(kind)),
    )
    tree = dataclasses.replace(tree, joints=joints)
    model = Model(
        tree=tree,
        contacts=(ContactPair("disk", Circle(2, 0.1), Line((0, 0), (0, 1)), Unilateral(0.5)),),
    )
    system = assemble(model)
    return system, system.initial_state([0.0, 0.1, 0.0]), {}


def unsolvable(_):
    """A disk dropped 5 cm into a V-groove of two rigid lines at +-45 deg: the two contacts
    close together and are coupled, which two Gauss-Seidel sweeps (``max_iterations=2``, below
    the sweep after which the solver would try Newton and pivoting) cannot solve to 1e-9."""
    s = np.sqrt(0.5)
    law = Unilateral(0.5)
    system = assemble(
        Model(
            tree=floating_body(1.0, 0.005),
            contacts=(
                ContactPair("left", Circle(2, 0.1), Line((0, 0), (s, s)), law),
                ContactPair("right", Circle(2, 0.1), Line((0, 0), (-s, s)), law),
            ),
        )
    )
    return system, system.initial_state([0.0, 0.1 / s + 0.05, 0.0]), {"max_iterations": 2}


def four_bar(_):
    """A non-Grashof four-bar (crank 0.6 m driven at 1 rad/s, coupler and rocker 0.5 m, ground
    pivots 0.8 m apart) driven into its locking position: coupler and rocker align when the
    crank is at 90 deg, |crank tip - pivot| = sqrt(1 - 0.96 cos(theta)) = 1; past it no
    configuration closes the loop. Starting at 90 deg - 0.2 rad, it locks at t = 0.2 s."""
    a, b, c, d = 0.6, 0.5, 0.5, 0.8
    theta0 = np.pi / 2 - 0.2

    def bar(length):
        return Body(1.0, length**2 / 12, (length / 2, 0.0))

    joints = (
        Joint("revolute"),
        Joint("revolute", parent=0, location=(a, 0.0)),
        Joint("revolute", parent=1, location=(b, 0.0)),
    )
    model = Model(
        tree=TreeModel((bar(a), bar(b), bar(c)), joints, gravity=(0.0, 0.0)),
        drives=(Drive.constant_velocity(0, theta0, 1.0),),
        loops=(LoopClosure(2, (c, 0.0), None, (d, 0.0), name="rocker"),),
        gravity=(0.0, 0.0),
    )
    crank = a * np.array([np.cos(theta0), np.sin(theta0)])
    pivot = np.array([d, 0.0])
    dist = np.linalg.norm(pivot - crank)
    ex = (pivot - crank) / dist
    x = (b**2 - c**2 + dist**2) / (2 * dist)
    elbow = crank + x * ex + np.sqrt(b**2 - x**2) * np.array([-ex[1], ex[0]])
    phi1 = np.arctan2(*(elbow - crank)[::-1])
    phi2 = np.arctan2(*(pivot - elbow)[::-1])
    q0 = np.array([theta0, phi1 - theta0, phi2 - phi1])
    return assemble(model), (q0, np.array([1.0, 0.0, 0.0])), {}


def painleve_rod(_):
    """Painleve's rod (001 remark 10.3.13): a uniform rod (1 kg, half-length l = 0.5 m) whose
    lower end slides on the rigid line y = 0 with mu = 2 > 4/3, started at 32 deg (below the
    range 37.4-79.2 deg where 1 + 3 cos(theta) (cos(theta) - mu sin(theta)) < 0, the friction
    of the end sliding to -x making the normal force undetermined), turning up at 4 rad/s with
    its end sliding at -3 + l sin(32 deg) 4 = -1.94 m/s. In the rod's own equations
    (theta'' = 3 (mu s - c)(g - l s theta'^2) / (l bracket), x'' = mu N / m, integrated by
    scipy to 1e-12) the normal force grows as 1 / bracket and stops the sliding end at
    t = 0.021475 s, at 37.36 deg, 0.07 deg short of the Painleve angle: at h = 1e-3 s the step
    that contains it cannot converge there, and the run reports the Painleve case it nears."""
    from fe_contact.model import Point, Sliding

    half, theta, rate, x_rate = 0.5, np.radians(32.0), 4.0, -3.0
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.0, 0.0), Body(1.0, half**2 / 3)),
        joints=(
            Joint("prismatic"),
            Joint("prismatic", parent=0, angle=np.pi / 2),
            Joint("revolute", parent=1, angle=-np.pi / 2),
        ),
    )
    contact = ContactPair("end", Point(2, (-half, 0.0)), Line((0.0, 0.0), (0.0, 1.0)), Sliding(2.0))
    system = assemble(Model(tree=tree, contacts=(contact,)))
    q0 = np.array([0.0, half * np.sin(theta), theta])
    u0 = np.array([x_rate, half * np.cos(theta) * rate, rate])
    return system, (q0, u0), {}


def rod_slip_stops() -> float:
    """The time at which the end of ``painleve_rod`` stops sliding, from the rod's own
    equations (independent of the library; scipy's solve_ivp to 1e-12)."""
    from scipy.integrate import solve_ivp

    m, half, g, mu = 1.0, 0.5, 9.81, 2.0

    def rates(t, y):
        theta, rate, x_rate = y
        s, c = np.sin(theta), np.cos(theta)
        accel = 3 / half * (mu * s - c) * (g - half * s * rate**2) / (1 + 3 * c * (c - mu * s))
        normal = m * g + m * half * (c * accel - s * rate**2)
        return [rate, accel, mu * normal / m]

    def end_velocity(t, y):
        return y[2] + half * np.sin(y[0]) * y[1]

    end_velocity.terminal = True
    y0 = [np.radians(32.0), 4.0, -3.0]
    return float(solve_ivp(rates, (0, 0.1), y0, events=end_velocity, rtol=1e-12, atol=1e-12).t[-1])


CASES = [
    ("generalized-alpha", pendulum, "callback", "torque sensor lost", T_FAIL),
    ("generalized-alpha", pendulum, "nan", "actuator of a revolute joint returned nan", T_FAIL),
    ("moreau", disk, "callback", "torque sensor lost", T_FAIL),
    ("moreau", disk, "nan", "actuator of a revolute joint returned nan", T_FAIL),
    # free fall of 0.05 m lasts sqrt(2 0.05 / g) = 0.101 s; the contact closes in that step
    ("moreau", unsolvable, "solver", "did not converge", np.sqrt(0.1 / 9.81)),
    ("generalized-alpha", four_bar, "locking", "no configuration", 0.2),
    ("generalized-alpha", painleve_rod, "painleve", "Painleve case", rod_slip_stops()),
]


@pytest.mark.parametrize(("method", "build", "kind", "cause", "t_fail"), CASES)
def test_failed_run_keeps_its_history_csv_and_frames(tmp_path, method, build, kind, cause, t_fail):
    system, (q0, u0), settings = build(kind)
    observers = standard_observers(tmp_path, H, 0.01)
    r = simulate(system, (0.0, 0.3), (q0, u0), method=method, h=H, observers=observers, **settings)
    assert r.status == "failed" and not r.success
    assert cause in r.message, r.message
    # the last stored state is the last completed step before the failure (the failing step
    # is the one that reaches t_fail; a step that evaluates its forces at its start, as the
    # Moreau predictor does, fails one step later)
    assert t_fail - 2 * H <= r.t[-1] < t_fail + H
    assert f"t = {r.t[-1]:.6g} s" in r.message
    assert r.t.size == int(round(r.t[-1] / H)) + 1 and np.all(np.isfinite(r.q))
    history = read_history(tmp_path / "history.csv")
    np.testing.assert_array_equal(history["t"], r.t)
    np.testing.assert_array_equal(history["kinetic_energy"], r["kinetic_energy"])
    frames = frame_files(tmp_path / "frames.pvd")
    assert frames[-1][0] == r.t[-1]  # the last state is a frame too
    assert all(path.exists() for _, path in frames)
