"""Static equilibrium of a whole assembled System: ``static_equilibrium(system)``.

At rest (u = 0) the equations of motion of ``coupling.constraints`` reduce to

    F_s(q) - J(q)^T lambda = 0,    phi(q, t) = 0                      (002 eq. 71 at rest)

with F_s the internal forces of the structures and the joint springs, the structures' loads,
and s times the tree's loads (its weight and joint actuators; s the load factor, ramped 0 -> 1).
The rows of J and phi are every Sliding contact (its gap), every drive held at its value at time
t, every loop closure and every closed Unilateral contact. Newton's method runs on the full
augmented (KKT) system

    [ K_T + mu M   -J^T ] [dq     ]     [F_s - J^T lambda]
    [ J             0   ] [dlambda] = - [phi             ]

solved by scipy's sparse LU; K_T = dF_s/dq - d(J^T lambda)/dq takes the structures' analytic
tangent stiffness and, for the tree coordinates and the coordinates a constraint row touches,
finite differences (the geometric stiffness of the contacts). mu = 0 unless the matrix is
singular or a step lowers neither the residual nor the potential energy (plus a penalty on
phi): then a Levenberg-Marquardt shift mu M is raised until a step is accepted and dropped
again, so that the last iterations are plain Newton. Descent in energy carries the iteration
past a fold of the load path to the next minimum.

Path: a string whose guess is its reference is first brought to equilibrium alone under its
own loads, its supports moved from their reference to their prescribed values after the load
(``elements.string_statics``, which a slack, unstressed string needs); then the tree's loads
are ramped with every constraint. A step that fails is halved (8 times at most); when the
path ends at a fold (the equilibrium it follows disappears), the full load is tried at once
from the last converged state.

Friction: the equilibrium is the frictionless one (zero tangential force lies in every
Coulomb cone, so it is an admissible static state for any mu; with friction the static state
is not unique). Unilateral contacts: an active set, first closed for every contact that has a
contact point at the guess; a closed contact whose force is tensile is opened, an open one that
penetrates is closed, and the step is solved again.

Discretisation: a frictionless point contact rests where the structure's tangent is normal to
the load. On a string without bending stiffness a concentrated load makes a kink that the C1
Hermite string rounds off within the element holding it, so the tangent there depends on where
in the element the point sits: a heavy trolley finds equilibria close to the element's ends,
and its position converges only slowly with the mesh (see the README, "Static start").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from . import validation as check
from .coupling.constraints import evaluate_state, sliding_contacts
from .coupling.kinematics import ContactLeftStructure
from .elements import string_statics
from .elements.static_error import StaticSolveError
from .multibody.tree import actuator_forces, bias_forces, potential_energy
from .rough import Polyline
from .structures import StringStructure
from .support_reactions import support_reactions
from .system import System, energies
from .workspace import Workspace

DRIVES = ("held", "free")


class StaticEquilibriumError(StaticSolveError):
    """Newton's method did not converge in a load or support step, also with the step halved.

    Parameters
    ----------
    phase : str
        What was being followed: "load" (the tree's loads with every constraint), or
        "string 'NAME' alone, load" / "..., support" (a string under its own load, then its
        supports moved).
    load_factor : float
        The path parameter (0..1) of the failing attempt.
    residual : float
        The force residual norm, N.
    constraint : float
        max |phi| of the failing attempt, m or rad (kept as ``constraint_residual``).
    n_iterations : int
        Newton iterations of the failing attempt.

    Attributes
    ----------
    constraint_residual : float
        max |phi|, m or rad.

    Examples
    --------
    >>> from fe_contact import StaticEquilibriumError
    >>> issubclass(StaticEquilibriumError, RuntimeError)
    True
    """

    def __init__(self, phase, load_factor, residual, constraint, n_iterations):
        self.constraint_residual = constraint
        super().__init__(
            phase,
            load_factor,
            residual,
            n_iterations,
            f"static equilibrium did not converge in the {phase} phase at load factor "
            f"{load_factor:.6g}: force residual {residual:.3e} N, constraint residual "
            f"{constraint:.3e} (m, rad) after {n_iterations} Newton iterations, also with the "
            "step halved 8 times; try more load_steps or a q_guess closer to the equilibrium",
        )


@dataclass(frozen=True, eq=False)
class StaticState:
    """A static equilibrium of a System (SI).

    Parameters
    ----------
    q : ndarray, shape (n,)
        Coordinates: start a run with ``simulate(system, t_span, (s.q, s.u))``.
    u : ndarray, shape (n,)
        Zeros (at rest).
    multipliers : ndarray, shape (m,)
        The bilateral rows in the order of ``model.constraint_names()`` (a drive left free has
        NaN).
    normal_force : dict of str to float
        Contact name -> normal force, N (positive: compressive; 0 for an open Unilateral
        contact; a Compliant contact's force law value).
    closed : tuple of str
        Names of the Unilateral contacts that are closed.
    reactions : dict of str to float
        Drive and loop-row name -> its multiplier (drive torque N m or force N, loop force N):
        what holds the mechanism.
    support_reactions : dict of str to ndarray
        Structure name -> generalised force, shape (n_dofs,), of the supports on the structure
        at its fixed DOFs of the full (unreduced) DOF vector, zero elsewhere; at a pinned
        string node its position entries are the support force, N (the weight of a
        CarriedBody is not in them).
    residual : float
        Force residual norm ||F - J^T lambda|| at the end, N.
    constraint_residual : float
        max |phi|, m or rad.
    n_iterations : int
        Newton iterations over all steps.

    Examples
    --------
    A pendulum (1 kg at 0.5 m) on a torsion spring k = 10 N m/rad rests where
    k theta + m g l cos(theta) = 0:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, static_equilibrium
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),),
    ...                  joints=(Joint("revolute", stiffness=10.0),))
    >>> state = static_equilibrium(assemble(Model(tree=tree)))
    >>> theta = float(state.q[0])
    >>> residual = 10 * theta + 9.81 * 0.5 * np.cos(theta)
    >>> print(f"theta = {theta:.4f} rad, residual below 1e-9 N m: {abs(residual) < 1e-9}")
    theta = -0.4431 rad, residual below 1e-9 N m: True
    >>> state.u
    array([0.])
    """

    q: np.ndarray
    u: np.ndarray
    multipliers: np.ndarray
    normal_force: dict
    closed: tuple
    reactions: dict
    support_reactions: dict
    residual: float
    constraint_residual: float
    n_iterations: int


@dataclass
class _Rows:
    """Which rows take part: the Unilateral contacts (model indices) and their closed flags,
    the drive rows to drop, and the multipliers by key (row name or ("u", k))."""

    unilateral: tuple
    closed: list
    dropped: np.ndarray
    lam: dict


def static_equilibrium(
    system: System,
    q_guess=None,
    load_steps: int = 10,
    drives: str = "held",
    t: float = 0.0,
    tol: float = 1e-10,
    max_iterations: int = 40,
) -> StaticState:
    """The static equilibrium of ``system`` at time t (see the module docstring).

    Parameters
    ----------
    system : System
        The assembled model.
    q_guess : array_like, shape (n,), optional
        Start of Newton's method; None (the default): ``system.initial_state()`` (tree
        coordinates 0, structures in their reference). Give the tree's coordinates near the
        expected pose: a body is carried by Newton from there, along its constraints.
    load_steps : int, optional
        Nominal number of load steps (and of support steps when supports move), >= 1; 10 by
        default.
    drives : {"held", "free"}, optional
        "held" (the default: each drive holds its joint at its position at time t; its
        multiplier is the holding torque or force) or "free" (the driven joints are left
        free).
    t : float, optional
        Time in s at which the drives and loads are taken; 0 by default.
    tol : float, optional
        Relative force tolerance, ||F - J^T lambda|| <= tol * (the force scale), or the
        round-off level when larger; constraints to tol times the model's length scale. In
        (0, 1e-2], 1e-10 by default.
    max_iterations : int, optional
        Newton iterations per step, >= 1; 40 by default.

    Returns
    -------
    StaticState
        The equilibrium, its multipliers, contact forces and reactions.

    Raises
    ------
    TypeError
        When ``system`` is not a System, or a value has the wrong kind.
    ValueError
        For an argument out of range or a model statics does not take (a rough Polyline
        pair).
    StaticEquilibriumError
        When a step fails, also with the step halved.

    Examples
    --------
    A 0.05 kg mass resting on a steel cantilever at a = 0.3 m: the beam deflects under the mass
    by P a^3 / (3 EI) plus its own weight's share q a^2 (6 L^2 - 4 L a + a^2) / (24 EI) (Hermite
    cubics are exact at the nodes; a = 0.3 m is one). The normal force is normal to the
    deflected beam, so it is a little more than m g = 0.4905 N:

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, static_equilibrium)
    >>> a, m, L, g = 0.3, 0.05, 0.4, 9.81
    >>> tree = TreeModel(bodies=(Body(m, 0.0),),
    ...                  joints=(Joint("prismatic", location=(a, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=L, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> state = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> EI, q = strip.bending_stiffness, strip.mass_per_length * g
    >>> w = m * g * a**3 / (3 * EI) + q * a**2 * (6 * L**2 - 4 * L * a + a**2) / (24 * EI)
    >>> N = state.normal_force["mass"]
    >>> print(f"{-state.q[0] * 1e3:.4f} mm, closed form {w * 1e3:.4f} mm; N = {N:.4f} N")
    9.9772 mm, closed form 9.9772 mm; N = 0.4911 N
    """
    check.instance("static_equilibrium.system", system, System, "a System (assemble)")
    check.positive_int("static_equilibrium.load_steps", load_steps)
    check.choice("static_equilibrium.drives", drives, DRIVES)
    t = check.real("static_equilibrium.t", t, unit="s")
    tol = check.real("static_equilibrium.tol", tol, low=0.0, low_open=True, high=1e-2)
    check.positive_int("static_equilibrium.max_iterations", max_iterations)
    model = system.model
    for c in model.contacts:
        if isinstance(c.profile, Polyline):
            raise ValueError(
                f"static_equilibrium: contact {c.name!r} is a rough Polyline on a Wheel, whose "
                "many contact points statics does not take; allowed: Point, Circle and Profile "
                "contacts"
            )
    lay = system.layout
    if q_guess is None:
        q = system.initial_state()[0]
    else:
        q = check.finite_array("static_equilibrium.q_guess", q_guess, (lay.n,), lay.coordinate_name)
    unilateral = tuple(k for k, c in enumerate(model.contacts) if c.law.constraint == "unilateral")
    n_sliding = len(sliding_contacts(system))
    dropped = np.arange(n_sliding, n_sliding + len(model.drives)) if drives == "free" else []
    rows = _Rows(unilateral, [True] * len(unilateral), np.asarray(dropped, dtype=int), {})
    closed0 = []
    for k in unilateral:  # closed when it has a contact point at the guess
        try:
            evaluate_state(system, q, np.zeros(lay.n), t, constraints_only=True, unilateral=(k,))
            closed0.append(True)
        except ContactLeftStructure:
            closed0.append(False)
    rows.closed = closed0
    total = 0
    for name, s in system.structures.items():  # strings first alone (the tree held)
        sl = lay.structure(name)
        if isinstance(s, StringStructure) and np.array_equal(q[sl], s.initial_coordinates()):
            q[sl], n_it = _string_alone(s, load_steps, tol, max_iterations)
            total += n_it
    solver = _Solver(system, t, tol, max_iterations, rows)
    q, n_it = solver.follow(q, "load", lambda x: (system, x), load_steps)
    total += n_it
    return solver.result(q, total)


def _string_alone(structure: StringStructure, load_steps, tol, max_iterations):
    """Free coordinates of a string in equilibrium alone under its constant load (its supports
    moved to their prescribed values after the load), ``elements.string_statics``."""
    string = structure.string
    force = np.zeros(string.n_dofs)
    force[string.free_dofs] = structure.load
    try:
        solution = string_statics.string_static_shape(
            string,
            force,
            n_load_steps=load_steps,
            n_support_steps=load_steps,
            tol=tol,
            max_iterations=max_iterations,
        )
    except ValueError:  # a rigid-body mode: the string is held by its contacts too
        return structure.initial_coordinates(), 0
    except string_statics.StaticConvergenceError as err:
        raise StaticEquilibriumError(
            f"string {structure.name!r} alone, {err.phase}",
            err.load_factor,
            err.residual_norm,
            0.0,
            err.n_iterations,
        ) from None
    return solution.q[string.free_dofs], solution.n_iterations


class _Solver:
    """Newton on the augmented system for one System and time; ``follow`` runs a path."""

    def __init__(self, system, t, tol, max_iterations, rows: _Rows):
        self.system = system
        self.t = t
        self.tol = tol
        self.max_iterations = max_iterations
        self.rows = rows
        self.workspace = Workspace()  # warm starts of the contact searches along the path
        lengths = [s.length for s in system.structures.values()]
        self.length = max(lengths) if lengths else 1.0
        self._gradient = None
        self.final = None  # (system, factor, q, evaluation pieces) of the last converged solve
        # the size of the forces at the last Newton iterate (N): the scale of the active-set
        # test of the released contacts' forces; 0 until ``_newton`` has evaluated one
        self.force_scale = 0.0

    # -- the path ---------------------------------------------------------------------------
    def follow(self, q, phase, path, n_steps, max_halvings=8):
        """Follow path(x) -> (system, load factor) for x 0 -> 1 from q.
        Returns (q, Newton iterations)."""
        nominal = 1.0 / n_steps
        x, increment, total = 0.0, nominal, 0
        previous = None  # (x, q) of the converged state before the current one
        jumped = False
        while x < 1.0:
            target = 1.0 if 1.0 - (x + increment) < 1e-12 else x + increment
            system, factor = path(target)
            guess = q.copy()
            if previous is not None and x > previous[0]:
                guess += (target - x) / (x - previous[0]) * (q - previous[1])
            lam = dict(self.rows.lam)
            closed = list(self.rows.closed)
            out = self._active_set(system, guess, factor)
            total += out[2]
            if out[1]:
                previous = (x, q)
                q, x = out[0], target
                increment = min(2.0 * increment, nominal) if not jumped else 1.0 - x
                self.final = (system, factor)
                continue
            self.rows.lam, self.rows.closed = lam, closed  # as before the failed attempt
            increment *= 0.5
            if increment < nominal / 2**max_halvings:
                if not jumped and target < 1.0:  # a fold of the path: try the end at once
                    jumped, increment, previous = True, 1.0 - x, None
                    continue
                raise StaticEquilibriumError(phase, factor, out[3], out[4], out[2])
        return q, total

    def _active_set(self, system, q, factor):
        """Newton with the active set of the Unilateral contacts updated until it holds.
        Returns (q, converged, iterations, residual, constraint residual)."""
        rows = self.rows
        total = 0
        for _ in range(2 * len(rows.unilateral) + 3):
            q_new, ok, n_it, res, con = self._newton(system, q, factor)
            total += n_it
            if not ok:
                return q, False, total, res, con
            q = q_new
            changed = False
            ev = self._evaluate(system, q, constraints_only=True)
            force_tol = self.tol * max(self.force_scale, 1e-300) * 10.0
            for j, k in enumerate(rows.unilateral):
                key = ("u", k)
                if rows.closed[j] and rows.lam.get(key, 0.0) < -force_tol:
                    rows.closed[j], changed = False, True  # tensile: it opens
                    rows.lam.pop(key, None)
                elif not rows.closed[j]:
                    c = ev.contacts[len(sliding_contacts(system)) + j]
                    if c is not None and c.gap < -self.tol * self.length:
                        rows.closed[j], changed = True, True  # penetrates: it closes
            if not changed:
                return q, True, total, res, con
        return q, False, total, res, con

    # -- one load level ---------------------------------------------------------------------
    def _evaluate(self, system, q, constraints_only=False):
        n = system.layout.n
        rows = self.rows
        n_contacts = len(sliding_contacts(system)) + len(rows.unilateral)
        return evaluate_state(
            system,
            q,
            np.zeros(n),
            self.t,
            slip_sign=np.zeros(n_contacts),
            constraints_only=constraints_only,
            unilateral=rows.unilateral,
            closed=rows.closed,
            workspace=self.workspace,
        )

    def _keys(self, system):
        """The multiplier keys of the rows, in evaluate_state's order, and the kept rows."""
        rows = self.rows
        names = list(system.model.constraint_names())
        names += [("u", k) for j, k in enumerate(rows.unilateral) if rows.closed[j]]
        keep = np.setdiff1d(np.arange(len(names)), rows.dropped)
        return [names[i] for i in keep], keep

    def _pieces(self, system, q, factor, lam):
        """(residual (n,), phi (m,), J (m, n), evaluation) at q with the multipliers lam."""
        ev = self._evaluate(system, q)
        keys, keep = self._keys(system)
        phi, jac = ev.phi[keep], ev.jac[keep]
        lay = system.layout
        forces = ev.forces.copy()
        if factor != 1.0 and system.tree is not None:  # the tree's loads scaled by the factor
            q_t = q[lay.tree]
            joints = system.tree.joints
            spring = np.array([j.stiffness * (q_t[i] - j.rest) for i, j in enumerate(joints)])
            bias = bias_forces(system.tree, q_t, np.zeros(lay.n_tree), self.t)
            forces[lay.tree] -= (1.0 - factor) * (bias - spring)
        return forces - jac.T @ lam, phi, jac, ev

    def _newton(self, system, q, factor):
        """Returns (q, converged, iterations, force residual, constraint residual)."""
        lay = system.layout
        keys, _ = self._keys(system)
        lam = np.array([self.rows.lam.get(k, 0.0) for k in keys])
        q = q.copy()
        shift = 0.0
        mass = None
        res = con = np.inf
        for iteration in range(self.max_iterations + 1):
            try:
                r, phi, jac, ev = self._pieces(system, q, factor, lam)
            except ContactLeftStructure:
                return q, False, iteration, res, con
            res = float(np.linalg.norm(r))
            con = float(np.max(np.abs(phi), initial=0.0))
            stiffness = self._tangent(system, q, factor, lam, jac, ev)
            loads = np.linalg.norm(system.load_flexible) + (
                0.0 if system.tree is None else np.linalg.norm(ev.forces[lay.tree])
            )
            scale = max(
                factor * loads,
                np.linalg.norm(system.flexible_internal_force(q)),
                np.linalg.norm(jac.T @ lam),
            )
            self.force_scale = scale
            floor = 10.0 * np.finfo(float).eps * np.linalg.norm(abs(stiffness) @ abs(q))
            if res <= max(self.tol * scale, floor) and con <= self.tol * self.length:
                self.rows.lam = dict(zip(keys, lam, strict=True))
                return q, True, iteration, res, con
            if iteration == self.max_iterations or not np.isfinite(res):
                break
            if mass is None:
                mass = sp.block_diag(
                    [sp.csc_matrix(ev.mass_tree), system.mass_flexible], format="csc"
                )
                k_size = abs(stiffness.diagonal()).sum()
                m_size = max(mass.diagonal().sum(), 1e-300)
                mass_scale = max(k_size, scale / self.length, 1e-300) / m_size
                # a constraint residual weighs as the force a typical stiffness gives it
                weight = max(k_size / max(lay.n, 1), scale / self.length, 1e-300)
            merit = np.hypot(res, weight * np.linalg.norm(phi))
            energy = self._potential(system, q, factor) + 0.5 * weight * float(phi @ phi)
            self._gradient = r + jac.T @ lam + weight * (jac.T @ phi)  # of that energy
            for _ in range(30):
                step = self._solve(stiffness + (shift * mass_scale) * mass, jac, r, phi)
                trial = None
                if step is not None:
                    trial = self._line_search(system, q, lam, step, factor, (merit, energy), weight)
                if trial is not None:
                    q, lam = trial
                    shift = 0.0 if shift <= 1e-6 else 0.1 * shift
                    break
                shift = 1e-6 if shift == 0.0 else 10.0 * shift
            else:
                break
        return q, False, self.max_iterations, res, con

    def _line_search(self, system, q, lam, step, factor, merits, weight):
        """Backtrack along the step; (q, lambda) of the first trial that lowers the residual
        norm or the penalised potential Pi + weight |phi|^2 / 2 (descent in energy carries the
        iteration past a fold of the load path to the next minimum), or None."""
        merit, energy = merits
        n = system.layout.n
        slope = float(step[:n] @ self._gradient) if self._gradient is not None else -1.0
        alpha = 1.0
        for _ in range(12):
            q_t = q + alpha * step[:n]
            lam_t = lam + alpha * step[n:]
            try:
                r, phi, _, _ = self._pieces(system, q_t, factor, lam_t)
            except ContactLeftStructure:
                r = None
            if r is not None:
                value = np.hypot(np.linalg.norm(r), weight * np.linalg.norm(phi))
                if np.isfinite(value) and value <= (1.0 - 1e-4 * alpha) * merit:
                    return q_t, lam_t
                if slope < 0.0:
                    e = self._potential(system, q_t, factor) + 0.5 * weight * float(phi @ phi)
                    if np.isfinite(e) and e <= energy + 1e-4 * alpha * slope:
                        return q_t, lam_t
            alpha *= 0.5
        return None

    def _potential(self, system, q, factor) -> float:
        """Pi_s(q): strain energy, joint springs, compliant contacts, the structures' load
        potential and factor times the tree's weight and actuator potential, J."""
        lay = system.layout
        e = energies(system, q, np.zeros(lay.n), self.t, self.workspace)
        value = e.elastic + e.gravity
        if system.tree is not None:
            q_t = q[lay.tree]
            weight = potential_energy(system.tree, q_t) - e.tree_springs  # part of e.gravity
            work = float(actuator_forces(system.tree, self.t) @ q_t)  # constant actuators
            value += (factor - 1.0) * weight - factor * work
        return value

    @staticmethod
    def _solve(stiffness, jac, r, phi):
        """Solve the augmented system; None when singular."""
        m = jac.shape[0]
        if m:
            jac_s = sp.csc_matrix(jac)
            matrix = sp.bmat([[stiffness, -jac_s.T], [jac_s, None]], format="csc")
        else:
            matrix = sp.csc_matrix(stiffness)
        try:
            x = splu(matrix).solve(-np.concatenate([r, phi]))
        except RuntimeError:
            return None
        return x if np.all(np.isfinite(x)) else None

    def _tangent(self, system, q, factor, lam, jac, ev):
        """K_T (n, n) sparse: the structures' tangent stiffness plus, on the tree columns and
        the columns a row or a Compliant contact touches, finite differences of the rest."""
        lay = system.layout
        n = lay.n
        blocks = [sp.csc_matrix((lay.n_tree, lay.n_tree)), system.flexible_tangent(q)]
        stiffness = sp.block_diag(blocks, format="lil") if lay.n_flexible else None
        if stiffness is None:
            stiffness = sp.lil_matrix((n, n))
        touched = set(range(lay.n_tree))
        touched |= set(np.flatnonzero(np.any(jac != 0.0, axis=0)).tolist())
        for f in ev.compliant:
            if f.contact is not None:
                touched |= set(np.flatnonzero(f.contact.w_normal).tolist())
        columns = sorted(touched)
        if not columns:
            return stiffness.tocsc()

        def rest(y):
            r, _, _, _ = self._pieces(system, y, factor, lam)
            out = r.copy()
            out[lay.flexible] -= system.flexible_internal_force(y)
            return out

        base = rest(q)
        size = np.max(np.abs(q), initial=0.0)
        dense = np.zeros((n, len(columns)))
        for a, j in enumerate(columns):
            h = 1e-7 * max(abs(q[j]), 1e-3 * size, 1e-6)
            y = q.copy()
            y[j] += h
            try:
                dense[:, a] = (rest(y) - base) / h
            except ContactLeftStructure:
                y[j] -= 2.0 * h
                dense[:, a] = (base - rest(y)) / h
        extra = sp.csc_matrix(
            (dense.ravel(), (np.repeat(np.arange(n), len(columns)), np.tile(columns, n))),
            shape=(n, n),
        )
        return (stiffness.tocsc() + extra).tocsc()

    # -- the result -------------------------------------------------------------------------
    def result(self, q, n_iterations) -> StaticState:
        system, factor = self.final if self.final is not None else (self.system, 1.0)
        model = system.model
        keys, _ = self._keys(system)
        lam = np.array([self.rows.lam.get(k, 0.0) for k in keys])
        r, phi, _, ev = self._pieces(system, q, factor, lam)
        names = model.constraint_names()
        multipliers = np.array([self.rows.lam.get(k, np.nan) for k in names])
        normal = {}
        closed = []
        forces = {f.index: f for f in ev.compliant}
        for k, c in enumerate(model.contacts):
            if c.bilateral:
                normal[c.name] = float(self.rows.lam[c.name])
            elif k in self.rows.unilateral:
                j = self.rows.unilateral.index(k)
                normal[c.name] = float(self.rows.lam.get(("u", k), 0.0))
                if self.rows.closed[j]:
                    closed.append(c.name)
            else:
                normal[c.name] = float(forces[k].normal_force) if k in forces else 0.0
        bilateral = {c.name for c in model.contacts if c.bilateral}
        reactions = {
            name: float(value)
            for name, value in zip(names, multipliers, strict=True)
            if name not in bilateral
        }
        return StaticState(
            q=q,
            u=np.zeros_like(q),
            multipliers=multipliers,
            normal_force=normal,
            closed=tuple(closed),
            reactions=reactions,
            support_reactions=support_reactions(system, q, ev, normal),
            residual=float(np.linalg.norm(r)),
            constraint_residual=float(np.max(np.abs(phi), initial=0.0)),
            n_iterations=n_iterations,
        )


__all__ = ["DRIVES", "StaticEquilibriumError", "StaticState", "static_equilibrium"]
