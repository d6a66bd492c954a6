"""Model files: a whole run described in TOML (the model, its initial state, the stepper and
the outputs), validated on load, written back exactly.

``load_model(path)`` -> ``ModelFile`` (``.model``, ``.initial``, ``.simulation``,
``.output``); ``save_model(model, path, simulation=..., initial=..., output=...)`` writes one;
``load_model(save_model(...))`` gives equal objects (floats are written with all their digits).
The tables are documented in ``fe_contact.io.model_schema`` and ``fe_contact.io.model_parts``
(those derived from the dataclasses: structures, sides, laws, drives, carried bodies, loops,
loads, spring supports, sensors). A file that cannot be used raises
``ModelFileError`` listing every problem with the file, its key path (``contacts.tip.mu``), the
value and what is allowed; unknown keys are problems too. ``--set``-style overrides
(``contacts.tip.mu=0.2``) are applied to the file's tables before validation.

This module reads a file; the run's sections (``Simulation``, ``InitialState``, ``Output``,
``ModelFile``) are defined in ``io.model_sections`` and the writing (``model_document``,
``model_text``, ``save_model``) is ``io.model_writer``; both are exported here too.
"""

from __future__ import annotations

import math
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from ..reductions import parse_spec
from . import model_schema as schema
from .model_build import build_model
from .model_problems import MISSING, ModelFileError, Problem, join, validate
from .model_sections import InitialState, ModelFile, Output, Simulation
from .model_writer import model_document, model_text, save_model


def parse_value(text: str):
    """A command-line value read as TOML.

    Parameters
    ----------
    text : str
        ``0.2``, ``true``, ``[1, 2]``, ``"x"``; a bare word that is no TOML value is a string
        (``unilateral``).

    Returns
    -------
    object
        The value (float, int, bool, list, str, ...).

    Examples
    --------
    >>> from fe_contact.io.model_file import parse_value
    >>> parse_value("0.2"), parse_value("true"), parse_value("[1, 2]"), parse_value("unilateral")
    (0.2, True, [1, 2], 'unilateral')
    """
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(doc: dict, key_path: str, value) -> None:
    """Set ``doc[a][b][c] = value`` for ``key_path`` "a.b.c", creating missing tables.

    Parameters
    ----------
    doc : dict
        The TOML document, changed in place.
    key_path : str
        Dotted keys, "a.b.c"; list items by index ("contacts.0.law").
    value : object
        The value to set.

    Raises
    ------
    ValueError
        Naming the key path when it runs through a value.

    Examples
    --------
    Set the friction coefficient of the first contact, as ``--set contacts.0.mu=0.3`` does:

    >>> from fe_contact.io.model_file import apply_override
    >>> doc = {"contacts": [{"body": 2, "target": "beam", "mu": 0.2}]}
    >>> apply_override(doc, "contacts.0.mu", 0.3)
    >>> doc["contacts"][0]["mu"]
    0.3
    """
    keys = key_path.split(".")
    if not all(keys):
        raise ValueError(f"key path {key_path!r}; allowed: dotted keys such as contacts.tip.mu")
    current = doc
    for i, key in enumerate(keys):
        last = i == len(keys) - 1
        where = ".".join(keys[: i + 1])
        if isinstance(current, list):
            if not key.isdigit() or int(key) >= len(current):
                raise ValueError(
                    f"key path {key_path!r}: {where} is no item; allowed: an index 0..{len(current) - 1}"
                )
            if last:
                current[int(key)] = value
            else:
                current = current[int(key)]
        elif isinstance(current, dict):
            if last:
                current[key] = value
            else:
                current = current.setdefault(key, {})
        else:
            raise ValueError(f"key path {key_path!r}: {'.'.join(keys[:i])} is a value, not a table")


def parse_document(raw: dict, source: str = "<model>") -> ModelFile:
    """The ModelFile of a TOML document.

    Parameters
    ----------
    raw : dict
        The document's tables.
    source : str, optional
        Where it came from (for messages); "<model>" by default.

    Returns
    -------
    ModelFile
        The validated content.

    Raises
    ------
    ModelFileError
        With every problem of the document.

    Examples
    --------
    A document round trip: the tables of a model parse back to the same model:

    >>> from fe_contact import Body, Joint, Model, TreeModel
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),),
    ...                  joints=(Joint("revolute", stiffness=10.0),))
    >>> from fe_contact.io.model_file import model_document, parse_document
    >>> parse_document(model_document(Model(tree=tree))).model.tree == tree
    True
    """
    problems: list[Problem] = []
    doc = validate(schema.Document, raw, (), problems)
    if doc is None:  # keep the parts that are well-formed, to report their problems too
        bad = {p.path.split(".")[0] for p in problems}
        doc = schema.Document.model_validate(
            {k: v for k, v in raw.items() if k in schema.Document.model_fields and k not in bad}
        )
    model = build_model(doc, raw, problems)
    simulation = _simulation(raw.get("simulation"), problems)
    initial = _initial(doc.initial, set(doc.structures), problems)
    output = _output(doc.output, problems)
    if problems or model is None:
        raise ModelFileError(source, problems or [Problem("", MISSING, "no model")])
    return ModelFile(model, simulation, initial, output, source=str(source))


