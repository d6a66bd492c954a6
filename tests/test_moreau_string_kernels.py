"""The compiled string response of the Moreau-Jean step (``kernels.string.string_response``
with its tension law ``kernels.string.tension_law``, called by ``FlexibleBlock``), its scatter
into band storage (``kernels.band.add_entries``) and the history's string energy read from the
step's energies, against references that do not use them: the tension laws' closed forms in
exact rational arithmetic (sympy), the plain scikit-fem ``LinearForm`` of the internal virtual
work (``elements.string_forces.internal_force_form``), central differences of the kernel's own
strain energy and force (force = dV/dq, tangent = df/dq), the closed form L W(nu) of a uniformly
stretched string, and the dense reduced tangent P^T K P of the sparse assembly.
"""

import numpy as np
import pytest
import sympy

from fe_contact.elements.string import (
    LinearElastic,
    NeoHookean,
    StringSpec,
    Support,
    strain_energy,
)
from fe_contact.elements.string_forces import internal_force_form
from fe_contact.kernels import string as string_kernels
from fe_contact.model import Model
from fe_contact.papers import belt
from fe_contact.papers import eugster_glocker as eg
from fe_contact.steppers.effective_mass import FlexibleBlock
from fe_contact.system import assemble

EPS = np.finfo(float).eps
LAWS = {"neo_hookean": NeoHookean(k=853.75), "linear": LinearElastic(EA=853.75)}


def string_block(law, bending_stiffness=0.0, n_elements=3):
    """A string pinned at (0, 0) and (0.8, 0), unstretched length 1 m, its FlexibleBlock and a
    deformed state of its free coordinates (a sag plus noise)."""
    spec = StringSpec(
        length=1.0,
        n_elements=n_elements,
        density=0.3142,
        law=law,
        bending_stiffness=bending_stiffness,
        supports=(Support(0.0, position=(0.0, 0.0)), Support(1.0, position=(0.8, 0.0))),
    )
    system = assemble(Model(structures={"string": spec}))
    block = FlexibleBlock(system)
    structure, _, part = block.parts[0]
    rng = np.random.default_rng(7)
    q = structure.initial_coordinates() + 0.02 * rng.standard_normal(structure.n_dofs)
    return system, structure, part, q


@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_tension_law_is_the_closed_form(law_name):
    """T, dT/dnu and W of the compiled law against 004 eq. (17) (and the linear law) evaluated
    in exact rational arithmetic at a few stretches: each within 8 eps of its value (a handful
    of roundings, pow within an ulp), and dW/dnu = T, dT/dnu as the formulas' derivatives."""
    law = LAWS[law_name]
    nu_s = sympy.Symbol("nu", positive=True)
    if law_name == "neo_hookean":
        code, k = string_kernels.NEO_HOOKEAN, sympy.Rational(law.k)
        w = k / 3 * (nu_s**2 / 2 + 1 / nu_s) - k / 2
    else:
        code, k = string_kernels.LINEAR_ELASTIC, sympy.Rational(law.EA)
        w = k / 2 * (nu_s - 1) ** 2
    t = sympy.diff(w, nu_s)
    dt = sympy.diff(t, nu_s)
    for nu in (0.93, 1.0, 1.0007, 1.2, 2.5):
        got = string_kernels.tension_law(code, float(k), nu)
        exact = [float(f.subs(nu_s, sympy.Rational(nu))) for f in (t, dt, w)]
        for value, reference in zip(got, exact, strict=True):
            # scale: k times the stretch's terms (|nu| + nu^-2 <= 3.5), not the value, which
            # cancels to 0 at nu = 1
            assert abs(value - reference) <= 8 * EPS * float(k) * 3.5


@pytest.mark.parametrize("bending_stiffness", [0.0, 0.2])
@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_string_response_force_is_the_scikit_fem_form(law_name, bending_stiffness):
    """f_int of the kernel on the free coordinates against the plain scikit-fem LinearForm
    assembled on the full dofs and reduced to the free ones: the same integrals summed in
    another order, within 1e-12 of the largest entry (measured ~1e-15)."""
    system, structure, part, q = string_block(LAWS[law_name], bending_stiffness)
    assert part.compiled
    force, _, _ = part.response(q, 1)
    model = structure.string
    form = internal_force_form(model.spec.law, bending_stiffness)
    reference = model.reduce(form.assemble(model.basis, r=model.expand(q), r_ref=model.q_ref))
    assert np.abs(force - reference).max() <= 1e-12 * np.abs(reference).max()


