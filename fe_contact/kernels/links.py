"""The links with constant rows between material points of linear structures (the droppers of
a catenary, ``coupling.links.LinkRows``, ``laws.Dropper``) in the compiled step (numba).

A link joins two material points whose positions are linear in q, so d = r_b - r_a = d_0 + D q
with a constant block D (2, k) over its k DOFs; its length l = |d|, unit e = d / l, stretch
a = l - l0 and rate a' = e . D u, W_N = -e . D (``coupling.links``). While it pulls, T > 0
(``laws.dropper.dropper_force``, the Python step's law too), its generalised force W_N^T T
enters the equations of motion (``forces`` holds minus it) and its tangent K w w^T, with
K = beta' dT/da + gamma' dT/da' and w its W_N entries, the iteration matrix: added to the band
of the structures' block in the links' band order (``steppers.linked_band``), factorised per
iterate. Its energy k a^2 / 2 (a > 0) is elastic, (T - k a) a' is dissipated.

``L``, the links' constant tuple (P[8] of ``kernels.step``): (dofs (n_l, k) int, rows
(n_l, 2, k) the blocks D, offset (n_l, 2) d_0, length (n_l,) l0, stiffness (n_l,), damping
(n_l,), order (n_f,) int the structures' coordinates (0-based) in the band order, position
(n_f,) int its inverse), all empty (n_l = 0) for a system without such links.
"""

from __future__ import annotations

import math

import numpy as np

from ..laws.dropper import dropper_elastic, dropper_force
from .band import band_cholesky_factor
from .jit import inner

# the columns of ``link_states``: gap l0 - l, normal velocity -l', tension T, dT/da, dT/da',
# elastic energy, damping power
GAP, VN, TENSION, SLOPE, RATE_SLOPE, ENERGY, POWER = range(7)
N_LINK_FIELDS = 7


@inner
def link_states(L, q, u):
    """Every link at (q, u): (ok, states (n_l, N_LINK_FIELDS), w (n_l, k) the entries of each
    W_N at its DOFs); ok is False when the two clamps of a link coincide (its direction is
    undefined; the Python step raises there). The sums over a link's DOFs are those of
    ``coupling.links.links_state`` in the order of its DOFs."""
    dofs, rows, offset, length, stiffness, damping = L[0], L[1], L[2], L[3], L[4], L[5]
    n_l, k = dofs.shape
    states = np.zeros((n_l, N_LINK_FIELDS))
    w = np.zeros((n_l, k))
    for i in range(n_l):
        s0 = 0.0
        s1 = 0.0
        v0 = 0.0
        v1 = 0.0
        for j in range(k):
            qj = q[dofs[i, j]]
            uj = u[dofs[i, j]]
            s0 += rows[i, 0, j] * qj
            s1 += rows[i, 1, j] * qj
            v0 += rows[i, 0, j] * uj
            v1 += rows[i, 1, j] * uj
        d0 = offset[i, 0] + s0
        d1 = offset[i, 1] + s1
        size = math.hypot(d0, d1)
        if size == 0.0:
            return False, states, w
        e0 = d0 / size
        e1 = d1 / size
        along = e0 * v0 + e1 * v1
        gap = length[i] - size
        stretch = -gap
        tension, slope, rate_slope = dropper_force(stiffness[i], damping[i], stretch, along)
        states[i, GAP] = gap
        states[i, VN] = -along
        states[i, TENSION] = tension
        states[i, SLOPE] = slope
        states[i, RATE_SLOPE] = rate_slope
        states[i, ENERGY] = dropper_elastic(stiffness[i], stretch)
        if gap < 0.0:  # stretched; a shortened link has no energy and no power
            states[i, POWER] = (tension - stiffness[i] * stretch) * along
        for j in range(k):
            w[i, j] = -(e0 * rows[i, 0, j] + e1 * rows[i, 1, j])
    return True, states, w


@inner
def subtract_link_forces(L, states, w, forces):
    """forces (n,) minus the generalised force W_N^T T of every link that pulls, in place, link
    by link and DOF by DOF (``coupling.constraints.evaluate_state``'s order)."""
    dofs = L[0]
    for i in range(dofs.shape[0]):
        tension = states[i, TENSION]
        if tension > 0.0:
            for j in range(dofs.shape[1]):
                forces[dofs[i, j]] -= w[i, j] * tension


@inner
def link_energies(L, q, u):
    """(elastic energy, damping power) of all links at (q, u), J and W: the sums over the links
    in their order (``system.energies``); (0, 0) without links or where a link's clamps
    coincide."""
    ok, states, _ = link_states(L, q, u)
    elastic = 0.0
    power = 0.0
    if ok:
        for i in range(states.shape[0]):
            elastic += states[i, ENERGY]
            power += states[i, POWER]
    return elastic, power


@inner
def linked_factor(L, Gb, states, w, bp, gp, nt):
    """The banded Cholesky factor (``kernels.band.band_cholesky_factor``) of G_f + sum K_i w_i
    w_i^T over the links that pull, K_i = bp dT/da + gp dT/da' (``compliant._folded_links``),
    in the links' band order: Gb (b + 1, n_f) is G_f there in upper band storage
    (``linked_band.LinkedBand.matrix_band``). Returns (U, info, taut): info != 0 when the sum is
    not positive definite, taut the number of links that pull (0: U is empty, the caller keeps
    the factor of G_f)."""
    dofs = L[0]
    position = L[7]
    kd = Gb.shape[0] - 1
    taut = 0
    for i in range(dofs.shape[0]):
        if states[i, TENSION] > 0.0:
            taut += 1
    if taut == 0:
        return np.zeros((1, 0)), np.int64(0), taut
    ab = Gb.copy()
    k = dofs.shape[1]
    for i in range(dofs.shape[0]):
        if not states[i, TENSION] > 0.0:
            continue
        stiff = bp * states[i, SLOPE] + gp * states[i, RATE_SLOPE]
        for a in range(k):
            p = position[dofs[i, a] - nt]
            for b in range(k):
                r = position[dofs[i, b] - nt]
                if p <= r:
                    ab[kd + p - r, r] += stiff * w[i, a] * w[i, b]
    U, info = band_cholesky_factor(ab)
    return U, np.int64(info), taut
