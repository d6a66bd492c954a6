"""A link between two material points that carries tension only, a force law of its stretch
(the droppers of an overhead contact line): ``Dropper``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from .. import validation as check
from .base import ContactLaw


@dataclass(frozen=True)
class Dropper(ContactLaw):
    """A dropper: a link between two points that carries tension only.

    Its sides are ``structure_points.MaterialPoint`` objects, or a body ``Point`` and a material
    point. With the distance l between its clamps and its unstretched length l0, the stretch is
    a = l - l0; the tension is

        T = k a + c a'   while a > 0 and k a + c a' > 0, else 0 (slack),

    and it pulls each clamp towards the other (a force law of the generalised-alpha stepper: its
    tangent k enters the iteration matrix while it is taut). Its elastic energy k a^2 / 2
    (a > 0) is part of the elastic energy, its damping power (T - k a) a' >= 0 is dissipated.

    The stepper's vocabulary of a compliant contact (``Compliant``) applies with the approach
    read as the stretch: ``normal_force`` is the tension, the state is "taut" or "slack".
    ``law = "dropper"`` in a model file, its sides ``material_point`` tables.

    Parameters
    ----------
    stiffness : float
        Axial stiffness k, N/m (> 0).
    length : float
        Unstretched length l0, m (> 0).
    damping : float, optional
        Axial damping c, N s/m (>= 0); 0 by default.
    mass : float, optional
        The dropper's own mass, kg (>= 0; 0 by default), half lumped at each clamp (with its
        weight; structure sides only).

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``stiffness`` or ``length`` is not positive, or ``damping`` or ``mass`` is
        negative.

    Examples
    --------
    A 1 m dropper of 1e5 N/m stretched by 1 mm pulls with 100 N and stores 0.05 J; shortened,
    it is slack:

    >>> from fe_contact.laws import Dropper
    >>> d = Dropper(stiffness=1e5, length=1.0)
    >>> tension, energy = d.normal_force(1e-3, 0.0)[0], d.elastic_energy(1e-3)
    >>> print(f"{tension:.4g} N, {energy:.4g} J, slack: {d.normal_force(-1e-3, 0.0)[0]} N")
    100 N, 0.05 J, slack: 0.0 N
    >>> d.state_name(True), d.state_name(False)
    ('taut', 'slack')
    >>> Dropper(stiffness=0.0, length=1.0)
    Traceback (most recent call last):
    ...
    ValueError: Dropper.stiffness: got 0.0; allowed: a finite number > 0 in N/m
    """

    stiffness: float
    length: float
    damping: float = 0.0
    mass: float = 0.0

    constraint: ClassVar[str] = "compliant"  # a force law: no constraint row
    link: ClassVar[bool] = True
    file_name: ClassVar[str | None] = "dropper"
    mu: ClassVar[float] = 0.0
    mu_s: ClassVar[float] = 0.0
    v0: ClassVar[float | None] = None
    rolling: ClassVar[bool] = False
    exponent: ClassVar[float] = 1.0

    def __post_init__(self):
        k = check.real("Dropper.stiffness", self.stiffness, low=0.0, low_open=True, unit="N/m")
        object.__setattr__(self, "stiffness", k)
        length = check.real("Dropper.length", self.length, low=0.0, low_open=True, unit="m")
        object.__setattr__(self, "length", length)
        c = check.real("Dropper.damping", self.damping, low=0.0, unit="N s/m")
        object.__setattr__(self, "damping", c)
        object.__setattr__(self, "mass", check.real("Dropper.mass", self.mass, low=0.0, unit="kg"))

    def normal_force(self, stretch: float, rate: float) -> tuple[float, float, float]:
        """(T, dT/da, dT/da') at the stretch a (m) and its rate a' (m/s): zero while slack
        (a <= 0) or while the damper would push (k a + c a' <= 0); ``dropper_tension``."""
        tension, k, c = dropper_tension(self.stiffness, self.damping, stretch, rate)
        return float(tension), float(k), float(c)

    def elastic_energy(self, stretch: float) -> float:
        """k a^2 / 2 while taut (a > 0), J; zero while slack; ``dropper_energy``."""
        return float(dropper_energy(self.stiffness, stretch))

    @property
    def compiled(self) -> bool:
        # the compiled step's links (``kernels.links``) evaluate this class's tension and energy
        return self._inherits(Dropper, ("normal_force", "elastic_energy"))

    def state_name(self, closed: bool) -> str:
        """The history's state of the link: "taut" while it pulls, else "slack"."""
        return "taut" if closed else "slack"

    def summary(self) -> str:
        return f"dropper, k = {self.stiffness:g} N/m, l0 = {self.length:g} m"


def dropper_tension(stiffness, damping, stretch, rate):
    """The tension of ``Dropper`` laws and its derivatives, elementwise over arrays of one
    shape (or floats): T = k a + c a' while a > 0 and k a + c a' > 0, else zero with its
    derivatives (slack).

    Parameters
    ----------
    stiffness : float or numpy.ndarray
        k, N/m.
    damping : float or numpy.ndarray
        c, N s/m.
    stretch : float or numpy.ndarray
        a = l - l0, m.
    rate : float or numpy.ndarray
        a', m/s.

    Returns
    -------
    tuple of numpy.ndarray
        (T in N, dT/da in N/m, dT/da' in N s/m).

    Examples
    --------
    Stretched by 1 mm, shortened, and stretched but closing fast enough that the damper
    would push:

    >>> from fe_contact.laws.dropper import dropper_tension
    >>> tension, slope, _ = dropper_tension(1e5, 50.0, [1e-3, -1e-3, 1e-3], [0.0, 0.0, -3.0])
    >>> tension.tolist(), slope.tolist()
    ([100.0, 0.0, 0.0], [100000.0, 0.0, 0.0])
    """
    k, c, a, r = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (stiffness, damping, stretch, rate))
    )
    out = _tensions(k.ravel(), c.ravel(), a.ravel(), r.ravel())
    return out[0].reshape(a.shape), out[1].reshape(a.shape), out[2].reshape(a.shape)


