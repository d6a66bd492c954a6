"""The Painleve margin of the Delassus blocks, defined once (``kernels.dense.painleve_margin``,
called by the compiled loop and, through ``partitioned_step.margin_of``, by the Python step),
against the eigenvalues computed by LAPACK."""

import numpy as np
import pytest

from fe_contact.kernels.dense import painleve_margin
from fe_contact.steppers.partitioned_step import margin_of

EPS = np.finfo(float).eps


def _exact(D0, D):
    """min Re eig(D) / max |eig(sym D0)| by LAPACK (the definition)."""
    scale = np.max(np.abs(np.linalg.eigvalsh(0.5 * (D0 + D0.T))))
    return np.min(np.real(np.linalg.eigvals(D))) / scale


def _blocks(rng, m):
    """A symmetric positive definite D0 = J M^-1 J^T and D = D0 + a friction part J M^-1 (mu
    t)^T, as the step forms them, for m rows over 2 m + 1 coordinates."""
    n = 2 * m + 1
    J = rng.normal(size=(m, n))
    Minv = np.diag(rng.uniform(0.5, 2.0, n))
    T = rng.normal(size=(m, n))
    mu = rng.uniform(0.0, 0.8)
    return J @ Minv @ J.T, J @ Minv @ (J + mu * T).T


@pytest.mark.parametrize("m", [1, 2])
def test_closed_form_equals_the_eigenvalues_up_to_two_rows(m, measured):
    rng = np.random.default_rng(7 + m)
    kernel, python, bounds = [], [], []
    for _ in range(200):
        D0, D = _blocks(rng, m)
        exact = _exact(D0, D)
        # the closed form (trace and determinant, then a square root) and LAPACK round
        # differently; both are within a few eps of the blocks' scale of the true eigenvalue
        # times its condition: for two close eigenvalues the square root of the small
        # discriminant amplifies round-off by |eig| / |eig_1 - eig_2|
        eig = np.linalg.eigvals(D)
        spread = max(abs(eig[0] - eig[-1]), EPS * np.max(np.abs(eig)))
        condition = max(1.0, np.max(np.abs(eig)) / spread)
        scale = np.max(np.abs(D)) / np.max(np.abs(np.linalg.eigvalsh(D0)))
        bound = 64 * EPS * max(scale, 1.0) * condition
        kernel.append(abs(painleve_margin(D0, D) - exact))
        python.append(abs(margin_of(D0, D) - exact))
        bounds.append(bound)
    reference = "min Re eig(D) / max |eig(sym D0)| by LAPACK"
    measured.each("compiled margin vs eigenvalues", kernel, bounds, reference=reference)
    measured.each("Python margin vs eigenvalues", python, bounds, reference=reference)


def test_complex_eigenvalues_of_two_rows_give_their_real_part(measured):
    # D = [[1, -3], [3, 1]] has eigenvalues 1 +- 3i: the margin is 1 / max eig(D0) = 1 / 2
    D0 = np.diag([2.0, 1.0])
    D = np.array([[1.0, -3.0], [3.0, 1.0]])
    measured(
        "margin of eigenvalues 1 +- 3i",
        abs(painleve_margin(D0, D) - 0.5),
        4 * EPS,
        reference="Re(1 +- 3i) / max eig(D0) = 1 / 2",
    )


def test_beyond_two_rows_the_kernel_bounds_the_exact_margin_from_below(measured):
    rng = np.random.default_rng(3)
    excess, bounds = [], []
    for _ in range(100):
        D0, D = _blocks(rng, 3)
        exact = _exact(D0, D)
        # the field of values of D holds its eigenvalues: min eig(sym D) <= min Re eig(D)
        excess.append(max(painleve_margin(D0, D) - exact, 0.0))
        bounds.append(64 * EPS * np.max(np.abs(D)))
    measured.each(
        "margin above the exact margin, 3 rows",
        excess,
        bounds,
        reference="min eig(sym D) <= min Re eig(D) (field of values)",
    )
