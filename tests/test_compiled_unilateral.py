"""Unilateral (hard, frictionless) contacts of body points on linear beams on the compiled
generalised-alpha step (``kernels.evaluate.normal_rows``, ``kernels.loop``) against the
Python step.

While closed, a unilateral contact has the normal row the Python step builds, in the same
place (after the bilateral contacts' and the drives' rows); while open, only its record (its
gap). A batch stops before a step in which a closed one's normal force or an open one's gap
turns negative: the Python step locates the event, takes the impact and restarts, then hands
the quiet steps back to the compiled step.

The first model: the point mass of ``papers.lipinski.sliding_mass_model`` driven along x at
0.5 m/s, let fall from 2 mm above the cantilever strip onto it. Measured, h = 1 ms: with
Newton's restitution 0.5, 150 steps, 128 impacts at the same times to 6e-15 s, positions
8.7e-15 m apart (of 0.18 m), velocities 5.8e-11 m/s (of 24 m/s: the beam's stiff modes);
without, 22 steps, 11 impacts and openings, positions 8.7e-15 m, velocities 3e-10 m/s. With
friction (mu = 0.3) the slipping contact's row has its friction in J_Sigma as a Sliding
contact's, and a contact that stops sticks by the same stick row: a mass set down on the beam
at 0.2 m/s slides and sticks at 0.069 s in both steps (5e-12 s apart, located to
event_tol), positions 7.5e-14 m apart,
velocities 2.3e-10 m/s of 1.5 m/s. The second: the pantograph of ``papers.pantograph`` with the exact contact in the
plain (not energy-consistent) form on two spans of 1 m elements at 300 km/h, 0.1 s: positions
9e-16 m apart, velocities 5.5e-13 m/s of 83 m/s, the head's force 1e-11 N of 430 N; the Newton
iterations the same or one apart (an iterate at the tolerance's edge). Bounds: a few times
those, in eps of their scales.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.model import Circle, ContactPair, Line, Point, Unilateral
from fe_contact.multibody.drive import Drive
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.papers import lipinski
from fe_contact.papers.lipinski import BEAM, sliding_mass_initial_state, sliding_mass_model
from fe_contact.papers.pantograph import pantograph_on_catenary
from fe_contact.steppers.compiled import unsupported
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

EPS = np.finfo(float).eps
SPEED = 0.5  # m/s along the beam
LIFT = 2e-3  # m above the beam at the start


def dropped_mass(law=None):
    """(system, q0, u0): the mass driven along the cantilever at SPEED, LIFT above it."""
    model = sliding_mass_model(0.0, 10)
    law = Unilateral(restitution_normal=0.5) if law is None else law
    model = replace(
        model,
        contacts=(ContactPair("mass", Point(1), BEAM, law),),
        drives=(Drive.constant_velocity(0, 0.1, SPEED),),
    )
    system = assemble(model)
    q0, u0 = sliding_mass_initial_state(system, 0.1, SPEED)
    u0[:2] = (SPEED, 0.0)
    q0[1] += LIFT
    return system, q0, u0


def lockstep(system, q0, u0, n_steps, **settings):
    py = GeneralizedAlpha(system, 0.0, q0, u0, **settings)
    cc = GeneralizedAlpha(system, 0.0, q0, u0, compiled=True, **settings)
    assert (py.step_path, cc.step_path) == ("python", "compiled")
    return py, cc, [(py.step(), cc.step()) for _ in range(n_steps)]


def _arrays(reports, what):
    return [np.array([getattr(r, what) for r in side]) for side in zip(*reports, strict=True)]


def test_the_compiled_step_takes_points_on_beams_only():
    system, _, _ = dropped_mass()
    assert unsupported(system) is None
    rubbing, _, _ = dropped_mass(Unilateral(mu=0.2))
    assert unsupported(rubbing) is None
    model = replace(
        system.model,
        contacts=(
            ContactPair("disk", Circle(1, 0.01), Line((0.0, -0.1), (0.0, 1.0)), Unilateral()),
        ),
    )
    why = "a unilateral law (hard contact: impacts and open phases)"  # other sides
    assert unsupported(assemble(model)) == f"contact 'disk': {why}"


# (restitution, steps of 1 ms): the mass bounces (impacts only, the flight phases compiled);
# it lands without bouncing, is thrown off by the ringing beam and lands again (impacts,
# closed phases compiled, openings). The second is chaotic: the Python step against itself,
# one beam coordinate moved by 1e-16 m, drifts apart by 1.8e-13 m at step 25, 2.2e-10 m at
# 40 and 1.2e-8 m at 60; compiled against Python by 1.4e-13, 2.7e-10 and 9.3e-9 m.
CASES = {"bouncing": (0.5, 150), "landing": (0.0, 22)}


@pytest.fixture(scope="module", params=sorted(CASES))
def dropped(request):
    restitution, n_steps = CASES[request.param]
    system, q0, u0 = dropped_mass(Unilateral(restitution_normal=restitution))
    return request.param, lockstep(system, q0, u0, n_steps, h=1e-3)


def test_a_dropped_mass_has_the_same_impacts_and_openings_compiled(dropped):
    case, (py, cc, reports) = dropped
    kinds = [e[1:] for e in py.events]
    assert kinds.count(("mass", "impact")) >= 5
    if case == "landing":
        assert kinds.count(("mass", "open")) >= 5
        assert sum(r.contacts[0].state == "slip" for _, r in reports) >= 2  # closed at the end
    assert [e[1:] for e in cc.events] == kinds
    t_py = np.array([e[0] for e in py.events])
    t_cc = np.array([e[0] for e in cc.events])
    assert np.max(np.abs(t_py - t_cc)) <= 1e3 * EPS * 0.15  # s, measured 6e-15
    assert cc.n_compiled > 0 and cc.n_fallback == 0
    q_py, q_cc = _arrays(reports, "q")
    assert np.max(np.abs(q_py - q_cc)) <= 1e3 * EPS * np.max(np.abs(q_py))  # measured 40 eps
    u_py, u_cc = _arrays(reports, "u")
    assert np.max(np.abs(u_py - u_cc)) <= 1e-10 * np.max(np.abs(u_py))  # measured 1.3e-11
    for a, b in reports:
        assert a.contacts[0].state == b.contacts[0].state
        assert b.contacts[0].normal_force == pytest.approx(a.contacts[0].normal_force, abs=1e-8)


def test_a_dropped_mass_only_pushes_and_sits_on_the_beam_while_closed_compiled(dropped):
    """Physics of the compiled run itself: a closed contact only pushes (N >= 0) and sits on
    the beam (|gap| at the Newton tolerance)."""
    _, (_, _, reports) = dropped
    for _, b in reports:
        c = b.contacts[0]
        if c.state != "open":
            assert np.all(c.normal_force >= 0.0)
            assert np.all(np.abs(c.gap) <= 1e-9)


def test_the_exact_pantograph_in_the_plain_form_matches_the_python_step():
    run = pantograph_on_catenary(
        2, speed=300 / 3.6, contact="exact", max_element_length=1.0, energy_consistent=False
    )
    system = assemble(run.model)
    assert unsupported(system) is None
    py, cc, reports = lockstep(system, run.q0, run.u0, 100, **run.settings)
    assert cc.n_compiled == 100 and cc.n_fallback == 0
    assert abs(cc.n_newton - py.n_newton) <= 2
    q_py, q_cc = _arrays(reports, "q")
    size = np.maximum(np.abs(q_py).max(axis=0), 1.0)
    assert np.all(np.abs(q_py - q_cc) <= 100 * EPS * size)
    u_py, u_cc = _arrays(reports, "u")
    assert np.max(np.abs(u_py - u_cc)) <= 1e4 * EPS * np.max(np.abs(u_py))
    f_py, f_cc = (
        np.array([r.contacts[-1].normal_force.sum() for r in side])
        for side in zip(*reports, strict=True)
    )
    assert np.all(f_py > 0.0)  # the head presses on the wire throughout
    assert np.max(np.abs(f_py - f_cc)) <= 1e6 * EPS * np.max(f_py)


def test_a_rubbing_mass_slides_and_sticks_at_the_same_time_compiled():
    """A mass free along the beam (its x joint on a driven, fixed base) set down on it at
    0.2 m/s with mu = 0.3: it slides, slows down under mu N and sticks; the stick row of a
    unilateral contact comes after its normal row, as in the Python step."""
    base = sliding_mass_model(0.0, 10)
    tree = TreeModel(
        bodies=(Body(1.0, 0.0), Body(0.0, 0.0), base.tree.bodies[1]),
        joints=(
            Joint("prismatic"),
            Joint("prismatic", parent=0),
            Joint("prismatic", parent=1, angle=np.pi / 2),
        ),
        gravity=base.tree.gravity,
    )
    model = replace(
        base,
        tree=tree,
        contacts=(ContactPair("mass", Point(2), BEAM, Unilateral(mu=0.3)),),
        drives=(Drive.constant_velocity(0, 0.0, 0.0),),
    )
    system = assemble(model)
    q0, u0 = system.initial_state(np.array([0.0, 0.1, 0.0]), np.array([0.0, 0.2, 0.0]))
    py, cc, reports = lockstep(system, q0, u0, 150, h=1e-3)
    assert [e[1:] for e in py.events] == [("mass", "stick")]
    assert [e[1:] for e in cc.events] == [("mass", "stick")]
    # located to event_tol (the Illinois bracket), measured 5e-12 s apart
    assert cc.events[0][0] == pytest.approx(py.events[0][0], abs=py.event_tol)
    # mu g decelerates 0.2 m/s to rest in about 0.07 s (the sagging beam tilts the path)
    assert 0.05 < py.events[0][0] < 0.09
    assert reports[-1][1].contacts[0].state == "stick"
    assert cc.n_compiled > 0 and cc.n_fallback == 0
    q_py, q_cc = _arrays(reports, "q")
    assert np.max(np.abs(q_py - q_cc)) <= 1e4 * EPS * np.max(np.abs(q_py))  # measured 7.5e-14
    u_py, u_cc = _arrays(reports, "u")
    assert np.max(np.abs(u_py - u_cc)) <= 1e-8 * np.max(np.abs(u_py))  # measured 1.5e-10


@pytest.mark.slow  # two runs of 0.6 s at h = 0.5 ms, about 5 s of CPU each
def test_the_lifting_manipulator_sticks_breaks_loose_and_opens_as_on_the_python_step():
    """The manipulator of ``papers.lipinski`` with the drive reversed and ``lift_off`` (its tip
    a unilateral contact, mu = 0.3): it reverses, sticks, breaks loose (the sticking force
    leaving the static cone, tested on the unilateral contact's own normal row in a batch)
    and opens. Measured: the same events at the same times, positions 1.5e-13 apart."""
    data = lipinski.Manipulator(drive_reversal=0.3, lift_off=True)
    scenario = lipinski.manipulator(data, 0.3)
    system = scenario.assemble()
    runs = [
        simulate(system, (0.0, 0.6), (scenario.q0, scenario.u0), h=5e-4, compiled=compiled)
        for compiled in (False, True)
    ]
    py, cc = runs
    kinds = [kind for _, _, kind in py.events]
    assert kinds == ["reversal", "stick", "slip", "open"]
    assert [kind for _, _, kind in cc.events] == kinds
    for a, b in zip(py.events, cc.events, strict=True):
        assert b[0] == pytest.approx(a[0], abs=1e-10)  # event_tol
    assert cc.n_compiled > 0
    assert np.max(np.abs(py.q - cc.q)) <= 1e-11  # m, rad: measured 1.5e-13
