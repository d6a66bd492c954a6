"""The ``measured`` fixture: a test's comparison with an independent reference, asserted and
recorded as the same number.

``measured(quantity, error, tolerance, unit=..., reference=...)`` asserts
``error <= tolerance`` (a NaN error fails) and records (test node id, quantity, error,
tolerance, unit, reference). ``measured.each(quantity, errors, tolerances)`` asserts it element
by element and records the worst element (the largest error / tolerance).
``measured.close(quantity, actual, desired, rtol=..., atol=...)`` is ``each`` with numpy's
``assert_allclose`` criterion ``|actual - desired| <= atol + rtol |desired|``.

When the environment variable ``FE_CONTACT_MEASURED`` names a folder, each pytest process
(each xdist worker too) writes its records there at the end of its session as JSON lines,
``<worker>-<pid>.jsonl``, the first line the commit and date at the session's start;
``python docs/docgen.py --merge-measured FOLDER`` merges them into
``docs/validation_measured.json``, which the validation page of the documentation reads.
Without the variable nothing is written.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ENVIRONMENT = "FE_CONTACT_MEASURED"
# the suite's processes compile the kernels they need themselves: a command a test runs does
# not leave a background compilation behind (``steppers.background_compile``; its own tests set
# the mode they test)
os.environ.setdefault("FE_CONTACT_COMPILE", "foreground")
ROOT = Path(__file__).resolve().parents[1]
RECORDS: list[dict] = []
RUN: dict = {}  # the run's commit and date, taken when the session starts


class Measured:
    """Assert and record one test's measured errors (see the module docstring)."""

    def __init__(self, nodeid: str, records: list | None = None):
        self.nodeid = nodeid
        self.records = RECORDS if records is None else records

    def __call__(
        self,
        quantity: str,
        error: float,
        tolerance: float,
        *,
        unit: str = "",
        reference: str = "",
    ) -> float:
        """Assert ``error <= tolerance`` and record both; returns the error."""
        error, tolerance = float(error), float(tolerance)
        if not quantity:
            raise ValueError("measured: quantity must name what is compared, got ''")
        if not tolerance >= 0.0:
            raise ValueError(f"measured: tolerance of {quantity!r} must be >= 0, got {tolerance}")
        if not error >= 0.0 and not math.isnan(error):
            raise ValueError(f"measured: error of {quantity!r} must be >= 0, got {error}")
        self.records.append(
            {
                "test": self.nodeid,
                "quantity": quantity,
                "error": error,
                "tolerance": tolerance,
                "unit": unit,
                "reference": reference,
            }
        )
        assert error <= tolerance, (
            f"{quantity}: error {error:.6g} {unit} above the tolerance {tolerance:.6g} {unit}"
            + (f" (reference: {reference})" if reference else "")
        )
        return error

    def each(
        self, quantity: str, errors, tolerances, *, unit: str = "", reference: str = ""
    ) -> float:
        """``errors <= tolerances`` element by element (broadcast), recorded at the worst
        element (largest errors / tolerances); returns that element's error."""
        errors, tolerances = np.broadcast_arrays(
            np.asarray(errors, dtype=float), np.asarray(tolerances, dtype=float)
        )
        if errors.size == 0:
            raise ValueError(f"measured: {quantity!r} compares no values")
        errors, tolerances = errors.ravel(), tolerances.ravel()
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(
                tolerances > 0.0, errors / tolerances, np.where(errors > 0.0, np.inf, 0.0)
            )
        ratio = np.where(np.isnan(errors), np.inf, ratio)
        worst = int(np.argmax(ratio))
        return self(quantity, errors[worst], tolerances[worst], unit=unit, reference=reference)

    def close(
        self,
        quantity: str,
        actual,
        desired,
        *,
        rtol: float = 0.0,
        atol: float = 0.0,
        unit: str = "",
        reference: str = "",
    ) -> float:
        """``np.testing.assert_allclose(actual, desired, rtol, atol)``'s criterion, recorded at
        its worst element; returns that element's error."""
        actual, desired = np.broadcast_arrays(
            np.asarray(actual, dtype=float), np.asarray(desired, dtype=float)
        )
        bound = atol + rtol * np.abs(desired)
        return self.each(quantity, np.abs(actual - desired), bound, unit=unit, reference=reference)


@pytest.fixture
def measured(request) -> Measured:
    """Assert a comparison with a reference and record its error (module docstring)."""
    return Measured(request.node.nodeid)


def run_description() -> dict:
    """The commit the tests run at, whether the library or the tests differ from it, the date."""

    def git(*args):
        try:
            done = subprocess.run(
                ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    status = git("status", "--porcelain", "--", "fe_contact", "tests")
    return {
        "commit": git("rev-parse", "HEAD") or "unknown",
        "modified": bool(status) if status is not None else None,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def pytest_sessionstart(session):
    if os.environ.get(ENVIRONMENT):  # a commit made while the tests run is not theirs
        RUN.update(run_description())


def pytest_sessionfinish(session, exitstatus):
    folder = os.environ.get(ENVIRONMENT)
    if not folder or not RECORDS:
        return
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    lines = [json.dumps({"run": RUN or run_description()})]
    lines += [json.dumps(r) for r in RECORDS]
    (folder / f"{worker}-{os.getpid()}.jsonl").write_text("\n".join(lines) + "\n")
