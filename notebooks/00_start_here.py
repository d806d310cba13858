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
# # 00 · Start here
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/00_start_here.ipynb)
#
# This notebook checks that your installation works, shows how every notebook of the
# course is put together, and teaches the few pieces of PyTorch that chapter 01 builds
# on: tensors and their shapes, gradients with `requires_grad` and `backward`, modules,
# and a training loop of ten lines that fits a line and then a classifier.
#
# **You will:**
# - confirm your versions, device and data;
# - meet a check cell, an interactive figure and an exercise with a hidden solution;
# - predict the shapes of tensor operations on a batch of shape (B, T, C), then run them;
# - compute a gradient with `backward()` and fit a line by gradient descent;
# - write the training loop that every later chapter uses, and train a logistic regression with it;
# - learn how to run the course on a GPU or in Colab.
#
# **Prerequisites:** Python and NumPy; no PyTorch.
#
# **Study time:** about 1 hour for a person; **run time:** about 10 s on a laptop CPU.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. The set-up cell: is everything installed?
#
# Every notebook opens with the same set-up cell, the one below. In Google
# Colab, and only there, it first downloads the course and installs its library, `dl4nlp`,
# keeping the PyTorch that Colab already has. Everywhere it then seeds every random number
# generator, so that you see the numbers the text talks about; puts PyTorch on one CPU thread
# (the course's models are tiny, and more threads can slow them down on a busy computer);
# picks the fastest device (a CUDA GPU, else an Apple-silicon GPU, else the CPU); and prints
# one line about your environment.

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
import ipywidgets as widgets
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from dl4nlp.data import check_corpora
from dl4nlp.device import native_bfloat16
from dl4nlp.exercises import attempt, check
from dl4nlp.experiments import start_here as experiment
from dl4nlp.notebook import claim
from dl4nlp.widgets import interactive_figure

# %% [markdown]
# The versions below are the ones on your machine. Colab's will differ from your laptop's,
# and that is fine.

# %%
for name, module in [("dl4nlp", dl4nlp), ("torch", torch), ("numpy", np),
                     ("matplotlib", matplotlib), ("ipywidgets", widgets)]:
    print(f"{name:>11} {module.__version__}")
print(f"{'device':>11} {device}")

# %% [markdown]
# The course ships its text corpora in the repository's `data/` folder, so no notebook
# downloads anything while it runs. Each file is compared with the size and checksum
# the library records for it.

# %%
# NBVAL_CHECK_OUTPUT
corpora = check_corpora()
for result in corpora:
    print(f"{result.name:<22} {result.expected_bytes:>9,} bytes  {'ok' if result.ok else 'MISSING OR CHANGED'}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the corpora are present and intact
claim(f"all {len(corpora)} corpora are present and intact (if not: re-clone, or run `git checkout data/`)",
      all(result.ok for result in corpora))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. How a notebook works
#
# **Check cells.** When the text says something that can be computed, the notebook computes
# it. At the end of each section a collapsed cell (titled *Check: …*) tests every claim the
# section made and prints one sentence per claim, with its numbers: ✓ when it holds. If a
# change to the code ever made a notebook teach something false, that cell would stop with
# ✗ and the sentence. You can open one to see its code, but you never need to.
#
# Here is a claim you will meet again in chapter 08: the softmax of the two scores 14 and 12
# is about 0.88 and 0.12, because
#
# $$\operatorname{softmax}(s)_i = \frac{e^{s_i}}{\sum_j e^{s_j}}, \qquad
#   \frac{e^{14}}{e^{14} + e^{12}} = \frac{1}{1 + e^{-2}} .$$

# %%
# NBVAL_CHECK_OUTPUT
weights = torch.softmax(torch.tensor([14.0, 12.0], dtype=torch.float64), dim=0)
print(f"softmax([14, 12]) = [{weights[0]:.4f}, {weights[1]:.4f}]")

# %% [markdown]
# **Interactive figures** are built in two steps: a plain function that draws the figure for
# given settings (here `draw_softmax`, in the chapter's module
# `dl4nlp.experiments.start_here`), then controls wired to it. Drag the slider: a low
# *temperature* sharpens a softmax towards the largest score, a high one flattens it.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Controls need a live kernel; in a static view only the first figure shows.

# %%
interactive_figure(experiment.draw_softmax,
                   temperature=widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="temperature"))

