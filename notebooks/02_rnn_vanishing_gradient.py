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
# # 02 · Why plain RNNs forget: vanishing and exploding gradients through time
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/02_rnn_vanishing_gradient.ipynb)
#
# A recurrent network reads a sentence one token at a time and carries
# everything it has seen in a single hidden vector. In principle that vector can
# remember the first word of a long paragraph; in practice a plain RNN forgets
# it within a few dozen steps. This notebook finds out why. You will build a
# vanilla RNN and check it against PyTorch, unroll backpropagation through
# time into a product of Jacobians and watch that product shrink or blow up,
# compute the lecture's $1.01^{1000}$ and $0.99^{1000}$ exactly, tame an exploding run
# with gradient clipping, and measure the lag at which an RNN can no longer
# remember a token.
#
# **You will:**
# - write the RNN language model's forward pass and verify it against `torch.nn.RNN`;
# - train it with teacher forcing and a loss summed over time;
# - measure $\lVert\partial h^{(T)}/\partial h^{(t)}\rVert$ as a function of the distance $T-t$;
# - connect what you measure to the eigenvalues of the recurrent matrix;
# - see a loss surface with a cliff, and keep training stable with gradient clipping;
# - find the lag at which a vanilla RNN falls to chance on a memory task, and how identity initialisation (IRNN) pushes it further.
#
# **Prerequisites:** notebook 01 (backpropagation, gradients through many layers).
#
# **Run time:** about 30 seconds on a laptop CPU.

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

from dl4nlp.data import load_text, random_windows
from dl4nlp.exercises import check
from dl4nlp.gradflow import time_step_gradient_norms
from dl4nlp.plots import plot_gradient_norms
from dl4nlp.rnn import (RecurrentClassifier, RecurrentLM, UnrolledRNN, identity_init_, jacobian_norms,
                        language_model_loss, scaled_orthogonal)
from dl4nlp.tasks import fit_long_lag, long_lag_accuracy, long_lag_task
from dl4nlp.tokenize import CharVocab
from dl4nlp.train import train
from dl4nlp.widgets import interactive_figure

# Speed on a CPU, without changing any result: vanishing gradients produce "denormal"
# floats, which many CPUs process a hundred times more slowly, so flush them to zero.
# (dl4nlp.start() has already put torch on one CPU thread.)
torch.set_flush_denormal(True)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. The RNN language model
#
# **Intuition.** A language model predicts the next token from the ones before
# it. A recurrent network does this with one fixed set of weights applied at
# every position: it folds the current token's embedding into a running
# summary $h^{(t)}$ and predicts the next token from that summary.
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

# %% [markdown]
# **Checkpoint.** The loop written by hand, `dl4nlp.rnn.UnrolledRNN` and
# `torch.nn.RNN` produce the same hidden states at every step (to float32 rounding).

# %%
# NBVAL_CHECK_OUTPUT
difference_hand = (by_hand - by_torch).abs().max().item()
difference_library = (by_library - by_torch).abs().max().item()
assert difference_hand < 1e-5 and difference_library < 1e-5, (difference_hand, difference_library)
assert torch.allclose(h_last[0], by_torch[:, -1])
print(f"hidden states: {tuple(by_torch.shape)} (batch, time, hidden); all three agree to within 1e-5")

# %% [markdown]
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
# Before training, its predictions are nearly uniform over the $|V|$ characters, so
# each step costs about $\log |V|$ nats. The summed loss is the sum of the
# per-step terms $-\log \hat y^{(t)}_{x^{(t+1)}}$, which we also compute one by one.

# %%
torch.manual_seed(0)
lm = RecurrentLM(len(vocab), hidden_size=64, kind="rnn", embedding_dim=32)
logits, _ = lm(inputs[None])  # (1, T, V)
summed = language_model_loss(logits, targets[None], reduction="sum")
per_step = [-torch.log_softmax(logits[0, t], dim=-1)[targets[t]] for t in range(len(targets))]

# %% [markdown]
# **Checkpoint.** The summed loss equals the sum of the per-step losses, and the
# untrained model pays close to $\log|V|$ per character.

