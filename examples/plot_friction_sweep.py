"""
A friction sweep
================

The 20 g slider of the getting-started example pushed at 0.5 m/s along the steel strip
cantilever, for four friction coefficients: each model is a ``dataclasses.replace`` of the
first. (On the command line: ``fe-contact sweep examples/slider.toml --vary
contacts.slider.mu=0.1:0.4:4``; on a cluster add ``--scheduler tcp://HOST:8786``.)

Checked: a block sliding on a rigid floor stops after v^2 / (2 mu g); the strip bends and
rings under the slider, so its normal force is m g only on average.
"""

import dataclasses

import matplotlib.pyplot as plt
import numpy as np

from fe_contact import (
    BeamSpec,
    Body,
    ContactPair,
    Joint,
    Model,
    Point,
    Sliding,
    TreeModel,
    assemble,
    simulate,
)

v0, g = 0.5, 9.81
strip = BeamSpec(
    length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
)
slider = TreeModel(
    bodies=(Body(0.0, 0.0), Body(0.02, 0.0)),
    joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
)
base = Model(
    tree=slider,
    structures={"strip": strip},
    contacts=(ContactPair("slider", Point(body=1), "strip", Sliding(mu=0.1)),),
    structure_gravity=False,
)

mus = [0.1, 0.2, 0.3, 0.4]
distances = []
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
for mu in mus:
    contact = dataclasses.replace(base.contacts[0], law=Sliding(mu=mu))
    system = assemble(dataclasses.replace(base, contacts=(contact,)))
    q0, u0 = system.initial_state(q_tree=[0.05, 0.0], u_tree=[v0, 0.0])
    result = simulate(system, (0.0, 0.6), (q0, u0), h=1e-3)
    distances.append(result.q[-1, 0] - 0.05)
    ax1.plot(result.t, result.q[:, 0], label=f"mu = {mu}")

rigid = np.array([v0**2 / (2 * mu * g) for mu in mus])
for mu, d, d0 in zip(mus, distances, rigid, strict=True):
    print(f"mu = {mu}: slid {d:.4f} m, rigid floor {d0:.4f} m ({d / d0 - 1:+.1%})")
# Tolerance: the strip's ringing modulates the normal force about m g; 5 % covers it.
assert np.all(np.abs(np.asarray(distances) / rigid - 1.0) < 0.05)

ax1.set_xlabel("t [s]")
ax1.set_ylabel("slider x [m]")
ax1.legend()
ax2.plot(mus, distances, "o-", label="fe_contact")
ax2.plot(mus, rigid, "k--", label="v^2 / (2 mu g)")
ax2.set_xlabel("mu")
ax2.set_ylabel("distance slid [m]")
ax2.legend()
plt.show()
