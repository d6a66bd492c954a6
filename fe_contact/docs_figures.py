"""The figures and simulated numbers of the README and its in-depth pages, recomputed by one
command.

The README (``README.md``) and the pages it links to (``docs/details/*.md``, also part of the
documentation site) are "the pages" below; "the README" in a location means one of them.
``python -m fe_contact.docs_figures [--out DIR] [--only RUN ...] [--quick] [--list] [--check]``
runs their simulations through the demos' and papers' own functions (nothing here is physics),
writes their figures (PNG, and SVG where the demo writes both) to ``DIR`` (default ``docs``,
where the pages take them from), prints a table of every number the pages quote from these
runs (name, value as quoted, unit, location) and writes it to ``DIR/readme_numbers.csv``.

Each number is a :class:`Quantity`: its value, the format in which the pages quote it, and its
place (a section heading and the text around it, with ``{}`` where the number stands; headings
are unique across the pages). ``quoted_number`` finds that place, so a test can check that the pages
quote what the command computes: the quoted number equals the computed one rounded to the quoted format.
Numbers at round-off level (``roundoff=True``: residuals and balance errors of 1e-10 J and
below) are sums of rounding errors that differ between BLAS kernels; the README quotes them as
measured, and the check is that the computed one lies within a factor of 10 of it.

Numbers that follow a chaotic path (counts of stick intervals in a vibrating contact, which
change with the last bit of a BLAS sum) carry ``spread``: they agree when within that relative
distance of the quoted one, and the README says that they are chaotic.

The runs are in ``fe_contact.docs_runs``, the quantities and how the pages are searched in
``fe_contact.docs_numbers``. Runs in ``LONG_RUNS`` (the pin on the wheel, the cam lock, the
energy-consistent trolley, the dense contact) take minutes to tens of minutes; the command runs
them unless ``--quick``; the suite runs the others. Timings are not here: they depend on the
machine, and the README labels them as measured on our 2-core machine. Not covered yet: the
cam lock's sensitivity study (pin position, rigid support), the benchmarks' errors, and the
numbers in the prose of the sections on stick-slip, dissipation, statics and the property
tests, which the tests measure.
"""

from __future__ import annotations

import csv
import math
import sys
import tempfile
from pathlib import Path

from .docs_numbers import README, ROOT, Quantity, agrees, pages, pages_text, quoted_number
from .docs_runs import ALL_RUNS, FIGURES, LONG_RUNS, RUNS


def compute(out, only=None, quick=False) -> list[Quantity]:
    """Run ``only`` (names of ``ALL_RUNS``; None: all, or with ``quick`` those of ``RUNS``),
    write their figures to ``out`` and return their quantities."""
    if only is None:
        names = list(RUNS if quick else ALL_RUNS)
    else:
        names = list(only)
    unknown = [name for name in names if name not in ALL_RUNS]
    if unknown:
        raise ValueError(f"only: unknown run {unknown[0]!r}; allowed: {', '.join(ALL_RUNS)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    found: list[Quantity] = []
    with tempfile.TemporaryDirectory(prefix="fe_contact_docs_") as scratch:
        for name in names:
            found += ALL_RUNS[name](out, Path(scratch))
    return found


def format_table(quantities: list[Quantity]) -> str:
    """The quantities as a text table: name, value as quoted, unit, README location."""
    rows = [("name", "value", "unit", "README location")]
    rows += [(q.name, q.quoted, q.unit, q.location) for q in quantities]
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in rows
    )


def write_table(quantities: list[Quantity], path, keep_others: bool = False) -> Path:
    """``path``: a CSV of name, value (full precision), quoted, unit, roundoff, section, text.

    keep_others : the runs were a part of all (``--only``, ``--quick``): the rows of ``path``
        whose quantities were not computed now are kept, in their place; those computed now
        replace theirs, new ones follow.
    """
    path = Path(path)
    header = ["name", "value", "quoted", "unit", "roundoff", "section", "text"]
    rows = {
        q.name: [q.name, repr(q.value), q.quoted, q.unit, q.roundoff, q.section, q.text]
        for q in quantities
    }
    table = []
    if keep_others and path.is_file():
        with open(path, newline="") as fh:
            old = list(csv.reader(fh))
        if old and old[0] == header:
            table = [rows.pop(row[0], row) for row in old[1:] if row]
    table += list(rows.values())
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(table)
    return path


def check_readme(quantities: list[Quantity], readme_text: str) -> list[str]:
    """The disagreements between the README and the computed quantities, one line each."""
    problems = []
    for q in quantities:
        try:
            quoted = quoted_number(q, readme_text)
        except ValueError as err:
            problems.append(str(err))
            continue
        if not (math.isfinite(q.value) and agrees(q, quoted)):
            problems.append(f"{q.name}: README quotes {quoted}, computed {q.quoted} {q.unit}")
    return problems


def main(argv=None) -> int:
    from .demos import DemoParser, folder

    parser = DemoParser(prog="python -m fe_contact.docs_figures", description=__doc__)
    parser.add_argument(
        "--out", dest="folder", type=folder, default=Path("docs"),
        help="folder for the figures and readme_numbers.csv (default: docs)",
    )  # fmt: skip
    parser.add_argument(
        "--only", nargs="+", default=None, metavar="RUN",
        help=f"run only these (allowed: {', '.join(ALL_RUNS)})",
    )  # fmt: skip
    parser.add_argument(
        "--quick", action="store_true",
        help=f"leave out the long runs ({', '.join(LONG_RUNS)}: tens of minutes)",
    )  # fmt: skip
    parser.add_argument("--list", action="store_true", help="list the runs and exit")
    parser.add_argument(
        "--check", action="store_true",
        help="compare with the pages; exit 1 when a number disagrees",
    )  # fmt: skip
    parser.add_argument(
        "--root", type=Path, default=None,
        help="the source checkout whose README.md and docs/details/*.md --check reads "
        "(default: this package's checkout, else .)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    root = args.root or (ROOT if README.exists() else Path("."))
    if args.check and not (root / "README.md").is_file():
        parser.fail("--root", str(root), "a source checkout with a README.md (needed by --check)")
    if args.list:
        for name, fn in ALL_RUNS.items():
            print(f"{name}: {' '.join(fn.__doc__.split(chr(10) * 2)[0].split())}")
        return 0
    for name in args.only or ():
        if name not in ALL_RUNS:
            parser.fail("--only", name, ", ".join(ALL_RUNS))
    if args.quick and args.only:
        parser.fail("--quick", "with --only", "one of --quick and --only")
    quantities = compute(args.folder, args.only, args.quick)
    print(format_table(quantities))
    partial = bool(args.only or args.quick)  # the other runs' rows stay
    print(f"wrote {write_table(quantities, args.folder / 'readme_numbers.csv', partial)}")
    if args.check:
        problems = check_readme(quantities, pages_text(root))
        for line in problems:
            print(f"the pages disagree: {line}", file=sys.stderr)
        return 1 if problems else 0
    return 0


__all__ = [
    "ALL_RUNS",
    "FIGURES",
    "LONG_RUNS",
    "RUNS",
    "Quantity",
    "check_readme",
    "compute",
    "format_table",
    "quoted_number",
    "main",
    "pages",
    "pages_text",
]


if __name__ == "__main__":
    sys.exit(main())
