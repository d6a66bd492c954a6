"""A ParaView Python state script beside each series: ``pvpython NAME.pvsm.py`` shows the run.

``PvdWriter`` keeps a :class:`SeriesSummary` of the frames it writes (the parts of each
block, the largest contact force, the extent of the drawing) and writes ``NAME.pvsm.py`` beside
``NAME.pvd`` from it with :func:`write_state_script`. The script opens the series, shows the
``structures`` coloured by bending moment (beams) or tension (strings), the ``bodies`` as
lines, and a Glyph of arrows on the ``contact_force`` vectors of the ``contacts`` block, scaled
so that the largest force of the run is drawn 15 % of the drawing's extent long; then it sets a
2D view and the animation to the frames' times. It is made from the written data only: nothing
is re-run. ``pvpython NAME.pvsm.py`` opens a window (close it to end); in the ParaView GUI,
*View > Python Shell > Run Script*. It uses ``paraview.simple`` of ParaView 5.10 or newer
(``ExtractBlock`` by ``Selectors``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

GLYPH_FRACTION = 0.15  # the largest contact force is drawn this fraction of the extent long


@dataclass
class SeriesSummary:
    """What a series holds, gathered frame by frame from its blocks (``io.vtk.Block``).

    Parameters
    ----------
    structures : dict of str to str, optional
        Part name -> the array the part is coloured by ("bending_moment" on a beam, "tension"
        on a string, "" on a part with neither).
    bodies : list of str, optional
        The names of the ``bodies`` parts.
    has_contacts : bool, optional
        Whether a frame has contact points; False by default.
    max_force : float, optional
        The largest |contact_force| of any frame, N (0 when no contact closed).
    lower : ndarray, shape (2,), optional
        Lower corner of the box holding every point of every frame, m.
    upper : ndarray, shape (2,), optional
        Upper corner of that box, m.

    Examples
    --------
    >>> import numpy as np
    >>> from fe_contact.io.vtk import Block
    >>> s = SeriesSummary()
    >>> s.add([Block("beam", np.array([[0.0, 0.0], [0.4, -0.01]]), [("line", [[0, 1]])],
    ...              {"bending_moment": np.zeros(2)})])
    >>> s.structures, s.extent()
    ({'beam': 'bending_moment'}, 0.4001)
    """

    structures: dict = field(default_factory=dict)
    bodies: list = field(default_factory=list)
    has_contacts: bool = False
    max_force: float = 0.0
    lower: np.ndarray = field(default_factory=lambda: np.full(2, np.inf))
    upper: np.ndarray = field(default_factory=lambda: np.full(2, -np.inf))

    def add(self, blocks) -> None:
        """Take in the blocks of one frame (a list of ``io.vtk.Block``)."""
        for block in blocks:
            if len(block.points):  # an empty contacts block has no points (shape (0,))
                points = np.asarray(block.points, dtype=float).reshape(len(block.points), -1)
                self.lower = np.minimum(self.lower, points[:, :2].min(axis=0))
                self.upper = np.maximum(self.upper, points[:, :2].max(axis=0))
            if block.group == "structures" and block.name not in self.structures:
                data = block.point_data
                colour = next((a for a in ("bending_moment", "tension") if a in data), "")
                self.structures[block.name] = colour
            elif block.group == "bodies" and block.name not in self.bodies:
                self.bodies.append(block.name)
            elif block.group == "contacts":
                self.has_contacts = True
                force = np.asarray(block.point_data.get("contact_force", np.zeros((0, 2))))
                if force.size:
                    norm = np.linalg.norm(force.reshape(len(force), -1), axis=1).max()
                    self.max_force = max(self.max_force, float(norm))

    def extent(self) -> float:
        """The diagonal of the box holding every point, m (rounded to 4 significant digits;
        1.0 before any point was seen)."""
        if not np.all(np.isfinite(self.lower)):
            return 1.0
        diagonal = float(np.hypot(*(self.upper - self.lower)))
        return float(f"{diagonal:.4g}") if diagonal > 0 else 1.0


def state_script(pvd_name: str, folder, summary: SeriesSummary) -> str:
    """The text of the ParaView Python state script of a series.

    Parameters
    ----------
    pvd_name : str
        File name of the ``.pvd`` (the script looks for it beside itself, or in ``folder``
        when run where ``__file__`` is not set).
    folder : str or os.PathLike
        The series' folder.
    summary : SeriesSummary
        What its frames hold.

    Returns
    -------
    str
        The script (Python source for ``pvpython``, ``paraview.simple``).

    Examples
    --------
    A beam without contacts is coloured by its bending moment and gets no Glyph; a run whose
    largest contact force is 2 N in a drawing 0.5 m across draws it 0.15 * 0.5 m long:

    >>> import ast
    >>> beam = SeriesSummary(structures={"beam": "bending_moment"})
    >>> text = state_script("frames.pvd", "/tmp/run", beam)
    >>> _ = ast.parse(text)  # valid Python
    >>> '("POINTS", "bending_moment")' in text, "Glyph(registrationName" in text
    (True, False)
    >>> hit = SeriesSummary(has_contacts=True, max_force=2.0)
    >>> hit.lower, hit.upper = np.array([0.0, 0.0]), np.array([0.3, 0.4])
    >>> [line for line in state_script("frames.pvd", "/tmp/run", hit).splitlines()
    ...  if "ScaleFactor" in line]
    ['forces.ScaleFactor = 0.0375  # m/N']
    """
    extent = summary.extent()
    scale = GLYPH_FRACTION * extent / summary.max_force if summary.max_force > 0 else 0.0
    lines = [
        f'"""ParaView state of the series {pvd_name}: pvpython {Path(pvd_name).stem}.pvsm.py',
        "",
        "Written by fe_contact beside the series, from its frames (nothing is re-run). In the",
        "ParaView GUI: View > Python Shell > Run Script. Needs ParaView 5.10 or newer.",
        '"""',
        "",
        "import os",
        "",
        "import paraview",
        "from paraview.simple import (",
        "    ColorBy, ExtractBlock, GetActiveViewOrCreate, GetAnimationScene, Glyph, Interact,",
        "    PVDReader, Render, ResetCamera, Show,",
        ")",
        "",
        f"SERIES = {pvd_name!r}",
        f"FOLDER = {str(Path(folder).resolve())!r}  # where the series was written",
        "try:",
        "    FOLDER = os.path.dirname(os.path.abspath(__file__))",
        "except NameError:  # Run Script in the GUI may not set __file__",
        "    pass",
        "",
        "series = PVDReader(registrationName=SERIES, FileName=os.path.join(FOLDER, SERIES))",
        'view = GetActiveViewOrCreate("RenderView")',
        "",
    ]
    if summary.structures:
        colours = sorted({c for c in summary.structures.values() if c})
        lines += [
            f"# structures: {', '.join(summary.structures)}",
            'structures = ExtractBlock(registrationName="structures", Input=series)',
            'structures.Selectors = ["/Root/structures"]',
            "shown = Show(structures, view)",
            "shown.LineWidth = 3.0",
        ]
        if colours:
            lines += [
                f'ColorBy(shown, ("POINTS", "{colours[0]}"))',
                "shown.RescaleTransferFunctionToDataRange(True, False)",
                "shown.SetScalarBarVisibility(view, True)",
            ]
        lines.append("")
    if summary.bodies:
        lines += [
            f"# bodies: {', '.join(summary.bodies)}",
            'bodies = ExtractBlock(registrationName="bodies", Input=series)',
            'bodies.Selectors = ["/Root/bodies"]',
            "shown = Show(bodies, view)",
            "shown.LineWidth = 2.0",
            "shown.AmbientColor = shown.DiffuseColor = [0.2, 0.2, 0.2]",
            "",
        ]
    if summary.has_contacts:
        lines += [
            f"# contacts: largest |contact_force| {summary.max_force:.4g} N, drawn "
            f"{GLYPH_FRACTION:g} x {extent:.4g} m long",
            'contacts = ExtractBlock(registrationName="contacts", Input=series)',
            'contacts.Selectors = ["/Root/contacts"]',
            'forces = Glyph(registrationName="contact forces", Input=contacts, GlyphType="Arrow")',
            'forces.OrientationArray = ["POINTS", "contact_force"]',
            'forces.ScaleArray = ["POINTS", "contact_force"]',
            f"forces.ScaleFactor = {scale:.4g}  # m/N",
            'forces.GlyphMode = "All Points"',
            "shown = Show(forces, view)",
            'ColorBy(shown, ("POINTS", "state"))',
            "",
        ]
    lines += [
        'view.InteractionMode = "2D"',
        "ResetCamera(view)",
        "GetAnimationScene().UpdateAnimationUsingDataTimeSteps()",
        "Render(view)",
        'if not getattr(paraview, "fromGUI", False):  # pvpython: keep the window open',
        "    Interact(view)",
        "",
    ]
    return "\n".join(lines)


def write_state_script(pvd_path, summary: SeriesSummary) -> Path:
    """Write ``NAME.pvsm.py`` beside the series ``pvd_path`` (``.../NAME.pvd``).

    Parameters
    ----------
    pvd_path : str or os.PathLike
        The series' ``.pvd`` file.
    summary : SeriesSummary
        What its frames hold.

    Returns
    -------
    pathlib.Path
        The script's path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as out:
    ...     path = write_state_script(pathlib.Path(out) / "frames.pvd", SeriesSummary())
    ...     print(path.name, compile(path.read_text(), path.name, "exec") is not None)
    frames.pvsm.py True
    """
    pvd_path = Path(pvd_path)
    path = pvd_path.with_name(pvd_path.stem + ".pvsm.py")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(state_script(pvd_path.name, pvd_path.parent, summary))
    tmp.replace(path)
    return path
