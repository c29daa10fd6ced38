"""Test-session environment: one thread per process, offline hubs, no display."""
import os

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
