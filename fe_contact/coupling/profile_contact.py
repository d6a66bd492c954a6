"""Contact kinematics of curved profiles (``model.Profile``), Bauchau (000), secs. 2-5.

Two profiles k (the pair's profile) and l (its target), each a curve p0(eta) in its body frame
(``frames.BodyFrame``): Z(eta) = o + R p0(eta), tangent vector T = R p1, T' = R p2 (000 eq. 4).
The candidate contact points (eta_k, eta_l) satisfy the two orthogonality conditions of 000
eqs. (5)-(6), written here as

    f1 = T_k x T_l = 0            (the tangents are parallel: T_k normal to n_l, eq. 5)
    f2 = (Z_k - Z_l) . T_l = 0    (the joining vector is normal to the curves, eq. 6 with eq. 5)

solved by Newton's method on (eta_k, eta_l) from the last solution (a warm start kept per pair
in the run's ``Workspace``), with the Jacobian [[T_k' x T_l, T_k x T_l'], [T_k . T_l, d . T_l' -
T_l . T_l]]. Unlike the minimum of the distance, these conditions also hold at the deepest
point of a penetration (a compliant contact's approach). When the contact first closes (no
warm start, or Newton fails) a global search comes first: the control polygons' bounding
boxes (a Bezier or B-spline curve lies in its polygon's convex hull) are compared, and if
they are close, the nearest pair of 40 N samples per curve starts Newton.

* gap: g = n_l . (Z_k - Z_l) with the outward normal n_l of the target (000 eq. 7 with the
  roles of k and l exchanged: g > 0 apart, g < 0 the approach of a compliant contact);
* normal n = n_l (from the target to the profile), tangent t = n turned by -90 degrees;
* W_N = n . (J_k - J_l), W_T = t . (J_k - J_l) with J the Jacobians of the two material points
  (000 eqs. 11-15: the slip velocity v_t = W_T u is the tangential relative velocity of eq.
  14, the eta-rates drop out by the orthogonality conditions); the generalised contact forces
  are W_N^T F_n + W_T^T F_t (000 eq. 17).
* a Point or Circle (radius R) against a Profile: one condition, (c - Z_l) . T_l = 0 (the
  closest point of the centre c), g = n_l . (c - Z_l) - R, W_T with the rolling term R j_w.

No closest point, several: the pair has no isolated solution when both curves are straight
and parallel where they touch (f1 vanishes identically; e.g. two flat faces); Newton then
meets a singular Jacobian and the pair is reported as having no contact point (``None``): use
curved (crowned) profiles. When several pairs satisfy the conditions (a concave target, a
profile wrapping round another), Newton keeps following the one it started on and the global
search takes the nearest sampled pair. A solution outside eta in [0, 1] (the contact left an
open curve's end) is also ``None``: the pair is open.

Profile against a structure (target: a structure's name; a beam or string with the deformed
centre line r(s, q) of ``structures.Structure``): the same two conditions with T_l = r'(s),
T_l' = r''(s), solved by Newton on (eta, s) from the last solution; when the pair first closes,
40 N samples of the profile are compared with 8 samples per element of the centre line, and
the profile sample of least signed distance (side n_s . (Z - r) at its nearest centre-line
sample: the deepest or nearest point) starts Newton. The normal is n = side n_s (the pair's
``side`` as for Point and Circle pairs), the gap g = n . (Z_k - r(s)) (000 eq. 7), and the
structure's material point enters W_N, W_T with its rows d r / d q (so its DOFs take the
reaction, 000 eq. 17); the accepted solution has the profile's outward normal against n
(side T_k . r' > 0). A solution with s outside [0, L] (the profile passed an end of the
structure) is ``None``: an open unilateral or compliant contact, a bilateral one that leaves.
A straight profile on a straight (undeformed) beam is a pair of parallel flats (no isolated
point, ``None``): crown the profile. While the two are apart (no warm start) and the profile's
control-polygon box is apart from the box of the centre-line samples, the pair is open with
that box distance as its gap (the centre line between samples lies within the box up to the
chord error of 8 samples per cubic element, far below any gap that matters).

Profile against a rigid ``Line``: the support point of the profile in the direction of minus
the line's normal, ``profile_line``.

Profile against profile, each drawn on a tree body, on a body carried by a linear beam or in the
plane (a system whose structures are all linear beams): the kinematics above are those of the
compiled step's kernel (``kernels.profile_pair.pair_kinematics``, the same Newton solve, search and
box test), called here too, so that both steps evaluate the one kernel.

The acceleration remainders A = d(W_N)/dt u and A_T = d(W_T)/dt u that a hard (constraint)
contact needs are central differences of g'(q, u) = W_N(q) u along q + eps u (a directional
derivative with eps |u| = 1e-6 m; its truncation error ~ 1e-12 of the curvature terms).
"""

