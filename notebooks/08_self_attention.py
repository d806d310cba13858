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
# # 08 · Self-attention
#
# In chapter 06 a decoder attended to an encoder. Self-attention turns the
# same operation on a single sequence: every word asks every other word how
# relevant it is and builds a new representation from the answers. No
# recurrence, so every position is computed at once. We start with the
# lecture's worked examples, reproduced number for number, then write the
# whole thing as one matrix formula, split it into heads, and check each step
# against PyTorch. Then three properties that shape the Transformer: why the
# scores are divided by $\sqrt{d_k}$, why self-attention needs positions, and what
# it costs as sequences grow. At the end you look inside a small trained model.
#
# **You will:**
# - compute queries, keys, values, scores, scaled scores, softmax weights and outputs by hand for "Thinking Machines";
# - compute the exact weights of the four-word example and find where the slides' weights disagree, and why;
# - write causal attention yourself and verify `softmax(QKᵀ/√d_k)V` and masks against `torch`;
# - write the split into heads and the merge back, the reshapes of multi-head attention, and check the whole layer against `torch.nn.MultiheadAttention`;
# - measure why dividing by $\sqrt{d_k}$ matters, and predict what a causal mask does to self-attention's blindness to order;
# - count the weights and the arithmetic of self-attention, a recurrent and a convolutional layer exactly;
# - read the attention patterns of a tiny trained Transformer, by layer and head, on one scale;
# - see one word get two vectors in two sentences, and that attention is why.
#
# **Prerequisites:** chapter 06 (attention in an encoder–decoder), chapter 00's PyTorch primer, matrix products, softmax.
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/08_self_attention.ipynb)
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
import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

from torch.utils.flop_counter import FlopCounterMode

from dl4nlp.attention import MultiHeadAttention, causal_mask, padding_mask, scaled_dot_product_attention
from dl4nlp.bert import load_pretrained
from dl4nlp.diagrams import multi_head_attention_diagram
from dl4nlp.exercises import attempt, check
from dl4nlp.experiments import attention as experiments
from dl4nlp.notebook import claim
from dl4nlp.plots import plot_attention
from dl4nlp.positional import make_positional
from dl4nlp.transformer import TransformerConfig, TransformerEncoder, count_parameters
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. One query, two keys: "Thinking Machines"
#
# Each word $x_i$ (a row vector) is projected three ways by three learned matrices:
#
# $$q_i = x_i W^Q \;(\text{what am I looking for?}),\qquad k_i = x_i W^K \;(\text{what do I offer?}),\qquad v_i = x_i W^V \;(\text{what do I pass on?})$$
#
# The output for word 1 is a weighted average of all values, with weights from
# how well $q_1$ matches each key:
#
# $$z_1 = \sum_i \operatorname{softmax}_i\!\left(\frac{q_1 \cdot k_i}{\sqrt{d_k}}\right) v_i .$$
#
# The lecture's example has two words, "Thinking" and "Machines", with
# $q_1 \cdot k_1 = 112$, $q_1 \cdot k_2 = 96$ and $d_k = 64$, so the scaled scores are
# $14$ and $12$ and the weights $0.88$ and $0.12$. The slides give only these numbers;
# here are concrete matrices that produce them. The embeddings have 4 dimensions.
# To keep the 64-dimensional queries and keys readable, each projection matrix is
# a $4 \times 4$ block repeated 16 times side by side, so every query and key is one
# 4-number block repeated 16 times, and every dot product is 16 times the dot
# product of the blocks.

# %%
# NBVAL_CHECK_OUTPUT
words = ["Thinking", "Machines"]
X = torch.tensor([[1, 1, 0, 0],
                  [0, 1, 1, 1]], dtype=torch.float64)  # (2 words, d_model = 4)
