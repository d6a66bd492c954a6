"""Sphinx configuration of the fe_contact site: ``sphinx-build -W docs docs/_build/html``.

The tables that follow the code (history columns, model-file schema, demos, command line,
validation references collected from the tests) are written into ``docs/generated/`` by
``docgen.py`` at the start of every build, from the code and the tests (only the columns'
one-line meanings are typed, in docgen.py, and the build stops when they and the code's
columns differ); autosummary writes the API pages into ``docs/generated/api/``.
"""

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("PYVISTA_OFF_SCREEN", "true")

import docgen  # noqa: E402

import fe_contact  # noqa: E402

docgen.write_all(HERE / "generated")

project = "fe_contact"
author = "the fe_contact developers"
copyright = "2026, the fe_contact developers"  # noqa: A001
release = fe_contact.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "plaindoc",
    "myst_parser",
]

# The in-depth pages (docs/details/*.md) are Markdown, readable on the repository too; links to
# their headings (#anchor, page.md#anchor) resolve by myst's GitHub-style heading anchors.
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
html_theme = "pydata_sphinx_theme"
html_title = f"fe_contact {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = []

# autodoc / autosummary: the public API only (fe_contact.__all__ and the public submodules).
autosummary_generate = True
autosummary_imported_members = False
autosummary_ignore_module_all = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"  # the docstrings state types, shapes and units
autodoc_member_order = "bysource"

# numpydoc turns the docstrings' Parameters / Returns / Raises sections into field lists
# (``plaindoc`` keeps them, and shows the rest of a docstring as written). Its checks PR01 (a
# parameter not documented), PR02 (a documented name that is no parameter) and RT01 (no
# Returns section) run on the public functions and classes converted to those sections (the
# API page's, as tests/test_api_docs.py reads them, less those still listed in
# tests/data/api_numpydoc_todo.txt), not on class members (methods and properties keep the
# library's plain style), nor on an enumeration or a class with private dataclass fields
# (``_x``, left out of its Parameters).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = {"PR01", "PR02", "RT01"}


def _checked_names() -> set[str]:
    """The documented names of the public functions and classes converted to numpydoc."""
    import enum
    import importlib
    import inspect

    public = {f"fe_contact.{name}": getattr(fe_contact, name) for name in fe_contact.__all__}
    section = (HERE / "api.rst").read_text().split("Submodules\n----------", 1)[1]
    for short in re.findall(r"^   ([a-z_][a-z_.]*)\s*$", section, re.MULTILINE):
        module = importlib.import_module(f"fe_contact.{short}")
        for name, obj in vars(module).items():
            own = getattr(obj, "__module__", None) == module.__name__
            if (
                own
                and not name.startswith("_")
                and (inspect.isclass(obj) or inspect.isfunction(obj))
            ):
                public[f"{module.__name__}.{name}"] = obj
    todo = (HERE.parent / "tests" / "data" / "api_numpydoc_todo.txt").read_text().splitlines()
    todo = {line.strip() for line in todo if line.strip() and not line.startswith("#")}
    return {
        name
        for name, obj in public.items()
        if f"{obj.__module__}.{obj.__qualname__}" not in todo
        and not (inspect.isclass(obj) and issubclass(obj, enum.Enum))  # no constructor to check
        and not _private_fields(obj)  # Beam's _reduced, StringModel's CSR tables
    }


def _private_fields(obj) -> bool:
    """True for a dataclass with a constructor parameter ``_x`` (left out of its Parameters)."""
    import dataclasses

    return dataclasses.is_dataclass(obj) and any(
        f.init and f.name.startswith("_") for f in dataclasses.fields(obj)
    )


# every documented name but those (a negative lookahead: numpydoc skips what a pattern finds)
numpydoc_validation_exclude = {
    "^(?!(?:" + "|".join(re.escape(name) for name in sorted(_checked_names())) + ")$)"
}

# doctest: ``sphinx-build -b doctest docs docs/_build/doctest`` runs the examples on the pages.
doctest_global_setup = "import numpy as np\nimport fe_contact"

# sphinx-gallery: every script in examples/ is run during the build, its figures on its page.
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "reset_modules": ("matplotlib",),
    "within_subsection_order": "FileNameSortKey",
}
