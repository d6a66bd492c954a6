"""The contact problem of a state in the Painleve range: which case it is, and its solutions.

Where friction makes D = J M^-1 J_Sigma^T lose definiteness (001 remark 10.3.13), the contact
accelerations c = J q'' + A = a0 + D lambda (a0 = A - J M^-1 F, the accelerations with no
constraint force) no longer fix the normal forces. A closed contact presses, lambda_N >= 0,
and either stays (c_N = 0) or lifts off (lambda_N = 0, c_N >= 0): a linear complementarity
problem on the normal rows of the closed contacts, every other row (drives, loops, stick
rows) an equation. With one sliding contact and d = D_NN < 0 it has

* no solution when a0 < 0 (the **inconsistent** case: with N = 0 the contact would
  penetrate, and every N > 0 accelerates it further into its target),
* two when a0 > 0 (the **indeterminate** case: N = 0 with the contact lifting off at a0, and
  N = -a0 / d > 0 with it staying),

(Pfeiffer-Glocker; Brogliato, Nonsmooth Mechanics, sec. 5.5). ``contact_problem`` enumerates
the active sets of the normal rows (2^k for k closed contacts, k <= MAX_ENUMERATED) and
returns every solution; a ``Unilateral`` contact may then take the lift-off branch.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

# the enumeration of active sets is 2^k solves of at most m rows: beyond this many closed
# contacts the case is not named (the margin alone is reported)
MAX_ENUMERATED = 10
# a multiplier or contact acceleration counts as of its sign when it is within this fraction
# of the problem's scale (|a0|, |D lambda|) of zero: the solves are of well-conditioned
# blocks of size m, whose round-off is some 10 eps times that scale
SIGN_TOL = 1e-9


@dataclass(frozen=True)
class ContactSolution:
    """One solution of the contact problem: ``active`` (k,) bool per normal row (True: the
    contact stays closed, c_N = 0), multipliers (m,) N or N m, accelerations c (m,) of the
    rows, m/s^2 (zero on the active rows and the equations)."""

    active: np.ndarray
    multipliers: np.ndarray
    accelerations: np.ndarray


@dataclass(frozen=True)
class ContactProblem:
    """The contact problem of a state (module docstring). normal_rows (k,): its
    complementarity rows; free_acceleration (m,): a0, m/s^2; delassus (m, m): D;
    solutions: every ContactSolution found. ``kind``: "inconsistent" (none), "unique" or
    "indeterminate" (two or more); None when there were too many rows to enumerate."""

    normal_rows: np.ndarray
    free_acceleration: np.ndarray
    delassus: np.ndarray
    solutions: tuple[ContactSolution, ...] | None

    @property
    def kind(self) -> str | None:
        if self.solutions is None:
            return None
        if not self.solutions:
            return "inconsistent"
        return "unique" if len(self.solutions) == 1 else "indeterminate"

    def lift_off(self, can_open: np.ndarray) -> ContactSolution | None:
        """The solution in which contacts lift off (c_N > 0, lambda_N = 0) and all of them may
        (``can_open`` (k,) bool: a Unilateral contact), the most of them if several; None when
        there is none."""
        best = None
        scale = self._scale()
        for sol in self.solutions or ():
            opened = ~sol.active
            if not opened.any() or np.any(opened & ~can_open):
                continue
            if np.any(sol.accelerations[self.normal_rows[opened]] <= SIGN_TOL * scale):
                continue  # lifting off at c_N = 0: not a lift-off
            if best is None or opened.sum() > (~best.active).sum():
                best = sol
        return best

    def describe(self, names) -> str:
        """The case in words, with the accelerations and normal forces of its solutions;
        names (k,): the contacts of the normal rows. With more than MAX_ENUMERATED rows:
        that the case is not named, and why."""
        if self.solutions is None:
            k = self.normal_rows.size
            return (
                f"case not named: {k} closed contacts, more than MAX_ENUMERATED = "
                f"{MAX_ENUMERATED}, whose 2^{k} active sets are not enumerated, so neither "
                "the inconsistent nor the indeterminate case is told apart and no lift-off "
                "branch is sought"
            )
        a0 = self.free_acceleration[self.normal_rows]
        free = ", ".join(f"{n}: {a:.4g} m/s^2" for n, a in zip(names, a0, strict=True))
        d = np.diag(self.delassus)[self.normal_rows]
        diag = ", ".join(f"{n}: {v:.4g}" for n, v in zip(names, d, strict=True))
        kind = self.kind
        if kind == "inconsistent":
            return (
                "inconsistent case: no normal force N >= 0 keeps the contact out of its "
                f"target (the contact accelerations with N = 0 are {free}; the diagonal of "
                f"J M^-1 J_Sigma^T is {diag} (m/s^2)/N: pressing harder pulls the contact in)"
            )
        if kind == "indeterminate":
            options = "; ".join(self._solution_text(s, names) for s in self.solutions)
            return (
                f"indeterminate case: {len(self.solutions)} solutions ({options}; the contact "
                f"accelerations with N = 0 are {free}, the diagonal of J M^-1 J_Sigma^T is "
                f"{diag} (m/s^2)/N)"
            )
        return ""

    def approach(self, names) -> str:
        """The case a state next to the Painleve boundary runs into (D still positive but
        falling to 0, the normal force -a0 / D of a pressed contact growing as its inverse), in
        words; names (k,): the contacts of the normal rows. A contact pressed there (a0 < 0:
        with N = 0 it would penetrate) cannot lift off, and past D = 0 no N >= 0 keeps it out
        of its target: the **inconsistent** case approached, which no smooth motion crosses
        (Genot-Brogliato: the normal force turns impulsive, a tangential impact, not modelled
        here). Empty when no contact is pressed."""
        a0 = self.free_acceleration[self.normal_rows]
        pressed = a0 < 0.0
        if not pressed.any():
            return ""
        d = np.diag(self.delassus)[self.normal_rows]
        lam = [s.multipliers[self.normal_rows] for s in self.solutions or ()]
        parts = []
        for j in np.flatnonzero(pressed):
            normal = ", ".join(f"{n[j]:.4g}" for n in lam) or "none"
            parts.append(
                f"{names[j]}: a0 = {a0[j]:.4g} m/s^2, J M^-1 J_Sigma^T diagonal "
                f"{d[j]:.4g} (m/s^2)/N, N = {normal} N"
            )
        return (
            "inconsistent case approached: the sliding contact is pressed (its acceleration "
            "with N = 0, a0, is negative: lifting off is not consistent) while J M^-1 "
            f"J_Sigma^T falls to singular ({'; '.join(parts)}); past it no N >= 0 keeps the "
            "contact out of its target, and the normal force would turn impulsive (a "
            "tangential impact, Genot-Brogliato; not modelled)"
        )

    def _solution_text(self, sol: ContactSolution, names) -> str:
        parts = []
        for j, (name, row) in enumerate(zip(names, self.normal_rows, strict=True)):
            if sol.active[j]:
                parts.append(f"{name} stays with N = {sol.multipliers[row]:.4g} N")
            else:
                parts.append(f"{name} lifts off at {sol.accelerations[row]:.4g} m/s^2")
        return ", ".join(parts)

    def _scale(self) -> float:
        return max(1.0, float(np.max(np.abs(self.free_acceleration), initial=0.0)))


def contact_problem(D: np.ndarray, a0: np.ndarray, normal_rows) -> ContactProblem:
    """Every solution of c = a0 + D lambda with c = 0 on the rows that are not in normal_rows
    and, on the normal rows, lambda >= 0, c >= 0, lambda c = 0.

    D (m, m) = J M^-1 J_Sigma^T; a0 (m,) the row accelerations without constraint forces;
    normal_rows (k,) int. Active sets whose block of D is singular are skipped."""
    D = np.asarray(D, dtype=float)
    a0 = np.asarray(a0, dtype=float)
    normal_rows = np.asarray(normal_rows, dtype=int)
    k, m = normal_rows.size, a0.size
    if not (np.all(np.isfinite(D)) and np.all(np.isfinite(a0))):
        raise FloatingPointError(
            "the contact problem J M^-1 J_Sigma^T is not finite (masses, stiffnesses or the "
            "step out of floating-point range)"
        )
    problem = ContactProblem(normal_rows, a0, D, None)
    if k > MAX_ENUMERATED:
        return problem
    equations = np.setdiff1d(np.arange(m), normal_rows)
    scale = problem._scale()
    found: list[ContactSolution] = []
    for pattern in itertools.product((True, False), repeat=k):
        active = np.array(pattern, dtype=bool)
        rows = np.sort(np.concatenate([equations, normal_rows[active]]))
        lam = np.zeros(m)
        if rows.size:
            block = D[np.ix_(rows, rows)]
            if np.linalg.cond(block) > 1e12:
                continue
            lam[rows] = np.linalg.solve(block, -a0[rows])
        c = a0 + D @ lam
        c[rows] = 0.0
        size = max(scale, float(np.max(np.abs(D @ lam), initial=0.0)))
        lam_scale = max(1.0, float(np.max(np.abs(lam), initial=0.0)))
        pressed = lam[normal_rows[active]] >= -SIGN_TOL * lam_scale
        apart = c[normal_rows[~active]] >= -SIGN_TOL * size
        if not (np.all(pressed) and np.all(apart)):
            continue
        if any(np.allclose(lam, s.multipliers, rtol=1e-9, atol=1e-9 * lam_scale) for s in found):
            continue  # a degenerate row (lambda = c = 0) found from both sides
        found.append(ContactSolution(active, lam, c))
    return ContactProblem(normal_rows, a0, D, tuple(found))


__all__ = ["MAX_ENUMERATED", "ContactProblem", "ContactSolution", "contact_problem"]
