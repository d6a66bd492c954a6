"""Droppers (``laws.Dropper``): links between material points that carry tension only.

The model: two pinned-pinned wires of span L = 10 m, the contact wire along y = 0 (N = 2000 N)
and the messenger 1 m above it (N = 1500 N), rho A = 1 kg/m, EI = 10 N m^2, under gravity; three
vertical droppers at x = 2.5, 5, 7.5 m (k_d = 1e5 N/m, unstretched 0.999 m: 1 mm short, so
that they pull from the start). A force P lifts the contact wire at mid-span, under the middle
dropper.

The hand solution: the beams move only across their axes (the linear beam), so a vertical
dropper's clamps stay one above the other and its stretch is affine in the coordinates,
a_j = (1 - l0) + b_j . q with b_j the shape-function rows of the messenger's point minus the
contact wire's. While the droppers of the set S are taut the statics are linear:

    (K + sum_{j in S} k b_j b_j^T) q = f_gravity + f_P - sum_{j in S} k (1 - l0) b_j,

T_j = k a_j. Solved here with numpy on the wires' matrices (``assemble_beam``) and the shape
rows, without the dropper's code. With every dropper kept, T_mid(P) is affine in P and falls
to zero at P* = -T_mid(0) / (dT_mid / dP); beyond it the solution with the middle dropper
removed is the equilibrium (its stretch there is negative: consistent).
"""

import math

import numpy as np
import pytest

from fe_contact import (
    BeamSpec,
    ContactPair,
    Model,
    PointLoad,
    assemble,
    simulate,
    static_equilibrium,
)
from fe_contact.elements.beam import assemble_beam, point_load, self_weight, shape_rows
from fe_contact.laws import Dropper
from fe_contact.structure_points import MaterialPoint

L, RHO_A, EI, G = 10.0, 1.0, 10.0, 9.81
TENSIONS = {"contact_wire": 1500.0, "messenger": 3000.0}
HEIGHT = 1.0  # m, messenger above the contact wire
K_D, L0 = 1.0e5, 0.999
DROPPERS = (2.5, 5.0, 7.5)
N_ELEMENTS = 16  # l_e = 0.625 m: the droppers and the load sit on nodes
MID = 1  # the middle dropper


def wire(name: str) -> BeamSpec:
    return BeamSpec(
        length=L,
        n_elements=N_ELEMENTS,
        youngs_modulus=1.0,
        density=1.0,
        area=RHO_A,
        second_moment=EI,
        left="pinned",
        right="pinned",
        origin=(0.0, HEIGHT if name == "messenger" else 0.0),
        axial_force=TENSIONS[name],
    )


def two_wires(lift: float = 0.0, **dropper) -> Model:
    law = Dropper(stiffness=K_D, length=L0, **dropper)
    pairs = tuple(
        ContactPair(f"d{j}", MaterialPoint("contact_wire", x), MaterialPoint("messenger", x), law)
        for j, x in enumerate(DROPPERS)
    )
    loads = (PointLoad("contact_wire", L / 2, (0.0, lift)),) if lift else ()
    return Model(
        structures={"contact_wire": wire("contact_wire"), "messenger": wire("messenger")},
        contacts=pairs,
        loads=loads,
    )


class Hand:
    """The hand solution of the module docstring, on q = (q_contact, q_messenger)."""

    def __init__(self):
        beams = [assemble_beam(wire(name)) for name in ("contact_wire", "messenger")]
        frees = [b.free_dofs for b in beams]
        sizes = [f.size for f in frees]
        self.slices = (slice(0, sizes[0]), slice(sizes[0], sum(sizes)))
        n = sum(sizes)
        self.K = np.zeros((n, n))
        self.weight = np.zeros(n)
        self.lift = np.zeros(n)  # generalised load of 1 N up at the contact wire's mid-span
        for b, f, sl in zip(beams, frees, self.slices, strict=True):
            self.K[sl, sl] = b.reduced("stiffness").toarray()
            self.weight[sl] = self_weight(b, (0.0, -G))[f]
        self.lift[self.slices[0]] = point_load(beams[0], L / 2, 1.0)[frees[0]]
        self.b = np.zeros((len(DROPPERS), n))
        for j, x in enumerate(DROPPERS):
            for sign, b, sl in zip((-1.0, 1.0), beams, self.slices, strict=True):
                rows = shape_rows(b, np.array([x]))
                full = np.zeros(b.n_dofs)
                np.add.at(full, rows.dofs[0], rows.dx(0)[0])
                self.b[j, sl] += sign * full[b.free_dofs]

    def solve(self, lift: float, taut) -> tuple[np.ndarray, np.ndarray]:
        """(q, tensions k a_j of every dropper) with the droppers ``taut`` kept."""
        A = self.K.copy()
        f = self.weight + lift * self.lift
        for j in taut:
            A += K_D * np.outer(self.b[j], self.b[j])
            f -= K_D * (1.0 - L0) * self.b[j]
        q = np.linalg.solve(A, f)
        return q, K_D * ((1.0 - L0) + self.b @ q)


