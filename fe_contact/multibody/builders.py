"""Ready-made trees for common mechanisms."""

from __future__ import annotations

from collections.abc import Mapping

from .. import validation as check
from ..constants import STANDARD_GRAVITY
from .joints import Joint
from .tree import Body, TreeModel


def floating_body(
    mass: float,
    inertia: float,
    gravity=STANDARD_GRAVITY,
    points=None,
    centre_of_mass=(0.0, 0.0),
) -> TreeModel:
    """A free rigid body in the plane as a tree: prismatic x -> prismatic y -> revolute.

    The coordinates are q = (x, y, phi): the position of the body frame's origin (m) and its
    rotation (rad, counter-clockwise); the two carrier bodies are massless, so with the centre
    of mass at the origin the mass matrix is the constant diag(m, m, J) (Eugster-Glocker (004),
    eq. 14). The body is tree body 2.

    Parameters
    ----------
    mass : float
        Mass m, kg.
    inertia : float
        Rotary inertia J about the centre of mass, kg m^2.
    gravity : tuple of float, shape (2,), optional
        Gravity (g_x, g_y), m/s^2; (0, -9.81) by default.
    points : mapping of str to tuple of float, optional
        Named points on the body, (x, y) in m in its frame: {"rim": (0.1, 0.0)}; None (the
        default): none.
    centre_of_mass : tuple of float, shape (2,), optional
        Centre of mass in the body's frame, m; (0, 0) by default.

    Returns
    -------
    TreeModel
        The three-body tree.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``points`` is not a mapping, or a mass, inertia or point is out of range.

    Examples
    --------
    A free disk of 1 kg: q = (x, y, phi), constant mass matrix diag(m, m, J):

    >>> from fe_contact import floating_body
    >>> from fe_contact.multibody.tree_dynamics import mass_matrix
    >>> disk = floating_body(mass=1.0, inertia=0.005, points={"rim": (0.1, 0.0)})
    >>> np.round(np.diag(mass_matrix(disk, np.zeros(3))), 4)
    array([1.   , 1.   , 0.005])
    """
    if points is not None:
        check.instance("floating_body.points", points, Mapping, "None or a mapping name -> (x, y)")
    bodies = (Body(0.0, 0.0), Body(0.0, 0.0), Body(mass, inertia, centre_of_mass))
    joints = (
        Joint("prismatic", None, angle=0.0),
        Joint("prismatic", 0, angle=1.5707963267948966),
        Joint("revolute", 1, angle=-1.5707963267948966),
    )
    named = {name: (2, at) for name, at in (points or {}).items()}
    return TreeModel(bodies, joints, points=named, gravity=gravity)


__all__ = ["floating_body"]
