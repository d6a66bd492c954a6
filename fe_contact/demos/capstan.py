"""``fe-contact demo capstan``: a string wrapped on a drum with Coulomb friction; the end force at
which it slips against Euler-Eytelwein's T_slack e^{mu theta}.

Model (``fe_contact.papers.capstan``; every number in ``CapstanData``): a weightless string
(EA = 500 N, rho0 A = 0.01 kg/m, 12 elements) over a drum of R = 0.05 m with the wrap angle
theta = pi, mu = 0.3; the tight end (s = 0) pinned, the slack end loaded by T_slack = 2 N (a
point load); the drum on a revolute joint turned by the torque R rate t (rate = 10 N/s), so that
the tight end carries F(t) = T_slack + rate t until the string slips on the drum at
T_slack e^{mu theta} = 5.13 N. Contact: 40 candidate points along the string (Eugster-Glocker
(004), eqs. 20-25), Moreau-Jean with h = 1e-3 s, theta = 0.55 (see the scenario's docstring for
why a candidate grid under Moreau-Jean).

Writes to OUT (default ``out/capstan``): ``history.csv`` (the standard columns: ``drum_q``,
``drum_u`` the drum's angle and speed, ``drum_n_closed``, the energy balance), ``frames.pvd``
(ParaView series every ``--vtk-stride`` s: the string with its tension, the drum, the closed
candidates with their forces, ``slip_velocity`` (m/s, relative to the drum: 0 where a point
sticks) and ``state``), ``tension.csv`` (t, the tight end's tension, F(t)), ``arc.csv`` (phi,
tension along the arc at the last step, T_slack e^{mu phi}), and the figures
``end_force.png/.svg`` (the tight end's tension against time with the e^{mu theta} line) and
``arc_tension.png/.svg`` (tension along the arc during slip against T_slack e^{mu phi}, and
at three forces before slip against the closed form of the slip zone) and ``arc_states.png/.svg``
(each candidate's state against its angle and time, with the stick zone's closed-form edge).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..papers import capstan as cp
from ..papers.capstan import OVERSHOOT, THETA, H
from ..steppers.observers import standard_observers
from . import DemoParser, count, folder, nonnegative, positive

VTK_STRIDE = 0.005  # s of simulated time between ParaView frames


def run(
    data: cp.CapstanData | None = None,
    t_end: float | None = None,
    h: float = H,
    out="out/capstan",
    theta: float = THETA,
    vtk_stride: float | None = VTK_STRIDE,
    plot: bool = True,
    progress: bool = False,
    keep_reports: bool = False,
):
    """Simulate the capstan and write its files; returns (system, result, tension) with
    ``tension`` (n_rows,) the tight end's tension in N at each row of the result.

    t_end : s; None = the scenario's, ``OVERSHOOT`` times the ramp time to the slip force.
    out : folder, None writes nothing. vtk_stride : s of simulated time between frames (None or 0: no series).
    keep_reports : keep the step reports in the result (and draw ``arc_states``).
    """
    data = cp.CapstanData() if data is None else data
    if data.rate <= 0.0:
        raise ValueError(f"data.rate: got {data.rate!r}; allowed: > 0 N/s (the pull must grow)")
    scenario = cp.capstan(data)
    t_end = scenario.t_span[1] if t_end is None else t_end
    system = scenario.assemble()
    folder = None if out is None else Path(out)
    observers = [] if folder is None else standard_observers(
        folder, h, vtk_stride, "capstan" if progress else None
    )  # fmt: skip
    result = scenario.run(
        system,
        t_span=(0.0, t_end),
        h=h,
        theta=theta,
        observers=observers,
        keep_reports=keep_reports,
    )
    tension = cp.tight_tension(system, result.q)
    if folder is not None:
        write_tables(system, data, result, tension, folder)
        if plot:
            plot_end_force(data, result, tension, folder / "end_force")
            plot_arc_tension(system, data, result, folder / "arc_tension")
            if keep_reports:
                plot_candidate_states(data, result, folder / "arc_states")
    return system, result, tension


def write_tables(system, data, result, tension, folder: Path) -> None:
    """``tension.csv`` (t s, tight_tension N, pull N = T_slack + rate t) and ``arc.csv`` (phi
    rad, tension N, T_slack e^{mu phi} N) at the last row."""
    folder.mkdir(parents=True, exist_ok=True)
    table = np.column_stack([result.t, tension, data.tight_force(result.t)])
    np.savetxt(folder / "tension.csv", table, delimiter=",", header="t,tight_tension,pull",
               comments="", fmt="%.10g")  # fmt: skip
    phi, arc = cp.arc_tension(system, data, result.q[-1])
    table = np.column_stack([phi, arc, data.arc_tension(phi)])
    np.savetxt(folder / "arc.csv", table, delimiter=",", header="phi,tension,euler_eytelwein",
               comments="", fmt="%.10g")  # fmt: skip


def plot_end_force(data, result, tension, path) -> list[Path]:
    """The tight end's tension and the pull F(t) against time, with T_slack e^{mu theta}."""
    from matplotlib.figure import Figure

    from ..io.plots import save_figure

    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.subplots()
    ax.plot(result.t, data.tight_force(result.t), "k:", lw=1, label="pull T_slack + rate t")
    ax.plot(result.t, tension, "C0", lw=1.5, label="tension at the tight end (simulated)")
    ax.axhline(data.slip_force, color="C3", lw=1,
               label=f"T_slack e^(mu theta) = {data.slip_force:.4g} N")  # fmt: skip
    ax.set_xlabel("t [s]")
    ax.set_ylabel("force [N]")
    ax.set_title(f"capstan: mu = {data.mu:g}, theta = {data.wrap:.4g} rad")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, alpha=0.3)
    return save_figure(fig, path)


