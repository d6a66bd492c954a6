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
from .multibody.tree_dynamics import mass_matrix as tree_mass_matrix
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


SINGULAR = 1e-10  # smallest eigenvalue of M(q) scaled to a unit diagonal, taken as zero


def free_tree_motions(system: System, q, t: float = 0.0) -> np.ndarray:
    """The motions of the tree's joints that carry no mass at q and that no bilateral
    constraint row (a Sliding contact, a drive, a loop) holds: an (n_tree, k) basis, k = 0
    when every motion has mass or is held. With k > 0 the accelerations are undetermined
    (the mass matrix M(q) of Lipinski (002), eq. (7b) is singular on them): two prismatic
    joints along the same axis, a massless body turning about its only mass point.

    M is scaled to a unit diagonal, so the test (an eigenvalue below SINGULAR) does not
    depend on the units of the joints."""
    model, lay = system.model, system.layout
    if model.tree is None or lay.n_tree == 0:
        return np.zeros((lay.n_tree, 0))
    q = np.asarray(q, dtype=float)
    mass = tree_mass_matrix(model.tree, q[lay.tree])
    scale = np.sqrt(np.diag(mass))
    if not np.all(scale > 0.0):
        return np.zeros((lay.n_tree, 0))  # TreeModel names a joint that moves no mass
    values, vectors = np.linalg.eigh(mass / np.outer(scale, scale))
    null = vectors[:, values < SINGULAR] / scale[:, None]
    if null.shape[1] == 0 or not model.constraint_names():
        return null
    try:
        jac = evaluate_state(system, q, np.zeros(lay.n), t, constraints_only=True).jac
    except ContactLeftStructure:
        return np.zeros((lay.n_tree, 0))  # reported by the constraint check
    rows = np.linalg.norm(jac, axis=1)  # each row to unit length over all coordinates: a row
    rows[rows == 0.0] = 1.0  # that barely touches the tree (sin(1e-30)) does not hold it
    held = (jac[:, lay.tree] / rows[:, None]) @ (null / np.linalg.norm(null, axis=0))
    if np.linalg.matrix_rank(held, tol=SINGULAR) == null.shape[1]:
        return np.zeros((lay.n_tree, 0))
    return null


def check_tree_mass(system: System, q, t: float = 0.0) -> None:
    """Raise ValueError when the tree has a free motion without mass at (q, t)
    (``free_tree_motions``), naming its joints."""
    null = free_tree_motions(system, q, t)
    if null.shape[1] == 0:
        return
    tree = system.model.tree
    weight = np.abs(null).max(axis=1)
    joints = [j for j in range(len(tree.joints)) if weight[j] > 1e-6 * weight.max()]
    listed = ", ".join(
        f"joint {j} ({tree.joints[j].kind}, angle {tree.joints[j].angle:g} rad)" for j in joints
    )
    raise ValueError(
        f"TreeModel joints: {listed} move no mass together at the initial state (the mass "
        f"matrix M(q) is singular in floating point on {null.shape[1]} motion(s) that no "
        "constraint holds); allowed: joints whose motions carry mass independently: change "
        "their Joint.angle or Joint.location, or give mass to the bodies they move"
    )


def check_consistent_start(system: System, q, t: float, tol: float = 1e-6) -> None:
    """Raise ValueError naming every constraint the state (q, t) violates (see
    ``constraint_violations``), with its residual and the way to a consistent start; and
    naming the joints of a free motion without mass (``check_tree_mass``)."""
    check_tree_mass(system, q, t)
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


__all__ = [
    "SINGULAR",
    "Violation",
    "check_consistent_start",
    "check_tree_mass",
    "constraint_violations",
    "free_tree_motions",
]
