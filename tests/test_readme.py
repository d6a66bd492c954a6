"""The README's Python examples run as printed and their runs are physically sound: the
coupled model, then the static start that follows it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import pyvista as pv

from fe_contact.steppers.result import read_history

README = Path(__file__).resolve().parents[1] / "README.md"
G = 9.81  # the library's default gravity, m/s^2
SLIDER_MASS = 0.02  # kg, the README's slider


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The README's examples, run in order in one scope (in a folder of their own); the
    scope after each: a list of two dicts."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 2, f"README.md has {len(blocks)} Python examples, the test runs 2"
    folder = tmp_path_factory.mktemp("readme")
    scope: dict = {}
    scopes = []
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for k, code in enumerate(blocks):
            code = compile(code, f"README example {k + 1}", "exec")
            exec(code, scope)  # noqa: S102 - our own README
            scopes.append(dict(scope))
    return folder, scopes


def test_readme_example(example):
    folder, (scope, _) = example
    result = scope["result"]
    assert result.status == "finished", result.message
    # the slider stays on the strip, the balance closes and friction does work
    assert np.max(result["residual_position"]) < 1e-9
    assert np.max(np.abs(result["energy_error"])) < 1e-6 * result["dissipated_friction"][-1]
    assert np.all(result["slider_normal_force"] > 0.0)
    history = read_history(folder / "out/example/history.csv")
    assert np.array_equal(history["t"], result.t)
    assert np.allclose(history["slider_normal_force"], result["slider_normal_force"])
    frames = pv.get_reader(str(folder / "out/example/frames.pvd"))
    assert len(frames.time_values) == 2000 // 20 + 1


def test_readme_static_start(example, measured):
    """The second example: the slider held by a spring on x rests on the strip bent under its
    weight. Newton's force residual is set to 1e-10 of the force scale (the slider's weight,
    0.196 N); asserted within 1e-9 of it. The constraint (the slider on the strip) to 1e-10 m
    (the solver's 1e-10 of the model's length scale, 0.4 m, with margin). The strip's slope
    under the slider is P a^2 / (2 EI) = 1.7e-3 rad, so the normal force is m g / cos(slope):
    within 2e-6 of m g (1e-5 allowed). From the static state the run stays at rest: every
    velocity below 1e-9 (m/s or rad/s; measured 3e-15), the slider where statics put it."""
    _, (_, scope) = example
    state, result = scope["state"], scope["result"]
    weight = SLIDER_MASS * G
    measured(
        "static force residual ||F - J^T lambda||",
        state.residual,
        1e-9 * weight,
        unit="N",
        reference="equilibrium: zero (scale: the slider's weight)",
    )
    assert state.constraint_residual < 1e-10
    measured.close(
        "static normal force",
        state.normal_force["slider"],
        weight,
        rtol=1e-5,
        unit="N",
        reference="m g (the slope P a^2 / (2 EI) = 1.7e-3 rad adds 1.4e-6 of it)",
    )
    assert result.status == "finished", result.message
    assert np.max(np.abs(result.u)) < 1e-9
    assert np.max(np.abs(result.q[:, :2] - state.q[:2])) < 1e-12
