"""Contact laws, the one home of every law a ``ContactPair`` takes (re-exported by
``fe_contact.model``):

- ``Sliding``: bilateral contact with Coulomb friction (Lipinski (002)).
- ``Unilateral``: set-valued normal and friction laws with an impact law (Eugster-Glocker (004),
  Slavic-Boltezar (003)).
- ``Compliant``: the normal force a function of the approach, not a constraint (Bauchau (000),
  sec. 7; Hunt-Crossley damping).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validation as check

COMPLIANT_KINDS = {"linear": 1.0, "hertz": 1.5}


@dataclass(frozen=True)
class Sliding:
    """Bilateral contact with Coulomb friction, Lipinski (002), secs. 4-7: while it slips the
    friction force is mu |lambda| against the slip (the kinetic coefficient, 002 eq. 63); when
    the slip velocity reaches zero the contact sticks if the friction force that holds it lies
    within mu_s lambda, and slips again when it leaves that cone (001 sec. 10.3.2).

    mu : kinetic coefficient >= 0. mu_s : static coefficient >= mu (None: equal to mu).
    v0 : None (Coulomb with stick), or the characteristic velocity (m/s, > 0) of the continuous
    law of Bauchau (000), eq. (10), F_f = -mu sign(v_t) (1 - exp(-|v_t| / v0)) F_n, which
    replaces stick (the contact then never sticks: it creeps under a tangential load).
    """

    mu: float = 0.0
    mu_s: float | None = None
    v0: float | None = None

    def __post_init__(self):
        mu = check.real("Sliding.mu", self.mu, low=0.0, meaning="a friction coefficient")
        object.__setattr__(self, "mu", mu)
        if self.v0 is not None:
            v0 = check.real("Sliding.v0", self.v0, low=0.0, low_open=True, unit="m/s")
            object.__setattr__(self, "v0", v0)
        if self.mu_s is None:
            object.__setattr__(self, "mu_s", mu)
            return
        mu_s = check.real(
            "Sliding.mu_s", self.mu_s, low=mu, meaning="a static friction coefficient, at least mu"
        )
        object.__setattr__(self, "mu_s", mu_s)


@dataclass(frozen=True)
class Unilateral:
    """Unilateral contact with Coulomb friction and Newton's impact law as set-valued laws,
    Eugster-Glocker (004), eqs. (26)-(27) and sec. 4.5.

    mu : friction coefficient >= 0. restitution_normal, restitution_tangent : e_N, e_T in [0, 1].
    impact : "newton" (g'+ = -e_N g'-) or "poisson" (Slavic-Boltezar (003), sec. 2.2: a
    compression phase that stops the approach, then an expansion impulse e_N times the
    compression impulse, both with Coulomb friction; the generalised-alpha and event-driven
    steppers).
    reversibility : nu in [0, 1] of Poisson's law, 003 sec. 2.2: a contact that sticks at the
    end of compression gets nu e_T times its tangential compression impulse back in expansion
    (one that slides gets e_T times); the event-driven stepper only (elsewhere it must be 0).
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


