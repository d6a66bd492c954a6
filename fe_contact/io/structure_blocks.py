"""The blocks of the structures: a beam (``beam_block``: displacement, slope, curvature, bending
moment, its supports) and a string (``string_block``: tension, stretch, curvature) sampled inside
each element with the element's own shape functions, and ``structure_block`` for a structure of
a System by its name.
"""

from __future__ import annotations

import numpy as np

from .. import validation as check
from ..elements.beam_model import Beam
from ..elements.beam_points import beam_fields
from ..elements.string import StringModel
from ..elements.string import string_points_at as evaluate_string
from ..structures import BeamStructure
from ..system import System
from .blocks import ID, SUPPORT_CODES, Block, polyline_segments


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
        cells=[("line", polyline_segments(x.size)), ("vertex", support_vertices)],
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
        cells=[("line", polyline_segments(s.size))],
        point_data={
            "displacement": (state.position - reference.position).T,
            "tangent": state.tangent.T,
            "curvature": state.curvature,
            "stretch": state.stretch,
            "tension": state.tension,
        },
        cell_data={"element": [element]},
    )


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
