"""The models of Lipinski (002): the cantilever strip, the manipulator sliding on it (sec. 9) and a
point mass sliding on it, with their consistent initial states. Every number of 002 is typed here
once; the demos (``fe_contact.demos.manipulator_on_beam``, ``.sliding_mass``) only parse command
lines, run and write files.

The cantilever strip (002 sec. 9)
---------------------------------
L = 0.4 m clamped at the origin and lying along +x, height 1.5 mm, width 10 mm, rho = 4.7e3
kg/m^3, E = 2.1e11 Pa (EI = 0.5906 N m^2, rho A = 0.0705 kg/m; first frequency 63.6 rad/s),
10 Hermite elements, under its own weight (``cantilever_strip``).

The manipulator (``Manipulator``, ``manipulator_model``, the Scenario ``manipulator``)
-------------------------------------------------------------------------------------
* Three bodies in a chain from the base joint at (-0.41, 0.3) m: l1 = l2 = 0.2 m, l3 = 0.3 m;
  m1 = 1.72 kg, I1 = 0.018 kg m^2 with the centre of mass on joint 1 (gravity balanced);
  m2 = 0.45 kg, I2 = 0.0025 kg m^2; m3 = 0.365 kg, I3 = 0.00275 kg m^2 (centres of mass at the
  middles). Joint 1: spring k1 = 10 N m/rad, damper c1 = 0.1 N m s/rad; joint 3: k3 = 80, c3 = 0.1
  (N m/rad, N m s/rad; N/m, N s/m when joint 3 is prismatic). Gravity 9.81 m/s^2 along -y.
* Joint 2 is driven at a constant 0.2 rad/s; its multiplier is the driving torque (002 Fig. 7b),
  column ``drive_1_force`` of a run (0-based joint index 1).
* The end of body 3 slides on the beam's upper face with Coulomb friction mu (002 secs. 4-7):
  the contact pair ``tip`` (columns ``tip_normal_force``, ``tip_friction_force``,
  ``tip_slip_velocity``, ``tip_parameter`` = the contact's x on the beam, ...).

Choices where 002 is silent or ambiguous (the manipulator example as specified for this project):

* All three joints are revolute (``joint3="prismatic"`` makes joint 3 a telescopic slide along
  body 3, with the same spring and damper numbers in N/m and N s/m).
* Initial pose: body 1 horizontal (``body1_angle = 0``), the end-effector on the beam at
  ``contact_x = 0.1`` m, elbow up. Joint angles are relative and counter-clockwise positive.
* Joint 2 turns *clockwise* (``drive_rate = -0.2`` rad/s). The elbow is left of the beam, so a
  counter-clockwise turn lifts the end-effector: with this mechanism its normal force falls from
  0.5 N to zero within about 0.2 s and the bilateral contact of 002 would have to pull. Turning
  clockwise presses the end-effector onto the beam (the normal force grows to about 1.6-1.9 N by
  0.6 s) while it slides towards the clamp.
* Spring rest angles: chosen so that the initial pose is a static equilibrium with a frictionless
  normal force of ``normal_force = 0.5`` N, the beam statically deflected by that force and its
  own weight; the same rest angles serve every mu.
* Initial state for each mu: the quasi-static sliding equilibrium at t = 0 (the frictionless one
  for mu = 0, so exactly the pose above), with the velocities of the quasi-static motion (central
  difference of the equilibria at t = -dt and +dt), so the run starts without a transient.
* Integration: generalised-alpha (rho_inf = 0.9) with h = 5e-4 s; halving h changes the driving
  torque by less than 1e-4 N m (tests/test_manipulator.py).

The driving torque is the multiplier of the drive, positive counter-clockwise on body 2. Here it
holds the arm up against gravity (positive) while the joint turns clockwise, so the drive brakes
(negative power); friction opposes the slide and takes over part of the braking, so the torque in
the drive's sense of motion, -torque, grows with mu.

The sliding mass (``sliding_mass``, from ``sliding_mass_model`` and ``sliding_mass_initial_state``)
----------------------------------------------------------------------------------------------------
A point mass m = 0.02 kg carried by two prismatic joints (x, then y) slides on the cantilever
strip (contact pair ``mass``); it starts at x0 = 0.1 m on the beam's static deflected shape
(self-weight plus the mass's weight) with 0.5 m/s along the deflected tangent.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
import scipy.sparse.linalg as spla

from .. import validation as check
from ..coupling.constraints import evaluate_state
from ..coupling.partition import (
    choose_dependent,
    make_partition,
    partition_static_state,
    recover_dependent,
)
from ..elements.beam import assemble_beam, self_weight
from ..elements.beam_analysis import static_deflection
from ..elements.beam_model import BeamSpec
from ..elements.beam_points import beam_fields, point_load
from ..laws import Sliding, Unilateral
from ..model import ContactPair, Model
from ..multibody.drive import Drive
from ..multibody.joints import Joint
from ..multibody.tree import Body, TreeModel, bias_forces
from ..scenario import Scenario
from ..sensors import BodyPointSensor
from ..sides import Point
from ..system import System, assemble


def cantilever_strip(n_elements: int = 10, **changes) -> BeamSpec:
    """The beam of Lipinski (002), sec. 9: steel strip 0.4 m x 10 mm x 1.5 mm, clamped at the
    origin and lying along +x (free right end). ``changes`` replace any BeamSpec field."""
    spec = BeamSpec(
        length=0.4,
        height=0.0015,
        width=0.01,
        density=4.7e3,
        youngs_modulus=2.1e11,
        n_elements=n_elements,
        left="clamped",
        right="free",
    )
    return replace(spec, **changes) if changes else spec


CANTILEVER = cantilever_strip()
MU_SWEEP = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)
DRIVEN_JOINT = 1  # joint 2 of 002 (0-based index 1)
SPRING_JOINTS = (0, 2)  # joints 1 and 3 of 002
CONTACT = "tip"  # the end-effector's contact pair on the beam
BEAM = "beam"  # the structure's name


# ------------------------------------------------------------------------------------------
# The manipulator of 002 sec. 9
# ------------------------------------------------------------------------------------------


def _positive(value, name, allow_zero=False):
    return check.real(f"Manipulator.{name}", value, low=0.0, low_open=not allow_zero)


def _triple(value, name, allow_zero):
    items = tuple(value)
    if len(items) != 3:
        raise ValueError(f"Manipulator {name} needs 3 values (bodies 1, 2, 3), got {value!r}")
    return tuple(_positive(v, f"{name}[{i}]", allow_zero) for i, v in enumerate(items))


@dataclass(frozen=True, kw_only=True)
class Manipulator:
    """Every number of the example (SI); ``dataclasses.replace`` gives the variants.

    base : (x, y) of joint 1, m. lengths, masses, inertias : bodies 1..3 (m, kg, kg m^2 about the
    centre of mass). stiffness, damping : (joint 1, joint 3) springs and dampers. drive_rate : rad/s
    of joint 2 (counter-clockwise positive). joint3 : "revolute" or "prismatic". body1_angle : rad,
    initial absolute angle of body 1. contact_x : m, initial contact position on the beam.
    elbow : "up" or "down", branch of the initial pose. normal_force : N, frictionless initial
    normal force that fixes the spring rest positions. gravity : m/s^2 along -y. beam : BeamSpec.
    drive_reversal : None, or the time (s) at which joint 2 reverses (a smooth 20 ms turn,
    ``Drive.reversing``): the end-effector then stops on the beam, sticks or slips back.
    lift_off : False: the bilateral sliding contact of 002 (a negative normal force ends the
    run); True: a ``Unilateral`` contact with the same mu, which lifts off and lands again.
    """

    base: tuple[float, float] = (-0.41, 0.3)
    lengths: tuple[float, float, float] = (0.2, 0.2, 0.3)
    masses: tuple[float, float, float] = (1.72, 0.45, 0.365)
    inertias: tuple[float, float, float] = (0.018, 0.0025, 0.00275)
    stiffness: tuple[float, float] = (10.0, 80.0)
    damping: tuple[float, float] = (0.1, 0.1)
    drive_rate: float = -0.2
    joint3: str = "revolute"
    body1_angle: float = 0.0
    contact_x: float = 0.1
    elbow: str = "up"
    normal_force: float = 0.5
    gravity: float = 9.81
    beam: BeamSpec = field(default=CANTILEVER)
    drive_reversal: float | None = None
    lift_off: bool = False

    def __post_init__(self):
        object.__setattr__(self, "base", check.vector("Manipulator.base", self.base, unit="m"))
        object.__setattr__(self, "lengths", _triple(self.lengths, "lengths", False))
        object.__setattr__(self, "masses", _triple(self.masses, "masses", True))
        object.__setattr__(self, "inertias", _triple(self.inertias, "inertias", True))
        for name in ("stiffness", "damping"):
            items = tuple(getattr(self, name))
            if len(items) != 2:
                raise ValueError(
                    f"Manipulator {name} needs 2 values (joint 1, joint 3), got {items!r}"
                )
            values = tuple(
                _positive(v, f"{name}[{i}]", name == "damping") for i, v in enumerate(items)
            )
            object.__setattr__(self, name, values)
        if self.joint3 not in ("revolute", "prismatic"):
            raise ValueError(
                f"Manipulator joint3 must be 'revolute' or 'prismatic', got {self.joint3!r}"
            )
        if self.elbow not in ("up", "down"):
            raise ValueError(f"Manipulator elbow must be 'up' or 'down', got {self.elbow!r}")
        for name in ("drive_rate", "body1_angle", "contact_x"):
            object.__setattr__(self, name, check.real(f"Manipulator.{name}", getattr(self, name)))
        if not isinstance(self.beam, BeamSpec):
            raise ValueError(f"Manipulator beam must be a BeamSpec, got {self.beam!r}")
        if not 0.0 < self.contact_x < self.beam.length:
            raise ValueError(
                f"Manipulator contact_x must lie inside the beam (0, {self.beam.length:g}) m, "
                f"got {self.contact_x!r}"
            )
        _positive(self.normal_force, "normal_force")
        _positive(self.gravity, "gravity", allow_zero=True)
        if not isinstance(self.lift_off, bool):
            raise ValueError(f"Manipulator lift_off must be True or False, got {self.lift_off!r}")
        if self.drive_reversal is not None:
            value = check.real(
                "Manipulator.drive_reversal", self.drive_reversal, low=0.01, unit="s"
            )
            object.__setattr__(self, "drive_reversal", value)


def manipulator_tree(data: Manipulator, rest=(0.0, 0.0), angle3: float = 0.0) -> TreeModel:
    """The three-body chain; ``rest`` : spring rest positions of joints 1 and 3; ``angle3`` : the
    direction of a prismatic joint 3 in body 2's frame (rad)."""
    l1, l2, l3 = data.lengths
    m1, m2, m3 = data.masses
    i1, i2, i3 = data.inertias
    (k1, k3), (c1, c3) = data.stiffness, data.damping
    return TreeModel(
        bodies=(
            Body(m1, i1, (0.0, 0.0)),
            Body(m2, i2, (0.5 * l2, 0.0)),
            Body(m3, i3, (0.5 * l3, 0.0)),
        ),
        joints=(
            Joint("revolute", None, data.base, stiffness=k1, damping=c1, rest=rest[0]),
            Joint("revolute", 0, (l1, 0.0)),
            Joint(
                data.joint3,
                1,
                (l2, 0.0),
                angle=angle3 if data.joint3 == "prismatic" else 0.0,
                stiffness=k3,
                damping=c3,
                rest=rest[1],
            ),
        ),
        points={"end_effector": (2, (l3, 0.0))},
        gravity=(0.0, -data.gravity),
    )


