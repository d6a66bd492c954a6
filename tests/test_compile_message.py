"""The first compiled run says that it compiles (else ~1-2 silent minutes look like a hang)."""

from log_records import records

import fe_contact.kernels as kernels
from fe_contact import assemble, simulate
from fe_contact.papers.lipinski import sliding_mass_initial_state, sliding_mass_model


def test_a_run_without_cached_kernels_announces_the_compilation(monkeypatch):
    system = assemble(sliding_mass_model(0.0, 4))
    y0 = sliding_mass_initial_state(system, 0.1, 0.5)
    monkeypatch.setattr(kernels, "_announced", False)
    monkeypatch.setattr(kernels, "cached", lambda: False)  # as on a fresh installation
    with records("fe_contact.kernels") as said:
        simulate(system, (0.0, 0.002), y0, h=1e-3)
        simulate(system, (0.0, 0.002), y0, h=1e-3)
    assert len(said) == 1 and "compiling the numba kernels" in said[0]  # once per process


def test_a_run_with_cached_kernels_says_nothing(monkeypatch):
    system = assemble(sliding_mass_model(0.0, 4))
    y0 = sliding_mass_initial_state(system, 0.1, 0.5)
    simulate(system, (0.0, 0.002), y0, h=1e-3)  # compiles or loads: the cache now holds them
    assert kernels.cached()
    monkeypatch.setattr(kernels, "_announced", False)
    with records("fe_contact.kernels") as said:
        simulate(system, (0.0, 0.002), y0, h=1e-3)
    assert not said