def dropper_energy(stiffness, stretch):
    """The elastic energy k a^2 / 2 of ``Dropper`` laws while taut (a > 0), zero while slack;
    elementwise, as ``dropper_tension``.

    Parameters
    ----------
    stiffness : float or numpy.ndarray
        k, N/m.
    stretch : float or numpy.ndarray
        a = l - l0, m.

    Returns
    -------
    numpy.ndarray
        The energy, J.

    Examples
    --------
    >>> from fe_contact.laws.dropper import dropper_energy
    >>> print([f"{e:.6g} J" for e in dropper_energy(1e5, [1e-3, -1e-3])])
    ['0.05 J', '0 J']
    """
    k, a = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (stiffness, stretch)))
    return _energies(k.ravel(), a.ravel()).reshape(a.shape)


@njit(cache=True)
def dropper_force(stiffness, damping, stretch, rate):
    """(T, dT/da, dT/da') of one ``Dropper`` at the stretch a and its rate a' (floats; k, c
    its stiffness and damping): the law of ``dropper_tension``, which evaluates it elementwise,
    and of the compiled step's links (``kernels.links``)."""
    tension = stiffness * stretch + damping * rate
    if stretch <= 0.0 or tension <= 0.0:  # slack (a NaN tension is passed on)
        return 0.0, 0.0, 0.0
    return tension, stiffness, damping


@njit(cache=True)
def dropper_elastic(stiffness, stretch):
    """The elastic energy k a^2 / 2 of one ``Dropper`` while a > 0, else 0 (floats): the
    formula of ``dropper_energy`` and of the compiled step's links (``kernels.links``)."""
    if stretch > 0.0:
        return 0.5 * stiffness * (stretch * stretch)
    return 0.0


@njit(cache=True)
def _tensions(stiffness, damping, stretch, rate):
    """``dropper_force`` over arrays (L,): (3, L) rows T, dT/da, dT/da'."""
    out = np.empty((3, stretch.size))
    for i in range(stretch.size):
        out[0, i], out[1, i], out[2, i] = dropper_force(
            stiffness[i], damping[i], stretch[i], rate[i]
        )
    return out


@njit(cache=True)
def _energies(stiffness, stretch):
    """``dropper_elastic`` over arrays (L,)."""
    out = np.empty(stretch.size)
    for i in range(stretch.size):
        out[i] = dropper_elastic(stiffness[i], stretch[i])
    return out


__all__ = ["Dropper", "dropper_energy", "dropper_tension"]
