"""Rough profiles and their re-shaping by wear, Slavic-Boltezar (003), secs. 3 and 4.1."""

import numpy as np
import pytest

from fe_contact.rough import (
    RoughProfile,
    arc_profile,
    peak_to_valley,
    reshape,
    rough_arc,
    turning_angles,
    vertex_normals,
)

R = 0.011
SPAN = (np.pi / 2 + 0.045, np.pi / 2 - 0.045)  # the pin's face: clockwise, 1 mm


def face(rz=1.25e-6, seed=3, n=100):
    return rough_arc((0.0, 0.0), R, *SPAN, n, rz=rz, seed=seed)


def test_smooth_arc_lies_on_its_circle_with_outward_normals():
    wheel = arc_profile((0.0, 0.0), R, 0.0, 0.1, 50)
    assert np.allclose(np.hypot(*wheel.points), R, rtol=0, atol=1e-15)
    # counter-clockwise rim: the outward normal points away from the centre
    normals = vertex_normals(wheel.points)
    assert np.all(np.sum(normals * wheel.points, axis=0) > 0.999 * R)
    # clockwise face: material outside, outward normal towards the centre
    pin = arc_profile((0.0, 0.0), R, *SPAN, 50)
    assert np.all(np.sum(vertex_normals(pin.points) * pin.points, axis=0) < -0.999 * R)


@pytest.mark.parametrize("rz, seed", [(1.25e-6, 0), (2.5e-6, 7), (0.5e-6, 42)])
def test_rough_arc_has_the_given_rz_and_bounded_change_of_slope(rz, seed):
    """Rz is the peak-to-valley height (to round-off); every change of slope between
    neighbouring segments is at most 15 deg (003 sec. 4.1); heights in [-Rz, 0]."""
    p = face(rz=rz, seed=seed)
    assert peak_to_valley(p) == pytest.approx(rz, rel=1e-9)
    assert np.max(np.abs(turning_angles(p.points))) <= np.radians(15.0) + 1e-12
    h = p.heights()
    assert h.max() == pytest.approx(0.0, abs=1e-15) and h.min() == pytest.approx(-rz, rel=1e-9)
    # the heights are along the radius: each vertex stays on its reference ray
    cross = p.points[0] * p.reference[1] - p.points[1] * p.reference[0]
    assert np.max(np.abs(cross)) < 1e-15


def test_same_seed_same_profile_other_seed_other_profile():
    assert np.array_equal(face(seed=5).points, face(seed=5).points)
    assert not np.allclose(face(seed=5).points, face(seed=6).points, rtol=0, atol=1e-9)


def test_rough_arc_is_not_a_smooth_arc():
    """The roughness is random: heights are not all equal and change sign of slope often."""
    h = face().heights()
    slopes = np.sign(np.diff(h))
    assert np.count_nonzero(np.diff(slopes)) > 10


def test_reshape_moves_vertices_inward_by_u_max_times_the_wear_rate():
    """003 eqs. (16)-(17): u = u_max W / max W along the inward vertex normal."""
    p = face(rz=0.0)
    loss = np.zeros(p.n_points)
    loss[10], loss[50] = 2.0, 1.0
    worn = reshape(p, loss, 0.15e-6)
    move = worn.points - p.points
    depth = -np.sum(move * vertex_normals(p.points), axis=0)
    expected = 0.15e-6 * loss / loss.max()
    assert np.allclose(depth, expected, rtol=1e-9, atol=1e-18)
    # inward for a face above the wheel: away from the wheel's centre
    assert np.hypot(*worn.points[:, 10]) > np.hypot(*p.points[:, 10])


def test_reshaping_peaks_lowers_rz_and_keeps_the_shape_with_no_loss():
    """Wear of the highest asperities (the loaded ones) removes height: Rz does not grow."""
    p = face(rz=1.25e-6, seed=11)
    h = p.heights()
    loss = np.maximum(h - np.quantile(h, 0.8), 0.0)  # only the top 20 % carry load
    worn = reshape(p, loss, 0.15e-6)
    assert peak_to_valley(worn) <= peak_to_valley(p)
    assert peak_to_valley(worn) < peak_to_valley(p) - 0.1e-6
    assert reshape(p, np.zeros(p.n_points), 0.15e-6) is p


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"rz": -1e-6}, "rough_arc.rz"),
        ({"rz": float("nan")}, "rough_arc.rz"),
        ({"max_slope_change": 0.0}, "rough_arc.max_slope_change"),
        ({"max_slope_change": 2.0}, "rough_arc.max_slope_change"),
        ({"seed": -1}, "rough_arc.seed"),
        ({"seed": 1.5}, "rough_arc.seed"),
    ],
)
def test_rough_arc_rejects_bad_parameters(kwargs, match):
    args = {"rz": 1e-6, **kwargs}
    with pytest.raises(ValueError, match=match):
        rough_arc((0.0, 0.0), R, *SPAN, 20, **args)


def test_bad_profiles_and_losses_are_named():
    with pytest.raises(ValueError, match="arc_profile.n_points"):
        arc_profile((0, 0), R, 0.0, 0.1, 2)
    with pytest.raises(ValueError, match="arc_profile.radius"):
        arc_profile((0, 0), -R, 0.0, 0.1, 5)
    with pytest.raises(TypeError, match="arc_profile.centre"):
        arc_profile("origin", R, 0.0, 0.1, 5)
    with pytest.raises(ValueError, match="RoughProfile.points"):
        RoughProfile(np.zeros((2, 1)), np.zeros((2, 1)), np.zeros((2, 1)))
    p = face(rz=0.0, n=10)
    with pytest.raises(ValueError, match="reshape.loss"):
        reshape(p, -np.ones(10), 1e-7)
    with pytest.raises(ValueError, match="reshape.loss"):
        reshape(p, np.ones(9), 1e-7)
    with pytest.raises(ValueError, match="reshape.u_max"):
        reshape(p, np.ones(10), -1e-7)
