"""Moreau-Jean time stepping on the common System, Eugster-Glocker (004), secs. 4.4-4.5.

Every contact pair of the model must have a ``Unilateral`` law (set-valued unilateral contact and
Coulomb friction, 004 eqs. 26-27, Newton's impact law); a ``Compliant`` law is a force law of the
generalised-alpha stepper and is rejected here. Drives and loop closures are bilateral
constraints on impulse level (step 3). A step of size h (theta in [1/2, 1]) from (q_A, u_A):

1. predictor q_P = q_A + theta h u_A;
2. smooth forces at q_P: tree bias forces F_t(q_P, u_A, t) (gravity, Coriolis, joint springs,
   dampers, actuators; 002 eq. 7) and structure forces Q_f - f_int(q_P) - C_f u_A; the effective
   mass ``M_eff = blockdiag(M_t(q_P) + theta h C_j + theta^2 h^2 K_j, M_f + theta h C_f +
   theta^2 h^2 K_t(q_P))`` (C_j, K_j the joint dampers and springs, K_t the structures' tangent):
   Jean's theta method linearised about q_P, so stiff structures do not limit h;
3. drives and loop closures (rows J at q_P): impulses Lambda with ``J u_E = b`` chosen so that
   the linearised constraints hold at the end of the step, phi(q_A, t + h) + J (q_E - q_A) = 0
   (exact for drives, which are linear in q; for loops the residual is O(h^2) per step and does
   not accumulate, since each step starts from phi(q_A)). They are eliminated with the Schur
   complement J M_eff^-1 J^T, so the contacts below see the constrained mass; their mean forces
   Lambda / h are the report's ``multipliers`` and ``drive_forces``, and a drive does the work
   Lambda . J (u_A + u_E) / 2. A start that violates them is corrected in the first step;
4. closed contacts (g_N(q_P) <= 0): candidate grids (004 eq. 20; ``steppers.grid_pairs``, the
   scan of a state's gaps kept for its rows and geometry), closest points on structures or
   rigid lines (``coupling.kinematics``), and the one candidate pair of a curved profile
   against a profile or a structure's centre line (Bauchau (000), eqs. 5-7, 14, 17;
   ``coupling.profile_contact``, the kinematics of the generalised-alpha stepper: W_N, W_T are
   the normal and tangential rows of the relative velocity of the two material points);
   ``W = [W_N, W_T]``, Delassus ``G = W^T M_eff^-1 W``
   and the impulses from ``xi = W^T u_E + e W^T u_A`` in the normal cones
   (``coupling.setvalued.solve_contact_impulses``). This is Newton's impact law of
   ``coupling.impact.newton_impact`` with the smooth forces' free velocity in the offset
   (the same problem and solver at h = 0); it is posed here, on every closed contact and
   started from zero impulses (the closed set changes from step to step), because its offset
   and settings are the step's;
5. ``u_E = u_A + M_eff^-1 (h f + J^T Lambda + W P)``, ``q_E = q_A + h u_A + theta h (u_E - u_A)``.

A (sub-)step after which a candidate would penetrate deeper than ``penetration_tolerance`` is
replaced by two half steps, recursively up to ``max_halvings`` (the scheme of the disk-on-string
stepper).

A tree with one structure, a string whose tension law is compiled or a linear beam, and
candidate grids alone, on the beam also a last closest-point pair (the disk on the string, the
disk on the beam, a pendulum hitting it, the belt drive: drives and loop closures with their
rows J and right-hand side b of step 3 evaluated here and handed in), and linear beams with
or without a tree whose last pair is a profile on a body carried by a beam against a beam's
centre line (the two beams of ``examples/plot_two_beams.py``) takes each sub-step in
one compiled call
(``kernels.moreau.substep``, orchestrated by ``steppers.moreau_substep``: steps 1 to 5, the penetration checks and the work columns
below, by the kernels this module calls one by one, in the same order); the Python sub-step
takes over where that call hands the sub-step back: a contact problem that needs more than
the warm sweeps and active-set Newton, a singular block, a state that is not finite. That call
also returns the energies of its end state (``system.energies``' terms; with string damping
those are evaluated in Python, the damping power needing the tangent at q_E; a linear beam's
damping power is the kernel's). In a run
(``simulate``) such steps are taken as a batch (``steps``, ``steppers.moreau_batch``): each
step still one ``step()``, its history columns computed for the batch from flat per-step
values, without a ``ContactReport`` per step (a halved step's sub-steps summed as the report
sums them); the first step with a sub-step handed back ends the batch and is reported as
usual.

Energy. With [x] = x_E - x_A, u_theta = (1 - theta) u_A + theta u_E and q_theta = q_A + theta
[q], step 5 is [q] = h u_theta and, step 2 written out (M = blockdiag(M_t(q_P), M_f)),

    M [u] = h (F_e - g~ - C u_theta) + J^T Lambda + W P,   g~ = g(q_P) + K_t(q_P) (q_theta - q_P),

with g = dV/dq the conservative forces (the structures' f_int less their constant loads, the
joint springs; the tree's gravity and Coriolis terms stay at (q_P, u_A)), C the dampers and F_e
the joint actuators at t_A; q_theta - q_P = theta^2 h [u], so g~ = g(q_theta) + O(h^4). For
E = u^T M u / 2 + V(q), with <u> = (u_A + u_E) / 2 = u_theta - (theta - 1/2) [u] and the
trapezoidal rule V_E - V_A = [q] . (g_A + g_E) / 2 + R (R = O(|[q]|^3), 0 for quadratic V):

    E_E - E_A = h u_theta . F_e - h u_theta . C u_theta + u_theta . (J^T Lambda + W P)
                - (theta - 1/2) ([u]^T M [u] + [q] . (g_E - g_A)) + R + [q] . (g_theta - g~),

with g_theta = (1 - theta) g_A + theta g_E = g(q_theta) + O(|[q]|^2): the last two terms are
O(|[q]|^3), O(h^3) per step (0 for linear structures and joint springs, where g_theta = g~ =
g(q_theta)). They are the only terms not booked below: on the belt drive (``papers.belt``) they
are the balance's whole error, step by step to round-off, and since a step halved for a deep
closing has a smaller |[q]|, the error comes from the largest sub-steps. A tree
whose mass matrix varies adds the error of M(q_P) and of the gravity and Coriolis forces at
(q_P, u_A), O(h^2) per step at any theta (a double pendulum: 8.2e-7, 2.0e-7, 5.1e-8 J per step
at h = 1, 0.5, 0.25 ms and theta = 1/2, the same at 0.7, where 5e-3 J is booked as the loss).

Each term is booked: ``work_loads`` h u_theta . F_e, ``dissipated_damping`` h u_theta . C(q_P)
u_theta (>= 0), ``work_drives`` Lambda . J u_theta (loop closures do no work on a rigid tree),
the impulses' work P . W^T u_theta split by
``impulse_work`` (with this theta) into ``dissipated_impact``, ``dissipated_friction`` and
``work_contact_timing``, each >= 0 in every step, and the scheme's own loss
``dissipated_numerical`` = (theta - 1/2) ([u]^T M(q_P) [u] + [q] . (g(q_E) - g(q_A))): exact
for linear structures (then [q]^T K [q] >= 0), 0 for theta = 1/2, consistent for strings. It is
computed from the step's increments alone, never as the balance's remainder: ``energy_error``
stays the scheme's real error: round-off for linear structures and a constant mass, O(h^3) per
step on strings.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lu_factor
from scipy.linalg.lapack import dgetrf, dgetrs

from .. import validation as check
from ..columns import WORK_KEYS
from ..coupling.constraints import evaluate_state
from ..coupling.contact_points import contact_gaps, contact_points, pair_kind
from ..coupling.setvalued import solve_contact_impulses
from ..kernels import moreau as kernels
from ..multibody.tree import (
    actuator_forces,
    bias_forces,
    equations_of_motion,
    mass_matrix,
)
from ..system import System, energies
from .base import SingularSystem, Stepper, check_start
from .closed_contacts import ClosedContacts
from .contact_report import ContactReport, open_contact, pair_state, point_states
from .effective_mass import FlexibleBlock
from .grid_pairs import GridPair
from .impulse_work import impulse_work
from .moreau_batch import (
    BATCH_STEPS,
    FlatStep,
    MoreauBatch,
    closest_values,
    compiled_report,
    pair_values,
)
from .moreau_substep import (
    ClosedCandidates,
    Substep,
    WholeSubstep,
    merged_substeps,
    summed_substeps,
)
from .step_report import StepReport


def _lu(matrix):
    """LU factors (lu, piv) of a small dense matrix by LAPACK's getrf, those of
    ``scipy.linalg.lu_factor`` without its per-call checks (a non-finite or singular matrix
    goes to lu_factor itself, for its error or warning)."""
    lu, piv, info = dgetrf(matrix)
    if info != 0 or not np.all(np.isfinite(lu)):
        return lu_factor(matrix)
    return lu, piv


def _lu_solve(factors, rhs):
    """x of A x = rhs, (k,) or (k, j), from ``_lu``'s factors (getrs, as ``lu_solve``)."""
    return dgetrs(factors[0], factors[1], rhs)[0]