block_Q = torch.tensor([[2, 1, 1, 0], [1, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 2]], dtype=torch.float64)
block_K = torch.tensor([[1, 0, 1, 0], [0, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0]], dtype=torch.float64)
W_Q, W_K = block_Q.repeat(1, 16), block_K.repeat(1, 16)  # (4, 64): d_k = 64
W_V = torch.tensor([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=torch.float64)  # (4, 3): d_v = 3
d_k = W_Q.shape[1]

Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (2, 64), (2, 64), (2, 3)
print(f"X (embeddings):\n{X.int()}\n")
print(f"W_Q = 16 copies of\n{block_Q.int()}\nW_K = 16 copies of\n{block_K.int()}\nW_V =\n{W_V.int()}\n")
print(f"Q = X W_Q, shape {tuple(Q.shape)}; its first block (the rest repeats it):\n{Q[:, :4].int()}")
print(f"K = X W_K, shape {tuple(K.shape)}; its first block:\n{K[:, :4].int()}")
print(f"V = X W_V:\n{V.int()}")

# %% [markdown]
# Now the four steps, for both words at once: scores $QK^\top$, scaling by
# $\sqrt{d_k} = 8$, a softmax along each row, and the weighted sum of the values.

# %%
# NBVAL_CHECK_OUTPUT
scores = Q @ K.T  # (2, 2): row i holds q_i . k_j
scaled = scores / math.sqrt(d_k)
weights = torch.softmax(scaled, dim=-1)
Z = weights @ V  # (2, 3): z_i = sum_j weights[i, j] v_j

print(f"scores Q K^T:\n{scores.int()}\n")
print(f"divided by sqrt(d_k) = {math.sqrt(d_k):g}:\n{scaled.int()}\n")
print(f"softmax of each row:\n{weights.numpy().round(4)}\n")
print(f"Z = weights V:\n{Z.numpy().round(4)}")
print(f"\nz_1 = {weights[0, 0]:.4f} * v_1 + {weights[0, 1]:.4f} * v_2 = {Z[0].numpy().round(4)}")

# %% [markdown]
# "Thinking" scores 112 against its own key and 96 against "Machines"; after
# scaling, 14 and 12; the softmax turns a gap of 2 into weights
# $1/(1 + e^{-2}) = 0.8808$ and $0.1192$, the slides' 0.88 and 0.12.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** These matrices also make "Machines" attend to itself: 64 and 80,
# scaled 8 and 10, the same weights mirrored.

# %% [markdown]
# **Rows or columns?** The lecture writes $q_i = W_q x_i$: the word $x_i$ is a column
# vector and $W_q$ has one row per query dimension, $d_k \times d_{\text{model}}$. This
# chapter, the Transformer paper and PyTorch's tensors keep each word as a *row* and
# multiply on the right, $q_i = x_i W^Q$ with $W^Q$ of shape $d_{\text{model}} \times d_k$.
# It is the same computation transposed: $W_q = (W^Q)^\top$, so
# $W_q x_i^\top = (x_i W^Q)^\top$, number for number. `nn.Linear` stores its weight the
# lecture's way (out × in) and computes $x W^\top$.

# %%
W_q_lecture = W_Q.T  # (64, 4): the lecture's W_q, one row per query dimension
columns_equal_rows = all(torch.equal(W_q_lecture @ X[i], Q[i]) for i in range(2))  # W_q x_i == x_i W_Q
linear = nn.Linear(4, 64, bias=False).double()
with torch.no_grad():
    linear.weight.copy_(W_q_lecture)  # nn.Linear keeps (out, in), the lecture's layout
print("W_q x_i (columns, the lecture) equals x_i W_Q (rows, here):", columns_equal_rows)
print("nn.Linear with weight W_q gives Q:", torch.equal(linear(X), Q))

# %% [markdown]
# **Exercise 1.** Compute $z_2$, the output for "Machines", step by step from `Q`,
# `K` and `V` above (do not call an attention function). Return a tensor of 3 numbers.

# %%
def exercise_1():
    raise NotImplementedError  # your code here


exercise_1_reference = scaled_dot_product_attention(Q, K, V)[0][1]
check("Exercise 1", exercise_1, exercise_1_reference, names=["z_2[0]", "z_2[1]", "z_2[2]"]);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    scores_2 = torch.stack([Q[1] @ K[0], Q[1] @ K[1]])  # 64 and 80
    weights_2 = torch.softmax(scores_2 / math.sqrt(64), dim=0)  # softmax of 8 and 10: 0.1192, 0.8808
    return weights_2[0] * V[0] + weights_2[1] * V[1]


assert check("Exercise 1", exercise_1, exercise_1_reference, names=["z_2[0]", "z_2[1]", "z_2[2]"])

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the slides' numbers, by hand, by the library and by PyTorch
claim("every query and key is one 4-number block repeated 16 times",
      torch.equal(Q, Q[:, :4].repeat(1, 16)) and torch.equal(K, K[:, :4].repeat(1, 16)))
claim(f"the scores of 'Thinking' are {scores[0].tolist()}, scaled {scaled[0].tolist()}",
      scores[0].tolist() == [112.0, 96.0] and scaled[0].tolist() == [14.0, 12.0])
claim(f"its weights are {weights[0, 0]:.4f} = 1/(1 + e^-2) (to 1e-15) and {weights[0, 1]:.4f}: the slides' 0.88 and 0.12",
      math.isclose(weights[0, 0].item(), 1 / (1 + math.exp(-2)), abs_tol=1e-15)
      and [round(w, 2) for w in weights[0].tolist()] == [0.88, 0.12])
ours, our_weights = scaled_dot_product_attention(Q, K, V)
claim("dl4nlp.attention.scaled_dot_product_attention gives the same outputs (to 1e-12) and weights (to 1e-15)",
      torch.allclose(ours, Z, atol=1e-12) and torch.allclose(our_weights, weights, atol=1e-15))
claim("so does torch.nn.functional.scaled_dot_product_attention (to 1e-12)",
      torch.allclose(F.scaled_dot_product_attention(Q[None], K[None], V[None])[0], Z, atol=1e-12))
claim("the lecture's columns W_q x_i and our rows x_i W_Q are the same 128 numbers, and so is nn.Linear(weight=W_q)",
      columns_equal_rows and torch.equal(linear(X), Q))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. Four words: "the brown dog ran"
#
# The second worked example gives, for a four-word sentence with $d_k = 64$, the
# scores of the first word's query against the four keys, $112, 96, 16, 8$, and
# of the second word's query, $92, 124, 22, 8$, and then softmax weights
# (the slides write the softmax as $\sigma$). Here are the exact weights.

# %%
# NBVAL_CHECK_OUTPUT
sentence = ["the", "brown", "dog", "ran"]
slide_scores = torch.tensor([[112.0, 96.0, 16.0, 8.0],  # query of "the"
                             [92.0, 124.0, 22.0, 8.0]], dtype=torch.float64)  # query of "brown"
slide_weights = [[0.87, 0.12, 0.01, 0.0], [0.08, 0.91, 0.01, 0.0]]  # as printed on the slides
exact = torch.softmax(slide_scores / math.sqrt(64), dim=-1)

for row, query in enumerate(sentence[:2]):
    print(f"query {query!r}: scores / 8 = {(slide_scores[row] / 8).tolist()}")
    for j, key in enumerate(sentence):
        flag = "" if round(exact[row, j].item(), 2) == slide_weights[row][j] else "   <- slides disagree"
        print(f"    weight on {key!r:8}: exact {exact[row, j].item():.4g}, rounded {exact[row, j].item():.2f},"
              f" slides {slide_weights[row][j]:.2f}{flag}")
    print(f"    the slides' row sums to {sum(slide_weights[row]):.2f}; the exact weights to {exact[row].sum():.2f}")

# %% [markdown]
# The first row nearly agrees: the exact weights round to 0.88, 0.12, 0.00, 0.00.
# The slides' 0.01 for "dog" is far too large: its exact weight is about
# $5 \times 10^{-6}$, because its scaled score 2 is 12 below the winner's 14 and
# $e^{-12} \approx 6 \times 10^{-6}$. And the slides' 0.87 for "the" is not a rounding of
# 0.8808: with 0.01 on "dog", 0.87 is what keeps the row's sum at exactly 1.00. Both
# rows of the slides sum to exactly 1.00, so the printed weights look chosen to add up
# to one rather than computed from the scores.
#
# The second row does not agree at all. Scaled, the scores are 11.5, 15.5, 2.75
# and 1: "brown" beats "the" by 4, so "brown" gets $1/(1+e^{-4}) = 0.982$ and "the"
# $0.018$, not 0.91 and 0.08. The slides' weights are illustrative; the formula gives
# the numbers above: "the" would need a raw score of about 104.5, not 92, for the
# slides' ratio $0.91 / 0.08 = e^{(124 - s_1)/8}$.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the exact weights, and where the slides disagree
claim(f"row 'the' rounds to {[round(w, 4) for w in exact[0].tolist()]}",
      [round(w, 4) for w in exact[0].tolist()] == [0.8808, 0.1192, 0.0, 0.0])
claim(f"row 'brown' rounds to {[round(w, 4) for w in exact[1].tolist()]}",
      [round(w, 4) for w in exact[1].tolist()] == [0.018, 0.982, 0.0, 0.0])
claim(f"'brown' outweighs 'the' by e^4 = {math.exp(4):.2f} (to 1e-12 relative)",
      math.isclose(exact[1, 1].item() / exact[1, 0].item(), math.exp(4), rel_tol=1e-12))
disagree = [(sentence[r], sentence[j]) for r in range(2) for j in range(4)
            if round(exact[r, j].item(), 2) != slide_weights[r][j]]
claim(f"the slides disagree with their own scores at {disagree}",
      disagree == [("the", "the"), ("the", "dog"), ("brown", "the"), ("brown", "brown"), ("brown", "dog")])
claim("both slide rows sum to exactly 1.00", [round(100 * sum(row)) for row in slide_weights] == [100, 100])
claim(f"the exact weight on 'dog' is {exact[0, 2].item():.1e}, about 5e-6, not 0.01", 4e-6 < exact[0, 2].item() < 6e-6)
claim("the slides' 0.87 is 1 - 0.12 - 0.01", round(1 - slide_weights[0][1] - slide_weights[0][2], 2) == slide_weights[0][0] == 0.87)
needed = 124 - 8 * math.log(0.91 / 0.08)  # alpha_brown / alpha_the = exp((124 - s_1) / 8): the normaliser cancels
ratio = torch.softmax(torch.tensor([needed, 124.0, 22.0, 8.0], dtype=torch.float64) / 8, dim=0)
claim(f"a raw score of {needed:.1f} (about 104.5) for 'the' would give the slides' ratio 0.91 / 0.08 (to 1e-12 relative)",
      round(needed, 1) == 104.5 and math.isclose((ratio[1] / ratio[0]).item(), 0.91 / 0.08, rel_tol=1e-12))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. The matrix form, and masks
#
# Stack the queries, keys and values of all positions as rows of $Q$ $(n \times d_k)$,
# $K$ $(m \times d_k)$ and $V$ $(m \times d_v)$. All the outputs at once are
#
# $$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V,
# \qquad [n \times d_k][d_k \times m][m \times d_v] = [n \times d_v],$$
#
# with the softmax taken along each row. `dl4nlp.attention.scaled_dot_product_attention`
# is this line, plus a mask: a boolean matrix that says which keys each query may
# see. Masked scores become $-\infty$ before the softmax, so they get weight 0.
#
# - A **causal mask** lets position $t$ see positions $1..t$ only: a decoder must not peek at the words it has yet to write.
# - A **padding mask** hides the PAD positions of sequences shorter than the batch.

# %%
# NBVAL_CHECK_OUTPUT
print("causal mask, 5 positions (1 = may attend):")
print(causal_mask(5).int())
print("\npadding mask for lengths 5 and 3 (shape (B, 1, 1, T), broadcast over heads and queries):")
print(padding_mask(torch.tensor([5, 3]), 5)[:, 0, 0].int())

generator = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(2, 4, 5, 8, dtype=torch.float64, generator=generator) for _ in range(3))  # (B, H, T, d)
out, w = scaled_dot_product_attention(q, k, v, causal=True)
print("\ncausal weights of one head (rows sum to 1, nothing above the diagonal):")
print(w[0, 0].numpy().round(3))

