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
# # 03 · RNNs, and why they forget
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/03_rnns_forget.ipynb)
#
# A recurrent network reads a sentence one token at a time and carries
# everything it has seen in a single hidden vector. In principle that vector can
# remember the first word of a long paragraph; in practice a plain RNN forgets
# it within a few dozen steps. This chapter builds one, trains it as a language model
# against chapter 02's counting baselines, and finds out why it forgets, what makes its
# training explode, and what lets it remember a token across 50 steps.
#
# **You will:**
# - write the RNN language model's forward pass, verify it against `torch.nn.RNN`, and draw it unrolled;
# - train it with teacher forcing, judge it by its held-out perplexity against chapter 02's unigram and bigram models, and sample from it;
# - derive backpropagation through time (the δ recursion and the sum over time of the shared weights' gradients), implement it and check it against autograd;
# - write the training loop that reads a whole book by truncated BPTT (carry the state, detach it, clip, step);
# - measure $\lVert\partial h^{(T)}/\partial h^{(t)}\rVert$ as a function of the distance $T-t$ and connect it to the eigenvalues of the recurrent matrix;
# - see a loss surface with a cliff, and keep training stable with gradient clipping;
# - find how far back three RNNs remember, changing one thing at a time: the initialisation, then the nonlinearity (the IRNN).
#
# **Prerequisites:** chapter 01 (backpropagation, gradients through many layers) and chapter 02
# (perplexity, the unigram and bigram baselines).
#
# **Study time:** about 2 hours for a person; **run time:** about 30 s on a laptop CPU.

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
import math
from decimal import Decimal, getcontext
from fractions import Fraction

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from dl4nlp.bptt import (check_truncated_training, init_rnn_lm_params, rnn_lm_autograd_gradients, rnn_lm_forward,
                         rnn_lm_gradients, train_truncated_bptt, truncated_bptt_loss)
from dl4nlp.data import load_text
from dl4nlp.dependency_trees import describe, read_conllu, share_farther, subject_verb_pairs
from dl4nlp.diagrams import unrolled_rnn
from dl4nlp.exercises import attempt, check
from dl4nlp.experiments import rnn as experiment
from dl4nlp.ngram import perplexity
from dl4nlp.notebook import claim
from dl4nlp.numerics import agree
from dl4nlp.plots import plot_gradient_norms
from dl4nlp.rnn import RecurrentLM, UnrolledRNN, language_model_loss, next_token_loss, sample
from dl4nlp.tasks import long_lag_task
from dl4nlp.vocab import CharVocab
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. The RNN language model
#
# **Intuition.** A language model predicts the next token from the ones before
# it. Chapter 02's bigram model looks at one previous character only. A recurrent network
# uses one fixed set of weights at every position: it folds the current token's embedding into
# a running summary $h^{(t)}$ of everything read so far, and predicts the next token from that summary.
#
# **The maths.** With one-hot tokens $x^{(t)}$, an embedding matrix $E$ and a nonlinearity $\sigma$ (here $\tanh$):
#
# $$e^{(t)} = E\,x^{(t)}, \qquad
#   h^{(t)} = \sigma\!\left(W_h\,h^{(t-1)} + W_e\,e^{(t)} + b_1\right), \qquad
#   \hat y^{(t)} = \operatorname{softmax}\!\left(U h^{(t)} + b_2\right),$$
#
# starting from $h^{(0)} = 0$. The same $W_h$, $W_e$, $U$ are used at every step,
# so the model's size does not depend on the length of the text.
#
# ### 1a. One step, then a loop

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** PyTorch's `nn.RNN` stores $W_e$ as `weight_ih_l0`, $W_h$ as `weight_hh_l0`, and
# splits $b_1$ into two biases `bias_ih_l0 + bias_hh_l0`.

# %% [markdown]
# We write the step ourselves, loop it over time, and compare with `nn.RNN` holding the same weights.

# %%
def rnn_step(e_t, h_prev, W_e, W_h, b):
    """h(t) = tanh(W_h h(t-1) + W_e e(t) + b) for a batch: e_t (B, E), h_prev (B, H) -> (B, H)."""
    return torch.tanh(h_prev @ W_h.T + e_t @ W_e.T + b)


torch.manual_seed(0)
torch_rnn = nn.RNN(input_size=8, hidden_size=16, batch_first=True)
W_e, W_h = torch_rnn.weight_ih_l0, torch_rnn.weight_hh_l0
b = torch_rnn.bias_ih_l0 + torch_rnn.bias_hh_l0

e = torch.randn(3, 20, 8)  # a batch of 3 sequences of 20 embeddings: (B, T, E)
h = torch.zeros(3, 16)  # h(0) = 0
by_hand = []
for t in range(e.shape[1]):
    h = rnn_step(e[:, t], h, W_e, W_h, b)
    by_hand.append(h)
by_hand = torch.stack(by_hand, dim=1)  # (B, T, H)

by_torch, h_last = torch_rnn(e)  # every hidden state (B, T, H), and the last one (layers, B, H)
ours = UnrolledRNN.from_torch(torch_rnn)  # the library's version of the loop, weights copied
by_library, _ = ours(e)
print(f"hidden states: {tuple(by_torch.shape)} (batch, time, hidden); largest difference from nn.RNN: "
      f"by hand {(by_hand - by_torch).abs().max().item():.0e}, library {(by_library - by_torch).abs().max().item():.0e}")

# %% [markdown]
# The three agree to float32 rounding.
#
# ### 1b. Teacher forcing and a loss summed over time
#
# To train a language model on a text $x^{(1)}, \dots, x^{(T+1)}$ we feed the
# *true* token $x^{(t)}$ at every step, whatever the model would have predicted
# (this is **teacher forcing**), and score the prediction $\hat y^{(t)}$ against the
# true next token $x^{(t+1)}$. The loss of the sequence is the sum of the
# per-step losses:
#
# $$J = \sum_{t=1}^{T} J^{(t)} = -\sum_{t=1}^{T} \log \hat y^{(t)}_{x^{(t+1)}} .$$
#
# In code, teacher forcing is just a shift by one: inputs `ids[:-1]`, targets `ids[1:]`.

# %%
# NBVAL_CHECK_OUTPUT
text = load_text("tinyshakespeare.txt")
vocab = CharVocab.from_text(text)
ids = torch.tensor(vocab.encode(text))
window = ids[:41]
inputs, targets = window[:-1], window[1:]
print(f"{len(vocab)} distinct characters in {len(text):,} characters of Shakespeare")
print("inputs :", repr(vocab.decode(inputs)))
print("targets:", repr(vocab.decode(targets)))

# %% [markdown]
# The library's `RecurrentLM` is this model with PyTorch's fast `nn.RNN` inside.
# Before training, its predictions are nearly uniform over the $|V| = 65$ characters, so
# each step costs about $\log 65 = 4.17$ nats. The summed loss is the sum of the
# per-step terms $-\log \hat y^{(t)}_{x^{(t+1)}}$, which we also compute one by one.

# %%
torch.manual_seed(0)
lm = RecurrentLM(len(vocab), hidden_size=64, kind="rnn", embedding_dim=32)
logits, _ = lm(inputs[None])  # (1, T, V)
summed = language_model_loss(logits, targets[None], reduction="sum")
per_step = [-torch.log_softmax(logits[0, t], dim=-1)[targets[t]] for t in range(len(targets))]
mean_loss = summed.item() / len(targets)
print(f"untrained: summed loss {summed.item():.2f} over {len(targets)} steps, {mean_loss:.2f} nats per character")

# %% [markdown]
# Here is that model unrolled over three steps (`dl4nlp.diagrams.unrolled_rnn` draws it from the
# model's own sizes): each column is one time step, and the same $E$, $W_e$, $W_h$ and $U$ serve every column.

# %%
unrolled_rnn(lm, steps=3).draw(title=f"RecurrentLM unrolled: {len(vocab)} characters, "
                                     f"{lm.embedding.embedding_dim}-dim embedding, {lm.recurrent.hidden_size} hidden units")
plt.show()

# %% [markdown]
# ### 1c. Training, and its perplexity against counting
#
# Now a short training run with the course's shared loop `dl4nlp.train.train` and the loss
# `dl4nlp.rnn.next_token_loss(model, windows)`: it feeds `windows[:, :-1]` and scores the
# predictions against `windows[:, 1:]`, exactly the shift above. We hold out the last 5% of the
# text, as chapter 02 did, and train on random 65-character windows of the rest: 100 Adam
# steps at learning rate $10^{-2}$, gradients clipped at norm 1 (section 5 explains why), 32 windows per step
# (`dl4nlp.experiments.rnn.language_model`).

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Teacher forcing does not make this RNN parallel in time: $h^{(t)}$ needs
# $h^{(t-1)}$, so the forward pass still runs 64 steps one after another (and the backward pass
# 64 steps back). What it saves is sampling: no prediction has to be drawn and fed back during
# training. The lecture's point is the converse: a network whose only recurrence goes from the
# *output* at $t-1$ to step $t$ (no hidden-to-hidden connection) can, with teacher forcing, be
# trained at every step at once, because the true previous output is known in advance. Ours
# has hidden-to-hidden recurrence, so it cannot.

# %%
lm_run = experiment.language_model(seed=0)
fig, ax = plt.subplots(figsize=(7, 3.6))
ax.plot(lm_run.losses, label="training windows")
ax.axhline(lm_run.heldout_loss, color="tab:green", linestyle="--", label="held-out text after training")
ax.set(xlabel="step", ylabel="loss (nats per character)", title="RNN language model, 64 hidden units")
ax.legend()
plt.show()

# %% [markdown]
# Chapter 02 defined the perplexity $e^{\text{loss}}$ and counted two baselines on the same
# training text, unigram and bigram models with add-one smoothing (`dl4nlp.ngram.count_model_loss`).
# Here all are scored on the RNN's 4,096 held-out predictions (64 windows of 65 characters).

# %%
rows = [("uniform over the vocabulary", math.log(lm_run.vocab_size)), ("unigram counts", lm_run.unigram_loss),
        ("bigram counts", lm_run.bigram_loss)]
for name, loss in rows:
    print(f"{name:>28}: loss {loss:.3f} nats, perplexity {perplexity(loss):5.1f}")
print(f"{'RNN, 100 training steps':>28}: loss {lm_run.heldout_loss:.3f} nats, "
      f"perplexity {perplexity(lm_run.heldout_loss):5.1f}")

# %% [markdown]
# In 100 steps the RNN's perplexity (between 7 and 9.5) is below the bigram model's 11.2, far
# below the unigram model's 28.7 and the vocabulary's 65: reading more than one character back
# already pays.
#
# ### 1d. Sampling from the model
#
# To generate, feed a start character, draw the next character from the softmax, feed it back,
# and repeat (`dl4nlp.rnn.sample`, which carries the hidden state from step to step). Dividing the
# logits by a *temperature* below 1 sharpens each step's distribution; above 1 flattens it.

# %%
print(lm_run.sample_text)
print(f"\nspaces: {lm_run.sample_space_fraction:.1%} of the sample, {lm_run.heldout_space_fraction:.1%} of held-out text; "
      f"{lm_run.sample_real_words:.0%} of the sample's words are words of the training text")

# %% [markdown]
# After 100 steps the model has learned the surface of the text, but not its words: spaces make
# up about the same share of the sample as of the held-out text, yet fewer than half of the
# sample's words occur anywhere in the training text.
#
# The same model at temperature 0.5 (try other temperatures and first characters):

