"""dl4nlp.data (shipped corpora) and dl4nlp.plots (styles, graph drawing)."""

import matplotlib.pyplot as plt
import pytest

from dl4nlp import data
from dl4nlp.autograd import Value
from dl4nlp.plots import draw_graph, plot_gradient_norms, use_style


def test_every_corpus_is_shipped_intact():
    assert all(result.ok for result in data.check_corpora())


def test_corpora_have_provenance_in_data_readme():
    readme = (data.data_dir() / "README.md").read_text()
    for name, (size, md5) in data.CORPORA.items():
        assert name in readme and md5 in readme and f"{size:,}" in readme


def test_every_shipped_file_is_listed_in_data_readme_with_its_bytes_and_md5():
    """Each row of data/README.md names a file, its size and md5, which must be the file's; every file in data/
    is listed (a .json provenance with its .pt or .csv row, a licence in the row of what it licenses). The JSON
    result tables (scaling_sweep.json, transformer_ablation.json) have no checksum of their own: this is theirs."""
    import re

    readme = (data.data_dir() / "README.md").read_text(encoding="utf-8")
    listed = {}
    for line in readme.splitlines():
        row = re.match(r"\| `([^`]+)`[^|]*\| ([\d,]+) \| `([0-9a-f]{32})` \|", line)
        if row:
            listed[row[1]] = (int(row[2].replace(",", "")), row[3])
    assert len(listed) >= 20, f"expected a row per shipped file; parsed {sorted(listed)}"
    wrong = {
        name: (size, md5, (data.data_dir() / name).stat().st_size, data.md5sum(data.data_dir() / name))
        for name, (size, md5) in listed.items()
        if (size, md5) != ((data.data_dir() / name).stat().st_size, data.md5sum(data.data_dir() / name))
    }
    assert not wrong, f"data/README.md lists another size or md5 (listed, actual): {wrong}"
    unlisted = [
        path.name
        for path in sorted(data.data_dir().iterdir())
        if path.name != "README.md"
        and path.name not in listed
        and not (path.suffix == ".json" and {path.with_suffix(".pt").name, path.with_suffix(".csv").name} & set(listed))
        and f"`{path.name}`" not in readme
    ]
    assert not unlisted, f"shipped but not listed in data/README.md: {unlisted}"


def test_load_text_and_its_errors(monkeypatch, tmp_path):
    assert "Holmes" in data.load_text("sherlock_holmes.txt")[:2000]
    with pytest.raises(ValueError, match="corpus must be one of .* got 'nope.txt'"):
        data.load_text("nope.txt")
    with pytest.raises(FileNotFoundError, match="no data file 'missing.bin'"):
        data.data_path("missing.bin")
    monkeypatch.setenv("DL4NLP_DATA", str(tmp_path))
    assert data.data_dir() == tmp_path
    monkeypatch.setenv("DL4NLP_DATA", str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError, match="DL4NLP_DATA must name an existing folder"):
        data.data_dir()


def test_styles():
    assert use_style("presentation") == "presentation"
    assert plt.rcParams["font.size"] == 16 and plt.rcParams["lines.linewidth"] == 3.0
    assert use_style("notebook") == "notebook" and plt.rcParams["font.size"] == 10
    with pytest.raises(ValueError, match="style must be one of .* got 'poster'"):
        use_style("poster")


def test_style_from_environment(monkeypatch):
    monkeypatch.setenv("DL4NLP_STYLE", "presentation")
    assert use_style() == "presentation"
    use_style("notebook")


def test_draw_graph_shows_every_value_and_gradient():
    x, y, z = Value(-2.0, label="x"), Value(5.0, label="y"), Value(-4.0, label="z")
    f = (x + y) * z
    f.backward()
    fig = draw_graph(f)
    texts = [t.get_text() for t in fig.axes[0].texts if t.get_text()]
    assert "x = -2\ngrad -4" in texts and "z = -4\ngrad 3" in texts
    assert "+" in texts and "*" in texts and len(texts) == 5 + 2  # 5 values, 2 operations
    plt.close(fig)


def test_draw_graph_takes_another_engines_nodes_without_labels():
    class Node:  # notebook 01's Scalar: data, grad, inputs, op; no label
        def __init__(self, data, inputs=(), op=""):
            self.data, self.grad, self.inputs, self.op = data, 0.5, tuple(inputs), op

    a, b = Node(2.0), Node(3.0)
    fig = draw_graph(Node(6.0, (a, b), "*"))
    texts = [t.get_text() for t in fig.axes[0].texts if t.get_text()]
    assert sorted(texts) == sorted(["2\ngrad 0.5", "3\ngrad 0.5", "6\ngrad 0.5", "*"])
    plt.close(fig)


def test_draw_graph_draws_the_sigmoid_neuron_as_cs231n_does():
    # issue 24: constants go inside their gate ("+1", "*-1"), 1/x is one gate, and no box holds a constant
    w = [Value(2.0, label="w0"), Value(-3.0, label="w1"), Value(-3.0, label="w2")]
    x = [Value(-1.0, label="x0"), Value(-2.0, label="x1")]
    out = 1 / (1 + (-(w[0] * x[0] + w[1] * x[1] + w[2])).exp())
    out.backward()
    fig = draw_graph(out)
    texts = [t.get_text() for t in fig.axes[0].texts if t.get_text()]
    gates = [t for t in texts if "grad" not in t]
    assert sorted(gates) == sorted(["*", "*", "+", "+", "*-1", "exp", "+1", "1/x"])
    boxes = [t for t in texts if "grad" in t]
    assert len(boxes) == 5 + 8  # the five inputs and one output per gate: no box for the constants 1 and -1
    assert "0.7311\ngrad 1" in boxes and "x0 = -1\ngrad 0.3932" in boxes
    plt.close(fig)


def test_plot_gradient_norms_is_log_scale_with_one_line_per_setting():
    fig = plot_gradient_norms({"a": [1.0, 0.1, 0.01], "b": [1.0, 1.0, 1.0]})
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and len(ax.lines) == 2
    plt.close(fig)


def test_corpora_found_through_dl4nlp_data_are_checked_against_their_md5(monkeypatch, tmp_path):
    # issue 22: a zero-byte tinyshakespeare.txt loaded as '', a one-line cmudict.dict.gz was accepted
    shipped = data.data_path("tinyshakespeare.txt").read_bytes()
    monkeypatch.setenv("DL4NLP_DATA", str(tmp_path))
    (tmp_path / "tinyshakespeare.txt").write_bytes(shipped)  # a faithful copy elsewhere is legal
    assert data.load_text("tinyshakespeare.txt") == shipped.decode("utf-8")
    (tmp_path / "tinyshakespeare.txt").write_bytes(b"")
    with pytest.raises(ValueError, match="tinyshakespeare.txt must be the shipped file of 1,115,394 bytes"):
        data.load_text("tinyshakespeare.txt")
    (tmp_path / "tinyshakespeare.txt").write_bytes(shipped.replace(b"First", b"Frist", 1))  # same size
    with pytest.raises(ValueError, match="md5 6fb458f1232090904fb40fe944165e91"):
        data.load_text("tinyshakespeare.txt")
