"""The energy-consistent option of the generalised-alpha stepper at rho_inf = 1: the string's
discrete gradient f_avg (elements.string_energy), exact energy conservation of a free string,
beams exact without it, the refusals, and the parts of the trolley's balance error without the
option (the constraints with it: tests/test_energy_consistent_contacts.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sympy

from fe_contact import Model, assemble, simulate
from fe_contact.coupling.constraints import mass_times
from fe_contact.demos import slider_on_string as slider_demo
from fe_contact.elements.beam import BeamSpec
from fe_contact.elements.string import (
    LinearElastic,
    NeoHookean,
    StringSpec,
    Support,
    assemble_string,
    averaged_internal_force,
    averaged_tangent,
    internal_force,
    strain_energy,
    tangent_stiffness,
)
from fe_contact.elements.string_energy import energy_quotient
from fe_contact.io.model_file import load_model
from fe_contact.io.model_problems import ModelFileError
from fe_contact.papers.slider_on_string import Trolley, slider_on_string
from fe_contact.steppers.genalpha import GeneralizedAlpha

EPS = np.finfo(float).eps
LAWS = {"neo-hookean": NeoHookean(853.75), "linear": LinearElastic(853.75)}
STIFFNESS = 853.75  # N, k of the neo-Hookean law, EA of the linear one


def taut_string(law, gravity=(0.0, 0.0), n_elements=8, bending=0.0):
    """004's string (L = 1 m, rho0 A = 0.3142 kg/m) pinned at x = 0 and x = 1.1 m (10 % stretch)."""
    return StringSpec(
        length=1.0,
        n_elements=n_elements,
        density=0.3142,
        law=law,
        bending_stiffness=bending,
        supports=(Support(0.0, position=(0.0, 0.0)), Support(1.0, position=(1.1, 0.0))),
        gravity=gravity,
    )


def random_pair(model, rng, size):
    """Two configurations near the straight, 10 % stretched string: every free dof moved by a
    normal random number times ``size`` (m for positions, 1 for slopes)."""
    q = model.q_ref.copy()
    q[model.position_dofs[0]] *= 1.1
    q[model.slope_dofs[0]] *= 1.1
    pair = []
    for _ in range(2):
        p = q.copy()
        p[model.free_dofs] += size * rng.standard_normal(model.free_dofs.size)
        pair.append(p)
    return pair


@pytest.mark.parametrize("name", list(LAWS))
def test_energy_quotient_is_the_exact_difference_quotient(name):
    """The closed forms (W(nu1) - W(nu0)) / ((nu1^2 - nu0^2) / 2) against exact rational
    arithmetic (sympy) on the law's energy of 004 eq. (17) / EA/2 (nu - 1)^2, and their limit
    T(nu) / nu; bound 8 eps times the size of the terms k/3 * 2/(nu0 nu1 (nu0 + nu1)) ~ k."""
    k = sympy.Rational(STIFFNESS)

    def energy(nu):
        if name == "neo-hookean":
            return k / 3 * (nu**2 / 2 + 1 / nu) - k / 2
        return k / 2 * (nu - 1) ** 2

    law = LAWS[name]
    for nu0, nu1 in [(1.05, 1.1), (0.9, 1.3), (1.2, 1.2 + 2**-30), (2.0, 0.7)]:
        a, b = sympy.Rational(nu0), sympy.Rational(nu1)
        exact = (energy(b) - energy(a)) / ((b**2 - a**2) / 2)
        assert abs(law.energy_quotient(nu0, nu1) - float(exact)) <= 8 * EPS * STIFFNESS
    nu = 1.17
    limit = law.tension(nu) / nu
    assert abs(law.energy_quotient(nu, nu) - limit) <= 8 * EPS * STIFFNESS


