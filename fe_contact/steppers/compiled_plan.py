"""What the compiled generalised-alpha step needs of a system, built once per run (which systems
it takes: ``compiled_scope``): ``Plan``: the system's constant arrays packed for the
kernels (``kernels.pack``), the drives and actuators evaluated per step, and the banded
factors of the structures' block G_f = M_f + gamma' C_f + beta' K_f per step size (linear
beams; a string's G_f holds its tangent stiffness and is factorised by the kernels at each
Newton iterate, from the band storage of ``effective_mass.FlexibleBlock``; with links between
material points of the beams, G_f in the links' band order, to which the kernels add the taut
links' tangent at each iterate, ``kernels.links``)."""

from __future__ import annotations

import functools
import operator
import weakref

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..kernels.beam import DIAGONALS_FROM, beam_arrays, diagonal_storage, on_pattern
from ..kernels.evaluate import PAIR
from ..kernels.pack import pack
from ..kernels.profile_pair import spline_rows
from ..kernels.tree import tree_arrays
from ..multibody.tree import actuator_forces
from ..sides import Profile
from ..structures import BeamStructure, StringStructure
from ..system import System
from .compiled_scope import (
    beam_index,
    pressed_contact,
    profile_frame,
    rolling_compiled,
    row_contacts,
    row_pair,
)
from .effective_mass import FlexibleBlock
from .linked_band import linked_band

# banded factors of G_f kept per system (step sizes; the least recently used goes first):
# locating an event takes the step at some ten sizes, each factorised once
FACTORS_KEPT = 16
# the band of G_f given to the kernels for a system without links (``Plan.link_band``)
NO_BAND = np.ones((1, 0))


def pressed_arrays(system: System) -> tuple:
    """The compliant contacts' tuple of ``kernels.step``'s P (``kernels.compliant``), in the
    model's order: (body, local point (n_p, 2), beam, side, law (n_p, 7): exponent,
    stiffness, damping, mu and v0 of the continuous friction (0 without), the slip speed
    below which a rolling law starts to roll (v0 / 2; 0 for a law that does not roll) and
    the static coefficient mu_s that holds it rolling (0 for such a law), then the profile pairs' arrays of ``kernels.profile_pair``: frame
    kind (n_p, 2) (-1: a body point on a beam), frame index (n_p, 2), frame s (n_p, 2), curve
    (2 n_p, 4), curve range (2 n_p, 2), knots, control points); empty arrays without such
    contacts."""
    model = system.model
    found = [
        (k, c) for k, c in enumerate(model.contacts) if c.compliant and pressed_contact(system, c)
    ]
    frames, curves, ranges, knots, points = [], [], [], [], []
    n_knots = n_points = 0
    # after the compliant ones, the profile pairs with rows (``row_pair``, row n_p + j of
    # the pairs' arrays for the j-th of them: ``_ConstantArrays``)
    with_rows = [(None, c) for c in row_contacts(model) if row_pair(system, c)]
    for _, c in found + with_rows:
        pair = type(c.profile) is Profile
        frames.append(
            [profile_frame(system, side.body) for side in (c.profile, c.target)]
            if pair
            else [(-1, 0, 0.0)] * 2
        )
        if pair:
            rows = spline_rows((c.profile, c.target), n_knots, n_points)
            for packed, more in zip((curves, ranges, knots, points), rows[:4], strict=True):
                packed += more
            n_knots, n_points = rows[4:]
        else:  # no curves: the rows keep their place (curve 2 i, 2 i + 1)
            curves += [(0, 0, 0, 0)] * 2
            ranges += [(0.0, 1.0)] * 2
    frames = np.array(frames, dtype=object).reshape(-1, 2, 3)
    point = [type(c.profile) is not Profile for _, c in found]
    return (
        np.array(
            [c.profile.body if p else 0 for (_, c), p in zip(found, point, strict=True)],
            dtype=np.int64,
        ),
        np.array(
            [
                system.profile_points[k] if p else (0.0, 0.0)
                for (k, _), p in zip(found, point, strict=True)
            ],
            dtype=float,
        ).reshape(-1, 2),
        np.array(
            [
                beam_index(system, c.target) if p else -1
                for (_, c), p in zip(found, point, strict=True)
            ],
            dtype=np.int64,
        ),
        np.array([float(c.side) if p else 1.0 for (_, c), p in zip(found, point, strict=True)]),
        np.array(
            [
                (
                    c.law.exponent,
                    c.law.stiffness,
                    c.law.damping,
                    c.law.mu if c.law.compiled_friction or rolling_compiled(c.law) else 0.0,
                    c.law.characteristic_velocity or 0.0,
                    0.5 * c.law.v0 if rolling_compiled(c.law) else 0.0,
                    c.law.mu_s if rolling_compiled(c.law) else 0.0,
                )
                for _, c in found
            ],
            dtype=float,
        ).reshape(-1, 7),
        np.ascontiguousarray(frames[:, :, 0], dtype=np.int64),
        np.ascontiguousarray(frames[:, :, 1], dtype=np.int64),
        np.ascontiguousarray(frames[:, :, 2], dtype=float),
        np.array(curves, dtype=np.int64).reshape(-1, 4),
        np.array(ranges, dtype=float).reshape(-1, 2),
        np.concatenate(knots) if knots else np.zeros(0),
        np.concatenate(points) if points else np.zeros((0, 2)),
    )


