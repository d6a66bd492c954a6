"""Generalised-alpha integration of the partitioned equations, for stiff beams.

The unknowns of a step are the accelerations z of the independent coordinates (the tree's
independent joints and all beam DOFs). Their positions and velocities follow the generalised-alpha
(Chung-Hulbert, in the Arnold-Bruls form) update with spectral radius ``rho_inf`` at infinite
frequency; the dependent tree coordinates are recovered from the constraints at every iterate, so
nothing drifts. The residual is the reduced equations (Lipinski (002), eqs. 78a-b) at the end of the
step, ``T_Sigma^T (M q'' + F) = 0``, solved by a modified Newton iteration whose matrix
``T_Sigma^T (M + gamma' C + beta' K) T`` is applied through the bordered system

    [[G_b, -J_Sigma,b^T], [G_c, -J_Sigma,c^T], [J_b, J_c, 0]],   G_c = M_c + gamma' C_c + beta' K_c

with G_c, built from the constant beam matrices, factorised once per step size (sparse LU, banded
pattern: the cost of a step grows linearly with the number of elements). Multipliers come from
002 eq. (76). The step size is fixed (``h``); the default 1e-4 s resolves the first beam modes of
MISSION's examples (omega h < 0.1) while the generalised-alpha damping removes the unresolved
highest ones (omega ~ 1e5 rad/s) instead of the stability limit forcing h < 2e-5 s.

Events: a contact leaving the beam, the slip velocity of a frictional contact reaching zero
(sticking is not modelled, 002 sec. 1), a normal force turning negative. Each stops the run with a
message; the history up to the last valid step is kept (and already written to disk).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse.linalg as spla

from ..coupling.contact import ContactLeftBeam, friction_force
from ..coupling.partition import (
    ConstraintError,
    PainleveError,
    Partition,
    b_matrices,
    choose_dependent,
    make_partition,
    partitioned_accelerations,
    recover_dependent,
)
from ..io.vtk import FrameWriter
from ..system import System, energies, evaluate_state, mass_times
from .result import HistoryWriter, SimulationResult


class NewtonDivergence(RuntimeError):
    """The step's Newton iteration did not converge."""


@dataclass(frozen=True)
class AlphaParameters:
    alpha_m: float
    alpha_f: float
    gamma: float
    beta: float


def alpha_parameters(rho_inf: float) -> AlphaParameters:
    """Chung-Hulbert parameters for spectral radius rho_inf in [0, 1]."""
    if not 0.0 <= rho_inf <= 1.0:
        raise ValueError(f"rho_inf must lie in [0, 1], got {rho_inf!r}")
    alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
    alpha_f = rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + alpha_f - alpha_m
    return AlphaParameters(alpha_m, alpha_f, gamma, 0.25 * (gamma + 0.5) ** 2)


def column_spec(system: System) -> list[tuple[str, str]]:
    """Names and units of the scalar history columns."""
    cols = [("t", "s")]
    for c in system.model.contacts:
        n = c.name
        cols += [
            (f"{n}_x", "m"),
            (f"{n}_element", ""),
            (f"{n}_normal_force", "N"),
            (f"{n}_friction_force", "N"),
            (f"{n}_slip_velocity", "m/s"),
            (f"{n}_gap", "m"),
        ]
    for d in system.model.drives:
        cols.append((f"drive_{d.joint}_torque", "N m or N"))
    cols += [
        ("residual_position", "m"),
        ("residual_velocity", "m/s"),
        ("tree_kinetic_energy", "J"),
        ("tree_potential_energy", "J"),
        ("beam_kinetic_energy", "J"),
        ("beam_elastic_energy", "J"),
        ("beam_gravity_energy", "J"),
        ("total_energy", "J"),
        ("work_drives", "J"),
        ("work_actuators", "J"),
        ("dissipated_damping", "J"),
        ("dissipated_friction", "J"),
        ("energy_error", "J"),
    ]
    return cols


