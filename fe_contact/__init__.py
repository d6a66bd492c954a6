"""fe_contact: planar flexible multibody dynamics with frictional contact, on scikit-fem.

The one path through the library (see the README): describe a ``Model`` (a ``TreeModel``, named
``BeamSpec`` / ``StringSpec`` structures, ``ContactPair`` s with their laws, drives, loops,
loads, gravity), ``assemble`` it into a ``System``, ``simulate`` it with the generalised-alpha or
the Moreau-Jean stepper to a ``SimulationResult``, and let observers write the CSV history and
the ParaView series as the run goes. ``load_model`` / ``save_model`` read and write a whole run
(model, initial state, stepper, outputs) as a TOML model file. ``static_equilibrium`` gives a
consistent start at rest. A ``Scenario`` is one runnable case (model, start, time span, stepper
settings); ``fe_contact.papers`` return them.
"""

from .elements.beam_model import BeamSpec
from .elements.string import LinearElastic, NeoHookean, StringSpec, Support
from .io.model_file import ModelFileError, load_model
from .io.model_sections import ModelFile
from .io.model_writer import save_model
from .laws import Compliant, Sliding, Stribeck, Unilateral
from .model import ContactPair, LoopClosure, Model, PointLoad
from .multibody.builders import floating_body
from .multibody.drive import Drive
from .multibody.joints import Joint
from .multibody.tree import Body, TreeModel
from .rough import Polyline, Wheel
from .scenario import Scenario
from .sensors import BodyPointSensor, BodySensor, StructureSensor
from .sides import Circle, Line, Point
from .statics import StaticEquilibriumError, StaticState, static_equilibrium
from .steppers.result import SimulationResult
from .steppers.simulate import simulate
from .system import System, assemble

__version__ = "0.2.0"

__all__ = [
    "BeamSpec",
    "Body",
    "BodyPointSensor",
    "BodySensor",
    "Circle",
    "Compliant",
    "ContactPair",
    "Drive",
    "Joint",
    "Line",
    "LinearElastic",
    "LoopClosure",
    "Model",
    "ModelFile",
    "ModelFileError",
    "NeoHookean",
    "Point",
    "PointLoad",
    "Scenario",
    "SimulationResult",
    "StaticEquilibriumError",
    "StaticState",
    "Polyline",
    "Sliding",
    "Stribeck",
    "StringSpec",
    "StructureSensor",
    "Support",
    "System",
    "TreeModel",
    "Unilateral",
    "Wheel",
    "assemble",
    "floating_body",
    "load_model",
    "save_model",
    "simulate",
    "static_equilibrium",
]
