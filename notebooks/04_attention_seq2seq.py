# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: cellView,jupyter,slideshow,tags,-all
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] slideshow={"slide_type": "slide"}
# # 04 · Attention fixes the bottleneck
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/04_attention_seq2seq.ipynb)
#
# An encoder–decoder translates by reading the whole input into a recurrent
# network and then writing the output one token at a time. In its first form
# everything the decoder knows about the input has to pass through a single
# vector, and the longer the input, the less of it gets through. Attention lets
# the decoder look back at every input position at every output step. In this
# notebook you will measure the bottleneck, write attention down in four
# lines, compare three ways of scoring a match, watch a model align dates the
# way you would, and decode with greedy and beam search.
#
# **You will:**
# - train an encoder–decoder with and without attention and measure accuracy against input length;
# - compute attention by hand: scores $e^{(t)}$, weights $\alpha^{(t)}$, output $a_t$ and $[a_t; s_t]$;
# - implement and verify the dot, general (bilinear) and additive (MLP) score functions;
# - read alignment heatmaps of a date translator;
# - decode with greedy and beam search, work a $k = 2$ example, and see where beam search wins (and where it can lose).
#
# **Prerequisites:** recurrent networks and GRU/LSTM cells (notebooks 02 and 03), softmax and cross-entropy.
#
# **Run time:** about 30 seconds on a laptop CPU (two small models are trained live).

