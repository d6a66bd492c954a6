"""A contact that starts at rest on its target sticks from the first step."""

import numpy as np
import pytest
from test_unilateral import ball

from fe_contact.model import Sliding
from fe_contact.steppers.simulate import simulate

G = 9.81


@pytest.mark.parametrize("v0", [0.0, 1e-14, -1e-14])
def test_a_ball_at_rest_within_round_off_sticks_from_the_start(v0):
    """A slip speed of round-off size (1e-14 m/s, within REST_SLIP = 1e-12 m/s) is rest: the
    ball sticks from the first step with no event and no slip afterwards, whatever the sign
    of its round-off (a BLAS kernel decides that sign)."""
    system = ball(Sliding(0.3))
    res = simulate(system, (0.0, 0.05), (np.zeros(2), np.array([v0, 0.0])), h=1e-3)
    assert res.status == "finished", res.message
    assert len(res.events) == 0
    assert set(res["ball_state"]) == {"stick"}
    assert np.max(np.abs(res.q[:, 0])) <= 1e-15  # moved no more than 1e-14 m/s for 0.05 s


def test_a_slow_slip_above_round_off_slides_to_rest_at_the_closed_form_time(measured):
    """At 1e-3 m/s the ball slips and Coulomb friction stops it at t = v / (mu g) = 3.4e-4 s
    (located to the event tolerance 1e-10 s; we allow 1e-9 s), having slid v^2 / (2 mu g)."""
    mu, v = 0.3, 1e-3
    system = ball(Sliding(mu))
    res = simulate(system, (0.0, 0.01), (np.zeros(2), np.array([v, 0.0])), h=1e-3)
    stops = [t for t, _, kind in res.events if kind == "stick"]
    assert len(stops) == 1
    measured("stop time", abs(stops[0] - v / (mu * G)), 1e-9, unit="s", reference="v / (mu g)")
    measured.close(
        "distance slid",
        res.q[-1, 0],
        v**2 / (2 * mu * G),
        rtol=1e-9,
        unit="m",
        reference="v^2 / (2 mu g)",
    )