@pytest.fixture(scope="module")
def hand():
    return Hand()


def critical_lift(hand) -> float:
    t0 = hand.solve(0.0, range(3))[1][MID]
    t1 = hand.solve(1.0, range(3))[1][MID]
    return -t0 / (t1 - t0)


def test_hand_solution_is_what_the_droppers_claim(hand):
    """The hand solution's own facts: at rest every dropper pulls (the wire's weight, 1 mm of
    pre-stretch), and lifting the contact wire at mid-span unloads the middle dropper, whose
    tension falls to zero at P* between 100 and 1000 N (it carries ~ a quarter span of wire,
    24.5 N, plus its 100 N of pre-stretch, shared with the wires' tension)."""
    tensions = hand.solve(0.0, range(3))[1]
    assert np.all(tensions > 0.0), tensions
    assert 5.0 < critical_lift(hand) < 50.0, critical_lift(hand)


@pytest.mark.parametrize("fraction", [0.5, 0.97, 1.03, 1.5])
def test_the_middle_dropper_goes_slack_exactly_where_its_tension_would_turn_negative(
    hand, fraction
):
    """The library's static equilibrium under the lift fraction P* against the hand solution:
    below P* all three droppers taut (the middle one with the tension of the linear solve),
    above it the middle one slack (zero tension, negative stretch) and the wires as the solve
    with that dropper removed. 3 % on either side of P* decides the state; the coordinates
    agree to 1e-8 of their largest entry (Newton's tolerance 1e-10 on the forces, times the
    condition of K + k b b^T, ~ 1e4 here) and the tensions to 1e-6 N."""
    lift = fraction * critical_lift(hand)
    taut = range(3) if fraction < 1.0 else [j for j in range(3) if j != MID]
    q_hand, t_hand = hand.solve(lift, taut)
    if fraction > 1.0:
        assert t_hand[MID] < 0.0  # the removed dropper would be compressed: slack is right
        t_hand[MID] = 0.0
    else:
        assert t_hand[MID] > 0.0
    system = assemble(two_wires(lift))
    state = static_equilibrium(system)
    lay = system.layout
    q = np.concatenate(
        [state.q[lay.structure("contact_wire")], state.q[lay.structure("messenger")]]
    )
    assert np.abs(q - q_hand).max() < 1e-8 * np.abs(q_hand).max()
    forces = np.array([state.normal_force[f"d{j}"] for j in range(3)])
    assert np.abs(forces - t_hand).max() < 1e-6, (forces, t_hand)


def test_dropper_force_and_state_in_the_history_and_its_energy_in_the_balance(hand):
    """From the static state at P = 0, the lift 1.5 P* is applied at once: the contact wire
    jumps up and the middle dropper goes slack (its state, tension and gap are history
    columns), 0.06 s at h = 1e-4 s, rho_inf = 1.

    While taut, a vertical dropper's force is linear in q (module docstring), so the
    trapezoidal step keeps the energy exactly, except over a step in which the stretch crosses
    zero: there the mean of the force over the step is not the force at the mean state, an
    error of about k (a' h)^2 / 8 per crossing (a' ~ 0.1 m/s: 1.3e-6 J). The balance E - E0 -
    W (the droppers' energy k a^2 / 2 in the elastic energy) closes to 1e-6 of the largest
    term (measured 3.5e-8 of 6.2 J); without the droppers' energy it would miss by 1.8e-4."""
    lift = 1.5 * critical_lift(hand)
    rest = static_equilibrium(assemble(two_wires()))
    system = assemble(two_wires(lift))
    result = simulate(system, (0.0, 0.06), (rest.q, rest.u), h=1e-4, rho_inf=1.0)
    assert result.status == "finished", result.message
    states = list(result["d1_state"])
    assert states[0] == "taut" and "slack" in states, set(states)
    slack = np.array([s == "slack" for s in states])
    tension = result["d1_normal_force"]
    assert np.all(tension[slack] == 0.0) and np.all(tension[~slack] > 0.0)
    # taut, the tension column is k times the stretch (minus the gap column), no damper
    stretch = -result["d1_gap"][~slack]
    assert np.allclose(tension[~slack], K_D * stretch, rtol=1e-12, atol=0.0)
    assert np.all(result["d1_gap"][slack] > 0.0)  # slack: shorter than its length
    assert set(result["d0_state"]) == {"taut"}
    largest = max(
        np.abs(result[name]).max()
        for name in ("kinetic_energy", "potential_energy", "elastic_energy")
    )
    dropper_energy = (
        0.5
        * K_D
        * np.sum(
            [np.maximum(-g, 0.0) ** 2 for g in (result[f"d{j}_gap"] for j in range(3))], axis=0
        )
    )
    # the droppers' energy, from the gap columns: it is in the balance, and far above its
    # tolerance (measured 1.1e-3 J at the start, 1.8e-4 of the largest term)
    assert dropper_energy.max() > 100.0 * 1e-6 * largest
    assert np.abs(result["energy_error"]).max() < 1e-6 * largest


