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
    with pytest.raises(ValueError, match="must be positive"):
        d.box("c", "c", (0, 0), width=0)
    with pytest.raises(ValueError, match="no boxes"):
        Diagram().draw()
    assert "op" in KINDS


def test_multi_head_attention_diagram_is_read_from_the_module():
    from dl4nlp.attention import MultiHeadAttention
    from dl4nlp.diagrams import multi_head_attention_diagram
    from dl4nlp.positional import RotaryAttention

    d = multi_head_attention_diagram(MultiHeadAttention(512, 8))
    heads = [b for b in d.boxes.values() if b.kind == "attention"]
    assert len(heads) == 4 and heads[-1].label == "… 5 more heads"
    assert "√64" in heads[0].label and "(512 × 512)" in d.boxes["q"].label and "+ b" in d.boxes["q"].label
    small = multi_head_attention_diagram(MultiHeadAttention(12, 3, bias=False))
    assert [b.label.splitlines()[0] for b in small.boxes.values() if b.kind == "attention"] == [
        "head 1",
        "head 2",
        "head 3",
    ]
    assert "+ b" not in small.boxes["q"].label
    assert "rotate" in multi_head_attention_diagram(RotaryAttention(8, 2)).boxes["h0"].label
    plt.close(small.draw())
    with pytest.raises(TypeError, match="MultiHeadAttention"):
        multi_head_attention_diagram("attention")
    with pytest.raises(ValueError, match="show_heads"):
        multi_head_attention_diagram(MultiHeadAttention(8, 2), show_heads=0)
