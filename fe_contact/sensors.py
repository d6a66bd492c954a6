"""Sensors: named quantities of a model evaluated from the state of every recorded step.

A sensor is declared once, on the ``Model`` (``Model(..., sensors=(...))``) or in a model
file (``[[output.sensors]]``), and becomes history columns (``history.csv``, the
``SimulationResult``: ``result["mass_x"]``, sweeps) next to the standard ones of
``steppers.result``. Sensors are evaluated from the reported state (q, u) of each step with the
library's own kinematics (``multibody.tree`` point kinematics, ``Structure.curve``): no physics
is re-run and no file is rewritten.

Kinds (all SI, plane axes):

* ``BodyPointSensor(name, body, at, quantity)``: the point ``at`` (x, y) m of tree body
  ``body`` (or the name of a tree point); quantity "position" (columns ``NAME_x``, ``NAME_y``,
  m), "velocity" (``NAME_vx``, ``NAME_vy``, m/s), Lipinski (002), eqs. (1)-(2a), or
  "acceleration" (``NAME_ax``, ``NAME_ay``, m/s^2): J(q) q'' + J'(q, q') q', the point's
  Jacobian and acceleration remainder, eqs. (3b), (3d).
* ``BodySensor(name, body, quantity)``: the body's "angle" (rad, counter-clockwise from the x
  axis), "angular_velocity" (rad/s) or "angular_acceleration" (rad/s^2, the sum of the q''
  of the revolute joints of its chain, eq. (3c)); one column ``NAME``.
* ``StructureSensor(name, structure, s, quantity)``: the material point s (m) of a structure;
  quantity "position" (``NAME_x``, ``NAME_y``, m), "displacement" (``NAME_x``, ``NAME_y``: r(s, q)
  - r(s, q_ref), m), "deflection" (the displacement along the reference normal at s, m),
  "slope" (the rotation of the tangent from its reference direction, rad: atan(w') on a
  beam), "curvature" (signed geometric curvature of the deformed curve, 1/m), "moment" (beam:
  E I w'', N m, as Lipinski (002), eq. (16); a string with bending stiffness: E I (kappa -
  kappa_ref) with the bending strain of ``elements.string``), "tension" (string: the tension
  law at the stretch at s, N), "velocity" (``NAME_vx``, ``NAME_vy``, m/s) or "acceleration"
  (``NAME_ax``, ``NAME_ay``, m/s^2; r is affine in q, so r'' = (dr/dq) q'').

Accelerations are read from the steppers' reports (``StepReport.acceleration``), never from a
re-run: the generalised-alpha stepper (Python step and compiled batches) reports the q'' that
satisfies the equations of motion at the end of each step (Lipinski (002), eqs. 78a-b), so
the columns are the accelerations of the computed motion; Moreau-Jean and the event-driven
stepper have no q'' (their velocities jump at impacts) and report the mean over the step,
(u_n+1 - u_n) / h, as their forces are the mean forces impulse / h: there the columns are
first-order approximations in smooth motion, impulse / (m h) at an impact, and NaN in the
first row (no step yet).

The tree's joint coordinates and velocities are always columns, named by joint
(``Joint.name``, default ``joint_<i>``): ``<joint>_q`` (rad or m) and ``<joint>_u`` (rad/s or
m/s). Contact quantities and drive forces (``<drive>_force``, N m or N) are standard columns
(``steppers.result``), and so is the energy of each part, named by part
(``part_energies``). ParaView frames carry the joint and sensor columns of their row as field
data (``io.vtk.frame_field_data``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validation as check
from .elements.string_model import StringSpec
from .multibody.tree_model import resolve_point

POINT_QUANTITIES = ("position", "velocity", "acceleration")
BODY_QUANTITIES = ("angle", "angular_velocity", "angular_acceleration")
STRUCTURE_QUANTITIES = (
    "position",
    "displacement",
    "deflection",
    "slope",
    "curvature",
    "moment",
    "tension",
    "velocity",
    "acceleration",
)
# columns of a quantity: (suffixes, unit); a scalar quantity has the one suffix ""
_COLUMNS = {
    "position": (("_x", "_y"), "m"),
    "displacement": (("_x", "_y"), "m"),
    "velocity": (("_vx", "_vy"), "m/s"),
    "acceleration": (("_ax", "_ay"), "m/s^2"),
    "deflection": (("",), "m"),
    "slope": (("",), "rad"),
    "curvature": (("",), "1/m"),
    "moment": (("",), "N m"),
    "tension": (("",), "N"),
    "angle": (("",), "rad"),
    "angular_velocity": (("",), "rad/s"),
    "angular_acceleration": (("",), "rad/s^2"),
}


@dataclass(frozen=True)
class BodyPointSensor:
    """Position, velocity or acceleration of a point of a tree body, in the plane's axes.

    Parameters
    ----------
    name : str
        The sensor's name, the stem of its columns (``NAME_x``, ``NAME_y``; ``NAME_vx``, ...).
    body : int
        Index of the tree body.
    at : tuple of float, shape (2,), or str, optional
        The point, (x, y) in m in the body's frame, or the name of a tree point; (0, 0) by
        default.
    quantity : {"position", "velocity", "acceleration"}, optional
        m, m/s or m/s^2; "position" by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``name`` is not an identifier, ``body`` is negative, ``at`` is not a point or a
        name, or ``quantity`` is unknown.

    Examples
    --------
    The bob's velocity after 10 ms of free fall from horizontal: about g t = 0.0981 m/s down:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),),
    ...                      points={"bob": (0, (0.5, 0.0))})
    >>> from fe_contact import BodyPointSensor
    >>> system = assemble(Model(tree=pendulum, sensors=(BodyPointSensor("bob", 0, "bob", "velocity"),)))
    >>> result = simulate(system, (0.0, 0.01), system.initial_state(), h=1e-3)
    >>> [c for c in result.columns if c.startswith("bob")], f"{result['bob_vy'][-1]:.4g} m/s"
    (['bob_vx', 'bob_vy'], '-0.0981 m/s')
    """

    name: str
    body: int
    at: tuple[float, float] | str = (0.0, 0.0)
    quantity: str = "position"

    def __post_init__(self):
        check.identifier("BodyPointSensor.name", self.name)
        where = f"BodyPointSensor {self.name!r}"
        object.__setattr__(self, "body", check.integer(f"{where}.body", self.body, low=0))
        if not isinstance(self.at, str):
            object.__setattr__(self, "at", check.vector(f"{where}.at", self.at, unit="m"))
        check.choice(f"{where}.quantity", self.quantity, POINT_QUANTITIES)


@dataclass(frozen=True)
class BodySensor:
    """The angle (rad), angular velocity (rad/s) or angular acceleration (rad/s^2) of a tree body.

    Parameters
    ----------
    name : str
        The sensor's name, its column's name.
    body : int
        Index of the tree body.
    quantity : {"angle", "angular_velocity", "angular_acceleration"}, optional
        "angle" by default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``name`` is not an identifier, ``body`` is negative or ``quantity`` is unknown.

    Examples
    --------
    The angle of a pendulum released from horizontal is its joint coordinate; after 10 ms it
    has fallen by about g t^2 / (2 l) = 9.81e-4 rad:

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),),
    ...                      points={"bob": (0, (0.5, 0.0))})
    >>> from fe_contact import BodySensor
    >>> system = assemble(Model(tree=pendulum, sensors=(BodySensor("arm", 0),)))
    >>> result = simulate(system, (0.0, 0.01), system.initial_state(), h=1e-3)
    >>> print(f"{result['arm'][-1]:.4g} rad")
    -0.000981 rad
    """

    name: str
    body: int
    quantity: str = "angle"

    def __post_init__(self):
        check.identifier("BodySensor.name", self.name)
        where = f"BodySensor {self.name!r}"
        object.__setattr__(self, "body", check.integer(f"{where}.body", self.body, low=0))
        check.choice(f"{where}.quantity", self.quantity, BODY_QUANTITIES)


@dataclass(frozen=True)
class StructureSensor:
    """A quantity of a material point of a structure (see the module docstring for the quantities).

    Parameters
    ----------
    name : str
        The sensor's name, the stem of its columns.
    structure : str
        Name of the structure.
    s : float
        Material coordinate of the point, m.
    quantity : str, optional
        One of ``sensors.STRUCTURE_QUANTITIES``: "position", "displacement", "deflection",
        "slope", "curvature", "moment", "tension", "velocity", "acceleration"; "position" by
        default.

    Raises
    ------
    TypeError
        When a value has the wrong kind (a string where a number belongs, an object of
        another type), naming the parameter.
    ValueError
        When ``name`` is not an identifier, ``s`` is not finite or ``quantity`` is unknown.

    Examples
    --------
    The tip deflection of a cantilever held by 1 N at its tip (from its static equilibrium,
    at rest): P L^3 / (3 EI):

    >>> from fe_contact import (BeamSpec, Model, PointLoad, StructureSensor, assemble, simulate,
    ...                         static_equilibrium)
    >>> strip = BeamSpec(length=0.4, n_elements=4, youngs_modulus=2.1e11, density=4.7e3,
    ...                  width=0.01, height=0.0015)
    >>> system = assemble(Model(structures={"beam": strip}, structure_gravity=False,
    ...                         loads=(PointLoad("beam", 0.4, (0.0, -1.0)),),
    ...                         sensors=(StructureSensor("tip", "beam", 0.4, "deflection"),)))
    >>> rest = static_equilibrium(system)
    >>> result = simulate(system, (0.0, 1e-3), (rest.q, rest.u), h=1e-4)
    >>> closed = -0.4**3 / (3 * strip.bending_stiffness)
    >>> print(f"{result['tip'][-1] * 1e3:.4f} mm, {closed * 1e3:.4f} mm")
    -36.1199 mm, -36.1199 mm
    """

    name: str
    structure: str
    s: float
    quantity: str = "position"

    def __post_init__(self):
        check.identifier("StructureSensor.name", self.name)
        where = f"StructureSensor {self.name!r}"
        check.instance(f"{where}.structure", self.structure, str, "the name of a structure")
        object.__setattr__(self, "s", check.real(f"{where}.s", self.s, unit="m"))
        check.choice(f"{where}.quantity", self.quantity, STRUCTURE_QUANTITIES)


SENSOR_TYPES = (BodyPointSensor, BodySensor, StructureSensor)
Sensor = BodyPointSensor | BodySensor | StructureSensor


def sensor_columns(sensor: Sensor) -> list[tuple[str, str]]:
    """(name, unit) of the history columns of one sensor."""
    suffixes, unit = _COLUMNS[sensor.quantity]
    return [(sensor.name + suffix, unit) for suffix in suffixes]


def joint_names(tree) -> tuple[str, ...]:
    """The name of every joint of a tree: ``Joint.name``, default ``joint_<i>``."""
    if tree is None:
        return ()
    return tuple(j.name or f"joint_{i}" for i, j in enumerate(tree.joints))


def joint_and_sensor_columns(model, tree) -> list[tuple[str, str]]:
    """(name, unit) of the joint and sensor columns of a model, in order: per joint
    ``<joint>_q``, ``<joint>_u``; then every sensor's columns."""
    cols = []
    if tree is not None:
        for name, joint in zip(joint_names(tree), tree.joints, strict=True):
            revolute = joint.kind == "revolute"
            cols += [(f"{name}_q", "rad" if revolute else "m")]
            cols += [(f"{name}_u", "rad/s" if revolute else "m/s")]
    for sensor in getattr(model, "sensors", ()):
        cols += sensor_columns(sensor)
    return cols


