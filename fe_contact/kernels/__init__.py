"""Compiled (numba) kernels of the hot path: tree kinematics and dynamics, beam contact
kinematics and the Newton iteration of a generalised-alpha step (``steppers.compiled``).

numba's on-disk cache (``cache=True``) checks only the source file of each cached function, not
the files of the functions it calls: after an edit of ``beam.py`` alone, ``step.py``'s cached
Newton kernel would still hold the old beam code. So every cache file of this package older
than its newest source is removed at import, and the kernels are compiled afresh (an installed
copy is written at once, so this happens only in a working tree that changes).
"""

from __future__ import annotations

import logging
from pathlib import Path

# the kernels a compiled run calls first; without their cache files numba compiles the package
_ENTRY_KERNELS = ("loop.steps",)
_announced = False


def _drop_stale_caches() -> None:
    here = Path(__file__).resolve().parent
    cache = here / "__pycache__"
    if not cache.is_dir():
        return
    newest = max(p.stat().st_mtime for p in here.glob("*.py"))
    for path in cache.glob("*.nb[ic]"):
        try:
            if path.stat().st_mtime < newest:
                path.unlink()
        except OSError:  # another process removed or rewrote it
            pass


_drop_stale_caches()


def cached() -> bool:
    """True when numba's on-disk cache holds the entry kernels (a run loads, not compiles)."""
    cache = Path(__file__).resolve().parent / "__pycache__"
    return all(any(cache.glob(f"{name}-*.nbi")) for name in _ENTRY_KERNELS)


def announce_compilation() -> None:
    """Say once per process, at INFO on the ``fe_contact.kernels`` logger (shown by the
    ``fe-contact`` command), that the kernels compile now when no cache holds them: the first
    compiled run after an installation or an edit spends about 1-2 minutes compiling, silently
    otherwise."""
    global _announced
    if _announced:
        return
    _announced = True
    if not cached():
        logging.getLogger(__name__).info(
            "compiling the numba kernels (once after installation, about 1-2 minutes; "
            "later runs load them from the cache)"
        )
