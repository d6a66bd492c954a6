"""Model file tables <-> the library's objects: ``build_model`` turns a validated document
into a ``Model`` (every mistake collected with its key path), ``model_tables`` writes a
``Model`` back as plain TOML values (floats kept exactly)."""

from __future__ import annotations

from ..laws import FILE_LAWS, file_keys, law_from_table
from ..model import ContactPair, Model
from ..multibody.drive import LinearMotion
from ..multibody.joints import Joint
from ..multibody.tree import Body, TreeModel
from ..sides import Circle, Point
from . import model_schema as schema
from .model_parts import (
    DRIVES,
    PARTS,
    SENSORS,
    SIDES,
    STRUCTURES,
    drive_table,
    object_of,
    side_of,
    table_of,
    tagged_of,
)
from .model_problems import MISSING, Problem, join, library_call, validate

# -- file -> objects -------------------------------------------------------------------------


def _pair(value):
    return None if value is None else (float(value[0]), float(value[1]))


def _structure(name: str, raw, gravity, problems: list[Problem]):
    """A BeamSpec or StringSpec from its table (``type`` its tag; a string's gravity is the
    file's)."""
    path = ("structures", name)
    if not name.isidentifier():
        problems.append(Problem(join(path), MISSING, "a structure name is an identifier"))
    given = {"gravity": gravity}
    return tagged_of(STRUCTURES, raw, path, problems, tag="type", given=given)


def _joint(i: int, raw, path: tuple, problems: list[Problem]):
    """The Joint of body ``i`` from its table (an ``actuator`` table is value + rate t)."""
    if not isinstance(raw, dict):
        problems.append(Problem(join(path), raw, "allowed: a table of Joint's keys"))
        return None
    parent = raw.get("parent")
    if isinstance(parent, int) and not isinstance(parent, bool) and parent >= i:
        allowed = f"0..{i - 1}" if i else "none (body 0 hangs on the ground)"
        problems.append(
            Problem(
                join(path, "parent"),
                parent,
                f"allowed: an earlier body {allowed}; omit it for the ground",
            )
        )
        return None
    values = dict(raw)
    if isinstance(raw.get("actuator"), dict):  # value + rate t
        values["actuator"] = object_of(LinearMotion, raw["actuator"], (*path, "actuator"), problems)
        if values["actuator"] is None:
            return None
    return object_of(Joint, values, path, problems)


def _tree(raw, gravity, problems: list[Problem]):
    table = validate(schema.TreeTable, raw, ("tree",), problems)
    if table is None:
        return None
    bodies, joints = [], []
    for i, raw_body in enumerate(table.bodies):
        path = ("tree", "bodies", i)
        if not isinstance(raw_body, dict):
            problems.append(Problem(join(path), raw_body, "allowed: a table of Body's keys"))
            bodies.append(None)
            continue
        own = {k: v for k, v in raw_body.items() if k != "joint"}
        bodies.append(object_of(Body, own, path, problems, more=("joint",)))
        if "joint" not in raw_body:
            problems.append(Problem(join(path, "joint"), MISSING, "missing; this key is required"))
            joints.append(None)
            continue
        joints.append(_joint(i, raw_body["joint"], (*path, "joint"), problems))
    if None in bodies or None in joints:
        return None
    points = {name: (p.body, _pair(p.at)) for name, p in table.points.items()}
    return library_call(
        lambda: TreeModel(tuple(bodies), tuple(joints), points=points, gravity=gravity),
        ("tree",),
        raw,
        problems,
    )


def _law(raw, path: tuple, problems: list[Problem]):
    """The law of a contact table from its ``law`` and that law's keys, checked by the law
    alone (whatever the other keys hold); None with the problems added. A key of another law
    is a problem; a ``law`` that no law has is the table's (``schema.contact_table``)."""
    name = raw.get("law", "sliding") if isinstance(raw, dict) else None
    if not isinstance(name, str) or name not in FILE_LAWS:
        return None
    own = file_keys(FILE_LAWS[name])
    count = len(problems)
    for key in sorted({k for law in FILE_LAWS.values() for k in file_keys(law)} - own.keys()):
        if raw.get(key) is not None:  # a key of other laws
            takes = [n for n, law in FILE_LAWS.items() if key in file_keys(law)]
            allowed = "allowed only with law " + " or ".join(repr(n) for n in takes)
            problems.append(Problem(join(path, key), raw[key], allowed))
    if len(problems) > count:
        return None
    values = {key: raw[key] for key in own if key in raw}
    return library_call(lambda: law_from_table(name, values), path, raw, problems)