# %%
# Set-up. In Google Colab (and only there) this first fetches the course and installs
# its library `dl4nlp` without touching Colab's torch; elsewhere `make lab` did that.
import os, subprocess, sys
if "google.colab" in sys.modules or os.environ.get("DL4NLP_BOOTSTRAP") == "1":
    _course = os.path.abspath("dl4nlp-course")
    if not os.path.isdir(_course):
        _url = os.environ.get("DL4NLP_REPO_URL", "https://github.com/dl4nlp-course/dl4nlp")
        subprocess.run(["git", "clone", "--quiet", "--depth=1", _url, _course], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", _course], check=True)
    sys.path.insert(0, os.path.join(_course, "lib"))

import dl4nlp

device = dl4nlp.start(seed=0)


# %%
import datetime as dt
import itertools
import json
import math
import random

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch

from dl4nlp import date_task
from dl4nlp.attention import AdditiveScore, DotScore, GeneralScore, attend
from dl4nlp.data import data_path, md5sum
from dl4nlp.exercises import check
from dl4nlp.plots import plot_attention
from dl4nlp.seq2seq import Seq2Seq, beam_search, greedy_search, table_step
from dl4nlp.train import History, train
from dl4nlp.transformer import count_parameters
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Two small translation tasks that need alignment
#
# Real translation needs a large corpus and hours of training. Two synthetic
# tasks keep the essential difficulty and train in seconds.
#
# **Dates.** The same day is written in many ways, and the model must write it
# as an ISO date. Each output digit comes from one particular place in the
# input (the year's digits, the month's name, the spelled-out day), and the
# order changes: the year moves to the front. That correspondence between
# output and input positions is an *alignment*.
#
# **Reversal.** A random string is written backwards. It is the purest
# alignment task: output position $t$ of a length-$n$ string copies input
# position $n + 1 - t$. And what the model must carry grows with $n$, which is
# exactly what the bottleneck cannot afford.
#
# Both live in `dl4nlp.date_task`; characters are the tokens.

# %%
# NBVAL_CHECK_OUTPUT
example_date = dt.date(1987, 9, 21)  # a 19xx date: stored outputs must not look like timestamps
for fmt in date_task.FORMATS:
    print(f"{date_task.format_date(example_date, fmt):>36}  ->  {example_date.isoformat()}")
print()
for n in (4, 7, 10):
    source, target = date_task.reverse_pairs(1, lengths=[n], seed=n)[0]
    print(f"{source:>36}  ->  {target}")
print(f"\nvocabulary sizes (with PAD, BOS, EOS): dates in {len(date_task.SOURCE_VOCAB)}, "
      f"dates out {len(date_task.TARGET_VOCAB)}, reversal {len(date_task.REVERSE_VOCAB)}")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. The encoder–decoder and its bottleneck
#
# **Encoder.** A bidirectional GRU reads the input $x_1, \dots, x_N$. Its states,
# forward and backward concatenated and projected, are $h_1, \dots, h_N \in \mathbb{R}^h$,
# one per input position. Its two final states are mixed into one summary vector
# $c = \tanh\bigl(W_b [\overrightarrow{h}_N; \overleftarrow{h}_1]\bigr)$.
#
# **Decoder.** A GRU language model over the output, started from $s_0 = c$:
# $s_t = \mathrm{GRU}(s_{t-1}, y_{t-1})$, and
#
# $$P(y_t \mid y_{<t}, x) = \operatorname{softmax}\bigl(W_o \tanh(W_c\,[a_t; s_t])\bigr).$$
#
# **Without attention** $a_t = c$ at every step (as in Cho et al., 2014). Whatever
# the decoder needs from the input, at every step, must be in that one vector of
# $h$ numbers, fixed before the first output is written: the *bottleneck*.
# **With attention** $a_t$ is recomputed at every step from all the $h_i$ (section 3).
# The two models below differ in nothing else, not even in their number of
# parameters, because the dot score has none.
#
# We train both on reversal with lengths 2 to 10, with the same data, seed and
# 90 steps of Adam, using the course's training loop `dl4nlp.train.train`.

# %%
LENGTHS = range(2, 11)
reverse_vocab = date_task.REVERSE_VOCAB
reverse_train = date_task.reverse_pairs(10_000, LENGTHS, seed=1)


def train_reverser(score, steps=90, seed=0):
    """A small encoder-decoder trained to reverse strings (score=None: no attention)."""
    dl4nlp.seed_everything(seed)
    model = Seq2Seq(len(reverse_vocab), len(reverse_vocab), d_embed=16, d_hidden=48, score=score).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    next_batch = date_task.batch_sampler(reverse_train, 256, seed=seed, source_vocab=reverse_vocab,
                                         target_vocab=reverse_vocab)
    history = train(model, lambda m, batch: m.loss(batch), next_batch, steps=steps, optimizer=optimizer,
                    scheduler=schedule, clip_norm=1.0, desc=f"reversal, {score or 'no'} attention")
    return model, history


bottleneck, bottleneck_history = train_reverser(score=None)

# %%
attentive, attentive_history = train_reverser(score="dot")

# %%
# NBVAL_CHECK_OUTPUT
print(f"parameters without attention: {count_parameters(bottleneck):,}; "
      f"with dot attention: {count_parameters(attentive):,}")
assert count_parameters(bottleneck) == count_parameters(attentive)

# %% [markdown]
# Now the measurement: for each length, 200 fresh strings, and the fraction the
# model reverses exactly (*sequence accuracy*, one wrong character and the
# whole string counts as wrong).

# %%
reverse_test = {n: date_task.reverse_pairs(200, [n], seed=100 + n) for n in LENGTHS}
accuracy = {name: [date_task.sequence_accuracy(model, reverse_test[n], reverse_vocab, reverse_vocab)
                   for n in LENGTHS]
            for name, model in [("no attention (bottleneck)", bottleneck), ("dot attention", attentive)]}

fig, (ax_acc, ax_loss) = plt.subplots(1, 2, figsize=(11, 3.8))
for name, values in accuracy.items():
    ax_acc.plot(list(LENGTHS), values, marker="o", label=name)
ax_acc.set(xlabel="input length n", ylabel="sequence accuracy", ylim=(-0.03, 1.03),
           title="Reversing strings: accuracy against length")
ax_acc.legend()
for name, history in [("no attention", bottleneck_history), ("dot attention", attentive_history)]:
    ax_loss.plot(history.step, history.smoothed_loss(10), label=name)
ax_loss.set(xlabel="step", ylabel="training loss (smoothed)", yscale="log", title="Training")
ax_loss.legend()
plt.show()

for n, without, with_attention in zip(LENGTHS, *accuracy.values()):
    print(f"n = {n:2d}: without attention {without:4.0%}   with attention {with_attention:4.0%}")

# %% [markdown]
# Both models reverse short strings. Without attention, accuracy falls steeply
# with length: a 48-number summary, learned in 90 steps, holds two characters
# reliably, three often, and seven or more hardly ever. With attention the decoder never has
# to remember the input; it looks up the one position it needs, so length barely
# matters.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Given far more training the bottleneck model would do better, but
# the curve keeps its shape: Cho et al. (2014) and Bahdanau et al. (2015) saw the
# same fall with sentence length in real translation.

# %% [markdown]
# **Checkpoint.** The margins below hold for every seed we tried.

# %%
without, with_attention = accuracy.values()
assert min(with_attention) >= 0.85, f"attention should reverse every length well: {with_attention}"
assert without[0] >= 0.8, f"without attention, length 2 should still be easy: {without[0]}"
assert max(without[-3:]) <= 0.15, f"without attention, lengths 8-10 should mostly fail: {without[-3:]}"
assert all(a - b >= 0.7 for a, b in zip(with_attention[-3:], without[-3:])), "attention should hold up where the bottleneck fails"
print("attention holds up where the bottleneck degrades")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Attention in equations
#
# We have encoder states $h_1, \dots, h_N \in \mathbb{R}^h$ and, at output step
# $t$, the decoder state $s_t \in \mathbb{R}^h$.
#
# 1. **Scores**: how well does $s_t$ match each $h_i$?
#    $\quad e^{(t)} = [\,s_t^\top h_1, \dots, s_t^\top h_N\,] \in \mathbb{R}^N$
# 2. **Weights**: a probability distribution over the input positions,
#    $\quad \alpha^{(t)} = \operatorname{softmax}(e^{(t)}) \in \mathbb{R}^N$
# 3. **Attention output**: the weighted average of the encoder states,
#    $\quad a_t = \sum_{i=1}^N \alpha^{(t)}_i h_i \in \mathbb{R}^h$
# 4. **Combine** with the decoder state and carry on as without attention:
#    $\quad [a_t; s_t] \in \mathbb{R}^{2h}$
#
# Here it is by hand, for $N = 3$ states in $\mathbb{R}^2$.

# %%
# NBVAL_CHECK_OUTPUT
h = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=torch.float64)  # h_1, h_2, h_3
s_t = torch.tensor([2.0, 1.0], dtype=torch.float64)

