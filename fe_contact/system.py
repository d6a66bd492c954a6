"""assemble(model) -> System: everything constant about a model, and its state layout.

The state of every model is one flat pair (q, u) laid out by ``StateLayout``: the tree's joint
coordinates first (n_tree, possibly 0), then the free coordinates of each structure in the order
of ``Model.structures`` (``layout.structure(name)``). The structures' constant matrices are
assembled once with scikit-fem and kept block-diagonal over the flexible part
(``layout.flexible``):

    M_t(q) q_t'' + F_t(q_t, q_t', t)                = W_t lambda            (tree, 002 eq. 7)
    M_f q_f'' + C_f q_f' + f_int(q_f) - Q_f          = W_f lambda            (structures)

with the contact, drive and loop forces on the right. Steppers (``fe_contact.steppers``) take a
System and a state; nothing in a System changes in time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from . import validation as check
from .coupling.contact import compliant_forces
from .coupling.frames import carried_rows
from .coupling.links import LinkRows, link_rows
from .coupling.profile_structure import centre_line_samples
from .elements.beam import assemble_beam, self_weight
from .elements.beam_model import BeamSpec
from .elements.beam_points import point_load as beam_point_load
from .elements.string import assemble_string, gravity_force
from .elements.string import point_load as string_point_load
from .limits import check_memory
from .model import Model
from .multibody.tree import (
    TreeModel,
    actuator_forces,
    damping_power,
    kinetic_energy,
    potential_energy,
)
from .multibody.tree_model import resolve_point
from .sensors import SensorPlan
from .sides import CarriedBody
from .structure_points import MaterialPoint, support_matrices
from .structures import BeamStructure, StringStructure, Structure


@dataclass(frozen=True)
class StateLayout:
    """Named slices of q (and u): ``q[layout.tree]``, ``q[layout.structure("beam")]``,
    ``q[layout.flexible]`` (all structures).

    Parameters
    ----------
    n_tree : int
        Number of tree coordinates (first in q).
    structure_ranges : tuple of (str, int, int)
        (name, start, stop) of each structure's coordinates, in order.
    n : int
        Total number of coordinates.

    Examples
    --------
    A beam of 4 elements clamped at one end has 8 free coordinates (w, w' at 4 nodes):

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> system.layout.structure("beam"), system.layout.coordinate_name(0)
    (slice(0, 8, None), "structure 'beam' coordinate 0")
    """

    n_tree: int
    structure_ranges: tuple[tuple[str, int, int], ...]
    n: int

    @property
    def tree(self) -> slice:
        return slice(0, self.n_tree)

    @property
    def flexible(self) -> slice:
        return slice(self.n_tree, self.n)

    @property
    def n_flexible(self) -> int:
        return self.n - self.n_tree

    def structure(self, name: str) -> slice:
        for key, start, stop in self.structure_ranges:
            if key == name:
                return slice(start, stop)
        raise KeyError(f"no structure named {name!r}; known: {self.structure_names}")

    @property
    def structure_names(self) -> tuple[str, ...]:
        return tuple(key for key, _, _ in self.structure_ranges)

    def coordinate_name(self, i: int) -> str:
        """What entry i of q (or u) is: "tree joint 1" or "structure 'beam' coordinate 4"."""
        if i < self.n_tree:
            return f"tree joint {i}"
        for key, start, stop in self.structure_ranges:
            if start <= i < stop:
                return f"structure {key!r} coordinate {i - start}"
        raise IndexError(f"coordinate {i} of {self.n}")


@dataclass(frozen=True, eq=False)
class System:
    """An assembled model (constant).

    A System is constant: every attribute is set by ``assemble`` (``centre_line_samples``,
    ``sensor_plan`` and ``link_rows`` by ``__post_init__``, also on ``dataclasses.replace``)
    and none is written after, so one System may serve any number of runs, in any order, in
    threads or processes.
    What a run reuses from step to step (warm starts of the contact searches, the compiled
    step's factors) lives in that run's ``Workspace`` (``fe_contact.workspace``) or its stepper.

    Parameters
    ----------
    model : Model
        The model it was assembled from.
    tree : TreeModel or None
        The model's tree.
    layout : StateLayout
        Named slices of the state.
    structures : dict of str to Structure
        Name -> structure, in layout order.
    mass_flexible : scipy.sparse.csc_matrix, shape (n_flexible, n_flexible)
        Block-diagonal mass matrix of the structures.
    damping_flexible : scipy.sparse.csc_matrix, shape (n_flexible, n_flexible)
        The constant part of the block-diagonal damping (``flexible_damping(q)`` adds the
        damping that follows the tangent stiffness).
    stiffness_flexible : scipy.sparse.csc_matrix or None
        Constant K, shape (n_flexible, n_flexible), of the flexible part when every structure
        is linear, else None (then use ``flexible_tangent``).
    load_flexible : ndarray, shape (n_flexible,)
        Constant generalised load (gravity, point loads), N.
    profile_points : tuple
        Per contact, the local (x, y) in m of the profile's centre on its body.
    loop_points : tuple
        Per loop, ((x, y) on body a, (x, y) on body b or in the plane), m.
    grids : tuple
        Per contact, the PointRows of its candidate grid (search "grid") or None.

    Attributes
    ----------
    centre_line_samples : dict of str to PointRows
        Read, never written: structure name -> PointRows at 8 points per element of each
        structure a curved profile touches (its closest-point search's global start).
    sensor_plan : SensorPlan
        The plan of the model's joints and sensors (``sensors.state_values``).
    link_rows : LinkRows
        The constant rows of the links between material points of linear structures
        (``coupling.links.LinkRows``: every such link evaluated in one call).

    Examples
    --------
    The state of a pendulum with a 4-element cantilever: tree coordinates first, then the beam's:

    >>> from fe_contact import BeamSpec, Body, Joint, Model, TreeModel, assemble
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip}))
    >>> q0, u0 = system.initial_state([0.3])
    >>> system.n, q0[system.layout.tree], system.layout.structure("beam")
    (9, array([0.3]), slice(1, 9, None))
    """

    model: Model
    tree: TreeModel | None
    layout: StateLayout
    structures: dict
    mass_flexible: sp.csc_matrix
    damping_flexible: sp.csc_matrix
    stiffness_flexible: sp.csc_matrix | None
    load_flexible: np.ndarray
    profile_points: tuple
    loop_points: tuple
    grids: tuple
    centre_line_samples: dict = field(init=False, repr=False)
    sensor_plan: SensorPlan = field(init=False, repr=False)
    link_rows: LinkRows = field(init=False, repr=False)

    def __post_init__(self):
        # the constants derived from the fields, made here once (also by dataclasses.replace):
        # nothing is written on a System after this
        for matrix in (self.mass_flexible, self.damping_flexible, self.stiffness_flexible):
            # scipy notes on first use whether the indices are sorted (and sorts them in place
            # when not): done here, the first product of a run writes nothing on the matrix
            if matrix is not None and not matrix.has_canonical_format:
                matrix.sum_duplicates()
        targets = {c.target for c in self.model.contacts if c.curved and isinstance(c.target, str)}
        samples = {name: centre_line_samples(self.structures[name]) for name in sorted(targets)}
        object.__setattr__(self, "centre_line_samples", samples)
        object.__setattr__(self, "sensor_plan", SensorPlan(self))
        object.__setattr__(self, "link_rows", link_rows(self))

    @property
    def n(self) -> int:
        return self.layout.n

    @property
    def n_constraints(self) -> int:
        return len(self.model.constraint_names())

    @property
    def linear_flexible(self) -> bool:
        return self.stiffness_flexible is not None

    def structure_state(self, name: str, q: np.ndarray) -> np.ndarray:
        return q[self.layout.structure(name)]

    def initial_state(self, q_tree=None, u_tree=None) -> tuple[np.ndarray, np.ndarray]:
        """(q, u), each (n,): the given tree state (default zeros), every structure in its
        reference (undeformed, stress-free) configuration at rest.

        q_tree, u_tree : None or (n_tree,) finite reals, one per tree coordinate (m or rad,
        m/s or rad/s); a wrong length (no broadcasting of a single value) or a non-numeric or
        non-finite entry raises, naming the parameter and the entry."""
        q = np.zeros(self.n)
        u = np.zeros(self.n)
        lay = self.layout
        shape = (lay.n_tree,)
        if q_tree is not None:
            q[lay.tree] = check.finite_array(
                "initial_state.q_tree", q_tree, shape, lay.coordinate_name
            )
        if u_tree is not None:
            u[lay.tree] = check.finite_array(
                "initial_state.u_tree", u_tree, shape, lay.coordinate_name
            )
        for name, structure in self.structures.items():
            q[lay.structure(name)] = structure.initial_coordinates()
        return q, u

    def flexible_internal_force(self, q: np.ndarray) -> np.ndarray:
        """f_int of all structures, (n_flexible,), N."""
        if self.stiffness_flexible is not None:
            return self.stiffness_flexible @ q[self.layout.flexible]
        out = np.empty(self.layout.n_flexible)
        offset = self.layout.n_tree
        for name, structure in self.structures.items():
            sl = self.layout.structure(name)
            out[sl.start - offset : sl.stop - offset] = structure.internal_force(q[sl])
        return out

    def flexible_averaged_internal_force(self, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
        """Discrete gradient of all structures' strain energy over a step from q0 to q1 (full
        state vectors), (n_flexible,), N: ``f_avg . (q1 - q0)[flexible] = V(q1) - V(q0)``
        (``Structure.averaged_internal_force``)."""
        if self.stiffness_flexible is not None:
            return self.stiffness_flexible @ (0.5 * (q0 + q1)[self.layout.flexible])
        out = np.empty(self.layout.n_flexible)
        offset = self.layout.n_tree
        for name, structure in self.structures.items():
            sl = self.layout.structure(name)
            f = structure.averaged_internal_force(q0[sl], q1[sl])
            out[sl.start - offset : sl.stop - offset] = f
        return out

    def flexible_damping(self, q: np.ndarray) -> sp.csc_matrix:
        """C(q) of all structures (``Structure.damping``), block-diagonal sparse; the constant
        ``damping_flexible`` unless a structure has stiffness-proportional damping."""
        if all(s.stiffness_damping == 0.0 for s in self.structures.values()):
            return self.damping_flexible
        blocks = [s.damping(q[self.layout.structure(n)]) for n, s in self.structures.items()]
        return sp.block_diag(blocks, format="csc")

    def flexible_tangent(self, q: np.ndarray) -> sp.csc_matrix:
        """d f_int / dq of all structures, block-diagonal sparse (n_flexible, n_flexible)."""
        if self.stiffness_flexible is not None:
            return self.stiffness_flexible
        blocks = [
            s.tangent_stiffness(q[self.layout.structure(name)])
            for name, s in self.structures.items()
        ]
        return sp.block_diag(blocks, format="csc")


def _structure(name: str, spec, model: Model) -> Structure:
    g = np.asarray(model.gravity) if model.structure_gravity else np.zeros(2)
    loads = [ld for ld in model.loads if ld.structure == name]
    if isinstance(spec, BeamSpec):
        beam = assemble_beam(spec)
        full = self_weight(beam, g)
        for ld in loads:
            f = np.asarray(ld.force)
            full = full + beam_point_load(beam, ld.s, force=float(f @ beam.n0))
        structure = BeamStructure(name=name, beam=beam, load=full[beam.free_dofs])
        supports = [sp_ for sp_ in model.supports if sp_.structure == name]
        if supports:  # springs to the ground: constant K and C, added once
            k_s, c_s = support_matrices(structure, supports)
            structure.stiffness_matrix = (structure.stiffness_matrix + k_s).tocsr()
            structure.damping_matrix = (structure.damping_matrix + c_s).tocsr()
    else:
        string = assemble_string(spec)
        full = gravity_force(string) if model.structure_gravity else np.zeros(string.n_dofs)
        for ld in loads:
            full = full + string_point_load(string, ld.s, np.asarray(ld.force))
        structure = StringStructure(name=name, string=string, load=string.reduce(full))
    carried = [b for b in (*model.carried, *_clamps(model)) if b.structure == name]
    _carry(structure, carried, model.gravity)
    return structure


def _clamps(model: Model) -> list[CarriedBody]:
    """Half of each link's mass (``Dropper.mass``) at each of its clamps, as carried point
    masses (mass and weight, ``_carry``)."""
    out = []
    for c in model.contacts:
        if c.link and c.law.mass > 0.0:
            for side, end in ((c.profile, "a"), (c.target, "b")):
                name = f"{c.name}_clamp_{end}"
                out.append(CarriedBody(name, side.structure, side.s, 0.5 * c.law.mass))
    return out


def _carry(structure: Structure, bodies, gravity) -> None:
    """Add carried rigid bodies to a structure: mass m N^T N + J N_theta^T N_theta at the
    material point (N: the rows of r(s) over the free coordinates, N_theta: the rows of the
    slope angle, N' / (1 + w'^2) on a beam, taken in the reference state: small rotations, as
    the linear beam) and the weight N^T m g in the load."""
    if not bodies:
        return
    q0 = structure.initial_coordinates()
    n = structure.n_dofs
    added = sp.lil_matrix((n, n))
    load = structure.load.copy()
    for body in bodies:
        dofs, rows, angle = carried_rows(structure, body.s, q0)
        block = body.mass * rows.T @ rows + body.inertia * np.outer(angle, angle)
        for a, i in enumerate(dofs):
            for b, j in enumerate(dofs):
                added[i, j] += block[a, b]
        np.add.at(load, dofs, rows.T @ (body.mass * np.asarray(gravity, dtype=float)))
    structure.mass_matrix = (structure.mass_matrix + added.tocsr()).tocsr()
    structure.load = load


def assemble(model: Model, max_memory: float | None = None) -> System:
    """Assemble the constant parts of a model once.

    The structures (scikit-fem), their block-diagonal mass, damping and (when linear)
    stiffness, loads, layout, resolved points.

    Parameters
    ----------
    model : Model
        The model.
    max_memory : float or None, optional
        Bytes; a model whose memory estimate from its unknowns exceeds it is refused before
        anything is allocated (``limits.check_memory``). None (the default):
        $FE_CONTACT_MAX_MEMORY, else half of the physical memory.

    Returns
    -------
    System
        The assembled, constant system.

    Raises
    ------
    TypeError
        When ``model`` is not a Model.
    ValueError
        When the model's memory estimate exceeds ``max_memory`` (``limits.LimitExceeded``, a
        ValueError), or a structure cannot be assembled.

    Examples
    --------
    A 0.4 m steel strip clamped at x = 0, 4 elements: 2 DOFs per node, the clamped node's two
    removed, so 8 coordinates; its mass is rho A L = 0.0282 kg:

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> system.n
    8
    >>> print(f"{strip.mass_per_length * strip.length:.4g} kg")
    0.0282 kg
    """
    if not isinstance(model, Model):
        raise TypeError(f"assemble: model = {type(model).__name__}; allowed: a Model")
    check_memory(model, max_memory)
    structures = {name: _structure(name, spec, model) for name, spec in model.structures.items()}
    n_tree = model.n_tree
    ranges, start = [], n_tree
    for name, s in structures.items():
        ranges.append((name, start, start + s.n_dofs))
        start += s.n_dofs
    layout = StateLayout(n_tree, tuple(ranges), start)
    blocks = list(structures.values())
    if blocks:
        mass = sp.block_diag([b.mass_matrix for b in blocks], format="csc")
        damping = sp.block_diag([b.damping_matrix for b in blocks], format="csc")
        linear = all(b.linear for b in blocks)
        stiffness = (
            sp.block_diag([b.stiffness_matrix for b in blocks], format="csc") if linear else None
        )
        load = np.concatenate([b.load for b in blocks])
    else:
        mass = damping = stiffness = sp.csc_matrix((0, 0))
        load = np.zeros(0)
    tree = model.tree
    profile_points = tuple(
        (0.0, 0.0)
        # a Profile: its curve is in its body's frame; a MaterialPoint is on a structure
        if hasattr(c.profile, "curve") or isinstance(c.profile, MaterialPoint)
        else resolve_point(tree, c.profile.body, c.profile.at, f"contact {c.name!r}")
        for c in model.contacts
    )
    loop_points = tuple(
        (
            resolve_point(tree, lp.body_a, lp.point_a, lp.name),
            tuple(float(v) for v in lp.point_b)
            if lp.body_b is None
            else resolve_point(tree, lp.body_b, lp.point_b, lp.name),
        )
        for lp in model.loops
    )
    grids = []
    for c in model.contacts:
        if c.search == "grid":
            s = structures[c.target]
            # a closed string's s = length is its s = 0: the grid does not repeat it
            grid = np.linspace(0.0, s.length, c.n_candidates, endpoint=not s.closed)
            grids.append(s.point_rows(grid))
        else:
            grids.append(None)
    return System(
        model=model,
        tree=tree,
        layout=layout,
        structures=structures,
        mass_flexible=mass,
        damping_flexible=damping,
        stiffness_flexible=stiffness,
        load_flexible=load,
        profile_points=profile_points,
        loop_points=loop_points,
        grids=tuple(grids),
    )


@dataclass(frozen=True)
class Energies:
    """Energies at one state, J, and the powers of the non-constraint forces, W.

    Parameters
    ----------
    tree_kinetic : float
        Kinetic energy of the tree, J.
    structure_kinetic : float
        Kinetic energy of the structures, J.
    gravity : float
        Potential of gravity (tree) and of the structures' constant loads, J.
    tree_springs : float
        Energy of the joint springs, J.
    structure_elastic : float
        Strain energy of the structures, J.
    damping_power : float
        Joint dampers + structural damping, W (>= 0, dissipated).
    load_power : float
        Work rate of the joint actuators (time-dependent applied forces), W.
    contact_elastic : float, optional
        Elastic energy of the compliant contacts, c a^(p+1) / (p + 1), J (part of
        ``elastic``; their Hunt-Crossley damping power is part of ``damping_power``); 0 by
        default.
    contact_friction_power : float, optional
        Power dissipated by the compliant contacts' friction, W (>= 0); 0 by default.
    structure_elastic_parts : tuple of (str, float), optional
        The strain energy of each structure, (name, J), in the order of ``System.structures``
        (their sum is ``structure_elastic``), when ``energies`` evaluated them; () otherwise.
        The history's part energies read them (``part_energies``) instead of evaluating them
        again.

    Examples
    --------
    See ``energies``; the parts add up to ``total``:

    >>> from fe_contact.system import Energies
    >>> e = Energies(tree_kinetic=0.5, structure_kinetic=0.25, gravity=-1.0, tree_springs=0.5,
    ...              structure_elastic=2.0, damping_power=0.0, load_power=0.0)
    >>> e.kinetic, e.potential, e.elastic, e.total
    (0.75, -1.0, 2.5, 2.25)
    """

    tree_kinetic: float
    structure_kinetic: float
    gravity: float
    tree_springs: float
    structure_elastic: float
    damping_power: float
    load_power: float
    contact_elastic: float = 0.0
    contact_friction_power: float = 0.0
    structure_elastic_parts: tuple = ()

    @property
    def kinetic(self) -> float:
        return self.tree_kinetic + self.structure_kinetic

    @property
    def potential(self) -> float:
        return self.gravity

    @property
    def elastic(self) -> float:
        return self.tree_springs + self.structure_elastic + self.contact_elastic

    @property
    def total(self) -> float:
        return self.kinetic + self.potential + self.elastic


def energies(
    system: System, q: np.ndarray, u: np.ndarray, t: float, workspace=None, elastic=None
) -> Energies:
    """Mechanical energies and non-constraint powers at (q, u, t).

    Parameters
    ----------
    system : System
        The assembled model.
    q : ndarray, shape (n,)
        Coordinates (m, rad).
    u : ndarray, shape (n,)
        Rates (m/s, rad/s).
    t : float
        Time, s.
    workspace : Workspace or None, optional
        The run's ``Workspace`` (warm starts of the Compliant contacts' searches) or None (the
        default).
    elastic : dict of str to float, optional
        Strain energies at q, J, of structures by name that the caller has already evaluated
        (a stepper's kernels, with their forces); the others are evaluated here.

    Returns
    -------
    Energies
        Energies in J and powers in W.

    Examples
    --------
    A point mass pendulum (1 kg, l = 0.5 m) pointing up and turning at 2 rad/s:
    kinetic m (l omega)^2 / 2 = 0.5 J, gravity m g l = 4.905 J:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> from fe_contact.system import energies
    >>> e = energies(system, np.array([np.pi / 2]), np.array([2.0]), t=0.0)
    >>> print(f"{e.kinetic:.4g} J + {e.potential:.4g} J = {e.total:.4g} J")
    0.5 J + 4.905 J = 5.405 J
    """
    lay = system.layout
    tree = system.tree
    tk = tg = ts = tdp = tlp = 0.0
    if tree is not None:
        q_t, u_t = q[lay.tree], u[lay.tree]
        stiffness = np.array([j.stiffness for j in tree.joints])
        rest = np.array([j.rest for j in tree.joints])
        tk = kinetic_energy(tree, q_t, u_t)
        ts = 0.5 * float(stiffness @ (q_t - rest) ** 2)
        tg = potential_energy(tree, q_t) - ts
        tdp = damping_power(tree, u_t)
        tlp = float(actuator_forces(tree, t) @ u_t)
    sk = se = sg = sdp = 0.0
    parts = []
    for name, s in system.structures.items():
        sl = lay.structure(name)
        sk += s.kinetic_energy(u[sl])
        strain = elastic[name] if elastic and name in elastic else s.elastic_energy(q[sl])
        parts.append((name, strain))
        se += strain
        sg += s.load_potential(q[sl])
        sdp += s.damping_power(q[sl], u[sl])
    ce = cdp = cfp = 0.0
    if any(c.compliant for c in system.model.contacts):
        q, u = np.asarray(q, float), np.asarray(u, float)
        for f in compliant_forces(system, q, u, workspace=workspace):
            ce += f.energy
            cdp += f.damping_power
            cfp += f.friction_power
    return Energies(
        tree_kinetic=tk,
        structure_kinetic=sk,
        gravity=tg + sg,
        tree_springs=ts,
        structure_elastic=se,
        damping_power=tdp + sdp + cdp,
        load_power=tlp,
        contact_elastic=ce,
        contact_friction_power=cfp,
        structure_elastic_parts=tuple(parts),
    )


__all__ = ["Energies", "StateLayout", "System", "assemble", "energies"]
