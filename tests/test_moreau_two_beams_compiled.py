"""The compiled Moreau-Jean sub-step (``kernels.moreau.substep``) on the two beams of
``examples/plot_two_beams.py``: no tree, two linear cantilevers as one flexible block, and a
Bezier pad on a body carried by beam a pressed on beam b's centre line (its point found by
``kernels.profile_pair.centre_line_contact``), against the Python sub-step; and two beams as
one block under a tree's disk (a candidate grid on the second beam).

Tolerances: the compiled pair's Newton solve and rows are those of
``coupling.profile_structure`` in another order of operations (a 2 x 2 solve by hand against
LAPACK's, loops against numpy's sums, a warm start searched again where the Python sub-step
keeps the gap of a state it scanned), so the two sub-steps differ by round-off per step,
which the two undamped beams carry on. Over the example's 0.05 s (500 steps, the pad pressed
throughout) measured on this machine, as a share of each one's largest value: q 1.6e-13
(9e-15 of 0.056, m and rad), u 3.0e-11 (1.9e-10 of 6.4, m/s and rad/s), the normal impulse
5.5e-12 (5.2e-16 of 9.5e-5 N s), the slip velocity 2.3e-11; the energies and work columns
5.5e-13 of the run's energy. Held to: q 1e-11, u 1e-9, the normal impulse 1e-10, every other
column 1e-9 (of the run's energy for an energy or a work column).
"""

from dataclasses import replace

import numpy as np
import pytest

from fe_contact import (
    BeamSpec,
    Circle,
    ContactPair,
    Model,
    PointLoad,
    Unilateral,
    assemble,
    simulate,
)
from fe_contact.coupling.profile_contact import curved_contact
from fe_contact.curves import Curve
from fe_contact.kernels import beam as record
from fe_contact.kernels import profile_pair
from fe_contact.model import CarriedBody, Profile
from fe_contact.multibody.builders import floating_body
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.moreau_substep import WholeSubstep, substep_unsupported

L, A, P, PAD = 0.3, 0.2, 1.0, 0.01  # m, m, N, m: the example's
H = 1e-4  # s


def two_beams(target="b"):
    """The system of ``examples/plot_two_beams.py`` (the pad pressed on ``target``)."""
    strip = dict(n_elements=8, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015)
    beam_a = BeamSpec(length=L, origin=(0.0, PAD), **strip)
    beam_b = BeamSpec(length=L, origin=(L + A, 0.0), angle=np.pi, **strip)
    curve = Curve.bezier([(-0.01, -0.8 * PAD), (0.0, -1.2 * PAD), (0.01, -0.8 * PAD)])
    model = Model(
        structures={"a": beam_a, "b": beam_b},
        carried=(CarriedBody("pad", "a", L, mass=1e-3),),
        contacts=(ContactPair("pad", Profile("pad", curve), target, Unilateral(), side=-1),),
        loads=(PointLoad("a", L, (0.0, -P)),),
        gravity=(0.0, 0.0),
    )
    return assemble(model)


@pytest.fixture(scope="module")
def runs():
    """(compiled, Python) results of the example's run, 0.05 s at h = 0.1 ms."""
    system = two_beams()
    q0, u0 = system.initial_state()
    fast = simulate(system, (0.0, 0.05), (q0, u0), method="moreau", h=H)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
        slow = simulate(system, (0.0, 0.05), (q0, u0), method="moreau", h=H)
    return fast, slow


