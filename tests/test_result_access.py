"""Reading a result: a missing column names the columns there are; the history as a DataFrame."""

import numpy as np
import pytest

from fe_contact import assemble, simulate
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model


@pytest.fixture(scope="module")
def result():
    system = assemble(sliding_mass_model(0.0, 4))
    y0 = sliding_mass_initial_state(system, 0.1, 0.5)
    return simulate(system, (0.0, 0.02), y0, h=1e-3)


def test_a_missing_column_lists_the_columns(result):
    with pytest.raises(KeyError) as info:
        result["tip_force"]
    message = str(info.value)
    assert "'tip_force'" in message
    for name in ("t", "kinetic_energy", "energy_error"):
        assert name in message


def test_the_dataframe_is_the_history_indexed_by_time(result):
    frame = result.to_dataframe()
    t = np.asarray(result["t"])
    assert frame.index.name == "t"
    # a copy of the same floats (no arithmetic), so equal bit for bit
    assert np.array_equal(frame.index.to_numpy(), t)
    assert set(frame.columns) == set(result.columns) - {"t"}
    # the slider moves at 0.5 m/s on the beam: the record is 21 rows, 0 .. 0.02 s
    assert len(frame) == 21 and t[-1] == pytest.approx(0.02, abs=1e-15)
    for name in frame.columns:
        column = np.asarray(result[name])
        numeric = column.dtype.kind == "f"  # text columns (contact states) compare as strings
        assert np.array_equal(frame[name].to_numpy(), column, equal_nan=numeric)


def test_a_drive_column_has_its_joints_unit():
    """A drive on a revolute joint holds a torque (N m), one on a prismatic joint a force (N)."""
    from fe_contact import Body, Joint, Model, TreeModel
    from fe_contact.multibody.drive import Drive
    from fe_contact.steppers.result import history_columns

    tree = TreeModel(
        bodies=(Body(mass=1.0, inertia=0.1), Body(mass=0.5, inertia=0.01)),
        joints=(Joint("revolute", None, (0.0, 0.0)), Joint("prismatic", 0, (0.2, 0.0))),
    )
    model = Model(
        tree=tree,
        drives=(Drive.constant_velocity(0, 0.0, 1.0), Drive.constant_velocity(1, 0.1, 0.2)),
    )
    units = dict(history_columns(assemble(model)))
    assert units["drive_0_force"] == "N m" and units["drive_1_force"] == "N"
