"""Compiled (numba) kernels of the hot path: tree kinematics and dynamics, beam contact
kinematics and the Newton iteration of a generalised-alpha step (``steppers.compiled``)."""
