"""A tree point on the absolute-nodal string: statics against a shooting solution of the
extensible catenary with a point load, and the energy balance of sliding with and without
friction (generalised-alpha)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from fe_contact import ContactPair, Model, Point, Sliding, assemble, simulate
from fe_contact.coupling.constraints import evaluate_state
from fe_contact.coupling.partition import (
    choose_dependent,
    make_partition,
    recover_dependent,
    static_residual,
)
from fe_contact.elements.string import assemble_string, gravity_force, point_load, string_points_at
from fe_contact.elements.string_statics import string_static_shape
from fe_contact.papers.eugster_glocker import table1_string
from fe_contact.papers.slider_on_string import Trolley, slider_on_string, trolley_tree

G = 9.81
MASS = 1.0


def shooting_midpoint(spec, mass):
    """Midpoint of the extensible catenary with a point load m g at s = L/2, by integrating
    dr/ds = nu(T) T/|T| with T = (H, V0 + w s [+ m g beyond L/2]) (tension of the unstretched
    arc s, w = rho0 A g, neo-Hookean nu(T) by root finding) and shooting on H. V0 follows from
    symmetry. Independent of the finite elements."""
    L, span = spec.length, spec.supports[1].position[0]
    w = spec.density * G
    law = spec.law

    def stretch(T):
        return brentq(lambda nu: law.tension(nu) - T, 1.0, 10.0, xtol=1e-15, rtol=1e-15)

    v0 = -(w * L + mass * G) / 2

    def shape(H, s_end):
        kink = [L / 2] if s_end > L / 2 else None

        def dr(s, c):
            ty = v0 + w * s + (mass * G if s > L / 2 else 0.0)
            T = np.hypot(H, ty)
            return stretch(T) * (H if c == 0 else ty) / T

        return np.array(
            [
                quad(dr, 0.0, s_end, args=(c,), epsabs=1e-13, epsrel=1e-12, limit=200, points=kink)[
                    0
                ]
                for c in (0, 1)
            ]
        )

    H = brentq(lambda H: shape(H, L)[0] - span, 1.0, 200.0, xtol=1e-14)
    return shape(H, L / 2)


def coupled_static(n_elements):
    """The trolley at rest at the midpoint: the string's static shape under its weight and a
    point force m g at s = L/2, placed into the coupled model. Returns (system, q, residual,
    multipliers)."""
    spec = table1_string(n_elements)
    string = assemble_string(spec)
    q_sag = string_static_shape(string).q
    load = gravity_force(string) + point_load(string, 0.5 * spec.length, (0.0, -MASS * G))
    q_string = string_static_shape(string, load, q0=q_sag).q
    model = Model(
        tree=trolley_tree(MASS),
        structures={"string": spec},
        contacts=(ContactPair("trolley", Point(1), "string", Sliding(0.0)),),
    )
    system = assemble(model)
    at = string_points_at(string, q_string, [0.5 * spec.length]).position[:, 0]
    q, u = system.initial_state(at)
    q[system.layout.structure("string")] = q_string[string.free_dofs]
    ev = evaluate_state(system, q, u, 0.0, constraints_only=True)
    part = make_partition(system, choose_dependent(ev.jac[:, system.layout.tree]))
    q, _ = recover_dependent(system, part, q, u, 0.0)
    residual, ev = static_residual(system, part, q, 0.0)
    lam = np.linalg.solve(ev.jac_sigma[:, part.dependent].T, ev.forces[part.dependent])
    return system, q, residual, lam


def test_trolley_at_rest_is_the_string_under_a_point_load(measured):
    # The coupled static residual (002 eq. 78 at rest) vanishes at the string's own static
    # solution with the point force m g, and the contact multiplier is that force: the
    # contact transmits exactly the trolley's weight (round-off of the string statics, 1e-9).
    system, q, residual, lam = coupled_static(8)
    scale = MASS * G
    measured(
        "coupled static residual",
        np.max(np.abs(residual)),
        1e-8 * scale,
        unit="N",
        reference="the string's own statics under the point force m g (002 eq. 78 at rest)",
    )
    measured.close(
        "contact multiplier",
        lam[0],
        MASS * G,
        rtol=1e-9,
        unit="N",
        reference="the trolley's weight m g",
    )
    assert q[0] == pytest.approx(0.4, abs=1e-12)  # symmetry


def test_trolley_height_converges_to_the_catenary_with_a_point_load(measured):
    # The exact shape has a kink under the trolley that the C1 Hermite string cannot follow,
    # so the height converges at first order: the error must halve when the mesh is halved
    # (ratio 1.8-2.3) and be below 4 mm with 16 elements (measured: 7.6, 3.7 mm for 8, 16).
    ref = shooting_midpoint(table1_string(8), MASS)
    errors = [abs(coupled_static(n)[1][1] - ref[1]) for n in (8, 16)]
    measured(
        "trolley height, 16 elements",
        errors[1],
        4e-3,
        unit="m",
        reference="extensible catenary with a point load (shooting solution)",
    )
    assert 1.8 < errors[0] / errors[1] < 2.3


def run(mu, h, t_end=0.4):
    scenario = slider_on_string(replace(Trolley(), mu=mu))
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    return simulate(assemble(model), (0.0, t_end), (q0, u0), h=h, rho_inf=1.0)


@pytest.mark.slow  # 7.1 s of CPU (one core), 2026-11-25
def test_sliding_without_friction_conserves_energy(measured):
    # rho_inf = 1: no numerical damping; the balance error is the integrator's own and must
    # shrink with the step (at least by 1.5 when h halves) and stay below 1e-3 of the kinetic
    # energy of the run.
    coarse, fine = run(0.0, 2e-3), run(0.0, 1e-3)
    for r in (coarse, fine):
        assert r.status == "finished", r.message
        assert np.max(np.abs(r["residual_position"])) < 1e-9
    e_coarse = np.max(np.abs(coarse["energy_error"]))
    e_fine = np.max(np.abs(fine["energy_error"]))
    measured(
        "energy balance error, h = 1 ms",
        e_fine,
        1e-3 * np.max(fine["kinetic_energy"]),
        unit="J",
        reference="conservation (no friction, rho_inf = 1)",
    )
    assert e_coarse / e_fine > 1.5
    assert np.all(fine["dissipated_friction"] == 0.0)


@pytest.mark.slow  # 4.4 s of CPU (one core), 2026-11-25
def test_sliding_with_friction_dissipates_the_friction_work(measured):
    r = run(0.05, 1e-3)
    assert r.status == "finished", r.message
    dissipated = r["dissipated_friction"]
    assert dissipated[-1] > 0.02  # friction does real work on this run (J)
    assert np.all(np.diff(dissipated) >= 0.0)  # friction power never positive
    # the balance closes to the frictionless integrator error: far below the friction work
    measured(
        "energy balance error",
        np.max(np.abs(r["energy_error"])),
        1e-2 * dissipated[-1],
        unit="J",
        reference="energy + friction work conserved",
    )
    # Coulomb: friction opposes the slip and equals mu times the normal force
    slip, friction = r["trolley_slip_velocity"][1:], r["trolley_friction_force"][1:]
    normal = r["trolley_normal_force"][1:]
    moving = np.abs(slip) > 1e-6
    assert np.all(friction[moving] * slip[moving] <= 0.0)
    measured.close(
        "friction force",
        np.abs(friction),
        0.05 * np.abs(normal),
        rtol=1e-12,
        atol=1e-15,
        unit="N",
        reference="Coulomb, |F_T| = mu |F_N|",
    )


def test_candidate_grid_contacts_are_refused_by_the_partitioned_stepper():
    from fe_contact import Circle, Unilateral

    scenario = slider_on_string()
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    law = Unilateral(0.1)
    pair = ContactPair("trolley", Circle(1, 0.01), "string", law, search="grid", n_candidates=11)
    system = assemble(replace(model, contacts=(pair,)))
    with pytest.raises(ValueError, match="candidate grid"):
        simulate(system, (0.0, 0.01), (q0, u0))
