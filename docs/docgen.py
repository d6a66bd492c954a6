"""Pages of the documentation generated from the code and the tests at build time.

``write_all(folder)`` writes reStructuredText files into ``folder`` (``docs/generated``, not
in git); the hand-written pages include them. What each one is made of:

- ``columns.rst``: the history columns and their units, from
  ``fe_contact.columns.history_columns`` of a model with one contact of each kind and
  one drive; the meaning of each column from its definition (``result.Column``), those of the
  drives', joints' and sensors' columns typed here; the build fails when the code has a column
  without a meaning (or a meaning of a column the code no longer has).
- ``schema.rst``: the model-file tables, from the pydantic classes of
  ``fe_contact.io.model_schema`` (keys, types, defaults, bounds) and the dataclasses (and
  drive factories) of ``fe_contact.io.model_parts`` (keys, types, defaults).
- ``demos.rst`` and ``demo_<name>.rst``: one page per ``fe-contact demo NAME``, from
  ``fe_contact.cli.DEMOS`` and each demo module's docstring.
- ``cli.rst``: ``fe-contact --help`` and every command's ``--help``, from the parser.
- ``papers_table.md.txt``: per paper, the modules that cite it and what they cite, read from
  the library's source (``papers_table.py``), included by ``details/papers.md``.
- ``validation.rst``: per test file its docstring (the references it checks against) and per
  test its first docstring line and the tolerances written in it (``rtol=``, ``atol=``,
  ``rel=``, ``abs=`` arguments and the right-hand sides of ``<`` / ``<=`` in asserts), read
  from the tests' source with ``ast``; then the errors the tests measured against their
  references, beside the tolerance they asserted and the margin tolerance / error, read from
  ``docs/validation_measured.json`` (the records of the ``measured`` fixture of
  ``tests/conftest.py`` from one run of the suite, with its commit and date).

Run as a script it refreshes that file from a run of the suite with recording on::

    FE_CONTACT_MEASURED=/tmp/measured pytest
    python docs/docgen.py --merge-measured /tmp/measured
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import importlib
import importlib.util
import inspect
import io
import json
import re
import textwrap
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "docs" / "validation_measured.json"
MEASURED_COMMAND = (
    "FE_CONTACT_MEASURED=/tmp/measured pytest && "
    "python docs/docgen.py --merge-measured /tmp/measured"
)


def heading(text: str, mark: str = "=") -> str:
    return f"{text}\n{mark * len(text)}\n\n"


def literal(text: str) -> str:
    return ".. code-block:: text\n\n" + textwrap.indent(text.rstrip() + "\n", "   ") + "\n"


def table(header, rows) -> str:
    """A list-table (cells may hold inline markup)."""
    out = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header, *rows]:
        cells = [str(c).replace("\n", " ") or " " for c in row]
        out.append("   * - " + cells[0])
        out += [f"     - {c}" for c in cells[1:]]
    return "\n".join(out) + "\n\n"


# ------------------------------------------------------------------------------------------
# History columns
# ------------------------------------------------------------------------------------------


def column_meanings() -> dict:
    """The meaning of every history column: the result's own columns carry theirs
    (``fe_contact.columns.Column``); the drives', joints' and sensors' are typed here."""
    from fe_contact.columns import BALANCE_COLUMNS, CONTACT_COLUMNS, ROUGH_COLUMNS

    meaning = {"t": "time"}
    meaning.update({f"<name>_{c.name}": c.meaning for c in CONTACT_COLUMNS + ROUGH_COLUMNS})
    meaning["drive_<joint>_force"] = "the drive's multiplier: driving torque (revolute) or force"
    meaning.update({c.name: c.meaning for c in BALANCE_COLUMNS})
    meaning.update(
        {
            "<joint>_q": "the joint's coordinate (angle or displacement)",
            "<joint>_u": "the joint's velocity",
            "<sensor>_x": "x of a sensed position or displacement (plane axes)",
            "<sensor>_y": "y of a sensed position or displacement",
            "<sensor>_vx": "x of a sensed velocity",
            "<sensor>_vy": "y of a sensed velocity",
            "<sensor>_ax": "x of a sensed acceleration (generalised-alpha: J q'' + J' q' at the "
            "state; Moreau-Jean, event-driven: from the mean q'' of the step; NaN at their start)",
            "<sensor>_ay": "y of a sensed acceleration",
            "<sensor>": "a scalar sensed quantity: angle, angular velocity or acceleration, "
            "deflection, slope, curvature, moment or tension",
            "tree_potential_energy": "potential of gravity of the tree's bodies",
            "tree_elastic_energy": "energy of the joint springs",
            "<structure>_kinetic_energy": "the structure's kinetic energy",
            "<structure>_elastic_energy": "the structure's strain energy",
            "<structure>_potential_energy": "potential of the structure's constant loads "
            "(self-weight, point loads; 0 in its reference)",
            "contact_elastic_energy": "elastic energy of the compliant contacts",
        }
    )
    return meaning


