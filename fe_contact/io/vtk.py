"""VTK time series for ParaView: a ``.pvd`` collection of ``.vtu`` frames written with meshio.

Frames are written as they come and the ``.pvd`` index is rewritten after every frame, so a run that
stops half-way leaves a series that ParaView opens up to the last frame written.

A frame is a list of :class:`Block` s merged into one unstructured grid (points in m, z = 0):

* :func:`beam_block`: the deflected beam as a polyline (displacement, slope, curvature, moment);
* :func:`tree_block`: the rigid bodies as lines from their joint to their points and to their
  child joints, the joints as vertices;
* :func:`contact_block`: the closed contact points of a step report with the contact forces on
  the profiles (N), the gap and the slip velocity;
* :func:`string_block`: a string (Eugster-Glocker (004)) as a polyline with tension and curvature;
* :func:`disk_block`: the outline of a disk with one spoke that shows its angle (a circle
  profile: tagged with its tree body, so viewers draw it as a rigid part).

Every cell carries the cell data ``part`` (index of its block in the frame's list of blocks) and,
where they apply, ``body`` (tree body), ``joint``, ``contact`` and ``element`` (beam or string
element); these identifiers are -1 in the blocks that do not define them, any other array is zero
there. :func:`geometry_blocks` draws a System at coordinates q (structures, tree, circle
profiles) and :func:`frame_blocks` the frame of a ``StepReport`` (the same plus its contacts);
``steppers.observers.VtkObserver`` writes them as the run goes and :func:`write_pvd` afterwards
from a result with its reports. Writers never re-run physics: positions come from q, forces and
contact directions from the reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

import meshio
import numpy as np

from .. import validation as check
from ..elements.beam import Beam, evaluate
from ..elements.string import StringModel
from ..elements.string import evaluate as evaluate_string
from ..model import Circle, Profile
from ..multibody.tree import TreeModel, body_poses, point_position
from ..structures import BeamStructure
from ..system import System

# Value of an array in the blocks that do not define it: identifiers are -1 ("none"), others 0.
_FILL = {"body": -1.0, "joint": -1.0, "contact": -1.0, "element": -1.0}
STATE_CODES = {"open": 0, "slip": 1, "stick": 2}  # the contact state as a number for ParaView


@dataclass(frozen=True)
class Block:
    """One named piece of a frame: points (m, 2 or 3) m, polyline/vertex cells, point and cell data.

    cells : list of (kind, connectivity), kind "line" with (k, 2) or "vertex" with (k, 1) indices
    into ``points``. point_data : name -> (m,) or (m, 2 or 3) array (2 components are written with
    z = 0). cell_data : name -> list with one (k,) array per entry of ``cells``.
    """

    name: str
    points: np.ndarray
    cells: list
    point_data: dict
    cell_data: dict = field(default_factory=dict)


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

    u : (n_dofs,) full beam DOF vector in m and rad (``System.beam_full(q[layout.beam])``).
    Points: ``samples_per_element * n_elements + 1`` material points at equal steps in each element.
    Point data: displacement (vector, m), slope (rad), curvature (1/m), bending_moment (E I w'', N m).
    Cell data: element (id of the element each segment belongs to).
    """
    x = _sample(beam.nodes, samples_per_element)
    fields = evaluate(beam, u, x)
    displacement = beam.n0[None, :] * fields.deflection[:, None]
    points = beam.origin[None, :] + x[:, None] * beam.t0[None, :] + displacement
    element = np.repeat(np.arange(beam.n_elements), samples_per_element)
    return Block(
        name=name,
        points=points,
        cells=[("line", _segments(x.size))],
        point_data={
            "displacement": displacement,
            "slope": fields.slope,
            "curvature": fields.curvature,
            "bending_moment": beam.spec.bending_stiffness * fields.curvature,
        },
        cell_data={"element": [element]},
    )


