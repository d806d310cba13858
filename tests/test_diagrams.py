"""Diagram primitives: boxes, arrows, groups, errors that name what is wrong."""

import matplotlib.pyplot as plt
import pytest

from dl4nlp.diagrams import KINDS, Diagram


def test_a_diagram_draws_every_box_label_and_arrow():
    d = Diagram().box("a", "input", (0, 0), "input").box("b", "output", (0, 2), "output").arrow("a", "b", label="W")
    d.group("layer", ["a", "b"], pad=0.2)
    fig = d.draw(title="t")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert {"input", "output", "W", "layer"} <= set(texts)
    assert len(fig.axes[0].patches) == 2 + 1 + 1  # boxes, arrow, group frame
    plt.close(fig)


def test_bad_input_is_named():
    d = Diagram().box("a", "a", (0, 0))
    with pytest.raises(ValueError, match="kind must be one of"):
        d.box("b", "b", (1, 1), kind="blob")
    with pytest.raises(ValueError, match="exists already"):
        d.box("a", "again", (1, 1))
    with pytest.raises(KeyError, match="no box named 'z'"):
        d.arrow("a", "z")
    with pytest.raises(ValueError, match="width must be a finite number > 0.0; got 0.0"):
        d.box("c", "c", (0, 0), width=0)
    with pytest.raises(ValueError, match="no boxes"):
        Diagram().draw()
    assert "op" in KINDS
