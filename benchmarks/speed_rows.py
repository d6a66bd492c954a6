"""The speed issue's rows that ``speed.py`` measures beyond its own cases: the cam-lock demo's
cases (measured on windows of their approach and contact phase, the demo estimated from them;
or measured whole, one process per case), the pin-on-wheel demo's CPU time, the first
run's compile time in a fresh numba cache, and the scale case (a tensioned beam of 5000
elements with a point sliding along it at 80 m/s). Each function returns a dict of the
figures ``speed.py`` prints and writes; every target is the issue's.

Timing: wall time by ``time.perf_counter``, CPU time by ``time.process_time`` (this process) or
``resource.getrusage(RUSAGE_CHILDREN)`` (a child process and its workers). The machine is
shared (2 cores, other jobs running): the CPU time is the steadier figure.
"""

from __future__ import annotations

import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from fe_contact.elements.beam import BeamSpec
from fe_contact.multibody.drive import Drive
from fe_contact.papers.lipinski import sliding_mass_model
from fe_contact.steppers.simulate import simulate
from fe_contact.system import assemble

ROOT = Path(__file__).resolve().parent.parent


def counts(result) -> dict:
    """The compiled / Python-step counters of a result (``SimulationResult.step_path``)."""
    return {
        "step path": result.step_path,
        "n_steps": result.n_steps,
        "n_substeps": result.n_substeps,
        "compiled": result.n_compiled,
        "python": result.n_python,
        "fell back": result.n_fallback,
    }


def timed_simulate(system, t_span, y0, **settings):
    """(result, CPU s of the ``simulate`` call); the wall time is ``result.wall_time``."""
    cpu0 = time.process_time()
    result = simulate(system, t_span, y0, **settings)
    return result, time.process_time() - cpu0


# --- cam lock -------------------------------------------------------------------------------

CAM_T_END, CAM_H = 2.0, 1e-4  # the demo's horizon and step (s)
CAM_CASES = (0, 1, 2, 3)
# the windows measured in each case (s), those of ``cam_lock_phases.py``: the approach (contact
# open) from t = 0, and the contact phase from t0 = 0.6 s (the cam at Phi(0.6), the rest at
# rest; the contact closes at 0.64 s, with the step's halvings) to 0.75 s, case 0 to 1.1 s
# (its driving torque after 1 s)
CAM_OPEN = 0.01
CAM_CONTACT_FROM = 0.6
CAM_CONTACT_TO = {0: 1.1, 1: 0.75, 2: 0.75, 3: 0.75}


def _cam_window(case: int, t0: float, t1: float) -> tuple:
    """(result, CPU s) of the cam lock's ``case`` from t0 to t1 at the demo's step (the demo's
    ``run_case`` without its files; the model's build is not timed; ``papers.bauchau.cam_lock``
    puts the cam at Phi(t0), everything else at rest)."""
    from fe_contact.demos.cam_lock import SENSORS
    from fe_contact.papers.bauchau import Geometry
    from fe_contact.papers.bauchau import cam_lock as scenario_of

    scenario = scenario_of(case, Geometry(), t0)
    scenario = replace(scenario, model=replace(scenario.model, sensors=SENSORS))
    system = scenario.assemble()
    cpu0 = time.process_time()
    result = scenario.run(system, t_span=(t0, t1), h=CAM_H)
    return result, time.process_time() - cpu0


