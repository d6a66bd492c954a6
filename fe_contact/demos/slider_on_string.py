"""``fe-contact demo slider-on-string``: a trolley sliding with friction on the hanging string.

The model is ``fe_contact.papers.slider_on_string`` (a tree body on 004's string). Writes to
``--out`` (default ``out/slider_on_string``): ``history.csv`` (the standard columns),
``frames.pvd`` + ``.vtm`` (ParaView), ``slider_on_string.png/.svg`` (trolley position, contact
forces and the energy balance), ``model.toml`` (the run as a model file: ``fe-contact run``
runs it again) and prints a summary.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..io.model_sections import InitialState, ModelFile, Output, Simulation
from ..io.model_writer import save_model
from ..papers.slider_on_string import Trolley, slider_on_string
from ..steppers.observers import standard_observers
from ..steppers.simulate import simulate
from ..system import assemble
from . import DemoParser, count, folder, nonnegative, positive


def model_file(
    t_end: float = 2.0,
    data: Trolley | None = None,
    h: float = 1e-3,
    rho_inf: float = 1.0,
    vtk_every: float = 0.01,
    energy_consistent: bool = False,
) -> ModelFile:
    """The demo's run as a ModelFile (model, initial state, stepper, outputs); ``run`` writes
    it to ``OUT/model.toml``. energy_consistent : the string's energy-consistent internal
    force (``steppers.energy_consistent``; rho_inf = 1 only)."""
    scenario = slider_on_string(Trolley() if data is None else data)
    model, q0, u0 = scenario.model, scenario.q0, scenario.u0
    system = assemble(model)
    results = ("min:trolley_parameter", "max:trolley_parameter", "final:dissipated_friction")
    settings = {"rho_inf": rho_inf}
    if energy_consistent:
        settings["energy_consistent"] = True
    return ModelFile(
        model,
        Simulation(t_end, h=h, settings=settings),
        InitialState.from_state(system, q0, u0),
        Output(frame_every=vtk_every, results=results),
    )


def run(
    out="out/slider_on_string",
    t_end: float = 2.0,
    data: Trolley | None = None,
    h: float = 1e-3,
    rho_inf: float = 1.0,
    vtk_every: float = 0.01,
    progress: bool = True,
    plot: bool = True,
    energy_consistent: bool = False,
):
    """Simulate, write the files; returns (system, result). rho_inf = 1: no numerical damping,
    so the energy balance shows the integrator's own error."""
    run_file = model_file(t_end, data, h, rho_inf, vtk_every, energy_consistent)
    system = assemble(run_file.model)
    q0, u0 = run_file.initial.state(system)
    out = Path(out)
    save_model(run_file, out / "model.toml")
    observers = standard_observers(out, h, vtk_every, "slider-on-string" if progress else None)
    settings = run_file.simulation.settings
    result = simulate(system, (0.0, t_end), (q0, u0), h=h, observers=observers, **settings)
    if plot:
        plot_run(result, out / "slider_on_string")
    return system, result


def plot_run(result, path) -> None:
    """Trolley position x, contact forces and energy balance against time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io.plots import save_figure

    t = result.t
    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    axes[0].plot(t, result.q[:, 0])
    axes[0].set_ylabel("trolley x [m]")
    axes[1].plot(t, result["trolley_normal_force"], label="normal force")
    axes[1].plot(t, result["trolley_friction_force"], label="friction force")
    axes[1].set_ylabel("force [N]")
    axes[1].legend()
    total = result["kinetic_energy"] + result["potential_energy"] + result["elastic_energy"]
    axes[2].plot(t, total - total[0], label="mechanical energy change")
    axes[2].plot(t, -result["dissipated_friction"], label="- friction dissipation")
    axes[2].plot(t, result["energy_error"], label="energy error")
    axes[2].set_ylabel("energy [J]")
    axes[2].set_xlabel("t [s]")
    axes[2].legend()
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def main(argv=None) -> int:
    parser = DemoParser(
        prog="fe-contact demo slider-on-string", description=__doc__, module=__name__
    )
    parser.add_argument("--mu", type=nonnegative(), default=Trolley.mu, help="friction coefficient")
    parser.add_argument(
        "--mass", type=positive("kg"), default=Trolley.mass, help="trolley mass, kg"
    )
    parser.add_argument(
        "--elements",
        type=count,
        default=Trolley.n_elements,
        help=f"string elements (default {Trolley.n_elements})",
    )
    parser.add_argument("--t-end", type=positive("s"), default=2.0, help="end time, s")
    parser.add_argument("--h", type=positive("s"), default=1e-3, help="step, s")
    parser.add_argument("--out", type=folder, default="out/slider_on_string", help="output folder")
    parser.add_argument(
        "--energy-consistent",
        action="store_true",
        help="the string's internal force as the discrete gradient of its energy",
    )
    args = parser.parse_args(argv)
    try:
        data = replace(Trolley(), mu=args.mu, mass=args.mass, n_elements=args.elements)
    except (TypeError, ValueError) as err:
        parser.error(str(err))
    _, result = run(args.out, args.t_end, data, args.h, energy_consistent=args.energy_consistent)
    x = result.q[:, 0]
    print(f"{result.status}: {result.message}")
    print(
        f"trolley x in [{x.min():.4f}, {x.max():.4f}] m; friction dissipation "
        f"{result['dissipated_friction'][-1]:.4g} J; max |energy error| "
        f"{np.max(np.abs(result['energy_error'])):.3g} J; files in {args.out}"
    )
    return 0 if result.success else 1
