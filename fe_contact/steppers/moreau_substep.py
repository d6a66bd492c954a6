"""The Moreau-Jean sub-step of a tree (or none) with one structure, a string (its tension law
compiled), or linear beams, and candidate grids (on a beam also a closest-point pair, or a
profile pair against a beam's centre line) in one compiled call
(``kernels.moreau.substep``), for ``steppers.moreau``: what a
committed sub-step hands to the step's report (``Substep``, its closed candidates
``ClosedCandidates``), the call's orchestration (``WholeSubstep``: its constant arguments
packed once, the state handed in and the outcome read back into the stepper) and several
compiled sub-steps of one step merged as the report sums them (``merged_substeps``). The
stepper's module docstring describes the scheme.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from ..coupling.contact_points import pair_plan
from ..kernels import beam as record
from ..kernels import moreau as kernels
from ..kernels import profile_pair
from ..kernels.beam import beam_arrays
from ..kernels.tree import pack_tree
from ..multibody.body_points import angular_jacobian
from ..multibody.tree import actuator_forces
from ..sides import Profile
from ..structures import BeamStructure
from ..system import Energies
from .closed_contacts import ClosedContacts
from .compiled_scope import beam_index, profile_frame
from .effective_mass import StringPart
from .grid_pairs import GridScan

# the work columns of a sub-step in the order of the Python sub-step's dict
WORK_COLUMNS = (
    "dissipated_impact",
    "dissipated_friction",
    "work_contact_timing",
    "dissipated_damping",
    "work_loads",
    "dissipated_numerical",
)


@dataclass(frozen=True, eq=False)
class Substep:
    """What a committed sub-step hands to the step's report (``MoreauJean._report``): its
    closed points (``ClosedContacts`` of the Python sub-step, ``ClosedCandidates`` of a
    compiled one), impulses P_N, P_T (m,) in N s, contact velocities gamma^E (2m,) ordered
    (N.., T..), work columns (dict, J), size h (s), law residual and the bilateral impulses."""

    closed: ClosedContacts | ClosedCandidates
    p_n: np.ndarray
    p_t: np.ndarray
    gamma_e: np.ndarray
    work: dict
    h: float
    residual: float
    bilateral: np.ndarray  # impulses Lambda of the drives and loop closures, N s


@dataclass(frozen=True, eq=False)
class ClosedCandidates:
    """The closed points of a compiled sub-step, as ``MoreauJean._report`` reads them: pair (m,),
    candidate (m,) and key [(pair, candidate)]."""

    pair: np.ndarray
    candidate: np.ndarray

    @property
    def key(self) -> list:
        return list(zip(self.pair.tolist(), self.candidate.tolist(), strict=True))


class WholeSubstep:
    """A sub-step of a tree with one structure and candidate grids (with the model's drives and
    loop closures: their rows J and right-hand side b at the sub-step's q_P from
    ``MoreauJean._bilateral``, handed in) in one call of ``kernels.moreau.substep`` (the same kernels as the Python
    sub-step, in the same order). The structure is a string whose tension law is compiled, or
    linear ones (beams: internal force K q, K and C_f constant, no stiffness-proportional
    damping, the ``FlexibleBlock``'s constant effective mass, several beams as one block);
    on the beam, the model's last pair may be a closest-point pair of a body's circle or point
    (its search started where the stepper's last one ended, ``MoreauJean._s``, which the call
    moves as the Python sub-step would), or the last pair a profile on a body carried by a
    linear beam against a linear beam's centre line (``profile_on_beam``; its warm start the
    run's ``Workspace.profile_parameters``, moved as ``coupling.profile_contact
    .curved_contact`` moves it). A system without a tree has an empty one (no coordinates).
    ``run`` returns the committed
    ``Substep``, None when the sub-step is rejected for a deep closing, or ``HANDED_BACK`` for the
    Python sub-step (a singular block, the contact solver beyond Lemke's pivoting, a
    state that is not finite). ``plan(stepper)`` is None for any other system."""

    HANDED_BACK = object()

    @classmethod
    def plan(cls, stepper) -> WholeSubstep | None:
        """The sub-step of the stepper's system, None when ``substep_unsupported`` names a reason."""
        if substep_unsupported(stepper) is not None:
            return None
        block = stepper._flexible
        structure, _, part = block.parts[0]
        n_c = len(stepper.system.model.contacts)
        last = None if len(stepper._grid) == n_c else n_c - 1
        grids = [stepper._grid[k] for k in range(n_c) if k != last]
        return cls(stepper, structure, part, grids, last)

    def __init__(self, stepper, structure, part, grids, last=None):
        s = stepper.system
        lay = s.layout
        block = stepper._flexible

        def real(a):
            return np.ascontiguousarray(a, dtype=float)

        def whole(a):
            return np.ascontiguousarray(a, dtype=np.int64)

        joints = _NO_JOINTS if s.tree is None else s.tree.topology
        self.tree = (
            joints.kernel_arrays,
            real(joints.stiffness),
            real(joints.damping),
            real(joints.rest),
            real(stepper._c_joint),
            real(stepper._k_joint),
            lay.tree.start,
            lay.tree.stop,
        )
        self.linear = linear = part == "linear"
        if linear:  # the products of ``FlexibleBlock.step``; no string arguments read
            self.structure = (
                True,
                _NO_STRING,
                np.zeros(0, dtype=np.int64),
                np.zeros(0, dtype=np.int64),
                _sparse_arrays(block.stiffness_matrix),
                _sparse_arrays(block.damping_matrix),
            )
        else:
            self.structure = (
                False,
                tuple(part.arguments),
                whole(part.flat),
                whole(part.keep),
                _NO_MATRIX,
                _NO_MATRIX,
            )
        beta = float(structure.stiffness_damping)  # 0 for linear beams (``constant``)
        # the structures' reference coordinates, from which their load potentials are measured
        reference = np.concatenate([st.initial_coordinates() for st, _, _ in block.parts])
        self.flexible = (
            lay.flexible.start,
            lay.flexible.stop,
            real(block.load),
            real(block.mass),
            real(block.damping),
            real(block.stiffness),
            int(block.band),
            np.full(lay.n_flexible, beta),
            bool(beta != 0.0 or block.damping_matrix.nnz),
            real(reference),
        )
        # a string's C_f(q) not zero: its power needs K_t(q_E) (Python); a linear C_f's: the kernel's
        self.damped = self.flexible[8] and not linear
        sizes = [g.grid.dofs.shape[0] for g in grids]
        self.start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        pairs = [g.k for g in grids]
        k_dofs = grids[0].grid.dofs.shape[1] if grids else 4

        def stacked(parts, shape, kind):
            return kind(np.concatenate(parts)) if parts else kind(np.zeros(shape))

        self.grids = (
            self.start,
            whole([g.body for g in grids]),
            real([g.local for g in grids]).reshape(-1, 2),
            real([g.radius for g in grids]),
            real(np.array([g.angular_row for g in grids]).reshape(len(grids), lay.n_tree)),
            whole([(g.columns.start, g.columns.stop) for g in grids]).reshape(-1, 2),
            stacked([g.grid.offset for g in grids], (0, 2), real),
            stacked([g.grid.rows for g in grids], (0, 2, k_dofs), real),
            stacked([g.grid.dofs for g in grids], (0, k_dofs), whole),
            real(stepper._mu[pairs]),
            real(stepper._e_normal[pairs]),
            real(stepper._e_tangent[pairs]),
        )
        self.last = last  # the closest-point or profile pair's contact index, or None
        self.closest = _no_closest(lay.n_tree)
        self.profile = None  # ``substep`` compiled without the profile pair's code
        # a profile pair against a beam's centre line (else a closest-point pair), last
        self.on_line = last is not None and stepper._kinds[last] == "curved"
        if self.on_line:
            pair = s.model.contacts[last]
            kind, index, s_at = profile_frame(s, pair.profile.body)
            self.profile = (
                True,
                beam_arrays(s.structures, lay),
                profile_pair.line_arrays(
                    kind,
                    index,
                    s_at,
                    pair.profile.curve,
                    beam_index(s, pair.target),
                    float(pair.side),
                    s.centre_line_samples[pair.target].s,
                ),
                float(stepper._mu[last]),
                float(stepper._e_normal[last]),
                float(stepper._e_tangent[last]),
            )
        elif last is not None:
            plan = pair_plan(s, last)
            self.closest = (
                True,
                beam_arrays({structure.name: structure}, lay),
                int(plan.body),
                real(plan.local),
                float(plan.radius),
                float(plan.side),
                real(angular_jacobian(s.tree, plan.body)),
                np.nan,
                float(stepper._mu[last]),
                float(stepper._e_normal[last]),
                float(stepper._e_tangent[last]),
            )
        self.pairs = pairs
        # the contact index of each grid, then of the closest-point pair (listed as n_pairs)
        self._pair_of = np.array([*pairs, -1 if last is None else last], dtype=np.int64)
        self._settings = {}  # (h, check) -> the kernel's settings
        bounds = self.start.tolist()
        self.slices = [(k, bounds[p], bounds[p + 1]) for p, k in enumerate(pairs)]
        self.name = structure.name
        # (name, slice of the flexible part) of each structure, for its strain energy
        self.parts = [(st.name, sl) for st, sl, _ in block.parts]
        self.actuated = bool(joints.actuated)
        self.actuators = np.zeros((2, lay.n_tree))
        if s.tree is not None:
            self.actuators[1] = actuator_forces(s.tree, 0.0)  # those of ``bias_forces`` at rest
        self._forces = (None, None)  # (q, dV/dq at q (n,)) of the last committed end state
        self._energies = (None, None)  # (q, the kernel's scalars) of the same end state
        # the stages of the contact solver the last sub-step handed back had tried in vain
        self.failed_stages = ()  # the contact solver's stages the kernel tried and failed
        self.n_d = len(s.model.drives)
        self._no_drives = (np.zeros((0, lay.n)), np.zeros(0), 0)

    def run(self, stepper, h, may_reject):
        st = stepper
        lay = st.system.layout
        theta = st.theta
        q_a, u_a = st.q, st.u
        n = lay.n
        n_points = self.start[-1]
        forces_a = self._forces[1] if self._forces[0] is q_a else None
        if forces_a is None:
            forces_a = np.zeros(n)
            if theta > 0.5:  # read by the scheme's own loss (a linear structure's: K [q])
                tree, flexible = st._conservative_forces(q_a)
                forces_a[lay.tree] = tree
                if not self.linear:
                    forces_a[lay.flexible] = flexible
        actuators = self.actuators
        if self.actuated:
            actuators = actuators.copy()
            actuators[0] = actuator_forces(st.system.tree, st.t)
        check = st.penetration_tolerance is not None and may_reject
        settings = self._settings.get((h, check))
        if settings is None:  # per step size (halvings have their own) and check
            if len(self._settings) > 64:
                self._settings.clear()
            settings = self._settings[h, check] = (
                float(h),
                theta,
                theta * h,
                theta**2 * h**2,
                float(st.touch_tolerance),
                float(st.tol),
                int(st.max_iterations),
                float(st.penetration_tolerance or 0.0),
                bool(check),
            )
        state = np.empty((2, n))
        gaps = np.empty(n_points)
        points = np.empty((n_points, 2))
        centres = np.empty((len(self.pairs), 2))
        forces_e = np.empty(n)
        scalars = np.empty(18)
        parameter = np.empty(1)  # written by the kernel before any outcome read here
        closed = np.empty((2, n_points + 1), dtype=np.int64)
        contact = np.empty((2, 2 * n_points + 2))
        n_b = st._n_bilateral
        lam = np.zeros(n_b)
        drives = self._no_drives
        if n_b:  # the rows at q_P, as the Python sub-step evaluates them
            q_p = q_a + theta * h * u_a
            jac, rhs = st._bilateral(q_a, q_p, st.t, h)
            drives = (
                np.ascontiguousarray(jac, dtype=float),
                np.asarray(rhs, dtype=float),
                self.n_d,
            )
        guess = np.full(2, np.nan)  # the profile pair's warm start (eta, s), moved by the call
        known = st.workspace.profile_parameters
        if self.on_line and self.last in known:
            guess[:] = known[self.last]
        out = (state, closed, contact, gaps, points, centres, forces_e, scalars, parameter, lam)
        out = (*out, guess)
        closest = self.closest
        if self.last is not None:  # the search starts where the last one ended
            start = st._s.get(self.last)
            closest = (*closest[:7], np.nan if start is None else float(start), *closest[8:])
        kernels.substep(self.tree, self.structure, self.flexible, self.grids, closest,
                        self.profile, q_a, u_a, actuators, forces_a, settings, drives, out)  # fmt: skip
        outcome = int(scalars[0])
        if outcome == kernels.HANDED_BACK:  # the Python sub-step searches again from the start
            st.n_fallback += 1
            # De Saxce's fixed point and Lemke's pivoting failed in the kernel: the Python
            # solver, which calls the same kernels, skips them
            self.failed_stages = ("de-saxce", "lemke") if scalars[1] == 1.0 else ()
            return self.HANDED_BACK
        if self.on_line:  # as ``curved_contact`` keeps it: lost and not found again, dropped
            self._keep_guess(st, guess)
        elif self.last is not None and np.isfinite(parameter[0]):
            st._s[self.last] = float(parameter[0])
        if outcome == kernels.REJECTED:
            st.n_newton += int(scalars[2])  # the sweeps of a contact problem solved, as in Python
            return None
        m = int(scalars[1])
        u_e, q_e = state[0], state[1]
        scans = {
            k: GridScan(gaps[a:b], centres[p], points[a:b])
            for p, (k, a, b) in enumerate(self.slices)
        }
        st._known(q_e).update(scans)
        if self.linear:  # as ``MoreauJean._conservative_forces`` keeps them: no structure part
            st._end_forces = (q_e, (forces_e[lay.tree], np.zeros(0)))
            st._end_strain = (q_e, {})
        else:
            st._end_forces = (q_e, (forces_e[lay.tree], forces_e[lay.flexible]))
            st._end_strain = (q_e, {self.name: float(scalars[10])})
        self._forces = (q_e, forces_e)
        self._energies = (q_e, scalars)
        pair = self._pair_of[closed[0, :m]]
        impulses = contact[0, : 2 * m]
        work = dict(zip(WORK_COLUMNS, scalars[4:10].tolist(), strict=True))
        work["work_drives"] = float(scalars[17])
        st.q, st.u = q_e, u_e
        st.t += h
        st.n_substeps += 1
        st.n_compiled += 1
        st.n_newton += int(scalars[2])
        return Substep(
            ClosedCandidates(pair, closed[1, :m]),
            impulses[:m],
            impulses[m:],
            contact[1, : 2 * m],
            work,
            h,
            float(scalars[3]),
            lam,
        )

    def end_scans(self, stepper, sub) -> tuple[list, dict]:
        """(scans, geometry) of the stepper's state after a step of compiled sub-steps
        (``sub``, merged), for its report, as ``MoreauJean._report`` finds them by
        ``_scan`` and ``_closed``: the grid pairs' scans (kept by ``run``); the closest-point
        pair's gap, searched at the end state by the kernel's search
        (``kernels.moreau.closest_gap``, from the stepper's last point, which it moves) and,
        when the pair was closed in the step, {pair: (gap, normal, tangent, point,
        parameter)} of its point at the stepper's last point (``kernels.moreau.closest_record``;
        one point, arrays)."""
        st = stepper
        if self.last is None:  # grid pairs alone
            return st._scan(st.q), {}
        known = st._known(st.q)
        scans = []
        for k in range(self.last):
            if k not in known:
                known[k] = st.grid_pair(k).scan(st.q)
            scans.append(known[k])
        if self.on_line:
            return self._line_scans(st, sub, scans)
        start = st._s.get(self.last)
        start = np.nan if start is None else float(start)
        gap, s = kernels.closest_gap(self.tree, self.closest, st.q, start)
        if np.isfinite(s):
            st._s[self.last] = float(s)
        scans.append(np.array([gap]))
        geometry = {}
        if any(k == self.last for k, _ in sub.closed.key):
            r = kernels.closest_record(self.tree, self.closest, st.q, st.u, st._s[self.last])
            if np.isfinite(r[record.PX]) and np.isfinite(r[record.PY]):
                geometry[self.last] = (
                    np.array([r[record.GAP]]),
                    np.array([[r[record.NX], r[record.NY]]]),
                    np.array([[r[record.TX], r[record.TY]]]),
                    np.array([[r[record.PX], r[record.PY]]]),
                    np.array([r[record.S]]),
                )
        return scans, geometry

    def _keep_guess(self, stepper, guess) -> None:
        """The profile pair's warm start (eta, s) (2,) into the run's ``Workspace``, or dropped
        when NaN (``coupling.profile_contact.curved_contact``'s rule)."""
        known = stepper.workspace.profile_parameters
        if np.isfinite(guess[0]):
            known[self.last] = (float(guess[0]), float(guess[1]))
        else:
            known.pop(self.last, None)

    def _line_scans(self, stepper, sub, scans) -> tuple[list, dict]:
        """``end_scans`` of the profile pair (the last): its gap at the end state
        (``kernels.moreau.line_gap``, from the run's warm start, which it moves) and, when it
        was closed in the step, {pair: (gap, normal, tangent, point, parameter)} of its point
        there (``kernels.moreau.line_record``, as ``MoreauJean._report`` finds it with
        ``_closed``; none without a contact point)."""
        st = stepper
        guess = np.full(2, np.nan)
        known = st.workspace.profile_parameters
        if self.last in known:
            guess[:] = known[self.last]
        gap = kernels.line_gap(self.tree, self.profile, st.q, guess)
        self._keep_guess(st, guess)
        scans.append(np.array([gap]))
        geometry = {}
        if any(k == self.last for k, _ in sub.closed.key):
            status, r = kernels.line_record(self.tree, self.profile, st.q, st.u, guess)
            self._keep_guess(st, guess)
            if status == profile_pair.LINE_FOUND:
                geometry[self.last] = (
                    np.array([r[record.GAP]]),
                    np.array([[r[record.NX], r[record.NY]]]),
                    np.array([[r[record.TX], r[record.TY]]]),
                    np.array([[r[record.PX], r[record.PY]]]),
                    np.array([r[record.S]]),
                )
        return scans, geometry

    def energies(self, stepper) -> Energies | None:
        """The ``system.energies`` of the stepper's state when it is the end state of the last
        compiled sub-step (the kernel's terms, ``kernels.moreau.substep``), else None. A
        string's damping power C(q_E) u . u needs its tangent at q_E: None when its C_f is not
        zero (a linear structure's is the kernel's); the joint actuators' power is evaluated
        here at the stepper's time."""
        q, scalars = self._energies
        if q is not stepper.q or self.damped:
            return None
        tree_kinetic, structure_kinetic, gravity, springs, load_potential, dampers = scalars[
            11:17
        ].tolist()
        loads = 0.0
        if self.actuated:
            t_slice = stepper.system.layout.tree
            loads = float(actuator_forces(stepper.system.tree, stepper.t) @ stepper.u[t_slice])
        strain = float(scalars[10])
        parts = ((self.name, strain),)
        if len(self.parts) > 1:  # linear beams: 1/2 q K q each, K q of the kernel's end state
            flexible = stepper.system.layout.flexible
            q_f, force = q[flexible], self._forces[1][flexible]
            parts = tuple((name, 0.5 * float(q_f[sl] @ force[sl])) for name, sl in self.parts)
        return Energies(
            tree_kinetic=tree_kinetic,
            structure_kinetic=structure_kinetic,
            gravity=gravity + load_potential,
            tree_springs=springs,
            structure_elastic=strain,
            damping_power=dampers,
            load_power=loads,
            structure_elastic_parts=parts,
        )


