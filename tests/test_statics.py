"""fe_contact.static_equilibrium of whole models against independent solutions, the refusal of
an initial state that contradicts the constraints, and [initial] static = true in model files.

Independent references: the two-segment extensible elastic catenary with a point load (Irvine's
parametric equations, solved by scipy.optimize here), the cantilever's closed forms, the
transcendental equilibrium of a pendulum on a joint spring (scipy's brentq)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import brentq, fsolve

from fe_contact import (
    BeamSpec,
    Body,
    ContactPair,
    Drive,
    Joint,
    LinearElastic,
    Model,
    Point,
    Sliding,
    StaticEquilibriumError,
    Support,
    TreeModel,
    Unilateral,
    assemble,
    simulate,
    static_equilibrium,
)
from fe_contact.coupling.constraints import contact_at
from fe_contact.elements.static_error import StaticSolveError
from fe_contact.io.model_file import (
    InitialState,
    ModelFile,
    ModelFileError,
    Simulation,
    load_model,
    model_document,
    parse_document,
    save_model,
)
from fe_contact.papers.eugster_glocker import table1_string
from fe_contact.papers.slider_on_string import trolley_tree
from fe_contact.runner import prepare

G = 9.81
EA = 853.75  # N, the small-strain stiffness of 004's string, as a linear law (Irvine's cable)
RIGHT = (0.8, 0.1)  # m: the right support, moved from (1, 0) of the straight reference
TROLLEY = 0.05  # kg: a light trolley (its weight 0.16 of the cable's), see the first test


# -- the trolley on the cable ------------------------------------------------------------------


def elastic_catenary(mass: float, length=1.0, line_density=0.3142, end=RIGHT):
    """Irvine's extensible catenary (linear law T = EA (nu - 1)) pinned at (0, 0) and ``end``,
    under its weight w = rho0 A g per unstretched length and a frictionless point load P = m g.

    Over a segment with constant horizontal tension H and vertical tension V(s) = V_a + w s,
    dx/ds = H/T + H/EA, dy/ds = V/T + V/EA with T = sqrt(H^2 + V^2), so
      x = H s/EA + H/w (asinh(V_b/H) - asinh(V_a/H)),
      y = (V_a s + w s^2/2)/EA + (sqrt(H^2 + V_b^2) - sqrt(H^2 + V_a^2))/w.
    The load is a jump +P of V at the material point s_p; frictionless, it splits the kink
    evenly: V(s_p-) = -P/2. Unknowns H, V(0), s_p from the end point and that condition.
    Returns (load point (2,), H, V(0), V(L))."""
    w, P = line_density * G, mass * G

    def segment(H, Va, ds):
        Vb = Va + w * ds
        x = H * ds / EA + H / w * (np.arcsinh(Vb / H) - np.arcsinh(Va / H))
        y = (Va * ds + 0.5 * w * ds**2) / EA + (np.hypot(H, Vb) - np.hypot(H, Va)) / w
        return np.array([x, y]), Vb

    def equations(z):
        H, V0, sp = z
        r1, V1 = segment(H, V0, sp)
        r2, _ = segment(H, V1 + P, length - sp)
        return [*(r1 + r2 - np.asarray(end)), V1 + P / 2]

    z, _, ok, msg = fsolve(equations, [1.4, -1.6, 0.45], xtol=1e-13, full_output=True)
    assert ok == 1, msg
    assert np.max(np.abs(equations(z))) < 1e-12
    H, V0, sp = z
    point, _ = segment(H, V0, sp)
    return point, H, V0, V0 + w * length + P


def trolley_on_cable(n_elements: int, mass: float = TROLLEY):
    """A point mass on prismatic x / y joints on a frictionless Sliding contact with 004's
    string (linear law), its right support prescribed away from the straight reference."""
    spec = replace(
        table1_string(n_elements),
        law=LinearElastic(EA),
        supports=(Support(0.0, "pinned"), Support(1.0, "pinned", position=RIGHT)),
    )
    model = Model(
        tree=trolley_tree(mass),
        structures={"string": spec},
        contacts=(ContactPair("trolley", Point(1), "string", Sliding(0.0)),),
    )
    return assemble(model)


def test_trolley_on_a_cable_matches_the_elastic_catenary_and_converges(measured):
    """Trolley position and both end reactions against the shooting solution at 8, 16 and 32
    elements. The position of a frictionless point on a string without bending stiffness is
    where the string's tangent is horizontal; the C1 Hermite string rounds the load's kink
    off within the element holding it, so that tangent varies with where in the element the
    point sits (a heavy trolley, 1 kg, erred by 0.013, 0.018, 0.024 m at 8, 16, 64 elements
    in our runs, see the README). With a light trolley the kink is small (P / H = 0.36) and the
    errors measured are 3.0e-3, 2.9e-3, 1.1e-3 m: bound by a tenth of the element length, and
    the error at 32 elements at most half that at 8 (measured 0.36). Reactions: 3.6e-3,
    4.3e-3, 1.8e-3 N of |R| ~ 2 N: bound 0.5 % of |R|, and at 32 elements at most 3/4 of the
    error at 8 (measured 0.51): not monotone, the trolley's position error feeds them."""
    point, H, V0, VL = elastic_catenary(TROLLEY)
    left, right = np.array([-H, -V0]), np.array([H, VL])  # the supports' forces on the cable
    errors, reaction_errors = [], []
    for n in (8, 16, 32):
        system = trolley_on_cable(n)
        guess, _ = system.initial_state((0.4, -0.2))
        state = static_equilibrium(system, guess, load_steps=1)
        string = system.structures["string"].string
        reaction = state.support_reactions["string"]
        r_left = reaction[string.position_dofs[:, 0]]
        r_right = reaction[string.position_dofs[:, -1]]
        errors.append(np.hypot(*(state.q[:2] - point)))
        reaction_errors.append(max(np.hypot(*(r_left - left)), np.hypot(*(r_right - right))))
        measured(
            f"trolley position, {n} elements",
            errors[-1],
            0.1 / n,
            unit="m",
            reference="the elastic catenary with a point load (shooting)",
        )
        measured(
            f"end reactions, {n} elements",
            reaction_errors[-1],
            5e-3 * np.hypot(*right),
            unit="N",
            reference="the elastic catenary with a point load (shooting)",
        )
        # the equilibrium itself, to the solver's tolerance (1e-10 of forces of ~2 N):
        # frictionless, the contact force is the trolley's weight, vertical
        assert state.residual < 1e-8
        assert state.constraint_residual < 1e-10
        assert abs(state.normal_force["trolley"] - TROLLEY * G) < 1e-8
        contact = contact_at(system, 0, state.q, state.u)
        assert abs(contact.normal[0]) < 1e-8
        # the supports, string weight and trolley weight balance (1e-8 N: the solver's tolerance)
        weight = (0.3142 + TROLLEY) * G
        assert np.allclose(r_left + r_right, [0.0, weight], atol=1e-8, rtol=0.0)
    assert errors[2] < 0.5 * errors[0]
    assert reaction_errors[2] < 0.75 * reaction_errors[0]  # measured: 0.51