def history_column_rows():
    """(name, unit, where) of every column, from the code's own vocabulary."""
    from fe_contact.columns import history_columns
    from fe_contact.model import Point, Polyline

    polyline = Polyline.__new__(Polyline)  # only its type is read by history_columns
    contacts = (
        SimpleNamespace(name="<name>", profile=Point(0), compliant=True),
        SimpleNamespace(name="<rough>", profile=polyline),
    )
    sensors = tuple(  # a point's position and velocity, a scalar quantity
        SimpleNamespace(name="<sensor>", quantity=q)
        for q in ("position", "velocity", "acceleration", "angle")
    )
    model = SimpleNamespace(
        contacts=contacts,
        drive_names=lambda: ("drive_<joint>",),
        drives=(SimpleNamespace(joint=0),),
        sensors=sensors,
        structures={"<structure>": None},
    )
    tree = SimpleNamespace(joints=(SimpleNamespace(kind="revolute", name="<joint>"),))
    columns = history_columns(SimpleNamespace(model=model, tree=tree))
    rows, seen = [], set()
    for name, unit in columns:
        where = "every run"
        if name.startswith("<rough>"):
            key = name.replace("<rough>", "<name>")
            if key in seen:
                continue
            where = "per rough pair (a Polyline on a Wheel)"
        elif name.startswith("<name>"):
            key, where = name, "per contact pair"
        elif name.startswith("drive_"):  # its unit follows the driven joint's kind
            key, unit, where = name, "N m (revolute joint) or N (prismatic)", "per drive"
        elif name.startswith("<joint>"):  # its unit follows the joint's kind
            unit = {"<joint>_q": "rad or m", "<joint>_u": "rad/s or m/s"}[name]
            key, where = name, "per tree joint (``Joint.name``, default ``joint_<i>``)"
        elif name.startswith("<structure>"):
            key, where = name, "per structure"
        elif name == "contact_elastic_energy":
            key, where = name, "with compliant contacts"
        elif name.startswith("<sensor>"):
            if name in seen:
                continue
            key, where = name, "per sensor (``fe_contact.sensors``)"
            unit = "by the quantity" if name == "<sensor>" else unit
        else:
            key = name
        seen.add(key)
        rows.append((key, unit, where))
    return rows


def columns_page() -> str:
    rows = history_column_rows()
    names = {r[0] for r in rows}
    meaning = column_meanings()
    missing, stale = names - meaning.keys(), meaning.keys() - names
    if missing or stale:
        raise RuntimeError(
            f"docs/docgen.py column_meanings is out of step with history_columns: "
            f"undescribed {sorted(missing)}, no longer in the code {sorted(stale)}"
        )
    body = [(f"``{n}``", u or "--", w, meaning[n]) for n, u, w in rows]
    return table(("column", "unit", "present", "meaning"), body)


# ------------------------------------------------------------------------------------------
# Model-file schema
# ------------------------------------------------------------------------------------------


def schema_tables():
    """(key path, class) of every table of a model file, in the file's order."""
    from fe_contact.io import model_schema as s

    return [
        ("(top level)", s.Document),
        ("tree", s.TreeTable),
        ("tree.points.NAME", s.NamedPointTable),
        ("contacts.NAME (the law's keys: below)", s.ContactKeys),
        ("initial", s.InitialTable),
        ("initial.structures.NAME", s.StructureStateTable),
        ('simulation (method = "generalized-alpha")', s.GeneralizedAlphaTable),
        ('simulation (method = "moreau")', s.MoreauTable),
        ('simulation (method = "event-driven")', s.EventDrivenTable),
        ("output", s.OutputTable),
    ]


