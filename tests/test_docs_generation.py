"""The documentation's generated pages build from the code (docs/docgen.py), without Sphinx:
a change of the code's vocabulary that breaks them fails here, not only in the docs build."""

import importlib.util
import re
from pathlib import Path

from fe_contact import assemble
from fe_contact.papers.lipinski import sliding_mass_model
from fe_contact.steppers.result import history_columns

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _docgen():
    spec = importlib.util.spec_from_file_location("docgen", DOCS / "docgen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_reference_pages_build():
    """The column table, the model-file schema and the command line's help (the pages that
    need no Sphinx extension)."""
    docgen = _docgen()
    assert "contacts" in docgen.schema_page()
    assert "fe-contact" in docgen.cli_page()
    text = docgen.columns_page()
    # a real system's columns are all in the table (contact names as <name>, joint names as
    # <joint>, structure names as <structure>)
    system = assemble(sliding_mass_model(0.0, 4))
    (contact,) = system.model.contacts
    for name, _ in history_columns(system):
        name = re.sub(r"^joint_\d+_", "<joint>_", name)
        for structure in system.structures:  # part energies as <structure>_...
            if name.startswith(f"{structure}_"):
                name = "<structure>" + name[len(structure) :]
        assert name.replace(f"{contact.name}_", "<name>_") in text, name


def test_the_papers_page_lists_the_citations_of_the_code():
    """The papers page's tables (docs/papers_table.py) read the citations as the code writes
    them: a typed sample gives each paper its equations, sections and tables (a range kept
    whole, a following paper's number not taken for an equation), and each module whose
    source says "(002), eq. 76" (the recovery of the multipliers) is listed under 002 with
    eq. 76; so are the string's tension law, "(004), eq. (17)", and the sets' laws."""
    spec = importlib.util.spec_from_file_location("papers_table", DOCS / "papers_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    sample = "Lipinski (002), eq. (76), (004), eqs. (26)-(27) and 000 sec. 7.2, 003 Table 3"
    assert table.citations(sample) == {
        "002": {"eq.": {"76"}},
        "004": {"eq.": {"26-27"}},
        "000": {"sec.": {"7.2"}},
        "003": {"table": {"3"}},
    }
    tables = table.papers_table()
    assert set(tables) >= {"000", "002", "003", "004"}
    package = DOCS.parent / "fe_contact"
    for paper, cited, number in (
        ("002", "(002), eq. 76", "76"),
        ("004", "(004), eq. (17)", "17"),
    ):
        modules = [
            ".".join(p.relative_to(package.parent).with_suffix("").parts)
            for p in package.rglob("*.py")
            if cited in " ".join(p.read_text().split())
        ]
        assert modules, cited
        rows = {row.split("`")[1]: row for row in tables[paper].splitlines()[2:]}
        for module in modules:
            assert re.search(rf"\b{number}\b", rows[module.removesuffix(".__init__")]), module
    text = table.papers_markdown()
    assert text.count("| module | cites |") == len(tables)
