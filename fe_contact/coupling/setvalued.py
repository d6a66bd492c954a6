"""Set-valued contact laws on impulse level: normal-cone inclusions and the impulse solver of a
Moreau-Jean step, Eugster-Glocker (004), eqs. (26)-(27) and sec. 4.5.

The contact kinematics (gaps, directions w_N, w_T of 004 eqs. (20)-(25) for candidate grids,
closest points and rigid lines) are in ``coupling.kinematics``; here the closed contacts are
rows of ``W = [W_N, W_T]`` and their relative velocities ``gamma = W^T u``.

Force laws on impulse level, as normal-cone inclusions written as proximal maps (r > 0):

* unilateral contact, 004 eq. (26): ``xi_N in N_{R0-}(-P_N)``  <=>  ``P_N = prox_{R0+}(P_N - r xi_N)``;
* Coulomb friction, 004 eq. (27): ``xi_T in N_{[-mu P_N, mu P_N]}(-P_T)``
  <=>  ``P_T = prox_{[-mu P_N, mu P_N]}(P_T - r xi_T)``;
* Newton's impact law (004 sec. 4.5) enters through ``xi = gamma_E + e gamma_A`` with the normal
  and tangential restitution coefficients ``e_N``, ``e_T`` (0 by default, as in 004).

The discrete contact problem of a time step is ``xi = G P + c`` with the Delassus matrix
``G = W^T M_eff^-1 W`` and ``W = [W_N, W_T]``; ``solve_contact_impulses`` solves it by a cascade
of solvers (see there): projected Gauss-Seidel sweeps, active-set Newton iterations, De
Saxce's fixed point in the velocities, Lemke's pivoting (``coupling.lcp``), Lemke's pivoting on
nearby regularised problems polished by Newton, Tresca's fixed point, and further sweeps. Every
solver is judged by the same measure, the natural residual of the laws in velocity (m/s); a
failure names every solver tried and the smallest residual any of them reached.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels.lemke import LEMKE_POLISH
from .lcp import coulomb_lcp, lcp_impulses, lemke, regularised_solutions, status_solution

__all__ = [
    "ContactImpulses",
    "ContactSolverError",
    "coulomb_lcp",
    "lemke",
    "natural_residual",
    "prox_friction",
    "prox_normal",
    "solve_contact_impulses",
]


def prox_normal(x):
    """Projection on R0+: the unilateral law P_N = prox_{R0+}(P_N - r xi_N), 004 eq. (26)."""
    return np.maximum(x, 0.0)


def prox_friction(x, bound):
    """Projection on [-bound, bound], bound = mu P_N >= 0: Coulomb's law, 004 eq. (27)."""
    return np.clip(x, -bound, bound)


def natural_residual(
    normal: np.ndarray,
    tangent: np.ndarray,
    xi_normal: np.ndarray,
    xi_tangent: np.ndarray,
    friction: np.ndarray,
    r_normal: np.ndarray,
    r_tangent: np.ndarray,
) -> float:
    """Largest violation of the impulse laws (004 eqs. (26)-(27)) in m/s; 0 when they hold.

    Per contact the natural maps ``|P_N - prox_{R0+}(P_N - r_N xi_N)| / r_N`` and
    ``|P_T - prox_{[-mu P_N, mu P_N]}(P_T - r_T xi_T)| / r_T``; with r = 1 / G_ii they measure the
    velocity error of each law. All arguments have shape (m,).
    """
    res_n = np.abs(normal - prox_normal(normal - r_normal * xi_normal)) / r_normal
    res_t = (
        np.abs(tangent - prox_friction(tangent - r_tangent * xi_tangent, friction * normal))
        / r_tangent
    )
    return float(max(res_n.max(initial=0.0), res_t.max(initial=0.0)))


# --------------------------------------------------------------------------------------------
# Per-step contact problem
# --------------------------------------------------------------------------------------------


