"""The API reference: every public function and class has an Examples section, and it runs.

What is public is read from the API page, not typed here: ``fe_contact.__all__`` and, for each
module listed under "Submodules" in ``docs/api.rst``, the functions and classes it defines with
a name not starting with ``_`` (what autodoc shows on the module's page). Each must have a
numpydoc ``Examples`` section holding a doctest (``>>>``). Those that have none yet are listed
in ``tests/data/api_examples_todo.txt``; the list must match exactly (a new public name without
an example fails, and so does a listed name that got one: strike it off).

The examples are run here, by the standard library's doctest on each module's docstrings (not
by the docs build: the pages show the docstrings as preformatted text, so sphinx's doctest
builder does not see them). Outputs are printed rounded (``f"{x:.4g}"``, ``round``) so that
they hold on every BLAS.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import enum
import importlib
import inspect
import re
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import fe_contact

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = re.compile(r"^Examples\n-{8,}\n(.*)", re.MULTILINE | re.DOTALL)


def page_modules() -> list[str]:
    """The modules of the API page's "Submodules" autosummary, as importable names."""
    text = (ROOT / "docs" / "api.rst").read_text()
    section = text.split("Submodules\n----------", 1)[1]
    names = re.findall(r"^   ([a-z_][a-z_.]*)\s*$", section, re.MULTILINE)
    assert names, "docs/api.rst lists no submodules"
    return [f"fe_contact.{name}" for name in names]


def public_api() -> dict[str, object]:
    """Qualified name -> object of every public function and class (see the module docstring)."""
    found = {}
    for name in fe_contact.__all__:
        obj = getattr(fe_contact, name)
        found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    for module_name in page_modules():
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if obj.__module__ == module_name:
                found[f"{module_name}.{name}"] = obj
    return found


def has_examples(obj) -> bool:
    match = EXAMPLES.search(inspect.getdoc(obj) or "")
    return bool(match) and ">>> " in match.group(1)


def test_public_api_is_read_from_the_page():
    # The page's modules and __all__ give a few hundred names; a parse that found nothing
    # (a changed heading in api.rst) would make the next test pass vacuously.
    api = public_api()
    assert "fe_contact.system.assemble" in api
    assert "fe_contact.io.vtk.write_pvd" in api
    assert len(api) > 100


def test_every_public_function_and_class_has_an_example():
    missing = sorted(name for name, obj in public_api().items() if not has_examples(obj))
    assert not missing, f"public names without an Examples section (write one): {missing}"


def module_tests(module_name: str) -> list[doctest.DocTest]:
    """The doctests of the public objects defined in a module (their methods included)."""
    api = public_api()
    finder = doctest.DocTestFinder(exclude_empty=True)
    module = importlib.import_module(module_name)
    tests = []
    for name, obj in api.items():
        if obj.__module__ != module_name:
            continue
        globs = {"np": np, "fe_contact": fe_contact, **vars(module)}
        tests += finder.find(obj, name, module=module, globs=globs)
    return tests


MODULES = sorted({obj.__module__ for obj in public_api().values()})


@pytest.mark.parametrize("module_name", MODULES)
def test_examples_run(module_name):
    # Each example prints rounded figures (4 significant digits or a stated rounding) that a
    # reader can check against a closed form; ELLIPSIS for the parts of a repr that vary.
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    report = []
    for test in module_tests(module_name):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


# ------------------------------------------------------------------------------------------
# numpydoc sections: Parameters, Returns / Yields, Raises
# ------------------------------------------------------------------------------------------

NUMPYDOC_TODO = ROOT / "tests" / "data" / "api_numpydoc_todo.txt"
BAD_INPUT = (ValueError, TypeError)


def signature_names(obj) -> list[str] | None:
    """The parameters a caller passes (``self``, ``cls`` and private dataclass fields ``_x``
    left out, as numpydoc's validation leaves ``self`` and ``cls`` out; ``*args``,
    ``**kwargs`` with their stars, as numpydoc names them), or None for a class without a
    signature of its own (an exception with the built-in constructor, an enum)."""
    if inspect.isclass(obj) and issubclass(obj, enum.Enum):
        return None
    try:
        sig = inspect.signature(obj)
    except ValueError:
        return None
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return [
        stars.get(p.kind, "") + p.name
        for p in sig.parameters.values()
        if p.name not in ("self", "cls") and not p.name.startswith("_")
    ]


