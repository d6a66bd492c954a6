"""Point masses (``model.CarriedBody``) and spring supports (``structure_points.SpringSupport``)
at material points of a beam, against closed forms, and the energy balance with both.

The beam: pinned-pinned, L = 2 m, EI = 50 N m^2, rho A = 0.5 kg/m (a short stiff wire), no
pre-tension, so that the closed forms of the Euler-Bernoulli beam apply.
"""

import math

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize

from fe_contact import BeamSpec, Model, assemble, simulate, static_equilibrium
from fe_contact.elements.beam import assemble_beam, shape_rows
from fe_contact.model import CarriedBody
from fe_contact.structure_points import SpringSupport

L, EI, RHO_A, G = 2.0, 50.0, 0.5, 9.81
EPS = np.finfo(float).eps


def wire(n_elements: int = 20, **changes) -> BeamSpec:
    base = dict(length=L, n_elements=n_elements, youngs_modulus=1.0, density=1.0)
    base.update(area=RHO_A, second_moment=EI, left="pinned", right="pinned")
    return BeamSpec(**{**base, **changes})


def mid_deflection(system, q) -> float:
    return float(system.structures["w"].curve(L / 2, q[system.layout.structure("w")]).position[1])


def first_omega_with_central_mass(mass: float) -> float:
    """The exact first frequency of the pinned-pinned beam with a point mass M at mid-span.

    By symmetry, on the half span [0, a], a = L/2, the mode is w = A sin(b x) + B sinh(b x)
    (w = w'' = 0 at the pin; b^4 = omega^2 rho A / EI), with w'(a) = 0 and the mass's inertia
    force M omega^2 w(a) taken by the shear of both halves: -2 EI w'''(a) = M omega^2 w(a).
    From w'(a) = 0, B cosh(ba) = -A cos(ba), so w'''(a) = -2 A b^3 cos(ba) and w(a) =
    A (sin(ba) - cos(ba) tanh(ba)); hence

        4 cos(ba) = (M b / rho A) (sin(ba) - cos(ba) tanh(ba)),

    whose first root lies in (0, pi/2] (M = 0: cos(ba) = 0, b = pi / L, the bare beam)."""

    def f(x):  # x = b a
        b = x / (L / 2)
        return 4.0 * math.cos(x) - mass * b / RHO_A * (math.sin(x) - math.cos(x) * math.tanh(x))

    x = scipy.optimize.brentq(f, 1e-6, math.pi / 2, xtol=1e-15, rtol=4 * EPS)
    b = x / (L / 2)
    return b**2 * math.sqrt(EI / RHO_A)


@pytest.mark.parametrize("mass", [0.25, 1.0, 4.0])  # 1/4, 1, 4 times the beam's mass
def test_central_point_mass_lowers_the_first_frequency_as_the_closed_form(mass, measured):
    """omega_1 of (K, M + m N^T N) on 20 Hermite elements against the root of the frequency
    equation (``first_omega_with_central_mass``). The mass sits on a node, so the FE space holds
    the mode's kink in w'''; the error is the cubics' (k l_e)^4 one of the bare beam
    (``test_beam_tension``: below (k l_e)^4 / 1000 = 2.4e-7 here) and the eigensolver's
    round-off (eps omega_max^2 / omega_1^2 ~ 3e-9): tolerance 1e-6 relative, above the exact
    value (Rayleigh-Ritz bounds from above). The bare beam's omega_1 = (pi / L)^2 sqrt(EI /
    rho A) = 24.7 rad/s falls to 20.1, 14.2, 8.18 rad/s (for 4 kg, Rayleigh's estimate with the
    static shape, sqrt(48 EI / L^3 / (M + 0.486 rho A L)) = 8.18 rad/s, agrees): a mass dropped
    from the matrix fails."""
    body = CarriedBody("clamp", "w", s=L / 2, mass=mass)
    system = assemble(Model(structures={"w": wire()}, carried=(body,), structure_gravity=False))
    w2 = scipy.linalg.eigh(
        system.stiffness_flexible.toarray(), system.mass_flexible.toarray(), eigvals_only=True
    )
    omega = math.sqrt(w2[0])
    exact = first_omega_with_central_mass(mass)
    assert exact < 0.85 * (math.pi / L) ** 2 * math.sqrt(EI / RHO_A)
    relative = omega / exact - 1.0
    reference = "first root of 4 cos(ba) = (M b / rho A) (sin(ba) - cos(ba) tanh(ba))"
    measured(
        "first frequency above the closed form",
        max(relative, 0.0),
        1e-6,
        unit="relative",
        reference=reference,
    )
    measured(
        "first frequency below the closed form",
        max(-relative, 0.0),
        1e-8,
        unit="relative",
        reference=reference,
    )


def test_a_spring_support_under_self_weight_matches_the_hand_solution(measured):
    """A vertical spring k at mid-span of the pinned-pinned beam under its weight q = rho A g.
    By superposition, the bare beam sags 5 q L^4 / (384 EI) at mid-span, the spring's reaction
    R = -k w lifts it by R L^3 / (48 EI):

        w_mid = -(5 q L^4 / (384 EI)) / (1 + k L^3 / (48 EI)).

    Hermite cubics are nodally exact for the Euler-Bernoulli beam under uniform and point loads
    (the consistent load), so the static solve matches to round-off: the stiffness's condition
    (L / l_e)^4 ~ 1.6e5 times eps, with a margin of 100 (relative 1e-9). With k L^3 / (48 EI)
    = 1.33 the spring takes more than half the sag: a spring left out fails by 133 %."""
    k = 400.0
    support = SpringSupport("w", L / 2, stiffness=k)
    system = assemble(Model(structures={"w": wire()}, supports=(support,)))
    state = static_equilibrium(system)
    q = RHO_A * G
    exact = -(5.0 * q * L**4 / (384.0 * EI)) / (1.0 + k * L**3 / (48.0 * EI))
    measured(
        "mid-span deflection",
        abs(mid_deflection(system, state.q) / exact - 1.0),
        1e-9,
        unit="relative",
        reference="-(5 q L^4 / (384 EI)) / (1 + k L^3 / (48 EI))",
    )


