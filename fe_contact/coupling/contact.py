"""Sliding contact of a tree point on a beam, Lipinski (002), secs. 4, 5 and 7.

Derivation used here (the printed eqs. 34/43/45/57 contain sign and power slips; this is the
consistent version, checked against finite differences in tests/test_contact.py).

The beam axis starts at ``o`` with unit tangent ``t0`` and normal ``n0``; a material point x of the
beam sits at ``o + x t0 + w(x) n0`` (linear theory). For the body point p with local coordinates
``xi = t0.(p - o)``, ``eta = n0.(p - o)``:

* contact parameter (002 eq. 26a): the beam point under the body point, ``x_c = xi``;
* position constraint (002 eqs. 23a, 26b): ``phi = eta - w(xi) = 0``;
* unit tangent and normal at x_c (002 eqs. 20-21): ``t = k (t0 + w' n0)``, ``n = k (n0 - w' t0)``,
  ``k = 1/sqrt(1 + w'^2)``;
* normal Jacobian (002 eq. 34) scaled by k and by ``side`` (+1 when the body is on the +n0 side):
  ``J_n^b = side k (n0 - w' t0) . J_p``, ``J_n^c = -side k N(xi)``, so that the multiplier is the
  compressive normal force in N (positive while the beam pushes the body away);
* acceleration remainder (002 eq. 45, corrected):
  ``A_n = side k [ (n0 - w' t0) . a_p - w'' xi'^2 - 2 xi' N'(xi) q_c' ]``, ``xi' = t0 . p'``;
* slip velocity (002 eq. 57, general form, valid off the velocity manifold too):
  ``v_t = t . (p' - n0 N(xi) q_c')``, the velocity of the body point relative to the beam's
  material point along the tangent;
* Coulomb friction on the body (002 eq. 63): ``f_T = -sign(v_t) mu lambda t`` and ``-f_T`` on the
  beam's material point, so the friction rows of J_Sigma (002 eqs. 67-68, 71c) are
  ``J_T^b = -sign(v_t) mu t . J_p`` and ``J_T^c = -sign(v_t) mu (-(n0 . t)) N = sign(v_t) mu k w' N``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..elements.beam import Beam, shape_rows_at


class ContactLeftBeam(RuntimeError):
    """The contact parameter left [0, L]: the body point slid off the beam's end."""


@dataclass(frozen=True)
class ContactSpec:
    """A point of a tree body sliding on the beam with Coulomb friction.

    body : int, index of the tree body; point : (x, y) in m in the body's frame, or the name of a
    point of the tree. mu : friction coefficient >= 0 (002 eq. 63). side : +1 when the body lies on
    the side of the beam's normal n0 (above a beam along +x), -1 otherwise. name : label used for
    the multiplier and the output columns.
    """

    body: int
    point: tuple[float, float] | str
    mu: float = 0.0
    side: int = 1
    name: str = "contact"

    def __post_init__(self):
        if not np.isfinite(self.mu) or self.mu < 0.0:
            raise ValueError(f"ContactSpec {self.name!r}: mu must be >= 0, got {self.mu!r}")
        if self.side not in (1, -1):
            raise ValueError(f"ContactSpec {self.name!r}: side must be +1 or -1, got {self.side!r}")


@dataclass(frozen=True)
class ContactKinematics:
    """One contact at one state. Beam quantities refer to the full beam DOF vector.

    parameter : contact position x_c along the beam, m. element : element holding it.
    gap : phi = eta - w(xi) times side, m (zero when the constraint holds).
    slope : w'(x_c). k : 1/sqrt(1 + w'^2). tangent, normal : (2,) unit vectors at the contact point
    (normal pointing to the body). slip_velocity : v_t, m/s. parameter_rate : xi', m/s.
    jac_tree : (n_b,) J_n^b. jac_beam : (4,) J_n^c on ``beam_dofs``. remainder : A_n, m/s^2.
    point_jacobian : (2, n_b), J_p of the body point. shape : (4,) N(x_c).
    """

    parameter: float
    element: int
    gap: float
    slope: float
    k: float
    tangent: np.ndarray
    normal: np.ndarray
    slip_velocity: float
    parameter_rate: float
    jac_tree: np.ndarray
    jac_beam: np.ndarray
    beam_dofs: np.ndarray
    remainder: float
    point_jacobian: np.ndarray
    shape: np.ndarray


def contact_kinematics(beam: Beam, side: int, point, q_beam, u_beam, name="contact"):
    """Contact quantities of a body point (PointKinematics) on the beam (full DOF vectors)."""
    d = point.position - beam.origin
    xi = float(beam.t0 @ d)
    eta = float(beam.n0 @ d)
    length = beam.spec.length
    if xi < 0.0 or xi > length:
        raise ContactLeftBeam(
            f"contact {name!r} left the beam: contact parameter x = {xi:.6g} m is outside "
            f"[0, {length:g}] m"
        )
    element, dofs, N, N_x, N_xx = shape_rows_at(beam, xi)
    qe, ue = q_beam[dofs], u_beam[dofs]
    w, w_x, w_xx = float(N @ qe), float(N_x @ qe), float(N_xx @ qe)
    k = 1.0 / np.sqrt(1.0 + w_x * w_x)
    direction = beam.n0 - w_x * beam.t0
    tangent = k * (beam.t0 + w_x * beam.n0)
    xi_dot = float(beam.t0 @ point.velocity)
    beam_velocity = float(N @ ue)
    slip = float(tangent @ (point.velocity - beam.n0 * beam_velocity))
    remainder = (
        side
        * k
        * (
            float(direction @ point.acceleration_remainder)
            - w_xx * xi_dot**2
            - 2.0 * xi_dot * float(N_x @ ue)
        )
    )
    return ContactKinematics(
        parameter=xi,
        element=element,
        gap=side * (eta - w),
        slope=w_x,
        k=k,
        tangent=tangent,
        normal=side * k * direction,
        slip_velocity=slip,
        parameter_rate=xi_dot,
        jac_tree=side * k * (direction @ point.jacobian),
        jac_beam=-side * k * N,
        beam_dofs=dofs,
        remainder=remainder,
        point_jacobian=point.jacobian,
        shape=N,
    )


def friction_rows(c: ContactKinematics, mu: float, slip_sign: float):
    """Friction rows J_T^b (n_b,) and J_T^c (4,) of Lipinski (002), eqs. (68a-b), per unit lambda."""
    jt_tree = -slip_sign * mu * (c.tangent @ c.point_jacobian)
    jt_beam = slip_sign * mu * c.k * c.slope * c.shape
    return jt_tree, jt_beam


def friction_force(c: ContactKinematics, mu: float, normal_force: float, slip_sign: float):
    """Friction force on the body, (2,) in N, Lipinski (002), eq. (63)."""
    return -slip_sign * mu * normal_force * c.tangent
