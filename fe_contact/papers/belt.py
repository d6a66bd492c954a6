"""A belt drive: an elastic string over two pulleys of equal radius with Coulomb friction, the
driver turned at constant speed, the driven pulley loaded by a torque (Grashof-Reynolds creep).

Not from one of the seed papers; built like the capstan (``papers.capstan``) from the same
parts: a weightless absolute-nodal string (Eugster-Glocker (004) secs. 3-4, linear law
T = EA (nu - 1)), each pulley a ``Circle`` of a tree body on a revolute joint, contact on a
candidate grid per pulley (004, eqs. 20-25) under Moreau-Jean.

Geometry: the driver's centre at the origin, the driven pulley's at (d, 0), radius R each;
both turn counter-clockwise. The driver pulls the upper span (y = R, the *tight* span, tension
T1) onto itself and pays the belt out on the lower span (y = -R, the *slack* span, T2), which
runs to the driven pulley. The belt is open on the slack span: its two ends lie there and each
carries the constant load T2 along the span (dead loads: a weighted tensioner), so the slack
span's tension is set by the tensioner, not by the centre distance (the closed belt, its
ends joined, is ``closed_belt_drive`` below). The
material runs from the end s = 0 (on the lower span, upstream of the driven pulley) around the
driven pulley, along the upper span, around the driver and out along the lower span to s = L;
each end must stay on its straight piece for the run (``BeltData.feed``, ``BeltData.tail``).

Steady state (Grashof, Reynolds; Johnson, Contact Mechanics, sec. 8.6): the driven pulley's
balance gives T1 - T2 = M / R for the load torque M; the driver needs the torque (T1 - T2) R.
(In this model both also carry the drag of the string's stiffness damping on a belt running
round an arc, beta omega R times the arc's integral of T: 3 % and 4 % of them for the
defaults; ``BeltData._steady``.)
On each pulley the belt enters with the tension of the span it comes from and sticks on an
*adhesion arc*; before it leaves, the tension changes to that of the other span along a *creep
arc* of angle ln(T1 / T2) / mu (T = T_entry e^{-+mu phi}), where the belt slides and its strain
T / EA changes. It works while that angle is below the wrap (T1 / T2 <= e^{mu pi}, else gross
slip). The belt moves with each pulley's surface where it enters: the material flux
omega R / (1 + eps) is the same at both entries, so omega_driven / omega_driver =
(1 + eps_slack) / (1 + eps_tight) with eps = T / EA (the creep: a speed loss of about
(T1 - T2) / EA).

Every number is typed once, in ``BeltData``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import validation as check
from ..scenario import Scenario


def _check_drive(data, where: str, **positive) -> None:
    """Check the fields that ``BeltData`` and ``ClosedBeltData`` share, and the positive
    fields ``positive`` (name=unit) of one of them; errors name ``where.field``."""
    positive = dict(
        radius="m", axial_stiffness="N", line_density="kg/m", speed="rad/s",
        driver_inertia="kg m^2", driven_inertia="kg m^2", **positive,
    )  # fmt: skip
    for name, unit in positive.items():
        check.real(f"{where}.{name}", getattr(data, name), low=0.0, low_open=True, unit=unit)
    check.real(
        f"{where}.centre_distance", data.centre_distance, low=2.0 * data.radius,
        low_open=True, unit="m",
    )  # fmt: skip
    check.real(f"{where}.mu", data.mu, low=0.0, low_open=True, meaning="a friction coefficient")
    check.real(f"{where}.load_torque", data.load_torque, low=0.0, unit="N m")
    check.real(f"{where}.load_damping", data.load_damping, low=0.0, unit="N m s/rad")
    check.real(f"{where}.stiffness_damping", data.stiffness_damping, low=0.0, unit="s")
    check.positive_int(f"{where}.n_elements", data.n_elements)
    n = check.positive_int(f"{where}.n_candidates", data.n_candidates)
    if n < 2:
        check.fail(f"{where}.n_candidates", n, "an integer >= 2")


@dataclass(frozen=True)
class BeltData:
    """Data of the belt drive (SI).

    radius : pulley radius R, m. centre_distance : d, m (> 2 R).
    feed : length of the belt's straight piece ahead of the driven pulley at t = 0 (its end
        s = 0 there), m. tail : length of the piece after the driver at t = 0 (end s = L), m.
    axial_stiffness : EA, N. line_density : rho0 A, kg/m. mu : Coulomb coefficient.
    slack_tension : T2, the tensioner's load at each end, N. load_torque : M0 on the driven
        pulley, against its rotation, N m. load_damping : c of a viscous load c omega on the
        driven pulley, N m s/rad (a generator's or fan's load; it damps the pulley's torsional
        vibration on the belt spans). speed : the driver's angular speed, rad/s (> 0,
        counter-clockwise). driven_inertia, driver_inertia : polar moments, kg m^2.
    n_elements : string elements. n_candidates : candidates of each pulley's grid along the
        whole string. stiffness_damping : beta of the string's damping beta K_t(q) q', s.
    """

    radius: float = 0.05
    centre_distance: float = 0.5
    feed: float = 0.45
    tail: float = 0.05
    axial_stiffness: float = 100.0
    line_density: float = 0.01
    mu: float = 0.5
    slack_tension: float = 2.0
    load_torque: float = 0.08
    load_damping: float = 4e-3
    speed: float = 20.0
    driver_inertia: float = 1e-5
    driven_inertia: float = 1e-5
    n_elements: int = 30
    n_candidates: int = 88
    stiffness_damping: float = 5e-4

    def __post_init__(self):
        _check_drive(self, "BeltData", feed="m", tail="m", slack_tension="N")
        if self.feed > self.centre_distance - self.radius:
            check.fail(
                "BeltData.feed", self.feed,
                f"<= centre_distance - radius = {self.centre_distance - self.radius:g} m (the "
                "feed's end must stay clear of the driver)",
            )  # fmt: skip

    @property
    def length(self) -> float:
        """Unstretched length of the belt: feed, two half turns, the upper span, tail; m."""
        return self.feed + self.tail + self.centre_distance + 2.0 * math.pi * self.radius

    def arc_tension_integral(self, tight: float, pulley: int, slack: float | None = None) -> float:
        """Integral of the steady tension over a pulley's arc of contact, N rad, for the tight
        tension ``tight``: T_entry phi_a + (T1 - T2) / mu (constant on the adhesion arc phi_a,
        exponential on the creep arc), T_entry = T1 on the driver (0), T2 on the driven (1);
        T2 = ``slack``, default the tensioner's ``slack_tension``."""
        slack = self.slack_tension if slack is None else slack
        creep = math.log(tight / slack) / self.mu
        entry = tight if pulley == 0 else slack
        return entry * (math.pi - creep) + (tight - slack) / self.mu

    def _steady(self) -> tuple[float, float]:
        """(T1, omega_driven / omega_driver) of the steady state, by fixed-point iteration (a
        contraction by about (c omega + beta omega R / mu) / (R EA), 1e-3 for the defaults).

        The driven pulley's balance: (T1 - T2) R = M0 + c omega2 + D2, with D2 the drag of the
        string's stiffness damping beta K_t(q) q' on the belt running round the arc: its
        internal force T / R per unit length, pointing at the centre, turns at v / R as the
        material moves on at v = omega R, so the damping force is beta T v / R^2 per unit
        length against the motion, the torque beta omega R integral T dphi. A model of
        damping, not of belt physics: a belt of uniform strain running round a pulley is
        not deformed, but K_t q' is not zero for it.
        """
        ratio, tight = 1.0, self.slack_tension
        for _ in range(200):
            omega2 = self.speed * ratio
            drag = (
                self.stiffness_damping
                * omega2
                * self.radius
                * self.arc_tension_integral(max(tight, self.slack_tension), 1)
            )
            load = self.load_torque + self.load_damping * omega2 + drag
            new_tight = self.slack_tension + load / self.radius
            ea = self.axial_stiffness
            new_ratio = (1.0 + self.slack_tension / ea) / (1.0 + new_tight / ea)
            if abs(new_tight - tight) < 1e-14 * new_tight and abs(new_ratio - ratio) < 1e-15:
                return new_tight, new_ratio
            tight, ratio = new_tight, new_ratio
        return tight, ratio

    @property
    def tight_tension(self) -> float:
        """T1 = T2 + (M0 + c omega2 + D2) / R, N (the driven pulley's balance at constant
        speed, ``_steady``)."""
        return self._steady()[0]

    @property
    def speed_ratio(self) -> float:
        """omega_driven / omega_driver = (1 + T2 / EA) / (1 + T1 / EA) (the creep)."""
        return self._steady()[1]

    @property
    def driver_torque(self) -> float:
        """The driver's steady torque (T1 - T2) R + beta omega1 R integral T dphi over its arc
        (``_steady``), N m."""
        tight = self.tight_tension
        drag = self.stiffness_damping * self.speed * self.radius
        return (tight - self.slack_tension) * self.radius + drag * self.arc_tension_integral(
            tight, 0
        )

    @property
    def creep_angle(self) -> float:
        """Angle of the creep arc on each pulley, ln(T1 / T2) / mu, rad."""
        return math.log(self.tight_tension / self.slack_tension) / self.mu


