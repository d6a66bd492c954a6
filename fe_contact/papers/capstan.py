"""The capstan: a string wrapped on a drum with Coulomb friction (Euler-Eytelwein).

Not from one of the seed papers; it sits with the other scenarios of ``papers`` (each returns
``(Model, q0, u0)``) because it is built the same way, from the same parts.

The model: a weightless elastic string (absolute-nodal, Eugster-Glocker (004) secs. 3-4, linear
law T = EA (nu - 1), no bending stiffness) wrapped over a drum of radius R (a ``Circle`` of tree
body 0, on a revolute joint at its centre) with the wrap angle theta. The string's end s = 0
(the *tight* end) is pinned to the ground; it runs up a straight span, along the arc and down
the other span to its free end s = L (the *slack* end), which carries a constant point load of
T_slack along the span (a ``PointLoad`` at the end node: a hanging weight whose mass is left
out). The drum's actuator applies the torque M(t) = -R rate t (clockwise): the drum drags the
string from the tight towards the slack side, and by the drum's balance the tight end carries

    F(t) = T_slack + |M(t)| / R = T_slack + rate t        (quasi-static: the drum barely turns)

until the string slips on the drum at F = T_slack e^{mu theta} (Euler-Eytelwein). After that the
drum spins up under the string, which stays where it is with T(phi) = T_slack e^{mu phi} along
the arc (phi measured from the slack side).

Why the pull is a drum torque: a ``PointLoad`` is a dead load with a potential, constant in time;
the library's only time-dependent applied forces are joint actuators. In the drum's frame the
torque-driven drum with the tight end anchored is the fixed drum whose tight end is pulled with
F(t) (the rotating-drum capstan friction test of yarns and ropes); the relative motion of string
and drum, which is all that friction sees, is the same.

Contact: the candidate grid of Eugster-Glocker (004), eqs. (20)-(25), under Moreau-Jean
(``ContactPair(..., Unilateral(mu), search="grid")``). A wrapped arc is a distributed contact:
every point of the arc touches at once. The closest-point contacts (``search="closest"``, the
generalised-alpha stepper's bilateral ``Sliding`` of Lipinski (002)) give one contact point per
pair, and the distance from a circle to a string lying on it is the same along the whole arc, so
the closest point is not even defined there. The grid gives each of ``n_candidates`` material
points its own unilateral contact with its own Coulomb cone, so stick and slip are decided point
by point, and the one-step contact problem (``coupling.setvalued``) holds many closed contacts.
How much the discretisation matters: a string straight between the candidates would be a
polygon pressed at them, whose slip ratio ((1 + mu tan(a/2)) / (1 - mu tan(a/2)))^n for n
candidates each turning it by a = theta / n tends to e^{mu theta} from above as 1/n^2
(``discrete_slip_ratio``). The Hermite string is C1 and cannot kink at a candidate: its grid
holds slightly less than e^{mu theta} (-3.1e-3 with 6 elements and 20 candidates, where the
polygon with their spacing would give +6.3e-3; -7.4e-4 with 12 and 40, polygon +1.5e-3;
docs/details/capstan.md), and the normal forces scatter from candidate to candidate (more
candidates than the string's coordinates resolve: they are not unique) while the tension does
not. With more than about 3.5 candidates per element the one-step contact problem stops
converging.

Every number is typed once, in ``CapstanData``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import validation as check
from ..scenario import Scenario


@dataclass(frozen=True)
class CapstanData:
    """Data of the capstan (SI).

    radius : drum radius R, m. wrap : wrap angle theta, rad (0 < theta < 2 pi).
    span : length of each straight span of the string, m.
    axial_stiffness : EA of the linear tension law, N. line_density : rho0 A, kg/m.
    mu : Coulomb coefficient between string and drum.
    slack_tension : T_slack, the constant point load at the slack end, N.
    rate : growth of the tight end's force, N/s (the drum torque grows as R rate).
    drum_inertia : polar moment of the drum about its axis, kg m^2.
    n_elements : string elements. n_candidates : candidate contact points along the string.
    stiffness_damping : beta of the string's damping beta K_t(q) q', s.
    """

    radius: float = 0.05
    wrap: float = math.pi
    span: float = 0.05
    axial_stiffness: float = 500.0
    line_density: float = 0.01
    mu: float = 0.3
    slack_tension: float = 2.0
    rate: float = 10.0
    drum_inertia: float = 1e-5
    n_elements: int = 12
    n_candidates: int = 40
    stiffness_damping: float = 1e-4

    def __post_init__(self):
        positive = {
            "radius": "m",
            "span": "m",
            "axial_stiffness": "N",
            "line_density": "kg/m",
            "slack_tension": "N",
            "drum_inertia": "kg m^2",
        }
        for name, unit in positive.items():
            check.real(
                f"CapstanData.{name}", getattr(self, name), low=0.0, low_open=True, unit=unit
            )
        check.real(
            "CapstanData.wrap", self.wrap, low=0.0, high=2.0 * math.pi, low_open=True,
            high_open=True, unit="rad",
        )  # fmt: skip
        check.real("CapstanData.mu", self.mu, low=0.0, meaning="a friction coefficient")
        check.real("CapstanData.rate", self.rate, low=0.0, unit="N/s")
        check.real("CapstanData.stiffness_damping", self.stiffness_damping, low=0.0, unit="s")
        check.positive_int("CapstanData.n_elements", self.n_elements)
        n = check.positive_int("CapstanData.n_candidates", self.n_candidates)
        if n < 2:
            check.fail("CapstanData.n_candidates", n, "an integer >= 2")

    @property
    def length(self) -> float:
        """Unstretched length of the string: two spans and the arc, m."""
        return 2.0 * self.span + self.radius * self.wrap

    @property
    def slip_force(self) -> float:
        """Euler-Eytelwein: the tight end's force at which the string slips, T_slack e^{mu theta}, N."""
        return self.slack_tension * math.exp(self.mu * self.wrap)

    def tight_force(self, t):
        """The quasi-static force of the tight end before slip, F(t) = T_slack + rate t, N."""
        return self.slack_tension + self.rate * np.asarray(t, dtype=float)

    @property
    def slip_torque(self) -> float:
        """Torque the string's friction exerts on a drum slipping under it, R (T_tight - T_slack)
        with T_tight = T_slack e^{mu theta}: R T_slack (e^{mu theta} - 1), N m."""
        return self.radius * self.slack_tension * math.expm1(self.mu * self.wrap)

    def arc_tension(self, phi):
        """Tension during slip at the angle phi (rad) from the slack side's end of the arc,
        T_slack e^{mu phi}, N."""
        return self.slack_tension * np.exp(self.mu * np.asarray(phi, dtype=float))


