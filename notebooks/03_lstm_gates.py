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
# # 03 · LSTM gates: a memory that gradients can flow through
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/03_lstm_gates.ipynb)
#
# Notebook 02 ended with a vanilla RNN that could not remember a token for 20
# steps, because the gradient had to squeeze through a matrix product at every
# step. The Long Short-Term Memory (LSTM) adds a second path through time, the
# *cell state*, along which information is only ever scaled by a gate and added
# to. In this notebook you will build the LSTM cell gate by gate, prove it equal
# to PyTorch's, watch it solve the memory task the RNN failed, look at its
# gates opening and closing on a real sentence, and find a single cell of a
# character-level LSTM that tracks whether the text is inside a quotation.
#
# **You will:**
# - write the forget, input, candidate and output gates and the cell update, and check them against `torch.nn.LSTM` (and the GRU against `torch.nn.GRU`);
# - measure how much gradient reaches the start of a sequence in an LSTM and in an RNN;
# - read heatmaps of gate values on a sentence from *The Adventures of Sherlock Holmes*;
# - find an interpretable cell in a trained character-level LSTM, and browse the others;
# - sample text at different temperatures, and meet stacked and bidirectional LSTMs and ELMo.
#
# **Prerequisites:** notebook 02 (RNNs, backpropagation through time, the long-lag task).
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
import json
import math
import re

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import HTML, display
from torch import nn

from dl4nlp.data import data_path, load_text, random_windows
from dl4nlp.exercises import check
from dl4nlp.gradflow import time_step_gradient_norms
from dl4nlp.lstm import UnrolledGRU, UnrolledLSTM, load_char_model, set_forget_bias_
from dl4nlp.plots import colour_text, plot_coloured_text, plot_gradient_norms, plot_heatmap
from dl4nlp.probes import column_in_line, inside_quotes, unit_auc, unit_correlation
from dl4nlp.rnn import RecurrentClassifier, RecurrentLM, language_model_loss, sample
from dl4nlp.tasks import fit_long_lag, long_lag_accuracy, long_lag_task
from dl4nlp.tokenize import straighten_quotes
from dl4nlp.train import train
from dl4nlp.widgets import interactive_figure

# Speed on a CPU, without changing any result (see notebook 02): flush denormal floats to zero.
torch.set_flush_denormal(True)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. The LSTM cell, gate by gate
#
# **Intuition.** Besides its hidden state $h^{(t)}$, an LSTM keeps a *cell state*
# $C^{(t)}$, a memory that is changed only by two gentle operations: each entry is
# multiplied by a number between 0 and 1 (*forget* some of it) and has something
# added to it (*write* new information). Three gates, each a vector of numbers in
# $(0, 1)$ computed from the current input and the previous hidden state, decide
# how much to forget, how much to write, and how much of the memory to show as
# the new hidden state.
#
# **The maths.** With $[h^{(t-1)}, x^{(t)}]$ the concatenation of the previous hidden state and the input:
#
# $$\begin{aligned}
# f^{(t)} &= \sigma\bigl(W_f [h^{(t-1)}, x^{(t)}] + b_f\bigr) && \text{forget gate: how much of } C^{(t-1)} \text{ to keep}\\
# i^{(t)} &= \sigma\bigl(W_i [h^{(t-1)}, x^{(t)}] + b_i\bigr) && \text{input gate: how much of the candidate to write}\\
# \tilde C^{(t)} &= \tanh\bigl(W_C [h^{(t-1)}, x^{(t)}] + b_C\bigr) && \text{candidate: what could be written}\\
# o^{(t)} &= \sigma\bigl(W_o [h^{(t-1)}, x^{(t)}] + b_o\bigr) && \text{output gate: how much of the memory to show}\\
# C^{(t)} &= f^{(t)} \odot C^{(t-1)} + i^{(t)} \odot \tilde C^{(t)}, \qquad h^{(t)} = o^{(t)} \odot \tanh\bigl(C^{(t)}\bigr).
# \end{aligned}$$
#
# PyTorch stores the four weight matrices stacked, in the order input, forget,
# candidate, output: `weight_ih_l0` is $(4H, I)$ and `weight_hh_l0` is $(4H, H)$, with two biases.
# One step by hand:

