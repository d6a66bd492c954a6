"""Joint-coordinate tree (Lipinski (002), sec. 2) against an independent sympy Lagrange derivation.

The reference writes each body's absolute angle and origin joint by joint (Lipinski (002), eq. 1:
a sum of joint angles and of rotated joint offsets), takes velocities by symbolic differentiation,
forms T and V and gets M = d2T/du2 and F = d/dt(dT/du) - M q'' - dT/dq + dV/dq + C u - tau
(Lagrange's equations); point Jacobians and acceleration remainders are d p/dq and d(J u)/dq u.
Nothing of the library's ancestor matrices, recursive sums or complex-number kernels is reused.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from fe_contact import Model, assemble
from fe_contact.multibody import (
    Body,
    Drive,
    Joint,
    TreeModel,
    actuator_forces,
    angular_jacobian,
    bias_forces,
    body_poses,
    body_velocities,
    damping_power,
    equations_of_motion,
    generalized_body_torque,
    generalized_point_force,
    inverse_dynamics,
    kinetic_energy,
    mass_matrix,
    point_acceleration_remainder,
    point_jacobian,
    point_kinematics,
    point_position,
    point_velocity,
    potential_energy,
)

TOL = {"rtol": 1e-10, "atol": 1e-10}


def _actuator(t: float) -> float:
    """A time-dependent actuator force used in several models (N m or N)."""
    return 0.7 * math.sin(3.0 * t) + 0.2


# ---------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------


def manipulator() -> TreeModel:
    """Three revolute joints with the data of Lipinski (002), sec. 9."""
    return TreeModel(
        bodies=(
            Body(mass=1.72, inertia=0.018, centre_of_mass=(0.0, 0.0)),
            Body(mass=0.45, inertia=0.0025, centre_of_mass=(0.1, 0.0)),
            Body(mass=0.365, inertia=0.00275, centre_of_mass=(0.15, 0.0)),
        ),
        joints=(
            Joint("revolute", None, (-0.41, 0.3), stiffness=10.0, damping=0.1, rest=-0.4),
            Joint("revolute", 0, (0.2, 0.0)),
            Joint("revolute", 1, (0.2, 0.0), stiffness=80.0, damping=0.1, rest=0.3),
        ),
        points={"tip": (2, (0.3, 0.0)), "elbow": (1, (0.2, 0.0))},
    )


def rrp() -> TreeModel:
    """Revolute-revolute-prismatic with an actuated slider and off-axis centres of mass."""
    return TreeModel(
        bodies=(
            Body(1.2, 0.02, (0.05, 0.01)),
            Body(0.8, 0.01, (0.1, -0.02)),
            Body(0.4, 0.003, (0.05, 0.0)),
        ),
        joints=(
            Joint("revolute", None, (0.1, -0.2), angle=0.3, stiffness=5.0, damping=0.2, rest=0.1),
            Joint("revolute", 0, (0.25, 0.0), angle=-0.2),
            Joint(
                "prismatic",
                1,
                (0.2, 0.01),
                angle=0.1,
                stiffness=200.0,
                rest=0.05,
                actuator=_actuator,
            ),
        ),
        points={"tip": (2, (0.1, 0.02))},
    )


def prr() -> TreeModel:
    """Prismatic base (inclined slider) then two revolute joints; gravity with an x component."""
    return TreeModel(
        bodies=(
            Body(2.0, 0.05, (0.0, 0.03)),
            Body(0.6, 0.008, (0.12, 0.0)),
            Body(0.3, 0.002, (0.08, 0.01)),
        ),
        joints=(
            Joint(
                "prismatic", None, (0.0, 0.1), angle=0.4, stiffness=50.0, damping=1.0, actuator=3.0
            ),
            Joint("revolute", 0, (0.05, 0.02), angle=0.5, damping=0.05),
            Joint("revolute", 1, (0.24, 0.0), stiffness=2.0, rest=-0.2),
        ),
        points={"tip": (2, (0.16, 0.0)), "slider": (0, (0.1, -0.05))},
        gravity=(1.5, -9.81),
    )


def chain5() -> TreeModel:
    """Five bodies, mixed joints, non-zero offsets and angles everywhere."""
    kinds = ("revolute", "prismatic", "revolute", "revolute", "prismatic")
    return TreeModel(
        bodies=tuple(
            Body(0.5 + 0.3 * i, 0.004 + 0.002 * i, (0.05 + 0.01 * i, 0.01 * (-1) ** i))
            for i in range(5)
        ),
        joints=tuple(
            Joint(
                kind,
                None if i == 0 else i - 1,
                (0.1 + 0.05 * i, 0.02 * (-1) ** i),
                angle=0.2 * i - 0.3,
                stiffness=3.0 * i,
                damping=0.05 * i,
                rest=0.1 * i,
                actuator=_actuator if i == 3 else None,
            )
            for i, kind in enumerate(kinds)
        ),
        points={"end": (4, (0.1, 0.03)), "middle": (2, (0.05, -0.02))},
        gravity=(0.3, -9.81),
    )


def branched() -> TreeModel:
    """Body 0 carries two children (1 revolute, 2 prismatic); body 3 hangs on body 2."""
    return TreeModel(
        bodies=(
            Body(1.0, 0.01, (0.1, 0.0)),
            Body(0.5, 0.004, (0.07, 0.01)),
            Body(0.7, 0.006, (0.0, 0.02)),
            Body(0.3, 0.002, (0.09, 0.0)),
        ),
        joints=(
            Joint("revolute", None, (0.0, 0.5), angle=-0.5, stiffness=4.0, damping=0.1),
            Joint("revolute", 0, (0.2, 0.0), angle=0.7, stiffness=1.0),
            Joint("prismatic", 0, (0.1, 0.05), angle=1.2, stiffness=30.0, rest=0.02),
            Joint("revolute", 2, (0.0, 0.1), angle=-0.3, damping=0.02),
        ),
        points={"left": (1, (0.15, 0.0)), "right": (3, (0.18, -0.01))},
    )


MODELS = {
    "manipulator": manipulator,
    "rrp": rrp,
    "prr": prr,
    "chain5": chain5,
    "branched": branched,
}


# ---------------------------------------------------------------------------------------------
# Independent reference: homogeneous transforms + Lagrange's equations in sympy
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Reference:
    """Reference quantities at one state (q, u); shapes as in the library, n = number of bodies.

    angle (n,), origin (n, 2), com (n, 2), com_velocity (n, 2), angular_jacobian (n, n),
    mass_matrix (n, n), bias (n,) without actuator forces, kinetic, potential (J), and for each
    named point ``points[name] = (position (2,), jacobian (2, n), remainder (2,))``.
    """

    angle: np.ndarray
    origin: np.ndarray
    com: np.ndarray
    com_velocity: np.ndarray
    angular_jacobian: np.ndarray
    mass_matrix: np.ndarray
    bias: np.ndarray
    kinetic: float
    potential: float
    points: dict


def _rotation(angle) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def derive_reference(tree: TreeModel):
    """Function (q, u) -> Reference, derived symbolically for ``tree``."""
    n = tree.n_bodies
    q = sp.Matrix(sp.symbols(f"q0:{n}"))
    u = sp.Matrix(sp.symbols(f"u0:{n}"))
    # absolute orientation and origin of each body frame (Lipinski (002), eq. 1), joint by joint
    origins, angles = [], []
    for i, joint in enumerate(tree.joints):
        if joint.parent is None:
            parent_origin, parent_angle = sp.zeros(2, 1), sp.Integer(0)
        else:
            parent_origin, parent_angle = origins[joint.parent], angles[joint.parent]
        a = sp.Float(joint.angle)
        offset = sp.Matrix([sp.Float(v) for v in joint.location])
        if joint.kind == "revolute":
            angle = parent_angle + a + q[i]
        else:
            offset += q[i] * sp.Matrix([sp.cos(a), sp.sin(a)])
            angle = parent_angle + a
        origins.append(parent_origin + _rotation(parent_angle) * offset)
        angles.append(angle)

    def position(i, local):
        return origins[i] + _rotation(angles[i]) * sp.Matrix([sp.Float(v) for v in local])

    g = sp.Matrix([sp.Float(v) for v in tree.gravity])
    coms = [position(i, body.centre_of_mass) for i, body in enumerate(tree.bodies)]
    com_velocities = [c.jacobian(q) * u for c in coms]
    omega_rows = [sp.Matrix([a]).jacobian(q) for a in angles]
    kinetic = sum(
        sp.Rational(1, 2) * body.mass * (v.dot(v))
        + sp.Rational(1, 2) * body.inertia * (w * u)[0] ** 2
        for body, v, w in zip(tree.bodies, com_velocities, omega_rows, strict=True)
    )
    potential = -sum(body.mass * g.dot(c) for body, c in zip(tree.bodies, coms, strict=True))
    potential += sum(
        sp.Rational(1, 2) * j.stiffness * (q[i] - j.rest) ** 2 for i, j in enumerate(tree.joints)
    )
    dT_du = sp.Matrix([kinetic]).jacobian(u).T
    M = dT_du.jacobian(u)
    # d/dt (dT/du) = (d2T/du dq) u + M q''; F is everything except M q''.
    F = (
        dT_du.jacobian(q) * u
        - sp.Matrix([kinetic]).jacobian(q).T
        + sp.Matrix([potential]).jacobian(q).T
        + sp.Matrix([j.damping * u[i] for i, j in enumerate(tree.joints)])
    )
    names = list(tree.points)
    point_exprs = []
    for name in names:
        body, local = tree.points[name]
        p = position(body, local)
        J = p.jacobian(q)
        point_exprs += [p, J, (J * u).jacobian(q) * u]
    exprs = [
        sp.Matrix(angles),
        sp.Matrix([[o[0], o[1]] for o in origins]),
        sp.Matrix([[c[0], c[1]] for c in coms]),
        sp.Matrix([[v[0], v[1]] for v in com_velocities]),
        sp.Matrix.vstack(*omega_rows),
        M,
        F,
        kinetic,
        potential,
        *point_exprs,
    ]
    # one lambdified function with common subexpressions shared by all outputs
    evaluate = sp.lambdify([list(q), list(u)], exprs, modules="numpy", cse=True)

    def reference(q_value, u_value) -> Reference:
        values = [np.asarray(v, dtype=float) for v in evaluate(q_value, u_value)]
        angle, origin, com, com_velocity, jw, mass, bias, kinetic, potential = values[:9]
        points = {
            name: (values[9 + 3 * k].ravel(), values[10 + 3 * k], values[11 + 3 * k].ravel())
            for k, name in enumerate(names)
        }
        return Reference(
            angle=angle.ravel(),
            origin=origin,
            com=com,
            com_velocity=com_velocity,
            angular_jacobian=jw.reshape(n, n),
            mass_matrix=mass,
            bias=bias.ravel(),
            kinetic=float(kinetic),
            potential=float(potential),
            points=points,
        )

    return reference


@pytest.fixture(scope="module")
def references():
    cache = {}

    def get(name):
        if name not in cache:
            tree = MODELS[name]()
            cache[name] = (tree, derive_reference(tree))
        return cache[name]

    return get


def random_states(tree: TreeModel, seed: int, count: int = 4):
    rng = np.random.default_rng(seed)
    prismatic = np.array([j.kind == "prismatic" for j in tree.joints])
    for _ in range(count):
        q = rng.uniform(-1.5, 1.5, tree.n_bodies)
        q[prismatic] = rng.uniform(-0.1, 0.3, prismatic.sum())
        yield q, rng.uniform(-2.0, 2.0, tree.n_bodies), rng.uniform(0.0, 2.0)


# ---------------------------------------------------------------------------------------------
# Kinematics, Lipinski (002), eqs. (1)-(3)
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MODELS))
def test_body_poses_and_velocities_match_reference(references, name, measured):
    tree, ref = references(name)
    pairs = {"angles": [], "origins": [], "centres of mass": [], "centre of mass velocities": []}
    pairs["angular velocities"] = []
    units = {"angles": "rad", "origins": "m", "centres of mass": "m"}
    for q, u, _ in random_states(tree, seed=1):
        expected = ref(q, u)
        poses = body_poses(tree, q)
        velocities = body_velocities(tree, q, u)
        omega = expected.angular_jacobian @ u
        pairs["angles"].append((poses.angle, expected.angle))
        pairs["origins"].append((poses.origin, expected.origin))
        pairs["centres of mass"].append((poses.centre_of_mass, expected.com))
        pairs["centre of mass velocities"].append(
            (velocities.centre_of_mass_velocity, expected.com_velocity)
        )
        pairs["angular velocities"].append((velocities.angular_velocity, omega))
        # origins are points (0, 0) of their own bodies
        for b in range(tree.n_bodies):
            v_origin = point_velocity(tree, q, u, b, (0.0, 0.0))
            np.testing.assert_allclose(velocities.origin_velocity[b], v_origin, **TOL)
    for what, computed in pairs.items():
        measured.close(
            f"{name}: body {what}",
            [np.ravel(c) for c, _ in computed],
            [np.ravel(r) for _, r in computed],
            **TOL,
            unit=units.get(what, "m/s" if "centre" in what else "rad/s"),
            reference="sympy: homogeneous transforms of 002 eqs. (1)-(3)",
        )


@pytest.mark.parametrize("name", list(MODELS))
def test_point_kinematics_match_reference(references, name, measured):
    tree, ref = references(name)
    computed, derived = [], []  # position, Jacobian, acceleration remainder of every point
    velocities, velocities_ref = [], []
    for q, u, _ in random_states(tree, seed=2):
        expected = ref(q, u)
        for point_name, (body, local) in tree.points.items():
            position, J, remainder = expected.points[point_name]
            kin = point_kinematics(tree, q, u, *tree.points[point_name])
            assert kin.jacobian.shape == (2, tree.n_bodies)
            computed.append(np.concatenate((kin.position, kin.jacobian.ravel())))
            computed[-1] = np.concatenate((computed[-1], kin.acceleration_remainder))
            derived.append(np.concatenate((position, np.ravel(J), remainder)))
            velocities.append(kin.velocity)
            velocities_ref.append(J @ u)
            # the single-purpose kernels agree with the one-pass version
            np.testing.assert_allclose(point_position(tree, q, body, local), kin.position, **TOL)
            np.testing.assert_allclose(point_velocity(tree, q, u, body, local), kin.velocity, **TOL)
            np.testing.assert_allclose(point_jacobian(tree, q, body, local), kin.jacobian, **TOL)
            np.testing.assert_allclose(
                point_acceleration_remainder(tree, q, u, body, local),
                kin.acceleration_remainder,
                **TOL,
            )
    measured.close(
        f"{name}: point positions, Jacobians, acceleration remainders",
        np.concatenate(computed),
        np.concatenate(derived),
        **TOL,
        unit="m, m/s^2",
        reference="sympy: homogeneous transforms, d p/dq, d(J u)/dq u",
    )
    measured.close(
        f"{name}: point velocities",
        np.concatenate(velocities),
        np.concatenate(velocities_ref),
        **TOL,
        unit="m/s",
        reference="sympy: J u",
    )


@pytest.mark.parametrize("name", list(MODELS))
def test_angular_jacobian_matches_reference(references, name):
    tree, ref = references(name)
    rows = ref(np.zeros(tree.n_bodies), np.zeros(tree.n_bodies)).angular_jacobian
    for b in range(tree.n_bodies):
        assert angular_jacobian(tree, b).shape == (tree.n_bodies,)
        np.testing.assert_array_equal(angular_jacobian(tree, b), rows[b])


def test_point_acceleration_remainder_by_finite_differences(measured):
    """p'' along a smooth trajectory q(t) equals J q'' + a_rem (central differences)."""
    tree = chain5()
    rng = np.random.default_rng(3)
    q0, u0, a0 = rng.uniform(-0.5, 0.5, (3, tree.n_bodies))

    def q_of(t):
        return q0 + u0 * t + 0.5 * a0 * t**2

    body, local = tree.points["end"]
    h = 1e-4
    fd = (
        point_position(tree, q_of(h), body, local)
        - 2 * point_position(tree, q_of(0.0), body, local)
        + point_position(tree, q_of(-h), body, local)
    ) / h**2
    kin = point_kinematics(tree, q0, u0, body, local)
    measured.close(  # rtol = 1e-7: assert_allclose's default, kept
        "end point's acceleration",
        kin.jacobian @ a0 + kin.acceleration_remainder,
        fd,
        rtol=1e-7,
        atol=1e-6,
        unit="m/s^2",
        reference="central second difference of the position, h = 1e-4",
    )


# ---------------------------------------------------------------------------------------------
# Dynamics, Lipinski (002), eq. (7)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(MODELS))
def test_mass_matrix_and_bias_forces_match_lagrange(references, name, measured):
    tree, ref = references(name)
    masses, biases, actuators = [], [], []  # (computed, reference) at every state
    for q, u, t in random_states(tree, seed=4):
        expected = ref(q, u)
        M_ref = expected.mass_matrix
        tau = np.array(
            [_actuator(t) if callable(j.actuator) else (j.actuator or 0.0) for j in tree.joints]
        )
        F_ref = expected.bias - tau
        masses.append((mass_matrix(tree, q), M_ref))
        biases.append((bias_forces(tree, q, u, t), F_ref))
        actuators.append((actuator_forces(tree, t), tau))
        eom = equations_of_motion(tree, q, u, t)  # the one-pass version, same references
        masses.append((eom.mass_matrix, M_ref))
        biases.append((eom.bias_forces, F_ref))
    measured.close(
        f"{name}: actuator forces",
        [c for c, _ in actuators],
        [r for _, r in actuators],
        rtol=1e-14,
        unit="N, N m",
        reference="the joints' actuator functions",
    )
    for what, pairs in (("mass matrix M(q)", masses), ("bias forces F(q, u, t)", biases)):
        measured.close(
            f"{name}: {what}",
            [np.ravel(c) for c, _ in pairs],
            [np.ravel(r) for _, r in pairs],
            **TOL,
            unit="kg, kg m^2; N, N m",
            reference="sympy's Lagrange equations (002 eq. 7)",
        )


@pytest.mark.parametrize("name", list(MODELS))
def test_mass_matrix_spd_and_energies(references, name, measured):
    tree, ref = references(name)
    asymmetry, kinetic, kinetic_ref, potential, power = [], [], [], [], []
    for q, u, _ in random_states(tree, seed=5):
        M = mass_matrix(tree, q)
        asymmetry.append(np.abs(M - M.T))
        assert np.linalg.eigvalsh(M).min() > 0.0
        T = kinetic_energy(tree, q, u)
        kinetic.append((T, 0.5 * u @ M @ u))
        kinetic_ref.append((T, ref(q, u).kinetic))
        potential.append((potential_energy(tree, q), ref(q, u).potential))
        damping = np.array([j.damping for j in tree.joints])
        power.append((damping_power(tree, u), float(damping @ u**2)))
    measured.each(
        f"{name}: mass matrix asymmetry", asymmetry, 1e-14, unit="kg, kg m^2", reference="M = M^T"
    )
    close = [
        ("kinetic energy vs u M u / 2", kinetic, 1e-12, "u M u / 2 with M(q)"),
        ("kinetic energy", kinetic_ref, 1e-10, "sympy: sum m v^2 / 2 + I omega^2 / 2"),
        ("damping power", power, 1e-14, "sum c_j u_j^2"),
    ]
    for what, pairs, rtol, reference in close:
        measured.close(
            f"{name}: {what}",
            [c for c, _ in pairs],
            [r for _, r in pairs],
            rtol=rtol,
            unit="W" if what == "damping power" else "J",
            reference=reference,
        )
    measured.each(  # pytest.approx(rel=1e-10, abs=1e-12): the larger of the two bounds
        f"{name}: potential energy",
        [abs(c - r) for c, r in potential],
        [max(1e-10 * abs(r), 1e-12) for _, r in potential],
        unit="J",
        reference="sympy: sum m g . r",
    )


@pytest.mark.parametrize("name", ["manipulator", "branched"])
def test_generalized_forces_have_the_power_of_the_applied_loads(references, name, measured):
    """Q . q' = f . p' for a point force and Q . q' = tau omega for a body torque."""
    tree, ref = references(name)
    rng = np.random.default_rng(6)
    forces, powers = [], []  # (computed, reference); powers: Q . q' against f . p' or tau omega
    for q, u, _ in random_states(tree, seed=7):
        for point_name, (body, local) in tree.points.items():
            force = rng.normal(size=2)
            Q = generalized_point_force(tree, q, body, local, force)
            J = ref(q, u).points[point_name][1]
            forces.append((Q, J.T @ force))
            powers.append((Q @ u, force @ point_velocity(tree, q, u, body, local)))
        for body in range(tree.n_bodies):
            Q = generalized_body_torque(tree, body, 1.7)
            omega = body_velocities(tree, q, u).angular_velocity[body]
            powers.append((Q @ u, 1.7 * omega))
    measured.close(
        f"{name}: generalised point forces",
        np.concatenate([c for c, _ in forces]),
        np.concatenate([r for _, r in forces]),
        **TOL,
        unit="N, N m",
        reference="sympy: J^T f",
    )
    measured.each(  # pytest.approx's defaults: rel 1e-6, abs 1e-12, the larger of the two
        f"{name}: power of the generalised forces",
        [abs(c - r) for c, r in powers],
        [max(1e-6 * abs(r), 1e-12) for _, r in powers],
        unit="W",
        reference="f . p' for a point force, tau omega for a torque",
    )