# %% [markdown]
# **Exercise 2.** Write causal self-attention with plain tensor operations: for
# `q`, `k`, `v` of shape (T, d), set the scores above the diagonal to $-\infty$
# before the softmax (`torch.triu`, `masked_fill`). Return the output (T, d). The
# check names the first position whose output differs from PyTorch's.

# %%
exercise_generator = torch.Generator().manual_seed(5)
q_ex, k_ex, v_ex = (torch.randn(5, 4, dtype=torch.float64, generator=exercise_generator) for _ in range(3))
POSITIONS = [f"output at position {t + 1}" for t in range(5)]


def exercise_2(q, k, v):
    raise NotImplementedError  # your code here


exercise_2_reference = F.scaled_dot_product_attention(q_ex, k_ex, v_ex, is_causal=True)
check("Exercise 2", lambda: exercise_2(q_ex, k_ex, v_ex), exercise_2_reference, names=POSITIONS);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2(q, k, v):
    scores = q @ k.T / math.sqrt(q.shape[-1])  # (T, T)
    future = torch.triu(torch.ones_like(scores, dtype=torch.bool), diagonal=1)  # True above the diagonal
    return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ v


assert check("Exercise 2", lambda: exercise_2(q_ex, k_ex, v_ex), exercise_2_reference, names=POSITIONS)

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the readable implementation equals PyTorch's fused kernel, with and without masks
pad = padding_mask(torch.tensor([5, 3]), 5)
padded_out, padded_w = scaled_dot_product_attention(q, k, v, mask=pad)
claim("no mask: dl4nlp equals torch.nn.functional.scaled_dot_product_attention (to 1e-12)",
      torch.allclose(scaled_dot_product_attention(q, k, v)[0], F.scaled_dot_product_attention(q, k, v), atol=1e-12))
claim("causal mask: equal to torch's is_causal=True (to 1e-12), and every weight above the diagonal is 0",
      torch.allclose(out, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-12)
      and bool(torch.all(w.triu(1) == 0)))
claim("padding mask: equal to torch's attn_mask (to 1e-12), and the 2 PAD keys of the shorter sequence get weight 0",
      torch.allclose(padded_out, F.scaled_dot_product_attention(q, k, v, attn_mask=pad), atol=1e-12)
      and bool(torch.all(padded_w[1, :, :, 3:] == 0)))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Multi-head attention: project, split, attend, concatenate, $W^O$
#
# One attention gives each word one way to look at the others. Multi-head
# attention runs $h$ of them side by side, each with its own projections:
#
# $$\operatorname{MultiHead}(X) = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\,W^O,
# \qquad \text{head}_i = \operatorname{Attention}(XW_i^Q, XW_i^K, XW_i^V),$$
#
# with $W_i^Q, W_i^K, W_i^V \in \mathbb{R}^{d \times d/h}$. The paper's words (Vaswani et al.,
# 2017, §3.2.2): the model learns to "linearly project the queries, keys and values $h$
# times with different, learned linear projections to $d_k$, $d_k$ and $d_v$ dimensions".
# Each $W_i^Q$ has $d$ rows: **every head reads all $d$ dimensions of every word** and
# projects them into its own smaller space of $d/h$ dimensions. A head does *not* get a
# slice of the word vector; that is a common misreading of the picture below.
#
# In practice one $d \times d$ matrix computes all heads' queries at once: its columns are
# the $h$ matrices $W_i^Q$ side by side, so the product $Q = XW^Q$ ($T \times d$) holds
# head 1's queries in its first $d/h$ columns, head 2's in the next, and so on. The
# stumbling block is then pure bookkeeping: turning $Q$, shape $(B, T, d)$, into one
# $(T, d/h)$ matrix per head, shape $(B, h, T, d/h)$, and back again after attention.
#
# **Exercise 3.** Write `split_heads(t, n_heads)`, from $(B, T, C)$ to
# $(B, h, T, C/h)$ with head $i$ holding columns $i\,C/h, \dots, (i+1)\,C/h - 1$, and
# `merge_heads(t)`, its inverse, from $(B, h, T, d)$ to $(B, T, h\,d)$. Use `view` (or
# `reshape`) and `transpose`. Careful: `t.view(B, n_heads, T, C // n_heads)` has the right
# shape and the wrong numbers. The test input numbers every entry
# $100\,b + 10\,t + c$ (batch $b$, position $t$, column $c$), so the feedback shows which
# entry you picked.

# %%
def split_heads(t, n_heads):
    raise NotImplementedError  # your code here: (B, T, C) -> (B, n_heads, T, C // n_heads)


def merge_heads(t):
    raise NotImplementedError  # your code here: (B, H, T, d) -> (B, T, H * d)


numbered = torch.tensor([[[100.0 * b + 10 * t + c for c in range(8)] for t in range(3)] for b in range(2)])  # (2, 3, 8)
# The references, built another way: cut the columns into 2 chunks of 4 and stack them as heads (and undo it).
split_reference = torch.stack(numbered.split(4, dim=-1), dim=1)  # (2, 2, 3, 4)
merge_reference = torch.cat(split_reference.unbind(dim=1), dim=-1)  # (2, 3, 8): numbered again
SPLIT_NAMES = [f"batch {b}, head {h}, position {t}, dim {j}" for b in range(2) for h in range(2) for t in range(3) for j in range(4)]
MERGE_NAMES = [f"batch {b}, position {t}, column {c}" for b in range(2) for t in range(3) for c in range(8)]


def flat(t, shape):
    """Entries one by one, so the feedback names the first wrong one (a wrong shape is reported as such)."""
    return t.reshape(-1) if isinstance(t, torch.Tensor) and tuple(t.shape) == shape else t


