"""The constant tuple of the compiled step packed into three flat arrays, so that a call from
Python converts three arrays instead of some fifty (numba unboxes every array of a nested
tuple argument on every call: ~0.5 us each). ``pack`` flattens in depth-first order; ``unpack``
rebuilds views in the same order (``SPEC`` gives the kind and rank of each array)."""

from __future__ import annotations

import numpy as np

from .jit import inner

# kind and rank of the arrays of ``kernels.step``'s P, depth first: f = float64, i = int64
SPEC = (
    "f2 f2 f1 f1 f1 f1 f2 f2 f1 f2 f2 f1 "  # tree
    "i2 f2 f1 f1 f1 i2 f3 "  # beams
    "i1 f2 f1 f1 i1 f1 f2 i1 "  # contacts
    "i1 f1 f1 f1 "  # drive joints; joint stiffness, damping, rest
    "i1 i1 f1 i1 i1 f1 i1 i1 f1 i1 i1 f1 i1 i1 f1 i1 i1 f1 f1 f1 "  # flexible
    "i1 f1 i2 f2 f3 f3 f2 f2 f2 f1 f3 f2 i1 i1 "  # string
    "i2 f3 f2 f1 f1 f1 i1 i1 "  # links (``kernels.links``)
    "i1 f2 i1 f1 f2 "  # compliant contacts (``kernels.compliant``)
    "i2 i2 f2 i2 f2 f1 f2 "  # their profile pairs (``kernels.profile_pair``)
    "f3"  # the structures' matrices on their diagonals (``kernels.beam.diagonal_storage``)
).split()


# (is float, rank) of each entry of SPEC
_KINDS = tuple((spec[0] == "f", int(spec[1])) for spec in SPEC)


def _leaves(item, out: list) -> list:
    """The leaves of the nested tuple item appended to out, depth first."""
    for x in item:
        if type(x) is tuple:
            _leaves(x, out)
        else:
            out.append(x)
    return out


