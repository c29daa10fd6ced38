# gcelib: every target runs torch with one thread per process (two workers on two cores).
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export OMP_WAIT_POLICY := PASSIVE
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1

PAPERS ?=
SCALE ?= cpu
OUT ?= results/$(SCALE)
JOBS ?=
PYTEST_ARGS ?=

.PHONY: setup test slow reproduce smoke docs export clean-nbs outputs lab clean

setup:  ## create or reuse the environment in $(VENV)
	@tools/setup-env.sh $(VENV)

test: setup  ## the whole suite: notebooks, experiment smoke runs, export sync, CLI, docs
	$(PY) -m pytest tests -n 2 --timeout 900 -p no:cacheprovider --durations=25 $(PYTEST_ARGS)

slow: setup  ## the suite with the `#| slow` cells too
	GCELIB_TEST_FLAGS=slow $(MAKE) test

reproduce: setup  ## the main job: every implemented paper at SCALE (default cpu) into OUT
	$(BIN)/gcelib reproduce --scale $(SCALE) --out $(OUT) $(if $(PAPERS),--papers $(PAPERS),) $(if $(JOBS),--jobs $(JOBS),) $(if $(FORCE),--force,)

smoke: setup  ## every experiment in seconds
	$(MAKE) reproduce SCALE=smoke

docs: setup  ## render the site into _docs/ (Quarto if present, else offline)
	$(PY) tools/build_docs.py

export: setup  ## regenerate gcelib/ from the notebooks
	$(BIN)/nbdev_export

clean-nbs: setup  ## strip notebook metadata noise (keeps outputs and the `parameters` tag)
	$(BIN)/nbdev_clean

outputs: setup  ## re-execute notebooks in place so the docs show their outputs; then clean
	$(PY) tools/run_notebooks.py $(if $(PAPERS),--papers $(PAPERS),)
	$(BIN)/nbdev_clean

lab: setup  ## JupyterLab on the notebooks
	$(BIN)/jupyter lab nbs

clean:
	rm -rf _docs _proc nbs/_proc nbs/_quarto.yml nbs/nbdev.yml
