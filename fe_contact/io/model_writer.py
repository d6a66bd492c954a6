"""Writing a model file: a ``Model`` (or a ``ModelFile``, with its run's sections) as TOML
tables and text, floats with all their digits, so that ``load_model(save_model(...))`` gives
equal objects (``io.model_file`` reads them back).
"""

from __future__ import annotations

import re
from pathlib import Path

import tomli_w

from ..model import Model
from .model_build import model_tables
from .model_sections import InitialState, ModelFile, Output, Simulation


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
    >>> from fe_contact.io.model_writer import model_document
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
    >>> from fe_contact.io.model_writer import model_text
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


__all__ = ["model_document", "model_text", "save_model"]