def test_dropper_mass_is_lumped_at_its_clamps():
    """A 0.4 kg dropper adds 0.2 kg at each clamp: the system's translational mass (u = 1 m/s
    up on every node of both wires) grows by 3 x 0.4 kg over the wires' 2 x rho A L = 20 kg,
    to round-off (the sum of N^T N over the nodal w DOFs is exactly 1 per clamp; 1e-12)."""

    def mass_up(system):
        u = np.zeros(system.n)
        for name, s in system.structures.items():
            dofs = s.beam.basis.nodal_dofs[0]
            full = np.zeros(s.beam.n_dofs)
            full[dofs] = 1.0
            u[system.layout.structure(name)] = full[s.beam.free_dofs]
        return float(u[system.layout.flexible] @ (system.mass_flexible @ u[system.layout.flexible]))

    heavy = mass_up(assemble(two_wires(mass=0.4)))
    light = mass_up(assemble(two_wires()))
    assert math.isclose(heavy - light, 1.2, rel_tol=1e-12)


def test_bad_droppers_are_refused_naming_the_parameter():
    with pytest.raises(ValueError, match=r"Dropper\.length: got -1\.0; allowed: .*> 0"):
        Dropper(stiffness=1.0, length=-1.0)
    law = Dropper(stiffness=1.0, length=1.0)
    with pytest.raises(TypeError, match=r"ContactPair 'd'\.target: .*allowed: a MaterialPoint"):
        ContactPair("d", MaterialPoint("contact_wire", 1.0), "messenger", law)
    with pytest.raises(ValueError, match=r"ContactPair 'd'\.law: .*allowed: a link law"):
        ContactPair("d", MaterialPoint("contact_wire", 1.0), MaterialPoint("messenger", 1.0))
    pair = ContactPair(
        "d", MaterialPoint("contact_wire", 11.0), MaterialPoint("messenger", 1.0), law
    )
    with pytest.raises(ValueError, match=r"\['d'\]\.profile\.s: got 11\.0; allowed: .*\[0, 10\]"):
        Model(
            structures={"contact_wire": wire("contact_wire"), "messenger": wire("messenger")},
            contacts=(pair,),
        )


def test_a_body_hangs_from_a_wire_by_a_dropper():
    """A 2 kg mass on a vertical slider (a body Point side) hangs from the contact wire's
    mid-span by a dropper 0.5 m long: at rest the dropper holds its weight, T = m g = 19.62 N,
    to Newton's tolerance (1e-10 relative of the forces; 1e-8 N), and it is stretched by
    T / k; the wire sags under T as under a point load P = m g: against the hand solution
    with the lift -m g and no droppers (a wire alone), to 1e-8 of the sag."""
    from fe_contact import Body, Joint, Point, TreeModel

    mass = 2.0
    tree = TreeModel(
        bodies=(Body(mass, 0.0),),
        joints=(Joint("prismatic", location=(L / 2, 0.0), angle=np.pi / 2),),
    )
    law = Dropper(stiffness=K_D, length=0.5)
    pair = ContactPair("hanger", Point(0), MaterialPoint("contact_wire", L / 2), law)
    system = assemble(
        Model(tree=tree, structures={"contact_wire": wire("contact_wire")}, contacts=(pair,))
    )
    state = static_equilibrium(system, system.initial_state([-0.5])[0])
    weight = mass * G
    assert abs(state.normal_force["hanger"] - weight) < 1e-8
    beam = assemble_beam(wire("contact_wire"))
    K = beam.reduced("stiffness").toarray()
    f = self_weight(beam, (0.0, -G))[beam.free_dofs]
    f += point_load(beam, L / 2, -weight)[beam.free_dofs]
    q_hand = np.linalg.solve(K, f)
    q = state.q[system.layout.structure("contact_wire")]
    assert np.abs(q - q_hand).max() < 1e-8 * np.abs(q_hand).max()
    sag = system.structures["contact_wire"].curve(L / 2, q).position[1]
    assert math.isclose(sag - state.q[0], 0.5 + weight / K_D, rel_tol=1e-9)


