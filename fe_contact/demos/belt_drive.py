"""``fe-contact demo belt-drive``: an elastic belt over two pulleys, the driver turned at a
constant speed, the driven pulley braked by a load torque; the steady state against the creep
theory of Grashof and Reynolds (tension ratio, adhesion and creep arcs, speed ratio).

Model (``fe_contact.papers.belt``, every number in ``BeltData``; obtained in one place,
``belt_scenario``): a weightless string (EA = 100 N, rho0 A = 0.01 kg/m, 30 elements) over two
pulleys of R = 0.05 m, their centres 0.5 m apart, mu = 0.5; the driver at 20 rad/s (a drive),
the driven pulley under M0 = 0.08 N m plus 4e-3 N m s/rad times its speed; an open belt whose
two ends carry the tensioner's T2 = 2 N on the slack span. Contact: a candidate grid of 88
points per pulley (Eugster-Glocker (004), eqs. 20-25) under Moreau-Jean, h = 1e-3 s,
theta = 0.55.

Writes to OUT (default ``out/belt-drive``): ``history.csv`` (the standard columns: ``driver_q``,
``driven_q``, ``driven_u``, ``drive_0_force`` the driver's torque, ``driver_n_closed``, the
energy balance), ``frames.pvd`` (ParaView series every ``--vtk-stride`` s: the belt with its
tension, both pulleys, and each closed candidate as a point with its own ``state`` (0 open,
1 slip, 2 stick), ``normal_force`` and ``friction_force`` (vectors for Glyph),
``slip_velocity`` (m/s) and ``parameter`` (the material coordinate s, m)), ``summary.csv``
(the steady state from ``--start`` on against the creep theory: span tensions T1, T2 and
T1 / T2 against e^(mu pi), each pulley's creep arc from the candidates' states against
ln(T1 / T2) / mu, the speed ratio against (1 + T2 / EA) / (1 + T1 / EA), the driver's torque,
the slip on the adhesion and creep arcs), ``tension.csv`` (tension along the belt at the last
row against the closed form), ``arcs.csv`` (every candidate of the steady window: t, pulley,
angle from the entry, state), and the figures ``tension_along_belt.png/.svg`` (tension
against the position along the loop with the closed form: constant on the spans and the
adhesion arcs, exponential on the creep arcs) and ``arc_states.png/.svg`` (each candidate's
state against its angle from the entry and time, on each pulley, with the closed-form and
the measured start of the creep arc).
"""

from __future__ import annotations

import csv
import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..papers import belt as bp
from ..steppers.contact_report import STATE_CODES
from ..steppers.observers import standard_observers
from . import DemoParser, count, folder, nonnegative, positive

H = 1e-3  # s, time step of the scenario
THETA = 0.55  # Moreau-Jean's theta: damps the belt's unresolved axial modes
VTK_STRIDE = 0.01  # s of simulated time between ParaView frames
STEADY = 0.5  # the steady window starts at this fraction of the run (0.2 s of 0.4 s)
PULLEYS = ("driver", "driven")  # the contact pairs of the pulleys, 0 and 1, by name
SUMMARY_HEADER = ("quantity", "simulated", "closed_form", "unit", "meaning")


def belt_scenario(data: bp.BeltData | bp.ClosedBeltData):
    """The belt drive the demo runs, as a Scenario: ``papers.belt.belt_drive`` (the open belt
    with a tensioner) for a ``BeltData``, ``papers.belt.closed_belt_drive`` (the closed belt,
    pre-tensioned by the centre distance) for a ``ClosedBeltData``. The one place where the
    demo takes its model."""
    if isinstance(data, bp.ClosedBeltData):
        return bp.closed_belt_drive(data)
    return bp.belt_drive(data)


