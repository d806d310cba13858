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


def test_mlp_diagram_is_read_from_the_model():
    import torch.nn as nn

    from dl4nlp.diagrams import mlp_diagram
    from dl4nlp.scalar_nn import MLP, to_torch

    widths = lambda d: [int(box.label.split()[0]) for box in d.boxes.values()]  # noqa: E731
    acts = lambda d: [box.label.split("\n")[1] for box in d.boxes.values()][1:]  # noqa: E731
    small, deep = mlp_diagram(MLP(2, [8, 1])), mlp_diagram(MLP(3, [5, 4, 2], nonlinearity="relu"))
    assert widths(small) == [2, 8, 1] and acts(small) == ["tanh", "linear"]
    assert widths(deep) == [3, 5, 4, 2] and acts(deep) == ["relu", "relu", "linear"]
    assert list(deep.boxes) == ["input", "hidden1", "hidden2", "output"]
    assert [a.label for a in deep.arrows] == ["W₁ 5×3, b₁", "W₂ 4×5, b₂", "W₃ 2×4, b₃"]
    twin = mlp_diagram(to_torch(MLP(3, [5, 4, 2], nonlinearity="relu")))  # the torch twin draws the same picture
    assert [b.label for b in twin.boxes.values()] == [b.label for b in deep.boxes.values()]
    torch_mlp = mlp_diagram(nn.Sequential(nn.Linear(4, 6), nn.GELU(), nn.Linear(6, 1), nn.Sigmoid()))
    assert widths(torch_mlp) == [4, 6, 1] and acts(torch_mlp) == ["gelu", "sigmoid"]
    plt.close(deep.draw())


def test_mlp_diagram_names_bad_input():
    import torch.nn as nn

    from dl4nlp.diagrams import mlp_diagram

    with pytest.raises(TypeError, match="model must be a dl4nlp.scalar_nn.MLP or a torch.nn.Sequential"):
        mlp_diagram(nn.Linear(2, 3))
    with pytest.raises(ValueError, match=r"model\[2\] must read 8 features.*got Linear\(4, 1\)"):
        mlp_diagram(nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(4, 1)))
    with pytest.raises(ValueError, match=r"model\[0\] must follow a Linear layer.*Tanh first"):
        mlp_diagram(nn.Sequential(nn.Tanh(), nn.Linear(2, 1)))
    with pytest.raises(ValueError, match=r"model\[2\] must follow a Linear layer.*ReLU after tanh"):
        mlp_diagram(nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.ReLU()))
    with pytest.raises(TypeError, match=r"model\[1\] must be an nn.Linear.*got Dropout"):
        mlp_diagram(nn.Sequential(nn.Linear(2, 3), nn.Dropout(0.1)))
    with pytest.raises(ValueError, match="empty nn.Sequential"):
        mlp_diagram(nn.Sequential())


def test_transformer_diagrams_follow_the_config():
    from dl4nlp.decoder import Seq2SeqTransformerConfig
    from dl4nlp.diagrams import decoder_only_diagram, encoder_decoder_diagram, transformer_block_diagram
    from dl4nlp.transformer import TransformerConfig

    post = transformer_block_diagram(TransformerConfig(vocab_size=5, d_model=8, n_heads=2, norm_first=False))
    pre = transformer_block_diagram(TransformerConfig(vocab_size=5, d_model=8, n_heads=2, norm_first=True))
    order = lambda d: [n for n in d.boxes if n not in ("in", "out")]  # noqa: E731  (bottom to top)
    assert order(post) == ["attn", "attn_add", "attn_ln", "ffn", "ffn_add", "ffn_ln"]  # Add & Norm
    assert order(pre) == ["attn_ln", "attn", "attn_add", "ffn_ln", "ffn", "ffn_add"]
    bare = transformer_block_diagram(
        TransformerConfig(
            vocab_size=5, d_model=8, n_heads=2, use_feed_forward=False, use_residual=False, use_layer_norm=False
        )
    )
    assert order(bare) == ["attn"] and "2 heads of 4" in bare.boxes["attn"].label
    gpt = decoder_only_diagram(TransformerConfig(vocab_size=65, d_model=16, n_heads=4, n_layers=3))
    assert "× 3 blocks" in [g[0] for g in gpt.groups] and "tied" in gpt.boxes["head"].label
    both = encoder_decoder_diagram(Seq2SeqTransformerConfig(40, 15, d_model=16, encoder_layers=2, decoder_layers=3))
    assert any(a.source == "memory" and a.target == "dcross" for a in both.arrows)
    assert {"encoder × 2", "decoder × 3"} <= {g[0] for g in both.groups}
    for diagram in (post, pre, bare, gpt, both):
        plt.close(diagram.draw())


def test_multi_head_attention_diagram_is_read_from_the_module():
    from dl4nlp.attention import MultiHeadAttention
    from dl4nlp.diagrams import multi_head_attention_diagram
    from dl4nlp.positional import RotaryAttention

    d = multi_head_attention_diagram(MultiHeadAttention(512, 8))
    heads = [b for b in d.boxes.values() if b.kind == "attention"]
    assert len(heads) == 4 and heads[-1].label == "… 5 more heads"
    assert (
        "√64" in heads[0].label
        and "(T × 512)" in d.boxes["q"].label
        and "W_Q: 512 × 512" in d.boxes["q"].label
        and "+ b" in d.boxes["q"].label
    )
    assert any("all 512 input dimensions" in g[0] for g in d.groups)  # a head reads all 512, projected (§3.2.2)
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


