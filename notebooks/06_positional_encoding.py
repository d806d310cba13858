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
# # 06 · Positional encoding: telling "John loves Mary" from "Mary loves John"
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/06_positional_encoding.ipynb)
#
# Self-attention compares every word with every other word, and it does so
# without ever looking at *where* the words are. Shuffle a sentence and a
# Transformer encoder without positional information returns the same
# vectors, shuffled. In this notebook you will prove that, then add the
# Transformer's sinusoidal position codes, derive and check the three
# properties that make them useful, train small models with and without
# positions on a task that needs word order, and watch what happens on
# sequences longer than any seen in training.
#
# **You will:**
# - show that a self-attention encoder without positions treats a sentence as a bag of words;
# - build the sinusoidal encoding from the idea of counting in binary, and see it as a heatmap;
# - verify that a shift by $k$ positions is one fixed rotation, that $PE(p)\cdot PE(q)$ depends only on $p-q$, and that the codes stay bounded;
# - train learned and sinusoidal position embeddings on a task that needs order, and test them beyond the training length;
# - meet relative positions and rotary embeddings (RoPE), and read a published comparison on GLUE.
#
# **Prerequisites:** notebook 05 (self-attention, multi-head attention, the Transformer block).
#
# **Run time:** about 20 seconds on a laptop CPU.

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

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp.exercises import check
from dl4nlp.plots import plot_accuracy_by_position, plot_position_heatmap
from dl4nlp.positional import (binary_encoding, clipped_relative_positions, frequencies, make_positional, rotary,
                               shift_matrix, sinusoidal_encoding)
from dl4nlp.train import train
from dl4nlp.transformer import TransformerConfig, TransformerEncoder
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Why positions are needed: self-attention sees a bag of words
#
# **Intuition.** A self-attention layer scores every pair of words by the dot
# product of a query and a key, and mixes values by those scores. Nothing in
# that computation says which word came first. The feed-forward layers and
# LayerNorms act on each position separately. So if you permute the input
# words, every intermediate result is permuted in the same way.
#
# **The maths.** Let $P$ be a permutation matrix acting on the rows (words) of $X \in \mathbb{R}^{T\times C}$. Then
#
# $$\operatorname{softmax}\!\Big(\frac{(PXW_Q)(PXW_K)^\top}{\sqrt{d_k}}\Big)\,PXW_V
#   = P\,\operatorname{softmax}\!\Big(\frac{XW_Q (XW_K)^\top}{\sqrt{d_k}}\Big)P^\top P\,XW_V
#   = P\,\operatorname{SelfAttention}(X),$$
#
# because permuting the rows and columns of a score matrix permutes the rows of
# its row-wise softmax, and $P^\top P = I$. The encoder is *permutation
# equivariant*: $\operatorname{Enc}(PX) = P\,\operatorname{Enc}(X)$. Any pooled summary of the
# outputs (their mean, their sum) is then exactly the same for every word order.
#
# We test it on the lecture's example with a randomly initialised two-layer
# encoder from `dl4nlp.transformer` and random word vectors.

# %%
words = ["John", "loves", "Mary"]
C = 32
generator = torch.Generator().manual_seed(0)
word_vectors = {w: torch.randn(C, generator=generator) for w in words}
encoder = TransformerEncoder(TransformerConfig(vocab_size=len(words), d_model=C, n_heads=4, n_layers=2)).eval()
positions = {"none": make_positional("none", 16, C), "sinusoidal": make_positional("sinusoidal", 16, C)}


@torch.no_grad()
def encode(sentence, kind):
    """Output vectors (T, C) of the encoder for a sentence, with or without positions added."""
    x = torch.stack([word_vectors[w] for w in sentence.split()])[None]  # (1, T, C)
    return encoder(positions[kind](x))[0]  # (T, C)


order = [2, 1, 0]  # "Mary loves John" is "John loves Mary" read with positions 2, 1, 0
difference = {}
for kind in positions:
    a, b = encode("John loves Mary", kind), encode("Mary loves John", kind)
    difference[kind] = {"outputs, permuted": (b - a[order]).abs().max().item(),
                        "mean-pooled": (b.mean(0) - a.mean(0)).abs().max().item(),
                        "'John' as subject vs object": (a[0] - b[2]).abs().max().item()}
    print(f"positions {kind:>10}: " + ", ".join(f"{k}: {v:.1e}" for k, v in difference[kind].items()))

