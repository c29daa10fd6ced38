#!/usr/bin/env bash
# Download the wheels that the lent GPU machine (nvidia-h200: Python 3.12, torch 2.11 + CUDA 13, no network)
# lacks for gcelib, into tools/.wheels/<set>/ (git-ignored), one set per device call:
#
#   tools/gpu_wheels.sh [--dry-run] [SET ...]      SET: base (default), rdkit, mujoco
#
# A device call carries the working tree and its carried paths, 64 MiB in all; the tree is about 22 MiB, so a
# set must stay under what is left (checked below). base is what every notebook needs (papermill and the
# kernel stack, nbdev, diffusers, mo-gymnasium, pymoo, POT, shap, ...); rdkit (gmerging's molecules; without
# it use source="synthetic") and mujoco (MORL-FB's gpu preset) are about 30 and 24 MiB and need a call each.
# Packages the machine already has (torch, numpy, scipy, scikit-learn, pandas, matplotlib, seaborn,
# transformers, peft, torch-geometric, networkx, numba, tqdm, pyyaml, psutil, ... see
# /work/.library/device/KINDS.md) are not downloaded. Versions are this project's (requirements.txt and its
# venv), except POT: 0.9.5 (0.9 MiB) for the pinned 0.9.7.post1 (31 MiB, which would not fit).
#
# Then: run --carry tools/.wheels/base ... 'bash tools/gpu_run.sh $OUT' (tools/gpu_run.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A SETS
SETS[base]="papermill==2.7.0 nbclient==0.11.0 nbformat==5.11.1 jupyter_client==8.10.0 jupyter_core==5.9.1
ipykernel==7.4.0 ipython==9.18.1 ipython_pygments_lexers==1.1.1 matplotlib-inline==0.2.2 prompt_toolkit==3.0.53
wcwidth==0.9.4 stack_data==0.6.3 executing==2.3.0 asttokens==3.0.2 pure_eval==0.2.4 pexpect==4.9.0
ptyprocess==0.7.0 comm==0.2.3 pyzmq==27.3.0 tornado==6.6.1 traitlets==5.16.1 nest-asyncio2==1.7.4
platformdirs==4.14.9 fastjsonschema==2.22.3 jsonschema==4.26.0 jsonschema-specifications==2025.9.1
referencing==0.37.0 rpds-py==2026.9.1 entrypoints==0.4.2 tenacity==9.2.1 jedi==0.20.1 parso==0.8.7
fastcore==1.14.5 nbdev==2.4.14 execnb==0.1.18 ghapi==1.0.16 fastgit==0.1.4 astunparse==1.6.3 watchdog==7.1.1
diffusers==0.42.1 importlib_metadata==10.2.0 lazy-importer==0.1.0
gymnasium==1.4.0 Farama-Notifications==0.0.6 mo-gymnasium==1.3.2 pygame==2.6.1
pymoo==0.6.2 moocore==0.3.2 cffi==2.1.1 pycparser==3.12 autograd==1.9.1 cma==4.5.0 alive-progress==3.3.0
about-time==4.2.1 graphemeu==0.7.2 Deprecated==1.3.1
POT==0.9.5 PYPOWER==5.1.21 shap==0.51.0 slicer==0.0.8 rank-bm25==0.2.2 bm25s==0.3.16"
SETS[rdkit]="rdkit==2026.9.1"
SETS[mujoco]="mujoco==4.0.1 mujoco-core==4.0.1 glfw==2.11.0 PyOpenGL==3.1.10"

PLATFORMS=""
for p in manylinux_2_39 manylinux_2_35 manylinux_2_34 manylinux_2_31 manylinux_2_28 manylinux_2_27 manylinux_2_26 \
         manylinux_2_24 manylinux_2_17 manylinux2014 manylinux_2_5 manylinux1; do
  PLATFORMS+=" --platform ${p}_x86_64"
done
PIP=(python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp $PLATFORMS)
LIMIT=$((64 * 1024 * 1024))

dry=0; sets=()
for a in "$@"; do
  case "$a" in
    --dry-run) dry=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) [[ -n "${SETS[$a]:-}" ]] || { echo "gpu_wheels: unknown set '$a' (base, rdkit, mujoco)" >&2; exit 2; }; sets+=("$a") ;;
  esac
done
[[ ${#sets[@]} -gt 0 ]] || sets=(base)

# what travels besides the wheels: tracked files plus untracked files git does not ignore
tree=$( (git ls-files -z; git ls-files -z --others --exclude-standard) | xargs -0 stat -c %s 2>/dev/null \
        | awk '{s+=$1} END {print s+0}')
room=$((LIMIT - tree - 2 * 1024 * 1024))  # 2 MiB of slack for files that change before the call
printf 'working tree: %.1f MiB; room for one set: %.1f MiB\n' "$(bc -l <<<"$tree/1048576")" "$(bc -l <<<"$room/1048576")"

for s in "${sets[@]}"; do
  specs=(${SETS[$s]})
  dups=$(printf '%s\n' "${specs[@]}" | sed 's/==.*//' | tr 'A-Z_' 'a-z-' | sort | uniq -d)
  [[ -z "$dups" ]] || { echo "gpu_wheels: set $s names a package twice: $dups" >&2; exit 2; }
  dest="tools/.wheels/$s"
  if [[ $dry == 1 ]]; then
    echo "set $s: ${#specs[@]} wheels into $dest"
    echo "  ${PIP[*]} -d $dest SPEC   for SPEC in: ${specs[*]}"
    continue
  fi
  mkdir -p "$dest"
  for spec in "${specs[@]}"; do
    name=$(sed 's/==.*//' <<<"$spec" | tr 'A-Z-' 'a-z_')
    if ls "$dest" | tr 'A-Z-' 'a-z_' | grep -q "^${name}-"; then continue; fi  # already there: resumable
    "${PIP[@]}" -d "$dest" "$spec"
  done
  size=$(du -sb "$dest" | cut -f1)
  printf 'set %s: %d wheels, %.1f MiB in %s\n' "$s" "$(ls "$dest" | wc -l)" "$(bc -l <<<"$size/1048576")" "$dest"
  if (( size > room )); then
    echo "gpu_wheels: set $s does not fit beside the tree (over by $(( (size - room) / 1048576 + 1 )) MiB)" >&2
    exit 1
  fi
done