def _model(data: Manipulator, mu: float, q2: float, rest=(0.0, 0.0), angle3=0.0) -> Model:
    return Model(
        tree=manipulator_tree(data, rest, angle3),
        structures={BEAM: data.beam},
        contacts=(ContactPair(CONTACT, Point(2, "end_effector"), BEAM, Sliding(mu), side=1),),
        drives=(_drive(data, q2),),
        gravity=(0.0, -data.gravity),
        # the end point's path (m) beside the joint angles and the joint-2 torque (columns of
        # every run: joint_<i>_q, drive_1_force)
        sensors=(BodyPointSensor("end_effector", 2, "end_effector"),),
    )


def _drive(data: Manipulator, q2: float) -> Drive:
    if data.drive_reversal is None:
        return Drive.constant_velocity(DRIVEN_JOINT, q2, data.drive_rate)
    return Drive.reversing(DRIVEN_JOINT, q2, data.drive_rate, data.drive_reversal)


def _unit(angle):
    return np.array([np.cos(angle), np.sin(angle)])


def pose_through(data: Manipulator, point) -> np.ndarray:
    """Absolute angles (body 1, 2, 3) that put the end-effector at ``point`` (m) with body 1 at
    ``body1_angle``; two-link inverse kinematics of bodies 2 and 3 on the ``elbow`` branch."""
    l1, l2, l3 = data.lengths
    elbow = np.asarray(data.base) + l1 * _unit(data.body1_angle)
    d = np.asarray(point, dtype=float) - elbow
    r = float(np.hypot(*d))
    if not abs(l2 - l3) < r < l2 + l3:
        raise ValueError(
            f"Manipulator: the end-effector cannot reach the beam at contact_x = "
            f"{data.contact_x:g} m with body1_angle = {data.body1_angle:g} rad (distance "
            f"{r:.4g} m from joint 2, reachable {abs(l2 - l3):.4g}..{l2 + l3:.4g} m); change "
            "contact_x, body1_angle or the lengths"
        )
    a = (l2 * l2 - l3 * l3 + r * r) / (2.0 * r)
    height = np.sqrt(max(l2 * l2 - a * a, 0.0))
    along = d / r
    across = np.array([-along[1], along[0]])
    wrist = elbow + a * along + (height if data.elbow == "up" else -height) * across
    theta2 = float(np.arctan2(*(wrist - elbow)[::-1]))
    theta3 = float(np.arctan2(*(np.asarray(point) - wrist)[::-1]))
    return np.array([data.body1_angle, theta2, theta3])