# %%
print(vocab.decode(sample(lm_run.model, vocab.encode("\n"), 300, temperature=0.5,
                          generator=torch.Generator().manual_seed(1))))

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the RNN language model, and what it learns in 100 steps
difference_hand = (by_hand - by_torch).abs().max().item()
difference_library = (by_library - by_torch).abs().max().item()
claim(f"the loop by hand and dl4nlp.rnn.UnrolledRNN give nn.RNN's hidden states to within 1e-5 "
      f"({difference_hand:.0e}, {difference_library:.0e}), and nn.RNN's last state is its state at step 20",
      difference_hand < 1e-5 and difference_library < 1e-5 and bool(torch.allclose(h_last[0], by_torch[:, -1])))
claim(f"the summed loss {summed.item():.4f} is the sum of the {len(targets)} per-step losses ({sum(per_step).item():.4f})",
      abs(summed.item() - sum(per_step).item()) < 1e-3)
claim(f"untrained, the model pays {mean_loss:.3f} nats per character, within 0.2 of log 65 = {math.log(65):.3f}",
      abs(mean_loss - math.log(len(vocab))) < 0.2)
first_loss, last_losses = lm_run.losses[0], float(np.mean(lm_run.losses[-10:]))
claim(f"the held-out text is disjoint from the training text: {lm_run.heldout_windows_in_training} of its 64 windows "
      f"occur in the training part", lm_run.heldout_windows_in_training == 0)
claim(f"in 100 steps the training loss falls by more than 1.5 nats: from {first_loss:.2f} to {last_losses:.2f} "
      f"(mean of the last 10 steps)", last_losses < first_loss - 1.5)
ppl_rnn, ppl_bigram, ppl_unigram = (perplexity(x) for x in (lm_run.heldout_loss, lm_run.bigram_loss, lm_run.unigram_loss))
claim(f"held-out perplexity: RNN {ppl_rnn:.1f} (between 7 and 9.5) < 0.85 × bigram {ppl_bigram:.1f}; "
      f"bigram < half of unigram {ppl_unigram:.1f} < half of 65",
      7 < ppl_rnn < 9.5 and ppl_rnn < experiment.RNN_BELOW_BIGRAM * ppl_bigram
      and ppl_bigram < 0.5 * ppl_unigram < 0.5 * lm_run.vocab_size)
claim(f"the baselines are chapter 02's count models on these 4,096 predictions: bigram {ppl_bigram:.1f} rounds to 11, "
      f"unigram {ppl_unigram:.1f} to 29, over {lm_run.vocab_size} characters",
      round(ppl_bigram) == 11 and round(ppl_unigram) == 29 and lm_run.vocab_size == 65)
claim(f"spaces are {lm_run.sample_space_fraction:.1%} of the sample and {lm_run.heldout_space_fraction:.1%} of held-out "
      f"text, within 5 points (a uniform model would give 1.5%)",
      abs(lm_run.sample_space_fraction - lm_run.heldout_space_fraction) < experiment.SPACE_TOLERANCE)
claim(f"fewer than half of the sample's words are words of the training text: {lm_run.sample_real_words:.0%}",
      lm_run.sample_real_words < experiment.REAL_WORDS)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. Backpropagation through time, by hand
#
# **Intuition.** Unrolled over $T$ steps, an RNN is a $T$-layer network whose layers all share
# one set of weights. Backpropagation through it (BPTT) is ordinary backpropagation through
# that deep network, with two twists: the hidden state $h^{(t)}$ sends its output *two* ways (to the
# prediction $\hat y^{(t)}$ and to the next step), so two gradients arrive at it and add; and every
# weight is used at every step, so its gradient is a **sum over time** of one contribution per step.
#
# **The maths.** Write $z^{(t)} = W_e x^{(t)} + W_h h^{(t-1)} + b$, $h^{(t)} = \tanh z^{(t)}$, scores
# $s^{(t)} = U h^{(t)} + c$, and $J = \sum_t -\log \operatorname{softmax}(s^{(t)})_{y^{(t)}}$. Let $\delta$ denote a gradient of $J$
# (a row vector per example). Going from $t = T$ down to $1$:
#
# $$\delta s^{(t)} = \operatorname{softmax}(s^{(t)}) - \operatorname{onehot}(y^{(t)}), \qquad
#   \delta h^{(t)} = \underbrace{\delta s^{(t)}\, U}_{\text{from } \hat y^{(t)}} + \underbrace{\delta z^{(t+1)}\, W_h}_{\text{from step } t+1},\quad \delta z^{(T+1)} = 0,$$
#
# $$\delta z^{(t)} = \delta h^{(t)} \odot \bigl(1 - (h^{(t)})^2\bigr),$$
#
# and the shared weights collect one term per step (with a batch, $\delta z^{(t)}$ is $(B, H)$ and the
# products below sum over the batch as well):
#
# $$\frac{\partial J}{\partial W_h} = \sum_{t=1}^{T} \delta z^{(t)\top} h^{(t-1)},\quad
#   \frac{\partial J}{\partial W_e} = \sum_{t=1}^{T} \delta z^{(t)\top} x^{(t)},\quad
#   \frac{\partial J}{\partial b} = \sum_{t=1}^{T} \delta z^{(t)},\quad
#   \frac{\partial J}{\partial U} = \sum_{t=1}^{T} \delta s^{(t)\top} h^{(t)},\quad
#   \frac{\partial J}{\partial c} = \sum_{t=1}^{T} \delta s^{(t)}.$$
#
# The recursion $\delta z^{(t)} = \bigl(\delta s^{(t)} U + \delta z^{(t+1)} W_h\bigr) \odot \tanh'$ is where the trouble of this chapter
# lives: the part of $\delta z^{(t)}$ that comes from a loss $k$ steps later has been multiplied by $W_h$
# and $\operatorname{diag}(\tanh')$ $k$ times.
#
# **Exercise 1.** Complete the backward loop. The forward pass (`dl4nlp.bptt.rnn_lm_forward`)
# gives the hidden states `H` (B, T+1, hidden), with `H[:, 0]` $= h^{(0)} = 0$, and the scores `S` (B, T, V);
# `x` is (B, T, inputs). Return the gradients of $J$ (summed over time and batch) for
# `W_e, W_h, b, U, c`, in that order. The check compares them with `torch.autograd` in float64.

# %%
def bptt(params, x, targets):
    W_e, W_h, U = params["W_e"], params["W_h"], params["U"]
    H, S = rnn_lm_forward(params, x)  # (B, T+1, hidden), (B, T, V)
    dS = torch.softmax(S, dim=-1) - nn.functional.one_hot(targets, S.shape[-1]).double()  # δs, (B, T, V)
    grads = {name: torch.zeros_like(value) for name, value in params.items()}
    dz_next = torch.zeros_like(H[:, 0])  # δz(T+1) = 0
    for t in reversed(range(x.shape[1])):  # code index t is step t+1; H[:, t+1] is h(t+1), H[:, t] is h(t)
        ds, h, h_prev = dS[:, t], H[:, t + 1], H[:, t]  # (B, V), (B, hidden), (B, hidden)
        # your code here: δh, δz, then add this step's term to each of the five gradients
        raise NotImplementedError
    return [grads[name] for name in ("W_e", "W_h", "b", "U", "c")]


bptt_params = init_rnn_lm_params(input_size=3, hidden_size=8, vocab_size=5, generator=torch.Generator().manual_seed(2))
bptt_x = torch.randn(4, 12, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))  # (B, T, I)
bptt_targets = torch.randint(0, 5, (4, 12), generator=torch.Generator().manual_seed(4))  # (B, T)
_, autograd_grads = rnn_lm_autograd_gradients(bptt_params, bptt_x, bptt_targets)
bptt_reference = torch.cat([autograd_grads[name].flatten() for name in ("W_e", "W_h", "b", "U", "c")])
bptt_names = [f"∂J/∂{name}{list(index)}" for name in ("W_e", "W_h", "b", "U", "c")
              for index in np.ndindex(*autograd_grads[name].shape)]  # one name per entry, e.g. ∂J/∂W_h[2, 3]
check("Exercise 1", lambda: torch.cat([g.flatten() for g in bptt(bptt_params, bptt_x, bptt_targets)]),
      bptt_reference, atol=1e-10, rtol=0, names=bptt_names);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def bptt(params, x, targets):
    W_e, W_h, U = params["W_e"], params["W_h"], params["U"]
    H, S = rnn_lm_forward(params, x)  # (B, T+1, hidden), (B, T, V)
    dS = torch.softmax(S, dim=-1) - nn.functional.one_hot(targets, S.shape[-1]).double()  # δs, (B, T, V)
    grads = {name: torch.zeros_like(value) for name, value in params.items()}
    dz_next = torch.zeros_like(H[:, 0])  # δz(T+1) = 0
    for t in reversed(range(x.shape[1])):  # code index t is step t+1; H[:, t+1] is h(t+1), H[:, t] is h(t)
        ds, h, h_prev = dS[:, t], H[:, t + 1], H[:, t]  # (B, V), (B, hidden), (B, hidden)
        dh = ds @ U + dz_next @ W_h  # two gradients arrive at h and add
        dz = dh * (1 - h**2)  # through tanh
        grads["W_h"] += dz.T @ h_prev  # shared weights: one term per step, summed over time
        grads["W_e"] += dz.T @ x[:, t]
        grads["b"] += dz.sum(dim=0)
        grads["U"] += ds.T @ h
        grads["c"] += ds.sum(dim=0)
        dz_next = dz
    return [grads[name] for name in ("W_e", "W_h", "b", "U", "c")]


assert check("Exercise 1", lambda: torch.cat([g.flatten() for g in bptt(bptt_params, bptt_x, bptt_targets)]),
             bptt_reference, atol=1e-10, rtol=0, names=bptt_names)

# %% [markdown]
# The library's version, `dl4nlp.bptt.rnn_lm_gradients` (no autograd anywhere in it), also gives
# the gradients of the inputs $x^{(t)}$ and of $h^{(0)}$. On a longer sequence (50 steps) all seven
# agree with `torch.autograd` in float64, to the rounding error of a computation of that size.

