"""Physical constants the library takes as defaults, SI units, each typed once."""

from __future__ import annotations

__all__ = ["STANDARD_GRAVITY"]

STANDARD_GRAVITY = (0.0, -9.81)
"""The default gravity (g_x, g_y) of a model and of each of its parts, m/s^2: 9.81 m/s^2
along -y, the value of the papers the library reproduces."""
