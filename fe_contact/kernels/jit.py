"""The decorator of the kernels that only other kernels call.

numba gives every compiled function two wrappers besides its own code: one that Python calls
(it unboxes the arguments and boxes the result) and one that C calls (``cfunc``). For a kernel
that takes the step's constant tuple (``kernels.step``'s P, some sixty arrays) each wrapper is
as large as the kernel itself, and the wrappers are optimised and emitted again in every
kernel that calls it (numba links a callee's whole library into its caller's). ``inner``
compiles a kernel without them: it is cached like the others, other kernels call it as before,
and Python must not call it (without the wrapper the call crashes the interpreter: a
segmentation fault, not an exception).

Small helpers are ``inner`` kernels too, not numba's IR inlining (``inline="always"``): LLVM
inlines them into their callers where that pays, while IR inlining types and lowers a fresh
copy of the callee at every call site (``kernels.tree.kinematics`` had six: about 1 s of
compilation each). IR inlining is kept only for callees with one call site
(``kernels.tree.poses``, ``velocities``, ``_terms`` in ``kinematics``; ``kernels.step._recover``
in ``iterate``: compiled on its own it optimised and emitted again the whole library of
``evaluate_system`` below it, 2.7 s of LLVM). Not ``kernels.step.iterate`` in ``kernels.loop.steps``,
though it has one call site: its library (about 8 s of LLVM) is emitted again inside
``steps``'s, yet one function of both can cost more, LLVM's passes growing faster than the size
of what they optimise: the manipulator demo's first compilation took 74 s of CPU with iterate
inlined and 83 s without, but 109.6 s inlined against 104.5 s without once the rolling rows,
unilateral rows and curved pairs' rows were added to both (numba's compile events, one
process each, idle machine; ``benchmarks/speed.py --parts first-run``: 113.5 s inlined, idle,
116.1 s not, beside another job: the two within the measurement's spread).
"""

from __future__ import annotations

from numba import njit

inner = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)

__all__ = ["inner"]
