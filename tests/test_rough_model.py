"""The rough pin-on-wheel contact as a model contact (Slavic-Boltezar (003), secs. 2-4): a
``Polyline`` on a ``Wheel`` with a Poisson ``Unilateral`` law, run by ``simulate(...,
method="event-driven")`` into the common result, and its bad input."""

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.model import ContactPair, Line, Model, Point, Polyline, Unilateral, Wheel
from fe_contact.papers.slavic_boltezar import CONTACT, PIN, PinOnWheel, pin_model, pin_tree
from fe_contact.rough import RoughProfile, arc_profile
from fe_contact.steppers.event_driven import EventDriven
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.result import WORK_KEYS, history_columns
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

DATA = replace(PinOnWheel(), t_end=6e-5)
H = 1e-7


@pytest.fixture(scope="module")
def system():
    return assemble(pin_model(DATA))


@pytest.fixture(scope="module")
def run(system):
    return simulate(
        system,
        (0.0, DATA.t_end),
        system.initial_state(),
        method="event-driven",
        h=H,
        keep_reports=True,
        penetration=DATA.penetration,
    )


@pytest.mark.slow
def test_simulate_and_the_stepper_give_the_same_trajectory(system, run):
    """simulate is a loop over EventDriven.step(): the same states bit for bit, the same
    impacts (the pin lands within the run: there are some), the same per-vertex losses."""
    assert run.status == "finished" and run.method == "event-driven"
    stepper = EventDriven(system, 0.0, *system.initial_state(), H, t_bound=DATA.t_end)
    t, q, u = [0.0], [stepper.q.copy()], [stepper.u.copy()]
    while stepper.status == "running":
        report = stepper.step()
        t.append(report.t)
        q.append(report.q)
        u.append(report.u)
    assert np.array_equal(run.t, t)
    assert np.array_equal(run.q, q) and np.array_equal(run.u, u)
    assert run.t[-1] == DATA.t_end
    assert stepper.n_impacts > 0
    assert run.event_counts()["impact"] == stepper.n_impacts
    assert [e[2] for e in run.events] == ["impact"] * stepper.n_impacts
    assert run.n_steps == stepper.n_steps and run.n_substeps == stepper.n_substeps
    (losses,) = run.losses
    assert losses.name == CONTACT
    assert np.array_equal(losses.profile, stepper.loss_profile)
    assert np.array_equal(losses.target, stepper.loss_target)


def test_history_columns_close_the_energy_balance(run, measured):
    """The common balance columns: drive work = change of mechanical energy + damping + the
    contacts' losses, to 1e-5 of the drive's work (the midpoint rule's error of M(phi), as in
    test_pin_on_wheel); the loss columns are the per-vertex losses summed, equal to the
    dissipated friction + impact work (1e-9: the same numbers summed in another order), half
    on each polyline, and never decrease beyond round-off (friction and impacts dissipate)."""
    work = run["work_drives"][-1]
    assert work > 1e-7
    measured(
        "energy balance error at the end",
        abs(run["energy_error"][-1]),
        1e-5 * work,
        unit="J",
        reference="drive work = mechanical energy change + damping + contact losses",
    )
    assert np.all(run["work_loads"] == 0.0)
    profile, target = run[f"{CONTACT}_loss_profile"], run[f"{CONTACT}_loss_target"]
    (losses,) = run.losses
    assert profile[-1] == pytest.approx(losses.profile.sum(), rel=1e-12)
    assert target[-1] == pytest.approx(losses.target.sum(), rel=1e-12)
    dissipated = run["dissipated_friction"] + run["dissipated_impact"]
    assert profile[-1] + target[-1] == pytest.approx(dissipated[-1], rel=1e-9)
    assert profile[-1] == pytest.approx(target[-1], rel=1e-9)
    assert np.all(np.diff(profile) >= -1e-12 * profile[-1])
    assert run["dissipated_impact"][-1] > 0


def test_reports_hold_the_impulses_within_the_laws(run):
    """Each stored report's contact points: normal impulses >= 0, friction within the cone
    |P_T| <= mu P_N (Coulomb for the smooth part, and for Poisson's impulses with e_T <= e_N),
    forces = impulses / h; and the impulse columns are the points' impulses summed along
    their normals and tangents (1e-12 of the largest)."""
    mu = DATA.mu
    loaded = 0
    for k, report in enumerate(run.reports[1:], start=1):
        c = report.contacts[0]
        assert np.all(c.normal_impulse >= 0.0)
        assert np.all(np.abs(c.friction_impulse) <= mu * c.normal_impulse * (1 + 1e-9) + 1e-30)
        assert np.allclose(c.normal_force * report.h, c.normal_impulse, rtol=1e-14, atol=0)
        whole = c.normal.T @ c.normal_impulse + c.tangent.T @ c.friction_impulse
        normal = c.normal.T @ c.normal_impulse
        scale = max(np.abs(whole).max(), 1e-30)
        assert run[f"{CONTACT}_impulse_x"][k] == pytest.approx(whole[0], abs=1e-12 * scale)
        assert run[f"{CONTACT}_impulse_y"][k] == pytest.approx(whole[1], abs=1e-12 * scale)
        assert run[f"{CONTACT}_normal_impulse_x"][k] == pytest.approx(normal[0], abs=1e-12 * scale)
        assert run[f"{CONTACT}_normal_impulse_y"][k] == pytest.approx(normal[1], abs=1e-12 * scale)
        assert run[f"{CONTACT}_n_closed"][k] == c.n_points
        loaded += c.state != "open"
    assert loaded > 100  # the pin rests on the wheel for most of the run


