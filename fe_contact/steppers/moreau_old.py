"""Moreau-Jean time stepping of a rigid disk on a string and on rigid lines, Eugster-Glocker (004).

System. The generalized velocities are ``u = (u_string[free_dofs], x', y', phi')``: the string's
free dofs (its pinned ends are bilateral constraints eliminated with their dofs, the perfect
bearings of 004 eq. (18) with the gap g_B held at zero) followed by the disk's centre (x, y) and
rotation phi. The disk coordinates are exactly the joint coordinates of a ``multibody.tree`` chain
prismatic x -> prismatic y -> revolute; the two carrier bodies are massless, so the mass matrix is
the constant ``diag(m, m, J)`` of 004 eq. (14) and the bias forces vanish. The string obeys
``M q'' + f_int(q) = f_ext`` (004 eq. (11), no Christoffel term: r is linear in q).

Time step (h, theta in [1/2, 1]) from q_A, u_A to q_E, u_E, on velocity-impulse level:

1. predictor ``q_P = q_A + theta h u_A`` (for theta = 1/2 Moreau's midpoint q_M);
2. smooth forces at q_P: ``f = f_ext - f_int(q_P)``, tangent ``K = df_int/dq(q_P)`` and, with
   stiffness-proportional damping ``C = beta K`` on the string,
   ``M_eff = M + theta h C + theta^2 h^2 K``; this is Jean's theta method
   ``M (u_E - u_A) = h [theta f(q_E) + (1 - theta) f(q_A) - C u_theta] + W P`` with
   ``q_E = q_A + h ((1 - theta) u_A + theta u_E)``, the forces linearised about q_P
   (one Newton step), so the string's stiffness never limits the step size. theta = 1/2 is the
   energy-conserving midpoint/trapezoidal rule, theta > 1/2 damps the unresolved modes;
3. contacts: candidates with ``g_N(q_P) <= 0`` are closed (Moreau's index set); their
   ``W = [W_N, W_T]`` at q_P (004 eq. (22)), Delassus ``G = W^T M_eff^-1 W``, and the impulses P
   from ``xi = W^T u_E + e W^T u_A`` in the normal cones of 004 eqs. (26)-(27) (Newton's impact law,
   004 sec. 4.5), solved by ``coupling.setvalued.solve_contact_impulses``;
4. ``u_E = u_A + M_eff^-1 (h (f - C u_A) + W P)``, ``q_E = q_A + h u_A + theta h (u_E - u_A)``.

Penetration: ``q_E - q_P = theta h u_E + (1 - 2 theta) h u_A``; for theta = 1/2,
``g_N(q_E) >= g_N(q_P) + h/2 gamma_N,E >= g_N(q_P)`` on closed contacts (e = 0; the gap
``|r_M - r_P| - R`` is convex in q), so a contact penetrates by at most about theta h times its
closing speed, and that does not drift: the penetration of the last closure stays while the
contact is closed. Sub-stepping at closures (``penetration_tolerance``, default 1e-5 m) keeps it
below a tolerance: a step that would make a candidate penetrate deeper than the tolerance (or
deeper than it already was) is replaced by two half steps, recursively; the extra steps are
taken only around the closures. This is the same scheme with smaller steps, so every energy
statement of a step holds for the sub-steps. A position projection after the step (post-
stabilisation) was tried and rejected: on the string it does work against the contact forces
(lambda_N times the penetration, at every closure) and, with the string light compared with the
disk and the contact points coupled by the Hermite shape functions, it pushed the string into
neighbouring candidates, fed energy into the string (up to 1 J per step in example 1 against an
honest bound of m g^2 h^2 = 3e-3 J) and moved the frictionless rest state by 9 mm.
"""

from __future__ import annotations

import csv
import dataclasses
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lu_factor, lu_solve
from scipy.sparse.linalg import splu

from ..coupling.setvalued import (
    ContactKinematics,
    ContactLaw,
    ContactSolverError,
    disk_line_kinematics,
    disk_string_gaps,
    disk_string_kinematics,
    solve_contact_impulses,
)
from ..elements.string import (
    PointJacobian,
    StringModel,
    gravity_force,
    internal_force,
    position_jacobian,
    strain_energy,
    tangent_stiffness,
)
from ..io.vtk import Block, PvdWriter, disk_block, string_block

__all__ = [
    "Disk",
    "DiskContactModel",
    "Energies",
    "MoreauJean",
    "MoreauResult",
    "RigidLine",
    "StateLayout",
    "StepReport",
    "candidate_gaps",
    "candidate_kinematics",
    "disk_contact_model",
    "energies",
    "MoreauPvdWriter",
    "contact_block",
    "frame_blocks",
    "initial_state",
    "simulate",
    "string_coordinates",
    "write_pvd",
]


_DENSE_LIMIT = 300  # free string dofs up to which M_eff is factorised densely
FRICTIONLESS = ContactLaw()  # mu = 0, e_N = e_T = 0 (frozen, safe as a default)
PENETRATION_TOLERANCE = 1e-5  # m, default sub-stepping tolerance at closures (see MoreauJean)

# --------------------------------------------------------------------------------------------
# Descriptions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Disk:
    """Homogeneous rigid disk: radius R in m, mass m in kg, polar moment J about M in kg m^2."""

    radius: float
    mass: float
    inertia: float

    def __post_init__(self):
        for name in ("radius", "mass", "inertia"):
            value = getattr(self, name)
            if not np.isscalar(value) or not np.isfinite(value) or value <= 0.0:
                raise ValueError(f"Disk.{name}: got {value!r}; allowed: a finite number > 0")

    @classmethod
    def from_areal_density(cls, radius: float, density: float) -> Disk:
        """Disk of areal density rho_D (kg/m^2): m = rho_D pi R^2, J = rho_D pi R^4 / 2 (004 eq. (14))."""
        return cls(radius, density * np.pi * radius**2, 0.5 * density * np.pi * radius**4)


