"""The energy of each part of a model, J: the terms of the balance's kinetic, potential and
elastic energies (``system.energies``) named by part, as standard history columns.

Columns (every model; ``tree_kinetic_energy`` is one of ``steppers.result``'s energy columns):

* ``tree_potential_energy``: the potential of gravity of the tree's bodies, -sum m_i g . x_ci;
* ``tree_elastic_energy``: the joint springs, sum 1/2 k_j (q_j - rest_j)^2;
* per structure ``<name>_kinetic_energy`` (1/2 u M u), ``<name>_elastic_energy`` (its strain
  energy) and ``<name>_potential_energy`` (the potential of its constant loads: self-weight,
  point loads; zero in the reference configuration);
* with compliant contacts, ``contact_elastic_energy``: their elastic energy c a^(p+1) / (p + 1).

They sum to the totals: ``kinetic_energy`` = tree + structures' kinetic, ``potential_energy`` =
tree + structures' potential, ``elastic_energy`` = tree + structures' elastic + contacts'.
Each is evaluated from the reported state (q, u) and its energies (``StepReport.energy`` or
``system.energies``; the compiled kernel's in a batch) with the parts' own terms: a
structure's 1/2 u M u, strain energy (a string's as the energies evaluated it,
``Energies.structure_elastic_parts``, not again) and load potential; the tree's joint springs
are the energies' ``tree_springs`` and its potential the gravity total less the structures' load
potentials. No physics is re-run.

Why columns and not sensors: the parts are the terms of the balance every run reports, they
exist in every model without a declaration and are named by the model's own parts, and
``tree_kinetic_energy``, ``structure_kinetic_energy`` and ``structure_elastic_energy`` already
are such columns; a part's column name is checked against the others when the Model is built
(``sensors.check_sensors``).
"""

from __future__ import annotations

import weakref

import numpy as np

from .kernels.beam import DIAGONALS_FROM, band_matvec_rows, csr_arrays, diagonal_storage
from .kernels.pairwise import pairwise_sum

TREE_COLUMNS = ("tree_potential_energy", "tree_elastic_energy")
STRUCTURE_TERMS = ("kinetic", "elastic", "potential")
CONTACT_COLUMN = "contact_elastic_energy"


def has_compliant(model) -> bool:
    """True when a contact of the model is compliant (a force law with elastic energy)."""
    return any(getattr(c, "compliant", False) for c in model.contacts)


def part_energy_columns(model) -> list[tuple[str, str]]:
    """(name, unit) of the part-energy columns of a model, in order (module docstring)."""
    cols = [(name, "J") for name in TREE_COLUMNS]
    for name in model.structures:
        cols += [(f"{name}_{term}_energy", "J") for term in STRUCTURE_TERMS]
    if has_compliant(model):
        cols.append((CONTACT_COLUMN, "J"))
    return cols


def part_energies(system, q: np.ndarray, u: np.ndarray, energy) -> dict:
    """name -> J of the part-energy columns at the state q, u, each (n,) by
    ``system.layout``; energy : the ``Energies`` of that state (its gravity total, joint
    springs and compliant contacts' elastic energy). The same floats as the state among the
    k of ``part_energy_arrays`` (the compiled batches write the same history)."""
    contact = None if not has_compliant(system.model) else [energy.contact_elastic]
    parts = getattr(energy, "structure_elastic_parts", ())
    known = None
    if isinstance(parts, tuple) and parts:  # evaluated with the energies: not again
        known = {name: np.array([value], dtype=float) for name, value in parts}
    arrays = part_energy_arrays(
        system, q[None, :], u[None, :], [energy.gravity], [energy.tree_springs], contact, known
    )
    return {name: float(value[0]) for name, value in arrays.items()}


