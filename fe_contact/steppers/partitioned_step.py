"""The linear algebra of a partitioned generalised-alpha step (``genalpha``): the iteration
matrix ``T_Sigma^T (M + gamma' C + beta' K) T`` applied through the bordered system with the
structures' block factorised once per step size (linear structures, sparse LU) or per iterate
(strings, banded LU; linear structures with the taut links' tangent, banded Cholesky in the
links' band order, ``linked_band``), the consistent accelerations at a restart, the Painleve test, the residual's round-off level,
the multipliers and dependent coordinates of an iterate (Lipinski (002), secs. 8-9) and the
Newton test of an iterate (``newton_converged``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse.linalg as spla

from ..coupling.constraints import mass_times
from ..coupling.partition import (
    ConstraintError,
    PainleveError,
    Partition,
    b_matrices,
    choose_dependent,
    make_partition,
)
from ..kernels.curvature import dependent_row_terms
from ..kernels.dense import painleve_margin
from ..system import System
from .effective_mass import FlexibleBlock
from .linked_band import linked_band
from .painleve import ContactProblem, contact_problem

# a Newton failure where the Painleve margin (``StepAlgebra.painleve_margin``) is below this is
# reported as the Painleve case it approaches: there the normal force is 100 times the one the
# same state would need without friction, or more
PAINLEVE_NEAR = 1e-2
# sparse LU factors of G_f kept per step size for linear structures: a step takes one size, a
# located event some ten more (the Illinois iterates), each used again only nearby
FACTORS_KEPT = 16


def margin_of(D0: np.ndarray, D: np.ndarray) -> float:
    """The Painleve margin min Re eig(D) / max |eig(sym D0)| of the Delassus blocks D0 = J M^-1
    J^T and D = J M^-1 J_Sigma^T, exact for any size: ``kernels.dense.painleve_margin`` (the
    compiled loop's) up to two rows, where it is exact, and the eigenvalues beyond."""
    D0 = np.ascontiguousarray(D0, dtype=float)
    D = np.ascontiguousarray(D, dtype=float)
    if D.shape[0] <= 2:
        return float(painleve_margin(D0, D))
    scale = np.max(np.abs(np.linalg.eigvalsh(0.5 * (D0 + D0.T))))
    return float(np.min(np.real(np.linalg.eigvals(D)))) / scale


class StepAlgebra:
    """The solves of one system's steps. ``params``: the generalised-alpha parameters
    (``alpha.AlphaParameters``). ``n_factorizations`` counts the factorisations of the
    structures' block. ``absolute``: for each of M_f, C_f, K_f (K_f where the system has it),
    |X| in CSR on X's own stored entries where the caller has it, else None (formed here from
    X); None: all formed here."""

    def __init__(self, system: System, params, absolute=None):
        self.system = system
        self.params = params
        self.n_factorizations = 0
        joints = () if system.tree is None else system.tree.joints
        self._tree_stiffness = np.array([j.stiffness for j in joints])
        self._tree_damping = np.array([j.damping for j in joints])
        self._g_factor = {}
        self._g_matrix = {}  # h -> G_f (CSC) of linear structures, for ``g_solver_with``
        self._g_band = {}  # h -> G_f in the links' band order (``linked_band``)
        self._linked = None  # LinkedBand, False when the band does not fit; built at first use
        self._block = None  # FlexibleBlock: G_f of nonlinear structures in band storage
        lay = system.layout
        self.mass_lu = spla.splu(system.mass_flexible) if lay.n_flexible else None
        self._mass_flexible_diagonal = system.mass_flexible.diagonal()
        # |M|, |C|, |K| of the flexible part: the round-off floor of its residual; None for
        # a matrix without stored entries (its term is zero)
        matrices = (system.mass_flexible, system.damping_flexible, system.stiffness_flexible)
        matrices = tuple(m for m in matrices if m is not None)
        if absolute is None:
            absolute = (None,) * len(matrices)
        self._abs_flexible = tuple(
            None if m.nnz == 0 else abs(m).tocsr() if a is None else a
            for m, a in zip(matrices, absolute, strict=True)
        )

    def coefficients(self, h: float):
        """(beta', gamma') of the step h: d q / d z and d u / d z of the update."""
        p = self.params
        bp = h * h * p.beta * (1 - p.alpha_f) / (1 - p.alpha_m)
        gp = h * p.gamma * (1 - p.alpha_f) / (1 - p.alpha_m)
        return bp, gp

    def g_solver(self, h: float, q):
        """Solver of G_f = M_f + gamma' C_f + beta' K_f (K_f the tangent at q when nonlinear:
        then in band storage with the strings' element tangents scattered into the band,
        ``effective_mass.FlexibleBlock``, factorised by a banded LU)."""
        s = self.system
        bp, gp = self.coefficients(h)
        if not s.layout.n_flexible:
            return None
        if s.linear_flexible:
            lu = self._g_factor.pop(h, None)  # re-inserted last: the most recently used
            if lu is None:
                G = (s.mass_flexible + gp * s.damping_flexible + bp * s.stiffness_flexible).tocsc()
                lu = spla.splu(G)
                self.n_factorizations += 1
                if len(self._g_factor) >= FACTORS_KEPT:  # the least recently used goes
                    del self._g_factor[next(iter(self._g_factor))]
            self._g_factor[h] = lu
            return lu
        if self._block is None:
            self._block = FlexibleBlock(s)
        self.n_factorizations += 1
        return self._block.iteration_matrix(q[s.layout.flexible], gp, bp)

    def g_solver_with(self, h: float, extra):
        """Solver of G_f + ``extra`` (a symmetric sparse (n_f, n_f) matrix: the tangent of the
        taut links, ``compliant.bordered_solve``) for linear structures, factorised anew at
        each call (``n_factorizations`` counts it): a banded Cholesky in the links' band order
        (``linked_band``), else (a band too wide, not positive definite) a sparse LU. G_f
        itself, and its band, are kept per step size."""
        s = self.system
        G = self._g_matrix.get(h)
        if G is None:
            bp, gp = self.coefficients(h)
            G = (s.mass_flexible + gp * s.damping_flexible + bp * s.stiffness_flexible).tocsc()
            if len(self._g_matrix) >= FACTORS_KEPT:
                first = next(iter(self._g_matrix))
                del self._g_matrix[first]
                self._g_band.pop(first, None)
            self._g_matrix[h] = G
        self.n_factorizations += 1
        if self._linked is None:
            self._linked = linked_band(s) or False
        if self._linked:
            band_g = self._g_band.get(h)
            if band_g is None:
                band_g = self._g_band[h] = self._linked.matrix_band(G)
            factor = self._linked.factorize(band_g, extra)
            if factor is not None:
                return factor
        return spla.splu((G + extra).tocsc())

    def bordered_solve(self, ev, rhs, h, lu):
        """X with T_Sigma^T G T X_ind = -r (rhs = -r on the independent entries, else zero)."""
        lay = self.system.layout
        bp, gp = self.coefficients(h)
        m = ev.phi.size
        G_t = ev.mass_tree + gp * np.diag(self._tree_damping) + bp * np.diag(self._tree_stiffness)
        Js_t, Js_f = ev.jac_sigma[:, lay.tree], ev.jac_sigma[:, lay.flexible]
        J_t, J_f = ev.jac[:, lay.tree], ev.jac[:, lay.flexible]
        R_t, R_f = rhs[lay.tree], rhs[lay.flexible]
        if lu is not None:
            Wr = lu.solve(R_f)
            W = lu.solve(np.ascontiguousarray(Js_f.T)) if m else np.zeros((lay.n_flexible, 0))
        else:
            Wr, W = np.zeros(0), np.zeros((0, m))
        small = np.vstack([np.hstack([G_t, -Js_t.T]), np.hstack([J_t, J_f @ W])])
        x = np.linalg.solve(small, np.concatenate([R_t, -J_f @ Wr])) if small.size else []
        X = np.empty(lay.n)
        X[lay.tree] = x[: lay.n_tree]
        X[lay.flexible] = Wr + W @ np.asarray(x[lay.n_tree :])
        return X

    def accelerations(self, ev, part):
        """Accelerations and multipliers of the reduced equations (Lipinski (002), eqs. 78a-b
        and 76) at an evaluated state: the reduced equations are linear in the independent
        accelerations, so one solve of the step's bordered system with G = M (h = 0) gives
        them; sparse in the structures' coordinates (the dense form,
        ``partition.partitioned_accelerations``, costs O(n^3): 0.9 s at 2000 coordinates)."""
        s = self.system
        ind, U = part.independent, part.dependent
        nv = part.independent_tree.size
        B1, B2, B3, B4, B5 = b_matrices(ev, part)
        acc = np.zeros(s.layout.n)
        acc[U] = -B3
        e = mass_times(s, ev, acc) + ev.forces
        rhs = np.zeros(s.layout.n)
        rhs[ind] = -(e[ind] - np.hstack([B4, B5]).T @ e[U])
        ydd = self.bordered_solve(ev, rhs, 0.0, self.mass_lu)[ind]
        acc[ind] = ydd
        acc[U] = -(B1 @ ydd[:nv] + B2 @ ydd[nv:] + B3)
        return acc, multipliers(ev, part, mass_times(s, ev, acc) + ev.forces)

    def check_painleve(self, ev, mu, contacts=None):
        """Where friction (``mu`` per contact row) makes J M^-1 J_Sigma^T lose definiteness
        (001 remark 10.3.13), name the case and return its lift-off branch, or raise.

        contacts : None, or (normal_rows (k,) int, names (k,), can_open (k,) bool: a
        Unilateral contact) of the closed contacts. With them the contact problem of the
        state is solved (``painleve.contact_problem``): when a solution lets contacts that may
        open lift off (N = 0 with a positive contact acceleration) it is returned (the caller
        opens them); else PainleveError naming the inconsistent case (no N >= 0) or the
        indeterminate one (several). Returns None when the margin is safely positive."""
        worst = self.painleve_margin(ev, mu)
        if worst > 1e-9:
            return None
        reason = (
            f"J M^-1 J_Sigma^T has an eigenvalue {worst:.3e} <= 0, so the normal force is "
            "not determined"
        )
        if contacts is not None and ev.forces is not None:
            rows, names, can_open = contacts
            problem = self.contact_problem(ev, rows)
            branch = problem.lift_off(np.asarray(can_open, dtype=bool))
            if branch is not None:
                return branch
            if problem.kind in ("inconsistent", "indeterminate", None):
                reason = f"{problem.describe(names)}; {reason}"
        self.painleve_error(ev, reason)

    def contact_problem(self, ev, normal_rows) -> ContactProblem:
        """The contact problem of the evaluated state ev (``painleve.contact_problem``):
        D = J M^-1 J_Sigma^T and a0 = A - J M^-1 F, the row accelerations without constraint
        forces (M q'' + F = J_Sigma^T lambda, J q'' + A = c)."""
        Minv_Js = self.mass_solve(ev, ev.jac_sigma.T)
        Minv_F = self.mass_solve(ev, ev.forces)
        D = ev.jac @ Minv_Js
        a0 = ev.remainder - ev.jac @ Minv_F
        return contact_problem(D, a0, normal_rows)

    def mass_solve(self, ev, rhs) -> np.ndarray:
        """M^-1 rhs for the block-diagonal mass diag(M_t(q), M_f) of the evaluated state.

        Parameters
        ----------
        ev : Evaluation
            The state whose tree mass matrix ``ev.mass_tree`` (kg, kg m, kg m^2) is used.
        rhs : ndarray, shape (n,) or (n, k)
            Generalised forces or impulses (N, N m, or N s, N m s), or constraint columns.

        Returns
        -------
        ndarray, shape of rhs
            The accelerations or velocity changes they cause.
        """
        lay = self.system.layout
        X = np.asarray(rhs, dtype=float)
        shape = X.shape
        X = X.reshape(lay.n, -1)
        Y = np.empty_like(X)
        if lay.n_tree:
            Y[lay.tree] = np.linalg.solve(ev.mass_tree, X[lay.tree])
        if lay.n_flexible:
            Y[lay.flexible] = self.mass_lu.solve(np.ascontiguousarray(X[lay.flexible]))
        return Y.reshape(shape)

    def check_painleve_near(self, ev, mu, err: Exception, contacts=None) -> None:
        """Name a step's Newton failure ``err`` next to a Painleve case for what it is: where
        ``painleve_margin`` at the last committed state ev is below PAINLEVE_NEAR, the
        slipping contact approaches the state in which its normal force is not determined and
        that force grows without bound (a rod sliding into its Painleve range of angles):
        PainleveError, with the failure as its cause. Otherwise nothing. contacts : None, or
        (normal rows, names, may open) of the closed contacts as in ``check_painleve``: the
        contact problem of ev then names the case approached (``ContactProblem.approach``)."""
        margin = self.painleve_margin(ev, mu)
        if margin < PAINLEVE_NEAR:
            case = ""
            if contacts is not None and ev.forces is not None and len(contacts[0]):
                case = self.contact_problem(ev, contacts[0]).approach(contacts[1])
            try:
                self.painleve_error(
                    ev,
                    f"{case + '; ' if case else ''}approached: the smallest eigenvalue of J "
                    f"M^-1 J_Sigma^T has fallen to {margin:.3e} of the frictionless one's, the "
                    f"normal force grows as its inverse, and the step's Newton iteration "
                    f"failed ({err})",
                )
            except PainleveError as painleve:
                raise painleve from err

    def painleve_error(self, ev, reason: str):
        """Raise the PainleveError of state ev with ``reason``, naming contacts and state."""
        s = self.system
        names = ", ".join(f"{c.name} (mu = {c.mu})" for c in s.model.contacts if c.mu > 0)
        state = ", ".join(f"{v:.6g}" for v in ev.q[s.layout.tree])
        raise PainleveError(
            f"friction too large at t = {ev.t:.6g} s (Painleve case, 001 remark 10.3.13): "
            f"{reason}; contacts: {names}; tree coordinates q = [{state}]"
        )

    def painleve_margin(self, ev, mu) -> float:
        """The smallest real part of the eigenvalues of D = J M^-1 J_Sigma^T relative to the
        largest of the frictionless J M^-1 J^T (1 without friction or constraints). At 0 the
        normal force of a slipping contact is not determined (Painleve); as it falls towards 0
        the normal force needed to hold the constraint grows as its inverse."""
        if not np.any(mu > 0) or ev.phi.size == 0:
            return 1.0
        Minv_J = self.mass_solve(ev, ev.jac.T)
        Minv_Js = self.mass_solve(ev, ev.jac_sigma.T)
        return margin_of(ev.jac @ Minv_J, ev.jac @ Minv_Js)

    def residual_floor(self, q, u, acc) -> np.ndarray:
        """The round-off level of each generalised force of the residual, (n,) N: 16 eps times
        |M_f| |a| + |C_f| |u| + |K| |q| on the flexible coordinates (the sums of large terms
        that cancel in a stiff, finely meshed structure; linear structures, for a nonlinear one
        only the mass and damping terms), zero on the tree coordinates."""
        lay = self.system.layout
        out = np.zeros(lay.n)
        if lay.n_flexible:
            terms = (acc, u, q)[: len(self._abs_flexible)]
            total = sum(
                m @ np.abs(x[lay.flexible])
                for m, x in zip(self._abs_flexible, terms, strict=True)
                if m is not None
            )
            out[lay.flexible] = 16.0 * np.finfo(float).eps * total
        return out

    def mass_diagonal(self, ev) -> np.ndarray:
        """The diagonal of diag(M_t(q), M_f), (n,)."""
        lay = self.system.layout
        out = np.empty(lay.n)
        out[lay.tree] = np.diag(ev.mass_tree)
        out[lay.flexible] = self._mass_flexible_diagonal
        return out


def newton_converged(
    delta, inertia_delta, r, scale: float, lam, last, bp: float, tol: float, rtol: float, floor=None
) -> bool:
    """The Newton test of an iterate of a partitioned step. All must hold: the position
    correction bp |delta| <= tol; the residual of the reduced equations and the acceleration
    correction weighted by the diagonal of the mass matrix (so that both are forces, and the
    round-off eps cond(G) of a stiff structure's accelerations weighs as little as its nodal
    masses) <= rtol ``scale`` plus ``floor()``; the error of the multipliers, estimated from
    their change since the last iterate and the contraction theta = |delta_k| / |delta_k-1| of
    the iteration as theta / (1 - theta) |lambda_k - lambda_k-1|, <= rtol max(1 N, |lambda|).

    Round-off: when the iteration no longer contracts (theta >= 1/2), what changes from
    iterate to iterate is round-off (eps cond(G) of a fine, stiff mesh: on a 1000-element
    cantilever the residual stalls at ~10 times its bound and the position correction at
    ~1e-9, in the slopes of the nodes); such an iterate is taken when its residual and
    position correction are within 1e4 times their bounds.

    Parameters
    ----------
    delta : ndarray, shape (n_ind,)
        The correction of the independent accelerations, m/s^2 (or rad/s^2).
    inertia_delta : ndarray, shape (n_ind,)
        delta weighted by the diagonal of the mass matrix, N (or N m).
    r : ndarray, shape (n_ind,)
        The residual of the reduced equations, N (or N m).
    scale : float
        The largest inertia or applied generalised force, at least 1 N.
    lam : ndarray, shape (m,)
        The iterate's multipliers, N (or N m).
    last : tuple or None
        (max |delta|, lambda) of the last iterate, None at the first.
    bp : float
        beta' = d q / d z of the step, s^2.
    tol : float
        The tolerance of the position correction, m (or rad).
    rtol : float
        The relative tolerance of the forces.
    floor : callable, optional
        ``floor()`` : per independent coordinate, N, the round-off level of the residual; only
        called when the residual is above rtol ``scale``.

    Returns
    -------
    bool
        Whether the iterate is taken.

    Examples
    --------
    >>> z = np.zeros(1)
    >>> newton_converged(z, z, z, 1.0, np.zeros(0), None, 1e-8, 1e-12, 1e-10)
    True
    """
    d = np.max(np.abs(delta), initial=0.0)
    stalled = last is not None and last[0] > 0 and d >= 0.5 * last[0]

    def worst(bound):
        return max(
            bp * d / tol,
            np.max(np.abs(r) / bound, initial=0.0),
            np.max(np.abs(inertia_delta) / bound, initial=0.0),
        )

    excess = worst(rtol * scale)
    if excess > 1.0 and floor is not None:
        excess = worst(rtol * scale + floor())
    if excess > 1.0:
        return bool(stalled and excess <= 1e4)
    if lam.size == 0:
        return True
    if last is None:
        return False
    if stalled:
        return True
    d_last, lam_last = last
    theta = d / d_last if d_last > 0 else 0.0
    error = theta / (1.0 - theta) * np.max(np.abs(lam - lam_last))
    return bool(error <= rtol * max(1.0, np.max(np.abs(lam))))


def multipliers(ev, part, e) -> np.ndarray:
    """Multipliers of an iterate from the dependent rows, J_Sigma,u^T lambda = (M q'' + F)_u
    (Lipinski (002), eq. 76)."""
    U = part.dependent
    if U.size == 0:
        return np.zeros(0)
    return np.linalg.solve(ev.jac_sigma[:, U].T, e[U])


def partition_condition(ev, part: Partition) -> float:
    """cond(J_u), the condition number of the rows' block of the dependent coordinates of
    ``part`` at the evaluated state ev (1 without dependent coordinates)."""
    if part.dependent.size == 0:
        return 1.0
    return float(np.linalg.cond(ev.jac[:, part.dependent]))


def choose_partition(system: System, ev) -> tuple[Partition, float]:
    """The partition of the rows of the evaluated state ev and its ``partition_condition``:
    dependent tree coordinates (Lipinski (002), eq. 72), and structure coordinates for the
    rows the tree cannot take (``partition.choose_dependent``).

    Parameters
    ----------
    system : System
        The assembled model.
    ev : Evaluation
        The state whose constraint Jacobian ``ev.jac`` (m, n) is partitioned.

    Returns
    -------
    tuple of (Partition, float)
        The partition and cond(J_u) of its dependent block at ev.
    """
    lay = system.layout
    try:
        dependent = choose_dependent(ev.jac[:, lay.tree])
    except ConstraintError:
        if not lay.n_flexible:
            raise
        dependent = choose_dependent(ev.jac[:, lay.tree], ev.jac[:, lay.flexible])
    part = make_partition(system, dependent)
    return part, partition_condition(ev, part)


def dependent_newton_step(ev, part, q, u, t: float, curved=()):
    """Dependent coordinates and velocities for new independent ones in q, u by one Newton step
    of the constraints from the evaluated state ev (its phi, J, phi_t at ev.q, ev.t):
    phi + J (q - ev.q) + phi_t (t - ev.t) = 0 and J u + phi_t = 0, solved for q_U, u_U.

    curved : (contact index in ``ev.contacts``, row) of the rows whose gap has a Hessian H
    (``kinematics.gap_hessian``): their position row gains 1/2 dq^T H dq and their velocity
    row uses J + (H dq)^T, the row at the new positions to first order, with dq = q - ev.q
    (the independent part; the dependent part of the last iterate), the terms of
    ``kernels.curvature.dependent_row_terms`` (the compiled step's). Without it the velocity
    rows lag one iterate behind the positions, which makes the step's Newton iteration
    linear (by |H dq| |u|) on a curving structure."""
    U, ind = part.dependent, part.independent
    if U.size == 0:
        return q, u
    J_u, J_i = ev.jac[:, U], ev.jac[:, ind]
    rhs_q = ev.phi + J_i @ (q[ind] - ev.q[ind]) + ev.phi_t * (t - ev.t)
    rhs_u = J_i @ u[ind] + ev.phi_t
    if curved:
        J_u = np.array(J_u, dtype=float, order="C")
        dq = np.ascontiguousarray(q - ev.q, dtype=float)
        velocities = np.ascontiguousarray(u, dtype=float)
        independent = np.ascontiguousarray(ind, dtype=np.int64)
        dependent = np.ascontiguousarray(U, dtype=np.int64)
        for i, row in curved:
            hessian = ev.contacts[i].gap_hessian
            if hessian is None:
                continue
            columns, C = hessian
            h_q, h_u = dependent_row_terms(
                np.ascontiguousarray(columns[:, 0]),
                np.ascontiguousarray(columns[:, 1]),
                np.array([C[0, 0], C[0, 1], C[1, 1]]),
                dq,
                velocities,
                independent,
                dependent,
                J_u[row],
            )
            rhs_q[row] += h_q
            rhs_u[row] += h_u
    try:
        sol = np.linalg.solve(J_u, np.column_stack([rhs_q, rhs_u]))
    except np.linalg.LinAlgError:
        raise ConstraintError(f"J_u is singular at t = {t:g} s") from None
    q[U] = ev.q[U] - sol[:, 0]
    u[U] = -sol[:, 1]
    return q, u


__all__ = [
    "StepAlgebra",
    "choose_partition",
    "dependent_newton_step",
    "multipliers",
    "newton_converged",
    "partition_condition",
]
