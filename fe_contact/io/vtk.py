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

The blocks are made in ``io.blocks`` (``Block``, ``GROUPS``, ``SUPPORT_CODES``),
``io.structure_blocks``, ``io.body_blocks``, ``io.contact_blocks`` and ``io.frames``; this
module turns them into VTK data sets (:func:`block_grid`, :func:`frame_multiblock`) and writes
the series (:class:`PvdWriter`, :func:`write_pvd`). Their names are importable from here too.

The ``.pvd`` index (:class:`PvdIndex`) grows by one line per frame at a cost independent of
the number of frames before it, and is a valid file after every frame, also when the process
is killed (see the class).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .. import validation as check
from ..steppers.contact_report import STATE_CODES
from ..system import System
from .blocks import GROUPS, ID, SUPPORT_CODES, Block
from .body_blocks import disk_block, profile_block, tree_block
from .contact_blocks import contact_block, link_block
from .frames import frame_blocks, frame_field_data, geometry_blocks
from .paraview_state import SeriesSummary, write_state_script
from .pvd import PvdIndex
from .structure_blocks import beam_block, string_block, structure_block

__all__ = [
    "GROUPS",
    "ID",
    "STATE_CODES",
    "SUPPORT_CODES",
    "Block",
    "PvdIndex",
    "PvdWriter",
    "beam_block",
    "block_grid",
    "contact_block",
    "disk_block",
    "frame_blocks",
    "frame_field_data",
    "frame_multiblock",
    "geometry_blocks",
    "link_block",
    "profile_block",
    "save_frame",
    "string_block",
    "structure_block",
    "tree_block",
    "write_pvd",
]


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


# zlib level of the frames' files: level 1 writes a frame of the 10-span catenary (35 000
# points) in about 50 ms where VTK's default level 5 takes about 80 ms, for 3 % more bytes
COMPRESSION_LEVEL = 1


def save_frame(frame, path) -> Path:
    """Write a frame as a VTK XML multiblock file: VTK's writer as pyvista's ``save`` sets it
    up (binary, zlib), the compression at ``COMPRESSION_LEVEL``, which pyvista does not expose.

    Parameters
    ----------
    frame : pyvista.MultiBlock
        The frame (``frame_multiblock``).
    path : str or os.PathLike
        The ``.vtm`` file; its parts go to the folder of its name beside it.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    OSError
        When VTK cannot write it (a folder that cannot be made, a full disk).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fe_contact import BeamSpec
    >>> from fe_contact.elements.beam import assemble_beam, point_load, static_deflection
    >>> beam = assemble_beam(BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11,
    ...                               density=4.7e3, width=0.01, height=0.0015))
    >>> u = static_deflection(beam, point_load(beam, 0.4, -1.0))  # 1 N down at the tip
    >>> from fe_contact.io.vtk import beam_block, frame_multiblock, save_frame
    >>> with tempfile.TemporaryDirectory() as out:
    ...     path = save_frame(frame_multiblock([beam_block(beam, u)]), pathlib.Path(out) / "f.vtm")
    ...     print(path.name, len(list((pathlib.Path(out) / "f").glob("*.vtu"))), "part")
    f.vtm 1 part
    """
    from vtkmodules.vtkIOXML import vtkXMLMultiBlockDataWriter

    path = Path(path)
    if path.is_file():  # replaced: a file left from before must not pass for this one
        path.unlink()
    writer = vtkXMLMultiBlockDataWriter()
    writer.SetFileName(str(path))
    writer.SetInputData(frame)
    writer.SetDataModeToBinary()
    writer.SetCompressorTypeToZLib()
    writer.SetCompressionLevel(COMPRESSION_LEVEL)
    written = writer.Write() == 1 and not writer.GetErrorCode()
    # VTK 9.4 reports a file it could not open in its log only (Write() returns 1): whether
    # the frame and its parts' folder are there says it
    if not (written and path.is_file() and (frame.n_blocks == 0 or path.with_suffix("").is_dir())):
        raise OSError(f"VTK could not write the frame {path}")
    return path


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
        save_frame(frame_multiblock(blocks, field_data), self.directory / filename)
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
