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
# # 01 · Backpropagation, one node at a time
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/01_backprop.ipynb)
#
# Every model in this course learns by gradient descent, and every gradient is
# computed by the same trick: break the computation into small nodes, let each
# node know only its own local derivative, and multiply those local derivatives
# backwards along the graph. In this notebook you will do that by hand, then
# with a tiny engine of your own, then with PyTorch, and check that all three
# agree to the last digit. At the end you will see why very deep networks
# stopped learning before residual connections, and why the next notebook's
# recurrent networks forget.
#
# **You will:**
# - compute forward values and gradients on a computational graph by hand;
# - build a scalar autodiff engine (`dl4nlp.autograd.Value`) and check it against `torch.autograd`;
# - write a custom `torch.autograd.Function` and verify it with `gradcheck`;
# - backpropagate through a small MLP with matrix operations;
# - measure how gradients vanish or explode with depth, and how residual connections help.
#
# **Prerequisites:** the chain rule, Python, a first look at PyTorch tensors (notebook 00).
#
# **Run time:** about 10 seconds on a laptop CPU.

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

from dl4nlp.autograd import Value
from dl4nlp.exercises import check
from dl4nlp.gradflow import layer_gradient_norms
from dl4nlp.plots import draw_graph, plot_gradient_norms
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. A computational graph: $f(x, y, z) = (x + y)\,z$
#
# **Intuition.** Write the function as a chain of tiny steps, each with a name:
# first $q = x + y$, then $f = q\,z$. The forward pass fills in every value from
# left to right. The backward pass starts from $\partial f / \partial f = 1$ and
# walks right to left; at each node the gradient arriving from above (the
# *upstream* gradient) is multiplied by the node's own *local* gradient.
#
# **The maths.** The local gradients are
# $\frac{\partial q}{\partial x} = \frac{\partial q}{\partial y} = 1$,
# $\frac{\partial f}{\partial q} = z$ and $\frac{\partial f}{\partial z} = q$, and the chain rule gives
#
# $$\frac{\partial f}{\partial x} = \underbrace{\frac{\partial f}{\partial q}}_{\text{upstream}}\;
#   \underbrace{\frac{\partial q}{\partial x}}_{\text{local}} = z \cdot 1 .$$
#
# We use the lecture's numbers: $x = -2$, $y = 5$, $z = -4$.

# %% [markdown]
# ### 1a. By hand, one line per node

# %%
# NBVAL_CHECK_OUTPUT
x, y, z = -2.0, 5.0, -4.0

# forward pass, left to right
q = x + y  # 3
f = q * z  # -12

# backward pass, right to left: upstream gradient x local gradient
df_df = 1.0
df_dq = df_df * z  # local gradient of f = q*z with respect to q is z
df_dz = df_df * q  # ... and with respect to z it is q
df_dx = df_dq * 1.0  # local gradient of q = x + y with respect to x is 1
df_dy = df_dq * 1.0

print(f"forward : q = {q:g}, f = {f:g}")
print(f"backward: df/dq = {df_dq:g}, df/dz = {df_dz:g}, df/dx = {df_dx:g}, df/dy = {df_dy:g}")

# %% [markdown]
# ### 1b. The same graph, built by an engine
#
# `dl4nlp.autograd.Value` wraps one number and remembers the operation that
# produced it. Calling `.backward()` on the output visits the graph in reverse
# topological order and applies exactly the rule above at every node. Each
# operation is a few lines in [`lib/dl4nlp/autograd.py`](../lib/dl4nlp/autograd.py) — read `__mul__`: it is
# the line `df_dq = df_df * z` written once for every multiplication.

# %%
xv, yv, zv = Value(x, label="x"), Value(y, label="y"), Value(z, label="z")
qv = xv + yv
qv.label = "q"
fv = qv * zv
fv.label = "f"
fv.backward()

fig = draw_graph(fv, title="f = (x + y) z: values in black, gradients below them")
plt.show()

# %% [markdown]
# ### 1c. And by PyTorch
#
# PyTorch builds the same graph while it computes, and `f.backward()` fills
# `.grad` on every leaf tensor that asked for it.

# %%
xt, yt, zt = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, y, z))
ft = (xt + yt) * zt
ft.backward()