def belt_path(data: BeltData, s) -> tuple[np.ndarray, np.ndarray]:
    """Positions and unit tangents, each (2, m), of the belt's path at the arc length s (m) from
    the end on the feed: the feed along +x at y = -R up to the driven pulley's bottom, its
    half turn counter-clockwise, the upper span along -x, the driver's half turn, the tail
    along +x at y = -R (beyond the path's end as well)."""
    s = np.atleast_1d(np.asarray(s, dtype=float))
    r, d, f = data.radius, data.centre_distance, data.feed
    half = math.pi * r
    marks = np.cumsum([f, half, d, half])  # ends of feed, driven arc, upper span, driver arc
    position = np.empty((2, s.size))
    tangent = np.empty((2, s.size))
    feed = s < marks[0]
    position[:, feed] = [d - f + s[feed], np.full(np.count_nonzero(feed), -r)]
    tangent[:, feed] = [[1.0], [0.0]]
    driven = (s >= marks[0]) & (s < marks[1])
    a = -0.5 * math.pi + (s[driven] - marks[0]) / r
    position[:, driven] = [d + r * np.cos(a), r * np.sin(a)]
    tangent[:, driven] = [-np.sin(a), np.cos(a)]
    upper = (s >= marks[1]) & (s < marks[2])
    position[:, upper] = [d - (s[upper] - marks[1]), np.full(np.count_nonzero(upper), r)]
    tangent[:, upper] = [[-1.0], [0.0]]
    driver = (s >= marks[2]) & (s < marks[3])
    a = 0.5 * math.pi + (s[driver] - marks[2]) / r
    position[:, driver] = [r * np.cos(a), r * np.sin(a)]
    tangent[:, driver] = [-np.sin(a), np.cos(a)]
    tail = s >= marks[3]
    position[:, tail] = [s[tail] - marks[3], np.full(np.count_nonzero(tail), -r)]
    tangent[:, tail] = [[1.0], [0.0]]
    return position, tangent