def test_two_beams_compiled_substep_is_the_python_substep(runs):
    fast, slow = runs
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert fast.n_compiled == fast.n_substeps == slow.n_substeps == 500
    assert fast.n_fallback == 0 and slow.n_compiled == 0
    assert fast.columns.keys() == slow.columns.keys()
    for name, bound in (("q", 1e-11), ("u", 1e-9)):
        a, b = getattr(fast, name), getattr(slow, name)
        assert np.max(np.abs(a - b)) <= bound * np.max(np.abs(b)), name
    p_fast, p_slow = fast["pad_normal_impulse"], slow["pad_normal_impulse"]
    assert np.max(np.abs(p_fast - p_slow)) <= 1e-10 * np.max(np.abs(p_slow))
    # every column: the states and the contact's point to 1e-9 of its largest value, the
    # energies and the work columns (round-off themselves: the timing work is 3e-19 J) and
    # the balance's error to 1e-9 of the run's energy
    energy = np.max(slow["kinetic_energy"] + np.abs(slow["potential_energy"]))
    energy += np.max(slow["elastic_energy"])
    for name, column in slow.columns.items():
        a, b = np.asarray(fast[name]), np.asarray(column)
        if b.dtype.kind != "f":
            assert np.array_equal(a, b), name
            continue
        finite = np.isfinite(b)
        assert np.array_equal(a[~finite], b[~finite], equal_nan=True), name
        if finite.any():
            booked = "energy" in name or name.startswith(("work_", "dissipated_"))
            scale = energy if booked else np.max(np.abs(b[finite]))
            if name == "solver_residual":
                scale = np.max(np.abs(slow.u))
            assert np.max(np.abs(a[finite] - b[finite])) <= 1e-9 * scale, name


def test_two_beams_compiled_contact_force_swings_about_the_cantilevers_in_series(runs):
    """The load applied suddenly: the mean contact force over the run is the static one of
    two cantilevers in series, F = P L^3 / (L^3 + a^3), within 2 % (the example's static
    check holds 1 %: the pad turns with a's slope; the rest is the 0.05 s window's share of
    the swing, measured 0.45 %), and the pad stays pressed after the first step."""
    fast, _ = runs
    force = fast["pad_normal_impulse"][1:] / H
    closed_form = P * L**3 / (L**3 + A**3)
    assert np.all(force > 0.0) and np.all(fast["pad_state"][1:] != "open")
    assert abs(np.mean(force) - closed_form) <= 0.02 * closed_form
    assert np.max(np.abs(force - closed_form)) <= 0.3 * closed_form  # a swing, not a bounce


def test_two_beams_with_coulomb_friction_compiled_is_the_python_substep(monkeypatch):
    """The pad with Coulomb's law, mu = 0.3: it sticks and slips on b as the beams swing (the
    contact problem's cone, the same as the other pairs'), and the compiled sub-step follows
    the Python one: the same states step by step, q, u, the impulses and the slip velocity to
    round-off (measured as shares of their largest: q 1.9e-13, u 3.9e-11, the normal impulse
    1.7e-11, the friction impulse 8.6e-11, the slip velocity 6.6e-11; held to q 1e-11, u,
    the impulses and the slip velocity 1e-9)."""
    system = two_beams()
    pair = replace(system.model.contacts[0], law=Unilateral(0.3))
    system = assemble(replace(system.model, contacts=(pair,)))
    q0, u0 = system.initial_state()
    fast = simulate(system, (0.0, 0.05), (q0, u0), method="moreau", h=H)
    monkeypatch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
    slow = simulate(system, (0.0, 0.05), (q0, u0), method="moreau", h=H)
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert fast.n_compiled == fast.n_substeps == slow.n_substeps and fast.n_fallback == 0
    assert {"stick", "slip"} <= set(slow["pad_state"])
    assert np.array_equal(fast["pad_state"], slow["pad_state"])
    for name, bound in (("q", 1e-11), ("u", 1e-9)):
        a, b = getattr(fast, name), getattr(slow, name)
        assert np.max(np.abs(a - b)) <= bound * np.max(np.abs(b)), name
    for name in ("pad_normal_impulse", "pad_friction_impulse", "pad_slip_velocity"):
        a, b = np.asarray(fast[name]), np.asarray(slow[name])
        finite = np.isfinite(b)  # NaN slip where the pair is open
        assert np.array_equal(np.isfinite(a), finite), name
        assert np.max(np.abs(a[finite] - b[finite])) <= 1e-9 * np.max(np.abs(b[finite])), name


