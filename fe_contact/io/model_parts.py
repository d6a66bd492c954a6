"""Model-file tables derived from the library's dataclasses: a table holds the init fields of a
dataclass under their own names (their type hints and defaults), a ``kind`` tag picks the
member of a union, and the dataclass's own checks are the one check of the values: every
field's own check (its ``validation.rule`` metadata) on every key at once, then its
``__post_init__``. This module only translates (tables -> objects, objects -> TOML values) and
says where a key is: a message of the dataclass is reported at the key path of the key it
names (``contacts.cam.profile.curve.control_points``).

Tagged unions of a model file:

- structures (``[structures.NAME]``), ``STRUCTURES``, tagged by ``type``: beam (``BeamSpec``)
  or string (``StringSpec``, whose ``law`` is tagged by ``type`` from ``TENSION_LAWS`` and
  ``reference`` from ``REFERENCES``, its ``supports`` an array of ``Support`` tables; its
  ``gravity`` is the file's top-level ``gravity``, ``GIVEN``).
- contact sides (``ContactPair.profile`` and ``.target``), ``SIDES``: point, circle, line,
  profile (a ``Curve`` on a tree body, a ``CarriedBody`` or the plane), polyline (a rough
  ``RoughProfile`` on a tree body), wheel (a ``RoughProfile`` rim turning at ``omega``),
  material_point (a ``MaterialPoint`` of a structure: a side of a ``Dropper`` link).
- curves (``Profile.curve``), ``CURVES``: bezier (``control_points``), bspline
  (``control_points``, ``degree``, ``clamped``), the keys of ``Curve.bezier`` and
  ``Curve.bspline``.
- drives (``[[drives]]``), ``DRIVES``: constant_velocity (the default kind) and reversing,
  the parameters of ``Drive.constant_velocity`` and ``Drive.reversing`` (all of them, ``q0``
  too, as the factories require; ``ramp`` has its default).
- sensors (``[[output.sensors]]``), ``SENSORS``: body_point, body, structure.

Arrays of tables of one class, ``PARTS``: ``[[carried]]`` (``CarriedBody``), ``[[loops]]``
(``LoopClosure``), ``[[loads]]`` (``PointLoad``), ``[[supports]]`` (``SpringSupport``).

A field whose type admits None and that has no default is None when its key is absent
(``Profile.body``: a profile fixed in the plane), unless its ``rule`` says it is required
(``Stribeck.v_s``); arrays are nested lists (``RoughProfile``'s (2, n) ``points``:
``[[x0, x1, ...], [y0, y1, ...]]``); floats are written with all their digits, so that a
model read back equals the one written.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing

import numpy as np

from .. import validation as check
from ..curves import Curve
from ..elements.beam_model import BeamSpec
from ..elements.string import (
    LinearElastic,
    NeoHookean,
    NodalReference,
    StraightReference,
    StringSpec,
)
from ..model import LoopClosure, PointLoad
from ..multibody.drive import Drive
from ..rough import Polyline, Wheel
from ..sensors import BodyPointSensor, BodySensor, StructureSensor
from ..sides import CarriedBody, Circle, Line, Point, Profile
from ..structure_points import MaterialPoint, SpringSupport
from .model_problems import MISSING, Problem, join, library_call

SIDES: dict[str, type] = {
    "point": Point,
    "circle": Circle,
    "line": Line,
    "profile": Profile,
    "polyline": Polyline,
    "wheel": Wheel,
    "material_point": MaterialPoint,
}
CURVES = {"bezier": Curve.bezier, "bspline": Curve.bspline}
STRUCTURES: dict[str, type] = {"beam": BeamSpec, "string": StringSpec}  # tag: type
TENSION_LAWS: dict[str, type] = {"neo_hookean": NeoHookean, "linear_elastic": LinearElastic}
REFERENCES: dict[str, type] = {"straight": StraightReference, "nodal": NodalReference}
DRIVES = {"constant_velocity": Drive.constant_velocity, "reversing": Drive.reversing}
SENSORS: dict[str, type] = {
    "body_point": BodyPointSensor,
    "body": BodySensor,
    "structure": StructureSensor,
}
# arrays of tables of one class each: [[carried]], [[loops]], [[loads]], [[supports]]
PARTS: dict[str, type] = {
    "carried": CarriedBody,
    "loops": LoopClosure,
    "loads": PointLoad,
    "supports": SpringSupport,
}
# fields whose value is a member of a tagged union: (class, field) -> (union, its tag key)
UNIONS: dict[tuple[type, str], tuple[dict[str, type], str]] = {
    (StringSpec, "law"): (TENSION_LAWS, "type"),
    (StringSpec, "reference"): (REFERENCES, "type"),
}
# fields that a table does not hold: the file's top level gives them (``gravity``)
GIVEN: dict[type, tuple[str, ...]] = {StringSpec: ("gravity",)}


def admits_none(hint) -> bool:
    """True when a type hint is None or a union with None.

    Parameters
    ----------
    hint : object
        The type hint.

    Returns
    -------
    bool
        Whether None is allowed.

    Examples
    --------
    >>> from fe_contact.io.model_parts import admits_none
    >>> admits_none(int | str | None), admits_none(float)
    (True, False)
    """
    return hint is type(None) or type(None) in typing.get_args(hint)


def fields_of(cls) -> dict[str, tuple[object, object]]:
    """The keys of the table of a dataclass (or the parameters of a factory).

    ``cls`` is the dataclass, or a factory such as ``Drive.reversing``. Without the fields the
    file's top level gives (``GIVEN``).

    Returns
    -------
    dict of str to tuple
        Init field -> (type hint, default); the default is MISSING for a required key (no
        default, or a ``validation.rule`` with ``required``) and None for a field that admits
        None and has no default.

    Examples
    --------
    >>> from fe_contact.io.model_parts import fields_of
    >>> from fe_contact.sides import CarriedBody, Profile
    >>> {name: default for name, (_, default) in fields_of(CarriedBody).items()}["inertia"]
    0.0
    >>> fields_of(Profile)["body"][1] is None
    True
    >>> from fe_contact.laws import Stribeck
    >>> from fe_contact.io.model_problems import MISSING
    >>> fields_of(Stribeck)["v_s"][1] is MISSING  # its default None is refused
    True
    """
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        hints = typing.get_type_hints(cls)
        return {
            name: (hints.get(name), MISSING if p.default is p.empty else p.default)
            for name, p in inspect.signature(cls).parameters.items()
        }
    hints = typing.get_type_hints(cls)
    given = GIVEN.get(cls, ())
    out = {}
    for f in dataclasses.fields(cls):
        if not f.init or f.name in given:
            continue
        if f.metadata.get("required", False):
            default = MISSING
        elif f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        elif admits_none(hints[f.name]):
            default = None
        else:
            default = MISSING
        out[f.name] = (hints[f.name], default)
    return out


def member_name(member) -> str:
    """A union member's name: its class name, or its factory's (``Drive.reversing``).

    Parameters
    ----------
    member : type or callable
        The member.

    Returns
    -------
    str
        Its name.

    Examples
    --------
    >>> from fe_contact.io.model_parts import DRIVES, STRUCTURES, member_name
    >>> member_name(STRUCTURES["beam"]), member_name(DRIVES["reversing"])
    ('BeamSpec', 'Drive.reversing')
    """
    return getattr(member, "__qualname__", getattr(member, "__name__", repr(member)))


def _classes(hint) -> list[type]:
    return [a for a in (hint, *typing.get_args(hint)) if isinstance(a, type)]


def key_reference(kinds: dict[str, type]) -> list[str]:
    """Rows of a Markdown table ``| kind | class | keys |`` for a tagged union.

    Each key with its default as TOML, "optional" for None, nothing for a required key; the
    model-file page lists these rows (a test keeps them in step).

    Parameters
    ----------
    kinds : dict of str to type
        The union: tag -> dataclass or factory.

    Returns
    -------
    list of str
        The table's rows.

    Examples
    --------
    >>> from fe_contact.io.model_parts import SIDES, key_reference
    >>> key_reference(SIDES)[1]
    '| `circle` | `Circle` | `body`, `radius`, `centre` = [0.0, 0.0] |'
    """
    rows = []
    for tag, cls in kinds.items():
        keys = []
        for name, (_, default) in fields_of(cls).items():
            if default is MISSING:
                keys.append(f"`{name}`")
            elif default is None:
                keys.append(f"`{name}` (optional)")
            else:
                keys.append(f"`{name}` = {_literal(_toml(default))}")
        rows.append(f"| `{tag}` | `{member_name(cls)}` | {', '.join(keys)} |")
    return rows


def _literal(value) -> str:
    """A TOML value as written in a file (``true``, ``"newton"``, ``[0.0, 0.0]``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


# -- objects -> tables -----------------------------------------------------------------------


def curve_table(curve: Curve) -> dict:
    """The table of a ``Curve``.

    Parameters
    ----------
    curve : Curve
        The curve.

    Returns
    -------
    dict
        ``kind`` (bezier or bspline), ``control_points`` (N, 2) m, and for a B-spline its
        ``degree`` and ``clamped``.

    Examples
    --------
    >>> from fe_contact.curves import Curve
    >>> from fe_contact.io.model_parts import curve_table
    >>> curve_table(Curve.bezier([(0.0, 0.0), (1.0, 1.0)]))
    {'kind': 'bezier', 'control_points': [[0.0, 0.0], [1.0, 1.0]]}
    """
    table = {"kind": curve.kind, "control_points": np.asarray(curve.control_points).tolist()}
    if curve.kind == "bspline":
        table["degree"], table["clamped"] = int(curve.degree), bool(curve.clamped)
    return table


def _toml(value):
    """A field's value as TOML: nested dataclasses as tables, arrays as nested lists."""
    if isinstance(value, Curve):
        return curve_table(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return table_of(value)
    if isinstance(value, np.ndarray):
        return value.astype(float).tolist()
    if isinstance(value, tuple | list):
        return [_toml(v) for v in value]
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value)
    raise ValueError(f"{value!r} cannot be written to a model file; allowed: numbers, strings")


def table_of(obj, kinds: dict[str, type] | None = None, tag: str = "kind") -> dict:
    """The table of a dataclass object.

    With ``kinds`` (tag -> class), its tag under the key ``tag`` first, then every init field
    whose value is not None (nested dataclasses as tables, a member of a union of ``UNIONS``
    with its tag).

    Parameters
    ----------
    obj : object
        The dataclass object.
    kinds : dict of str to type or None, optional
        The union it belongs to (tag -> class); None (the default): no tag.
    tag : str, optional
        The tag key; "kind" by default.

    Returns
    -------
    dict
        The table.

    Raises
    ------
    ValueError
        When ``obj`` is no member of ``kinds`` (it cannot be written to a model file).

    Examples
    --------
    A circle of radius 0.05 m on body 2, as a contact side:

    >>> from fe_contact import Circle
    >>> from fe_contact.io.model_parts import SIDES, table_of
    >>> table_of(Circle(2, 0.05), SIDES)
    {'kind': 'circle', 'body': 2, 'radius': 0.05, 'centre': [0.0, 0.0]}
    """
    table = {}
    if kinds is not None:
        tags = [key for key, cls in kinds.items() if type(obj) is cls]
        if not tags:
            allowed = ", ".join(member_name(cls) for cls in kinds.values())
            raise ValueError(
                f"a {type(obj).__name__} cannot be written to a model file; allowed: {allowed}"
            )
        table[tag] = tags[0]
    for name in fields_of(type(obj)):
        value = getattr(obj, name)
        if value is None:
            continue
        union = UNIONS.get((type(obj), name))
        table[name] = _toml(value) if union is None else table_of(value, *union)
    return table


def drive_table(drive: Drive) -> dict:
    """The table of a drive made by one of the factories of ``DRIVES``.

    Checked by building it again: the drive must equal the factory's.

    Parameters
    ----------
    drive : Drive
        The drive.

    Returns
    -------
    dict
        Its ``kind`` and the factory's parameters (``joint``; ``q0``, the position's value at
        t = 0; the others, the position motion's fields of the same names).

    Raises
    ------
    ValueError
        For any other drive (Python functions of t).

    Examples
    --------
    >>> from fe_contact import Drive
    >>> from fe_contact.io.model_parts import drive_table
    >>> drive_table(Drive.reversing(1, 0.0, 0.2, t_reverse=0.5))
    {'kind': 'reversing', 'joint': 1, 'q0': 0.0, 'rate': 0.2, 't_reverse': 0.5, 'ramp': 0.02}
    """
    motion = drive.position
    if dataclasses.is_dataclass(motion) and not isinstance(motion, type):
        known = {f.name: getattr(motion, f.name) for f in dataclasses.fields(motion)}
        known.update(joint=drive.joint, q0=getattr(motion, "value", None))
        for kind, build in DRIVES.items():
            names = list(inspect.signature(build).parameters)
            if any(known.get(name) is None for name in names):
                continue
            values = {name: known[name] for name in names}
            try:
                same = build(**values) == drive
            except (ValueError, TypeError):
                continue
            if same:
                return {"kind": kind, **{k: _toml(v) for k, v in values.items()}}
    raise ValueError(
        f"drive on joint {drive.joint}: only constant-velocity and reversing drives "
        "(Drive.constant_velocity, Drive.reversing) can be written to a model file"
    )


# -- tables -> objects -----------------------------------------------------------------------


def curve_of(raw, path: tuple, problems: list[Problem]) -> Curve | None:
    """The ``Curve`` of a curve table (``CURVES``).

    Parameters
    ----------
    raw : dict
        The table.
    path : tuple
        Its key path in the file (for the problems).
    problems : list of Problem
        Where the problems found are added.

    Returns
    -------
    Curve or None
        The curve, or None with the problems added.

    Examples
    --------
    A uniform cubic B-spline, and a Bezier curve with one control point (too few):

    >>> from fe_contact.io.model_parts import curve_of
    >>> points = [[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [3.0, 1.0], [4.0, 0.0]]
    >>> curve = curve_of({"kind": "bspline", "control_points": points, "clamped": False}, (), [])
    >>> curve.degree, curve.clamped
    (3, False)
    >>> problems = []
    >>> curve_of({"kind": "bezier", "control_points": [[0.0, 0.0]]}, ("curve",), problems)
    >>> problems[0].path
    'curve.control_points'
    """
    return tagged_of(CURVES, raw, path, problems)


def _is_tuple(hint) -> bool:
    return any(typing.get_origin(h) is tuple for h in (hint, *typing.get_args(hint)))


def _value(hint, value, path: tuple, problems: list[Problem], union=None):
    """A key's value for the field of type ``hint``: a table becomes the curve, the member of
    ``union`` (kinds, tag) or the dataclass the hint names; an array of tables of a dataclass
    a tuple of them, another array a tuple (a numpy array where the hint says so); anything
    else is passed on for the dataclass to check."""
    if isinstance(value, dict):
        if union is not None:
            return tagged_of(union[0], value, path, problems, tag=union[1])
        classes = _classes(hint)
        if Curve in classes:
            return curve_of(value, path, problems)
        members = [c for c in classes if dataclasses.is_dataclass(c)]
        if len(members) == 1:
            return object_of(members[0], value, path, problems)
    if isinstance(value, list):
        if np.ndarray in _classes(hint):
            try:
                return np.array(value, dtype=float)
            except (TypeError, ValueError):
                problems.append(Problem(join(path), value, "allowed: nested lists of numbers"))
                return None
        if _is_tuple(hint):
            items = [a for h in (hint, *typing.get_args(hint)) for a in typing.get_args(h)]
            members = [c for c in items if dataclasses.is_dataclass(c)]
            if len(members) == 1 and all(isinstance(v, dict) for v in value):
                parts = [
                    object_of(members[0], v, (*path, i), problems) for i, v in enumerate(value)
                ]
                return None if None in parts else tuple(parts)
            return tuple(value)
    return value


def _short(message: str) -> str:
    """ "Sliding.mu: got -0.3; allowed: ..." -> "allowed: ... (Sliding.mu)": the key path and
    the file's value head the problem already."""
    found = re.match(r"\s*([\w.]+(?: \w+)?):\s+got .*?; (allowed: .*)$", message, re.S)
    return f"{found.group(2)} ({found.group(1)})" if found else message


def object_of(
    cls,
    raw,
    path: tuple,
    problems: list[Problem],
    kinds=None,
    more=(),
    tag: str = "kind",
    given: dict | None = None,
):
    """The dataclass ``cls`` (or the factory's product) built from its table.

    Every problem is added: unknown and missing keys here, each field's own check
    (``validation.rule``) on every key, then the values together by ``cls`` itself (the
    dataclass or factory, the first argument).

    Parameters
    ----------
    raw : dict
        The table.
    path : tuple
        Its key path in the file (for the problems).
    problems : list of Problem
        Where the problems found are added.
    kinds : dict of str to type or None, optional
        The union ``cls`` was picked from, whose tag key ``tag`` is allowed; None by default.
    more : tuple of str, optional
        Keys of the table that others read, named among the allowed ones; none by default.
    tag : str, optional
        The tag key; "kind" by default.
    given : dict or None, optional
        Values of the fields the file's top level gives (``GIVEN``); None by default.

    Returns
    -------
    object or None
        The object, or None with the problems added.

    Examples
    --------
    >>> from fe_contact.io.model_parts import object_of
    >>> from fe_contact.sides import CarriedBody
    >>> problems = []
    >>> object_of(CarriedBody, {"name": "tip", "structure": "beam", "s": 0.4, "mass": -0.1},
    ...           ("carried", 0), problems) is None
    True
    >>> print(problems[0])
    carried.0.mass = -0.1: allowed: a finite number >= 0 in kg (CarriedBody.mass)
    """
    name = member_name(cls)
    if not isinstance(raw, dict):
        problems.append(Problem(join(path), raw, f"allowed: a table of {name}'s keys"))
        return None
    spec = fields_of(cls)
    count = len(problems)
    values = {}
    for key, value in raw.items():
        if key == tag and kinds is not None:
            continue
        if key not in spec:
            keys = ", ".join((*((tag,) if kinds is not None else ()), *spec, *more))
            problems.append(Problem(join(path, key), value, f"unknown key; allowed keys: {keys}"))
            continue
        union = UNIONS.get((cls, key))
        values[key] = _value(spec[key][0], value, (*path, key), problems, union)
    for key, (_, default) in spec.items():
        if key in raw:
            continue
        if default is MISSING:
            problems.append(Problem(join(path, key), MISSING, "missing; this key is required"))
        else:  # (a field that admits None may have no default of its own)
            values[key] = default
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):  # every key's own check
        own = {key: values[key] for key in raw if key in values}
        for key, err in check.field_errors(cls, own).items():
            problems.append(Problem(join(path, key), raw[key], _short(str(err))))
    if len(problems) > count:
        return None
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        values.update({k: v for k, v in (given or {}).items() if k in GIVEN.get(cls, ())})
    return library_call(lambda: cls(**values), path, raw, problems)


