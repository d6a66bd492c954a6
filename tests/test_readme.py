"""The README's Python example runs as printed and its run is physically sound."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyvista as pv

from fe_contact.steppers.result import read_history

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example(tmp_path, monkeypatch):
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, "README example", "exec"), scope)  # noqa: S102 - our own README
    result = scope["result"]
    assert result.status == "finished", result.message
    # the slider stays on the strip, the balance closes and friction does work
    assert np.max(result["residual_position"]) < 1e-9
    assert np.max(np.abs(result["energy_error"])) < 1e-6 * result["dissipated_friction"][-1]
    assert np.all(result["slider_normal_force"] > 0.0)
    history = read_history(tmp_path / "out/example/history.csv")
    assert np.array_equal(history["t"], result.t)
    assert np.allclose(history["slider_normal_force"], result["slider_normal_force"])
    frames = pv.get_reader(str(tmp_path / "out/example/frames.pvd"))
    assert len(frames.time_values) == 2000 // 20 + 1
