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


def test_unrolled_rnn_reads_the_model_sizes():
    from dl4nlp.diagrams import unrolled_rnn
    from dl4nlp.rnn import RecurrentClassifier, RecurrentLM, UnrolledRNN

    lm = unrolled_rnn(RecurrentLM(vocab_size=65, hidden_size=48, kind="rnn", embedding_dim=24), steps=4)
    labels = " ".join(box.label for box in lm.boxes.values())
    assert "ℝ^48" in labels and "ℝ^24" in labels and "65" in labels and "h(4)" in labels and "h(5)" not in labels
    assert sum(a.label == "W_h" for a in lm.arrows) == 4  # one shared matrix, one arrow per step
    classifier = unrolled_rnn(RecurrentClassifier(vocab_size=12, num_classes=4, nonlinearity="relu"), steps=2)
    assert "relu" in " ".join(b.label for b in classifier.boxes.values())
    assert sum(b.kind == "output" for b in classifier.boxes.values()) == 1  # a read-out at the last step only
    assert len(unrolled_rnn(UnrolledRNN(3, 5), steps=2).boxes) == 5
    import matplotlib.pyplot as plt

    plt.close(lm.draw())


def test_unrolled_rnn_names_bad_input():
    import torch.nn as nn

    from dl4nlp.diagrams import unrolled_rnn

    with pytest.raises(ValueError, match="steps must be an integer from 1 to 8"):
        unrolled_rnn(nn.RNN(2, 3), steps=0)
    with pytest.raises(ValueError, match="model must be a vanilla RNN"):
        unrolled_rnn(nn.LSTM(2, 3))
    with pytest.raises(TypeError, match="model must be an nn.RNN"):
        unrolled_rnn("rnn")


def test_elmo_diagram_joins_the_forward_state_at_the_word_end_and_the_backward_state_at_its_start():
    import torch.nn as nn

    from dl4nlp.diagrams import elmo_diagram
    from dl4nlp.rnn import RecurrentLM

    d = elmo_diagram(RecurrentLM(30, hidden_size=12), RecurrentLM(30, hidden_size=20), "my left arm", "left")
    assert sum(b.kind == "input" for b in d.boxes.values()) == len("my left arm")
    joined = sorted(a.source for a in d.arrows if a.target == "elmo")
    assert joined == ["b3", "f6"]  # 'l' is character 3, 't' character 6
    assert {n for n, b in d.boxes.items() if b.kind == "output"} == {"b3", "f6", "elmo"}
    assert "12 + 20 values" in d.boxes["elmo"].label
    assert all(int(a.source[1:]) - int(a.target[1:]) == 1 for a in d.arrows if a.source[0] == a.target[0] == "b")
    plt.close(d.draw())
    with pytest.raises(ValueError, match="word must be a non-empty str inside text"):
        elmo_diagram(RecurrentLM(30), RecurrentLM(30), "my right arm", "left")
    with pytest.raises(ValueError, match="at most 16 characters"):
        elmo_diagram(RecurrentLM(30), RecurrentLM(30), "x" * 17 + " left", "left")
    with pytest.raises(TypeError, match="must be RecurrentLM models"):
        elmo_diagram(nn.LSTM(2, 3), RecurrentLM(30))
