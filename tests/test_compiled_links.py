"""The compiled generalised-alpha step (``steppers.compiled``) with links between material
points of linear beams (``kernels.links``: the droppers of a catenary) against the Python step.

The model: the two spans of the pantograph's overhead line (``papers.pantograph``, 1 m
elements) with the head's contact removed, from its static start, the contact wire thrown up
at 0.5 m/s: 14 of its 18 droppers go slack at once and all are taut again from about 0.06 s.
Both steps solve the same equations with the same laws (``laws.dropper.dropper_force``) and the
same iteration matrix, G_f + sum K w w^T of the taut droppers factorised in the links' band
order (LAPACK's dpbtrf against ``kernels.band.band_cholesky_factor``); they differ in the order
of sums, i.e. in round-off, amplified by the stiff tensioned wires (G_f's condition). Measured
over 0.12 s (h = 1 ms): positions 6.5e-12 of each coordinate's range (3e4 eps), velocities
1.5e-14 of the largest (66 eps), tensions 9.9e-11 N of 251 N (1.8e3 eps), the energies 7.3e-12
J of the energy scale; the bounds below are a few times those, in eps.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.model import Point
from fe_contact.papers.pantograph import pantograph_on_catenary
from fe_contact.steppers.compiled import unsupported
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.system import assemble

EPS = np.finfo(float).eps
N_STEPS = 120  # 0.12 s at h = 1 ms: the droppers go slack and taut again


@pytest.fixture(scope="module")
def line():
    """The line of the pantograph run without the head's contact, the contact wire thrown
    up: (system, q0, u0)."""
    run = pantograph_on_catenary(2, contact="penalty", max_element_length=1.0)
    system = assemble(replace(run.model, contacts=run.model.contacts[:-1]))
    u0 = run.u0.copy()
    wire = system.layout.structure("contact_wire")
    u0[wire.start + 1 : wire.stop : 2] += 0.5  # the wire's vertical displacements, m/s
    return system, run.q0, u0


@pytest.fixture(scope="module")
def lockstep(line):
    system, q0, u0 = line
    py = GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3, rho_inf=1.0)
    cc = GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3, rho_inf=1.0, compiled=True)
    reports = [(py.step(), cc.step()) for _ in range(N_STEPS)]
    return py, cc, reports


def test_the_compiled_step_takes_the_droppers(line):
    system, _, _ = line
    assert unsupported(system) is None
    # a link from a body point is not one with constant rows: refused, with its name
    model = system.model
    pair = model.contacts[0]
    from_body = replace(pair, profile=Point(0), law=replace(pair.law, mass=0.0))
    why = unsupported(assemble(replace(model, contacts=(from_body, *model.contacts[1:]))))
    assert why == f"link {pair.name!r}: not between material points of linear beams"


def test_droppers_go_slack_and_taut_again_as_in_the_python_step(lockstep):
    py, cc, reports = lockstep
    assert cc.n_compiled == N_STEPS and cc.n_fallback == 0
    assert cc.n_newton == py.n_newton
    states = np.array([[c.state for c in a.contacts] for a, _ in reports])
    assert np.array_equal(states, [[c.state for c in b.contacts] for _, b in reports])
    slack = np.sum(states == "slack", axis=1)
    assert slack[0] >= 10 and slack[-1] == 0  # thrown slack, taut again


def test_positions_velocities_tensions_and_energies_agree_to_round_off(lockstep):
    _, _, reports = lockstep
    q_py, q_cc = (np.array([r.q for r in side]) for side in zip(*reports, strict=True))
    span = np.maximum(np.ptp(q_py, axis=0), np.abs(q_py).max(axis=0))
    assert np.all(np.abs(q_py - q_cc) <= 1e5 * EPS * span)  # measured 3e4 eps
    u_py, u_cc = (np.array([r.u for r in side]) for side in zip(*reports, strict=True))
    assert np.max(np.abs(u_py - u_cc)) <= 1e3 * EPS * np.max(np.abs(u_py))  # measured 66 eps
    t_py, t_cc = (
        np.array([[c.normal_force.sum() for c in r.contacts] for r in side])
        for side in zip(*reports, strict=True)
    )
    assert np.max(np.abs(t_py - t_cc)) <= 1e4 * EPS * np.max(t_py)  # measured 1.8e3 eps
    keys = ("kinetic", "potential", "elastic", "contact_elastic", "damping_power")
    e_py, e_cc = (
        np.array([[getattr(r.energy, k) for k in keys] for r in side])
        for side in zip(*reports, strict=True)
    )
    scale = np.max(np.abs(e_py[:, :3]))
    print(f"energy scale {scale:.4g} J, largest difference {np.max(np.abs(e_py - e_cc)):.3g}")
    assert np.max(np.abs(e_py - e_cc)) <= 1e3 * EPS * scale
    for key in reports[0][0].work:
        w_py = np.array([a.work[key] for a, _ in reports])
        w_cc = np.array([b.work[key] for _, b in reports])
        assert np.max(np.abs(w_py - w_cc)) <= 1e3 * EPS * scale, key


def test_the_energy_balance_closes_as_in_the_python_step(lockstep):
    """E - work in + dissipated stays at its start, compiled as in Python (the droppers'
    elastic energy in E, their damping in the dissipated work). Its drift is the scheme's with
    the droppers' kinks (slack at a = 0, the damper letting go), the same in both steps to
    round-off: measured 0.065 J over 0.12 s in 900 J of elastic and potential energy."""
    _, _, reports = lockstep
    py, cc = (_balance(side) for side in zip(*reports, strict=True))
    scale = max(abs(b.energy.elastic) + abs(b.energy.potential) for _, b in reports)
    assert np.max(np.abs(py - cc)) <= 1e3 * EPS * scale
    assert np.max(np.abs(cc - cc[0])) <= 2e-4 * scale  # measured 7.2e-5


def _balance(reports) -> np.ndarray:
    """E - work in + dissipated after each step (J)."""
    work = dict.fromkeys(reports[0].work, 0.0)
    out = []
    for b in reports:
        for key, value in b.work.items():
            work[key] += value
        out.append(
            b.energy.total
            - work["work_drives"]
            - work["work_loads"]
            + work["dissipated_damping"]
            + work["dissipated_friction"]
            + work["dissipated_impact"]
            + work["dissipated_numerical"]
            - work["work_contact_timing"]
        )
    return np.array(out)