solved_3 = all([
    check("Exercise 3, split_heads", lambda: flat(split_heads(numbered, 2), (2, 2, 3, 4)), split_reference.reshape(-1),
          names=SPLIT_NAMES),
    check("Exercise 3, merge_heads", lambda: flat(merge_heads(split_reference), (2, 3, 8)), merge_reference.reshape(-1),
          names=MERGE_NAMES),
]);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def split_heads(t, n_heads):
    B, T, C = t.shape
    return t.view(B, T, n_heads, C // n_heads).transpose(1, 2)  # cut each row's C columns into heads, then swap T and H


def merge_heads(t):
    B, H, T, d = t.shape
    return t.transpose(1, 2).reshape(B, T, H * d)  # back to (B, T, H, d), then glue each position's heads together


assert check("Exercise 3, split_heads", lambda: flat(split_heads(numbered, 2), (2, 2, 3, 4)),
             split_reference.reshape(-1), names=SPLIT_NAMES)
assert check("Exercise 3, merge_heads", lambda: flat(merge_heads(split_reference), (2, 3, 8)),
             merge_reference.reshape(-1), names=MERGE_NAMES)
solved_3 = True

# %% [markdown]
# Now the whole layer, with your two functions, for $d = 8$ and $h = 2$, against PyTorch's
# own `nn.MultiheadAttention` with the same weights.

# %%
split = attempt(lambda: split_heads, lambda: lambda t, n: torch.stack(t.split(t.shape[-1] // n, dim=-1), dim=1),
                name="Exercise 3", solved=solved_3)
merge = attempt(lambda: merge_heads, lambda: lambda t: torch.cat(t.unbind(dim=1), dim=-1), name="Exercise 3",
                solved=solved_3)


def multi_head_by_hand(x, W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o, n_heads):
    """Project, split into heads, attend in each, merge, project (weights as in nn.Linear: out x in)."""
    q, k, v = (split(x @ W.T + b, n_heads) for W, b in ((W_q, b_q), (W_k, b_k), (W_v, b_v)))  # each sees all C inputs
    d_head = q.shape[-1]
    heads = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_head), dim=-1) @ v  # (B, H, T, d_head)
    return merge(heads) @ W_o.T + b_o


torch.manual_seed(0)
reference = nn.MultiheadAttention(8, 2, batch_first=True).double()  # PyTorch's own
w_q, w_k, w_v = reference.in_proj_weight.chunk(3)
b_q, b_k, b_v = reference.in_proj_bias.chunk(3)
x = torch.randn(3, 6, 8, dtype=torch.float64, generator=generator)  # (B, T, C)

by_hand = multi_head_by_hand(x, w_q, w_k, w_v, reference.out_proj.weight, b_q, b_k, b_v, reference.out_proj.bias, 2)
library = MultiHeadAttention.from_torch(reference)
fast = MultiHeadAttention.from_torch(reference, fast=True)
expected, expected_weights = reference(x, x, x, average_attn_weights=False)
print("largest difference, by hand vs torch.nn.MultiheadAttention:", f"{(by_hand - expected).abs().max().item():.0e}")

# %% [markdown]
# The same computation as a picture, drawn by `dl4nlp.diagrams` from a module's own
# sizes: here the paper's base model, $d_{\text{model}} = 512$ and 8 heads of 64.
# Read the boxes carefully. $W_Q$ is $512 \times 512$ and $Q = XW_Q$ is $T \times 512$;
# head 1 takes the first 64 *columns* of $Q$, and each of those columns is a learned mix
# of all 512 input dimensions. So a head sees the whole word vector, through its own
# $512 \times 64$ projection, and attends in a 64-dimensional space. $W^O$ is where the
# heads' results are mixed. The parameter count, $4d^2 + 4d$,
# does not depend on $h$: eight heads of 64 cost what one head of 512 would.

# %%
paper_attention = MultiHeadAttention(512, 8)
multi_head_attention_diagram(paper_attention).draw(title="Multi-head self-attention (d_model = 512, h = 8)", scale=0.8)
plt.show()

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: by hand, the library and PyTorch agree on multi-head attention
claim("by hand == torch.nn.MultiheadAttention with the same weights (to 1e-12)",
      torch.allclose(by_hand, expected, atol=1e-12))
claim("dl4nlp's MultiHeadAttention, readable and fused paths, == torch (to 1e-12)",
      torch.allclose(library(x), expected, atol=1e-12) and torch.allclose(fast(x), expected, atol=1e-12))
claim("and so are the per-head weights, shape (B, H, T, T) (to 1e-12)",
      torch.allclose(library.last_weights, expected_weights, atol=1e-12))
expected_causal, _ = reference(x, x, x, attn_mask=~causal_mask(6))  # torch marks *forbidden* positions
lengths = torch.tensor([6, 4, 2])
expected_padded, _ = reference(x, x, x, key_padding_mask=~padding_mask(lengths, 6)[:, 0, 0])
claim("with a causal mask and with a padding mask too (to 1e-12)",
      torch.allclose(library(x, causal=True), expected_causal, atol=1e-12)
      and torch.allclose(library(x, mask=padding_mask(lengths, 6)), expected_padded, atol=1e-12))
claim(f"{count_parameters(library)} parameters = 4d^2 + 4d for d = 8, with 2 heads or 4",
      count_parameters(library) == 4 * 8 * 8 + 4 * 8 == count_parameters(MultiHeadAttention(8, 4)))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Why divide by $\sqrt{d_k}$?
#
# Suppose the entries of a query and a key are independent with mean 0 and
# variance 1. Their dot product $q \cdot k = \sum_{j=1}^{d_k} q_j k_j$ is a sum of $d_k$
# independent terms, each with mean 0 and variance $E[q_j^2]E[k_j^2] = 1$, so
#
# $$\operatorname{Var}(q \cdot k) = d_k, \qquad \operatorname{Var}\!\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = 1 .$$
#
# Vaswani et al. (2017, §3.2.1) offer this as a suspicion: "We suspect that for large
# values of $d_k$, the dot products grow large in magnitude, pushing the softmax function
# into regions where it has extremely small gradients." That is, widely spread scores push
# the softmax to put almost all weight on one key (it *saturates*), and a saturated
# softmax has almost no gradient, since its Jacobian $\partial \alpha_i / \partial e_j = \alpha_i(\delta_{ij} - \alpha_j)$
# vanishes when one $\alpha_i$ is 1. The paper measures neither step; here we measure both
# on random vectors (which says what the softmax does, not why the paper's models trained
# worse). First the variance law, on
# 10,000 random pairs per $d_k$.

# %%
# NBVAL_CHECK_OUTPUT
DIMS = [1, 4, 16, 64, 256, 1024]
generator = torch.Generator().manual_seed(1)
variances = {}
for d in DIMS:
    q_samples = torch.randn(10_000, d, dtype=torch.float64, generator=generator)
    k_samples = torch.randn(10_000, d, dtype=torch.float64, generator=generator)
    dots = (q_samples * k_samples).sum(-1)
    variances[d] = dots.var().item(), (dots / math.sqrt(d)).var().item()
    print(f"d_k = {d:4d}: Var(q.k) = {variances[d][0]:7.1f}   Var(q.k / sqrt(d_k)) = {variances[d][1]:.2f}")


# %%
def softmax_statistics(d, scale, n_keys=10, n_queries=500, seed=2):
    """Mean largest weight and mean Jacobian norm of softmax over n_keys random scores q.k (optionally / sqrt(d))."""
    generator = torch.Generator().manual_seed(seed)
    q = torch.randn(n_queries, 1, d, dtype=torch.float64, generator=generator)
    k = torch.randn(n_queries, n_keys, d, dtype=torch.float64, generator=generator)
    e = (q * k).sum(-1) / (math.sqrt(d) if scale else 1.0)  # (n_queries, n_keys)
    alpha = torch.softmax(e, dim=-1)
    jacobian = torch.diag_embed(alpha) - alpha[:, :, None] * alpha[:, None, :]  # d alpha_i / d e_j
    return alpha.max(-1).values.mean().item(), jacobian.flatten(1).norm(dim=-1).mean().item()


stats = {scale: [softmax_statistics(d, scale) for d in DIMS] for scale in (False, True)}
fig, (ax_max, ax_grad) = plt.subplots(1, 2, figsize=(11, 3.6))
for scale, label in [(False, "q.k"), (True, "q.k / sqrt(d_k)")]:
    ax_max.plot(DIMS, [s[0] for s in stats[scale]], marker="o", label=label)
    ax_grad.plot(DIMS, [s[1] for s in stats[scale]], marker="o", label=label)
ax_max.set(xscale="log", xlabel="d_k", ylabel="mean largest weight", title="Softmax over 10 keys: saturation")
ax_grad.set(xscale="log", yscale="log", xlabel="d_k", ylabel="mean Jacobian norm", title="... and its vanishing gradient")
ax_max.legend()
ax_grad.legend()
plt.show()
unscaled_max, unscaled_grad = softmax_statistics(512, scale=False)
scaled_max, scaled_grad = softmax_statistics(512, scale=True)
print(f"d_k = 512: largest weight {unscaled_max:.2f} unscaled vs {scaled_max:.2f} scaled; "
      f"Jacobian norm {unscaled_grad:.3f} vs {scaled_grad:.3f}")

# %% [markdown]
# Unscaled, the largest of ten weights climbs towards 1 as $d_k$ grows, and the
# softmax's gradient shrinks several-fold by $d_k = 1024$; scaled, both stay where they
# were at $d_k = 1$. With $d_k = 64$, as in the worked examples, the raw scores have a
# standard deviation of 8, and dividing by $\sqrt{64} = 8$ brings it back to 1.
#
# ### Play with it
#
# One query against ten random keys. Move $d_k$ and switch the scaling off and on.

# %%
interactive_figure(
    experiments.softmax_drawer(n_keys=10, seed=3),
    d_k=widgets.SelectionSlider(options=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], value=64, description="d_k"),
    scaled=widgets.Checkbox(value=False, description="divide by sqrt(d_k)"),
)

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the variance law, saturation and the vanishing gradient
worst = max(max(abs(v / d - 1), abs(s - 1)) for d, (v, s) in variances.items())
claim(f"Var(q.k) / d_k and Var(q.k / sqrt(d_k)) are within 5 % of 1 for every d_k from 1 to 1024 (worst {worst:.1%})",
      all(abs(v / d - 1) < 0.05 and abs(s - 1) < 0.05 for d, (v, s) in variances.items()))