class _EffectiveMass:
    """The factors of a sub-step's effective mass M_eff = blockdiag(tree, structures) (module
    docstring, step 2): the tree's dense LU (``kernels.moreau.tree_factor``) and the
    structures' banded LU (``kernels.band.band_lu_factor``); ``solve(b)`` for b (n,) or (n, k)
    (``kernels.moreau.block_solve``), also by calling it."""

    def __init__(self, tree_lu, tree_piv, band_lu, band_piv, band):
        self.factors = (tree_lu, tree_piv, band_lu, band_piv, int(band))

    def solve(self, rhs):
        rhs = np.asarray(rhs, dtype=float)
        if rhs.ndim == 1:
            return kernels.block_solve(*self.factors, np.ascontiguousarray(rhs[:, None]))[:, 0]
        return kernels.block_solve(*self.factors, np.ascontiguousarray(rhs))

    __call__ = solve


_NO_TREE = (np.zeros((0, 0)), np.zeros(0, dtype=np.int64))  # the factors of an empty block
_NO_BAND = (np.zeros((1, 0)), np.zeros(0, dtype=np.int64), 0)


def _all_open(contact) -> bool:
    """Are all the closed points of a ContactReport open (no impulse)?"""
    states = contact.point_state
    return states is not None and all(p == "open" for p in states)


