"""Assembly time and accuracy of the Hermite line element, local (``elements.hermite``) against
scikit-fem's global ``ElementLineHermite``, on a 0.4 m line of n equal elements.

Run: python benchmarks/hermite_assembly.py [--n 1000 10000 100000]. For each element and n it
times (best of 3, after one warm-up) the basis (``Basis(MeshLine, element)``) and the bending
stiffness and consistent mass (``elements.beam`` forms), and prints the largest relative error
of the stiffness entry K_ww of the last interior node against 12 EI / le^3 summed over its two
elements and of the bending
energy of a uniform curvature kappa = 0.3 1/m interpolated from its nodal values (a
``Functional`` of dd(u), exact for any correct Hermite cubic). A failure (the global element's
Vandermonde matrix is singular at 100 000 elements) is printed instead of the row.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from skfem import Basis, ElementLineHermite, Functional, MeshLine
from skfem.helpers import dd

from fe_contact.elements.beam import bending_form, consistent_mass
from fe_contact.elements.hermite import ElementLineHermiteLocal

LENGTH, EI, RHO_A, KAPPA = 0.4, 0.5906, 0.0705, 0.3


@Functional
def bending_energy(w):
    return 0.5 * w.EI * dd(w.u)[0, 0] ** 2


def measure(element, n):
    nodes = np.linspace(0.0, LENGTH, n + 1)
    times = []
    for _ in range(4):
        start = time.perf_counter()
        basis = Basis(MeshLine(nodes), element())
        K = bending_form.assemble(basis, EI=EI)
        consistent_mass.assemble(basis, rho_A=RHO_A)
        times.append(time.perf_counter() - start)
    left, right = nodes[n - 1] - nodes[n - 2], nodes[n] - nodes[n - 1]  # the mesh's lengths
    w_dof = basis.nodal_dofs[0, n - 1]
    k_error = abs(K[w_dof, w_dof] / (12.0 * EI / left**3 + 12.0 * EI / right**3) - 1.0)
    u = np.zeros(basis.N)
    u[basis.nodal_dofs[0]] = 0.5 * KAPPA * nodes**2
    u[basis.nodal_dofs[1]] = KAPPA * nodes
    energy = bending_energy.assemble(basis, u=basis.interpolate(u), EI=EI)
    e_error = abs(energy / (0.5 * EI * KAPPA**2 * LENGTH) - 1.0)
    return min(times[1:]), k_error, e_error


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 10_000, 100_000])
    args = parser.parse_args(argv)
    print("element                  n_elements  assembly_s  K_ww_rel_error  energy_rel_error")
    for element in (ElementLineHermite, ElementLineHermiteLocal):
        for n in args.n:
            try:
                seconds, k_error, e_error = measure(element, n)
            except Exception as error:  # the global element's singular Vandermonde matrix
                print(f"{element.__name__:24s} {n:10d}  failed: {type(error).__name__}: {error}")
                continue
            print(
                f"{element.__name__:24s} {n:10d}  {seconds:10.4f}  {k_error:14.2e}  {e_error:16.2e}"
            )


if __name__ == "__main__":
    main()
