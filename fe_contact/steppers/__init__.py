"""Time steppers over one System: generalised-alpha (partitioned) and Moreau-Jean."""
