"""The saved step state of the generalised-alpha stepper (``steppers.step_state``): a frozen
StepState with named fields, restored exactly, and the contact modes it holds."""

import dataclasses

import numpy as np
import pytest

from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model
from fe_contact.steppers.genalpha import GeneralizedAlpha
from fe_contact.steppers.step_state import ContactMode, StepState
from fe_contact.system import assemble

EPS = np.finfo(float).eps
G = 9.81  # m/s^2, the sliding mass's gravity


@pytest.fixture(scope="module")
def sliding_mass():
    """The sliding mass of Lipinski (002) with mu = 0.2 on the 10-element cantilever strip,
    from x = 0.1 m at 0.5 m/s: it slows down at about mu g and sticks near
    t = 0.5 / (0.2 * 9.81) = 0.25 s (the strip's small slope and vibration shift it a little)."""
    system = assemble(sliding_mass_model(0.2, 10))
    return system, *sliding_mass_initial_state(system, 0.1, 0.5)


def test_the_state_is_frozen_and_replace_changes_one_field(sliding_mass):
    system, q0, u0 = sliding_mass
    st = GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3)
    state = st.save()
    assert isinstance(state, StepState) and state.t == 0.0 and state.q is st.q
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.t = 1.0
    later = dataclasses.replace(state, t=0.5)
    assert later.t == 0.5 and state.t == 0.0 and later.q is state.q


def test_restore_puts_a_step_back_exactly(sliding_mass):
    """Save after 5 steps, take 5 more (the mass slips on), restore: every field of the state
    is the saved one again (exactly: nothing is recomputed), and the 5 steps taken again give
    the same states: the same computation on the same inputs, equal up to the BLAS's
    reproducibility (summation order may change with its threads: bound 100 eps of each
    quantity's scale, 1 m for q, 1 m/s for u)."""
    system, q0, u0 = sliding_mass
    st = GeneralizedAlpha(system, 0.0, q0, u0, h=1e-3)
    for _ in range(5):
        st.step()
    saved = st.save()
    first = [st.step() for _ in range(5)]
    assert st.t > saved.t
    st.restore(saved)
    again = st.save()
    for field in dataclasses.fields(StepState):
        a, b = getattr(saved, field.name), getattr(again, field.name)
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b, equal_nan=True), field.name
        elif field.name not in ("powers", "forces"):
            assert a is b or a == b, field.name
    assert again.powers == saved.powers
    second = [st.step() for _ in range(5)]
    for a, b in zip(first, second, strict=True):
        assert a.t == b.t
        assert np.max(np.abs(a.q - b.q)) <= 100 * EPS
        assert np.max(np.abs(a.u - b.u)) <= 100 * EPS
        assert [c.state for c in a.contacts] == [c.state for c in b.contacts] == ["slip"]


def test_the_modes_follow_slip_then_stick(sliding_mass):
    """Slipping forward (+x, 0.5 m/s) at the start; sticking after the located stick event,
    which comes at t = v0 / (mu g) = 0.255 s give or take 10 % (the strip's slope and
    vibration)."""
    system, q0, u0 = sliding_mass
    st = GeneralizedAlpha(system, 0.0, q0, u0, h=2e-3)
    assert list(st.save().modes) == [ContactMode.SLIP_FORWARD]
    while not st.events and st.t < 0.4:
        st.step()
    ((t_stick, name, kind),) = st.events
    assert (name, kind) == ("mass", "stick")
    assert t_stick == pytest.approx(0.5 / (0.2 * G), rel=0.1)
    modes = st.save().modes
    assert list(modes) == [ContactMode.STICK] and modes[0].name == "STICK"