@dataclass(frozen=True)
class RigidLine:
    """Rigid straight line through ``point`` (m) with ``normal`` pointing to the free side.

    The normal need not be unit length; ``unit_normal`` normalises it.
    """

    point: tuple[float, float]
    normal: tuple[float, float]
    law: ContactLaw = FRICTIONLESS

    def __post_init__(self):
        n = np.asarray(self.normal, dtype=float)
        if n.shape != (2,) or not np.all(np.isfinite(n)) or np.hypot(*n) == 0.0:
            raise ValueError(f"RigidLine.normal: got {self.normal!r}; allowed: a nonzero 2-vector")

    @property
    def unit_normal(self) -> np.ndarray:
        n = np.asarray(self.normal, dtype=float)
        return n / np.hypot(*n)

    @classmethod
    def incline(cls, angle: float, point=(0.0, 0.0), law: ContactLaw = FRICTIONLESS) -> RigidLine:
        """Line rising at ``angle`` (rad) towards +x, free side above: n = (-sin a, cos a)."""
        return cls(tuple(point), (-np.sin(angle), np.cos(angle)), law)


@dataclass(frozen=True)
class StateLayout:
    """Named parts of q and u: ``string`` (free string dofs), ``disk`` (x, y, phi); n entries."""

    string: slice
    disk: slice
    n: int


@dataclass(frozen=True, eq=False)
class DiskContactModel:
    """A disk, optionally a string, and rigid lines; holds nothing that changes in time.

    disk : Disk.  string : StringModel or None.  lines : tuple of RigidLine.
    contact_points : material coordinates s_i of the candidate points on the string, (ncp,) m.
    string_law : ContactLaw of every string candidate.
    gravity : (2,) m/s^2.  stiffness_damping : beta in s, string damping C = beta K.
    layout : StateLayout.  jacobian : position_jacobian at contact_points (None without string).
    string_index : column in u of each string dof, -1 at fixed dofs, (n_string_dofs,).
    disk_index : columns of (x, y, phi) in u, (3,).
    string_gravity : gravity_force(string), (n_string_dofs,).
    friction, restitution_normal, restitution_tangent : per candidate (string points, then lines),
        shape (n_candidates,).
    """

    disk: Disk
    string: StringModel | None
    lines: tuple[RigidLine, ...]
    contact_points: np.ndarray
    string_law: ContactLaw
    gravity: np.ndarray
    stiffness_damping: float
    layout: StateLayout
    jacobian: PointJacobian | None
    string_index: np.ndarray
    disk_index: np.ndarray
    string_gravity: np.ndarray
    friction: np.ndarray
    restitution_normal: np.ndarray
    restitution_tangent: np.ndarray
    _string_mass: sp.csc_matrix | None = field(repr=False)

    @property
    def n_candidates(self) -> int:
        return int(self.friction.size)

    @property
    def n_string_points(self) -> int:
        return int(self.contact_points.size)


def disk_contact_model(
    disk: Disk,
    string: StringModel | None = None,
    n_contact_points: int = 0,
    contact_points=None,
    string_law: ContactLaw = FRICTIONLESS,
    lines: tuple[RigidLine, ...] = (),
    gravity=None,
    stiffness_damping: float = 0.0,
) -> DiskContactModel:
    """Assemble the constant parts: layout, candidate-point Jacobian, laws per candidate.

    n_contact_points : ncp equally spaced material points s_i = linspace(0, L, ncp) on the string
        (004 eq. (20)), or give ``contact_points`` (m) explicitly.
    gravity : (2,) m/s^2 for the disk; None = the string's gravity, or (0, -9.81) without string.
    """
    if not np.isfinite(stiffness_damping) or stiffness_damping < 0.0:
        raise ValueError(f"stiffness_damping: got {stiffness_damping!r}; allowed: beta >= 0 in s")
    for line in lines:
        if not isinstance(line, RigidLine):
            raise ValueError(f"lines: got {line!r}; allowed: RigidLine instances")
    if gravity is None:
        gravity = (0.0, -9.81) if string is None else string.spec.gravity
    gravity = np.asarray(gravity, dtype=float)
    if string is None:
        if contact_points is not None or n_contact_points:
            raise ValueError("contact_points: string candidate points need a string model")
        points = np.zeros(0)
        n_free = 0
        jacobian = None
        string_index = np.zeros(0, dtype=np.int64)
        string_gravity = np.zeros(0)
        string_mass = None
    else:
        if contact_points is None:
            if n_contact_points < 1:
                raise ValueError(
                    f"n_contact_points: got {n_contact_points!r}; allowed: an integer >= 1 "
                    "(or explicit contact_points)"
                )
            points = np.linspace(0.0, string.spec.length, int(n_contact_points))
        else:
            points = np.atleast_1d(np.asarray(contact_points, dtype=float))
        jacobian = position_jacobian(string, points)
        n_free = string.free_dofs.size
        string_index = np.full(string.n_dofs, -1, dtype=np.int64)
        string_index[string.free_dofs] = np.arange(n_free)
        string_gravity = gravity_force(string)
        string_mass = string.mass_matrix[string.free_dofs][:, string.free_dofs].tocsc()
    layout = StateLayout(string=slice(0, n_free), disk=slice(n_free, n_free + 3), n=n_free + 3)
    laws = [string_law] * points.size + [line.law for line in lines]
    return DiskContactModel(
        disk=disk,
        string=string,
        lines=tuple(lines),
        contact_points=points,
        string_law=string_law,
        gravity=gravity,
        stiffness_damping=float(stiffness_damping),
        layout=layout,
        jacobian=jacobian,
        string_index=string_index,
        disk_index=np.arange(n_free, n_free + 3),
        string_gravity=string_gravity,
        friction=np.array([law.friction for law in laws], dtype=float),
        restitution_normal=np.array([law.restitution_normal for law in laws], dtype=float),
        restitution_tangent=np.array([law.restitution_tangent for law in laws], dtype=float),
        _string_mass=string_mass,
    )


def string_coordinates(model: DiskContactModel, q: np.ndarray) -> np.ndarray:
    """Full string coordinates (fixed dofs at q_prescribed) from the system q, (n_string_dofs,)."""
    q_string = model.string.q_prescribed.copy()
    q_string[model.string.free_dofs] = q[model.layout.string]
    return q_string


