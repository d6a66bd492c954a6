"""Per-point contact states in the ParaView series: a candidate grid's points each carry their
own state (``ContactReport.states``: open, slip, stick, as ``STATE_CODES`` in the files), their
forces as vectors and their slip velocity and material coordinate.

Read back from the capstan's series (``demos.capstan``, the coarse model of test_capstan: 6
elements, 20 candidates, rate 20 N/s, h = 2e-3 s, about 2 s with the frames): before slip the
candidates of the closed-form stick zone say stick and those of the creep zone slip; in gross
slip every pressed candidate says slip; each state agrees with the Coulomb law of the
point's forces in the file; the forces are the report's impulses over h.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from series import frame_files, part

from fe_contact.demos import capstan as demo
from fe_contact.papers import capstan as cp
from fe_contact.steppers.result import STATE_CODES, pair_state, point_states, read_history

COARSE = replace(cp.CapstanData(), n_elements=6, n_candidates=20, rate=20.0)
H = 2e-3  # s
OPEN, SLIP, STICK = (STATE_CODES[s] for s in ("open", "slip", "stick"))


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    out = tmp_path_factory.mktemp("capstan")
    system, result, _ = demo.run(COARSE, h=H, out=out, vtk_stride=2 * H, plot=False,
                                 keep_reports=True)  # fmt: skip
    assert result.success, result.message
    frames = []
    for time, path in frame_files(out / "frames.pvd"):
        k = int(np.argmin(np.abs(result.t - time)))
        assert abs(result.t[k] - time) < 1e-9  # a frame per stored row, at its time
        frames.append((k, part(path, "contacts")))
    return system, result, frames, read_history(out / "history.csv")


def test_point_states_follow_the_impulses_and_slip():
    """Pressed and still: stick; pressed and sliding: slip (also when still without friction);
    not pressed: open. The pair sticks when a point sticks and none slips."""
    states = point_states([1e-3, 1e-3, 0.0, 2e-3], [0.0, -0.02, 0.4, 5e-7], mu=0.3)
    assert states == ("stick", "slip", "open", "stick")
    assert point_states([1e-3], [0.0], mu=0.0) == ("slip",)
    assert pair_state(states) == "slip"
    assert pair_state(("stick", "open", "stick")) == "stick"
    assert pair_state(("open", "open")) == "slip"  # nothing pressed: the stepper's rule


def test_forces_in_the_file_are_the_impulses_over_h(series):
    """Per point: normal_force = (P_N / h) n and friction_force = (P_T / h) t of the step's
    report, to 4 eps of the largest force (one division and one product, each rounded once);
    their sum over the points times h is the history's normal impulse, to 100 eps of it (a sum
    of 20 terms, and the CSV's repr round-trips a float64 exactly)."""
    system, result, frames, history = series
    eps = np.finfo(float).eps
    n_points = 0
    for k, grid in frames:
        report = result.reports[k].contacts[0]
        if report.n_points == 0:
            assert grid is None or grid.n_points == 0
            continue
        fn = report.normal_impulse / report_h(result, k)
        ft = report.friction_impulse / report_h(result, k)
        expected_n = fn[:, None] * report.normal
        expected_t = ft[:, None] * report.tangent
        scale = 4 * eps * max(1.0, float(np.max(np.abs(fn))))
        np.testing.assert_allclose(grid.point_data["normal_force"][:, :2], expected_n,
                                   rtol=0, atol=scale)  # fmt: skip
        np.testing.assert_allclose(grid.point_data["friction_force"][:, :2], expected_t,
                                   rtol=0, atol=scale)  # fmt: skip
        along = np.einsum("ij,ij->i", grid.point_data["normal_force"][:, :2], report.normal)
        total = float(np.sum(along)) * report_h(result, k)
        impulse = float(history["drum_normal_impulse"][k])
        assert abs(total - impulse) < 100 * eps * abs(impulse)
        np.testing.assert_array_equal(grid.point_data["slip_velocity"], report.slip_velocity)
        np.testing.assert_array_equal(grid.point_data["parameter"], report.parameter)
        n_points += report.n_points
    assert n_points > 200


def report_h(result, k) -> float:
    return float(result.reports[k].h)