def tagged_of(
    kinds: dict[str, type],
    raw,
    path: tuple,
    problems: list[Problem],
    default_kind: str | None = None,
    tag: str = "kind",
    given: dict | None = None,
):
    """The member of a tagged union built from its table.

    The table's tag key ``tag`` names the member (``default_kind`` when it has none).

    Parameters
    ----------
    kinds : dict of str to type
        The union: tag -> dataclass or factory.
    raw : dict
        The table.
    path : tuple
        Its key path in the file (for the problems).
    problems : list of Problem
        Where the problems found are added.
    default_kind : str or None, optional
        The kind of a table without a tag; None (the default): the tag is required.
    tag : str, optional
        The tag key; "kind" by default.
    given : dict or None, optional
        See ``object_of``; None by default.

    Returns
    -------
    object or None
        The member, or None with the problems added.

    Examples
    --------
    A sensor of the angle of body 0:

    >>> from fe_contact.io.model_parts import SENSORS, tagged_of
    >>> tagged_of(SENSORS, {"kind": "body", "name": "arm", "body": 0}, (), []).quantity
    'angle'
    """
    kind = raw.get(tag, default_kind) if isinstance(raw, dict) else None
    if not isinstance(kind, str) or kind not in kinds:
        allowed = " or ".join(repr(k) for k in kinds)
        if not isinstance(raw, dict):
            problems.append(Problem(join(path), raw, f"allowed: a table with {tag} = {allowed}"))
        else:
            found = MISSING if kind is None else kind
            problems.append(Problem(join(path, tag), found, f"allowed: {allowed}"))
        return None
    return object_of(kinds[kind], raw, path, problems, kinds=kinds, tag=tag, given=given)