def cam_lock(cases=CAM_CASES, quick: bool = False) -> dict:
    """``fe-contact demo cam-lock`` (4 cases to 2 s at h = 1e-4 s) measured per case on two
    windows: the approach (``CAM_OPEN`` s from t = 0, contact open) and the contact phase
    (``CAM_CONTACT_FROM`` to ``CAM_CONTACT_TO[case]``: the closing at 0.64 s with its halvings,
    and the contact after it), each after a warm-up run of 2 ms from its start. The whole demo
    is estimated from them: per case the wall (CPU) time per step of the approach times the
    steps before ``CAM_CONTACT_FROM`` plus that of the contact window times the steps from
    there to 2 s. ``quick``: windows of a tenth."""
    per_case, total = {}, {"steps": 0, "wall": 0.0, "cpu": 0.0}
    agg = dict.fromkeys(("n_steps", "n_substeps", "compiled", "python", "fell back"), 0)
    path = set()
    scale = 0.1 if quick else 1.0
    for case in cases:
        windows = {
            "open": (0.0, CAM_OPEN * scale),
            "contact": (
                CAM_CONTACT_FROM,
                CAM_CONTACT_FROM + (CAM_CONTACT_TO[case] - CAM_CONTACT_FROM) * scale,
            ),
        }
        per_case[case] = {}
        for phase, (t0, t1) in windows.items():
            _cam_window(case, t0, t0 + 2e-3)  # caches, numba's loading
            result, cpu = _cam_window(case, t0, t1)
            steps = max(result.n_steps, 1)
            per_case[case][phase] = {
                "window [s]": (t0, t1),
                "status": result.status,
                "steps": result.n_steps,
                "substeps": result.n_substeps,
                "wall per step [us]": 1e6 * result.wall_time / steps,
                "CPU per step [us]": 1e6 * cpu / steps,
            }
            c = counts(result)
            path.add(c["step path"])
            for key in agg:
                agg[key] += c[key]
            total["steps"] += result.n_steps
            total["wall"] += result.wall_time
            total["cpu"] += cpu
    n_open = round(CAM_CONTACT_FROM / CAM_H)
    n_contact = round((CAM_T_END - CAM_CONTACT_FROM) / CAM_H)

    def demo(key):
        return sum(
            1e-6 * (n_open * w["open"][key] + n_contact * w["contact"][key])
            for w in per_case.values()
        )

    n_demo = len(cases) * round(CAM_T_END / CAM_H)
    return {
        "per case": per_case,
        "measured steps": total["steps"],
        "measured wall [s]": total["wall"],
        "measured CPU [s]": total["cpu"],
        "estimated demo wall [s]": demo("wall per step [us]"),
        "estimated demo CPU [s]": demo("CPU per step [us]"),
        "estimated per step wall [us]": 1e6 * demo("wall per step [us]") / n_demo,
        "estimated per step CPU [us]": 1e6 * demo("CPU per step [us]") / n_demo,
        "counts": {"step path": "/".join(sorted(path)), **agg},
    }


CAM_CASE_RUN = """
import json, time
from fe_contact.demos.cam_lock import run_case
cpu0 = time.process_time()
_, r, extra = run_case(CASE, T_END, H)
print(json.dumps({"status": r.status, "cpu": time.process_time() - cpu0,
                  "wall": extra["wall_time"], "step path": r.step_path, "n_steps": r.n_steps,
                  "n_substeps": r.n_substeps, "compiled": r.n_compiled, "python": r.n_python,
                  "fell back": r.n_fallback}))
"""


def cam_lock_whole(cases=CAM_CASES, t_end: float = CAM_T_END) -> dict:
    """``fe-contact demo cam-lock``'s cases measured whole: each case's ``run_case`` to t_end
    (2 s) at h = 1e-4 s in a child process of its own (one after the other): the processes'
    wall and CPU time (imports, the model's build and the kernels' loading from the numba
    cache included), the ``run_case`` calls' own CPU time and the counters."""
    per_case, agg = (
        {},
        dict.fromkeys(("n_steps", "n_substeps", "compiled", "python", "fell back"), 0),
    )
    path = set()
    wall = cpu = inner = 0.0
    for case in cases:
        script = f"CASE, T_END, H = {int(case)}, {float(t_end)!r}, {CAM_H!r}\n" + CAM_CASE_RUN
        run = child_run(["-c", script], env=environment())
        if run["code"] != 0:
            raise RuntimeError(f"cam-lock case {case} failed: {run['stderr'][-2000:]}")
        info = json.loads(run["stdout"].strip().splitlines()[-1])
        per_case[case] = {"process wall [s]": run["wall"], "process CPU [s]": run["cpu"], **info}
        wall += run["wall"]
        cpu += run["cpu"]
        inner += info["cpu"]
        path.add(info["step path"])
        for key in agg:
            agg[key] += info[key]
    return {
        "per case": per_case,
        "wall [s]": wall,
        "CPU [s]": cpu,
        "run_case CPU [s]": inner,
        "t_end [s]": t_end,
        "counts": {"step path": "/".join(sorted(path)), **agg},
    }


# --- pin on the wheel -----------------------------------------------------------------------