def _beam_under_contact(data: Manipulator, beam, force: float):
    """Beam DOFs (full) under its weight and the contact force (N, pushing down) at contact_x."""
    x = float(data.contact_x)
    gravity = (0.0, -data.gravity)
    k = 1.0
    for _ in range(4):  # the contact force acts along the deflected normal: k = 1/sqrt(1 + w'^2)
        load = point_load(beam, x, force=-k * force) + self_weight(beam, gravity)
        w = static_deflection(beam, load)
        k = 1.0 / np.sqrt(1.0 + beam_fields(beam, w, [x]).slope[0] ** 2)
    return w


@dataclass(frozen=True, eq=False)
class ManipulatorPose:
    """The frictionless static pose that fixes the springs (computed once per Manipulator).

    q : (n,) joint coordinates and beam DOFs of the pose (read-only). rest : spring rest
    positions of joints 1 and 3 (rad, or m for a prismatic joint 3). torque : drive torque of
    the pose, N m. angle3 : rad, direction of a prismatic joint 3 in body 2's frame.
    """

    q: np.ndarray
    rest: tuple[float, float]
    torque: float
    angle3: float

    @property
    def drive_start(self) -> float:
        """Angle of the driven joint 2 at t = 0, rad."""
        return float(self.q[DRIVEN_JOINT])


