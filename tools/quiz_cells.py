"""Put each chapter's concept check (quizzes/NN.json) at the end of its notebook, before the instructor notes.

    python tools/quiz_cells.py          # every chapter that has a quizzes/NN.json
    python tools/quiz_cells.py 03 04    # those chapters only

Idempotent: run it again (e.g. after a merge that changed a notebook) and it
replaces the section it wrote before, or does nothing when that is up to date.
The section is a markdown cell ``## Check your understanding`` and one code
cell that shows the quiz. The code cell's output is made here by calling the
same function the kernel would (``dl4nlp.quiz.show``), so the notebook is not
executed again; the .ipynb is edited and its .py twin regenerated from it with
jupytext, exactly as tests/test_notebooks.py compares them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from dl4nlp import quiz  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
HEADING = "## Check your understanding"
INTRO = (
    "A few questions to answer without code, about what this chapter showed. Click an answer to see whether "
    "it is right and why; the section named under each question is where the chapter shows it."
)


def quiz_source(chapter: str) -> str:
    return f'from dl4nlp import quiz\n\nquiz.show("{chapter}")'


def quiz_cells(chapter: str, execution_count: int) -> list[nbformat.NotebookNode]:
    """The section's two cells, the code cell with the output the kernel would give it."""
    heading = nbformat.v4.new_markdown_cell(f"{HEADING}\n\n{INTRO}")
    heading.metadata = {"slideshow": {"slide_type": "slide"}}
    shown = quiz.show(chapter)
    output = nbformat.v4.new_output(
        "execute_result",
        data={"text/html": shown._repr_html_(), "text/plain": repr(shown)},
        execution_count=execution_count,
    )
    code = nbformat.v4.new_code_cell(quiz_source(chapter), outputs=[output], execution_count=execution_count)
    heading.id, code.id = f"quiz-{chapter}-heading", f"quiz-{chapter}-cell"
    return [heading, code]


def heading_of(cell: nbformat.NotebookNode) -> str:
    return cell.source.splitlines()[0] if cell.cell_type == "markdown" and cell.source else ""


def with_quiz(notebook: nbformat.NotebookNode, chapter: str) -> nbformat.NotebookNode:
    """``notebook`` with its concept-check section (re)placed just before ``## Instructor notes``."""
    cells = list(notebook.cells)
    for i, cell in enumerate(cells):
        if heading_of(cell) == HEADING:
            end = i + 1
            if end < len(cells) and cells[end].cell_type == "code" and "quiz.show(" in cells[end].source:
                end += 1
            del cells[i:end]
            break
    notes = [i for i, cell in enumerate(cells) if heading_of(cell) == "## Instructor notes"]
    if not notes:
        raise ValueError(f"chapter {chapter}: no '## Instructor notes' section to put the concept check before")
    count = 1 + max((c.get("execution_count") or 0 for c in cells if c.cell_type == "code"), default=0)
    cells[notes[0] : notes[0]] = quiz_cells(chapter, count)
    notebook.cells = cells
    return notebook


def update(path: Path) -> bool:
    """Write the section into ``path`` (.ipynb) and its .py twin; whether anything changed."""
    chapter = path.name[:2]
    before = path.read_text(encoding="utf-8")
    notebook = with_quiz(nbformat.read(path, as_version=4), chapter)
    after = nbformat.writes(notebook) + "\n"
    py = path.with_suffix(".py")
    py_text = jupytext.writes(jupytext.reads(after, fmt="ipynb"), fmt="py:percent")
    changed = after != before or py_text != py.read_text(encoding="utf-8")
    if changed:
        path.write_text(after, encoding="utf-8")
        py.write_text(py_text, encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    chapters = argv or sorted(p.stem for p in quiz.QUIZZES.glob("[0-9][0-9].json"))
    for chapter in chapters:
        quiz.load(chapter)  # fails loudly on a malformed file before any notebook is touched
        (path,) = NOTEBOOKS.glob(f"{chapter}_*.ipynb")
        print(f"{path.name}: {'updated' if update(path) else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
