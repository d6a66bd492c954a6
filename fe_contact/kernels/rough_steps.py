"""Quiet steps of the event-driven stepper (``steppers.event_driven``) in one compiled call:
``quiet_steps`` chains the kernels of one step (``kernels.rough``: the candidate pairs, the
closed contacts' rows, Poisson's impact (``poisson_jump``), the smooth midpoint step with
its impulses, the end gaps and the loss booking) over consecutive steps from a state, for as
long as no step needs Python (a halving, the impulses' last resort, a singular step, Newton's
impact, the run's last step), and writes what each step reports as flat arrays
(``steppers.rough_batch.RoughBatch``). ``tree_energies`` is ``system.energies`` of a tree
alone.

Every number is computed with the operations of the Python step, in its order (the products
of matrices and vectors by BLAS as numpy takes them, ``blas_matvec``; the sums by numpy's
pairwise order, ``kernels.pairwise.pairwise_sum``), so that a batch reports the floats of the
steps taken one by one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .pairwise import pairwise_sum
from .rough import (
    book_losses,
    checked_coulomb_impulses,
    closed_rows,
    pair_gaps,
    smooth_losses,
    smooth_step,
    tree_pairs,
)
from .tree import body_states, equations

__all__ = [
    "ENERGY_FIELDS",
    "POINT_FIELDS",
    "SCALAR_FIELDS",
    "STOPS",
    "blas_matvec",
    "poisson_expansion",
    "poisson_jump",
    "quiet_steps",
    "tree_energies",
]

# why a batch ended, by the code ``quiet_steps`` returns
STOPS = ("full", "bound", "impact", "fallback", "halving", "singular")
# per step: the rough pair's report columns computed in the kernel, in this order
SCALAR_FIELDS = (
    "normal_force",
    "friction_force",
    "normal_impulse",
    "friction_impulse",
    "slip_velocity",
    "gap",
    "point_x",
    "point_y",
    "impulse_x",
    "impulse_y",
    "normal_impulse_x",
    "normal_impulse_y",
    "loss_profile",
    "loss_target",
    "friction_power",
)
# per closed point of a step
POINT_FIELDS = (
    "point_x",
    "point_y",
    "normal_x",
    "normal_y",
    "tangent_x",
    "tangent_y",
    "gap",
    "slip_velocity",
    "normal_impulse",
    "friction_impulse",
)
# per step: the energies of its end state (``tree_energies``)
ENERGY_FIELDS = ("tree_kinetic", "gravity", "tree_springs", "damping_power")
N_WORK = 7  # columns.WORK_KEYS
_DRIVES, _DAMPING, _FRICTION, _IMPACT, _TIMING = 0, 2, 3, 4, 6  # their indices


@njit(cache=True)
def blas_matvec(a, b):
    """a @ b for a (r, c) and b (c,) contiguous, with numpy's BLAS call: the dot product of
    the one row when r = 1 (numpy's ``matmul`` of one row), else the matrix-vector product.

    Parameters
    ----------
    a : ndarray, shape (r, c)
        The matrix, C-contiguous.
    b : ndarray, shape (c,)
        The vector.

    Returns
    -------
    ndarray, shape (r,)
        The product.

    Examples
    --------
    >>> import numpy as np
    >>> from fe_contact.kernels.rough_steps import blas_matvec
    >>> blas_matvec(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0])).tolist()
    [-1.0, -1.0]
    """
    if a.shape[0] == 1:
        out = np.empty(1)
        out[0] = np.dot(a[0], b)
        return out
    if a.shape[0] == 0 or a.shape[1] == 0:
        return np.zeros(a.shape[0])
    return np.dot(a, b)


@njit(cache=True)
def tree_energies(T, q, u, mass, inertia, gravity, stiffness, rest, damping):
    """``system.energies`` of a tree alone (no structures, compliant contacts or actuators)
    at q, u (n,), with its operations: the tree's kinetic energy 1/2 (m . |v_c|^2 + I .
    omega^2), the potential of gravity and the joint springs, the springs' energy and the
    dampers' power.

    Parameters
    ----------
    T : tuple
        The tree's kernel arrays (``kernels.tree``).
    q, u : ndarray, shape (n,)
        Coordinates and rates.
    mass, inertia : ndarray, shape (n,)
        The bodies' masses (kg) and moments of inertia (kg m^2).
    gravity : ndarray, shape (2,)
        m/s^2.
    stiffness, rest, damping : ndarray, shape (n,)
        The joints' springs, rest positions and dampers.

    Returns
    -------
    ndarray, shape (4,)
        ``ENERGY_FIELDS``: kinetic, gravity, springs (J) and the dampers' power (W).

    Examples
    --------
    A prismatic joint's spring (k = 100 N/m, stretched by 0.1 m): 0.5 J:

    >>> import numpy as np
    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.kernels.rough_steps import tree_energies
    >>> tree = TreeModel(bodies=(Body(1.0, 0.0),),
    ...                  joints=(Joint("prismatic", stiffness=100.0),), gravity=(0.0, 0.0))
    >>> topo = tree.topology
    >>> e = tree_energies(topo.kernel_arrays, np.array([0.1]), np.array([1.0]), topo.mass,
    ...                   topo.inertia, topo.gravity, topo.stiffness, topo.rest, topo.damping)
    >>> [round(float(x), 12) for x in e]
    [0.5, 0.0, 0.5, 0.0]
    """
    n = q.size
    _, _, com, omega, _, vc = body_states(T, q, u)
    v2 = np.empty(n)
    w2 = np.empty(n)
    for i in range(n):
        v2[i] = vc[i, 0] * vc[i, 0] + vc[i, 1] * vc[i, 1]
        w2[i] = omega[i] * omega[i]
    kinetic = 0.5 * (np.dot(mass, v2) + np.dot(inertia, w2))
    stretch = np.empty(n)
    speed = np.empty(n)
    for i in range(n):
        d = q[i] - rest[i]
        stretch[i] = d * d
        speed[i] = u[i] * u[i]
    springs = 0.5 * np.dot(stiffness, stretch)
    potential = -np.dot(mass, blas_matvec(np.ascontiguousarray(com), gravity)) + springs
    out = np.empty(4)
    out[0] = kinetic
    out[1] = (potential - springs) + 0.0
    out[2] = springs
    out[3] = np.dot(damping, speed) + 0.0 + 0.0
    return out


@njit(cache=True)
def _phase_loss(impulse, start, end):
    """(m,) J: -P . (start + end) / 2 per contact (``coupling.impact.phase_loss``)."""
    m = impulse.size // 2
    work = impulse * 0.5 * (start + end)
    return -(work[:m] + work[m:])


@njit(cache=True)
def poisson_expansion(G, p_c, gdot, eps_n, eps_t, nu, stick_tol):
    """The start of the expansion phase of Poisson's impact (Slavic-Boltezar (003), eqs.
    (14)-(15); ``coupling.impact.poisson_impact``) from the compression's impulses p_c (2m,):
    the relative velocities at the end of compression g_c = G p_c + gdot and the stored
    impulse Lambda_E0: eps_n times the normal one and eps_t times the tangential one, nu eps_t
    where the contact sticks at the end of compression (|g_c,T| <= stick_tol max(1, |gdot|)).

    Parameters
    ----------
    G : ndarray, shape (2m, 2m)
        The Delassus matrix W^T M^-1 W, C-contiguous (rows: N, then T).
    p_c : ndarray, shape (2m,)
        N s, the compression's impulses.
    gdot : ndarray, shape (2m,)
        m/s, the relative velocities before the impact.
    eps_n, eps_t, nu : float
        Poisson's restitution coefficients and the tangential reversibility.
    stick_tol : float
        m/s per m/s of the largest velocity before the impact (at least 1 m/s): the slip
        velocity below which a contact sticks at the end of compression.

    Returns
    -------
    tuple
        (g_c (2m,) m/s, Lambda_E0 (2m,) N s).

    Examples
    --------
    One contact (G = 1 s/kg) hit at -2 m/s and sliding at 1 m/s, compressed by 2 N s with a
    friction impulse of -0.5 N s: the tangential velocity 0.5 m/s remains, so it slides and
    both impulses are stored with their own coefficient:

    >>> import numpy as np
    >>> from fe_contact.kernels.rough_steps import poisson_expansion
    >>> g_c, p_e0 = poisson_expansion(np.eye(2), np.array([2.0, -0.5]), np.array([-2.0, 1.0]),
    ...                               0.5, 0.2, 0.0, 1e-12)
    >>> g_c.tolist(), p_e0.tolist()
    ([0.0, 0.5], [1.0, -0.1])
    """
    m = p_c.size // 2
    g_c = blas_matvec(G, p_c) + gdot
    largest = -np.inf
    for v in gdot:
        largest = max(largest, abs(v))
    bound = stick_tol * (largest if largest > 1.0 else 1.0)
    p_e0 = np.empty(2 * m)
    for i in range(m):
        p_e0[i] = eps_n * p_c[i]
        p_e0[m + i] = eps_t * p_c[m + i] * (nu if abs(g_c[m + i]) <= bound else 1.0)
    return g_c, p_e0


@njit(cache=True)
def poisson_jump(T, q, u, joints, w, gdot, friction, eps_n, eps_t, nu, tol):
    """Poisson's impact with friction on m closed contacts of the tree T at (q, u) (n,), as
    the event-driven stepper takes it (``EventDriven._impact``, ``coupling.impact.
    poisson_impact``: a compression, then an expansion of eps_n, eps_t (nu eps_t where the
    contact sticks at the end of compression, ``poisson_expansion``) times its impulse with the
    laws' correction),
    with its operations; w (2m, n) the rows, gdot (2m,) the relative velocities before it,
    friction (m,), joints (3, n) as ``smooth_step`` takes them, tol the impulses' tolerance.

    Parameters
    ----------
    T : tuple
        The tree's kernel arrays.
    q, u : ndarray, shape (n,)
        The state before the impact.
    joints : ndarray, shape (3, n)
        The joints' stiffness, damping and rest.
    w : ndarray, shape (2m, n)
        The rows w_N, then w_T.
    gdot : ndarray, shape (2m,)
        m/s, the relative velocities before the impact.
    friction : ndarray, shape (m,)
        The friction coefficients.
    eps_n, eps_t, nu : float
        Poisson's restitution coefficients and the tangential reversibility.
    tol : float
        The tolerance of ``checked_coulomb_impulses``.

    Returns
    -------
    tuple
        (solved, u (n,) after the impact, the impulse (2m,) N s of both phases, the loss (m,)
        J of each contact): solved False when a phase's impulses were not accepted (Python's
        last resort then), the rest zero.

    Examples
    --------
    A pin of the wheel (003 sec. 4.1) falling at 1 mm/s onto one point of contact below its
    pivot: it leaves at eps_n = 0.5 of that, and the loss is 3/8 m v^2 (no friction here):

    >>> import numpy as np
    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.kernels.rough_steps import poisson_jump
    >>> tree = TreeModel(bodies=(Body(2.0, 0.0),), joints=(Joint("prismatic", angle=np.pi / 2),),
    ...                  gravity=(0.0, 0.0))
    >>> T, w = tree.topology.kernel_arrays, np.array([[1.0], [0.0]])
    >>> joints = np.zeros((3, 1))
    >>> ok, u, p, loss = poisson_jump(T, np.zeros(1), np.array([-1e-3]), joints, w,
    ...                                 np.array([-1e-3, 0.0]), np.zeros(1), 0.5, 0.5, 0.0, 1e-9)
    >>> bool(ok), round(float(u[0]) * 1e3, 9), round(float(loss[0]) * 1e7, 9)
    (True, 0.5, 7.5)
    """
    n = q.size
    m = friction.size
    zero = np.zeros(n)
    M = equations(T, q, zero, joints[0], joints[1], joints[2], zero)[0]
    minv_w = np.ascontiguousarray(np.linalg.solve(M, np.ascontiguousarray(w.T)))
    G = np.dot(w, minv_w)
    failed = (False, u.copy(), np.zeros(2 * m), np.zeros(m))
    p_c, solved = checked_coulomb_impulses(G, gdot, friction, tol)
    if not solved:
        return failed
    g_c, p_e0 = poisson_expansion(G, p_c, gdot, eps_n, eps_t, nu, 1e-12)
    p_d, solved = checked_coulomb_impulses(G, g_c + blas_matvec(G, p_e0), friction, tol)
    if not solved:
        return failed
    p_e = p_e0 + p_d
    g_e = blas_matvec(G, p_e) + g_c
    total = np.empty(2 * m)
    total[:m] = p_c[:m] + p_e[:m]
    total[m:] = p_c[m:] + p_e[m:]
    loss = _phase_loss(p_c, gdot, g_c) + _phase_loss(p_e, g_c, g_e)
    return True, u + blas_matvec(minv_w, total), total, loss


@njit(cache=True)
def _main(values):
    """np.argmax(values): the first largest, the first NaN when there is one."""
    best = 0
    for i in range(values.size):
        if np.isnan(values[i]):
            return i
        if values[i] > values[best]:
            best = i
    return best


@njit(cache=True)
def quiet_steps(
    T, body, q, u, t, h, t_bound, n_max, joints, energy_terms, closing, impact_velocity, depth,
    may_halve, profile, profile_normals, wheel, wheel_normals, theta_wheel, corner, jw, omega,
    alpha_0, mu, stick_speed, tol, loss_profile, loss_target, impacts, eps_n, eps_t, nu
):  # fmt: skip
    """Up to n_max quiet steps of the event-driven stepper (module docstring) from (q, u) (n,)
    at t (s), each of h (s), none reaching t_bound (s); the losses are booked into loss_profile
    (n_b,) and loss_target (n_w,) (J per vertex) as the steps are accepted.

    T and body: the tree's kernel arrays and the polyline's body; joints (3, n): the joints'
    stiffness, damping and rest; energy_terms: (mass, inertia, gravity, stiffness, rest,
    damping) of ``tree_energies``; closing, depth (m), impact_velocity (m/s): the stepper's
    closing, penetration and impact velocity; may_halve: whether a penetrating step is halved;
    profile, profile_normals, wheel, wheel_normals, theta_wheel, corner, jw: the geometry of
    ``kernels.rough.tree_pairs`` and ``closed_rows``; omega (rad/s) and alpha_0 (rad): the
    wheel's; mu: the friction coefficient; stick_speed (m/s): a loaded point slipping no faster
    sticks; tol: the impulses' tolerance (``checked_coulomb_impulses``); impacts: whether a
    step that starts with an impact is taken here (Poisson's, ``poisson_jump``, with eps_n,
    eps_t and nu), else left to Python.

    Returns (k, stop, n_lcp, t (k,), q (k, n), u (k, n), acceleration (k, n), work (k, 7),
    energy (k, 4), scalars (k, 15), state (k,) int, closed (k,) int, offsets (k + 1,) int,
    points (offsets[k], 10), impact (k,) bool): k steps taken, stop the index in ``STOPS`` of
    why no more, n_lcp the complementarity problems solved; per step its end time, state and mean
    acceleration, its work by WORK_KEYS, the energies of its end state (``ENERGY_FIELDS``),
    the rough pair's report columns (``SCALAR_FIELDS``), its state code (0 open, 1 slip,
    2 stick) and closed points, whose ``POINT_FIELDS`` are points[offsets[j]:offsets[j+1]],
    and whether it started with an impact.
    """
    n = q.size
    mass, inertia, gravity, e_stiffness, e_rest, e_damping = energy_terms
    damping = joints[1]
    actuators = np.zeros(n)
    n_b, n_w = profile.shape[1], wheel.shape[1]
    ts = np.empty(n_max)
    qs = np.empty((n_max, n))
    us = np.empty((n_max, n))
    acc = np.empty((n_max, n))
    work = np.zeros((n_max, N_WORK))
    energy = np.empty((n_max, 4))
    scalars = np.empty((n_max, 15))
    state = np.empty(n_max, np.int64)
    closed = np.empty(n_max, np.int64)
    offsets = np.zeros(n_max + 1, np.int64)
    impact = np.zeros(n_max, np.bool_)
    points = np.empty((max(16, 4 * n_max), 10))
    n_lcp = 0
    stop = 0
    k = 0
    pts, nrm, ia, ka, gap_a, ib, kb, gap_b, at, j0 = tree_pairs(
        T, body, q, alpha_0 + omega * t, profile, profile_normals, wheel, wheel_normals,
        theta_wheel, corner
    )  # fmt: skip
    while k < n_max:
        if not t_bound - t > h:
            stop = 1  # the last step (to t_bound) is the stepper's
            break
        alpha = alpha_0 + omega * t
        point, normal, tangent, w, what, xi, _, body_vertex, vertex, segment = closed_rows(
            pts, nrm, wheel, wheel_normals, ia, ka, gap_a, ib, kb, gap_b, closing, alpha, omega,
            at, j0, jw
        )  # fmt: skip
        m = xi.size
        friction = np.full(m, mu)
        u_start = u
        p_impact = np.zeros(2 * m)
        impact_loss = np.zeros(m)
        impacted = False
        if m:
            gdot = blas_matvec(w, u) + what
            for i in range(m):
                if gdot[i] < -impact_velocity:
                    impacted = True
            if impacted:
                if not impacts:
                    stop = 2
                    break
                singular = False
                try:
                    solved, u, p_impact, impact_loss = poisson_jump(
                        T, q, u, joints, w, gdot, friction, eps_n, eps_t, nu, tol
                    )
                except Exception:  # noqa: BLE001 - numpy's LinAlgError: the step raises it
                    singular = True
                if singular or not solved:
                    stop = 2
                    break
        singular = False
        try:
            free, a_inv_w, _, _, p, solved = smooth_step(
                T, q, u, h, joints, actuators, w, what, friction, tol
            )
        except Exception:  # noqa: BLE001 - numpy's LinAlgError: the stepper halves the step
            singular = True
        if singular:
            stop = 5
            break
        if m:
            if not solved:
                stop = 3
                break
            u_m = free + blas_matvec(a_inv_w, p) / h
        else:
            u_m = free
        q1 = q + h * u_m
        u1 = 2.0 * u_m - u
        t1 = t + h
        pts1, nrm1, ia1, ka1, gap_a1, ib1, kb1, gap_b1, at1, j01 = tree_pairs(
            T, body, q1, alpha_0 + omega * t1, profile, profile_normals, wheel, wheel_normals,
            theta_wheel, corner
        )  # fmt: skip
        gap_end, penetrated, min_gap = pair_gaps(
            ia1, gap_a1, ib1, gap_b1, body_vertex, vertex, n_b, n_w, depth
        )
        if penetrated and may_halve:
            stop = 4
            break
        # the step is accepted: its work, losses and report
        wk = work[k]
        impulse = np.zeros(4)
        if impacted:  # booked first, as the step books it
            book_losses(impact_loss, body_vertex, vertex, segment, xi, loss_profile, loss_target)
            wk[_DRIVES] += np.dot(-p_impact, what)
            wk[_IMPACT] += pairwise_sum(impact_loss)
            along = blas_matvec(normal, p_impact[:m].copy())
            whole = along + blas_matvec(tangent, p_impact[m:].copy())
            impulse[0] += whole[0]
            impulse[1] += whole[1]
            impulse[2] += along[0]
            impulse[3] += along[1]
            n_lcp += 2
            impact[k] = True
        wk[_DAMPING] += h * pairwise_sum(damping * u_m**2)
        slip = np.zeros(m)
        if m:
            n_lcp += 1
            gamma_0 = blas_matvec(w, u) + what
            gamma_1 = blas_matvec(w, 2.0 * u_m - u) + what
            f_loss, i_loss, timing = smooth_losses(
                p, gamma_0, gamma_1, friction, body_vertex, vertex, segment, xi, loss_profile,
                loss_target
            )  # fmt: skip
            wk[_DRIVES] += np.dot(-p, what)
            wk[_FRICTION] += f_loss
            wk[_IMPACT] += i_loss
            wk[_TIMING] += timing
            p_n = p[:m].copy()
            p_t = p[m:].copy()
            along = blas_matvec(normal, p_n)
            whole = along + blas_matvec(tangent, p_t)
            impulse[0] += whole[0]
            impulse[1] += whole[1]
            impulse[2] += along[0]
            impulse[3] += along[1]
            slip = blas_matvec(np.ascontiguousarray(w[m:]), u1) + what[m:]
        p_all = p_impact + p
        rate = 1.0 / h if h > 0.0 else 0.0
        normal_force = p_all[:m] * rate
        friction_force = p_all[m:] * rate
        s = scalars[k]
        s[0] = pairwise_sum(normal_force)
        s[1] = pairwise_sum(friction_force)
        s[2] = pairwise_sum(p_all[:m].copy())
        s[3] = pairwise_sum(p_all[m:].copy())
        if m:
            main = _main(normal_force)
            s[4] = slip[main]
            s[6] = point[0, main]
            s[7] = point[1, main]
        else:
            s[4] = s[6] = s[7] = np.nan
        s[5] = min_gap
        s[8], s[9], s[10], s[11] = impulse[0], impulse[1], impulse[2], impulse[3]
        s[12] = pairwise_sum(loss_profile)
        s[13] = pairwise_sum(loss_target)
        s[14] = 0.0 + pairwise_sum(friction_force * slip)
        loaded = False
        slipping = False
        for i in range(m):
            if p_all[i] > 0.0:
                loaded = True
                if not abs(slip[i]) <= stick_speed:
                    slipping = True
        state[k] = 0 if not loaded else 1 if slipping else 2
        closed[k] = m
        start = offsets[k]
        if start + m > points.shape[0]:
            grown = np.empty((2 * (start + m), 10))
            grown[:start] = points[:start]
            points = grown
        for i in range(m):
            r = points[start + i]
            r[0], r[1] = point[0, i], point[1, i]
            r[2], r[3] = normal[0, i], normal[1, i]
            r[4], r[5] = tangent[0, i], tangent[1, i]
            r[6], r[7] = gap_end[i], slip[i]
            r[8], r[9] = p_all[i], p_all[m + i]
        offsets[k + 1] = start + m
        ts[k] = t1
        qs[k] = q1
        us[k] = u1
        acc[k] = (u1 - u_start) / h
        energy[k] = tree_energies(T, q1, u1, mass, inertia, gravity, e_stiffness, e_rest, e_damping)
        q, u, t = q1, u1, t1
        pts, nrm, ia, ka, gap_a, ib, kb, gap_b, at, j0 = (
            pts1, nrm1, ia1, ka1, gap_a1, ib1, kb1, gap_b1, at1, j01
        )  # fmt: skip
        k += 1
    return (
        k, stop, n_lcp, ts[:k], qs[:k], us[:k], acc[:k], work[:k], energy[:k], scalars[:k],
        state[:k], closed[:k], offsets[: k + 1], points[: offsets[k]], impact[:k]
    )  # fmt: skip