@lru_cache(maxsize=8)
def manipulator_pose(data: Manipulator) -> ManipulatorPose:
    """Rest positions of the springs of joints 1 and 3 that make the chosen pose a frictionless
    static equilibrium with ``normal_force`` (Lipinski (002), eq. 7 at rest:
    F(q) = J_n^T lambda_n + e_2 tau)."""
    beam = assemble_beam(data.beam)
    w_full = _beam_under_contact(data, beam, data.normal_force)
    x = float(data.contact_x)
    tip = beam.origin + x * beam.t0 + beam_fields(beam, w_full, [x]).deflection[0] * beam.n0
    theta = pose_through(data, tip)
    rel = np.array([theta[0], theta[1] - theta[0], theta[2] - theta[1]])
    angle3 = float(rel[2])
    q_tree = rel.copy()
    if data.joint3 == "prismatic":
        q_tree[2] = 0.0  # the slide starts at its reference; body 3 keeps the angle angle3
    system = assemble(_model(data, 0.0, float(q_tree[DRIVEN_JOINT]), angle3=angle3))
    lay = system.layout
    q = np.zeros(lay.n)
    q[lay.tree] = q_tree
    q[lay.structure(BEAM)] = w_full[beam.free_dofs]
    ev = evaluate_state(system, q, np.zeros(lay.n), 0.0)
    if np.max(np.abs(ev.phi)) > 1e-10:
        raise RuntimeError(f"initial pose violates the constraints by {np.max(np.abs(ev.phi))}")
    forces = bias_forces(system.tree, q_tree, np.zeros(3))  # springs at rest 0
    jn = ev.jac[0, lay.tree]
    rest = []
    for j, k in zip(SPRING_JOINTS, data.stiffness, strict=True):
        rest.append(float((forces[j] - jn[j] * data.normal_force) / k))
    tau = float(forces[DRIVEN_JOINT] - jn[DRIVEN_JOINT] * data.normal_force)
    q.setflags(write=False)
    return ManipulatorPose(q=q, rest=(rest[0], rest[1]), torque=tau, angle3=angle3)


