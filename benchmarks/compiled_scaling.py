"""Cost per step of the compiled generalised-alpha step against the element count, and a long
tensioned wire with a point running along it at train speed.

Run: python benchmarks/compiled_scaling.py [--quick] [--out benchmarks/results]. Prints and
writes ``compiled_scaling.csv`` (one row per case: elements, unknowns, steps, CPU time per step
and per simulated second, Newton iterations per step, which stepper ran).

Cases:

* the sliding mass (``fe_contact.demos.sliding_mass.model_file``, mu = 0, h = 1 ms) on 10, 100,
  1000 and 5000 elements of the 0.4 m cantilever strip (on 5000 elements, 80 um each, the
  Newton iteration stalls above its round-off allowance in the first step: the row says so);
* the scale case: a contact wire of 5000 elements (and of 1000) (a linear beam under the EN 50318 contact
  wire's axial tension 20 kN, its mass 1.35 kg/m and bending stiffness 195 N m^2, 1000 m
  between pinned ends, no self-weight) with the three-mass pantograph of
  ``papers.pantograph`` (its base driven along the wire at 80 m/s) whose head is held on the
  wire by a bilateral frictionless ``Sliding`` contact from below, from the static
  equilibrium at x = 100 m, h = 1 ms.

Times are the process CPU time of ``simulate`` (stepper set-up and steps; the machine is shared,
so wall time is not the measure), the best of ``REPEATS`` runs after a warm-up run that loads
the compiled kernels.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from fe_contact.demos.sliding_mass import model_file
from fe_contact.laws import Sliding
from fe_contact.model import BeamSpec, ContactPair, Model, Point
from fe_contact.multibody.drive import Drive
from fe_contact.papers.catenary import EN50318
from fe_contact.papers.pantograph import EN50318_PANTOGRAPH, pantograph_tree
from fe_contact.statics import static_equilibrium
from fe_contact.steppers.compiled_scope import unsupported
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

REPEATS = 2
SPEED = 80.0  # m/s, the point's speed along the wire in the scale case
WIRE_LENGTH = 1000.0  # m
X_START = 100.0  # m


def sliding_mass(n_elements: int, h: float, t_end: float):
    """(system, q0, u0) of the sliding mass on ``n_elements``."""
    run_file = model_file(mu=0.0, n_elements=n_elements, t_end=t_end, h=h)
    system = assemble(run_file.model)
    q0, u0 = run_file.initial.state(system)
    return system, q0, u0


def tensioned_wire(n_elements: int, speed: float = SPEED):
    """(system, q0, u0) of the scale case (module docstring)."""
    data = EN50318
    wire = BeamSpec(
        length=WIRE_LENGTH,
        n_elements=n_elements,
        youngs_modulus=1.0,  # EI and rho A given as second_moment and area with E = rho = 1
        density=1.0,
        area=data.contact_wire_mass,
        second_moment=data.contact_wire_bending,
        left="pinned",
        right="pinned",
        axial_force=data.contact_wire_tension,
    )
    g = 9.81
    tree = pantograph_tree(EN50318_PANTOGRAPH, speed, g)
    head = len(tree.bodies) - 1  # the head is the last body of the chain
    model = Model(
        tree=tree,
        structures={"contact_wire": wire},
        contacts=(ContactPair("head", Point(head), "contact_wire", Sliding(0.0), side=-1),),
        drives=(Drive.constant_velocity(0, X_START, speed),),
        gravity=(0.0, -g),
        structure_gravity=False,
    )
    system = assemble(model)
    guess = system.initial_state(q_tree=[X_START] + [0.0] * (len(tree.joints) - 1))[0]
    q0 = static_equilibrium(system, guess).q
    u0 = np.zeros_like(q0)
    u0[system.layout.tree.start] = speed  # the wire is straight at rest: the head moves level
    return system, q0, u0


def timed(system, q0, u0, h: float, t_end: float, **settings):
    """(result, CPU s) of one ``simulate`` run (rho_inf = 0.9)."""
    cpu0 = time.process_time()
    result = simulate(system, (0.0, t_end), (q0, u0), h=h, rho_inf=0.9, **settings)
    return result, time.process_time() - cpu0


def measure(name: str, build, n_elements: int, h: float, t_end: float) -> dict:
    system, q0, u0 = build(n_elements)
    timed(system, q0, u0, h, min(t_end, 5 * h))  # the kernels loaded, the caches warm
    runs = [timed(system, q0, u0, h, t_end) for _ in range(REPEATS)]
    result, cpu = min(runs, key=lambda r: r[1])
    steps = result.n_steps
    reason = unsupported(system)
    if result.status == "failed":  # reported as such: no time per step
        print(f"{name:>16} {n_elements:6d} elements: {result.message}", flush=True)
        steps, cpu, reason = 0, float("nan"), f"failed: {result.message}"
    row = {
        "case": name,
        "elements": n_elements,
        "unknowns": system.layout.n,
        "h_s": h,
        "steps": steps,
        "cpu_per_step_us": 1e6 * cpu / max(steps, 1),
        "cpu_s_per_simulated_s": cpu / t_end,
        "newton_per_step": result.n_newton / max(steps, 1),
        "stepper": "compiled" if reason is None else f"Python ({reason})",
    }
    print(
        f"{name:>16} {n_elements:6d} elements {row['unknowns']:6d} unknowns: "
        f"{row['cpu_per_step_us']:8.1f} us per step, {row['cpu_s_per_simulated_s']:.3f} s per "
        f"simulated s ({steps} steps, {row['stepper']})",
        flush=True,
    )
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke test)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    t_end = 0.02 if args.quick else 0.2
    rows = []
    for n in (10, 100, 1000, 5000):
        rows.append(measure("sliding mass", lambda k: sliding_mass(k, 1e-3, t_end), n, 1e-3, t_end))
    for n in (1000, 5000):
        rows.append(measure("tensioned wire", tensioned_wire, n, 1e-3, t_end))
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "compiled_scaling.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
