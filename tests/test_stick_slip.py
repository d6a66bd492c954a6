"""Stick-slip with the generalised-alpha stepper: Coulomb friction with a static and a kinetic
coefficient, sticking as an added tangential constraint whose multiplier is the static friction
force, and the switches located in time (001 sec. 10.3.2).

References are closed forms of a block (mass m, weight m g on a rigid level line) on a spring
k: while it slips with velocity sign s, m x'' = -k x - s mu_k m g, a harmonic motion about
x_c = -s d (d = mu_k m g / k) with omega = sqrt(k / m); each half-period pi / omega it stops, at
an amplitude 2 d smaller, and stays stuck once k |x| <= mu_s m g.
"""

import numpy as np
import pytest
from scipy.integrate import trapezoid

from fe_contact.model import ContactPair, Line, Model, Point, Sliding
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

M, G, K = 0.5, 9.81, 200.0
OMEGA = np.sqrt(K / M)


def block_on_spring(mu, mu_s=None, actuator=None, stiffness=K, v0=None) -> tuple:
    """The block: a prismatic x joint with spring ``stiffness`` to x = 0 (and an optional
    actuator force), a prismatic y joint, a point mass M on the line y = 0; ``v0`` : the
    continuous friction law's characteristic velocity (None: Coulomb with stick)."""
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(M, 0.0)),
        joints=(
            Joint("prismatic", stiffness=stiffness, actuator=actuator),
            Joint("prismatic", parent=0, angle=np.pi / 2),
        ),
    )
    contact = ContactPair("block", Point(1), Line((0.0, 0.0), (0.0, 1.0)), Sliding(mu, mu_s, v0))
    return assemble(Model(tree=tree, contacts=(contact,)))


def closed_form_stops(x0, mu, mu_s):
    """Times and positions where the block released at rest from x0 stops, until it sticks."""
    d = mu * M * G / K
    times, positions, x, t = [], [], x0, 0.0
    while K * abs(x) > mu_s * M * G:
        s = -np.sign(x)  # it moves towards the spring's rest
        x = -s * d - (x + s * d)  # half a period about the centre -s d
        t += np.pi / OMEGA
        times.append(t)
        positions.append(x)
    return np.array(times), np.array(positions)


@pytest.mark.parametrize("mu_s", [0.2, 0.35])
def test_block_on_spring_stops_and_sticks_at_the_closed_form_times(mu_s, measured):
    """Released from x0 = 0.1 m with mu_k = 0.2: it stops every half period pi / omega at
    amplitudes 2 d smaller (d = 4.9 mm), reverses while the spring beats the static friction,
    then sticks for good. Event times within the stepper's phase error (omega h)^2 / 12 per
    radian (3.3e-5 at h = 1 ms: we allow 1e-5 of the elapsed time at h = 0.25 ms, where it is
    2e-6); positions to 1e-6 m; after
    sticking the block does not move at all (no creep: the pin is a position constraint)."""
    mu, x0 = 0.2, 0.1
    system = block_on_spring(mu, mu_s)
    q0 = np.array([x0, 0.0])
    times, positions = closed_form_stops(x0, mu, mu_s)
    t_end = times[-1] + 0.3
    res = simulate(system, (0.0, t_end), (q0, np.zeros(2)), h=2.5e-4, rho_inf=1.0)
    assert res.status == "finished", res.message
    state = res["block_state"]
    stuck = np.flatnonzero(state == "stick")
    assert stuck.size and np.all(state[stuck[0] :] == "stick")  # sticks once, for good
    # the final position and the stopping time
    measured.close(
        "final position",
        res.q[stuck[0] :, 0],
        positions[-1],
        atol=1e-6,
        unit="m",
        reference="the Coulomb-damped oscillator's stops (amplitude falls 2 mu g / omega^2)",
    )
    assert np.ptp(res.q[stuck[0] :, 0]) == 0.0  # no creep at all
    assert times[-1] <= res.t[stuck[0]] < times[-1] + 2.5e-4 + 1e-5 * times[-1]
    # every stop located at its closed-form time: reversals, then the stick
    kinds = [kind for _, _, kind in res.events]
    assert kinds == ["reversal"] * (times.size - 1) + ["stick"]
    event_times = np.array([t for t, _, _ in res.events])
    measured.close(
        "stop times (reversals and the stick)",
        event_times,
        times,
        rtol=1e-5,
        atol=1e-10,
        unit="s",
        reference="every half period pi / omega",
    )
    # the static friction force holds the spring, within the cone
    friction = res["block_friction_force"]
    measured.close(
        "static friction force while stuck",
        friction[stuck],
        K * positions[-1],
        rtol=1e-9,
        unit="N",
        reference="spring force k x at the closed-form stop",
    )
    assert np.all(np.abs(friction[stuck]) <= mu_s * M * G)
    # energy: friction dissipates mu_k m g times the path, and the balance closes
    path = abs(x0 - positions[0]) + np.sum(np.abs(np.diff(positions)))
    measured.close(
        "friction loss",
        res["dissipated_friction"][-1],
        mu * M * G * path,
        rtol=1e-6,
        unit="J",
        reference="mu_k m g times the closed-form path",
    )
    measured("energy balance residual", np.max(np.abs(res["energy_error"])), 1e-9, unit="J")
    assert np.all(np.diff(res["dissipated_friction"]) >= -1e-15)


