"""One meaning per name: no two modules of ``fe_contact`` define a public function, class or
compiled kernel of the same name, unless one re-exports the other's (the same object).

A module's public names are its ``__all__`` (else its names without a leading underscore); a
name counts where it is defined (``obj.__module__``), so a re-export is the same object and no
clash. Allowed by rule: ``main``, a module's command-line entry point (``python -m``, the
console scripts), and the entry points every demo module offers alike (``DEMO_INTERFACE``).
``KNOWN`` lists the clashes left today, each with what the names mean; a fix removes its line
(the second test fails on a stale line).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import defaultdict

import fe_contact

DEMO_INTERFACE = {"run", "run_case", "model_file", "plot_run", "settings"}
KNOWN = {
    # one quantity, one function per element (the element's module says which)
    "kinetic_energy": "beam, string and tree kinetic energies of their own coordinates",
    "point_load": "generalised force of a point force on a beam or on a string",
    "closest": "closest point on a beam or on a string, compiled",
}


def public_definitions() -> dict[str, set[str]]:
    """name -> the modules that define a public function, class or compiled kernel so named."""
    found = defaultdict(set)
    for info in pkgutil.walk_packages(fe_contact.__path__, "fe_contact."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name)
            kernel = hasattr(obj, "py_func")  # a numba dispatcher
            if not (inspect.isfunction(obj) or inspect.isclass(obj) or kernel):
                continue
            if getattr(obj, "__module__", None) == info.name:
                found[name].add(info.name)
    return found


def clashes() -> dict[str, list[str]]:
    out = {}
    for name, modules in public_definitions().items():
        if name == "main":
            continue
        if name in DEMO_INTERFACE:
            demos = {m for m in modules if m.startswith("fe_contact.demos.")}
            modules = (modules - demos) | ({"fe_contact.demos.*"} if demos else set())
        if len(modules) > 1:
            out[name] = sorted(modules)
    return out


def test_public_names_mean_one_thing():
    found = clashes()
    assert "static_equilibrium" not in found and "evaluate" not in found  # renamed: the proof
    new = {name: modules for name, modules in found.items() if name not in KNOWN}
    assert not new, f"one name, two meanings (rename one, or re-export it): {new}"


def test_the_known_clashes_are_still_there():
    stale = sorted(set(KNOWN) - set(clashes()))
    assert not stale, f"fixed: remove these from KNOWN: {stale}"


def test_a_clash_is_found():
    # the walk finds definitions at all: the library's own names are there, in one module each
    found = public_definitions()
    assert found["Scenario"] == {"fe_contact.scenario"}
    assert found["static_equilibrium"] == {"fe_contact.statics"}
    assert len(found) > 300