# the string arguments of a linear structure's call (typed as a string's, never read)
_NO_STRING = (
    np.zeros((0, 8), dtype=np.int64),
    np.zeros((0, 8)),
    np.zeros((0, 4, 1)),
    np.zeros((0, 4, 1)),
    np.zeros((0, 1)),
    0.0,
    np.zeros((0, 1)),
    np.zeros((0, 1)),
    0,
    0.0,
)
_NO_MATRIX = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0), True)


def _read_only(a):
    a.setflags(write=False)
    return a


# the tree of a system without one: no bodies, its arrays typed as a tree's (read-only)
_NO_JOINTS = SimpleNamespace(
    kernel_arrays=pack_tree(
        np.zeros((0, 0)),
        np.zeros((0, 0)),
        [],
        [],
        np.zeros((0, 2)),
        [],
        np.zeros((0, 2)),
        np.zeros((0, 0)),
        (0.0, 0.0),
    ),  # fmt: skip
    stiffness=_read_only(np.zeros(0)),
    damping=_read_only(np.zeros(0)),
    rest=_read_only(np.zeros(0)),
    actuated=(),
)


def _no_closest(n_tree: int) -> tuple:
    """The closest-point argument of ``kernels.moreau.substep`` without such a pair."""
    beam = (
        np.zeros((0, 3), dtype=np.int64),
        np.zeros((0, 7)),
        np.zeros(0),
        np.zeros(0),
        np.zeros(0),
        np.zeros((0, 4), dtype=np.int64),
        np.zeros((0, 4, 4)),
    )
    return (False, beam, 0, np.zeros(2), 0.0, 1.0, np.zeros(n_tree), np.nan, 0.0, 0.0, 0.0)


