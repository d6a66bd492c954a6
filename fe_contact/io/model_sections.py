"""What a model file holds besides the model's tables: the run's sections as frozen dataclasses.

``Simulation`` (the ``[simulation]`` table: the stepper of a run), ``InitialState`` (``[initial]``:
the state at t_start, or a static start), ``Output`` (``[output]``: what a run writes) and
``ModelFile``, a whole file's content: the ``Model`` with those three. ``io.model_file`` reads
them from a file (``load_model``), ``io.model_writer`` writes them (``save_model``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .. import validation as check
from ..model import Model
from .model_problems import MISSING, ModelFileError, Problem


@dataclass(frozen=True)
class Simulation:
    """The stepper of a run.

    Parameters
    ----------
    t_end : float
        End of the run, s.
    method : str, optional
        "generalized-alpha" (the default), "moreau" or "event-driven".
    t_start : float, optional
        Start of the run, s; 0 by default.
    h : float or None, optional
        The step, s; None (the default): the stepper's default.
    settings : mapping of str to float or int, optional
        The stepper's other settings (``rho_inf``, ``theta``, ``max_halvings``, ...); empty by
        default.

    Examples
    --------
    >>> from fe_contact.io.model_sections import Simulation
    >>> Simulation(t_end=0.6, h=1e-4, settings={"rho_inf": 0.8}).method
    'generalized-alpha'
    """

    t_end: float
    method: str = "generalized-alpha"
    t_start: float = 0.0
    h: float | None = None
    settings: Mapping[str, float | int] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "settings", dict(self.settings))

    def step(self) -> float:
        """The step in s (the stepper's default when ``h`` is None)."""
        if self.h is not None:
            return self.h
        import inspect

        if self.method == "moreau":
            from ..steppers.moreau import MoreauJean as Stepper
        elif self.method == "event-driven":
            from ..steppers.event_driven import EventDriven as Stepper
        else:
            from ..steppers.genalpha import GeneralizedAlpha as Stepper
        return inspect.signature(Stepper).parameters["h"].default


@dataclass(frozen=True)
class Output:
    """What a run writes.

    Parameters
    ----------
    frame_every : float, optional
        ParaView frames every ``frame_every`` s (0: none); 0.01 by default.
    results : tuple of str, optional
        Scalar results ``"STATISTIC:COLUMN"`` (final, initial, max, min, mean, max_abs of a
        history column) for a sweep's summary; none by default.
    plot : str or None, optional
        The result drawn against a varied parameter; None (the default): no plot.

    Examples
    --------
    >>> from fe_contact.io.model_sections import Output
    >>> Output(frame_every=0.0, results=("max:tip_normal_force",)).frame_every
    0.0
    """

    frame_every: float = 0.01
    results: tuple[str, ...] = ()
    plot: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "results", tuple(self.results))