# %%
def lstm_step(x, h, c, weight_ih, weight_hh, bias):
    """One LSTM step for a batch: x (B, I), h and c (B, H) -> h, c, gates."""
    z_i, z_f, z_g, z_o = (x @ weight_ih.T + h @ weight_hh.T + bias).chunk(4, dim=1)  # each (B, H)
    i, f, g, o = torch.sigmoid(z_i), torch.sigmoid(z_f), torch.tanh(z_g), torch.sigmoid(z_o)
    c = f * c + i * g
    h = o * torch.tanh(c)
    return h, c, {"input": i, "forget": f, "candidate": g, "output": o}


torch.manual_seed(0)
torch_lstm = nn.LSTM(input_size=5, hidden_size=8, batch_first=True)
x = torch.randn(3, 12, 5)  # (B, T, I)
h = c = torch.zeros(3, 8)
bias = torch_lstm.bias_ih_l0 + torch_lstm.bias_hh_l0
by_hand = []
for t in range(x.shape[1]):
    h, c, _ = lstm_step(x[:, t], h, c, torch_lstm.weight_ih_l0, torch_lstm.weight_hh_l0, bias)
    by_hand.append(h)
by_hand = torch.stack(by_hand, dim=1)  # (B, T, H)

expected, (h_torch, c_torch) = torch_lstm(x)
ours = UnrolledLSTM.from_torch(torch_lstm)  # the library's loop, PyTorch's weights copied in
outputs, (h_ours, c_ours), trace = ours(x)

# %% [markdown]
# **Checkpoint.** The step written by hand, `dl4nlp.lstm.UnrolledLSTM` and
# `torch.nn.LSTM` agree on every hidden state and on the final cell state, and the
# recorded gates satisfy the cell update $C^{(t)} = f \odot C^{(t-1)} + i \odot \tilde C$ exactly.

# %%
# NBVAL_CHECK_OUTPUT
assert (by_hand - expected).abs().max() < 1e-5 and (outputs - expected).abs().max() < 1e-5
assert (h_ours - h_torch[0]).abs().max() < 1e-5 and (c_ours - c_torch[0]).abs().max() < 1e-5
previous_c = torch.cat([torch.zeros(3, 1, 8), trace["cell"][:, :-1]], dim=1)
assert torch.allclose(trace["cell"], trace["forget"] * previous_c + trace["input"] * trace["candidate"], atol=1e-6)
assert torch.allclose(outputs, trace["output"] * torch.tanh(trace["cell"]), atol=1e-6)
print("gates recorded:", {name: tuple(value.shape) for name, value in trace.items()})

# %% [markdown]
# ### The GRU, briefly
#
# The gated recurrent unit (Cho et al., 2014) keeps only a hidden state and two gates:
# a *reset* gate $r$ (how much of $h^{(t-1)}$ the candidate may see) and an *update*
# gate $z$ that interpolates between the old state and the candidate $n$:
# $h^{(t)} = (1 - z) \odot n + z \odot h^{(t-1)}$. The same interpolation gives it an
# additive path through time. `dl4nlp.lstm.UnrolledGRU` is checked against `nn.GRU`
# the same way, and the three cells compared by size:

# %%
# NBVAL_CHECK_OUTPUT
torch.manual_seed(0)
torch_gru = nn.GRU(input_size=5, hidden_size=8, batch_first=True)
gru_outputs, gru_last, gru_trace = UnrolledGRU.from_torch(torch_gru)(x)
assert (gru_outputs - torch_gru(x)[0]).abs().max() < 1e-5
print("GRU gates:", list(gru_trace))
for name, module in [("RNN", nn.RNN(5, 8)), ("GRU", torch_gru), ("LSTM", torch_lstm)]:
    print(f"{name:>4}: {sum(p.numel() for p in module.parameters()):4d} parameters for 5 inputs and 8 hidden units")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. Why it helps: the additive path through time
