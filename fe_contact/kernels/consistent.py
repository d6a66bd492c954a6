"""The constraint pieces of the energy-consistent generalised-alpha form (numba), written once
for the Python step (``steppers.energy_consistent.ConsistentContacts``) and a compiled one.

``discrete_gradient``: Gonzalez's discrete gradient of the constraint rows between the states
q_n and q_n+1 = q_n + dq from their Jacobian at the midpoint (Gonzalez, J. Nonlinear Sci. 1996;
the module docstring of ``steppers.energy_consistent`` gives the form and its choices),

    G = J(q_mid) + (phi(q_n+1) - phi(q_n) - J(q_mid) dq) dq^T / (dq . dq),

so that G dq = phi(q_n+1) - phi(q_n); the friction rows' G_Sigma takes the same correction.
Rows with explicit time dependence (drives) and steps held in the velocity form or smaller than
``switch`` keep J(q_mid).

``velocity_projection``: the M-orthogonal projection of the velocities onto J u + phi_t = 0,
u - M^-1 J^T nu with (J M^-1 J^T) nu = J u + phi_t, and the kinetic energy it removes,
nu . J u - nu . (J M^-1 J^T) nu / 2 (>= 0 for scleronomic rows).

The products are ``np.dot`` (BLAS, as numpy's ``@`` on the same arrays) and the solve LAPACK's
gesv, so that the Python step's results are those of the numpy expressions they replace.
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


__all__ = ["discrete_gradient", "velocity_projection"]