def _simulation(raw, problems: list[Problem]) -> Simulation | None:
    if raw is None or not isinstance(raw, dict):
        return None
    method = raw.get("method", "generalized-alpha")
    if method not in schema.METHODS:
        allowed = " or ".join(repr(m) for m in schema.METHODS)
        problems.append(Problem("simulation.method", method, f"allowed: {allowed}"))
        return None
    table = validate(schema.METHODS[method], {**raw, "method": method}, ("simulation",), problems)
    if table is None:
        return None
    if not (math.isfinite(table.t_end) and table.t_end > table.t_start):
        problems.append(
            Problem(
                "simulation.t_end", table.t_end, f"allowed: a time > t_start = {table.t_start} s"
            )
        )
        return None
    settings = table.model_dump(exclude_none=True, exclude=set(schema.SIMULATION_KEYS))
    return Simulation(table.t_end, method, table.t_start, table.h, settings)


def _initial(raw: dict, structures: set, problems: list[Problem]) -> InitialState:
    table = validate(schema.InitialTable, raw, ("initial",), problems)
    if table is None:
        return InitialState()
    for name in table.structures:
        if name not in structures:
            known = ", ".join(sorted(structures)) or "none"
            problems.append(
                Problem(
                    join(("initial", "structures", name)),
                    MISSING,
                    f"no such structure; known: {known}",
                )
            )
    moving = ["tree_u"] * (table.tree_u is not None)
    moving += [f"structures.{n}.u" for n, s in table.structures.items() if s.u is not None]
    if table.static and moving:
        problems.append(
            Problem(
                "initial.static",
                True,
                f"a static start is at rest; allowed: no velocities (remove {', '.join(moving)})",
            )
        )
        return InitialState()
    return InitialState(
        table.tree_q,
        table.tree_u,
        {n: (s.q, s.u) for n, s in table.structures.items() if n in structures},
        static=table.static,
    )


def parse_result(text: str) -> tuple[str, str]:
    """Split a scalar result "STATISTIC:COLUMN" of ``Output.results``.

    Parameters
    ----------
    text : str
        E.g. "max:tip_normal_force".

    Returns
    -------
    statistic : str
        One of final, initial, max, min, mean, max_abs.
    column : str
        The history column.

    Raises
    ------
    ValueError
        When ``text`` is not of that form.

    Examples
    --------
    >>> from fe_contact.io.model_file import parse_result
    >>> parse_result("max:tip_normal_force")
    ('max', 'tip_normal_force')
    """
    return parse_spec(text)


def _output(raw: dict, problems: list[Problem]) -> Output:
    table = validate(schema.OutputTable, raw, ("output",), problems)
    if table is None:
        return Output()
    for i, text in enumerate(table.results):
        try:
            parse_result(text)
        except ValueError as err:
            problems.append(Problem(f"output.results.{i}", text, str(err)))
    if table.plot is not None:
        try:
            parse_result(table.plot)
        except ValueError as err:
            problems.append(Problem("output.plot", table.plot, str(err)))
    return Output(table.frame_every, tuple(table.results), table.plot)


def read_document(path) -> dict:
    """The TOML tables of a file.

    Parameters
    ----------
    path : str or os.PathLike
        The TOML file.

    Returns
    -------
    dict
        Its tables.

    Raises
    ------
    ModelFileError
        With one problem, when the file is unreadable or not valid TOML.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fe_contact.io.model_file import read_document
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "g.toml"
    ...     _ = path.write_text("gravity = [0.0, -9.81]")
    ...     read_document(path)
    {'gravity': [0.0, -9.81]}
    """
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as err:
        raise ModelFileError(
            str(path), [Problem("", MISSING, f"cannot read: {err.strerror}")]
        ) from None
    except tomllib.TOMLDecodeError as err:
        raise ModelFileError(str(path), [Problem("", MISSING, f"not valid TOML: {err}")]) from None


def load_model(path, overrides=()) -> ModelFile:
    """Read and validate a model file.

    Parameters
    ----------
    path : str or os.PathLike
        The TOML file.
    overrides : sequence of tuple, optional
        (key_path, value) pairs applied first (``apply_override``); none by default.

    Returns
    -------
    ModelFile
        The file's model, run settings, start and output.

    Raises
    ------
    ModelFileError
        Listing every problem (a ValueError).

    Examples
    --------
    Every problem of a file is reported at once, with where it is:

    >>> import tempfile, pathlib
    >>> from fe_contact import ModelFileError, load_model
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "bad.toml"
    ...     _ = path.write_text("[tree]\\nbodies = [{mass = -1.0, inertia = 0.0}]\\n")
    ...     try:
    ...         load_model(path)
    ...     except ModelFileError as error:
    ...         print(type(error).__name__, len(error.problems) >= 1)
    ModelFileError True
    """
    raw = read_document(path)
    for key_path, value in overrides:
        try:
            apply_override(raw, key_path, value)
        except ValueError as err:
            raise ModelFileError(str(path), [Problem(key_path, value, str(err))]) from None
    return parse_document(raw, str(path))


__all__ = [
    "InitialState",
    "ModelFile",
    "ModelFileError",
    "Output",
    "Problem",
    "Simulation",
    "apply_override",
    "load_model",
    "model_document",
    "model_text",
    "parse_document",
    "parse_result",
    "parse_value",
    "read_document",
    "save_model",
]
