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

import typing
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

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
    """The top level: the parts are validated one by one by the classes below.

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
    gravity: Pair = [0.0, -9.81]
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
    """A named point of the tree: (x, y) ``at`` in m in the frame of ``body``.

    Examples
    --------
    >>> from fe_contact.io.model_schema import NamedPointTable
    >>> NamedPointTable(body=2, at=[0.3, 0.0]).at
    [0.3, 0.0]
    """

    body: Index
    at: Pair


class TreeTable(Table):
    """``TreeModel``: its ``bodies`` (each with its joint) and named ``points``.

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
    """``ContactPair`` with its law flattened: ``profile`` point (on ``body`` at ``at``:
    coordinates or a named point) or circle (``radius`` about ``centre``), or a side table
    with a ``kind`` (``io.model_parts.SIDES``: profile, polyline, ...); ``target`` a
    structure name or a side table (line, profile, wheel; a table without ``kind`` is a
    line); ``law`` one of ``fe_contact.laws.FILE_LAWS`` with its keys (its
    dataclass fields): sliding (``mu``, ``mu_s`` the static coefficient, default mu, ``v0``
    its continuous law's characteristic velocity) or unilateral (``mu``,
    ``restitution_normal``, ``restitution_tangent``, ``impact``, ``reversibility``), ...; the
    laws' keys are added by ``contact_table`` and checked by the law alone.

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
    """The contact table's class: ``ContactKeys`` with ``law`` one of the laws a model file
    takes (``fe_contact.laws.FILE_LAWS``) and every key of those laws (their dataclass
    fields), optional and of any type here: the law checks their values, in one place (a
    law defined after this module was imported is taken too: the class is built again when
    FILE_LAWS grows).

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
        table.__doc__ = ContactKeys.__doc__  # (pydantic 2.0 takes a __doc__ keyword as a field)
        _CONTACT_TABLES[names] = table
    return _CONTACT_TABLES[names]


_CONTACT_TABLES: dict[tuple, type] = {}
ContactTable = contact_table()


# -- initial state, simulation, output -------------------------------------------------------


class StructureStateTable(Table):
    """Free coordinates and velocities of a structure, in the order of ``system.layout``.

    Examples
    --------
    >>> from fe_contact.io.model_schema import StructureStateTable
    >>> StructureStateTable(q=[0.0] * 8).u is None
    True
    """

    q: list[float] | None = None
    u: list[float] | None = None


class InitialTable(Table):
    """The state at t_start; ``static = true``: the static equilibrium at rest
    (``fe_contact.static_equilibrium``), from tree_q / q as the guess.

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
    """Settings of ``steppers.genalpha.GeneralizedAlpha``.

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
    """Settings of ``steppers.moreau.MoreauJean``.

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
    reversibility).

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
    """``frame_every`` : s of simulated time between ParaView frames (0: no frames).
    ``results`` : the scalar results of a run, ``"STATISTIC:COLUMN"`` with STATISTIC one of
    final, initial, max, min, mean, max_abs (summary of a sweep). ``plot`` : the result drawn
    against the varied parameter of a sweep (default: the first of ``results``).
    ``sensors`` : ``[[output.sensors]]`` tables, each with a ``kind`` (body_point, body,
    structure): named history columns (``fe_contact.sensors``; ``Model.sensors``).

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