class ContactSolverError(RuntimeError):
    """The contact problem of a step was not solved (see ``solve_contact_impulses``).

    n_contacts : closed contacts in the problem; n_iterations : sweeps done; residual : the
    smallest violation of the impulse laws in m/s that any solver reached; tolerance : the
    requested one in m/s; r_factor : final relaxation alpha of r_i = alpha / G_ii; time : end of
    the step in s, if known; solvers : what each solver tried did, in the order tried (e.g.
    "De Saxce's fixed point (306 least-distance problems)"); best : the solver whose iterate has
    that residual.
    """

    def __init__(
        self,
        n_contacts,
        n_iterations,
        residual,
        tolerance,
        r_factor,
        time=None,
        solvers=(),
        best="",
    ):
        self.n_contacts = n_contacts
        self.n_iterations = n_iterations
        self.residual = residual
        self.tolerance = tolerance
        self.r_factor = r_factor
        self.time = time
        self.solvers = tuple(solvers) or (
            f"projected Gauss-Seidel ({n_iterations} sweeps, r-factor alpha = {r_factor:.3g})",
        )
        self.best = best
        where = "" if time is None else f" at t = {time:.6g} s"
        by = f" ({best})" if best else ""
        super().__init__(
            f"contact impulses{where} did not converge for {n_contacts} closed contacts; "
            f"tried {', '.join(self.solvers)}; best residual {residual:.3e} m/s{by} > "
            f"tolerance {tolerance:.3e} m/s; try a smaller step h, a larger max_iterations, or "
            "fewer candidate contact points"
        )


@dataclass(frozen=True, eq=False)
class ContactImpulses:
    """Solution of one step's contact problem (m closed contacts).

    normal, tangent : impulses P_N >= 0 and P_T in [-mu P_N, mu P_N], N s, shape (m,).
    xi_normal, xi_tangent : xi = G P + c at the solution, m/s, shape (m,).
    method : "gauss-seidel", "newton", "de-saxce", "lemke", "regularised-lemke" or "tresca"
    (which one delivered the solution).
    n_iterations : Gauss-Seidel sweeps; n_newton : active-set Newton iterations; n_pivots : Lemke
    pivots (0 if not used); n_problems : least-distance problems of the De Saxce fixed point;
    residual : largest violation of the laws in m/s; r_factor : final alpha of r_i = alpha / G_ii.
    """

    normal: np.ndarray
    tangent: np.ndarray
    xi_normal: np.ndarray
    xi_tangent: np.ndarray
    method: str
    n_iterations: int
    n_newton: int
    n_pivots: int
    residual: float
    r_factor: float
    n_problems: int = 0


