"""The sliding-mass model of fe_contact in Exudyn 1.13.6, for a speed comparison at equal accuracy.

Model (the data of ``fe_contact.papers.lipinski.sliding_mass_model`` and
``sliding_mass_initial_state``, mu = 0):

* the cantilever strip ``cantilever_strip``: L = 0.4 m clamped at the origin along +x,
  EI = 0.5906 N m^2, rho A = 0.0705 kg/m, EA = E A = 3.15e6 N (the strip's real axial stiffness),
  no damping, ``n_elements`` Exudyn ``ObjectANCFCable2D`` elements (geometrically nonlinear
  ANCF cable; fe_contact's beam is linear Euler-Bernoulli with Hermite elements). Clamp: the
  root node's x, y and y-slope coordinates are fixed (x-slope free, as in Exudyn's
  ``ANCFslidingJoint2D.py`` example, so the root does not constrain the axial strain);
* gravity (0, -9.81) m/s^2 on the beam (``Gravity`` load of each element, via
  ``beams.GenerateBeamElementsAlongLine``) and on the mass (a force m g on its node);
* the point mass m = 0.02 kg (``NodePoint2D`` + ``ObjectMassPoint2D``) slides without friction
  along the beam's axis: ``ObjectJointSliding2D`` over the cable elements with its
  ``NodeGenericData`` (data coordinates: active element index, start-of-step global sliding
  coordinate) and the classical formulation (``useClassicalFormulation=True``, Exudyn's default:
  two position constraints plus zero force along the slope, index 3).

Initial state: Exudyn's own static solution. The model is built with one extra constraint that
holds the mass's x coordinate at x0 = 0.1 m, ``mbs.SolveStatic`` gives the deflected beam under
its weight with the mass on it (the beam carries the mass's weight at x0), the extra constraint
is then switched off (``activeConnector=False``) and the static state becomes the initial state
of the dynamic run: beam at rest, mass at (x0, w(x0)) with the velocity 0.5 * r'/r'_x along the
deflected slope r' at the mass (horizontal component 0.5 m/s, fe_contact's ``speed * (1, w')``).
The mass's horizontal support during statics adds an axial force of m g w'(x0) ~ 1.7e-3 N to the
beam (strain 5e-10, negligible).

Solvers (``_settings``): Exudyn's static solver (full Newton) for the initial state; for the
run Exudyn's generalised-alpha (``spectralRadius = rho_inf``, modified Newton) with a fixed step
``h`` (``automaticStepSize = False``). Changed from Exudyn's defaults, all for the round-off
floor of the Newton residual with the strip's real axial stiffness (EA / element length = 8e7
N/m at 10 elements, 8e9 at 1000), none moving the mass by more than 4e-11 m:

* ``timeIntegration.newton.relativeTolerance`` 1e-8 -> 1e-7 (``NEWTON_RELATIVE_TOLERANCE``).
  With the default 1e-8 Newton "fails" in most steps at 10 elements and Exudyn's adaptive step
  reduction runs 197 035 steps instead of 1000 for t_end = 0.1 s at h = 1e-4 (41 s instead of
  0.06 s). 1e-6 or 3e-8 instead of 1e-7 moves the mass by less than 1e-10 m at h = 1e-4 s.
* ``newton.absoluteTolerance`` (static and dynamic) 1e-10 -> ``round_off_tolerance``, in N:
  eps * (EA / l_e) * L * sqrt(n_coordinates), 4.7e-8 at 10 elements, 3.6e-7 at 40, 2.8e-6 at
  160, 2.3e-5 at 640, 4.4e-5 at 1000. Exudyn's Newton residual (L2 norm of M a - f + C_q^T
  lambda and of the constraints, unscaled) stalls at a floor that grows as n^1.5, measured with
  full Newton at h = 1e-4 s: 4e-9..1e-8 N at 10 elements, 1e-7 at 40, 8e-7 at 160, 2.2e-6 at
  320, 7e-6 at 640, 1.35e-5 at 1000 (about 0.3 times the formula from 40 elements on), while
  the residual at the start of a step stays 0.5..2.6 N: relative floor 1.2e-8 at 10 elements,
  1.7e-7 at 40, 7e-7 at 160. With the relative tolerance alone the dynamic Newton stalls
  above 1e-7 from 40 elements on and the run stops ("SolveDynamic terminated": the earlier
  scaling.csv had no Exudyn figure from 40 elements on), and the static solve fails from 640
  elements on (its first iteration's residual, 316 N, is the reference of its relative 1e-8,
  the floor is 7e-6 N). With the round-off tolerance both run at every element count, also at
  h = 1e-3 s. Effect at 10 elements against the earlier settings
  (dense, relative 1e-7 only): 6.5e-12 m at h = 4e-4, 9.2e-12 at 1e-4, 2.4e-11 at 2.5e-5 s
  (t_end = 0.5 s; ``--check-settings``); 3.3e-11 m at 20 elements (1e-4 s, 0.1 s); 40..1000
  elements: at most 4e-11 m against runs converged on the Newton increment (``residualMode =
  1``, RMS increment <= 3e-13 m; 1e-4 s, 0.05 s). That increment criterion (1e-10 m) also
  runs at every count, but takes about one more Newton iteration per step (6.3 against 5.2 at
  10 elements), so it is not used.
* ``linearSolver.solverType`` EXUdense -> EigenSparse (Exudyn warns to use it beyond 1000
  coordinates): the same time at 10 elements (38 against 39 ms for 0.1 s at h = 1e-4 s), 27 %
  less at 20, 7 times less at 160; positions within 7e-13 m (10 elements) and 1.3e-11 m (20) of
  the dense solver's. ``reuseAnalyzedPattern`` stays off (the pattern changes when the mass
  changes element; Jacobians are rare with modified Newton).

Findings (10 elements):

* Exudyn's own error is first order in h and accumulates along the slide. Over the demo's
  run, t_end = 0.5 s: 3.7e-6 m at h = 1e-4 s, 1.87e-6 at 5e-5, 9.3e-7 at 2.5e-5 s (the largest
  power-of-two fraction of 1e-4 within 1e-6 m), 1.46 s per simulated second there (37 us per
  step, 5.4 Newton iterations). Over t_end = 0.1 s: 2.4e-7 m at h = 1e-4 s, 4.7e-7 m at 2e-4,
  9.4e-7 m at 4e-4 s. The order does not change with rho_inf (1.0, 0.9, 0.6), with trapezoidal
  Newmark instead of generalised-alpha, with full instead of modified Newton or without the
  initial accelerations, and shows before the mass crosses an element boundary: it comes from
  the sliding joint (useClassicalFormulation=False gives an O(h) error 50 times larger).
  fe_contact's own error at h = 1e-4 s is 3.7e-9 m over 0.1 s (second order), 8.2e-7 m at
  h = 1e-3 s over 0.5 s.
* Exudyn against fe_contact (``fe_contact_difference``): 2.5e-7 m with h = 1e-4 s in both (mostly
  Exudyn's O(h) error); 3.5e-8 m between the converged runs (Exudyn h = 3.125e-6 s, fe_contact
  h = 1.25e-5 s): the difference of the beam theories (ANCF cable with EA vs linear
  Euler-Bernoulli).
* Time per step at h = 1e-4 s (0.01 s, best of 3): 37 us at 10 elements, 102 at 40, 371 at
  160, 1.5 ms at 640, 2.5 ms at 1000 (3.6..5 Newton iterations per step): linear in the
  element count.

Run: python benchmarks/exudyn_sliding_mass.py [--t-end 0.5] [--elements 10]
[--check-settings]. Prints, for h in ``STEPS``: h, solver time per simulated second and per
step (best of 3 runs), Newton iterations per step and the own error (``own_error``: max
|position(h) - position(h / 16)| over the output times); then the largest h of the table whose
own error is <= 1e-6 m, and the largest found by doubling h beyond it. ``--check-settings``
prints instead the difference between the benchmark settings and the earlier ones
(``check_settings``). Exudyn is imported inside the functions, so this module imports without
it.
"""

