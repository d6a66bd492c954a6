"""The blocks of the contact pairs: the closed contact points of a StepReport with their forces
(``contact_block``, the group ``"contacts"``) and the links between two points
(``link_block``). Forces and directions come from the report: nothing is recomputed.
"""

from __future__ import annotations

import numpy as np

from ..multibody.tree import point_position
from ..structure_points import MaterialPoint
from ..system import System
from .blocks import ID, Block


def contact_block(system: System, report, name: str = "contacts") -> Block:
    """The closed contact points of a StepReport as vertices carrying the forces on the profiles.

    Point data: normal_force, friction_force, contact_force (vectors, N; for an impulsive
    stepper the mean force of the step, the impulse over h), normal, tangent (unit vectors),
    gap (m), slip_velocity (m/s), parameter (material coordinate s on the target, m; -1 on a
    line), contact (index of the pair in the model), state (the point's,
    ``ContactReport.states``, as ``STATE_CODES``: 0 open (a closed candidate without normal
    impulse), 1 slip, 2 stick; each candidate of a grid has its own).
    Cell data: contact. With no closed point the block has no points (its arrays have length
    0). Group ``"contacts"``.

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    report : StepReport
        The reported step (``simulate(..., keep_reports=True)``, ``SimulationResult.reports``)
        whose contact reports give the points, directions and forces.
    name : str, optional
        The block's name, "contacts" by default.

    Returns
    -------
    Block
        One vertex per closed contact point with the arrays above.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium: the vertical part of the contact force on the
    mass carries its weight, m g = 0.4905 N (the normal of the deflected beam leans, so the force
    has a horizontal part, which the slider's guide takes):

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> from fe_contact.io.vtk import contact_block
    >>> block = contact_block(system, result.reports[-1])
    >>> round(float(block.point_data["contact_force"][0, 1]), 4), block.group
    (0.4905, 'contacts')
    """
    rows = [(k, c, i) for k, c in enumerate(report.contacts) for i in range(c.n_points)]

    def column(values, width=None):
        shape = (len(rows),) if width is None else (len(rows), width)
        return np.array(values, dtype=float).reshape(shape)

    normal = column([c.normal[i] for _, c, i in rows], 2)
    tangent = column([c.tangent[i] for _, c, i in rows], 2)
    fn = column([c.normal_force[i] for _, c, i in rows])
    ft = column([c.friction_force[i] for _, c, i in rows])
    index = np.array([k for k, _, _ in rows], dtype=ID)
    return Block(
        name=name,
        points=column([c.point[i] for _, c, i in rows], 2),
        cells=[("vertex", np.arange(len(rows)).reshape(-1, 1))],
        point_data={
            "normal_force": fn[:, None] * normal,
            "friction_force": ft[:, None] * tangent,
            "contact_force": fn[:, None] * normal + ft[:, None] * tangent,
            "normal": normal,
            "tangent": tangent,
            "gap": column([c.gap[i] for _, c, i in rows]),
            "slip_velocity": column([c.slip_velocity[i] for _, c, i in rows]),
            "parameter": np.nan_to_num(column([c.parameter[i] for _, c, i in rows]), nan=-1.0),
            "contact": index,
            "state": np.concatenate(
                [np.zeros(0, ID), *(c.state_codes for c in report.contacts)]
            ).astype(ID),
        },
        cell_data={"contact": [index]},
        group="contacts",
    )


def link_block(system: System, q, name: str = "links") -> Block | None:
    """The links of the model (``laws.Dropper`` pairs) as straight lines between their two
    points at q.

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    q : array_like, shape (n,)
        The system's coordinates (``system.layout`` names their parts).
    name : str, optional
        The block's name, "links" by default.

    Returns
    -------
    Block or None
        Two points (m) and one line per link; cell data: contact (the pair's index in the
        model); their tension and state are in the contacts block and the history. None when
        the model has no link.

    Examples
    --------
    One dropper between two wires 1 m apart: a vertical line at x = 1 m:

    >>> from fe_contact import BeamSpec, ContactPair, Model, assemble
    >>> from fe_contact.laws import Dropper
    >>> from fe_contact.structure_points import MaterialPoint
    >>> from fe_contact.io.vtk import link_block
    >>> wire = dict(length=2.0, n_elements=4, youngs_modulus=1.0, density=1.0, area=1.0,
    ...             second_moment=1.0, left="pinned", right="pinned")
    >>> model = Model(structures={"low": BeamSpec(**wire), "up": BeamSpec(**wire, origin=(0, 1))},
    ...               contacts=(ContactPair("d", MaterialPoint("low", 1.0), MaterialPoint("up", 1.0),
    ...                                     Dropper(stiffness=1e5, length=0.99)),))
    >>> system = assemble(model)
    >>> link_block(system, system.initial_state()[0]).points.tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    links = [k for k, c in enumerate(system.model.contacts) if c.link]
    if not links:
        return None
    lay = system.layout
    q = np.asarray(q, dtype=float)
    points = []
    for k in links:
        c = system.model.contacts[k]
        for side in (c.profile, c.target):
            if isinstance(side, MaterialPoint):
                structure = system.structures[side.structure]
                points.append(structure.curve(side.s, q[lay.structure(side.structure)]).position)
            else:
                points.append(
                    point_position(system.tree, q[lay.tree], side.body, system.profile_points[k])
                )
    index = np.array(links, dtype=ID)
    cells = np.arange(2 * len(links)).reshape(-1, 2)
    return Block(name, np.array(points), [("line", cells)], {}, {"contact": [index]})