@pytest.mark.parametrize("name", list(LAWS))
def test_generic_quotient_of_a_law_without_its_own(name):
    """A tension law with only tension/dtension/energy gets the difference quotient (and the
    midpoint limit where the stretches nearly agree): equal to the closed form to the rounding
    of W1 - W0 divided by nu1^2 - nu0^2 (eps k / 0.1 ~ 2e-15 k for the first two pairs) and,
    for nu1 - nu0 = 1e-9, to the midpoint limit's truncation O(k (nu1 - nu0)^2) ~ 1e-18 k;
    bound 1e-9 k, far above both and far below the quotients (~k/10)."""

    class Plain:
        def __init__(self, law):
            self.tension, self.dtension, self.energy = law.tension, law.dtension, law.energy

    law = LAWS[name]
    nu0 = np.array([1.05, 0.9, 1.2, 1.2])
    nu1 = np.array([1.1, 1.3, 1.2 + 1e-9, 1.2])
    generic = energy_quotient(Plain(law), nu0, nu1)
    np.testing.assert_allclose(
        generic, law.energy_quotient(nu0, nu1), rtol=0, atol=1e-9 * STIFFNESS
    )


@pytest.mark.parametrize("name", list(LAWS))
@pytest.mark.parametrize("size", [0.05, 1e-4, 1e-8])
def test_discrete_gradient_gives_the_energy_difference(name, size):
    """f_avg(q0, q1) . (q1 - q0) = V(q1) - V(q0) for random q0, q1 (large and tiny steps).
    Round-off: V sums 8 x 4 quadrature terms of size k (1 + nu^2) dx (the neo-Hookean energy
    k/3 (nu^2/2 + 1/nu) - k/2 cancels terms of size k), so each side is exact to a few eps
    k L (1 + max nu^2); bound 64 eps k L (1 + max nu^2)."""
    model = assemble_string(taut_string(LAWS[name]))
    rng = np.random.default_rng(7)
    for _ in range(5):
        q0, q1 = random_pair(model, rng, size)
        work = averaged_internal_force(model, q0, q1) @ (q1 - q0)
        difference = strain_energy(model, q1) - strain_energy(model, q0)
        nu_max = max(np.max(np.hypot(*q[model.slope_dofs])) for q in (q0, q1))
        assert abs(work - difference) <= 64 * EPS * STIFFNESS * 1.0 * (1 + nu_max**2)
        if size == 0.05:  # the energy difference itself is well above the bound
            assert abs(difference) > 1e4 * 64 * EPS * STIFFNESS * (1 + nu_max**2)


@pytest.mark.parametrize("name", list(LAWS))
def test_discrete_gradient_at_equal_states_is_the_internal_force(name):
    """f_avg(q, q) = f_int(q): the same tension k/3 (1 - nu^-3) nu as k/3 (nu - nu^-2) in
    another order of operations; each quadrature term is rounded at eps k |r'|, so bound
    64 eps k max|r'| per dof."""
    model = assemble_string(taut_string(LAWS[name]))
    rng = np.random.default_rng(3)
    q, _ = random_pair(model, rng, 0.05)
    f_avg = averaged_internal_force(model, q, q)
    slope = np.max(np.hypot(*q[model.slope_dofs]))
    np.testing.assert_allclose(
        f_avg, internal_force(model, q), rtol=0, atol=64 * EPS * STIFFNESS * slope
    )


