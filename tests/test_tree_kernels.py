"""The tree kernels of ``kernels.tree`` (the one implementation of Lipinski (002), eqs. 1-3, 7)
against independent references: central differences of their own lower-order outputs (positions,
Jacobians, mass matrices) and a sympy Lagrange derivation of two small trees written out by hand.

Finite-difference bounds. A central difference (f(x + h) - f(x - h)) / (2 h) of a smooth f has
the truncation error h^2 / 6 max|f'''| and the round-off error about c eps max|f| / h, with c the
number of rounded operations behind one value of f (we take c = 10: a few dozen flops, each of
relative error eps, mostly cancelling). The trees below reach at most R = 2 m from the origin
(lever arms |p - o_k| <= R), so third derivatives of a point's position along the joint
coordinates are at most (1 + R) |u|_1^3 (revolute columns rotate a lever arm <= R; prismatic
columns are unit axes). With h = 1e-5 the two errors are about 1e-10 and 4e-10; each test
asserts the sum of the stated bounds, not a fitted number.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from fe_contact.kernels.tree import body_states, equations, point_state, tree_arrays
from fe_contact.multibody import Body, Joint, TreeModel

EPS = np.finfo(float).eps
H = 1e-5  # difference step, near eps^(1/3) where truncation and round-off balance
R = 2.0  # m, bound on every lever arm and position below (checked in ``reach``)
C_ROUND = 10.0  # rounded operations per evaluated value (see the module docstring)


def rpr() -> TreeModel:
    """Revolute, prismatic (inclined axis), revolute: a prismatic column inside the chain."""
    return TreeModel(
        bodies=(
            Body(1.1, 0.03, (0.15, 0.02)),
            Body(0.6, 0.01, (0.05, -0.01)),
            Body(0.4, 0.006, (0.12, 0.03)),
        ),
        joints=(
            Joint("revolute", None, (0.05, -0.1)),
            Joint("prismatic", 0, (0.3, 0.0), angle=0.5),
            Joint("revolute", 1, (0.1, 0.05), angle=-0.2),
        ),
        points={"tool": (2, (0.25, 0.1))},
    )


def double_pendulum() -> TreeModel:
    """Two revolute joints, off-axis centres of mass, a spring and a damper on joint 1."""
    return TreeModel(
        bodies=(Body(1.3, 0.02, (0.25, 0.03)), Body(0.7, 0.01, (0.2, -0.05))),
        joints=(
            Joint("revolute", None, (0.1, 0.2)),
            Joint("revolute", 0, (0.5, 0.0), angle=0.3, stiffness=3.0, damping=0.05, rest=0.2),
        ),
    )


def prismatic_revolute() -> TreeModel:
    """A slider on an axis inclined by 0.4 rad carrying a pendulum with a spring."""
    return TreeModel(
        bodies=(Body(2.0, 0.05, (0.05, 0.02)), Body(0.5, 0.004, (0.3, 0.0))),
        joints=(
            Joint("prismatic", None, (0.0, 0.1), angle=0.4, stiffness=5.0, rest=0.1),
            Joint("revolute", 0, (0.1, 0.0), damping=0.02),
        ),
    )


def states(tree: TreeModel, seed: int, count: int = 4):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield rng.uniform(-0.5, 0.5, tree.n_bodies), rng.uniform(-1.0, 1.0, tree.n_bodies)


def joint_arrays(tree: TreeModel):
    """Stiffness, damping, rest (n,) read from the joints (not from the packed arrays)."""
    return tuple(
        np.array([getattr(j, name) for j in tree.joints])
        for name in ("stiffness", "damping", "rest")
    )


def position(T, q, b, local):
    return point_state(T, q, np.zeros(q.size), b, *local)[0]


def test_point_jacobian_and_velocity_are_the_derivatives_of_the_position():
    tree = rpr()
    T = tree_arrays(tree)
    b, local = tree.points["tool"]
    for q, u in states(tree, seed=1):
        p, v, J, _ = point_state(T, q, u, b, *local)
        assert np.abs(p).max() <= R  # the reach assumed by the bounds
        # column k: derivative along q_k; truncation R h^2 / 6 + round-off C eps R / h
        bound = R * H**2 / 6 + C_ROUND * EPS * R / H
        for k in range(tree.n_bodies):
            e = np.zeros(tree.n_bodies)
            e[k] = H
            fd = (position(T, q + e, b, local) - position(T, q - e, b, local)) / (2 * H)
            assert np.abs(J[:, k] - fd).max() <= bound
        # velocity: derivative along q(t) = q + u t, third derivative <= (1 + R) |u|_1^3
        u1 = np.abs(u).sum()
        bound = (1 + R) * u1**3 * H**2 / 6 + C_ROUND * EPS * R / H
        fd = (position(T, q + H * u, b, local) - position(T, q - H * u, b, local)) / (2 * H)
        assert np.abs(v - fd).max() <= bound


def test_acceleration_remainder_is_the_derivative_of_the_jacobian_times_u():
    """a_rem = d/dt (J(q)) q' along q(t) = q + u t (q'' = 0), Lipinski (002), eq. (3d)."""
    tree = rpr()
    T = tree_arrays(tree)
    b, local = tree.points["tool"]
    zero = np.zeros(tree.n_bodies)
    for q, u in states(tree, seed=2):
        _, _, _, remainder = point_state(T, q, u, b, *local)
        J_plus = point_state(T, q + H * u, zero, b, *local)[2]
        J_minus = point_state(T, q - H * u, zero, b, *local)[2]
        fd = (J_plus - J_minus) @ u / (2 * H)
        u1 = np.abs(u).sum()
        # d^3/dt^3 (J u) <= (1 + R) |u|_1^4; round-off C eps R |u|_1 / h
        bound = (1 + R) * u1**4 * H**2 / 6 + C_ROUND * EPS * R * u1 / H
        assert np.abs(remainder - fd).max() <= bound


