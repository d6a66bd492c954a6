"""A planar rigid-body tree in joint coordinates, Lipinski (002), sec. 2, in one import.

The tree (``TreeModel``, ``Body``) is defined in ``multibody.tree_model``, the poses and
velocities of its bodies in ``multibody.kinematics`` and the kinematics of a body point (point
Jacobians, acceleration remainders) in ``multibody.body_points``, the equations of motion M(q) q'' + F(q, q', t) = Q in
``multibody.tree_dynamics``, and the applied forces, inverse dynamics and energies in
``multibody.tree_forces``; this module gathers their public names.
"""

from .body_points import (
    PointKinematics,
    angular_jacobian,
    point_acceleration_remainder,
    point_jacobian,
    point_kinematics,
    point_position,
    point_velocity,
)
from .kinematics import (
    BodyPoses,
    BodyVelocities,
    body_poses,
    body_velocities,
    joint_poses,
    joint_velocities,
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
from .tree_model import Body, Topology, TreeModel, checked_state

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
