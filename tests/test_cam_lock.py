"""Bauchau's locking mechanism (000 sec. 7.2, ``fe-contact demo cam-lock``) over its first
40 ms of contact (it closes at 0.641 s), and compliant rolling on an incline."""

import numpy as np
import pytest

from fe_contact.curves import Curve
from fe_contact.demos.cam_lock import main, run_case
from fe_contact.model import Circle, Compliant, ContactPair, Model, Profile
from fe_contact.multibody.builders import floating_body
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble


@pytest.mark.slow
@pytest.mark.parametrize("case", [0, 1, 3])
def test_energy_balance_and_friction_work(case, measured):
    """The work of the drive equals kinetic + elastic (beam, support springs, Hertz contact)
    + dissipated (friction, impacts) to 0.5 % of it (the trapezoidal rule on the powers over
    steps of 2e-4 s through the contact's 3-7 krad/s vibrations), and the friction work never
    decreases (zero without friction). Case 2 equals case 1 here: it slips throughout."""
    _, result, _ = run_case(case, 0.68, 2e-4, t0=0.63)
    assert result.success, result.message
    work = result["work_drives"][-1]
    assert work > 5.0  # the cam has pushed the beam up
    measured(
        f"energy balance error, case {case}",
        np.max(np.abs(result["energy_error"])),
        5e-3 * work,
        unit="J",
        reference="0.5 % of the drive's work",
    )
    friction = result["dissipated_friction"]
    assert np.all(np.diff(friction) >= -1e-12)
    if case == 0:
        assert np.all(friction == 0.0)
    else:
        assert friction[-1] > 0.3 * work  # mu = 0.3 on a sliding cam


@pytest.mark.slow  # 7.0 s of CPU (one core), 2026-11-25
def test_step_halving_changes_the_mean_torque_little():
    """Case 0: the mean driving torque over 0.65-0.68 s (the instantaneous one carries the
    contact's vibration) changes by less than 0.5 % when the step is halved from 1e-4 s to
    5e-5 s (over 0.65-0.70 s: -186.6, -191.3, -191.8 N m at 2e-4, 1e-4, 5e-5 s)."""
    means = []
    for h in (1e-4, 5e-5):
        _, result, _ = run_case(0, 0.68, h, t0=0.63)
        late = result.t >= 0.65
        means.append(np.mean(result["drive_0_force"][late]))
    assert means[0] < -50.0
    assert abs(means[0] - means[1]) < 5e-3 * abs(means[1])


def test_bad_case_is_rejected(capsys):
    with pytest.raises(SystemExit) as err:
        main(["--cases", "0", "7"])
    assert err.value.code == 2
    assert "--cases" in capsys.readouterr().err


G, R, M = 9.81, 0.1, 2.0


def hertz_disk_on_incline(theta, mu_s):
    """A uniform disk resting with its Hertz approach on a Bezier incline (compliant contact
    with the continuous law and rolling)."""
    c1 = 1e9
    d = np.array([np.cos(theta), np.sin(theta)])
    normal = np.array([-np.sin(theta), np.cos(theta)])
    ground = Profile(None, Curve.bezier([3.0 * d, -3.0 * d]))
    law = Compliant("hertz", c1, damping=5.0, mu=mu_s, mu_s=mu_s, v0=1e-3, rolling=True)
    tree = floating_body(M, 0.5 * M * R * R, gravity=(0.0, -G))
    pair = ContactPair("disk", Circle(2, R), ground, law)
    system = assemble(Model(tree=tree, contacts=(pair,), gravity=(0.0, -G)))
    approach = (M * G * np.cos(theta) / c1) ** (2.0 / 3.0)
    q0, u0 = system.initial_state([*((R - approach) * normal), 0.0], [0.0, 0.0, 0.0])
    return system, q0, u0, d


def test_compliant_contact_rolls_without_friction_work(measured):
    """Rolling (000 sec. 5) on a compliant contact: mu_s = 0.3 > tan(0.3)/3, the contact rolls
    from the start (|v_t| = 0 < v0/2): the centre accelerates at (2/3) g sin(theta) (to 1e-6,
    the Hertz contact at its static approach), the disk turns by s / R, and the friction does
    no work (its force is the multiplier of W_T u = 0: what is left is round-off)."""
    theta = 0.3
    system, q0, u0, d = hertz_disk_on_incline(theta, 0.3)
    result = simulate(system, (0.0, 0.2), (q0, u0), h=1e-3)
    assert result.success, result.message
    assert [kind for _, _, kind in result.events] == ["stick"]
    t = result.t[-1]
    s = -(result.q[-1, :2] - q0[:2]) @ d
    measured.close(  # np.isclose's criterion: its default atol 1e-8 with rtol 1e-6
        "distance rolled down the incline",
        s,
        1.0 / 3.0 * G * np.sin(theta) * t * t,
        rtol=1e-6,
        atol=1e-8,
        unit="m",
        reference="rolling: (2/3) g sin(theta) t^2 / 2",
    )
    assert np.isclose(result.q[-1, 2], s / R, rtol=1e-6)
    # the law's friction power mu F_n v_t^2 / v0 with v_t at round-off (1e-16 m/s): 1e-31 J
    assert np.max(result["dissipated_friction"]) < 1e-20
    assert np.max(np.abs(result["energy_error"])) < 1e-6 * M * G * s


