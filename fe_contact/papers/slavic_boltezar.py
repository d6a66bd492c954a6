"""The pin on the rotating wheel of Slavic-Boltezar (003), sec. 4: every number of the example,
the smooth one-point apparent friction coefficient (003 eq. (32)) and the model builder.

Model (003 sec. 4.1, eqs. (21)-(30)): q = (r, phi). The pin (length, width and depth ``a``,
density ``density``) hangs from a pivot at (s, v + r) that slides vertically on a spring k_r with
damper c_r and the pre-stress p (force -k_r (r + p)); the pin turns about the pivot by phi with
k_phi, c_phi; its centre of mass is at (s + a/2 sin phi, v - a/2 cos phi + r) (003 eq. (22)).
It is a ``TreeModel``: a massless carriage on a prismatic joint along y at (s, v) and the pin on
a revolute joint, so M and h are those of 003 eqs. (29)-(30) (with p k_r where 003 eq. (30)
prints p k_phi, which would be a force of 7e-7 N: a misprint). The wheel of radius R turns at
f = 4 Hz about the origin (003 eq. (22): alpha = 2 pi f t).

``pin_model`` builds the ``Model``: the tree, and one ``ContactPair`` "pin" of the face (a
``Polyline`` on the pin) against the rim of a ``Wheel`` with ``Unilateral(mu, eps_N, eps_T,
"poisson", nu)``; ``simulate_pin`` runs it with ``simulate(..., method="event-driven")`` and
sums the result up as a ``PinRun``; ``run_in`` is the wear loop.

Our choices where 003 is silent or ambiguous (the README discusses their weight):

* the wheel turns clockwise (its top moves along +x) so that friction on the pin is +t of 003
  eq. (31) and eq. (32) holds as printed;
* the pin's face is the arc of the circle about the wheel's centre through the pin's tip
  (s, v - a) (a run-in face, radius sqrt(s^2 + (v - a)^2)), over the pin's width a, with
  ``n_pin`` vertices (003: 100, i.e. about 10 um apart); the wheel's rim is generated with the
  same spacing over the arc that passes under the pin during ``t_end`` (plus margins);
* roughness heights lie in [-Rz, 0] (``fe_contact.rough``), so the initial clearance at s = 0
  is v - a - R = 1.16 um, and the pin starts at rest at r = phi = 0 (003's "starting positions");
* the pin's moment of inertia about its centre is m a^2 / 6 (a cube of side a); 003 quotes
  f_r,0 = 210 kHz and f_phi,0 = 103 kHz, which these numbers do not give (71 kHz and, without
  damping, 54 kHz; c_phi makes phi overdamped, damping ratio 45, in 003's numbers as in ours);
* gravity is left out (as in 003 eq. (30)); the pin's weight is 1.6e-5 N against 3.1 N preload.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .. import validation as check
from ..columns import WORK_KEYS
from ..laws import Unilateral
from ..model import ContactPair, Model
from ..multibody.joints import Joint
from ..multibody.tree import Body, TreeModel
from ..rough import Polyline, RoughProfile, Wheel, reshape, rough_arc
from ..scenario import Scenario
from ..steppers.rough_batch import RoughBatch

__all__ = [
    "CONTACT",
    "H",
    "PIN",
    "PinOnWheel",
    "PinRun",
    "pin_face",
    "pin_model",
    "pin_on_wheel",
    "pin_tree",
    "run_in",
    "simulate_pin",
    "smooth_apparent_cof",
    "wheel_rim",
]

PIN = 1  # body index of the pin (body 0 is its massless carriage)
CONTACT = "pin"  # the name of the face-rim contact pair (its history columns: pin_...)
TIP_SPAN = 0.4  # rad, the arc of a rounded tip (its contact stays within +-0.1 rad)


@dataclass(frozen=True, kw_only=True)
class PinOnWheel:
    """Every number of 003 sec. 4.1 (SI; angles in rad).

    a : pin length = width = depth, m. s : misalignment of the pivot, m. v : height of the
    pivot above the wheel's centre, m. c_phi : N m s/rad. c_r : N s/m. p : pre-stress of the r
    spring at r = 0, m. f : the wheel's rotation frequency, Hz. k_phi : N m/rad. k_r : N/m.
    density : kg/m^3. R : wheel radius, m. mu, eps_N, eps_T, nu : contact parameters.
    rz_pin, rz_wheel : roughness Rz, m. n_pin : vertices on the pin's face. max_slope_change :
    rad (15 deg). u_max : re-shaping amplitude, m (003 eq. (17)). penetration : largest
    penetration, m. t_end : simulated time, s. seed_pin, seed_wheel : roughness seeds.
    tip_radius : m; 0 (default) gives the run-in face of the module docstring, > 0 a convex
    rounded tip of that radius (<= a/2) touching the wheel at one point: the one-point model of
    003 fig. 8. wheel_spacing : m between the rim's vertices; 0 (default) takes the face's.
    """

    a: float = 0.001
    s: float = 0.0
    v: float = 0.01200116
    c_phi: float = 2.12e-5
    c_r: float = 4.32e-2
    p: float = 9.40e-6
    f: float = 4.0
    k_phi: float = 0.0791
    k_r: float = 329.9e3
    density: float = 1650.0
    R: float = 0.011
    mu: float = 0.125
    eps_N: float = 0.5
    eps_T: float = 0.5
    nu: float = 0.0
    rz_pin: float = 1.25e-6
    rz_wheel: float = 2.5e-6
    n_pin: int = 100
    max_slope_change: float = float(np.radians(15.0))
    u_max: float = 0.15e-6
    penetration: float = 2.5e-8
    t_end: float = 1e-3
    seed_pin: int = 1
    seed_wheel: int = 2
    tip_radius: float = 0.0
    wheel_spacing: float = 0.0

    def __post_init__(self):
        positive = ("a", "v", "f", "k_phi", "k_r", "density", "R", "penetration", "t_end")
        for name in positive:
            value = check.real(f"PinOnWheel.{name}", getattr(self, name), low=0.0, low_open=True)
            object.__setattr__(self, name, value)
        names = ("c_phi", "c_r", "p", "mu", "rz_pin", "rz_wheel", "u_max", "wheel_spacing")
        for name in names:
            value = check.real(f"PinOnWheel.{name}", getattr(self, name), low=0.0)
            object.__setattr__(self, name, value)
        s = check.real("PinOnWheel.s", self.s, low=self.a - self.R, high=self.R - self.a, unit="m")
        object.__setattr__(self, "s", s)
        for name in ("eps_N", "nu"):
            value = check.real(f"PinOnWheel.{name}", getattr(self, name), low=0.0, high=1.0)
            object.__setattr__(self, name, value)
        eps_t = check.real(
            "PinOnWheel.eps_T", self.eps_T, low=0.0, high=self.eps_N, meaning="a number <= eps_N"
        )
        object.__setattr__(self, "eps_T", eps_t)
        for name in ("n_pin", "seed_pin", "seed_wheel"):
            value = getattr(self, name)
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # from --set NAME=VALUE
            low = 3 if name == "n_pin" else 0
            object.__setattr__(self, name, check.integer(f"PinOnWheel.{name}", value, low=low))
        slope = check.real(
            "PinOnWheel.max_slope_change",
            self.max_slope_change,
            low=0.0,
            high=np.pi / 2,
            low_open=True,
            high_open=True,
            unit="rad",
        )
        object.__setattr__(self, "max_slope_change", slope)
        tip = check.real("PinOnWheel.tip_radius", self.tip_radius, low=0.0, high=self.a / 2)
        object.__setattr__(self, "tip_radius", tip)
        if self.v - self.a <= self.R:
            check.fail("PinOnWheel.v", self.v, f"a height > a + R = {self.a + self.R:g} m")

    @property
    def mass(self) -> float:
        """The pin's mass rho a^3 in kg."""
        return self.density * self.a**3

    @property
    def inertia(self) -> float:
        """The pin's moment of inertia about its centre, m a^2 / 6 (a cube), in kg m^2."""
        return self.mass * self.a**2 / 6.0

    @property
    def omega(self) -> float:
        """The wheel's angular velocity, rad/s: -2 pi f (clockwise, module docstring)."""
        return -2.0 * np.pi * self.f

    @property
    def face_radius(self) -> float:
        """Radius of the pin's face about the wheel's centre, m."""
        return float(np.hypot(self.s, self.v - self.a))


