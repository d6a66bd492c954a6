"""The flexible part of a Moreau-Jean step in LAPACK band storage: smooth forces and the
effective mass ``M_f + theta h C_f(q) + theta^2 h^2 K_t(q)`` (Eugster-Glocker (004), sec. 4.4;
``steppers.moreau``, step 2), factorised by a banded LU with partial pivoting: LAPACK's
(``dgbtrf``) for the generalised-alpha iteration matrix, the compiled one of ``kernels.band``
(dgbtf2's operations, the same factors) for the Moreau-Jean step, whose kernels solve with it.

The structures' coordinates couple only within an element, and the free coordinates of every
structure are numbered node by node: the flexible block is banded with a half-bandwidth of
about two nodes' coordinates, whatever the number of elements. Band storage and a banded
LU cost O(n b^2) per step, without the sparse formats' set-up (COO to CSC conversions, block
assembly, SuperLU's ordering) that dominates a string of a few elements; the string's element
tangents (``StringStructure.force_and_element_tangents``) are scattered straight into the band.
A linear structure's stiffness is constant: it enters the band once. When every structure is
linear and none has stiffness-proportional damping, the effective mass depends on h alone and
its factors are kept per step size (halved sub-steps have their own).

Entries are summed in the order of the sparse assembly (``System.flexible_tangent``), so the
effective mass is the same to the last bit; its factors differ from SuperLU's in round-off.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg.lapack import dgbtrf, dgbtrs

from ..elements.tension import LinearElastic, NeoHookean
from ..kernels import string as string_kernels
from ..kernels.band import add_entries, band_lu_factor, band_lu_solve, band_product, smooth_band
from ..structures import StringStructure

__all__ = ["BandFactor", "FlexibleBlock", "law_compiled"]


class _BandScatter:
    """Flat indices of the entries (i, j) of an n x n matrix in LAPACK band storage for dgbtrf
    (``ab[kl + ku + i - j, j]``, 2 kl + ku + 1 rows) with kl = ku = ``band``."""

    def __init__(self, n: int, band: int):
        self.n, self.band = n, band
        self.rows = 3 * band + 1

    def index(self, i, j) -> np.ndarray:
        i, j = np.asarray(i), np.asarray(j)
        if np.any(np.abs(i - j) > self.band):
            raise ValueError("an entry lies outside the band")  # guarded by the band's choice
        return (2 * self.band + i - j) * self.n + j

    def add_sparse(self, ab: np.ndarray, matrix, offset: int, scale: float = 1.0) -> None:
        coo = sp.coo_matrix(matrix)
        flat = ab.reshape(-1)
        np.add.at(flat, self.index(coo.row + offset, coo.col + offset), scale * coo.data)


def _half_band(matrix) -> int:
    coo = sp.coo_matrix(matrix)
    return int(np.abs(coo.row - coo.col).max(initial=0))


def _law_code(law):
    """(code, stiffness in N) of a tension law that ``kernels.string.tension_law`` evaluates,
    else None (a user's law: evaluated by the string's Python methods)."""
    if type(law) is NeoHookean:
        return string_kernels.NEO_HOOKEAN, float(law.k)
    if type(law) is LinearElastic:
        return string_kernels.LINEAR_ELASTIC, float(law.EA)
    return None


def law_compiled(law) -> bool:
    """Does ``kernels.string.tension_law`` evaluate the tension law ``law`` (else a string
    with it is evaluated by its Python methods)?"""
    return _law_code(law) is not None


class StringPart:
    """Scatter of a string's element tangents (n_el, 8, 8) into the band: entries whose row
    and column are free coordinates, in element order (that of the sparse assembly); and,
    when its tension law is one the kernels know, its arguments of
    ``kernels.string.string_response``."""

    def __init__(self, structure: StringStructure, offset: int, scatter: _BandScatter):
        free = structure.element_free_index()  # (n_el, 8), -1 at fixed DOFs
        rows = np.repeat(free[:, :, None], 8, axis=2)
        cols = np.repeat(free[:, None, :], 8, axis=1)
        keep = ((rows >= 0) & (cols >= 0)).ravel()
        self.keep = np.flatnonzero(keep)
        self.flat = scatter.index(rows.ravel()[keep] + offset, cols.ravel()[keep] + offset)
        self.size = scatter.rows * scatter.n
        model = structure.string
        law = _law_code(model.spec.law)
        self.compiled = law is not None
        if self.compiled:
            element_dofs = np.ascontiguousarray(model.basis.element_dofs.T)  # (n_el, 8)
            self.arguments = (
                np.ascontiguousarray(free, dtype=np.int64),
                np.ascontiguousarray(model.q_prescribed[element_dofs], dtype=float),
                np.ascontiguousarray(model.shape_slopes, dtype=float),
                np.ascontiguousarray(model.shape_curvatures, dtype=float),
                np.ascontiguousarray(model.ref_metric, dtype=float),
                float(model.spec.bending_stiffness),
                np.ascontiguousarray(model.ref_bending_strain, dtype=float),
                np.ascontiguousarray(model.dx, dtype=float),
                *law,
            )
            self.n_free = int(structure.n_dofs)

    def band(self, element_tangents: np.ndarray) -> np.ndarray:
        """The tangent in band storage (flat), summed by np.bincount in element order."""
        return np.bincount(
            self.flat, weights=element_tangents.reshape(-1)[self.keep], minlength=self.size
        )

    def response(self, q: np.ndarray, order: int):
        """(f_int (n_free,), element tangents (n_el, 8, 8) for order 2, strain energy in J)
        at the string's free coordinates q (``kernels.string.string_response``)."""
        return string_kernels.string_response(
            np.ascontiguousarray(q, dtype=float), *self.arguments, order, self.n_free
        )