class GeneralizedAlpha:
    """Step object: ``step()`` advances by h; ``t``, ``q``, ``u``, ``acceleration``,
    ``multipliers``, counters ``n_steps``, ``n_newton``, ``n_factorizations``."""

    def __init__(
        self,
        system: System,
        t0: float,
        q0,
        u0,
        h: float = 1e-4,
        rho_inf: float = 0.9,
        tol: float = 1e-12,
        max_newton: int = 12,
        recondition: float = 100.0,
    ):
        if not h > 0.0:
            raise ValueError(f"h must be a positive step size in s, got {h!r}")
        self.system = system
        self.h = float(h)
        self.params = alpha_parameters(rho_inf)
        self.tol = tol
        self.max_newton = max_newton
        self.recondition = recondition
        self.n_steps = 0
        self.n_halved = 0
        self.n_newton = 0
        self.n_factorizations = 0
        tree = system.tree
        self._tree_stiffness = np.array([j.stiffness for j in tree.joints])
        self._tree_damping = np.array([j.damping for j in tree.joints])
        self._g_factor = {}
        self._mass_lu = spla.splu(system.mass_beam) if system.layout.n_beam else None
        q0 = np.asarray(q0, dtype=float)
        u0 = np.asarray(u0, dtype=float)
        n = system.layout.n
        if q0.shape != (n,) or u0.shape != (n,):
            raise ValueError(f"q0 and u0 must have shape ({n},), got {q0.shape}, {u0.shape}")
        self.t = float(t0)
        ev = evaluate_state(system, q0, u0, self.t, constraints_only=True)
        self.part = self._choose(ev)
        self.q, self.u = recover_dependent(system, self.part, q0, u0, self.t)
        ev = evaluate_state(system, self.q, self.u, self.t)
        sol = partitioned_accelerations(system, ev, self.part)
        self.acceleration = sol.acceleration
        self.multipliers = sol.multipliers
        self.evaluation = ev
        self.pseudo = sol.acceleration.copy()
        self.check_painleve(ev)

    # -- partition -------------------------------------------------------------------------
    def _choose(self, ev) -> Partition:
        part = make_partition(self.system, choose_dependent(ev.jac[:, self.system.layout.tree]))
        self._cond0 = self._cond(ev, part)
        return part

    @staticmethod
    def _cond(ev, part) -> float:
        if part.dependent.size == 0:
            return 1.0
        return float(np.linalg.cond(ev.jac[:, part.dependent]))

    # -- linear algebra ----------------------------------------------------------------------
    def _g_lu(self, h: float):
        if h not in self._g_factor:
            p = self.params
            bp = h * h * p.beta * (1 - p.alpha_f) / (1 - p.alpha_m)
            gp = h * p.gamma * (1 - p.alpha_f) / (1 - p.alpha_m)
            s = self.system
            G = (s.mass_beam + gp * s.damping_beam + bp * s.stiffness_beam).tocsc()
            self._g_factor[h] = (spla.splu(G), bp, gp)
            self.n_factorizations += 1
        return self._g_factor[h]

    def _bordered_solve(self, ev, rhs, h):
        """X with T_Sigma^T G T X_ind = -r (rhs = -r on the independent entries, zero elsewhere)."""
        s = self.system
        lay = s.layout
        lu, bp, gp = self._g_lu(h)
        m = ev.phi.size
        G_b = ev.mass_tree + gp * np.diag(self._tree_damping) + bp * np.diag(self._tree_stiffness)
        Js_b = ev.jac_sigma[:, lay.tree]
        Js_c = ev.jac_sigma[:, lay.beam]
        J_b = ev.jac[:, lay.tree]
        J_c = ev.jac[:, lay.beam]
        R_b, R_c = rhs[lay.tree], rhs[lay.beam]
        Wr = lu.solve(R_c)
        W = lu.solve(np.ascontiguousarray(Js_c.T)) if m else np.zeros((lay.n_beam, 0))
        top = np.hstack([G_b, -Js_b.T])
        bottom = np.hstack([J_b, J_c @ W])
        small = np.vstack([top, bottom])
        x = np.linalg.solve(small, np.concatenate([R_b, -J_c @ Wr]))
        X = np.empty(lay.n)
        X[lay.tree] = x[: lay.n_tree]
        X[lay.beam] = Wr + W @ x[lay.n_tree :]
        return X

    def check_painleve(self, ev) -> None:
        """Raise PainleveError when friction makes J M^-1 J_Sigma^T lose definiteness (001 10.3.13)."""
        s = self.system
        if not any(c.mu > 0 for c in s.model.contacts):
            return
        lay = s.layout
        Minv_J = np.empty((lay.n, ev.phi.size))
        Minv_Js = np.empty_like(Minv_J)
        Minv_J[lay.tree] = np.linalg.solve(ev.mass_tree, ev.jac[:, lay.tree].T)
        Minv_Js[lay.tree] = np.linalg.solve(ev.mass_tree, ev.jac_sigma[:, lay.tree].T)
        if lay.n_beam:
            Minv_J[lay.beam] = self._mass_lu.solve(np.ascontiguousarray(ev.jac[:, lay.beam].T))
            Minv_Js[lay.beam] = self._mass_lu.solve(
                np.ascontiguousarray(ev.jac_sigma[:, lay.beam].T)
            )
        D0 = ev.jac @ Minv_J
        D = ev.jac @ Minv_Js
        scale = np.max(np.abs(np.linalg.eigvalsh(0.5 * (D0 + D0.T))))
        worst = np.min(np.real(np.linalg.eigvals(D)))
        if worst <= 1e-9 * scale:
            names = ", ".join(f"{c.name} (mu = {c.mu})" for c in s.model.contacts if c.mu > 0)
            state = ", ".join(f"{v:.6g}" for v in ev.q[lay.tree])
            raise PainleveError(
                f"friction too large at t = {ev.t:.6g} s (Painleve case, 001 remark 10.3.13): "
                f"J M^-1 J_Sigma^T has an eigenvalue {worst:.3e} <= 0, so the normal force is not "
                f"determined; contacts: {names}; tree coordinates q = [{state}]"
            )

    def _consistent(self, ev) -> bool:
        """Position and velocity constraints hold at the evaluated state to tol (m, m/s)."""
        if ev.phi.size == 0:
            return True
        velocity = ev.jac @ ev.u + ev.phi_t
        return bool(np.max(np.abs(ev.phi)) <= self.tol and np.max(np.abs(velocity)) <= self.tol)

    # -- stepping ------------------------------------------------------------------------------
    def step(self):
        """Advance by h; returns the new Evaluation. Raises on failure (state unchanged)."""
        s = self.system
        p = self.params
        h = self.h
        part = self.part
        ind, U = part.independent, part.dependent
        nv = part.independent_tree.size
        lu, bp, gp = self._g_lu(h)
        t1 = self.t + h
        y_n, v_n = self.q[ind], self.u[ind]
        ydd_n, a_n = self.acceleration[ind], self.pseudo[ind]
        ydd = ydd_n.copy()
        slip_sign = self.evaluation.slip_sign
        last = None
        prev = self.evaluation  # the dependent coordinates follow by Newton steps from here
        q1, u1 = self.q, self.u
        for _ in range(self.max_newton):
            a1 = (p.alpha_f * ydd_n + (1 - p.alpha_f) * ydd - p.alpha_m * a_n) / (1 - p.alpha_m)
            q1 = (q1 if prev is None else prev.q).copy()
            u1 = (u1 if prev is None else prev.u).copy()
            q1[ind] = y_n + h * v_n + h * h * ((0.5 - p.beta) * a_n + p.beta * a1)
            u1[ind] = v_n + h * ((1 - p.gamma) * a_n + p.gamma * a1)
            if prev is None:
                q1, u1 = recover_dependent(s, part, q1, u1, t1)
            else:
                q1, u1 = _dependent_newton_step(prev, part, q1, u1, t1)
            ev = evaluate_state(s, q1, u1, t1, slip_sign=slip_sign)
            B1, B2, B3, B4, B5 = b_matrices(ev, part, s.layout.n_tree)
            acc = np.empty(s.layout.n)
            acc[ind] = ydd
            acc[U] = -(B1 @ ydd[:nv] + B2 @ ydd[nv:] + B3)
            e = mass_times(s, ev, acc) + ev.forces
            r = e[ind] - np.hstack([B4, B5]).T @ e[U]
            rhs = np.zeros(s.layout.n)
            rhs[ind] = -r
            delta = self._bordered_solve(ev, rhs, h)[ind]
            self.n_newton += 1
            last = delta
            if np.max(np.abs(bp * delta)) <= self.tol:
                # The correction would move the positions by less than tol: the evaluated state
                # (q1, u1, acc) is the converged one, consistent with ydd, so keep it as it is,
                # provided it satisfies the constraints (the dependent coordinates come from one
                # Newton step per iterate, which converges along with the iterates).
                if self._consistent(ev):
                    break
                prev = None  # recover the dependent coordinates exactly in the next iterate
            else:
                prev = ev
            ydd = ydd + delta
        else:
            raise NewtonDivergence(
                f"Newton did not converge in {self.max_newton} iterations at t = {t1:.6g} s "
                f"(last position correction {np.max(np.abs(bp * last)):.3e}); try a smaller h"
            )
        lam = np.linalg.solve(ev.jac_sigma[:, U].T, e[U]) if U.size else np.zeros(0)
        self.t, self.q, self.u = t1, q1, u1
        self.acceleration = acc
        self.pseudo = acc.copy()
        self.pseudo[ind] = a1
        self.multipliers = lam
        self.evaluation = ev
        self.n_steps += 1
        if self._cond(ev, part) > self.recondition * max(self._cond0, 1.0):
            self.part = self._choose(ev)
        return ev


