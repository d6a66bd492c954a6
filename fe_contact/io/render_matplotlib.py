"""The matplotlib back end of ``io.render``: a scene drawn with Agg into an RGB image (always
available, no OpenGL needed), with the marks of ``io.scene_marks``.
"""

from __future__ import annotations

import numpy as np

from .scene import Scene
from .scene_marks import (
    BODY_COLOUR,
    ELASTIC_COLOUR,
    FRICTION_COLOUR,
    NORMAL_COLOUR,
    SceneView,
    frame_label,
    scale_bar_and_axes,
    support_symbols,
)


def matplotlib_image(scene: Scene, view: SceneView, window_size, title: str = "") -> np.ndarray:
    """A scene drawn with matplotlib's Agg: the lines, joints, supports, scale bar and axes,
    contact points and force arrows (``view.force_scale``) and the frame's label.

    Parameters
    ----------
    scene : Scene
        The frame.
    view : SceneView
        The camera box and force scale shared by the frames of the picture.
    window_size : tuple of int, shape (2,)
        (width, height) in pixels.
    title : str, optional
        Text before the time; "" by default.

    Returns
    -------
    numpy.ndarray of uint8, shape (height, width, 3)
        The RGB image.
    """
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
        LineCollection(
            p[scene.elastic_lines], colors=ELASTIC_COLOUR, linewidths=3, capstyle="round"
        )
    )
    ax.add_collection(
        LineCollection(p[scene.body_lines], colors=BODY_COLOUR, linewidths=3, capstyle="round")
    )
    ax.plot(*p[scene.joints].T, "o", ms=7, mfc="white", mec=BODY_COLOUR, ls="none")
    segments, labels = scale_bar_and_axes(view)
    ax.add_collection(
        LineCollection(np.vstack([segments, support_symbols(scene, view)]), colors="black", lw=1.5)
    )
    for at_, text in labels:
        ax.text(*at_, text, ha="center", va="center", fontsize=9)
    at = p[scene.contacts]
    for force, colour in (
        (scene.normal_force, NORMAL_COLOUR),
        (scene.friction_force, FRICTION_COLOUR),
    ):
        if len(at) and view.force_scale > 0.0:
            v = view.force_scale * force
            ax.quiver(
                *at.T, *v.T, angles="xy", scale_units="xy", scale=1.0, color=colour, width=0.004
            )
    ax.plot(*at.T, "o", ms=5, color=NORMAL_COLOUR, ls="none")
    ax.text(
        0.01, 0.98, frame_label(scene, view, title), transform=ax.transAxes, va="top", fontsize=10
    )
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()