def function_tree(func) -> ast.FunctionDef | None:
    """The function's syntax tree (None when its source cannot be read)."""
    try:
        source = textwrap.dedent(inspect.getsource(inspect.unwrap(func)))
    except (OSError, TypeError):
        return None
    node = ast.parse(source).body[0]
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def own_nodes(tree: ast.AST):
    """The nodes of a function's body, nested functions, lambdas and classes left out."""
    todo = list(ast.iter_child_nodes(tree))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def returns_value(func) -> tuple[bool, bool]:
    """(returns something other than None, yields): read from the body, else the annotation."""
    tree = function_tree(func)
    if tree is None:
        annotation = inspect.signature(func).return_annotation
        return annotation not in (None, "None", inspect.Signature.empty), False
    nodes = list(own_nodes(tree))
    yields = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes)
    returns = any(
        isinstance(n, ast.Return)
        and n.value is not None
        and not (isinstance(n.value, ast.Constant) and n.value.value is None)
        for n in nodes
    )
    return returns, yields


def resolve(node: ast.expr, namespace: dict):
    """The object a name or a dotted attribute (``check.real``) stands for, or None."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        owner = resolve(node.value, namespace)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


def raises_bad_input(func, depth: int = 3) -> set[type]:
    """The ValueError / TypeError classes that ``func`` raises, by itself or through
    a validation helper of the library it calls (a function of ``fe_contact.validation`` or one
    named ``check...`` / ``_check...``), followed ``depth`` calls deep. Best effort: raises in
    other callees (the kernels, the assembly) are not followed."""
    tree = function_tree(func)
    if tree is None or depth < 0:
        return set()
    namespace = inspect.unwrap(func).__globals__
    # an exception class given as a parameter's default (``validation.fail(..., error=ValueError)``)
    defaults = {
        name: p.default
        for name, p in inspect.signature(func).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    found = set()
    for node in own_nodes(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            exc = resolve(target, {**namespace, **defaults})
            if inspect.isclass(exc) and issubclass(exc, BAD_INPUT):
                found.add(exc)
        elif isinstance(node, ast.Call):
            callee = resolve(node.func, namespace)
            helper = inspect.isfunction(callee) and (
                callee.__module__ == "fe_contact.validation"
                or callee.__name__.lstrip("_").startswith("check")
            )
            if helper and callee.__module__.startswith("fe_contact"):
                inner = raises_bad_input(callee, depth - 1)
                found |= inner
                if inner:  # an exception class handed to the helper (``fail(..., TypeError)``)
                    given = [resolve(a, namespace) for a in node.args]
                    given += [resolve(k.value, namespace) for k in node.keywords]
                    found |= {g for g in given if inspect.isclass(g) and issubclass(g, BAD_INPUT)}
    return found


def class_validators(cls) -> list:
    """The constructor code a class defines itself: ``__init__``, ``__post_init__``."""
    return [
        cls.__dict__[name]
        for name in ("__init__", "__post_init__")
        if inspect.isfunction(cls.__dict__.get(name))
    ]


def entry_problems(section: str, entries) -> list[str]:
    return [
        f"{section} entry {p.name!r} without a {what}"
        for p in entries
        for what, missing in (("type", not p.type.strip()), ("description", not "".join(p.desc)))
        if missing
    ]


def split_names(entries) -> list[str]:
    """Entry names, a shared entry ("x, y : float") counted for each of its names."""
    return [name.strip() for p in entries for name in p.name.split(",") if name.strip()]


def numpydoc_problems(obj) -> list[str]:
    """What the object's docstring lacks against numpydoc's sections (empty: it conforms)."""
    from numpydoc.docscrape import ClassDoc, FunctionDoc

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if inspect.isclass(obj):
                doc = ClassDoc(obj, config={"show_class_members": False})
            else:
                doc = FunctionDoc(obj)
        except ValueError as err:  # a malformed section (a repeated heading, ...)
            return [f"numpydoc cannot parse the docstring: {err}"]
    problems = [f"numpydoc: {w.message}" for w in caught]
    params = doc["Parameters"] + doc["Other Parameters"]
    problems += entry_problems("Parameters", params)
    documented = split_names(params)
    wanted = signature_names(obj)
    if inspect.isclass(obj):
        problems += entry_problems("Attributes", doc["Attributes"])
        if wanted is not None:
            missing = set(wanted) - set(documented) - set(split_names(doc["Attributes"]))
            extra = set(documented) - set(wanted)
            problems += [f"constructor parameter {n!r} not in Parameters" for n in sorted(missing)]
            problems += [f"Parameters names {n!r}, not a parameter" for n in sorted(extra)]
        raised = set().union(*(raises_bad_input(f) for f in class_validators(obj)))
    else:
        missing, extra = set(wanted) - set(documented), set(documented) - set(wanted)
        problems += [f"parameter {n!r} not in Parameters" for n in sorted(missing)]
        problems += [f"Parameters names {n!r}, not a parameter" for n in sorted(extra)]
        returns, yields = returns_value(obj)
        if returns and not doc["Returns"]:
            problems.append("returns a value but has no Returns section")
        if yields and not doc["Yields"]:
            problems.append("yields but has no Yields section")
        problems += entry_problems("Returns", [p for p in doc["Returns"] if p.type or p.name])
        raised = raises_bad_input(obj)
    # a listed class covers its subclasses (ValueError covers limits.LimitExceeded)
    listed = {p.type.strip() or p.name.strip() for p in doc["Raises"]}
    unlisted = {e.__name__ for e in raised if not {c.__name__ for c in e.__mro__} & listed}
    problems += [f"raises {n} on bad input, not in Raises" for n in sorted(unlisted)]
    return problems


def numpydoc_todo() -> set[str]:
    lines = NUMPYDOC_TODO.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def test_numpydoc_check_finds_what_is_missing():
    # The checker on two made-up docstrings: one with every section right, one without; a
    # checker that found nothing would let the todo list below pass vacuously.
    def good(x, n=2, *rest, **options):
        """Scale a length.

        Parameters
        ----------
        x : float
            Length in m.
        n : int, optional
            Factor, 2 by default.
        *rest : float
            More lengths in m.
        **options : dict
            Ignored.

        Returns
        -------
        float
            The scaled length in m.

        Raises
        ------
        ValueError
            When ``n`` is negative.
        """
        if n < 0:
            raise ValueError("n: got a negative number; allowed: n >= 0")
        return n * x

    def bad(x, n=2):
        """Scale a length: x : float, length in m; n : int, factor."""
        if n < 0:
            raise ValueError("n: got a negative number; allowed: n >= 0")
        return n * x

    assert numpydoc_problems(good) == []
    assert numpydoc_problems(bad) == [
        "parameter 'n' not in Parameters",
        "parameter 'x' not in Parameters",
        "returns a value but has no Returns section",
        "raises ValueError on bad input, not in Raises",
    ]


def test_public_docstrings_have_numpydoc_sections():
    # Every public function and class names its parameters (type, description), what it
    # returns and the bad input it refuses in numpydoc sections; those not converted yet are
    # listed in tests/data/api_numpydoc_todo.txt, and the list must match exactly.
    problems = {name: numpydoc_problems(obj) for name, obj in public_api().items()}
    failing = {name for name, found in problems.items() if found}
    todo = numpydoc_todo()
    new = sorted(failing - todo)
    done = sorted(todo - failing)
    unknown = sorted(todo - set(problems))
    assert not new, "docstrings without numpydoc sections (write them): " + "; ".join(
        f"{name}: {', '.join(problems[name])}" for name in new
    )
    assert not done, f"converted, strike off {NUMPYDOC_TODO.name}: {done}"
    assert not unknown, f"not public names, strike off {NUMPYDOC_TODO.name}: {unknown}"
