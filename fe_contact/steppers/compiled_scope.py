"""Which systems the compiled generalised-alpha step takes (``unsupported``: the first condition
a system misses, or None) and how it takes their contacts: the contacts with rows
(``row_contacts``), the pairs of curved profiles among them (``row_pair``), the compliant
contacts taken as forces (``pressed_contact``), and where a profile's body frame is for the
kernels (``profile_frame``, ``beam_index``). ``compiled_plan.Plan`` packs the arrays of what
these admit."""

from __future__ import annotations

import dataclasses

from ..kernels.profile_pair import CARRIED, PLANE, TREE
from ..sides import Circle, Line, Point, Profile
from ..structures import BeamStructure, StringStructure
from ..system import System
from .effective_mass import law_compiled
from .linked_band import BAND_LIMIT, linked_band

__all__ = [
    "beam_index",
    "consistent_unsupported",
    "pressed_contact",
    "profile_frame",
    "rolling_compiled",
    "row_contacts",
    "row_pair",
    "unsupported",
]


def unsupported(system: System) -> str | None:
    """Why the compiled step does not take ``system`` (None when it does)."""
    model = system.model
    if system.tree is None:
        return "no tree"
    structures = list(system.structures.values())
    if len(structures) == 1 and isinstance(structures[0], StringStructure):
        why = _string_unsupported(system, structures[0])
        if why is not None:
            return why
    elif not all(isinstance(s, BeamStructure) for s in structures):
        return "a structure that is neither a linear beam nor one string alone"
    if model.loops:
        return "loop closures"
    why = _links_unsupported(system)
    if why is not None:
        return why
    linked = set(system.link_rows.pairs.tolist())
    for k, c in enumerate(model.contacts):
        if k in linked:  # a Dropper between material points of linear beams (``kernels.links``)
            continue
        if pressed_contact(system, c):  # a compliant normal force (``kernels.compliant``)
            continue
        why = _law_unsupported(system, c)
        if why is not None:
            return f"contact {c.name!r}: {why}"
        if row_pair(system, c):  # ``kernels.profile_pair`` places both profiles
            continue
        if not isinstance(c.profile, Point | Circle) or c.search != "closest":
            return f"contact {c.name!r}: profile or search"
        if not isinstance(c.target, str | Line):
            return f"contact {c.name!r}: a target that is neither a beam nor a line"
    if not any(c.bilateral for c in model.contacts) and not model.drives:
        return "no constraint rows"
    return None


def _links_unsupported(system: System) -> str | None:
    """Why the compiled step does not take the system's links (None when it takes them: every
    link a ``Dropper`` between material points of linear beams, ``System.link_rows``, in a
    band of ``linked_band.BAND_LIMIT`` at most)."""
    linked = set(system.link_rows.pairs.tolist())
    for k, c in enumerate(system.model.contacts):
        if c.link and k not in linked:
            return f"link {c.name!r}: not between material points of linear beams"
        if k in linked and not c.law.compiled:
            return f"link {c.name!r}: a law whose force the compiled links do not evaluate"
    if linked and linked_band(system) is None:
        return f"links whose band order is wider than {BAND_LIMIT}"
    return None


def _law_unsupported(system: System, pair) -> str | None:
    """Why the compiled step does not take the law of ``pair``, a contact that is not one of
    its compliant forces (``pressed_contact``), or None for a Coulomb Sliding law (a constant
    mu: its bilateral rows, ``kernels.step``) and a Unilateral law of a body point on a
    linear beam or of a pair of curved profiles (``row_pair``) (its normal row, and stick
    row, while closed: ``kernels.evaluate.normal_rows``)."""
    law = pair.law
    if law.constraint == "unilateral":  # a point on a linear beam: its rows while closed
        if row_pair(system, pair):  # a pair of curved profiles: the same rows
            return None
        on_beam = type(pair.profile) is Point and isinstance(pair.target, str)
        if not (on_beam and isinstance(system.structures.get(pair.target), BeamStructure)):
            return "a unilateral law (hard contact: impacts and open phases)"
        return None
    if law.constraint == "compliant":
        if getattr(law, "rolling", False) and not rolling_compiled(law):
            return "a compliant law with rolling whose slipping force the kernels do not evaluate"
        if not (law.compiled or law.compiled_friction or rolling_compiled(law)):
            return "a compliant law whose force the kernels do not evaluate"
        pair_of_profiles = type(pair.profile) is Profile and type(pair.target) is Profile
        if pair_of_profiles:
            return "a profile drawn on a body the kernels do not place"
        if rolling_compiled(law):
            return "rolling on sides other than a pair of curved profiles"
        if not law.compiled:
            return "continuous friction on sides other than a pair of curved profiles"
        return "a compliant force on sides other than a body point on a linear beam"
    if law.constraint != "bilateral" or not law.compiled:  # a constant mu
        return "not a Coulomb Sliding law"
    return None


