"""Bilateral contact with friction, Lipinski (002), secs. 4-7: Coulomb's law with stick
(``Sliding``, or Bauchau's (000) continuous law in its place) and Stribeck's law with a viscous
term (``Stribeck``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import ClassVar

from .. import validation as check
from .base import ContactLaw


@dataclass(frozen=True)
class Sliding(ContactLaw):
    """Bilateral contact with Coulomb friction, Lipinski (002), secs. 4-7.

    While it slips the friction force is mu |lambda| against the slip (the kinetic coefficient,
    002 eq. 63); when the slip velocity reaches zero the contact sticks if the friction force
    that holds it lies within mu_s lambda, and slips again when it leaves that cone (001 sec.
    10.3.2). A constraint of the partitioned generalised-alpha stepper.

    Parameters
    ----------
    mu : float, optional
        Kinetic friction coefficient, >= 0; 0 by default.
    mu_s : float or None, optional
        Static coefficient, >= mu; None (the default): equal to mu.
    v0 : float or None, optional
        None (the default: Coulomb with stick), or the characteristic velocity in m/s (> 0) of
        the continuous law of Bauchau (000), eq. (10),
        F_f = -mu sign(v_t) (1 - exp(-|v_t| / v0)) F_n, which replaces stick (the contact then
        never sticks: it creeps under a tangential load).

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``mu`` is negative, ``mu_s`` is below ``mu`` or ``v0`` is not positive.

    Examples
    --------
    Coulomb friction with stick; and the continuous law of Bauchau (000) eq. (10) with
    v0 = 0.01 m/s, which gives 1 - 1/e of mu at |v_t| = v0:

    >>> from fe_contact import Sliding
    >>> Sliding(mu=0.2).friction_coefficient(0.1)
    0.2
    >>> round(Sliding(mu=0.2, v0=0.01).friction_factor(0.01) / 0.2, 4)
    0.6321
    >>> Sliding(mu=-0.2)
    Traceback (most recent call last):
    ...
    ValueError: Sliding.mu: got -0.2; allowed: a friction coefficient >= 0
    """

    mu: float = 0.0
    mu_s: float | None = None
    v0: float | None = None

    def __post_init__(self):
        law = type(self).__name__  # Sliding, or the subclass (Stribeck) that was given
        mu = check.real(f"{law}.mu", self.mu, low=0.0, meaning="a friction coefficient")
        object.__setattr__(self, "mu", mu)
        if self.v0 is not None:
            v0 = check.real(f"{law}.v0", self.v0, low=0.0, low_open=True, unit="m/s")
            object.__setattr__(self, "v0", v0)
        if self.mu_s is None:
            object.__setattr__(self, "mu_s", mu)
            return
        mu_s = check.real(
            f"{law}.mu_s", self.mu_s, low=mu, meaning="a static friction coefficient, at least mu"
        )
        object.__setattr__(self, "mu_s", mu_s)

    constraint: ClassVar[str] = "bilateral"
    file_name: ClassVar[str | None] = "sliding"

    @property
    def compiled(self) -> bool:
        # the kernels take a constant mu: a subclass with its own friction runs in Python
        return self.v0 is None and self.coulomb()

    @property
    def static_coefficient(self) -> float:
        return self.mu_s

    @property
    def characteristic_velocity(self) -> float | None:
        return self.v0

    def file_table(self) -> dict:
        if type(self) is not Sliding:
            return super().file_table()
        table = {"law": "sliding", "mu": float(self.mu)}
        if self.mu_s != self.mu:
            table["mu_s"] = float(self.mu_s)
        if self.v0 is not None:
            table["v0"] = float(self.v0)
        return table

    def summary(self) -> str:
        """One line for ``fe-contact info``: mu, and mu_s and v0 where they are set.

        >>> from fe_contact import Sliding
        >>> Sliding(0.2, mu_s=0.3, v0=1e-3).summary()
        'sliding, mu = 0.2, mu_s = 0.3, v0 = 0.001 m/s'
        """
        text = f"sliding, mu = {self.mu:g}"
        if self.mu_s != self.mu:
            text += f", mu_s = {self.mu_s:g}"
        if self.v0 is not None:
            text += f", v0 = {self.v0:g} m/s"
        return text


@dataclass(frozen=True)
class Stribeck(Sliding):
    """Bilateral contact with Stribeck friction and a viscous term, regularised at rest.

    While it slips at v = v_t the friction force on the profile is

        F_t = -(mu + (mu_s - mu) exp(-(v / v_s)^2)) F_n sign(v) (1 - exp(-|v| / v0)) - c_v v

    regularised at rest as the continuous law of Bauchau (000), eq. (10). The
    generalised-alpha stepper (in Python) takes it; ``law = "stribeck"`` in a model file.

    Parameters
    ----------
    mu : float, optional
        Kinetic coefficient mu_k, >= 0, reached well above v_s; 0 by default.
    mu_s : float or None, optional
        The coefficient at rest (breakaway), >= mu; None (the default): mu.
    v0 : float
        The characteristic velocity of the regularisation, m/s (> 0, required), v0 << v_s: the
        coefficient rises from 0 to about mu_s within a few v0 and the contact creeps under a
        tangential load instead of sticking.
    v_s : float
        The Stribeck velocity, m/s (> 0, required), over which the coefficient falls from mu_s
        to mu.
    c_v : float, optional
        Viscous coefficient, N s/m (>= 0; 0 by default): a force -c_v v that does not scale with
        F_n (``viscous_force``).

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``v0`` or ``v_s`` is missing or not positive, ``c_v`` is negative, or the
        coefficients are out of range as for ``Sliding``.

    Examples
    --------
    The coefficient falls from mu_s at rest to mu + (mu_s - mu) / e = 0.2368 at v_s; the
    viscous force at 0.1 m/s is -c_v v = -0.05 N, its slope -c_v:

    >>> from fe_contact.laws import Stribeck
    >>> law = Stribeck(mu=0.2, mu_s=0.3, v0=1e-4, v_s=0.01, c_v=0.5)
    >>> law.friction_coefficient(0.0), round(law.friction_coefficient(0.01), 4)
    (0.3, 0.2368)
    >>> law.viscous_force(0.1)
    (-0.05, -0.5)
    """

    # v0 and v_s are required (their default None is refused): a model file must give them
    v0: float | None = dataclasses.field(default=None, metadata=check.rule(required=True))
    v_s: float | None = dataclasses.field(default=None, metadata=check.rule(required=True))
    c_v: float = 0.0
    file_name: ClassVar[str | None] = "stribeck"

    def __post_init__(self):
        super().__post_init__()
        if self.v0 is None:
            check.fail("Stribeck.v0", None, "a characteristic velocity > 0 m/s (000 eq. 10)")
        if self.v_s is None:
            check.fail("Stribeck.v_s", None, "a Stribeck velocity > 0 m/s")
        v_s = check.real("Stribeck.v_s", self.v_s, low=0.0, low_open=True, unit="m/s")
        object.__setattr__(self, "v_s", v_s)
        c_v = check.real("Stribeck.c_v", self.c_v, low=0.0, unit="N s/m")
        object.__setattr__(self, "c_v", c_v)

    def friction_coefficient(self, slip_speed: float) -> float:
        return self.mu + (self.mu_s - self.mu) * math.exp(-((slip_speed / self.v_s) ** 2))

    def coefficient_slope(self, slip_speed: float) -> float:
        x = slip_speed / self.v_s
        return -2.0 * (self.mu_s - self.mu) * x / self.v_s * math.exp(-(x**2))

    def viscous_force(self, slip_velocity: float) -> tuple[float, float]:
        return -self.c_v * float(slip_velocity), -self.c_v

    def summary(self) -> str:
        return (
            f"stribeck, mu = {self.mu:g}, mu_s = {self.mu_s:g}, v_s = {self.v_s:g} m/s, "
            f"c_v = {self.c_v:g} N s/m, v0 = {self.v0:g} m/s"
        )


__all__ = ["Sliding", "Stribeck"]
