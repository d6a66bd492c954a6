"""Helpers of the output tests: frames of a .pvd series and the named parts of a frame."""

import xml.etree.ElementTree as ET

import numpy as np
import pyvista as pv

VTK_VERTEX, VTK_LINE = 1, 3  # VTK's cell type numbers


def frame_files(pvd):
    """(time, path) of every frame listed in a .pvd collection."""
    root = ET.parse(pvd).getroot()
    return [(float(d.get("timestep")), pvd.parent / d.get("file")) for d in root.iter("DataSet")]


def read_frame(path):
    """A frame (.vtm) as a pyvista MultiBlock."""
    return pv.read(path)


def part(frame, name):
    """The grid named ``name`` in a frame (a MultiBlock or the path of a .vtm): ``contacts`` or
    a part of the ``structures`` or ``bodies`` block; None when the frame has no such part."""
    if not isinstance(frame, pv.MultiBlock):
        frame = read_frame(frame)
    if name in frame.keys():
        return frame[name]
    for group in ("structures", "bodies"):
        if group in frame.keys() and name in frame[group].keys():
            return frame[group][name]
    return None


def cells(grid, kind):
    """Connectivity (k, n) of the cells of one type ("vertex" or "line") of a grid, in order."""
    code, width = {"vertex": (VTK_VERTEX, 1), "line": (VTK_LINE, 2)}[kind]
    types = np.asarray(grid.celltypes)
    cells = grid.GetCells()
    starts = pv.convert_array(cells.GetOffsetsArray())[:-1][types == code]
    return pv.convert_array(cells.GetConnectivityArray())[starts[:, None] + np.arange(width)]


def has_colour(image: np.ndarray, rgb, tol=40) -> bool:
    return bool(np.any(np.all(np.abs(image.astype(int) - rgb) < tol, axis=-1)))
