"""A start off its constraints: refused by default, projected and logged when asked."""

import numpy as np
import pytest
from log_records import records

from fe_contact import assemble, simulate
from fe_contact.consistency import constraint_violations
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model


@pytest.fixture(scope="module")
def lifted():
    """The sliding mass started 0.1 m above its strip (joint 1 is its prismatic y)."""
    system = assemble(sliding_mass_model(0.0, 4))
    q0, u0 = sliding_mass_initial_state(system, 0.1, 0.5)
    q = np.array(q0, dtype=float)
    q[system.layout.tree][1] += 0.1
    return system, q, np.array(u0, dtype=float)


def test_a_lifted_start_is_refused_naming_the_contact(lifted):
    system, q, u = lifted
    (contact,) = system.model.contacts
    with pytest.raises(ValueError, match=rf"contact '{contact.name}' violated by 1\.000e-01 m"):
        simulate(system, (0.0, 0.01), (q, u), h=1e-3)


def test_a_projected_start_is_logged_and_lands_on_the_strip(lifted):
    system, q, u = lifted
    (contact,) = system.model.contacts
    with records("fe_contact.simulate") as messages:
        result = simulate(system, (0.0, 0.01), (q, u), h=1e-3, start_tol=None)
    said = [m for m in messages if "projected" in m]
    assert len(said) == 1 and contact.name in said[0] and "1.000e-01 m" in said[0]
    # the first stored state after the start is on the constraint (Newton tolerance of the
    # position rows, far below the 0.1 m it was moved by)
    assert result.success
    assert not constraint_violations(system, result.q[1], result.t[1], 1e-9)
