"""fe_contact: planar flexible multibody dynamics with sliding frictional contact.

The end-to-end path (see the README): describe a ``Model`` (a ``TreeModel``, a ``BeamSpec``,
``ContactSpec``s and ``Drive``s), ``assemble`` it into a ``System``, ``integrate`` it to a
``SimulationResult`` and ``write_pvd`` the result for ParaView.
"""

from .coupling.contact import ContactSpec
from .elements.beam import BeamSpec
from .integrate.genalpha import integrate
from .integrate.result import SimulationResult
from .io.vtk import write_pvd
from .multibody.drive import Drive
from .multibody.joints import Joint
from .multibody.tree import Body, TreeModel
from .system import LoopClosure, Model, System, assemble

__version__ = "0.1.0"

__all__ = [
    "BeamSpec",
    "Body",
    "ContactSpec",
    "Drive",
    "Joint",
    "LoopClosure",
    "Model",
    "SimulationResult",
    "System",
    "TreeModel",
    "assemble",
    "integrate",
    "write_pvd",
]