from __future__ import annotations

import dataclasses
import math
import weakref

import numpy as np

from ..kernels import beam as beam_kernel
from ..kernels import curves as kernel
from ..kernels import profile_pair
from ..kernels.tree import tree_arrays
from ..sides import Line, Profile
from ..structures import BeamStructure
from .frames import body_frame
from .kinematics import ContactKinematics
from .profile_geometry import (
    box_distance,
    far_apart,
    polygon_box,
    touching,
    world_samples,
)
from .profile_line import line_build
from .profile_structure import structure_build


def _search(curve_k, frame_k, curve_l, frame_l) -> tuple[float, float]:
    """The nearest pair of sampled points (eta_k, eta_l)."""
    ek, zk = world_samples(curve_k, frame_k)
    el, zl = world_samples(curve_l, frame_l)
    d2 = np.sum((zk[:, None, :] - zl[None, :, :]) ** 2, axis=2)
    i, j = np.unravel_index(np.argmin(d2), d2.shape)
    return float(ek[i]), float(el[j])


def closest_pair(curve_k, frame_k, curve_l, frame_l, guess=None, tol: float = 1e-13):
    """(eta_k, eta_l) of the candidate contact points (000 eqs. 5-6, Newton in
    ``kernels.curves.pair_newton``), or None (module docstring: parallel flats, or a solution
    beyond an end of a curve). ``guess``: a warm start (eta_k, eta_l) or None for the global
    search."""
    starts = [] if guess is None else [tuple(guess)]
    starts.append(None)
    for start in starts:
        eta = _search(curve_k, frame_k, curve_l, frame_l) if start is None else start
        status, eta_k, eta_l = kernel.pair_newton(
            *curve_k.spline,
            float(frame_k.angle),
            np.ascontiguousarray(frame_k.origin, dtype=float),
            *curve_l.spline,
            float(frame_l.angle),
            np.ascontiguousarray(frame_l.origin, dtype=float),
            float(eta[0]),
            float(eta[1]),
            tol,
        )
        if status == kernel.FOUND:
            return float(eta_k), float(eta_l)
    return None


_NO_STEP = np.zeros(0)
# System -> {contact index: the arrays of ``kernel_pair`` or None}: constants derived from a
# (constant) System once, dropped with it
_KERNEL_PAIRS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _frame_row(system, body, beams):
    """(kind, index, s) of a profile's body frame as ``kernels.profile_pair`` takes it, or None
    (a body carried by a structure other than a linear beam)."""
    if body is None:
        return profile_pair.PLANE, 0, 0.0
    if not isinstance(body, str):
        return profile_pair.TREE, int(body), 0.0
    carried = {b.name: b for b in system.model.carried}[body]
    if carried.structure not in beams:
        return None
    return profile_pair.CARRIED, list(beams).index(carried.structure), float(carried.s)


def kernel_pair(system, k: int):
    """The arguments (T, B, pairs, n_tree) of ``kernels.profile_pair.pair_kinematics`` for contact k
    of ``system`` (its row 0), or None when the kernel does not take the pair.

    The kernel takes a ``Profile`` against a ``Profile``, each on a tree body, on a body carried
    by a linear beam, or in the plane, in a system with a tree whose structures are all linear
    beams. Made once per System (kept while the System lives).

    Parameters
    ----------
    system : System
        The assembled model.
    k : int
        The model's contact index.

    Returns
    -------
    tuple or None
        (tree arrays, beam arrays, the pair's arrays (``kernels.profile_pair``), n_tree).

    Examples
    --------
    >>> from fe_contact.papers.bauchau import Geometry, cam_lock
    >>> from fe_contact.coupling.profile_contact import kernel_pair
    >>> system = cam_lock(3, Geometry()).assemble()
    >>> T, B, pairs, n_tree = kernel_pair(system, 0)
    >>> n_tree, pairs[0].tolist()  # the cam on tree body 2, the skid carried by beam 0
    (3, [[0, 1]])
    """
    known = _KERNEL_PAIRS.setdefault(system, {})
    if k not in known:
        known[k] = _kernel_arrays(system, k)
    return known[k]


