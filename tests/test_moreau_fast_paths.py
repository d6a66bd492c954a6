"""The fast paths of the Moreau-Jean step against the plain ones they replace, each kept here
(or in the library) as the reference: the structures' effective mass in band storage
(``steppers.effective_mass``) against the sparse assembly of ``System`` and SuperLU; the
string's element tangents against its sparse tangent; the compiled contact solver
(``kernels.contact``) against its numpy reference (``compiled=False``); and whole trajectories
of the disk on the string (004 example 1, through the impact with sub-steps and several closed
contacts) and of the disk on the linear cantilever, stepped by the fast stepper and by a
stepper with the plain sparse assembly, no kept gaps or energies and the numpy contact solver.

Tolerances: one operation chain against another differs in round-off only (LU factors of
SuperLU against LAPACK's banded LU, BLAS dot products against written-out loops): relative
1e-12 for single evaluations (the effective mass has a condition number near 1: the mass
dominates at h = 1e-3 s); 1e-10 m and m/s for trajectories over about a hundred steps, far
below the contact solver's tolerance (1e-9 relative to the velocities) that a wrong
algorithmic change would exceed, while the contact statuses must agree exactly.
"""

from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import lu_factor, lu_solve
from scipy.sparse.linalg import splu
from test_contact_solver import random_pointed_problem

from fe_contact.coupling import setvalued
from fe_contact.coupling.kinematics import grid_gaps, profile_state
from fe_contact.kernels import contact as kernels
from fe_contact.multibody.tree import equations_of_motion
from fe_contact.papers import eugster_glocker as eg
from fe_contact.steppers import moreau
from fe_contact.steppers.effective_mass import FlexibleBlock
from fe_contact.steppers.moreau import MoreauJean
from fe_contact.structures import Structure
from fe_contact.system import assemble


def string_system(n_elements=2, stiffness_damping=0.0):
    scenario = eg.disk_on_string(1, n_elements, eg.FRICTION, stiffness_damping, None)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    return assemble(model), q0, u0


def deformed_state(system, q0, seed):
    """A state away from the reference: the string's coordinates and every velocity moved."""
    rng = np.random.default_rng(seed)
    lay = system.layout
    q = q0.copy()
    q[lay.flexible] += 0.02 * rng.normal(size=lay.n_flexible)
    return q, rng.normal(size=lay.n)


def sparse_reference(system, q_f, u_f, theta, h):
    """Force Q - f_int(q) - C(q) u and M_eff as the stepper assembled them before (sparse)."""
    C = system.flexible_damping(np.concatenate((np.zeros(system.layout.n_tree), q_f)))
    q = np.concatenate((np.zeros(system.layout.n_tree), q_f))
    force = system.load_flexible - system.flexible_internal_force(q) - C @ u_f
    m_eff = system.mass_flexible + theta * h * C + theta**2 * h**2 * system.flexible_tangent(q)
    return force, sp.csc_matrix(m_eff)


@pytest.mark.parametrize(("n_elements", "damping"), [(2, 0.0), (5, 0.02)])
def test_banded_effective_mass_matches_the_sparse_assembly(n_elements, damping):
    system, q0, _ = string_system(n_elements, damping)
    lay = system.layout
    block = FlexibleBlock(system)
    assert block.band <= 7  # two nodes' coordinates: banded whatever the element count
    for seed in range(3):
        q, u = deformed_state(system, q0, seed)
        force, solve = block.step(q[lay.flexible], u[lay.flexible], 0.55, 1e-3)
        ref_force, m_eff = sparse_reference(system, q[lay.flexible], u[lay.flexible], 0.55, 1e-3)
        assert np.abs(force - ref_force).max() <= 1e-12 * np.abs(ref_force).max()
        rhs = np.random.default_rng(seed).normal(size=(lay.n_flexible, 3))
        x = solve(rhs)
        assert np.abs(m_eff @ x - rhs).max() <= 1e-12 * np.abs(rhs).max()
        assert np.allclose(solve(rhs[:, 0]), x[:, 0], rtol=0.0, atol=1e-14)


