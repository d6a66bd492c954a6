"""Unilateral contact with Coulomb friction and an impact law (Newton's or Poisson's) as
set-valued laws, Eugster-Glocker (004) and Slavic-Boltezar (003): ``Unilateral``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .. import validation as check
from ..coupling.impact import ImpactImpulses, newton_impact, poisson_impact
from .base import ContactLaw, ImpactPhase


@dataclass(frozen=True)
class Unilateral(ContactLaw):
    """Unilateral contact with Coulomb friction and an impact law, as set-valued laws.

    Eugster-Glocker (004), eqs. (26)-(27) and sec. 4.5, for the Moreau-Jean stepper (and the
    generalised-alpha and event-driven steppers).

    Parameters
    ----------
    mu : float, optional
        Friction coefficient, >= 0; 0 by default.
    restitution_normal : float, optional
        Normal restitution e_N, in [0, 1]; 0 by default.
    restitution_tangent : float, optional
        Tangential restitution e_T, in [0, 1]; 0 by default.
    impact : {"newton", "poisson"}, optional
        "newton" (the default: g'+ = -e_N g'-) or "poisson" (Slavic-Boltezar (003), sec. 2.2: a
        compression phase that stops the approach, then an expansion impulse e_N times the
        compression impulse, both with Coulomb friction; the generalised-alpha and event-driven
        steppers).
    reversibility : float, optional
        nu in [0, 1] of Poisson's law, 003 sec. 2.2: a contact that sticks at the end of
        compression gets nu e_T times its tangential compression impulse back in expansion (one
        that slides gets e_T times); the event-driven stepper only (elsewhere it must be 0, the
        default).

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``mu`` is negative, a restitution or ``reversibility`` is outside [0, 1], or
        ``impact`` is unknown.

    Examples
    --------
    Newton's impact law is one phase; Poisson's a compression then an expansion of e_N times
    its impulse (003 sec. 2.2):

    >>> from fe_contact import Unilateral
    >>> Unilateral(mu=0.3, restitution_normal=0.5).impact_phases()
    (ImpactPhase(restitution_normal=0.5, restitution_tangent=0.0, expansion=None),)
    >>> [p.expansion for p in Unilateral(restitution_normal=0.5, impact="poisson").impact_phases()]
    [None, 0.5]
    """

    mu: float = 0.0
    restitution_normal: float = 0.0
    restitution_tangent: float = 0.0
    impact: str = "newton"
    reversibility: float = 0.0

    def __post_init__(self):
        mu = check.real("Unilateral.mu", self.mu, low=0.0, meaning="a friction coefficient")
        object.__setattr__(self, "mu", mu)
        check.choice("Unilateral.impact", self.impact, ("newton", "poisson"))
        for name in ("restitution_normal", "restitution_tangent", "reversibility"):
            value = check.real(f"Unilateral.{name}", getattr(self, name), low=0.0, high=1.0)
            object.__setattr__(self, name, value)
        if self.reversibility and self.impact != "poisson":
            check.fail(
                "Unilateral.reversibility", self.reversibility, "0 unless impact = 'poisson'"
            )

    constraint: ClassVar[str] = "unilateral"
    file_name: ClassVar[str | None] = "unilateral"

    @property
    def steppers(self) -> frozenset[str]:
        """Newton's law: generalised-alpha and Moreau-Jean (generalised-alpha only for a
        subclass with its own friction coefficient); Poisson's: generalised-alpha and
        event-driven; Poisson's with reversibility nu > 0: event-driven only."""
        if self.impact == "newton":
            # the Moreau-Jean contact problem has a constant mu: a subclass with its own
            # coefficient runs in the generalised-alpha stepper only
            own = self.coulomb()
            return frozenset({"generalized-alpha", "moreau"} if own else {"generalized-alpha"})
        if self.reversibility:
            return frozenset({"event-driven"})
        return frozenset({"generalized-alpha", "event-driven"})

    def impact_phases(self) -> tuple[ImpactPhase, ...]:
        """The phases of an impact at one contact point: Newton's law, one phase
        g'+ = -e_N g'- (004 sec. 4.5); Poisson's, a compression to g'+ = 0 (tangential
        restitution e_T) then an expansion whose normal impulse is e_N times the compression's
        (003 sec. 2.2)."""
        e_n, e_t = self.restitution_normal, self.restitution_tangent
        if self.impact == "poisson":
            return (ImpactPhase(0.0, e_t), ImpactPhase(0.0, 0.0, e_n))
        return (ImpactPhase(e_n, e_t),)

    def impact_impulses(self, delassus, gdot, time: float | None = None) -> ImpactImpulses:
        """The impact of m contacts of this law at once (``coupling.impact``): Newton's law,
        xi = gdot+ + e gdot- in the unilateral and Coulomb inclusions (004 sec. 4.5,
        ``newton_impact``); Poisson's, a compression to zero approach then an expansion of
        e_N (e_T, or nu e_T where the contact sticks) times the compression impulse with the
        inclusions' correction (003 sec. 2.2, ``poisson_impact``).

        delassus : (2m, 2m) W^T M^-1 W, W = [W_N, W_T]. gdot : (2m,) m/s, the relative
        velocities before the impact (normal rows, then tangential). time : s, for messages.

        Examples
        --------
        A 2 kg point hits a rigid line at 1 m/s, e_N = 0.5: it leaves at 0.5 m/s, the line
        took P_N = 2 (1 + 0.5) = 3 N s, and 2 (1 - 0.25) / 2 = 0.75 J are lost:

        >>> import numpy as np
        >>> from fe_contact import Unilateral
        >>> res = Unilateral(restitution_normal=0.5).impact_impulses(
        ...     np.eye(2) / 2.0, np.array([-1.0, 0.0]))
        >>> print(f"{res.gdot_after[0]:.3f} m/s, {res.total[0]:.3f} N s, {res.loss[0]:.3f} J")
        0.500 m/s, 3.000 N s, 0.750 J
        """
        g = np.asarray(gdot, dtype=float)
        mu = np.full(g.size // 2, self.mu)
        e_n, e_t = self.restitution_normal, self.restitution_tangent
        if self.impact == "poisson":
            return poisson_impact(delassus, g, mu, e_n, e_t, self.reversibility, time=time)
        return newton_impact(delassus, g, mu, e_n, e_t, time=time)

    def file_table(self) -> dict:
        if type(self) is not Unilateral:
            return super().file_table()
        table = {"law": "unilateral", "mu": float(self.mu)}
        table["restitution_normal"] = float(self.restitution_normal)
        table["restitution_tangent"] = float(self.restitution_tangent)
        if self.impact != "newton":
            table["impact"] = self.impact
        if self.reversibility:
            table["reversibility"] = float(self.reversibility)
        return table

    def summary(self) -> str:
        return (
            f"unilateral, mu = {self.mu:g}, e_N = {self.restitution_normal:g}, "
            f"e_T = {self.restitution_tangent:g}"
        )


__all__ = ["Unilateral"]
