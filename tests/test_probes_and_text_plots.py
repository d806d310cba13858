"""dl4nlp.probes (labels for text, per-unit scores) and the heatmap / coloured-text plots."""

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.plots import colour_text, plot_heatmap
from dl4nlp.probes import column_in_line, inside_quotes, unit_auc, unit_correlation


def test_inside_quotes_opens_closes_and_ends_at_a_paragraph():
    text = "a “bc” d “e\n\nf"
    expected = [c == "1" for c in "00111000011100"]  # the blank line ends it
    assert inside_quotes(text).tolist() == expected
    assert inside_quotes('say "hi" now', '"', '"').tolist() == [False] * 4 + [True] * 3 + [False] * 5
    with pytest.raises(ValueError, match="open_quote must be a single character; got '<<'"):
        inside_quotes("x", "<<", ">>")


def test_column_in_line():
    assert column_in_line("ab\ncd\n\ne").tolist() == [0, 1, 2, 0, 1, 2, 0, 0]


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0]), min_size=2, max_size=25),
    seed=st.integers(0, 1000),
)
def test_unit_auc_equals_the_pairwise_definition(values, seed):
    rng = np.random.default_rng(seed)
    labels = rng.random(len(values)) < 0.5
    if labels.all() or not labels.any():
        labels[0] = not labels[0]
    acts = np.array(values)[:, None]
    pairs = list(itertools.product(acts[labels, 0], acts[~labels, 0]))
    expected = np.mean([(p > n) + 0.5 * (p == n) for p, n in pairs])  # many ties on purpose
    assert unit_auc(acts, labels)[0] == pytest.approx(expected)


def test_unit_auc_extremes_and_errors():
    labels = np.array([True, True, False, False])
    acts = np.array([[3.0, -3.0, 1.0], [2.0, -2.0, 0.0], [1.0, -1.0, 1.0], [0.0, 0.0, 0.0]])
    assert unit_auc(acts, labels).tolist() == [1.0, 0.0, 0.5]  # unit 3: one win, one loss, two ties
    with pytest.raises(ValueError, match="both classes; got 4 positive and 0 negative"):
        unit_auc(acts, np.ones(4, dtype=bool))
    with pytest.raises(ValueError, match=r"labels must have shape \(4,\), one per row of activations; got \(3,\)"):
        unit_auc(acts, labels[:3])
    acts[1, 1] = np.nan  # a NaN unit used to score 0.75 (AUC) and 0.0 (correlation)
    with pytest.raises(ValueError, match=r"activations must be finite; got nan at index \(1, 1\)"):
        unit_auc(acts, labels)
    with pytest.raises(ValueError, match=r"activations must be finite; got nan at index \(1, 1\)"):
        unit_correlation(acts, np.arange(4.0))


def test_unit_correlation_matches_numpy():
    rng = np.random.default_rng(0)
    acts, target = rng.normal(size=(50, 3)), rng.normal(size=50)
    acts[:, 1] = 2 * target + 1
    expected = [np.corrcoef(acts[:, j], target)[0, 1] for j in range(3)]
    assert np.allclose(unit_correlation(acts, target), expected)
    assert unit_correlation(np.ones((5, 1)), np.arange(5.0))[0] == 0.0  # a constant unit correlates with nothing


def test_plot_heatmap_labels_and_errors():
    fig = plot_heatmap(np.arange(6).reshape(2, 3), xlabels=["a", " ", "\n"], ylabels=["r0", "r1"], title="t")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", " ", "\\n"]
    assert ax.get_title() == "t" and len(fig.axes) == 2  # the heatmap and its colour bar
    plt.close(fig)
    with pytest.raises(ValueError, match="xlabels must have 3 entries, one per column; got 2"):
        plot_heatmap(np.zeros((2, 3)), xlabels=["a", "b"])
    with pytest.raises(ValueError, match=r"2-D matrix; got shape \(3,\)"):
        plot_heatmap(np.zeros(3))


def test_colour_text_one_span_per_character_escaped():
    html = colour_text("a<\n", [-1.0, 0.0, 1.0], title="T & U")
    assert html.count("<span") == 3 and "&lt;" in html and "<br>" in html and "T &amp; U" in html
    assert 'title="-1.00"' in html and 'title="1.00"' in html
    with pytest.raises(ValueError, match=r"one number per character, shape \(2,\); got \(3,\)"):
        colour_text("ab", [1, 2, 3])
    with pytest.raises(ValueError, match="vmax must be greater than vmin"):
        colour_text("a", [0.0], vmin=1.0, vmax=1.0)


