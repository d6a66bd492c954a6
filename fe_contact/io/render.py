"""Pictures of a written ``.pvd`` series without a display: a PNG snapshot and a GIF animation.

The frames are drawn in the plane of the model (view along -z, parallel projection) with one
camera fitted to all frames drawn, so an animation does not jump: elastic parts (beam, string,
disk: lines without a tree body) in blue, rigid bodies in dark grey, joints as grey dots, contact
points in red with the normal (red) and friction (orange) forces on the bodies as arrows, all to
the same force scale (m per N), drawn in front of the lines; an arrow shorter than 5 % of the
view's width (a small friction force) is drawn at that length, so that it stays visible.

Two back ends draw the same scene:

* ``"pyvista"``: VTK rendering in an off-screen window, ``pv.Plotter(off_screen=True)``. Without
  an X display, VTK's wheels (9.4 and newer) render with EGL (Debian/Ubuntu packages ``libegl1``,
  ``libegl-mesa0``, ``libgl1-mesa-dri``) or with OSMesa (``libosmesa6``); when neither is
  installed, creating the window crashes the process, so ``"auto"`` first asks a subprocess
  (:func:`offscreen_available`).
* ``"matplotlib"``: Agg, always available.

GIF animations are written by pyvista's movie writer (imageio) with the pyvista back end, from
one plotter whose meshes are updated in place frame by frame, and by Pillow with the matplotlib
one.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

_log = logging.getLogger("fe_contact")

BACKENDS = ("auto", "pyvista", "matplotlib")
_VERTEX = 1  # VTK_VERTEX
_LINE = 3  # VTK_LINE
_BACKGROUND = (1.0, 1.0, 1.0)
_ELASTIC = "#1f77b4"
_BODY = "#262626"
_NORMAL = "#d62728"
_FRICTION = "#ff7f0e"
_MIN_ARROW = 0.05  # shortest force arrow drawn, a fraction of the view's width
_UPPER_LEFT = 2  # vtkCornerAnnotation.UpperLeft: the corner of the title and the time

_PROBE = """
import numpy as np, pyvista as pv
p = pv.Plotter(off_screen=True, window_size=(64, 48))
p.add_mesh(pv.Sphere(), color="red")
img = p.screenshot(return_img=True)
p.close()
raise SystemExit(0 if len(np.unique(img.reshape(-1, img.shape[-1]), axis=0)) > 1 else 3)
"""


@functools.lru_cache(maxsize=1)
def offscreen_available(timeout: float = 120.0) -> bool:
    """True when VTK renders an off-screen picture here; checked once in a subprocess (s: timeout).

    A missing OpenGL library can crash VTK instead of raising, hence the separate process.
    """
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE], capture_output=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@dataclass(frozen=True)
class Scene:
    """What one frame shows, in m and N (c = number of contacts).

    Parameters
    ----------
    time : float
        Time, s.
    points : ndarray, shape (m, 2)
        Points, m.
    elastic_lines : ndarray of int, shape (k, 2)
        Point indices of the segments of elastic parts.
    body_lines : ndarray of int, shape (k, 2)
        Point indices of the segments of rigid bodies.
    joints : ndarray of int, shape (j,)
        Point indices of the joints.
    contacts : ndarray of int, shape (c,)
        Point indices of the contact points.
    normal_force : ndarray, shape (c, 2)
        Normal forces on the bodies at the contacts, N.
    friction_force : ndarray, shape (c, 2)
        Friction forces on the bodies at the contacts, N.
    supports : ndarray of int, shape (s,), optional
        Point indices of the supported ends of beams; none by default.
    support_kinds : ndarray of int, shape (s,), optional
        Their kinds (``io.vtk.SUPPORT_CODES``: 1 pinned, 2 clamped).
    support_tangents : ndarray, shape (s, 2), optional
        Unit vectors along the beam into it at each support.

    Examples
    --------
    See ``load_scene``. A scene of one rigid segment and no contact:

    >>> from fe_contact.io.render import Scene
    >>> scene = Scene(0.0, np.array([[0.0, 0.0], [1.0, 0.0]]), np.zeros((0, 2), int),
    ...               np.array([[0, 1]]), np.array([0]), np.zeros(0, int), np.zeros((0, 2)),
    ...               np.zeros((0, 2)))
    >>> scene.body_lines.tolist()
    [[0, 1]]
    """

    time: float
    points: np.ndarray
    elastic_lines: np.ndarray
    body_lines: np.ndarray
    joints: np.ndarray
    contacts: np.ndarray
    normal_force: np.ndarray
    friction_force: np.ndarray
    supports: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    support_kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    support_tangents: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))


def read_series(pvd_path) -> list[tuple[float, Path]]:
    """Time and frame path of each data set listed in a ``.pvd`` file, in time order.

    pyvista's ``PVDReader`` parses the index.

    Parameters
    ----------
    pvd_path : str or os.PathLike
        The ``.pvd`` file.

    Returns
    -------
    list of tuple of (float, pathlib.Path)
        (time in s, frame path) of each frame.

    Raises
    ------
    ValueError
        When the file lists no frames.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium (4 frames, t = 0 .. 3 ms):

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> import tempfile
    >>> from fe_contact.io.vtk import write_pvd
    >>> from fe_contact.io.render import read_series
    >>> with tempfile.TemporaryDirectory() as out:
    ...     series = read_series(write_pvd(result, system, out))
    >>> [round(t, 6) for t, _ in series]
    [0.0, 0.001, 0.002, 0.003]
    """
    import pyvista as pv

    pvd_path = Path(pvd_path)
    try:
        datasets = pv.PVDReader(str(pvd_path)).datasets
    except IndexError:  # pyvista's reader indexes the first time of an empty collection
        datasets = []
    if not datasets:
        raise ValueError(f"{pvd_path} lists no frames")
    return [(float(d.time), pvd_path.parent / d.path) for d in datasets]


def _cells(grid, kind: int) -> tuple[np.ndarray, np.ndarray]:
    """Point indices (k, n) of the cells of VTK type ``kind`` (n points each) of a grid, and
    the mask of those cells among all of them."""
    import pyvista as pv

    types = np.asarray(grid.celltypes)
    mask = types == kind
    width = 1 if kind == _VERTEX else 2
    cells = grid.GetCells()  # VTK's arrays: pyvista renamed its views of them in 0.49
    starts = pv.convert_array(cells.GetOffsetsArray())[:-1][mask]
    conn = pv.convert_array(cells.GetConnectivityArray())
    return conn[starts[:, None] + np.arange(width)[None, :]].reshape(-1, width), mask


def load_scene(frame_path, time: float = 0.0) -> Scene:
    """What one frame written by ``fe_contact.io.vtk`` shows (its named blocks).

    The lines of ``structures`` and those of ``bodies`` without a tree body are elastic, the
    other lines of ``bodies`` rigid, its vertices with a joint index joints; ``contacts`` gives
    the contact points and their forces.

    Parameters
    ----------
    frame_path : str or os.PathLike
        The frame's ``.vtm`` file.
    time : float, optional
        The frame's time, s; 0 by default.

    Returns
    -------
    Scene
        The frame's points, lines, joints and contact forces.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium: the last frame read back
    gives the contact force on the mass, whose vertical part is its weight m g = 0.4905 N:

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> import tempfile
    >>> from fe_contact.io.vtk import write_pvd
    >>> from fe_contact.io.render import load_scene, read_series
    >>> with tempfile.TemporaryDirectory() as out:
    ...     t, frame = read_series(write_pvd(result, system, out))[-1]
    ...     scene = load_scene(frame, t)
    >>> round(float(scene.normal_force[0, 1]), 4), len(scene.contacts)
    (0.4905, 1)
    """
    import pyvista as pv

    frame = pv.read(frame_path)
    points, elastic, bodies, joints, contacts, fn, ft = [], [], [], [], [], [], []
    supports, kinds, tangents = [], [], []
    offset = 0

    def parts(group):
        block = frame.get(group) if group in frame.keys() else None
        if block is None:
            return []
        return list(block) if isinstance(block, pv.MultiBlock) else [block]

    for group in ("structures", "bodies", "contacts"):
        for grid in parts(group):
            if grid is None or grid.n_points == 0:
                continue
            points.append(np.asarray(grid.points)[:, :2])
            lines, on_lines = _cells(grid, _LINE)
            vertices, on_vertices = _cells(grid, _VERTEX)
            if group == "contacts":
                contacts.append(offset + vertices[:, 0])
                fn.append(np.asarray(grid.point_data["normal_force"])[vertices[:, 0], :2])
                ft.append(np.asarray(grid.point_data["friction_force"])[vertices[:, 0], :2])
            else:
                body = grid.cell_data["body"] if "body" in grid.cell_data else None
                rigid = body[on_lines] >= 0 if body is not None else np.zeros(len(lines), bool)
                elastic.append(offset + lines[~rigid])
                bodies.append(offset + lines[rigid])
                if "joint" in grid.cell_data:
                    joints.append(offset + vertices[grid.cell_data["joint"][on_vertices] >= 0, 0])
                if "support" in grid.cell_data and len(vertices) and len(lines):
                    xy = np.asarray(grid.points)[:, :2]
                    code = np.asarray(grid.cell_data["support"])[on_vertices]
                    for k, kind in zip(vertices[code > 0, 0], code[code > 0], strict=True):
                        row = np.flatnonzero((lines == k).any(axis=1))[0]
                        other = lines[row, 1] if lines[row, 0] == k else lines[row, 0]
                        d = xy[other] - xy[k]
                        supports.append(offset + k)
                        kinds.append(int(kind))
                        tangents.append(d / (np.hypot(*d) or 1.0))
            offset += grid.n_points

    def stack(items, shape):
        return np.concatenate(items) if items else np.zeros(shape)

    return Scene(
        time=float(time),
        points=stack(points, (0, 2)),
        elastic_lines=stack(elastic, (0, 2)).astype(int),
        body_lines=stack(bodies, (0, 2)).astype(int),
        joints=stack(joints, (0,)).astype(int),
        contacts=stack(contacts, (0,)).astype(int),
        normal_force=stack(fn, (0, 2)),
        friction_force=stack(ft, (0, 2)),
        supports=np.array(supports, dtype=int),
        support_kinds=np.array(kinds, dtype=int),
        support_tangents=np.array(tangents, dtype=float).reshape(-1, 2),
    )


def _select(series, frames) -> list[tuple[float, Path]]:
    n = len(series)
    if frames is None:
        return list(series)
    if isinstance(frames, int | np.integer):
        frames = [frames]
    picked = []
    for k in frames:
        if not -n <= k < n:
            raise IndexError(f"frame {k} does not exist; the series has {n} frames (0..{n - 1})")
        picked.append(series[k])
    return picked


@dataclass(frozen=True)
class _View:
    """Camera box shared by all frames: centre (2,) m, half width and height m, force scale m/N."""

    centre: np.ndarray
    half_width: float
    half_height: float
    force_scale: float


def _fit_view(scenes: list[Scene], aspect: float, force_scale: float | None) -> _View:
    """The box around all points and arrows, padded by 10 % a side, with the window's aspect (w/h)."""
    points = np.vstack([s.points for s in scenes])
    lo, hi = points.min(axis=0), points.max(axis=0)
    size = float(np.max(hi - lo)) or 1.0
    forces = np.vstack(
        [np.vstack([s.normal_force, s.friction_force]) for s in scenes] + [np.zeros((1, 2))]
    )
    largest = float(np.max(np.linalg.norm(forces, axis=1)))
    if force_scale is None:
        force_scale = 0.15 * size / largest if largest > 0.0 else 0.0
    for s in scenes:
        for f in (s.normal_force, s.friction_force):
            ends = s.points[s.contacts] + force_scale * f
            if len(ends):
                lo, hi = np.minimum(lo, ends.min(axis=0)), np.maximum(hi, ends.max(axis=0))
    half = 0.5 * np.maximum(hi - lo, 1e-3 * size) * 1.2
    half_width = max(half[0], half[1] * aspect)
    return _View(0.5 * (lo + hi), float(half_width), float(half_width / aspect), force_scale)


