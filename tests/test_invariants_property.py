"""Property test of the run invariants: on small models drawn by hypothesis, friction and
impacts never give energy back and the energy balance closes.

Draws: a point mass or a disk (Circle) on a rigid Line, on a short steel strip (2-4 elements,
cantilever or pinned-pinned) or, the point mass, on a short string (004's, 2-4 elements);
law Sliding(mu) or Unilateral(mu, restitution_normal=e_N) with mu in [0, 0.5], e_N in [0, 1];
generalised-alpha with rho_inf in [0.5, 1] or, for Unilateral, Moreau-Jean; dropped from up to
5 mm or started on the surface with a tangential speed; 60-150 steps of 0.5-2 ms.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fe_contact.model import Circle, ContactPair, Line, Model, Point, Sliding, Unilateral
from fe_contact.multibody.builders import floating_body
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.papers.lipinski import cantilever_strip
from fe_contact.papers.slider_on_string import Trolley, slider_on_string
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

EPS = np.finfo(float).eps
GA, MJ = "generalized-alpha", "moreau"
MASS, RADIUS = 0.02, 0.005  # kg, m: the body (the sliding mass of Lipinski (002), sec. 9)


@dataclass(frozen=True)
class Draw:
    body: str  # "point" | "disk"
    surface: str  # "line" | "cantilever" | "pinned" | "string"
    law: str  # "sliding" | "unilateral"
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
    return Unilateral(draw.mu, restitution_normal=draw.e_n)


def n_elements(draw: Draw) -> int:
    """2-4 elements of the beam (0.4 m) or the string (1 m), from the start point."""
    return 2 + int(7 * draw.x0) % 3


def point_tree() -> TreeModel:
    """The point mass on prismatic x then prismatic y: q = its position (m)."""
    return TreeModel(
        bodies=(Body(0.0, 0.0), Body(MASS, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )


def build(draw: Draw):
    """(system, q0, u0) of a draw. The line and the beams lie along +x with their free side up;
    a beam starts undeformed (it sags under its weight and the body's during the run); the
    string starts in its static equilibrium under the point mass (slider_on_string)."""
    law = contact_law(draw)
    if draw.surface == "string":
        s0 = 0.2 + 0.6 * draw.x0
        trolley = Trolley(MASS, draw.mu, n_elements(draw), s0, draw.speed)
        model, q0, u0 = slider_on_string(trolley)
        pair = replace(model.contacts[0], law=law)
        system = assemble(replace(model, contacts=(pair,)))
        return system, q0, u0
    if draw.surface == "line":
        target, length = Line((0.0, 0.0), (0.0, 1.0)), 1.0
        structures = {}
    else:
        ends = ("clamped", "free") if draw.surface == "cantilever" else ("pinned", "pinned")
        beam = cantilever_strip(n_elements(draw), left=ends[0], right=ends[1])
        target, length = "beam", beam.length
        structures = {"beam": beam}
    x = (0.25 + 0.5 * draw.x0) * length
    if draw.body == "point":
        tree, shape, q, u = point_tree(), Point(1), [x, draw.drop], [draw.speed, 0.0]
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
    body = draw_(st.sampled_from(["point", "disk"]))
    surfaces = ["line", "cantilever", "pinned"] + (["string"] if body == "point" else [])
    surface = draw_(st.sampled_from(surfaces))
    law = draw_(st.sampled_from(["sliding", "unilateral"]))
    method = "generalized-alpha"
    if law == "unilateral":
        method = draw_(st.sampled_from(["generalized-alpha", "moreau"]))
    drop = 0.0
    if law == "unilateral" and surface != "string":
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
    if draw.method == "moreau":
        # theta = 1/2 and contact work booked by the midpoint rule: the balance is exact to
        # round-off. The booking -P (g'_A + g'_E) / 2 is negative in a step where a separating
        # contact carries an impulse (README), and so, on these draws, are the running totals
        # at times (down to -1.7e-4 of the scale; a point sliding on the cantilever with
        # mu = e_N = 0 books -2.2e-5 of it, README) and the run's total at the end (-3.6e-10
        # of it, a disk bouncing with e_N = 1 on the cantilever): not asserted, measured.
        assert np.all(res["dissipated_numerical"] == 0.0)
        # the string's neo-Hookean force is not linear: the midpoint rule's work of it errs
        # by O(h^2) (measured up to 1e-9 (h / 1 ms)^2 of the scale: 2.4e-9, 5.5e-10,
        # 1.4e-10 J of 0.57 J at h = 2, 1, 0.5 ms); linear structures: round-off
        bound = 1e-8 * (draw.h / 1e-3) ** 2 if draw.surface == "string" else ROUND_OFF
        assert error <= bound * scale, (draw, error, scale)
        out["running"] = float(np.min(friction + impact)) / scale
        out["total"] = float(friction[-1] + impact[-1]) / scale
        return out
    for key, work in (("dissipated_friction", friction), ("dissipated_impact", impact)):
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
            # second order: 4 per halving (measured 3.0-4.3 over 1000 draws)
            assert error_fine <= error / RATIO, (draw, h, error, error_fine)
    return out


# Below 1e-8 of the scale the error is not the step's alone (measured: ratio 1.9 at 4e-10 of
# it, a point mass on a 2-element pinned strip): the convergence is checked above it.
FLOOR = 1e-8
RATIO = 2.5


# Models the first draws of a derandomized run do not reach: the string (Sliding, and
# Unilateral under Moreau-Jean), impacts on the strips, a bouncing ball with friction.
FIXED = (
    Draw("point", "string", "sliding", GA, 0.05, 0.0, 0.9, 1e-3, 100, 0.0, 0.3, 0.3),
    Draw("point", "string", "unilateral", MJ, 0.2, 0.5, 1.0, 1e-3, 100, 0.0, 0.2, 0.3),
    Draw("disk", "cantilever", "unilateral", GA, 0.06, 0.0, 0.9, 1e-3, 127, 5e-3, 0.0, 0.5),
    Draw("point", "cantilever", "unilateral", MJ, 0.5, 0.67, 1.0, 5e-4, 60, 2e-3, 0.0, 0.5),
    Draw("disk", "pinned", "unilateral", GA, 0.4, 0.8, 0.9, 1e-3, 150, 1e-3, 0.3, 0.4),
    Draw("point", "line", "unilateral", GA, 0.3, 0.5, 0.8, 1e-3, 150, 5e-3, 0.4, 0.5),
    # the smallest draw whose Moreau-Jean dissipated_impact runs negative (README): its
    # balance still closes to round-off
    Draw("point", "cantilever", "unilateral", MJ, 0.0, 0.0, 1.0, 5e-4, 60, 0.0, 0.5, 0.5),
)


@pytest.mark.parametrize("draw", FIXED, ids=lambda d: f"{d.body}-{d.surface}-{d.law}-{d.method}")
def test_fixed_models_keep_the_invariants(draw):
    check_invariants(draw)


@pytest.mark.slow  # 8.2 s of CPU (one core), 2026-11-25
@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(draws())
def test_friction_and_impacts_dissipate_and_the_balance_closes(draw):
    check_invariants(draw)
