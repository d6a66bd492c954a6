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
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import tomli_w

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from .. import validation as check
from ..model import Model
from ..reductions import parse_spec
from . import model_schema as schema
from .model_build import build_model, model_tables
from .model_problems import MISSING, ModelFileError, Problem, join, validate


@dataclass(frozen=True)
class Simulation:
    """The stepper of a run.

    Parameters
    ----------
    t_end : float
        End of the run, s.
    method : str, optional
        "generalized-alpha" (the default), "moreau" or "event-driven".
    t_start : float, optional
        Start of the run, s; 0 by default.
    h : float or None, optional
        The step, s; None (the default): the stepper's default.
    settings : mapping of str to float or int, optional
        The stepper's other settings (``rho_inf``, ``theta``, ``max_halvings``, ...); empty by
        default.

    Examples
    --------
    >>> from fe_contact.io.model_file import Simulation
    >>> Simulation(t_end=0.6, h=1e-4, settings={"rho_inf": 0.8}).method
    'generalized-alpha'
    """

    t_end: float
    method: str = "generalized-alpha"
    t_start: float = 0.0
    h: float | None = None
    settings: Mapping[str, float | int] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "settings", dict(self.settings))

    def step(self) -> float:
        """The step in s (the stepper's default when ``h`` is None)."""
        if self.h is not None:
            return self.h
        import inspect

        if self.method == "moreau":
            from ..steppers.moreau import MoreauJean as Stepper
        elif self.method == "event-driven":
            from ..steppers.event_driven import EventDriven as Stepper
        else:
            from ..steppers.genalpha import GeneralizedAlpha as Stepper
        return inspect.signature(Stepper).parameters["h"].default


@dataclass(frozen=True)
class Output:
    """What a run writes.

    Parameters
    ----------
    frame_every : float, optional
        ParaView frames every ``frame_every`` s (0: none); 0.01 by default.
    results : tuple of str, optional
        Scalar results ``"STATISTIC:COLUMN"`` (final, initial, max, min, mean, max_abs of a
        history column) for a sweep's summary; none by default.
    plot : str or None, optional
        The result drawn against a varied parameter; None (the default): no plot.

    Examples
    --------
    >>> from fe_contact.io.model_file import Output
    >>> Output(frame_every=0.0, results=("max:tip_normal_force",)).frame_every
    0.0
    """

    frame_every: float = 0.01
    results: tuple[str, ...] = ()
    plot: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "results", tuple(self.results))


