#!/usr/bin/env python
"""Time `gcelib reproduce` at --jobs 1 and --jobs 2 (or any list) over the implemented papers.

For each setting: the wall-clock time, the sum of the notebooks' times, the longest notebook, the
makespan lower bound max(longest, sum / jobs) and the ratio of the wall-clock time to it. Each
setting runs into a fresh folder (nothing is resumed), one after the other.

    python tools/bench_reproduce.py --scale smoke --jobs 1,2 [--papers a,b] [--out results/bench]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(scale: str, jobs: int, papers: str | None, out: Path) -> dict:
    """Run one setting into `out` and return the timing the report recorded, plus per-notebook seconds."""
    if out.exists():
        shutil.rmtree(out)
    cmd = [str(Path(sys.executable).parent / "gcelib"), "reproduce", "--scale", scale, "--jobs", str(jobs),
           "--out", str(out)] + (["--papers", papers] if papers else [])
    start = time.monotonic()
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - start
    report = json.loads((out / "report.json").read_text())
    timing = report["last_run"]["timing"]
    per_nb = {f"{r['paper']}/{r['notebook']}": r["seconds"] for r in report["runs"]}
    return {"jobs": jobs, "exit": res.returncode, "command_wall_s": round(wall, 1), **timing, "notebooks": per_nb}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="smoke", choices=("smoke", "cpu", "gpu"))
    parser.add_argument("--jobs", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--papers", default=None, help="comma-separated slugs (default: all implemented)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "bench")
    args = parser.parse_args()
    rows = [run(args.scale, int(j), args.papers, args.out / f"{args.scale}-jobs{j}") for j in args.jobs.split(",")]
    (args.out / f"{args.scale}.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("| jobs | wall (s) | sum (s) | longest (s) | bound (s) | wall / bound | exit |\n|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['jobs']} | {r['wall_s']} | {r['sum_s']} | {r['longest_s']} | {r['bound_s']} "
              f"| {r['ratio_to_bound']} | {r['exit']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
