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
# # 09 · Scaling laws, measured on tiny language models
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/09_scaling_laws.ipynb)
#
# Why do language models keep getting bigger? Because, over many orders of
# magnitude, their loss has fallen as a smooth power law of the parameters, the
# data and the compute spent on them. In this notebook you will count
# parameters and FLOPs the way the scaling-law papers do and check the counts
# against PyTorch, then fit power laws to a real sweep of 37 small Transformer
# language models trained on Shakespeare, read off a compute-efficient
# frontier, watch a learning-rate schedule bend a loss curve, and see how an
# "emergent" ability can appear or vanish depending on how you score it. Along
# the way we compare every exponent with Kaplan et al. (2020) and Hoffmann et
# al. (2022, "Chinchilla"), and say plainly where a sweep this small differs.
#
# **You will:**
# - count non-embedding parameters and forward FLOPs per token by formula, and verify both against the modules (`FlopCounterMode`);
# - see how attention's share of the compute grows with the context length;
# - fit $L(N)$, $L(D)$ and $L(C)$ power laws by least squares, with uncertainties, and decide when an irreducible term is needed;
# - draw the compute-efficient frontier and find the compute-optimal model size for each budget;
# - compare a cosine and a constant learning-rate schedule on the same model;
# - show that per-character accuracy improves smoothly with size while exact match of multi-character answers looks abrupt;
# - rerun a mini-sweep live and land on the committed results.
#
# **Prerequisites:** the decoder-only Transformer of notebook 07 (`dl4nlp.transformer`), logarithms, least squares.
#
# **Run time:** about 30 seconds on a laptop CPU. The full sweep it analyses took about 20 minutes and is loaded from `data/`.

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
import tempfile
from pathlib import Path

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch.utils.flop_counter import FlopCounterMode

from dl4nlp.data import CORPORA
from dl4nlp.exercises import check
from dl4nlp.plots import plain_log_ticks, plot_curves, plot_power_law
from dl4nlp.scaling import (attention_share, fit_power_law, flops_breakdown, frontier, kaplan_forward_flops,
                            kaplan_parameters, measure_forward_flops, non_embedding_parameters, training_flops)
from dl4nlp.sweep import SweepSpec, load_models, load_sweep, model_config, run_sweep
from dl4nlp.transformer import TransformerLM, count_parameters
from dl4nlp.widgets import interactive_figure
sweep = load_sweep()  # data/scaling_sweep.json: every run's curve and evaluations, with its recipe
models, chars = load_models()  # data/scaling_sweep_models.pt: the longest-trained model of each size
spec, runs = sweep["recipe"]["spec"], sweep["runs"]
sizes, S = spec["sizes"], spec["steps"]
tokens_per_step = spec["batch_size"] * spec["context"]
budgets = sorted({run["steps"] for run in runs.values() if run["schedule"] == "cosine"})
N = {size: runs[f"{size}-cosine-{S}"]["non_embedding_params"] for size in sizes}


def curve(run_id, key="heldout_loss"):
    """Tokens seen and one logged quantity along a run of the sweep."""
    points = runs[run_id]["curve"]
    return np.array([p["tokens"] for p in points], dtype=float), np.array([p[key] for p in points])


def final_loss(size, steps):
    return runs[f"{size}-cosine-{steps}"]["curve"][-1]["heldout_loss"]


# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. What is counted: parameters
#
# Kaplan et al. (2020) describe a decoder-only Transformer by its number of
# layers $n_\text{layer}$, its width $d_\text{model}$, the width of attention
# $d_\text{attn}$ and of the feed-forward layer $d_\text{ff}$. Per layer, the
# query, key, value and output projections hold $4\,d_\text{model} d_\text{attn}$
# weights and the feed-forward network $2\,d_\text{model} d_\text{ff}$, so
#
# $$N = 2\, d_\text{model}\, n_\text{layer}\,(2 d_\text{attn} + d_\text{ff}) = 12\, n_\text{layer}\, d_\text{model}^2
#   \quad\text{when } d_\text{attn} = d_\text{model},\ d_\text{ff} = 4 d_\text{model}.$$
#
# $N$ leaves out the **embeddings** (the token table, the position table and,
# when it is tied to the token table, the output layer): Kaplan et al. found
# that the loss follows a much cleaner law in this $N$ than in the total count.
# It also leaves out biases and LayerNorm gains, $13\,d_\text{model}$ per layer
# in our blocks plus $2\,d_\text{model}$ for the final LayerNorm; for the tiny
# widths of our sweep they are not negligible, so we also count them exactly.
#
# The sweep trained seven sizes, named `LAYERSxWIDTH`, with heads of width 16.
# **Checkpoint:** the exact formula equals what the modules hold, size by size.

# %%
# NBVAL_CHECK_OUTPUT
print(f"{'size':>5} {'heads':>5} {'12·L·d²':>9} {'N exact':>9} {'modules':>9} {'embeddings':>10} {'12Ld²/N':>8}")
for size in sizes:
    config = model_config(size, len(chars), spec["context"])
    model = TransformerLM(config)
    n_formula, n_module = non_embedding_parameters(config), count_parameters(model, exclude_embeddings=True)
    kaplan = kaplan_parameters(config.n_layers, config.d_model)
    assert n_formula == n_module == N[size], (size, n_formula, n_module)
    print(f"{size:>5} {config.n_heads:>5} {kaplan:>9,} {n_formula:>9,} {n_module:>9,} "
          f"{count_parameters(model) - n_module:>10,} {kaplan / n_module:>8.3f}")
assert N[sizes[-1]] / N[sizes[0]] > 100, "the sweep must span at least two orders of magnitude"
smallest, largest = (model_config(s, len(chars), spec["context"]) for s in (sizes[0], sizes[-1]))
assert count_parameters(TransformerLM(smallest)) - N[sizes[0]] > N[sizes[0]], "embeddings outweigh the blocks"
assert 0.85 < kaplan_parameters(smallest.n_layers, smallest.d_model) / N[sizes[0]] < 0.88
assert kaplan_parameters(largest.n_layers, largest.d_model) / N[sizes[-1]] > 0.98
print(f"N spans a factor {N[sizes[-1]] / N[sizes[0]]:.0f}, i.e. {math.log10(N[sizes[-1]] / N[sizes[0]]):.2f} decades")