#
# Follow the cell state back one step. $C^{(t)} = f^{(t)} \odot C^{(t-1)} + i^{(t)} \odot \tilde C^{(t)}$, so along the
# cell-state path
#
# $$\frac{\partial C^{(t)}}{\partial C^{(t-1)}} = \operatorname{diag}\bigl(f^{(t)}\bigr) + (\text{terms through } h^{(t-1)} \text{ and the gates}).$$
#
# There is no weight matrix in the first term and no $\tanh'$: when the forget
# gate is open ($f \approx 1$) the gradient flows back unchanged, step after step.
# The network *learns* when to keep the path open and when to close it. A
# common trick helps it start right: initialise the forget gate's bias to a
# positive number, so a fresh LSTM remembers by default. We use $b_f = 3$, so
# $f \approx \sigma(3) = 0.95$ at the start.
#
# Notebook 02's memory task at **lag 50**, where the tanh RNN was at chance:
# same data, same optimiser, 200 steps each, 32 hidden units each.

# %%
LAG = 50


def make_model(kind, seed=0):
    torch.manual_seed(seed)
    model = RecurrentClassifier(vocab_size=12, num_classes=4, hidden_size=32, kind=kind)
    if kind == "lstm":
        set_forget_bias_(model.recurrent, 3.0)
    return model


probe_tokens, probe_labels = long_lag_task(256, LAG, generator=torch.Generator().manual_seed(1))


def gradient_reaching_each_step(model):
    """|dLoss/d(input embedding at step t)| for a loss read at the last step."""
    loss = lambda e: nn.functional.cross_entropy(model(probe_tokens, embedded=e), probe_labels)
    return time_step_gradient_norms(loss, model.embedding(probe_tokens))


models, at_start, accuracy = {}, {}, {}
for kind, name in [("rnn", "tanh RNN"), ("lstm", "LSTM")]:
    models[name] = make_model(kind)
    at_start[name] = gradient_reaching_each_step(models[name])
    fit_long_lag(models[name], lag=LAG, steps=200, lr=3e-3, desc=f"{name}, lag {LAG}")
    accuracy[name] = long_lag_accuracy(models[name], LAG)
after_training = {name: gradient_reaching_each_step(model) for name, model in models.items()}

plot_gradient_norms({f"{name} (at initialisation)": n for name, n in at_start.items()},
                    xlabel="time step t (the signal is at t = 1, the loss at the end)",
                    title=f"Gradient reaching each step of a lag-{LAG} sequence")
plt.show()
for name in models:
    print(f"{name:>8}: accuracy {accuracy[name]:.2f}; gradient at the signal / at the last step: "
          f"{at_start[name][0] / at_start[name][-1]:.1e} at the start, "
          f"{after_training[name][0] / after_training[name][-1]:.1e} after training")

# %% [markdown]
# **Checkpoint.** The LSTM solves lag 50 (accuracy above 90%), where the RNN
# stays at chance (below 40%, chance being 25%). The gradient at the signal is
# more than a hundredth of the one at the last step in the LSTM, at the start and
# after training, but less than $10^{-9}$ of it in the RNN.

# %%
assert abs(torch.sigmoid(torch.tensor(3.0)).item() - 0.95) < 0.005  # the initial forget gate
assert accuracy["LSTM"] > 0.9 and accuracy["tanh RNN"] < 0.4, accuracy
for measured in (at_start, after_training):
    ratio = {name: n[0] / n[-1] for name, n in measured.items()}
    assert ratio["LSTM"] > 1e-2 and ratio["tanh RNN"] < 1e-9, ratio

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Gates over time on a real sentence
#
# To look at gates doing real work we need an LSTM trained on real text. The
# course ships one: a character-level LSTM language model (one layer, 256
# cells) trained on *The Adventures of Sherlock Holmes* by truncated BPTT (the
# state is carried from one 128-character window to the next, as in notebook 02).

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Training it takes 10 to 20 minutes on a CPU, longer than this notebook should
# run, so it was trained once by a library command and saved in `data/` with its
# recipe; section 5 runs the start of such a training live.

# %% [markdown]
# We load it with PyTorch's fast `nn.LSTM` inside, and copy its weights into the from-scratch
# `UnrolledLSTM` to read the gates.
#
# One preparation matters for section 4. The book prints opening and closing
# quotation marks differently (“ and ”); the model was trained on the text with
# both replaced by the straight quote `"`. Then a `"` alone does not say whether a
# quotation opens or closes (a capital letter or a space comes next?); only a
# memory of what came before does.