e = torch.stack([s_t @ h_i for h_i in h])  # step 1: one dot product per input position
alpha = torch.exp(e) / torch.exp(e).sum()  # step 2: softmax
a_t = sum(alpha_i * h_i for alpha_i, h_i in zip(alpha, h))  # step 3: weighted sum
combined = torch.cat([a_t, s_t])  # step 4

print("e(t)     =", e.tolist())
print("alpha(t) =", [round(x, 4) for x in alpha.tolist()], " sum =", alpha.sum().item())
print("a_t      =", [round(x, 4) for x in a_t.tolist()])
print("[a_t; s_t] =", [round(x, 4) for x in combined.tolist()])

# %% [markdown]
# The third state matches $s_t$ best ($e = 3$) and gets two thirds of the weight;
# $a_t$ is pulled towards $h_3 = (1, 1)$. In the library the same four steps run
# for every $t$ and every sequence in a batch at once: a score module gives
# $e$ as a (B, T, N) tensor and `attend` does steps 2 and 3.
#
# **Checkpoint.** The hand computation equals `DotScore` + `attend`.

# %%
scores = DotScore(2, 2)(s_t[None, None, :], h[None])  # (B=1, T=1, N=3)
library_a, library_alpha = attend(scores, h[None])
assert torch.allclose(library_alpha[0, 0], alpha, atol=1e-15) and torch.allclose(library_a[0, 0], a_t, atol=1e-15)
assert math.isclose(alpha[2].item(), math.exp(3) / (math.exp(1) + math.exp(2) + math.exp(3)), abs_tol=1e-15)
print("by hand == dl4nlp.attention")

# %% [markdown] slideshow={"slide_type": "slide"}
# ### Three ways to score a match
#
# Step 1 is the only place where the variants differ. With query $s_t$ and key $h_i$:
#
# | name | score $e_i^{(t)}$ | parameters | notes |
# |---|---|---|---|
# | dot (Luong et al., 2015) | $s_t^\top h_i$ | none | needs $s_t$ and $h_i$ of the same size |
# | general, bilinear (Luong et al., 2015) | $s_t^\top W h_i$ | $W \in \mathbb{R}^{d_s \times d_h}$ | a learned notion of "match" |
# | additive, MLP (Bahdanau et al., 2015) | $v^\top \tanh(W_1 s_t + W_2 h_i + b)$ | $W_1, W_2, b, v$ | a one-hidden-layer network on each pair |

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The lecture's version of the additive score, $z_i = \mathrm{act}(p^\top a + q^\top x_i + r)$,
# is the same idea with a hidden layer of width one. The dot and general scores
# are a matrix product for all pairs at once; the additive score builds a hidden
# vector for every (query, key) pair, so it costs more memory.

# %% [markdown]
# **Verify.** Each module against a brute-force loop over pairs (or `einsum`), and
# its gradients against finite differences with `gradcheck`.

# %%
# NBVAL_CHECK_OUTPUT
generator = torch.Generator().manual_seed(0)
query = torch.randn(2, 4, 6, dtype=torch.float64, generator=generator)  # (B, T, d): 4 decoder states
keys = torch.randn(2, 5, 6, dtype=torch.float64, generator=generator)  # (B, N, d): 5 encoder states
torch.manual_seed(0)
score_modules = {"dot": DotScore(6, 6), "general": GeneralScore(6, 6).double(),
                 "additive": AdditiveScore(6, 6, d_attn=8).double()}


def brute_force(name, s, k):
    """One score per (query, key) pair, the slow and obvious way."""
    if name == "dot":
        return s @ k
    if name == "general":
        return s @ score_modules["general"].weight @ k
    mlp = score_modules["additive"]
    return mlp.v(torch.tanh(mlp.query_proj(s) + mlp.key_proj(k)))[0]