# %%
long_x = torch.randn(4, 50, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
long_targets = torch.randint(0, 5, (4, 50), generator=torch.Generator().manual_seed(6))
loss_by_hand, grads_by_hand = rnn_lm_gradients(bptt_params, long_x, long_targets)
loss_autograd, grads_autograd = rnn_lm_autograd_gradients(bptt_params, long_x, long_targets)
largest = max((grads_by_hand[name] - grads_autograd[name]).abs().max().item() for name in grads_by_hand)
print(f"{len(grads_by_hand)} gradients over 50 steps; largest difference from autograd: {largest:.0e}")

# %% [markdown]
# ### Training on a whole book: truncated BPTT
#
# Backpropagating through a whole book at once would keep a million hidden states in memory.
# **Truncated BPTT** (Williams & Peng, 1990) reads the book as 32 streams side by side, in chunks
# of $k = 32$ characters, and takes one optimiser step per chunk. The last hidden state of a chunk
# starts the next one *as a value*, `state.detach()`: the forward pass runs through the whole
# stream, but no gradient crosses a chunk boundary.
#
# **Exercise 1b (you build it).** Complete the loop. For each chunk: `logits, state = model(chunk,
# state)`, the mean cross-entropy against the chunk's targets, `optimiser.zero_grad()`,
# `loss.backward()`, `torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)`,
# `optimiser.step()`, then detach the state. The check trains a tiny model with your loop and with
# `dl4nlp.bptt.train_truncated_bptt`, names the first weight that differs, and says which step is missing.

# %%
def train_truncated(model, streams, k, optimiser, clip_norm):
    """One optimiser step per chunk of k positions of streams (B, L+1); returns each chunk's loss."""
    inputs, targets = streams[:, :-1], streams[:, 1:]  # (B, L) each
    state, losses = None, []
    for start in range(0, inputs.shape[1], k):
        chunk, chunk_targets = inputs[:, start : start + k], targets[:, start : start + k]  # (B, k)
        raise NotImplementedError  # your code here
    return losses


solved_1b = check_truncated_training("Exercise 1b", train_truncated)

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1b
def train_truncated(model, streams, k, optimiser, clip_norm):
    """One optimiser step per chunk of k positions of streams (B, L+1); returns each chunk's loss."""
    inputs, targets = streams[:, :-1], streams[:, 1:]  # (B, L) each
    state, losses = None, []
    for start in range(0, inputs.shape[1], k):
        chunk, chunk_targets = inputs[:, start : start + k], targets[:, start : start + k]  # (B, k)
        logits, state = model(chunk, state)  # (B, k, V), starting from the carried state
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), chunk_targets.flatten())
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        optimiser.step()
        state = state.detach()  # keep the value, cut the graph
        losses.append(loss.item())
    return losses


solved_1b = check_truncated_training("Exercise 1b", train_truncated)
assert check("Exercise 1b (all weights equal the reference's)", solved_1b, True)

# %%
# Your loop trains section 1's model on the book: 32 streams of the training text, 40 chunks of 32 characters each
book = attempt(lambda: experiment.book_training(train_truncated, seed=0),
               lambda: experiment.book_training(train_truncated_bptt, seed=0), name="Exercise 1b", solved=solved_1b)
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.plot(range(1, len(book.losses) + 1), book.losses, label="each chunk, before its step")
ax.axhline(book.heldout_loss, color="tab:green", linestyle="--", label="held-out text after training")
ax.set(xlabel="chunk (one optimiser step each)", ylabel="loss (nats per character)",
       title=f"Truncated BPTT through {book.characters:,} characters of the book")
