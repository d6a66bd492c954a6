"""Prescribed joint motion and stand-alone integration of a tree, Lipinski (002), secs. 2 and 9.

A drive prescribes q_j = q_j(t), a rheonomic constraint with the Jacobian row e_j. Its multiplier
lambda_j enters M q'' + F = Q + e_j lambda_j (Lipinski (002), eq. 7a), so the driving torque
(N m, revolute) or force (N, prismatic) is the joint's row of M q'' + F - Q, positive along q_j:
the value the manipulator example (Lipinski (002), sec. 9, Fig. 7b) reports for its joint 2
turning at 0.2 rad/s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from .. import validation as check
from .tree import TreeModel, checked_state, equations_of_motion


@dataclass(frozen=True)
class LinearMotion:
    """t -> value + rate * t (picklable, for parameter sweeps over processes).

    Examples
    --------
    >>> from fe_contact.multibody.drive import LinearMotion
    >>> round(LinearMotion(0.1, 0.2)(2.0), 4)
    0.5
    """

    value: float
    rate: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", check.real("LinearMotion.value", self.value))
        object.__setattr__(self, "rate", check.real("LinearMotion.rate", self.rate))

    def __call__(self, t: float) -> float:
        return self.value + self.rate * t


@dataclass(frozen=True)
class ReversingMotion:
    """Derivative ``order`` (0, 1, 2) of a motion at ``rate`` that reverses smoothly: the
    velocity rate (1 - 2 S(x)), S(x) = 3 x^2 - 2 x^3 the cubic smooth step over
    x = (t - t_reverse) / ramp + 1/2 in [0, 1] (picklable, like LinearMotion).

    Examples
    --------
    Velocity +0.2 before the ramp, -0.2 after it, 0 at its middle (the cubic step is 1/2 there):

    >>> from fe_contact.multibody.drive import ReversingMotion
    >>> v = ReversingMotion(0.0, 0.2, t_reverse=1.0, ramp=0.1, order=1)
    >>> [round(v(t), 4) + 0.0 for t in (0.9, 1.0, 1.1)]  # + 0.0: no "-0.0"
    [0.2, 0.0, -0.2]
    """

    value: float
    rate: float
    t_reverse: float
    ramp: float
    order: int

    def __call__(self, t: float) -> float:
        start = self.t_reverse - 0.5 * self.ramp
        x = min(max((t - start) / self.ramp, 0.0), 1.0)
        if self.order == 2:
            return -2.0 * self.rate * 6.0 * x * (1.0 - x) / self.ramp
        if self.order == 1:
            return self.rate * (1.0 - 2.0 * (3.0 * x * x - 2.0 * x**3))
        # the integral of S over the ramp: ramp (x^3 - x^4 / 2), then 1/2 ramp + (t - end)
        integral = self.ramp * (x**3 - 0.5 * x**4) + max(t - start - self.ramp, 0.0)
        return self.value + self.rate * t - 2.0 * self.rate * integral


@dataclass(frozen=True)
class Drive:
    """Prescribed motion q = position(t), q' = velocity(t), q'' = acceleration(t) of ``joint``.

    The three callables take t in s and return rad (rad/s, rad/s^2) for a revolute or m (m/s,
    m/s^2) for a prismatic joint; they must be consistent derivatives of each other.

    Examples
    --------
    Joint 0 turned at 0.2 rad/s from 0.1 rad, and the same motion written out:

    >>> from fe_contact import Drive
    >>> drive = Drive.constant_velocity(0, 0.1, 0.2)
    >>> [round(drive.position(2.0), 4), round(drive.velocity(2.0), 4), round(drive.acceleration(2.0), 4)]
    [0.5, 0.2, 0.0]
    >>> swing = Drive(0, position=np.sin, velocity=np.cos, acceleration=lambda t: -np.sin(t))
    >>> round(float(swing.position(np.pi / 2)), 4)
    1.0
    """

    joint: int
    position: Callable[[float], float]
    velocity: Callable[[float], float]
    acceleration: Callable[[float], float]

    def __post_init__(self) -> None:
        object.__setattr__(self, "joint", check.integer("Drive.joint", self.joint, low=0))
        for name in ("position", "velocity", "acceleration"):
            check.function(f"Drive.{name}", getattr(self, name), "a callable of t")

    @classmethod
    def constant_velocity(cls, joint: int, q0: float, rate: float) -> Drive:
        """q_joint(t) = q0 + rate t, e.g. ``Drive.constant_velocity(1, 0.0, 0.2)`` (0.2 rad/s)."""
        q0 = check.real("Drive.constant_velocity.q0", q0)
        rate = check.real("Drive.constant_velocity.rate", rate)
        return cls(
            joint=joint,
            position=LinearMotion(q0, rate),
            velocity=LinearMotion(rate),
            acceleration=LinearMotion(0.0),
        )

    @classmethod
    def reversing(
        cls, joint: int, q0: float, rate: float, t_reverse: float, ramp: float = 0.02
    ) -> Drive:
        """q_joint' = rate until t_reverse - ramp / 2, then -rate from t_reverse + ramp / 2,
        turning with a smooth cubic step in between (the acceleration stays finite), from
        q_joint(0) = q0; t_reverse and ramp in s."""
        q0 = check.real("Drive.reversing.q0", q0)
        rate = check.real("Drive.reversing.rate", rate)
        ramp = check.real("Drive.reversing.ramp", ramp, low=0.0, low_open=True, unit="s")
        t_reverse = check.real("Drive.reversing.t_reverse", t_reverse, low=0.5 * ramp, unit="s")
        motion = [ReversingMotion(q0, rate, t_reverse, ramp, order) for order in (0, 1, 2)]
        return cls(joint, *motion)


def _check_drives(tree: TreeModel, drives: Sequence[Drive]) -> tuple[Drive, ...]:
    drives = tuple(drives)
    seen: set[int] = set()
    for drive in drives:
        if not isinstance(drive, Drive):
            raise ValueError(f"drives must hold Drive objects, got {drive!r}")
        if not 0 <= drive.joint < tree.n_bodies:
            raise ValueError(
                f"drives: Drive joint {drive.joint} does not exist; allowed: 0..{tree.n_bodies - 1}"
            )
        if drive.joint in seen:
            raise ValueError(f"drives: joint {drive.joint} is driven twice; allowed: once")
        seen.add(drive.joint)
    return drives


@dataclass(frozen=True)
class ForwardDynamics:
    """Accelerations (n,) and drive forces (n_drives,) in the order of ``drives``.

    Examples
    --------
    See ``forward_dynamics``:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.multibody.drive import forward_dynamics
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> forward_dynamics(pendulum, [0.0], [0.0]).drive_forces.shape
    (0,)
    """

    acceleration: np.ndarray
    drive_forces: np.ndarray


def forward_dynamics(
    tree: TreeModel,
    q,
    u,
    t: float = 0.0,
    drives: Sequence[Drive] = (),
    forces=None,
) -> ForwardDynamics:
    """Accelerations and drive forces from M q'' + F = Q + sum_j e_j lambda_j.

    Lipinski (002), eq. (7a) with the rheonomic constraints q_j'' = drive_j.acceleration(t).

    q, u : (n,); the entries of driven joints are used as given (set them from the drives).
    forces : (n,) applied generalised forces Q or None (zero).
    Returns the accelerations (n,) and the multipliers lambda_j = (M q'' + F - Q)_j (driving
    torque in N m or force in N, positive along q_j) in the order of ``drives``.

    Examples
    --------
    A pendulum (point mass 1 kg at l = 0.5 m) held horizontal by a drive at rest: the drive's
    torque carries the weight, m g l = 4.905 N m:

    >>> from fe_contact import Body, Drive, Joint, TreeModel
    >>> from fe_contact.multibody.drive import forward_dynamics
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> held = forward_dynamics(pendulum, [0.0], [0.0], drives=[Drive.constant_velocity(0, 0.0, 0.0)])
    >>> print(f"{held.drive_forces[0]:.4g} N m")
    4.905 N m
    >>> free = forward_dynamics(pendulum, [0.0], [0.0])  # released: theta'' = -g / l
    >>> print(f"{free.acceleration[0]:.4g} rad/s^2")
    -19.62 rad/s^2
    """
    split = _Split(tree.n_bodies, _check_drives(tree, drives))
    eom = equations_of_motion(tree, q, u, t)
    rhs = -eom.bias_forces
    if forces is not None:
        rhs = rhs + checked_state(tree, forces, "forces")
    return split.solve(eom.mass_matrix, rhs, t)


class _Split:
    """Index sets of driven and free joints and the elimination of the driven ones."""

    def __init__(self, n: int, drives: tuple[Drive, ...]) -> None:
        self.drives = drives
        self.driven = np.array([d.joint for d in drives], dtype=int)
        self.free = np.setdiff1d(np.arange(n), self.driven)
        self.free_free = np.ix_(self.free, self.free)
        self.free_driven = np.ix_(self.free, self.driven)
        self.n = n

    def solve(self, M: np.ndarray, rhs: np.ndarray, t: float) -> ForwardDynamics:
        """q'' and lambda_j from M q'' = rhs + sum_j e_j lambda_j, q_j'' prescribed.

        Lipinski (002), eq. (7a); rhs = Q - F, shape (n,).
        """
        if not self.drives:
            return ForwardDynamics(np.linalg.solve(M, rhs), np.zeros(0))
        acceleration = np.empty(self.n)
        driven_acceleration = np.array([d.acceleration(t) for d in self.drives], dtype=float)
        acceleration[self.driven] = driven_acceleration
        if self.free.size:
            reduced = rhs[self.free] - M[self.free_driven].dot(driven_acceleration)
            acceleration[self.free] = np.linalg.solve(M[self.free_free], reduced)
        drive_forces = M[self.driven].dot(acceleration) - rhs[self.driven]
        return ForwardDynamics(acceleration=acceleration, drive_forces=drive_forces)


@dataclass(frozen=True)
class TreeSimulation:
    """Time history of a stand-alone tree from ``simulate_tree``.

    t : (n_t,) s.   q, u : (n_t, n) joint coordinates and velocities (driven ones included).
    acceleration : (n_t, n).   drive_forces : (n_t, n_drives), order of ``drives``, N m or N.
    status, message, success : as reported by scipy's ``solve_ivp``.

    Examples
    --------
    See ``simulate_tree``; with every joint driven nothing is integrated:

    >>> from fe_contact import Body, Drive, Joint, TreeModel
    >>> from fe_contact.multibody.drive import simulate_tree
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> run = simulate_tree(tree, (0.0, 1.0), [0.0], [0.0], drives=[Drive.constant_velocity(0, 0.0, 0.2)])
    >>> run.q[:, 0].tolist(), run.message
    ([0.0, 0.2], 'all joints are driven: nothing to integrate')
    """

    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    acceleration: np.ndarray
    drive_forces: np.ndarray
    status: int
    message: str
    success: bool


def simulate_tree(
    tree: TreeModel,
    t_span: tuple[float, float],
    q0,
    u0,
    drives: Sequence[Drive] = (),
    forces: Callable[[float, np.ndarray, np.ndarray], np.ndarray] | None = None,
    **solve_ivp_kwargs,
) -> TreeSimulation:
    """Integrate M q'' + F = Q with scipy's ``solve_ivp``, driven joints eliminated.

    Lipinski (002), eq. (7a): the free coordinates are integrated, the driven ones substituted.

    q0, u0 : (n,) initial state; entries of driven joints are replaced by the drives' values.
    drives : prescribed joints (q_j = q_j(t) is substituted, not integrated).
    forces : optional ``forces(t, q, u) -> (n,)`` applied generalised forces Q.
    solve_ivp_kwargs : passed on (method, rtol, atol, t_eval, max_step, ...). Events, if given,
        receive ``(t, y)`` with y = concatenate(q_free, u_free) over the non-driven joints; the
        result keeps the samples ``solution.t`` only (no dense output).

    Examples
    --------
    A pendulum (point mass, l = 0.5 m) on a spring k = 100 N m/rad with gravity off oscillates
    at omega = sqrt(k / (m l^2)) = 20 rad/s: after half a period it is at -q0:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.multibody.drive import simulate_tree
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),),
    ...                  joints=(Joint("revolute", stiffness=100.0),), gravity=(0.0, 0.0))
    >>> run = simulate_tree(tree, (0.0, np.pi / 20), [0.1], [0.0], rtol=1e-10, atol=1e-12)
    >>> run.success, round(float(run.q[-1, 0]), 6)
    (True, -0.1)
    """
    drives = _check_drives(tree, drives)
    q0 = checked_state(tree, q0, "q0")
    u0 = checked_state(tree, u0, "u0")
    n = tree.n_bodies
    split = _Split(n, drives)
    driven, free = split.driven, split.free
    n_free = free.size

    def full_state(t: float, y: np.ndarray):
        if not drives:
            return y[:n], y[n:]
        q = np.empty(n)
        u = np.empty(n)
        q[free] = y[:n_free]
        u[free] = y[n_free:]
        q[driven] = [d.position(t) for d in drives]
        u[driven] = [d.velocity(t) for d in drives]
        return q, u

    def dynamics(t: float, q: np.ndarray, u: np.ndarray):
        eom = equations_of_motion(tree, q, u, t)
        applied = -eom.bias_forces
        if forces is not None:
            applied = applied + forces(t, q, u)
        return split.solve(eom.mass_matrix, applied, t)

    def rhs(t: float, y: np.ndarray) -> np.ndarray:
        q, u = full_state(t, y)
        return np.concatenate((y[n_free:], dynamics(t, q, u).acceleration[free]))

    t0, t1 = (float(t_span[0]), float(t_span[1]))
    if n_free == 0:
        t_eval = solve_ivp_kwargs.get("t_eval")
        times = np.array([t0, t1]) if t_eval is None else np.asarray(t_eval, dtype=float)
        states = [full_state(t, np.empty(0)) for t in times]
        status, message, success = 0, "all joints are driven: nothing to integrate", True
    else:
        y0 = np.concatenate((q0[free], u0[free]))
        solution = solve_ivp(rhs, (t0, t1), y0, **solve_ivp_kwargs)
        times = solution.t
        states = [full_state(t, y) for t, y in zip(times, solution.y.T, strict=True)]
        status, message, success = solution.status, solution.message, solution.success
    results = [dynamics(t, q, u) for t, (q, u) in zip(times, states, strict=True)]
    return TreeSimulation(
        t=np.asarray(times),
        q=np.array([q for q, _ in states]).reshape(len(times), n),
        u=np.array([u for _, u in states]).reshape(len(times), n),
        acceleration=np.array([r.acceleration for r in results]).reshape(len(times), n),
        drive_forces=np.array([r.drive_forces for r in results]).reshape(len(times), len(drives)),
        status=int(status),
        message=str(message),
        success=bool(success),
    )
