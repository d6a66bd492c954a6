"""Compiled (numba) kernels of the hot path: tree kinematics and dynamics, beam contact
kinematics and the Newton iteration of a generalised-alpha step (``steppers.compiled``).

numba's on-disk cache (``cache=True``) checks only the source file of each cached function, not
the files of the functions it calls: after an edit of ``beam.py`` alone, ``step.py``'s cached
Newton kernel would still hold the old beam code. So at import a cache file is removed when it
is older than its module's source or than any kernel module that module imports, directly or
through others (``module_dependencies``, read from the sources' ``from .x import`` lines),
wherever numba keeps them (``cache_folders``: ``NUMBA_CACHE_DIR``, the package's
``__pycache__``, the user-wide cache); those kernels compile afresh, the others load (an
installed copy is written at once, so this happens only in a working tree that changes: an
edit of ``curves.py`` recompiles the curves' kernels, not the step's).
"""

from __future__ import annotations

import ast
import logging
from pathlib import Path

# the kernels a compiled run calls first; without their cache files numba compiles the package
_ENTRY_KERNELS = ("loop.steps",)
_announced = False


def cache_folders() -> list[Path]:
    """The folders where numba may keep this package's cache files: ``NUMBA_CACHE_DIR``'s
    folder for this package when it is set, the package's own ``__pycache__``, and the
    user-wide cache (where numba writes when the package's folder is read-only), in numba's
    order of preference; numba names the outside folders after the package folder's path
    (``_CacheLocator.get_suitable_cache_subpath``). Only the ``__pycache__`` when numba's
    layout cannot be read (another numba version)."""
    here = Path(__file__).resolve().parent
    folders = [here / "__pycache__"]
    try:
        from numba.core import caching, config
        from numba.misc.appdirs import AppDirs

        sub = caching._CacheLocator.get_suitable_cache_subpath(str(here / "loop.py"))
        if config.CACHE_DIR:
            folders.insert(0, Path(config.CACHE_DIR) / sub)
        folders.append(Path(AppDirs(appname="numba", appauthor=False).user_cache_dir) / sub)
    except Exception:  # numba's internals moved: the package's own folder only
        pass
    return folders


def module_dependencies(folder: Path) -> dict[str, frozenset[str]]:
    """Each module of the package in ``folder`` (by file stem) -> itself and the package's
    modules it imports (``from .x import ...``, ``from . import x``), directly or through
    others."""
    direct = {}
    for path in Path(folder).glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    names.add(node.module.split(".")[0])
                else:
                    names.update(alias.name for alias in node.names)
        direct[path.stem] = names
    closure = {}
    for module in direct:
        seen, todo = {module}, [module]
        while todo:
            for name in direct[todo.pop()]:
                if name in direct and name not in seen:
                    seen.add(name)
                    todo.append(name)
        closure[module] = frozenset(seen)
    return closure


def stale_cache_files(cache: Path, folder: Path) -> list[Path]:
    """The numba cache files (``<module>.<function>-<line>.py<version>.nb[ic]``) in ``cache``
    older than their module's source in ``folder`` or than any module it depends on
    (``module_dependencies``); a file whose module is unknown is stale when older than the
    newest source. The sources' imports are read only when a cache file is older than the
    newest source (never in an installed copy, whose cache is written after its sources)."""
    times = {p.stem: p.stat().st_mtime for p in Path(folder).glob("*.py")}
    everything = max(times.values(), default=0.0)
    older = []  # (path, mtime) of the files older than the newest source
    for path in Path(cache).glob("*.nb[ic]"):
        try:
            mtime = path.stat().st_mtime
        except OSError:  # another process removed it
            continue
        if mtime < everything:
            older.append((path, mtime))
    if not older:
        return []
    newest = {m: max(times[d] for d in deps) for m, deps in module_dependencies(folder).items()}
    return [
        path for path, mtime in older if mtime < newest.get(path.name.split(".", 1)[0], everything)
    ]


def _drop_stale_caches() -> None:
    here = Path(__file__).resolve().parent
    for cache in cache_folders():
        if not cache.is_dir():
            continue
        for path in stale_cache_files(cache, here):
            try:
                path.unlink()
            except OSError:  # another process removed or rewrote it
                pass


_drop_stale_caches()


def cache_folder() -> Path:
    """The folder where numba keeps this package's cache files in this process:
    ``NUMBA_CACHE_DIR``'s when set, else the package's ``__pycache__`` when the package's
    folder is writable, else the user-wide one (``cache_folders``)."""
    import os

    from numba.core import config

    folders = cache_folders()
    here = Path(__file__).resolve().parent
    if config.CACHE_DIR or len(folders) == 1:
        return folders[0]
    return folders[0] if os.access(here, os.W_OK) else folders[-1]


def cached() -> bool:
    """True when numba's on-disk cache holds the entry kernels (a run loads, not compiles), in
    the folder numba uses (``cache_folder``)."""
    from numba.core import config

    setting = config.CACHE_DIR  # the folder follows it (``cache_folder``)
    if setting in _HOLDING:  # found holding them before in this process: not looked up again
        return True
    folder = cache_folder()
    found = all(any(folder.glob(f"{name}-*.nbi")) for name in _ENTRY_KERNELS)
    if found:
        _HOLDING.add(setting)
    return found


# the settings of NUMBA_CACHE_DIR whose folder was found holding the entry kernels in this
# process (``cached``): kernels once in the cache are loaded from it, not compiled
_HOLDING: set = set()


COMPILING = (
    "compiling the numba kernels (once after installation, 1-2 minutes; later runs load them "
    "from the cache)"
)


def announce_compilation() -> None:
    """Say once per process that the kernels compile now when no cache holds them: the first
    compiled run after an installation or an edit spends 1-2 minutes compiling, silently
    otherwise (``announce``)."""
    if not cached():
        announce(COMPILING)


def announce(message: str) -> None:
    """Say ``message`` about the kernels' compilation once per process: at INFO on the
    ``fe_contact.kernels`` logger (the ``fe-contact`` command shows it); on stderr when no
    logging handler would receive it (a script that configures no logging)."""
    global _announced
    if _announced:
        return
    _announced = True
    logger = logging.getLogger(__name__)
    if logger.hasHandlers():
        logger.info(message)
    else:
        import sys

        print(f"fe_contact: {message}", file=sys.stderr)
