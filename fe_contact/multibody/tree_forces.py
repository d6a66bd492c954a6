"""Applied forces, inverse dynamics and energies of a tree (Lipinski (002), eq. 7a), on the
kinematics of ``multibody.kinematics`` and the dynamics of ``multibody.tree_dynamics``
(``multibody.tree`` re-exports them):
d/dt (kinetic + potential) = (Q + actuator_forces) . q' - damping_power."""

from __future__ import annotations

import numpy as np

from .kinematics import (
    TreeModel,
    angular_jacobian,
    body_poses,
    body_velocities,
    checked_state,
    point_jacobian,
)
from .tree_dynamics import actuator_forces, equations_of_motion

__all__ = [
    "actuator_forces",
    "damping_power",
    "generalized_body_torque",
    "generalized_point_force",
    "inverse_dynamics",
    "kinetic_energy",
    "potential_energy",
]


def inverse_dynamics(
    tree: TreeModel, q, u, acceleration, t: float = 0.0, forces=None
) -> np.ndarray:
    """Joint forces (n,) M q'' + F - Q needed to produce ``acceleration``, Lipinski (002), eq. (7a).

    q, u, acceleration : (n,). forces : (n,) applied generalised forces Q or None (zero).
    Row j is the force (N m or N) a drive of joint j must add, positive along q_j.
    """
    eom = equations_of_motion(tree, q, u, t)
    result = eom.mass_matrix @ checked_state(tree, acceleration, "acceleration") + eom.bias_forces
    if forces is not None:
        result -= checked_state(tree, forces, "forces")
    return result


def generalized_point_force(tree: TreeModel, q, body: int, local, force) -> np.ndarray:
    """Generalised force J^T f, shape (n,), of a force f (2,) in N acting at a body point.

    The point ``local`` (x, y) in m is fixed to ``body``; the result adds to Q of Lipinski (002),
    eq. (7a) (Jourdain: its power Q . q' equals f . p').
    """
    f = np.asarray(force, dtype=float)
    if f.shape != (2,):
        raise ValueError(f"force must have shape (2,), got {f.shape}")
    return point_jacobian(tree, q, body, local).T @ f


def generalized_body_torque(tree: TreeModel, body: int, torque: float) -> np.ndarray:
    """Generalised force jw^T tau, shape (n,), of a torque ``torque`` in N m on ``body``."""
    return angular_jacobian(tree, body) * float(torque)


# ---------------------------------------------------------------------------------------------
# Energies: d/dt (kinetic + potential) = (Q + actuator_forces) . q' - damping_power
# ---------------------------------------------------------------------------------------------


def kinetic_energy(tree: TreeModel, q, u) -> float:
    """1/2 q'^T M q' in J, summed body by body: 1/2 m_i |v_ci|^2 + 1/2 I_i omega_i^2."""
    velocities = body_velocities(tree, q, u)
    topo = tree.topology
    v2 = np.sum(velocities.centre_of_mass_velocity**2, axis=1)
    return 0.5 * float(topo.mass @ v2 + topo.inertia @ velocities.angular_velocity**2)


def potential_energy(tree: TreeModel, q) -> float:
    """Gravity plus joint-spring potential in J: -sum m_i g . x_ci + 1/2 k_j (q_j - rest_j)^2."""
    topo = tree.topology
    q = checked_state(tree, q, "q")
    com = body_poses(tree, q).centre_of_mass
    gravity = -float(topo.mass @ (com @ topo.gravity))
    return gravity + 0.5 * float(topo.stiffness @ (q - topo.rest) ** 2)


def damping_power(tree: TreeModel, u) -> float:
    """Power dissipated by the joint dampers in W, sum_j c_j q_j'^2 >= 0."""
    u = checked_state(tree, u, "u")
    return float(tree.topology.damping @ u**2)