# ---------------------------------------------------------------------------------------------
# Integration: energy balance and drives
# ---------------------------------------------------------------------------------------------


def driven_dynamics(tree, q, u, t, drives=()):
    """(q'', drive forces) of M q'' + F = sum_j e_j lambda_j with q_j'' prescribed by each drive
    (Lipinski (002), eq. 7a): the free accelerations from the free rows, the multipliers from
    the driven rows. The elimination is written here, independently of the steppers."""
    eom = equations_of_motion(tree, q, u, t)
    M, F = eom.mass_matrix, eom.bias_forces
    driven = np.array([d.joint for d in drives], dtype=int)
    free = np.setdiff1d(np.arange(tree.n_bodies), driven)
    a = np.zeros(tree.n_bodies)
    a[driven] = [d.acceleration(t) for d in drives]
    if free.size:
        rhs = -F[free] - M[np.ix_(free, driven)] @ a[driven]
        a[free] = np.linalg.solve(M[np.ix_(free, free)], rhs)
    return a, M[driven] @ a + F[driven]


def integrate_tree(tree, t_span, q0, u0, drives=(), **solve_ivp_kwargs):
    """The tree alone under ``drives`` with scipy's solve_ivp: the free joints integrated, the
    driven ones substituted from the drives. Returns t, q, u, acceleration, drive_forces (one
    row per sample) and success."""
    n = tree.n_bodies
    driven = [d.joint for d in drives]
    free = np.setdiff1d(np.arange(n), driven)
    m = free.size

    def state(t, y):
        q, u = np.array(q0, dtype=float), np.array(u0, dtype=float)
        q[free], u[free] = y[:m], y[m:]
        q[driven] = [d.position(t) for d in drives]
        u[driven] = [d.velocity(t) for d in drives]
        return q, u

    def rhs(t, y):
        q, u = state(t, y)
        return np.concatenate((y[m:], driven_dynamics(tree, q, u, t, drives)[0][free]))

    y0 = np.concatenate((np.asarray(q0, float)[free], np.asarray(u0, float)[free]))
    sol = solve_ivp(rhs, t_span, y0, **solve_ivp_kwargs)
    states = [state(t, y) for t, y in zip(sol.t, sol.y.T, strict=True)]
    dynamics = [
        driven_dynamics(tree, q, u, t, drives) for t, (q, u) in zip(sol.t, states, strict=True)
    ]
    return SimpleNamespace(
        t=sol.t,
        q=np.array([q for q, _ in states]),
        u=np.array([u for _, u in states]),
        acceleration=np.array([a for a, _ in dynamics]),
        drive_forces=np.array([f for _, f in dynamics]).reshape(len(sol.t), len(drives)),
        success=sol.success,
    )


