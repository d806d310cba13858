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
# This notebook checks that your installation works and shows, on small
# examples, how every notebook in the course is put together: a set-up cell,
# explanations you can run, **checkpoints** that prove what the text claims,
# interactive figures, and exercises with hidden solutions.
#
# **You will:** confirm your versions, device and data; see a checkpoint, a widget
# and an exercise at work; learn how to run the course in Colab or on a GPU.
#
# **Prerequisites:** none. **Run time:** a few seconds.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. The set-up cell
#
# Every notebook opens with the same cell. In Google Colab, and only there, it
# first downloads the course and installs its library, `dl4nlp`, keeping the
# PyTorch that Colab already has. Everywhere it then seeds every random number
# generator (so you see the numbers the text talks about), puts PyTorch on one
# CPU thread (the course's models are tiny: more threads barely speed them up, and
# on a busy computer they can slow them down several times), picks the fastest device — a CUDA GPU, else an Apple-silicon GPU,
# else the CPU — and prints one line about your environment.

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

from dl4nlp.data import check_corpora
from dl4nlp.exercises import check
from dl4nlp.experiments.start_here import BFLOAT16_VISIBLE, EMULATED_BFLOAT16_UNITS, matmul_precision
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. Is everything installed?
#
# The versions below are the ones on your machine (they are not checked
# against anything: Colab's will differ from your laptop's, and that is fine).

# %%
for name, module in [("dl4nlp", dl4nlp), ("torch", torch), ("numpy", np),
                     ("matplotlib", matplotlib), ("ipywidgets", widgets)]:
    print(f"{name:>11} {module.__version__}")
print(f"{'device':>11} {device}")

# %% [markdown]
# The course ships its text corpora in the repository's `data/` folder, so no
# notebook downloads anything while it runs. Each file is checked against the
# size and checksum recorded in the library.
#
# **Checkpoint:** all three corpora are present and intact.

# %%
# NBVAL_CHECK_OUTPUT
corpora = check_corpora()
for result in corpora:
    print(f"{result.name:<22} {result.expected_bytes:>9,} bytes  {'ok' if result.ok else 'MISSING OR CHANGED'}")
assert all(result.ok for result in corpora), "re-clone the repository, or run `git checkout data/`"

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Checkpoints: the text's claims, proven
#
# When a notebook says something that can be computed, it computes it and
# `assert`s it, with a tolerance. If a change to the code or the library ever
# made a notebook teach something false, the course's automatic tests would
# stop on that cell. Here is one you will meet again in notebook 05: the
# softmax of the two scores 14 and 12 is about 0.88 and 0.12.
#
# $$\operatorname{softmax}(s)_i = \frac{e^{s_i}}{\sum_j e^{s_j}}, \qquad
#   \frac{e^{14}}{e^{14} + e^{12}} = \frac{1}{1 + e^{-2}} .$$

# %%
# NBVAL_CHECK_OUTPUT
weights = torch.softmax(torch.tensor([14.0, 12.0], dtype=torch.float64), dim=0)
print(f"softmax([14, 12]) = [{weights[0]:.4f}, {weights[1]:.4f}]")
assert abs(weights[0].item() - 1 / (1 + np.exp(-2))) < 1e-12
assert abs(weights[0].item() - 0.8808) < 5e-5 and abs(weights[1].item() - 0.1192) < 5e-5

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Interactive figures
#
# Figures you can play with are built in two steps: first a plain function
# that draws the figure for given settings (the course's tests call it
# directly), then controls wired to it. Drag the slider: a low *temperature*
# sharpens a softmax towards the largest score, a high one flattens it.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Controls need a live kernel; in a static view only the first figure shows.

# %%
def draw_softmax(temperature):
    """Bar chart of softmax(scores / temperature) for four fixed scores."""
    scores = torch.tensor([3.0, 1.0, 0.2, -1.0])
    probabilities = torch.softmax(scores / temperature, dim=0)
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(["a", "b", "c", "d"], probabilities.numpy(), color="#4c72b0")
    ax.set_ylim(0, 1)
    ax.set_ylabel("probability")
    ax.set_title(f"softmax(scores / {temperature:.2f}), scores = 3, 1, 0.2, -1")
    return fig


interactive_figure(draw_softmax, temperature=widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="temperature"))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Exercises
#
# Each exercise has a cell for your answer and a `check` that compares it with
# a reference computed another way. Running the check on an unfinished answer
# is harmless; it tells you what is missing. The solution follows in a cell
# whose code is hidden: click the collapsed cell (or the "Show code" arrow in
# Colab) to reveal it.
#
# **Exercise.** Return the softmax of the scores `[2.0, 0.0]` as a list of two
# probabilities, computed with `math.exp` only.

# %%
def exercise():
    # your answer here
    raise NotImplementedError


