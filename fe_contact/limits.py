"""Bounds checked before any work: the memory a model needs (estimated from its unknowns), the
number of steps of a run (t_end - t0) / h, the number of cases of a sweep, and the magnitudes
of the parameters that enter the matrices.

A refusal is a ``LimitExceeded`` (a ValueError) raised before anything is allocated, whose
message names the parameter, gives the estimate, the limit, and how to raise it: a keyword of
the call (``assemble(model, max_memory=...)``, ``simulate(..., max_steps=...)``), the command
line's ``--max-cases``, or an environment variable (``FE_CONTACT_MAX_MEMORY`` in bytes,
``FE_CONTACT_MAX_STEPS``, ``FE_CONTACT_MAX_CASES``) that reaches runs started from model files.

Defaults: memory, half of the machine's physical memory; steps, 1e8 (about 1.5 h at the compiled
step's 50 us, 28 h at the Python step's 1 ms); cases, 1000.

The memory estimate is ``BYTES_PER_UNKNOWN * n`` for n unknowns (tree coordinates, structure
DOFs, one per grid candidate): assembling, starting and stepping a model are linear in its size
(banded and sparse factorisations, no dense (n, n) matrix). Measured with
``python benchmarks/memory.py --elements 1000 4000 16000 64000``, the peak RSS of ``fe-contact
run`` on the slider example grows by 4.2-4.3 kB per unknown from 2 000 to 128 000 unknowns (256,
280, 381 and 781 MB, of which about 250 MB is Python, numpy, scipy and the numba kernels);
assembling alone takes 1.6 kB per DOF for a beam of 20 000 elements, 2.0 kB for a string of
10 000 (tracemalloc). Compiling the kernels, once after installation, peaks at about 720 MB.

Magnitudes (``validation.real`` with a unit): a dimensional parameter is at most
MAGNITUDE_HIGH = 1e30 in SI units, and a scale (a value > 0: a length, a modulus, a density, a
section, a radius) at least MAGNITUDE_LOW = 1e-30; a value whose 0 is allowed (a mass, a
stiffness, a damping) may be as small as it likes. Within the band, the products
that make the element matrices (E w h^3 / 12 / le^3, rho w h le^3, ...) stay normal floats
with a wide margin; outside it, a length or modulus of 1e300 overflows them to inf, a width of
1e-200 underflows the second moment to 1e-600 = 0 and the mass matrix becomes singular. A
structure's elements must also not be shorter than 1 / MAX_ELEMENT_RATIO = 1e-6 of its length.
The Hermite element (``elements.hermite``, written in the element's local coordinate) is exact to
rounding on any mesh: its stiffness and mass entries are within 3 eps of the closed forms up to
1e7 elements (measured on the last element of a 0.4 m line). What limits fine meshes is the
field stored as absolute nodal values: the curvature of a uniform-curvature field, formed from
values of size kappa L^2 with second differences over le, is off by up to ~eps (L / le)^2
(measured: the bending energy 4e-10 at 1e5 elements, 2.5e-8 at 1e6), and a static bending solve
with the assembled K loses ~eps (L / le)^4 (cond K; a cantilever's tip deflection 1.4e-5 at 1000
elements, 2e-2 at 10 000, lost at 100 000, whatever the element). (scikit-fem's global
``ElementLineHermite``, used before, had its stiffness entries off by 6e-4 at 1e4 elements and a
singular interpolation matrix at 1e5; the limit was 3000.)
"""

from __future__ import annotations

import math
import numbers
import os

MEMORY_ENV = "FE_CONTACT_MAX_MEMORY"
STEPS_ENV = "FE_CONTACT_MAX_STEPS"
CASES_ENV = "FE_CONTACT_MAX_CASES"
DEFAULT_MAX_STEPS = 100_000_000
DEFAULT_MAX_CASES = 1000
BYTES_PER_UNKNOWN = 5000.0  # a run, per unknown (measured 4.2-4.3 kB: the module docstring)
MAGNITUDE_LOW, MAGNITUDE_HIGH = 1e-30, 1e30
MAX_ELEMENT_RATIO = 1e6  # structure length / shortest element


class LimitExceeded(ValueError):
    """A run, a model or a sweep beyond a limit; the message says how to raise it."""


