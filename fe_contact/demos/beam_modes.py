"""Modes and static deflection of the cantilever of the manipulator example (Lipinski (002),
sec. 9).

Data (Lipinski (002), sec. 9): L = 0.4 m, 10 elements, b = 0.01 m, h = 0.0015 m, rho = 4700 kg/m^3,
E = 2.1e11 Pa, clamped at x = 0, free at x = L.

Writes to ``out`` (default ``out/beam``):
  modes.png / modes.svg   the first mode shapes (mass-normalised, scaled to unit tip), with omega_n
  modes.csv               omega_n (rad/s) and f_n (Hz) against the analytic Euler-Bernoulli values
  mode_1.pvd + .vtm       one period of the first mode as a ParaView time series
  self_weight.pvd + .vtm  static deflection under self-weight
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from ..elements.beam import assemble_beam, self_weight
from ..elements.beam_analysis import natural_modes, static_deflection
from ..elements.beam_model import BeamSpec
from ..elements.beam_points import beam_fields
from ..io.vtk import PvdWriter, beam_block
from . import DemoParser, count, folder

MANIPULATOR_BEAM = BeamSpec(
    length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
)


@dataclass(frozen=True)
class BeamModesResult:
    """omega (rad/s) computed and analytic, shape (n_modes,); output paths."""

    omega: np.ndarray
    omega_exact: np.ndarray
    tip_deflection_self_weight: float
    files: tuple[Path, ...]


def analytic_cantilever_omega(spec: BeamSpec, n_modes: int) -> np.ndarray:
    """Euler-Bernoulli cantilever frequencies from 1 + cos(bL) cosh(bL) = 0, rad/s."""
    f = lambda x: 1.0 + np.cos(x) * np.cosh(x)  # noqa: E731
    roots = np.array(
        [brentq(f, (k - 0.5) * np.pi - 0.5, (k - 0.5) * np.pi + 0.5) for k in range(1, n_modes + 1)]
    )
    return roots**2 * np.sqrt(spec.bending_stiffness / (spec.mass_per_length * spec.length**4))


def run(out="out/beam", spec: BeamSpec = MANIPULATOR_BEAM, n_modes: int = 4, plot: bool = True):
    """Compute modes and self-weight deflection, write plots, CSV and ParaView files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    beam = assemble_beam(spec)
    modes = natural_modes(beam, n_modes)
    exact = analytic_cantilever_omega(spec, n_modes)
    files = []

    with open(out / "modes.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["mode", "omega_rad_s", "frequency_Hz", "omega_exact_rad_s", "relative_error"])
        for k in range(n_modes):
            err = (modes.omega[k] - exact[k]) / exact[k]
            w.writerow([k + 1, modes.omega[k], modes.frequency[k], exact[k], err])
    files.append(out / "modes.csv")

    x = np.linspace(0.0, spec.length, 201)
    if plot:
        fig, ax = plt.subplots(figsize=(7, 4))
        for k in range(n_modes):
            w_k = beam_fields(beam, modes.shapes[:, k], x).deflection
            ax.plot(x, w_k / w_k[-1], label=f"mode {k + 1}: {modes.omega[k]:.1f} rad/s")
        ax.axhline(0.0, color="k", lw=0.5)
        ax.set_xlabel("x [m]")
        ax.set_ylabel("w / w(L) [-]")
        ax.set_title("Cantilever modes (10 Hermite elements)")
        ax.legend()
        fig.tight_layout()
        for ext in ("png", "svg"):
            fig.savefig(out / f"modes.{ext}", dpi=120)
            files.append(out / f"modes.{ext}")
        plt.close(fig)

    phi = modes.shapes[:, 0]
    amplitude = 0.05 * spec.length / abs(beam_fields(beam, phi, [spec.length]).deflection[0])
    period = 2 * np.pi / modes.omega[0]
    with PvdWriter(out, "mode_1") as writer:
        for t in np.linspace(0.0, period, 25):
            writer.write(t, [beam_block(beam, amplitude * np.cos(modes.omega[0] * t) * phi)])
    files.append(writer.pvd_path)

    u_g = static_deflection(beam, self_weight(beam))
    with PvdWriter(out, "self_weight") as writer:
        writer.write(0.0, [beam_block(beam, u_g)])
    files.append(writer.pvd_path)

    tip = float(beam_fields(beam, u_g, [spec.length]).deflection[0])
    return BeamModesResult(modes.omega, exact, tip, tuple(files))


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo beam", description=__doc__, module=__name__)
    parser.add_argument(
        "--out", type=folder, default="out/beam", help="output folder (default: out/beam)"
    )
    parser.add_argument("--modes", type=count, default=4, help="number of modes (default: 4)")
    parser.add_argument(
        "--elements", type=count, default=10, help="number of elements (default: 10)"
    )
    args = parser.parse_args(argv)
    if args.modes > 20:
        parser.fail("--modes", args.modes, "an integer in [1, 20]")
    from dataclasses import replace

    spec = replace(MANIPULATOR_BEAM, n_elements=args.elements)
    result = run(args.out, spec, args.modes)
    print(f"{'mode':>4} {'omega [rad/s]':>14} {'exact [rad/s]':>14} {'rel. error':>11}")
    for k, (w, we) in enumerate(zip(result.omega, result.omega_exact, strict=True)):
        print(f"{k + 1:>4} {w:14.4f} {we:14.4f} {(w - we) / we:11.2e}")
    print(f"tip deflection under self-weight: {result.tip_deflection_self_weight:.6e} m")
    print("wrote:")
    for f in result.files:
        print(f"  {f}")
    return 0
