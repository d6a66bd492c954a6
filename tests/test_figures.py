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


# --- 2. contact-state bands ------------------------------------------------------------------

T = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
STATES = ["open", "open", "slip", "stick", "stick", "slip", "open", "open"]
# row k > 0 holds over the step (t[k-1], t[k]]: stick rows 3-4 -> [0.2, 0.4]; open rows 0-1 ->
# [0, 0.1], rows 6-7 -> [0.5, 0.7]
EXPECTED = {"stick": [(0.2, 0.4)], "open": [(0.0, 0.1), (0.5, 0.7)]}


def _history(states=STATES, name="tip"):
    return {
        "t": T,
        f"{name}_state": np.array(states),
        f"{name}_normal_force": np.linspace(0.0, 1.0, T.size),
        f"{name}_gap": np.linspace(1e-3, 0.0, T.size),
    }


def _x_extent(patch):
    if hasattr(patch, "get_width"):  # a Rectangle (matplotlib >= 3.9)
        return (patch.get_x(), patch.get_x() + patch.get_width())
    x = np.asarray(patch.get_xy())[:, 0]
    return (float(x.min()), float(x.max()))


def _spans(ax, contact="tip"):
    """state -> sorted x-extents of the bands of ``contact`` on ``ax``."""
    out = {}
    for patch in ax.patches:
        gid = patch.get_gid() or ""
        if gid.startswith(f"{contact}_state "):
            out.setdefault(gid.split(" ", 1)[1], []).append(_x_extent(patch))
    return {state: sorted(spans) for state, spans in out.items()}


def _assert_spans(found, expected=EXPECTED):
    assert sorted(found) == sorted(expected)
    for state, spans in expected.items():
        np.testing.assert_allclose(found[state], spans, atol=1e-12)


def test_state_intervals_from_names_and_codes_and_csv(tmp_path):
    from fe_contact.io.vtk import STATE_CODES
    from fe_contact.steppers.result import HistoryWriter, read_history

    expected = {**EXPECTED, "slip": [(0.1, 0.2), (0.4, 0.5)]}
    _assert_spans(plots.state_intervals(T, STATES), expected)
    _assert_spans(plots.state_intervals(T, [STATE_CODES[s] for s in STATES]), expected)
    writer = HistoryWriter(tmp_path / "h.csv", [("t", "s"), ("tip_state", "")])
    for t, state in zip(T, STATES, strict=True):
        writer.write({"t": t, "tip_state": state})
    writer.close()
    read = read_history(tmp_path / "h.csv")
    _assert_spans(plots.state_intervals(read["t"], read["tip_state"]), expected)
    assert plots.state_intervals(T, ["slip"] * T.size) == {"slip": [(0.0, 0.7)]}
    assert plots.state_intervals(T, ["stick"] + ["slip"] * 7) == {"slip": [(0.0, 0.7)]}


def test_histories_shade_stick_and_open_on_every_axes_one_legend_entry_each(tmp_path):
    fig = plots.histories_figure(_history(), ["tip_normal_force", "tip_gap"])
    assert len(fig.axes) == 2
    for ax in fig.axes:
        _assert_spans(_spans(ax))
        (line,) = ax.lines
        np.testing.assert_array_equal(line.get_xdata(), T)  # curves unchanged
    (legend,) = fig.legends
    assert sorted(t.get_text() for t in legend.get_texts()) == ["open", "stick"]
    # a result-like object (.t, .columns), states as the numbers of io.vtk.STATE_CODES
    from fe_contact.io.vtk import STATE_CODES

    history = _history()
    history["tip_state"] = np.array([STATE_CODES[s] for s in STATES], dtype=float)
    fake = type("Result", (), {"t": T, "columns": history})()
    fig = plots.histories_figure(fake, "tip_normal_force")
    _assert_spans(_spans(fig.axes[0]))
    paths = plots.plot_histories(fake, "tip_normal_force", tmp_path / "h")
    assert all(p.exists() for p in paths)


def test_histories_without_state_columns_or_with_states_off_are_unshaded():
    history = _history()
    del history["tip_state"]
    fig = plots.histories_figure(history, "tip_normal_force")
    assert not fig.axes[0].patches and not fig.legends
    fig = plots.histories_figure(_history(), "tip_normal_force", states=False)
    assert not fig.axes[0].patches and not fig.legends