def tree_block(
    tree: TreeModel,
    q,
    extra_points: Sequence[tuple[int, tuple[float, float]]] = (),
    name: str = "tree",
) -> Block:
    """The rigid bodies at the joint coordinates q, shape (n_bodies,), Lipinski (002), eq. (1).

    Points: the joints first (point i = origin of body i's frame, at joint i), then the named points
    of ``tree.points``, then ``extra_points`` (body, (x, y) in m in the body's frame, e.g. contact
    points). Body b is drawn as line segments from its joint to each of its points and to the joint
    of each child; segments that keep zero length (a point at the body's origin, a revolute child
    joint placed there) are left out. Each joint is a vertex cell. A body without mass and
    inertia is a kinematic carrier (the x and y sliders of ``floating_body``, 002 sec. 2): its
    segments and its joint's vertex are left out (its points stay, so point i is still joint i).
    Point data: body (index), joint (joint index at joints, -1 elsewhere).
    Cell data: body (the body a segment belongs to; for a vertex, the joint's body), joint.
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
    point_joint = np.full(m, -1.0)
    point_joint[:n] = np.arange(n)
    drawn = np.array([b for b in range(n) if not carrier[b]], dtype=int)
    cells, cell_body, cell_joint = [], [], []
    if drawn.size:
        cells.append(("vertex", drawn[:, None]))
        cell_body.append(drawn.astype(float))
        cell_joint.append(drawn.astype(float))
    if lines:
        cells.append(("line", np.asarray(lines, dtype=int).reshape(-1, 2)))
        cell_body.append(np.asarray(line_body, dtype=float))
        cell_joint.append(np.full(len(lines), -1.0))
    return Block(
        name=name,
        points=np.concatenate(points),
        cells=cells,
        point_data={"body": np.asarray(point_body, dtype=float), "joint": point_joint},
        cell_data={"body": cell_body, "joint": cell_joint},
    )


def string_block(
    string_model: StringModel, q, samples_per_element: int = 8, name: str = "string"
) -> Block:
    """A string at the coordinates q, shape (n_dofs,), as a polyline, Eugster-Glocker (004).

    Points: the current positions r(s) of ``samples_per_element * n_elements + 1`` material points
    at equal steps in each element. Point data: displacement r(s) - r_ref(s) (vector, m), tangent
    (unit vector), curvature (1/m, positive counter-clockwise), stretch (-), tension (N).
    Cell data: element.
    """
    s = _sample(string_model.nodes, samples_per_element)
    state = evaluate_string(string_model, np.asarray(q, dtype=float), s)
    reference = evaluate_string(string_model, string_model.q_ref, s)
    element = np.repeat(np.arange(string_model.n_elements), samples_per_element)
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

    center : (2,) m. angle : rad, direction of the spoke (the disk's rotation). radius : m, > 0.
    body : the tree body the disk belongs to (written as point and cell data ``body``, so that
    viewers draw it as a rigid part), or None (-1: a free-standing outline).
    Points: n rim points (the first at the end of the spoke), then the centre.
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
        point_data["body"] = np.full(n + 1, float(body))
        cell_data["body"] = [np.full(len(lines), float(body))]
    return Block(
        name=name,
        points=np.vstack([rim, center]),
        cells=[("line", lines)],
        point_data=point_data,
        cell_data=cell_data,
    )


def contact_block(system: System, report, name: str = "contacts") -> Block:
    """The closed contact points of a StepReport as vertices carrying the forces on the profiles.

    Point data: normal_force, friction_force, contact_force (vectors, N; for an impulsive
    stepper the mean force of the step), normal, tangent (unit vectors), gap (m),
    slip_velocity (m/s), parameter (material coordinate on the target, m; -1 on a line),
    contact (index of the pair in the model), state (``STATE_CODES``: 0 open, 1 slip, 2 stick). When no point is closed the block holds one
    vertex at the first profile's centre with zero forces and contact = -1, so that every frame
    of a series carries the same arrays.
    """
    rows = []
    for k, c in enumerate(report.contacts):
        for i in range(c.n_points):
            rows.append((k, c, i))
    if not rows:
        centre = _profile_centres(system, report.q)
        point = centre[0] if len(centre) else np.zeros(2)
        zero2 = np.zeros((1, 2))
        return Block(
            name=name,
            points=point[None, :],
            cells=[("vertex", np.zeros((1, 1), dtype=int))],
            point_data={
                "normal_force": zero2,
                "friction_force": zero2,
                "contact_force": zero2,
                "normal": zero2,
                "tangent": zero2,
                "gap": np.zeros(1),
                "slip_velocity": np.zeros(1),
                "parameter": -np.ones(1),
                "contact": -np.ones(1),
                "state": np.zeros(1),
            },
            cell_data={"contact": [-np.ones(1)]},
        )
    points = np.array([c.point[i] for _, c, i in rows])
    normal = np.array([c.normal[i] for _, c, i in rows])
    tangent = np.array([c.tangent[i] for _, c, i in rows])
    fn = np.array([c.normal_force[i] for _, c, i in rows])
    ft = np.array([c.friction_force[i] for _, c, i in rows])
    parameter = np.array([c.parameter[i] for _, c, i in rows])
    index = np.array([k for k, _, _ in rows], dtype=float)
    return Block(
        name=name,
        points=points,
        cells=[("vertex", np.arange(len(rows))[:, None])],
        point_data={
            "normal_force": fn[:, None] * normal,
            "friction_force": ft[:, None] * tangent,
            "contact_force": fn[:, None] * normal + ft[:, None] * tangent,
            "normal": normal,
            "tangent": tangent,
            "gap": np.array([c.gap[i] for _, c, i in rows]),
            "slip_velocity": np.array([c.slip_velocity[i] for _, c, i in rows]),
            "parameter": np.nan_to_num(parameter, nan=-1.0),
            "contact": index,
            "state": np.array([STATE_CODES[c.state] for _, c, _ in rows], dtype=float),
        },
        cell_data={"contact": [index]},
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
            else point_position(tree, q_t, c.profile.body, p)
            for c, p in zip(system.model.contacts, system.profile_points, strict=True)
        ]
    ).reshape(-1, 2)


def _profile_origin(system: System, profile, q) -> np.ndarray:
    from ..coupling.frames import body_frame

    q = np.asarray(q, dtype=float)
    return body_frame(system, profile.body, q, np.zeros_like(q)).origin


def profile_block(system: System, profile, q, name: str, samples: int = 200) -> Block:
    """A curved profile (``model.Profile``) at the coordinates q as a polyline of ``samples``
    points in the plane; point data ``eta`` (its parameter) and ``body`` (its tree body, -1 for
    a carried body or the plane)."""
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
        point_data={"eta": eta, "body": np.full(samples, float(body))},
    )


def structure_block(system: System, name: str, q, samples_per_element: int = 8) -> Block:
    """Structure ``name`` of the system at the system coordinates q: ``beam_block`` or
    ``string_block`` of its full DOF vector."""
    structure = system.structures[name]
    full = structure.full(np.asarray(q)[system.layout.structure(name)])
    if isinstance(structure, BeamStructure):
        return beam_block(structure.beam, full, samples_per_element, name=name)
    return string_block(structure.string, full, samples_per_element, name=name)


def geometry_blocks(system: System, q, samples_per_element: int = 8) -> list[Block]:
    """The parts of a system at the coordinates q, (n,): every structure (one polyline each,
    named after it), the tree (``"tree"``: bodies, joints, profile centres and loop points) and
    every circle profile as an outline with a spoke (``"<contact>_profile"``, tagged with its
    body). Positions only: nothing here evaluates a force.
    """
    q = np.asarray(q, dtype=float)
    if q.shape != (system.n,):
        raise ValueError(f"q has shape {q.shape}; the system has {system.n} coordinates")
    blocks = [structure_block(system, name, q, samples_per_element) for name in system.structures]
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
        if not isinstance(c.profile, Profile)
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
    model has contacts, ``contact_block`` (named ``"contacts"``, always present so that every
    frame of a series carries the same arrays).

    Writers never re-run physics: positions come from q, forces from the report.
    """
    blocks = geometry_blocks(system, report.q, samples_per_element)
    if system.model.contacts:
        blocks.append(contact_block(system, report))
    return blocks