def row_pair(system: System, pair) -> bool:
    """True for a Unilateral contact of a pair of curved profiles (``Profile`` against
    ``Profile``) each drawn on a tree body, on a body carried by a linear beam or in the
    plane, in a system whose structures are all linear beams (where the Python step takes
    the pair's kinematics from the same kernel, ``profile_contact.kernel_pair``): a contact with rows (its normal row while closed, its stick row while it sticks)
    whose kinematics are those of ``kernels.profile_pair`` (the Python step's, with the
    acceleration remainders by the central differences of
    ``coupling.profile_contact.curved_contact``).

    Parameters
    ----------
    system : System
        The assembled model.
    pair : ContactPair
        One of its contacts.

    Returns
    -------
    bool

    Examples
    --------
    >>> from fe_contact.papers.bauchau import Geometry, cam_lock
    >>> from fe_contact.steppers.compiled_scope import row_pair
    >>> [row_pair(s, s.model.contacts[0]) for s in (cam_lock(c, Geometry()).assemble()
    ...                                             for c in (1, 3))]
    [False, True]
    """
    return (
        pair.law.constraint == "unilateral"
        and type(pair.profile) is Profile
        and type(pair.target) is Profile
        and all(isinstance(s, BeamStructure) for s in system.structures.values())
        and profile_frame(system, pair.profile.body) is not None
        and profile_frame(system, pair.target.body) is not None
    )


def row_contacts(model) -> list:
    """The contacts with rows of the compiled step, as ``ContactModes.sliding`` orders them:
    the Sliding ones, then the Unilateral ones (open or closed: ``kernels.evaluate.normal_rows``).

    Parameters
    ----------
    model : Model

    Returns
    -------
    list of ContactPair

    Examples
    --------
    >>> from fe_contact.papers.bauchau import Geometry, cam_lock
    >>> from fe_contact.steppers.compiled_scope import row_contacts
    >>> [c.name for c in row_contacts(cam_lock(3, Geometry()).model)]
    ['cam']
    """
    contacts = [c for c in model.contacts if c.bilateral]
    return contacts + [c for c in model.contacts if not c.bilateral and not c.compliant]


def rolling_compiled(law) -> bool:
    """Does the compiled step take a ``Compliant`` law with rolling?

    Parameters
    ----------
    law : ContactLaw
        A contact's law.

    Returns
    -------
    bool
        True for a law with rolling whose force while it slips (the continuous friction law)
        the kernels evaluate: the compiled step takes its slipping steps under that force and
        its rolling steps with the row W_T u = 0 (``kernels.compliant.rolling_rows``); the
        switches between them are located on the Python step.

    Examples
    --------
    >>> from fe_contact.model import Compliant
    >>> rolling_compiled(Compliant("linear", 1e5))
    False
    """
    if not getattr(law, "rolling", False):
        return False
    return dataclasses.replace(law, rolling=False).compiled_friction


def pressed_contact(system: System, pair) -> bool:
    """True for a contact the compiled step takes as a compliant force
    (``kernels.compliant``): a compliant law that the kernels implement (``law.compiled``: a
    ``Compliant`` law without friction that does not roll), of a body ``Point`` on a linear
    beam, searched at its closest point, or of a pair of curved profiles (``Profile`` against
    ``Profile``, ``kernels.profile_pair``) each drawn on a tree body, on a body carried by a
    linear beam or in the plane, whose law may also have the continuous friction of
    ``law.compiled_friction``, or roll with it (``rolling_compiled``: the steps under that
    force)."""
    law = pair.law
    if type(pair.profile) is Profile and type(pair.target) is Profile:
        return (
            law.constraint == "compliant"
            and not law.link
            and (law.compiled or law.compiled_friction or rolling_compiled(law))
            and profile_frame(system, pair.profile.body) is not None
            and profile_frame(system, pair.target.body) is not None
        )
    if not (law.constraint == "compliant" and not law.link and law.compiled):
        return False
    return (
        type(pair.profile) is Point
        and isinstance(pair.target, str)
        and isinstance(system.structures.get(pair.target), BeamStructure)
        and pair.search == "closest"
    )


