"""Figures written to files: each figure saved in one or more formats (PNG and SVG by default,
SVG with its text kept as text), the one place every plot of the library and its demos is
saved through (``save_figure``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib import rc_context
from matplotlib.figure import Figure

FORMATS = ("png", "svg")


def _targets(path, formats: Sequence[str]) -> list[Path]:
    """``path`` with each suffix of ``formats`` (a given .png/.svg/.pdf suffix is replaced)."""
    if isinstance(formats, str):
        formats = (formats,)
    if not formats:
        raise ValueError("formats must name at least one file format, e.g. ('png', 'svg')")
    path = Path(path)
    if path.suffix.lower() in (".png", ".svg", ".pdf"):
        path = path.with_suffix("")
    path.parent.mkdir(parents=True, exist_ok=True)
    return [path.with_name(f"{path.name}.{fmt.lstrip('.')}") for fmt in formats]


def save_figure(fig: Figure, path, formats: Sequence[str] = FORMATS, dpi: int = 150) -> list[Path]:
    """Save a figure in each format (suffix replaced).

    SVG keeps its text as text (searchable, editable).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    path : str or os.PathLike
        File name; its suffix is replaced by each format.
    formats : sequence of str, optional
        File formats; ("png", "svg") by default.
    dpi : int, optional
        Resolution of the raster formats; 150 by default.

    Returns
    -------
    list of pathlib.Path
        The written paths.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import matplotlib.pyplot as plt
    >>> from fe_contact.io.plots import save_figure
    >>> fig, ax = plt.subplots()
    >>> with tempfile.TemporaryDirectory() as out:
    ...     paths = save_figure(fig, pathlib.Path(out) / "empty.png")
    >>> [p.name for p in paths]
    ['empty.png', 'empty.svg']
    >>> plt.close(fig)
    """
    written = []
    with rc_context({"svg.fonttype": "none"}):
        for target in _targets(path, formats):
            fig.savefig(target, dpi=dpi)
            written.append(target)
    return written
