"""The impulse an exact (Unilateral) contact gives over a step, and where it opens.

A body held on a moving contact by the velocity constraint takes, in the coordinate-partitioned
step, the velocity of the target's material point: an impulse the target does not feel. The
energy-consistent step (``steppers.energy_consistent``) gives both sides the step's force
G_Sigma^T Lambda and closes J u + phi_t = 0 by a mass-metric projection acting on both, and its
recorded normal force is that impulse over h. Here: the pantograph's momentum balance at speed,
and a particle leaving a circular hump where its weight no longer supplies the centripetal force.
"""

from __future__ import annotations

import numpy as np
import pytest

from fe_contact import assemble, simulate
from fe_contact.curves import Curve
from fe_contact.model import ContactPair, Model, Point, Profile, Unilateral
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.papers.pantograph import KMH, pantograph_force, pantograph_on_catenary

SPEED = 300.0 * KMH
X0, T_END, H = 10.0, 0.05, 1e-3  # the head from 10 m for 50 steps of 1 ms


def pantograph_at_speed(energy_consistent):
    """One 55 m span of 1 m elements, the reference pantograph at 300 km/h."""
    run = pantograph_on_catenary(
        1,
        speed=SPEED,
        max_element_length=1.0,
        x_start=X0,
        x_end=X0 + SPEED * T_END,
        h=H,
        energy_consistent=energy_consistent,
    )
    system = assemble(run.model)
    result = run.run(system)
    assert result.success, result.message
    return run, system, result


def wire_slope(system, result):
    """|w'| of the contact wire at the head's contact point at every sample."""
    wire = system.structures["contact_wire"]
    q = result.q[:, system.layout.structure("contact_wire")]
    s = result["head_parameter"]
    ds = 1e-3
    slopes = []
    for q_k, s_k in zip(q, s, strict=True):
        r = wire.positions(np.array([s_k - ds, s_k + ds]), q_k)
        slopes.append((r[1, 1] - r[0, 1]) / (r[1, 0] - r[0, 0]))
    return np.abs(np.array(slopes))


@pytest.mark.slow  # two runs of about 4.5 s of CPU each, with their static solves
def test_recorded_impulse_is_the_heads_momentum_balance_at_speed(measured):
    """At 300 km/h the recorded normal impulse of each step (energy-consistent form, the
    scenario's default for the exact contact) is the impulse the pantograph's vertical momentum
    balance needs (``pantograph_force``), step by step and over the run, to the normal's tilt:
    the recorded impulse is along the wire's normal, the balance vertical, and they differ by
    1 - cos(atan w') <= w'^2 / 2 relative, with a margin of 4 for the discrete gradient's share
    of the head's coordinate (measured 1.5e-5 of the largest step's 0.17 N s, 1.3e-5 of the
    run's 5.3 N s). Without the option the head takes the wire's material-point velocity from
    the velocity constraint: the same run's balance then needs 6.9 N s where the wire is
    pushed with 5.1 N s, and single steps differ by 1.1 N s."""
    run, system, result = pantograph_at_speed(None)
    assert run.settings["energy_consistent"]
    t, x, force = pantograph_force(run, system, result)
    dt = np.diff(result.t)
    needed = force * dt
    recorded = result["head_normal_impulse"][1:]
    assert np.all(result["head_state"] != "open")
    tilt = 0.5 * float(np.max(wire_slope(system, result))) ** 2
    assert tilt < 1e-4  # the span's slope under the head: |w'| < 1.4e-2
    bound = 4.0 * max(tilt, 1e-6)
    measured("step impulse: recorded - pantograph balance", np.max(np.abs(recorded - needed)), bound * np.max(needed), unit="N s")  # fmt: skip
    measured("run impulse: recorded - pantograph balance", abs(float(np.sum(recorded - needed))), bound * float(np.sum(needed)), unit="N s")  # fmt: skip
    # the column's two readings agree: the mean force of the step is its impulse over h
    np.testing.assert_allclose(result["head_normal_force"][1:] * dt, recorded, rtol=1e-12)
    # the coordinate-partitioned step misses a quarter of the impulse here (the test's point)
    _, system_p, plain = pantograph_at_speed(False)
    t, x, force = pantograph_force(run, system_p, plain)
    lam = plain["head_normal_force"]
    trapezoid = float(np.sum(0.5 * (lam[1:] + lam[:-1]) * dt))
    assert abs(float(np.sum(force * dt)) - trapezoid) > 0.1 * float(np.sum(force * dt))


