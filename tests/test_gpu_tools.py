"""The prepared GPU run (issue 37): tools/gpu_minutes.tsv, tools/gpu_run.sh and tools/gpu_wheels.sh, checked without a GPU.

Each paper's gpu preset has one expected time on one H200, in tools/gpu_minutes.tsv; the paper's overview states the same
number and says whether it fits a lent GPU's time; tools/gpu_run.sh plans its gpu phase from that table (a dry run
here); tools/gpu_wheels.sh's sets are well formed (a dry run: nothing is downloaded).
"""
import csv
import json
import re
import subprocess

import pytest

from gcelib.core.papers import implemented_papers
from helpers import NBS, ROOT, clean_env

TABLE = ROOT / "tools" / "gpu_minutes.tsv"
FIT_MIN = 8  # one device call is 10 minutes at most; the wheels, the start and the reports take the rest
STATED = re.compile(r"about \*\*(\d+) minutes on one H200\*\*")
NO_FIT = "does not fit the lent GPU time"


def expected() -> dict:
    with TABLE.open(newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return {r["paper"]: r for r in rows}


def test_every_gpu_preset_has_an_expected_time():
    rows = expected()
    papers = set(implemented_papers(NBS))
    assert set(rows) == papers, f"missing: {sorted(papers - set(rows))}; unknown: {sorted(set(rows) - papers)}"
    for paper, r in rows.items():
        low, mid, high = float(r["low"]), int(r["minutes"]), float(r["high"])
        assert 0 < low <= mid <= high, f"{paper}: need 0 < low <= minutes <= high, got {low}, {mid}, {high}"
        assert len(r["basis"]) > 40, f"{paper}: say how the estimate was made"


@pytest.mark.parametrize("paper", sorted(expected()))
def test_overview_states_the_expected_time(paper):
    text = "".join("".join(c["source"]) for c in json.loads((NBS / paper / "00_overview.ipynb").read_text())["cells"])
    stated = STATED.findall(text)
    minutes = int(expected()[paper]["minutes"])
    assert stated == [str(minutes)], f"{paper}/00_overview states {stated}, tools/gpu_minutes.tsv {minutes}"
    assert (NO_FIT in text) == (minutes > FIT_MIN), f"{paper}: {minutes} min, so say whether it fits ({NO_FIT!r})"


def test_gpu_run_plans_from_the_table(tmp_path):
    """A dry run writes the reports; the gpu presets are planned shortest first, those over the time left skipped."""
    env = {**clean_env(), "DRY_RUN": "1", "BUDGET_S": "570"}
    proc = subprocess.run(["bash", "tools/gpu_run.sh", str(tmp_path)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["dry_run"] and {"report.md", "runs.tar.gz", "logs.tar.gz"} <= {p.name for p in tmp_path.iterdir()}
    presets, rows = report["gpu_presets"], expected()
    assert [g["paper"] for g in presets] and {g["paper"] for g in presets} == set(rows)
    mins = [g["expected_min"] for g in presets]
    assert mins == sorted(mins) and mins == [int(rows[g["paper"]]["minutes"]) for g in presets]
    for g in presets:  # nothing runs in a dry run: about 545 s are left for each (570 less the reports' 25)
        assert (g["exit"] == "skipped") == (g["expected_min"] * 60 > 540), g
    only = subprocess.run(["bash", "tools/gpu_run.sh", str(tmp_path / "only")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**env, "PHASES": "presets", "PAPERS": "ttamer,gce"})
    assert only.returncode == 0, only.stderr[-2000:]
    planned = json.loads((tmp_path / "only" / "report.json").read_text())["gpu_presets"]
    assert {g["paper"] for g in planned} == {"ttamer", "gce"}


def test_gpu_wheels_sets_are_well_formed():
    proc = subprocess.run(["bash", "tools/gpu_wheels.sh", "--dry-run", "base", "rdkit", "mujoco"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.count("wheels into tools/.wheels/") == 3, proc.stdout + proc.stderr
    bad = subprocess.run(["bash", "tools/gpu_wheels.sh", "--dry-run", "nosuchset"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "unknown set" in bad.stderr
