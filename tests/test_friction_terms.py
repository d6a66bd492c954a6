"""What a friction law may say besides a constant mu, checked against closed forms: a
friction force that does not scale with the normal force (``ContactLaw.viscous_force``) and a
coefficient mu(|v_t|) under the continuous law's regularisation (Bauchau (000), eq. (10)).

A block of mass m launched at v0 on a horizontal line, with the friction force
-mu m g sign(v) - c v, slows as m v' = -mu m g - c v while v > 0:
v(t) = (v0 + mu m g / c) exp(-c t / m) - mu m g / c.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fe_contact import (
    Body,
    ContactPair,
    Joint,
    Line,
    Model,
    Point,
    Sliding,
    TreeModel,
    assemble,
    simulate,
)

M, MU, G, C, V0 = 0.5, 0.2, 9.81, 0.5, 1.0  # kg, -, m/s^2, N s/m, m/s


@dataclass(frozen=True)
class ViscousCoulomb(Sliding):
    """Coulomb's law plus a viscous term -c v_t (a user's law: no other file knows it)."""

    c: float = 0.0

    def viscous_force(self, slip_velocity):
        return -self.c * slip_velocity, -self.c


@dataclass(frozen=True)
class Weakening(Sliding):
    """A coefficient falling linearly from mu_s at rest to mu at 1 m/s, regularised by v0."""

    def friction_coefficient(self, slip_speed):
        return self.mu + (self.mu_s - self.mu) * max(0.0, 1.0 - slip_speed)


def block(law) -> Model:
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(M, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
        gravity=(0.0, -G),
    )
    floor = Line((0.0, 0.0), (0.0, 1.0))
    return Model(tree=tree, contacts=(ContactPair("block", Point(body=1), floor, law),))


def test_a_viscous_term_slows_the_block_as_the_closed_form(measured):
    """Over 0.3 s at h = 1e-3 s (c t / m = 0.3): the velocity within 1e-6 m/s of the closed
    form (generalised-alpha is second order: (h c / m)^2 v0 = 1e-6 bounds its error, measured
    far below), the friction force column -mu m g - c v within 1e-9 N of the same at the state
    it reports (the Newton tolerance), and the energy balance closes: the kinetic energy lost is
    the dissipated friction, within the error of booking its power by the trapezoidal rule."""
    law = ViscousCoulomb(MU, c=C)
    assert not law.compiled and not law.coulomb()
    system = assemble(block(law))
    q0, u0 = system.initial_state(q_tree=[0.0, 0.0], u_tree=[V0, 0.0])
    result = simulate(system, (0.0, 0.3), (q0, u0), h=1e-3)
    assert result.status == "finished"
    t, v = result["t"], result["joint_0_u"]
    drift = MU * M * G / C
    measured(
        "block velocity",
        np.max(np.abs(v - ((V0 + drift) * np.exp(-C * t / M) - drift))),
        1e-6,
        unit="m/s",
        reference="v = (v0 + mu m g / c) exp(-c t / m) - mu m g / c",
    )
    friction = result["block_friction_force"]
    measured(
        "friction force column",
        np.max(np.abs(friction - (-MU * M * G - C * v))),
        1e-9,
        unit="N",
        reference="-mu m g - c v at the reported state",
    )
    loss = 0.5 * M * (V0**2 - v[-1] ** 2)
    # the trapezoidal rule on the friction power P = (mu m g + c v) v errs by h^2 T |P''| / 12
    # over the run, |P''| <= |v''| (mu m g + 2 c v0) + 2 c v'^2 at the start (3.7e-7 J here;
    # measured 2.5e-7 J): twice that
    a0 = (MU * M * G + C * V0) / M
    booking = 2.0 * 1e-3**2 * 0.3 * (C / M * a0 * (MU * M * G + 2 * C * V0) + 2 * C * a0**2) / 12
    measured(
        "dissipated friction",
        abs(result["dissipated_friction"][-1] - loss),
        booking,
        unit="J",
        reference="the kinetic energy lost, m (v0^2 - v^2) / 2",
    )
    assert np.max(np.abs(result["energy_error"])) < booking


def test_the_regularisation_scales_any_coefficient():
    """factor(v) = mu(|v|) sign(v) (1 - exp(-|v| / v0)), and its slope the derivative of that
    (a central difference of step 1e-7 m/s: truncation ~1e-14 relative, round-off ~1e-9: 1e-6
    relative admits both)."""
    law = Weakening(0.2, 0.5, v0=0.01)
    for v in (-0.7, -0.02, 0.003, 0.4, 1.5):
        mu = 0.2 + 0.3 * max(0.0, 1.0 - abs(v))
        expected = mu * math.copysign(1.0, v) * (1.0 - math.exp(-abs(v) / 0.01))
        assert abs(law.friction_factor(v) - expected) <= 4 * np.finfo(float).eps * abs(expected)
        dv = 1e-7
        difference = (law.friction_factor(v + dv) - law.friction_factor(v - dv)) / (2 * dv)
        assert abs(law.friction_slope(v) - difference) < 1e-6 * max(1.0, abs(difference))
