"""Moreau-Jean's contact events (``MoreauJean.events``): the changes of each pair's state seen
at the end of a step, against the closed-form times of a bouncing disk (Newton's law) and a
disk that rolls or slips down an incline from rest on it.

References: a disk dropped from H onto the ground first touches at t1 = sqrt(2 H / g); with
restitution e it leaves at e v1 and touches again after 2 e v1 / g, and so on (v1 = g t1).
Events are not located in time: a pair closes in the first step whose predictor
q_P = q_A + h u_A / 2 has a gap <= 0, so a touch-down at t_c is listed at the end t of a step
with t - 3h/2 < t_c <= t - h/2 (the second touch-down: its launch and flight are off by the
first's lateness, < h, so one more h either side); the release follows in the impact step's
successor (Newton's law sends the disk off at e v1 within the impact step).
"""

import numpy as np
import pytest

from fe_contact import (
    Circle,
    ContactPair,
    Line,
    Model,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)

G = 9.81
RADIUS = 0.1
MASS = 100.0 * np.pi * RADIUS**2  # a disk of 100 kg/m^2
INERTIA = 0.5 * MASS * RADIUS**2


def disk_on(line, law):
    return assemble(
        Model(
            tree=floating_body(MASS, INERTIA, gravity=(0.0, -G)),
            contacts=(ContactPair("disk", Circle(2, RADIUS), line, law),),
        )
    )


def test_bouncing_disk_lists_its_impacts_and_lift_offs_at_the_closed_form_times():
    H, e, h = 0.2, 0.5, 1e-3
    system = disk_on(Line((0.0, 0.0), (0.0, 1.0)), Unilateral(0.3, e))
    q0, u0 = system.initial_state([0.0, RADIUS + H, 0.0])
    r = simulate(system, (0.0, 0.45), (q0, u0), method="moreau", h=h, penetration_tolerance=None)
    assert r.status == "finished", r.message
    t1 = np.sqrt(2.0 * H / G)  # 0.2019 s
    t2 = t1 + 2.0 * e * G * t1 / G  # 0.4038 s: the second touch-down
    kinds = [kind for _, _, kind in r.events]
    assert kinds == ["impact", "open", "impact", "open"], r.events
    times = [t for t, _, _ in r.events]
    assert all(name == "disk" for _, name, _ in r.events)
    # each touch-down is listed at the end of the step whose predictor first closed
    assert times[0] - 1.5 * h < t1 <= times[0] - 0.5 * h + 1e-12, (times[0], t1)
    assert times[1] == pytest.approx(times[0] + h, abs=1e-12)  # released in the next step
    assert times[2] - 2.5 * h < t2 <= times[2] + 0.5 * h, (times[2], t2)
    assert times[3] == pytest.approx(times[2] + h, abs=1e-12)
    assert r.event_counts()["impact"] == 2 and r.event_counts()["open"] == 2


@pytest.mark.parametrize("mu", [0.3, 0.1])
def test_disk_resting_on_an_incline_has_no_events(mu):
    """Released on the incline it stays closed: rolling (mu = 0.3 >= tan(30 deg) / 3: stick
    throughout) or slipping (mu = 0.1: slip throughout); closed at the start, so no impact."""
    incline = Line.incline(np.radians(30.0))
    system = disk_on(incline, Unilateral(mu))
    q0, u0 = system.initial_state([*(RADIUS * np.asarray(incline.normal)), 0.0])
    r = simulate(system, (0.0, 0.1), (q0, u0), method="moreau", h=1e-3, keep_reports=True)
    assert r.status == "finished", r.message
    assert r.events == ()
    expected = "stick" if mu == 0.3 else "slip"
    assert {rep.contacts[0].state for rep in r.reports[1:]} == {expected}
