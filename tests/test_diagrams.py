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
