"""The notebooks as files: pairs in sync, outputs stored and clean, shared parts up to date.

Executing them is nbval's job (`pytest --nbval-lax notebooks`, run by `make test`).
"""

import json
import re
from pathlib import Path

import jupytext
import notebook_template
import pytest

ROOT = Path(__file__).resolve().parents[1]
TWINS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
IDS = [p.stem for p in TWINS]


def code_cells(ipynb: Path) -> list[dict]:
    return [c for c in json.loads(ipynb.read_text())["cells"] if c["cell_type"] == "code"]


def test_the_collection_starts_with_00_and_01():
    assert [p.stem for p in TWINS][:2] == ["00_start_here", "01_backprop"]


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_pair_is_in_sync(py):
    """Regenerate the .py from the committed .ipynb and compare (never by timestamps)."""
    ipynb = py.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} is missing: run `make notebooks NB={py.stem[:2]}`"
    regenerated = jupytext.writes(jupytext.read(ipynb), fmt="py:percent")
    assert regenerated == py.read_text(), (
        f"{ipynb.name} and {py.name} differ: edit the .py, then run `make notebooks NB={py.stem[:2]}`"
    )


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_every_code_cell_was_executed_without_error(py):
    for index, cell in enumerate(code_cells(py.with_suffix(".ipynb"))):
        assert cell["execution_count"] is not None, f"cell {index} has no stored output"
        errors = [o for o in cell["outputs"] if o["output_type"] == "error"]
        assert not errors, f"cell {index} stored an error: {errors[0]['ename']}"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_outputs_hold_no_paths_addresses_or_timings(py):
    text = json.dumps([c["outputs"] for c in code_cells(py.with_suffix(".ipynb"))])
    for pattern in [
        r"/work/",
        r"/home/",
        r"/root/",
        r"/Users/",
        r"site-packages",
        r"at 0x[0-9a-f]{6,}",
        r"\b20\d\d-\d\d-\d\d[T ]\d\d:\d\d",
    ]:  # a timestamp, not a date the lesson is about
        assert not re.search(pattern, text), f"stored output contains {pattern!r}"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_nbval_markers_stand_alone(py):
    for line in py.read_text().splitlines():
        if "NBVAL_" in line and line.lstrip().startswith("#"):
            assert re.fullmatch(r"\s*# NBVAL_[A-Z_]+", line), f"marker not alone on its line: {line!r}"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_badge_and_set_up_cell_come_from_the_one_template(py):
    text = py.read_text()
    assert notebook_template.render(text, py.with_suffix(".ipynb").name) == text, (
        "run `python tools/notebook_template.py` to update the badge and set-up cell"
    )
    assert notebook_template.colab_badge(py.with_suffix(".ipynb").name) in text
    assert notebook_template.setup_cell() in text


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_anatomy(py):
    """Slides on sections, a summary, and every solution hidden but present."""
    notebook = jupytext.read(py)
    cells = notebook.cells
    assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# "), "a title comes first"
    assert any(c.metadata.get("slideshow", {}).get("slide_type") == "slide" for c in cells)
    assert any("## Summary" in c.source for c in cells if c.cell_type == "markdown")
    assert any("claim(" in c.source for c in cells if "check" in c.metadata.get("tags", [])), "no check cell"
    for cell in cells:
        if "solution" in cell.metadata.get("tags", []):
            assert cell.metadata.get("jupyter", {}).get("source_hidden") is True
            assert "assert check(" in cell.source, "a solution proves itself with its check"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_no_heading_is_stranded_in_a_code_cell(py):
    """A heading written as a comment in a code cell means a missing `# %% [markdown]` line."""
    for index, cell in enumerate(jupytext.read(py).cells):
        if cell.cell_type == "code":
            headings = [line for line in cell.source.splitlines() if re.match(r"# #{1,4} ", line)]
            assert not headings, f"code cell {index} holds markdown headings {headings}: add `# %% [markdown]`"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_asides_are_speaker_notes(py):
    """A side remark starts with **Aside.** and is a RISE speaker note: in the notebook, not on the slides."""
    cells = jupytext.read(py).cells
    notes = [c for c in cells if c.metadata.get("slideshow", {}).get("slide_type") == "notes"]
    asides = [c for c in cells if c.cell_type == "markdown" and c.source.startswith("**Aside.**")]
    assert asides, "every notebook has at least one aside for the instructor's notes"
    assert notes == asides, "exactly the cells that start with **Aside.** are speaker notes"


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_every_section_starts_a_slide(py):
    """A `## ` section heading is the first line of a cell that starts a RISE slide (the instructor notes: skipped)."""
    for index, cell in enumerate(jupytext.read(py).cells):
        if cell.cell_type != "markdown":
            continue
        for number, line in enumerate(cell.source.splitlines()):
            if line.startswith("## "):
                wanted = "skip" if line == "## Instructor notes" else "slide"
                assert number == 0 and cell.metadata.get("slideshow", {}).get("slide_type") == wanted, (
                    f"cell {index}: section {line!r} must open its own cell with slide_type 'slide'"
                )


def test_fifteen_chapters_numbered_in_course_order():
    """DESIGN.md §3: one notebook per lecture, 00 to 14."""
    assert [p.stem[:2] for p in TWINS] == [f"{n:02d}" for n in range(15)]


@pytest.mark.parametrize("py", TWINS, ids=IDS)
def test_the_readme_lists_every_chapter_with_its_colab_badge(py):
    readme = (ROOT / "README.md").read_text()
    assert f"(notebooks/{py.stem}.ipynb)" in readme, f"README's topic map has no row for {py.stem}"
    assert notebook_template.colab_url(f"{py.stem}.ipynb") in readme, f"README has no Colab badge for {py.stem}"