# %% [markdown]
# **Exercises** have a cell for your answer and a `check` that compares it with a reference
# computed another way; when something differs, it names the first entry that does. Running
# the check on an unfinished answer is harmless. The solution follows in a collapsed cell:
# click it (or the "Show code" arrow in Colab) to reveal it. When a later cell needs an
# exercise's result and the exercise is not solved yet, it says so in one line and uses the
# library's version instead, so the notebook always runs to the end.
#
# **Exercise 1.** Return the softmax of the scores `[2.0, 0.0]` as a list of two
# probabilities, computed with `math.exp` only.

# %%
def exercise_1():
    # your answer here
    raise NotImplementedError


check("Exercise 1", exercise_1, torch.softmax(torch.tensor([2.0, 0.0], dtype=torch.float64), dim=0));

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
import math


def exercise_1():
    total = math.exp(2.0) + math.exp(0.0)
    return [math.exp(2.0) / total, math.exp(0.0) / total]


assert check("Exercise 1", exercise_1, torch.softmax(torch.tensor([2.0, 0.0], dtype=torch.float64), dim=0))

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the softmax of 14 and 12
claim(f"softmax([14, 12]) = [{weights[0]:.4f}, {weights[1]:.4f}], and its first entry is 1 / (1 + e^-2)",
      abs(weights[0].item() - 1 / (1 + np.exp(-2))) < 1e-12
      and abs(weights[0].item() - 0.8808) < 5e-5 and abs(weights[1].item() - 0.1192) < 5e-5)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Tensors and their shapes
#
# A **tensor** is an array of numbers with a shape, like a NumPy array, that can also live on a
# GPU and remember how it was computed. Text models work on batches of sequences, and the
# course always puts the batch first: a tensor of shape **(B, T, C)** holds B sequences of T
# positions (tokens, time steps), each described by C numbers (features, channels). Below,
# 2 sentences of 5 tokens with 3 numbers per token.

# %%
# NBVAL_CHECK_OUTPUT
generator = torch.Generator().manual_seed(0)
x = torch.randn(2, 5, 3, generator=generator)  # (B, T, C) = (2, 5, 3)
print("x:          ", tuple(x.shape), x.dtype)
print("x[0]:       ", tuple(x[0].shape), "  the first sentence")
print("x[:, -1]:   ", tuple(x[:, -1].shape), "  the last token of every sentence")
print("x.mean(1):  ", tuple(x.mean(dim=1).shape), "  the average over positions")

# %% [markdown]
# Three rules cover almost everything the course does with shapes:
#
# - **Matrix products act on the last axis.** `x @ W` with `W` of shape (C, H) maps every
#   token's C numbers to H numbers, for every sentence and position at once: (B, T, C) @ (C, H) → (B, T, H).
# - **Broadcasting** stretches axes of size 1 (or missing on the left): adding a bias of shape (H,)
#   to a (B, T, H) tensor adds it at every position.
# - **Reductions** (`sum`, `mean`, `max`) remove the axis named by `dim`; `transpose(1, 2)` swaps two axes.
#
# **Exercise 2 (predict, then run).** Without running anything, write down the shapes of the
# three results below as tuples. Then run the cell: the check compares your predictions with
# what PyTorch computes and names the first one that differs.

# %%
W = torch.randn(3, 4, generator=generator)  # (C, H)
b = torch.zeros(4)  # (H,)
actual_shapes = {
    "x @ W + b": tuple((x @ W + b).shape),
    "x.transpose(1, 2)": tuple(x.transpose(1, 2).shape),
    "x @ x.transpose(1, 2)": tuple((x @ x.transpose(1, 2)).shape),
}


def exercise_2():
    # your predictions: return {"x @ W + b": (..., ..., ...), "x.transpose(1, 2)": ..., "x @ x.transpose(1, 2)": ...}
    raise NotImplementedError