@dataclass(frozen=True)
class TorqueRamp:
    """The drum's actuator torque M(t) = -radius rate t in N m (clockwise: it drags the string
    from the tight towards the slack side)."""

    radius: float
    rate: float

    def __call__(self, t: float) -> float:
        return -self.radius * self.rate * t


def discrete_slip_ratio(mu: float, wrap: float, n: int) -> float:
    """Slip ratio F / T_slack of a string pressed on the drum at n points, each turning it by
    a = wrap / n (a polygon; point k has the tensions T_k, T_k+1 either side, normal force
    (T_k + T_k+1) sin(a/2), friction (T_k+1 - T_k) cos(a/2) <= mu times that):
    ((1 + mu tan(a/2)) / (1 - mu tan(a/2)))^n = e^{mu theta} (1 + (1 + mu^2) mu theta a^2 / 12
    + O(a^4)). ValueError when mu tan(a/2) >= 1 (no slip at any force: self-locking)."""
    half = math.tan(0.5 * wrap / n)
    if mu * half >= 1.0:
        raise ValueError(f"mu tan(a/2) = {mu * half:g} >= 1: a point of the polygon never slips")
    return ((1.0 + mu * half) / (1.0 - mu * half)) ** n


def capstan_path(data: CapstanData, s) -> tuple[np.ndarray, np.ndarray]:
    """Positions and unit tangents, each (2, m), of the wrapped path at the arc length s (m)
    from the anchor: the tight span up to the arc, the arc clockwise over the drum (centre at
    the origin) from the polar angle pi/2 + theta/2 to pi/2 - theta/2, then the slack span
    straight on (beyond s = L as well)."""
    s = np.atleast_1d(np.asarray(s, dtype=float))
    r, a0 = data.radius, 0.5 * math.pi + 0.5 * data.wrap
    a = a0 - np.clip(s - data.span, 0.0, r * data.wrap) / r
    tangent = np.array([np.sin(a), -np.cos(a)])
    on_arc = r * np.array([np.cos(a), np.sin(a)])
    before = np.minimum(s - data.span, 0.0)  # <= 0 on the tight span
    after = np.maximum(s - data.span - r * data.wrap, 0.0)  # >= 0 on the slack span
    return on_arc + (before + after) * tangent, tangent


def arc_angle(data: CapstanData, position: np.ndarray) -> np.ndarray:
    """Angle phi (rad) from the slack side's end of the arc (polar angle pi/2 - theta/2) to the
    polar angle of the points ``position`` (2, m), counter-clockwise: 0 where the string leaves
    the drum towards the slack end, theta where it comes from the tight span."""
    polar = np.arctan2(position[1], position[0])
    return np.mod(polar - (0.5 * math.pi - 0.5 * data.wrap) + math.pi, 2.0 * math.pi) - math.pi