def total_energy(tree, q, u):
    return kinetic_energy(tree, q, u) + potential_energy(tree, q)


def without_damping(tree: TreeModel) -> TreeModel:
    joints = tuple(dataclasses.replace(j, damping=0.0, actuator=None) for j in tree.joints)
    return dataclasses.replace(tree, joints=joints)


@pytest.mark.slow
@pytest.mark.parametrize("model", [manipulator, prr])
def test_free_chain_conserves_energy(model, measured):
    tree = without_damping(model())
    q0 = np.array([0.3, -0.5, 0.8]) if model is manipulator else np.array([0.1, -0.5, 0.8])
    u0 = np.array([1.0, -0.5, 2.0])
    result = integrate_tree(
        tree,
        (0.0, 2.0),
        q0,
        u0,
        method="DOP853",
        rtol=1e-11,
        atol=1e-12,
        t_eval=np.linspace(0.0, 2.0, 41),
    )
    assert result.success
    assert result.q.shape == (41, 3) and result.drive_forces.shape == (41, 0)
    energy = np.array([total_energy(tree, q, u) for q, u in zip(result.q, result.u, strict=True)])
    scale = np.abs(energy).max() + kinetic_energy(tree, q0, u0)
    measured(
        "energy drift / energy scale",
        np.abs(energy - energy[0]).max() / scale,
        1e-8,
        reference="conserved energy (DOP853 at rtol 1e-11)",
    )
    assert np.ptp(result.q[:, 2]) > 0.5  # it does move


