"""The Newton matrix of the energy-consistent form (``ConsistentContacts.newton_rows``): its
multiplier columns are the discrete gradient G_Sigma^T along which the residual's forces act,
so the iteration converges quadratically, and the step it converges to is the one the
iteration with J_Sigma(q_n+1)^T (linear, the form's matrix before) reaches.

The exact pantograph (``Unilateral``, the head on the contact wire) on two spans with 1 m
elements at 300 km/h, h = 1 ms, 0.1 s from the static start. Measured: 3.2 Newton iterations
per step with G_Sigma^T, 8.7 with J_Sigma(q_n+1)^T (a factor ~30 per iterate); the two runs'
positions differ by 5e-13 m, velocities by 3e-10 m/s of 83 m/s, the head's force by 2e-8 N of
423 N, the energies by 5e-11 J (the Newton tolerance, rtol = 1e-10); each balance closes to
5e-11 J of 440 J of elastic energy.
"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact import assemble
from fe_contact.papers.pantograph import pantograph_on_catenary
from fe_contact.steppers.energy_consistent import ConsistentContacts

SPEED = 300.0 / 3.6  # m/s
T_END = 0.1  # s


def run_pantograph():
    """The run on the Python step, whose Newton matrix the fixture patches (the compiled
    step, ``kernels.consistent_step``, borders with G_Sigma^T too)."""
    run = pantograph_on_catenary(
        2, speed=SPEED, contact="exact", max_element_length=1.0, h=1e-3, energy_consistent=True
    )
    system = assemble(run.model)
    result = run.run(system, t_span=(0.0, T_END), compiled=False)
    assert result.success, result.message
    return result


@pytest.fixture(scope="module")
def runs():
    """(with G_Sigma^T, with J_Sigma(q_n+1)^T) in the Newton matrix's multiplier columns."""
    quadratic = run_pantograph()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ConsistentContacts, "newton_rows", lambda self, ev: ev)
        linear = run_pantograph()
    return quadratic, linear


def test_the_iteration_converges_quadratically(runs):
    """A quadratic iteration from the predictor needs 3 iterates per step here (the second
    one's correction is ~1e-6 of the first, the third's round-off); the linear one 8 to 9."""
    quadratic, linear = runs
    n_steps = quadratic.q.shape[0] - 1
    assert quadratic.n_newton <= 4 * n_steps
    assert linear.n_newton >= 2 * quadratic.n_newton


def test_both_iterations_reach_the_same_step(runs, measured):
    """The root of the residual does not depend on the Newton matrix: the two runs agree to
    the Newton tolerance (rtol 1e-10 of the forces), in the events too."""
    quadratic, linear = runs
    assert quadratic.q.shape == linear.q.shape
    assert np.array_equal(quadratic["head_state"], linear["head_state"])
    size = max(1.0, float(np.max(np.abs(linear.q))))
    measured("positions", float(np.max(np.abs(quadratic.q - linear.q))), 1e-11 * size, unit="m")
    speed = float(np.max(np.abs(linear.u)))
    measured("velocities", float(np.max(np.abs(quadratic.u - linear.u))), 1e-9 * speed, unit="m/s")
    force = np.asarray(linear["head_normal_force"])
    difference = np.max(np.abs(np.asarray(quadratic["head_normal_force"]) - force))
    measured("head force", float(difference), 1e-8 * float(np.max(np.abs(force))), unit="N")


def test_the_energy_balance_closes(runs, measured):
    """Kinetic + potential + elastic = initial + the drive's work - the dampers' loss - the
    scheme's own loss, to 1e-9 of the largest elastic energy (measured 5e-11 J of 440 J)."""
    quadratic, _ = runs
    assert np.all(np.asarray(quadratic["head_normal_force"])[1:] > 0.0)
    scale = float(np.max(np.abs(quadratic["elastic_energy"])))
    error = float(np.max(np.abs(quadratic["energy_error"])))
    measured("energy balance error at 300 km/h", error, 1e-9 * scale, unit="J")