# -- a mass resting on a cantilever, a pendulum on a spring --------------------------------


def cantilever(n_elements=4):
    return BeamSpec(
        length=0.4,
        youngs_modulus=2.1e11,
        density=4.7e3,
        n_elements=n_elements,
        width=0.01,
        height=0.0015,
        left="clamped",
        right="free",
    )


def mass_on_cantilever(a=0.3, mass=0.05, **joint):
    """A point mass on a vertical prismatic joint at x = a resting (Unilateral) on the
    cantilever of the manipulator example (002 sec. 9)."""
    tree = TreeModel(
        bodies=(Body(mass, 0.0),),
        joints=(Joint("prismatic", location=(a, 0.0), angle=np.pi / 2, **joint),),
    )
    model = Model(
        tree=tree,
        structures={"beam": cantilever()},
        contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),),
    )
    return assemble(model)


def test_mass_resting_on_a_cantilever_matches_the_closed_forms(measured):
    """Deflection under the mass w(a) = P a^3 / (3 EI) + q a^2 (6 L^2 - 4 L a + a^2) / (24 EI)
    (self-weight q), the clamp's shear P + q L and moment P a + q L^2 / 2. Hermite cubics give
    the exact nodal deflections of an Euler-Bernoulli beam under nodal point loads and uniform
    loads (the Green's function is cubic between nodes; a = 0.3 m is a node), so only the
    solver's tolerance (1e-10) and round-off remain: 1e-9 relative. (The load sits inside the
    beam: at the free tip itself the closest point lies on the end, an edge of the projection.)"""
    a, mass, L = 0.3, 0.05, 0.4
    system = mass_on_cantilever(a, mass)
    state = static_equilibrium(system, system.initial_state((0.01,))[0])  # starts 1 cm above
    EI = 2.1e11 * 0.01 * 0.0015**3 / 12
    q = 4.7e3 * 0.01 * 0.0015 * G
    P = mass * G
    w = -(P * a**3 / (3 * EI) + q * a**2 * (6 * L**2 - 4 * L * a + a**2) / (24 * EI))
    assert state.closed == ("mass",)
    measured(
        "deflection under the mass",
        abs(state.q[0] - w),
        1e-9 * abs(w),
        unit="m",
        reference="P a^3 / (3 EI) + q a^2 (6 L^2 - 4 L a + a^2) / (24 EI)",
    )
    # the normal force is normal to the deflected beam; its vertical part carries the weight
    contact = contact_at(system, 0, state.q, state.u)
    assert abs(state.normal_force["mass"] * contact.normal[1] - P) < 1e-9 * P
    reaction = state.support_reactions["beam"]  # (w, w') of the clamped node: shear, moment
    shear, moment = P + q * L, P * a + q * L**2 / 2
    measured("clamp shear", abs(reaction[0] - shear), 1e-9 * shear, unit="N", reference="P + q L")
    measured(
        "clamp moment",
        abs(reaction[1] - moment),
        1e-9 * moment,
        unit="N m",
        reference="P a + q L^2 / 2",
    )


