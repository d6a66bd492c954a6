"""Static equilibrium of the string: f_int(q) = f_ext on the free dofs, Eugster-Glocker (004), eq. (11).

Newton's method on the total potential ``Pi(q) = U(q) - f_ext . q`` (all loads are dead loads),
with a backtracking line search and, where the tangent is singular or indefinite (a slack or
unstressed string has no transverse stiffness), a Levenberg-Marquardt shift ``K + mu M``. The
shift is removed as soon as plain Newton steps succeed, so the final iterations are Newton's.

Load path: first the loads are scaled 0 -> 1 with the supports held at their start values
(``q0[fixed_dofs]``), then the supports move linearly to ``model.q_prescribed`` under the full
load. A string tensioned by its own weight follows support motion smoothly; a slack one does not.
Each phase takes nominal steps of 1/n; a step whose Newton iteration fails is halved (up to 8
times in a row) and the start of each step is extrapolated from the last two converged states.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from .. import validation as check
from .static_error import StaticSolveError
from .string import StringModel, gravity_force, internal_force, rigid_body_modes, strain_energy
from .string import tangent_stiffness as _tangent_stiffness

__all__ = ["StaticConvergenceError", "StaticSolution", "string_static_shape"]


class StaticConvergenceError(StaticSolveError):
    """Newton's method did not converge in a load or support step.

    phase : "load" or "support"; step : 1-based number of the failing step in that phase (counting
    converged steps, which may be shorter than nominal after halving); n_steps : nominal steps in
    the phase; residual_norm : ||f_int - f_ext|| on the free dofs in N; n_iterations : Newton
    iterations of the last failed attempt; load_factor : path parameter in (0, 1] of that attempt.
    """

    def __init__(
        self,
        phase: str,
        step: int,
        n_steps: int,
        residual_norm: float,
        n_iterations: int,
        load_factor: float,
    ):
        self.step = step
        self.n_steps = n_steps
        self.residual_norm = residual_norm
        super().__init__(
            phase,
            load_factor,
            residual_norm,
            n_iterations,
            f"static equilibrium did not converge in {phase} step {step} (nominal {n_steps} "
            f"steps, path parameter {load_factor:.6g}): residual norm {residual_norm:.3e} N "
            f"after {n_iterations} Newton iterations, also with the step halved; try more "
            "steps, a better q0, or a larger max_iterations",
        )


@dataclass(frozen=True, eq=False)
class StaticSolution:
    """Converged static state.

    q : coordinates, shape (n_dofs,).
    reactions : generalized support forces on the string, f_int - f_ext at the fixed dofs and 0
        elsewhere, shape (n_dofs,), N; at a pinned end node its position entries are the
        support force F_A of Eugster-Glocker (004), eq. (7).
    residual_norm : ||f_int - f_ext|| on the free dofs at the end, N.
    n_iterations : Newton iterations over all steps.
    """

    q: np.ndarray
    reactions: np.ndarray
    residual_norm: float
    n_iterations: int


def string_static_shape(
    model: StringModel,
    external_force: np.ndarray | None = None,
    q0: np.ndarray | None = None,
    n_load_steps: int = 10,
    n_support_steps: int = 10,
    tol: float = 1e-10,
    max_iterations: int = 50,
) -> StaticSolution:
    """Solve f_int(q) = f_ext with load stepping and then support stepping.

    external_force : full load at the end of the load phase, shape (n_dofs,), N; None =
        gravity_force(model). Add point_load(model, s, F) for point forces.
    q0 : start, shape (n_dofs,); None = model.q_ref. Its fixed entries are the start values of the
        supports; a q0 that is already in equilibrium-like shape allows n_load_steps = 1.
    tol : relative residual, ||R_free|| <= tol * max(||f_ext||, ||f_int||), or below the
        round-off level 10 eps ||(|K| |q|)_free|| when that is larger.
    Raises ValueError if the supports leave a rigid-body mode, StaticConvergenceError if a step
    does not converge within max_iterations.
    """
    if model.closed:
        raise ValueError(
            "model: string_static_shape solves open strings on their own dofs; a closed "
            "string's equilibrium goes through fe_contact.static_equilibrium (its Structure)"
        )
    check.positive_int("n_load_steps", n_load_steps)
    check.positive_int("n_support_steps", n_support_steps)
    check.real("tol", tol, low=0.0, low_open=True, meaning="a relative tolerance")
    modes = rigid_body_modes(model)[model.fixed_dofs]
    if np.linalg.matrix_rank(modes, tol=1e-9 * max(1.0, np.abs(modes).max(initial=0.0))) < 3:
        raise ValueError(
            f"supports: {model.spec.supports!r} leave a planar rigid-body mode (translation or "
            "rotation), so the static problem has no unique solution; allowed: supports whose fixed "
            "dofs stop all three rigid motions, e.g. two pinned nodes, a pinned node and a fixed_y "
            "node, or one clamped node"
        )
    force = gravity_force(model) if external_force is None else np.asarray(external_force, float)
    q = (model.q_ref if q0 is None else np.asarray(q0, dtype=float)).copy()
    fixed = model.fixed_dofs
    start = q[fixed].copy()
    target = model.q_prescribed[fixed]
    mass_ff = model.mass_matrix[model.free_dofs][:, model.free_dofs].tocsc()
    settings = (tol, max_iterations, mass_ff)

    q, residual, n_load = _continuation(
        model, q, lambda lam: (lam * force, start), n_load_steps, "load", settings
    )
    n_support = 0
    if not np.array_equal(start, target):
        q, residual, n_support = _continuation(
            model,
            q,
            lambda lam: (force, start + lam * (target - start)),
            n_support_steps,
            "support",
            settings,
        )
    reactions = np.zeros(model.n_dofs)
    reactions[fixed] = (internal_force(model, q) - force)[fixed]
    return StaticSolution(
        q=q, reactions=reactions, residual_norm=residual, n_iterations=n_load + n_support
    )


def _continuation(model, q, path, n_steps, phase, settings, max_halvings=8):
    """Follow path(lam) -> (force, fixed values) for lam 0 -> 1 from q (in equilibrium at 0).

    Steps of 1/n_steps; a step that fails is halved (at most max_halvings times in a row), and
    the next start is extrapolated from the last two converged states.
    Returns (q, residual norm, total Newton iterations).
    """
    tol, max_iterations, mass_ff = settings
    fixed = model.fixed_dofs
    nominal = 1.0 / n_steps
    lam, increment, step = 0.0, nominal, 1
    previous = None  # (lam, q) of the last converged state before the current one
    n_total = 0
    residual = 0.0
    while lam < 1.0:
        target = min(1.0, lam + increment)
        if 1.0 - target < 1e-12:
            target = 1.0
        force, fixed_values = path(target)
        guess = q.copy()
        if previous is not None:
            guess += (target - lam) / (lam - previous[0]) * (q - previous[1])
        guess[fixed] = fixed_values
        solution, residual, n_iterations, converged = _newton(
            model, guess, force, tol, max_iterations, mass_ff
        )
        n_total += n_iterations
        if converged:
            previous = (lam, q)
            q, lam = solution, target
            step += 1
            increment = min(2.0 * increment, nominal)
            continue
        increment *= 0.5
        if increment < nominal / 2**max_halvings:
            raise StaticConvergenceError(phase, step, n_steps, residual, n_iterations, target)
    return q, residual, n_total


def _newton(model, q, force, tol, max_iterations, mass_ff):
    """One load level. Returns (q, residual norm, iterations, converged)."""
    free = model.free_dofs
    q = q.copy()
    shift = 0.0  # Levenberg-Marquardt shift mu, relative to trace(K)/trace(M)
    for iteration in range(max_iterations + 1):
        f_int = internal_force(model, q)
        residual = (f_int - force)[free]
        norm = float(np.linalg.norm(residual))
        full_stiffness = _tangent_stiffness(model, q)
        # round-off level of the residual: eps times the forces of eps-relative changes of q
        floor = 10.0 * np.finfo(float).eps * np.linalg.norm((abs(full_stiffness) @ abs(q))[free])
        if norm <= max(tol * max(np.linalg.norm(force), np.linalg.norm(f_int)), floor):
            return q, norm, iteration, True
        if iteration == max_iterations or not np.isfinite(norm):
            return q, norm, iteration, False
        stiffness = full_stiffness[free][:, free].tocsc()
        scale = max(abs(stiffness.diagonal()).sum(), 1e-300) / mass_ff.diagonal().sum()
        for _ in range(40):  # raise the shift until a step is accepted
            step = _solve_shifted(stiffness, mass_ff, shift * scale, residual)
            trial = None if step is None else _line_search(model, q, step, force, residual)
            if trial is not None:
                q = trial
                shift = 0.0 if shift <= 1e-6 else shift * 0.1
                break
            shift = 1e-6 if shift == 0.0 else shift * 10.0
        else:
            return q, norm, iteration + 1, False
    return q, norm, max_iterations, False


def _line_search(model, q, step, force, residual, max_halvings=12):
    """Backtrack along a descent step of Pi; the trial q or None.

    Accepts alpha when Pi decreases (Armijo, c = 1e-4) or, since Pi stalls at round-off near the
    solution, when the residual norm decreases by the same factor.
    """
    slope = float(residual @ step)  # dPi/dalpha at alpha = 0
    if not slope < 0.0:
        return None
    free = model.free_dofs
    norm = np.linalg.norm(residual)
    potential = strain_energy(model, q) - force @ q
    alpha = 1.0
    for _ in range(max_halvings):
        trial = q.copy()
        trial[free] += alpha * step
        # a full step may land far off (slopes of 1e155 from a nearly singular stiffness, e.g.
        # EI = 1e-254 N m^2): its energy overflows, is not finite and the step is halved
        with np.errstate(over="ignore", invalid="ignore"):
            trial_norm = np.linalg.norm((internal_force(model, trial) - force)[free])
            trial_potential = strain_energy(model, trial) - force @ trial
        if np.isfinite(trial_potential) and (
            trial_potential <= potential + 1e-4 * alpha * slope
            or trial_norm <= (1.0 - 1e-4 * alpha) * norm
        ):
            return trial
        alpha *= 0.5
    return None


def _solve_shifted(stiffness, mass_ff, mu, residual):
    """Solve (K + mu M) dq = -R; None if the matrix is singular or the result not finite."""
    matrix = stiffness if mu == 0.0 else (stiffness + mu * mass_ff).tocsc()
    try:
        step = splu(sp.csc_matrix(matrix)).solve(-residual)
    except RuntimeError:
        return None
    return step if np.all(np.isfinite(step)) else None
