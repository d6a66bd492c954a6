"""The ParaView state script written beside a series (``io.paraview_state``).

ParaView is not installable here, so the script is run against a stand-in ``paraview.simple``
that records every call: the script must open the ``.pvd`` that exists beside it, extract the
three blocks of the frames, colour the structures by an array their frames hold, and glyph the
``contact_force`` vectors with a scale that draws the largest force of the run (read back from
the written frames, independently of the writer's summary) 15 % of the drawing's extent long.
"""

import sys
import types

import numpy as np
import pytest
import pyvista as pv
from series import frame_files, part, read_frame

from fe_contact import BeamSpec, Body, ContactPair, Model, Point, Sliding, TreeModel, assemble
from fe_contact import simulate as run_simulation
from fe_contact.elements.beam import beam_fields, point_load, self_weight, static_deflection
from fe_contact.multibody.joints import Joint
from fe_contact.steppers.observers import VtkObserver

MASS = 0.02  # kg, a point mass on an x-y slider pressing on a cantilever


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    """A point mass sliding with friction on a 4-element cantilever for 2 ms, written live."""
    tree = TreeModel(
        bodies=(Body(1e-9, 1e-12), Body(MASS, 1e-9)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )
    beam = BeamSpec(
        length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3, width=0.01, height=0.0015
    )
    contact = ContactPair("contact", Point(1), "beam", Sliding(0.1))
    system = assemble(Model(tree=tree, structures={"beam": beam}, contacts=(contact,)))
    b = system.structures["beam"].beam
    x0 = 0.1
    u_static = static_deflection(b, self_weight(b) + point_load(b, x0, -MASS * 9.81))
    q0, u0 = system.initial_state([x0, beam_fields(b, u_static, [x0]).deflection[0]])
    q0[system.layout.structure("beam")] = u_static[b.free_dofs]
    u0[0] = 0.5  # m/s along the beam
    out = tmp_path_factory.mktemp("paraview")
    result = run_simulation(
        system, (0.0, 0.002), (q0, u0), h=1e-4, observers=[VtkObserver(out, "slider", stride=5)]
    )
    assert result.status == "finished", result.message
    return out / "slider.pvd"


class Proxy:
    """Any ParaView proxy: takes any property, any method call returns None."""

    def __init__(self, kind, **kwargs):
        self.kind = kind
        self.__dict__.update(kwargs)

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def stand_in_paraview(calls):
    """Modules ``paraview`` and ``paraview.simple`` recording each call into ``calls``."""
    simple = types.ModuleType("paraview.simple")

    def recorder(kind):
        def call(*args, **kwargs):
            proxy = Proxy(kind, args=args, **kwargs)
            calls.append(proxy)
            return proxy

        return call

    for name in (
        "ColorBy ExtractBlock GetActiveViewOrCreate GetAnimationScene Glyph Interact "
        "PVDReader Render ResetCamera Show"
    ).split():
        setattr(simple, name, recorder(name))
    paraview = types.ModuleType("paraview")
    paraview.fromGUI = False
    paraview.simple = simple
    return {"paraview": paraview, "paraview.simple": simple}


def test_state_script_opens_the_series_and_glyphs_the_contact_forces(series, monkeypatch):
    script = series.with_name("slider.pvsm.py")
    assert script.exists()
    calls = []
    for name, module in stand_in_paraview(calls).items():
        monkeypatch.setitem(sys.modules, name, module)
    exec(compile(script.read_text(), str(script), "exec"), {"__file__": str(script)})
    kinds = [c.kind for c in calls]

    (reader,) = [c for c in calls if c.kind == "PVDReader"]
    assert reader.FileName == str(series) and series.exists()
    frames = [read_frame(path) for _, path in frame_files(series)]
    extracted = {c.registrationName: c for c in calls if c.kind == "ExtractBlock"}
    assert {name: c.Selectors for name, c in extracted.items()} == {
        group: [f"/Root/{group}"] for group in ("structures", "bodies", "contacts")
    }
    assert all(set(frame.keys()) == {"structures", "bodies", "contacts"} for frame in frames)

    coloured = [c.args[1] for c in calls if c.kind == "ColorBy"]
    assert ("POINTS", "bending_moment") in coloured
    assert "bending_moment" in part(frames[0], "beam").point_data

    (glyph,) = [c for c in calls if c.kind == "Glyph"]
    assert glyph.Input is extracted["contacts"]
    assert glyph.OrientationArray == glyph.ScaleArray == ["POINTS", "contact_force"]
    forces = np.vstack([f["contacts"].point_data["contact_force"] for f in frames])
    points = np.vstack([p.points for f in frames for p in _grids(f)])
    extent = np.hypot(*(points[:, :2].max(axis=0) - points[:, :2].min(axis=0)))
    longest = glyph.ScaleFactor * np.linalg.norm(forces, axis=1).max()
    # The script writes extent and scale factor with 4 significant digits: 2 x 5e-4 relative.
    assert longest == pytest.approx(0.15 * extent, rel=1e-3)
    assert kinds[-1] == "Interact"  # pvpython keeps the window open


def _grids(frame):
    for key in frame.keys():
        block = frame[key]
        if isinstance(block, pv.MultiBlock):
            yield from _grids(block)
        elif block.n_points:
            yield block


def test_state_script_is_rewritten_on_close_with_every_frame_seen(series):
    # Written with the first frame (a killed run has one) and again on close: the last one
    # knows the force of every frame, so its scale is the one checked above.
    text = series.with_name("slider.pvsm.py").read_text()
    assert "largest |contact_force|" in text
    assert not list(series.parent.glob("*.tmp"))


def test_a_series_whose_contacts_never_close_gets_arrows_of_no_length():
    # A frame with no closed contact has an empty contacts block (points of shape (0,)):
    # the summary takes it (no force), and the Glyph's scale factor is 0 (nothing to draw).
    from fe_contact.io.paraview_state import SeriesSummary, state_script
    from fe_contact.io.vtk import Block

    summary = SeriesSummary()
    beam = Block("beam", np.array([[0.0, 0.0], [0.3, 0.4]]), [("line", [[0, 1]])], {})
    empty = Block(
        "contacts", np.zeros(0), [("vertex", np.zeros((0, 1), int))], {}, group="contacts"
    )
    summary.add([beam, empty])
    assert summary.has_contacts and summary.max_force == 0.0
    assert summary.extent() == 0.5  # the 0.3-0.4-0.5 triangle
    assert "forces.ScaleFactor = 0  # m/N" in state_script("f.pvd", ".", summary)
