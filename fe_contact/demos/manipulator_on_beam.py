"""The manipulator sliding on the cantilever: Lipinski (002), sec. 9, with MISSION's data and choices.

Model (SI units)
----------------
* Cantilever: L = 0.4 m clamped at the origin and lying along +x, 10 Hermite elements, height
  1.5 mm, width 10 mm, rho = 4.7e3 kg/m^3, E = 2.1e11 Pa (EI = 0.5906 N m^2, rho A = 0.0705 kg/m),
  under its own weight.
* Three bodies in a chain from the base joint at (-0.41, 0.3) m: l1 = l2 = 0.2 m, l3 = 0.3 m;
  m1 = 1.72 kg, I1 = 0.018 kg m^2 with the centre of mass on joint 1 (gravity balanced);
  m2 = 0.45 kg, I2 = 0.0025 kg m^2; m3 = 0.365 kg, I3 = 0.00275 kg m^2 (centres of mass at the
  middles). Joint 1: spring k1 = 10 N m/rad, damper c1 = 0.1 N m s/rad; joint 3: k3 = 80, c3 = 0.1
  (N m/rad, N m s/rad; N/m, N s/m when joint 3 is prismatic). Gravity 9.81 m/s^2 along -y.
* Joint 2 is driven at a constant 0.2 rad/s; its multiplier is the driving torque (002 Fig. 7b).
* The end of body 3 slides on the beam's upper face with Coulomb friction mu (002 secs. 4-7).

Choices where 002 is silent or ambiguous (MISSION, "The manipulator example")
----------------------------------------------------------------------------
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

Outputs in ``--out`` (default ``out/manipulator``): ``mu_<mu>/history.csv`` per case (every column
of the run, SI units in the header), ``torque.png/.svg`` (driving torque at joint 2 vs time, one
curve per mu), ``configuration.png/.svg`` (mechanism and deflected beam to scale at the end time
with the contact forces), ``summary.csv`` (printed too), the ParaView series
``mu_<mu>/frames.pvd`` of the mu = 0.2 case (``--vtk all``: every case) and
``manipulator.gif`` (an animation of that series).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..coupling.contact import ContactSpec
from ..coupling.partition import (
    choose_dependent,
    make_partition,
    recover_dependent,
    static_equilibrium,
)
from ..elements.beam import (
    BeamSpec,
    assemble_beam,
    evaluate,
    point_load,
    self_weight,
    static_deflection,
)
from ..integrate.genalpha import integrate
from ..multibody.drive import Drive
from ..multibody.joints import Joint
from ..multibody.tree import Body, TreeModel, bias_forces
from ..system import Model, assemble, evaluate_state

CANTILEVER = BeamSpec(
    length=0.4,
    n_elements=10,
    youngs_modulus=2.1e11,
    density=4.7e3,
    width=0.01,
    height=0.0015,
    left="clamped",
    right="free",
)
MU_SWEEP = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)
DRIVEN_JOINT = 1  # joint 2 of 002 (0-based index 1)
SPRING_JOINTS = (0, 2)  # joints 1 and 3 of 002


def _positive(value, name, allow_zero=False):
    v = float(value)
    if not np.isfinite(v) or (v < 0.0 if allow_zero else v <= 0.0):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"Manipulator {name} must be finite and {bound}, got {value!r}")
    return v


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

    def __post_init__(self):
        base = tuple(float(v) for v in self.base)
        if len(base) != 2 or not all(np.isfinite(base)):
            raise ValueError(f"Manipulator base must be (x, y) in m, got {self.base!r}")
        object.__setattr__(self, "base", base)
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
        for name in ("drive_rate", "body1_angle"):
            if not np.isfinite(float(getattr(self, name))):
                raise ValueError(f"Manipulator {name} must be finite, got {getattr(self, name)!r}")
        if not isinstance(self.beam, BeamSpec):
            raise ValueError(f"Manipulator beam must be a BeamSpec, got {self.beam!r}")
        if not 0.0 < float(self.contact_x) < self.beam.length:
            raise ValueError(
                f"Manipulator contact_x must lie inside the beam (0, {self.beam.length:g}) m, "
                f"got {self.contact_x!r}"
            )
        _positive(self.normal_force, "normal_force")
        _positive(self.gravity, "gravity", allow_zero=True)


def _tree(data: Manipulator, rest=(0.0, 0.0), angle3: float = 0.0) -> TreeModel:
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
        tree=_tree(data, rest, angle3),
        beam=data.beam,
        contacts=(ContactSpec(body=2, point="end_effector", mu=mu, side=1, name="contact"),),
        drives=(Drive.constant_velocity(DRIVEN_JOINT, q2, data.drive_rate),),
    )


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


@dataclass(frozen=True)
class InitialState:
    """The consistent start of one case. q0, u0 : (n,). rest : spring rest positions of joints 1
    and 3 (rad, or m for a prismatic joint 3). normal_force : N and torque : N m at t = 0 (eq. 76
    at rest). frictionless_torque : N m, drive torque of the frictionless static pose."""

    q0: np.ndarray
    u0: np.ndarray
    rest: tuple[float, float]
    normal_force: float
    torque: float
    frictionless_torque: float
    angle3: float


def _beam_under_contact(data: Manipulator, beam, force: float):
    """Beam DOFs (full) under its weight and the contact force (N, pushing down) at contact_x."""
    x = float(data.contact_x)
    gravity = (0.0, -data.gravity)
    k = 1.0
    for _ in range(4):  # the contact force acts along the deflected normal: k = 1/sqrt(1 + w'^2)
        load = point_load(beam, x, force=-k * force) + self_weight(beam, gravity)
        w = static_deflection(beam, load)
        k = 1.0 / np.sqrt(1.0 + evaluate(beam, w, [x]).slope[0] ** 2)
    return w


def spring_rest_positions(data: Manipulator):
    """Rest positions of the springs of joints 1 and 3 that make the chosen pose a frictionless
    static equilibrium with ``normal_force`` (Lipinski (002), eq. 7 at rest:
    F(q) = J_n^T lambda_n + e_2 tau). Returns (q (n,), rest (2,), tau, angle3)."""
    beam = assemble_beam(data.beam)
    w_full = _beam_under_contact(data, beam, data.normal_force)
    x = float(data.contact_x)
    tip = beam.origin + x * beam.t0 + evaluate(beam, w_full, [x]).deflection[0] * beam.n0
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
    q[lay.beam] = w_full[beam.free_dofs]
    ev = evaluate_state(system, q, np.zeros(lay.n), 0.0)
    if np.max(np.abs(ev.phi)) > 1e-10:
        raise RuntimeError(f"initial pose violates the constraints by {np.max(np.abs(ev.phi))}")
    forces = bias_forces(system.tree, q_tree, np.zeros(3))  # springs at rest 0
    jn = ev.jac[0, lay.tree]
    rest = []
    for j, k in zip(SPRING_JOINTS, data.stiffness, strict=True):
        rest.append(float((forces[j] - jn[j] * data.normal_force) / k))
    tau = float(forces[DRIVEN_JOINT] - jn[DRIVEN_JOINT] * data.normal_force)
    return q, (rest[0], rest[1]), tau, angle3


def build_system(data: Manipulator, mu: float, q2: float, rest, angle3):
    return assemble(_model(data, mu, q2, rest, angle3))


@lru_cache(maxsize=8)
def _frictionless_start(data: Manipulator, dt: float):
    """What every mu shares: the frictionless pose, rest positions, drive torque, the system with
    mu = 0, its quasi-static velocities and the sign of the slip they give (computed once)."""
    q_pose, rest, tau0, angle3 = spring_rest_positions(data)
    system = build_system(data, 0.0, float(q_pose[DRIVEN_JOINT]), rest, angle3)
    q_minus, _ = static_equilibrium(system, q_pose, -dt)
    q_plus, _ = static_equilibrium(system, q_pose, dt)
    u = (q_plus - q_minus) / (2.0 * dt)
    slip = evaluate_state(system, q_pose, u, 0.0, constraints_only=True).contacts[0]
    return system, q_pose, u, rest, tau0, angle3, np.array([np.sign(slip.slip_velocity)])


def initial_state(data: Manipulator, mu: float, dt: float = 1e-3):
    """(system, InitialState) for friction coefficient mu: the quasi-static sliding state at t = 0.

    The frictionless pose of :func:`spring_rest_positions` fixes the rest positions; for mu > 0 the
    equilibrium is re-solved with the friction of the sliding direction (the sign of the
    frictionless quasi-static slip velocity). Velocities: (q_eq(dt) - q_eq(-dt)) / (2 dt).
    """
    mu = float(mu)
    if not np.isfinite(mu) or mu < 0.0:
        raise ValueError(f"mu must be >= 0, got {mu!r}")
    frictionless, q_pose, u, rest, tau0, angle3, sign = _frictionless_start(data, dt)
    if mu > 0.0:
        system = build_system(data, mu, float(q_pose[DRIVEN_JOINT]), rest, angle3)
        q0, lam = static_equilibrium(system, q_pose, 0.0, slip_sign=sign)
        q_minus, _ = static_equilibrium(system, q0, -dt, slip_sign=sign)
        q_plus, _ = static_equilibrium(system, q0, dt, slip_sign=sign)
        u = (q_plus - q_minus) / (2.0 * dt)
    else:
        system = frictionless
        q0, lam = q_pose, np.array([data.normal_force, tau0])
    ev = evaluate_state(system, q0, u, 0.0, constraints_only=True)
    part = make_partition(system, choose_dependent(ev.jac[:, system.layout.tree]))
    q0, u0 = recover_dependent(system, part, q0, u, 0.0)
    return system, InitialState(
        q0=q0,
        u0=u0,
        rest=rest,
        normal_force=float(lam[0]),
        torque=float(lam[1]),
        frictionless_torque=tau0,
        angle3=angle3,
    )


@dataclass
class Case:
    """One mu of the sweep: its initial state, result (SimulationResult) and summary row."""

    mu: float
    initial: InitialState
    result: object
    summary: dict


def case_dir(out, mu: float) -> Path:
    return Path(out) / f"mu_{mu:g}"


def energy_terms(result) -> dict:
    """The energy-balance terms of a run (J, arrays): energies, work of the drive, dissipation."""
    c = result.columns
    names = (
        "tree_kinetic_energy",
        "tree_potential_energy",
        "beam_kinetic_energy",
        "beam_elastic_energy",
        "beam_gravity_energy",
        "work_drives",
        "dissipated_damping",
        "dissipated_friction",
    )
    return {n: np.asarray(c[n]) for n in names}


def summarize(mu: float, result, wall_time: float) -> dict:
    """The summary row of one case (SI)."""
    c = result.columns
    torque = np.asarray(c[f"drive_{DRIVEN_JOINT}_torque"])
    largest = max(float(np.max(np.abs(v))) for v in energy_terms(result).values())
    return {
        "mu": mu,
        "status": result.status,
        "t_end [s]": float(result.t[-1]),
        "mean_torque [N m]": float(np.mean(torque)),
        "max_torque [N m]": float(np.max(torque)),
        "min_torque [N m]": float(np.min(torque)),
        "mean_normal_force [N]": float(np.mean(c["contact_normal_force"])),
        "final_contact_x [m]": float(c["contact_x"][-1]),
        "drive_work [J]": float(c["work_drives"][-1]),
        "friction_dissipation [J]": float(c["dissipated_friction"][-1]),
        "energy_error [J]": float(np.max(np.abs(c["energy_error"]))),
        "energy_error_relative": float(np.max(np.abs(c["energy_error"])) / largest),
        "max_residual_position [m]": float(np.max(c["residual_position"])),
        "max_residual_velocity [m/s]": float(np.max(c["residual_velocity"])),
        "wall_time [s]": wall_time,
        "message": result.message,
    }


def run_case(
    mu: float,
    data: Manipulator | None = None,
    t_end: float = 0.6,
    h: float = 5e-4,
    rho_inf: float = 0.9,
    out=None,
    vtk: bool = False,
    frame_interval: float = 0.01,
    progress: bool | None = False,
) -> Case:
    """Simulate one friction coefficient; writes ``OUT/mu_<mu>/history.csv`` (and the VTK series
    when ``vtk``) as the run goes when ``out`` is given."""
    data = Manipulator() if data is None else data
    wall0 = time.perf_counter()
    system, init = initial_state(data, mu)
    folder = None if out is None else case_dir(out, mu)
    result = integrate(
        system,
        (0.0, t_end),
        init.q0,
        init.u0,
        h=h,
        rho_inf=rho_inf,
        out=folder,
        progress=progress,
        vtk=folder if (vtk and folder is not None) else None,
        vtk_stride=max(int(round(frame_interval / h)), 1),
    )
    wall = time.perf_counter() - wall0
    return Case(mu=float(mu), initial=init, result=result, summary=summarize(mu, result, wall))


SUMMARY_KEYS = (
    "mu",
    "status",
    "t_end [s]",
    "mean_torque [N m]",
    "max_torque [N m]",
    "min_torque [N m]",
    "mean_normal_force [N]",
    "final_contact_x [m]",
    "drive_work [J]",
    "friction_dissipation [J]",
    "energy_error [J]",
    "energy_error_relative",
    "max_residual_position [m]",
    "max_residual_velocity [m/s]",
    "wall_time [s]",
    "message",
)


def _run_case_job(args, progress=False):
    """run_case that never raises: a case that cannot start is reported as failed."""
    try:
        return run_case(*args, progress=progress)
    except Exception as err:  # noqa: BLE001 - reported per case, the sweep goes on
        summary = dict.fromkeys(SUMMARY_KEYS, float("nan"))
        summary.update(mu=float(args[0]), status="failed", message=f"{type(err).__name__}: {err}")
        return Case(mu=float(args[0]), initial=None, result=None, summary=summary)


def sweep(
    mus=MU_SWEEP,
    data: Manipulator | None = None,
    t_end: float = 0.6,
    h: float = 5e-4,
    out=None,
    vtk=(0.2,),
    jobs: int = 1,
    progress: bool | None = None,
) -> list[Case]:
    """Run every mu (in ``jobs`` processes when > 1); ``vtk`` : the mus whose ParaView series is
    written ("all": every case). Returns the cases in the order of ``mus``."""
    data = Manipulator() if data is None else data
    mus = [float(m) for m in mus]
    if not mus:
        raise ValueError("mus must hold at least one friction coefficient")
    if isinstance(jobs, bool) or int(jobs) != jobs or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    if progress is None:
        progress = sys.stderr.isatty()
    with_vtk = [vtk == "all" or any(np.isclose(m, v) for v in (vtk or ())) for m in mus]
    args = [(m, data, t_end, h, 0.9, out, v) for m, v in zip(mus, with_vtk, strict=True)]
    if jobs == 1:
        return [_run_case_job(a, progress) for a in args]
    cases = {}
    with ProcessPoolExecutor(max_workers=int(jobs)) as pool:
        futures = {pool.submit(_run_case_job, a): a[0] for a in args}
        done = as_completed(futures)
        if progress:
            from tqdm import tqdm

            done = tqdm(done, total=len(futures), desc="cases", unit="case")
        for future in done:
            case = future.result()
            cases[futures[future]] = case
    return [cases[m] for m in mus]


# -- outputs -------------------------------------------------------------------------------------


def plot_torques(cases: list[Case], path) -> list[Path]:
    """Driving torque at joint 2 versus time, one curve per mu (002 Fig. 7b); PNG and SVG."""
    from matplotlib.figure import Figure

    from ..io.plots import save_figure

    fig = Figure(figsize=(7.0, 4.0), layout="constrained")
    ax = fig.add_subplot()
    for case in cases:
        r = case.result
        if r is None:
            continue
        ax.plot(r.t, r.columns[f"drive_{DRIVEN_JOINT}_torque"], label=f"mu = {case.mu:g}")
    ax.set_xlabel("time t [s]")
    ax.set_ylabel("driving torque at joint 2 [N m]")
    ax.set_title("Manipulator on the cantilever: driving torque (002 Fig. 7b)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return save_figure(fig, path)


def write_summary(cases: list[Case], path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = list(SUMMARY_KEYS)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(keys)
        for case in cases:
            writer.writerow([case.summary[k] for k in keys])
    return path


def format_summary(cases: list[Case]) -> str:
    head = (
        f"{'mu':>5} {'status':>8} {'mean tau':>9} {'max tau':>9} {'mean N':>8} {'x_end':>8} "
        f"{'E err rel':>9} {'max phi':>9} {'wall':>6}"
    )
    lines = [
        head,
        f"{'':>5} {'':>8} {'[N m]':>9} {'[N m]':>9} {'[N]':>8} {'[m]':>8} "
        f"{'':>9} {'[m]':>9} {'[s]':>6}",
    ]
    for case in cases:
        s = case.summary
        lines.append(
            f"{case.mu:5.3g} {s['status']:>8} {s['mean_torque [N m]']:9.5f} "
            f"{s['max_torque [N m]']:9.5f} {s['mean_normal_force [N]']:8.4f} "
            f"{s['final_contact_x [m]']:8.5f} {s['energy_error_relative']:9.2e} "
            f"{s['max_residual_position [m]']:9.2e} {s['wall_time [s]']:6.1f}"
        )
    return "\n".join(lines)


def _parse_value(text: str, current):
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="fe-contact demo manipulator",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--mu", type=float, nargs="+", default=list(MU_SWEEP), help="friction coefficients"
    )
    parser.add_argument("--t-end", type=float, default=0.6, help="end time, s (default 0.6)")
    parser.add_argument("--h", type=float, default=5e-4, help="time step, s (default 5e-4)")
    parser.add_argument("--out", default="out/manipulator", help="output folder")
    parser.add_argument("--jobs", type=int, default=1, help="parallel processes (default 1)")
    parser.add_argument(
        "--vtk",
        default="0.2",
        help="ParaView series for this mu, 'all' or 'none' (default 0.2)",
    )
    parser.add_argument(
        "--joint3", choices=("revolute", "prismatic"), default=None, help="kind of joint 3"
    )
    parser.add_argument("--elements", type=int, default=None, help="beam elements (default 10)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override any Manipulator field (e.g. contact_x=0.12, masses=1.7,0.45,0.365, "
        "beam.youngs_modulus=2e11); repeatable",
    )
    parser.add_argument("--no-animation", action="store_true", help="skip the GIF")
    args = parser.parse_args(argv)
    try:
        data = apply_settings(Manipulator(), args.set)
        if args.joint3:
            data = replace(data, joint3=args.joint3)
        if args.elements is not None:
            data = replace(data, beam=replace(data.beam, n_elements=args.elements))
        if args.vtk == "all":
            vtk = "all"
        elif args.vtk == "none":
            vtk = ()
        else:
            vtk = (float(args.vtk),)
        if not args.t_end > 0 or not args.h > 0:
            raise ValueError(f"--t-end and --h must be > 0, got {args.t_end!r}, {args.h!r}")
        q, rest, tau, _ = spring_rest_positions(data)
    except ValueError as err:
        print(f"fe-contact demo manipulator: {err}", file=sys.stderr)
        return 2
    out = Path(args.out)
    unit = "m" if data.joint3 == "prismatic" else "rad"
    print(
        f"initial pose: joint angles q = {np.round(q[:3], 6).tolist()} (rad"
        f"{', joint 3 in m' if data.joint3 == 'prismatic' else ''}), contact at x = "
        f"{data.contact_x:g} m; spring rest positions: joint 1 {rest[0]:.6f} rad, joint 3 "
        f"{rest[1]:.6f} {unit} for a frictionless normal force of {data.normal_force:g} N "
        f"(driving torque {tau:.5f} N m)"
    )
    print(f"running mu = {', '.join(f'{m:g}' for m in args.mu)} to t = {args.t_end:g} s ...")
    cases = sweep(args.mu, data, args.t_end, args.h, out, vtk, args.jobs)
    print(format_summary(cases))
    written = [write_summary(cases, out / "summary.csv")]
    written += plot_torques(cases, out / "torque.png")
    ran = [c for c in cases if c.result is not None]
    show = next((c for c in ran if np.isclose(c.mu, 0.2)), ran[-1] if ran else None)
    if show is None:
        for c in cases:
            print(f"case mu = {c.mu:g} FAILED: {c.summary['message']}", file=sys.stderr)
        return 1
    system = build_system(
        data, show.mu, float(show.initial.q0[DRIVEN_JOINT]), show.initial.rest, show.initial.angle3
    )
    from ..io.plots import plot_configuration

    r = show.result
    written += plot_configuration(
        system,
        r.q[-1],
        out / "configuration.png",
        u=r.u[-1],
        t=float(r.t[-1]),
        multipliers=r.multipliers[-1],
        friction=np.array([r.columns["contact_friction_force"][-1]]),
        title=f"manipulator on the cantilever, mu = {show.mu:g}, t = {r.t[-1]:.3g} s (002 Fig. 7a)",
    )
    for case in cases:
        for name in ("history.csv", "frames.pvd"):
            if (case_dir(out, case.mu) / name).exists():
                written.append(case_dir(out, case.mu) / name)
    pvd = case_dir(out, show.mu) / "frames.pvd"
    if pvd.exists() and not args.no_animation:
        from ..io.render import render_animation

        written.append(render_animation(pvd, out / "manipulator.gif"))
    print("wrote:")
    for p in written:
        print(f"  {p}")
    failed = [c for c in cases if c.summary["status"] != "finished"]
    for c in failed:
        print(f"case mu = {c.mu:g} FAILED: {c.summary['message']}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
