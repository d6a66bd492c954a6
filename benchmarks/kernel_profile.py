"""Where the time goes inside the compiled (numba) kernels: a map of their machine code for
Linux ``perf``, which otherwise shows every compiled function as one anonymous "[JIT]" block
(cProfile sees a compiled call as one entry).

Run (kernels compiled in this process: a fresh numba cache, about 2 minutes)::

    NUMBA_CACHE_DIR=$(mktemp -d) perf record -F 1999 -o perf.data \\
        python benchmarks/kernel_profile.py [--elements N] [--t-end T]
    perf report -i perf.data --sort sym

The script runs the sliding mass (``speed.sliding_mass``, mu = 0, h = 1e-4 s) on N beam
elements, then writes ``/tmp/perf-<pid>.map`` with the address, size and name of every
function in the libraries of the ``fe_contact.kernels`` dispatchers (perf reads that file when
it reports). Names are numba's mangled ones (``fe_contact7kernels4step7iterate...``). A
kernel loaded from the cache has no LLVM module to list, hence the fresh cache; each
function's size is taken as the distance to the next listed address (an upper bound).

Measured (2026-11-27, 1000 elements, 0.1 s = 1000 steps, machine loaded): of the kernels'
~1.1 ms per step, ``iterate`` itself 18 %, ``evaluate_system`` 15 %, ``_bordered`` 12 %, the
banded solve 10 %, the Newton test's round-off floor (``excess_with_floor`` and
``_floor_row``) 10 %, ``step_dissipation`` 7.5 %, ``state_energies`` 6 %, numba's reference
counting 9 %: no single kernel to fix; the O(n) passes per iterate are many.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def kernel_functions() -> dict[int, str]:
    """{address: name} of every function defined in the libraries of the compiled
    overloads of the ``fe_contact.kernels`` dispatchers (those compiled in this process)."""
    from numba.core.registry import CPUDispatcher

    import fe_contact.kernels as kernels

    found = {}
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"fe_contact.kernels.{info.name}")
        for obj in vars(module).values():
            if not isinstance(obj, CPUDispatcher):
                continue
            for compiled in obj.overloads.values():
                library = compiled.library
                llvm_module = getattr(library, "_final_module", None)
                if llvm_module is None:  # loaded from the cache
                    continue
                for function in llvm_module.functions:
                    if function.is_declaration:
                        continue
                    address = library.get_pointer_to_function(function.name)
                    if address:
                        found[address] = function.name
    return found


def write_perf_map(functions: dict[int, str], path: Path) -> int:
    """Write perf's map (``start size name`` per line, hex) of ``functions``; their count."""
    items = sorted(functions.items())
    with path.open("w") as out:
        for i, (address, name) in enumerate(items):
            size = items[i + 1][0] - address if i + 1 < len(items) else 4096
            out.write(f"{address:x} {min(size, 1 << 20):x} {name}\n")
    return len(items)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elements", type=int, default=1000, help="beam elements (1000)")
    parser.add_argument("--t-end", type=float, default=0.1, help="simulated s (0.1)")
    args = parser.parse_args(argv)
    if args.elements < 1 or not args.t_end > 0.0:
        parser.error("--elements must be >= 1 and --t-end > 0")
    sys.path.insert(0, str(HERE))
    import speed

    speed.sliding_mass(args.elements, 1e-4, 2e-3)  # compiled here, outside the measured run
    _, _, cpu = speed.sliding_mass(args.elements, 1e-4, args.t_end)
    steps = round(args.t_end / 1e-4)
    print(f"{args.elements} elements: {cpu / steps * 1e6:.0f} us of CPU per step")
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    count = write_perf_map(kernel_functions(), path)
    if count == 0:
        print("no compiled kernel to map: run with an empty NUMBA_CACHE_DIR", file=sys.stderr)
        return 1
    print(f"{count} functions mapped in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
