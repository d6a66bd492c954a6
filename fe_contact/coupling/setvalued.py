"""Set-valued contact laws for a rigid disk: kinematics, normal-cone inclusions, impulse solver.

Kinematics, Eugster-Glocker (004), eqs. (20)-(25). The disk has the coordinates ``(x, y, phi)``
(centre M and rotation angle, counter-clockwise positive). A candidate contact is a point P that
the disk must not enclose: a material point ``r(s_i)`` of the string (a dense grid of ``ncp``
points fixed in the material, independent of the elements, 004 eq. (20)), or the foot of the
perpendicular from M on a rigid straight line. For each candidate

* ``e_N = (r_M - r_P) / |r_M - r_P|`` (from P to the centre), ``e_T = (e_N,y, -e_N,x)``
  (``e_N`` turned by -90 degrees, 004 eq. (21));
* gap ``g_N = e_N . (r_M - r_P) - R`` (004 eq. (23)); for a line with unit normal n pointing to
  the free side, ``e_N = n`` and ``g_N = n . (r_M - p) - R``;
* generalized force directions (004 eq. (22)): disk part ``(e_N, 0)`` and ``(e_T, R)``, string
  part ``-J(s_i)^T e_N`` and ``-J(s_i)^T e_T`` with the position Jacobian ``J = dr/dq``; a line
  has no string part. Then ``gamma_N = w_N . u`` and ``gamma_T = w_T . u`` are the normal and
  tangential relative velocities of the disk's contact point Q with respect to P (004 eqs. (24),
  (25); ``gamma_T`` contains the rolling term ``R phi'``).

Force laws on impulse level, as normal-cone inclusions written as proximal maps (r > 0):

* unilateral contact, 004 eq. (26): ``xi_N in N_{R0-}(-P_N)``  <=>  ``P_N = prox_{R0+}(P_N - r xi_N)``;
* Coulomb friction, 004 eq. (27): ``xi_T in N_{[-mu P_N, mu P_N]}(-P_T)``
  <=>  ``P_T = prox_{[-mu P_N, mu P_N]}(P_T - r xi_T)``;
* Newton's impact law (004 sec. 4.5) enters through ``xi = gamma_E + e gamma_A`` with the normal
  and tangential restitution coefficients ``e_N``, ``e_T`` (0 by default, as in 004).

The discrete contact problem of a time step is ``xi = G P + c`` with the Delassus matrix
``G = W^T M_eff^-1 W`` and ``W = [W_N, W_T]``; ``solve_contact_impulses`` solves it by a
non-smooth (projected) Gauss-Seidel iteration over the contacts with the r-factors
``r_i = alpha / G_ii`` and an adaptive ``alpha`` (reduced while the iteration does not contract).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..elements.string import PointJacobian

__all__ = [
    "ContactImpulses",
    "ContactKinematics",
    "ContactLaw",
    "ContactSolverError",
    "disk_line_kinematics",
    "disk_string_gaps",
    "disk_string_kinematics",
    "natural_residual",
    "prox_friction",
    "prox_normal",
    "solve_contact_impulses",
]


@dataclass(frozen=True)
class ContactLaw:
    """Unilateral contact with Coulomb friction and Newton's impact law.

    friction : Coulomb coefficient mu >= 0, 004 eq. (27).
    restitution_normal, restitution_tangent : Newton restitution coefficients e_N, e_T in [0, 1]
        (004 sec. 4.5 uses 0 for both).
    """

    friction: float = 0.0
    restitution_normal: float = 0.0
    restitution_tangent: float = 0.0

    def __post_init__(self):
        if not np.isfinite(self.friction) or self.friction < 0.0:
            raise ValueError(f"friction: got {self.friction!r}; allowed: mu >= 0")
        for name in ("restitution_normal", "restitution_tangent"):
            value = getattr(self, name)
            if not np.isfinite(value) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{name}: got {value!r}; allowed: a number in [0, 1]")


@dataclass(frozen=True, eq=False)
class ContactKinematics:
    """Candidate contacts at one configuration; m = number of contacts, n_u = system velocities.

    gap : g_N in m, shape (m,), 004 eq. (23).
    normal, tangent : e_N, e_T, shape (2, m), 004 eq. (21).
    w_normal, w_tangent : generalized force directions w_N, w_T, shape (n_u, m), 004 eq. (22).
    """

    gap: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    w_normal: np.ndarray
    w_tangent: np.ndarray


def _turn_minus_90(e_n: np.ndarray) -> np.ndarray:
    """e_T = (e_x (x) e_y - e_y (x) e_x) e_N = (e_N,y, -e_N,x), 004 eq. (21); shape (2, m)."""
    return np.array([e_n[1], -e_n[0]])


def _string_points(jacobian: PointJacobian, q_string: np.ndarray) -> np.ndarray:
    """Positions r(s_i) = J_i q[dofs_i], shape (2, m)."""
    return np.einsum("kcj,kj->ck", jacobian.block, q_string[jacobian.dofs])


def disk_string_gaps(
    jacobian: PointJacobian, q_string: np.ndarray, centre: np.ndarray, radius: float
) -> np.ndarray:
    """Gaps g_N = |r_M - r(s_i)| - R of all candidate points, shape (m,), 004 eq. (23)."""
    d = np.asarray(centre, dtype=float)[:, None] - _string_points(jacobian, q_string)
    return np.sqrt(np.sum(d**2, axis=0)) - radius


def disk_string_kinematics(
    jacobian: PointJacobian,
    q_string: np.ndarray,
    centre: np.ndarray,
    radius: float,
    string_index: np.ndarray,
    disk_index: np.ndarray,
    n_u: int,
) -> ContactKinematics:
    """Disk against the string's candidate points, 004 eqs. (21)-(25), vectorised over points.

    jacobian : position_jacobian(model, s) at the candidate points s_i (constant: r is linear in q).
    q_string : full string coordinates, shape (n_string_dofs,).
    centre : disk centre (x, y) in m.  radius : R in m.
    string_index : column in the system velocity u of each string dof, -1 for eliminated (fixed)
        dofs, shape (n_string_dofs,).  disk_index : columns of (x, y, phi) in u, shape (3,).
    """
    r_p = _string_points(jacobian, q_string)
    d = np.asarray(centre, dtype=float)[:, None] - r_p
    distance = np.sqrt(np.sum(d**2, axis=0))
    e_n = d / distance
    e_t = _turn_minus_90(e_n)
    m = distance.size
    w_n = np.zeros((n_u, m))
    w_t = np.zeros((n_u, m))
    w_n[disk_index[0]] = e_n[0]
    w_n[disk_index[1]] = e_n[1]
    w_t[disk_index[0]] = e_t[0]
    w_t[disk_index[1]] = e_t[1]
    w_t[disk_index[2]] = radius
    # string part -J_i^T e, scattered to the free dofs of the containing element
    rows = string_index[jacobian.dofs]  # (m, 8)
    cols = np.broadcast_to(np.arange(m)[:, None], rows.shape)
    keep = rows >= 0
    for w, e in ((w_n, e_n), (w_t, e_t)):
        values = -np.einsum("kcj,ck->kj", jacobian.block, e)
        np.add.at(w, (rows[keep], cols[keep]), values[keep])
    return ContactKinematics(
        gap=distance - radius, normal=e_n, tangent=e_t, w_normal=w_n, w_tangent=w_t
    )


def disk_line_kinematics(
    point: np.ndarray,
    normal: np.ndarray,
    centre: np.ndarray,
    radius: float,
    disk_index: np.ndarray,
    n_u: int,
) -> ContactKinematics:
    """Disk against a rigid straight line through ``point`` with unit ``normal`` (free side).

    Same construction as 004 eqs. (21)-(25) with the line's closest point as P (at rest):
    e_N = n, g_N = n . (r_M - p) - R, w_N = (n, 0), w_T = (e_T, R) on the disk coordinates.
    Returns one contact (m = 1).
    """
    n = np.asarray(normal, dtype=float)
    e_n = n[:, None]
    e_t = _turn_minus_90(e_n)
    gap = np.array([n @ (np.asarray(centre, dtype=float) - np.asarray(point, dtype=float))])
    w_n = np.zeros((n_u, 1))
    w_t = np.zeros((n_u, 1))
    w_n[disk_index[:2], 0] = n
    w_t[disk_index[:2], 0] = e_t[:, 0]
    w_t[disk_index[2], 0] = radius
    return ContactKinematics(gap=gap - radius, normal=e_n, tangent=e_t, w_normal=w_n, w_tangent=w_t)


# --------------------------------------------------------------------------------------------
# Force laws as proximal maps
# --------------------------------------------------------------------------------------------


def prox_normal(x):
    """Projection on R0+: the unilateral law P_N = prox_{R0+}(P_N - r xi_N), 004 eq. (26)."""
    return np.maximum(x, 0.0)


def prox_friction(x, bound):
    """Projection on [-bound, bound], bound = mu P_N >= 0: Coulomb's law, 004 eq. (27)."""
    return np.clip(x, -bound, bound)


