"""Run every notebook under nbs/ through nbdev's test runner (experiments go through papermill)."""
import os

import nbdev.test as nbt  # not `from nbdev.test import test_nb`: pytest would collect it
import pytest
from nbdev.config import get_config

from helpers import ROOT, is_experiment, notebooks

NOTEBOOKS = [p for p in notebooks() if not is_experiment(p)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[str(p.relative_to(ROOT / "nbs")) for p in NOTEBOOKS])
def test_notebook(path):
    cfg = get_config(path=ROOT)
    force = os.environ.get("GCELIB_TEST_FLAGS", "").split()
    ok, _ = nbt.test_nb(path, skip_flags=cfg.tst_flags.split(), force_flags=force, basepath=ROOT)
    assert ok, f"{path.relative_to(ROOT)} failed; run `nbdev_test --path {path.relative_to(ROOT)}` to see why"


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 10