ax.legend()
plt.show()
print(f"held-out perplexity after {len(book.losses)} steps: {perplexity(book.heldout_loss):.1f}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: backpropagation through time by hand equals autograd
BPTT_TERMS = 50 * 4 * 16  # steps × batch × (hidden + vocabulary + inputs): the terms each gradient sums
claim(f"the loss by hand ({loss_by_hand.item():.6f}) equals autograd's to the rounding of {BPTT_TERMS:,} terms",
      agree(loss_by_hand, loss_autograd, terms=BPTT_TERMS))
claim(f"all {len(grads_by_hand)} gradients of dl4nlp.bptt.rnn_lm_gradients ({', '.join(grads_by_hand)}) equal "
      f"autograd's to the rounding of {BPTT_TERMS:,} float64 terms (largest difference {largest:.0e})",
      all(agree(grad, grads_autograd[name], terms=BPTT_TERMS) for name, grad in grads_by_hand.items()))
claim(f"truncated BPTT through {book.characters:,} characters (32 streams × 40 chunks × 32) lowers the loss by more "
      f"than 1.5 nats: {book.losses[0]:.2f} to {np.mean(book.losses[-10:]):.2f} (mean of the last 10 chunks)",
      book.characters == 40_960 and np.mean(book.losses[-10:]) < book.losses[0] - 1.5)
claim(f"the streams stay in the training text (they end at character {book.streams_end:,}, the held-out part starts "
      f"at {book.heldout_start:,}); held-out perplexity {perplexity(book.heldout_loss):.1f}, between 9 and 12.5",
      book.streams_end < book.heldout_start and 9 < perplexity(book.heldout_loss) < 12.5)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Backpropagation through time is a product of Jacobians
#
# Follow one loss, at the last step $T$, back to step $t$. One step back multiplies by the Jacobian
#
# $$\frac{\partial h^{(k)}}{\partial h^{(k-1)}} = \operatorname{diag}\!\bigl(\tanh'(z^{(k)})\bigr)\, W_h ,$$
#
# so the influence of $h^{(t)}$ on $h^{(T)}$ is a product of $T-t$ such factors, the latest step first:
#
# $$\frac{\partial h^{(T)}}{\partial h^{(t)}} = \frac{\partial h^{(T)}}{\partial h^{(T-1)}}\,\frac{\partial h^{(T-1)}}{\partial h^{(T-2)}} \cdots \frac{\partial h^{(t+1)}}{\partial h^{(t)}},
# \qquad
# \frac{\partial J^{(T)}}{\partial h^{(t)}} = \frac{\partial J^{(T)}}{\partial h^{(T)}}\,\frac{\partial h^{(T)}}{\partial h^{(t)}} .$$
#
# (Matrices do not commute, so the order is part of the formula.) The total gradient of a weight
# sums such contributions over all steps.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The lecture slides write the same chain in the opposite order,
# $\frac{\partial J^{(4)}}{\partial h^{(1)}} = \frac{\partial h^{(2)}}{\partial h^{(1)}} \times \frac{\partial h^{(3)}}{\partial h^{(2)}} \times \frac{\partial h^{(4)}}{\partial h^{(3)}} \times \frac{\partial J^{(4)}}{\partial h^{(4)}}$: they treat gradients as
# columns and each factor as the transpose of our Jacobian, and $(AB)^\top = B^\top A^\top$ reverses a
# product. Both are right; what is wrong is mixing the two, e.g. our Jacobians in the slides' order.

# %% [markdown]
# **Exercise 2.** Compute one factor by hand (no autograd): the Jacobian of
# $h = \tanh(W_h h_{\text{prev}} + W_e e + b)$ with respect to $h_{\text{prev}}$, which is
# $\operatorname{diag}(1 - h^2)\,W_h$, for the single example below. Return the $4 \times 4$ matrix; the
# check compares it with `torch.autograd.functional.jacobian`.

# %%
generator = torch.Generator().manual_seed(3)
W_h_ex = torch.randn(4, 4, generator=generator, dtype=torch.float64) * 0.5
W_e_ex = torch.randn(4, 3, generator=generator, dtype=torch.float64)
e_ex = torch.randn(3, generator=generator, dtype=torch.float64)
h_prev_ex = torch.randn(4, generator=generator, dtype=torch.float64) * 0.5


def step_ex(h_prev):
    return torch.tanh(W_h_ex @ h_prev + W_e_ex @ e_ex)


jacobian_reference = torch.autograd.functional.jacobian(step_ex, h_prev_ex)
jacobian_names = [f"∂h[{i}]/∂h_prev[{j}]" for i in range(4) for j in range(4)]


def exercise_2():
    raise NotImplementedError  # your code here


check("Exercise 2", lambda: exercise_2().flatten(), jacobian_reference.flatten(), names=jacobian_names);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    h = step_ex(h_prev_ex)
    return torch.diag(1 - h**2) @ W_h_ex  # row i of W_h scaled by tanh'(z_i)


assert check("Exercise 2", lambda: exercise_2().flatten(), jacobian_reference.flatten(), names=jacobian_names)

# %% [markdown]
# `dl4nlp.rnn.jacobian_norms(W_h, steps)` runs an RNN with random inputs in
# float64, forms the product of such factors and returns its spectral norm $\lVert\partial h^{(T)}/\partial h^{(T-k)}\rVert_2$
# for every distance $k$. We choose $W_h = \rho\,Q$ with $Q$ a random orthogonal
# matrix, so every eigenvalue of $W_h$ has modulus exactly $\rho$ (its *spectral radius*).
# Without the nonlinearity the answer is known in closed form: $\lVert(\rho Q)^k\rVert_2 = \rho^k$.
#
# **Exercise 3 (predict, then run).** With $\rho = 1$ every eigenvalue has modulus exactly 1, so
# without $\tanh$ the product keeps its size forever. *With* $\tanh$, will the influence of a step 60
# steps back fall below one millionth ($10^{-6}$)? Set `prediction_3` to `True` or `False` before
# running the next cell, which runs five radii (`dl4nlp.experiments.rnn.jacobian_products`) and
# checks your prediction.

# %%
prediction_3 = None  # True: with tanh and ρ = 1, ‖∂h(T)/∂h(T-60)‖ < 1e-6

jacobians = experiment.jacobian_products(seed=0)
radii, distance = jacobians.radii, jacobians.distance
end = {rho: jacobians.tanh[rho][-1] for rho in radii}  # ‖∂h(T)/∂h(T-60)‖ with tanh
experiment.plot_jacobian_products(jacobians)
plt.show()
check("Exercise 3", prediction_3, end[1.0] < 1e-6);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
prediction_3 = True  # tanh' ≤ 1 shrinks every factor: the product vanishes even at ρ = 1
assert check("Exercise 3", prediction_3, end[1.0] < 1e-6)

# %% [markdown]
# On the left (no nonlinearity) each line is exactly $\rho^{T-t}$: straight on a log
# scale, down for $\rho < 1$, flat for $\rho = 1$, up for $\rho > 1$. On the right,
# $\tanh$ bends every line downwards: its derivative is at most 1, so each factor
# can only shrink the product further. Even $\rho = 1$ now vanishes, and $\rho = 1.5$
# ends at a few units instead of $1.5^{60} \approx 4\times10^{10}$, because larger weights push the units into
# $\tanh$'s flat tails, where $\tanh' \approx 0$. Only a large radius still explodes.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the product of Jacobians vanishes or explodes
k = np.arange(distance + 1)
claim("without tanh, ‖∂h(T)/∂h(T-k)‖ is ρ^k for every radius and distance, to a relative 1e-9",
      all(np.allclose(jacobians.linear[rho], rho**k, rtol=1e-9) for rho in radii))
claim("with tanh it never exceeds ρ^k (to a relative 1e-9)",
      all(np.all(np.array(jacobians.tanh[rho]) <= rho**k * (1 + 1e-9)) for rho in radii))
claim(f"with ρ ≤ 1 the influence of a step 60 back is below 1e-6: {', '.join(f'{end[r]:.1e}' for r in (0.5, 0.9, 1.0))}",
      all(end[rho] < experiment.VANISHED for rho in (0.5, 0.9, 1.0)))
claim(f"ρ = 1.5 ends above 1 ({end[1.5]:.1f}) but more than a billion times below 1.5^60 = {1.5**distance:.1e}; "
      f"ρ = 3 still explodes ({end[3.0]:.1e} > 1e3)", 1 < end[1.5] < 1e-9 * 1.5**distance and end[3.0] > 1e3)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. The eigenvalue argument
#
# Drop the nonlinearity for a moment. Then $\partial h^{(T)}/\partial h^{(t)} = W_h^{\,T-t}$,
# and the lecture's argument follows from the eigendecomposition. For a
# symmetric $W_h = Q\Lambda Q^\top$ with orthogonal $Q$ (a general diagonalisable
# matrix works the same with $Q^{-1}$ in place of $Q^\top$):
#
# $$W_h^{\,k} = \underbrace{Q\Lambda Q^\top\, Q\Lambda Q^\top \cdots Q\Lambda Q^\top}_{k\ \text{times}} = Q\,\Lambda^{k}\,Q^\top,
# \qquad \Lambda^k = \operatorname{diag}(\lambda_1^k, \dots, \lambda_D^k),$$
#
# because every inner $Q^\top Q$ is the identity. Each direction $q_s$ is scaled
# by $\lambda_s^k$: eigenvalues above 1 explode, eigenvalues below 1 vanish, and
# only $|\lambda| = 1$ keeps a signal's size over long distances.
#
# First, a numerical check of $W^k = Q \Lambda^k Q^\top$ for $k = 100$ and eigenvalues 1.01, 0.99, 0.9, 0.5 and −0.8:

# %%
generator = torch.Generator().manual_seed(1)
Q, _ = torch.linalg.qr(torch.randn(5, 5, generator=generator, dtype=torch.float64))
eigenvalues = torch.tensor([1.01, 0.99, 0.9, 0.5, -0.8], dtype=torch.float64)
W = Q @ torch.diag(eigenvalues) @ Q.T
power = torch.linalg.matrix_power(W, 100)
by_eigenvalues = Q @ torch.diag(eigenvalues**100) @ Q.T
print(f"largest difference between W^100 and Q Λ^100 Qᵀ: {(power - by_eigenvalues).abs().max().item():.0e}")

# %% [markdown]
# The lecture's two numbers, $1.01^{1000}$ and $0.99^{1000}$, computed *exactly*
# (as fractions, then printed to 20 significant digits) and with floating point:

# %%
# NBVAL_CHECK_OUTPUT
getcontext().prec = 20
exact_up = Fraction(101, 100) ** 1000
exact_down = Fraction(99, 100) ** 1000
up = Decimal(exact_up.numerator) / Decimal(exact_up.denominator)
down = Decimal(exact_down.numerator) / Decimal(exact_down.denominator)
print(f"1.01^1000 = {up}   (float64: {1.01**1000:.10g}; slides: ≈ 20,000)")
print(f"0.99^1000 = {down:.20E}   (float64: {0.99**1000:.10g}; slides: ≈ 0)")

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** So the slide's "≈ 20,000" is $1.01^{1000} = 20\,959.16$ rounded to one significant
# figure (about 5% low), and its "≈ 0" is $0.99^{1000} = 4.317 \times 10^{-5}$, small but not
# zero. The asymmetry is worth noticing: a 1% excess per step multiplies a signal
# by twenty thousand over 1000 steps, a 1% deficit divides it by twenty-three thousand.

# %% [markdown]
# **Exercise 4.** A signal is multiplied by $0.9$ at every step back in time. After how
# many steps $k$ is it first smaller than one thousandth of its original size?
# Return the smallest integer $k$ with $0.9^k < 10^{-3}$ (use logarithms, not a loop).

# %%
def exercise_4():
    raise NotImplementedError  # your code here


check("Exercise 4", exercise_4, min(k for k in range(1000) if 0.9**k < 1e-3));

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 4
def exercise_4():
    # 0.9^k < 1e-3  <=>  k log(0.9) < log(1e-3)  <=>  k > log(1e-3) / log(0.9) = 65.56 (log 0.9 < 0 flips the sign)
    return math.floor(math.log(1e-3) / math.log(0.9)) + 1


assert check("Exercise 4", exercise_4, min(k for k in range(1000) if 0.9**k < 1e-3))

# %% [markdown]
# ### Play with it
#
# Choose an eigenvalue $\lambda$ and a distance $k$. The curve shows $\log_{10}|\lambda|^j = j\,\log_{10}|\lambda|$ for
# $j = 0 \dots k$ (a straight line, which keeps $1.5^{2000} \approx 10^{352}$, far beyond the largest
# float, on the chart); the title gives the value at $k$.

# %%
def power_of(eigenvalue, k):
    """|λ|^k as (mantissa, exponent of ten), computed with logarithms so that it never overflows."""
    if eigenvalue == 0 or not isinstance(k, int) or k < 1:
        raise ValueError(f"need λ ≠ 0 and an integer k ≥ 1; got λ = {eigenvalue!r}, k = {k!r}")
    exponent = k * math.log10(abs(eigenvalue))
    return 10 ** (exponent - math.floor(exponent)), math.floor(exponent)


power_figure, power_axes = plt.subplots(figsize=(7, 3.6))  # laid out once: a redraw only moves the line
(power_line,) = power_axes.plot([], [])
power_axes.axhline(0.0, color="grey", linestyle="--", linewidth=1)
power_axes.set(xlabel="distance j", ylabel="log₁₀ |λ|ʲ")
plt.close(power_figure)  # shown by the widget below, not here


def draw_power(eigenvalue, k):
    """log10 |λ|^j for j = 0..k (the widget's plain function): new data on the same axes."""
    mantissa, exponent = power_of(eigenvalue, k)
    j = np.arange(k + 1)
    power_line.set_data(j, j * math.log10(abs(eigenvalue)))
    power_axes.relim()
    power_axes.autoscale_view()
    power_axes.set_title(f"λ = {eigenvalue:g}:  λ^{k} = {mantissa:.4f} × 10^{exponent}")
    return power_figure


for eigenvalue, k in [(1.01, 1000), (0.99, 1000), (1.5, 2000), (0.5, 2000)]:
    mantissa, exponent = power_of(eigenvalue, k)
    print(f"{eigenvalue}^{k} = {mantissa:.4f} × 10^{exponent}")

# %%
interactive_figure(
    draw_power,
    eigenvalue=widgets.FloatSlider(value=0.99, min=0.5, max=1.5, step=0.01, description="λ"),
    k=widgets.IntSlider(value=1000, min=1, max=2000, step=1, description="k"),
)

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: powers of a matrix are powers of its eigenvalues
POWER_TERMS = 100 * 5  # 100 matrix products of 5-term dot products
claim(f"W^100 equals Q Λ^100 Qᵀ to the rounding of {POWER_TERMS} float64 terms "
      f"(largest difference {(power - by_eigenvalues).abs().max().item():.0e})",
      agree(power, by_eigenvalues, terms=POWER_TERMS))
claim("the eigenvalues of W are the five chosen ones, to the rounding of 25 terms",
      agree(torch.linalg.eigvalsh(W), eigenvalues.sort().values, terms=25))
claim(f"1.01^1000 = {float(up):.6f} and 0.99^1000 = {float(down):.10e}, exactly to 20 digits",
      abs(float(up) - 20959.155637813660) < 1e-6 and abs(float(down) - 4.3171247410658e-05) < 1e-16)
claim(f"the slides' '≈ 20,000' is 1.01^1000 rounded to one significant figure, {1 - 20_000 / float(up):.1%} low; "
      f"'≈ 0' is {float(down):.2e}, below 1e-4",
      round(float(up), -4) == 20_000 and 0.04 < 1 - 20_000 / float(up) < 0.05 and float(down) < 1e-4)
claim(f"a 1% deficit per step divides a signal by about 23 thousand over 1000 steps ({1 / float(down):,.0f})",
      round(1 / float(down), -3) == 23_000)
claim("the widget's logarithms give 1.01^1000 to a relative 1e-6",
      abs(power_of(1.01, 1000)[0] * 10 ** power_of(1.01, 1000)[1] - float(up)) < 1e-6 * float(up))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Exploding gradients: a cliff, and clipping
#
# **Intuition.** Section 3 showed where an exploding gradient comes from: the product of
# Jacobians over many steps grows when the recurrent weights are large and the units are not
# saturated. Pascanu et al. (2013) call this the explosion of the *long-term components*, and
# they hypothesise what it looks like on the loss surface: where the gradient explodes, the
# curvature explodes with it, and the surface has a *wall* (a cliff), a narrow region where
# the loss changes abruptly. A gradient step taken on the wall throws the parameters far away
# and can undo all progress. The cliff is the picture of the explosion, not its cause.
#
# Here is the one-unit example of Pascanu et al. (2013): $x^{(t)} = w\,\sigma(x^{(t-1)}) + b$ for 50
# steps from $x^{(0)} = 0.5$, and the loss $\bigl(\sigma(x^{(50)}) - 0.7\bigr)^2$. Near $w \approx 4.8$, $b = -2.5$ the
# system switches from one stable state to another, and the loss falls off a wall.

# %%
def one_unit_loss(w, b, steps=50, x0=0.5, target=0.7):
    x = torch.full_like(w, x0)
    for _ in range(steps):
        x = w * torch.sigmoid(x) + b
    return (torch.sigmoid(x) - target) ** 2


W_grid, B_grid = torch.meshgrid(torch.linspace(-2, 12, 281, dtype=torch.float64),
                                torch.linspace(-6, 2, 161, dtype=torch.float64), indexing="ij")
surface = one_unit_loss(W_grid, B_grid)
w_line = torch.linspace(-2, 12, 14001, dtype=torch.float64, requires_grad=True)
line_loss = one_unit_loss(w_line, torch.full_like(w_line, -2.5))
(slope,) = torch.autograd.grad(line_loss.sum(), w_line)

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2))
contour = left.contourf(W_grid.numpy(), B_grid.numpy(), surface.numpy(), levels=40, cmap="viridis")
fig.colorbar(contour, ax=left)
left.axhline(-2.5, color="white", linestyle="--", linewidth=1)
left.set(xlabel="w", ylabel="b", title="loss over (w, b): a cliff along a line")
left.grid(False)
right.plot(w_line.detach(), line_loss.detach(), label="loss at b = −2.5")
right.set(xlabel="w", ylabel="loss")
twin = right.twinx()
twin.semilogy(w_line.detach(), slope.abs() + 1e-12, color="tab:red", linewidth=1, label="|∂loss/∂w|")
twin.set_ylabel("|∂loss/∂w| (log scale)", color="tab:red")
twin.grid(False)
right.set_title("a slice through the cliff")
plt.show()

cliff = slope.abs().argmax()
elsewhere = slope.abs()[(w_line - w_line[cliff]).abs() > 1].median()
print(f"steepest |∂loss/∂w| = {slope.abs().max():.3g} at w = {w_line[cliff]:.3f}; "
      f"median more than 1 away from the wall: {elsewhere:.2g}")

# %% [markdown]
# On the wall the gradient is thousands of times larger than a unit away from it.
#
# **Gradient clipping by norm** (Pascanu et al., 2013) keeps the step's direction
# but caps its length: with threshold $\theta$,
#
# $$g \leftarrow g \cdot \min\!\left(1, \frac{\theta}{\lVert g\rVert}\right).$$
#
# **Exercise 5.** Clip a list of gradient tensors to a global norm of at most
# `max_norm` by hand: compute the norm over all entries of all tensors, and if it
# exceeds `max_norm`, scale every tensor by `max_norm / norm`. Return the list of
# clipped tensors for the gradients below with `max_norm = 2.0`. The check compares
# them with `torch.nn.utils.clip_grad_norm_`, which `dl4nlp.train.train` applies when given `clip_norm`.
# PyTorch's version divides by $\lVert g\rVert + 10^{-6}$ rather than by $\lVert g\rVert$ (against
# dividing by zero), so it agrees with the formula to about one part in $10^{7}$ here, within
# the check's tolerance; with norms near $10^{-6}$ the two differ (the check cell shows one).

# %%
grads_ex = [torch.tensor([3.0, 4.0]), torch.tensor([[12.0]]), torch.tensor([0.0, 0.0, 0.0])]
reference_params = [nn.Parameter(torch.zeros_like(g)) for g in grads_ex]
for p, g in zip(reference_params, grads_ex):
    p.grad = g.clone()