def json_type(prop: dict) -> str:
    """A short type of a JSON-schema property (with its bounds)."""
    if "anyOf" in prop:
        parts = [json_type(p) for p in prop["anyOf"] if p.get("type") != "null"]
        optional = any(p.get("type") == "null" for p in prop["anyOf"])
        return " or ".join(parts) + (" or none" if optional else "")
    if "const" in prop:
        return repr(prop["const"])
    if "enum" in prop:
        return " | ".join(repr(v) for v in prop["enum"])
    kind = prop.get("type", "table")
    if kind == "array":
        item = json_type(prop.get("items", {}))
        n = prop.get("minItems"), prop.get("maxItems")
        size = f"{n[0]}" if n[0] is not None and n[0] == n[1] else ""
        return f"list of {size + ' ' if size else ''}{item}"
    if kind == "object":
        return "table"
    bounds = []
    for key, sign in (
        ("exclusiveMinimum", ">"),
        ("minimum", ">="),
        ("exclusiveMaximum", "<"),
        ("maximum", "<="),
    ):
        if key in prop:
            bounds.append(f"{sign} {prop[key]}")
    names = {"number": "float", "integer": "int", "boolean": "bool", "string": "string"}
    return names.get(kind, kind) + (f" ({', '.join(bounds)})" if bounds else "")


def dataclass_tables():
    """(key path, dataclass or factory) of the tables derived from the dataclasses
    (``io.model_parts``)."""
    from fe_contact.elements.string import Support
    from fe_contact.io.model_parts import (
        DRIVES,
        PARTS,
        REFERENCES,
        SENSORS,
        SIDES,
        STRUCTURES,
        TENSION_LAWS,
    )
    from fe_contact.laws import FILE_LAWS
    from fe_contact.multibody.drive import LinearMotion
    from fe_contact.multibody.joints import Joint
    from fe_contact.multibody.tree import Body
    from fe_contact.rough import RoughProfile

    out = [(f'structures.NAME (type = "{k}")', c) for k, c in STRUCTURES.items()]
    out += [(f'structures.NAME.law (type = "{k}")', c) for k, c in TENSION_LAWS.items()]
    out += [(f'structures.NAME.reference (type = "{k}")', c) for k, c in REFERENCES.items()]
    out.append(("structures.NAME.supports[i]", Support))
    out += [("tree.bodies[i] (and its joint)", Body), ("tree.bodies[i].joint", Joint)]
    out.append(("tree.bodies[i].joint.actuator (a table: value + rate t)", LinearMotion))
    out += [(f'contacts.NAME (law = "{name}")', cls) for name, cls in FILE_LAWS.items()]
    out += [(f'contacts.NAME.profile / .target (kind = "{k}")', c) for k, c in SIDES.items()]
    out.append(("contacts.NAME.profile.profile / .target.rim (RoughProfile)", RoughProfile))
    out += [(f'drives[i] (kind = "{k}")', build) for k, build in DRIVES.items()]
    out += [(f"{key}[i]", cls) for key, cls in PARTS.items()]
    out += [(f'output.sensors[i] (kind = "{k}")', c) for k, c in SENSORS.items()]
    return out


def hint_name(hint) -> str:
    """A type hint in a few words (``float | None``, ``tuple[float, float] | str``)."""
    text = hint.__name__ if isinstance(hint, type) else str(hint)
    return re.sub(r"\b(?:typing|numpy|fe_contact(?:\.\w+)*)\.", "", text)