def substep_unsupported(stepper) -> str | None:
    """Why ``WholeSubstep`` does not take a Moreau-Jean stepper's sub-steps (the first condition
    its system misses), None when it takes them: a tree (or none) and one structure, the whole
    flexible part, that is a string whose tension law is compiled, or linear beams (K and C_f
    constant, no stiffness-proportional damping, in CSC or CSR form; several as one block);
    every pair a candidate grid on the whole tree, of one size, except that the last pair may
    be a closest point of a body's circle or point on the one linear beam
    (``closest_on_beam``) or a profile on a body carried by a linear beam against a linear
    beam's centre line (``profile_on_beam``)."""
    s = stepper.system
    lay, model = s.layout, s.model
    block = stepper._flexible
    if block is None:
        return "no structure"
    if len(block.parts) != 1 and any(part != "linear" for _, _, part in block.parts):
        return (
            f"{len(block.parts)} structures, not all linear beams (the compiled sub-step takes "
            "one string or linear beams)"
        )
    _, part_slice, part = block.parts[0]
    string = isinstance(part, StringPart)
    if string and not part.compiled:
        return "a string whose tension law the kernels do not evaluate"
    if not string and part != "linear":
        return "a structure that is neither a string nor a linear beam"
    if part == "linear" and not block.constant:
        return "a linear structure with stiffness-proportional damping"
    if part == "linear" and not _compressed(block):
        return "a linear structure whose K or C_f is not in CSC or CSR form"
    if not model.contacts:
        return "no contacts"
    if len(block.parts) == 1 and part_slice != slice(0, lay.n_flexible):
        return "the structure is not the whole flexible part"
    n_c = len(model.contacts)
    last = None  # a closest-point pair on the linear beam, or a profile pair, the last pair
    if len(stepper._grid) != n_c:
        last = n_c - 1
        others = [stepper._kinds[k] for k in range(n_c) if k not in stepper._grid]
        if len(stepper._grid) != last or last in stepper._grid:
            return (
                f"contact pairs of kinds {sorted(set(others))} (grids and one last closest point "
                "or profile pair)"
            )
        if others[0] == "curved":
            if not profile_on_beam(stepper, last):
                return (
                    "a curved pair that is not a profile on a body carried by a linear beam "
                    "against a linear beam's centre line"
                )
        elif string or not closest_on_beam(stepper, last):
            return f"a {others[0]} pair that is not a closest point on the linear beam"
    if s.tree is None and len(stepper._grid):  # unreachable: a grid's circle is on a body
        return "grid pairs without a tree"
    grids = [stepper._grid[k] for k in range(n_c) if k != last]
    if any(g.tree != lay.tree for g in grids):
        return "a grid pair on a part of the tree"
    if len({g.grid.dofs.shape[1] for g in grids}) > 1:
        return "grid pairs of different sizes"
    return None