def _kernel_arrays(system, k: int):
    pair = system.model.contacts[k]
    structures = system.structures
    if not (
        type(pair.profile) is Profile
        and type(pair.target) is Profile
        and system.tree is not None
        and all(isinstance(st, BeamStructure) for st in structures.values())
    ):
        return None
    beams = dict(structures)
    frames = [_frame_row(system, side.body, beams) for side in (pair.profile, pair.target)]
    if None in frames:
        return None
    curves, ranges, knots, points, _, _ = profile_pair.spline_rows((pair.profile, pair.target))
    pairs = (
        np.array([[f[0] for f in frames]], dtype=np.int64),
        np.array([[f[1] for f in frames]], dtype=np.int64),
        np.array([[f[2] for f in frames]], dtype=float),
        np.array(curves, dtype=np.int64),
        np.array(ranges, dtype=float),
        np.concatenate(knots),
        np.ascontiguousarray(np.concatenate(points)),
    )
    B = beam_kernel.beam_arrays(beams, system.layout)
    return tree_arrays(system.tree), B, pairs, system.layout.n_tree


def _kernel_build(system, arrays, q, u, guess, step=_NO_STEP):
    """``_build`` of a pair that the kernel takes (``kernel_pair``), and the kernel's (v_n, v_t)
    at q + step and q - step (4,) (NaN without a ``step``)."""
    T, B, pairs, n_tree = arrays
    guess_k, guess_l = (math.nan, math.nan) if guess is None else guess
    status, rec, wn, wt, rates = profile_pair.pair_kinematics(
        T,
        B,
        pairs,
        0,
        np.ascontiguousarray(q, dtype=float),
        np.ascontiguousarray(u, dtype=float),
        n_tree,
        float(guess_k),
        float(guess_l),
        step,
    )
    if status:
        return None, None, rates
    eta_k = float(rec[profile_pair.ETA])
    if math.isnan(eta_k):  # the polygons' boxes are apart (searched afresh)
        if guess is not None:  # as ``_build``: lost the warm start, ``curved_contact`` searches
            return None, None, rates
        return far_apart(float(rec[beam_kernel.GAP]), system.layout.n), None, rates
    eta_l = float(rec[beam_kernel.S])
    kin = ContactKinematics(
        parameter=eta_l,
        element=-1,
        point=rec[[beam_kernel.PX, beam_kernel.PY]],
        profile_point=rec[[beam_kernel.QX, beam_kernel.QY]],
        normal=rec[[beam_kernel.NX, beam_kernel.NY]],
        tangent=rec[[beam_kernel.TX, beam_kernel.TY]],
        gap=float(rec[beam_kernel.GAP]),
        normal_velocity=float(rec[beam_kernel.VN]),
        slip_velocity=float(rec[beam_kernel.VT]),
        w_normal=wn,
        w_tangent=wt,
        remainder=np.nan,
        parameter_rate=np.nan,
        tangent_remainder=np.nan,
        profile_parameter=eta_k,
    )
    return kin, (eta_k, eta_l), rates