claim(f"unscaled scores saturate the softmax at d_k = 512: mean largest weight {unscaled_max:.2f} > 0.9", unscaled_max > 0.9)
claim(f"... and its gradient is much smaller: Jacobian norm {unscaled_grad:.3f} < 0.2 x {scaled_grad:.3f} (scaled)",
      unscaled_grad < 0.2 * scaled_grad)
spread = max(abs(s[0] - stats[True][0][0]) for s in stats[True])
claim(f"scaled, the mean largest weight hardly depends on d_k: within {spread:.2f} (< 0.1) of its value at d_k = 1",
      spread < 0.1)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Without positions, order does not matter
#
# Nothing in $\operatorname{softmax}(QK^\top/\sqrt{d_k})V$ knows where a word sits: shuffle
# the rows of $X$ and the rows of the output are shuffled the same way,
# $\operatorname{SA}(PX) = P\,\operatorname{SA}(X)$ for every permutation matrix $P$. Self-attention
# is *permutation-equivariant*; "dog bites man" and "man bites dog" produce the
# same set of vectors. A whole Transformer encoder inherits this, because its
# feed-forward layers and LayerNorms act on each position separately.
# Positional encodings, the subject of chapter 09, are what breaks the symmetry.

# %%
torch.manual_seed(0)
x = torch.randn(1, 7, 16, dtype=torch.float64)
permutation = torch.tensor([3, 0, 6, 1, 5, 2, 4])
attention = MultiHeadAttention(16, 4).double()
attention_gap = (attention(x[:, permutation]) - attention(x)[:, permutation]).abs().max().item()

encoder = TransformerEncoder(TransformerConfig(vocab_size=1, d_model=16, n_heads=4, n_layers=2)).double()
encoder_gap = (encoder(x[:, permutation]) - encoder(x)[:, permutation]).abs().max().item()

positions = make_positional("sinusoidal", 7, 16).double()
with_positions = lambda inputs: encoder(positions(inputs))  # noqa: E731
gap = (with_positions(x[:, permutation]) - with_positions(x)[:, permutation]).abs().max().item()
print(f"permute, then encode vs encode, then permute: one multi-head layer {attention_gap:.0e}, "
      f"two-layer encoder {encoder_gap:.0e}; with sinusoidal positions {gap:.2f}")

# %% [markdown]
# **A decoder is different.** A decoder uses a causal mask: position $t$ attends to
# positions $1..t$ only.
#
# **Exercise 4 (predict, then run).** Take the same encoder, still *without*
# positional encodings, and give it a causal mask. Is it still permutation-equivariant,
# that is, does permuting the input only permute the outputs? Answer `True` or
# `False` in `exercise_4` *before* you run the cell after it, and write down why.

# %%
def exercise_4():
    raise NotImplementedError  # return True or False: still permutation-equivariant with a causal mask?


# %%
causal_gap = (encoder(x[:, permutation], causal=True) - encoder(x, causal=True)[:, permutation]).abs().max().item()
print(f"with a causal mask and no positions, permuting the input changes the outputs by up to {causal_gap:.2f}")
check("Exercise 4", exercise_4, causal_gap < 1e-12);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 4
def exercise_4():
    # No: shuffling the words changes *which* words each position sees. The first position sees one word,
    # the last sees all of them, so the mask itself tells positions apart.
    return False


assert check("Exercise 4", exercise_4, causal_gap < 1e-12)

# %% [markdown]
# With a causal mask the symmetry is gone even without positional encodings: the first
# position sees one word, the last sees all of them. Chapter 09 trains a model with no
# positional encoding at all that learns, from the mask alone, where its tokens are (the
# effect Haviv et al., 2022, found in large language models).

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: permutation equivariance, and what breaks it
claim(f"without positions, one multi-head layer is permutation-equivariant (differs by {attention_gap:.0e} < 1e-12)",
      torch.allclose(attention(x[:, permutation]), attention(x)[:, permutation], atol=1e-12))
claim(f"so is a two-layer encoder (differs by {encoder_gap:.0e} < 1e-12)",
      torch.allclose(encoder(x[:, permutation]), encoder(x)[:, permutation], atol=1e-12))