def advance(stepper: GeneralizedAlpha, h: float, max_halvings: int = 0):
    """One step of h; on NewtonDivergence two steps of h/2 (recursively, ``max_halvings`` deep).
    Returns the Evaluation at t + h. The stepper's h is restored on return."""
    try:
        stepper.h = h
        return stepper.step()
    except NewtonDivergence:
        if max_halvings <= 0:
            raise
    stepper.n_halved += 1
    try:
        advance(stepper, 0.5 * h, max_halvings - 1)
        return advance(stepper, 0.5 * h, max_halvings - 1)
    finally:
        stepper.h = h


def _dependent_newton_step(ev, part, q, u, t: float):
    """Dependent coordinates and velocities for new independent ones in q, u by one Newton step of
    the constraints from the evaluated state ev (its phi, J, phi_t at ev.q, ev.t):
    phi + J (q - ev.q) + phi_t (t - ev.t) = 0 and J u + phi_t = 0, solved for q_U, u_U."""
    U, ind = part.dependent, part.independent
    if U.size == 0:
        return q, u
    J_u, J_i = ev.jac[:, U], ev.jac[:, ind]
    rhs_q = ev.phi + J_i @ (q[ind] - ev.q[ind]) + ev.phi_t * (t - ev.t)
    rhs_u = J_i @ u[ind] + ev.phi_t
    try:
        sol = np.linalg.solve(J_u, np.column_stack([rhs_q, rhs_u]))
    except np.linalg.LinAlgError:
        raise ConstraintError(f"J_u is singular at t = {t:g} s") from None
    q[U] = ev.q[U] - sol[:, 0]
    u[U] = -sol[:, 1]
    return q, u