# %% [markdown]
# For the smallest model the embeddings ($65$ characters plus $64$ positions, times
# the width) outweigh the blocks, and Kaplan's $12\,n_\text{layer}d^2$ misses 13% of
# the non-embedding parameters; for the largest it misses under 2%.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. What is counted: FLOPs per token
#
# A multiply-add is 2 FLOPs, and in a forward pass every weight of a linear layer
# takes part in one multiply-add per token: $2N$ FLOPs. Attention adds work that
# has no parameters: the query of each token is compared with $n_\text{ctx}$ keys and
# the weights mix $n_\text{ctx}$ values. Kaplan et al.'s Table 1 puts it together as
#
# $$C_\text{forward} \approx 2N + 2\, n_\text{layer}\, n_\text{ctx}\, d_\text{model}.$$
#
# Their attention term counts $2 n_\text{ctx} d$ per layer and token. The exact
# cost of $QK^\top$ and of weights·$V$ is $4\,t\,d$ for the token at position $t$
# under the causal mask, which averages to $2 n_\text{ctx} d$: Kaplan's term is what
# causal attention needs. Our implementation, like most, computes the full
# $n_\text{ctx}\times n_\text{ctx}$ score matrix and masks it afterwards, so it does twice that.
#
# PyTorch's `torch.utils.flop_counter.FlopCounterMode` counts the FLOPs of the matrix
# products a module really executes (biases, softmax, GELU and LayerNorm are not
# counted). `dl4nlp.scaling.flops_breakdown` predicts that count term by term.
# **Checkpoint:** the prediction matches the counter exactly, for every size.

# %%
# NBVAL_CHECK_OUTPUT
n_ctx = spec["context"]
print(f"{'size':>5} {'Kaplan':>9} {'counted':>9} {'= linear':>9} {'+ attn':>8} {'+ de-emb':>8} {'Kaplan/counted':>14}")
ratios = {}
for size in sizes:
    config = model_config(size, len(chars), n_ctx, fast=False)  # the readable attention path
    measured = measure_forward_flops(TransformerLM(config), n_ctx)
    parts = flops_breakdown(config, n_ctx)
    kaplan = kaplan_forward_flops(N[size], config.n_layers, n_ctx, config.d_model)
    assert measured == sum(parts.values()), (size, measured, parts)
    assert parts["linear"] == 2 * kaplan_parameters(config.n_layers, config.d_model)
    assert parts["attention"] == 4 * config.n_layers * n_ctx * config.d_model  # twice Kaplan's causal term
    ratios[size] = kaplan / measured
    print(f"{size:>5} {kaplan:>9,.0f} {measured:>9,.0f} {parts['linear']:>9,} {parts['attention']:>8,} "
          f"{parts['de-embedding']:>8,} {ratios[size]:>14.3f}")
assert all(a < b for a, b in zip(list(ratios.values()), list(ratios.values())[1:])), "agreement improves with size"
assert ratios[sizes[0]] < 0.65 and ratios[sizes[-1]] > 0.9

# %% [markdown]
# Kaplan's formula is 40% below the count for the smallest model and within 8% for
# the largest. The gap is made of two terms the formula leaves out on purpose:
# the output layer ("de-embedding", $2\,d_\text{model}\,n_\text{vocab}$ per token: at width 8
# that is 1,040 FLOPs against 1,536 for all the weight matrices of the block) and the
# masked half of the dense attention. Both shrink relative to $2N$ as the width
# grows, which is why at GPT scale $C_\text{forward}\approx 2N$ is all anyone writes.
#
# Two more things the counter tells us. First, it only sees what it has a formula
# for: run the same model with PyTorch's fused attention kernel and, on a CPU, the
# attention FLOPs vanish from the count (the work is still done). Second, a training
# step costs three forward passes: the backward pass computes, for every matrix
# product, one product for the gradient of its input and one for its weights.
# That is where the $C \approx 6ND$ of the scaling-law papers comes from.

# %%
# NBVAL_CHECK_OUTPUT
config = model_config("2x32", len(chars), n_ctx, fast=False)
readable = TransformerLM(config)
fused = TransformerLM(model_config("2x32", len(chars), n_ctx, fast=True))
print(f"readable attention: {measure_forward_flops(readable, n_ctx):,.0f} FLOPs/token; "
      f"fused kernel: {measure_forward_flops(fused, n_ctx):,.0f} counted")
assert measure_forward_flops(fused, n_ctx) <= measure_forward_flops(readable, n_ctx)

ids = torch.zeros(2, n_ctx, dtype=torch.long)
counter = FlopCounterMode(display=False)
with counter:
    readable.loss(ids, ids).backward()
train_over_forward = counter.get_total_flops() / (measure_forward_flops(readable, n_ctx) * ids.numel())
print(f"forward + backward = {train_over_forward:.3f} x forward")
assert abs(train_over_forward - 3) < 0.01, train_over_forward
print(f"so one step on {tokens_per_step} tokens of the 2x32 model costs about "
      f"{training_flops(N['2x32'], tokens_per_step):.2e} FLOPs by 6ND")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. The quadratic cost of attention
#
# The lecture's complexity table puts a self-attention layer at $O(n^2 d)$ and a
# recurrent layer at $O(n d^2)$ for a sequence of $n$ tokens of width $d$: the
# score matrix is quadratic in the length. In a whole Transformer block the
# linear layers add $24 d^2$ FLOPs per token against Kaplan's $2nd$ for attention,
# so attention's share of the forward compute is
#
# $$\text{share}(n) = \frac{2\,n\,d}{24\,d^2 + 2\,n\,d} = \frac{n}{12\,d + n},$$
#
# which reaches one half at $n = 12d$. The lecture's example takes $d \approx 1000$
# and asks about a sentence ($n \le 30$), the usual bound $n = 512$, and a long
# document ($n \ge 50{,}000$):