claim(f"with sinusoidal positions added it is not: the outputs differ by up to {gap:.2f} (> 0.1)", gap > 0.1)
claim(f"with a causal mask and no positions it is not either: up to {causal_gap:.2f} (> 0.1)", causal_gap > 0.1)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. What it costs
#
# The lecture's table (Vaswani et al., 2017, Table 1) compares one layer of each kind on a
# sequence of $n$ vectors of size $d$, a convolution with kernel width $k$ included; the
# last column, the layer's weight matrices, is ours:
#
# | layer | operations per layer | sequential operations | longest path between two positions | weights (no biases) |
# |---|---|---|---|---|
# | self-attention | $O(n^2 d)$ | $O(1)$ | $O(1)$ | $4d^2$ |
# | recurrent (GRU) | $O(n d^2)$ | $O(n)$ | $O(n)$ | $6d^2$ |
# | convolutional | $O(k n d^2)$ | $O(1)$ | $O(\log_k n)$ (dilated; $O(n/k)$ otherwise) | $k d^2$ |
#
# The $O(\cdot)$ hides constants, and for a fair comparison we need them. Take one
# attention head, one GRU layer and one convolution of width $k = 3$, all of width $d$, and
# count multiply-adds:
#
# - **self-attention:** the four projections ($Q$, $K$, $V$ and $W^O$), each $n$ rows times a
#   $d \times d$ matrix, cost $4nd^2$; the scores $QK^\top$ cost $n^2 d$, and the weighted sum of
#   the values another $n^2 d$: in all $4nd^2 + 2n^2d$.
# - **GRU:** at each of the $n$ steps, three gates, each an input and a hidden $d \times d$
#   product: $6nd^2$.
# - **convolution:** at each of the $n$ positions, $k$ neighbours times a $d \times d$ matrix: $knd^2$.
#
# Each layer's $n \cdot (\text{weights})$ term is its weights applied once per position: $4nd^2$,
# $6nd^2$, $3nd^2$. Only self-attention has a term with no weights in it, $2n^2d$: the
# comparison of every position with every other.
#
# So self-attention does *less* arithmetic than the GRU as long as $2n^2 d < 2nd^2$, that
# is $n < d$. With $d = 64$ the two are equal at exactly $n = 64$. We do not have to trust
# the algebra: PyTorch's `FlopCounterMode` records every matrix product a module runs
# (2 FLOPs per multiply-add).

# %%
# NBVAL_CHECK_OUTPUT
SIZES = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
d_model = 64
torch.manual_seed(0)
attention_layer = MultiHeadAttention(d_model, 1)
recurrent_layer = nn.GRU(d_model, d_model, batch_first=True)
convolution = nn.Conv1d(d_model, d_model, kernel_size=3, padding=1)  # works on (1, d, n): transposed below


def counted_flops(layer, n):
    """FLOPs of one forward pass of ``layer`` on a (1, n, d) input, as FlopCounterMode counts them."""
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        layer(torch.zeros(1, n, d_model))
    return counter.get_total_flops()


def multiply_adds(layer, n, d=d_model):
    """The formulas above."""
    return {"self-attention": 4 * n * d**2 + 2 * n**2 * d, "GRU": 6 * n * d**2, "convolution": 3 * n * d**2}[layer]


weights = {name: sum(p.numel() for p in layer.parameters() if p.dim() > 1)  # matrices and kernels, no biases
           for name, layer in (("self-attention", attention_layer), ("GRU", recurrent_layer), ("convolution", convolution))}
print("weights (no biases): " + ", ".join(f"{name} {count:,}" for name, count in weights.items()))


COUNTED = SIZES[:5]  # counting runs the layer under a Python hook: the GRU's long loops would take seconds
flops = {"self-attention": [counted_flops(attention_layer, n) for n in COUNTED],
         "GRU": [counted_flops(recurrent_layer, n) for n in COUNTED],
         "convolution": [counted_flops(lambda x: convolution(x.transpose(1, 2)), n) for n in COUNTED]}