torch.nn.utils.clip_grad_norm_(reference_params, max_norm=2.0)
clipped_reference = torch.cat([p.grad.flatten() for p in reference_params])
clipped_names = ["first[0]", "first[1]", "second[0, 0]", "third[0]", "third[1]", "third[2]"]


def exercise_5(grads, max_norm):
    raise NotImplementedError  # your code here


check("Exercise 5", lambda: torch.cat([g.flatten() for g in exercise_5(grads_ex, 2.0)]), clipped_reference,
      names=clipped_names);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 5
def exercise_5(grads, max_norm):
    norm = math.sqrt(sum((g**2).sum().item() for g in grads))  # sqrt(9 + 16 + 144) = 13
    scale = min(1.0, max_norm / norm)
    return [g * scale for g in grads]


assert check("Exercise 5", lambda: torch.cat([g.flatten() for g in exercise_5(grads_ex, 2.0)]), clipped_reference,
             names=clipped_names)

# %% [markdown]
# Now real runs. An "IRNN" (a ReLU RNN whose recurrent matrix starts at the identity; section 6)
# learns the memory task of section 6 at lag 30 by SGD with momentum (learning rate 0.02, momentum
# 0.9, 300 steps). Nothing bounds a ReLU unit, so one step on a cliff can make the loss overflow to
# infinity; the training loop then stops the run (it *diverged*). A step that does not overflow
# can still throw the weights so far that the network predicts the same distribution for every
# sequence, stuck at the loss $\log 4 \approx 1.39$ of guessing among four classes.
# `dl4nlp.experiments.rnn.clipping` trains four such models, each once without and once with the
# gradient clipped to norm 1.

# %%
clip_run = experiment.clipping(seed=0)
experiment.plot_clipping(clip_run)
plt.show()
for name, runs in [("no clipping", clip_run.unclipped), ("clipped at norm 1", clip_run.clipped)]:
    print(f"{name:>18}: final losses", ", ".join(f"{clip_run.final(r):.2f}" for r in runs))

# %% [markdown]
# Without clipping, at least three of the four runs fail: they diverge, or end stuck above 1.3
# nats. With clipping, none diverges and at least three of the four learn (the mean of their last
# 20 losses ends below 0.9 nats). Training next to a cliff amplifies every rounding, so the same
# run can end differently on another computer; "none diverges, at least three learn" holds on all.
#
# **Over 32 seeds** (trained beforehand, about nine minutes; `dl4nlp.experiments.rnn.load_seed_sweep`):
# none of the 128 clipped runs diverges, six stay stuck between 1.0 and 1.4 nats (log 4 is 1.39),
# and on every seed at least three of four learn with clipping and fail without. Clipping stops
# the explosion; it does not promise that a run learns.

# %%
seed_sweep = experiment.load_seed_sweep()
sweep_counts = experiment.seed_sweep_counts(seed_sweep)
stuck = sorted(x for row in seed_sweep["seeds"] for x in row["clipped_final"] if x >= experiment.CLIPPED_FINAL)
print(f"{sweep_counts.clipped_runs} clipped runs: {sweep_counts.clipped_diverged} diverged, "
      f"{sweep_counts.clipped_stuck} stuck (final losses {', '.join(f'{x:.2f}' for x in stuck)}); "
      f"at least 3 of 4 learned in {sweep_counts.sets_with_clipped_learning} of {sweep_counts.seeds} seeds")
print(f"unclipped: at least 3 of 4 failed in {sweep_counts.sets_with_unclipped_failing} of {sweep_counts.seeds} seeds")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: a cliff, and what clipping does (and does not) promise
claim(f"on the wall (w = {w_line[cliff].item():.2f}, between 4 and 5.5) the gradient {slope.abs().max().item():.0f} is "
      f"more than 1000 times its median a unit away ({elsewhere.item():.2g})",
      bool(slope.abs().max() > 1000 * elsewhere) and 4.0 < w_line[cliff].item() < 5.5)
clip_params = [nn.Parameter(torch.zeros(3)), nn.Parameter(torch.zeros(2, 2))]
clip_params[0].grad = torch.tensor([30.0, -40.0, 0.0])
clip_params[1].grad = torch.full((2, 2), 60.0)
norm_before = torch.nn.utils.clip_grad_norm_(clip_params, max_norm=1.0)
claim(f"clip_grad_norm_ measures the norm √(30² + 40² + 4·60²) = 130 ({norm_before.item():.4f}) and multiplies every "
      f"gradient by 1 / (130 + 1e-6), not by exactly 1 / 130 (the difference is below float32's resolution here)",
      abs(norm_before.item() - 130) < 1e-4
      and bool(torch.allclose(clip_params[0].grad, torch.tensor([30.0, -40.0, 0.0]) / (130 + 1e-6), rtol=1e-6, atol=0)))
tiny = [nn.Parameter(torch.zeros(1, dtype=torch.float64))]
tiny[0].grad = torch.tensor([2e-6], dtype=torch.float64)
torch.nn.utils.clip_grad_norm_(tiny, max_norm=1e-6)
claim(f"the 1e-6 shows where norms are tiny: clipping a gradient of norm 2e-6 at 1e-6 gives "
      f"{tiny[0].grad.item():.3g}, not 1e-6 (2e-6 × 1e-6 / 3e-6 = 6.67e-7)",
      abs(tiny[0].grad.item() - 2e-6 * 1e-6 / 3e-6) < 1e-15)
unclipped_final = [clip_run.final(r) for r in clip_run.unclipped]
clipped_final = [clip_run.final(r) for r in clip_run.clipped]
learned = sum(final < experiment.CLIPPED_FINAL for final in clipped_final)
claim(f"without clipping, at least 3 of the 4 runs fail (diverge or end above 1.3): {clip_run.unclipped_failed} "
      f"({', '.join(f'{x:.2f}' for x in unclipped_final)})", clip_run.unclipped_failed >= 3)
claim(f"with clipping, none of the 4 runs diverges ({sum(clip_run.clipped_diverged)} did)",
      not any(clip_run.clipped_diverged))
claim(f"with clipping, at least {experiment.CLIPPED_LEARN} of the 4 runs learn (end below 0.9): {learned} "
      f"({', '.join(f'{x:.2f}' for x in clipped_final)})", learned >= experiment.CLIPPED_LEARN == 3)
claim(f"over {sweep_counts.seeds} seeds, none of the {sweep_counts.clipped_runs} clipped runs diverged "
      f"({sweep_counts.clipped_diverged})",
      (sweep_counts.seeds, sweep_counts.clipped_runs, sweep_counts.clipped_diverged) == (32, 128, 0))
claim(f"{sweep_counts.clipped_stuck} clipped runs stayed stuck, ending between 1.0 and 1.4 "
      f"({stuck[0]:.2f} to {stuck[-1]:.2f})", sweep_counts.clipped_stuck == 6 and 1.0 < stuck[0] and stuck[-1] < 1.4)
claim(f"at least 3 of 4 clipped runs learned on {sweep_counts.sets_with_clipped_learning} of 32 seeds, and at least "
      f"3 of 4 unclipped runs failed on {sweep_counts.sets_with_unclipped_failing} of 32",
      sweep_counts.sets_with_clipped_learning == sweep_counts.sets_with_unclipped_failing == 32)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. How far back can a vanilla RNN remember?
#
# **Why it matters in language.** In "The keys that the man near the cabinets holds *are* ...", the
# verb agrees with "keys", seven words back, across a relative clause and two nouns that would
# pull it the wrong way. How far apart are a subject and the verb that agrees with it in real
# text? The English Web Treebank (4,078 sentences of blogs, emails and reviews, each parsed into
# a dependency tree by hand) tells us (`dl4nlp.dependency_trees`):

# %%
treebank = read_conllu("en_ewt-ud-dev.conllu") + read_conllu("en_ewt-ud-test.conllu")
pairs = subject_verb_pairs(treebank)  # each nominal subject with the finite verb that agrees with it
distance = [pair.distance for pair in pairs]
farther = {k: share_farther(distance, k) for k in range(1, 31)}
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.semilogy(list(farther), [max(v, 1e-4) for v in farther.values()], marker=".")
ax.set(xlabel="k (words)", ylabel="share of subject-verb pairs farther than k",
       title=f"{len(pairs):,} subjects and their verbs in {len(treebank):,} sentences")
plt.show()
print(f"farther than 5 words: {farther[5]:.1%}; than 10: {farther[10]:.1%}; longest: {max(distance)} words")
for pair in pairs:
    if pair.subject in ("item", "Israel") and pair.attractor:  # two real agreements across a plural noun
        print(f"  {pair.distance:>2} words: {describe(pair, treebank)}")

# %% [markdown]
# Most subjects sit right next to their verb, but 3% are more than 5 words away and 1% more than
# 10 (50 characters or more, for a model that reads characters). Those few are where a model that
# forgets gets the number wrong.
#
# **The task.** Each sequence starts with one of 4 *signal* tokens (0–3); then
# come $L$ random *distractor* tokens (4–11). After reading the whole sequence
# the model must say which signal it began with. Chance is 25%. The only way
# to succeed is to carry the signal across $L$ steps, and the only way to
# *learn* that is through a gradient that travels $L$ steps back.
# `dl4nlp.tasks.long_lag_task` draws batches:

# %%
# NBVAL_CHECK_OUTPUT
tokens, labels = long_lag_task(batch_size=3, lag=8, generator=torch.Generator().manual_seed(0))
for row, label in zip(tokens.tolist(), labels.tolist()):
    print(f"tokens {row}  ->  label {label}")

# %% [markdown]
# We compare three recurrent networks with 32 hidden units (`RecurrentClassifier`: embedding →
# `nn.RNN` → a linear read-out of the last hidden state) that differ **one thing at a time**:
#
# | network | nonlinearity | recurrent matrix $W_h$ at the start | spectral radius |
# |---|---|---|---|
# | tanh, default $W_h$ | $\tanh$ | PyTorch's default, uniform in $\pm 1/\sqrt{32}$ | about 0.6 (0.5 to 0.7) |
# | tanh, $W_h = I$ | $\tanh$ | the identity (orthogonal) | 1 |
# | IRNN | ReLU | the identity | 1 |
#
# Everything else starts equal: embedding, read-out, input weights $\sim\mathcal N(0, 0.1^2)$, zero
# biases (`dl4nlp.experiments.rnn.memory_model`). The third is the IRNN of Le, Jaitly & Hinton
# (2015). Each is trained afresh at each lag for 200 Adam steps (learning rate $3\times10^{-3}$,
# clipped at norm 1, batches of 64) and scored on 1000 held-out sequences minus those seen in
# training (`dl4nlp.experiments.rnn.memory_by_lag`). Lag 2 is left out: all its $4 \cdot 8^2 = 256$
# possible sequences occur in training. At lag 5, 60 to 120 held-out sequences were seen in training
# and are left out; at lags 10 and beyond none were. We trained these twelve networks (and one
# more IRNN) beforehand, in about half a minute; the notebook loads them and retrains the three at lag 20.

# %%
# NBVAL_CHECK_OUTPUT
radius = {}
for variant in experiment.VARIANTS:
    recurrent_weight = experiment.memory_model(variant, seed=0).recurrent.weight_hh_l0.detach()
    radius[variant] = torch.linalg.eigvals(recurrent_weight).abs().max().item()
    print(f"{variant:>22}: spectral radius of W_h at the start = {radius[variant]:.2f}")

