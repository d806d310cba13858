"""dl4nlp.textcnn: the 1-D convolution equals nn.Conv1d, receptive fields, the TextCNN's shapes and counts."""

import pytest
import torch

from dl4nlp.numerics import agree
from dl4nlp.textcnn import (
    TextCNN,
    TextCNNConfig,
    conv1d,
    dilate,
    measured_receptive_field,
    parameter_count,
    receptive_field,
)


@pytest.mark.parametrize("B, C_in, C_out, T, k", [(1, 1, 1, 5, 1), (2, 4, 3, 7, 3), (3, 8, 5, 9, 9)])
def test_conv1d_equals_torch(B, C_in, C_out, T, k):
    torch.manual_seed(0)
    reference = torch.nn.Conv1d(C_in, C_out, k).double()
    x = torch.randn(B, C_in, T, dtype=torch.float64)
    with torch.no_grad():
        assert agree(conv1d(x, reference.weight, reference.bias), reference(x), terms=C_in * k)


def test_dilated_filter_equals_torch_dilation():
    torch.manual_seed(0)
    reference = torch.nn.Conv1d(2, 3, 3, dilation=4).double()
    x = torch.randn(1, 2, 20, dtype=torch.float64)
    with torch.no_grad():
        assert agree(conv1d(x, dilate(reference.weight, 4), reference.bias), reference(x), terms=6)


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("layers", [1, 2, 4])
@pytest.mark.parametrize("growth", [1, 2, 3])
def test_receptive_field_formula_is_what_gradients_see(k, layers, growth):
    assert measured_receptive_field(conv1d, k, layers, growth) == receptive_field(k, layers, growth)
    if growth == 1:
        assert receptive_field(k, layers) == k + (k - 1) * (layers - 1)


def test_textcnn_counts_and_pooling():
    config = TextCNNConfig(vocab_size=30, classes=4, embed_dim=6, widths=(2, 3), filters=5, dropout=0.0)
    model = TextCNN(config)
    assert parameter_count(config) == sum(p.numel() for p in model.parameters())
    ids = torch.tensor([[3, 4, 5, 6, 0, 0], [7, 8, 9, 10, 11, 12]])
    features = model.features(ids)
    assert features.shape == (2, 10)
    acts = model.activations(ids)
    assert torch.equal(features[:, :5], acts[0].amax(dim=2))
    assert model(ids).shape == (2, 4)


def test_textcnn_ignores_where_an_ngram_is():
    """Max over time: moving a sentence along the padding does not change its features."""
    torch.manual_seed(0)
    model = TextCNN(TextCNNConfig(vocab_size=30, classes=4, embed_dim=6, filters=5)).eval()
    sentence = [3, 4, 5, 6, 7, 8]
    left = torch.tensor([sentence + [0] * 4])
    right = torch.tensor([[0] * 4 + sentence])
    # the windows over the sentence's own words give the same activations wherever the sentence sits
    inner_left = [a[0, :, : len(sentence) - k + 1] for a, k in zip(model.activations(left), (3, 4, 5))]
    inner_right = [a[0, :, 4 : 4 + len(sentence) - k + 1] for a, k in zip(model.activations(right), (3, 4, 5))]
    assert all(torch.allclose(a, b) for a, b in zip(inner_left, inner_right))


def test_textcnn_diagram_is_read_from_the_model():
    from dl4nlp.diagrams import textcnn_diagram

    d = textcnn_diagram(TextCNN(TextCNNConfig(vocab_size=50, classes=3, embed_dim=7, widths=(2, 6), filters=9)))
    assert {name for name in d.boxes if name.startswith("conv")} == {"conv2", "conv6"}
    assert d.boxes["linear"].label == "linear 18 → 3" and "T × 7" in d.boxes["embed"].label


def test_connection_patterns_draw_the_measured_dependences():
    import matplotlib.pyplot as plt

    from dl4nlp.diagrams import connection_patterns
    from dl4nlp.experiments.before_recurrence import compare_backbones

    rows = compare_backbones(d=4, T=7, n=3, k=3, heads=2)
    assert [row.reach for row in rows] == [2, 2, 6, 6]
    fig = connection_patterns(rows)
    assert [ax.get_title().splitlines()[1] for ax in fig.axes] == [f"reach in one layer: {r.reach}" for r in rows]
    plt.close(fig)
