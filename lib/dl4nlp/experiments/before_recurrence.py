"""Chapter 02's experiment: a neural language model on Shakespeare's characters, scored like the n-gram baselines.

``train_nnlm`` trains ``dl4nlp.nnlm.NNLM`` (concatenated or averaged context
vectors) on the training part of ``shakespeare_split`` and scores it on every
held-out character after the first, each predicted from the ``context``
characters before it: the same 55,769 predictions, over the same 65
characters, on which chapter 02 scores its unigram and bigram counts. Where
the context of an early held-out character reaches back into the training
text, those characters are read as context only; no training character is a
target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import torch
import torch.nn.functional as F

from dl4nlp._checks import check_callable, check_choice, check_int, check_number
from dl4nlp.experiments.rnn import shakespeare_split
from dl4nlp.ngram import SmoothingCurves, count_probabilities
from dl4nlp.nnlm import COMBINES, NNLM, NNLMConfig, context_windows, flops_per_token, parameter_count


@dataclass(frozen=True)
class NNLMRun:
    combine: str
    context: int
    losses: tuple[float, ...]  # training loss per step (nats per character)
    heldout_loss: float  # mean over the held-out predictions (nats per character)
    heldout_predictions: int
    bigram_loss: float  # add-one bigram counts of the training text, the same predictions
    unigram_loss: float  # add-one unigram counts, the same predictions
    parameters: int
    flops_per_token: int
    model: NNLM = field(compare=False, repr=False)

    @property
    def heldout_perplexity(self) -> float:
        return math.exp(self.heldout_loss)


def heldout_predictions(context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Contexts (N, n) and targets (N,) of every held-out character after the first (N = 55,769)."""
    check_int("context", context)
    _, train_ids, heldout_ids = shakespeare_split()
    ids = torch.cat([train_ids, heldout_ids])
    if context > len(train_ids):
        raise ValueError(f"context must be at most {len(train_ids)}; got {context}")
    return context_windows(ids, context, len(train_ids) + 1, len(ids))


def train_nnlm(
    seed: int = 0,
    combine: str = "concat",
    context: int = 5,
    steps: int = 600,
    batch_size: int = 256,
    lr: float = 1e-2,
    embed_dim: int = 16,
    hidden: int = 128,
    forward: Optional[Callable[..., torch.Tensor]] = None,
) -> NNLMRun:
    """Train an NNLM with Adam on random training positions; score it on the held-out predictions.

    ``forward(contexts, C, W_h, b_h, W_o, b_o)`` replaces the library's ``nnlm_logits``
    (a student's own version); it must compute the same logits.
    """
    check_int("seed", seed, low=0)
    check_choice("combine", combine, COMBINES)
    for name, value in (("context", context), ("steps", steps), ("batch_size", batch_size)):
        check_int(name, value)
    check_number("lr", lr, low=0, low_open=True)
    if forward is not None:
        check_callable("forward", forward)
    vocab, train_ids, _ = shakespeare_split()
    V = len(vocab)
    config = NNLMConfig(V, context, embed_dim, hidden, combine)
    torch.manual_seed(seed)
    model = NNLM(config)
    run = model if forward is None else (lambda contexts: forward(contexts, *model.weights()))
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    offsets = torch.arange(-context, 0)  # (n,)
    losses = []
    for _ in range(steps):
        positions = torch.randint(context, len(train_ids), (batch_size,), generator=generator)  # (B,)
        contexts, targets = train_ids[positions[:, None] + offsets], train_ids[positions]  # (B, n), (B,)
        loss = F.cross_entropy(run(contexts), targets)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    contexts, targets = heldout_predictions(context)
    with torch.no_grad():
        heldout = F.cross_entropy(model(contexts), targets).item()
    previous = contexts[:, -1]
    bigram = count_probabilities(train_ids, V, order=2)
    unigram = count_probabilities(train_ids, V, order=1)
    return NNLMRun(
        combine,
        context,
        tuple(losses),
        heldout,
        len(targets),
        -bigram[previous, targets].log().mean().item(),
        -unigram[targets].log().mean().item(),
        parameter_count(config),
        flops_per_token(config),
        model,
    )