def test_damped_actuated_chain_closes_energy_balance(measured):
    """E(t) + dissipated(t) - actuator work(t) = E(0), with the dissipation integrated alongside."""
    tree = rrp()  # damping on joint 0, time-dependent actuator on the slider
    n = tree.n_bodies

    def rhs(t, y):
        q, u = y[:n], y[n : 2 * n]
        eom = equations_of_motion(tree, q, u, t)
        a = np.linalg.solve(eom.mass_matrix, -eom.bias_forces)
        return np.concatenate((u, a, [damping_power(tree, u), actuator_forces(tree, t) @ u]))

    q0 = np.array([0.2, 0.4, 0.1])
    u0 = np.array([2.0, -1.0, 0.5])
    sol = solve_ivp(
        rhs,
        (0.0, 2.0),
        np.concatenate((q0, u0, [0.0, 0.0])),
        method="DOP853",
        rtol=1e-11,
        atol=1e-12,
        t_eval=np.linspace(0.0, 2.0, 21),
    )
    assert sol.success
    dissipated, work = sol.y[2 * n], sol.y[2 * n + 1]
    energy = np.array([total_energy(tree, y[:n], y[n : 2 * n]) for y in sol.y.T])
    scale = np.abs(energy).max() + dissipated[-1] + np.abs(work).max()
    assert dissipated[-1] > 0.01 * scale  # the balance is not trivially closed
    measured(
        "energy balance error / energy scale",
        np.abs(energy + dissipated - work - energy[0]).max() / scale,
        1e-8,
        reference="T + V + damping loss - actuator work = T0 + V0 (DOP853 at rtol 1e-11)",
    )