# %%
lags = experiment.LAGS  # 5, 10, 20, 50
shipped = experiment.load_memory_by_lag(seed=0)  # memory_by_lag(seed=0) and irnn_learning_rate(seed=0), run beforehand
accuracy, irnn_larger_lr = shipped.run.accuracy, shipped.irnn_larger_lr
seen = shipped.run.heldout_in_training  # the same for every variant: they train on the same batches
print("held-out sequences left out because training saw them, by lag:", dict(zip(lags, seen)))
for variant, row in accuracy.items():
    print(f"{variant:>22}:", "  ".join(f"lag {lag}: {a:.2f}" for lag, a in zip(lags, row)))
print(f"IRNN at lag 50 with learning rate 1e-2 instead of 3e-3: {irnn_larger_lr:.2f}")
experiment.plot_memory_by_lag(accuracy, lags, irnn_larger_lr)
plt.show()

# %%
live = experiment.memory_by_lag(seed=0, lags=(20,))  # the three networks at lag 20, trained now
for variant in experiment.VARIANTS:
    print(f"{variant:>22}: lag 20 trained now {live.accuracy[variant][0]:.2f}, "
          f"beforehand {accuracy[variant][lags.index(20)]:.2f}")

# %% [markdown]
# A clue to the differences: the gradient that a freshly initialised model sends back to the
# first token (the signal), relative to the one at the last token, at lag 50
# (`dl4nlp.experiments.rnn.initial_gradient_ratio`):

# %%
start_ratio = experiment.initial_gradient_ratio(seed=0)
for variant, ratio in start_ratio.items():
    print(f"{variant:>22}: gradient at the signal / gradient at the last token = {ratio:.1e}")

# %% [markdown]
# What the runs show:
# - The tanh RNN with PyTorch's default $W_h$ remembers across 5 steps (accuracy above 0.95) but
#   is at chance (below 0.40; chance is 0.25) at lags 20 and 50. At initialisation its gradient
#   at the signal is more than ten orders of magnitude smaller than at the end.
# - Changing only $W_h$, to the identity, lifts lag 20 far above chance (above 0.6). At lag 50 it
#   is at chance, although its gradient at the signal starts between $10^{-3}$ and $10^{-1}$ of
#   the last one.
# - Changing then only the nonlinearity to ReLU (the IRNN) reaches lag 50 (above 0.5): an active
#   ReLU passes its gradient with slope exactly 1, so the gradient reaches the signal with more
#   than a tenth of its size. Identity initialisation needs both changes.
# - The IRNN is delicate: with a learning rate of $10^{-2}$ instead of $3\times10^{-3}$ it stays below
#   0.60 at lag 50. The lecture says the IRNN, trained by plain SGD, "requires a very small
#   learning rate (e.g., $10^{-8}$)". Adam divides each step by the gradient's running size, so
#   its $3\times10^{-3}$ is not comparable.
#
# Read the ratios as a clue, not a proof: measured before training, they sort the networks like
# their accuracies, but tanh with $W_h = I$ fails at lag 50 with a ratio of about $10^{-2}$.
# Chapter 04 measures the gradient after training.
#
# **Over 32 seeds** (loaded in section 5) the IRNN solves lag 50 (above 0.95) on 29 and reaches it
# (above 0.5) on all 32; its worst seed ends at 0.61. "Reaches it on every seed, solves it on most"
# is what holds on every computer.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: what lets an RNN remember across 20 and 50 steps
tanh_default, tanh_identity, irnn_name = experiment.VARIANTS
long_pairs = [pair for pair in pairs if pair.distance > 10]
item = next(pair for pair in pairs if (pair.subject, pair.verb) == ("item", "is"))
claim(f"the treebank gives {len(pairs):,} subject-verb pairs in {len(treebank):,} sentences; {farther[5]:.1%} are "
      f"farther than 5 words, {farther[10]:.1%} farther than 10 (3% and 1%), the longest {max(distance)}",
      (len(pairs), len(treebank), max(distance)) == (4017, 4078, 48) and round(farther[5], 2) == 0.03
      and round(farther[10], 2) == 0.01)
claim(f"every pair farther than 10 words spans at least 50 characters (fewest: {min(p.characters for p in long_pairs)})",
      min(p.characters for p in long_pairs) >= 50)
claim(f"'item ... is' agrees across {item.distance} words and the plural noun '{item.attractor}'",
      item.distance == 7 and item.attractor == "lists")
at = {lag: i for i, lag in enumerate(lags)}
claim(f"at the start, W_h's spectral radius is {radius[tanh_default]:.2f} (between 0.5 and 0.7) for PyTorch's default "
      f"and exactly 1 for W_h = I", 0.5 < radius[tanh_default] < 0.7 and radius[tanh_identity] == radius[irnn_name] == 1)
claim(f"the three networks train on the same batches; {seen[0]} held-out sequences at lag 5 (between 60 and 120) and "
      f"none at lags 10, 20, 50 were seen in training and left out",
      live.heldout_in_training == (seen[at[20]],) and 60 < seen[0] < 120 and seen[1:] == (0, 0, 0))
live_default, live_identity = live.accuracy[tanh_default][0], live.accuracy[tanh_identity][0]
claim(f"trained now, at lag 20 tanh with PyTorch's W_h is at chance ({live_default:.2f} < 0.40) and W_h = I far above "
      f"it ({live_identity:.2f} > 0.6), as in the runs trained beforehand",
      live_default < experiment.AT_CHANCE and live_identity > experiment.ABOVE_CHANCE)
claim(f"tanh with PyTorch's W_h remembers across 5 steps ({accuracy[tanh_default][at[5]]:.2f} > 0.95) but is at chance "
      f"at lags 20 and 50 ({accuracy[tanh_default][at[20]]:.2f}, {accuracy[tanh_default][at[50]]:.2f} < 0.40)",
      accuracy[tanh_default][at[5]] > experiment.SOLVED
      and max(accuracy[tanh_default][at[20]], accuracy[tanh_default][at[50]]) < experiment.AT_CHANCE)
claim(f"its gradient at the signal is more than ten orders of magnitude below the last token's "
      f"({start_ratio[tanh_default]:.1e})", start_ratio[tanh_default] < 1e-10)
claim(f"W_h = I lifts lag 20 far above chance ({accuracy[tanh_identity][at[20]]:.2f} > 0.6) but not lag 50 "
      f"({accuracy[tanh_identity][at[50]]:.2f} < 0.40); its gradient ratio {start_ratio[tanh_identity]:.1e} is "
      f"between 1e-3 and 1e-1",
      accuracy[tanh_identity][at[20]] > experiment.ABOVE_CHANCE and accuracy[tanh_identity][at[50]] < experiment.AT_CHANCE
      and 1e-3 < start_ratio[tanh_identity] < 1e-1)
claim(f"the IRNN reaches lag 50, at least twice chance ({accuracy[irnn_name][at[50]]:.2f} > 0.5), its gradient at the "
      f"signal more than a tenth of the last token's ({start_ratio[irnn_name]:.2f})",
      accuracy[irnn_name][at[50]] > experiment.REACHES and start_ratio[irnn_name] > 0.1)
claim(f"with learning rate 1e-2 the IRNN stays below 0.60 at lag 50 ({irnn_larger_lr:.2f})",
      irnn_larger_lr < experiment.FAILED_LR)
claim(f"over 32 seeds the IRNN solves lag 50 on {sweep_counts.irnn_solved} and reaches it on {sweep_counts.irnn_reached}; "
      f"its worst seed ends at {sweep_counts.irnn_lowest:.3f} (between 0.6 and 0.62)",
      (sweep_counts.irnn_solved, sweep_counts.irnn_reached) == (29, 32) and 0.6 < sweep_counts.irnn_lowest < 0.62)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - An RNN language model applies one cell at every position: $h^{(t)} = \tanh(W_h h^{(t-1)} + W_e e^{(t)} + b_1)$, $\hat y^{(t)} = \operatorname{softmax}(U h^{(t)} + b_2)$; our loop equals `nn.RNN`. Teacher forcing feeds the true tokens and sums the per-step losses.
# - After 100 steps our RNN reaches a held-out perplexity of about 8 on Shakespeare, against 11 for bigram counts, 29 for unigram counts and 65 for guessing.
# - BPTT is backpropagation through the unrolled network; each shared weight's gradient is a sum over time. Truncated BPTT (your loop) carries the state from chunk to chunk as a value and steps once per chunk.
# - The gradient from a loss $T - t$ steps later is multiplied by one $\operatorname{diag}(\tanh')\,W_h$ per step, so it scales like $\rho^{T-t}$: with $\rho \le 1$ a step 60 back gets less than a millionth. Exactly, $1.01^{1000} = 20\,959.16$ and $0.99^{1000} = 4.317\times10^{-5}$.
# - Exploding gradients are the same product growing; on the loss surface they show as walls (cliffs). Clipping the gradient's norm kept all 128 clipped runs of 32 seeds from diverging (6 got stuck); unclipped, at least three of four failed on every seed.
# - Agreement can span many words: 3% of the treebank's subjects are more than 5 words from their verb. With 32 units, a tanh RNN remembers across 5 steps but not 20; $W_h = I$ reaches 20 but not 50; the IRNN reaches 50 (solves it on 29 of 32 seeds), with a small enough learning rate.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What comes next
#
# Chapter 04 adds a second, additive path through time, the LSTM's cell state (and the GRU's
# simpler version of it), and solves the lags where these networks fail.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# - J. L. Elman, *Finding structure in time*, Cognitive Science (1990).
# - P. J. Werbos, *Backpropagation through time: what it does and how to do it*, Proc. IEEE (1990).
# - R. J. Williams, J. Peng, *An efficient gradient-based algorithm for on-line training of recurrent network trajectories*, Neural Computation (1990) (truncated BPTT).
# - Y. Bengio, P. Simard, P. Frasconi, *Learning long-term dependencies with gradient descent is difficult*, IEEE TNN (1994).
# - R. Pascanu, T. Mikolov, Y. Bengio, *On the difficulty of training recurrent neural networks*, ICML (2013).
# - Q. V. Le, N. Jaitly, G. E. Hinton, *A simple way to initialize recurrent networks of rectified linear units*, arXiv:1504.00941 (2015).
# - A. Karpathy, *The unreasonable effectiveness of recurrent neural networks* (2015), and *char-rnn*, character language models sampled like ours.
# - N. Silveira et al., *A gold standard dependency corpus for English*, LREC (2014) (the English Web Treebank, in Universal Dependencies).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further: the gradient that reaches each time step
#
# *Optional.* Section 3's story, seen from the loss: we run `UnrolledRNN` with $W_h = \rho Q$ over
# 60 steps, put a loss on the last hidden state only, and let autograd compute
# $\lVert\partial J^{(T)}/\partial e^{(t)}\rVert$, the gradient that arrives at each input
# (`dl4nlp.experiments.rnn.gradient_reaching_inputs`, built on `dl4nlp.gradflow.time_step_gradient_norms`).
# `plot_gradient_norms` (from chapter 01) draws it, now against time instead of depth.

# %%
reaching = experiment.gradient_reaching_inputs(seed=0)
plot_gradient_norms({f"ρ = {rho:g}": n for rho, n in reaching.norms.items()},
                    xlabel="time step t (the loss is at t = 60)",
                    title="Gradient of a loss at the last step, arriving at each input")
plt.show()
for rho, ratio in reaching.first_over_last.items():
    print(f"ρ = {rho:g}: gradient at t = 1 / gradient at t = 60 = {ratio:.1e}")

