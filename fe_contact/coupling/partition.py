"""Modified coordinate partitioning, Lipinski (002), sec. 8, for any number of constraints.

Dependent coordinates ``u`` (m of them) are taken from the tree (002 eq. 72), chosen by pivoting on
the tree part of the Jacobian (Wehage-Haug: QR with column pivoting). With v the other tree
coordinates and c the beam's:

    B1 = J_u^-1 J_v,  B2 = J_u^-1 J_c,  B3 = J_u^-1 A                       (002 eq. 73b)
    B4 = J_Sigma,u^-1 J_Sigma,v,  B5 = J_Sigma,u^-1 J_Sigma,c                (002 eq. 78c)

q_u'' = -B1 q_v'' - B2 q_c'' - B3 (eq. 73a). Writing e = M q'' + F (the unconstrained residual),
the reduced equations (78a-b) are ``e_v - B4^T e_u = 0`` and ``e_c - B5^T e_u = 0``; the
multipliers follow from the u rows, ``lambda = J_Sigma,u^-T e_u`` (eq. 76). Note: 002 eq. (78c)
prints B5 with J_n^c; with friction the beam's own friction row belongs there too (J_Sigma^c,
eq. 71b), which is what is used here; B1 != B4 under friction, B1 == B4 without.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..system import System
from .constraints import Evaluation, evaluate_state, mass_times


class PainleveError(RuntimeError):
    """The constrained system with friction has no unique solution (Painleve, 001 remark 10.3.13)."""


class ConstraintError(RuntimeError):
    """The position constraints could not be satisfied (no convergence, singular Jacobian)."""


def choose_dependent(jac_tree: np.ndarray, jac_flexible: np.ndarray | None = None) -> np.ndarray:
    """Indices (m,) of the dependent coordinates: the best-conditioned m columns of J_b.

    QR with column pivoting on the (m, n_b) tree block; raises ConstraintError when it is rank
    deficient (the constraints are redundant or the tree cannot satisfy them) or has more rows
    than columns. With ``jac_flexible`` (m, n_f), the structures' block, a tree block of rank
    r < m is completed by m - r structure coordinates (indices n_b + j): the best-conditioned
    columns of J_f projected on the complement of the chosen tree columns' range. A point of a
    one-coordinate pendulum sticking on a beam has 2 rows (normal and stick): the pendulum's
    angle and one coordinate of the beam are then dependent, the rest of the beam independent.
    """
    m, n_b = jac_tree.shape
    if m == 0:
        return np.zeros(0, dtype=int)
    if jac_flexible is not None and jac_flexible.shape[1]:
        return _dependent_with_structures(jac_tree, np.asarray(jac_flexible, dtype=float))
    if m > n_b:  # QR would give n_b pivots for m rows: a J_u of shape (m, n_b)
        raise ConstraintError(
            f"{m} constraint rows on a tree of {n_b} coordinates: the partition takes one "
            "dependent tree coordinate per row (Lipinski (002), eq. 73), so the tree needs at "
            "least as many coordinates as rows"
        )
    _, r, piv = scipy.linalg.qr(jac_tree, pivoting=True, mode="economic")
    diag = np.abs(np.diag(r))
    if diag[-1] <= 1e-12 * max(diag[0], 1e-300):
        raise ConstraintError(
            "the tree part of the constraint Jacobian is rank deficient: the constraints are "
            "redundant or the mechanism is in a singular configuration"
        )
    return np.sort(piv[:m])


def _dependent_with_structures(jac_tree: np.ndarray, jac_flexible: np.ndarray) -> np.ndarray:
    """``choose_dependent`` with the structures' block: tree columns first (as many as its
    numerical rank, 1e-12 relative), then structure columns for the remaining rows."""
    m, n_b = jac_tree.shape
    scale = max(np.max(np.abs(jac_tree), initial=0.0), np.max(np.abs(jac_flexible)), 1e-300)
    chosen = np.zeros(0, dtype=int)
    basis = np.zeros((m, 0))
    if n_b:
        q, r, piv = scipy.linalg.qr(jac_tree, pivoting=True, mode="economic")
        diag = np.abs(np.diag(r))
        rank = int(np.sum(diag > 1e-12 * max(diag[0], 1e-300))) if diag.size else 0
        rank = min(rank, m)
        chosen, basis = np.sort(piv[:rank]), q[:, :rank]
    if chosen.size == m:
        return chosen
    rest = jac_flexible - basis @ (basis.T @ jac_flexible)
    _, r, piv = scipy.linalg.qr(rest, pivoting=True, mode="economic")
    need = m - chosen.size
    diag = np.abs(np.diag(r))
    if diag.size < need or diag[need - 1] <= 1e-12 * scale:
        raise ConstraintError(
            "the constraint Jacobian is rank deficient: the constraints are redundant or the "
            "mechanism is in a singular configuration"
        )
    return np.concatenate([chosen, n_b + np.sort(piv[:need])])


@dataclass(frozen=True)
class Partition:
    """Dependent (u) and independent (v) tree coordinates and the layout of the independent set
    (v, then the structure coordinates that are not dependent: all of them unless the tree has
    fewer coordinates than rows, ``choose_dependent``)."""

    dependent: np.ndarray
    independent_tree: np.ndarray
    independent: np.ndarray  # indices into q of v then all beam coordinates


def make_partition(system: System, dependent: np.ndarray) -> Partition:
    """The Partition with the given dependent coordinates (tree ones, and structure ones
    when the tree has too few: ``choose_dependent``)."""
    n_b = system.layout.n_tree
    free = np.ones(system.layout.n, dtype=bool)  # a mask, not np.setdiff1d: the same sorted
    free[np.asarray(dependent, dtype=int)] = False  # indices, without its sorts
    v = np.flatnonzero(free[:n_b])
    flexible = n_b + np.flatnonzero(free[n_b:])
    return Partition(np.asarray(dependent, dtype=int), v, np.concatenate([v, flexible]))


@dataclass(frozen=True)
class Solution:
    """Accelerations (n,) and multipliers (m,) at one state, plus the B matrices when partitioned."""

    acceleration: np.ndarray
    multipliers: np.ndarray
    B: tuple | None = None


_getrf, _gecon = scipy.linalg.lapack.get_lapack_funcs(("getrf", "gecon"), (np.zeros((1, 1)),))


def _solve_square(a: np.ndarray, b: np.ndarray, what: str) -> np.ndarray:
    """Solve a small dense square system; PainleveError when it is singular or not finite."""
    if a.shape[0] == 0:  # no constraint rows (a structure or a chain alone): nothing to solve
        return np.zeros(np.shape(b))
    lu, piv, info = _getrf(a)
    rcond = _gecon(lu, np.linalg.norm(a, 1), norm="1")[0] if info == 0 else 0.0
    if info != 0 or not rcond > 1e-13:
        raise PainleveError(f"{what} is singular (condition number {1.0 / max(rcond, 1e-300):.3e})")
    # getrf above only feeds the condition estimate: for these m x m blocks (m = number of
    # constraints) numpy's solve is faster than reusing the factors through scipy's lu_solve.
    x = np.linalg.solve(a, b)
    if not np.all(np.isfinite(x)):
        raise PainleveError(f"{what} is singular (non-finite solution)")
    return x


def b_matrices(ev: Evaluation, part: Partition):
    """B1..B5 of Lipinski (002), eqs. (73b) and (78c), at an evaluated state."""
    U, V = part.dependent, part.independent_tree
    C = part.independent[V.size :]  # the independent structure coordinates
    J_u = ev.jac[:, U]
    Js_u = ev.jac_sigma[:, U]
    rhs = np.hstack([ev.jac[:, V], ev.jac[:, C], ev.remainder[:, None]])
    sol = _solve_square(J_u, rhs, "J_u (the Jacobian block of the dependent coordinates)")
    nv = V.size
    B1, B2, B3 = sol[:, :nv], sol[:, nv:-1], sol[:, -1]
    rhs_s = np.hstack([ev.jac_sigma[:, V], ev.jac_sigma[:, C]])
    sol_s = _solve_square(Js_u, rhs_s, "J_Sigma,u (002 eq. 76; friction too large?)")
    B4, B5 = sol_s[:, :nv], sol_s[:, nv:]
    return B1, B2, B3, B4, B5


def partitioned_accelerations(system: System, ev: Evaluation, part: Partition) -> Solution:
    """Accelerations and multipliers from the reduced equations (78a-b) and eq. (76), dense.

    This is the literal form of 002 sec. 8, for checks and initial accelerations; the time
    integrator solves the same reduced equations with a sparse bordered factorisation.
    """
    n = system.layout.n
    B1, B2, B3, B4, B5 = b_matrices(ev, part)
    U = part.dependent
    ind = part.independent
    m, n_ind = U.size, ind.size
    # q'' = T z - t0, z = (q_v'', q_c''); reduced rows T_Sigma^T (M q'' + F) = 0
    T = np.zeros((n, n_ind))
    T[U] = -np.hstack([B1, B2])
    T[ind, np.arange(n_ind)] = 1.0
    t0 = np.zeros(n)
    t0[U] = B3
    Ts = np.zeros((n, n_ind))
    Ts[U] = -np.hstack([B4, B5])
    Ts[ind, np.arange(n_ind)] = 1.0
    M = scipy.linalg.block_diag(ev.mass_tree, system.mass_flexible.toarray())
    reduced = Ts.T @ M @ T
    rhs = Ts.T @ (M @ t0 - ev.forces)
    z = _solve_square(reduced, rhs, "the reduced mass matrix of eqs. (78a-b)")
    acc = T @ z - t0
    e_u = (M @ acc + ev.forces)[U]
    lam = _solve_square(ev.jac_sigma[:, U].T, e_u, "J_Sigma,u^T (002 eq. 76)") if m else e_u
    return Solution(acc, lam, (B1, B2, B3, B4, B5))


def augmented_accelerations(system: System, ev: Evaluation) -> Solution:
    """Reference solver: [[M, -J_Sigma^T], [J, 0]] [q''; lambda] = [-F; -A], sparse LU."""
    n = system.layout.n
    n_b = system.layout.n_tree
    m = ev.phi.size
    M = sp.block_diag([sp.csc_matrix(ev.mass_tree), system.mass_flexible], format="csc")
    K = (
        sp.bmat([[M, sp.csc_matrix(-ev.jac_sigma.T)], [sp.csc_matrix(ev.jac), None]], format="csc")
        if m
        else M
    )
    rhs = np.concatenate([-ev.forces, -ev.remainder])
    try:
        lu = spla.splu(K)
        x = lu.solve(rhs)
    except RuntimeError as err:
        raise PainleveError(
            f"the augmented system [[M, -J_Sigma^T], [J, 0]] is singular at t = {ev.t:g} s: {err}"
        ) from None
    if not np.all(np.isfinite(x)):
        raise PainleveError(f"the augmented system is singular at t = {ev.t:g} s")
    del n_b
    return Solution(x[:n], x[n:])


def recover_dependent(
    system: System,
    part: Partition,
    q,
    u,
    t: float,
    tol=1e-12,
    max_iter=25,
    rows=None,
    evaluation=None,
):
    """Dependent positions and velocities from the constraints (Newton, then a linear solve).

    q, u : (n,) with the independent entries given (the dependent entries are the starting guess);
    returns new (q, u) satisfying phi = 0 and J u + phi_t = 0 to ``tol`` (m, m/s scale).
    rows : keywords of ``evaluate_state`` that choose the rows (stick, unilateral, closed).
    evaluation : ``evaluate_state(system, q, u, t, constraints_only=True, **rows)`` at the given
        (q, u, t) when the caller has it (the first iterate, not evaluated again), or None.
    """
    q = np.array(q, dtype=float)
    u = np.array(u, dtype=float)
    U = part.dependent
    if U.size == 0:
        return q, u
    for _ in range(max_iter):
        if evaluation is not None:
            ev, evaluation = evaluation, None
        else:
            ev = evaluate_state(system, q, u, t, constraints_only=True, **(rows or {}))
        J_u = ev.jac[:, U]
        if np.max(np.abs(ev.phi)) <= tol:
            break
        try:
            q[U] -= np.linalg.solve(J_u, ev.phi)
        except np.linalg.LinAlgError:
            raise ConstraintError(f"J_u is singular at t = {t:g} s") from None
    else:
        raise ConstraintError(
            f"the position constraints did not converge at t = {t:g} s: |phi| = "
            f"{np.max(np.abs(ev.phi)):.3e} after {max_iter} Newton iterations (no configuration "
            f"of the dependent coordinates closes the constraints: a mechanism driven through a "
            f"dead or locking position, or too large a step)"
        )
    # J and phi_t depend on (q, t) only: the last evaluation serves the velocity level.
    rest = ev.jac @ u - J_u @ u[U] + ev.phi_t
    u[U] = -np.linalg.solve(J_u, rest)
    return q, u


def static_residual(system: System, part: Partition, q, t: float, slip_sign=None):
    """Reduced static residual T_Sigma^T F at rest (u = 0), Lipinski (002), eq. (78) with q'' = 0.

    q : (n,) satisfying the constraints. slip_sign : (n_contacts,) friction direction to use (the
    state is at rest, so the slip velocity has no sign of its own; None: no friction). Zero when
    the applied, spring and gravity forces balance the constraint forces J_Sigma^T lambda.
    Returns (residual (n_ind,), Evaluation).
    """
    u = np.zeros(system.layout.n)
    ev = evaluate_state(system, q, u, t, slip_sign=slip_sign)
    _, _, _, B4, B5 = b_matrices(ev, part)
    F = ev.forces
    return F[part.independent] - np.hstack([B4, B5]).T @ F[part.dependent], ev


def partition_static_state(
    system: System, q_guess, t: float = 0.0, slip_sign=None, tol=1e-10, max_iter=30
):
    """A state at rest in equilibrium with the constraints at time t (quasi-static sliding when
    ``slip_sign`` gives the friction directions).

    Solves ``static_residual = 0`` (N, N m) for the independent coordinates by a chord Newton
    method: the Jacobian is taken by finite differences (one residual per independent coordinate)
    and reused while the residual falls by at least half per iteration. The dependent coordinates
    are recovered from the constraints at every evaluation. Returns (q (n,), multipliers (m,)):
    lambda of eq. (76) at rest. Raises ConstraintError when the residual does not fall below
    ``tol`` times the largest force within ``max_iter`` iterations.
    """
    q = np.array(q_guess, dtype=float)
    u = np.zeros_like(q)
    ev = evaluate_state(system, q, u, t, constraints_only=True)
    part = make_partition(system, choose_dependent(ev.jac[:, system.layout.tree]))
    q, _ = recover_dependent(system, part, q, u, t)
    ind = part.independent
    scale = max(float(np.max(np.abs(evaluate_state(system, q, u, t).forces))), 1e-12)

    def residual(y):
        trial = q.copy()
        trial[ind] = y
        trial, _ = recover_dependent(system, part, trial, u, t)
        r, ev = static_residual(system, part, trial, t, slip_sign)
        return r, trial, ev

    def jacobian(y, r0):
        step = 1e-7 * np.maximum(np.abs(y), 1e-2 * np.max(np.abs(y)) + 1e-9)
        cols = []
        for i in range(y.size):
            yi = y.copy()
            yi[i] += step[i]
            cols.append((residual(yi)[0] - r0) / step[i])
        return scipy.linalg.lu_factor(np.column_stack(cols))

    y = q[ind].copy()
    r, q, ev = residual(y)
    lu = None
    previous = np.inf
    for _ in range(max_iter):
        size = float(np.max(np.abs(r)))
        if size <= tol * scale:
            break
        if lu is None or size > 0.5 * previous:
            lu = jacobian(y, r)
        previous = size
        y = y - scipy.linalg.lu_solve(lu, r)
        r, q, ev = residual(y)
    else:
        raise ConstraintError(
            f"static equilibrium not found at t = {t:g} s: residual {np.max(np.abs(r)):.3e} "
            f"(forces of order {scale:.3e}) after {max_iter} iterations"
        )
    e_u = ev.forces[part.dependent]
    lam = _solve_square(ev.jac_sigma[:, part.dependent].T, e_u, "J_Sigma,u^T (002 eq. 76)")
    return q, lam


__all__ = [
    "ConstraintError",
    "PainleveError",
    "Partition",
    "Solution",
    "augmented_accelerations",
    "b_matrices",
    "choose_dependent",
    "make_partition",
    "mass_times",
    "partitioned_accelerations",
    "recover_dependent",
    "partition_static_state",
    "static_residual",
]
