"""The committed gcelib/ must be exactly what nbdev_export makes of the notebooks."""
import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import ROOT, clean_env


def _tree(root: Path) -> dict:
    return {p.relative_to(root): p for p in root.rglob("*.py") if "__pycache__" not in p.parts}


def test_export_leaves_no_diff(tmp_path):
    # Export in a copy, so that other workers importing gcelib never see a half-written file.
    for name in ("settings.ini", "setup.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "nbs", tmp_path / "nbs", ignore=shutil.ignore_patterns("_proc", ".ipynb_checkpoints"))
    for init in (ROOT / "gcelib").rglob("__init__.py"):  # package markers only: every module must be re-exported
        (tmp_path / init.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(init, tmp_path / init.relative_to(ROOT))
    exporter = Path(sys.executable).parent / "nbdev_export"
    subprocess.run([str(exporter)], cwd=tmp_path, check=True, capture_output=True, env=clean_env())
    committed, exported = _tree(ROOT / "gcelib"), _tree(tmp_path / "gcelib")
    assert sorted(exported) == sorted(committed), "nbdev_export adds or removes modules: run nbdev_export"
    stale = [str(k) for k in committed if not filecmp.cmp(committed[k], exported[k], shallow=False)]
    assert not stale, f"gcelib/ differs from the notebooks in {stale}: run nbdev_export and commit"


def test_notebooks_are_clean():
    # nbdev_clean strips execution counts and metadata noise but keeps the `parameters` tag.
    import json

    for path in sorted((ROOT / "nbs").rglob("*.ipynb")):
        nb = json.loads(path.read_text())
        counts = [c.get("execution_count") for c in nb["cells"] if c["cell_type"] == "code"]
        assert all(c is None for c in counts), f"{path.relative_to(ROOT)} is not clean: run nbdev_clean"
        if path.name.startswith("90_"):
            tags = [t for c in nb["cells"] for t in c.get("metadata", {}).get("tags", [])]
            assert "parameters" in tags, f"{path.relative_to(ROOT)} has no cell tagged `parameters`"


def test_wheel_packages_every_module(tmp_path):
    # An editable install hides a missing subpackage; the built wheel does not.
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", str(ROOT),
                    "-w", str(tmp_path)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("gcelib-*.whl"))
    packed = {n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".py")}
    expected = {str(p.relative_to(ROOT)) for p in (ROOT / "gcelib").rglob("*.py") if "__pycache__" not in p.parts}
    assert expected <= packed, f"missing from the wheel: {sorted(expected - packed)}"


def test_imports_stand_alone():
    # nbdev's docs build executes every cell that contains an import (in notebooks that export);
    # a cell mixing imports with other code then runs out of context and breaks `make docs`.
    import ast
    import json

    for path in sorted((ROOT / "nbs").rglob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        if not any("#| export" in "".join(c["source"]) for c in cells):
            continue
        for i, cell in enumerate(cells):
            src = "".join(cell["source"])
            if cell["cell_type"] != "code" or "#| export" in src:
                continue
            body = ast.parse("\n".join(line for line in src.splitlines() if not line.startswith("%"))).body
            imports = [n for n in body if isinstance(n, (ast.Import, ast.ImportFrom))]
            assert not imports or len(imports) == len(body), \
                f"{path.relative_to(ROOT)} cell {i} mixes imports with code: move the imports to the import cell"


def test_installed_package_is_this_checkout(tmp_path):
    # Notebook kernels run outside the repository root and import the installed gcelib; an editable
    # install left pointing at another checkout would test that checkout's code instead.
    found = subprocess.run([sys.executable, "-c", "import gcelib; print(gcelib.__file__)"], cwd=tmp_path,
                           check=True, capture_output=True, text=True, env=clean_env()).stdout.strip()
    assert Path(found).resolve().parent == (ROOT / "gcelib").resolve(), \
        f"the environment imports gcelib from {found}, not from this checkout: run `make setup`"


def test_exported_code_has_no_undefined_names():
    # A name imported only in a notebook's hidden test cell passes nbdev_test (the cells share one namespace) but
    # breaks the exported function outside its notebook; pyflakes sees that, and unused imports too.
    import io

    from pyflakes.api import checkRecursive
    from pyflakes.reporter import Reporter

    out = io.StringIO()
    count = checkRecursive([str(ROOT / "gcelib"), str(ROOT / "tools"), str(ROOT / "tests")], Reporter(out, out))
    assert count == 0, f"pyflakes:\n{out.getvalue()}"
