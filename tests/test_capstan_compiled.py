"""The capstan's contact problems on the compiled path: De Saxce's fixed point compiled
(``kernels.de_saxce``, its hand-written NNLS) against independent solutions, and the capstan's
Moreau-Jean sub-steps taken by the compiled sub-step (``kernels.moreau.substep``) against the
Python sub-step.

Tolerances: the law residual is held to the solver's tolerance times the velocity scale (the
acceptance test of ``solve_contact_impulses``); velocities of two solutions of one singular
problem to 1e-8 of the scale (the pivoting's round-off on 60-row tableaus, as in
``test_contact_solver``). The compiled and Python sub-steps call the same kernels (the Python
one through ``solve_contact_impulses``): q to 1e-12 m, u to 1e-9 m/s and the energy columns to
1e-9 J, the bounds of ``test_moreau_substep`` (measured on the coarse capstan: equal).
"""

from dataclasses import replace

import numpy as np
from scipy.optimize import nnls as scipy_nnls

from fe_contact.coupling.setvalued import coulomb_lcp, lemke, natural_residual
from fe_contact.demos import capstan as demo
from fe_contact.kernels.de_saxce import de_saxce_fixed_point, nnls
from fe_contact.papers import capstan as cp
from fe_contact.steppers.moreau_substep import WholeSubstep

COARSE = replace(cp.CapstanData(), n_elements=6, n_candidates=20, rate=20.0)
H_COARSE = 2e-3  # s


def test_nnls_meets_the_optimality_conditions():
    """x >= 0, the gradient A^T (A x - b) >= 0 where x = 0 and = 0 where x > 0 (the KKT
    conditions), and the residual norm equals scipy's, from a cold and from a guessed start."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        rows, n = int(rng.integers(3, 20)), int(rng.integers(3, 30))
        A, b = rng.normal(size=(rows, n)), rng.normal(size=rows)
        guess = rng.random(n) < 0.5
        for passive in (np.zeros(n, dtype=bool), guess):
            x, ok = nnls(A, b, 3 * n, passive.copy())
            assert ok and np.all(x >= 0.0)
            gradient = A.T @ (A @ x - b)
            size = np.abs(A).sum(axis=0).max() * max(np.abs(b).max(), 1.0)
            assert np.all(gradient >= -1e-10 * size)
            assert np.all(np.abs(gradient[x > 0.0]) <= 1e-10 * size)
            reference = np.linalg.norm(A @ scipy_nnls(A, b)[0] - b)
            assert abs(np.linalg.norm(A @ x - b) - reference) <= 1e-10 * size


def test_compiled_de_saxce_meets_the_laws_with_unique_velocities():
    """Many contacts on few dofs (G singular): the compiled fixed point meets the laws to the
    tolerance, its impulses lie in their cones, and its velocities equal those of Lemke's
    pivoting, solved independently, where the pivoting succeeds."""
    rng = np.random.default_rng(11)
    compared = 0
    for _ in range(30):
        m, n = int(rng.integers(6, 16)), int(rng.integers(3, 7))
        w_n = rng.normal(size=(n, m))
        w_n[0] = np.abs(w_n[0]) + 0.2  # moving along dof 0 opens every contact
        w = np.hstack((w_n, rng.normal(size=(n, m))))
        delassus = w.T @ np.diag(rng.uniform(0.1, 10.0, n)) @ w
        offset, mu = w.T @ rng.normal(size=n), 0.3 * rng.uniform(0.0, 1.0, m)
        r = 1.0 / np.diag(delassus)
        P, converged, problems, _ = de_saxce_fixed_point(delassus, offset, mu, r, 1e-10, 150)
        assert converged and problems >= 1
        xi = delassus @ P + offset
        scale = max(np.abs(offset).max(), np.abs(xi - offset).max())
        residual = natural_residual(P[:m], P[m:], xi[:m], xi[m:], mu, r[:m], r[m:])
        assert residual <= 1e-10 * scale
        assert np.all(P[:m] >= 0.0) and np.all(np.abs(P[m:]) <= mu * P[:m] * (1 + 1e-12))
        z, _ = lemke(*coulomb_lcp(delassus, offset, mu))
        if z is not None:
            lemke_xi = delassus @ np.concatenate((z[:m], z[m : 2 * m] - z[2 * m : 3 * m])) + offset
            assert np.abs(lemke_xi - xi).max() <= 1e-8 * scale
            compared += 1
    assert compared >= 20


def test_capstan_substeps_run_compiled_as_the_python_substep(monkeypatch):
    """The coarse capstan (some twenty sticking contacts on the drum, G singular): every
    sub-step compiled (before De Saxce's fixed point was compiled every one was handed back;
    before Lemke's pivoting was, 1 of 91, where the fixed point fails), and the same motion as
    the Python sub-step."""
    _, fast, fast_tension = demo.run(COARSE, h=H_COARSE, out=None)
    with monkeypatch.context() as patch:
        patch.setattr(WholeSubstep, "plan", classmethod(lambda cls, stepper: None))
        _, slow, slow_tension = demo.run(COARSE, h=H_COARSE, out=None)
    assert (fast.step_path, slow.step_path) == ("compiled", "python")
    assert fast.n_compiled > 0 and slow.n_compiled == 0
    assert fast.n_fallback == 0
    assert fast.n_substeps == slow.n_substeps
    assert np.array_equal(fast.t, slow.t)
    assert np.max(np.abs(fast.q - slow.q)) <= 1e-12
    assert np.max(np.abs(fast.u - slow.u)) <= 1e-9
    assert np.max(np.abs(fast_tension - slow_tension)) <= 1e-9  # N, the tight end's tension
    for key in ("kinetic_energy", "elastic_energy", "dissipated_friction", "work_loads"):
        assert np.max(np.abs(fast.columns[key] - slow.columns[key])) <= 1e-9, key
    # and the capstan's physics: the string holds up to Euler-Eytelwein's force, then slips
    assert abs(fast_tension.max() - COARSE.slip_force) <= 0.02 * COARSE.slip_force