# %% [markdown]
# **Checkpoint.** Three ways, one answer: $f = -12$, $\partial f/\partial x = \partial f/\partial y = -4$, $\partial f/\partial z = 3$.

# %%
# NBVAL_CHECK_OUTPUT
expected = {"f": -12.0, "x": -4.0, "y": -4.0, "z": 3.0}
by_hand = {"f": f, "x": df_dx, "y": df_dy, "z": df_dz}
by_engine = {"f": fv.data, "x": xv.grad, "y": yv.grad, "z": zv.grad}
by_torch = {"f": ft.item(), "x": xt.grad.item(), "y": yt.grad.item(), "z": zt.grad.item()}
for name, result in [("by hand", by_hand), ("Value engine", by_engine), ("torch.autograd", by_torch)]:
    assert all(math.isclose(result[k], expected[k], abs_tol=1e-12) for k in expected), (name, result)
    print(f"{name:>14}: " + ", ".join(f"{k}: {v:g}" for k, v in result.items()))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. A sigmoid neuron, two ways
#
# A single neuron with two inputs computes
#
# $$f(w, x) = \sigma(w_0 x_0 + w_1 x_1 + w_2), \qquad \sigma(s) = \frac{1}{1 + e^{-s}} .$$
#
# With the lecture's numbers $w = (2, -3, -3)$ and $x = (-1, -2)$ the weighted
# sum is $s = 2\cdot(-1) + (-3)(-2) + (-3) = 1$, so $f = \sigma(1)$.
#
# The sigmoid has a famously convenient derivative, which needs only its own output:
#
# $$\frac{d\sigma}{ds} = \frac{e^{-s}}{(1 + e^{-s})^2}
#   = \frac{1 + e^{-s} - 1}{1 + e^{-s}}\cdot\frac{1}{1 + e^{-s}} = \bigl(1 - \sigma(s)\bigr)\,\sigma(s).$$
#
# A graph can be drawn at any granularity. Below we build it twice: once from
# primitive nodes ($\times$, $+$, negate, $\exp$, $+1$, $1/\cdot$), and once with a single
# `sigmoid` node whose backward pass uses the formula above. Both must give the same gradients.

# %%
def neuron_from_primitives(w, x):
    """sigma(w0*x0 + w1*x1 + w2) built from *, +, exp and ** only."""
    s = w[0] * x[0] + w[1] * x[1] + w[2]
    return 1 / (1 + (-s).exp())


def neuron_with_sigmoid_node(w, x):
    """The same neuron with one sigmoid node."""
    return (w[0] * x[0] + w[1] * x[1] + w[2]).sigmoid()


results = {}
for name, build in [("primitives", neuron_from_primitives), ("sigmoid node", neuron_with_sigmoid_node)]:
    w = [Value(2.0, label="w0"), Value(-3.0, label="w1"), Value(-3.0, label="w2")]
    xs = [Value(-1.0, label="x0"), Value(-2.0, label="x1")]
    out = build(w, xs)
    out.backward()
    results[name] = (out, [w[0].grad, xs[0].grad, w[1].grad, xs[1].grad, w[2].grad])

draw_graph(results["primitives"][0], title="built from primitive nodes (unlabelled boxes are constants)")
plt.show()
draw_graph(results["sigmoid node"][0], title="the same neuron with one sigmoid node")
plt.show()

# %% [markdown]
# The same gradients from PyTorch, and the exact values next to the lecture's rounded ones:

# %%
# NBVAL_CHECK_OUTPUT
w_t = torch.tensor([2.0, -3.0, -3.0], dtype=torch.float64, requires_grad=True)
x_t = torch.tensor([-1.0, -2.0], dtype=torch.float64, requires_grad=True)
out_t = torch.sigmoid(w_t[0] * x_t[0] + w_t[1] * x_t[1] + w_t[2])
out_t.backward()
torch_grads = [w_t.grad[0].item(), x_t.grad[0].item(), w_t.grad[1].item(), x_t.grad[1].item(), w_t.grad[2].item()]

