"""Parts held at a material point of a structure (all SI units):

* ``MaterialPoint(structure, s)``: the side of a link (``laws.Dropper``) at the material point s
  of a structure, as ``ContactPair(name, MaterialPoint("contact", 4.0), MaterialPoint(
  "messenger", 4.0), Dropper(...))``.
* ``SpringSupport(structure, s, stiffness, damping, direction)``: a linear spring (and a dashpot) from
  the material point s of a beam to the ground, acting along a fixed unit ``direction`` of the
  plane (a registration arm, the elastic support of a wire). Its force on the structure is
  -k d (d . (r(s, q) - r(s, q_ref))) - c d (d . r'(s)); r is affine in the beam's coordinates
  q, r = r_0 + N(s) q, so the spring adds the
  constant k N^T d d^T N to the stiffness and c N^T d d^T N to the damping, assembled once
  (``support_matrices``). Its energy k (d . (r - r_ref))^2 / 2 is then part of the structure's
  strain energy, its dashpot's power part of the structure's damping power.

A point mass (a clamp, a steady arm's mass on the wire) is a ``model.CarriedBody`` with the
mass at the material point: m N^T N in the structure's mass matrix, its weight in the load.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import validation as check


@dataclass(frozen=True)
class MaterialPoint:
    """A material point of a structure (a beam or a string): a side of a link (``laws.Dropper``).

    Parameters
    ----------
    structure : str
        Name of the structure.
    s : float
        Material coordinate, m (>= 0) from the structure's first node along its reference
        axis.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``structure`` is not an identifier or ``s`` is negative or not finite.

    Examples
    --------
    >>> from fe_contact.structure_points import MaterialPoint
    >>> MaterialPoint("messenger", 4.5)
    MaterialPoint(structure='messenger', s=4.5)
    >>> MaterialPoint("messenger", -1.0)
    Traceback (most recent call last):
    ...
    ValueError: MaterialPoint.s: got -1.0; allowed: a finite number >= 0 in m
    """

    structure: str
    s: float

    radius = 0.0  # a point: what a contact pair's profile answers

    def __post_init__(self):
        check.identifier("MaterialPoint.structure", self.structure)
        object.__setattr__(self, "s", check.real("MaterialPoint.s", self.s, low=0.0, unit="m"))


@dataclass(frozen=True)
class SpringSupport:
    """A spring with a dashpot from a material point of a structure to the ground.

    At the reference configuration the spring is unstressed.

    Parameters
    ----------
    structure : str
        Name of the structure (a beam).
    s : float
        Material coordinate of the point, m (>= 0).
    stiffness : float
        Spring stiffness k, N/m (>= 0).
    damping : float, optional
        Dashpot coefficient c, N s/m (>= 0); 0 by default.
    direction : tuple of float, shape (2,), optional
        Direction of the spring in the plane (normalised on construction); (0, 1), vertical,
        by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When a number is out of range or not finite, or ``direction`` is zero.

    Examples
    --------
    A 2 kN/m vertical spring at the middle of the 4 m wire "contact":

    >>> from fe_contact.structure_points import SpringSupport
    >>> SpringSupport("contact", 2.0, stiffness=2e3)
    SpringSupport(structure='contact', s=2.0, stiffness=2000.0, damping=0.0, direction=(0.0, 1.0))
    >>> SpringSupport("contact", 2.0, stiffness=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: SpringSupport.stiffness: got -1.0; allowed: a finite number >= 0 in N/m
    """

    structure: str
    s: float
    stiffness: float
    damping: float = 0.0
    direction: tuple[float, float] = (0.0, 1.0)

    def __post_init__(self):
        check.identifier("SpringSupport.structure", self.structure)
        object.__setattr__(self, "s", check.real("SpringSupport.s", self.s, low=0.0, unit="m"))
        k = check.real("SpringSupport.stiffness", self.stiffness, low=0.0, unit="N/m")
        object.__setattr__(self, "stiffness", k)
        c = check.real("SpringSupport.damping", self.damping, low=0.0, unit="N s/m")
        object.__setattr__(self, "damping", c)
        d = np.asarray(check.vector("SpringSupport.direction", self.direction))
        size = float(np.hypot(*d))
        if size == 0.0:
            check.fail("SpringSupport.direction", self.direction, "a nonzero vector (x, y)")
        if abs(size - 1.0) > 4.0 * np.finfo(float).eps:
            d = d / size
        object.__setattr__(self, "direction", (float(d[0]), float(d[1])))


def support_matrices(structure, supports) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """The springs' and dashpots' constant matrices (K_s, C_s) on a structure's free coordinates.

    Sums of k N^T d d^T N and c N^T d d^T N with N the rows (2, k) of the material point
    (``Structure.point_rows``, r = offset + N q[dofs]; its padded entries are zero).
    ``assemble`` adds them to a beam's stiffness and damping.

    Parameters
    ----------
    structure : Structure
        The structure.
    supports : sequence of SpringSupport
        Its supports.

    Returns
    -------
    K_s : scipy.sparse.csr_matrix, shape (n_dofs, n_dofs)
        Stiffness of the springs, N/m.
    C_s : scipy.sparse.csr_matrix, shape (n_dofs, n_dofs)
        Damping of the dashpots, N s/m.

    Examples
    --------
    A 2 kN/m spring with a 5 N s/m dashpot at the middle node of a pinned 2 m beam: lifting
    that node by 1 mm (its w DOF) stores k w^2 / 2 = 1e-3 J in the spring:

    >>> from fe_contact import BeamSpec, Model, assemble
    >>> from fe_contact.structure_points import SpringSupport, support_matrices
    >>> spec = BeamSpec(length=2.0, n_elements=4, youngs_modulus=1.0, density=1.0, area=1.0,
    ...                 second_moment=1.0, left="pinned", right="pinned")
    >>> beam = assemble(Model(structures={"w": spec})).structures["w"]
    >>> k_s, c_s = support_matrices(beam, [SpringSupport("w", 1.0, 2e3, damping=5.0)])
    >>> q = np.zeros(beam.n_dofs)
    >>> q[beam.free_index[beam.beam.basis.nodal_dofs[0, 2]]] = 1e-3
    >>> print(f"{0.5 * q @ k_s @ q:.4g} J, c w^2 = {q @ c_s @ q:.4g}")
    0.001 J, c w^2 = 5e-06
    """
    n = structure.n_dofs
    rows_i, cols_j, k_vals, c_vals = [], [], [], []
    for support in supports:
        pr = structure.point_rows([support.s])
        dofs, rows = pr.dofs[0], pr.rows[0]
        line = np.asarray(support.direction) @ rows  # d . N, (k,)
        outer = np.outer(line, line)
        ii, jj = np.meshgrid(dofs, dofs, indexing="ij")
        rows_i.append(ii.ravel())
        cols_j.append(jj.ravel())
        k_vals.append(support.stiffness * outer.ravel())
        c_vals.append(support.damping * outer.ravel())
    if not supports:
        empty = sp.csr_matrix((n, n))
        return empty, empty
    i, j = np.concatenate(rows_i), np.concatenate(cols_j)
    stiffness = sp.coo_matrix((np.concatenate(k_vals), (i, j)), shape=(n, n)).tocsr()
    damping = sp.coo_matrix((np.concatenate(c_vals), (i, j)), shape=(n, n)).tocsr()
    return stiffness, damping


__all__ = ["MaterialPoint", "SpringSupport", "support_matrices"]