# %%
# NBVAL_CHECK_OUTPUT
assert abs(summed.item() - sum(per_step).item()) < 1e-3
mean_loss = summed.item() / len(targets)
assert abs(mean_loss - math.log(len(vocab))) < 0.2, mean_loss
print(f"log |V| = log {len(vocab)} = {math.log(len(vocab)):.3f} nats; untrained loss per character "
      f"is within 0.2 of it")

# %% [markdown]
# Now a short training run with the course's shared loop `dl4nlp.train.train`:
# random 65-character windows, teacher forcing, Adam.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** One forward pass scores all 64 predictions of a window at once,
# which is what makes teacher forcing cheap.

# %%
generator = torch.Generator().manual_seed(0)


def lm_loss(model, batch):
    logits, _ = model(batch[:, :-1])  # teacher forcing: feed x(1..T) ...
    return language_model_loss(logits, batch[:, 1:])  # ... and predict x(2..T+1)


lm_history = train(lm, lm_loss, lambda step: random_windows(ids, 32, 65, generator),
                   steps=100, lr=1e-2, clip_norm=1.0, desc="RNN language model")
start_loss, end_loss = lm_history.loss[0], np.mean(lm_history.loss[-10:])
print(f"loss per character: {start_loss:.2f} at the first step, {end_loss:.2f} over the last 10")

# %% [markdown]
# **Checkpoint.** 100 steps are enough to learn the easy regularities (frequent
# letters, spaces after words): the loss drops by more than 1.5 nats per character.

# %%
assert end_loss < start_loss - 1.5, (start_loss, end_loss)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. Backpropagation through time is a product of Jacobians
#
# **Intuition.** Unrolled over $T$ steps, an RNN is a $T$-layer network whose
# layers all share one weight matrix. Backpropagation through it (BPTT) is
# ordinary backpropagation through that deep network, and in notebook 01 we saw what
# happens to a gradient that crosses many layers.
#
# **The maths.** Write $z^{(t)} = W_h h^{(t-1)} + W_e e^{(t)} + b_1$, so $h^{(t)} = \tanh(z^{(t)})$.
# One step back multiplies by the Jacobian
#
# $$\frac{\partial h^{(t)}}{\partial h^{(t-1)}} = \operatorname{diag}\!\bigl(\tanh'(z^{(t)})\bigr)\, W_h ,$$
#
# so the influence of $h^{(t)}$ on $h^{(T)}$ is a product of $T-t$ such factors:
#
# $$\frac{\partial h^{(T)}}{\partial h^{(t)}} = \prod_{k=t+1}^{T} \operatorname{diag}\!\bigl(\tanh'(z^{(k)})\bigr)\, W_h ,
# \qquad
# \frac{\partial J^{(T)}}{\partial h^{(t)}} = \frac{\partial J^{(T)}}{\partial h^{(T)}}\,\frac{\partial h^{(T)}}{\partial h^{(t)}} .$$
#
# A loss at step $T$ reaches step $t$ only through this product, and the
# total gradient of a weight sums such contributions over all steps.
#
# `dl4nlp.rnn.jacobian_norms(W_h, steps)` runs an RNN with random inputs in
# float64, forms the product and returns its spectral norm $\lVert\partial h^{(T)}/\partial h^{(T-k)}\rVert_2$
# for every distance $k$. We choose $W_h = \rho\,Q$ with $Q$ a random orthogonal
# matrix, so every eigenvalue of $W_h$ has modulus exactly $\rho$ (its *spectral radius*).
# Without the nonlinearity the answer is known in closed form: $\lVert(\rho Q)^k\rVert_2 = \rho^k$.

# %%
generator = torch.Generator().manual_seed(0)
radii = [0.5, 0.9, 1.0, 1.5, 3.0]
recurrent = {rho: scaled_orthogonal(64, rho, generator) for rho in radii}
distance = 60
tanh_norms = {rho: jacobian_norms(W, distance, "tanh", input_scale=0.5) for rho, W in recurrent.items()}
linear_norms = {rho: jacobian_norms(W, distance, "linear") for rho, W in recurrent.items()}

fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
for ax, norms, name in [(axes[0], linear_norms, "linear (no tanh)"), (axes[1], tanh_norms, "tanh")]:
    for rho, n in norms.items():
        ax.plot(np.arange(distance + 1), n, label=f"ρ = {rho:g}")
    ax.set_yscale("log")
    ax.set_xlabel("distance T − t (steps back in time)")
    ax.set_title(f"‖∂h(T)/∂h(t)‖, {name}")
axes[0].set_ylabel("spectral norm (log scale)")
axes[0].legend()
axes[0].set_ylim(1e-25, 1e25)
plt.show()

# %% [markdown]
# On the left (no nonlinearity) each line is exactly $\rho^{T-t}$: straight on a log
# scale, down for $\rho < 1$, flat for $\rho = 1$, up for $\rho > 1$. On the right,
# $\tanh$ bends every line downwards: its derivative is at most 1, so each factor
# can only shrink the product further. Even $\rho = 1$ now vanishes, and $\rho = 1.5$
# ends near 4 instead of $4\times10^{10}$, because larger weights push the units into
# $\tanh$'s flat tails, where $\tanh' \approx 0$. Only a large radius still explodes.
#
# **Checkpoint.** The linear case matches $\rho^k$ to rounding; the $\tanh$ case never
# exceeds it; with $\rho \le 1$ the influence of a step 60 steps back is below $10^{-6}$;
# for $\rho = 1.5$ the $\tanh$ product is more than a billion times smaller than $1.5^{60}$, and $\rho = 3$ still explodes.

# %%
k = np.arange(distance + 1)
for rho in radii:
    assert np.allclose(linear_norms[rho], rho**k, rtol=1e-9), rho
    assert np.all(tanh_norms[rho] <= rho**k * (1 + 1e-9)), rho
assert all(tanh_norms[rho][-1] < 1e-6 for rho in (0.5, 0.9, 1.0))
assert tanh_norms[1.5][-1] < 1e-9 * 1.5**distance and 1 < tanh_norms[1.5][-1] < 10
assert tanh_norms[3.0][-1] > 1e3
print(f"{'rho':>5} {'rho^60':>10} {'tanh: |dh(T)/dh(T-60)|':>24}")
for rho in radii:
    print(f"{rho:5g} {rho**distance:10.2e} {tanh_norms[rho][-1]:24.2e}")

# %% [markdown]
# ### The gradient that reaches each time step
#
# The same story, seen from the loss: we run `UnrolledRNN` with $W_h = \rho Q$ over
# 60 steps, put a loss on the last hidden state only, and let autograd compute
# $\lVert\partial J^{(T)}/\partial e^{(t)}\rVert$, the gradient that arrives at each input.
# `dl4nlp.gradflow.time_step_gradient_norms` does the bookkeeping and `plot_gradient_norms`
# (from notebook 01) draws it, now against time instead of depth.

# %%
def gradient_per_step(rho, steps=60, seed=0):
    generator = torch.Generator().manual_seed(seed)
    model = UnrolledRNN(16, 64).double()
    with torch.no_grad():
        model.cell.weight_hh.copy_(scaled_orthogonal(64, rho, generator))
        model.cell.weight_ih.normal_(0.0, 0.5 / 4, generator=generator)  # inputs of size about 0.5
        model.cell.bias_ih.zero_()
        model.cell.bias_hh.zero_()
    e = torch.randn(32, steps, 16, generator=generator, dtype=torch.float64)  # (B, T, E)
    readout = torch.randn(64, generator=generator, dtype=torch.float64)
    return time_step_gradient_norms(lambda x: (model(x)[1] @ readout).pow(2).mean(), e)


reaching = {f"ρ = {rho:g}": gradient_per_step(rho) for rho in radii}
plot_gradient_norms(reaching, xlabel="time step t (the loss is at t = 60)",
                    title="Gradient of a loss at the last step, arriving at each input")
plt.show()

# %% [markdown]
# **Checkpoint.** With $\rho \le 1$, the first input receives less than a millionth of
# the gradient the last input receives: whatever the first token said, the loss
# at the end barely moves the weights to remember it.

