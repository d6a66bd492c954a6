"""Sphinx configuration of the fe_contact site: ``sphinx-build -W docs docs/_build/html``.

The tables that follow the code (history columns, model-file schema, demos, command line,
validation references collected from the tests) are written into ``docs/generated/`` by
``docgen.py`` at the start of every build, from the code and the tests (only the columns'
one-line meanings are typed, in docgen.py, and the build stops when they and the code's
columns differ); autosummary writes the API pages into ``docs/generated/api/``.
"""

import os
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

# numpydoc is loaded for docstrings written in its sections; its validation checks are off
# (none of numpydoc's checks is enforced: the library's docstrings are plain text with
# "name : text" lines, shown as written by the local extension ``plaindoc``).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

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
