"""The linear Euler-Bernoulli beam of Lipinski (002), sec. 3, as a ``Structure``: its curve
r = origin + s t0 + w(s) n0 from the beam's Hermite shape functions."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from ..curves import PERP
from ..elements.beam_model import Beam
from ..elements.beam_points import shape_rows, shape_rows_at
from .base import CurvePoint, Structure, point_rows_from


@dataclass(eq=False)
class BeamStructure(Structure):
    """A linear Euler-Bernoulli beam of Lipinski (002), sec. 3, as a Structure.

    Free coordinates: the beam's free DOFs (w, w') in scikit-fem's order. The internal force is
    K q with the constant bending stiffness.

    Parameters
    ----------
    name : str
        The structure's name in the model.
    beam : Beam
        The assembled beam (``elements.beam.assemble_beam``).
    load : ndarray, shape (n_dofs,)
        Constant load on the free DOFs: the self-weight (component of gravity along n0) plus
        point loads (N, N m).

    Examples
    --------
    The beam's constant stiffness is its tangent; its strain energy under the tip load is
    P w_tip / 2 = P^2 L^3 / (6 EI):

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> from fe_contact.elements.beam import point_load
    >>> beam = system.structures["beam"]
    >>> K = beam.tangent_stiffness(beam.initial_coordinates()).toarray()
    >>> q = np.linalg.solve(K, point_load(beam.beam, 0.4, -1.0)[beam.beam.free_dofs])  # 1 N down
    >>> print(f"{beam.elastic_energy(q):.4g} J = {0.4**3 / (6 * strip.bending_stiffness):.4g} J")
    0.01806 J = 0.01806 J
    """

    name: str
    beam: Beam
    load: np.ndarray
    kind: str = field(default="beam", init=False)
    linear: bool = field(default=True, init=False)

    def __post_init__(self):
        beam = self.beam
        self.length = float(beam.spec.length)
        self.n_dofs = int(beam.free_dofs.size)
        self.nodes = beam.nodes
        self.mass_matrix = beam.reduced("mass").tocsr()
        self.stiffness_matrix = beam.reduced("stiffness").tocsr()
        self.damping_matrix = beam.reduced("damping").tocsr()
        index = -np.ones(beam.n_dofs, dtype=int)
        index[beam.free_dofs] = np.arange(self.n_dofs)
        self.free_index = index
        # plain-float element data for _local_curve: nodes, and per element its free DOFs with
        # the monomial coefficients of their shape functions
        self._node_list = [float(x) for x in beam.nodes]
        self._frame = tuple(tuple(float(v) for v in a) for a in (beam.origin, beam.t0, beam.n0))
        self._element_terms = []
        for e in range(beam.n_elements):
            terms = tuple(
                (int(col), *(float(v) for v in beam.coefficients[e][j]))
                for j, col in enumerate(index[beam.element_dofs[e]])
                if col >= 0
            )
            self._element_terms.append((float(beam.nodes[e]), float(beam.element_length[e]), terms))
        self.node_rows = self.point_rows(self.nodes)  # the closest point's start

    def initial_coordinates(self) -> np.ndarray:
        return np.zeros(self.n_dofs)

    def full(self, q):
        return self.beam.expand(q)

    def internal_force(self, q):
        return self.stiffness_matrix @ q

    def tangent_stiffness(self, q):
        return self.stiffness_matrix

    def elastic_energy(self, q):
        return 0.5 * float(q @ (self.stiffness_matrix @ q))

    def curve(self, s, q):
        beam = self.beam
        s = min(max(float(s), 0.0), self.length)
        e, dofs, N, N_x, N_xx = shape_rows_at(beam, s)
        cols = self.free_index[dofs]
        keep = cols >= 0
        cols, N, N_x, N_xx = cols[keep], N[keep], N_x[keep], N_xx[keep]
        qe = q[cols]
        w, w_x, w_xx = float(N @ qe), float(N_x @ qe), float(N_xx @ qe)
        t0, n0 = beam.t0, beam.n0
        slope = t0 + w_x * n0
        k = 1.0 / np.sqrt(1.0 + w_x * w_x)
        tangent = k * slope
        return CurvePoint(
            s=s,
            element=e,
            position=beam.origin + s * t0 + w * n0,
            slope=slope,
            slope_rate=w_xx * n0,
            tangent=tangent,
            normal=PERP @ tangent,
            curvature=w_xx * k**3,
            dofs=cols,
            rows=n0[:, None] * N,
            rows_s=n0[:, None] * N_x,
            rows_ss=n0[:, None] * N_xx,
        )

    def _local_curve(self, s: float, q: np.ndarray):
        """``curve``'s r, r', r'' in plain floats (the same element polynomials, Horner's rule):
        a fifth of its cost, for the closest-point iteration."""
        beam = self.beam
        s = min(max(float(s), 0.0), self.length)
        e = min(max(bisect.bisect_left(self._node_list, s) - 1, 0), beam.n_elements - 1)
        x0, le, terms = self._element_terms[e]
        z = (s - x0) / le
        w = w_x = w_xx = 0.0
        for col, c0, c1, c2, c3 in terms:
            qj = float(q[col])
            w += (c0 + z * (c1 + z * (c2 + z * c3))) * qj
            w_x += (c1 + z * (2.0 * c2 + 3.0 * z * c3)) / le * qj
            w_xx += (2.0 * c2 + 6.0 * z * c3) / (le * le) * qj
        (ox, oy), (tx, ty), (nx, ny) = self._frame
        return (
            (ox + s * tx + w * nx, oy + s * ty + w * ny),
            (tx + w_x * nx, ty + w_x * ny),
            (w_xx * nx, w_xx * ny),
        )

    def point_rows(self, s):
        s = np.clip(np.atleast_1d(np.asarray(s, dtype=float)), 0.0, self.length)
        beam = self.beam
        shape = shape_rows(beam, s)
        rows = shape.dx(0)[:, None, :] * beam.n0[None, :, None]  # (m, 2, 4)
        offset = beam.origin + s[:, None] * beam.t0
        return point_rows_from(s, offset, self.free_index[shape.dofs], rows)


__all__ = ["BeamStructure"]