def test_rough_pair_columns_and_no_constraint_rows(system):
    model = system.model
    assert model.constraint_names() == ()
    names = [n for n, _ in history_columns(system)]
    for suffix in ("impulse_x", "impulse_y", "loss_profile", "loss_target", "normal_force"):
        assert f"{CONTACT}_{suffix}" in names
    assert set(WORK_KEYS) <= set(names) and "energy_error" in names


# ------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------

RIM = arc_profile((0.0, 0.0), 0.011, 1.5, 1.7, 20)
FACE = pin_model(DATA).contacts[0].profile.profile
LAW = Unilateral(0.1, 0.5, 0.5, impact="poisson")


def _flipped(p: RoughProfile) -> RoughProfile:
    return RoughProfile(p.points[:, ::-1], p.reference[:, ::-1], p.reference_normals)


@pytest.mark.parametrize(
    "build, error, match",
    [
        (lambda: Wheel(RIM, float("nan")), ValueError, "Wheel.omega"),
        (lambda: Wheel(RIM, -1.0, alpha_0="0"), TypeError, "Wheel.alpha_0"),
        (lambda: Wheel(_flipped(RIM), -1.0), ValueError, "Wheel.rim"),
        (lambda: Wheel(RIM.points, -1.0), TypeError, "Wheel.rim"),
        (lambda: Polyline(-1, FACE), ValueError, "Polyline.body"),
        (lambda: Polyline(1, FACE.points), TypeError, "Polyline.profile"),
        (lambda: ContactPair("pin", Polyline(1, FACE), "beam", LAW), ValueError, "Polyline"),
        (lambda: ContactPair("pin", Point(1), Wheel(RIM, -1.0), LAW), ValueError, "Wheel"),
        (
            lambda: ContactPair("pin", Polyline(1, FACE), Wheel(RIM, -1.0), Unilateral(0.1)),
            ValueError,
            "law.impact",
        ),
        (
            lambda: ContactPair("pin", Polyline(1, FACE), Line((0, 0), (0, 1)), LAW),
            ValueError,
            "Polyline",
        ),
        (lambda: Unilateral(0.1, reversibility=0.5), ValueError, "Unilateral.reversibility"),
        (
            lambda: Unilateral(0.1, impact="poisson", reversibility=1.5),
            ValueError,
            "Unilateral.reversibility",
        ),
        (
            lambda: Model(
                tree=pin_tree(DATA),
                contacts=(ContactPair("pin", Polyline(2, FACE), Wheel(RIM, -1.0), LAW),),
                gravity=(0.0, 0.0),
            ),
            ValueError,
            "body",
        ),
    ],
)
def test_bad_parts_are_named(build, error, match):
    with pytest.raises(error, match=match):
        build()


def _system(**law):
    model = pin_model(DATA)
    pair = model.contacts[0]
    return assemble(replace(model, contacts=(replace(pair, law=replace(pair.law, **law)),)))


def test_stepper_rejects_what_it_cannot_take(system):
    y0 = system.initial_state()
    with pytest.raises(ValueError, match="simulate.method.*'event-driven'"):
        simulate(system, (0.0, 1e-6), y0, method="moreau")
    with pytest.raises(ValueError, match="simulate.method.*'event-driven'"):
        simulate(system, (0.0, 1e-6), y0, method="generalized-alpha")
    for Stepper in (GeneralizedAlpha, MoreauJean):  # built directly, too
        with pytest.raises(ValueError, match="simulate.method.*a Polyline on a Wheel"):
            Stepper(system, 0.0, *y0, h=1e-7)
    with pytest.raises(ValueError, match="restitution_tangent"):
        simulate(_system(restitution_tangent=0.8), (0.0, 1e-6), y0, method="event-driven")
    with pytest.raises(ValueError, match="^h: got -1e-07"):
        EventDriven(system, 0.0, *y0, h=-1e-7)
    with pytest.raises(ValueError, match="EventDriven.penetration"):
        EventDriven(system, 0.0, *y0, penetration=0.0)
    with pytest.raises(ValueError, match="EventDriven.t_bound"):
        EventDriven(system, 1.0, *y0, t_bound=0.5)
    flipped = replace(system.model.contacts[0], profile=Polyline(PIN, _flipped(FACE)))
    model = replace(system.model, contacts=(flipped,))
    with pytest.raises(ValueError, match="contact 'pin': RoughContact.profile"):
        EventDriven(assemble(model), 0.0, *y0)
    other = Model(
        tree=pin_tree(DATA),
        contacts=(ContactPair("tip", Point(PIN, (0.0, -DATA.a)), Line((0, 0), (0, 1)), LAW),),
        gravity=(0.0, 0.0),
    )
    with pytest.raises(ValueError, match="system.model.contacts"):
        simulate(assemble(other), (0.0, 1e-6), y0, method="event-driven")
