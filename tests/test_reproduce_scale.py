"""`gcelib reproduce` spread over workers: local processes (--jobs) and a real Dask cluster on loopback."""
import json
import time

import pytest

from test_cli import gcelib
from helpers import FIXTURES

FIXTURE_ARGS = ("--nbs", str(FIXTURES / "nbs"), "reproduce", "--scale", "smoke")
FIXTURE_PAPERS = "fixture_ok,fixture_fail,fixture_kill,fixture_crash"


def _report(out):
    report = json.loads((out / "report.json").read_text())
    runs = [(r["paper"], r["notebook"], r["status"]) for r in report["runs"]]
    return runs, report["claims"], report["figures"]


def test_jobs_2_gives_the_report_of_jobs_1(tmp_path):
    reports = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        res = gcelib(*FIXTURE_ARGS, "--papers", FIXTURE_PAPERS, "--jobs", jobs, "--out", str(out))
        assert res.returncode == 1, res.stderr  # three fixtures fail on purpose
        reports.append(_report(out))
        errors = {r["paper"]: r["error"] for r in json.loads((out / "report.json").read_text())["runs"]}
        assert "fixture failure" in errors["fixture_fail"]
        assert "DeadKernelError" in errors["fixture_kill"] or "died" in errors["fixture_kill"]
        assert "killed by signal 9" in errors["fixture_crash"]
        timing = json.loads((out / "run.json").read_text())["timing"]
        assert timing["workers"] == int(jobs) and timing["ratio_to_bound"] >= 0.99
    assert reports[0] == reports[1]
    assert [r[0] for r in reports[0][0]] == ["fixture_crash", "fixture_fail", "fixture_kill", "fixture_ok"]


def test_kernel_noise_goes_to_the_log(tmp_path):
    out = tmp_path / "r"
    res = gcelib(*FIXTURE_ARGS, "--papers", "fixture_ok", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "without encryption" not in res.stderr and "Traceback" not in res.stderr
    assert (out / "fixture_ok" / "90_experiment.log").is_file()


def test_a_smoke_run_never_overwrites_a_cpu_run(tmp_path):
    out = tmp_path / "results"
    (out / "fixture_ok").mkdir(parents=True)
    (out / "fixture_ok" / "90_experiment.status.json").write_text(json.dumps({"status": "ok", "scale": "cpu"}))
    res = gcelib(*FIXTURE_ARGS, "--papers", "fixture_ok", "--out", str(out))
    assert res.returncode == 2 and "holds cpu-scale results" in res.stderr


def test_unreachable_scheduler_fails_fast(tmp_path):
    start = time.monotonic()
    res = gcelib(*FIXTURE_ARGS, "--papers", "fixture_ok", "--out", str(tmp_path / "r"),
                 "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "2")
    assert res.returncode == 2 and "no Dask scheduler answered within 2 s" in res.stderr, res.stderr
    assert time.monotonic() - start < 60 and not (tmp_path / "r").exists()


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as local:
        yield local.scheduler_address


REAL_PAPERS = "ttamer,mtl_collapse"  # quick smoke runs without timing claims (timings differ run to run)


def test_dask_cluster_matches_sequential_run_and_resumes(cluster, tmp_path):
    seq, dask = tmp_path / "seq", tmp_path / "dask"
    common = ("reproduce", "--scale", "smoke", "--papers", REAL_PAPERS, "--seeds", "0")
    first = gcelib(*common, "--out", str(seq))
    assert first.returncode == 0, first.stderr
    second = gcelib(*common, "--out", str(dask), "--scheduler", cluster)
    assert second.returncode == 0, second.stderr
    for status in sorted(seq.glob("*/*.status.json")):
        rel = status.relative_to(seq)
        claims = rel.parent / rel.name.replace(".status.json", "") / "claims.json"
        verdicts = [(c["claim"], c["verdict"]) for c in json.loads((seq / claims).read_text())]
        assert verdicts == [(c["claim"], c["verdict"]) for c in json.loads((dask / claims).read_text())], rel
    before = {p: p.read_text() for p in dask.glob("*/*.status.json")}
    again = gcelib(*common, "--out", str(dask), "--scheduler", cluster)
    assert again.returncode == 0 and {p: p.read_text() for p in dask.glob("*/*.status.json")} == before


def test_dask_cluster_isolates_failures(cluster, tmp_path):
    out = tmp_path / "r"
    res = gcelib(*FIXTURE_ARGS, "--papers", FIXTURE_PAPERS, "--out", str(out), "--scheduler", cluster)
    assert res.returncode == 1, res.stderr
    status = {r[0]: r[2] for r in _report(out)[0]}
    assert status == {"fixture_ok": "ok", "fixture_fail": "failed", "fixture_kill": "failed",
                      "fixture_crash": "failed"}