def dataclass_page() -> str:
    from fe_contact.io.model_parts import CURVES, MISSING, fields_of

    out = []
    for path, cls in dataclass_tables():
        rows = []
        for key, (hint, default) in fields_of(cls).items():
            text = "required" if default is MISSING else f"``{default!r}``"
            rows.append((f"``{key}``", f"``{hint_name(hint)}``", text))
        out.append(heading(f"``{path}``", "-"))
        what = "fields" if isinstance(cls, type) else "parameters"
        out.append(
            f"The {what} of ``{cls.__module__}.{cls.__qualname__}``, which checks their values "
            "(its docstring gives their meaning and units).\n\n"
        )
        out.append(table(("key", "type", "default"), rows))
    for kind, build in CURVES.items():
        rows = []
        for key, parameter in inspect.signature(build).parameters.items():
            empty = parameter.default is inspect.Parameter.empty
            text = "required" if empty else f"``{parameter.default!r}``"
            rows.append((f"``{key}``", "", text))
        out.append(heading(f'``...profile.curve (kind = "{kind}")``', "-"))
        out.append(f"The parameters of ``Curve.{build.__name__}`` (control points in m).\n\n")
        out.append(table(("key", "type", "default"), rows))
    return "".join(out)


def doc_parts(cls) -> tuple[str, dict[str, str]]:
    """A class docstring's text before its numpydoc sections, and the descriptions of its
    Parameters by name, as reStructuredText (markup outside double backquotes escaped)."""
    from numpydoc.docscrape import NumpyDocString

    doc = NumpyDocString(inspect.getdoc(cls) or "")
    text = escape(" ".join(" ".join(doc["Summary"] + doc["Extended Summary"]).split()))
    meanings = {}
    for p in doc["Parameters"]:
        for name in p.name.split(","):
            meanings[name.strip()] = escape(" ".join(" ".join(p.desc).split()))
    return text, meanings


def schema_page() -> str:
    out = []
    for path, cls in schema_tables():
        schema = cls.model_json_schema()
        defs = schema.get("$defs", {})
        required = set(schema.get("required", ()))
        text, meanings = doc_parts(cls)  # the meanings of the keys: the Parameters section
        rows = []
        for key, prop in schema["properties"].items():
            if "$ref" in prop:
                prop = defs[prop["$ref"].split("/")[-1]]
            if "items" in prop and "$ref" in prop["items"]:
                prop = dict(prop, items={"type": "table"})
            if "additionalProperties" in prop and isinstance(prop["additionalProperties"], dict):
                prop = dict(prop, type="object")
            default = "required" if key in required else f"``{cls.model_fields[key].default!r}``"
            rows.append((f"``{key}``", json_type(prop), default, meanings.get(key, "")))
        out.append(heading(f"``{path}``", "-"))
        if text and cls.__doc__ != cls.__mro__[1].__doc__:
            out.append(text + "\n\n")
        out.append(table(("key", "type", "default", "meaning"), rows))
    out.append(dataclass_page())
    return "".join(out)


# ------------------------------------------------------------------------------------------
# Demos and the command line
# ------------------------------------------------------------------------------------------


def demo_pages(folder: Path) -> None:
    from fe_contact.cli import DEMOS

    index = [heading("Demos"), "Each demo is a command: ``fe-contact demo NAME`` (see\n"]
    index.append("``fe-contact demo NAME --help`` for its options).\n\n")
    index.append(".. toctree::\n   :maxdepth: 1\n\n")
    for name, (module_name, text) in DEMOS.items():
        module = importlib.import_module(module_name)
        page = heading(f"fe-contact demo {name}")
        page += f"{text[0].upper() + text[1:]}.\n\n"
        page += ".. code-block:: bash\n\n" + f"   fe-contact demo {name}\n\n"
        page += f"The module behind it is ``{module_name}``; its description:\n\n"
        page += literal(module.__doc__ or "")
        (folder / f"demo_{name}.rst").write_text(page)
        index.append(f"   demo_{name}\n")
    (folder / "demos.rst").write_text("".join(index))


def cli_page() -> str:
    from fe_contact.cli import build_parser

    parser = build_parser()
    out = [heading("``fe-contact --help``", "-"), literal(parser.format_help())]
    for action in parser._subparsers._group_actions:  # argparse keeps its sub-parsers there
        for name, sub in action.choices.items():
            out += [heading(f"``fe-contact {name} --help``", "-"), literal(sub.format_help())]
    return "".join(out)


# ------------------------------------------------------------------------------------------
# Validation: what the tests check against, read from their source
# ------------------------------------------------------------------------------------------

TOLERANCE_KEYWORDS = ("rtol", "atol", "rel", "abs")
NO_TOLERANCE = "no literal tolerance (exact, qualitative, or a named bound)"