def _contact(name: str, raw, problems: list[Problem]):
    path = ("contacts", name)
    law = _law(raw, path, problems)
    table = validate(schema.contact_table(), raw, path, problems)
    if table is None:
        return None
    count = len(problems)
    flat = ("body", "at", "radius", "centre")  # the keys of a flattened point or circle
    if isinstance(table.profile, dict):
        for key in flat:
            if raw.get(key) is not None:
                where = join(path, "profile", key)
                problems.append(Problem(join(path, key), raw[key], f"allowed: as {where}"))
    elif table.profile not in ("point", "circle"):
        problems.append(
            Problem(
                join(path, "profile"),
                table.profile,
                "allowed: 'point', 'circle' or a table with a kind: "
                + " or ".join(repr(k) for k in SIDES),
            )
        )
    else:
        point_keys, circle_keys = ("at",), ("radius", "centre")
        wrong = circle_keys if table.profile == "point" else point_keys
        for key in wrong:
            if raw.get(key) is not None:
                problems.append(
                    Problem(join(path, key), raw[key], f"not a key of a {table.profile} profile")
                )
        if table.body is None:
            problems.append(Problem(join(path, "body"), MISSING, "missing; this key is required"))
        if table.profile == "circle" and table.radius is None:
            problems.append(Problem(join(path, "radius"), MISSING, "a circle needs its radius > 0"))
    if len(problems) > count:
        return None
    if isinstance(table.profile, dict):
        profile = side_of(raw["profile"], (*path, "profile"), problems)
    elif table.profile == "point":
        at = (0.0, 0.0) if table.at is None else table.at
        profile = library_call(
            lambda: Point(table.body, at if isinstance(at, str) else _pair(at)), path, raw, problems
        )
    else:
        centre = (0.0, 0.0) if table.centre is None else _pair(table.centre)
        profile = library_call(
            lambda: Circle(table.body, table.radius, centre), path, raw, problems
        )
    target = table.target
    if isinstance(target, dict):  # a side table; without a kind, a line (the first format)
        target = side_of(raw["target"], (*path, "target"), problems, default_kind="line")
    if profile is None or law is None or target is None:
        return None
    return library_call(
        lambda: ContactPair(
            name, profile, target, law, table.side, table.search, table.n_candidates
        ),
        path,
        raw,
        problems,
    )


def _drive(i: int, raw, problems: list[Problem]):
    """A drive from its table (``DRIVES``; without a ``kind``, constant_velocity)."""
    return tagged_of(DRIVES, raw, ("drives", i), problems, default_kind="constant_velocity")


def _sensor(i: int, raw, problems: list[Problem]):
    """A sensor from its ``[[output.sensors]]`` table (a ``kind`` tag per sensor class)."""
    return tagged_of(SENSORS, raw, ("output", "sensors", i), problems)


def build_model(doc: schema.Document, raw: dict, problems: list[Problem]) -> Model | None:
    """The Model of a validated top level; None when some part has a problem (added)."""
    gravity = _pair(doc.gravity)
    structures = {
        name: _structure(name, value, gravity, problems) for name, value in doc.structures.items()
    }
    tree = None if doc.tree is None else _tree(doc.tree, gravity, problems)
    contacts = [_contact(name, value, problems) for name, value in doc.contacts.items()]
    drives = [_drive(i, value, problems) for i, value in enumerate(doc.drives)]
    # [[carried]], [[loops]], [[loads]], [[supports]]
    arrays = {
        key: [object_of(cls, v, (key, i), problems) for i, v in enumerate(getattr(doc, key))]
        for key, cls in PARTS.items()
    }
    loops, loads, supports, carried = (arrays[k] for k in ("loops", "loads", "supports", "carried"))
    raw_sensors = doc.output.get("sensors", []) if isinstance(doc.output, dict) else []
    raw_sensors = raw_sensors if isinstance(raw_sensors, list) else []  # OutputTable says why
    sensors = [_sensor(i, value, problems) for i, value in enumerate(raw_sensors)]
    parts = [*structures.values(), *contacts, *drives, *loops, *loads, *supports, *sensors]
    parts += carried
    if None in parts or (doc.tree is not None and tree is None):
        return None
    base = {
        "tree": tree,
        "structures": structures,
        "gravity": gravity,
        "structure_gravity": doc.structure_gravity,
    }
    count = len(problems)
    if library_call(lambda: Model(**base), (), raw, problems) is None:
        return None
    for i, body in enumerate(carried):  # before the contacts: a Profile may ride on one
        library_call(
            lambda b=body: Model(**base, carried=(b,)), ("carried", i), raw["carried"][i], problems
        )
    if len(problems) > count:
        return None
    base["carried"] = tuple(carried)
    # one part at a time, so that a cross-reference names its own key path
    for key, items, names in (
        ("contacts", contacts, list(doc.contacts)),
        ("drives", drives, range(len(drives))),
        ("loops", loops, range(len(loops))),
        ("loads", loads, range(len(loads))),
        ("supports", supports, range(len(supports))),
    ):
        for item, name in zip(items, names, strict=True):
            raw_item = raw[key][name]
            library_call(
                lambda i=item, k=key: Model(**base, **{k: (i,)}), (key, name), raw_item, problems
            )
    for i, (sensor, raw_item) in enumerate(zip(sensors, raw_sensors, strict=True)):
        library_call(
            lambda s=sensor: Model(**base, sensors=(s,)),
            ("output", "sensors", i),
            raw_item,
            problems,
        )
    if len(problems) > count:
        return None
    whole = {"contacts": contacts, "drives": drives, "loops": loops, "loads": loads}
    whole["supports"] = supports
    whole["sensors"] = sensors
    return library_call(lambda: Model(**base, **whole), (), raw, problems)