def test_block_at_rest_inside_the_cone_sticks_from_the_start(measured):
    """Spring stretched by 5 mm (1 N) against mu_s m g = 1.47 N: stuck from t = 0, the static
    friction force is the spring force exactly, nothing moves."""
    system = block_on_spring(0.2, 0.3)
    res = simulate(system, (0.0, 0.1), (np.array([0.005, 0.0]), np.zeros(2)), h=1e-3)
    assert res.status == "finished", res.message
    assert np.all(res["block_state"] == "stick")
    assert np.all(res.q[:, 0] == 0.005)
    measured.close(
        "static friction force",
        res["block_friction_force"],
        K * 0.005,
        rtol=1e-12,
        unit="N",
        reference="spring force k x",
    )
    measured.close(
        "normal force", res["block_normal_force"], M * G, rtol=1e-12, unit="N", reference="m g"
    )


def test_growing_force_breaks_the_block_loose_at_mu_s_and_slides_with_mu_k(measured):
    """No spring; the actuator pushes with F = c t (c = 10 N/s). The block sticks until
    F = mu_s m g (t_b = 0.147 s), then slides with m x'' = c t - mu_k m g:
    x(t) = c (t - t_b)^3 / (6 m) + (mu_s - mu_k) g (t - t_b)^2 / 2 (c t_b = mu_s m g).
    The breakaway is located to 1e-9 s; after it the trapezoidal rule (rho_inf = 1) errs by
    c h^2 (t - t_b) / (12 m) <= 2.6e-7 m at h = 1 ms on this cubic."""
    c, mu, mu_s = 10.0, 0.2, 0.3
    system = block_on_spring(mu, mu_s, actuator=lambda t: c * t, stiffness=0.0)
    res = simulate(system, (0.0, 0.3), (np.zeros(2), np.zeros(2)), h=1e-3, rho_inf=1.0)
    assert res.status == "finished", res.message
    t_b = mu_s * M * G / c
    state = res["block_state"]
    assert np.all(state[res.t < t_b - 1e-3] == "stick")
    assert np.all(state[res.t > t_b + 1e-3] == "slip")
    tau = np.clip(res.t - t_b, 0.0, None)
    x = c * tau**3 / (6 * M) + (mu_s - mu) * G * tau**2 / 2
    (t_event, name, kind), *others = res.events
    assert (name, kind) == ("block", "slip") and not others
    measured("breakaway time", abs(t_event - t_b), 1e-9, unit="s", reference="c t_b = mu_s m g")
    bound = c * 1e-3**2 * tau / (12 * M)
    measured.each(
        "position while sliding",
        np.abs(res.q[:, 0] - x),
        1.05 * bound + 1e-12,
        unit="m",
        reference="x = c tau^3 / (6 m) + (mu_s - mu_k) g tau^2 / 2",
    )
    # the balance: exact while stuck (nothing moves, no work); once sliding, the trapezoidal
    # quadrature of the actuator's power P = c t x' errs by at most h^2 / 12 int |P''| dt
    error = np.abs(res["energy_error"])
    assert np.all(error[res.t < t_b] == 0.0)
    fine = np.linspace(t_b, 0.3, 20001)
    tau_f = fine - t_b
    power = c * fine * (c * tau_f**2 / (2 * M) + (mu_s - mu) * G * tau_f)
    p2 = np.gradient(np.gradient(power, fine), fine)
    measured(
        "energy balance residual while sliding",
        np.max(error),
        1e-3**2 / 12 * trapezoid(np.abs(p2), fine) * 1.1,
        unit="J",
        reference="trapezoidal quadrature bound h^2 / 12 int |P''| dt",
    )