def natural_residual(
    normal: np.ndarray,
    tangent: np.ndarray,
    xi_normal: np.ndarray,
    xi_tangent: np.ndarray,
    friction: np.ndarray,
    r_normal: np.ndarray,
    r_tangent: np.ndarray,
) -> float:
    """Largest violation of the impulse laws (004 eqs. (26)-(27)) in m/s; 0 when they hold.

    Per contact the natural maps ``|P_N - prox_{R0+}(P_N - r_N xi_N)| / r_N`` and
    ``|P_T - prox_{[-mu P_N, mu P_N]}(P_T - r_T xi_T)| / r_T``; with r = 1 / G_ii they measure the
    velocity error of each law. All arguments have shape (m,).
    """
    res_n = np.abs(normal - prox_normal(normal - r_normal * xi_normal)) / r_normal
    res_t = (
        np.abs(tangent - prox_friction(tangent - r_tangent * xi_tangent, friction * normal))
        / r_tangent
    )
    return float(max(res_n.max(initial=0.0), res_t.max(initial=0.0)))


# --------------------------------------------------------------------------------------------
# Per-step contact problem
# --------------------------------------------------------------------------------------------


class ContactSolverError(RuntimeError):
    """The Gauss-Seidel iteration for the contact impulses did not converge.

    n_contacts : closed contacts in the problem; n_iterations : sweeps done; residual : largest
    violation of the impulse laws in m/s at the end; tolerance : the requested one in m/s;
    r_factor : final relaxation alpha of r_i = alpha / G_ii.
    """

    def __init__(self, n_contacts, n_iterations, residual, tolerance, r_factor, time=None):
        self.n_contacts = n_contacts
        self.n_iterations = n_iterations
        self.residual = residual
        self.tolerance = tolerance
        self.r_factor = r_factor
        self.time = time
        where = "" if time is None else f" at t = {time:.6g} s"
        super().__init__(
            f"contact impulses{where}: projected Gauss-Seidel did not converge for "
            f"{n_contacts} closed contacts after {n_iterations} sweeps: residual "
            f"{residual:.3e} m/s > tolerance {tolerance:.3e} m/s (r-factor alpha = "
            f"{r_factor:.3g}); try a smaller step h, a larger max_iterations, or fewer "
            "candidate contact points"
        )