# %% [markdown]
# **Checkpoint.** Without positions, "Mary loves John" gives exactly the outputs of
# "John loves Mary" in the other order, the same pooled vector, and "John" gets
# the same vector whether he loves or is loved. With sinusoidal positions added,
# all three differ clearly.

# %%
for name, value in difference["none"].items():
    assert value < 1e-5, f"without positions, {name} should be equal up to rounding; differs by {value}"
for name, value in difference["sinusoidal"].items():
    assert value > 0.05, f"with positions, {name} should differ; differs by only {value}"
print("no positions: a bag of words; sinusoidal positions: word order matters")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. From counting in binary to sinusoids
#
# **Intuition.** How would you give every position a distinct code of fixed
# length? Write it in binary. Below are 0 to 15 in four bits: the lowest bit
# flips at every step, the next every second step, bit $j$ every $2^j$ steps.
# Each column is a square wave with its own period; together the columns name
# every position uniquely.

# %%
# NBVAL_CHECK_OUTPUT
bits = binary_encoding(16, 4)  # (16, 4), least significant bit first
for pos in range(16):
    print(f"{pos:2d}: " + " ".join(str(int(b)) for b in bits[pos].flip(0)))  # most significant bit first

# %%
# NBVAL_CHECK_OUTPUT
periods = []
for j in range(4):
    column = bits[:, j]
    first_repeat = next(p for p in range(1, 17) if torch.equal(column[p:], column[: 16 - p]))
    periods.append(first_repeat)
print("period of bit 0, 1, 2, 3:", periods)
assert periods == [2, 4, 8, 16], "bit j repeats every 2^(j+1) positions"

# %% [markdown]
# **The maths.** The Transformer (Vaswani et al., 2017) replaces the square
# waves by smooth ones. For a model width $d_{\text{model}}$, dimension pair $i$
# ($i = 0, \dots, d_{\text{model}}/2 - 1$) of position $pos$ holds
#
# $$PE_{(pos,\,2i)} = \sin\!\Big(\frac{pos}{10000^{2i/d_{\text{model}}}}\Big), \qquad
#   PE_{(pos,\,2i+1)} = \cos\!\Big(\frac{pos}{10000^{2i/d_{\text{model}}}}\Big).$$
#
# Pair $i$ turns with angular frequency $\omega_i = 10000^{-2i/d_{\text{model}}}$, so its
# wavelength is $2\pi / \omega_i$ positions: from $2\pi \approx 6.3$ positions for the
# first pair to almost $2\pi \cdot 10000$ for the last, a geometric progression like
# the binary periods 2, 4, 8, 16. Using a sine *and* a cosine per frequency puts
# each pair on a circle, which is what makes section 3 work.

# %%
# NBVAL_CHECK_OUTPUT
d_model = 512
wavelengths = 2 * math.pi / frequencies(d_model)  # (256,), in positions
print(f"wavelength of pair 0: {wavelengths[0]:.4f}, pair 1: {wavelengths[1]:.4f}, "
      f"pair 255: {wavelengths[-1]:.1f} positions")
ratios = wavelengths[1:] / wavelengths[:-1]
print(f"each pair's wavelength is {ratios[0]:.6f} times the previous one's (10000^(2/512))")
assert math.isclose(wavelengths[0], 2 * math.pi, rel_tol=1e-12)
assert torch.allclose(ratios, torch.full_like(ratios, 10000 ** (2 / 512)), rtol=1e-12)
assert wavelengths[-1] < 2 * math.pi * 10000

# %% [markdown]
# Here is the table for 50 positions and 512 dimensions, the figure from the
# lecture: each row is the vector added to the word embedding at that position.
# On the left the fast pairs change from row to row; on the right the slow ones
# barely move over 50 positions (the cosines stay near 1, the sines near 0).

# %%
table = sinusoidal_encoding(50, 512)  # (50, 512)
fig, axes = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": [1, 3]})
plot_position_heatmap(bits, ax=axes[0], title="0-15 in binary (bit 0 on the left)", xlabel="bit")
plot_position_heatmap(table, ax=axes[1], title="sinusoidal encoding: 50 positions × 512 dimensions")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Checkpoint.** The library's table is the formula: spot-checked against
# `math.sin` and `math.cos`, and every value lies in $[-1, 1]$.