# %%
# NBVAL_CHECK_OUTPUT
for d, n in [(1000, 30), (1000, 512), (1000, 50_000), (12288, 2048), (64, 64), (8, 64)]:
    print(f"d = {d:>5}, n = {n:>6}: attention is {100 * attention_share(n, d):5.1f}% of the forward FLOPs")
assert round(100 * attention_share(30, 1000), 2) == 0.25 and round(100 * attention_share(50_000, 1000)) == 81
assert 0.013 < attention_share(2048, 12288) < 0.014  # GPT-3 175B: d = 12288, n_ctx = 2048

# Per sequence the attention FLOPs grow with n², the rest with n: doubling n quadruples the first.
small = TransformerLM(model_config("2x16", len(chars), 128, fast=False))
per_sequence = {n: measure_forward_flops(small, n) * n for n in (32, 64, 128)}
linear_part = {n: n * (flops_breakdown(small.config, n)["linear"] + flops_breakdown(small.config, n)["de-embedding"])
               for n in per_sequence}
attention_part = {n: per_sequence[n] - linear_part[n] for n in per_sequence}
print("attention FLOPs per sequence, n = 32, 64, 128:", [f"{attention_part[n]:,.0f}" for n in per_sequence])
assert attention_part[64] == 4 * attention_part[32] and attention_part[128] == 4 * attention_part[64]

# %% [markdown]
# At $d = 1000$ a sentence spends a quarter of a percent of its compute on
# attention, and a 50,000-token document 81%. For the largest language models,
# which are very wide, attention is a small share at ordinary context lengths —
# one reason they still use plain quadratic attention. Our tiny models are the
# opposite case: at width 8, attention is 40% of the forward pass even at $n = 64$.
# Move the sliders to see where the crossover $n = 12d$ lies.

# %%
def draw_attention_share(d_model, n):
    """Forward FLOPs per token split into linear layers and attention (Kaplan's count)."""
    contexts = np.geomspace(16, 10 ** 5.5, 200)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for d in (64, 768, 12288):
        left.plot(contexts, [attention_share(n, d) for n in contexts], label=f"d = {d}", alpha=0.5)
    left.plot(contexts, [attention_share(n, d_model) for n in contexts], "k", label=f"d = {d_model} (chosen)")
    left.axvline(n, color="grey", ls=":")
    left.set(xscale="log", xlabel="context length n", ylabel="attention's share of forward FLOPs",
             title="share = n / (12 d + n)")
    left.legend(fontsize="small")
    linear, attention = 24 * d_model**2, 2 * n * d_model
    right.bar(["linear layers\n24 d²", "attention\n2 n d"], [linear, attention], color=["tab:blue", "tab:orange"])
    right.set(ylabel="FLOPs per token per layer",
              title=f"d = {d_model}, n = {n:,.0f}: {attention_share(n, d_model):.0%}")
    fig.tight_layout()
    return fig


interactive_figure(
    draw_attention_share,
    d_model=widgets.IntSlider(value=1000, min=8, max=12288, step=8, description="d_model"),
    n=widgets.SelectionSlider(options=[2**k for k in range(4, 19)], value=512, description="context n"),
)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. The sweep
#
# `python -m dl4nlp.scaling` trains the family of models that the rest of this
# notebook studies. It is Hoffmann et al.'s "approach 1" in miniature:
#
# - seven decoder-only Transformers, from 888 to 150,080 non-embedding parameters
#   (pre-LayerNorm, learned positions, output layer tied to the token embedding);
# - character-level language modelling of `tinyshakespeare.txt` (65 characters;
#   the last 10% held out), context 64, batches of 32 windows, so 2,048 tokens a step;
# - for every size, five separate runs with budgets of 64 to 1,024 steps (131k to
#   2.1M tokens), each with its own cosine schedule that warms up for 20 steps and
#   decays the learning rate tenfold exactly at the end of its budget;
# - two sizes also trained for 1,024 steps at a constant learning rate;
# - Adam with a peak learning rate of $3\times10^{-3}\sqrt{64/d_\text{model}}$,
#   gradients clipped at norm 1; the same seed, initial weights and batch order
#   for every run of a size;
# - held-out loss on 16k fixed characters at about a dozen points of every run, and
#   greedy-prediction metrics on 32k held-out characters at the end of every run.
#
# It took about 20 minutes on one thread of a busy 2-core x86-64 CPU. We
# interrupted it once mid-run and it resumed from its checkpoint; a second,
# independent run of the same command (also interrupted once) reproduced every
# logged loss bit for bit. The recipe travels with the results:

# %%
# NBVAL_CHECK_OUTPUT
recipe = sweep["recipe"]
print("command:       ", recipe["command"])
print("library:       ", "dl4nlp", recipe["library_version"], "| torch", recipe["torch_version"].split("+")[0])
print("corpus:        ", recipe["corpus"], "md5", recipe["corpus_md5"])
print("seed:          ", spec["seed"])
print("device:        ", recipe["sessions"][0]["device"].split("device: ")[-1], "|", recipe["sessions"][0]["machine"])
print("sessions:      ", len(recipe["sessions"]), "(resumed:", [s["resumed"] for s in recipe["sessions"]], ")")
print("runs:          ", len(runs), "| budgets (steps):", budgets, "| tokens at most:", f"{S * tokens_per_step:,}")
assert recipe["corpus_md5"] == CORPORA[recipe["corpus"]][1], "the sweep must come from the shipped corpus"
assert sweep["complete"] and len(runs) == len(sizes) * len(budgets) + len(spec["constant_lr_sizes"])
assert any(s["resumed"] for s in recipe["sessions"]), "the committed sweep was interrupted and resumed"

# %% [markdown]
# Every size's longest run, against tokens seen and against training compute
# $C = 6ND$. On the left, bigger models are lower at every amount of data; on
# the right, they start later (each of their steps costs more) and then cross
# below the smaller ones. The lower envelope of the right-hand curves is the
# **compute-efficient frontier** of section 7.

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
plot_curves({f"{s} (N={N[s]:,})": curve(f"{s}-cosine-{S}") for s in sizes}, ax=left,
            xlabel="tokens seen D", title="held-out loss against data")