@pytest.mark.parametrize("bending_stiffness", [0.0, 0.2])
@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_string_response_is_consistent_with_its_energy(law_name, bending_stiffness):
    """The kernel's force is the gradient of its strain energy and its tangent the force's
    Jacobian, both by central differences (step 1e-6 m: truncation ~1e-12 and rounding
    eps V / step ~1e-10 of the scale; bound 1e-6 of the largest entry), and the energy is
    ``elements.string.strain_energy`` (numpy, another summation order: 1e-13 relative)."""
    system, structure, part, q = string_block(LAWS[law_name], bending_stiffness)
    force, tangents, energy = part.response(q, 2)
    assert energy == pytest.approx(strain_energy(structure.string, structure.full(q)), rel=1e-13)
    n = q.size
    step = 1e-6
    gradient = np.empty(n)
    jacobian = np.empty((n, n))
    for i in range(n):
        dq = np.zeros(n)
        dq[i] = step
        f_plus, _, e_plus = part.response(q + dq, 1)
        f_minus, _, e_minus = part.response(q - dq, 1)
        gradient[i] = (e_plus - e_minus) / (2 * step)
        jacobian[:, i] = (f_plus - f_minus) / (2 * step)
    assert np.abs(force - gradient).max() <= 1e-6 * np.abs(force).max()
    # the element tangents assembled on the free coordinates
    assembled = np.zeros((n, n))
    free = structure.element_free_index()
    for e, cols in enumerate(free):
        keep = cols >= 0
        assembled[np.ix_(cols[keep], cols[keep])] += tangents[e][np.ix_(keep, keep)]
    assert np.abs(assembled - jacobian).max() <= 1e-6 * np.abs(assembled).max()


@pytest.mark.parametrize("bending_stiffness", [0.0, 0.2])
@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_energy_alone_is_the_strain_energy(law_name, bending_stiffness):
    """Order 0 (the energy, what a compiled step's energies ask for): the strain energy of
    ``elements.string.strain_energy`` (numpy, another summation order: 1e-13 relative) at a
    sagging, noisy state; without bending stiffness no force is formed (zeros), with it the
    force is the scikit-fem form's, as at order 1 (1e-12 of its largest entry)."""
    system, structure, part, q = string_block(LAWS[law_name], bending_stiffness)
    force, tangents, energy = part.response(q, 0)
    assert energy == pytest.approx(strain_energy(structure.string, structure.full(q)), rel=1e-13)
    assert tangents.shape[0] == 0
    if bending_stiffness == 0.0:
        assert not force.any()
    else:
        model = structure.string
        form = internal_force_form(model.spec.law, bending_stiffness)
        reference = model.reduce(form.assemble(model.basis, r=model.expand(q), r_ref=model.q_ref))
        assert np.abs(force - reference).max() <= 1e-12 * np.abs(reference).max()


@pytest.mark.parametrize("law_name", sorted(LAWS))
def test_uniform_stretch_has_the_closed_form_energy(law_name):
    """A straight string pinned at (0, 0) and (L nu, 0), its coordinates nu times the
    reference: T is uniform, so the energy is L W(nu) and the free coordinates carry no force
    (the slopes' and interior positions' terms cancel): within 256 eps T (the closed-form
    test of ``test_string_kernel``)."""
    law, nu, length = LAWS[law_name], 1.07, 1.0
    spec = StringSpec(
        length=length,
        n_elements=4,
        density=0.3142,
        law=law,
        supports=(Support(0.0, position=(0.0, 0.0)), Support(length, position=(nu * length, 0.0))),
    )
    system = assemble(Model(structures={"string": spec}))
    structure, _, part = FlexibleBlock(system).parts[0]
    q = nu * structure.initial_coordinates()  # positions nu s, slopes (nu, 0)
    force, _, energy = part.response(q, 1)
    assert energy == pytest.approx(length * law.energy(nu), rel=1e-13)
    assert np.abs(force).max() <= 256 * EPS * law.tension(nu)


@pytest.mark.parametrize("case", ["open", "closed"])
def test_band_of_the_compiled_tangent_is_the_reduced_sparse_tangent(case):
    """The tangent the kernels scatter into band storage (``FlexibleBlock._nonlinear``:
    ``string_response`` and ``kernels.band.add_entries``) read back as a dense matrix against
    P^T K P of the sparse assembly (``StringStructure.tangent_stiffness``): on the disk's open
    string and on the belt's closed one (whose last node is its first). Sums of the same
    element entries in another order: 1e-12 of the largest entry; the force to 1e-12 too."""
    if case == "open":
        system = assemble(eg.disk_on_string(1, 4, eg.FRICTION, 0.0, None).model)
    else:
        system = belt.belt_drive().assemble()
    block = FlexibleBlock(system)
    lay = system.layout
    rng = np.random.default_rng(1)
    q = system.initial_state()[0][lay.flexible] + 1e-3 * rng.standard_normal(lay.n_flexible)
    assert any(getattr(part, "compiled", False) for _, _, part in block.parts)
    force, band = block._nonlinear(q)
    n, b = block.n, block.band
    dense = np.zeros((n, n))
    for i in range(n):
        for j in range(max(0, i - b), min(n, i + b + 1)):
            dense[i, j] = band[2 * b + i - j, j]
    reference = np.zeros((n, n))
    forces = np.zeros(n)
    for st, sl, _ in block.parts:
        reference[sl, sl] = st.tangent_stiffness(q[sl]).toarray()
        forces[sl] = st.internal_force(q[sl])
    assert np.abs(dense - reference).max() <= 1e-12 * np.abs(reference).max()
    assert np.abs(force - forces).max() <= 1e-12 * np.abs(forces).max()


