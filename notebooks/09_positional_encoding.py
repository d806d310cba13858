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
# # 09 · Positional encoding: telling "John loves Mary" from "Mary loves John"
#
# Self-attention compares every word with every other word without ever looking at
# *where* the words are. This chapter builds the Transformer's sinusoidal position codes,
# checks the properties that make them useful, compares them with relative positions,
# RoPE and ALiBi, and tests on a task that needs word order what each promises, at and
# beyond the training length.
#
# **You will:**
# - build the sinusoidal encoding from counting in binary, and see why it is added rather than concatenated;
# - verify that a shift by $k$ positions is one fixed rotation, that $PE(p)\cdot PE(q)$ depends only on $p-q$, and that the codes stay bounded;
# - write the sinusoidal table, an ALiBi bias and RoPE yourself, each checked against the library;
# - see what added positions do inside an attention score, and what RoPE's decay bound does and does not promise;
# - predict, then measure, how models with no, learned, sinusoidal, rotary and ALiBi positions fare beyond the training length, and find out by experiment why, one confound at a time;
# - watch a causal model with no positional encoding learn where its tokens are.
#
# **Prerequisites:** chapter 08 (self-attention, multi-head attention, permutation equivariance).
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/09_positional_encoding.ipynb)
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
from dataclasses import replace

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch

from dl4nlp.diagrams import tagger_diagram
from dl4nlp.exercises import attempt, check
from dl4nlp.experiments import positional
from dl4nlp.notebook import claim
from dl4nlp.plots import plot_position_heatmap
from dl4nlp.alibi import alibi_bias, alibi_slopes
from dl4nlp.positional import (binary_encoding, clipped_relative_positions, frequencies, make_positional,
                               rope_decay_bound, rotary, shift_matrix, sinusoidal_encoding)
from dl4nlp.taggers import Tagger, bag_of_words_ceiling
from dl4nlp.transformer import TransformerConfig, TransformerEncoder
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Why positions are needed: self-attention sees a bag of words
#
# Chapter 08 proved that an encoder without positions is permutation-equivariant,
# $\operatorname{Enc}(PX) = P\,\operatorname{Enc}(X)$. Here is what that means for the lecture's
# example, with a randomly initialised two-layer encoder and random word vectors: we
# compare the outputs, their mean (a pooled sentence vector) and the vector of "John".

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
# Without positions, "Mary loves John" gives exactly the outputs of "John loves Mary"
# in the other order, the same pooled vector, and "John" gets the same vector whether
# he loves or is loved. With sinusoidal positions added, all three differ.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: a bag of words without positions, word order with them
for name, value in difference["none"].items():
    claim(f"without positions, {name}: equal up to rounding (differ by {value:.1e} < 1e-5)", value < 1e-5)
for name, value in difference["sinusoidal"].items():
    claim(f"with sinusoidal positions, {name}: differ by {value:.2f} (> 0.05)", value > 0.05)

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
periods = []
for j in range(4):
    column = bits[:, j]
    first_repeat = next(p for p in range(1, 17) if torch.equal(column[p:], column[: 16 - p]))
    periods.append(first_repeat)
print("period of bit 0, 1, 2, 3:", periods)

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
#
# **Added, not concatenated.** Concatenation is a special case of the sum $x + p$: words
# in some dimensions, positions in others. Adding lets training decide how the
# $d_{\text{model}}$ dimensions are shared, at no extra width. The price: after the sum,
# $W_Q$ and $W_K$ cannot take word and position apart exactly (section 4's cross terms).
#
# **Exercise 1.** Write the table: `sinusoids(n_positions, d_model)` returns the
# $(n_{\text{positions}}, d_{\text{model}})$ tensor (float64) whose row $pos$ is $PE(pos)$,
# sines in the even columns and cosines in the odd ones. The check names the first
# wrong entry.

# %%
def sinusoids(n_positions, d_model):
    raise NotImplementedError  # your code here


ENTRIES = [f"PE({pos})[{j}]" for pos in range(10) for j in range(16)]
exercise_1_reference = sinusoidal_encoding(10, 16, dtype=torch.float64).reshape(-1)
solved_1 = check("Exercise 1", lambda: sinusoids(10, 16).reshape(-1), exercise_1_reference, atol=1e-9, names=ENTRIES);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def sinusoids(n_positions, d_model):
    pos = torch.arange(n_positions, dtype=torch.float64)[:, None]  # (n, 1)
    omega = 10000 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (d/2,): 10000^(-2i/d)
    table = torch.empty(n_positions, d_model, dtype=torch.float64)
    table[:, 0::2], table[:, 1::2] = torch.sin(pos * omega), torch.cos(pos * omega)
    return table


assert check("Exercise 1", lambda: sinusoids(10, 16).reshape(-1), exercise_1_reference, atol=1e-9, names=ENTRIES)
solved_1 = True

# %% [markdown]
# Your table, for 64 dimensions, gives the wavelength of every pair: the angle pair $i$
# turns in one step is $\omega_i$, read off row 1 as $\operatorname{atan2}(\sin, \cos)$.

# %%
table_64 = attempt(lambda: sinusoids(2, 64), lambda: sinusoidal_encoding(2, 64, dtype=torch.float64),
                   name="Exercise 1", solved=solved_1)
measured_wavelengths = 2 * math.pi / torch.atan2(table_64[1, 0::2], table_64[1, 1::2])  # (32,)
print(f"wavelengths of the 32 pairs: {measured_wavelengths[0]:.4f}, {measured_wavelengths[1]:.4f}, ..., "
      f"{measured_wavelengths[-1]:.1f} positions")

# %% [markdown]
# The same for the paper's width, 512, computed by the library:

# %%
# NBVAL_CHECK_OUTPUT
d_model = 512
wavelengths = 2 * math.pi / frequencies(d_model)  # (256,), in positions
print(f"wavelength of pair 0: {wavelengths[0]:.4f}, pair 1: {wavelengths[1]:.4f}, "
      f"pair 255: {wavelengths[-1]:.1f} positions")
ratios = wavelengths[1:] / wavelengths[:-1]
print(f"each pair's wavelength is {ratios[0]:.6f} times the previous one's (10000^(2/512))")