sigma_1 = 1 / (1 + math.exp(-1))
local = sigma_1 * (1 - sigma_1)
print(f"output sigma(1)           = {sigma_1:.6f}   (slides: 0.73)")
print(f"local gradient s(1 - s)   = {local:.6f}   (slides: 0.2)")
names = ["w0", "x0", "w1", "x1", "w2"]
slides = [-0.20, 0.39, -0.39, -0.59, 0.20]
for name, exact, rounded in zip(names, torch_grads, slides):
    print(f"df/d{name} = {exact:+.6f}   (slides: {rounded:+.2f})")

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The slides round the local gradient to 0.2 and then multiply the rounded value
# (their $x_0$ line reads $0.2 \times 2 = 0.4$). The exact local gradient is
# $\sigma(1)(1-\sigma(1)) = 0.196612$, so $\partial f/\partial x_0 = 2 \times 0.196612 = 0.393224$,
# which rounds to 0.39, not 0.4.

# %% [markdown]
# **Checkpoint.** Both graphs and PyTorch agree to machine precision, and every
# number rounds to the lecture's.

# %%
for name, (out, grads) in results.items():
    assert math.isclose(out.data, out_t.item(), abs_tol=1e-12), name
    assert all(math.isclose(g, t, abs_tol=1e-12) for g, t in zip(grads, torch_grads)), (name, grads)
assert round(sigma_1, 2) == 0.73 and round(local, 1) == 0.2
assert [round(g, 2) for g in torch_grads] == slides, torch_grads
print("primitives == sigmoid node == torch.autograd; rounded values match the slides")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Your own `torch.autograd.Function`
#
# PyTorch lets you define a node yourself: a `forward` that computes the output
# and saves what the backward pass will need, and a `backward` that receives
# the upstream gradient and returns one gradient per input. Here are the two
# nodes from above. The sigmoid saves its *output*, because its local gradient
# $\sigma(1-\sigma)$ needs nothing else.

# %%
class Multiply(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)  # the local gradients need both inputs
        return a * b

    @staticmethod
    def backward(ctx, upstream):
        a, b = ctx.saved_tensors
        return upstream * b, upstream * a  # d(ab)/da = b, d(ab)/db = a


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, s):
        out = 1 / (1 + torch.exp(-s))
        ctx.save_for_backward(out)  # cache the output, not the input
        return out

    @staticmethod
    def backward(ctx, upstream):
        (out,) = ctx.saved_tensors
        return upstream * out * (1 - out)


# %% [markdown]
# `torch.autograd.gradcheck` compares the analytic `backward` with finite
# differences $\bigl(f(s+\epsilon) - f(s-\epsilon)\bigr)/2\epsilon$ on random float64 inputs.
#
# **Checkpoint.** Both custom nodes pass `gradcheck`, and the sigmoid matches `torch.sigmoid`.

# %%
# NBVAL_CHECK_OUTPUT
generator = torch.Generator().manual_seed(0)
a = torch.randn(5, 3, dtype=torch.float64, generator=generator, requires_grad=True)
b = torch.randn(5, 3, dtype=torch.float64, generator=generator, requires_grad=True)
assert torch.autograd.gradcheck(Multiply.apply, (a, b), eps=1e-6, atol=1e-8)
assert torch.autograd.gradcheck(Sigmoid.apply, (a,), eps=1e-6, atol=1e-8)
assert torch.allclose(Sigmoid.apply(a), torch.sigmoid(a), atol=1e-15)
print("gradcheck passed for Multiply and Sigmoid")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. A small MLP, backpropagated with matrices
#
# Scalars make the idea clear; real networks apply the same rule to whole
# matrices. For a batch $X \in \mathbb{R}^{N\times D}$, a hidden layer and a
# softmax classifier over $C$ classes:
#
# $$H = \tanh(XW_1 + b_1), \qquad S = HW_2 + b_2, \qquad
#   L = -\frac{1}{N}\sum_n \log \operatorname{softmax}(S_n)_{y_n}.$$
#
# Going backwards, with $P = \operatorname{softmax}(S)$ and $Y$ the one-hot labels:
#
# $$\frac{\partial L}{\partial S} = \frac{P - Y}{N},\quad
#   \frac{\partial L}{\partial W_2} = H^\top \frac{\partial L}{\partial S},\quad
#   \frac{\partial L}{\partial H} = \frac{\partial L}{\partial S} W_2^\top,\quad
#   \frac{\partial L}{\partial A} = \frac{\partial L}{\partial H} \odot (1 - H^2),\quad
#   \frac{\partial L}{\partial W_1} = X^\top \frac{\partial L}{\partial A}.$$
#
# Each is "upstream times local" again; the transposes make the shapes fit, and
# a bias gradient sums the upstream gradient over the batch.

