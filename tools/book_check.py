"""Checks of the built book (make book-check): its links, then every chapter page in headless Chromium.

    python tools/book_check.py            # after `make book`; needs Playwright and /usr/bin/chromium

1. Links, read from the HTML files: every internal ``href`` and ``src`` of every
   page resolves to a file of the book, and its ``#fragment`` to an ``id`` on
   that page.
2. In Debian's Chromium (driven by Playwright, the book served from
   localhost), each chapter page: loads with no console error, no uncaught
   exception and no request leaving localhost (the book works offline); shows
   as many figures as its notebook stores image outputs; has its maths rendered
   by MathJax (every ``.math`` element holds MathJax's output, no MathJax
   error, no ``$$`` left in the text); has its solutions and check cells
   collapsed, its asides in the margin and every answer of its concept check. The landing page lists every chapter
   and the search page finds a word of the course.
3. Screenshots of the landing page and of a chapter in e2e/screenshots/.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
from book_build import ASIDE, BUILD, chapter_paths, count_figures

ROOT = Path(__file__).resolve().parents[1]
HTML = BUILD / "html"
SCREENSHOTS = ROOT / "e2e" / "screenshots"
CHROMIUM = os.environ.get("DL4NLP_CHROMIUM", "/usr/bin/chromium")
SCREENSHOT_CHAPTER = "03_rnns_forget"
SEARCH_WORD = "perplexity"
PAGE_TIMEOUT_MS = 120_000


class _Links(HTMLParser):
    """The ``href``/``src`` attributes and the ``id``s of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif (name == "href" and tag in ("a", "link", "area")) or (name == "src" and tag in ("img", "script")):
                self.links.append(value)


def parse(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


def internal(link: str) -> bool:
    """Whether ``link`` points inside the book (no scheme, no host; not a mailto: or javascript:).

    >>> [internal(x) for x in ("03_rnns.html#a", "#top", "https://x.org/", "//cdn.x/y.js", "mailto:a@b", "")]
    [True, True, False, False, False, False]
    """
    parts = urlsplit(link)
    return bool(link) and not parts.scheme and not parts.netloc


def broken_links(root: Path) -> list[str]:
    """Every internal link of the pages in ``root`` that does not resolve, as 'page: link (why)'.

    Only the pages themselves are read: the theme's template fragments under _static/ are not pages.
    """
    pages = {path: parse(path.read_text(encoding="utf-8")) for path in sorted(root.glob("*.html"))}
    problems = []
    for page, parsed in pages.items():
        for link in parsed.links:
            if not internal(link):
                continue
            parts = urlsplit(link)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(root)}: {link}"
            if not target.is_file():
                problems.append(f"{where} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse(target.read_text(encoding="utf-8")).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{where} (no id {parts.fragment!r} there)")
    return problems


def expectations(notebook_path: Path) -> dict:
    """What a chapter's page must show, counted in its notebook."""
    notebook = nbformat.read(notebook_path, as_version=4)
    markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    tags = [c.metadata.get("tags", []) for c in notebook.cells if c.cell_type == "code"]
    quiz_file = ROOT / "quizzes" / f"{notebook_path.name[:2]}.json"
    has_quiz = any("quiz.show(" in c.source for c in notebook.cells if c.cell_type == "code")
    questions = json.loads(quiz_file.read_text(encoding="utf-8"))["questions"] if has_quiz else []
    return {
        "quiz_answers": sum(len(q["answers"]) for q in questions),
        "figures": count_figures(notebook),
        "maths": any("$" in text for text in markdown),
        "asides": sum(text.lstrip().startswith(ASIDE) for text in markdown),
        "solutions": sum("solution" in t for t in tags),
        "checks": sum("check" in t for t in tags),
    }


PAGE_STATE = """() => {
  const q = (s) => Array.from(document.querySelectorAll(s));
  const maths = q('article .math');
  return {
    figures: q('article .cell_output img').length,
    maths: maths.length,
    unrendered: maths.filter((m) => !m.querySelector('mjx-container')).map((m) => m.textContent.slice(0, 60)),
    mathErrors: q('mjx-merror').length,
    rawDollars: document.querySelector('article').innerText.includes('$$'),
    collapsedSolutions: q('article details.hide.above-input, article .tag_hide-cell details').length,
    hiddenCells: q('article .tag_hide-cell').length,
    hiddenInputs: q('article .tag_hide-input').length,
    margins: q('article .margin').length,
    quizAnswers: q('article .dl4nlp-quiz details').length,
  };
}"""