def _build(system, k: int, q, u, guess):
    """(ContactKinematics without remainders, etas), or (None, None) when there is no contact
    point, or (an open far-apart kinematics, None) when the polygons' boxes are apart."""
    pair = system.model.contacts[k]
    n = system.layout.n
    target = pair.target
    if isinstance(target, str):  # a structure's centre line
        return structure_build(system, k, q, u, guess)
    if isinstance(target, Line):  # a rigid straight line
        return line_build(system, k, q, u, guess)
    arrays = kernel_pair(system, k)
    if arrays is not None:
        return _kernel_build(system, arrays, q, u, guess)[:2]
    frame_l = body_frame(system, target.body, q, u)
    profile = pair.profile
    if isinstance(profile, Profile):
        frame_k = body_frame(system, profile.body, q, u)
        if guess is None:
            box = box_distance(
                polygon_box(profile.curve, frame_k), polygon_box(target.curve, frame_l)
            )
            if box > 0.0:
                return far_apart(box, n), None
        etas = closest_pair(profile.curve, frame_k, target.curve, frame_l, guess)
        if etas is None:
            return None, None
        zk, vk, jk, _ = frame_k.point(profile.curve.position(etas[0]))
        radius, jw, w = 0.0, None, 0.0
    else:
        frame_k = body_frame(system, profile.body, q, u)
        centre = system.profile_points[k]
        zk, vk, jk, _ = frame_k.point(centre)
        radius, jw, w = profile.radius, frame_k.angular_row, frame_k.angular_velocity
        local = frame_l.rotation.T @ (zk - frame_l.origin)
        start = None if guess is None else guess[1]
        eta_l = target.curve.closest(local, start)
        g_l = target.curve.at(eta_l)
        d_loc = local - g_l.position
        if abs(float(d_loc @ g_l.tangent)) > 1e-9 * max(1.0, float(np.hypot(*d_loc))):
            return None, None  # the closest point is an end of the curve: no contact point
        etas = (np.nan, eta_l)
    gl = target.curve.at(etas[1])
    zl, vl, jl, _ = frame_l.point(gl.position)
    normal = frame_l.vector(gl.normal)
    gap = float(normal @ (zk - zl)) - radius
    profile_point = zk - radius * normal
    kin = touching(etas[1], -1, zl, profile_point, normal, gap, vk - vl, jk - jl, etas[0])
    if radius > 0.0:  # a circle's spin moves its contact point along the tangent
        w_t, slip = kin.w_tangent + radius * jw, kin.slip_velocity + radius * w
        kin = dataclasses.replace(kin, w_tangent=w_t, slip_velocity=slip)
    return kin, etas


def curved_contact(system, k: int, q, u, remainder: bool = True, workspace=None):
    """Kinematics of contact k of the model (a Profile takes part) at (q, u), or None when the
    pair has no candidate contact point (module docstring). With ``remainder`` the
    acceleration remainders A and A_T are added (directional central differences).
    ``workspace``: the run's ``Workspace``, whose (eta, s) of contact k starts the solve and is
    updated; None: the solve starts from the global search."""
    known = {} if workspace is None else workspace.profile_parameters
    guess = known.get(k)
    size = float(np.max(np.abs(u), initial=0.0)) if remainder else 0.0
    step = _NO_STEP
    if size > 0.0:
        # central differences along u over +-1e-6 (a step of 1e-6 / size times u, written so
        # that a subnormal |u| does not overflow it), scaled back by size: the velocities are
        # linear in u, so d/de g'(q + e u, u) = (d(J u)/dq) u
        tiny = size < 1e-290  # 1e-6 / size would overflow
        eps = 1e-6 if tiny else 1e-6 / size
        step = eps * (u / size) if tiny else eps * u
    arrays = kernel_pair(system, k)

    def build(start):
        """(kinematics, etas, the velocities at q +- step or None)."""
        if arrays is None:
            return *_build(system, k, q, u, start), None
        return _kernel_build(system, arrays, q, u, start, step)

    kin, etas, rates = build(guess)
    if etas is not None:
        known[k] = etas
    elif kin is None and guess is not None:  # lost the warm start: search afresh
        known.pop(k, None)
        kin, etas, rates = build(None)
        if etas is not None:
            known[k] = etas
    if kin is None or etas is None or not remainder:
        return kin
    if size == 0.0:
        a = a_t = 0.0
    else:

        def rate(difference: float) -> float:
            return difference * (size / 2e-6) if tiny else difference / (2.0 * eps)

        if rates is None:
            plus, _ = _build(system, k, q + step, u, etas)
            minus, _ = _build(system, k, q - step, u, etas)
            if plus is None or minus is None:
                rates = np.full(4, np.nan)
            else:
                rates = (plus.normal_velocity, plus.slip_velocity)
                rates += (minus.normal_velocity, minus.slip_velocity)
        a = rate(float(rates[0]) - float(rates[2]))
        a_t = rate(float(rates[1]) - float(rates[3]))
    return _with_remainders(kin, a, a_t)


def _with_remainders(kin: ContactKinematics, a: float, a_t: float) -> ContactKinematics:
    from dataclasses import replace

    return replace(kin, remainder=float(a), tangent_remainder=float(a_t))


__all__ = ["closest_pair", "curved_contact", "kernel_pair", "touching"]