for name, module in score_modules.items():
    fast = module(query, keys)  # (B, T, N)
    slow = torch.stack([torch.stack([torch.stack([brute_force(name, query[b, t], keys[b, i]) for i in range(5)])
                                     for t in range(4)]) for b in range(2)])
    assert fast.shape == (2, 4, 5) and torch.allclose(fast, slow, atol=1e-12), name
    q, k = query.clone().requires_grad_(True), keys.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(module, (q, k), eps=1e-6, atol=1e-8), name
    print(f"{name:>8}: matches the loop over pairs, passes gradcheck, {count_parameters(module)} parameters")
assert torch.allclose(score_modules["dot"](query, keys), torch.einsum("btd,bnd->btn", query, keys), atol=1e-12)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. The three scores compared on dates
#
# Training a date translator takes a little longer than the reversal models, so
# three of them, one per score, were trained once with the same recipe by the
# library command `python -m dl4nlp.date_task` (400 steps of 256 dates, the same
# seed; the recipe, checksum and loss curve of each sit next to it in `data/`).
# We load them, draw their recorded training curves, and test them here on
# 500 dates none of them has seen.

# %%
date_models, date_recipes = {}, {}
for score in ("dot", "general", "additive"):
    date_models[score] = Seq2Seq.load(data_path(date_task.CHECKPOINT.format(score=score)), device)
    date_recipes[score] = json.loads(data_path(date_task.CHECKPOINT.format(score=score)).with_suffix(".json").read_text())

date_test = date_task.make_pairs(500, seed=2024)
date_accuracy = {score: date_task.sequence_accuracy(model, date_test) for score, model in date_models.items()}

fig, ax = plt.subplots(figsize=(7, 3.5))
for score, recipe in date_recipes.items():
    ax.plot(History(loss=recipe["loss"]).smoothed_loss(10), label=f"{score} score")
ax.set(xlabel="step", ylabel="training loss (smoothed)", yscale="log", title="Date translators, same recipe")
ax.legend()
plt.show()

# %%
# NBVAL_CHECK_OUTPUT
for score, model in date_models.items():
    extra = count_parameters(model.score) if model.score is not None else 0
    print(f"{score:>8}: {count_parameters(model):,} parameters, {extra:,} of them in the score")

# %%
for score, acc in date_accuracy.items():
    print(f"{score:>8}: test sequence accuracy {acc:.1%}")
assert all(acc >= 0.98 for acc in date_accuracy.values()), date_accuracy

# %% [markdown]
# On this task the three scores end up equally good on unseen dates. In this
# run the additive score's loss fell fastest and lowest and the dot score's was
# the bumpiest, but the general and additive scores pay for their flexibility
# with parameters (and the additive one with memory for every query-key pair)
# that an alignment this easy hardly needs.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Luong et al. (2015) found the general score best for their global
# attention; on large tasks the differences are modest, and the Transformer (notebook 05) uses the dot score, scaled.

# %% [markdown]
# **Checkpoint.** Each checkpoint matches the checksum its recipe records, so
# what you load is what was trained.

# %%
for score, recipe in date_recipes.items():
    assert md5sum(data_path(date_task.CHECKPOINT.format(score=score))) == recipe["md5"], score
print("checkpoints verified against their recipes")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Seeing the alignment
#
# The weights $\alpha^{(t)}$ are a distribution over input positions for every
# output step, so a whole translation gives a matrix: one row per output
# character, one column per input character. Below, the dot-score model
# translates four inputs; each row shows where it looked while writing that
# character (the last row and column are the end-of-sequence token).

# %%
def alignment(model, source, target):
    """Attention weights (T_out, T_in) while the model writes `target` for `source`."""
    batch = date_task.encode_batch([(source, target)])
    with torch.no_grad():
        _, weights = model(batch["src"].to(device), batch["src_lengths"].to(device), batch["tgt_in"].to(device))
    return weights[0].cpu()


def draw_alignment(source, score="dot", ax=None):
    """Heatmap of one translation (the widget's plain function)."""
    model = date_models[score]
    target = date_task.translate(model, [source])[0]
    return plot_attention(alignment(model, source, target), list(source) + ["<eos>"], list(target) + ["<eos>"],
                          ax=ax, title=f"{score} score: {source!r} -> {target}")


fig, axes = plt.subplots(2, 2, figsize=(15, 8))
for ax, fmt in zip(axes.flat, ["the spelled day of month yyyy", "dd/mm/yyyy", "weekday, month d, yyyy", "d mon yyyy"]):
    draw_alignment(date_task.format_date(dt.date(1998, 3, 23), fmt), ax=ax)
fig.tight_layout()
plt.show()

# %% [markdown]
# This is the alignment a person would draw. The year's digits look at the
# year's digits, one each, although the year moved from the end to the front.
# The month's two digits look at letters of the month's *name* when it is
# written out, and at its digits in `23/03/1998`. The day's "2" and "3" look
# into "twenty" and "third" when the day is spelled out. Nobody told the model
# where the fields are: the alignment emerged from learning to translate. The
# dashes look at the end of the input, because a dash depends on no part of
# the date.
#
# How sharp is it? For 200 test dates and each output field (year, month,
# day), we add up the attention that lands on the same field in the input (give
# or take one character).
#
#