@pytest.mark.parametrize("name", list(LAWS))
def test_averaged_tangent_is_the_derivative(name):
    """d f_avg / d q1 against central differences (step 1e-6: truncation ~1e-12 and rounding
    ~eps k / 1e-6 ~ 1e-7 relative: bound 1e-6 relative), and 2 d f_avg / d q1 at q0 = q1 is the
    tangent stiffness K(q) (same expression up to the rounding of k-size terms, 1e3 eps)."""
    model = assemble_string(taut_string(LAWS[name]))
    rng = np.random.default_rng(11)
    q0, q1 = random_pair(model, rng, 0.02)
    K = averaged_tangent(model, q0, q1).toarray()
    d = np.zeros_like(q1)
    d[model.free_dofs] = rng.standard_normal(model.free_dofs.size)
    step = 1e-6
    fd = (
        averaged_internal_force(model, q0, q1 + step * d)
        - averaged_internal_force(model, q0, q1 - step * d)
    ) / (2 * step)
    assert np.max(np.abs(K @ d - fd)) <= 1e-6 * np.max(np.abs(fd))
    K_same = 2.0 * averaged_tangent(model, q0, q0).toarray()
    K_point = tangent_stiffness(model, q0).toarray()
    assert np.max(np.abs(K_same - K_point)) <= 1e3 * EPS * np.max(np.abs(K_point))


def test_bending_is_refused():
    model = assemble_string(taut_string(LAWS["linear"], bending=1e-3))
    with pytest.raises(ValueError, match="bending_stiffness"):
        averaged_internal_force(model, model.q_ref, model.q_ref)
    system = assemble(Model(structures={"s": model.spec}, gravity=(0.0, 0.0)))
    q0, u0 = system.initial_state()
    # (the reference state is off the moved support: start_tol=None lets the option be checked)
    with pytest.raises(ValueError, match="bending_stiffness"):
        simulate(
            system,
            (0.0, 1e-3),
            (q0, u0),
            h=1e-3,
            rho_inf=1.0,
            energy_consistent=True,
            start_tol=None,
        )


def test_refused_below_rho_inf_one():
    system = assemble(Model(structures={"s": taut_string(LAWS["linear"])}, gravity=(0.0, 0.0)))
    q0, u0 = system.initial_state()
    run = {"h": 1e-3, "start_tol": None}  # the reference state is off the moved support
    with pytest.raises(ValueError, match="rho_inf = 0.9 with energy_consistent"):
        simulate(system, (0.0, 1e-3), (q0, u0), rho_inf=0.9, energy_consistent=True, **run)
    with pytest.raises(TypeError, match="energy_consistent"):
        simulate(system, (0.0, 1e-3), (q0, u0), rho_inf=1.0, energy_consistent="yes", **run)


def vibrating_string(gravity):
    """(system, q0, u0): the taut neo-Hookean string, straight, with a transverse velocity
    2 sin(pi x) m/s and an axial one 0.5 sin(2 pi x) m/s (x the unstretched coordinate)."""
    spec = taut_string(LAWS["neo-hookean"], gravity=gravity)
    system = assemble(Model(structures={"string": spec}, gravity=gravity))
    q0, u0 = system.initial_state()
    structure = system.structures["string"]
    model = structure.string
    sl = system.layout.structure("string")
    full = structure.full(q0[sl])
    x = full[model.position_dofs[0]].copy()
    full[model.position_dofs[0]] *= 1.1
    full[model.slope_dofs[0]] *= 1.1
    q0[sl] = full[model.free_dofs]
    u = np.zeros(model.n_dofs)
    u[model.position_dofs[1]] = 2.0 * np.sin(np.pi * x)
    u[model.slope_dofs[1]] = 2.0 * np.pi * np.cos(np.pi * x)
    u[model.position_dofs[0]] = 0.5 * np.sin(2 * np.pi * x)
    u[model.slope_dofs[0]] = np.pi * np.cos(2 * np.pi * x)
    u0[sl] = u[model.free_dofs]
    return system, q0, u0