def _scale_length(view: _View) -> float:
    """A round length (1, 2 or 5 times a power of ten, m) near a fifth of the view's width."""
    target = 0.4 * view.half_width
    power = 10.0 ** np.floor(np.log10(target))
    return float(max(m * power for m in (1.0, 2.0, 5.0) if m * power <= target))


def _marks(view: _View) -> tuple[np.ndarray, list[tuple[np.ndarray, str]]]:
    """The marks every frame shares, in the lower left corner: a scale bar of
    ``_scale_length`` with end ticks and the x and y axes as two arrows of half its length:
    segments (k, 2, 2) in m and labels (position (2,), text)."""
    w, h = view.half_width, view.half_height
    corner = view.centre + np.array([-0.92 * w, -0.85 * h])
    bar, tick = _scale_length(view), 0.02 * h
    a = 0.5 * bar
    o = corner + np.array([bar + 0.12 * w, 0.0])  # the axes' origin, right of the bar
    segments = [
        (corner, corner + (bar, 0.0)),
        (corner - (0.0, tick), corner + (0.0, tick)),
        (corner + (bar, -tick), corner + (bar, tick)),
        (o, o + (a, 0.0)),
        (o + (a, 0.0), o + (0.8 * a, 0.1 * a)),
        (o + (a, 0.0), o + (0.8 * a, -0.1 * a)),
        (o, o + (0.0, a)),
        (o + (0.0, a), o + (0.1 * a, 0.8 * a)),
        (o + (0.0, a), o + (-0.1 * a, 0.8 * a)),
    ]
    labels = [
        (corner + (0.5 * bar, 3.0 * tick), f"{bar:g} m"),
        (o + (1.1 * a, 0.0), "x"),
        (o + (0.0, 1.15 * a), "y"),
    ]
    return np.array(segments, dtype=float), labels