@dataclass(frozen=True)
class Compliant:
    """A compliant (penalty-free, physical) normal law with friction: the contact pushes with
    ``F_n = c a^p (1 + D a')`` (clamped at zero) while the approach a = -gap is positive,
    Bauchau (000) sec. 7: ``kind`` "linear" (p = 1, c = c0 in N/m, 000 sec. 7.1) or "hertz"
    (p = 3/2, c = c1 in N/m^1.5, 000 sec. 7.2); ``damping`` D (s/m) is Hunt-Crossley's
    coefficient (0: elastic). For the Hunt-Crossley law the restitution of a collision at
    approach speed v_in is the root e of ``D v_in (1 + e) = ln((1 + D v_in) / (1 - e D v_in))``
    whatever p and c (so e ~ 1 - 2/3 D v_in for small D v_in; ``restitution``).

    Friction: F_t = -mu F_n sign(v_t) (1 - exp(-|v_t| / v0)), the continuous law of 000
    eq. (10) (``v0`` in m/s is required when mu > 0). ``rolling``: the contact sticks (rolls,
    a tangential constraint row W_T u = 0, 000 sec. 5) when |v_t| < v0 / 2, and slips again
    when its friction force leaves the static cone mu_s F_n (000 sec. 6); mu_s defaults to mu.

    The force is an applied generalised force W_N^T F_n + W_T^T F_t (000 eq. 17); its elastic
    energy c a^(p+1) / (p + 1) is part of the elastic energy, and its damping and friction
    powers are dissipated (``system.energies``).
    """

    kind: str = "hertz"
    stiffness: float = 1.0
    damping: float = 0.0
    mu: float = 0.0
    mu_s: float | None = None
    v0: float | None = None
    rolling: bool = False

    def __post_init__(self):
        check.choice("Compliant.kind", self.kind, tuple(COMPLIANT_KINDS))
        unit = "N/m" if self.kind == "linear" else "N/m^1.5"
        c = check.real("Compliant.stiffness", self.stiffness, low=0.0, low_open=True, unit=unit)
        object.__setattr__(self, "stiffness", c)
        d = check.real("Compliant.damping", self.damping, low=0.0, unit="s/m")
        object.__setattr__(self, "damping", d)
        mu = check.real("Compliant.mu", self.mu, low=0.0, meaning="a friction coefficient")
        object.__setattr__(self, "mu", mu)
        if self.v0 is not None:
            v0 = check.real("Compliant.v0", self.v0, low=0.0, low_open=True, unit="m/s")
            object.__setattr__(self, "v0", v0)
        elif mu > 0.0:
            check.fail(
                "Compliant.v0", None, "a characteristic velocity > 0 m/s when mu > 0 (000 eq. 10)"
            )
        mu_s = mu if self.mu_s is None else self.mu_s
        mu_s = check.real("Compliant.mu_s", mu_s, low=mu, meaning="a static coefficient >= mu")
        object.__setattr__(self, "mu_s", mu_s)
        check.instance("Compliant.rolling", self.rolling, bool, "True or False")
        if self.rolling and self.v0 is None:
            check.fail("Compliant.v0", None, "a characteristic velocity > 0 m/s with rolling")

    @property
    def exponent(self) -> float:
        return COMPLIANT_KINDS[self.kind]

    def normal_force(self, approach: float, rate: float) -> tuple[float, float, float]:
        """(F_n, dF_n/da, dF_n/da') at approach a (m) and approach rate a' (m/s): zero while
        a <= 0 or while the damping would pull (1 + D a' < 0)."""
        if approach <= 0.0:
            return 0.0, 0.0, 0.0
        p, c, d = self.exponent, self.stiffness, self.damping
        elastic = c * approach**p
        factor = 1.0 + d * rate
        if factor <= 0.0:
            return 0.0, 0.0, 0.0
        return elastic * factor, p * c * approach ** (p - 1.0) * factor, elastic * d

    def elastic_energy(self, approach: float) -> float:
        """c a^(p+1) / (p + 1), J (zero while open)."""
        if approach <= 0.0:
            return 0.0
        p = self.exponent
        return self.stiffness * approach ** (p + 1.0) / (p + 1.0)

    def restitution(self, speed: float) -> float:
        """The Hunt-Crossley coefficient of restitution of an impact at approach speed ``speed``
        (m/s): the root e in [0, 1] of D v (1 + e) = ln((1 + D v) / (1 - e D v)), from
        integrating m v dv/da = -c a^p (1 + D v) over the approach and the restitution."""
        from scipy.optimize import brentq

        x = self.damping * check.real("Compliant.restitution.speed", speed, low=0.0, unit="m/s")
        if x == 0.0:
            return 1.0

        def f(e):
            return x * (1.0 + e) - np.log((1.0 + x) / (1.0 - e * x))

        hi = min(1.0, (1.0 - 1e-15) / x)
        return float(brentq(f, 0.0, hi, xtol=1e-15)) if f(hi) < 0.0 else hi


__all__ = ["COMPLIANT_KINDS", "Compliant"]
