"""The numbers the pages quote from simulations: :class:`Quantity` (a computed value, the format
in which a page quotes it and its place) and how a place is found in the pages and compared.

The pages are the README (``README.md``) and the in-depth pages it links to
(``docs/details/*.md``); ``fe_contact.docs_figures`` computes the quantities
(``fe_contact.docs_runs``) and checks the pages with these functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the source checkout (when not installed)
README = ROOT / "README.md"
DETAILS = Path("docs") / "details"  # the in-depth pages, relative to a checkout
NUMBER = r"(-?[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)"
ROUNDOFF_FACTOR = 10.0  # how far a round-off level number may differ from the quoted one


@dataclass(frozen=True)
class Quantity:
    """One number the README quotes from a simulation.

    name : a dotted identifier (``manipulator.mu_0.2.mean_torque``). value : the computed value
    in ``unit`` (SI). fmt : the format spec in which the README quotes it. section : the README
    heading (without the hashes) under which it stands. text : the README text around it, with
    ``{}`` where the number stands and ``{*}`` for other numbers in between; a text that starts with ``|`` is a table row, found at
    the start of a line.
    roundoff : a number at round-off level (see the module docstring).
    spread : for a number that follows a chaotic path, the relative distance within which it
    agrees with the quoted one (0: it agrees when equal after rounding).
    """

    name: str
    value: float
    unit: str
    fmt: str
    section: str
    text: str
    roundoff: bool = False
    spread: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "value", float(self.value))

    @property
    def quoted(self) -> str:
        """The value as the README quotes it (a count, format ``d``, as an integer)."""
        if self.fmt == "d":
            return str(round(self.value))
        return format(self.value, self.fmt)

    @property
    def location(self) -> str:
        return f"{self.section}: {self.text}"


def pages(root=ROOT) -> list[Path]:
    """The README and the in-depth pages of the checkout at ``root``."""
    root = Path(root)
    return [root / "README.md", *sorted((root / DETAILS).glob("*.md"))]


def pages_text(root=ROOT) -> str:
    """The pages of the checkout at ``root``, joined (``quoted_number`` looks for sections in it);
    FileNotFoundError naming the README when ``root`` has none."""
    found = pages(root)
    if not found[0].is_file():
        raise FileNotFoundError(f"no README.md in {root}: a source checkout is needed")
    return "\n\n".join(path.read_text() for path in found)


def readme_sections(text: str) -> dict[str, str]:
    """The README's sections by heading (without the hashes): the text from the heading to the
    next heading of any level."""
    parts = re.split(r"^#{1,6} (.+)$", text, flags=re.M)
    return {parts[k].strip(): parts[k + 1] for k in range(1, len(parts) - 1, 2)}


def quoted_number(quantity: Quantity, readme_text: str) -> str:
    """The number the README quotes for ``quantity`` (as written). ValueError when its section
    is missing or its text does not occur there exactly once."""
    sections = readme_sections(readme_text)
    if quantity.section not in sections:
        raise ValueError(f"{quantity.name}: the pages have no section {quantity.section!r}")
    if quantity.text.count("{}") != 1:
        raise ValueError(f"{quantity.name}: text must hold one '{{}}', got {quantity.text!r}")
    pattern = r"\s+".join(re.escape(word) for word in quantity.text.split())
    pattern = pattern.replace(re.escape("{*}"), r"-?[0-9.e+-]+").replace(re.escape("{}"), NUMBER)
    if quantity.text.startswith("|"):  # a table row: from the start of a line
        pattern = "^" + pattern
    found = re.findall(pattern, sections[quantity.section], flags=re.M)
    if len(found) != 1:
        raise ValueError(
            f"{quantity.name}: {quantity.text!r} occurs {len(found)} times in the section "
            f"{quantity.section!r}; allowed: exactly once"
        )
    return found[0]


def agrees(quantity: Quantity, quoted: str) -> bool:
    """True when the README's ``quoted`` number is the computed value: equal to it rounded to
    the quoted format, or (round-off level) within ``ROUNDOFF_FACTOR`` of it, or (chaotic)
    within its ``spread``."""
    if quantity.roundoff:
        ratio = abs(quantity.value) / float(quoted)
        return 1.0 / ROUNDOFF_FACTOR <= ratio <= ROUNDOFF_FACTOR
    if quantity.spread > 0.0:
        return abs(quantity.value - float(quoted)) <= quantity.spread * abs(float(quoted))
    return float(quoted) == float(quantity.quoted)


# -- the runs: each calls a demo's or a paper's functions, writes its figures and returns the
# -- numbers the README quotes from it -----------------------------------------------------------


__all__ = ["DETAILS", "README", "ROOT", "Quantity", "agrees", "quoted_number", "pages", "pages_text",
           "readme_sections"]  # fmt: skip
