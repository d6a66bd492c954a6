"""A rigid disk falls into / rolls on a hanging neo-Hookean string, Eugster-Glocker (004), sec. 5.

Data (004, Table 1): unstretched length L = 1 m, supports A = (0, 0) and B = (0.8, 0) m (pinned,
same height), rho0 = 0.3142 kg/m, neo-Hookean k = 853.75 N (004 eq. (17)), g = 9.81 m/s^2,
mu = 0.2, restitution 0 (004 sec. 4.5), nel = 2 Hermite elements (option for more).

Initial positions (the paper gives none; Figs. 6 and 7 are missing from our copy). The string
starts at rest in its static shape under its own weight (Newton, ``string_statics``), computed
for the chosen number of elements. Example 1: heavy disk, R = 0.3 m, rho_D = 100 kg/m^2
(m = 28.3 kg), ncp = 20 candidate points, released from rest with its lowest point 0.01 m above
the string's middle (s = L/2, which is also the lowest point of the symmetric static string), so
the drop is symmetric; it falls into the string, which wraps around it with several closed
contacts. Example 2: light disk, R = 0.1 m, rho_D = 0.1 kg/m^2, ncp = 60, set at rest on the
static string, touching it at the material point s = 0.3 m (off-centre, centre on the string's
normal at that point); it rolls down towards the middle and back. Disk angle 0 at the start.

Time stepping: Moreau-Jean (``fe_contact.steppers.moreau_old``) with h = 1e-3 s and theta = 0.55 by
default. theta = 1/2 (Moreau's midpoint, no numerical damping) runs the paper's 2-element string
fine, but with 16 or more elements at h = 2e-3 s (omega_max h ~ 10) the linearised midpoint rule
lets the unresolved string modes grow; a slightly larger theta damps them and costs little (the
disk's free flight loses (theta - 1/2) m g^2 h^2 per step). Steps in which a contact closes are
subdivided (``penetration_tolerance``, default 1e-5 m) so that no candidate penetrates the disk
by more than that; ``--penetration-tolerance 0`` gives plain fixed steps (penetration up to
about theta h times the closing speed, 0.5 mm in example 1). ``stiffness_damping`` (beta, s)
adds string damping C = beta K, which 004 does not have; it lets example 1 come to rest within
seconds (the static rest state does not depend on it).

Writes to ``out`` (default ``out/disk_on_string``):

* ``example{1,2}_history.csv``: scalar histories (see ``MoreauResult``: disk position and
  velocity, closed contacts, impulses, penetration ``max_penetration`` in m, slip, energies,
  solver counters, sub-steps);
* ``example{1,2}.png``: string and disk at a few times, disk height and closed contacts;
* ``example{1,2}_frames/example{1,2}.pvd`` with ``.vtu`` frames every ``--vtk-stride`` seconds of
  simulated time (default 0.01 s; 0: none), written while the run goes (an interrupted run
  leaves a valid series up to its last frame). Each frame (``moreau.frame_blocks``): the string
  as a polyline sampled inside the elements (displacement, tangent, curvature, stretch, tension
  in N), the disk's outline with a spoke (from the centre to the material point that is lowest
  at t = 0), and the closed candidate points as vertices with the forces on the disk
  ``normal_force`` and ``friction_force`` (N, impulse / h of the step), ``gap`` (m),
  ``slip_velocity`` (m/s), ``contact`` (candidate index) and ``material_point`` (s_i, m). In
  ParaView: open the .pvd, Glyph on the contact vertices with normal_force as orientation and
  scale array.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..coupling.setvalued import ContactLaw
from ..elements.string import (
    StringSpec,
    assemble_string,
    evaluate,
)
from ..elements.string_statics import static_equilibrium
from ..papers import eugster_glocker as eg
from ..steppers.moreau_old import (
    PENETRATION_TOLERANCE,
    Disk,
    DiskContactModel,
    MoreauPvdWriter,
    MoreauResult,
    candidate_gaps,
    disk_contact_model,
    initial_state,
    simulate,
    string_coordinates,
)

LENGTH, SPAN, MU, EXAMPLES = eg.LENGTH, eg.SPAN, eg.FRICTION, eg.DISKS
RELEASE_GAP = 0.01  # example 1: height of the disk's bottom above the static string, m
START_S = 0.3  # example 2: material point under the disk at t = 0, m
VTK_STRIDE = 0.01  # s of simulated time between ParaView frames
SAMPLES_PER_ELEMENT = 16  # string polyline points per element in the frames


def string_spec(n_elements: int = 2) -> StringSpec:
    """The string of 004 Table 1 (``papers.eugster_glocker.table1_string``)."""
    return eg.table1_string(n_elements)


@lru_cache(maxsize=8)
def hanging_string(n_elements: int = 2):
    """(StringModel, q_static): the string and its static shape under its own weight."""
    model = assemble_string(string_spec(n_elements))
    return model, static_equilibrium(model).q


@dataclass(frozen=True, eq=False)
class Setup:
    """Model and initial state of an example: model, q0, u0 (system layout)."""

    model: DiskContactModel
    q0: np.ndarray
    u0: np.ndarray


def setup(
    example: int = 1,
    n_elements: int = 2,
    friction: float = MU,
    stiffness_damping: float = 0.0,
    n_contact_points: int | None = None,
) -> Setup:
    """Model and initial state of example 1 or 2 (see the module docstring)."""
    if example not in EXAMPLES:
        raise ValueError(f"example: got {example!r}; allowed: {sorted(EXAMPLES)}")
    radius, density, ncp, _, _ = EXAMPLES[example]
    string, q_static = hanging_string(n_elements)
    model = disk_contact_model(
        Disk.from_areal_density(radius, density),
        string,
        n_contact_points=ncp if n_contact_points is None else n_contact_points,
        string_law=ContactLaw(friction=friction),
        stiffness_damping=stiffness_damping,
    )
    if example == 1:
        lowest = evaluate(string, q_static, [0.5 * LENGTH]).position[:, 0]
        centre = lowest + np.array([0.0, radius + RELEASE_GAP])
    else:
        point = evaluate(string, q_static, [START_S])
        centre = point.position[:, 0] + radius * point.normal[:, 0]
    q0, u0 = initial_state(model, centre, q_string=q_static)
    if candidate_gaps(model, q0).min() < -1e-12:
        raise RuntimeError("setup: the initial disk overlaps the string")
    return Setup(model, q0, u0)


@dataclass(frozen=True, eq=False)
class DiskOnStringRun:
    """result : MoreauResult; model : DiskContactModel; wall_time : s; files : written paths."""

    result: MoreauResult
    model: DiskContactModel
    wall_time: float
    files: tuple[Path, ...]


def run(
    example: int = 1,
    n_elements: int = 2,
    t_end: float | None = None,
    h: float | None = None,
    out="out/disk_on_string",
    theta: float = 0.55,
    stiffness_damping: float = 0.0,
    friction: float = MU,
    n_contact_points: int | None = None,
    plot: bool = True,
    vtk_stride: float | None = VTK_STRIDE,
    penetration_tolerance: float | None = PENETRATION_TOLERANCE,
) -> DiskOnStringRun:
    """Simulate example 1 or 2; write the history CSV, the ParaView series and the figure.

    t_end, h : None = the example's defaults (2 s, 1e-3 s). out : None writes nothing.
    vtk_stride : s of simulated time between frames (rounded to a whole number of steps, at
        least one step; the final state is always written), None or 0: no ParaView series.
    penetration_tolerance : m, sub-stepping at contact closures (None: fixed steps).
    plot : write the PNG figure.
    """
    if example not in EXAMPLES:
        raise ValueError(f"example: got {example!r}; allowed: {sorted(EXAMPLES)}")
    _, _, _, t_default, h_default = EXAMPLES[example]
    t_end = t_default if t_end is None else t_end
    h = h_default if h is None else h
    if not (np.isscalar(t_end) and np.isfinite(t_end) and t_end > 0.0):
        raise ValueError(f"t_end: got {t_end!r}; allowed: an end time > 0 in s")
    if not (np.isscalar(h) and np.isfinite(h) and 0.0 < h <= t_end):
        raise ValueError(f"h: got {h!r}; allowed: a step 0 < h <= t_end = {t_end!r} in s")
    if vtk_stride is not None and not (np.isscalar(vtk_stride) and vtk_stride >= 0.0):
        raise ValueError(
            f"vtk_stride: got {vtk_stride!r}; allowed: seconds >= 0 between frames, or None"
        )
    case = setup(example, n_elements, friction, stiffness_damping, n_contact_points)
    files = []
    csv_path = None if out is None else Path(out) / f"example{example}_history.csv"
    writer = None
    if out is not None and vtk_stride:
        writer = MoreauPvdWriter(
            case.model,
            Path(out) / f"example{example}_frames",
            h,
            name=f"example{example}",
            stride=max(1, int(round(vtk_stride / h))),
            samples_per_element=SAMPLES_PER_ELEMENT,
        )
    start = time.perf_counter()
    try:
        result = simulate(
            case.model,
            case.q0,
            case.u0,
            t_end,
            h=h,
            theta=theta,
            csv_path=csv_path,
            penetration_tolerance=penetration_tolerance,
            observer=None if writer is None else writer.observe,
        )
        if writer is not None and writer.last_written != result.t[-1]:
            writer.write_state(
                result.t[-1],
                result.q[-1],
                np.flatnonzero(np.isfinite(result.slip_velocity[-1])),
                result.normal_impulses[-1],
                result.tangent_impulses[-1],
                result.slip_velocity[-1],
            )
    finally:
        if writer is not None:
            writer.close()
    wall = time.perf_counter() - start
    if out is not None:
        files.append(csv_path)
        if writer is not None:
            files.append(writer.pvd_path)
        if plot:
            files.append(plot_run(result, case.model, Path(out) / f"example{example}.png"))
    return DiskOnStringRun(result, case.model, wall, tuple(files))


def plot_run(result: MoreauResult, model: DiskContactModel, path, n_frames: int = 5) -> Path:
    """String shapes and disk at n_frames times, and the disk height and closed contacts."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, (ax, ax_h) = plt.subplots(1, 2, figsize=(11, 4.5))
    s = np.linspace(0.0, model.string.spec.length, 201)
    frames = np.unique(np.linspace(0, result.t.size - 1, n_frames).round().astype(int))
    colors = plt.cm.viridis(np.linspace(0.0, 0.9, frames.size))
    angle = np.linspace(0.0, 2.0 * np.pi, 121)
    radius = model.disk.radius
    for k, color in zip(frames, colors, strict=True):
        q_string = string_coordinates(model, result.q[k])
        r = evaluate(model.string, q_string, s).position
        ax.plot(r[0], r[1], color=color, label=f"t = {result.t[k]:.2f} s")
        c = result.disk_position[k]
        phi = result.disk_angle[k]
        ax.plot(c[0] + radius * np.cos(angle), c[1] + radius * np.sin(angle), color=color, lw=1)
        ax.plot(
            [c[0], c[0] + radius * np.sin(phi)], [c[1], c[1] - radius * np.cos(phi)], color=color
        )
        points = evaluate(model.string, q_string, model.contact_points).position
        ax.plot(points[0], points[1], ".", color=color, ms=3)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(f"disk R = {radius:g} m on the string ({model.string.n_elements} elements)")
    ax_h.plot(result.t, result.disk_position[:, 1], label="disk centre y [m]")
    ax_h.set_xlabel("t [s]")
    ax_h.set_ylabel("y [m]")
    ax_n = ax_h.twinx()
    ax_n.plot(result.t, result.n_active, color="C1", lw=0.7, label="closed contacts")
    ax_n.set_ylabel("closed contacts")
    ax_h.set_title("disk height and closed contacts")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="fe-contact demo disk-on-string",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--example", type=int, choices=(1, 2), default=1, help="1 or 2")
    parser.add_argument("--elements", type=int, default=2, help="string elements (default: 2)")
    parser.add_argument("--t-end", type=float, default=None, help="end time in s (default: 2)")
    parser.add_argument("--h", type=float, default=None, help="time step in s (default: 1e-3)")
    parser.add_argument(
        "--theta", type=float, default=0.55, help="theta in [0.5, 1] (default: 0.55)"
    )
    parser.add_argument(
        "--damping", type=float, default=0.0, help="string damping beta in s (default: 0)"
    )
    parser.add_argument(
        "--out", default="out/disk_on_string", help="output folder (default: out/disk_on_string)"
    )
    parser.add_argument(
        "--vtk-stride",
        type=float,
        default=VTK_STRIDE,
        help=f"s of simulated time between ParaView frames (default: {VTK_STRIDE}; 0: none)",
    )
    parser.add_argument(
        "--penetration-tolerance",
        type=float,
        default=PENETRATION_TOLERANCE,
        help=f"m, sub-steps at contact closures (default: {PENETRATION_TOLERANCE:g}; 0: off)",
    )
    args = parser.parse_args(argv)
    if args.vtk_stride < 0.0 or args.penetration_tolerance < 0.0:
        parser.error("--vtk-stride and --penetration-tolerance must be >= 0")
    outcome = run(
        args.example,
        args.elements,
        args.t_end,
        args.h,
        args.out,
        theta=args.theta,
        stiffness_damping=args.damping,
        vtk_stride=args.vtk_stride,
        penetration_tolerance=args.penetration_tolerance or None,
    )
    res = outcome.result
    print(
        f"example {args.example}: {res.t.size - 1} steps of h = {res.h:g} s in "
        f"{outcome.wall_time:.1f} s wall time"
    )
    print(f"final disk centre: ({res.disk_position[-1, 0]:.5f}, {res.disk_position[-1, 1]:.5f}) m")
    print(f"closed contacts at the end: {res.n_active[-1]}, max over run: {res.n_active.max()}")
    print(f"max penetration: {res.max_penetration.max():.3e} m")
    print(f"sub-steps: {res.n_substeps.sum()} (at most {res.n_substeps.max()} in one step)")
    print(f"max solver sweeps per step: {res.solver_iterations.max()}")
    print("wrote:")
    for f in outcome.files:
        print(f"  {f}")
    return 0