# %%
first_over_last = {name: n[0] / n[-1] for name, n in reaching.items()}
for name, ratio in first_over_last.items():
    print(f"{name}: gradient at t = 1 / gradient at t = 60 = {ratio:.1e}")
assert all(first_over_last[f"ρ = {rho:g}"] < 1e-6 for rho in (0.5, 0.9, 1.0)), first_over_last

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. The eigenvalue argument
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
# First, a numerical check of $W^k = Q \Lambda^k Q^\top$:

# %%
generator = torch.Generator().manual_seed(1)
Q, _ = torch.linalg.qr(torch.randn(5, 5, generator=generator, dtype=torch.float64))
eigenvalues = torch.tensor([1.01, 0.99, 0.9, 0.5, -0.8], dtype=torch.float64)
W = Q @ torch.diag(eigenvalues) @ Q.T
power = torch.linalg.matrix_power(W, 100)
assert torch.allclose(power, Q @ torch.diag(eigenvalues**100) @ Q.T, atol=1e-10)
assert torch.allclose(torch.linalg.eigvalsh(W), eigenvalues.sort().values, atol=1e-12)

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
assert abs(float(up) - 20959.155637813660) < 1e-6 and abs(float(down) - 4.3171247410658e-05) < 1e-16
assert round(float(up), -4) == 20_000 and float(down) < 1e-4
assert 0.04 < 1 - 20_000 / float(up) < 0.05  # the slide's rounding is about 5% low
assert round(1 / float(down), -3) == 23_000  # a 1% deficit per step divides by about 23 thousand

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** So the slide's "≈ 20,000" is $1.01^{1000} = 20\,959.16$ rounded to one significant
# figure (about 5% low), and its "≈ 0" is $0.99^{1000} = 4.317 \times 10^{-5}$, small but not
# zero. The asymmetry is worth noticing: a 1% excess per step multiplies a signal
# by twenty thousand over 1000 steps, a 1% deficit divides it by twenty-three thousand.

# %% [markdown]
# ### Play with it
#
# Choose an eigenvalue $\lambda$ and a distance $k$. The curve shows $\lambda^j$ for
# $j = 0 \dots k$; the title gives the exact value at $k$.

# %%
def draw_power(eigenvalue, k):
    """lambda^j for j = 0..k on a log scale (the widget's plain function)."""
    if k < 1:
        raise ValueError(f"k must be at least 1; got {k}")
    j = np.arange(k + 1)
    values = np.abs(eigenvalue) ** j.astype(float)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.plot(j, np.maximum(values, 1e-300))
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yscale("log")
    ax.set_xlabel("distance k")
    ax.set_ylabel("|λ|^k (log scale)")
    exact = Fraction(eigenvalue).limit_denominator(10**6) ** k
    ax.set_title(f"λ = {eigenvalue:g}:  λ^{k} = {float(exact):.4g}")
    return fig


draw_power(1.01, 1000)
plt.show()
interactive_figure(
    draw_power,
    eigenvalue=widgets.FloatSlider(value=0.99, min=0.5, max=1.5, step=0.01, description="λ"),
    k=widgets.IntSlider(value=1000, min=1, max=2000, step=1, description="k"),
)

# %% [markdown]
# ### What $\tanh'$ does to the product
#
# With the nonlinearity back, every factor carries $\operatorname{diag}(\tanh'(z))$, and
# $\tanh'(z) = 1 - \tanh^2(z) \le 1$ with equality only at $z = 0$. Hence
#
# $$\Bigl\lVert \frac{\partial h^{(T)}}{\partial h^{(t)}} \Bigr\rVert \le \prod_{k=t+1}^{T} \lVert \operatorname{diag}(\tanh'(z^{(k)}))\rVert\,\lVert W_h\rVert
#   \le \sigma_{\max}(W_h)^{\,T-t} .$$
#
# If the largest singular value of $W_h$ is below 1, the gradient *must* vanish
# exponentially (Pascanu, Mikolov & Bengio, 2013); above 1 it *may* explode, but
# saturated units ($\tanh' \approx 0$) often stop it, as the right-hand plot of section 2 showed.