from __future__ import annotations

import time

import numpy as np

X0 = 0.1  # m, initial position of the mass along the beam
SPEED = 0.5  # m/s, horizontal component of the initial velocity
GRAVITY = 9.81  # m/s^2, along -y
OUTPUT_PERIOD = 1e-3  # s, at most this between stored outputs
NEWTON_RELATIVE_TOLERANCE = 1e-7  # Exudyn's default 1e-8 is below the round-off floor with real EA
STEPS = (1e-4, 5e-5, 2.5e-5)
TARGET = 1e-6  # m, accuracy goal of the comparison


def _n_steps(h: float, t_end: float) -> int:
    n = int(round(t_end / h))
    if n < 1 or abs(n * h - t_end) > 1e-9 * t_end:
        raise ValueError(f"t_end = {t_end!r} s must be a whole number of steps h = {h!r} s")
    return n


def _build(n_elements: int):
    """The Exudyn system with the static constraint on the mass; returns (SC, mbs, items)."""
    import exudyn as exu
    from exudyn.beams import GenerateBeamElementsAlongLine
    from exudyn.itemInterface import (
        CoordinateConstraint,
        LoadForceVector,
        MarkerBodyCable2DCoordinates,
        MarkerNodeCoordinate,
        MarkerNodePosition,
        NodeGenericData,
        NodePoint2D,
        NodePointGround,
        ObjectANCFCable2D,
        ObjectJointSliding2D,
        ObjectMassPoint2D,
        SensorNode,
        SensorObject,
    )

    from fe_contact.papers.lipinski import SLIDING_MASS, cantilever_strip

    spec = cantilever_strip(n_elements)
    length = spec.length
    ea = spec.youngs_modulus * spec.section_area
    mass = SLIDING_MASS

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    cable = ObjectANCFCable2D(
        massPerLength=spec.mass_per_length,
        bendingStiffness=spec.bending_stiffness,
        axialStiffness=ea,
    )
    beam = GenerateBeamElementsAlongLine(
        mbs,
        [0.0, 0.0, 0.0],
        [length, 0.0, 0.0],
        n_elements,
        cable,
        gravity=[0.0, -GRAVITY, 0.0],
        groundConstraintsStart=[1, 1, 0, 1],  # x, y, x-slope (free), y-slope
    )
    elements = beam["elements"]
    element_length = length / n_elements

    node = mbs.AddNode(NodePoint2D(referenceCoordinates=[X0, 0.0]))
    mbs.AddObject(ObjectMassPoint2D(mass=mass, nodeNumber=node))
    mass_marker = mbs.AddMarker(MarkerNodePosition(nodeNumber=node))
    mbs.AddLoad(LoadForceVector(markerNumber=mass_marker, loadVector=[0.0, -mass * GRAVITY, 0]))

    cable_markers = [mbs.AddMarker(MarkerBodyCable2DCoordinates(bodyNumber=e)) for e in elements]
    offsets = [i * element_length for i in range(n_elements)]
    start = min(int(np.floor(X0 / element_length + 1e-12)), n_elements - 1)
    data = mbs.AddNode(NodeGenericData(initialCoordinates=[start, X0], numberOfDataCoordinates=2))
    joint = mbs.AddObject(
        ObjectJointSliding2D(
            markerNumbers=[mass_marker, cable_markers[start]],
            slidingMarkerNumbers=cable_markers,
            slidingMarkerOffsets=offsets,
            nodeNumber=data,
            useClassicalFormulation=True,
        )
    )

    # statics only: the mass held at x = X0 (switched off for the dynamic run)
    ground = mbs.AddNode(NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
    ground_marker = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))
    mass_x = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=node, coordinate=0))
    hold = mbs.AddObject(CoordinateConstraint(markerNumbers=[ground_marker, mass_x]))

    position = mbs.AddSensor(
        SensorNode(
            nodeNumber=node,
            outputVariableType=exu.OutputVariableType.Position,
            storeInternal=True,
            writeToFile=False,
        )
    )
    sliding = mbs.AddSensor(
        SensorObject(
            objectNumber=joint,
            outputVariableType=exu.OutputVariableType.SlidingCoordinate,
            storeInternal=True,
            writeToFile=False,
        )
    )
    mbs.Assemble()
    items = dict(
        elements=elements,
        offsets=offsets,
        node=node,
        joint=joint,
        hold=hold,
        position=position,
        sliding=sliding,
        length=length,
    )
    return SC, mbs, items