MATHJAX_DONE = """async () => {
  for (let i = 0; i < 100 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++)
    await new Promise((r) => setTimeout(r, 100));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  return !!(window.MathJax && MathJax.startup);
}"""


def check_pages(html: Path) -> list[str]:
    """Open every chapter page, the landing page and the search page in Chromium; the problems found."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_QuietHandler, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    problems: list[str] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(PAGE_TIMEOUT_MS)  # a chapter of 170 formulas typesets slowly on a busy CPU
            events: list[str] = []
            page.on("console", lambda m: m.type == "error" and events.append(f"console error: {m.text}"))
            page.on("pageerror", lambda e: events.append(f"uncaught exception: {e}"))

            def outside(route):
                events.append(f"request leaves the book: {route.request.url}")
                route.abort()

            page.route(lambda url: not url.startswith(base), outside)

            def visit(name: str, maths: bool) -> None:
                events.clear()
                page.goto(base + name, wait_until="load")
                if maths and not page.evaluate(MATHJAX_DONE):
                    events.append("MathJax did not start")

            for path in chapter_paths():
                expected = expectations(path)
                visit(f"{path.stem}.html", expected["maths"])
                state = page.evaluate(PAGE_STATE)
                found = list(events)
                if state["figures"] != expected["figures"]:
                    found.append(f"{state['figures']} figures, the notebook has {expected['figures']}")
                if expected["maths"] and not state["maths"]:
                    found.append("no rendered maths, the notebook has some")
                if state["unrendered"] or state["mathErrors"] or state["rawDollars"]:
                    found.append(f"maths not rendered: {state['unrendered'][:3]}, {state['mathErrors']} MathJax errors")
                if state["hiddenCells"] != expected["solutions"] or state["hiddenInputs"] != expected["checks"]:
                    found.append(
                        f"{state['hiddenCells']} collapsed cells for {expected['solutions']} solutions, "
                        f"{state['hiddenInputs']} collapsed inputs for {expected['checks']} check cells"
                    )
                if state["quizAnswers"] != expected["quiz_answers"]:
                    found.append(
                        f"{state['quizAnswers']} concept-check answers, the quiz has {expected['quiz_answers']}"
                    )
                if state["margins"] != expected["asides"]:
                    found.append(f"{state['margins']} margin notes for {expected['asides']} asides")
                problems += [f"{path.stem}: {p}" for p in found]
                print(
                    f"{path.stem}: {state['figures']} figures, {state['maths']} maths, "
                    f"{state['hiddenCells']} solutions and {state['hiddenInputs']} checks collapsed, "
                    f"{state['margins']} asides in the margin, {state['quizAnswers']} concept-check answers: "
                    f"{'ok' if not found else 'FAILED'}",
                    flush=True,
                )
                if path.stem == SCREENSHOT_CHAPTER:
                    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                    page.locator("article .margin").first.scroll_into_view_if_needed()
                    page.screenshot(path=SCREENSHOTS / f"book_{path.stem}.png")

            visit("index.html", maths=False)
            listed = page.evaluate("() => Array.from(document.querySelectorAll('article a')).map((a) => a.href)")
            missing = [p.stem for p in chapter_paths() if not any(f"/{p.stem}.html" in href for href in listed)]
            problems += [f"index: {e}" for e in events] + [f"index: no link to {m}" for m in missing]
            page.screenshot(path=SCREENSHOTS / "book_index.png")

            events.clear()
            page.goto(base + f"search.html?q={SEARCH_WORD}", wait_until="load")
            try:
                page.wait_for_selector("#search-results ul.search li", timeout=15000)
            except Exception:  # noqa: BLE001  (reported below)
                problems.append(f"search: no result for {SEARCH_WORD!r}")
            problems += [f"search: {e}" for e in events]
            hits = page.locator("#search-results ul.search li").count()
            print(f"index: {len(listed)} links; search for {SEARCH_WORD!r}: {hits} pages", flush=True)
            browser.close()
    finally:
        server.shutdown()
    return problems


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # noqa: D401  (no access log)
        pass


def main() -> int:
    if not (HTML / "index.html").is_file():
        raise SystemExit(f"no book in {HTML}: run make book first")
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM}: install Debian's chromium (make book-check does it)")
    problems = [f"link {p}" for p in broken_links(HTML)]
    pages = len(list(HTML.glob("*.html")))
    print(f"links: {pages} pages, {len(problems)} broken", flush=True)
    problems += check_pages(HTML)
    for line in problems:
        print(line, file=sys.stderr)
    print(f"book check: {'FAILED, ' + str(len(problems)) + ' problems' if problems else 'passed'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