def _row(system: System, ev, lam, acc_state, t, work) -> dict:
    row = {"t": t}
    model = system.model
    for i, (spec, c) in enumerate(zip(model.contacts, ev.contacts, strict=True)):
        n = spec.name
        normal = lam[i]
        friction = friction_force(c, spec.mu, normal, np.sign(c.slip_velocity))
        row[f"{n}_x"] = c.parameter
        row[f"{n}_element"] = c.element
        row[f"{n}_normal_force"] = normal
        row[f"{n}_friction_force"] = float(friction @ c.tangent)
        row[f"{n}_slip_velocity"] = c.slip_velocity
        row[f"{n}_gap"] = c.gap
    n_c = len(model.contacts)
    for k, d in enumerate(model.drives):
        row[f"drive_{d.joint}_torque"] = lam[n_c + k]
    row["residual_position"] = float(np.max(np.abs(ev.phi))) if ev.phi.size else 0.0
    vel = ev.jac @ ev.u + ev.phi_t
    row["residual_velocity"] = float(np.max(np.abs(vel))) if vel.size else 0.0
    E = acc_state
    row["tree_kinetic_energy"] = E.tree_kinetic
    row["tree_potential_energy"] = E.tree_potential
    row["beam_kinetic_energy"] = E.beam_kinetic
    row["beam_elastic_energy"] = E.beam_elastic
    row["beam_gravity_energy"] = E.beam_gravity
    row["total_energy"] = E.total
    row.update(work)
    return row