R, G = 1.0, 9.81  # m, m/s^2
V0 = np.sqrt(0.1 * G * R)  # m/s at the top: it leaves where cos(phi) = (V0^2 / (g R) + 2) / 3
COS_LEAVE = (V0**2 / (G * R) + 2.0) / 3.0  # 0.7
SPACING = 0.01  # rad between the hump's control points


def hump_system():
    """A 1 kg particle (x, y prismatic) on a circular hump of radius R about the origin: a
    uniform cubic B-spline with control points every SPACING rad on the radius that puts the
    curve's knots on R (a knot point is (P_k-1 + 4 P_k + P_k+1) / 6: radius r (2 + cos d) / 3);
    between the knots it leaves the circle by O(d^4) R and its curvature 1/R by O(d^2)."""
    phi = 0.5 * np.pi + SPACING * np.arange(-120, 121)  # counter-clockwise: normal outwards
    r = R * 3.0 / (2.0 + np.cos(SPACING))
    hump = Profile(None, Curve.bspline(np.column_stack([r * np.cos(phi), r * np.sin(phi)])))
    gravity = (0.0, -G)
    joints = (Joint("prismatic"), Joint("prismatic", 0, angle=0.5 * np.pi))
    tree = TreeModel((Body(0.0, 0.0), Body(1.0, 0.0)), joints, gravity=gravity)
    pair = ContactPair("bead", Point(1), hump, Unilateral())
    system = assemble(Model(tree=tree, contacts=(pair,), gravity=gravity))
    top = hump.curve.position(0.5)  # the middle knot: on the circle's top by symmetry
    return system, system.initial_state([float(top[0]), float(top[1])], [V0, 0.0])


def leaving_point(result, t_open):
    """cos(phi) of the particle at t_open, from the first sample after it: free flight since,
    which the trapezoidal rule (rho_inf = 1) integrates exactly."""
    k = int(np.searchsorted(result.t, t_open))
    tau = result.t[k] - t_open
    x = result.q[k, 0] - result.u[k, 0] * tau
    y = result.q[k, 1] - result.u[k, 1] * tau - 0.5 * G * tau * tau
    return y / np.hypot(x, y)


@pytest.mark.slow  # two runs of 560 steps: about 5 s of CPU each
@pytest.mark.parametrize("energy_consistent", [False, True])
def test_particle_leaves_a_circular_hump_where_its_weight_no_longer_holds_it(
    energy_consistent, measured
):
    """From the top at V0 the particle leaves the hump where the normal force
    m g cos(phi) - m v^2 / R reaches zero with v^2 = V0^2 + 2 g R (1 - cos(phi)):
    cos(phi) = (V0^2 / (g R) + 2) / 3 = 0.7, once, and flies free after it.

    The coordinate-partitioned step opens on the end-of-step multiplier, located to
    event_tol: the error is the scheme's O(h^2) and the spline's curvature error O(d^2) = 1e-4
    relative in N's centripetal part (measured 1.6e-6 in cos(phi) at h = 1 ms, bound 1e-5).
    The energy-consistent step opens on the step's normal impulse: its indicator is the mean
    force of the sub-step, whose zero is located and halved (the force is linear in time to
    first order); when the step's mean force is still positive while the force at its end has
    turned negative, it opens at the next step's start. Its opening is late by under half a
    step and its Lambda's O(h^2) error over |dN/dt| (3 g sin(phi) phi' = 50 N/s here), so
    cos(phi) is within h sin(phi) phi' = 1.7e-3 (measured 2.0e-4 at h = 1 ms)."""
    system, start = hump_system()
    result = simulate(
        system, (0.0, 0.56), start, h=H, rho_inf=1.0, energy_consistent=energy_consistent
    )
    assert result.success, result.message
    opened = [t for t, name, kind in result.events if kind == "open"]
    assert len(opened) == 1
    assert 0.5 < opened[0] < 0.55  # from 0.53 s: the trapezoidal time of the quarter-turn
    cos_leave = leaving_point(result, opened[0])
    phi = np.arccos(COS_LEAVE)
    rate = np.sqrt(V0**2 + 2 * G * R * (1.0 - COS_LEAVE)) / R  # phi' at the point, rad/s
    bound = H * np.sin(phi) * rate if energy_consistent else 1e-5
    measured.close("cos(phi) where the particle leaves", cos_leave, COS_LEAVE, rtol=0.0, atol=bound, reference="(V0^2 / (g R) + 2) / 3")  # fmt: skip
    after = result.t > opened[0]
    assert np.all(result["bead_state"][after] == "open")
    assert np.all(result["bead_normal_force"][after] == 0.0)
    assert np.all(result["bead_normal_force"][~after][1:] > 0.0)
    assert result["bead_gap"][-1] > 1e-4  # it flies off: 0.03 s later, clear of the hump