plot_curves({s: (curve(f"{s}-cosine-{S}", "flops")[1], curve(f"{s}-cosine-{S}")[1]) for s in sizes}, ax=right,
            xlabel="training compute C = 6ND (FLOPs)", ylabel="", title="... and against compute")
plt.show()

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Loss against parameters: $L(N)$
#
# Kaplan et al. found that models trained long enough on enough data reach a loss
#
# $$L(N) = \left(\frac{N_c}{N}\right)^{\alpha_N},\qquad \alpha_N \approx 0.076,\ N_c \approx 8.8\times10^{13},$$
#
# a straight line on log-log axes: $\log L = \alpha_N \log N_c - \alpha_N \log N$.
# `fit_power_law` fits that line by least squares on $\log L$; the standard error
# of the slope comes from the fit's covariance $\hat\sigma^2 (X^\top X)^{-1}$ and a
# 95% interval from refitting the data with resampled residuals. With
# `irreducible=True` it fits $L = E + (N_c/N)^{\alpha}$ instead (a grid over $E$,
# then Gauss–Newton): a floor that no model size can beat. Whether the data
# need $E$ is a model-selection question; we let Akaike's criterion decide,
# which charges the extra parameter.
#
# At a fixed budget of 2.1M tokens the floor is real: a model of infinite size
# trained on 2.1M characters would still not be perfect.

# %%
x = np.array([N[s] for s in sizes], dtype=float)
y = np.array([final_loss(s, S) for s in sizes])
fit_plain = fit_power_law(x, y)
fit_floor = fit_power_law(x, y, irreducible=True)
print("without E:", fit_plain, f"AIC {fit_plain.aic:.1f}")
print("with E:   ", fit_floor, f"AIC {fit_floor.aic:.1f}")
fit_N = fit_floor if fit_floor.aic < fit_plain.aic - 2 else fit_plain

fig, ax = plt.subplots(figsize=(7.5, 4.5))
for steps, color in zip(budgets, plt.cm.viridis(np.linspace(0, 0.9, len(budgets)))):
    ax.plot(x, [final_loss(s, steps) for s in sizes], "o-", color=color, alpha=0.35, markersize=3,
            label=f"{steps * tokens_per_step / 1e6:.2g}M tokens")
plot_power_law(x, y, fit_N, ax=ax, color="k", label=f"{S * tokens_per_step / 1e6:.2g}M tokens (fitted)",
               xlabel="non-embedding parameters N", title="L(N) at fixed data, one line per budget")
ax.plot(x, fit_plain(x), ":", color="grey", label=f"without E: α = {fit_plain.alpha:.3f}")
ax.legend(fontsize="small")
plt.show()

# %% [markdown]
# **Checkpoint.** At the largest budget the loss falls with every step up in size,
# a power law with a floor describes it (AIC prefers the floor, and the fit
# explains over 98% of the variance of $\log L$), and the exponent lies in a wide
# but informative range. Without the floor the slope is about $0.05$, close to
# Kaplan's $0.076$; with it, $\alpha \approx 0.2$ above a floor near 1.7 nats.

# %%
assert np.all(np.diff(y) < 0), "loss must fall with size at the largest budget"
assert fit_floor.aic < fit_plain.aic - 2, "the data need an irreducible term"
assert fit_N is fit_floor and fit_floor.r2 > 0.98, fit_floor
assert 0.1 < fit_floor.alpha < 0.35 and 1.5 < fit_floor.irreducible < 1.9, fit_floor
assert 0.03 < fit_plain.alpha < 0.07 and fit_plain.r2 > 0.95, fit_plain
for steps in budgets[:2]:  # with very little data, a bigger model is not always better
    short = [final_loss(s, steps) for s in sizes]
    assert not np.all(np.diff(short) < 0), steps
print(f"at {budgets[0]} and {budgets[1]} steps the 2x32 model is no better than the 2x24 one")

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Our exponent is not Kaplan's, and should not be. Their $L(N)$ describes models
# trained to convergence on billions of tokens, so the only limit is $N$. Ours
# were all stopped at 2.1M characters; the bigger ones were far from done (look at
# their curves above), so the floor $E$ here mixes the entropy of Shakespeare
# with "not enough data". The lines for the shorter budgets show the same thing:
# the less data, the flatter $L(N)$, and at the two smallest budgets a bigger model
# is sometimes *worse*. Their loss is per BPE token of web text, ours per
# character, so even the units differ.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Loss against data: $L(D)$
#
# Every size was trained for five budgets, each run with its own, finished
# schedule, so the final losses give $L(D)$ for each $N$. Kaplan et al. report
# $L(D) = (D_c/D)^{\alpha_D}$ with $\alpha_D \approx 0.095$ for large models.

# %%
D = np.array(budgets, dtype=float) * tokens_per_step
fits_D = {}
fig, ax = plt.subplots(figsize=(7.5, 4.5))
for size, color in zip(sizes, plt.cm.viridis(np.linspace(0, 0.9, len(sizes)))):
    loss = np.array([final_loss(size, steps) for steps in budgets])
    n_boot = 300 if size in (sizes[0], sizes[-1]) else 0  # intervals only for the two we print
    plain = fit_power_law(D, loss, n_bootstrap=n_boot)
    floor = fit_power_law(D, loss, irreducible=True, n_bootstrap=n_boot)
    fits_D[size] = (plain, floor)
    best = floor if floor.aic < plain.aic - 2 else plain
    ax.plot(D, loss, "o", color=color, label=f"{size}: α = {best.alpha:.2f}" + (", E" if best is floor else ""))
    ax.plot(D, best(D), "--", color=color)
ax.set(xscale="log", yscale="log", xlabel="tokens D (each point a separate run)",
       ylabel="held-out loss (nats per character)", title="L(D) for every size")
plain_log_ticks(ax)
ax.legend(fontsize="small")
plt.show()
for size in (sizes[0], sizes[-1]):
    print(f"{size}: without E {fits_D[size][0]}\n      with E    {fits_D[size][1]}")

