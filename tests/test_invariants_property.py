"""Property test of the run invariants: on small models drawn by hypothesis, friction and
impacts never give energy back, in any step, and the energy balance closes.

Draws: a point mass, a disk (Circle) or a foot (a parabolic Bezier Profile on a translating
body) on a rigid Line, on a short steel strip (2-4 elements, cantilever or pinned-pinned) or,
the point mass, on a short string (004's, 2-4 elements); law Sliding(mu), Unilateral(mu, e_N)
with Newton's or Poisson's impact law, or Compliant (Hertz with Hunt-Crossley damping and the
continuous friction law), mu in [0, 0.5], e_N in [0, 1]; generalised-alpha with rho_inf in
[0.5, 1] or, for Newton's law, Moreau-Jean (theta = 1/2); dropped from up to 5 mm or started on
the surface with a tangential speed; 60-150 steps of 0.5-2 ms. And the event-driven stepper on
its one model, the rough pin on the driven wheel (003), with drawn mu, e_N, e_T <= e_N, nu.

Refused by design, not drawn: Moreau-Jean takes Unilateral laws with Newton's impact law only
(Sliding is bilateral, Compliant a force law, Poisson's law a two-phase impact: ValueError);
the event-driven stepper takes a Polyline on a Wheel with Poisson's law only; a disk or a foot
on the string is not drawn (the string's model is the trolley, a point mass).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fe_contact.curves import Curve
from fe_contact.model import (
    Circle,
    Compliant,
    ContactPair,
    Line,
    Model,
    Point,
    Profile,
    Sliding,
    Unilateral,
)
from fe_contact.multibody.builders import floating_body
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.papers.lipinski import cantilever_strip
from fe_contact.papers.slavic_boltezar import CONTACT, PinOnWheel, pin_model
from fe_contact.papers.slider_on_string import Trolley, slider_on_string
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

EPS = np.finfo(float).eps
GA, MJ = "generalized-alpha", "moreau"
MASS, RADIUS = 0.02, 0.005  # kg, m: the body (the sliding mass of Lipinski (002), sec. 9)
# the foot: y = -RADIUS + k x^2 for |x| <= 5 mm in the body's frame, k = 50 1/m (its radius
# of curvature 1 / 2k = 1 cm at the lowest point, under the body's origin)
FOOT_HALF, FOOT_K = 0.005, 50.0
# the Compliant law: Hertz c = 1e4 N/m^1.5 (the 0.02 kg body rests 0.73 mm deep, contact
# frequency about 140 rad/s: 0.07-0.3 rad per step), Hunt-Crossley D = 0.5 s/m, v0 = 1 cm/s
HERTZ, HUNT_CROSSLEY, V0 = 1e4, 0.5, 0.01
FLOOR_LINE = Line((0.0, 0.0), (0.0, 1.0))  # the x axis, its free side up


@dataclass(frozen=True)
class Draw:
    body: str  # "point" | "disk" | "foot"
    surface: str  # "line" | "cantilever" | "pinned" | "string"
    law: str  # "sliding" | "newton" | "poisson" | "compliant"
    method: str  # "generalized-alpha" | "moreau"
    mu: float
    e_n: float
    rho_inf: float
    h: float  # s
    n_steps: int
    drop: float  # m above the surface at the start (0: on it)
    speed: float  # m/s tangential at the start
    x0: float  # where along the surface, as a fraction of its length


def contact_law(draw: Draw):
    if draw.law == "sliding":
        return Sliding(draw.mu)
    if draw.law == "compliant":
        v0 = V0 if draw.mu > 0.0 else None
        return Compliant("hertz", HERTZ, HUNT_CROSSLEY, mu=draw.mu, v0=v0)
    return Unilateral(draw.mu, restitution_normal=draw.e_n, impact=draw.law)


def foot_curve() -> Curve:
    """The foot, left to right (counter-clockwise round the body: its normal points down)."""
    w, y0, k = FOOT_HALF, -RADIUS, FOOT_K
    return Curve.bezier([[-w, y0 + k * w * w], [0.0, y0 - k * w * w], [w, y0 + k * w * w]])


def n_elements(draw: Draw) -> int:
    """2-4 elements of the beam (0.4 m) or the string (1 m), from the start point."""
    return 2 + int(7 * draw.x0) % 3


def point_tree() -> TreeModel:
    """The point mass on prismatic x then prismatic y: q = its position (m)."""
    return TreeModel(
        bodies=(Body(0.0, 0.0), Body(MASS, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )


def foot_tree() -> TreeModel:
    """The foot's body, translating only: prismatic y then prismatic x, q = (y, x) (m); the
    joints' angles cancel, so that the body's frame is the plane's (as test_moreau_profiles)."""
    return TreeModel(
        bodies=(Body(0.0, 0.0), Body(MASS, 0.0)),
        joints=(
            Joint("prismatic", angle=np.pi / 2),
            Joint("prismatic", parent=0, angle=-np.pi / 2),
        ),
    )


