"""The student edition (tools/student_edition.py) on a real chapter, without executing it."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from student_edition import student_edition  # noqa: E402

NAME = "03_rnns_forget.ipynb"


def full() -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "notebooks" / NAME, as_version=4)


def test_solutions_removed_exercise_outputs_cleared_rest_kept():
    notebook = full()
    solutions = sum("solution" in c.metadata.get("tags", []) for c in notebook.cells)
    assert solutions > 0
    edition = student_edition(full(), NAME)
    assert len(edition.cells) == len(notebook.cells) - solutions
    assert not any("solution" in c.metadata.get("tags", []) for c in edition.cells)
    exercises = [c for c in edition.cells if c.cell_type == "code" and "check(" in c.source]
    assert exercises and all(c.outputs == [] for c in exercises)
    figures = sum("image/png" in o.get("data", {}) for c in edition.cells if c.cell_type == "code" for o in c.outputs)
    assert figures > 0  # the other cells keep their stored outputs


def test_badge_dropped_by_default_and_pointed_at_the_student_branch_on_request():
    assert "colab.research.google.com/github" in full().cells[0].source
    edition = student_edition(full(), NAME)
    assert "colab.research" not in edition.cells[0].source and "\n\n\n" not in edition.cells[0].source
    edition = student_edition(full(), NAME, colab_branch="student", repo="someone/course")
    assert f"colab.research.google.com/github/someone/course/blob/student/student/{NAME})" in edition.cells[0].source
