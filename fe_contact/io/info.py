"""A model file in words: ``fe-contact info MODEL.toml``."""

from __future__ import annotations

import math

from ..elements.beam_model import BeamSpec
from ..rough import Polyline
from ..sides import Circle, Line, Point, Profile


def _structure(name, spec, n_dofs) -> str:
    if isinstance(spec, BeamSpec):
        what = (
            f"beam, L = {spec.length:g} m, {len(spec.nodes()) - 1} elements, "
            f"EI = {spec.bending_stiffness:.4g} N m^2, rho A = {spec.mass_per_length:.4g} kg/m, "
            f"{spec.left}/{spec.right}"
        )
    else:
        law = type(spec.law).__name__
        what = (
            f"string, L = {spec.length:g} m, {spec.n_elements} elements, {law}, "
            f"rho0 A = {spec.density:g} kg/m, {len(spec.supports)} supports"
        )
    return f"    {name}: {what}; {n_dofs} free coordinates"


def _side(side) -> str:
    """A line, a curved profile, a rough polyline or a wheel in a few words."""
    if isinstance(side, Line):
        return f"line through ({side.point[0]:g}, {side.point[1]:g}) m"
    if isinstance(side, Profile):
        curve = side.curve
        where = "fixed" if side.body is None else f"on body {side.body!r}"
        return f"{curve.kind} curve of degree {curve.degree} ({len(curve.control_points)} control points) {where}"
    if isinstance(side, Polyline):
        return f"rough polyline of {side.profile.n_points} vertices on body {side.body}"
    return f"wheel of {side.rim.n_points} rim vertices turning at {side.omega:g} rad/s"


def _contact(c) -> str:
    p = c.profile
    if isinstance(p, Point):
        profile = (
            f"point {p.at!r} of body {p.body}"
            if isinstance(p.at, str)
            else (f"point ({p.at[0]:g}, {p.at[1]:g}) m of body {p.body}")
        )
    elif isinstance(p, Circle):
        profile = f"circle R = {p.radius:g} m on body {p.body}"
    else:
        profile = _side(p)
    target = c.target if isinstance(c.target, str) else _side(c.target)
    law = c.law.summary()
    search = f", grid of {c.n_candidates} points" if c.search == "grid" else ""
    return f"    {c.name}: {profile} on {target}; {law}{search}"


def describe(prepared, source: str) -> str:
    """Several lines: structures, tree, degrees of freedom, contacts, drives, loads, run."""
    mf, system = prepared.model_file, prepared.system
    model, lay = mf.model, system.layout
    lines = [source]
    lines.append(f"  structures ({len(model.structures)}):")
    for name, spec in model.structures.items():
        sl = lay.structure(name)
        lines.append(_structure(name, spec, sl.stop - sl.start))
    if model.tree is not None:
        kinds = ", ".join(j.kind for j in model.tree.joints)
        mass = sum(b.mass for b in model.tree.bodies)
        lines.append(f"  tree: {model.tree.n_bodies} bodies ({kinds}), total mass {mass:g} kg")
    else:
        lines.append("  tree: none")
    parts = [f"tree {lay.n_tree}"] + [
        f"{n} {lay.structure(n).stop - lay.structure(n).start}" for n in lay.structure_names
    ]
    lines.append(f"  degrees of freedom: {lay.n} ({', '.join(parts)})")
    lines.append(f"  contacts ({len(model.contacts)}):")
    lines += [_contact(c) for c in model.contacts]
    for d in model.drives:
        rate = getattr(d.position, "rate", math.nan)
        lines.append(f"  drive: joint {d.joint} at {rate:g} per s")
    if model.loops:
        lines.append(f"  loop closures: {', '.join(loop.name for loop in model.loops)}")
    for load in model.loads:
        lines.append(f"  load: {load.force} N on {load.structure} at s = {load.s:g} m")
    lines.append(
        f"  gravity: ({model.gravity[0]:g}, {model.gravity[1]:g}) m/s^2"
        + ("" if model.structure_gravity else ", structures weightless")
    )
    sim = mf.simulation
    h = sim.step()
    steps = math.ceil((sim.t_end - sim.t_start) / h - 1e-9)
    settings = "".join(f", {k} = {v!r}" for k, v in sim.settings.items())
    lines.append(
        f"  simulation: {sim.method}, t = {sim.t_start:g} .. {sim.t_end:g} s, h = {h:g} s "
        f"({steps} steps){settings}"
    )
    out = mf.output
    frames = f"frames every {out.frame_every:g} s" if out.frame_every > 0 else "no frames"
    results = ", ".join(out.results) or "none"
    lines.append(f"  output: {frames}; results: {results}")
    return "\n".join(lines)


__all__ = ["describe"]