def _pulleys_model(data, spec, loads=()):
    """The belt drive's Model around the belt ``spec``: the two pulleys on revolute joints
    (the driver, coordinate 0, at the origin, turned at ``data.speed`` by a drive; the driven
    one at (d, 0) under its load torque and damping), each a ``Circle`` in contact with the
    belt on a candidate grid, no gravity; ``data`` a ``BeltData`` or ``ClosedBeltData``."""
    from ..laws import Unilateral
    from ..model import ContactPair, Model
    from ..multibody.drive import Drive
    from ..multibody.joints import Joint
    from ..multibody.tree import Body, TreeModel
    from ..sides import Circle

    no_gravity = (0.0, 0.0)
    pulleys = TreeModel(
        bodies=(Body(0.0, data.driver_inertia), Body(0.0, data.driven_inertia)),
        joints=(
            Joint("revolute", name="driver"),
            Joint(
                "revolute",
                location=(data.centre_distance, 0.0),
                damping=data.load_damping,
                actuator=-data.load_torque,
                name="driven",
            ),
        ),
        gravity=no_gravity,
    )
    grid = {"side": 1, "search": "grid", "n_candidates": data.n_candidates}
    law = Unilateral(data.mu)
    return Model(
        tree=pulleys,
        structures={"belt": spec},
        contacts=(
            ContactPair("driver", Circle(0, data.radius), "belt", law, **grid),
            ContactPair("driven", Circle(1, data.radius), "belt", law, **grid),
        ),
        drives=(Drive.constant_velocity(0, 0.0, data.speed),),
        loads=tuple(loads),
        gravity=no_gravity,
    )


