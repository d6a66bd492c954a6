"""What every contact law answers: the ``ContactLaw`` protocol the steppers ask (friction force
and its slope, the stick cone, the model-file table), the model-file register of laws
(``FILE_LAWS``, ``file_keys``, ``law_from_table``), Bauchau's (000) continuous friction factor and
the phases of an impact (``ImpactPhase``).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import ClassVar, NamedTuple

import numpy as np

from .. import validation as check

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
        """True when the compiled generalised-alpha step implements this law: its kernels
        evaluate the law's own formula (``Sliding``: a constant kinetic coefficient and the
        sign of the slip; frictionless ``Compliant``; ``Dropper``), so a subclass that
        overrides the formula runs on the Python step. Which contacts the step takes also
        depends on their sides (``steppers.compiled_scope.unsupported``)."""
        return False

    @property
    def compiled_friction(self) -> bool:
        """True when the compiled step's kernels evaluate this law with a friction of its own
        beyond what ``compiled`` covers (``Compliant``'s continuous law on pairs of curved
        profiles); False here."""
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
        return self._inherits(
            ContactLaw, ("friction_coefficient", "friction_factor", "viscous_force")
        )

    def _inherits(self, owner: type, names: tuple[str, ...]) -> bool:
        """True when this law's class takes each of ``names`` from ``owner`` (overrides none
        of them below it): the formulas a kernel written for ``owner`` evaluates."""
        return all(getattr(type(self), n) is getattr(owner, n) for n in names)

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


__all__ = [
    "FILE_LAWS",
    "STEPPERS",
    "ContactLaw",
    "ImpactPhase",
    "continuous_friction",
    "file_keys",
    "law_from_table",
]
