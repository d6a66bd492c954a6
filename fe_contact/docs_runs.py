"""The simulations behind the numbers and figures of the pages (``fe_contact.docs_figures``).

Each run is a function ``run(out, scratch) -> list[Quantity]`` that calls the demos' and
papers' own functions (nothing here is physics), writes its figures to ``out`` and returns the
numbers the pages quote, each with its place (``fe_contact.docs_numbers.Quantity``). ``RUNS``
are the quick ones (checked by the test suite), ``LONG_RUNS`` take minutes to tens of minutes
(checked by ``python -m fe_contact.docs_figures --check``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from .docs_numbers import Quantity

MANIPULATOR = "The manipulator sliding on the cantilever"
TROLLEY = "The trolley on the hanging string"


def manipulator(out: Path, scratch: Path) -> list[Quantity]:
    """The sweep of ``fe-contact demo manipulator`` (002 sec. 9): its table, the spring rest
    angles, the residual and balance bounds, ``manipulator_torque.png`` and
    ``manipulator_configuration.png``."""
    from .demos.manipulator_on_beam import plot_sweep, sweep
    from .papers.lipinski import MU_SWEEP, Manipulator, manipulator_pose

    data = Manipulator()
    pose = manipulator_pose(data)
    cases = sweep(MU_SWEEP, data, progress=False)
    plot_sweep(cases, data, out / "manipulator_torque.png", out / "manipulator_configuration.png")
    found = [
        Quantity("manipulator.rest_angle_1", pose.rest[0], "rad", ".3f", MANIPULATOR,
                 "(printed: {} rad and"),
        Quantity("manipulator.rest_angle_3", pose.rest[1], "rad", ".3f", MANIPULATOR,
                 "rad and {} rad)"),
    ]  # fmt: skip
    columns = (
        ("mean_torque", "mean_torque [N m]", "N m", ".5f"),
        ("mean_normal_force", "mean_normal_force [N]", "N", ".4f"),
        ("drive_work", "drive_work [J]", "J", ".5f"),
        ("friction_dissipation", "friction_dissipation [J]", "J", ".5f"),
        ("max_energy_error", "energy_error [J]", "J", ".1e"),
    )
    for case in cases:
        if case.summary["status"] != "finished":
            raise RuntimeError(f"manipulator mu = {case.mu:g}: {case.summary['message']}")
        for k, (name, key, unit, fmt) in enumerate(columns):
            cells = " | ".join(["{*}"] * k + ["{}"])
            found.append(
                Quantity(f"manipulator.mu_{case.mu:g}.{name}", case.summary[key], unit, fmt,
                         MANIPULATOR, f"| {case.mu:g} | {cells} |",
                         roundoff=name == "max_energy_error")
            )  # fmt: skip
    residual = max(c.summary["max_residual_position [m]"] for c in cases)
    relative = max(c.summary["energy_error_relative"] for c in cases)
    found += [
        Quantity("manipulator.max_residual_position", residual, "m", ".0e", MANIPULATOR,
                 "(measured {});", roundoff=True),
        Quantity("manipulator.max_energy_error_relative", relative, "1", ".0e", MANIPULATOR,
                 "largest term (measured {})", roundoff=True),
    ]  # fmt: skip
    return found


def manipulator_reversal(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo manipulator --drive-reversal 0.3 --mu 0.3`` (bilateral, then with
    ``--lift-off``): the times of its contact events."""
    from .demos.manipulator_on_beam import run_case
    from .papers.lipinski import Manipulator

    data = replace(Manipulator(), drive_reversal=0.3)
    bilateral = run_case(0.3, data).result
    lifting = run_case(0.3, replace(data, lift_off=True)).result
    where = "The trolley on the hanging string"  # the demo list at the end of that section
    return [
        Quantity("reversal.slip_turns", first_event(bilateral, "reversal"), "s", ".3f", where,
                 "slip turns at {} s"),
        Quantity("reversal.sticks", first_event(bilateral, "stick"), "s", ".3f", where,
                 "it sticks at {} s"),
        Quantity("reversal.breaks_loose", first_event(bilateral, "slip"), "s", ".3f", where,
                 "breaks loose at {} s"),
        Quantity("reversal.separates", float(bilateral.t[-1]), "s", ".2f", where,
                 "separates near {} s"),
        Quantity("reversal.lift_off_opens", first_event(lifting, "open"), "s", ".4f", where,
                 "it opens at {} s"),
    ]  # fmt: skip


def first_event(result, kind: str) -> float:
    """The time (s) of the first contact event of ``kind`` in a result; ValueError if none."""
    times = [t for t, _, k in result.events if k == kind]
    if not times:
        raise ValueError(f"the run has no {kind!r} event; its events: {result.events}")
    return float(times[0])