def manipulator_model(data: Manipulator | None = None, mu: float = 0.0) -> Model:
    """The manipulator on the cantilever with friction coefficient ``mu``: the springs' rest
    positions and the drive's start angle from the frictionless pose (``manipulator_pose``)."""
    data = Manipulator() if data is None else data
    pose = manipulator_pose(data)
    return _model(data, float(mu), pose.drive_start, pose.rest, pose.angle3)


@lru_cache(maxsize=8)
def _frictionless_start(data: Manipulator, dt: float):
    """What every mu shares: the frictionless system, its quasi-static velocities and the sign of
    the slip they give (computed once per data)."""
    pose = manipulator_pose(data)
    system = assemble(manipulator_model(data, 0.0))
    q_pose = np.array(pose.q)
    q_minus, _ = partition_static_state(system, q_pose, -dt)
    q_plus, _ = partition_static_state(system, q_pose, dt)
    u = (q_plus - q_minus) / (2.0 * dt)
    slip = evaluate_state(system, q_pose, u, 0.0, constraints_only=True).contacts[0]
    return system, u, np.array([np.sign(slip.slip_velocity)])


T_END = 0.6  # s, the run of 002 Fig. 7
H = 5e-4  # s, halving it changes the driving torque by less than 1e-4 N m
RHO_INF = 0.9


