"""Contact laws, the one home of every law a ``ContactPair`` takes (re-exported by
``fe_contact.model``):

- ``Sliding``: bilateral contact with Coulomb friction (Lipinski (002)).
- ``Stribeck``: bilateral contact with Stribeck friction and a viscous term, regularised at
  rest as Bauchau's (000) continuous law.
- ``Unilateral``: set-valued normal and friction laws with an impact law (Eugster-Glocker (004),
  Slavic-Boltezar (003)).
- ``Compliant``: the normal force a function of the approach, not a constraint (Bauchau (000),
  sec. 7; Hunt-Crossley damping).
- ``Dropper``: a link between two material points that carries tension only (the droppers of
  an overhead contact line), a force law of the stretch.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from . import validation as check
from .coupling.impact import ImpactImpulses, newton_impact, poisson_impact

COMPLIANT_KINDS = {"linear": 1.0, "hertz": 1.5}
STEPPERS = ("generalized-alpha", "moreau", "event-driven")  # ``simulate``'s method names
FILE_LAWS: dict[str, type] = {}  # a model file's ``law = "..."`` -> the law class (``file_name``)


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def continuous_friction(v_t: float, v0: float) -> float:
    """The friction force of Bauchau's (000) continuous law, eq. (10), per unit mu F_n.

    sign(v_t) (1 - exp(-|v_t| / v0)), against the slip.

    Parameters
    ----------
    v_t : float
        Slip velocity, m/s.
    v0 : float
        Characteristic velocity of the law, m/s (> 0).

    Returns
    -------
    float
        The friction factor, in (-1, 1): the friction force is minus this times mu F_n.

    Examples
    --------
    Bauchau's (000) eq. (10): at |v_t| = v0 the friction is 1 - 1/e = 63.2 % of mu F_n:

    >>> from fe_contact.laws import continuous_friction
    >>> round(continuous_friction(0.01, 0.01), 4), round(continuous_friction(-1.0, 0.01), 4)
    (0.6321, -1.0)
    """
    return float(np.sign(v_t) * -np.expm1(-abs(v_t) / v0))


class ImpactPhase(NamedTuple):
    """One phase of an impact with Coulomb friction on the impulses.

    Normally g'+ = -e_N g'- (``expansion`` None) or, in an expansion phase, the normal impulse
    is ``expansion`` times the normal impulse of the phases before (Poisson, Slavic-Boltezar
    (003), sec. 2.2); tangentially the contact sticks with v_t+ = -e_T v_t-, or slips.

    Parameters
    ----------
    restitution_normal : float
        Newton's normal restitution e_N of the phase, in [0, 1].
    restitution_tangent : float
        Tangential restitution e_T of a sticking contact, in [0, 1].
    expansion : float or None, optional
        None (the default): a Newton phase; else the ratio of the phase's normal impulse to that
        of the phases before (Poisson's e_N).

    Examples
    --------
    See ``Unilateral.impact_phases``:

    >>> from fe_contact.laws import ImpactPhase
    >>> ImpactPhase(0.5, 0.0)
    ImpactPhase(restitution_normal=0.5, restitution_tangent=0.0, expansion=None)
    """

    restitution_normal: float
    restitution_tangent: float
    expansion: float | None = None


class ContactLaw:
    """What a stepper asks of a contact law (a frozen dataclass deriving from this class), so
    that no stepper inspects a law's type. A new friction law is a subclass of ``Sliding``,
    ``Unilateral`` or ``Compliant`` that overrides ``friction_coefficient`` (and, where its
    kinetic coefficient is not constant, the stepper families it supports keep working: the
    compiled kernels, which implement a constant mu only, are skipped, ``compiled``).

    constraint : how the contact enters the equations of motion: "bilateral" (a gap row that
    always holds, multiplier the normal force, Lipinski (002)), "unilateral" (a gap row that
    opens and closes with impacts, Eugster-Glocker (004)) or "compliant" (an applied force of
    the approach, no row, Bauchau (000) sec. 7).

    Examples
    --------
    What a stepper asks of any law, here a Sliding one with mu = 0.2, mu_s = 0.3: it sticks
    while the friction force that holds it stays within mu_s N:

    >>> from fe_contact import Sliding
    >>> law = Sliding(mu=0.2, mu_s=0.3)
    >>> law.constraint, law.static_coefficient, law.holds_stick(1.0, 0.25), law.holds_stick(1.0, 0.35)
    ('bilateral', 0.3, True, False)
    """

    constraint: ClassVar[str] = ""
    file_name: ClassVar[str | None] = None  # its ``law = "..."`` in a model file (FILE_LAWS)
    link: ClassVar[bool] = False  # a link between two points (``Dropper``), not a contact
    mu: float

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("file_name")
        if name is None:
            return
        known = FILE_LAWS.get(name)
        if known is not None and _qualified(known) != _qualified(cls):
            # the same class defined again (its module reloaded) takes its place; another
            # class would silently take over every model file that names the law
            raise ValueError(
                f"{_qualified(cls)}.file_name: got {name!r}, the model-file name of "
                f"{_qualified(known)}; allowed: a name no other law has (taken: "
                + ", ".join(repr(n) for n in FILE_LAWS)
                + ")"
            )
        FILE_LAWS[name] = cls

    @property
    def steppers(self) -> frozenset[str]:
        """The stepper families (``simulate``'s method names) that take this law."""
        return frozenset({"generalized-alpha"})

    @property
    def compiled(self) -> bool:
        """True when the compiled generalised-alpha loop (numba kernels with a constant kinetic
        coefficient and the sign of the slip) implements this law."""
        return False

    @property
    def static_coefficient(self) -> float:
        """mu_s: a sticking contact holds while |F_t| <= mu_s F_n (001 sec. 10.3.2)."""
        return self.mu

    @property
    def characteristic_velocity(self) -> float | None:
        """v0 (m/s) of a continuous friction law (Bauchau (000) eq. (10)), None for Coulomb."""
        return None

    @property
    def sticks(self) -> bool:
        """True when the slip velocity reaching zero is an event after which the contact may
        stick (Coulomb's law with mu > 0); a continuous law creeps instead."""
        return self.mu > 0.0 and self.characteristic_velocity is None

    def friction_coefficient(self, slip_speed: float) -> float:
        """The kinetic coefficient mu(|v_t|) >= 0 while the contact slips at the speed
        ``slip_speed`` = |v_t| (m/s); Coulomb's law: the constant mu (002 eq. 63)."""
        return self.mu

    def coefficient_slope(self, slip_speed: float) -> float:
        """d mu / d|v_t| (s/m) of ``friction_coefficient`` at ``slip_speed`` >= 0: 0 for a
        constant mu, else a central difference of step 1e-6 |v_t| (forward at rest); a law
        with a closed form overrides it."""
        if type(self).friction_coefficient is ContactLaw.friction_coefficient:
            return 0.0
        speed = abs(float(slip_speed))
        if speed == 0.0:
            dv = 1e-9
            return (self.friction_coefficient(dv) - self.friction_coefficient(0.0)) / dv
        dv = 1e-6 * speed
        up = self.friction_coefficient(speed + dv)
        return (up - self.friction_coefficient(speed - dv)) / (2.0 * dv)

    def friction_factor(self, slip_velocity: float, direction: float | None = None) -> float:
        """F_t / F_n of a slipping contact: its friction force on the profile is -factor F_n
        along the tangent (Lipinski (002), eq. 63; J_Sigma of eq. 71c holds W_N - factor W_T).
        ``direction`` : the slip direction the stepper holds (+1, -1, or 0 at rest), by default
        sign(v_t). A continuous law ignores it: its factor is mu(|v_t|) sign(v_t) (1 -
        exp(-|v_t| / v0)), a function of v_t (Bauchau (000), eq. (10), regularising any
        ``friction_coefficient``)."""
        v0 = self.characteristic_velocity
        if v0 is not None:
            speed = abs(float(slip_velocity))
            return continuous_friction(slip_velocity, v0) * self.friction_coefficient(speed)
        sign = np.sign(slip_velocity) if direction is None else direction
        return float(sign) * self.friction_coefficient(abs(float(slip_velocity)))

    def friction_slope(self, slip_velocity: float) -> float:
        """d factor / d v_t (s/m) at a slip velocity away from 0 (0 at rest): the exact slope
        of the continuous law, mu(|v|) exp(-|v| / v0) / v0 + (1 - exp(-|v| / v0)) mu'(|v|)
        (``coefficient_slope``), a central difference of step 1e-6 |v_t| otherwise (the
        coefficient is smooth away from rest; the step keeps the sign of v_t)."""
        v0 = self.characteristic_velocity
        if v0 is not None:
            speed = abs(float(slip_velocity))
            decay = float(np.exp(-speed / v0))
            slope = self.friction_coefficient(speed) * decay / v0
            if type(self).friction_coefficient is ContactLaw.friction_coefficient:
                return slope
            return slope - float(np.expm1(-speed / v0)) * self.coefficient_slope(speed)
        if slip_velocity == 0.0:
            return 0.0
        dv = 1e-6 * abs(slip_velocity)
        up = self.friction_factor(slip_velocity + dv)
        return (up - self.friction_factor(slip_velocity - dv)) / (2.0 * dv)

    def viscous_force(self, slip_velocity: float) -> tuple[float, float]:
        """(F_v, dF_v / dv_t): the part of the friction force on the profile (N, along the
        tangent) that does not scale with the normal force, such as the viscous term -c_v v_t
        of a lubricated contact, and its slope (N s/m); Coulomb's law has none (0, 0). A
        closed contact that slips feels -factor F_n + F_v (``friction_factor``)."""
        return 0.0, 0.0

    def coulomb(self) -> bool:
        """True when the friction is Coulomb's with the constant ``mu`` (none of
        ``friction_coefficient``, ``friction_factor``, ``viscous_force`` overridden): what the
        compiled kernels and the Moreau-Jean contact problem implement."""
        own = (ContactLaw.friction_coefficient, ContactLaw.friction_factor)
        own += (ContactLaw.viscous_force,)
        methods = (self.friction_coefficient, self.friction_factor, self.viscous_force)
        return all(m.__func__ is o for m, o in zip(methods, own, strict=True))

    def holds_stick(self, normal: float, friction: float) -> bool:
        """True when a sticking contact with normal force ``normal`` (N) holds the friction
        force ``friction`` (N) within the static cone mu_s F_n (001 sec. 10.3.2; a relative
        1e-12 for the rounding of the multipliers' solve)."""
        return abs(friction) <= self.static_coefficient * normal * (1.0 + 1e-12)

    def file_table(self) -> dict:
        """The keys of this law in a model file's contact table (``io.model_file``): ``law``
        its ``file_name``, then every field that differs from its default; raises ValueError
        for a law without a ``file_name`` of its own (a subclass among them: its own
        coefficient would be lost)."""
        name = type(self).__dict__.get("file_name")
        if name is None:
            raise ValueError(
                f"a {type(self).__name__} law cannot be written to a model file; allowed: "
                + ", ".join(cls.__name__ for cls in FILE_LAWS.values())
            )
        table = {"law": name}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.init and value is not None and value != f.default:
                table[f.name] = value if isinstance(value, str | bool) else float(value)
        return table

    def state_name(self, closed: bool) -> str:
        """The history's state of a force-law pair (``constraint`` "compliant"): "slip" while
        its force acts (``closed``), else "open"."""
        return "slip" if closed else "open"

    def summary(self) -> str:
        """One line for ``fe-contact info``."""
        return f"{type(self).__name__}, mu = {self.mu:g}"


def file_keys(law: type) -> dict[str, object]:
    """The keys a model file's contact table gives a law class (its dataclass fields).

    Parameters
    ----------
    law : type
        A law class (``Sliding``, ``Stribeck``, ``Unilateral``, ``Compliant``, ``Dropper``).

    Returns
    -------
    dict of str to type
        Each key of the law's table -> its type, in the order of the fields.

    Examples
    --------
    >>> from fe_contact.laws import Sliding, file_keys
    >>> list(file_keys(Sliding))
    ['mu', 'mu_s', 'v0']
    """
    hints = typing.get_type_hints(law)
    return {f.name: hints[f.name] for f in dataclasses.fields(law) if f.init}


def law_from_table(name: str, values: dict) -> ContactLaw:
    """The law ``law = name`` of a model file's contact table.

    Parameters
    ----------
    name : str
        The law's name in a model file ("sliding", "stribeck", "unilateral", "compliant",
        "dropper").
    values : dict
        Its own keys (``file_keys``) -> values; absent ones take their defaults.

    Returns
    -------
    ContactLaw
        The law object.

    Raises
    ------
    ValueError
        When ``name`` is not a law of a model file, a key is not one of that law's, or a value
        is out of the law's range.

    Examples
    --------
    >>> from fe_contact.laws import law_from_table
    >>> law_from_table("sliding", {"mu": 0.2}).summary()
    'sliding, mu = 0.2'
    >>> law_from_table("sliding", {"e_n": 0.5})
    Traceback (most recent call last):
    ...
    ValueError: ...e_n...
    """
    if name not in FILE_LAWS:
        check.fail("law", name, " or ".join(repr(n) for n in FILE_LAWS))
    cls = FILE_LAWS[name]
    own = file_keys(cls)
    for key in values:
        if key not in own:
            check.fail(key, values[key], f"a key of law {name!r}: {', '.join(own)}")
    return cls(**values)


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
        (a <= 0) or while the damper would push (k a + c a' <= 0)."""
        if stretch <= 0.0:
            return 0.0, 0.0, 0.0
        tension = self.stiffness * stretch + self.damping * rate
        if tension <= 0.0:
            return 0.0, 0.0, 0.0
        return tension, self.stiffness, self.damping

    def elastic_energy(self, stretch: float) -> float:
        """k a^2 / 2 while taut (a > 0), J; zero while slack."""
        return 0.5 * self.stiffness * stretch**2 if stretch > 0.0 else 0.0

    def state_name(self, closed: bool) -> str:
        """The history's state of the link: "taut" while it pulls, else "slack"."""
        return "taut" if closed else "slack"

    def summary(self) -> str:
        return f"dropper, k = {self.stiffness:g} N/m, l0 = {self.length:g} m"


__all__ = [
    "COMPLIANT_KINDS",
    "STEPPERS",
    "Compliant",
    "ContactLaw",
    "Dropper",
    "FILE_LAWS",
    "ImpactPhase",
    "Sliding",
    "Stribeck",
    "Unilateral",
    "continuous_friction",
    "file_keys",
    "law_from_table",
]