# %%
z = torch.linspace(-6, 6, 12001, dtype=torch.float64)
tanh_slope = 1 - torch.tanh(z) ** 2
assert tanh_slope.max().item() == 1.0 and abs(z[tanh_slope.argmax()].item()) < 1e-9
assert tanh_slope[z.abs() > 3].max().item() < 0.01  # saturated units pass almost no gradient
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(z, torch.tanh(z), label="tanh(z)")
ax.plot(z, tanh_slope, label="tanh'(z) = 1 − tanh²(z)")
ax.set_xlabel("z")
ax.legend()
plt.show()

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Exploding gradients: a cliff, and clipping
#
# **Intuition.** When some eigenvalue exceeds 1 and the units are not saturated,
# the loss surface of an RNN has *cliffs*: narrow regions where the loss changes
# abruptly and the gradient is enormous. A gradient step taken on a cliff
# throws the parameters far away and can undo all progress.
#
# Here is the classic one-unit example (Pascanu et al., 2013): $x^{(t)} = w\,\sigma(x^{(t-1)}) + b$ for 50
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
# **Checkpoint.** On the wall the gradient is thousands of times larger than a unit away from it.

# %%
assert slope.abs().max() > 1000 * elsewhere
assert 4.0 < w_line[cliff].item() < 5.5

# %% [markdown]
# **Gradient clipping by norm** (Pascanu et al., 2013) keeps the step's direction
# but caps its length: with threshold $\theta$,
#
# $$g \leftarrow g \cdot \min\!\left(1, \frac{\theta}{\lVert g\rVert}\right).$$
#
# This is `torch.nn.utils.clip_grad_norm_`, which `dl4nlp.train.train` applies when
# given `clip_norm`. First a check that it is exactly the formula:

# %%
params = [nn.Parameter(torch.zeros(3)), nn.Parameter(torch.zeros(2, 2))]
params[0].grad = torch.tensor([30.0, -40.0, 0.0])
params[1].grad = torch.full((2, 2), 60.0)
norm_before = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
expected_norm = math.sqrt(30**2 + 40**2 + 4 * 60**2)  # = 130
assert abs(norm_before.item() - expected_norm) < 1e-4
assert torch.allclose(params[0].grad, torch.tensor([30.0, -40.0, 0.0]) / 130, atol=1e-6)

# %% [markdown]
# Now a real run. A ReLU RNN whose recurrent matrix starts at the identity
# (more on this "IRNN" in section 5) learns the memory task of section 5 with a
# lag of 30 steps, by plain SGD with momentum. Nothing bounds a ReLU unit, so one
# step on a cliff makes the weights, then the hidden states, then the loss
# overflow to infinity. The training loop notices and stops the run (it sets
# `history.diverged`). The same run with the gradient clipped to norm 1 stays finite.

# %%
def irnn(seed=0):
    torch.manual_seed(seed)
    model = RecurrentClassifier(vocab_size=12, num_classes=4, hidden_size=32, kind="rnn", nonlinearity="relu")
    identity_init_(model.recurrent)
    return model


runs = {}
for name, clip in [("no clipping", None), ("clipped at norm 1", 1.0)]:
    model = irnn(seed=2)
    sgd = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    runs[name] = fit_long_lag(model, lag=30, steps=300, optimizer=sgd, clip_norm=clip, seed=2, desc=name)

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
for name, history in runs.items():
    left.plot(history.step, history.loss, label=name + (" (diverged)" if history.diverged else ""))
    right.plot(history.step, history.grad_norm, label=name)
left.set(yscale="log", xlabel="step", ylabel="loss (log scale)", title="training loss")
right.set(yscale="log", xlabel="step", ylabel="gradient norm before clipping", title="gradient norm")
left.legend()
plt.show()
for name, history in runs.items():
    print(f"{name:>18}: {len(history.loss)} steps, diverged: {history.diverged}, "
          f"largest gradient norm {max(history.grad_norm):.2g}, last loss {history.loss[-1]:.3g}")

# %% [markdown]
# **Checkpoint.** Without clipping the run diverges within its first few dozen steps; with
# clipping the same model, data and learning rate train for all 300 steps and the
# loss ends far below where it started.

