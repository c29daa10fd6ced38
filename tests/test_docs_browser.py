"""Open the docs site in a real browser, as a reader would: headless Chromium from Debian's packages,
driven by selenium through Debian's chromium-driver (nothing downloads a browser; `.ci/run` installs
both). The site is the one build shared with tests/test_docs.py (the `site` fixture of conftest.py).

Pages: the home page, the claims page, and the overview, one component page and the experiment page
of three papers. On each: the maths rendered (no KaTeX error, no raw `$$`), every image loaded, no
request off the machine, no script error, no temporary path in the text, wide code and maths
scroll rather than being cut; result tables have padded cells; the sidebar opens only the
current paper. On the component pages the code that
implements the first equation is shown under it; on the experiment pages every figure saved by the
reference run is shown.
"""
import json
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest

from helpers import ROOT

PAPERS = {"morl_fb": "01_fb", "treegrad": "02_treegrad", "pcd": "02_conditioning"}  # paper: its component page
COMPONENTS = [f"{slug}/{nb}.html" for slug, nb in PAPERS.items()]
EXPERIMENTS = [f"{slug}/90_experiment.html" for slug in PAPERS]
PAGES = ["index.html", "claims.html", *[f"{slug}/00_overview.html" for slug in PAPERS], *COMPONENTS, *EXPERIMENTS]
LOCAL = ("file:", "data:", "blob:", "about:", "chrome:", "chrome-extension:", "devtools:", "http://localhost",
         "http://127.0.0.1", "https://localhost", "https://127.0.0.1")

# One pass over a page, after load: what the tests below assert on.
FACTS = r"""
const done = arguments[arguments.length - 1];
(async () => {
  const main = document.querySelector("main") || document.body;
  const imgs = Array.from(document.images);
  imgs.forEach((i) => { i.loading = "eager"; });
  await Promise.all(imgs.map((i) => (i.complete ? null : new Promise((r) => {
    i.addEventListener("load", r); i.addEventListener("error", r); setTimeout(r, 10000); }))));
  const visible = (e) => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const after = (a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
  const prose = main.cloneNode(true);  // the text a reader reads, without code and rendered maths
  prose.querySelectorAll("pre, code, script, style, .katex").forEach((e) => e.remove());
  const code = Array.from(main.querySelectorAll("pre.cell-code"));
  const displays = Array.from(main.querySelectorAll(".katex-display"));
  const blocksAfter = (eq) => {  // the shown code cells after an equation, up to the next section
    const next = Array.from(main.querySelectorAll("h2")).find((h) => after(eq, h));
    return code.filter((c) => after(eq, c) && (!next || after(c, next)))
               .map((c) => ({text: c.textContent, visible: visible(c)}));
  };
  const tagged = {};
  displays.forEach((d) => { const t = d.querySelector(".tag"); if (t) tagged[t.textContent.trim()] = blocksAfter(d); });
  const first = displays[0];
  const firstCode = first ? code.find((c) => after(first, c)) : null;
  const clipped = [];  // content wider than its box that cannot be scrolled to
  main.querySelectorAll("pre, div.sourceCode, .katex-display, .cell-output-display").forEach((e) => {
    if (e.scrollWidth > e.clientWidth + 1 && !["auto", "scroll"].includes(getComputedStyle(e).overflowX)
        && !e.parentElement.closest("pre, div.sourceCode, .katex-display, .cell-output-display"))
      clipped.push(e.className + ": " + e.textContent.slice(0, 60));
  });
  const overlaps = [];  // an equation number drawn over the end of its equation
  displays.forEach((d) => {
    const tag = d.querySelector(".katex-html > .tag");
    if (!tag) return;
    const right = Math.max(...Array.from(d.querySelectorAll(".katex-html > .base")).map((b) => b.getBoundingClientRect().right));
    if (tag.getBoundingClientRect().left < right - 1) overlaps.push(d.textContent.slice(0, 60));
  });
  const cells = Array.from(main.querySelectorAll("div.cell")).map((c) => ({
    code: Array.from(c.querySelectorAll("pre.cell-code")).map((p) => p.textContent).join("\n"),
    images: Array.from(c.querySelectorAll(".cell-output-display img")).map((i) => i.complete && i.naturalWidth > 0),
  }));
  const sections = Array.from(document.querySelectorAll("#quarto-sidebar .sidebar-section.depth1"));
  const active = document.querySelector("#quarto-sidebar .sidebar-link.active");
  const source = Array.from(main.querySelectorAll("p")).find((p) => p.textContent.startsWith("Source: "));
  done({
    katexErrors: Array.from(document.querySelectorAll(".katex-error")).map((e) => e.textContent.slice(0, 80)),
    unrendered: Array.from(main.querySelectorAll(".math")).filter((m) => !m.querySelector(".katex")).map((m) => m.textContent.slice(0, 80)),
    rawDisplay: prose.textContent.includes("$$"),
    rawInline: (prose.textContent.match(/\$[^\s$][^$\n]{0,80}?[^\s$\\]\$/g) || []).slice(0, 5),
    images: imgs.map((i) => ({src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0})),
    text: document.body.innerText,
    resources: [document.URL, ...performance.getEntriesByType("resource").map((e) => e.name)],
    firstCode: firstCode ? {text: firstCode.textContent, visible: visible(firstCode)} : null,
    hasDisplay: !!first,
    tagged, clipped, overlaps, cells,
    padding: Array.from(main.querySelectorAll(".cell-output-display table td")).slice(0, 20)
      .map((td) => parseFloat(getComputedStyle(td).paddingLeft) + parseFloat(getComputedStyle(td).paddingRight)),
    openSections: sections.filter((s) => s.classList.contains("show") && visible(s)).map((s) => s.contains(active)),
    nSections: sections.length,
    activeVisible: !!active && (() => { const bar = document.getElementById("quarto-sidebar");
      const a = active.getBoundingClientRect(), b = bar.getBoundingClientRect(); return a.top >= b.top && a.bottom <= b.bottom; })(),
    source: source ? {text: source.textContent, href: source.querySelector("a") && source.querySelector("a").getAttribute("href")} : null,
  });
})();
"""


