"""The string of Eugster-Glocker (004), Table 1: every number of the paper typed once, here.

L = 1 m between pinned supports 0.8 m apart (a straight stress-free reference along +x from the
origin, the right end moved to (0.8, 0)), line density rho0 A = 0.3142 kg/m, neo-Hookean law with
k = 853.75 N (004 eq. 17), Coulomb coefficient mu = 0.2 of the disk contact, and the two disks of
the examples (radius, areal density, number of candidate contact points).
"""

from __future__ import annotations

import math

from ..elements.string import NeoHookean, StraightReference, StringSpec, Support

LENGTH = 1.0  # m, unstretched length
SPAN = 0.8  # m, distance of the supports
LINE_DENSITY = 0.3142  # kg/m, rho0 A
STIFFNESS = 853.75  # N, k of the neo-Hookean law
FRICTION = 0.2  # Coulomb coefficient of the disk contact
# example: (radius m, areal density kg/m^2, candidate points, default t_end s, default h s)
DISKS = {
    1: (0.3, 100.0, 20, 2.0, 1e-3),
    2: (0.1, 0.1, 60, 2.0, 1e-3),
}


def table1_string(n_elements: int = 2) -> StringSpec:
    """The string of 004 Table 1: straight stress-free reference, ends pinned 0.8 m apart."""
    return StringSpec(
        length=LENGTH,
        n_elements=n_elements,
        density=LINE_DENSITY,
        law=NeoHookean(k=STIFFNESS),
        reference=StraightReference((0.0, 0.0), (LENGTH, 0.0)),
        supports=(Support(0.0, "pinned"), Support(LENGTH, "pinned", position=(SPAN, 0.0))),
    )


def disk_of_example(example: int):
    """(radius m, mass kg, polar moment kg m^2) of the disk of 004's example 1 or 2
    (homogeneous, m = rho pi R^2, J = m R^2 / 2, 004 eq. 14)."""
    if example not in DISKS:
        raise ValueError(f"example = {example!r}; allowed: {sorted(DISKS)}")
    radius, density = DISKS[example][:2]
    mass = density * math.pi * radius**2
    return radius, mass, 0.5 * mass * radius**2


def disk_on_beam(drop: float = 0.01, x0: float = 0.05, speed: float = 0.5, n_elements: int = 10):
    """(Model, q0, u0): the light disk of 004's example 2 dropped onto the manipulator's
    cantilever (Lipinski (002), sec. 9) and rolling along it (our example; Moreau-Jean).

    The beam starts at rest in its static deflection under its weight; the disk's lowest point
    is ``drop`` m above the deflected beam at x = ``x0`` m, and it moves with ``speed`` m/s along
    +x: it lands within 0.05 s, rolls towards the tip and leaves the beam there (x = 0.4 m)
    after about 0.7 s. Contact: closest point of the deformed beam, Unilateral(mu = 0.2).
    """
    from ..elements.beam import evaluate, self_weight, static_deflection
    from ..model import Circle, ContactPair, Model, Unilateral
    from ..multibody.builders import floating_body
    from ..system import assemble
    from .lipinski import cantilever_strip

    radius, mass, inertia = disk_of_example(2)
    model = Model(
        tree=floating_body(mass, inertia),
        structures={"beam": cantilever_strip(n_elements)},
        contacts=(ContactPair("disk", Circle(2, radius), "beam", Unilateral(FRICTION)),),
    )
    system = assemble(model)
    beam = system.structures["beam"].beam
    u_static = static_deflection(beam, self_weight(beam, model.gravity))
    w = evaluate(beam, u_static, [x0]).deflection[0]
    q0, u0 = system.initial_state([x0, w + radius + drop, 0.0], [speed, 0.0, 0.0])
    q0[system.layout.structure("beam")] = u_static[beam.free_dofs]
    return model, q0, u0


__all__ = [
    "DISKS",
    "FRICTION",
    "LENGTH",
    "SPAN",
    "disk_of_example",
    "disk_on_beam",
    "table1_string",
]