# %%
unclipped, clipped = runs["no clipping"], runs["clipped at norm 1"]
assert unclipped.diverged and len(unclipped.loss) < 50, len(unclipped.loss)
assert not clipped.diverged and len(clipped.loss) == 300
assert np.mean(clipped.loss[-20:]) < 0.5 * clipped.loss[0], (clipped.loss[0], np.mean(clipped.loss[-20:]))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. How far back can a vanilla RNN remember?
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
# We train a tanh RNN with 32 hidden units (`RecurrentClassifier`: embedding →
# `nn.RNN` → a linear read-out of the last hidden state) for 200 Adam steps at each
# lag, with gradients clipped at norm 1, and measure accuracy on 1000 held-out sequences.

# %%
lags = [2, 5, 10, 20, 50]


def tanh_rnn(seed=0):
    torch.manual_seed(seed)
    return RecurrentClassifier(vocab_size=12, num_classes=4, hidden_size=32, kind="rnn", nonlinearity="tanh")


tanh_accuracy = {}
for lag in lags:
    model = tanh_rnn()
    fit_long_lag(model, lag=lag, steps=200, lr=3e-3, desc=f"tanh RNN, lag {lag}")
    tanh_accuracy[lag] = long_lag_accuracy(model, lag)
print("tanh RNN accuracy by lag:", {lag: round(a, 2) for lag, a in tanh_accuracy.items()})

# %% [markdown]
# ### A partial remedy: identity initialisation (IRNN)
#
# Le, Jaitly & Hinton (2015) start the recurrent matrix at the identity, $W_h = I$, with
# ReLU units and zero biases. At the start every active unit simply copies its
# value forward, so the Jacobian product is close to the identity and the
# gradient reaches far back, just as $\lambda = 1$ in the eigenvalue argument.
# Nothing keeps it there during training, though, and ReLU units are unbounded,
# so the method is delicate: it needs a small learning rate (and clipping).
# Same task, same budget, first with the learning rate used above, then with one
# only three times larger:

# %%
irnn_lags = [5, 20, 50]
irnn_accuracy = {}
for lag in irnn_lags:
    model = irnn(seed=1)
    fit_long_lag(model, lag=lag, steps=200, lr=3e-3, seed=1, desc=f"IRNN, lag {lag}")
    irnn_accuracy[lag] = long_lag_accuracy(model, lag)
print("IRNN accuracy by lag (learning rate 3e-3):", {lag: round(a, 2) for lag, a in irnn_accuracy.items()})

model = irnn(seed=1)
fit_long_lag(model, lag=50, steps=200, lr=1e-2, seed=1, desc="IRNN, lag 50, lr 1e-2")
irnn_larger_lr = long_lag_accuracy(model, 50)
print(f"IRNN accuracy at lag 50 with learning rate 1e-2: {irnn_larger_lr:.2f}")

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(list(tanh_accuracy), list(tanh_accuracy.values()), marker="o", label="tanh RNN")
ax.plot(list(irnn_accuracy), list(irnn_accuracy.values()), marker="s", label="IRNN (ReLU, W_h = I at start)")
ax.plot([50], [irnn_larger_lr], marker="x", markersize=10, linestyle="", color="tab:orange",
        label="IRNN, learning rate 1e-2")
ax.axhline(0.25, color="grey", linestyle="--", label="chance (1 in 4)")
ax.set(xscale="log", xlabel="lag L (steps between the signal and the answer)", ylabel="held-out accuracy",
       ylim=(0, 1.05), title="Remembering one token across L distractors (200 training steps)")
ax.set_xticks(lags, [str(lag) for lag in lags])
ax.minorticks_off()
ax.legend()
plt.show()

# %% [markdown]
# Why the difference? The gradient that a freshly initialised model sends back
# to the first token, relative to the one at the last token, at lag 50:

# %%
tokens, labels = long_lag_task(256, 50, generator=torch.Generator().manual_seed(1))
start_ratio = {}
for name, model in [("tanh RNN", tanh_rnn()), ("IRNN", irnn())]:
    norms = time_step_gradient_norms(
        lambda e: nn.functional.cross_entropy(model(tokens, embedded=e), labels), model.embedding(tokens))
    start_ratio[name] = norms[0] / norms[-1]
    print(f"{name:>8}: gradient at the signal / gradient at the last token = {start_ratio[name]:.1e}")

