"""The structures' block with the droppers' tangent in the links' band order
(``steppers.linked_band``): the order narrows the band of two wires joined by droppers, and
the banded Cholesky solves G_f + sum k w w^T as SuperLU does, to round-off.

The model: 2 spans of the catenary with 1 m elements (two wires numbered one after the other,
18 droppers). Every dropper taut, with K = beta' k + gamma' c of a 1e5 N/m, 20 N s/m link at
h = 1 ms.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fe_contact import assemble
from fe_contact.coupling.links import links_state
from fe_contact.papers.catenary import catenary
from fe_contact.steppers.alpha import alpha_parameters
from fe_contact.steppers.linked_band import BandCholesky, LinkedBand, linked_band
from fe_contact.steppers.partitioned_step import StepAlgebra

EPS = np.finfo(float).eps
H = 1e-3


@pytest.fixture(scope="module")
def system():
    return assemble(catenary(2, max_element_length=1.0).model)


def links_tangent(system, bp, gp):
    """The droppers' tangent sum K w w^T, all taut, as a COO (n_f, n_f) matrix."""
    lay = system.layout
    state = links_state(system, *system.initial_state())
    k = 1e5 * bp + 20.0 * gp
    dofs, w = state.dofs - lay.n_tree, state.w_normal
    width = dofs.shape[1]
    rows = np.repeat(dofs, width, axis=1).ravel()
    cols = np.tile(dofs, (1, width)).ravel()
    values = (k * w[:, :, None] * w[:, None, :]).ravel()
    return sp.coo_matrix((values, (rows, cols)), (lay.n_flexible,) * 2)


def test_the_band_order_narrows_the_linked_wires(system):
    band = LinkedBand(system)
    lay = system.layout
    assert system.link_rows.size == 18
    G = system.mass_flexible + system.stiffness_flexible + links_tangent(system, 1.0, 1.0)
    coo = sp.coo_matrix(G)
    # numbered wire by wire, a dropper couples coordinates a wire's length apart
    assert np.abs(coo.row - coo.col).max() > lay.n_flexible // 3
    assert np.abs(band.position[coo.row] - band.position[coo.col]).max() <= band.band <= 8
    assert sorted(band.order.tolist()) == list(range(lay.n_flexible))


def test_band_cholesky_solves_as_superlu(system):
    algebra = StepAlgebra(system, alpha_parameters(1.0))
    bp, gp = algebra.coefficients(H)
    extra = links_tangent(system, bp, gp)
    solver = algebra.g_solver_with(H, extra)
    assert isinstance(solver, BandCholesky)
    G = system.mass_flexible + gp * system.damping_flexible + bp * system.stiffness_flexible
    A = (G + extra).tocsc()
    rng = np.random.default_rng(5)
    B = rng.standard_normal((system.layout.n_flexible, 3))
    lu = spla.splu(A)
    for rhs in (B[:, 0], B):
        x_band, x_lu = solver.solve(rhs), lu.solve(rhs)
        assert x_band.shape == rhs.shape
        # both backward stable: residuals of a few eps |A| |x|; measured 4e-16 of max |x| apart
        # (cond(A) = 270 here: M_f dominates at h = 1 ms). Bound 64 eps of max |x|
        scale = np.abs(A) @ np.abs(x_band) + np.abs(rhs)
        assert np.all(np.abs(A @ x_band - rhs) <= 16 * EPS * scale)
        assert np.max(np.abs(x_band - x_lu)) <= 64 * EPS * np.max(np.abs(x_lu))


def test_a_tangent_that_is_not_positive_definite_falls_back_to_superlu(system):
    algebra = StepAlgebra(system, alpha_parameters(1.0))
    n_f = system.layout.n_flexible
    # a link law with a negative slope, large enough to make the block indefinite
    extra = sp.coo_matrix(([-1e6], ([3], [3])), (n_f, n_f))
    solver = algebra.g_solver_with(H, extra)
    assert not isinstance(solver, BandCholesky)
    assert linked_band(system) is not None