def test_a_mass_held_above_the_beam_by_its_spring_leaves_the_contact_open():
    """A spring k = 100 N/m with rest 0.02 m holds the mass at 0.02 - m g / k = 0.0151 m above
    the beam: the contact, closed at the guess, pulls (tension) and is opened by the active
    set; the beam carries only its weight (exact nodal values as above: 1e-9 relative)."""
    system = mass_on_cantilever(stiffness=100.0, rest=0.02)
    state = static_equilibrium(system, system.initial_state((0.0,))[0])
    assert state.closed == ()
    assert state.normal_force["mass"] == 0.0
    expected = 0.02 - 0.05 * G / 100.0
    assert abs(state.q[0] - expected) < 1e-9 * expected


def pendulum(stiffness=10.0, mass=1.0, arm=0.5, drives=()):
    tree = TreeModel(
        bodies=(Body(mass, 0.0, (arm, 0.0)),), joints=(Joint("revolute", stiffness=stiffness),)
    )
    return assemble(Model(tree=tree, drives=drives))


def test_pendulum_on_a_joint_spring_rests_at_the_transcendental_angle(measured):
    """k theta + m g l cos(theta) = 0 (spring rest 0 along +x, gravity -y), solved by brentq;
    Newton's tolerance 1e-10 of torques ~5 N m over k = 10 N m/rad: 1e-9 rad."""
    k, m, l = 10.0, 1.0, 0.5
    state = static_equilibrium(pendulum(k, m, l))
    theta = brentq(lambda th: k * th + m * G * l * np.cos(th), -np.pi / 2, 0.0, xtol=1e-15)
    measured(
        "rest angle",
        abs(state.q[0] - theta),
        1e-9,
        unit="rad",
        reference="root of k theta + m g l cos(theta) = 0 (brentq)",
    )


def test_a_held_drive_reports_the_holding_torque_and_a_free_one_is_released():
    """Drive at 0.3 rad: the holding torque is k theta + m g l cos(theta) (the joint's
    equation); with drives="free" the pendulum falls to the spring's angle (1e-9 as above)."""
    k, m, l, angle = 10.0, 1.0, 0.5, 0.3
    system = pendulum(k, m, l, (Drive.constant_velocity(0, angle, 0.0),))
    held = static_equilibrium(system)
    assert abs(held.q[0] - angle) < 1e-12
    torque = k * angle + m * G * l * np.cos(angle)
    assert abs(held.reactions["drive_0"] - torque) < 1e-9 * torque
    free = static_equilibrium(system, drives="free")
    theta = brentq(lambda th: k * th + m * G * l * np.cos(th), -np.pi / 2, 0.0, xtol=1e-15)
    assert abs(free.q[0] - theta) < 1e-9
    assert np.isnan(free.multipliers[0])


# -- refused starts ---------------------------------------------------------------------------


def test_a_start_off_a_moved_support_and_off_the_cable_is_refused_by_name():
    """The string in its straight reference while its right support is prescribed at (0.8,
    0.1): the element next to it misses the support by the support's whole displacement,
    |(0.8, 0.1) - (1, 0)| = 0.2236 m; the trolley 0.2 m below the reference line (the string
    straight at y = 0) has a gap of -0.2 m. Both are named before any step, with residuals.
    The static state of the same system starts and runs."""
    system = trolley_on_cable(8)
    q0, u0 = system.initial_state((0.4, -0.2))
    with pytest.raises(ValueError) as info:
        simulate(system, (0.0, 0.01), (q0, u0), h=1e-3)
    text = str(info.value)
    moved = np.hypot(0.8 - 1.0, 0.1)
    assert "support 1 (pinned at s = 1 m) of string 'string'" in text
    assert f"{moved:.3e} m" in text
    assert f"contact 'trolley' violated by {0.2:.3e} m" in text
    state = static_equilibrium(system, q0, load_steps=1)
    result = simulate(system, (0.0, 0.005), (state.q, state.u), h=1e-3)
    assert result.success, result.message


