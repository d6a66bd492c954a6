"""A closed (periodic) absolute-nodal string: ``StringSpec(..., closed=True)``.

The ring: reference radius R0 = 0.5 m, rho0 A = 0.2 kg/m, EA = 100 N, no gravity. Spinning
rigidly at omega with radius R = nu R0 it is a relative equilibrium when the hoop tension
T = EA (nu - 1) gives the centripetal force of each piece: per unit reference length
T nu / R = rho0 A omega^2 R (the tension's resultant T times the current curvature 1 / R times
the current length nu ds of the piece), so T = (rho0 A / nu) v^2 = rho A v^2 with v = omega R
and rho A = rho0 A / nu the current line density (the classical hoop tension of a spinning
ring, derived again by sympy below). With nu = 1.02: T = 2 N, omega = 6.26 rad/s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fe_contact import LinearElastic, Model, StringSpec, Support, assemble
from fe_contact.elements.string import CurveReference, assemble_string, string_points_at
from fe_contact.steppers.simulate import simulate

R0 = 0.5  # m
RHO = 0.2  # kg/m
EA = 100.0  # N
NU = 1.02
EPS = np.finfo(float).eps


def ring_reference(radius: float = R0) -> CurveReference:
    return CurveReference(
        position=lambda s: radius * np.array([np.cos(s / radius), np.sin(s / radius)]),
        slope=lambda s: np.array([-np.sin(s / radius), np.cos(s / radius)]),
    )


def ring_spec(n_elements: int = 16, **extra) -> StringSpec:
    return StringSpec(
        length=2.0 * math.pi * R0,
        n_elements=n_elements,
        density=RHO,
        law=LinearElastic(EA),
        reference=ring_reference(),
        gravity=(0.0, 0.0),
        closed=True,
        **extra,
    )


def spin_omega(nu: float = NU) -> float:
    """omega of the spinning ring: EA (nu - 1) = rho0 A omega^2 R^2 / nu, R = nu R0."""
    return math.sqrt(EA * (nu - 1.0) * nu / (RHO * (nu * R0) ** 2))


def spinning_start(system, omega: float, nu: float = NU, drift=(0.0, 0.0)):
    """The reference scaled by nu, turning rigidly at omega (positions and slopes turn), plus
    a uniform velocity ``drift`` (m/s)."""
    structure = system.structures["ring"]
    q = nu * structure.initial_coordinates()
    u = np.empty_like(q)
    u[0::2], u[1::2] = -omega * q[1::2], omega * q[0::2]  # each (x, y) pair turned by +90 deg
    string = structure.string
    position = structure.free_index[string.position_dofs[:, :-1]]
    u[position[0]] += drift[0]
    u[position[1]] += drift[1]
    return q, u


def ring_system(n_elements: int = 16, **extra):
    return assemble(Model(structures={"ring": ring_spec(n_elements, **extra)}, gravity=(0, 0)))


def test_hoop_tension_closed_form_by_sympy(measured):
    """The relative equilibrium's tension from the radial balance of a piece, by sympy:
    T nu / R = rho0 omega^2 R with R = nu R0 gives T = rho0 v^2 / nu; at T = EA (nu - 1) the
    module's omega (relative 1e-14: a square root and a few products in doubles)."""
    import sympy

    t, nu, r0, rho, w = sympy.symbols("T nu R0 rho omega", positive=True)
    radius = nu * r0
    tension = sympy.solve(sympy.Eq(t * nu / radius, rho * w**2 * radius), t)[0]
    assert sympy.simplify(tension - rho / nu * (w * radius) ** 2) == 0
    omega = sympy.solve(sympy.Eq(tension, EA * (nu - 1)), w)[0]
    got = float(omega.subs({nu: NU, r0: R0, rho: RHO}))
    measured.close(
        "spin rate", spin_omega(), got, rtol=1e-14, unit="rad/s", reference="sympy: T = EA (nu - 1)"
    )