def plot_nnlm_training(run: NNLMRun, baselines: dict[str, float], window: int = 20):
    """The training loss (a running mean over ``window`` steps), the held-out loss, and baselines' held-out losses."""
    import matplotlib.pyplot as plt
    import numpy as np

    if not isinstance(run, NNLMRun):
        raise TypeError(f"run must be an NNLMRun from train_nnlm; got {type(run).__name__}")
    if not isinstance(baselines, dict) or not all(
        isinstance(k, str) and isinstance(v, float) and math.isfinite(v) for k, v in baselines.items()
    ):
        raise TypeError(f"baselines must map names to finite held-out losses (floats); got {baselines!r:.80}")
    window = check_int("window", window, high=len(run.losses))
    losses = np.asarray(run.losses)
    smooth = np.convolve(losses, np.ones(window) / window, mode="valid")  # (steps - window + 1,)
    fig, ax = plt.subplots(figsize=(7.5, 4))
    steps = np.arange(window, len(losses) + 1)
    ax.plot(steps, smooth, color="C0", label=f"neural LM, training loss (mean of {window} steps)")
    ax.axhline(run.heldout_loss, color="C0", linestyle="--", label=f"neural LM, held-out ({run.heldout_loss:.2f})")
    for i, (name, loss) in enumerate(baselines.items()):
        ax.axhline(loss, color=f"C{i + 1}", linestyle=":", label=f"{name}, held-out ({loss:.2f})")
    ax.set(
        xlabel="training step",
        ylabel="loss (nats per character)",
        ylim=(0, None),
        title=f"A neural language model ({run.combine}, {run.context} characters of context) against counts",
    )
    ax.legend(loc="lower left")
    return fig


