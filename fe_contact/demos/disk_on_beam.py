"""``fe-contact demo disk-on-beam``: the light disk of Eugster-Glocker (004) example 2 dropped
onto the manipulator's cantilever (Lipinski (002), sec. 9), landing, rolling and leaving it at
the tip; Moreau-Jean time stepping with unilateral contact and Coulomb friction.

The model is ``fe_contact.papers.eugster_glocker.disk_on_beam``. Writes to ``--out`` (default
``out/disk_on_beam``): ``history.csv`` (the standard columns and the sensors
``disk_centre_x``, ``disk_centre_y`` [m]), ``frames.pvd`` + ``.vtm``
(ParaView), ``disk_on_beam.png/.svg`` (disk path, contact forces, energy balance) and
``model.toml`` (the run as a model file: ``fe-contact run`` runs it again).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..io.model_sections import InitialState, ModelFile, Output, Simulation
from ..io.model_writer import save_model
from ..papers.eugster_glocker import disk_on_beam
from ..sensors import BodyPointSensor
from ..steppers.observers import standard_observers
from ..steppers.simulate import simulate
from ..system import assemble
from . import DemoParser, finite, folder, positive

# the disk centre's path for the figure (the disk is body 2 of its floating_body, centred on
# its frame's origin): columns disk_centre_x, disk_centre_y [m]
SENSORS = (BodyPointSensor("disk_centre", 2),)


def model_file(
    t_end: float = 1.0, h: float = 1e-3, speed: float = 0.5, vtk_every: float = 0.01
) -> ModelFile:
    """The demo's run as a ModelFile (model, initial state, stepper, outputs); ``run`` writes
    it to ``OUT/model.toml``."""
    scenario = disk_on_beam(speed=speed)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    model = replace(model, sensors=SENSORS)
    system = assemble(model)
    results = ("final:disk_parameter", "final:dissipated_friction", "final:dissipated_impact")
    return ModelFile(
        model,
        Simulation(t_end, "moreau", h=h),
        InitialState.from_state(system, q0, u0),
        Output(frame_every=vtk_every, results=results),
    )


def run(
    out="out/disk_on_beam",
    t_end: float = 1.0,
    h: float = 1e-3,
    speed: float = 0.5,
    vtk_every: float = 0.01,
    progress: bool = True,
    plot: bool = True,
):
    """Simulate and write the files; returns (system, result)."""
    run_file = model_file(t_end, h, speed, vtk_every)
    system = assemble(run_file.model)
    q0, u0 = run_file.initial.state(system)
    out = Path(out)
    save_model(run_file, out / "model.toml")
    observers = standard_observers(out, h, vtk_every, "disk-on-beam" if progress else None)
    result = simulate(system, (0.0, t_end), (q0, u0), method="moreau", h=h, observers=observers)
    if plot:
        plot_run(result, out / "disk_on_beam")
    return system, result


def plot_run(result, path):
    """Disk centre path, contact forces (mean per step) and the energy balance; returns the
    matplotlib Figure. The balance's two sides coincide (it closes to round-off): the
    mechanical energy change is drawn wide and pale, the losses' side dashed on top of it."""
    from matplotlib.figure import Figure

    from ..io.plots import save_figure

    t = result.t
    fig = Figure(figsize=(7, 8), layout="constrained")
    axes = fig.subplots(3, 1)
    axes[0].plot(result["disk_centre_x"], result["disk_centre_y"])
    axes[0].set_xlabel("disk centre x [m]")
    axes[0].set_ylabel("y [m]")
    axes[0].set_aspect("equal", adjustable="datalim")
    axes[1].plot(t, result["disk_normal_force"], label="normal force")
    axes[1].plot(t, result["disk_friction_force"], label="friction force")
    axes[1].set_ylabel("force [N]")
    axes[1].legend()
    total = result["kinetic_energy"] + result["potential_energy"] + result["elastic_energy"]
    axes[2].plot(t, total - total[0], lw=5, alpha=0.35, label="mechanical energy change")
    lost = result["dissipated_friction"] + result["dissipated_impact"]
    axes[2].plot(
        t,
        result["work_contact_timing"] - lost,
        "k--",
        lw=1.2,
        label="timing work - friction - impact (the same: the balance closes)",
    )
    axes[2].plot(t, result["energy_error"], ":", label="energy error")
    axes[2].set_xlabel("t [s]")
    axes[2].set_ylabel("energy [J]")
    axes[2].legend()
    save_figure(fig, path)
    return fig


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo disk-on-beam", description=__doc__, module=__name__)
    parser.add_argument("--t-end", type=positive("s"), default=1.0, help="end time, s")
    parser.add_argument("--h", type=positive("s"), default=1e-3, help="step, s")
    parser.add_argument(
        "--speed", type=finite("m/s"), default=0.5, help="initial speed along x, m/s"
    )
    parser.add_argument("--out", type=folder, default="out/disk_on_beam", help="output folder")
    args = parser.parse_args(argv)
    _, result = run(args.out, args.t_end, args.h, args.speed)
    print(f"{result.status}: {result.message}")
    print(
        f"disk x from {result['disk_centre_x'][0]:.3f} to {result['disk_centre_x'][-1]:.3f} m; "
        f"friction dissipation "
        f"{result['dissipated_friction'][-1]:.3g} J, impacts {result['dissipated_impact'][-1]:.3g}"
        f" J, timing work {result['work_contact_timing'][-1]:.3g} J; max |energy error| "
        f"{np.max(np.abs(result['energy_error'])):.2g} J; files in {args.out}"
    )
    return 0 if result.success else 1