# %%
rng = random.Random(7)
field_examples = [(date_task.random_date(rng), rng.choice(list(date_task.FORMATS))) for _ in range(200)]
field_batch = date_task.encode_batch([(date_task.format_date(d, fmt), d.isoformat()) for d, fmt in field_examples])


def field_attention(model):
    """Mean attention mass from each ISO field onto the same field in the input (+-1 character)."""
    with torch.no_grad():
        _, weights = model(*(field_batch[k].to(device) for k in ("src", "src_lengths", "tgt_in")))
    totals = {kind: 0.0 for kind in date_task.ISO_SPANS}
    for w, (date, fmt) in zip(weights.cpu(), field_examples):
        spans = date_task.field_spans(date, fmt)
        for kind, (start, end) in date_task.ISO_SPANS.items():
            source_start, source_end = spans[kind]
            totals[kind] += w[start:end, max(0, source_start - 1): source_end + 1].sum(-1).mean().item()
    return {kind: total / len(field_examples) for kind, total in totals.items()}


field_mass = {score: field_attention(model) for score, model in date_models.items()}
for score, mass in field_mass.items():
    print(f"{score:>8}: " + ", ".join(f"{kind} {value:.0%}" for kind, value in mass.items()))

# %% [markdown]
# The dot and general models look almost exclusively at the right field. The
# additive model spreads its weight more widely. Two reasons: the bidirectional
# encoder has already copied information from each character into its
# neighbours' states, so looking next door also works; and an additive score
# $v^\top \tanh(\cdot)$ is bounded by $\sum_j |v_j|$, whereas a dot product can grow as
# large as it needs to make the softmax peaked.
#
# **Checkpoint.** Dot and general: at least 90 % of each field's attention on
# the matching input field. Additive: at least 90 % for the year and at least
# 70 % on average.

# %%
for score in ("dot", "general"):
    assert min(field_mass[score].values()) >= 0.9, (score, field_mass[score])
assert field_mass["additive"]["year"] >= 0.9 and sum(field_mass["additive"].values()) / 3 >= 0.7, field_mass["additive"]

# %% [markdown]
# The reversal model aligns too, along the anti-diagonal: to write output
# position $t$ it looks at input position $n + 1 - t$.

# %%
source = date_task.reverse_pairs(1, [10], seed=5)[0][0]
batch = date_task.encode_batch([(source, source[::-1])], reverse_vocab, reverse_vocab)
with torch.no_grad():
    _, reverse_weights = attentive(batch["src"].to(device), batch["src_lengths"].to(device), batch["tgt_in"].to(device))
plot_attention(reverse_weights[0].cpu(), list(source) + ["<eos>"], list(source[::-1]) + ["<eos>"],
               title="Reversal: each output looks at the mirrored input")
plt.show()

test_batch = date_task.encode_batch(reverse_test[10], reverse_vocab, reverse_vocab)
with torch.no_grad():
    _, weights = attentive(*(test_batch[k].to(device) for k in ("src", "src_lengths", "tgt_in")))
positions = torch.arange(10)
mirrored = weights[:, positions, 9 - positions].mean().item()
print(f"mean weight on the mirrored position (length 10): {mirrored:.0%}")
assert mirrored >= 0.6, mirrored

# %% [markdown]
# ### Play with it
#
# Choose an input, or type your own date in any of the formats above (lower
# case; press Enter), and a score function. Try a date the formats never
# produce, such as `may 21 2031` without the comma, or `21.05.2031`.

# %%
alignment_examples = [date_task.format_date(date, fmt) for date, fmt in
                      zip([dt.date(1998, 3, 23), dt.date(2031, 5, 21), dt.date(1969, 7, 20), dt.date(2000, 1, 1),
                           dt.date(1989, 11, 9), dt.date(2012, 12, 31), dt.date(1957, 10, 4), dt.date(2049, 2, 28)],
                          date_task.FORMATS)]