# %%
for pos, i in [(0, 0), (1, 0), (7, 3), (49, 100), (23, 255)]:
    angle = pos / 10000 ** (2 * i / 512)
    assert math.isclose(table[pos, 2 * i].item(), math.sin(angle), abs_tol=1e-6), (pos, i)
    assert math.isclose(table[pos, 2 * i + 1].item(), math.cos(angle), abs_tol=1e-6), (pos, i)
assert table.abs().max() <= 1.0
print("table == formula at the spot checks; all values in [-1, 1]")

# %% [markdown]
# ### Play with it
#
# Change the model width, the base (10000 in the paper) and the highlighted
# position. A small base makes every pair turn fast, so distant positions
# start to look alike; a large base leaves most columns almost constant.

# %%
def draw_positional_encoding(d_model, base, position):
    """Heatmap of 50 positions and the code of one position (the widget's plain function)."""
    pe = sinusoidal_encoding(50, d_model, base=base)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": [3, 2]})
    plot_position_heatmap(pe, ax=axes[0], highlight=position, title=f"d_model = {d_model}, base = {base:g}")
    axes[1].plot(pe[position].numpy(), linewidth=1)
    axes[1].set_ylim(-1.1, 1.1)
    axes[1].set_xlabel("dimension")
    axes[1].set_title(f"PE({position})")
    fig.tight_layout()
    return fig


interactive_figure(
    draw_positional_encoding,
    d_model=widgets.IntSlider(value=128, min=16, max=512, step=16, description="d_model"),
    base=widgets.FloatLogSlider(value=10000, base=10, min=1, max=6, step=0.25, description="base"),
    position=widgets.IntSlider(value=10, min=0, max=49, description="position"),
)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Three properties, each computed
#
# ### 3a. A shift by $k$ is one fixed rotation
#
# The angle-addition formulas give, for one pair with frequency $\omega$,
#
# $$\begin{pmatrix}\sin \omega(pos+k) \\ \cos \omega(pos+k)\end{pmatrix}
#  = \begin{pmatrix}\cos \omega k & \sin \omega k \\ -\sin \omega k & \cos \omega k\end{pmatrix}
#    \begin{pmatrix}\sin \omega\, pos \\ \cos \omega\, pos\end{pmatrix}.$$
#
# The matrix depends on the offset $k$ but not on the position. Stacking one
# such rotation per pair gives a block-diagonal matrix $M_k$ with
# $PE(pos + k) = M_k\,PE(pos)$ for *every* $pos$. A linear layer can therefore
# learn "look $k$ words back" once and apply it everywhere; this was the
# paper's motivation for the sinusoids. `dl4nlp.positional.shift_matrix(k, d)` builds $M_k$.

# %%
# NBVAL_CHECK_OUTPUT
pe64 = sinusoidal_encoding(400, 512, dtype=torch.float64)  # (400, 512), float64 for a tight check
print("the block of M_1 for pair 0 (frequency 1):")
print(shift_matrix(1, 512)[:2, :2].numpy().round(6))
for k in [1, 7, 50, 199]:
    M = shift_matrix(k, 512)
    moved = pe64[: 400 - k] @ M.T  # every position at once: row pos becomes M_k PE(pos)
    error = (moved - pe64[k:]).abs().max().item()
    orthogonal = torch.allclose(M.T @ M, torch.eye(512, dtype=torch.float64), atol=1e-12)
    print(f"k = {k:3d}: max |M_k PE(pos) - PE(pos + k)| over {400 - k} positions < 1e-9: {error < 1e-9}; "
          f"M_k is a rotation: {orthogonal}")
    assert error < 1e-9 and orthogonal

# %% [markdown]
# ### 3b. The dot product depends only on the distance
#
# Multiply two codes: in each pair,
# $\sin\omega p \sin\omega q + \cos\omega p \cos\omega q = \cos \omega(p-q)$, so
#
# $$PE(p)\cdot PE(q) = \sum_{i=0}^{d_{\text{model}}/2-1} \cos\big(\omega_i\,(p-q)\big).$$
#
# It depends only on $p - q$, it is the same for $p - q = k$ and $p - q = -k$ (the
# dot product alone cannot tell before from after), and it is largest,
# $d_{\text{model}}/2 = 256$, at distance 0.

