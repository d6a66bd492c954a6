"""Show the library's plain-text docstrings as written.

The docstrings of fe_contact are plain text in the numpydoc spirit (``name : text`` lines,
shapes, units, paper equations such as ``|v_t|`` or ``mu |lambda|``), not reStructuredText:
read as reStructuredText they would break the build (``|x|`` is a substitution, an indented
continuation a block quote). This extension keeps each docstring's first paragraph as a
paragraph (markup outside double backquotes escaped, so that autosummary's one-line
summaries read well) and shows the rest preformatted, exactly as in the source; a numpydoc
``Examples`` section is shown as a Python session (its doctests are run by
``tests/test_api_docs.py``, not by the docs build).
"""

from __future__ import annotations

import re

LITERAL = re.compile(r"(``.+?``)")
SPECIAL = re.compile(r"([\\*`|_\[\]<>])")


def escape(text: str) -> str:
    parts = LITERAL.split(text)
    return "".join(p if LITERAL.fullmatch(p) else SPECIAL.sub(r"\\\1", p) for p in parts)


def process(app, what, name, obj, options, lines):
    if not lines or what == "module" and not any(line.strip() for line in lines):
        return
    text = list(lines)
    while text and not text[0].strip():
        text.pop(0)
    cut = next((i for i, line in enumerate(text) if not line.strip()), len(text))
    summary = " ".join(line.strip() for line in text[:cut])
    rest = text[cut:]
    while rest and not rest[0].strip():
        rest.pop(0)
    while rest and not rest[-1].strip():
        rest.pop()
    examples = []
    for i in range(len(rest) - 1):
        if rest[i].strip() == "Examples" and set(rest[i + 1].strip()) == {"-"}:
            rest, examples = rest[:i], rest[i + 2 :]
            break
    while rest and not rest[-1].strip():
        rest.pop()
    lines[:] = [escape(summary)]
    if rest:
        lines += ["", ".. code-block:: text", ""] + ["   " + line for line in rest] + [""]
    if examples:  # run by tests/test_api_docs.py; shown as a Python session
        lines += ["", ".. rubric:: Examples", "", ".. code-block:: pycon", ""]
        lines += ["   " + line for line in examples] + [""]


def setup(app):
    app.connect("autodoc-process-docstring", process, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
