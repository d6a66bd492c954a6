"""Dynamics of a tree, Lipinski (002), eq. (7a): M(q) q'' + F(q, q', t) = Q, with M (eq. 7b) and
F (eq. 7c) from one kinematic pass (``multibody.kinematics``); ``multibody.tree`` re-exports it.

The equations are assembled in
the projected Newton-Euler (Jourdain) form, which gives the same M^b and F^b as the recursive
backward elimination of eqs. (5)-(7c) (there the sums C, D over successors are projected on the
mobility vectors; here each body's Newton-Euler equation is projected on its own Jacobian):

    M = sum_i m_i Jc_i^T Jc_i + I_i jw_i^T jw_i
    F = sum_i m_i Jc_i^T (a_rem_i - g) + K (q - rest) + C q' - tau(t)

with Jc_i the Jacobian of the centre of mass of body i, g the gravity vector, K, C the diagonal
joint stiffness and damping and tau the joint actuator forces. Q collects every other applied
force (``generalized_point_force``, ``generalized_body_torque``) and the drive multipliers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .joints import actuator_force
from .kinematics import (
    Topology,
    TreeModel,
    acceleration_remainders,
    checked_state,
    joint_poses,
    joint_velocities,
    point_jacobians,
)


@dataclass(frozen=True)
class EquationsOfMotion:
    """M (n, n) and F (n,) of M q'' + F = Q, Lipinski (002), eq. (7a)."""

    mass_matrix: np.ndarray
    bias_forces: np.ndarray


def _centre_of_mass_jacobians(topo: Topology, q: np.ndarray):
    """Complex centre-of-mass Jacobians (n, n) (row i = body i), orientations and joint vectors."""
    _, rotation, origin, r = joint_poses(topo, q)
    arm = rotation * topo.centre_of_mass
    jacobians = point_jacobians(
        topo, topo.ancestors_complex, rotation, origin, (origin + arm)[:, None]
    )
    return jacobians, rotation, r, arm


def _mass_matrix(topo: Topology, jacobians: np.ndarray) -> np.ndarray:
    """Re(J^H diag(m) J) + sum_i I_i jw_i^T jw_i, Lipinski (002), eq. (7b)."""
    mass_matrix = jacobians.conj().T.dot(topo.mass_column * jacobians).real
    return mass_matrix + topo.rotational_mass_matrix


def _bias_forces(topo: Topology, jacobians, rotation, r, arm, q, u, t: float) -> np.ndarray:
    """sum_i m_i Jc_i^T (a_rem_i - g) + joint terms, Lipinski (002), eq. (7c)."""
    omega, origin_velocity = joint_velocities(topo, u, rotation, r)
    com_velocity = origin_velocity + 1j * omega * arm
    remainders = acceleration_remainders(
        topo, topo.ancestors_complex, u, omega, rotation, origin_velocity, omega, com_velocity
    )
    forces = jacobians.conj().T.dot(topo.mass * (remainders - topo.gravity)).real
    forces += topo.stiffness * (q - topo.rest) + topo.damping * u
    for i, joint in topo.actuated:
        forces[i] -= actuator_force(joint, t)
    return forces


def mass_matrix(tree: TreeModel, q) -> np.ndarray:
    """Mass matrix M(q), shape (n, n), symmetric positive definite, Lipinski (002), eq. (7b).

    M = sum_i m_i Jc_i^T Jc_i + I_i jw_i^T jw_i (the projected form of eqs. 6b, 7b). With
    massless bodies M can become singular in special configurations (a point mass on the axis of
    the only revolute joint that turns it); solvers then raise numpy's LinAlgError.
    """
    topo = tree._topology
    jacobians, _, _, _ = _centre_of_mass_jacobians(topo, checked_state(tree, q, "q"))
    return _mass_matrix(topo, jacobians)


def bias_forces(tree: TreeModel, q, u, t: float = 0.0) -> np.ndarray:
    """F(q, q', t), shape (n,), of M q'' + F = Q, Lipinski (002), eq. (7c).

    F = sum_i m_i Jc_i^T (a_rem_i - g)  (Coriolis, centrifugal, gravity)
        + stiffness (q - rest) + damping q' - actuator(t)   (joint elements)
    N m for revolute and N for prismatic rows. ``t`` in s is used by time-dependent actuators.
    """
    topo = tree._topology
    q = checked_state(tree, q, "q")
    u = checked_state(tree, u, "u")
    jacobians, rotation, r, arm = _centre_of_mass_jacobians(topo, q)
    return _bias_forces(topo, jacobians, rotation, r, arm, q, u, t)


def equations_of_motion(tree: TreeModel, q, u, t: float = 0.0) -> EquationsOfMotion:
    """``mass_matrix`` and ``bias_forces`` from one kinematic pass, Lipinski (002), eq. (7)."""
    topo = tree._topology
    q = checked_state(tree, q, "q")
    u = checked_state(tree, u, "u")
    jacobians, rotation, r, arm = _centre_of_mass_jacobians(topo, q)
    return EquationsOfMotion(
        mass_matrix=_mass_matrix(topo, jacobians),
        bias_forces=_bias_forces(topo, jacobians, rotation, r, arm, q, u, t),
    )
