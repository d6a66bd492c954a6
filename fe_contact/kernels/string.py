"""Compiled (numba) kernels of the absolute-nodal string, Eugster-Glocker (004), eqs. (15)-(17),
with the optional bending part (``elements.string``): the strains at the quadrature points, and
the generalised stresses and their tangent there contracted with the element's Hermite tables
into element force vectors and element tangents (``element_response``; ``elements.string_forces``
calls it for every string force and tangent: the Python steppers, statics and Moreau-Jean
alike; the tension law stays a Python object, evaluated on arrays between the two calls); the
closest material point to a point (``closest``, for ``StringStructure.closest``); and, for the
Moreau-Jean step (``steppers.effective_mass``), the whole response of a string on its free
coordinates in one call with the tension law compiled (``string_response``: forces, element
tangents and strain energy; ``tension_law`` the laws of ``elements.tension``). For the compiled
generalised-alpha step (``kernels.step``): the same response on the system's coordinates
(``string_forces``), its iteration matrix M_f + beta' K_t(q) factorised (``iteration_factor``),
and a profile's contact with the string and a point sticking to it (``string_contact``,
``string_stick_row``: ``coupling.kinematics.structure_contact`` and ``coupling.constraints`` on
the string's curve).

Strain vector per quadrature point: ``(r'_x, r'_y, r''_x, r''_y)``; below ``a = r'``,
``b = r''``, ``cross = a x b``, ``m2 = |a|^2``, ``metric = |r_ref'|``, bending strain
``cross / m2`` (rotation of the tangent per ds, the conventions of ``elements.string``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .band import band_lu_factor
from .beam import (
    H00,
    H01,
    H11,
    contact_frame,
    curve_record,
)
from .curvature import hessian_core, remainder_slope
from .jit import inner

# codes of the tension laws that ``tension_law`` evaluates (``elements.tension``)
NEO_HOOKEAN = 1  # T = k/3 (nu - nu^-2), Eugster-Glocker (004), eq. (17)
LINEAR_ELASTIC = 2  # T = EA (nu - 1)


@inner
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


@njit(cache=True)
def section_strains(q, element_dofs, shape_slopes, shape_curvatures, metric, bending):
    """r' and r'' (n_elements, n_qp, 2) and the stretch nu = |r'| / |r_ref'| (n_elements,
    n_qp) at the quadrature points of the full dof vector q (n_dofs,); element_dofs
    (8, n_elements) as scikit-fem's ``basis.element_dofs`` (local dof 2 a + c: component c of
    scalar function a); r'' only when ``bending`` (else zeros)."""
    n_el, n_qp = metric.shape
    slopes = np.zeros((n_el, n_qp, 2))
    rates = np.zeros((n_el, n_qp, 2))
    nu = np.empty((n_el, n_qp))
    for e in range(n_el):
        for p in range(n_qp):
            ax = ay = bx = by = 0.0
            for a in range(4):
                x = q[element_dofs[2 * a, e]]
                y = q[element_dofs[2 * a + 1, e]]
                n1 = shape_slopes[e, a, p]
                ax += n1 * x
                ay += n1 * y
                if bending:
                    n2 = shape_curvatures[e, a, p]
                    bx += n2 * x
                    by += n2 * y
            slopes[e, p, 0] = ax
            slopes[e, p, 1] = ay
            rates[e, p, 0] = bx
            rates[e, p, 1] = by
            nu[e, p] = np.sqrt(ax * ax + ay * ay) / metric[e, p]
    return slopes, rates, nu


@njit(cache=True)
def _point(nodes, coefficients, columns, fixed, q, s):
    """r, r', r'' (floats) at the material point s, clipped to [nodes[0], nodes[-1]]: the
    element's Hermite polynomials (``_rows``) times its coordinates (``_combine``).
    coefficients (n_elements, 4, 4): monomial coefficients of the four scalar functions;
    columns (n_elements, 8): the free coordinate of each local dof (-1: fixed, value in
    ``fixed``)."""
    _, e, N, N_s, N_ss = _rows(nodes, coefficients, s)
    return _combine(columns, fixed, q, e, N, N_s, N_ss)


@inner
def _combine(columns, fixed, q, e, N, N_s, N_ss):
    """r, r', r'' (floats) of element e from its Hermite rows N, N_s, N_ss (``_rows``) and its
    coordinates (free ones in q by ``columns``, fixed ones in ``fixed``)."""
    rx = ry = ax = ay = bx = by = 0.0
    for a in range(4):
        jx, jy = columns[e, 2 * a], columns[e, 2 * a + 1]
        x = q[jx] if jx >= 0 else fixed[e, 2 * a]
        y = q[jy] if jy >= 0 else fixed[e, 2 * a + 1]
        rx += N[a] * x
        ry += N[a] * y
        ax += N_s[a] * x
        ay += N_s[a] * y
        bx += N_ss[a] * x
        by += N_ss[a] * y
    return rx, ry, ax, ay, bx, by


@njit(cache=True)
def closest(nodes, coefficients, columns, fixed, q, px, py, s, tol, closed=False):
    """Closest material point of the string to (px, py) from the start s: Newton on the
    orthogonality condition (p - r(s)) . r'(s) = 0 (Bauchau (000), eq. 5 with a point), the
    iteration of ``structures.Structure.closest``. Returns (s, inside): inside False when the
    point lies beyond an end (s then on the end tangent's continuation, outside the string).
    On a ``closed`` string s wraps modulo the length and is always inside."""
    length = nodes[-1] - nodes[0]
    scale = max(length, 1e-300)
    for _ in range(30):
        if closed:
            s = nodes[0] + (s - nodes[0]) % length
        rx, ry, ax, ay, bx, by = _point(nodes, coefficients, columns, fixed, q, s)
        dx, dy = px - rx, py - ry
        f = dx * ax + dy * ay
        df = dx * bx + dy * by - (ax * ax + ay * ay)
        if df >= 0.0:  # not a minimum of the distance: step along the tangent instead
            df = -(ax * ax + ay * ay)
        step = -f / df
        if abs(step) <= tol * scale:
            return s, True
        s_new = s + step
        if closed:
            s = s_new
            continue
        if s_new < nodes[0] or s_new > nodes[-1]:
            end = nodes[0] if s_new < nodes[0] else nodes[-1]
            rx, ry, ax, ay, _, _ = _point(nodes, coefficients, columns, fixed, q, end)
            beyond = end + ((px - rx) * ax + (py - ry) * ay) / (ax * ax + ay * ay)
            if nodes[0] <= beyond <= nodes[-1]:
                return end, True
            return beyond, False
        s = s_new
    if closed:
        s = nodes[0] + (s - nodes[0]) % length
    return s, True


@njit(cache=True)
def tension_law(law, stiffness, nu):
    """(T (N), dT/dnu (N), W (J/m)) at the stretch nu of law ``NEO_HOOKEAN`` (stiffness k:
    T = k/3 (nu - nu^-2), W = k/3 (nu^2/2 + 1/nu) - k/2; 004 eq. (17)) or ``LINEAR_ELASTIC``
    (stiffness EA: T = EA (nu - 1), W = EA/2 (nu - 1)^2); the formulas of ``elements.tension``
    (libm's pow where numpy's may differ by an ulp)."""
    return _tension(law, stiffness, nu, 2)


@inner
def _tension(law, stiffness, nu, order):
    """``tension_law`` with only what ``order`` asks for: W always, T for order >= 1, dT/dnu
    for order 2 (0.0 in their place otherwise): the same operations, the powers of the
    neo-Hookean law taken only where they are used."""
    if law == NEO_HOOKEAN:
        c = stiffness / 3.0
        tension = c * (nu - nu**-2.0) if order >= 1 else 0.0
        dtension = c * (1.0 + 2.0 * nu**-3.0) if order >= 2 else 0.0
        energy = c * (0.5 * (nu * nu) + 1.0 / nu) - 0.5 * stiffness
        return tension, dtension, energy
    d = nu - 1.0
    return stiffness * d, stiffness, 0.5 * stiffness * (d * d)


@inner
def _axial_response(q, columns, fixed, shape_slopes, metric, dx, law, stiffness, order, n_free):
    """``string_response`` of a string without bending stiffness (EI = 0), in one pass over
    the elements: the strains, the tension law and each element's force vector and tangent
    at its quadrature points, scattered element by element. The same operations as
    ``element_response`` with the bending parts left out (they are zeros there: r'' does not
    enter, and x + 0 * y is x), so the results agree to the last bit; order 0 gives the
    strain energy alone (forces zero), without the tension's powers."""
    n_el, n_qp = metric.shape
    tangents = np.zeros((n_el if order >= 2 else 0, 8, 8))
    force = np.zeros(n_free)
    f_e = np.empty(8)
    x = np.empty(4)
    y = np.empty(4)
    energy = 0.0
    for e in range(n_el):
        for a in range(4):
            jx, jy = columns[e, 2 * a], columns[e, 2 * a + 1]
            x[a] = q[jx] if jx >= 0 else fixed[e, 2 * a]
            y[a] = q[jy] if jy >= 0 else fixed[e, 2 * a + 1]
        for i in range(8):
            f_e[i] = 0.0
        for p in range(n_qp):
            ax = ay = 0.0
            for a in range(4):
                n1 = shape_slopes[e, a, p]
                ax += n1 * x[a]
                ay += n1 * y[a]
            m2 = ax * ax + ay * ay
            ref = metric[e, p]
            m = np.sqrt(m2)
            tension, dtension, w = _tension(law, stiffness, m / ref, order)
            energy += (ref * w) * dx[e, p]
            if order < 1:
                continue
            tx = ax / m
            ty = ay / m
            sx = tension * tx  # the stress (``_section``)
            sy = tension * ty
            wp = dx[e, p]
            for a in range(4):
                n1 = shape_slopes[e, a, p]
                f_e[2 * a] += wp * (n1 * sx)
                f_e[2 * a + 1] += wp * (n1 * sy)
            if order < 2:
                continue
            axial = dtension / ref
            geometric = tension / m
            t00 = axial * (tx * tx) + geometric * (1.0 - tx * tx)
            t01 = axial * (tx * ty) + geometric * (0.0 - tx * ty)
            t10 = axial * (ty * tx) + geometric * (0.0 - ty * tx)
            t11 = axial * (ty * ty) + geometric * (1.0 - ty * ty)
            for a in range(4):
                n1a = shape_slopes[e, a, p] * wp
                for b in range(4):
                    nn = n1a * shape_slopes[e, b, p]
                    tangents[e, 2 * a, 2 * b] += nn * t00
                    tangents[e, 2 * a, 2 * b + 1] += nn * t01
                    tangents[e, 2 * a + 1, 2 * b] += nn * t10
                    tangents[e, 2 * a + 1, 2 * b + 1] += nn * t11
        if order < 1:
            continue
        for i in range(8):
            j = columns[e, i]
            if j >= 0:
                force[j] += f_e[i]
    return force, tangents, energy


@njit(cache=True)
def string_response(
    q, columns, fixed, shape_slopes, shape_curvatures, metric, ei, ref_strain, dx, law,
    stiffness, order, n_free,
):  # fmt: skip
    """Internal force, element tangents and strain energy of a string on its free coordinates.

    q : free coordinates (n_free,); columns : (n_elements, 8) the free coordinate of each local
        dof (2 a + c: component c of Hermite function a; -1 at a fixed dof, whose value is in
        fixed (n_elements, 8)); a closed string's last node has its first node's columns.
    shape_slopes, shape_curvatures : (n_elements, 4, n_qp); metric = |r_ref'|, ref_strain and dx
        (n_elements, n_qp) as ``element_response``; ei : EI, N m^2; law, stiffness : the
        tension law's code (``NEO_HOOKEAN``, ``LINEAR_ELASTIC``) and its k or EA, N.
    order : 1 forces only, 2 also the element tangents; 0 the energy (without bending
        stiffness the forces are then zeros, else those of order 1).

    Returns (f_int (n_free,) in N, the element tangents (n_elements, 8, 8) (shape (0, 8, 8) for
    order 1), strain energy in J): f_int = P^T sum_e f_e (004 eq. 16) summed in element order,
    the energy sum_qp dx (|r_ref'| W(nu) + EI / (2 |r_ref'|) (kappa - kappa_ref)^2) (eq. 15).
    Without bending stiffness, in one pass (``_axial_response``).
    """
    if ei == 0.0:
        return _axial_response(
            q, columns, fixed, shape_slopes, metric, dx, law, stiffness, order, n_free
        )
    n_el, n_qp = metric.shape
    slopes = np.zeros((n_el, n_qp, 2))
    rates = np.zeros((n_el, n_qp, 2))
    tension = np.empty((n_el, n_qp))
    dtension = np.empty((n_el, n_qp))
    energy = 0.0
    for e in range(n_el):
        for p in range(n_qp):
            ax = ay = bx = by = 0.0
            for a in range(4):
                jx, jy = columns[e, 2 * a], columns[e, 2 * a + 1]
                x = q[jx] if jx >= 0 else fixed[e, 2 * a]
                y = q[jy] if jy >= 0 else fixed[e, 2 * a + 1]
                n1 = shape_slopes[e, a, p]
                ax += n1 * x
                ay += n1 * y
                if ei > 0.0:
                    n2 = shape_curvatures[e, a, p]
                    bx += n2 * x
                    by += n2 * y
            slopes[e, p, 0], slopes[e, p, 1] = ax, ay
            rates[e, p, 0], rates[e, p, 1] = bx, by
            m2 = ax * ax + ay * ay
            nu = np.sqrt(m2) / metric[e, p]
            t, dt, w = tension_law(law, stiffness, nu)
            tension[e, p], dtension[e, p] = t, dt
            density = metric[e, p] * w
            if ei > 0.0:
                excess = (ax * by - ay * bx) / m2 - ref_strain[e, p]
                density += 0.5 * ei / metric[e, p] * (excess * excess)
            energy += density * dx[e, p]
    force_e, tangents = element_response(
        slopes, rates, tension, dtension, metric, ei, ref_strain, shape_slopes,
        shape_curvatures, dx, order,
    )  # fmt: skip
    force = np.zeros(n_free)
    for e in range(n_el):
        for i in range(8):
            j = columns[e, i]
            if j >= 0:
                force[j] += force_e[e, i]
    return force, tangents, energy


# ---------------------------------------------------------------------------------------------
# The string in the compiled generalised-alpha step (``kernels.step``): its contact with a
# profile, a point sticking to it, and its iteration matrix M_f + gamma' C_f + beta' K_t(q)
# ---------------------------------------------------------------------------------------------


@inner
def nearest_node(nodes, coefficients, columns, fixed, q, px, py):
    """The node of the string nearest to (px, py), the start of ``closest`` without a guess
    (``StringStructure.closest``)."""
    best = np.inf
    s = nodes[0]
    for k in range(nodes.size):
        rx, ry, _, _, _, _ = _point(nodes, coefficients, columns, fixed, q, nodes[k])
        d = (rx - px) ** 2 + (ry - py) ** 2
        if d < best:
            best = d
            s = nodes[k]
    return s


@njit(cache=True)
def _rows(nodes, coefficients, s):
    """(s clipped, element, N, N_s, N_ss (4-tuples)) of the element's Hermite functions at s,
    clipped to [nodes[0], nodes[-1]], in its local coordinate (Horner's rule)."""
    s = min(max(s, nodes[0]), nodes[-1])
    n_el = coefficients.shape[0]
    e = min(max(np.searchsorted(nodes, s, side="right") - 1, 0), n_el - 1)
    x0 = nodes[e]
    le = nodes[e + 1] - x0
    z = (s - x0) / le
    c = coefficients[e]
    n0, s0, ss0 = _hermite(c, 0, z, le)
    n1, s1, ss1 = _hermite(c, 1, z, le)
    n2, s2, ss2 = _hermite(c, 2, z, le)
    n3, s3, ss3 = _hermite(c, 3, z, le)
    return s, e, (n0, n1, n2, n3), (s0, s1, s2, s3), (ss0, ss1, ss2, ss3)


@inner
def _hermite(c, a, z, le):
    """(N_a, N_a', N_a'') at the local coordinate z of an element of length le from its
    monomial coefficients c (4, 4) (``_rows``; Horner's rule; tuples, not arrays: no
    allocation in the closest-point iteration)."""
    c0 = c[a, 0]
    c1 = c[a, 1]
    c2 = c[a, 2]
    c3 = c[a, 3]
    return (
        c0 + z * (c1 + z * (c2 + z * c3)),
        (c1 + z * (2.0 * c2 + 3.0 * z * c3)) / le,
        (2.0 * c2 + 6.0 * z * c3) / (le * le),
    )


@inner
def string_contact(
    nodes, coefficients, columns, fixed, offset, s, q, u, side, radius, c, cv, Jc, ac, jw,
    omega_body, n_tree, out, wn, wt, hessian,
):  # fmt: skip
    """Contact kinematics of a profile (centre c, velocity cv, Jacobian Jc (2, n_tree),
    acceleration remainder ac, angular row jw, angular velocity omega_body) with the string at
    its material point s (``coupling.kinematics.structure_contact`` on ``StringStructure.curve``):
    the record ``out`` (``kernels.beam.N_FIELDS``), the rows W_N, W_T (n,) and ``hessian``
    (3, n) = (v, w, remainder gradient), filled in place. q, u (n,): the system's coordinates,
    the string's free ones from ``offset`` (columns: the free coordinate of each local dof,
    -1 at a fixed one, whose value is in ``fixed``; a fixed dof does not move).

    dr/dq of local dof 2 a + k is N_a e_k: W_N there is -n_k N_a, the Hessian columns those of
    ``kernels.curvature.hessian_columns`` with these rows, the remainder gradient
    ``kernels.curvature.remainder_slope`` times n_k N_a''."""
    qs = q[offset:]
    us = u[offset:]
    s, e, N, N_s, N_ss = _rows(nodes, coefficients, s)
    rx, ry, ax, ay, bx, by = _combine(columns, fixed, qs, e, N, N_s, N_ss)
    vmx = vmy = rsx = rsy = 0.0  # material velocity and slope velocity (fixed dofs: at rest)
    for a in range(4):
        jx, jy = columns[e, 2 * a], columns[e, 2 * a + 1]
        if jx >= 0:
            vmx += N[a] * us[jx]
            rsx += N_s[a] * us[jx]
        if jy >= 0:
            vmy += N[a] * us[jy]
            rsy += N_s[a] * us[jy]
    metric = np.hypot(ax, ay)
    tsx = ax / metric
    tsy = ay / metric
    nsx, nsy, nx, ny, tx, ty, dx, dy = contact_frame(side, tsx, tsy, c, rx, ry)
    relx = cv[0] - vmx
    rely = cv[1] - vmy
    for i in range(wn.size):
        wn[i] = 0.0
        wt[i] = 0.0
        hessian[0, i] = 0.0
        hessian[1, i] = 0.0
        hessian[2, i] = 0.0
    a2 = ax * ax + ay * ay
    for j in range(n_tree):
        wn[j] = nx * Jc[0, j] + ny * Jc[1, j]
        wt[j] = tx * Jc[0, j] + ty * Jc[1, j] + radius * jw[j]
        hessian[0, j] = (ax * Jc[0, j] + ay * Jc[1, j]) / a2
    rho = nx * dx + ny * dy
    kappa = nx * bx + ny * by
    c00, c01, c11, D = hessian_core(a2, rho, kappa)
    dA_dkappa = remainder_slope(a2, rho, D, (ax * relx + ay * rely) / a2, nx * rsx + ny * rsy)
    normal = (nx, ny)
    tangent = (tx, ty)
    slope = (ax, ay)
    for a in range(4):
        for k in range(2):
            col = columns[e, 2 * a + k]
            if col < 0:
                continue
            col += offset
            wn[col] += -(normal[k] * N[a])
            wt[col] += -(tangent[k] * N[a])
            hessian[0, col] += -(slope[k] * N[a]) / a2
            hessian[1, col] += normal[k] * N_s[a]
            hessian[2, col] += dA_dkappa * (normal[k] * N_ss[a])
    out[H00] = c00
    out[H01] = c01
    out[H11] = c11
    curve_record(
        side, radius, c, cv, ac, omega_body, s, e, rx, ry, ax, ay, bx, by, tsx, tsy, relx, rely,
        rsx, rsy, out,
    )  # fmt: skip


@inner
def string_stick_row(
    nodes, coefficients, columns, fixed, offset, s_star, tx, ty, q, c, Jc, ac, n_tree, row
):
    """(phi, A) of the tangential row of a point c sticking to the string at its material
    point s_star with the tangent (tx, ty) of the onset (``coupling.constraints.StickAnchor``):
    phi = t* . (c - r(s*, q)); the row t* . J_c on the tree and -t* . dr/dq on the string is
    written into ``row`` (n,); A = t* . a_c (r is linear in q). Arguments as
    ``string_contact``."""
    s, e, N, N_s, N_ss = _rows(nodes, coefficients, s_star)
    rx, ry, _, _, _, _ = _combine(columns, fixed, q[offset:], e, N, N_s, N_ss)
    for k in range(row.size):
        row[k] = 0.0
    for j in range(n_tree):
        row[j] = tx * Jc[0, j] + ty * Jc[1, j]
    for a in range(4):
        jx, jy = columns[e, 2 * a], columns[e, 2 * a + 1]
        if jx >= 0:
            row[offset + jx] += -(tx * N[a])
        if jy >= 0:
            row[offset + jy] += -(ty * N[a])
    return tx * (c[0] - rx) + ty * (c[1] - ry), tx * ac[0] + ty * ac[1]


@inner
def string_forces(string, q, offset, order):
    """``string_response`` of the string in the compiled step's constant tuple (``string`` =
    (meta (present, half-band, n_free), (EI, law code, stiffness), columns, fixed,
    shape_slopes, shape_curvatures, metric, ref_strain, dx, nodes, coefficients, band of M_f,
    flat, keep), ``steppers.compiled_plan.Plan``) at the system's coordinates q, the string's
    from ``offset``: (f_int (n_free,), element tangents, strain energy)."""
    meta, params, columns, fixed, slopes, curvatures, metric, ref_strain, dx = string[:9]
    return string_response(
        q[offset:], columns, fixed, slopes, curvatures, metric, params[0], ref_strain, dx,
        np.int64(params[1]), params[2], order, meta[2],
    )  # fmt: skip


@inner
def iteration_factor(string, q, offset, bp, tangents):
    """Banded LU factors (``kernels.band.band_lu_factor``: lu, piv, info) of the string's
    G_f = M_f + beta' K_t(q) (bp = beta'; no damping: ``compiled_scope.unsupported``), the
    tangent's element blocks scattered into M_f's band storage as
    ``effective_mass.FlexibleBlock.iteration_matrix`` does (``kernels.band.add_entries``).
    tangents: the element tangents at q when the caller has them (``string_forces``), else
    empty (0, 8, 8): evaluated here."""
    meta, mass, flat, keep = string[0], string[11], string[12], string[13]
    if tangents.shape[0] == 0:
        _, tangents, _ = string_forces(string, q, offset, np.int64(2))
    # M_f + beta' (0 + K_t): the sums of ``add_entries`` on zeros (0 + x is x), in one pass
    stiffness = np.zeros(mass.size)
    values = tangents.ravel()
    for i in range(flat.size):
        stiffness[flat[i]] += values[keep[i]]
    ab = np.empty(mass.shape)
    n_col = mass.shape[1]
    for i in range(mass.size):
        r, c = i // n_col, i % n_col
        ab[r, c] = mass[r, c] + bp * stiffness[i]
    return band_lu_factor(ab, meta[1])


@inner
def held_factor(string):
    """Room for the last banded LU factors of a string's G_f (``iteration_factor``), for the
    compiled step (``kernels.step.iterate``): (key (n_free + 2,) = (1 once held, beta', the
    string's coordinates it was formed at), lu, piv), empty (nothing held) without a string."""
    meta, mass = string[0], string[11]
    n_free = meta[2] if meta[0] == 1 else 0
    return np.zeros(n_free + 2), np.empty(mass.shape), np.zeros(n_free, np.int64)


@inner
def holds_factor(held, q, offset, bp):
    """Is the factor in ``held`` (``held_factor``) that of G_f at the system's coordinates q
    (the string's from ``offset``) and beta' = bp, the same numbers to the last bit? G_f
    depends on the string's coordinates and beta' alone."""
    key = held[0]
    if key.size < 2 or key[0] != 1.0 or key[1] != bp:
        return False
    for i in range(key.size - 2):
        if key[2 + i] != q[offset + i]:
            return False
    return True


@inner
def hold_factor(held, q, offset, bp, lu, piv):
    """Keep the factors (lu, piv) of G_f at q (the string's coordinates from ``offset``) and
    beta' = bp in ``held`` (``held_factor``), in place."""
    key, kept_lu, kept_piv = held
    if key.size < 2:
        return
    key[0] = 1.0
    key[1] = bp
    for i in range(key.size - 2):
        key[2 + i] = q[offset + i]
    kept_lu[:, :] = lu
    kept_piv[:] = piv


# ---------------------------------------------------------------------------------------------
# The string in the compiled energy-consistent step (``kernels.consistent_step``)
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def coded_energy_quotient(law, stiffness, nu0, nu1):
    """``(W(nu1) - W(nu0)) / ((nu1^2 - nu0^2) / 2)`` of law ``NEO_HOOKEAN`` (k/3 (1 - 2 /
    (nu0 nu1 (nu0 + nu1)))) or ``LINEAR_ELASTIC`` (EA (1 - 2 / (nu0 + nu1))), J/m: the closed
    forms of ``elements.tension`` (``energy_quotient`` of each law), T(nu) / nu at nu0 = nu1.

    Parameters
    ----------
    law : int
        ``NEO_HOOKEAN`` or ``LINEAR_ELASTIC``.
    stiffness : float
        The law's k or EA, N.
    nu0, nu1 : float
        The stretches at the step's ends.

    Returns
    -------
    float
        The energy quotient, J/m.

    Examples
    --------
    >>> float(coded_energy_quotient(LINEAR_ELASTIC, 100.0, 1.0, 1.0))
    0.0
    """
    if law == NEO_HOOKEAN:
        return stiffness / 3.0 * (1.0 - 2.0 / (nu0 * nu1 * (nu0 + nu1)))
    return stiffness * (1.0 - 2.0 / (nu0 + nu1))


@njit(cache=True)
def averaged_string_force(string, q0, q1, offset):
    """The discrete gradient of a string's tension energy between the system's coordinates q0
    and q1 (the string's from ``offset``) on its free coordinates, (n_free,), N:
    ``elements.string_energy.averaged_internal_force`` (its module docstring gives the form),
    f_avg = sum_qp dx B^T (S_avg a_mid) with S_avg = Q(nu0, nu1) / |r_ref'| and
    a_mid = (a0 + a1) / 2, so that f_avg . (q1 - q0) = V(q1) - V(q0) to round-off.

    Parameters
    ----------
    string : tuple
        The string tuple of the compiled step (``kernels.string.string_forces``), a string
        without bending stiffness.
    q0, q1 : ndarray, shape (n,)
        The system's coordinates at the step's ends.
    offset : int
        The string's first coordinate in q.

    Returns
    -------
    ndarray, shape (n_free,)
        f_avg, N; f_int(q) where q0 = q1.

    Examples
    --------
    >>> averaged_string_force.__name__  # a check on a string: tests/test_compiled_consistent_string.py
    'averaged_string_force'
    """
    meta, params, columns, fixed, slopes, _, metric, _, dx = string[:9]
    law = np.int64(params[1])
    stiffness = params[2]
    n_el, n_qp = metric.shape
    force = np.zeros(meta[2])
    x0 = np.empty(4)
    y0 = np.empty(4)
    x1 = np.empty(4)
    y1 = np.empty(4)
    f_e = np.empty(8)
    for e in range(n_el):
        for a in range(4):
            jx, jy = columns[e, 2 * a], columns[e, 2 * a + 1]
            x0[a] = q0[offset + jx] if jx >= 0 else fixed[e, 2 * a]
            y0[a] = q0[offset + jy] if jy >= 0 else fixed[e, 2 * a + 1]
            x1[a] = q1[offset + jx] if jx >= 0 else fixed[e, 2 * a]
            y1[a] = q1[offset + jy] if jy >= 0 else fixed[e, 2 * a + 1]
        for i in range(8):
            f_e[i] = 0.0
        for p in range(n_qp):
            ax0 = ay0 = ax1 = ay1 = 0.0
            for a in range(4):
                n1 = slopes[e, a, p]
                ax0 += n1 * x0[a]
                ay0 += n1 * y0[a]
                ax1 += n1 * x1[a]
                ay1 += n1 * y1[a]
            ref = metric[e, p]
            nu0 = np.sqrt(ax0 * ax0 + ay0 * ay0) / ref
            nu1 = np.sqrt(ax1 * ax1 + ay1 * ay1) / ref
            S = coded_energy_quotient(law, stiffness, nu0, nu1) / ref
            sx = S * (0.5 * (ax0 + ax1)) * dx[e, p]
            sy = S * (0.5 * (ay0 + ay1)) * dx[e, p]
            for a in range(4):
                n1 = slopes[e, a, p]
                f_e[2 * a] += n1 * sx
                f_e[2 * a + 1] += n1 * sy
        for i in range(8):
            j = columns[e, i]
            if j >= 0:
                force[j] += f_e[i]
    return force
