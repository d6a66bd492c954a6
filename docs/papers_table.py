"""The papers page's table of which module cites which equations, read from the code.

``papers_table()`` scans the library's source (``fe_contact/**/*.py``: docstrings and comments)
for citations of the five papers in the form the code uses, "Lipinski (002), eq. (76)",
"(004), eqs. (26)-(27)", "(003) sec. 4", and returns a Markdown table per paper: each module
with the equations, sections, tables and figures it cites. ``docgen.write_all`` writes it to
``docs/generated/papers_table.md.txt``, which ``docs/details/papers.md`` includes (the suffix
keeps Sphinx from reading it as a page of its own).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAPERS = ("000", "001", "002", "003", "004")
# "(002), eq. (76)", "002 eq. (76)", "(004) eqs. 20-25", "(000), secs. 2-5", "(004), Table 1"
CITATION = re.compile(
    r"(?<![\d.])\(?(00[0-4])\)?,?\s+"
    r"(eqs?\.|secs?\.|sections?|[Tt]ables?|figs?\.)\s*"
    r"(\(?\d+[a-z]?(?:\.\d+)*\)?(?:\s*[-,]\s*(?!\(?00\d)\(?\d+[a-z]?(?:\.\d+)*\)?)*)"
)
KINDS = {"eq": "eq.", "sec": "sec.", "tab": "table", "fig": "fig."}
PLURAL = {"eq.": "eqs.", "sec.": "secs.", "table": "tables", "fig.": "figs."}


def citations(text: str) -> dict[str, dict[str, set[str]]]:
    """{paper: {kind: {numbers}}} of the citations in ``text``; kind one of eq., sec., table,
    fig.; numbers as written without parentheses ("76", "26-27", "7.2")."""
    found: dict[str, dict[str, set[str]]] = {}
    for paper, kind, numbers in CITATION.findall(" ".join(text.split())):
        kind = KINDS[kind.lower().rstrip(".s")[:3]]
        numbers = re.sub(r"\s+", "", numbers.replace("(", "").replace(")", ""))
        for number in filter(None, numbers.split(",")):
            found.setdefault(paper, {}).setdefault(kind, set()).add(number)
    return found


def sort_key(number: str):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", number)]


def papers_table(package: Path = ROOT / "fe_contact") -> dict[str, str]:
    """{paper: Markdown table of the modules citing it} for each paper cited anywhere."""
    by_paper: dict[str, dict[str, dict[str, set[str]]]] = {}
    for path in sorted(package.rglob("*.py")):
        module = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for paper, kinds in citations(path.read_text()).items():
            by_paper.setdefault(paper, {})[module] = kinds
    tables = {}
    for paper in PAPERS:
        modules = by_paper.get(paper)
        if not modules:
            continue
        rows = ["| module | cites |", "|---|---|"]
        for module, kinds in sorted(modules.items()):
            cited = "; ".join(
                f"{PLURAL[kind] if len(numbers) > 1 or '-' in min(numbers) else kind} "
                + ", ".join(sorted(numbers, key=sort_key))
                for kind, numbers in sorted(kinds.items())
            )
            rows.append(f"| `{module}` | {cited} |")
        tables[paper] = "\n".join(rows) + "\n"
    return tables


def papers_markdown() -> str:
    """The include file: per paper cited in the code, its table."""
    tables = papers_table()
    out = []
    for paper, table in tables.items():
        out.append(f"**{paper}**, cited in the code by:\n\n{table}")
    return "\n".join(out)


__all__ = ["citations", "papers_markdown", "papers_table"]