def perplexity_drawer(curves: SmoothingCurves):
    """A ``draw(characters, k)`` for chapter 02's smoothing widget: the perplexities of ``curves(k)`` by amount of text.

    The figure is laid out once (axes, lines, legend); every call only sets the lines' values for
    the smoothing constant ``k``, moves the marker to ``characters`` (one of ``curves.sizes``) and
    rewrites the title, so a redraw costs one render.

    >>> import matplotlib.pyplot as plt
    >>> curves = SmoothingCurves(torch.tensor([0, 1, 0, 1, 1]), torch.tensor([0, 1, 1]), vocab_size=2, sizes=[3, 5])
    >>> figure = perplexity_drawer(curves)(characters=5, k=0.5)
    >>> len(figure.axes[0].lines), figure.axes[0].get_title().startswith("k = 0.5, 5 characters")
    (4, True)
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt

    if not isinstance(curves, SmoothingCurves):
        raise TypeError(f"curves must be a dl4nlp.ngram.SmoothingCurves; got {type(curves).__name__}")
    sizes = list(curves.sizes)
    figure, ax = plt.subplots(figsize=(7.5, 4))
    lines = {
        name: ax.plot(sizes, [1.0] * len(sizes), style, label=name)[0]
        for name, style in zip(SmoothingCurves.NAMES, ["-", "-", ":"])
    }
    marker = ax.axvline(sizes[0], color="grey", linewidth=1)
    ax.set(xscale="log", xlabel="training characters counted", ylabel="perplexity")
    ax.legend()
    plt.close(figure)  # shown by the widget, not by the cell that makes it

    def draw(characters: int, k: float):
        """Held-out (and training) perplexity of add-k unigram and bigram models counted on the first characters."""
        if characters not in sizes:
            raise ValueError(f"characters must be one of {sizes}; got {characters!r}")
        check_number("k", k, 0, low_open=True)
        values = curves(k)
        for name, line in lines.items():
            line.set_ydata(values[name])
        marker.set_xdata([characters, characters])
        ax.set_ylim(0, 1.05 * max(max(v) for v in values.values()))
        at = sizes.index(characters)
        ax.set_title(
            f"k = {k:g}, {characters:,} characters: bigram held-out perplexity {values['bigram, held-out'][at]:.1f}"
        )
        return figure

    return draw


# --- Section 5: word vectors by skip-gram with negative sampling (dl4nlp.skipgram) --------------------------------
def train_live_skipgram(seed: int = 0, epochs: float = 0.25, loss: Optional[Callable] = None):
    """A short skip-gram run on ``sherlock_holmes.txt`` with the shipped vectors' sizes (``dl4nlp.recipes.skipgram``).

    ``epochs`` is the fraction of one pass over the (subsampled) text, about 325 steps of 1,024 pairs per pass;
    ``loss(centre, context, negatives)`` replaces ``dl4nlp.skipgram.sgns_loss`` (a student's own version).
    Returns the ``dl4nlp.skipgram.SkipGramRun``.
    """
    from dl4nlp.recipes.skipgram import Recipe, corpus_ids
    from dl4nlp.skipgram import SkipGramConfig, train_skipgram

    check_int("seed", seed, low=0)
    check_number("epochs", epochs, 0, 1, low_open=True)
    if loss is not None:
        check_callable("loss", loss)
    recipe = Recipe()
    vocab, ids = corpus_ids(recipe.min_count)
    config = SkipGramConfig(len(vocab), recipe.dim, recipe.window, recipe.negatives, recipe.threshold, recipe.power)
    return train_skipgram(ids, vocab, config, seed=seed, epochs=epochs, batch_size=recipe.batch_size, lr=recipe.lr,
                          loss=loss)  # fmt: skip


def skipgram_diagram(
    config, centre: str = "holmes", context: str = "sherlock", negatives: list[str] | tuple[str, ...] = ()
):
    """Skip-gram with negative sampling as boxes and arrows (a ``dl4nlp.diagrams.Diagram``), sizes read from ``config``.

    >>> from dl4nlp.skipgram import SkipGramConfig
    >>> skipgram_diagram(SkipGramConfig(vocab_size=100, dim=8, negatives=2), negatives=["the", "of"])
    Diagram(11 boxes, 12 arrows)
    """
    from dl4nlp.diagrams import Diagram
    from dl4nlp.skipgram import SkipGramConfig

    if not isinstance(config, SkipGramConfig):
        raise TypeError(f"config must be a dl4nlp.skipgram.SkipGramConfig; got {type(config).__name__}")
    negatives = list(negatives)
    if len(negatives) != config.negatives or not all(isinstance(w, str) and w for w in negatives):
        raise ValueError(f"negatives must be {config.negatives} words (config.negatives); got {negatives!r:.80}")
    V, d, k = config.vocab_size, config.dim, config.negatives
    shown = ", ".join(f"'{w}'" for w in negatives[:2]) + (", ..." if k > 2 else "")
    return (
        Diagram()
        .box("centre", f"centre word\n'{centre}'", (0, 2.2), kind="input", width=1.9, height=0.8)
        .box("context", f"a word near it\n'{context}'", (0, 0.6), kind="input", width=1.9, height=0.8)
        .box(
            "noise",
            f"{k} words drawn from\ncount^0.75, such as\n{shown}",
            (0, -1.1),
            kind="input",
            width=3.0,
            height=1.0,
        )
        .box("V", f"input table V\n{V:,} × {d}", (3.3, 2.2), kind="param", width=1.9, height=0.8)
        .box("U", f"output table U\n{V:,} × {d}", (3.3, -0.2), kind="param", width=1.9, height=0.8)
        .box("v", f"v_c ({d})", (6.0, 2.2), kind="state", width=1.4)
        .box("u", f"u_o ({d})", (6.0, 0.6), kind="state", width=1.4)
        .box("uk", f"u_1 ... u_{k} ({k} × {d})", (6.0, -1.0), kind="state", width=2.0)
        .box("pos", "σ(u_o · v_c)\nshould be near 1", (9.0, 1.4), kind="op", width=2.1, height=0.8)
        .box("neg", "σ(−u_k · v_c)\nshould be near 1", (9.0, -0.6), kind="op", width=2.1, height=0.8)
        .arrow("centre", "V", label="row")
        .arrow("context", "U")
        .arrow("noise", "U")
        .arrow("V", "v")
        .arrow("U", "u")
        .arrow("U", "uk")
        .arrow("v", "pos")
        .arrow("v", "neg")
        .arrow("u", "pos")
        .arrow("uk", "neg")
        .box("loss", "loss\n−log σ(u_o·v_c)\n− Σ log σ(−u_k·v_c)", (12.2, 0.4), kind="output", width=2.3, height=1.0)
        .arrow("pos", "loss")
        .arrow("neg", "loss")
    )


# --- Section 6: convolutions over text, on the genres of English-EWT ------------------------------------------
# The train split is EWT's dev file, the test split its test file, minus every test sentence whose words occur,
# word for word, in the train split ("Thanks .", signatures): 2,001 training and 2,004 test sentences.

from collections import Counter  # noqa: E402
from functools import lru_cache  # noqa: E402

from dl4nlp._checks import check_ids, check_sequence, check_tensor, evaluating  # noqa: E402
from dl4nlp.data import data_path  # noqa: E402
from dl4nlp.ewt import GENRES, Sentence, read_conllu  # noqa: E402
from dl4nlp.textcnn import TextCNN, TextCNNConfig  # noqa: E402


@dataclass(frozen=True)
class GenreData:
    """EWT sentences as padded word ids (0 = padding, 1 = unknown), with their genres' indices into ``GENRES``."""

    words: tuple[str, ...]  # the vocabulary: "<pad>", "<unk>", then every lower-cased training word seen twice
    train: tuple[Sentence, ...]
    test: tuple[Sentence, ...]
    train_ids: torch.Tensor  # (N_train, T)
    train_labels: torch.Tensor  # (N_train,)
    test_ids: torch.Tensor  # (N_test, T')
    test_labels: torch.Tensor  # (N_test,)
    dropped: tuple[str, ...]  # the test sentences left out because their words occur in a training sentence

    def encode(self, sentences) -> torch.Tensor:
        """Word ids (N, T) of ``sentences``, lower-cased, padded with 0 to the longest (at least 5 positions)."""
        sentences = check_sequence("sentences", sentences, what="a list of dl4nlp.ewt.Sentence")
        if not all(isinstance(s, Sentence) for s in sentences):
            kinds = sorted({type(s).__name__ for s in sentences if not isinstance(s, Sentence)})
            raise TypeError(f"sentences must be dl4nlp.ewt.Sentence records (read_conllu's); got {', '.join(kinds)}")
        index = {w: i for i, w in enumerate(self.words)}
        length = max(5, *(len(s.words) for s in sentences))
        ids = torch.zeros(len(sentences), length, dtype=torch.long)
        for row, sentence in enumerate(sentences):
            ids[row, : len(sentence.words)] = torch.tensor([index.get(w.lower(), 1) for w in sentence.words])
        return ids


@lru_cache(maxsize=1)
def genre_data() -> GenreData:
    """The genre task of chapter 02: train on EWT's dev split, test on its test split, overlap removed."""
    train = tuple(read_conllu(data_path("en_ewt-ud-dev.conllu")))
    seen = {s.text for s in train}
    every_test = read_conllu(data_path("en_ewt-ud-test.conllu"))
    test = tuple(s for s in every_test if s.text not in seen)
    dropped = tuple(s.text for s in every_test if s.text in seen)
    counts = Counter(w.lower() for s in train for w in s.words)
    words = ("<pad>", "<unk>", *sorted(w for w, c in counts.items() if c >= 2))
    data = GenreData(words, train, test, torch.empty(0), torch.empty(0), torch.empty(0), torch.empty(0), dropped)
    labels = lambda sentences: torch.tensor([GENRES.index(s.genre) for s in sentences])  # noqa: E731
    return GenreData(words, train, test, data.encode(train), labels(train), data.encode(test), labels(test), dropped)


@dataclass(frozen=True)
class GenreRun:
    model_name: str
    seed: int
    test_accuracy: float
    train_accuracy: float
    losses: tuple[float, ...]  # training loss per step
    parameters: int
    model: torch.nn.Module = field(compare=False, repr=False)


def majority_accuracy() -> float:
    """Test accuracy of always answering the genre most frequent in training."""
    data = genre_data()
    majority = torch.bincount(data.train_labels).argmax()
    return (data.test_labels == majority).float().mean().item()


class BagOfWords(torch.nn.Module):
    """Logistic regression on word counts: one weight per (word, genre), summed over the sentence, plus a bias."""

    def __init__(self, vocab_size: int, classes: int):
        super().__init__()
        check_int("vocab_size", vocab_size)
        check_int("classes", classes)
        self.weights = torch.nn.EmbeddingBag(vocab_size, classes, mode="sum", padding_idx=0)
        torch.nn.init.zeros_(self.weights.weight)
        self.bias = torch.nn.Parameter(torch.zeros(classes))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Class logits (B, classes) for ``ids`` (B, T) padded with 0."""
        ids = check_ids("ids", ids, self.weights.num_embeddings, ndim=2, expected="(B, T)")
        return self.weights(ids) + self.bias


def _accuracy(model: torch.nn.Module, ids: torch.Tensor, labels: torch.Tensor) -> float:
    model.eval()
    with torch.no_grad():
        return (model(ids).argmax(dim=1) == labels).float().mean().item()


def _train_genres(model, name, seed, epochs, batch_size, lr, weight_decay) -> GenreRun:
    data = genre_data()
    optimiser = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    generator = torch.Generator().manual_seed(seed)
    lengths = (data.train_ids > 0).sum(dim=1)
    losses = []
    for _ in range(epochs):
        model.train()
        for batch in torch.randperm(len(data.train_ids), generator=generator).split(batch_size):
            ids = data.train_ids[batch, : max(5, int(lengths[batch].max()))]  # trim the padding the batch needs not
            loss = F.cross_entropy(model(ids), data.train_labels[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses.append(loss.item())
    return GenreRun(
        name,
        seed,
        _accuracy(model, data.test_ids, data.test_labels),
        _accuracy(model, data.train_ids, data.train_labels),
        tuple(losses),
        sum(p.numel() for p in model.parameters()),
        model,
    )


def train_textcnn(
    seed: int = 0,
    epochs: int = 6,
    batch_size: int = 50,
    lr: float = 1e-2,
    embed_dim: int = 32,
    filters: int = 32,
    dropout: float = 0.5,
) -> GenreRun:
    """Kim's TextCNN (widths 3, 4, 5; ReLU; max over time; dropout; linear) on the genres; Adam, mini-batches."""
    check_int("seed", seed, low=0)
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        check_int(name, value)
    check_number("lr", lr, low=0, low_open=True)
    data = genre_data()
    torch.manual_seed(seed)
    model = TextCNN(TextCNNConfig(len(data.words), len(GENRES), embed_dim, (3, 4, 5), filters, dropout))
    return _train_genres(model, "TextCNN", seed, epochs, batch_size, lr, 0.0)


def train_bag_of_words(seed: int = 0, epochs: int = 4, batch_size: int = 50, lr: float = 3e-2) -> GenreRun:
    """The baseline: logistic regression on the sentence's word counts, trained like the TextCNN."""
    check_int("seed", seed, low=0)
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        check_int(name, value)
    check_number("lr", lr, low=0, low_open=True)
    data = genre_data()
    torch.manual_seed(seed)
    return _train_genres(BagOfWords(len(data.words), len(GENRES)), "bag of words", seed, epochs, batch_size, lr, 0.0)


def top_ngrams(model: TextCNN, sentences, width_index: int, filter_index: int, top: int = 5) -> list[tuple[str, float]]:
    """The ``top`` distinct n-grams of ``sentences`` on which one filter of ``model`` fires most, with its activation.

    ``width_index`` picks the filter width (0 for the first of ``model.config.widths``), ``filter_index``
    the filter; an n-gram is the filter's window of words (padding shown as nothing).
    """
    if not isinstance(model, TextCNN):
        raise TypeError(f"model must be a dl4nlp.textcnn.TextCNN; got {type(model).__name__}")
    width_index = check_int("width_index", width_index, low=0, high=len(model.config.widths) - 1)
    filter_index = check_int("filter_index", filter_index, low=0, high=model.config.filters - 1)
    top = check_int("top", top)
    data = genre_data()
    ids = data.test_ids if sentences is data.test else None  # the test split is encoded once, by genre_data
    sentences = list(sentences)
    ids = data.encode(sentences) if ids is None else ids
    with torch.no_grad(), evaluating(model):
        activation = model.activations(ids.to(next(model.parameters()).device))[width_index][:, filter_index].cpu()
    width = model.config.widths[width_index]
    found: dict[str, float] = {}
    for flat in activation.flatten().argsort(descending=True).tolist():
        row, start = divmod(flat, activation.shape[1])
        words = sentences[row].words[start : start + width]
        ngram = " ".join(words).lower()
        if words and ngram not in found:
            found[ngram] = activation[row, start].item()
        if len(found) == top:
            break
    return list(found.items())


# --- Section 7: which backbone? One layer of each, measured -----------------------------------------------------


@dataclass(frozen=True)
class BackboneRow:
    name: str
    reach: int  # the farthest apart two positions are whose input changes the other's output, in one layer
    parameters: int  # counted on the module with numel
    flops_per_token: int  # by formula: a multiply-add is 2, biases and non-linearities left out
    counted_flops_per_token: float  # torch.utils.flop_counter on one sequence, divided by the outputs
    sequential_steps: int  # steps that must run one after the other for the whole sequence
    dependence: torch.Tensor = field(compare=False, repr=False)  # (T_out, T): does output t read input s?


class WindowMLP(torch.nn.Module):
    """The NNLM's hidden layer applied to every window of ``n`` consecutive vectors: (B, T, d) -> (B, T - n + 1, d)."""

    def __init__(self, d: int, n: int):
        super().__init__()
        self.n = check_int("n", n)
        self.layer = NNLM(NNLMConfig(vocab_size=2, context=n, embed_dim=d, hidden=d)).hidden  # Linear(n·d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = self.layer.in_features // self.n
        x = check_tensor("x", x, shape=(None, None, d), dtype="float", expected=f"(B, T, {d})")
        if x.shape[1] < self.n:
            raise ValueError(f"x must hold at least a window of {self.n} positions; got shape {tuple(x.shape)}")
        windows = x.unfold(1, self.n, 1).transpose(2, 3).flatten(2)  # (B, T-n+1, n·d): each window, concatenated
        return torch.tanh(self.layer(windows))


def backbones(d: int = 64, T: int = 64, n: int = 5, k: int = 3, heads: int = 4) -> dict[str, torch.nn.Module]:
    """One layer of each candidate backbone, width ``d``: an MLP on windows of ``n``, a convolution of width ``k``,
    an RNN, and multi-head self-attention (the course's own modules where the course has one)."""
    from dl4nlp.attention import MultiHeadAttention
    from dl4nlp.rnn import UnrolledRNN

    for name, value in (("d", d), ("T", T), ("n", n), ("k", k), ("heads", heads)):
        check_int(name, value)
    if max(n, k) > T:
        raise ValueError(f"T must be at least the window n = {n} and the width k = {k}; got T = {T}")
    torch.manual_seed(0)
    return {
        f"MLP on a window of {n}": WindowMLP(d, n),
        f"CNN, width {k}": torch.nn.Conv1d(d, d, k),
        "RNN": UnrolledRNN(d, d),
        "self-attention": MultiHeadAttention(d, heads),
    }


def _sequence_output(name: str, module: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    if isinstance(module, torch.nn.Conv1d):
        return module(x.transpose(1, 2)).transpose(1, 2)
    if name == "RNN":
        return module(x)[0]
    return module(x)


def compare_backbones(d: int = 64, T: int = 64, n: int = 5, k: int = 3, heads: int = 4) -> list[BackboneRow]:
    """Reach, parameters and FLOPs per token of one layer of each of ``backbones(d, T, n, k, heads)``.

    Reach is measured: output t depends on input s when the gradient of output t with respect to
    input s is not zero (float64, one random sequence of T vectors; every output when T <= 16, else
    the first, middle and last). ``dependence`` holds the rows measured (the others are False).
    """
    from torch.utils.flop_counter import FlopCounterMode

    rows = []
    for name, module in backbones(d, T, n, k, heads).items():
        module = module.double()
        x = torch.randn(1, T, d, dtype=torch.float64, generator=torch.Generator().manual_seed(0), requires_grad=True)
        y = _sequence_output(name, module, x)[0]  # (T_out, d)
        dependence = torch.zeros(len(y), T, dtype=torch.bool)
        probed = range(len(y)) if T <= 16 else (0, len(y) // 2, len(y) - 1)  # every output of a short sequence
        for t in probed:
            (grad,) = torch.autograd.grad(y[t].sum(), x, retain_graph=True)
            dependence[t] = grad[0].abs().sum(dim=1) > 0
        outputs, inputs = torch.nonzero(dependence, as_tuple=True)
        reach = int((outputs - inputs).abs().max())
        with FlopCounterMode(display=False) as counter, torch.no_grad():
            _sequence_output(name, module, x.detach())
        if name.startswith("MLP"):
            formula, steps = 2 * n * d * d, 1
        elif name.startswith("CNN"):
            formula, steps = 2 * k * d * d, 1
        elif name == "RNN":
            formula, steps = 2 * 2 * d * d, T
        else:
            formula, steps = 2 * 4 * d * d + 2 * 2 * T * d, 1
        rows.append(
            BackboneRow(
                name,
                reach,
                sum(p.numel() for p in module.parameters()),
                formula,
                counter.get_total_flops() / len(y),
                steps,
                dependence,
            )
        )
    return rows
