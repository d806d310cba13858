"""The anatomy of a chapter (DESIGN.md §3): one lecture long, checks out of the reading path, prose for students.

Read from the .py twins: the opening (promise, goals, prerequisites, study and run time), one collapsed check
cell at the end of a section, no assert outside check and solution cells, the closing sections in order, the
main line within one lecture's size, and no maintainers' words or constant names in the student's prose.
"""

import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
TWINS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
IDS = [p.stem for p in TWINS]
MAIN_LINE_CELLS = 70  # DESIGN.md §3: one lecture, at most about 70 cells ...
MAIN_LINE_WORDS = 3_500  # ... and 3,500 words of prose
CLOSING = ["## Summary", "## What comes next", "## References"]
ASSERT = re.compile(r"^\s*assert\b", re.MULTILINE)
MAINTAINERS_WORDS = re.compile(r"\brecipes?\b|claims suite|\bCI\b|provenance|an earlier version", re.IGNORECASE)
CONSTANT_NAME = re.compile(r"`(?!(?:DL4NLP|ATEN|ONEDNN|MKL|CUDA|PYTORCH)_)[A-Z][A-Z0-9]*_[A-Z0-9_]+`")  # not env vars


def cells(py: Path) -> list:
    return jupytext.read(py).cells


def tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


def slide_type(cell) -> str | None:
    return cell.metadata.get("slideshow", {}).get("slide_type")


def heading(cell) -> str | None:
    first = cell.source.splitlines()[0] if cell.source else ""
    return first if cell.cell_type == "markdown" and first.startswith("## ") else None


def sections(py: Path) -> list[tuple[str, list]]:
    """(heading, cells) for the part before the first section, every `## ` section, and every `### ` part of
    Going further (each optional study there is a section of its own)."""
    found, further = [("(opening)", [])], False
    for cell in cells(py):
        first = cell.source.splitlines()[0] if cell.cell_type == "markdown" and cell.source else ""
        if heading(cell):
            further = heading(cell).startswith("## Going further")
            found.append((heading(cell), []))
        elif further and first.startswith("### "):
            found.append((first, []))
        found[-1][1].append(cell)
    return found


def main_line(py: Path) -> list:
    """The cells a student reads in the lecture: everything before Going further / Instructor notes."""
    chosen = []
    for cell in cells(py):
        if heading(cell) in ("## Going further", "## Instructor notes") or (heading(cell) or "").startswith(
            "## Going further"
        ):
            break
        chosen.append(cell)
    return chosen


def prose_words(text: str) -> int:
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.DOTALL)  # display maths
    return len(re.findall(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]*", text))


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_the_opening_promises_goals_prerequisites_and_times(py):
    opening = cells(py)[0].source
    assert opening.startswith(f"# {py.stem[:2]} · "), "the title names the chapter's number"
    for part in ("**You will", "**Prerequisites", "**Study time:**", "**run time:**"):
        assert part.lower() in opening.lower(), f"the opening has no {part}"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_asserts_live_only_in_check_and_solution_cells(py):
    for index, cell in enumerate(cells(py)):
        if cell.cell_type == "code" and ASSERT.search(cell.source):
            assert {"check", "solution"} & set(tags(cell)), f"cell {index} asserts in the reading path"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_check_cells_are_collapsed_skipped_and_close_their_section(py):
    for title, members in sections(py):
        checks = [c for c in members if "check" in tags(c)]
        assert len(checks) <= 1, f"{title}: {len(checks)} check cells; one per section"
        for check in checks:
            assert check.metadata.get("jupyter", {}).get("source_hidden") is True, f"{title}: input not collapsed"
            assert check.metadata.get("cellView") == "form", f"{title}: no Colab form view"
            assert slide_type(check) == "skip", f"{title}: the check cell is on the slides"
            assert "claim(" in check.source, f"{title}: a check cell states its claims with claim(...)"
            code = [c for c in members if c.cell_type == "code" and "solution" not in tags(c)]
            assert code[-1] is check, f"{title}: the check cell is not the section's last code cell"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_the_closing_sections_come_in_order_with_instructor_notes_last(py):
    headings = [heading(c) for c in cells(py) if heading(c)]
    positions = [headings.index(h) for h in CLOSING if h in headings]
    assert len(positions) == len(CLOSING), f"missing closing sections: {set(CLOSING) - set(headings)}"
    assert positions == sorted(positions)
    assert headings[-1] == "## Instructor notes", "Instructor notes close the notebook"
    notes = next(c for c in cells(py) if heading(c) == "## Instructor notes")
    assert slide_type(notes) == "skip", "the instructor notes are not on the slides"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_the_main_line_is_one_lecture(py):
    reading = [c for c in main_line(py) if not {"check", "solution"} & set(tags(c))]
    words = sum(prose_words(c.source) for c in reading if c.cell_type == "markdown" and slide_type(c) != "notes")
    assert len(reading) <= MAIN_LINE_CELLS, f"{len(reading)} cells before Going further; one lecture is ≤ 70"
    assert words <= MAIN_LINE_WORDS, f"{words} words of prose before Going further; one lecture is ≤ 3,500"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_the_prose_speaks_to_the_student(py):
    for index, cell in enumerate(main_line(py)):
        if cell.cell_type != "markdown" or slide_type(cell) == "notes":
            continue
        words = MAINTAINERS_WORDS.findall(cell.source)
        assert not words, f"markdown cell {index} speaks the maintainers' language: {words}"
        names = CONSTANT_NAME.findall(cell.source)
        assert not names, f"markdown cell {index} names constants instead of numbers: {names}"
