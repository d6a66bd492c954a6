"""``fe-contact demo disk-on-string``: a rigid disk falls into / rolls on a hanging neo-Hookean
string, Eugster-Glocker (004), sec. 5, with the Moreau-Jean stepper on the common System.

Data (004, Table 1; ``fe_contact.papers.eugster_glocker``): unstretched length L = 1 m, supports
A = (0, 0) and B = (0.8, 0) m (pinned), rho0 = 0.3142 kg/m, neo-Hookean k = 853.75 N (004 eq.
(17)), g = 9.81 m/s^2, mu = 0.2, restitution 0 (004 sec. 4.5), nel = 2 Hermite elements (option
for more). The disk is a tree body (``floating_body``, q = (x, y, angle)); contact "disk" uses the
candidate grid of 004 eqs. (20)-(25). Example 1: heavy disk, R = 0.3 m, rho_D = 100 kg/m^2
(m = 28.3 kg), ncp = 20, released from rest 0.01 m above the middle of the static string; the
string wraps around it with several closed contacts. Example 2: light disk, R = 0.1 m,
rho_D = 0.1 kg/m^2, ncp = 60, set at rest on the static string at s = 0.3 m; it rolls down
towards the middle and back. Initial positions are our choice (the paper gives none; see
``papers.eugster_glocker.disk_on_string``).

Time stepping: Moreau-Jean with h = 1e-3 s and theta = 0.55 by default. theta = 1/2 (Moreau's
midpoint, no numerical damping, exact discrete energy balance) runs the paper's 2-element string
fine, but with 16 or more elements at h = 2e-3 s (omega_max h ~ 10) the linearised midpoint rule
lets the unresolved string modes grow; a slightly larger theta damps them and costs little (the
disk's free flight loses (theta - 1/2) m g^2 h^2 per step). Steps in which a contact closes are
subdivided (``penetration_tolerance``, default 1e-5 m) so that no candidate penetrates the disk
by more than that; ``--penetration-tolerance 0`` gives plain fixed steps (penetration up to about
theta h times the closing speed, 0.5 mm in example 1). ``--damping`` (beta, s) adds string
damping beta K_t(q), which 004 does not have; it lets example 1 come to rest within seconds (the
rest states do not depend on it).

Writes to ``OUT/example<N>/`` (default OUT = ``out/disk_on_string``): ``history.csv`` (the
standard columns: ``disk_*`` contact columns with ``disk_n_closed`` the closed candidates,
``disk_gap`` the smallest gap, the energy balance, ``n_substeps``, ``solver_residual``),
``frames.pvd`` + ``.vtm`` (every ``--vtk-stride`` s of simulated time: the string with its
tension, the disk outline with a spoke, the closed candidates with their forces; written as the
run goes) and ``example<N>.png/.svg`` (string and disk at a few times, disk height and closed
contacts).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..io.model_sections import InitialState, ModelFile, Output, Simulation
from ..io.model_writer import save_model
from ..papers import eugster_glocker as eg
from ..papers.eugster_glocker import PENETRATION_TOLERANCE, THETA
from ..steppers.observers import standard_observers
from . import DemoParser, folder

VTK_STRIDE = 0.01  # s of simulated time between ParaView frames


def run(
    example: int = 1,
    n_elements: int = 2,
    t_end: float | None = None,
    h: float | None = None,
    out="out/disk_on_string",
    theta: float = THETA,
    stiffness_damping: float = 0.0,
    friction: float = eg.FRICTION,
    n_contact_points: int | None = None,
    plot: bool = True,
    vtk_stride: float | None = VTK_STRIDE,
    penetration_tolerance: float | None = PENETRATION_TOLERANCE,
    progress: bool = False,
    keep_reports: bool = False,
):
    """Simulate example 1 or 2 and write its files; returns (system, result).

    t_end, h : None = the example's defaults (2 s, 1e-3 s). out : folder, None writes nothing.
    vtk_stride : s of simulated time between frames (rounded to whole steps, the last state is
        always written); None or 0: no ParaView series.
    penetration_tolerance : m, sub-stepping at contact closures (None: fixed steps).
    """
    if example not in eg.DISKS:
        raise ValueError(f"example: got {example!r}; allowed: {sorted(eg.DISKS)}")
    t_default, h_default = eg.DISKS[example][3:]
    t_end = t_default if t_end is None else t_end
    h = h_default if h is None else h
    if vtk_stride is not None and not (np.isscalar(vtk_stride) and vtk_stride >= 0.0):
        raise ValueError(
            f"vtk_stride: got {vtk_stride!r}; allowed: seconds >= 0 between frames, or None"
        )
    scenario = eg.disk_on_string(example, n_elements, friction, stiffness_damping, n_contact_points)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = scenario.assemble()
    observers = []
    folder = None if out is None else Path(out) / f"example{example}"
    if folder is not None:
        run_file = ModelFile(
            model,
            Simulation(
                t_end,
                "moreau",
                h=h,
                settings={"theta": theta, "penetration_tolerance": penetration_tolerance or 0.0},
            ),
            InitialState.from_state(system, q0, u0),
            Output(
                frame_every=vtk_stride or 0.0,
                results=("max:disk_n_closed", "final:dissipated_friction", "min:disk_gap"),
            ),
        )
        save_model(run_file, folder / "model.toml")
        observers = standard_observers(
            folder, h, vtk_stride, f"disk-on-string {example}" if progress else None
        )
    result = scenario.run(
        system,
        t_span=(0.0, t_end),
        h=h,
        observers=observers,
        keep_reports=keep_reports,
        theta=theta,
        penetration_tolerance=penetration_tolerance,
    )
    if folder is not None and plot:
        plot_run(system, result, folder / f"example{example}")
    return system, result


RUNNING_MEAN = 0.025  # window of the mean number of closed contacts, a fraction of the run


def running_mean(t, counts, window: float) -> np.ndarray:
    """Mean of a per-step count over the ``window`` s ending at each t[k] (k,).

    Row k > 0 counts over the step (t[k-1], t[k]] and weighs with its length; row 0 (the
    initial instant) has no length and is its own mean; the first rows average over less.
    """
    t = np.asarray(t, dtype=float)
    counts = np.asarray(counts, dtype=float)
    dt = np.diff(t)
    area = np.concatenate([[0.0], np.cumsum(counts[1:] * dt)])  # integral of the count from t[0]
    start = np.maximum(t - window, t[0])
    # the integral up to ``start``: whole steps before it plus the part of the step holding it
    k = np.clip(np.searchsorted(t, start, side="right"), 1, t.size - 1)
    before = area[k - 1] + counts[k] * (start - t[k - 1])
    span = t - start
    mean = counts.copy()
    inside = span > 0.0
    mean[inside] = (area[inside] - before[inside]) / span[inside]
    return mean


def plot_run(system, result, path, n_frames: int = 5) -> list[Path]:
    """String shapes and disk at n_frames times; disk height over time; the number of closed
    contacts over time (the ``disk_n_closed`` column) in a panel of its own, a step plot with
    integer ticks (row k counts the points closed in the step (t[k-1], t[k]], as the contact
    state bands of ``io.plots``) under its running mean over ``RUNNING_MEAN`` of the run (a
    count that chatters from step to step still shows its trend)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    from ..io.plots import save_figure

    string = system.structures["string"]
    sl = system.layout.structure("string")
    radius = system.model.contacts[0].profile.radius
    grid = system.grids[0]
    s = np.linspace(0.0, string.length, 201)
    fig = Figure(figsize=(11, 5.0), layout="constrained")
    panels = fig.subplot_mosaic([["shape", "height"], ["shape", "closed"]])
    ax, ax_h, ax_n = panels["shape"], panels["height"], panels["closed"]
    frames = np.unique(np.linspace(0, result.t.size - 1, n_frames).round().astype(int))
    colors = [f"C{i}" for i in range(frames.size)]
    angle = np.linspace(0.0, 2.0 * np.pi, 121)
    for k, color in zip(frames, colors, strict=True):
        q = result.q[k]
        r = string.positions(s, q[sl])
        ax.plot(r[:, 0], r[:, 1], color=color, label=f"t = {result.t[k]:.2f} s")
        c, phi = q[:2], q[2]
        ax.plot(c[0] + radius * np.cos(angle), c[1] + radius * np.sin(angle), color=color, lw=1)
        ax.plot(
            [c[0], c[0] + radius * np.sin(phi)], [c[1], c[1] - radius * np.cos(phi)], color=color
        )
        if grid is not None:
            p = grid.positions(q[sl])
            ax.plot(p[:, 0], p[:, 1], ".", color=color, ms=3)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(f"disk R = {radius:g} m on the string ({len(string.nodes) - 1} elements)")
    ax_h.plot(result.t, result.q[:, 1])
    ax_h.set_ylabel("disk centre y [m]")
    ax_h.set_title("disk height")
    ax_h.grid(True, alpha=0.3)
    ax_h.tick_params(labelbottom=False)
    ax_n.sharex(ax_h)
    closed = np.asarray(result["disk_n_closed"], dtype=float)
    ax_n.step(
        result.t,
        closed,
        where="pre",
        color="C1",
        lw=0.8,
        alpha=0.6,
        gid="disk_n_closed",
        label="per step",
    )
    window = RUNNING_MEAN * float(result.t[-1] - result.t[0])
    if window > 0.0 and result.t.size > 2:
        ax_n.plot(
            result.t,
            running_mean(result.t, closed, window),
            color="k",
            lw=1.5,
            gid="disk_n_closed mean",
            label=f"mean over {1e3 * window:.3g} ms",
        )
        ax_n.legend(  # above the panel, right of its title: off the counts
            loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, ncols=2, frameon=False
        )
    ax_n.set_xlabel("t [s]")
    ax_n.set_ylabel("closed contacts")
    ax_n.set_title("closed contact points", loc="left")
    top = float(np.nanmax(closed)) if closed.size and np.any(np.isfinite(closed)) else 1.0
    ax_n.set_ylim(-0.3, max(top, 1.0) + 0.3)
    ax_n.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=2))
    ax_n.grid(True, alpha=0.3)
    return save_figure(fig, path)


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo disk-on-string", description=__doc__, module=__name__)
    parser.add_argument("--example", type=int, choices=(1, 2), default=1, help="1 or 2")
    parser.add_argument("--elements", type=int, default=2, help="string elements (default: 2)")
    parser.add_argument("--t-end", type=float, default=None, help="end time in s (default: 2)")
    parser.add_argument("--h", type=float, default=None, help="time step in s (default: 1e-3)")
    parser.add_argument(
        "--theta", type=float, default=THETA, help=f"theta in [0.5, 1] (default: {THETA})"
    )
    parser.add_argument(
        "--damping", type=float, default=0.0, help="string damping beta in s (default: 0)"
    )
    parser.add_argument(
        "--out",
        type=folder,
        default="out/disk_on_string",
        help="output folder (default: out/disk_on_string)",
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
    if args.elements < 1:
        parser.fail("--elements", args.elements, "an integer >= 1")
    for option, value in (
        ("--vtk-stride", args.vtk_stride),
        ("--penetration-tolerance", args.penetration_tolerance),
        ("--damping", args.damping),
    ):
        if not (np.isfinite(value) and value >= 0.0):
            parser.fail(option, value, "a finite value >= 0")
    for option, value in (("--t-end", args.t_end), ("--h", args.h)):
        if value is not None and not (np.isfinite(value) and value > 0.0):
            parser.fail(option, value, "a finite value > 0 in s")
    if not 0.5 <= args.theta <= 1.0:
        parser.fail("--theta", args.theta, "0.5 <= theta <= 1")
    _, res = run(
        args.example,
        args.elements,
        args.t_end,
        args.h,
        args.out,
        theta=args.theta,
        stiffness_damping=args.damping,
        vtk_stride=args.vtk_stride,
        penetration_tolerance=args.penetration_tolerance or None,
        progress=True,
    )
    closed = res["disk_n_closed"]
    print(f"{res.status}: {res.message}")
    print(
        f"example {args.example}: {res.n_steps} steps of h = {res.t[1] - res.t[0]:g} s in "
        f"{res.wall_time:.1f} s wall time"
    )
    print(f"final disk centre: ({res.q[-1, 0]:.5f}, {res.q[-1, 1]:.5f}) m")
    print(f"closed contacts at the end: {closed[-1]:.0f}, max over run: {closed.max():.0f}")
    print(f"max penetration: {max(0.0, -np.min(res['disk_gap'])):.3e} m")
    print(
        f"sub-steps: {res.n_substeps} (at most {res['n_substeps'].max():.0f} in one step); "
        f"max |energy error| {np.max(np.abs(res['energy_error'])):.2g} J"
    )
    print(f"files in {Path(args.out) / f'example{args.example}'}")
    return 0 if res.success else 1