def _powers(system: System, ev, lam, E) -> dict:
    model = system.model
    n_c = len(model.contacts)
    drive = sum(lam[n_c + k] * ev.u[d.joint] for k, d in enumerate(model.drives))
    friction = sum(
        -spec.mu * abs(lam[i]) * abs(c.slip_velocity)
        for i, (spec, c) in enumerate(zip(model.contacts, ev.contacts, strict=True))
    )
    return {
        "work_drives": float(drive),
        "work_actuators": E.actuator_power,
        "dissipated_damping": E.damping_power,
        "dissipated_friction": -float(friction),
    }


def integrate(
    system: System,
    t_span: tuple[float, float],
    q0,
    u0,
    h: float = 1e-4,
    rho_inf: float = 0.9,
    out=None,
    progress: bool | None = None,
    store_every: int = 1,
    tol: float = 1e-12,
    vtk=None,
    vtk_stride: int = 1,
    max_halvings: int = 3,
    max_newton: int = 12,
) -> SimulationResult:
    """Integrate from t_span[0] to t_span[1] with a fixed step h (s).

    q0, u0 : (n,) initial coordinates and velocities; the dependent ones are corrected to satisfy
    the constraints. out : folder for ``history.csv`` written step by step (None: no file).
    vtk : folder for a ParaView series ``frames.pvd`` + ``frames_*.vtu`` (beam, tree, contact
    forces; see ``fe_contact.io.vtk.frame_blocks``) written as the run goes, every ``vtk_stride``-th
    step plus the last one; the index is rewritten after each frame, so a run that stops early
    leaves a valid series up to that point (None: no VTK). max_halvings : a step whose Newton
    iteration does not converge is retried as two steps of h/2, recursively up to this depth,
    before the run stops (the histories keep the step h; ``n_halved`` counts the retries).
    max_newton : Newton iterations allowed per step.
    Returns a SimulationResult; it never raises for a failing run after the start: the status and
    message say what happened and everything computed so far is kept.
    """
    t0, t_end = map(float, t_span)
    if not t_end > t0:
        raise ValueError(f"t_span must be increasing, got {t_span!r}")
    if store_every < 1:
        raise ValueError(f"store_every must be >= 1, got {store_every!r}")
    if isinstance(max_halvings, bool) or not isinstance(max_halvings, int) or max_halvings < 0:
        raise ValueError(f"max_halvings must be an integer >= 0, got {max_halvings!r}")
    if (
        isinstance(vtk_stride, bool)
        or not isinstance(vtk_stride, int | np.integer)
        or vtk_stride < 1
    ):
        raise ValueError(
            f"vtk_stride must be an integer >= 1 (steps per frame), got {vtk_stride!r}"
        )
    wall0 = time.perf_counter()
    stepper = GeneralizedAlpha(
        system, t0, q0, u0, h=h, rho_inf=rho_inf, tol=tol, max_newton=max_newton
    )
    cols = column_spec(system)
    writer = HistoryWriter(Path(out) / "history.csv", cols) if out else None
    names = [c for c, _ in cols]
    frames = FrameWriter(system, vtk) if vtk is not None else None
    friction_columns = [f"{c.name}_friction_force" for c in system.model.contacts]
    store = {c: [] for c in names}
    ts, qs, us, lams = [], [], [], []
    work = {
        "work_drives": 0.0,
        "work_actuators": 0.0,
        "dissipated_damping": 0.0,
        "dissipated_friction": 0.0,
    }
    ev = stepper.evaluation
    E = energies(system, stepper.q, stepper.u, stepper.t)
    E0 = E.total
    powers = _powers(system, ev, stepper.multipliers, E)

    def record(step: int, force=False):
        row = _row(system, ev, stepper.multipliers, E, stepper.t, work)
        row["energy_error"] = (
            row["total_energy"]
            - E0
            - (work["work_drives"] + work["work_actuators"])
            + work["dissipated_damping"]
            + work["dissipated_friction"]
        )
        if writer:
            writer.write(row)
        if frames is not None and (force or step % vtk_stride == 0):
            frames.write_state(
                stepper.t,
                stepper.q,
                stepper.u,
                stepper.multipliers,
                np.array([row[c] for c in friction_columns]),
            )
        if force or step % store_every == 0:
            for c in names:
                store[c].append(row[c])
            ts.append(stepper.t)
            qs.append(stepper.q.copy())
            us.append(stepper.u.copy())
            lams.append(stepper.multipliers.copy())

    record(0, force=True)
    n_total = int(np.ceil((t_end - t0) / h - 1e-9))
    status, message = "finished", f"reached t = {t_end:g} s"
    bar = None
    if progress is None:
        progress = sys.stderr.isatty()
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=n_total, desc="integrating", unit="step", leave=False)
    try:
        for macro in range(1, n_total + 1):
            prev_sign = ev.slip_sign.copy()
            try:
                ev_new = advance(stepper, h, max_halvings)
            except ContactLeftBeam as err:
                status, message = "event", f"{err} near t = {stepper.t + h:.6g} s"
                break
            lam = stepper.multipliers
            stop = None
            for i, spec in enumerate(system.model.contacts):
                c = ev_new.contacts[i]
                if spec.mu > 0 and np.sign(c.slip_velocity) != prev_sign[i]:
                    stop = (
                        f"slip velocity of contact {spec.name!r} reached zero near t = "
                        f"{stepper.t:.6g} s: sticking is not modelled yet (slip only, 002 sec. 1)"
                    )
                elif lam[i] < 0.0:
                    stop = (
                        f"normal force of contact {spec.name!r} turned negative ({lam[i]:.4g} N) "
                        f"near t = {stepper.t:.6g} s: the bilateral contact would separate"
                    )
            if stop:
                status, message = "event", stop
                break
            ev = ev_new
            stepper.check_painleve(ev)
            E = energies(system, stepper.q, stepper.u, stepper.t)
            new_powers = _powers(system, ev, lam, E)
            for k in work:
                work[k] += 0.5 * h * (powers[k] + new_powers[k])
            powers = new_powers
            record(macro, force=stepper.t >= t_end - 1e-12)
            if bar:
                bar.update(1)
    except (PainleveError, ConstraintError, NewtonDivergence, np.linalg.LinAlgError) as err:
        status, message = "failed", f"{type(err).__name__}: {err}"
    finally:
        if bar:
            bar.close()
        if writer:
            writer.close()
    if ts[-1] != stepper.t and status == "finished":
        record(n_total, force=True)
    if frames is not None:
        frames.close()  # the index is also rewritten after every frame, so nothing is lost on error
    return SimulationResult(
        t=np.asarray(ts),
        q=np.asarray(qs),
        u=np.asarray(us),
        multipliers=np.asarray(lams).reshape(len(ts), -1),
        constraint_names=system.model.constraint_names(),
        columns={c: np.asarray(v) for c, v in store.items()},
        status=status,
        message=message,
        n_steps=stepper.n_steps,
        n_halved=stepper.n_halved,
        n_newton=stepper.n_newton,
        n_factorizations=stepper.n_factorizations,
        wall_time=time.perf_counter() - wall0,
    )
