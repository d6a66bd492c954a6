"""All links of a model in one call (``coupling.links.links_state``) and the droppers' tangent
folded into the structures' factorised block (``steppers.compliant.bordered_solve``).

The model: two pinned wires of 4 m, 8 elements each, the lower along y = 0 and the upper 1 m
above it, joined by three links whose clamps are off the nodes and not one above the other
(so that each link leans), and a fourth link with both clamps on the lower wire. The wires are
given a smooth deflection and velocity so that every link turns and stretches. The
references are computed here from the clamps' positions alone, each read from the beam's
``Structure.curve`` (the shape functions of the element holding the point, not the links'
code): l = |r_b - r_a|, gap l0 - l, normal (r_b - r_a) / l; W_N = d gap / dq by central
differences in q; g' and g'' = W_N u' + A (u' = 0 here) by central differences along the
straight path q + t u.
"""

import numpy as np
import pytest

from fe_contact import BeamSpec, ContactPair, Model, assemble
from fe_contact.coupling.constraints import evaluate_state
from fe_contact.coupling.links import link_kinematics, links_kinematics, links_state
from fe_contact.laws import Dropper
from fe_contact.steppers.alpha import alpha_parameters
from fe_contact.steppers.compliant import bordered_solve
from fe_contact.steppers.partitioned_step import StepAlgebra
from fe_contact.structure_points import MaterialPoint

EPS = np.finfo(float).eps
SIDES = (  # (structure a, s_a, structure b, s_b, l0)
    ("low", 0.7, "up", 0.9, 0.98),
    ("low", 2.1, "up", 1.8, 1.04),  # slack in the tangent test
    ("low", 3.3, "up", 3.35, 0.99),
    ("low", 1.2, "low", 2.6, 1.3),
)


def wire(y: float) -> BeamSpec:
    return BeamSpec(
        length=4.0,
        n_elements=8,
        youngs_modulus=1.0,
        density=1.0,
        area=1.0,
        second_moment=50.0,
        left="pinned",
        right="pinned",
        origin=(0.0, y),
        axial_force=1e3,
    )


@pytest.fixture(scope="module")
def system():
    pairs = tuple(
        ContactPair(f"d{j}", MaterialPoint(a, sa), MaterialPoint(b, sb), Dropper(1e5, l0, 20.0))
        for j, (a, sa, b, sb, l0) in enumerate(SIDES)
    )
    return assemble(Model(structures={"low": wire(0.0), "up": wire(1.0)}, contacts=pairs))


def deflected(system):
    """(q, u): a smooth deflection of a few cm and a velocity of some dm/s on both wires."""
    rng = np.random.default_rng(7)
    n = system.layout.n
    return 0.03 * rng.standard_normal(n), 0.3 * rng.standard_normal(n)


def clamps(system, q):
    """(L, 2, 2): both clamps of each link at q, from the beams' own curves."""
    out = []
    for a, sa, b, sb, _ in SIDES:
        ends = []
        for name, s in ((a, sa), (b, sb)):
            sl = system.layout.structure(name)
            ends.append(system.structures[name].curve(s, q[sl]).position)
        out.append(ends)
    return np.array(out)


def gaps(system, q):
    ends = clamps(system, q)
    length = np.hypot(*(ends[:, 1] - ends[:, 0]).T)
    return np.array([l0 for *_, l0 in SIDES]) - length


def gap_rows(system, q, dq: float = 1e-5) -> np.ndarray:
    """(L, n): d gap / dq of every link by central differences of the clamps' positions."""
    out = np.empty((len(SIDES), system.layout.n))
    for i in range(system.layout.n):
        step = np.zeros(system.layout.n)
        step[i] = dq
        out[:, i] = (gaps(system, q + step) - gaps(system, q - step)) / (2 * dq)
    return out