def plot_arc_tension(system, data, result, path, fractions=(0.25, 0.5, 0.75)) -> list[Path]:
    """Tension along the arc against phi: at the last row (gross slip) with T_slack e^{mu phi},
    and at the rows where the pull is ``fractions`` of the way from T_slack to the slip force,
    with the closed form before slip, max(T_slack, F e^{-mu (theta - phi)}) (stuck where it is
    T_slack, creeping where it rises to F)."""
    from matplotlib.figure import Figure

    from ..io.plots import save_figure

    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.subplots()
    phi = np.linspace(0.0, data.wrap, 200)
    for i, fraction in enumerate(fractions):
        force = data.slack_tension + fraction * (data.slip_force - data.slack_tension)
        k = int(np.argmin(np.abs(data.tight_force(result.t) - force)))
        at, arc = cp.arc_tension(system, data, result.q[k])
        label = f"t = {result.t[k]:.3f} s, pull {data.tight_force(result.t[k]):.2f} N"
        ax.plot(at, arc, ".", color=f"C{i + 1}", ms=3, label=label)
        closed = np.maximum(data.slack_tension, force * np.exp(-data.mu * (data.wrap - phi)))
        ax.plot(phi, closed, color=f"C{i + 1}", lw=0.8)
    at, arc = cp.arc_tension(system, data, result.q[-1])
    ax.plot(at, arc, ".", color="C0", ms=3, label=f"t = {result.t[-1]:.3f} s (slip)")
    ax.plot(phi, data.arc_tension(phi), "k", lw=1, label="T_slack e^(mu phi)")
    ax.set_xlabel("phi from the slack side [rad]")
    ax.set_ylabel("tension [N]")
    ax.set_title("tension along the arc")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, alpha=0.3)
    return save_figure(fig, path)


