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

import doctest
import importlib
import inspect
import re
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
