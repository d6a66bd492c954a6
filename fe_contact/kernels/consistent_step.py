"""One energy-consistent generalised-alpha step (rho_inf = 1) compiled (numba): the Newton
iteration of ``steppers.newton.newton_step`` with the force handling of
``steppers.energy_consistent.ConsistentContacts`` (whose module docstring gives every equation
and why), for a tree of prismatic joints (constant M_t) with drives, linear beams, ``Dropper``
links with constant rows, frictionless unilateral point-on-beam contacts, joint springs,
dampers and actuators, or one string without bending stiffness with bilateral ``Sliding``
point contacts, slipping with Coulomb friction or sticking (``steppers.compiled_consistent``
says what it takes).

On a string the structures' force is f_used,n+1 = 2 f_avg(q_n, q_n+1) - f_used,n with the
string's discrete gradient (``kernels.string.averaged_string_force``, the operations of
``StringStructure.averaged_internal_force``), and G_f = M_f + beta' K_t is factorised at each
iterate (``kernels.string.iteration_factor``) with the tangent at q_n in the first iterate and
at the midpoint after (``AveragedForces.tangent_state``), as the Python step does. A slipping
contact's friction is in its midpoint row J_Sigma = J - sign mu W_T (``evaluate_system``), so
G_Sigma and the friction work -Lambda . (G_Sigma - G) dq are those of the Python step. A
sticking contact holds the string's material point of its anchor by its positional row
(``kernels.string.string_stick_row``, its anchor in ``cstate``): one more row with its
discrete gradient, its Lambda the friction force, its work zero (G dq = phi_1 - phi_0); the
cone check after the step and the switches stay with the Python stepper.

Per iterate, in the Python step's order: the trapezoidal update of the independent
coordinates, the dependent ones by a constraint Newton step from the last iterate's rows (or
recovered afresh), closed at position level with their velocities on the trapezoidal rule
(``ConsistentContacts.dependent_state``; a step that moves by less than SMALL_STEP is left to
the Python step, which holds the rows in their velocity form), the rows at the midpoint, the
system at t_n+1 with the structures' force f_used,n+1 = 2 K q_mid - f_used,n and the links'
elastic force e_used,n+1 = 2 e_avg - e_used,n (``force_laws.ForceLaws``,
``consistent.link_averaged_force``), the dependent accelerations of the trapezoidal rule, the
reduced residual through the null space of G_Sigma (``consistent.discrete_gradient``,
``consistent.reduced_residual``) and its round-off floor, the bordered solve of
``kernels.step`` with G_Sigma^T in the multiplier columns and J(q_n+1) in the rows (the taut
links' tangent in G_f's band), and the Newton test of ``partitioned_step.newton_converged``.
After it, the M-orthogonal projection of the velocities onto J u + phi_t = 0
(``consistent.velocity_projection``), the system evaluated again at the projected velocities
(keeping the forces of the step's equations) and the work the step lets the dampers, the
loads and the drives do. The products M^-1 J^T of the projection go through the banded
Cholesky factor of M_f where the Python step uses its sparse LU, and the sums of K q, C u
through the structures' band products where it uses scipy's CSR products: the two steps agree
to round-off (``tests/test_compiled_consistent.py`` states by how much).

``consistent_step`` is its own entry point, one step per call: the plain kernels
(``kernels.loop.steps``) never reach it, so a model without the form never compiles it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .beam import band_solve, structure_product
from .consistent import (
    discrete_gradient,
    link_averaged_force,
    reduced_residual,
    velocity_projection,
)
from .dense import lu_decompose, lu_solve, matvec
from .evaluate import OK, SINGULAR, evaluate_system, normal_rows
from .links import GAP, TENSION, link_energies, link_states, linked_factor
from .loop import N_ENERGY
from .numerical import step_dissipation
from .pack import unpack
from .step import (
    bordered,
    consistent_rows,
    dependent_step,
    recover_dependent_rows,
    state_energies,
    trial_iterate,
)
from .string import averaged_string_force, iteration_factor, string_forces

EPS = np.finfo(float).eps
# the step's status beyond ``kernels.evaluate``'s codes: the iteration ran to max_newton
DIVERGED = 4
# the carried state's work entries (``consistent_step``'s ``work``): the dampers', the loads',
# the drives', the friction's (-Lambda . (G_Sigma - G) dq) and the projection's loss, J
WORK_FIELDS = ("dissipated_damping", "work_loads", "work_drives", "friction", "projection")


@njit(cache=True)
def law_secant(stiffness, exponent, a0, a1):
    """(phi(a_1) - phi(a_0)) / (a_1 - a_0) per law, phi(a) = c a^(p+1) / (p + 1) for a > 0
    (``force_laws.ForceLaws.secant``, the same expressions).

    Parameters
    ----------
    stiffness, exponent : ndarray, shape (L,)
        c (N/m^p) and p of each law.
    a0, a1 : ndarray, shape (L,)
        The approaches at the step's ends, m.

    Returns
    -------
    ndarray, shape (L,)
        The secant slopes, N: c a^p where a_1 = a_0, zero where both are <= 0.

    Examples
    --------
    >>> import numpy as np
    >>> law_secant(np.array([2.0]), np.array([1.0]), np.array([1.0]), np.array([3.0])).tolist()
    [4.0]
    """
    out = np.empty(a0.size)
    for i in range(a0.size):
        c = stiffness[i]
        p1 = exponent[i] + 1.0
        x0, x1 = a0[i], a1[i]
        da = x1 - x0
        out[i] = c * max(x0, 0.0) ** exponent[i]
        if x0 > 0.0 and x1 > 0.0 and da != 0.0:
            x = da / x0
            rise = x0**p1 * np.expm1(p1 * np.log1p(x))
            out[i] = c / p1 * rise / da
        elif (x0 > 0.0) != (x1 > 0.0) and np.isfinite(da):
            e1 = c * max(x1, 0.0) ** p1 / p1
            e0 = c * max(x0, 0.0) ** p1 / p1
            out[i] = (e1 - e0) / da
        if x0 <= 0.0 and x1 <= 0.0:
            out[i] = 0.0
    return out


@njit(cache=True)
def _generalized(dofs, values, gradient, n):
    """(n,) sum_l values_l d a_l / d q at the links' DOFs (``ForceLaws.generalized``'s
    ``np.add.at``, link by link, DOF by DOF)."""
    out = np.zeros(n)
    for i in range(dofs.shape[0]):
        for j in range(dofs.shape[1]):
            out[dofs[i, j]] += values[i] * gradient[i, j]
    return out


@njit(cache=True)
def _mass_solve_rows(LM, mass_tree, jac, nt):
    """M^-1 J^T (n, m) with M = diag(M_t, M_f), M_f through its banded Cholesky factor LM."""
    m, n = jac.shape
    nf = n - nt
    out = np.empty((n, m))
    X = np.empty((nf, m))
    for j in range(m):
        for k in range(nf):
            X[k, j] = jac[j, nt + k]
    band_solve(LM, X)
    lu, piv, _ = lu_decompose(mass_tree)
    for j in range(m):
        x_t = lu_solve(lu, piv, jac[j, :nt].copy())
        for k in range(nt):
            out[k, j] = x_t[k]
        for k in range(nf):
            out[nt + k, j] = X[k, j]
    return out


@njit(cache=True)
def _mass_times(diagonals, flex, mass_tree, a, nt):
    """M a for M = diag(M_t, M_f) (``constraints.mass_times``)."""
    out = np.empty(a.size)
    out[:nt] = matvec(mass_tree, a[:nt])
    structure_product(diagonals[0], flex[0], a, out[nt:], nt)
    return out


@njit(cache=True)
def _abs_max(x):
    out = 0.0
    for v in x:
        a = abs(v)
        if a > out or a != a:
            out = a
    return out


@njit(cache=True)
def consistent_step(
    F,
    I,
    H,
    Lg,
    Gb,
    LM,
    alpha,
    coef,
    drive,
    actuators,
    drive_mid,
    actuators_mid,
    ind,
    U,
    q_n,
    u_n,
    acc_n,
    pseudo_n,
    ydd0,
    prev,
    cstate,
    s_guess,
    carried,
    laws,
    drive_rows,
    drive_joints,
    tol,
    rtol,
    max_newton,
):
    """One energy-consistent step of h from the committed state (module docstring).

    Parameters
    ----------
    F, I, H : ndarray
        The packed constant tuple of ``kernels.step`` (``kernels.pack``).
    Lg : ndarray
        The banded Cholesky factor of G_f = M_f + gamma' C_f + beta' K_f.
    Gb : ndarray
        G_f in the links' band order (``kernels.links.linked_factor``), (1, 0) without links.
    LM : ndarray
        The banded Cholesky factor of M_f.
    alpha : tuple
        (alpha_m, alpha_f, gamma, beta) of the scheme: (1/2, 1/2, 1/2, 1/4).
    coef : tuple
        (h, beta', gamma', t_n+1), s, s^2, s, s.
    drive, actuators, drive_mid, actuators_mid : ndarray
        The drives' (n_d, 3) values and the actuators' forces (n_t,) at t_n+1 and at the
        step's middle (``compiled_plan.Plan.motion``).
    ind, U : ndarray of int64
        The independent and dependent coordinates.
    q_n, u_n, acc_n, pseudo_n : ndarray, shape (n,)
        The committed state: coordinates, velocities, accelerations, algorithmic ones.
    ydd0 : ndarray, shape (k,)
        The predicted independent accelerations.
    prev : tuple
        (q, u, phi, J, phi_t, t, W_T, ...) of the committed evaluation
        (``steppers.compiled.CompiledStep._prev``).
    cstate, s_guess : ndarray
        The contacts' modes and parameters (``kernels.evaluate.evaluate_system``).
    carried : tuple
        The force handling's committed part: (f_used of the structures (n_f,), the links'
        e_used (n,), their approaches (L,), the damping forces (n,), the loads (n,),
        c_used = M q'' + F (n,)), N and m.
    laws : tuple
        The links' (stiffness (L,), exponent (L,), first listing of each DOF (L, k) bool,
        LAW_SWITCH, GRADIENT_SWITCH).
    drive_rows, drive_joints : ndarray of int64
        The drives' rows and joints.
    tol, rtol : float
        The Newton tolerances (``partitioned_step.newton_converged``).
    max_newton : int
        Iterations at most.

    Returns
    -------
    tuple
        (status (``kernels.evaluate``'s codes, DIVERGED), iterations, q, u (projected), q'',
        a_n+1 of ind (k,), Lambda (m,), the evaluation at the step's end (``evaluate_system``'s
        tuple, its F that of the step's equations), the links' states there, (f_used (n_f,),
        e_used (n,), approaches (L,), damping (n,), loads (n,), c_used (n,)) to carry,
        work (5,) by ``WORK_FIELDS``, the projection's impulse on the rows (m,), N s, the
        scheme's loss D of the step without the projection's, J, the energies at the step's
        end as ``kernels.loop`` books them (``system.Energies``' first fields, the links'
        elastic energy last)).

    Examples
    --------
    >>> consistent_step.__name__  # a compiled step of a catenary: tests/test_compiled_consistent.py
    'consistent_step'
    """
    P = unpack(F, I, H)
    h, bp, gp, t1 = coef
    nt = P[6]
    flex = P[5]
    links = P[8]
    diagonals = P[10]
    mass_f = flex[7]
    tree_damping = P[4][1]
    on_string = P[7][0][0] == 1  # the structure is one string (``kernels.string``)
    no_tangents = np.zeros((0, 8, 8))
    n = q_n.size
    m = U.size
    k = ind.size
    nf = n - nt
    am, af, gamma, beta = alpha
    used_f, used_l, approach_n, damping_n, loads_n, c_used_n = carried
    stiffness_l, exponent_l, first, law_switch, gradient_switch = laws
    dofs = links[0]
    n_l = dofs.shape[0]
    hh = h * h
    update = (h, am, af, gamma, beta)  # the scheme's update (``kernels.step.trial_iterate``)
    y_n = q_n[ind]
    v_n = u_n[ind]
    ydd_n = acc_n[ind]
    a_n = pseudo_n[ind]
    ydd = ydd0.copy()
    pq, pu, pphi, pjac, pphit, pt, wb = (
        prev[0],
        prev[1],
        prev[2],
        prev[3],
        prev[4],
        prev[5],
        prev[6],
    )
    qb = pq
    phi0 = pphi
    phit0 = pphit
    nrow = normal_rows(cstate, drive.shape[0])[0]
    no_core = np.zeros((0, 3))
    no_hess = np.zeros((0, 3, n))
    no_force = np.zeros(0)
    no_piv = np.zeros(0, np.int64)
    piv_g = no_piv  # a string's G_f: banded LU factors (Lg, piv_g) formed at each iterate
    # the string's force given to the evaluations whose F is not used (the rows', the
    # midpoint's, the projected state's): not evaluated there
    unused = np.zeros(nf) if on_string else no_force
    one = np.int64(1)  # the compliant contacts' forces subtracted in ``evaluate_system``
    have_prev = True
    q1 = q_n.copy()
    u1 = u_n.copy()
    have_last = False
    d_last = 0.0
    lam_last = np.zeros(m)
    lam = np.zeros(m)
    a1 = a_n.copy()
    acc = np.zeros(n)
    status = np.int64(DIVERGED)
    iterations = 0
    delta = np.empty(k)
    inertia_delta = np.empty(k)
    G = np.zeros((m, n))
    Gs = np.zeros((m, n))
    dq = np.zeros(n)
    e = np.zeros(n)
    forces = np.zeros(n)
    mass_tree = np.zeros((nt, nt))
    jac = np.zeros((m, n))
    phit = np.zeros(m)
    used1_f = used_f.copy()
    used1_l = used_l.copy()
    approach1 = approach_n.copy()
    damping1 = damping_n.copy()
    loads1 = loads_n.copy()
    gradient1 = np.zeros((n_l, dofs.shape[1]))
    tension1 = np.zeros(n_l)
    work_damping = 0.0
    work_loads = 0.0
    for _ in range(max_newton):
        q1, u1, a1 = trial_iterate(
            (pq, pu) if have_prev else (q1, u1), ind, (y_n, v_n, ydd_n, a_n), ydd, update
        )
        recovered = not have_prev
        if recovered:
            st = recover_dependent_rows(P, U, q1, u1, drive, actuators, cstate, qb, wb)
            if st != OK:
                status = st
                break
        elif not dependent_step(
            U, ind, pjac, pphi, pphit, pq, pt, q1, u1, t1, no_hess, no_core, nrow
        ):
            status = np.int64(SINGULAR)
            break
        # the dependent coordinates on the trapezoidal rule (``dependent_state``)
        ev = evaluate_system(P, q1, u1, drive, actuators, cstate, s_guess, qb, wb, unused, one)
        if ev[0] != OK:
            status = ev[0]
            break
        phi_c, jac_c = ev[1], ev[2]
        Ju = np.empty((m, m))
        for i in range(m):
            for j in range(m):
                Ju[i, j] = jac_c[i, U[j]]
        lu, piv, rc = lu_decompose(Ju)
        if rc <= 1e-13:
            status = np.int64(SINGULAR)
            break
        step_u = lu_solve(lu, piv, phi_c.copy())
        for j in range(m):
            q1[U[j]] -= step_u[j]
            u1[U[j]] = 2.0 * (q1[U[j]] - q_n[U[j]]) / h - u_n[U[j]]
        q_mid = 0.5 * (q_n + q1)
        ev_mid = evaluate_system(
            P,
            q_mid,
            0.5 * (u_n + u1),
            drive_mid,
            actuators_mid,
            cstate,
            s_guess,
            qb,
            wb,
            unused,
            one,
        )
        if ev_mid[0] != OK:
            status = ev_mid[0]
            break
        f_string = no_force
        if on_string:  # f_int(q1), given to the evaluation and replaced by f_used below
            f_string = string_forces(P[7], q1, nt, np.int64(1))[0]
        ev = evaluate_system(P, q1, u1, drive, actuators, cstate, s_guess, qb, wb, f_string, one)
        st, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces, hess = ev
        if st != OK:
            status = st
            break
        # the structures' and the links' forces of the step's equations (``AveragedForces.step``)
        dq = q1 - q_n
        if on_string:  # its discrete gradient (``StringStructure.averaged_internal_force``)
            k_mid = averaged_string_force(P[7], q_n, q1, nt)
            k_q1 = f_string
        else:  # linear beams: K q_mid, and K q1 in the evaluation's forces
            k_mid = np.empty(nf)
            structure_product(diagonals[2], flex[2], q_mid, k_mid, nt)
            k_q1 = np.empty(nf)
            structure_product(diagonals[2], flex[2], q1, k_q1, nt)
        for i in range(nf):
            used1_f[i] = 2.0 * k_mid[i] - used_f[i]
            forces[nt + i] += used1_f[i] - k_q1[i]
        ok1, ls1, w1 = link_states(links, q1, u1)
        okm, _, wm = link_states(links, q_mid, u1)
        if not (ok1 and okm):
            status = np.int64(SINGULAR)
            break
        approach1 = np.empty(n_l)
        slope1 = np.empty(n_l)
        gradient1 = -w1
        tension1 = ls1[:, TENSION].copy()
        for i in range(n_l):
            approach1[i] = -ls1[i, GAP]
            slope1[i] = stiffness_l[i] * max(approach1[i], 0.0) ** exponent_l[i]
        secant = law_secant(stiffness_l, exponent_l, approach_n, approach1)
        da = approach1 - approach_n
        average = link_averaged_force(dofs, first, -wm, da, dq, secant, law_switch, n)
        elastic1 = _generalized(dofs, slope1, gradient1, n)
        for i in range(n):
            used1_l[i] = 2.0 * average[i] - used_l[i]
        for i in range(n):
            forces[i] += used1_l[i] - elastic1[i]
        damping1 = np.zeros(n)
        for i in range(nt):
            damping1[i] = tree_damping[i] * u1[i]
        structure_product(diagonals[1], flex[1], u1, damping1[nt:], nt)
        beyond = np.empty(n_l)
        for i in range(n_l):
            beyond[i] = ls1[i, TENSION] - slope1[i]
        damping1 += _generalized(dofs, beyond, gradient1, n)
        loads1 = np.zeros(n)
        loads1[:nt] = actuators
        work_damping = 0.5 * np.dot(dq, damping_n + damping1)
        work_loads = 0.5 * np.dot(dq, loads_n + loads1)
        # the residual reduced through the null space of G_Sigma (``ConsistentContacts.reduced``)
        acc = np.empty(n)
        for j in range(k):
            acc[ind[j]] = ydd[j]
        for j in range(m):
            acc[U[j]] = 2.0 * (u1[U[j]] - u_n[U[j]]) / h - acc_n[U[j]]
        inertia = _mass_times(diagonals, flex, mass_tree, acc, nt)
        e = inertia + forces
        total = e + c_used_n
        rheonomic = np.empty(m, np.bool_)
        for i in range(m):
            rheonomic[i] = (phit0[i] != 0.0) or (phit[i] != 0.0)
        G, Gs = discrete_gradient(
            ev_mid[2], ev_mid[3], phi0, phi, dq, rheonomic, False, gradient_switch
        )
        for i in range(m):
            for j in range(m):
                Ju[i, j] = Gs[i, U[j]]
        rc = lu_decompose(Ju)[2]
        if rc <= 1e-13:
            status = np.int64(SINGULAR)
            break
        r, lam, B = reduced_residual(Gs, total, U, ind)
        noise = np.zeros(n)
        for j in range(m):
            noise[U[j]] = 8.0 * EPS * (abs(q1[U[j]]) + abs(q_n[U[j]])) / hh
        spread = np.abs(_mass_times(diagonals, flex, mass_tree, noise, nt))
        # the bordered solve with G_Sigma^T in the multiplier columns (``newton_rows``)
        rhs = np.zeros(n)
        for j in range(k):
            rhs[ind[j]] = -r[j]
        L_it = Lg
        order = no_piv
        if on_string:  # G_f = M_f + beta' K_t at q_n, then at the midpoint (``tangent_state``)
            L_it, piv_g, info = iteration_factor(
                P[7], q_n if iterations == 0 else q_mid, nt, bp, no_tangents
            )
            if info != 0:
                status = np.int64(SINGULAR)
                break
        if n_l > 0:
            U_l, info, taut = linked_factor(links, Gb, ls1, w1, bp, gp, nt)
            if info != 0:
                status = np.int64(SINGULAR)
                break
            if taut > 0:
                L_it = U_l
                order = links[6]
        X = bordered(P, L_it, piv_g, order, bp, gp, mass_tree, jac, Gs, rhs, np.int64(0))
        finite = True
        for j in range(k):
            delta[j] = X[ind[j]]
            finite = finite and np.isfinite(delta[j])
        iterations += 1
        if not finite:
            status = np.int64(SINGULAR)
            break
        # the Newton test (``partitioned_step.newton_converged``) with the floors of
        # ``StepAlgebra.residual_floor`` and ``ConsistentContacts.residual_floor``
        scale = max(1.0, _abs_max(inertia), _abs_max(forces))
        for j in range(k):
            i = ind[j]
            inertia_delta[j] = (mass_tree[i, i] if i < nt else mass_f[i - nt]) * delta[j]
        d = _abs_max(delta)
        stalled = have_last and d_last > 0 and d >= 0.5 * d_last
        bound = rtol * scale
        excess = max(bp * d / tol, _abs_max(r) / bound, _abs_max(inertia_delta) / bound)
        if excess > 1.0:
            rows = np.empty((3, nf))
            for i in range(nf):
                rows[0, i] = abs(acc[nt + i])
                rows[1, i] = abs(u1[nt + i])
                rows[2, i] = abs(q1[nt + i])
            sums = np.zeros((3, nf))
            structure_product(diagonals[3], flex[3], rows[0], sums[0], 0)
            structure_product(diagonals[4], flex[4], rows[1], sums[1], 0)
            structure_product(diagonals[5], flex[5], rows[2], sums[2], 0)
            excess = bp * d / tol
            for j in range(k):
                i = ind[j]
                fl = spread[i]
                for a in range(m):
                    fl += abs(B[a, j]) * spread[U[a]]
                if i >= nt:
                    fl += 16.0 * EPS * (sums[0, i - nt] + sums[1, i - nt] + sums[2, i - nt])
                for v in (abs(r[j]) / (bound + fl), abs(inertia_delta[j]) / (bound + fl)):
                    if v > excess or v != v:
                        excess = v
        if excess > 1.0:
            converged = stalled and excess <= 1e4
        elif m == 0:
            converged = True
        elif not have_last:
            converged = False
        elif stalled:
            converged = True
        else:
            theta = d / d_last if d_last > 0 else 0.0
            error = theta / (1.0 - theta) * _abs_max(lam - lam_last)
            converged = error <= rtol * max(1.0, _abs_max(lam))
        if converged:
            if recovered or _abs_max(phi) <= tol or consistent_rows(phi, jac, u1, phit, tol):
                status = np.int64(OK)
                break
            have_prev = False
        else:
            have_prev = True
            pq, pu, pphi, pjac, pphit, pt = q1, u1, phi, jac, phit, t1
        have_last = True
        d_last = d
        lam_last = lam
        for j in range(k):
            ydd[j] += delta[j]
    work = np.zeros(len(WORK_FIELDS))
    impulse = np.zeros(m)
    if status != OK:
        ev = evaluate_system(P, q1, u1, drive, actuators, cstate, s_guess, qb, wb, no_force, one)
        carried1 = (used1_f, used1_l, approach1, damping1, loads1, e, gradient1, tension1)
        return (
            status,
            iterations,
            q1,
            u1,
            acc,
            a1,
            lam,
            ev,
            np.zeros((n_l, 7)),
            carried1,
            work,
            impulse,
            0.0,
            np.zeros(N_ENERGY),
        )
    # J u + phi_t = 0 closed by the M-orthogonal projection (``ConsistentContacts.project``)
    loss = 0.0
    if m > 0:
        minv_jt = _mass_solve_rows(LM, mass_tree, jac, nt)
        u1, loss, impulse = velocity_projection(jac, u1, phit, minv_jt)
    ev = evaluate_system(P, q1, u1, drive, actuators, cstate, s_guess, qb, wb, unused, one)
    final = (ev[0], ev[1], ev[2], ev[3], ev[4], ev[5], ev[6], ev[7], ev[8], ev[9], forces, ev[11])
    _, states_f, _ = link_states(links, q1, u1)
    # the energies at the step's end, as ``kernels.loop`` books them (``system.energies``)
    booked = state_energies(P, q1, u1, actuators, 0.0)
    energy = np.empty(N_ENERGY)
    for i in range(N_ENERGY - 1):
        energy[i] = booked[i]
    energy[N_ENERGY - 1] = link_energies(links, q1, u1)[0] if n_l > 0 else 0.0
    dissipation = step_dissipation(
        P, alpha, h, ind, U, u_n, u1, acc_n, acc, pseudo_n, a1, ev[9], ev[2]
    )
    work[0] = work_damping
    work[1] = work_loads
    driven = 0.0
    for i in range(drive_rows.size):
        driven += lam[drive_rows[i]] * dq[drive_joints[i]]
    work[2] = driven
    work[3] = -np.dot(lam, np.dot(Gs - G, dq))
    work[4] = loss
    carried1 = (used1_f, used1_l, approach1, damping1, loads1, e, gradient1, tension1)
    return (
        status,
        iterations,
        q1,
        u1,
        acc,
        a1,
        lam,
        final,
        states_f,
        carried1,
        work,
        impulse,
        dissipation,
        energy,
    )


__all__ = ["DIVERGED", "WORK_FIELDS", "consistent_step", "law_secant"]
