"""The Moreau-Jean sub-step of a tree with one string (its tension law compiled) and candidate
grids alone in one compiled call (``kernels.moreau.substep``), for ``steppers.moreau``: what a
committed sub-step hands to the step's report (``Substep``, its closed candidates
``ClosedCandidates``), the call's orchestration (``WholeSubstep``: its constant arguments
packed once, the state handed in and the outcome read back into the stepper) and several
compiled sub-steps of one step merged as the report sums them (``merged_substeps``). The
stepper's module docstring describes the scheme.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels import moreau as kernels
from ..multibody.tree import actuator_forces
from ..system import Energies
from .closed_contacts import ClosedContacts
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
    """A sub-step of a tree with one string (its tension law compiled) and candidate grids
    alone, no drives or loop closures, in one call of ``kernels.moreau.substep`` (the same
    kernels as the Python sub-step, in the same order): ``run`` returns the committed
    ``Substep``, None when the sub-step is rejected for a deep closing, or ``HANDED_BACK`` for the
    Python sub-step (a singular block, the contact solver beyond De Saxce's fixed point, a
    state that is not finite). ``plan(stepper)`` is None for any other system."""

    HANDED_BACK = object()

    @classmethod
    def plan(cls, stepper) -> WholeSubstep | None:
        s = stepper.system
        lay = s.layout
        model = s.model
        block = stepper._flexible
        if s.tree is None or stepper._n_bilateral or block is None or len(block.parts) != 1:
            return None
        structure, part_slice, part = block.parts[0]
        if not (isinstance(part, StringPart) and part.compiled):
            return None
        if part_slice != slice(0, lay.n_flexible) or not model.contacts:
            return None
        if len(stepper._grid) != len(model.contacts):
            return None
        grids = [stepper._grid[k] for k in range(len(model.contacts))]
        if any(g.tree != lay.tree for g in grids):
            return None
        if len({g.grid.dofs.shape[1] for g in grids}) != 1:
            return None
        return cls(stepper, structure, part, grids)

    def __init__(self, stepper, structure, part, grids):
        s = stepper.system
        lay = s.layout
        topo = s.tree.topology
        block = stepper._flexible

        def real(a):
            return np.ascontiguousarray(a, dtype=float)

        def whole(a):
            return np.ascontiguousarray(a, dtype=np.int64)

        self.tree = (
            topo.kernel_arrays,
            real(topo.stiffness),
            real(topo.damping),
            real(topo.rest),
            real(stepper._c_joint),
            real(stepper._k_joint),
            lay.tree.start,
            lay.tree.stop,
        )
        self.string = (*part.arguments, whole(part.flat), whole(part.keep))
        beta = float(structure.stiffness_damping)
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
            real(structure.initial_coordinates()),
        )
        self.damped = self.flexible[8]  # C_f(q) not zero: its power needs K_t(q_E) (Python)
        sizes = [g.grid.dofs.shape[0] for g in grids]
        self.start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        pairs = [g.k for g in grids]
        self.grids = (
            self.start,
            whole([g.body for g in grids]),
            real([g.local for g in grids]).reshape(-1, 2),
            real([g.radius for g in grids]),
            real(np.array([g.angular_row for g in grids]).reshape(len(grids), lay.n_tree)),
            whole([(g.columns.start, g.columns.stop) for g in grids]).reshape(-1, 2),
            real(np.concatenate([g.grid.offset for g in grids])),
            real(np.concatenate([g.grid.rows for g in grids])),
            whole(np.concatenate([g.grid.dofs for g in grids])),
            real(stepper._mu[pairs]),
            real(stepper._e_normal[pairs]),
            real(stepper._e_tangent[pairs]),
        )
        self.pairs = pairs
        self._pair_of = np.array(pairs)  # the contact index of each grid
        self._settings = {}  # (h, check) -> the kernel's settings
        bounds = self.start.tolist()
        self.slices = [(k, bounds[p], bounds[p + 1]) for p, k in enumerate(pairs)]
        self.name = structure.name
        self.actuated = bool(topo.actuated)
        self.actuators = np.zeros((2, lay.n_tree))
        self.actuators[1] = actuator_forces(s.tree, 0.0)  # those of ``bias_forces`` at rest
        self._forces = (None, None)  # (q, dV/dq at q (n,)) of the last committed end state
        self._energies = (None, None)  # (q, the kernel's scalars) of the same end state
        # the last sub-step handed back had tried De Saxce's fixed point in vain
        self.failed_de_saxce = False

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
            if theta > 0.5:  # read by the scheme's own loss
                forces_a[lay.tree], forces_a[lay.flexible] = st._conservative_forces(q_a)
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
        closed = np.empty((2, n_points), dtype=np.int64)
        contact = np.empty((2, 2 * n_points))
        gaps = np.empty(n_points)
        points = np.empty((n_points, 2))
        centres = np.empty((len(self.pairs), 2))
        forces_e = np.empty(n)
        scalars = np.empty(17)
        out = (state, closed, contact, gaps, points, centres, forces_e, scalars)
        kernels.substep(self.tree, self.string, self.flexible, self.grids, q_a, u_a, actuators,
                        forces_a, settings, out)  # fmt: skip
        outcome = int(scalars[0])
        if outcome == kernels.REJECTED:
            st.n_newton += int(scalars[2])  # the sweeps of a contact problem solved, as in Python
            return None
        if outcome == kernels.HANDED_BACK:
            st.n_fallback += 1
            self.failed_de_saxce = scalars[1] == 1.0  # the Python solver skips that stage
            return self.HANDED_BACK
        m = int(scalars[1])
        u_e, q_e = state[0], state[1]
        scans = {
            k: GridScan(gaps[a:b], centres[p], points[a:b])
            for p, (k, a, b) in enumerate(self.slices)
        }
        st._known(q_e).update(scans)
        st._end_forces = (q_e, (forces_e[lay.tree], forces_e[lay.flexible]))
        st._end_strain = (q_e, {self.name: float(scalars[10])})
        self._forces = (q_e, forces_e)
        self._energies = (q_e, scalars)
        pair = self._pair_of[closed[0, :m]]
        impulses = contact[0, : 2 * m]
        work = dict(zip(WORK_COLUMNS, scalars[4:10].tolist(), strict=True))
        work["work_drives"] = 0.0
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
            np.zeros(0),
        )

    def energies(self, stepper) -> Energies | None:
        """The ``system.energies`` of the stepper's state when it is the end state of the last
        compiled sub-step (the kernel's terms, ``kernels.moreau.substep``), else None. The
        string's damping power C(q_E) u . u needs its tangent at q_E: None when C_f is not
        zero; the joint actuators' power is evaluated here at the stepper's time."""
        q, scalars = self._energies
        if q is not stepper.q or self.damped:
            return None
        tree_kinetic, string_kinetic, gravity, springs, load_potential, dampers = scalars[
            11:17
        ].tolist()
        loads = 0.0
        if self.actuated:
            t_slice = stepper.system.layout.tree
            loads = float(actuator_forces(stepper.system.tree, stepper.t) @ stepper.u[t_slice])
        strain = float(scalars[10])
        return Energies(
            tree_kinetic=tree_kinetic,
            structure_kinetic=string_kinetic,
            gravity=gravity + load_potential,
            tree_springs=springs,
            structure_elastic=strain,
            damping_power=dampers,
            load_power=loads,
            structure_elastic_parts=((self.name, strain),),
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
    "merged_substeps",
    "summed_substeps",
]
