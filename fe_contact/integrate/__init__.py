"""Time integrators, events and results."""
