"""The gcelib command on fixture notebooks: success, an isolated failure, resume, bad input."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gcelib.core.papers import PAPERS, implemented_papers
from helpers import FIXTURES, NBS, ROOT, clean_env

GCELIB = str(Path(sys.executable).parent / "gcelib")


def gcelib(*args, cwd=ROOT):
    return subprocess.run([GCELIB, *args], cwd=cwd, capture_output=True, text=True, timeout=600, env=clean_env())


def test_list_names_all_papers():
    res = gcelib("list")
    assert res.returncode == 0, res.stderr
    for paper in PAPERS:
        assert re.search(rf"^{paper.slug}\s", res.stdout, re.M), paper.slug


def test_reproduce_isolates_failures_and_resumes(tmp_path):
    out = tmp_path / "results"
    args = ("--nbs", str(FIXTURES / "nbs"), "reproduce", "--scale", "smoke", "--out", str(out))
    first = gcelib(*args, "--papers", "fixture_fail,fixture_ok")
    assert first.returncode == 1, first.stderr  # one notebook failed
    report = json.loads((out / "report.json").read_text())
    status = {r["paper"]: r["status"] for r in report["runs"]}
    assert status == {"fixture_fail": "failed", "fixture_ok": "ok"}
    failed = next(r for r in report["runs"] if r["paper"] == "fixture_fail")
    assert "fixture failure" in failed["error"]
    assert [c["verdict"] for c in report["claims"]] == ["reproduced"]
    assert report["figures"] == ["fixture_ok/90_experiment/values.png"]
    assert "without encryption" not in first.stderr and "Traceback" not in first.stderr  # noise goes to the logs
    assert (out / "fixture_ok" / "90_experiment.ipynb").is_file()  # the executed notebook is kept
    md = (out / "report.md").read_text()
    assert "value positive" in md and "fixture_fail" in md

    ok_status = out / "fixture_ok" / "90_experiment.status.json"
    before = ok_status.read_text()
    second = gcelib(*args, "--papers", "fixture_ok")
    assert second.returncode == 0, second.stderr
    assert ok_status.read_text() == before  # resumed: the finished notebook was not run again

    (out / "report.md").unlink()
    rebuilt = gcelib("report", str(out))
    assert rebuilt.returncode == 1 and (out / "report.md").is_file()  # still one failed notebook


def test_reproduce_seeds_reach_the_notebook(tmp_path):
    out = tmp_path / "results"
    res = gcelib("--nbs", str(FIXTURES / "nbs"), "reproduce", "--papers", "fixture_ok", "--scale", "smoke",
                 "--seeds", "3,4,5", "--out", str(out))
    assert res.returncode == 0, res.stderr
    config = json.loads((out / "fixture_ok" / "90_experiment" / "config.json").read_text())
    assert config == {"scale": "smoke", "seeds": [3, 4, 5]}


@pytest.mark.parametrize("args, message", [
    (("reproduce", "--papers", "nope"), "unknown paper 'nope'"),
    (("reproduce", "--scale", "huge"), "invalid choice: 'huge'"),
    (("reproduce", "--seeds", "a,b"), "--seeds takes comma-separated integers"),
    (("reproduce", "--out", "/proc/forbidden"), "is not writable"),
    (("reproduce", "--jobs", "0"), "--jobs takes a positive integer"),
    (("reproduce", "--timeout", "-5"), "--timeout takes a positive integer"),
    (("report", "/nonexistent"), "is not a folder"),
])
def test_bad_input_is_one_clear_line(args, message, tmp_path):
    res = gcelib("--nbs", str(FIXTURES / "nbs"), *args, cwd=tmp_path)
    assert res.returncode == 2
    assert message in res.stderr and len(res.stderr.strip().splitlines()) <= 2
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_readme_table_matches_notebooks():
    readme = (ROOT / "README.md").read_text()
    done = implemented_papers(NBS)
    for paper in PAPERS:
        row = next((line for line in readme.splitlines() if f"| `{paper.slug}` |" in line), None)
        assert row is not None, f"README lacks a row for {paper.slug}"
        status = row.strip().strip("|").split("|")[-1].strip()
        assert status == ("implemented" if paper.slug in done else "not yet"), row


def test_ctrl_c_keeps_finished_results(tmp_path):
    import signal
    import time

    out = tmp_path / "results"
    proc = subprocess.Popen([GCELIB, "--nbs", str(FIXTURES / "nbs"), "reproduce", "--scale", "smoke",
                             "--papers", "fixture_ok,fixture_sleep", "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ok_status = out / "fixture_ok" / "90_experiment.status.json"
    deadline = time.time() + 120
    while not ok_status.exists() and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(3)  # the long notebook is running now
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "1 finished notebook(s) kept" in lines[0] and "resume" in lines[0], err
    assert json.loads(ok_status.read_text())["status"] == "ok"
    assert not (out / "fixture_sleep" / "90_experiment.status.json").exists()
    report = json.loads((out / "report.json").read_text())
    assert [r["paper"] for r in report["runs"]] == ["fixture_ok"]