def check_sensors(model) -> None:
    """Refuse sensors of a model that name no part of it, a material point off its structure
    or a quantity its part does not have (the ValueError names the sensor and what is allowed;
    ``columns.check_column_names`` refuses a column name used twice)."""

    tree = model.tree
    n_b = 0 if tree is None else tree.n_bodies
    for i, sensor in enumerate(model.sensors):
        where = f"Model.sensors[{i}] ({sensor.name!r})"
        if isinstance(sensor, BodyPointSensor):
            resolve_point(tree, sensor.body, sensor.at, where)
        elif isinstance(sensor, BodySensor):
            check.index(f"{where}.body", sensor.body, n_b, "tree body")
        else:
            check.choice(f"{where}.structure", sensor.structure, model.structures)
            spec = model.structures[sensor.structure]
            check.real(f"{where}.s", sensor.s, low=0.0, high=spec.length, unit="m")
            string = isinstance(spec, StringSpec)
            if sensor.quantity == "tension" and not string:
                check.fail(
                    f"{where}.quantity",
                    sensor.quantity,
                    "a quantity a beam has: " + ", ".join(_beam_quantities()),
                )
            if sensor.quantity == "moment" and string and spec.bending_stiffness == 0.0:
                allowed = [q for q in STRUCTURE_QUANTITIES if q != "moment"]
                check.fail(
                    f"{where}.quantity",
                    sensor.quantity,
                    "a quantity a string without bending stiffness has: " + ", ".join(allowed),
                )


