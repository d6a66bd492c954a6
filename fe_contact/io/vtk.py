"""VTK time series for ParaView: a ``.pvd`` collection of ``.vtu`` frames written with meshio.

Frames are written as they come and the ``.pvd`` index is rewritten after every frame, so a run that
stops half-way leaves a series that ParaView opens up to the last frame written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

import meshio
import numpy as np

from ..elements.beam import Beam, evaluate


@dataclass(frozen=True)
class Block:
    """One named piece of a frame: points (m, 2 or 3) m, polyline/vertex cells, point and cell data."""

    name: str
    points: np.ndarray
    cells: list
    point_data: dict
    cell_data: dict


def beam_block(
    beam: Beam, u: np.ndarray, samples_per_element: int = 8, name: str = "beam"
) -> Block:
    """The deflected beam as a polyline sampled inside each element with the Hermite shape.

    Point data: displacement (vector, m), slope (rad), curvature (1/m), bending_moment (E I w'', N m).
    Cell data: element (id of the element each segment belongs to).
    """
    if samples_per_element < 1:
        raise ValueError(f"samples_per_element must be >= 1, got {samples_per_element!r}")
    t = np.linspace(0.0, 1.0, samples_per_element + 1)[:-1]
    x = (beam.nodes[:-1, None] + beam.element_length[:, None] * t[None, :]).ravel()
    x = np.append(x, beam.spec.length)
    fields = evaluate(beam, u, x)
    displacement = beam.n0[None, :] * fields.deflection[:, None]
    points = beam.origin[None, :] + x[:, None] * beam.t0[None, :] + displacement
    n = x.size
    segments = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    element = np.repeat(np.arange(beam.n_elements), samples_per_element)
    return Block(
        name=name,
        points=points,
        cells=[("line", segments)],
        point_data={
            "displacement": displacement,
            "slope": fields.slope,
            "curvature": fields.curvature,
            "bending_moment": beam.spec.bending_stiffness * fields.curvature,
        },
        cell_data={"element": [element]},
    )


def _merge(blocks: list[Block]) -> meshio.Mesh:
    """One meshio mesh of all blocks; data absent from a block is zero-filled there."""
    points, cells, offsets = [], [], []
    offset = 0
    for b in blocks:
        p = np.asarray(b.points, dtype=float)
        if p.shape[1] == 2:
            p = np.column_stack([p, np.zeros(len(p))])
        points.append(p)
        offsets.append(offset)
        for kind, conn in b.cells:
            cells.append((kind, np.asarray(conn) + offset))
        offset += len(p)
    names = sorted({k for b in blocks for k in b.point_data})
    point_data = {}
    for name in names:
        columns = []
        width = next(
            np.asarray(b.point_data[name]).shape[1:] for b in blocks if name in b.point_data
        )
        for b, p in zip(blocks, points, strict=True):
            if name in b.point_data:
                value = np.asarray(b.point_data[name], dtype=float)
            else:
                value = np.zeros((len(p),) + width)
            if value.ndim == 2 and value.shape[1] == 2:
                value = np.column_stack([value, np.zeros(len(value))])
            columns.append(value)
        point_data[name] = np.concatenate(columns)
    cell_names = sorted({k for b in blocks for k in b.cell_data})
    cell_data = {}
    for name in cell_names:
        per_block = []
        for b in blocks:
            n_blocks_cells = [len(conn) for _, conn in b.cells]
            if name in b.cell_data:
                per_block.extend(np.asarray(v, dtype=float) for v in b.cell_data[name])
            else:
                per_block.extend(np.zeros(n) for n in n_blocks_cells)
        cell_data[name] = per_block
    return meshio.Mesh(np.concatenate(points), cells, point_data=point_data, cell_data=cell_data)


class PvdWriter:
    """Writes ``DIR/NAME_00000.vtu`` frames and keeps ``DIR/NAME.pvd`` listing them with their times.

    Use as a context manager or call :meth:`close`; the index is valid after every :meth:`write`.
    """

    def __init__(self, directory, name: str = "frames", stride: int = 1):
        if stride < 1:
            raise ValueError(f"stride must be an integer >= 1, got {stride!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.stride = stride
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