def test_static_coefficient_round_trips_through_a_model_file(tmp_path):
    """mu_s is written to the model file (only when it differs from mu) and read back; a
    static coefficient below the kinetic one is an error naming the key."""
    from fe_contact.io.model_file import ModelFileError, load_model, save_model

    model = block_on_spring(0.2, 0.35).model
    path = save_model(model, tmp_path / "block.toml")
    assert load_model(path).model == model
    continuous = block_on_spring(0.2, v0=5e-3).model
    assert load_model(save_model(continuous, tmp_path / "c.toml")).model == continuous
    text = path.read_text().replace("mu_s = 0.35", "mu_s = 0.1")
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(ModelFileError, match="mu_s"):
        load_model(tmp_path / "bad.toml")


def test_contact_state_is_in_the_history_csv_and_the_paraview_frames(tmp_path, measured):
    """The block stops at t = pi / omega (mu_k = mu_s = 0.35 from 10 mm holds it): the CSV's
    state column and the contact block's ``state`` (1 slip, 2 stick) follow the run."""
    from series import frame_files, part

    from fe_contact.steppers.observers import standard_observers
    from fe_contact.steppers.result import read_history

    system = block_on_spring(0.35)
    h = 1e-3
    observers = standard_observers(tmp_path, h, 0.05)
    res = simulate(
        system, (0.0, 0.3), (np.array([0.01, 0.0]), np.zeros(2)), h=h, observers=observers
    )
    assert res.status == "finished", res.message
    [(t_stick, _, kind)] = res.events
    assert kind == "stick"
    measured("stop time", abs(t_stick - np.pi / OMEGA), 1e-5, unit="s", reference="pi / omega")
    history = read_history(tmp_path / "history.csv")
    np.testing.assert_array_equal(history["block_state"], res["block_state"])
    for t, path in frame_files(tmp_path / "frames.pvd"):
        contacts = part(path, "contacts")
        state, contact = contacts.point_data["state"], contacts.point_data["contact"] == 0
        assert contact.any() and np.all(state[contact] == (2 if t > t_stick else 1)), t