# %%
gram = pe64[:100] @ pe64[:100].T  # (100, 100): PE(p) . PE(q)
offsets = torch.arange(2001, dtype=torch.float64)
closed_form = torch.cos(offsets[:, None] * frequencies(512)).sum(1)  # (2001,): sum_i cos(w_i k)
distance = (torch.arange(100)[:, None] - torch.arange(100)[None, :]).abs()
steps = closed_form[1:] - closed_form[:-1]
first_rise = int((steps > 0).nonzero()[0])

fig, axes = plt.subplots(1, 2, figsize=(12, 4))
image = axes[0].imshow(gram.numpy(), cmap="viridis")
axes[0].set(title="PE(p) · PE(q), 100 positions", xlabel="q", ylabel="p")
axes[0].grid(False)
fig.colorbar(image, ax=axes[0], fraction=0.04)
axes[1].plot(offsets[:201].numpy(), closed_form[:201].numpy())
axes[1].set(title="the same, as a function of the distance |p - q|", xlabel="distance", ylabel="dot product")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Checkpoint.** Every entry of the 100 × 100 table equals the closed form at
# $|p - q|$; the value at distance 0 is 256; it falls monotonically over the
# first distances and stays below its peak for every distance up to 2000.

# %%
# NBVAL_CHECK_OUTPUT
assert torch.allclose(gram, closed_form[distance], atol=1e-9), "PE(p).PE(q) should depend on |p - q| only"
assert torch.allclose(gram, gram.T, atol=1e-12)
assert math.isclose(closed_form[0].item(), 256.0, abs_tol=1e-9)
assert first_rise >= 40 and closed_form[1:].max() < closed_form[0] - 5
print(f"monotonically falling from distance 0 to {first_rise}; "
      f"largest value beyond distance 0 (up to 2000): {closed_form[1:].max():.1f} < 256")

# %% [markdown]
# ### 3c. The values stay bounded
#
# Every entry is a sine or cosine, so it lies in $[-1, 1]$, and every code has
# the same length $\sqrt{d_{\text{model}}/2} = 16$ (one $\sin^2 + \cos^2 = 1$ per pair),
# whatever the position: position 10,000 is not "bigger" than position 1. A
# learned table or the raw index $pos$ would not promise that.

# %%
# NBVAL_CHECK_OUTPUT
far = sinusoidal_encoding(10001, 512, dtype=torch.float64)
norms = far.norm(dim=1)
assert far.abs().max() <= 1.0 and torch.allclose(norms, torch.full_like(norms, 16.0), atol=1e-9)
print(f"positions 0..10000: all values in [-1, 1]; every code has length {norms.min():.6f}..{norms.max():.6f}")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Learned or sinusoidal? A task that needs order
#
# BERT and GPT-2 do not use the sinusoids: they learn one vector per position,
# an `nn.Embedding(max_len, d_model)` trained with everything else (Gehring et
# al. used the same idea for convolutional sequence-to-sequence models in 2017). Which is better?
#
# A task that cannot be solved without positions: **output, at every position,
# the token that came just before it.** The input is a random sequence over 16
# symbols. Without positions the encoder cannot tell its left neighbour from
# any other copy of a symbol. We train three one-layer Transformer taggers —
# no positions, learned, sinusoidal — on sequences of 8 to 16 tokens, and then
# test them on length 48, three times longer than anything seen in training.

# %%
VOCAB, MAX_LEN, TRAIN_LENGTHS = 16, 64, (8, 16)


class Tagger(nn.Module):
    """Token embedding + positions -> one Transformer block -> a label per position."""

    def __init__(self, positional, d_model=32):
        super().__init__()
        config = TransformerConfig(vocab_size=VOCAB, d_model=d_model, n_heads=2, n_layers=1, max_len=MAX_LEN)
        self.embedding = nn.Embedding(VOCAB, d_model)
        self.position = make_positional(positional, MAX_LEN, d_model)
        self.encoder = TransformerEncoder(config)
        self.head = nn.Linear(d_model, VOCAB)

    def forward(self, ids):  # (B, T) -> (B, T, VOCAB)
        return self.head(self.encoder(self.position(self.embedding(ids))))


def previous_token_batch(batch_size, length, generator):
    """Random ids (B, T) and targets: the id one position earlier (position 0 has no target)."""
    ids = torch.randint(0, VOCAB, (batch_size, length), generator=generator)
    return ids, ids.roll(1, dims=1)