def build(draw: Draw):
    """(system, q0, u0) of a draw. The line and the beams lie along +x with their free side up;
    a beam starts undeformed (it sags under its weight and the body's during the run); the
    string starts in its static equilibrium under the point mass (slider_on_string)."""
    law = contact_law(draw)
    if draw.surface == "string":
        s0 = 0.2 + 0.6 * draw.x0
        trolley = Trolley(MASS, draw.mu, n_elements(draw), s0, draw.speed)
        scenario = slider_on_string(trolley)
        model, q0, u0 = scenario.model, scenario.q0, scenario.u0
        pair = replace(model.contacts[0], law=law)
        system = assemble(replace(model, contacts=(pair,)))
        return system, q0, u0
    if draw.surface == "line":
        target, length = FLOOR_LINE, 1.0
        structures = {}
    else:
        ends = ("clamped", "free") if draw.surface == "cantilever" else ("pinned", "pinned")
        beam = cantilever_strip(n_elements(draw), left=ends[0], right=ends[1])
        target, length = "beam", beam.length
        structures = {"beam": beam}
    x = (0.25 + 0.5 * draw.x0) * length
    if draw.body == "point":
        tree, shape, q, u = point_tree(), Point(1), [x, draw.drop], [draw.speed, 0.0]
    elif draw.body == "foot":
        tree, shape = foot_tree(), Profile(1, foot_curve())
        q, u = [RADIUS + draw.drop, x], [0.0, draw.speed]
    else:
        tree = floating_body(MASS, 0.5 * MASS * RADIUS**2)
        shape = Circle(2, RADIUS)
        q, u = [x, RADIUS + draw.drop, 0.0], [draw.speed, 0.0, -draw.speed / RADIUS]
    # the beam without its own weight: it starts undeformed and at rest, the body's weight
    # presses it (with its weight the strip falls with the body at first, and a bilateral
    # Sliding contact then carries a normal force near zero of either sign)
    model = Model(tree=tree, structures=structures, structure_gravity=False,
                  contacts=(ContactPair("body", shape, target, law),))  # fmt: skip
    system = assemble(model)
    q0, u0 = system.initial_state(q, u)
    return system, q0, u0


def run(draw: Draw, h: float | None = None):
    system, q0, u0 = build(draw)
    h = draw.h if h is None else h
    settings_ = {} if draw.method == "moreau" else {"rho_inf": draw.rho_inf}
    t_end = draw.n_steps * draw.h
    return simulate(system, (0.0, t_end), (q0, u0), method=draw.method, h=h, **settings_)


