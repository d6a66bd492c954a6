"""The energy-consistent step compiled on a string (``kernels.string.averaged_string_force``,
``kernels.consistent_step``) against the Python energy-consistent step, on the trolley sliding
on the hanging string (``papers.slider_on_string``).

The string's discrete-gradient force of the kernel is checked on random states against the
strain energy (its defining identity, f_avg . dq = V(q1) - V(q0)) and against the Python form
(``elements.string_energy.averaged_internal_force``): the same operations, measured equal to
the last bit.

The steps: both solve the same equations in the same order of iterates and take the same
Newton iterations; they differ in the factorisations (the kernels' banded LU of G_f and
Cholesky of M_f, LU of the small blocks, against scipy's sparse LU and LAPACK) and so in the
last bits of the positions. The dependent coordinate's accelerations 4 (q_U,n+1 - q_U,n -
h u_U,n) / h^2 - ... carry that rounding times 4 / h^2: one ulp of the trolley's y (~1 m) is
8.9e-10 m/s^2, and the step's multiplier follows from them (the residual floor of
``ConsistentContacts.reduced``, 8 eps |q| / h^2 times the trolley's 1 kg = 1.8e-9 N at
h = 1 ms). Measured over 100 steps (mu = 0 and 0.05): multipliers 4e-10 N of 14 N (the
bound: that floor), velocities 2.8e-10 m/s of 12 m/s (on the string's light nodes), positions
4e-13 m of 1 m, the friction work 2.5e-14 J of 0.043 J over 200 steps.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fe_contact import assemble, simulate
from fe_contact.kernels.string import averaged_string_force
from fe_contact.laws import Sliding
from fe_contact.papers.slider_on_string import Trolley, slider_on_string
from fe_contact.steppers.compiled_plan import string_arrays
from fe_contact.steppers.compiled_scope import consistent_unsupported
from fe_contact.steppers.genalpha import GeneralizedAlpha

EPS = np.finfo(float).eps
N_STEPS = 100


def test_the_kernels_averaged_string_force_is_the_discrete_gradient_of_its_energy():
    """f_avg . (q1 - q0) = V(q1) - V(q0) to the rounding of the energies (their size times
    a few eps), f_avg(q, q) = f_int(q), and the Python form's values to round-off, on random
    states about the trolley's start with steps from 1e-9 to 1e-2 m."""
    run = slider_on_string()
    system = assemble(run.model)
    string = system.structures["string"]
    lay = system.layout
    packed = string_arrays(system)
    rng = np.random.default_rng(7)
    for _ in range(12):
        q0 = run.q0 + rng.normal(scale=1e-2, size=run.q0.size)
        q1 = q0 + rng.normal(scale=10.0 ** rng.uniform(-9, -2), size=q0.size)
        f_avg = averaged_string_force(packed, q0, q1, lay.n_tree)
        f0, f1 = q0[lay.flexible], q1[lay.flexible]
        v0, v1 = string.elastic_energy(f0), string.elastic_energy(f1)
        work = float(f_avg @ (f1 - f0))
        assert abs(work - (v1 - v0)) <= 64 * EPS * max(abs(v0), abs(v1))
        python = system.flexible_averaged_internal_force(q0, q1)
        assert np.max(np.abs(f_avg - python)) <= 16 * EPS * np.max(np.abs(python))
        same = averaged_string_force(packed, q0, q0, lay.n_tree)
        f_int = string.internal_force(f0)
        assert np.max(np.abs(same - f_int)) <= 1e-12 * np.max(np.abs(f_int))


def test_the_kernel_takes_the_trolley_and_refuses_a_friction_that_creeps():
    run = slider_on_string()
    assert consistent_unsupported(assemble(run.model)) is None
    contact = run.model.contacts[0]
    creeping = replace(contact, law=Sliding(mu=0.05, v0=0.01))
    model = replace(run.model, contacts=(creeping,))
    why = "not a Coulomb Sliding law"  # the plain compiled step's scope, first
    assert consistent_unsupported(assemble(model)) == f"contact {contact.name!r}: {why}"