def belt_drive(data: BeltData | None = None):
    """The belt drive (module docstring) as a Scenario; default ``BeltData()``.

    The stress-free reference is the path itself (``belt_path``); at t = 0 the belt lies on the same
    path stretched uniformly to nu0 = 1 + T2 / EA (tension T2 everywhere), at rest; the driver
    turns at ``speed`` from the start (a drive, coordinate 0, its multiplier the driving
    torque), the driven pulley (coordinate 1) is at rest under its load torque. Run:
    Moreau-Jean (theta = 0.55, damping the belt's unresolved axial modes), h = 1e-3 s, 0.4 s.
    """
    from ..elements.string import (
        CurveReference,
        LinearElastic,
        StringSpec,
        assemble_string,
    )
    from ..model import PointLoad
    from ..system import assemble

    data = BeltData() if data is None else data
    no_gravity = (0.0, 0.0)
    spec = StringSpec(
        length=data.length,
        n_elements=data.n_elements,
        density=data.line_density,
        law=LinearElastic(data.axial_stiffness),
        reference=CurveReference(
            position=lambda s: belt_path(data, s)[0], slope=lambda s: belt_path(data, s)[1]
        ),
        gravity=no_gravity,
        stiffness_damping=data.stiffness_damping,
    )
    loads = (
        PointLoad("belt", 0.0, (-data.slack_tension, 0.0)),
        PointLoad("belt", data.length, (data.slack_tension, 0.0)),
    )
    model = _pulleys_model(data, spec, loads)
    string = assemble_string(spec)
    stretch = 1.0 + data.slack_tension / data.axial_stiffness
    q_full = np.empty(string.n_dofs)
    position, tangent = belt_path(data, stretch * string.nodes)
    q_full[string.position_dofs] = position
    q_full[string.slope_dofs] = stretch * tangent
    system = assemble(model)
    q0, u0 = system.initial_state([0.0, 0.0])
    q0[system.layout.structure("belt")] = q_full[string.free_dofs]
    u0 = np.array(u0, dtype=float)
    u0[0] = data.speed
    settings = {"h": 1e-3, "theta": 0.55}
    return Scenario("belt-drive", model, q0, u0, (0.0, 0.4), "moreau", settings)


def span_tension(system, data: BeltData, q, upper: bool = True, n_points: int = 1000) -> float:
    """Mean tension (N) of the belt's material points in the middle three fifths of the upper
    (tight) or lower (slack) span in the state ``q`` (n_state,): those within 0.2 d to 0.8 d of
    the driver's centre along x and within 0.1 R of the span's line y = +-R."""
    from ..elements.string import string_points_at

    structure = system.structures["belt"]
    full = structure.full(np.asarray(q)[system.layout.structure("belt")])
    at = string_points_at(structure.string, full, np.linspace(0.0, data.length, n_points))
    x, y = at.position
    d, r = data.centre_distance, data.radius
    line = r if upper else -r
    on = (np.abs(y - line) < 0.1 * r) & (x > 0.2 * d) & (x < 0.8 * d)
    if not np.any(on):
        raise ValueError("span_tension: no material point of the belt lies on the span")
    return float(np.mean(at.tension[on]))


def arc_from_entry(data: BeltData, pulley: int, position: np.ndarray) -> np.ndarray:
    """Angle (rad) along the belt's motion from where it enters pulley ``pulley`` (0: the
    driver, entered at its top from the upper span; 1: the driven pulley, entered at its
    bottom from the lower span) to the polar angle of the points ``position`` (2, m) about the
    pulley's centre, in [0, 2 pi): the arc of contact is [0, pi]."""
    centre = (0.0, 0.0) if pulley == 0 else (data.centre_distance, 0.0)
    entry = 0.5 * math.pi if pulley == 0 else -0.5 * math.pi
    polar = np.arctan2(position[1] - centre[1], position[0] - centre[0])
    return np.mod(polar - entry, 2.0 * math.pi)


