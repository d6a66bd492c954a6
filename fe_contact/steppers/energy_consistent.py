"""The energy-consistent internal force of the generalised-alpha stepper at rho_inf = 1.

At rho_inf = 1 (alpha_m = alpha_f = gamma = 1/2, beta = 1/4) the update of the independent
coordinates is the trapezoidal rule, q_n+1 - q_n = h (u_n + u_n+1) / 2 and
u_n+1 - u_n = h (q''_n + q''_n+1) / 2, whatever the algorithmic accelerations, so over a step
the structures' kinetic energy changes by (q_n+1 - q_n) . M (q''_n + q''_n+1) / 2: the internal
force acts through the average (f_n + f_n+1) / 2 of the forces in the equations of motion at
t_n and t_n+1. That average does the work V(q_n+1) - V(q_n) exactly only when V is quadratic
(beams); for a string it errs at O(h^3) per step.

With the option, the structures' force in the equations at t_n+1 is
``f_used,n+1 = 2 f_avg(q_n, q_n+1) - f_used,n``, f_avg the discrete gradient
(``Structure.averaged_internal_force``), f_used,n the force in the committed accelerations
(f_int(q_n) after a restart, where the accelerations are recomputed): the average of the two is
f_avg, whose work is V(q_n+1) - V(q_n) to round-off. f_used differs from f_int(q) by an
alternating O(h^2) term, so the reported accelerations do too. The Newton matrix takes
the tangent stiffness at the midpoint: d f_used,n+1 / d q_n+1 = 2 d f_avg / d q_n+1 =
K(q_mid) + O(|q_n+1 - q_n|), a consistent approximation (Newton converges linearly, fast).

Friction: the same average carries the friction force F (the friction part of J_Sigma^T lambda
of a slipping Sliding contact, the stick row's J^T lambda of a sticking one), so its work over
a sub-step is (F_0 + F_1) / 2 . (q_1 - q_0), the friction force times the displacement
increment; with the option that, not the trapezoidal rule on the friction power, is booked in
``dissipated_friction`` (Compliant contacts keep the trapezoidal rule).

Not covered: the tree's dependent coordinates are recovered from the constraints at position
and velocity level, so they do not follow the trapezoidal update, and the normal force of a
contact on a curved target works on the chord (J_0 dq and J_1 dq are O(h^2), not zero): with
the string exact, these remain in the balance of a model with contacts, at O(h^3) per step.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..system import System


class PlainForces:
    """The stepper without the option: the equations hold f_int(q_n+1) as evaluated."""

    active = False

    def restart(self, ev) -> None:
        pass

    def step(self, q_n, ev):
        return ev

    def commit(self, ev) -> None:
        pass

    def tangent_state(self, q_n, q1):
        """The state whose tangent stiffness enters the Newton matrix of the step to q1."""
        return q1

    def save(self):
        return None

    def restore(self, saved) -> None:
        pass


class AveragedForces(PlainForces):
    """Replaces the structures' internal force in each evaluation at t_n+1 by f_used,n+1 (module
    docstring); ``used`` : f_used of the committed state, (n_flexible,), N. Books the sliding
    contacts' friction work of a (sub-)step as the step does it (module docstring);
    ``friction`` : (q, generalised friction force, friction power) at the sub-step's start."""

    active = True

    def __init__(self, system: System):
        self.system = system
        self.used = None
        self._pending = None
        self.friction = None

    def friction_start(self, q, force, power) -> None:
        """The state (q, generalised friction force (n,), N, its power, W) a sub-step starts
        from: at a restart (the contact state may have changed) and after each sub-step."""
        self.friction = (q, force, power)

    def friction_work(self, q1, force1, power1, dt: float) -> float:
        """What to add to the trapezoidal friction dissipation 0.5 dt (P_0 + P_1) of the
        sub-step just closed at q1 so that it is the discrete work -(F_0 + F_1) / 2 . (q1 - q0)
        the forces do in the step; marks q1 as the next start. J."""
        q0, force0, power0 = self.friction
        self.friction_start(q1, force1, power1)
        discrete = -0.5 * float((force0 + force1) @ (q1 - q0))
        return discrete - 0.5 * dt * (power0 + power1)

    def restart(self, ev) -> None:
        self.used = self.system.flexible_internal_force(ev.q)

    def step(self, q_n, ev):
        system = self.system
        flexible = system.layout.flexible
        used = 2.0 * system.flexible_averaged_internal_force(q_n, ev.q) - self.used
        forces = ev.forces.copy()
        forces[flexible] += used - system.flexible_internal_force(ev.q)
        self._pending = used
        return dataclasses.replace(ev, forces=forces)

    def commit(self, ev) -> None:
        self.used = self._pending

    def tangent_state(self, q_n, q1):
        """The midpoint: 2 d f_avg / d q1 = K(q_mid) + O(|q1 - q_n|) with a smaller error than
        K(q1) (the averaged stress is the midpoint one to O(|q1 - q_n|^2))."""
        return 0.5 * (q_n + q1)

    def save(self):
        return self.used, self.friction

    def restore(self, saved) -> None:
        self.used, self.friction = saved


def averaged_forces(system: System, rho_inf: float, energy_consistent: bool) -> PlainForces:
    """The force handling of a GeneralizedAlpha stepper: ``AveragedForces`` when
    ``energy_consistent`` (which needs rho_inf = 1: only there the step averages the forces of
    t_n and t_n+1 with equal weights), else ``PlainForces``. Structures without an averaged
    force (a string with bending stiffness) are refused here, before the first step."""
    if not isinstance(energy_consistent, bool | np.bool_):
        raise TypeError(f"energy_consistent = {energy_consistent!r}; allowed: True or False")
    if not energy_consistent:
        return PlainForces()
    if rho_inf != 1.0:
        raise ValueError(
            f"rho_inf = {rho_inf!r} with energy_consistent=True: the energy-consistent internal "
            "force needs the trapezoidal rule of rho_inf = 1 (alpha_m = alpha_f = gamma = 1/2, "
            "beta = 1/4); allowed: rho_inf = 1, or energy_consistent=False"
        )
    for structure in system.structures.values():
        q = structure.initial_coordinates()
        structure.averaged_internal_force(q, q)  # raises for what it cannot average
    return AveragedForces(system)


__all__ = ["AveragedForces", "PlainForces", "averaged_forces"]
