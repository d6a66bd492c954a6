"""Show the library's plain-text docstrings as written.

The docstrings of fe_contact are plain text in the numpydoc spirit (``name : text`` lines,
shapes, units, paper equations such as ``|v_t|`` or ``mu |lambda|``), not reStructuredText:
read as reStructuredText they would break the build (``|x|`` is a substitution, an indented
continuation a block quote). This extension keeps each docstring's first paragraph as a
paragraph (markup outside double backquotes escaped, so that autosummary's one-line
summaries read well) and shows the rest preformatted, exactly as in the source; a numpydoc
``Examples`` section is shown as a Python session (its doctests are run by
``tests/test_api_docs.py``, not by the docs build).

numpydoc's sections (Parameters, Returns, Raises, ...) are turned by numpydoc into field lists
before this extension runs; those are kept as field lists (names and types as numpydoc wrote
them, types and descriptions escaped as above), so that they render as numpydoc's tables.
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
    rest, examples = split_examples(rest)
    rest, fields = split_fields(rest)
    lines[:] = [escape(summary)]
    if rest:
        lines += ["", ".. code-block:: text", ""] + ["   " + line for line in rest] + [""]
    if fields:  # numpydoc's field lists, their text escaped
        lines += [""] + [field_line(line) for line in fields] + [""]
    if examples:  # run by tests/test_api_docs.py; prose as paragraphs, sessions as pycon
        lines += ["", ".. rubric:: Examples", ""]
        for block in blocks(examples):
            if block[0].lstrip().startswith(">>>"):
                lines += [".. code-block:: pycon", ""] + ["   " + line for line in block] + [""]
            else:
                lines += [escape(" ".join(line.strip() for line in block)), ""]


def split_examples(rest: list[str]) -> tuple[list[str], list[str]]:
    """The lines before an Examples section and those of the section (numpydoc has turned
    its heading into ``.. rubric:: Examples`` by the time this extension runs; the plain
    numpydoc heading is taken too)."""
    for i, line in enumerate(rest):
        plain = (
            line.strip() == "Examples" and i + 1 < len(rest) and set(rest[i + 1].strip()) == {"-"}
        )
        if line.strip() == ".. rubric:: Examples" or plain:
            head, section = rest[:i], rest[i + (2 if plain else 1) :]
            while head and not head[-1].strip():
                head.pop()
            return head, section
    return rest, []


FIELD = re.compile(r"^:[A-Z][A-Za-z ]*:$")
ENTRY = re.compile(r"^(    \*\*.+?\*\*) : (.*)$")


def split_fields(rest: list[str]) -> tuple[list[str], list[str]]:
    """The lines before numpydoc's first field list (``:Parameters:``, ``:Returns:``, ...)
    and the lines from there on."""
    for i, line in enumerate(rest):
        if FIELD.match(line):
            head = rest[:i]
            while head and not head[-1].strip():
                head.pop()
            return head, rest[i:]
    return rest, []


def field_line(line: str) -> str:
    """A line of numpydoc's field lists with its text escaped: field names (``:Raises:``) and
    directives (``.. rubric::``) kept, the bold parameter names numpydoc wrote kept, their
    types and the descriptions escaped."""
    if not line.strip() or FIELD.match(line) or line.startswith(".. "):
        return line
    entry = ENTRY.match(line)
    if entry:
        return f"{entry.group(1)} : {escape(entry.group(2))}"
    text = line.lstrip()
    return line[: len(line) - len(text)] + escape(text)


def blocks(lines: list[str]) -> list[list[str]]:
    """Runs of non-blank lines (an Examples section's paragraphs and doctest sessions)."""
    out, run = [], []
    for line in lines + [""]:
        if line.strip():
            run.append(line)
        elif run:
            out.append(run)
            run = []
    return out


def setup(app):
    app.connect("autodoc-process-docstring", process, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
