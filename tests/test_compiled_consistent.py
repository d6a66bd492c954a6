"""The energy-consistent generalised-alpha step compiled (``kernels.consistent_step``,
``steppers.compiled_consistent``) against the Python step (``steppers.newton.newton_step`` with
``energy_consistent.ConsistentContacts``) on the exact pantograph (``papers.pantograph``).

Two spans with 2 m elements at 300 km/h, h = 1 ms, from the static start: the head pressing
up on the contact wire with ``Unilateral()`` (5 to 340 N), the 18 droppers switching between
taut and slack, the base driven. Both steps solve the same equations in the same order of
iterates; they differ in the factorisations (banded Cholesky of G_f and M_f against the sparse
LU, LAPACK's gesv against the kernels' LU) and the order of some sums (the beams' K q and C u
on their bands). Measured over 0.1 s: the same Newton iterations (315); positions 4.1e-15 m
of 11.3 m; velocities 1.9e-12 m/s of 83 m/s (100 eps); the multipliers 2.2e-12 N; the head's
force 3.8e-10 N of 337 N; the drive's work 3.8e-13 J of 7.07 J. The bounds below are stated
against the Newton tolerance rtol = 1e-10 of the forces (the iterates' own error) and in eps
of the positions and velocities.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fe_contact import assemble, simulate
from fe_contact.laws import Compliant, Unilateral
from fe_contact.papers.pantograph import KMH, pantograph_on_catenary, pantograph_tree
from fe_contact.steppers.compiled_scope import consistent_unsupported
from fe_contact.steppers.genalpha import GeneralizedAlpha

EPS = np.finfo(float).eps
N_STEPS = 100
SPEED = 300.0 * KMH


def exact_run(**kwargs):
    return pantograph_on_catenary(2, speed=SPEED, max_element_length=2.0, **kwargs)


def lockstep(every_other=False):
    """(python, compiled, reports) over N_STEPS steps; with ``every_other`` the compiled
    stepper hands every second step to the Python step (the two alternate)."""
    run = exact_run()
    system = assemble(run.model)
    py = GeneralizedAlpha(system, 0.0, run.q0, run.u0, **run.settings)
    cc = GeneralizedAlpha(system, 0.0, run.q0, run.u0, compiled=True, **run.settings)
    if every_other:
        compiled_step = cc.compiled_step.step
        calls = [0]

        def alternate(stepper, h, halving=False):
            calls[0] += 1
            return None if calls[0] % 2 == 0 else compiled_step(stepper, h, halving)

        cc.compiled_step.step = alternate
    return py, cc, [(py.step(), cc.step()) for _ in range(N_STEPS)]


def compare(reports, rtol):
    """Positions to 100 eps of each coordinate's size (at least 1 m), velocities to 1e4 eps
    of the largest, the multipliers and the head's force to rtol of the largest force the
    multiplier carries (the Newton iteration's own tolerance), the work columns to rtol of
    the drive's work."""
    q_py, q_cc = (np.array([r.q for r in side]) for side in zip(*reports, strict=True))
    size = np.maximum(np.abs(q_py).max(axis=0), 1.0)
    assert np.all(np.abs(q_py - q_cc) <= 100 * EPS * size)  # measured 2 eps
    u_py, u_cc = (np.array([r.u for r in side]) for side in zip(*reports, strict=True))
    assert np.max(np.abs(u_py - u_cc)) <= 1e4 * EPS * np.max(np.abs(u_py))  # measured 100 eps
    f_py, f_cc = (
        np.array([r.contacts[-1].normal_force.sum() for r in side])
        for side in zip(*reports, strict=True)
    )
    scale = np.max(np.abs(f_py))
    assert np.max(np.abs(f_py - f_cc)) <= rtol * scale  # measured 1.1e-12 of it
    l_py, l_cc = (np.array([r.multipliers for r in side]) for side in zip(*reports, strict=True))
    assert np.max(np.abs(l_py - l_cc)) <= rtol * scale
    for key in ("work_drives", "work_loads", "dissipated_damping", "dissipated_numerical"):
        w_py, w_cc = (sum(r.work[key] for r in side) for side in zip(*reports, strict=True))
        drive = abs(sum(r.work["work_drives"] for r, _ in reports))
        assert abs(w_py - w_cc) <= rtol * drive, key


@pytest.fixture(scope="module")
def together():
    return lockstep()


def test_the_kernel_takes_the_exact_pantograph_and_refuses_what_it_does_not_cover():
    run = exact_run()
    system = assemble(run.model)
    assert consistent_unsupported(system) is None
    head = run.model.contacts[-1]
    rubbing = replace(
        run.model, contacts=(*run.model.contacts[:-1], replace(head, law=Unilateral(mu=0.2)))
    )
    assert consistent_unsupported(assemble(rubbing)) == f"contact {head.name!r}: friction"
    pressed = replace(head, law=Compliant("linear", 5e4))
    model = replace(run.model, contacts=(*run.model.contacts[:-1], pressed))
    why = "not a unilateral contact of a body point on a beam"
    assert consistent_unsupported(assemble(model)) == f"contact {head.name!r}: {why}"
    # outside the kernel's scope the Python step takes every step, and says so
    system = assemble(rubbing)
    stepper = GeneralizedAlpha(system, 0.0, run.q0, run.u0, compiled=True, **run.settings)
    assert stepper.step_path == "python" and stepper.compiled_step is None
    stepper.step()
    assert stepper.n_compiled == stepper.n_fallback == 0


def test_the_compiled_step_reproduces_the_python_step(together):
    py, cc, reports = together
    assert cc.step_path == "compiled"
    assert cc.n_compiled == cc.n_substeps == N_STEPS and cc.n_fallback == 0
    assert cc.n_newton == py.n_newton
    assert py.events == cc.events
    compare(reports, py.rtol)
    # the head pressed throughout, and the droppers switched: their kinked law is exercised
    force = np.array([r.contacts[-1].normal_force.sum() for r, _ in reports])
    assert np.all(force > 0.0)
    states = np.array([[c.state for c in r.contacts[:-1]] for _, r in reports])
    assert np.count_nonzero(states[1:] != states[:-1]) >= 1


def test_python_and_compiled_steps_alternate():
    """The carried state (f_used, the droppers' e_used and approaches, the damping forces,
    c_used, the booked work) written back by the compiled step is what the Python step reads,
    and the other way round: every second step on the Python step gives the Python run."""
    py, cc, reports = lockstep(every_other=True)
    assert cc.n_compiled == N_STEPS // 2 and cc.n_fallback == 0
    assert cc.n_newton == py.n_newton
    compare(reports, py.rtol)


@pytest.fixture(scope="module")
def pulled():
    """The head pulled down by 100 N in place of the uplift: it opens, lands and opens again
    within 0.05 s (``tests/test_pantograph.py``'s lift-off, at speed)."""
    run = exact_run()
    data = replace(run.details["data"], static_force=-100.0)
    system = assemble(replace(run.model, tree=pantograph_tree(data, SPEED, 9.81)))
    out = []
    for compiled in (False, True):
        result = simulate(system, (0.0, 0.05), (run.q0, run.u0), compiled=compiled, **run.settings)
        assert result.success, result.message
        out.append(result)
    return out


def test_contact_losses_on_the_compiled_step(pulled, measured):
    """The same events (located by the Python step, whose retakes take compiled steps) at the
    same times to the location's tolerance, the energy balance closed to 1e-6 of the largest
    elastic energy (as ``tests/test_pantograph_energy.py`` requires; measured 5.5e-11 J of
    432 J), and every sub-step compiled but those shorter than SMALL_STEP / |u| (the rows'
    velocity form, the Python step's)."""
    python, compiled = pulled
    kinds = [(name, kind) for _, name, kind in compiled.events]
    assert kinds == [(name, kind) for _, name, kind in python.events]
    assert ("head", "open") in kinds and ("head", "impact") in kinds
    t_py = np.array([t for t, _, _ in python.events])
    t_cc = np.array([t for t, _, _ in compiled.events])
    assert np.max(np.abs(t_py - t_cc)) <= 1e-9
    assert compiled.n_compiled > 0.8 * compiled.n_substeps and compiled.n_fallback == 0
    scale = float(np.max(np.abs(compiled["elastic_energy"])))
    error = float(np.max(np.abs(compiled["energy_error"])))
    measured("energy balance error, compiled, contact losses", error, 1e-6 * scale, unit="J")
    assert np.max(np.abs(python.q - compiled.q)) <= 1e3 * EPS * np.max(np.abs(python.q))


def test_law_secant_is_the_energy_difference_quotient():
    """``law_secant`` (the droppers' secant slope in the compiled step, without the
    cancellation of the energies' difference) against (phi(a1) - phi(a0)) / (a1 - a0) with
    phi(a) = c a^(p+1) / (p + 1) for a > 0 evaluated directly, where that difference does not
    cancel (|a1 - a0| comparable to the approaches): linear and Hertz laws, both ends taut,
    one slack (the kink), both slack (zero), and c a^p where a1 = a0."""
    from fe_contact.kernels.consistent_step import law_secant

    c = np.array([2e5, 2e5, 2e5, 1e9, 1e9, 3.0])
    p = np.array([1.0, 1.0, 1.0, 1.5, 1.5, 1.0])
    a0 = np.array([1e-3, -2e-3, -1e-3, 2e-4, 3e-4, 0.5])
    a1 = np.array([3e-3, 1e-3, -5e-3, 1e-4, -1e-4, 0.5])

    def phi(a):
        return c * np.maximum(a, 0.0) ** (p + 1.0) / (p + 1.0)

    out = law_secant(c, p, a0, a1)
    moved = a1 != a0
    expected = (phi(a1) - phi(a0))[moved] / (a1 - a0)[moved]
    np.testing.assert_allclose(out[moved], expected, rtol=1e-12)
    assert out[2] == 0.0  # both slack
    assert out[-1] == 3.0 * 0.5  # no step: the law's own slope c a^p