# %% [markdown]
# Here is the table for 50 positions and 512 dimensions, the figure from the
# lecture: each row is the vector added to the word embedding at that position.
# On the left the fast pairs change from row to row; on the right the slow ones
# barely move over 50 positions (the cosines stay near 1, the sines near 0).

# %%
table = sinusoidal_encoding(50, 512)  # (50, 512)
fig, axes = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": [1, 3]})
positional.plot_binary_codes(bits, ax=axes[0])
plot_position_heatmap(table, ax=axes[1], title="sinusoidal encoding: 50 positions × 512 dimensions")
fig.tight_layout()
plt.show()

# %% [markdown]
# ### Play with it
#
# Change the model width, the base (10000 in the paper) and the highlighted
# position. A small base makes every pair turn fast, so distant positions
# start to look alike; a large base leaves most columns almost constant.

# %%
interactive_figure(
    positional.sinusoid_explorer(50),
    d_model=widgets.IntSlider(value=128, min=16, max=512, step=16, description="d_model"),
    base=widgets.FloatLogSlider(value=10000, base=10, min=1, max=6, step=0.25, description="base"),
    position=widgets.IntSlider(value=10, min=0, max=49, description="position"),
)

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: binary periods, the wavelengths, and the table is the formula
claim(f"bit j repeats every 2^(j+1) positions: periods {periods}", periods == [2, 4, 8, 16])
claim(f"pair 0's wavelength is 2π = {wavelengths[0]:.4f} (to 1e-12 relative)",
      math.isclose(wavelengths[0], 2 * math.pi, rel_tol=1e-12))
claim(f"each wavelength is 10000^(2/512) = {10000 ** (2 / 512):.6f} times the previous (to 1e-12 relative)",
      torch.allclose(ratios, torch.full_like(ratios, 10000 ** (2 / 512)), rtol=1e-12))
claim(f"the last, {wavelengths[-1]:.1f}, is below 2π·10000 = {2 * math.pi * 10000:.1f}", bool(wavelengths[-1] < 2 * math.pi * 10000))
spots = [(0, 0), (1, 0), (7, 3), (49, 100), (23, 255)]
claim(f"the library's table equals sin and cos of pos / 10000^(2i/512) (to 1e-6) at (pos, i) = {spots}",
      all(math.isclose(table[p, 2 * i].item(), math.sin(p / 10000 ** (2 * i / 512)), abs_tol=1e-6)
          and math.isclose(table[p, 2 * i + 1].item(), math.cos(p / 10000 ** (2 * i / 512)), abs_tol=1e-6)
          for p, i in spots))
claim(f"every value lies in [-1, 1] (largest magnitude {table.abs().max():.1f})", bool(table.abs().max() <= 1.0))

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
# $PE(pos + k) = M_k\,PE(pos)$ for *every* $pos$. A linear map can therefore
# express "look $k$ words away" once, for every position; this was the
# paper's motivation for the sinusoids. `dl4nlp.positional.shift_matrix(k, d)` builds $M_k$.
#
# **Exercise 2.** For a single pair with frequency $\omega = 0.3$, write the
# $2\times2$ matrix that maps $(\sin \omega p, \cos \omega p)$ to
# $(\sin \omega (p+4), \cos \omega (p+4))$ and return it as a tensor.

# %%
def exercise_2():
    omega, k = 0.3, 4
    raise NotImplementedError  # your code here


# The reference solves for the matrix from two positions: Y = M X, so M = Y X^-1.
_omega = 0.3
_X = torch.tensor([[math.sin(_omega * p), math.cos(_omega * p)] for p in (0, 1)], dtype=torch.float64).T
_Y = torch.tensor([[math.sin(_omega * (p + 4)), math.cos(_omega * (p + 4))] for p in (0, 1)], dtype=torch.float64).T
exercise_2_reference = _Y @ torch.linalg.inv(_X)
ROWS = ["row 1 (the sine's)", "row 2 (the cosine's)"]
check("Exercise 2", exercise_2, exercise_2_reference, names=ROWS);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    omega, k = 0.3, 4
    c, s = math.cos(omega * k), math.sin(omega * k)
    return torch.tensor([[c, s], [-s, c]], dtype=torch.float64)  # the angle-addition formulas above


assert check("Exercise 2", exercise_2, exercise_2_reference, names=ROWS)

# %% [markdown]
# The library's $M_k$ does the same for all 256 pairs of $d_{\text{model}} = 512$ at once:

# %%
# NBVAL_CHECK_OUTPUT
pe64 = sinusoidal_encoding(400, 512, dtype=torch.float64)  # (400, 512), float64 for a tight check
print("the block of M_1 for pair 0 (frequency 1):")
print(shift_matrix(1, 512)[:2, :2].numpy().round(6))
shifts = {}
for k in [1, 7, 50, 199]:
    M = shift_matrix(k, 512)
    moved = pe64[: 400 - k] @ M.T  # every position at once: row pos becomes M_k PE(pos)
    error = (moved - pe64[k:]).abs().max().item()
    orthogonal = torch.allclose(M.T @ M, torch.eye(512, dtype=torch.float64), atol=1e-12)
    shifts[k] = error < 1e-9, orthogonal
    print(f"k = {k:3d}: max |M_k PE(pos) - PE(pos + k)| over {400 - k} positions < 1e-9: {error < 1e-9}; "
          f"M_k is a rotation: {orthogonal}")

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
print(f"monotonically falling from distance 0 to {first_rise}; "
      f"largest value beyond distance 0 (up to 2000): {closed_form[1:].max():.1f} < 256")

# %% [markdown]
# **Exercise 3.** For $d_{\text{model}} = 512$, find the smallest distance $k \ge 1$
# at which $PE(0)\cdot PE(k)$ falls below half of $PE(0)\cdot PE(0)$.