@pytest.mark.slow  # 3.9 s of CPU per case (one core), 2026-11-25
@pytest.mark.parametrize("gravity", [(0.0, 0.0), (0.0, -9.81)])
def test_free_string_conserves_energy_exactly(gravity):
    """Pinned, 10 % pre-stretched, undamped string, 500 steps of 1 ms at rho_inf = 1. With the
    option the total energy (kinetic + elastic + gravity) is constant to round-off: per step
    the identity holds to the rounding of V (eps k L ~ 2e-13 J) plus the Newton residual
    (rtol 1e-10 of ~1 N forces times |dq| ~ 1e-3 m: 1e-13 J); over 500 steps a few 1e-12 J of
    E ~ 4.3 J: bound 1e-11 E (measured 1e-13 E). Without it the trapezoidal average of the
    internal force errs at O(h^3) per step: measured 4.8e-6 E (no gravity) / 5.6e-6 E."""
    system, q0, u0 = vibrating_string(gravity)
    drift = {}
    for option in (True, False):
        result = simulate(
            system, (0.0, 0.5), (q0, u0), h=1e-3, rho_inf=1.0, energy_consistent=option
        )
        assert result.success
        total = result["kinetic_energy"] + result["elastic_energy"] + result["potential_energy"]
        assert total[0] > 4.0  # J, the vibration is not trivial
        drift[option] = np.max(np.abs(total - total[0])) / total[0]
        np.testing.assert_allclose(result["energy_error"], total - total[0], rtol=0, atol=1e-14)
    assert drift[True] <= 1e-11
    assert drift[False] >= 1e-6


def test_beam_is_exact_without_the_option():
    """A linear beam (quadratic energy) keeps its energy at rho_inf = 1 without the option (the
    trapezoidal average K (q0 + q1)/2 is the discrete gradient), and the option changes nothing:
    a pinned-pinned steel strip with an initial velocity, 400 steps of 1e-4 s; bound 1e-11 E
    (round-off of K q and of the Newton solve on the stiff strip; measured 2.9e-14 E without,
    4.7e-14 E with the option), and the two runs' positions agree to 1e-12 of their size
    (measured 4e-14)."""
    spec = BeamSpec(
        length=0.4, youngs_modulus=2.1e11, density=4.7e3, n_elements=10, width=0.01,
        height=0.0015, left="pinned", right="pinned",
    )  # fmt: skip
    system = assemble(Model(structures={"beam": spec}, gravity=(0.0, 0.0)))
    q0, u0 = system.initial_state()
    sl = system.layout.structure("beam")
    u0[sl] = np.linspace(0.3, -0.2, sl.stop - sl.start)  # mixed modes, m/s and rad/s
    runs = {}
    for option in (False, True):
        result = simulate(
            system, (0.0, 0.04), (q0, u0), h=1e-4, rho_inf=1.0, energy_consistent=option
        )
        total = result["kinetic_energy"] + result["elastic_energy"]
        assert total[0] > 1e-4  # J (2.6e-4 J): a real vibration, kinetic at the start
        assert np.max(np.abs(total - total[0])) <= 1e-11 * total[0]
        runs[option] = result.q
    scale = np.max(np.abs(runs[False]))
    assert np.max(np.abs(runs[True] - runs[False])) <= 1e-12 * scale


def _step_terms(stepper, system, report, before):
    """(balance change A, dependent-coordinate term D, normal-force work C) of the step just
    taken from ``before`` = (evaluation, accelerations, multipliers, total energy). A = change
    of kinetic + potential + elastic energy + the booked friction and numerical losses. With the
    trapezoidal update of the independent coordinates and M constant, exactly
    A = D + C + S + R, where D = Delta K - dq . M (a0 + a1) / 2 (the dependent coordinates'
    velocities come from J u = 0, not from the update), C = dq . (W_N0 lam0 + W_N1 lam1) / 2
    (the normal force works on the chord: W_N dq != 0 on a curved target; row 0, the model's
    one contact), S = -dq . (f0 + f1) / 2 - Delta V (the internal force's error: zero with
    f_avg) and R = the friction force's discrete work minus the booked one (zero with the
    option)."""
    ev0, acc0, lam0, total0 = before
    ev1, acc1, lam1 = stepper.evaluation, stepper.acceleration, stepper.multipliers
    energy = report.energy
    total1 = energy.kinetic + energy.potential + energy.elastic
    dq = ev1.q - ev0.q
    kinetic = [0.5 * ev.u @ mass_times(system, ev, ev.u) for ev in (ev0, ev1)]
    inertia = (mass_times(system, ev0, acc0) + mass_times(system, ev1, acc1)) / 2
    D = kinetic[1] - kinetic[0] - dq @ inertia
    C = dq @ (ev0.jac[0] * lam0[0] + ev1.jac[0] * lam1[0]) / 2
    A = total1 - total0 + report.work["dissipated_friction"] + report.work["dissipated_numerical"]
    return A, D, C, (ev1, acc1, lam1, total1)


