"""The figures and simulated numbers of the README and its in-depth pages, recomputed by one
command.

The README (``README.md``) and the pages it links to (``docs/details/*.md``, also part of the
documentation site) are "the pages" below; "the README" in a location means one of them.
``python -m fe_contact.docs_figures [--out DIR] [--only RUN ...] [--quick] [--list] [--check]``
runs their simulations through the demos' and papers' own functions (nothing here is physics),
writes their figures (PNG, and SVG where the demo writes both) to ``DIR`` (default ``docs``,
where the pages take them from), prints a table of every number the pages quote from these
runs (name, value as quoted, unit, location) and writes it to ``DIR/readme_numbers.csv``.

Each number is a :class:`Quantity`: its value, the format in which the pages quote it, and its
place (a section heading and the text around it, with ``{}`` where the number stands; headings
are unique across the pages). ``locate`` finds that place, so a test can check that the pages
quote what the command computes: the quoted number equals the computed one rounded to the quoted format.
Numbers at round-off level (``roundoff=True``: residuals and balance errors of 1e-10 J and
below) are sums of rounding errors that differ between BLAS kernels; the README quotes them as
measured, and the check is that the computed one lies within a factor of 10 of it.

Numbers that follow a chaotic path (counts of stick intervals in a vibrating contact, which
change with the last bit of a BLAS sum) carry ``spread``: they agree when within that relative
distance of the quoted one, and the README says that they are chaotic.

Runs in ``LONG_RUNS`` (the pin on the wheel, the cam lock, the energy-consistent trolley) take
minutes to tens of minutes; the command runs them unless ``--quick``; the suite runs the others.
Timings are not here: they depend on the machine, and the README labels them as measured on our
2-core machine. Not covered yet: the dense-contact table (the runs of
``tests/test_dense_contact.py``), the cam lock's sensitivity study (pin position, rigid
support), the benchmarks' errors, and the numbers in the prose of the sections on stick-slip,
dissipation, statics and the property tests, which the tests measure.
"""

from __future__ import annotations

import csv
import itertools
import math
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]  # the source checkout (when not installed)
README = ROOT / "README.md"
DETAILS = Path("docs") / "details"  # the in-depth pages, relative to a checkout
NUMBER = r"(-?[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)"
ROUNDOFF_FACTOR = 10.0  # how far a round-off level number may differ from the quoted one


@dataclass(frozen=True)
class Quantity:
    """One number the README quotes from a simulation.

    name : a dotted identifier (``manipulator.mu_0.2.mean_torque``). value : the computed value
    in ``unit`` (SI). fmt : the format spec in which the README quotes it. section : the README
    heading (without the hashes) under which it stands. text : the README text around it, with
    ``{}`` where the number stands and ``{*}`` for other numbers in between; a text that starts with ``|`` is a table row, found at
    the start of a line.
    roundoff : a number at round-off level (see the module docstring).
    spread : for a number that follows a chaotic path, the relative distance within which it
    agrees with the quoted one (0: it agrees when equal after rounding).
    """

    name: str
    value: float
    unit: str
    fmt: str
    section: str
    text: str
    roundoff: bool = False
    spread: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "value", float(self.value))

    @property
    def quoted(self) -> str:
        """The value as the README quotes it (a count, format ``d``, as an integer)."""
        if self.fmt == "d":
            return str(round(self.value))
        return format(self.value, self.fmt)

    @property
    def location(self) -> str:
        return f"{self.section}: {self.text}"


def pages(root=ROOT) -> list[Path]:
    """The README and the in-depth pages of the checkout at ``root``."""
    root = Path(root)
    return [root / "README.md", *sorted((root / DETAILS).glob("*.md"))]


def pages_text(root=ROOT) -> str:
    """The pages of the checkout at ``root``, joined (``locate`` looks for sections in it);
    FileNotFoundError naming the README when ``root`` has none."""
    found = pages(root)
    if not found[0].is_file():
        raise FileNotFoundError(f"no README.md in {root}: a source checkout is needed")
    return "\n\n".join(path.read_text() for path in found)


