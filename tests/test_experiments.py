"""Smoke-run every 90_experiment / 91_benchmark notebook with papermill and check its run outputs."""
import json

import papermill as pm
import pytest

from gcelib.core.outputs import check_run
from gcelib.core.reference import code_hash, reference_dir, stale_reference
from helpers import NBS, is_experiment, notebooks

EXPERIMENTS = [p for p in notebooks() if is_experiment(p)]


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[str(p.relative_to(NBS)) for p in EXPERIMENTS])
def test_experiment_smoke(path, tmp_path):
    out_dir = tmp_path / "run"
    pm.execute_notebook(str(path), str(tmp_path / path.name), parameters={"scale": "smoke", "out_dir": str(out_dir)},
                        kernel_name="python3", cwd=str(path.parent), progress_bar=False)
    assert check_run(out_dir) == []
    claims = json.loads((out_dir / "claims.json").read_text())
    assert claims, "an experiment must record its claims, with verdicts"
    assert json.loads((out_dir / "metrics.json").read_text()), "an experiment must record metrics"
    reference = reference_dir(NBS) / path.parent.name / path.stem / "claims.json"
    if reference.is_file():  # the reference run's claims must still be claims this notebook records
        stale = {c["claim"] for c in json.loads(reference.read_text())} - {c["claim"] for c in claims}
        status = json.loads((reference.parent.parent / f"{path.stem}.status.json").read_text())
        # claims named after a cpu-preset setting are absent at smoke scale: then the code must be the reference's,
        # unless the reference says (on the claims page, from results/reference/stale.json) that it is stale
        assert not stale or status.get("code_hash") == code_hash(path) or stale_reference(NBS), (
            f"results/reference names claims that {path.name} does not record at smoke scale, and the paper's code "
            f"changed since the reference run: rerun it at cpu scale and publish (gcelib report results/cpu "
            f"--reference). Claims: {sorted(stale)[:5]}")