@pytest.mark.parametrize("mu", [0.0, 0.05])
def test_the_compiled_step_reproduces_the_python_step_on_the_string(mu):
    """100 steps of h = 1 ms, the trolley slipping throughout (module docstring)."""
    run = slider_on_string(Trolley(mu=mu))
    system = assemble(run.model)
    py = GeneralizedAlpha(system, 0.0, run.q0, run.u0, energy_consistent=True, **run.settings)
    cc = GeneralizedAlpha(
        system, 0.0, run.q0, run.u0, compiled=True, energy_consistent=True, **run.settings
    )
    assert cc.step_path == "compiled"
    reports = [(py.step(), cc.step()) for _ in range(N_STEPS)]
    assert cc.n_compiled == N_STEPS and cc.n_fallback == 0 and cc.compiled_step.n_python == 0
    assert cc.n_newton == py.n_newton and py.events == cc.events == []
    h = run.settings["h"]
    q_py, q_cc = (np.array([r.q for r in side]) for side in zip(*reports, strict=True))
    floor = 8.0 * EPS * np.max(np.abs(q_py)) / h**2 * 1.0  # N: on the trolley's 1 kg
    u_py, u_cc = (np.array([r.u for r in side]) for side in zip(*reports, strict=True))
    l_py, l_cc = (np.array([r.multipliers for r in side]) for side in zip(*reports, strict=True))
    assert np.max(np.abs(l_py - l_cc)) <= floor
    # the multipliers' scatter moves the light string too (its nodes' masses are 0.04 kg
    # and less): the velocities to the Newton tolerance rtol of the largest (measured 2e-11
    # of it), the positions to 1e4 eps of the largest (measured 1.1e3 eps)
    assert np.max(np.abs(u_py - u_cc)) <= py.rtol * np.max(np.abs(u_py))
    assert np.max(np.abs(q_py - q_cc)) <= 1e4 * EPS * max(np.max(np.abs(q_py)), 1.0)
    for key in ("dissipated_friction", "dissipated_numerical"):
        w_py, w_cc = (sum(r.work[key] for r in side) for side in zip(*reports, strict=True))
        assert abs(w_py - w_cc) <= N_STEPS * h * floor * 1e-2, key  # floor times |dq| ~ 1e-2 m
    if mu > 0.0:
        assert sum(r.work["dissipated_friction"] for r, _ in reports) > 0.0


def test_stick_and_slip_events_with_the_compiled_step():
    """0.8 s with mu = 0.05: the trolley reaches its turning point at 0.68 s and sticks and
    slips by turns. The same events (located by the Python step, whose retakes take compiled
    steps) at the same times to the location's tolerance (measured 1.2e-11 s); the energy
    balance closed to 1e-9 of the largest energy term (as
    ``tests/test_energy_consistent_contacts.py`` requires; measured 6.3e-12 J of 0.18 J of
    friction work); slipping and sticking steps compiled, those shorter than
    SMALL_STEP / |u| on the Python step (measured 969 of 1015 compiled)."""
    run = slider_on_string(Trolley(mu=0.05))
    system = assemble(run.model)
    out = []
    for compiled in (False, True):
        result = simulate(
            system,
            (0.0, 0.8),
            (run.q0, run.u0),
            compiled=compiled,
            energy_consistent=True,
            **run.settings,
        )
        assert result.success, result.message
        out.append(result)
    python, compiled = out
    kinds = [(name, kind) for _, name, kind in compiled.events]
    assert kinds == [(name, kind) for _, name, kind in python.events]
    assert ("trolley", "stick") in kinds and ("trolley", "slip") in kinds
    t_py = np.array([t for t, _, _ in python.events])
    t_cc = np.array([t for t, _, _ in compiled.events])
    assert np.max(np.abs(t_py - t_cc)) <= 1e-9
    assert 0.5 * compiled.n_substeps < compiled.n_compiled < compiled.n_substeps
    assert compiled.n_fallback == 0
    largest = max(np.max(np.abs(compiled[k])) for k in ("elastic_energy", "dissipated_friction"))
    assert np.max(np.abs(compiled["energy_error"])) <= 1e-9 * largest
    assert compiled["dissipated_friction"][-1] > 0.0


