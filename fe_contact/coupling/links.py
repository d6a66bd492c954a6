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

All links together: a material point of a linear structure (the beam) has constant rows, so
d = r_b - r_a = d_0 + D q with D a constant sparse (2, n) block per link, gathered once per
System (``LinkRows``, ``link_rows``: the rows of every link whose two sides are material
points of linear structures, as (links, k) DOF indices and (links, 2, k) values, both sides'
entries side by side). ``links_state`` then evaluates every such link of a model in one
vectorised call at (q, u): gaps, normals, rates, remainders and W_N as (dofs, values) pairs,
at a cost linear in the number of links and independent of n. A link with a body ``Point`` or
a string (absolute nodal: its rows depend on nothing but s too, kept on the per-call path all
the same) is evaluated by ``link_kinematics`` alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..multibody.tree import point_kinematics
from ..structure_points import MaterialPoint
from .kinematics import ContactKinematics


def material_point_state(system, side: MaterialPoint, q, u):
    """(position (2,), velocity (2,), rows (2, n), s, element) of the MaterialPoint ``side`` at
    (q, u): r = r_0 + rows q, so its velocity is rows u and its acceleration remainder zero."""
    lay = system.layout
    rows = np.zeros((2, lay.n))
    sl = lay.structure(side.structure)
    cp = system.structures[side.structure].curve(side.s, q[sl])
    for i in range(2):
        np.add.at(rows[i], sl.start + cp.dofs, cp.rows[i])
    return cp.position, rows @ u, rows, cp.s, cp.element


@dataclass(frozen=True, eq=False)
class LinkRows:
    """The constant rows of the links between material points of linear structures (L links,
    k = the DOFs of both sides, padded with the link's first DOF and value 0).

    pairs : (L,) int, model indices of the links. dofs : (L, k) int, system DOFs. rows :
    (L, 2, k) d(r_b - r_a)/dq at those DOFs. offset : (L, 2) r_b - r_a at q = 0, m. point_a,
    point_b : (L, 2) the two clamps at q = 0, m; rows_a, rows_b : (L, 2, k) their own rows (b's
    entries zero in rows_a and a's in rows_b). length : (L,) unstretched lengths l0, m.
    parameter, element : (L,) s of side b (m) and its element.
    """

    pairs: np.ndarray
    dofs: np.ndarray
    rows: np.ndarray
    offset: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    rows_a: np.ndarray
    rows_b: np.ndarray
    length: np.ndarray
    parameter: np.ndarray
    element: np.ndarray

    @property
    def size(self) -> int:
        return int(self.pairs.size)


def _fixed_point(system, side: MaterialPoint):
    """(position at q = 0 (2,), dofs, rows (2, k), s, element) of a material point of a linear
    structure, or None when its structure is not linear (its rows then follow q)."""
    structure = system.structures[side.structure]
    if not structure.linear:
        return None
    sl = system.layout.structure(side.structure)
    cp = structure.curve(side.s, np.zeros(sl.stop - sl.start))
    return cp.position, sl.start + cp.dofs, cp.rows, cp.s, cp.element


def link_rows(system) -> LinkRows:
    """The ``LinkRows`` of the links of ``system.model`` whose two sides are material points of
    linear structures, gathered once (``System.link_rows``, by ``System.__post_init__``; reads
    only ``system.model``, ``structures`` and ``layout``)."""
    found = []
    for k, pair in enumerate(system.model.contacts):
        if not pair.link or not isinstance(pair.profile, MaterialPoint):
            continue
        a = _fixed_point(system, pair.profile)
        b = _fixed_point(system, pair.target)
        if a is None or b is None:
            continue
        found.append((k, a, b, pair.law.length))
    width = max((a[1].size + b[1].size for _, a, b, _ in found), default=0)
    n_links = len(found)
    dofs = np.zeros((n_links, width), dtype=np.int64)
    rows_a = np.zeros((n_links, 2, width))
    rows_b = np.zeros((n_links, 2, width))
    for i, (_, a, b, _) in enumerate(found):
        na, nb = a[1].size, b[1].size
        dofs[i, :na], dofs[i, na : na + nb] = a[1], b[1]
        own = np.concatenate([a[1], b[1]])  # the padding: a DOF of the link's own (value 0)
        dofs[i, na + nb :] = own[0] if own.size else system.layout.n_tree
        rows_a[i, :, :na] = a[2]
        rows_b[i, :, na : na + nb] = b[2]
    point_a = np.array([a[0] for _, a, _, _ in found]).reshape(n_links, 2)
    point_b = np.array([b[0] for _, _, b, _ in found]).reshape(n_links, 2)
    return LinkRows(
        pairs=np.array([k for k, *_ in found], dtype=np.int64),
        dofs=dofs,
        rows=rows_b - rows_a,
        offset=point_b - point_a,
        point_a=point_a,
        point_b=point_b,
        rows_a=rows_a,
        rows_b=rows_b,
        length=np.array([length for *_, length in found], dtype=float),
        parameter=np.array([b[3] for _, _, b, _ in found], dtype=float),
        element=np.array([b[4] for _, _, b, _ in found], dtype=np.int64),
    )


