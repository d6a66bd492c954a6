"""The background compilation's job (``steppers.background_compile``): ``python -m
fe_contact.compile_kernels`` compiles the kernels of the generalised-alpha compiled step into
numba's cache by a short compiled run of the manipulator on the cantilever (Lipinski (002),
sec. 9: a tree on a beam with a sliding frictional contact; every generalised-alpha run on the
compiled step calls the same entry kernels with the same argument types), at a lower priority,
then releases the compilation's lock (also when the run fails)."""

from __future__ import annotations

import os
import sys
import time

from .papers import lipinski
from .steppers import background_compile
from .steppers.simulate import simulate


def main() -> int:
    """Compile, print the CPU time it took; 0 when the run took compiled steps.

    Returns
    -------
    int
        The process's exit code.

    Examples
    --------
    >>> main.__name__  # run as ``python -m fe_contact.compile_kernels``
    'main'
    """
    try:
        os.nice(10)
    except (AttributeError, OSError):
        pass
    try:
        t0 = time.process_time()
        scenario = lipinski.manipulator(lipinski.Manipulator(), 0.2)
        system = scenario.assemble()
        result = simulate(system, (0.0, 0.01), (scenario.q0, scenario.u0), h=5e-4, compiled=True)
        print(
            f"compiled in {time.process_time() - t0:.1f} s of CPU; {result.n_compiled} compiled "
            f"steps, status {result.status}",
            flush=True,
        )
        return 0 if result.n_compiled > 0 else 1
    finally:
        background_compile.release()


if __name__ == "__main__":
    sys.exit(main())
