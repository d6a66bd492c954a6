"""The one entry point to the kinematics of a model's contact pair: ``contact_points``.

Every pair kind is decided here, once per pair (``pair_plan`` -> ``PairPlan``: the kind, which
fixes the sides, the search and the kinematics called, and the pair's constants: body, centre,
radius, target columns, candidate grid); ``contact_points`` dispatches on the plan and the
steppers' per-pair evaluations (``steppers.grid_pairs``) keep it:

========== ============================================================ ==================
kind       pair                                                         points
========== ============================================================ ==================
link       a ``Dropper`` between two points (``coupling.links``)        one
curved     a ``Profile`` takes part (``coupling.profile_contact``,      one
           Bauchau (000), eqs. 5-7, 14, 17)
line       a Point or Circle on a rigid ``Line`` (004 eqs. 21-25)       one
closest    a Point or Circle on a structure: its closest point          one
           (``coupling.kinematics.structure_contact``; 000 eqs. 5-7,
           002 eqs. 23, 34, 44-45, 57)
grid       a Circle on a structure's fixed candidate points (search     many
           "grid", Eugster-Glocker (004), eqs. 20-25)
rough      a ``Polyline`` on a driven ``Wheel``: refused here (below)    many
========== ============================================================ ==================

``contact_points(system, k, q, u)`` returns ``ContactPoints``: arrays over the pair's candidate
points (one for a single-point pair) of gap, normal, tangent, contact point, parameter, the
candidates' keys and, with rows, the columns W_N, W_T (n, m) and the normal and slip
velocities; a single-point pair also carries its full ``ContactKinematics`` (remainders, the
gap's Hessian: ``ContactPoints.single()``). ``contact_gaps`` is the cheap scan of the gaps
alone (no velocities; a grid pair's gaps without normals) that the Moreau-Jean stepper runs on
every candidate of every pair each sub-step. The warm starts stay with the callers: ``guess``
(the last closest-point parameter of a structure pair) and the run's ``Workspace`` (the curved
profiles' parameters, read and updated here).

The rough polyline pair of the event-driven stepper (Slavic-Boltezar (003)) keeps its own
``coupling.rough_contact.ContactSet``: its candidates depend on time (the wheel turns at a
prescribed rate, so its rows carry the rheonomic terms w_hat of 003 eqs. (7), (13)), its rows
run over the tree alone, and its wear bookkeeping needs each candidate's vertex, segment and
position on it; ``contact_points`` names it and refers there.

The compiled step (``kernels.evaluate``) has its own twin of the line and closest-point
kinds on linear beams, tested against these.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..multibody.tree import point_position
from ..rough import Polyline
from .kinematics import (
    ContactKinematics,
    ContactLeftStructure,
    grid_contacts,
    grid_gaps,
    grid_geometry,
    line_contact,
    line_geometry,
    profile_state,
    structure_contact,
)
from .links import link_kinematics
from .profile_contact import curved_contact

KINDS = ("link", "curved", "line", "closest", "grid", "rough")


@dataclass(frozen=True, eq=False)
class ContactPoints:
    """The candidate contact points of a pair of a model at one state.

    m points, n system velocities. ``normal``, ``tangent`` and ``point`` are None in a grid
    pair's gap scan (``contact_gaps``).

    Parameters
    ----------
    pair : int
        Model index k of the pair.
    kind : str
        One of ``KINDS`` (module docstring).
    key : ndarray of int, shape (m,)
        The candidates' indices (0 for a single-point pair, the grid index of a grid
        candidate).
    gap : ndarray, shape (m,)
        Gaps, m (+inf where ``missing``).
    normal : ndarray, shape (m, 2), or None
        Unit normals, from the target to the profile.
    tangent : ndarray, shape (m, 2), or None
        Unit tangents, the normal turned by -90 degrees.
    point : ndarray, shape (m, 2), or None
        Contact points on the target, m.
    parameter : ndarray, shape (m,)
        Material coordinate on the target, m (a curved pair: eta of its target; NaN on a
        line).
    w_normal : ndarray, shape (n, m), or None, optional
        The columns W_N; None for a grid pair's geometry alone (``rows=False``).
    w_tangent : ndarray, shape (n, m), or None, optional
        The columns W_T; None with ``w_normal``.
    normal_velocity : ndarray, shape (m,), or None, optional
        Normal relative velocities, m/s (None without the rows).
    slip_velocity : ndarray, shape (m,), or None, optional
        Slip velocities, m/s (None without the rows).
    kinematics : ContactKinematics or None, optional
        The kinematics of a single-point pair (None for a grid pair or when ``missing``).
    missing : str, optional
        Why the pair has no contact point (a closest point beyond an end of the structure, a
        curved pair with no candidate point), else "" (the default).

    Examples
    --------
    The disk's centre 8 cm above the strip at x = 0.23 m: one closest point, gap 8 - 5 cm;
    on a grid of 5 candidates the gaps are the distances to the material points minus R:

    >>> from fe_contact import BeamSpec, Circle, ContactPair, Model, Unilateral, assemble
    >>> from fe_contact.multibody.builders import floating_body
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> def disk_over(search):  # a 5 cm disk on a floating body over the straight strip
    ...     pair = ContactPair("disk", Circle(2, 0.05), "strip", Unilateral(0.3), search=search,
    ...                        n_candidates=5)
    ...     return assemble(Model(tree=floating_body(1.0, 1e-3), structures={"strip": strip},
    ...                           contacts=(pair,)))
    >>> system = disk_over("closest")
    >>> q, u = system.initial_state([0.23, 0.08, 0.0])
    >>> p = contact_points(system, 0, q, u)
    >>> p.kind, p.size, round(float(p.gap[0]), 12), round(float(p.parameter[0]), 12)
    ('closest', 1, 0.03, 0.23)
    >>> round(p.single().gap, 12)
    0.03
    >>> grid = contact_points(disk_over("grid"), 0, q, u)
    >>> grid.kind, grid.w_normal.shape, grid.gap.round(4).tolist()
    ('grid', (11, 5), [0.1935, 0.1026, 0.0354, 0.0563, 0.1379])
    """

    pair: int
    kind: str
    key: np.ndarray
    gap: np.ndarray
    normal: np.ndarray | None
    tangent: np.ndarray | None
    point: np.ndarray | None
    parameter: np.ndarray
    w_normal: np.ndarray | None = None
    w_tangent: np.ndarray | None = None
    normal_velocity: np.ndarray | None = None
    slip_velocity: np.ndarray | None = None
    kinematics: ContactKinematics | None = None
    missing: str = ""

    @property
    def size(self) -> int:
        """Number of candidate points m."""
        return int(self.gap.size)

    def single(self) -> ContactKinematics:
        """The ContactKinematics of a single-point pair. Raises ContactLeftStructure when the
        pair has no contact point (``missing``), ValueError for a grid pair (many points)."""
        if self.missing:
            raise ContactLeftStructure(self.missing, pair=self.pair)
        if self.kinematics is None:
            raise ValueError(
                f"contact {self.pair} is a candidate grid of {self.size} points; single() "
                "takes a single-point pair (allowed: kinds link, curved, line, closest)"
            )
        return self.kinematics


def _one(k: int, kind: str, kin: ContactKinematics) -> ContactPoints:
    """ContactPoints of the one point ``kin`` (its arrays are views of kin's)."""
    return ContactPoints(
        pair=k,
        kind=kind,
        key=np.zeros(1, dtype=int),
        gap=np.array([kin.gap]),
        normal=kin.normal[None, :],
        tangent=kin.tangent[None, :],
        point=kin.point[None, :],
        parameter=np.array([kin.parameter], dtype=float),
        w_normal=kin.w_normal[:, None],
        w_tangent=kin.w_tangent[:, None],
        normal_velocity=np.array([kin.normal_velocity]),
        slip_velocity=np.array([kin.slip_velocity]),
        kinematics=kin,
    )


def _none(k: int, kind: str, message: str, parameter: float = np.nan) -> ContactPoints:
    """A pair with no contact point: one candidate at gap +inf."""
    nan2 = np.full((1, 2), np.nan)
    return ContactPoints(
        pair=k,
        kind=kind,
        key=np.zeros(1, dtype=int),
        gap=np.array([np.inf]),
        normal=nan2,
        tangent=nan2,
        point=nan2,
        parameter=np.array([parameter]),
        missing=message,
    )


@dataclass(frozen=True, eq=False)
class PairPlan:
    """What is decided once about a contact pair of a system: its kind (``KINDS``: which sides,
    which search, hence which kinematics are called) and the constants every evaluation of it
    reads. Built by ``pair_plan``; ``contact_points`` and the steppers' per-pair evaluations
    (``steppers.grid_pairs``) take it instead of checking the pair again.

    Parameters
    ----------
    pair : int
        Model index k of the pair.
    kind : str
        One of ``KINDS``.
    name : str
        The pair's name.
    n : int
        Number of system velocities.
    tree : slice
        The tree's columns in the system vector.
    body : int or None
        The profile's body (None for a link).
    local : ndarray, shape (2,), or None
        The profile's centre on its body, body frame, m (None for a link).
    radius : float
        The profile's radius R, m (0 for a point; NaN for a link or a curved pair).
    side : int
        +1 when the profile lies on the side of the target curve's normal, else -1.
    target : str or None
        The target structure's name (None on a line, a profile or for a link).
    columns : slice or None
        The target structure's columns in the system vector (None without a target structure).
    structure : Structure or None
        The target structure (a closest or grid pair), else None.
    grid : object or None
        The candidate grid of a grid pair (``System.grids``: material points s, their rows and
        DOFs), else None.

    Examples
    --------
    A point on a floating body over a rigid line (``pair_plan`` builds the plan):

    >>> from fe_contact import Line, Model, Point, ContactPair, Unilateral, assemble
    >>> from fe_contact.multibody.builders import floating_body
    >>> pair = ContactPair("tip", Point(2, (0.0, 0.0)), Line((0.0, 0.0), (0.0, 1.0)),
    ...                    Unilateral(0.3))
    >>> plan = pair_plan(assemble(Model(tree=floating_body(1.0, 1e-3), contacts=(pair,))), 0)
    >>> plan.kind, plan.radius, plan.columns is None
    ('line', 0.0, True)
    """

    pair: int
    kind: str
    name: str
    n: int
    tree: slice
    body: int | str | None = None
    local: np.ndarray | None = None
    radius: float = np.nan
    side: int = 1
    target: str | None = None
    columns: slice | None = None
    structure: object | None = None
    grid: object | None = None


def pair_plan(system, k: int, search: str | None = None) -> PairPlan:
    """The plan of a contact of the model (``PairPlan``): its kind and constants.

    Parameters
    ----------
    system : System
        The assembled model.
    k : int
        Index of the contact in the model.
    search : {None, "closest"}, optional
        None (the default) for the pair's own search, "closest" to take a grid pair's closest
        point instead of its candidates.

    Returns
    -------
    PairPlan
        The pair's kind and constants.

    Raises
    ------
    ValueError
        When ``search`` is neither None nor "closest".

    Examples
    --------
    >>> from fe_contact import BeamSpec, Circle, ContactPair, Model, Unilateral, assemble
    >>> from fe_contact.multibody.builders import floating_body
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> pair = ContactPair("disk", Circle(2, 0.05), "strip", Unilateral(0.3), search="grid",
    ...                    n_candidates=5)
    >>> system = assemble(Model(tree=floating_body(1.0, 1e-3), structures={"strip": strip},
    ...                         contacts=(pair,)))
    >>> plan = pair_plan(system, 0)
    >>> plan.kind, plan.body, plan.radius, plan.target, plan.grid.s.size
    ('grid', 2, 0.05, 'strip', 5)
    >>> pair_plan(system, 0, search="closest").kind
    'closest'
    """
    pair = system.model.contacts[k]
    if search not in (None, "closest"):
        raise ValueError(f"search must be None or 'closest', got {search!r}")
    lay = system.layout
    common = dict(pair=k, name=pair.name, n=lay.n, tree=lay.tree)
    if pair.link:
        return PairPlan(kind="link", **common)
    # None: a profile on the ground; a str: a body carried by a structure (curved pairs)
    body = pair.profile.body
    body = body if body is None or isinstance(body, str) else int(body)
    local = np.asarray(system.profile_points[k], dtype=float)
    common.update(body=body, local=local, side=int(pair.side))
    if isinstance(pair.profile, Polyline):
        return PairPlan(kind="rough", **common)
    if pair.curved:
        return PairPlan(kind="curved", **common)
    radius = float(pair.profile.radius)
    if not isinstance(pair.target, str):
        return PairPlan(kind="line", radius=radius, **common)
    grid = system.grids[k] if search is None else None
    return PairPlan(
        kind="closest" if grid is None else "grid",
        radius=radius,
        target=pair.target,
        columns=lay.structure(pair.target),
        structure=system.structures[pair.target],
        grid=grid,
        **common,
    )


def pair_kind(system, k: int, search: str | None = None) -> str:
    """The kind (``KINDS``) of a contact of the model: ``pair_plan(system, k, search).kind``.

    Parameters
    ----------
    system : System
        The assembled model.
    k : int
        Index of the contact in the model.
    search : {None, "closest"}, optional
        None (the default) for the pair's own search, "closest" to take a grid pair's closest
        point instead of its candidates.

    Returns
    -------
    str
        One of "link", "curved", "line", "closest", "grid", "rough".

    Raises
    ------
    ValueError
        When ``search`` is neither None nor "closest".

    Examples
    --------
    >>> from fe_contact import BeamSpec, Circle, ContactPair, Model, Unilateral, assemble
    >>> from fe_contact.multibody.builders import floating_body
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> def disk_over(search):  # a 5 cm disk on a floating body over the straight strip
    ...     pair = ContactPair("disk", Circle(2, 0.05), "strip", Unilateral(0.3), search=search,
    ...                        n_candidates=5)
    ...     return assemble(Model(tree=floating_body(1.0, 1e-3), structures={"strip": strip},
    ...                           contacts=(pair,)))
    >>> system = disk_over("grid")
    >>> pair_kind(system, 0), pair_kind(system, 0, search="closest")
    ('grid', 'closest')
    """
    return pair_plan(system, k, search).kind


def contact_points(
    system,
    k: int,
    q,
    u=None,
    guess: float | None = None,
    *,
    rows: bool = True,
    remainder: bool = True,
    candidates=None,
    parameter: float | None = None,
    search: str | None = None,
    workspace=None,
) -> ContactPoints:
    """The kinematics of a contact of the model at (q, u) (module docstring).

    Parameters
    ----------
    system : System
        The assembled model.
    k : int
        Index of the contact in the model.
    q : ndarray, shape (n,)
        Coordinates.
    u : ndarray, shape (n,), or None, optional
        Velocities; None (the default): at rest, for the geometry.
    guess : float or None, optional
        The last contact parameter of a closest-point pair (m), or None (the default: the
        search starts at the nearest node).
    rows : bool, optional
        A grid pair's columns W_N, W_T and velocities (False: its geometry alone; a
        single-point pair always has them); True by default.
    remainder : bool, optional
        The acceleration remainders A, A_T of a single-point pair (``ContactKinematics``);
        True by default.
    candidates : array_like of int, shape (j,), optional
        Indices of the grid candidates wanted; None (the default): all.
    parameter : float or None, optional
        The closest point's parameter already found at this q (no search; ``contact_gaps``
        returned it); None by default.
    search : {None, "closest"}, optional
        None (the default: the pair's own) or "closest" (a grid pair's closest point, as the
        one-point callers see it).
    workspace : Workspace or None, optional
        The run's ``Workspace`` (a curved pair's warm start, read and updated) or None.

    Returns
    -------
    ContactPoints
        The candidate points with their gaps, directions, rows and velocities.

    Raises
    ------
    ValueError
        For a rough pair (its candidates depend on time: ``coupling.rough_contact``) or an
        unknown ``search``.

    Examples
    --------
    A grid pair seen by a one-point caller (``search="closest"``), and two of its candidates:

    >>> from fe_contact import BeamSpec, Circle, ContactPair, Model, Unilateral, assemble
    >>> from fe_contact.multibody.builders import floating_body
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> def disk_over(search):  # a 5 cm disk on a floating body over the straight strip
    ...     pair = ContactPair("disk", Circle(2, 0.05), "strip", Unilateral(0.3), search=search,
    ...                        n_candidates=5)
    ...     return assemble(Model(tree=floating_body(1.0, 1e-3), structures={"strip": strip},
    ...                           contacts=(pair,)))
    >>> system = disk_over("grid")
    >>> q, u = system.initial_state([0.23, 0.08, 0.0])
    >>> contact_points(system, 0, q, u, search="closest").single().normal.round(12).tolist()
    [0.0, 1.0]
    >>> some = contact_points(system, 0, q, u, rows=False, candidates=[2, 3])
    >>> some.key.tolist(), some.w_normal is None, some.parameter.tolist()
    ([2, 3], True, [0.2, 0.30000000000000004])
    """
    plan = pair_plan(system, k, search)
    kind = plan.kind
    if kind == "rough":
        raise ValueError(
            f"contact {plan.name!r} is a rough Polyline on a driven Wheel, whose candidates "
            "depend on time; allowed here: link, curved, line, closest and grid pairs (a rough "
            "pair: coupling.rough_contact.closed_contacts, the event-driven stepper)"
        )
    velocities = np.zeros(plan.n) if u is None else u
    if kind == "link":
        return _one(k, kind, link_kinematics(system, k, q, velocities))
    if kind == "curved":
        kin = curved_contact(system, k, q, velocities, remainder, workspace)
        if kin is None:
            return _none(
                k,
                kind,
                f"contact {plan.name!r} has no candidate contact point (a curve's end, or "
                "parallel flats)",
            )
        return _one(k, kind, kin)
    tree = plan.tree
    if kind == "grid":
        grid = plan.grid
        which = np.arange(grid.s.size) if candidates is None else np.asarray(candidates)
        sl = plan.columns
        positions = grid.positions(q[sl])[which]
        if not rows:
            centre = point_position(system.tree, q[tree], plan.body, plan.local)
            g, normal, tangent = grid_geometry(centre, plan.radius, positions)
            return ContactPoints(k, kind, which, g, normal, tangent, positions, grid.s[which])
        prof = profile_state(system.tree, q[tree], velocities[tree], plan.body, plan.local)
        g, normal, tangent, w_n, w_t, v_n, v_t = grid_contacts(
            prof,
            plan.radius,
            positions,
            grid.dofs[which],
            grid.rows[which],
            velocities[sl],
            sl,
            tree,
            plan.n,
        )
        return ContactPoints(
            k, kind, which, g, normal, tangent, positions, grid.s[which], w_n, w_t, v_n, v_t
        )
    prof = profile_state(system.tree, q[tree], velocities[tree], plan.body, plan.local)
    if kind == "line":
        target = system.model.contacts[k].target
        point, normal, carrier = line_geometry(system.tree, q[tree], velocities[tree], target)
        return _one(k, kind, line_contact(point, normal, prof, tree, plan.n, plan.radius, carrier))
    structure = plan.structure
    sl = plan.columns
    cp = None
    s = parameter
    if s is None:
        s, cp = structure.closest(prof.centre.position, q[sl], guess)
        if cp is None:
            return _none(
                k,
                kind,
                f"contact {plan.name!r} left structure {plan.target!r}: closest point s = "
                f"{s:.6g} m is outside [0, {structure.length:g}] m",
                s,
            )
    kin = structure_contact(
        structure,
        sl,
        q[sl],
        velocities[sl],
        prof,
        tree,
        plan.n,
        plan.radius,
        plan.side,
        s,
        remainder,
        cp,
    )
    return _one(k, kind, kin)


def contact_gaps(system, k: int, q, guess: float | None = None, workspace=None) -> ContactPoints:
    """The gaps of every candidate of a contact at q (at rest, no remainders).

    A grid pair's gaps alone (normal, tangent, point None, no rows); a single-point pair's
    kinematics as ``contact_points`` gives them with u = 0 (its ``parameter`` is the closest
    point found, to keep as the next ``guess``).

    Parameters
    ----------
    system : System
        The assembled model.
    k : int
        Index of the contact in the model.
    q : ndarray, shape (n,)
        Coordinates.
    guess : float or None, optional
        The last contact parameter of a closest-point pair (m), or None (the default: the
        search starts at the nearest node).
    workspace : Workspace or None, optional
        The run's ``Workspace`` (a curved pair's warm start) or None (the default).

    Returns
    -------
    ContactPoints
        The candidates' gaps (and a single-point pair's kinematics).

    Examples
    --------
    >>> from fe_contact import BeamSpec, Circle, ContactPair, Model, Unilateral, assemble
    >>> from fe_contact.multibody.builders import floating_body
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> def disk_over(search):  # a 5 cm disk on a floating body over the straight strip
    ...     pair = ContactPair("disk", Circle(2, 0.05), "strip", Unilateral(0.3), search=search,
    ...                        n_candidates=5)
    ...     return assemble(Model(tree=floating_body(1.0, 1e-3), structures={"strip": strip},
    ...                           contacts=(pair,)))
    >>> system = disk_over("grid")
    >>> q, _ = system.initial_state([0.23, 0.08, 0.0])
    >>> scan = contact_gaps(system, 0, q)
    >>> scan.gap.round(4).tolist(), scan.normal is None
    ([0.1935, 0.1026, 0.0354, 0.0563, 0.1379], True)
    >>> (np.hypot(0.23 - np.linspace(0.0, 0.4, 5), 0.08) - 0.05).round(4).tolist()  # |c - r_i| - R
    [0.1935, 0.1026, 0.0354, 0.0563, 0.1379]
    """
    plan = pair_plan(system, k)
    if plan.kind != "grid":
        return contact_points(system, k, q, None, guess, remainder=False, workspace=workspace)
    centre = point_position(system.tree, q[plan.tree], plan.body, plan.local)
    positions = plan.grid.positions(q[plan.columns])
    g = grid_gaps(centre, plan.radius, positions)
    return ContactPoints(k, "grid", np.arange(g.size), g, None, None, None, plan.grid.s)


__all__ = [
    "KINDS",
    "ContactPoints",
    "PairPlan",
    "contact_gaps",
    "contact_points",
    "pair_kind",
    "pair_plan",
]