def test_body_velocities_are_the_derivatives_of_the_body_positions():
    tree = rpr()
    T = tree_arrays(tree)
    zero = np.zeros(tree.n_bodies)
    for q, u in states(tree, seed=3):
        _, _, _, omega, origin_velocity, com_velocity = body_states(T, q, u)
        plus = body_states(T, q + H * u, zero)
        minus = body_states(T, q - H * u, zero)
        u1 = np.abs(u).sum()
        bound = (1 + R) * u1**3 * H**2 / 6 + C_ROUND * EPS * R / H
        # angles are linear in q: only round-off
        assert np.abs(omega - (plus[0] - minus[0]) / (2 * H)).max() <= C_ROUND * EPS * R / H
        assert np.abs(origin_velocity - (plus[1] - minus[1]) / (2 * H)).max() <= bound
        assert np.abs(com_velocity - (plus[2] - minus[2]) / (2 * H)).max() <= bound


# ---------------------------------------------------------------------------------------------
# Dynamics: sympy Lagrange derivations of two trees, written out joint by joint
# ---------------------------------------------------------------------------------------------


def rot(angle):
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def lagrange(q, u, coms, angles, masses, inertias, springs, dampers, g):
    """M(q) and F(q, u) = d/dt(dT/du)|_{q''=0} - dT/dq + dV/dq + C u as numpy functions."""
    T = 0
    V = 0
    for com, angle, m, inertia in zip(coms, angles, masses, inertias, strict=True):
        v = com.jacobian(q) * u
        w = sp.Matrix([angle]).jacobian(q) * u
        T += sp.Rational(1, 2) * (m * (v.T * v)[0] + inertia * w[0] ** 2)
        V += -m * (g[0] * com[0] + g[1] * com[1])
    for j, (k, rest) in enumerate(springs):
        V += sp.Rational(1, 2) * k * (q[j] - rest) ** 2
    p = sp.Matrix([T]).jacobian(u).T
    M = p.jacobian(u)
    dp_dt = p.jacobian(q) * u
    F = dp_dt - sp.Matrix([T]).jacobian(q).T + sp.Matrix([V]).jacobian(q).T
    F += sp.Matrix([c * u[j] for j, c in enumerate(dampers)])
    args = (list(q), list(u))
    return sp.lambdify(args, M, "numpy"), sp.lambdify(args, F, "numpy")


def double_pendulum_reference():
    q = sp.Matrix(sp.symbols("q0 q1"))
    u = sp.Matrix(sp.symbols("u0 u1"))
    th0 = q[0]
    th1 = q[0] + 0.3 + q[1]
    o0 = sp.Matrix([0.1, 0.2])
    o1 = o0 + rot(th0) * sp.Matrix([0.5, 0.0])
    coms = [o0 + rot(th0) * sp.Matrix([0.25, 0.03]), o1 + rot(th1) * sp.Matrix([0.2, -0.05])]
    return lagrange(
        q, u, coms, [th0, th1], [1.3, 0.7], [0.02, 0.01],
        springs=[(0.0, 0.0), (3.0, 0.2)], dampers=[0.0, 0.05], g=(0.0, -9.81),
    )  # fmt: skip