# %%
model, vocab = load_char_model(data_path("char_lstm_sherlock.pt"))  # torch.load(..., weights_only=True)
recipe = json.loads(data_path("char_lstm_sherlock.json").read_text())
scratch = UnrolledLSTM.from_torch(model.recurrent)
print("recipe:", recipe["command"])
print(f"{recipe['parameters']:,} parameters, {len(vocab)} characters, held-out loss "
      f"{recipe['valid_loss']:.2f} nats per character")

text = load_text("sherlock_holmes.txt")
if recipe["arguments"]["straight_quotes"]:
    text = straighten_quotes(text)  # “ and ” -> "
held_out = text[int(0.95 * len(text)):]  # the model never trained on this part


def read(passage):
    """Run the checkpoint over a passage twice: with nn.LSTM and with UnrolledLSTM (recording the gates)."""
    with torch.no_grad():
        embedded = model.embedding(torch.tensor([vocab.encode(passage)]))  # (1, T, E)
        fast, _ = model.recurrent(embedded)
        slow, _, trace = scratch(embedded)
    return fast[0], slow[0], {name: value[0].numpy() for name, value in trace.items()}  # each (T, H)


# %% [markdown]
# **Checkpoint.** On held-out text the from-scratch LSTM loaded with the
# checkpoint's weights reproduces `nn.LSTM`'s hidden states, and the model
# predicts the next character far better than uniform guessing ($\log |V|$ nats).

# %%
assert model.config["hidden_size"] == 256 and model.config["num_layers"] == 1  # one layer, 256 cells
fast, slow, _ = read(held_out[:400])
assert (fast - slow).abs().max() < 1e-4, (fast - slow).abs().max()
with torch.no_grad():
    ids = torch.tensor([vocab.encode(held_out[:3001])])
    held_out_loss = language_model_loss(model(ids[:, :-1])[0], ids[:, 1:]).item()
print(f"loss on 3000 held-out characters: {held_out_loss:.2f} nats (uniform: {math.log(len(vocab)):.2f})")
assert held_out_loss < 2.0 < math.log(len(vocab)), held_out_loss

# %% [markdown]
# Now a sentence with a quotation in it. Each heatmap shows one gate: rows are the
# 16 cells whose gate moves most over the sentence, columns are characters, yellow is
# open (near 1), dark is closed (near 0).

# %%
sentence = '"It is quite a pretty little problem," said he.'
_, _, gates = read(sentence)
chars = list(sentence)
fig, axes = plt.subplots(3, 1, figsize=(13, 9), sharex=True)
for ax, name in zip(axes, ["forget", "input", "output"]):
    values = gates[name]  # (T, H)
    busiest = np.argsort(-values.std(axis=0))[:16]
    plot_heatmap(values[:, busiest].T, ax=ax, xlabels=chars, ylabels=[str(u) for u in busiest],
                 title=f"{name} gate", vmin=0, vmax=1)
    ax.set_ylabel("cell")
plt.show()
forget_mean = gates["forget"].mean()
closed_forget = (gates["forget"] < 0.1).mean()
print(f"forget gates: mean {forget_mean:.2f}, fraction closed (< 0.1): {closed_forget:.3f}")

# %% [markdown]
# How to read them:
# - A **closed forget gate** ($f \approx 0$) erases that cell's memory: whatever it
#   held is replaced by what the input gate writes. Cells often do this at
#   boundaries such as a space or a quotation mark, where a "current word"
#   feature should start over.
# - A **closed input gate** ($i \approx 0$) protects the memory from the current
#   character: the cell keeps its value unchanged (if $f \approx 1$), however
#   distracting the input. This is how a cell carries one fact across many characters.
# - A **closed output gate** ($o \approx 0$) keeps the memory private: the cell still
#   remembers, but does not influence the prediction of the next character now.
#
# **Checkpoint.** Most of the time memory is kept: the average forget gate is above 0.5,
# and only a small fraction of the gates (under 20%) are fully closed.