# %%
def mlp_forward_backward(X, labels, W1, b1, W2, b2):
    """Loss and gradients of a tanh MLP with a softmax cross-entropy loss, by hand."""
    N = X.shape[0]
    A = X @ W1 + b1  # (N, hidden)
    H = torch.tanh(A)  # (N, hidden)
    S = H @ W2 + b2  # (N, C)
    P = torch.softmax(S, dim=1)  # (N, C)
    loss = -torch.log(P[torch.arange(N), labels]).mean()

    dS = P.clone()  # (N, C)
    dS[torch.arange(N), labels] -= 1
    dS /= N
    grads = {"W2": H.T @ dS, "b2": dS.sum(0)}
    dH = dS @ W2.T  # (N, hidden)
    dA = dH * (1 - H**2)  # tanh'(a) = 1 - tanh(a)^2
    grads.update({"W1": X.T @ dA, "b1": dA.sum(0)})
    return loss, grads


generator = torch.Generator().manual_seed(1)
N, D, hidden, C = 16, 5, 8, 3
X = torch.randn(N, D, dtype=torch.float64, generator=generator)
labels = torch.randint(0, C, (N,), generator=generator)
params = {
    "W1": torch.randn(D, hidden, dtype=torch.float64, generator=generator) * 0.5,
    "b1": torch.zeros(hidden, dtype=torch.float64),
    "W2": torch.randn(hidden, C, dtype=torch.float64, generator=generator) * 0.5,
    "b2": torch.zeros(C, dtype=torch.float64),
}
loss_by_hand, grads_by_hand = mlp_forward_backward(X, labels, **params)

# The reference: the same network through torch.autograd and F.cross_entropy.
leaves = {k: v.clone().requires_grad_(True) for k, v in params.items()}
logits = torch.tanh(X @ leaves["W1"] + leaves["b1"]) @ leaves["W2"] + leaves["b2"]
loss_autograd = torch.nn.functional.cross_entropy(logits, labels)
loss_autograd.backward()

# %% [markdown]
# **Checkpoint.** The hand-written backward pass equals autograd's to float64 precision.

# %%
# NBVAL_CHECK_OUTPUT
assert torch.allclose(loss_by_hand, loss_autograd, atol=1e-12)
for name, grad in grads_by_hand.items():
    difference = (grad - leaves[name].grad).abs().max().item()
    assert grad.shape == params[name].shape and difference < 1e-12, (name, difference)
    print(f"d loss / d {name}: shape {tuple(grad.shape)}, matches autograd (max difference < 1e-12)")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Why deep networks were hard to train: vanishing and exploding gradients
#
# In a stack of layers $h_l = \phi(W_l h_{l-1} + b_l)$ the gradient reaching layer $l$ is
#
# $$\frac{\partial L}{\partial h_l} = \frac{\partial L}{\partial h_{\text{top}}}
#   \prod_{k = l+1}^{\text{top}} \operatorname{diag}\bigl(\phi'(a_k)\bigr)\, W_k ,$$
#
# a product of one factor per layer above it. If each factor shrinks a vector by
# a typical amount $\rho < 1$, the gradient at the bottom is about $\rho^{\text{depth}}$
# times the one at the top: it *vanishes*; with $\rho > 1$ it *explodes*. The
# sigmoid's derivative is at most $\tfrac14$, so with weights of scale 1 a
# sigmoid network loses a factor of four or more per layer.
#
# A **residual connection** $h_l = h_{l-1} + \phi(W_l h_{l-1} + b_l)$ changes each
# factor to $I + \operatorname{diag}(\phi')W_l$: the identity gives the
# gradient a path that does not shrink.
#
# Below, `dl4nlp.gradflow.layer_gradient_norms` builds a 20-layer network of
# width 64 with weights drawn from $\mathcal{N}(0, \text{scale}^2/64)$ and measures
# $\lVert \partial L / \partial h_l \rVert$ at every layer.