# %%
def exercise_3():
    raise NotImplementedError  # your code here


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
print(f"positions 0..10000: largest |value| {far.abs().max():.1f}; every code has length {norms.min():.6f}..{norms.max():.6f}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: one rotation per shift, a dot product of the distance, bounded codes
claim(f"M_k PE(pos) = PE(pos + k) to 1e-9 at every position, and M_k is a rotation (to 1e-12), for k = {list(shifts)}",
      all(moved_ok and orthogonal for moved_ok, orthogonal in shifts.values()))
claim("every entry of the 100 × 100 table PE(p)·PE(q) equals the closed form at |p - q| (to 1e-9); the table is symmetric",
      torch.allclose(gram, closed_form[distance], atol=1e-9) and torch.allclose(gram, gram.T, atol=1e-12))
claim(f"its value at distance 0 is {closed_form[0].item():.1f} = 256 (to 1e-9)",
      math.isclose(closed_form[0].item(), 256.0, abs_tol=1e-9))
claim(f"it falls monotonically up to distance {first_rise} (at least 40) and stays more than 5 below 256 up to 2000 "
      f"(largest {closed_form[1:].max():.1f})", first_rise >= 40 and bool(closed_form[1:].max() < closed_form[0] - 5))
claim(f"positions 0..10000: every value in [-1, 1], every code of length 16 (to 1e-9; {norms.min():.6f}..{norms.max():.6f})",
      bool(far.abs().max() <= 1.0) and torch.allclose(norms, torch.full_like(norms, 16.0), atol=1e-9))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. The case for relative positions, and rotary embeddings
#
# **What attention does with added positions.** With $p_i$ added to the word vector
# $x_i$, the score of query $i$ against key $j$ (before scaling) is
#
# $$(x_i + p_i) W_Q W_K^\top (x_j + p_j)^\top
#   = \underbrace{x_i W_Q W_K^\top x_j^\top}_{\text{content–content}}
#   + \underbrace{x_i W_Q W_K^\top p_j^\top}_{\text{content–position}}
#   + \underbrace{p_i W_Q W_K^\top x_j^\top}_{\text{position–content}}
#   + \underbrace{p_i W_Q W_K^\top p_j^\top}_{\text{position–position}} .$$
#
# The position–position term *can* depend on the offset alone: with codes as rows,
# $p_{i+k} = p_i M_k^\top$ (section 3a), so if $W_Q W_K^\top = M_k^\top$ the term is
# $p_{i+k} \cdot p_j$, a function of $i - j$ only, largest at $j = i + k$ (section 3b):
# "look $k$ words away", one matrix for every position. But nothing builds this in:
# $W_Q W_K^\top$ is learned and also serves the content–content term, and the cross terms
# mix the *content* of one word with the *absolute position* of the other, so the same two
# words, three apart, generally score differently at different places. Relative schemes
# change the terms: Shaw, Uszkoreit and Vaswani (2018) learn one vector per *offset* $j - i$,
# clipped to $[-K, K]$, and use it inside attention in place of absolute positions. The
# table of offsets, clipped at $K = 3$, for 8 positions:

# %%
# NBVAL_CHECK_OUTPUT
offsets_table = clipped_relative_positions(8, 3)
print(offsets_table.numpy())

# %% [markdown]
# T5 (Raffel et al., 2020) adds a learned scalar per bucket of offsets to the attention
# scores. **ALiBi** (Press, Smith and Lewis, 2022) adds no position vectors at all and
# learns nothing about positions: every head $h$ subtracts from each score a fixed penalty
# proportional to the distance,
#
# $$\text{score}(i, j) = \frac{q_i \cdot k_j}{\sqrt{d_k}} - m_h\,|i - j|, \qquad
#   m_h = 2^{-8h/H}\quad (h = 1, \dots, H \text{ heads}).$$
#
# The paper's decoder penalises the keys before the query, $-m_h(i - j)$ (the future is
# masked anyway); an encoder sees both sides, so ours uses $|i - j|$.
#
# **Exercise 4.** Write `alibi(T, slopes)`: the bias tensor of shape $(H, T, T)$ whose
# entry $[h, i, j]$ is $-m_h |i - j|$, for a tensor `slopes` of the $H$ slopes.

# %%
def alibi(T, slopes):
    raise NotImplementedError  # your code here: (H, T, T), entry [h, i, j] = -slopes[h] * |i - j|


two_slopes = alibi_slopes(2)  # 2^-4 and 2^-8: the slopes of a two-head model
BIAS_NAMES = [f"head {h + 1}, query {i}, key {j}" for h in range(2) for i in range(6) for j in range(6)]
solved_4 = check("Exercise 4", lambda: alibi(6, two_slopes).reshape(-1), alibi_bias(6, two_slopes).reshape(-1),
                 names=BIAS_NAMES);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 4
def alibi(T, slopes):
    i = torch.arange(T, dtype=slopes.dtype)
    return -slopes[:, None, None] * (i[None, :] - i[:, None]).abs()  # (H, 1, 1) times (T, T)


assert check("Exercise 4", lambda: alibi(6, two_slopes).reshape(-1), alibi_bias(6, two_slopes).reshape(-1),
             names=BIAS_NAMES)
solved_4 = True

# %% [markdown]
# Like RoPE, the bias depends on the offset only; unlike it, it is the same whatever the
# content, and it only ever pushes weight towards near keys. Section 5 trains models with
# it.

# %% [markdown]
# **Rotary embeddings** (RoPE; Su et al., 2021) add nothing. They rotate each pair of a
# query's (and a key's) coordinates by the angle $m\,\omega_i$ of its position $m$, the
# rotations of section 3a. Since rotations compose, the rotated query at $m$ and key at
# $n$ have the score $q^\top R_{n-m}\, k$: content, turned by an angle that depends on the
# offset only. There is no cross term at all. Earlier relative schemes keep the sum and
# edit its terms; RoFormer replaces the addition by this multiplication. LLaMA and many
# other recent open language models use it. Below: the same query and key content, three
# positions apart, at three places in the sequence, with added sinusoids (and random
# projections) and with RoPE.
#
# **Exercise 5.** Write `rope(x, m)`: for a vector `x` of $d$ numbers at position $m$,
# rotate each pair $(x_{2i}, x_{2i+1})$ by the angle $m\,\omega_i$, $\omega_i = 10000^{-2i/d}$
# (exercise 2's matrix, with $\omega = \omega_i$ and $k = m$, but turning the other way:
# $(x_{2i}\cos - x_{2i+1}\sin,\; x_{2i}\sin + x_{2i+1}\cos)$). It is checked against
# `dl4nlp.positional.rotary`, and the scores below use yours.

# %%
def rope(x, m):
    raise NotImplementedError  # your code here: x (d,) -> x rotated pair by pair, (d,)


x_test = torch.arange(1.0, 9.0, dtype=torch.float64)  # (8,): 1, 2, ..., 8
solved_5 = check("Exercise 5", lambda: rope(x_test, 3), rotary(x_test[None], positions=[3])[0],
                 atol=1e-9, names=[f"coordinate {j}" for j in range(8)]);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 5
def rope(x, m):
    d = x.shape[-1]
    angle = m * 10000 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,): m * omega_i
    cos, sin = torch.cos(angle), torch.sin(angle)
    out = torch.empty_like(x)
    out[0::2] = x[0::2] * cos - x[1::2] * sin
    out[1::2] = x[0::2] * sin + x[1::2] * cos
    return out