def test_driven_joint_torque_equals_inverse_dynamics(references, measured):
    """Manipulator with joint 2 (index 1) turning at 0.2 rad/s, Lipinski (002), sec. 9."""
    tree, ref = references("manipulator")
    drive = Drive.constant_velocity(1, q0=0.4, rate=0.2)
    q0 = np.array([0.3, 123.0, 0.8])  # the driven entry is replaced by the drive's value
    u0 = np.array([0.5, 0.0, -1.0])
    times = np.linspace(0.0, 1.0, 11)
    result = integrate_tree(
        tree,
        (0.0, 1.0),
        q0,
        u0,
        drives=[drive],
        method="DOP853",
        rtol=1e-11,
        atol=1e-12,
        t_eval=times,
    )
    assert result.success and result.drive_forces.shape == (11, 1)
    measured.close(
        "driven angle",
        result.q[:, 1],
        0.4 + 0.2 * times,
        rtol=1e-14,
        unit="rad",
        reference="q0 + rate t",
    )
    measured.close("driven rate", result.u[:, 1], 0.2, rtol=1e-14, unit="rad/s", reference="rate")
    torques = []  # (computed, reference)
    free = [0, 2]
    for t, q, u, torque in zip(
        result.t, result.q, result.u, result.drive_forces[:, 0], strict=True
    ):
        expected = ref(q, u)
        M, F = expected.mass_matrix, expected.bias
        a = np.zeros(3)  # q_1'' = 0, free accelerations from the reference equations
        a[free] = np.linalg.solve(M[np.ix_(free, free)], -F[free])
        torques.append((torque, (M @ a + F)[1]))
        np.testing.assert_allclose(inverse_dynamics(tree, q, u, a, t)[1], torque, **TOL)
    measured.each(  # pytest.approx(rel=1e-9, abs=1e-10): the larger of the two bounds
        "driving torque",
        [abs(c - r) for c, r in torques],
        [max(1e-9 * abs(r), 1e-10) for _, r in torques],
        unit="N m",
        reference="sympy's M a + F with the free accelerations from M and F",
    )
    assert np.ptp(result.drive_forces) > 0.01