# %%
assert forget_mean > 0.5 and closed_forget < 0.2, (forget_mean, closed_forget)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Interpretable cells
#
# Karpathy, Johnson & Fei-Fei (2015) found single cells of character-level LSTMs
# that do something a person can name: one turns on inside quotations, one
# counts the position in the line. Nothing in training asked for this; the
# cells are useful for predicting the next character (a closing quotation mark
# is only likely inside a quotation, a newline only near the end of a line).
#
# We take 3000 held-out characters from a stretch of dialogue in the last story,
# label every character, and score every cell:
# - **inside a quotation** (between an opening and a closing `"`, or up to the end of
#   a paragraph): the AUC of the cell's value $\tanh(C)$ used alone to tell inside
#   from outside (0.5 is chance; 1.0, or 0.0 for a cell that is *lower* inside, is perfect);
# - **position in the line** (this edition hard-wraps its lines at about 70
#   characters): the correlation of the cell's value with the column.

# %%
passage = held_out[20000:23000]
_, _, trace = read(passage)
cell_values = np.tanh(trace["cell"])  # (T, H): what the output gate reads
quote_labels = inside_quotes(passage, open_quote='"', close_quote='"')
columns = column_in_line(passage)
auc = unit_auc(cell_values, quote_labels)
separation = np.maximum(auc, 1 - auc)
quote_cell = int(np.argmax(separation))
correlation = unit_correlation(cell_values, columns)
line_cell = int(np.argmax(np.abs(correlation)))
print(f"{quote_labels.mean():.0%} of the characters are inside a quotation")
print(f"best quotation cell: {quote_cell} (AUC {auc[quote_cell]:.3f}); median over all cells: "
      f"{np.median(separation):.3f}")
print(f"best line-position cell: {line_cell} (correlation with the column {correlation[line_cell]:+.2f})")

# %% [markdown]
# The quotation cell over the whole passage (quotations shaded), then on the text
# itself (red = high, blue = low; hover over a character for its value):

# %%
sign = 1 if auc[quote_cell] >= 0.5 else -1  # show the cell so that "inside" is high
fig, ax = plt.subplots(figsize=(13, 3))
ax.fill_between(np.arange(len(passage)), -1.05, 1.05, where=quote_labels, color="tab:orange", alpha=0.25,
                label="inside a quotation", step="mid")
ax.plot(sign * cell_values[:, quote_cell], linewidth=0.8, label=f"tanh(C) of cell {quote_cell}")
ax.set(xlabel="character", ylim=(-1.05, 1.05), title="one cell of the LSTM, reading 3000 held-out characters")
ax.legend(loc="lower right")
plt.show()
display(HTML(colour_text(passage[:700], sign * cell_values[:700, quote_cell],
                         title=f"cell {quote_cell}: tanh(C), inside a quotation?")))

# %% [markdown]
# The cell jumps up at an opening quote, stays up (slowly decaying during a long
# speech) and drops at the closing quote. Nothing in training asked for it: the
# model only ever learned to predict the next character, and knowing whether a
# quotation is open is what tells it what follows a `"`.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The line-position cell that Karpathy et al. found in larger models did not
# appear in this small one: the best cell's correlation with the column is weak.

# %% [markdown]
# **Checkpoint.** The best quotation cell separates inside from outside far
# better than chance (AUC at least 0.9 against 0.5), while a typical cell barely does
# (median below 0.7); no cell tracks the position in the line nearly as well
# (|r| below 0.5). A model re-trained with another seed would find its quotation
# cell at another index, so the notebook searches for it instead of naming it.

# %%
assert separation[quote_cell] >= 0.9 and np.median(separation) < 0.7, (separation[quote_cell], np.median(separation))
assert abs(correlation[line_cell]) < 0.5, correlation[line_cell]
assert 65 <= columns.max() <= 75  # lines hard-wrapped at about 70 characters

# %% [markdown]
# ### Browse the cells
#
# Most cells are not so easy to name. Pick any of the 256 cells and see what it does
# on the same passage (the figure shows $\tanh(C)$, red high and blue low). Some to
# try: cells that react just after a comma or at the start of a sentence.

