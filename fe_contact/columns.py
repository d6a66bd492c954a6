"""The history's columns, each defined once: its name, its unit, its meaning and how it is
read from a step's report (``Column``): the per-contact columns (``CONTACT_COLUMNS``, and
``ROUGH_COLUMNS`` for a rough pair), the energy balance (``BALANCE_COLUMNS``), the part energies
(``part_energies``) and the joint and sensor columns (``sensors``). ``history_columns`` lists a
system's columns in order (the module docstring of ``steppers.result`` describes them, and
``steppers.step_report.history_row`` fills a row); ``check_column_names`` refuses a model whose
structure or sensor names would give two columns one name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from . import validation as check
from .part_energies import part_energy_columns
from .rough import Polyline
from .sensors import joint_and_sensor_columns, sensor_columns

# The work accumulated since the start, J (the ``work`` of a step's report, summed).
WORK_KEYS = (
    "work_drives",
    "work_loads",
    "dissipated_damping",
    "dissipated_friction",
    "dissipated_impact",
    "dissipated_numerical",
    "work_contact_timing",
)
WORK_MEANINGS = {
    "work_drives": "work done by the drives since t0",
    "work_loads": "work done by applied loads and actuators since t0",
    "dissipated_damping": "energy taken by joint and structural damping since t0",
    "dissipated_friction": "energy taken by friction since t0 (never decreases)",
    "dissipated_impact": "energy taken by impacts since t0 (never decreases)",
    "dissipated_numerical": "the scheme's own loss: generalised-alpha's for rho_inf < 1, "
    "Moreau-Jean's for theta > 1/2 (0 otherwise)",
    "work_contact_timing": "energy given by impulses acting along the step's start velocity "
    "(Moreau-Jean and event-driven; never decreases)",
}


@dataclass(frozen=True)
class Column:
    """One history column, defined once: its name, unit, meaning and how its value is read.

    A contact column's value is a function of the pair's ``ContactReport``; a balance column's
    of ``(report, energy, work, energy0)``: the StepReport, ``system.energies`` at its state,
    the work accumulated since the start (dict WORK_KEYS -> J) and the total energy at the
    start (J).

    ``value`` is written once for one step and for k steps at once: it uses only attribute
    access, elementwise arithmetic and reductions over the last axis (a contact's points).
    Given a report whose fields are arrays over k steps (per-point fields (k, points), scalars
    (k,): ``steppers.batch.StepBatch``), it returns the column's k values.

    Parameters
    ----------
    name : str
        The column's name (per contact: the suffix after ``<contact>_``).
    unit : str
        Its unit ("N", "m/s", "J", ...; "" for a state or a count).
    meaning : str
        One line for the documentation's columns table.
    value : callable
        How its value is read from a report (see above).

    Examples
    --------
    >>> from fe_contact.columns import BALANCE_COLUMNS, CONTACT_COLUMNS
    >>> [c.name for c in CONTACT_COLUMNS][:3]
    ['state', 'normal_force', 'friction_force']
    >>> [(c.name, c.unit) for c in BALANCE_COLUMNS if c.name == "friction_power"]
    [('friction_power', 'W')]
    """

    name: str
    unit: str
    meaning: str
    value: Callable


def _main(values: np.ndarray, c):
    """The value at the point of a ``ContactReport`` c with the largest normal force (NaN with
    no closed point); values (points,) or, over k steps, (k, points)."""
    k = c.main
    return values[..., k] if k >= 0 else np.nan


def _total(values: np.ndarray):
    """The sum over a contact's points (the last axis)."""
    return np.add.reduce(values, axis=-1)  # np.sum's reduction, without its dispatch


def _energy_error(report, energy, work, energy0) -> float:
    """The balance: E - E0 - work in + dissipated (J); 0 up to the scheme's error."""
    return (
        energy.total
        - energy0
        - work["work_drives"]
        - work["work_loads"]
        + work["dissipated_damping"]
        + work["dissipated_friction"]
        + work["dissipated_impact"]
        + work["dissipated_numerical"]
        - work["work_contact_timing"]
    )


CONTACT_COLUMNS = (
    Column(
        "state",
        "",
        "contact state over the step: ``slip``, ``stick`` or ``open``",
        lambda c: c.state,
    ),
    Column(
        "normal_force",
        "N",
        "normal contact force (positive: compressive)",
        lambda c: _total(c.normal_force),
    ),
    Column(
        "friction_force",
        "N",
        "friction force on the profile along the contact tangent",
        lambda c: _total(c.friction_force),
    ),
    Column(
        "normal_impulse",
        "N s",
        "normal impulse over the step (Moreau-Jean and the event-driven stepper: the step's"
        " impulse, impacts included; generalised-alpha: the normal force times h, which in"
        " its energy-consistent form is the step's impulse over h)",
        lambda c: _total(c.normal_impulse),
    ),
    Column(
        "friction_impulse",
        "N s",
        "tangential impulse over the step",
        lambda c: _total(c.friction_impulse),
    ),
    Column(
        "slip_velocity",
        "m/s",
        "relative tangential velocity at the contact point",
        lambda c: _main(c.slip_velocity, c),
    ),
    Column("gap", "m", "normal gap (0 while closed, positive open)", lambda c: c.min_gap),
    Column(
        "parameter",
        "m",
        "contact point's material coordinate on the target",
        lambda c: _main(c.parameter, c),
    ),
    Column(
        "n_closed",
        "",
        "number of closed contact points (candidate grids, rough pairs)",
        lambda c: c.n_points,
    ),
    Column(
        "point_x",
        "m",
        "x of the contact point on the target (NaN while open)",
        lambda c: _main(c.point[..., 0], c),
    ),
    Column(
        "point_y",
        "m",
        "y of the contact point on the target (NaN while open)",
        lambda c: _main(c.point[..., 1], c),
    ),
)
ROUGH_COLUMNS = (  # a rough pair's (``RoughContactReport``), after its contact columns
    Column(
        "impulse_x",
        "N s",
        "rough pair: whole impulse on the profile over the step, x",
        lambda c: float(c.impulse_xy[0]),
    ),
    Column(
        "impulse_y",
        "N s",
        "rough pair: whole impulse on the profile over the step, y",
        lambda c: float(c.impulse_xy[1]),
    ),
    Column(
        "normal_impulse_x",
        "N s",
        "rough pair: its part along the contact normals, x",
        lambda c: float(c.normal_impulse_xy[0]),
    ),
    Column(
        "normal_impulse_y",
        "N s",
        "rough pair: its part along the contact normals, y",
        lambda c: float(c.normal_impulse_xy[1]),
    ),
    Column(
        "loss_profile",
        "J",
        "rough pair: energy lost on the profile since the start (003 eq. 18)",
        lambda c: c.loss_profile,
    ),
    Column(
        "loss_target",
        "J",
        "rough pair: energy lost on the target since the start (003 eq. 20)",
        lambda c: c.loss_target,
    ),
)
BALANCE_COLUMNS = (
    Column(
        "kinetic_energy", "J", "kinetic energy of the whole system", lambda r, e, w, e0: e.kinetic
    ),
    Column(
        "potential_energy",
        "J",
        "potential of gravity and of the structures' constant loads",
        lambda r, e, w, e0: e.potential,
    ),
    Column(
        "elastic_energy",
        "J",
        "strain energy of the structures, joint springs, compliant contacts",
        lambda r, e, w, e0: e.elastic,
    ),
    Column(
        "tree_kinetic_energy", "J", "kinetic energy of the tree", lambda r, e, w, e0: e.tree_kinetic
    ),
    Column(
        "structure_kinetic_energy",
        "J",
        "kinetic energy of the structures",
        lambda r, e, w, e0: e.structure_kinetic,
    ),
    Column(
        "structure_elastic_energy",
        "J",
        "strain energy of the structures",
        lambda r, e, w, e0: e.structure_elastic,
    ),
    *(
        Column(key, "J", WORK_MEANINGS[key], lambda r, e, w, e0, key=key: w[key])
        for key in WORK_KEYS
    ),
    Column("energy_error", "J", "the balance below; 0 up to the stepper's error", _energy_error),
    Column(
        "friction_power",
        "W",
        "power of the friction forces, sum of F_t v_t over the closed contact points at the "
        "reported state (<= 0: friction dissipates; an impulsive stepper's F_t is the step's "
        "mean force)",
        lambda r, e, w, e0: sum(
            (_total(c.friction_force * c.slip_velocity) for c in r.contacts), 0.0
        ),
    ),
    Column(
        "residual_position",
        "m",
        "largest position-level constraint residual",
        lambda r, e, w, e0: r.residual_position,
    ),
    Column(
        "residual_velocity",
        "m/s",
        "largest velocity-level constraint residual",
        lambda r, e, w, e0: r.residual_velocity,
    ),
    Column("n_newton", "", "Newton iterations in the step", lambda r, e, w, e0: r.n_newton),
    Column("n_substeps", "", "sub-steps taken in the step", lambda r, e, w, e0: r.n_substeps),
    Column(
        "solver_residual",
        "m/s",
        "residual of the contact laws' solver",
        lambda r, e, w, e0: r.solver_residual,
    ),
)


def history_columns(system) -> list[tuple[str, str]]:
    """Names and units of the scalar history columns of a ``System``.

    See the module docstring of ``steppers.result``.

    Parameters
    ----------
    system : System
        The assembled model (or anything with its ``model`` and ``tree``).

    Returns
    -------
    list of tuple of str
        (name, unit) of each column, in order.

    Examples
    --------
    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> from fe_contact.columns import history_columns
    >>> columns = dict(history_columns(system))
    >>> columns["t"], columns["kinetic_energy"], columns["joint_0_q"]
    ('s', 'J', 'rad')
    """
    cols = [("t", "s")]
    for c in system.model.contacts:
        rough = ROUGH_COLUMNS if isinstance(c.profile, Polyline) else ()
        cols += [(f"{c.name}_{col.name}", col.unit) for col in CONTACT_COLUMNS + rough]
    for name, drive in zip(system.model.drive_names(), system.model.drives, strict=True):
        # a revolute joint's drive holds a torque, a prismatic joint's a force
        revolute = system.tree.joints[drive.joint].kind == "revolute"
        cols.append((f"{name}_force", "N m" if revolute else "N"))
    cols += [(col.name, col.unit) for col in BALANCE_COLUMNS]
    cols += part_energy_columns(system.model)
    return cols + joint_and_sensor_columns(system.model, system.tree)


def check_column_names(model) -> None:
    """Refuse a model in which a column would have the name of another history column.

    A structure's part-energy column or a sensor's column must not take the name of another
    history column.

    Parameters
    ----------
    model : Model
        The model.

    Raises
    ------
    ValueError
        Naming the structure or the sensor and what is allowed.

    Examples
    --------
    >>> from fe_contact import Body, BodySensor, Joint, Model, TreeModel
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> Model(tree=pendulum, sensors=(BodySensor("joint_0_q", 0, "angle"),))
    Traceback (most recent call last):
    ...
    ValueError: Model.sensors[0].name: got 'joint_0_q'; allowed: a name whose column ...
    """
    tree = model.tree
    names = [c for c, _ in history_columns(SimpleNamespace(model=model, tree=tree))]
    for structure in model.structures:
        for column, _ in part_energy_columns(SimpleNamespace(structures=[structure], contacts=())):
            if names.count(column) > 1:
                check.fail(
                    "Model.structures name",
                    structure,
                    f"a name whose column {column!r} (the part's energy) no other history "
                    "column has (e.g. not 'tree', 'structure' or 'contact')",
                )
    for i, sensor in enumerate(model.sensors):
        for column, _ in sensor_columns(sensor):
            if names.count(column) > 1:
                check.fail(
                    f"Model.sensors[{i}].name",
                    sensor.name,
                    f"a name whose column {column!r} no other history column has (joints, "
                    "contacts, drives, energies, other sensors)",
                )
