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
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .curves import PERP
from .elements import string as _string
from .elements.beam_model import Beam
from .elements.beam_points import shape_rows, shape_rows_at
from .elements.hermite import shape_coefficients
from .elements.string_forces import element_tangents as _element_tangents
from .kernels.string import closest as closest_point


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
        """(m, 2) positions at the free coordinates q."""
        return self.offset + np.einsum("mck,mk->mc", self.rows, q[self.dofs])


def _point_rows(s, offset, cols, rows) -> PointRows:
    """PointRows from full-element rows (m, 2, k) and free indices cols (m, k) (-1 = fixed)."""
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
    coordinates of the nodes, m).

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
            nodes = self.positions(self.nodes, q)
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
        return _point_rows(s, offset, self.free_index[shape.dofs], rows)


@dataclass(eq=False)
class StringStructure(Structure):
    """An absolute-nodal string / geometrically exact beam of Eugster-Glocker (004) as a Structure.

    Free coordinates: the free nodal positions and slopes; the internal force and its tangent
    are nonlinear.

    Parameters
    ----------
    name : str
        The structure's name in the model.
    string : StringModel
        The assembled string (``elements.string_model``).
    load : ndarray, shape (n_dofs,)
        Gravity (004 eq. 11) plus point loads on the free DOFs, N.

    Examples
    --------
    A string of 4 elements pinned at both ends: 5 nodes of (x, y, x', y') less 2 x 2 pinned
    positions leave 16 free coordinates; in its straight reference it carries no force:

    >>> from fe_contact import LinearElastic, Model, StringSpec, Support, assemble
    >>> spec = StringSpec(length=1.0, n_elements=4, density=0.1, law=LinearElastic(100.0),
    ...                   supports=(Support(0.0), Support(1.0)))
    >>> string = assemble(Model(structures={"string": spec})).structures["string"]
    >>> string.n_dofs, float(np.abs(string.internal_force(string.initial_coordinates())).max())
    (16, 0.0)
    """

    name: str
    string: _string.StringModel
    load: np.ndarray
    kind: str = field(default="string", init=False)
    linear: bool = field(default=False, init=False)

    def __post_init__(self):
        model = self.string
        free = model.free_dofs
        self.length = float(model.spec.length)
        self.n_dofs = int(free.size)
        self.nodes = model.nodes
        self.closed = model.closed
        self.mass_matrix = model.reduce_matrix(model.mass_matrix)
        self.damping_matrix = sp.csr_matrix((self.n_dofs, self.n_dofs))
        self.stiffness_damping = float(model.spec.stiffness_damping)
        index = model.free_index.astype(int)  # a closed string's last node: its first's
        self.free_index = index
        self._q_ref = model.q_prescribed[free].copy()
        self._prescribed = model.q_prescribed
        self._element_dofs = np.ascontiguousarray(model.basis.element_dofs.T)
        self._coefficients = _string_coefficients(model)
        # plain-float element data for curve and _local_curve: nodes, and per element, for each
        # of its four scalar Hermite functions, the monomial coefficients and per component the
        # free column (-1 at a fixed DOF) and the prescribed value
        self._node_list = [float(x) for x in self.nodes]
        self._element_terms = []
        for e, dofs in enumerate(self._element_dofs):
            terms = tuple(
                (
                    *(float(v) for v in self._coefficients[e][a]),
                    int(index[dofs[2 * a]]),
                    float(model.q_prescribed[dofs[2 * a]]),
                    int(index[dofs[2 * a + 1]]),
                    float(model.q_prescribed[dofs[2 * a + 1]]),
                )
                for a in range(4)
            )
            start, end = self._node_list[e], self._node_list[e + 1]
            self._element_terms.append((start, end - start, terms))
        cols = index[self._element_dofs]
        # the same data as arrays, for the compiled closest-point iteration and contact:
        # (nodes, coefficients (n_el, 4, 4), free columns (n_el, 8), fixed values (n_el, 8))
        self.kernel_data = (
            np.ascontiguousarray(self.nodes, dtype=float),
            np.ascontiguousarray(self._coefficients, dtype=float),
            np.ascontiguousarray(cols, dtype=np.int64),
            np.ascontiguousarray(model.q_prescribed[self._element_dofs], dtype=float),
        )
        self._element_keep = [np.flatnonzero(c >= 0) for c in cols]
        self._element_cols = [c[c >= 0] for c in cols]

    def initial_coordinates(self):
        return self._q_ref.copy()

    def full(self, q):
        return self.string.expand(q)

    def internal_force(self, q):
        return self.string.reduce(_string.internal_force(self.string, self.full(q)))

    def tangent_stiffness(self, q):
        return self.string.reduce_matrix(_string.tangent_stiffness(self.string, self.full(q)))

    def averaged_internal_force(self, q0, q1):
        """Discrete gradient of the tension energy (``elements.string_energy``); a string with
        bending stiffness is refused (ValueError)."""
        force = _string.averaged_internal_force(self.string, self.full(q0), self.full(q1))
        return self.string.reduce(force)

    def force_and_element_tangents(self, q):
        """(internal_force(q), the element blocks (n_elements, 8, 8) of tangent_stiffness(q)
        on the DOFs of ``element_free_index``) from one evaluation of the section response."""
        force, tangents = _element_tangents(self.string, self.full(q))
        return self.string.reduce(force), tangents

    def damping_power(self, q, u):
        """u C(q) u, W, with the stiffness-proportional part summed over the element
        tangents (u_e k_e u_e), without assembling the sparse tangent."""
        power = float(u @ (self.damping_matrix @ u))
        if self.stiffness_damping == 0.0:
            return power
        _, tangents = self.force_and_element_tangents(q)
        free = self.element_free_index()
        u_e = np.where(free >= 0, u[np.maximum(free, 0)], 0.0)
        elastic = float(np.einsum("ei,eij,ej->", u_e, tangents, u_e))
        return power + self.stiffness_damping * elastic

    def element_free_index(self) -> np.ndarray:
        """Free-coordinate index of each element's 8 DOFs, -1 at a fixed DOF, (n_elements, 8)."""
        return self.free_index[self._element_dofs]

    def elastic_energy(self, q):
        return float(_string.strain_energy(self.string, self.full(q)))

    def closest(self, point, q: np.ndarray, s_guess: float | None = None, tol: float = 1e-13):
        """``Structure.closest``, its Newton iteration compiled (``kernels.string.closest``)."""
        p = np.asarray(point, dtype=float)
        if s_guess is None or not np.isfinite(s_guess):
            nodes = self.positions(self.nodes, q)
            s = float(self.nodes[int(np.argmin(np.sum((nodes - p) ** 2, axis=1)))])
        else:
            s = self._wrap(float(s_guess))
        s, inside = closest_point(
            *self.kernel_data,
            np.asarray(q, dtype=float),
            float(p[0]),
            float(p[1]),
            s,
            tol,
            self.closed,
        )
        return (s, self.curve(s, q)) if inside else (s, None)

    def _wrap(self, s: float) -> float:
        """s clipped to [0, length]; on a closed string taken modulo the length."""
        if self.closed:
            return float(s) % self.length
        return min(max(float(s), 0.0), self.length)

    def _shape(self, s: float):
        """(s clipped (closed: modulo the length), element, its terms, the four scalar Hermite
        functions N, N_s, N_ss at s as float tuples): the element's polynomials in the local
        coordinate (Horner's rule)."""
        s = self._wrap(s)
        e = min(max(bisect.bisect_right(self._node_list, s) - 1, 0), len(self._element_terms) - 1)
        x0, le, terms = self._element_terms[e]
        z = (s - x0) / le
        N = tuple(c0 + z * (c1 + z * (c2 + z * c3)) for c0, c1, c2, c3, *_ in terms)
        N_s = tuple((c1 + z * (2.0 * c2 + 3.0 * z * c3)) / le for _, c1, c2, c3, *_ in terms)
        N_ss = tuple((2.0 * c2 + 6.0 * z * c3) / (le * le) for _, _, c2, c3, *_ in terms)
        return s, e, terms, N, N_s, N_ss

    def _local_curve(self, s: float, q: np.ndarray):
        """r, r' and r'' at s in plain floats (the element's polynomials of ``curve``), for the
        closest-point iteration."""
        _, _, terms, N, N_s, N_ss = self._shape(s)
        return _string_point(terms, N, N_s, N_ss, q)

    def curve(self, s, q):
        s, e, terms, N, N_s, N_ss = self._shape(s)
        (rx, ry), (ax, ay), (bx, by) = _string_point(terms, N, N_s, N_ss, q)
        metric = math.hypot(ax, ay)
        tx, ty = ax / metric, ay / metric
        rows = np.zeros((3, 2, 8))  # local DOFs (x0, y0, x0', y0', x1, y1, x1', y1')
        rows[:, 0, 0::2] = (N, N_s, N_ss)
        rows[:, 1, 1::2] = (N, N_s, N_ss)
        keep = self._element_keep[e]
        rows = rows[:, :, keep]
        return CurvePoint(
            s=s,
            element=e,
            position=np.array((rx, ry)),
            slope=np.array((ax, ay)),
            slope_rate=np.array((bx, by)),
            tangent=np.array((tx, ty)),
            normal=np.array((-ty, tx)),  # PERP @ tangent
            curvature=(ax * by - ay * bx) / metric**3,
            dofs=self._element_cols[e],
            rows=rows[0],
            rows_s=rows[1],
            rows_ss=rows[2],
        )

    def point_rows(self, s):
        s = np.atleast_1d(np.asarray(s, dtype=float))
        s = np.mod(s, self.length) if self.closed else np.clip(s, 0.0, self.length)
        model = self.string
        jac = _string.position_jacobian(model, s)  # block (m, 2, 8) on the full DOFs
        cols = self.free_index[jac.dofs]
        fixed = np.where(cols < 0, model.q_prescribed[jac.dofs], 0.0)
        offset = np.einsum("mck,mk->mc", jac.block, fixed)
        return _point_rows(s, offset, cols, jac.block)