# %%
def draw_cell(cell, characters=400):
    """tanh(C) of one cell over the start of the passage (the widget's plain function)."""
    if not 0 <= cell < cell_values.shape[1]:
        raise ValueError(f"cell must be in [0, {cell_values.shape[1]}); got {cell}")
    return plot_coloured_text(passage[:characters], cell_values[:characters, cell],
                              title=f"cell {cell}: quotation AUC {auc[cell]:.2f}, "
                                    f"line-position r {correlation[cell]:+.2f}")


interactive_figure(
    draw_cell,
    cell=widgets.IntSlider(value=quote_cell, min=0, max=cell_values.shape[1] - 1, description="cell"),
    characters=widgets.IntSlider(value=400, min=100, max=1500, step=100, description="characters"),
)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Generating text, and a short live training run
#
# To generate, feed the model a prompt, draw the next character from
# $\operatorname{softmax}(\text{logits} / T)$, feed it back, and repeat. The **temperature** $T$ reshapes the
# distribution: $T < 1$ sharpens it towards the most likely characters (safe,
# repetitive), $T > 1$ flattens it (inventive, then garbled).

# %%
corpus_words = set(re.findall(r"[a-z]+", text.lower()))


def known_word_fraction(generated):
    words = re.findall(r"[a-z]+", generated.lower())
    return sum(w in corpus_words for w in words) / max(len(words), 1)


prompt = '"I have no doubt," said Holmes, '
samples, known = {}, {}
for temperature in [0.5, 1.0, 1.5]:
    generated = sample(model, vocab.encode(prompt), 300, temperature=temperature,
                       generator=torch.Generator().manual_seed(0))
    samples[temperature] = vocab.decode(generated)
    known[temperature] = known_word_fraction(samples[temperature])
    print(f"--- temperature {temperature} ({known[temperature]:.0%} of its words occur in the book) ---")
    print(prompt + samples[temperature] + "\n")

# %% [markdown]
# **Checkpoint.** At temperature 0.5 almost all generated words are real words
# from the book (over 85%); at 1.5 clearly fewer are.

# %%
assert known[0.5] > 0.85 and known[1.5] < known[0.5] - 0.1, known

# %% [markdown]
# The checkpoint took 4000 training steps. Here is the beginning of such a run,
# live: a fresh, smaller LSTM (128 cells) on random 100-character windows of the
# same book, trained with the course's loop `dl4nlp.train.train` for 100 steps.

# %%
ids = torch.tensor(vocab.encode(text[: int(0.95 * len(text))]))
generator = torch.Generator().manual_seed(0)
torch.manual_seed(0)
small = RecurrentLM(len(vocab), hidden_size=128, kind="lstm", embedding_dim=32)
set_forget_bias_(small.recurrent, 1.0)


def lm_loss(model, batch):
    logits, _ = model(batch[:, :-1])  # teacher forcing, as in notebook 02
    return language_model_loss(logits, batch[:, 1:])


live = train(small, lm_loss, lambda step: random_windows(ids, 32, 101, generator), steps=100, lr=1e-2,
             clip_norm=1.0, desc="small char LSTM")
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.plot(live.step, live.loss, alpha=0.4, label="loss per step")
ax.plot(live.step, live.smoothed_loss(10), label="running mean")
ax.axhline(recipe["valid_loss"], color="grey", linestyle="--", label="the checkpoint (4000 steps, held out)")
ax.set(xlabel="step", ylabel="loss (nats per character)", title="a live training run")
ax.legend()
plt.show()
print(f"loss: {live.loss[0]:.2f} at the first step, {np.mean(live.loss[-10:]):.2f} over the last 10")

# %% [markdown]
# **Checkpoint.** A hundred steps take the loss from $\log |V| \approx 4.5$ to below 2.6; the
# remaining way to the checkpoint's loss is what the long run buys.

# %%
assert live.loss[0] > 4.0 and np.mean(live.loss[-10:]) < 2.6, (live.loss[0], np.mean(live.loss[-10:]))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Stacked and bidirectional LSTMs, and ELMo
#
# **Stacked.** Feed the hidden states of one LSTM layer as the inputs of another;
# higher layers can build more abstract features on lower ones. `nn.LSTM(num_layers=2)`
# does this.
#
# **Bidirectional.** When the whole input is available (tagging, classification,
# encoding a sentence, not generating it), run a second LSTM from right to left
# and concatenate the two hidden states at each position, so every position
# sees both its left and its right context. A language model that predicts the
# next word cannot do this: it must not see the future.
#
# In `nn.LSTM(bidirectional=True)` the backward direction is an ordinary LSTM run
# on the reversed sequence, and our loader can copy it out:

# %%
torch.manual_seed(0)
bilstm = nn.LSTM(input_size=5, hidden_size=8, num_layers=2, bidirectional=True, batch_first=True)
out, _ = bilstm(x)  # (B, T, 2H): forward and backward states of the top layer
layer0 = torch.cat([UnrolledLSTM.from_torch(bilstm, layer=0)(x)[0],
                    UnrolledLSTM.from_torch(bilstm, layer=0, reverse=True)(x.flip(1))[0].flip(1)], dim=-1)
layer1_backward = UnrolledLSTM.from_torch(bilstm, layer=1, reverse=True)(layer0.flip(1))[0].flip(1)
print("output of a 2-layer bidirectional LSTM:", tuple(out.shape), "(batch, time, 2 x hidden)")

# %% [markdown]
# **Checkpoint.** The top layer's backward half equals our LSTM run right to left over the
# first layer's (concatenated, both-direction) outputs.

# %%
assert (out[..., 8:] - layer1_backward).abs().max() < 1e-5

# %% [markdown]
# **ELMo** (Peters et al., 2018) trains a forward and a backward LSTM language
# model, two layers each, on a large corpus. For a downstream task it represents
# token $k$ by a learned mix of all layers $j = 0 \dots L$ (layer 0 is the token's own embedding):
#
# $$\mathrm{ELMo}_k = \gamma \sum_{j=0}^{L} s_j\, h_{k,j}, \qquad s = \operatorname{softmax}(w),$$
#
# with the task learning only $w$ and $\gamma$. The same word gets a different vector
# in every sentence: a *contextual* embedding. A few lines on the model above:

# %%
def elmo_mix(layers, w, gamma=1.0):
    """gamma * sum_j softmax(w)_j * layers[j]; layers (L+1, B, T, D)."""
    s = torch.softmax(w, dim=0)
    return gamma * (s[:, None, None, None] * layers).sum(dim=0)


layers = torch.stack([torch.cat([x @ torch.ones(5, 8) / 5] * 2, dim=-1), layer0, out])  # (3, B, T, 16)
mixed = elmo_mix(layers, torch.tensor([0.0, 0.0, 5.0]))
assert torch.allclose(elmo_mix(layers, torch.zeros(3)), layers.mean(dim=0), atol=1e-6)
assert (mixed - out).abs().max() < 0.05 * out.abs().max()  # a large weight on the top layer selects it
print("ELMo vectors:", tuple(mixed.shape))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercises
#
# **Exercise 1.** One LSTM step with a single cell, by hand. The pre-activations of
# the four gates are $z_i = 0.5$, $z_f = 2.0$, $z_g = -1.0$, $z_o = 0.0$, and the previous cell
# state is $C^{(t-1)} = 0.8$. Return the pair $(C^{(t)}, h^{(t)})$.

# %%
def exercise_1():
    raise NotImplementedError


_z = torch.tensor([[0.5, 2.0, -1.0, 0.0]])  # PyTorch's order: input, forget, candidate, output
_cell = nn.LSTMCell(1, 1)
with torch.no_grad():  # make the pre-activations exactly _z: zero weights, biases = _z
    _cell.weight_ih.zero_(), _cell.weight_hh.zero_(), _cell.bias_hh.zero_(), _cell.bias_ih.copy_(_z[0])
_h, _c = _cell(torch.zeros(1, 1), (torch.zeros(1, 1), torch.tensor([[0.8]])))
exercise_1_reference = (_c.item(), _h.item())
check("Exercise 1", exercise_1, exercise_1_reference);

# %% [markdown]
# *Solution (click the cell below to reveal it).*

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    sigmoid = lambda v: 1 / (1 + math.exp(-v))
    i, f, g, o = sigmoid(0.5), sigmoid(2.0), math.tanh(-1.0), sigmoid(0.0)
    c = f * 0.8 + i * g  # keep 88% of the old memory, write 62% of the candidate -0.76
    return c, o * math.tanh(c)


