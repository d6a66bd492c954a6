"""A law says whether the compiled generalised-alpha step evaluates it (``ContactLaw.compiled``),
so that no stepper inspects a law's type: a subclass that writes its own force runs on the
Python step with that force, never on the kernels' formula of its base class.

The check with physics: the pantograph's head on one span with a linear penalty whose subclass
doubles the force, F = 2 k (-gap). Run with ``compiled=True``, every step takes the Python
step, and the recorded force is the subclass's (the kernels' formula would give half of it);
the gap and the force are read from the same state, so 1e-9 relative is the round-off allowed
(as in ``tests/test_pantograph.py``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fe_contact.laws import Compliant, Dropper, Sliding, Unilateral
from fe_contact.papers.pantograph import pantograph_on_catenary
from fe_contact.steppers.compiled import unsupported
from fe_contact.system import assemble

STIFFNESS = 5e4  # N/m, the reference penalty


class DoubledPenalty(Compliant):
    """Twice the linear penalty, as its own formula."""

    def normal_force(self, approach, rate):
        force, stiffness, damping = super().normal_force(approach, rate)
        return 2.0 * force, 2.0 * stiffness, 2.0 * damping

    def elastic_energy(self, approach):
        return 2.0 * super().elastic_energy(approach)


class StiffDropper(Dropper):
    """A dropper twice as stiff, as its own formula."""

    def normal_force(self, stretch, rate):
        tension, stiffness, damping = super().normal_force(stretch, rate)
        return 2.0 * tension, 2.0 * stiffness, 2.0 * damping


def test_each_law_says_whether_the_kernels_evaluate_its_formula():
    assert Sliding(mu=0.2).compiled and not Sliding(mu=0.2, v0=0.01).compiled
    assert Compliant("linear", STIFFNESS).compiled and Compliant("hertz", 1e9, damping=0.5).compiled
    assert not Compliant("linear", STIFFNESS, mu=0.2, v0=0.01).compiled  # friction
    assert not Compliant("linear", STIFFNESS, rolling=True, v0=0.01).compiled
    assert not DoubledPenalty("linear", STIFFNESS).compiled
    assert Dropper(stiffness=1e5, length=1.0).compiled
    assert not StiffDropper(stiffness=1e5, length=1.0).compiled
    assert not Unilateral().compiled


def test_a_compliant_law_says_whether_the_kernels_evaluate_its_continuous_friction():
    """The continuous law of 000 eq. 10 (mu > 0 with v0, not rolling) on a law whose
    frictionless part is the kernels' formula; no other law has a compiled friction."""
    assert Compliant("hertz", 1e9, mu=0.3, v0=1e-3).compiled_friction
    assert not Compliant("hertz", 1e9, mu=0.3, v0=1e-3, rolling=True).compiled_friction
    assert not Compliant("hertz", 1e9).compiled_friction  # no friction to evaluate
    assert not DoubledPenalty("linear", STIFFNESS, mu=0.3, v0=1e-3).compiled_friction
    assert not Sliding(mu=0.2).compiled_friction and not Unilateral(mu=0.2).compiled_friction


def _with_laws(head_law=None, dropper_law=None):
    run = pantograph_on_catenary(1, contact="penalty", max_element_length=2.0)
    contacts = list(run.model.contacts)
    if head_law is not None:
        contacts[-1] = replace(contacts[-1], law=head_law)
    if dropper_law is not None:
        k = next(i for i, c in enumerate(contacts) if c.law.link)
        contacts[k] = replace(contacts[k], law=dropper_law(contacts[k].law))
    return run, assemble(replace(run.model, contacts=tuple(contacts)))


def test_a_dropper_with_its_own_formula_runs_on_the_python_step_with_its_tension():
    """The first dropper twice as stiff by its own formula: the line leaves the compiled links,
    and the Python step's links (evaluated for all Droppers at once by the base class's
    formula) take it one by one: its tension is 2 k (l - l0) = -2 k gap while taut."""
    run, system = _with_laws(
        dropper_law=lambda law: StiffDropper(law.stiffness, law.length, law.damping, law.mass)
    )
    why = unsupported(system)
    assert why is not None and "compiled links do not evaluate" in why
    k = next(i for i, c in enumerate(system.model.contacts) if c.law.link)
    dropper = system.model.contacts[k]
    t0 = run.t_span[0]
    result = run.run(system, t_span=(t0, t0 + 0.01), compiled=True)
    assert result.status == "finished" and result.n_compiled == 0
    gap, force = result[f"{dropper.name}_gap"], result[f"{dropper.name}_normal_force"]
    assert (gap < 0.0).all()  # taut: it carries the contact wire
    stiffness = dropper.law.stiffness
    assert np.allclose(force, -2.0 * stiffness * gap, rtol=1e-9, atol=0.0)


def test_a_compliant_law_with_its_own_formula_runs_on_the_python_step_with_its_force():
    run, system = _with_laws(head_law=DoubledPenalty("linear", STIFFNESS))
    assert "a compliant law whose force the kernels do not evaluate" in unsupported(system)
    t0 = run.t_span[0]
    result = run.run(system, t_span=(t0, t0 + 0.01), compiled=True)
    assert result.status == "finished" and result.step_path == "python"
    assert result.n_compiled == 0
    gap, force = result["head_gap"], result["head_normal_force"]
    assert (gap[1:] < 0.0).all()  # pressed
    assert np.allclose(force[1:], -2.0 * STIFFNESS * gap[1:], rtol=1e-9, atol=0.0)