def steady_summary(system, data, result, start: float = 0.2) -> dict:
    """Means over the rows from ``start`` (s) of a run of ``belt_drive`` (``data`` a BeltData)
    or ``closed_belt_drive`` (a ClosedBeltData): "tight", "slack" (span tensions,
    N), "torque" (the driver's, N m), "ratio" (driven over driver angle turned), and per
    pulley p (0 driver, 1 driven) "adhesion_slip_p" (mean |slip| of the closed candidates on
    the adhesion arc, one candidate spacing from its edge, over omega R) and "creep_slip_p",
    "creep_closed_p" (mean slip speed on the creep arc, the same margin, and the closed form
    omega R (T_entry - T(phi)) / (EA + T_entry) at the same points, m/s)."""
    rows = np.flatnonzero(result.t >= start - 1e-12)
    driver = np.asarray(result["driver_q"])
    driven = np.asarray(result["driven_q"])
    k0, k1 = rows[0], rows[-1]
    got = {
        "tight": float(np.mean([span_tension(system, data, result.q[k]) for k in rows])),
        "slack": float(
            np.mean([span_tension(system, data, result.q[k], upper=False) for k in rows])
        ),
        "torque": float(np.mean(np.asarray(result["drive_0_force"])[rows])),
        "ratio": float((driven[k1] - driven[k0]) / (driver[k1] - driver[k0])),
    }
    speed = data.speed * data.radius
    edge = math.pi - data.creep_angle
    intervals = data.n_candidates if isinstance(data, ClosedBeltData) else data.n_candidates - 1
    spacing = data.length / intervals / data.radius
    for pulley in (0, 1):
        entry = data.tight_tension if pulley == 0 else data.slack_tension
        sign = -1.0 if pulley == 0 else 1.0  # the tension falls on the driver, rises on the driven
        adhesion, creep, closed = [], [], []
        for k in rows:
            contact = result.reports[k].contacts[pulley]
            phi = arc_from_entry(data, pulley, np.asarray(contact.point).T)
            slip = np.asarray(contact.slip_velocity)
            pressed = np.asarray(contact.normal_force) > 0.0
            adhesion.append(slip[pressed & (phi < edge - spacing)])
            on_creep = pressed & (phi > edge + spacing) & (phi < math.pi)
            creep.append(slip[on_creep])
            tension = entry * np.exp(sign * data.mu * (phi[on_creep] - edge))
            closed.append(speed * (entry - tension) / (data.axial_stiffness + entry))
        got[f"adhesion_slip_{pulley}"] = float(np.mean(np.abs(np.concatenate(adhesion)))) / speed
        got[f"creep_slip_{pulley}"] = float(np.mean(np.concatenate(creep)))
        got[f"creep_closed_{pulley}"] = float(np.mean(np.concatenate(closed)))
    return got


# --------------------------------------------------------------------------------------------
# The closed belt: the string's ends joined (``StringSpec(closed=True)``)
# --------------------------------------------------------------------------------------------


def _creep_length(a: float, k: float, angle: float) -> float:
    """integral_0^angle dphi / (1 + a e^{k phi}) = angle - ln((1 + a e^{k angle}) / (1 + a)) / k:
    the reference length per unit radius of a creep arc whose strain is a e^{k phi}."""
    return angle - math.log((1.0 + a * math.exp(k * angle)) / (1.0 + a)) / k