THETA = 0.55  # Moreau-Jean's theta: damps the unresolved axial modes of the string
H = 1e-3  # s, time step
OVERSHOOT = 1.15  # the run lasts this many times the ramp time to the Euler-Eytelwein force


def ramp_time(data: CapstanData) -> float:
    """Time (s) at which F(t) = T_slack + rate t reaches T_slack e^{mu theta}."""
    return (data.slip_force - data.slack_tension) / data.rate


def capstan(data: CapstanData | None = None) -> Scenario:
    """The capstan (module docstring) as a Scenario; default ``CapstanData()``.

    The string's stress-free reference is the wrapped path itself (``capstan_path``),
    parametrised by arc length; at t = 0 it lies on the same path stretched uniformly to
    nu0 = 1 + T_slack / EA (tension T_slack everywhere: the balance of the slack end's load
    with frictionless support, to the Hermite interpolation of the arc), at rest, the drum at
    angle 0. Run: Moreau-Jean, theta = ``THETA``, h = ``H``, to ``OVERSHOOT`` times
    ``ramp_time`` (1 s when data.rate = 0).
    """
    from ..elements.string import (
        CurveReference,
        LinearElastic,
        StringSpec,
        Support,
        assemble_string,
    )
    from ..laws import Unilateral
    from ..model import ContactPair, Model, PointLoad
    from ..multibody.joints import Joint
    from ..multibody.tree import Body, TreeModel
    from ..sides import Circle
    from ..system import assemble

    data = CapstanData() if data is None else data
    no_gravity = (0.0, 0.0)  # a weightless string: e^{mu phi} has no weight term
    spec = StringSpec(
        length=data.length,
        n_elements=data.n_elements,
        density=data.line_density,
        law=LinearElastic(data.axial_stiffness),
        reference=CurveReference(
            position=lambda s: capstan_path(data, s)[0], slope=lambda s: capstan_path(data, s)[1]
        ),
        supports=(Support(0.0, "pinned"),),
        gravity=no_gravity,
        stiffness_damping=data.stiffness_damping,
    )
    drum = TreeModel(
        bodies=(Body(0.0, data.drum_inertia),),
        joints=(Joint("revolute", actuator=TorqueRamp(data.radius, data.rate), name="drum"),),
        gravity=no_gravity,
    )
    slack_direction = capstan_path(data, data.length)[1][:, 0]
    model = Model(
        tree=drum,
        structures={"string": spec},
        contacts=(
            ContactPair(
                "drum",
                Circle(0, data.radius),
                "string",
                Unilateral(data.mu),
                side=-1,  # the drum lies on the inner side of the arc, opposite the normal
                search="grid",
                n_candidates=data.n_candidates,
            ),
        ),
        loads=(PointLoad("string", data.length, tuple(data.slack_tension * slack_direction)),),
        gravity=no_gravity,
    )
    string = assemble_string(spec)
    stretch = 1.0 + data.slack_tension / data.axial_stiffness
    q_full = np.empty(string.n_dofs)
    position, tangent = capstan_path(data, stretch * string.nodes)
    q_full[string.position_dofs] = position
    q_full[string.slope_dofs] = stretch * tangent
    system = assemble(model)
    q0, u0 = system.initial_state([0.0])
    q0[system.layout.structure("string")] = q_full[string.free_dofs]
    t_end = OVERSHOOT * ramp_time(data) if data.rate > 0.0 else 1.0
    settings = {"h": H, "theta": THETA}
    return Scenario("capstan", model, q0, u0, (0.0, t_end), "moreau", settings)


def turning_drum(data: CapstanData | None = None, speed: float = -2.0) -> Scenario:
    """The capstan with the drum turned at the constant angular speed
    ``speed`` (rad/s) by a drive (``Drive.constant_velocity``, its multiplier the driving
    torque) instead of the torque ramp; the string and its start are those of ``capstan``.

    With speed < 0 (clockwise) the drum slides under the string from the anchored end towards
    the slack end: the string slips on the whole arc from the first step, comes to rest, and
    the anchor holds T_slack e^{mu theta}; the drive supplies the friction torque
    -R T_slack (e^{mu theta} - 1) (``CapstanData.slip_torque``) against it. With speed > 0 the
    friction on the arc points the other way and the anchor holds T_slack e^{-mu theta}.
    Run: Moreau-Jean, theta = ``THETA``, h = ``H``, 0.15 s.
    """
    import dataclasses

    from ..multibody.drive import Drive
    from ..multibody.joints import Joint
    from ..multibody.tree import Body, TreeModel

    speed = check.real("turning_drum.speed", speed, unit="rad/s")
    if speed == 0.0:
        check.fail("turning_drum.speed", speed, "a nonzero angular speed in rad/s")
    data = CapstanData() if data is None else data
    start = capstan(data)
    model = start.model
    drum = TreeModel(
        bodies=(Body(0.0, data.drum_inertia),),
        joints=(Joint("revolute", name="drum"),),
        gravity=model.tree.gravity,
    )
    model = dataclasses.replace(model, tree=drum, drives=(Drive.constant_velocity(0, 0.0, speed),))
    u0 = np.array(start.u0, dtype=float)
    u0[0] = speed  # the drive's velocity at t = 0: the drum turns from the start
    settings = {"h": H, "theta": THETA}
    return Scenario("turning-drum", model, start.q0, u0, (0.0, 0.15), "moreau", settings)


