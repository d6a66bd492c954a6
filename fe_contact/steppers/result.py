"""What a step reports and what a run returns: one vocabulary for every stepper.

Every stepper's ``step()`` returns a ``StepReport``: the new state, one ``ContactReport`` per
contact pair of the model, the drive and loop forces, and the work done over the step by
drives, applied loads, damping, friction and impacts. ``simulate`` turns the reports into rows
of named scalar columns (``history_columns`` / ``history_row``, the vocabulary of
shared/DESIGN.md, SI units) for the CSV observer and the ``SimulationResult``; each column is
defined once, with its unit and how it is read from a report (``CONTACT_COLUMNS``,
``ROUGH_COLUMNS``, ``BALANCE_COLUMNS``).

Columns: ``t [s]``; per contact ``<name>_state`` (slip, stick, open), ``<name>_normal_force
[N]``, ``<name>_friction_force [N]``, ``<name>_normal_impulse [N s]``, ``<name>_friction_impulse
[N s]``, ``<name>_slip_velocity [m/s]``, ``<name>_gap [m]``, ``<name>_parameter [m]``,
``<name>_n_closed`` (closed contact points); per rough pair (a ``Polyline`` on a ``Wheel``) also
``<name>_impulse_x``, ``<name>_impulse_y`` [N s] (its whole impulse on the profile over the step,
impacts included, in the plane's axes), ``<name>_normal_impulse_x``, ``<name>_normal_impulse_y``
[N s] (the part along the contact normals) and ``<name>_loss_profile``, ``<name>_loss_target``
[J] (the loss booked on each polyline since the start, Slavic-Boltezar (003), eqs. (18)-(20));
per drive ``<name>_force [N m]`` (revolute joint) or ``[N]`` (prismatic); the balance
``kinetic_energy``, ``potential_energy``, ``elastic_energy``, ``work_drives``, ``work_loads``,
``dissipated_damping``, ``dissipated_friction``, ``dissipated_impact``,
``dissipated_numerical`` (the algorithmic dissipation of the generalised-alpha scheme with
rho_inf < 1, ``numerical_dissipation``, and of Moreau-Jean's theta-method with theta > 1/2,
``steppers.moreau``; 0 for the event-driven stepper), ``work_contact_timing`` (the
energy a Moreau-Jean step's impulses give where they act along the start velocity, >= 0,
``impulse_work``; 0 for the other steppers), ``energy_error`` (J), ``friction_power [W]``
(sum of F_t v_t over the closed contact points at the reported state, <= 0),
``residual_position [m]``, ``residual_velocity [m/s]``, the parts ``tree_kinetic_energy``,
``structure_kinetic_energy``, ``structure_elastic_energy`` (J) and the energy of each part
(``part_energies``: ``tree_potential_energy``, ``tree_elastic_energy``, per structure
``<name>_kinetic_energy``, ``<name>_elastic_energy``, ``<name>_potential_energy``, J), and the
stepper's effort in the
step: ``n_newton`` (iterations), ``n_substeps``, ``solver_residual [m/s]`` (contact laws);
last, per tree joint ``<joint>_q [rad or m]`` and ``<joint>_u [rad/s or m/s]`` (``Joint.name``,
default ``joint_<i>``) and the columns of the model's sensors (``fe_contact.sensors``),
evaluated from the reported state.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..columns import (
    BALANCE_COLUMNS,
    CONTACT_COLUMNS,
    ROUGH_COLUMNS,
    WORK_KEYS,
    Column,
    history_columns,
)
from ..part_energies import part_energies
from ..sensors import state_values
from ..system import Energies, System

CONTACT_STATES = ("slip", "stick", "open", "taut", "slack")  # taut, slack: a Dropper
STATE_CODES = {"open": 0, "slip": 1, "stick": 2, "taut": 3, "slack": 4}  # as numbers in files
STICK_SPEED = 1e-6  # m/s: a pressed point of a grid slipping slower than this sticks


@dataclass(frozen=True, eq=False)
class ContactReport:
    """One contact pair at the end of a step.

    k below is the number of its contact points: 1 for a closest-point contact, the closed
    candidates of a grid, 0 when open.

    Parameters
    ----------
    name : str
        The pair's name.
    state : str
        "slip", "stick" or "open" (a compliant contact or a link: its own states).
    point : ndarray, shape (k, 2)
        Contact points on the target, m.
    normal : ndarray, shape (k, 2)
        Unit normals, from the target to the profile.
    tangent : ndarray, shape (k, 2)
        Unit tangents.
    parameter : ndarray, shape (k,)
        Material coordinate s, m (NaN on a line).
    gap : ndarray, shape (k,)
        Gaps, m.
    slip_velocity : ndarray, shape (k,)
        Slip velocities, m/s.
    normal_force : ndarray, shape (k,)
        Force on the profile along the normal, N (for an impulsive stepper the mean force of
        the step, impulse / h).
    friction_force : ndarray, shape (k,)
        Force on the profile along the tangent, N (mean force for an impulsive stepper).
    normal_impulse : ndarray, shape (k,)
        The normal force integrated over the step, N s.
    friction_impulse : ndarray, shape (k,)
        The friction force integrated over the step, N s.
    min_gap : float
        Smallest gap of the pair at the end of the step (all its points or candidates), m; it
        is the only value that is meaningful while the pair is open.
    point_state : tuple of str, shape (k,), optional
        The state of each point, "slip", "stick" or "open" (a closed candidate that took no
        normal impulse), from the stepper (``point_states``); None: each point is in the
        pair's ``state`` (a closest-point contact's one point). ``states`` gives it always.

    Examples
    --------
    The resting mass of ``StepReport``'s example: one closed point; its normal force is a
    little more than m g = 0.4905 N because the deflected beam's normal leans (as in the static
    solution, 0.4911 N):

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> contact = result.reports[-1].contacts[0]
    >>> contact.n_points, round(float(contact.normal_force[0]), 4)
    (1, 0.4911)
    """

    name: str
    state: str
    point: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    parameter: np.ndarray
    gap: np.ndarray
    slip_velocity: np.ndarray
    normal_force: np.ndarray
    friction_force: np.ndarray
    normal_impulse: np.ndarray
    friction_impulse: np.ndarray
    min_gap: float
    point_state: tuple[str, ...] | None = None

    @property
    def n_points(self) -> int:
        return int(self.gap.size)

    @property
    def states(self) -> tuple[str, ...]:
        """The state of each of the k points (``point_state``, or the pair's state for each)."""
        if self.point_state is not None:
            return tuple(self.point_state)
        return (self.state,) * self.n_points

    @property
    def state_codes(self) -> np.ndarray:
        """The states of the k points as the numbers of ``STATE_CODES`` (0 open, 1 slip, 2
        stick), int32, shape (k,)."""
        return np.array([STATE_CODES[s] for s in self.states], dtype=np.int32).reshape(-1)

    @property
    def main(self) -> int:
        """Index of the point with the largest normal force (-1 when there is none)."""
        if self.gap.size == 0:
            return -1
        return int(np.argmax(self.normal_force))


@dataclass(frozen=True, eq=False)
class RoughContactReport(ContactReport):
    """The report of a rough pair (a ``Polyline`` on a ``Wheel``).

    Its k points are the closed point-segment contacts of the step, with the impulses of the
    step (impact and smooth motion); its fields are those of ``ContactReport`` and four more.

    Parameters
    ----------
    name : str
        The pair's name.
    state : str
        "slip", "stick" or "open".
    point : ndarray, shape (k, 2)
        Contact points, m.
    normal : ndarray, shape (k, 2)
        Unit contact normals.
    tangent : ndarray, shape (k, 2)
        Unit tangents.
    parameter : ndarray, shape (k,)
        NaN (no material coordinate on a polyline pair).
    gap : ndarray, shape (k,)
        Gaps, m.
    slip_velocity : ndarray, shape (k,)
        Slip velocities, m/s.
    normal_force : ndarray, shape (k,)
        Mean normal forces of the step (impulse / h), N.
    friction_force : ndarray, shape (k,)
        Mean friction forces of the step, N.
    normal_impulse : ndarray, shape (k,)
        Normal impulses of the step, N s.
    friction_impulse : ndarray, shape (k,)
        Friction impulses of the step, N s.
    min_gap : float
        Smallest gap of the pair at the end of the step, m.
    point_state : tuple of str, shape (k,), optional
        The state of each point, "slip", "stick" or "open" (``point_states``); None: each
        point is in the pair's ``state``.
    impulse_xy : ndarray, shape (2,), optional
        The pair's whole impulse on the profile over the step, plane axes, N s.
    normal_impulse_xy : ndarray, shape (2,), optional
        Its part along the contact normals, N s.
    loss_profile : float, optional
        The loss booked on the profile's vertices since the start of the run, J
        (Slavic-Boltezar (003), eqs. (18)-(20)).
    loss_target : float, optional
        The loss booked on the rim's vertices since the start of the run, J.

    Examples
    --------
    An open rough pair carries no impulse:

    >>> from fe_contact.steppers.result import RoughContactReport, open_contact
    >>> report = RoughContactReport(**vars(open_contact("pin", 1e-4)))
    >>> report.impulse_xy.tolist(), report.loss_profile
    ([0.0, 0.0], 0.0)
    """

    impulse_xy: np.ndarray = field(default_factory=lambda: np.zeros(2))
    normal_impulse_xy: np.ndarray = field(default_factory=lambda: np.zeros(2))
    loss_profile: float = 0.0
    loss_target: float = 0.0


@dataclass(frozen=True, eq=False)
class ProfileLosses:
    """The loss of mechanical energy W per vertex of a rough pair's polylines over a run.

    Slavic-Boltezar (003), eqs. (18)-(20), the input of the re-shaping of 003 eqs. (16)-(17).

    Parameters
    ----------
    name : str
        The pair's name.
    profile : ndarray, shape (n_profile,)
        Loss on the Polyline's vertices, J.
    target : ndarray, shape (n_rim,)
        Loss on the Wheel's rim vertices, J.

    Examples
    --------
    >>> from fe_contact.steppers.result import ProfileLosses
    >>> losses = ProfileLosses("pin", profile=np.array([0.0, 1e-4, 3e-4]), target=np.zeros(720))
    >>> print(f"{losses.profile.sum():.4g} J on the pin, {losses.target.sum():.4g} J on the rim")
    0.0004 J on the pin, 0 J on the rim
    """

    name: str
    profile: np.ndarray
    target: np.ndarray


def point_states(normal_impulse, slip_velocity, mu: float) -> tuple[str, ...]:
    """The state of each closed point of a grid or polyline over an impulsive step: "open"
    where it took no normal impulse (P_N = 0: closed by its gap, but not pressed), "stick"
    where it was pressed and slips slower than ``STICK_SPEED`` with mu > 0, else "slip".

    Parameters
    ----------
    normal_impulse : array_like, shape (k,)
        Normal impulses of the step, N s.
    slip_velocity : array_like, shape (k,)
        Slip velocities at the end of the step, m/s.
    mu : float
        The pair's friction coefficient.

    Returns
    -------
    tuple of str, shape (k,)
        "open", "stick" or "slip" per point.

    Examples
    --------
    >>> from fe_contact.steppers.result import pair_state, point_states
    >>> states = point_states([1e-3, 1e-3, 0.0], [0.0, 0.02, 0.5], mu=0.3)
    >>> states, pair_state(states)
    (('stick', 'slip', 'open'), 'slip')
    """
    pressed = np.asarray(normal_impulse, dtype=float) > 0.0
    still = np.abs(np.asarray(slip_velocity, dtype=float)) <= STICK_SPEED
    return tuple(
        "open" if not p else "stick" if s and mu > 0.0 else "slip"
        for p, s in zip(pressed, still, strict=True)
    )


def pair_state(states) -> str:
    """The state of a pair from its points' (``point_states``): "stick" when at least one
    point sticks and none slips, else "slip" (also when no point is pressed).

    Parameters
    ----------
    states : sequence of str
        The points' states, "open", "stick" or "slip".

    Returns
    -------
    str
        "stick" or "slip".

    Examples
    --------
    >>> from fe_contact.steppers.result import pair_state
    >>> pair_state(("stick", "open", "stick")), pair_state(("open", "open"))
    ('stick', 'slip')
    """
    return "stick" if "stick" in states and "slip" not in states else "slip"


def point_contact(name: str, state: str, c, normal: float, friction: float, h: float):
    """The report of a pair closed at the one point of its ``ContactKinematics``.

    Parameters
    ----------
    name : str
        The pair's name.
    state : str
        "slip" or "stick".
    c : ContactKinematics
        The contact point's kinematics (point, normal, tangent, parameter, gap, slip
        velocity).
    normal : float
        Normal force, N.
    friction : float
        Friction force, N.
    h : float
        The step, s; the impulses are the forces times h.

    Returns
    -------
    ContactReport
        The report, with one point (k = 1).

    Examples
    --------
    The impulses are the forces times the step:

    >>> from types import SimpleNamespace
    >>> from fe_contact.steppers.result import point_contact
    >>> c = SimpleNamespace(point=np.array([0.3, 0.0]), normal=np.array([0.0, 1.0]),
    ...                     tangent=np.array([1.0, 0.0]), parameter=0.3, gap=0.0, slip_velocity=0.1)
    >>> report = point_contact("tip", "slip", c, normal=2.0, friction=-0.4, h=1e-3)
    >>> report.normal_impulse.tolist(), report.friction_impulse.tolist()
    ([0.002], [-0.0004])
    """
    return ContactReport(
        name=name,
        state=state,
        point=c.point[None, :],
        normal=c.normal[None, :],
        tangent=c.tangent[None, :],
        parameter=np.array([c.parameter]),
        gap=np.array([c.gap]),
        slip_velocity=np.array([c.slip_velocity]),
        normal_force=np.array([normal]),
        friction_force=np.array([friction]),
        normal_impulse=np.array([normal * h]),
        friction_impulse=np.array([friction * h]),
        min_gap=c.gap,
    )


def open_contact(name: str, min_gap: float) -> ContactReport:
    """The report of a pair with no closed point.

    Parameters
    ----------
    name : str
        The pair's name.
    min_gap : float
        Smallest gap of the pair, m.

    Returns
    -------
    ContactReport
        State "open", with no points (k = 0).

    Examples
    --------
    >>> from fe_contact.steppers.result import open_contact
    >>> report = open_contact("tip", min_gap=0.002)
    >>> report.state, report.n_points, report.main, report.min_gap
    ('open', 0, -1, 0.002)
    """
    empty = np.zeros(0)
    return ContactReport(
        name=name,
        state="open",
        point=np.zeros((0, 2)),
        normal=np.zeros((0, 2)),
        tangent=np.zeros((0, 2)),
        parameter=empty,
        gap=empty,
        slip_velocity=empty,
        normal_force=empty,
        friction_force=empty,
        normal_impulse=empty,
        friction_impulse=empty,
        min_gap=float(min_gap),
    )


@dataclass(frozen=True, eq=False)
class StepReport:
    """The state at the end of a step and what happened during it.

    Parameters
    ----------
    t : float
        Time, s.
    q : ndarray, shape (n,)
        The new coordinates, m and rad.
    u : ndarray, shape (n,)
        The new velocities, m/s and rad/s.
    contacts : tuple of ContactReport
        One per ContactPair of the model.
    drive_forces : ndarray, shape (n_drives,)
        Drive torques (N m) or forces (N).
    multipliers : ndarray, shape (m,)
        The bilateral constraint forces by ``Model.constraint_names()`` (the partitioned
        stepper; zeros where unknown).
    work : dict of str to float
        WORK_KEYS -> J done over the step (drives, loads; dissipated by damping, friction,
        impacts: >= 0; dissipated by the integration scheme itself).
    residual_position : float, optional
        Largest bilateral constraint residual at the new state, m.
    residual_velocity : float, optional
        Largest bilateral velocity constraint residual at the new state, m/s.
    h : float, optional
        The step, s.
    n_newton : int, optional
        Iterations of the step (Newton iterations of the generalised-alpha step; sweeps of the
        contact solver of a Moreau-Jean step).
    n_substeps : int, optional
        Sub-steps taken (1, the default, unless the step was subdivided).
    solver_residual : float, optional
        Largest violation of the contact laws left by the contact solver in the step, m/s (0
        without closed contacts or for the partitioned stepper).
    energy : Energies or None, optional
        ``system.energies`` at the new state when the stepper computed them anyway, else
        None.
    acceleration : ndarray, shape (n,), or None, optional
        The generalised accelerations q'' at the new state, or None (unknown): the
        generalised-alpha stepper's q''_n+1, which satisfies the equations of motion at the
        end of the step (Lipinski (002), eqs. 78a-b); for the impulsive steppers (Moreau-Jean,
        event-driven) the mean over the step, (u_n+1 - u_n) / h, impacts included (as their
        forces are the mean forces impulse / h); None in their initial report.

    Examples
    --------
    A mass resting on a cantilever, three Moreau-Jean steps from its static equilibrium
    (``keep_reports=True``): the last step's report:

    >>> from fe_contact import (BeamSpec, Body, ContactPair, Joint, Model, Point, TreeModel,
    ...                         Unilateral, assemble, simulate, static_equilibrium)
    >>> tree = TreeModel(bodies=(Body(0.05, 0.0),),
    ...                  joints=(Joint("prismatic", location=(0.3, 0.0), angle=np.pi / 2),))
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(tree=tree, structures={"beam": strip},
    ...                         contacts=(ContactPair("mass", Point(0), "beam", Unilateral()),)))
    >>> rest = static_equilibrium(system, system.initial_state([0.01])[0])
    >>> result = simulate(system, (0.0, 0.003), (rest.q, rest.u), method="moreau", h=1e-3,
    ...                   keep_reports=True)
    >>> report = result.reports[-1]
    >>> round(report.t, 6), report.contacts[0].state, bool(report.residual_position < 1e-8)
    (0.003, 'slip', True)
    """

    t: float
    q: np.ndarray
    u: np.ndarray
    contacts: tuple[ContactReport, ...]
    drive_forces: np.ndarray
    multipliers: np.ndarray
    work: dict
    residual_position: float = 0.0
    residual_velocity: float = 0.0
    h: float = 0.0
    n_newton: int = 0
    n_substeps: int = 1
    solver_residual: float = 0.0
    energy: Energies | None = None
    acceleration: np.ndarray | None = None


def no_work() -> dict:
    """The work of a step in which nothing worked.

    Returns
    -------
    dict of str to float
        WORK_KEYS -> 0.0 J.

    Examples
    --------
    >>> from fe_contact.steppers.result import WORK_KEYS, no_work
    >>> set(no_work()) == set(WORK_KEYS), sum(no_work().values())
    (True, 0.0)
    """

    return dict.fromkeys(WORK_KEYS, 0.0)


# ------------------------------------------------------------------------------------------
# History rows
# ------------------------------------------------------------------------------------------


def history_row(
    system: System, report: StepReport, energy: Energies, work: dict, energy0: float
) -> dict:
    """One row of scalar columns from a report.

    Parameters
    ----------
    system : System
        The assembled model.
    report : StepReport
        The step's report.
    energy : Energies
        The energies at its state.
    work : dict of str to float
        The work accumulated since the start, WORK_KEYS -> J.
    energy0 : float
        Total energy at the start, J.

    Returns
    -------
    dict of str to float
        Column name -> value (SI units of ``columns``).

    Examples
    --------
    The row of a pendulum's initial state: no work done yet, so no energy error:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> from fe_contact.system import energies
    >>> from fe_contact.steppers.result import StepReport, history_row, no_work
    >>> q, u = np.array([0.3]), np.array([1.0])
    >>> report = StepReport(0.0, q, u, contacts=(), drive_forces=np.zeros(0),
    ...                     multipliers=np.zeros(0), work=no_work())
    >>> e = energies(system, q, u, 0.0)
    >>> row = history_row(system, report, e, no_work(), e.total)
    >>> row["kinetic_energy"], row["energy_error"]
    (0.125, 0.0)
    """
    row = {"t": report.t}
    for c in report.contacts:
        rough = ROUGH_COLUMNS if isinstance(c, RoughContactReport) else ()
        row.update({f"{c.name}_{col.name}": col.value(c) for col in CONTACT_COLUMNS + rough})
    for name, value in zip(system.model.drive_names(), report.drive_forces, strict=True):
        row[f"{name}_force"] = float(value)
    row.update({col.name: col.value(report, energy, work, energy0) for col in BALANCE_COLUMNS})
    row.update(part_energies(system, report.q, report.u, energy))
    row.update(state_values(system, report.q, report.u, report.acceleration))
    return row


class HistoryWriter:
    """Appends rows of a fixed set of columns to a CSV file (header ``name [unit]``).

    Each row is flushed, so that a run that stops leaves every row written so far.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (created, or overwritten).
    columns : list of tuple of str
        (name, unit) of each column, in order.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fe_contact.steppers.result import HistoryWriter, read_history
    >>> with tempfile.TemporaryDirectory() as out:
    ...     writer = HistoryWriter(pathlib.Path(out) / "h.csv", [("t", "s"), ("gap", "m")])
    ...     writer.write({"t": 0.0, "gap": 1e-3})
    ...     writer.close()
    ...     print(pathlib.Path(writer.path).read_text().splitlines()[0])
    t [s],gap [m]
    """

    def __init__(self, path, columns: list[tuple[str, str]]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.names = [name for name, _ in columns]
        self._fh = open(self.path, "w", newline="")  # noqa: SIM115 - closed in close()
        self._csv = csv.writer(self._fh)
        self._csv.writerow([f"{n} [{unit}]" if unit else n for n, unit in columns])
        self._fh.flush()

    def write(self, row: dict) -> None:
        self._csv.writerow([_cell(row[n]) for n in self.names])
        self._fh.flush()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


def _cell(value) -> str:
    return value if isinstance(value, str) else repr(float(value))


def read_history(path) -> dict[str, np.ndarray]:
    """Columns of a history CSV by bare name (units stripped); text columns stay strings.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (written by ``HistoryWriter``).

    Returns
    -------
    dict of str to ndarray
        Column name -> values, shape (n_rows,).

    Examples
    --------
    A CSV written by ``CsvObserver`` read back as columns (units dropped from the names):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> import tempfile, pathlib
    >>> from fe_contact.steppers.observers import CsvObserver
    >>> from fe_contact.steppers.result import read_history
    >>> with tempfile.TemporaryDirectory() as out:
    ...     path = pathlib.Path(out) / "history.csv"
    ...     result = simulate(system, (0.0, 0.005), system.initial_state(), h=1e-3,
    ...                       observers=[CsvObserver(path)])
    ...     history = read_history(path)
    >>> bool(np.array_equal(history["joint_0_q"], result["joint_0_q"]))
    True
    """
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        header = [h.split(" [")[0] for h in next(reader)]
        rows = list(reader)
    out = {}
    for j, name in enumerate(header):
        values = [r[j] for r in rows]
        try:
            out[name] = np.array([float(v) for v in values])
        except ValueError:
            out[name] = np.array(values)
    return out


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Histories of a run of either stepper (k = stored states, row 0 the initial state).

    Parameters
    ----------
    t : ndarray, shape (k,)
        Times, s.
    q : ndarray, shape (k, n)
        Coordinates (``system.layout``), m and rad.
    u : ndarray, shape (k, n)
        Velocities, m/s and rad/s.
    multipliers : ndarray, shape (k, m)
        Bilateral constraint forces by ``constraint_names`` (N, N m).
    constraint_names : tuple of str
        Names of the bilateral rows, ``Model.constraint_names()``.
    columns : dict of str to ndarray
        Name -> history, shape (k,), of every scalar (the CSV's columns;
        ``result["tip_normal_force"]``).
    method : str, optional
        "generalized-alpha" (the default), "moreau" or "event-driven".
    status : str, optional
        "finished" (the default), "event" or "failed".
    message : str, optional
        Why it stopped.
    n_steps : int, optional
        Steps taken.
    n_newton : int, optional
        Newton iterations (sweeps of the contact solver for Moreau-Jean).
    n_substeps : int, optional
        Sub-steps taken.
    wall_time : float, optional
        Wall time of the run, s.
    reports : tuple of StepReport, optional
        The last StepReport per stored row when ``keep_reports`` was asked (for writers),
        else ().
    events : tuple, optional
        The contact events (located in time, except Moreau-Jean's: at the end of the step that
        saw them), (t [s], contact name, kind) with kind "stick",
        "slip" (a stuck contact breaks loose), "reversal" (the slip velocity passed zero and
        the contact slips on the other way), "open" (lift-off), "impact" (an open contact
        closes; for a rough pair: a step that begins with Poisson's impact), "leave" (it slid
        off its structure's end); ``event_counts()`` counts them per kind.
    losses : tuple of ProfileLosses, optional
        One per rough pair (the W per vertex of both polylines at the end of the run), else
        ().
    n_halved : int, optional
        Steps retried as two halves: a Newton divergence, a singular system, a contact
        jumping off its structure; Moreau-Jean's and the event-driven stepper's sub-steps
        halved for a closing contact.
    step_path : str, optional
        "compiled" when the run's stepper has a compiled step (generalised-alpha on a system
        ``steppers.compiled`` takes), else "python" (the default): the Python
        generalised-alpha step (``compiled=False``, strings, profiles, unilateral or compliant
        contacts, the energy-consistent option), Moreau-Jean (its contact solver's numba
        kernels are called from a Python step: not a compiled step) and the event-driven
        stepper.
    n_compiled : int, optional
        Sub-steps whose Newton iteration ran in one compiled call (alone or in a batch of
        quiet steps); 0 on the "python" path.
    n_fallback : int, optional
        Compiled attempts handed to the Python step (a contact leaving its structure, a
        near-singular or Painleve case, a Newton failure), which then completed the sub-step
        (counted in ``n_python``), halved it or stopped at a located event. 0 on the "python"
        path.

    Examples
    --------
    A point mass pendulum (1 kg, l = 0.5 m) released from horizontal, 20 ms: the kinetic
    energy it gained, about m (g t)^2 / 2 = 0.01925 J, is the potential energy it lost, and the
    energy balance closes (``energy_error``, J):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> result = simulate(system, (0.0, 0.02), system.initial_state(), h=1e-3)
    >>> print(f"{result['kinetic_energy'][-1]:.4g} J, {result['potential_energy'][-1]:.4g} J")
    0.01925 J, -0.01925 J
    >>> result.success, bool(np.abs(result["energy_error"]).max() < 1e-8)
    (True, True)
    """

    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    multipliers: np.ndarray
    constraint_names: tuple[str, ...]
    columns: dict = field(repr=False)
    method: str = "generalized-alpha"
    status: str = "finished"
    message: str = ""
    n_steps: int = 0
    n_newton: int = 0
    n_substeps: int = 0
    wall_time: float = 0.0
    reports: tuple = field(default=(), repr=False)
    events: tuple = field(default=(), repr=False)
    losses: tuple = field(default=(), repr=False)
    n_halved: int = 0
    step_path: str = "python"
    n_compiled: int = 0
    n_fallback: int = 0

    @property
    def success(self) -> bool:
        return self.status in ("finished", "event")

    @property
    def n_python(self) -> int:
        """Sub-steps completed by the Python step: ``n_substeps - n_compiled``."""
        return self.n_substeps - self.n_compiled

    def __getitem__(self, name: str) -> np.ndarray:
        """The history column ``name`` (see ``columns`` for the names and their units)."""
        try:
            return self.columns[name]
        except KeyError:
            raise KeyError(
                f"no history column {name!r}; the columns are: {', '.join(self.columns)}"
            ) from None

    def to_dataframe(self):
        """The history as a pandas DataFrame indexed by time ``t`` (s), one column per history
        column (pandas is optional: ``pip install pandas``)."""
        try:
            import pandas as pd
        except ImportError as error:
            raise ImportError("to_dataframe needs pandas: pip install pandas") from error
        frame = pd.DataFrame({k: np.asarray(v) for k, v in self.columns.items() if k != "t"})
        frame.index = pd.Index(np.asarray(self.columns["t"]), name="t")
        return frame

    def event_counts(self) -> dict:
        """Number of contact events per kind (see ``events``)."""
        counts = dict.fromkeys(("stick", "slip", "reversal", "open", "impact", "leave"), 0)
        for _, _, kind in self.events:
            counts[kind] = counts.get(kind, 0) + 1
        return counts


__all__ = [
    "BALANCE_COLUMNS",
    "CONTACT_COLUMNS",
    "CONTACT_STATES",
    "Column",
    "ContactReport",
    "HistoryWriter",
    "ProfileLosses",
    "ROUGH_COLUMNS",
    "RoughContactReport",
    "STATE_CODES",
    "STICK_SPEED",
    "SimulationResult",
    "StepReport",
    "WORK_KEYS",
    "history_columns",
    "history_row",
    "no_work",
    "open_contact",
    "pair_state",
    "point_states",
    "read_history",
]
