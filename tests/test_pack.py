"""The compiled step's constants travel as three flat arrays (``kernels.pack.pack``) and are
unpacked inside the kernels by hand-written indices (``kernels.pack.unpack``). A wrong index
does not fail loudly: the kernel reads another array, its Newton iteration fails, and the
stepper silently takes the Python step. This test unpacks, inside a compiled function, the
packed plans of systems that fill every part of the tuple (a beam with sliding contacts, a
string, links and a compliant point, a pair of curved profiles on a carried body, a beam long
enough for the diagonal storage) and compares every array with the one packed: exact copies,
no arithmetic, so equality is the right check."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from fe_contact.kernels.pack import SPEC, unpack
from fe_contact.papers.bauchau import Geometry, cam_lock
from fe_contact.papers.pantograph import pantograph_on_catenary
from fe_contact.papers.slider_on_string import slider_on_string
from fe_contact.steppers.compiled_plan import Plan
from fe_contact.steppers.compiled_scope import unsupported


@njit(cache=True)
def _round_trip(F, I, H):
    return unpack(F, I, H)


def _leaves(item):
    if isinstance(item, tuple):
        for x in item:
            yield from _leaves(x)
    else:
        yield item


def _sliding_mass(n_elements: int):
    from fe_contact.demos.sliding_mass import model_file
    from fe_contact.system import assemble

    return assemble(model_file(mu=0.3, n_elements=n_elements, t_end=0.01, h=1e-3).model)


SYSTEMS = {
    "beam, sliding contact": lambda: _sliding_mass(10),
    "beam of 100 elements (diagonal storage)": lambda: _sliding_mass(100),
    "string": lambda: slider_on_string().assemble(),
    "links and a compliant point": lambda: pantograph_on_catenary(
        1, contact="penalty", max_element_length=5.0
    ).assemble(),
    "curved profiles on a carried body": lambda: cam_lock(0, Geometry()).assemble(),
}


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_unpacked_arrays_are_the_packed_ones(name):
    system = SYSTEMS[name]()
    assert unsupported(system) is None  # the compiled step takes it
    plan = Plan(system)
    packed = [a for a in _leaves(plan.P) if isinstance(a, np.ndarray)]
    back = _round_trip(*plan.packed)
    unpacked = list(_leaves(back))
    scalars = [x for x in unpacked if not isinstance(x, np.ndarray)]
    arrays = [x for x in unpacked if isinstance(x, np.ndarray)]
    assert scalars == [system.layout.n_tree]
    assert len(arrays) == len(packed) == len(SPEC)
    for k, (a, b) in enumerate(zip(packed, arrays, strict=True)):
        a = np.asarray(a)
        assert a.shape == b.shape, f"array {k} ({SPEC[k]}): shape {b.shape} for {a.shape}"
        assert np.array_equal(a, b), f"array {k} ({SPEC[k]}): other values"


def test_unpack_reads_each_array_once_with_its_kind_and_rank():
    """A static check of ``unpack``'s source against ``SPEC``: every call ``_vK(X, H,
    np.int64(i))`` reads array i with the rank K and the buffer X (F: floats, I: ints) that
    ``SPEC[i]`` gives, and every array of SPEC is read exactly once (a stale index after an
    array is added reads one array twice and another never)."""
    import inspect
    import re

    from fe_contact.kernels import pack

    calls = re.findall(
        r"_v([123])\(([FI]), H, np\.int64\((\d+)\)\)", inspect.getsource(pack.unpack)
    )
    read = sorted(int(i) for _, _, i in calls)
    assert read == list(range(len(SPEC))), "each array of SPEC read exactly once"
    for rank, buffer, i in calls:
        kind = "f" if buffer == "F" else "i"
        assert SPEC[int(i)] == f"{kind}{rank}", (
            f"array {i}: read as {kind}{rank}, SPEC {SPEC[int(i)]}"
        )
