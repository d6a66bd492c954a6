"""Checks of user input, one message form for every parameter of the library:

    "<name>: got <value!r>; allowed: <what>"

``name`` names the parameter where it lives ("BeamSpec.length", "simulate.h", "q0[4]"). A value
of the wrong kind (a string or None where a number belongs, a bool where a count belongs, an
array where a scalar belongs) raises TypeError; a number that is NaN, infinite, out of range or
not an integer where a count belongs, and a sequence of the wrong length, raise ValueError. Each check returns the value converted to
its plain Python (or numpy) form, so a frozen spec stores what it checked.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable, Mapping

import numpy as np

from .limits import MAGNITUDE_HIGH, MAGNITUDE_LOW, LimitExceeded


def fail(name: str, value, allowed: str, error: type[Exception] = ValueError):
    """Raise ``error`` with the library's message form."""
    raise error(f"{name}: got {value!r}; allowed: {allowed}")


def is_number(value) -> bool:
    """True for a real scalar (int, float, numpy scalars), False for bools and everything else."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _bounds(low, high, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f" {'<' if high_open else '<='} {high:g}"
    return ""


def real(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    unit: str = "",
    meaning: str = "a finite number",
) -> float:
    """``value`` as a finite float within the bounds (``low_open``: ``value > low``).

    ``meaning`` and ``unit`` only word the message: real("Circle.radius", r, low=0.0,
    low_open=True, unit="m") allows "a finite number > 0 in m"."""
    allowed = meaning + _bounds(low, high, low_open, high_open) + (f" in {unit}" if unit else "")
    if not is_number(value):
        fail(name, value, allowed, TypeError)
    x = float(value)
    if not math.isfinite(x):
        fail(name, value, allowed)
    if low is not None and (x < low or (low_open and x == low)):
        fail(name, value, allowed)
    if high is not None and (x > high or (high_open and x == high)):
        fail(name, value, allowed)
    if unit:  # a dimensional value: a magnitude the matrices it enters can hold
        _magnitude(name, value, x, allowed, low == 0.0 and low_open)
    return x


def _magnitude(name: str, value, x: float, allowed: str, scale: bool) -> None:
    """Refuse |x| > MAGNITUDE_HIGH and, for a scale (``scale``: a value > 0, such as a length,
    a modulus, a density, a section), x < MAGNITUDE_LOW; see ``fe_contact.limits``. A value
    whose 0 is allowed (a mass, a stiffness, a damping) may be as small as it likes."""
    size = abs(x)
    if size <= MAGNITUDE_HIGH and not (scale and size < MAGNITUDE_LOW):
        return
    band = f"[{MAGNITUDE_LOW:g}, {MAGNITUDE_HIGH:g}]" if scale else f"at most {MAGNITUDE_HIGH:g}"
    fail(
        name,
        value,
        f"{allowed}, of magnitude {band}: beyond it the matrices it enters overflow, "
        "underflow or are singular in floating point",
        LimitExceeded,
    )


def integer(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in [low, high]. A float (even 2.0) is a ValueError, a bool or a
    non-number a TypeError."""
    allowed = "an integer" + _bounds(low, high, False, False)
    if not is_number(value):
        fail(name, value, allowed, TypeError)
    if not isinstance(value, int | np.integer):
        fail(name, value, allowed)
    if (low is not None and value < low) or (high is not None and value > high):
        fail(name, value, allowed)
    return int(value)


def positive_int(name: str, value) -> int:
    """A count or a stride: an int >= 1."""
    return integer(name, value, low=1)


def index(name: str, value, n: int, what: str) -> int:
    """An index into ``n`` existing items called ``what`` ("body", "joint")."""
    allowed = f"a {what} index 0..{n - 1}" if n > 0 else f"none (there is no {what})"
    if not isinstance(value, int | np.integer) or isinstance(value, bool | np.bool_):
        fail(name, value, allowed, TypeError)
    if not 0 <= value < n:
        fail(name, value, allowed)
    return int(value)


def vector(name: str, value, length: int = 2, *, unit: str = "") -> tuple[float, ...]:
    """``value`` as a tuple of ``length`` finite floats (a sequence or a 1-d array)."""
    words = "(x, y)" if length == 2 else f"of {length}"
    allowed = f"{length} finite numbers {words}" + (f" in {unit}" if unit else "")
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        fail(name, value, allowed, TypeError)
    items = tuple(value)
    if len(items) != length:
        fail(name, value, allowed)
    if not all(is_number(v) for v in items):
        fail(name, value, allowed, TypeError)
    if not all(math.isfinite(v) for v in items):
        fail(name, value, allowed)
    if unit:
        for v in items:
            _magnitude(name, value, float(v), allowed, False)
    return tuple(float(v) for v in items)