def test_a_start_off_its_drive_is_refused_by_name():
    """A pendulum driven to 0.3 rad started at 0: drive 'drive_0' violated by 3.000e-01 rad."""
    system = pendulum(drives=(Drive.constant_velocity(0, 0.3, 0.0),))
    q0, u0 = system.initial_state()
    with pytest.raises(ValueError, match=r"drive 'drive_0' violated by 3\.000e-01 rad"):
        simulate(system, (0.0, 0.01), (q0, u0), h=1e-3)
    with pytest.raises(ValueError, match=r"drive 'drive_0' violated"):
        simulate(system, (0.0, 0.01), (q0, u0), method="moreau", h=1e-3)


# -- model files ------------------------------------------------------------------------------


def test_static_start_in_a_model_file_is_the_python_static_state(tmp_path):
    """[initial] static = true (with the tree's guess) gives the state of static_equilibrium:
    the same computation, so equal to round-off (1e-12 m)."""
    system = mass_on_cantilever()
    guess = system.initial_state((0.01,))[0]
    expected = static_equilibrium(system, guess)
    run = ModelFile(
        system.model,
        Simulation(0.01, method="moreau", h=1e-3),
        InitialState(tree_q=(0.01,), static=True),
    )
    path = save_model(run, tmp_path / "mass.toml")
    assert "static = true" in path.read_text()
    loaded = load_model(path)
    assert loaded.initial.static
    prepared = prepare(loaded)
    assert np.allclose(prepared.q0, expected.q, rtol=0.0, atol=1e-12)
    assert not np.any(prepared.u0)
    # and it is at rest for the stepper: the force residual (1e-10 of ~0.5 N) accelerates the
    # 0.05 kg mass by ~1e-9 m/s^2, i.e. ~1e-11 m/s in 0.02 s; bound 1e-8 m/s
    result = simulate(prepared.system, (0.0, 0.02), (prepared.q0, prepared.u0), "moreau", h=1e-3)
    assert result.success, result.message
    assert np.max(np.abs(result.u)) < 1e-8
    final = result["mass_normal_force"][-1]
    assert abs(final - expected.normal_force["mass"]) < 1e-8 * expected.normal_force["mass"]


def test_static_start_is_validated_like_the_other_tables():
    """A non-boolean static and a static start with velocities are problems of
    initial.static."""
    base = model_document(pendulum().model)
    with pytest.raises(ModelFileError, match=r"initial\.static"):
        parse_document({**base, "initial": {"static": "yes"}})
    with pytest.raises(ModelFileError, match=r"initial\.static.*no velocities"):
        parse_document({**base, "initial": {"static": True, "tree_u": [0.0]}})
    loaded = parse_document({**base, "initial": {"static": True}})
    assert loaded.initial.static


def test_a_model_without_equilibrium_fails_with_the_load_factor_and_residual():
    """A point mass on a vertical prismatic joint with nothing holding it has no static state:
    StaticEquilibriumError names the phase, the load factor reached and the residual (its
    weight, m g = 9.81 N, at most: nothing balances it)."""
    tree = TreeModel(bodies=(Body(1.0, 0.0),), joints=(Joint("prismatic", angle=np.pi / 2),))
    system = assemble(Model(tree=tree))
    with pytest.raises(StaticEquilibriumError) as info:
        static_equilibrium(system, load_steps=2, max_iterations=5)
    err = info.value
    assert err.phase == "load"
    assert 0.0 < err.load_factor <= 1.0
    assert 0.0 < err.residual <= G * (1.0 + 1e-12)
    assert "load factor" in str(err) and "force residual" in str(err)
    assert isinstance(err, StaticSolveError)  # one except clause catches either static solve


def test_a_model_file_whose_start_contradicts_a_drive_is_refused_before_the_run():
    """``fe-contact run`` prepares a run before any work: the drive's residual 0.3 rad is a
    problem of [initial]; with static = true the same file starts on the drive."""
    system = pendulum(drives=(Drive.constant_velocity(0, 0.3, 0.0),))
    doc = model_document(system.model, Simulation(0.01, h=1e-3), InitialState(tree_q=(0.0,)))
    with pytest.raises(ModelFileError, match=r"drive 'drive_0' violated by 3\.000e-01 rad"):
        prepare(parse_document(doc))
    doc["initial"]["static"] = True
    prepared = prepare(parse_document(doc))
    assert abs(prepared.q0[0] - 0.3) < 1e-12


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("load_steps", 0),
        ("drives", "loose"),
        ("t", float("nan")),
        ("tol", -1.0),
        ("max_iterations", 0),
        ("q_guess", [0.0, 0.0]),
    ],
)
def test_bad_input_is_rejected_naming_the_parameter(name, value):
    with pytest.raises((ValueError, TypeError), match=rf"static_equilibrium\.{name}"):
        static_equilibrium(pendulum(), **{name: value})
    with pytest.raises(TypeError, match=r"static_equilibrium\.system"):
        static_equilibrium(pendulum().model)