def with_sensors(system, sensors):
    """``system`` with ``sensors`` (a tuple of sensors) added to its model's, checked as
    ``Model.sensors`` are: the same assembled parts, a model whose history has their
    columns (``simulate(..., sensors=...)``)."""
    import dataclasses
    from collections.abc import Iterable

    if isinstance(sensors, (*SENSOR_TYPES, str)) or not isinstance(sensors, Iterable):
        allowed = "a tuple of BodyPointSensor, BodySensor or StructureSensor objects"
        check.fail("simulate.sensors", sensors, allowed, TypeError)
    model = dataclasses.replace(system.model, sensors=(*system.model.sensors, *sensors))
    return dataclasses.replace(system, model=model)  # its constants made anew for the sensors


def _beam_quantities() -> list[str]:
    return [q for q in STRUCTURE_QUANTITIES if q != "tension"]


# ------------------------------------------------------------------------------------------
# Evaluation
# ------------------------------------------------------------------------------------------


AFFINE = ("position", "displacement", "deflection", "velocity", "acceleration")  # r affine in q


class SensorPlan:
    """The constant part of every sensor of a system, resolved once (``sensor_plan``): the
    local point of a body sensor, the compiled tree arrays, a structure point's rows of
    dr/dq (``Structure.point_rows``) and its reference curve. ``columns(q, u, acceleration)``
    evaluates every joint and sensor column at k states at once."""

    def __init__(self, system):
        from .kernels.tree import tree_arrays

        self.system = system
        tree = system.tree
        self.names = [c for c, _ in joint_and_sensor_columns(system.model, tree)]
        self.tree_arrays = None if tree is None else tree_arrays(tree)
        self.points = {}  # sensor name -> (body, x, y)
        self.rows = {}  # structure sensor name -> (PointRows, reference CurvePoint)
        for sensor in system.model.sensors:
            if isinstance(sensor, BodyPointSensor):
                x, y = resolve_point(tree, sensor.body, sensor.at, sensor.name)
                self.points[sensor.name] = (sensor.body, float(x), float(y))
            elif isinstance(sensor, StructureSensor):
                structure = system.structures[sensor.structure]
                reference = structure.curve(sensor.s, structure.initial_coordinates())
                self.rows[sensor.name] = (structure.point_rows([sensor.s]), reference)

    def columns(self, q: np.ndarray, u: np.ndarray, acceleration=None) -> dict:
        """name -> (k,) of the joint and sensor columns at the states q, u, each (k, n), with
        the accelerations q'' (k, n) of those states (``StepReport.acceleration``; None:
        unknown, the acceleration sensors are NaN)."""
        system = self.system
        lay = system.layout
        if acceleration is None:
            acceleration = np.full(q.shape, np.nan)
        out = {}
        if system.tree is not None:
            for i, name in enumerate(joint_names(system.tree)):
                out[f"{name}_q"] = q[:, i].copy()
                out[f"{name}_u"] = u[:, i].copy()
        tree_sensors = [x for x in system.model.sensors if not isinstance(x, StructureSensor)]
        if tree_sensors:
            tree = lay.tree
            out.update(
                self._tree_columns(tree_sensors, q[:, tree], u[:, tree], acceleration[:, tree])
            )
        for sensor in system.model.sensors:
            if isinstance(sensor, StructureSensor):
                part = lay.structure(sensor.structure)
                values = self._structure_values(
                    sensor, q[:, part], u[:, part], acceleration[:, part]
                )
                for (column, _), value in zip(sensor_columns(sensor), values, strict=True):
                    out[column] = value
        return out

    def _tree_columns(self, sensors, q, u, acceleration) -> dict:
        """The tree sensors at k states, from the compiled point kinematics of
        ``kernels.tree`` (Lipinski (002), eqs. (1)-(3)): a point's acceleration is
        J(q) q'' + J'(q, q') q' (its Jacobian and acceleration remainder, eqs. (3b), (3d)), a
        body's angular acceleration sum_k A[b, k] q_k'' over the revolute joints k of its
        chain (the remainder of eq. (3c) is zero in the plane). A point sensor takes one
        call of ``body_point_states`` for all k states (the kinematics of each state and the
        point's), a body sensor the state's ``kinematics``, evaluated once per state for all
        of them."""
        from .kernels.tree import body_point_states, kinematics

        T = self.tree_arrays
        chains = T[0] * T[3]  # (n_b, n): body b turns with the revolute joints of its chain
        k = q.shape[0]
        values = {x.name: np.empty((k, 2)) for x in sensors}
        bodies = [x for x in sensors if isinstance(x, BodySensor)]
        points = [x for x in sensors if not isinstance(x, BodySensor)]
        if points:  # the point kinematics of all k states, one compiled call per sensor
            qc, uc = np.ascontiguousarray(q), np.ascontiguousarray(u)
        for sensor in points:
            out = values[sensor.name]
            b, x, y = self.points[sensor.name]
            p, v, J, rem = body_point_states(T, qc, uc, b, x, y)
            if sensor.quantity == "position":
                out[:] = p
            elif sensor.quantity == "velocity":
                out[:] = v
            else:
                for j in range(k):
                    aj = acceleration[j]
                    out[j, 0] = _ordered_dot(J[j, 0], aj) + rem[j, 0]
                    out[j, 1] = _ordered_dot(J[j, 1], aj) + rem[j, 1]
        for j in range(k if bodies else 0):
            qj, uj = np.ascontiguousarray(q[j]), np.ascontiguousarray(u[j])
            aj = acceleration[j]
            angle, _, _, _, omega, _, _ = kinematics(T, qj, uj)
            for sensor in bodies:
                out = values[sensor.name][j]
                b = sensor.body
                if sensor.quantity == "angle":
                    out[0] = angle[b]
                elif sensor.quantity == "angular_velocity":
                    out[0] = omega[b]
                else:
                    out[0] = _ordered_dot(chains[b], aj)
        out = {}
        for sensor in sensors:
            for i, (column, _) in enumerate(sensor_columns(sensor)):
                out[column] = values[sensor.name][:, i].copy()
        return out

    def _structure_values(
        self, sensor: StructureSensor, q, u, acceleration
    ) -> tuple[np.ndarray, ...]:
        """The values of a structure sensor at k states (q, u, acceleration: (k, n_dofs) of
        the structure): the affine quantities from the rows of dr/dq (r is affine in q, so
        r' = (dr/dq) q' and r'' = (dr/dq) q''), the others from ``Structure.curve``."""
        rows, reference = self.rows[sensor.name]
        if sensor.quantity in AFFINE:
            rate = {"velocity": u, "acceleration": acceleration}.get(sensor.quantity)
            if rate is not None:
                v = _affine(np.zeros(2), rows.rows[0], rate[:, rows.dofs[0]])
                return v[:, 0], v[:, 1]
            r = _affine(rows.offset[0], rows.rows[0], q[:, rows.dofs[0]])  # (k, 2)
            if sensor.quantity == "position":
                return r[:, 0], r[:, 1]
            d = r - reference.position
            if sensor.quantity == "displacement":
                return d[:, 0], d[:, 1]
            n = reference.normal
            return (d[:, 0] * n[0] + d[:, 1] * n[1],)
        structure = self.system.structures[sensor.structure]
        return (
            np.array(
                [
                    structure_values(structure, sensor, qj, uj, reference)[0]
                    for qj, uj in zip(q, u, strict=True)
                ]
            ),
        )