# %% [markdown]
# **Checkpoint.**
# - The tanh RNN remembers perfectly across 2 and 5 steps, and is at chance
#   (below 40%, chance being 25%) at lags 20 and 50: at initialisation its gradient at the
#   signal is more than ten orders of magnitude smaller than at the end.
# - The IRNN learns lag 20, and lag 50 far above chance, where the tanh RNN
#   learns nothing, because its gradient reaches the signal nearly undiminished (a ratio above 0.01)...
# - ...but it is a partial remedy: with a learning rate of $10^{-2}$ instead of $3\times10^{-3}$ it
#   fails at lag 50. (Different seeds and machines give somewhat different
#   numbers; the thresholds leave room for that.)

# %%
assert tanh_accuracy[2] > 0.95 and tanh_accuracy[5] > 0.95, tanh_accuracy
assert tanh_accuracy[20] < 0.40 and tanh_accuracy[50] < 0.40, tanh_accuracy
assert start_ratio["tanh RNN"] < 1e-10 and start_ratio["IRNN"] > 1e-2, start_ratio
assert irnn_accuracy[20] > 0.9 and irnn_accuracy[50] > 0.7, irnn_accuracy
assert irnn_larger_lr < 0.6, irnn_larger_lr

# %% [markdown]
# ### Truncated backpropagation through time
#
# On a long text (a whole book), backpropagating through every step since the
# beginning is too slow and needs too much memory. **Truncated BPTT** runs the
# forward pass through the whole sequence but cuts the graph every $k$ steps:
# the hidden state is carried forward as a *value* (`h.detach()`), so the
# backward pass stops at the cut. It is cheap and works well for short-range
# structure, but by construction no gradient reaches further back than $k$
# steps, so a dependency longer than $k$ can never be learned, even by a model
# that could represent it. Here is the cut, made visible:

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

# %% [markdown]
# **Checkpoint.** With 12 steps cut every 5 (windows 0–4, 5–9, 10–11), a loss at the end
# sends gradient to the last window only: steps 0–9 receive exactly zero.

# %%
# NBVAL_CHECK_OUTPUT
assert torch.all(reached[:10] == 0) and torch.all(reached[10:] > 0), reached
print("steps that receive gradient:", [t for t in range(12) if reached[t] > 0])

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercises
#
# **Exercise 1.** A signal is multiplied by $0.9$ at every step back in time. After how
# many steps $k$ is it first smaller than one thousandth of its original size?
# Return the smallest integer $k$ with $0.9^k < 10^{-3}$ (use logarithms, not a loop).

# %%
def exercise_1():
    raise NotImplementedError


check("Exercise 1", exercise_1, min(k for k in range(1000) if 0.9**k < 1e-3));

# %% [markdown]
# *Solution (click the cell below to reveal it).*

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    # 0.9^k < 1e-3  <=>  k log(0.9) < log(1e-3)  <=>  k > log(1e-3) / log(0.9) = 65.56 (log 0.9 < 0 flips the sign)
    return math.floor(math.log(1e-3) / math.log(0.9)) + 1


assert check("Exercise 1", exercise_1, min(k for k in range(1000) if 0.9**k < 1e-3))

# %% [markdown]
# **Exercise 2.** The Jacobian of one RNN step $h = \tanh(W_h h_{\text{prev}} + W_e e + b)$
# with respect to $h_{\text{prev}}$ is $\operatorname{diag}(1 - h^2)\,W_h$. Compute it by hand
# (no autograd) for the single example below and return the matrix. The check
# compares it with `torch.autograd.functional.jacobian`.

# %%
generator = torch.Generator().manual_seed(3)
W_h_ex = torch.randn(4, 4, generator=generator, dtype=torch.float64) * 0.5
W_e_ex = torch.randn(4, 3, generator=generator, dtype=torch.float64)
e_ex = torch.randn(3, generator=generator, dtype=torch.float64)
h_prev_ex = torch.randn(4, generator=generator, dtype=torch.float64) * 0.5


