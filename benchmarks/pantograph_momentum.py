"""The pantograph's vertical momentum balance at speed, exact against penalty contact, and the
statistics of both readings of the contact force against the step.

3 spans of 0.5 m elements (``papers.pantograph``), the reference pantograph at ``--speed``
(default 300 km/h) from 50 m for ``--t-end`` s (default 0.65 s: to 104 m), rho_inf = 1, the
analysis section 55-100 m. For each contact law and step h the script prints the statistics
(``contact_force_statistics``: filtered mean and standard deviation, actual extremes, the
percentage of raw samples <= 0) of

- the recorded force (the penalty force, or the exact law's multiplier, at the step ends), and
- the force on the pantograph (``pantograph_force``: its momentum balance over each step),

and the momentum defect: the recorded force's impulse (trapezoidal rule) minus the impulse the
pantograph's balance needs, over the run (N s). With the penalty contact the two readings
agree. The exact contact runs in the energy-consistent form (the scenario's default at
rho_inf = 1), where head and wire receive the same impulse and the recorded force is the
step's impulse over h: the readings agree too. ``--partitioned`` runs it in the
coordinate-partitioned form instead, where the head takes the wire's material-point velocity
from the velocity constraint, an impulse the wire does not feel: there they do not, and both
move with h (the rows with energy_consistent False).

Run: python benchmarks/pantograph_momentum.py [--speed 300] [--t-end 0.65]
[--contact exact penalty] [--h 1e-3 5e-4 2.5e-4] [--partitioned] [--out FILE]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from rows_csv import write_rows

from fe_contact import assemble
from fe_contact.papers.pantograph import (
    HEAD,
    KMH,
    contact_force_statistics,
    pantograph_force,
    pantograph_on_catenary,
)

RESULTS = Path(__file__).parent / "results" / "pantograph_momentum.csv"
SECTION = (55.0, 100.0)


def readings(contact: str, speed_kmh: float, t_end: float, h: float, form=None) -> dict:
    """One run's statistics of both readings of the force, its momentum defect and its cost.
    form : the stepper's ``energy_consistent`` (None: the scenario's default)."""
    v = speed_kmh * KMH
    run = pantograph_on_catenary(
        3, speed=v, contact=contact, max_element_length=0.5, x_start=50.0, x_end=50.0 + v * t_end, h=h,
        energy_consistent=form,
    )  # fmt: skip
    system = assemble(run.model)
    c0 = time.process_time()
    result = run.run(system)
    cpu = time.process_time() - c0
    x = result.q[:, system.layout.tree.start]
    recorded = result[f"{HEAD}_normal_force"]
    t_p, x_p, on_pantograph = pantograph_force(run, system, result)
    a = contact_force_statistics(result.t, x, recorded, SECTION)
    b = contact_force_statistics(t_p, x_p, on_pantograph, SECTION)
    dt = np.diff(result.t)
    defect = float(np.sum(0.5 * (recorded[1:] + recorded[:-1]) * dt - on_pantograph * dt))
    row = {
        "contact": contact,
        "energy_consistent": bool(run.settings["energy_consistent"]),
        "speed_kmh": speed_kmh,
        "h_s": h,
        "status": result.status,
    }
    for name, s in (("recorded", a), ("pantograph", b)):
        row |= {
            f"{name}_mean_N": s.mean,
            f"{name}_std_N": s.std,
            f"{name}_max_N": s.max,
            f"{name}_min_N": s.min,
            f"{name}_raw_nonpositive_pct": s.loss_of_contact,
        }
    return row | {"momentum_defect_Ns": defect, "cpu_s": cpu}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed", type=float, default=300.0)
    parser.add_argument("--t-end", type=float, default=0.65)
    parser.add_argument("--contact", nargs="+", default=["exact", "penalty"])
    parser.add_argument("--h", type=float, nargs="+", default=[1e-3, 5e-4, 2.5e-4])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--partitioned",
        action="store_true",
        help="the exact contact in the coordinate-partitioned form (energy_consistent=False)",
    )
    args = parser.parse_args(argv)
    rows = []
    for contact in args.contact:
        for h in args.h:
            form = False if args.partitioned else None
            row = readings(contact, args.speed, args.t_end, h, form)
            rows.append(row)
            print(
                f"{contact:8s} h = {h:g} s: recorded mean {row['recorded_mean_N']:6.1f} N, "
                f"std {row['recorded_std_N']:5.1f} N | on the pantograph mean "
                f"{row['pantograph_mean_N']:6.1f} N, std {row['pantograph_std_N']:5.1f} N, raw "
                f"<= 0 in {row['pantograph_raw_nonpositive_pct']:4.1f} % | momentum defect "
                f"{row['momentum_defect_Ns']:+.3f} N s ({row['cpu_s']:.0f} s CPU)"
            )
    write_rows(args.out, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