def solve_contact_impulses(
    delassus: np.ndarray,
    offset: np.ndarray,
    friction: np.ndarray,
    initial: np.ndarray | None = None,
    tol: float = 1e-9,
    max_iterations: int = 2000,
    n_warm_sweeps: int = 4,
    max_newton: int = 3,
    min_r_factor: float = 0.05,
    time: float | None = None,
    compiled: bool = True,
    skip: tuple[str, ...] = (),
) -> ContactImpulses:
    """Solve xi = G P + c with the set-valued laws of 004 eqs. (26)-(27) on impulse level.

    delassus : G = W^T M_eff^-1 W, shape (2m, 2m), rows/columns ordered (N_1..N_m, T_1..T_m).
    offset : c, shape (2m,): xi = G P + c (c contains the free velocity and e gamma_A).
    friction : mu per contact, shape (m,).
    initial : starting impulses (N_1..N_m, T_1..T_m), e.g. those of the previous step.
    tol : relative tolerance; converged when the law residual (m/s, ``natural_residual`` with
        r = 1 / G_ii) is below ``tol * max(|c|_inf, |G P|_inf, 1e-12)``: relative to the free
        velocity and to the velocity the impulses make. The residual is a velocity error: with
        redundant contacts (G singular) the impulses are not unique, and it measures what the
        impulses do, not which of them a solver picked; every solver below meets it.

    Method, in this order:

    1. a non-smooth (projected) Gauss-Seidel iteration on the proximal equations
       ``P_N = prox_{R0+}(P_N - r_N xi_N)``, ``P_T = prox_{[-mu P_N, mu P_N]}(P_T - r_T xi_T)``:
       per contact, first the normal then the tangential equation with the current xi,
       ``r = alpha / G_ii``, alpha = 1 (exact projected Gauss-Seidel in the normal direction).
       Warm-started, one or two contacts on a rigid line converge in a few sweeps;
    2. if ``n_warm_sweeps`` sweeps do not suffice: at most ``max_newton`` active-set Newton
       iterations from the current iterate (``_active_set_newton``); they finish the job in one
       or two iterations whenever the contact statuses (open, stick, slip) are those of the
       previous step, as in sustained contact;
    3. otherwise Coulomb's law as the fixed point of least-distance problems in the velocities
       (De Saxce's modified velocity, ``_de_saxce_fixed_point``), each solved exactly by NNLS.
       Many closed contacts on a string make G singular (more constraints than the dofs they
       touch): the impulses are then not unique, the sweeps converge slowly or cycle, and so
       does Lemke's pivoting in round-off on the degenerate pivots, but the velocities of each
       of these problems are unique and the fixed point converges in about ten iterations;
    4. should it not converge (large mu, or a fixed point that contracts too slowly), the same
       laws as a linear complementarity problem (Anitescu-Potra form, friction impulse
       ``P_T = beta+ - beta-``, see ``coulomb_lcp``) solved by Lemke's pivoting (``lemke``), its
       solution polished by active-set Newton iterations;
    5. should the pivoting cycle on the degenerate pivots of a singular G, nearby problems
       with a small compliance, ``G + eps max(diag G) I``, and free velocities perturbed by
       ``delta |c|`` (``lcp.regularised_solutions``: eps = 1e-8, delta = 1e-10 first): they
       have no ties, their solutions are within ``eps max(diag G) |P| + delta |c|`` of the
       laws and are polished: the statuses they show solved as equations with G itself
       (``lcp.status_solution``), else active-set Newton iterations (usually one), so the
       result is exact, not compliant. The disk dropped 0.02 m onto a
       string of 8 elements with 101 candidates: 25 closed contacts, G of rank 20 of 50; De
       Saxce's fixed point stalls at 9e-7 m/s and the plain pivoting cycles (a basis repeats
       after 209 pivots), the regularised pivoting (307 pivots, 4e-9 m/s) and one Newton
       iteration reach 4e-16 m/s;
    6. should that fail, Coulomb's law as a fixed point of convex Tresca problems, each a
       bounded least-squares problem solved by scipy's BVLS (``_tresca_fixed_point``), its best
       iterate polished by active-set Newton iterations;
    7. should all fail, the sweeps continue with an adaptive r-factor: alpha is halved (not
       below min_r_factor) whenever the residual has not decreased over 20 sweeps.

    The returned impulses lie exactly in their sets: P_N >= 0 and |P_T| <= mu P_N.
    Raises ContactSolverError when not converged after max_iterations sweeps; its message names
    every solver tried, what each did, and the smallest residual reached.

    compiled : the sweeps, the law residual, the active-set Newton iterations and De Saxce's
        fixed point run as numba kernels (``kernels.contact``, ``kernels.de_saxce``: the same
        operations, its NNLS hand-written as scipy's cannot be called from numba; round-off
        differs from numpy's BLAS and LAPACK calls and scipy's NNLS, and the compiled fixed
        point polishes every iterate from the third, not skipping repeated statuses); False
        runs the numpy reference.
    skip : stages of steps 2-6 not to try, by ``ContactImpulses.method`` ("newton",
        "de-saxce", ...): those a caller has tried on the same problem in vain (the compiled
        Moreau-Jean sub-step, ``kernels.moreau.substep``, hands back a problem on which De
        Saxce's fixed point failed: run again it fails again, at about 90 ms on the capstan).
    """
    G = np.ascontiguousarray(delassus, dtype=float)
    c = np.ascontiguousarray(offset, dtype=float)
    mu = np.ascontiguousarray(friction, dtype=float)
    m = mu.size
    P = np.zeros(2 * m) if initial is None else np.array(initial, dtype=float)
    diag = np.diag(G).copy()
    if np.any(diag <= 0.0):
        raise ValueError("delassus: a diagonal entry is not positive; a contact has no mass")
    rows = [G[k] for k in range(2 * m)]
    r_unit = 1.0 / diag  # r-factors of the residual check
    alpha = 1.0
    n_pivots = 0
    n_newton = 0
    n_problems = 0
    scale_c = float(np.abs(c).max(initial=0.0))
    residual = np.inf
    scale = max(scale_c, 1e-12)
    history = []
    tried = []  # what each solver did, for the message of a failure
    best = {"ratio": np.inf, "residual": np.inf, "by": ""}  # smallest residual / its scale
    stage = ["projected Gauss-Seidel"]  # the solver whose iterates ``check`` sees
    if compiled:
        kernels = _kernels()
        active_set = kernels.newton

        def evaluate(P):
            xi = np.empty(2 * m)
            res, big = kernels.law_residual(G, c, mu, r_unit, P, xi)
            return xi, res, max(scale_c, big, 1e-12)

    else:
        active_set = _active_set_newton

        def evaluate(P):
            xi = G @ P + c
            res = natural_residual(P[:m], P[m:], xi[:m], xi[m:], mu, r_unit[:m], r_unit[m:])
            return xi, res, max(scale_c, float(np.abs(xi - c).max(initial=0.0)), 1e-12)

    def check(P):
        """(xi, residual, scale) of P; keeps the smallest relative residual seen."""
        xi, res, big = evaluate(P)
        if res / big < best["ratio"]:
            best.update(ratio=res / big, residual=res, by=stage[0])
        return xi, res, big

    def done(P, xi, method, sweep, residual):
        return ContactImpulses(
            normal=P[:m].copy(),
            tangent=P[m:].copy(),
            xi_normal=xi[:m],
            xi_tangent=xi[m:],
            method=method,
            n_iterations=sweep,
            n_newton=n_newton,
            n_pivots=n_pivots,
            n_problems=n_problems,
            residual=residual,
            r_factor=alpha,
        )

    # the statuses of the last polish that failed, its iteration count and tolerance
    failed = [None]

    def polish(P, iterations):
        """Active-set Newton iterations from P: (P or None); counted in n_newton. Skipped
        (None) when P shows the statuses of the last polish that failed, with as many
        iterations and no larger a tolerance: the first iterate solves the same linear
        equations (``_statuses``); when they have one solution it is the same iterate, which
        fails again (with redundant contacts the least correction depends on P: a repeat could
        differ; on the dense runs compared before and after, none did). An iterate of De
        Saxce's fixed point near rest keeps its statuses for tens of iterations: on the dense
        contacts of the dropped disk nine polishes in ten were repeats, about 0.7 ms each."""
        nonlocal n_newton
        xi, _, big = check(P)
        key = (_statuses(P, xi, mu, r_unit).tobytes(), iterations)
        if failed[0] is not None and failed[0][0] == key and tol * big <= failed[0][1]:
            return None
        trial, newton = active_set(G, c, mu, P, r_unit, tol * big, iterations)
        failed[0] = (key, tol * big) if trial is None else None
        n_newton += newton
        if trial is not None:
            check(trial)
        return trial

    def newton_stage(scale):
        nonlocal n_newton
        trial, iterations = active_set(G, c, mu, P, r_unit, tol * scale, max_newton)
        n_newton += iterations
        return trial, f"active-set Newton ({iterations} iterations)"

    def de_saxce_stage(scale):
        nonlocal n_problems, n_newton
        if compiled:
            trial, outer, newton = kernels.de_saxce(G, c, mu, r_unit, tol)
            n_newton += newton
        else:
            trial, outer = _de_saxce_fixed_point(
                G, c, mu, lambda P: check(P)[1:], tol, lambda P: polish(P, 2)
            )
        n_problems += outer
        return trial, f"De Saxce's fixed point ({outer} least-distance problems)"

    def lemke_stage(scale):
        nonlocal n_pivots, n_newton
        if compiled:  # the whole stage in one kernel, polish included
            trial, projected, solved, pivoted, pivots, newton = kernels.lemke(
                G, c, mu, r_unit, float(tol), float(scale)
            )
            n_pivots += pivots
            n_newton += newton
            if pivoted:
                xi, _, big = check(projected)
                if newton:  # polished: the record of ``polish``
                    key = (_statuses(projected, xi, mu, r_unit).tobytes(), LEMKE_POLISH)
                    failed[0] = None if solved else (key, tol * big)
                    if solved:
                        check(trial)
            return (trial if solved else None), f"Lemke's pivoting ({pivots} pivots)"
        z, pivots = lemke(*coulomb_lcp(G, c, mu))
        n_pivots += pivots
        trial = None if z is None else lcp_impulses(z, mu)
        if trial is not None and check(trial)[1] > tol * scale:
            trial = polish(trial, LEMKE_POLISH)
        return trial, f"Lemke's pivoting ({pivots} pivots)"

    def regularised_lemke_stage(scale):
        nonlocal n_pivots
        pivots = 0
        for _, _, trial, used in regularised_solutions(G, c, mu):
            pivots += used
            if trial is not None:
                _, residual_trial, scale_trial = check(trial)
                if residual_trial > tol * scale_trial:  # its statuses, solved exactly
                    exact = status_solution(G, c, mu, trial)
                    _, residual_trial, scale_trial = check(exact)
                    ok = residual_trial <= tol * scale_trial
                    trial = exact if ok else polish(trial, 10)
            if trial is not None:
                break
        n_pivots += pivots
        return trial, f"regularised Lemke with Newton ({pivots} pivots)"

    def tresca_stage(scale):
        nonlocal n_problems
        outer = 0
        for start in (P, np.zeros_like(P)):  # from the sweeps' iterate, then from rest
            trial, closest, solved = _tresca_fixed_point(
                G, c, mu, start, lambda P: check(P)[1:], tol
            )
            outer += solved
            if trial is None and closest is not None:  # polish the closest by Newton
                trial = polish(closest, 10)
            if trial is not None:
                break
        n_problems += outer
        return trial, f"Tresca's fixed point ({outer} bounded least-squares problems)"

    # the cascade after the warm sweeps, steps 2-6 of the docstring: (what ``check`` records
    # as the solver, ContactImpulses.method, the attempt: scale -> (impulses or None, account))
    stages = (
        ("active-set Newton", "newton", newton_stage),
        ("De Saxce's fixed point", "de-saxce", de_saxce_stage),
        ("Lemke's pivoting", "lemke", lemke_stage),
        ("regularised Lemke", "regularised-lemke", regularised_lemke_stage),
        ("Tresca's fixed point", "tresca", tresca_stage),
    )

    def cascade(scale):
        """Steps 2-6 after the warm sweeps: the first stage's ContactImpulses, or None."""
        for name, method, attempt in stages:
            if method in skip:
                tried.append(f"{name} (skipped: tried by the caller)")
                continue
            stage[0] = name
            trial, account = attempt(scale)
            tried.append(account)
            if trial is not None:
                xi_trial, residual_trial, _ = check(trial)
                return done(trial, xi_trial, method, sweep, residual_trial)
        stage[0] = "projected Gauss-Seidel"
        return None

    first = 1
    warm = min(n_warm_sweeps, max_iterations)
    if compiled and 1 <= warm <= 20:  # the warm sweeps in one call (no r-factor change in 20)
        xi, residuals = np.empty(2 * m), np.empty(warm)
        sweep, residual, scale, ratio, at = kernels.warm_sweeps(
            G, c, mu, diag, alpha, P, r_unit, float(tol), warm, scale_c, xi, residuals
        )
        if ratio < best["ratio"]:
            best.update(ratio=ratio, residual=at, by=stage[0])
        if residual <= tol * scale:
            return done(P, xi, "gauss-seidel", sweep, residual)
        if sweep == n_warm_sweeps and (solved := cascade(scale)) is not None:
            return solved
        history.extend(residuals[:sweep].tolist())
        first = sweep + 1
    for sweep in range(first, max_iterations + 1):
        if compiled:
            kernels.gauss_seidel_sweep(G, c, mu, diag, alpha, P)
        else:
            for i in range(m):
                j = m + i
                p_n = P[i] - alpha / diag[i] * (rows[i] @ P + c[i])
                p_n = p_n if p_n > 0.0 else 0.0
                P[i] = p_n
                bound = mu[i] * p_n
                P[j] = min(max(P[j] - alpha / diag[j] * (rows[j] @ P + c[j]), -bound), bound)
        xi, residual, scale = check(P)
        if residual <= tol * scale:
            return done(P, xi, "gauss-seidel", sweep, residual)
        if sweep == n_warm_sweeps and (solved := cascade(scale)) is not None:
            return solved
        history.append(residual)
        if len(history) > 20 and residual >= history[-21] and alpha > min_r_factor:
            alpha = max(0.5 * alpha, min_r_factor)
            history.clear()
    tried.insert(
        0, f"projected Gauss-Seidel ({max_iterations} sweeps, r-factor alpha = {alpha:.3g})"
    )
    raise ContactSolverError(
        m, max_iterations, best["residual"], tol * scale, alpha, time, tried, best["by"]
    )