def part_energy_arrays(
    system, q: np.ndarray, u: np.ndarray, gravity, springs, contact_elastic=None, known_elastic=None
) -> dict:
    """The part energies of k states q, u (k, n): name -> (k,) array. gravity, springs : (k,)
    the totals of the potential of gravity and loads and of the joint springs at those states
    (``Energies.gravity``, ``tree_springs``; ``kernels.step.packed_energies`` in a compiled batch):
    the tree's potential is gravity less the structures' load potentials. contact_elastic :
    (k,) the compliant contacts' elastic energy (columns only with compliant contacts).
    known_elastic : dict of str to (k,) array, optional: the strain energies of nonlinear structures
    by name, already evaluated at these states (``Energies.structure_elastic_parts``); the
    others are evaluated here.

    A structure's terms are 1/2 u M u, its ``elastic_energy`` (a linear beam's 1/2 q K q for
    all k states at once) and its load potential -load . (q - q_ref), the products summed
    term by term in a fixed order: a state gives the same floats alone or among k."""
    from .structures import BeamStructure

    lay = system.layout
    k = q.shape[0]
    tree = system.tree is not None  # without a tree its columns are 0
    out = {"tree_potential_energy": np.array(gravity, dtype=float) if tree else np.zeros(k)}
    out["tree_elastic_energy"] = np.array(springs, dtype=float) if tree else np.zeros(k)
    for name, structure in system.structures.items():
        part = lay.structure(name)
        qs, us = q[:, part], u[:, part]
        kinetic = 0.5 * _rowwise_dot(us, _row_products(structure.mass_matrix, u, part))
        if isinstance(structure, BeamStructure):  # linear: ``elastic_energy`` is 1/2 q K q
            strain = 0.5 * _rowwise_dot(qs, _row_products(structure.stiffness_matrix, q, part))
        elif known_elastic is not None and name in known_elastic:
            strain = np.asarray(known_elastic[name], dtype=float)
        else:
            strain = np.array([structure.elastic_energy(qj) for qj in qs], dtype=float)
        # the load broadcast over the k rows by the product itself: the same products
        potential = -_rowwise_dot(structure.load, qs - structure.initial_coordinates())
        out[f"{name}_kinetic_energy"] = kinetic
        out[f"{name}_elastic_energy"] = strain
        out[f"{name}_potential_energy"] = potential
        if system.tree is not None:
            out["tree_potential_energy"] -= potential
    if has_compliant(system.model):
        out[CONTACT_COLUMN] = np.array(contact_elastic, dtype=float)
    return out


def _row_products(matrix, states: np.ndarray, part: slice) -> np.ndarray:
    """(matrix @ x.T).T for the k states' columns x = states[:, part] (k, n): scipy's sparse
    product, whose every entry sums the row's stored entries in the order of their columns,
    formed for a matrix in canonical form (sorted, no duplicates) whose pattern is a narrow
    band on its diagonals (``kernels.beam.band_matvec``: the same sums in the same order,
    vectorised; the matrix on its diagonals kept while the matrix lives; all k states in one
    call, read in place from contiguous states); otherwise by scipy."""
    x = states[:, part]
    csr = matrix.tocsr()
    square = csr.shape[0] == csr.shape[1] and csr.shape[0] >= DIAGONALS_FROM
    if x.shape[0] > 1 and square and csr.has_canonical_format:
        D = _diagonals(csr)
        if D.shape[0] > 0:
            out = np.empty(x.shape)
            if states.flags.c_contiguous and states.dtype == float:
                band_matvec_rows(D, states, out, part.start or 0)
            else:
                band_matvec_rows(D, np.ascontiguousarray(x, dtype=float), out, 0)
            return out
    return (matrix @ x.T).T


# id -> (a weak reference to a structure's CSR matrix, the matrix on its diagonals): kept
# while the matrix lives (a sparse matrix cannot be a weak dictionary's key: no hash)
_DIAGONALS: dict = {}


def _diagonals(csr) -> np.ndarray:
    """``diagonal_storage`` of the one CSR matrix csr, (2 b + 1, n) or (0, 0), formed once
    per matrix."""
    key = id(csr)
    kept = _DIAGONALS.get(key)
    if kept is not None and kept[0]() is csr:
        return kept[1]
    D = diagonal_storage([csr_arrays(csr)], csr.shape[0])[0]
    _DIAGONALS[key] = (weakref.ref(csr, lambda _, key=key: _DIAGONALS.pop(key, None)), D)
    return D


def _rowwise_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """sum_j a[:, j] b[:, j], (k,): each row's products summed by numpy's reduction along the
    row (pairwise, the same for a row alone or among k; not a BLAS product, whose kernel and
    rounding may change with k). A loop over j cost 9 ms per state on 2000 unknowns. One row
    (a history row of the Python step) is summed by the compiled copy of numpy's pairwise sum
    (``kernels.pairwise.pairwise_sum``), without the reduction's set-up."""
    products = np.ascontiguousarray(a * b)
    if products.shape[0] == 1:
        return np.array([pairwise_sum(products[0])])
    return np.sum(products, axis=1)


__all__ = [
    "CONTACT_COLUMN",
    "STRUCTURE_TERMS",
    "TREE_COLUMNS",
    "part_energies",
    "part_energy_arrays",
    "part_energy_columns",
]
