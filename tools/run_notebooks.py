#!/usr/bin/env python
"""Execute notebooks in place so that the committed notebooks (and the docs) show their outputs.

Experiment notebooks run with their default parameters, which are the smoke preset. Run
`nbdev_clean` afterwards (`make outputs` does both).

    python tools/run_notebooks.py [--papers treegrad,core] [--timeout 600]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", default="", help="comma-separated folders of nbs/ (default: all)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args()
    os.environ.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg", GCELIB_QUIET="1")
    import papermill as pm

    folders = [f for f in args.papers.split(",") if f]
    nbs = ROOT / "nbs"
    paths = sorted(nbs.glob("*.ipynb")) if not folders else []
    for folder in folders or sorted(p.name for p in nbs.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        paths += sorted((nbs / folder).glob("*.ipynb"))
    failed = []
    for path in paths:
        start = time.perf_counter()
        try:
            pm.execute_notebook(str(path), str(path), kernel_name="python3", cwd=str(path.parent),
                                progress_bar=False, execution_timeout=args.timeout)
            print(f"ok     {time.perf_counter() - start:6.1f}s  {path.relative_to(ROOT)}")
        except Exception as err:  # report and go on: the other notebooks still get their outputs
            failed.append(path)
            print(f"FAILED {time.perf_counter() - start:6.1f}s  {path.relative_to(ROOT)}: {str(err)[-300:]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