print(f"{'n':>5} {'self-attention':>15} {'GRU':>13} {'convolution':>13}   multiply-adds, counted")
for i, n in enumerate(COUNTED):
    a, g, c = (flops[name][i] // 2 for name in flops)
    print(f"{n:5d} {a:15,} {g:13,} {c:13,}   attention vs GRU: "
          f"{'attention cheaper' if a < g else 'equal' if a == g else 'GRU cheaper'}")

# %% [markdown]
# Self-attention also stores something the GRU does not: one $n \times n$ matrix of
# weights per head, which the readable implementation keeps (for plots like those of
# section 8). Its size we can count exactly.

# %%
# NBVAL_CHECK_OUTPUT
weight_bytes = {}
with torch.no_grad():
    for n in (16, 256, 4096):
        attention_layer(torch.zeros(1, n, d_model))
        weight_bytes[n] = attention_layer.last_weights.numel() * attention_layer.last_weights.element_size()
        print(f"n = {n:5d}: attention weights {tuple(attention_layer.last_weights.shape)}, "
              f"{weight_bytes[n]:>10,} bytes = {n}^2 x 4")
print(f"16 times longer -> 256 times more memory ({weight_bytes[4096] // 2**20} MiB at n = 4096); "
      f"the GRU keeps {d_model} numbers per position")

# %% [markdown]
# Counts are not times. How fast each layer runs on your processor depends on more than
# its arithmetic: the optional section "Going further" at the end times both layers and
# explains what the clock shows.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The $n \times n$ matrix need not exist all at once. Memory-efficient kernels such as
# FlashAttention (Dao et al., 2022) compute exactly the same output block by block,
# keeping a running softmax, with $O(n)$ memory beyond the inputs and outputs; the arithmetic
# is still $O(n^2 d)$. PyTorch's `F.scaled_dot_product_attention`, the library's fast path,
# picks such a kernel where it can. Chapter 11 checks the equality and measures the memory.
# So for long inputs the cost that remains quadratic is the computation, which is what
# sparse patterns (Longformer, BigBird) reduce.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the counts are the formulas
claim(f"counted multiply-adds are exactly 4nd^2 + 2n^2d (attention), 6nd^2 (GRU) and 3nd^2 (convolution) at n = {COUNTED}",
      all(flops[name] == [2 * multiply_adds(name, n) for n in COUNTED] for name in flops))
claim(f"the weights are 4d^2, 6d^2 and 3d^2 for d = 64: {list(weights.values())}",
      list(weights.values()) == [4 * 64**2, 6 * 64**2, 3 * 64**2])
claim("so each count is n x (the layer's weights), plus 2n^2d for attention alone",
      all(multiply_adds(name, n) == n * weights[name] + (2 * n * n * 64 if name == "self-attention" else 0)
          for name in weights for n in COUNTED))
cheaper = [n for i, n in enumerate(COUNTED) if flops["self-attention"][i] < flops["GRU"][i]]
equal = [n for i, n in enumerate(COUNTED) if flops["self-attention"][i] == flops["GRU"][i]]
claim(f"attention does less arithmetic at n = {cheaper}, the same at n = {equal} = d, more beyond",
      cheaper == [16, 32] and equal == [64])
claim("the weights take n^2 x 4 bytes at n = 16, 256 and 4096: 256 times more for 16 times longer",
      all(weight_bytes[n] == n * n * 4 for n in weight_bytes)
      and weight_bytes[4096] == 16**2 * weight_bytes[256] == 256**2 * weight_bytes[16])

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 8. Inside a small trained Transformer
#
# What do trained heads attend to? A two-layer Transformer encoder with two heads
# per layer ($d = 32$, sinusoidal positions) learns to reverse strings of 8 letters:
# the output at position $i$ must be the input letter at position $9 - i$. Since the
# letters are random, the only way is to move information between positions, and
# attention is the only part of the model that can. The model is
# `dl4nlp.taggers.Tagger`, which chapter 09 uses again for its experiments with
# positions. It trains in a few seconds, and we test it on 500 strings it never saw.

# %%
LETTERS, LENGTH = experiments.LETTERS, experiments.LENGTH
print(experiments.CONFIG)
print(experiments.TRAINING)
heads = experiments.reversal_heads(seed=0)  # trains the model (once) and measures its heads
reverser = experiments.trained_reverser(0)
test_ids = experiments.held_out(0)
with torch.no_grad():
    reverser(test_ids)
layer_weights = [w.cpu() for w in reverser.attention_weights()]  # per layer: (B, H, T, T)
print(f"test accuracy (all 8 letters right): {heads.accuracy:.1%}")
for layer in range(2):
    for head in range(2):
        print(f"layer {layer + 1}, head {head + 1}: largest weight {heads.largest[layer][head]:.2f} on average, "
              f"entropy {heads.entropy[layer][head]:.2f} nats (uniform: {heads.uniform_entropy:.2f}), "
              f"weight on the mirrored position {heads.mirror[layer][head]:.0%}, "
              f"within one position of it {heads.near_mirror[layer][head]:.0%}, "
              f"within one position of its own {heads.near_self[layer][head]:.0%}")


# %%
letters = [LETTERS[i] for i in test_ids[0].tolist()]
fig, axes = plt.subplots(1, 4, figsize=(18, 3.8))
for ax, (layer, head) in zip(axes, [(1, 1), (1, 2), (2, 1), (2, 2)]):
    plot_attention(layer_weights[layer - 1][0, head - 1], letters, [f"{i + 1}" for i in range(LENGTH)], ax=ax,
                   vmax=1.0, title=f"layer {layer}, head {head}: {''.join(letters)} -> {''.join(letters[::-1])}")
fig.tight_layout()
plt.show()

# %% [markdown]
# Rows are output positions (queries), columns the input letters (keys), and every map
# uses the same colour scale, from 0 to 1, so pale means small. In the second layer the
# weight gathers along the anti-diagonal: position 1 reads the last letter, position 8
# the first, the lookup the task needs; the printout above gives each head's share on
# the mirrored position. The first layer's heads are soft: a query's largest weight is
# smaller on average than in the second layer, and the entropy of its weights higher.
# (Drawn each on its own scale, a soft map looks as crisp as a sharp one: always check
# the colour bar.) But soft does not mean local: the first layer's heads do not gather
# each letter's own neighbourhood. Each puts more weight within one position of the
# *mirrored* position than within one position of its own (the printout gives the
# shares): already a blurred version of the lookup, which the second layer sharpens. Weights in a deep model are not always this readable; this task is simple
# enough for them to be.
#
# ### Play with it
#
# Pick the layer, the head and the test string.

# %%
interactive_figure(
    experiments.head_drawer(layer_weights, test_ids),
    layer=widgets.Dropdown(options=[1, 2], value=2, description="layer"),
    head=widgets.Dropdown(options=[1, 2], value=1, description="head"),
    example=widgets.IntSlider(value=0, min=0, max=19, description="string"),
)

# %% [markdown]
# ### The same word, two vectors
#
# Why does this matter for language? A word's meaning depends on its neighbours, and
# self-attention is how a Transformer lets the neighbours in. Take chapter 13's tiny
# BERT (two layers, $d = 128$, pre-trained on children's stories) and the word "play"
# at the same position of two sentences: a verb in one, a noun in the other. Its input
# vector (token, position and segment embeddings) is the same in both; its output is not.
# To see that attention is what makes the difference, run the model once more with
# attention allowed to the word itself only.

# %%
bert, wordpiece = load_pretrained()
play_sentences = ["we play in the park after school", "the play at school was very funny"]
ids = torch.tensor([[wordpiece.stoi["[CLS]"]] + wordpiece.encode(s) + [wordpiece.stoi["[SEP]"]] for s in play_sentences])
print([wordpiece.itos[i] for i in ids[0].tolist()], [wordpiece.itos[i] for i in ids[1].tolist()], sep="\n")
only_itself = torch.zeros(ids.shape, dtype=torch.bool)
only_itself[:, 2] = True  # every query may attend to position 2 ("play") only
with torch.no_grad():
    inputs, outputs = bert.embed(ids)[:, 2], bert(ids)[:, 2]  # (2, 128) each: "play" in each sentence
    alone = bert(ids, valid=only_itself)[:, 2]
play_cosine = F.cosine_similarity(outputs[0], outputs[1], dim=0).item()
alone_gap = (alone[0] - alone[1]).abs().max().item()
print(f"input vectors of 'play' identical: {torch.equal(inputs[0], inputs[1])}; "
      f"output vectors: cosine similarity {play_cosine:.2f}; attending to itself only: they differ by {alone_gap:.0e}")

# %% [markdown]
# Same input, two outputs: after two layers of self-attention, "play" carries something of
# each sentence. With attention confined to the word itself the two outputs are
# identical again, so the context enters through attention and nowhere else (the
# feed-forward layers act on each position alone). This is what "contextual" word
# vectors means; chapter 13 puts such vectors to work.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: what the trained heads do
print(f"test accuracy {heads.accuracy:.3f}; mean largest weight, layer 1: "
      f"{', '.join(f'{v:.2f}' for v in heads.largest[0])}, layer 2: {', '.join(f'{v:.2f}' for v in heads.largest[1])}; "
      f"weight on the mirrored position, layer 2: {', '.join(f'{v:.2f}' for v in heads.mirror[1])}; "
      f"within one position of it, layer 1: {', '.join(f'{v:.2f}' for v in heads.near_mirror[0])}; "
      f"within one of its own, layer 1: {', '.join(f'{v:.2f}' for v in heads.near_self[0])}; entropy (nats), "
      f"layer 1: {', '.join(f'{v:.2f}' for v in heads.entropy[0])}, layer 2: {', '.join(f'{v:.2f}' for v in heads.entropy[1])}")
for sentence, holds in experiments.heads_claims(heads).items():
    claim(f"{sentence} (seed 0)", holds)
claim("the tiny BERT's input vectors of 'play' at position 2 of the two sentences are identical",
      torch.equal(inputs[0], inputs[1]))
claim(f"its output vectors differ: cosine similarity {play_cosine:.2f}, about 0.85 (between 0.8 and 0.9)",
      0.8 < play_cosine < 0.9)
claim(f"attending to itself only, the two outputs agree (to 1e-5; differ by {alone_gap:.0e})", alone_gap < 1e-5)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - Self-attention projects each word to a query, a key and a value; the output for a word is the softmax-weighted average of all values, weighted by query–key dot products divided by $\sqrt{d_k}$. The "Thinking Machines" numbers (112, 96 → 14, 12 → 0.8808, 0.1192) come out exactly.
# - The lecture writes $q_i = W_q x_i$ (columns), we write $q_i = x_i W^Q$ (rows): the same numbers, transposed.
# - In the four-word example, the slides' first row (0.87, 0.12, 0.01, 0) is not the rounded softmax (0.88, 0.12, $5 \times 10^{-6}$, $2 \times 10^{-6}$): both slide rows sum to exactly 1.00, as if adjusted to; the second row is far from its own scores (exact 0.018 and 0.982, slides 0.08 and 0.91).
# - All positions at once: $\operatorname{softmax}(QK^\top/\sqrt{d_k})V$, with causal and padding masks. Each of $h$ heads projects the whole word vector (all $d$ dimensions) into its own $d/h$-dimensional space and attends there; the split into heads and the merge back are a `view` and a `transpose`, which you wrote; $W^O$ mixes the heads; $4d^2 + 4d$ parameters whatever $h$. Verified against `torch.nn.MultiheadAttention`.
# - $\operatorname{Var}(q \cdot k) = d_k$: unscaled, at $d_k = 512$, the softmax over ten keys saturates (mean largest weight above 0.9) and its gradient shrinks more than five-fold, the paper's suspected reason for the scaling.
# - Without positions self-attention is permutation-equivariant, unless a causal mask breaks the symmetry.
# - Counted exactly, one head costs $4nd^2 + 2n^2d$ multiply-adds, a GRU layer $6nd^2$ and a width-3 convolution $3nd^2$: $n$ times each layer's weights ($4d^2$, $6d^2$, $3d^2$), plus attention's weight-free $2n^2d$. Attention does less arithmetic than the GRU below $n = d$; its $n \times n$ weights grow 256-fold when $n$ grows 16-fold.
# - In the tiny BERT, "play" has the same input vector in two sentences and two different output vectors (cosine similarity about 0.85); with attention confined to the word itself they are identical: context enters through attention.
# - In a trained two-layer reverser, attention in the second layer is much sharper than in the first and reads the mirrored position, the lookup the task needs; the first layer's heads are soft but already look near the mirrored position, not at each letter's neighbourhood. Compare heads on one colour scale.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What comes next
#
# Self-attention cannot tell "dog bites man" from "man bites dog". Chapter 09 gives it a
# sense of order: sinusoidal, learned and rotary positional encodings, what each
# promises, and what happens on sequences longer than any seen in training.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# - A. Vaswani et al., *Attention is all you need*, NeurIPS (2017).
# - J. Alammar, *The Illustrated Transformer* (2018), the source of the "Thinking Machines" example.
# - A. M. Rush, *The Annotated Transformer* (2018).
# - Y. Tay, M. Dehghani, D. Bahri, D. Metzler, *Efficient Transformers: a survey*, ACM Computing Surveys (2022).
# - T. Dao, D. Y. Fu, S. Ermon, A. Rudra, C. Ré, *FlashAttention: fast and memory-efficient exact attention with IO-awareness*, NeurIPS (2022).
# - A. Haviv, O. Ram, O. Press, P. Izsak, O. Levy, *Transformer language models without positional encodings still learn positional information*, Findings of EMNLP (2022).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further
#
# *Optional.* **The clock.** Section 7 counted arithmetic. Here is one forward pass of
# each layer timed on this CPU (one thread, median of 5 runs), and, beside it, how many
# separate PyTorch operations each layer issues.

# %%
def median_seconds(fn, repeats=5):
    fn()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


threads = torch.get_num_threads()
torch.set_num_threads(1)
timings = {"self-attention": [], "GRU": []}
operations = {"self-attention": [], "GRU": []}
with torch.no_grad():
    for n in SIZES:
        x = torch.randn(1, n, d_model)
        for name, layer in (("self-attention", attention_layer), ("GRU", recurrent_layer)):
            timings[name].append(median_seconds(lambda: layer(x)))
            if n in COUNTED:
                operations[name].append(experiments.dispatched_operations(lambda: layer(x)))
torch.set_num_threads(threads)

fig, (ax_time, ax_rate) = plt.subplots(1, 2, figsize=(12, 4))
for name in timings:
    ax_time.plot(SIZES, [1000 * t for t in timings[name]], marker="o", label=name)
    ax_rate.plot(SIZES, [2 * multiply_adds(name, n) / t / 1e9 for n, t in zip(SIZES, timings[name])],
                 marker="o", label=name)
ax_time.plot(SIZES, [1000 * timings["self-attention"][-1] * (n / SIZES[-1]) ** 2 for n in SIZES], "k:",
             label="n² (through the last point)")
ax_time.set(xscale="log", yscale="log", xlabel="sequence length n", ylabel="time per layer (ms)",
            title=f"One layer, d = {d_model}, this CPU, one thread")
ax_rate.set(xscale="log", xlabel="sequence length n", ylabel="GFLOP per second",
            title="Counted FLOPs divided by time")
ax_time.legend()
ax_rate.legend()
fig.tight_layout()
plt.show()
print("operations issued per forward pass:")
for name, counts in operations.items():
    print(f"  {name:>14}: " + ", ".join(f"n={n}: {c}" for n, c in zip(COUNTED, counts)))

# %% [markdown]
# **What the measurement shows.** The times are your machine's; the pattern is typical of a CPU.
#
# - *Time is not arithmetic.* The right panel divides the counted FLOPs by the time. If time
#   followed arithmetic the curves would be flat; instead both layers run far below the
#   processor's speed at short lengths, where fixed costs dominate: every operation PyTorch
#   dispatches costs microseconds of bookkeeping whatever its size.
# - *The GRU's loop.* Self-attention issues the same handful of operations at every length
#   (a few large matrix products); the GRU issues a fixed number more for every position,
#   because step $t$ needs step $t - 1$. So below $n = 64$, where the GRU does *more*
#   arithmetic, and well beyond, where it does less, its small sequential steps are what
#   its time is made of: the "sequential operations" column of the table.
# - *Memory, not arithmetic, at the largest lengths.* From a few hundred positions on,
#   self-attention's time grows roughly like $n^2$, and can grow faster than $n^2$ at the
#   end of the range, where the $n \times n$ score matrix (64 MiB at $n = 4096$) no longer fits
#   the processor's caches and the softmax waits on memory. Compare the dotted $n^2$ line.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: what does not depend on the machine
attention_ops, gru_ops = operations["self-attention"], operations["GRU"]
per_position = (gru_ops[1] - gru_ops[0]) / (SIZES[1] - SIZES[0])
claim(f"the attention layer issues {attention_ops[0]} operations at every length counted", len(set(attention_ops)) == 1)
claim(f"the GRU issues {per_position:g} more (at least 3) with every position",
      per_position >= 3 and all(g == gru_ops[0] + per_position * (n - SIZES[0]) for n, g in zip(COUNTED, gru_ops)))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Check your understanding
#
# A few questions to answer without code, about what this chapter showed. Click an answer to see whether it is right and why; the section named under each question is where the chapter shows it.

# %%
from dl4nlp import quiz

quiz.show("08")

# %% [markdown] slideshow={"slide_type": "skip"}
# ## Instructor notes
#
# - **The trained reverser** (section 8) is `dl4nlp.experiments.attention.reversal_heads(seed)`:
#   200 Adam steps of 128 fresh random strings, trained live in a few seconds, tested on 500
#   strings checked disjoint from every training string. The notebook asserts
#   `heads_claims` on seed 0; `tests/claims/test_08_self_attention.py` asserts the same
#   claims on seeds 1–3 (`CLAIM_SEEDS`). The thresholds live in the module (`REVERSES`,
#   `MIRROR`, `SHARPER`); the prose deliberately quotes none of them, so a restated
#   threshold does not make the text false. The printout gives the measured numbers.
# - **Portability.** Sections 1–7 are exact or float64 computations (tolerances 1e-12 or
#   1e-15 on values of size at most a few hundred, far above float64 rounding). The
#   reverser is a live training run; its claims have wide margins and are re-checked under
#   a second CPU kernel configuration (`ATEN_CPU_CAPABILITY=default`,
#   `ONEDNN_MAX_CPU_ISA=SSE41`, `MKL_ENABLE_INSTRUCTIONS=SSE4_2`). No checked output prints
#   kernel-dependent digits.
# - **Timings** (Going further) are never asserted; only the operation counts are, which
#   are the same on every machine for a given torch version (the GRU's per-position count
#   comes from PyTorch's CPU GRU loop; if a torch release fuses it, that claim is the one
#   to revisit). `FlopCounterMode` needs torch ≥ 2.1, the course's minimum.
# - **Slides' slips** (section 2) are stated as what the formula gives, with the score that
#   would produce the slides' second row (about 104.5 instead of 92); the old exercise on it
#   was replaced by exercise 3 (split and merge heads), the step students stumble on.
# - **The widgets** are drawn by `dl4nlp.experiments.attention.softmax_drawer` and
#   `head_drawer`: each lays its figure out once and changes only the data, numbers and
#   title on a redraw (a new figure with a colour bar per redraw took 0.64 s on the bench
#   machine).
# - Exercise 4 is the "predict, then run" exercise: ask the class for a show of hands
#   before running the cell.
