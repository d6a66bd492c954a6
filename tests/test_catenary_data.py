"""The catenary data's options beyond the uniform [P] line: droppers at given positions and a
dropper stiffness per dropper in N/m (the 60 m line ``LINE_60M`` of ``papers.catenary``).

The form-finding with a constant dropper stiffness k solves T = k (l - l0) for l0; the checks
run the library's ``static_equilibrium`` on the built model (tension-only ``Dropper`` laws)
and compare with the design heights and with hand statics from the data table.
"""

import dataclasses

import numpy as np
import pytest

from fe_contact import assemble, static_equilibrium
from fe_contact.papers.catenary import EN50318, LINE_60M, CatenaryData, catenary, vertical_rows

G = 9.81  # Model's standard gravity, m/s^2


@pytest.fixture(scope="module")
def line_60m():
    """Two 60 m spans, 1 m elements (120 per wire): small and fast; the form-finding is exact
    for any mesh (it solves on the same matrices)."""
    line = catenary(2, LINE_60M, max_element_length=1.0)
    system = assemble(line.model)
    return line, system, static_equilibrium(system)


def test_droppers_sit_at_the_given_positions_with_the_given_stiffness(line_60m):
    """Every span has its droppers at ``dropper_positions`` from its support (5, 10.5, ...,
    55 m typed here from the data table) and each dropper law has the constant stiffness
    1e5 N/m, whatever its length."""
    line, _, _ = line_60m
    table = np.array([5.0, 10.5, 17.0, 23.5, 30.0, 36.5, 43.0, 49.5, 55.0])
    assert line.dropper_x.tolist() == np.concatenate([table, 60.0 + table]).tolist()
    assert {c.law.stiffness for c in line.model.contacts} == {1e5}


def test_static_heights_and_tensions_of_the_60m_line(line_60m):
    """With the form-found lengths (l0 = l - T / k), the library's static equilibrium puts the
    contact wire at the design heights at all 18 droppers to 1e-6 m (the issue's bound; the
    Newton residual 1e-10 N over the wire's point stiffness ~ 1e4 N/m is 1e-14 m) and every
    dropper carries the tension of the form-finding to 1e-6 N; each dropper's stretch
    l - l0 equals T / k to 1e-9 m (l0 ~ 1 m: round-off)."""
    line, system, state = line_60m
    wire = system.structures["contact_wire"]
    rows, offsets = vertical_rows(wire, line.dropper_x)
    heights = offsets + rows @ state.q[system.layout.structure("contact_wire")]
    assert np.abs(heights - line.design_heights).max() < 1e-6
    tensions = np.array([state.normal_force[c.name] for c in line.model.contacts])
    assert np.all(tensions > 0.0)
    assert np.abs(tensions - line.tensions).max() < 1e-6
    messenger = system.structures["messenger"]
    rows_m, offsets_m = vertical_rows(messenger, line.dropper_x)
    top = offsets_m + rows_m @ state.q[system.layout.structure("messenger")]
    stretch = (top - heights) - np.array([c.law.length for c in line.model.contacts])
    assert np.abs(stretch - tensions / 1e5).max() < 1e-9


def test_the_60m_line_carries_its_weight(line_60m):
    """The droppers, the middle steady arm (300 N/m) and the anchors' reactions carry the
    contact wire's weight, its clamps' and half of each dropper's (2 x 60 m x 1.35 kg/m,
    18 x 0.165 kg, 0.117 kg/m typed from the data table), to 1e-9 of it (a sum of ~ 20 forces,
    each with the ~1e-12 relative round-off of a sparse solve)."""
    line, system, state = line_60m
    lengths = np.array([c.law.length for c in line.model.contacts])
    weight = G * (120.0 * 1.35 + 18 * 0.165 + 0.5 * 0.117 * lengths.sum())
    tensions = sum(state.normal_force[c.name] for c in line.model.contacts)
    wire = system.structures["contact_wire"]
    beam = wire.beam
    ends = beam.basis.nodal_dofs[0, [0, beam.nodes.size - 1]]
    reactions = state.support_reactions["contact_wire"][ends].sum()
    rows, offsets = vertical_rows(wire, [60.0])
    w_support = (offsets + rows @ state.q[system.layout.structure("contact_wire")])[0]
    total = tensions + reactions - 300.0 * w_support
    assert abs(total - weight) < 1e-9 * weight, (total, weight)


def test_uniform_layout_is_unchanged_by_the_new_fields():
    """The default line keeps [P]'s uniform layout (4.5 + 5.75 k m) and EA / l0 droppers."""
    assert EN50318.dropper_offsets().tolist() == [4.5 + 5.75 * k for k in range(9)]
    assert EN50318.dropper_rate([0.5, 1.0]).tolist() == [4e5, 2e5]


def test_bad_dropper_layouts_and_stiffness_are_refused():
    """Positions of the wrong count, not increasing, or outside (0, span) and a negative
    stiffness are refused by name."""
    good = LINE_60M.dropper_positions
    for bad in (good[:-1], good[::-1], (0.0,) + good[1:], good[:-1] + (60.0,)):
        with pytest.raises(ValueError, match="CatenaryData.dropper_positions"):
            dataclasses.replace(LINE_60M, dropper_positions=bad)
    with pytest.raises(ValueError, match="CatenaryData.dropper_stiffness"):
        CatenaryData(dropper_stiffness=-1.0)