check("Warm-up exercise", exercise, torch.softmax(torch.tensor([2.0, 0.0], dtype=torch.float64), dim=0));

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution
import math


def exercise():
    total = math.exp(2.0) + math.exp(0.0)
    return [math.exp(2.0) / total, math.exp(0.0) / total]


assert check("Warm-up exercise", exercise, torch.softmax(torch.tensor([2.0, 0.0], dtype=torch.float64), dim=0))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Devices: CPU, GPU, Colab
#
# `dl4nlp.get_device()` returns the best device it finds. Every notebook runs
# on a laptop CPU within a minute; on a GPU the same code runs unchanged, only
# faster. To force a device, set the environment variable `DL4NLP_DEVICE` to
# `cpu`, `cuda` or `mps` before starting Jupyter (`DL4NLP_DEVICE=cpu make lab`).
# A value the machine cannot honour stops with an error that says why:

# %%
try:
    dl4nlp.get_device("tpu")
except ValueError as error:
    print(f"ValueError: {error}")

# %% [markdown]
# Models and tensors go to the device with `.to(device)`. The numbers the notebooks print and
# assert were computed on a CPU, in float32 or float64. The same code on a GPU computes the same
# quantities, but not always bit for bit: the order in which a GPU adds up a sum differs, and
# rounding differs with it, which is why every checkpoint states a tolerance.
#
# `dl4nlp.autocast(device)` goes further on a CUDA GPU that supports it: inside it, matrix products
# run in **bfloat16**, whose significand holds 8 bits (between 2 and 3 significant decimal digits), for
# speed. Results computed under it differ visibly from the CPU's. On the CPU (and on Apple's GPU)
# it does nothing. None of the course's notebooks uses it for the numbers it prints; it is there for
# your own, larger experiments.
#
# **Checkpoint.** A matrix product computed on your device, plainly and under `dl4nlp.autocast`,
# against the exact (float64) product computed on the CPU
# (`dl4nlp.experiments.start_here.matmul_precision`): each result has the dtype expected on your
# device, and its largest error, relative to the largest entry, is within 16 machine epsilons of
# that dtype (float32: $1.2\times10^{-7}$; bfloat16: $7.8\times10^{-3}$). So that you see bfloat16 at work
# without a GPU, the last line emulates a GPU's bfloat16 product on the CPU (inputs and result
# rounded to bfloat16, sums in float32): its error is within one bfloat16 epsilon, and thousands of
# times the float32 error.

# %%
precision = matmul_precision(seed=0, device=device)
for label, dtype, error, allowed in [
    ("plain", precision.plain_dtype, precision.plain_error, precision.tolerance(precision.plain_dtype)),
    ("under dl4nlp.autocast", precision.autocast_dtype, precision.autocast_error, precision.tolerance(precision.autocast_dtype)),
    ("bfloat16, emulated", "torch.bfloat16", precision.emulated_bfloat16_error,
     precision.tolerance("torch.bfloat16", EMULATED_BFLOAT16_UNITS)),
]:
    print(f"{label:>22}: {dtype}, largest error {error:.1e} (allowed: {allowed:.1e})")
uses_bfloat16 = device.type == "cuda" and torch.cuda.is_bf16_supported()
assert precision.plain_dtype == "torch.float32"
assert precision.autocast_dtype == ("torch.bfloat16" if uses_bfloat16 else "torch.float32"), precision
assert precision.plain_error <= precision.tolerance(precision.plain_dtype), precision
assert precision.autocast_error <= precision.tolerance(precision.autocast_dtype), precision
if uses_bfloat16:  # on such a GPU, autocast's results differ visibly from float32's
    assert precision.autocast_error > BFLOAT16_VISIBLE * precision.plain_error, precision
assert precision.emulated_bfloat16_error <= precision.tolerance("torch.bfloat16", EMULATED_BFLOAT16_UNITS), precision
assert precision.emulated_bfloat16_error > BFLOAT16_VISIBLE * precision.plain_error, precision

# %% [markdown]
# **In Colab:** click the badge at the top of any notebook, then *Runtime → Run all*.
# For a GPU choose *Runtime → Change runtime type → T4 GPU* first. The set-up cell
# takes about a minute the first time in a fresh Colab session.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Presenting in class: `dl4nlp.plots.use_style("presentation")` (or starting
# Jupyter with `DL4NLP_STYLE=presentation`) switches every figure to large fonts
# and thick lines; the README explains slide mode.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary and what comes next
#
# - Your installation works: versions, device and data are checked above.
# - Checkpoint cells turn the text's claims into `assert`s; interactive figures are plain functions with controls; exercises come with a `check` and a hidden solution.
#
# **Next:** [01 · Backpropagation](01_backprop.ipynb), where you compute gradients
# by hand, with your own autodiff engine and with PyTorch, and see why deep
# networks' gradients vanish.
