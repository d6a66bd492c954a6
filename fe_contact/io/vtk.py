"""VTK time series for ParaView: a ``.pvd`` collection of ``.vtu`` frames written with meshio.

Frames are written as they come and the ``.pvd`` index is rewritten after every frame, so a run that
stops half-way leaves a series that ParaView opens up to the last frame written.

A frame is a list of :class:`Block` s merged into one unstructured grid (points in m, z = 0):

* :func:`beam_block`: the deflected beam as a polyline (displacement, slope, curvature, moment);
* :func:`tree_block`: the rigid bodies as lines from their joint to their points and to their
  child joints, the joints as vertices;
* :func:`contact_block`: one vertex per contact with the contact forces on the body (N), the gap
  and the slip velocity;
* :func:`string_block`: a string (Eugster-Glocker (004)) as a polyline with tension and curvature;
* :func:`disk_block`: the outline of a disk with one spoke that shows its angle.

Every cell carries the cell data ``part`` (index of its block in the frame's list of blocks) and,
where they apply, ``body`` (tree body), ``joint``, ``contact`` and ``element`` (beam or string
element); these identifiers are -1 in the blocks that do not define them, any other array is zero
there. :func:`write_pvd` writes a whole ``SimulationResult`` of a coupled system and
:class:`FrameWriter` writes states as they come. Writers never re-run physics: they evaluate only
the kinematics (positions, contact directions) of the stored states.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

import meshio
import numpy as np

from ..coupling.contact import friction_force
from ..elements.beam import Beam, evaluate
from ..elements.string import StringModel
from ..elements.string import evaluate as evaluate_string
from ..multibody.tree import TreeModel, body_poses, point_position
from ..system import System, evaluate_state

# Value of an array in the blocks that do not define it: identifiers are -1 ("none"), others 0.
_FILL = {"body": -1.0, "joint": -1.0, "contact": -1.0, "element": -1.0}

# Order of the blocks of a frame written by ``frame_blocks`` (cell data ``part``).
FRAME_PARTS = ("beam", "tree", "contacts")


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
    if isinstance(samples_per_element, bool) or not isinstance(
        samples_per_element, int | np.integer
    ):
        raise ValueError(
            f"samples_per_element must be an integer >= 1, got {samples_per_element!r}"
        )
    if samples_per_element < 1:
        raise ValueError(f"samples_per_element must be >= 1, got {samples_per_element!r}")
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
    joint placed there) are left out. Each joint is a vertex cell.
    Point data: body (index), joint (joint index at joints, -1 elsewhere).
    Cell data: body (the body a segment belongs to; for a vertex, the joint's body), joint.
    """
    poses = body_poses(tree, q)
    n = tree.n_bodies
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
        if np.any(local != 0.0):
            lines.append((body, len(point_body) - 1))
            line_body.append(body)
    for child, joint in enumerate(tree.joints):
        at_origin = joint.kind == "revolute" and tuple(joint.location) == (0.0, 0.0)
        if joint.parent is not None and not at_origin:
            lines.append((joint.parent, child))
            line_body.append(joint.parent)
    m = len(point_body)
    point_joint = np.full(m, -1.0)
    point_joint[:n] = np.arange(n)
    cells = [("vertex", np.arange(n)[:, None])]
    cell_body = [np.arange(n, dtype=float)]
    cell_joint = [np.arange(n, dtype=float)]
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