interactive_figure(
    draw_alignment,
    source=widgets.Combobox(value=alignment_examples[0], options=alignment_examples, ensure_option=False,
                            continuous_update=False, description="input"),
    score=widgets.Dropdown(options=list(date_models), value="dot", description="score"),
)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Decoding: greedy and beam search
#
# A trained decoder gives $P(y_t \mid y_{<t}, x)$; to translate we still have to
# choose the output. The best output maximises
#
# $$\text{score}(y_1, \dots, y_t) = \log P(y_1, \dots, y_t \mid x) = \sum_{i=1}^{t} \log P(y_i \mid y_1, \dots, y_{i-1}, x),$$
#
# a sum of negative numbers (higher is better). Trying every output is
# impossible: $V^T$ of them. **Greedy decoding** takes the most probable token
# at each step and never reconsiders. **Beam search** keeps the $k$ best partial
# outputs (*hypotheses*) at every step: it extends each by every token, keeps
# the $k$ best extensions, sets aside those that end with the end token, and
# stops when no open hypothesis can beat the best finished one (scores only go
# down as tokens are added). $k = 1$ is greedy; in practice $k$ is about 5 to 10.
#
# `dl4nlp.seq2seq.beam_search(step, state, ...)` works with any `step`
# function that maps the last tokens of the hypotheses to log-probabilities of
# the next token. So we can run it on a small table of probabilities first.
#
# ### A worked example with $k = 2$
#
# Suppose a decoder translating *il a m'entarté* ("he hit me with a pie") gives
# these next-word probabilities (a toy table; `<eos>` ends the sentence).

# %%
words = ["<eos>", "he", "I", "hit", "was", "me"]
EOS = 0
table = {prefix: [0.6, 0.1, 0.05, 0.1, 0.05, 0.1] for n in range(4) for prefix in itertools.product(range(1, 6), repeat=n)}
table.update({
    (): [0.05, 0.40, 0.45, 0.05, 0.0, 0.05],  # first word: "I" is a little more likely than "he"
    (2,): [0.1, 0.05, 0.05, 0.2, 0.5, 0.1],  # I -> was
    (1,): [0.05, 0.0, 0.05, 0.7, 0.1, 0.1],  # he -> hit
    (2, 4): [0.2, 0.05, 0.05, 0.4, 0.1, 0.2],  # I was -> hit
    (1, 3): [0.1, 0.0, 0.05, 0.0, 0.05, 0.8],  # he hit -> me
    (2, 4, 3): [0.6, 0.1, 0.0, 0.0, 0.1, 0.2],  # I was hit -> <eos>
    (1, 3, 5): [0.9, 0.0, 0.05, 0.05, 0.0, 0.0],  # he hit me -> <eos>
})
assert all(math.isclose(sum(p), 1.0) for p in table.values())
step, start = table_step(table)


def show(tokens):
    return " ".join(words[i] for i in tokens[1:])  # tokens[0] is the start token


# %%
# NBVAL_CHECK_OUTPUT
greedy = greedy_search(step, start, bos=-1, eos=EOS, max_len=4)
beam = beam_search(step, start, bos=-1, eos=EOS, beam_size=2, max_len=4)
print(f"greedy: {show(greedy.tokens):<22} score = log P = {greedy.score:.3f}   (P = {math.exp(greedy.score):.4f})")
print("\nbeam search, k = 2 (the beam after each step; finished hypotheses end in <eos>):")
for t, hypotheses in enumerate(beam.steps, start=1):
    print(f"  step {t}: " + "   ".join(f"{show(h.tokens)} ({h.score:.2f})" for h in hypotheses))
print(f"\nbeam:   {show(beam.best.tokens):<22} score = log P = {beam.best.score:.3f}   (P = {math.exp(beam.best.score):.4f})")

# %% [markdown]
# Greedy commits to "I" (0.45 beats 0.40) and is stuck with a sentence that ends
# up less probable: $0.45 \times 0.5 \times 0.4 \times 0.6 = 0.054$. Beam search keeps "he"
# alive as the runner-up; after two steps "he hit" ($0.40 \times 0.7 = 0.28$) has
# overtaken "I was" ($0.225$), and it finishes with
# $0.40 \times 0.7 \times 0.8 \times 0.9 = 0.2016$, almost four times as likely.
#
# **Checkpoint.** Beam search beats greedy here, and with a beam large enough to
# keep everything it equals exhaustive search over every output of up to four tokens.

# %%
def exhaustive(table, max_len=4):
    """The best output by trying every one (feasible only for toy tables)."""
    best = (-math.inf, None)
    for n in range(1, max_len + 1):
        for words_ in itertools.product(range(1, 6), repeat=n - 1):
            ending = [EOS] if n < max_len else list(range(6))
            for last in ending:
                tokens, score = words_ + (last,), 0.0
                for i, token in enumerate(tokens):
                    score += math.log(table[tokens[:i]][token]) if table[tokens[:i]][token] > 0 else -math.inf
                best = max(best, (score, tokens))
    return best


best_score, best_tokens = exhaustive(table)
huge_beam = beam_search(step, start, bos=-1, eos=EOS, beam_size=6**4, max_len=4)
assert beam.best.score > greedy.score + 1.0, "beam search should find a much better sentence here"
assert math.isclose(beam.best.score, math.log(0.40 * 0.7 * 0.8 * 0.9)) and math.isclose(greedy.score, math.log(0.054))
assert math.isclose(huge_beam.best.score, best_score) and tuple(huge_beam.best.tokens[1:]) == best_tokens
print(f"exhaustive search: {' '.join(words[i] for i in best_tokens)} ({best_score:.3f}) == beam search with a huge beam")

