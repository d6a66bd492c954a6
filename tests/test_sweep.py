"""Sweeps of a model file: a dask cluster gives the same summary as local processes, a failing
case is reported while the others finish, a re-run skips the finished cases, and case folders
never collide."""

from __future__ import annotations

import csv

import pytest

from fe_contact.demos import sliding_mass
from fe_contact.io.model_file import model_document
from fe_contact.sweep import Variation, case_name, plan, run_sweep

RESULTS = ["final:mass_parameter", "max:mass_normal_force", "final:dissipated_friction"]


@pytest.fixture()
def document():
    """The sliding-mass demo's model file as tables, 2 ms long."""
    return model_document(sliding_mass.model_file(t_end=0.002))


def read_summary(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_dask_cluster_gives_the_summary_of_local_processes(document, tmp_path):
    from dask.distributed import LocalCluster

    variations = [
        Variation.parse("contacts.mass.mu=0:0.3:2"),
        Variation.parse("simulation.h=1e-4,2e-4"),
    ]
    cases = plan(document, variations, "sliding.toml")
    assert [c.name for c in cases] == [
        "mu=0.0_h=0.0001",
        "mu=0.0_h=0.0002",
        "mu=0.3_h=0.0001",
        "mu=0.3_h=0.0002",
    ]
    local = run_sweep(cases, variations, RESULTS, tmp_path / "local", jobs=2)
    with LocalCluster(
        n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        remote = run_sweep(
            cases, variations, RESULTS, tmp_path / "dask", scheduler=cluster.scheduler_address
        )
    assert [r["status"] for r in local] == ["finished"] * 4
    assert local == remote
    assert read_summary(tmp_path / "local" / "summary.csv") == read_summary(
        tmp_path / "dask" / "summary.csv"
    )
    # friction dissipates only with mu > 0; the values differ between the cases
    by_name = {r["case"]: r for r in local}
    assert by_name["mu=0.0_h=0.0001"]["final:dissipated_friction"] == 0.0
    assert by_name["mu=0.3_h=0.0001"]["final:dissipated_friction"] > 0.0
    for case in cases:
        assert (tmp_path / "dask" / case.name / "history.csv").exists()


def test_a_failing_case_is_reported_and_a_rerun_skips_the_finished(document, tmp_path):
    document["simulation"]["max_halvings"] = 0
    variations = [
        Variation.parse("simulation.max_newton=1,12"),
        Variation.parse("contacts.mass.mu=0.1"),
    ]
    cases = plan(document, variations)
    rows = run_sweep(cases, variations, RESULTS, tmp_path, jobs=1)
    failed, finished = rows
    assert failed["status"] == "failed" and "Newton did not converge" in failed["message"]
    assert finished["status"] == "finished" and finished["max:mass_normal_force"] > 0.19
    summary = read_summary(tmp_path / "summary.csv")
    assert [r["status"] for r in summary] == ["failed", "finished"]
    assert "Newton did not converge" in summary[0]["message"]
    history = tmp_path / finished["case"] / "history.csv"
    stamp = history.stat().st_mtime_ns
    again = run_sweep(cases, variations, RESULTS, tmp_path, jobs=1)
    assert [r["skipped"] for r in again] == [False, True]  # the failed case runs again
    assert history.stat().st_mtime_ns == stamp
    assert again[1] == {**finished, "skipped": True}
    # another model in the same case folder is no finished run of it: it runs
    document["structures"]["beam"]["rayleigh_beta"] = 1e-6
    third = run_sweep(plan(document, variations), variations, RESULTS, tmp_path, jobs=1)
    assert third[1]["skipped"] is False and third[1]["status"] == "finished"


def test_case_folders_never_collide():
    mu = Variation.parse("contacts.tip.mu=0.1,0.1000001,1e-05")
    names = [case_name(((mu.key_path, v),), [mu]) for v in mu.values]
    assert names == ["mu=0.1", "mu=0.1000001", "mu=1e-05"]
    a, b = (
        Variation.parse("structures.a.n_elements=2:4:2"),
        Variation.parse("structures.b.n_elements=3"),
    )
    assert a.values == (2, 4)  # integer start and stop: integers
    name = case_name(((a.key_path, 2), (b.key_path, 3)), [a, b])
    assert name == "structures.a.n_elements=2_structures.b.n_elements=3"


def test_summary_is_written_as_the_cases_finish(document, tmp_path):
    """A sweep that is stopped keeps the rows of its finished cases: summary.csv lists every
    case as "pending" before the first runs, and is rewritten whole as each case ends."""
    variations = [Variation.parse("contacts.mass.mu=0,0.1,0.2")]
    cases = plan(document, variations)
    seen = []

    def report(row):
        seen.append([r["status"] for r in read_summary(tmp_path / "summary.csv")])
        return row

    run_sweep(cases, variations, RESULTS, tmp_path, jobs=1, report=report)
    assert seen == [
        ["finished", "pending", "pending"],
        ["finished", "finished", "pending"],
        ["finished", "finished", "finished"],
    ]
    assert not list(tmp_path.glob("*.tmp"))


def test_ranges_give_the_decimals_the_user_meant():
    """0:0.3:4 is 0, 0.1, 0.2, 0.3 (not linspace's 0.09999999999999999); values that are not
    within a few ulp of a short decimal are kept as computed."""
    assert Variation.parse("contacts.tip.mu=0:0.3:4").values == (0.0, 0.1, 0.2, 0.3)
    assert Variation.parse("simulation.h=1e-4:2e-4:3").values == (1e-4, 1.5e-4, 2e-4)
    thirds = Variation.parse("contacts.tip.mu=0:1:4").values
    assert thirds[1] == 1 / 3 and thirds[2] == 2 / 3


@pytest.mark.parametrize("cached", [True, False])
def test_first_run_compiles_in_the_sweep_before_its_workers_start(
    document, tmp_path, monkeypatch, cached
):
    """Without the kernels in numba's cache (the first run after installing), the sweep takes
    the first case's first steps in its own process, where they compile once, before the
    workers start (they load them from the cache) instead of every worker compiling at once;
    with them cached it does not. The rows are the same either way: those first steps write
    nothing and the case still runs whole in its worker."""
    from fe_contact import sweep

    calls = []

    def recording(system, t_span, y0, **kwargs):
        calls.append(tuple(t_span))
        return real(system, t_span, y0, **kwargs)

    real = sweep.simulate
    monkeypatch.setattr(sweep.kernels, "cached", lambda: cached)
    monkeypatch.setattr(sweep, "simulate", recording)
    variations = [Variation.parse("contacts.mass.mu=0,0.2")]
    cases = plan(document, variations)
    rows = run_sweep(cases, variations, RESULTS, tmp_path / "sweep", jobs=2)
    h = document["simulation"]["h"]
    assert calls == ([] if cached else [(0.0, pytest.approx(sweep.FIRST_STEPS * h))])
    assert [r["status"] for r in rows] == ["finished"] * 2
    alone = run_sweep(cases, variations, RESULTS, tmp_path / "alone", jobs=1)
    assert rows == alone