def _ordered_dot(a: np.ndarray, b: np.ndarray) -> float:
    """sum_i a_i b_i over the nonzero a_i, in index order (the same floats for a state alone
    or among k; a zero a_i leaves out its b_i, NaN or not)."""
    total = 0.0
    for i in np.flatnonzero(a):
        total += float(a[i]) * float(b[i])
    return total


def _affine(offset: np.ndarray, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """offset + rows @ values per state, (k, 2), with rows (2, m) and values (k, m), summed
    term by term in a fixed order: a state gives the same floats whether it is evaluated
    alone (a step) or among k (a compiled batch); a matrix product could take another BLAS
    kernel for another k and round otherwise."""
    out = np.tile(offset, (values.shape[0], 1))
    for j in range(values.shape[1]):
        out += values[:, j, None] * rows[:, j]
    return out


def sensor_plan(system) -> SensorPlan:
    """The SensorPlan of a system, a constant made by ``assemble`` (``System.sensor_plan``)."""
    return system.sensor_plan


def _rotation(a: np.ndarray, b: np.ndarray) -> float:
    """Angle (rad) that turns the direction a into the direction b, in (-pi, pi]."""
    return float(np.arctan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]))


def structure_values(
    structure, sensor: StructureSensor, q, u, reference=None, acceleration=None
) -> tuple:
    """The values of a structure sensor at the structure's free coordinates q and velocities
    u, each (n_dofs,), from ``Structure.curve`` (the element's own shape functions);
    reference : the CurvePoint of s in the reference configuration (computed when None);
    acceleration : (n_dofs,) q'' of the structure, for the "acceleration" (None: NaN)."""
    from .elements.string_points import string_points_at as evaluate_string
    from .structures import material_velocity

    quantity = sensor.quantity
    point = structure.curve(sensor.s, q)
    if quantity == "position":
        return tuple(point.position)
    if quantity == "velocity":
        return tuple(material_velocity(point, u))
    if quantity == "acceleration":  # r is affine in q: r'' = (dr/dq) q''
        if acceleration is None:
            return (np.nan, np.nan)
        return tuple(material_velocity(point, acceleration))
    if quantity == "curvature":
        return (float(point.curvature),)
    if quantity == "tension":
        state = evaluate_string(structure.string, structure.full(q), [sensor.s])
        return (float(state.tension[0]),)
    if reference is None:
        reference = structure.curve(sensor.s, structure.initial_coordinates())
    if quantity == "displacement":
        return tuple(point.position - reference.position)
    if quantity == "deflection":
        return (float((point.position - reference.position) @ reference.normal),)
    if quantity == "slope":
        return (_rotation(reference.tangent, point.tangent),)
    # the moment
    if structure.kind == "beam":  # linear theory: E I w'', w'' along the reference normal
        return (structure.beam.spec.bending_stiffness * float(point.slope_rate @ reference.normal),)
    # the bending strain of ``elements.string``: kappa = (r' x r'') / (|r'|^2 |r_ref'|), and
    # its reference value (r_ref' x r_ref'') / |r_ref'|^2
    strain = _turning(point.slope, point.slope_rate) / np.hypot(*reference.slope)
    strain_ref = _turning(reference.slope, reference.slope_rate)
    return (structure.string.spec.bending_stiffness * float(strain - strain_ref),)