def test_two_beams_pad_impacts_halved_compiled_are_the_python_substep(monkeypatch):
    """The pad 2 mm above b under a 20 N load, Newton's e_N = 0.5 and mu = 0.3: it strikes,
    bounces, sticks and slips; sub-steps whose pad would close deeper than the penetration
    tolerance are rejected and halved (the compiled sub-step's rejections move the pair's warm
    start as the Python sub-step's gaps do). The same sub-steps and states; q, u and the
    normal impulse to round-off (measured 2.9e-14, 5.8e-12 and 4.9e-14 of their largest;
    held to 1e-11, 1e-9 and 1e-10)."""
    system = two_beams()
    model = system.model
    a = replace(model.structures["a"], origin=(0.0, PAD + 0.002))
    pair = replace(model.contacts[0], law=Unilateral(0.3, restitution_normal=0.5))
    system = assemble(
        replace(
            model,
            structures={"a": a, "b": model.structures["b"]},
            loads=(PointLoad("a", L, (0.0, -20.0)),),
            contacts=(pair,),
        )
    )
    q0, u0 = system.initial_state()
    fast = simulate(system, (0.0, 0.03), (q0, u0), method="moreau", h=H)
    monkeypatch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
    slow = simulate(system, (0.0, 0.03), (q0, u0), method="moreau", h=H)
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert fast.n_compiled == fast.n_substeps == slow.n_substeps > 300  # halvings
    assert fast.n_fallback == 0
    assert {"open", "stick", "slip"} <= set(slow["pad_state"])
    assert np.array_equal(fast["pad_state"], slow["pad_state"])
    for name, bound in (("q", 1e-11), ("u", 1e-9)):
        a, b = getattr(fast, name), getattr(slow, name)
        assert np.max(np.abs(a - b)) <= bound * np.max(np.abs(b)), name
    p_fast, p_slow = fast["pad_normal_impulse"], slow["pad_normal_impulse"]
    assert np.max(np.abs(p_fast - p_slow)) <= 1e-10 * np.max(np.abs(p_slow))


def test_centre_line_kernel_is_the_python_kinematics_and_its_rows_are_the_gaps_slopes(runs):
    """The kernel's point, gap and rows against ``curved_contact`` (the Python step's
    ``coupling.profile_structure``) at states of the run, to round-off (measured 1.1e-16 on
    eta and s, O(1) rows); and W_N against central differences of the gap (independent:
    the rows are the gap's gradient, Bauchau (000), eq. 11): to 1e-6 of |W_N|, the differences'
    truncation and round-off at a step of 1e-7 m."""
    fast, _ = runs
    system = two_beams()
    stepper = MoreauJean(system, 0.0, *system.initial_state(), h=H)
    whole = stepper._whole
    tree, beams, line = whole.tree[0], whole.profile[1], whole.profile[2]
    guess = np.full(2, np.nan)
    known = type("Workspace", (), {"profile_parameters": {}})()
    for i in range(0, 501, 50):
        q, u = fast.q[i], fast.u[i]
        status, rec, w_n, w_t = profile_pair.centre_line_kinematics(
            tree, beams, line, q, u, 0, guess
        )
        kin = curved_contact(system, 0, q, u, remainder=False, workspace=known)
        assert status == profile_pair.LINE_FOUND and kin is not None
        assert abs(rec[record.S] - kin.parameter) <= 1e-14
        assert abs(rec[profile_pair.ETA] - kin.profile_parameter) <= 1e-14
        assert abs(rec[record.GAP] - kin.gap) <= 1e-16
        assert np.allclose(rec[[record.PX, record.PY]], kin.point, rtol=0.0, atol=1e-16)
        assert np.allclose(rec[[record.NX, record.NY]], kin.normal, rtol=0.0, atol=1e-15)
        assert np.max(np.abs(w_n - kin.w_normal)) <= 1e-14
        assert np.max(np.abs(w_t - kin.w_tangent)) <= 1e-14
        assert abs(rec[record.VT] - kin.slip_velocity) <= 1e-15
        # W_N = dg/dq by central differences (the pair searched afresh at each)
        step = 1e-7
        slope = np.empty(q.size)
        for k in range(q.size):
            gaps = []
            for sign in (1.0, -1.0):
                moved = q.copy()
                moved[k] += sign * step
                at = np.array(guess)
                gaps.append(profile_pair.centre_line_kinematics(
                    tree, beams, line, moved, u, 0, at
                )[1][record.GAP])  # fmt: skip
            slope[k] = (gaps[0] - gaps[1]) / (2.0 * step)
        assert np.max(np.abs(slope - w_n)) <= 1e-6 * np.max(np.abs(w_n))