@st.composite
def draws(draw_):
    body = draw_(st.sampled_from(["point", "disk", "foot"]))
    surfaces = ["line", "cantilever", "pinned"] + (["string"] if body == "point" else [])
    surface = draw_(st.sampled_from(surfaces))
    law = draw_(st.sampled_from(["sliding", "newton", "poisson", "compliant"]))
    method = "generalized-alpha"
    if law == "newton":
        method = draw_(st.sampled_from(["generalized-alpha", "moreau"]))
    drop = 0.0
    if law != "sliding" and surface != "string":
        drop = draw_(st.sampled_from([0.0, 0.0005, 0.002, 0.005]))
    return Draw(
        body=body,
        surface=surface,
        law=law,
        method=method,
        mu=draw_(st.floats(0.0, 0.5)),
        e_n=draw_(st.floats(0.0, 1.0)),
        rho_inf=draw_(st.floats(0.5, 1.0)),
        h=draw_(st.sampled_from([5e-4, 1e-3, 2e-3])),
        n_steps=draw_(st.integers(60, 150)),
        drop=drop,
        speed=draw_(st.floats(0.0, 0.5)),
        x0=draw_(st.floats(0.0, 1.0)),
    )


# A round-off bound: the columns are running sums over at most 300 steps (and sub-steps) of
# products of forces and velocities, each exact to a few eps of the run's energy; measured
# below 1e2 eps x scale (the Moreau-Jean balance, genalpha's impact runs), 1e3 gives room.
ROUND_OFF = 1e3 * EPS
SIGN = 16 * EPS  # Moreau-Jean's per-step signs (check_invariants)
# The balance of generalised-alpha with the numerical loss booked is the trapezoidal error of
# the work terms and the landing error of impacts (README, "Dissipation and numerical
# damping"): measured up to 4.7e-3 of the energy scale over 1000 draws (a disk dropped 2 mm
# with e_N = 0 onto the pinned strip); 2e-2 says "small" with room.
BALANCE = 2e-2


def energy_scale(res) -> float:
    """The run's energy scale (J): its largest kinetic, elastic and gravity energy, at least
    the body's weight over 1 cm (a body at rest on the line has none of these)."""
    energies = sum(np.max(np.abs(res[k])) for k in
                   ("kinetic_energy", "elastic_energy", "potential_energy"))  # fmt: skip
    return float(max(energies, MASS * 9.81 * 0.01))


def smooth(res, draw: Draw) -> bool:
    """No switch, no impact and no passage from one element to the next (where the surface's
    curvature jumps) in the run: the balance error is then the integrator's alone."""
    if res.events or res["dissipated_impact"][-1] != 0.0:
        return False
    if draw.surface == "line":
        return True
    name = "trolley" if draw.surface == "string" else "body"
    length = 1.0 if draw.surface == "string" else cantilever_strip().length
    element = np.floor(res[f"{name}_parameter"] / (length / n_elements(draw)))
    return bool(np.all(element == element[0]))


