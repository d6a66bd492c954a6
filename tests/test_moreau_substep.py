"""The Moreau-Jean sub-step in one compiled call (``kernels.moreau.substep``, taken by
``steppers.moreau`` for a tree with one string and candidate grids) against the Python
sub-step, which calls the same kernels one by one.

Tolerances: the two differ in the order of a few sums (dot products in loops against numpy's,
the grid's material points), by round-off per step; over the 300 steps of example 1 through
the impact (2 s of it measured 1.3e-14 m in q and 2.4e-12 m/s in u, the disk's speed about
1 m/s and its energy 100 J) q is held to 1e-12 m, u to 1e-9 m/s and the work columns to
1e-9 J. The counters are integers: the same sub-steps and contact-solver sweeps.
"""

import numpy as np

from fe_contact.kernels.grid import material_points
from fe_contact.papers import belt
from fe_contact.papers import eugster_glocker as eg
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.moreau_substep import WholeSubstep


def example_1(steps, compiled, monkeypatch, taken=None):
    """(stepper, reports) of example 1 (the heavy disk dropped on the string, theta 0.55);
    taken : a list that receives each compiled sub-step's outcome ("compiled", "rejected" for a
    deep closing, which the stepper halves, "python" when handed back)."""
    scenario = eg.disk_on_string(1, 2, eg.FRICTION, 0.0, None)
    run = WholeSubstep.run

    def counted(self, stepper, h, may_reject):
        sub = run(self, stepper, h, may_reject)
        handed_back, rejected = sub is WholeSubstep.HANDED_BACK, sub is None  # a deep closing
        taken.append("python" if handed_back else "rejected" if rejected else "compiled")
        return sub

    with monkeypatch.context() as patch:
        if not compiled:
            patch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
        elif taken is not None:
            patch.setattr(WholeSubstep, "run", counted)
        stepper = MoreauJean(scenario.assemble(), 0.0, scenario.q0, scenario.u0, h=1e-3, theta=0.55)
        reports = [stepper.step() for _ in range(steps)]
    return stepper, reports


def test_compiled_substep_is_the_python_substep(monkeypatch):
    taken = []
    fast, fast_reports = example_1(300, True, monkeypatch, taken)
    slow, slow_reports = example_1(300, False, monkeypatch)
    assert fast._whole is not None and slow._whole is None
    # most sub-steps compiled; those whose contact problem needs Lemke's pivoting are handed
    # to the Python sub-step (none here since De Saxce's fixed point is compiled: 103 before)
    assert taken.count("python") < 0.1 * taken.count("compiled")
    # the result's counters say so (``SimulationResult.step_path``, ``n_compiled``, ``n_fallback``)
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert (fast.n_compiled, fast.n_fallback) == (taken.count("compiled"), taken.count("python"))
    assert fast.n_compiled <= fast.n_substeps and slow.n_compiled == slow.n_fallback == 0
    assert (fast.n_substeps, fast.n_newton, fast.n_rejected) == (
        slow.n_substeps,
        slow.n_newton,
        slow.n_rejected,
    )
    assert fast.n_rejected > 0  # the impact's halved sub-steps are in the comparison
    for a, b in zip(fast_reports, slow_reports, strict=True):
        assert np.max(np.abs(a.q - b.q)) <= 1e-12
        assert np.max(np.abs(a.u - b.u)) <= 1e-9
        assert a.work.keys() == b.work.keys()
        for key in a.work:
            assert abs(a.work[key] - b.work[key]) <= 1e-9, key
        assert a.n_substeps == b.n_substeps and a.n_newton == b.n_newton
        assert [c.state for c in a.contacts] == [c.state for c in b.contacts]
        for ca, cb in zip(a.contacts, b.contacts, strict=True):  # the step's mean forces, N
            assert np.allclose(ca.normal_force, cb.normal_force, rtol=0.0, atol=1e-8)


def test_drives_take_the_python_substep():
    """The open belt drive's motor is a drive (a bilateral row): not the compiled sub-step."""
    scenario = belt.belt_drive()
    system = scenario.assemble()
    stepper = MoreauJean(system, 0.0, scenario.q0, scenario.u0, h=1e-3)
    assert stepper._whole is None and stepper.step_path == "python"


def test_material_points_are_the_rows_times_the_coordinates():
    rng = np.random.default_rng(4)
    m, k, n = 30, 8, 20
    offset = rng.normal(size=(m, 2))
    rows = rng.normal(size=(m, 2, k))
    dofs = rng.integers(0, n, size=(m, k))
    q = rng.normal(size=n)
    products = rows * q[dofs][:, None, :]
    bound = k * np.finfo(float).eps * (np.abs(offset) + np.sum(np.abs(products), axis=2))
    assert np.all(
        np.abs(material_points(offset, rows, dofs, q) - (offset + products.sum(2))) <= bound
    )