def test_histories_two_contacts_one_entry_per_contact_and_state():
    history = {**_history(), **_history(["slip"] * 4 + ["stick"] * 4, name="heel")}
    fig = plots.histories_figure(history, "tip_normal_force")
    _assert_spans(_spans(fig.axes[0], "tip"))
    _assert_spans(_spans(fig.axes[0], "heel"), {"stick": [(0.3, 0.7)]})
    (legend,) = fig.legends
    assert sorted(t.get_text() for t in legend.get_texts()) == [
        "heel stick",
        "tip open",
        "tip stick",
    ]


def _result(history):
    from fe_contact.steppers.result import SimulationResult

    k = T.size
    return SimulationResult(
        t=T,
        q=np.zeros((k, 1)),
        u=np.zeros((k, 1)),
        multipliers=np.zeros((k, 0)),
        constraint_names=(),
        columns=history,
    )


def _captured(monkeypatch, module):
    figures = []
    monkeypatch.setattr(module, "save_figure", lambda fig, path, *a, **k: figures.append(fig))
    return figures


def test_torques_shaded_by_contact_state(monkeypatch):
    from types import SimpleNamespace

    from fe_contact.demos import manipulator_figures as mf

    figures = _captured(monkeypatch, mf)
    with_states = {**_history(), mf.TORQUE: np.linspace(1.0, 1.2, T.size)}
    # one mu: the torque axes shaded, the states in its legend
    mf.plot_torques([SimpleNamespace(mu=0.2, result=_result(with_states))], "x")
    (ax,) = figures[-1].axes
    _assert_spans(_spans(ax))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["mu = 0.2", "stick", "open"]
    # two mu: a strip per mu under the torque axes, one legend entry per state
    other = {**with_states, "tip_state": np.array(["slip"] * 6 + ["open"] * 2)}
    cases = [
        SimpleNamespace(mu=0.1, result=_result(other)),
        SimpleNamespace(mu=0.2, result=_result(with_states)),
        SimpleNamespace(mu=0.3, result=None),
    ]
    mf.plot_torques(cases, "x")
    ax, strip1, strip2 = figures[-1].axes
    assert not ax.patches
    _assert_spans(_spans(strip1), {"open": [(0.5, 0.7)]})
    _assert_spans(_spans(strip2))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["mu = 0.1", "mu = 0.2", "open", "stick"]
    # a run that slips throughout gets no strip (the main command's six mus: one axes)
    slipping = {**with_states, "tip_state": np.array(["slip"] * 8)}
    cases = [SimpleNamespace(mu=mu, result=_result(slipping)) for mu in (0.1, 0.2)]
    mf.plot_torques(cases, "x")
    (ax,) = figures[-1].axes
    assert not ax.patches
    # without state columns: as before, one axes and no bands
    plain = {"t": T, mf.TORQUE: np.linspace(1.0, 1.2, T.size)}
    mf.plot_torques([SimpleNamespace(mu=0.2, result=_result(plain))], "x")
    (ax,) = figures[-1].axes
    assert not ax.patches
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["mu = 0.2"]


# --- 3. disk on string, example 2: closed contacts --------------------------------------------


