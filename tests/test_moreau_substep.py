"""The Moreau-Jean sub-step in one compiled call (``kernels.moreau.substep``, taken by
``steppers.moreau`` for a tree with one string or one linear beam and candidate grids) against
the Python sub-step, which calls the same kernels one by one.

Tolerances: the two differ in the order of a few sums (dot products in loops against numpy's,
the grid's material points), by round-off per step; over the 300 steps of example 1 through
the impact (2 s of it measured 1.3e-14 m in q and 2.4e-12 m/s in u, the disk's speed about
1 m/s and its energy 100 J) q is held to 1e-12 m, u to 1e-9 m/s and the work columns to
1e-9 J. The counters are integers: the same sub-steps and contact-solver sweeps.
"""

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from fe_contact import (
    BeamSpec,
    Body,
    ContactPair,
    Joint,
    Model,
    Point,
    TreeModel,
    Unilateral,
    assemble,
    simulate,
)
from fe_contact.kernels import moreau as kernels
from fe_contact.kernels.grid import material_points
from fe_contact.kernels.moreau import sparse_product
from fe_contact.papers import belt
from fe_contact.papers import eugster_glocker as eg
from fe_contact.steppers import moreau_substep
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.steppers.moreau_substep import WholeSubstep
from fe_contact.system import energies


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


def belt_run(compiled, monkeypatch, steps):
    """(stepper, reports) of the open belt drive (its motor a drive: a bilateral row) over
    ``steps`` steps of 1 ms, theta 0.55, in the compiled or the Python sub-step."""
    scenario = belt.belt_drive()
    with monkeypatch.context() as patch:
        if not compiled:
            patch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
        stepper = MoreauJean(scenario.assemble(), 0.0, scenario.q0, scenario.u0, h=1e-3, theta=0.55)
        reports = [stepper.step() for _ in range(steps)]
    return stepper, reports


def test_compiled_belt_drive_is_the_python_substep(monkeypatch):
    """The drive's row in the compiled sub-step (Lambda eliminated by the Schur complement, the
    contact problem's solve orthogonal to the row) against the Python sub-step's numpy/LAPACK
    operations: the same q, u, drive forces and work to round-off, and the drive holds the
    driver's prescribed speed."""
    fast, fast_reports = belt_run(True, monkeypatch, 12)
    slow, slow_reports = belt_run(False, monkeypatch, 12)
    assert fast.step_path == "compiled" and slow.step_path == "python"
    # a sub-step handed back (its contact problem beyond De Saxce's fixed point) is Python's
    assert fast.n_compiled > 0 and fast.n_fallback < 0.1 * fast.n_compiled
    assert (fast.n_substeps, fast.n_rejected) == (slow.n_substeps, slow.n_rejected)
    q_scale = max(np.max(np.abs(r.q)) for r in slow_reports)  # m and rad
    u_scale = max(np.max(np.abs(r.u)) for r in slow_reports)  # m/s and rad/s
    f_scale = max(np.max(np.abs(r.multipliers)) for r in slow_reports)  # N m
    w_scale = max(max(abs(v) for v in r.work.values()) for r in slow_reports)  # J per step
    assert f_scale > 0.0 and w_scale > 0.0
    for a, b in zip(fast_reports, slow_reports, strict=True):
        assert np.max(np.abs(a.q - b.q)) <= 1e-12 * q_scale
        assert np.max(np.abs(a.u - b.u)) <= 1e-9 * u_scale
        assert np.max(np.abs(a.multipliers - b.multipliers)) <= 1e-8 * f_scale
        assert a.work.keys() == b.work.keys()
        for key in a.work:
            assert abs(a.work[key] - b.work[key]) <= 1e-8 * w_scale, key
        assert [c.state for c in a.contacts] == [c.state for c in b.contacts]
        # the driver (coordinate 0) turned at its prescribed speed by the drive's row
        speed = belt.BeltData().speed  # rad/s
        assert abs(a.u[0] - speed) <= 1e-10 * speed
        assert abs(a.q[0] - speed * a.t) <= 1e-10 * speed * a.t


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