def _as_3d(value: np.ndarray) -> np.ndarray:
    if value.ndim == 2 and value.shape[1] == 2:
        return np.column_stack([value, np.zeros(len(value))])
    return value


def _merge(blocks: list[Block]) -> meshio.Mesh:
    """One meshio mesh of all non-empty blocks; cell data ``part`` = index of the block."""
    parts = [(k, b) for k, b in enumerate(blocks) if len(b.points)]
    if not parts:
        raise ValueError("a frame needs at least one block with points")
    points, cells, part = [], [], []
    offset = 0
    for k, b in parts:
        p = _as_3d(np.asarray(b.points, dtype=float))
        points.append(p)
        for kind, conn in b.cells:
            conn = np.asarray(conn, dtype=int)
            cells.append((kind, conn + offset))
            part.append(np.full(len(conn), float(k)))
        offset += len(p)
    point_data = {}
    for name in sorted({key for _, b in parts for key in b.point_data}):
        width = next(
            np.asarray(b.point_data[name]).shape[1:] for _, b in parts if name in b.point_data
        )
        columns = []
        for (_, b), p in zip(parts, points, strict=True):
            if name in b.point_data:
                value = np.asarray(b.point_data[name], dtype=float)
            else:
                value = np.full((len(p),) + width, _FILL.get(name, 0.0))
            columns.append(_as_3d(value))
        point_data[name] = np.concatenate(columns)
    cell_data = {"part": part}
    for name in sorted({key for _, b in parts for key in b.cell_data}):
        per_block = []
        for _, b in parts:
            if name in b.cell_data:
                per_block.extend(np.asarray(v, dtype=float) for v in b.cell_data[name])
            else:
                per_block.extend(np.full(len(conn), _FILL.get(name, 0.0)) for _, conn in b.cells)
        cell_data[name] = per_block
    return meshio.Mesh(np.concatenate(points), cells, point_data=point_data, cell_data=cell_data)