def test_fully_driven_pendulum_torque_in_closed_form(measured):
    """tau = m g r cos(q) + k (q - rest) + c q' for a uniform-rate pendulum (q'' = 0)."""
    m, r, k, c, rest, rate = 0.8, 0.25, 3.0, 0.4, 0.2, 1.5
    tree = TreeModel(
        bodies=(Body(m, 0.01, (r, 0.0)),),
        joints=(Joint("revolute", None, (0.3, 0.1), stiffness=k, damping=c, rest=rest),),
    )
    drive = Drive.constant_velocity(0, q0=-0.3, rate=rate)
    times = np.linspace(0.0, 2.0, 9)
    result = integrate_tree(tree, (0.0, 2.0), [0.0], [0.0], drives=(drive,), t_eval=times)
    q = -0.3 + rate * times
    expected = m * 9.81 * r * np.cos(q) + k * (q - rest) + c * rate
    measured.close(
        "driving torque at 9 times",
        result.drive_forces[:, 0],
        expected,
        rtol=1e-12,
        unit="N m",
        reference="m g r cos(q) + k (q - rest) + c q'",
    )
    acceleration, drive_forces = driven_dynamics(tree, [0.5], [rate], 0.0, drives=(drive,))
    assert acceleration[0] == 0.0
    torque = m * 9.81 * r * np.cos(0.5) + k * 0.3 + c * rate
    measured(  # pytest.approx's defaults: rel 1e-6, abs 1e-12, the larger of the two
        "driving torque at q = 0.5",
        abs(drive_forces[0] - torque),
        max(1e-6 * abs(torque), 1e-12),
        unit="N m",
        reference="m g r cos(q) + k (q - rest) + c q'",
    )