def test_a_dropper_with_a_damper_slackens_and_catches_a_thrown_mass():
    """The hanging 2 kg mass of the previous test, with a dropper of k = 1e5 N/m and c = 10
    N s/m, thrown up at 0.3 m/s from rest: the dropper goes slack (the mass rises ~4.6 mm, far
    above its static stretch m g / k = 0.2 mm), then catches the falling mass (taut again).
    The damper's power (T - k a) a' >= 0 is dissipated, never negative over a step, and the
    balance E - E0 + dissipated closes, 0.1 s at h = 1e-4 s, rho_inf = 1, to 1e-6 of the
    largest term: the catch, a kink of the force within a step, and the trapezoidal booking of
    the damper's power (O(h^2)) are its errors (measured 3.6e-7 of 19 J)."""
    from fe_contact import Body, Joint, Point, TreeModel

    tree = TreeModel(
        bodies=(Body(2.0, 0.0),),
        joints=(Joint("prismatic", location=(L / 2, 0.0), angle=np.pi / 2),),
    )
    law = Dropper(stiffness=K_D, length=0.5, damping=10.0)
    pair = ContactPair("hanger", Point(0), MaterialPoint("contact_wire", L / 2), law)
    system = assemble(
        Model(tree=tree, structures={"contact_wire": wire("contact_wire")}, contacts=(pair,))
    )
    rest = static_equilibrium(system, system.initial_state([-0.5])[0])
    u0 = rest.u.copy()
    u0[0] = 0.3
    result = simulate(system, (0.0, 0.1), (rest.q, u0), h=1e-4, rho_inf=1.0)
    assert result.status == "finished", result.message
    states = list(result["hanger_state"])
    first_slack = states.index("slack")
    assert "taut" in states[first_slack:], "the dropper did not catch the mass"
    dissipated = result["dissipated_damping"]
    assert dissipated[-1] > 0.0 and np.all(np.diff(dissipated) >= 0.0)
    largest = max(
        np.abs(result[name]).max()
        for name in ("kinetic_energy", "potential_energy", "elastic_energy", "dissipated_damping")
    )
    assert np.abs(result["energy_error"]).max() < 1e-6 * largest


def test_droppers_and_spring_supports_round_trip_through_a_model_file(tmp_path):
    """Droppers between two MaterialPoints, one from a body Point, damped and with mass, and a
    spring support with a dashpot: written (``law = "dropper"``, ``material_point`` sides,
    ``[[supports]]``) and read back equal."""
    from fe_contact import Body, Joint, Point, TreeModel, load_model, save_model
    from fe_contact.structure_points import SpringSupport

    model = two_wires(damping=2.0, mass=0.1)
    loaded = load_model(save_model(model, tmp_path / "droppers.toml")).model
    assert loaded == model and [c.link for c in loaded.contacts] == [True] * len(DROPPERS)
    tree = TreeModel(
        bodies=(Body(2.0, 0.0),), joints=(Joint("prismatic", location=(L / 2, 0.0), angle=1.0),)
    )
    hanger = ContactPair(
        "hanger", Point(0), MaterialPoint("contact_wire", L / 2), Dropper(K_D, 0.5)
    )
    springs = Model(
        tree=tree,
        structures={"contact_wire": wire("contact_wire")},
        contacts=(hanger,),
        supports=(SpringSupport("contact_wire", 5.0, 1e3, 20.0, (0.6, 0.8)),),
    )
    assert load_model(save_model(springs, tmp_path / "springs.toml")).model == springs


def test_droppers_are_lines_of_the_paraview_frames(tmp_path):
    """The frames' "links" block holds each dropper as a line between its clamps: its length
    is l0 minus the history's gap (to round-off of the positions, 1e-12 m), and the series
    written by the VtkObserver has it in every frame."""
    import pyvista as pv

    from fe_contact.io.vtk import geometry_blocks
    from fe_contact.steppers.observers import VtkObserver

    system = assemble(two_wires(40.0))
    rest = static_equilibrium(assemble(two_wires()))
    result = simulate(
        system, (0.0, 0.002), (rest.q, rest.u), h=1e-4, observers=[VtkObserver(tmp_path)]
    )
    blocks = {b.name: b for b in geometry_blocks(system, result.q[-1])}
    links = blocks["links"]
    ends = links.points[links.cells[0][1]]  # (3, 2, 2): per dropper its two clamps
    lengths = np.hypot(*(ends[:, 1] - ends[:, 0]).T)
    gaps = np.array([result[f"d{j}_gap"][-1] for j in range(3)])
    assert np.abs(lengths - (L0 - gaps)).max() < 1e-12
    frames = sorted(tmp_path.rglob("*.vtm"))
    assert frames
    last = pv.read(frames[-1])
    names = [last.get_block_name(i) for i in range(last.n_blocks)]
    structures = last[names.index("structures")]
    assert "links" in [structures.get_block_name(i) for i in range(structures.n_blocks)]