def round_off_tolerance(n_elements: int, n_coordinates: int) -> float:
    """Absolute Newton tolerance (N, on the L2 norm of Exudyn's residual over the system): an
    upper estimate of the residual's round-off floor, eps * (EA / l_e) * L * sqrt(n_coordinates):
    the axial stiffness of an element times the round-off of a nodal position of magnitude up
    to L, on every coordinate. The measured floor is about 0.3 times this from 40 elements on
    (0.1..0.2 times at 10)."""
    from fe_contact.papers.lipinski import cantilever_strip

    spec = cantilever_strip(n_elements)
    ea = spec.youngs_modulus * spec.section_area
    eps = np.finfo(float).eps
    return float(eps * ea / (spec.length / n_elements) * spec.length * np.sqrt(n_coordinates))


def _settings(exu, mbs=None, n_elements=None, benchmark=True):
    """Exudyn's simulation settings. benchmark=True: the sparse solver and the round-off
    tolerance of the Newton iterations (``round_off_tolerance``, static and dynamic);
    False: the earlier settings (dense solver, Exudyn's absolute tolerance 1e-10)."""
    settings = exu.SimulationSettings()
    settings.solution.file.write = False
    settings.solution.sensors.writePeriod = OUTPUT_PERIOD
    settings.staticSolver.verboseMode = 0
    settings.timeIntegration.verboseMode = 0
    settings.timeIntegration.newton.relativeTolerance = NEWTON_RELATIVE_TOLERANCE
    if benchmark:
        settings.linearSolver.solverType = exu.LinearSolverType.EigenSparse
        n_coordinates = len(mbs.systemData.GetODE2Coordinates())
        tolerance = round_off_tolerance(n_elements, n_coordinates)
        settings.staticSolver.newton.absoluteTolerance = tolerance
        settings.timeIntegration.newton.absoluteTolerance = tolerance
    return settings


