"""The simulated numbers and figures of the README and its in-depth pages (docs/details) are
what ``python -m fe_contact.docs_figures`` computes (``fe_contact.docs_figures``).

A quoted number agrees when it equals the computed value rounded to the README's format (the
quote carries 2-6 significant digits; the runs are deterministic to round-off, ~1e-12 relative,
so only a value within 1e-12 of a rounding boundary could round differently on another
machine). Round-off level numbers (balance errors of 1e-10 J and below, residuals) are sums of
rounding errors that change with the BLAS kernel: they agree within a factor of 10.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fe_contact import docs_figures as df

ROOT = Path(__file__).resolve().parents[1]  # the checkout, also when the package is installed
README_TEXT = df.pages_text(ROOT)  # README.md and docs/details/*.md


def test_every_figure_of_the_readme_is_drawn_by_the_command():
    readme = (ROOT / "README.md").read_text()
    embedded = set(re.findall(r"!\[[^\]]*\]\(docs/([^)]+\.png)\)", readme))
    for page in df.pages(ROOT)[1:]:  # docs/details/*.md take them from docs/
        embedded |= set(re.findall(r"!\[[^\]]*\]\(\.\./([^)]+\.png)\)", page.read_text()))
    drawn = {name for names in df.FIGURES.values() for name in names}
    assert embedded and embedded == drawn
    assert set(df.FIGURES) <= set(df.ALL_RUNS)  # a long run draws its own: --only NAME


def test_locate_reads_the_number_of_a_table_row_and_of_a_sentence():
    text = "# Top\n\n## Demo\n\n| 0 | 0.5 | 0 | 1e-10 |\n| 0.05 | 0.4 | 2 | 3 |\n\nit lands\nat 0.046 s.\n"
    row = df.Quantity("a", 0.0, "J", ".5f", "Demo", "| 0 | {*} | {} |")
    assert df.quoted_number(row, text) == "0"  # the row of mu = 0, not its friction column
    assert (
        df.quoted_number(df.Quantity("b", 0.0, "N", ".1f", "Demo", "| 0.05 | {} |"), text) == "0.4"
    )
    sentence = df.Quantity("c", 0.0461, "s", ".3f", "Demo", "it lands at {} s")
    assert df.quoted_number(sentence, text) == "0.046"  # across a line break
    assert df.agrees(sentence, "0.046") and not df.agrees(sentence, "0.047")
    tiny = df.Quantity("d", 4e-10, "J", ".1e", "Demo", "| 0 | {*} | {*} | {} |", roundoff=True)
    assert df.agrees(tiny, df.quoted_number(tiny, text))  # 4e-10 within a factor 10 of 1e-10
    assert not df.agrees(df.Quantity("e", 2e-9, "J", ".1e", "Demo", "x {}", roundoff=True), "1e-10")


def test_a_chaotic_count_agrees_within_its_spread_and_no_further():
    count = df.Quantity("n", 446, "1", "d", "Demo", "| 2 | {} |", spread=0.5)
    assert df.agrees(count, "300") and df.agrees(count, "600")  # 446 within 50 % of both
    assert not df.agrees(count, "290") and not df.agrees(count, "900")
    exact = df.Quantity("m", 446, "1", "d", "Demo", "| 2 | {} |")
    assert df.agrees(exact, "446") and not df.agrees(exact, "445")


def test_long_runs_are_in_the_command_and_out_of_the_quick_set():
    assert set(df.LONG_RUNS).isdisjoint(df.RUNS)
    assert set(df.ALL_RUNS) == set(df.RUNS) | set(df.LONG_RUNS)
    assert {"cam-lock", "pin-on-wheel", "trolley-energy"} <= set(df.LONG_RUNS)


def test_locate_refuses_a_missing_section_or_an_ambiguous_text():
    text = "## Demo\n\nat 1.0 s and at 2.0 s\n"
    with pytest.raises(ValueError, match="no section 'Other'"):
        df.quoted_number(df.Quantity("a", 1.0, "s", ".1f", "Other", "at {} s"), text)
    with pytest.raises(ValueError, match="occurs 2 times"):
        df.quoted_number(df.Quantity("a", 1.0, "s", ".1f", "Demo", "at {} s"), text)
    with pytest.raises(ValueError, match="must hold one"):
        df.quoted_number(df.Quantity("a", 1.0, "s", ".1f", "Demo", "at {} s, up to {} s"), text)


def test_command_line_errors_name_the_option_and_what_is_allowed(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        df.main(["--only", "manipulator", "pendulum", "--out", str(tmp_path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--only" in err and "'pendulum'" in err and "slider-on-string" in err
    a_file = tmp_path / "file.txt"
    a_file.write_text("")
    with pytest.raises(SystemExit) as exit_:
        df.main(["--out", str(a_file)])
    assert exit_.value.code == 2 and "a folder, not a file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        df.main(["--check", "--root", str(tmp_path), "--out", str(tmp_path)])
    assert exit_.value.code == 2
    assert "--root" in capsys.readouterr().err  # no README there: refused before any run
    with pytest.raises(SystemExit) as exit_:
        df.main(["--quick", "--only", "manipulator", "--out", str(tmp_path)])
    assert exit_.value.code == 2 and "--quick" in capsys.readouterr().err
    assert df.main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert all(f"{name}: " in listed for name in df.ALL_RUNS)


@pytest.mark.slow
def test_manipulator_table_and_figures_of_the_readme(tmp_path):
    """The sweep of the main demo (six mu, 0.6 s, compiled: about 4 s of CPU)."""
    quantities = df.compute(tmp_path, only=["manipulator"])
    assert len(quantities) == 2 + 6 * 5 + 2
    assert df.check_readme(quantities, README_TEXT) == []
    for name in df.FIGURES["manipulator"]:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_every_simulated_number_of_the_readme_is_what_the_command_prints(tmp_path, capsys):
    """All runs (about 45 s of CPU) through the command line, with its README check."""
    others = [name for name in df.RUNS if name != "manipulator"]
    assert df.main(["--out", str(tmp_path), "--only", *others, "--check", "--root", str(ROOT)]) == 0
    printed = capsys.readouterr().out
    assert "reversal.lift_off_opens" in printed and "trolley.friction_dissipation" in printed
    assert (tmp_path / "readme_numbers.csv").exists()
    for name in df.FIGURES["sliding-mass-frame"]:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_partial_run_keeps_the_other_runs_rows_of_the_table(tmp_path):
    """``--only``/``--quick`` compute a part of the numbers: the table keeps the rows of the
    others (in their place), replaces those computed, appends new ones; a whole run writes
    only what it computed."""
    path = tmp_path / "readme_numbers.csv"
    a = df.Quantity("run_a.x", 1.0, "m", ".2f", "S", "x {}")
    b = df.Quantity("run_b.y", 2.0, "N", ".2f", "S", "y {}")
    df.write_table([a, b], path)
    a2 = df.Quantity("run_a.x", 1.5, "m", ".2f", "S", "x {}")
    c = df.Quantity("run_c.z", 3.0, "J", ".2f", "S", "z {}")
    df.write_table([a2, c], path, keep_others=True)
    rows = path.read_text().splitlines()[1:]
    assert [r.split(",")[:2] for r in rows] == [
        ["run_a.x", "1.5"],
        ["run_b.y", "2.0"],
        ["run_c.z", "3.0"],
    ]
    df.write_table([c], path)
    assert [r.split(",")[0] for r in path.read_text().splitlines()[1:]] == ["run_c.z"]