def manipulator(data: Manipulator | None = None, mu: float = 0.0, dt: float = 1e-3) -> Scenario:
    """The manipulator on the cantilever with friction coefficient mu as a Scenario, started in
    the quasi-static sliding state at t = 0.

    The frictionless pose of :func:`manipulator_pose` fixes the rest positions; for mu > 0 the
    equilibrium is re-solved with the friction of the sliding direction (the sign of the
    frictionless quasi-static slip velocity). Velocities: (q_eq(dt) - q_eq(-dt)) / (2 dt).
    Run: generalised-alpha, rho_inf = ``RHO_INF``, h = ``H``, to ``T_END``.

    details : ``rest`` spring rest positions of joints 1 and 3 (rad, or m for a prismatic joint
    3); ``normal_force`` (N) and ``torque`` (N m, the drive's) at t = 0 (eq. 76 at rest);
    ``frictionless_torque`` (N m) the drive torque of the frictionless static pose; ``angle3``
    (rad) the direction of a prismatic joint 3 in body 2's frame.
    """
    data = Manipulator() if data is None else data
    mu = float(mu)
    if not np.isfinite(mu) or mu < 0.0:
        raise ValueError(f"mu must be >= 0, got {mu!r}")
    pose = manipulator_pose(data)
    frictionless, u, sign = _frictionless_start(data, dt)
    u = u.copy()
    q_pose = np.array(pose.q)
    if mu > 0.0:
        system = assemble(manipulator_model(data, mu))
        q0, lam = partition_static_state(system, q_pose, 0.0, slip_sign=sign)
        q_minus, _ = partition_static_state(system, q0, -dt, slip_sign=sign)
        q_plus, _ = partition_static_state(system, q0, dt, slip_sign=sign)
        u = (q_plus - q_minus) / (2.0 * dt)
    else:
        system = frictionless
        q0, lam = q_pose, np.array([data.normal_force, pose.torque])
    ev = evaluate_state(system, q0, u, 0.0, constraints_only=True)
    part = make_partition(system, choose_dependent(ev.jac[:, system.layout.tree]))
    q0, u0 = recover_dependent(system, part, q0, u, 0.0)
    if data.lift_off:  # the same start, the contact free to lift off (closed at zero gap)
        pair = replace(system.model.contacts[0], law=Unilateral(mu))
        system = assemble(replace(system.model, contacts=(pair,)))
    details = {
        "rest": pose.rest,
        "normal_force": float(lam[0]),
        "torque": float(lam[1]),
        "frictionless_torque": pose.torque,
        "angle3": pose.angle3,
    }
    settings = {"h": H, "rho_inf": RHO_INF}
    return Scenario(
        f"manipulator-mu-{mu:g}",
        system.model,
        q0,
        u0,
        (0.0, T_END),
        "generalized-alpha",
        settings,
        details,
    )


def _parse_value(text: str, current):
    if isinstance(current, bool):
        words = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
        if text.strip().lower() not in words:
            raise ValueError(f"got {text!r}; allowed: true or false")
        return words[text.strip().lower()]
    if isinstance(current, tuple):
        return tuple(float(v) for v in text.split(","))
    if isinstance(current, str):
        return text
    if isinstance(current, int) and not isinstance(current, bool):
        return int(text)
    return float(text)


def apply_settings(data: Manipulator, settings) -> Manipulator:
    """``NAME=VALUE`` overrides of Manipulator fields (``beam.FIELD=VALUE`` for the beam);
    tuples as comma-separated numbers, e.g. ``masses=1.72,0.45,0.365``."""
    for item in settings or ():
        if "=" not in item:
            raise ValueError(f"--set expects NAME=VALUE, got {item!r}")
        name, text = item.split("=", 1)
        name = name.strip()
        if name.startswith("beam."):
            key = name[5:]
            fields = {f.name for f in dataclasses.fields(BeamSpec)}
            if key not in fields:
                raise ValueError(f"--set: BeamSpec has no field {key!r}; known: {sorted(fields)}")
            current = getattr(data.beam, key)
            value = float(text) if current is None else _parse_value(text, current)
            data = replace(data, beam=replace(data.beam, **{key: value}))
            continue
        fields = {f.name for f in dataclasses.fields(Manipulator)} - {"beam"}
        if name not in fields:
            raise ValueError(f"--set: Manipulator has no field {name!r}; known: {sorted(fields)}")
        data = replace(data, **{name: _parse_value(text, getattr(data, name))})
    return data