# %% [markdown]
# **Checkpoint.** The smallest model's $L(D)$ needs a floor: with under a thousand
# parameters it runs out of capacity near 2.5 nats, whatever the data. The largest
# model's does not (its fitted floor collapses to zero and AIC rejects it): it is
# still data-limited, falling as a plain power law with an exponent near Kaplan's.

# %%
small_plain, small_floor = fits_D[sizes[0]]
large_plain, large_floor = fits_D[sizes[-1]]
assert small_floor.aic < small_plain.aic - 10 and 2.3 < small_floor.irreducible < 2.55, small_floor
assert not large_floor.aic < large_plain.aic - 2, "the largest model needs no floor"
assert 0.07 < large_plain.alpha < 0.13 and large_plain.r2 > 0.93, large_plain
assert all(0.07 < fits_D[s][0].alpha < 0.13 for s in sizes[1:]), {s: fits_D[s][0].alpha for s in sizes}

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. The compute-efficient frontier
#
# Put every curve of every cosine run on one compute axis. For each compute
# budget $C$, the frontier is the lowest loss that any run reached with at most $C$
# FLOPs (`dl4nlp.scaling.frontier`), and the run that reached it tells us which
# model size was **compute-optimal** at that budget: the one to train if you had
# exactly $C$ FLOPs. Kaplan et al. fit $L(C_\text{min}) \propto C^{-0.050}$ to such a
# frontier and found the optimal size growing as $N_\text{opt}\propto C^{0.73}$;
# Hoffmann et al., with schedules matched to each budget, found
# $N_\text{opt}\propto C^{0.5}$ and $D_\text{opt}\propto C^{0.5}$, about 20 tokens per parameter
# (Chinchilla: 70B parameters, 1.4T tokens).

# %%
cosine_ids = [rid for rid, run in runs.items() if run["schedule"] == "cosine"]
curves = [(curve(rid, "flops")[1], curve(rid)[1]) for rid in cosine_ids]  # (C = 6ND, loss) along each run
grid = np.geomspace(1e9, max(c[0].max() for c in curves), 40)
best, which = frontier(curves, grid)
winner = [runs[cosine_ids[i]] for i in which]
fit_C = fit_power_law(grid, best)
print("frontier:", fit_C)

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2))
colors = dict(zip(sizes, plt.cm.viridis(np.linspace(0, 0.9, len(sizes)))))
for rid, (c, loss) in zip(cosine_ids, curves):
    left.plot(c, loss, color=colors[runs[rid]["size"]], alpha=0.5, lw=1,
              label=runs[rid]["size"] if runs[rid]["steps"] == S else None)
    left.plot(c[-1], loss[-1], "o", color=colors[runs[rid]["size"]], markersize=3)
left.plot(grid, best, "k", lw=3, alpha=0.6, label="frontier")
left.plot(grid, fit_C(grid), "r--", label=f"fit: α_C = {fit_C.alpha:.3f}")
left.set(xscale="log", yscale="log", xlim=(1e8, None), ylim=(1.9, 4.3), xlabel="compute C = 6ND (FLOPs)",
         ylabel="held-out loss (nats per character)", title="all 35 cosine runs (dots: end of each run)")
plain_log_ticks(left)
left.legend(fontsize="small", ncol=2)
n_opt = np.array([w["non_embedding_params"] for w in winner], dtype=float)
ends = np.array([curves[i][0][-1] for i in which])  # a run that ended below C used only its own compute
d_opt = np.minimum(grid, ends) / (6 * n_opt)
right.plot(grid, n_opt, "o-", label="compute-optimal N (the winning run's size)")
right.plot(grid, d_opt / n_opt, "s-", label="tokens per parameter D/N")
right.axhline(20, color="grey", ls=":", label="Chinchilla: 20 tokens per parameter")
right.set(xscale="log", yscale="log", xlabel="compute C (FLOPs)", title="who wins at each budget")
right.legend(fontsize="small")
plt.show()
slope_N = np.polyfit(np.log(grid), np.log(n_opt), 1)[0]
print(f"N_opt grows as C^{slope_N:.2f}; tokens per parameter at the optimum fall from "
      f"{(d_opt / n_opt)[0]:,.0f} to {(d_opt / n_opt)[-1]:,.0f}")

# %% [markdown]
# **Checkpoint.** The frontier falls as a power law of compute, with an exponent
# of the order of Kaplan's $0.050$; the compute-optimal size grows with the budget;
# the winner at the top budget is the largest model, at its last step; and at over
# 80% of the budgets the winner is some size's longest run.

# %%
assert np.all(np.diff(best) <= 0) and fit_C.r2 > 0.95, fit_C
assert 0.03 < fit_C.alpha < 0.09, fit_C
assert np.all(np.diff(n_opt) >= 0) and n_opt[-1] == N[sizes[-1]] and n_opt[0] < n_opt[-1]
assert winner[-1]["steps"] == S and np.mean([w["steps"] == S for w in winner]) > 0.8  # the budget cap
assert 0.5 < slope_N < 1.0 and 5 < (d_opt / n_opt)[-1] < 30 and 100 < (d_opt / n_opt)[0] < 400, (slope_N, d_opt / n_opt)

# %% [markdown]
# Read the right-hand plot with care. Over our range the optimal size grows
# about as $C^{0.7}$, numerically close to Kaplan's $0.73$, and the tokens per
# parameter at the optimum fall from about two hundred to about 14, not far from
# Chinchilla's 20. Neither number measures the optimum. Every size saw at most
# 2.1M tokens, and at almost every budget the winner is some size at (or near)
# the end of its longest run: the frontier is capped by our largest token
# budget, not located by the data. To find the optimum honestly, the small
# models would need much longer runs, as in the "IsoFLOP" design of Hoffmann et
# al., in which every size is trained with the same compute. Other reasons a
# tiny run differs: characters
# instead of BPE tokens (a character carries less information, so a model needs
# more of them); a context of 64, where attention and the output layer are a
# large share of the compute that $6ND$ ignores (section 2); seven discrete sizes;
# learning rates set by a rule rather than tuned per size; and the text is
# repeated twice by the longest runs.
#
# The lecture quotes two older results that show why the field cared about these
# exponents: LSTMs of 1.8B and 3.3B parameters with perplexities 30.6 and 32.2
# (Jozefowicz et al., 2016), and Transformer-XL models of 0.46B and 0.8B parameters
# with 23.5 and 21.8 (the slide dates them 2016; Dai, Yang et al. published
# Transformer-XL in 2019). Taking the loss as $\ln(\text{perplexity})$, each pair
# implies an exponent:

