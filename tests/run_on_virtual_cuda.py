"""Run experiment notebooks at smoke scale with device="cuda" under the virtual CUDA, in this one process.

    python tests/run_on_virtual_cuda.py RESULT.json NOTEBOOK [NOTEBOOK ...]

Each notebook's code cells run in a fresh namespace from the notebook's folder; the parameters cell is
followed by scale="smoke", device="cuda" and a temporary out_dir, as papermill would inject them. RESULT.json
maps each notebook to {"ok", "seconds", "error", "where", "moves"}: the error, the last gcelib frame it came
from, and how many tensors went to the device (0: the notebook ignored its `device`).
"""
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import virtual_cuda  # noqa: E402

virtual_cuda.enable()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

Figure.savefig = lambda self, *args, **kwargs: None  # devices are checked, not figures: rendering PNGs costs a third


def run_notebook(path: Path) -> dict:
    """Execute one notebook's code cells under the virtual CUDA; return what happened."""
    cells = json.loads(path.read_text())["cells"]
    namespace = {"__name__": "__main__"}
    virtual_cuda.MOVES["count"] = 0
    start, cwd = time.perf_counter(), os.getcwd()
    os.chdir(path.parent)
    try:
        with tempfile.TemporaryDirectory(prefix="vcuda-") as out_dir:
            for i, cell in enumerate(cells):
                source = "".join(cell["source"])
                if cell["cell_type"] != "code" or source.lstrip().startswith(("%", "!")):
                    continue
                exec(compile(source, f"{path.name}[cell {i}]", "exec"), namespace)
                if "parameters" in cell.get("metadata", {}).get("tags", []):
                    namespace.update(scale="smoke", device="cuda", out_dir=str(Path(out_dir) / "run"))
        return {"ok": True, "seconds": round(time.perf_counter() - start, 1), "error": None, "where": None,
                "moves": virtual_cuda.MOVES["count"]}
    except Exception as err:  # noqa: BLE001 (reported, never hidden)
        frames = [f for f in traceback.extract_tb(err.__traceback__) if "/gcelib/" in f.filename]
        where = f"gcelib/{frames[-1].filename.split('/gcelib/')[-1]}:{frames[-1].lineno}" if frames else None
        return {"ok": False, "seconds": round(time.perf_counter() - start, 1),
                "error": f"{type(err).__name__}: {str(err)[:500]}", "where": where,
                "moves": virtual_cuda.MOVES["count"]}
    finally:
        os.chdir(cwd)


if __name__ == "__main__":
    result_path, paths = Path(sys.argv[1]), [Path(p).resolve() for p in sys.argv[2:]]
    results = {}
    for path in paths:
        results[str(path)] = run_notebook(path)
        result_path.write_text(json.dumps(results, indent=1))  # written as it goes: a crash keeps the rest
        print(path.parent.name, path.name, results[str(path)], flush=True)
