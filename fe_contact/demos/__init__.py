"""Demos runnable as ``fe-contact demo NAME``; each module exposes ``run(...)`` and ``main(argv)``.

Their command lines share :class:`DemoParser` and the argument types below, so that every invalid
value is rejected by argparse before any work, in one line naming the option, the value and what
is allowed, with exit code 2.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path


class DemoParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (exit code 2), without the usage.
    Its help shows the first paragraph of ``description`` (a demo module's docstring) and says
    where the rest is: the module's docstring (``module``, e.g. ``__name__``) and the demo's
    page in the documentation."""

    def __init__(self, module: str | None = None, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        description = kwargs.get("description")
        if description and module:
            first = description.strip().split("\n\n")[0]
            kwargs["description"] = (
                f"{first}\n\nOutputs, data and the choices made: python -m pydoc {module}, or "
                "the demo's page of the documentation (Demos)."
            )
        super().__init__(**kwargs)

    _claimed = None  # (folder, the first of its folders it made) claimed by parse_args

    def error(self, message):
        self.unclaim()
        self.exit(2, f"{self.prog}: error: {message}\n")

    def refuse(self, message) -> int:
        """A value refused after parsing: the claim of --out is undone, ``prog: message`` on
        stderr; returns the exit code 2."""
        self.unclaim()
        print(f"{self.prog}: {message}", file=sys.stderr)
        return 2

    def unclaim(self) -> None:
        """Undo the claim of --out by ``parse_args``: its mark, and the folders it made while
        they are empty."""
        if self._claimed is not None:
            from ..runner import WRITER_FILE

            out, created = self._claimed  # created: the first folder of out made by the claim
            (out / WRITER_FILE).unlink(missing_ok=True)
            if created is not None:
                for path in (out, *out.parents):
                    if any(path.iterdir()):
                        break
                    path.rmdir()
                    if path == created:
                        break
            self._claimed = None

    def parse_args(self, args=None, namespace=None):
        """Parse; a demo with ``--out`` also takes ``--overwrite`` and claims its folder
        (``runner.claim_folder``): a folder written by another run (``fe-contact run``, a
        sweep, another demo or this one before) is refused, one line and exit code 2, unless
        ``--overwrite``, which clears that run's files. A value that the demo refuses after
        parsing (``error``, ``fail``) undoes the claim of a new folder."""
        dests = {action.dest for action in self._actions}
        if "out" in dests and "overwrite" not in dests:
            self.add_argument(
                "--overwrite", action="store_true", help="clear another run's files in --out"
            )
        parsed = super().parse_args(args, namespace)
        out = getattr(parsed, "out", None)
        if out is not None:
            from ..runner import FolderInUse, claim_folder

            out = Path(out).absolute()
            missing = [p for p in (out, *out.parents) if not p.exists()]
            try:
                claim_folder(out, parsed.overwrite, "demo " + self.prog.split()[-1])
            except FolderInUse as err:
                self.error(f"argument --out: {err}")
            self._claimed = (out, missing[-1] if missing else None)
        return parsed

    def fail(self, option: str, value, allowed: str):
        """Reject ``value`` of ``option`` found after parsing (one line, exit 2)."""
        self.error(f"argument {option}: got {value!r}; allowed: {allowed}")


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"got {text!r}; allowed: a number") from None


def _real(low: float | None, low_open: bool, unit: str):
    """An argparse type: a finite number, > low (``low_open``) or >= low (None: any)."""
    bound = "" if low is None else f" {'>' if low_open else '>='} {low:g}"
    allowed = f"a finite number{bound}{' in ' + unit if unit else ''}"

    def parse(text: str) -> float:
        x = _number(text)
        inside = low is None or (x > low if low_open else x >= low)
        if not (math.isfinite(x) and inside):
            raise argparse.ArgumentTypeError(f"got {text!r}; allowed: {allowed}")
        return x

    return parse


def positive(unit: str = ""):
    """An argparse type: a finite number > 0 (``unit`` words the message)."""
    return _real(0.0, True, unit)


def nonnegative(unit: str = ""):
    """An argparse type: a finite number >= 0."""
    return _real(0.0, False, unit)


def finite(unit: str = ""):
    """An argparse type: a finite number."""
    return _real(None, False, unit)


def count(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"got {text!r}; allowed: an integer >= 1") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"got {text!r}; allowed: an integer >= 1")
    return n


def folder(text: str) -> Path:
    """An argparse type: an output folder (it may not exist yet; it may not be a file)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"got {text!r}; allowed: a folder, not a file")
    return path


__all__ = ["DemoParser", "count", "finite", "folder", "nonnegative", "positive"]


def overrides(data, items):
    """``data`` (a frozen dataclass of a demo's numbers) with ``NAME=VALUE`` overrides from
    ``--set``: a field whose value is an int takes an integer, any other a number. ValueError
    naming the option, the value and what is allowed."""
    import dataclasses

    names = tuple(f.name for f in dataclasses.fields(data))
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or name not in names:
            raise ValueError(f"--set: got {item!r}; allowed: NAME=VALUE with NAME in {names}")
        integer = isinstance(getattr(data, name), int) and not isinstance(getattr(data, name), bool)
        try:
            number = int(value) if integer else float(value)
        except ValueError:
            kind = "an integer" if integer else "a number"
            raise ValueError(f"--set {name}: got {value!r}; allowed: {kind}") from None
        data = dataclasses.replace(data, **{name: number})
    return data
