"""simulate(method="auto"): the stepper chosen by the model's contacts, logged."""

import logging
from dataclasses import replace

import numpy as np
import pytest
from test_compliant import falling_disk
from test_model_file import disk_on_string_model
from test_unilateral import ball

from fe_contact.laws import Compliant
from fe_contact.model import ContactPair, Model, Point, Sliding, Unilateral
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.papers.slavic_boltezar import PinOnWheel, pin_model
from fe_contact.steppers.simulate import choose_method, simulate
from fe_contact.system import assemble

G = 9.81


def test_unilateral_contacts_go_to_moreau_jean_and_the_choice_is_logged(caplog):
    """A ball dropped from 0.1 m with e_N = 0.5: Moreau-Jean (theta = 1/2), the run equal to
    the explicit method's, and its energy balance closed (to 1e-9 of the 9.8e-2 J fallen:
    the balance of a Moreau-Jean step is exact up to round-off)."""
    system = ball(Unilateral(0.0, restitution_normal=0.5))
    y0 = (np.array([0.0, 0.1]), np.zeros(2))
    assert choose_method(system)[0] == "moreau"
    # the handler on the logger itself: the package logger stops propagating once a progress
    # observer has set up its console handler (``observers.progress_logger``)
    logger = logging.getLogger("fe_contact.simulate")
    logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.INFO, logger="fe_contact.simulate"):
            auto = simulate(system, (0.0, 0.3), y0, method="auto", h=1e-3)
    finally:
        logger.removeHandler(caplog.handler)
    assert "method 'moreau' chosen" in caplog.text and "Unilateral" in caplog.text
    explicit = simulate(system, (0.0, 0.3), y0, method="moreau", h=1e-3)
    assert auto.method == "moreau" and auto.status == "finished"
    assert np.array_equal(auto.q, explicit.q)
    assert auto["dissipated_impact"][-1] > 0.0  # it bounced
    assert np.max(np.abs(auto["energy_error"])) < 1e-9 * 0.1 * G


def test_sliding_and_compliant_laws_go_to_generalized_alpha():
    sliding = ball(Sliding(0.2))
    assert choose_method(sliding)[0] == "generalized-alpha"
    law = Compliant("hertz", 1e7, damping=0.0, mu=0.0)
    compliant = falling_disk(law, (0.0, -G))
    assert choose_method(compliant)[0] == "generalized-alpha"
    poisson = ball(Unilateral(0.1, restitution_normal=0.5, impact="poisson"))
    assert choose_method(poisson)[0] == "generalized-alpha"
    res = simulate(sliding, (0.0, 0.05), (np.zeros(2), np.array([0.5, 0.0])), method="auto")
    assert res.method == "generalized-alpha" and res.status == "finished"


def test_a_tree_without_contacts_goes_to_generalized_alpha():
    tree = TreeModel((Body(1.0, 0.01),), (Joint("revolute"),), gravity=(0.0, -G))
    assert choose_method(assemble(Model(tree=tree)))[0] == "generalized-alpha"


def test_a_rough_pair_goes_to_the_event_driven_stepper():
    system = assemble(pin_model(replace(PinOnWheel(), t_end=1e-5)))
    method, reason = choose_method(system)
    assert method == "event-driven" and "Polyline" in reason


def test_a_grid_beside_a_sliding_contact_is_refused_naming_both():
    model = disk_on_string_model()  # a disk with a grid of candidates on the string
    grid = replace(model.contacts[0], name="grid")
    slide = ContactPair("slide", Point(2), "string", Sliding(0.1))
    mixed = assemble(replace(model, contacts=(grid, slide)))
    assert choose_method(assemble(model))[0] == "moreau"
    with pytest.raises(ValueError, match=r"'grid'.*'slide'.*no stepper takes both"):
        choose_method(mixed)
