"""A runnable case: the model, its start, its time span and its stepper, in one frozen object.

``fe_contact.papers`` build their examples as a :class:`Scenario`; a demo builds one, runs it and
writes the outputs. ``Scenario.run`` is ``simulate(assemble(model), t_span, (q0, u0), method,
**settings)``, nothing more, so a scenario's history is the one of the explicit call.

What a paper computes beside the start (the manipulator's spring rest positions and initial
forces, ...) is in ``details``, a read-only mapping from names to values documented by the
function that builds the scenario; the start itself is always the pair (q0, u0), whatever the
stepper: the event-driven pin on the wheel (``papers.slavic_boltezar.pin_on_wheel``) is a
Model with a rough pair like any other, and ``simulate`` picks its stepper from ``method``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from . import validation as check
from .model import Model
from .steppers.result import SimulationResult
from .steppers.simulate import METHODS, simulate
from .system import System, assemble


def _read_only(name: str, value) -> Mapping:
    if not isinstance(value, Mapping):
        check.fail(name, value, "a mapping from names (str) to values")
    for key in value:
        if not isinstance(key, str):
            check.fail(name, value, "a mapping whose keys are names (str)")
    return MappingProxyType(dict(value))


@dataclass(frozen=True, eq=False)
class Scenario:
    """One runnable case: what ``simulate`` needs, and a name.

    Parameters
    ----------
    name : str
        What the case is (e.g. ``"capstan"``).
    model : Model
        The model.
    q0 : ndarray, shape (n,)
        Start coordinates (m and rad), laid out as ``assemble(model).layout``; stored
        read-only.
    u0 : ndarray, shape (n,)
        Start rates (m/s and rad/s), same layout; stored read-only.
    t_span : tuple of float, shape (2,)
        (t0, t_end) in s, t_end > t0.
    method : str, optional
        The stepper, as ``simulate``'s ``method``: one of ``steppers.simulate.METHODS`` or
        "auto"; "generalized-alpha" by default.
    settings : mapping, optional
        ``simulate``'s keyword arguments for this case (``h`` in s and the stepper's own:
        ``rho_inf``, ``theta``, ``max_halvings``, ``penetration``, ...); empty by default.
    details : mapping, optional
        What the paper computed beside the start (documented by the function that built the
        scenario); empty by default.

    Raises
    ------
    TypeError
        When ``model`` is not a Model, or a value has the wrong kind.
    ValueError
        When a field has the wrong type or value (named in the message): ``q0`` or ``u0``
        not a 1-d array of finite reals, ``u0`` of another shape than ``q0``, ``t_span`` not
        increasing, an unknown ``method``.

    Examples
    --------
    A point mass pendulum (1 kg at l = 0.5 m) released from horizontal, run for 20 steps of 1 ms:

    >>> from fe_contact import Body, Joint, Model, Scenario, TreeModel, assemble
    >>> pendulum = TreeModel((Body(1.0, 0.0, (0.5, 0.0)),), (Joint("revolute"),))
    >>> model = Model(tree=pendulum)
    >>> q0, u0 = assemble(model).initial_state()
    >>> case = Scenario("pendulum", model, q0, u0, (0.0, 0.02), "generalized-alpha",
    ...                 {"h": 1e-3, "rho_inf": 0.9})
    >>> result = case.run()
    >>> print(f"{result.t[-1]:.3f} s, {result.q.shape} (rows, coordinates)")
    0.020 s, (21, 1) (rows, coordinates)
    >>> print(f"{case.run(t_span=(0.0, 0.005)).t[-1]:.3f} s")  # any setting, for one run
    0.005 s
    """

    name: str
    model: Model
    q0: np.ndarray
    u0: np.ndarray
    t_span: tuple[float, float]
    method: str = "generalized-alpha"
    settings: Mapping = field(default_factory=dict)
    details: Mapping = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            check.fail("Scenario.name", self.name, "a non-empty str")
        check.instance("Scenario.model", self.model, Model, "a Model")
        for name in ("q0", "u0"):
            value = np.array(getattr(self, name), dtype=float)
            if value.ndim != 1 or not np.all(np.isfinite(value)):
                check.fail(f"Scenario.{name}", getattr(self, name), "a 1-d array of finite reals")
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        if self.q0.shape != self.u0.shape:
            check.fail(
                "Scenario.u0", f"shape {self.u0.shape}", f"shape {self.q0.shape}, the one of q0"
            )
        t_span = tuple(self.t_span)
        if len(t_span) != 2:
            check.fail("Scenario.t_span", self.t_span, "(t0, t_end) in s")
        t0 = check.real("Scenario.t_span[0]", t_span[0], unit="s")
        t_end = check.real("Scenario.t_span[1]", t_span[1], low=t0, low_open=True, unit="s")
        object.__setattr__(self, "t_span", (t0, t_end))
        check.choice("Scenario.method", self.method, (*METHODS, "auto"))
        object.__setattr__(self, "settings", _read_only("Scenario.settings", self.settings))
        object.__setattr__(self, "details", _read_only("Scenario.details", self.details))

    def __reduce__(self):
        # the read-only mappings do not pickle: rebuild from plain dicts (a run in a process pool)
        args = (self.name, self.model, self.q0, self.u0, self.t_span, self.method)
        return (Scenario, (*args, dict(self.settings), dict(self.details)))

    @property
    def y0(self) -> tuple[np.ndarray, np.ndarray]:
        """The start (q0, u0), as ``simulate`` takes it."""
        return self.q0, self.u0

    def assemble(self) -> System:
        """``assemble(self.model)``."""
        return assemble(self.model)

    def run(self, system: System | None = None, **overrides) -> SimulationResult:
        """``simulate(system, t_span, (q0, u0), method, **settings)`` with ``overrides`` replacing
        or adding any of them (``t_span``, ``method``, ``h``, ``observers``, ...).

        system : the assembled model, when the caller holds it (``self.assemble()``); None
            assembles it here. Returns the SimulationResult."""
        options = {"t_span": self.t_span, "method": self.method, **self.settings, **overrides}
        t_span = options.pop("t_span")
        method = options.pop("method")
        system = self.assemble() if system is None else system
        return simulate(system, t_span, (self.q0, self.u0), method=method, **options)


__all__ = ["Scenario"]