def initial_state(
    model: DiskContactModel,
    disk_position,
    disk_angle: float = 0.0,
    q_string: np.ndarray | None = None,
    disk_velocity=(0.0, 0.0),
    disk_angular_velocity: float = 0.0,
    u_string: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """System (q, u), each (layout.n,), from string coordinates (full, default q_prescribed) and
    the disk's centre (m), angle (rad) and velocities (m/s, rad/s)."""
    q = np.zeros(model.layout.n)
    u = np.zeros(model.layout.n)
    if model.string is not None:
        q_full = model.string.q_prescribed if q_string is None else np.asarray(q_string, float)
        q[model.layout.string] = q_full[model.string.free_dofs]
        if u_string is not None:
            u[model.layout.string] = np.asarray(u_string, float)[model.string.free_dofs]
    q[model.layout.disk] = (*np.asarray(disk_position, dtype=float), disk_angle)
    u[model.layout.disk] = (*np.asarray(disk_velocity, dtype=float), disk_angular_velocity)
    return q, u


# --------------------------------------------------------------------------------------------
# Kinematics and energies of the whole system
# --------------------------------------------------------------------------------------------


def candidate_gaps(model: DiskContactModel, q: np.ndarray) -> np.ndarray:
    """Gaps of all candidates (string points, then lines) in m, shape (n_candidates,)."""
    centre = q[model.layout.disk][:2]
    radius = model.disk.radius
    parts = []
    if model.string is not None:
        parts.append(disk_string_gaps(model.jacobian, string_coordinates(model, q), centre, radius))
    for line in model.lines:
        parts.append(np.array([line.unit_normal @ (centre - np.asarray(line.point)) - radius]))
    return np.concatenate(parts) if parts else np.zeros(0)


def candidate_kinematics(
    model: DiskContactModel, q: np.ndarray, which: np.ndarray
) -> ContactKinematics:
    """Kinematics (004 eqs. (21)-(25)) of the candidates with indices ``which`` at q."""
    centre = q[model.layout.disk][:2]
    radius = model.disk.radius
    n_u = model.layout.n
    which = np.asarray(which, dtype=np.int64)
    ncp = model.n_string_points
    parts = []
    on_string = which[which < ncp]
    if on_string.size:
        jac = model.jacobian
        sub = PointJacobian(
            s=jac.s[on_string],
            dofs=jac.dofs[on_string],
            block=jac.block[on_string],
            n_dofs=jac.n_dofs,
        )
        parts.append(
            disk_string_kinematics(
                sub,
                string_coordinates(model, q),
                centre,
                radius,
                model.string_index,
                model.disk_index,
                n_u,
            )
        )
    for k in which[which >= ncp]:
        line = model.lines[k - ncp]
        parts.append(
            disk_line_kinematics(
                np.asarray(line.point, float),
                line.unit_normal,
                centre,
                radius,
                model.disk_index,
                n_u,
            )
        )
    if not parts:
        empty = np.zeros((n_u, 0))
        return ContactKinematics(np.zeros(0), np.zeros((2, 0)), np.zeros((2, 0)), empty, empty)
    return ContactKinematics(
        gap=np.concatenate([p.gap for p in parts]),
        normal=np.concatenate([p.normal for p in parts], axis=1),
        tangent=np.concatenate([p.tangent for p in parts], axis=1),
        w_normal=np.concatenate([p.w_normal for p in parts], axis=1),
        w_tangent=np.concatenate([p.w_tangent for p in parts], axis=1),
    )


@dataclass(frozen=True)
class Energies:
    """Energies in J: kinetic (string + disk), strain (string), gravity (string + disk, zero at
    q = 0), string = kinetic + strain + gravity of the string alone, total."""

    kinetic: float
    strain: float
    gravity: float
    string: float
    total: float


def energies(model: DiskContactModel, q: np.ndarray, u: np.ndarray) -> Energies:
    """Mechanical energies of the state (q, u)."""
    disk = model.disk
    v_disk = u[model.layout.disk]
    kinetic_disk = 0.5 * disk.mass * (v_disk[0] ** 2 + v_disk[1] ** 2) + 0.5 * disk.inertia * (
        v_disk[2] ** 2
    )
    gravity_disk = -disk.mass * float(model.gravity @ q[model.layout.disk][:2])
    kinetic_string = strain = gravity_string = 0.0
    if model.string is not None:
        u_s = u[model.layout.string]
        q_string = string_coordinates(model, q)
        kinetic_string = 0.5 * float(u_s @ (model._string_mass @ u_s))
        strain = strain_energy(model.string, q_string)
        gravity_string = -float(model.string_gravity @ q_string)
    string_total = kinetic_string + strain + gravity_string
    return Energies(
        kinetic=kinetic_disk + kinetic_string,
        strain=strain,
        gravity=gravity_disk + gravity_string,
        string=string_total,
        total=kinetic_disk + gravity_disk + string_total,
    )


# --------------------------------------------------------------------------------------------
# The time stepper
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StepReport:
    """What happened in one step of size h (n_c = model.n_candidates).

    A step may consist of several sub-steps (see ``MoreauJean``); the report then sums or merges
    them as stated per field.

    t : time at the end of the step, s.
    closed : indices of the candidates closed (g_N(q_P) <= 0) in any sub-step, ascending.
    normal_impulse, tangent_impulse : P_N, P_T per candidate summed over the sub-steps (0 when
        open), N s, (n_c,); divided by h they are the mean contact forces of the step in N.
    gap_predictor : smallest g_N(q_P) over the sub-steps, per candidate, m, (n_c,).
    slip_velocity : gamma_T at the end of the last sub-step in which the candidate was closed
        with P_N > 0 (else: closed at all), NaN for candidates not in ``closed``, m/s, (n_c,).
    normal_velocity : gamma_N, likewise, m/s, (n_c,).
    n_iterations, n_newton, n_pivots : of the contact solver, summed over the sub-steps
    (Gauss-Seidel sweeps, active-set Newton iterations, Lemke pivots); residual : largest law
    residual, m/s; r_factor : smallest final alpha; 0, 0, 0, 0.0, 1.0 without contact.
    n_substeps : sub-steps taken (1 when the step was not subdivided).
    """

    t: float
    closed: np.ndarray
    normal_impulse: np.ndarray
    tangent_impulse: np.ndarray
    gap_predictor: np.ndarray
    slip_velocity: np.ndarray
    normal_velocity: np.ndarray
    n_iterations: int
    n_newton: int
    n_pivots: int
    residual: float
    r_factor: float
    n_substeps: int = 1


def _merge_reports(reports: list[StepReport], t: float) -> StepReport:
    """One StepReport of consecutive sub-steps (see the field descriptions of StepReport)."""
    if len(reports) == 1:
        return dataclasses.replace(reports[0], t=t)
    slip = np.full_like(reports[0].slip_velocity, np.nan)
    normal_velocity = slip.copy()
    pressed = np.zeros(slip.size, dtype=bool)
    for r in reports:  # later sub-steps overwrite earlier ones, pressed ones overwrite released
        now = r.normal_impulse > 0.0
        take = r.closed[now[r.closed] | ~pressed[r.closed]]
        slip[take] = r.slip_velocity[take]
        normal_velocity[take] = r.normal_velocity[take]
        pressed |= now
    return StepReport(
        t=t,
        closed=np.unique(np.concatenate([r.closed for r in reports])),
        normal_impulse=np.sum([r.normal_impulse for r in reports], axis=0),
        tangent_impulse=np.sum([r.tangent_impulse for r in reports], axis=0),
        gap_predictor=np.min([r.gap_predictor for r in reports], axis=0),
        slip_velocity=slip,
        normal_velocity=normal_velocity,
        n_iterations=sum(r.n_iterations for r in reports),
        n_newton=sum(r.n_newton for r in reports),
        n_pivots=sum(r.n_pivots for r in reports),
        residual=max(r.residual for r in reports),
        r_factor=min(r.r_factor for r in reports),
        n_substeps=sum(r.n_substeps for r in reports),
    )


class MoreauJean:
    """Moreau-Jean stepper (see the module docstring); ``step()`` advances by h.

    model : DiskContactModel; q0, u0 : (layout.n,); h : step in s; theta : in [1/2, 1].
    tol, max_iterations : of the contact solver.
    penetration_tolerance : m, or None. A contact that closes during a step penetrates by up to
        about theta h times its closing speed, and that penetration stays while it is closed.
        With a tolerance, a (sub-)step after which some candidate would penetrate deeper than
        the tolerance (or, if it already was deeper, than its penetration at the start of the
        sub-step + tolerance / 1000) is replaced by two half steps, recursively, at most
        ``max_halvings`` times; the smaller sub-steps are taken only around the closure. So
        every stored state penetrates by at most the tolerance, unless a sub-step of
        h / 2**max_halvings still closes too deep (then it is taken; ``max_penetration`` of the
        result shows it). None: fixed steps.
    max_halvings : int >= 0, deepest subdivision (smallest sub-step h / 2**max_halvings).
    Attributes t, q, u, n_steps, n_substeps (all sub-steps taken), n_rejected (sub-steps
    replaced by halves), n_contact_iterations (total Gauss-Seidel sweeps), last (StepReport of
    the last step or None).
    """

    def __init__(
        self,
        model: DiskContactModel,
        q0: np.ndarray,
        u0: np.ndarray,
        t0: float = 0.0,
        h: float = 1e-3,
        theta: float = 0.5,
        tol: float = 1e-9,
        max_iterations: int = 2000,
        penetration_tolerance: float | None = PENETRATION_TOLERANCE,
        max_halvings: int = 10,
    ):
        if not h > 0.0:
            raise ValueError(f"h: got {h!r}; allowed: a step size > 0 in s")
        if not 0.5 <= theta <= 1.0:
            raise ValueError(f"theta: got {theta!r}; allowed: 0.5 <= theta <= 1")
        for name, vec in (("q0", q0), ("u0", u0)):
            if np.shape(vec) != (model.layout.n,):
                raise ValueError(f"{name}: shape {np.shape(vec)}; allowed: ({model.layout.n},)")
        if penetration_tolerance is not None and not (
            np.isscalar(penetration_tolerance)
            and np.isfinite(penetration_tolerance)
            and penetration_tolerance > 0.0
        ):
            raise ValueError(
                f"penetration_tolerance: got {penetration_tolerance!r}; allowed: a length > 0 in "
                "m, or None (fixed steps, no subdivision at contact closures)"
            )
        if isinstance(max_halvings, bool) or not isinstance(max_halvings, int | np.integer):
            raise ValueError(f"max_halvings: got {max_halvings!r}; allowed: an integer >= 0")
        if max_halvings < 0:
            raise ValueError(f"max_halvings: got {max_halvings!r}; allowed: an integer >= 0")
        self.model = model
        self.h = float(h)
        self.theta = float(theta)
        self.tol = tol
        self.max_iterations = max_iterations
        self.penetration_tolerance = (
            None if penetration_tolerance is None else float(penetration_tolerance)
        )
        self.max_halvings = int(max_halvings)
        self.t = float(t0)
        self._t0 = float(t0)
        self.q = np.array(q0, dtype=float)
        self.u = np.array(u0, dtype=float)
        self.n_steps = 0
        self.n_substeps = 0
        self.n_rejected = 0
        self.n_contact_iterations = 0
        self.last: StepReport | None = None
        self._forces = np.zeros((2, model.n_candidates))  # impulses / h: warm start
        disk = model.disk
        self._disk_mass = np.array([disk.mass, disk.mass, disk.inertia])
        self._disk_force = np.array([disk.mass * model.gravity[0], disk.mass * model.gravity[1], 0])
        self._dense_mass = (
            model._string_mass.toarray()
            if model.string is not None and model.layout.string.stop <= _DENSE_LIMIT
            else None
        )

    def _smooth_part(self, q_p: np.ndarray, h: float):
        """Impulse h (f - C u_A) of the smooth forces and a solver for M_eff, both at q_P.

        Strings with up to ``_DENSE_LIMIT`` free dofs use dense LU (cheaper than sparse there).
        """
        model, theta = self.model, self.theta
        lay = model.layout
        force = np.zeros(lay.n)
        force[lay.disk] = self._disk_force
        string_solve = None
        if model.string is not None:
            string = model.string
            q_string = string_coordinates(model, q_p)
            free = string.free_dofs
            f_string = model.string_gravity - internal_force(string, q_string)
            beta = model.stiffness_damping
            factor = theta * h * beta + theta**2 * h**2
            force[lay.string] = f_string[free]
            stiffness = tangent_stiffness(string, q_string)
            if free.size <= _DENSE_LIMIT:
                stiffness = stiffness.toarray()[np.ix_(free, free)]
                lu = lu_factor(self._dense_mass + factor * stiffness)
                string_solve = partial(lu_solve, lu)
            else:
                stiffness = stiffness[free][:, free]
                string_solve = splu(sp.csc_matrix(model._string_mass + factor * stiffness)).solve
            if beta > 0.0:
                force[lay.string] -= beta * (stiffness @ self.u[lay.string])
        disk_mass = self._disk_mass

        def solve(rhs):
            out = np.empty_like(rhs)
            out[lay.disk] = rhs[lay.disk] / (disk_mass if rhs.ndim == 1 else disk_mass[:, None])
            if string_solve is not None:
                out[lay.string] = string_solve(np.ascontiguousarray(rhs[lay.string]))
            return out

        return h * force, solve

    def step(self) -> StepReport:
        """Advance by h (in sub-steps where a contact closes, see ``penetration_tolerance``).

        Raises ContactSolverError if the contact problem of a sub-step fails.
        """
        t_end = self._t0 + (self.n_steps + 1) * self.h  # no round-off drift of t
        reports = self._advance(self.h, 0)
        self.t = t_end
        self.n_steps += 1
        self.last = _merge_reports(reports, t_end)
        return self.last

    def _advance(self, h: float, level: int) -> list[StepReport]:
        report = self._try_substep(h, may_reject=level < self.max_halvings)
        if report is not None:
            return [report]
        self.n_rejected += 1
        return self._advance(0.5 * h, level + 1) + self._advance(0.5 * h, level + 1)

    def _try_substep(self, h: float, may_reject: bool) -> StepReport | None:
        """One theta step of size h from (self.q, self.u); commits it and returns its report.

        With a penetration tolerance tol and ``may_reject``, returns None (nothing committed)
        when a candidate penetrates deeper than ``allowed = max(tol, d_A + tol / 1000)`` (d_A:
        its penetration at the start of the sub-step; the small allowance keeps a candidate
        that a forced sub-step left deeper than tol from forcing every later step down to the
        smallest sub-step), checked twice: at q_P before anything is solved (a closed candidate
        stays about as deep as at q_P: its impulse stops the approach), and at q_E after the
        contact problem (the final word).
        """
        model, theta = self.model, self.theta
        q_a, u_a = self.q, self.u
        q_p = q_a + theta * h * u_a
        gaps = candidate_gaps(model, q_p)
        check = self.penetration_tolerance is not None and may_reject
        if check:
            tol = self.penetration_tolerance
            allowed = np.maximum(tol, 1e-3 * tol - candidate_gaps(model, q_a))
            if np.any(-gaps > allowed):
                return None
        impulse, solve = self._smooth_part(q_p, h)
        u_free = u_a + solve(impulse)
        closed = np.flatnonzero(gaps <= 0.0)
        n_c = model.n_candidates
        p_n = np.zeros(n_c)
        p_t = np.zeros(n_c)
        slip = np.full(n_c, np.nan)
        normal_velocity = np.full(n_c, np.nan)
        n_iterations, n_newton, n_pivots, residual, r_factor = 0, 0, 0, 0.0, 1.0
        u_e = u_free
        if closed.size:
            kin = candidate_kinematics(model, q_p, closed)
            w = np.concatenate((kin.w_normal, kin.w_tangent), axis=1)
            minv_w = solve(w)
            delassus = w.T @ minv_w
            restitution = np.concatenate(
                (model.restitution_normal[closed], model.restitution_tangent[closed])
            )
            offset = w.T @ u_free + restitution * (w.T @ u_a)
            initial = h * np.concatenate((self._forces[0, closed], self._forces[1, closed]))
            solution = solve_contact_impulses(
                delassus,
                offset,
                model.friction[closed],
                initial=initial,
                tol=self.tol,
                max_iterations=self.max_iterations,
                time=self.t + h,
            )
            impulses = np.concatenate((solution.normal, solution.tangent))
            u_e = u_free + minv_w @ impulses
            gamma = w.T @ u_e
            m = closed.size
            p_n[closed] = solution.normal
            p_t[closed] = solution.tangent
            normal_velocity[closed] = gamma[:m]
            slip[closed] = gamma[m:]
            n_iterations, n_newton, n_pivots, residual, r_factor = (
                solution.n_iterations,
                solution.n_newton,
                solution.n_pivots,
                solution.residual,
                solution.r_factor,
            )
        q_e = q_a + h * u_a + theta * h * (u_e - u_a)
        if check and np.any(-candidate_gaps(model, q_e) > allowed):
            return None
        self._forces = np.array([p_n, p_t]) / h
        self.q = q_e
        self.u = u_e
        self.t += h
        self.n_substeps += 1
        self.n_contact_iterations += n_iterations
        return StepReport(
            t=self.t,
            closed=closed,
            normal_impulse=p_n,
            tangent_impulse=p_t,
            gap_predictor=gaps,
            slip_velocity=slip,
            normal_velocity=normal_velocity,
            n_iterations=n_iterations,
            n_newton=n_newton,
            n_pivots=n_pivots,
            residual=residual,
            r_factor=r_factor,
        )


# --------------------------------------------------------------------------------------------
# Result and driver
# --------------------------------------------------------------------------------------------

_SCALAR_COLUMNS = (
    ("t", "s"),
    ("disk_x", "m"),
    ("disk_y", "m"),
    ("disk_angle", "rad"),
    ("disk_vx", "m/s"),
    ("disk_vy", "m/s"),
    ("disk_angular_velocity", "rad/s"),
    ("n_active", ""),
    ("normal_impulse", "N s"),
    ("friction_impulse", "N s"),
    ("max_penetration", "m"),
    ("min_closed_gap", "m"),
    ("n_substeps", ""),
    ("max_slip_velocity", "m/s"),
    ("kinetic_energy", "J"),
    ("strain_energy", "J"),
    ("gravity_energy", "J"),
    ("string_energy", "J"),
    ("total_energy", "J"),
    ("solver_iterations", ""),
    ("solver_newton", ""),
    ("solver_pivots", ""),
    ("solver_residual", "m/s"),
    ("r_factor", ""),
)


@dataclass(frozen=True, eq=False)
class MoreauResult:
    """Histories of a run; k = stored states (row 0 is the initial state), n_c = candidates.

    t : (k,) s.  q, u : (k, n) system coordinates and velocities (layout of the model).
    disk_position : (k, 2) m; disk_angle : (k,) rad; disk_velocity : (k, 2) m/s;
    disk_angular_velocity : (k,) rad/s.
    n_active : (k,) closed contacts (g_N(q_P) <= 0) of the step that ended at t, in any of its
        sub-steps (see StepReport for how sub-steps are merged).
    normal_impulse, friction_impulse : (k,) sum of P_N and of |P_T| over the contacts, N s.
    normal_impulses, tangent_impulses : (k, n_c) per candidate, N s.
    slip_velocity, normal_velocity : (k, n_c) gamma_T, gamma_N at the end of the step for closed
        candidates, NaN for open ones, m/s.
    max_slip_velocity : (k,) largest |gamma_T| over the closed contacts with P_N > 0 (0 if none).
    max_penetration : (k,) max(0, -min g_N(q)) over all candidates at t, m (the penetration;
        at most the stepper's penetration_tolerance when sub-stepping is on).
    min_closed_gap : (k,) smallest g_N(q_P) of the closed contacts of the step (over its
        sub-steps), NaN if none, m.
    n_substeps : (k,) sub-steps of the step that ended at t (1: not subdivided; 0 in row 0).
    kinetic_energy, strain_energy, gravity_energy, string_energy, total_energy : (k,) J
        (see ``energies``).
    solver_iterations, solver_newton, solver_pivots, solver_residual (m/s), r_factor : (k,) of
        the contact solver (Gauss-Seidel sweeps, active-set Newton iterations, Lemke pivots, law
        residual, final alpha).
    h, theta : step and theta of the run.  friction : (n_c,) mu per candidate.
    """

    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    disk_position: np.ndarray
    disk_angle: np.ndarray
    disk_velocity: np.ndarray
    disk_angular_velocity: np.ndarray
    n_active: np.ndarray
    normal_impulse: np.ndarray
    friction_impulse: np.ndarray
    normal_impulses: np.ndarray
    tangent_impulses: np.ndarray
    slip_velocity: np.ndarray
    normal_velocity: np.ndarray
    max_slip_velocity: np.ndarray
    max_penetration: np.ndarray
    min_closed_gap: np.ndarray
    n_substeps: np.ndarray
    kinetic_energy: np.ndarray
    strain_energy: np.ndarray
    gravity_energy: np.ndarray
    string_energy: np.ndarray
    total_energy: np.ndarray
    solver_iterations: np.ndarray
    solver_newton: np.ndarray
    solver_pivots: np.ndarray
    solver_residual: np.ndarray
    r_factor: np.ndarray
    h: float
    theta: float
    friction: np.ndarray

    def columns(self) -> dict[str, np.ndarray]:
        """The scalar histories by CSV column name, each (k,)."""
        return {
            "t": self.t,
            "disk_x": self.disk_position[:, 0],
            "disk_y": self.disk_position[:, 1],
            "disk_angle": self.disk_angle,
            "disk_vx": self.disk_velocity[:, 0],
            "disk_vy": self.disk_velocity[:, 1],
            "disk_angular_velocity": self.disk_angular_velocity,
            "n_active": self.n_active,
            "normal_impulse": self.normal_impulse,
            "friction_impulse": self.friction_impulse,
            "max_penetration": self.max_penetration,
            "min_closed_gap": self.min_closed_gap,
            "n_substeps": self.n_substeps,
            "max_slip_velocity": self.max_slip_velocity,
            "kinetic_energy": self.kinetic_energy,
            "strain_energy": self.strain_energy,
            "gravity_energy": self.gravity_energy,
            "string_energy": self.string_energy,
            "total_energy": self.total_energy,
            "solver_iterations": self.solver_iterations,
            "solver_newton": self.solver_newton,
            "solver_pivots": self.solver_pivots,
            "solver_residual": self.solver_residual,
            "r_factor": self.r_factor,
        }

    def write_csv(self, path) -> Path:
        """Write the scalar histories (header ``name [unit]``) to ``path``; returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        cols = self.columns()
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow([f"{n} [{u}]" if u else n for n, u in _SCALAR_COLUMNS])
            for k in range(self.t.size):
                writer.writerow([repr(float(cols[n][k])) for n, _ in _SCALAR_COLUMNS])
        return path


class _Recorder:
    """Collects per-step rows and builds the MoreauResult."""

    def __init__(self, model: DiskContactModel):
        self.model = model
        self.rows: dict[str, list] = {name: [] for name in MoreauResult.__dataclass_fields__}

    def add(self, t, q, u, report: StepReport | None):
        model = self.model
        lay = model.layout
        n_c = model.n_candidates
        e = energies(model, q, u)
        gaps = candidate_gaps(model, q)
        r = self.rows
        r["t"].append(t)
        r["q"].append(q.copy())
        r["u"].append(u.copy())
        r["disk_position"].append(q[lay.disk][:2].copy())
        r["disk_angle"].append(q[lay.disk][2])
        r["disk_velocity"].append(u[lay.disk][:2].copy())
        r["disk_angular_velocity"].append(u[lay.disk][2])
        r["max_penetration"].append(max(0.0, -float(gaps.min(initial=np.inf))))
        r["kinetic_energy"].append(e.kinetic)
        r["strain_energy"].append(e.strain)
        r["gravity_energy"].append(e.gravity)
        r["string_energy"].append(e.string)
        r["total_energy"].append(e.total)
        if report is None:
            zeros = np.zeros(n_c)
            nans = np.full(n_c, np.nan)
            r["n_active"].append(0)
            r["normal_impulses"].append(zeros)
            r["tangent_impulses"].append(zeros)
            r["slip_velocity"].append(nans)
            r["normal_velocity"].append(nans)
            r["min_closed_gap"].append(np.nan)
            r["n_substeps"].append(0)
            r["max_slip_velocity"].append(0.0)
            r["solver_iterations"].append(0)
            r["solver_newton"].append(0)
            r["solver_pivots"].append(0)
            r["solver_residual"].append(0.0)
            r["r_factor"].append(1.0)
        else:
            closed = report.closed
            r["n_active"].append(closed.size)
            r["normal_impulses"].append(report.normal_impulse)
            r["tangent_impulses"].append(report.tangent_impulse)
            r["slip_velocity"].append(report.slip_velocity)
            r["normal_velocity"].append(report.normal_velocity)
            r["min_closed_gap"].append(
                float(report.gap_predictor[closed].min()) if closed.size else np.nan
            )
            r["n_substeps"].append(report.n_substeps)
            pressed = closed[report.normal_impulse[closed] > 0.0]
            r["max_slip_velocity"].append(
                float(np.abs(report.slip_velocity[pressed]).max(initial=0.0))
            )
            r["solver_iterations"].append(report.n_iterations)
            r["solver_newton"].append(report.n_newton)
            r["solver_pivots"].append(report.n_pivots)
            r["solver_residual"].append(report.residual)
            r["r_factor"].append(report.r_factor)

    def result(self, h, theta) -> MoreauResult:
        r = {name: np.array(values) for name, values in self.rows.items() if values}
        r["normal_impulse"] = r["normal_impulses"].sum(axis=1)
        r["friction_impulse"] = np.abs(r["tangent_impulses"]).sum(axis=1)
        r["h"] = float(h)
        r["theta"] = float(theta)
        r["friction"] = self.model.friction.copy()
        return MoreauResult(**r)


def simulate(
    model: DiskContactModel,
    q0: np.ndarray,
    u0: np.ndarray,
    t_end: float,
    h: float = 1e-3,
    theta: float = 0.5,
    tol: float = 1e-9,
    max_iterations: int = 2000,
    csv_path=None,
    penetration_tolerance: float | None = PENETRATION_TOLERANCE,
    max_halvings: int = 10,
    observer=None,
) -> MoreauResult:
    """Integrate from t = 0 to t_end with steps h; every step is stored.

    penetration_tolerance, max_halvings : sub-stepping at contact closures (see MoreauJean);
        None: plain fixed steps.
    observer : None or a callable ``observer(t, q, u, report)``, called with the initial state
        (report None) and after every step (its StepReport), e.g. ``MoreauPvdWriter.observe`` to
        write a ParaView series while the run goes.
    Raises ContactSolverError when a step's contact problem does not converge; the error then
    carries the history up to the last completed step as ``error.result`` (and it is written to
    csv_path if given).
    """
    n_steps = int(np.ceil(t_end / h - 1e-9))
    stepper = MoreauJean(
        model, q0, u0, 0.0, h, theta, tol, max_iterations, penetration_tolerance, max_halvings
    )
    recorder = _Recorder(model)
    recorder.add(stepper.t, stepper.q, stepper.u, None)
    if observer is not None:
        observer(stepper.t, stepper.q, stepper.u, None)
    try:
        for _ in range(n_steps):
            report = stepper.step()
            recorder.add(stepper.t, stepper.q, stepper.u, report)
            if observer is not None:
                observer(stepper.t, stepper.q, stepper.u, report)
    except ContactSolverError as error:
        error.result = recorder.result(h, theta)
        if csv_path is not None:
            error.result.write_csv(csv_path)
        raise
    result = recorder.result(h, theta)
    if csv_path is not None:
        result.write_csv(csv_path)
    return result


# --------------------------------------------------------------------------------------------
# ParaView output (kinematics of stored states only; writers never re-run physics)
# --------------------------------------------------------------------------------------------

_CONTACT_VECTORS = ("normal_force", "friction_force", "contact_force", "normal", "tangent")
_CONTACT_SCALARS = ("gap", "slip_velocity", "material_point")


def _contact_points(model: DiskContactModel, q: np.ndarray, which: np.ndarray) -> np.ndarray:
    """Points P of the candidates ``which``: r(s_i) on the string, the foot of the
    perpendicular from the disk's centre on a line; shape (m, 2), m."""
    ncp = model.n_string_points
    centre = q[model.layout.disk][:2]
    points = np.zeros((which.size, 2))
    on_string = which < ncp
    if np.any(on_string):
        jac = model.jacobian
        r = np.einsum(
            "kcj,kj->kc",
            jac.block[which[on_string]],
            string_coordinates(model, q)[jac.dofs[which[on_string]]],
        )
        points[on_string] = r
    for row in np.flatnonzero(~on_string):
        line = model.lines[which[row] - ncp]
        n = line.unit_normal
        points[row] = centre - (n @ (centre - np.asarray(line.point, float))) * n
    return points


def contact_block(
    model: DiskContactModel,
    q: np.ndarray,
    closed,
    normal_impulse: np.ndarray,
    tangent_impulse: np.ndarray,
    slip_velocity: np.ndarray,
    h: float,
    name: str = "contacts",
) -> Block:
    """The closed candidates of a state as vertices with their contact forces on the disk.

    q : (layout.n,) the stored state. closed : indices of the closed candidates (of the step
    that ended at q). normal_impulse, tangent_impulse : P_N, P_T per candidate over that step,
    (n_candidates,) N s; slip_velocity : gamma_T per candidate, (n_candidates,) m/s; h : the
    step in s (forces are impulse / h, the mean force of the step).
    Points: the candidate points P (string material points r(s_i), or the foot on a line) at q.
    Point data: normal_force = (P_N / h) e_N and friction_force = (P_T / h) e_T, the forces on
    the disk in N (the string gets the opposite), contact_force (their sum), normal e_N (from P
    to the disk's centre) and tangent e_T (004 eq. (21)) at q; gap g_N(q) in m, slip_velocity in
    m/s, material_point s_i in m (-1 on lines), contact (candidate index).
    Cell data: contact.
    """
    if not h > 0.0:
        raise ValueError(f"h: got {h!r}; allowed: the step size > 0 in s")
    closed = np.asarray(closed, dtype=np.int64).reshape(-1)
    kin = candidate_kinematics(model, q, closed)
    p_n = np.asarray(normal_impulse, dtype=float)[closed] / h
    p_t = np.asarray(tangent_impulse, dtype=float)[closed] / h
    normal_force = (kin.normal * p_n).T
    friction_force = (kin.tangent * p_t).T
    ncp = model.n_string_points
    material = np.full(closed.size, -1.0)
    on_string = closed < ncp
    material[on_string] = model.contact_points[closed[on_string]]
    index = closed.astype(float)
    return Block(
        name=name,
        points=_contact_points(model, q, closed),
        cells=[("vertex", np.arange(closed.size)[:, None])],
        point_data={
            "normal_force": normal_force,
            "friction_force": friction_force,
            "contact_force": normal_force + friction_force,
            "normal": kin.normal.T,
            "tangent": kin.tangent.T,
            "gap": kin.gap,
            "slip_velocity": np.nan_to_num(np.asarray(slip_velocity, dtype=float)[closed]),
            "material_point": material,
            "contact": index,
        },
        cell_data={"contact": [index]},
    )


def frame_blocks(
    model: DiskContactModel,
    q: np.ndarray,
    closed=(),
    normal_impulse: np.ndarray | None = None,
    tangent_impulse: np.ndarray | None = None,
    slip_velocity: np.ndarray | None = None,
    h: float = 1.0,
    samples_per_element: int = 8,
) -> list[Block]:
    """Blocks of one stored state: string (if any), disk, closed contacts (if any).

    The string is ``io.vtk.string_block`` (polyline sampled inside the elements with tension,
    stretch, curvature, displacement); the disk is ``io.vtk.disk_block`` whose spoke points from
    the centre to the material point that is lowest at angle 0 (direction phi - pi / 2); the
    contacts are ``contact_block``. When no candidate is closed, the contact arrays are written
    as zeros on the disk (and contact = -1), so every frame of a series has the same arrays.
    Impulse arrays None: zero forces.
    """
    n_c = model.n_candidates
    zeros = np.zeros(n_c)
    blocks = []
    if model.string is not None:
        blocks.append(string_block(model.string, string_coordinates(model, q), samples_per_element))
    centre = q[model.layout.disk][:2]
    phi = float(q[model.layout.disk][2])
    disk = disk_block(centre, phi - 0.5 * np.pi, model.disk.radius)
    closed = np.asarray(closed, dtype=np.int64).reshape(-1)
    if closed.size:
        blocks.append(disk)
        blocks.append(
            contact_block(
                model,
                q,
                closed,
                zeros if normal_impulse is None else normal_impulse,
                zeros if tangent_impulse is None else tangent_impulse,
                zeros if slip_velocity is None else slip_velocity,
                h,
            )
        )
    else:
        n = len(disk.points)
        data = {key: np.zeros((n, 2)) for key in _CONTACT_VECTORS}
        data.update({key: np.zeros(n) for key in _CONTACT_SCALARS})
        data["contact"] = np.full(n, -1.0)
        cells = {"contact": [np.full(len(conn), -1.0) for _, conn in disk.cells]}
        blocks.append(dataclasses.replace(disk, point_data=data, cell_data=cells))
    return blocks


class MoreauPvdWriter(PvdWriter):
    """Writes the states of a Moreau run as ``DIR/NAME.pvd`` + ``DIR/NAME_00000.vtu`` frames.

    ``observe`` has the signature of ``simulate``'s observer and writes every ``stride``-th
    state it is given, the first one included; ``write_state`` writes one state at once. The
    ``.pvd`` index is rewritten after every frame, so an interrupted run leaves a valid series.
    h : the step of the run in s (forces = impulses / h). See ``frame_blocks`` for a frame.
    Attributes ``state_stride`` (the stride of ``observe``), ``last_written`` (time of the last
    frame written, None before the first).
    """

    def __init__(
        self,
        model: DiskContactModel,
        directory,
        h: float,
        name: str = "frames",
        stride: int = 1,
        samples_per_element: int = 8,
    ):
        super().__init__(directory, name, 1)
        for label, value in (("stride", stride), ("samples_per_element", samples_per_element)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
                raise ValueError(f"{label}: got {value!r}; allowed: an integer >= 1")
        if not h > 0.0:
            raise ValueError(f"h: got {h!r}; allowed: the step size > 0 in s")
        self.model = model
        self.h = float(h)
        self.state_stride = int(stride)  # PvdWriter.stride stays 1: write() writes every frame
        self.samples_per_element = int(samples_per_element)
        self.last_written: float | None = None
        self._observed = 0

    def write_state(
        self,
        t: float,
        q: np.ndarray,
        closed=(),
        normal_impulse=None,
        tangent_impulse=None,
        slip_velocity=None,
    ) -> Path:
        """Write the state at time t (s) now; arguments as ``frame_blocks``. Returns its path."""
        blocks = frame_blocks(
            self.model,
            q,
            closed,
            normal_impulse,
            tangent_impulse,
            slip_velocity,
            self.h,
            self.samples_per_element,
        )
        path = self.write(t, blocks)
        self.last_written = float(t)
        return path

    def observe(self, t: float, q: np.ndarray, u: np.ndarray, report: StepReport | None):
        """Observer for ``simulate``: writes every ``stride``-th state; returns the path or None."""
        call = self._observed
        self._observed += 1
        if call % self.state_stride:
            return None
        if report is None:
            return self.write_state(t, q)
        return self.write_state(
            t,
            q,
            report.closed,
            report.normal_impulse,
            report.tangent_impulse,
            report.slip_velocity,
        )


def write_pvd(
    result: MoreauResult,
    model: DiskContactModel,
    out_dir,
    name: str = "frames",
    stride: int = 1,
    samples_per_element: int = 8,
) -> Path:
    """Write every ``stride``-th stored state of a result (and the last one) as a ParaView
    series ``OUT_DIR/NAME.pvd``; the closed candidates of row k are those with a finite
    ``slip_velocity[k]``. Returns the path of the ``.pvd`` file."""
    if isinstance(stride, bool) or not isinstance(stride, int | np.integer) or stride < 1:
        raise ValueError(f"stride: got {stride!r}; allowed: an integer >= 1")
    rows = list(range(0, result.t.size, stride))
    if rows[-1] != result.t.size - 1:
        rows.append(result.t.size - 1)
    with MoreauPvdWriter(model, out_dir, result.h, name, 1, samples_per_element) as writer:
        for k in rows:
            writer.write_state(
                float(result.t[k]),
                result.q[k],
                np.flatnonzero(np.isfinite(result.slip_velocity[k])),
                result.normal_impulses[k],
                result.tangent_impulses[k],
                result.slip_velocity[k],
            )
    return writer.pvd_path
