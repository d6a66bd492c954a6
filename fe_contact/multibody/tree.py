"""A planar rigid-body tree in joint coordinates, Lipinski (002), sec. 2, in one import.

The tree and its kinematics (``TreeModel``, poses, point Jacobians and acceleration remainders)
are defined in ``multibody.kinematics``, the equations of motion M(q) q'' + F(q, q', t) = Q in
``multibody.tree_dynamics``, and the applied forces, inverse dynamics and energies in
``multibody.tree_forces``; this module gathers their public names.
"""

from .kinematics import (
    Body,
    BodyPoses,
    BodyVelocities,
    PointKinematics,
    Topology,
    TreeModel,
    angular_jacobian,
    body_poses,
    body_velocities,
    checked_state,
    joint_poses,
    joint_velocities,
    point_acceleration_remainder,
    point_jacobian,
    point_kinematics,
    point_position,
    point_velocity,
)
from .tree_dynamics import EquationsOfMotion, bias_forces, equations_of_motion, mass_matrix
from .tree_forces import (
    actuator_forces,
    damping_power,
    generalized_body_torque,
    generalized_point_force,
    inverse_dynamics,
    kinetic_energy,
    potential_energy,
)

__all__ = [
    "Body",
    "BodyPoses",
    "BodyVelocities",
    "EquationsOfMotion",
    "PointKinematics",
    "Topology",
    "TreeModel",
    "actuator_forces",
    "angular_jacobian",
    "bias_forces",
    "body_poses",
    "body_velocities",
    "checked_state",
    "damping_power",
    "equations_of_motion",
    "generalized_body_torque",
    "generalized_point_force",
    "inverse_dynamics",
    "joint_poses",
    "joint_velocities",
    "kinetic_energy",
    "mass_matrix",
    "point_acceleration_remainder",
    "point_jacobian",
    "point_kinematics",
    "point_position",
    "point_velocity",
    "potential_energy",
]
