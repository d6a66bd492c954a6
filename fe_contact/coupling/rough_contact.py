"""Many-point contact between a rough profile on a tree body and a rough rim on a driven wheel,
and the impact with friction by Poisson's law, Slavic-Boltezar (003), secs. 2-3.

Geometry. The body profile (``fe_contact.rough.RoughProfile`` in the body's frame) and the wheel
profile (in the wheel's frame; the wheel turns about the ground origin at the prescribed angle
alpha(t) = alpha_0 + omega t) are both graphs over the polar angle about the wheel's centre, so
each vertex finds the opposite segment it lies over by a sorted search. Every vertex of either
profile paired with that segment is a candidate point-segment contact (003 eq. (11): the set
I_G; I_S holds those with gap g_N <= closing tolerance). A wheel vertex closer to a body
vertex than CORNER times the body segment's length is not paired with that segment: a corner on
a corner has no normal of its own and counts once, as the body's vertex on the wheel's segment
(else a penetration of a few nm, within the tolerance, lets the wheel's vertex catch the steep
facet next to a body vertex, with a normal tilted by the facet's slope). Per pair: N the unit normal of the
force on the body (the wheel segment's outward normal for a body vertex, minus the body
segment's outward normal for a wheel vertex), T = (N_y, -N_x) (so that (N, T) are 003 eq. (31)'s
(n, t) for a contact on top of the wheel), the contact point C (the vertex), and

    g_N' = w_N . u + what_N,   g_T' = w_T . u + what_T        (003 eqs. (7), (13), (15))

with w = J(C)^T N (J the body point Jacobian, from ``multibody.tree``) and what = -(N, T) . v_W
where v_W = omega e_z x C is the wheel's velocity at C: the drive does the work -P . what.

Impacts, 003 sec. 2.2 (after Pfeiffer-Glocker): with the Delassus matrix G = W^T M^-1 W of the
closed contacts and the relative velocities gdot_A before the impact,

* compression: gdot_C = G Lambda_C + gdot_A with Lambda_NC >= 0 _|_ gdot_NC >= 0 and Coulomb's
  law |Lambda_TC| <= mu Lambda_NC, Lambda_TC = -mu Lambda_NC sign(gdot_TC) where gdot_TC != 0;
* expansion (Poisson): Lambda_E = Lambda_E0 + dLambda with Lambda_NE0 = eps_N Lambda_NC,
  Lambda_TE0 = eps_T Lambda_TC for contacts that slide at the end of compression and
  nu eps_T Lambda_TC for those that stick (nu: reversibility of the tangential impulse stored
  at a sticking contact), and dLambda satisfying the compression laws (with the cone
  |dLambda_T| <= mu dLambda_N) for gdot_E = G dLambda + (gdot_C + G Lambda_E0). 003 only names
  nu (after Pfeiffer-Glocker); with nu = 1 this is the inequality form of Poisson's law of
  Glocker (Multibody Syst. Dyn. 2013, part II). A contact that slides through the impact thus
  carries -mu (1 + eps_T) Lambda_NC, Coulomb's law for the whole impulse when eps_T = eps_N.

Both phases are written once, in ``coupling.impact`` (``poisson_impact``, ``solve_coulomb``),
for every stepper; each is the complementarity problem of ``setvalued`` (the linear
complementarity problem ``coulomb_lcp``), whose ContactSolverError reports a failure. With
eps_T <= eps_N the impulse of each phase stays in the friction cone. The energy lost at a contact in a phase is, 003 eqs.
(18)-(20), W = -(Lambda_N, Lambda_T) . (gdot_start + gdot_end) / 2 (>= 0 when dissipative); the
sum over contacts and phases equals the drive's work minus the change of kinetic energy exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validation as check
from ..kernels import rough as kernels
from ..multibody.tree import TreeModel, angular_jacobian, body_poses
from ..rough import RoughProfile, segment_normals
from .impact import ImpactImpulses, poisson_impact, solve_coulomb

CORNER = 0.05  # a wheel vertex this close (fraction of the segment) to a body vertex is on it

__all__ = [
    "CandidatePairs",
    "ContactSet",
    "ImpactImpulses",
    "RoughContact",
    "candidate_pairs",
    "closed_contacts",
    "gaps",
    "share_loss",
    "poisson_impact",
    "search_frames",
    "solve_coulomb",
]


@dataclass(frozen=True, eq=False)
class RoughContact:
    """A rough profile on a tree body against a rough rim of a driven wheel (module docstring):
    the kinematics and laws of a model's ContactPair of a Polyline on a Wheel (``from_pair``),
    as the event-driven stepper uses them.

    tree : the TreeModel that carries the body. body : its index. profile : the body's RoughProfile
    in its frame. wheel : the wheel's RoughProfile in the wheel's frame (centre at the ground
    origin), counter-clockwise. omega : rad/s, the wheel's angular velocity (negative:
    clockwise). alpha_0 : rad, its angle at t = 0. mu : friction coefficient >= 0. eps_n,
    eps_t : Poisson's restitution coefficients in [0, 1] with eps_t <= eps_n. nu : tangential
    reversibility in [0, 1].
    """

    tree: TreeModel
    body: int
    profile: RoughProfile
    wheel: RoughProfile
    omega: float
    alpha_0: float = 0.0
    mu: float = 0.0
    eps_n: float = 0.0
    eps_t: float = 0.0
    nu: float = 0.0

    def __post_init__(self):
        check.instance("RoughContact.tree", self.tree, TreeModel, "a TreeModel")
        check.index("RoughContact.body", self.body, self.tree.n_bodies, "body")
        check.instance("RoughContact.profile", self.profile, RoughProfile, "a RoughProfile")
        check.instance("RoughContact.wheel", self.wheel, RoughProfile, "a RoughProfile")
        for name, unit in (("omega", "rad/s"), ("alpha_0", "rad")):
            object.__setattr__(
                self, name, check.real(f"RoughContact.{name}", getattr(self, name), unit=unit)
            )
        object.__setattr__(self, "mu", check.real("RoughContact.mu", self.mu, low=0.0))
        for name in ("eps_n", "nu"):
            value = check.real(f"RoughContact.{name}", getattr(self, name), low=0.0, high=1.0)
            object.__setattr__(self, name, value)
        eps_t = check.real(
            "RoughContact.eps_t",
            self.eps_t,
            low=0.0,
            high=self.eps_n,
            meaning="a restitution coefficient not above eps_n (the impulse stays in the cone)",
        )
        object.__setattr__(self, "eps_t", eps_t)
        theta = np.unwrap(np.arctan2(self.wheel.points[1], self.wheel.points[0]))
        if np.any(np.diff(theta) <= 0):
            check.fail("RoughContact.wheel", "profile", "vertices counter-clockwise about (0, 0)")
        pose = body_poses(self.tree, np.zeros(self.tree.n_bodies))
        origin = pose.origin[self.body][:, None]
        body = origin + _rotate(float(pose.angle[self.body]), self.profile.points)
        theta = np.unwrap(np.arctan2(body[1], body[0]))
        if np.any(np.diff(theta) >= 0):
            check.fail(
                "RoughContact.profile",
                "profile",
                "vertices clockwise about the wheel's centre (0, 0) at q = 0",
            )

    @classmethod
    def from_pair(cls, tree: TreeModel, pair) -> RoughContact:
        """The contact of a model's ContactPair of a ``model.Polyline`` (tree body and profile)
        against a ``model.Wheel`` (rim, omega, alpha_0) with a ``model.Unilateral`` law (mu,
        e_N, e_T, reversibility nu) on the tree ``tree``."""
        law = pair.law
        return cls(
            tree=tree,
            body=pair.profile.body,
            profile=pair.profile.profile,
            wheel=pair.target.rim,
            omega=pair.target.omega,
            alpha_0=pair.target.alpha_0,
            mu=law.mu,
            eps_n=law.restitution_normal,
            eps_t=law.restitution_tangent,
            nu=law.reversibility,
        )

    def wheel_angle(self, t: float) -> float:
        return self.alpha_0 + self.omega * t


@dataclass(frozen=True, eq=False)
class ContactSet:
    """The candidate contacts of a configuration with gap <= ``closing`` (003 eq. (11), I_S).

    m contacts: gap (m,) m; normal, tangent (2, m) unit; point (2, m) the contact point C in m;
    w (2m, n_q) the rows w_N^T then w_T^T; what (2m,) m/s; body_vertex (m,) bool, True where a
    body vertex touches a wheel segment; vertex (m,) int, the touching vertex; segment (m,) int,
    the opposite segment's first vertex; xi (m,) in [0, 1], the position on that segment.
    """

    gap: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    point: np.ndarray
    w: np.ndarray
    what: np.ndarray
    body_vertex: np.ndarray
    vertex: np.ndarray
    segment: np.ndarray
    xi: np.ndarray

    @property
    def size(self) -> int:
        return self.gap.size

    @property
    def angle(self) -> np.ndarray:
        """(m,) rad, direction of the normal N (003 fig. 8: the contact angle phi)."""
        return np.arctan2(self.normal[1], self.normal[0])


def _rotate(angle: float, points: np.ndarray) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.vstack((c * points[0] - s * points[1], s * points[0] + c * points[1]))


@dataclass(frozen=True, eq=False)
class _Frames:
    """Constant parts of the search: the wheel's vertex angles (unwrapped, increasing) and
    segment normals in the wheel's frame, the body's segment normals in the body's frame, the
    body's angular-velocity row."""

    theta_wheel: np.ndarray
    normals_wheel: np.ndarray
    normals_body: np.ndarray
    jw: np.ndarray
    polylines: tuple


