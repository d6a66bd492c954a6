"""The friction oscillator: a block on a spring pressed by its weight on a belt that moves at a
constant speed, with Coulomb friction mu_s > mu_k (the classic stick-slip example; cf.
001 sec. 10.3.2 for the laws).

Model: the block (mass ``mass``) on a prismatic x joint with a spring ``stiffness`` to the wall
(rest at x = 0) and a prismatic y joint; the belt a rigid body on a prismatic x joint driven at
``belt_speed``, its top surface a flat profile (``Line(..., body=belt)``) at y = 0; the contact
``block`` with ``Sliding(mu_k, mu_s)``; gravity ``gravity`` presses the block on the belt, so the
normal force is its weight N = m g. Start (our choice): the block at x = 0 stuck to the belt
(moving with it), so that the limit cycle starts at once.

Closed form of the limit cycle (``limit_cycle``): the block sticks, x' = V, until the spring
force reaches mu_s N at x_b = mu_s N / k; then it slips, m x'' = -k x + mu_k N (the belt drags
it forward), a harmonic motion about x_c = mu_k N / k with omega = sqrt(k / m) and amplitude
A = sqrt((x_b - x_c)^2 + (V / omega)^2), until its velocity is V again at x_s = 2 x_c - x_b,
where the static friction k x_s holds it (|2 mu_k - mu_s| <= mu_s) and it sticks again. Slip
time (pi - 2 phi) / omega with tan(phi) = -V / (omega (x_b - x_c)); stick time
2 (x_b - x_c) / V; x_max, x_min = x_c +- A.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validation as check
from ..laws import Sliding
from ..model import ContactPair, Model
from ..multibody.drive import Drive
from ..multibody.joints import Joint
from ..multibody.tree import Body, TreeModel
from ..scenario import Scenario
from ..sides import Line, Point

CONTACT = "block"
BLOCK, BELT = 1, 2  # body indices (body 0 is the block's massless x carriage)


@dataclass(frozen=True, kw_only=True)
class Oscillator:
    """Every number of the example (SI). mass : kg. stiffness : N/m. belt_speed : m/s (> 0,
    along +x). mu_s, mu_k : static and kinetic coefficients (mu_s >= mu_k). gravity : m/s^2."""

    mass: float = 1.0
    stiffness: float = 100.0
    belt_speed: float = 0.1
    mu_s: float = 0.4
    mu_k: float = 0.3
    gravity: float = 9.81

    def __post_init__(self):
        for name in ("mass", "stiffness", "belt_speed", "gravity"):
            value = check.real(f"Oscillator.{name}", getattr(self, name), low=0.0, low_open=True)
            object.__setattr__(self, name, value)
        mu_k = check.real("Oscillator.mu_k", self.mu_k, low=0.0, meaning="a friction coefficient")
        mu_s = check.real(
            "Oscillator.mu_s", self.mu_s, low=mu_k, meaning="a static coefficient, at least mu_k"
        )
        object.__setattr__(self, "mu_k", mu_k)
        object.__setattr__(self, "mu_s", mu_s)


def friction_oscillator(data: Oscillator | None = None) -> Scenario:
    """The oscillator as a Scenario: q = (x, y of the block, belt position); the block stuck on
    the belt at x = 0, both moving at the belt speed. Run: generalised-alpha, h = 1e-3 s, 5 s."""
    data = Oscillator() if data is None else data
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(data.mass, 0.0), Body(1.0, 0.0)),
        joints=(
            Joint("prismatic", stiffness=data.stiffness),
            Joint("prismatic", parent=0, angle=np.pi / 2),
            Joint("prismatic"),
        ),
        gravity=(0.0, -data.gravity),
    )
    belt_top = Line((0.0, 0.0), (0.0, 1.0), body=BELT)
    model = Model(
        tree=tree,
        contacts=(ContactPair(CONTACT, Point(BLOCK), belt_top, Sliding(data.mu_k, data.mu_s)),),
        drives=(Drive.constant_velocity(BELT, 0.0, data.belt_speed),),
        gravity=(0.0, -data.gravity),
    )
    q0 = np.zeros(3)
    u0 = np.array([data.belt_speed, 0.0, data.belt_speed])
    return Scenario(
        "friction-oscillator", model, q0, u0, (0.0, 5.0), "generalized-alpha", {"h": 1e-3}
    )


@dataclass(frozen=True)
class LimitCycle:
    """The closed-form stick-slip cycle (module docstring), SI: stick and slip durations,
    period, the positions where it breaks loose (x_break), sticks (x_stick), and x_max, x_min."""

    stick: float
    slip: float
    period: float
    x_break: float
    x_stick: float
    x_max: float
    x_min: float
    omega: float
    centre: float
    amplitude: float
    phase: float


def limit_cycle(data: Oscillator | None = None) -> LimitCycle:
    data = Oscillator() if data is None else data
    normal = data.mass * data.gravity
    omega = np.sqrt(data.stiffness / data.mass)
    x_b = data.mu_s * normal / data.stiffness
    x_c = data.mu_k * normal / data.stiffness
    v = data.belt_speed
    amplitude = float(np.hypot(x_b - x_c, v / omega))
    phase = float(np.arctan2(-v / omega, x_b - x_c))
    slip = (np.pi - 2.0 * phase) / omega
    stick = 2.0 * (x_b - x_c) / v
    return LimitCycle(
        stick=float(stick),
        slip=float(slip),
        period=float(stick + slip),
        x_break=float(x_b),
        x_stick=float(2 * x_c - x_b),
        x_max=x_c + amplitude,
        x_min=x_c - amplitude,
        omega=float(omega),
        centre=float(x_c),
        amplitude=amplitude,
        phase=phase,
    )


def closed_form_position(data: Oscillator, t) -> np.ndarray:
    """x(t) of the cycle from the start of ``friction_oscillator`` (stuck at x = 0)."""
    cycle = limit_cycle(data)
    t = np.asarray(t, dtype=float)
    t_first = cycle.x_break / data.belt_speed  # the first stick, from x = 0
    x = np.empty_like(t)
    early = t < t_first
    x[early] = data.belt_speed * t[early]
    tau = np.mod(t[~early] - t_first, cycle.period)
    slipping = tau < cycle.slip
    late = x[~early]
    late[slipping] = cycle.centre + cycle.amplitude * np.cos(
        cycle.omega * tau[slipping] + cycle.phase
    )
    late[~slipping] = cycle.x_stick + data.belt_speed * (tau[~slipping] - cycle.slip)
    x[~early] = late
    return x


__all__ = [
    "CONTACT",
    "LimitCycle",
    "Oscillator",
    "closed_form_position",
    "friction_oscillator",
    "limit_cycle",
]