def slider_on_string(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo slider-on-string`` (mu = 0.05, 2 s, h = 1e-3 s, rho_inf = 1)."""
    from .demos.slider_on_string import run

    _, result = run(scratch / "slider_on_string", progress=False, plot=False, vtk_every=0.0)
    x = result.q[:, 0]
    normal = result["trolley_normal_force"]
    return [
        Quantity("trolley.x_min", float(np.min(x)), "m", ".3f", TROLLEY, "(x from {} to"),
        Quantity("trolley.x_max", float(np.max(x)), "m", ".3f", TROLLEY, "to {} m in 2 s)"),
        Quantity("trolley.turns_at", float(np.max(x)), "m", ".2f", TROLLEY, "turns at x = {} m"),
        Quantity("trolley.normal_force_min", float(np.min(normal)), "N", ".0f", TROLLEY,
                 "between about {} and"),
        Quantity("trolley.normal_force_max", float(np.max(normal)), "N", ".0f", TROLLEY,
                 "and {} N)"),
        Quantity("trolley.friction_dissipation", float(result["dissipated_friction"][-1]), "J",
                 ".3f", TROLLEY, "friction dissipates {} J in 2 s"),
        # one digit: 5.15e-4 to 5.16e-4 J between BLAS kernels (the slip reverses many times)
        Quantity("trolley.max_energy_error", float(np.max(np.abs(result["energy_error"]))), "J",
                 ".0e", TROLLEY, "balance closes to {} J. It writes"),
        # the first row of the energy-consistent table (the option's rows: trolley-energy)
        Quantity("trolley_ec.without.max_energy_error",
                 float(np.max(np.abs(result["energy_error"]))), "J", ".0e", TROLLEY,
                 "| mu = 0.05, without the option | {} J |"),
        Quantity("trolley_ec.without.friction", float(result["dissipated_friction"][-1]), "J",
                 ".3f", TROLLEY, "| mu = 0.05, without the option | {*} J | {*} | {} J |"),
    ]  # fmt: skip


def disk_on_beam(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo disk-on-beam`` (Moreau-Jean, 1 s, h = 1e-3 s)."""
    from .demos.disk_on_beam import run

    _, result = run(scratch / "disk_on_beam", progress=False, plot=False, vtk_every=0.0)
    touching = np.flatnonzero(np.asarray(result["disk_n_closed"]) > 0)
    return [
        Quantity("disk_on_beam.lands", float(result.t[touching[0]]), "s", ".3f", TROLLEY,
                 "it lands at {} s"),
        Quantity("disk_on_beam.leaves", float(result.t[touching[-1]]), "s", ".2f", TROLLEY,
                 "at the tip near {} s"),
        Quantity("disk_on_beam.friction_dissipation", float(result["dissipated_friction"][-1]),
                 "J", ".1e", TROLLEY, "Friction and impacts dissipate {} and"),
        Quantity("disk_on_beam.impact_dissipation", float(result["dissipated_impact"][-1]), "J",
                 ".1e", TROLLEY, "and {} J, the balance"),
        Quantity("disk_on_beam.max_energy_error", float(np.max(np.abs(result["energy_error"]))),
                 "J", ".0e", TROLLEY, "the balance closes to {} J;", roundoff=True),
    ]  # fmt: skip


def friction_oscillator(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo friction-oscillator`` (5 s, h = 1e-3 s): its last limit cycle."""
    from .demos.friction_oscillator import last_cycle, run
    from .papers.friction_oscillator import Oscillator

    _, result = run(Oscillator())
    cycle = last_cycle(result)
    if cycle is None:
        raise RuntimeError("friction oscillator: the run has no complete stick-slip cycle")
    period, stick = cycle
    return [
        Quantity("oscillator.period", period, "s", ".6f", TROLLEY, "period {} s against"),
        Quantity("oscillator.stick_time", stick, "s", ".4f", TROLLEY, "stick time {} s to"),
    ]  # fmt: skip


def sliding_mass_frame(out: Path, scratch: Path) -> list[Quantity]:
    """``sliding_mass.png``: the last ParaView frame (t = 0.1 s) of the sliding-mass demo's
    model with mu = 0.1, drawn off-screen (``io.render.render_frame``); no numbers."""
    from .demos.sliding_mass import model_file
    from .io.render import render_frame
    from .steppers.observers import VtkObserver
    from .steppers.simulate import simulate
    from .system import assemble

    h, t_end = 1e-4, 0.1
    run_file = model_file(0.1, t_end=t_end, h=h)
    system = assemble(run_file.model)
    q0, u0 = run_file.initial.state(system)
    frames = VtkObserver(scratch / "sliding_mass", stride=100)
    settings = run_file.simulation.settings
    result = simulate(system, (0.0, t_end), (q0, u0), h=h, observers=[frames], **settings)
    if result.status != "finished":
        raise RuntimeError(f"sliding mass: {result.message}")
    render_frame(scratch / "sliding_mass" / "frames.pvd", out / "sliding_mass.png")
    return []


PIN = "The pin on the rotating wheel: rough contact, impacts, run-in wear"


def pin_on_wheel(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo pin-on-wheel`` (1 ms per run, h = 1e-7 s, two processes): the apparent
    coefficient of the smooth and the rough model at five misalignments, and the run-in."""
    from .demos.pin_on_wheel import MISALIGNMENTS, run
    from .papers.slavic_boltezar import PinOnWheel, smooth_apparent_cof

    data = PinOnWheel()
    wear, sweep = run(data, MISALIGNMENTS, reshapings=5, h=1e-7, jobs=2)
    for r in (*wear, *sweep):
        if r.status != "finished":
            raise RuntimeError(f"pin on the wheel: {r.message}")
    smooth = smooth_apparent_cof(np.asarray(MISALIGNMENTS), data.R, data.mu)
    found = []
    for k, (s, mu_smooth, r) in enumerate(zip(MISALIGNMENTS, smooth, sweep, strict=True)):
        cells = " | ".join(["{*}"] * k + ["{}"])
        found += [
            Quantity(f"pin.s_{s * 1e3:g}mm.mu_xy_smooth", mu_smooth, "1", ".4f", PIN,
                     f"| mu_xy, smooth one-point model, 003 eq. (32) | {cells} |"),
            Quantity(f"pin.s_{s * 1e3:g}mm.mu_xy_rough", r.mu_xy, "1", ".4f", PIN,
                     f"| mu_xy, rough many-point model | {cells} |"),
        ]  # fmt: skip
    below = 100.0 * (1.0 - sweep[-1].mu_xy / smooth[-1])
    concentration = [float(r.loss_face.max() / r.loss_face.mean()) for r in wear]
    found += [
        Quantity("pin.s_0.4mm.below_smooth", below, "%", ".0f", PIN, "it is {} % below eq."),
        Quantity("pin.face_max_over_mean_W.first", concentration[0], "1", ".0f", PIN,
                 "face is {} before the first"),
        Quantity("pin.face_max_over_mean_W.last", concentration[-1], "1", ".0f", PIN,
                 "and {} after the fifth"),
    ]  # fmt: skip
    return found


CAM = "The cam lock (`fe-contact demo cam-lock`)"
CAM_CASES = ("no friction", "continuous law", "with rolling", "hard contact")
BAND_GAP = 0.02  # s: stick intervals closer than this belong to one band


def cam_case(case: int) -> dict:
    """The summary of one cam-lock case (2 s, h = 1e-4 s) with its rolling bands."""
    from .demos.cam_lock import rolling_intervals, run_case, summary_row

    _, result, extra = run_case(case, 2.0, 1e-4)
    row = summary_row(case, result, extra)
    if row["status"] != "finished":
        raise RuntimeError(f"cam lock case {case}: {result.message}")
    intervals = rolling_intervals(result)
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(intervals)]
    row["bands"] = (1 + sum(gap > BAND_GAP for gap in gaps)) if intervals else 0
    return row


def cam_lock(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo cam-lock --t-end 2`` (four cases, h = 1e-4 s, two processes): its
    table."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=2) as pool:
        rows = list(pool.map(cam_case, range(4)))
    found = []
    for case, row in enumerate(rows):
        torque = "{*} N m (000: -1.0 kN m)" if case == 0 else "{*} N m"
        head = f"| {case} {CAM_CASES[case]} | "
        cells = [torque, "{*} kN", "{*} J", "{*} J", "{*} J"]
        # beyond the closing the runs amplify round-off (the page says how much): within 5 %,
        # the largest energy error within 50 %
        columns = (
            ("torque_after_1s", row["torque_after_1s [N m]"], "N m", ".0f", 1.0, 0.05),
            ("max_normal_force", row["max_normal_force [N]"], "kN", ".1f", 1e-3, 0.05),
            ("friction_work", row["friction_work [J]"], "J", ".1f", 1.0, 0.05),
            ("drive_work", row["work_drives [J]"], "J", ".1f", 1.0, 0.05),
            ("max_energy_error", row["max_abs_energy_error [J]"], "J", ".2g", 1.0, 0.5),
        )
        for k, (name, value, unit, fmt, scale, spread) in enumerate(columns):
            text = head + " | ".join(cells[:k] + [cells[k].replace("{*}", "{}")])
            found.append(
                Quantity(
                    f"cam_lock.case_{case}.{name}", value * scale, unit, fmt, CAM, text,
                    spread=spread,
                )
            )  # fmt: skip
        rolling = head + " | ".join(cells) + " | {}"
        if case == 2:  # chaotic counts (the README says so): within 50 %
            found += [
                Quantity("cam_lock.case_2.rolling_intervals", row["rolling_events"], "1", "d",
                         CAM, rolling + ", in", spread=0.5),
                Quantity("cam_lock.case_2.rolling_bands", row["bands"], "1", "d", CAM,
                         rolling.replace("{}", "{*}") + ", in {} bands", spread=0.5),
            ]  # fmt: skip
        elif case == 3:
            found.append(
                Quantity("cam_lock.case_3.stick_intervals", row["rolling_events"], "1", "d", CAM,
                         rolling + " |", spread=0.5)
            )  # fmt: skip
    work = [row["work_drives [J]"] for row in rows]
    error = [row["max_abs_energy_error [J]"] for row in rows]
    shares = [100.0 * e / w for e, w in zip(error, work, strict=True)]
    found += [
        Quantity("cam_lock.balance_share_min", min(shares), "%", ".1g", CAM, "closes to {}-"),
        Quantity("cam_lock.balance_share_max", max(shares), "%", ".2f", CAM,
                 "-{} % of the drive's work"),
    ]  # fmt: skip
    return found


def trolley_energy(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo slider-on-string --energy-consistent`` with mu = 0.05 and mu = 0 (2 s,
    h = 1e-3 s): the rows of the energy-consistent table."""
    from .demos.slider_on_string import run
    from .papers.slider_on_string import Trolley

    found = []
    for mu in (0.05, 0.0):
        _, result = run(scratch / f"trolley_ec_{mu:g}", data=Trolley(mu=mu), progress=False,
                        plot=False, vtk_every=0.0, energy_consistent=True)  # fmt: skip
        if result.status != "finished":
            raise RuntimeError(f"energy-consistent trolley, mu = {mu:g}: {result.message}")
        terms = ("kinetic_energy", "potential_energy", "elastic_energy", "dissipated_friction")
        largest = max(float(np.max(np.abs(result[k]))) for k in terms)
        error = float(np.max(np.abs(result["energy_error"])))
        row = f"| mu = {mu:g}, with the option | "
        found += [
            Quantity(f"trolley_ec.mu_{mu:g}.max_energy_error", error, "J", ".1e", TROLLEY,
                     row + "{} J |", roundoff=True),
            Quantity(f"trolley_ec.mu_{mu:g}.dissipated_numerical",
                     float(result["dissipated_numerical"][-1]), "J", ".1e", TROLLEY,
                     row + "{*} J | {} J |"),
        ]  # fmt: skip
        if mu > 0.0:
            x = result.q[:, 0]
            found += [
                Quantity("trolley_ec.largest_energy_term", largest, "J", ".2f", TROLLEY,
                         "the largest energy term, {} J"),
                Quantity("trolley_ec.friction", float(result["dissipated_friction"][-1]), "J",
                         ".3f", TROLLEY, row + "{*} J | {*} J | {} J |"),
                Quantity("trolley_ec.x_min", float(np.min(x)), "m", ".3f", TROLLEY,
                         "(x between {} and"),
                Quantity("trolley_ec.x_max", float(np.max(x)), "m", ".3f", TROLLEY,
                         "and {} m, 5 to 7 node"),
            ]  # fmt: skip
    return found


DENSE = "The one-step contact problem: dense contact"
# (elements, h s, theta) of the dense-contact table; the 32-element string is the reference
DENSE_CASES = (
    (8, 1e-3, 0.55),
    (8, 1e-3, 0.5),
    (8, 5e-4, 0.55),
    (16, 1e-3, 0.55),
    (16, 1e-3, 0.5),
    (32, 1e-3, 0.55),
    (32, 1e-3, 0.5),
)
DENSE_END = 1.5  # s
# The rest of the dropped disk follows its contact path (stick where the string stopped
# sliding, with up to 50 contacts at once), which branches with round-off: the counts and the
# rest heights agree within a spread (the page says so).
DENSE_SPREAD_COUNT = 0.2
DENSE_SPREAD_HEIGHT = 1e-4  # relative: 9e-6 m of the 0.0946 m height
DENSE_SPREAD_DISTANCE = 0.5


def dense_case(case: tuple[int, float, float]):
    """The dropped disk (``eugster_glocker.dropped_disk``) of one case run to 1.5 s under
    Moreau-Jean: (largest number of closed contacts, height of the centre at the end m, the
    largest |energy_error| J, the energy dissipated by friction, impacts and damping J)."""
    from .papers.eugster_glocker import dropped_disk

    n_elements, h, theta = case
    result = dropped_disk(n_elements).run(t_span=(0.0, DENSE_END), h=h, theta=theta)
    if result.status != "finished":
        raise RuntimeError(f"dense contact, {n_elements} elements, h = {h:g} s: {result.message}")
    lost = sum(float(result[k][-1]) for k in
               ("dissipated_friction", "dissipated_impact", "dissipated_damping"))  # fmt: skip
    error = result["energy_error"]
    return int(np.max(result["disk_n_closed"])), float(result.q[-1, 1]), error, lost


def dense_contact(out: Path, scratch: Path) -> list[Quantity]:
    """The dropped disk on the stiff, damped string (101 candidates, mu = 0.2, Moreau-Jean) run
    to rest on 8, 16 and 32 elements: the dense-contact table (two processes)."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=2) as pool:
        rows = dict(zip(DENSE_CASES, pool.map(dense_case, DENSE_CASES), strict=True))
    reference = {theta: rows[(32, 1e-3, theta)][1] for theta in (0.55, 0.5)}
    found = []
    for (n, h, theta), (closed, height, _, _) in rows.items():
        tag = f"dense.{n}_elements.h_{h:g}.theta_{theta:g}"
        if n == 32:
            if theta == 0.5:
                continue
            head = "| 32 elements, 1e-3 s, 0.55 (0.5) | "
            found += [
                Quantity(f"{tag}.max_closed", closed, "1", "d", DENSE, head + "{} |",
                         spread=DENSE_SPREAD_COUNT),
                Quantity(f"{tag}.rest_height", height, "m", ".7f", DENSE, head + "{*} | {} m",
                         spread=DENSE_SPREAD_HEIGHT),
                Quantity("dense.32_elements.h_0.001.theta_0.5.rest_height", reference[0.5], "m",
                         ".7f", DENSE, head + "{*} | {*} m ({} m)", spread=DENSE_SPREAD_HEIGHT),
            ]  # fmt: skip
            continue
        head = f"| {n} elements, {h:.0e} s, {theta:g} | ".replace("e-0", "e-")
        distance = abs(height - reference[0.55])
        found += [
            Quantity(f"{tag}.max_closed", closed, "1", "d", DENSE, head + "{} |",
                     spread=DENSE_SPREAD_COUNT),
            Quantity(f"{tag}.rest_height", height, "m", ".7f", DENSE, head + "{*} | {} m |",
                     spread=DENSE_SPREAD_HEIGHT),
            Quantity(f"{tag}.from_32", distance, "m", ".1e", DENSE,
                     head + "{*} | {*} m | {} m", spread=DENSE_SPREAD_DISTANCE),
        ]  # fmt: skip
        if theta == 0.5:
            same = abs(height - reference[0.5])
            found.append(
                Quantity(f"{tag}.from_32_theta_half", same, "m", ".1e", DENSE,
                         head + "{*} | {*} m | {*} m ({} m) |", spread=DENSE_SPREAD_DISTANCE)
            )  # fmt: skip
    error_55 = float(np.max(np.abs(rows[(8, 1e-3, 0.55)][2])))
    half = [float(rows[(n, 1e-3, 0.5)][2][-1]) for n in (8, 16)]
    found += [
        Quantity("dense.8_elements.theta_0.55.max_energy_error", error_55, "J", ".0e", DENSE,
                 "closes to {} J (8 elements, 0.55", spread=DENSE_SPREAD_DISTANCE),
        Quantity("dense.8_elements.theta_0.5.energy_error", half[0], "J", ".0e", DENSE,
                 "ends at +{} J (8 elements) to", spread=DENSE_SPREAD_DISTANCE),
        Quantity("dense.16_elements.theta_0.5.energy_error", half[1], "J", ".0e", DENSE,
                 "(8 elements) to +{} J (16 elements)", spread=DENSE_SPREAD_DISTANCE),
        Quantity("dense.8_elements.theta_0.55.dissipated", rows[(8, 1e-3, 0.55)][3], "J", ".0f",
                 DENSE, "of {} J dissipated", spread=0.1),
    ]  # fmt: skip
    return found


CAPSTAN = "The capstan: a string over a drum"
CAPSTAN_REFINEMENTS = ((6, 20), (12, 40), (24, 80))  # (elements, candidates)


def capstan_summary(data, system, result, tension) -> dict:
    """The numbers of one capstan run (``demos.capstan.run``): the force held in gross slip,
    the pull at its onset, the tension's lag behind the pull before it, the arc's fitted
    exponent and largest pointwise deviation in slip, the stuck points' largest drift and the
    creep's largest deviation from its closed form at three pulls, the energy balance."""
    from .papers import capstan as cp

    slip = cp.gross_slip(data, result)
    before = data.tight_force(result.t) < 0.98 * data.slip_force
    phi, arc = cp.arc_tension(system, data, result.q[-1])
    spacing = data.length / (data.n_candidates - 1) / data.radius
    drift, creep_error = 0.0, 0.0
    for fraction in (0.25, 0.5, 0.75):
        k = int(
            np.argmin(
                np.abs(
                    data.tight_force(result.t)
                    - data.slack_tension
                    - fraction * (data.slip_force - data.slack_tension)
                )
            )
        )
        force = float(data.tight_force(result.t[k]))
        edge = data.wrap - np.log(force / data.slack_tension) / data.mu
        at, u = cp.drum_relative_displacement(system, data, result.q[0], result.q[k])
        stuck = (at > 0.0) & (at < edge - spacing)
        creeping = (at > edge + spacing) & (at < data.wrap)
        drift = max(drift, float(np.max(np.abs(u[stuck]), initial=0.0)))
        error = np.abs(u[creeping] - cp.creep(data, force, at[creeping]))
        creep_error = max(creep_error, float(np.max(error, initial=0.0)))
    work = float(result["work_loads"][-1])
    return {
        "held": float(np.mean(tension[slip])),
        "onset": float(data.tight_force(result.t[int(np.argmax(slip))])),
        "lag": float(np.max(np.abs(tension[before] - data.tight_force(result.t[before])))),
        "exponent": float(np.polyfit(phi, np.log(arc), 1)[0] / data.mu - 1.0),
        "arc_error": float(np.max(np.abs(arc / data.arc_tension(phi) - 1.0))),
        "drift": drift,
        "creep_error": creep_error,
        "creep_max": float(cp.creep(data, data.slack_tension
                                    + 0.75 * (data.slip_force - data.slack_tension), data.wrap)),
        "energy": float(-result["energy_error"][-1] / work),
        "numerical": float(result["dissipated_numerical"][-1] / work),
        "work": work,
        "friction": float(result["dissipated_friction"][-1]),
    }  # fmt: skip


def capstan(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo capstan`` with its defaults (12 elements, 40 candidates, 1e-3 s):
    the figures ``capstan_end_force.png`` and ``capstan_arc_tension.png`` and the numbers of
    the capstan's page."""
    import shutil

    from .demos.capstan import run
    from .papers.capstan import CapstanData

    data = CapstanData()
    system, result, tension = run(data, out=scratch / "capstan", vtk_stride=None)
    if not result.success:
        raise RuntimeError(f"capstan: {result.message}")
    for name in ("end_force", "arc_tension"):
        shutil.copy(scratch / "capstan" / f"{name}.png", out / f"capstan_{name}.png")
    got = capstan_summary(data, system, result, tension)
    where = CAPSTAN
    return [
        Quantity("capstan.held", got["held"], "N", ".4f", where, "holds {} N while it slips"),
        Quantity("capstan.held_error", 100 * (got["held"] / data.slip_force - 1), "%", ".2f",
                 where, "N while it slips ({} %"),
        Quantity("capstan.onset", got["onset"], "N", ".2f", where, "when the pull reaches {} N"),
        Quantity("capstan.lag", got["lag"], "N", ".3f", where, "lags the pull by at most {} N"),
        Quantity("capstan.exponent", 100 * got["exponent"], "%", ".1f", where,
                 "fitted exponent is {} % off mu"),
        Quantity("capstan.arc_error", 100 * got["arc_error"], "%", ".1f", where,
                 "pointwise within {} %"),
        Quantity("capstan.drift", got["drift"], "m", ".1e", where, "drift by at most {} m"),
        Quantity("capstan.creep_error", got["creep_error"], "m", ".1e", where,
                 "closed form within {} m"),
        Quantity("capstan.creep_max", got["creep_max"], "m", ".1e", where,
                 "creep at the tight end, {} m"),
        Quantity("capstan.energy", got["energy"], "1", ".1e", where,
                 "balance leaves {} of"),
        Quantity("capstan.numerical", 100 * got["numerical"], "%", ".2f", where,
                 "own loss, {} % of"),
    ]  # fmt: skip


def capstan_refinement(out: Path, scratch: Path) -> list[Quantity]:
    """The capstan's slip force on three grids (elements and candidates doubled together)."""
    from .demos.capstan import run
    from .papers.capstan import CapstanData, gross_slip

    found = []
    for n_elements, n_candidates in CAPSTAN_REFINEMENTS:
        data = replace(CapstanData(), n_elements=n_elements, n_candidates=n_candidates)
        system, result, tension = run(data, out=None)
        if not result.success:
            raise RuntimeError(f"capstan {n_elements} elements: {result.message}")
        held = float(np.mean(tension[gross_slip(data, result)]))
        found.append(Quantity(f"capstan.refine_{n_elements}", 1e3 * (held / data.slip_force - 1),
                              "1e-3", ".2f", CAPSTAN, f"| {n_elements} | {n_candidates} | {{}} |"))  # fmt: skip
    return found


TURNING_DRUM = "A drum turned at constant speed"
BELT = "The belt drive: adhesion and creep on two pulleys"


def turning_drum(out: Path, scratch: Path) -> list[Quantity]:
    """The capstan's drum driven at -2 rad/s and +2 rad/s (``papers.capstan.turning_drum``,
    defaults: 12 elements, 40 candidates, h = 1e-3 s, 0.15 s, the rows from 0.075 s averaged):
    the anchor's tension and the drive's torque against Euler-Eytelwein."""
    from .papers import capstan as cp

    data = cp.CapstanData()
    got = {}
    for speed in (-2.0, 2.0):
        scenario = cp.turning_drum(data, speed)  # Moreau-Jean, h = 1e-3 s, theta 0.55, 0.15 s
        system = scenario.assemble()
        result = scenario.run(system)
        if not result.success:
            raise RuntimeError(f"turning drum: {result.message}")
        rows = result.t >= 0.075 - 1e-12
        got[speed] = (
            float(np.mean(cp.tight_tension(system, result.q)[rows])),
            float(np.mean(np.asarray(result["drive_0_force"])[rows])),
        )
    low = data.slack_tension * np.exp(-data.mu * data.wrap)
    where = TURNING_DRUM
    return [
        Quantity("turning_drum.tension", got[-2.0][0], "N", ".4f", where, "the anchor holds {} N"),
        Quantity("turning_drum.torque", -got[-2.0][1], "N m", ".4f", where,
                 "the drive's torque is {} N m"),
        Quantity("turning_drum.tension_back", got[2.0][0], "N", ".4f", where,
                 "which then keeps {} N against"),
        Quantity("turning_drum.tension_back_error", 100 * (got[2.0][0] / low - 1), "%", ".2f",
                 where, "N against T_slack e^(-mu theta) ({} %"),
    ]  # fmt: skip


BELT_DEMO = "Files and figures of the belt drive demo"


def belt_drive(out: Path, scratch: Path) -> list[Quantity]:
    """``fe-contact demo belt-drive`` with its defaults (``papers.belt.belt_drive``: 30
    elements, 88 candidates per pulley, h = 1e-3 s, 0.4 s; the rows from 0.2 s averaged): span
    tensions, the driver's torque, the speed ratio, the slip on the adhesion and creep arcs,
    the creep arcs fitted to the candidates' states, the energy balance; the figure
    ``belt_drive_arc_states.png``."""
    import shutil

    from .demos import belt_drive as demo
    from .papers import belt as bp

    data = bp.BeltData()
    system, result, summary = demo.run(data, out=scratch / "belt-drive", vtk_stride=None)
    if not result.success:
        raise RuntimeError(f"belt drive: {result.message}")
    shutil.copy(scratch / "belt-drive" / "arc_states.png", out / "belt_drive_arc_states.png")
    got = bp.steady_summary(system, data, result, demo.STEADY * result.t[-1])
    arcs = {name: simulated for name, simulated, *_ in summary}
    work = float(result["work_drives"][-1])
    numerical = float(result["dissipated_numerical"][-1])
    error = float(result["energy_error"][-1])
    where = BELT
    loss = 100 * ((1 - got["ratio"]) / (1 - data.speed_ratio) - 1)
    return [
        Quantity("belt.tight", got["tight"], "N", ".4f", where, "upper span carries {} N"),
        Quantity("belt.slack", got["slack"], "N", ".4f", where, "lower span {} N"),
        Quantity("belt.torque", got["torque"], "N m", ".4f", where, "driver's torque {} N m"),
        Quantity("belt.ratio", got["ratio"], "1", ".5f", where, "speed ratio is {} against"),
        Quantity("belt.loss_error", loss, "%", ".1f", where, "speed loss {} % off"),
        Quantity("belt.adhesion_0", 100 * got["adhesion_slip_0"], "%", ".2f", where,
                 "adhesion arcs is {} %"),
        Quantity("belt.adhesion_1", 100 * got["adhesion_slip_1"], "%", ".2f", where,
                 "% (driver) and {} % (driven)"),
        Quantity("belt.creep_0", 100 * (got["creep_slip_0"] / got["creep_closed_0"] - 1), "%",
                 ".1f", where, "closed form within {} % on the driver"),
        Quantity("belt.creep_1", 100 * (got["creep_slip_1"] / got["creep_closed_1"] - 1), "%",
                 ".1f", where, "and {} % on the driven pulley"),
        Quantity("belt.numerical", 100 * numerical / work, "%", ".2f", where,
                 "own loss, {} % of the driver's work"),
        Quantity("belt.energy", error / work, "1", ".1e", where, "balance leaves {} of the"),
        Quantity("belt.creep_arc_driver", arcs["creep_arc_driver"], "rad", ".2f", BELT_DEMO,
                 "creep arc of {} rad on the driver"),
        Quantity("belt.creep_arc_driven", arcs["creep_arc_driven"], "rad", ".2f", BELT_DEMO,
                 "and {} rad on the driven pulley"),
    ]  # fmt: skip


CLOSED_BELT = "A closed belt: pre-tension by the centre distance"
CLOSED_BELT_GRIDS = ((20, 56, 2e-3), (30, 88, 1e-3), (45, 132, 1e-3))  # elements, candidates, h


def closed_belt_refinement(out: Path, scratch: Path) -> list[Quantity]:
    """The closed belt drive (``papers.belt.closed_belt_drive``) on three grids
    (``CLOSED_BELT_GRIDS``; 0.4 s, the rows from 0.2 s averaged): span tensions, the driver's
    torque, the speed loss and the energy balance against the driver's work."""
    from .papers import belt as bp

    found = []
    for n_elements, n_candidates, h in CLOSED_BELT_GRIDS:
        data = replace(bp.ClosedBeltData(), n_elements=n_elements, n_candidates=n_candidates)
        scenario = bp.closed_belt_drive(data)
        system = scenario.assemble()
        result = scenario.run(system, h=h, keep_reports=True)
        if not result.success:
            raise RuntimeError(f"closed belt drive: {result.message}")
        got = bp.steady_summary(system, data, result)
        work = float(result["work_drives"][-1])
        error = float(np.max(np.abs(result["energy_error"]))) / work
        row = f"| {n_elements} | {n_candidates} | {h * 1e3:g} |"
        key = f"closed_belt.{n_elements}"
        found += [
            Quantity(f"{key}.tight", got["tight"], "N", ".4f", CLOSED_BELT, row + " {} |"),
            Quantity(f"{key}.slack", got["slack"], "N", ".4f", CLOSED_BELT, row + " {*} | {} |"),
            Quantity(f"{key}.torque", got["torque"], "N m", ".4f", CLOSED_BELT,
                     row + " {*} | {*} | {} |"),
            Quantity(f"{key}.loss", 100 * (1 - got["ratio"]), "%", ".2f", CLOSED_BELT,
                     row + " {*} | {*} | {*} | {} |"),
            Quantity(f"{key}.energy", error, "1", ".1e", CLOSED_BELT,
                     row + " {*} | {*} | {*} | {*} | {} |"),
        ]  # fmt: skip
    return found


RUNS: dict[str, Callable[[Path, Path], list[Quantity]]] = {
    "manipulator": manipulator,
    "manipulator-reversal": manipulator_reversal,
    "slider-on-string": slider_on_string,
    "disk-on-beam": disk_on_beam,
    "friction-oscillator": friction_oscillator,
    "sliding-mass-frame": sliding_mass_frame,
    "capstan": capstan,
    "turning-drum": turning_drum,
}
LONG_RUNS: dict[str, Callable[[Path, Path], list[Quantity]]] = {
    "trolley-energy": trolley_energy,  # about 6 min on one core
    "pin-on-wheel": pin_on_wheel,  # about 2 min on two cores
    "cam-lock": cam_lock,  # 2-7 min per case, four cases on two cores
    "dense-contact": dense_contact,  # about 4 min on two cores
    "capstan-refinement": capstan_refinement,  # about 30 s on one core
    "belt-drive": belt_drive,  # about 50 s on one core
    "closed-belt": closed_belt_refinement,  # about 4 min on one core
}
ALL_RUNS = {**RUNS, **LONG_RUNS}


FIGURES = {  # the README's figures, by the run that draws them
    "manipulator": ("manipulator_torque.png", "manipulator_configuration.png"),
    "sliding-mass-frame": ("sliding_mass.png",),
    "capstan": ("capstan_end_force.png", "capstan_arc_tension.png"),
    "belt-drive": ("belt_drive_arc_states.png",),  # a long run: --only belt-drive
}


__all__ = ["ALL_RUNS", "DENSE_CASES", "FIGURES", "LONG_RUNS", "RUNS", "cam_case", "dense_case"]