def test_a_spring_along_a_slanted_direction_acts_through_its_direction_only(measured):
    """A spring along d = (1, 1) / sqrt(2) on a beam along x: only d . n0 = 1 / sqrt(2) of it
    meets the deflection, so it acts as a vertical spring of k / 2 (the beam has no axial
    motion). Same hand solution, same round-off bound."""
    k = 400.0
    slanted = SpringSupport("w", L / 2, stiffness=2.0 * k, direction=(3.0, 3.0))
    measured.close(
        "spring direction", slanted.direction, (math.sqrt(0.5), math.sqrt(0.5)), atol=4 * EPS
    )
    system = assemble(Model(structures={"w": wire()}, supports=(slanted,)))
    state = static_equilibrium(system)
    q = RHO_A * G
    exact = -(5.0 * q * L**4 / (384.0 * EI)) / (1.0 + k * L**3 / (48.0 * EI))
    measured(
        "mid-span deflection, slanted spring",
        abs(mid_deflection(system, state.q) / exact - 1.0),
        1e-9,
        unit="relative",
        reference="the hand solution with the vertical stiffness (d . n0)^2 2 k = k",
    )


def test_energy_balance_counts_the_spring_the_dashpot_and_the_point_mass(measured):
    """The beam with a point mass (0.5 kg at 0.7 m) and a spring with a dashpot (2 kN/m,
    4 N s/m at 1.3 m) released straight under gravity, 0.2 s at h = 1e-4 s with rho_inf = 1
    (trapezoidal). The system is linear with constant matrices, so the step's energy identity
    is exact up to the booking of the dashpot: its loss is the trapezoidal integral of the
    power c v^2 at the step ends, while the step takes c <v>^2 h; they differ by c [v]^2 h / 4
    per step, O(h^2) over the run (measured 2.6e-7 of the largest term): tolerance 1e-6. The spring's energy k (d . r)^2 / 2, evaluated here from the shape
    functions at its point, is part of the elastic energy (beside the beam's q K q / 2 with the
    bare beam's K): to 1e-9 of it; the dissipated energy equals the trapezoidal integral of the
    dashpot's power c w'(s)^2 (the beam has no damping of its own) to 1e-6 (the integral of a
    smooth power sampled every 1e-4 s against the stepper's own product of mean velocities)."""
    k, c, s_k = 2.0e3, 4.0, 1.3
    body = CarriedBody("clamp", "w", s=0.7, mass=0.5)
    support = SpringSupport("w", s_k, stiffness=k, damping=c)
    spec = wire(n_elements=10)
    system = assemble(Model(structures={"w": spec}, carried=(body,), supports=(support,)))
    result = simulate(system, (0.0, 0.2), system.initial_state(), h=1e-4, rho_inf=1.0)
    assert result.status == "finished", result.message
    largest = max(
        np.abs(result[name]).max()
        for name in ("kinetic_energy", "potential_energy", "elastic_energy", "dissipated_damping")
    )
    measured(
        "energy balance error",
        np.abs(result["energy_error"]).max(),
        1e-6 * largest,
        unit="J",
        reference="energy balance (invariant)",
    )
    # the spring's energy from its definition
    beam = assemble_beam(spec)
    rows = shape_rows(beam, np.array([s_k]))
    cols = system.structures["w"].free_index[rows.dofs[0]]
    keep = cols >= 0
    q = result.q[:, system.layout.structure("w")]
    u = result.u[:, system.layout.structure("w")]
    w_k = q[:, cols[keep]] @ rows.dx(0)[0][keep]
    v_k = u[:, cols[keep]] @ rows.dx(0)[0][keep]
    K = beam.reduced("stiffness")
    bending = 0.5 * np.einsum("ti,ti->t", q, (K @ q.T).T)
    spring = 0.5 * k * w_k**2
    assert spring.max() > 0.05 * bending.max()  # the spring matters
    measured(
        "elastic energy vs q K q / 2 + k (d . r)^2 / 2",
        np.abs(result["elastic_energy"] - bending - spring).max(),
        1e-9 * spring.max(),
        unit="J",
    )
    power = c * v_k**2
    dissipated = np.concatenate(
        [[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(result.t))]
    )
    assert result["dissipated_damping"][-1] > 0.01 * largest
    measured(
        "dashpot loss vs trapezoidal integral of c v^2",
        np.abs(result["dissipated_damping"] - dissipated).max(),
        1e-6 * largest,
        unit="J",
    )


def test_bad_supports_are_refused_naming_the_parameter():
    with pytest.raises(ValueError, match=r"SpringSupport\.damping: got -1\.0"):
        SpringSupport("w", 1.0, stiffness=1.0, damping=-1.0)
    with pytest.raises(ValueError, match=r"SpringSupport\.direction: got .*nonzero"):
        SpringSupport("w", 1.0, stiffness=1.0, direction=(0.0, 0.0))
    with pytest.raises(ValueError, match=r"Model\.supports\[0\]\.s: got 3\.0; allowed: .*\[0, 2\]"):
        Model(structures={"w": wire()}, supports=(SpringSupport("w", 3.0, stiffness=1.0),))
    with pytest.raises(ValueError, match=r"Model\.supports\[0\]\.structure: got 'x'"):
        Model(structures={"w": wire()}, supports=(SpringSupport("x", 1.0, stiffness=1.0),))