check("Exercise 2", exercise_2, actual_shapes);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    return {
        "x @ W + b": (2, 5, 4),  # (B, T, C) @ (C, H): every token mapped from 3 to 4 numbers
        "x.transpose(1, 2)": (2, 3, 5),  # (B, C, T)
        "x @ x.transpose(1, 2)": (2, 5, 5),  # (B, T, C) @ (B, C, T): every token against every token
    }


assert check("Exercise 2", exercise_2, actual_shapes)

# %% [markdown]
# The last one, a (T, T) table for each sentence that compares every token with every other,
# is the heart of self-attention (chapter 08).

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the shapes
claim(f"x @ W + b has shape {actual_shapes['x @ W + b']}: (B, T, C) @ (C, H) gives (B, T, H)",
      actual_shapes["x @ W + b"] == (2, 5, 4))
claim(f"x @ x.transpose(1, 2) has shape {actual_shapes['x @ x.transpose(1, 2)']}: one (T, T) table per sentence",
      actual_shapes["x @ x.transpose(1, 2)"] == (2, 5, 5))
claim("the bias is added at every position: (x @ W + b)[1, 4] = x[1, 4] @ W + b",
      torch.equal((x @ W + b)[1, 4], x[1, 4] @ W + b))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Gradients: `requires_grad` and `backward`
#
# A tensor created with `requires_grad=True` makes PyTorch record every operation that uses it.
# Calling `.backward()` on a single number computed from it then fills its `.grad` with the
# derivative of that number with respect to it. For $L = (2v - 1)^2$ at $v = 3$, the chain rule
# gives $dL/dv = 2(2v - 1)\cdot 2 = 20$. Chapter 01 opens this box and shows how `backward`
# does it.

# %%
# NBVAL_CHECK_OUTPUT
v = torch.tensor(3.0, requires_grad=True)
L = (2 * v - 1) ** 2
L.backward()
print(f"L = {L.item():g}, dL/dv = {v.grad.item():g}")

# %% [markdown]
# That is all gradient descent needs: compute a loss, call `backward()`, move every parameter a
# little against its gradient, repeat. Here it fits a line $y = w x + b$ to 50 noisy points drawn
# around $y = 2x - 1$, by minimising the mean squared error. Two details: the update runs inside
# `torch.no_grad()` (it is not part of the model, so it must not be recorded), and `.grad` is
# reset to zero after each step, because `backward()` *adds* to it.

# %%
inputs = torch.linspace(-1, 1, 50)  # (50,)
targets = 2 * inputs - 1 + 0.1 * torch.randn(50, generator=generator)  # (50,)

w = torch.zeros((), requires_grad=True)
b = torch.zeros((), requires_grad=True)
for _ in range(200):
    loss = ((w * inputs + b - targets) ** 2).mean()  # forward: the mean squared error
    loss.backward()  # backward: fills w.grad and b.grad
    with torch.no_grad():
        w -= 0.1 * w.grad  # one step downhill, learning rate 0.1
        b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
print(f"fitted line: y = {w.item():.2f} x {b.item():+.2f}   (the points were drawn around y = 2 x - 1)")

fig, ax = plt.subplots(figsize=(5, 3))
ax.scatter(inputs, targets, s=12, label="data")
ax.plot(inputs, (w * inputs + b).detach(), color="#c0392b", label="fitted line")
ax.set(xlabel="x", ylabel="y")
ax.legend()
plt.show()

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: backward, and the fitted line
claim(f"backward gives dL/dv = {v.grad.item():g} for L = (2v - 1)^2 at v = 3 (the chain rule: 20)", v.grad.item() == 20.0)
claim(f"gradient descent finds the line: slope {w.item():.2f} (drawn around 2), intercept {b.item():.2f} (around -1)",
      abs(w.item() - 2) < 0.1 and abs(b.item() + 1) < 0.1)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Modules and the training loop
#
# Writing `w` and `b` by hand does not scale to millions of parameters. PyTorch groups them in
# **modules**: `nn.Linear(C, H)` holds a weight of shape (H, C) and a bias of shape (H,) and
# computes `x @ weight.T + bias` on the last axis. A model of your own is a subclass of
# `nn.Module` that creates its parts in `__init__` and says in `forward` how to combine them;
# `model.parameters()` then finds every parameter inside it.

