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