assert check("Exercise 1", exercise_1, exercise_1_reference)

# %% [markdown]
# **Exercise 2.** Along the cell-state path, a signal 50 steps back is scaled by the
# product of 50 forget gates. If every forget gate sat at its initial value
# $\sigma(b_f)$, what would that product be for $b_f = 0$, $1$ and $3$? Return the three numbers
# as a list. (This is why section 2 initialised $b_f = 3$; try re-running it with 0.)

# %%
def exercise_2():
    raise NotImplementedError


check("Exercise 2", exercise_2, (torch.sigmoid(torch.tensor([0.0, 1.0, 3.0], dtype=torch.float64)) ** 50).tolist(),
      rtol=1e-6, atol=0);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    return [(1 / (1 + math.exp(-b))) ** 50 for b in (0.0, 1.0, 3.0)]  # 8.9e-16, 1.6e-7, 0.09


assert check("Exercise 2", exercise_2,
             (torch.sigmoid(torch.tensor([0.0, 1.0, 3.0], dtype=torch.float64)) ** 50).tolist(), rtol=1e-6, atol=0)

# %% [markdown]
# **Exercise 3.** Find the cell whose $\tanh(C)$ best tells *the next character is a space*
# apart from every other case, on the passage of section 4 (use `unit_auc` and the
# `cell_values` computed there; a cell may also be *lower* before a space). Return its index.

# %%
def exercise_3():
    raise NotImplementedError


_before_space = np.array([passage[t + 1] == " " if t + 1 < len(passage) else False for t in range(len(passage))])
_scores = unit_auc(cell_values, _before_space)
check("Exercise 3", exercise_3, int(np.argmax(np.maximum(_scores, 1 - _scores))));

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def exercise_3():
    labels = np.array([t + 1 < len(passage) and passage[t + 1] == " " for t in range(len(passage))])
    scores = unit_auc(cell_values, labels)
    return int(np.argmax(np.maximum(scores, 1 - scores)))  # a "the word is complete" cell


assert check("Exercise 3", exercise_3, int(np.argmax(np.maximum(_scores, 1 - _scores))))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - An LSTM cell computes forget, input and output gates and a candidate, updates its memory additively, $C^{(t)} = f\odot C^{(t-1)} + i \odot \tilde C^{(t)}$, and shows $h^{(t)} = o \odot \tanh(C^{(t)})$. Our cell equals `nn.LSTM` (and our GRU `nn.GRU`) to float precision.
# - Along the cell state the backward pass multiplies by the forget gate, not by a weight matrix: with 32 cells the LSTM solves the lag-50 memory task where the RNN stays at chance, and the gradient at the signal is over a hundredth of that at the end instead of under $10^{-9}$.
# - Gates on real text: forget gates are mostly open; closing one erases a memory, closing an input gate protects it, closing an output gate hides it.
# - A character LSTM trained only to predict the next character develops a cell that tracks being inside a quotation (with straight quotes, where that memory is needed); this small model has no line-position cell.
# - Temperature trades safety for variety when sampling; stacking adds depth, bidirectionality adds right context, and ELMo mixes the layers of a biLSTM language model into contextual word vectors.
#
# **Next:** notebook 04 lets a decoder look back at *all* of an encoder's hidden
# states at once, with attention, instead of squeezing a sentence into one vector.
#
# **References**
# - S. Hochreiter, J. Schmidhuber, *Long short-term memory*, Neural Computation (1997).
# - F. A. Gers, J. Schmidhuber, F. Cummins, *Learning to forget: continual prediction with LSTM*, Neural Computation (2000).
# - K. Cho et al., *Learning phrase representations using RNN encoder-decoder for statistical machine translation*, EMNLP (2014) (the GRU).
# - R. Jozefowicz, W. Zaremba, I. Sutskever, *An empirical exploration of recurrent network architectures*, ICML (2015).
# - A. Karpathy, J. Johnson, L. Fei-Fei, *Visualizing and understanding recurrent networks*, arXiv:1506.02078 (2015).
# - M. E. Peters et al., *Deep contextualized word representations*, NAACL (2018) (ELMo).
# - C. Olah, *Understanding LSTM networks* (blog post, 2015).