# -- objects -> file -------------------------------------------------------------------------


def _floats(values) -> list[float]:
    return [float(v) for v in values]


def _actuator(joint: Joint, i: int):
    act = joint.actuator
    if act is None or isinstance(act, int | float):
        return act if act is None else float(act)
    if isinstance(act, LinearMotion):
        return {"value": float(act.value), "rate": float(act.rate)}
    raise ValueError(
        f"tree joint {i}: actuator = {act!r} cannot be written to a model file; allowed: None, "
        "a constant, or value + rate t"
    )


def _tree_table(tree: TreeModel) -> dict:
    bodies = []
    for i, (body, joint) in enumerate(zip(tree.bodies, tree.joints, strict=True)):
        joint_table = {"kind": joint.kind}
        if joint.parent is not None:
            joint_table["parent"] = int(joint.parent)
        joint_table["location"] = _floats(joint.location)
        for name in ("angle", "stiffness", "damping", "rest"):
            joint_table[name] = float(getattr(joint, name))
        actuator = _actuator(joint, i)
        if actuator is not None:
            joint_table["actuator"] = actuator
        if joint.name is not None:
            joint_table["name"] = joint.name
        bodies.append(
            {
                "mass": float(body.mass),
                "inertia": float(body.inertia),
                "centre_of_mass": _floats(body.centre_of_mass),
                "joint": joint_table,
            }
        )
    table = {"bodies": bodies}
    if tree.points:
        table["points"] = {
            name: {"body": int(b), "at": _floats(at)} for name, (b, at) in tree.points.items()
        }
    return table


def _contact_table(c: ContactPair) -> dict:
    p = c.profile
    if isinstance(p, Point):  # a point or a circle flattened into the contact's table
        table = {"profile": "point", "body": int(p.body)}
        table["at"] = p.at if isinstance(p.at, str) else _floats(p.at)
    elif isinstance(p, Circle):
        table = {"profile": "circle", "body": int(p.body)}
        table["radius"] = float(p.radius)
        table["centre"] = _floats(p.centre)
    else:
        table = {"profile": table_of(p, SIDES)}
    table["target"] = c.target if isinstance(c.target, str) else table_of(c.target, SIDES)
    table.update(c.law.file_table())
    table["side"] = int(c.side)
    if c.search != "closest":
        table["search"], table["n_candidates"] = c.search, int(c.n_candidates)
    return table


def model_tables(model: Model) -> dict:
    """The model part of a model file as plain TOML values (no simulation, no state): every
    part of the Model (structures, tree, contacts and links, drives, carried bodies, loops,
    loads, spring supports, sensors); ValueError naming a part a file cannot hold (a drive
    or actuator of Python functions, a CurveReference)."""
    doc = {
        "format": schema.FORMAT,
        "gravity": _floats(model.gravity),
        "structure_gravity": bool(model.structure_gravity),
    }
    if model.structures:
        doc["structures"] = {}
        for name, spec in model.structures.items():
            try:
                doc["structures"][name] = table_of(spec, STRUCTURES, tag="type")
            except ValueError as err:
                raise ValueError(f"structure {name!r}: {err}") from None
    if model.tree is not None:
        doc["tree"] = _tree_table(model.tree)
    if model.contacts:
        doc["contacts"] = {c.name: _contact_table(c) for c in model.contacts}
    if model.drives:
        doc["drives"] = [drive_table(d) for d in model.drives]
    for key in PARTS:  # [[carried]], [[loops]], [[loads]], [[supports]]
        if getattr(model, key):
            doc[key] = [table_of(part) for part in getattr(model, key)]
    if model.sensors:
        doc["output"] = {"sensors": [table_of(sensor, SENSORS) for sensor in model.sensors]}
    return doc


__all__ = ["build_model", "model_tables"]
