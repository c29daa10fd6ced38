"""Check the pages, sidebar and maths assets of the docs site (built once per test run: the `site`
fixture of conftest.py; tests/test_docs_browser.py opens the same build in a browser)."""
import shutil
import sys
from pathlib import Path

import pytest

from helpers import ROOT, notebooks


def test_every_notebook_has_a_page(site):
    for nb in notebooks():
        page = site / nb.relative_to(ROOT / "nbs").with_suffix(".html")
        assert page.is_file(), f"no page for {nb.name}"


def test_sidebar_has_a_section_per_paper(site):
    import yaml

    from gcelib.core.papers import PAPERS

    sidebar = yaml.safe_load((site.parent / "nbs" / "sidebar.yml").read_text())
    sections = [s for s in sidebar["website"]["sidebar"]["contents"] if isinstance(s, dict)]
    expected = {"Core"} | {p.short for p in PAPERS if (ROOT / "nbs" / p.slug).is_dir()}
    assert expected <= {s["section"] for s in sections}
    listed = {page for s in sections for page in s["contents"]}
    missing = [str(nb.relative_to(ROOT / "nbs")) for nb in notebooks() if nb.parent != ROOT / "nbs"
               and str(nb.relative_to(ROOT / "nbs")) not in listed]
    assert not missing, f"notebooks missing from the sidebar (shared modules too): {missing}"
    index = (site / "index.html").read_text()
    assert "core/01_runtime.html" in index


def test_maths_is_served_locally(site):
    if not (Path(sys.prefix) / "katex/node_modules/katex/dist").is_dir() and shutil.which("npm") is None:
        pytest.skip("KaTeX is installed by `make setup` through npm, and npm is not on this machine")
    assert (site / "site_libs/katex/katex.min.js").is_file()
    for page in site.rglob("*.html"):
        assert "cdn.jsdelivr.net/npm/katex" not in page.read_text(), f"{page.name} loads KaTeX from the network"


def test_images_resolve(site):
    import re

    for page in site.rglob("*.html"):
        for src in re.findall(r'<img[^>]*src="([^"]+)"', page.read_text()):
            if src.startswith("data:") or src.startswith("http"):
                continue
            assert (page.parent / src).is_file(), f"{page.relative_to(site)} shows a missing image {src}"