# %% [markdown]
# ### On the trained models
#
# The date translators are so sure of themselves that beam search and greedy
# decoding agree; the reversal model without attention is unsure on long
# strings, and there beam search finds more probable outputs.

# %%
def compare_decoders(model, pairs, source_vocab, target_vocab, beam_size=5, max_len=12):
    """Greedy and beam scores (and exact-match counts) for each pair, one at a time."""
    batch = date_task.encode_batch(pairs, source_vocab, target_vocab)
    with torch.no_grad():
        states = model.encode(batch["src"].to(device), batch["src_lengths"].to(device))
    rows = []
    for i, (_, target) in enumerate(pairs):
        state = tuple(part[i: i + 1] for part in states)
        g = greedy_search(model.step, state, bos=1, eos=2, max_len=max_len)
        b = beam_search(model.step, state, bos=1, eos=2, beam_size=beam_size, max_len=max_len).best
        rows.append((g.score, b.score, target_vocab.decode(g.tokens) == target, target_vocab.decode(b.tokens) == target))
    return rows


dates_rows = compare_decoders(date_models["dot"], date_test[:30], date_task.SOURCE_VOCAB, date_task.TARGET_VOCAB)
reverse_rows = compare_decoders(bottleneck, date_task.reverse_pairs(40, [7, 8, 9, 10], seed=7), reverse_vocab, reverse_vocab)
TOLERANCE = 1e-4  # float32 noise: the same output scored in batches of different sizes
for name, rows in [("dates, dot attention", dates_rows), ("reversal, no attention", reverse_rows)]:
    higher = sum(b > g + TOLERANCE for g, b, *_ in rows)
    lower = sum(b < g - TOLERANCE for g, b, *_ in rows)
    print(f"{name:>23}: beam (k = 5) scores higher than greedy on {higher}/{len(rows)} inputs, lower on {lower}; "
          f"exact: greedy {sum(r[2] for r in rows)}, beam {sum(r[3] for r in rows)}")

# %% [markdown]
# A higher score is not the same as a correct answer: the bottleneck model's
# most probable reversal of a long string is still wrong. Beam search finds
# what the model prefers; it cannot fix what the model has not learned.
#
# Beam search is usually at least as good as greedy, but it is not exhaustive:
# if $k$ other partial outputs look better at some step, greedy's path drops
# out of the beam and may have been the best one after all. On the uncertain
# reversal model this happens for a few inputs (exercise 3 asks you to build such
# a case by hand). Where the model is confident it does not happen.
#
# **Checkpoint.** On the date translator, beam search is never below greedy; on
# the uncertain model it is higher on most inputs and lower on at most a few.

# %%
assert all(b >= g - TOLERANCE for g, b, *_ in dates_rows), "beam should never score below greedy on the dates"
assert sum(b > g + TOLERANCE for g, b, *_ in reverse_rows) >= 0.5 * len(reverse_rows)
assert sum(b < g - TOLERANCE for g, b, *_ in reverse_rows) <= 0.1 * len(reverse_rows)
greedy_exact, beam_exact = sum(row[2] for row in reverse_rows), sum(row[3] for row in reverse_rows)
assert beam_exact >= greedy_exact - 2, "beam's more probable outputs should not be much less often right"

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercises
#
# **Exercise 1.** Write the general (bilinear) score for all pairs at once with
# `torch.einsum`: given decoder states `s` (T, d), a matrix `W` (d, d) and
# encoder states `h` (N, d), return the (T, N) matrix $e_{ti} = s_t^\top W h_i$.

# %%
exercise_generator = torch.Generator().manual_seed(4)
s_ex = torch.randn(3, 4, generator=exercise_generator)
W_ex = torch.randn(4, 4, generator=exercise_generator)
h_ex = torch.randn(5, 4, generator=exercise_generator)
general_ex = GeneralScore(4, 4)
with torch.no_grad():
    general_ex.weight.copy_(W_ex)
    exercise_1_reference = general_ex(s_ex[None], h_ex[None])[0]


def exercise_1(s, W, h):
    raise NotImplementedError


check("Exercise 1", lambda: exercise_1(s_ex, W_ex, h_ex), exercise_1_reference, atol=1e-5);

# %% [markdown]
# *Solution (click the cell below to reveal it).*

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1(s, W, h):
    return torch.einsum("td,de,ne->tn", s, W, h)  # sum over d and e of s[t,d] W[d,e] h[n,e]


assert check("Exercise 1", lambda: exercise_1(s_ex, W_ex, h_ex), exercise_1_reference, atol=1e-5)

# %% [markdown]
# **Exercise 2.** A batch pads short inputs with PAD tokens, and attention must
# ignore them. For $s_t = (1, 2)$ and encoder states $h_1 = (1, 0)$, $h_2 = (0, 1)$,
# $h_3 = (5, 5)$, where $h_3$ belongs to a padding position, compute the dot-score
# attention output $a_t$ by hand (softmax over the real positions only).

