"""The string of Eugster-Glocker (004), Table 1: every number of the paper typed once, here.

L = 1 m between pinned supports 0.8 m apart (a straight stress-free reference along +x from the
origin, the right end moved to (0.8, 0)), line density rho0 A = 0.3142 kg/m, neo-Hookean law with
k = 853.75 N (004 eq. 17), Coulomb coefficient mu = 0.2 of the disk contact, and the two disks of
the examples (radius, areal density, number of candidate contact points).
"""

from __future__ import annotations

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


__all__ = ["DISKS", "FRICTION", "LENGTH", "SPAN", "table1_string"]