def search_frames(contact: RoughContact) -> _Frames:
    """The constant parts of the pair search of ``contact`` (the wheel's vertex angles and
    segment normals, the body's segment normals, the body's angular-velocity row), computed
    once per contact and kept on it; ``polylines``: the search's constant arguments as the
    kernels take them (``kernels.rough.tree_pairs``, ``kernels.rough_steps.quiet_steps``): the
    body's points and segment normals, the wheel's points, segment normals and vertex angles,
    and the corner tolerance."""
    frames = contact.__dict__.get("_frames")
    if frames is None:
        w = contact.wheel.points
        theta = np.ascontiguousarray(np.unwrap(np.arctan2(w[1], w[0])))
        normals_wheel = np.ascontiguousarray(segment_normals(w))
        normals_body = np.ascontiguousarray(segment_normals(contact.profile.points))
        frames = _Frames(
            theta,
            normals_wheel,
            normals_body,
            np.ascontiguousarray(angular_jacobian(contact.tree, contact.body), dtype=float),
            (contact.profile.points, normals_body, w, normals_wheel, theta, CORNER),
        )
        object.__setattr__(contact, "_frames", frames)
    return frames


@dataclass(frozen=True, eq=False)
class CandidatePairs:
    """All point-segment pairs of a configuration (q, t) in the wheel's frame (003 eq. (11),
    I_G; ``kernels.rough.polyline_pairs``): a = body vertex ia over wheel segment ka, b = wheel
    vertex ib under body segment kb, their gaps in m; the body's points (2, n_b) and segment
    normals (2, n_b - 1) in the wheel's frame, the body frame's origin (2,) in the ground
    frame and its Jacobian j0 (2, n), the wheel's angle alpha in rad."""

    q: np.ndarray
    t: float
    body_pts: np.ndarray
    body_normals: np.ndarray
    ia: np.ndarray
    ka: np.ndarray
    gap_a: np.ndarray
    ib: np.ndarray
    kb: np.ndarray
    gap_b: np.ndarray
    origin: np.ndarray
    j0: np.ndarray
    alpha: float

    def gaps(self) -> tuple[np.ndarray, np.ndarray]:
        """(gap (k,) m, key (k,) int) of every pair (``gaps``)."""
        gap = np.concatenate((self.gap_a, self.gap_b))
        key = np.concatenate((2 * self.ia + 1, 2 * self.ib))
        return gap, key