def run(
    data: bp.BeltData | bp.ClosedBeltData | None = None,
    t_end: float | None = None,
    h: float = H,
    out="out/belt-drive",
    theta: float = THETA,
    vtk_stride: float | None = VTK_STRIDE,
    start: float | None = None,
    plot: bool = True,
    progress: bool = False,
):
    """Simulate the belt drive and write its files (module docstring); returns
    (system, result, summary) with ``summary`` the rows of ``summary.csv`` (``summary_rows``).

    t_end : s; None = the scenario's (0.4 s). start : s, the start of the steady window; None =
    ``STEADY`` t_end. out : folder, None writes nothing. vtk_stride : s of simulated time
    between frames (None or 0: no series). The result keeps its step reports (the candidates'
    states and forces for the summary and the figures).
    """
    data = bp.BeltData() if data is None else data
    scenario = belt_scenario(data)
    t_end = scenario.t_span[1] if t_end is None else float(t_end)
    travel = data.speed * data.radius * t_end
    if isinstance(data, bp.BeltData) and travel >= data.feed:
        raise ValueError(
            f"t_end: got {t_end!r} s; allowed: < feed / (speed R) = "
            f"{data.feed / (data.speed * data.radius):.4g} s (the belt's end on the feed must "
            "not reach the driven pulley)"
        )
    start = STEADY * t_end if start is None else float(start)
    if not 0.0 <= start < t_end:
        raise ValueError(f"start: got {start!r} s; allowed: 0 <= start < t_end = {t_end:g} s")
    system = scenario.assemble()
    folder_ = None if out is None else Path(out)
    observers = [] if folder_ is None else standard_observers(
        folder_, h, vtk_stride, "belt-drive" if progress else None
    )  # fmt: skip
    result = scenario.run(
        system, t_span=(0.0, t_end), h=h, theta=theta, observers=observers, keep_reports=True
    )
    summary = summary_rows(system, data, result, start)
    if folder_ is not None:
        write_belt_tables(system, data, result, summary, start, folder_)
        if plot:
            plot_tension(system, data, result, start, folder_ / "tension_along_belt")
            plot_pulley_states(data, result, start, folder_ / "arc_states")
    return system, result, summary


# -- the belt's measures: position along the loop, tension along it, states on the arcs -------


def loop_position(data: bp.BeltData, position: np.ndarray) -> np.ndarray:
    """Position (m) along the loop of the points ``position`` (2, m), counted with the belt's
    motion from where it enters the driven pulley (its bottom): the driven pulley's arc
    [0, pi R], the upper (tight) span [pi R, pi R + d], the driver's arc, the lower (slack)
    span [2 pi R + d, 2 pi R + 2 d]. A point is on an arc when it lies beyond the line of
    the pulley's centre (x < 0 or x > d), else on the span of its side. Shape (m,)."""
    position = np.asarray(position, dtype=float)
    x, y = position
    r, d = data.radius, data.centre_distance
    half = math.pi * r
    at = np.where(y > 0.0, half + (d - x), 2.0 * half + d + x)  # the spans
    driven, driver = x > d, x < 0.0
    at[driven] = r * bp.arc_from_entry(data, 1, position[:, driven])
    at[driver] = half + d + r * bp.arc_from_entry(data, 0, position[:, driver])
    return at


def closed_form_tension(data: bp.BeltData, at) -> np.ndarray:
    """The creep theory's tension (N) at the positions ``at`` along the loop (m,
    ``loop_position``): T2 on the lower span and on the driven pulley's adhesion arc, rising as
    T2 e^{mu (phi - phi_a)} on its creep arc to T1, T1 on the upper span and the driver's
    adhesion arc, falling as T1 e^{-mu (phi - phi_a)} on its creep arc; phi from each
    pulley's entry, phi_a = pi - ln(T1 / T2) / mu (T1, T2: ``BeltData``)."""
    at = np.asarray(at, dtype=float)
    r, d, mu = data.radius, data.centre_distance, data.mu
    tight, slack = data.tight_tension, data.slack_tension
    edge = math.pi - data.creep_angle
    half = math.pi * r
    tension = np.where((at >= half) & (at < half + d), tight, slack)
    on_driven = at < half
    phi = at[on_driven] / r
    tension[on_driven] = slack * np.exp(mu * np.maximum(phi - edge, 0.0))
    on_driver = (at >= half + d) & (at < 2.0 * half + d)
    phi = (at[on_driver] - half - d) / r
    tension[on_driver] = tight * np.exp(-mu * np.maximum(phi - edge, 0.0))
    return tension


