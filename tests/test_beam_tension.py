"""Axial pre-tension of the Euler-Bernoulli beam (``BeamSpec.axial_force``): the geometric
stiffness N int w' v' dx against the closed forms of the tensioned string-beam.

Pinned-pinned, EI w'''' - N w'' + rho A w_tt = 0 has the modes sin(n pi x / L) with
omega_n = (n pi / L)^2 sqrt(EI / (rho A)) sqrt(1 + N L^2 / (EI n^2 pi^2)), whatever the sign of N
above the buckling load N_cr = -pi^2 EI / L^2. A central point load P deflects the tensioned
beam by w(L/2) = P / (2 N k) (k L / 2 - tanh(k L / 2)), k = sqrt(N / EI) (Timoshenko; its limit
N -> 0 is P L^3 / (48 EI)).
"""

import math

import numpy as np
import pytest
import scipy.linalg

from fe_contact import Model
from fe_contact.elements.beam import (
    BeamSpec,
    assemble_beam,
    beam_fields,
    point_load,
    static_deflection,
)
from fe_contact.io.model_file import load_model, save_model

# MISSION's manipulator strip: EI = 0.5906 N m^2, rho A = 0.0705 kg/m, L = 0.4 m
EI, RHO_A, L = 0.5906, 0.0705, 0.4
N_CR = math.pi**2 * EI / L**2  # 36.4 N, the pinned-pinned buckling load
EPS = np.finfo(float).eps


def pinned(n_elements: int, axial_force: float, **changes) -> BeamSpec:
    base = dict(length=L, youngs_modulus=1.0, density=1.0, area=RHO_A, second_moment=EI)
    base.update(left="pinned", right="pinned", n_elements=n_elements, axial_force=axial_force)
    return BeamSpec(**{**base, **changes})


def omega_exact(n, axial_force):
    n = np.asarray(n, dtype=float)
    bending = (n * np.pi / L) ** 2 * np.sqrt(EI / RHO_A)
    return bending * np.sqrt(1.0 + axial_force * L**2 / (EI * n**2 * np.pi**2))


def lowest_omegas(spec: BeamSpec, k: int) -> tuple[np.ndarray, float]:
    """The k lowest omega of (K, M) on the free DOFs (dense scipy eigh) and the round-off bound
    of their relative error: eigh's absolute eigenvalue error is ~ eps |K| / |M| ~ eps
    omega_max^2, so omega_n loses eps (omega_max / omega_n)^2 / 2 relative; 100 times that."""
    beam = assemble_beam(spec)
    w2 = scipy.linalg.eigh(
        beam.reduced("stiffness").toarray(), beam.reduced("mass").toarray(), eigvals_only=True
    )
    omega = np.sqrt(w2[:k])
    return omega, 100.0 * EPS * w2[-1] / w2[0]


@pytest.mark.parametrize("ratio", [2.0, 0.5, -0.5])  # N / |N_cr|: tension, compression
def test_pinned_frequencies_match_the_tensioned_beam(ratio, measured):
    """omega_1..4 of 20 Hermite elements against the closed form. The consistent-mass
    Rayleigh-Ritz frequencies lie above the exact ones (K + N K_G is the exact energy on the
    conforming cubics) by an error of order (k_n l_e)^4, k_n = n pi / L: bounded here by
    (k_n l_e)^4 / 1000, which the measured errors (1.4e-7 for n = 1 to 9.5e-5 for n = 4 at
    N = 2 |N_cr|) meet with a margin of 1.6-4; under compression the error of the energies
    stays that of the bending energy while omega^2 falls by 1 + N L^2 / (EI n^2 pi^2), so the
    bound grows by its reciprocal (n = 1 at N = -|N_cr| / 2: 8.4e-7 against 1.2e-6); below,
    only the eigensolver's round-off."""
    axial = ratio * N_CR
    n = np.arange(1, 5)
    omega, roundoff = lowest_omegas(pinned(20, axial), 4)
    error = omega / omega_exact(n, axial) - 1.0
    softening = np.maximum(1.0, 1.0 / (1.0 + axial * L**2 / (EI * n**2 * np.pi**2)))
    discretisation = (n * np.pi / L * (L / 20)) ** 4 / 1000.0 * softening
    assert np.all(error >= -roundoff), error
    measured.each(
        "omega_1..4 / exact - 1, 20 elements",
        error,
        discretisation,
        reference="omega_n = (n pi / L)^2 sqrt(EI / rho A) sqrt(1 + N L^2 / (EI n^2 pi^2))",
    )