def check_invariants(draw: Draw) -> dict:
    """Run a draw and assert its invariants; return the measured figures (relative to the
    energy scale) for the caller."""
    res = run(draw)
    assert res.status == "finished", (draw, res.message)
    scale = energy_scale(res)
    friction, impact = res["dissipated_friction"], res["dissipated_impact"]
    error = float(np.max(np.abs(res["energy_error"])))
    out = {"scale": scale, "error": error / scale}
    timing = res["work_contact_timing"]
    if draw.method == "moreau":
        # theta = 1/2 and the contact work booked by the midpoint rule: the balance is exact to
        # round-off. Its three columns grow in every step (``impulse_work``): each step's value
        # is a sum of products of numbers of known sign, >= 0 exactly, but for the term
        # P_T xi_T + fl(mu P_N) |xi_T|, which can round below 0 by a few eps of the step's
        # contact work (< the scale) where the solver's least-distance path leaves P_T an ulp
        # outside fl(mu P_N); 16 eps of the scale bounds that (measured: no step below 0).
        for key, work in (("dissipated_friction", friction), ("dissipated_impact", impact),
                          ("work_contact_timing", timing)):  # fmt: skip
            steps = np.diff(work)
            out[key] = float(steps.min()) / scale
            assert steps.min() >= -SIGN * scale, (draw, key, steps.min(), scale)
        assert np.all(res["dissipated_numerical"] == 0.0)
        # the string's neo-Hookean force is not linear: the midpoint rule's work of it errs
        # by O(h^2) (measured up to 1e-9 (h / 1 ms)^2 of the scale: 2.4e-9, 5.5e-10,
        # 1.4e-10 J of 0.57 J at h = 2, 1, 0.5 ms); linear structures: round-off
        bound = 1e-8 * (draw.h / 1e-3) ** 2 if draw.surface == "string" else ROUND_OFF
        assert error <= bound * scale, (draw, error, scale)
        out["timing"] = float(timing[-1]) / scale
        return out
    assert np.all(timing == 0.0)  # the generalised-alpha stepper books no timing work
    for key, work in (("dissipated_friction", friction), ("dissipated_impact", impact),
                      ("dissipated_damping", res["dissipated_damping"])):  # fmt: skip
        steps = np.diff(work)
        out[key] = float(steps.min()) / scale
        assert steps.min() >= -ROUND_OFF * scale, (draw, key, steps.min(), scale)
    if draw.mu == 0.0:
        assert np.all(friction == 0.0)
    if draw.rho_inf == 1.0:
        # no numerical loss (the trapezoidal rule): round-off of its products (measured
        # 5e-21 J on a disk on the cantilever, scale 5e-3 J)
        numerical = np.max(np.abs(res["dissipated_numerical"]))
        assert numerical <= ROUND_OFF * scale, (draw, numerical, scale)
    assert error <= BALANCE * scale, (draw, error, scale)
    if smooth(res, draw):
        # convergence of the balance error, from h <= 1 ms (at 2 ms a 2-element cantilever
        # under a disk is not yet in the asymptotic range: ratio 2.3, then 3.5, 4.0, 4.0)
        coarse = res if draw.h <= 1e-3 else run(draw, 1e-3)
        h = min(draw.h, 1e-3)
        fine = run(draw, h / 2)
        assert coarse.status == fine.status == "finished", (draw, coarse.message, fine.message)
        error = float(np.max(np.abs(coarse["energy_error"])))
        error_fine = float(np.max(np.abs(fine["energy_error"])))
        out["ratio"] = error / error_fine if error_fine > 0.0 else np.inf
        out["error_fine"] = error_fine / scale
        if smooth(coarse, draw) and smooth(fine, draw) and error > FLOOR * scale:
            # second order: 4 per halving (measured 3.0-4.3 over 1000 draws; 2.34 above)
            if error_fine > error / RATIO:
                # not yet in the asymptotic range (the beam's unresolved modes, which the
                # sliding body excites, set the phase of the oscillating error): one more
                # halving must bring the fall over the two to more than RATIO^2 (order > 1)
                finer = run(draw, h / 4)
                assert finer.status == "finished", (draw, finer.message)
                error_finer = float(np.max(np.abs(finer["energy_error"])))
                out["ratio_two"] = error / error_finer if error_finer > 0.0 else np.inf
                if smooth(finer, draw):
                    assert error_finer <= error / RATIO**2, (draw, h, error, error_finer)
    return out


# Below 1e-8 of the scale the error is not the step's alone (measured: ratio 1.9 at 4e-10 of
# it, a point mass on a 2-element pinned strip): the convergence is checked above it. A fall by
# more than 2 per halving (order > 1): a point mass sliding at 0.2 m/s on a 3-element cantilever
# (rho_inf = 0.6) is not yet in the asymptotic range at 1 ms: ratios 2.34, 2.76, 3.85 from h =
# 1 ms to 0.125 ms (4e-6 of the scale at 1 ms; the same under Sliding, Newton and Poisson).
# A frictionless point sliding at 0.3 m/s on a 3-element pinned strip (rho_inf = 0.8) falls by
# 1.99, then 2.54, 3.64 per halving from 1 ms (1.0e-8 J of 2e-3 J at 1 ms): where the first
# halving falls by less than RATIO, the next must bring the fall over both above RATIO^2.
FLOOR = 1e-8
RATIO = 2.0


