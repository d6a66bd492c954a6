"""The absolute-nodal string / geometrically exact beam of Eugster-Glocker (004) as a
``Structure``: its curve from the nodal positions and slopes, its nonlinear internal force and
tangent, and its closest point (``kernels.string.closest``)."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..elements import string as _string
from ..elements.hermite import shape_coefficients
from ..elements.string_forces import element_tangents as _element_tangents
from ..kernels.string import closest as closest_point
from .base import CurvePoint, Structure, point_rows_from


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
        self.node_rows = self.point_rows(self.nodes)  # the closest point's start

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
        tangents (u_e k_e u_e), without assembling the sparse tangent; 0 without damping
        (what the empty product gives, without the sparse product's set-up)."""
        power = float(u @ (self.damping_matrix @ u)) if self.damping_matrix.nnz else 0.0
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
            nodes = self.node_rows.positions(q)
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
        return point_rows_from(s, offset, cols, jac.block)


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


__all__ = ["StringStructure"]