def test_history_string_energy_is_the_strain_energy_of_its_state():
    """The recorded ``string_elastic_energy`` (read from the step's energies, not evaluated
    again) against ``elements.string.strain_energy`` of each recorded state (numpy, another
    summation order; 1e-12 relative), and the part columns sum to ``elastic_energy``."""
    from fe_contact.demos import disk_on_string

    system, result = disk_on_string.run(example=1, t_end=0.08, out=None, plot=False)
    structure = system.structures["string"]
    part = system.layout.structure("string")
    recorded = result.columns["string_elastic_energy"]
    for k in range(0, len(result.t), 7):
        reference = strain_energy(structure.string, structure.full(result.q[k, part]))
        assert recorded[k] == pytest.approx(reference, rel=1e-12)
    total = result.columns["tree_elastic_energy"] + recorded
    # a sum of two terms in another order: a few eps of the larger
    assert np.abs(total - result.columns["elastic_energy"]).max() <= 4 * EPS * recorded.max()


def test_pairwise_sum_is_numpys_sum_to_the_last_bit():
    """``kernels.pairwise.pairwise_sum`` against ``np.sum`` (the order it copies) on arrays of
    every length 0..300 with entries spread over ten decades, where another order of the
    additions would differ in the last bits: equal as floats, every one."""
    from fe_contact.kernels.pairwise import pairwise_sum

    rng = np.random.default_rng(5)
    for n in range(301):
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
        assert pairwise_sum(a) == np.sum(a)


def numpy_terms(normal, tangent, gamma_start, gamma_end, restitution, friction, theta):
    """(impact, friction, timing) per point from ``steppers.impulse_work``'s docstring."""
    m = normal.size
    xi = gamma_end + restitution * gamma_start
    start = (1.0 - theta * (1.0 + restitution)) * np.concatenate((normal, tangent)) * gamma_start
    xi_n, xi_t = xi[:m], xi[m:]
    start_n, start_t = start[:m], start[m:]
    coulomb = friction * normal * np.abs(xi_t)
    impact = np.maximum(-start_n, 0.0) + theta * (normal * np.maximum(-xi_n, 0.0))
    loss_t = theta * coulomb + np.maximum(-start_t, 0.0)
    gain = (
        np.maximum(start_n, 0.0)
        + np.maximum(start_t, 0.0)
        + theta * (normal * np.maximum(xi_n, 0.0) + (tangent * xi_t + coulomb))
    )
    return impact, loss_t, gain


def test_impulse_work_kernel_on_a_hand_worked_point_and_the_numpy_terms():
    """One point by hand (theta = 1/2, e = 0): P_N = 2, P_T = -0.5 N s, mu = 0.3, gamma^A =
    (-1, 0.4), gamma^E = (0, 0.1) m/s: xi = gamma^E; start part c P gamma^A with c = 1/2:
    normal -1 (a loss), tangent -0.1 (a loss); law parts: 0 normal, Coulomb mu P_N |xi_T| =
    0.06: impact 1, friction 0.5 0.06 + 0.1 = 0.13, timing 0.5 (-0.05 + 0.06) = 0.005 J.
    Then random points against the module docstring's formulas written here in numpy, summed
    by np.sum: the same floats (the same operations in the same order), per point through
    ``impulse_work_points`` and summed through the kernel."""
    from fe_contact.kernels.impulse_work import impulse_work_sums as impulse_work
    from fe_contact.steppers.impulse_work import impulse_work_points

    got = impulse_work(
        np.array([2.0]),
        np.array([-0.5]),
        np.array([-1.0, 0.4]),
        np.array([0.0, 0.1]),
        np.zeros(2),
        np.array([0.3]),
        0.5,
    )
    # a few roundings of numbers of order 1
    assert np.allclose(got, (1.0, 0.13, 0.005), rtol=0.0, atol=8 * EPS)
    rng = np.random.default_rng(2)
    for m in (0, 1, 3, 9, 20):
        p_n = rng.uniform(0.0, 1.0, m)
        mu = rng.uniform(0.0, 0.5, m)
        p_t = mu * p_n * rng.uniform(-1.0, 1.0, m)
        gamma_a, gamma_e = rng.normal(size=2 * m), rng.normal(size=2 * m)
        e = rng.uniform(0.0, 1.0, 2 * m)
        for theta in (0.5, 0.55, 1.0):
            terms = numpy_terms(p_n, p_t, gamma_a, gamma_e, e, mu, theta)
            points = impulse_work_points(p_n, p_t, gamma_a, gamma_e, e, mu, theta)
            assert all(np.array_equal(a, b) for a, b in zip(points, terms, strict=True))
            sums = impulse_work(p_n, p_t, gamma_a, gamma_e, e, mu, theta)
            assert sums == tuple(np.sum(t) for t in terms)
            assert min(sums) >= 0.0