def _turning(slope, slope_rate) -> float:
    """(r' x r'') / |r'|^2: the rate of turn of the tangent per unit parameter, 1/m."""
    return float((slope[0] * slope_rate[1] - slope[1] * slope_rate[0]) / (slope @ slope))


def state_values(system, q: np.ndarray, u: np.ndarray, acceleration=None) -> dict:
    """name -> value of the joint and sensor columns (``joint_and_sensor_columns``) at the state q, u,
    each (n,) by ``system.layout``, with its accelerations q'' (n,) (None: unknown, the
    acceleration sensors are NaN)."""
    plan = sensor_plan(system)
    if not plan.names:
        return {}
    acc = None if acceleration is None else np.asarray(acceleration, dtype=float)[None, :]
    columns = plan.columns(q[None, :], u[None, :], acc)
    return {name: float(value[0]) for name, value in columns.items()}


def state_arrays(system, q: np.ndarray, u: np.ndarray, acceleration=None) -> dict:
    """``state_values`` of k states q, u and accelerations (k, n): name -> (k,) array."""
    plan = sensor_plan(system)
    if not plan.names:
        return {}
    acc = None if acceleration is None else np.asarray(acceleration, dtype=float)
    return plan.columns(np.asarray(q, dtype=float), np.asarray(u, dtype=float), acc)


__all__ = [
    "BODY_QUANTITIES",
    "POINT_QUANTITIES",
    "SENSOR_TYPES",
    "STRUCTURE_QUANTITIES",
    "BodyPointSensor",
    "BodySensor",
    "Sensor",
    "SensorPlan",
    "StructureSensor",
    "check_sensors",
    "joint_names",
    "sensor_columns",
    "sensor_plan",
    "structure_values",
    "state_arrays",
    "joint_and_sensor_columns",
    "state_values",
    "with_sensors",
]
