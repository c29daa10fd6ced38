#!/usr/bin/env python
"""Build the docs site into _docs/.

With a `quarto` binary on PATH this is nbdev_docs. Without one (the usual case here: no network,
no Quarto) it runs nbdev's own preprocessing, renders with smalldocs, and serves KaTeX from a local
copy so that maths renders offline.

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


def build_offline(workers: int, katex_dist: Path | None) -> Path:
    """nbdev preprocessing (front matter, show_doc) into _proc/, then smalldocs into _docs/."""
    import nbdev.doclinks
    from nbdev.quarto import refresh_quarto_yml
    from nbdev.serve import proc_nbs

    refresh_quarto_yml()
    nbdev.doclinks._build_modidx()
    proc = Path(proc_nbs(str(ROOT / "nbs"), n_workers=workers, force=True))
    smalldocs = shutil.which("smalldocs", path=str(Path(sys.executable).parent)) or "smalldocs"
    subprocess.run([smalldocs, "render", "--quiet", str(proc)], check=True)
    built = proc / "_docs"
    docs = ROOT / "_docs"
    if docs.exists():
        shutil.rmtree(docs)
    shutil.move(str(built), str(docs))
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