def _from_env(env: str, default: float) -> float:
    text = os.environ.get(env)
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{env}: got {text!r}; allowed: a number > 0")
    return value


def physical_memory() -> float:
    """The machine's physical memory in bytes (8 GB where the system does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8e9


def max_memory(value: float | None = None) -> float:
    """The memory limit in bytes: ``value``, else $FE_CONTACT_MAX_MEMORY, else half of the
    physical memory."""
    if value is not None:
        return _positive("max_memory", value)
    return _from_env(MEMORY_ENV, 0.5 * physical_memory())


def max_steps(value: float | None = None) -> float:
    """The step-count limit: ``value``, else $FE_CONTACT_MAX_STEPS, else 1e8."""
    if value is not None:
        return _positive("max_steps", value)
    return _from_env(STEPS_ENV, DEFAULT_MAX_STEPS)


def max_cases(value: int | None = None) -> int:
    """The case-count limit of a sweep: ``value``, else $FE_CONTACT_MAX_CASES, else 1000."""
    if value is not None:
        return int(_positive("max_cases", value))
    return int(_from_env(CASES_ENV, DEFAULT_MAX_CASES))


def _positive(name: str, value) -> float:
    """``value`` as a finite float > 0, refused in the message form of ``validation`` (which
    imports this module for the magnitude band, so this module imports nothing of the
    library)."""
    allowed = "a finite number > 0"
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name}: got {value!r}; allowed: {allowed}")
    x = float(value)
    if not (math.isfinite(x) and x > 0.0):
        raise ValueError(f"{name}: got {value!r}; allowed: {allowed}")
    return x


def memory_estimate(n_unknowns: float) -> float:
    """Bytes a model of ``n_unknowns`` unknowns needs (see the module docstring)."""
    return BYTES_PER_UNKNOWN * float(n_unknowns)


def structure_unknowns(spec) -> tuple[float, str]:
    """(DOFs, the parameter that sets them) of a structure spec, from its numbers alone: a beam
    has 2 per node (deflection, slope), a string 4 (position and slope vectors)."""
    if hasattr(spec, "node_x") and spec.node_x is not None:
        return 2.0 * len(spec.node_x), "node_x"
    per_node = 2.0 if hasattr(spec, "youngs_modulus") else 4.0
    return per_node * (float(spec.n_elements) + 1.0), "n_elements"


def check_memory(model, limit: float | None = None) -> float:
    """Refuse ``model`` when its memory estimate exceeds the limit (``max_memory``), naming the
    parameter that sets most unknowns; returns the estimate in bytes. Nothing is allocated."""
    parts = []
    for name, spec in model.structures.items():
        n, key = structure_unknowns(spec)
        parts.append((n, f"{type(spec).__name__}.{key} of structure {name!r}", getattr(spec, key)))
    for c in model.contacts:
        if getattr(c, "n_candidates", 0):
            parts.append(
                (float(c.n_candidates), f"contact {c.name!r}.n_candidates", c.n_candidates)
            )
    n_tree = float(model.n_tree)
    parts.append((n_tree, "tree (bodies)", int(n_tree)))
    total = sum(n for n, _, _ in parts)
    need, allowed = memory_estimate(total), max_memory(limit)
    if need > allowed:
        n, what, value = max(parts, key=lambda p: p[0])
        raise LimitExceeded(
            f"{what}: got {_short(value)}, which makes {total:.4g} unknowns and an estimated "
            f"{need:.3g} bytes of memory ({BYTES_PER_UNKNOWN:g} per unknown), above the limit of "
            f"{allowed:.3g} bytes; allowed: fewer unknowns, or raise the limit with "
            f"assemble(model, max_memory=BYTES) or the environment variable {MEMORY_ENV}=BYTES"
        )
    return need


def step_count(t0: float, t_end: float, h: float) -> float:
    """(t_end - t0) / h, as a float (it may be far beyond any integer a run could take)."""
    return (float(t_end) - float(t0)) / float(h)


def check_steps(t0, t_end, h, limit: float | None = None, where: str = "simulate") -> float:
    """Refuse a run of more than ``max_steps`` steps, and a step too small to advance t in
    floating point; returns the step count. ``where`` names the parameters ("simulate":
    simulate.h and simulate.t_span; "simulation": a model file's [simulation] h, t_end)."""
    n = step_count(t0, t_end, h)
    allowed = max_steps(limit)
    how = (
        f"simulate(..., max_steps=N) or the environment variable {STEPS_ENV}=N"
        if where == "simulate"
        else f"the environment variable {STEPS_ENV}=N"
    )
    h_name, span = (
        ("simulate.h", f"t_span = ({t0:g}, {t_end:g}) s")
        if where == "simulate"
        else ("simulation.h", f"t_start = {t0:g} s to t_end = {t_end:g} s")
    )
    if not n <= allowed:
        raise LimitExceeded(
            f"{h_name}: got {h!r}, which makes {n:.4g} steps over {span}, above the limit of "
            f"{allowed:.4g} steps; allowed: a larger h or a shorter run, or raise the limit "
            f"with {how}"
        )
    ulp = math.ulp(max(abs(float(t0)), abs(float(t_end))))
    if h <= 4.0 * ulp:
        raise LimitExceeded(
            f"{h_name}: got {h!r}; allowed: a step > 4 ulp(t) = {4.0 * ulp:.3g} s ({span}): a "
            "smaller step does not advance the time in floating point"
        )
    return n


def check_cases(n_cases: int, limit: int | None = None, name: str = "--vary") -> int:
    """Refuse a sweep of more than ``max_cases`` cases (before any case is built); ``name``
    names what set the count."""
    allowed = max_cases(limit)
    if n_cases > allowed:
        raise LimitExceeded(
            f"{name}: {n_cases} cases (the product of the varied values' counts), above the "
            f"limit of {allowed} cases; allowed: fewer values, or raise the limit with "
            f"--max-cases N (plan: max_cases=N) or the environment variable "
            f"{CASES_ENV}=N"
        )
    return n_cases


def magnitude(name: str, value: float, unit: str, zero: bool = False) -> float:
    """Refuse a dimensional parameter outside [MAGNITUDE_LOW, MAGNITUDE_HIGH] (0 too when
    ``zero``), where the matrices it enters overflow or become singular in floating point."""
    x = abs(float(value))
    if (zero and x == 0.0) or MAGNITUDE_LOW <= x <= MAGNITUDE_HIGH:
        return value
    zero_text = "0 or " if zero else ""
    raise LimitExceeded(
        f"{name}: got {value!r}; allowed: {zero_text}a magnitude in [{MAGNITUDE_LOW:g}, "
        f"{MAGNITUDE_HIGH:g}] {unit} (beyond it the matrices it enters overflow, underflow or "
        "are singular in floating point)"
    )


def element_ratio(name: str, length: float, shortest: float) -> None:
    """Refuse a structure whose shortest element is below length / MAX_ELEMENT_RATIO (the
    curvature of its nodal fields is lost to round-off; see the module docstring)."""
    ratio = float(length) / float(shortest)
    if ratio > MAX_ELEMENT_RATIO:
        raise LimitExceeded(
            f"{name}: got a shortest element of {shortest:.3g} m on a length of {length:.3g} m "
            f"(ratio {ratio:.4g}); allowed: a ratio <= {MAX_ELEMENT_RATIO:g}: beyond it a field "
            "stored as absolute nodal values keeps its curvature only to ~eps (L / le)^2 (2.5e-8 "
            "at 1e6 elements); fewer elements"
        )


def _short(value) -> str:
    if isinstance(value, tuple | list):
        return f"{len(value)} node coordinates"
    return repr(value)


__all__ = [
    "CASES_ENV",
    "DEFAULT_MAX_CASES",
    "DEFAULT_MAX_STEPS",
    "LimitExceeded",
    "MAGNITUDE_HIGH",
    "MAGNITUDE_LOW",
    "MAX_ELEMENT_RATIO",
    "MEMORY_ENV",
    "STEPS_ENV",
    "check_cases",
    "check_memory",
    "check_steps",
    "element_ratio",
    "magnitude",
    "max_cases",
    "max_memory",
    "max_steps",
    "memory_estimate",
    "physical_memory",
    "step_count",
    "structure_unknowns",
]
