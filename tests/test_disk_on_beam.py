"""The disk of 004 example 2 on the manipulator's compliant cantilever (Moreau-Jean)."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from fe_contact.cli import main as cli_main
from fe_contact.papers.eugster_glocker import FRICTION
from fe_contact.steppers.result import read_history


def test_disk_lands_rolls_in_the_cone_and_never_gains_energy(tmp_path, measured):
    assert cli_main(["demo", "disk-on-beam", "--t-end", "0.3", "--out", str(tmp_path)]) == 0
    h = read_history(tmp_path / "history.csv")
    pn, pt = h["disk_normal_impulse"], h["disk_friction_impulse"]
    # Coulomb's cone on the impulses of every step (004 eq. 27), unilateral normal impulses
    assert np.all(pn >= 0.0)
    assert np.all(np.abs(pt) <= FRICTION * pn * (1 + 1e-9) + 1e-18)
    # it landed (the contact carries the disk's weight on average after landing) and rolls on
    closed = h["disk_state"] != "open"
    assert closed.sum() > 10 and np.any(h["disk_state"] == "stick")
    assert h["disk_gap"].min() > -1e-5  # penetration within the sub-stepping tolerance
    # restitution 0 and theta = 1/2: the discrete balance closes exactly, energy + friction +
    # impact dissipation - timing work stays at its initial value (1e-12 J), and the mechanical
    # energy never rises above its initial value. Friction, impact and timing work each grow in
    # every step (steppers.impulse_work: sums of terms >= 0, exact in sign in floating point
    # but for an ulp of P_T outside fl(mu P_N); 16 eps of the 3e-3 J drop energy bounds that;
    # the timing work: steps in which a closed contact starts separating, up to 2.2e-6 J).
    exact = "Moreau-Jean's discrete balance, exact at e = 0, theta = 1/2"
    measured(
        "energy balance error", np.max(np.abs(h["energy_error"])), 1e-12, unit="J", reference=exact
    )
    total = h["kinetic_energy"] + h["potential_energy"] + h["elastic_energy"]
    measured(  # total - total[0] is 0 at the start: the largest rise is >= 0
        "mechanical energy gained",
        np.max(total - total[0]),
        1e-12,
        unit="J",
        reference=f"never above its initial value ({exact})",
    )
    lost = h["dissipated_friction"] + h["dissipated_impact"]
    assert lost[-1] > 1e-4
    bound = 16 * np.finfo(float).eps * 3e-3
    for key in ("dissipated_friction", "dissipated_impact", "work_contact_timing"):
        assert np.all(np.diff(h[key]) >= -bound), key
    assert len(pv.get_reader(str(tmp_path / "frames.pvd")).time_values) == 31
    assert (tmp_path / "disk_on_beam.png").stat().st_size > 1000


def test_the_energy_panel_shows_both_sides_of_the_balance(tmp_path):
    """The energy panel draws the mechanical energy change and timing work - friction -
    impact, which coincide (the balance closes to 1e-12 J, as above): the second is drawn
    dashed on top of a wider first, so neither hides the other (before, the second covered
    the first, same width and style)."""
    from fe_contact.demos.disk_on_beam import plot_run, run

    _, result = run(tmp_path, t_end=0.1, progress=False, plot=False)
    fig = plot_run(result, tmp_path / "disk_on_beam")
    change, losses, _ = fig.axes[2].get_lines()
    assert np.max(np.abs(change.get_ydata() - losses.get_ydata())) < 1e-12  # they coincide
    assert np.ptp(change.get_ydata()) > 1e-4  # and the disk landed: not both flat at 0
    assert losses.get_linestyle() == "--" and change.get_linestyle() == "-"
    assert change.get_linewidth() >= 3 * losses.get_linewidth()
    assert (tmp_path / "disk_on_beam.png").stat().st_size > 1000