def smooth_apparent_cof(s, R: float, mu: float):
    """mu_xy = F_x / F_y = cot(phi - phi_mu) with cos phi = s / R, tan phi_mu = mu: the smooth
    one-point model of 003 eqs. (31)-(32). ``s`` in m (scalar or array), |s| < R."""
    s = np.asarray(s, dtype=float)
    R = check.real("smooth_apparent_cof.R", R, low=0.0, low_open=True, unit="m")
    mu = check.real("smooth_apparent_cof.mu", mu, low=0.0)
    if np.any(np.abs(s) >= R) or not np.all(np.isfinite(s)):
        check.fail("smooth_apparent_cof.s", s.tolist(), f"values with |s| < R = {R:g} m")
    phi = np.arccos(s / R)
    return 1.0 / np.tan(phi - np.arctan(mu))


def pin_tree(data: PinOnWheel) -> TreeModel:
    """The pin of 003 sec. 4.1 as a tree: q = (r, phi) (module docstring)."""
    return TreeModel(
        bodies=(
            Body(0.0, 0.0),
            Body(data.mass, data.inertia, centre_of_mass=(0.0, -data.a / 2)),
        ),
        joints=(
            Joint(
                "prismatic",
                location=(data.s, data.v),
                angle=np.pi / 2,
                stiffness=data.k_r,
                damping=data.c_r,
                rest=-data.p,
            ),
            Joint(
                "revolute",
                parent=0,
                angle=-np.pi / 2,
                stiffness=data.k_phi,
                damping=data.c_phi,
            ),
        ),
        gravity=(0.0, 0.0),
    )