def step_ex(h_prev):
    return torch.tanh(W_h_ex @ h_prev + W_e_ex @ e_ex)


jacobian_reference = torch.autograd.functional.jacobian(step_ex, h_prev_ex)


def exercise_2():
    raise NotImplementedError


check("Exercise 2", exercise_2, jacobian_reference);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    h = step_ex(h_prev_ex)
    return torch.diag(1 - h**2) @ W_h_ex  # row i of W_h scaled by tanh'(z_i)


assert check("Exercise 2", exercise_2, jacobian_reference)

# %% [markdown]
# **Exercise 3.** Clip a list of gradient tensors to a global norm of at most
# `max_norm` by hand: compute the norm over all entries of all tensors, and if it
# exceeds `max_norm`, scale every tensor by `max_norm / norm`. Return the list of
# clipped tensors for the gradients below with `max_norm = 2.0`.

# %%
grads_ex = [torch.tensor([3.0, 4.0]), torch.tensor([[12.0]]), torch.tensor([0.0, 0.0, 0.0])]
reference_params = [nn.Parameter(torch.zeros_like(g)) for g in grads_ex]
for p, g in zip(reference_params, grads_ex):
    p.grad = g.clone()
torch.nn.utils.clip_grad_norm_(reference_params, max_norm=2.0)
clipped_reference = torch.cat([p.grad.flatten() for p in reference_params])


def exercise_3(grads, max_norm):
    raise NotImplementedError


check("Exercise 3", lambda: torch.cat([g.flatten() for g in exercise_3(grads_ex, 2.0)]), clipped_reference);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def exercise_3(grads, max_norm):
    norm = math.sqrt(sum((g**2).sum().item() for g in grads))  # sqrt(9 + 16 + 144) = 13
    scale = min(1.0, max_norm / norm)
    return [g * scale for g in grads]


assert check("Exercise 3", lambda: torch.cat([g.flatten() for g in exercise_3(grads_ex, 2.0)]), clipped_reference)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - An RNN language model applies one cell at every position: $h^{(t)} = \tanh(W_h h^{(t-1)} + W_e e^{(t)} + b_1)$, $\hat y^{(t)} = \operatorname{softmax}(U h^{(t)} + b_2)$; our loop equals `nn.RNN`. Teacher forcing feeds the true tokens and sums the per-step losses.
# - Backpropagation through time multiplies one Jacobian $\operatorname{diag}(\tanh')\,W_h$ per step, so the gradient reaching $T - t$ steps back scales like $\rho^{T-t}$, and $\tanh' \le 1$ only makes it smaller.
# - Exactly: $1.01^{1000} = 20\,959.16$ (the slides' "≈ 20,000") and $0.99^{1000} = 4.317\times10^{-5}$ (the slides' "≈ 0").
# - Exploding gradients come from cliffs in the loss surface; clipping the gradient's norm keeps a run stable where the unclipped run overflows.
# - A tanh RNN with 32 units remembers a token across 5 steps but is at chance across 20; identity initialisation reaches 50, but only with a small enough learning rate. Truncated BPTT cannot learn anything longer than its window.
#
# **Next:** notebook 03 adds a second, additive path through time, the LSTM's
# cell state, and solves the lags where these networks fail.
#
# **References**
# - J. L. Elman, *Finding structure in time*, Cognitive Science (1990).
# - P. J. Werbos, *Backpropagation through time: what it does and how to do it*, Proc. IEEE (1990).
# - R. J. Williams, J. Peng, *An efficient gradient-based algorithm for on-line training of recurrent network trajectories*, Neural Computation (1990) (truncated BPTT).
# - Y. Bengio, P. Simard, P. Frasconi, *Learning long-term dependencies with gradient descent is difficult*, IEEE TNN (1994).
# - R. Pascanu, T. Mikolov, Y. Bengio, *On the difficulty of training recurrent neural networks*, ICML (2013).
# - Q. V. Le, N. Jaitly, G. E. Hinton, *A simple way to initialize recurrent networks of rectified linear units*, arXiv:1504.00941 (2015).
