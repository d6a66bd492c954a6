"""The contact point columns ``<pair>_point_x`` and ``<pair>_point_y``: the point on the target
where the pair touches (its largest-force point), NaN while the pair is open.

References: a bilateral point contact keeps the point on the target (gap 0), so the column
equals the body point's position, which for the sliding mass of Lipinski (002) is its two
prismatic joint coordinates; and it equals the beam's own curve r(s, q) evaluated at the
reported parameter s with the reported beam coordinates (``Structure.curve``). Both are
independent of how the stepper reports the point: the compiled batches, the compiled single
steps and the Python step each fill the column.
"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact import simulate
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.system import assemble

# the constraint closes to the Newton tolerance (tol = 1e-12 m) and the closest point to
# 1e-13 m; positions are O(0.4 m): a few 1e-12 m is the agreement a closed contact allows
POSITION_TOL = 5e-12


@pytest.fixture(scope="module")
def sliding_mass():
    system = assemble(sliding_mass_model(0.2, 10))
    q0, u0 = sliding_mass_initial_state(system)
    return system, q0, u0


@pytest.mark.parametrize(
    "settings", [{}, {"batch": False}, {"compiled": False}], ids=["batch", "single", "python"]
)
def test_the_contact_point_of_the_sliding_mass_is_the_mass_and_the_beams_curve(
    sliding_mass, settings
):
    system, q0, u0 = sliding_mass
    r = simulate(system, (0.0, 0.02), (q0, u0), h=1e-3, **settings)
    assert r.status == "finished"
    point = np.column_stack([r["mass_point_x"], r["mass_point_y"]])
    assert np.all(np.isfinite(point))
    # the mass (two prismatic joints: its x and y) sits on the point
    assert np.max(np.abs(point - r.q[:, system.layout.tree])) <= POSITION_TOL
    # the beam's curve at the reported parameter and coordinates
    beam = system.structures["beam"]
    part = system.layout.structure("beam")
    curve = np.array(
        [beam.curve(s, q[part]).position for s, q in zip(r["mass_parameter"], r.q, strict=True)]
    )
    assert np.max(np.abs(point - curve)) <= POSITION_TOL
    # it moves along the beam with the mass: about 1 cm in 0.02 s at 0.5 m/s
    assert point[-1, 0] - point[0, 0] > 0.005


def test_an_open_contact_has_no_contact_point():
    """A mass held 1 cm above the beam by nothing but its start: open for the first steps of
    its fall (it needs sqrt(2 * 0.01 / 9.81) = 45 ms to reach the beam)."""
    from fe_contact import (
        BeamSpec,
        Body,
        ContactPair,
        Joint,
        Model,
        Point,
        TreeModel,
        Unilateral,
    )

    tree = TreeModel(
        bodies=(Body(0.05, 0.0),),
        joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),),
    )
    strip = BeamSpec(
        length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
    )
    model = Model(
        tree=tree,
        structures={"beam": strip},
        contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),),
    )
    system = assemble(model)
    r = simulate(system, (0.0, 0.01), system.initial_state([0.01]), method="moreau", h=1e-3)
    assert r.status == "finished"
    assert np.all(r["mass_gap"] > 0.0)
    assert np.all(np.isnan(r["mass_point_x"])) and np.all(np.isnan(r["mass_point_y"]))