# %%
def exercise_2():
    raise NotImplementedError


mask_ex = torch.tensor([[[True, True, False]]])
h_pad = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]])
exercise_2_reference = attend(DotScore(2, 2)(torch.tensor([[[1.0, 2.0]]]), h_pad), h_pad, mask_ex)[0][0, 0]
check("Exercise 2", exercise_2, exercise_2_reference, atol=1e-5);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    e = [1 * 1 + 2 * 0, 1 * 0 + 2 * 1]  # scores of the two real positions: 1 and 2 (h_3 is ignored)
    z = math.exp(e[0]) + math.exp(e[1])
    alpha = [math.exp(e[0]) / z, math.exp(e[1]) / z]  # 0.269, 0.731
    return [alpha[0] * 1 + alpha[1] * 0, alpha[0] * 0 + alpha[1] * 1]


assert check("Exercise 2", exercise_2, exercise_2_reference, atol=1e-5)

# %% [markdown]
# **Exercise 3.** Build a probability table (in the format of section 6, over
# tokens 0 = `<eos>`, 1, 2, 3, with outputs of at most three tokens) on which beam
# search with $k = 2$ finishes with a *lower* score than greedy decoding.
# *Hint:* make greedy's second token look poor for a moment while two other
# prefixes look good, then let those two run into trouble.

# %%
def exercise_3():
    table = {}  # prefix (tuple of tokens) -> 4 probabilities
    raise NotImplementedError


def beam_loses_to_greedy(table):
    step, start = table_step(table)
    greedy = greedy_search(step, start, bos=-1, eos=0, max_len=3)
    beam = beam_search(step, start, bos=-1, eos=0, beam_size=2, max_len=3)
    return beam.best.score < greedy.score - 1e-9


check("Exercise 3", lambda: beam_loses_to_greedy(exercise_3()), True);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def exercise_3():
    table = {prefix: [0.0, 1 / 3, 1 / 3, 1 / 3] for n in range(3) for prefix in itertools.product(range(1, 4), repeat=n)}
    table[()] = [0.0, 0.4, 0.35, 0.25]  # greedy and the beam both start with 1 and 2
    table[(1,)] = [0.0, 0.34, 0.33, 0.33]  # after 1 everything looks mediocre: 0.4 x 0.34 = 0.136 ...
    table[(2,)] = [0.0, 0.51, 0.49, 0.0]  # ... while 2 1 (0.1785) and 2 2 (0.1715) look better: 1 1 drops out
    table[(1, 1)] = [0.0, 1.0, 0.0, 0.0]  # but 1 1 would have ended with certainty (0.136) ...
    return table  # ... and 2 1 and 2 2 end at 0.1785 / 3 and 0.1715 / 3 (the default third row)


assert check("Exercise 3", lambda: beam_loses_to_greedy(exercise_3()), True)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - An encoder–decoder without attention must pass the whole input through one vector; its accuracy falls with input length (here from over 90 % at length 2 to almost 0 from length 7 on), while the same model with attention stays near 100 %.
# - Attention at output step $t$: scores $e^{(t)}$ of the decoder state against every encoder state, $\alpha^{(t)} = \operatorname{softmax}(e^{(t)})$, $a_t = \sum_i \alpha^{(t)}_i h_i$, then $[a_t; s_t]$.
# - The dot, general and additive scores differ only in how a match is scored; `dl4nlp.attention` has all three, verified against brute force and `gradcheck`, and all three learn dates perfectly.
# - Attention weights are an alignment you can read: the date translator looks at the year for the year and at the month's name for the month.
# - Greedy decoding commits early; beam search keeps $k$ hypotheses and finds more probable outputs, but it is neither exhaustive nor guaranteed to beat greedy, and a more probable output is not necessarily a correct one.
#
# **Next:** notebook 05 drops the recurrent network altogether and lets every
# position attend to every other: self-attention, by hand and at scale.
#
# **References**
# - I. Sutskever, O. Vinyals, Q. V. Le, *Sequence to sequence learning with neural networks*, NeurIPS (2014).
# - K. Cho et al., *Learning phrase representations using RNN encoder–decoder for statistical machine translation*, EMNLP (2014); and *On the properties of neural machine translation: encoder–decoder approaches*, SSST (2014).
# - D. Bahdanau, K. Cho, Y. Bengio, *Neural machine translation by jointly learning to align and translate*, ICLR (2015).
# - M.-T. Luong, H. Pham, C. D. Manning, *Effective approaches to attention-based neural machine translation*, EMNLP (2015).
# - A. Graves, *Sequence transduction with recurrent neural networks* (2012), and P. Koehn, *Statistical Machine Translation*, Cambridge (2010), on beam search.