assert check("Exercise 5", lambda: rope(x_test, 3), rotary(x_test[None], positions=[3])[0],
             atol=1e-9, names=[f"coordinate {j}" for j in range(8)])
solved_5 = True

# %%
generator = torch.Generator().manual_seed(0)
q, k = torch.randn(2, 1, 64, dtype=torch.float64, generator=generator)  # one query and one key content, d = 64
W_Q, W_K = torch.randn(2, 64, 64, dtype=torch.float64, generator=generator) / 8
pe = sinusoidal_encoding(1100, 64, dtype=torch.float64)


def added_score(m, n):
    """Score of content q at position m against content k at position n, sinusoids added, then projected."""
    return ((q[0] + pe[m]) @ W_Q @ W_K.T @ (k[0] + pe[n])).item()


rotate = attempt(lambda: rope, lambda: lambda x, m: rotary(x[None], positions=[m])[0], name="Exercise 5",
                 solved=solved_5)


def rope_score(m, n, key=k):
    """Score of content q at position m against content ``key`` at position n, both rotated (by your rope)."""
    return (rotate(q[0], m) @ rotate(key[0], n)).item()


pairs = [(5, 2), (40, 37), (1003, 1000)]
for m, n in pairs:
    print(f"query at {m:4d}, key at {n:4d}: added sinusoids {added_score(m, n):+9.4f}   rotary {rope_score(m, n):+.6f}")
x = torch.randn(2, 4, 10, 64, generator=generator)  # (B, H, T, d): a batch for the two implementations of RoPE

# %% [markdown]
# **Long-term decay.** Su et al. (2021, §3.4.3) bound the size of a rotary score. Write
# pair $i$ of the query and of the key as complex numbers and let
# $h_i = q_{[2i:2i+1]}\,\overline{k_{[2i:2i+1]}}$; the score is
# $\operatorname{Re}\sum_i h_i e^{\mathrm{i}(m-n)\omega_i}$. Summing by parts with the partial sums
# $S_j = \sum_{i<j} e^{\mathrm{i}(m-n)\omega_i}$ gives
#
# $$\Big|\sum_{i=0}^{d/2-1} h_i e^{\mathrm{i}(m-n)\omega_i}\Big| \le \Big(\max_i |h_{i+1} - h_i|\Big) \sum_{j=1}^{d/2} |S_j| ,$$
#
# and the paper plots $\frac{1}{d/2}\sum_j |S_j|$, the "relative upper bound", against the
# distance $m - n$. It depends only on the distance and the frequencies, so we can
# compute it (`dl4nlp.positional.rope_decay_bound`, checked against random scores in
# the library's tests). At distance 0 every $|S_j| = j$, so the bound is $d/4 + 1/2$.

# %%
distances = torch.arange(0, 1001)
bound = rope_decay_bound(distances, 128)  # d = 128 per head, as in many models
fig, ax = plt.subplots(figsize=(8, 3.5))
ax.plot(distances.numpy(), bound.numpy())
ax.set(xlabel="relative distance m - n", ylabel="relative upper bound", title="Long-term decay of RoPE (d = 128)")
plt.show()
first_bound_rise = int((bound[1:] > bound[:-1]).nonzero()[0])
print(f"bound at distance 0: {bound[0]:.1f} (= 128/4 + 1/2); at 100: {bound[100]:.1f}; "
      f"largest beyond 100: {bound[100:].max():.1f}; first rises at distance {first_bound_rise}")

# %% [markdown]
# The bound falls below 40 % of its start beyond distance 100, but not monotonically.
# What does it promise? Read the inequality: the factor $\max_i |h_{i+1} - h_i|$ belongs to
# one fixed pair of contents $q, k$. So for *given* content, the bound on how strongly
# those two can agree shrinks with the distance. It does not say that far-apart tokens
# cannot agree strongly: a rotation keeps lengths, so a key whose content is the query's
# own, turned by the offset, scores $|q|\,|k|$, the largest any score can be, at
# every distance. A model can learn such content when it needs to look far. Barbero et al.
# (2024) make the same point, and argue from the inside of a trained Gemma 7B model that
# decay with distance is unlikely to be why RoPE helps.

