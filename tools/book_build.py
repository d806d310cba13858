"""The course as a rendered book: a static HTML site built from the notebooks' stored outputs.

    python tools/book_build.py                 # build/book/html/index.html (run with .venv-book's python: make book)
    python tools/book_build.py --sources-only  # only write the Sphinx sources to build/book/src

Nothing is executed and nothing is fetched. The pages are made by Sphinx with
MyST-NB (the engine of Jupyter Book 1) and sphinx-book-theme, from copies of
the notebooks in build/book/src: notebooks/ is only read. The copies differ
from the notebooks in what only a book needs, each done with the tool's own
means:

- cells tagged ``solution`` get MyST-NB's ``hide-cell`` tag (collapsed, input
  and output), cells tagged ``check`` its ``hide-input`` tag (the code
  collapsed, the claims it printed visible);
- an aside (a markdown cell that starts with ``**Aside.**``, a RISE speaker
  note) goes into sphinx-book-theme's ``{margin}`` directive;
- an interactive figure's output (an ipywidget, which needs a kernel) keeps
  only the picture stored with it (the figure as first drawn), followed by a
  one-line note, and the notebook's widget state is dropped, so that no page
  loads the widget manager from a CDN;
- the Colab badge's image, which Colab serves, is replaced by a copy in the
  book (book/_static/colab-badge.svg); its link is unchanged;
- a link to a file of the repository outside notebooks/ (``../lib/...``)
  points to that file on GitHub, since the book holds only the chapters.

The landing page (book/index.md) gets the syllabus, read from each chapter's
opening cell (title, study time, run time), and the table of contents in
course order; book/instructor.md, the instructor's page, gets each chapter's
times (``{{ time NN }}``) from the same opening cells.
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
BOOK = ROOT / "book"
BUILD = ROOT / "build" / "book"

IMAGE_TYPES = ("image/png", "image/svg+xml", "image/jpeg", "image/gif")
WIDGET_TYPE = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = "*An interactive figure stands here: run the notebook (JupyterLab or Colab) to use its controls.*"
BADGE_IMAGE = re.compile(r"\(https://colab\.research\.google\.com/assets/colab-badge\.svg\)")
ASIDE = "**Aside.**"
REPOSITORY = "https://github.com/dl4nlp-course/dl4nlp/blob/main/"  # as book/conf.py's repository_url
OUTSIDE_LINK = re.compile(r"\]\(\.\./([^)\s]+)\)")  # a notebook's link to a file of the repository


@dataclass(frozen=True)
class Chapter:
    """One row of the syllabus, read from a chapter's opening cell."""

    stem: str  # "03_rnns_forget"
    number: str  # "03"
    title: str  # "RNNs, and why they forget"
    study_time: str  # "about 2 hours"
    run_time: str  # "about 30 s"


