"""VTK time series for ParaView: a ``.pvd`` collection of multiblock frames (``.vtm``).

Each frame ``NAME_#####.vtm`` is a VTK multiblock data set written by pyvista (VTK's XML
writer), its parts in ``NAME_#####/*.vtu`` (unstructured grids, points in m, z = 0), in named
blocks:

* ``structures``: one grid per structure, named after it: :func:`beam_block` (displacement,
  slope, curvature, bending moment) and :func:`string_block` (tension, stretch, curvature);
* ``bodies``: ``tree`` (:func:`tree_block`: the rigid bodies as lines, the joints as vertices),
  one outline per circle profile (:func:`disk_block`, ``<contact>_profile``) and per curved
  profile (:func:`profile_block`);
* ``contacts``: one grid of the closed contact points (:func:`contact_block`) with the force
  vectors (N, 3 components, z = 0; ``contact_force`` is the active vector, the default of
  ParaView's Glyph), the gap, the slip velocity, the material coordinate, the contact index and
  the state of each point (``STATE_CODES``: 0 open, 1 slip, 2 stick; a candidate grid's points
  each in its own state).

The frame itself carries field data (:func:`frame_field_data`): ``TimeValue`` (s) and the
joint and sensor columns of its history row (``<joint>_q``, ``<joint>_u``, the model's sensors,
``fe_contact.sensors``), one float64 value each, for ParaView's spreadsheet view and filters.

Each part carries only the arrays that mean something on it (no zeros on parts where an
array does not apply); identifiers (``body``, ``joint``, ``contact``, ``element``, ``state``)
are 32-bit integers. A frame with no closed contact has an empty ``contacts`` block (no file).
:func:`geometry_blocks` draws a System at coordinates q and :func:`frame_blocks` the frame of
a ``StepReport`` (the same plus its contacts); ``steppers.observers.VtkObserver`` writes them
as the run goes and :func:`write_pvd` afterwards from a result with its reports. Writers never
re-run physics: positions come from q, forces and contact directions from the reports.

The ``.pvd`` index (:class:`PvdIndex`) grows by one line per frame at a cost independent of
the number of frames before it, and is a valid file after every frame, also when the process
is killed (see the class).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import validation as check
from ..elements.beam import Beam, beam_fields
from ..elements.string import StringModel
from ..elements.string import string_points_at as evaluate_string
from ..model import Circle, MaterialPoint, Profile
from ..multibody.tree import TreeModel, body_poses, point_position
from ..steppers.result import STATE_CODES  # noqa: F401 (io.vtk.STATE_CODES, as written)
from ..structures import BeamStructure
from ..system import System
from .paraview_state import SeriesSummary, write_state_script
from .pvd import PvdIndex

GROUPS = ("structures", "bodies", "contacts")  # the top-level blocks of a frame, in order
ID = np.int32  # identifiers (body, joint, contact, element, state) as written
# a beam's cell array ``support``: its line segments 0, the vertex at a supported end 1 (pinned)
# or 2 (clamped)
SUPPORT_CODES = {"free": 0, "pinned": 1, "clamped": 2}


@dataclass(frozen=True)
class Block:
    """One named piece of a frame: points, polyline / vertex cells, point and cell data.

    Parameters
    ----------
    name : str
        The part's name in its group (a structure's name, "tree", "<contact>_profile"),
        non-empty.
    points : numpy.ndarray, shape (m, 2) or (m, 3)
        Point positions in m (2 components are written with z = 0).
    cells : list of (str, array_like)
        (kind, connectivity): kind "line" with (k, 2) or "vertex" with (k, 1) indices into
        ``points``.
    point_data : dict of str to numpy.ndarray
        name -> (m,) or (m, 2 or 3) array (2 components are written with z = 0).
    cell_data : dict of str to list of numpy.ndarray, optional
        name -> list with one (k,) array per entry of ``cells``; none by default.
    group : str, optional
        The frame's block that holds this part, one of ``GROUPS``; "structures" by default.

    Raises
    ------
    ValueError
        When ``group`` is not one of ``GROUPS`` or ``name`` is not a non-empty string.

    Examples
    --------
    Two points joined by a line, with a point array:

    >>> from fe_contact.io.vtk import Block
    >>> Block("bar", np.array([[0.0, 0.0], [1.0, 0.0]]), [("line", [[0, 1]])], {"tension": np.ones(2)}).group
    'structures'
    >>> Block("bar", np.zeros((1, 2)), [], {}, group="walls")
    Traceback (most recent call last):
    ...
    ValueError: Block.group must be one of ('structures', 'bodies', 'contacts'), got 'walls'
    """

    name: str
    points: np.ndarray
    cells: list
    point_data: dict
    cell_data: dict = field(default_factory=dict)
    group: str = "structures"

    def __post_init__(self):
        if self.group not in GROUPS:
            raise ValueError(f"Block.group must be one of {GROUPS}, got {self.group!r}")
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"Block.name must be a non-empty str, got {self.name!r}")


def _segments(n: int) -> np.ndarray:
    """Connectivity (n - 1, 2) of an open polyline through n points."""
    return np.column_stack([np.arange(n - 1), np.arange(1, n)])


def _sample(nodes: np.ndarray, samples_per_element: int) -> np.ndarray:
    """Material coordinates: ``samples_per_element`` equal steps in each element, shape (m,)."""
    check.positive_int("samples_per_element", samples_per_element)
    t = np.linspace(0.0, 1.0, samples_per_element + 1)[:-1]
    x = (nodes[:-1, None] + np.diff(nodes)[:, None] * t[None, :]).ravel()
    return np.append(x, nodes[-1])


def beam_block(
    beam: Beam, u: np.ndarray, samples_per_element: int = 8, name: str = "beam"
) -> Block:
    """The deflected beam as a polyline sampled inside each element with the Hermite shape.

    Parameters
    ----------
    beam : Beam
        The assembled beam (``elements.beam.assemble_beam``).
    u : array_like, shape (n_dofs,)
        Full beam DOF vector in m and rad (``System.beam_full(q[layout.beam])``).
    samples_per_element : int, optional
        Sample points per element (>= 1), 8 by default.
    name : str, optional
        The block's name, "beam" by default.

    Returns
    -------
    Block
        Points: ``samples_per_element * n_elements + 1`` material points at equal steps in
        each element. Point data: displacement (vector, m), slope (rad), curvature (1/m),
        bending_moment (E I w'', N m). Cells: the segments, then one vertex at each supported
        end (pinned or clamped). Cell data: element (id of the element each cell belongs to),
        support (``SUPPORT_CODES``: 0 on the segments, 1 pinned, 2 clamped).

    Raises
    ------
    TypeError
        When ``samples_per_element`` is not an integer.
    ValueError
        When ``samples_per_element`` is below 1.

    Examples
    --------
    The cantilever under 1 N at its tip: the bending moment E I w'' at the clamp is
    -P L = -0.4 N m (hogging), 0 at the tip:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam, point_load, static_deflection
    >>> beam = assemble_beam(BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11,
    ...                               density=4.7e3, width=0.01, height=0.0015))
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.io.vtk import beam_block
    >>> moment = beam_block(beam, u).point_data["bending_moment"]
    >>> round(float(moment[0]), 4), round(float(moment[-1]), 4) + 0.0
    (-0.4, 0.0)
    """
    x = _sample(beam.nodes, samples_per_element)
    fields = beam_fields(beam, u, x)
    displacement = beam.n0[None, :] * fields.deflection[:, None]
    points = beam.origin[None, :] + x[:, None] * beam.t0[None, :] + displacement
    element = np.repeat(np.arange(beam.n_elements, dtype=ID), samples_per_element)
    ends = [
        (point, el, SUPPORT_CODES[kind])
        for point, el, kind in (
            (0, 0, beam.spec.left),
            (x.size - 1, beam.n_elements - 1, beam.spec.right),
        )
        if kind != "free"
    ]
    support_vertices = np.array([[e[0]] for e in ends], dtype=np.int64).reshape(-1, 1)
    return Block(
        name=name,
        points=points,
        cells=[("line", _segments(x.size)), ("vertex", support_vertices)],
        point_data={
            "displacement": displacement,
            "slope": fields.slope,
            "curvature": fields.curvature,
            "bending_moment": beam.spec.bending_stiffness * fields.curvature,
        },
        cell_data={
            "element": [element, np.array([e[1] for e in ends], dtype=ID)],
            "support": [np.zeros(element.size, dtype=ID), np.array([e[2] for e in ends], dtype=ID)],
        },
    )


def tree_block(
    tree: TreeModel,
    q,
    extra_points: Sequence[tuple[int, tuple[float, float]]] = (),
    name: str = "tree",
) -> Block:
    """The rigid bodies at the joint coordinates q, Lipinski (002), eq. (1).

    Points: the joints first (point i = origin of body i's frame, at joint i), then the named points
    of ``tree.points``, then ``extra_points`` (body, (x, y) in m in the body's frame, e.g. contact
    points). Body b is drawn as line segments from its joint to each of its points and to the joint
    of each child; segments that keep zero length (a point at the body's origin, a revolute child
    joint placed there) are left out. Each joint is a vertex cell. A body without mass and
    inertia is a kinematic carrier (the x and y sliders of ``floating_body``, 002 sec. 2): its
    segments and its joint's vertex are left out (its points stay, so point i is still joint i).
    Point data: body (index), joint (joint index at joints, -1 elsewhere).
    Cell data: body (the body a segment belongs to; for a vertex, the joint's body), joint
    (-1 on segments). Identifiers are ``ID`` integers; group ``"bodies"``.

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.
    extra_points : sequence of (int, (float, float)), optional
        More points to draw, (body, (x, y) in m in the body's frame), e.g. contact points;
        none by default.
    name : str, optional
        The block's name, "tree" by default.

    Returns
    -------
    Block
        The bodies as line segments and the joints as vertices, in the group "bodies".

    Raises
    ------
    ValueError
        When a named or extra point is on a body that does not exist, or ``q`` is not of
        shape (n,).

    Examples
    --------
    A two-link arm: joints first (as vertices), then the tip; two segments:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.io.vtk import tree_block
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01), Body(1.0, 0.01)),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))),
    ...                 points={"tip": (1, (0.2, 0.0))})
    >>> block = tree_block(arm, [np.pi / 2, -np.pi / 2])
    >>> block.points.round(4).tolist()
    [[0.0, 0.0], [0.0, 0.2], [0.2, 0.2]]
    >>> block.point_data["joint"].tolist()
    [0, 1, -1]
    """
    poses = body_poses(tree, q)
    n = tree.n_bodies
    carrier = [b.mass == 0.0 and b.inertia == 0.0 for b in tree.bodies]
    attached = [tree.points[key] for key in tree.points] + [(b, p) for b, p in extra_points]
    points = [poses.origin]
    point_body = list(range(n))
    lines, line_body = [], []
    for body, local in attached:
        if not 0 <= body < n:
            raise ValueError(f"tree_block: body {body!r} does not exist (0..{n - 1})")
        local = np.asarray(local, dtype=float)
        points.append(point_position(tree, q, body, local)[None, :])
        point_body.append(body)
        if np.any(local != 0.0) and not carrier[body]:
            lines.append((body, len(point_body) - 1))
            line_body.append(body)
    for child, joint in enumerate(tree.joints):
        at_origin = joint.kind == "revolute" and tuple(joint.location) == (0.0, 0.0)
        if joint.parent is not None and not at_origin and not carrier[joint.parent]:
            lines.append((joint.parent, child))
            line_body.append(joint.parent)
    m = len(point_body)
    point_joint = np.full(m, -1, dtype=ID)
    point_joint[:n] = np.arange(n)
    drawn = np.array([b for b in range(n) if not carrier[b]], dtype=int)
    cells, cell_body, cell_joint = [], [], []
    if drawn.size:
        cells.append(("vertex", drawn[:, None]))
        cell_body.append(drawn.astype(ID))
        cell_joint.append(drawn.astype(ID))
    if lines:
        cells.append(("line", np.asarray(lines, dtype=int).reshape(-1, 2)))
        cell_body.append(np.asarray(line_body, dtype=ID))
        cell_joint.append(np.full(len(lines), -1, dtype=ID))
    return Block(
        name=name,
        points=np.concatenate(points),
        cells=cells,
        point_data={"body": np.asarray(point_body, dtype=ID), "joint": point_joint},
        cell_data={"body": cell_body, "joint": cell_joint},
        group="bodies",
    )


def string_block(
    string_model: StringModel, q, samples_per_element: int = 8, name: str = "string"
) -> Block:
    """A string at the coordinates q as a polyline, Eugster-Glocker (004).

    Parameters
    ----------
    string_model : StringModel
        The assembled string (``elements.string.assemble_string``).
    q : array_like, shape (n_dofs,)
        The string's full coordinates: nodal positions (m) and slopes.
    samples_per_element : int, optional
        Sample points per element (>= 1), 8 by default.
    name : str, optional
        The block's name, "string" by default.

    Returns
    -------
    Block
        Points: the current positions r(s) of ``samples_per_element * n_elements + 1``
        material points at equal steps in each element. Point data: displacement
        r(s) - r_ref(s) (vector, m), tangent (unit vector), curvature (1/m, positive
        counter-clockwise), stretch (-), tension (N). Cell data: element.

    Raises
    ------
    TypeError
        When ``samples_per_element`` is not an integer.
    ValueError
        When ``samples_per_element`` is below 1.

    Examples
    --------
    A string in its straight reference carries no tension:

    >>> from fe_contact import LinearElastic, StringSpec, Support
    >>> from fe_contact.elements.string import assemble_string
    >>> from fe_contact.io.vtk import string_block
    >>> string = assemble_string(StringSpec(length=1.0, n_elements=4, density=0.1,
    ...                                     law=LinearElastic(100.0), supports=(Support(0.0),)))
    >>> block = string_block(string, string.q_ref, samples_per_element=2)
    >>> len(block.points), float(np.abs(block.point_data["tension"]).max())
    (9, 0.0)
    """
    s = _sample(string_model.nodes, samples_per_element)
    state = evaluate_string(string_model, np.asarray(q, dtype=float), s)
    reference = evaluate_string(string_model, string_model.q_ref, s)
    element = np.repeat(np.arange(string_model.n_elements, dtype=ID), samples_per_element)
    return Block(
        name=name,
        points=state.position.T,
        cells=[("line", _segments(s.size))],
        point_data={
            "displacement": (state.position - reference.position).T,
            "tangent": state.tangent.T,
            "curvature": state.curvature,
            "stretch": state.stretch,
            "tension": state.tension,
        },
        cell_data={"element": [element]},
    )


def disk_block(
    center,
    angle: float,
    radius: float,
    n: int = 48,
    name: str = "disk",
    body: int | None = None,
) -> Block:
    """Outline of a disk: a closed polygon of n rim points and one spoke from the centre.

    Parameters
    ----------
    center : array_like, shape (2,)
        The centre in m.
    angle : float
        Direction of the spoke in rad (the disk's rotation).
    radius : float
        Radius in m, > 0.
    n : int, optional
        Number of rim points, >= 3; 48 by default.
    name : str, optional
        The block's name, "disk" by default.
    body : int or None, optional
        The tree body the disk belongs to (written as point and cell data ``body``, so that
        viewers draw it as a rigid part), or None (the default: a free-standing outline, no
        ``body`` array).

    Returns
    -------
    Block
        Points: n rim points (the first at the end of the spoke), then the centre; group
        ``"bodies"``.

    Raises
    ------
    TypeError
        When ``n`` or ``radius`` is not a number.
    ValueError
        When ``n`` is not an integer >= 3 or ``radius`` is not positive and finite.

    Examples
    --------
    A disk of radius 0.1 m: 4 rim points and its centre, the spoke along the angle:

    >>> from fe_contact.io.vtk import disk_block
    >>> block = disk_block((1.0, 0.0), np.pi / 2, 0.1, n=4)
    >>> (block.points.round(4) + 0.0).tolist()  # + 0.0: no "-0.0"
    [[1.0, 0.1], [0.9, 0.0], [1.0, -0.1], [1.1, 0.0], [1.0, 0.0]]
    """
    check.integer("n", n, low=3)
    check.real("radius", radius, low=0.0, low_open=True, unit="m")
    center = np.asarray(center, dtype=float).reshape(2)
    phi = float(angle) + 2.0 * np.pi * np.arange(n) / n
    rim = center[None, :] + radius * np.column_stack([np.cos(phi), np.sin(phi)])
    outline = np.column_stack([np.arange(n), (np.arange(n) + 1) % n])
    lines = np.vstack([outline, [[n, 0]]])
    point_data, cell_data = {}, {}
    if body is not None:
        point_data["body"] = np.full(n + 1, body, dtype=ID)
        cell_data["body"] = [np.full(len(lines), body, dtype=ID)]
    return Block(
        name=name,
        points=np.vstack([rim, center]),
        cells=[("line", lines)],
        point_data=point_data,
        cell_data=cell_data,
        group="bodies",
    )


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


def _profile_centres(system: System, q) -> np.ndarray:
    """Centres of the contact profiles at q, (n_contacts, 2), m."""
    tree = system.tree
    if tree is None:
        return np.zeros((0, 2))
    q_t = np.asarray(q)[system.layout.tree]
    return np.array(
        [
            _profile_origin(system, c.profile, q)
            if isinstance(c.profile, Profile)
            else np.full(2, np.nan)  # a link's MaterialPoint: on a structure, not a body
            if isinstance(c.profile, MaterialPoint)
            else point_position(tree, q_t, c.profile.body, p)
            for c, p in zip(system.model.contacts, system.profile_points, strict=True)
        ]
    ).reshape(-1, 2)


def _profile_origin(system: System, profile, q) -> np.ndarray:
    from ..coupling.frames import body_frame

    q = np.asarray(q, dtype=float)
    return body_frame(system, profile.body, q, np.zeros_like(q)).origin


def profile_block(system: System, profile, q, name: str, samples: int = 200) -> Block:
    """A curved profile (``model.Profile``) at the coordinates q as a polyline.

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    profile : Profile
        The curved profile, on a tree body, a carried body or fixed in the plane.
    q : array_like, shape (n,)
        The system's coordinates (``system.layout`` names their parts).
    name : str
        The block's name ("<contact>_profile", "<contact>_target").
    samples : int, optional
        Number of points, at equal steps of the curve's parameter; 200 by default.

    Returns
    -------
    Block
        ``samples`` points in the plane (m); point data ``eta`` (the curve's parameter) and
        ``body`` (its tree body, -1 for a carried body or the plane); group ``"bodies"``.

    Examples
    --------
    A parabolic profile y = x^2 fixed in the plane (body None), 5 samples:

    >>> from fe_contact import Model, Point, ContactPair, Body, Joint, TreeModel, assemble
    >>> from fe_contact.curves import Curve
    >>> from fe_contact.model import Profile
    >>> from fe_contact.io.vtk import profile_block
    >>> cup = Profile(None, Curve.bezier([(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)]))
    >>> ball = TreeModel(bodies=(Body(1.0, 0.0),), joints=(Joint("prismatic", angle=np.pi / 2),))
    >>> system = assemble(Model(tree=ball, contacts=(ContactPair("c", Point(0), cup),)))
    >>> block = profile_block(system, cup, system.initial_state()[0], "cup", samples=5)
    >>> block.points.round(4).tolist()
    [[-1.0, 1.0], [-0.5, 0.25], [0.0, 0.0], [0.5, 0.25], [1.0, 1.0]]
    """
    from ..coupling.frames import body_frame

    q = np.asarray(q, dtype=float)
    frame = body_frame(system, profile.body, q, np.zeros_like(q))
    eta = np.linspace(0.0, 1.0, samples)
    points = profile.curve.position(eta) @ frame.rotation.T + frame.origin
    body = profile.body if isinstance(profile.body, int) else -1
    return Block(
        name=name,
        points=points,
        cells=[("line", _segments(samples))],
        point_data={"eta": eta, "body": np.full(samples, body, dtype=ID)},
        group="bodies",
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


def structure_block(system: System, name: str, q, samples_per_element: int = 8) -> Block:
    """Structure ``name`` of the system at the system coordinates q: ``beam_block`` or
    ``string_block`` of its full DOF vector.

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    name : str
        The structure's name (a key of ``system.structures``), also the block's name.
    q : array_like, shape (n,)
        The system's coordinates (``system.layout`` names their parts).
    samples_per_element : int, optional
        Sample points per element (>= 1), 8 by default.

    Returns
    -------
    Block
        The structure's polyline with its arrays (see ``beam_block``, ``string_block``).

    Raises
    ------
    TypeError
        When ``samples_per_element`` is not an integer.
    ValueError
        When ``samples_per_element`` is below 1.

    Examples
    --------
    A 4-element cantilever in its reference: 4 x 8 + 1 sample points along x:

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> from fe_contact.io.vtk import structure_block
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> block = structure_block(system, "beam", system.initial_state()[0])
    >>> block.points.shape, float(block.points[-1, 0])
    ((33, 2), 0.4)
    """
    structure = system.structures[name]
    full = structure.full(np.asarray(q)[system.layout.structure(name)])
    if isinstance(structure, BeamStructure):
        return beam_block(structure.beam, full, samples_per_element, name=name)
    return string_block(structure.string, full, samples_per_element, name=name)


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
    centres = _profile_centres(system, q)
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


def _as_3d(value: np.ndarray) -> np.ndarray:
    if value.ndim == 2 and value.shape[1] == 2:
        return np.column_stack([value, np.zeros(len(value))])
    return value


def _array(value) -> np.ndarray:
    """An array as written: integers as ``ID``, anything else as float64, 2 components -> 3."""
    value = np.asarray(value)
    if np.issubdtype(value.dtype, np.integer) or value.dtype == bool:
        return value.astype(ID)
    return _as_3d(value.astype(float))


_CELL_TYPES = {"vertex": 1, "line": 3}  # VTK_VERTEX, VTK_LINE


def block_grid(block: Block):
    """A Block as a ``pyvista.UnstructuredGrid`` (points in 3D with z = 0, cells in the order of
    ``block.cells``, its arrays as written: see :func:`frame_multiblock`). A block without
    points is an empty grid without arrays (VTK cannot hold arrays of length 0 in pyvista).

    Parameters
    ----------
    block : Block
        The part to convert.

    Returns
    -------
    pyvista.UnstructuredGrid
        Points (m, 3) in m with z = 0, the cells and the arrays of ``block``.

    Raises
    ------
    ValueError
        When a cell kind is neither "vertex" nor "line".

    Examples
    --------
    The cantilever under 1 N as a pyvista grid: 3D points (z = 0) and its arrays:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam, point_load, static_deflection
    >>> beam = assemble_beam(BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11,
    ...                               density=4.7e3, width=0.01, height=0.0015))
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.io.vtk import beam_block, block_grid
    >>> grid = block_grid(beam_block(beam, u))
    >>> grid.n_points, grid.points.shape[1], sorted(grid.point_data.keys())
    (33, 3, ['bending_moment', 'curvature', 'displacement', 'slope'])
    """
    import pyvista as pv

    if not len(block.points):
        return pv.UnstructuredGrid()
    points = _as_3d(np.asarray(block.points, dtype=float).reshape(len(block.points), -1))
    connectivity, types = [], []
    for kind, conn in block.cells:
        if kind not in _CELL_TYPES:
            raise ValueError(f"cell kind must be one of {tuple(_CELL_TYPES)}, got {kind!r}")
        conn = np.asarray(conn, dtype=np.int64).reshape(len(conn), -1)
        connectivity.append(np.column_stack([np.full(len(conn), conn.shape[1]), conn]).ravel())
        types.append(np.full(len(conn), _CELL_TYPES[kind], dtype=np.uint8))
    if types:
        grid = pv.UnstructuredGrid(np.concatenate(connectivity), np.concatenate(types), points)
    else:
        grid = pv.UnstructuredGrid()
        grid.points = points
    for name, value in block.point_data.items():
        grid.point_data[name] = _array(value)
    for name, values in block.cell_data.items():
        grid.cell_data[name] = _array(np.concatenate([np.asarray(v) for v in values]))
    if "contact_force" in grid.point_data:
        grid.set_active_vectors("contact_force")  # what ParaView's Glyph orients by default
    return grid


def frame_multiblock(blocks: Sequence[Block], field_data=None):
    """The frame as a ``pyvista.MultiBlock``.

    Parameters
    ----------
    blocks : sequence of Block
        The parts of the frame; names distinct within a group, at most one contacts block,
        at least one block with points.
    field_data : dict of str to float, optional
        name -> value, written as one-value float64 arrays of the frame's own field data
        (``frame_field_data``); None (the default): none.

    Returns
    -------
    pyvista.MultiBlock
        The top-level blocks ``GROUPS`` that have parts: ``structures`` and ``bodies`` each a
        MultiBlock of grids named after their blocks, ``contacts`` one grid (an empty grid
        when no point is closed).

    Raises
    ------
    ValueError
        When two blocks of a group share a name, no block has points, there is more than one
        contacts block, or a cell kind is unknown.

    Examples
    --------
    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam, point_load, static_deflection
    >>> beam = assemble_beam(BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11,
    ...                               density=4.7e3, width=0.01, height=0.0015))
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.io.vtk import beam_block, frame_multiblock
    >>> frame = frame_multiblock([beam_block(beam, u)])
    >>> frame.keys(), frame["structures"].keys()
    (['structures'], ['beam'])
    """
    import pyvista as pv

    for group in GROUPS:
        names = [b.name for b in blocks if b.group == group]
        if len(set(names)) != len(names):
            raise ValueError(f"the {group} blocks of a frame need distinct names, got {names}")
    if not any(len(b.points) for b in blocks):
        raise ValueError("a frame needs at least one block with points")
    frame = pv.MultiBlock()
    for group in GROUPS:
        members = [b for b in blocks if b.group == group]
        if not members:
            continue
        if group == "contacts":
            if len(members) > 1:
                raise ValueError(f"a frame holds one contacts block, got {len(members)}")
            frame[group] = block_grid(members[0])
        else:
            frame[group] = pv.MultiBlock({b.name: block_grid(b) for b in members})
    for name, value in (field_data or {}).items():
        frame.field_data[name] = np.array([float(value)])
    return frame


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


class PvdWriter:
    """Writes the frames ``DIR/NAME_#####.vtm`` (with their parts in ``DIR/NAME_#####/``) and
    keeps ``DIR/NAME.pvd`` listing them with their times (:class:`PvdIndex`), and beside it the
    ParaView state script ``DIR/NAME.pvsm.py`` (``io.paraview_state``: written with the first
    frame and again on :meth:`close`, from the frames' data).

    Use as a context manager or call :meth:`close`; the index is valid after every :meth:`write`,
    also when the writing loop is left by an exception or the process is killed: a frame is
    listed once its files are written.

    Parameters
    ----------
    directory : str or os.PathLike
        The output directory DIR, made if missing.
    name : str, optional
        The series' name NAME, a file name without "/"; "frames" by default.
    stride : int, optional
        Write every ``stride``-th call of :meth:`write` (>= 1); 1 by default.

    Raises
    ------
    TypeError
        When ``stride`` is not an integer.
    ValueError
        When ``stride`` is below 1 or ``name`` is empty or holds a "/".

    Examples
    --------
    Two frames of the cantilever (at rest, then under 1 N at the tip); the series and its
    ParaView state script:

    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam, point_load, static_deflection
    >>> beam = assemble_beam(BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11,
    ...                               density=4.7e3, width=0.01, height=0.0015))
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> import tempfile, pathlib
    >>> from fe_contact.io.vtk import PvdWriter, beam_block
    >>> with tempfile.TemporaryDirectory() as out:
    ...     with PvdWriter(out, "tip_load") as writer:
    ...         _ = writer.write(0.0, [beam_block(beam, 0 * u)])
    ...         _ = writer.write(1.0, [beam_block(beam, u)])
    ...     files = sorted(p.name for p in pathlib.Path(out).iterdir() if p.is_file())
    >>> writer.frames
    [(0.0, 'tip_load_00000.vtm'), (1.0, 'tip_load_00001.vtm')]
    >>> files
    ['tip_load.pvd', 'tip_load.pvsm.py', 'tip_load_00000.vtm', 'tip_load_00001.vtm']
    """

    def __init__(self, directory, name: str = "frames", stride: int = 1):
        check.positive_int("PvdWriter.stride", stride)
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(f"PvdWriter.name must be a file name without '/', got {name!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.stride = int(stride)
        self.frames: list[tuple[float, str]] = []
        self._calls = 0
        self.index = PvdIndex(self.pvd_path)
        self.summary = SeriesSummary()

    @property
    def pvd_path(self) -> Path:
        return self.directory / f"{self.name}.pvd"

    def write(self, time: float, blocks: list[Block], field_data=None) -> Path | None:
        """Write one frame (every ``stride``-th call) with its field_data (None, or name ->
        float: ``frame_field_data``); returns its path or None when skipped."""
        call = self._calls
        self._calls += 1
        if call % self.stride:
            return None
        filename = f"{self.name}_{len(self.frames):05d}.vtm"
        frame_multiblock(blocks, field_data).save(self.directory / filename, binary=True)
        self.frames.append((float(time), filename))
        self.index.append(time, filename)
        self.summary.add(blocks)
        if len(self.frames) == 1:
            write_state_script(self.pvd_path, self.summary)
        return self.directory / filename

    def close(self) -> None:
        self.index.compact()
        if self.frames:
            write_state_script(self.pvd_path, self.summary)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def write_pvd(
    result,
    system: System,
    out_dir,
    name: str = "frames",
    stride: int = 1,
    samples_per_element: int = 8,
) -> Path:
    """Write every ``stride``-th stored state of a SimulationResult (and the last) as the
    ParaView series ``OUT_DIR/NAME.pvd``: for a run with ``store_every=1`` the very frames
    that ``VtkObserver(OUT_DIR, NAME, stride)`` writes as the run goes.
    The result must have been run with ``keep_reports=True`` (the forces of a frame come from
    its StepReport).

    Parameters
    ----------
    result : SimulationResult
        The run, with its step reports (``simulate(..., keep_reports=True)``).
    system : System
        The assembled system the result was run on.
    out_dir : str or os.PathLike
        The output directory OUT_DIR, made if missing.
    name : str, optional
        The series' name NAME, "frames" by default.
    stride : int, optional
        Write every ``stride``-th stored state (>= 1) and the last; 1 by default.
    samples_per_element : int, optional
        Sample points per element (>= 1), 8 by default.

    Returns
    -------
    pathlib.Path
        The path of the ``.pvd``.

    Raises
    ------
    TypeError
        When ``stride`` or ``samples_per_element`` is not an integer.
    ValueError
        When ``stride`` is below 1, ``name`` is empty or holds a "/", or the result keeps no
        step reports.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium, written as a ParaView series (with its
    state script ``frames.pvsm.py``):

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
    >>> import tempfile, pathlib
    >>> from fe_contact.io.vtk import write_pvd
    >>> with tempfile.TemporaryDirectory() as out:
    ...     pvd = write_pvd(result, system, out)
    ...     names = sorted(p.name for p in pathlib.Path(out).glob("frames*.*"))
    >>> pvd.name, names[:3]
    ('frames.pvd', ['frames.pvd', 'frames.pvsm.py', 'frames_00000.vtm'])
    """
    check.positive_int("write_pvd.stride", stride)
    reports = result.reports
    if not reports or len(reports) != len(result.t):
        raise ValueError(
            "write_pvd: the result keeps no step reports; run simulate(..., keep_reports=True) "
            "or write the series as the run goes with steppers.observers.VtkObserver"
        )
    rows = list(range(0, len(reports), stride))
    if rows[-1] != len(reports) - 1:
        rows.append(len(reports) - 1)
    with PvdWriter(out_dir, name) as writer:
        for k in rows:
            row = {c: values[k] for c, values in result.columns.items()}
            blocks = frame_blocks(system, reports[k], samples_per_element)
            writer.write(reports[k].t, blocks, frame_field_data(system, reports[k].t, row))
    return writer.pvd_path