def belt_tension(system, data: bp.BeltData, q, n_points: int = 600):
    """(at, tension): the position along the loop (m, ``loop_position``) of ``n_points``
    material points equally spaced along the belt in the state ``q`` (n_state,) and their
    tension (N), sorted by position; shapes (m,)."""
    from ..elements.string import string_points_at

    structure = system.structures["belt"]
    full = structure.full(np.asarray(q)[system.layout.structure("belt")])
    points = string_points_at(structure.string, full, np.linspace(0.0, data.length, n_points))
    at = loop_position(data, points.position)
    order = np.argsort(at)
    return at[order], np.asarray(points.tension)[order]


def arc_states(data: bp.BeltData, result, pulley: int, start: float = 0.0):
    """Every closed candidate of pulley ``pulley`` (0 driver, 1 driven) in the rows of
    ``result`` from ``start`` (s): (t (m,) s, phi (m,) rad from the pulley's entry,
    ``papers.belt.arc_from_entry``; state (m,) ``STATE_CODES``: 0 open, 1 slip, 2 stick).
    The result must keep its step reports."""
    t, phi, state = [], [], []
    for k in np.flatnonzero(np.asarray(result.t) >= start - 1e-12):
        contact = result.reports[k].contacts[pulley]
        if contact.n_points == 0:
            continue
        t.append(np.full(contact.n_points, result.t[k]))
        phi.append(bp.arc_from_entry(data, pulley, np.asarray(contact.point).T))
        state.append(contact.state_codes)
    if not t:
        return np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int32)
    return np.concatenate(t), np.concatenate(phi), np.concatenate(state)


def creep_arc_start(phi, state) -> float:
    """The angle from the entry (rad) at which the creep arc starts, fitted to the candidates'
    states: the step phi_a that best splits them into stick before and slip after (fewest
    sticking candidates beyond it plus slipping ones before it); candidates on [0, pi] that
    stick or slip count (open ones carry no force). NaN without any."""
    phi = np.asarray(phi, dtype=float)
    state = np.asarray(state)
    used = (phi >= 0.0) & (phi <= math.pi) & (state != STATE_CODES["open"])
    order = np.argsort(phi[used])
    phi, slips = phi[used][order], state[used][order] == STATE_CODES["slip"]
    if phi.size == 0:
        return math.nan
    # misfit of a step at the k-th sorted angle: slips before k plus sticks from k on
    before = np.concatenate([[0], np.cumsum(slips)])
    after = np.concatenate([np.cumsum((~slips)[::-1])[::-1], [0]])
    k = int(np.argmin(before + after))
    if k == 0:
        return float(phi[0])
    if k == phi.size:
        return math.pi
    return 0.5 * float(phi[k - 1] + phi[k])


