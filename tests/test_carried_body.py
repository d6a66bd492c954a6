"""Rigid bodies carried by a beam (model.CarriedBody): a cantilever with a tip body."""

import numpy as np
import pytest
import scipy.linalg as la
from scipy.optimize import brentq

from fe_contact.coupling.frames import body_frame
from fe_contact.elements.beam import BeamSpec
from fe_contact.model import CarriedBody, Model
from fe_contact.system import assemble

L, EI, MASS_PER_LENGTH = 2.4, 23.0e3, 1.6  # Bauchau (000) Table 1, property set 1


def cantilever(tip_mass, tip_inertia, n_elements=12, gravity=(0.0, -9.81)):
    spec = BeamSpec(
        length=L,
        youngs_modulus=EI / 1e-6,
        density=MASS_PER_LENGTH / 1e-3,
        area=1e-3,
        second_moment=1e-6,
        n_elements=n_elements,
    )
    body = CarriedBody("tip", "beam", L, tip_mass, tip_inertia)
    model = Model(
        structures={"beam": spec}, carried=(body,), gravity=gravity, structure_gravity=False
    )
    return assemble(model)


def test_tip_body_weight_gives_the_cantilever_deflection():
    """Tip deflection under the carried body's weight: -m g L^3 / (3 EI), and the slope
    -m g L^2 / (2 EI); cubic Hermite elements are exact at the nodes (tolerance 1e-10)."""
    system = cantilever(40.0, 0.5)
    beam = system.structures["beam"]
    q = np.linalg.solve(beam.stiffness_matrix.toarray(), beam.load)
    u = np.zeros_like(q)
    frame = body_frame(system, "tip", q, u)
    weight = 40.0 * 9.81
    assert np.isclose(frame.origin[1], -weight * L**3 / (3 * EI), rtol=1e-10)
    assert np.isclose(np.tan(frame.angle), -weight * L**2 / (2 * EI), rtol=1e-10)


def tip_mass_frequency(mass, inertia):
    """First bending frequency (rad/s) of an Euler-Bernoulli cantilever with a tip mass M and
    rotary inertia J: w = a cos bx + b sin bx + c cosh bx + d sinh bx with w(0) = w'(0) = 0,
    EI w''(L) = J omega^2 w'(L), EI w'''(L) = -M omega^2 w(L), omega^2 = b^4 EI / m; the
    lowest root of the determinant."""

    def det(b):
        om2 = b**4 * EI / MASS_PER_LENGTH
        x = b * L
        c, s, ch, sh = np.cos(x), np.sin(x), np.cosh(x), np.sinh(x)
        w = np.array([c, s, ch, sh])
        w1 = b * np.array([-s, c, sh, ch])
        w2 = b**2 * np.array([-c, -s, ch, sh])
        w3 = b**3 * np.array([s, -c, sh, ch])
        rows = [[1, 0, 1, 0], [0, 1, 0, 1], EI * w2 - inertia * om2 * w1, EI * w3 + mass * om2 * w]
        return np.linalg.det(np.array(rows, dtype=float)) / (1.0 + np.cosh(x)) ** 2

    grid = np.linspace(0.05, 4.0 / L, 4000)
    values = [det(b) for b in grid]
    i = next(i for i in range(len(grid) - 1) if values[i] * values[i + 1] < 0)
    b = brentq(det, grid[i], grid[i + 1], xtol=1e-14)
    return b**2 * np.sqrt(EI / MASS_PER_LENGTH)


@pytest.mark.parametrize("inertia", [0.0, 2.0])
def test_first_frequency_with_a_tip_body(inertia, measured):
    """The first frequency of the assembled mass and stiffness (beam + carried body of 40 kg
    and J = 0 or 2 kg m^2) against the tip-mass frequency equation; 12 cubic elements converge
    to 1e-6 relative (tolerance 1e-5)."""
    system = cantilever(40.0, inertia)
    beam = system.structures["beam"]
    omega2 = la.eigh(beam.stiffness_matrix.toarray(), beam.mass_matrix.toarray(), eigvals_only=True)
    exact = tip_mass_frequency(40.0, inertia)
    measured.close(  # np.isclose's criterion: its default atol 1e-8 kept
        "first frequency with the tip body",
        np.sqrt(omega2[0]),
        exact,
        rtol=1e-5,
        atol=1e-8,
        unit="rad/s",
        reference="the root of the cantilever's frequency equation with a tip mass and inertia",
    )
    if inertia:  # the rotary inertia lowers it against the point mass alone
        assert exact < tip_mass_frequency(40.0, 0.0) * (1 - 1e-3)


def test_carried_body_on_a_string_without_inertia_only():
    from fe_contact.elements.string import StringSpec
    from fe_contact.elements.tension import LinearElastic

    spec = StringSpec(length=1.0, n_elements=2, density=1.0, law=LinearElastic(100.0))
    with pytest.raises(ValueError, match="inertia"):
        Model(structures={"s": spec}, carried=(CarriedBody("b", "s", 0.5, 1.0, 0.1),))


def test_a_pad_carried_by_one_cantilever_rests_on_another_with_the_closed_form_force():
    """A curved pad carried at the tip of cantilever a (length L; the pad a body named by a
    str) pressed by a tip load P onto cantilever b (the same section, root L + a away) at a
    from b's root: the compliances L^3 / 3EI and a^3 / 3EI share the load, the contact force
    is P L^3 / (L^3 + a^3) (the gallery's two-beam example, through ``static_equilibrium``).
    Tolerance 1e-3 relative: the pad's curvature and the beams' slopes at the contact move the
    force at second order in the deflection."""
    from fe_contact import ContactPair, PointLoad, Unilateral, static_equilibrium
    from fe_contact.curves import Curve
    from fe_contact.model import Profile

    L, a, P, pad = 0.3, 0.2, 1.0, 0.01
    strip = dict(n_elements=8, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015)
    beam_a = BeamSpec(length=L, origin=(0.0, pad), **strip)
    beam_b = BeamSpec(length=L, origin=(L + a, 0.0), angle=np.pi, **strip)
    curve = Curve.bezier([(-0.01, -0.8 * pad), (0.0, -1.2 * pad), (0.01, -0.8 * pad)])
    model = Model(
        structures={"a": beam_a, "b": beam_b},
        carried=(CarriedBody("pad", "a", L, mass=1e-3),),
        contacts=(ContactPair("pad", Profile("pad", curve), "b", Unilateral(), side=-1),),
        loads=(PointLoad("a", L, (0.0, -P)),),
        gravity=(0.0, 0.0),
    )
    rest = static_equilibrium(assemble(model))
    closed_form = P * L**3 / (L**3 + a**3)
    assert abs(rest.normal_force["pad"] - closed_form) <= 1e-3 * closed_form