def _support_marks(scene: Scene, view: _View) -> np.ndarray:
    """Segments (k, 2, 2), m, of the supports' symbols: a clamp as a wall across the beam with
    four hatch strokes behind it, a pin as a triangle under the end."""
    size = 0.06 * view.half_width
    out = []
    for k, kind, t in zip(scene.supports, scene.support_kinds, scene.support_tangents, strict=True):
        p = scene.points[k]
        n = np.array([-t[1], t[0]])
        if kind == 2:  # clamped
            a, b = p + size * n, p - size * n
            out.append((a, b))
            for s in np.linspace(-1.0, 1.0, 5)[:-1]:
                start = p + s * size * n
                out.append((start, start - 0.5 * size * (t + n)))
        else:  # pinned
            left = p + size * (-1.2 * t + 0.7 * n)
            right = p + size * (-1.2 * t - 0.7 * n)
            out += [(p, left), (left, right), (right, p)]
    return np.array(out, dtype=float).reshape(-1, 2, 2)


def _label(scene: Scene, view: _View, title: str = "") -> str:
    text = f"{title}    t = {scene.time:.6g} s" if title else f"t = {scene.time:.6g} s"
    if scene.contacts.size and view.force_scale > 0.0:
        text += f"    force arrows: 1 N = {1e3 * view.force_scale:.3g} mm"
    return text