class _Compiled:
    """The numba kernels of ``kernels.contact`` (imported on first use: numba's start-up)."""

    def __init__(self):
        from ..kernels import contact, de_saxce, lemke

        self.gauss_seidel_sweep = contact.gauss_seidel_sweep
        self.law_residual = contact.law_residual
        self.warm_sweeps = contact.warm_sweeps
        self._active_set = contact.active_set_newton
        self._de_saxce = de_saxce.de_saxce_fixed_point
        self.lemke = lemke.lemke_impulses  # (P, projected, solved, pivoted, pivots, newton)

    def newton(self, G, c, mu, P, r, tolerance, max_newton):
        """``_active_set_newton`` compiled: (P or None, iterations)."""
        P, iterations, converged = self._active_set(
            G, c, mu, np.ascontiguousarray(P, dtype=float), r, float(tolerance), int(max_newton)
        )
        return (P if converged else None), iterations

    def de_saxce(self, G, c, mu, r, tol, max_outer=300):
        """``_de_saxce_fixed_point`` compiled, polished by two active-set Newton iterations:
        (P or None, least-distance problems solved, Newton iterations)."""
        P, converged, problems, newton = self._de_saxce(G, c, mu, r, float(tol), max_outer // 2)
        return (P if converged else None), int(problems), int(newton)


_COMPILED = []


def _kernels() -> _Compiled:
    if not _COMPILED:
        _COMPILED.append(_Compiled())
    return _COMPILED[0]


def _de_saxce_fixed_point(G, c, mu, measure, tol, polish, max_outer: int = 300):
    """Coulomb's law as the fixed point of convex problems in the velocities (De Saxce's
    bipotential): with s = mu |xi_T| frozen, the modified velocity (xi_N + s, xi_T) lies in the
    dual friction cone, in 2-D the two half-planes xi_N + s -+ mu xi_T >= 0, and the impulses
    are their multipliers, P = (l+ + l-, mu (l- - l+)) >= 0, inside the cone by construction.
    Written with G = B^T B (B: r x 2m of full rank r from G's eigenvalues) and the velocity
    change y = B P, each problem is the least-distance problem min |y| subject to
    E^T (B^T y + c + s) >= 0, solved through scipy's NNLS (Lawson-Hanson, LDP as NNLS). y and
    xi = B^T y + c are unique even when G is singular (contacts are redundant) and P is not, so
    the fixed-point equation F(s) = mu |xi_T(s)| - s = 0 does not wander with the impulses, as
    a map of the impulses' friction bounds may (``_tresca_fixed_point``). At its solution,
    slip xi_T > 0 makes xi_N >= 0 the active half-plane, P_T = -mu P_N; stick (xi_T = 0)
    leaves |P_T| <= mu P_N.

    F is solved by semismooth Newton steps (the derivative of y(s) from the active half-planes
    of the last problem), each kept only if it reduces |F|, else the plain step s = mu |xi_T|
    (after two rejected Newton steps in a row, plain steps only), relaxed s += omega F with
    omega halved (down to 1/8) whenever |F| has not fallen for ten steps. The plain map may
    contract at 0.99 per iteration near a stick-slip switch (36 contacts on the string: some
    200 iterations, 60 ms) or cycle near rest (period 4; omega = 1/2 converges in 36); where
    the Newton steps are accepted about ten reach round-off. Started from s = 0 (every
    contact sticking: near rest the solution is close, 7 iterations where the start from the
    free velocities' slip mu |c_T| takes 200), then from mu |c_T|, each with half the budget. From
    the third iterate on, ``polish(P)`` (active-set Newton iterations on the true laws from
    the statuses of P) may end it: it returns the solution or None. ``measure(P)`` returns
    (law residual, scale). Returns (P or None when not converged or a problem is
    infeasible, number of problems solved)."""
    from scipy.optimize import nnls

    m = mu.size
    w, V = np.linalg.eigh(0.5 * (G + G.T))
    keep = w > 1e-12 * max(w[-1], 0.0)
    if not np.any(keep):
        return None, 0
    B = np.sqrt(w[keep])[:, None] * V[:, keep].T
    r = B.shape[0]
    E = np.block([[np.eye(m), np.eye(m)], [-np.diag(mu), np.diag(mu)]])  # P = E (l+, l-)
    C = E.T @ B.T  # the half-planes: C y >= d(s)
    d_s = -E.T[:, :m]  # d d / d s
    target = np.zeros(r + 1)
    target[-1] = 1.0
    solved = 0

    def problem(s):
        """(F(s), dF/ds, P) or None when the half-planes have no common point; dF/ds is a
        function of no argument, evaluated only for a Newton step (after two rejected Newton
        steps only plain steps follow: near rest most problems)."""
        nonlocal solved
        solved += 1
        d = -(E.T @ (c + np.concatenate((s, np.zeros(m)))))
        lhs = np.vstack((C.T, d[None, :]))
        try:
            u = nnls(lhs, target, maxiter=100 * lhs.shape[1])[0]
        except RuntimeError:  # NNLS did not converge
            return None
        rest = lhs @ u - target
        if not abs(rest[-1]) > 1e-12:
            return None
        lam = u / -rest[-1]
        xi_t = B.T[m:] @ (-rest[:r] / rest[-1]) + c[m:]

        def jacobian():
            active = C[lam > 0.0]  # y = C_A^T (C_A C_A^T)^+ d_A(s)
            dy = active.T @ np.linalg.lstsq(active @ active.T, d_s[lam > 0.0], rcond=1e-12)[0]
            return (mu * np.sign(xi_t))[:, None] * (B.T[m:] @ dy) - np.eye(m)

        return mu * np.abs(xi_t) - s, jacobian, E @ lam

    for start in (np.zeros(m), mu * np.abs(c[m:])):  # from stick, then from the free slip
        P = _iterate_de_saxce(problem, start, measure, tol, polish, max_outer // 2)
        if P is not None:
            return P, solved
    return None, solved


def _iterate_de_saxce(problem, s, measure, tol, polish, max_outer):
    """The iterations of ``_de_saxce_fixed_point`` from s; P or None."""
    state = problem(s)
    rejected = 0  # Newton steps rejected in a row; after two, plain steps only
    omega, best, since = 1.0, np.inf, 0  # relaxation of the plain steps, best |F|, age of best
    for outer in range(1, max_outer + 1):
        if state is None:
            return None
        F, jac, P = state
        residual, scale = measure(P)
        if residual <= tol * scale:
            return P
        if outer >= 3 and (polished := polish(P)) is not None:
            return polished
        if rejected < 2:
            newton = np.maximum(s - np.linalg.lstsq(jac(), F, rcond=None)[0], 0.0)
            trial = problem(newton)
            if trial is not None and np.abs(trial[0]).max() < np.abs(F).max():
                s, state, rejected = newton, trial, 0
                continue
            rejected += 1
        size = float(np.abs(F).max())
        best, since = (size, 0) if size < best else (best, since + 1)
        if since >= 10:  # no progress: the plain map cycles (near rest); relax it
            omega, best, since = max(0.5 * omega, 0.125), np.inf, 0
        s = s + omega * F
        state = problem(s)
    return None


def _tresca_fixed_point(G, c, mu, P, measure, tol, max_outer: int = 100):
    """Coulomb's law as a fixed point of Tresca problems (friction bounds mu P_N^k frozen):
    each is the convex problem min 1/2 P.G P + c.P over P_N >= 0, |P_T| <= mu P_N^k, written as
    a bounded least-squares problem ||A P + b|| with G = A^T A, c = A^T b, and solved by scipy's
    BVLS; then P_N^k+1 = P_N. G is positive semidefinite and often singular when contacts are
    redundant: the minimiser is then not unique (the velocities it gives are), and the bounds
    may wander with it. Tried first as it is, then with a proximal term eps^2 |P - P^k|^2
    (eps^2 = 1e-6, then 1e-4 of G's largest eigenvalue) that picks the minimiser next to the
    last iterate. The map contracts for moderate mu. ``measure(P)`` returns (law residual, its
    scale). Returns (P or None when not converged, the iterate of smallest relative residual,
    from which an active-set Newton iteration usually finishes in one step, the number of
    bounded least-squares problems solved)."""
    from scipy.optimize import lsq_linear

    m = mu.size
    w, V = np.linalg.eigh(0.5 * (G + G.T))
    keep = w > 1e-12 * max(w[-1], 0.0)
    if not np.any(keep):
        return None, None, 0
    A0 = (V[:, keep] * np.sqrt(w[keep])).T
    b = np.linalg.lstsq(A0.T, c, rcond=None)[0]
    best, best_residual = None, np.inf
    solved = 0
    for proximal in (0.0, 1e-6, 1e-4):
        eps = np.sqrt(proximal * w[-1])
        A = np.vstack((A0, eps * np.eye(2 * m))) if eps > 0.0 else A0
        trial = np.array(P, dtype=float)
        for _ in range(max_outer):
            bound = mu * np.maximum(trial[:m], 0.0)
            room = 1e-14 * max(float(np.abs(trial).max(initial=0.0)), 1e-300)  # BVLS: lo < hi
            lo = np.concatenate((np.zeros(m), -bound - room))
            hi = np.concatenate((np.full(m, np.inf), bound + room))
            rhs = np.concatenate((-b, eps * trial)) if eps > 0.0 else -b
            trial = lsq_linear(A, rhs, bounds=(lo, hi), method="bvls", tol=1e-15).x
            solved += 1
            trial[:m] = np.maximum(trial[:m], 0.0)
            trial[m:] = np.clip(trial[m:], -mu * trial[:m], mu * trial[:m])
            residual, scale = measure(trial)
            if residual <= tol * scale:
                return trial, trial, solved
            if residual < best_residual * scale:
                best, best_residual = trial.copy(), residual / scale
    return None, best, solved


def _statuses(P, xi, mu, r):
    """The status of each contact from z = P - r xi, as ``_active_set_newton`` reads it:
    0 open, 1 stick, 2 + sign(z_T) slip (2, 3 or 4; the sign enters its equation), (m,) int8.
    Equal statuses give that iteration the same linear equations."""
    m = mu.size
    z = P - r * xi
    closed = z[:m] > 0.0
    stick = closed & (np.abs(z[m:]) < mu * np.maximum(P[:m], 0.0))
    out = np.where(closed, 3 + np.sign(z[m:]), 0).astype(np.int8)
    out[stick] = 1
    return out


def _active_set_newton(G, c, mu, P, r, tolerance, max_newton):
    """Semismooth Newton (primal-dual active set) iterations on the proximal equations from P.

    The status of every contact follows from z = P - r xi: open (z_N <= 0: P_N = 0, P_T = 0),
    stick (|z_T| < mu P_N: xi_N = 0, xi_T = 0) or slip (xi_N = 0, P_T = sign(z_T) mu P_N); the
    linear equations of these statuses are solved for the least correction of P in the
    least-squares sense (G is singular when contacts are redundant: of the impulses that satisfy
    them, the one next to P is taken, so that a nearly admissible P stays so). No globalisation: the result is used only if its projection on the
    admissible sets meets the tolerance (law residual in m/s). Returns (P or None, iterations).
    """
    m = mu.size
    eye = np.eye(2 * m)
    for iteration in range(1, max_newton + 1):
        status = _statuses(P, G @ P + c, mu, r)
        slip = np.flatnonzero(status >= 2)
        A = eye.copy()
        b = np.zeros(2 * m)
        rows = np.concatenate((np.flatnonzero(status > 0), m + np.flatnonzero(status == 1)))
        A[rows] = G[rows]
        b[rows] = -c[rows]
        A[m + slip, slip] = -(status[slip] - 3.0) * mu[slip]  # -sign(z_T) mu
        P = P + np.linalg.lstsq(A, b - A @ P, rcond=1e-13)[0]  # least correction of P
        if not np.all(np.isfinite(P)):
            return None, iteration
        P[:m] = np.maximum(P[:m], 0.0)
        P[m:] = np.clip(P[m:], -mu * P[:m], mu * P[:m])
        xi = G @ P + c
        if natural_residual(P[:m], P[m:], xi[:m], xi[m:], mu, r[:m], r[m:]) <= tolerance:
            return P, iteration
    return None, max_newton
