"""The validation page's measured errors: the ``measured`` fixture (tests/conftest.py) asserts
the number it records, its records reach the page through ``python docs/docgen.py
--merge-measured``, and every record committed in docs/validation_measured.json names a test
that still exists and is listed on the page."""

from __future__ import annotations

import ast
import importlib.util
import json
import math
from pathlib import Path

import conftest
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _docgen():
    spec = importlib.util.spec_from_file_location("docgen", ROOT / "docs" / "docgen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_recorder_asserts_what_it_records():
    records: list[dict] = []
    measured = conftest.Measured("tests/test_x.py::test_y[1]", records)
    assert measured("a", 1e-3, 2e-3, unit="m", reference="closed form") == 1e-3
    with pytest.raises(AssertionError, match="b: error 3e-07 m above the tolerance 2e-07 m"):
        measured("b", 3e-7, 2e-7, unit="m")
    with pytest.raises(AssertionError):
        measured("c", math.nan, 1.0)  # a NaN error fails
    # allclose's criterion |a - d| <= atol + rtol |d|, recorded at its worst element: the
    # second (1e-3 against 1e-6 + 1e-3 * 2 = 2.001e-3), not the first (0 against 1.001e-3)
    measured.close("d", [1.0, 2.001], [1.0, 2.0], rtol=1e-3, atol=1e-6)
    assert records[-1]["error"] == pytest.approx(1e-3, rel=1e-9)  # 2.001 - 2: round-off 1e-13
    assert records[-1]["tolerance"] == pytest.approx(2.001e-3, rel=1e-12)
    with pytest.raises(AssertionError):
        measured.close("e", [1.0, 2.0], [1.0, 2.1], rtol=1e-3)
    assert [r["quantity"] for r in records] == ["a", "b", "c", "d", "e"]
    assert records[0] == {
        "test": "tests/test_x.py::test_y[1]",
        "quantity": "a",
        "error": 1e-3,
        "tolerance": 2e-3,
        "unit": "m",
        "reference": "closed form",
    }
    with pytest.raises(ValueError, match="tolerance of 'f' must be >= 0"):
        measured("f", 0.0, -1.0)


def test_records_are_written_only_when_asked_and_merge_into_the_page(tmp_path, monkeypatch):
    record = {
        "test": "tests/test_beam.py::test_tip_force_deflection_exact",
        "quantity": "tip deflection (written by this test)",
        "error": 2.5e-12,
        "tolerance": 1e-9,
        "unit": "m",
        "reference": "P L^3 / (3 EI)",
    }
    monkeypatch.setattr(conftest, "RECORDS", [record])
    monkeypatch.delenv(conftest.ENVIRONMENT, raising=False)
    conftest.pytest_sessionfinish(None, 0)
    assert not list(tmp_path.iterdir())  # without the variable nothing is written
    monkeypatch.setenv(conftest.ENVIRONMENT, str(tmp_path / "records"))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    conftest.pytest_sessionfinish(None, 0)
    (path,) = (tmp_path / "records").glob("gw7-*.jsonl")
    header, line = (json.loads(x) for x in path.read_text().splitlines())
    assert line == record and len(header["run"]["commit"]) in (40, len("unknown"))
    docgen = _docgen()
    document = docgen.merge_measured(tmp_path / "records")
    assert document["records"] == [record]
    assert document["run"]["commit"] == header["run"]["commit"]
    page = docgen.validation_page(document)
    assert "tip deflection (written by this test)" in page
    assert "2.50e-12 m" in page and "1.00e-09 m" in page
    assert "- 400\n" in page  # the margin 1e-9 / 2.5e-12
    out = tmp_path / "merged.json"
    assert docgen.main(["--merge-measured", str(tmp_path / "records"), "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == document


def test_every_committed_record_names_an_existing_test_listed_on_the_page():
    docgen = _docgen()
    document = docgen.load_measured()
    assert document is not None, "docs/validation_measured.json is missing"
    assert document["records"], "docs/validation_measured.json holds no records"
    functions = {}
    for record in document["records"]:
        file_name, test, _ = docgen.split_nodeid(record["test"])
        if file_name not in functions:
            path = ROOT / "tests" / file_name
            assert path.exists(), f"{record['test']}: no file tests/{file_name}"
            tree = ast.parse(path.read_text())
            functions[file_name] = {
                f"{owner}.{node.name}" if owner else node.name
                for node, owner in docgen.test_functions(tree)
            }
        assert test in functions[file_name], f"{record['test']}: no such test in {file_name}"
    page = docgen.validation_page()
    assert "Recorded for tests not found" not in page
    run = document["run"]
    assert run["commit"][:12] in page and run["date"] in page
    for record in document["records"]:
        _, test, _ = docgen.split_nodeid(record["test"])
        assert f"``{test}``" in page
        assert docgen.escape(record["quantity"]) in page, record["quantity"]