def test_string_element_tangents_are_the_sparse_tangent():
    system, q0, _ = string_system(4)
    st = system.structures["string"]
    q, _ = deformed_state(system, q0, 7)
    q_s = q[system.layout.structure("string")]
    force, tangents = st.force_and_element_tangents(q_s)
    free = st.element_free_index()
    dense = np.zeros((st.n_dofs, st.n_dofs))
    for e in range(free.shape[0]):
        keep = free[e] >= 0
        dense[np.ix_(free[e][keep], free[e][keep])] += tangents[e][np.ix_(keep, keep)]
    reference = st.tangent_stiffness(q_s).toarray()
    assert np.abs(dense - reference).max() <= 1e-12 * np.abs(reference).max()
    assert np.abs(force - st.internal_force(q_s)).max() <= 1e-12 * np.abs(force).max()


def test_string_damping_power_matches_the_sparse_damping_matrix():
    system, q0, _ = string_system(4, 0.05)
    st = system.structures["string"]
    for seed in range(3):
        q, u = deformed_state(system, q0, seed)
        sl = system.layout.structure("string")
        reference = Structure.damping_power(st, q[sl], u[sl])  # u . (C + beta K_t(q)) u, sparse
        assert abs(st.damping_power(q[sl], u[sl]) - reference) <= 1e-12 * abs(reference)


def test_linear_structure_keeps_one_factorisation_per_step_size():
    scenario = eg.disk_on_beam()
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    lay = system.layout
    block = FlexibleBlock(system)
    assert block.constant
    rhs = np.random.default_rng(1).normal(size=lay.n_flexible)
    for h in (1e-3, 5e-4, 1e-3):  # a halved sub-step has its own effective mass
        force, solve = block.step(q0[lay.flexible], u0[lay.flexible], 0.5, h)
        ref_force, m_eff = sparse_reference(system, q0[lay.flexible], u0[lay.flexible], 0.5, h)
        assert np.abs(force - ref_force).max() <= 1e-12 * np.abs(ref_force).max()
        assert np.abs(m_eff @ solve(rhs) - rhs).max() <= 1e-12 * np.abs(rhs).max()
    assert len(block._factors) == 2


def test_compiled_contact_kernels_match_the_numpy_reference():
    rng = np.random.default_rng(11)
    for _ in range(40):
        m, n = int(rng.integers(1, 7)), int(rng.integers(2, 12))
        G, c, mu = random_pointed_problem(rng, m, n)
        diag = np.diag(G).copy()
        r = 1.0 / diag
        P = np.abs(rng.normal(size=2 * m))
        # one Gauss-Seidel sweep, written out in setvalued.solve_contact_impulses
        ref = P.copy()
        for i in range(m):
            j = m + i
            ref[i] = max(ref[i] - 0.7 / diag[i] * (G[i] @ ref + c[i]), 0.0)
            bound = mu[i] * ref[i]
            ref[j] = min(max(ref[j] - 0.7 / diag[j] * (G[j] @ ref + c[j]), -bound), bound)
        fast = P.copy()
        kernels.gauss_seidel_sweep(G, c, mu, diag, 0.7, fast)
        assert np.abs(fast - ref).max() <= 1e-12 * max(np.abs(ref).max(), 1.0)
        # the law residual and the change of xi
        xi = np.empty(2 * m)
        res, big = kernels.law_residual(G, c, mu, r, ref, xi)
        xi_ref = G @ ref + c
        res_ref = setvalued.natural_residual(
            ref[:m], ref[m:], xi_ref[:m], xi_ref[m:], mu, r[:m], r[m:]
        )
        assert abs(res - res_ref) <= 1e-12 * max(res_ref, 1.0)
        assert abs(big - np.abs(xi_ref - c).max()) <= 1e-12 * max(big, 1.0)
        # active-set Newton from the swept iterate
        tol = 1e-9 * max(np.abs(c).max(), 1.0)
        P_ref, it_ref = setvalued._active_set_newton(G, c, mu, ref, r, tol, 3)
        P_fast, it_fast, ok = kernels.active_set_newton(G, c, mu, ref, r, tol, 3)
        assert ok == (P_ref is not None) and it_fast == it_ref
        if ok:
            assert np.abs(P_fast - P_ref).max() <= 1e-9 * max(np.abs(P_ref).max(), 1.0)


