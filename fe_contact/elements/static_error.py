"""The error of a static solve whose Newton iteration did not converge, shared by the string's
equilibrium (``elements.string_statics``) and the whole model's (``fe_contact.statics``)."""

from __future__ import annotations


class StaticSolveError(RuntimeError):
    """Newton's method did not converge in a load or support step of a static solve.

    phase : what was being followed (a load or a support phase, named by the solver);
    load_factor : the path parameter (0..1) of the failing attempt; residual : the force residual
    norm at that attempt, N; n_iterations : Newton iterations of that attempt. ``message`` is the
    solver's own account (what it tried and what to change).
    """

    def __init__(self, phase: str, load_factor: float, residual: float, n_iterations: int, message):
        self.phase = phase
        self.load_factor = load_factor
        self.residual = residual
        self.n_iterations = n_iterations
        super().__init__(message)


__all__ = ["StaticSolveError"]
