"""The contact laws act: a law answers the steppers' questions (friction, stick cone, impact
phases, which steppers take it), so a new friction law is a subclass defined here, in the test
alone, that runs through the generalised-alpha stepper without any other file knowing of it.

The reference is closed form: a block sliding on a level line under a velocity-weakening
coefficient mu(v) = mu_k + (mu_s - mu_k) exp(-v / v_s) decelerates as v' = -g mu(v), whose
time to slow from v_0 to v is t(v) = (F(v_0) - F(v)) / (g mu_k) with
F(v) = v + v_s ln(mu_k + (mu_s - mu_k) exp(-v / v_s)) (the antiderivative is checked with
sympy below).
"""

from dataclasses import dataclass

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import brentq

from fe_contact import Body, ContactPair, Joint, Line, Model, Point, TreeModel, assemble
from fe_contact.laws import ContactLaw, ImpactPhase, Sliding, Unilateral
from fe_contact.steppers.compiled import unsupported
from fe_contact.steppers.simulate import choose_method, simulate

G = 9.81
MASS = 2.0  # kg
V0 = 1.0  # m/s, the initial slip velocity
MU_K, MU_S, V_S = 0.2, 0.6, 0.5  # the weakening law's coefficients and speed scale (m/s)


@dataclass(frozen=True)
class WeakeningFriction(Sliding):
    """Coulomb friction whose kinetic coefficient falls from mu_s at rest to mu at speed:
    mu(v) = mu + (mu_s - mu) exp(-|v| / v_s) (a user's law: only this method is new)."""

    v_s: float = V_S

    def friction_coefficient(self, slip_speed: float) -> float:
        return self.mu + (self.mu_s - self.mu) * np.exp(-slip_speed / self.v_s)


def block(law) -> tuple:
    """(System, y0): a block (x, y prismatic joints) of MASS kg on the level line y = 0,
    pressed by gravity and sliding along +x at V0."""
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(MASS, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
        gravity=(0.0, -G),
    )
    line = Line((0.0, 0.0), (0.0, 1.0))
    model = Model(
        tree=tree, contacts=(ContactPair("block", Point(1), line, law),), gravity=(0.0, -G)
    )
    system = assemble(model)
    return system, (np.zeros(2), np.array([V0, 0.0]))


def antiderivative(v):
    return v + V_S * np.log(MU_K + (MU_S - MU_K) * np.exp(-v / V_S))


def closed_form_speed(t: float) -> float:
    """v(t) of v' = -g mu(v), v(0) = V0, while v > 0 (module docstring)."""

    def elapsed(v):
        return (antiderivative(V0) - antiderivative(v)) / (G * MU_K) - t

    return brentq(elapsed, 0.0, V0, xtol=1e-15)


def test_the_antiderivative_of_the_deceleration_time():
    """dF/dv = mu_k / mu(v): then t(v) = int_v^v0 dv / (g mu(v)) = (F(v0) - F(v)) / (g mu_k)."""
    v, a, b, c = sp.symbols("v a b c", positive=True)
    F = v + c * sp.log(a + b * sp.exp(-v / c))
    assert sp.simplify(sp.diff(F, v) - a / (a + b * sp.exp(-v / c))) == 0


def test_a_velocity_weakening_law_defined_in_a_test_slows_a_block_as_the_closed_form(measured):
    """The user's law runs in the Python generalised-alpha stepper (the compiled kernels hold a
    constant mu and decline it). Over 0.25 s the block slows from 1 to 0.209 m/s (constant
    mu_k would leave 0.51 m/s: the test sees the law); the speed follows the closed form to
    1e-5 m/s at h = 1 ms (measured 2.3e-6) and the error falls as h^2 (measured 5.6e-7 at
    h / 2: ratio 4.0; asserted > 3). The normal force is m g and the friction force
    -mu(v) m g (one product each: 1e-12 relative); friction dissipates the kinetic energy lost
    (level line, no other work) to 2e-5 relative (the balance's quadrature, 3.6e-6 J of 0.96 J
    measured)."""
    law = WeakeningFriction(MU_K, MU_S)
    system, y0 = block(law)
    assert "not a Coulomb Sliding law" in unsupported(system)  # Python stepper, not the kernels
    assert choose_method(system)[0] == "generalized-alpha"
    t_end = 0.25
    errors = []
    for h in (1e-3, 5e-4):
        res = simulate(system, (0.0, t_end), y0, h=h)
        assert res.status == "finished", res.message
        expected = np.array([closed_form_speed(t) for t in res.t])
        errors.append(np.max(np.abs(res.u[:, 0] - expected)))
    reference = "v(t) of m v' = -mu(v) m g in closed form"
    measured("block velocity, h = 1 ms", errors[0], 1e-5, unit="m/s", reference=reference)
    assert errors[0] / errors[1] > 3.0
    assert abs(expected[-1] - (V0 - G * MU_K * t_end)) > 0.2  # not the constant-mu_k slide
    speed = res.u[:, 0]
    normal = res["block_normal_force"]
    np.testing.assert_allclose(normal, MASS * G, rtol=1e-12)
    mu = np.array([law.friction_coefficient(v) for v in speed])
    np.testing.assert_allclose(res["block_friction_force"], -mu * MASS * G, rtol=1e-12)
    kinetic_lost = 0.5 * MASS * (V0**2 - speed[-1] ** 2)
    assert res["dissipated_friction"][-1] == pytest.approx(kinetic_lost, rel=2e-5)