# %%
far_key = rotary(q, positions=[1000])  # the query's content, turned by the offset: R(1000) q
aligned = rope_score(1000, 0, key=far_key)
print(f"a key at distance 1000 aligned with the query: score {aligned:.6f}; "
      f"|q| |k| = {(q.norm() * far_key.norm()).item():.6f}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: relative offsets, RoPE's scores and its decay bound
claim("the offsets table is j - i clipped to [-3, 3]",
      all(offsets_table[i, j] == max(-3, min(3, j - i)) for i in range(8) for j in range(8)))
added = [added_score(m, n) for m, n in pairs]
claim(f"with added sinusoids, the same contents 3 apart score differently by place: spread {max(added) - min(added):.2f} (> 0.1)",
      max(added) - min(added) > 0.1)
claim(f"with RoPE the score is the same at {pairs} (to 1e-9)",
      all(math.isclose(rope_score(m, n), rope_score(3, 0), abs_tol=1e-9) for m, n in pairs))
claim(f"and RoPE tells left from right: {rope_score(5, 2):.3f} vs {rope_score(2, 5):.3f}",
      not math.isclose(rope_score(5, 2), rope_score(2, 5), abs_tol=1e-3))
claim("the readable and complex-number implementations of RoPE agree (to 1e-5) and keep lengths (to 1e-4)",
      torch.allclose(rotary(x), rotary(x, fast=True), atol=1e-5)
      and torch.allclose(rotary(x).norm(dim=-1), x.norm(dim=-1), atol=1e-4))
claim(f"the decay bound starts at {bound[0].item():.1f} = 128/4 + 1/2 (to 1e-12 relative)",
      math.isclose(bound[0].item(), 32.5, rel_tol=1e-12))
claim(f"it stays below 40 % of that from distance 100 to 1000 (largest {bound[100:].max():.1f})",
      bool(bound[100:].max() < 0.4 * bound[0]))
claim(f"it is not monotone: it first rises again after distance {first_bound_rise} (18)", first_bound_rise == 18)
claim(f"an aligned key still scores |q| |k| at distance 1000: {aligned:.6f} (to 1e-9)",
      math.isclose(aligned, (q.norm() * far_key.norm()).item(), abs_tol=1e-9))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Learned, sinusoidal or rotary? A task that needs order
#
# BERT and GPT-2 learn one vector per position instead, an `nn.Embedding(max_len, d_model)`
# (as Gehring et al., 2017, did). Three sentences from the papers, as hypotheses to test:
#
# 1. Vaswani et al. (2017, §3.5) tried learned positions and "found that the two versions
#    produced nearly identical results". *Hypothesis 1: learned and sinusoidal positions
#    do equally well within the training length.*
# 2. They "chose the sinusoidal version because it may allow the model to extrapolate to
#    sequence lengths longer than the ones encountered during training". *Hypothesis 2:
#    sinusoidal positions carry a model beyond its training length.*
# 3. Su et al. (2021) list among RoPE's properties "the flexibility of being expand to any
#    sequence lengths". *Hypothesis 3: rotary positions carry a model beyond its training
#    length.*
#
# The task: **output, at every position, the token just before it**, in random sequences
# over 16 symbols. Four one-layer taggers (`dl4nlp.taggers.Tagger`, chapter 08's model)
# differ only in their positions: none, learned, sinusoidal, rotary. Each trains for 150
# steps on sequences of 8 to 16 tokens; we test on fresh sequences of length 16 and 48.
#
# **Without positions** a model sees its own token $a$ and the *multiset* of the sequence;
# every arrangement is equally likely, so the best guess is the most frequent other token.
# Averaged over random counts this gives the **bag-of-words ceiling**, which
# `dl4nlp.taggers.bag_of_words_ceiling` computes exactly.

# %%
# NBVAL_CHECK_OUTPUT
print(f"bag-of-words ceiling: length 16: {bag_of_words_ceiling(16, 16):.4f}, "
      f"length 48: {bag_of_words_ceiling(48, 16):.4f}; chance: {1 / 16:.4f}")

# %%
print(positional.TRAINING)
taggers = {}
for kind in positional.KINDS:  # trains each tagger once (a second or two each); the experiment reuses them
    taggers[kind] = positional.trained(kind, 0)
    print(f"{kind:>10}: trained, {sum(p.numel() for p in taggers[kind].parameters()):,} parameters")

# %% [markdown]
# The four models share everything except where position information enters. Here are two
# of them, drawn by `dl4nlp.diagrams.tagger_diagram` from the trained modules themselves:
# the sinusoidal tagger adds a fixed table to the token embeddings, the rotary one adds
# nothing and rotates queries and keys inside attention instead.

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 6.5))
for ax, kind in zip(axes, ["sinusoidal", "rope"]):
    tagger_diagram(taggers[kind]).draw(ax=ax, title=f"positional = {kind!r}")
fig.tight_layout()
plt.show()
labels = {kind: [box.label for box in tagger_diagram(taggers[kind]).boxes.values()] for kind in positional.KINDS}
differs = {kind: [i for i, (a, b) in enumerate(zip(labels["none"], labels[kind])) if a != b] for kind in labels}

# %% [markdown]
# **Exercise 6 (predict, then run).** The three models with positions will solve the
# task at length 16. Which of the four models will still solve it (at least 90 % of
# tokens right) on positions 16–47 of the length-48 sequences, positions that none of
# them saw in training? Answer with a dict, one `True` or `False` per model, *before*
# you run the next cell.

# %%
def exercise_6():
    raise NotImplementedError  # return {"none": ..., "learned": ..., "sinusoidal": ..., "rope": ...}


# %%
result = positional.extrapolation(seed=0)  # tests the four trained taggers at length 16 and 48
print("accuracy:   length 16   | length 48: positions 1-15, positions 16-47")
for kind in positional.KINDS:
    print(f"{kind:>10}: {result.of('in_range', kind):9.3f}   | {result.of('long_start', kind):22.3f}, "
          f"{result.of('beyond', kind):.3f}")
positional.plot_extrapolation(result)
plt.show()
solves_beyond = {kind: result.of("beyond", kind) >= 0.9 for kind in positional.KINDS}
check("Exercise 6", exercise_6, solves_beyond);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 6
def exercise_6():
    # None of them: the learned rows beyond 15 were never trained, and the sinusoidal and rotary models meet
    # positions or distances they never saw (the rest of this section finds out why that hurts).
    return {"none": False, "learned": False, "sinusoidal": False, "rope": False}


assert check("Exercise 6", exercise_6, solves_beyond)

# %% [markdown]
# **What it shows.**
#
# - *Without positions* the model sits at the bag-of-words ceiling (0.197 at length 16).
# - *Hypothesis 1 holds here:* learned, sinusoidal and rotary positions all solve the task
#   at the training length.
# - *Hypotheses 2 and 3 fail here:* beyond the training length none carries over. The
#   learned rows beyond 15 never received a gradient (the model is no better there than
#   the bag-of-words ceiling at length 48, dash-dotted); the sinusoidal and rotary models
#   get far fewer new positions right, and even lose accuracy on the *first* 15 positions
#   of longer sequences. Why? An experiment, next.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Does the kind of position information matter in a large model? Wang et al.
# (2021) pre-trained BERT in thirteen configurations, one without positions, and
# fine-tuned each on GLUE: having
# positions at all is worth 3.9 to 5.9 points of the mean score, which kind at most 2.0.
# The "mean" in their table leaves out one of the nine tasks (WNLI) without saying so;
# "Going further" checks the arithmetic.

