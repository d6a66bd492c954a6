"""
Two beams touching
==================

Two steel strip cantilevers overlap: beam ``a`` (0.3 m, clamped at the left) carries a small
curved pad under its tip that rests on beam ``b`` (0.3 m, clamped at the right, pointing
left). A 1 N load on the tip of ``a`` presses the pad onto ``b``. The pad is a Bezier
profile (Bauchau (000), sec. 2.2) on a body clamped to ``a``'s tip (``CarriedBody``);
contact with ``b``'s deformed centre line is found by closest-point projection.

Checked: the static contact force against the two cantilevers in series. With the load P at
the tip of ``a`` (length L) and the contact at distance a from ``b``'s clamp, the deflections
(P - F) L^3 / (3 EI) and F a^3 / (3 EI) are equal: F = P L^3 / (L^3 + a^3).
"""

import matplotlib.pyplot as plt
import numpy as np

from fe_contact import (
    BeamSpec,
    ContactPair,
    Model,
    PointLoad,
    Unilateral,
    assemble,
    simulate,
    static_equilibrium,
)
from fe_contact.curves import Curve
from fe_contact.model import CarriedBody, Profile

L, a, P, pad = 0.3, 0.2, 1.0, 0.01  # m, m, N, m (the pad's depth under the tip)
strip = dict(n_elements=8, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015)
beam_a = BeamSpec(length=L, origin=(0.0, pad), **strip)
beam_b = BeamSpec(length=L, origin=(L + a, 0.0), angle=np.pi, **strip)
# The pad, drawn counter-clockwise around its body (left to right along its bottom), so
# that its normal points down, out of the body; its lowest point is `pad` below the tip.
curve = Curve.bezier([(-0.01, -0.8 * pad), (0.0, -1.2 * pad), (0.01, -0.8 * pad)])
model = Model(
    structures={"a": beam_a, "b": beam_b},
    carried=(CarriedBody("pad", "a", L, mass=1e-3),),
    # b points along -x, so its normal (tangent turned +90 degrees) points down: side -1.
    contacts=(ContactPair("pad", Profile("pad", curve), "b", Unilateral(), side=-1),),
    loads=(PointLoad("a", L, (0.0, -P)),),
    gravity=(0.0, 0.0),
)
system = assemble(model)
rest = static_equilibrium(system)
force = rest.normal_force["pad"]
closed_form = P * L**3 / (L**3 + a**3)
print(f"contact force {force:.5f} N, cantilevers in series {closed_form:.5f} N")
# Tolerance: the pad turns with a's slope (about 0.02 rad), which moves the contact point on
# b by pad * slope ~ 2e-4 m, changing b's compliance at it by about 3 * 2e-4 / a = 0.3 %.
assert abs(force - closed_form) < 1e-2 * closed_form

# The load applied suddenly to the unloaded pair: the contact force swings about the static.
q0, u0 = system.initial_state()
result = simulate(system, (0.0, 0.05), (q0, u0), method="moreau", h=1e-4)
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.plot(result.t, result["pad_normal_impulse"] / 1e-4, label="normal force (impulse / h)")
ax.axhline(closed_form, color="k", ls=":", label="static, closed form")
ax.set_xlabel("t [s]")
ax.set_ylabel("force [N]")
ax.legend()
plt.show()
