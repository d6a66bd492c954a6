"""The tables of a model file (TOML) that are not a library dataclass's, as pydantic models:
the top level, the tree, the contact table (its profile flattened), the initial state, the
stepper and the outputs; one class per table, unknown keys rejected, SI units throughout. The
structures, drives and every other part are tables derived from their dataclasses
(``fe_contact.io.model_parts``), checked by those classes alone.

A model file::

    gravity = [0.0, -9.81]            # m/s^2, one gravity for every part
    structure_gravity = true          # the structures' own weight

    [structures.beam]                 # a BeamSpec (type "beam") or StringSpec (type "string"):
                                      # the dataclass's fields (io.model_parts)
    type = "beam"
    length = 0.4
    ...

    [[tree.bodies]]                   # bodies in order, each with the joint to its parent
    mass = 0.02
    inertia = 0.0
    joint = { kind = "prismatic", parent = 0, angle = 1.5707963267948966 }

    [contacts.tip]                    # a ContactPair: profile, target, law flattened
    profile = "point"
    body = 1
    target = "beam"
    law = "sliding"
    mu = 0.2

    [initial]                         # the state at t_start; omitted parts start at rest,
    tree_q = [0.1, 0.0]               # structures in their reference configuration
    tree_u = [0.5, 0.0]
    # static = true                   # or: the static equilibrium at rest, from tree_q / q

    [simulation]                      # the stepper, its step and settings
    method = "generalized-alpha"
    t_end = 0.5
    h = 1e-4
    rho_inf = 0.9

    [output]
    frame_every = 0.01                # s between ParaView frames (0: none)
    results = ["final:tip_parameter", "max:tip_normal_force"]
"""

from __future__ import annotations

import inspect
import textwrap
import types
import typing
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..constants import STANDARD_GRAVITY
from ..laws import FILE_LAWS, file_keys
from ..reductions import STATISTICS  # the statistics of [output] results