def choice(name: str, value, allowed: Iterable):
    """``value`` if it is one of ``allowed`` (strings or numbers; True is not taken for 1)."""
    options = tuple(allowed)
    words = "one of " + ", ".join(repr(a) for a in options) if options else "none (there is none)"
    for a in options:
        if isinstance(a, str) and isinstance(value, str) and value == a:
            return a
        if is_number(a) and is_number(value) and value == a:
            return a
    same_kind = any(
        isinstance(value, str) if isinstance(a, str) else is_number(value) for a in options
    )
    fail(name, value, words, ValueError if same_kind else TypeError)


def identifier(name: str, value) -> str:
    """A name used as a label in results and files: a Python identifier."""
    allowed = "a name that is a Python identifier (letters, digits, _)"
    if not isinstance(value, str):
        fail(name, value, allowed, TypeError)
    if not value.isidentifier():
        fail(name, value, allowed)
    return value


def instance(name: str, value, types, what: str):
    """``value`` if it is an instance of ``types`` (``what`` words them), else TypeError."""
    if not isinstance(value, types):
        fail(name, value, what, TypeError)
    return value


def function(name: str, value, what: str = "a callable"):
    """``value`` if it is callable."""
    if not callable(value):
        fail(name, value, what, TypeError)
    return value


def finite_array(name: str, value, shape: tuple[int, ...], labels=None) -> np.ndarray:
    """``value`` as a float array of ``shape`` with finite entries; a bad entry is named
    ``name[i]`` and, when ``labels(i)`` is given, by what the entry is."""
    allowed = f"a real array of shape {shape}"
    if isinstance(value, str | bytes) or value is None:
        fail(name, value, allowed, TypeError)
    if isinstance(value, list | tuple) and len(shape) == 1 and len(value) == shape[0]:
        for i, entry in enumerate(value):  # name the first entry that is not a number
            if not (is_number(entry) or isinstance(entry, np.ndarray) and entry.ndim == 0):
                label = f" ({labels(i)})" if labels is not None else ""
                fail(f"{name}[{i}]{label}", entry, "a real number", TypeError)
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError):
        fail(name, value, allowed, TypeError)
    if array.shape != shape:
        length = f"length {array.shape[0]}, " if array.ndim == 1 else ""
        raise ValueError(f"{name}: got {length}shape {array.shape}; allowed: {allowed}")
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        at = tuple(int(i) for i in bad[0])
        key = ", ".join(str(i) for i in at)
        label = f" ({labels(*at)})" if labels is not None else ""
        fail(f"{name}[{key}]{label}", array[at].item(), "finite values")
    return array


def rule(test=None, /, *, required: bool = False, **options) -> dict:
    """Metadata of a dataclass field (``field(metadata=rule(...))``): its own check
    ``test(name, value, **options)`` (one of this module's, or any callable raising ValueError
    or TypeError), run by ``check_fields`` in ``__post_init__`` and by a model-file reader on
    every field at once; ``required``: a field whose default None the class refuses (a file
    must give its key).

    Examples
    --------
    >>> from dataclasses import dataclass, field
    >>> from fe_contact import validation as check
    >>> @dataclass(frozen=True)
    ... class Rod:
    ...     length: float = field(metadata=check.rule(check.real, low=0.0, low_open=True))
    ...     colour: str = field(default="red", metadata=check.rule(check.choice,
    ...                                                         allowed=("red", "blue")))
    >>> sorted(check.field_errors(Rod, {"length": -1.0, "colour": "green"}))
    ['colour', 'length']
    """
    out = {"required": bool(required)}
    if test is not None:
        out["check"] = functools.partial(test, **options) if options else test
    return out


def field_errors(cls: type, values: Mapping) -> dict[str, Exception]:
    """The error of each field of the dataclass ``cls`` whose value in ``values`` fails its own
    check (``rule``), field name -> ValueError or TypeError, every field at once; a field
    left out of ``values``, or None where the field's default is None, is not checked."""
    out = {}
    for f in dataclasses.fields(cls):
        test = f.metadata.get("check")
        if test is None or f.name not in values:
            continue
        value = values[f.name]
        if value is None and f.default is None:
            continue
        try:
            test(f"{cls.__name__}.{f.name}", value)
        except (ValueError, TypeError) as err:
            out[f.name] = err
    return out


def check_fields(obj) -> None:
    """Raise the error of the first field of the dataclass ``obj`` that fails its own check
    (``rule``), for its ``__post_init__``."""
    values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    for err in field_errors(type(obj), values).values():
        raise err


__all__ = [
    "check_fields",
    "choice",
    "field_errors",
    "fail",
    "finite_array",
    "function",
    "identifier",
    "index",
    "instance",
    "integer",
    "is_number",
    "positive_int",
    "real",
    "rule",
    "vector",
]