def readme_sections(text: str) -> dict[str, str]:
    """The README's sections by heading (without the hashes): the text from the heading to the
    next heading of any level."""
    parts = re.split(r"^#{1,6} (.+)$", text, flags=re.M)
    return {parts[k].strip(): parts[k + 1] for k in range(1, len(parts) - 1, 2)}


def locate(quantity: Quantity, readme_text: str) -> str:
    """The number the README quotes for ``quantity`` (as written). ValueError when its section
    is missing or its text does not occur there exactly once."""
    sections = readme_sections(readme_text)
    if quantity.section not in sections:
        raise ValueError(f"{quantity.name}: the pages have no section {quantity.section!r}")
    if quantity.text.count("{}") != 1:
        raise ValueError(f"{quantity.name}: text must hold one '{{}}', got {quantity.text!r}")
    pattern = r"\s+".join(re.escape(word) for word in quantity.text.split())
    pattern = pattern.replace(re.escape("{*}"), r"-?[0-9.e+-]+").replace(re.escape("{}"), NUMBER)
    if quantity.text.startswith("|"):  # a table row: from the start of a line
        pattern = "^" + pattern
    found = re.findall(pattern, sections[quantity.section], flags=re.M)
    if len(found) != 1:
        raise ValueError(
            f"{quantity.name}: {quantity.text!r} occurs {len(found)} times in the section "
            f"{quantity.section!r}; allowed: exactly once"
        )
    return found[0]


def agrees(quantity: Quantity, quoted: str) -> bool:
    """True when the README's ``quoted`` number is the computed value: equal to it rounded to
    the quoted format, or (round-off level) within ``ROUNDOFF_FACTOR`` of it, or (chaotic)
    within its ``spread``."""
    if quantity.roundoff:
        ratio = abs(quantity.value) / float(quoted)
        return 1.0 / ROUNDOFF_FACTOR <= ratio <= ROUNDOFF_FACTOR
    if quantity.spread > 0.0:
        return abs(quantity.value - float(quoted)) <= quantity.spread * abs(float(quoted))
    return float(quoted) == float(quantity.quoted)


# -- the runs: each calls a demo's or a paper's functions, writes its figures and returns the
# -- numbers the README quotes from it -----------------------------------------------------------


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
        columns = (
            ("torque_after_1s", row["torque_after_1s [N m]"], "N m", ".0f", 1.0),
            ("max_normal_force", row["max_normal_force [N]"], "kN", ".1f", 1e-3),
            ("friction_work", row["friction_work [J]"], "J", ".1f", 1.0),
            ("drive_work", row["work_drives [J]"], "J", ".1f", 1.0),
            ("max_energy_error", row["max_abs_energy_error [J]"], "J", ".2g", 1.0),
        )
        for k, (name, value, unit, fmt, scale) in enumerate(columns):
            text = head + " | ".join(cells[:k] + [cells[k].replace("{*}", "{}")])
            found.append(
                Quantity(f"cam_lock.case_{case}.{name}", value * scale, unit, fmt, CAM, text)
            )
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


RUNS: dict[str, Callable[[Path, Path], list[Quantity]]] = {
    "manipulator": manipulator,
    "manipulator-reversal": manipulator_reversal,
    "slider-on-string": slider_on_string,
    "disk-on-beam": disk_on_beam,
    "friction-oscillator": friction_oscillator,
    "sliding-mass-frame": sliding_mass_frame,
}
LONG_RUNS: dict[str, Callable[[Path, Path], list[Quantity]]] = {
    "trolley-energy": trolley_energy,  # about 6 min on one core
    "pin-on-wheel": pin_on_wheel,  # about 2 min on two cores
    "cam-lock": cam_lock,  # 2-7 min per case, four cases on two cores
}
ALL_RUNS = {**RUNS, **LONG_RUNS}


FIGURES = {  # the README's figures, by the run that draws them
    "manipulator": ("manipulator_torque.png", "manipulator_configuration.png"),
    "sliding-mass-frame": ("sliding_mass.png",),
}