def link_arrays(system: System) -> tuple:
    """The links tuple of ``kernels.step``'s P (``kernels.links``): the constant rows of the
    links between material points of linear beams (``System.link_rows``), their Dropper laws,
    and the band order of the structures' coordinates with every link taut
    (``linked_band.LinkedBand``); the same arrays empty for a system without such links."""
    rows = system.link_rows
    band = linked_band(system) if rows.size else None
    if band is None:
        return (
            np.zeros((0, 1), dtype=np.int64),
            np.zeros((0, 2, 1)),
            np.zeros((0, 2)),
            np.zeros(0),
            np.zeros(0),
            np.zeros(0),
            np.zeros(0, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )
    laws = [system.model.contacts[k].law for k in rows.pairs.tolist()]
    return (
        np.ascontiguousarray(rows.dofs, dtype=np.int64),
        np.ascontiguousarray(rows.rows, dtype=float),
        np.ascontiguousarray(rows.offset, dtype=float),
        np.ascontiguousarray(rows.length, dtype=float),
        np.array([law.stiffness for law in laws], dtype=float),
        np.array([law.damping for law in laws], dtype=float),
        np.ascontiguousarray(band.order, dtype=np.int64),
        np.ascontiguousarray(band.position, dtype=np.int64),
    )


def _string_part(system: System):
    """The band storage of the one string's G_f (``effective_mass.FlexibleBlock``): (the block,
    the string's part: its scatter into the band and its ``kernels.string`` arguments)."""
    block = FlexibleBlock(system)
    return block, block.parts[0][2]


def string_arrays(system: System) -> tuple:
    """The string tuple of ``kernels.step``'s P (``kernels.string.string_forces``): for a
    system whose one structure is a string, (meta (present 1, half-band, n_free), (EI, law
    code, stiffness), columns, fixed, shape_slopes, shape_curvatures, metric, ref_strain, dx,
    nodes, coefficients, M_f in band storage, flat, keep); otherwise the same arrays empty,
    present 0."""
    structures = list(system.structures.values())
    if len(structures) != 1 or not isinstance(structures[0], StringStructure):
        return (
            np.zeros(3, dtype=np.int64),
            np.zeros(3),
            np.zeros((0, 8), dtype=np.int64),
            np.zeros((0, 8)),
            np.zeros((0, 4, 0)),
            np.zeros((0, 4, 0)),
            np.zeros((0, 0)),
            np.zeros((0, 0)),
            np.zeros((0, 0)),
            np.zeros(0),
            np.zeros((0, 4, 4)),
            np.zeros((0, 0)),
            np.zeros(0, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )
    string = structures[0]
    block, part = _string_part(system)
    columns, fixed, slopes, curvatures, metric, ei, ref_strain, dx, law, stiffness = part.arguments
    nodes, coefficients, _, _ = string.kernel_data
    return (
        np.array([1, block.band, string.n_dofs], dtype=np.int64),
        np.array([ei, law, stiffness], dtype=float),
        columns,
        fixed,
        slopes,
        curvatures,
        metric,
        ref_strain,
        dx,
        nodes,
        coefficients,
        np.ascontiguousarray(block.mass),
        np.ascontiguousarray(part.flat, dtype=np.int64),
        np.ascontiguousarray(part.keep, dtype=np.int64),
    )


def _asymmetry(row: np.ndarray, col: np.ndarray, values: np.ndarray, n: int) -> float:
    """max |G_ij - G_ji| of the n x n matrix G given by its nonzero entries (row, col,
    values), each once: G's lower triangle and the transpose of its upper one laid out in
    band storage (``scipy.linalg.cholesky_banded``'s lower form) and compared."""
    width = int(np.max(np.abs(row - col))) + 1
    lower, upper = np.zeros((width, n)), np.zeros((width, n))
    below, above = row >= col, row <= col
    lower[row[below] - col[below], col[below]] = values[below]
    upper[col[above] - row[above], row[above]] = values[above]
    return float(np.max(np.abs(lower - upper)))


def _mirror(row: np.ndarray, col: np.ndarray, n: int) -> tuple:
    """(where, present) of the entries (row, col) of an n x n pattern (row-major order, each
    once): entry k's mirror (col_k, row_k) is entry where[k] when present[k]."""
    keys = row * n + col
    mirrored = col * n + row
    where = np.minimum(np.searchsorted(keys, mirrored), keys.size - 1)
    return where, keys[where] == mirrored


def _mirror_asymmetry(values: np.ndarray, where: np.ndarray, present: np.ndarray) -> float:
    """max |G_ij - G_ji| of the matrix with the entries ``values`` on the pattern of
    ``_mirror`` (an entry whose mirror is not stored is compared with zero): ``_asymmetry``'s
    value, each difference the same up to its sign."""
    return float(np.max(np.abs(values - np.where(present, values[where], 0.0)), initial=0.0))


def common_pattern(matrices) -> list[tuple]:
    """(indptr, indices, data) of each sparse matrix (all of one shape) on their common
    sparsity pattern, in CSR with sorted indices: the union of their nonzero entries (those
    of |X_1| + |X_2| + ...), explicit zeros where a matrix has none; what
    ``kernels.beam.on_pattern`` gives for each on the pattern of that sum.

    Parameters
    ----------
    matrices : sequence of scipy.sparse matrices
        Square or not, one shape; in CSR or CSC.

    Returns
    -------
    list of (ndarray, ndarray, ndarray)
        Per matrix: indptr (n_rows + 1,) and indices (nnz,) as int64, the same arrays'
        values for all, and its data (nnz,) on them.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> A = sp.csc_matrix(np.array([[1.0, 0.0], [2.0, 3.0]]))
    >>> B = sp.csc_matrix(np.array([[0.0, 4.0], [0.0, 5.0]]))
    >>> (indptr, indices, a), (_, _, b) = common_pattern((A, B))
    >>> indptr.tolist(), indices.tolist(), a.tolist(), b.tolist()
    ([0, 2, 4], [0, 1, 0, 1], [1.0, 0.0, 2.0, 3.0], [0.0, 4.0, 0.0, 5.0])
    """
    shape = matrices[0].shape
    if not all(
        X.format in ("csr", "csc") and X.has_canonical_format and X.shape == shape for X in matrices
    ):  # the general route: the pattern of the sum, each matrix placed on it
        pattern = functools.reduce(operator.add, [abs(X) for X in matrices]).tocsr()
        return [on_pattern(X, pattern) for X in matrices]
    n_col = max(shape[1], 1)
    own = []
    for X in matrices:  # each entry once: its (row, column) key, the nonzero ones
        outer = np.repeat(np.arange(X.indptr.size - 1, dtype=np.int64), np.diff(X.indptr))
        inner = X.indices.astype(np.int64)
        rows, cols = (outer, inner) if X.format == "csr" else (inner, outer)
        stored = X.data != 0.0
        own.append(((rows * n_col + cols)[stored], X.data[stored]))
    keys = np.sort(np.concatenate([k for k, _ in own]), kind="stable")  # np.unique's values,
    first = np.empty(keys.size, dtype=bool)  # without its overhead (80 us for 2400 keys)
    first[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    keys = keys[first]
    rows = keys // n_col
    indptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=indptr[1:])
    indices = keys - rows * n_col
    out = []
    for k, values in own:
        data = np.zeros(keys.size)
        data[np.searchsorted(keys, k)] = values
        out.append((indptr.copy(), indices.copy(), data))
    return out


def symmetry_bound(asymmetries, bp: float, gp: float) -> float:
    """An upper bound of max |G_ij - G_ji| for G = M + gp C + bp K with its entries summed in
    floating point (each within 3 eps of its sum of magnitudes), from the asymmetry a_X and
    the largest entry x_X of M, C and K (``asymmetries``: ((a_M, x_M), (a_C, x_C), (a_K,
    x_K))): a_M + gp a_C + bp a_K + 8 eps (x_M + gp x_C + bp x_K).

    Parameters
    ----------
    asymmetries : tuple of three (float, float)
        (asymmetry, largest absolute entry) of M, C and K.
    bp, gp : float
        beta' and gamma' of the step size, >= 0.

    Returns
    -------
    float
        The bound.

    Examples
    --------
    >>> symmetry_bound(((0.0, 1.0), (0.0, 0.0), (1e-10, 1e4)), 1e-9, 1e-4) < 1e-14
    True
    """
    (a_m, x_m), (a_c, x_c), (a_k, x_k) = asymmetries
    eps = np.finfo(float).eps
    return float(a_m + gp * a_c + bp * a_k + 8.0 * eps * (x_m + gp * x_c + bp * x_k))


class _ConstantArrays:
    """The arrays of ``Plan`` that depend on the system alone (``Plan`` describes them),
    formed once per system (``_CONSTANT_ARRAYS``) and shared by its runs, which only read
    them."""

    def __init__(self, system: System):
        model = system.model
        tree = system.tree
        lay = system.layout
        names = list(lay.structure_names)
        beams = {n: s for n in names if isinstance(s := system.structures[n], BeamStructure)}
        # the contacts with rows (``row_contacts``); a pair of curved profiles (``row_pair``)
        # has the beam index PAIR and, as its carrier, its row in the pairs' arrays after the
        # compliant contacts' (``pressed_arrays``), its other entries zero
        contacts = row_contacts(model)
        pairs = [row_pair(system, c) for c in contacts]
        n_p = sum(1 for c in model.contacts if c.compliant and pressed_contact(system, c))
        pair_rows = np.cumsum(pairs) - 1 + n_p
        points = [
            (0.0, 0.0) if pair else system.profile_points[model.contacts.index(c)]
            for c, pair in zip(contacts, pairs, strict=True)
        ]
        lines = [
            None if isinstance(c.target, str) or pair else c.target
            for c, pair in zip(contacts, pairs, strict=True)
        ]
        self.contacts = (
            np.array(
                [0 if pair else c.profile.body for c, pair in zip(contacts, pairs, strict=True)],
                dtype=np.int64,
            ),
            np.array(points, dtype=float).reshape(-1, 2),
            np.array(
                [
                    0.0 if pair else c.profile.radius
                    for c, pair in zip(contacts, pairs, strict=True)
                ],
                dtype=float,
            ),
            np.array([float(c.side) for c in contacts]),
            np.array(
                [
                    PAIR if pair else -1 if ln else names.index(c.target)
                    for c, ln, pair in zip(contacts, lines, pairs, strict=True)
                ],
                dtype=np.int64,
            ),
            np.array([c.mu for c in contacts], dtype=float),
            np.array(
                [(0.0,) * 4 if ln is None else (*ln.point, *ln.normal) for ln in lines], dtype=float
            ).reshape(-1, 4),
            np.array(
                [
                    row if pair else -1 if ln is None or ln.body is None else ln.body
                    for ln, pair, row in zip(lines, pairs, pair_rows, strict=True)
                ],
                dtype=np.int64,
            ),
        )
        joints = (
            np.array([j.stiffness for j in tree.joints], dtype=float),
            np.array([j.damping for j in tree.joints], dtype=float),
            np.array([j.rest for j in tree.joints], dtype=float),
        )
        M, C, K = system.mass_flexible, system.damping_flexible, system.stiffness_flexible
        if K is None:  # a string: f_int(q) and its tangent from its kernels, K_f zero here
            K = sp.csr_matrix(M.shape)
        # all six on one sparsity pattern, so that the kernels form products with several of
        # them in one pass over the indices (``kernels.beam.csr_matvec2``)
        signed = common_pattern((M, C, K))
        pattern_nnz = signed[0][1].size
        # |X| on the pattern: the absolute values of X's own entries there
        absolute = [(indptr, indices, np.abs(data)) for indptr, indices, data in signed]
        # |M_f|, |C_f|, |K_f| in CSR for ``StepAlgebra.residual_floor`` where the pattern is
        # the matrix's own (its stored entries, each once and nonzero, are the pattern's: the
        # same entries in the same order as its own |X|), else None
        self.absolute = tuple(
            sp.csr_matrix((data, indices, indptr), shape=X.shape)
            if X.has_canonical_format and X.nnz == pattern_nnz and np.count_nonzero(X.data) == X.nnz
            else None
            for X, (indptr, indices, data) in zip(
                (M, C, system.stiffness_flexible), absolute, strict=True
            )
            if X is not None
        )
        flexible = (
            *signed,
            *absolute,
            np.ascontiguousarray(system.load_flexible, dtype=float),
            np.ascontiguousarray(M.diagonal(), dtype=float),
        )
        self.P = (
            tree_arrays(tree),
            beam_arrays(beams, lay),
            self.contacts,
            np.array([d.joint for d in model.drives], dtype=np.int64),
            joints,
            flexible,
            lay.n_tree,
            string_arrays(system),
            link_arrays(system),
            pressed_arrays(system),
            # M_f, C_f, K_f, |M_f|, |C_f|, |K_f| on their diagonals where the pattern is a
            # narrow band (beams) and long enough: the kernels' products vectorise
            # (``kernels.beam``)
            diagonal_storage([*signed, *absolute], M.shape[0])
            if M.shape[0] >= DIAGONALS_FROM
            else np.zeros((6, 0, 0)),
        )
        self.packed = pack(self.P)
        # G_f is formed on the pattern: the row and column of each entry, M, C, K there
        indptr, indices = signed[0][:2]
        self.entries = (
            np.repeat(np.arange(indptr.size - 1), np.diff(indptr)),
            indices,
            *(data for _, _, data in signed),
        )
        self.n_flexible = M.shape[0]
        # the asymmetry max |X_ij - X_ji| and the largest entry of M, C and K: with them
        # ``Plan.factor`` bounds G_f's asymmetry for a step size without testing it entry by
        # entry (``symmetry_bound``)
        row, col = self.entries[:2]
        mirror = _mirror(row, col, self.n_flexible) if row.size else None
        self.asymmetries = tuple(
            (_mirror_asymmetry(x, *mirror), float(np.max(np.abs(x), initial=0.0)))
            if row.size and x.any()
            else (0.0, 0.0)  # no entries, or all zero (C_f = 0 without damping)
            for x in self.entries[2:]
        )
        self.one_string = bool(self.P[7][0][0])  # the one structure is a string


# the constant arrays of each system still referenced (``Plan``)
_CONSTANT_ARRAYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class Plan:
    """The constant arrays of a system for the compiled step (``kernels.step``), the drives
    and actuators evaluated per step, and the banded factors of G_f per step size: run state
    (which factor a step reuses depends on the steps before), so each stepper makes its own."""

    def __init__(self, system: System):
        constant = _CONSTANT_ARRAYS.get(system)
        if constant is None:  # the same for every run of the system: formed once
            constant = _CONSTANT_ARRAYS[system] = _ConstantArrays(system)
        self.contacts = constant.contacts
        self.absolute = constant.absolute
        self.P = constant.P
        self.packed = constant.packed
        self._entries = constant.entries
        self._asymmetries = constant.asymmetries
        self._n_flexible = constant.n_flexible
        self.one_string = constant.one_string
        tree = system.tree
        self.drives = system.model.drives
        # G_f in the links' band order per step size (``link_band``), None without links
        self._linked = linked_band(system) if system.link_rows.size else None
        self._link_bands = {}
        self.tree = tree
        self._system = system
        self._still = None
        if not self.drives and all(j.actuator is None for j in tree.joints):
            self._still = (np.zeros((0, 3)), np.zeros(system.layout.n_tree))
        self._factors = {}
        self._indices = {}

    def factor(self, bp: float, gp: float):
        """Lower banded Cholesky factor of G_f = M_f + gp C_f + bp K_f (cached; the first
        row holds the reciprocals of its diagonal: ``kernels.beam.band_solve``), or None when
        G_f is not symmetric positive definite (then the Python step takes over). A string's
        C_f and K_f are zero here (its tangent enters G_f at each iterate, in the kernels):
        every step size has the factor of M_f, kept once."""
        if self.one_string:
            bp = gp = 0.0
        for key in reversed(self._factors):  # most recently used last
            # a step size that differs in its last bits ((t + h) - t) takes the same factor:
            # the iteration matrix then differs at round-off, the converged step not at all
            if abs(key[0] - bp) <= 1e-12 * bp and abs(key[1] - gp) <= 1e-12 * gp:
                self._factors[key] = self._factors.pop(key)
                return self._factors[key]
        key = (bp, gp)
        if len(self._factors) >= FACTORS_KEPT:
            del self._factors[next(iter(self._factors))]
        n = self._n_flexible
        if n == 0:  # no structure: an empty factor
            self._factors[key] = np.ones((1, 0))
            return self._factors[key]
        row, col, m, c, k = self._entries
        g = m + gp * c + bp * k  # G_f's entries, each summed as scipy sums M + gp C + bp K
        stored = g != 0.0
        row, col, g = row[stored], col[stored], g[stored]
        size = np.max(np.abs(g), initial=0.0)
        asym = 0.0
        if g.size and symmetry_bound(self._asymmetries, bp, gp) > 1e-13 * size:
            asym = _asymmetry(row, col, g, n)  # not shown symmetric enough by the bound
        factor = None
        if g.size and asym <= 1e-13 * size:
            lower = row >= col
            bw = int(np.max(row[lower] - col[lower]))
            ab = np.zeros((bw + 1, n))
            ab[row[lower] - col[lower], col[lower]] = g[lower]
            try:
                factor = np.ascontiguousarray(scipy.linalg.cholesky_banded(ab, lower=True))
                factor[0] = 1.0 / factor[0]  # the kernels multiply by the reciprocals
            except np.linalg.LinAlgError:
                factor = None
        self._factors[key] = factor
        return self._factors[key]

    def link_band(self, bp: float, gp: float) -> np.ndarray:
        """G_f = M_f + gp C_f + bp K_f in the links' band order, upper band storage (b + 1,
        n_f) (``linked_band.LinkedBand.matrix_band``; cached per step size as the factors are),
        to which the kernels add the tangent of the links that pull at each iterate; (1, 0)
        without links."""
        if self._linked is None:
            return NO_BAND
        for key in reversed(self._link_bands):
            if abs(key[0] - bp) <= 1e-12 * bp and abs(key[1] - gp) <= 1e-12 * gp:
                self._link_bands[key] = self._link_bands.pop(key)
                return self._link_bands[key]
        if len(self._link_bands) >= FACTORS_KEPT:
            del self._link_bands[next(iter(self._link_bands))]
        system = self._system
        G = system.mass_flexible + gp * system.damping_flexible + bp * system.stiffness_flexible
        band = np.ascontiguousarray(self._linked.matrix_band(G.tocsc()))
        self._link_bands[(bp, gp)] = band
        return band

    def motion(self, t: float):
        """(drive values (n_d, 3): position, velocity, acceleration; actuator forces (n_t,))
        at t, or None when a drive gives a non-finite value or a drive or an actuator raises
        (the Python step reports it: the steps of a batch before that time are kept)."""
        if self._still is not None:  # no drives, no actuators: nothing depends on t
            return self._still
        try:  # a callable that fails is reported by the Python step, which calls it again
            values = np.array(
                [(d.position(t), d.velocity(t), d.acceleration(t)) for d in self.drives],
                dtype=float,
            ).reshape(-1, 3)
            forces = actuator_forces(self.tree, t)
        except Exception:  # noqa: BLE001 - any failure of a user callable
            return None
        if not np.all(np.isfinite(values)):
            return None
        return values, forces

    def motions(self, times: np.ndarray):
        """``motion`` at each of the times: drive values (k, n_d, 3) and actuator forces
        (k, n_t), up to the first time at which a drive gives a non-finite value or a drive
        or an actuator raises (``motion``)."""
        k = times.size
        if self._still is not None:
            return np.zeros((k, 0, 3)), np.zeros((k, self.P[6]))
        drive = np.empty((k, len(self.drives), 3))
        actuators = np.empty((k, self.P[6]))
        for j, t in enumerate(times.tolist()):
            values = self.motion(t)
            if values is None:
                return drive[:j], actuators[:j]
            drive[j], actuators[j] = values
        return drive, actuators

    def indices(self, part):
        """(independent, dependent) of a partition as int64 arrays (cached per partition)."""
        key = id(part)
        if key not in self._indices:
            self._indices = {
                key: (
                    part,
                    np.ascontiguousarray(part.independent, dtype=np.int64),
                    np.ascontiguousarray(part.dependent, dtype=np.int64),
                )
            }
        return self._indices[key][1:]


__all__ = [
    "FACTORS_KEPT",
    "NO_BAND",
    "Plan",
    "common_pattern",
    "link_arrays",
    "pressed_arrays",
    "string_arrays",
    "symmetry_bound",
]