def pin_face(data: PinOnWheel) -> RoughProfile:
    """The pin's rough face in the pin's frame (origin at the pivot), clockwise about the
    wheel's centre from x = s - a/2 to s + a/2 (module docstring); with ``tip_radius`` > 0 the
    arc of TIP_SPAN rad at the bottom of a circle of that radius touching (0, -a),
    counter-clockwise about its centre (the same direction about the wheel's). A polygon's
    facet normals are off the circle's by up to half the angle between vertices: take n_pin so
    that TIP_SPAN / n_pin is small (the tests use 401 vertices: 5e-4 rad)."""
    rough = {
        "rz": data.rz_pin,
        "max_slope_change": data.max_slope_change,
        "seed": data.seed_pin,
    }
    if data.tip_radius > 0.0:
        centre = (0.0, -data.a + data.tip_radius)
        half = TIP_SPAN / 2
        return rough_arc(
            centre, data.tip_radius, -np.pi / 2 - half, -np.pi / 2 + half, data.n_pin, **rough
        )
    rho = data.face_radius
    start = np.arccos((data.s - data.a / 2) / rho)
    end = np.arccos((data.s + data.a / 2) / rho)
    centre = (-data.s, -data.v)  # the wheel's centre in the pin's frame at r = phi = 0
    return rough_arc(centre, rho, start, end, data.n_pin, **rough)


def wheel_rim(data: PinOnWheel) -> RoughProfile:
    """The wheel's rough rim in the wheel's frame over the arc that passes under the pin in
    ``t_end``, with the pin's vertex spacing and 5 spacings of margin on each side."""
    rho = data.face_radius
    right = np.arccos((data.s + data.a / 2) / rho)
    left = np.arccos((data.s - data.a / 2) / rho)
    spacing = (left - right) / (data.n_pin - 1)
    if data.wheel_spacing > 0.0:
        spacing = data.wheel_spacing / data.R
    travel = abs(data.omega) * data.t_end
    start, end = right - 5 * spacing, left + travel + 5 * spacing
    n = int(np.ceil((end - start) / spacing)) + 1
    return rough_arc(
        (0.0, 0.0),
        data.R,
        start,
        end,
        n,
        rz=data.rz_wheel,
        max_slope_change=data.max_slope_change,
        seed=data.seed_wheel,
    )