@dataclass(frozen=True, eq=False)
class LinksState:
    """Every link of ``LinkRows`` at one state (L links, k DOFs each; module docstring).

    pairs : (L,) model indices. gap : (L,) l0 - l, m. normal : (L, 2) e, unit, from a to b.
    point_a, point_b : (L, 2) the clamps, m. normal_velocity : (L,) -l', m/s. remainder :
    (L,) A = -(|d'|^2 - (e . d')^2) / l, m/s^2. dofs : (L, k) and w_normal : (L, k) the
    nonzero entries of each W_N = -e . D (its dense row: ``dense_rows``).
    """

    pairs: np.ndarray
    gap: np.ndarray
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    normal_velocity: np.ndarray
    remainder: np.ndarray
    dofs: np.ndarray
    w_normal: np.ndarray

    def dense_rows(self, n: int) -> np.ndarray:
        """(L, n): each link's W_N as a dense row (repeated DOFs summed), one scatter for all."""
        n_links = self.pairs.size
        flat = (np.arange(n_links)[:, None] * n + self.dofs).ravel()
        return np.bincount(flat, self.w_normal.ravel(), minlength=n_links * n).reshape(n_links, n)


def links_state(system, q, u, which=None) -> LinksState:
    """Every link of ``system.link_rows`` at (q, u) (n,), in one vectorised call: the quantities
    of ``link_kinematics`` with W_N as (dofs, values). Cost O(L k), independent of n.
    ``which`` : None (all) or the positions in ``link_rows`` of the links wanted.

    Raises FloatingPointError when the two clamps of a link coincide (its direction is
    undefined)."""
    rows = system.link_rows
    if which is not None:
        rows = _subset(rows, which)
    q_at = np.asarray(q, dtype=float)[rows.dofs]
    u_at = np.asarray(u, dtype=float)[rows.dofs]
    d = rows.offset + np.einsum("lik,lk->li", rows.rows, q_at)
    d_rate = np.einsum("lik,lk->li", rows.rows, u_at)
    length = np.hypot(d[:, 0], d[:, 1])
    if np.any(length == 0.0):
        i = int(np.flatnonzero(length == 0.0)[0])
        name = system.model.contacts[int(rows.pairs[i])].name
        raise FloatingPointError(
            f"link {name!r}: its two points coincide; allowed: distinct points (the link's "
            "direction is undefined)"
        )
    e = d / length[:, None]
    along = np.einsum("li,li->l", e, d_rate)
    turning = np.einsum("li,li->l", d_rate, d_rate) - along * along
    return LinksState(
        pairs=rows.pairs,
        gap=rows.length - length,
        normal=e,
        point_a=rows.point_a + np.einsum("lik,lk->li", rows.rows_a, q_at),
        point_b=rows.point_b + np.einsum("lik,lk->li", rows.rows_b, q_at),
        normal_velocity=-along,
        remainder=-turning / length,
        dofs=rows.dofs,
        w_normal=-np.einsum("li,lik->lk", e, rows.rows),
    )


def _subset(rows: LinkRows, which) -> LinkRows:
    which = np.asarray(which, dtype=np.int64)
    return LinkRows(**{f: getattr(rows, f)[which] for f in LinkRows.__dataclass_fields__})


def zero_row(n: int) -> np.ndarray:
    """A read-only (n,) row of zeros: the W_T of a link (no friction), one shared by all."""
    zeros = np.zeros(n)
    zeros.flags.writeable = False
    return zeros


