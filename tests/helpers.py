"""Paths and helpers shared by the test modules."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT / "nbs"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def clean_env() -> dict:
    """The environment without IN_TEST: nbdev's test runner sets it in-process, and nbdev_export
    silently does nothing while it is set."""
    return {k: v for k, v in os.environ.items() if k != "IN_TEST"}


def is_experiment(path: Path) -> bool:
    """Experiment and benchmark notebooks run under papermill, not nbdev's test runner."""
    return path.name.startswith(("90_", "91_"))


def notebooks() -> list[Path]:
    """Every notebook under nbs/, skipping `_`/`.`-prefixed files and folders as nbdev does."""
    found = []
    for path in sorted(NBS.rglob("*.ipynb")):
        parts = path.relative_to(NBS).parts
        if any(part.startswith(("_", ".")) for part in parts) or ".ipynb_checkpoints" in parts:
            continue
        found.append(path)
    return found