# %%
# NBVAL_CHECK_OUTPUT
class TwoLayer(nn.Module):
    def __init__(self, inputs, hidden, outputs):
        super().__init__()
        self.first = nn.Linear(inputs, hidden)
        self.second = nn.Linear(hidden, outputs)

    def forward(self, x):  # x: (..., inputs)
        return self.second(torch.tanh(self.first(x)))  # (..., outputs)


torch.manual_seed(0)
net = TwoLayer(3, 8, 2)
print(net)
print("parameters:", [tuple(p.shape) for p in net.parameters()])
print("output shape for x of shape (2, 5, 3):", tuple(net(x).shape))

# %% [markdown]
# An **optimizer** does the update of section 4 for every parameter: `torch.optim.SGD(params, lr)`
# moves each one by `-lr * grad` in `optimizer.step()` and resets the gradients in
# `optimizer.zero_grad()`. A training loop is then always the same four lines, repeated:
# forward (the loss), `zero_grad()`, `backward()`, `step()`.
#
# **Exercise 3.** Write that loop. `train(model, loss_fn, inputs, targets, steps, lr)` makes an
# `SGD` optimizer for `model.parameters()` with learning rate `lr`, takes `steps` steps on the
# whole batch with the loss `loss_fn(model(inputs), targets)`, and returns the list of the
# losses before each step (as Python numbers: `loss.item()`). The check trains two copies of a
# small model for 3 steps, one with your loop and one with the library's, and compares the
# losses and the weights.

# %%
def train(model, loss_fn, inputs, targets, steps, lr):
    # your code here: an optimizer, then `steps` times: loss, zero_grad, backward, step
    raise NotImplementedError


def after_three_steps(loop):
    """The losses and weights of nn.Linear(2, 1) (seeded) after 3 steps of `loop` on 20 blob points."""
    torch.manual_seed(1)
    model = nn.Linear(2, 1)
    points, labels = experiment.two_blobs(20, seed=1)
    losses = loop(model, nn.functional.binary_cross_entropy_with_logits, points, labels[:, None], 3, 0.5)
    return {f"loss before step {i + 1}": v for i, v in enumerate(losses)} | {
        "weight 1": model.weight[0, 0].item(), "weight 2": model.weight[0, 1].item(), "bias": model.bias[0].item()}


solved_3 = check("Exercise 3", lambda: after_three_steps(train), after_three_steps(experiment.train))

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def train(model, loss_fn, inputs, targets, steps, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(inputs), targets)  # forward
        optimizer.zero_grad()  # forget the previous step's gradients
        loss.backward()  # backward: fills p.grad for every parameter
        optimizer.step()  # p -= lr * p.grad
        losses.append(loss.item())
    return losses


assert check("Exercise 3", lambda: after_three_steps(train), after_three_steps(experiment.train))
solved_3 = True  # the check above passed

# %% [markdown]
# Now your loop trains a **logistic regression**: `nn.Linear(2, 1)` gives each point a score,
# the probability of class 1 is the sigmoid of the score, and the loss is the cross-entropy
# (`binary_cross_entropy_with_logits` takes the scores directly). The data are 200 points in two
# blobs, around $(-1.5, -1.5)$ (class 0) and $(1.5, 1.5)$ (class 1); we measure the accuracy on
# the training points and on 1000 fresh points from the same blobs.