def _string_unsupported(system: System, string: StringStructure) -> str | None:
    """Why the compiled step does not take the system's one structure, a string."""
    if string.closed:
        return "a closed string"
    if string.stiffness_damping != 0.0 or string.damping_matrix.nnz:
        return "a damped string"
    if not law_compiled(string.string.spec.law):
        return "a string whose tension law the kernels do not evaluate"
    return None


def profile_frame(system: System, body) -> tuple[int, int, float] | None:
    """Where a profile's body frame is, as ``kernels.profile_pair`` takes it.

    Parameters
    ----------
    system : System
        The assembled system.
    body : int, str or None
        The profile's body: a tree body's index, a carried body's name, None for the plane.

    Returns
    -------
    tuple of (int, int, float) or None
        (kind, index, s): ``TREE`` and the body's index; ``CARRIED``, the carrying linear
        beam's index (``beam_index``) and the material point s (m); ``PLANE``. None for a
        frame the kernels do not take (a body carried by a structure that is not a linear
        beam).

    Examples
    --------
    >>> from fe_contact.kernels.profile_pair import PLANE
    >>> profile_frame(None, None) == (PLANE, 0, 0.0)
    True
    """
    if body is None:
        return PLANE, 0, 0.0
    if not isinstance(body, str):
        return TREE, int(body), 0.0
    carried = {b.name: b for b in system.model.carried}.get(body)
    if carried is None or not isinstance(system.structures.get(carried.structure), BeamStructure):
        return None
    return CARRIED, beam_index(system, carried.structure), float(carried.s)


def beam_index(system: System, name: str) -> int:
    """The position of the linear beam ``name`` among the system's linear beams.

    Parameters
    ----------
    system : System
        The assembled system.
    name : str
        A linear beam of the system.

    Returns
    -------
    int
        Its index among the linear beams in the layout's order of structures: the index of
        its rows in the kernels' beam arrays (``kernels.beam.beam_arrays``), whatever other
        structures come before it.

    Examples
    --------
    >>> from fe_contact import BeamSpec, Model, StringSpec, assemble
    >>> system = assemble(Model(structures={
    ...     "s": StringSpec(length=1.0, n_elements=2, tension=10.0, rho_A=0.1),
    ...     "b": BeamSpec(length=1.0, n_elements=2, EI=1.0, rho_A=0.1)}))
    >>> beam_index(system, "b")
    0
    """
    beams = [
        n for n in system.layout.structure_names if isinstance(system.structures[n], BeamStructure)
    ]
    return beams.index(name)


def consistent_unsupported(system: System) -> str | None:
    """Why the compiled energy-consistent step (``kernels.consistent_step``) does not take
    ``system`` (None when it does): a system the compiled step takes (``unsupported``) whose
    tree has prismatic joints only (a constant mass matrix: the trapezoidal kinetic energy
    identity of ``steppers.energy_consistent``), whose structures are linear beams with
    constant damping or one string without bending stiffness (its discrete-gradient tension
    force, ``kernels.string.averaged_string_force``), whose links are droppers
    (``kernels.links``), and whose other contacts are frictionless unilateral contacts of body
    points on the beams or bilateral ``Sliding`` contacts of body points on the string, with
    Coulomb friction, slipping or sticking (no compliant forces; the steps shorter than
    ``energy_consistent.SMALL_STEP`` stay on the Python step, ``ConsistentCompiledStep``)."""
    why = unsupported(system)
    if why is not None:
        return why
    model = system.model
    if any(j.kind != "prismatic" for j in model.tree.joints):
        return "a tree with revolute joints (a mass matrix that depends on q)"
    # ``unsupported`` admits linear beams or one string alone
    strings = [s for s in system.structures.values() if isinstance(s, StringStructure)]
    if strings and strings[0].string.spec.bending_stiffness > 0.0:
        return "a string with bending stiffness (no averaged internal force)"
    for structure in system.structures.values():
        if structure.stiffness_damping != 0.0:
            return "stiffness-proportional damping on a structure"
    linked = set(system.link_rows.pairs.tolist())
    for k, c in enumerate(model.contacts):
        if k in linked:
            continue
        if strings and c.law.constraint == "bilateral" and not row_pair(system, c):
            continue  # a Coulomb Sliding law (``unsupported``)
        if strings or c.law.constraint != "unilateral" or row_pair(system, c):
            return f"contact {c.name!r}: not a unilateral contact of a body point on a beam"
        if c.law.mu != 0.0:
            return f"contact {c.name!r}: friction"
    return None