def test_states_obey_coulomb_at_each_point(series):
    """Each point's state against its forces in the file: a point that sticks has its friction
    force inside the cone |F_T| <= mu F_N (to 1e-9 relative: the solver's tolerance); a point
    that slips has it on the cone, |F_T| = mu F_N (to 1e-6 relative), and, pressed above
    round-off (1e-9 N against 0.1-1 N), against the slip velocity (the friction power
    F_T v_T <= 0); an open point carries no force."""
    _, _, frames, _ = series
    mu = COARSE.mu
    counted = dict.fromkeys((OPEN, SLIP, STICK), 0)
    for _, grid in frames:
        if grid is None or grid.n_points == 0:
            continue
        state = grid.point_data["state"]
        fn = np.linalg.norm(grid.point_data["normal_force"], axis=1)
        ft_vec = grid.point_data["friction_force"]
        ft = np.linalg.norm(ft_vec, axis=1)
        tangent = grid.point_data["tangent"]
        slip = grid.point_data["slip_velocity"]
        stick, sliding, free = state == STICK, state == SLIP, state == OPEN
        assert np.all(ft[stick] <= mu * fn[stick] * (1 + 1e-9))
        assert np.allclose(ft[sliding], mu * fn[sliding], rtol=1e-6, atol=1e-12)
        signed = np.einsum("ij,ij->i", ft_vec, tangent)
        loaded = sliding & (fn > 1e-9)  # a force at round-off (1e-19 N) has no direction
        assert np.all(signed[loaded] * slip[loaded] <= 0.0)
        assert np.all(fn[free] == 0.0) and np.all(ft[free] == 0.0)
        for code in counted:
            counted[code] += int(np.count_nonzero(state == code))
    assert counted[STICK] > 50 and counted[SLIP] > 50


def test_stick_zone_sticks_and_gross_slip_slips(series):
    """Before slip (pull F < T_slack e^{mu theta}) the string sticks on the arc where
    phi < phi_s = theta - ln(F / T_slack) / mu and creeps beyond (test_capstan); one candidate
    spacing away from phi_s, at least 60 % of the pressed candidates of the stick zone say
    stick (measured 74 % of 148) and at least 90 % of those of the creep zone say slip
    (measured 100 % of 216). The grid's normal forces are not unique: a lightly pressed
    candidate of the stick zone can sit on its cone and slip, slowly: the stick zone's
    slipping candidates move at less than 10 % of the creep zone's mean slip speed (measured
    6.1 %). In gross slip (``gross_slip``) every pressed candidate on the arc says slip
    (72 points)."""
    system, result, frames, _ = series
    data = COARSE
    spacing = data.length / (data.n_candidates - 1) / data.radius
    slipping = cp.gross_slip(data, result)
    zone = {"stick": [], "creep": []}
    speed = {"stick": [], "creep": []}
    n_gross = 0
    for k, grid in frames:
        if grid is None or grid.n_points == 0:
            continue
        state = grid.point_data["state"]
        pressed = np.linalg.norm(grid.point_data["normal_force"], axis=1) > 0.0
        phi = cp.arc_angle(data, grid.points[:, :2].T)
        if slipping[k]:
            on_arc = pressed & (phi > 0.0) & (phi < data.wrap)
            assert np.all(state[on_arc] == SLIP)
            n_gross += int(np.count_nonzero(on_arc))
            continue
        force = float(data.tight_force(result.t[k]))
        edge = data.wrap - math.log(force / data.slack_tension) / data.mu
        slip = np.abs(grid.point_data["slip_velocity"])
        for name, on in (
            ("stick", pressed & (phi > 0.0) & (phi < edge - spacing)),
            ("creep", pressed & (phi > edge + spacing) & (phi < data.wrap)),
        ):
            zone[name].append(state[on])
            speed[name].append(slip[on])
    stick, creep = (np.concatenate(zone[z]) for z in ("stick", "creep"))
    stick_speed, creep_speed = (np.concatenate(speed[z]) for z in ("stick", "creep"))
    assert n_gross >= 20 and stick.size > 50 and creep.size > 50
    assert np.mean(stick == STICK) >= 0.6
    assert np.mean(creep == SLIP) >= 0.9
    assert np.mean(stick_speed[stick == SLIP]) < 0.1 * np.mean(creep_speed)


def test_capstan_draws_the_states_on_the_arc(series, tmp_path):
    _, result, _, _ = series
    paths = demo.plot_candidate_states(COARSE, result, tmp_path / "arc_states")
    assert [p.name for p in paths] == ["arc_states.png", "arc_states.svg"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