@pytest.mark.parametrize("mu", [0.0, 0.05])
def test_trolley_balance_error_without_and_with_the_option(mu):
    """The trolley on the hanging string (rho_inf = 1, h = 1 ms, 60 steps, slipping all along).
    Without the option A = D + C + S + R: D (the trolley's dependent y, whose velocity follows
    from J u = 0: ~1e-5 J per step), C (the normal force's work on the chord, ~1e-7 J) and the
    string's and friction booking's parts S + R (measured up to 7e-7 J per step). With it (the
    string's discrete gradient and the constraints in discrete-gradient form,
    steppers.energy_consistent) every coordinate follows the trapezoidal rule, so that D is
    only the kinetic energy the impulse closing J u = 0 at the step's end removes, booked as
    ``dissipated_numerical`` (with which A counts), and A itself is round-off: per step the
    Newton residual (rtol 1e-10 of forces ~10 N) times |dq| ~ 5e-4 m, 5e-13 J, and the
    rounding of energies of ~3.5 J; bound 2e-12 J (measured ~5e-13 J)."""
    scenario = slider_on_string(Trolley(mu=mu))
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    largest, dependent = {}, {}
    for option in (True, False):
        stepper = GeneralizedAlpha(
            system, 0.0, q0, u0, h=1e-3, rho_inf=1.0, energy_consistent=option
        )
        e = stepper.initial_report().energy
        before = (
            stepper.evaluation,
            stepper.acceleration,
            stepper.multipliers,
            e.kinetic + e.potential + e.elastic,
        )
        rest, worst = [], 0.0
        for _ in range(60):
            report = stepper.step()
            A, D, C, before = _step_terms(stepper, system, report, before)
            worst = max(worst, abs(A) if option else abs(A - D - C))
            rest.append(abs(D + report.work["dissipated_numerical"] if option else D))
        assert not stepper.events  # slipping throughout: no restart inside these steps
        largest[option], dependent[option] = worst, max(rest)
    assert largest[True] <= 2e-12
    assert dependent[True] <= 2e-12  # J: D + the impulse's loss; the trapezoidal rule holds
    assert largest[False] >= 1e-8
    assert dependent[False] > 1e-6  # J: the dependent coordinate's part without the option


def test_model_file_takes_the_option(tmp_path):
    """``energy_consistent`` is a setting of the [simulation] table (a boolean)."""
    text = (Path(__file__).parents[1] / "examples" / "slider_on_string.toml").read_text()
    text, n = re.subn(r"(?m)^rho_inf = .*$", "rho_inf = 1.0\nenergy_consistent = true", text)
    assert n == 1
    path = tmp_path / "model.toml"
    path.write_text(text)
    assert load_model(path).simulation.settings["energy_consistent"] is True
    path.write_text(text.replace("energy_consistent = true", "energy_consistent = 3"))
    with pytest.raises(ModelFileError, match="energy_consistent"):
        load_model(path)


def test_demo_passes_the_option_on():
    """``fe-contact demo slider-on-string --energy-consistent`` runs the model file with it."""
    settings = slider_demo.model_file(t_end=0.01, energy_consistent=True).simulation.settings
    assert settings == {"rho_inf": 1.0, "energy_consistent": True}