# ------------------------------------------------------------------------------------------
# A point mass sliding on the strip (our check of 002's contact and friction)
# ------------------------------------------------------------------------------------------

SLIDING_MASS = 0.02  # kg
SLIDING_CONTACT = "mass"


def sliding_mass_model(
    mu: float = 0.0,
    n_elements: int = 10,
    beam: BeamSpec | None = None,
    mass: float = SLIDING_MASS,
    gravity=(0.0, -9.81),
    structure_gravity: bool = True,
) -> Model:
    """A point mass ``mass`` kg on two prismatic joints (x then y; q = its position) sliding with
    Coulomb friction ``mu`` on ``beam`` (default the cantilever strip) with ``n_elements``.
    ``structure_gravity`` : the beam's own weight (the mass always has its weight)."""
    beam = CANTILEVER if beam is None else beam
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(mass, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
        gravity=gravity,
    )
    return Model(
        tree=tree,
        structures={BEAM: replace(beam, n_elements=n_elements)},
        contacts=(ContactPair(SLIDING_CONTACT, Point(1), BEAM, Sliding(mu)),),
        gravity=gravity,
        structure_gravity=structure_gravity,
    )


def sliding_mass_initial_state(system: System, x0: float = 0.1, speed: float = 0.5):
    """Mass at x0 (m) on the static deflected beam (self-weight, when the model has it, plus the
    mass's weight), moving at ``speed`` m/s along the deflected tangent. Returns (q0, u0)."""
    structure = system.structures[BEAM]
    beam = structure.beam
    g = np.asarray(system.tree.gravity)
    weight = system.tree.bodies[1].mass * float(g @ beam.n0)
    load = structure.load + point_load(beam, x0, force=weight)[beam.free_dofs]
    q_beam = spla.spsolve(structure.stiffness_matrix.tocsc(), load)
    point = structure.curve(x0, q_beam)
    lay = system.layout
    q0, u0 = system.initial_state()
    q0[lay.tree] = point.position
    q0[lay.structure(BEAM)] = q_beam
    u0[lay.tree] = speed * point.slope
    return q0, u0


def sliding_mass(
    mu: float = 0.0, n_elements: int = 10, x0: float = 0.1, speed: float = 0.5
) -> Scenario:
    """The sliding mass (``sliding_mass_model``) as a Scenario, started by
    ``sliding_mass_initial_state`` at x0 (m) with ``speed`` (m/s). Run: generalised-alpha,
    rho_inf = ``RHO_INF``, h = 1e-4 s, 0.5 s."""
    model = sliding_mass_model(mu, n_elements)
    q0, u0 = sliding_mass_initial_state(assemble(model), x0, speed)
    settings = {"h": 1e-4, "rho_inf": RHO_INF}
    return Scenario("sliding-mass", model, q0, u0, (0.0, 0.5), "generalized-alpha", settings)


__all__ = [
    "BEAM",
    "CANTILEVER",
    "CONTACT",
    "DRIVEN_JOINT",
    "H",
    "MU_SWEEP",
    "RHO_INF",
    "Manipulator",
    "ManipulatorPose",
    "SLIDING_CONTACT",
    "SLIDING_MASS",
    "SPRING_JOINTS",
    "T_END",
    "apply_settings",
    "cantilever_strip",
    "manipulator",
    "manipulator_model",
    "manipulator_pose",
    "manipulator_tree",
    "pose_through",
    "sliding_mass",
    "sliding_mass_model",
    "sliding_mass_initial_state",
]