@dataclass(frozen=True)
class InitialState:
    """The state at t_start.

    Tree coordinates and velocities (m or rad, per joint) and, per structure, its free
    coordinates q and velocities u in the order of ``system.layout``. A part left out starts at
    rest, a structure in its reference (stress-free) configuration.

    Parameters
    ----------
    tree_q : tuple of float or None, optional
        Tree coordinates, one per joint (m or rad); None (the default): zeros.
    tree_u : tuple of float or None, optional
        Tree velocities (m/s or rad/s); None (the default): at rest.
    structures : mapping of str to tuple, optional
        Structure name -> (q, u), each a tuple of float or None; empty by default.
    static : bool, optional
        Start from the static equilibrium at rest (``fe_contact.static_equilibrium``) at
        t_start, with the given coordinates as the guess (velocities must be left out); False
        by default.

    Raises
    ------
    TypeError
        When ``static`` is not a bool.
    ValueError
        When ``static`` is True while velocities are given.

    Examples
    --------
    Start a pendulum from its static equilibrium, with 0.3 rad as Newton's guess:

    >>> from fe_contact.io.model_sections import InitialState
    >>> InitialState(tree_q=(0.3,), static=True).static
    True
    """

    tree_q: tuple[float, ...] | None = None
    tree_u: tuple[float, ...] | None = None
    structures: Mapping[str, tuple[tuple[float, ...] | None, tuple[float, ...] | None]] = field(
        default_factory=dict
    )
    static: bool = False

    def __post_init__(self):
        check.instance("InitialState.static", self.static, bool, "True or False")
        moving = [k for k, (_, u) in dict(self.structures).items() if u is not None]
        if self.static and (self.tree_u is not None or moving):
            given = ["tree_u"] * (self.tree_u is not None) + [f"structures.{k}.u" for k in moving]
            check.fail("InitialState.static", True, f"a start at rest, without {', '.join(given)}")

        def floats(v):
            return None if v is None else tuple(float(x) for x in np.asarray(v).ravel())

        object.__setattr__(self, "tree_q", floats(self.tree_q))
        object.__setattr__(self, "tree_u", floats(self.tree_u))
        object.__setattr__(
            self,
            "structures",
            {name: (floats(q), floats(u)) for name, (q, u) in dict(self.structures).items()},
        )

    @classmethod
    def from_state(cls, system, q0, u0) -> InitialState:
        """The InitialState of the full state (q0, u0), each (system.layout.n,)."""
        lay = system.layout
        q0, u0 = np.asarray(q0, dtype=float), np.asarray(u0, dtype=float)
        tree = lay.n_tree > 0
        return cls(
            tree_q=q0[lay.tree] if tree else None,
            tree_u=u0[lay.tree] if tree else None,
            structures={
                name: (q0[lay.structure(name)], u0[lay.structure(name)])
                for name in lay.structure_names
            },
        )

    def state(
        self, system, source: str = "<model>", t: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """(q0, u0), each (system.layout.n,); ModelFileError when a length is wrong or, for a
        static start, when the static equilibrium at time t (s) is not found."""
        q0, u0 = system.initial_state()
        lay = system.layout
        problems = []
        parts = [("tree_q", self.tree_q, q0, lay.tree), ("tree_u", self.tree_u, u0, lay.tree)]
        for name, (q, u) in self.structures.items():
            if name not in lay.structure_names:
                known = ", ".join(lay.structure_names) or "none"
                problems.append(
                    Problem(
                        f"initial.structures.{name}", MISSING, f"no such structure; known: {known}"
                    )
                )
                continue
            parts.append((f"structures.{name}.q", q, q0, lay.structure(name)))
            parts.append((f"structures.{name}.u", u, u0, lay.structure(name)))
        for key, values, target, where in parts:
            if values is None:
                continue
            size = where.stop - where.start
            if len(values) != size:
                problems.append(
                    Problem(
                        f"initial.{key}",
                        list(values),
                        f"{len(values)} values; allowed: {size} (the layout of the assembled system)",
                    )
                )
            else:
                target[where] = values
        if problems:
            raise ModelFileError(source, problems)
        if self.static:
            from ..statics import StaticEquilibriumError, static_equilibrium

            try:
                solution = static_equilibrium(system, q0, t=t)
            except (StaticEquilibriumError, ValueError) as err:
                raise ModelFileError(source, [Problem("initial.static", True, str(err))]) from None
            return solution.q, solution.u
        return q0, u0


@dataclass(frozen=True)
class ModelFile:
    """A model file's content.

    Parameters
    ----------
    model : Model
        The model.
    simulation : Simulation or None, optional
        The stepper of a run; None (the default): none given.
    initial : InitialState, optional
        The start; at rest in the reference configuration by default.
    output : Output, optional
        What a run writes; frames every 0.01 s by default.
    source : str, optional
        Where it came from (for messages); "<model>" by default.

    Examples
    --------
    >>> from fe_contact import Body, Joint, Model, ModelFile, TreeModel
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0),), joints=(Joint("revolute"),))
    >>> ModelFile(Model(tree=tree)).simulation is None
    True
    """

    model: Model
    simulation: Simulation | None = None
    initial: InitialState = field(default_factory=InitialState)
    output: Output = field(default_factory=Output)
    source: str = field(default="<model>", compare=False)


__all__ = ["InitialState", "ModelFile", "Output", "Simulation"]
