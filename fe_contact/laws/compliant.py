"""Compliant contact: the normal force a function of the approach, not a constraint, Bauchau
(000) sec. 7 with Hunt-Crossley damping (``Compliant``; its exponents ``COMPLIANT_KINDS``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from .. import validation as check
from .base import ContactLaw

COMPLIANT_KINDS = {"linear": 1.0, "hertz": 1.5}


@dataclass(frozen=True)
class Compliant(ContactLaw):
    """A compliant (penalty-free, physical) normal law with friction, Bauchau (000) sec. 7.

    The contact pushes with ``F_n = c a^p (1 + D a')`` (clamped at zero) while the approach
    a = -gap is positive. For the Hunt-Crossley law the restitution of a collision at approach
    speed v_in is the root e of ``D v_in (1 + e) = ln((1 + D v_in) / (1 - e D v_in))`` whatever
    p and c (so e ~ 1 - 2/3 D v_in for small D v_in; ``restitution``).

    Friction: F_t = -mu F_n sign(v_t) (1 - exp(-|v_t| / v0)), the continuous law of 000
    eq. (10). The force is an applied generalised force W_N^T F_n + W_T^T F_t (000 eq. 17); its
    elastic energy c a^(p+1) / (p + 1) is part of the elastic energy, and its damping and
    friction powers are dissipated (``system.energies``).

    Parameters
    ----------
    kind : {"linear", "hertz"}, optional
        "linear" (p = 1, 000 sec. 7.1) or "hertz" (p = 3/2, 000 sec. 7.2; the default).
    stiffness : float, optional
        c: c0 in N/m for "linear", c1 in N/m^1.5 for "hertz" (> 0); 1 by default.
    damping : float, optional
        Hunt-Crossley's coefficient D, s/m (>= 0; 0, the default: elastic).
    mu : float, optional
        Kinetic friction coefficient, >= 0; 0 by default.
    mu_s : float or None, optional
        Static coefficient of the rolling law, >= mu; None (the default): mu.
    v0 : float or None, optional
        Characteristic velocity of the continuous friction law, m/s (> 0); required when
        mu > 0 or ``rolling``.
    rolling : bool, optional
        When True the contact sticks (rolls, a tangential constraint row W_T u = 0, 000 sec. 5)
        when |v_t| < v0 / 2, and slips again when its friction force leaves the static cone
        mu_s F_n (000 sec. 6); False by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``kind`` is unknown, ``stiffness`` is not positive, ``damping``, ``mu`` or
        ``mu_s - mu`` is negative, or ``v0`` is missing while friction or rolling needs it.

    Examples
    --------
    A Hertz contact c a^(3/2) with c = 1e9 N/m^1.5 pushes 1 N at an approach of 1 um and
    stores c a^(5/2) / (5/2) = 4e-7 J; with Hunt-Crossley damping D v_in = 0.1 the restitution
    is e ~ 1 - 2/3 D v_in = 0.933 (0.9375 from the exact relation):

    >>> from fe_contact.laws import Compliant
    >>> hertz = Compliant(kind="hertz", stiffness=1e9)
    >>> force = hertz.normal_force(1e-6, 0.0)[0]
    >>> print(f"{force:.4g} N, {hertz.elastic_energy(1e-6):.4g} J")
    1 N, 4e-07 J
    >>> round(Compliant(kind="hertz", stiffness=1e9, damping=0.1).restitution(1.0), 4)
    0.9375
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

    constraint: ClassVar[str] = "compliant"
    file_name: ClassVar[str | None] = "compliant"

    @property
    def static_coefficient(self) -> float:
        return self.mu_s

    @property
    def characteristic_velocity(self) -> float | None:
        return self.v0

    def summary(self) -> str:
        return f"compliant ({self.kind}), mu = {self.mu:g}"

    @property
    def compiled(self) -> bool:
        # the compiled step's compliant contacts (``kernels.compliant``) are frictionless and
        # evaluate this class's force and energy (``compliant_normal_force``)
        own = ("normal_force", "elastic_energy", "exponent")
        return (
            self.mu == 0.0
            and not self.rolling
            and self.coulomb()
            and self._inherits(Compliant, own)
        )

    @property
    def compiled_friction(self) -> bool:
        # Bauchau's continuous friction (000 eq. 10: a constant mu > 0 and v0), not rolling, on
        # a law whose frictionless part the kernels implement: ``kernels.compliant`` evaluates
        # it for a pair of curved profiles
        if not (self.mu > 0.0 and self.v0 is not None and not self.rolling):
            return False
        return dataclasses.replace(self, mu=0.0, mu_s=0.0, v0=None).compiled

    @property
    def exponent(self) -> float:
        return COMPLIANT_KINDS[self.kind]

    def normal_force(self, approach: float, rate: float) -> tuple[float, float, float]:
        """(F_n, dF_n/da, dF_n/da') at approach a (m) and approach rate a' (m/s): zero while
        a <= 0 or while the damping would pull (1 + D a' < 0)."""
        return compliant_normal_force(self.exponent, self.stiffness, self.damping, approach, rate)

    def elastic_energy(self, approach: float) -> float:
        """c a^(p+1) / (p + 1), J (zero while open)."""
        return compliant_elastic(self.exponent, self.stiffness, approach)

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


@njit(cache=True)
def compliant_normal_force(exponent, stiffness, damping, approach, rate):
    """(F_n, dF_n/da, dF_n/da') of a ``Compliant`` law of exponent p, stiffness c and
    Hunt-Crossley damping D at the approach a and its rate a' (floats): c a^p (1 + D a') while
    a > 0 and 1 + D a' > 0, else zero. The law of ``Compliant.normal_force`` and of the
    compiled step's compliant contacts (``kernels.compliant``)."""
    if approach <= 0.0:
        return 0.0, 0.0, 0.0
    p, c, d = exponent, stiffness, damping
    elastic = c * approach**p
    factor = 1.0 + d * rate
    if factor <= 0.0:
        return 0.0, 0.0, 0.0
    return elastic * factor, p * c * approach ** (p - 1.0) * factor, elastic * d


@njit(cache=True)
def compliant_elastic(exponent, stiffness, approach):
    """c a^(p+1) / (p + 1) of a ``Compliant`` law at the approach a (zero while a <= 0): the
    energy of ``Compliant.elastic_energy`` and of the compiled step (``kernels.compliant``)."""
    if approach <= 0.0:
        return 0.0
    p = exponent
    return stiffness * approach ** (p + 1.0) / (p + 1.0)
