"""What every drawn frame of a series carries besides its scene, shared by the back ends of
``io.render``: the view (``SceneView``: the camera box and the force scale), the colours of the
parts, the scale bar and the x, y axes (``scale_bar_and_axes``), the symbols of the beams'
supports (``support_symbols``) and the frame's label (``frame_label``). Lengths in m.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .scene import Scene

BACKGROUND = (1.0, 1.0, 1.0)
ELASTIC_COLOUR = "#1f77b4"  # beams, strings, disks: lines without a tree body
BODY_COLOUR = "#262626"  # the rigid bodies
NORMAL_COLOUR = "#d62728"  # the contact points and the normal forces
FRICTION_COLOUR = "#ff7f0e"  # the friction forces


@dataclass(frozen=True)
class SceneView:
    """Camera box shared by all frames of a picture and their force scale.

    Parameters
    ----------
    centre : numpy.ndarray, shape (2,)
        Centre of the box in m.
    half_width, half_height : float
        Half the box's width and height in m.
    force_scale : float
        Drawn arrow length per force, m/N.
    """

    centre: np.ndarray
    half_width: float
    half_height: float
    force_scale: float


def scale_length(view: SceneView) -> float:
    """A round length (1, 2 or 5 times a power of ten) near a fifth of the view's width.

    Parameters
    ----------
    view : SceneView
        The view.

    Returns
    -------
    float
        The length of the scale bar in m, at most 0.4 half widths.
    """
    target = 0.4 * view.half_width
    power = 10.0 ** np.floor(np.log10(target))
    return float(max(m * power for m in (1.0, 2.0, 5.0) if m * power <= target))


def scale_bar_and_axes(view: SceneView) -> tuple[np.ndarray, list[tuple[np.ndarray, str]]]:
    """The marks every frame shares, in the lower left corner: a scale bar of
    ``scale_length`` with end ticks and the x and y axes as two arrows of half its length.

    Parameters
    ----------
    view : SceneView
        The view.

    Returns
    -------
    segments : numpy.ndarray, shape (k, 2, 2)
        The strokes, each from (x, y) to (x, y) in m.
    labels : list of (numpy.ndarray, str)
        Position (2,) in m and text of the bar's length and of the axes' names.
    """
    w, h = view.half_width, view.half_height
    corner = view.centre + np.array([-0.92 * w, -0.85 * h])
    bar, tick = scale_length(view), 0.02 * h
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


def support_symbols(scene: Scene, view: SceneView) -> np.ndarray:
    """The symbols of the supported ends of the beams of a scene: a clamp as a wall across the
    beam with four hatch strokes behind it, a pin as a triangle under the end, sized 6 % of the
    view's half width.

    Parameters
    ----------
    scene : Scene
        The frame, with its supports, their kinds and tangents.
    view : SceneView
        The view.

    Returns
    -------
    numpy.ndarray, shape (k, 2, 2)
        The strokes, each from (x, y) to (x, y) in m.
    """
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


def frame_label(scene: Scene, view: SceneView, title: str = "") -> str:
    """The text in the corner of a frame: the title, the time and the force scale.

    Parameters
    ----------
    scene : Scene
        The frame.
    view : SceneView
        The view, whose force scale is stated when the frame has contact points.
    title : str, optional
        Text before the time; "" by default.

    Returns
    -------
    str
        For example "mu = 0.3    t = 0.25 s    force arrows: 1 N = 15 mm".
    """
    text = f"{title}    t = {scene.time:.6g} s" if title else f"t = {scene.time:.6g} s"
    if scene.contacts.size and view.force_scale > 0.0:
        text += f"    force arrows: 1 N = {1e3 * view.force_scale:.3g} mm"
    return text