# %%
# NBVAL_CHECK_OUTPUT
def implied_alpha(n_small, ppl_small, n_large, ppl_large):
    """Exponent of L = (N_c / N)^alpha through two points, with L = ln(perplexity)."""
    return math.log(math.log(ppl_small) / math.log(ppl_large)) / math.log(n_large / n_small)


alpha_lstm = implied_alpha(1.8e9, 30.6, 3.3e9, 32.2)
alpha_txl = implied_alpha(0.46e9, 23.5, 0.8e9, 21.8)
print(f"LSTM pair:           alpha = {alpha_lstm:+.3f} (the larger model is worse)")
print(f"Transformer-XL pair: alpha = {alpha_txl:+.3f} (Kaplan's alpha_N: 0.076)")
assert alpha_lstm < 0 < alpha_txl and 0.04 < alpha_txl < 0.05

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Two points from different set-ups are not a scaling law, but the contrast is
# the slide's message: the Transformers kept improving with size where those
# LSTMs did not.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 8. Learning-rate schedules bend the curve
#
# A cosine schedule lowers the learning rate smoothly to a tenth of its peak at
# the planned end of training. The "Chinchilla's death" critique points out what
# that does to a loss curve: near the end, learning slows because the step size
# shrinks, not because the model has run out of capacity; a curve that flattens
# at the end of a cosine schedule tells you about the schedule. It also explains
# why Hoffmann et al. trained a separate run for every budget: reading the loss
# at step $t$ of a run scheduled for $T > t$ steps is not the same as having
# trained for $t$ steps.
#
# The sweep trained two sizes both ways, with identical initial weights and batches.