def loss_fn(model, batch):
    ids, targets = batch
    return F.cross_entropy(model(ids)[:, 1:].reshape(-1, VOCAB), targets[:, 1:].reshape(-1))


def next_batch_factory(seed):
    generator = torch.Generator().manual_seed(seed)

    def next_batch(step):
        length = int(torch.randint(TRAIN_LENGTHS[0], TRAIN_LENGTHS[1] + 1, (1,), generator=generator))
        return previous_token_batch(64, length, generator)

    return next_batch


taggers, histories = {}, {}
for kind in ["none", "learned", "sinusoidal"]:
    torch.manual_seed(0)
    taggers[kind] = Tagger(kind).to(device)
    if kind == "learned":
        initial_position_table = taggers[kind].position.embedding.weight.detach().clone()
    histories[kind] = train(taggers[kind], loss_fn, next_batch_factory(seed=0), steps=150, lr=1e-2,
                            device=device, desc=f"positions: {kind}")

# %%
@torch.no_grad()
def accuracy_by_position(model, length, n=512, seed=1):
    """Accuracy at positions 1..T-1 on fresh random sequences of the given length."""
    ids, targets = previous_token_batch(n, length, torch.Generator().manual_seed(seed))
    predictions = model(ids.to(device)).argmax(-1).cpu()
    return (predictions == targets).float().mean(0)[1:]


at_16 = {kind: accuracy_by_position(model, 16) for kind, model in taggers.items()}  # the training lengths
at_48 = {kind: accuracy_by_position(model, 48) for kind, model in taggers.items()}  # three times longer
in_range = {kind: a.mean().item() for kind, a in at_16.items()}
long_start = {kind: a[: TRAIN_LENGTHS[1] - 1].mean().item() for kind, a in at_48.items()}  # positions 1..15
beyond = {kind: a[TRAIN_LENGTHS[1] - 1:].mean().item() for kind, a in at_48.items()}  # positions 16..47
plot_accuracy_by_position(at_48, train_length=TRAIN_LENGTHS[1], chance=1 / VOCAB, first_position=1,
                          title="Previous-token task on sequences of length 48 (trained on 8-16)")
plt.show()
print("accuracy on sequences of length 16 | length 48: positions 1-15, positions 16-47")
for kind in taggers:
    print(f"{kind:>10}: {in_range[kind]:.2f} | {long_start[kind]:.2f}, {beyond[kind]:.2f}")

# %% [markdown]
# **What it shows.** Without positions the model stays near chance ($1/16$):
# it cannot find its left neighbour. Both kinds of positions solve the task on
# sequences as long as the training ones. On longer sequences, the learned table
# has nothing to offer beyond position 15: its rows there never received a
# gradient and are still their random initial values. The sinusoids do exist
# there, and the model gets some of those positions right, but far from all;
# and the sinusoidal model even loses accuracy on the *first* 15 positions,
# because its attention now spreads over keys at positions it never saw. The
# attention a model learns is fitted to the positions it was trained on, so
# neither kind *extrapolates* reliably. That is one reason later models moved
# to relative schemes (section 5).
#
# **Checkpoint.**

# %%
chance = 1 / VOCAB
assert in_range["none"] < 0.35, f"without positions the task should be out of reach; got {in_range['none']:.2f}"
for kind in ["learned", "sinusoidal"]:
    assert in_range[kind] > 0.85, f"{kind} positions should solve the task in range; got {in_range[kind]:.2f}"
untouched = taggers["learned"].position.embedding.weight.detach().cpu()[TRAIN_LENGTHS[1]:]
assert torch.equal(untouched, initial_position_table.cpu()[TRAIN_LENGTHS[1]:]), "rows >= 16 were never trained"
assert beyond["learned"] < chance + 0.15, f"learned positions should be near chance beyond 16; got {beyond['learned']:.2f}"
assert beyond["sinusoidal"] < 0.7, "sinusoids should not extrapolate reliably here"
assert long_start["sinusoidal"] < in_range["sinusoidal"] - 0.1, "longer inputs should hurt even the first positions"
print("in range: learned and sinusoidal solve it; beyond: learned near chance, sinusoidal far below in-range")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Relative positions and rotary embeddings, briefly
#
# What a word usually needs is not "I am at position 37" but "that word is 3
# to my left". **Relative** schemes build this in.
#
# - Shaw, Uszkoreit and Vaswani (2018) learn one vector per *offset*
#   $j - i$, clipped to $[-K, K]$, and add it to the keys (and values) inside
#   attention. The table of offsets, clipped at $K = 3$, for 8 positions:

# %%
# NBVAL_CHECK_OUTPUT
offsets_table = clipped_relative_positions(8, 3)
print(offsets_table.numpy())
assert all(offsets_table[i, j] == max(-3, min(3, j - i)) for i in range(8) for j in range(8))

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** T5 (Raffel et al., 2020) adds a learned scalar per bucket of offsets to the
# attention scores; ALiBi (Press et al., 2022) adds a fixed penalty
# proportional to the distance.

# %% [markdown]
# - **Rotary embeddings** (RoPE; Su et al., 2021) rotate each query and key
#   pair by the angle $m\,\omega_i$ of its position $m$, the same rotations as
#   in section 3a. Rotating $q$ by $m\omega$ and $k$ by $n\omega$ leaves
#   $q\cdot k$ depending on the angle between them, $(m - n)\omega$, only. Nothing
#   is added to the embeddings; LLaMA and most recent language models use it.
#
# **Checkpoint.** With `dl4nlp.positional.rotary`, the score of a query at $m$
# and a key at $n$ is unchanged when both move by the same amount, the
# readable and the complex-number implementations agree, and lengths are kept.

# %%
generator = torch.Generator().manual_seed(0)
q, k = torch.randn(2, 1, 64, dtype=torch.float64, generator=generator)  # one query and one key, d = 64


def rope_score(m, n):
    return (rotary(q, positions=[m]) * rotary(k, positions=[n])).sum().item()


for m, n in [(5, 2), (40, 37), (1003, 1000)]:
    print(f"query at {m:4d}, key at {n:4d}: score {rope_score(m, n):+.6f}")
assert all(math.isclose(rope_score(m, n), rope_score(3, 0), abs_tol=1e-9) for m, n in [(5, 2), (40, 37), (1003, 1000)])
assert not math.isclose(rope_score(5, 2), rope_score(2, 5), abs_tol=1e-3), "unlike 3b, RoPE can tell left from right"
x = torch.randn(2, 4, 10, 64, generator=generator)  # (B, H, T, d)
assert torch.allclose(rotary(x), rotary(x, fast=True), atol=1e-5)
assert torch.allclose(rotary(x).norm(dim=-1), x.norm(dim=-1), atol=1e-4)

# %% [markdown]
# ### What the comparison on GLUE says
#
# Wang et al. (2021, *On Position Embeddings in BERT*) pre-trained BERT with
# each kind of position embedding and fine-tuned it on GLUE. Their table, from
# the lecture (APE: absolute, RPE: relative position embedding):