# %% [markdown]
# **Why longer inputs hurt the trained positions: an intervention.** In training, no key
# was ever at position 16 or beyond, and no two tokens were ever 16 or more apart. On
# length-48 sequences a query at position 5 can attend to keys at unseen positions
# (sinusoidal codes it never saw) or at unseen distances (rotary angles it never saw),
# and some of those scores may win the softmax. Test it: run the same trained models
# with an attention mask that hides what training never showed them. For the sinusoidal
# model, hide the keys at positions 16–47 and score positions 1–15; for the rotary model,
# hide every key 16 or more positions away, and score every position.

# %%
rope_unmasked = (15 * result.of("long_start", "rope") + 32 * result.of("beyond", "rope")) / 47
print(f"sinusoidal, positions 1-15 of length 48: {result.of('long_start', 'sinusoidal'):.3f}; "
      f"keys beyond 15 hidden: {result.sinusoidal_masked_start:.3f} (length 16: {result.of('in_range', 'sinusoidal'):.3f})")
print(f"rotary, positions 1-47 of length 48: {rope_unmasked:.3f}; "
      f"keys 16 or more away hidden: {result.rope_windowed:.3f} (length 16: {result.of('in_range', 'rope'):.3f})")

# %% [markdown]
# Hiding what was never seen in training brings the accuracy back: for the sinusoidal
# model on the first 15 positions, and for the rotary model on every position of the
# length-48 sequences.
#
# **Two confounds.** A mask changes *which* keys a query sees (positions or distances never
# trained) and *how many* compete in its softmax (at most 16 in training, up to 48 here).
# Each test rules out one:
#
# - The rotary window leaves a query up to 31 keys, twice training's 16, yet accuracy
#   comes back: for RoPE the number of keys is not the cause, the unseen distances are.
# - The sinusoidal mask hides both at once, so a control separates them: queries 1–7 see
#   16 keys, as in training, either keys 0–15 (trained positions) or keys 0–7 plus a block
#   of 8 unseen ones (16–23, 24–31, 32–39 or 40–47).

# %%
print(f"sinusoidal, positions 1-7, 16 keys each: keys 0-15 {result.sinusoidal_seen_16:.3f}; keys 0-7 plus an unseen block: "
      + ", ".join(f"{start}-{start + 7}: {a:.3f}" for start, a in zip(positional.UNSEEN_BLOCKS, result.sinusoidal_half_unseen)))
print(f"rotary window: a query sees at most {result.rope_window_keys} keys (training: at most 16)")

# %% [markdown]
# At 16 keys, keys at unseen positions still cost the sinusoidal model accuracy (more for
# some blocks than others): unseen positions do harm on their own, not only through the
# number of keys, and unlike RoPE the sinusoidal model has no window that avoids them.
#
# **ALiBi through the same test.** ALiBi was built to "train short, test long" (Press et
# al.'s title). Three more taggers, trained like the four: ALiBi as the paper uses it, with
# a causal mask (the penalty falls on earlier keys); ALiBi with both sides visible (the
# symmetric penalty); and, as the control for the mask, a causal tagger with no
# positions. For one layer of two heads we take the two steepest slopes of the paper's
# eight-head sequence, $1/2$ and $1/4$.
#
# *Predict before you run:* which of the three can tell the token before a position from
# the token after it?

# %%
alibi_result = positional.alibi_extrapolation(seed=0)  # trains three more taggers (a few seconds)
print("accuracy:           length 16   | length 48: positions 1-15, positions 16-47")
for variant in alibi_result.variants:
    print(f"{variant:>18}: {alibi_result.of('in_range', variant):9.3f}   | "
          f"{alibi_result.of('long_start', variant):22.3f}, {alibi_result.of('beyond', variant):.3f}")

# %% [markdown]
# Causal ALiBi solves the task at the training length and keeps solving it three times
# beyond, the one model of this chapter that extrapolates on this task. Its penalty makes
# the nearest earlier keys win whatever the length, and a distance of 1 is a distance of
# 1 at position 40 too. The causal mask alone does not do it: without positions the
# causal tagger stays far from solving the task in range. And the symmetric penalty
# cannot work here: the token before and the token after are at the same distance, so
# it cannot tell them apart, and the model gets about half of the tokens right, as if it
# picked one of the two neighbours.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: what the four taggers learned, and what the intervention shows
claim(f"the four taggers differ only in the position box (learned, sinusoidal) or in attention (rope): {differs}",
      differs == {"none": [], "learned": [2], "sinusoidal": [2], "rope": [3]})
claim(f"the bag-of-words ceiling at length 16 is {result.ceiling:.3f}", round(result.ceiling, 3) == 0.197)
print("accuracy at length 16: " + ", ".join(f"{kind} {result.of('in_range', kind):.3f}" for kind in result.kinds)
      + "; beyond the training length: " + ", ".join(f"{kind} {result.of('beyond', kind):.3f}" for kind in result.kinds)
      + f"; ceiling at length 48 {result.ceiling_long:.3f}")
for sentence, holds in positional.extrapolation_claims(result).items():
    claim(f"{sentence} (seed 0)", holds)
untouched = taggers["learned"].position.embedding.weight.detach()[positional.TRAINING.max_length:]
torch.manual_seed(0)  # train_tagger draws the initial weights right after torch.manual_seed(seed)
initial = Tagger(replace(positional.CONFIG, positional="learned")).position.embedding.weight.detach()
claim("the learned table's rows 16 and beyond are exactly their initial values: never trained",
      torch.equal(untouched, initial[positional.TRAINING.max_length:]))
print("ALiBi and its control, length 16 / positions 16-47 of length 48: " + ", ".join(
    f"{v} {alibi_result.of('in_range', v):.3f} / {alibi_result.of('beyond', v):.3f}" for v in alibi_result.variants))
for sentence, holds in positional.alibi_claims(alibi_result).items():
    claim(f"{sentence} (seed 0)", holds)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. The exception: a causal mask is a source of position
#
# Section 1's argument needs every position to see every other. A decoder does not: with a
# causal mask, position $t$ attends to positions $0..t$ only. Then the first token sees
# one token and the last sees all of them, and the number of tokens a position can see
# *is* its position. Haviv et al. (2022) found that causal language models trained with
# no positional encoding at all still learn absolute positions, and conjectured that
# the causal mask lets a model infer how many tokens each position can attend to. One way
# to do it: attend evenly to the $t + 1$ visible tokens; the start symbol's share of the
# weight is then $1/(t+1)$, from which the position can be read. (We do not check which
# mechanism our small model uses, only that it learns the positions.)
#
# Test it. Two taggers without any position information, one bidirectional and one
# causal, learn to output each token's own position (sequences of 16 tokens: a start
# symbol, then random ones; 300 steps). For the bidirectional model every position
# label is equally likely given what it sees, so chance, $1/15$, is its ceiling.

