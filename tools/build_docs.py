#!/usr/bin/env python
"""Build the docs site into _docs/.

With a `quarto` binary on PATH this is nbdev_docs. Without one (the usual case here: no network,
no Quarto) it runs nbdev's own preprocessing, renders with smalldocs, and serves KaTeX from a local
copy so that maths renders offline. Between the two steps each page gets a line under its title
naming the module it exports (linked to a copy of the file in the site), and temporary paths in
cell outputs (`/tmp/gcelib-run-*`, `/tmp/ipykernel_*`) are replaced by what they stand for. After
rendering, remote CSS `@import`s (the theme's web fonts) are dropped: the site requests nothing
off the machine.

    python tools/build_docs.py [--katex DIR] [--workers N]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
KATEX_CDN = re.compile(r"https://cdn\.jsdelivr\.net/npm/katex@[0-9.]+/dist")
DEFAULT_EXP = re.compile(r"^#\|\s*default_exp\s+(\S+)", re.M)
RUN_TMP = re.compile(r"/tmp/gcelib-run-[A-Za-z0-9_]+/run")  # reproduce's temporary run folder
KERNEL_TMP = re.compile(r"/tmp/ipykernel_\d+/\d+\.py")  # where IPython files a cell for warnings
REMOTE_IMPORT = re.compile(r"@import\s+url\(\s*[\"']?(?:https?:)?//[^)]*\)\s*;?")


SHARED_TITLES = {"control": "Control", "diffusion": "Diffusion", "merging": "Merging", "tiny_models": "Tiny models",
                 "rl": "RL"}


def write_sidebar(nbs: Path) -> Path:
    """Write nbs/sidebar.yml: the home page, the core API, the shared modules, then one section per paper."""
    from gcelib.core.papers import PAPERS

    def pages(folder: Path) -> list[str]:
        return [str(p.relative_to(nbs)) for p in sorted(folder.glob("*.ipynb")) if not p.name.startswith("_")]

    top = [name for name in ("index.ipynb", "claims.ipynb") if (nbs / name).is_file()]  # home, then every claim
    contents: list = [*top, {"section": "Core", "contents": pages(nbs / "core")}]
    slugs = {paper.slug for paper in PAPERS}
    for folder in sorted(p for p in nbs.iterdir() if p.is_dir()):  # shared modules (control, merging, ...)
        if folder.name not in slugs | {"core"} and not folder.name.startswith(("_", ".")) and pages(folder):
            contents.append({"section": SHARED_TITLES.get(folder.name, folder.name.replace("_", " ").capitalize()),
                             "contents": pages(folder)})
    for paper in PAPERS:
        if (nbs / paper.slug).is_dir() and pages(nbs / paper.slug):
            contents.append({"section": paper.short, "contents": pages(nbs / paper.slug)})
    path = nbs / "sidebar.yml"
    path.write_text(yaml.safe_dump({"website": {"sidebar": {"contents": contents}}}, sort_keys=False))
    return path


def localise_katex(site: Path, katex_dist: Path) -> int:
    """Copy KaTeX into the site and point every page at it; return the number of pages changed."""
    target = site / "site_libs" / "katex"
    shutil.copytree(katex_dist, target, dirs_exist_ok=True)
    changed = 0
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        depth = len(page.relative_to(site).parts) - 1
        new = KATEX_CDN.sub("../" * depth + "site_libs/katex", html)
        if new != html:
            page.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def module_of(notebook: Path) -> str | None:
    "Return the module file a notebook exports (`gcelib/x/y.py`), from its `#| default_exp x.y`."
    import json

    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            m = DEFAULT_EXP.search("".join(cell["source"]))
            if m:
                return "gcelib/" + m.group(1).replace(".", "/") + ".py"
    return None


def add_source_lines(nbs: Path, proc: Path, lib: Path) -> int:
    """Put "Source: gcelib/<slug>/<module>.py" under the title of every page that exports a module.

    The module is copied into the site (`src/gcelib/...`) and linked from the page, so the link works
    offline and on the published site alike. Returns the number of pages given a line."""
    import json

    done = 0
    for nb in sorted(nbs.rglob("*.ipynb")):
        rel = nb.relative_to(nbs)
        target = proc / rel
        if any(part.startswith(("_", ".")) for part in rel.parts) or not target.is_file():
            continue
        module = module_of(nb)
        if module is None or not (lib.parent / module).is_file():
            continue
        copy = proc / "src" / module
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(lib.parent / module, copy)
        link = "../" * (len(rel.parts) - 1) + "src/" + module
        doc = json.loads(target.read_text(encoding="utf-8"))
        cells = doc["cells"]
        at = 1 if cells and cells[0]["cell_type"] == "raw" else 0  # after the front matter
        cells.insert(at, {"cell_type": "markdown", "metadata": {},
                          "source": f"Source: [`{module}`]({link}), exported from this notebook by `nbdev_export`."})
        target.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        done += 1
    return done


def scrub_temp_paths(proc: Path, results: Path) -> int:
    """Replace temporary paths in cell outputs by what they stand for; return the notebooks changed.

    An experiment run by `gcelib reproduce` prints its output folder, a temporary `/tmp/gcelib-run-*/run`
    whose files end up in `results/reference/<slug>/<notebook>`; a warning names its cell by a
    temporary `/tmp/ipykernel_*/*.py` file."""
    import json

    changed = 0
    for nb in sorted(proc.rglob("*.ipynb")):
        rel = nb.relative_to(proc)
        if any(part.startswith(("_", ".")) for part in rel.parts):
            continue
        text = nb.read_text(encoding="utf-8")
        if "/tmp/" not in text:
            continue
        ref = results / rel.parent / rel.stem
        run_dir = f"results/reference/{rel.parent.as_posix()}/{rel.stem}" if ref.is_dir() else "<the run's output folder>"
        doc = json.loads(text)

        def scrub(value):
            if isinstance(value, str):
                return KERNEL_TMP.sub("<cell>", RUN_TMP.sub(run_dir, value))
            if isinstance(value, list):
                return [scrub(v) for v in value]
            if isinstance(value, dict):
                return {k: scrub(v) for k, v in value.items()}
            return value

        for cell in doc["cells"]:
            if cell.get("outputs"):
                cell["outputs"] = scrub(cell["outputs"])
        new = json.dumps(doc, indent=1)
        if new != text:
            nb.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def patch_dollarmath() -> None:
    """Fix inline maths at the very start of a paragraph or table cell whose text ends in a digit.

    mdit-py-plugins' `$` rule (with `allow_digits=False`) checks the character before the opening `$`
    as `src[pos - 1]`, which at `pos == 0` is the *last* character of the block: `| $T_{act}$ = 0.4 |`
    stayed raw. Running the rule on the block with a space appended gives it the right answer and
    changes nothing else (positions are unchanged, the closing `$` is found as before)."""
    import mdit_py_plugins.dollarmath.index as dm

    if getattr(dm.math_inline_dollar, "_gcelib_patched", False):
        return
    original = dm.math_inline_dollar

    def math_inline_dollar(*args, **kwargs):
        rule = original(*args, **kwargs)

        def fixed(state, silent):
            if state.pos == 0 and state.src[-1:].isdigit():
                src = state.src
                state.src = src + " "
                try:
                    return rule(state, silent)
                finally:
                    state.src = src
            return rule(state, silent)

        return fixed

    math_inline_dollar._gcelib_patched = True
    dm.math_inline_dollar = math_inline_dollar


def drop_remote_imports(site: Path) -> int:
    "Remove CSS `@import`s of remote files (the theme's web fonts) from the site's stylesheets."
    changed = 0
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8", errors="surrogateescape")
        new = REMOTE_IMPORT.sub("", text)
        if new != text:
            css.write_text(new, encoding="utf-8", errors="surrogateescape")
            changed += 1
    return changed


def build_offline(workers: int, katex_dist: Path | None) -> Path:
    """nbdev preprocessing (front matter, show_doc) into _proc/, then smalldocs into _docs/."""
    import nbdev.doclinks
    from nbdev.quarto import refresh_quarto_yml
    from nbdev.serve import proc_nbs

    refresh_quarto_yml()
    nbdev.doclinks._build_modidx()
    proc = Path(proc_nbs(str(ROOT / "nbs"), n_workers=workers, force=True))
    add_source_lines(ROOT / "nbs", proc, ROOT / "gcelib")
    scrub_temp_paths(proc, ROOT / "results" / "reference")
    from smalldocs.cli import main as smalldocs

    patch_dollarmath()
    if smalldocs(["render", "--quiet", str(proc)]) != 0:
        raise SystemExit("smalldocs render failed")
    built = proc / "_docs"
    docs = ROOT / "_docs"
    if docs.exists():
        shutil.rmtree(docs)
    shutil.move(str(built), str(docs))
    drop_remote_imports(docs)
    if katex_dist is not None and katex_dist.is_dir():
        print(f"KaTeX served locally in {localise_katex(docs, katex_dist)} page(s)")
    else:
        print("warning: no local KaTeX (run `make setup`); pages load it from the CDN", file=sys.stderr)
    return docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--katex", type=Path, default=Path(sys.prefix) / "katex/node_modules/katex/dist",
                        help="KaTeX dist folder (npm katex@0.16.11)")
    parser.add_argument("--workers", type=int, default=2, help="processes for notebook preprocessing")
    args = parser.parse_args()
    os.chdir(ROOT)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    shutil.copy(ROOT / "_quarto.yml", ROOT / "nbs" / "_quarto.yml")
    write_sidebar(ROOT / "nbs")
    if shutil.which("quarto"):
        subprocess.run(["nbdev_docs"], check=True)
        docs = ROOT / "_docs"
    else:
        docs = build_offline(args.workers, args.katex)
    print(f"docs: {docs / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
