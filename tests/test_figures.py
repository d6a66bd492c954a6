"""Figures drawn from results: the matplotlib objects are inspected, not the pixels.

The configuration figure gets a hand-built StepReport (no simulation), the time plots hand-built
columns with known contact states.
"""

import numpy as np
import pytest
from matplotlib.patches import FancyArrowPatch

from fe_contact import BeamSpec, ContactPair, Model, Point, Sliding, assemble
from fe_contact.io import plots
from fe_contact.multibody.joints import Joint
from fe_contact.multibody.tree import Body, TreeModel
from fe_contact.steppers.result import ContactReport, StepReport, no_work

X0 = 0.1  # m, the contact point on the beam
NORMAL = 2.0  # N on the profile
FRICTION = -0.01  # N along the tangent: 1/200 of the normal force


def _slider_on_beam():
    """A point on an x-y slider touching a 0.4 m cantilever at x = X0."""
    tree = TreeModel(
        bodies=(Body(1e-9, 1e-12), Body(0.02, 1e-9)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )
    beam = BeamSpec(
        length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
    )
    contact = ContactPair("contact", Point(1), "beam", Sliding(0.1))
    return assemble(Model(tree=tree, structures={"beam": beam}, contacts=(contact,)))


def _report(system, normal=NORMAL, friction=FRICTION):
    """The slider touching the undeformed beam at (X0, 0) with the given forces."""
    q, u = system.initial_state([X0, 0.0])
    one = np.ones(1)
    contact = ContactReport(
        name="contact",
        state="slip",
        point=np.array([[X0, 0.0]]),
        normal=np.array([[0.0, 1.0]]),
        tangent=np.array([[1.0, 0.0]]),
        parameter=np.array([X0]),
        gap=np.zeros(1),
        slip_velocity=0.1 * one,
        normal_force=normal * one,
        friction_force=friction * one,
        normal_impulse=1e-4 * normal * one,
        friction_impulse=1e-4 * friction * one,
        min_gap=0.0,
    )
    return StepReport(
        t=0.01,
        q=q,
        u=u,
        contacts=(contact,),
        drive_forces=np.zeros(0),
        multipliers=np.zeros(0),
        work=no_work(),
    )


@pytest.fixture(scope="module")
def system():
    return _slider_on_beam()


def _arrows(ax):
    return {
        name: [a for a in ax.patches if isinstance(a, FancyArrowPatch) and a.get_gid() == name]
        for name in ("normal_force", "friction_force")
    }


def _length(arrow):
    tail, tip = (np.asarray(p) for p in arrow._posA_posB)
    return float(np.linalg.norm(tip - tail)), tail, tip


# --- 1. configuration ------------------------------------------------------------------------


def test_configuration_force_arrows_above_beam_long_enough_and_labelled(system, tmp_path):
    fig = plots.configuration_figure(system, _report(system))
    ax = fig.axes[0]
    (beam_line,) = [line for line in ax.lines if line.get_label() == "beam"]
    (dot,) = [line for line in ax.lines if line.get_label() == "contact point"]
    arrows = _arrows(ax)
    assert len(arrows["normal_force"]) == len(arrows["friction_force"]) == 1
    (normal,), (friction,) = arrows["normal_force"], arrows["friction_force"]
    span = max(np.ptp(ax.get_xlim()), np.ptp(ax.get_ylim()))
    drawing = 0.4  # m, the beam's length is the size of the drawing
    for arrow, force, direction in ((normal, NORMAL, [0, 1]), (friction, FRICTION, [1, 0])):
        assert arrow.get_zorder() > beam_line.get_zorder()
        assert arrow.get_zorder() > dot.get_zorder()
        length, tail, tip = _length(arrow)
        np.testing.assert_allclose(tail, [X0, 0.0])
        # along the force, and at least MIN_ARROW of the drawing (friction alone would be 0.3 mm)
        np.testing.assert_allclose((tip - tail) / length, np.sign(force) * np.array(direction))
        assert length >= plots.MIN_ARROW * drawing - 1e-12
        assert length >= 0.05 * span  # visibly long in the axes as drawn
        assert f"{abs(force):.4g} N" in arrow.get_label()
    assert normal.get_edgecolor() != friction.get_edgecolor()
    assert _length(friction)[0] == pytest.approx(plots.MIN_ARROW * drawing)
    assert _length(normal)[0] == pytest.approx(0.15 * drawing)  # the largest: to scale
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "normal force on profile, 2 N" in legend
    assert "friction force on profile, 0.01 N" in legend


def test_configuration_zoom_inset_around_contact_point(system, tmp_path):
    fig = plots.configuration_figure(system, _report(system))
    ax = fig.axes[0]
    insets = ax.child_axes
    assert len(insets) == 1
    (inset,) = insets
    fig.canvas.draw()  # the inset's limits after its aspect is applied
    (x0, x1), (y0, y1) = inset.get_xlim(), inset.get_ylim()
    assert x0 < X0 < x1 and y0 < 0.0 < y1
    assert x1 - x0 < 0.5 * np.ptp(ax.get_xlim())  # a zoom
    arrows = _arrows(inset)
    assert len(arrows["normal_force"]) == len(arrows["friction_force"]) == 1
    for (arrow,) in arrows.values():  # both arrows inside the zoom
        _, tail, tip = _length(arrow)
        for p in (tail, tip):
            assert x0 <= p[0] <= x1 and y0 <= p[1] <= y1
    labels = [line.get_label() for line in inset.lines]
    assert "beam" in labels and inset.collections  # the beam and the tree drawn again
    # the zoom indicated on the main axes: a rectangle around the contact point
    # (matplotlib >= 3.10: an InsetIndicator holding it; before: the Rectangle patch itself)
    children = [c for c in ax.get_children() if type(c).__name__ == "InsetIndicator"]
    children = [c.rectangle for c in children] or [
        p for p in ax.patches if type(p).__name__ == "Rectangle"
    ]
    (rectangle,) = children
    rx, ry = rectangle.get_xy()
    assert rx < X0 < rx + rectangle.get_width() and ry < 0.0 < ry + rectangle.get_height()
    # written files as before
    paths = plots.plot_configuration(system, _report(system), tmp_path / "c")
    assert [p.suffix for p in paths] == [".png", ".svg"] and all(p.exists() for p in paths)


def test_configuration_without_forces_has_no_arrows_or_inset(system):
    q, _ = system.initial_state([X0, 0.0])
    fig = plots.configuration_figure(system, q)
    ax = fig.axes[0]
    assert not ax.child_axes and not any(_arrows(ax).values())
    fig = plots.configuration_figure(system, _report(system, friction=0.0))
    arrows = _arrows(fig.axes[0])
    assert len(arrows["normal_force"]) == 1 and not arrows["friction_force"]  # zero: not drawn
