"""Model-file tables derived from the library's dataclasses: a table holds the init fields of a
dataclass under their own names (their type hints and defaults), a ``kind`` tag picks the
member of a union, and the dataclass's own ``__post_init__`` is the one check of the values.
This module only translates (tables -> objects, objects -> TOML values) and says where a key
is: a message of the dataclass is reported at the key path of the key it names
(``contacts.cam.profile.curve.control_points``).

Tagged unions of a model file:

- contact sides (``ContactPair.profile`` and ``.target``), ``SIDES``: point, circle, line,
  profile (a ``Curve`` on a tree body, a ``CarriedBody`` or the plane), polyline (a rough
  ``RoughProfile`` on a tree body), wheel (a ``RoughProfile`` rim turning at ``omega``).
- curves (``Profile.curve``), ``CURVES``: bezier (``control_points``), bspline
  (``control_points``, ``degree``, ``clamped``), the keys of ``Curve.bezier`` and
  ``Curve.bspline``.
- sensors (``[[output.sensors]]``), ``SENSORS``: body_point, body, structure.

Arrays of tables of one class, ``PARTS``: ``[[carried]]`` (``CarriedBody``), ``[[loops]]``
(``LoopClosure``), ``[[loads]]`` (``PointLoad``).

A field whose type admits None and that has no default is None when its key is absent
(``Profile.body``: a profile fixed in the plane); arrays are nested lists (``RoughProfile``'s
(2, n) ``points``: ``[[x0, x1, ...], [y0, y1, ...]]``); floats are written with all their
digits, so that a model read back equals the one written.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing

import numpy as np

from ..curves import Curve
from ..model import CarriedBody, Circle, Line, LoopClosure, Point, PointLoad, Profile
from ..rough import Polyline, Wheel
from ..sensors import BodyPointSensor, BodySensor, StructureSensor
from .model_problems import MISSING, Problem, join, library_call

SIDES: dict[str, type] = {
    "point": Point,
    "circle": Circle,
    "line": Line,
    "profile": Profile,
    "polyline": Polyline,
    "wheel": Wheel,
}
CURVES = {"bezier": Curve.bezier, "bspline": Curve.bspline}
SENSORS: dict[str, type] = {
    "body_point": BodyPointSensor,
    "body": BodySensor,
    "structure": StructureSensor,
}
# arrays of tables of one class each: [[carried]], [[loops]], [[loads]]
PARTS: dict[str, type] = {"carried": CarriedBody, "loops": LoopClosure, "loads": PointLoad}


def admits_none(hint) -> bool:
    """True when the type hint ``hint`` is None or a union with None.

    Examples
    --------
    >>> from fe_contact.io.model_parts import admits_none
    >>> admits_none(int | str | None), admits_none(float)
    (True, False)
    """
    return hint is type(None) or type(None) in typing.get_args(hint)


def fields_of(cls: type) -> dict[str, tuple[object, object]]:
    """The keys of the table of the dataclass ``cls``: its init fields -> (type hint, default),
    the default MISSING for a required key and None for a field that admits None and has no
    default.

    Examples
    --------
    >>> from fe_contact.io.model_parts import fields_of
    >>> from fe_contact.model import CarriedBody, Profile
    >>> {name: default for name, (_, default) in fields_of(CarriedBody).items()}["inertia"]
    0.0
    >>> fields_of(Profile)["body"][1] is None
    True
    """
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        elif admits_none(hints[f.name]):
            default = None
        else:
            default = MISSING
        out[f.name] = (hints[f.name], default)
    return out


def _classes(hint) -> list[type]:
    return [a for a in (hint, *typing.get_args(hint)) if isinstance(a, type)]


def key_reference(kinds: dict[str, type]) -> list[str]:
    """Rows of a Markdown table ``| kind | class | keys |`` for the tagged union ``kinds``
    (tag -> dataclass): each key with its default as TOML, "optional" for None, nothing for
    a required key; the model-file page lists these rows (a test keeps them in step).

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
        rows.append(f"| `{tag}` | `{cls.__name__}` | {', '.join(keys)} |")
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
    """The table of a ``Curve``: ``kind`` (bezier or bspline), ``control_points`` (N, 2) m, and
    for a B-spline its ``degree`` and ``clamped``.

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


def table_of(obj, kinds: dict[str, type] | None = None) -> dict:
    """The table of the dataclass ``obj``: with ``kinds`` (tag -> class), ``kind`` its tag
    first, then every init field whose value is not None (nested dataclasses as tables).

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
        tags = [tag for tag, cls in kinds.items() if type(obj) is cls]
        if not tags:
            allowed = ", ".join(cls.__name__ for cls in kinds.values())
            raise ValueError(
                f"a {type(obj).__name__} cannot be written to a model file; allowed: {allowed}"
            )
        table["kind"] = tags[0]
    for name in fields_of(type(obj)):
        value = getattr(obj, name)
        if value is not None:
            table[name] = _toml(value)
    return table


# -- tables -> objects -----------------------------------------------------------------------