@pytest.mark.slow
def test_continuous_friction_law_decelerates_as_its_closed_form_and_creeps(measured):
    """Bauchau's (000) continuous law, eq. (10), on the block without spring, from 0.5 m/s:
    v' = -mu g (1 - exp(-v / v0)) integrates to v(t) = v0 ln(1 + (exp(v_i / v0) - 1)
    exp(-mu g t / v0)): it never stops (no stick). With v0 = 5 mm/s the step-size control of
    000 sec. 6 takes sub-steps that change v_t by about v0 / 10 below 3 v0; that keeps v within
    2e-3 v0 at h = 1 ms (7e-6 m/s measured; 4.5e-5 at 2 ms, 2.3e-6 at 0.5 ms). The trapezoidal
    quadrature of the friction power, which varies on the scale of v0, leaves 1.1e-7 J in the
    balance (2e-6 of the kinetic energy).
    Then the same law on the spring-held block of the stick test creeps back towards the
    spring's rest, where Coulomb with stick holds it still."""
    mu, v0, v_i = 0.3, 5e-3, 0.5
    system = block_on_spring(mu, v0=v0, stiffness=0.0)
    res = simulate(system, (0.0, 0.3), (np.zeros(2), np.array([v_i, 0.0])), h=1e-3)
    assert res.status == "finished", res.message
    rate = mu * G / v0
    exact = v0 * np.log1p(np.expm1(v_i / v0) * np.exp(-rate * res.t))
    measured.close(
        "block velocity",
        res.u[:, 0],
        exact,
        rtol=1e-7,
        atol=2e-3 * v0,
        unit="m/s",
        reference="closed-form v(t) of the continuous law",
    )
    assert res.n_substeps > res.n_steps  # the control took sub-steps near v = 0
    assert np.all(res["block_state"] == "slip") and res.events == ()
    kinetic = 0.5 * M * v_i**2
    lost = 0.5 * M * (v_i**2 - exact[-1] ** 2)
    measured(
        "friction loss",
        abs(res["dissipated_friction"][-1] - lost),
        3e-6 * kinetic,
        unit="J",
        reference="kinetic energy lost in closed form",
    )
    measured(
        "energy balance residual", np.max(np.abs(res["energy_error"])), 3e-6 * kinetic, unit="J"
    )
    # creep: 5 mm of spring (1 N) inside the cone mu m g = 1.47 N
    creep = block_on_spring(mu, v0=v0)
    res = simulate(creep, (0.0, 0.5), (np.array([0.005, 0.0]), np.zeros(2)), h=1e-3)
    assert res.status == "finished", res.message
    assert res.q[-1, 0] < 0.005 - 1e-4  # it has crept by more than 0.1 mm
    assert np.all(np.diff(res.q[:, 0]) <= 0.0)


def block_on_incline(angle, mu, mu_s):
    """The point mass M on a rigid line through the origin inclined by ``angle`` (rad, rising
    to +x), gravity g; q = (x, y). Returns (system, unit vector up the slope)."""
    up = np.array([np.cos(angle), np.sin(angle)])
    normal = (-np.sin(angle), np.cos(angle))
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(M, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )
    contact = ContactPair("block", Point(1), Line((0.0, 0.0), normal), Sliding(mu, mu_s))
    return assemble(Model(tree=tree, contacts=(contact,))), up


