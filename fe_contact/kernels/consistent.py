"""The constraint pieces of the energy-consistent generalised-alpha form (numba), written once
for the Python step (``steppers.energy_consistent.ConsistentContacts``) and a compiled one.

``discrete_gradient``: Gonzalez's discrete gradient of the constraint rows between the states
q_n and q_n+1 = q_n + dq from their Jacobian at the midpoint (Gonzalez, J. Nonlinear Sci. 1996;
the module docstring of ``steppers.energy_consistent`` gives the form and its choices),

    G = J(q_mid) + (phi(q_n+1) - phi(q_n) - J(q_mid) dq) dq^T / (dq . dq),

so that G dq = phi(q_n+1) - phi(q_n); the friction rows' G_Sigma takes the same correction.
Rows with explicit time dependence (drives) and steps held in the velocity form or smaller than
``switch`` keep J(q_mid).

``reduced_residual``: the reduced residual through the null space of G_Sigma on the
partition's dependent coordinates U (Lipinski (002), eqs. 76, 78 with G_Sigma for J_Sigma),
r = e_I - B^T e_U with B = G_Sigma,U^-1 G_Sigma,I, and the step's multipliers from
2 G_Sigma,U^T Lambda = e_U, e = M q''_n+1 + F_n+1 + c_used,n.

``link_averaged_force``: the discrete gradient of the links' (droppers') elastic energy,
sum_l s_l G_l with s_l the secant slope of law l and G_l the discrete gradient of its approach
on its own DOFs (``steppers.force_laws`` gives the form), scattered onto the coordinates.

``velocity_projection``: the M-orthogonal projection of the velocities onto J u + phi_t = 0,
u - M^-1 J^T nu with (J M^-1 J^T) nu = J u + phi_t, and the kinetic energy it removes,
nu . J u - nu . (J M^-1 J^T) nu / 2 (>= 0 for scleronomic rows).

The products are ``np.dot`` (BLAS, as numpy's ``@`` on the same arrays) and the solve LAPACK's
gesv, so that the Python step's results are those of the numpy expressions they replace;
``link_averaged_force`` sums each link's few products in order where numpy's ``einsum``
vectorises them: the forces differ from the numpy form's in the last bits (the pantograph's
positions by 6e-15 m of 24 m over 0.3 s).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def discrete_gradient(jac_mid, jac_sigma_mid, phi0, phi1, dq, rheonomic, small, switch):
    """(G, G_Sigma), each (m, n), of the rows between two states (module docstring).

    Parameters
    ----------
    jac_mid, jac_sigma_mid : ndarray, shape (m, n)
        J and J_Sigma of the rows at the midpoint configuration.
    phi0, phi1 : ndarray, shape (m,)
        The rows' values at q_n and q_n+1, m (or rad).
    dq : ndarray, shape (n,)
        q_n+1 - q_n.
    rheonomic : ndarray of bool, shape (m,)
        The rows with explicit time dependence: they keep J(q_mid).
    small : bool
        The step is held in the velocity form: every row keeps J(q_mid).
    switch : float
        Below this |dq| every row keeps J(q_mid).

    Returns
    -------
    G, G_sigma : ndarray, shape (m, n)
        The discrete gradient, G dq = phi1 - phi0 on the other rows, and its friction form.

    Examples
    --------
    >>> import numpy as np
    >>> jac = np.array([[1.0, 0.0]])
    >>> G, _ = discrete_gradient(jac, jac, np.zeros(1), np.array([0.5]), np.array([0.25, 0.5]),
    ...                          np.zeros(1, dtype=np.bool_), False, 1e-9)
    >>> float(G[0] @ np.array([0.25, 0.5]))
    0.5
    """
    G = jac_mid.copy()
    G_sigma = jac_sigma_mid.copy()
    size2 = np.dot(dq, dq)
    if small or not size2 > switch * switch:
        return G, G_sigma
    defect = phi1 - phi0 - np.dot(G, dq)
    for i in range(defect.size):
        if rheonomic[i]:
            defect[i] = 0.0
    correction = np.outer(defect / size2, dq)
    G += correction
    G_sigma += correction
    return G, G_sigma


@njit(cache=True)
def velocity_projection(jac, u, phi_t, minv_jt):
    """The velocities projected onto J u + phi_t = 0 in the metric of the mass matrix (module
    docstring).

    Parameters
    ----------
    jac : ndarray, shape (m, n)
        The rows' Jacobian J at the state, m >= 1.
    u : ndarray, shape (n,)
        The velocities.
    phi_t : ndarray, shape (m,)
        The rows' explicit time derivative, m/s.
    minv_jt : ndarray, shape (n, m)
        M^-1 J^T.

    Returns
    -------
    u_new : ndarray, shape (n,)
        u - M^-1 J^T nu.
    loss : float
        The kinetic energy removed, J.
    impulse : ndarray, shape (m,)
        -nu, N s: positive along J^T lambda.

    Examples
    --------
    >>> import numpy as np
    >>> u_new, loss, _ = velocity_projection(np.array([[1.0, 0.0]]), np.array([2.0, 1.0]),
    ...                                      np.zeros(1), np.array([[0.5], [0.0]]))
    >>> u_new.tolist(), float(loss)
    ([0.0, 1.0], 2.0)
    """
    ju = np.dot(jac, u)
    v = ju + phi_t
    D = np.dot(jac, minv_jt)
    nu = np.linalg.solve(D, v)
    loss = np.dot(nu, ju) - 0.5 * np.dot(np.dot(nu, D), nu)
    return u - np.dot(minv_jt, nu), loss, -nu


@njit(cache=True)
def reduced_residual(G_sigma, total, dependent, independent):
    """The residual reduced through the null space of G_Sigma and the step's multipliers
    (module docstring).

    Parameters
    ----------
    G_sigma : ndarray, shape (m, n)
        The rows' discrete gradient in its friction form.
    total : ndarray, shape (n,)
        e = M q''_n+1 + F_n+1 + c_used,n, N.
    dependent : ndarray of int64, shape (m,)
        The partition's dependent coordinates U.
    independent : ndarray of int64, shape (n - m,)
        The independent coordinates I.

    Returns
    -------
    r : ndarray, shape (n - m,)
        e_I - B^T e_U, N.
    lam : ndarray, shape (m,)
        Lambda, with 2 G_Sigma,U^T Lambda = e_U, N.
    B : ndarray, shape (m, n - m)
        G_Sigma,U^-1 G_Sigma,I.

    Examples
    --------
    >>> import numpy as np
    >>> G = np.array([[2.0, 1.0]])
    >>> r, lam, B = reduced_residual(G, np.array([4.0, 3.0]), np.array([0]), np.array([1]))
    >>> r.tolist(), lam.tolist(), B.tolist()
    ([1.0], [1.0], [[0.5]])
    """
    m = dependent.size
    Gs_u = np.empty((m, m))
    Gs_i = np.empty((m, independent.size))
    for i in range(m):
        for j in range(m):
            Gs_u[i, j] = G_sigma[i, dependent[j]]
        for j in range(independent.size):
            Gs_i[i, j] = G_sigma[i, independent[j]]
    e_u = total[dependent]
    B = np.linalg.solve(Gs_u, Gs_i)
    lam = 0.5 * np.linalg.solve(np.ascontiguousarray(Gs_u.T), e_u)
    r = total[independent] - np.dot(np.ascontiguousarray(B.T), e_u)
    return r, lam, B


@njit(cache=True)
def link_averaged_force(dofs, first, gradient_mid, da, dq, secant, switch, n):
    """The discrete gradient of the links' elastic energy (module docstring).

    Parameters
    ----------
    dofs : ndarray of int64, shape (L, k)
        Each link's DOFs (a DOF may be listed twice: its padding).
    first : ndarray of bool, shape (L, k)
        The first listing of each DOF in its link's row: only these count in |dq_l|.
    gradient_mid : ndarray, shape (L, k)
        d a_l / d q at the midpoint, at the link's DOFs.
    da : ndarray, shape (L,)
        a_l(q_n+1) - a_l(q_n), m.
    dq : ndarray, shape (n,)
        q_n+1 - q_n.
    secant : ndarray, shape (L,)
        (phi(a_1) - phi(a_0)) / (a_1 - a_0) per link, N.
    switch : float
        Below this |dq_l| the link keeps its midpoint gradient.
    n : int
        The number of coordinates.

    Returns
    -------
    force : ndarray, shape (n,)
        sum_l secant_l G_l, N: dq . force = sum_l secant_l da_l where |dq_l| > switch.

    Examples
    --------
    >>> import numpy as np
    >>> f = link_averaged_force(np.array([[0, 1]]), np.ones((1, 2), dtype=np.bool_),
    ...                         np.array([[1.0, 0.0]]), np.array([0.5]), np.array([0.25, 0.5]),
    ...                         np.array([2.0]), 1e-4, 2)
    >>> float(f @ np.array([0.25, 0.5]))
    1.0
    """
    out = np.zeros(n)
    n_links, k = dofs.shape
    for link in range(n_links):
        along = 0.0
        size2 = 0.0
        for j in range(k):
            step = dq[dofs[link, j]]
            along += gradient_mid[link, j] * step
            if first[link, j]:
                size2 += step * step
        defect = da[link] - along
        scale = defect / max(size2, 1e-300) if size2 > switch * switch else 0.0
        for j in range(k):
            step = dq[dofs[link, j]] if first[link, j] else 0.0
            out[dofs[link, j]] += secant[link] * (gradient_mid[link, j] + scale * step)
    return out


__all__ = ["discrete_gradient", "link_averaged_force", "reduced_residual", "velocity_projection"]
