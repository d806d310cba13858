"""The pure-Python parts of the book (tools/book_build.py, tools/book_check.py): syllabus, page copies, links."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from book_build import (  # noqa: E402
    WIDGET_NOTE,
    WIDGET_TYPE,
    book_page,
    chapter_paths,
    count_figures,
    read_chapter,
    syllabus_table,
)
from book_check import broken_links, expectations, internal  # noqa: E402


def test_the_syllabus_is_read_from_every_opening_in_course_order():
    chapters = [read_chapter(p.stem, nbformat.read(p, as_version=4).cells[0].source) for p in chapter_paths()]
    assert [c.number for c in chapters] == [f"{i:02d}" for i in range(15)]
    assert all(c.study_time.startswith("about ") and c.run_time.startswith("about ") for c in chapters)
    table = syllabus_table(chapters)
    assert table.count("\n") == 16 and "| 03 | [RNNs, and why they forget](03_rnns_forget.ipynb) |" in table


def test_an_opening_without_times_or_with_the_wrong_number_is_refused():
    with pytest.raises(ValueError, match=r"no \*\*Study time:\*\*, \*\*run time:\*\*"):
        read_chapter("03_x", "# 03 · A title\n\nNo times here.")
    with pytest.raises(ValueError, match="the title says chapter 04, the file name 03"):
        read_chapter(
            "03_x", "# 04 · T\n**Study time:** about 1 hour for a person; **run time:** about 5 s on a laptop CPU."
        )


def cell(kind, source, tags=(), outputs=()):
    made = (
        nbformat.v4.new_code_cell(source, outputs=list(outputs))
        if kind == "code"
        else (nbformat.v4.new_markdown_cell(source))
    )
    if tags:
        made.metadata["tags"] = list(tags)
    return made


def test_a_page_collapses_solutions_and_checks_puts_asides_in_the_margin_and_reads_nothing_remote():
    image = nbformat.v4.new_output("display_data", data={"image/png": "iVBOR", "text/plain": "<Figure>"})
    widget = nbformat.v4.new_output(
        "display_data", data={WIDGET_TYPE: {"model_id": "x"}, "image/png": "iVBOR", "text/plain": "w"}
    )
    notebook = nbformat.v4.new_notebook(
        cells=[
            cell(
                "markdown",
                "# 03 · T\n\n[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
                "(https://colab.research.google.com/github/o/r/blob/main/notebooks/03_x.ipynb) see [code](../lib/x.py)",
            ),
            cell("markdown", "**Aside.** A remark with ```code```."),
            cell("code", "answer = 1", tags=["solution"]),
            cell("code", "claim('x', True)", tags=["check"], outputs=[image]),
            cell("code", "interactive_figure(draw)", outputs=[widget]),
        ],
        metadata={"widgets": {"state": {}}},
    )
    before = copy.deepcopy(notebook)
    page = book_page(notebook)
    assert notebook == before, "the notebook itself is not changed"
    assert "widgets" not in page.metadata
    badge = page.cells[0].source
    assert (
        "(colab-badge.svg)" in badge and "colab.research.google.com/github/o/r/blob/main/notebooks/03_x.ipynb" in badge
    )
    assert "(https://github.com/dl4nlp-course/dl4nlp/blob/main/lib/x.py)" in badge
    assert page.cells[1].source.startswith("````{margin}\n**Aside.**") and page.cells[1].source.endswith("\n````")
    assert page.cells[2].metadata["tags"] == ["solution", "hide-cell"]
    assert page.cells[3].metadata["tags"] == ["check", "hide-input"]
    kept, note = page.cells[4].outputs
    assert WIDGET_TYPE not in kept["data"] and "image/png" in kept["data"]
    assert note["data"] == {"text/markdown": WIDGET_NOTE}
    assert count_figures(page) == count_figures(notebook) == 2
    assert book_page(page) == page, "idempotent"


def test_expectations_count_a_chapter_s_figures_asides_solutions_and_checks():
    expected = expectations(ROOT / "notebooks" / "03_rnns_forget.ipynb")
    assert expected["figures"] > 0 and expected["maths"] and expected["asides"] > 0
    assert expected["solutions"] > 0 and expected["checks"] > 0 and expected["quiz_answers"] >= 6


def test_links_that_do_not_resolve_are_found(tmp_path):
    (tmp_path / "index.html").write_text(
        '<a href="a.html#there">ok</a> <a href="a.html#nowhere">bad id</a> <a href="b.html">no file</a>'
        '<a href="https://example.org/">outside</a> <img src="_images/f.png"> <a href="#top" id="top">self</a>'
    )
    (tmp_path / "a.html").write_text('<h2 id="there">x</h2> <script src="_static/s.js"></script>')
    (tmp_path / "_images").mkdir()
    (tmp_path / "_images" / "f.png").write_bytes(b"")
    assert broken_links(tmp_path) == [
        "a.html: _static/s.js (no such file)",
        "index.html: a.html#nowhere (no id 'nowhere' there)",
        "index.html: b.html (no such file)",
    ]
    assert internal("x.html") and not internal("mailto:a@b") and not internal("//cdn.example/x.js")