def test_compiled_solver_gives_the_reference_solution():
    rng = np.random.default_rng(5)
    methods = set()
    for _ in range(40):
        m, n = int(rng.integers(1, 7)), int(rng.integers(2, 12))
        G, c, mu = random_pointed_problem(rng, m, n)
        fast = setvalued.solve_contact_impulses(G, c, mu, tol=1e-10)
        ref = setvalued.solve_contact_impulses(G, c, mu, tol=1e-10, compiled=False)
        assert fast.method == ref.method and fast.n_iterations == ref.n_iterations
        methods.add(fast.method)
        scale = max(np.abs(c).max(), 1.0)
        xi_f = np.concatenate((fast.xi_normal, fast.xi_tangent))
        xi_r = np.concatenate((ref.xi_normal, ref.xi_tangent))
        assert np.abs(xi_f - xi_r).max() <= 1e-8 * scale  # velocities are unique
        if np.linalg.matrix_rank(G) == 2 * m:  # impulses too, when G is regular
            p_f = np.concatenate((fast.normal, fast.tangent))
            p_r = np.concatenate((ref.normal, ref.tangent))
            assert np.abs(p_f - p_r).max() <= 1e-8 * max(np.abs(p_r).max(), 1.0)
    assert {"gauss-seidel", "newton"} <= methods  # both stages were compared