class FlexibleBlock:
    """Smooth forces and effective mass of the flexible part of ``system`` (module docstring).

    ``step(q_f, u_f, theta, h)`` returns (f, factor): the force ``Q_f - f_int(q_f) - C_f(q_f)
    u_f`` (n_flexible,) and the ``BandFactor`` of M_eff (compiled band LU, ``kernels.band``),
    whose call solves ``M_eff x = b`` for b of shape (n_flexible,) or (n_flexible, k).
    """

    def __init__(self, system):
        lay = system.layout
        self.n = n = lay.n_flexible
        self.load = system.load_flexible
        structures = list(system.structures.items())
        offsets = [lay.structure(name).start - lay.n_tree for name, _ in structures]
        band = 0
        for _, st in structures:
            if isinstance(st, StringStructure):  # the tangent couples an element's DOFs
                free = st.element_free_index().astype(float)
                free[free < 0] = np.nan
                span = np.nan_to_num(np.nanmax(free, 1) - np.nanmin(free, 1))
                own = max(_half_band(st.mass_matrix), int(span.max(initial=0)))
            elif st.linear:
                own = max(_half_band(st.mass_matrix), _half_band(st.stiffness_matrix))
            else:  # a nonlinear structure of unknown pattern: a full block
                own = st.n_dofs - 1
            band = max(band, own, _half_band(st.damping_matrix))
        self.band = band = min(band, max(n - 1, 0))
        self.scatter = scatter = _BandScatter(n, band)
        self.mass = np.zeros((scatter.rows, n))
        self.damping = np.zeros((scatter.rows, n))
        self.stiffness = np.zeros((scatter.rows, n))  # linear structures
        scatter.add_sparse(self.mass, system.mass_flexible, 0)
        scatter.add_sparse(self.damping, system.damping_flexible, 0)
        self.parts = []  # (structure, slice in the flexible part, StringPart or None)
        for (_, st), offset in zip(structures, offsets, strict=True):
            sl = slice(offset, offset + st.n_dofs)
            if st.linear:
                scatter.add_sparse(self.stiffness, st.stiffness_matrix, offset)
                part = "linear"
            elif isinstance(st, StringStructure):
                part = StringPart(st, offset, scatter)
            else:
                part = None
            self.parts.append((st, sl, part))
        self.constant = all(st.linear and st.stiffness_damping == 0.0 for st, _, _ in self.parts)
        self.linear = all(st.linear for st, _, _ in self.parts)
        self.damping_matrix = system.damping_flexible
        self.stiffness_matrix = system.stiffness_flexible
        self._factors = {}  # (theta, h) -> factors of a constant effective mass
        self._last = None  # (q, band of C_f(q)) of the last ``step`` with a varying C_f

    def _nonlinear(self, q, compiled: bool = True):
        """f_int(q) (n,), and the band of the structures' tangent K_t(q) (flat); with
        ``compiled`` False the strings' own methods even where the law is compiled."""
        f = np.empty(self.n)
        k = self.stiffness.reshape(-1).copy()
        for st, sl, part in self.parts:
            if part == "linear":
                f[sl] = st.stiffness_matrix @ q[sl]
            elif part is None:
                f[sl] = st.internal_force(q[sl])
                self.scatter.add_sparse(
                    k.reshape(self.mass.shape), st.tangent_stiffness(q[sl]), sl.start
                )
            elif compiled and part.compiled:  # the tension law compiled too
                f[sl], tangents, _ = part.response(q[sl], 2)
                k = add_entries(k, part.flat, part.keep, tangents)
            else:
                f[sl], tangents = st.force_and_element_tangents(q[sl])
                k += part.band(tangents)
        return f, k.reshape(self.mass.shape)

    def internal_force(self, q) -> tuple[np.ndarray, dict]:
        """(f_int(q) (n_flexible,) in N, {structure name: strain energy in J} of the strings
        whose tension law is compiled, evaluated with their forces); the other structures'
        forces are their ``internal_force``."""
        f = np.empty(self.n)
        elastic = {}
        for st, sl, part in self.parts:
            if isinstance(part, StringPart) and part.compiled:
                f[sl], _, elastic[st.name] = part.response(q[sl], 1)
            else:
                f[sl] = st.internal_force(q[sl])
        return f, elastic

    def iteration_matrix(self, q, c: float, k: float):
        """Factors of ``M_f + c C_f(q) + k K_t(q)`` (the iteration matrix of a generalised-alpha
        step with a nonlinear structure: c = gamma', k = beta'), as an object whose
        ``solve(b)`` takes b of shape (n_flexible,) or (n_flexible, j)."""
        # the strings' own tangents: the generalised-alpha step's residual takes their forces,
        # and its Newton iterates at the round-off floor follow the last bits of this matrix
        _, stiffness = self._nonlinear(q, compiled=False)
        damping = self._damping(stiffness)
        ab = self.mass + c * damping + k * stiffness
        return BandFactor(_factor(ab, self.band), self.band)

    def _damping(self, stiffness):
        """C_f(q) in band storage: the constant part plus beta K_t(q) on the columns of each
        structure with stiffness-proportional damping (``stiffness``: the band of K_t(q))."""
        damping = self.damping
        if any(st.stiffness_damping != 0.0 for st, _, _ in self.parts):
            damping = damping.copy()
            for st, sl, _ in self.parts:  # beta K_t on the columns of the structure
                damping[:, sl] += st.stiffness_damping * stiffness[:, sl]
        return damping

    def step(self, q, u, theta: float, h: float):
        if self.constant:
            f = self.stiffness_matrix @ q
            force = self.load - f - self.damping_matrix @ u
            key = (theta, h)
            if key not in self._factors:
                if len(self._factors) > 32:
                    self._factors.clear()
                ab = self.mass + theta * h * self.damping + theta**2 * h**2 * self.stiffness
                self._factors[key] = BandFactor(_compiled_factor(ab, self.band), self.band, True)
            return force, self._factors[key]
        f, k = self._nonlinear(q)
        damping = self._damping(k)
        self._last = (np.array(q), damping)
        force, ab = smooth_band(  # load - f - C u and M + theta h C + theta^2 h^2 K
            self.load,
            f,
            damping,
            int(self.band),
            np.ascontiguousarray(u, dtype=float),
            self.mass,
            k,
            theta * h,
            theta**2 * h**2,
        )
        return force, BandFactor(_compiled_factor(ab, self.band), self.band, True)

    def damping_product(self, q, x) -> np.ndarray:
        """C_f(q) x, (n_flexible,), N, for x (n_flexible,) in m/s: the damping matrix that
        ``step`` used at the same q (kept), else assembled at q."""
        if self.constant or not any(st.stiffness_damping for st, _, _ in self.parts):
            if self.damping_matrix.nnz == 0:  # no damping (a string's own): exact zeros
                return np.zeros(self.n)
            return self.damping_matrix @ x
        if self._last is None or not np.array_equal(self._last[0], q):
            _, stiffness = self._nonlinear(q)
            self._last = (np.array(q), self._damping(stiffness))
        return _band_product(self._last[1], self.band, x)


