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
