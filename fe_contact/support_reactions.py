"""The support reactions of the structures at a static state: on each structure's full DOF
vector, its internal force minus its loads and the contact forces on it, kept at the fixed DOFs
(a clamp's shear and moment, a pinned end's force), N and N m. ``static_equilibrium`` gives them
as ``StaticState.support_reactions``.
"""

from __future__ import annotations

import numpy as np

from .elements.beam import self_weight
from .elements.beam_points import point_load as beam_point_load
from .elements.string import gravity_force
from .elements.string import internal_force as string_internal_force
from .elements.string import point_load as string_point_load
from .structures import StringStructure
from .system import System


def support_reactions(system: System, q, ev, normal_force: dict) -> dict:
    """The generalised support forces of each structure on its full DOF vector.

    f_int - loads - contact forces at the fixed DOFs (zero elsewhere), N.

    Parameters
    ----------
    system : System
        The assembled model.
    q : ndarray, shape (n,)
        Coordinates of the equilibrium.
    ev : object
        An evaluation at q holding every contact (``contacts``, ``contact_index``).
    normal_force : dict of str to float
        The normal force of each contact by name, N.

    Returns
    -------
    dict of str to ndarray
        Structure name -> support forces, shape (n_dofs,), N.

    Examples
    --------
    ``static_equilibrium`` gives them as ``StaticState.support_reactions``: for a 0.05 kg mass
    resting on a cantilever at a = 0.3 m, the clamp carries the shear P + q L and the moment
    P a + q L^2 / 2 (P = m g, q the beam's weight per length):

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, static_equilibrium)
    >>> a, m, L, g = 0.3, 0.05, 0.4, 9.81
    >>> tree = TreeModel(bodies=(Body(m, 0.0),),
    ...                  joints=(Joint("prismatic", location=(a, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=L, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> state = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> shear, moment = state.support_reactions["beam"][:2]  # (w, w') of the clamped node
    >>> P, q = m * g, strip.mass_per_length * g
    >>> print(f"{shear:.4f} N = {P + q * L:.4f} N; {moment:.4f} N m = {P * a + q * L**2 / 2:.4f} N m")
    0.7671 N = 0.7671 N; 0.2025 N m = 0.2025 N m
    """
    model = system.model
    lay = system.layout
    out = {}
    for name, s in system.structures.items():
        full_q = s.full(q[lay.structure(name)])
        loads = [ld for ld in model.loads if ld.structure == name]
        if isinstance(s, StringStructure):
            string = s.string
            f = string_internal_force(string, full_q)
            if model.structure_gravity:
                f -= gravity_force(string)
            for ld in loads:
                f -= string_point_load(string, ld.s, np.asarray(ld.force))
            fixed = string.fixed_dofs
        else:
            beam = s.beam
            f = beam.stiffness_matrix @ full_q
            if model.structure_gravity:
                f -= self_weight(beam, np.asarray(model.gravity))
            for ld in loads:
                f -= beam_point_load(beam, ld.s, force=float(np.asarray(ld.force) @ beam.n0))
            fixed = beam.fixed_dofs
        for c, k in zip(ev.contacts, ev.contact_index, strict=True):
            pair = model.contacts[k]
            if c is None or pair.target != name:
                continue
            push = -normal_force[pair.name] * c.normal  # the profile's force on the structure
            if isinstance(s, StringStructure):
                f -= string_point_load(s.string, c.parameter, push)
            else:
                f -= beam_point_load(s.beam, c.parameter, force=float(push @ s.beam.n0))
        for fc in ev.compliant:
            pair = model.contacts[fc.index]
            if fc.contact is None or pair.target != name or fc.normal_force <= 0.0:
                continue
            c = fc.contact
            push = -(fc.normal_force * c.normal + fc.friction_force * c.tangent)
            if isinstance(s, StringStructure):
                f -= string_point_load(s.string, c.parameter, push)
            else:
                f -= beam_point_load(s.beam, c.parameter, force=float(push @ s.beam.n0))
        reaction = np.zeros_like(f)
        reaction[fixed] = f[fixed]
        out[name] = reaction
    return out


__all__ = ["support_reactions"]
