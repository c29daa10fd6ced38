#!/usr/bin/env bash
# One prepared GPU check of gcelib, for a lent machine (one H200, 16 cores, no network), within 10 minutes:
#
#   bash tools/gpu_run.sh OUT_DIR            (on the device: run with carry ["tools/.wheels/base"], 'bash tools/gpu_run.sh $OUT')
#
#  1. installs the carried wheels (tools/.wheels/*/, made by tools/gpu_wheels.sh) into /tmp/site;
#  2. runs the `#| gpu` cells (nbdev_test --flags gpu, on the notebooks that have such cells);
#  3. runs every experiment notebook at smoke size on CUDA, several at a time (timings do not count here);
#  4. then the gpu presets that fit the time left, one at a time (each alone on the GPU: timings stay clean),
#     shortest expected first (tools/gpu_minutes.tsv: each preset's expected minutes on one H200, the numbers
#     its paper's overview states), sampling the GPU's memory while each runs;
#  5. writes OUT_DIR/report.json and OUT_DIR/report.md, plus runs.tar.gz (the gpu presets' outputs and the smoke
#     report) and logs.tar.gz: four files, within what a device call brings back.
#
# Every phase has its own timeout; the whole stays under BUDGET_S (default 570 s). `DRY_RUN=1` prints the plan
# and writes the reports without running anything (for checking the script on a machine without a GPU; the
# test suite does). `PHASES="presets"` (default "cells smoke presets") runs only some phases, e.g. a second call
# that spends its minutes on gpu presets; `PAPERS="gce,ttamer"` limits the gpu presets to those papers.
set -uo pipefail
OUT=${1:?usage: tools/gpu_run.sh OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUDGET_S=${BUDGET_S:-570}
DRY_RUN=${DRY_RUN:-0}
PHASES=" ${PHASES:-cells smoke presets} "
PAPERS=",${PAPERS:-},"
START=$(date +%s)
WORK=$(mktemp -d /tmp/gcelib-gpu.XXXX)
LOGS=$WORK/logs
mkdir -p "$LOGS" "$WORK/smoke" "$WORK/gpu"
export PYTHONUNBUFFERED=1 GCELIB_QUIET=1 MPLBACKEND=Agg HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 MUJOCO_GL=egl
export PYTHONPATH="/tmp/site:$ROOT${PYTHONPATH:+:$PYTHONPATH}" PATH="/tmp/site/bin:$PATH"
PY=${PYTHON:-python3}

left() { echo $((BUDGET_S - ($(date +%s) - START))); }
phase() { echo "[$(($(date +%s) - START)) s] $*" | tee -a "$LOGS/phases.txt"; }
run() {  # run TIMEOUT_S LOG CMD...: a timeout that leaves the process group a grace period, SIGINT first
  local t=$1 log=$2; shift 2
  if [[ $DRY_RUN == 1 ]]; then echo "would run (${t}s): $*" | tee -a "$LOGS/phases.txt"; return 0; fi
  timeout -s INT -k 15 "$t" "$@" >"$log" 2>&1
}
gcelib() { $PY -c 'import sys; from gcelib.cli import main; sys.exit(main(sys.argv[1:]))' "$@"; }

# Expected minutes of each gpu preset on one H200: tools/gpu_minutes.tsv (paper, minutes, low, high, basis),
# estimated from the cpu preset's measured time and the presets' work ratio; each overview states the same number.
declare -A EXPECT_MIN=()
while IFS=$'\t' read -r paper minutes _; do
  [[ $paper == paper || -z $paper ]] || EXPECT_MIN[$paper]=$minutes
done <tools/gpu_minutes.tsv
want() { [[ $PHASES == *" $1 "* ]]; }

# 1. wheels -------------------------------------------------------------------------------------------------
phase "install the carried wheels"
wheels=(tools/.wheels/*/*.whl)
if [[ -e ${wheels[0]} ]]; then
  run 120 "$LOGS/install.txt" $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site "${wheels[@]}"
  echo $? >"$WORK/install.rc"
else
  echo "no wheels carried (tools/.wheels/*/*.whl): run tools/gpu_wheels.sh here and carry the set" | tee "$LOGS/install.txt"
  echo 1 >"$WORK/install.rc"
fi
run 60 "$LOGS/env.txt" bash -c "nvidia-smi; $PY -c 'import torch, sys; print(sys.version); print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.get_device_name(0))'; $PY -m pip list 2>/dev/null"

# 2. `#| gpu` cells ------------------------------------------------------------------------------------------
phase "the #| gpu cells"
GPU_NBS=()
want cells && mapfile -t GPU_NBS < <(grep -l '"#| gpu' nbs/*/*.ipynb nbs/*.ipynb 2>/dev/null | sort)
: >"$WORK/gpu_cells.tsv"
for nb in "${GPU_NBS[@]}"; do  # a few notebooks: in parallel, 90 s at most together
  ( t0=$(date +%s); run 90 "$LOGS/gpu_cells_$(basename "$(dirname "$nb")")_$(basename "$nb" .ipynb).txt" \
      nbdev_test --flags gpu --path "$nb"; rc=$?; printf '%s\t%s\t%s\n' "$nb" "$rc" $(($(date +%s) - t0)) >>"$WORK/gpu_cells.tsv" ) &
done
wait

# 3. every experiment at smoke size on CUDA, in parallel ----------------------------------------------------
phase "smoke on CUDA, 8 notebooks at a time"
if want smoke; then
  run $(( $(left) > 300 ? 240 : $(left) / 2 )) "$LOGS/smoke.txt" \
      gcelib reproduce --scale smoke --device cuda --jobs 8 --timeout 200 --out "$WORK/smoke"
  echo $? >"$WORK/smoke.rc"
fi

# 4. gpu presets, one at a time, shortest expected first ----------------------------------------------------
phase "gpu presets, one at a time"
: >"$WORK/gpu.tsv"
order=$(for p in "${!EXPECT_MIN[@]}"; do [[ -d nbs/$p ]] && echo "${EXPECT_MIN[$p]} $p"; done | sort -g | cut -d' ' -f2)
want presets || order=""
for p in $order; do
  [[ $PAPERS == ",," || $PAPERS == *",$p,"* ]] || continue
  est=${EXPECT_MIN[$p]}  # whole minutes
  budget=$(( $(left) - 25 ))  # keep 25 s for the reports
  if (( est * 60 > budget )); then
    printf '%s\tskipped\t0\t0\t%s\texpected %s min, %s s left\n' "$p" "$est" "$est" "$budget" >>"$WORK/gpu.tsv"; continue
  fi
  smi=$WORK/mem_$p.txt
  if [[ $DRY_RUN != 1 ]]; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 >"$smi" 2>/dev/null & sampler=$!
  fi
  t0=$(date +%s)
  run "$budget" "$LOGS/gpu_$p.txt" gcelib reproduce --papers "$p" --scale gpu --device cuda --jobs 1 --out "$WORK/gpu"
  rc=$?
  [[ $DRY_RUN == 1 ]] || { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null; }
  peak=$(sort -n "$smi" 2>/dev/null | tail -1)
  why=""; (( rc == 124 || rc == 130 || rc == 137 )) && why="stopped at the time left ($budget s)"
  [[ $DRY_RUN == 1 ]] && why="would run (expected $est min)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$rc" $(($(date +%s) - t0)) "${peak:-0}" "$est" "$why" >>"$WORK/gpu.tsv"
done

# 5. reports ------------------------------------------------------------------------------------------------
phase "reports"
$PY - "$WORK" "$OUT" "$START" "$DRY_RUN" <<'PYEOF'
import json, sys, time
from pathlib import Path
work, out, start, dry = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"

def rows(name):
    path = work / name
    return [line.split("\t") for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []

def runs(folder):
    rep = folder / "report.json"
    if not rep.is_file():
        return []
    return [{k: r.get(k) for k in ("paper", "notebook", "status", "seconds", "error", "device")}
            for r in json.loads(rep.read_text())["runs"]]

def read(name):
    path = work / name
    return path.read_text().strip() if path.is_file() else None

env = (work / "logs" / "env.txt").read_text(errors="replace")[:4000] if (work / "logs" / "env.txt").is_file() else ""
gpu_runs = {(r["paper"], r["notebook"]): r for r in runs(work / "gpu")}
report = {
    "dry_run": dry, "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": int(time.time()) - start,
    "environment": env, "wheels_installed": read("install.rc") == "0",
    "gpu_cells": [{"notebook": n, "ok": rc == "0", "seconds": int(s)} for n, rc, s in rows("gpu_cells.tsv")],
    "smoke_cuda": runs(work / "smoke"), "smoke_exit": read("smoke.rc"),
    "gpu_presets": [{"paper": p, "exit": rc, "seconds": int(s), "expected_min": int(e), "peak_gpu_mib": int(m or 0),
                     "note": why, "notebooks": [r for k, r in gpu_runs.items() if k[0] == p]}
                    for p, rc, s, m, e, *rest in rows("gpu.tsv") for why in [rest[0] if rest else ""]],
}
(out / "report.json").write_text(json.dumps(report, indent=1))
md = [f"# gcelib on a GPU{' (dry run: nothing ran)' if dry else ''}", "",
      f"{report['finished_at']}, {report['seconds']} s; wheels installed: {report['wheels_installed']}", "",
      "```", env[:1500], "```", "", "## `#| gpu` cells", "", "| notebook | ok | s |", "|---|---|---|"]
md += [f"| {c['notebook']} | {c['ok']} | {c['seconds']} |" for c in report["gpu_cells"]]
md += ["", "## Smoke on CUDA", "", "| paper | notebook | status | s | error |", "|---|---|---|---|---|"]
md += [f"| {r['paper']} | {r['notebook']} | {r['status']} | {r['seconds']} | {(r['error'] or '')[-160:].replace(chr(10), ' ')} |"
       for r in report["smoke_cuda"]]
md += ["", "## gpu presets, one at a time", "", "| paper | exit | s | expected min | peak GPU MiB | note |",
       "|---|---|---|---|---|---|"]
md += [f"| {g['paper']} | {g['exit']} | {g['seconds']} | {g['expected_min']} | {g['peak_gpu_mib']} | {g['note']} |"
       for g in report["gpu_presets"]]
(out / "report.md").write_text("\n".join(md) + "\n")
print("\n".join(md))
PYEOF
tar -czf "$OUT/runs.tar.gz" -C "$WORK" gpu smoke/report.json smoke/report.md 2>/dev/null
tar -czf "$OUT/logs.tar.gz" -C "$WORK" logs gpu_cells.tsv gpu.tsv 2>/dev/null
phase "done in $(($(date +%s) - START)) s"
