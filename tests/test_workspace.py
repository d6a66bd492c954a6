"""A System is constant and each run has its own Workspace (Pinocchio's Model/Data split):
runs on one System do not see each other, in either order, and a run writes nothing on it."""

import pickle

import numpy as np

from fe_contact.curves import Curve
from fe_contact.elements.beam import BeamSpec
from fe_contact.model import BodyPointSensor, Compliant, ContactPair, Model, Profile, Unilateral
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.sensors import with_sensors
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble
from fe_contact.workspace import Workspace

# A W-shaped Bezier profile: two lobes, the left one (x = -0.069 m in the body) 0.11 mm lower
# than the right one (x = +0.069 m); the contact point is the lowest point of the two.
W = Curve.bezier([(-0.1, 0.0), (-0.06, -0.1003), (0.0, 0.1), (0.06, -0.1), (0.1, 0.0)])


def w_on_beam(law=None):
    """The W profile on a body turning about a point above a cantilever (EI = 2000 N m^2,
    L = 1 m, 5 elements), no gravity, Hertz contact; at q = 0 the left lobe presses 50 um
    into the beam. Turned by -0.005 rad the right lobe is the deeper one (0.069 * 0.005 =
    3.5e-4 m > 1.1e-4 m): two runs from these two angles use different lobes, and a warm
    start carried from one run to the other would hold the closest-point solve on the wrong
    lobe (a stationary point of the distance too). law : the contact's (default Hertz)."""
    samples = W.position(np.linspace(0.0, 1.0, 20001))
    lowest = float(samples[:, 1].min())
    tree = TreeModel(
        (Body(1.0, 0.01),),
        (Joint("revolute", None, location=(0.5, -lowest - 5e-5)),),
        gravity=(0.0, 0.0),
    )
    spec = BeamSpec(
        length=1.0,
        youngs_modulus=2000.0 / 1e-8,
        density=2000.0,
        area=1e-3,
        second_moment=1e-8,
        n_elements=5,
    )
    law = Compliant("hertz", 1e8, damping=10.0) if law is None else law
    pair = ContactPair("p", Profile(0, W), "beam", law)
    model = Model(
        tree=tree,
        structures={"beam": spec},
        contacts=(pair,),
        gravity=(0.0, 0.0),
        structure_gravity=False,
    )
    return assemble(model)


def histories(result) -> dict:
    return {name: np.asarray(result[name]) for name in result.columns}


def assert_same_history(first, second):
    """Exact equality: the same code path on the same inputs in one process (no threading in
    these small dense solves), so any difference can only come from state carried between
    runs."""
    a, b = histories(first), histories(second)
    assert a.keys() == b.keys()
    for name in a:
        numeric = a[name].dtype.kind in "fc"  # NaN (a quantity undefined at a row) equals NaN
        assert np.array_equal(a[name], b[name], equal_nan=numeric), name


def test_two_runs_on_one_system_give_the_same_histories_in_either_order():
    """Run A (the left lobe in contact, 50 um deep: 35 N) and run B (the right lobe, 0.28 mm
    deep: 478 N) on one System, A then B, and on a second System B then A: each run's history
    is the same, bit for bit, whatever ran before on its System. With the warm starts kept on
    the System (measured before the split, 2026-11-26), the second run of either order found
    no contact point from the first run's (eta, s) and turned freely through the beam: B after
    A ended at -0.005 rad instead of +0.0107 rad, A after B at 0 instead of -0.0017 rad."""
    runs = {
        "A": ([0.0], [0.0]),
        "B": ([-0.005], [0.0]),
    }
    out = {}
    for order in ("AB", "BA"):
        system = w_on_beam()
        for name in order:
            q0, u0 = system.initial_state(*runs[name])
            result = simulate(system, (0.0, 0.01), (q0, u0), h=1e-3)
            assert result.success, result.message
            out[order, name] = result
    # the two runs differ: the lobes in contact at the start lie 0.138 m apart on the beam
    s_a, s_b = out["AB", "A"]["p_parameter"][0], out["AB", "B"]["p_parameter"][0]
    assert abs(abs(s_a - s_b) - 0.138) < 5e-3  # the lobes at +-0.069 m, turned by <= 5 mrad
    for name in "AB":
        assert_same_history(out["AB", name], out["BA", name])


def snapshot(system) -> dict:
    """The attributes of a System: each entry itself, and a shallow copy of a dict entry."""
    return {
        key: (value, dict(value) if isinstance(value, dict) else None)
        for key, value in vars(system).items()
    }


def assert_unchanged(system, before):
    after = snapshot(system)
    assert after.keys() == before.keys()
    for key, (value, items) in before.items():
        assert after[key][0] is value, key  # no attribute rebound
        if items is not None:  # a dict entry: the same keys, each bound to the same object
            assert after[key][1].keys() == items.keys(), key
            assert all(after[key][1][k] is v for k, v in items.items()), key


def test_a_run_writes_nothing_on_its_system():
    """vars(system) after runs under generalised-alpha (compiled where it applies and in
    Python), Moreau-Jean and with sensors equals vars(system) before: the same entries, each
    the same object (a dict entry: the same keys bound to the same objects). Deeper, the
    pickle of the whole System (every object it reaches: structures, sparse matrices and
    their flags, the sensor plan) is the same bytes: nothing in it was written."""
    system = w_on_beam()
    before, image = snapshot(system), pickle.dumps(system)
    q0, u0 = system.initial_state([0.0], [0.0])
    assert simulate(system, (0.0, 0.003), (q0, u0), h=1e-3).success
    assert_unchanged(system, before)
    assert pickle.dumps(system) == image

    system = w_on_beam(Unilateral(0.2))
    before, image = snapshot(system), pickle.dumps(system)
    assert simulate(system, (0.0, 0.003), (q0, u0), h=1e-3, method="moreau").success
    assert_unchanged(system, before)
    assert pickle.dumps(system) == image

    system = assemble(sliding_mass_model(mu=0.2, n_elements=4))
    before, image = snapshot(system), pickle.dumps(system)
    q0, u0 = sliding_mass_initial_state(system)
    for compiled in (True, False):
        assert simulate(system, (0.0, 0.003), (q0, u0), h=1e-3, compiled=compiled).success
    sensor = BodyPointSensor("mass", 1, (0.0, 0.0), "position")
    result = simulate(system, (0.0, 0.003), (q0, u0), h=1e-3, sensors=(sensor,))
    assert result.success
    assert_unchanged(system, before)
    assert pickle.dumps(system) == image


def test_each_stepper_has_its_own_workspace():
    """Two steppers built on one System hold two Workspaces; the System holds none."""
    system = w_on_beam(Unilateral(0.2))
    q0, u0 = system.initial_state([0.0], [0.0])
    first, second = MoreauJean(system, 0.0, q0, u0), MoreauJean(system, 0.0, q0, u0)
    assert isinstance(first.workspace, Workspace)
    assert first.workspace is not second.workspace
    assert not any(isinstance(value, Workspace) for value in vars(system).values())


def test_sensors_are_made_with_the_system():
    """``with_sensors`` returns a new System whose sensor plan has the added sensor's
    columns, the original keeping its own (no column of the body point)."""
    system = assemble(sliding_mass_model(n_elements=4))
    sensor = BodyPointSensor("mass", 1, (0.0, 0.0), "position")
    more = with_sensors(system, (sensor,))
    assert more.sensor_plan is not system.sensor_plan
    assert "mass" in more.sensor_plan.points and "mass" not in system.sensor_plan.points
