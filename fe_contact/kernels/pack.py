"""The constant tuple of the compiled step packed into three flat arrays, so that a call from
Python converts three arrays instead of some fifty (numba unboxes every array of a nested
tuple argument on every call: ~0.5 us each). ``pack`` flattens in depth-first order; ``unpack``
rebuilds views in the same order (``SPEC`` gives the kind and rank of each array)."""

from __future__ import annotations

import numpy as np
from numba import njit

# kind and rank of the arrays of ``kernels.step``'s P, depth first: f = float64, i = int64
SPEC = (
    "f2 f2 f1 f1 f1 f1 f2 f2 f1 f2 f2 f1 "  # tree
    "i2 f2 f1 f1 f1 i2 f3 "  # beams
    "i1 f2 f1 f1 i1 f1 f2 i1 "  # contacts
    "i1 f1 f1 f1 "  # drive joints; joint stiffness, damping, rest
    "i1 i1 f1 i1 i1 f1 i1 i1 f1 i1 i1 f1 i1 i1 f1 i1 i1 f1 f1 f1"  # flexible
).split()


def _leaves(item):
    if isinstance(item, tuple):
        for x in item:
            yield from _leaves(x)
    else:
        yield item


def pack(P) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(floats, ints, header) of the nested tuple P; header row k = (offset, shape 0..2) of
    array k, the last row holds the integer leaf (the number of tree coordinates)."""
    leaves = list(_leaves(P))
    arrays, scalar = leaves[:-1], int(leaves[-1])
    if len(arrays) != len(SPEC):
        raise ValueError(f"pack: {len(arrays)} arrays, the layout has {len(SPEC)}")
    floats, ints, header = [], [], []
    n_f = n_i = 0
    for a, spec in zip(arrays, SPEC, strict=True):
        a = np.asarray(a)
        if a.ndim != int(spec[1]):
            raise ValueError(f"pack: an array of rank {a.ndim} where {spec} belongs")
        shape = list(a.shape) + [1] * (3 - a.ndim)
        if spec[0] == "f":
            header.append([n_f, *shape])
            floats.append(np.asarray(a, dtype=float).ravel())
            n_f += a.size
        else:
            header.append([n_i, *shape])
            ints.append(np.asarray(a, dtype=np.int64).ravel())
            n_i += a.size
    header.append([scalar, 0, 0, 0])
    return (
        np.concatenate(floats) if floats else np.zeros(0),
        np.concatenate(ints) if ints else np.zeros(0, dtype=np.int64),
        np.array(header, dtype=np.int64),
    )


@njit(cache=True)
def _v1(a, H, k):
    o, s0 = H[k, 0], H[k, 1]
    return a[o : o + s0]


@njit(cache=True)
def _v2(a, H, k):
    o, s0, s1 = H[k, 0], H[k, 1], H[k, 2]
    return a[o : o + s0 * s1].reshape((s0, s1))


@njit(cache=True)
def _v3(a, H, k):
    o, s0, s1, s2 = H[k, 0], H[k, 1], H[k, 2], H[k, 3]
    return a[o : o + s0 * s1 * s2].reshape((s0, s1, s2))


@njit(cache=True)
def unpack(F, I, H):
    """The tuple P of ``kernels.step`` from ``pack``'s arrays (views, no copies)."""
    T = (
        _v2(F, H, 0),
        _v2(F, H, 1),
        _v1(F, H, 2),
        _v1(F, H, 3),
        _v1(F, H, 4),
        _v1(F, H, 5),
        _v2(F, H, 6),
        _v2(F, H, 7),
        _v1(F, H, 8),
        _v2(F, H, 9),
        _v2(F, H, 10),
        _v1(F, H, 11),
    )
    B = (
        _v2(I, H, 12),
        _v2(F, H, 13),
        _v1(F, H, 14),
        _v1(F, H, 15),
        _v1(F, H, 16),
        _v2(I, H, 17),
        _v3(F, H, 18),
    )
    contacts = (
        _v1(I, H, 19),
        _v2(F, H, 20),
        _v1(F, H, 21),
        _v1(F, H, 22),
        _v1(I, H, 23),
        _v1(F, H, 24),
        _v2(F, H, 25),
        _v1(I, H, 26),
    )
    joints = (_v1(F, H, 28), _v1(F, H, 29), _v1(F, H, 30))
    flex = (
        (_v1(I, H, 31), _v1(I, H, 32), _v1(F, H, 33)),
        (_v1(I, H, 34), _v1(I, H, 35), _v1(F, H, 36)),
        (_v1(I, H, 37), _v1(I, H, 38), _v1(F, H, 39)),
        (_v1(I, H, 40), _v1(I, H, 41), _v1(F, H, 42)),
        (_v1(I, H, 43), _v1(I, H, 44), _v1(F, H, 45)),
        (_v1(I, H, 46), _v1(I, H, 47), _v1(F, H, 48)),
        _v1(F, H, 49),
        _v1(F, H, 50),
    )
    return (T, B, contacts, _v1(I, H, 27), joints, flex, H[H.shape[0] - 1, 0])
