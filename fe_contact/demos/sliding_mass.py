"""A point mass sliding with Coulomb friction on the manipulator example's cantilever (a check
of the sliding contact).

Model (``fe_contact.papers.lipinski.sliding_mass``): the cantilever strip of the manipulator
example (L = 0.4 m, clamped at the origin along +x, EI = 0.5906 N m^2, rho A = 0.0705 kg/m,
gravity on beam and mass); a point mass m = 0.02 kg carried by two prismatic joints (x, then y).
It starts at x = 0.1 m on the beam's static deflected shape (self-weight plus the mass's weight)
with 0.5 m/s along +x and slides towards the tip; the run stops at ``t_end`` or when the mass
leaves the beam. Contact and friction follow Lipinski (002) secs. 4-7, integrated with the
partitioned generalised-alpha stepper (``fe_contact.steppers.genalpha``).

Writes ``DIR/history.csv`` as the run goes, in the library's vocabulary (SI units in the
header): t, the contact ``mass`` (``mass_normal_force``, ``mass_friction_force``,
``mass_slip_velocity``, ``mass_parameter`` = the contact's x on the beam, ``mass_gap``), the
energies (kinetic, potential, elastic), the work and dissipation terms, ``energy_error``,
``residual_position`` and ``residual_velocity``, the sliders' coordinates ``joint_0_q``,
``joint_1_q`` and velocities, and the sensors ``mass_x``, ``mass_y`` (the mass's position, m)
and ``tip_deflection`` (the beam's tip, m); and ``DIR/model.toml``, the run as a model file
with its sensors (``fe-contact run DIR/model.toml`` runs it again).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..io.model_sections import InitialState, ModelFile, Output, Simulation
from ..io.model_writer import save_model
from ..papers.lipinski import (
    BEAM,
    CANTILEVER,
    SLIDING_CONTACT,
    sliding_mass,
)
from ..sensors import BodyPointSensor, StructureSensor
from ..steppers.observers import CsvObserver, ProgressObserver
from ..steppers.simulate import simulate
from ..system import assemble
from . import DemoParser, count, folder, nonnegative, positive

# what the demo's figures need, as history columns: the mass's position (m) and the beam's tip
# deflection (m, along the beam's normal: negative downwards)
SENSORS = (
    BodyPointSensor(SLIDING_CONTACT, 1, quantity="position"),
    StructureSensor("tip_deflection", BEAM, CANTILEVER.length, "deflection"),
)


def model_file(
    mu=0.0,
    n_elements=10,
    t_end=0.5,
    h=1e-4,
    rho_inf=0.9,
    rayleigh_alpha=0.0,
    rayleigh_beta=0.0,
    x0=0.1,
    speed=0.5,
) -> ModelFile:
    """The demo's run as a ModelFile (model, initial state, stepper); ``run`` writes it to
    ``DIR/model.toml``, which ``fe-contact run`` runs again."""
    scenario = sliding_mass(mu, n_elements, x0, speed)  # the start: damping is not in statics
    beam = replace(
        scenario.model.structures[BEAM], rayleigh_alpha=rayleigh_alpha, rayleigh_beta=rayleigh_beta
    )
    model = replace(scenario.model, structures={BEAM: beam}, sensors=SENSORS)
    system = assemble(model)
    q0, u0 = scenario.q0, scenario.u0
    results = (f"final:{SLIDING_CONTACT}_parameter", f"max:{SLIDING_CONTACT}_normal_force")
    return ModelFile(
        model,
        Simulation(t_end, h=h, settings={"rho_inf": rho_inf}),
        InitialState.from_state(system, q0, u0),
        Output(frame_every=0.0, results=(*results, "final:dissipated_friction")),
    )


def run(
    mu=0.0,
    n_elements=10,
    t_end=0.5,
    out=None,
    h=1e-4,
    rho_inf=0.9,
    rayleigh_alpha=0.0,
    rayleigh_beta=0.0,
    x0=0.1,
    speed=0.5,
    progress=None,
):
    """Run the demo; returns (system, SimulationResult). Writes DIR/history.csv and
    DIR/model.toml when ``out``."""
    run_file = model_file(
        mu, n_elements, t_end, h, rho_inf, rayleigh_alpha, rayleigh_beta, x0, speed
    )
    system = assemble(run_file.model)
    q0, u0 = run_file.initial.state(system)
    observers = []
    if out is not None:
        save_model(run_file, Path(out) / "model.toml")
        observers.append(CsvObserver(Path(out) / "history.csv"))
    if progress is None:
        progress = sys.stderr.isatty()
    if progress:
        observers.append(ProgressObserver())
    result = simulate(system, (0.0, t_end), (q0, u0), h=h, rho_inf=rho_inf, observers=observers)
    return system, result


def main(argv=None) -> int:
    parser = DemoParser(prog="fe-contact demo sliding-mass", description=__doc__, module=__name__)
    parser.add_argument(
        "--mu", type=nonnegative(), default=0.0, help="friction coefficient (default 0)"
    )
    parser.add_argument("--elements", type=count, default=10, help="beam elements (default 10)")
    parser.add_argument(
        "--t-end", type=positive("s"), default=0.5, help="end time in s (default 0.5)"
    )
    parser.add_argument(
        "--h", type=positive("s"), default=1e-4, help="time step in s (default 1e-4)"
    )
    parser.add_argument("--out", type=folder, default="out/sliding_mass", help="output folder")
    args = parser.parse_args(argv)
    system, result = run(args.mu, args.elements, args.t_end, args.out, h=args.h)
    name = SLIDING_CONTACT
    print(f"status: {result.status}: {result.message}")
    print(
        f"steps {result.n_steps}, Newton iterations {result.n_newton}, "
        f"wall time {result.wall_time:.2f} s"
    )
    print(
        f"final contact position {result[f'{name}_parameter'][-1]:.5f} m, normal force "
        f"{result[f'{name}_normal_force'][-1]:.5f} N"
    )
    print(
        f"final mass position ({result['mass_x'][-1]:.5f}, {result['mass_y'][-1]:.5f}) m, "
        f"tip deflection {result['tip_deflection'][-1]:.5f} m"
    )
    print(
        f"max position residual {np.max(result['residual_position']):.2e} m, "
        f"max |energy error| {np.max(np.abs(result['energy_error'])):.2e} J"
    )
    print(f"wrote {Path(args.out) / 'history.csv'} and {Path(args.out) / 'model.toml'}")
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main())
