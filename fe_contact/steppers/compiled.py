"""The generalised-alpha stepper with its Newton iteration compiled (numba), where it applies.

``CompiledGeneralizedAlpha`` is ``GeneralizedAlpha`` whose step (``_newton_step``) runs in one
compiled call (``kernels.step.newton``): the tree's kinematics and dynamics, the contacts'
closest points and kinematics, the partitioning (Lipinski (002), eqs. 73, 76, 78a-b), the
bordered solve with the structures' block G_f = M_f + gamma' C_f + beta' K_f factorised once
per step size (banded Cholesky: G_f is symmetric positive definite for linear beams with
Rayleigh damping) and the Newton test, all on flat arrays laid out by ``StateLayout``. Python
is touched once per step. The equations, the tests and the order of the iterates are those of
the Python step, so the trajectories agree to round-off (the factorisation and the order of
the sums differ).

What it takes (``unsupported`` says why a system is not taken): a tree (revolute and
prismatic joints, springs, dampers, actuators), drives, linear beams (``BeamSpec``) or none,
and bilateral ``Sliding`` contacts of points or circles on beams or on rigid lines (fixed, or
on a translating body) with Coulomb friction, slipping or sticking. What a step cannot finish
is handed back to the Python step, which redoes the step from the committed state: a contact
leaving its beam, a nearly singular J_u or J_Sigma,u (Painleve), a Newton iteration that does
not converge, a drive giving a non-finite value. A sticking circle rolls: its velocity-level
row takes its position value from the committed state's W_T (``constraints.rolling_position``).
Events (stick, reversal), restarts, reports and the bookkeeping of the step stay in
``GeneralizedAlpha``. Systems with strings, loop closures, unilateral contacts or the continuous
friction law run on ``GeneralizedAlpha`` unchanged.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import scipy.linalg

from ..coupling.constraints import Evaluation
from ..coupling.kinematics import ContactKinematics
from ..kernels import announce_compilation
from ..kernels.beam import (
    ELEMENT,
    GAP,
    NX,
    PX,
    QX,
    REM,
    REM_T,
    SRATE,
    TX,
    VN,
    VT,
    S,
    beam_arrays,
    csr_arrays,
)
from ..kernels.numerical import numerical_dissipation as compiled_dissipation
from ..kernels.pack import pack
from ..kernels.step import FLAT, OK, delassus, newton
from ..kernels.step import packed_energies as compiled_energies
from ..kernels.tree import tree_arrays
from ..model import Circle, Line, Point
from ..multibody.tree import actuator_forces
from ..structures import BeamStructure
from ..system import Energies, System
from .batch import take_steps
from .genalpha import GeneralizedAlpha
from .partitioned_step import StepAlgebra

# banded factors of G_f kept per system (step sizes; the least recently used goes first):
# locating an event takes the step at some ten sizes, each factorised once
FACTORS_KEPT = 16


def unsupported(system: System) -> str | None:
    """Why the compiled step does not take ``system`` (None when it does)."""
    model = system.model
    if system.tree is None:
        return "no tree"
    if not all(isinstance(s, BeamStructure) for s in system.structures.values()):
        return "a structure that is not a linear beam"
    if model.loops:
        return "loop closures"
    for c in model.contacts:
        if not c.law.compiled:  # the kernels: a bilateral law with a constant mu
            return f"contact {c.name!r}: not a Coulomb Sliding law"
        if not isinstance(c.profile, Point | Circle) or c.search != "closest":
            return f"contact {c.name!r}: profile or search"
        if not isinstance(c.target, str | Line):
            return f"contact {c.name!r}: a target that is neither a beam nor a line"
    if not model.contacts and not model.drives:
        return "no constraint rows"
    return None


class Plan:
    """The constant arrays of a system for the compiled step (``kernels.step``), the drives
    and actuators evaluated per step, and the banded factors of G_f per step size: run state
    (which factor a step reuses depends on the steps before), so each stepper makes its own."""

    def __init__(self, system: System):
        model = system.model
        tree = system.tree
        lay = system.layout
        beams = {n: system.structures[n] for n in lay.structure_names}
        names = list(beams)
        contacts = [c for c in model.contacts if c.bilateral]
        points = [system.profile_points[model.contacts.index(c)] for c in contacts]
        lines = [None if isinstance(c.target, str) else c.target for c in contacts]
        self.contacts = (
            np.array([c.profile.body for c in contacts], dtype=np.int64),
            np.array(points, dtype=float).reshape(-1, 2),
            np.array([c.profile.radius for c in contacts], dtype=float),
            np.array([float(c.side) for c in contacts]),
            np.array(
                [
                    -1 if ln else names.index(c.target)
                    for c, ln in zip(contacts, lines, strict=True)
                ],
                dtype=np.int64,
            ),
            np.array([c.mu for c in contacts], dtype=float),
            np.array(
                [(0.0,) * 4 if ln is None else (*ln.point, *ln.normal) for ln in lines], dtype=float
            ).reshape(-1, 4),
            np.array(
                [-1 if ln is None or ln.body is None else ln.body for ln in lines], dtype=np.int64
            ),
        )
        self.drives = model.drives
        joints = (
            np.array([j.stiffness for j in tree.joints], dtype=float),
            np.array([j.damping for j in tree.joints], dtype=float),
            np.array([j.rest for j in tree.joints], dtype=float),
        )
        M, C, K = system.mass_flexible, system.damping_flexible, system.stiffness_flexible
        flexible = (
            csr_arrays(M),
            csr_arrays(C),
            csr_arrays(K),
            csr_arrays(abs(M)),
            csr_arrays(abs(C)),
            csr_arrays(abs(K)),
            np.ascontiguousarray(system.load_flexible, dtype=float),
            np.ascontiguousarray(M.diagonal(), dtype=float),
        )
        self.P = (
            tree_arrays(tree),
            beam_arrays(beams, lay),
            self.contacts,
            np.array([d.joint for d in model.drives], dtype=np.int64),
            joints,
            flexible,
            lay.n_tree,
        )
        self.packed = pack(self.P)
        self.tree = tree
        self._still = None
        if not self.drives and all(j.actuator is None for j in tree.joints):
            self._still = (np.zeros((0, 3)), np.zeros(lay.n_tree))
        self._mck = (M, C, K)
        self._factors = {}
        self._indices = {}

    def factor(self, bp: float, gp: float):
        """Lower banded Cholesky factor of G_f = M_f + gp C_f + bp K_f (cached; the first
        row holds the reciprocals of its diagonal: ``kernels.beam.band_solve``), or None when
        G_f is not symmetric positive definite (then the Python step takes over)."""
        for key in reversed(self._factors):  # most recently used last
            # a step size that differs in its last bits ((t + h) - t) takes the same factor:
            # the iteration matrix then differs at round-off, the converged step not at all
            if abs(key[0] - bp) <= 1e-12 * bp and abs(key[1] - gp) <= 1e-12 * gp:
                self._factors[key] = self._factors.pop(key)
                return self._factors[key]
        key = (bp, gp)
        if len(self._factors) >= FACTORS_KEPT:
            del self._factors[next(iter(self._factors))]
        M, C, K = self._mck
        if M.shape[0] == 0:  # no structure: an empty factor
            self._factors[key] = np.ones((1, 0))
            return self._factors[key]
        G = (M + gp * C + bp * K).tocoo()
        size = np.max(np.abs(G.data), initial=0.0)
        asym = abs(G - G.T).max() if G.nnz else 0.0
        factor = None
        if G.nnz and asym <= 1e-13 * size:
            lower = G.row >= G.col
            bw = int(np.max(G.row[lower] - G.col[lower]))
            ab = np.zeros((bw + 1, G.shape[0]))
            ab[G.row[lower] - G.col[lower], G.col[lower]] = G.data[lower]
            try:
                factor = np.ascontiguousarray(scipy.linalg.cholesky_banded(ab, lower=True))
                factor[0] = 1.0 / factor[0]  # the kernels multiply by the reciprocals
            except np.linalg.LinAlgError:
                factor = None
        self._factors[key] = factor
        return self._factors[key]

    def motion(self, t: float):
        """(drive values (n_d, 3): position, velocity, acceleration; actuator forces (n_t,))
        at t, or None when a drive gives a non-finite value or a drive or an actuator raises
        (the Python step reports it: the steps of a batch before that time are kept)."""
        if self._still is not None:  # no drives, no actuators: nothing depends on t
            return self._still
        try:  # a callable that fails is reported by the Python step, which calls it again
            values = np.array(
                [(d.position(t), d.velocity(t), d.acceleration(t)) for d in self.drives],
                dtype=float,
            ).reshape(-1, 3)
            forces = actuator_forces(self.tree, t)
        except Exception:  # noqa: BLE001 - any failure of a user callable
            return None
        if not np.all(np.isfinite(values)):
            return None
        return values, forces

    def motions(self, times: np.ndarray):
        """``motion`` at each of the times: drive values (k, n_d, 3) and actuator forces
        (k, n_t), up to the first time at which a drive gives a non-finite value or a drive
        or an actuator raises (``motion``)."""
        k = times.size
        if self._still is not None:
            return np.zeros((k, 0, 3)), np.zeros((k, self.P[6]))
        drive = np.empty((k, len(self.drives), 3))
        actuators = np.empty((k, self.P[6]))
        for j, t in enumerate(times.tolist()):
            values = self.motion(t)
            if values is None:
                return drive[:j], actuators[:j]
            drive[j], actuators[j] = values
        return drive, actuators

    def indices(self, part):
        """(independent, dependent) of a partition as int64 arrays (cached per partition)."""
        key = id(part)
        if key not in self._indices:
            self._indices = {
                key: (
                    part,
                    np.ascontiguousarray(part.independent, dtype=np.int64),
                    np.ascontiguousarray(part.dependent, dtype=np.int64),
                )
            }
        return self._indices[key][1:]


def _margin(D0: np.ndarray, D: np.ndarray) -> float:
    """min Re eig(D) / max |eig(sym D0)| (``StepAlgebra.painleve_margin``), in closed form up
    to two rows."""
    m = D.shape[0]
    if m == 1:
        return float(D[0, 0]) / abs(float(D0[0, 0]))
    if m == 2:
        a, b, c = float(D0[0, 0]), 0.5 * float(D0[0, 1] + D0[1, 0]), float(D0[1, 1])
        mean, radius = 0.5 * (a + c), math.hypot(0.5 * (a - c), b)
        scale = max(abs(mean + radius), abs(mean - radius))
        half = 0.5 * float(D[0, 0] + D[1, 1])
        disc = half * half - float(D[0, 0] * D[1, 1] - D[0, 1] * D[1, 0])
        low = half - math.sqrt(disc) if disc >= 0.0 else half
        return low / scale
    scale = np.max(np.abs(np.linalg.eigvalsh(0.5 * (D0 + D0.T))))
    return float(np.min(np.real(np.linalg.eigvals(D)))) / scale


@functools.lru_cache(maxsize=64)
def _pieces(n: int, k: int, m: int, c: int, t: int) -> tuple:
    """(start, stop, shape) of each piece of ``kernels.step.newton``'s flat result
    (``kernels.step.FLAT``) for n coordinates, k independent ones, m rows, c contacts and t
    tree coordinates."""
    sizes = {"n": n, "k": k, "m": m, "c": c, "t": t}
    out, start = [], 0
    for _, dims in FLAT:
        shape = tuple(int(d) if d.isdigit() else sizes[d] for d in dims.split())
        size = math.prod(shape)
        out.append((start, start + size, shape))
        start += size
    return tuple(out)


def _split(flat: np.ndarray, pieces: tuple) -> list[np.ndarray]:
    """The pieces of the flat result as views."""
    return [flat[a:b].reshape(shape) for a, b, shape in pieces]


class CompiledAlgebra(StepAlgebra):
    """``StepAlgebra`` whose Painleve margin (J M^-1 J_Sigma^T) is formed compiled."""

    def __init__(self, system: System, params, plan: Plan):
        super().__init__(system, params)
        self.plan = plan

    def painleve_margin(self, ev, mu) -> float:
        if not np.any(mu > 0) or ev.phi.size == 0:
            return 1.0
        LM = self.plan.factor(0.0, 0.0)
        if LM is None:
            return super().painleve_margin(ev, mu)
        return _margin(*delassus(*self.plan.packed, LM, ev.mass_tree, ev.jac, ev.jac_sigma))


class CompiledGeneralizedAlpha(GeneralizedAlpha):
    """``GeneralizedAlpha`` with the compiled step where it applies (module docstring); the
    same settings. ``n_compiled`` counts the steps taken compiled, ``n_fallback`` those handed
    back to the Python step after a compiled attempt."""

    def __init__(self, system: System, t0: float, q0, u0, batch: bool = True, **settings):
        self.plan = Plan(system)  # this run's: it keeps the factors of its step sizes
        announce_compilation()  # the first compiled run after installation compiles
        self.n_compiled = self.n_fallback = 0
        if not isinstance(batch, bool):
            raise TypeError(f"simulate: batch = {batch!r}; allowed: True or False")
        self.batch = batch
        self._batch_size = 16  # steps of the next batch (``batch.take_steps``)
        self._wait, self._backoff = 0, 1  # batches not tried after one that took no step
        super().__init__(system, t0, q0, u0, **settings)

    @property
    def algebra(self) -> StepAlgebra:
        return self._algebra

    @algebra.setter
    def algebra(self, value: StepAlgebra) -> None:
        # the Python stepper makes its StepAlgebra; this one forms the Painleve margin compiled
        algebra = CompiledAlgebra.__new__(CompiledAlgebra)
        algebra.__dict__.update(value.__dict__)
        algebra.plan = self.plan
        self._algebra = algebra

    def _energies(self, ev) -> Energies:
        """The energies at ev, compiled."""
        actuators = actuator_forces(self.system.tree, ev.t)
        return Energies(*compiled_energies(*self.plan.packed, ev.q, ev.u, actuators))

    def _step_dissipation(self, h: float, part, start, a1, ev) -> float:
        """``genalpha.numerical_dissipation``, compiled (``kernels.numerical``: the batches
        book the same numbers)."""
        ind, U = self.plan.indices(part)
        p = self.params
        alpha = (p.alpha_m, p.alpha_f, p.gamma, p.beta)
        u_n, acc_n, pseudo_n = start
        return compiled_dissipation(
            *self.plan.packed,
            alpha,
            h,
            ind,
            U,
            u_n,
            self.u,
            acc_n,
            self.acceleration,
            pseudo_n,
            np.ascontiguousarray(a1, dtype=float),
            np.ascontiguousarray(ev.mass_tree, dtype=float),
            np.ascontiguousarray(ev.jac, dtype=float),
        )

    def _newton_step(self, h: float):
        result = self._compiled_step(h)
        if result is None:
            return super()._newton_step(h)
        return result

    def _compiled_step(self, h: float):
        if np.any(self.part.dependent >= self.system.layout.n_tree):
            return None  # structure coordinates among the dependent ones: the Python step
        plan = self.plan
        p = self.params
        bp, gp = self.algebra.coefficients(h)
        factor = plan.factor(bp, gp)
        t1 = self.t + h
        motion = plan.motion(t1)
        if factor is None or motion is None:
            return None
        ind, U = plan.indices(self.part)
        ydd0 = self.acceleration[ind].copy()
        if self._previous is not None:
            acc_prev, h_prev = self._previous
            ydd0 += (h / h_prev) * (self.acceleration[ind] - acc_prev[ind])
        prev = self._prev()
        coef = (h, bp, gp, p.alpha_m, p.alpha_f, p.gamma, p.beta, t1)
        cstate = self._cstate()
        slip_sign = cstate[:, 0].copy()
        status, its, cond, flat = newton(
            *plan.packed,
            factor,
            coef,
            motion[0],
            motion[1],
            ind,
            U,
            self.q,
            self.u,
            self.acceleration,
            self.pseudo,
            ydd0,
            prev,
            cstate,
            self._s,
            self.tol,
            self.rtol,
            self.max_newton,
        )
        if status != OK:
            self.n_fallback += 1
            return None
        self.n_newton += its
        self.n_compiled += 1
        self._previous = (self.acceleration, h)
        start = (self.u, self.acceleration, self.pseudo)
        part = self.part
        self._commit(flat, t1, ind, slip_sign)
        a1 = self.pseudo[ind]
        self._numerical += self._step_dissipation(h, part, start, a1, self.evaluation)
        if cond > self.recondition * max(self._cond0, 1.0):
            self.part = self._choose(self.evaluation)
        return self.evaluation

    def _commit(self, flat, t1: float, ind, slip_sign) -> None:
        """Commit the step ending at t1 whose result is ``flat`` (``kernels.step.FLAT``)."""
        pieces = _pieces(
            self.q.size, ind.size, self.part.dependent.size, slip_sign.size, self.plan.P[6]
        )
        q1, u1, acc, a1, lam, phi, jac, js, rem, phit, rec, wn, wt, mass_tree, forces = _split(
            flat, pieces
        )
        contacts = tuple(
            ContactKinematics(
                parameter=float(r[S]),
                element=int(r[ELEMENT]),
                point=r[PX : PX + 2],
                profile_point=r[QX : QX + 2],
                normal=r[NX : NX + 2],
                tangent=r[TX : TX + 2],
                gap=float(r[GAP]),
                normal_velocity=float(r[VN]),
                slip_velocity=float(r[VT]),
                w_normal=wn[i],
                w_tangent=wt[i],
                remainder=float(r[REM]),
                parameter_rate=float(r[SRATE]),
                tangent_remainder=float(r[REM_T]),
            )
            for i, r in enumerate(rec)
        )
        self.evaluation = Evaluation(
            t=t1,
            q=q1,
            u=u1,
            mass_tree=mass_tree,
            forces=forces,
            phi=phi,
            jac=jac,
            jac_sigma=js,
            remainder=rem,
            phi_t=phit,
            contacts=contacts,
            slip_sign=slip_sign.copy(),
            contact_index=self._sliding,
            friction=self._mu * slip_sign,  # constant-mu Coulomb (``unsupported``)
        )
        self.t, self.q, self.u = t1, q1, u1
        self.acceleration = acc
        self.pseudo = acc.copy()
        self.pseudo[ind] = a1
        self.multipliers = lam
        self._s = rec[:, S].copy()
        self.n_substeps += 1

    def _cstate(self) -> np.ndarray:
        """Per contact: slip sign, 1 while it sticks, its anchor (``kernels.step.newton``)."""
        slip_sign = np.asarray(self._slip_sign, dtype=float)
        cstate = np.zeros((slip_sign.size, 5))
        cstate[:, 0] = slip_sign
        for i, anchor in enumerate(self._stick[: slip_sign.size]):  # the contacts' entries
            if anchor is not None:
                cstate[i, 1:] = (1.0, anchor.parameter, *anchor.direction)
        return cstate

    def _prev(self) -> tuple:
        """(q, u, phi, J, phi_t, t, W_T) of the committed evaluation (``kernels.step.newton``):
        W_T (n_c, n) is the base of a rolling circle's position value."""
        ev = self.evaluation
        n_c = len(self._slip_sign)
        w_t = np.zeros((n_c, ev.q.size))
        for i, c in enumerate(ev.contacts[:n_c]):
            if c is not None and self._stick[i] is not None:
                w_t[i] = c.w_tangent
        return (ev.q, ev.u, ev.phi, ev.jac, ev.phi_t, float(ev.t), w_t)

    def steps(self, n_max: int):
        """Up to n_max full steps of h in one compiled call (``kernels.loop.steps``), as many
        as follow one another with nothing but the step happening in them; each is committed
        and counted as ``step()`` does. Returns a ``batch.StepBatch`` of what they report (0
        steps when the next one needs ``step()``), or None when the stepper's state or
        settings need ``step()`` anyway (error control, sub-steps growing after an event, an
        iteration matrix that is not symmetric positive definite). After a batch that took no
        step none is tried for the next 1, 2, 4, ... 64 calls (None), until one takes steps."""
        if self._wait:
            self._wait -= 1
            return None
        batch = take_steps(self, n_max)
        if batch is not None and batch.n:
            self._backoff = 1
        elif batch is not None:
            self._wait, self._backoff = self._backoff, min(2 * self._backoff, 64)
        return batch


def generalized_alpha(system: System, settings: dict):
    """(stepper class, settings) of method "generalized-alpha": the compiled stepper when
    ``settings["compiled"]`` (default True) and the system is one it takes, else the Python
    one; the ``compiled`` key is removed from the settings, and ``batch`` (default True:
    quiet steps taken several in one compiled call, ``batch.take_steps``) is passed to the
    compiled stepper only."""
    settings = dict(settings)
    wanted = settings.pop("compiled", True)
    batch = settings.pop("batch", True)
    for name, value in (("compiled", wanted), ("batch", batch)):
        if not isinstance(value, bool):
            raise TypeError(f"simulate: {name} = {value!r}; allowed: True or False")
    if wanted and not settings.get("energy_consistent", False) and unsupported(system) is None:
        return CompiledGeneralizedAlpha, {**settings, "batch": batch}
    return GeneralizedAlpha, settings


__all__ = [
    "CompiledAlgebra",
    "CompiledGeneralizedAlpha",
    "Plan",
    "generalized_alpha",
    "unsupported",
]