# --- matplotlib -------------------------------------------------------------------------------


def _draw_matplotlib(scene: Scene, view: _View, window_size, title: str = "") -> np.ndarray:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure

    dpi = 100
    fig = Figure(figsize=(window_size[0] / dpi, window_size[1] / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    ax.set_xlim(view.centre[0] - view.half_width, view.centre[0] + view.half_width)
    ax.set_ylim(view.centre[1] - view.half_height, view.centre[1] + view.half_height)
    p = scene.points
    ax.add_collection(
        LineCollection(p[scene.elastic_lines], colors=_ELASTIC, linewidths=3, capstyle="round")
    )
    ax.add_collection(
        LineCollection(p[scene.body_lines], colors=_BODY, linewidths=3, capstyle="round")
    )
    ax.plot(*p[scene.joints].T, "o", ms=7, mfc="white", mec=_BODY, ls="none")
    segments, labels = _marks(view)
    ax.add_collection(
        LineCollection(np.vstack([segments, _support_marks(scene, view)]), colors="black", lw=1.5)
    )
    for at_, text in labels:
        ax.text(*at_, text, ha="center", va="center", fontsize=9)
    at = p[scene.contacts]
    for force, colour in ((scene.normal_force, _NORMAL), (scene.friction_force, _FRICTION)):
        if len(at) and view.force_scale > 0.0:
            v = view.force_scale * force
            ax.quiver(
                *at.T, *v.T, angles="xy", scale_units="xy", scale=1.0, color=colour, width=0.004
            )
    ax.plot(*at.T, "o", ms=5, color=_NORMAL, ls="none")
    ax.text(0.01, 0.98, _label(scene, view, title), transform=ax.transAxes, va="top", fontsize=10)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


# --- pyvista ----------------------------------------------------------------------------------


def _quiet():
    """Silence VTK's warning about a missing X server when there is no display (EGL is used)."""
    import pyvista as pv

    headless = sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
    verbosity = getattr(pv, "vtk_verbosity", None)
    return verbosity("off") if headless and verbosity else contextlib.nullcontext()


def _polylines(points3: np.ndarray, lines: np.ndarray):
    import pyvista as pv

    cells = np.column_stack([np.full(len(lines), 2), lines]).ravel()
    return pv.PolyData(points3, lines=cells)


def _segments3(segments: np.ndarray):
    """Segments (k, 2, 2) in the plane z = 0 as pyvista lines."""
    points = np.column_stack([segments.reshape(-1, 2), np.zeros(2 * len(segments))])
    return _polylines(points, np.arange(2 * len(segments)).reshape(-1, 2))


class _PyvistaScene:
    """The actors of the scenes on one plotter: made at the first frame, then updated in place.

    Each part (the elastic lines, the bodies, the joints, the contact points, one arrow per
    force and contact, the text) keeps its mesh and actor from frame to frame; a frame copies
    its geometry into the meshes (``PolyData.copy_from``) and its label into the text, so a
    frame costs one render and no new actors. A part missing in a frame (an open contact's
    arrow) is hidden. Nothing is rendered here: the caller's screenshot or movie frame does it.
    """

    def __init__(self, plotter, view: _View, title: str = ""):
        self.plotter = plotter
        self.view = view
        self.title = title
        self.meshes: dict[str, object] = {}  # part -> pv.PolyData, drawn by actors[part]
        self.actors: dict[str, object] = {}
        self.text = None  # the corner annotation with the title and the time

    def _put(self, part: str, mesh, **style) -> None:
        """Show ``mesh`` as ``part`` (None: hide the part)."""
        actor = self.actors.get(part)
        if mesh is None:
            if actor is not None:
                actor.visibility = False
            return
        if actor is None:
            self.meshes[part] = mesh
            self.actors[part] = self.plotter.add_mesh(
                mesh, render=False, reset_camera=False, **style
            )
        else:
            self.meshes[part].copy_from(mesh)
            actor.visibility = True

    def show(self, scene: Scene) -> None:
        """Put ``scene`` on the plotter (see the class)."""
        import pyvista as pv

        view = self.view
        points3 = np.column_stack([scene.points, np.zeros(len(scene.points))])
        size = 2.0 * view.half_width
        spheres = {"style": "points", "render_points_as_spheres": True}
        self._put(
            "elastic",
            _polylines(points3, scene.elastic_lines) if len(scene.elastic_lines) else None,
            color=_ELASTIC,
            line_width=4,
        )
        self._put(
            "bodies",
            _polylines(points3, scene.body_lines) if len(scene.body_lines) else None,
            color=_BODY,
            line_width=5,
        )
        self._put(
            "joints",
            pv.PolyData(points3[scene.joints]) if len(scene.joints) else None,
            color="#8c8c8c",
            point_size=14,
            **spheres,
        )
        at = points3[scene.contacts]
        lifted = at + (0.0, 0.0, 0.05 * size)  # arrows in front of the lines (the camera is at +z)
        for name, force, colour in (
            ("normal", scene.normal_force, _NORMAL),
            ("friction", scene.friction_force, _FRICTION),
        ):
            drawn = 0
            for start, f in zip(lifted, force, strict=True):
                length = view.force_scale * float(np.hypot(*f))
                if length > 1e-6 * size:
                    length = max(length, _MIN_ARROW * size)  # a small friction force stays visible
                    arrow = pv.Arrow(
                        start=start,
                        direction=(f[0], f[1], 0.0),
                        scale=length,
                        tip_length=min(0.3, 0.04 * size / length),
                        tip_radius=min(0.15, 0.015 * size / length),
                        shaft_radius=min(0.05, 0.004 * size / length),
                    )
                    self._put(f"{name} force {drawn}", arrow, color=colour)
                    drawn += 1
            k = drawn
            while f"{name} force {k}" in self.actors:  # arrows of earlier frames: hidden
                self._put(f"{name} force {k}", None)
                k += 1
        self._put(
            "contacts",
            pv.PolyData(at) if len(at) else None,
            color=_NORMAL,
            point_size=10,
            **spheres,
        )
        marks = _support_marks(scene, view)
        self._put(
            "supports", _segments3(marks) if len(marks) else None, color="black", line_width=2
        )
        if "marks" not in self.actors:  # the scale bar and the axes: the same in every frame
            segments, labels = _marks(view)
            self._put("marks", _segments3(segments), color="black", line_width=2)
            at_ = np.array([np.append(a, 0.0) for a, _ in labels])
            self.plotter.add_point_labels(
                at_,
                [text for _, text in labels],
                font_size=12,
                text_color="black",
                shape=None,
                show_points=False,
                always_visible=True,
                render=False,
                reset_camera=False,
            )
        label = _label(scene, view, self.title)
        if self.text is None:
            self.text = self.plotter.add_text(
                label, position="upper_left", font_size=10, color="black", render=False
            )
        else:
            self.text.SetText(_UPPER_LEFT, label)
        camera = self.plotter.camera
        camera.parallel_projection = True
        camera.focal_point = (*view.centre, 0.0)
        camera.position = (*view.centre, size)
        camera.up = (0.0, 1.0, 0.0)
        camera.parallel_scale = view.half_height
        camera.clipping_range = (1e-3 * size, 10.0 * size)


@contextlib.contextmanager
def _plotter(window_size):
    import pyvista as pv

    with _quiet():
        plotter = pv.Plotter(off_screen=True, window_size=list(window_size))
        try:
            plotter.set_background(_BACKGROUND)
            yield plotter
        finally:
            plotter.close()


def _render(scenes: list[Scene], view: _View, window_size, backend: str, title: str = ""):
    if backend == "matplotlib":
        return [_draw_matplotlib(s, view, window_size, title) for s in scenes]
    images = []
    with _plotter(window_size) as plotter:
        drawn = _PyvistaScene(plotter, view, title)
        for scene in scenes:
            drawn.show(scene)
            images.append(np.asarray(plotter.screenshot(return_img=True))[..., :3].copy())
    return images


def _backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "auto":
        if offscreen_available():
            return "pyvista"
        warnings.warn(
            "VTK cannot render off-screen here (no EGL/OSMesa/X); drawing with matplotlib. "
            "Install libegl1 libgl1-mesa-dri (or libosmesa6) for VTK pictures.",
            RuntimeWarning,
            stacklevel=3,
        )
        return "matplotlib"
    return backend


def _scenes(pvd_path, frames) -> list[Scene]:
    return [load_scene(path, t) for t, path in _select(read_series(pvd_path), frames)]


def render_frame(
    pvd_path,
    path,
    frame: int = -1,
    *,
    window_size: tuple[int, int] = (1200, 600),
    force_scale: float | None = None,
    backend: str = "auto",
) -> Path:
    """Write a PNG snapshot of one frame of a ``.pvd`` series.

    Parameters
    ----------
    pvd_path : str or os.PathLike
        The series' ``.pvd`` file.
    path : str or os.PathLike
        The PNG to write.
    frame : int, optional
        Index into the series; -1 (the default): the last.
    window_size : tuple of int, shape (2,), optional
        (width, height) in pixels; (1200, 600) by default.
    force_scale : float or None, optional
        Arrow length per force, m/N; None (the default): the largest arrow is 15 % of the
        model's size.
    backend : {"auto", "pyvista", "matplotlib"}, optional
        "auto" by default.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium, the last frame drawn with matplotlib (PNG):

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> import tempfile, pathlib
    >>> from fe_contact.io.vtk import write_pvd
    >>> from fe_contact.io.render import render_frame
    >>> with tempfile.TemporaryDirectory() as out:
    ...     png = render_frame(write_pvd(result, system, out), pathlib.Path(out) / "last.png",
    ...                        window_size=(300, 150), backend="matplotlib")
    ...     print(png.name, png.stat().st_size > 0)
    last.png True
    """
    from PIL import Image

    backend = _backend(backend)
    scenes = _scenes(pvd_path, frame)
    view = _fit_view(scenes, window_size[0] / window_size[1], force_scale)
    (image,) = _render(scenes, view, window_size, backend)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(image).save(path)
    return path


def render_animation(
    pvd_path,
    path,
    *,
    frames=None,
    fps: float = 20.0,
    window_size: tuple[int, int] = (800, 400),
    force_scale: float | None = None,
    backend: str = "auto",
    title: str = "",
) -> Path:
    """Write a GIF of the frames of a ``.pvd`` series.

    One camera and one force scale (m/N) are fitted to all frames; every frame carries
    ``title`` (e.g. "mu = 0.2") and its time. With pyvista one off-screen plotter draws every
    frame, its meshes and text updated in place (``_PyvistaScene``), and the frames go
    straight to pyvista's movie writer (``Plotter.open_gif``, imageio), one render per frame;
    with matplotlib they are assembled by Pillow. Progress is logged (logger ``fe_contact``)
    every ~10 % of the frames.

    Parameters
    ----------
    pvd_path : str or os.PathLike
        The series' ``.pvd`` file.
    path : str or os.PathLike
        The GIF to write (suffix ``.gif``).
    frames : sequence of int or None, optional
        Frame indices; None (the default): all.
    fps : float, optional
        Frames per second, > 0; 20 by default.
    window_size : tuple of int, shape (2,), optional
        (width, height) in pixels; (800, 400) by default.
    force_scale : float or None, optional
        Arrow length per force, m/N; None (the default): the largest arrow is 15 % of the
        model's size.
    backend : {"auto", "pyvista", "matplotlib"}, optional
        "auto" by default.
    title : str, optional
        Text on every frame; "" by default.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ValueError
        When ``path`` is not a ``.gif`` or ``fps`` is not positive.
    TypeError
        When ``title`` is not a str.

    Examples
    --------
    A 0.05 kg mass resting on a cantilever, three Moreau-Jean steps from its static
    equilibrium, as a GIF (matplotlib, small):

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> import tempfile, pathlib
    >>> from PIL import Image
    >>> from fe_contact.io.vtk import write_pvd
    >>> from fe_contact.io.render import render_animation
    >>> with tempfile.TemporaryDirectory() as out:
    ...     gif = render_animation(write_pvd(result, system, out), pathlib.Path(out) / "run.gif",
    ...                            window_size=(200, 100), backend="matplotlib")
    ...     print(Image.open(gif).n_frames)
    4
    """
    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise ValueError(f"the animation is written as GIF; give a .gif path, got {path.name!r}")
    if not fps > 0:
        raise ValueError(f"fps must be > 0, got {fps!r}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {title!r}")
    backend = _backend(backend)
    scenes = _scenes(pvd_path, frames)
    view = _fit_view(scenes, window_size[0] / window_size[1], force_scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    every = max(1, len(scenes) // 10)

    def progress(k):
        if (k + 1) % every == 0 or k + 1 == len(scenes):
            _log.info("%s: frame %d of %d", path.name, k + 1, len(scenes))

    if backend == "pyvista":
        with _plotter(window_size) as plotter:
            plotter.open_gif(str(path), fps=fps, palettesize=256, subrectangles=True)
            drawn = _PyvistaScene(plotter, view, title)
            for k, scene in enumerate(scenes):
                drawn.show(scene)
                plotter.write_frame()
                progress(k)
        return path
    from PIL import Image

    images = []
    for k, scene in enumerate(scenes):
        image = _draw_matplotlib(scene, view, window_size, title)
        images.append(Image.fromarray(image).convert("P", palette=Image.Palette.ADAPTIVE))
        progress(k)
    images[0].save(
        path,
        save_all=True,
        append_images=images[1:],
        duration=max(int(round(1000.0 / fps)), 20),
        loop=0,
    )
    return path
