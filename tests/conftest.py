"""Test-session environment: one thread per process, offline hubs, no display; the docs site,
built once per test run."""
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

for _var, _value in {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
    "MPLBACKEND": "Agg",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "GCELIB_QUIET": "1",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}.items():
    os.environ[_var] = _value


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """Build the docs offline in a copy of the repository; return its _docs folder.

    Under pytest-xdist the workers share one build (a lock in the run's temporary folder): the docs
    build is a single 2-3 minute step however the docs tests are spread."""
    from helpers import ROOT, clean_env

    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the parent is shared by the workers of a run
    copy, failed = root / "docs-site", root / "docs-site.failed"
    with open(root / "docs-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if failed.is_file():
                pytest.fail(failed.read_text())
            if not (copy / "_docs" / "index.html").is_file():
                shutil.rmtree(copy, ignore_errors=True)
                copy.mkdir()
                for name in ("settings.ini", "setup.py", "_quarto.yml"):
                    shutil.copy(ROOT / name, copy / name)
                for name in ("nbs", "gcelib", "tools"):
                    shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "_proc"))
                if (ROOT / "results" / "reference").is_dir():  # the claims page reads it
                    shutil.copytree(ROOT / "results" / "reference", copy / "results" / "reference")
                katex = Path(sys.prefix) / "katex/node_modules/katex/dist"
                args = [sys.executable, str(copy / "tools/build_docs.py"), "--workers", "1"]
                if katex.is_dir():
                    args += ["--katex", str(katex)]
                res = subprocess.run(args, cwd=copy, capture_output=True, text=True, timeout=900, env=clean_env())
                if res.returncode != 0:
                    failed.write_text("the docs build failed:\n" + res.stderr[-3000:])
                    pytest.fail(failed.read_text())
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return copy / "_docs"
