"""Where in a step a contact event happens, and how large the next sub-step may be: the time
arithmetic of the partitioned stepper's events (``genalpha``), on explicit arguments.

A contact event (a slip velocity reaching zero, a static friction force leaving the cone, a
normal force or a gap reaching zero) has an indicator that is >= 0 while the contact's mode
holds (``contact_states.ContactModes.indicator``). Its zero is located by re-taking the
sub-step from its start with other sizes: the Illinois variant of the false-position method on
the sub-step size (``illinois``). A contact leaving its structure has no indicator, only a
sub-step that fails; the last size at which it is still on is found by bisection
(``last_success``) and judged (``slides_off_end``). Each re-take is the caller's: a callable
that restores the sub-step's start and takes a sub-step of the size it is given.

The sub-step size is bounded, besides by the step, by the continuous friction law's control
(``substep_limit``, Bauchau (000) sec. 6), the local error estimate (``error_control``) and,
after a located event, by the growth limit STEP_GROWTH.
"""

from __future__ import annotations

import numpy as np

# after a located event the sub-steps grow from the last one by at most this factor until they
# reach h: a full step right after the tiny sub-step that ends on an event takes the stiff
# modes' accelerations of that sub-step into a step with omega h >> 1 and overshoots (a mass
# lifting off a near-rigid cantilever, E = 2.1e15 Pa, h = 1e-3 s: +4.2e-2 J from 1.25e-2 J);
# grown by 4 at most, the balance only loses energy to the numerical damping of rho_inf < 1
STEP_GROWTH = 4.0


def illinois(retake, f_lo: float, f_hi: float, span: float, tol: float) -> float:
    """The sub-step size, within ``tol``, at which an indicator reaches zero: the Illinois
    method (false position, halving the value kept at the end that stays twice) on [0, span].

    Parameters
    ----------
    retake : callable
        ``retake(dt)`` restores the sub-step's start, takes a sub-step of dt (s) and returns the
        indicator at its end.
    f_lo : float
        The indicator at the start (>= 0; at 0 nothing is re-taken).
    f_hi : float
        The indicator at the end of the sub-step of ``span`` (< 0: the event is inside).
    span : float
        The sub-step in which the event happens, s.
    tol : float
        The width in time to which the zero is bracketed, s.

    Returns
    -------
    float
        The smallest size known to end past the zero (f <= 0 there), s. The last sub-step
        taken by ``retake`` need not end there.

    Examples
    --------
    A linear indicator 1 - 4 dt on [0, 1] is found in one re-take:

    >>> round(illinois(lambda dt: 1.0 - 4.0 * dt, 1.0, -3.0, 1.0, 1e-12), 12)
    0.25
    """
    lo, hi = 0.0, span
    side = 0
    while hi - lo > tol and f_lo > 0.0:
        dt = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        dt = min(max(dt, lo + 0.01 * (hi - lo)), hi - 0.01 * (hi - lo))
        f = retake(dt)
        if f < 0.0:
            hi, f_hi = dt, f
            f_lo = 0.5 * f_lo if side == -1 else f_lo
            side = -1
        else:
            lo, f_lo = dt, f
            f_hi = 0.5 * f_hi if side == 1 else f_hi
            side = 1
            if f == 0.0:
                hi = dt
                break
    return hi


def last_success(attempt, span: float, tol: float) -> float:
    """The largest sub-step size, within ``tol``, that ``attempt`` still takes: bisection on
    [0, span] (a contact still on its structure at the end of a sub-step).

    Parameters
    ----------
    attempt : callable
        ``attempt(dt)`` restores the sub-step's start, tries a sub-step of dt (s) and returns
        whether it was taken.
    span : float
        A size that fails, s.
    tol : float
        The width in time of the final bracket, s.

    Returns
    -------
    float
        The largest size found to succeed (0 if none), s.

    Examples
    --------
    >>> last_success(lambda dt: dt <= 0.3, 1.0, 1e-3) <= 0.3
    True
    """
    lo, hi = 0.0, span
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if attempt(mid):
            lo = mid
        else:
            hi = mid
    return lo