def test_closed_ring_has_no_duplicated_node(measured):
    """n elements, n nodes of 4 unknowns; the last node repeats the first in the full vector;
    the mass matrix's translation mode carries rho0 A times the interpolated reference's
    length (1e-13: the same quadrature summed two ways), and that length tends to 2 pi R0 at
    the fourth order of the Hermite cubics (measured -5.2e-4, -3.3e-5, -2.1e-6 at 8, 16, 32
    elements: the error falls by more than 14 per halving, 16 for h^4)."""
    system = ring_system(16)
    ring = system.structures["ring"]
    assert ring.n_dofs == 4 * 16
    full = ring.full(ring.initial_coordinates())
    nodal = ring.string.basis.nodal_dofs
    assert np.array_equal(full[nodal[:, -1]], full[nodal[:, 0]])
    e_x = np.zeros(ring.n_dofs)
    e_x[ring.free_index[ring.string.position_dofs[0, :-1]]] = 1.0
    mass = float(e_x @ ring.mass_matrix @ e_x)
    measured.close(
        "translation mode's mass",
        mass,
        RHO * ring.string.rest_length,
        rtol=1e-13,
        unit="kg",
        reference="rho0 A times the reference's length",
    )
    errors = [
        abs(assemble_string(ring_spec(n)).rest_length / (2 * math.pi * R0) - 1.0) for n in (16, 32)
    ]
    measured(
        "ring length, 16 elements",
        errors[0],
        5e-5,
        unit="relative",
        reference="2 pi R0",
    )
    assert errors[0] / errors[1] > 14.0


def test_uniform_stretch_has_uniform_tension_and_reduced_tangent(measured):
    """The ring scaled by nu: the stretch is nu at every point (r' = nu r_ref', exactly), the
    tension EA (nu - 1) to 1e3 eps of its size (stretch ratio of two norms); the reduced
    internal force is the gradient of the strain energy (central difference, 1e-6 relative)
    and the tangent the derivative of the force (central difference, 1e-6 relative)."""
    system = ring_system(8)
    ring = system.structures["ring"]
    q = NU * ring.initial_coordinates()
    s = np.linspace(0.0, ring.length, 41)
    at = string_points_at(ring.string, ring.full(q), s)
    measured(
        "tension of the uniform stretch",
        np.max(np.abs(at.tension - EA * (NU - 1.0))),
        1e3 * EPS * EA,
        unit="N",
        reference="EA (nu - 1)",
    )
    rng = np.random.default_rng(0)
    q = q + 1e-3 * rng.standard_normal(q.size)
    dq = rng.standard_normal(q.size)
    step = 1e-6
    grad = (ring.elastic_energy(q + step * dq) - ring.elastic_energy(q - step * dq)) / (2 * step)
    measured.close(
        "internal force vs energy gradient",
        float(ring.internal_force(q) @ dq),
        grad,
        rtol=1e-6,
        unit="N m",
        reference="central difference of the strain energy",
    )
    df = (ring.internal_force(q + step * dq) - ring.internal_force(q - step * dq)) / (2 * step)
    k = ring.tangent_stiffness(q) @ dq
    measured(
        "tangent vs force derivative",
        np.max(np.abs(k - df)),
        1e-6 * np.max(np.abs(k)),
        unit="N",
        reference="central difference of the internal force",
    )


def test_closed_string_refuses_what_cannot_close():
    with pytest.raises(ValueError, match="StringSpec.reference"):
        StringSpec(length=1.0, n_elements=4, density=0.1, law=LinearElastic(1.0), closed=True)
    with pytest.raises(ValueError, match=r"StringSpec.supports\[0\].s"):
        ring_spec(supports=(Support(2.0 * math.pi * R0),))
    with pytest.raises(TypeError, match="StringSpec.closed"):
        ring_spec().__class__(
            length=1.0, n_elements=4, density=0.1, law=LinearElastic(1.0), closed="yes"
        )
    half = CurveReference(
        position=lambda s: np.array([np.cos(s), np.sin(s)]),
        slope=lambda s: np.array([-np.sin(s), np.cos(s)]),
    )
    open_arc = StringSpec(length=math.pi, n_elements=4, density=0.1, law=LinearElastic(1.0),
                          reference=half, closed=True)  # fmt: skip
    with pytest.raises(ValueError, match="close on itself"):
        assemble_string(open_arc)