@dataclass(frozen=True)
class ClosedBeltData:
    """Data of the closed belt drive (SI): ``BeltData``'s pulleys, belt, drive, load and grid,
    the belt's two ends joined; no tensioner: the pre-tension comes from the centre distance.

    pre_tension : T0, the tension of the belt at rest on the pulleys, N: its unstretched length
        is L0 = L_path / (1 + T0 / EA), L_path = 2 d + 2 pi R the path's length.
    n_candidates : candidates of each pulley's grid along the whole belt (none twice: the grid
        of a closed string leaves out s = L0, which is s = 0).
    The other fields are ``BeltData``'s.
    """

    radius: float = 0.05
    centre_distance: float = 0.5
    axial_stiffness: float = 100.0
    line_density: float = 0.01
    mu: float = 0.5
    pre_tension: float = 3.6
    load_torque: float = 0.08
    load_damping: float = 4e-3
    speed: float = 20.0
    driver_inertia: float = 1e-5
    driven_inertia: float = 1e-5
    n_elements: int = 30
    n_candidates: int = 88
    stiffness_damping: float = 5e-4

    def __post_init__(self):
        _check_drive(self, "ClosedBeltData", pre_tension="N")

    @property
    def feed(self) -> float:
        """Where the material coordinate starts on the path (``belt_path``): the middle of the
        lower span, d / 2 ahead of the driven pulley, m."""
        return 0.5 * self.centre_distance

    @property
    def path_length(self) -> float:
        """L_path = 2 d + 2 pi R, m."""
        return 2.0 * self.centre_distance + 2.0 * math.pi * self.radius

    @property
    def length(self) -> float:
        """The belt's unstretched length L0 = L_path / (1 + T0 / EA), m."""
        return self.path_length / (1.0 + self.pre_tension / self.axial_stiffness)

    def stretched_length(self, tight: float, slack: float) -> float:
        """The unstretched length (m) of the belt lying on the path in the steady state with
        the span tensions T1 = ``tight`` and T2 = ``slack``: integral of ds / (1 + T / EA)
        along the path, T = T1 on the upper span and the driver's adhesion arc (pi - c), then
        T1 e^{-mu phi} on its creep arc c = ln(T1 / T2) / mu; T2 on the lower span and the
        driven pulley's adhesion arc, T2 e^{mu phi} on its creep arc."""
        ea, r, d = self.axial_stiffness, self.radius, self.centre_distance
        creep = math.log(tight / slack) / self.mu
        a1, a2 = tight / ea, slack / ea
        spans = d / (1.0 + a1) + d / (1.0 + a2)
        adhesion = r * (math.pi - creep) * (1.0 / (1.0 + a1) + 1.0 / (1.0 + a2))
        if creep == 0.0:
            return spans + adhesion
        arcs = r * (_creep_length(a1, -self.mu, creep) + _creep_length(a2, self.mu, creep))
        return spans + adhesion + arcs

    def _slack_for(self, difference: float) -> float:
        """T2 such that the belt with T1 = T2 + ``difference`` has the length L0 (brentq)."""
        from scipy.optimize import brentq

        def excess(slack):
            return self.stretched_length(slack + difference, slack) - self.length

        high = self.pre_tension + self.axial_stiffness  # the length falls with T2
        return brentq(excess, 1e-12 * self.pre_tension, high, xtol=1e-15, rtol=1e-15)

    def _steady(self) -> tuple[float, float, float]:
        """(T1, T2, omega_driven / omega_driver) of the steady state: the driven pulley's
        balance (T1 - T2) R = M0 + c omega2 + D2 (``BeltData._steady``: D2 the drag of the
        string's stiffness damping on the arc), the belt's length (``stretched_length`` = L0)
        and the creep (1 + T2 / EA) / (1 + T1 / EA), by fixed-point iteration."""
        helper = BeltData(radius=self.radius, mu=self.mu, slack_tension=1.0)
        ratio, tight, slack = 1.0, self.pre_tension, self.pre_tension
        for _ in range(200):
            omega2 = self.speed * ratio
            integral = helper.arc_tension_integral(max(tight, slack), 1, slack)
            drag = self.stiffness_damping * omega2 * self.radius * integral
            load = self.load_torque + self.load_damping * omega2 + drag
            new_slack = self._slack_for(load / self.radius)
            new_tight = new_slack + load / self.radius
            ea = self.axial_stiffness
            new_ratio = (1.0 + new_slack / ea) / (1.0 + new_tight / ea)
            done = abs(new_tight - tight) < 1e-14 * new_tight and abs(new_ratio - ratio) < 1e-15
            tight, slack, ratio = new_tight, new_slack, new_ratio
            if done:
                break
        return tight, slack, ratio

    @property
    def tight_tension(self) -> float:
        """T1 of the steady state, N (``_steady``)."""
        return self._steady()[0]

    @property
    def slack_tension(self) -> float:
        """T2 of the steady state, N (``_steady``)."""
        return self._steady()[1]

    @property
    def speed_ratio(self) -> float:
        """omega_driven / omega_driver = (1 + T2 / EA) / (1 + T1 / EA) (the creep)."""
        return self._steady()[2]

    @property
    def driver_torque(self) -> float:
        """The driver's steady torque (T1 - T2) R + beta omega1 R integral T dphi over its
        arc, N m."""
        tight, slack, _ = self._steady()
        helper = BeltData(radius=self.radius, mu=self.mu, slack_tension=1.0)
        drag = self.stiffness_damping * self.speed * self.radius
        return (tight - slack) * self.radius + drag * helper.arc_tension_integral(tight, 0, slack)

    @property
    def creep_angle(self) -> float:
        """Angle of the creep arc on each pulley, ln(T1 / T2) / mu, rad."""
        tight, slack, _ = self._steady()
        return math.log(tight / slack) / self.mu

    @property
    def slip_torque(self) -> float:
        """The torque R (T1 - T2) at which gross slip begins, N m: the creep arc covers the
        wrap, T1 / T2 = e^{mu pi}, with the belt's length L0 (``stretched_length``)."""
        from scipy.optimize import brentq

        grip = math.exp(self.mu * math.pi)

        def excess(slack):
            return self.stretched_length(grip * slack, slack) - self.length

        slack = brentq(excess, 1e-12 * self.pre_tension, self.pre_tension, xtol=1e-15,
                       rtol=1e-15)  # fmt: skip
        return (grip - 1.0) * slack * self.radius