def profile_on_beam(stepper, k: int) -> bool:
    """Is contact k of a Moreau-Jean stepper's model a ``Profile`` on a body carried by a
    linear beam against a linear beam's centre line, in a system whose structures are all
    linear beams, the tree's coordinates (if any) first (the pair that
    ``kernels.moreau.substep`` evaluates with ``kernels.profile_pair.centre_line_contact``)?

    Parameters
    ----------
    stepper : MoreauJean
        The stepper (its system and its pairs' kinds).
    k : int
        The contact's index in the model.

    Returns
    -------
    bool

    Examples
    --------
    The pad of ``examples/plot_two_beams.py`` on beam b (``tests/test_moreau_two_beams_compiled.py``
    builds it): True; a pad pressed on another profile: False, and ``substep_unsupported``
    says why.
    """
    s = stepper.system
    pair = s.model.contacts[k]
    if stepper._kinds[k] != "curved" or s.layout.tree.start != 0:
        return False
    if type(pair.profile) is not Profile or not isinstance(pair.target, str):
        return False
    if not all(isinstance(st, BeamStructure) and st.linear for st in s.structures.values()):
        return False
    where = profile_frame(s, pair.profile.body)
    return where is not None and where[0] == profile_pair.CARRIED


def closest_on_beam(stepper, k: int) -> bool:
    """Is contact k of a Moreau-Jean stepper's model a closest-point pair of a circle or point
    on a tree body against the one linear beam, the tree's coordinates first (the pair that
    ``kernels.moreau.substep`` evaluates with ``kernels.beam.contact``)?"""
    s = stepper.system
    if stepper._kinds[k] != "closest" or s.layout.tree.start != 0:
        return False
    plan = pair_plan(s, k)
    structure = plan.structure
    return (
        isinstance(plan.body, (int, np.integer))
        and getattr(structure, "kind", None) == "beam"
        and structure.linear
        and plan.columns == s.layout.flexible
    )