class PvdWriter:
    """Writes ``DIR/NAME_00000.vtu`` frames and keeps ``DIR/NAME.pvd`` listing them with their times.

    Use as a context manager or call :meth:`close`; the index is valid after every :meth:`write`,
    also when the writing loop is left by an exception.
    """

    def __init__(self, directory, name: str = "frames", stride: int = 1):
        check.positive_int("PvdWriter.stride", stride)
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.stride = int(stride)
        self.frames: list[tuple[float, str]] = []
        self._calls = 0

    @property
    def pvd_path(self) -> Path:
        return self.directory / f"{self.name}.pvd"

    def write(self, time: float, blocks: list[Block]) -> Path | None:
        """Write one frame (every ``stride``-th call); returns its path or None when skipped."""
        call = self._calls
        self._calls += 1
        if call % self.stride:
            return None
        filename = f"{self.name}_{len(self.frames):05d}.vtu"
        meshio.write(self.directory / filename, _merge(blocks), binary=True)
        self.frames.append((float(time), filename))
        self._write_index()
        return self.directory / filename

    def _write_index(self) -> None:
        rows = "\n".join(
            f'    <DataSet timestep="{t!r}" group="" part="0" file={quoteattr(f)}/>'
            for t, f in self.frames
        )
        text = (
            '<?xml version="1.0"?>\n'
            '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
            "  <Collection>\n"
            f"{rows}\n"
            "  </Collection>\n"
            "</VTKFile>\n"
        )
        tmp = self.pvd_path.with_suffix(".pvd.tmp")
        tmp.write_text(text)
        tmp.replace(self.pvd_path)

    def close(self) -> None:
        self._write_index()

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
    its StepReport; a ValueError says so otherwise). Returns the path of the ``.pvd``."""
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
            writer.write(reports[k].t, frame_blocks(system, reports[k], samples_per_element))
    return writer.pvd_path