def slides_off_end(parameter: float, parameter_rate: float, length: float, tol: float) -> bool:
    """Whether a contact found last at ``parameter`` is at an end of its structure: within
    1e-6 of the structure's length plus ten times what it slides in ``tol``. Otherwise its
    closest point jumped off from inside the structure, a sub-step too large for the motion.

    Parameters
    ----------
    parameter : float
        The contact's arc-length parameter on the structure at the last time it is on it, m.
    parameter_rate : float
        Its rate, m/s (nan: taken as 0).
    length : float
        The structure's length, m.
    tol : float
        The time to which the leaving was located, s.

    Examples
    --------
    >>> slides_off_end(0.9999999, 2.0, 1.0, 1e-10), slides_off_end(0.2, 2.0, 1.0, 1e-10)
    (True, False)
    """
    rate = abs(np.nan_to_num(parameter_rate))
    distance = min(abs(parameter), abs(length - parameter))
    return bool(distance <= 1e-6 * length + 10.0 * rate * tol)


def substep_limit(contacts, closed, v0, v_last, dt_last: float, min_substep: float) -> float:
    """The step-size control of Bauchau (000) sec. 6 for contacts with the continuous friction
    law: while |v_t| < 3 v0 the next sub-step is chosen so that v_t changes by about v0 / 10,
    extrapolating linearly from the last sub-step.

    Parameters
    ----------
    contacts : sequence
        Per contact with rows, its ContactKinematics now (``slip_velocity``, m/s) or None.
    closed : ndarray of bool, shape (n_rows,) or longer
        Whether each contact is closed.
    v0 : ndarray, shape (n_rows,)
        The characteristic slip velocity of each contact's law, m/s (nan: Coulomb's law).
    v_last : sequence or None
        The slip velocities at the start of the last sub-step, m/s (None: no control).
    dt_last : float
        The size of the last sub-step, s.
    min_substep : float
        The smallest sub-step, s.

    Returns
    -------
    float
        The largest next sub-step, s (inf when no contact asks for one).
    """
    limit = np.inf
    if v_last is None or dt_last <= 0.0:
        return limit
    for i, c in enumerate(contacts):
        if np.isnan(v0[i]) or c is None or not closed[i] or abs(c.slip_velocity) >= 3 * v0[i]:
            continue
        rate = abs(c.slip_velocity - v_last[i]) / dt_last
        if rate > 0.0:
            limit = min(limit, 0.1 * v0[i] / rate)
    return max(limit, min_substep)


def error_control(
    change: float, dt: float, beta: float, error_tol: float, min_substep: float
) -> tuple[bool, float]:
    """The error control of a sub-step of the Newmark family: its local error of the positions
    is estimated as |1/6 - beta| dt^2 |q''_n+1 - q''_n| (the third-order term the family leaves
    out).

    Parameters
    ----------
    change : float
        max |q''_n+1 - q''_n| over the sub-step, m/s^2 (or rad/s^2).
    dt : float
        The sub-step just taken, s.
    beta : float
        The Newmark parameter of the scheme.
    error_tol : float
        The bound of the local error, m (or rad).
    min_substep : float
        The smallest sub-step, s: one of this size is never rejected.

    Returns
    -------
    accepted : bool
        Whether the sub-step is kept (estimate <= error_tol, or dt <= min_substep).
    dt_next : float
        The next sub-step, s: dt (tol / estimate)^(1/3) times 0.9, at most twice dt when
        accepted, at least a fifth of dt and min_substep when rejected.

    Examples
    --------
    >>> error_control(0.0, 1e-3, 0.25, 1e-8, 1e-9)
    (True, 0.002)
    """
    estimate = abs(1.0 / 6.0 - beta) * dt * dt * change
    factor = 0.9 * (error_tol / estimate) ** (1.0 / 3.0) if estimate > 0 else 2.0
    if estimate > error_tol and dt > min_substep:
        return False, max(dt * max(factor, 0.2), min_substep)
    return True, dt * min(factor, 2.0)


__all__ = [
    "STEP_GROWTH",
    "error_control",
    "illinois",
    "last_success",
    "slides_off_end",
    "substep_limit",
]
