"""Problems found in a model file: each with its key path (``contacts.tip.mu``), the value and
what is allowed, collected so that a file with several mistakes reports them all at once."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ValidationError

MISSING = object()  # the value of a key that is not in the file


@dataclass(frozen=True)
class Problem:
    """One mistake: ``path`` (dotted key path, list items by index), the value found there
    (``MISSING`` for an absent key) and the message (ending with what is allowed)."""

    path: str
    value: object
    message: str

    def __str__(self) -> str:
        where = self.path or "(top level)"
        if self.value is MISSING:
            return f"{where}: {self.message}"
        return f"{where} = {self.value!r}: {self.message}"


class ModelFileError(ValueError):
    """A model file that cannot be used: the file and every problem (a ValueError).

    Parameters
    ----------
    source : str
        The file (or "<model>").
    problems : list of Problem
        Every problem found, each naming its key path, the value and what is allowed.

    Examples
    --------
    >>> from fe_contact import ModelFileError
    >>> issubclass(ModelFileError, ValueError)
    True
    """

    def __init__(self, source: str, problems: list[Problem]):
        self.source = str(source)
        self.problems = list(problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        count = len(self.problems)
        super().__init__(f"{self.source}: {count} problem{'s' * (count != 1)}\n{lines}")

    def one_line(self) -> str:
        """The first problem in one line (and how many more there are)."""
        more = len(self.problems) - 1
        tail = f" (and {more} more problem{'s' * (more != 1)})" if more > 0 else ""
        return f"{self.source}: {self.problems[0]}{tail}"


def join(path: tuple, *more) -> str:
    return ".".join(str(p) for p in (*path, *more))


def _clean_loc(data, loc: tuple, kind: str) -> tuple:
    """The key path of a pydantic error location without pydantic's union branch tags: an
    element is kept when it indexes the data (or names the missing key at the end)."""
    out, current = [], data
    for i, key in enumerate(loc):
        if isinstance(current, dict) and key in current:
            out.append(key)
            current = current[key]
        elif isinstance(current, list) and isinstance(key, int) and 0 <= key < len(current):
            out.append(key)
            current = current[key]
        elif kind == "missing" and i == len(loc) - 1:
            out.append(key)
    return tuple(out)


def _value_at(data, loc: tuple):
    for key in loc:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return data


def _allowed(err: dict, cls: type[BaseModel], data, loc: tuple) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        fields = _fields_at(cls, loc[:-1])
        known = ", ".join(fields) if fields else "none"
        return f"unknown key; allowed keys: {known}"
    if kind == "missing":
        return "missing; this key is required"
    return err["msg"].replace("Input should be ", "allowed: ", 1)


def _fields_at(cls: type[BaseModel], loc: tuple) -> list[str]:
    """The keys of the table at ``loc`` inside ``cls`` (for an unknown-key message)."""
    import typing

    for key in loc:
        if isinstance(key, int):
            continue
        field = cls.model_fields.get(key) if isinstance(cls, type) else None
        if field is None:
            return []
        found = None
        for arg in (field.annotation, *typing.get_args(field.annotation)):
            for inner in (arg, *typing.get_args(arg)):
                if isinstance(inner, type) and issubclass(inner, BaseModel):
                    found = inner
        if found is None:
            return []
        cls = found
    return list(cls.model_fields)


def validate(cls: type[BaseModel], data, path: tuple, problems: list[Problem]):
    """``cls.model_validate(data)``, or None with every error added to ``problems``."""
    try:
        return cls.model_validate(data)
    except ValidationError as error:
        merged: dict[tuple, list[str]] = {}
        for err in error.errors():
            loc = _clean_loc(data, tuple(err["loc"]), err["type"])
            text = _allowed(err, cls, data, loc)
            if text not in merged.setdefault(loc, []):
                merged[loc].append(text)
        for loc, texts in merged.items():
            if len(texts) > 1 and all(t.startswith("allowed: ") for t in texts):
                texts = ["allowed: " + " or ".join(t[len("allowed: ") :] for t in texts)]
            problems.append(Problem(join(path, *loc), _value_at(data, loc), "; ".join(texts)))
        return None


def library_call(build, path: tuple, raw, problems: list[Problem]):
    """``build()``, or None with its ValueError/TypeError added to ``problems`` at the key of
    ``raw`` (a dict of the table's keys) that the message names first, else at ``path``."""
    try:
        return build()
    except (ValueError, TypeError) as err:
        message = str(err)
        best = None
        # the library's messages start with the parameter's path: "Model.loads[0].s: got ..."
        # ... or with a quoted name: "BodySensor 'arm'.quantity: got ..."
        head = re.match(r"\s*([\w.\[\]'\"]+?(?: '[^']*'[\w.\[\]]*)?)\s*(?::|=)\s", message)
        words = re.findall(r"\w+", head.group(1)) if head else []
        # the longest tail of the parameter's path that leads to a key of raw (its nested
        # tables too: "Model.contacts['cam'].profile.body" -> profile.body)
        tails = [tuple(words[i:]) for i in range(len(words))]
        found = next((t for t in tails if _value_at(raw, _keys(t)) is not MISSING), None)
        if isinstance(raw, dict) and found:
            best = (0, _keys(found))
            # "Sliding.mu: got -0.3; allowed: ..." -> "allowed: ... (Sliding.mu)": the key
            # path and the file's value head the problem already
            name = head.group(1)
            short = re.match(rf"\s*{re.escape(name)}:\s+got .*?; (allowed: .*)$", message, re.S)
            if short:
                message = f"{short.group(1)} ({name})"
        elif isinstance(raw, dict):
            for key in raw:
                found = re.search(rf"(?<![\w.]){re.escape(str(key))}(?!\w)", message)
                if found and (best is None or found.start() < best[0]):
                    best = (found.start(), key)
        if best is None:
            problems.append(Problem(join(path), MISSING, message))
        else:
            keys = best[1] if isinstance(best[1], tuple) else (best[1],)
            problems.append(Problem(join(path, *keys), _value_at(raw, keys), message))
        return None


def _keys(words: tuple) -> tuple:
    """Words of a parameter's path as keys: list indices as integers."""
    return tuple(int(w) if w.isdigit() else w for w in words)


__all__ = ["MISSING", "ModelFileError", "Problem", "join", "library_call", "validate"]
