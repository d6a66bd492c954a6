"""A tree coupled to a beam by constraints: model description, assembly and per-state evaluation.

Coordinates: ``q = (q_b, q_c)``, the tree's joint coordinates (n_b) followed by the beam's free DOFs
(n_c). Equations of motion with the constraint set (Lipinski (002), eqs. 71a-b, 60-62):

    M_b(q_b) q_b'' + F_b(q_b, q_b', t) = J_Sigma^b^T lambda
    M_c q_c'' + C_c q_c' + K_c q_c - Q_c = J_Sigma^c^T lambda
    J q'' + A = 0,   J q' + phi_t = 0,   phi(q, t) = 0

``F_b`` holds Coriolis, centrifugal, gravity, joint springs, dampers and actuators (002 eq. 7),
``Q_c`` the beam's weight. Constraints: contacts (one row each, multiplier = normal force in N),
drives (one row, multiplier = driving torque/force) and loop closures (two rows, multipliers = the
force of the closure on body a, N).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .coupling.contact import ContactKinematics, ContactSpec, contact_kinematics, friction_rows
from .elements.beam import Beam, BeamSpec, assemble_beam, self_weight
from .multibody.drive import Drive
from .multibody.tree import (
    TreeModel,
    actuator_forces,
    damping_power,
    equations_of_motion,
    kinetic_energy,
    point_kinematics,
    potential_energy,
)


@dataclass(frozen=True)
class LoopClosure:
    """Point ``point_a`` of body ``body_a`` coincides with ``point_b`` of ``body_b`` (None: ground,
    then ``point_b`` is a fixed point in the plane). Two rows; multipliers: force on body a, N."""

    body_a: int
    point_a: tuple[float, float] | str
    body_b: int | None = None
    point_b: tuple[float, float] | str = (0.0, 0.0)
    name: str = "loop"


@dataclass(frozen=True)
class Model:
    """A tree, a beam and the constraints between them (all SI).

    tree : TreeModel. beam : BeamSpec. contacts : tuple of ContactSpec. drives : tuple of Drive
    (prescribed joint motion). loops : tuple of LoopClosure. beam_gravity : apply the tree's
    gravity to the beam too.
    """

    tree: TreeModel
    beam: BeamSpec
    contacts: tuple[ContactSpec, ...] = ()
    drives: tuple[Drive, ...] = ()
    loops: tuple[LoopClosure, ...] = ()
    beam_gravity: bool = True

    def __post_init__(self):
        n_b = self.tree.n_bodies
        names = [c.name for c in self.contacts]
        if len(set(names)) != len(names):
            raise ValueError(f"contact names must be unique, got {names}")
        for c in self.contacts:
            _resolve_point(self.tree, c.body, c.point, f"contact {c.name!r}")
        joints = [d.joint for d in self.drives]
        for j in joints:
            if not 0 <= j < n_b:
                raise ValueError(
                    f"drive joint {j} does not exist; the tree has joints 0..{n_b - 1}"
                )
        if len(set(joints)) != len(joints):
            raise ValueError(f"a joint may be driven once only, got drives on joints {joints}")
        for loop in self.loops:
            _resolve_point(self.tree, loop.body_a, loop.point_a, f"loop {loop.name!r}")
            if loop.body_b is not None:
                _resolve_point(self.tree, loop.body_b, loop.point_b, f"loop {loop.name!r}")
        if self.n_constraints > n_b:
            raise ValueError(
                f"{self.n_constraints} constraint rows but only {n_b} tree coordinates: the "
                "dependent coordinates are taken from the tree, so it needs at least one per row"
            )

    @property
    def n_constraints(self) -> int:
        return len(self.contacts) + len(self.drives) + 2 * len(self.loops)

    def constraint_names(self) -> tuple[str, ...]:
        names = [c.name for c in self.contacts]
        names += [f"drive_{d.joint}" for d in self.drives]
        for loop in self.loops:
            names += [f"{loop.name}_x", f"{loop.name}_y"]
        return tuple(names)


def _resolve_point(tree: TreeModel, body, point, where: str):
    if not isinstance(body, int | np.integer) or not 0 <= body < tree.n_bodies:
        raise ValueError(f"{where}: body {body!r} does not exist (0..{tree.n_bodies - 1})")
    if isinstance(point, str):
        if point not in tree.points:
            raise ValueError(f"{where}: no point named {point!r}; known: {sorted(tree.points)}")
        point_body, local = tree.points[point]
        if point_body != body:
            raise ValueError(f"{where}: point {point!r} is on body {point_body}, not {body}")
        return tuple(local)
    local = tuple(float(v) for v in point)
    if len(local) != 2:
        raise ValueError(f"{where}: point must be (x, y) or a point name, got {point!r}")
    return local


@dataclass(frozen=True)
class StateLayout:
    """Named slices of q (and of u): ``q[layout.tree]``, ``q[layout.beam]``."""

    n_tree: int
    n_beam: int

    @property
    def n(self) -> int:
        return self.n_tree + self.n_beam

    @property
    def tree(self) -> slice:
        return slice(0, self.n_tree)

    @property
    def beam(self) -> slice:
        return slice(self.n_tree, self.n_tree + self.n_beam)


@dataclass(frozen=True, eq=False)
class System:
    """Everything constant about a model: assembled beam matrices (free DOFs), loads, layout."""

    model: Model
    beam: Beam
    layout: StateLayout
    mass_beam: sp.csc_matrix
    stiffness_beam: sp.csc_matrix
    damping_beam: sp.csc_matrix
    load_beam: np.ndarray
    free_index: np.ndarray  # full beam DOF -> position in q_c, -1 when fixed
    contact_points: tuple[tuple[float, float], ...]
    loop_points: tuple[tuple[tuple[float, float], tuple[float, float]], ...]
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def tree(self) -> TreeModel:
        return self.model.tree

    @property
    def n_constraints(self) -> int:
        return self.model.n_constraints

    def beam_full(self, q_c: np.ndarray) -> np.ndarray:
        """Full beam DOF vector from q_c (fixed DOFs zero)."""
        return self.beam.expand(q_c)


def assemble(model: Model) -> System:
    """Assemble the constant parts once: beam M, K, C on the free DOFs, its weight, the layout."""
    beam = assemble_beam(model.beam)
    free = beam.free_dofs
    free_index = -np.ones(beam.n_dofs, dtype=int)
    free_index[free] = np.arange(free.size)
    load = (
        self_weight(beam, model.tree.gravity)[free] if model.beam_gravity else np.zeros(free.size)
    )
    return System(
        model=model,
        beam=beam,
        layout=StateLayout(model.tree.n_bodies, free.size),
        mass_beam=beam.reduced("mass").tocsc(),
        stiffness_beam=beam.reduced("stiffness").tocsc(),
        damping_beam=beam.reduced("damping").tocsc(),
        load_beam=load,
        free_index=free_index,
        contact_points=tuple(
            _resolve_point(model.tree, c.body, c.point, c.name) for c in model.contacts
        ),
        loop_points=tuple(
            (
                _resolve_point(model.tree, lp.body_a, lp.point_a, lp.name),
                tuple(float(v) for v in lp.point_b)
                if lp.body_b is None
                else _resolve_point(model.tree, lp.body_b, lp.point_b, lp.name),
            )
            for lp in model.loops
        ),
    )


@dataclass(frozen=True)
class Evaluation:
    """The system at one state (q, u, t).

    mass_tree : (n_b, n_b). forces : (n,) F of M q'' + F = J_Sigma^T lambda (tree: F_b; beam:
    C u + K q - Q). phi : (m,) position residuals. jac : (m, n) J. jac_sigma : (m, n) J_Sigma
    (002 eq. 71c). remainder : (m,) A of J q'' + A = 0. phi_t : (m,) with J q' + phi_t = 0.
    contacts : ContactKinematics per contact. slip_sign : (n_contacts,) sign used for friction.
    """

    t: float
    q: np.ndarray
    u: np.ndarray
    mass_tree: np.ndarray
    forces: np.ndarray
    phi: np.ndarray
    jac: np.ndarray
    jac_sigma: np.ndarray
    remainder: np.ndarray
    phi_t: np.ndarray
    contacts: tuple[ContactKinematics, ...]
    slip_sign: np.ndarray


def evaluate_state(system: System, q, u, t: float, slip_sign=None, constraints_only=False):
    """Evaluate dynamics and constraints at (q, u, t).

    slip_sign : (n_contacts,) signs of the slip velocity to use for friction; by default the signs
    of the slip velocities at this state (002 eq. 63). ``constraints_only`` skips M and F.
    """
    layout = system.layout
    tree = system.tree
    model = system.model
    q = np.asarray(q, dtype=float)
    u = np.asarray(u, dtype=float)
    if q.shape != (layout.n,) or u.shape != (layout.n,):
        raise ValueError(f"q and u must have shape ({layout.n},), got {q.shape} and {u.shape}")
    q_b, u_b = q[layout.tree], u[layout.tree]
    q_full = system.beam_full(q[layout.beam])
    u_full = system.beam_full(u[layout.beam])
    m = model.n_constraints
    phi = np.zeros(m)
    jac = np.zeros((m, layout.n))
    jac_sigma = np.zeros((m, layout.n))
    remainder = np.zeros(m)
    phi_t = np.zeros(m)
    contacts = []
    signs = np.zeros(len(model.contacts))
    row = 0
    for i, (spec, local) in enumerate(zip(model.contacts, system.contact_points, strict=True)):
        pk = point_kinematics(tree, q_b, u_b, spec.body, local)
        c = contact_kinematics(system.beam, spec.side, pk, q_full, u_full, spec.name)
        contacts.append(c)
        cols = system.free_index[c.beam_dofs]
        keep = cols >= 0
        phi[row] = c.gap
        jac[row, layout.tree] = c.jac_tree
        jac[row, layout.n_tree + cols[keep]] = c.jac_beam[keep]
        remainder[row] = c.remainder
        s = np.sign(c.slip_velocity) if slip_sign is None else float(slip_sign[i])
        signs[i] = s
        jac_sigma[row] = jac[row]
        if spec.mu > 0.0 and s != 0.0:
            jt_tree, jt_beam = friction_rows(c, spec.mu, s)
            jac_sigma[row, layout.tree] += jt_tree
            jac_sigma[row, layout.n_tree + cols[keep]] += jt_beam[keep]
        row += 1
    for d in model.drives:
        phi[row] = q_b[d.joint] - d.position(t)
        jac[row, d.joint] = 1.0
        jac_sigma[row, d.joint] = 1.0
        phi_t[row] = -d.velocity(t)
        remainder[row] = -d.acceleration(t)
        row += 1
    for loop, (pa, pb) in zip(model.loops, system.loop_points, strict=True):
        ka = point_kinematics(tree, q_b, u_b, loop.body_a, pa)
        pos, jl, rem = ka.position.copy(), ka.jacobian.copy(), ka.acceleration_remainder.copy()
        if loop.body_b is None:
            pos -= np.asarray(pb)
        else:
            kb = point_kinematics(tree, q_b, u_b, loop.body_b, pb)
            pos -= kb.position
            jl -= kb.jacobian
            rem -= kb.acceleration_remainder
        phi[row : row + 2] = pos
        jac[row : row + 2, layout.tree] = jl
        jac_sigma[row : row + 2, layout.tree] = jl
        remainder[row : row + 2] = rem
        row += 2
    if constraints_only:
        mass_tree = None
        forces = None
    else:
        eom = equations_of_motion(tree, q_b, u_b, t)
        mass_tree = eom.mass_matrix
        forces = np.empty(layout.n)
        forces[layout.tree] = eom.bias_forces
        forces[layout.beam] = (
            system.damping_beam @ u[layout.beam]
            + system.stiffness_beam @ q[layout.beam]
            - system.load_beam
        )
    return Evaluation(
        t=t,
        q=q,
        u=u,
        mass_tree=mass_tree,
        forces=forces,
        phi=phi,
        jac=jac,
        jac_sigma=jac_sigma,
        remainder=remainder,
        phi_t=phi_t,
        contacts=tuple(contacts),
        slip_sign=signs,
    )


def mass_times(system: System, ev: Evaluation, a: np.ndarray) -> np.ndarray:
    """M a for the block-diagonal mass matrix diag(M_b(q), M_c), shape (n,)."""
    layout = system.layout
    out = np.empty(layout.n)
    out[layout.tree] = ev.mass_tree @ a[layout.tree]
    out[layout.beam] = system.mass_beam @ a[layout.beam]
    return out


@dataclass(frozen=True)
class Energies:
    """Energies at one state, J: tree kinetic, tree potential (gravity + joint springs), beam
    kinetic, beam elastic, beam gravity potential; and the powers, W: damping (>= 0, dissipated by
    joint dampers and Rayleigh damping), actuator (work rate of joint actuators)."""

    tree_kinetic: float
    tree_potential: float
    beam_kinetic: float
    beam_elastic: float
    beam_gravity: float
    damping_power: float
    actuator_power: float

    @property
    def total(self) -> float:
        return (
            self.tree_kinetic
            + self.tree_potential
            + self.beam_kinetic
            + self.beam_elastic
            + self.beam_gravity
        )


def energies(system: System, q, u, t: float) -> Energies:
    """Mechanical energies and non-constraint powers at (q, u, t)."""
    layout = system.layout
    q_b, u_b = q[layout.tree], u[layout.tree]
    q_c, u_c = q[layout.beam], u[layout.beam]
    return Energies(
        tree_kinetic=kinetic_energy(system.tree, q_b, u_b),
        tree_potential=potential_energy(system.tree, q_b),
        beam_kinetic=0.5 * float(u_c @ (system.mass_beam @ u_c)),
        beam_elastic=0.5 * float(q_c @ (system.stiffness_beam @ q_c)),
        beam_gravity=-float(system.load_beam @ q_c),
        damping_power=damping_power(system.tree, u_b) + float(u_c @ (system.damping_beam @ u_c)),
        actuator_power=float(actuator_forces(system.tree, t) @ u_b),
    )