@pytest.mark.parametrize(
    ("degrees", "speed", "expected"),
    [
        (10.0, 0.0, "stays"),  # tan 10 deg = 0.18 < mu_s = 0.4
        (30.0, 0.0, "slides"),  # tan 30 deg = 0.58 > mu_s
        (10.0, 1.0, "stops and sticks"),  # up the slope
        (10.0, -1.0, "stops and sticks"),  # down the slope: tan 10 deg < mu_k = 0.3
        (20.0, 1.0, "stops and sticks"),  # tan 20 deg = 0.36: > mu_k, but < mu_s holds it
        (25.0, 1.0, "stops and slides back"),  # tan 25 deg = 0.47 > mu_s
    ],
)
def test_block_on_a_rigid_incline(degrees, speed, expected, measured):
    """mu_k = 0.3, mu_s = 0.4. Along the slope (s up, v = s'), while slipping with sign
    sigma = sign(v): v' = -g (sin a + sigma mu_k cos a); it stops at t1 = |v0| / |v'| and then
    sticks if tan a <= mu_s, else slides down at g (sin a - mu_k cos a). Positions against
    these closed forms to 1e-9 m (constant accelerations: exact for the stepper), the stop
    time to 1e-9 s (the event location)."""
    a, mu, mu_s = np.radians(degrees), 0.3, 0.4
    system, up = block_on_incline(a, mu, mu_s)
    t_end = 1.2  # the slowest case (10 deg, down the slope) stops at 0.84 s
    res = simulate(system, (0.0, t_end), (np.zeros(2), speed * up), h=1e-3)
    assert res.status == "finished", res.message
    s = res.q @ up
    assert np.allclose(res.q @ np.array([-up[1], up[0]]), 0.0, atol=1e-12)  # stays on the line
    kinds = [kind for _, _, kind in res.events]
    down = -G * (np.sin(a) - mu * np.cos(a))  # acceleration while sliding down (sigma = -1)
    if expected == "stays":
        assert kinds == [] and np.all(res["block_state"] == "stick") and np.all(s == 0.0)
        return
    if expected == "slides":
        assert kinds == [] and np.all(res["block_state"] == "slip")
        measured.close(
            "position along the slope",
            s,
            0.5 * down * res.t**2,
            rtol=0.0,
            atol=1e-9,
            unit="m",
            reference="constant-acceleration closed form",
        )
        return
    sigma = np.sign(speed)
    decel = -G * (np.sin(a) + sigma * mu * np.cos(a))
    t1 = -speed / decel
    s1 = speed * t1 + 0.5 * decel * t1**2
    before = res.t <= t1
    measured.close(
        "position along the slope before the stop",
        s[before],
        speed * res.t[before] + 0.5 * decel * res.t[before] ** 2,
        rtol=0.0,
        atol=1e-9,
        unit="m",
        reference="constant-acceleration closed form",
    )
    measured("stop time", abs(res.events[0][0] - t1), 1e-9, unit="s", reference="|v0| / |v'|")
    after = res.t > t1
    if expected == "stops and sticks":
        assert kinds == ["stick"]
        measured.close(
            "position while stuck",
            s[after],
            s1,
            rtol=0.0,
            atol=1e-9,
            unit="m",
            reference="closed-form stop position",
        )
        assert np.all(res["block_state"][after] == "stick")
    else:
        assert kinds == ["reversal"]
        tau = res.t[after] - t1
        measured.close(
            "position sliding back",
            s[after],
            s1 + 0.5 * down * tau**2,
            rtol=0.0,
            atol=1e-9,
            unit="m",
            reference="constant-acceleration closed form",
        )
    measured("energy balance residual", np.max(np.abs(res["energy_error"])), 1e-10, unit="J")
    assert np.all(np.diff(res["dissipated_friction"]) >= -1e-15)


def test_error_controlled_sub_steps_follow_the_motion_with_fewer_steps(measured):
    """The block on the spring (mu_k = 0.2, mu_s = 0.35, from 0.1 m) with output every 50 ms
    and error_tol = 1e-9 m per sub-step: the controller takes small sub-steps in the slip
    phases and steps up to the output interval once the block sticks. The events come in the
    closed-form order, x(t) stays within 5e-6 m of the closed form at every output time, at
    about half the sub-steps a fixed step needs for the same accuracy (h = 0.25 ms: 1.7e-6 m
    with 8356 steps)."""
    mu, mu_s, x0 = 0.2, 0.35, 0.1
    system = block_on_spring(mu, mu_s)
    times, positions = closed_form_stops(x0, mu, mu_s)
    t_end = times[-1] + 0.5
    y0 = (np.array([x0, 0.0]), np.zeros(2))
    res = simulate(system, (0.0, t_end), y0, h=0.05, rho_inf=1.0, error_tol=1e-9)
    assert res.status == "finished", res.message
    assert [kind for _, _, kind in res.events] == ["reversal"] * (times.size - 1) + ["stick"]
    d = mu * M * G / K
    x, start, exact = x0, 0.0, []
    for t in res.t:  # the closed form, half period by half period
        x, start = x0, 0.0
        value = positions[-1]
        for t_stop, x_stop in zip(times, positions, strict=True):
            if t < t_stop:
                centre = np.sign(x) * d
                value = centre + (x - centre) * np.cos(OMEGA * (t - start))
                break
            x, start = x_stop, t_stop
        exact.append(value)
    measured(
        "block position at the output times",
        np.max(np.abs(res.q[:, 0] - np.array(exact))),
        5e-6,
        unit="m",
        reference="closed form, half period by half period",
    )
    assert res.n_substeps < 0.7 * 8356