def _static_start(mbs, items, settings):
    """Solve statics with the mass held at X0, then make that state (plus the mass's initial
    velocity) the initial state of the dynamic run with the holding constraint switched off."""
    import exudyn as exu

    if not mbs.SolveStatic(settings):
        raise RuntimeError("Exudyn's static solution failed")
    ode2, ode2_t, ode1, ae, data = (
        np.array(v, dtype=float) for v in mbs.systemData.GetSystemState()
    )
    out = exu.OutputVariableType
    s_global = float(mbs.GetObjectOutput(items["joint"], out.SlidingCoordinate))
    k = int(round(data[0]))
    slope = mbs.GetObjectOutputBody(
        items["elements"][k], out.Director1, localPosition=[s_global - items["offsets"][k], 0, 0]
    )
    slope = np.asarray(slope, dtype=float)[:2]
    velocity = SPEED * slope / slope[0]  # fe_contact: speed * (1, w')

    sys = mbs.systemData
    ode2_t[:] = 0.0
    ode2_t[sys.GetNodeLTGODE2(items["node"])] = velocity
    # data[1] already holds the whole static sliding coordinate: zero the joint's increment
    ae[sys.GetObjectLTGAE(items["joint"])[2]] = 0.0
    ae[sys.GetObjectLTGAE(items["hold"])] = 0.0
    position = np.asarray(mbs.GetNodeOutput(items["node"], out.Position), dtype=float)[:2]
    mbs.SetObjectParameter(items["hold"], "activeConnector", False)
    mbs.Assemble()  # resets the current state; the run starts from the initial one set here
    sys.SetSystemState([ode2, ode2_t, ode1, ae, data], configuration=exu.ConfigurationType.Initial)
    return position, velocity