# %% [markdown]
# With $\rho \le 1$, the first input receives less than a millionth of the gradient the last
# input receives: whatever the first token said, the loss at the end barely moves the weights
# to remember it.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the gradient that reaches the first step
claim("with ρ ≤ 1 the first input receives less than a millionth of the last input's gradient: "
      + ", ".join(f"{reaching.first_over_last[r]:.1e}" for r in (0.5, 0.9, 1.0)),
      all(reaching.first_over_last[rho] < experiment.VANISHED for rho in (0.5, 0.9, 1.0)))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further: what $\tanh'$ does to the product
#
# *Optional.* Back to section 4's argument, with the nonlinearity, every factor carries $\operatorname{diag}(\tanh'(z))$, and
# $\tanh'(z) = 1 - \tanh^2(z) \le 1$ with equality only at $z = 0$. Hence
#
# $$\Bigl\lVert \frac{\partial h^{(T)}}{\partial h^{(t)}} \Bigr\rVert \le \prod_{k=t+1}^{T} \lVert \operatorname{diag}(\tanh'(z^{(k)}))\rVert\,\lVert W_h\rVert
#   \le \sigma_{\max}(W_h)^{\,T-t} .$$
#
# If the largest singular value of $W_h$ is below 1, the gradient *must* vanish
# exponentially (Pascanu, Mikolov & Bengio, 2013); above 1 it *may* explode, but
# saturated units ($\tanh' \approx 0$) often stop it, as the right-hand plot of section 3 showed.

# %%
z = torch.linspace(-6, 6, 12001, dtype=torch.float64)
tanh_slope = 1 - torch.tanh(z) ** 2
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(z, torch.tanh(z), label="tanh(z)")
ax.plot(z, tanh_slope, label="tanh'(z) = 1 − tanh²(z)")
ax.set_xlabel("z")
ax.legend()
plt.show()

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: tanh' never exceeds 1
claim("tanh' is at most 1, reached only at z = 0, and below 0.01 wherever |z| > 3 (saturated units pass almost no gradient)",
      tanh_slope.max().item() == 1.0 and abs(z[tanh_slope.argmax()].item()) < 1e-9
      and tanh_slope[z.abs() > 3].max().item() < 0.01)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further: truncated backpropagation through time
#
# *Optional.* Section 2's loop cut the graph every $k$ steps. By construction no gradient reaches
# further back than $k$ steps: no training signal ever links a prediction to a token more than $k$
# steps before it. That is not the same as "a dependency longer than $k$ can never be learned".
# The state is still carried forward (the lecture calls it "infinite memory"), so a mechanism
# learned *within* windows, such as a unit that switches on at a quotation mark and holds its
# value until the closing one, keeps working far beyond $k$. Chapter 05 measures exactly this on
# a character LSTM trained with $k = 128$: its quotation cell still marks characters 300 and
# more after the opening mark (AUC 0.75, chance 0.5). What truncation does prevent is learning a
# dependency that cannot be built up from pieces shorter than $k$. Here is the cut, made
# visible: 12 steps cut every 5 (windows 0–4, 5–9, 10–11), and a loss at the end.

# %%
def truncated_bptt_forward(cell, x, k):
    """Run an RNNCell over x (B, T, E), detaching the hidden state every k steps."""
    h = x.new_zeros(x.shape[0], cell.hidden_size)
    for t in range(x.shape[1]):
        if t % k == 0:
            h = h.detach()  # keep the value, cut the graph
        h = cell(x[:, t], h)
    return h


cell = UnrolledRNN(4, 8).cell
x = torch.randn(2, 12, 4, requires_grad=True)
truncated_bptt_forward(cell, x, k=5).sum().backward()
reached = x.grad.abs().sum(dim=(0, 2))  # gradient arriving at each of the 12 steps

# %%
# NBVAL_CHECK_OUTPUT
print("steps that receive gradient:", [t for t in range(12) if reached[t] > 0])

# %% [markdown]
# The loss's value is that of full BPTT (the forward pass is the same); only the graph is shorter.
# `dl4nlp.bptt.truncated_bptt_loss` computes it, the loss of your Exercise 1b chunk by chunk:

# %%
torch.manual_seed(0)
tiny_lm = RecurrentLM(6, hidden_size=4, kind="rnn", embedding_dim=3)
tiny_ids = torch.randint(0, 6, (2, 13), generator=torch.Generator().manual_seed(1))  # (B, T+1)
same_value = abs(truncated_bptt_loss(tiny_lm, tiny_ids, 4).item() - next_token_loss(tiny_lm, tiny_ids).item())
print(f"truncated every 4 steps and full: the two losses differ by {same_value:.0e}")

# %% [markdown]
# **Exercise 6 (predict, then run).** Section 6's memory task at lag 20: the signal is the first
# of 21 tokens and the loss sits after the last. Train section 6's IRNN twice on the same
# batches, once with full BPTT and once with the gradient cut every $k = 10$ steps, so that no
# gradient ever reaches the signal. Will the truncated one stay at chance (accuracy below
# 0.3, chance being 0.25)? Set `prediction_6` before running
# (`dl4nlp.experiments.rnn.truncated_memory`, about 5 s).

# %%
prediction_6 = None  # True: truncated at k = 10, the IRNN stays at chance at lag 20

cut = experiment.truncated_memory(seed=0)
print(f"lag {cut.lag}, held-out accuracy: full BPTT {cut.full:.2f}; gradient cut every {cut.k} steps {cut.truncated:.2f}")
check("Exercise 6", prediction_6, cut.truncated < 0.3);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 6
prediction_6 = False  # no gradient reaches the signal, yet the carried state does: the last window learns to keep it
assert check("Exercise 6", prediction_6, cut.truncated < 0.3)

# %% [markdown]
# It does not stay at chance. No gradient ever reaches the signal, but the signal does not need
# one to be *written*: the IRNN's random input weights already put the four signals into four
# different states, and the state is carried across the cut as a value. Inside the last window
# the gradient trains the network to keep whatever state arrives and the read-out to decode it,
# and the same shared weights do that at the early steps too. What the cut costs is everything
# that would have needed a gradient at the signal (a better encoding of it): the truncated run
# learns the task only partly, full BPTT solves it. Across seeds 0 to 3 the truncated runs ended
# at 0.56, 0.80, 0.38 and 0.74, full BPTT at 1.00 on every one.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: truncated BPTT stops the gradient at the cut, keeps the loss's value, and still learns across it
claim("a loss at the end sends gradient to the last window only: steps 0-9 receive exactly zero, steps 10 and 11 more",
      bool(torch.all(reached[:10] == 0)) and bool(torch.all(reached[10:] > 0)))
claim(f"the truncated loss equals the untruncated one in value (difference {same_value:.0e}, below 1e-6)",
      same_value < 1e-6)
claim(f"at lag 20, full BPTT solves the task ({cut.full:.2f} > 0.95); cut every 10 steps the IRNN learns above "
      f"chance but less ({cut.truncated:.2f}, between 0.3 and 0.9; chance 0.25)",
      cut.full > experiment.SOLVED and 0.3 < cut.truncated < 0.9 and cut.heldout_in_training == 0)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further: RMSProp and Nesterov momentum
#
# *Optional.* The lecture names two more optimisers for the steep-or-flat surfaces of RNNs.
# **RMSProp** divides each weight's step by a running root-mean-square of its recent gradients,
# so a weight whose gradient has been huge (on a wall) takes small steps and one whose gradient
# has been tiny takes larger ones:
#
# $$r \leftarrow \lambda r + (1-\lambda)\, g \odot g, \qquad \theta \leftarrow \theta - \frac{\eta}{\sqrt{r} + \epsilon} \odot g .$$
#
# **Nesterov momentum** evaluates the gradient where momentum is about to carry the weights, so
# it "brakes" before a wall rather than after. PyTorch writes it with a buffer $b$:
#
# $$b \leftarrow \mu b + g, \qquad \theta \leftarrow \theta - \eta\,(g + \mu b)$$
#
# (plain momentum steps by $\eta b$ instead). Adam, used in this chapter, combines a momentum
# buffer with RMSProp's scaling. Both rules, five steps on a badly scaled quadratic, against
# `torch.optim`:

# %%
def quadratic_gradient(theta):
    return torch.tensor([100.0, 1.0], dtype=torch.float64) * theta  # the loss (100 θ₀² + θ₁²) / 2


def run_by_hand(rule, steps=5, lr=0.01, decay=0.9, momentum=0.9, eps=1e-8):
    theta, r, b = torch.tensor([1.0, 1.0], dtype=torch.float64), torch.zeros(2, dtype=torch.float64), None
    for _ in range(steps):
        g = quadratic_gradient(theta)
        if rule == "rmsprop":
            r = decay * r + (1 - decay) * g * g
            theta = theta - lr * g / (r.sqrt() + eps)
        else:
            b = g if b is None else momentum * b + g
            theta = theta - lr * (g + momentum * b)
    return theta


def run_by_torch(rule, steps=5):
    theta = torch.tensor([1.0, 1.0], dtype=torch.float64, requires_grad=True)
    optimiser = (torch.optim.RMSprop([theta], lr=0.01, alpha=0.9, eps=1e-8) if rule == "rmsprop"
                 else torch.optim.SGD([theta], lr=0.01, momentum=0.9, nesterov=True))
    for _ in range(steps):
        optimiser.zero_grad()
        theta.grad = quadratic_gradient(theta.detach())
        optimiser.step()
    return theta.detach()


for rule in ("rmsprop", "nesterov"):
    hand, library = run_by_hand(rule), run_by_torch(rule)
    print(f"{rule:>8}: θ after 5 steps by hand ({hand[0]:.3f}, {hand[1]:.3f}), by torch.optim "
          f"({library[0]:.3f}, {library[1]:.3f})")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the update rules are torch.optim's
for rule in ("rmsprop", "nesterov"):
    claim(f"{rule}: the rule by hand equals torch.optim's over 5 steps (to the rounding of 20 float64 terms)",
          agree(run_by_hand(rule), run_by_torch(rule), terms=20))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further: keeping the state's size steady
#
# *Optional.* The lecture names two more answers to the IRNN's fragility, both about the size of
# the hidden state over time.
#
# **The norm-stabiliser** (Krueger & Memisevic, 2016) adds to the loss a penalty on how much the
# norm of the hidden state changes from one step to the next:
#
# $$\beta\,\frac{1}{T}\sum_{t=1}^{T}\bigl(\lVert h^{(t)}\rVert_2 - \lVert h^{(t-1)}\rVert_2\bigr)^2 .$$
#
# It fixes no particular norm; it asks the norm to stay about constant in time. The authors report
# that it stops an IRNN's activations from growing exponentially beyond the length it was trained
# on, so that it generalises to much longer sequences.
#
# **Unitary RNNs** (Arjovsky, Shah & Bengio, 2016) constrain $W_h$ itself: a unitary matrix has
# every eigenvalue of modulus exactly 1 and keeps the norm of every vector, so a linear recurrence
# neither shrinks nor grows a signal however long it runs (section 4's argument with every
# $|\lambda| = 1$). They build $W_h$ as a product of cheap structured unitary factors (diagonal
# phases, reflections, a permutation, Fourier transforms) acting on complex hidden states, so it
# stays unitary after every update. Below, the penalty, and a random unitary $W$ against $0.99\,W$
# over 1000 steps of $h \leftarrow W h$:

