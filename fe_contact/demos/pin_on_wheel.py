"""The pin on the rotating wheel (Slavic-Boltezar (003), sec. 4): rough many-point contact with
impacts, run-in wear, and the apparent friction coefficient against the misalignment s. Model,
numbers and our choices in ``fe_contact.papers.slavic_boltezar``: every run is
``simulate(assemble(pin_model(data)), ..., method="event-driven")`` summed up by
``simulate_pin``; this module only sweeps and writes.

``fe-contact demo pin-on-wheel [--set NAME=VALUE] ... [--misalignments S ...] [--reshapings N]
[--jobs N] [--h H] [--t-end T] [--out DIR]`` with NAME any field of ``PinOnWheel`` (a, s, v,
c_phi, c_r, p, f, k_phi, k_r, density, R, mu, eps_N, eps_T, nu, rz_pin, rz_wheel, n_pin,
max_slope_change, u_max, penetration, t_end, seed_pin, seed_wheel, tip_radius, wheel_spacing).

Runs (``--jobs`` processes): the wear loop at s (the generated profiles, then N re-shapings by
003 eqs. (16)-(17)) and one run per misalignment on the generated profiles. Writes to ``--out``
(default ``out/pin_on_wheel``):

* ``apparent_cof.csv`` (``s [m]``, ``mu_xy_smooth`` of 003 eq. (32), ``mu_xy_rough``) and
  ``apparent_cof.png/.svg`` (003 fig. 9);
* ``history.csv`` (t, r, phi and their rates, of the run after the last re-shaping) and
  ``r.png``, ``phi.png``: time history and phase plot (003 figs. 6-7);
* ``loss.png``: W per vertex of face and rim before and after the re-shapings (003 fig. 5);
* ``profiles/face_K.csv``, ``profiles/rim_K.csv`` (x [m], y [m], height [m], W [J]) for each
  re-shaping K and ``profiles.png``;
* ``contact_angles.png``: histogram of the contact angles at the largest s (003 fig. 10).
"""

from __future__ import annotations

import csv
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..papers.slavic_boltezar import PinOnWheel, run_in, simulate_pin, smooth_apparent_cof
from . import DemoParser, count, finite, folder, overrides, positive

MISALIGNMENTS = (-0.4e-3, -0.2e-3, 0.0, 0.2e-3, 0.4e-3)


def settings(items) -> PinOnWheel:
    """A PinOnWheel with ``NAME=VALUE`` overrides; ValueError naming a bad one."""
    return overrides(PinOnWheel(), items)


def _sweep_case(args):
    data, h = args
    return simulate_pin(data, h)


def run(data: PinOnWheel, misalignments=MISALIGNMENTS, reshapings=5, h=1e-7, jobs=1, out=None):
    """The wear loop at ``data.s`` and the s-sweep; returns (wear runs, sweep runs). With
    ``out``: the tables and figures of the module docstring."""
    cases = [(replace(data, s=float(s)), h) for s in misalignments]
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            wear = pool.submit(run_in, data, reshapings, h)
            sweep = list(pool.map(_sweep_case, cases))
            wear = wear.result()
    else:
        wear = run_in(data, reshapings, h)
        sweep = [_sweep_case(c) for c in cases]
    if out is not None:
        write_outputs(Path(out), data, misalignments, wear, sweep)
    return wear, sweep