def pin_model(
    data: PinOnWheel | None = None,
    face: RoughProfile | None = None,
    rim: RoughProfile | None = None,
) -> Model:
    """The Model of the example (module docstring): the pin's tree without gravity and the
    contact pair CONTACT of the face on the wheel's rim; ``face`` and ``rim`` replace the
    generated profiles (the re-shaped ones of a wear loop). Its initial state
    (``assemble(model).initial_state()``) is the pin at rest at r = phi = 0."""
    data = PinOnWheel() if data is None else data
    pair = ContactPair(
        CONTACT,
        Polyline(PIN, pin_face(data) if face is None else face),
        Wheel(wheel_rim(data) if rim is None else rim, omega=data.omega),
        Unilateral(data.mu, data.eps_N, data.eps_T, impact="poisson", reversibility=data.nu),
    )
    return Model(tree=pin_tree(data), contacts=(pair,), gravity=(0.0, 0.0))


H = 1e-7  # s, the event-driven stepper's largest step


def pin_on_wheel(
    data: PinOnWheel | None = None,
    face: RoughProfile | None = None,
    rim: RoughProfile | None = None,
) -> Scenario:
    """``pin_model`` as a Scenario: the pin starts at rest at r = phi = 0. Run: the event-driven
    stepper (largest step ``H``, penetration ``data.penetration``) to ``data.t_end``.

    The scenario's model is a plain Model with the rough pair (a Polyline on a Wheel), which
    ``simulate(..., method="event-driven")`` runs; its contact kinematics alone (the
    ``RoughContact`` of the pair) is ``RoughContact.from_pair(model.tree, model.contacts[0])``."""
    data = PinOnWheel() if data is None else data
    model = pin_model(data, face, rim)
    settings = {"h": H, "penetration": data.penetration}
    return Scenario(
        "pin-on-wheel", model, np.zeros(2), np.zeros(2), (0.0, data.t_end), "event-driven", settings
    )


def smooth(data: PinOnWheel) -> PinOnWheel:
    """The same example without roughness."""
    return replace(data, rz_pin=0.0, rz_wheel=0.0)


@dataclass(frozen=True, eq=False)
class PinRun:
    """One simulation of the pin (SI), summed up from its ``result``. t : (k,) s at the end of
    each step; q, u : (k, 2) r, phi and their rates; impulse : (k, 2) N s on the pin over each
    step (x, y), normal_impulse : (k, 2) its part along the contact normals (the result's
    columns pin_impulse_x, ..., without the initial row); angles, weights : contact angles (rad)
    of every contact point that took a normal impulse in a step (impacts included) and that
    impulse (N s) (003 fig. 10); loss_face, loss_rim : W per vertex in J (003 eqs. (18)-(20));
    work : the WORK_KEYS totals in J; energy_error : J, work_drives + work_contact_timing -
    (change of mechanical energy) - dissipated_damping - dissipated_friction -
    dissipated_impact (the result's energy_error with the other sign); mu_xy : the apparent coefficient sum F_x dt / sum F_y dt
    over t >= average_from * t_end (003 sec. 4.3); face, rim : the profiles simulated; counters
    n_steps, n_impacts, n_rejected (halved steps); status : "finished", or "failed" when a
    contact problem could not be solved (then ``message`` says why and the history ends
    there); result : the SimulationResult of ``simulate``."""

    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    impulse: np.ndarray
    normal_impulse: np.ndarray
    angles: np.ndarray
    weights: np.ndarray
    loss_face: np.ndarray
    loss_rim: np.ndarray
    work: dict
    energy_error: float
    mu_xy: float
    face: RoughProfile
    rim: RoughProfile
    n_steps: int
    n_impacts: int
    n_rejected: int
    status: str = "finished"
    message: str = ""
    result: object = None