def link_contact(
    system, state: LinksState, i: int, w_normal=None, w_tangent=None
) -> ContactKinematics:
    """The ContactKinematics of link i of ``state`` (of all ``system.link_rows``); ``w_normal``:
    its dense row (default: scattered here); ``w_tangent``: a read-only zero row (default: a
    new one, ``zero_row``)."""
    return _kinematics(system, state, i, system.link_rows, i, w_normal, w_tangent)


class _LinkKinematics(ContactKinematics):
    """The ``ContactKinematics`` of a link with constant rows whose dense row W_N (n,) is
    scattered from its nonzero entries (dofs (k,), values (k,); repeated DOFs summed) when
    first read: a report reads the link's point, normal and gap only (``link_contact``).
    ``dataclasses.replace`` passes the row W_N itself (then kept as given)."""

    def __init__(self, n: int = 0, dofs=None, values=None, **fields):
        if "w_normal" in fields:  # ``dataclasses.replace``: the row as given
            self.__dict__["w_normal"] = fields.pop("w_normal")
        self.__dict__.update(fields, _entries=(n, dofs, values))  # frozen: set once, here

    @functools.cached_property
    def w_normal(self) -> np.ndarray:
        n, dofs, values = self._entries
        row = np.zeros(n)
        np.add.at(row, dofs, values)
        return row


def _kinematics(
    system, state: LinksState, i: int, rows: LinkRows, j: int, w_normal=None, zeros=None
):
    """The ContactKinematics of link i of ``state``, entry j of ``rows``; ``w_normal``: its
    dense row (default: scattered from its entries when first read, ``_LinkKinematics``),
    ``zeros`` its W_T (default: a new ``zero_row``)."""
    n = system.layout.n
    if zeros is None:
        zeros = zero_row(n)
    e = state.normal[i]
    fields = dict(
        parameter=float(rows.parameter[j]),
        element=int(rows.element[j]),
        point=state.point_b[i],
        profile_point=state.point_a[i],
        normal=e,
        tangent=np.array([e[1], -e[0]]),
        gap=float(state.gap[i]),
        normal_velocity=float(state.normal_velocity[i]),
        slip_velocity=0.0,
        w_tangent=zeros,
        remainder=float(state.remainder[i]),
        parameter_rate=0.0,
        tangent_remainder=0.0,
    )
    if w_normal is not None:
        return ContactKinematics(w_normal=w_normal, **fields)
    return _LinkKinematics(n, state.dofs[i], state.w_normal[i], **fields)


def links_kinematics(system, q, u) -> dict[int, ContactKinematics]:
    """The ``ContactKinematics`` of every link of ``system.link_rows`` at (q, u), by model
    index: ``links_state`` in the vocabulary of a contact (the dense rows W_N from one scatter
    for all). ``link_kinematics`` of each takes the same path."""
    state = links_state(system, q, u)
    rows = system.link_rows
    w_normal = state.dense_rows(system.layout.n)
    zeros = zero_row(system.layout.n)
    return {
        k: _kinematics(system, state, i, rows, i, w_normal[i], zeros)
        for i, k in enumerate(state.pairs.tolist())
    }


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
    pairs = system.link_rows.pairs
    at = int(np.searchsorted(pairs, k))
    if at < pairs.size and pairs[at] == k:  # constant rows (linear structures)
        return _kinematics(system, links_state(system, q, u, [at]), 0, system.link_rows, at)
    if isinstance(pair.profile, MaterialPoint):
        r_a, v_a, rows_a, _, _ = material_point_state(system, pair.profile, q, u)
        rem_a = np.zeros(2)
    else:
        kin = point_kinematics(
            system.tree, q[lay.tree], u[lay.tree], pair.profile.body, system.profile_points[k]
        )
        rows_a = np.zeros((2, lay.n))
        rows_a[:, lay.tree] = kin.jacobian
        r_a, v_a, rem_a = kin.position, kin.velocity, kin.acceleration_remainder
    r_b, v_b, rows_b, s_b, element = material_point_state(system, pair.target, q, u)
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


__all__ = [
    "LinkRows",
    "LinksState",
    "link_contact",
    "link_kinematics",
    "link_rows",
    "links_kinematics",
    "links_state",
    "material_point_state",
    "zero_row",
]
