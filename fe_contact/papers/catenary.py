"""A simple catenary of the EN 50318 kind: N spans, built from one table, and form-finding.

The standard's own reference data are not public. The numbers below come from public
descriptions, each number typed once in ``CatenaryData`` with its source:

- [P] the default data of the open-source pantograph-catenary model UI
  (github.com/vivek-nexus/pantograph-catenary-model-ui, ``constants/defaultsValues.js``): a
  simple catenary of 55 m spans, its dropper schedule and target sag, wire masses and EI,
  dropper EA and mass, clamp masses, support springs;
- [I] the wire tensions of the EN 50318:2002 reference catenary as quoted in the literature
  (the standard itself is not public): contact wire at about 20 kN, messenger at about 16 kN;
- [L] a 60 m simple catenary with the same wires (EI 195 and 131.7 N m^2, 1.35 kg/m on the
  contact wire, 20 and 16 kN) in two public reproductions: a research script of a
  five-span model whose docstring cites "the published multi-span set used by Liu et al.,
  Applied Sciences 13 (2023) 6819" (a stored copy of a public repository the index did not
  name): messenger 1.07 kg/m, droppers of 1e5 N/m at 5, 10.5, 17, 23.5, 30, 36.5, 43, 49.5
  and 55 m of each span, messenger supports 5e4 N/m, steady arms 300 N/m, Rayleigh damping
  alpha = 0.0125 1/s, beta = 1e-4 s, a level contact wire (no pre-sag, no clamps) and the
  DSA380 pantograph (``papers.pantograph.DSA380_PANTOGRAPH``); and
  github.com/ChandraguptSharma07/faraway
  (``backend/catenary/parameters.py``, after Song et al., Vehicle System Dynamics 2022,
  doi 10.1080/00423114.2022.2085586) with the same numbers but a modal damping ratio of
  0.5 % and a largest pre-sag of 55 mm. ``LINE_60M`` is that line;
- [B] the wires' Rayleigh damping C = alpha M + beta K, alpha = 0.0125 1/s and
  beta = 1e-4 s. We first took it from memory of the catenary table of the
  pantograph-catenary benchmark (Bruni et al., Vehicle System Dynamics 53 (2015)); the
  benchmark paper itself is not in the stored public material we could search, but [L]'s
  first source has the same pair for the same wires, so it is the value of a public source
  now, not of a memory. A modal ratio zeta = alpha / (2 omega) + beta omega / 2: 0.1 % at
  1 Hz, 0.6 % at 20 Hz ([L]'s second source: 0.5 %).

Where they disagree: the contact wire tension is 20 kN in [I] and [L] and 22 kN in [P]; we
take 20 kN (``dataclasses.replace(EN50318, contact_wire_tension=22e3)`` gives [P]'s). The
span (55 m in [P], 60 m in [L]), the steady arm (2674 N/m in [P], 300 N/m in [L]), the
messenger supports (5e5 N/m in [P], 5e4 N/m in [L]) and the droppers (EA = 2e5 N, about
2.7e5 N/m for a 0.75 m dropper, in [P]; 1e5 N/m in [L]) differ between the two lines: ``EN50318``
is [P]'s line with [I]'s tension, ``LINE_60M`` [L]'s with [P]'s clamps, dropper mass,
encumbrance and pre-sag shape, which [L] does not give (docs/details/pantograph.md compares
the two). Where all are silent: the line ends (we pin both wires at the first and the last
support, the anchors; overlap sections are left out), the steady arm's mass (a spring only),
the droppers' damping (none), stagger (ignored in the plane). The Rayleigh term beta K takes
the whole stiffness of the tensioned wire (bending and tension), not the support springs.

Geometry: the contact wire's supports are at y = 0, the messenger's ``encumbrance`` above them.
The droppers of a span sit at ``first_dropper`` + k ``dropper_spacing`` (k = 0..8) from its
support; the contact wire's design height at a dropper is minus the pre-sag, a parabola through
the first and the last dropper of the span with its largest value ``presag`` at mid-span
([P]'s target sag 0, 24, 41, 52, 55 mm rounded to the mm).

Form-finding (``find_dropper_lengths``): the dropper lengths for which the static contact wire
has the design heights at the droppers. The wires are linear beams (transverse deflection only,
``BeamSpec.axial_force``), so a dropper's clamps stay one above the other and, with all
droppers taut, the statics are linear in the dropper tensions T (n,):

    K_c q_c = f_c + B_c^T T,     B_c q_c = h                  (contact wire; h the design)
    K_m q_m = f_m - B_m^T T                                   (messenger)

with K the beam's stiffness (its springs included), f its load (its weight, the clamps' and
half of each dropper's weight) and B the rows of the vertical deflection at the droppers. The
first two give T = (B_c K_c^-1 B_c^T)^-1 (h - B_c K_c^-1 f_c) by one linear solve, without
any dropper stiffness; the third the messenger's shape, hence each dropper's length l between
its clamps. The unstretched length follows from T = EA (l - l0) / l0: l0 = l EA / (EA + T).
Only the dropper's mass (``dropper_mass_per_length`` times l0) ties f back to l0; a fixed-point
pass on that converges by a factor ~ 1e-4 per pass (a millimetre of length is 0.1 g), so three
passes reach round-off. This is why a Newton iteration around ``static_equilibrium`` is not
needed: the problem is linear once the tensions are the unknowns.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import splu

from .. import validation as check
from ..elements.beam_model import BeamSpec
from ..laws import Dropper
from ..model import ContactPair, Model
from ..sides import CarriedBody
from ..structure_points import MaterialPoint, SpringSupport
from ..system import assemble

WIRES = ("contact_wire", "messenger")
# CatenaryData fields that may be 0
ZERO_ALLOWED = ("presag", "rayleigh_alpha", "rayleigh_beta", "dropper_stiffness")


@dataclass(frozen=True)
class CatenaryData:
    """The numbers of one simple catenary (SI), each with its source ([P], [I], [L], [B]: the
    module docstring).

    span : m, support to support [P]. encumbrance : m, the messenger above the contact wire at
    a support [P]. n_droppers : per span [P]. first_dropper : m, from the span's support [P].
    dropper_spacing : m [P]. presag : m, the contact wire's design sag at mid-span [P].
    contact_wire_tension, messenger_tension : N ([I]; [P] has 22 kN on the contact wire).
    contact_wire_mass, messenger_mass : kg/m [P]. contact_wire_bending, messenger_bending :
    EI, N m^2 [P]. dropper_axial_stiffness : EA of a dropper, N [P] (its stiffness is EA / l0).
    dropper_mass_per_length : kg/m [P]. contact_clamp_mass, messenger_clamp_mass : kg, the
    dropper clamps on each wire [P]. steady_arm_stiffness : N/m, the contact wire's support
    spring [P]. messenger_support_stiffness : N/m [P]. rayleigh_alpha : 1/s, rayleigh_beta : s,
    the wires' Rayleigh damping alpha M + beta K [B] (0, 0: undamped). dropper_stiffness :
    N/m, one axial stiffness for every dropper ([L]); 0 (the default) takes EA / l0 from
    ``dropper_axial_stiffness``. dropper_positions : m, (n_droppers,) increasing distances of
    the droppers from their span's support ([L]); () (the default) is the uniform layout of
    ``first_dropper`` and ``dropper_spacing``.
    """

    span: float = 55.0  # [P] "span"
    encumbrance: float = 1.2  # [P] "encumbrance"
    n_droppers: int = 9  # [P] "number of droppers"
    first_dropper: float = 4.5  # [P] "dropper positions"[0]
    dropper_spacing: float = 5.75  # [P] "dropper positions": 4.5, 10.25, ..., 50.5
    presag: float = 0.055  # [P] "target sag" at mid-span
    contact_wire_tension: float = 20e3  # [I] EN 50318; [P] 22 kN
    messenger_tension: float = 16e3  # [I] and [P]
    contact_wire_mass: float = 1.35  # [P] "line density"
    messenger_mass: float = 1.08  # [P] "line density"
    contact_wire_bending: float = 195.0  # [P] "EI" ([I]: about 195)
    messenger_bending: float = 131.7  # [P] "EI" ([I]: about 130)
    dropper_axial_stiffness: float = 2e5  # [P] dropper "EA"
    dropper_mass_per_length: float = 0.117  # [P] dropper "line density"
    contact_clamp_mass: float = 0.165  # [P] "contact wire clamp mass"
    messenger_clamp_mass: float = 0.195  # [P] "catenary cable clamp mass"
    steady_arm_stiffness: float = 2673.58  # [P] "contact wire suspension spring"
    messenger_support_stiffness: float = 5e5  # [P] "catenary cable suspension spring"
    rayleigh_alpha: float = 0.0125  # [B]
    rayleigh_beta: float = 1e-4  # [B]
    dropper_stiffness: float = 0.0  # 0: EA / l0 from dropper_axial_stiffness ([P])
    dropper_positions: tuple = ()  # (): first_dropper + k dropper_spacing ([P])

    def __post_init__(self):
        positions = self.dropper_positions
        for name, value in vars(self).items():
            if name == "dropper_positions":
                continue
            if name == "n_droppers":
                if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 2:
                    check.fail("CatenaryData.n_droppers", value, "an integer >= 2")
                object.__setattr__(self, name, int(value))
                continue
            low = 0.0 if name.endswith("mass") or name in ZERO_ALLOWED else None
            got = check.real(f"CatenaryData.{name}", value, low=low)
            if low is None and not got > 0.0:
                check.fail(f"CatenaryData.{name}", value, "a finite number > 0")
            object.__setattr__(self, name, got)
        if len(positions):
            x = np.asarray(positions, dtype=float)
            if (
                x.ndim != 1
                or x.size != self.n_droppers
                or not np.all(np.isfinite(x))
                or not np.all(np.diff(x) > 0.0)
                or not (x[0] > 0.0 and x[-1] < self.span)
            ):
                check.fail(
                    "CatenaryData.dropper_positions",
                    positions,
                    f"n_droppers = {self.n_droppers} increasing distances in (0, span = "
                    f"{self.span}) m from the span's support, or () for the uniform layout",
                )
            object.__setattr__(self, "dropper_positions", tuple(float(v) for v in x))
            return
        last = self.first_dropper + (self.n_droppers - 1) * self.dropper_spacing
        if not last < self.span:
            check.fail(
                "CatenaryData.dropper_spacing",
                self.dropper_spacing,
                f"droppers inside the span: first_dropper + {self.n_droppers - 1} spacings"
                f" < span = {self.span} m",
            )

    def dropper_offsets(self) -> np.ndarray:
        """The droppers' distances from their span's support, m, shape (n_droppers,):
        ``dropper_positions`` when given, else ``first_dropper`` + k ``dropper_spacing``."""
        if self.dropper_positions:
            return np.asarray(self.dropper_positions, dtype=float)
        return self.first_dropper + self.dropper_spacing * np.arange(self.n_droppers)

    def dropper_rate(self, unstretched) -> np.ndarray:
        """The droppers' axial stiffness in N/m for the unstretched lengths ``unstretched``
        (m, (n,)): ``dropper_stiffness`` when it is > 0, else EA / l0."""
        l0 = np.asarray(unstretched, dtype=float)
        if self.dropper_stiffness > 0.0:
            return np.full(l0.shape, self.dropper_stiffness)
        return self.dropper_axial_stiffness / l0

    def design_heights(self) -> np.ndarray:
        """The contact wire's design height at the droppers of a span, m, (n_droppers,): minus
        the parabola through the first and the last dropper with ``presag`` at mid-span."""
        x = self.dropper_offsets()
        a, b = x[0], x[-1]
        return -4.0 * self.presag * (x - a) * (b - x) / (b - a) ** 2


EN50318 = CatenaryData()
LINE_60M = CatenaryData(
    span=60.0,  # [L]
    dropper_positions=(5.0, 10.5, 17.0, 23.5, 30.0, 36.5, 43.0, 49.5, 55.0),  # [L]
    messenger_mass=1.07,  # [L]
    steady_arm_stiffness=300.0,  # [L]
    messenger_support_stiffness=5e4,  # [L]
    dropper_stiffness=1e5,  # [L]
)


@dataclass(frozen=True)
class Catenary:
    """What ``catenary`` builds: ``model`` (the two wires, droppers, springs, clamps),
    ``dropper_x`` (m, (n,): every dropper's position along the line), ``design_heights`` (m,
    (n,): the contact wire's design height there) and ``tensions`` (N, (n,): the droppers'
    static tensions of the form-finding)."""

    model: Model
    dropper_x: np.ndarray
    design_heights: np.ndarray
    tensions: np.ndarray


def catenary(
    n_spans: int = 2,
    data: CatenaryData = EN50318,
    max_element_length: float = 0.25,
    dropper_lengths=None,
) -> Catenary:
    """N spans of the simple catenary of ``data`` as a Model, with form-found droppers.

    n_spans : spans (>= 1). max_element_length : m, the longest element on either wire (0.25 m,
    the mesh of EN 50318-style studies). dropper_lengths : (n_spans * n_droppers,) unstretched lengths, m; None:
    found by ``find_dropper_lengths`` so that the static contact wire has the design heights.

    Examples
    --------
    >>> from fe_contact.papers.catenary import catenary
    >>> line = catenary(n_spans=1, max_element_length=1.0)
    >>> sorted(line.model.structures), len(line.model.contacts), line.dropper_x[:2].tolist()
    (['contact_wire', 'messenger'], 9, [4.5, 10.25])
    """
    if not isinstance(n_spans, numbers.Integral) or isinstance(n_spans, bool) or n_spans < 1:
        check.fail("n_spans", n_spans, "an integer >= 1")
    n_spans = int(n_spans)
    h = check.real("max_element_length", max_element_length)
    if not h > 0.0:
        check.fail("max_element_length", max_element_length, "a finite number > 0 in m")
    offsets = data.dropper_offsets()
    x = np.concatenate([k * data.span + offsets for k in range(n_spans)])
    heights = np.tile(data.design_heights(), n_spans)
    if dropper_lengths is None:
        lengths, tensions = find_dropper_lengths(n_spans, data, h)
    else:
        lengths = np.asarray(dropper_lengths, dtype=float)
        if lengths.shape != x.shape or not np.all(np.isfinite(lengths) & (lengths > 0.0)):
            check.fail(
                "dropper_lengths",
                dropper_lengths,
                f"{x.size} finite lengths > 0 in m (n_spans * n_droppers)",
            )
        tensions = np.full(x.size, np.nan)
    model = line_model(n_spans, data, h, lengths)
    return Catenary(model=model, dropper_x=x, design_heights=heights, tensions=tensions)


def line_model(n_spans: int, data: CatenaryData, max_element_length: float, lengths) -> Model:
    """The Model of ``n_spans`` spans with the droppers' unstretched ``lengths`` (m, (n,)).

    Each wire is one linear beam (``BeamSpec.axial_force``, Rayleigh damping ``rayleigh_alpha``
    and ``rayleigh_beta``) over the whole line, pinned at its two ends, with a spring at every inner support (steady arm, messenger support), its own
    weight and the clamps' masses (``CarriedBody``); each dropper is a ``Dropper`` of stiffness
    EA / l0 and mass l0 times its mass per length, from the contact wire to the messenger.
    """
    length = n_spans * data.span
    n_elements = math.ceil(length / max_element_length - 1e-9)

    def wire(tension, mass, bending, y):
        return BeamSpec(
            length=length,
            n_elements=n_elements,
            youngs_modulus=1.0,  # EI and rho A given as second_moment and area with E = rho = 1
            density=1.0,
            area=mass,
            second_moment=bending,
            left="pinned",
            right="pinned",
            origin=(0.0, y),
            axial_force=tension,
            rayleigh_alpha=data.rayleigh_alpha,
            rayleigh_beta=data.rayleigh_beta,
        )

    structures = {
        "contact_wire": wire(
            data.contact_wire_tension, data.contact_wire_mass, data.contact_wire_bending, 0.0
        ),
        "messenger": wire(
            data.messenger_tension, data.messenger_mass, data.messenger_bending, data.encumbrance
        ),
    }
    x = np.concatenate([k * data.span + data.dropper_offsets() for k in range(n_spans)])
    pairs, clamps = [], []
    for j, (xj, l0) in enumerate(zip(x, lengths, strict=True)):
        law = Dropper(
            stiffness=float(data.dropper_rate(l0)),
            length=float(l0),
            mass=data.dropper_mass_per_length * l0,
        )
        s = float(xj)
        pairs.append(
            ContactPair(
                f"d{j}", MaterialPoint("contact_wire", s), MaterialPoint("messenger", s), law
            )
        )
        clamps.append(CarriedBody(f"clamp_c{j}", "contact_wire", s, data.contact_clamp_mass))
        clamps.append(CarriedBody(f"clamp_m{j}", "messenger", s, data.messenger_clamp_mass))
    supports = []
    for k in range(1, n_spans):
        supports.append(SpringSupport("contact_wire", k * data.span, data.steady_arm_stiffness))
        supports.append(SpringSupport("messenger", k * data.span, data.messenger_support_stiffness))
    return Model(
        structures=structures,
        contacts=tuple(pairs),
        carried=tuple(clamps),
        supports=tuple(supports),
    )


def vertical_rows(structure, s) -> tuple[np.ndarray, np.ndarray]:
    """(B, offsets): the rows (m, n_dofs) of the vertical position at the material points s
    (m,) of a beam structure over its free coordinates, and the reference heights (m,)."""
    s = np.atleast_1d(np.asarray(s, dtype=float))
    q0 = structure.initial_coordinates()
    rows = np.zeros((s.size, structure.n_dofs))
    offsets = np.zeros(s.size)
    for i, si in enumerate(s):
        point = structure.curve(float(si), q0)
        rows[i, point.dofs] = point.rows[1]
        offsets[i] = point.position[1]
    return rows, offsets


def find_dropper_lengths(
    n_spans: int, data: CatenaryData = EN50318, max_element_length: float = 0.25, passes: int = 4
) -> tuple[np.ndarray, np.ndarray]:
    """The droppers' unstretched lengths l0 (m, (n,)) and static tensions T (N, (n,)) for which
    the static contact wire has ``data``'s design heights at every dropper (module docstring:
    one linear solve for T, the messenger's shape, l0 = l EA / (EA + T); ``passes`` fixed-point
    passes for the droppers' own weight, which depends on l0).

    Raises ValueError if a dropper would have to push (T <= 0): no taut design exists.
    """
    n = n_spans * data.n_droppers
    x = np.concatenate([k * data.span + data.dropper_offsets() for k in range(n_spans)])
    target = np.tile(data.design_heights(), n_spans)
    lengths = np.full(n, data.encumbrance)
    tensions = np.zeros(n)
    for _ in range(passes):
        system = assemble(line_model(n_spans, data, max_element_length, lengths))
        contact, messenger = (system.structures[w] for w in WIRES)
        b_c, y_c = vertical_rows(contact, x)
        b_m, y_m = vertical_rows(messenger, x)
        lu_c = splu(contact.stiffness_matrix.tocsc())
        lu_m = splu(messenger.stiffness_matrix.tocsc())
        flex = b_c @ lu_c.solve(b_c.T)  # (n, n): deflections per unit dropper pull
        free = b_c @ lu_c.solve(contact.load)
        tensions = np.linalg.solve(flex, target - y_c - free)
        q_m = lu_m.solve(messenger.load - b_m.T @ tensions)
        span = (y_m + b_m @ q_m) - target  # l: clamp to clamp
        if data.dropper_stiffness > 0.0:  # T = k (l - l0)
            lengths = span - tensions / data.dropper_stiffness
        else:  # T = EA (l - l0) / l0
            ea = data.dropper_axial_stiffness
            lengths = span * ea / (ea + tensions)
    if np.any(tensions <= 0.0):
        j = int(np.argmin(tensions))
        raise ValueError(
            f"find_dropper_lengths: dropper d{j} at x = {x[j]} m would need the tension "
            f"{tensions[j]:.4g} N; allowed: a design in which every dropper pulls (T > 0)"
        )
    return lengths, tensions
