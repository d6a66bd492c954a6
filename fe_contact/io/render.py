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

GIF animations are written by Pillow with either back end (the pyvista one draws every frame
with one plotter whose meshes are updated in place): one 256-colour palette for the whole
animation, from Pillow's fast octree quantizer on every frame at half resolution, each frame
mapped to it without dithering (:func:`write_gif`). Pillow then stores only what changes from
frame to frame. On the manipulator demo's 61 frames of 800 x 400 this takes 0.44 s where a
palette per frame (pyvista's movie writer, imageio) took 3.3 s, side by side on our loaded
2-core machine; the colours are the drawn ones to within 1 of 255 on average (32 at most, on
the anti-aliased edges), the file is 188 kB against 279 kB.

A frame is read back as a ``Scene`` by ``io.scene`` (``read_series``, ``load_scene``, importable
from here too); the matplotlib back end is ``io.render_matplotlib``, and the view, the colours,
the scale bar, the axes and the support symbols that both back ends draw are in
``io.scene_marks``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

from .render_matplotlib import matplotlib_image
from .scene import Scene, load_scene, read_series
from .scene_marks import (
    BACKGROUND,
    BODY_COLOUR,
    ELASTIC_COLOUR,
    FRICTION_COLOUR,
    NORMAL_COLOUR,
    SceneView,
    frame_label,
    scale_bar_and_axes,
    support_symbols,
)

__all__ = [
    "BACKENDS",
    "Scene",
    "load_scene",
    "offscreen_available",
    "read_series",
    "render_animation",
    "render_frame",
    "start_offscreen_check",
    "write_gif",
]

_log = logging.getLogger("fe_contact")

BACKENDS = ("auto", "pyvista", "matplotlib")
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


_probe: subprocess.Popen | None = None  # the check started by ``start_offscreen_check``


def start_offscreen_check() -> None:
    """Start :func:`offscreen_available`'s subprocess now, without waiting for it.

    A command that will draw after a simulation starts it first, so that its second or so
    (the child's imports of VTK and one render) runs beside the simulation. Does nothing when
    the answer is known or the check is running.

    Examples
    --------
    >>> from fe_contact.io.render import offscreen_available, start_offscreen_check
    >>> start_offscreen_check()  # returns at once
    >>> isinstance(offscreen_available(), bool)  # waits for the check started above
    True
    """
    global _probe
    if _probe is not None or offscreen_available.cache_info().currsize:
        return
    try:
        _probe = subprocess.Popen(
            [sys.executable, "-c", _PROBE], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    except OSError:
        _probe = None


@functools.lru_cache(maxsize=1)
def offscreen_available(timeout: float = 120.0) -> bool:
    """True when VTK renders an off-screen picture here; checked once in a subprocess (s: timeout),
    the one :func:`start_offscreen_check` started if it did.

    A missing OpenGL library can crash VTK instead of raising, hence the separate process.
    """
    global _probe
    probe, _probe = _probe, None
    try:
        if probe is None:
            probe = subprocess.Popen(
                [sys.executable, "-c", _PROBE], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        code = probe.wait(timeout=timeout)
    except OSError:
        return False
    except subprocess.TimeoutExpired:
        probe.kill()
        probe.wait()
        return False
    return code == 0


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


def _fit_view(scenes: list[Scene], aspect: float, force_scale: float | None) -> SceneView:
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
    return SceneView(0.5 * (lo + hi), float(half_width), float(half_width / aspect), force_scale)


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

    def __init__(self, plotter, view: SceneView, title: str = ""):
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
            color=ELASTIC_COLOUR,
            line_width=4,
        )
        self._put(
            "bodies",
            _polylines(points3, scene.body_lines) if len(scene.body_lines) else None,
            color=BODY_COLOUR,
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
            ("normal", scene.normal_force, NORMAL_COLOUR),
            ("friction", scene.friction_force, FRICTION_COLOUR),
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
            color=NORMAL_COLOUR,
            point_size=10,
            **spheres,
        )
        marks = support_symbols(scene, view)
        self._put(
            "supports", _segments3(marks) if len(marks) else None, color="black", line_width=2
        )
        if "marks" not in self.actors:  # the scale bar and the axes: the same in every frame
            segments, labels = scale_bar_and_axes(view)
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
        label = frame_label(scene, view, self.title)
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
            plotter.set_background(BACKGROUND)
            yield plotter
        finally:
            plotter.close()


def _render(
    scenes: list[Scene], view: SceneView, window_size, backend: str, title: str = "", done=None
) -> list[np.ndarray]:
    """The RGB images of ``scenes`` (with pyvista one plotter for all, rendered for each);
    ``done(k)`` is called after scene k, when given."""
    images = []
    if backend == "pyvista":
        with _plotter(window_size) as plotter:
            drawn = _PyvistaScene(plotter, view, title)
            for k, scene in enumerate(scenes):
                drawn.show(scene)
                plotter.render()
                images.append(np.asarray(plotter.screenshot(return_img=True))[..., :3].copy())
                if done is not None:
                    done(k)
    else:
        for k, scene in enumerate(scenes):
            images.append(matplotlib_image(scene, view, window_size, title))
            if done is not None:
                done(k)
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
    frame, its meshes and text updated in place (``_PyvistaScene``), one render per frame;
    either back end's frames are written by :func:`write_gif`. Progress is logged (logger
    ``fe_contact``) every ~10 % of the frames.

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

    images = _render(scenes, view, window_size, backend, title, progress)
    return write_gif(images, path, fps)


# at most this many frames, spread over an animation, make its palette (all of a shorter one)
PALETTE_FRAMES = 64


def write_gif(images, path, fps: float = 20.0) -> Path:
    """Write RGB images (uint8, (height, width, 3), all one size) as a looping GIF of ``fps``
    frames per second (each shown at least 20 ms, the shortest delay browsers keep).

    One palette of 256 colours serves every frame: Pillow's fast octree quantizer on a column
    of every frame at half resolution (every second row and column; of ``PALETTE_FRAMES``
    frames spread over a longer animation, the first and the last among them), each frame
    mapped to it without dithering (the frames are flat colours: lines, dots, text). Up to 256
    colours in all, each over at least two pixels in a row and a column, are kept exactly;
    beyond, each pixel takes the palette's nearest colour. Pillow writes each frame as its
    difference to the one before, and a frame equal to the one before as a longer delay of
    that one.

    Parameters
    ----------
    images : sequence of numpy.ndarray
        The frames, first to last; at least one.
    path : str or os.PathLike
        The GIF to write.
    fps : float, optional
        Frames per second, > 0; 20 by default.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ValueError
        When there is no frame or ``fps`` is not positive.

    Examples
    --------
    Two frames, a red and a blue square, half a second each:

    >>> import tempfile, pathlib
    >>> from PIL import Image
    >>> from fe_contact.io.render import write_gif
    >>> red, blue = np.zeros((8, 8, 3), np.uint8), np.zeros((8, 8, 3), np.uint8)
    >>> red[..., 0], blue[..., 2] = 255, 255
    >>> with tempfile.TemporaryDirectory() as out:
    ...     gif = Image.open(write_gif([red, blue], pathlib.Path(out) / "two.gif", fps=2))
    ...     print(gif.n_frames, gif.info["duration"], gif.convert("RGB").getpixel((0, 0)))
    2 500 (255, 0, 0)
    """
    from PIL import Image

    if not len(images):
        raise ValueError("a GIF needs at least one frame, got none")
    if not fps > 0:
        raise ValueError(f"fps must be > 0, got {fps!r}")
    path = Path(path)
    picks = np.unique(np.linspace(0, len(images) - 1, min(len(images), PALETTE_FRAMES)).round())
    column = np.concatenate([images[int(k)][::2, ::2] for k in picks], axis=0)
    palette = Image.fromarray(column).quantize(
        colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    frames = [
        Image.fromarray(image).quantize(palette=palette, dither=Image.Dither.NONE)
        for image in images
    ]
    frames[0].save(
        path,
        save_all=True,
        append_images=frames[1:],
        duration=max(int(round(1000.0 / fps)), 20),
        loop=0,
    )
    return path