# Models the first draws of a derandomized run do not reach: the string (Sliding, and Newton
# under Moreau-Jean, Compliant), impacts on the strips, a bouncing ball with friction, Poisson's
# law, Compliant laws and the foot on the strips.
FIXED = (
    Draw("point", "string", "sliding", GA, 0.05, 0.0, 0.9, 1e-3, 100, 0.0, 0.3, 0.3),
    Draw("point", "string", "newton", MJ, 0.2, 0.5, 1.0, 1e-3, 100, 0.0, 0.2, 0.3),
    Draw("point", "string", "compliant", GA, 0.2, 0.0, 1.0, 1e-3, 100, 0.0, 0.2, 0.3),
    Draw("disk", "cantilever", "newton", GA, 0.06, 0.0, 0.9, 1e-3, 127, 5e-3, 0.0, 0.5),
    Draw("point", "cantilever", "newton", MJ, 0.5, 0.67, 1.0, 5e-4, 60, 2e-3, 0.0, 0.5),
    Draw("disk", "pinned", "newton", GA, 0.4, 0.8, 0.9, 1e-3, 150, 1e-3, 0.3, 0.4),
    Draw("point", "line", "newton", GA, 0.3, 0.5, 0.8, 1e-3, 150, 5e-3, 0.4, 0.5),
    Draw("disk", "pinned", "poisson", GA, 0.3, 0.6, 0.9, 1e-3, 120, 2e-3, 0.2, 0.4),
    Draw("foot", "cantilever", "compliant", GA, 0.3, 0.0, 0.8, 1e-3, 120, 2e-3, 0.3, 0.5),
    Draw("foot", "pinned", "newton", MJ, 0.3, 0.3, 1.0, 1e-3, 100, 1e-3, 0.2, 0.5),
    # the smallest draw whose Moreau-Jean dissipated_impact ran negative before the split
    # (README): now 2.1e-7 J of impact loss and 2.8e-7 J of timing work, balance at round-off
    Draw("point", "cantilever", "newton", MJ, 0.0, 0.0, 1.0, 5e-4, 60, 0.0, 0.5, 0.5),
    # not in the asymptotic range at 1 ms: the balance error falls by 1.99, then 2.54
    Draw("point", "pinned", "sliding", GA, 0.0, 0.0, 0.803, 2e-3, 101, 0.0, 0.296, 0.1667),
)


@pytest.mark.slow
@pytest.mark.parametrize("draw", FIXED, ids=lambda d: f"{d.body}-{d.surface}-{d.law}-{d.method}")
def test_fixed_models_keep_the_invariants(draw):
    check_invariants(draw)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(draws())
def test_friction_and_impacts_dissipate_and_the_balance_closes(draw):
    check_invariants(draw)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(draws())
def test_a_larger_sweep_keeps_the_invariants(draw):
    check_invariants(draw)


@pytest.mark.parametrize(
    "law, match",
    [
        (Sliding(0.1), "Sliding"),
        (Compliant("hertz", HERTZ, mu=0.1, v0=V0), "Compliant"),
        (Unilateral(0.1, impact="poisson"), "Poisson"),
    ],
)
def test_moreau_jean_refuses_the_laws_it_does_not_take(law, match):
    """By design (module docstring): the Moreau-Jean stepper names the law it refuses."""
    model = Model(tree=point_tree(), contacts=(ContactPair("body", Point(1), FLOOR_LINE, law),))
    system = assemble(model)
    with pytest.raises(ValueError, match=match):
        simulate(system, (0.0, 1e-3), system.initial_state([0.5, 0.0]), method=MJ)


def test_the_event_driven_stepper_refuses_other_contacts():
    law = Unilateral(0.1, impact="poisson")
    model = Model(tree=point_tree(), contacts=(ContactPair("body", Point(1), FLOOR_LINE, law),))
    system = assemble(model)
    with pytest.raises(ValueError, match="Polyline on a Wheel"):
        simulate(system, (0.0, 1e-3), system.initial_state([0.5, 0.0]), method="event-driven")


# -- the event-driven stepper on its one model: the rough pin on the driven wheel (003) --------

ROUGH_H, ROUGH_T = 1e-7, 6e-5  # s: the step of test_rough_model; the pin lands within the run
# Its balance closes up to the midpoint rule's error of the configuration-dependent mass
# matrix (event_driven): measured 7e-7 (defaults) to 2.8e-5 (mu = 0.3, e_N = 0.9, e_T = 0.2) of
# the run's scale (check_rough); 2e-4 of it says "that error, no more".
ROUGH_BALANCE = 2e-4


