"""Compiled (numba) element kernel of the absolute-nodal string, Eugster-Glocker (004),
eqs. (15)-(17), with the optional bending part (``elements.string``): the generalised stresses
and their tangent at every quadrature point, contracted with the element's Hermite tables into
element force vectors and element tangents. ``elements.string_forces`` calls it for every
string force and tangent (the Python steppers, statics and Moreau-Jean alike); the tension law
stays a Python object, evaluated on arrays before the call.

Strain vector per quadrature point: ``(r'_x, r'_y, r''_x, r''_y)``; below ``a = r'``,
``b = r''``, ``cross = a x b``, ``m2 = |a|^2``, ``metric = |r_ref'|``, bending strain
``cross / m2`` (rotation of the tangent per ds, the conventions of ``elements.string``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _section(ax, ay, bx, by, tension, dtension, metric, ei, ref_strain, stress, tangent, order):
    """Stress (4,) = d energy / d strain and, for order 2, tangent (4, 4) at one point, in place.

    Axial part: T(nu) r'/|r'| (004, eq. 16); tangent dT/d|r'| t t^T + T/|r'| (I - t t^T).
    Bending part: EI/metric (kappa - kappa_ref) d kappa / d strain and its derivative, with
    kappa = cross / m2 (the exact rotation rate of the tangent)."""
    m2 = ax * ax + ay * ay
    m = np.sqrt(m2)
    tx = ax / m
    ty = ay / m
    stress[0] = tension * tx
    stress[1] = tension * ty
    stress[2] = 0.0
    stress[3] = 0.0
    if ei > 0.0:
        cross = ax * by - ay * bx
        excess = cross / m2 - ref_strain
        # d cross / d a = (b_y, -b_x); d cross / d b = (-a_y, a_x)
        cax, cay = by, -bx
        cbx, cby = -ay, ax
        w = 2.0 * cross / (m2 * m2)
        gax = cax / m2 - w * ax
        gay = cay / m2 - w * ay
        gbx = cbx / m2
        gby = cby / m2
        moment = ei / metric * excess
        stress[0] += moment * gax
        stress[1] += moment * gay
        stress[2] = moment * gbx
        stress[3] = moment * gby
    if order < 2:
        return
    axial = dtension / metric  # dT / d|r'|
    geometric = tension / m  # T / |r'|
    t = (tx, ty)
    for i in range(4):
        for j in range(4):
            tangent[i, j] = 0.0
    for i in range(2):
        for j in range(2):
            tt = t[i] * t[j]
            tangent[i, j] = axial * tt + geometric * ((1.0 if i == j else 0.0) - tt)
    if ei > 0.0:
        g = (gax, gay, gbx, gby)
        a = (ax, ay)
        ca = (cax, cay)
        cb = (cbx, cby)
        m4 = m2 * m2
        k = ei / metric
        for i in range(4):
            for j in range(4):
                tangent[i, j] += k * g[i] * g[j]
        # second derivatives of kappa = cross / m2
        for i in range(2):
            for j in range(2):
                h = (
                    -2.0 * (ca[i] * a[j] + ca[j] * a[i]) / m4
                    - 2.0 * cross / m4 * (1.0 if i == j else 0.0)
                    + 8.0 * cross / (m4 * m2) * a[i] * a[j]
                )
                tangent[i, j] += k * excess * h
        # d2 kappa / d a_i d b_j = -PERP[i, j] / m2 - 2 a_i cb_j / m4, PERP = [[0, -1], [1, 0]]
        perp = ((0.0, -1.0), (1.0, 0.0))
        for i in range(2):
            for j in range(2):
                h = -perp[i][j] / m2 - 2.0 * a[i] * cb[j] / m4
                tangent[i, 2 + j] += k * excess * h
                tangent[2 + j, i] += k * excess * h


@njit(cache=True)
def element_response(
    slopes,
    rates,
    tension,
    dtension,
    metric,
    ei,
    ref_strain,
    shape_slopes,
    shape_curvatures,
    dx,
    order,
):
    """Element force vectors and (order 2) element tangents of the string.

    slopes, rates : r' and r'' at the quadrature points, (n_elements, n_qp, 2).
    tension, dtension : T(nu) and dT/dnu there (N), metric = |r_ref'| and ref_strain =
        kappa_ref |r_ref'| there, (n_elements, n_qp); ei : bending stiffness EI (N m^2).
    shape_slopes, shape_curvatures : dN_a/ds, d2N_a/ds2, (n_elements, 4, n_qp); dx : quadrature
        weight times element length, (n_elements, n_qp), m.
    Returns (f_e (n_elements, 8), k_e (n_elements, 8, 8); (0, 8, 8) for order 1): the integrals
    of B^T stress and B^T D B over each element, B the strain operator (local dof 2 a + c is
    component c of scalar function a), Eugster-Glocker (004), eq. (16).
    """
    n_el, n_qp = metric.shape
    force = np.zeros((n_el, 8))
    tangents = np.zeros((n_el if order >= 2 else 0, 8, 8))
    stress = np.empty(4)
    tangent = np.empty((4, 4))
    for e in range(n_el):
        for p in range(n_qp):
            _section(
                slopes[e, p, 0],
                slopes[e, p, 1],
                rates[e, p, 0],
                rates[e, p, 1],
                tension[e, p],
                dtension[e, p],
                metric[e, p],
                ei,
                ref_strain[e, p],
                stress,
                tangent,
                order,
            )
            w = dx[e, p]
            for a in range(4):
                n1 = shape_slopes[e, a, p]
                n2 = shape_curvatures[e, a, p]
                for c in range(2):
                    force[e, 2 * a + c] += w * (n1 * stress[c] + n2 * stress[2 + c])
            if order < 2:
                continue
            for a in range(4):
                n1a = shape_slopes[e, a, p] * w
                n2a = shape_curvatures[e, a, p] * w
                for b in range(4):
                    n1b = shape_slopes[e, b, p]
                    n2b = shape_curvatures[e, b, p]
                    for c in range(2):
                        for d in range(2):
                            tangents[e, 2 * a + c, 2 * b + d] += (
                                n1a * n1b * tangent[c, d]
                                + n1a * n2b * tangent[c, 2 + d]
                                + n2a * n1b * tangent[2 + c, d]
                                + n2a * n2b * tangent[2 + c, 2 + d]
                            )
    return force, tangents