def plot_candidate_states(data, result, path) -> list[Path]:
    """Each closed candidate at its angle phi from the slack side (x) and time (y), coloured
    by its state, with the closed-form edge of the stick zone before slip,
    phi_s = theta - ln(F(t) / T_slack) / mu (stick below, creep above), up to the
    Euler-Eytelwein force. The result must keep its step reports."""
    from matplotlib.figure import Figure

    from ..io.plots import plot_point_states, save_figure

    t, phi, state = [], [], []
    for k, report in enumerate(result.reports):
        contact = report.contacts[0]
        t.append(np.full(contact.n_points, result.t[k]))
        phi.append(cp.arc_angle(data, np.asarray(contact.point).T))
        state.append(contact.state_codes)
    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.subplots()
    plot_point_states(ax, np.concatenate(t), np.concatenate(phi), np.concatenate(state))
    time = np.linspace(0.0, cp.ramp_time(data), 200)
    edge = data.wrap - np.log(data.tight_force(time) / data.slack_tension) / data.mu
    ax.plot(edge, time, "k", lw=1, label="stick zone's edge, closed form")
    ax.set_xlim(0.0, data.wrap)
    ax.set_xlabel("phi from the slack side [rad]")
    ax.set_ylabel("t [s]")
    ax.set_title("contact state of each candidate on the arc", fontsize=10)
    fig.legend(fontsize=8, loc="outside lower center", ncols=4)
    ax.grid(True, alpha=0.3)
    return save_figure(fig, path)


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo capstan", description=__doc__, module=__name__)
    base = cp.CapstanData()
    parser.add_argument("--mu", type=nonnegative(), default=base.mu, help=f"default {base.mu}")
    parser.add_argument("--wrap", type=positive("rad"), default=base.wrap,
                        help="wrap angle in rad (default: pi)")  # fmt: skip
    parser.add_argument("--rate", type=positive("N/s"), default=base.rate,
                        help=f"growth of the pull in N/s (default: {base.rate:g})")  # fmt: skip
    parser.add_argument("--elements", type=count, default=base.n_elements,
                        help=f"string elements (default: {base.n_elements})")  # fmt: skip
    parser.add_argument("--candidates", type=count, default=base.n_candidates,
                        help=f"candidate contact points (default: {base.n_candidates})")  # fmt: skip
    parser.add_argument("--t-end", type=positive("s"), default=None,
                        help=f"end time in s (default: {OVERSHOOT} x the ramp time to slip)")  # fmt: skip
    parser.add_argument("--h", type=positive("s"), default=H, help=f"time step in s ({H:g})")
    parser.add_argument("--theta", type=float, default=THETA, help=f"theta in [0.5, 1] ({THETA})")
    parser.add_argument("--out", type=folder, default="out/capstan", help="output folder")
    parser.add_argument("--vtk-stride", type=nonnegative("s"), default=VTK_STRIDE,
                        help=f"s between ParaView frames (default: {VTK_STRIDE:g}; 0: none)")  # fmt: skip
    args = parser.parse_args(argv)
    if not 0.5 <= args.theta <= 1.0:
        parser.fail("--theta", args.theta, "0.5 <= theta <= 1")
    if args.candidates < 2:
        parser.fail("--candidates", args.candidates, "an integer >= 2")
    if not args.wrap < 2.0 * math.pi:
        parser.fail("--wrap", args.wrap, "0 < wrap < 2 pi rad")
    data = replace(base, mu=args.mu, wrap=args.wrap, rate=args.rate,
                   n_elements=args.elements, n_candidates=args.candidates)  # fmt: skip
    _, res, tension = run(data, args.t_end, args.h, args.out, args.theta,
                          args.vtk_stride or None, progress=True, keep_reports=True)  # fmt: skip
    slip = cp.gross_slip(data, res)
    print(f"{res.status}: {res.message}")
    print(f"{res.n_steps} steps of h = {args.h:g} s in {res.wall_time:.1f} s wall time")
    print(f"Euler-Eytelwein T_slack e^(mu theta) = {data.slip_force:.5g} N")
    if np.any(slip):
        k = int(np.argmax(slip))
        print(f"gross slip from t = {res.t[k]:.4f} s (pull {data.tight_force(res.t[k]):.5g} N); "
              f"tight end's tension while slipping {np.mean(tension[slip]):.5g} N")  # fmt: skip
    else:
        print(f"no gross slip by t = {res.t[-1]:.4g} s; tight end's tension {tension[-1]:.5g} N")
    print(f"max |energy error| {np.max(np.abs(res['energy_error'])):.2g} J")
    print(f"files in {args.out}")
    return 0 if res.success else 1
