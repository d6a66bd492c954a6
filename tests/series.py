"""Helpers of the output tests: frames of a .pvd series and cells of a block."""

import xml.etree.ElementTree as ET

import numpy as np


def frame_files(pvd):
    """(time, path) of every frame listed in a .pvd collection."""
    root = ET.parse(pvd).getroot()
    return [(float(d.get("timestep")), pvd.parent / d.get("file")) for d in root.iter("DataSet")]


def cells(mesh, kind, part):
    """Connectivity of the cells of one type belonging to block ``part``."""
    rows = [
        block.data[np.asarray(mesh.cell_data["part"][k]) == part]
        for k, block in enumerate(mesh.cells)
        if block.type == kind
    ]
    return np.concatenate(rows)


def has_colour(image: np.ndarray, rgb, tol=40) -> bool:
    return bool(np.any(np.all(np.abs(image.astype(int) - rgb) < tol, axis=-1)))
