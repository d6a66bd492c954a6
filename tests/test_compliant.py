"""Compliant normal laws (model.Compliant): Hertz at rest, Hunt-Crossley restitution, energy."""

import numpy as np
import pytest
from scipy.optimize import brentq

from fe_contact.curves import Curve
from fe_contact.model import Circle, Compliant, ContactPair, Model, Profile
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

GROUND = Profile(None, Curve.bezier([[1.0, 0.0], [0.2, 0.0], [-1.0, 0.0]]))  # counter-clockwise


def falling_disk(law, gravity, radius=0.05, mass=1.0):
    """A disk on a vertical prismatic joint (q = height of its centre) over a flat Bezier
    ground (a Profile fixed in the plane)."""
    tree = TreeModel(
        (Body(mass, 0.001),), (Joint("prismatic", None, angle=0.5 * np.pi),), gravity=gravity
    )
    pair = ContactPair("disk", Circle(0, radius), GROUND, law)
    return assemble(Model(tree=tree, contacts=(pair,), gravity=gravity))


@pytest.mark.slow  # 5.9 s of CPU (one core), 2026-11-25
def test_hertz_contact_at_rest(measured):
    """A 1 kg disk settles on the ground with Hunt-Crossley damping: its approach tends to
    (W / c1)^(2/3) (Hertz, F = c1 a^1.5 = m g). Linearised there: omega = 830 rad/s and
    damping ratio m g D / (2 m omega) = 0.6 with D = 100 s/m, so after 0.3 s the
    residual motion is below 1e-4 of the approach (tolerance 1e-4 relative)."""
    c1 = 1e8
    law = Compliant("hertz", c1, damping=100.0)
    system = falling_disk(law, (0.0, -9.81))
    q0, u0 = system.initial_state([0.05], [0.0])
    errors = []
    for h in (2e-4, 1e-4):
        result = simulate(system, (0.0, 0.3), (q0, u0), h=h, rho_inf=1.0)
        assert result.success, result.message
        approach = 0.05 - result.q[-1, 0]
        measured.close(  # np.isclose's criterion: its default atol 1e-8 with rtol 1e-4
            f"static approach, h = {h:g} s",
            approach,
            (9.81 / c1) ** (2.0 / 3.0),
            rtol=1e-4,
            atol=1e-8,
            unit="m",
            reference="Hertz: (m g / c1)^(2/3)",
        )
        errors.append(np.max(np.abs(result["energy_error"])))
        # energy balance: kinetic + gravity + contact elastic + dissipated stays constant to
        # the error of the trapezoidal rule on the powers (0.5 % of the loss at 2e-4 s) ...
        assert errors[-1] < 1e-2 * result["dissipated_damping"][-1]
    # ... which is of second order: a quarter at half the step
    assert 3.5 < errors[0] / errors[1] < 4.5


def hunt_crossley_restitution(d, v):
    """Root e of D v (1 + e) = ln((1 + D v) / (1 - e D v)): integrate m w dw/da = -c a^p
    (1 + D w) (w = a') over the approach (w from v to 0) and the restitution (0 to -e v)."""
    x = d * v
    return brentq(lambda e: x * (1 + e) - np.log((1 + x) / (1 - e * x)), 1e-12, 1 - 1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("kind, stiffness", [("hertz", 1e7), ("linear", 1e5)])
def test_hunt_crossley_drop(kind, stiffness, measured):
    """A disk meets the ground at 1 m/s (no gravity) with Hunt-Crossley damping D = 0.3 s/m:
    it leaves at e v_in with e from the Hunt-Crossley relation (independent of the law's
    exponent and stiffness; 0.8329 here, against 1 - 2/3 D v = 0.8 to first order). The
    undamped generalised-alpha step (rho_inf = 1) over ~200 steps of contact: tolerance 2e-4.
    Energy: kinetic before = kinetic after + dissipated damping, to 1e-4 of the loss."""
    law = Compliant(kind, stiffness, damping=0.3)
    system = falling_disk(law, (0.0, 0.0))
    q0, u0 = system.initial_state([0.0501], [-1.0])
    result = simulate(system, (0.0, 0.04), (q0, u0), h=2e-5, rho_inf=1.0)
    assert result.success, result.message
    e = result.u[-1, 0]
    expected = hunt_crossley_restitution(0.3, 1.0)
    measured.close(  # np.isclose's criterion: atol 2e-4 with its default rtol 1e-5
        "rebound speed / impact speed",
        e,
        expected,
        rtol=1e-5,
        atol=2e-4,
        reference="the Hunt-Crossley relation D v (1 + e) = ln((1 + D v) / (1 - e D v))",
    )
    assert np.isclose(law.restitution(1.0), expected, atol=1e-12)
    loss = 0.5 * (1.0 - e * e)
    assert np.isclose(result["dissipated_damping"][-1], loss, rtol=1e-4)
    assert abs(result["energy_error"][-1]) < 1e-4 * loss


def test_compliant_law_input_is_checked():
    with pytest.raises(ValueError, match="Compliant.kind"):
        Compliant("soft", 1.0)
    with pytest.raises(ValueError, match="Compliant.v0"):
        Compliant("hertz", 1.0, mu=0.3)
    with pytest.raises(ValueError, match="Compliant.mu_s"):
        Compliant("hertz", 1.0, mu=0.3, v0=1e-3, mu_s=0.1)
