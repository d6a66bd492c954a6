"""Bauchau's locking mechanism (000, sec. 7.2): data and model.

From the paper: a cantilever of L = 2.4 m, property set 1 of Table 1 (bending stiffness
23.0 kN m^2, 1.6 kg/m), 8 cubic elements; a 40 kg body at its tip; a 4 kg body at mid-span
whose outer shape is the Bezier curve of Table 4; the cam: a 4 kg body with the Bezier profile
of Table 5 at the tip of a 0.3 m support pinned at its base, turned by the prescribed angle
Phi(t) = 30 deg (1 + cos(pi t)) for t <= 1 s, then held at 0; Hertz contact c1 = 20 GPa m^0.5;
case 0 no friction, case 1 the continuous law (000 eq. 10) with mu_k = 0.3, v0 = 2.5 mm/s,
case 2 case 1 with rolling (mu_s = 0.3) when |v_t| < v0 / 2. Case 3 (ours): the contact hard
(a unilateral constraint) with Coulomb friction mu = 0.3.

Where the paper is silent (fig. 11, the drawing of the mechanism, is missing), chosen here:

* the cantilever lies along +x from the clamp at the origin; no gravity (the paper states
  none and its tip-mass beam would sag 7.9 cm under it); no structural damping;
* the beam is Lipinski's linear Euler-Bernoulli beam (transverse deflection only) with the
  bending stiffness and mass per length of set 1 (axial and shear stiffness, rotary inertia
  of the section are not modelled);
* the cam's support (0.3 m, bending stiffness 0.3 MN m^2 of set 2, 1.6 kg/m) is a bar on a
  driven revolute joint at the pin, carrying the cam through two joint springs that lump its
  bending flexibility: a lateral slide of stiffness 3 EI / l^3 = 33 MN/m and a rotation of
  stiffness EI / l = 1 MN m/rad at its tip (the tip compliances of a cantilever under a force
  alone and under a moment alone; their coupling is left out). These tree coordinates also
  give the partitioned stepper the dependent coordinates that the rolling and hard-contact
  rows need. ``Geometry.support = "rigid"`` makes the cam part of the bar instead (cases 0 and
  1 only); the support's tip stiffness is 830 times the mid-span stiffness of the cantilever
  (about 40 kN/m), so either way the thrust changes by about 0.1 %;
* the support's axis is at Phi + 90 deg (vertical at Phi = 0), so the cam swings clockwise
  from 60 deg left of vertical; the Table 5 profile sits at the support's tip (its local x
  along the support), nose 0.356 m from the pin;
* the pin is ``pin_offset`` = 0.2 m left of the mid-span and the cam's nose, when vertical,
  reaches ``interference`` = 30 mm into the undeformed Table 4 profile (whose lowest point is
  87.5 mm below the beam's axis); the final contact then lies on the flank of the mid-span
  body, where friction and rolling matter;
* rotary inertias (not given): the bodies' bounding boxes as uniform plates, J = m (w^2 +
  h^2) / 12: 0.27 kg m^2 for the mid-span body (0.85 m x 0.29 m), 0.021 kg m^2 for the cam
  (0.15 m x 0.2 m); the tip body a point mass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..curves import Curve
from ..elements.beam_model import BeamSpec
from ..laws import Compliant, Unilateral
from ..model import ContactPair, Model
from ..multibody.drive import Drive
from ..multibody.joints import Joint
from ..multibody.tree import Body, TreeModel
from ..scenario import Scenario
from ..sides import CarriedBody, Profile
from ..system import assemble

LENGTH = 2.4  # m, the cantilever
BENDING_STIFFNESS = 23.0e3  # N m^2, Table 1 set 1
MASS_PER_LENGTH = 1.6  # kg/m, Table 1 (both sets)
N_ELEMENTS = 8
TIP_MASS = 40.0  # kg
BODY_MASS = 4.0  # kg, the mid-span body
CAM_MASS = 4.0  # kg
SUPPORT_LENGTH = 0.3  # m
SUPPORT_BENDING_STIFFNESS = 0.3e6  # N m^2, Table 1 set 2
HERTZ_C1 = 20.0e9  # N/m^1.5
MU_K, MU_S, V0 = 0.3, 0.3, 2.5e-3
TABLE_4 = ((-0.1, 0.2), (-1.0, 0.0), (0.0, -0.3), (1.0, 0.0), (0.1, 0.2))
TABLE_5 = ((-0.025, -0.025), (0.025, -0.1), (0.125, 0.0), (0.025, 0.1), (-0.025, 0.025))
PAPER_TORQUE = -1.0e3  # N m, the case-0 driving torque after 1 s (000 sec. 7.2, fig. 13)
CASES = {
    0: "no friction",
    1: "continuous law mu_k = 0.3, v0 = 2.5 mm/s",
    2: "case 1 with rolling, mu_s = 0.3",
    3: "hard contact, Coulomb mu = 0.3 (ours)",
}


@dataclass(frozen=True)
class Geometry:
    """The choices where 000 is silent (module docstring), in m and kg m^2."""

    pin_offset: float = 0.2
    interference: float = 0.03
    body_inertia: float = 0.27
    cam_inertia: float = 0.021
    support: str = "lumped"


def cam_angle(t: float) -> float:
    """Phi(t) = pi/6 (1 + cos(pi t)) for t <= 1 s, then 0 (rad)."""
    return math.pi / 6.0 * (1.0 + math.cos(math.pi * t)) if t <= 1.0 else 0.0


def cam_rate(t: float) -> float:
    return -(math.pi**2) / 6.0 * math.sin(math.pi * t) if t <= 1.0 else 0.0


def cam_acceleration(t: float) -> float:
    return -(math.pi**3) / 6.0 * math.cos(math.pi * t) if t <= 1.0 else 0.0


def skid_curve() -> Curve:
    return Curve.bezier(TABLE_4)


def cam_curve() -> Curve:
    """Table 5 moved to the support's tip (local x along the support)."""
    return Curve.bezier(np.asarray(TABLE_5) + (SUPPORT_LENGTH, 0.0))