def chapter_paths() -> list[Path]:
    """The chapter notebooks, in course order (their names start with the chapter's number)."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def read_chapter(stem: str, opening: str) -> Chapter:
    """The syllabus row of a chapter whose first markdown cell is ``opening``.

    >>> read_chapter("03_x", "# 03 · RNNs\\n\\n**Study time:** about 2 hours for a person; "
    ...              "**run time:** about 30 s on a laptop CPU.")
    Chapter(stem='03_x', number='03', title='RNNs', study_time='about 2 hours', run_time='about 30 s')
    """
    title = re.search(r"^# (\d\d) · (.+)$", opening, re.MULTILINE)
    study = re.search(r"\*\*Study time:\*\*\s*(.+?)\s+for a person([^;]*);", opening)
    run = re.search(r"\*\*run time:\*\*\s*(.+?)\s+on a laptop CPU", opening)
    found = (("title '# NN · ...'", title), ("**Study time:**", study), ("**run time:**", run))
    missing = [name for name, match in found if not match]
    if missing:
        raise ValueError(f"{stem}: the opening cell has no {', '.join(missing)}")
    if title.group(1) != stem[:2]:
        raise ValueError(f"{stem}: the title says chapter {title.group(1)}, the file name {stem[:2]}")
    return Chapter(stem, title.group(1), title.group(2).strip(), study.group(1) + study.group(2), run.group(1))


def syllabus_table(chapters: list[Chapter]) -> str:
    """The landing page's syllabus, a Markdown table linking each chapter's page."""
    rows = ["| | chapter | study time | run time |", "|---|---|---|---|"]
    rows += [f"| {c.number} | [{c.title}]({c.stem}.ipynb) | {c.study_time} | {c.run_time} |" for c in chapters]
    return "\n".join(rows)


def count_figures(notebook: nbformat.NotebookNode) -> int:
    """How many image outputs the notebook stores (one per output, whatever its formats)."""
    return sum(
        any(kind in output.get("data", {}) for kind in IMAGE_TYPES)
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


def add_tag(cell: nbformat.NotebookNode, tag: str) -> None:
    tags = cell.metadata.setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


def book_page(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` prepared for the book (see the module's docstring); the input is unchanged."""
    page = copy.deepcopy(notebook)
    page.metadata.pop("widgets", None)
    for cell in page.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown":
            cell.source = BADGE_IMAGE.sub("(colab-badge.svg)", cell.source)
            cell.source = OUTSIDE_LINK.sub(lambda m: f"]({REPOSITORY}{m.group(1)})", cell.source)
            if cell.source.lstrip().startswith(ASIDE):
                fence = "`" * max(4, 1 + max((len(m) for m in re.findall(r"`{3,}", cell.source)), default=0))
                cell.source = f"{fence}{{margin}}\n{cell.source.strip()}\n{fence}"
            continue
        if cell.cell_type != "code":
            continue
        if "solution" in tags:
            add_tag(cell, "hide-cell")
        elif "check" in tags:
            add_tag(cell, "hide-input")
        outputs = []
        for output in cell.outputs:
            if WIDGET_TYPE in output.get("data", {}):
                output.data.pop(WIDGET_TYPE)
                if any(kind in output.data for kind in IMAGE_TYPES):
                    outputs.append(output)
                outputs.append(nbformat.v4.new_output("display_data", data={"text/markdown": WIDGET_NOTE}))
            else:
                outputs.append(output)
        cell.outputs = outputs
    return page


def write_sources(src: Path) -> list[Chapter]:
    """Write the Sphinx project (configuration, landing and instructor pages, chapter copies) to ``src``."""
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(BOOK, src, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(BOOK / "_static" / "colab-badge.svg", src / "colab-badge.svg")
    chapters = []
    for path in chapter_paths():
        notebook = nbformat.read(path, as_version=4)
        chapters.append(read_chapter(path.stem, notebook.cells[0].source))
        nbformat.write(book_page(notebook), src / path.name)
    index = (src / "index.md").read_text()
    index = index.replace("{{ syllabus }}", syllabus_table(chapters))
    index = index.replace("{{ toctree }}", "\n".join(c.stem for c in chapters))
    (src / "index.md").write_text(index)
    times = {c.number: f"study time {c.study_time}, run time {c.run_time}" for c in chapters}
    instructor = (src / "instructor.md").read_text()
    instructor = re.sub(r"\{\{ time (\d\d) \}\}", lambda m: times[m.group(1)], instructor)
    (src / "instructor.md").write_text(instructor)
    return chapters


def build(src: Path, html: Path) -> None:
    """Run Sphinx; warnings are errors, so a broken link or a bad directive fails the build."""
    if html.exists():
        shutil.rmtree(html)
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going"]
    subprocess.run([*command, "-d", str(src.parent / "doctrees"), str(src), str(html)], check=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BUILD, help="build folder (default: build/book)")
    parser.add_argument("--sources-only", action="store_true", help="write the Sphinx sources, do not build")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    chapters = write_sources(args.out / "src")
    if not args.sources_only:
        build(args.out / "src", args.out / "html")
        size = sum(f.stat().st_size for f in (args.out / "html").rglob("*") if f.is_file())
        print(
            f"book: {len(chapters)} chapters in {args.out / 'html' / 'index.html'} "
            f"({size / 1e6:.1f} MB, {time.perf_counter() - start:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