def test_tagger_diagram_shows_where_positions_enter():
    from dl4nlp.diagrams import tagger_diagram
    from dl4nlp.taggers import Tagger, TaggerConfig

    def labels(**kwargs):
        return [
            b.label for b in tagger_diagram(Tagger(TaggerConfig(vocab_size=16, max_len=48, **kwargs))).boxes.values()
        ]

    none, learned, sinusoidal, rope = (labels(positional=kind) for kind in ("none", "learned", "sinusoidal", "rope"))
    assert (
        "nothing" in none[2] and "learned" in learned[2] and "(48 × 32" in learned[2] and "sinusoids" in sinusoidal[2]
    )
    assert "RoPE" in rope[3] and "RoPE" not in sinusoidal[3] and "nothing" in rope[2]
    assert [a == b for a, b in zip(none, sinusoidal)] == [True, True, False, True, True, True, True]
    deep = tagger_diagram(Tagger(TaggerConfig(vocab_size=5, n_labels=7, n_layers=5, n_heads=4, causal=True)))
    assert [g[0] for g in deep.groups] == ["layer 1 of 5", "layers 2–5, alike"]
    assert "4 heads of 8, causal mask" in deep.boxes["attn0"].label and "→ 7" in deep.boxes["head"].label
    assert len(tagger_diagram(Tagger(TaggerConfig(vocab_size=5, n_layers=3)), layers=3).groups) == 3
    plt.close(deep.draw())


def test_tagger_diagram_names_bad_input():
    from dl4nlp.diagrams import tagger_diagram
    from dl4nlp.taggers import Tagger, TaggerConfig

    with pytest.raises(TypeError, match="tagger must be a dl4nlp.taggers.Tagger; got str"):
        tagger_diagram("tagger")
    with pytest.raises(ValueError, match="layers must be a positive integer; got 0"):
        tagger_diagram(Tagger(TaggerConfig(vocab_size=5)), layers=0)


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


def _boxes_crossed(d, margin=0.05):
    """(source, target, box) for each arrow whose drawn path (matplotlib's arc3 Bézier) enters a third box."""
    import numpy as np

    from dl4nlp.diagrams import _edge_point

    crossed = set()
    for a in d.arrows:
        s, t = d.boxes[a.source], d.boxes[a.target]
        p0, p2 = np.array(_edge_point(s, t.xy)), np.array(_edge_point(t, s.xy))
        dx, dy = p2 - p0
        control = (p0 + p2) / 2 + a.bend * np.array([dy, -dx])
        for u in np.linspace(0.02, 0.98, 200):
            x, y = (1 - u) ** 2 * p0 + 2 * u * (1 - u) * control + u**2 * p2
            for b in d.boxes.values():
                if b.name not in (a.source, a.target) and abs(x - b.xy[0]) < b.width / 2 + margin:
                    if abs(y - b.xy[1]) < b.height / 2 + margin:
                        crossed.add((a.source, a.target, b.name))
    return sorted(crossed)


def test_no_arrow_of_the_recurrent_cell_diagrams_passes_through_another_box():
    from dl4nlp.diagrams import elmo_diagram, gru_cell_diagram, lstm_cell_diagram
    from dl4nlp.lstm import CoupledLSTMCell, GRUCell, LSTMCell, PeepholeLSTMCell
    from dl4nlp.rnn import RecurrentLM

    for cell in (LSTMCell(5, 8), PeepholeLSTMCell(5, 8), CoupledLSTMCell(5, 8)):
        assert _boxes_crossed(lstm_cell_diagram(cell)) == [], type(cell).__name__
    for reset_after in (True, False):
        assert _boxes_crossed(gru_cell_diagram(GRUCell(5, 8, reset_after=reset_after))) == [], reset_after
    model = RecurrentLM(30, hidden_size=8)
    for text, word in [("his left hand", "left"), ("a b", "b"), ("left", "left"), ("x leftovers y", "leftovers")]:
        assert _boxes_crossed(elmo_diagram(model, model, text, word)) == [], (text, word)
    # the check finds a crossing when there is one: an arrow straight through a box between its ends
    from dl4nlp.diagrams import Diagram

    through = Diagram().box("a", "a", (0, 0)).box("b", "b", (2, 0)).box("c", "c", (4, 0)).arrow("a", "c")
    assert _boxes_crossed(through) == [("a", "c", "b")]


def test_the_gru_diagram_puts_the_reset_where_its_cell_does():
    from dl4nlp.diagrams import gru_cell_diagram
    from dl4nlp.lstm import GRUCell

    after = {(a.source, a.target) for a in gru_cell_diagram(GRUCell(5, 8, reset_after=True)).arrows}
    before = {(a.source, a.target) for a in gru_cell_diagram(GRUCell(5, 8, reset_after=False)).arrows}
    assert {("h_prev", "matmul"), ("matmul", "reset_mul"), ("reset_mul", "candidate")} <= after
    assert {("h_prev", "reset_mul"), ("reset_mul", "matmul"), ("matmul", "candidate")} <= before
