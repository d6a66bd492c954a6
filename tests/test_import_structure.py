"""The import structure of the library, read from the source with an AST scan (nothing imported).

(a) No import cycle among the modules of ``fe_contact``: every ``import`` and ``from ... import``
of a library module counts, at the top of a file or inside a function (a deferred import is a
hidden cycle just the same), as an edge from the importing module to the imported one
(``from pkg import mod`` to ``pkg.mod`` when that is a module, else to ``pkg``). A cycle is a
strongly connected component of more than one module (Tarjan), or a module importing itself.

(b) No private name (one leading underscore, not a dunder such as ``__version__``) imported from
another module: if two modules need it, it is public somewhere (shared/DESIGN.md).

(c) The scanner itself finds a known cycle (including one closed by an import inside a function)
and a known private import in a small package written to ``tmp_path``, and reports nothing in a
clean one, so (a) and (b) could fail.

(d) The compiled generalised-alpha stepper (``steppers/compiled.py``) changes and reads the state
of its parent ``GeneralizedAlpha`` only through the parent's interface (``save``, ``restore``,
its properties and methods): it assigns no attribute ``self._x`` that ``steppers/genalpha.py``,
``steppers/contact_states.py`` or ``steppers/base.py`` assign, and reads none of them. The names
are those the parent modules' syntax trees assign, so the rule follows the parent as it changes;
the attribute scan is tested on a small source like (c).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "fe_contact"


def module_names(package: Path) -> dict[str, Path]:
    """Dotted module name -> file of every module under ``package`` (a package is its
    ``__init__``)."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def imports(name: str, path: Path, modules: dict[str, Path]):
    """(imported module, imported name or None, line) of every import of a module of the
    package in the file, at any depth of its syntax tree."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, None, node.lineno) for a in node.names if a.name in modules]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                child = f"{source}.{alias.name}"
                if child in modules:  # ``from pkg import mod``: the module itself
                    found.append((child, None, node.lineno))
                elif source in modules:
                    found.append((source, alias.name, node.lineno))
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (itself included if it does)."""
    return {
        name: {target for target, _, _ in imports(name, path, modules)}
        for name, path in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected components of more than one module (Tarjan's
    algorithm, iterative) and modules that import themselves, each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    found.append(sorted(component))
    return found


def private_imports(modules: dict[str, Path]) -> list[str]:
    """ "module:line imports _name from other" for every private name imported from another
    module of the package."""
    found = []
    for name, path in modules.items():
        for source, imported, line in imports(name, path, modules):
            private = imported is not None and imported.startswith("_")
            if private and not imported.startswith("__") and source != name:
                found.append(f"{name}:{line} imports {imported} from {source}")
    return found


def test_no_import_cycle():
    modules = module_names(ROOT)
    found = cycles(import_graph(modules))
    lines = []
    for component in found:
        lines.append("import cycle among: " + ", ".join(component))
        members = set(component)
        for name in component:  # the imports that close it, with their lines
            edges = {(line, t) for t, _, line in imports(name, modules[name], modules)}
            lines += [f"    {name}:{line} imports {t}" for line, t in sorted(edges) if t in members]
    assert not found, "\n".join(lines)


def test_no_private_name_imported_from_another_module():
    found = private_imports(module_names(ROOT))
    assert not found, "\n".join(found)


def test_the_scan_reads_every_module():
    # a wrong root or a parse that finds no module would make the two tests above pass
    # vacuously: the package has well over 100 modules, the system imports the model
    modules = module_names(ROOT)
    assert len(modules) > 100
    assert "fe_contact.model" in import_graph(modules)["fe_contact.system"]


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_scanner_finds_a_known_cycle_and_a_known_private_import(tmp_path):
    package = write(
        tmp_path,
        {
            "pkg/__init__.py": "__version__ = '1'\n",
            "pkg/a.py": "from .b import f\n",
            # the cycle a -> b -> c -> a is closed by an import inside a function
            "pkg/b.py": "from . import c\n\ndef f():\n    return c.g()\n",
            "pkg/c.py": "def g():\n    from pkg.a import f\n    return f\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/d.py": "from ..a import f\nfrom .e import _helper\nfrom pkg import __version__\n",
            "pkg/sub/e.py": "def _helper():\n    return 1\n",
            "pkg/sub/s.py": "import pkg.sub.s\n",  # a module that imports itself
        },
    )
    modules = module_names(package)
    assert {"pkg", "pkg.a", "pkg.sub", "pkg.sub.d", "pkg.sub.e"} <= set(modules)
    assert sorted(cycles(import_graph(modules))) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.sub.s"]]
    # the dunder __version__ is not private
    assert private_imports(modules) == ["pkg.sub.d:2 imports _helper from pkg.sub.e"]


def test_scanner_reports_nothing_in_a_layered_package(tmp_path):
    package = write(
        tmp_path,
        {
            "pkg/__init__.py": "from .top import run\n",
            "pkg/base.py": "def shared():\n    return 1\n",
            "pkg/left.py": "from .base import shared\n",
            "pkg/right.py": "from . import base\n\ndef g():\n    from .left import shared\n",
            "pkg/top.py": "from .left import shared\nfrom .right import g\n\nrun = (shared, g)\n",
        },
    )
    modules = module_names(package)
    assert cycles(import_graph(modules)) == []
    assert private_imports(modules) == []


STEPPERS = ROOT / "steppers"
PARENT_MODULES = ("genalpha.py", "contact_states.py", "base.py")  # GeneralizedAlpha and its parts


def self_attributes(path: Path) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """(written, read): private attribute name ``_x`` -> the lines where the file writes
    ``self._x`` (plain, chained, tuple, augmented and annotated assignment, ``del``,
    ``setattr(self, "_x", ...)``) or reads it. Dunders are not private."""
    written, read = {}, {}

    def private(name) -> bool:
        return isinstance(name, str) and name.startswith("_") and not name.startswith("__")

    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        on_self = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        if on_self and node.value.id == "self" and private(node.attr):
            target = read if isinstance(node.ctx, ast.Load) else written
            target.setdefault(node.attr, []).append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == "self"
            and isinstance(node.args[1], ast.Constant)
            and private(node.args[1].value)
        ):
            written.setdefault(node.args[1].value, []).append(node.lineno)
    return written, read


