"""How much the pantograph's data and the wires' damping move the EN 50318 statistics: the
3-span line of ``papers.pantograph`` (0.5 m elements, penalty contact, h = 1 ms, the middle
span as the analysis section) at 250 and 300 km/h with each choice of
``benchmarks/pantograph.py``'s ``--pantograph`` and ``--wire-damping``, and with the lines of
``LINES`` ("60m": ``LINE_60M``; "22kN": the default line with [P]'s 22 kN contact wire;
"no-presag": the default line with the contact wire level at the droppers; "60m-no-presag":
``LINE_60M`` with a level contact wire, as its first public source has it). ``--spans 5``
takes the three middle spans as the analysis section. "dsa380" is the DSA380 pantograph
(``DSA380_PANTOGRAPH``).

Run: python benchmarks/pantograph_sensitivity.py [--speed 250 300] [--spans 3] [--element 0.5]
[--h 1e-3] [--case PANTOGRAPH:WIRES ...] [--out FILE]; one row per case and speed in
``benchmarks/results/pantograph_sensitivity.csv`` (default: the five cases of ``CASES``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from pantograph import PANTOGRAPHS, WIRE_DAMPING
from rows_csv import write_rows

from fe_contact import assemble
from fe_contact.demos.pantograph import QUANTITIES
from fe_contact.papers.catenary import EN50318, LINE_60M
from fe_contact.papers.pantograph import KMH, pantograph_on_catenary, run_statistics

RESULTS = Path(__file__).parent / "results" / "pantograph_sensitivity.csv"
LINES = {
    **WIRE_DAMPING,  # "benchmark": the default line; "none": its wires undamped
    "60m": LINE_60M,
    "22kN": replace(EN50318, contact_wire_tension=22e3),  # [P]'s contact wire tension
    "no-presag": replace(EN50318, presag=0.0),  # a level contact wire at the droppers
    "60m-no-presag": replace(LINE_60M, presag=0.0),  # [L]'s first source: no pre-sag
}
CASES = (
    ("three-mass", "none"),
    ("three-mass-reversed", "none"),
    ("three-mass", "benchmark"),
    ("en50318", "none"),
    ("en50318", "benchmark"),
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed", type=float, nargs="+", default=[250.0, 300.0])
    parser.add_argument("--spans", type=int, default=3)
    parser.add_argument("--element", type=float, default=0.5)
    parser.add_argument("--h", type=float, default=1e-3, help="step, s")
    parser.add_argument("--case", nargs="+", help="PANTOGRAPH:LINE, e.g. en50318:benchmark")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    cases = CASES if not args.case else [tuple(c.split(":")) for c in args.case]
    rows = []
    for speed in args.speed:
        for pantograph, wires in cases:
            c0 = time.process_time()
            run = pantograph_on_catenary(
                args.spans,
                speed=speed * KMH,
                contact="penalty",
                data=PANTOGRAPHS[pantograph],
                line_data=LINES[wires],
                max_element_length=args.element,
                h=args.h,
            )
            system = assemble(run.model)
            result = run.run(system)
            stats = run_statistics(run, system, result)
            row = {"speed_kmh": speed, "pantograph": pantograph, "wire_damping": wires}
            row.update(h=args.h, element=args.element, spans=args.spans)
            row.update({name: getattr(stats, name) for name, _, _ in QUANTITIES})
            row.update(status=result.status, cpu_s=time.process_time() - c0)
            rows.append(row)
            print(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                            for k, v in row.items()), flush=True)  # fmt: skip
            write_rows(args.out, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