def test_frequency_error_falls_as_the_fourth_power_of_the_element_length():
    """Halving l_e divides the frequency error by 2^4 = 16 (cubic Hermite elements): the
    geometric stiffness converges at the rate of the bending one. Measured 15.5-16.0 from 10
    to 20 elements for n = 1..4; [12, 20] admits that rate and no other (h^2: 4, h^6: 64)."""
    axial = 2.0 * N_CR
    exact = omega_exact(np.arange(1, 5), axial)
    coarse = lowest_omegas(pinned(10, axial), 4)[0] / exact - 1.0
    fine = lowest_omegas(pinned(20, axial), 4)[0] / exact - 1.0
    assert np.all((coarse / fine > 12.0) & (coarse / fine < 20.0)), coarse / fine


def test_central_load_deflects_the_tensioned_beam_as_the_closed_form(measured):
    """w(L/2) under P = 1 N with N = 2 |N_cr| (k L / 2 = 2.2): 20 elements give 1.2e-6 relative
    error (falling as l_e^4, the shape functions are not the sinh solution of the tensioned
    beam): tolerance 1e-5. Without tension the same solve is the nodally exact P L^3 / (48 EI)."""
    axial, force = 2.0 * N_CR, 1.0
    beam = assemble_beam(pinned(20, axial))
    w = beam_fields(beam, static_deflection(beam, point_load(beam, L / 2, force)), [L / 2])
    k = math.sqrt(axial / EI)
    exact = force / (2.0 * axial * k) * (k * L / 2 - math.tanh(k * L / 2))
    measured(
        "midspan deflection under P (relative)",
        abs(w.deflection[0] / exact - 1.0),
        1e-5,
        reference="P / (2 N k) (k L / 2 - tanh(k L / 2)), k = sqrt(N / EI)",
    )
    # a tension stiffens: the deflection is below the untensioned one, by the closed form's
    # ratio 0.39 here
    assert exact < 0.5 * force * L**3 / (48.0 * EI)


@pytest.mark.parametrize(
    "supports, critical",
    [(("pinned", "pinned"), N_CR), (("clamped", "free"), N_CR / 4.0)],
)
def test_compression_beyond_buckling_is_refused(supports, critical):
    """A compression just below the buckling load of the supports (pinned-pinned pi^2 EI /
    L^2, cantilever pi^2 EI / (4 L^2)) assembles; 1 % beyond it is refused, naming the
    parameter (the discrete buckling load lies above the exact one by ~1e-7 relative with 20
    elements: 1 % is far outside that)."""
    left, right = supports
    assemble_beam(pinned(20, -0.99 * critical, left=left, right=right))
    with pytest.raises(ValueError, match=r"BeamSpec\.axial_force.*buckling"):
        assemble_beam(pinned(20, -1.01 * critical, left=left, right=right))


def test_a_free_beam_buckles_under_any_compression():
    """Pinned-free: the rigid rotation about the pin has no bending stiffness, so any
    compression makes it unstable (an inverted pendulum); a tension is allowed."""
    assemble_beam(pinned(4, 1.0, right="free"))
    with pytest.raises(ValueError, match=r"BeamSpec\.axial_force"):
        assemble_beam(pinned(4, -1e-3, right="free"))


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_axial_force_is_refused(value):
    with pytest.raises(ValueError, match=r"BeamSpec\.axial_force: got .*allowed: a finite"):
        pinned(4, value)


def test_axial_force_round_trips_through_a_model_file(tmp_path):
    model = Model(structures={"wire": pinned(8, 12.5)})
    loaded = load_model(save_model(model, tmp_path / "wire.toml")).model
    assert loaded.structures["wire"].axial_force == 12.5
    assert loaded == model


def test_every_beam_parameter_is_a_key_of_the_model_file():
    """The file's beam table is the BeamSpec fields (``axial_force`` among them), so that a new
    beam parameter needs no edit of the model-file code."""
    import dataclasses

    from fe_contact.io.model_parts import STRUCTURES, fields_of

    keys = fields_of(STRUCTURES["beam"])
    assert {f.name for f in dataclasses.fields(BeamSpec)} == set(keys)
    assert keys["axial_force"][1] == 0.0


@pytest.mark.parametrize(
    "value, message", [("nan", "a finite number"), ('"taut"', "a finite number")]
)
def test_a_bad_axial_force_in_a_model_file_is_named(tmp_path, value, message):
    from fe_contact.io.model_file import ModelFileError

    path = save_model(Model(structures={"wire": pinned(8, 12.5)}), tmp_path / "wire.toml")
    path.write_text(path.read_text().replace("axial_force = 12.5", f"axial_force = {value}"))
    with pytest.raises(ModelFileError, match=f"axial_force.*{message}"):
        load_model(path)