def tight_tension(system, q) -> np.ndarray:
    """Tension at the pinned tight end s = 0 of the string "string" in the states ``q``
    (k, n_state) or (n_state,): the force the anchor holds, N, shape (k,)."""
    from ..elements.string import string_points_at

    structure = system.structures["string"]
    rows = np.atleast_2d(q)[:, system.layout.structure("string")]
    return np.array(
        [string_points_at(structure.string, structure.full(r), [0.0]).tension[0] for r in rows]
    )


def arc_tension(system, data: CapstanData, q, n_points: int = 400):
    """(phi, tension): the string's tension (N) at the material points on the drum's arc in the
    state ``q`` (n_state,), each with its angle phi (rad) from the slack side's end of the arc
    (``arc_angle``); the points are ``n_points`` equally spaced along the string, kept where
    0 < phi < theta and within 1 % of R of the drum's circle. Shapes (m,)."""
    from ..elements.string import string_points_at

    structure = system.structures["string"]
    full = structure.full(np.asarray(q)[system.layout.structure("string")])
    s = np.linspace(0.0, data.length, n_points)
    at = string_points_at(structure.string, full, s)
    phi = arc_angle(data, at.position)
    distance = np.hypot(at.position[0], at.position[1])
    on = (phi > 0.0) & (phi < data.wrap) & (np.abs(distance - data.radius) < 0.01 * data.radius)
    return phi[on], at.tension[on]


def creep(data: CapstanData, force: float, phi) -> np.ndarray:
    """Closed form of the creep before slip, m, at the angles phi (rad): with the pull
    ``force`` F < T_slack e^{mu theta} the string slips on the drum where
    phi > phi_s = theta - ln(F / T_slack) / mu (there T = T_slack e^{mu (phi - phi_s)}) and
    sticks where phi < phi_s (T = T_slack); integrating the strain (T - T_slack) / EA from
    phi_s, a material point at phi has moved relative to the drum's surface, towards the
    tight side, by R T_slack / EA ((e^{mu x} - 1) / mu - x), x = max(phi - phi_s, 0)."""
    edge = data.wrap - math.log(force / data.slack_tension) / data.mu
    x = np.maximum(np.asarray(phi, dtype=float) - edge, 0.0)
    scale = data.radius * data.slack_tension / data.axial_stiffness
    return scale * (np.expm1(data.mu * x) / data.mu - x)


def drum_relative_displacement(system, data: CapstanData, q_start, q):
    """(phi, u) of the candidates' material points: their angle phi (rad) in the state ``q``
    and their displacement u (m) along the drum from the state ``q_start`` relative to the
    drum's surface (the drum's angle is the tree coordinate 0), positive towards the tight
    side. Shapes (n_candidates,)."""
    from ..elements.string import string_points_at

    structure = system.structures["string"]
    sl = system.layout.structure("string")
    s = system.grids[0].s

    def angle(state):
        state = np.asarray(state)
        at = string_points_at(structure.string, structure.full(state[sl]), s)
        return arc_angle(data, at.position), state[0]

    phi, drum = angle(q)
    phi0, drum0 = angle(q_start)
    return phi, data.radius * ((phi - drum) - (phi0 - drum0))


def gross_slip(data: CapstanData, result, factor: float = 20.0) -> np.ndarray:
    """Rows of ``result`` in gross slip: from the first step at which the drum turns faster
    than ``factor`` times the quasi-static rate of the stuck drum, rate span / (EA R) rad/s
    (the tight span's stretch rate over R), on. Boolean, shape (n_rows,)."""
    creep = data.rate * data.span / (data.axial_stiffness * data.radius)
    fast = np.abs(np.asarray(result["drum_u"])) > factor * creep
    if not np.any(fast):
        return fast
    return np.arange(fast.size) >= int(np.argmax(fast))


__all__ = [
    "CapstanData",
    "TorqueRamp",
    "arc_angle",
    "arc_tension",
    "capstan",
    "creep",
    "discrete_slip_ratio",
    "drum_relative_displacement",
    "gross_slip",
    "capstan_path",
    "tight_tension",
    "turning_drum",
]