def _browser():
    "Start headless Chromium through chromedriver, both from Debian's packages; None when absent."
    chromium = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").is_file() else None)
    if chromium is None or driver is None:
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})  # requests; console
    return webdriver.Chrome(options=options, service=Service(driver))


@pytest.fixture(scope="module")
def pages(site):
    "Open every page once; return its facts and the URLs it requested."
    pytest.importorskip("selenium", reason="selenium is in requirements-dev.txt")
    browser = _browser()
    if browser is None:
        message = "needs chromium and chromium-driver (Debian packages; .ci/run installs them)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    browser.set_page_load_timeout(60)
    browser.set_script_timeout(60)
    found = {}
    try:
        for page in PAGES:
            browser.get((site / page).as_uri())
            facts = browser.execute_async_script(FACTS)
            requests = []
            for entry in browser.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                if message["method"] == "Network.requestWillBeSent":
                    requests.append(message["params"]["request"]["url"])
            facts["requests"] = requests
            facts["console"] = [e["message"][:200] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
            found[page] = facts
    finally:
        browser.quit()
    return found


@pytest.mark.parametrize("page", PAGES)
def test_maths_renders(pages, page):
    facts = pages[page]
    assert not facts["katexErrors"], f"{page}: KaTeX errors {facts['katexErrors']}"
    assert not facts["unrendered"], f"{page}: maths KaTeX did not render {facts['unrendered']}"
    assert not facts["rawDisplay"], f"{page}: raw $$ in the text"
    assert not facts["rawInline"], f"{page}: raw $...$ in the text {facts['rawInline']}"


@pytest.mark.parametrize("page", PAGES)
def test_images_load(pages, page):
    broken = [i["src"][:120] for i in pages[page]["images"] if not i["ok"]]
    assert not broken, f"{page}: images that did not load {broken}"


@pytest.mark.parametrize("page", PAGES)
def test_nothing_requested_off_the_machine(pages, page):
    facts = pages[page]
    remote = sorted({u for u in facts["requests"] + facts["resources"] if not u.startswith(LOCAL)})
    assert not remote, f"{page} requests {remote}"


@pytest.mark.parametrize("page", PAGES)
def test_no_script_errors(pages, page):
    assert not pages[page]["console"], f"{page}: errors in the console {pages[page]['console']}"


@pytest.mark.parametrize("page", PAGES)
def test_no_temporary_paths(pages, page):
    text = pages[page]["text"]
    at = text.find("/tmp/")
    assert at < 0, f"{page} shows a temporary path: ...{text[max(0, at - 80):at + 60]}..."


@pytest.mark.parametrize("page", PAGES)
def test_wide_content_scrolls(pages, page):
    facts = pages[page]
    assert not facts["clipped"], f"{page}: content cut off instead of scrolling {facts['clipped']}"
    assert not facts["overlaps"], f"{page}: equation numbers over their equations {facts['overlaps']}"


@pytest.mark.parametrize("page", COMPONENTS)
def test_code_under_the_first_equation(pages, page):
    facts = pages[page]
    assert facts["hasDisplay"], f"{page} has no display equation"
    code = facts["firstCode"]
    assert code is not None, f"{page}: no code cell shown after the first equation"
    assert code["visible"] and re.search(r"^\s*(async\s+)?(def|class)\s", code["text"], re.M), (
        f"{page}: the first code shown after the first equation implements nothing: {code['text'][:200]!r}")


@pytest.mark.parametrize("page", COMPONENTS)
def test_page_names_its_module(site, pages, page):
    source = pages[page]["source"]
    assert source is not None and re.match(r"Source: gcelib/\w+/\w+\.py", source["text"]), f"{page}: no source line"
    target = (site / page).parent / unquote(source["href"])
    assert target.resolve().is_file(), f"{page}: the source link {source['href']} leads nowhere"


def test_morl_fb_equation_3_its_code_and_its_check(pages):
    blocks = pages["morl_fb/01_fb.html"]["tagged"].get("(3)")
    assert blocks is not None, "morl_fb/01_fb shows no equation (3)"
    shown = [b["text"] for b in blocks if b["visible"]]
    code = next((i for i, t in enumerate(shown) if re.search(r"^def measure_loss\(", t, re.M)), None)
    assert code is not None, "the code of the measure loss (3) is not shown under equation (3)"
    assert any(re.search(r"\b(assert|test_eq|test_close|assert_close)\b", t) for t in shown[code + 1:]), (
        "no check shown under the code of equation (3)")


@pytest.mark.parametrize("page", ["claims.html", *EXPERIMENTS])
def test_result_tables_have_padded_cells(pages, page):
    padding = pages[page]["padding"]
    if not padding:
        pytest.skip(f"{page} shows no result table")
    assert min(padding) >= 8, f"{page}: table cells with {min(padding)}px of horizontal padding"


@pytest.mark.parametrize("page", [*[f"{s}/00_overview.html" for s in PAPERS], *COMPONENTS])
def test_sidebar_opens_only_the_current_paper(pages, page):
    facts = pages[page]
    assert facts["nSections"] > 10
    assert facts["openSections"] == [True], f"{page}: open sidebar sections {facts['openSections']} (want only its own)"
    assert facts["activeVisible"], f"{page}: the current page's entry is scrolled out of the sidebar"


@pytest.mark.parametrize("page", EXPERIMENTS)
def test_reference_figures_are_shown(pages, page):
    slug, stem = page.removesuffix(".html").split("/")
    saved = sorted(p.stem for p in (ROOT / "results" / "reference" / slug / stem).glob("*.png"))
    if not saved:
        pytest.skip(f"the reference run saved no figure for {slug}/{stem}")
    cells = pages[page]["cells"]
    shown = sum(ok for c in cells for ok in c["images"])
    missing = []
    for name in saved:
        saving = [c for c in cells if f'"{name}"' in c["code"] or f"'{name}'" in c["code"]]
        if saving:  # the cell that saves the figure shows it
            if not any(any(c["images"]) and all(c["images"]) for c in saving):
                missing.append(name)
        elif shown < len(saved):
            missing.append(name)
    assert not missing, f"{page} does not show the reference figures {missing}"