def disk_on_beam_grid(steps, compiled, monkeypatch, theta, damped, taken):
    """(stepper, reports) of the light disk dropped on the cantilever (``eugster_glocker.
    disk_on_beam``, 0.5 s: impacts, sticking and slipping) with a grid of 81 candidates on the
    beam instead of its closest point; damped: Rayleigh damping of the beam."""
    scenario = eg.disk_on_beam()
    model = scenario.model
    pair = replace(model.contacts[0], search="grid", n_candidates=81)
    structures = dict(model.structures)
    if damped:
        structures["beam"] = replace(structures["beam"], rayleigh_alpha=2.0, rayleigh_beta=1e-5)
    model = replace(model, contacts=(pair,), structures=structures)
    run = WholeSubstep.run

    def counted(self, stepper, h, may_reject):
        sub = run(self, stepper, h, may_reject)
        handed_back, rejected = sub is WholeSubstep.HANDED_BACK, sub is None
        taken.append("python" if handed_back else "rejected" if rejected else "compiled")
        return sub

    with monkeypatch.context() as patch:
        if not compiled:
            patch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
        else:
            patch.setattr(WholeSubstep, "run", counted)
        system = replace(scenario, model=model).assemble()
        stepper = MoreauJean(system, 0.0, scenario.q0, scenario.u0, h=1e-3, theta=theta)
        reports = [stepper.step() for _ in range(steps)]
    return stepper, reports


@pytest.mark.parametrize("theta, damped", [(0.5, False), (0.55, True)])
def test_compiled_beam_substep_is_the_python_substep(monkeypatch, theta, damped):
    """The disk on the beam: the same kernels in the same order, so the same sub-steps,
    sweeps and states. Tolerances: the sums that differ in order are the energies' and the
    work columns' dot products (loops against BLAS), about 1e-19 J on energies of 1e-3 J and
    an ulp of the beam's damping power (measured), held to 1e-15 of the run's largest; q and u
    agree to the last bit (measured), held here to 1e-14 m and 1e-12 m/s
    (the disk's position about 0.1 m, its speed about 0.5 m/s)."""
    taken = []
    fast, fast_reports = disk_on_beam_grid(500, True, monkeypatch, theta, damped, taken)
    slow, slow_reports = disk_on_beam_grid(500, False, monkeypatch, theta, damped, [])
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert fast._whole.linear and fast._whole.damped is False
    assert fast.n_compiled == taken.count("compiled") > 0.9 * fast.n_substeps
    assert fast.n_fallback == taken.count("python")  # handed back: De Saxce's fixed point
    assert fast.n_rejected == taken.count("rejected") > 0  # the impacts' halved sub-steps
    assert (fast.n_substeps, fast.n_newton, fast.n_rejected) == (
        slow.n_substeps,
        slow.n_newton,
        slow.n_rejected,
    )
    # through impacts, sticking and slipping
    assert fast.events == slow.events
    assert {"impact", "open"} <= {kind for _, _, kind in slow.events}
    assert {"stick", "slip"} <= {r.contacts[0].state for r in slow_reports}
    scale = 1e-15 * max(r.energy.kinetic + abs(r.energy.potential) for r in slow_reports)
    power = 1e-15 * max(r.energy.damping_power for r in slow_reports)  # W
    for a, b in zip(fast_reports, slow_reports, strict=True):
        assert np.max(np.abs(a.q - b.q)) <= 1e-14
        assert np.max(np.abs(a.u - b.u)) <= 1e-12
        assert a.work.keys() == b.work.keys()
        for key in a.work:
            assert abs(a.work[key] - b.work[key]) <= scale, key
        for name in ("kinetic", "potential", "elastic"):
            assert abs(getattr(a.energy, name) - getattr(b.energy, name)) <= scale, name
        assert abs(a.energy.damping_power - b.energy.damping_power) <= power
        assert [c.state for c in a.contacts] == [c.state for c in b.contacts]
        for ca, cb in zip(a.contacts, b.contacts, strict=True):
            assert np.allclose(ca.normal_force, cb.normal_force, rtol=0.0, atol=1e-10)
    # the kernel's energies of the end state are those of ``system.energies`` there
    kernel = fast._whole.energies(fast)
    assert kernel is not None
    direct = energies(fast.system, fast.q, fast.u, fast.t)
    assert abs(kernel.total - direct.total) <= scale
    assert abs(kernel.damping_power - direct.damping_power) <= power
    assert (direct.damping_power > 0.0) == damped


def pendulum_on_cantilever():
    """(system, q0, u0) of ``examples/plot_pendulum_on_cantilever.py``: a point pendulum
    released horizontally onto a steel strip (a closest-point pair, Newton's e_N = 0.5)."""
    pendulum = TreeModel(
        bodies=(Body(0.05, 0.0, centre_of_mass=(0.2, 0.0)),),
        joints=(Joint("revolute", location=(0.2, 0.15)),),
    )
    strip = BeamSpec(
        length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
    )
    bob = ContactPair("bob", Point(0, (0.2, 0.0)), "strip", Unilateral(restitution_normal=0.5))
    model = Model(
        tree=pendulum, structures={"strip": strip}, contacts=(bob,), structure_gravity=False
    )
    system = assemble(model)
    return (system, *system.initial_state())