def write_outputs(out: Path, data, misalignments, wear, sweep) -> None:
    out.mkdir(parents=True, exist_ok=True)
    smooth = smooth_apparent_cof(np.asarray(misalignments, float), data.R, data.mu)
    with open(out / "apparent_cof.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["s [m]", "mu_xy_smooth", "mu_xy_rough"])
        for s, mu_s, run in zip(misalignments, smooth, sweep, strict=True):
            writer.writerow([repr(float(s)), repr(float(mu_s)), repr(run.mu_xy)])
    last = wear[-1]
    with open(out / "history.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["t [s]", "r [m]", "phi [rad]", "r_dot [m/s]", "phi_dot [rad/s]"])
        step = max(1, last.t.size // 20000)
        for k in range(0, last.t.size, step):
            writer.writerow([repr(float(x)) for x in (last.t[k], *last.q[k], *last.u[k])])
    folder_ = out / "profiles"
    folder_.mkdir(exist_ok=True)
    for k, run in enumerate(wear):
        for name, profile, loss in (
            ("face", run.face, run.loss_face),
            ("rim", run.rim, run.loss_rim),
        ):
            with open(folder_ / f"{name}_{k}.csv", "w", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow(["x [m]", "y [m]", "height [m]", "W [J]"])
                for x, y, hgt, w in zip(*profile.points, profile.heights(), loss, strict=True):
                    writer.writerow([repr(float(v)) for v in (x, y, hgt, w)])
    _figures(out, data, misalignments, smooth, wear, sweep)


def _figures(out: Path, data, misalignments, smooth, wear, sweep) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io.plots import save_figure

    s_mm = np.asarray(misalignments) * 1e3
    fig, ax = plt.subplots(figsize=(5, 3.6))
    ax.plot(s_mm, smooth, "k--", label="smooth one-point model, 003 eq. (32)")
    ax.plot(s_mm, [r.mu_xy for r in sweep], "o-", label="rough many-point model")
    ax.axhline(data.mu, color="0.6", lw=0.8, label=f"mu = {data.mu:g}")
    ax.set_xlabel("s [mm]")
    ax.set_ylabel("mu_xy = F_x / F_y")
    ax.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, out / "apparent_cof")
    plt.close(fig)
    last = wear[-1]
    for k, (name, unit) in enumerate((("r", "m"), ("phi", "rad"))):
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
        a1.plot(last.t * 1e3, last.q[:, k], lw=0.6)
        a1.set_xlabel("t [ms]")
        a1.set_ylabel(f"{name} [{unit}]")
        a2.plot(last.q[:, k], last.u[:, k], lw=0.4)
        a2.set_xlabel(f"{name} [{unit}]")
        a2.set_ylabel(f"{name}' [{unit}/s]")
        fig.suptitle(f"after {len(wear) - 1} re-shapings (003 fig. {6 + k})", fontsize="small")
        fig.tight_layout()
        save_figure(fig, out / name)
        plt.close(fig)
    fig, axes = plt.subplots(2, 1, figsize=(7, 5), sharex=False)
    for ax, attr, title in ((axes[0], "loss_face", "pin"), (axes[1], "loss_rim", "wheel")):
        for run, label in ((wear[0], "initial"), (wear[-1], f"after {len(wear) - 1}")):
            ax.plot(getattr(run, attr), lw=0.8, label=label)
        ax.set_ylabel(f"W on the {title} [J]")
        ax.legend(fontsize="small")
    axes[1].set_xlabel("vertex")
    fig.tight_layout()
    save_figure(fig, out / "loss")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 3.4))
    for k, run in enumerate(wear):
        ax.plot(run.face.heights() * 1e6, lw=0.8, label=f"re-shaping {k}")
    ax.set_xlabel("vertex of the pin's face")
    ax.set_ylabel("height [um]")
    ax.legend(fontsize="x-small", ncol=3)
    fig.tight_layout()
    save_figure(fig, out / "profiles")
    plt.close(fig)
    widest = sweep[int(np.argmax(misalignments))]
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.hist(np.degrees(widest.angles), bins=60, weights=widest.weights)
    ax.set_xlabel("contact angle phi [deg]")
    ax.set_ylabel("normal impulse [N s]")
    ax.set_title(f"s = {max(misalignments) * 1e3:g} mm (003 fig. 10)", fontsize="small")
    fig.tight_layout()
    save_figure(fig, out / "contact_angles")
    plt.close(fig)


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo pin-on-wheel", description=__doc__, module=__name__)
    # accept "-0.4e-3" as a value (argparse takes only -1 or -.4 for negative numbers)
    parser._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a PinOnWheel field (e.g. mu=0.3, n_pin=200); repeatable",
    )
    parser.add_argument(
        "--misalignments",
        nargs="+",
        type=finite("m"),
        default=list(MISALIGNMENTS),
        metavar="S",
        help="values of s in m for the sweep (default -0.4e-3 -0.2e-3 0 0.2e-3 0.4e-3)",
    )
    parser.add_argument("--reshapings", type=int, default=5, help="re-shapings (default 5)")
    parser.add_argument(
        "--jobs",
        type=count,
        default=None,
        help="parallel processes (default: one per CPU core, at most one per run)",
    )
    parser.add_argument("--h", type=positive("s"), default=1e-7, help="largest step (1e-7 s)")
    parser.add_argument("--t-end", type=positive("s"), default=None, help="simulated time in s")
    parser.add_argument("--out", type=folder, default="out/pin_on_wheel", help="output folder")
    args = parser.parse_args(argv)
    if args.reshapings < 0:
        parser.fail("--reshapings", args.reshapings, "an integer >= 0")
    try:
        data = settings(args.set)
        if args.t_end is not None:
            data = replace(data, t_end=args.t_end)
        for s in args.misalignments:
            replace(data, s=s)  # checks |s| against R and a
    except (ValueError, TypeError) as err:
        return parser.refuse(str(err))
    start = time.perf_counter()
    jobs = args.jobs or min(os.cpu_count() or 1, 1 + len(args.misalignments))  # wear + sweep
    wear, sweep = run(data, args.misalignments, args.reshapings, args.h, jobs, args.out)
    print(f"{'s [mm]':>8}{'mu_xy smooth':>14}{'mu_xy rough':>13}")
    smooth = smooth_apparent_cof(np.asarray(args.misalignments), data.R, data.mu)
    for s, mu_s, run_ in zip(args.misalignments, smooth, sweep, strict=True):
        print(f"{s * 1e3:8.3f}{mu_s:14.5f}{run_.mu_xy:13.5f}")
    for k, run_ in enumerate(wear):
        w = run_.loss_face
        balance = run_.energy_error / run_.work["work_drives"]
        print(
            f"re-shaping {k}: W face {w.sum():.3e} J, max/mean {w.max() / w.mean():.2f}, "
            f"impacts {run_.n_impacts}, steps {run_.n_steps}, energy balance {balance:.1e}"
        )
    failed = [r for r in (*wear, *sweep) if r.status != "finished"]
    for r in failed:
        print(f"a run failed at t = {r.t[-1] if r.t.size else 0.0:.6g} s: {r.message}")
    print(f"{time.perf_counter() - start:.1f} s; written to {args.out}/")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
