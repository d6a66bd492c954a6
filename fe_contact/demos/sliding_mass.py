"""A point mass sliding with Coulomb friction on MISSION's cantilever (issue 5's check demo).

Model: the cantilever of the manipulator example (L = 0.4 m, clamped at the origin along +x,
EI = 0.5906 N m^2, rho A = 0.0705 kg/m, gravity on beam and mass); a point mass m = 0.02 kg carried
by two prismatic joints (x, then y). It starts at x = 0.1 m on the beam's static deflected shape
(self-weight plus the mass's weight) with 0.5 m/s along +x and slides towards the tip; the run stops
at ``t_end`` or when the mass leaves the beam. Contact and friction follow Lipinski (002) secs. 4-7,
integrated with the partitioned generalised-alpha scheme (fe_contact.integrate.genalpha).

Writes ``DIR/history.csv`` with t, x, y, contact_x, normal_force, friction_force, slip_velocity,
tip_deflection, residual_position, residual_velocity, kinetic_energy, potential_energy,
elastic_energy, dissipated_friction, dissipated_damping, energy_error (SI units; energies in J).
"""

from __future__ import annotations

import argparse
import csv
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..coupling.contact import ContactSpec
from ..elements.beam import BeamSpec, evaluate, point_load, self_weight, static_deflection
from ..integrate.genalpha import integrate
from ..multibody.joints import Joint
from ..multibody.tree import Body, TreeModel
from ..system import Model, assemble

CANTILEVER = BeamSpec(
    length=0.4, n_elements=10, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
)
MASS = 0.02


def sliding_mass_model(
    mu=0.0, n_elements=10, beam: BeamSpec = CANTILEVER, mass=MASS, gravity=(0.0, -9.81)
) -> Model:
    """The point mass on two prismatic joints (x then y) in contact with the beam."""
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(mass, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
        gravity=gravity,
    )
    beam = replace(beam, n_elements=n_elements)
    return Model(tree=tree, beam=beam, contacts=(ContactSpec(body=1, point=(0.0, 0.0), mu=mu),))


def initial_state(system, x0=0.1, speed=0.5):
    """Mass at x0 on the static deflected beam (self-weight + the mass's weight), moving along +x."""
    beam = system.beam
    g = np.asarray(system.tree.gravity)
    weight = system.tree.bodies[1].mass * float(g @ beam.n0)
    load = point_load(beam, x0, force=weight)
    if system.model.beam_gravity:
        load = load + self_weight(beam, system.tree.gravity)
    u_static = static_deflection(beam, load)
    f = evaluate(beam, u_static, [x0])
    lay = system.layout
    q0 = np.zeros(lay.n)
    u0 = np.zeros(lay.n)
    p = beam.origin + x0 * beam.t0 + f.deflection[0] * beam.n0
    q0[0], q0[1] = p
    q0[lay.beam] = u_static[beam.free_dofs]
    v = speed * (beam.t0 + f.slope[0] * beam.n0)
    u0[0], u0[1] = v
    return q0, u0


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
    """Run the demo; returns (system, SimulationResult). Writes DIR/history.csv when ``out``."""
    model = sliding_mass_model(mu, n_elements)
    model = replace(
        model, beam=replace(model.beam, rayleigh_alpha=rayleigh_alpha, rayleigh_beta=rayleigh_beta)
    )
    system = assemble(model)
    q0, u0 = initial_state(system, x0, speed)
    result = integrate(
        system,
        (0.0, t_end),
        q0,
        u0,
        h=h,
        rho_inf=rho_inf,
        progress=progress,
        out=None if out is None else Path(out) / "raw",
    )
    if out is not None:
        write_history(system, result, Path(out) / "history.csv")
    return system, result


def write_history(system, result, path):
    """The demo's CSV with the column names of issue 5."""
    path.parent.mkdir(parents=True, exist_ok=True)
    beam = system.beam
    tip_dof = beam.basis.nodal_dofs[0, -1]
    lay = system.layout
    tip = np.array([system.beam_full(q[lay.beam])[tip_dof] for q in result.q])
    r = result.columns
    columns = {
        "t [s]": result.t,
        "x [m]": result.q[:, 0],
        "y [m]": result.q[:, 1],
        "contact_x [m]": r["contact_x"],
        "normal_force [N]": r["contact_normal_force"],
        "friction_force [N]": r["contact_friction_force"],
        "slip_velocity [m/s]": r["contact_slip_velocity"],
        "tip_deflection [m]": tip,
        "residual_position [m]": r["residual_position"],
        "residual_velocity [m/s]": r["residual_velocity"],
        "kinetic_energy [J]": r["tree_kinetic_energy"] + r["beam_kinetic_energy"],
        "potential_energy [J]": r["tree_potential_energy"] + r["beam_gravity_energy"],
        "elastic_energy [J]": r["beam_elastic_energy"],
        "dissipated_friction [J]": r["dissipated_friction"],
        "dissipated_damping [J]": r["dissipated_damping"],
        "energy_error [J]": r["energy_error"],
    }
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        for row in zip(*columns.values(), strict=True):
            w.writerow([repr(float(v)) for v in row])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="fe-contact demo sliding-mass",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--mu", type=float, default=0.0, help="friction coefficient (default 0)")
    parser.add_argument("--elements", type=int, default=10, help="beam elements (default 10)")
    parser.add_argument("--t-end", type=float, default=0.5, help="end time in s (default 0.5)")
    parser.add_argument("--h", type=float, default=1e-4, help="time step in s (default 1e-4)")
    parser.add_argument("--out", default="out/sliding_mass", help="output folder")
    args = parser.parse_args(argv)
    system, result = run(args.mu, args.elements, args.t_end, args.out, h=args.h)
    r = result.columns
    print(f"status: {result.status}: {result.message}")
    print(
        f"steps {result.n_steps}, Newton iterations {result.n_newton}, "
        f"wall time {result.wall_time:.2f} s"
    )
    print(
        f"final contact position {r['contact_x'][-1]:.5f} m, normal force "
        f"{r['contact_normal_force'][-1]:.5f} N"
    )
    print(
        f"max position residual {np.max(r['residual_position']):.2e} m, "
        f"max |energy error| {np.max(np.abs(r['energy_error'])):.2e} J"
    )
    print(f"wrote {Path(args.out) / 'history.csv'}")
    return 0 if result.success else 1