# %%
# NBVAL_CHECK_OUTPUT
TASKS = ["CoLA", "SST-2", "MNLI", "MRPC", "QNLI", "QQP", "RTE", "STS-B", "WNLI"]
GLUE = {  # name: (nine task scores, stated mean, stated std)
    "BERT without PE": ([39.0, 86.5, 80.1, 86.2, 83.7, 86.5, 63.0, 87.4, 33.8], 76.6, 0.41),
    "fully learnable (BERT-style) APE": ([60.2, 93.0, 84.8, 89.4, 88.7, 87.8, 65.1, 88.6, 37.5], 82.2, 0.30),
    "fixed sin. APE": ([57.1, 92.6, 84.3, 89.0, 88.1, 87.5, 58.4, 86.9, 45.1], 80.5, 0.71),
    "learnable sin. APE": ([56.0, 92.8, 84.8, 88.7, 88.5, 87.7, 59.1, 87.0, 40.8], 80.6, 0.29),
    "fully-learnable RPE": ([58.9, 92.6, 84.9, 90.5, 88.9, 88.1, 60.8, 88.6, 50.4], 81.7, 0.31),
    "fixed sin. RPE": ([60.4, 92.2, 84.8, 89.5, 88.8, 88.0, 62.9, 88.1, 45.1], 81.8, 0.53),
    "learnable sin. RPE": ([60.3, 92.6, 85.2, 90.3, 89.1, 88.1, 63.5, 88.3, 49.9], 82.2, 0.40),
    "fully learnable APE + fully-learnable RPE": ([59.8, 92.8, 85.1, 89.6, 88.6, 87.8, 62.5, 88.3, 51.5], 81.8, 0.17),
    "fully learnable APE + fixed sin. RPE": ([59.2, 92.4, 84.8, 89.9, 88.8, 87.9, 61.0, 88.3, 48.2], 81.5, 0.20),
    "fully learnable APE + learnable sin. RPE": ([61.1, 92.8, 85.2, 90.5, 89.5, 87.9, 65.1, 88.2, 49.6], 82.5, 0.44),
    "learnable sin. APE + fully-learnable RPE": ([57.2, 92.7, 84.8, 88.9, 88.5, 87.8, 58.6, 88.0, 51.3], 80.8, 0.44),
    "learnable sin. APE + fixed sin. RPE": ([57.6, 92.6, 84.5, 88.8, 88.6, 87.6, 63.1, 87.4, 48.7], 81.3, 0.43),
    "learnable sin. APE + learnable sin. RPE": ([57.7, 92.7, 85.0, 89.6, 88.7, 87.8, 62.3, 87.5, 50.1], 81.4, 0.33),
}
print(f"{'position embedding':42s} {'stated mean':>11s} {'mean of 9':>9s} {'mean without WNLI':>17s}")
for name, (scores, mean, std) in GLUE.items():
    print(f"{name:42s} {mean:7.1f} ± {std:.2f} {sum(scores) / 9:9.2f} {sum(scores[:8]) / 8:17.2f}")

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The "mean" column is not the mean of the nine scores: it is the mean of the
# first eight, leaving out WNLI (common practice, since WNLI's test set is
# adversarial), which the slide does not say. We recomputed it for every row.

# %% [markdown]
# **Checkpoint.** What the table supports: (1) every row's stated mean is the
# eight-task mean, to rounding; (2) removing positions costs more than 3.9 points,
# by far the largest effect; (3) among the variants with positions the spread
# is only 2 points, and BERT's own learned absolute embedding (82.2) is within
# 0.3 of the best row, which combines it with learnable sinusoidal relative
# embeddings (82.5); (4) fixed sinusoids as absolute positions do worst of those (80.5).

# %%
means = {name: mean for name, (_, mean, _) in GLUE.items()}
for name, (scores, mean, _) in GLUE.items():
    assert abs(sum(scores[:8]) / 8 - mean) <= 0.05 + 1e-9, f"{name}: stated mean is not the 8-task mean"
with_positions = {n: m for n, m in means.items() if n != "BERT without PE"}
assert min(with_positions.values()) - means["BERT without PE"] > 3.8
assert max(with_positions.values()) - min(with_positions.values()) <= 2.0
assert max(with_positions, key=with_positions.get) == "fully learnable APE + learnable sin. RPE"
assert max(with_positions.values()) - means["fully learnable (BERT-style) APE"] <= 0.3 + 1e-9
assert min(with_positions, key=with_positions.get) == "fixed sin. APE"
print("positions matter by ~4-6 points; which kind matters by at most 2")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercises
#
# **Exercise 1.** Return the wavelength, in positions, of every sinusoid pair
# for $d_{\text{model}} = 64$ (a tensor of 32 values), using only the formula.

# %%
def exercise_1():
    # your code here: one wavelength per pair i = 0..31
    raise NotImplementedError


# The reference measures each wavelength from the table itself: the first return of the angle to 0 mod 2π.
_angles = torch.atan2(sinusoidal_encoding(2, 64, dtype=torch.float64)[1, 0::2],
                      sinusoidal_encoding(2, 64, dtype=torch.float64)[1, 1::2])  # angle turned in one step
exercise_1_reference = 2 * math.pi / _angles
check("Exercise 1", exercise_1, exercise_1_reference);

# %% [markdown]
# *Solution (click the cell below to reveal it).*

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    i = torch.arange(32, dtype=torch.float64)
    frequency = 10000 ** (-2 * i / 64)  # angle per position of pair i
    return 2 * math.pi / frequency


assert check("Exercise 1", exercise_1, exercise_1_reference)

# %% [markdown]
# **Exercise 2.** For a single pair with frequency $\omega = 0.3$, write the
# $2\times2$ matrix that maps $(\sin \omega p, \cos \omega p)$ to
# $(\sin \omega (p+4), \cos \omega (p+4))$ and return it as a tensor.

