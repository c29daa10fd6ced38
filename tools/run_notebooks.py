#!/usr/bin/env python
"""Execute notebooks in place so that the committed notebooks (and the docs) show their outputs.

Experiment notebooks run with their default parameters, which are the smoke preset. Cells flagged
`#| slow` or `#| gpu` are skipped, as nbdev's test runner skips them, and keep no output. Run
`nbdev_clean` afterwards (`make outputs` does both).

    python tools/run_notebooks.py [--papers treegrad,core] [--timeout 600]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = re.compile(r"^#\|\s*(slow|gpu)\s*$", re.M)


def execute_in_place(path: Path, timeout: int) -> None:
    """Run a copy without the flagged cells, then copy the outputs back into the notebook."""
    import papermill as pm

    nb = json.loads(path.read_text())
    runnable = json.loads(json.dumps(nb))
    skipped = set()
    for i, cell in enumerate(runnable["cells"]):
        if cell["cell_type"] == "code" and SKIP.search("".join(cell["source"])):
            cell["source"], skipped = ["# skipped: flagged slow or gpu"], skipped | {i}
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / path.name, Path(tmp) / ("out_" + path.name)
        src.write_text(json.dumps(runnable))
        pm.execute_notebook(str(src), str(dst), kernel_name="python3", cwd=str(path.parent),
                            progress_bar=False, execution_timeout=timeout)
        done = json.loads(dst.read_text())
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            cell["outputs"] = [] if i in skipped else done["cells"][i].get("outputs", [])
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


def has_reference(path: Path) -> bool:
    """Whether results/reference holds this experiment notebook's run (its page shows that run's outputs)."""
    from gcelib.core.reference import reference_dir

    return (reference_dir(ROOT / "nbs") / path.parent.name / f"{path.stem}.status.json").is_file()


def mark_smoke(path: Path) -> None:
    """Say at the top of an experiment page that its outputs are a smoke run's."""
    from gcelib.core.reference import outputs_banner, set_banner

    nb = set_banner(json.loads(path.read_text()), outputs_banner(None))
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", default="", help="comma-separated folders of nbs/, '.' for the top level (default: all)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("--replace-reference", action="store_true",
                        help="also rerun experiment notebooks whose pages show the reference run (they get smoke outputs)")
    args = parser.parse_args()
    os.environ.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", GCELIB_QUIET="1")
    os.environ.pop("MPLBACKEND", None)  # the kernel's inline backend embeds figures in the outputs
    folders = [f for f in args.papers.split(",") if f]
    nbs = ROOT / "nbs"
    paths = sorted(nbs.glob("*.ipynb")) if not folders else []
    for folder in folders or sorted(p.name for p in nbs.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        if not (nbs / folder).is_dir():
            parser.error(f"--papers: nbs/{folder} is not a folder")
        paths += sorted((nbs / folder).glob("*.ipynb"))
    failed = []
    for path in paths:
        experiment = path.name.startswith(("90_", "91_"))
        if experiment and has_reference(path) and not args.replace_reference:
            print(f"kept   reference outputs of {path.relative_to(ROOT)} (--replace-reference reruns it)")
            continue
        start = time.perf_counter()
        try:
            if experiment:
                mark_smoke(path)
            execute_in_place(path, args.timeout)
            print(f"ok     {time.perf_counter() - start:6.1f}s  {path.relative_to(ROOT)}")
        except Exception as err:  # report and go on: the other notebooks still get their outputs
            failed.append(path)
            print(f"FAILED {time.perf_counter() - start:6.1f}s  {path.relative_to(ROOT)}: {str(err)[-300:]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