@dataclass(frozen=True)
class InitialState:
    """The state at t_start.

    Tree coordinates and velocities (m or rad, per joint) and, per structure, its free
    coordinates q and velocities u in the order of ``system.layout``. A part left out starts at
    rest, a structure in its reference (stress-free) configuration.

    Parameters
    ----------
    tree_q : tuple of float or None, optional
        Tree coordinates, one per joint (m or rad); None (the default): zeros.
    tree_u : tuple of float or None, optional
        Tree velocities (m/s or rad/s); None (the default): at rest.
    structures : mapping of str to tuple, optional
        Structure name -> (q, u), each a tuple of float or None; empty by default.
    static : bool, optional
        Start from the static equilibrium at rest (``fe_contact.static_equilibrium``) at
        t_start, with the given coordinates as the guess (velocities must be left out); False
        by default.

    Raises
    ------
    TypeError
        When ``static`` is not a bool.
    ValueError
        When ``static`` is True while velocities are given.

    Examples
    --------
    Start a pendulum from its static equilibrium, with 0.3 rad as Newton's guess:

    >>> from fe_contact.io.model_file import InitialState
    >>> InitialState(tree_q=(0.3,), static=True).static
    True
    """

    tree_q: tuple[float, ...] | None = None
    tree_u: tuple[float, ...] | None = None
    structures: Mapping[str, tuple[tuple[float, ...] | None, tuple[float, ...] | None]] = field(
        default_factory=dict
    )
    static: bool = False

    def __post_init__(self):
        check.instance("InitialState.static", self.static, bool, "True or False")
        moving = [k for k, (_, u) in dict(self.structures).items() if u is not None]
        if self.static and (self.tree_u is not None or moving):
            given = ["tree_u"] * (self.tree_u is not None) + [f"structures.{k}.u" for k in moving]
            check.fail("InitialState.static", True, f"a start at rest, without {', '.join(given)}")

        def floats(v):
            return None if v is None else tuple(float(x) for x in np.asarray(v).ravel())

        object.__setattr__(self, "tree_q", floats(self.tree_q))
        object.__setattr__(self, "tree_u", floats(self.tree_u))
        object.__setattr__(
            self,
            "structures",
            {name: (floats(q), floats(u)) for name, (q, u) in dict(self.structures).items()},
        )

    @classmethod
    def from_state(cls, system, q0, u0) -> InitialState:
        """The InitialState of the full state (q0, u0), each (system.layout.n,)."""
        lay = system.layout
        q0, u0 = np.asarray(q0, dtype=float), np.asarray(u0, dtype=float)
        tree = lay.n_tree > 0
        return cls(
            tree_q=q0[lay.tree] if tree else None,
            tree_u=u0[lay.tree] if tree else None,
            structures={
                name: (q0[lay.structure(name)], u0[lay.structure(name)])
                for name in lay.structure_names
            },
        )

    def state(
        self, system, source: str = "<model>", t: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """(q0, u0), each (system.layout.n,); ModelFileError when a length is wrong or, for a
        static start, when the static equilibrium at time t (s) is not found."""
        q0, u0 = system.initial_state()
        lay = system.layout
        problems = []
        parts = [("tree_q", self.tree_q, q0, lay.tree), ("tree_u", self.tree_u, u0, lay.tree)]
        for name, (q, u) in self.structures.items():
            if name not in lay.structure_names:
                known = ", ".join(lay.structure_names) or "none"
                problems.append(
                    Problem(
                        f"initial.structures.{name}", MISSING, f"no such structure; known: {known}"
                    )
                )
                continue
            parts.append((f"structures.{name}.q", q, q0, lay.structure(name)))
            parts.append((f"structures.{name}.u", u, u0, lay.structure(name)))
        for key, values, target, where in parts:
            if values is None:
                continue
            size = where.stop - where.start
            if len(values) != size:
                problems.append(
                    Problem(
                        f"initial.{key}",
                        list(values),
                        f"{len(values)} values; allowed: {size} (the layout of the assembled system)",
                    )
                )
            else:
                target[where] = values
        if problems:
            raise ModelFileError(source, problems)
        if self.static:
            from ..statics import StaticEquilibriumError, static_equilibrium

            try:
                solution = static_equilibrium(system, q0, t=t)
            except (StaticEquilibriumError, ValueError) as err:
                raise ModelFileError(source, [Problem("initial.static", True, str(err))]) from None
            return solution.q, solution.u
        return q0, u0


@dataclass(frozen=True)
class ModelFile:
    """A model file's content.

    Parameters
    ----------
    model : Model
        The model.
    simulation : Simulation or None, optional
        The stepper of a run; None (the default): none given.
    initial : InitialState, optional
        The start; at rest in the reference configuration by default.
    output : Output, optional
        What a run writes; frames every 0.01 s by default.
    source : str, optional
        Where it came from (for messages); "<model>" by default.

    Examples
    --------
    >>> from fe_contact import Body, Joint, Model, ModelFile, TreeModel
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0),), joints=(Joint("revolute"),))
    >>> ModelFile(Model(tree=tree)).simulation is None
    True
    """

    model: Model
    simulation: Simulation | None = None
    initial: InitialState = field(default_factory=InitialState)
    output: Output = field(default_factory=Output)
    source: str = field(default="<model>", compare=False)


# -- reading ---------------------------------------------------------------------------------


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


# -- writing ---------------------------------------------------------------------------------


def model_document(
    model: Model | ModelFile,
    simulation: Simulation | None = None,
    initial: InitialState | None = None,
    output: Output | None = None,
) -> dict:
    """The TOML tables of a model (with a run's settings).

    Parameters
    ----------
    model : Model or ModelFile
        The model (a ModelFile gives its own settings).
    simulation : Simulation or None, optional
        The stepper of a run; None (the default): none (or the ModelFile's).
    initial : InitialState or None, optional
        The start; None (the default): at rest (or the ModelFile's).
    output : Output or None, optional
        What a run writes; None (the default): the defaults (or the ModelFile's).

    Returns
    -------
    dict
        The document's tables.

    Raises
    ------
    ValueError
        For a part that a file cannot hold (a callable drive or actuator, a CurveReference).

    Examples
    --------
    The tables of a pendulum on a torsion spring:

    >>> from fe_contact import Body, Joint, Model, TreeModel
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),),
    ...                  joints=(Joint("revolute", stiffness=10.0),))
    >>> from fe_contact.io.model_file import model_document
    >>> doc = model_document(Model(tree=tree))
    >>> doc["tree"]["bodies"][0]["joint"]["stiffness"]
    10.0
    """
    if isinstance(model, ModelFile):
        simulation = model.simulation if simulation is None else simulation
        initial = model.initial if initial is None else initial
        output = model.output if output is None else output
        model = model.model
    doc = model_tables(model)
    sensors = doc.pop("output", {})  # the model's [[output.sensors]], written last
    if initial is not None:
        table = {"static": True} if initial.static else {}
        if initial.tree_q is not None:
            table["tree_q"] = list(initial.tree_q)
        if initial.tree_u is not None:
            table["tree_u"] = list(initial.tree_u)
        parts = {}
        for name, (q, u) in initial.structures.items():
            part = {}
            if q is not None:
                part["q"] = list(q)
            if u is not None:
                part["u"] = list(u)
            parts[name] = part
        if parts:
            table["structures"] = parts
        if table:
            doc["initial"] = table
    if simulation is not None:
        table = {"method": simulation.method, "t_start": float(simulation.t_start)}
        table["t_end"] = float(simulation.t_end)
        if simulation.h is not None:
            table["h"] = float(simulation.h)
        table.update(simulation.settings)
        doc["simulation"] = table
    if output is not None:
        table = {"frame_every": float(output.frame_every), "results": list(output.results)}
        if output.plot is not None:
            table["plot"] = output.plot
        sensors = {**table, **sensors}
    if sensors:
        doc["output"] = sensors
    return doc


_SCALAR_ARRAY = re.compile(r"\[\n((?:[ ]+[^\[\]{}\n]+,\n)+)[ ]*\]")


def _compact(text: str) -> str:
    """Arrays of numbers on one line when they fit in 100 characters (tomli-w writes one
    item per line)."""

    def one_line(match):
        items = [line.strip().rstrip(",") for line in match.group(1).splitlines()]
        joined = "[" + ", ".join(items) + "]"
        return joined if len(joined) <= 100 else match.group(0)

    return _SCALAR_ARRAY.sub(one_line, text)


def model_text(
    model: Model | ModelFile,
    simulation: Simulation | None = None,
    initial: InitialState | None = None,
    output: Output | None = None,
) -> str:
    """The TOML text of a model file (``model_document`` written by tomli-w).

    Parameters
    ----------
    model : Model or ModelFile
        The model.
    simulation : Simulation or None, optional
        The stepper of a run.
    initial : InitialState or None, optional
        The start.
    output : Output or None, optional
        What a run writes.

    Returns
    -------
    str
        The TOML text.

    Raises
    ------
    ValueError
        For a part that a file cannot hold (see ``model_document``).

    Examples
    --------
    >>> from fe_contact import Body, Joint, Model, TreeModel
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),),
    ...                  joints=(Joint("revolute", stiffness=10.0),))
    >>> from fe_contact.io.model_file import model_text
    >>> "stiffness = 10.0" in model_text(Model(tree=tree))
    True
    """
    return _compact(tomli_w.dumps(model_document(model, simulation, initial, output)))


def save_model(
    model: Model | ModelFile,
    path,
    simulation: Simulation | None = None,
    initial: InitialState | None = None,
    output: Output | None = None,
) -> Path:
    """Write a model file (see ``model_document``).

    Parameters
    ----------
    model : Model or ModelFile
        The model.
    path : str or os.PathLike
        The file to write.
    simulation : Simulation or None, optional
        The stepper of a run.
    initial : InitialState or None, optional
        The start.
    output : Output or None, optional
        What a run writes.

    Returns
    -------
    pathlib.Path
        The file's path.

    Raises
    ------
    ValueError
        For a part that a file cannot hold (see ``model_document``).

    Examples
    --------
    A model written as TOML and read back gives the same model:

    >>> import tempfile, pathlib
    >>> from fe_contact import Body, Joint, Model, TreeModel, load_model, save_model
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),),
    ...                  joints=(Joint("revolute", stiffness=10.0),))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = save_model(Model(tree=tree), pathlib.Path(folder) / "pendulum.toml")
    ...     back = load_model(path)
    >>> back.model.tree.joints[0].stiffness
    10.0
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = model_text(model, simulation, initial, output)
    text = f"# fe_contact model file (SI units): fe-contact run {path.name}\n{text}"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return path


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