# %%
fig, axes = plt.subplots(2, 2, figsize=(12, 6.5), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
for column, size in enumerate(spec["constant_lr_sizes"]):
    top, bottom = axes[0, column], axes[1, column]
    tokens, loss = curve(f"{size}-constant-{S}")
    top.plot(tokens, loss, "k", lw=2.5, label="constant")
    bottom.plot(tokens, curve(f"{size}-constant-{S}", "lr")[1], "k", lw=2.5)
    for steps, color in zip(budgets, plt.cm.plasma(np.linspace(0, 0.8, len(budgets)))):
        t, l = curve(f"{size}-cosine-{steps}")
        top.plot(t, l, color=color, label=f"cosine, {steps} steps")
        bottom.plot(t, curve(f"{size}-cosine-{steps}", "lr")[1], color=color)
    top.set(xscale="log", ylim=(1.95, 3.4), title=f"{size} (N = {N[size]:,})", ylabel="held-out loss")
    bottom.set(xscale="log", xlabel="tokens seen", ylabel="learning rate")
    top.legend(fontsize="small")
plt.show()

# %% [markdown]
# **Checkpoint.** For both sizes, every cosine run ends *above* the constant-rate
# run at the same step; over the last eighth of the longest run the cosine curve
# falls more slowly than the constant one; and halfway through the longest cosine
# run the loss is already lower than where the run scheduled to end there finished.

# %%
for size in spec["constant_lr_sizes"]:
    constant = dict(zip(curve(f"{size}-constant-{S}")[0], curve(f"{size}-constant-{S}")[1]))
    for steps in budgets:
        end = final_loss(size, steps)
        assert end > constant[steps * tokens_per_step], (size, steps, end, constant[steps * tokens_per_step])
    cos_tokens, cos_loss = curve(f"{size}-cosine-{S}")
    last_drop_cosine = cos_loss[-2] - cos_loss[-1]
    last_drop_constant = constant[cos_tokens[-2]] - constant[cos_tokens[-1]]
    assert last_drop_cosine < last_drop_constant, (size, last_drop_cosine, last_drop_constant)
    halfway = dict(zip(cos_tokens, cos_loss))[S // 2 * tokens_per_step]
    assert halfway < final_loss(size, S // 2), (size, halfway, final_loss(size, S // 2))
    print(f"{size}: last-eighth drop {last_drop_cosine:.3f} (cosine) vs {last_drop_constant:.3f} (constant); "
          f"at {S // 2} steps {halfway:.3f} (long cosine) vs {final_loss(size, S // 2):.3f} (finished)")

# %% [markdown]
# In these short runs the models are still in their fast-learning phase, so any
# reduction of the step size costs progress: the cosine curves flatten and end
# above the constant one. In long, well-converged training the end of a cosine
# schedule usually buys a final drop *below* a constant rate (less gradient noise
# near a minimum); which effect wins depends on how far from converged the model
# is. Either way, the shape of a curve near its end is a property of the
# schedule, and comparing runs at points where their schedules differ measures
# the schedules, not the models. Hoffmann et al. argued that reading losses at
# intermediate points of runs scheduled for a longer horizon, as Kaplan et al.
# did, overstates those losses and so understates what more data buys, one
# reason the earlier paper favoured bigger models. In our short runs the same
# reading errs the other way (a long run's midpoint beats a finished short run):
# either way, match the schedule to the budget.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 9. Emergence as a measurement choice
#
# An ability is called *emergent* when small models score at chance and, beyond
# some size, the score shoots up. Schaeffer, Miranda and Koyejo (2023) argued that
# many such jumps come from the metric: if each token of an $L$-token answer is
# right with probability $p$ that improves smoothly with size, exact match of the
# whole answer scores about $p^L$, which stays near zero for a long time and then
# rises steeply. The same models measured per token improve smoothly.
#
# The sweep scored each model's greedy predictions on 32k held-out characters
# (each with at least 32 characters of context): per-character accuracy, exact
# match of the next $k$ characters, and the completion of every word of at least
# four letters after seeing its first letter, scored per character and as a whole.

# %%
# NBVAL_CHECK_OUTPUT
scores = {s: runs[f"{s}-cosine-{S}"]["continuation"] for s in sizes}
accuracy = np.array([scores[s]["token_accuracy"] for s in sizes])
completion_chars = np.array([scores[s]["completion_char_accuracy"] for s in sizes])
completion_exact = np.array([scores[s]["completion_exact_match"] for s in sizes])
exact = np.array([scores[s]["exact_match"] for s in sizes])  # (sizes, k)
print(f"{'size':>5} {'N':>8} {'char acc':>8} {'exact k=4':>9} {'exact k=8':>9} {'word: char acc':>14} "
      f"{'word: exact':>11}")
for i, s in enumerate(sizes):
    print(f"{s:>5} {N[s]:>8,} {accuracy[i]:>8.3f} {exact[i, 3]:>9.4f} {exact[i, 7]:>9.5f} "
          f"{completion_chars[i]:>14.3f} {completion_exact[i]:>11.4f}")
print(f"({scores[sizes[0]]['completions']} word completions per model)")

# %%
def draw_emergence(k, log_scale):
    """Per-character accuracy and exact match of k characters against model size."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot(x, accuracy, "o-", label="per-character accuracy")
    left.plot(x, completion_chars, "s-", label="word completion, per character")
    left.set(xscale="log", ylim=(0, 1), xlabel="non-embedding parameters N", ylabel="score",
             title="scored per character: smooth")
    left.legend(fontsize="small")
    right.plot(x, exact[:, k - 1], "o-", color="tab:red", label=f"exact match of {k} characters")
    right.plot(x, accuracy**k, "--", color="tab:red", alpha=0.5, label=f"(per-character accuracy)^{k}")
    right.plot(x, completion_exact, "s-", color="tab:purple", label="whole word completion")
    right.set(xscale="log", yscale="log" if log_scale else "linear", xlabel="non-embedding parameters N",
              title="scored as a whole: " + ("smooth again on a log axis" if log_scale else "looks abrupt"))
    right.legend(fontsize="small")
    fig.tight_layout()
    return fig


interactive_figure(draw_emergence, k=widgets.IntSlider(value=6, min=1, max=spec["max_k"], description="k"),
                   log_scale=widgets.Checkbox(value=False, description="log y axis"))

# %% [markdown]
# **Checkpoint.** Scored per character, the models improve steadily: both
# per-character scores lie close to a straight line in $\log N$, and the largest
# model scores at most 2.5 times the smallest. Scored as whole words, the very
# same completions look like an ability that switches on: the smallest model
# completes no word at all, the three smallest sizes stay under a fifth of the
# largest's score, and the rest rises steeply. On a log axis the exact match of
# $k$ characters is as smooth as the per-character accuracy, and close to $p^k$.

# %%
def straightness(score):
    """R² of a straight line through the scores against log N."""
    coefficients = np.polyfit(np.log(x), score, 1)
    residual = score - np.polyval(coefficients, np.log(x))
    return 1 - residual @ residual / np.sum((score - score.mean()) ** 2)


for name, score in [("per-character accuracy", accuracy), ("word completion, per character", completion_chars)]:
    assert np.all(np.diff(score) > -0.005) and straightness(score) > 0.93, (name, score)
    assert score[-1] < 2.5 * score[0], (name, score)
    print(f"{name}: x{score[-1] / score[0]:.1f} from smallest to largest, "
          f"R² of a line in log N {straightness(score):.3f}")
assert completion_exact[0] < 0.005 and np.all(completion_exact[:3] < 0.2 * completion_exact[-1]), completion_exact
assert completion_exact[-1] > 0.04, completion_exact
ratio_to_independent = exact[:, 5] / accuracy**6
assert np.all((ratio_to_independent > 0.5) & (ratio_to_independent < 3)), ratio_to_independent
print("whole-word completion:", np.round(completion_exact, 3))
print("exact match of 6 characters / accuracy^6:", np.round(ratio_to_independent, 2))

# %% [markdown]
# Nothing sudden happened inside the models: each is a little better per
# character than the one before. A metric that needs several things to be right
# at once turns that steady progress into something that looks like a threshold.
# (Exact match tracks $p^k$ within a factor of about two, not exactly: the
# characters of a stretch are not independent, since an easy stretch of text is
# easy all the way through.)
#
# What do these numbers mean in text? Here is each stored model continuing the
# same held-out line greedily:

# %%
prompt = "KING RICHARD III:\nNow is the winter of our discontent\nMade glorious summer by this s"
index = {c: i for i, c in enumerate(chars)}
for size in (sizes[0], sizes[3], sizes[-1]):
    ids = torch.tensor([[index[c] for c in prompt[-spec["context"]:]]])
    out = models[size].generate(ids, 60, temperature=0)
    text = "".join(chars[i] for i in out[0, ids.shape[1]:].tolist()).replace("\n", " / ")
    print(f"{size:>5}: ...{prompt[-24:]!r} -> {text!r}")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 10. A live mini-sweep
#
# The full sweep took twenty minutes; its three smallest sizes at their 128-step
# budget take a few seconds. `run_sweep` with the same settings but
# `steps=128` trains exactly those runs again: same seeds, same initial weights,
# same batches, same schedule (and, like the sweep, one CPU thread).

# %%
live_spec = SweepSpec(sizes=tuple(sizes[:3]), steps=128, budget_fractions=(1.0,), constant_lr_sizes=(),
                      emergence_windows=128)  # fewer windows for the end-of-run scores we do not use here
with tempfile.TemporaryDirectory() as scratch:
    live = run_sweep(live_spec, Path(scratch) / "live.json", Path(scratch) / "work", device=device)

fig, ax = plt.subplots(figsize=(7.5, 4.5))
for size, color in zip(live_spec.sizes, ["tab:blue", "tab:orange", "tab:green"]):
    ax.plot(*curve(f"{size}-cosine-128"), "o", color=color, markersize=8, alpha=0.4, label=f"{size}, committed")
    points = live["runs"][f"{size}-cosine-128"]["curve"]
    ax.plot([p["tokens"] for p in points], [p["heldout_loss"] for p in points], "-", color=color, label=f"{size}, live")
ax.set(xscale="log", xlabel="tokens seen", ylabel="held-out loss (nats per character)",
       title="the live runs retrace the committed sweep")
ax.legend(fontsize="small")
plt.show()

# %% [markdown]
# **Checkpoint.** The live runs end within 0.02 nats of the committed ones (on the
# machine that made them, to the last bit; elsewhere, floating-point sums may be
# ordered differently), and they keep the sweep's order: bigger is better.

# %%
live_final = {s: live["runs"][f"{s}-cosine-128"]["curve"][-1]["heldout_loss"] for s in live_spec.sizes}
for size, loss in live_final.items():
    assert abs(loss - final_loss(size, 128)) < 0.02, (size, loss, final_loss(size, 128))
assert live_final[sizes[0]] > live_final[sizes[1]] > live_final[sizes[2]], live_final
print({s: round(v, 3) for s, v in live_final.items()})

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercises
#
# **Exercise 1.** Chinchilla's rule of thumb: a compute-optimal model sees about 20
# tokens per parameter. With $C = 6ND$ and $D = 20N$, what $N$ and $D$ does a budget
# of $C = 5.76\times10^{23}$ FLOPs (roughly Chinchilla's) buy? Return `(N, D)`.

# %%
def exercise_1():
    C = 5.76e23
    raise NotImplementedError


check("Exercise 1", exercise_1, (math.sqrt(5.76e23 / 120), 20 * math.sqrt(5.76e23 / 120)), rtol=1e-6);

# %% [markdown]
# *Solution (click the cell below to reveal it).*

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    C = 5.76e23
    n = math.sqrt(C / (6 * 20))  # C = 6 N (20 N) = 120 N^2
    return n, 20 * n


assert check("Exercise 1", exercise_1, (math.sqrt(5.76e23 / 120), 20 * math.sqrt(5.76e23 / 120)), rtol=1e-6)
print(f"N = {exercise_1()[0]:.3g} parameters, D = {exercise_1()[1]:.3g} tokens (Chinchilla: 70B and 1.4T)")

# %% [markdown]
# **Exercise 2.** Fit the plain power law $L = (N_c/N)^\alpha$ to the sweep's
# final losses at the largest budget (`x`, `y` above) yourself, with
# `np.polyfit` on the logarithms, and return `(alpha, N_c)`. It must agree with
# `fit_power_law`.

# %%
def exercise_2():
    raise NotImplementedError


check("Exercise 2", exercise_2, (fit_plain.alpha, fit_plain.x_c), rtol=1e-6);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)  # log L = alpha log N_c - alpha log N
    alpha = -slope
    return alpha, math.exp(intercept / alpha)


assert check("Exercise 2", exercise_2, (fit_plain.alpha, fit_plain.x_c), rtol=1e-6)

# %% [markdown]
# **Exercise 3.** With Kaplan's count, at what context length does attention cost
# as much as all the linear layers of GPT-2 small ($d_\text{model} = 768$)? And how
# long would it be for the *dense* implementation measured in section 2, which
# computes every masked score too? Return both lengths.

# %%
def exercise_3():
    raise NotImplementedError


check("Exercise 3", exercise_3, (9216, 4608));

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def exercise_3():
    d = 768
    kaplan = 12 * d  # 2 n d = 24 d^2
    dense = 6 * d  # 4 n d = 24 d^2
    return kaplan, dense


assert check("Exercise 3", exercise_3, (9216, 4608))
assert attention_share(9216, 768) == 0.5

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - Scaling-law papers count **non-embedding** parameters, $N \approx 12\,n_\text{layer}d^2$, and forward FLOPs $\approx 2N + 2n_\text{layer}n_\text{ctx}d$ per token; training costs three forward passes, $C \approx 6ND$. Both counts match PyTorch's modules exactly once the output layer and the masked half of dense attention are added back.
# - Attention's share of the compute is $n/(12d+n)$: negligible for wide models at ordinary lengths, dominant for long documents or very narrow models.
# - On a real sweep of 888- to 150k-parameter character models, loss falls as a power law in $N$ (with a floor set by the 2.1M-token budget), in $D$ (plain for the large models, with a capacity floor for the smallest) and along the compute frontier ($\alpha_C \approx 0.05$).
# - Our frontier is capped by the longest budget, so its optimal sizes and tokens per parameter cannot be compared with Kaplan's $C^{0.73}$ or Chinchilla's $C^{0.5}$ and 20 tokens per parameter; locating them needs small models trained much longer (IsoFLOP profiles).
# - A cosine schedule bends the end of a loss curve; compare runs only where their schedules are finished.
# - Per-character accuracy improves smoothly with size; exact match of multi-character answers, the same predictions scored all-or-nothing, looks like emergence.
#
# **Next:** the references below; and try `python -m dl4nlp.scaling --help` with longer budgets for the small models.
#
# **References**
# - J. Kaplan, S. McCandlish, T. Henighan et al., *Scaling Laws for Neural Language Models* (2020).
# - J. Hoffmann, S. Borgeaud, A. Mensch et al., *Training Compute-Optimal Large Language Models* ("Chinchilla", 2022).
# - "Chinchilla's death" (espadrine.github.io blog post, 2023), on learning-rate schedules and the shape of loss curves.
# - J. Wei, Y. Tay, R. Bommasani et al., *Emergent Abilities of Large Language Models*, TMLR (2022).
# - R. Schaeffer, B. Miranda, S. Koyejo, *Are Emergent Abilities of Large Language Models a Mirage?* (2023).
# - R. Jozefowicz, O. Vinyals, M. Schuster, N. Shazeer, Y. Wu, *Exploring the Limits of Language Modeling* (2016).
# - Z. Dai, Z. Yang, Y. Yang et al., *Transformer-XL: Attentive Language Models beyond a Fixed-Length Context*, ACL (2019).
# - A. Vaswani et al., *Attention Is All You Need* (2017), for the per-layer complexity table.