def test_plot_coloured_text_draws_one_box_per_character():
    from dl4nlp.plots import plot_coloured_text

    fig = plot_coloured_text("ab\nc", [0.0, 1.0, -1.0, 0.5], title="cell 3")
    ax = fig.axes[0]
    (glyphs,) = ax.collections  # one outline per character, drawn as one collection
    assert glyphs.get_label() == "ab⏎c" and len(glyphs.get_paths()) == 4
    assert np.allclose(glyphs.get_offsets(), [(0, 0), (1, 0), (2, 0), (0, 1)])  # (column, row) of each box
    image = ax.images[0].get_array()
    assert image.shape == (2, 3, 4) and np.allclose(image[1, 1:], 1.0)  # row 2 holds only "c": the rest is white
    assert np.allclose(image[0, 1], plt.get_cmap("RdBu_r")(1.0))  # "b" has the highest value: darkest red
    assert ax.get_title(loc="left") == "cell 3"
    plt.close(fig)
    with pytest.raises(ValueError, match="one number per character"):
        plot_coloured_text("ab", [1.0])


def test_nearest_centroid_accuracy_leaves_each_vector_out():
    from dl4nlp.probes import nearest_centroid_accuracy

    rng = np.random.default_rng(0)
    labels = np.array([0] * 10 + [1] * 10)
    separated = np.where(labels[:, None] == 1, [1.0, 0.0], [0.0, 1.0]) + 0.1 * rng.normal(size=(20, 2))
    assert nearest_centroid_accuracy(separated, labels) == 1.0
    # two members per class: each is compared with the other member of its class, never with itself
    tiny = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])
    assert nearest_centroid_accuracy(tiny, np.array([0, 0, 1, 1])) == 0.0
    assert nearest_centroid_accuracy(tiny, np.array([0, 1, 0, 1])) == 1.0
    with pytest.raises(ValueError, match="two classes with two members"):
        nearest_centroid_accuracy(tiny, np.array([0, 0, 0, 1]))
    with pytest.raises(ValueError, match="finite"):
        nearest_centroid_accuracy(np.full((4, 2), np.nan), np.array([0, 0, 1, 1]))
    with pytest.raises(ValueError, match=r"labels must have shape \(4,\), one per vector; got \(2,\)"):
        nearest_centroid_accuracy(tiny, np.array([0, 1]))


def test_probes_refuse_nan_wrong_types_and_constant_targets():
    labels = np.array([True, False, True, False])
    with pytest.raises(ValueError, match="activations must be finite"):
        unit_auc(np.array([[np.nan], [0.0], [1.0], [2.0]]), labels)
    with pytest.raises(ValueError, match="activations must be finite"):
        unit_correlation(np.array([[np.inf], [0.0], [1.0], [2.0]]), np.arange(4.0))
    with pytest.raises(ValueError, match="target must vary"):
        unit_correlation(np.ones((4, 2)), np.ones(4))
    with pytest.raises(ValueError, match="labels must be bools or 0/1"):
        unit_auc(np.zeros((4, 1)), np.array([0.5, 1, 0, 1]))
    assert unit_auc(np.arange(4.0)[:, None], np.array([0, 1, 0, 1])).tolist() == [0.75]  # 0/1 integers are fine
    with pytest.raises(TypeError, match="text must be a str"):
        inside_quotes(["a", "b"])
    with pytest.raises(TypeError, match="text must be a str"):
        column_in_line(None)


def test_linear_probe_reads_a_property_spread_over_units_that_no_single_unit_shows():
    from dl4nlp.probes import linear_probe, unit_auc

    rng = np.random.default_rng(0)
    labels = rng.random(4000) < 0.5
    signal = np.where(labels, 1.0, -1.0)
    noise = rng.normal(size=(4000, 20)) * 3.0
    units = noise + signal[:, None] * 0.6  # each unit alone: a weak hint; all 20 together: a clear one
    train, test = slice(0, 2000), slice(2000, None)
    best_single = np.maximum(unit_auc(units[test], labels[test]), 1 - unit_auc(units[test], labels[test])).max()
    scores = linear_probe(units[train], labels[train], units[test])
    probe = unit_auc(scores[:, None], labels[test])[0]
    assert best_single < 0.65 < 0.85 < probe  # the sum of 20 weak hints separates what no single unit does
    # a constant unit does not break the standardisation, and the probe is deterministic
    with_constant = np.hstack([units, np.ones((4000, 1))])
    again = linear_probe(with_constant[train], labels[train], with_constant[test])
    assert np.allclose(again, linear_probe(with_constant[train], labels[train], with_constant[test]))
    assert abs(unit_auc(again[:, None], labels[test])[0] - probe) < 0.01