def contact_block(
    system: System,
    ev,
    multipliers,
    friction=None,
    name: str = "contacts",
) -> Block:
    """The contacts of an evaluated state as vertices carrying the contact forces on the bodies.

    ev : ``Evaluation`` of ``evaluate_state`` (its contacts give the directions).
    multipliers : (n_constraints,); entry i < n_contacts is the compressive normal force N_i in N.
    friction : None or (n_contacts,), the signed friction force along the contact tangent in N
        (the ``<name>_friction_force`` columns of a result); None computes it from Coulomb's law
        with the slip signs of ``ev``, Lipinski (002), eq. (63).
    Points: the contact points of the bodies. Point data: normal_force = N n, friction_force = F t,
    contact_force (their sum) in N (vectors, on the body, z = 0); normal, tangent (unit vectors);
    gap (m), slip_velocity (m/s), parameter (contact position x_c along the beam, m), body, contact.
    Cell data: body, contact.
    """
    model = system.model
    n_c = len(model.contacts)
    multipliers = np.asarray(multipliers, dtype=float).reshape(-1)
    if multipliers.size != system.n_constraints:
        raise ValueError(
            f"multipliers must have shape ({system.n_constraints},), got {multipliers.shape}"
        )
    if friction is not None:
        friction = np.asarray(friction, dtype=float).reshape(-1)
        if friction.size != n_c:
            raise ValueError(f"friction must have shape ({n_c},), got {friction.shape}")
    points = np.zeros((n_c, 2))
    normal_force = np.zeros((n_c, 2))
    friction_vector = np.zeros((n_c, 2))
    q_b = ev.q[system.layout.tree]
    for i, (spec, c) in enumerate(zip(model.contacts, ev.contacts, strict=True)):
        points[i] = point_position(system.tree, q_b, spec.body, system.contact_points[i])
        normal_force[i] = multipliers[i] * c.normal
        if friction is None:
            friction_vector[i] = friction_force(c, spec.mu, multipliers[i], ev.slip_sign[i])
        else:
            friction_vector[i] = friction[i] * c.tangent
    bodies = np.array([spec.body for spec in model.contacts], dtype=float)
    index = np.arange(n_c, dtype=float)
    return Block(
        name=name,
        points=points,
        cells=[("vertex", np.arange(n_c)[:, None])],
        point_data={
            "normal_force": normal_force,
            "friction_force": friction_vector,
            "contact_force": normal_force + friction_vector,
            "normal": np.array([c.normal for c in ev.contacts]).reshape(n_c, 2),
            "tangent": np.array([c.tangent for c in ev.contacts]).reshape(n_c, 2),
            "gap": np.array([c.gap for c in ev.contacts]),
            "slip_velocity": np.array([c.slip_velocity for c in ev.contacts]),
            "parameter": np.array([c.parameter for c in ev.contacts]),
            "body": bodies,
            "contact": index,
        },
        cell_data={"body": [bodies], "contact": [index]},
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


def disk_block(center, angle: float, radius: float, n: int = 48, name: str = "disk") -> Block:
    """Outline of a disk: a closed polygon of n rim points and one spoke from the centre.

    center : (2,) m. angle : rad, direction of the spoke (the disk's rotation). radius : m, > 0.
    Points: n rim points (the first at the end of the spoke), then the centre.
    """
    if not (isinstance(n, int | np.integer) and n >= 3):
        raise ValueError(f"n must be an integer >= 3, got {n!r}")
    if not np.isfinite(radius) or radius <= 0.0:
        raise ValueError(f"radius must be a positive number in m, got {radius!r}")
    center = np.asarray(center, dtype=float).reshape(2)
    phi = float(angle) + 2.0 * np.pi * np.arange(n) / n
    rim = center[None, :] + radius * np.column_stack([np.cos(phi), np.sin(phi)])
    outline = np.column_stack([np.arange(n), (np.arange(n) + 1) % n])
    lines = np.vstack([outline, [[n, 0]]])
    return Block(
        name=name,
        points=np.vstack([rim, center]),
        cells=[("line", lines)],
        point_data={},
        cell_data={},
    )


def frame_blocks(
    system: System,
    q,
    u=None,
    t: float = 0.0,
    multipliers=None,
    friction=None,
    samples_per_element: int = 8,
) -> list[Block]:
    """The blocks of one state of a coupled system, in the order of ``FRAME_PARTS``.

    q, u : (n,) coordinates and velocities (u None: zero, then friction is zero unless given).
    multipliers : (n_constraints,) or None (zero forces). friction : see :func:`contact_block`.
    Kinematics only: contact directions come from ``evaluate_state(..., constraints_only=True)``.
    """
    layout = system.layout
    q = np.asarray(q, dtype=float)
    u = np.zeros(layout.n) if u is None else np.asarray(u, dtype=float)
    extra = [(c.body, p) for c, p in zip(system.model.contacts, system.contact_points, strict=True)]
    for loop, (pa, pb) in zip(system.model.loops, system.loop_points, strict=True):
        extra.append((loop.body_a, pa))
        if loop.body_b is not None:
            extra.append((loop.body_b, pb))
    blocks = [
        beam_block(system.beam, system.beam_full(q[layout.beam]), samples_per_element),
        tree_block(system.tree, q[layout.tree], extra),
    ]
    if system.model.contacts:
        ev = evaluate_state(system, q, u, t, constraints_only=True)
        if multipliers is None:
            multipliers = np.zeros(system.n_constraints)
        blocks.append(contact_block(system, ev, multipliers, friction))
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
        if isinstance(stride, bool) or not isinstance(stride, int | np.integer) or stride < 1:
            raise ValueError(f"stride must be an integer >= 1, got {stride!r}")
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


class FrameWriter(PvdWriter):
    """A :class:`PvdWriter` for the states of one coupled system, written as a run produces them.

    ``write_state(t, q, u, multipliers, friction)`` writes the blocks of :func:`frame_blocks`
    (beam, tree, contacts) every ``stride``-th call; the ``.pvd`` index is valid after each frame.
    """

    def __init__(
        self,
        system: System,
        directory,
        name: str = "frames",
        stride: int = 1,
        samples_per_element: int = 8,
    ):
        super().__init__(directory, name, stride)
        _sample(system.beam.nodes, samples_per_element)  # validate now, not at the first frame
        self.system = system
        self.samples_per_element = samples_per_element

    def write_state(self, t: float, q, u=None, multipliers=None, friction=None) -> Path | None:
        """Write the state at time t in s (see :func:`frame_blocks`); None when skipped by stride."""
        if self._calls % self.stride:
            self._calls += 1
            return None
        blocks = frame_blocks(self.system, q, u, t, multipliers, friction, self.samples_per_element)
        return self.write(t, blocks)


def write_pvd(
    result,
    system: System,
    out_dir,
    name: str = "frames",
    stride: int = 1,
    samples_per_element: int = 8,
) -> Path:
    """Write every ``stride``-th stored step of a ``SimulationResult`` as ``OUT_DIR/NAME.pvd``.

    Each frame holds the beam, the tree and the contacts (:func:`frame_blocks`) at ``result.t[k]``
    (s); the friction forces are the recorded ``<contact>_friction_force`` columns when present.
    Returns the path of the ``.pvd`` file.
    """
    n_frames = len(result.t)
    columns = [f"{c.name}_friction_force" for c in system.model.contacts]
    recorded = all(c in result.columns for c in columns)
    friction = (
        np.column_stack([result.columns[c] for c in columns]) if columns and recorded else None
    )
    with FrameWriter(system, out_dir, name, stride, samples_per_element) as writer:
        for k in range(n_frames):
            writer.write_state(
                float(result.t[k]),
                result.q[k],
                result.u[k],
                result.multipliers[k],
                None if friction is None else friction[k],
            )
    return writer.pvd_path