def test_drive_with_time_functions(measured):
    """A general Drive (callables) on a prismatic joint: q_j'' follows the prescribed function."""
    tree = prr()
    drive = Drive(
        0,
        position=lambda t: 0.1 * math.sin(2 * t),
        velocity=lambda t: 0.2 * math.cos(2 * t),
        acceleration=lambda t: -0.4 * math.sin(2 * t),
    )
    result = integrate_tree(
        tree,
        (0.0, 0.5),
        [0.0, 0.2, 0.1],
        [0.2, 0.0, 0.0],
        drives=[drive],
        rtol=1e-10,
        atol=1e-12,
        t_eval=np.linspace(0, 0.5, 6),
    )
    measured.close(
        "driven acceleration",
        result.acceleration[:, 0],
        -0.4 * np.sin(2 * result.t),
        rtol=1e-14,
        unit="m/s^2",
        reference="-0.4 sin(2 t)",
    )
    residuals, expected = [], []
    for t, q, u, a, torque in zip(
        result.t, result.q, result.u, result.acceleration, result.drive_forces[:, 0], strict=True
    ):
        residual = inverse_dynamics(tree, q, u, a, t)
        residuals.append(residual)
        expected.append([torque, 0.0, 0.0])
    measured.close(  # rtol = 1e-7: assert_allclose's default, kept
        "inverse dynamics residual",
        residuals,
        expected,
        rtol=1e-7,
        atol=1e-10,
        unit="N, N m",
        reference="the drive's force on the driven joint, 0 on the free ones",
    )


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------


def two_bodies(**joint_changes):
    joints = [Joint("revolute"), Joint("revolute", 0, (0.2, 0.0))]
    joints[1] = dataclasses.replace(joints[1], **joint_changes) if joint_changes else joints[1]
    return (Body(1.0, 0.01), Body(1.0, 0.01)), tuple(joints)


def test_rejects_negative_mass():
    with pytest.raises(ValueError, match="Body.mass: got -1.0; allowed: a finite number >= 0"):
        Body(mass=-1.0, inertia=0.01)


def test_rejects_negative_inertia():
    with pytest.raises(ValueError, match="Body.inertia: got -0.01; allowed: a finite number >= 0"):
        Body(mass=1.0, inertia=-0.01)


def test_rejects_non_finite_mass():
    with pytest.raises(ValueError, match="Body.mass: got nan; allowed: a finite number"):
        Body(mass=float("nan"), inertia=0.01)


def test_rejects_joint_that_moves_no_inertia():
    """Zero mass or inertia is allowed per body, but not a joint whose M row would vanish."""
    with pytest.raises(ValueError, match="bodies: prismatic joint 1 moves bodies of total mass 0"):
        TreeModel(
            (Body(1.0, 0.01), Body(0.0, 0.5)), (Joint("revolute"), Joint("prismatic", 0, (0.1, 0)))
        )
    with pytest.raises(ValueError, match="bodies: revolute joint 0 moves no mass and no inertia"):
        TreeModel((Body(0.0, 0.0),), (Joint("revolute"),))