# %%
DEPTH = 20
settings = {
    "sigmoid, scale 1": dict(activation="sigmoid", weight_scale=1.0),
    "sigmoid, scale 1, residual": dict(activation="sigmoid", weight_scale=1.0, residual=True),
    "tanh, scale 1": dict(activation="tanh", weight_scale=1.0),
    "tanh, scale 3": dict(activation="tanh", weight_scale=3.0),
    "relu, scale 1": dict(activation="relu", weight_scale=1.0),
    "relu, scale sqrt(2) (He)": dict(activation="relu", weight_scale=math.sqrt(2)),
}
norms = {name: layer_gradient_norms(DEPTH, **kwargs) for name, kwargs in settings.items()}
fig = plot_gradient_norms(norms, title=f"Gradient reaching each layer of a {DEPTH}-layer network")
plt.show()

# %% [markdown]
# Read the plot from right (the output) to left (the input). The plain sigmoid
# network's gradient falls by many orders of magnitude; the residual version
# of the same network keeps it level. Tanh with scale 1 and ReLU with He's
# scale $\sqrt2$ keep it within a factor of ten, because their per-layer factor is
# close to one; tanh with scale 3 explodes towards the input, and ReLU with
# scale 1 halves the signal's variance at every layer, so it vanishes.
#
# **Checkpoint.** Ratios of the gradient at the first layer to the one at the last:

# %%
# NBVAL_CHECK_OUTPUT
ratio = {name: n[0] / n[-1] for name, n in norms.items()}
for name, r in ratio.items():
    print(f"{name:>28}: first/last = {r:.1e}")

assert ratio["sigmoid, scale 1"] < 1e-6, "a deep sigmoid net should get a vanishingly small gradient at the bottom"
assert 0.1 < ratio["sigmoid, scale 1, residual"] < 10, "a residual connection should keep it within a small factor"
assert 0.1 < ratio["tanh, scale 1"] < 10 and 0.1 < ratio["relu, scale sqrt(2) (He)"] < 10
assert ratio["tanh, scale 3"] > 100, "large weights should make the gradient explode towards the input"
assert ratio["relu, scale 1"] < 0.1, "ReLU with scale 1 should lose gradient with depth"

# %% [markdown]
# ### Play with it
#
# Change the depth, the activation, the weight scale and the residual switch.
# Try to find, for each activation, the scale at which the line is flat.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The figure below the controls is redrawn on every change; an input the
# library rejects is explained there.

# %%
def draw_depth_experiment(depth, activation, weight_scale, residual):
    """Gradient norm per layer for one network setting (the widget's plain function)."""
    n = layer_gradient_norms(depth, activation=activation, weight_scale=weight_scale, residual=residual)
    label = f"{activation}, scale {weight_scale:g}{', residual' if residual else ''}"
    fig = plot_gradient_norms({label: n}, title=f"first/last = {n[0] / n[-1]:.2e}")
    fig.axes[0].set_ylim(1e-20, 1e8)
    return fig


interactive_figure(
    draw_depth_experiment,
    depth=widgets.IntSlider(value=20, min=2, max=60, description="depth"),
    activation=widgets.Dropdown(options=["sigmoid", "tanh", "relu"], value="sigmoid", description="activation"),
    weight_scale=widgets.FloatSlider(value=1.0, min=0.25, max=4.0, step=0.05, description="weight scale"),
    residual=widgets.Checkbox(value=False, description="residual"),
)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercises
#
# **Exercise 1.** For $g(a, b) = a\,b + \tanh(a)$, compute
# $\partial g/\partial a$ and $\partial g/\partial b$ at $a = 0.5$, $b = -1.5$ with
# a forward and a backward pass written by hand (no `Value`, no autograd),
# using $\tanh'(u) = 1 - \tanh^2(u)$. Return them as a pair.

# %%
def exercise_1():
    a, b = 0.5, -1.5
    # your forward and backward pass here
    raise NotImplementedError


# The reference comes from torch.autograd, so the check gives nothing away.
_a = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
_b = torch.tensor(-1.5, dtype=torch.float64, requires_grad=True)
(_a * _b + torch.tanh(_a)).backward()
exercise_1_reference = (_a.grad.item(), _b.grad.item())
check("Exercise 1", exercise_1, exercise_1_reference);

# %% [markdown]
# *Solution (click the cell below to reveal it).*

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    a, b = 0.5, -1.5
    u = math.tanh(a)  # forward
    g = a * b + u
    dg_da = 1.0 * b + 1.0 * (1 - u**2)  # two paths reach a: through a*b and through tanh(a)
    dg_db = 1.0 * a
    return dg_da, dg_db