FORMAT = 1
Pair = Annotated[list[float], Field(min_length=2, max_length=2)]
Positive = Annotated[float, Field(gt=0.0)]
NonNegative = Annotated[float, Field(ge=0.0)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
Index = Annotated[int, Field(ge=0)]


class Table(BaseModel):
    """A table of the file: strict types (an integer is a number, a string is not), no
    unknown keys.

    Examples
    --------
    Every table refuses unknown keys and values of the wrong type (here ``[initial]``):

    >>> from fe_contact.io.model_schema import InitialTable
    >>> InitialTable(static=True, colour="red")
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for InitialTable
    colour
      Extra inputs are not permitted ...
    """

    model_config = ConfigDict(extra="forbid", strict=True)


class Document(Table):
    """The top level of a model file: the parts are validated one by one by the classes below.

    Parameters
    ----------
    format : int, optional
        The file format's version, 1 (the default).
    gravity : list of float, shape (2,), optional
        (g_x, g_y), m/s^2; [0, -9.81] by default.
    structure_gravity : bool, optional
        Apply gravity to the structures; true by default.
    structures : dict of str to dict, optional
        Structure name -> its table (a beam's or a string's keys).
    tree : dict or None, optional
        The tree's table (``TreeTable``); None: no tree.
    contacts : dict of str to dict, optional
        Contact name -> its table (``ContactTable``).
    drives : list of dict, optional
        Drive tables.
    loops : list of dict, optional
        Loop closure tables.
    loads : list of dict, optional
        Point load tables.
    supports : list of dict, optional
        Spring support tables.
    carried : list of dict, optional
        Carried body tables.
    initial : dict, optional
        The start (``InitialTable``).
    simulation : dict, optional
        The stepper of a run (``GeneralizedAlphaTable``, ``MoreauTable``,
        ``EventDrivenTable``).
    output : dict, optional
        What a run writes (``OutputTable``).

    Examples
    --------
    The top level of a model file, as a dict read from TOML:

    >>> from fe_contact.io.model_schema import Document
    >>> doc = Document(gravity=[0.0, -9.81], tree={"bodies": [{"mass": 1.0, "inertia": 0.0,
    ...                                                        "joint": {"kind": "revolute"}}]})
    >>> doc.format, doc.structure_gravity
    (1, True)
    """

    format: Literal[1] = FORMAT
    gravity: Pair = list(STANDARD_GRAVITY)
    structure_gravity: bool = True
    structures: dict[str, dict] = {}
    tree: dict | None = None
    contacts: dict[str, dict] = {}
    drives: list[dict] = []
    loops: list[dict] = []
    loads: list[dict] = []
    supports: list[dict] = []
    carried: list[dict] = []
    initial: dict = {}
    simulation: dict = {}
    output: dict = {}


# -- tree ------------------------------------------------------------------------------------


class NamedPointTable(Table):
    """A named point of the tree.

    Parameters
    ----------
    body : int
        Index of the tree body, >= 0.
    at : list of float, shape (2,)
        (x, y) in m in the frame of ``body``.

    Examples
    --------
    >>> from fe_contact.io.model_schema import NamedPointTable
    >>> NamedPointTable(body=2, at=[0.3, 0.0]).at
    [0.3, 0.0]
    """

    body: Index
    at: Pair


class TreeTable(Table):
    """``TreeModel``: its bodies (each with its joint) and named points.

    Parameters
    ----------
    bodies : list of dict
        One table per body, with a Body's keys and its joint's; at least one.
    points : dict of str to NamedPointTable, optional
        Named points; none by default.

    Examples
    --------
    >>> from fe_contact.io.model_schema import TreeTable
    >>> tree = TreeTable(bodies=[{"mass": 1.0, "inertia": 0.0, "joint": {"kind": "revolute"}}],
    ...                  points={"tip": {"body": 0, "at": [0.3, 0.0]}})
    >>> tree.points["tip"].at
    [0.3, 0.0]
    """

    bodies: Annotated[list[dict], Field(min_length=1)]  # each a Body's keys and its joint
    points: dict[str, NamedPointTable] = {}


# -- contacts, drives, loops, loads ----------------------------------------------------------


class ContactKeys(Table):
    """``ContactPair`` with its law flattened.

    The laws' keys (their dataclass fields: sliding ``mu``, ``mu_s``, ``v0``; unilateral
    ``mu``, ``restitution_normal``, ``restitution_tangent``, ``impact``, ``reversibility``; ...)
    are added by ``contact_table`` and checked by the law alone.

    Parameters
    ----------
    profile : str or dict, optional
        "point" (the default: on ``body`` at ``at``), "circle" (``radius`` about ``centre``),
        or a side table with a ``kind`` (``io.model_parts.SIDES``: profile, polyline, ...).
    body : int or None, optional
        Tree body of a point or circle profile, >= 0.
    at : list of float, shape (2,), str or None, optional
        A point profile's coordinates (m, in the body's frame) or a named point.
    radius : float or None, optional
        A circle profile's radius, m (> 0).
    centre : list of float, shape (2,), or None, optional
        A circle profile's centre, m in the body's frame.
    target : str or dict
        A structure name or a side table (line, profile, wheel; a table without ``kind`` is a
        line).
    law : str, optional
        One of ``fe_contact.laws.FILE_LAWS``; "sliding" by default.
    side : {1, -1}, optional
        As ``ContactPair.side``; 1 by default.
    search : {"closest", "grid"}, optional
        As ``ContactPair.search``; "closest" by default.
    n_candidates : int, optional
        As ``ContactPair.n_candidates``; 0 by default.

    Examples
    --------
    The end of body 2 sliding with mu = 0.2 on the structure "beam":

    >>> from fe_contact.io.model_schema import ContactTable
    >>> table = ContactTable(body=2, at=[0.3, 0.0], target="beam", law="sliding", mu=0.2)
    >>> table.profile, table.mu
    ('point', 0.2)
    """

    profile: str | dict = "point"
    body: Index | None = None
    at: Pair | str | None = None
    radius: Positive | None = None
    centre: Pair | None = None
    target: str | dict
    law: str = "sliding"
    side: Literal[1, -1] = 1
    search: Literal["closest", "grid"] = "closest"
    n_candidates: Index = 0


def contact_table() -> type[Table]:
    """The contact table's class: ``ContactKeys`` with every key of the laws a model file takes.

    ``law`` is one of the laws a model file takes (``fe_contact.laws.FILE_LAWS``) and every key
    of those laws (their dataclass fields) is a key, optional and of any type here: the law
    checks their values, in one place (a law defined after this module was imported is taken
    too: the class is built again when FILE_LAWS grows).

    Returns
    -------
    type
        The pydantic model class ``ContactTable``.

    Examples
    --------
    The Stribeck law's keys are keys of the contact table:

    >>> from fe_contact.io.model_schema import contact_table
    >>> {"v_s", "c_v"} <= set(contact_table().model_fields)
    True
    """
    names = tuple(FILE_LAWS)
    if names not in _CONTACT_TABLES:
        extra = {}
        for law in FILE_LAWS.values():
            for key in file_keys(law):
                if key not in ContactKeys.model_fields and key not in extra:
                    extra[key] = (typing.Any, None)
        table = create_model(
            "ContactTable", __base__=ContactKeys, law=(Literal[names], "sliding"), **extra
        )
        table.__doc__ = _contact_table_doc()  # (pydantic 2.0 takes a __doc__ keyword as a field)
        _CONTACT_TABLES[names] = table
    return _CONTACT_TABLES[names]


_CONTACT_TABLES: dict[tuple, type] = {}

_CONTACT_TABLE_SUMMARY = """A model file's contact table: ``ContactKeys`` and the keys of every law it takes.

``law`` is one of the laws a model file takes (``fe_contact.laws.FILE_LAWS``); each key of those
laws (their dataclass fields) is an optional key here, of any type: the law named by ``law``
checks the keys it takes (``laws.law_from_table``), and a key of another law is refused there."""


def _type_words(hint) -> str:
    """A type hint in a docstring's words: ``float | None`` -> "float or None"."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    args = typing.get_args(hint) if union else (hint,)
    return " or ".join("None" if a is type(None) else getattr(a, "__name__", str(a)) for a in args)


def _contact_table_doc() -> str:
    """ContactTable's docstring: its summary, ContactKeys's parameters, one entry per key of
    the file laws (with the laws that take it and its types), ContactKeys's example."""
    keys_doc = inspect.cleandoc(ContactKeys.__doc__)
    parameters = keys_doc.split("\nParameters\n----------\n", 1)[1]
    parameters, examples = parameters.split("\nExamples\n--------\n", 1)
    owners: dict[str, list[tuple[str, type, object]]] = {}
    for name, law in FILE_LAWS.items():
        for key, hint in file_keys(law).items():
            if key not in ContactKeys.model_fields:
                owners.setdefault(key, []).append((name, law, hint))
    entries = []
    for key, laws in owners.items():
        kinds = " or ".join(dict.fromkeys(_type_words(hint) for _, _, hint in laws))
        fields = ", ".join(f"``{law.__name__}.{key}``" for _, law, _ in laws)
        text = (
            f"Taken by the law(s) {', '.join(repr(name) for name, _, _ in laws)} ({fields}: "
            "unit and range as there); omitted: the law's default, where it has one."
        )
        entries.append(
            f"{key} : {kinds}, optional\n"
            + textwrap.fill(text, 92, initial_indent="    ", subsequent_indent="    ")
        )
    return (
        f"{_CONTACT_TABLE_SUMMARY}\n\nParameters\n----------\n{parameters.rstrip()}\n"
        + "\n".join(entries)
        + f"\n\nExamples\n--------\n{examples}"
    )


ContactTable = contact_table()


# -- initial state, simulation, output -------------------------------------------------------


class StructureStateTable(Table):
    """Free coordinates and velocities of a structure, in the order of ``system.layout``.

    Parameters
    ----------
    q : list of float or None, optional
        Free coordinates; None (the default): the reference configuration.
    u : list of float or None, optional
        Free velocities; None (the default): at rest.

    Examples
    --------
    >>> from fe_contact.io.model_schema import StructureStateTable
    >>> StructureStateTable(q=[0.0] * 8).u is None
    True
    """

    q: list[float] | None = None
    u: list[float] | None = None


class InitialTable(Table):
    """The state at t_start.

    Parameters
    ----------
    static : bool, optional
        True: the static equilibrium at rest (``fe_contact.static_equilibrium``), from tree_q
        / q as the guess; false by default.
    tree_q : list of float or None, optional
        Tree coordinates (m or rad); None: zeros.
    tree_u : list of float or None, optional
        Tree velocities (m/s or rad/s); None: at rest.
    structures : dict of str to StructureStateTable, optional
        Structure name -> its state; none by default.

    Examples
    --------
    >>> from fe_contact.io.model_schema import InitialTable
    >>> InitialTable(static=True, tree_q=[0.01]).static
    True
    """

    static: bool = False
    tree_q: list[float] | None = None
    tree_u: list[float] | None = None
    structures: dict[str, StructureStateTable] = {}


class GeneralizedAlphaTable(Table):
    """Settings of ``steppers.genalpha.GeneralizedAlpha``; a setting left out takes its default.

    Parameters
    ----------
    method : {"generalized-alpha"}
        The stepper.
    t_start : float, optional
        Start of the run, s; 0 by default.
    t_end : float
        End of the run, s.
    h : float or None, optional
        Step, s (> 0).
    rho_inf : float or None, optional
        Spectral radius at infinite frequency, in [0, 1].
    tol : float or None, optional
        Newton tolerance on the position correction, m (or rad).
    rtol : float or None, optional
        Relative Newton tolerance on the acceleration correction.
    max_newton : int or None, optional
        Newton iterations per step, >= 1.
    max_halvings : int or None, optional
        A step whose Newton iteration fails is retried as two halves, recursively this deep.
    recondition : float or None, optional
        The dependent coordinates are chosen anew when cond(J_u) grows by this factor.
    event_tol : float or None, optional
        A contact event is located to this time, s.
    max_events : int or None, optional
        More events than this within one step stop the run (chattering), >= 1.
    gap_tol : float or None, optional
        At the start a unilateral contact with |gap| <= gap_tol (m) and no normal velocity is
        closed, >= 0.
    min_substep : float or None, optional
        The smallest sub-step of the continuous friction law's step-size control, s.
    error_tol : float or None, optional
        A local error bound per sub-step (m, rad); None: fixed steps.
    energy_consistent : bool or None, optional
        The discrete-gradient form of the trapezoidal rule (rho_inf = 1 only).

    Examples
    --------
    >>> from fe_contact.io.model_schema import GeneralizedAlphaTable
    >>> GeneralizedAlphaTable(method="generalized-alpha", t_end=0.6, h=1e-4).t_start
    0.0
    """

    method: Literal["generalized-alpha"]
    t_start: float = 0.0
    t_end: float
    h: Positive | None = None
    rho_inf: Fraction | None = None
    tol: Positive | None = None
    rtol: Positive | None = None
    max_newton: Annotated[int, Field(ge=1)] | None = None
    max_halvings: Index | None = None
    recondition: Positive | None = None
    event_tol: Positive | None = None
    max_events: Annotated[int, Field(ge=1)] | None = None
    gap_tol: NonNegative | None = None
    min_substep: Positive | None = None
    error_tol: Positive | None = None
    energy_consistent: bool | None = None


class MoreauTable(Table):
    """Settings of ``steppers.moreau.MoreauJean``; a setting left out takes its default.

    Parameters
    ----------
    method : {"moreau"}
        The stepper.
    t_start : float, optional
        Start of the run, s; 0 by default.
    t_end : float
        End of the run, s.
    h : float or None, optional
        Step, s (> 0).
    theta : float or None, optional
        The weight of the end velocity in the velocity the impulses work with, in [1/2, 1].
    tol : float or None, optional
        Tolerance of the contact solver, m/s.
    max_iterations : int or None, optional
        Sweeps of the contact solver per step.
    penetration_tolerance : float or None, optional
        A (sub-)step after which a candidate would penetrate deeper than this (m) is replaced
        by two half steps.
    max_halvings : int or None, optional
        How deep such halving recurses.

    Examples
    --------
    >>> from fe_contact.io.model_schema import MoreauTable
    >>> MoreauTable(method="moreau", t_end=1.0, h=1e-3).h
    0.001
    """

    method: Literal["moreau"]
    t_start: float = 0.0
    t_end: float
    h: Positive | None = None
    theta: Annotated[float, Field(ge=0.5, le=1.0)] | None = None
    tol: Positive | None = None
    max_iterations: Annotated[int, Field(ge=1)] | None = None
    penetration_tolerance: Positive | None = None
    max_halvings: Index | None = None


class EventDrivenTable(Table):
    """Settings of ``steppers.event_driven.EventDriven`` (rough pairs, Poisson's impacts with
    reversibility); a setting left out takes its default.

    Parameters
    ----------
    method : {"event-driven"}
        The stepper.
    t_start : float, optional
        Start of the run, s; 0 by default.
    t_end : float
        End of the run, s.
    h : float or None, optional
        The largest step, s (> 0).
    penetration : float or None, optional
        The largest penetration of a closing contact, m (> 0).
    closing : float or None, optional
        Gap below which a contact is closed, m.
    impact_velocity : float or None, optional
        Approach speed above which a closed contact impacts, m/s.
    max_halvings : int or None, optional
        How often a step may be halved to locate a closing.

    Examples
    --------
    >>> from fe_contact.io.model_schema import EventDrivenTable
    >>> EventDrivenTable(method="event-driven", t_end=1e-4, h=1e-7).h
    1e-07
    """

    method: Literal["event-driven"]
    t_start: float = 0.0
    t_end: float
    h: Positive | None = None
    penetration: Positive | None = None
    closing: Positive | None = None
    impact_velocity: Positive | None = None
    max_halvings: Index | None = None


METHODS = {
    "generalized-alpha": GeneralizedAlphaTable,
    "moreau": MoreauTable,
    "event-driven": EventDrivenTable,
}
SIMULATION_KEYS = ("method", "t_start", "t_end", "h")


class OutputTable(Table):
    """What a run writes.

    Parameters
    ----------
    frame_every : float, optional
        Simulated time between ParaView frames, s (>= 0; 0: no frames); 0.01 by default.
    results : list of str, optional
        The scalar results of a run, ``"STATISTIC:COLUMN"`` with STATISTIC one of final,
        initial, max, min, mean, max_abs (summary of a sweep).
    plot : str or None, optional
        The result drawn against the varied parameter of a sweep; None (the default): the first
        of ``results``.
    sensors : list of dict, optional
        ``[[output.sensors]]`` tables, each with a ``kind`` (body_point, body, structure):
        named history columns (``fe_contact.sensors``; ``Model.sensors``).

    Examples
    --------
    >>> from fe_contact.io.model_schema import OutputTable
    >>> OutputTable(frame_every=0.02, results=["max:tip_normal_force"]).results
    ['max:tip_normal_force']
    """

    frame_every: NonNegative = 0.01
    results: list[str] = []
    plot: str | None = None
    sensors: list[dict] = []


__all__ = [
    "FORMAT",
    "METHODS",
    "SIMULATION_KEYS",
    "STATISTICS",
    "ContactKeys",
    "ContactTable",
    "Document",
    "InitialTable",
    "OutputTable",
    "TreeTable",
    "contact_table",
]
