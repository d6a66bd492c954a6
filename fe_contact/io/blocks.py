"""The parts of a frame: a ``Block`` (points, polyline and vertex cells, point and cell data)
in one of the frame's groups (``GROUPS``), with the integer types and codes the blocks are
written with.

The blocks are made by ``io.structure_blocks`` (beams, strings), ``io.body_blocks`` (the tree,
disks, curved profiles), ``io.contact_blocks`` (contact points, links) and gathered per frame by
``io.frames``; ``io.vtk`` writes them as VTK files and ``io.paraview_state`` summarises them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

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


def polyline_segments(n: int) -> np.ndarray:
    """Connectivity of an open polyline through n points: the line cells of a block.

    Parameters
    ----------
    n : int
        Number of points, >= 1.

    Returns
    -------
    numpy.ndarray of int, shape (n - 1, 2)
        Row k joins point k to point k + 1.

    Examples
    --------
    >>> from fe_contact.io.blocks import polyline_segments
    >>> polyline_segments(3).tolist()
    [[0, 1], [1, 2]]
    """
    return np.column_stack([np.arange(n - 1), np.arange(1, n)])
