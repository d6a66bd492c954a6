"""The closed contact points of one Moreau-Jean sub-step (``steppers.moreau``), gathered pair
by pair as blocks of W columns and report data and stacked once."""

from __future__ import annotations

import numpy as np


class ClosedContacts:
    """Closed candidates of one sub-step: per row (contact point) the pair, the W columns and
    the report data, gathered per pair (``add``) and stacked by ``finish``: pair (m,), w_n,
    w_t (n, m), point, normal, tangent (m, 2), parameter, gap (m,), key [(pair, candidate)]."""

    _FIELDS = ("w_n", "w_t", "point", "normal", "tangent", "parameter", "gap")

    def __init__(self, n: int):
        self.n = n
        self._blocks = []
        self.key = []

    def add(self, k, keys, w_n, w_t, point, normal, tangent, parameter, gap):
        """Points of pair k: W columns (n, j), point, normal, tangent (j, 2), parameter, gap
        (j,) and their keys (j candidates)."""
        self._blocks.append((k, len(keys), w_n, w_t, point, normal, tangent, parameter, gap))
        self.key.extend(keys)

    def finish(self) -> ClosedContacts:
        blocks = self._blocks
        if len(blocks) == 1:  # one pair closed (the common case): its block as it is
            k, size, *parts = blocks[0]
            self.pair = np.full(size, k)
            for name, part in zip(self._FIELDS, parts, strict=True):
                setattr(self, name, part)
            self.parameter = np.asarray(self.parameter, dtype=float)
            return self
        self.pair = np.concatenate([np.full(b[1], b[0]) for b in blocks] or [np.zeros(0, int)])
        if not blocks:
            self.w_n = self.w_t = np.zeros((self.n, 0))
            self.point = self.normal = self.tangent = np.zeros((0, 2))
            self.parameter = self.gap = np.zeros(0)
            return self
        for i, name in enumerate(self._FIELDS):
            parts = [b[2 + i] for b in blocks]
            if any(p is None for p in parts):  # geometry only (``MoreauJean._closed``)
                setattr(self, name, None)
                continue
            setattr(
                self,
                name,
                parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1 if i < 2 else 0),
            )
        self.parameter = np.asarray(self.parameter, dtype=float)
        return self


__all__ = ["ClosedContacts"]