def compute(out, only=None, quick=False) -> list[Quantity]:
    """Run ``only`` (names of ``ALL_RUNS``; None: all, or with ``quick`` those of ``RUNS``),
    write their figures to ``out`` and return their quantities."""
    if only is None:
        names = list(RUNS if quick else ALL_RUNS)
    else:
        names = list(only)
    unknown = [name for name in names if name not in ALL_RUNS]
    if unknown:
        raise ValueError(f"only: unknown run {unknown[0]!r}; allowed: {', '.join(ALL_RUNS)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    found: list[Quantity] = []
    with tempfile.TemporaryDirectory(prefix="fe_contact_docs_") as scratch:
        for name in names:
            found += ALL_RUNS[name](out, Path(scratch))
    return found


def format_table(quantities: list[Quantity]) -> str:
    """The quantities as a text table: name, value as quoted, unit, README location."""
    rows = [("name", "value", "unit", "README location")]
    rows += [(q.name, q.quoted, q.unit, q.location) for q in quantities]
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in rows
    )


def write_table(quantities: list[Quantity], path) -> Path:
    """``path``: a CSV of name, value (full precision), quoted, unit, section, text."""
    path = Path(path)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["name", "value", "quoted", "unit", "roundoff", "section", "text"])
        for q in quantities:
            writer.writerow(
                [q.name, repr(q.value), q.quoted, q.unit, q.roundoff, q.section, q.text]
            )
    return path


def check_readme(quantities: list[Quantity], readme_text: str) -> list[str]:
    """The disagreements between the README and the computed quantities, one line each."""
    problems = []
    for q in quantities:
        try:
            quoted = locate(q, readme_text)
        except ValueError as err:
            problems.append(str(err))
            continue
        if not (math.isfinite(q.value) and agrees(q, quoted)):
            problems.append(f"{q.name}: README quotes {quoted}, computed {q.quoted} {q.unit}")
    return problems


def main(argv=None) -> int:
    from .demos import DemoParser, folder

    parser = DemoParser(prog="python -m fe_contact.docs_figures", description=__doc__)
    parser.add_argument(
        "--out", dest="folder", type=folder, default=Path("docs"),
        help="folder for the figures and readme_numbers.csv (default: docs)",
    )  # fmt: skip
    parser.add_argument(
        "--only", nargs="+", default=None, metavar="RUN",
        help=f"run only these (allowed: {', '.join(ALL_RUNS)})",
    )  # fmt: skip
    parser.add_argument(
        "--quick", action="store_true",
        help=f"leave out the long runs ({', '.join(LONG_RUNS)}: tens of minutes)",
    )  # fmt: skip
    parser.add_argument("--list", action="store_true", help="list the runs and exit")
    parser.add_argument(
        "--check", action="store_true",
        help="compare with the pages; exit 1 when a number disagrees",
    )  # fmt: skip
    parser.add_argument(
        "--root", type=Path, default=None,
        help="the source checkout whose README.md and docs/details/*.md --check reads "
        "(default: this package's checkout, else .)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    root = args.root or (ROOT if README.exists() else Path("."))
    if args.check and not (root / "README.md").is_file():
        parser.fail("--root", str(root), "a source checkout with a README.md (needed by --check)")
    if args.list:
        for name, fn in ALL_RUNS.items():
            print(f"{name}: {' '.join(fn.__doc__.split(chr(10) * 2)[0].split())}")
        return 0
    for name in args.only or ():
        if name not in ALL_RUNS:
            parser.fail("--only", name, ", ".join(ALL_RUNS))
    if args.quick and args.only:
        parser.fail("--quick", "with --only", "one of --quick and --only")
    quantities = compute(args.folder, args.only, args.quick)
    print(format_table(quantities))
    print(f"wrote {write_table(quantities, args.folder / 'readme_numbers.csv')}")
    if args.check:
        problems = check_readme(quantities, pages_text(root))
        for line in problems:
            print(f"the pages disagree: {line}", file=sys.stderr)
        return 1 if problems else 0
    return 0


__all__ = [
    "ALL_RUNS",
    "FIGURES",
    "LONG_RUNS",
    "RUNS",
    "Quantity",
    "check_readme",
    "compute",
    "format_table",
    "locate",
    "main",
    "pages",
    "pages_text",
]


if __name__ == "__main__":
    sys.exit(main())