def pack(P) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(floats, ints, header) of the nested tuple P; header row k = (offset, shape 0..2) of
    array k, the last row holds the integer leaf (the number of tree coordinates, P[6])."""
    leaves = _leaves(P, [])
    arrays = [a for a in leaves if isinstance(a, np.ndarray)]
    (scalar,) = (int(a) for a in leaves if not isinstance(a, np.ndarray))
    if len(arrays) != len(SPEC):
        raise ValueError(f"pack: {len(arrays)} arrays, the layout has {len(SPEC)}")
    floats, ints, header = [], [], []
    n_f = n_i = 0
    for a, (is_float, rank), spec in zip(arrays, _KINDS, SPEC, strict=True):
        if a.ndim != rank:
            raise ValueError(f"pack: an array of rank {a.ndim} where {spec} belongs")
        shape = a.shape + (1,) * (3 - rank)
        if is_float:
            header.append((n_f, *shape))
            floats.append(a.ravel())
            n_f += a.size
        else:
            header.append((n_i, *shape))
            ints.append(a.ravel())
            n_i += a.size
    header.append((scalar, 0, 0, 0))
    # each array converted as ``np.asarray(a, dtype)`` converts it
    packed = (
        np.concatenate(floats, dtype=float, casting="unsafe") if floats else np.zeros(0),
        np.concatenate(ints, dtype=np.int64, casting="unsafe")
        if ints
        else np.zeros(0, dtype=np.int64),
        np.array(header, dtype=np.int64),
    )
    for a in packed:  # constants; and read-only, the views have the types of the tree's own
        a.setflags(write=False)  # read-only arrays (one compilation of the tree kernels)
    return packed


@inner
def _v1(a, H, k):
    o, s0 = H[k, 0], H[k, 1]
    return a[o : o + s0]


@inner
def _v2(a, H, k):
    o, s0, s1 = H[k, 0], H[k, 1], H[k, 2]
    return a[o : o + s0 * s1].reshape((s0, s1))


@inner
def _v3(a, H, k):
    o, s0, s1, s2 = H[k, 0], H[k, 1], H[k, 2], H[k, 3]
    return a[o : o + s0 * s1 * s2].reshape((s0, s1, s2))


@inner
def unpack(F, I, H):
    """The tuple P of ``kernels.step`` from ``pack``'s arrays (views, no copies).

    The array indices are passed as ``np.int64``: an integer constant is typed as a literal,
    and numba compiles a callee once per literal value (52 compilations of ``_v1``-``_v3``
    instead of 3)."""
    T = (
        _v2(F, H, np.int64(0)),
        _v2(F, H, np.int64(1)),
        _v1(F, H, np.int64(2)),
        _v1(F, H, np.int64(3)),
        _v1(F, H, np.int64(4)),
        _v1(F, H, np.int64(5)),
        _v2(F, H, np.int64(6)),
        _v2(F, H, np.int64(7)),
        _v1(F, H, np.int64(8)),
        _v2(F, H, np.int64(9)),
        _v2(F, H, np.int64(10)),
        _v1(F, H, np.int64(11)),
    )
    B = (
        _v2(I, H, np.int64(12)),
        _v2(F, H, np.int64(13)),
        _v1(F, H, np.int64(14)),
        _v1(F, H, np.int64(15)),
        _v1(F, H, np.int64(16)),
        _v2(I, H, np.int64(17)),
        _v3(F, H, np.int64(18)),
    )
    contacts = (
        _v1(I, H, np.int64(19)),
        _v2(F, H, np.int64(20)),
        _v1(F, H, np.int64(21)),
        _v1(F, H, np.int64(22)),
        _v1(I, H, np.int64(23)),
        _v1(F, H, np.int64(24)),
        _v2(F, H, np.int64(25)),
        _v1(I, H, np.int64(26)),
    )
    joints = (_v1(F, H, np.int64(28)), _v1(F, H, np.int64(29)), _v1(F, H, np.int64(30)))
    flex = (
        (_v1(I, H, np.int64(31)), _v1(I, H, np.int64(32)), _v1(F, H, np.int64(33))),
        (_v1(I, H, np.int64(34)), _v1(I, H, np.int64(35)), _v1(F, H, np.int64(36))),
        (_v1(I, H, np.int64(37)), _v1(I, H, np.int64(38)), _v1(F, H, np.int64(39))),
        (_v1(I, H, np.int64(40)), _v1(I, H, np.int64(41)), _v1(F, H, np.int64(42))),
        (_v1(I, H, np.int64(43)), _v1(I, H, np.int64(44)), _v1(F, H, np.int64(45))),
        (_v1(I, H, np.int64(46)), _v1(I, H, np.int64(47)), _v1(F, H, np.int64(48))),
        _v1(F, H, np.int64(49)),
        _v1(F, H, np.int64(50)),
    )
    string = (
        _v1(I, H, np.int64(51)),
        _v1(F, H, np.int64(52)),
        _v2(I, H, np.int64(53)),
        _v2(F, H, np.int64(54)),
        _v3(F, H, np.int64(55)),
        _v3(F, H, np.int64(56)),
        _v2(F, H, np.int64(57)),
        _v2(F, H, np.int64(58)),
        _v2(F, H, np.int64(59)),
        _v1(F, H, np.int64(60)),
        _v3(F, H, np.int64(61)),
        _v2(F, H, np.int64(62)),
        _v1(I, H, np.int64(63)),
        _v1(I, H, np.int64(64)),
    )
    links = (
        _v2(I, H, np.int64(65)),
        _v3(F, H, np.int64(66)),
        _v2(F, H, np.int64(67)),
        _v1(F, H, np.int64(68)),
        _v1(F, H, np.int64(69)),
        _v1(F, H, np.int64(70)),
        _v1(I, H, np.int64(71)),
        _v1(I, H, np.int64(72)),
    )
    pressed = (
        _v1(I, H, np.int64(73)),
        _v2(F, H, np.int64(74)),
        _v1(I, H, np.int64(75)),
        _v1(F, H, np.int64(76)),
        _v2(F, H, np.int64(77)),
        _v2(I, H, np.int64(78)),
        _v2(I, H, np.int64(79)),
        _v2(F, H, np.int64(80)),
        _v2(I, H, np.int64(81)),
        _v2(F, H, np.int64(82)),
        _v1(F, H, np.int64(83)),
        _v2(F, H, np.int64(84)),
    )
    return (
        T,
        B,
        contacts,
        _v1(I, H, np.int64(27)),
        joints,
        flex,
        H[H.shape[0] - 1, 0],
        string,
        links,
        pressed,
        _v3(F, H, np.int64(85)),
    )