assert check("Exercise 1", exercise_1, exercise_1_reference)

# %% [markdown]
# **Exercise 2.** Add a `softplus` node, $\operatorname{softplus}(u) = \log(1 + e^u)$, to a
# `Value` computation *without* editing the library: build it from `exp`, `+`
# and `log`, then return $d\,\operatorname{softplus}(u)/du$ at $u = 0.3$
# computed by `.backward()`. (What closed form should it equal?)

# %%
def exercise_2():
    u = Value(0.3)
    # build softplus(u) from Value operations, call backward, return u.grad
    raise NotImplementedError


check("Exercise 2", exercise_2, torch.sigmoid(torch.tensor(0.3, dtype=torch.float64)));

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    u = Value(0.3)
    softplus = (1 + u.exp()).log()
    softplus.backward()
    return u.grad  # equals sigmoid(0.3): the derivative of softplus is the sigmoid


assert check("Exercise 2", exercise_2, torch.sigmoid(torch.tensor(0.3, dtype=torch.float64)))

# %% [markdown]
# **Exercise 3.** For a 30-layer ReLU network without residual connections,
# find a weight scale (to two decimals) for which the gradient at the first
# layer is within a factor of 2 of the one at the last, and return it.
# Theory (He et al., 2015) says: a ReLU passes on average half of a vector's
# squared length, so a scale of $\sqrt2 \approx 1.41$ should keep it level. Is that
# what you measure on this finite network?

# %%
def exercise_3():
    raise NotImplementedError


def gradient_is_level(scale):
    n = layer_gradient_norms(30, activation="relu", weight_scale=scale)
    return 0.5 <= n[0] / n[-1] <= 2.0


check("Exercise 3", lambda: gradient_is_level(exercise_3()), True);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def exercise_3():
    # Scan scales around the theory's sqrt(2); keep the first whose ratio is within a factor 2.
    for scale in [round(1.0 + 0.01 * i, 2) for i in range(101)]:
        if gradient_is_level(scale):
            return scale


assert check("Exercise 3", lambda: gradient_is_level(exercise_3()), True)
best_scale = exercise_3()
at_sqrt2 = layer_gradient_norms(30, activation="relu", weight_scale=math.sqrt(2))
print(f"level from scale {best_scale}; at sqrt(2) the first/last ratio is {at_sqrt2[0] / at_sqrt2[-1]:.1f}")
assert best_scale < math.sqrt(2) and not gradient_is_level(math.sqrt(2))

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The theory is an average over random networks of infinite width. On one
# network of width 64, thirty small deviations from "exactly level" multiply,
# so the measured best scale lands a little below $\sqrt 2$. The lesson stands: the right scale is the one that makes
# the per-layer factor one.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - A gradient is a product of local derivatives along the graph: each node multiplies the upstream gradient by its own local gradient, and gradients add where paths meet.
# - `dl4nlp.autograd.Value`, the hand-written passes and `torch.autograd` agree exactly on the lecture's examples; the slides' 0.4 for $\partial f/\partial x_0$ is a rounding of 0.393.
# - A custom `torch.autograd.Function` is a forward that saves what it needs and a backward that multiplies; `gradcheck` verifies it.
# - The same rule with matrices gives the MLP's backward pass; transposes make the shapes fit.
# - Through many layers the product of per-layer factors vanishes or explodes; sensible weight scales and residual connections keep it level.
#
# **Next:** notebook 02 unrolls a recurrent network through time, where the same
# product of factors appears with one weight matrix repeated at every step.
#
# **References**
# - D. E. Rumelhart, G. E. Hinton, R. J. Williams, *Learning representations by back-propagating errors*, Nature (1986).
# - Y. Bengio, P. Simard, P. Frasconi, *Learning long-term dependencies with gradient descent is difficult*, IEEE TNN (1994).
# - X. Glorot, Y. Bengio, *Understanding the difficulty of training deep feedforward neural networks*, AISTATS (2010).
# - K. He, X. Zhang, S. Ren, J. Sun, *Delving deep into rectifiers*, ICCV (2015); *Deep residual learning for image recognition*, CVPR (2016).
# - A. Karpathy, *micrograd* (2020), the scalar engine this notebook's `Value` is modelled on.
