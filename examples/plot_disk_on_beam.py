"""
A disk on a beam
================

A 10 g disk of radius 2 cm falls 5 mm onto a steel strip cantilever (Lipinski (002), sec. 9)
with a forward speed, lands without bouncing (Newton's law, e_N = 0), rolls along the strip
and leaves it at its free end. Unilateral contact with Coulomb friction as set-valued laws,
Moreau-Jean time stepping (Eugster-Glocker (004), secs. 4.4-5).

Checked: the disk flies freely until it lands, at t = sqrt(2 d / g) (the strip is weightless
here, so it is straight and at rest until then).
"""

import matplotlib.pyplot as plt
import numpy as np

from fe_contact import (
    BeamSpec,
    Circle,
    ContactPair,
    Model,
    Unilateral,
    assemble,
    floating_body,
    simulate,
)

radius, mass = 0.02, 0.01
strip = BeamSpec(
    length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
)
model = Model(
    tree=floating_body(mass, 0.5 * mass * radius**2),  # q = (x, y, phi), the disk is body 2
    structures={"strip": strip},
    contacts=(ContactPair("disk", Circle(2, radius), "strip", Unilateral(mu=0.3)),),
    structure_gravity=False,  # a weightless strip stays straight until the disk lands
)
system = assemble(model)
drop, h = 0.005, 1e-3
q0, u0 = system.initial_state(q_tree=[0.05, radius + drop, 0.0], u_tree=[0.5, 0.0, 0.0])
result = simulate(system, (0.0, 0.8), (q0, u0), method="moreau", h=h)

t_land = np.sqrt(2.0 * drop / 9.81)
t_first = result.t[np.argmax(result["disk_n_closed"] > 0)]
print(f"{result.status}; lands at {t_first:.4f} s, free fall gives {t_land:.4f} s")
# Tolerance: Moreau-Jean closes a contact at the end of the step in which it is reached.
assert abs(t_first - t_land) <= 2 * h

fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(6, 6), layout="constrained")
ax1.plot(result.q[:, 0], result.q[:, 1] - radius, label="lowest point of the disk")
ax1.axhline(0.0, color="k", lw=0.8, label="undeformed strip")
ax1.set_xlabel("x [m]")
ax1.set_ylabel("y [m]")
ax1.legend()
ax2.plot(result.t, result["disk_normal_impulse"] / h, label="normal force (impulse / h)")
ax2.plot(result.t, result["disk_friction_impulse"] / h, label="friction force (impulse / h)")
ax2.set_xlabel("t [s]")
ax2.set_ylabel("force [N]")
ax2.legend()
plt.show()
