"""A trolley sliding with friction on the hanging string of Eugster-Glocker (004), Table 1.

A model the single-beam design could not express: a tree body (a point mass m on a prismatic-x /
prismatic-y pair, q = (x, y)) whose point slides bilaterally on an absolute-nodal string with
Coulomb friction proportional to the contact force (Lipinski (002), secs. 4-7, on the string's
deformed curve by closest-point projection). The string is 004's (L = 1 m, supports 0.8 m
apart, neo-Hookean k = 853.75 N, rho0 A = 0.3142 kg/m).

Start (our choice): the string in static equilibrium under its weight and the trolley's weight
at the material point ``s0`` (the trolley held there), the trolley then released with the speed
``speed`` down the slope. It runs towards the lowest point and oscillates about it; the string,
light compared with the trolley and undamped, vibrates under it. With friction the slip velocity
passes through zero at each turning point: there the contact sticks when the static friction
holds it, else it slips back (a reversal), both located in time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validation as check
from ..elements.string import assemble_string, gravity_force, point_load, string_points_at
from ..elements.string_statics import string_static_shape
from ..laws import Sliding
from ..model import ContactPair, Model
from ..multibody.joints import Joint
from ..multibody.tree import Body, TreeModel
from ..scenario import Scenario
from ..sides import Point
from ..system import assemble
from .eugster_glocker import table1_string


@dataclass(frozen=True)
class Trolley:
    """Data of the slider-on-string example (SI): trolley mass, friction coefficient, string
    elements, release point s0 (m along the string) and release speed (m/s, downhill)."""

    mass: float = 1.0
    mu: float = 0.05
    n_elements: int = 8
    s0: float = 0.3
    speed: float = 0.3

    def __post_init__(self):
        check.real("Trolley.mass", self.mass, low=0.0, low_open=True, unit="kg")
        check.real("Trolley.mu", self.mu, low=0.0, meaning="a friction coefficient")
        check.positive_int("Trolley.n_elements", self.n_elements)
        check.real(
            "Trolley.s0", self.s0, low=0.0, high=1.0, low_open=True, high_open=True, unit="m"
        )
        check.real("Trolley.speed", self.speed, unit="m/s")


def trolley_tree(mass: float) -> TreeModel:
    """Point mass on prismatic x (massless carrier) then prismatic y: q = (x, y) in m."""
    return TreeModel(
        bodies=(Body(0.0, 0.0), Body(mass, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )


def slider_on_string(data: Trolley | None = None) -> Scenario:
    """The example (see the module docstring) as a Scenario; default data Trolley(). Run:
    generalised-alpha without numerical damping (rho_inf = 1), h = 1e-3 s, 2 s."""
    data = Trolley() if data is None else data
    spec = table1_string(data.n_elements)
    model = Model(
        tree=trolley_tree(data.mass),
        structures={"string": spec},
        contacts=(ContactPair("trolley", Point(1), "string", Sliding(data.mu)),),
    )
    string = assemble_string(spec)
    g = np.asarray(model.gravity)
    q_sag = string_static_shape(string).q
    load = gravity_force(string) + point_load(string, data.s0, data.mass * g)
    q_static = string_static_shape(string, load, q0=q_sag).q
    at = string_points_at(string, q_static, [data.s0])
    system = assemble(model)
    q0, u0 = system.initial_state(at.position[:, 0], data.speed * at.tangent[:, 0])
    q0[system.layout.structure("string")] = q_static[string.free_dofs]
    settings = {"h": 1e-3, "rho_inf": 1.0}
    return Scenario("slider-on-string", model, q0, u0, (0.0, 2.0), "generalized-alpha", settings)


__all__ = ["Trolley", "slider_on_string", "trolley_tree"]
