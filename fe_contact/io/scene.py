"""A frame of a written series read back: the ``.pvd`` index (``read_series``) and what one
frame shows (``load_scene``: points, elastic and rigid lines, joints, supports and contact forces,
a ``Scene``), from the named blocks that ``io.vtk`` writes. ``io.render`` draws scenes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERTEX = 1  # VTKVERTEX
LINE = 3  # VTKLINE


@dataclass(frozen=True)
class Scene:
    """What one frame shows, in m and N (c = number of contacts).

    Parameters
    ----------
    time : float
        Time, s.
    points : ndarray, shape (m, 2)
        Points, m.
    elastic_lines : ndarray of int, shape (k, 2)
        Point indices of the segments of elastic parts.
    body_lines : ndarray of int, shape (k, 2)
        Point indices of the segments of rigid bodies.
    joints : ndarray of int, shape (j,)
        Point indices of the joints.
    contacts : ndarray of int, shape (c,)
        Point indices of the contact points.
    normal_force : ndarray, shape (c, 2)
        Normal forces on the bodies at the contacts, N.
    friction_force : ndarray, shape (c, 2)
        Friction forces on the bodies at the contacts, N.
    supports : ndarray of int, shape (s,), optional
        Point indices of the supported ends of beams; none by default.
    support_kinds : ndarray of int, shape (s,), optional
        Their kinds (``io.vtk.SUPPORT_CODES``: 1 pinned, 2 clamped).
    support_tangents : ndarray, shape (s, 2), optional
        Unit vectors along the beam into it at each support.

    Examples
    --------
    See ``load_scene``. A scene of one rigid segment and no contact:

    >>> from fe_contact.io.render import Scene
    >>> scene = Scene(0.0, np.array([[0.0, 0.0], [1.0, 0.0]]), np.zeros((0, 2), int),
    ...               np.array([[0, 1]]), np.array([0]), np.zeros(0, int), np.zeros((0, 2)),
    ...               np.zeros((0, 2)))
    >>> scene.body_lines.tolist()
    [[0, 1]]
    """

    time: float
    points: np.ndarray
    elastic_lines: np.ndarray
    body_lines: np.ndarray
    joints: np.ndarray
    contacts: np.ndarray
    normal_force: np.ndarray
    friction_force: np.ndarray
    supports: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    support_kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    support_tangents: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))


def read_series(pvd_path) -> list[tuple[float, Path]]:
    """Time and frame path of each data set listed in a ``.pvd`` file, in time order.

    pyvista's ``PVDReader`` parses the index.

    Parameters
    ----------
    pvd_path : str or os.PathLike
        The ``.pvd`` file.

    Returns
    -------
    list of tuple of (float, pathlib.Path)
        (time in s, frame path) of each frame.

    Raises
    ------
    ValueError
        When the file lists no frames.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium (4 frames, t = 0 .. 3 ms):

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
    >>> import tempfile
    >>> from fe_contact.io.vtk import write_pvd
    >>> from fe_contact.io.render import read_series
    >>> with tempfile.TemporaryDirectory() as out:
    ...     series = read_series(write_pvd(result, system, out))
    >>> [round(t, 6) for t, _ in series]
    [0.0, 0.001, 0.002, 0.003]
    """
    import pyvista as pv

    pvd_path = Path(pvd_path)
    try:
        datasets = pv.PVDReader(str(pvd_path)).datasets
    except IndexError:  # pyvista's reader indexes the first time of an empty collection
        datasets = []
    if not datasets:
        raise ValueError(f"{pvd_path} lists no frames")
    return [(float(d.time), pvd_path.parent / d.path) for d in datasets]


def _cells(grid, kind: int) -> tuple[np.ndarray, np.ndarray]:
    """Point indices (k, n) of the cells of VTK type ``kind`` (n points each) of a grid, and
    the mask of those cells among all of them."""
    import pyvista as pv

    types = np.asarray(grid.celltypes)
    mask = types == kind
    width = 1 if kind == VERTEX else 2
    cells = grid.GetCells()  # VTK's arrays: pyvista renamed its views of them in 0.49
    starts = pv.convert_array(cells.GetOffsetsArray())[:-1][mask]
    conn = pv.convert_array(cells.GetConnectivityArray())
    return conn[starts[:, None] + np.arange(width)[None, :]].reshape(-1, width), mask


def load_scene(frame_path, time: float = 0.0) -> Scene:
    """What one frame written by ``fe_contact.io.vtk`` shows (its named blocks).

    The lines of ``structures`` and those of ``bodies`` without a tree body are elastic, the
    other lines of ``bodies`` rigid, its vertices with a joint index joints; ``contacts`` gives
    the contact points and their forces.

    Parameters
    ----------
    frame_path : str or os.PathLike
        The frame's ``.vtm`` file.
    time : float, optional
        The frame's time, s; 0 by default.

    Returns
    -------
    Scene
        The frame's points, lines, joints and contact forces.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium: the last frame read back
    gives the contact force on the mass, whose vertical part is its weight m g = 0.4905 N:

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
    >>> import tempfile
    >>> from fe_contact.io.vtk import write_pvd
    >>> from fe_contact.io.render import load_scene, read_series
    >>> with tempfile.TemporaryDirectory() as out:
    ...     t, frame = read_series(write_pvd(result, system, out))[-1]
    ...     scene = load_scene(frame, t)
    >>> round(float(scene.normal_force[0, 1]), 4), len(scene.contacts)
    (0.4905, 1)
    """
    import pyvista as pv

    frame = pv.read(frame_path)
    points, elastic, bodies, joints, contacts, fn, ft = [], [], [], [], [], [], []
    supports, kinds, tangents = [], [], []
    offset = 0

    def parts(group):
        block = frame.get(group) if group in frame.keys() else None
        if block is None:
            return []
        return list(block) if isinstance(block, pv.MultiBlock) else [block]

    for group in ("structures", "bodies", "contacts"):
        for grid in parts(group):
            if grid is None or grid.n_points == 0:
                continue
            points.append(np.asarray(grid.points)[:, :2])
            lines, on_lines = _cells(grid, LINE)
            vertices, on_vertices = _cells(grid, VERTEX)
            if group == "contacts":
                contacts.append(offset + vertices[:, 0])
                fn.append(np.asarray(grid.point_data["normal_force"])[vertices[:, 0], :2])
                ft.append(np.asarray(grid.point_data["friction_force"])[vertices[:, 0], :2])
            else:
                body = grid.cell_data["body"] if "body" in grid.cell_data else None
                rigid = body[on_lines] >= 0 if body is not None else np.zeros(len(lines), bool)
                elastic.append(offset + lines[~rigid])
                bodies.append(offset + lines[rigid])
                if "joint" in grid.cell_data:
                    joints.append(offset + vertices[grid.cell_data["joint"][on_vertices] >= 0, 0])
                if "support" in grid.cell_data and len(vertices) and len(lines):
                    xy = np.asarray(grid.points)[:, :2]
                    code = np.asarray(grid.cell_data["support"])[on_vertices]
                    for k, kind in zip(vertices[code > 0, 0], code[code > 0], strict=True):
                        row = np.flatnonzero((lines == k).any(axis=1))[0]
                        other = lines[row, 1] if lines[row, 0] == k else lines[row, 0]
                        d = xy[other] - xy[k]
                        supports.append(offset + k)
                        kinds.append(int(kind))
                        tangents.append(d / (np.hypot(*d) or 1.0))
            offset += grid.n_points

    def stack(items, shape):
        return np.concatenate(items) if items else np.zeros(shape)

    return Scene(
        time=float(time),
        points=stack(points, (0, 2)),
        elastic_lines=stack(elastic, (0, 2)).astype(int),
        body_lines=stack(bodies, (0, 2)).astype(int),
        joints=stack(joints, (0,)).astype(int),
        contacts=stack(contacts, (0,)).astype(int),
        normal_force=stack(fn, (0, 2)),
        friction_force=stack(ft, (0, 2)),
        supports=np.array(supports, dtype=int),
        support_kinds=np.array(kinds, dtype=int),
        support_tangents=np.array(tangents, dtype=float).reshape(-1, 2),
    )