def _compressed(block) -> bool:
    """Are the flexible block's K and C_f in CSC or CSR form (``kernels.moreau.sparse_product``
    sums both as scipy does)?"""
    return all(
        sp.issparse(m) and m.format in ("csc", "csr")
        for m in (block.stiffness_matrix, block.damping_matrix)
    )


def _sparse_arrays(matrix) -> tuple:
    """(indptr, indices, data, by columns) of a CSC or CSR matrix for ``sparse_product``."""
    return (
        np.ascontiguousarray(matrix.indptr, dtype=np.int64),
        np.ascontiguousarray(matrix.indices, dtype=np.int64),
        np.ascontiguousarray(matrix.data, dtype=float),
        matrix.format == "csc",
    )


def summed_substeps(subs) -> tuple[dict, dict, dict]:
    """(work, impulses, slips) of a step's sub-steps: the work columns summed; per closed point
    (pair, candidate), the (normal, tangential) impulses summed over the sub-steps and the slip
    velocity of the last sub-step in which it was pressed (else closed at all): a pressed
    sub-step is not overwritten by a later one in which the point is free."""
    work = dict.fromkeys(subs[0].work, 0.0)
    for sub in subs:
        for key, value in sub.work.items():
            work[key] += value
    impulses, slips, pressed = {}, {}, set()
    for sub in subs:
        p_n, p_t, gamma_e = sub.p_n, sub.p_t, sub.gamma_e
        m_c = len(sub.closed.pair)
        for i, key in enumerate(sub.closed.key):
            tot = impulses.get(key, (0.0, 0.0))
            impulses[key] = (tot[0] + p_n[i], tot[1] + p_t[i])
            if p_n[i] > 0.0 or key not in pressed:
                slips[key] = gamma_e[m_c + i]
            if p_n[i] > 0.0:
                pressed.add(key)
    return work, impulses, slips


def merged_substeps(subs) -> Substep:
    """Compiled sub-steps as one, as ``MoreauJean._report`` sums them (``summed_substeps``):
    the closed points ordered, the largest law residual."""
    work, impulses, slips = summed_substeps(subs)
    keys = sorted(impulses)
    m = len(keys)
    slip = np.array([slips[key] for key in keys], dtype=float)
    return Substep(
        ClosedCandidates(
            np.array([k for k, _ in keys], dtype=np.int64),
            np.array([i for _, i in keys], dtype=np.int64),
        ),
        np.array([impulses[key][0] for key in keys], dtype=float),
        np.array([impulses[key][1] for key in keys], dtype=float),
        np.concatenate((np.zeros(m), slip)),
        work,
        sum(sub.h for sub in subs),
        max(sub.residual for sub in subs),
        np.zeros(0),
    )


__all__ = [
    "ClosedCandidates",
    "Substep",
    "WORK_COLUMNS",
    "WholeSubstep",
    "closest_on_beam",
    "merged_substeps",
    "profile_on_beam",
    "summed_substeps",
]