def tolerances(func: ast.AST, source: str) -> list[str]:
    found = []
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg in TOLERANCE_KEYWORDS:
                    found.append(f"{kw.arg}={ast.get_source_segment(source, kw.value)}")
        elif isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            test = node.test
            if len(test.ops) == 1 and isinstance(test.ops[0], ast.Lt | ast.LtE):
                left = ast.get_source_segment(source, test.left) or ""
                right = ast.get_source_segment(source, test.comparators[0]) or ""
                sign = "<" if isinstance(test.ops[0], ast.Lt) else "<="
                found.append(f"{left} {sign} {right}")
    return found


def test_functions(tree: ast.Module):
    """(function node, class name or "") of every test function of a module, in order."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            yield node, ""
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test_"):
                    yield item, node.name


def first_line(doc: str | None) -> str:
    if not doc:
        return ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def inline(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return "``" + text.replace("``", "'") + "``" if text else ""


def merge_measured(folder: Path, command: str = MEASURED_COMMAND) -> dict:
    """The records of one recording run (``<worker>-<pid>.jsonl`` files of
    ``tests/conftest.py``) merged into one document: the run (commit, whether the library or
    the tests were modified, date) and the records sorted by test."""
    files = sorted(Path(folder).glob("*.jsonl"))
    if not files:
        raise ValueError(f"merge_measured: no .jsonl records in {folder}")
    runs, records = [], []
    for path in files:
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            if "run" in item:
                runs.append(item["run"])
            else:
                records.append(item)
    commits = {r["commit"] for r in runs}
    if len(commits) != 1:
        raise ValueError(f"merge_measured: the records of {folder} come from commits {commits}")
    run = {
        "commit": commits.pop(),
        "modified": any(r["modified"] for r in runs),
        "date": max(r["date"] for r in runs),
        "command": command,
    }
    records.sort(key=lambda r: r["test"])  # stable: a test's records keep their order
    return {"run": run, "records": records}


def load_measured(path: Path = MEASURED) -> dict | None:
    """The committed records (``merge_measured``'s document), or None without the file."""
    return json.loads(path.read_text()) if path.exists() else None


def split_nodeid(nodeid: str) -> tuple[str, str, str]:
    """(file name, test name as on the page (``Class.test``), parameters or "") of a node id
    ``tests/test_x.py::Class::test_y[param]``."""
    path, *names = nodeid.split("::")
    last = names[-1]
    params = ""
    if last.endswith("]") and "[" in last:
        last, params = last[:-1].split("[", 1)
    return Path(path).name, ".".join([*names[:-1], last]), params


def number(value: float) -> str:
    return "0" if value == 0.0 else f"{value:.2e}"


def margin(error: float, tolerance: float) -> str:
    """tolerance / error: how many times the error could grow before the test fails."""
    if error == 0.0:
        return "error 0"
    return f"{tolerance / error:.3g}"


def measured_table(records: list[dict]) -> str:
    rows = []
    for r in records:
        _, test, params = split_nodeid(r["test"])
        unit = f" {r['unit']}" if r["unit"] else ""
        what = escape(r["quantity"]) + (f" [{escape(params)}]" if params else "")
        rows.append(
            (
                f"``{test}``",
                what,
                number(r["error"]) + unit,
                number(r["tolerance"]) + unit,
                margin(r["error"], r["tolerance"]),
                escape(r["reference"]),
            )
        )
    header = ("test", "quantity", "measured error", "tolerance", "margin", "reference")
    return table(header, rows)


def measured_summary(document: dict | None) -> str:
    if document is None:
        return (
            "**Measured errors:** none recorded (``docs/validation_measured.json`` is missing; "
            f"``{MEASURED_COMMAND}`` writes it).\n\n"
        )
    run, records = document["run"], document["records"]
    tests = {r["test"] for r in records}
    modified = " (with uncommitted changes to the library or the tests)" if run["modified"] else ""
    return (
        f"**Measured errors:** {len(records)} comparisons of {len(tests)} test runs with an "
        f"independent reference, recorded on {run['date']} at commit ``{run['commit'][:12]}``"
        f"{modified} by ``{run['command']}``. Margin: tolerance / measured error.\n\n"
    )


def validation_page(measured: dict | None | str = "committed") -> str:
    """The page; ``measured``: the records' document (``merge_measured``), None for none, or
    "committed" (the default) for ``docs/validation_measured.json``."""
    document = load_measured() if measured == "committed" else measured
    by_file: dict[str, list[dict]] = {}
    for record in document["records"] if document else ():
        by_file.setdefault(split_nodeid(record["test"])[0], []).append(record)
    out = []
    total_tests = total_tol = 0
    listed = set()
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        source = path.read_text()
        tree = ast.parse(source)
        rows = []
        names: dict[str, int] = {}  # test name -> its place in the file
        for node, owner in test_functions(tree):
            name = f"{owner}.{node.name}" if owner else node.name
            names.setdefault(name, len(names))
            found = tolerances(node, source)
            total_tests += 1
            total_tol += len(found)
            what = first_line(ast.get_docstring(node)) or node.name[5:].replace("_", " ")
            tols = "; ".join(inline(t, 60) for t in found[:4])
            if len(found) > 4:
                tols += f"; and {len(found) - 4} more"
            rows.append((f"``{name}``", escape(what), tols or NO_TOLERANCE))
        if not rows:
            continue
        out.append(heading(f"``tests/{path.name}``", "-"))
        doc = ast.get_docstring(tree)
        if doc:
            out.append(escape(" ".join(doc.split("\n\n")[0].split())) + "\n\n")
        out.append(table(("test", "what it checks", "tolerances as written"), rows))
        records = [r for r in by_file.pop(path.name, ()) if split_nodeid(r["test"])[1] in names]
        records.sort(key=lambda r: names[split_nodeid(r["test"])[1]])  # in the file's order
        if records:
            out.append("Measured against the references:\n\n" + measured_table(records))
            listed.update(id(r) for r in records)
    stale = [r for r in document["records"] if id(r) not in listed] if document else []
    if stale:
        out.append(heading("Recorded for tests not found in the source", "-"))
        out.append(measured_table(stale))
    summary = f"{total_tests} test functions, {total_tol} tolerance expressions.\n\n"
    return summary + measured_summary(document) + "".join(out)


def escape(text: str) -> str:
    """Plain text safe in reStructuredText: markup escaped outside ``double backquotes``
    (the sibling extension's escape, loaded by its path: the tests and ``python
    docs/docgen.py`` load this file without docs/ on sys.path)."""
    return plaindoc().escape(text)


@functools.cache
def plaindoc():
    spec = importlib.util.spec_from_file_location(
        "plaindoc", Path(__file__).with_name("plaindoc.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------------


def write_all(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pages = {
        "columns.rst": columns_page,
        "schema.rst": schema_page,
        "cli.rst": cli_page,
        "validation.rst": validation_page,
    }
    for name, make in pages.items():
        with contextlib.redirect_stdout(io.StringIO()):
            text = make()
        write_if_changed(folder / name, text)
    demo_pages(folder)
    spec = importlib.util.spec_from_file_location(
        "papers_table", Path(__file__).with_name("papers_table.py")
    )
    papers_table = importlib.util.module_from_spec(spec)  # the papers page's citation tables
    spec.loader.exec_module(papers_table)
    write_if_changed(folder / "papers_table.md.txt", papers_table.papers_markdown())


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python docs/docgen.py",
        description="Merge the measured errors of a recording run of the tests "
        f"(FE_CONTACT_MEASURED=FOLDER pytest) into {MEASURED.relative_to(ROOT)}.",
    )
    parser.add_argument("--merge-measured", metavar="FOLDER", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=MEASURED, help="default: %(default)s")
    parser.add_argument(
        "--command",
        default=MEASURED_COMMAND,
        help="the commands of the run, as the page shows them (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    document = merge_measured(args.merge_measured, args.command)
    args.out.write_text(json.dumps(document, indent=1) + "\n")
    print(
        f"{len(document['records'])} records of commit {document['run']['commit'][:12]}",
        f"-> {args.out}",
    )
    return 0


__all__ = ["load_measured", "merge_measured", "validation_page", "write_all"]

if __name__ == "__main__":
    raise SystemExit(main())