# %%
def exercise_2():
    omega, k = 0.3, 4
    raise NotImplementedError


# The reference solves for the matrix from two positions: Y = M X, so M = Y X^-1.
_omega = 0.3
_X = torch.tensor([[math.sin(_omega * p), math.cos(_omega * p)] for p in (0, 1)], dtype=torch.float64).T
_Y = torch.tensor([[math.sin(_omega * (p + 4)), math.cos(_omega * (p + 4))] for p in (0, 1)], dtype=torch.float64).T
exercise_2_reference = _Y @ torch.linalg.inv(_X)
check("Exercise 2", exercise_2, exercise_2_reference);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    omega, k = 0.3, 4
    c, s = math.cos(omega * k), math.sin(omega * k)
    return torch.tensor([[c, s], [-s, c]], dtype=torch.float64)  # the angle-addition formulas of section 3a


assert check("Exercise 2", exercise_2, exercise_2_reference)

# %% [markdown]
# **Exercise 3.** For $d_{\text{model}} = 512$, find the smallest distance $k \ge 1$
# at which $PE(0)\cdot PE(k)$ falls below half of $PE(0)\cdot PE(0)$.

# %%
def exercise_3():
    raise NotImplementedError


def first_below_half(k):
    """True when PE(0).PE(k) < 128 and no smaller distance already was."""
    pe = sinusoidal_encoding(k + 1, 512, dtype=torch.float64)
    dots = pe @ pe[0]
    return bool(dots[k] < 128 and (dots[1:k] >= 128).all())


check("Exercise 3", lambda: first_below_half(exercise_3()), True);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def exercise_3():
    k = torch.arange(1, 5000, dtype=torch.float64)
    dots = torch.cos(k[:, None] * frequencies(512)).sum(1)  # the closed form of section 3b
    return int(k[(dots < 128).nonzero()[0]])


assert check("Exercise 3", lambda: first_below_half(exercise_3()), True)
print(f"PE(0).PE(k) first drops below half its peak at k = {exercise_3()}")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - Self-attention is permutation equivariant: without positions, "Mary loves John" is "John loves Mary" reordered, and its pooled vector is identical.
# - The sinusoidal encoding is a smooth version of counting in binary: pair $i$ turns with frequency $10000^{-2i/d}$, wavelengths from $2\pi$ to nearly $2\pi\cdot 10000$ positions.
# - A shift by $k$ is one fixed rotation $M_k$ for every position; $PE(p)\cdot PE(q) = \sum_i \cos\omega_i(p-q)$ depends only on the distance, falls off from its peak $d/2$, and cannot tell left from right; every code has length $\sqrt{d/2}$.
# - Learned and sinusoidal positions both solve a task that needs order within the training length; neither extrapolates reliably, and learned rows beyond the training length are never trained.
# - Relative schemes (Shaw et al., T5, ALiBi) and rotary embeddings encode offsets directly; on GLUE, having positions matters by 4-6 points, their kind by at most 2 (and the slide's mean leaves WNLI out).
#
# **Next:** notebook 07 assembles the whole Transformer (attention, feed-forward layers, residual connections, LayerNorm, the decoder) and trains one; notebook 08 then turns it into BERT.
#
# **References**
# - A. Vaswani et al., *Attention is all you need*, NeurIPS (2017).
# - J. Gehring, M. Auli, D. Grangier, D. Yarats, Y. N. Dauphin, *Convolutional sequence to sequence learning*, ICML (2017).
# - P. Shaw, J. Uszkoreit, A. Vaswani, *Self-attention with relative position representations*, NAACL (2018).
# - J. Devlin, M.-W. Chang, K. Lee, K. Toutanova, *BERT: Pre-training of deep bidirectional Transformers for language understanding*, NAACL (2019).
# - C. Raffel et al., *Exploring the limits of transfer learning with a unified text-to-text Transformer* (T5), JMLR (2020).
# - J. Su et al., *RoFormer: Enhanced Transformer with rotary position embedding* (2021).
# - B. Wang et al., *On position embeddings in BERT*, ICLR (2021).
# - O. Press, N. A. Smith, M. Lewis, *Train short, test long: Attention with linear biases enables input length extrapolation* (ALiBi), ICLR (2022).
