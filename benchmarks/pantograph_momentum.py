"""The pantograph's vertical momentum balance at speed, exact against penalty contact: 3 spans
of 0.5 m elements (``papers.pantograph``), the reference pantograph at 300 km/h for 0.3 s from
the support at 55 m, h = 1 ms, rho_inf = 1.

The masses' vertical momentum P = m_frame v_frame + m_head v_head changes by the time integral
of the uplift F0 (the actuator carries the weight), the frame's spring -k z_frame and damper
-c v_frame, minus the contact's impulse (the integral of the recorded normal force). The script
prints both sides per contact law.

Run: python benchmarks/pantograph_momentum.py [--speed 300] [--t-end 0.3] [--contact exact penalty]
"""

from __future__ import annotations

import argparse

import numpy as np

from fe_contact import assemble
from fe_contact.papers.pantograph import EN50318_PANTOGRAPH as E
from fe_contact.papers.pantograph import HEAD, KMH, pantograph_on_catenary


def balance(contact: str, speed_kmh: float, t_end: float) -> dict:
    """Both sides of the momentum balance (N s) of one run, and the contact's mean force (N)."""
    v = speed_kmh * KMH
    run = pantograph_on_catenary(
        3, speed=v, contact=contact, max_element_length=0.5, x_start=55.0, x_end=55.0 + v * t_end
    )
    system = assemble(run.model)
    result = run.run(system)
    s = system.layout.tree.start
    t, q, u = result.t, result.q[:, s : s + 3], result.u[:, s : s + 3]
    z_frame, v_frame, v_head = q[:, 1], u[:, 1], u[:, 1] + u[:, 2]
    momentum = E.frame_mass * v_frame + E.head_mass * v_head
    force = result[f"{HEAD}_normal_force"]
    pantograph = np.trapezoid(
        E.static_force - E.frame_stiffness * z_frame - E.frame_damping * v_frame, t
    )
    contact_impulse = np.trapezoid(force, t)
    return {
        "contact": contact,
        "momentum_change": float(momentum[-1] - momentum[0]),
        "impulse_balance": float(pantograph - contact_impulse),
        "contact_impulse": float(contact_impulse),
        "mean_force": float(contact_impulse / (t[-1] - t[0])),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed", type=float, default=300.0)
    parser.add_argument("--t-end", type=float, default=0.3)
    parser.add_argument("--contact", nargs="+", default=["exact", "penalty"])
    args = parser.parse_args(argv)
    for contact in args.contact:
        row = balance(contact, args.speed, args.t_end)
        print(
            f"{contact:8s} momentum change {row['momentum_change']:+.4f} N s, uplift, spring and "
            f"damper minus the contact's impulse {row['impulse_balance']:+.4f} N s (the "
            f"contact's impulse {row['contact_impulse']:.4f} N s, mean force "
            f"{row['mean_force']:.1f} N)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