class _ContactAngles:
    """Observer: the normal's angle and the normal impulse of every contact point that took a
    normal impulse in a step (003 fig. 10)."""

    def __init__(self):
        self.angles, self.weights = [np.zeros(0)], [np.zeros(0)]

    def __call__(self, system, report, row) -> None:
        c = report.contacts[0]
        self._add(c.normal, c.normal_impulse)

    def add_batch(self, system, batch, rows) -> None:
        """The points of the steps of a batch (``steppers.rough_batch.RoughBatch``: their
        normals and normal impulses, step after step), or of each of its reports."""
        if isinstance(batch, RoughBatch):
            self._add(batch.normal, batch.normal_impulse)
            return
        for j in range(batch.n):
            self(system, batch.report(j), None)

    def _add(self, normal, normal_impulse) -> None:
        loaded = normal_impulse > 0.0
        self.angles.append(np.arctan2(normal[loaded, 1], normal[loaded, 0]))
        self.weights.append(normal_impulse[loaded])


def simulate_pin(
    data: PinOnWheel | None = None,
    h: float = H,
    *,
    face: RoughProfile | None = None,
    rim: RoughProfile | None = None,
    average_from: float = 0.25,
) -> PinRun:
    """Run ``pin_model`` to ``data.t_end`` with ``simulate(..., method="event-driven")``
    (largest step ``h`` in s, penetration ``data.penetration``) and sum up its result;
    ``face``, ``rim`` as in ``pin_model``; ``average_from`` in [0, 1) is the fraction of the
    run left out of mu_xy (the landing of the pin)."""
    data = PinOnWheel() if data is None else data
    average_from = check.real(
        "simulate_pin.average_from", average_from, low=0.0, high=1.0, high_open=True
    )
    scenario = pin_on_wheel(data, face, rim)
    model = scenario.model
    angles = _ContactAngles()
    result = scenario.run(h=h, observers=[angles])
    t = result.t[1:]  # row 0 is the initial state

    def pair(name):
        return np.column_stack((result[f"{CONTACT}_{name}_x"], result[f"{CONTACT}_{name}_y"]))[1:]

    impulse = pair("impulse")
    late = t > average_from * data.t_end
    total = impulse[late].sum(axis=0)
    pair_model = model.contacts[0]
    losses = result.losses[0]
    return PinRun(
        t=t,
        q=result.q[1:],
        u=result.u[1:],
        impulse=impulse,
        normal_impulse=pair("normal_impulse"),
        angles=np.concatenate(angles.angles),
        weights=np.concatenate(angles.weights),
        loss_face=losses.profile,
        loss_rim=losses.target,
        work={key: float(result[key][-1]) for key in WORK_KEYS},
        energy_error=-float(result["energy_error"][-1]),
        mu_xy=float(total[0] / total[1]) if total[1] > 0 else float("nan"),
        face=pair_model.profile.profile,
        rim=pair_model.target.rim,
        n_steps=result.n_steps,
        n_impacts=result.event_counts()["impact"],
        n_rejected=result.n_substeps - result.n_steps,
        status="finished" if result.success else "failed",
        message=result.message,
        result=result,
    )


def run_in(data: PinOnWheel | None = None, n_reshapings: int = 5, h: float = H):
    """The wear loop of 003 sec. 4.2: simulate, re-shape both profiles by 003 eqs. (16)-(17)
    with ``data.u_max``, and repeat; returns the n_reshapings + 1 PinRuns (the first on the
    generated profiles, the last on the profiles re-shaped n_reshapings times)."""
    data = PinOnWheel() if data is None else data
    n = check.integer("run_in.n_reshapings", n_reshapings, low=0)
    runs = [simulate_pin(data, h)]
    for _ in range(n):
        last = runs[-1]
        # a vertex's W can be a round-off below 0 (a contact's loss over one step is the
        # difference of the drive's work and the pin's energy); no wear there
        face = reshape(last.face, np.maximum(last.loss_face, 0.0), data.u_max)
        rim = reshape(last.rim, np.maximum(last.loss_rim, 0.0), data.u_max)
        runs.append(simulate_pin(data, h, face=face, rim=rim))
    return runs