class PlainMoreau(MoreauJean):
    """The stepper with the plain parts: sparse assembly and SuperLU for the structures, the
    gaps from the full profile state every time, the closed grid candidates' rows and geometry
    from ``coupling.contact_points`` (not the stepper's ``GridPair``), no energies kept between
    sub-steps."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._grid = {}  # every pair through the general contact_points
        self._whole = None  # the Python sub-step, not the compiled one

    def _smooth(self, q_p, u_a, t, h):
        s = self.system
        lay = s.layout
        theta = self.theta
        force = np.zeros(lay.n)
        eom = equations_of_motion(s.tree, q_p[lay.tree], u_a[lay.tree], t)
        force[lay.tree] = -eom.bias_forces
        tree_lu = lu_factor(
            eom.mass_matrix + np.diag(theta * h * self._c_joint + theta**2 * h**2 * self._k_joint)
        )
        K = s.flexible_tangent(q_p)
        C = s.flexible_damping(q_p)
        force[lay.flexible] = (
            s.load_flexible - s.flexible_internal_force(q_p) - C @ u_a[lay.flexible]
        )
        flex = splu(sp.csc_matrix(s.mass_flexible + theta * h * C + theta**2 * h**2 * K)).solve

        def solve(rhs):
            out = np.empty_like(rhs)
            out[lay.tree] = lu_solve(tree_lu, rhs[lay.tree])
            out[lay.flexible] = flex(np.ascontiguousarray(rhs[lay.flexible]))
            return out

        return h * force, solve

    def gaps(self, q):
        s = self.system
        if any(g is None for g in s.grids):
            self._gap_cache.clear()
            return super().gaps(q)
        out = []
        for k, pair in enumerate(s.model.contacts):
            prof = profile_state(
                s.tree,
                q[: s.layout.n_tree],
                np.zeros(s.layout.n_tree),
                pair.profile.body,
                s.profile_points[k],
            )
            positions = s.grids[k].positions(q[s.layout.structure(pair.target)])
            out.append(grid_gaps(prof.centre.position, pair.profile.radius, positions))
        return out

    def _substep(self, h, may_reject):
        self._energy = None
        return super()._substep(h, may_reject)


def run_both(monkeypatch, system, q0, u0, n_steps, theta):
    reports = []
    for plain in (False, True):
        with monkeypatch.context() as patch:
            if plain:
                patch.setattr(
                    moreau,
                    "solve_contact_impulses",
                    partial(setvalued.solve_contact_impulses, compiled=False),
                )
            stepper = (PlainMoreau if plain else MoreauJean)(system, 0.0, q0, u0, 1e-3, theta)
            reports.append([stepper.step() for _ in range(n_steps)])
    return reports


def compare(fast, plain, closed_expected):
    n_closed = 0
    for a, b in zip(fast, plain, strict=True):
        assert np.abs(a.q - b.q).max() <= 1e-10 and np.abs(a.u - b.u).max() <= 1e-10
        assert a.n_substeps == b.n_substeps and a.n_newton == b.n_newton
        assert abs(a.energy.total - b.energy.total) <= 1e-10
        for ca, cb in zip(a.contacts, b.contacts, strict=True):
            assert ca.state == cb.state and np.size(ca.normal_impulse) == np.size(cb.normal_impulse)
            n_closed = max(n_closed, np.size(ca.normal_impulse) if ca.state != "open" else 0)
            for name in ("point", "normal", "gap", "normal_impulse", "friction_impulse"):
                x, y = getattr(ca, name), getattr(cb, name)
                assert np.shape(x) == np.shape(y) and np.all(np.abs(x - y) <= 1e-10), name
        for key, value in a.work.items():
            assert abs(value - b.work[key]) <= 1e-10
    assert n_closed >= closed_expected  # the runs went through contact


def test_disk_on_string_trajectory_matches_the_plain_stepper(monkeypatch):
    system, q0, u0 = string_system(2)
    fast, plain = run_both(monkeypatch, system, q0, u0, 110, 0.55)  # impact near t = 0.045 s
    assert sum(r.n_substeps for r in fast) > 110  # sub-steps at the closures were taken
    compare(fast, plain, 3)


def test_disk_on_damped_string_trajectory_matches_the_plain_stepper(monkeypatch):
    system, q0, u0 = string_system(4, 0.01)
    fast, plain = run_both(monkeypatch, system, q0, u0, 80, 0.55)
    compare(fast, plain, 2)


def test_disk_on_beam_trajectory_matches_the_plain_stepper(monkeypatch):
    scenario = eg.disk_on_beam()
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    fast, plain = run_both(monkeypatch, assemble(model), q0, u0, 120, 0.5)
    compare(fast, plain, 1)


def test_band_product_is_the_dense_product():
    """``kernels.band.band_product`` against the dense matrix it stores: a random matrix with
    half-bandwidth b written into dgbtrf band storage, ab[2 b + i - j, j] = A[i, j] (the
    fill-in rows and the unused corners left as garbage that must not be read). Each entry of A x is a sum of at most 2 b + 1
    products of numbers of order 1: the two sums differ in order and rounding only, bounded
    by (2 b + 1) eps times the sum of the products' magnitudes."""
    from fe_contact.kernels.band import band_product

    rng = np.random.default_rng(3)
    for n, b in ((1, 0), (8, 3), (11, 7), (30, 5)):
        dense = rng.normal(size=(n, n))
        i, j = np.indices((n, n))
        dense[np.abs(i - j) > b] = 0.0
        ab = rng.normal(size=(3 * b + 1, n))  # garbage outside the band: not read
        inside = np.abs(i - j) <= b
        ab[2 * b + i[inside] - j[inside], j[inside]] = dense[inside]
        x = rng.normal(size=n)
        bound = (2 * b + 1) * np.finfo(float).eps * (np.abs(dense) @ np.abs(x))
        assert np.all(np.abs(band_product(ab, b, x) - dense @ x) <= bound)
