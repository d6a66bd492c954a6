"""The split of a Moreau-Jean step's contact work into columns of definite sign
(``steppers.impulse_work``): closed-form single impacts and slips, and random impulses within
the laws' sets.

Closed forms: a point mass m hitting a rigid line at speed v with Newton's law (no smooth
force in the step) leaves at e v; its kinetic energy falls by (1 - e^2) m v^2 / 2, which is the
impact loss. A block sliding at v that a friction impulse -mu P_N slows to v' = v - mu P_N / m
loses m (v^2 - v'^2) / 2, the friction loss. A friction impulse that reverses the slip works
on the start slip along it: that share is the timing column, not a negative friction loss.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fe_contact.steppers.impulse_work import impulse_work

EPS = np.finfo(float).eps


def one(p_n, p_t, gamma_a, gamma_e, e_n=0.0, e_t=0.0, mu=0.0):
    """impulse_work of one contact point; gamma = (normal, tangential) m/s."""
    return impulse_work(
        np.array([p_n]),
        np.array([p_t]),
        np.array(gamma_a, dtype=float),
        np.array(gamma_e, dtype=float),
        np.array([e_n, e_t]),
        np.array([mu]),
    )


def test_newton_impact_loss_is_the_kinetic_energy_lost():
    m, v = 0.3, 2.0  # kg, m/s towards the line
    for e in (0.0, 0.4, 1.0):
        p_n = m * (1.0 + e) * v  # the impulse that turns -v into e v
        work = one(p_n, 0.0, (-v, 0.0), (e * v, 0.0), e_n=e)
        lost = 0.5 * m * v**2 * (1.0 - e**2)
        # a few roundings of products of the numbers above: 4 eps of m v^2
        assert abs(work["dissipated_impact"] - lost) <= 4 * EPS * m * v**2
        assert work["dissipated_friction"] == 0.0 and work["work_contact_timing"] == 0.0


def test_friction_loss_of_a_slowed_slip_is_the_kinetic_energy_lost():
    m, v, p_n, mu = 0.3, 1.5, 0.2, 0.5  # kg, m/s, N s, -
    end = v - mu * p_n / m  # 1.1667 m/s: still slipping forwards
    work = one(p_n, -mu * p_n, (0.0, v), (0.0, end), mu=mu)
    lost = 0.5 * m * (v**2 - end**2)
    assert abs(work["dissipated_friction"] - lost) <= 4 * EPS * m * v**2
    assert work["dissipated_impact"] == 0.0 and work["work_contact_timing"] == 0.0


def test_a_reversed_slip_books_its_start_share_as_timing_work():
    """Start slip v > 0, end slip -w < 0: Coulomb sets P_T = +mu P_N against the end slip. The
    midpoint work P_T (v - w) / 2 is mu P_N w / 2 lost (friction) and mu P_N v / 2 given
    (timing)."""
    v, w, p_n, mu = 0.02, 0.05, 0.1, 0.3
    work = one(p_n, mu * p_n, (0.0, v), (0.0, -w), mu=mu)
    assert abs(work["dissipated_friction"] - 0.5 * mu * p_n * w) <= 2 * EPS * mu * p_n * w
    assert abs(work["work_contact_timing"] - 0.5 * mu * p_n * v) <= 2 * EPS * mu * p_n * v
    midpoint = mu * p_n * (v - w) / 2
    balance = work["work_contact_timing"] - work["dissipated_friction"]
    assert abs(balance - midpoint) <= 4 * EPS * mu * p_n * (v + w)


def test_a_separating_contact_closed_by_position_books_timing_work():
    """Closed at the predicted position while its start velocity separates (g'_A > 0): with
    e = 0 the law stops it (g'_E = 0) and P_N g'_A / 2 is given, not a negative impact loss."""
    work = one(0.01, 0.0, (0.003, 0.0), (0.0, 0.0))
    assert work["dissipated_impact"] == 0.0
    assert abs(work["work_contact_timing"] - 0.5 * 0.01 * 0.003) <= 2 * EPS * 0.01 * 0.003


def admissible(draw, m):
    """Impulses in the laws' sets (P_N >= 0, |P_T| <= mu P_N, clipped as the solver does)
    and any velocities: the solver's xi need not satisfy the laws (its tolerance)."""
    floats = st.floats(-1.0, 1.0)
    p_n = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=m, max_size=m)))
    mu = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=m, max_size=m)))
    p_t = np.clip(np.array(draw(st.lists(floats, min_size=m, max_size=m))), -mu * p_n, mu * p_n)
    gamma_a = np.array(draw(st.lists(floats, min_size=2 * m, max_size=2 * m)))
    gamma_e = np.array(draw(st.lists(floats, min_size=2 * m, max_size=2 * m)))
    e = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=2 * m, max_size=2 * m)))
    return p_n, p_t, gamma_a, gamma_e, e, mu


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.data(), st.integers(1, 6))
def test_columns_are_signed_and_sum_to_the_midpoint_work(data, m):
    """Each column >= 0 exactly in floating point: its terms are products and sums of numbers
    of known sign, and P_T xi_T + fl(mu P_N) |xi_T| >= 0 because |P_T| <= fl(mu P_N) and
    rounding is monotone. Their balance is the midpoint work sum P (gamma_A + gamma_E) / 2 to
    round-off: some 6 roundings per term, bounded by 16 eps times the sum of |terms|."""
    p_n, p_t, gamma_a, gamma_e, e, mu = admissible(data.draw, m)
    work = impulse_work(p_n, p_t, gamma_a, gamma_e, e, mu)
    for key in ("dissipated_impact", "dissipated_friction", "work_contact_timing"):
        assert work[key] >= 0.0, (key, work[key])
    p = np.concatenate((p_n, p_t))
    midpoint = float(p @ (gamma_a + gamma_e)) / 2
    booked = work["work_contact_timing"] - work["dissipated_impact"] - work["dissipated_friction"]
    speeds = np.abs(gamma_a) + np.abs(gamma_e)
    size = float(np.abs(p) @ speeds + (mu * p_n) @ speeds[m:])  # |xi_T| <= speeds[m:]
    assert abs(booked - midpoint) <= 16 * EPS * size + 1e-300, (booked, midpoint, size)
