"""Tension laws of the string, Eugster-Glocker (004), eq. (17): T(stretch), dT/dstretch and the
strain energy per unit reference length (re-exported by ``elements.string``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validation as check

# --------------------------------------------------------------------------------------------
# Tension laws
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NeoHookean:
    """Neo-Hookean string, Eugster-Glocker (004), eq. (17): ``T = k/3 (nu - nu^-2)``.

    Parameters
    ----------
    k : float
        Stiffness, N (> 0; ``k/3 * 3 = k`` is the small-strain axial stiffness EA).

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``k`` is not a positive finite number.

    Examples
    --------
    At small strain e = nu - 1, T = k/3 (nu - nu^-2) = k (e - e^2 + ...): k = 853.75 N at
    0.1 % stretch gives 853.75 (1e-3 - 1e-6) = 0.8529 N:

    >>> from fe_contact import NeoHookean
    >>> law = NeoHookean(k=853.75)
    >>> print(f"{law.tension(1.001):.4g} N, dT/dnu(1) = {law.dtension(1.0):.4g} N")
    0.8529 N, dT/dnu(1) = 853.8 N
    """

    k: float

    def __post_init__(self):
        object.__setattr__(
            self, "k", check.real("NeoHookean.k", self.k, low=0.0, low_open=True, unit="N")
        )

    def tension(self, nu):
        """Tension T in N for stretch ``nu`` (any shape)."""
        return self.k / 3.0 * (nu - nu**-2)

    def dtension(self, nu):
        """dT/dnu in N."""
        return self.k / 3.0 * (1.0 + 2.0 * nu**-3)

    def energy(self, nu):
        """Strain energy per unit reference length ``W = k/3 (nu^2/2 + 1/nu) - k/2`` in J/m."""
        return self.k / 3.0 * (0.5 * nu**2 + 1.0 / nu) - 0.5 * self.k

    def energy_quotient(self, nu0, nu1):
        """``(W(nu1) - W(nu0)) / ((nu1^2 - nu0^2) / 2) = k/3 (1 - 2 / (nu0 nu1 (nu0 + nu1)))``
        in J/m, free of cancellation; ``T(nu) / nu`` at nu0 = nu1 (``elements.string_energy``)."""
        return self.k / 3.0 * (1.0 - 2.0 / (nu0 * nu1 * (nu0 + nu1)))


@dataclass(frozen=True)
class LinearElastic:
    """Linear tension law ``T = EA (nu - 1)`` (carries compression, too).

    Parameters
    ----------
    EA : float
        Axial stiffness, N (> 0).

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``EA`` is not a positive finite number.

    Examples
    --------
    T = EA (nu - 1): 1 % stretch of EA = 853.75 N:

    >>> from fe_contact import LinearElastic
    >>> print(f"{LinearElastic(EA=853.75).tension(1.01):.4g} N")
    8.538 N
    """

    EA: float

    def __post_init__(self):
        object.__setattr__(
            self, "EA", check.real("LinearElastic.EA", self.EA, low=0.0, low_open=True, unit="N")
        )

    def tension(self, nu):
        """Tension T in N for stretch ``nu`` (any shape)."""
        return self.EA * (nu - 1.0)

    def dtension(self, nu):
        """dT/dnu in N."""
        return self.EA * np.ones_like(nu)

    def energy(self, nu):
        """Strain energy per unit reference length ``EA/2 (nu - 1)^2`` in J/m."""
        return 0.5 * self.EA * (nu - 1.0) ** 2

    def energy_quotient(self, nu0, nu1):
        """``(W(nu1) - W(nu0)) / ((nu1^2 - nu0^2) / 2) = EA (1 - 2 / (nu0 + nu1))`` in J/m, free
        of cancellation; ``T(nu) / nu`` at nu0 = nu1 (``elements.string_energy``)."""
        return self.EA * (1.0 - 2.0 / (nu0 + nu1))


_LAW_METHODS = ("tension", "dtension", "energy")


def check_law(law) -> None:
    if isinstance(law, type):
        raise ValueError(
            f"law: got the class {law.__name__}; allowed: an instance such as "
            "NeoHookean(k=...) or LinearElastic(EA=...)"
        )
    missing = [name for name in _LAW_METHODS if not callable(getattr(law, name, None))]
    if missing:
        raise ValueError(
            f"law: {law!r} has no callable method(s) {missing}; a tension law must provide "
            "tension(nu) [N], dtension(nu) [N] and energy(nu) [J/m], vectorised over numpy "
            "arrays (e.g. NeoHookean(k=...) or LinearElastic(EA=...))"
        )
