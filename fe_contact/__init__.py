"""fe_contact: planar flexible multibody dynamics with sliding frictional contact.

The end-to-end path (see the README): describe a ``Model`` (a ``TreeModel``, a ``BeamSpec``,
``ContactSpec``s and ``Drive``s), ``assemble`` it into a ``System``, integrate it with
``fe_contact.integrate.genalpha.integrate`` to a ``SimulationResult`` and ``write_pvd`` the result
for ParaView. (``integrate`` is not re-exported here: the name would hide the subpackage
``fe_contact.integrate``.)
"""

from .coupling.contact import ContactSpec
from .elements.beam import BeamSpec
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
    "write_pvd",
]
