"""The Moreau-Jean stepper's penetration check (``penetration_tolerance``) only accepts or
rejects a sub-step: a sub-step it accepts is the sub-step taken without the check, to the bit,
on the compiled and on the Python sub-step. The check searches the gaps at the start q_A as
well as at the midpoint q_P; a closest-point pair's search is warm-started from its last
parameter, so the rows at q_P must be built at q_P's closest point, not at the point of the
search done last (the disk on the beam: 2.7e-6 m and 1e-2 m/s apart after 10 steps when the
search at q_A came last)."""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact.papers.eugster_glocker import disk_on_beam
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

H = 1e-3
N = 10  # steps compared


class PythonSubstep(MoreauJean):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._whole = None  # the Python sub-step, not the compiled one


@pytest.fixture(scope="module")
def rolling():
    """(system, q, u, t): a state of the disk rolling on the beam from which N steps are each
    one sub-step in closed contact (the check rejected none of them)."""
    scenario = disk_on_beam(speed=0.5)
    system = assemble(scenario.model)
    r = simulate(system, (0.0, 1.0), (scenario.q0, scenario.u0), method="moreau", h=H)
    quiet = (r.columns["n_substeps"] == 1) & (r.columns["disk_normal_impulse"] > 0.0)
    for k in range(1, len(quiet) - N):
        if quiet[k : k + N].all():
            return system, r.q[k - 1], r.u[k - 1], float(r.t[k - 1])
    pytest.fail("the run has no window of N quiet steps in contact")


@pytest.mark.parametrize("stepper", [MoreauJean, PythonSubstep])
def test_an_accepted_substep_is_the_substep_without_the_check(rolling, stepper):
    system, q, u, t = rolling
    runs = []
    for tolerance in (1e-5, None):  # the default, and no check
        s = stepper(system, t, q, u, h=H, penetration_tolerance=tolerance)
        s.initial_report()
        states = [s.step() for _ in range(N)]
        assert s.n_substeps == N  # nothing rejected
        assert all(r.contacts[0].normal_impulse > 0.0 for r in states)
        runs.append((np.array([r.q for r in states]), np.array([r.u for r in states])))
    (qa, ua), (qb, ub) = runs
    assert np.array_equal(qa, qb) and np.array_equal(ua, ub)