def child_run(args, env=None, cwd=None) -> dict:
    """Run ``python args`` in a child process: wall s, CPU s (user + system of the child and its
    own children, e.g. a process pool), exit code, stdout and stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall": wall,
        "cpu": cpu,
        "code": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr,
    }


def environment(**extra) -> dict:
    env = {**os.environ, **extra}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def pin_on_wheel(quick: bool = False) -> dict:
    """``fe-contact demo pin-on-wheel`` with its defaults (11 event-driven runs of 1 ms at
    h <= 1e-7 s on 2 processes, figures and tables) in a child process: its wall and CPU time
    (the pool's workers included). ``quick``: one run of 1e-5 s, no re-shaping."""
    extra = []
    if quick:
        extra = ["--t-end", "1e-5", "--reshapings", "0", "--misalignments", "0", "--jobs", "1"]
    with tempfile.TemporaryDirectory() as out:
        run = child_run(
            ["-m", "fe_contact.cli", "demo", "pin-on-wheel", "--out", out, *extra],
            env=environment(),
        )
    if run["code"] != 0:
        raise RuntimeError(f"pin-on-wheel demo failed: {run['stderr'][-2000:]}")
    return {"wall [s]": run["wall"], "CPU [s]": run["cpu"], "quick": quick}


# --- first run after installation -----------------------------------------------------------

FIRST_RUN = """
import json, logging, time
t0 = time.perf_counter()
logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
from fe_contact.papers import lipinski
from fe_contact.steppers.simulate import simulate
scenario = lipinski.manipulator(lipinski.Manipulator(), 0.2)
system = scenario.assemble()
r = simulate(system, (0.0, T_END), (scenario.q0, scenario.u0), h=5e-4)
print(json.dumps({"status": r.status, "wall": time.perf_counter() - t0,
                  "compiled": r.n_compiled, "substeps": r.n_substeps}))
"""


def _fresh_copy(folder) -> Path:
    """The package copied without its ``__pycache__`` into ``folder`` (as after ``pip
    install``: no numba cache, which numba then writes beside the copy)."""
    shutil.copytree(
        ROOT / "fe_contact",
        Path(folder) / "fe_contact",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return Path(folder)


def _wait_for_background(package: Path, limit: float = 1800.0) -> dict:
    """Wait until the copy's background compilation (``steppers.background_compile``) has
    released its lock; its wall time waited and the CPU its log states."""
    cache = package / "fe_contact" / "kernels" / "__pycache__"
    t0 = time.perf_counter()
    while (cache / "background-compile.lock").exists():
        if time.perf_counter() - t0 > limit:
            raise RuntimeError(f"the background compilation did not end within {limit:g} s")
        time.sleep(1.0)
    log = (cache / "background-compile.log").read_text(encoding="utf-8")
    found = re.search(r"compiled in ([0-9.]+) s of CPU", log)
    return {"waited": time.perf_counter() - t0, "cpu": float(found[1]) if found else math.nan}


def first_run(t_end: float = 0.6) -> dict:
    """The first run after an installation, measured on fresh copies of the package
    (``_fresh_copy``; ``NUMBA_CACHE_DIR`` unset: an empty one alone would not do, since
    ``kernels.cached()`` would then find the working tree's ``__pycache__``):

    * the README's first demo as a new user meets it: ``fe-contact demo manipulator`` (six
      friction coefficients to ``t_end``) in a fresh process, the command's own default mode
      (``background``: the kernels compile in a detached process while the demo takes the
      Python step); its wall and CPU time (its worker processes included, not the detached
      compilation), whether it said so; then, once the background compilation is done (its
      CPU from its log), the same command again, which loads the kernels;
    * the compilation in the foreground: the demo's simulation (mu = 0.2) in a fresh process
      with ``FE_CONTACT_COMPILE=foreground`` on another fresh copy, then again on the cache the
      first filled: the difference of the two processes' wall (CPU) times is the compilation's,
      on this machine under its current load; and whether the first process said that it
      compiles (``kernels.announce_compilation``)."""
    script = FIRST_RUN.replace("T_END", repr(float(t_end)))
    env = {
        k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "FE_CONTACT_COMPILE")
    }
    demo = ["-m", "fe_contact.cli", "demo", "manipulator", "--t-end", repr(float(t_end))]
    with tempfile.TemporaryDirectory() as fresh:
        package = _fresh_copy(fresh)
        env_demo = {**env, "PYTHONPATH": str(package), "MPLBACKEND": "Agg"}
        first = child_run([*demo, "--out", str(package / "out1")], env=env_demo, cwd=fresh)
        background = _wait_for_background(package)
        again = child_run([*demo, "--out", str(package / "out2")], env=env_demo, cwd=fresh)
    with tempfile.TemporaryDirectory() as fresh:
        package = _fresh_copy(fresh)
        env_fg = {**env, "PYTHONPATH": str(package), "FE_CONTACT_COMPILE": "foreground"}
        cold = child_run(["-c", script], env=env_fg, cwd=fresh)
        warm = child_run(["-c", script], env=env_fg, cwd=fresh)
    for run in (first, again, cold, warm):
        if run["code"] != 0:
            raise RuntimeError(f"first-run measurement failed: {run['stderr'][-2000:]}")
    info = json.loads(cold["stdout"].strip().splitlines()[-1])
    return {
        "demo first wall [s]": first["wall"],
        "demo first CPU [s]": first["cpu"],
        "demo said background": "compile in a background process" in first["stderr"],
        "background CPU [s]": background["cpu"],
        "background waited [s]": background["waited"],
        "demo again wall [s]": again["wall"],
        "demo again CPU [s]": again["cpu"],
        "cold wall [s]": cold["wall"],
        "cold CPU [s]": cold["cpu"],
        "warm wall [s]": warm["wall"],
        "warm CPU [s]": warm["cpu"],
        "compile wall [s]": cold["wall"] - warm["wall"],
        "compile CPU [s]": cold["cpu"] - warm["cpu"],
        "message": "compiling the numba kernels" in cold["stderr"],
        "message in warm run": "compiling the numba kernels" in warm["stderr"],
        "compiled steps": info["compiled"],
        "substeps": info["substeps"],
    }


# --- scale case -----------------------------------------------------------------------------

SCALE_ELEMENTS, SCALE_SPEED = 5000, 80.0  # elements, m/s


def scale_model(
    n_elements: int = SCALE_ELEMENTS, speed: float = SCALE_SPEED, x0: float = 10.0, mass=0.2
):
    """(system, q0, u0): a pinned-pinned contact wire (EI = 195 N m^2, rho A = 1.35 kg/m, axial
    pre-tension 20 kN; ``papers.catenary``'s contact-wire data), 0.1 m elements, weightless, and a
    light point (``mass`` kg, 0.2 by default) pressed on it by its weight (the sliding mass's
    tree: prismatic x, prismatic y), its x driven at ``speed`` from x0; frictionless bilateral
    ``Sliding``. Start: the wire straight, the point on it moving along it at ``speed``.
    2 n_elements + 2 unknowns. (With 5 kg at 80 m/s and h = 1 ms, most steps' Newton
    iterations fail and are halved: the point's vertical acceleration v^2 w'' jumps where it
    crosses a node of the Hermite mesh, 0.08 m per step.)"""
    wire = BeamSpec(
        length=0.1 * n_elements,
        n_elements=n_elements,
        youngs_modulus=1.0,  # EI and rho A given as second_moment and area with E = rho = 1
        density=1.0,
        area=1.35,
        second_moment=195.0,
        left="pinned",
        right="pinned",
        axial_force=20e3,
    )
    model = sliding_mass_model(0.0, n_elements, beam=wire, mass=mass, structure_gravity=False)
    model = replace(model, drives=(Drive.constant_velocity(0, x0, speed),))
    system = assemble(model)
    q0, u0 = system.initial_state(q_tree=[x0, 0.0], u_tree=[speed, 0.0])
    return system, q0, u0


def scale_case(t_end: float = 0.05, h: float = 1e-3, compiled: bool = True, repeats: int = 2):
    """The scale case to ``t_end`` (s) at step h (s): the best of ``repeats`` runs (after one
    warm-up run of 2 steps); its wall and CPU time per step and per simulated second, the
    counters, and the energy balance error and position residual as a check that it ran."""
    system, q0, u0 = scale_model()
    simulate(system, (0.0, 2 * h), (q0, u0), h=h, compiled=compiled)
    best = None
    for _ in range(repeats):
        result, cpu = timed_simulate(system, (0.0, t_end), (q0, u0), h=h, compiled=compiled)
        if best is None or result.wall_time < best[0].wall_time:
            best = (result, cpu)
    result, cpu = best
    steps = max(result.n_steps, 1)
    return {
        "unknowns": system.layout.n,
        "status": result.status,
        "t_end [s]": t_end,
        "h [s]": h,
        "wall per step [us]": 1e6 * result.wall_time / steps,
        "CPU per step [us]": 1e6 * cpu / steps,
        "wall per simulated s [s/s]": result.wall_time / t_end,
        "CPU per simulated s [s/s]": cpu / t_end,
        "newton per step": result.n_newton / steps,
        "max |energy_error| [J]": float(np.max(np.abs(result["energy_error"]))),
        "max residual_position [m]": float(np.max(np.abs(result["residual_position"]))),
        "counts": counts(result),
    }