@dataclass(frozen=True, eq=False)
class ContactImpulses:
    """Solution of one step's contact problem (m closed contacts).

    normal, tangent : impulses P_N >= 0 and P_T in [-mu P_N, mu P_N], N s, shape (m,).
    xi_normal, xi_tangent : xi = G P + c at the solution, m/s, shape (m,).
    n_iterations : Gauss-Seidel sweeps; residual : largest violation of the laws in m/s;
    r_factor : final alpha of r_i = alpha / G_ii.
    """

    normal: np.ndarray
    tangent: np.ndarray
    xi_normal: np.ndarray
    xi_tangent: np.ndarray
    n_iterations: int
    residual: float
    r_factor: float


def solve_contact_impulses(
    delassus: np.ndarray,
    offset: np.ndarray,
    friction: np.ndarray,
    initial: np.ndarray | None = None,
    tol: float = 1e-9,
    max_iterations: int = 2000,
    min_r_factor: float = 1e-3,
    time: float | None = None,
) -> ContactImpulses:
    """Solve xi = G P + c with the set-valued laws of 004 eqs. (26)-(27) on impulse level.

    delassus : G = W^T M_eff^-1 W, shape (2m, 2m), rows/columns ordered (N_1..N_m, T_1..T_m).
    offset : c, shape (2m,): xi = G P + c (c contains the free velocity and e gamma_A).
    friction : mu per contact, shape (m,).
    initial : starting impulses (N_1..N_m, T_1..T_m), e.g. those of the previous step.
    tol : relative tolerance; converged when the law residual (m/s) is below
        ``tol * max(|c|_inf, |G P|_inf, 1e-12)``.
    The iteration is a non-smooth Gauss-Seidel: per contact i, first
    ``P_Ni <- prox_{R0+}(P_Ni - r_Ni xi_Ni)``, then ``P_Ti <- prox_{[-mu P_Ni, mu P_Ni]}(P_Ti -
    r_Ti xi_Ti)`` with the current xi, ``r = alpha / G_ii``. alpha starts at 1 (exact projected
    Gauss-Seidel for the normal direction) and is halved whenever the increment of a sweep has
    grown three sweeps in a row; it is not lowered below min_r_factor.
    Raises ContactSolverError when not converged after max_iterations sweeps.
    """
    G = np.asarray(delassus, dtype=float)
    c = np.asarray(offset, dtype=float)
    mu = np.asarray(friction, dtype=float)
    m = mu.size
    P = np.zeros(2 * m) if initial is None else np.array(initial, dtype=float)
    diag = np.diag(G).copy()
    if np.any(diag <= 0.0):
        raise ValueError("delassus: a diagonal entry is not positive; a contact has no mass")
    rows = [G[k] for k in range(2 * m)]
    r_unit = 1.0 / diag  # r-factors of the residual check
    alpha = 1.0
    previous_increment = np.inf
    growth = 0
    scale_c = float(np.abs(c).max(initial=0.0))
    residual = np.inf
    for sweep in range(1, max_iterations + 1):
        increment = 0.0
        for i in range(m):
            j = m + i
            xi_n = rows[i] @ P + c[i]
            p_n = P[i] - alpha / diag[i] * xi_n
            p_n = p_n if p_n > 0.0 else 0.0
            increment = max(increment, abs(p_n - P[i]))
            P[i] = p_n
            xi_t = rows[j] @ P + c[j]
            bound = mu[i] * p_n
            p_t = min(max(P[j] - alpha / diag[j] * xi_t, -bound), bound)
            increment = max(increment, abs(p_t - P[j]))
            P[j] = p_t
        xi = G @ P + c
        residual = natural_residual(P[:m], P[m:], xi[:m], xi[m:], mu, r_unit[:m], r_unit[m:])
        scale = max(scale_c, float(np.abs(xi - c).max(initial=0.0)), 1e-12)
        if residual <= tol * scale:
            return ContactImpulses(
                normal=P[:m].copy(),
                tangent=P[m:].copy(),
                xi_normal=xi[:m],
                xi_tangent=xi[m:],
                n_iterations=sweep,
                residual=residual,
                r_factor=alpha,
            )
        growth = growth + 1 if increment > previous_increment else 0
        previous_increment = increment
        if growth >= 3 and alpha > min_r_factor:
            alpha = max(0.5 * alpha, min_r_factor)
            growth = 0
    raise ContactSolverError(m, max_iterations, residual, tol * scale, alpha, time)
