"""Contact laws, the one home of every law a ``ContactPair`` takes (re-exported by
``fe_contact.model``), one module per meaning:

- ``base``: the protocol every law answers (``ContactLaw``), the model-file register
  (``FILE_LAWS``, ``file_keys``, ``law_from_table``), ``continuous_friction``, ``ImpactPhase``.
- ``friction``: ``Sliding``, bilateral contact with Coulomb friction (Lipinski (002)), and
  ``Stribeck``, bilateral contact with Stribeck friction and a viscous term, regularised at
  rest as Bauchau's (000) continuous law.
- ``unilateral``: ``Unilateral``, set-valued normal and friction laws with an impact law
  (Eugster-Glocker (004), Slavic-Boltezar (003)).
- ``compliant``: ``Compliant``, the normal force a function of the approach, not a constraint
  (Bauchau (000), sec. 7; Hunt-Crossley damping).
- ``dropper``: ``Dropper``, a link between two material points that carries tension only (the
  droppers of an overhead contact line), a force law of the stretch.

The modules are imported in this order, which is the order of ``FILE_LAWS`` (a model file's
law names as its messages list them).
"""

from __future__ import annotations

from .base import (
    FILE_LAWS,
    STEPPERS,
    ContactLaw,
    ImpactPhase,
    continuous_friction,
    file_keys,
    law_from_table,
)

# the order of FILE_LAWS (module docstring)
# isort: off
from .friction import Sliding, Stribeck
from .unilateral import Unilateral
from .compliant import COMPLIANT_KINDS, Compliant
from .dropper import Dropper

# isort: on

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
