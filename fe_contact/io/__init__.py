"""Output: VTK, CSV, plots."""
