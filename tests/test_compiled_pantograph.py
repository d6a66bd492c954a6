"""The pantograph on its overhead line (``papers.pantograph``, the "penalty" contact) on the
compiled generalised-alpha step (``kernels.compliant``, ``kernels.links``) against the Python
step.

Two spans with 1 m elements, h = 1 ms, 0.1 s from the static start at 250 km/h: the head
pressing on the contact wire with ``Compliant("linear", 50 kN/m)`` (97 to 198 N), the 18
droppers taut, the base driven. Both steps solve the same equations with the same laws
(``laws.compliant.compliant_normal_force``, ``laws.dropper.dropper_force``), the same iterates
(the head's closest-point search starting where the last iterate's ended) and the same
iteration matrix (the head's tangent bordered as ``compliant.bordered_solve`` borders it, the
droppers' in the band of G_f); they differ in the order of sums and the factorisations.
Measured: the same Newton iterations; positions 2.4e-15 (m or rad) at most (11 eps of their
size, at least 1); velocities 2.8e-14 of the largest; the head's force 5.0e-12 N of 198 N, the
droppers' tensions 1.2e-10 N (2.7e3 eps: their 1e5 N/m times the positions' round-off); the
energies 7.3e-12 J of 5.4e4 J. With a Hertz law and Hunt-Crossley damping (D = 0.5 s/m, 4.8
iterates per step) the same: the head's force 6.7e-12 N of 209 N, the tensions 1.2e-10 N. The
bounds below are stated in eps, a few times those.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fe_contact.laws import Compliant
from fe_contact.papers.pantograph import pantograph_on_catenary
from fe_contact.steppers.compiled import unsupported
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.system import assemble

EPS = np.finfo(float).eps
N_STEPS = 100


def lockstep(law=None):
    """(python, compiled, reports) over N_STEPS steps of the 2-span run, the head's law
    replaced by ``law`` when given."""
    run = pantograph_on_catenary(2, contact="penalty", max_element_length=1.0)
    model = run.model
    if law is not None:
        model = replace(
            model, contacts=(*model.contacts[:-1], replace(model.contacts[-1], law=law))
        )
    system = assemble(model)
    py = GeneralizedAlpha(system, 0.0, run.q0, run.u0, **run.settings)
    cc = GeneralizedAlpha(system, 0.0, run.q0, run.u0, compiled=True, **run.settings)
    return py, cc, [(py.step(), cc.step()) for _ in range(N_STEPS)]


@pytest.fixture(scope="module")
def linear():
    return lockstep()


def test_the_compiled_step_takes_the_pantograph_and_refuses_what_it_does_not_cover():
    run = pantograph_on_catenary(1, contact="penalty", max_element_length=2.0)
    assert unsupported(assemble(run.model)) is None
    head = run.model.contacts[-1]
    rubbing = replace(head, law=Compliant("linear", 5e4, mu=0.2, v0=0.01))  # friction: refused
    model = replace(run.model, contacts=(*run.model.contacts[:-1], rubbing))
    why = "continuous friction on sides other than a pair of curved profiles"
    assert unsupported(assemble(model)) == f"contact {head.name!r}: {why}"


def _compare(py, cc, reports, force_bound):
    assert cc.n_compiled == N_STEPS and cc.n_fallback == 0
    assert cc.n_newton == py.n_newton
    q_py, q_cc = (np.array([r.q for r in side]) for side in zip(*reports, strict=True))
    # each coordinate against its own size, at least 1 (m, rad): the coordinates are of order
    # 1 to 100 m, and those that hardly move carry their neighbours' absolute round-off
    size = np.maximum(np.abs(q_py).max(axis=0), 1.0)
    assert np.all(np.abs(q_py - q_cc) <= 100 * EPS * size)  # measured 11 eps
    u_py, u_cc = (np.array([r.u for r in side]) for side in zip(*reports, strict=True))
    assert np.max(np.abs(u_py - u_cc)) <= 1e4 * EPS * np.max(np.abs(u_py))
    f_py, f_cc = (
        np.array([[c.normal_force.sum() for c in r.contacts] for r in side])
        for side in zip(*reports, strict=True)
    )
    assert np.max(np.abs(f_py - f_cc)) <= force_bound * EPS * np.max(f_py)
    states = np.array([[c.state for c in a.contacts] for a, _ in reports])
    assert np.array_equal(states, [[c.state for c in b.contacts] for _, b in reports])
    assert set(states[:, -1]) == {"slip"}  # the head pressing all along
    keys = ("kinetic", "potential", "elastic", "contact_elastic", "damping_power")
    e_py, e_cc = (
        np.array([[getattr(r.energy, k) for k in keys] for r in side])
        for side in zip(*reports, strict=True)
    )
    scale = np.max(np.abs(e_py[:, :3]))
    assert np.max(np.abs(e_py - e_cc)) <= 100 * EPS * scale  # measured 7.3e-12 J of 5.4e4 J
    for key in reports[0][0].work:
        w_py = np.array([a.work[key] for a, _ in reports])
        w_cc = np.array([b.work[key] for _, b in reports])
        assert np.max(np.abs(w_py - w_cc)) <= 100 * EPS * scale, key


def test_the_linear_penalty_contact_agrees_with_the_python_step_to_round_off(linear):
    # the droppers' tensions: 1.2e-10 N (2.7e3 eps of 198 N), their stiffness (1e5 N/m) times
    # the positions' round-off; the head's force 4.9e-12 N
    _compare(*linear, force_bound=1e4)


def test_a_damped_hertz_contact_agrees_with_the_python_step_to_round_off():
    # the head's static start is the linear law's: a transient of 93 to 209 N
    py, cc, reports = lockstep(Compliant("hertz", 9e5, damping=0.5))
    _compare(py, cc, reports, force_bound=1e4)