def pin(geometry: Geometry) -> tuple[float, float]:
    """Where the cam's support is pinned: ``pin_offset`` left of mid-span, and as low as
    makes the vertical cam's nose reach ``interference`` into the undeformed skid."""
    skid = skid_curve()
    x = -geometry.pin_offset  # skid's local x below which the nose ends up
    etas = np.linspace(0.25, 0.75, 20001)  # the skid's lower flank, scanned in one call
    eta = etas[np.argmin(np.abs(skid.position(etas)[:, 0] - x))]  # the first of equal ones
    bottom = float(skid.position(eta)[1])
    nose = float(cam_curve().position(0.5)[0])
    return 0.5 * LENGTH - geometry.pin_offset, bottom + geometry.interference - nose


def law(case: int):
    """The contact law of ``case`` (module docstring)."""
    if case == 0:
        return Compliant("hertz", HERTZ_C1)
    if case == 1:
        return Compliant("hertz", HERTZ_C1, mu=MU_K, v0=V0)
    if case == 2:
        return Compliant("hertz", HERTZ_C1, mu=MU_K, mu_s=MU_S, v0=V0, rolling=True)
    if case == 3:
        return Unilateral(mu=MU_K)
    raise ValueError(f"case: got {case!r}; allowed: one of {sorted(CASES)}")


T_END = 2.0  # s, the run of 000 fig. 13
H = 1e-4  # s, the output step (the stepper halves it up to 6 times at the contact's closure)


def cam_lock(case: int, geometry: Geometry = Geometry(), t0: float = 0.0) -> Scenario:
    """The locking mechanism of 000 sec. 7.2 for ``case`` (0-3) as a Scenario.

    Start at ``t0`` (s): the cam at Phi(t0), Phi'(t0), every other coordinate 0 at rest (the
    beam undeformed; the cam is clear of the skid until about 0.64 s). Run: generalised-alpha,
    h = ``H``, at most 6 step halvings, to ``T_END``."""
    model = cam_lock_model(case, geometry)
    n = len(model.tree.joints)
    q0, u0 = assemble(model).initial_state(
        [cam_angle(t0)] + [0.0] * (n - 1), [cam_rate(t0)] + [0.0] * (n - 1)
    )
    settings = {"h": H, "max_halvings": 6}
    return Scenario(f"cam-lock-{case}", model, q0, u0, (t0, T_END), "generalized-alpha", settings)


def cam_lock_model(case: int, geometry: Geometry) -> Model:
    """The Model of the locking mechanism for ``case`` (0-3) (``cam_lock`` starts it)."""
    spec = BeamSpec(
        length=LENGTH,
        youngs_modulus=BENDING_STIFFNESS / 1e-6,
        second_moment=1e-6,
        area=1e-3,
        density=MASS_PER_LENGTH / 1e-3,
        n_elements=N_ELEMENTS,
    )
    carried = (
        CarriedBody("tip", "beam", LENGTH, TIP_MASS),
        CarriedBody("body", "beam", 0.5 * LENGTH, BODY_MASS, geometry.body_inertia),
    )
    support = MASS_PER_LENGTH * SUPPORT_LENGTH
    joint = Joint("revolute", None, location=pin(geometry), angle=0.5 * math.pi)
    cam = cam_curve()
    if geometry.support == "rigid":
        mass = CAM_MASS + support
        com = (CAM_MASS * SUPPORT_LENGTH + support * 0.5 * SUPPORT_LENGTH) / mass
        inertia = (
            geometry.cam_inertia
            + CAM_MASS * (SUPPORT_LENGTH - com) ** 2
            + support * SUPPORT_LENGTH**2 / 12.0
            + support * (0.5 * SUPPORT_LENGTH - com) ** 2
        )
        tree = TreeModel((Body(mass, inertia, (com, 0.0)),), (joint,), gravity=(0.0, 0.0))
        cam_body = 0
    else:
        ei = SUPPORT_BENDING_STIFFNESS
        bar = Body(support, support * SUPPORT_LENGTH**2 / 12.0, (0.5 * SUPPORT_LENGTH, 0.0))
        bodies = (bar, Body(0.0, 0.0), Body(CAM_MASS, geometry.cam_inertia))
        joints = (
            joint,
            Joint(
                "prismatic",
                0,
                location=(SUPPORT_LENGTH, 0.0),
                angle=0.5 * math.pi,
                stiffness=3.0 * ei / SUPPORT_LENGTH**3,
            ),
            Joint("revolute", 1, angle=-0.5 * math.pi, stiffness=ei / SUPPORT_LENGTH),
        )
        tree = TreeModel(bodies, joints, gravity=(0.0, 0.0))
        cam = Curve.bezier(TABLE_5)
        cam_body = 2
    drive = Drive(0, cam_angle, cam_rate, cam_acceleration)
    pair = ContactPair("cam", Profile(cam_body, cam), Profile("body", skid_curve()), law(case))
    return Model(
        tree=tree,
        structures={"beam": spec},
        contacts=(pair,),
        drives=(drive,),
        gravity=(0.0, 0.0),
        structure_gravity=False,
        carried=carried,
    )


__all__ = [
    "CASES",
    "Geometry",
    "H",
    "PAPER_TORQUE",
    "T_END",
    "cam_angle",
    "cam_lock",
    "cam_lock_model",
    "pin",
]