def test_links_at_once_against_the_clamps_positions(system):
    q, u = deflected(system)
    state = links_state(system, q, u)
    assert state.pairs.tolist() == [0, 1, 2, 3]
    ends = clamps(system, q)
    d = ends[:, 1] - ends[:, 0]
    # closed forms from the clamps: the same shape functions summed in another order, so equal
    # to a few eps times the coordinates' scale (1 m)
    assert np.max(np.abs(state.gap - gaps(system, q))) <= 16 * EPS
    assert np.max(np.abs(state.normal - d / np.hypot(*d.T)[:, None])) <= 16 * EPS
    assert np.max(np.abs(state.point_a - ends[:, 0])) <= 16 * EPS
    assert np.max(np.abs(state.point_b - ends[:, 1])) <= 16 * EPS
    # W_N = d gap / dq: central differences, truncation O(dq^2 |g'''|) ~ 1e-12 with dq = 1e-5,
    # round-off eps / dq ~ 2e-11: bound 1e-9 (the rows are O(1))
    fd = gap_rows(system, q).T
    dense = state.dense_rows(system.layout.n)
    assert np.max(np.abs(dense - fd.T)) <= 1e-9
    # g' = W_N u and g'' = A along q + t u (u' = 0): central differences in t, dt = 1e-3 s.
    # Truncation dt^2 / 6 |d3g/dt3| and dt^2 / 12 |d4g/dt4| with |u| ~ 0.3 m/s over l ~ 1 m: below
    # 1e-8; round-off eps |g| / dt^2 ~ 2e-11. Bounds 1e-8 m/s and 1e-7 m/s^2 beside g' of
    # 0.04-0.2 m/s and A of 5e-5 to 4e-3 m/s^2
    dt = 1e-3
    g_p, g_0, g_m = (gaps(system, q + t * u) for t in (dt, 0.0, -dt))
    assert np.max(np.abs(state.normal_velocity - (g_p - g_m) / (2 * dt))) <= 1e-8
    assert np.max(np.abs(dense @ u - state.normal_velocity)) <= 64 * EPS * np.abs(dense).sum()
    assert np.max(np.abs(state.remainder - (g_p - 2 * g_0 + g_m) / dt**2)) <= 1e-7


def test_one_link_at_a_time_is_the_same_as_all_at_once(system):
    q, u = deflected(system)
    every = links_kinematics(system, q, u)
    for k in range(len(SIDES)):
        one, all_ = link_kinematics(system, k, q, u), every[k]
        # the same arithmetic on one row or on all: equal to round-off of O(1) quantities
        for name in ("gap", "normal_velocity", "remainder", "parameter"):
            assert abs(getattr(one, name) - getattr(all_, name)) <= 4 * EPS
        assert np.max(np.abs(one.w_normal - all_.w_normal)) <= 4 * EPS
        assert not np.any(all_.w_tangent)  # a link has no tangential row


def test_the_folded_tangent_is_the_bordered_system(system):
    """With no constraint rows the step's linear system is (G_f + sum_taut K_j w_j w_j^T) X = R
    (K_j = bp k + gp c of a taut link): solved densely here from the System's matrices and the
    rows of central differences, against ``bordered_solve`` (which folds the links into G_f)."""
    q, u = deflected(system)
    q = 0.2 * q  # links 0, 2, 3 stretched (taut), link 1 shortened (slack)
    assert (gaps(system, q) < 0).tolist() == [True, False, True, True]
    algebra = StepAlgebra(system, alpha_parameters(0.8))
    h = 1e-3
    bp, gp = algebra.coefficients(h)
    ev = evaluate_state(system, q, u, 0.0)
    assert [f.normal_force > 0.0 for f in ev.compliant] == [True, False, True, True]
    G = system.mass_flexible + gp * system.damping_flexible + bp * system.stiffness_flexible
    A = G.toarray()
    rows = gap_rows(system, q)  # W_N of central differences (to 1e-9, above)
    for j in (0, 2, 3):  # Dropper(1e5, l0, 20.0) while taut: dT/da = k, dT/da' = c
        A += (1e5 * bp + 20.0 * gp) * np.outer(rows[j], rows[j])
    rhs = np.random.default_rng(3).standard_normal(system.layout.n)
    X = bordered_solve(algebra, ev, rhs, h, algebra.g_solver(h, q))
    # A holds rows of central differences (1e-9 off, times k = bp k + gp c = 0.036 N/m), so X
    # solves it to about 4e-11 of |A| |X| n; measured 4.7e-15. Bound 1e-9: leaving the taut
    # links out misses by 5.3e-5, adding the slack one by 2.5e-5
    residual = np.max(np.abs(A @ X - rhs))
    assert residual <= 1e-9 * np.abs(A).max() * np.abs(X).max() * system.layout.n
    assert algebra.n_factorizations >= 2  # G_f alone, then G_f with the taut links