def test_a_disk_on_one_of_two_beams_compiled_is_the_python_substep(monkeypatch):
    """Linear beams as one block with a tree: a floating disk thrown onto the second of two
    cantilevers side by side (a candidate grid of 41 points on it), landing, sticking and
    slipping. The same kernels in the same order as the Python sub-step: q and u to the last
    bit (measured), held to 1e-14 of their largest; the energies within an ulp (the
    kernel's sums in loops), held to 1e-14 of the run's energy."""
    strip = dict(n_elements=6, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015)
    left = BeamSpec(length=0.3, **strip)
    right = BeamSpec(length=0.4, origin=(0.5, 0.0), **strip)
    disk = ContactPair(
        "disk", Circle(2, 0.05), "right", Unilateral(0.3), search="grid", n_candidates=41
    )
    system = assemble(
        Model(
            tree=floating_body(1.0, 1e-3),
            structures={"left": left, "right": right},
            contacts=(disk,),
        )
    )
    q0, u0 = system.initial_state([0.7, 0.06, 0.0], [0.5, -0.5, 0.0])
    fast = simulate(system, (0.0, 0.3), (q0, u0), method="moreau", h=1e-3)
    monkeypatch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
    slow = simulate(system, (0.0, 0.3), (q0, u0), method="moreau", h=1e-3)
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert fast.n_compiled == fast.n_substeps == slow.n_substeps and fast.n_fallback == 0
    assert {"open", "stick", "slip"} <= set(slow["disk_state"])
    assert np.array_equal(fast["disk_state"], slow["disk_state"])
    for name in ("q", "u"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert np.max(np.abs(a - b)) <= 1e-14 * np.max(np.abs(b)), name
    energy = np.max(slow["kinetic_energy"] + np.abs(slow["potential_energy"]))
    for name in ("kinetic_energy", "potential_energy", "elastic_energy", "energy_error"):
        assert np.max(np.abs(fast[name] - slow[name])) <= 1e-14 * energy, name
    for name in ("left_elastic_energy", "right_elastic_energy"):
        assert np.max(np.abs(fast[name] - slow[name])) <= 1e-14 * energy, name


def test_what_the_compiled_substep_refuses_is_named():
    """The pad pressed on a profile of beam b's carried body (a pair of profiles, not a
    centre line) stays on the Python sub-step, with the reason."""
    system = two_beams()
    assert substep_unsupported(MoreauJean(system, 0.0, *system.initial_state(), h=H)) is None
    curve = Curve.bezier([(-0.01, 0.0), (0.0, 0.001), (0.01, 0.0)])
    model = system.model
    other = CarriedBody("seat", "b", A, mass=1e-3)
    pair = ContactPair("pad", model.contacts[0].profile, Profile("seat", curve), Unilateral())
    profiles = assemble(
        Model(
            structures=model.structures,
            carried=(*model.carried, other),
            contacts=(pair,),
            loads=model.loads,
            gravity=(0.0, 0.0),
        )
    )
    stepper = MoreauJean(profiles, 0.0, *profiles.initial_state(), h=H)
    assert stepper.step_path == "python"
    assert "not a profile on a body carried by a linear beam against" in substep_unsupported(
        stepper
    )
