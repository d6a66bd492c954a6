"""Is an initial state consistent with the model's constraints? Checked once by ``simulate``
before the first step of every stepper.

Rows checked at (q0, t0), each under its name in the model:

* every ``Sliding`` contact (bilateral): its gap, m (a contact without a contact point on its
  target is violated by an infinite amount);
* every drive: q_j - q_j(t0), rad or m;
* every loop closure: the distance of its two points, m;
* every string support: the supports are eliminated from the state (the fixed DOFs keep their
  prescribed values), so a state contradicts a support when the element next to it cannot
  reach it along its own slopes: the mismatch ``|r_b - r_a - l (r'_a + r'_b) / 2|`` of that
  element (l its reference length) is, for a smooth curve, the trapezoidal rule's error
  ``l^3 |r'''| / 12``, a small fraction of l; a support prescribed away from the reference
  while the string's free coordinates are still its reference gives the support's whole
  displacement. It is refused above ``support_fraction`` = 1/4 of l.

A stepper would otherwise pull the state onto the constraints in its first step (a drive or a
sliding contact: by moving the dependent coordinates) or start with an element stretched across
the gap to a moved support (Newton then fails after the fact: "try a smaller h").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .coupling.constraints import evaluate_state
from .coupling.kinematics import ContactLeftStructure
from .structures import StringStructure
from .system import System


@dataclass(frozen=True)
class Violation:
    """One constraint of the model at a state: its name, the residual and its unit, and the
    tolerance it is held to (same unit)."""

    name: str
    residual: float
    unit: str
    tolerance: float


def constraint_violations(
    system: System, q, t: float, tol: float = 1e-6, support_fraction: float = 0.25
) -> list[Violation]:
    """Every constraint row of ``system`` at (q, t) whose residual exceeds its tolerance: tol
    (m or rad) for contacts, drives and loops, support_fraction times the element length for
    a string support (see the module docstring)."""
    model = system.model
    lay = system.layout
    q = np.asarray(q, dtype=float)
    out = []
    names = model.constraint_names()
    units = ["m"] * sum(c.bilateral for c in model.contacts)
    tree = model.tree
    units += ["rad" if tree.joints[d.joint].kind == "revolute" else "m" for d in model.drives]
    units += ["m", "m"] * len(model.loops)
    if names:
        try:
            ev = evaluate_state(system, q, np.zeros(lay.n), t, constraints_only=True)
            phi = ev.phi
        except ContactLeftStructure as err:
            pair = model.contacts[err.pair] if err.pair is not None else None
            name = pair.name if pair is not None else "a sliding contact"
            return [Violation(f"contact {name!r} (no contact point: {err})", np.inf, "m", tol)]
        n_contacts = len(units) - len(model.drives) - 2 * len(model.loops)
        kinds = ["contact"] * n_contacts + ["drive"] * len(model.drives)
        kinds += ["loop"] * (2 * len(model.loops))
        for kind, name, unit, value in zip(kinds, names, units, phi, strict=True):
            if abs(value) > tol:
                out.append(Violation(f"{kind} {name!r}", float(abs(value)), unit, tol))
    for name, s in system.structures.items():
        if isinstance(s, StringStructure):
            out += _support_mismatch(name, s, q[lay.structure(name)], support_fraction)
    return out


def _support_mismatch(name: str, structure: StringStructure, q, fraction: float):
    string = structure.string
    full = structure.full(q)
    pos, slope = string.position_dofs, string.slope_dofs
    out = []
    for i, support in enumerate(string.spec.supports):
        node = int(np.argmin(np.abs(string.nodes - support.s)))
        for other in (node - 1, node + 1):
            if not 0 <= other < string.nodes.size:
                continue
            a, b = min(node, other), max(node, other)
            length = string.nodes[b] - string.nodes[a]
            mismatch = (
                full[pos[:, b]]
                - full[pos[:, a]]
                - 0.5 * length * (full[slope[:, a]] + full[slope[:, b]])
            )
            value = float(np.hypot(*mismatch))
            if value > fraction * length:
                label = f"support {i} ({support.kind} at s = {support.s:g} m) of string {name!r}"
                out.append(Violation(label, value, "m", float(fraction * length)))
                break
    return out


def check_consistent_start(system: System, q, t: float, tol: float = 1e-6) -> None:
    """Raise ValueError naming every constraint the state (q, t) violates (see
    ``constraint_violations``), with its residual and the way to a consistent start."""
    bad = constraint_violations(system, q, t, tol)
    if not bad:
        return
    listed = "; ".join(
        f"{v.name} violated by {v.residual:.3e} {v.unit} (tolerance {v.tolerance:.3g} {v.unit})"
        for v in bad
    )
    raise ValueError(
        f"initial state at t = {t:g} s contradicts the model's constraints: {listed}; allowed: "
        "a state on the constraints (fe_contact.static_equilibrium(system, q_guess) gives one "
        "at rest; [initial] static = true in a model file), or simulate(..., start_tol=None) "
        "to let the stepper project it"
    )


__all__ = ["Violation", "check_consistent_start", "constraint_violations"]
