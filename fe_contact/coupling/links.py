"""Kinematics of a link (``laws.Dropper``) between two points, in the vocabulary of a contact.

A link pair ``ContactPair(name, a, b, Dropper(...))`` joins the point a (a material point of a
structure, ``structure_points.MaterialPoint``, or a body ``Point``) to the material point b of a
structure. With d = r_b - r_a, its length l = |d| and the unit e = d / l from a to b, the link
is written as a compliant contact whose approach is the stretch l - l0:

* gap g = l0 - l (negative while stretched), normal velocity g' = W_N u = -l';
* W_N = e . (J_a - J_b), the rows J of the two points' positions over the system's velocities
  (a material point's rows are the shape functions, constant: r = r_0 + N q on the linear beam
  and the absolute-nodal string alike);
* normal = e: a tension T >= 0 is the force T e on a (along the normal, as a contact's
  normal force on its profile) and -T e on b; its generalised force W_N^T T is minus the
  gradient of the link's energy k (l - l0)^2 / 2;
* remainder A with g'' = W_N u' + A: A = e . A_a - (|d'|^2 - (e . d')^2) / l, with the
  acceleration remainder A_a of a body point a (zero on a structure) and the rotation of e;
* no tangential row (W_T = 0, slip velocity 0): a link has no friction.

The tangent of the force that the stepper adds to its iteration matrix is k W_N W_N^T while
taut (``compliant_force``); the geometric part T (I - e e^T) / l of the turning link is left
out of it (it is T / l ~ 1e3 N/m beside k ~ 1e5 N/m for a dropper, and only slows Newton).
"""

from __future__ import annotations

import numpy as np

from ..multibody.tree import point_kinematics
from ..structure_points import MaterialPoint
from .kinematics import ContactKinematics


def material_point(system, side: MaterialPoint, q, u):
    """(position (2,), velocity (2,), rows (2, n), s, element) of the MaterialPoint ``side`` at
    (q, u): r = r_0 + rows q, so its velocity is rows u and its acceleration remainder zero."""
    lay = system.layout
    rows = np.zeros((2, lay.n))
    sl = lay.structure(side.structure)
    cp = system.structures[side.structure].curve(side.s, q[sl])
    for i in range(2):
        np.add.at(rows[i], sl.start + cp.dofs, cp.rows[i])
    return cp.position, rows @ u, rows, cp.s, cp.element


def link_kinematics(system, k: int, q, u) -> ContactKinematics:
    """The ContactKinematics of link pair k of the model at (q, u) (module docstring).

    Examples
    --------
    Two horizontal wires 1 m apart joined at mid-span by a 0.99 m dropper: stretched by 1 cm,
    the gap is -0.01 m and the normal points from the lower clamp up to the upper:

    >>> from fe_contact import BeamSpec, ContactPair, Model, assemble
    >>> from fe_contact.laws import Dropper
    >>> from fe_contact.structure_points import MaterialPoint
    >>> from fe_contact.coupling.links import link_kinematics
    >>> wire = dict(length=2.0, n_elements=4, youngs_modulus=1.0, density=1.0, area=1.0,
    ...             second_moment=1.0, left="pinned", right="pinned")
    >>> model = Model(structures={"low": BeamSpec(**wire), "up": BeamSpec(**wire, origin=(0, 1))},
    ...               contacts=(ContactPair("d", MaterialPoint("low", 1.0), MaterialPoint("up", 1.0),
    ...                                     Dropper(stiffness=1e5, length=0.99)),))
    >>> system = assemble(model)
    >>> kin = link_kinematics(system, 0, *system.initial_state())
    >>> round(kin.gap, 12), kin.normal.tolist()
    (-0.01, [0.0, 1.0])
    """
    pair = system.model.contacts[k]
    lay = system.layout
    q = np.asarray(q, dtype=float)
    u = np.asarray(u, dtype=float)
    if isinstance(pair.profile, MaterialPoint):
        r_a, v_a, rows_a, _, _ = material_point(system, pair.profile, q, u)
        rem_a = np.zeros(2)
    else:
        kin = point_kinematics(
            system.tree, q[lay.tree], u[lay.tree], pair.profile.body, system.profile_points[k]
        )
        rows_a = np.zeros((2, lay.n))
        rows_a[:, lay.tree] = kin.jacobian
        r_a, v_a, rem_a = kin.position, kin.velocity, kin.acceleration_remainder
    r_b, v_b, rows_b, s_b, element = material_point(system, pair.target, q, u)
    d = r_b - r_a
    d_rate = v_b - v_a
    length = float(np.hypot(d[0], d[1]))
    if length == 0.0:
        raise FloatingPointError(
            f"link {pair.name!r}: its two points coincide at {r_a.tolist()}; allowed: distinct "
            "points (the link's direction is undefined)"
        )
    e = d / length
    w_normal = e @ (rows_a - rows_b)
    along = float(e @ d_rate)
    turning = float(d_rate @ d_rate) - along * along
    return ContactKinematics(
        parameter=float(s_b),
        element=int(element),
        point=r_b,
        profile_point=r_a,
        normal=e,
        tangent=np.array([e[1], -e[0]]),
        gap=pair.law.length - length,
        normal_velocity=-along,
        slip_velocity=0.0,
        w_normal=w_normal,
        w_tangent=np.zeros(lay.n),
        remainder=float(e @ rem_a) - turning / length,
        parameter_rate=0.0,
        tangent_remainder=0.0,
    )


__all__ = ["link_kinematics", "material_point"]