def curve_of(raw, path: tuple, problems: list[Problem]) -> Curve | None:
    """The ``Curve`` of a curve table (``CURVES``); None with the problems added.

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
    allowed_kinds = " or ".join(repr(k) for k in CURVES)
    if not isinstance(raw, dict):
        problems.append(Problem(join(path), raw, f"allowed: a table with kind = {allowed_kinds}"))
        return None
    kind = raw.get("kind", MISSING)
    if kind not in CURVES:
        problems.append(Problem(join(path, "kind"), kind, f"allowed: {allowed_kinds}"))
        return None
    build = CURVES[kind]
    parameters = inspect.signature(build).parameters
    count = len(problems)
    for key, value in raw.items():
        if key != "kind" and key not in parameters:
            keys = ", ".join(("kind", *parameters))
            problems.append(Problem(join(path, key), value, f"unknown key; allowed keys: {keys}"))
    for key, parameter in parameters.items():
        if parameter.default is inspect.Parameter.empty and key not in raw:
            problems.append(Problem(join(path, key), MISSING, "missing; this key is required"))
    if len(problems) > count:
        return None
    values = {key: value for key, value in raw.items() if key != "kind"}
    return library_call(lambda: build(**values), path, raw, problems)


def _value(hint, value, path: tuple, problems: list[Problem]):
    """A key's value for the field of type ``hint``: a table becomes the curve or dataclass
    the hint names; anything else is passed on for the dataclass to check."""
    if isinstance(value, dict):
        classes = _classes(hint)
        if Curve in classes:
            return curve_of(value, path, problems)
        members = [c for c in classes if dataclasses.is_dataclass(c)]
        if len(members) == 1:
            return object_of(members[0], value, path, problems)
    return value


def object_of(cls: type, raw, path: tuple, problems: list[Problem], kinds=None, more=()):
    """The dataclass ``cls`` built from its table ``raw`` (``kinds``: the union it was picked
    from, whose ``kind`` key is allowed; ``more``: keys of the table that others read, named
    among the allowed ones); None with every problem added: unknown and missing keys here,
    the values' by ``cls`` itself.

    Examples
    --------
    >>> from fe_contact.io.model_parts import object_of
    >>> from fe_contact.model import CarriedBody
    >>> problems = []
    >>> object_of(CarriedBody, {"name": "tip", "structure": "beam", "s": 0.4, "mass": -0.1},
    ...           ("carried", 0), problems) is None
    True
    >>> print(problems[0])
    carried.0.mass = -0.1: allowed: a finite number >= 0 in kg (CarriedBody.mass)
    """
    if not isinstance(raw, dict):
        problems.append(Problem(join(path), raw, f"allowed: a table of {cls.__name__}'s keys"))
        return None
    spec = fields_of(cls)
    count = len(problems)
    values = {}
    for key, value in raw.items():
        if key == "kind" and kinds is not None:
            continue
        if key not in spec:
            keys = ", ".join((*(("kind",) if kinds is not None else ()), *spec, *more))
            problems.append(Problem(join(path, key), value, f"unknown key; allowed keys: {keys}"))
            continue
        values[key] = _value(spec[key][0], value, (*path, key), problems)
    for key, (_, default) in spec.items():
        if key in raw:
            continue
        if default is MISSING:
            problems.append(Problem(join(path, key), MISSING, "missing; this key is required"))
        else:  # (a field that admits None may have no default of its own)
            values[key] = default
    if len(problems) > count:
        return None
    return library_call(lambda: cls(**values), path, raw, problems)


def tagged_of(
    kinds: dict[str, type],
    raw,
    path: tuple,
    problems: list[Problem],
    default_kind: str | None = None,
):
    """The member of the union ``kinds`` (tag -> dataclass) that the table's ``kind`` names
    (``default_kind`` when it has none), built from the table; None with the problems added.

    Examples
    --------
    A sensor of the angle of body 0:

    >>> from fe_contact.io.model_parts import SENSORS, tagged_of
    >>> tagged_of(SENSORS, {"kind": "body", "name": "arm", "body": 0}, (), []).quantity
    'angle'
    """
    kind = raw.get("kind", default_kind) if isinstance(raw, dict) else None
    if kind not in kinds:
        allowed = " or ".join(repr(k) for k in kinds)
        if not isinstance(raw, dict):
            problems.append(Problem(join(path), raw, f"allowed: a table with kind = {allowed}"))
        else:
            found = MISSING if kind is None else kind
            problems.append(Problem(join(path, "kind"), found, f"allowed: {allowed}"))
        return None
    return object_of(kinds[kind], raw, path, problems, kinds=kinds)


def side_of(raw, path: tuple, problems: list[Problem], default_kind: str | None = None):
    """The contact side of a table with a ``kind`` tag (``SIDES``; ``default_kind`` when the
    table has none); None with the problems added.

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
    "PARTS",
    "SENSORS",
    "SIDES",
    "admits_none",
    "curve_of",
    "curve_table",
    "fields_of",
    "key_reference",
    "object_of",
    "side_of",
    "table_of",
    "tagged_of",
]