def closest_pair_runs(case, compiled, monkeypatch):
    """(stepper, reports) of the disk-on-beam demo's model (1 s: it lands, rolls and leaves
    the beam at its tip) or of the pendulum hitting the cantilever (0.5 s)."""
    if case == "disk":
        scenario = eg.disk_on_beam()
        system, q0, u0, h, steps = scenario.assemble(), scenario.q0, scenario.u0, 1e-3, 1000
    else:
        system, q0, u0 = pendulum_on_cantilever()
        h, steps = 2e-4, 2500
    with monkeypatch.context() as patch:
        if not compiled:
            patch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
        stepper = MoreauJean(system, 0.0, q0, u0, h=h)
        reports = [stepper.step() for _ in range(steps)]
    return stepper, reports


@pytest.mark.parametrize("case", ["disk", "pendulum"])
def test_compiled_closest_point_pair_is_the_python_substep(monkeypatch, case):
    """A body's circle or point on the beam at its closest point: the kernels of the
    generalised-alpha step's beam contact (``kernels.beam``), searched in the Python sub-step's
    sequence. The Python sub-step sums through numpy's BLAS, the kernel in its loops: on this
    machine's BLAS kernel they agree to the last bit; on another (OpenBLAS's Prescott kernel)
    they differ in round-off, grown through the runs' 200-300 impacts: measured q 7e-14 and
    u 9e-12 of their largest, the work 7e-15 and the energies 1.7e-12 of the energies' scale,
    normal forces 4e-11 N, slip velocities 4e-13 m/s, the geometry 2e-14. Held to about ten
    times that: q 1e-12, u 1e-10 of their largest, work 1e-13 and energies 1e-11 of the scale,
    normal forces 1e-9 N, slip velocities 1e-11 m/s, the geometry 1e-12."""
    fast, fast_reports = closest_pair_runs(case, True, monkeypatch)
    slow, slow_reports = closest_pair_runs(case, False, monkeypatch)
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert fast._whole.last == 0 and fast.n_compiled == fast.n_substeps  # none handed back
    assert fast.n_fallback == 0 and fast.n_rejected > 0  # the impacts' halved sub-steps
    assert (fast.n_substeps, fast.n_newton, fast.n_rejected) == (
        slow.n_substeps,
        slow.n_newton,
        slow.n_rejected,
    )
    assert fast.events == slow.events and "impact" in {kind for _, _, kind in slow.events}
    scale = max(r.energy.kinetic + abs(r.energy.potential) for r in slow_reports)
    q_scale = max(np.abs(r.q).max() for r in slow_reports)
    u_scale = max(np.abs(r.u).max() for r in slow_reports)
    for a, b in zip(fast_reports, slow_reports, strict=True):
        assert np.max(np.abs(a.q - b.q)) <= 1e-12 * q_scale
        assert np.max(np.abs(a.u - b.u)) <= 1e-10 * u_scale
        for key in a.work:
            assert abs(a.work[key] - b.work[key]) <= 1e-13 * scale, key
        assert abs(a.energy.total - b.energy.total) <= 1e-11 * scale
        assert [c.state for c in a.contacts] == [c.state for c in b.contacts]
        # the report built from the flat arrays (``moreau_batch.compiled_report``), the
        # closed point's geometry at the end state included, is the Python sub-step's
        for ca, cb in zip(a.contacts, b.contacts, strict=True):
            assert ca.point_state == cb.point_state and ca.n_points == cb.n_points
            assert np.allclose(ca.normal_force, cb.normal_force, rtol=0.0, atol=1e-9)
            assert np.allclose(ca.slip_velocity, cb.slip_velocity, rtol=0.0, atol=1e-11)
            for field in ("point", "normal", "tangent", "gap", "parameter"):
                assert np.allclose(getattr(ca, field), getattr(cb, field), rtol=0.0, atol=1e-12), (
                    field
                )
            assert ca.min_gap == cb.min_gap or abs(ca.min_gap - cb.min_gap) <= 1e-12
    if case == "disk":  # it left the beam at the tip: no contact point, the pair open
        assert fast.q[0] > 0.4 and fast_reports[-1].contacts[0].state == "open"
        assert {"stick", "slip"} <= {r.contacts[0].state for r in slow_reports}