def run_exudyn(
    n_elements=10, h=1e-4, t_end=0.1, rho_inf=0.9, *, output_period=None, benchmark=True
) -> dict:
    """Run the sliding mass in Exudyn with the fixed step h (s) to t_end (s).

    output_period : s, time between stored outputs, a multiple of h (default: the largest
    multiple of h up to OUTPUT_PERIOD, at least h).
    benchmark : the benchmark's solver settings (see the module docstring); False gives the
    earlier ones (dense solver, absolute Newton tolerance 1e-10), kept for the comparison of
    ``check_settings``.

    Returns a dict: t (k,) output times (every output_period, and t_end); x, y (k,) mass
    position, m; s (k,) global sliding coordinate (position along the undeformed beam), m;
    solver_time, s (time.perf_counter around ``SolveDynamic`` only: no model building, no
    statics); solver_cpu_time, s (time.process_time around it); steps; newton_per_step
    (Exudyn's Newton iteration count / steps); jacobians (Newton Jacobian evaluations);
    position0, velocity0 (2,) initial state of the mass.
    """
    import exudyn as exu

    n = _n_steps(h, t_end)
    _SC, mbs, items = _build(n_elements)
    settings = _settings(exu, mbs, n_elements, benchmark)
    position0, velocity0 = _static_start(mbs, items, settings)

    ti = settings.timeIntegration
    ti.endTime = t_end
    ti.numberOfSteps = n
    ti.automaticStepSize = False
    ti.generalizedAlpha.spectralRadius = rho_inf
    if output_period is None:
        output_period = h * max(1, int(np.floor(OUTPUT_PERIOD / h + 1e-9)))
    elif abs(output_period / h - round(output_period / h)) > 1e-9 or output_period < h:
        raise ValueError(f"output_period = {output_period!r} s must be a multiple of h = {h!r} s")
    settings.solution.sensors.writePeriod = output_period

    cpu_start, start = time.process_time(), time.perf_counter()
    ok = mbs.SolveDynamic(settings)
    solver_time = time.perf_counter() - start
    solver_cpu_time = time.process_time() - cpu_start
    if not ok:
        raise RuntimeError(f"Exudyn's dynamic solve failed (h = {h:g} s)")
    solver = mbs.sys["dynamicSolver"]
    steps = int(solver.it.currentStepIndex) - 1  # the index counts the initial state as step 0
    if steps != n:
        raise RuntimeError(f"Exudyn took {steps} steps instead of {n}: the step size was adapted")
    newton = int(solver.it.newtonStepsCount)

    data = np.asarray(mbs.GetSensorStoredData(items["position"]), dtype=float)
    along = np.asarray(mbs.GetSensorStoredData(items["sliding"]), dtype=float)
    t, x, y, s = data[:, 0], data[:, 1], data[:, 2], along[:, 1]
    if t[-1] < t_end - 0.5 * h:  # the final state when the output grid missed t_end
        out = exu.OutputVariableType
        p = mbs.GetNodeOutput(items["node"], out.Position)
        t = np.append(t, t_end)
        x, y = np.append(x, p[0]), np.append(y, p[1])
        s = np.append(s, mbs.GetObjectOutput(items["joint"], out.SlidingCoordinate))
    if np.max(s) >= items["length"]:
        raise RuntimeError("the mass left the beam: shorten t_end")
    return dict(
        t=t,
        x=x,
        y=y,
        s=s,
        output_period=output_period,
        solver_time=solver_time,
        solver_cpu_time=solver_cpu_time,
        steps=steps,
        newton_per_step=newton / steps,
        jacobians=int(solver.it.newtonJacobiCount),
        position0=position0,
        velocity0=velocity0,
    )


def max_difference(run: dict, ref: dict) -> float:
    """Max over run's output times of |position(run) - position(ref)| (m); ref must hold the
    same output times (a finer step with the same output grid)."""
    index = np.clip(np.searchsorted(ref["t"], run["t"] - 1e-12), 0, len(ref["t"]) - 1)
    if np.max(np.abs(ref["t"][index] - run["t"])) > 1e-9:
        raise RuntimeError("the output times of the run and its reference differ")
    return float(np.max(np.hypot(run["x"] - ref["x"][index], run["y"] - ref["y"][index])))


