"""The interface every finite-element part of a model answers (``Structure``), the point on
its curve (``CurvePoint``), the rows of fixed material points (``PointRows``) and the material
velocities of a point (the package docstring says what the interface is)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..kernels.grid import material_points


@dataclass(frozen=True, eq=False)
class CurvePoint:
    """A material point s of a structure at the coordinates q, with the rows dr/dq of the curve.

    A rigid profile's curve at a parameter eta is ``curves.RigidCurvePoint`` (no rows, an
    outward normal instead of this normal turned by +90 degrees). k below is the number of DOFs
    of the point's element.

    Parameters
    ----------
    s : float
        Material coordinate, m.
    element : int
        Element holding the point.
    position : ndarray, shape (2,)
        Position r, m.
    slope : ndarray, shape (2,)
        r' = dr/ds.
    slope_rate : ndarray, shape (2,)
        r'' = d2r/ds2, 1/m.
    tangent : ndarray, shape (2,)
        Unit tangent.
    normal : ndarray, shape (2,)
        Unit normal, the tangent turned by +90 degrees.
    curvature : float
        Signed curvature, 1/m (positive when the curve turns towards the normal).
    dofs : ndarray of int, shape (k,)
        Indices into the structure's free coordinates.
    rows : ndarray, shape (2, k)
        dr/dq on those DOFs.
    rows_s : ndarray, shape (2, k)
        d/ds dr/dq, 1/m.
    rows_ss : ndarray, shape (2, k)
        d2/ds2 dr/dq, 1/m^2.

    Examples
    --------
    The tip of the cantilever under 1 N: position, slope and curvature; the tip slope of the
    closed form is -P L^2 / (2 EI) and its curvature (moment 0) is 0:

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> from fe_contact.elements.beam import point_load
    >>> beam = system.structures["beam"]
    >>> K = beam.tangent_stiffness(beam.initial_coordinates()).toarray()
    >>> q = np.linalg.solve(K, point_load(beam.beam, 0.4, -1.0)[beam.beam.free_dofs])  # 1 N down
    >>> tip = beam.curve(0.4, q)
    >>> closed = -0.4**2 / (2 * strip.bending_stiffness)
    >>> print(f"{tip.slope[1]:.4f} vs {closed:.4f}; curvature 0: {abs(tip.curvature) < 1e-9}")
    -0.1354 vs -0.1354; curvature 0: True
    """

    s: float
    element: int
    position: np.ndarray
    slope: np.ndarray
    slope_rate: np.ndarray
    tangent: np.ndarray
    normal: np.ndarray
    curvature: float
    dofs: np.ndarray
    rows: np.ndarray
    rows_s: np.ndarray
    rows_ss: np.ndarray


@dataclass(frozen=True, eq=False)
class PointRows:
    """r(s_i) = offset[i] + rows[i] @ q[dofs[i]] at m fixed material points (r is affine in q).

    Parameters
    ----------
    s : ndarray, shape (m,)
        Material coordinates, m.
    offset : ndarray, shape (m, 2)
        Offsets, m.
    dofs : ndarray of int, shape (m, k)
        Free-coordinate indices (padded with 0 where an element has fewer free DOFs; the
        padded rows are zero).
    rows : ndarray, shape (m, 2, k)
        The rows dr/dq.

    Examples
    --------
    Positions of material points at s = 0.1 m and 0.4 m of the cantilever under 1 N at its tip,
    w(s) = -P s^2 (3 L - s) / (6 EI):

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> from fe_contact.elements.beam import point_load
    >>> beam = system.structures["beam"]
    >>> K = beam.tangent_stiffness(beam.initial_coordinates()).toarray()
    >>> q = np.linalg.solve(K, point_load(beam.beam, 0.4, -1.0)[beam.beam.free_dofs])  # 1 N down
    >>> rows = beam.point_rows(np.array([0.1, 0.4]))
    >>> (rows.positions(q)[:, 1] * 1e3).round(4).tolist()
    [-3.1041, -36.1199]
    >>> [round(-s**2 * (3 * 0.4 - s) / (6 * strip.bending_stiffness) * 1e3, 4) for s in (0.1, 0.4)]
    [-3.1041, -36.1199]
    """

    s: np.ndarray
    offset: np.ndarray
    dofs: np.ndarray
    rows: np.ndarray

    def positions(self, q: np.ndarray) -> np.ndarray:
        """(m, 2) positions at the free coordinates q (``kernels.grid.material_points``)."""
        return material_points(
            np.ascontiguousarray(self.offset, dtype=float),
            np.ascontiguousarray(self.rows, dtype=float),
            np.ascontiguousarray(self.dofs, dtype=np.int64),
            np.ascontiguousarray(q, dtype=float),
        )


def point_rows_from(s, offset, cols, rows) -> PointRows:
    """``PointRows`` of m material points from their rows on all of an element's DOFs: the
    columns of fixed DOFs (cols = -1) are dropped to zero, their indices to 0.

    Parameters
    ----------
    s : ndarray, shape (m,)
        Material coordinates, m.
    offset : ndarray, shape (m, 2)
        The positions at q = 0 (the fixed DOFs' share), m.
    cols : ndarray of int, shape (m, k)
        The free-coordinate index of each of the element's k DOFs, -1 where fixed.
    rows : ndarray, shape (m, 2, k)
        dr/dq on the element's k DOFs.

    Returns
    -------
    PointRows
        r(s_i) = offset[i] + rows[i] @ q[dofs[i]] on the free coordinates.

    Examples
    --------
    A point whose first DOF is fixed: its column is zero and its index 0.

    >>> rows = point_rows_from(np.array([0.5]), np.zeros((1, 2)), np.array([[-1, 3]]),
    ...                        np.array([[[1.0, 2.0], [0.0, 1.0]]]))
    >>> rows.dofs.tolist(), rows.rows.tolist()
    ([[0, 3]], [[[0.0, 2.0], [0.0, 1.0]]])
    >>> rows.positions(np.array([9.0, 9.0, 9.0, 0.5])).tolist()
    [[1.0, 0.5]]
    """
    keep = cols >= 0
    rows = np.where(keep[:, None, :], rows, 0.0)
    return PointRows(s=s, offset=offset, dofs=np.where(keep, cols, 0), rows=rows)


class Structure:
    """Common part of ``BeamStructure`` and ``StringStructure`` (see the module docstring).

    Attributes: name, kind ("beam" or "string"), length (m), n_dofs (free coordinates),
    linear (True when the internal force is K q with a constant K), mass_matrix, damping_matrix
    (sparse CSR on the free coordinates, constant), stiffness_damping (beta in s of a damping
    beta K_t(q) that follows the tangent stiffness, 0 for none; see ``damping``), load
    (constant generalised load of gravity and point loads, (n_dofs,)), nodes (material
    coordinates of the nodes, m), node_rows (``point_rows(nodes)``, made with the structure:
    ``node_rows.positions(q)`` are the nodes' positions).

    Examples
    --------
    A cantilever under 1 N at its tip: K q = f gives the tip deflection P L^3 / (3 EI)
    (exact with Hermite cubics):

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> from fe_contact.elements.beam import point_load
    >>> beam = system.structures["beam"]
    >>> K = beam.tangent_stiffness(beam.initial_coordinates()).toarray()
    >>> q = np.linalg.solve(K, point_load(beam.beam, 0.4, -1.0)[beam.beam.free_dofs])  # 1 N down
    >>> tip = beam.curve(0.4, q)
    >>> closed = -0.4**3 / (3 * strip.bending_stiffness)
    >>> print(f"{tip.position[1] * 1e3:.4f} mm, -P L^3 / (3 EI) = {closed * 1e3:.4f} mm")
    -36.1199 mm, -P L^3 / (3 EI) = -36.1199 mm
    """

    name: str
    kind: str
    length: float
    n_dofs: int
    linear: bool
    mass_matrix: sp.csr_matrix
    damping_matrix: sp.csr_matrix
    stiffness_damping: float = 0.0
    load: np.ndarray
    nodes: np.ndarray
    closed: bool = False  # a closed string: s is taken modulo the length

    # -- coordinates ------------------------------------------------------------------------
    def initial_coordinates(self) -> np.ndarray:
        """Free coordinates of the undeformed (reference) state, (n_dofs,)."""
        raise NotImplementedError

    def full(self, q: np.ndarray) -> np.ndarray:
        """The structure's full DOF vector from its free coordinates (fixed DOFs prescribed)."""
        raise NotImplementedError

    # -- forces -----------------------------------------------------------------------------
    def internal_force(self, q: np.ndarray) -> np.ndarray:
        """Elastic force f_int(q), (n_dofs,), N: M q'' + C q' + f_int = load + contact forces."""
        raise NotImplementedError

    def tangent_stiffness(self, q: np.ndarray) -> sp.csr_matrix:
        """d f_int / dq, sparse (n_dofs, n_dofs)."""
        raise NotImplementedError

    def averaged_internal_force(self, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
        """Discrete gradient of the strain energy V over a step from q0 to q1, (n_dofs,), N:
        ``f_avg . (q1 - q0) = V(q1) - V(q0)`` and ``f_avg(q, q) = f_int(q)``. Here f_int at the
        midpoint, exact for a linear structure (V quadratic: K q_mid . dq = V(q1) - V(q0))."""
        if not self.linear:
            raise NotImplementedError(f"{type(self).__name__} has no averaged internal force")
        return self.internal_force(0.5 * (q0 + q1))

    # -- energies ---------------------------------------------------------------------------
    def kinetic_energy(self, u: np.ndarray) -> float:
        """1/2 u M u, J."""
        return 0.5 * float(u @ (self.mass_matrix @ u))

    def elastic_energy(self, q: np.ndarray) -> float:
        """Strain energy, J."""
        raise NotImplementedError

    def load_potential(self, q: np.ndarray) -> float:
        """Potential of the constant load (gravity, point loads), J; zero at the reference."""
        return -float(self.load @ (q - self.initial_coordinates()))

    def damping(self, q: np.ndarray) -> sp.csr_matrix:
        """Damping matrix C(q) = damping_matrix + stiffness_damping K_t(q), sparse."""
        if self.stiffness_damping == 0.0:
            return self.damping_matrix
        return (self.damping_matrix + self.stiffness_damping * self.tangent_stiffness(q)).tocsr()

    def damping_power(self, q: np.ndarray, u: np.ndarray) -> float:
        """u C(q) u, W (>= 0 while the tangent stiffness is positive semi-definite)."""
        return float(u @ (self.damping(q) @ u))

    # -- geometry ---------------------------------------------------------------------------
    def curve(self, s: float, q: np.ndarray) -> CurvePoint:
        """The material point s at the free coordinates q (s is clipped to [0, length])."""
        raise NotImplementedError

    def point_rows(self, s) -> PointRows:
        """Constant affine maps r(s_i) = offset_i + rows_i q[dofs_i] at material coordinates s."""
        raise NotImplementedError

    def positions(self, s, q: np.ndarray) -> np.ndarray:
        """Positions r(s_i), shape (m, 2), of material coordinates s (m,) (vectorised)."""
        return self.point_rows(s).positions(q)

    def project(self, point, q: np.ndarray, s_guess: float | None = None, tol: float = 1e-13):
        """Closest material point to ``point`` (2,): s with (point - r(s)) . r'(s) = 0.

        Newton on the orthogonality condition (Bauchau (000), eq. 5 with a point for the second
        curve), warm-started from ``s_guess`` (default: the nearest node). The result is not
        clipped: s < 0 or s > length says that the point lies beyond an end of the structure
        (the curve continued along its end tangent). Returns s (float).
        """
        return self.closest(point, q, s_guess, tol)[0]

    def _local_curve(self, s: float, q: np.ndarray):
        """r, r' and r'' at s as float pairs: what the closest-point iteration needs (a
        structure may give them cheaper than ``curve``)."""
        c = self.curve(s, q)
        return tuple(c.position), tuple(c.slope), tuple(c.slope_rate)

    def closest(self, point, q: np.ndarray, s_guess: float | None = None, tol: float = 1e-13):
        """``project`` that also returns the CurvePoint at s (None when s is beyond an end)."""
        p = np.asarray(point, dtype=float)
        if s_guess is None or not np.isfinite(s_guess):
            nodes = self.node_rows.positions(q)
            s = float(self.nodes[int(np.argmin(np.sum((nodes - p) ** 2, axis=1)))])
        else:
            s = min(max(float(s_guess), 0.0), self.length)
        scale = max(self.length, 1e-300)
        px, py = float(p[0]), float(p[1])
        for _ in range(30):
            (rx, ry), (ax, ay), (bx, by) = self._local_curve(s, q)
            dx, dy = px - rx, py - ry
            f = dx * ax + dy * ay
            df = dx * bx + dy * by - (ax * ax + ay * ay)
            if df >= 0.0:  # not a minimum of the distance: step along the tangent instead
                df = -(ax * ax + ay * ay)
            step = -f / df
            if abs(step) <= tol * scale:
                return s, self.curve(s, q)
            s_new = s + step
            if s_new < 0.0 or s_new > self.length:
                end = 0.0 if s_new < 0.0 else self.length
                c = self.curve(end, q)
                beyond = end + float((p - c.position) @ c.slope) / float(c.slope @ c.slope)
                if 0.0 <= beyond <= self.length:
                    return end, c
                return beyond, None
            s = s_new
        return s, self.curve(s, q)


def material_velocity(point: CurvePoint, u: np.ndarray) -> np.ndarray:
    """Velocity of the material point: R u[dofs] (r is affine in q).

    Parameters
    ----------
    point : CurvePoint
        The material point.
    u : ndarray, shape (n_dofs,)
        The structure's free velocities.

    Returns
    -------
    ndarray, shape (2,)
        The velocity, m/s.

    Examples
    --------
    The beam moving with the velocities u = q / (1 s) (its tip-load shape): the tip moves at
    w_tip / (1 s) downwards:

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> from fe_contact.elements.beam import point_load
    >>> beam = system.structures["beam"]
    >>> K = beam.tangent_stiffness(beam.initial_coordinates()).toarray()
    >>> q = np.linalg.solve(K, point_load(beam.beam, 0.4, -1.0)[beam.beam.free_dofs])  # 1 N down
    >>> from fe_contact.structures import material_velocity
    >>> (material_velocity(beam.curve(0.4, q), q) * 1e3).round(4).tolist()
    [0.0, -36.1199]
    """
    return point.rows @ u[point.dofs]


def slope_velocity(point: CurvePoint, u: np.ndarray) -> np.ndarray:
    """Material time derivative of r' at the point: R_s u[dofs].

    Parameters
    ----------
    point : CurvePoint
        The material point.
    u : ndarray, shape (n_dofs,)
        The structure's free velocities.

    Returns
    -------
    ndarray, shape (2,)
        dr'/dt, 1/s.

    Examples
    --------
    As for ``material_velocity``: the tip slope changes at w'(L) / (1 s) = -P L^2 / (2 EI) per s:

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}))
    >>> from fe_contact.elements.beam import point_load
    >>> beam = system.structures["beam"]
    >>> K = beam.tangent_stiffness(beam.initial_coordinates()).toarray()
    >>> q = np.linalg.solve(K, point_load(beam.beam, 0.4, -1.0)[beam.beam.free_dofs])  # 1 N down
    >>> from fe_contact.structures import slope_velocity
    >>> slope_velocity(beam.curve(0.4, q), q).round(4).tolist()
    [0.0, -0.1354]
    """
    return point.rows_s @ u[point.dofs]


__all__ = [
    "CurvePoint",
    "PointRows",
    "Structure",
    "material_velocity",
    "point_rows_from",
    "slope_velocity",
]