def test_sparse_product_is_scipys_product():
    """Both compressed forms, explicit zeros included: A @ x to the last bit (scipy's
    sparsetools sum each entry in the order of the stored entries)."""
    rng = np.random.default_rng(7)
    dense = rng.normal(size=(12, 12)) * (rng.random((12, 12)) < 0.4)
    x = rng.normal(size=12)
    for matrix in (sp.csc_matrix(dense), sp.csr_matrix(dense)):
        matrix.data[::5] = 0.0  # explicit zeros
        arrays = (matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64))
        product = sparse_product(*arrays, matrix.data, matrix.format == "csc", x)
        assert np.array_equal(product, matrix @ x)
        # and an independent bound: the dense product within the sums' round-off
        bound = 12 * np.finfo(float).eps * (np.abs(matrix.toarray()) @ np.abs(x))
        assert np.all(np.abs(product - matrix.toarray() @ x) <= bound)


def test_batched_closest_point_history_is_the_python_history(monkeypatch):
    """``simulate`` of the disk-on-beam demo's model (1 s, the disk leaving the beam): the
    compiled steps kept as arrays (``moreau_batch.closest_values``) give the history of the
    Python sub-step's reports, every column. On this machine's BLAS kernel they agree to the
    last bit but the energies (their sums in loops against BLAS: 1e-19 J); on another
    (OpenBLAS's Prescott kernel) the round-off of BLAS's order grows through the impacts to
    1.2e-12 of a column's largest value (measured: the normal force); held to 1e-10 of it, of
    the run's energy for an energy, of the largest speed for the contact solver's residual
    (a velocity error)."""
    scenario = eg.disk_on_beam()
    system = scenario.assemble()

    def run(compiled):
        with monkeypatch.context() as patch:
            if not compiled:
                patch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
            return simulate(system, (0.0, 1.0), (scenario.q0, scenario.u0), method="moreau")

    fast, slow = run(True), run(False)
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert fast.n_compiled == fast.n_substeps == slow.n_substeps
    assert fast.columns.keys() == slow.columns.keys()
    assert np.any(slow["disk_normal_force"] > 0.0) and slow["disk_state"][-1] == "open"
    energy = np.max(slow["kinetic_energy"] + np.abs(slow["potential_energy"]))
    energy += np.max(slow["elastic_energy"])
    for name, column in slow.columns.items():
        a, b = np.asarray(fast[name]), np.asarray(column)
        if b.dtype.kind != "f":
            assert np.array_equal(a, b), name
            continue
        finite = np.isfinite(b)  # NaN where a pair is open, +inf gaps off the beam
        assert np.array_equal(a[~finite], b[~finite], equal_nan=True), name
        if not finite.any():
            continue
        # an energy (or the balance's error) to the energies' round-off, else its own
        scale = energy if "energy" in name else np.max(np.abs(b[finite]))
        if name == "solver_residual":
            scale = np.max(np.abs(slow.u))
        assert np.max(np.abs(a[finite] - b[finite])) <= 1e-10 * scale, name


def test_a_closest_point_pair_handed_back_is_searched_again_by_python(monkeypatch):
    """Every third compiled sub-step of the disk on the beam handed back (as the kernel does
    for a contact problem beyond active-set Newton): the Python sub-step searches the closest
    point from where the stepper's last search ended, so the run is the Python one with both
    kinds of sub-step mixed (to the last bit on this machine's BLAS kernel; to round-off grown
    through the impacts on another: held to 1e-12 of the largest |q| and 1e-10 of the largest
    |u|, as ``test_compiled_closest_point_pair_is_the_python_substep``)."""
    calls = []

    class EveryThirdHandedBack:
        def __getattr__(self, name):
            return getattr(kernels, name)

        def substep(self, *args):
            kernels.substep(*args)
            calls.append(1)
            if len(calls) % 3 == 0:
                args[-1][7][0] = kernels.HANDED_BACK  # the outcome, scalars[0]

    monkeypatch.setattr(moreau_substep, "kernels", EveryThirdHandedBack())
    mixed, mixed_reports = closest_pair_runs("disk", True, monkeypatch)
    monkeypatch.undo()
    slow, slow_reports = closest_pair_runs("disk", False, monkeypatch)
    assert mixed.n_fallback == len(calls) // 3 > 100 and mixed.n_compiled > 100
    assert mixed.n_substeps == slow.n_substeps and mixed.events == slow.events
    q_scale = max(np.abs(r.q).max() for r in slow_reports)
    u_scale = max(np.abs(r.u).max() for r in slow_reports)
    for a, b in zip(mixed_reports, slow_reports, strict=True):
        assert np.max(np.abs(a.q - b.q)) <= 1e-12 * q_scale
        assert np.max(np.abs(a.u - b.u)) <= 1e-10 * u_scale