def _string_point(terms, N, N_s, N_ss, q):
    """(r, r', r'') as float pairs from an element's terms (``StringStructure``) and its shape
    functions at a point, with the free coordinates q and the prescribed values."""
    rx = ry = ax = ay = bx = by = 0.0
    for (*_, col_x, fixed_x, col_y, fixed_y), n0, n1, n2 in zip(terms, N, N_s, N_ss, strict=True):
        x = float(q[col_x]) if col_x >= 0 else fixed_x
        y = float(q[col_y]) if col_y >= 0 else fixed_y
        rx += n0 * x
        ry += n0 * y
        ax += n1 * x
        ay += n1 * y
        bx += n2 * x
        by += n2 * y
    return (rx, ry), (ax, ay), (bx, by)


def _string_coefficients(model) -> np.ndarray:
    """Monomial coefficients in the local coordinate z in [0, 1] of each element's four scalar
    Hermite functions: the table the string's element (``elements.hermite``) evaluates in its
    basis, so point evaluations use the very shape functions of the assembly.
    (n_elements, 4, 4)."""
    return shape_coefficients(np.diff(model.nodes))


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
    "BeamStructure",
    "CurvePoint",
    "PointRows",
    "StringStructure",
    "Structure",
    "material_velocity",
    "slope_velocity",
]