def summary_rows(system, data: bp.BeltData, result, start: float) -> list[tuple]:
    """The rows of ``summary.csv``: (quantity, simulated, closed form, unit, meaning), the
    simulated values means over the rows from ``start`` (s): ``papers.belt.steady_summary``
    (span tensions, torque, speed ratio, slip on the arcs) and each pulley's creep arc from
    the candidates' states (``creep_arc_start``)."""
    got = bp.steady_summary(system, data, result, start)
    tight, slack = data.tight_tension, data.slack_tension
    gross = math.exp(data.mu * math.pi)
    rows = [
        ("tight_tension", got["tight"], tight, "N", "T1, the upper span's tension"),
        ("slack_tension", got["slack"], slack, "N", "T2, the lower span's tension"),
        ("tension_ratio", got["tight"] / got["slack"], tight / slack, "1", "T1 / T2"),
        ("gross_slip_ratio", got["tight"] / got["slack"], gross, "1",
         "T1 / T2 against e^(mu pi), beyond which the belt slips on the whole arc"),
        ("creep_arc_of_tensions", math.log(got["tight"] / got["slack"]) / data.mu,
         data.creep_angle, "rad", "ln(T1 / T2) / mu of the simulated span tensions"),
    ]  # fmt: skip
    for pulley, name in enumerate(PULLEYS):
        _, phi, state = arc_states(data, result, pulley, start)
        creep = math.pi - creep_arc_start(phi, state)
        rows.append((f"creep_arc_{name}", creep, data.creep_angle, "rad",
                     f"creep arc on the {name} pulley from its candidates' states against "
                     "ln(T1 / T2) / mu"))  # fmt: skip
    rows += [
        ("speed_ratio", got["ratio"], data.speed_ratio, "1",
         "omega_driven / omega_driver against (1 + T2 / EA) / (1 + T1 / EA)"),
        ("driver_torque", got["torque"], data.driver_torque, "N m",
         "the drive's torque against (T1 - T2) R plus the damping's drag"),
    ]  # fmt: skip
    for pulley, name in enumerate(PULLEYS):
        rows += [
            (f"adhesion_slip_{name}", got[f"adhesion_slip_{pulley}"], 0.0, "1",
             "mean |slip| on the adhesion arc over the belt speed omega R"),
            (f"creep_slip_{name}", got[f"creep_slip_{pulley}"], got[f"creep_closed_{pulley}"],
             "m/s", "mean slip speed on the creep arc against omega R (T_entry - T) / "
             "(EA + T_entry) at the same points"),
        ]  # fmt: skip
    return rows