@pytest.mark.parametrize("degrees", [20.0, 40.0])
def test_disk_on_an_incline_rolls_or_slips(degrees, measured):
    """A disk (m = 1 kg, R = 0.1 m, I = 0.004 kg m^2) released at rest on a rigid incline with
    mu = 0.2: it rolls (stick of a circle: no slip at the contact, velocity level) while the
    friction it needs, m g sin(a) I / (I + m R^2), stays within mu m g cos(a), that is for
    tan(a) <= mu (1 + m R^2 / I) = 0.7 (20 deg); then s'' = g sin(a) / (1 + I / (m R^2)).
    Steeper (40 deg) it slips: s'' = g (sin a - mu cos a), phi'' = -mu m g cos(a) R / I.
    Constant accelerations: positions to 1e-9 m; rolling does no friction work."""
    from fe_contact.model import Circle
    from fe_contact.multibody.builders import floating_body

    m, R, inertia, mu = 1.0, 0.1, 0.004, 0.2
    a = np.radians(degrees)
    up = np.array([np.cos(a), np.sin(a)])
    normal = np.array([-np.sin(a), np.cos(a)])
    contact = ContactPair("disk", Circle(2, R), Line((0.0, 0.0), tuple(normal)), Sliding(mu))
    system = assemble(Model(tree=floating_body(m, inertia), contacts=(contact,)))
    q0 = np.zeros(3)
    q0[:2] = R * normal
    res = simulate(system, (0.0, 0.5), (q0, np.zeros(3)), h=1e-3)
    assert res.status == "finished", res.message
    s = (res.q[:, :2] - R * normal) @ up
    if np.tan(a) <= mu * (1 + m * R**2 / inertia):
        accel = -G * np.sin(a) / (1 + inertia / (m * R**2))
        assert np.all(res["disk_state"] == "stick")
        measured.close(  # rolls without slip
            "rolling angle",
            res.q[:, 2],
            -s / R,
            rtol=0.0,
            atol=1e-9,
            unit="rad",
            reference="phi = -s / R",
        )
        friction = m * G * np.sin(a) * inertia / (inertia + m * R**2)
        measured.close(
            "rolling friction force",
            np.abs(res["disk_friction_force"]),
            friction,
            rtol=1e-9,
            unit="N",
            reference="m g sin(a) I / (I + m R^2)",
        )
        assert np.all(res["dissipated_friction"] == 0.0)
    else:
        accel = -G * (np.sin(a) - mu * np.cos(a))
        assert np.all(res["disk_state"] == "slip")
        spin = -mu * m * G * np.cos(a) * R / inertia  # the friction turns it down the slope
        measured.close(
            "spin angle while slipping",
            res.q[:, 2],
            -0.5 * spin * res.t**2,
            rtol=0.0,
            atol=1e-9,
            unit="rad",
            reference="constant angular acceleration closed form",
        )
    measured.close(
        "position along the slope",
        s,
        0.5 * accel * res.t**2,
        rtol=0.0,
        atol=1e-9,
        unit="m",
        reference="constant-acceleration closed form",
    )
    measured("energy balance residual", np.max(np.abs(res["energy_error"])), 1e-10, unit="J")