# %%
loop = attempt(lambda: train, lambda: experiment.train, name="Exercise 3", solved=solved_3)
classifier = experiment.logistic_regression(seed=0, steps=100, lr=0.5, fit=loop)

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(classifier.losses)
ax.set(xlabel="step", ylabel="cross-entropy", title="logistic regression, trained by your loop")
plt.show()
print(f"loss {classifier.losses[0]:.2f} -> {classifier.losses[-1]:.2f}; accuracy: training points "
      f"{classifier.accuracy:.3f}, fresh points {classifier.heldout_accuracy:.3f}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the module, and the training loop
claim("nn.Linear works on the last axis: TwoLayer(3, 8, 2) maps (2, 5, 3) to (2, 5, 2)", tuple(net(x).shape) == (2, 5, 2))
claim(f"the training loop lowers the loss from {classifier.losses[0]:.2f} to {classifier.losses[-1]:.2f} in 100 steps",
      classifier.losses[-1] < 0.2 * classifier.losses[0])
claim(f"logistic regression separates the two blobs: {classifier.heldout_accuracy:.3f} of fresh points right "
      "(more than 0.95)", classifier.heldout_accuracy > 0.95)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Devices: CPU, GPU, Colab
#
# `dl4nlp.get_device()` returns the best device it finds. Every notebook runs on a laptop CPU;
# on a GPU the same code runs unchanged. To force a device, set the environment variable
# `DL4NLP_DEVICE` to `cpu`, `cuda` or `mps` before starting Jupyter (`DL4NLP_DEVICE=cpu make lab`).
# A value the machine cannot honour stops with an error that says why:

# %%
try:
    dl4nlp.get_device("tpu")
except ValueError as error:
    print(f"ValueError: {error}")

# %% [markdown]
# Models and tensors go to the device with `.to(device)`: `net.to(device)`, `x.to(device)`. The
# numbers the notebooks print were computed on a CPU. A GPU computes the same quantities, but
# not always bit for bit: it adds up sums in another order, and rounding differs with it. That
# is why every check allows for rounding.
#
# **In Colab:** click the badge at the top of any notebook, then *Runtime → Run all*. For a GPU
# choose *Runtime → Change runtime type → T4 GPU* first. The set-up cell takes about a minute
# the first time in a fresh Colab session.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Presenting in class: `dl4nlp.plots.use_style("presentation")` (or starting Jupyter
# with `DL4NLP_STYLE=presentation`) switches every figure to large fonts and thick lines; the
# README explains slide mode.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the device
claim(f"the notebooks compute on {device.type}, one of cpu, cuda and mps", device.type in ("cpu", "cuda", "mps"))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - Your installation works: versions, device and the three corpora are checked above.
# - Each section ends with a collapsed check cell that prints its claims with their numbers; interactive figures are plain functions with controls; exercises come with a `check` that names the first wrong entry, and a hidden solution.
# - Tensors carry shapes, batch first: (B, T, C). `x @ W` acts on the last axis, (2, 5, 3) @ (3, 4) → (2, 5, 4), and `x @ x.transpose(1, 2)` compares every token with every token, (2, 5, 5).
# - `backward()` fills `.grad`: $dL/dv = 20$ for $L = (2v-1)^2$ at $v = 3$. Gradient descent with it fits the line $y \approx 2x - 1$.
# - A training loop is forward, `zero_grad()`, `backward()`, `step()`; yours trained a logistic regression that classifies more than 95 % of fresh points correctly.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What comes next
#
# [01 · Backpropagation](01_backprop.ipynb) opens the box that `backward()` is: you compute
# gradients by hand, write the backward pass of your own small autodiff engine, train a neural
# network on it, and derive the gradients of matrix layers from their shapes.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# - A. Paszke et al., *PyTorch: an imperative style, high-performance deep learning library*, NeurIPS (2019).
# - The PyTorch tutorials, *Learn the basics* (pytorch.org/tutorials), for more of the primer.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further
#
# ### Precision on a GPU: bfloat16
#
# *Optional.* `dl4nlp.autocast(device)` speeds up a CUDA GPU that computes **bfloat16** in hardware
# (compute capability 8.0 or more: an A100, an RTX 30 series or later): inside it, matrix
# products run in bfloat16, whose significand holds 8 bits (between 2 and 3 significant
# decimal digits). Results computed under it differ visibly from the CPU's. On the CPU, on
# Apple's GPU and on older GPUs such as Colab's T4, which can only emulate bfloat16 slowly in
# float32, it does nothing (`dl4nlp.device.native_bfloat16(device)` says which case you are in).
# None of the course's notebooks uses it for the numbers it prints; it is there for your own, larger experiments.
#
# Below, a product of a (64, 256) and a (256, 32) matrix is computed on your device, plainly and
# under `dl4nlp.autocast`, and compared with the exact (float64) product. Each error, relative to
# the largest entry, should be within 16 machine epsilons of the dtype used (float32:
# $1.2\times10^{-7}$ each; bfloat16: $7.8\times10^{-3}$ each). So that you see bfloat16 at work
# without a GPU, the last line emulates a GPU's bfloat16 product on the CPU (inputs and result
# rounded to bfloat16, sums in float32): its error stays within one bfloat16 epsilon, and is
# thousands of times the float32 error.

# %%
precision = experiment.matmul_precision(seed=0, device=device)
for label, dtype, error, allowed in [
    ("plain", precision.plain_dtype, precision.plain_error, precision.tolerance(precision.plain_dtype)),
    ("under dl4nlp.autocast", precision.autocast_dtype, precision.autocast_error,
     precision.tolerance(precision.autocast_dtype)),
    ("bfloat16, emulated", "torch.bfloat16", precision.emulated_bfloat16_error,
     precision.tolerance("torch.bfloat16", experiment.EMULATED_BFLOAT16_UNITS)),
]:
    print(f"{label:>22}: {dtype}, largest error {error:.1e} (allowed: {allowed:.1e})")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the precision of a matrix product
uses_bfloat16 = native_bfloat16(device)
claim(f"a plain product on {device.type} is float32, error {precision.plain_error:.1e} "
      f"(at most {precision.tolerance(precision.plain_dtype):.1e})",
      precision.plain_dtype == "torch.float32"
      and precision.plain_error <= precision.tolerance(precision.plain_dtype))
claim(f"under autocast it is {precision.autocast_dtype}, error {precision.autocast_error:.1e} "
      f"(at most {precision.tolerance(precision.autocast_dtype):.1e})",
      precision.autocast_dtype == ("torch.bfloat16" if uses_bfloat16 else "torch.float32")
      and precision.autocast_error <= precision.tolerance(precision.autocast_dtype))
if uses_bfloat16:  # on such a GPU, autocast's results differ visibly from float32's
    claim(f"on this GPU autocast's error is more than {experiment.BFLOAT16_VISIBLE} times the float32 error",
          precision.autocast_error > experiment.BFLOAT16_VISIBLE * precision.plain_error)
claim(f"emulated bfloat16: error {precision.emulated_bfloat16_error:.1e}, within one bfloat16 epsilon and more than "
      f"{experiment.BFLOAT16_VISIBLE} times the float32 error",
      precision.emulated_bfloat16_error <= precision.tolerance("torch.bfloat16", experiment.EMULATED_BFLOAT16_UNITS)
      and precision.emulated_bfloat16_error > experiment.BFLOAT16_VISIBLE * precision.plain_error)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Check your understanding
#
# A few questions to answer without code, about what this chapter showed. Click an answer to see whether it is right and why; the section named under each question is where the chapter shows it.

# %%
from dl4nlp import quiz

quiz.show("00")

# %% [markdown] slideshow={"slide_type": "skip"}
# ## Instructor notes
#
# - Nothing in this chapter is trained beforehand; every number is computed when the notebook runs
#   (about 10 s on a laptop CPU, most of it imports).
# - The claims test `tests/claims/test_00_start_here.py` repeats the precision claims on the claim
#   seeds on the CPU; `logistic_regression` is checked there on other seeds too (training and fresh
#   accuracy above 0.95: the two blobs are 4.2 standard deviations apart).
# - The line fit and the logistic regression are convex problems: their results move only in the
#   last digits between CPU kernel configurations, far inside the checks' margins (slope within 0.1
#   of 2, accuracy above 0.95). The printed values are not compared by nbval.
# - The bfloat16 section was the main line of this chapter before the re-cut; on a CUDA GPU that computes
#   bfloat16 natively the check cell also asserts that autocast's error is visibly larger than float32's.
# - `dl4nlp.autocast` gates on native bfloat16 (`dl4nlp.device.native_bfloat16`: compute capability 8.0 or
#   more, or ROCm), the question `torch.cuda.is_bf16_supported(including_emulation=False)` asks; plain
#   `is_bf16_supported()` also answers True on a T4 (capability 7.5) in recent torch versions, where
#   bfloat16 is only emulated. `tests/test_device.py` mocks a T4, a V100, an A100 and an H100.
