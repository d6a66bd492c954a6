"""What a step reports: the new state, the contacts, the forces and the work of the step.

Every stepper's ``step()`` returns a ``StepReport``; ``no_work`` is the work of a step in which
nothing worked, and ``history_row`` turns a report into one row of the run's history, the
scalar columns of ``fe_contact.columns`` (names, units and how each is read from a report; the
module docstring of ``steppers.result`` lists them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..columns import BALANCE_COLUMNS, CONTACT_COLUMNS, ROUGH_COLUMNS, WORK_KEYS
from ..part_energies import part_energies
from ..sensors import state_values
from ..system import Energies, System
from .contact_report import ContactReport, RoughContactReport


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
    >>> from fe_contact.columns import WORK_KEYS
    >>> from fe_contact.steppers.step_report import no_work
    >>> set(no_work()) == set(WORK_KEYS), sum(no_work().values())
    (True, 0.0)
    """

    return dict.fromkeys(WORK_KEYS, 0.0)


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
    >>> from fe_contact.steppers.step_report import StepReport, history_row, no_work
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


__all__ = ["StepReport", "history_row", "no_work"]