class MoreauJean(Stepper):
    """Step object (see the module docstring): ``step()`` advances by h; attributes t, q, u,
    counters n_steps, n_substeps, n_newton (contact solver sweeps), n_rejected.

    ``events`` lists each pair's changes of state from one step's report to the next, (t [s],
    contact name, kind): "impact" (an open pair closes), "open" (a closed pair opens), "stick"
    and "slip" (``ContactReport.state``; a pair whose closed points all took no impulse counts
    as open). Unlike the generalised-alpha stepper's, they are not located in time: t is the
    end of the step whose contact problem saw the change. A pair closes in the first step whose
    predictor q_P = q_A + theta h u_A has a gap <= 0, so at theta = 1/2 a touch-down at t_c is
    listed at a t with t - 3h/2 < t_c <= t - h/2. A pair closed at the start (gap within
    ``touch_tolerance``) starts closed, so resting on a support is no impact; slip reversals
    are not detected."""

    method = "moreau"

    def __init__(
        self,
        system: System,
        t0: float,
        q0,
        u0,
        h: float = 1e-3,
        theta: float = 0.5,
        tol: float = 1e-9,
        max_iterations: int = 2000,
        penetration_tolerance: float | None = 1e-5,
        max_halvings: int = 10,
    ):
        h, q0, u0 = check_start(system, h, q0, u0, self.method)
        theta = check.real("theta", theta, low=0.5, high=1.0)
        model = system.model
        bilateral = [c.name for c in model.contacts if c.bilateral]
        compliant = [c.name for c in model.contacts if c.compliant]
        if compliant:  # a force law, not a set-valued one
            raise ValueError(
                f"contacts {compliant} have Compliant laws, which the Moreau-Jean stepper does "
                "not take (allowed: Unilateral, or method='generalized-alpha')"
            )
        if bilateral:
            raise ValueError(
                f"contacts {bilateral} have Sliding laws; the Moreau-Jean stepper takes "
                "Unilateral laws (allowed: Unilateral, or method='generalized-alpha')"
            )
        refused = [c.name for c in model.contacts if "moreau" not in c.law.steppers]
        if refused:  # Poisson's impact law, or a user's law that does not say it takes moreau
            raise ValueError(
                f"contacts {refused} have laws the Moreau-Jean stepper does not take (Poisson's "
                "impact law among them; allowed: Unilateral with impact='newton', or "
                "method='generalized-alpha')"
            )
        if penetration_tolerance is not None:
            penetration_tolerance = check.real(
                "penetration_tolerance", penetration_tolerance, low=0.0, unit="m"
            )
            penetration_tolerance = penetration_tolerance or None  # 0: fixed steps, as None
        max_halvings = check.integer("max_halvings", max_halvings, low=0)
        max_iterations = check.positive_int("max_iterations", max_iterations)
        tol = check.real("tol", tol, low=0.0, low_open=True, unit="m/s")
        Stepper.__init__(self, system, t0, h)
        self._n_bilateral = len(model.constraint_names())  # drives, then loop rows
        self._h_step = self.h  # size of the step being reported
        self.theta = float(theta)
        self.tol = tol
        self.max_iterations = max_iterations
        self.penetration_tolerance = penetration_tolerance
        # A contact closes at gaps up to a few ulp of the positions (16 eps of the longest
        # structure, at least of 1 m): a body resting where a static solve left it has a gap of
        # round-off size of either sign (+7e-19 m on some BLAS kernels), and an open start would
        # drop it for a step and set the loaded structure ringing.
        lengths = [getattr(st, "length", 0.0) for st in system.structures.values()]
        self.touch_tolerance = 16.0 * np.finfo(float).eps * max([1.0, *lengths])
        self.max_halvings = int(max_halvings)
        self._t0 = self.t
        self.q, self.u = q0, u0
        self.n_rejected = 0
        tree = system.tree
        joints = () if tree is None else tree.joints
        self._k_joint = np.array([j.stiffness for j in joints])
        self._c_joint = np.array([j.damping for j in joints])
        self._newton0 = 0  # n_newton at the start of the current step
        self._s = {}  # warm starts of closest points per pair
        laws = [c.law for c in model.contacts]
        self._mu = np.array([lw.mu for lw in laws], dtype=float)
        newton = [lw.impact_phases()[0] for lw in laws]  # one phase: Newton's (checked above)
        self._e_normal = np.array([p.restitution_normal for p in newton], dtype=float)
        self._e_tangent = np.array([p.restitution_tangent for p in newton], dtype=float)
        self._gap_cache = {}  # q.tobytes() -> {pair: gaps or GridScan} of grid, line pairs
        self._grid = {  # the grid pairs on their checked constants
            k: GridPair(system, k)
            for k in range(len(model.contacts))
            if pair_kind(system, k) == "grid"
        }
        self._kinds = [pair_kind(system, k) for k in range(len(model.contacts))]
        self._end_forces = None  # (q, conservative forces at q) of the last sub-step's end
        self._end_strain = None  # (q, the strings' strain energies at q) of the same state
        self._tree_mass = (None, None)  # (q_P, M_t(q_P)) of the last ``_smooth``
        self._flexible = FlexibleBlock(system) if system.layout.n_flexible else None
        self.events = []
        self._pair_states = None  # per pair "open", "closed" (at the start), "stick", "slip"
        self._whole = WholeSubstep.plan(self)  # the sub-step in one compiled call, or None
        # sub-steps completed in one compiled call, and those it handed to the Python sub-step
        self.n_compiled = self.n_fallback = 0
        self._flat = False  # in ``steps``: a compiled step kept as a ``FlatStep``
        self._stashed = None  # the report or error of the step that ended a batch

    # -- smooth part --------------------------------------------------------------------------
    def _smooth(self, q_p, u_a, t, h):
        """Impulse h f of the smooth forces and a solver for M_eff (``_EffectiveMass``), both at
        q_P."""
        s = self.system
        lay = s.layout
        theta = self.theta
        force = np.zeros(lay.n)
        tree = _NO_TREE
        if s.tree is not None:
            eom = equations_of_motion(s.tree, q_p[lay.tree], u_a[lay.tree], t)
            force[lay.tree] = -eom.bias_forces
            self._tree_mass = (q_p, eom.mass_matrix)  # M_t(q_P), for ``_smooth_work``
            lu, piv, rcond = kernels.tree_factor(
                np.ascontiguousarray(eom.mass_matrix, dtype=float),
                self._c_joint,
                self._k_joint,
                theta * h,
                theta**2 * h**2,
            )
            if lay.n_tree and not rcond > 0.0:
                raise np.linalg.LinAlgError("the tree's effective mass is singular or not finite")
            tree = (lu, piv)
        flexible = _NO_BAND
        if lay.n_flexible:
            force[lay.flexible], factor = self._flexible.step(
                q_p[lay.flexible], u_a[lay.flexible], theta, h
            )
            flexible = (factor.lu, factor.piv, factor.band)
        return h * force, _EffectiveMass(*tree, *flexible)

    # -- contacts -----------------------------------------------------------------------------
    def gaps(self, q) -> list[np.ndarray]:
        """Gaps of every candidate of every pair at q, m (one array per pair;
        ``coupling.contact_points.contact_gaps``; +inf where a pair has no contact point).

        The gaps of grid, line and curved pairs depend on q alone: those of the last few states
        are kept (a sub-step's end state is the next one's start and the step's end state). A
        closest-point pair is computed afresh: its search is warm-started from (and moves) the
        pair's last contact parameter."""
        return [getattr(g, "gap", g) for g in self._scan(q)]

    def _scan(self, q) -> list:
        """Per pair at q: a grid pair's ``GridScan`` (gaps, centre, material points), else the
        gaps (``gaps``)."""
        out = []
        known = self._known(q)
        for k in range(len(self.system.model.contacts)):
            if k in known:
                out.append(known[k])
                continue
            if k in self._grid:
                out.append(self._grid[k].scan(q))
                known[k] = out[-1]
                continue
            points = contact_gaps(self.system, k, q, self._s.get(k), self.workspace)
            out.append(points.gap)
            if points.kind != "closest":
                known[k] = points.gap
            elif not points.missing:
                self._s[k] = float(points.parameter[0])
        return out

    def _known(self, q) -> dict:
        """The kept scans of q, {pair: gaps or GridScan} (those of the last few states)."""
        key = q.tobytes()
        known = self._gap_cache.get(key)
        if known is None:
            if len(self._gap_cache) >= 4:
                self._gap_cache.clear()
            known = self._gap_cache[key] = {}
        return known

    def _closed(self, q, u, gaps, with_rows: bool = True) -> ClosedContacts:
        """The candidates with gaps <= ``touch_tolerance`` (round-off) at (q, u), their rows
        from ``coupling.contact_points.contact_points`` (a closest-point pair at the parameter
        the last ``gaps`` found); with_rows=False: the geometry of the grid pairs' points alone
        (no W columns: w_n and w_t are None when a grid pair is closed)."""
        s = self.system
        cl = ClosedContacts(s.layout.n)
        scans = None
        for k in range(len(s.model.contacts)):
            which = np.flatnonzero(gaps[k] <= self.touch_tolerance)
            if not which.size:
                continue
            keys = [(k, int(i)) for i in which]
            if k in self._grid:  # the checked constants, the scan of q kept by ``gaps``
                scans = self._scan(q) if scans is None else scans
                grid = self._grid[k]
                if with_rows:
                    gap, normal, tangent, w_n, w_t, point, s_i = grid.rows(q, u, which, scans[k])
                else:
                    gap, normal, tangent, point, s_i = grid.geometry(which, scans[k])
                    w_n = w_t = None
                cl.add(k, keys, w_n, w_t, point, normal, tangent, s_i, gap)
                continue
            closest = self._kinds[k] == "closest"
            p = contact_points(
                s,
                k,
                q,
                u,
                rows=with_rows,
                remainder=False,
                candidates=which,
                parameter=self._s[k] if closest else None,
                workspace=self.workspace,
            )
            if p.missing or not np.all(np.isfinite(p.point)):
                continue  # no contact point, or a curved pair's polygons apart: open
            keys = [(k, int(i)) for i in p.key]
            cl.add(
                k, keys, p.w_normal, p.w_tangent, p.point, p.normal, p.tangent, p.parameter, p.gap
            )
        return cl.finish()

    # -- stepping -----------------------------------------------------------------------------
    def _step_impl(self, h: float | None) -> StepReport:
        """Advance by h (default: the stepper's h; ``simulate`` shortens the last step so that
        it ends on t_end), in sub-steps where a contact closes too deep. Raises
        ContactSolverError when a contact problem does not converge (state unchanged)."""
        q_a, u_a = self.q, self.u
        if self._pair_states is None:  # initial_report() not called: the start's states
            self._pair_states = self._start_states()
        if h is None:
            h = self.h
            t_end = self._t0 + (self.n_steps + 1) * self.h  # no round-off drift of t
        else:
            t_end = self.t + h
        self._h_step = h
        self._newton0 = self.n_newton
        # the warm starts of the closest-point searches too, and the gaps kept (a curved pair's
        # gap moves its warm start): a retried step starts as the failed one did (the dicts'
        # values are replaced, never written into)
        ws = self.workspace
        saved = (self.t, self.q, self.u, dict(self._s))
        searches = (ws.profile_parameters, ws.contact_parameters)
        kept = [dict(d) for d in searches]
        gaps = {key: dict(value) for key, value in self._gap_cache.items()}
        try:
            subs = self._advance(h, 0)
            energy = None if self._whole is None else self._whole.energies(self)
            if energy is None:  # at the end state, the strings' strain energies kept
                energy = energies(
                    self.system, self.q, self.u, self.t, ws, self._strain_energies(self.q)
                )
        except Exception:
            self.t, self.q, self.u, self._s = saved  # sub-steps of a failed step are undone
            for now, before in zip(searches, kept, strict=True):
                now.clear()
                now.update(before)
            self._gap_cache = gaps
            raise
        self.t = t_end
        if self._flat and self._compiled_report(subs):
            step = self._compiled_step(subs, u_a, energy)  # no ContactReport built
            self._log_state_changes((v.state, v.all_open) for v in step.pairs)
            return step
        report = self._report(subs, q_a, u_a, energy)
        self._log_state_changes((c.state, _all_open(c)) for c in report.contacts)
        return report

    @property
    def step_path(self) -> str:
        """ "compiled" when the sub-step runs in one compiled call (``moreau_substep``: a tree on
        one compiled string or one linear beam with grid pairs, on the beam also a closest-point
        pair; linear beams with a profile pair on a beam's centre line), else "python" (the
        Python sub-step, calling the contact solver's kernels)."""
        return "python" if self._whole is None else "compiled"

    def steps(self, n_max: int) -> MoreauBatch | None:
        """Up to n_max steps, at most ``BATCH_STEPS`` (``steppers.moreau_batch``; each is kept
        with its end state's scans until the recorder reads it), each taken as ``step()`` takes
        it; those of compiled sub-steps alone are kept as arrays, the first other one (or a
        failure) ends the batch and is ``step()``'s next report (or error). None where the
        sub-step is not compiled (``moreau_substep.WholeSubstep``) or the model has drives or
        loop closures (each step reported by ``_report``)."""
        if self._whole is None or self._stashed is not None or self._n_bilateral:
            return None
        taken = []
        self._flat = True
        try:
            for _ in range(min(int(n_max), BATCH_STEPS)):
                try:
                    out = Stepper.step(self)
                except Exception as err:  # noqa: BLE001 - raised again by the next step()
                    self._stashed = err
                    break
                if isinstance(out, StepReport):
                    self._stashed = out
                    break
                taken.append(out)
        finally:
            self._flat = False
        if isinstance(self.report, FlatStep):  # the last step was the batch's
            self.report = compiled_report(self, self.report)
        return MoreauBatch(taken, self, "done" if self._stashed is None else "step")

    def step(self, h: float | None = None) -> StepReport:
        """``Stepper.step``; after a batch (``steps``) that ended on a step of another kind,
        that step's report (or its error, raised)."""
        stashed, self._stashed = self._stashed, None
        if stashed is None:
            return Stepper.step(self, h)
        if isinstance(stashed, BaseException):
            raise stashed
        return stashed

    def _compiled_report(self, subs) -> bool:
        """Is the step compiled sub-steps alone, every pair a grid pair of the stepper's or the
        compiled sub-step's closest-point pair, and no drives or loop closures (their forces
        and residuals are ``_report``'s)?"""
        if self._n_bilateral:
            return False
        last = None if self._whole is None else self._whole.last
        return all(isinstance(sub.closed, ClosedCandidates) for sub in subs) and all(
            k in self._grid or k == last for k in range(len(self.system.model.contacts))
        )

    def grid_pair(self, k: int) -> GridPair:
        """The ``GridPair`` of contact pair k (a grid pair)."""
        return self._grid[k]

    def _compiled_step(self, subs, u_a, energy) -> FlatStep:
        """The ``FlatStep`` of a step of compiled sub-steps, at the stepper's (end)
        state (several: ``merged_substeps``)."""
        s = self.system
        h = self._h_step
        sub = subs[0] if len(subs) == 1 else merged_substeps(subs)
        scans, geometry = self._whole.end_scans(self, sub)  # the closest point by the kernel
        pair = sub.closed.pair
        candidate = sub.closed.candidate
        m = pair.size
        p_n, p_t = 0.0 + sub.p_n, 0.0 + sub.p_t  # ``_report``'s sums, from 0
        slip = sub.gamma_e[m:]
        pairs = []
        for k, contact in enumerate(s.model.contacts):
            rows = np.flatnonzero(pair == k)
            if k not in self._grid:  # the closest-point pair
                values = closest_values(
                    geometry.get(k), scans[k], p_n[rows], p_t[rows], slip[rows], contact.mu, h
                )
                pairs.append(values)
                continue
            pairs.append(
                pair_values(
                    self._grid[k],
                    scans[k],
                    candidate[rows],
                    p_n[rows],
                    p_t[rows],
                    slip[rows],
                    contact.mu,
                    h,
                )
            )
        return FlatStep(
            t=self.t,
            q=self.q,
            u=self.u,
            acceleration=(self.u - u_a) / h,
            energy=energy,
            work=tuple(0.0 + sub.work[key] for key in WORK_KEYS),
            n_newton=self.n_newton - self._newton0,
            n_substeps=len(subs),
            solver_residual=sub.residual,
            pairs=tuple(pairs),
            source=(sub, scans, h, u_a, geometry),
        )

    def _advance(self, h, level):
        try:
            sub = self._substep(h, may_reject=level < self.max_halvings)
        except np.linalg.LinAlgError as err:  # a singular system: halved like a deep closing
            if level >= self.max_halvings:
                raise SingularSystem(
                    f"a linear system of the sub-step from t = {self.t:.6g} s by {h:.3g} s is "
                    f"singular ({err}), also after {self.max_halvings} halvings"
                ) from err
            sub = None
        if sub is not None:
            return [sub]
        self.n_rejected += 1
        return self._advance(0.5 * h, level + 1) + self._advance(0.5 * h, level + 1)

    def _bilateral(self, q_a, q_p, t, h):
        """Rows of the drives and loop closures for the sub-step: J at q_P and the right-hand
        side b of ``J u_E = b``, which makes the linearised constraints hold at the end,
        phi(q_E, t + h) = phi(q_A, t + h) + J (q_E - q_A) = 0 with q_E - q_A = h ((1 - theta)
        u_A + theta u_E) (exact for drives, which are linear in q)."""
        s = self.system
        jac = evaluate_state(
            s, q_p, self.u, t + self.theta * h, constraints_only=True, workspace=self.workspace
        ).jac
        phi = evaluate_state(
            s, q_a, self.u, t + h, constraints_only=True, workspace=self.workspace
        ).phi
        rhs = (-phi / h - (1.0 - self.theta) * (jac @ self.u)) / self.theta
        return jac, rhs

    def _substep(self, h, may_reject):
        if self._whole is not None:  # one compiled call, unless it hands the sub-step back
            sub = self._whole.run(self, h, may_reject)
            if sub is not WholeSubstep.HANDED_BACK:
                return sub
        s = self.system
        m = s.model
        theta = self.theta
        q_a, u_a = self.q, self.u
        q_p = q_a + theta * h * u_a
        check = self.penetration_tolerance is not None and may_reject
        if check:  # q_A first: a closest-point pair's search then ends at q_P's point
            tol = self.penetration_tolerance
            before = self.gaps(q_a)
            allowed = [np.maximum(tol, 1e-3 * tol - b) for b in before]
        gaps = self.gaps(q_p)
        if check and any(np.any(-g > a) for g, a in zip(gaps, allowed, strict=True)):
            return None
        impulse, solve = self._smooth(q_p, u_a, self.t, h)
        u_free = u_a + solve(impulse)
        lam = np.zeros(0)
        if self._n_bilateral:
            # u_E = u_free + M^-1 (J^T Lambda + W P) with J u_E = b: eliminate Lambda
            jac, rhs = self._bilateral(q_a, q_p, self.t, h)
            minv_jt = solve(np.ascontiguousarray(jac.T))
            schur = _lu(jac @ minv_jt)
            lam_free = _lu_solve(schur, rhs - jac @ u_free)
            u_free = u_free + minv_jt @ lam_free
            plain = solve

            def solve(x):
                y = plain(x)
                return y - minv_jt @ _lu_solve(schur, jac @ y)

            lam = lam_free
        cl = self._closed(q_p, u_a, gaps)
        m_c = len(cl.pair)
        p_n = p_t = e = p = np.zeros(0)
        residual = 0.0
        w = minv_w = np.zeros((s.n, 0))
        if m_c:
            w = np.ascontiguousarray(np.hstack((cl.w_n, cl.w_t)), dtype=float)
            minv_w = np.ascontiguousarray(solve(w))
            e = np.concatenate((self._e_normal[cl.pair], self._e_tangent[cl.pair]))
            delassus, offset = kernels.delassus_offset(w, minv_w, u_free, u_a, e)
            solution = solve_contact_impulses(
                delassus,
                offset,
                self._mu[cl.pair],
                initial=np.zeros(2 * m_c),
                tol=self.tol,
                max_iterations=self.max_iterations,
                time=self.t + h,
                skip=() if self._whole is None else self._whole.failed_stages,
            )
            p_n, p_t = solution.normal, solution.tangent
            p = np.concatenate((p_n, p_t))
            if self._n_bilateral:
                lam = lam - _lu_solve(schur, jac @ plain(w @ p))
            self.n_newton += solution.n_iterations
            residual = solution.residual
        u_e, q_e, gamma_a, gamma_e = kernels.end_state(q_a, u_a, u_free, minv_w, p, w, h, theta)
        if not (np.all(np.isfinite(u_e)) and np.all(np.isfinite(q_e))):
            bad = int(np.flatnonzero(~np.isfinite(u_e) | ~np.isfinite(q_e))[0])
            raise FloatingPointError(
                f"the state is not finite after the step to t = {self.t + h:.6g} s (first at "
                f"coordinate {bad} of the system layout); the forces or the step are at fault"
            )
        if check and any(np.any(-g > a) for g, a in zip(self.gaps(q_e), allowed, strict=True)):
            return None
        work = impulse_work(p_n, p_t, gamma_a, gamma_e, e, self._mu[cl.pair], theta)
        u_theta = (1.0 - theta) * u_a + theta * u_e  # q_E - q_A = h u_theta
        work.update(self._smooth_work(q_a, q_p, q_e, u_a, u_e, u_theta, h))
        # drives: Lambda . J u_theta (loop closures do no work on a rigid tree)
        n_d = len(m.drives)
        work["work_drives"] = float(lam[:n_d] @ (jac[:n_d] @ u_theta)) if self._n_bilateral else 0.0
        self.q, self.u = q_e, u_e
        self.t += h
        self.n_substeps += 1
        return Substep(cl, p_n, p_t, gamma_e, work, h, residual, lam)

    def _conservative_forces(self, q) -> tuple[np.ndarray, np.ndarray]:
        """dV/dq at q (module docstring, "Energy"): of the tree, gravity and joint springs
        (``bias_forces`` at rest, actuators at t = 0: they cancel in a difference), (n_tree,);
        of the structures, f_int(q) (their loads are constant), (n_flexible,); N or N m. Those
        of the last sub-step's end are kept: they are the next one's start (with the strings'
        strain energies evaluated with them, ``_strain_energies``)."""
        last = self._end_forces
        if last is not None and last[0] is q:
            return last[1]
        s = self.system
        lay = s.layout
        tree = np.zeros(0)
        if s.tree is not None:
            tree = bias_forces(s.tree, q[lay.tree], np.zeros(lay.n_tree), 0.0)
        flexible, strain = np.zeros(0), {}
        if lay.n_flexible and not s.linear_flexible:
            flexible, strain = self._flexible.internal_force(q[lay.flexible])
        self._end_forces = (q, (tree, flexible))
        self._end_strain = (q, strain)
        return tree, flexible

    def _strain_energies(self, q) -> dict | None:
        """{structure name: strain energy at q, J} of the strings whose tension law is compiled
        (``FlexibleBlock.internal_force``; those of the last sub-step's end are kept), None
        without such strings."""
        if not self.system.layout.n_flexible or self.system.linear_flexible:
            return None
        last = self._end_strain
        if last is None or last[0] is not q:
            self._end_strain = (q, self._flexible.internal_force(q[self.system.layout.flexible])[1])
        return self._end_strain[1]

    def _smooth_work(self, q_a, q_p, q_e, u_a, u_e, u_theta, h) -> dict:
        """The smooth forces' work over a sub-step from (q_A, u_A) to (q_E, u_E) (module
        docstring, "Energy"), J: ``dissipated_damping`` h u_theta . C(q_P) u_theta,
        ``work_loads`` h tau(t_A) . u_theta (the joint actuators; the structures' loads are
        in the potential), and ``dissipated_numerical`` (theta - 1/2) ([u]^T M(q_P) [u] +
        [q] . [dV/dq]), with [x] = x_E - x_A and u_theta = (1 - theta) u_A + theta u_E."""
        s = self.system
        lay = s.layout
        theta = self.theta
        damping = loads = numerical = 0.0
        if s.tree is not None:
            u_t = u_theta[lay.tree]
            damping += h * float(self._c_joint @ u_t**2)
            loads += h * float(actuator_forces(s.tree, self.t) @ u_t)
        if lay.n_flexible:
            u_f = u_theta[lay.flexible]
            damping += h * float(u_f @ self._flexible.damping_product(q_p[lay.flexible], u_f))
        if theta > 0.5:  # theta = 1/2: no loss, to the last bit
            du, dq = u_e - u_a, q_e - q_a
            tree_a, flexible_a = self._conservative_forces(q_a)
            tree_e, flexible_e = self._conservative_forces(q_e)
            kinetic = stiffness = 0.0
            if s.tree is not None:
                du_t = du[lay.tree]
                kept = self._tree_mass
                m_p = kept[1] if kept[0] is q_p else mass_matrix(s.tree, q_p[lay.tree])
                kinetic += float(du_t @ m_p @ du_t)
                stiffness += float(dq[lay.tree] @ (tree_e - tree_a))
            if lay.n_flexible:
                du_f, dq_f = du[lay.flexible], dq[lay.flexible]
                kinetic += float(du_f @ (s.mass_flexible @ du_f))
                if s.linear_flexible:  # K [q], not a difference of two forces: exact to round-off
                    stiffness += float(dq_f @ (s.stiffness_flexible @ dq_f))
                else:
                    stiffness += float(dq_f @ (flexible_e - flexible_a))
            numerical = (theta - 0.5) * (kinetic + stiffness)
        return {
            "dissipated_damping": damping,
            "work_loads": loads,
            "dissipated_numerical": numerical,
        }

    def _report(self, subs, q_a, u_a, energy) -> StepReport:
        """One report of the sub-steps. Per contact point (a grid candidate, or the one point
        of a closest-point or line contact): impulses summed over the sub-steps, the slip
        velocity gamma_T,E of the last sub-step in which it was closed with P_N > 0 (else
        closed at all), and its geometry
        (point, normal, tangent, parameter, gap) at the end state, so that a frame draws the
        points on the drawn structure."""
        s = self.system
        if self._compiled_report(subs):  # from the flat arrays
            return compiled_report(self, self._compiled_step(subs, u_a, energy))
        work, impulses, slips = summed_substeps(subs)
        scans = self._scan(self.q)  # also moves the closest points to the end state
        gaps_now = [getattr(g, "gap", g) for g in scans]
        marks = [np.ones_like(g) for g in gaps_now]
        others = False  # a reported point of a pair that is not a grid
        for k, i in impulses:
            if k not in self._grid:
                marks[k][i] = -1.0
                others = True
        end = self._closed(self.q, self.u, marks, with_rows=False) if others else None
        geometry = {} if end is None else {key: i for i, key in enumerate(end.key)}
        reports = []
        for k, pair in enumerate(s.model.contacts):
            keys = sorted(key for key in impulses if key[0] == k)
            min_gap = float(np.min(gaps_now[k]))
            if keys and k in self._grid:  # the candidates' geometry from the end state's scan
                which = np.array([i for _, i in keys])
                gap, normal, tangent, point, parameter = self._grid[k].geometry(which, scans[k])
                parameter = np.asarray(parameter, dtype=float)
            elif not keys or any(key not in geometry for key in keys):
                reports.append(open_contact(pair.name, min_gap))
                continue
            else:
                rows = [geometry[key] for key in keys]
                point, normal, tangent = end.point[rows], end.normal[rows], end.tangent[rows]
                parameter, gap = end.parameter[rows], end.gap[rows]
            pn = np.array([impulses[key][0] for key in keys])
            pt = np.array([impulses[key][1] for key in keys])
            slip = np.array([slips[key] for key in keys])
            states = point_states(pn, slip, pair.mu)
            reports.append(
                ContactReport(
                    name=pair.name,
                    state=pair_state(states),
                    point=point,
                    normal=normal,
                    tangent=tangent,
                    parameter=parameter,
                    gap=gap,
                    slip_velocity=slip,
                    normal_force=pn / self._h_step,
                    friction_force=pt / self._h_step,
                    normal_impulse=pn,
                    friction_impulse=pt,
                    min_gap=min_gap,
                    point_state=states,
                )
            )
        forces = sum(sub.bilateral for sub in subs) / self._h_step  # mean forces of the step
        residual_q, residual_u = self._constraint_residuals()
        return StepReport(
            t=self.t,
            q=self.q.copy(),
            u=self.u.copy(),
            contacts=tuple(reports),
            drive_forces=forces[: len(s.model.drives)],
            multipliers=forces,
            work=work,
            residual_position=residual_q,
            residual_velocity=residual_u,
            h=self._h_step,
            n_newton=self.n_newton - self._newton0,
            n_substeps=len(subs),
            solver_residual=max(sub.residual for sub in subs),
            energy=energy,
            acceleration=(self.u - u_a) / self._h_step,  # the mean over the step
        )

    def _constraint_residuals(self) -> tuple[float, float]:
        """Largest |phi| (m or rad) and |J u + phi_t| of the drives and loops at the state."""
        if not self._n_bilateral:
            return 0.0, 0.0
        ev = evaluate_state(
            self.system, self.q, self.u, self.t, constraints_only=True, workspace=self.workspace
        )
        velocity = ev.jac @ self.u + ev.phi_t
        return float(np.max(np.abs(ev.phi))), float(np.max(np.abs(velocity)))

    def _start_states(self, gaps=None) -> list[str]:
        """Per pair "closed" when a gap at the start is within ``touch_tolerance``, else
        "open" (``events``)."""
        gaps = self.gaps(self.q) if gaps is None else gaps
        return ["closed" if np.min(g) <= self.touch_tolerance else "open" for g in gaps]

    def _log_state_changes(self, states) -> None:
        """Append the pairs' changes of state in this step to ``events``; states: per pair
        (its state, whether all its closed points are open)."""
        names = [c.name for c in self.system.model.contacts]
        for k, (now, all_open) in enumerate(states):
            before = self._pair_states[k]
            if all_open:
                now = "open"  # closed by its gaps, but no point pressed
            if now == before:
                continue
            if now == "open":
                kind = "open"
            elif before == "open":
                kind = "impact"
            elif before == "closed":  # closed at the start: its stick or slip is not a change
                kind = None
            else:
                kind = now  # "stick" or "slip"
            if kind is not None:
                self.events.append((self.t, names[k], kind))
            self._pair_states[k] = now

    def initial_report(self) -> StepReport:
        gaps = self.gaps(self.q)
        if self._pair_states is None:
            self._pair_states = self._start_states(gaps)
        residual_q, residual_u = self._constraint_residuals()
        return StepReport(
            t=self.t,
            q=self.q.copy(),
            u=self.u.copy(),
            contacts=tuple(
                open_contact(p.name, float(np.min(g)))
                for p, g in zip(self.system.model.contacts, gaps, strict=True)
            ),
            drive_forces=np.zeros(len(self.system.model.drives)),
            multipliers=np.zeros(self._n_bilateral),
            work={},
            residual_position=residual_q,
            residual_velocity=residual_u,
            h=self.h,
            n_substeps=0,
        )


__all__ = ["MoreauJean"]