def parent_attributes() -> set[str]:
    """The private attributes ``GeneralizedAlpha``'s modules assign on ``self``."""
    names = set()
    for name in PARENT_MODULES:
        names |= set(self_attributes(STEPPERS / name)[0])
    return names


def compiled_uses_of_parent_state(reads: bool) -> list[str]:
    """Where ``steppers/compiled.py`` assigns (reads: False) or reads (True) a private
    attribute that ``GeneralizedAlpha``'s modules assign, one line each."""
    parent = parent_attributes()
    uses = self_attributes(STEPPERS / "compiled.py")[1 if reads else 0]
    verb = "reads" if reads else "assigns"
    return [
        f"steppers/compiled.py:{line} {verb} self.{name} (an attribute of GeneralizedAlpha)"
        for name in sorted(set(uses) & parent)
        for line in uses[name]
    ]


def test_compiled_stepper_writes_no_private_state_of_its_parent():
    # the scan reads the parent: its committed state (StepState's) is among what it assigns
    assert {"_s", "_previous", "_powers", "_numerical"} <= parent_attributes()
    found = compiled_uses_of_parent_state(reads=False)
    assert not found, "\n".join(found)


def test_compiled_stepper_reads_no_private_state_of_its_parent():
    found = compiled_uses_of_parent_state(reads=True)
    assert not found, "\n".join(found)


def test_attribute_scan_finds_every_kind_of_write(tmp_path):
    path = tmp_path / "stepper.py"
    path.write_text(
        "class Stepper:\n"
        "    def __init__(self, other):\n"
        "        self._a = self._b = 0\n"
        "        self._c, (self._d, self.e) = 1, (2, 3)\n"
        "        self._f += self._g\n"
        "        self._h: float = 0.0\n"
        "        del self._i\n"
        '        setattr(self, "_j", 1)\n'
        "        other._k = self.__dict__\n"
        "        return self._l()\n"
    )
    written, read = self_attributes(path)
    assert sorted(written) == ["_a", "_b", "_c", "_d", "_f", "_h", "_i", "_j"]
    assert sorted(read) == ["_g", "_l"]
