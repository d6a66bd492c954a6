"""Dynamics of a tree, Lipinski (002), eq. (7a): M(q) q'' + F(q, q', t) = Q, with M (eq. 7b) and
F (eq. 7c) from one kinematic pass (the kernel ``kernels.tree.equations``, the one
implementation, also called by the compiled loop); ``multibody.tree`` re-exports it.

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

from ..kernels import tree as kernels
from .joints import actuator_force
from .kinematics import TreeModel, checked_state


@dataclass(frozen=True)
class EquationsOfMotion:
    """M (n, n) and F (n,) of M q'' + F = Q, Lipinski (002), eq. (7a)."""

    mass_matrix: np.ndarray
    bias_forces: np.ndarray


def actuator_forces(tree: TreeModel, t: float = 0.0) -> np.ndarray:
    """Joint actuator forces tau(t), shape (n,), in N m or N (positive along q)."""
    forces = np.zeros(tree.n_bodies)
    for i, joint in tree.topology.actuated:
        forces[i] = actuator_force(joint, t)
    return forces


def _equations(tree: TreeModel, q, u, actuators: np.ndarray):
    """(M, F) from ``kernels.tree.equations`` at checked q, u (n,) and actuator forces (n,)."""
    topo = tree.topology
    return kernels.equations(
        topo.kernel_arrays, q, u, topo.stiffness, topo.damping, topo.rest, actuators
    )


def mass_matrix(tree: TreeModel, q) -> np.ndarray:
    """Mass matrix M(q), shape (n, n), symmetric positive definite, Lipinski (002), eq. (7b).

    M = sum_i m_i Jc_i^T Jc_i + I_i jw_i^T jw_i (the projected form of eqs. 6b, 7b). With
    massless bodies M can become singular in special configurations (a point mass on the axis of
    the only revolute joint that turns it); solvers then raise numpy's LinAlgError.
    """
    q = checked_state(tree, q, "q")
    zero = np.zeros(q.size)
    return _equations(tree, q, zero, zero)[0]


def bias_forces(tree: TreeModel, q, u, t: float = 0.0) -> np.ndarray:
    """F(q, q', t), shape (n,), of M q'' + F = Q, Lipinski (002), eq. (7c).

    F = sum_i m_i Jc_i^T (a_rem_i - g)  (Coriolis, centrifugal, gravity)
        + stiffness (q - rest) + damping q' - actuator(t)   (joint elements)
    N m for revolute and N for prismatic rows. ``t`` in s is used by time-dependent actuators.
    """
    q = checked_state(tree, q, "q")
    u = checked_state(tree, u, "u")
    return _equations(tree, q, u, actuator_forces(tree, t))[1]


def equations_of_motion(tree: TreeModel, q, u, t: float = 0.0) -> EquationsOfMotion:
    """``mass_matrix`` and ``bias_forces`` from one kinematic pass, Lipinski (002), eq. (7)."""
    q = checked_state(tree, q, "q")
    u = checked_state(tree, u, "u")
    M, F = _equations(tree, q, u, actuator_forces(tree, t))
    return EquationsOfMotion(mass_matrix=M, bias_forces=F)