# %%
causal = positional.causal_positions(seed=0)
positional.plot_causal_positions(causal)
plt.show()
print(f"mean accuracy: bidirectional {sum(causal.bidirectional) / 15:.3f}, causal {sum(causal.causal) / 15:.3f}, "
      f"chance {causal.chance:.3f}; causal, worst position: {min(causal.causal):.3f}")

# %% [markdown]
# The bidirectional model stays at chance; the causal one, with no positional encoding,
# learns to name its own position, far above chance. Permutation equivariance is a
# property of *unmasked* self-attention: decoders get some sense of position for free,
# encoders like BERT do not.
#
# Kazemnejad et al. (2023) compared decoder-only models with no positional encoding
# ("NoPE"), absolute, T5-relative, ALiBi and rotary positions on reasoning tasks longer
# than any in training, and report that "NoPE outperforms other explicit positional
# encoding methods". That holds for causal models; a bidirectional one without positions
# is a bag of words.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the causal mask alone gives positions
for sentence, holds in positional.causal_claims(causal).items():
    claim(f"{sentence} (seed 0)", holds)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - Without positions self-attention sees a bag of words: "Mary loves John" is "John loves Mary" reordered, with the same pooled vector.
# - Sinusoidal codes are a smooth binary count: pair $i$ turns with frequency $10000^{-2i/d}$, wavelengths $2\pi$ to nearly $2\pi\cdot 10000$; they are added, not concatenated.
# - A shift by $k$ is one rotation $M_k$ at every position; $PE(p)\cdot PE(q) = \sum_i \cos\omega_i(p-q)$ depends only on the distance, peaks at $d/2 = 256$ and cannot tell left from right; every code has length 16.
# - Added positions bring content–position cross terms into the scores; relative schemes, ALiBi and RoPE make scores depend on offsets. RoPE's decay bound for fixed content falls unevenly (below 40 % of its start beyond distance 100), yet an aligned query and key score $|q||k|$ at any distance.
# - On the previous-token task: no positions reach the bag-of-words ceiling (0.197) and no further; learned, sinusoidal and rotary positions solve it in range ("nearly identical results" holds) and none extrapolates to length 48. Masking unseen positions or distances restores them (RoPE: every position at length 48, with up to 31 keys); at 16 keys, unseen positions alone still cost the sinusoidal model accuracy.
# - Causal ALiBi (slopes 1/2, 1/4) solves the task and keeps solving it at three times the training length; the causal mask alone does not; a symmetric penalty gets about half right.
# - A causal mask alone lets a model without positional encoding learn where its tokens are; for causal models, Kazemnejad et al. (2023) found no positional encoding generalises best.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What comes next
#
# Chapter 10 assembles the whole Transformer, with attention, positions, feed-forward
# layers, residual connections and LayerNorm, as a GPT written from scratch, and trains it.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# - A. Vaswani et al., *Attention is all you need*, NeurIPS (2017).
# - J. Gehring, M. Auli, D. Grangier, D. Yarats, Y. N. Dauphin, *Convolutional sequence to sequence learning*, ICML (2017).
# - P. Shaw, J. Uszkoreit, A. Vaswani, *Self-attention with relative position representations*, NAACL (2018).
# - J. Devlin, M.-W. Chang, K. Lee, K. Toutanova, *BERT: Pre-training of deep bidirectional Transformers for language understanding*, NAACL (2019).
# - C. Raffel et al., *Exploring the limits of transfer learning with a unified text-to-text Transformer* (T5), JMLR (2020).
# - J. Su, Y. Lu, S. Pan, A. Murtadha, B. Wen, Y. Liu, *RoFormer: Enhanced Transformer with rotary position embedding* (2021; Neurocomputing, 2024).
# - B. Wang et al., *On position embeddings in BERT*, ICLR (2021).
# - A. Haviv, O. Ram, O. Press, P. Izsak, O. Levy, *Transformer language models without positional encodings still learn positional information*, Findings of EMNLP (2022).
# - O. Press, N. A. Smith, M. Lewis, *Train short, test long: Attention with linear biases enables input length extrapolation* (ALiBi), ICLR (2022).
# - A. Kazemnejad, I. Padhi, K. Natesan Ramamurthy, P. Das, S. Reddy, *The impact of positional encoding on length generalization in Transformers*, NeurIPS (2023).
# - F. Barbero, A. Vitvitskyi, C. Perivolaropoulos, R. Pascanu, P. Veličković, *Round and round we go! What makes rotary positional encodings useful?* (2024).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further
#
# *Optional.* **What the comparison on GLUE says.** Wang et al. (2021, *On Position
# Embeddings in BERT*) pre-trained BERT with each kind of position embedding and
# fine-tuned it on GLUE. Their table, from the lecture (APE: absolute, RPE: relative
# position embedding):

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

# %% [markdown]
# The "mean" column is not the mean of the nine scores: it is the mean of the first
# eight, leaving WNLI out, to rounding, in every row. Neither the slide nor the table's
# caption says so. Leaving WNLI out has a precedent, which may or may not be the authors'
# reason: BERT's own paper (Devlin et al., 2019) excluded it from its GLUE results, citing
# problems with the data set's construction noted by GLUE and the fact that every system
# submitted to GLUE until then had scored below the 65.1 % of always predicting the
# majority class. Every WNLI score in this table, 33.8 to 51.5, is below that baseline
# too. It matters: averaged over all nine columns every mean is 3.3 to 5.0 points lower, and the order changes. BERT's own
# learned absolute embedding, second of thirteen (tied) on the eight-task mean, is tenth on
# the nine-task mean, because its WNLI score (37.5) is the second lowest.