def side_of(raw, path: tuple, problems: list[Problem], default_kind: str | None = None):
    """The contact side of a table with a ``kind`` tag (``SIDES``).

    Parameters
    ----------
    raw : dict
        The table.
    path : tuple
        Its key path in the file (for the problems).
    problems : list of Problem
        Where the problems found are added.
    default_kind : str or None, optional
        The kind of a table without a tag; None (the default): the tag is required.

    Returns
    -------
    object or None
        The side, or None with the problems added.

    Examples
    --------
    A parabolic face y = x^2 on tree body 0 (a quadratic Bezier curve):

    >>> from fe_contact.io.model_parts import side_of
    >>> face = side_of({"kind": "profile", "body": 0, "curve": {"kind": "bezier",
    ...                 "control_points": [[-1.0, 1.0], [0.0, -1.0], [1.0, 1.0]]}}, (), [])
    >>> round(face.curve.at(0.5).curvature, 12)
    2.0
    """
    return tagged_of(SIDES, raw, path, problems, default_kind)


__all__ = [
    "CURVES",
    "DRIVES",
    "GIVEN",
    "PARTS",
    "REFERENCES",
    "SENSORS",
    "SIDES",
    "STRUCTURES",
    "TENSION_LAWS",
    "UNIONS",
    "admits_none",
    "curve_of",
    "curve_table",
    "drive_table",
    "fields_of",
    "key_reference",
    "member_name",
    "object_of",
    "side_of",
    "table_of",
    "tagged_of",
]
