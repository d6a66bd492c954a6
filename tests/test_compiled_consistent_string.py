"""The energy-consistent step compiled on a string (``kernels.string.averaged_string_force``,
``kernels.consistent_step``) against the Python energy-consistent step, on the trolley sliding
on the hanging string (``papers.slider_on_string``).

The string's discrete-gradient force of the kernel is checked on random states against the
strain energy (its defining identity, f_avg . dq = V(q1) - V(q0)) and against the Python form
(``elements.string_energy.averaged_internal_force``): the same operations, measured equal to
the last bit.
"""

from __future__ import annotations

import numpy as np

from fe_contact import assemble
from fe_contact.kernels.string import averaged_string_force
from fe_contact.papers.slider_on_string import slider_on_string
from fe_contact.steppers.compiled_plan import string_arrays

EPS = np.finfo(float).eps


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