def test_padding_of_the_rows_is_a_dof_of_the_link_with_value_zero():
    """A link at a wire's pinned end has fewer free DOFs than one inside: its rows are padded
    with a DOF of its own (never a tree coordinate) and zero values, so that the folded tangent
    (``bordered_solve``, which folds links on the structures' DOFs alone) takes it."""
    from fe_contact.multibody.builders import floating_body

    pairs = (
        ContactPair("end", MaterialPoint("low", 0.0), MaterialPoint("up", 1.1), Dropper(1e5, 1.0)),
        ContactPair("mid", MaterialPoint("low", 2.1), MaterialPoint("up", 1.8), Dropper(1e5, 1.0)),
    )
    model = Model(
        tree=floating_body(1.0, 1e-3),
        structures={"low": wire(0.0), "up": wire(1.0)},
        contacts=pairs,
    )
    system = assemble(model)
    rows = system.link_rows
    n_tree = system.layout.n_tree
    assert n_tree == 3 and rows.dofs.shape == (2, 8)
    # the pinned end's element has 3 free DOFs (w' at the end, w and w' at the next node), the
    # inner point's 4: the end link's eighth entry is padding
    assert rows.dofs.min() >= n_tree
    assert rows.dofs[0, 7] == rows.dofs[0, 0] and not np.any(rows.rows[0, :, 7])
    assert len(set(rows.dofs[1].tolist())) == 8  # the inner link: no padding


def test_links_forces_at_once_are_each_links_compliant_force(system):
    """``compliant_forces`` evaluates the Dropper laws of all links at once (``link_forces``)
    and forms each link's kinematics when read: the same as ``compliant_force`` of each link
    with its own law and ``link_kinematics``, to the bit (the same operations elementwise)."""
    from fe_contact.coupling.contact import compliant_force, compliant_forces

    q, u = deflected(system)
    q = 0.2 * q  # links 0, 2, 3 taut, link 1 slack
    # -1e3 u: link 2 is stretched by 15 mm and shortens at 138 m/s, its damper would push: no
    # force, a zero tangent
    for u_k in (u, -1e3 * u):
        forces = compliant_forces(system, q, u_k)
        assert [f.index for f in forces] == [0, 1, 2, 3]
        for f in forces:
            kin = link_kinematics(system, f.index, q, u_k)
            one = compliant_force(system.model.contacts[f.index].law, kin, f.index)
            for name in ("normal_force", "friction_force", "energy", "damping_power"):
                assert getattr(f, name) == getattr(one, name), name
            assert (f.tangent is None) == (one.tangent is None) == (f.index == 1)
            if f.tangent is not None:
                assert np.array_equal(f.tangent[0], one.tangent[0])
                assert np.array_equal(f.tangent[1], one.tangent[1])
            assert f.contact.gap == kin.gap and np.array_equal(f.contact.normal, kin.normal)
            assert np.max(np.abs(f.contact.w_normal - kin.w_normal)) <= 4 * EPS
            dense = np.zeros(system.layout.n)
            np.add.at(dense, *f.rows)
            assert np.array_equal(dense, f.contact.w_normal)
