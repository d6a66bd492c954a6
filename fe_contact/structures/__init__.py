"""One interface for every finite-element part of a model: the linear beam and the string.

A ``Structure`` is an assembled beam (Lipinski (002), sec. 3) or absolute-nodal string /
geometrically exact beam (Eugster-Glocker (004), secs. 3-4) seen through its *free* coordinates
``q`` (the supports are eliminated: fixed DOFs keep their prescribed values). Every structure is
a planar curve ``r(s, q)`` over the material coordinate ``s`` in ``[0, length]`` that is affine
in ``q``:

    r(s, q) = r0(s) + R(s) q[dofs(s)]

with rows ``R`` (2, k) of the element holding s (k = its free DOFs). The beam of 002 lies along
``t0`` from ``origin`` and deflects along ``n0``: ``r = origin + s t0 + w(s) n0`` (linear
theory, the material point keeps its axial position); the string interpolates nodal positions
and slopes, so its ``r0`` collects the prescribed support values.

Contact kinematics, energies and writers use only this interface: ``curve`` (position, slope
``r'``, second derivative ``r''``, unit tangent and normal, curvature, the rows of dr/dq and
their s-derivatives, the DOFs involved), ``project`` (closest point, Bauchau (000), eqs. 5-6 for
a point), the constant matrices and the forces.

The interface and the point type are in ``structures.base``, the beam in ``structures.beam``,
the string in ``structures.string``; all are importable from here.
"""

from __future__ import annotations

from .base import (
    CurvePoint,
    PointRows,
    Structure,
    material_velocity,
    point_rows_from,
    slope_velocity,
)
from .beam import BeamStructure
from .string import StringStructure

__all__ = [
    "BeamStructure",
    "CurvePoint",
    "PointRows",
    "StringStructure",
    "Structure",
    "material_velocity",
    "point_rows_from",
    "slope_velocity",
]