def closed_belt_drive(data: ClosedBeltData | None = None) -> Scenario:
    """The closed belt drive as a Scenario; default ``ClosedBeltData()``.

    The belt is a closed string (``StringSpec(closed=True)``) of unstretched length
    L0 = L_path / (1 + T0 / EA); its stress-free reference is a circle of length L0 (smooth:
    the interpolated reference's length is L0 to the fourth order of the Hermite cubics,
    whatever the nodes' places on the path), and at t = 0 its nodes lie on the path
    (``belt_path``, from the middle of the lower span) at the material spacing times
    L_path / L0, their slopes the path's tangent times L_path / L0: stretched uniformly to
    tension T0 (between the nodes to the interpolation of the path's four curvature jumps),
    at rest. The
    driver (coordinate 0) turns at ``speed`` from the start (a drive, its multiplier the
    driving torque), the driven pulley (coordinate 1) is at rest under its load. Run:
    Moreau-Jean (theta = 0.55), h = 1e-3 s, 0.4 s, as ``belt_drive``.
    """
    from ..elements.string import CurveReference, LinearElastic, StringSpec
    from ..system import assemble

    data = ClosedBeltData() if data is None else data
    scale = data.path_length / data.length  # the stretch at rest, 1 + T0 / EA
    radius = data.length / (2.0 * math.pi)  # the stress-free belt: a circle of length L0

    def position(s):
        return radius * np.array([np.cos(s / radius), np.sin(s / radius)])

    def slope(s):
        return np.array([-np.sin(s / radius), np.cos(s / radius)])

    no_gravity = (0.0, 0.0)
    spec = StringSpec(
        length=data.length,
        n_elements=data.n_elements,
        density=data.line_density,
        law=LinearElastic(data.axial_stiffness),
        reference=CurveReference(position=position, slope=slope),
        gravity=no_gravity,
        stiffness_damping=data.stiffness_damping,
        closed=True,
    )
    model = _pulleys_model(data, spec)
    system = assemble(model)
    q0, u0 = system.initial_state([0.0, 0.0])
    string = system.structures["belt"].string
    q_full = np.empty(string.n_dofs)
    position, tangent = belt_path(data, np.mod(scale * string.nodes, data.path_length))
    q_full[string.position_dofs] = position
    q_full[string.slope_dofs] = scale * tangent
    q0[system.layout.structure("belt")] = q_full[string.free_dofs]
    u0 = np.array(u0, dtype=float)
    u0[0] = data.speed
    settings = {"h": 1e-3, "theta": 0.55}
    return Scenario("closed-belt-drive", model, q0, u0, (0.0, 0.4), "moreau", settings)


__all__ = [
    "BeltData",
    "ClosedBeltData",
    "arc_from_entry",
    "belt_drive",
    "closed_belt_drive",
    "belt_path",
    "span_tension",
    "steady_summary",
]