def write_belt_tables(system, data, result, summary, start: float, folder: Path) -> None:
    """``summary.csv`` (``summary_rows``), ``tension.csv`` (at m along the loop, tension N,
    closed_form N at the last row) and ``arcs.csv`` (t s, pulley, phi rad, state of every
    candidate from ``start``)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "summary.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(SUMMARY_HEADER)
        for name, simulated, closed, unit, meaning in summary:
            writer.writerow([name, repr(float(simulated)), repr(float(closed)), unit, meaning])
    at, tension = belt_tension(system, data, result.q[-1])
    table = np.column_stack([at, tension, closed_form_tension(data, at)])
    np.savetxt(folder / "tension.csv", table, delimiter=",", header="at,tension,closed_form",
               comments="", fmt="%.10g")  # fmt: skip
    parts = []
    for pulley in (0, 1):
        t, phi, state = arc_states(data, result, pulley, start)
        parts.append(np.column_stack([t, np.full(t.size, pulley), phi, state]))
    np.savetxt(folder / "arcs.csv", np.vstack(parts), delimiter=",", header="t,pulley,phi,state",
               comments="", fmt=["%.10g", "%d", "%.10g", "%d"])  # fmt: skip


def read_summary(path) -> dict[str, tuple[float, float]]:
    """``summary.csv`` as quantity -> (simulated, closed form)."""
    with open(path, newline="") as fh:
        return {
            row["quantity"]: (float(row["simulated"]), float(row["closed_form"]))
            for row in csv.DictReader(fh)
        }


def plot_tension(system, data, result, start: float, path, n_rows: int = 40) -> list[Path]:
    """Tension along the loop at up to ``n_rows`` rows of the steady window (dots) and their
    mean in bins of 1 % of the loop, against the creep theory's (``closed_form_tension``),
    the pulleys' arcs shaded."""
    from matplotlib.figure import Figure

    from ..io.plots import save_figure

    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.subplots()
    r, d = data.radius, data.centre_distance
    half = math.pi * r
    loop = 2 * half + 2 * d
    for a, b, name in ((0.0, half, "driven"), (half + d, 2 * half + d, "driver")):
        ax.axvspan(a, b, color="0.9", lw=0)
        ax.text(0.5 * (a + b), 0.97, name, transform=ax.get_xaxis_transform(), ha="center",
                va="top", fontsize=8)  # fmt: skip
    rows = np.flatnonzero(np.asarray(result.t) >= start - 1e-12)
    samples = [
        belt_tension(system, data, result.q[k]) for k in rows[:: max(1, rows.size // n_rows)]
    ]
    at, tension = (np.concatenate(x) for x in zip(*samples, strict=True))
    ax.plot(
        at, tension, ".", color="C0", ms=1, alpha=0.3, label="simulated, rows of the steady window"
    )
    bins = np.minimum((at / loop * 100).astype(int), 99)
    n = np.bincount(bins, minlength=100)
    mean = np.bincount(bins, tension, minlength=100) / np.maximum(n, 1)
    centres = (np.arange(100) + 0.5) * loop / 100
    ax.plot(centres[n > 0], mean[n > 0], "C3", lw=1.5, label="simulated, mean over the window")
    x = np.linspace(0.0, loop, 1000)
    ax.plot(x, closed_form_tension(data, x), "k", lw=1,
            label="creep theory (constant; e^(+-mu phi) on the creep arcs)")  # fmt: skip
    ax.set_xlabel("position along the loop from the driven pulley's entry [m]")
    ax.set_ylabel("tension [N]")
    ax.set_title(f"belt drive: T1 = {data.tight_tension:.4g} N, T2 = {data.slack_tension:.4g} N,"
                 f" mu = {data.mu:g}", fontsize=10)  # fmt: skip
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(True, alpha=0.3)
    return save_figure(fig, path)


def plot_pulley_states(data, result, start: float, path) -> list[Path]:
    """On each pulley, every closed candidate of the steady window at its angle from the
    entry (x) and time (y), coloured by its state, with the creep arc's start: the closed
    form pi - ln(T1 / T2) / mu (solid) and the one fitted to the states (dashed)."""
    from matplotlib.figure import Figure

    from ..io.plots import plot_point_states, save_figure

    fig = Figure(figsize=(8, 4.2), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    edge = math.pi - data.creep_angle
    for pulley, (ax, name) in enumerate(zip(axes, PULLEYS, strict=True)):
        t, phi, state = arc_states(data, result, pulley, start)
        plot_point_states(ax, t, phi, state)
        ax.axvline(edge, color="k", lw=1, label="creep arc's start, theory")
        fitted = creep_arc_start(phi, state)
        if math.isfinite(fitted):
            ax.axvline(fitted, color="k", lw=1, ls="--", label="fitted to the states")
        ax.set_xlim(0.0, math.pi)
        ax.set_xlabel(f"angle from the entry on the {name} [rad]")
        ax.set_title(f"{name} pulley", fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("t [s]")
    fig.legend(*axes[0].get_legend_handles_labels(), fontsize=8, loc="outside lower center",
               ncols=5)  # fmt: skip
    return save_figure(fig, path)


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo belt-drive", description=__doc__, module=__name__)
    base = bp.BeltData()
    closed = bp.ClosedBeltData()
    parser.add_argument("--closed", action="store_true",
                        help="a closed belt pre-tensioned by the centre distance "
                        "(papers.belt.closed_belt_drive) instead of the open belt with a "
                        "tensioner")  # fmt: skip
    parser.add_argument("--pre-tension", type=positive("N"), default=closed.pre_tension,
                        help="with --closed: the belt's tension at rest on the pulleys in N "
                        f"(default: {closed.pre_tension:g})")  # fmt: skip
    parser.add_argument("--mu", type=positive(), default=base.mu,
                        help=f"friction coefficient of belt and pulleys (default: {base.mu:g})")  # fmt: skip
    parser.add_argument("--load-torque", type=nonnegative("N m"), default=base.load_torque,
                        help="constant load torque on the driven pulley in N m (default: "
                        f"{base.load_torque:g})")  # fmt: skip
    parser.add_argument("--speed", type=positive("rad/s"), default=base.speed,
                        help=f"the driver's angular speed in rad/s (default: {base.speed:g})")  # fmt: skip
    parser.add_argument("--elements", type=count, default=base.n_elements,
                        help=f"string elements of the belt (default: {base.n_elements})")  # fmt: skip
    parser.add_argument("--candidates", type=count, default=base.n_candidates,
                        help="candidate contact points of each pulley along the belt (default: "
                        f"{base.n_candidates})")  # fmt: skip
    parser.add_argument("--t-end", type=positive("s"), default=None,
                        help="end time in s (default: the scenario's, 0.4)")  # fmt: skip
    parser.add_argument("--start", type=nonnegative("s"), default=None,
                        help=f"start of the steady window in s (default: {STEADY:g} x t-end)")  # fmt: skip
    parser.add_argument("--h", type=positive("s"), default=H, help=f"time step in s ({H:g})")
    parser.add_argument("--theta", type=float, default=THETA,
                        help=f"Moreau-Jean's theta in [0.5, 1] ({THETA})")  # fmt: skip
    parser.add_argument("--out", type=folder, default="out/belt-drive", help="output folder")
    parser.add_argument("--vtk-stride", type=nonnegative("s"), default=VTK_STRIDE,
                        help=f"s between ParaView frames (default: {VTK_STRIDE:g}; 0: none)")  # fmt: skip
    args = parser.parse_args(argv)
    if not 0.5 <= args.theta <= 1.0:
        parser.fail("--theta", args.theta, "0.5 <= theta <= 1")
    if args.candidates < 2:
        parser.fail("--candidates", args.candidates, "an integer >= 2")
    data = replace(base, mu=args.mu, load_torque=args.load_torque, speed=args.speed,
                   n_elements=args.elements, n_candidates=args.candidates)  # fmt: skip
    if args.closed:
        data = replace(closed, mu=args.mu, load_torque=args.load_torque, speed=args.speed,
                       n_elements=args.elements, n_candidates=args.candidates,
                       pre_tension=args.pre_tension)  # fmt: skip
    t_end = belt_scenario(data).t_span[1] if args.t_end is None else args.t_end
    limit = data.feed / (data.speed * data.radius)
    if not args.closed and t_end >= limit:
        parser.fail("--t-end", t_end, f"< {limit:.4g} s (the belt's end on the feed must not "
                    "reach the driven pulley: feed / (speed R))")  # fmt: skip
    if args.start is not None and args.start >= t_end:
        parser.fail("--start", args.start, f"< t-end = {t_end:g} s")
    if data.creep_angle >= math.pi:
        print(f"note: ln(T1 / T2) / mu = {data.creep_angle:.3g} rad >= pi: gross slip expected; "
              "the creep theory's steady state does not exist")  # fmt: skip
    _, res, summary = run(data, t_end, args.h, args.out, args.theta, args.vtk_stride or None,
                          args.start, progress=True)  # fmt: skip
    print(f"{res.status}: {res.message}")
    print(f"{res.n_steps} steps of h = {args.h:g} s in {res.wall_time:.1f} s wall time")
    print(f"{'quantity':24s} {'simulated':>12s} {'closed form':>12s}")
    for name, simulated, closed, unit, _ in summary:
        print(f"{name:24s} {simulated:12.5g} {closed:12.5g} {unit}")
    work = float(res["work_drives"][-1])
    print(f"max |energy error| {np.max(np.abs(res['energy_error'])):.2g} J "
          f"(the driver's work {work:.3g} J)")  # fmt: skip
    print(f"files in {args.out}")
    return 0 if res.success else 1