def check_rough(data: PinOnWheel) -> dict:
    """Run the pin on the wheel and assert its invariants: friction, impact (Poisson's and the
    smooth steps' normal rows) and timing work grow in every step (``impulse_work``: each a sum
    of terms >= 0; the bound as SIGN of Moreau-Jean's, relative to the run's scale), the
    per-vertex losses W(s) sum to friction + impact, the balance closes."""
    system = assemble(pin_model(data))
    res = simulate(system, (0.0, data.t_end), system.initial_state(), method="event-driven",
                   h=ROUGH_H, penetration=data.penetration)  # fmt: skip
    assert res.status == "finished", (data, res.message)
    drive = float(res["work_drives"][-1])
    # the run's scale: the drive's work or the pin's largest kinetic and spring energies (the
    # preloaded springs: 1.8e-5 J; without friction the rim's normal impulses alone work, of
    # either sign: -9.5e-7 J on the rounded tip with mu = 0)
    energies = sum(np.max(np.abs(res[k])) for k in
                   ("kinetic_energy", "potential_energy", "elastic_energy"))  # fmt: skip
    scale = max(abs(drive), float(energies))
    out = {"drive": drive, "scale": scale}
    for key in ("dissipated_friction", "dissipated_impact", "work_contact_timing"):
        steps = np.diff(res[key])
        out[key] = float(steps.min()) / scale
        assert steps.min() >= -SIGN * scale, (data, key, steps.min(), scale)
    lost = res["dissipated_friction"][-1] + res["dissipated_impact"][-1]
    walls = res[f"{CONTACT}_loss_profile"][-1] + res[f"{CONTACT}_loss_target"][-1]
    # the same numbers summed per vertex and per step: 1e-12 of them
    assert abs(walls - lost) <= 1e-12 * lost, (walls, lost)
    error = float(np.max(np.abs(res["energy_error"])))
    out["error"], out["timing"] = error / scale, float(res["work_contact_timing"][-1]) / scale
    assert error <= ROUGH_BALANCE * scale, (data, error, scale)
    return out


ROUGH_FIXED = (
    PinOnWheel(t_end=ROUGH_T, mu=0.3, eps_N=0.9, eps_T=0.2),
    PinOnWheel(t_end=ROUGH_T, mu=0.05, eps_N=0.3, eps_T=0.3, nu=0.5, tip_radius=2e-4),
)


@pytest.mark.parametrize("data", ROUGH_FIXED, ids=("rough-face", "rounded-tip"))
def test_the_rough_pin_keeps_the_invariants(data):
    check_rough(data)


@st.composite
def rough_draws(draw_):
    eps_n = draw_(st.floats(0.0, 1.0))
    return PinOnWheel(
        t_end=ROUGH_T,
        mu=draw_(st.floats(0.0, 0.5)),
        eps_N=eps_n,
        eps_T=eps_n * draw_(st.floats(0.0, 1.0)),
        nu=draw_(st.floats(0.0, 1.0)),
        tip_radius=draw_(st.sampled_from([0.0, 2e-4])),
        seed_pin=draw_(st.integers(1, 20)),
    )


@pytest.mark.slow
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(rough_draws())
def test_rough_pins_keep_the_invariants(data):
    check_rough(data)


def test_a_subnormal_start_speed_keeps_the_invariants():
    """A foot starting at 5e-324 m/s (found by hypothesis): the finite-difference step of the
    curvature remainder, 1e-6 / |u|, overflowed to inf and the start failed as singular."""
    check_invariants(
        Draw(
            body="foot",
            surface="line",
            law="sliding",
            method="generalized-alpha",
            mu=0.0,
            e_n=0.0,
            rho_inf=1.0,
            h=0.0005,
            n_steps=60,
            drop=0.0,
            speed=5e-324,
            x0=0.0,
        )
    )
