"""
A pendulum hitting a cantilever
===============================

A 50 g point pendulum of length 0.2 m, pivoted 0.15 m above a steel strip cantilever, is
released horizontally; its bob hits the strip's upper side at 48.6 degrees below the
horizontal, bends the light strip down by about 4 cm while it bounces on it many times
(Newton's impact law, e_N = 0.5, at every impact as the strip rings) and is thrown back up.
Unilateral contact, Moreau-Jean stepping.

Checked: the bob flies freely until the first impact, at the time the free pendulum takes to
fall from the horizontal to the angle a with sin(a) = 0.15 / 0.2, by energy conservation
t = sqrt(l / (2 g)) * integral from 0 to a of d(phi) / sqrt(sin(phi)) (scipy's quad).
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.integrate import quad

from fe_contact import (
    BeamSpec,
    Body,
    ContactPair,
    Joint,
    Model,
    Point,
    TreeModel,
    Unilateral,
    assemble,
    simulate,
)

length, mass, height = 0.2, 0.05, 0.15  # m, kg, m (pivot above the strip)
pendulum = TreeModel(  # pivot at (0.2, 0.15) m; q = 0: the rod points along +x
    bodies=(Body(mass, 0.0, centre_of_mass=(length, 0.0)),),
    joints=(Joint("revolute", location=(0.2, height)),),
)
strip = BeamSpec(
    length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
)
model = Model(
    tree=pendulum,
    structures={"strip": strip},
    contacts=(
        ContactPair("bob", Point(0, (length, 0.0)), "strip", Unilateral(restitution_normal=0.5)),
    ),
    structure_gravity=False,  # the strip straight at rest until the bob hits it
)
system = assemble(model)
h = 2e-4
result = simulate(system, (0.0, 0.5), system.initial_state(), method="moreau", h=h)

angle = np.arcsin(height / length)
fall = np.sqrt(length / (2 * 9.81)) * quad(lambda phi: 1 / np.sqrt(np.sin(phi)), 0, angle)[0]
t_hit = result.t[np.argmax(result["bob_normal_impulse"] > 0)]
print(f"{result.status}; first impact at {t_hit:.4f} s, free pendulum {fall:.4f} s")
# Tolerance: the impact is found at the end of its step; two steps of margin.
assert abs(t_hit - fall) <= 2 * h

fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(6, 6), sharex=True, layout="constrained")
ax1.plot(result.t, np.degrees(result.q[:, 0]))
ax1.axvline(fall, color="k", ls=":", label="free pendulum reaches the strip")
ax1.set_ylabel("pendulum angle [deg]")
ax1.legend()
ax2.plot(result.t, result["bob_normal_impulse"], label="normal impulse")
ax2.set_xlabel("t [s]")
ax2.set_ylabel("impulse per step [N s]")
ax2.legend()
plt.show()
