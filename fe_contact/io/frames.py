"""What one frame of a series shows: the blocks of a System at coordinates q
(``geometry_blocks``), of a reported step (``frame_blocks``: the same and its contacts) and the
frame's field data (``frame_field_data``: its time, joint and sensor columns). Writers never
re-run physics: positions come from q, forces and contact directions from the reports.
"""

from __future__ import annotations

import numpy as np

from ..multibody.tree import body_poses
from ..sides import Circle, Profile
from ..structure_points import MaterialPoint
from ..system import System
from .blocks import Block
from .body_blocks import disk_block, profile_block, profile_centres, tree_block
from .contact_blocks import contact_block, link_block
from .structure_blocks import structure_block


def geometry_blocks(system: System, q, samples_per_element: int = 8) -> list[Block]:
    """The parts of a system at the coordinates q: every structure (one polyline each,
    named after it), the tree (``"tree"``: bodies, joints, profile centres and loop points) and
    every circle profile as an outline with a spoke (``"<contact>_profile"``, tagged with its
    body). Positions only: nothing here evaluates a force.

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    q : array_like, shape (n,)
        The system's coordinates (``system.layout`` names their parts).
    samples_per_element : int, optional
        Sample points per element (>= 1), 8 by default.

    Returns
    -------
    list of Block
        The structures, links, curved profiles, the tree and the circle profiles, in this
        order.

    Raises
    ------
    TypeError
        When ``samples_per_element`` is not an integer.
    ValueError
        When ``q`` is not of shape (n,) or ``samples_per_element`` is below 1.

    Examples
    --------
    Positions only (no forces): a pendulum and a cantilever at their coordinates:

    >>> from fe_contact import BeamSpec, Body, Joint, Model, TreeModel, assemble
    >>> from fe_contact.io.vtk import geometry_blocks
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),),
    ...                  points={"bob": (0, (0.5, 0.0))})
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip}))
    >>> [b.name for b in geometry_blocks(system, system.initial_state([0.3])[0])]
    ['beam', 'tree']
    """
    q = np.asarray(q, dtype=float)
    if q.shape != (system.n,):
        raise ValueError(f"q has shape {q.shape}; the system has {system.n} coordinates")
    blocks = [structure_block(system, name, q, samples_per_element) for name in system.structures]
    links = link_block(system, q)
    if links is not None:
        blocks.append(links)
    for c in system.model.contacts:  # curved profiles as polylines on their bodies
        for part, profile in (("profile", c.profile), ("target", c.target)):
            if isinstance(profile, Profile):
                blocks.append(profile_block(system, profile, q, f"{c.name}_{part}"))
    tree = system.tree
    if tree is None:
        return blocks
    q_t = q[system.layout.tree]
    extra = [
        (c.profile.body, p)
        for c, p in zip(system.model.contacts, system.profile_points, strict=True)
        if not isinstance(c.profile, Profile | MaterialPoint)
    ]
    for loop, (pa, pb) in zip(system.model.loops, system.loop_points, strict=True):
        extra.append((loop.body_a, pa))
        if loop.body_b is not None:
            extra.append((loop.body_b, pb))
    blocks.append(tree_block(tree, q_t, extra))
    angles = body_poses(tree, q_t).angle
    centres = profile_centres(system, q)
    for k, c in enumerate(system.model.contacts):
        if isinstance(c.profile, Circle):
            body = c.profile.body
            blocks.append(
                disk_block(
                    centres[k],
                    float(angles[body]),
                    c.profile.radius,
                    name=f"{c.name}_profile",
                    body=body,
                )
            )
    return blocks


def frame_blocks(system: System, report, samples_per_element: int = 8) -> list[Block]:
    """The blocks of one reported state: ``geometry_blocks`` at ``report.q`` and, when the
    model has contacts, ``contact_block`` (named ``"contacts"``, present also when it is empty,
    so that every frame of a series has the same blocks).

    Writers never re-run physics: positions come from q, forces from the report.

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    report : StepReport
        The reported step (``SimulationResult.reports``): its coordinates ``report.q`` and
        contact reports.
    samples_per_element : int, optional
        Sample points per element (>= 1), 8 by default.

    Returns
    -------
    list of Block
        ``geometry_blocks`` at ``report.q``, then the contacts block when the model has
        contacts.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium:

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
    >>> from fe_contact.io.vtk import frame_blocks
    >>> [(b.name, b.group) for b in frame_blocks(system, result.reports[-1])]
    [('beam', 'structures'), ('tree', 'bodies'), ('contacts', 'contacts')]
    """
    blocks = geometry_blocks(system, report.q, samples_per_element)
    if system.model.contacts:
        blocks.append(contact_block(system, report))
    return blocks


def frame_field_data(system: System, time: float, row) -> dict:
    """The field data of a frame: its time and the joint and sensor columns of its history row.

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    time : float
        The frame's time in s.
    row : mapping of str to float
        The history row: a dict of the columns, or of the result's columns at that row.

    Returns
    -------
    dict of str to float
        ``TimeValue`` (s, VTK's name for a data set's time) and the joint and sensor columns
        (``sensors.joint_and_sensor_columns``: ``<joint>_q``, ``<joint>_u``, every sensor's columns).

    Examples
    --------
    A pendulum released from horizontal: after 10 ms its joint angle has fallen by about
    g t^2 / (2 l) = 9.81e-4 rad (l = 0.5 m, the centre of mass):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> result = simulate(system, (0.0, 0.01), system.initial_state(), h=1e-3)
    >>> row = {name: result[name][-1] for name in result.columns}
    >>> from fe_contact.io.vtk import frame_field_data
    >>> data = frame_field_data(system, result.t[-1], row)
    >>> sorted(data), f"{data['joint_0_q']:.3g} rad"
    (['TimeValue', 'joint_0_q', 'joint_0_u'], '-0.000981 rad')
    """
    from ..sensors import joint_and_sensor_columns

    data = {"TimeValue": float(time)}
    for name, _ in joint_and_sensor_columns(system.model, system.tree):
        data[name] = float(row[name])
    return data