def test_closest_point_and_grid_wrap(measured):
    """The closest material point wraps across s = 0 = L (a point just below the +x axis is
    nearest to s = L - small); the candidate grid has no candidate twice at s = 0 and L."""
    system = ring_system(16)
    ring = system.structures["ring"]
    q = ring.initial_coordinates()
    s, point = ring.closest((0.6, -0.01), q, s_guess=0.05)
    assert point is not None
    # the interpolated circle's parameter differs from the arc length R0 angle by up to its
    # length's error, 1.0e-4 m at 16 elements (test above)
    measured(
        "closest point's parameter",
        abs(s - (ring.length + math.atan2(-0.01, 0.6) * R0)),
        1e-4,
        unit="m",
        reference="L + R0 atan2(-0.01, 0.6)",
    )
    assert 0.0 <= s < ring.length
    rows = ring.point_rows(np.array([0.0, ring.length, ring.length + 0.1]))
    pos = rows.positions(q)
    measured(
        "point at s = L vs s = 0",
        np.max(np.abs(pos[0] - pos[1])),
        10 * EPS * R0,
        unit="m",
        reference="the same node",
    )


@pytest.mark.parametrize("method", ["generalized-alpha", "moreau"])
def test_spinning_ring_keeps_hoop_tension_and_momentum(method, measured):
    """The ring spinning at omega from the scaled reference, drifting at 0.3 m/s along x, for
    a quarter turn (0.25 s, h = 1e-3 s) under the trapezoidal rule (generalised-alpha,
    rho_inf = 1, energy-consistent) and under Moreau-Jean at theta = 1/2 (the banded LU on
    the folded numbering):

    * linear momentum (the translation modes' rows of M u) constant to 1e3 eps of the
      momentum's scale m v (the forces are translation invariant to round-off, so each step
      changes it by round-off; 250 steps of a few hundred terms);
    * the tension at 64 points stays rho A v^2 = EA (nu - 1) = 2 N within 2e-3 relative (the
      start, the continuous ring's equilibrium, rings the discrete one's axial modes a little;
      measured 6.1e-4 under Moreau-Jean at h = 1e-3 s, 2.7e-4 at 5e-4 s);
    * the energy: to 1e-12 of the kinetic energy with the energy-consistent trapezoidal rule
      (its discrete gradient makes it exact to round-off), and under Moreau-Jean
      ``energy_error`` below 1e-8 of it and falling with h^2 (O(h^3) per step on strings;
      measured 3.2e-9 at h = 1e-3 s and 2.0e-11 at 5e-4 s: a ratio above 3 is asserted).
    """
    system = ring_system(16)
    omega = spin_omega()
    q0, u0 = spinning_start(system, omega, drift=(0.3, 0.0))
    ring = system.structures["ring"]
    settings = (
        {"rho_inf": 1.0, "energy_consistent": True} if method == "generalized-alpha" else
        {"theta": 0.5}
    )  # fmt: skip
    result = simulate(system, (0.0, 0.25), (q0, u0), method=method, h=1e-3, **settings)
    assert result.success, result.message
    modes = np.zeros((ring.n_dofs, 2))
    for c in range(2):
        modes[ring.free_index[ring.string.position_dofs[c, :-1]], c] = 1.0
    momentum = np.array([modes.T @ (ring.mass_matrix @ u) for u in result.u])
    mass = RHO * ring.string.rest_length
    measured.close(
        "initial momentum",
        momentum[0],
        [0.3 * mass, 0.0],
        atol=1e3 * EPS * mass,
        unit="kg m/s",
        reference="m (0.3 m/s, 0)",
    )
    measured(
        "momentum drift",
        np.max(np.abs(momentum - momentum[0])),
        1e3 * EPS * mass * omega * NU * R0,
        unit="kg m/s",
        reference="constant momentum (invariant)",
    )
    s = np.linspace(0.0, ring.length, 64, endpoint=False)
    tension = EA * (NU - 1.0)
    speed = omega * NU * R0
    measured.close(
        "rho A v^2 vs EA (nu - 1)",
        RHO / NU * speed**2,
        tension,
        rtol=1e-13,
        unit="N",
        reference="EA (nu - 1)",
    )
    worst = 0.0  # the largest tension error over 6 rows of 64 points
    for q in result.q[:: len(result.q) // 5]:
        at = string_points_at(ring.string, ring.full(q), s)
        worst = max(worst, np.max(np.abs(at.tension - tension)))
    measured(
        "hoop tension over a quarter turn",
        worst,
        2e-3 * tension,
        unit="N",
        reference="rho A v^2 = EA (nu - 1) (closed form, sympy)",
    )
    kinetic = 0.5 * mass * (speed**2 + 0.3**2)
    if method == "generalized-alpha":
        energy = np.asarray(result["kinetic_energy"]) + np.asarray(result["elastic_energy"])
        measured(
            "energy drift",
            np.max(np.abs(energy - energy[0])),
            1e-12 * kinetic,
            unit="J",
            reference="conserved energy",
        )
    else:
        error = np.max(np.abs(result["energy_error"]))
        measured(
            "energy balance error",
            error,
            1e-8 * kinetic,
            unit="J",
            reference="energy balance (invariant)",
        )
        finer = simulate(system, (0.0, 0.25), (q0, u0), method=method, h=5e-4, **settings)
        assert error / np.max(np.abs(finer["energy_error"])) > 3.0


def test_closed_ring_round_trips_through_a_model_file(tmp_path):
    """A closed ring on a NodalReference (the model file's reference) is written with
    ``closed = true`` and read back to the same spec and the same assembled unknowns."""
    from fe_contact.elements.string import NodalReference
    from fe_contact.io.model_file import load_model, save_model

    nodes = np.linspace(0.0, 2.0 * math.pi * R0, 9)
    ref = ring_reference()
    nodal = NodalReference(positions=ref.position(nodes), slopes=ref.slope(nodes))
    spec = ring_spec(8)
    spec = StringSpec(**{**{f: getattr(spec, f) for f in ("length", "n_elements", "density")},
                         "law": spec.law, "reference": nodal, "closed": True})  # fmt: skip
    model = Model(structures={"ring": spec})
    back = load_model(save_model(model, tmp_path / "ring.toml")).model.structures["ring"]
    assert back.closed is True
    assert np.array_equal(back.reference.positions, nodal.positions)
    assert assemble(Model(structures={"ring": back})).structures["ring"].n_dofs == 4 * 8


def test_paraview_polyline_closes(measured):
    """The ParaView block of a closed ring: its polyline ends where it starts (the sample at
    s = L is the node s = 0 again: equal to 10 eps R0, two evaluations of the same cubic at its
    two ends), and its samples lie on the scaled ring to the interpolation error (within
    1e-4 R0: measured 6.3e-5 R0 mid-element, a cubic on 22.5 degrees of arc)."""
    from fe_contact.io.vtk import structure_block

    system = ring_system(16)
    ring = system.structures["ring"]
    q = NU * ring.initial_coordinates()
    block = structure_block(system, "ring", q)
    points = np.asarray(block.points)
    measured(
        "polyline's end vs its start",
        np.max(np.abs(points[-1] - points[0])),
        10 * EPS * R0,
        unit="m",
        reference="the same node",
    )
    radius = np.hypot(points[:, 0], points[:, 1])
    measured(
        "sample radius",
        np.max(np.abs(radius - NU * R0)),
        1e-4 * R0,
        unit="m",
        reference="nu R0",
    )