def own_error(n_elements=10, h=1e-4, t_end=0.1, refinement=16, rho_inf=0.9) -> float:
    """Max over the output times of |position(h) - position(h / refinement)| (m): Exudyn's
    discretisation error against itself."""
    return _own_error(n_elements, h, t_end, refinement, rho_inf)[1]


def _own_error(n_elements, h, t_end, refinement=16, rho_inf=0.9):
    run = run_exudyn(n_elements, h, t_end, rho_inf)
    ref = run_exudyn(n_elements, h / refinement, t_end, rho_inf, output_period=run["output_period"])
    return run, max_difference(run, ref)


def check_settings(n_elements=10, h=1e-4, t_end=0.1) -> float:
    """Max over the output times of |position (benchmark settings) - position (earlier
    settings: dense solver, absolute Newton tolerance 1e-10)| (m)."""
    new = run_exudyn(n_elements, h, t_end)
    old = run_exudyn(n_elements, h, t_end, benchmark=False)
    return max_difference(new, old)


def fe_contact_difference(n_elements=10, h=1e-4, t_end=0.1, h_exudyn=None) -> float:
    """Max over Exudyn's output times of |mass position (Exudyn) - mass position (fe_contact)|
    (m); fe_contact's run is ``fe_contact.demos.sliding_mass.run(mu=0)`` with the step h, Exudyn's
    with h_exudyn (default h)."""
    from fe_contact.demos.sliding_mass import run

    ex = run_exudyn(n_elements, h if h_exudyn is None else h_exudyn, t_end)
    system, result = run(mu=0.0, n_elements=n_elements, t_end=t_end, h=h, progress=False)
    q = result.q[:, system.layout.tree]  # the mass's (x, y): the two prismatic joints
    return max_difference(ex, dict(t=result.t, x=q[:, 0], y=q[:, 1]))


def main(argv=None):
    import argparse

    import exudyn as exu

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--t-end", type=float, default=0.5, help="s (default 0.5, the demo's)")
    parser.add_argument("--elements", type=int, default=10)
    parser.add_argument(
        "--check-settings",
        action="store_true",
        help="only compare the benchmark settings with the earlier ones (dense, abs. tol. 1e-10)",
    )
    args = parser.parse_args(argv)
    n_elements, t_end = args.elements, args.t_end
    if args.check_settings:
        print("max |position(benchmark settings) - position(earlier settings)|:")
        for h in (4e-4, 1e-4, 2.5e-5):
            print(f"  h = {h:g} s: {check_settings(n_elements, h, t_end):.2e} m", flush=True)
        return
    print(
        f"Exudyn {exu.__version__}: sliding mass, {n_elements} ANCFCable2D elements, "
        f"t_end = {t_end:g} s, generalised-alpha rho_inf = 0.9, own error against h/16"
    )
    print(
        f"{'h [s]':>10} {'solver/sim [s/s]':>17} {'per step [us]':>14} {'newton/step':>12} "
        f"{'own error [m]':>14}"
    )

    def row(h):
        run, error = _own_error(n_elements, h, t_end)
        best = min(
            run["solver_time"], *(run_exudyn(n_elements, h, t_end)["solver_time"] for _ in range(2))
        )
        print(
            f"{h:10.3g} {best / t_end:17.3f} {1e6 * best / run['steps']:14.1f} "
            f"{run['newton_per_step']:12.2f} {error:14.2e}",
            flush=True,
        )
        return error

    passing = [h for h in STEPS if row(h) <= TARGET]
    if not passing:
        print(f"no h in the table reaches an own error <= {TARGET:g} m")
        return
    best = max(passing)
    print(f"largest h of the table with own error <= {TARGET:g} m: {best:g} s")
    print("beyond the table (h doubled while the own error stays <= the target):")
    h = 2.0 * best
    while t_end / h >= 10 and row(h) <= TARGET:
        best, h = h, 2.0 * h
    print(f"largest h with own error <= {TARGET:g} m: {best:g} s")


if __name__ == "__main__":
    main()