def candidate_pairs(contact: RoughContact, q, t: float) -> CandidatePairs:
    """Every point-segment pair of the configuration q (n,) at t (s): ``CandidatePairs``."""
    frames = search_frames(contact)
    tree = contact.tree
    q = np.ascontiguousarray(q, dtype=float)
    if q.shape != (tree.n_bodies,):
        check.fail("candidate_pairs.q", q.shape, f"an array of shape ({tree.n_bodies},)")
    alpha = contact.wheel_angle(t)
    body, normals, ia, ka, gap_a, ib, kb, gap_b, at, j0 = kernels.tree_pairs(
        tree.topology.kernel_arrays,
        contact.body,
        q,
        alpha,
        *frames.polylines,
    )
    return CandidatePairs(q, t, body, normals, ia, ka, gap_a, ib, kb, gap_b, at, j0, alpha)


def gaps(contact: RoughContact, q, t: float) -> tuple[np.ndarray, np.ndarray]:
    """(gap (k,) m, key (k,) int) of every candidate pair (I_G of 003 eq. (11)); the key names
    the touching vertex and its side (2 vertex + 1 for a body vertex)."""
    return candidate_pairs(contact, q, t).gaps()


def closed_contacts(
    contact: RoughContact, q, u, t: float, closing: float, pairs: CandidatePairs | None = None
) -> ContactSet:
    """The contacts with gap <= ``closing`` (m) at (q, u, t), with their w rows and what;
    ``pairs``: the ``candidate_pairs`` of (q, t) when already found."""
    pr = candidate_pairs(contact, q, t) if pairs is None else pairs
    frames = search_frames(contact)
    point, normal, tangent, w, what, xi, gap, body_vertex, vertex, segment = kernels.closed_rows(
        pr.body_pts,
        pr.body_normals,
        contact.wheel.points,
        frames.normals_wheel,
        pr.ia,
        pr.ka,
        pr.gap_a,
        pr.ib,
        pr.kb,
        pr.gap_b,
        float(closing),
        pr.alpha,
        contact.omega,
        pr.origin,
        pr.j0,
        frames.jw,
    )
    return ContactSet(
        gap=gap,
        normal=normal,
        tangent=tangent,
        point=point,
        w=w,
        what=what,
        body_vertex=body_vertex,
        vertex=vertex,
        segment=segment,
        xi=xi,
    )


def share_loss(contacts: ContactSet, loss, body_w: np.ndarray, wheel_w: np.ndarray) -> None:
    """Add the contacts' losses (m,) J half to each profile: all of a half to the touching
    vertex, the other half to the opposite segment's two vertices by linear interpolation
    (``kernels.rough.book_losses``)."""
    kernels.book_losses(
        np.ascontiguousarray(loss, dtype=float),
        contacts.body_vertex,
        contacts.vertex,
        contacts.segment,
        contacts.xi,
        body_w,
        wheel_w,
    )