def test_massless_body_carries_a_point_mass_on_two_sliders(measured):
    """Lipinski (002), sec. 2: a 2-dof connection as joints and a massless body. M = m I."""
    m = 0.02
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(m, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )
    q, u = np.array([0.3, -0.1]), np.array([0.5, 0.2])
    # rtol = 1e-7: assert_allclose's default, kept
    measured.close(
        "mass matrix",
        mass_matrix(tree, q),
        m * np.eye(2),
        rtol=1e-7,
        atol=1e-15,
        unit="kg",
        reference="m I",
    )
    measured.close(
        "bias forces",
        bias_forces(tree, q, u),
        [0.0, m * 9.81],
        rtol=1e-7,
        atol=1e-15,
        unit="N",
        reference="(0, m g)",
    )
    measured.close(
        "point position",
        point_position(tree, q, 1, (0.0, 0.0)),
        q,
        rtol=1e-7,
        atol=1e-15,
        unit="m",
        reference="q",
    )


def test_rejects_unknown_joint_kind():
    with pytest.raises(ValueError, match="kind.*'spherical'"):
        Joint("spherical")


def test_rejects_negative_damping():
    with pytest.raises(ValueError, match="damping"):
        Joint("revolute", damping=-1.0)


def test_rejects_unknown_parent():
    bodies, joints = two_bodies(parent=5)
    with pytest.raises(ValueError, match=r"joints\[1\]\.parent = 5 is an unknown body"):
        TreeModel(bodies, joints)


def test_rejects_parent_that_is_not_earlier():
    bodies, joints = two_bodies(parent=1)
    with pytest.raises(ValueError, match=r"joints\[1\]\.parent = 1 is not an earlier body"):
        TreeModel(bodies, joints)


def test_rejects_negative_parent():
    with pytest.raises(ValueError, match="parent"):
        Joint("revolute", parent=-1)


def test_rejects_joint_count_mismatch():
    bodies, joints = two_bodies()
    with pytest.raises(ValueError, match="joints"):
        TreeModel(bodies, joints[:1])


def test_rejects_point_on_missing_body():
    bodies, joints = two_bodies()
    with pytest.raises(ValueError, match=r"points\['tip'\]\.body: got 2"):
        TreeModel(bodies, joints, points={"tip": (2, (0.1, 0.0))})


def test_rejects_duplicate_point_names():
    bodies, joints = two_bodies()
    with pytest.raises(ValueError, match="points has a duplicate name 'tip'"):
        TreeModel(bodies, joints, points=[("tip", (0, (0.1, 0.0))), ("tip", (1, (0.2, 0.0)))])


def test_rejects_bad_gravity():
    bodies, joints = two_bodies()
    with pytest.raises(ValueError, match="gravity"):
        TreeModel(bodies, joints, gravity=(0.0, -9.81, 0.0))


def test_rejects_wrong_state_length():
    tree = manipulator()
    with pytest.raises(ValueError, match=r"q must have shape \(3,\)"):
        mass_matrix(tree, np.zeros(2))
    with pytest.raises(ValueError, match=r"u must have shape \(3,\)"):
        bias_forces(tree, np.zeros(3), np.zeros(4))
    system = assemble(Model(tree=tree))
    with pytest.raises(ValueError, match=r"initial_state.q_tree: .*shape \(3,\)"):
        system.initial_state(np.zeros(2), np.zeros(3))


def test_rejects_unknown_body_in_kernels():
    tree = manipulator()
    with pytest.raises(ValueError, match="body"):
        point_jacobian(tree, np.zeros(3), 3, (0.0, 0.0))


def test_rejects_bad_drives():
    tree = manipulator()
    with pytest.raises(ValueError, match=r"Model.drives\[0\].joint: got 4; allowed: .*0..2"):
        Model(tree=tree, drives=(Drive.constant_velocity(4, 0.0, 1.0),))
    with pytest.raises(
        ValueError, match="Model.drives joints: got \\[1, 1\\]; allowed: each .* once"
    ):
        Model(tree=tree, drives=(Drive.constant_velocity(1, 0.0, 1.0),) * 2)


def test_tree_model_is_an_immutable_picklable_value():
    tree = manipulator()
    assert tree == manipulator()
    hash(tree)
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree.gravity = (0.0, 0.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        tree.points["new"] = (0, (0.0, 0.0))  # type: ignore[index]
    copy = pickle.loads(pickle.dumps(tree))
    assert copy == tree and dict(copy.points) == dict(tree.points)
    q = np.array([0.1, 0.2, 0.3])
    np.testing.assert_array_equal(mass_matrix(copy, q), mass_matrix(tree, q))
    drive = pickle.loads(pickle.dumps(Drive.constant_velocity(1, 0.5, 0.2)))
    assert (drive.position(2.0), drive.velocity(2.0), drive.acceleration(2.0)) == (0.9, 0.2, 0.0)
