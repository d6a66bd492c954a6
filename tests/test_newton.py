"""The Newton iteration of a generalised-alpha step as a function of the committed state
(``steppers.newton.newton_step``): it leaves the state it starts from and the stepper as they
were, the same state gives the same step, committing its result is the stepper's own step, and
a step it cannot converge raises NewtonDivergence with its iterates counted."""

import dataclasses

import numpy as np
import pytest

from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.steppers.newton import NewtonContext, NewtonDivergence, newton_step
from fe_contact.steppers.step_state import StepState
from fe_contact.system import assemble

H = 1e-3  # s


def context_of(st: GeneralizedAlpha, **changes) -> NewtonContext:
    context = NewtonContext(
        st.system,
        st.params,
        st.algebra,
        st.modes,
        st.averaged,
        st.workspace,
        st.tol,
        st.rtol,
        st.max_newton,
        st.recondition,
    )
    return dataclasses.replace(context, **changes)


def copies(state: StepState) -> dict:
    return {
        f.name: getattr(state, f.name).copy()
        for f in dataclasses.fields(state)
        if isinstance(getattr(state, f.name), np.ndarray)
    }


@pytest.fixture(scope="module")
def sliding_mass():
    """The sliding mass of Lipinski (002), mu = 0.2, on the 10-element cantilever strip, from
    x = 0.1 m at 0.5 m/s: it slips (a kinetic friction force and a normal row)."""
    system = assemble(sliding_mass_model(0.2, 10))
    return system, *sliding_mass_initial_state(system, 0.1, 0.5)


def test_the_step_is_a_function_of_the_state(sliding_mass):
    """From the state after 5 steps: two calls give the same end state bit for bit, neither
    changes the state given nor the stepper's committed state, and committing the result
    (``restore``) leaves the stepper where its own step takes it."""
    system, q0, u0 = sliding_mass
    st = GeneralizedAlpha(system, 0.0, q0, u0, h=H)
    for _ in range(5):
        st.step()
    state = st.save()
    before = copies(state)
    counted = []
    h = (state.t + H) - state.t  # the sub-step ``step()`` takes to end on t + H
    first = newton_step(context_of(st), state, h, lambda: counted.append(1))
    second = newton_step(context_of(st), state, h)
    for name, value in before.items():
        assert np.array_equal(getattr(state, name), value, equal_nan=True), name
    assert st.t == state.t and st.q is state.q and st.evaluation is state.evaluation
    assert first.state.t == state.t + H
    assert first.n_iterations == second.n_iterations == len(counted) >= 1
    assert first.dissipation == second.dissipation
    for name in before:
        a, b = getattr(first.state, name), getattr(second.state, name)
        assert np.array_equal(a, b, equal_nan=True), name
    report = st.step()  # one sub-step: the mass slips on, no event
    assert report.n_substeps == 1 and report.n_newton == first.n_iterations
    mine = st.save()
    for name in before:
        a, b = getattr(first.state, name), getattr(mine, name)
        assert np.array_equal(a, b, equal_nan=True), name
    assert mine.numerical == first.dissipation  # ``step()`` books each step's loss from 0


def test_a_step_that_does_not_converge_raises_and_counts_its_iterates(sliding_mass):
    """One iteration allowed, a tolerance no iterate meets (1e-30 m): NewtonDivergence, after
    exactly one iterate, and the stepper's state is untouched."""
    system, q0, u0 = sliding_mass
    st = GeneralizedAlpha(system, 0.0, q0, u0, h=H)
    st.step()
    state = st.save()
    counted = []
    context = context_of(st, max_newton=1, tol=1e-30)
    with pytest.raises(NewtonDivergence, match="did not converge in 1 iterations"):
        newton_step(context, state, H, lambda: counted.append(1))
    assert len(counted) == 1
    assert st.t == state.t and st.q is state.q