def test_a_sticking_step_compiled_is_the_python_step_from_the_same_state():
    """Every step the trolley starts sticking (its anchor's positional row, whose multiplier
    is the friction force), taken compiled and again on the Python step from the same
    committed state: the same Newton iterations, the multipliers to the residual floor of the
    slipping test (8 eps |q| / h^2 on 1 kg, at each step's own h), velocities to rtol of the
    largest, positions to 100 eps of the largest (measured over 73 such steps to 0.8 s, most
    of them the retakes that locate the slip events: positions 1.1e-16 m, velocities
    1.1e-13 m/s, multipliers equal). The stick row holds at the step's end to the position
    tolerance (the cone is checked after the step by the stepper, which locates the slip),
    and the friction work of a sticking step is zero (G dq = phi_1 - phi_0 = 0) to the same
    floor times the step's displacement."""
    run = slider_on_string(Trolley(mu=0.05))
    system = assemble(run.model)
    cc = GeneralizedAlpha(
        system, 0.0, run.q0, run.u0, compiled=True, energy_consistent=True, **run.settings
    )
    compiled_step = cc.compiled_step.step
    pairs = []

    def twin(stepper, h, halving=False):
        sticking = any(anchor is not None for anchor in stepper.modes.anchors)
        start = stepper.save()
        taken = compiled_step(stepper, h, halving)
        if sticking and taken is not None:
            held, n_newton, n_substeps = stepper.compiled_step, stepper.n_newton, stepper.n_substeps
            stepper.restore(start)
            stepper.compiled_step = None  # the Python step from the same state
            stepper._newton_step(h, halving)
            pairs.append((start, taken[0], taken[1], stepper.save(), stepper.n_newton - n_newton))
            stepper.compiled_step, stepper.n_newton, stepper.n_substeps = held, n_newton, n_substeps
            stepper.restore(start)
        return taken

    cc.compiled_step.step = twin
    while cc.t < 0.8 - 1e-9:
        cc.step()
    assert len(pairs) >= 20 and any(("trolley", "slip") == e[1:] for e in cc.events)
    assert cc.n_fallback == 0
    for start, fast, its, slow, its_py in pairs:
        h = fast.t - start.t
        assert its == its_py
        scale = max(np.max(np.abs(slow.q)), 1.0)
        floor = 8.0 * EPS * scale / h**2 * 1.0  # N: on the trolley's 1 kg
        assert np.max(np.abs(fast.multipliers - slow.multipliers)) <= floor
        assert np.max(np.abs(fast.u - slow.u)) <= cc.rtol * np.max(np.abs(slow.u))
        assert np.max(np.abs(fast.q - slow.q)) <= 100 * EPS * scale
        # the rows: the contact's normal row, then its stick row
        assert fast.multipliers.size == 2 and abs(fast.evaluation.phi[1]) <= cc.tol
        # the friction work booked (``ConsistentContacts.save``'s third entry)
        friction_work = fast.forces[2] - start.forces[2]
        assert abs(friction_work) <= floor * np.max(np.abs(fast.q - start.q))


def test_a_step_that_does_not_converge_is_halved_as_on_the_python_step():
    """max_newton = 5 at h = 2 ms: the first steps' Newton iterations do not converge within
    5 iterates and are halved. The compiled step raises NewtonDivergence itself (no step
    handed back to the Python step) and the runs halve the same steps: the same halvings,
    sub-steps and Newton iterations (measured 20, 40 and 298 over 20 steps), positions to
    1e4 eps of the largest, as the slipping run above (measured 1.5e-13 m, 2.3e-13 m under
    OPENBLAS_CORETYPE=Prescott: the factorisations' round-off through 20 halvings); with
    max_newton = 3 both give up at the same time with NewtonDivergence."""
    from fe_contact.steppers.newton import NewtonDivergence

    run = slider_on_string(Trolley(mu=0.05))
    system = assemble(run.model)
    steppers = []
    for compiled in (False, True):
        settings = {**run.settings, "h": 2e-3, "max_newton": 5}
        stepper = GeneralizedAlpha(
            system, 0.0, run.q0, run.u0, compiled=compiled, energy_consistent=True, **settings
        )
        for _ in range(20):
            stepper.step()
        steppers.append(stepper)
    py, cc = steppers
    assert cc.n_halved == py.n_halved > 0
    assert cc.n_substeps == py.n_substeps and cc.n_newton == py.n_newton
    assert cc.n_compiled == cc.n_substeps and cc.n_fallback == 0
    assert np.max(np.abs(cc.q - py.q)) <= 1e4 * EPS * max(np.max(np.abs(py.q)), 1.0)
    messages = []
    for compiled in (False, True):
        settings = {**run.settings, "h": 2e-3, "max_newton": 3}
        stepper = GeneralizedAlpha(
            system, 0.0, run.q0, run.u0, compiled=compiled, energy_consistent=True, **settings
        )
        with pytest.raises(NewtonDivergence) as failed:
            for _ in range(20):
                stepper.step()
        messages.append(str(failed.value).split("(")[0])
    assert messages[0] == messages[1]
