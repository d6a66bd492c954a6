"""The string of Eugster-Glocker (004), Table 1: every number of the paper typed once, here.

L = 1 m between pinned supports 0.8 m apart (a straight stress-free reference along +x from the
origin, the right end moved to (0.8, 0)), line density rho0 A = 0.3142 kg/m, neo-Hookean law with
k = 853.75 N (004 eq. 17), Coulomb coefficient mu = 0.2 of the disk contact, and the two disks of
the examples (radius, areal density, number of candidate contact points).
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np

from ..elements.string import NeoHookean, StraightReference, StringSpec, Support
from ..scenario import Scenario

LENGTH = 1.0  # m, unstretched length
SPAN = 0.8  # m, distance of the supports
LINE_DENSITY = 0.3142  # kg/m, rho0 A
STIFFNESS = 853.75  # N, k of the neo-Hookean law
FRICTION = 0.2  # Coulomb coefficient of the disk contact
RELEASE_GAP = 0.01  # m, example 1: the disk's bottom above the static string's lowest point
START_S = 0.3  # m, example 2: material point under the disk at t = 0
THETA = 0.55  # Moreau-Jean's theta of the disk runs
PENETRATION_TOLERANCE = 1e-5  # m, the disk runs' sub-stepping at contact closures
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


@lru_cache(maxsize=8)
def hanging_string(n_elements: int = 2) -> np.ndarray:
    """Full coordinates (n_dofs,) of the string of Table 1 in its static shape under its own
    weight (Newton with load and support stepping, ``elements.string_statics``)."""
    from ..elements.string import assemble_string
    from ..elements.string_statics import string_static_shape

    q = string_static_shape(assemble_string(table1_string(n_elements))).q
    q.flags.writeable = False
    return q


def disk_on_string(
    example: int = 1,
    n_elements: int = 2,
    friction: float = FRICTION,
    stiffness_damping: float = 0.0,
    n_contact_points: int | None = None,
) -> Scenario:
    """004's example 1 or 2 (sec. 5) as a Scenario: the disk (a ``floating_body``, q =
    (x, y, angle)) and the string of Table 1 with the candidate grid of 004 eqs. 20-25
    (``n_contact_points`` equidistant material points, default the example's ncp), contact
    "disk" with ``Unilateral(friction)`` and restitution 0.

    Initial state (the paper gives none; its Figs. 6-7 are missing from our copy): the string
    at rest in its static shape under its own weight (``hanging_string``). Example 1: the heavy
    disk at rest, its lowest point ``RELEASE_GAP`` above the string's middle (s = L/2, also the
    lowest point of the symmetric static string): a symmetric drop. Example 2: the light disk at
    rest touching the string at s = ``START_S`` (its centre on the string's normal there): it
    rolls towards the middle and back. Disk angle 0. ``stiffness_damping`` (beta in s, damping
    beta K_t(q) of the string; not in 004) lets example 1 come to rest. Run: Moreau-Jean with
    ``THETA``, sub-stepping to ``PENETRATION_TOLERANCE``, the example's t_end and h (``DISKS``).
    """
    from ..elements.string import string_points_at
    from ..laws import Unilateral
    from ..model import ContactPair, Model
    from ..multibody.builders import floating_body
    from ..sides import Circle
    from ..system import assemble

    radius, mass, inertia = disk_of_example(example)
    ncp = DISKS[example][2] if n_contact_points is None else n_contact_points
    spec = replace(table1_string(n_elements), stiffness_damping=stiffness_damping)
    model = Model(
        tree=floating_body(mass, inertia),
        structures={"string": spec},
        contacts=(
            ContactPair(
                "disk",
                Circle(2, radius),
                "string",
                Unilateral(friction),
                search="grid",
                n_candidates=ncp,
            ),
        ),
    )
    system = assemble(model)
    string = system.structures["string"].string
    q_static = hanging_string(n_elements)
    if example == 1:
        lowest = string_points_at(string, q_static, [0.5 * LENGTH]).position[:, 0]
        centre = lowest + np.array([0.0, radius + RELEASE_GAP])
    else:
        point = string_points_at(string, q_static, [START_S])
        centre = point.position[:, 0] + radius * point.normal[:, 0]
    q0, u0 = system.initial_state([centre[0], centre[1], 0.0])
    q0[system.layout.structure("string")] = q_static[string.free_dofs]
    t_end, h = DISKS[example][3:]
    settings = {"h": h, "theta": THETA, "penetration_tolerance": PENETRATION_TOLERANCE}
    return Scenario(f"disk-on-string-{example}", model, q0, u0, (0.0, t_end), "moreau", settings)


def dropped_disk(
    n_elements: int,
    drop: float = 0.02,
    axial_stiffness: float = 853.75,
    bending_stiffness: float = 1e-4,
    stiffness_damping: float = 0.1,
    friction: float = FRICTION,
    n_contact_points: int = 101,
) -> Scenario:
    """Example 1's heavy disk dropped onto a stiffer, damped variant of the
    string of Table 1, where many contacts close at once (our example; Moreau-Jean).

    The string has the linear law T = EA (nu - 1) with EA = ``axial_stiffness`` N (instead of
    the neo-Hookean law), bending stiffness EI = ``bending_stiffness`` N m^2, stiffness damping
    beta K_t(q) with beta = ``stiffness_damping`` s and ``n_contact_points`` candidates (004
    eqs. 20-25); it starts at rest in its static shape under its own weight. The disk (R = 0.3
    m, 28.3 kg) starts at rest with its lowest point ``drop`` m above the string's middle;
    contact "disk" with ``Unilateral(friction)``. With the defaults, up to 30-50 contacts close
    at once as the disk comes to rest on the string (docs: the one-step contact problem).
    Run: Moreau-Jean, h = 1e-3 s, theta = ``THETA``, to rest at 1.5 s.
    """
    from ..elements.string import LinearElastic, assemble_string, string_points_at
    from ..elements.string_statics import string_static_shape
    from ..laws import Unilateral
    from ..model import ContactPair, Model
    from ..multibody.builders import floating_body
    from ..sides import Circle
    from ..system import assemble

    spec = replace(
        table1_string(n_elements),
        law=LinearElastic(axial_stiffness),
        bending_stiffness=bending_stiffness,
        stiffness_damping=stiffness_damping,
    )
    radius, mass, inertia = disk_of_example(1)
    contact = ContactPair("disk", Circle(2, radius), "string", Unilateral(friction),
                          search="grid", n_candidates=n_contact_points)  # fmt: skip
    model = Model(tree=floating_body(mass, inertia), structures={"string": spec},
                  contacts=(contact,))  # fmt: skip
    system = assemble(model)
    string = system.structures["string"].string
    q_static = string_static_shape(assemble_string(spec)).q
    lowest = string_points_at(string, q_static, [0.5 * LENGTH]).position[:, 0]
    q0, u0 = system.initial_state([lowest[0], lowest[1] + radius + drop, 0.0])
    q0[system.layout.structure("string")] = q_static[string.free_dofs]
    settings = {"h": 1e-3, "theta": THETA}
    return Scenario("dropped-disk", model, q0, u0, (0.0, 1.5), "moreau", settings)


def disk_on_beam(
    drop: float = 0.01, x0: float = 0.05, speed: float = 0.5, n_elements: int = 10
) -> Scenario:
    """The light disk of 004's example 2 dropped onto the manipulator's
    cantilever (Lipinski (002), sec. 9) and rolling along it (our example; Moreau-Jean).

    The beam starts at rest in its static deflection under its weight; the disk's lowest point
    is ``drop`` m above the deflected beam at x = ``x0`` m, and it moves with ``speed`` m/s along
    +x: it lands within 0.05 s, rolls towards the tip and leaves the beam there (x = 0.4 m)
    after about 0.7 s. Contact: closest point of the deformed beam, Unilateral(mu = 0.2).
    Run: Moreau-Jean (theta 0.5), h = 1e-3 s, 1 s.
    """
    from ..elements.beam import self_weight
    from ..elements.beam_analysis import static_deflection
    from ..elements.beam_points import beam_fields
    from ..laws import Unilateral
    from ..model import ContactPair, Model
    from ..multibody.builders import floating_body
    from ..sides import Circle
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
    w = beam_fields(beam, u_static, [x0]).deflection[0]
    q0, u0 = system.initial_state([x0, w + radius + drop, 0.0], [speed, 0.0, 0.0])
    q0[system.layout.structure("beam")] = u_static[beam.free_dofs]
    return Scenario("disk-on-beam", model, q0, u0, (0.0, 1.0), "moreau", {"h": 1e-3})


__all__ = [
    "DISKS",
    "FRICTION",
    "LENGTH",
    "PENETRATION_TOLERANCE",
    "SPAN",
    "RELEASE_GAP",
    "START_S",
    "THETA",
    "disk_of_example",
    "disk_on_beam",
    "disk_on_string",
    "dropped_disk",
    "hanging_string",
    "table1_string",
]