# %%
def norm_stabiliser(states, beta=1.0):
    """β · mean over t of (‖h(t)‖ − ‖h(t−1)‖)², for states (B, T+1, H) holding h(0) ... h(T)."""
    norms = torch.linalg.vector_norm(states, dim=-1)  # (B, T+1)
    return beta * (norms[:, 1:] - norms[:, :-1]).pow(2).mean()


by_hand_states = torch.tensor([[[1.0, 0.0], [0.0, 2.0], [2.0, 0.0], [0.0, 4.0]]])  # norms 1, 2, 2, 4
generator = torch.Generator().manual_seed(0)
W_unitary, _ = torch.linalg.qr(torch.randn(32, 32, dtype=torch.complex128, generator=generator))
h_start = torch.randn(32, dtype=torch.complex128, generator=generator)


def linear_states(W, steps=1000):
    states = [h_start]
    for _ in range(steps):
        states.append(W @ states[-1])
    return torch.stack(states)[None]  # (1, steps + 1, 32)


moduli = torch.linalg.eigvals(W_unitary).abs()
kept, shrunk = linear_states(W_unitary), linear_states(0.99 * W_unitary)
size = {name: (torch.linalg.vector_norm(run[0, -1]) / torch.linalg.vector_norm(h_start)).item()
        for name, run in [("unitary W", kept), ("0.99 W", shrunk)]}
print(f"penalty for norms 1, 2, 2, 4: {norm_stabiliser(by_hand_states).item():.4f} (= (1 + 0 + 4) / 3)")
print(f"eigenvalue moduli of the unitary W: {moduli.min().item():.12f} to {moduli.max().item():.12f}")
for name, ratio in size.items():
    print(f"{name:>9}: ‖h(1000)‖ / ‖h(0)‖ = {ratio:.4g}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the norm-stabiliser's value, and a unitary recurrence keeps the norm
claim(f"the penalty of norms 1, 2, 2, 4 is (1 + 0 + 4) / 3 ({norm_stabiliser(by_hand_states).item():.6f})",
      abs(norm_stabiliser(by_hand_states).item() - 5 / 3) < 1e-6)
claim(f"every eigenvalue of the unitary W has modulus 1 to within 1e-12 (largest miss {(moduli - 1).abs().max().item():.0e})",
      (moduli - 1).abs().max().item() < 1e-12)
claim(f"over 1000 steps the unitary W keeps the norm to within 1e-9 ({size['unitary W']:.12f}) and the penalty is "
      f"below 1e-20; 0.99 W shrinks it to 0.99^1000 = {0.99**1000:.3e} ({size['0.99 W']:.3e})",
      abs(size["unitary W"] - 1) < 1e-9 and norm_stabiliser(kept).item() < 1e-20
      and abs(size["0.99 W"] / 0.99**1000 - 1) < 1e-9)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Check your understanding
#
# A few questions to answer without code, about what this chapter showed. Click an answer to see whether it is right and why; the section named under each question is where the chapter shows it.

# %%
from dl4nlp import quiz

quiz.show("03")

# %% [markdown] slideshow={"slide_type": "skip"}
# ## Instructor notes
#
# - **Issue 25 corrections, with their evidence.** (1) Teacher forcing: the aside no longer says
#   one forward pass "is what makes it cheap"; the lecture's slide says the forward/backward pass
#   through time "cannot be parallelized" with hidden-to-hidden recurrence and can with output
#   recurrence and teacher forcing. (2) `clip_grad_norm_`: torch 2.13's
#   `torch/nn/utils/clip_grad.py` computes `clip_coef = max_norm / (total_norm + 1e-6)` and clamps
#   it at 1; section 5's check cell now asserts that factor and shows a case (norm 2e-6, threshold
#   1e-6) where it differs from the formula. (3) Cliffs: Pascanu et al. (2013) attribute exploding
#   gradients to the explosion of the long-term components (section 2 of the paper) and describe
#   the wall in the error surface as where the curvature explodes along with the gradient (its
#   geometric section); the text said the opposite causal direction. (4) The lag-50 failures are
#   no longer "explained" by the gradient ratio at initialisation (tanh with $W_h = I$ fails with
#   a ratio of about 1e-2); chapter 04 shows ratios after training. (5) Truncated BPTT: "can never
#   be learned" is replaced by what is true, shown twice: chapter 05's quotation cell (AUC 0.75
#   beyond 300 characters, trained on 128) and `experiments.rnn.truncated_memory` here (lag 20,
#   cut every 10: seeds 0–3 ended at 0.56, 0.80, 0.38, 0.74 against 1.00 for full BPTT on this
#   bench machine, AMD EPYC, torch 2.13; `tests/claims/test_03_rnns.py` asserts full > 0.95, 0.3 <
#   truncated < 0.9 on seeds 1–3 and truncated > 0.5 on at least two of them).
#
# - **Checked at the source (issue 25, second round).** Pascanu, Mikolov & Bengio (2013), section 2.3
#   (geometric interpretation): "we hypothesize that when gradients explode so does the curvature
#   along v, leading to a wall in the error surface" and "the error surface has a steep wall
#   perpendicular to v": the explosion comes first, the wall is its picture; section 5 now says
#   "hypothesise". The IRNN's learning rate: the lecture's slide says the IRNN "requires a very
#   small learning rate (e.g., 10^-8) to work well" with SGD. The stored copies of Le, Jaitly &
#   Hinton (2015) we could search hold its abstract and introduction only, not its hyperparameter
#   tables, so the notebook quotes the lecture's number and says only where ours differs: we train
#   with Adam at 3e-3 (clipped at 1), and 1e-2 already fails at lag 50. Searched again in the third
#   round (the `search` tool's pages, docs, code and issues corpora: "1504.00941", the adding
#   problem, pixel-by-pixel MNIST, "best hyperparameters", "10^-8"): ar5iv's and a Scribd copy of
#   the paper give only the abstract and introduction; Keras' `mnist_irnn.py` reproduction says it
#   replaced the paper's optimiser by RMSprop (learning rate 1e-6, clipping at 1), which says nothing
#   of the paper's own rates. Which experiment used 10^-8 is therefore not stated in the notebook. Krueger & Memisevic (2016),
#   abstract and equation 1: "penalizing the squared distance between successive hidden states'
#   norms", β (1/T) Σ_t (‖h_t‖₂ − ‖h_{t−1}‖₂)², which "prevents the exponential growth of IRNN's
#   activations outside of their training horizon". Arjovsky, Shah & Bengio (2016), abstract: a
#   unitary weight matrix "with eigenvalues of absolute value exactly 1", composed of "several
#   structured matrices", optimised with "hidden states in the complex domain".
# - **Subject-verb distances** (section 6): `dl4nlp.dependency_trees.subject_verb_pairs` over the dev
#   and test splits of UD English-EWT (4,078 sentences; the train split is not shipped). A pair is
#   a nominal subject (`nsubj`, `nsubj:pass`; noun, proper noun or pronoun) and the finite word that
#   agrees with it: its head's finite auxiliary or copula, else the head when finite. 4,017 pairs;
#   17.5% are farther than 1 word, 3.0% than 5, 1.1% than 10, 0.10% than 20; the longest is 48
#   words. Counting characters, 5.6% are farther than 20 characters and 1.3% than 50.
# - **Exercise 1b** is checked by `dl4nlp.bptt.check_truncated_training`: a tiny `RecurrentLM`
#   trained by SGD with clipping at 0.05 (so that clipping acts) by the student's loop and by
#   `train_truncated_bptt`; on a mismatch it re-runs the reference with one duty left out (state
#   not carried, not clipped, gradients not zeroed) to name the mistake; a state left attached
#   raises in the second chunk's backward and is named from the error. `tests/test_bptt.py`
#   checks that each faulty loop is told apart. `book_training` is re-run on seeds 1-3 by the
#   claims suite (seeds 0-3 ended at held-out perplexities 10.3, 10.4, 10.7 and 11.1 on this machine).
#
# - **Run time.** About 30 s on a laptop CPU with one thread (the set-up cell's default); most of it
#   is section 5 (eight clipping runs), section 6 (three memory models at lag 20; the other nine and
#   the IRNN at 1e-2 are loaded) and section 1's language model. On a CPU shared by several users it
#   takes several times longer.
# - **What was trained beforehand.** `data/rnn_seed_sweep.json` holds the clipping experiment and the
#   IRNN at lag 50 for seeds 0–31, made by
#   `python -m dl4nlp.recipes.rnn_seed_sweep --out data/rnn_seed_sweep.json --threads 1` (torch 2.13.0+cpu,
#   AVX512 kernels, 524 s of wall time over two sessions; see `data/README.md`).
#   `data/rnn_memory_by_lag.json` holds section 6's twelve runs and the IRNN at 1e-2 for seed 0, made by
#   `python -m dl4nlp.recipes.rnn_memory_by_lag --out data/rnn_memory_by_lag.json --threads 1` (AVX2
#   kernels, 96 s of wall time on a loaded machine); the notebook re-trains the three networks at lag
#   20 live and asserts that they land on the same side of the thresholds, and
#   `tests/test_rnn_memory_by_lag.py` re-runs the row (bit for bit on the recording kernels, every
#   threshold's side everywhere). On those kernels seed 0's IRNN ends lag 50 at 0.755.
#   `tests/test_rnn_seed_sweep.py` re-runs a row of the seed sweep; the counts the notebook states (0 of 128
#   clipped runs diverged, 6 stuck, 29 and 32 of 32 IRNN seeds) are read from the file, so they do
#   not depend on the machine.
# - **Claims across seeds.** Every live experiment (`dl4nlp.experiments.rnn`) is re-run on seeds 1, 2
#   and 3 by `tests/claims/test_03_rnns.py` with the same thresholds as the check cells. The IRNN
#   "solves lag 50 on most seeds" is asserted there as at least two of the three seeds above 0.95;
#   the notebook asserts only "above 0.5" on seed 0.
# - **Claims across machines.** The clipping runs and the IRNN are chaotic: rounding differences
#   between CPU kernels grow until the runs end differently. Seed 0's four clipped runs ended at
#   0.35, 0.00, 0.35, 0.84 on the machine that made the seed sweep, at 0.82, 0.00, 0.35, 0.71 on an
#   AMD EPYC (torch 2.13, its own kernels), and at 0.34, 0.00, 0.38, 0.37 there with ATen's
#   `default` kernels and oneDNN/MKL limited to SSE4. The IRNN at lag 50 (seed 0) ended at 1.00, 0.75
#   and 0.68 on those three, and at 0.85 on torch 2.1. So the notebook asserts only what held on
#   every one of them and on all 32 seeds of the sweep: no clipped run diverges and at least three
#   of four learn; at least three of four unclipped runs fail; the IRNN ends above 0.5; with
#   learning rate 1e-2 it stays below 0.60 (0.27 on all three configurations). Earlier versions
#   asserted that every clipped run ends below 0.9 and that the live seed-0 run matches the shipped
#   row within 0.05: both held only on the machine that made the file (issue 21).
# - **Float64 tolerances.** The BPTT and eigendecomposition checks use `dl4nlp.numerics.agree` with the
#   number of terms of the computation (3,200 for 50 steps × batch 4 × 16; 500 for $W^{100}$), not a
#   fixed 1e-12.
# - **The language model** (section 1) is robust across kernels: its held-out perplexity was 8.19 on
#   every configuration above, and the claims (between 7 and 9.5, below 0.85 × the bigram model's)
#   hold on seeds 0–3.
