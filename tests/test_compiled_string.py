"""The compiled generalised-alpha step on the absolute-nodal string (``steppers.compiled`` with
``kernels.string``) against the Python step: the trolley sliding with Coulomb friction on the
hanging string (``papers.slider_on_string``).

Both steps take the same equations, Newton test and iterates; they differ in round-off only: the
string's tension law evaluated by the compiled kernel instead of numpy (an ulp), the order of
sums, and the banded LU of G_f = M_f + beta' K_t(q) by dgbtf2's operations instead of LAPACK's
dgbtrf. A relative difference of eps in the residual becomes eps cond(G_f) in a Newton correction
(cond(G_f) = 1.6e4 at the start, h = 1 ms), and the undamped scheme (rho_inf = 1) carries the
corrections of the steps along: the lockstep bounds are 10 eps cond(G_f) relative to each
quantity's scale, the factor 10 for the round-off of the steps adding up over the run (measured
over 100 steps: velocities 0.65 eps cond(G_f) relative to the largest |u|, multipliers 0.1,
positions 0.01 relative to each coordinate's range).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.elements.tension import LinearElastic, NeoHookean
from fe_contact.papers.slider_on_string import Trolley, slider_on_string
from fe_contact.steppers.compiled import unsupported
from fe_contact.steppers.effective_mass import law_compiled
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

EPS = np.finfo(float).eps


@pytest.fixture(scope="module")
def trolley():
    scenario = slider_on_string()
    return assemble(scenario.model), scenario


def iteration_matrix_condition(system, q, h):
    """cond_2 of the string's G_f = M_f + beta' K_t(q) at rho_inf = 1 (beta' = h^2 / 4)."""
    string = system.structures["string"]
    q_s = q[system.layout.structure("string")]
    G = string.mass_matrix + 0.25 * h * h * string.tangent_stiffness(q_s)
    return float(np.linalg.cond(G.toarray()))


def test_the_compiled_step_takes_the_trolley_on_the_string_and_refuses_damped_strings(trolley):
    system, scenario = trolley
    assert unsupported(system) is None
    stepper = GeneralizedAlpha(system, 0.0, scenario.q0, scenario.u0, compiled=True)
    assert stepper.step_path == "compiled"
    spec = system.model.structures["string"]
    damped = replace(system.model, structures={"string": replace(spec, stiffness_damping=0.01)})
    assert unsupported(assemble(damped)) == "a damped string"


class Softened(NeoHookean):
    """A tension law of the user's: the neo-Hookean one as a subclass the kernels do not know."""


def test_a_tension_law_the_kernels_do_not_know_is_left_to_the_python_step(trolley):
    system, _ = trolley
    assert law_compiled(NeoHookean(853.75)) and law_compiled(LinearElastic(853.75))
    assert not law_compiled(Softened(853.75))
    spec = system.model.structures["string"]
    own = replace(system.model, structures={"string": replace(spec, law=Softened(853.75))})
    assert unsupported(assemble(own)) == "a string whose tension law the kernels do not evaluate"


def test_lockstep_with_the_python_step_to_round_off(trolley, measured):
    system, scenario = trolley
    h = scenario.settings["h"]
    py = GeneralizedAlpha(system, 0.0, scenario.q0, scenario.u0, **scenario.settings)
    cc = GeneralizedAlpha(system, 0.0, scenario.q0, scenario.u0, compiled=True, **scenario.settings)
    reports = [(py.step(), cc.step()) for _ in range(100)]  # 0.1 s
    assert cc.n_compiled == cc.n_substeps == 100 and cc.n_fallback == 0
    assert cc.n_newton == py.n_newton  # the same iterates
    bound = 10.0 * EPS * iteration_matrix_condition(system, scenario.q0, h)
    q_py = np.array([a.q for a, _ in reports])
    q_cc = np.array([b.q for _, b in reports])
    span = np.maximum(np.ptp(q_py, axis=0), np.abs(q_py).max(axis=0))
    measured("positions / range", np.max(np.abs(q_py - q_cc) / span), bound, reference="Python")
    u_py = np.array([a.u for a, _ in reports])
    u_cc = np.array([b.u for _, b in reports])
    u_diff = np.max(np.abs(u_py - u_cc)) / np.max(np.abs(u_py))
    measured("velocities / max |u|", u_diff, bound, reference="Python step")
    lam_py = np.array([a.multipliers for a, _ in reports])
    lam_cc = np.array([b.multipliers for _, b in reports])
    lam_diff = np.max(np.abs(lam_py - lam_cc)) / np.max(np.abs(lam_py))
    measured("multipliers / max |lambda|", lam_diff, bound, reference="Python step")
    for a, b in reports:
        assert a.t == b.t
        assert b.energy.total == pytest.approx(a.energy.total, rel=bound, abs=0.0)
        assert b.energy.elastic == pytest.approx(a.energy.elastic, rel=bound, abs=0.0)
        for key, value in a.work.items():
            assert b.work[key] == pytest.approx(value, rel=bound, abs=EPS), key
        (ca,), (cb,) = a.contacts, b.contacts
        assert ca.state == cb.state == "slip"
        # the contact parameter in m along the 1 m string
        assert cb.parameter == pytest.approx(ca.parameter, abs=bound * 1.0)
        assert cb.normal_force == pytest.approx(ca.normal_force, rel=bound)
        assert cb.friction_force == pytest.approx(ca.friction_force, rel=bound)


@pytest.mark.slow  # 3 s of CPU (one core), 2026-11-27
def test_stick_slip_events_are_those_of_the_python_step(trolley, measured):
    # from 0.66 s (the state of a compiled run) to 0.77 s the trolley sticks and slips seven
    # times near its turning points and reverses once: the same events in the same order. Their
    # times differ as the slip velocities do (the lockstep bound, 10 eps cond(G_f) max |u|)
    # over the slip velocity's rate at the crossing, of the order of the friction
    # deceleration mu g. The located sub-steps may number a few more or fewer (Illinois
    # iterates that end on a tolerance test at round-off: 239 and 242 here).
    system, scenario = trolley
    settings = scenario.settings
    start = simulate(system, (0.0, 0.66), (scenario.q0, scenario.u0), **settings)
    y0 = (start.q[-1], start.u[-1])
    runs = [
        simulate(system, (0.66, 0.77), y0, compiled=compiled, **settings)
        for compiled in (True, False)
    ]
    cc, py = runs
    assert cc.step_path == "compiled" and cc.n_fallback == 0 and py.n_compiled == 0
    assert cc.n_compiled > 0.9 * cc.n_substeps
    kinds = [kind for _, _, kind in py.events]
    assert kinds == [kind for _, _, kind in cc.events]
    assert kinds.count("stick") == 7 and kinds.count("slip") == 6 and "reversal" in kinds
    times_py = np.array([t for t, _, _ in py.events])
    times_cc = np.array([t for t, _, _ in cc.events])
    velocity = 10.0 * EPS * iteration_matrix_condition(system, y0[0], settings["h"])
    velocity *= np.max(np.abs(py.u))
    bound = velocity / (Trolley().mu * 9.81)
    measured("event times", np.max(np.abs(times_cc - times_py)), bound, unit="s")


@pytest.mark.slow  # 5 s of CPU (one core), 2026-11-27
def test_energy_balance_of_the_compiled_run_closes_as_the_python_one(measured):
    # the bound of ``test_slider_on_string``'s friction run: 1e-2 of the friction work
    scenario = slider_on_string(replace(Trolley(), mu=0.05))
    system = assemble(scenario.model)
    runs = [
        simulate(system, (0.0, 0.4), (scenario.q0, scenario.u0), compiled=c, **scenario.settings)
        for c in (True, False)
    ]
    for r in runs:
        assert r.status == "finished", r.message
        dissipated = r["dissipated_friction"]
        assert dissipated[-1] > 0.02
        assert np.all(np.diff(dissipated) >= 0.0)
    cc, py = runs
    assert cc.n_compiled == cc.n_substeps and py.n_compiled == 0
    measured(
        "energy balance error, compiled",
        np.max(np.abs(cc["energy_error"])),
        1e-2 * cc["dissipated_friction"][-1],
        unit="J",
        reference="energy + friction work conserved",
    )
    # and it is the Python run's balance: the two differ by the lockstep bound (10 eps
    # cond(G_f)) relative to the energies
    total = cc["kinetic_energy"] + cc["potential_energy"] + cc["elastic_energy"]
    bound = 10.0 * EPS * iteration_matrix_condition(system, scenario.q0, scenario.settings["h"])
    measured(
        "energy balance error, compiled - Python",
        np.max(np.abs(cc["energy_error"] - py["energy_error"])),
        bound * np.max(np.abs(total)),
        unit="J",
        reference="the Python run",
    )
    # the string's own energy columns: its strain energy booked by the kernels
    elastic = np.abs(cc["string_elastic_energy"] - py["string_elastic_energy"])
    assert np.max(elastic) <= bound * np.max(np.abs(total))
    assert np.array_equal(cc["string_elastic_energy"], cc["structure_elastic_energy"])