# %% [markdown]
# What the table supports: having positions matters most. The smallest gap between a
# model with positions and the one without is 3.9 points (fixed sinusoidal APE, 80.5,
# against 76.6), the largest 5.9, by far the largest effect in the table. Among the
# variants with positions the spread is 2.0 points, and BERT's own learned absolute
# embedding (82.2) is within 0.3 of the best row, which combines it with learnable
# sinusoidal relative embeddings (82.5); fixed sinusoids as absolute positions do worst
# of those (80.5). These are single BERT models fine-tuned on GLUE, each row a mean ±
# standard deviation over runs; differences of a few tenths are within the stated
# deviations.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the GLUE table's arithmetic
means = {name: mean for name, (_, mean, _) in GLUE.items()}
nine = {name: sum(scores) / 9 for name, (scores, _, _) in GLUE.items()}
claim("every row's stated mean is the mean of the first eight tasks, leaving WNLI out (to 0.05)",
      all(abs(sum(scores[:8]) / 8 - mean) <= 0.05 + 1e-9 for scores, mean, _ in GLUE.values()))
with_positions = {n: m for n, m in means.items() if n != "BERT without PE"}
gains = (min(with_positions.values()) - means["BERT without PE"], max(with_positions.values()) - means["BERT without PE"])
claim(f"positions are worth {gains[0]:.1f} to {gains[1]:.1f} points over BERT without them",
      (round(gains[0], 1), round(gains[1], 1)) == (3.9, 5.9))
spread = max(with_positions.values()) - min(with_positions.values())
claim(f"which kind of positions: a spread of {spread:.1f} points", round(spread, 1) == 2.0)
drops = [means[n] - nine[n] for n in GLUE]
claim(f"over all nine tasks every mean is {min(drops):.1f} to {max(drops):.1f} points lower (between 3.2 and 5.0)",
      all(3.2 < d < 5.0 for d in drops))
bert_ape = "fully learnable (BERT-style) APE"
ranks = [1 + sorted(column.values(), reverse=True).index(column[bert_ape]) for column in (means, nine)]
claim(f"BERT's own learned APE ranks {ranks[0]} on the eight-task mean, {ranks[1]} on the nine-task mean", ranks == [2, 10])
claim("its WNLI score, 37.5, is the second lowest",
      sorted(scores[8] for scores, _, _ in GLUE.values())[1] == GLUE[bert_ape][0][8] == 37.5)
wnli = [scores[8] for scores, _, _ in GLUE.values()]
claim(f"every WNLI score ({min(wnli)} to {max(wnli)}) is below the 65.1 of always predicting the majority class",
      (min(wnli), max(wnli)) == (33.8, 51.5) and max(wnli) < 65.1)
claim("the best row combines the learned APE with learnable sinusoidal RPE; the learned APE alone is within 0.3 of it",
      max(with_positions, key=with_positions.get) == "fully learnable APE + learnable sin. RPE"
      and max(with_positions.values()) - means[bert_ape] <= 0.3 + 1e-9)
claim("fixed sinusoidal APE does worst of the variants with positions",
      min(with_positions, key=with_positions.get) == "fixed sin. APE")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Check your understanding
#
# A few questions to answer without code, about what this chapter showed. Click an answer to see whether it is right and why; the section named under each question is where the chapter shows it.

# %%
from dl4nlp import quiz

quiz.show("09")

# %% [markdown] slideshow={"slide_type": "skip"}
# ## Instructor notes
#
# - **The experiments** (sections 5 and 6) are `dl4nlp.experiments.positional.extrapolation(seed)`
#   and `causal_positions(seed)`: one-layer taggers (d = 32, two heads), 150 Adam steps on
#   sequences of 8 to 16 tokens (300 steps of length 16 for the position task), trained live
#   in a few seconds each; test sequences come from their own generator and are checked
#   disjoint from every training sequence. The notebook asserts `extrapolation_claims` and
#   `causal_claims` on seed 0; `tests/claims/test_09_positional.py` asserts the same claims
#   on seeds 1–3. The thresholds live in the module (`SOLVES`, `CEILING_SLACK`,
#   `NEAR_CEILING_BEYOND`, `UNSOLVED_BEYOND`, `DIP`, `RECOVERED`, `CAUSAL_MIN`,
#   `BIDIRECTIONAL_SLACK`); the prose quotes none of them, so a restated threshold does not
#   make the text false. Exercise 6's "solves" is 0.9, the module's `SOLVES`; its answer
#   (all False) follows from the extrapolation claims.
# - **Portability.** Sections 1–4 are exact or float64 computations with tolerances far above
#   rounding (1e-9 on sums of 256 cosines, 1e-12 relative on closed forms); the float32 ones
#   use 1e-6 to 1e-4. The taggers are live training runs; their claims have wide margins and
#   are re-checked under a second CPU kernel configuration (`ATEN_CPU_CAPABILITY=default`,
#   `ONEDNN_MAX_CPU_ISA=SSE41`, `MKL_ENABLE_INSTRUCTIONS=SSE4_2`). The previous version
#   asserted that the order-blind model's accuracy rounds to 0.19 on seed 0; the check now
#   asserts the claim that holds on every machine (within 0.03 of the ceiling, never above
#   it beyond sampling error), since a live run's second decimal can move between CPU kernels.
# - **Caveats worth saying in class.** The RoPE window result was measured at length 48
#   only. The two confounds of the masking intervention (unseen positions, number of keys)
#   are separated in the main text: the rotary window (up to 31 keys) rules out the number
#   of keys for RoPE; the count-matched control (`UNSEEN_BLOCKS`, 16 keys) shows that
#   unseen positions alone cost the sinusoidal model accuracy (0.021 to 0.074 for the worst
#   block on seeds 0-3).
# - **ALiBi** (`alibi_extrapolation`, `alibi_claims`) uses the slopes 1/2 and 1/4, the two
#   steepest of the paper's eight-head sequence: the paper's formula for two heads (1/16,
#   1/256) is too shallow for one layer of two heads (seed 0: 0.41 in range, causal).
#   Seeds 0-3: causal ALiBi 0.964-0.981 at length 16 and 0.959-0.973 on positions 16-47 of
#   length 48; both sides 0.517-0.521 at length 16; causal without positions 0.317-0.324.
#   Three more taggers trained live (about 1 s each on an idle 2-core CPU, more under load).
# - **The GLUE audit** (Going further) is arithmetic on the published table as the lecture
#   shows it (Wang et al., 2021); it needs no run.
