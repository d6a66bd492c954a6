"""The blocks of the bodies: the tree's bodies and joints (``tree_block``), a disk's outline
(``disk_block``) and a curved profile (``profile_block``), all in the group ``"bodies"``, with
the centres of the contact profiles at a state (``profile_centres``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import validation as check
from ..multibody.tree import TreeModel, body_poses, point_position
from ..sides import Profile
from ..structure_points import MaterialPoint
from ..system import System
from .blocks import ID, Block, polyline_segments


def tree_block(
    tree: TreeModel,
    q,
    extra_points: Sequence[tuple[int, tuple[float, float]]] = (),
    name: str = "tree",
) -> Block:
    """The rigid bodies at the joint coordinates q, Lipinski (002), eq. (1).

    Points: the joints first (point i = origin of body i's frame, at joint i), then the named points
    of ``tree.points``, then ``extra_points`` (body, (x, y) in m in the body's frame, e.g. contact
    points). Body b is drawn as line segments from its joint to each of its points and to the joint
    of each child; segments that keep zero length (a point at the body's origin, a revolute child
    joint placed there) are left out. Each joint is a vertex cell. A body without mass and
    inertia is a kinematic carrier (the x and y sliders of ``floating_body``, 002 sec. 2): its
    segments and its joint's vertex are left out (its points stay, so point i is still joint i).
    Point data: body (index), joint (joint index at joints, -1 elsewhere).
    Cell data: body (the body a segment belongs to; for a vertex, the joint's body), joint
    (-1 on segments). Identifiers are ``ID`` integers; group ``"bodies"``.

    Parameters
    ----------
    tree : TreeModel
        The tree of n bodies.
    q : array_like, shape (n,)
        Joint coordinates: rad for a revolute, m for a prismatic joint.
    extra_points : sequence of (int, (float, float)), optional
        More points to draw, (body, (x, y) in m in the body's frame), e.g. contact points;
        none by default.
    name : str, optional
        The block's name, "tree" by default.

    Returns
    -------
    Block
        The bodies as line segments and the joints as vertices, in the group "bodies".

    Raises
    ------
    ValueError
        When a named or extra point is on a body that does not exist, or ``q`` is not of
        shape (n,).

    Examples
    --------
    A two-link arm: joints first (as vertices), then the tip; two segments:

    >>> from fe_contact import Body, Joint, TreeModel
    >>> from fe_contact.io.vtk import tree_block
    >>> arm = TreeModel(bodies=(Body(1.0, 0.01), Body(1.0, 0.01)),
    ...                 joints=(Joint("revolute"), Joint("revolute", parent=0, location=(0.2, 0.0))),
    ...                 points={"tip": (1, (0.2, 0.0))})
    >>> block = tree_block(arm, [np.pi / 2, -np.pi / 2])
    >>> block.points.round(4).tolist()
    [[0.0, 0.0], [0.0, 0.2], [0.2, 0.2]]
    >>> block.point_data["joint"].tolist()
    [0, 1, -1]
    """
    poses = body_poses(tree, q)
    n = tree.n_bodies
    carrier = [b.mass == 0.0 and b.inertia == 0.0 for b in tree.bodies]
    attached = [tree.points[key] for key in tree.points] + [(b, p) for b, p in extra_points]
    points = [poses.origin]
    point_body = list(range(n))
    lines, line_body = [], []
    for body, local in attached:
        if not 0 <= body < n:
            raise ValueError(f"tree_block: body {body!r} does not exist (0..{n - 1})")
        local = np.asarray(local, dtype=float)
        points.append(point_position(tree, q, body, local)[None, :])
        point_body.append(body)
        if np.any(local != 0.0) and not carrier[body]:
            lines.append((body, len(point_body) - 1))
            line_body.append(body)
    for child, joint in enumerate(tree.joints):
        at_origin = joint.kind == "revolute" and tuple(joint.location) == (0.0, 0.0)
        if joint.parent is not None and not at_origin and not carrier[joint.parent]:
            lines.append((joint.parent, child))
            line_body.append(joint.parent)
    m = len(point_body)
    point_joint = np.full(m, -1, dtype=ID)
    point_joint[:n] = np.arange(n)
    drawn = np.array([b for b in range(n) if not carrier[b]], dtype=int)
    cells, cell_body, cell_joint = [], [], []
    if drawn.size:
        cells.append(("vertex", drawn[:, None]))
        cell_body.append(drawn.astype(ID))
        cell_joint.append(drawn.astype(ID))
    if lines:
        cells.append(("line", np.asarray(lines, dtype=int).reshape(-1, 2)))
        cell_body.append(np.asarray(line_body, dtype=ID))
        cell_joint.append(np.full(len(lines), -1, dtype=ID))
    return Block(
        name=name,
        points=np.concatenate(points),
        cells=cells,
        point_data={"body": np.asarray(point_body, dtype=ID), "joint": point_joint},
        cell_data={"body": cell_body, "joint": cell_joint},
        group="bodies",
    )


def disk_block(
    center,
    angle: float,
    radius: float,
    n: int = 48,
    name: str = "disk",
    body: int | None = None,
) -> Block:
    """Outline of a disk: a closed polygon of n rim points and one spoke from the centre.

    Parameters
    ----------
    center : array_like, shape (2,)
        The centre in m.
    angle : float
        Direction of the spoke in rad (the disk's rotation).
    radius : float
        Radius in m, > 0.
    n : int, optional
        Number of rim points, >= 3; 48 by default.
    name : str, optional
        The block's name, "disk" by default.
    body : int or None, optional
        The tree body the disk belongs to (written as point and cell data ``body``, so that
        viewers draw it as a rigid part), or None (the default: a free-standing outline, no
        ``body`` array).

    Returns
    -------
    Block
        Points: n rim points (the first at the end of the spoke), then the centre; group
        ``"bodies"``.

    Raises
    ------
    TypeError
        When ``n`` or ``radius`` is not a number.
    ValueError
        When ``n`` is not an integer >= 3 or ``radius`` is not positive and finite.

    Examples
    --------
    A disk of radius 0.1 m: 4 rim points and its centre, the spoke along the angle:

    >>> from fe_contact.io.vtk import disk_block
    >>> block = disk_block((1.0, 0.0), np.pi / 2, 0.1, n=4)
    >>> (block.points.round(4) + 0.0).tolist()  # + 0.0: no "-0.0"
    [[1.0, 0.1], [0.9, 0.0], [1.0, -0.1], [1.1, 0.0], [1.0, 0.0]]
    """
    check.integer("n", n, low=3)
    check.real("radius", radius, low=0.0, low_open=True, unit="m")
    center = np.asarray(center, dtype=float).reshape(2)
    phi = float(angle) + 2.0 * np.pi * np.arange(n) / n
    rim = center[None, :] + radius * np.column_stack([np.cos(phi), np.sin(phi)])
    outline = np.column_stack([np.arange(n), (np.arange(n) + 1) % n])
    lines = np.vstack([outline, [[n, 0]]])
    point_data, cell_data = {}, {}
    if body is not None:
        point_data["body"] = np.full(n + 1, body, dtype=ID)
        cell_data["body"] = [np.full(len(lines), body, dtype=ID)]
    return Block(
        name=name,
        points=np.vstack([rim, center]),
        cells=[("line", lines)],
        point_data=point_data,
        cell_data=cell_data,
        group="bodies",
    )


def profile_centres(system: System, q) -> np.ndarray:
    """Centres of the contact profiles of a system at the coordinates q, one row per contact.

    The centre of a contact's profile is the body point it is placed at (a point, the centre of
    a circle, the origin of a curved profile's frame); a link's point on a structure has none
    (NaN).

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    q : array_like, shape (n,)
        The system's coordinates (``system.layout`` names their parts).

    Returns
    -------
    numpy.ndarray, shape (n_contacts, 2)
        The centres in m, in the order of ``system.model.contacts``; shape (0, 2) without a
        tree.

    Examples
    --------
    A mass on a vertical slider at x = 0.3 m, lifted by q = 0.01 m above a cantilever:

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble)
    >>> from fe_contact.io.body_blocks import profile_centres
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> profile_centres(system, system.initial_state([0.01])[0]).round(4).tolist()
    [[0.3, 0.01]]
    """
    tree = system.tree
    if tree is None:
        return np.zeros((0, 2))
    q_t = np.asarray(q)[system.layout.tree]
    return np.array(
        [
            _profile_origin(system, c.profile, q)
            if isinstance(c.profile, Profile)
            else np.full(2, np.nan)  # a link's MaterialPoint: on a structure, not a body
            if isinstance(c.profile, MaterialPoint)
            else point_position(tree, q_t, c.profile.body, p)
            for c, p in zip(system.model.contacts, system.profile_points, strict=True)
        ]
    ).reshape(-1, 2)


def _profile_origin(system: System, profile, q) -> np.ndarray:
    from ..coupling.frames import body_frame

    q = np.asarray(q, dtype=float)
    return body_frame(system, profile.body, q, np.zeros_like(q)).origin


def profile_block(system: System, profile, q, name: str, samples: int = 200) -> Block:
    """A curved profile (``model.Profile``) at the coordinates q as a polyline.

    Parameters
    ----------
    system : System
        The assembled system (``assemble``).
    profile : Profile
        The curved profile, on a tree body, a carried body or fixed in the plane.
    q : array_like, shape (n,)
        The system's coordinates (``system.layout`` names their parts).
    name : str
        The block's name ("<contact>_profile", "<contact>_target").
    samples : int, optional
        Number of points, at equal steps of the curve's parameter; 200 by default.

    Returns
    -------
    Block
        ``samples`` points in the plane (m); point data ``eta`` (the curve's parameter) and
        ``body`` (its tree body, -1 for a carried body or the plane); group ``"bodies"``.

    Examples
    --------
    A parabolic profile y = x^2 fixed in the plane (body None), 5 samples:

    >>> from fe_contact import Model, Point, ContactPair, Body, Joint, TreeModel, assemble
    >>> from fe_contact.curves import Curve
    >>> from fe_contact.sides import Profile
    >>> from fe_contact.io.vtk import profile_block
    >>> cup = Profile(None, Curve.bezier([(-1.0, 1.0), (0.0, -1.0), (1.0, 1.0)]))
    >>> ball = TreeModel(bodies=(Body(1.0, 0.0),), joints=(Joint("prismatic", angle=np.pi / 2),))
    >>> system = assemble(Model(tree=ball, contacts=(ContactPair("c", Point(0), cup),)))
    >>> block = profile_block(system, cup, system.initial_state()[0], "cup", samples=5)
    >>> block.points.round(4).tolist()
    [[-1.0, 1.0], [-0.5, 0.25], [0.0, 0.0], [0.5, 0.25], [1.0, 1.0]]
    """
    from ..coupling.frames import body_frame

    q = np.asarray(q, dtype=float)
    frame = body_frame(system, profile.body, q, np.zeros_like(q))
    eta = np.linspace(0.0, 1.0, samples)
    points = profile.curve.position(eta) @ frame.rotation.T + frame.origin
    body = profile.body if isinstance(profile.body, int) else -1
    return Block(
        name=name,
        points=points,
        cells=[("line", polyline_segments(samples))],
        point_data={"eta": eta, "body": np.full(samples, body, dtype=ID)},
        group="bodies",
    )