def test_the_coulomb_law_gives_the_same_friction_factor_as_its_definition():
    """Sliding: F_t / F_n = mu sign(v_t) (or the held direction), 002 eq. (63); the continuous
    law mu sign(v) (1 - exp(-|v| / v0)), 000 eq. (10), ignores the held direction; its slope
    is mu exp(-|v| / v0) / v0."""
    law = Sliding(0.3, 0.4)
    assert law.friction_factor(-2.0) == -0.3
    assert law.friction_factor(0.0, direction=1.0) == 0.3
    assert law.static_coefficient == 0.4 and law.sticks and law.compiled
    creep = Sliding(0.3, v0=0.01)
    assert creep.friction_factor(0.01, direction=-1.0) == pytest.approx(0.3 * (1 - np.exp(-1)))
    assert creep.friction_slope(0.01) == pytest.approx(0.3 * np.exp(-1) / 0.01, rel=1e-14)
    assert not creep.sticks and not creep.compiled
    # the weakening law's slope by central differences: -(mu_s - mu_k) / v_s exp(-v / v_s)
    weak = WeakeningFriction(MU_K, MU_S)
    exact = -(MU_S - MU_K) / V_S * np.exp(-0.3 / V_S)
    assert weak.friction_slope(0.3) == pytest.approx(exact, rel=1e-8)  # O(dv^2), dv = 3e-7
    assert not weak.compiled


def test_the_stick_cone_holds_up_to_mu_s_times_the_normal_force():
    law = Sliding(0.2, 0.5)
    assert law.holds_stick(10.0, -5.0) and not law.holds_stick(10.0, 5.0 * (1 + 1e-9))


def test_impact_phases_of_newton_and_poisson():
    """Newton: one phase g'+ = -e_N g'-; Poisson (003 sec. 2.2): compression to g'+ = 0 with
    tangential restitution e_T, then an expansion of e_N times the compression's impulse."""
    newton = Unilateral(0.1, 0.6, 0.2)
    assert newton.impact_phases() == (ImpactPhase(0.6, 0.2),)
    poisson = Unilateral(0.1, 0.6, 0.2, impact="poisson")
    assert poisson.impact_phases() == (ImpactPhase(0.0, 0.2), ImpactPhase(0.0, 0.0, 0.6))


def test_which_steppers_take_each_law():
    assert Sliding(0.1).steppers == {"generalized-alpha"}
    assert Unilateral(0.1).steppers == {"generalized-alpha", "moreau"}
    poisson = Unilateral(0.1, 0.5, impact="poisson")
    assert poisson.steppers == {"generalized-alpha", "event-driven"}
    reversible = Unilateral(0.1, 0.5, 0.2, impact="poisson", reversibility=0.5)
    assert reversible.steppers == {"event-driven"}
    system, y0 = block(reversible)  # refused by the others before any step
    for method in ("generalized-alpha", "moreau"):
        with pytest.raises(ValueError, match=r"simulate.method \(contact 'block'.*'event-driven'"):
            simulate(system, (0.0, 0.01), y0, method=method, h=1e-3)
    assert choose_method(system)[0] == "event-driven"

    @dataclass(frozen=True)
    class Sticky(Unilateral):  # its own coefficient: Moreau-Jean's constant mu would drop it
        def friction_coefficient(self, slip_speed):
            return self.mu * 2.0

    assert Sticky(0.1).steppers == {"generalized-alpha"}
    # and the Moreau-Jean stepper refuses it before any step, naming the contact
    system, y0 = block(Sticky(0.1))
    with pytest.raises(ValueError, match=r"contacts \['block'\] have laws the Moreau-Jean"):
        simulate(system, (0.0, 0.01), y0, method="moreau", h=1e-3)


def test_a_law_of_a_users_subclass_is_not_written_to_a_model_file():
    """The model file's sliding table has mu, mu_s, v0: writing the weakening law as one would
    drop its coefficient, so it is refused, naming the law."""
    with pytest.raises(ValueError, match="WeakeningFriction law cannot be written"):
        WeakeningFriction(MU_K, MU_S).file_table()
    assert Sliding(0.2, 0.3).file_table() == {"law": "sliding", "mu": 0.2, "mu_s": 0.3}


def test_a_contact_pair_refuses_what_is_not_a_law():
    with pytest.raises(TypeError, match="law"):
        ContactPair("c", Point(1), Line((0.0, 0.0), (0.0, 1.0)), law=0.3)
    assert issubclass(WeakeningFriction, ContactLaw)