def test_disk_on_string_closed_contacts_panel_is_an_integer_step_plot(monkeypatch):
    from fe_contact.demos import disk_on_string
    from fe_contact.io import plots as plots_module
    from fe_contact.papers import eugster_glocker as eg
    from fe_contact.steppers.result import SimulationResult

    scenario = eg.disk_on_string(2, 2, eg.FRICTION, 0.0, None)
    model, q0 = scenario.model, scenario.q0
    system = assemble(model)
    t = np.linspace(0.0, 0.07, 8)
    closed = np.array([0, 1, 1, 2, 3, 1, 0, 0], dtype=float)
    y = q0[1] - 0.01 * t
    q = np.repeat(q0[None, :], t.size, axis=0)
    q[:, 1] = y
    result = SimulationResult(
        t=t,
        q=q,
        u=np.zeros_like(q),
        multipliers=np.zeros((t.size, 0)),
        constraint_names=(),
        columns={"t": t, "disk_n_closed": closed},
    )
    figures = _captured(monkeypatch, plots_module)  # plot_run imports save_figure when called
    disk_on_string.plot_run(system, result, "x")
    (fig,) = figures
    (panel,) = [ax for ax in fig.axes if any(ln.get_gid() == "disk_n_closed" for ln in ax.lines)]
    (line,) = [ln for ln in panel.lines if ln.get_gid() == "disk_n_closed"]
    np.testing.assert_array_equal(line.get_xdata(), t)
    np.testing.assert_array_equal(line.get_ydata(), closed)
    assert line.get_drawstyle().startswith("steps")
    # its running mean over 2.5 % of the run, time-weighted (row k counts over (t[k-1], t[k]])
    (mean,) = [ln for ln in panel.lines if ln.get_gid() == "disk_n_closed mean"]
    window = disk_on_string.RUNNING_MEAN * 0.07
    assert window < 0.01  # shorter than a step: the mean is the count of the step holding it
    np.testing.assert_allclose(mean.get_ydata(), closed)
    dense = np.linspace(0.0, 1.0, 11)
    counts = np.array([0, 1, 1, 2, 2, 0, 0, 1, 1, 1, 1], dtype=float)
    np.testing.assert_allclose(
        disk_on_string.running_mean(dense, counts, 0.15)[[1, 3, 5, 10]], [1.0, 5 / 3, 2 / 3, 1.0]
    )
    assert disk_on_string.running_mean(dense, counts, 10.0)[-1] == pytest.approx(counts[1:].mean())
    # the legend above the panel, off the counts
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    legend = panel.get_legend()
    assert [t.get_text() for t in legend.get_texts()][0] == "per step"
    renderer = canvas.get_renderer()
    assert legend.get_window_extent(renderer).y0 >= panel.get_window_extent(renderer).y1 - 1.0
    assert "closed contacts" in panel.get_ylabel()
    fig.canvas.draw()
    ticks = [v for v in panel.get_yticks() if panel.get_ylim()[0] <= v <= panel.get_ylim()[1]]
    assert ticks and all(float(v).is_integer() for v in ticks)
    assert ticks[0] <= 0.0 and ticks[-1] >= 3.0  # every count on the scale
    # a panel of its own: not a twin of the disk height's axes, which shares its time axis
    (height,) = [ax for ax in fig.axes if "disk centre y" in ax.get_ylabel()]
    assert height is not panel and panel.get_shared_x_axes().joined(panel, height)
    assert panel.get_position().y1 <= height.get_position().y0 + 1e-9  # below it
    np.testing.assert_array_equal(height.lines[0].get_ydata(), y)


# --- 4. animation: one plotter, its meshes updated in place ----------------------------------


def _scene(time, shift, friction):
    """Two contacts on a three-point polyline moved up by ``shift`` m (no simulation)."""
    from fe_contact.io.render import Scene

    return Scene(
        time=time,
        points=np.array([[0.0, 0.0], [0.2, shift], [0.4, 0.0], [0.2, 0.1 + shift]]),
        elastic_lines=np.array([[0, 1], [1, 2]]),
        body_lines=np.array([[1, 3]]),
        joints=np.array([3]),
        contacts=np.array([0, 1]),
        normal_force=np.array([[0.0, 1.0], [0.0, 2.0]]),
        friction_force=np.array([[friction, 0.0], [0.0, 0.0]]),
    )


def test_animation_reuses_its_actors_and_updates_meshes_and_text_in_place():
    from fe_contact.io import render

    assert render.offscreen_available(), "VTK cannot render off-screen here (EGL or OSMesa)"
    first, last = _scene(0.0, 0.0, 0.01), _scene(0.25, 0.05, 0.0)
    view = render._fit_view([first, last], 2.0, None)
    with render._plotter((200, 100)) as plotter:
        drawn = render._PyvistaScene(plotter, view, title="mu = 0.3")
        drawn.show(first)
        plotter.render()
        actors = dict(drawn.actors)
        meshes = dict(drawn.meshes)
        n_actors = len(plotter.renderer.actors)
        text = drawn.text
        assert text.GetText(render._UPPER_LEFT).startswith("mu = 0.3    t = 0 s")
        assert "friction force 0" in actors and "friction force 1" not in actors  # zero: none
        drawn.show(last)
        image = plotter.screenshot(return_img=True)
        # the same actors and meshes, their geometry the last frame's, the text its time
        assert len(plotter.renderer.actors) == n_actors and drawn.text is text
        assert all(drawn.actors[k] is a and drawn.meshes[k] is meshes[k] for k, a in actors.items())
        np.testing.assert_allclose(drawn.meshes["elastic"].points[1], [0.2, 0.05, 0.0])
        assert text.GetText(render._UPPER_LEFT).startswith("mu = 0.3    t = 0.25 s")
        assert not drawn.actors["friction force 0"].visibility  # the friction vanished: hidden
        assert drawn.actors["normal force 1"].visibility
        assert image.shape[:2] == (100, 200)
