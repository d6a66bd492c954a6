"""A curved profile (``model.Profile``) against a structure's deformed centre line, Bauchau
(000), eqs. (5)-(7), (14), (17): see ``profile_contact``'s docstring for the conditions, the
gap and the rows. Here: the closest-point solve on (eta, s) and the kinematics."""

from __future__ import annotations

import numpy as np

from ..curves import PERP
from .frames import body_frame
from .profile_geometry import (
    box_distance,
    cross2,
    far_apart,
    polygon_box,
    touching,
    world_point,
    world_samples,
)

_PER_ELEMENT = 8  # centre-line samples per element for the global start and the box test


def centre_line_samples(structure):
    """The structure's PointRows at 8 points per element (the global start and the box test):
    a constant of the structure, made once by ``assemble`` (``System.centre_line_samples``)."""
    n_el = max(len(structure.nodes) - 1, 1)
    return structure.point_rows(np.linspace(0.0, structure.length, _PER_ELEMENT * n_el + 1))


def _global_start(curve, frame, samples, points, side: int) -> tuple[float, float]:
    """(eta, s) of the profile sample of least signed distance to the centre line (module
    ``profile_contact`` docstring) and its nearest centre-line sample."""
    eta, z = world_samples(curve, frame)
    d2 = np.sum((z[:, None, :] - points[None, :, :]) ** 2, axis=2)
    j = np.argmin(d2, axis=1)
    slope = np.gradient(points, samples.s, axis=0)
    normal = (PERP @ slope.T).T
    normal /= np.hypot(normal[:, 0], normal[:, 1])[:, None]
    signed = side * np.sum(normal[j] * (z - points[j]), axis=1)
    i = int(np.argmin(signed))
    return float(eta[i]), float(samples.s[j[i]])


def closest_on_structure(curve, frame, structure, q_s, side: int, starts, tol: float = 1e-13):
    """(eta, s) of the candidate contact point of the profile (``curve`` in ``frame``) on the
    structure's centre line at its coordinates q_s (000 eqs. 5-6 with T_l = r', T_l' = r''),
    or None (parallel flats, an end of the profile or of the structure). ``starts``: the
    starting pairs (eta, s) tried in turn (callables are evaluated when reached)."""
    length = structure.length
    scale_s = max(length, 1e-300)
    for start in starts:
        if callable(start):
            start = start()
        x = np.array([float(start[0]), float(start[1]) / scale_s])  # (eta, s / L)
        for _ in range(40):
            zk, tk, tk1 = world_point(curve, frame, x[0])
            r, tl, tl1 = (np.array(v) for v in structure._local_curve(x[1] * scale_s, q_s))
            d = zk - r
            f = np.array([cross2(tk, tl), float(d @ tl)])
            jac = np.array(
                [
                    [cross2(tk1, tl), cross2(tk, tl1) * scale_s],
                    [float(tk @ tl), float(d @ tl1 - tl @ tl) * scale_s],
                ]
            )
            det = np.linalg.det(jac)
            if not abs(det) > 1e-12 * float((tk @ tk) * (tl @ tl)) * scale_s:
                break  # parallel flats: no isolated candidate pair
            step = np.linalg.solve(jac, f)
            size = np.max(np.abs(step))
            if size > 0.1:  # damped: a tenth of the ranges per iteration at most
                step *= 0.1 / size
            new = x - step
            if np.any(new < -1e-9) or np.any(new > 1.0 + 1e-9):
                new = np.clip(new, 0.0, 1.0)
                if np.allclose(new, x, atol=tol, rtol=0.0):
                    break  # pushed past an end of the profile or of the structure
            if np.max(np.abs(new - x)) <= tol:
                if side * float(tk @ tl) > 0.0:  # the profile's outward normal against n
                    return float(new[0]), float(new[1]) * scale_s
                break
            x = new
    return None


def structure_build(system, k: int, q, u, guess):
    """``profile_contact._build`` for a Profile against a structure: (kinematics without
    remainders, (eta, s)), (None, None) without a contact point, or (far, None)."""
    pair = system.model.contacts[k]
    lay = system.layout
    structure = system.structures[pair.target]
    sl = lay.structure(pair.target)
    q_s, u_s = q[sl], u[sl]
    curve = pair.profile.curve
    frame = body_frame(system, pair.profile.body, q, u)
    side = pair.side

    def search():
        samples = system.centre_line_samples[pair.target]
        return _global_start(curve, frame, samples, samples.positions(q_s), side)

    if guess is None:
        samples = system.centre_line_samples[pair.target]
        points = samples.positions(q_s)
        box = box_distance(polygon_box(curve, frame), (points.min(axis=0), points.max(axis=0)))
        if box > 0.0:
            return far_apart(box, lay.n), None
        starts = [search]
    else:
        starts = [tuple(guess), search]
    etas = closest_on_structure(curve, frame, structure, q_s, side, starts)
    if etas is None:
        return None, None
    eta, s = etas
    zk, vk, jk, _ = frame.point(curve.at(eta).position)
    cp = structure.curve(s, q_s)
    jl = np.zeros((2, lay.n))
    np.add.at(jl.T, sl.start + cp.dofs, cp.rows.T)
    vl = cp.rows @ u_s[cp.dofs]
    normal = side * cp.normal
    gap = float(normal @ (zk - cp.position))
    kin = touching(float(s), int(cp.element), cp.position, zk, normal, gap, vk - vl, jk - jl, eta)
    return kin, etas


__all__ = ["centre_line_samples", "closest_on_structure", "structure_build"]