def test_compliant_rolling_is_released_beyond_the_cone():
    """mu_s = 0.05 < tan(0.3)/3 = 0.103: rolling would need more friction than the cone gives,
    so the contact does not stay rolling ("reversal" at the start, or a release) and slips:
    the friction then does work."""
    system, q0, u0, _ = hertz_disk_on_incline(0.3, 0.05)
    result = simulate(system, (0.0, 0.1), (q0, u0), h=1e-3)
    assert result.success, result.message
    kinds = [kind for _, _, kind in result.events]
    assert kinds and kinds[0] in ("reversal", "slip")
    assert result["dissipated_friction"][-1] > 0.0


@pytest.mark.slow
def test_demo_writes_its_outputs(tmp_path, capsys):
    """The command line writes the history with the extra columns, the ParaView series with
    the two profiles as polylines, the summary and the figures (a 20 ms run: nothing touches
    yet, so the numbers are not the point here)."""
    import csv

    from series import read_frame

    assert main(["--cases", "0", "--t-end", "0.02", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    # a run shorter than 1 s has no torque after 1 s: said so, not printed as nan
    assert "not reached (the run ends at 0.02 s)" in printed and "nan" not in printed
    with open(tmp_path / "case_0" / "history.csv") as fh:
        header = next(csv.reader(fh))
    assert "tip_displacement [m]" in header and "energy_error [J]" in header
    with open(tmp_path / "summary.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["case"] == "0" and rows[0]["paper_torque_case0 [N m]"] == "-1000.0"
    bodies = read_frame(tmp_path / "case_0" / "frames_00000.vtm")["bodies"]
    assert any("eta" in b.point_data for b in bodies)  # the profiles' polylines
    for name in (
        "displacements",
        "torque",
        "root_moments",
        "normal_force",
        "friction_work",
        "step_size",
    ):
        assert (tmp_path / f"{name}.png").exists()


@pytest.mark.slow
def test_case_2_rolls_without_friction_work():
    """Case 2 (continuous law plus rolling, mu_s = 0.3) from 0.63 s to 1.0 s at h = 2e-4 s:
    the cam's contact rolls in bands from about 0.975 s on (the stick state of a profile
    contact, 000 sec. 5). Over every step that starts and ends rolling the friction work does
    not change (the rolling row does no work), it never decreases, and the balance closes to
    0.5 % of the drive's work: the trapezoidal rule on the friction power through the
    contact's 3-7 krad/s vibrations (0.11 % here; at h = 4e-4 s the rolling bands chatter and
    the Newton iteration of a step can fail to converge). The first roll starts at 0.9734 s
    under every BLAS kernel tried; the pattern of roll and slip after it is chaotic (9 to 17
    rolling steps, 1 to 5 of them after a rolling step, by the kernel's rounding), so only
    the start and a few rolling steps are asserted."""
    _, result, _ = run_case(2, 1.0, 2e-4, t0=0.63)
    assert result.success, result.message
    state = result[next(c for c in result.columns if c.endswith("_state"))]
    rolling = state == "stick"
    assert 0.97 < result.t[rolling][0] < 0.98
    assert rolling.sum() >= 5
    both = rolling[1:] & rolling[:-1]
    friction = result["dissipated_friction"]
    # a rolling step adds no friction work: the cumulative column changes by no more than the
    # round-off of adding a round-off-sized step work to the column (2 ulps of its scale)
    ulp = np.finfo(float).eps * np.max(np.abs(friction))
    assert np.all(np.abs(np.diff(friction)[both]) <= 2.0 * ulp)
    assert np.all(np.diff(friction) >= -2.0 * ulp)
    assert friction[-1] > 10.0  # and slips between the bands
    work = result["work_drives"][-1]
    assert np.max(np.abs(result["energy_error"])) < 5e-3 * work


def test_cases_in_worker_processes_give_the_runs_of_one_process(tmp_path):
    """``run(jobs=2)`` runs the cases in two worker processes, each writing its folder: the
    same histories as one after the other here (10 ms from rest, 100 steps). The bound is
    round-off of the same computation (a worker's BLAS may sum in another order): 1e3 eps of
    the largest |q|; the contact is open, so no event amplifies it."""
    from fe_contact.demos.cam_lock import run

    one = run((0, 1), t_end=0.01, h=1e-4)
    two = run((0, 1), t_end=0.01, h=1e-4, out=tmp_path, jobs=2)
    for case in (0, 1):
        a, b = one[case][0], two[case][0]
        assert a.success and b.success and a.t.size == b.t.size == 101
        scale = np.max(np.abs(a.q))
        assert np.max(np.abs(a.q - b.q)) <= 1e3 * np.finfo(float).eps * scale
        assert (tmp_path / f"case_{case}" / "history.csv").exists()
    assert (tmp_path / "summary.csv").exists()


def test_jobs_must_be_a_positive_count(capsys):
    from fe_contact.demos.cam_lock import run

    with pytest.raises(ValueError, match="jobs"):
        run((0,), t_end=0.01, jobs=0)
    with pytest.raises(SystemExit) as err:
        main(["--cases", "0", "--jobs", "0"])
    assert err.value.code == 2
    assert "--jobs" in capsys.readouterr().err