def _band_product(ab: np.ndarray, band: int, x: np.ndarray) -> np.ndarray:
    """A x for A in dgbtrf band storage (the first ``band`` rows are the fill-in space;
    ``kernels.band.band_product``)."""
    return band_product(ab, int(band), np.ascontiguousarray(x, dtype=float))


def _factor(ab: np.ndarray, band: int):
    lu, piv, info = dgbtrf(ab, band, band, overwrite_ab=1)
    if info != 0:
        raise np.linalg.LinAlgError(
            f"the effective mass of the structures is singular (dgbtrf info = {info})"
        )
    return lu, piv


def _compiled_factor(ab: np.ndarray, band: int):
    """``_factor`` by the compiled band LU (``kernels.band.band_lu_factor``: dgbtf2's operations,
    the same factors and pivots)."""
    lu, piv, info = band_lu_factor(ab, int(band))
    if info != 0:
        raise np.linalg.LinAlgError(
            f"the effective mass of the structures is singular (zero pivot in column {info})"
        )
    return lu, piv


class BandFactor:
    """Banded LU factors (``dgbtrf``'s storage and 0-based pivots) of an n x n matrix with
    half-bandwidth ``band``; ``solve(b)`` (or calling it) for b of shape (n,) or (n, j), as a
    SuperLU object's: by LAPACK's dgbtrs, or with ``compiled`` by ``kernels.band.band_lu_solve``
    (dgbtrs' operations). ``lu``, ``piv``: the factors, for compiled callers."""

    def __init__(self, factors, band: int, compiled: bool = False):
        self.factors, self.band, self.compiled = factors, int(band), compiled
        self.lu, self.piv = factors

    def solve(self, rhs):
        rhs = np.asarray(rhs, dtype=float)
        flat = rhs.ndim == 1
        rhs = rhs[:, None] if flat else rhs
        if self.compiled:
            x = band_lu_solve(self.lu, self.piv, self.band, np.ascontiguousarray(rhs))
        else:
            x = dgbtrs(self.lu, self.band, self.band, rhs, self.piv)[0]
        return x[:, 0] if flat else x

    __call__ = solve