def prismatic_revolute_reference():
    q = sp.Matrix(sp.symbols("q0 q1"))
    u = sp.Matrix(sp.symbols("u0 u1"))
    th0 = sp.Float(0.4)  # the slider keeps the axis direction (002, eq. 1 with a prismatic joint)
    th1 = th0 + q[1]
    o0 = sp.Matrix([0.0, 0.1]) + q[0] * sp.Matrix([sp.cos(0.4), sp.sin(0.4)])
    o1 = o0 + rot(th0) * sp.Matrix([0.1, 0.0])
    coms = [o0 + rot(th0) * sp.Matrix([0.05, 0.02]), o1 + rot(th1) * sp.Matrix([0.3, 0.0])]
    return lagrange(
        q, u, coms, [th0, th1], [2.0, 0.5], [0.05, 0.004],
        springs=[(5.0, 0.1), (0.0, 0.0)], dampers=[0.0, 0.02], g=(0.0, -9.81),
    )  # fmt: skip


def test_mass_matrix_and_bias_forces_equal_a_sympy_lagrange_derivation(measured):
    errors = {"M": ([], []), "F": ([], [])}  # (|kernel - sympy|, bound) of every entry
    for tree, (M_of, F_of) in (
        (double_pendulum(), double_pendulum_reference()),
        (prismatic_revolute(), prismatic_revolute_reference()),
    ):
        T = tree_arrays(tree)
        stiffness, damping, rest = joint_arrays(tree)
        masses = np.array([b.mass for b in tree.bodies])
        for q, u in states(tree, seed=4):
            M, F = equations(T, q, u, stiffness, damping, rest, np.zeros(tree.n_bodies))
            M_ref = np.array(M_of(q, u), dtype=float)
            F_ref = np.array(F_of(q, u), dtype=float).ravel()
            # both are float64 sums of a few dozen products; scale: the largest term,
            # m R^2 for M and m R (|g| + R |u|_1^2) + k |q - rest| + c |u| for F
            scale_M = masses.sum() * R**2 + sum(b.inertia for b in tree.bodies)
            u1 = np.abs(u).sum()
            scale_F = masses.sum() * R * (9.81 + R * u1**2) + stiffness @ np.abs(q - rest)
            scale_F += damping @ np.abs(u)
            for key, got, want, scale in (("M", M, M_ref, scale_M), ("F", F, F_ref, scale_F)):
                errors[key][0].append(np.abs(got - want).ravel())
                errors[key][1].append(np.full(got.size, 100 * EPS * scale))
            assert np.abs(M - M.T).max() == 0.0  # the kernel sums M[k, m] and M[m, k] alike
    for key, quantity, unit in (("M", "mass matrix", "kg m^2"), ("F", "bias forces", "N, N m")):
        measured.each(
            f"{quantity}, two trees",
            np.concatenate(errors[key][0]),
            np.concatenate(errors[key][1]),
            unit=unit,
            reference="sympy's Lagrange equations, written out joint by joint",
        )


def test_velocity_forces_are_the_rate_of_the_momentum_by_differences():
    """F(q, u) - F(q, 0) - C u = d/dt (M u) - dT/dq along q(t) = q + u t, Lipinski (002), eq.
    (7c) as Lagrange's equations, with M from the kernel (checked against sympy above)."""
    tree = rpr()
    T = tree_arrays(tree)
    stiffness, damping, rest = joint_arrays(tree)
    n = tree.n_bodies
    zero = np.zeros(n)

    def mass(q):
        return equations(T, q, zero, stiffness, damping, rest, zero)[0]

    scale_M = sum(b.mass for b in tree.bodies) * R**2 + sum(b.inertia for b in tree.bodies)
    for q, u in states(tree, seed=5):
        F_u = equations(T, q, u, stiffness, damping, rest, zero)[1]
        F_0 = equations(T, q, zero, stiffness, damping, rest, zero)[1]
        momentum_rate = (mass(q + H * u) - mass(q - H * u)) @ u / (2 * H)
        dT_dq = np.empty(n)
        for k in range(n):
            e = np.zeros(n)
            e[k] = H
            dT_dq[k] = u @ (mass(q + e) - mass(q - e)) @ u / (4 * H)
        u1 = np.abs(u).sum()
        # M is a sum of products of two lever arms: its third derivatives <= 8 scale_M |u|^3;
        # truncation 8 scale_M |u|_1^3 h^2 / 6, round-off C eps scale_M |u|_1^2 / h (two terms)
        bound = 2 * (8 * scale_M * u1**3 * H**2 / 6 + C_ROUND * EPS * scale_M * u1**2 / H)
        assert np.abs((F_u - F_0 - damping * u) - (momentum_rate - dT_dq)).max() <= bound
