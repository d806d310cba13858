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
# # 01 · Backpropagation
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/01_backprop.ipynb)
#
# Every model in this course learns by gradient descent, and every gradient is computed by
# the same trick: break the computation into small nodes, let each node know only its own
# local derivative, and multiply those local derivatives backwards along the graph. In this
# chapter you do that by hand, then write the backward pass of a tiny autodiff engine
# yourself, build a neural network on it and train it, and finally move to matrices and
# PyTorch, checking at every step that your numbers agree with `torch.autograd`.
#
# **You will:**
# - read a derivative as a slope, and compute forward values and gradients on a computational graph by hand;
# - write the backward rule of every operation of a scalar autodiff engine, and predict what the bug that catches everyone (a value used twice) does;
# - see the three patterns of gradient flow: addition distributes, multiplication swaps, max routes;
# - write the topological sort and the backward loop that make it an engine, and a finite-difference gradient checker;
# - build a neuron, a layer and an MLP on your own engine, write its gradient-descent step, and train it on a problem no straight line solves, checked against the library's network and PyTorch's;
# - write a custom `torch.autograd.Function` and verify it with `gradcheck`;
# - derive matrix gradients from their shapes and backpropagate through an MLP by hand.
#
# **Prerequisites:** the chain rule, Python, and chapter 00 (tensors and shapes, `requires_grad` and `backward`, `nn.Module`, the training loop).
#
# **Study time:** about 2 hours for a person; **run time:** about 25 s on a laptop CPU.

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
import random

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch

from dl4nlp.autograd import Value, engine_gradients, topological_order, torch_gradients
from dl4nlp.diagrams import mlp_diagram
from dl4nlp.exercises import attempt, check
from dl4nlp.experiments import backprop as experiment
from dl4nlp.gradflow import first_over_last, layer_gradient_norms
from dl4nlp.notebook import claim
from dl4nlp.numerics import agree, rounding_tolerance
from dl4nlp.plots import draw_graph, plot_gradient_norms
from dl4nlp import scalar_nn
from dl4nlp.scalar_nn import flat_parameters, to_torch
from dl4nlp.tasks import xor_blobs
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. A derivative is a slope; a gradient, a product along a graph
#
# **What a derivative measures.** Nudge the input of $g(x) = 3x^2 - 4x + 5$ by a small $h$: the output
# moves by about $g'(x)\,h$, so the derivative is the slope $\bigl(g(x+h) - g(x)\bigr)/h$ of the line
# through two nearby points, in the limit of small $h$. At $x = 3$ the calculus answer is
# $g'(3) = 6\cdot 3 - 4 = 14$: nudge $x$ up by 0.001 and $g$ goes up by about 0.014. A gradient is
# the same thing for each input of a function of many inputs, and backpropagation computes all of
# them in one pass. The slope can also be *measured*, which is how we check gradients in section 4:

# %%
def g(x):
    return 3 * x**2 - 4 * x + 5


slopes = {}
for h in [1e-1, 1e-3, 1e-5]:
    slopes[h] = ((g(3 + h) - g(3)) / h, (g(3 + h) - g(3 - h)) / (2 * h))  # one-sided, centred
    print(f"h = {h:.0e}: slope through x and x + h {slopes[h][0]:.6f};  through x - h and x + h {slopes[h][1]:.6f}")

# %% [markdown]
# The one-sided slope is off by $3h$ (the curvature of $g$), the centred one only by rounding: for a
# parabola the two errors cancel exactly.
#
# **A computational graph: $f(x, y, z) = (x + y)\,z$.** Write the function as a chain of tiny steps, each with a name:
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
# ### By hand, one line per node

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
# ### The same graph, built by an engine
#
# `dl4nlp.autograd.Value` wraps one number and remembers the operation that
# produced it. Calling `.backward()` on the output visits the graph in reverse
# topological order and applies exactly the rule above at every node. Each
# operation is a few lines in [`lib/dl4nlp/autograd.py`](../lib/dl4nlp/autograd.py): read `__mul__`, it is
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
# ### And by PyTorch
#
# PyTorch builds the same graph while it computes, and `f.backward()` fills
# `.grad` on every leaf tensor that asked for it (chapter 00). Three ways, one answer:

# %%
# NBVAL_CHECK_OUTPUT
xt, yt, zt = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, y, z))
ft = (xt + yt) * zt
ft.backward()

by_hand = {"f": f, "x": df_dx, "y": df_dy, "z": df_dz}
by_engine = {"f": fv.data, "x": xv.grad, "y": yv.grad, "z": zv.grad}
by_torch = {"f": ft.item(), "x": xt.grad.item(), "y": yt.grad.item(), "z": zt.grad.item()}
for name, result in [("by hand", by_hand), ("Value engine", by_engine), ("torch.autograd", by_torch)]:
    print(f"{name:>14}: " + ", ".join(f"{k}: {v:g}" for k, v in result.items()))

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: a slope, and three ways to one answer
claim(f"the one-sided slopes are off by 3h: {[round((one - 14) / h, 4) for h, (one, _) in slopes.items()]} "
      "(each within 0.001 of 3)", all(abs((one - 14) / h - 3) < 1e-3 for h, (one, _) in slopes.items()))
claim(f"the centred slopes are 14 to within {max(abs(c - 14) for _, c in slopes.values()):.0e} (less than 1e-9)",
      all(abs(c - 14) < 1e-9 for _, c in slopes.values()))
expected = {"f": -12.0, "x": -4.0, "y": -4.0, "z": 3.0}
for name, result in [("by hand", by_hand), ("the Value engine", by_engine), ("torch.autograd", by_torch)]:
    claim(f"{name} gives f = -12, df/dx = df/dy = -4, df/dz = 3 exactly (small integers are exact in floating point)",
          result == expected)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. Write the engine's backward pass yourself
#
# **Intuition.** An autodiff engine needs, for every operation, one small rule:
# given the gradient that arrives at the operation's output (`out.grad`), add the
# right amount to the gradient of each input. The chain rule does the rest, because
# the engine visits the nodes from the output back to the inputs, so that every node's
# `grad` is complete before its own rule runs.
#
# **The maths.** For $o = a + b$, $o = a\,b$, $o = a^k$, $o = e^a$, $o = \tanh a$ and $o = \max(0, a)$
# the local derivatives are
#
# $$\frac{\partial o}{\partial a} = 1,\qquad \frac{\partial o}{\partial a} = b,\ \frac{\partial o}{\partial b} = a,\qquad
#   k\,a^{k-1},\qquad e^a = o,\qquad 1 - \tanh^2 a = 1 - o^2,\qquad \mathbb{1}[a > 0],$$
#
# and each rule adds `local derivative × out.grad` to the input's `grad`.
#
# Below is a bare engine, `Scalar`: the forward pass of every operation is written, and
# each operation hands its backward step to a function that **you** write. Its `backward` calls
# `backward_pass`, the loop that visits the nodes from the output back to the inputs: for now it
# borrows the library's, and you write your own in exercise 4.

# %%
backward_pass = experiment.backward_pass  # borrowed until exercise 4


class Scalar:
    """One number in a computational graph. Forward passes are written; backward rules are yours."""

    def __init__(self, data, inputs=(), op=""):
        self.data, self.grad, self.inputs, self.op = float(data), 0.0, tuple(inputs), op
        self._backward = lambda: None

    def __repr__(self):
        return f"Scalar({self.data:.4g}, grad={self.grad:.4g})"

    @staticmethod
    def lift(x):
        return x if isinstance(x, Scalar) else Scalar(x)

    def __add__(self, other):
        other = Scalar.lift(other)
        out = Scalar(self.data + other.data, (self, other), "+")
        out._backward = lambda: add_backward(self, other, out)
        return out

    def __mul__(self, other):
        other = Scalar.lift(other)
        out = Scalar(self.data * other.data, (self, other), "*")
        out._backward = lambda: mul_backward(self, other, out)
        return out

    def __pow__(self, k):  # k is a constant number
        out = Scalar(self.data**k, (self,), f"**{k}")
        out._backward = lambda: pow_backward(self, k, out)
        return out

    def exp(self):
        out = Scalar(math.exp(self.data), (self,), "exp")
        out._backward = lambda: exp_backward(self, out)
        return out

    def tanh(self):
        out = Scalar(math.tanh(self.data), (self,), "tanh")
        out._backward = lambda: tanh_backward(self, out)
        return out

    def relu(self):
        out = Scalar(max(0.0, self.data), (self,), "relu")
        out._backward = lambda: relu_backward(self, out)
        return out

    # composites, made of the operations above
    def __neg__(self): return self * -1.0
    def __sub__(self, other): return self + (-Scalar.lift(other))
    def __truediv__(self, other): return self * Scalar.lift(other) ** -1
    def __radd__(self, other): return self + other
    def __rmul__(self, other): return self * other
    def __rsub__(self, other): return Scalar.lift(other) - self

    def backward(self):
        backward_pass(self)  # the loop over the graph: exercise 4


# %% [markdown]
# **Exercise 1.** Write the backward rules of `+` and `*`. Each receives the two inputs and
# the output node, and adds to `a.grad` and `b.grad`. The check runs five small expressions on
# your engine and compares the value and every gradient with `torch.autograd` (float64), naming
# the first one that differs. Two of the expressions use one input twice.

# %%
def add_backward(a, b, out):
    # your code here: the gradient of a + b with respect to a and to b
    raise NotImplementedError


def mul_backward(a, b, out):
    # your code here: the gradient of a * b with respect to a and to b
    raise NotImplementedError


EXPRESSIONS_1 = [  # (name, function, inputs)
    ("a + b", lambda a, b: a + b, [2.0, -3.0]),
    ("a b", lambda a, b: a * b, [2.0, -3.0]),
    ("(a + b) c", lambda a, b, c: (a + b) * c, [-2.0, 5.0, -4.0]),  # the graph of section 1
    ("a b + a", lambda a, b: a * b + a, [2.0, -3.0]),  # a is used twice
    ("a a + a", lambda a: a * a + a, [1.5]),  # ... and here three times
]


def run_on(engine, expressions):
    """Value and gradients of every expression, one flat list."""
    return [v for _, build, inputs in expressions for v in engine(build, inputs)]


def entry_names(expressions):
    """'a b + a: value', 'a b + a: d/da', ... in the order of run_on."""
    return [f"{name}: " + ("value" if i == 0 else f"d/d{'abc'[i - 1]}")
            for name, _, inputs in expressions for i in range(len(inputs) + 1)]


def on_scalar(expressions):
    return run_on(lambda build, inputs: engine_gradients(build, inputs, Scalar), expressions)


exercise_1_reference = run_on(torch_gradients, EXPRESSIONS_1)
solved_1 = check("Exercise 1", lambda: on_scalar(EXPRESSIONS_1), exercise_1_reference, names=entry_names(EXPRESSIONS_1))
if not solved_1:  # one line per expression, with a hint where an input is used twice
    print(*experiment.expression_report(EXPRESSIONS_1, lambda f, xs: engine_gradients(f, xs, Scalar),
                                        exercise_1_reference), sep="\n")

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def add_backward(a, b, out):
    a.grad += 1.0 * out.grad  # addition passes the upstream gradient to both inputs unchanged
    b.grad += 1.0 * out.grad


def mul_backward(a, b, out):
    a.grad += b.data * out.grad  # multiplication swaps: a receives b times the upstream gradient
    b.grad += a.data * out.grad


assert check("Exercise 1", lambda: on_scalar(EXPRESSIONS_1), exercise_1_reference, names=entry_names(EXPRESSIONS_1))
solved_1 = True  # the check above passed

# %% [markdown]
# ### The bug that catches everyone: `=` instead of `+=`
#
# When a value feeds two operations, the gradient reaches it along two paths, and the
# multivariate chain rule says the two contributions **add**: for $f = ab + a$,
# $\partial f/\partial a = b + 1$. A rule that writes `a.grad = ...` instead of `a.grad += ...`
# keeps only the contribution of whichever rule runs last.
#
# **Exercise 2 (predict, then run).** Suppose both rules wrote `=`. Which of exercise 1's five
# expressions would still get every gradient right? Write your prediction as five booleans,
# in the order `a + b`, `a b`, `(a + b) c`, `a b + a`, `a a + a`, then run the cell: it runs the
# engine with the overwriting rules and compares.

# %%
add_backward, mul_backward = attempt(lambda: (add_backward, mul_backward),
                                     lambda: (experiment.add_backward, experiment.mul_backward),
                                     name="Exercise 1", solved=solved_1)


def add_backward_overwriting(a, b, out):
    a.grad = out.grad
    b.grad = out.grad


def mul_backward_overwriting(a, b, out):
    a.grad = b.data * out.grad
    b.grad = a.data * out.grad


def expressions_passed(add_rule, mul_rule):
    """Which of exercise 1's expressions the engine gets right with these two rules."""
    global add_backward, mul_backward
    saved = add_backward, mul_backward
    add_backward, mul_backward = add_rule, mul_rule
    try:
        return [bool(np.allclose(engine_gradients(f, xs, Scalar), torch_gradients(f, xs))) for _, f, xs in EXPRESSIONS_1]
    finally:
        add_backward, mul_backward = saved


def my_prediction():
    # your prediction, True or False for each expression: return [..., ..., ..., ..., ...]
    raise NotImplementedError


passed_with_overwriting = expressions_passed(add_backward_overwriting, mul_backward_overwriting)
print("with =, every gradient right:", dict(zip([name for name, _, _ in EXPRESSIONS_1], passed_with_overwriting)))
check("Exercise 2", my_prediction, passed_with_overwriting, names=[name for name, _, _ in EXPRESSIONS_1]);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
# The first three use every input once, so no contribution is lost; in a b + a and a a + a
# a later rule overwrites an earlier path's contribution to a.
def my_prediction():
    return [True, True, True, False, False]


assert check("Exercise 2", my_prediction, passed_with_overwriting, names=[name for name, _, _ in EXPRESSIONS_1])

# %% [markdown]
# Here is the lost contribution on $f = ab + a$ at $a = 2$, $b = -3$, running the two rules
# in the engine's order (the `+` node first, then the `*` node):

# %%
# NBVAL_CHECK_OUTPUT
overwrite_demo = {}
for name, add_rule, mul_rule in [("with =", add_backward_overwriting, mul_backward_overwriting),
                                 ("with +=", add_backward, mul_backward)]:
    a, b = Scalar(2.0), Scalar(-3.0)
    product = a * b
    f = product + a
    f.grad = 1.0
    add_rule(product, a, f)  # the + node: sends 1 to `product` and 1 to a
    mul_rule(a, b, product)  # the * node: sends b = -3 to a ... and overwrites, or adds
    overwrite_demo[name] = a.grad
    print(f"{name:>7}: df/da = {a.grad:g}   (the chain rule: b + 1 = {b.data + 1:g})")

# %% [markdown]
# **Exercise 3.** Now the four one-input operations. Each rule adds `local derivative × out.grad`
# to `a.grad`; use `out.data` where it saves work ($e^a$ is `out.data`, and $1 - \tanh^2 a$ is
# `1 - out.data**2`). For `relu`, use 0 at $a = 0$ (PyTorch's choice).

# %%
def pow_backward(a, k, out):
    raise NotImplementedError


def exp_backward(a, out):
    raise NotImplementedError


def tanh_backward(a, out):
    raise NotImplementedError


def relu_backward(a, out):
    raise NotImplementedError


EXPRESSIONS_3 = [
    ("a**3", lambda a: a**3, [-1.5]),
    ("a**-1", lambda a: a**-1, [4.0]),
    ("exp(a)", lambda a: a.exp(), [0.7]),
    ("tanh(a)", lambda a: a.tanh(), [0.8]),
    ("relu(1.3)", lambda a: a.relu(), [1.3]),
    ("relu(-1.3)", lambda a: a.relu(), [-1.3]),
    ("mixed at (0.6, -0.4)", lambda a, b: (a * b + a**2).tanh() * (-b).exp() + (a - b).relu(), [0.6, -0.4]),
    ("mixed at (-0.6, 0.9)", lambda a, b: (a * b + a**2).tanh() * (-b).exp() + (a - b).relu(), [-0.6, 0.9]),
]
exercise_3_reference = run_on(torch_gradients, EXPRESSIONS_3)
solved_3 = check("Exercise 3", lambda: on_scalar(EXPRESSIONS_3), exercise_3_reference, names=entry_names(EXPRESSIONS_3))

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def pow_backward(a, k, out):
    a.grad += k * a.data ** (k - 1) * out.grad


def exp_backward(a, out):
    a.grad += out.data * out.grad  # (e^a)' = e^a, already computed in the forward pass


def tanh_backward(a, out):
    a.grad += (1 - out.data**2) * out.grad


def relu_backward(a, out):
    a.grad += (1.0 if a.data > 0 else 0.0) * out.grad


assert check("Exercise 3", lambda: on_scalar(EXPRESSIONS_3), exercise_3_reference, names=entry_names(EXPRESSIONS_3))
solved_3 = True  # the check above passed

# %% [markdown]
# ### Three patterns of gradient flow
#
# Look at what the rules do to the upstream gradient $g$:
#
# - **addition distributes**: both inputs of $a + b$ receive $g$ unchanged;
# - **multiplication swaps**: $a$ receives $b\,g$ and $b$ receives $a\,g$, so a large input
#   makes the *other* input's gradient large;
# - **max routes**: $\max(a, b)$ sends all of $g$ to the larger input and nothing to the other
#   (ReLU is $\max(0, a)$: a unit that is off passes no gradient).
#
# We build $\max(a, b) = a + \operatorname{relu}(b - a)$ from your rules, multiply each
# output by an upstream gradient $g = 5$, and compare with PyTorch (`torch.maximum` for the max):

# %% [markdown]
# **Exercise 4.** The engine's last piece is the order. A node may pass its gradient on only when
# that gradient is complete, that is, after every node that uses it has run its rule. Write
# `topological_sort(root)`: every node that `root` depends on (`root` included, each once), each
# listed after all of its `inputs`. A depth-first search does it: visit a node's inputs first, then
# append the node; remember which nodes you have seen. Then write `backward_pass(root)`: set
# `root.grad = 1`, then run `_backward()` of every node in the reversed order. The check sorts the
# graph of the last expression of exercise 3 and names the first node that is missing, repeated or
# placed before one of its inputs; then it runs exercise 3's expressions with your loop.

# %%
def topological_sort(root):
    # your code here: a list of every node root depends on, each after all of its inputs
    raise NotImplementedError


def backward_pass(root):
    # your code here: root.grad = 1, then every node's _backward(), from root back to the inputs
    raise NotImplementedError


mixed = EXPRESSIONS_3[-1][1](*[Scalar(v) for v in EXPRESSIONS_3[-1][2]])  # the last expression of exercise 3
sorted_right = check("Exercise 4 (the sort)", lambda: experiment.order_report(topological_sort(mixed), mixed),
                     {name: True for name in experiment.order_report(topological_order(mixed), mixed)})
solved_4 = sorted_right and check("Exercise 4 (the loop)", lambda: on_scalar(EXPRESSIONS_3), exercise_3_reference,
                                  names=entry_names(EXPRESSIONS_3))

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 4
def topological_sort(root):
    order, seen = [], set()

    def visit(node):
        if id(node) not in seen:
            seen.add(id(node))
            for parent in node.inputs:  # inputs first ...
                visit(parent)
            order.append(node)  # ... then the node

    visit(root)
    return order


def backward_pass(root):
    root.grad = 1.0  # d(root)/d(root)
    for node in reversed(topological_sort(root)):  # outputs first, inputs last
        node._backward()


assert check("Exercise 4 (the sort)", lambda: experiment.order_report(topological_sort(mixed), mixed),
             {name: True for name in experiment.order_report(topological_order(mixed), mixed)})
assert check("Exercise 4 (the loop)", lambda: on_scalar(EXPRESSIONS_3), exercise_3_reference,
             names=entry_names(EXPRESSIONS_3))
solved_4 = True  # both checks above passed

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The recursive `visit` is micrograd's; on a graph deeper than Python's recursion limit
# (about 1,000 nested calls) it fails, which is why `dl4nlp.autograd.topological_order` keeps its
# own stack instead.

# %%
# NBVAL_CHECK_OUTPUT
pow_backward, exp_backward, tanh_backward, relu_backward = attempt(
    lambda: (pow_backward, exp_backward, tanh_backward, relu_backward),
    lambda: (experiment.pow_backward, experiment.exp_backward, experiment.tanh_backward, experiment.relu_backward),
    name="Exercise 3", solved=solved_3)
topological_sort, backward_pass = attempt(lambda: (topological_sort, backward_pass),
                                          lambda: (topological_order, experiment.backward_pass),
                                          name="Exercise 4", solved=solved_4)
patterns = {
    "5 (a + b)": (lambda a, b: 5 * (a + b), lambda a, b: 5 * (a + b)),
    "5 (a b)": (lambda a, b: 5 * (a * b), lambda a, b: 5 * (a * b)),
    "5 max(a, b)": (lambda a, b: 5 * (a + (b - a).relu()), lambda a, b: 5 * torch.maximum(a, b)),
}
pattern_gradients = {}
for name, (ours, reference) in patterns.items():
    _, da, db = engine_gradients(ours, [2.0, -3.0], Scalar)
    pattern_gradients[name] = ([da, db], torch_gradients(reference, [2.0, -3.0])[1:])
    print(f"{name:>12} at a = 2, b = -3:  d/da = {da:+g},  d/db = {db:+g}")

# %% [markdown]
# Your engine, the library's `dl4nlp.autograd.Value` (the same rules, written once in
# [`lib/dl4nlp/autograd.py`](../lib/dl4nlp/autograd.py)) and `torch.autograd` now agree on a larger
# expression of 27 nodes at 20 random points, to the rounding of that many float64
# operations (a few times $10^{-15}$). Section 3 uses the library's `Value`; in section 5 you build a
# network on your own engine again.

# %%
def bigger(x, y, z):
    return ((x * y + z**2).tanh() * (-x).exp() + (y - z).relu() * 3 - x / (1 + z * z)) ** 2


points = torch.Generator().manual_seed(0)
bigger_points = [(torch.rand(3, generator=points, dtype=torch.float64) * 4 - 2).tolist() for _ in range(20)]
bigger_nodes = len(topological_order(bigger(*[Value(v) for v in bigger_points[0]])))  # the size of the computation
bigger_agree = {engine.__name__: all(agree(torch.tensor(engine_gradients(bigger, xyz, engine)),
                                           torch.tensor(torch_gradients(bigger, xyz)), terms=bigger_nodes)
                                     for xyz in bigger_points)
                for engine in (Scalar, Value)}
print(f"{bigger_nodes} nodes; agree with torch.autograd at all 20 points:", bigger_agree)

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the rules, the bug, the patterns
claim(f"with =, df/da = {overwrite_demo['with =']:g} on f = ab + a; with +=, {overwrite_demo['with +=']:g} = b + 1",
      overwrite_demo["with +="] == -2.0 and overwrite_demo["with ="] == -3.0)
claim(f"with = only the expressions that use each input once come out right: {passed_with_overwriting}",
      passed_with_overwriting == [True, True, True, False, False])
claim("with += all five expressions come out right", all(expressions_passed(add_backward, mul_backward)))
for name, (ours, torchs) in pattern_gradients.items():
    claim(f"{name}: the engine's gradients {ours} equal PyTorch's {torchs}", ours == torchs)
for name, holds in bigger_agree.items():
    claim(f"{name} agrees with torch.autograd on a {bigger_nodes}-node expression at 20 points, to "
          f"{bigger_nodes} float64 roundings of the largest gradient", holds and bigger_nodes == 27)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. A sigmoid neuron, two ways
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
# primitive gates ($\times$, $+$, then four gates of one input each, as CS231n draws them:
# $\times(-1)$, $\exp$, $+1$, $1/x$), and once with a single
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

draw_graph(results["primitives"][0], title="built from primitive gates (constants inside their gates: +1, *-1)")
plt.show()
draw_graph(results["sigmoid node"][0], title="the same neuron with one sigmoid node")
plt.show()

# %% [markdown]
# Every gradient is the local gradient $\sigma(1)(1 - \sigma(1))$ times the other input of its
# product ($w_0$'s gradient is $x_0$ times it, $x_0$'s is $w_0$ times it, and the bias's is 1 times
# it). The lecture's slides round the local gradient to 0.2 first and then multiply
# ($x_0$: $0.2 \times 2 = 0.4$); the CS231n notes round only the result ($2 \times 0.1966 = 0.39$).
# Here are PyTorch's exact values and both roundings:

# %%
# NBVAL_CHECK_OUTPUT
w_t = torch.tensor([2.0, -3.0, -3.0], dtype=torch.float64, requires_grad=True)
x_t = torch.tensor([-1.0, -2.0], dtype=torch.float64, requires_grad=True)
out_t = torch.sigmoid(w_t[0] * x_t[0] + w_t[1] * x_t[1] + w_t[2])
out_t.backward()
torch_grads = [w_t.grad[0].item(), x_t.grad[0].item(), w_t.grad[1].item(), x_t.grad[1].item(), w_t.grad[2].item()]

sigma_1 = 1 / (1 + math.exp(-1))
local = sigma_1 * (1 - sigma_1)
names = ["w0", "x0", "w1", "x1", "w2"]
other_input = [-1.0, 2.0, -2.0, -3.0, 1.0]  # x0, w0, x1, w1 and 1: what each local gradient is multiplied by
slides_arithmetic = [0.2 * v for v in other_input]  # the slides: rounded local gradient times the input
notes_arithmetic = [local * v for v in other_input]  # the notes: exact local gradient times the input
print(f"output sigma(1)         = {sigma_1:.6f}   (slides: 0.73)")
print(f"local gradient s(1 - s) = {local:.6f}   (slides: 0.2)")
for name, exact, slide, note in zip(names, torch_grads, slides_arithmetic, notes_arithmetic):
    print(f"df/d{name} = {exact:+.6f}   slides: 0.2 × {slide / 0.2:+g} = {slide:+.1f}   notes: {note:+.2f}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the neuron's gradients
for name, (out, grads) in results.items():
    nodes = len(topological_order(out))
    claim(f"the graph from {name} ({nodes} nodes) gives PyTorch's output and gradients, to {nodes} float64 roundings",
          agree(torch.tensor([out.data] + grads), torch.tensor([out_t.item()] + torch_grads), terms=nodes))
claim(f"sigma(1) = {sigma_1:.4f} rounds to the slides' 0.73, and the local gradient {local:.4f} to their 0.2",
      round(sigma_1, 2) == 0.73 and round(local, 1) == 0.2)
claim("each exact gradient is the local gradient times the other input (the chain rule)",
      agree(torch.tensor(torch_grads), torch.tensor(notes_arithmetic), terms=8))
claim(f"the slides' values are 0.2 times those inputs: {[round(v, 1) for v in slides_arithmetic]}",
      [round(v, 10) for v in slides_arithmetic] == [-0.2, 0.4, -0.4, -0.6, 0.2])
claim(f"the notes' values are the exact ones rounded: {[round(v, 2) for v in notes_arithmetic]}",
      [round(v, 2) for v in notes_arithmetic] == [-0.20, 0.39, -0.39, -0.59, 0.20])

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Checking gradients: finite differences, `gradcheck`, your own `torch.autograd.Function`
#
# **Without a reference.** So far PyTorch told us the right gradients. When you write a new rule you
# can still check it, with the slope of section 1: nudge one input by $\epsilon$ both ways and
# measure the **central difference** $n = \bigl(f(x + \epsilon) - f(x - \epsilon)\bigr)/2\epsilon$. Compare it
# with the gradient $a$ your rules give by the **relative error**
# $|a - n| / \max(|a|, |n|)$ (0 when both are 0): a difference of $10^{-6}$ is excellent for a gradient
# of 100 and meaningless for one of $10^{-6}$, and the relative error says how many digits agree.
#
# **Exercise 5.** Write `numerical_gradient(build, inputs, eps)`, the list of central differences of
# `f(x) = build(*[Value(v) for v in x]).data` (forward passes only), one per input, and
# `relative_error(a, n)`. The check compares both with the library's on `bigger` at one point and on
# five pairs of numbers.

# %%
def numerical_gradient(build, inputs, eps=1e-6):
    # your code here: for each i, (f(x + eps e_i) - f(x - eps e_i)) / (2 eps)
    raise NotImplementedError


def relative_error(a, n):
    # your code here: |a - n| / max(|a|, |n|), and 0 when both are 0
    raise NotImplementedError


PAIRS = [(1.0, 1.001), (0.0, 0.0), (-2e-8, -1e-8), (100.0, 100.0001), (3.0, -3.0)]
exercise_5_reference = experiment.central_differences(bigger, bigger_points[0]) + [
    experiment.relative_error(a, n) for a, n in PAIRS]
EXERCISE_5_NAMES = [f"d bigger / d{v}" for v in "xyz"] + [f"relative_error{pair}" for pair in PAIRS]
solved_5 = check("Exercise 5", lambda: numerical_gradient(bigger, bigger_points[0]) + [relative_error(a, n) for a, n in PAIRS],
                 exercise_5_reference, atol=1e-12, rtol=1e-9, names=EXERCISE_5_NAMES)

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 5
def numerical_gradient(build, inputs, eps=1e-6):
    def f(x):
        return build(*[Value(v) for v in x]).data

    grads = []
    for i in range(len(inputs)):
        up, down = list(inputs), list(inputs)
        up[i] += eps
        down[i] -= eps
        grads.append((f(up) - f(down)) / (2 * eps))
    return grads


def relative_error(a, n):
    scale = max(abs(a), abs(n))
    return 0.0 if scale == 0 else abs(a - n) / scale


assert check("Exercise 5", lambda: numerical_gradient(bigger, bigger_points[0]) + [relative_error(a, n) for a, n in PAIRS],
             exercise_5_reference, atol=1e-12, rtol=1e-9, names=EXERCISE_5_NAMES)
solved_5 = True  # the check above passed

# %% [markdown]
# Now the checker at work on your engine: `bigger` at its 20 points (60 gradients), with your rules,
# and with a broken rule for tanh that forgets the square ($1 - o$ instead of $1 - o^2$).

# %%
numerical_gradient, relative_error = attempt(lambda: (numerical_gradient, relative_error),
                                             lambda: (experiment.central_differences, experiment.relative_error),
                                             name="Exercise 5", solved=solved_5)


def worst_relative_error(engine):
    return max(relative_error(a, n) for xyz in bigger_points
               for a, n in zip(engine_gradients(bigger, xyz, engine)[1:], numerical_gradient(bigger, xyz)))


def tanh_backward_broken(a, out):
    a.grad += (1 - out.data) * out.grad


worst = {"your rules": worst_relative_error(Scalar)}
tanh_backward, saved_tanh = tanh_backward_broken, tanh_backward
worst["tanh rule without the square"] = worst_relative_error(Scalar)
tanh_backward = saved_tanh
for name, error in worst.items():
    print(f"{name:>29}: largest relative error {error:.1e}")

# %% [markdown]
# Correct rules agree with the measured slopes to better than six digits; the broken one is off in
# the first digit somewhere. Float64 and $\epsilon = 10^{-6}$ leave room for that: the centred slope's own
# error is about $\epsilon^2$ times the third derivative, plus the rounding of $f$ divided by $\epsilon$.
#
# **Your own node.** PyTorch lets you define a node yourself: a `forward` that computes the output
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
# `torch.autograd.gradcheck` is exercise 5's checker for tensors: it compares the analytic `backward`
# with central differences on float64 inputs, entry by entry (it returns True, or stops with an
# error that names the entry that differs).

# %%
# NBVAL_CHECK_OUTPUT
generator = torch.Generator().manual_seed(0)
a = torch.randn(5, 3, dtype=torch.float64, generator=generator, requires_grad=True)
b = torch.randn(5, 3, dtype=torch.float64, generator=generator, requires_grad=True)
gradcheck_passed = {
    "Multiply": torch.autograd.gradcheck(Multiply.apply, (a, b), eps=1e-6, atol=1e-8),
    "Sigmoid": torch.autograd.gradcheck(Sigmoid.apply, (a,), eps=1e-6, atol=1e-8),
}
print("gradcheck passed:", gradcheck_passed)

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: finite differences, and the custom nodes
claim(f"your engine's 60 gradients of bigger agree with central differences to a relative error of "
      f"{worst['your rules']:.1e} (less than 1e-6)", worst["your rules"] < 1e-6)
claim(f"the broken tanh rule is caught: relative error {worst['tanh rule without the square']:.2f} (more than 0.01)",
      worst["tanh rule without the square"] > 0.01)
for name, passed in gradcheck_passed.items():
    claim(f"{name} passes gradcheck (finite differences with eps 1e-6, atol 1e-8)", passed)
claim("Sigmoid's forward equals torch.sigmoid to the rounding of its 4 float64 operations",
      agree(Sigmoid.apply(a), torch.sigmoid(a), terms=4))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. A neuron, a layer, an MLP, trained on your engine
#
# **Intuition.** A neuron is the graph of section 3 with a different squashing
# function: a weighted sum of its inputs plus a bias, through $\tanh$. A layer is several
# neurons reading the same inputs; an MLP feeds one layer's outputs to the next. Because
# every weight is a node of your engine, one call to `.backward()` on the loss gives the gradient of
# every weight, and gradient descent moves each weight a little against its gradient.
# (Backpropagation only *computes* the gradients; gradient descent is what *learns* with them.)
#
# **The maths.** Neuron $j$ of a layer computes $h_j = \tanh\bigl(\sum_i w_{ji} x_i + b_j\bigr)$; the
# last layer leaves out the $\tanh$ and outputs a score $s$. With labels $y \in \{-1, +1\}$ we use the
# *hinge loss* $\frac1N\sum_n \max(0,\ 1 - y_n s_n)$: zero for a point on the right side with a
# margin, and otherwise pushing its score the right way (the `max` routes the gradient
# only through the points that are wrong or too close).
#
# **The data: four blobs labelled like XOR.** Points scattered around the corners $(\pm1, \pm1)$ of a
# square; the corners $(1,1)$ and $(-1,-1)$ are one class, the other two corners the other class
# (`dl4nlp.tasks.xor_blobs`, 60 training points). No straight line separates them, so a network
# without a hidden layer cannot solve it.

# %%
points, labels = xor_blobs(experiment.XOR_POINTS, generator=torch.Generator().manual_seed(0))
train_points = points.tolist()  # 60 points, two coordinates each
signs = [2 * int(y) - 1 for y in labels]  # {0, 1} -> {-1, +1}
hinge = experiment.hinge  # mean of relu(1 - y s): made of -, *, + and relu, so it runs on your engine too

# %% [markdown]
# **Exercise 6.** Complete `Neuron`, `Layer` and `MLP` on your `Scalar` engine (their `__init__` is
# written). A neuron returns $\tanh(b + \sum_i w_i x_i)$, or the plain sum when its `nonlinearity` is
# `"linear"`, and lists its parameters as its weights, then its bias. A layer returns the list of its
# neurons' outputs and lists its neurons' parameters one neuron after the other. An MLP feeds each
# layer's outputs to the next, returns the single score itself (not a list of one) when the last layer
# has one neuron, and lists its layers' parameters in order. The weights are drawn as in
# `dl4nlp.scalar_nn` (uniformly from $[-1, 1]$, biases 0, as in micrograd), so `MLP(2, [8, 1], seed=0)`
# starts from the same 33 numbers as the library's network. The check computes the hinge loss of
# your network on 20 training points, backpropagates, and compares the loss and all 33 gradients
# with PyTorch's.

# %%
class Neuron:
    def __init__(self, n_inputs, nonlinearity, rng):
        self.w = [Scalar(rng.uniform(-1.0, 1.0)) for _ in range(n_inputs)]
        self.b = Scalar(0.0)
        self.nonlinearity = nonlinearity  # "tanh" or "linear"

    def __call__(self, x):
        raise NotImplementedError  # your code: b + w_1 x_1 + ... + w_n x_n, through tanh unless "linear"

    def parameters(self):
        raise NotImplementedError  # your code: the weights, then the bias


class Layer:
    def __init__(self, n_inputs, n_outputs, nonlinearity, rng):
        self.neurons = [Neuron(n_inputs, nonlinearity, rng) for _ in range(n_outputs)]

    def __call__(self, x):
        raise NotImplementedError  # your code: the list of every neuron's output

    def parameters(self):
        raise NotImplementedError  # your code: every neuron's parameters, neuron after neuron


class MLP:
    """Widths n_inputs -> sizes[0] -> ... -> sizes[-1]; tanh hidden layers and a linear last layer (scores)."""

    def __init__(self, n_inputs, sizes, seed=0):
        rng, widths = random.Random(seed), [n_inputs, *sizes]
        self.layers = [Layer(widths[i], widths[i + 1], "tanh" if i < len(sizes) - 1 else "linear", rng)
                       for i in range(len(sizes))]

    def __call__(self, x):
        raise NotImplementedError  # your code: each layer on the previous one's outputs; one score, not [score]

    def parameters(self):
        raise NotImplementedError  # your code: every layer's parameters, layer after layer


def loss_and_gradients(network_class):
    """The hinge loss of network_class(2, [8, 1], seed=0) on the first 20 points, then every weight's gradient."""
    net = network_class(2, [8, 1], seed=0)
    loss = hinge([net(p) for p in train_points[:20]], signs[:20])
    loss.backward()
    return [loss.data] + [p.grad for p in net.parameters()]


twin = to_torch(scalar_nn.MLP(2, [8, 1], seed=0))  # the library's network as a torch.nn.Sequential
torch_loss = torch.relu(1 - torch.tensor(signs[:20], dtype=torch.float64) * twin(points[:20])[:, 0]).mean()
torch_loss.backward()
torch_grads = flat_parameters(twin, grad=True)  # in the order of parameters(): each neuron's weights, then its bias
exercise_6_reference = [torch_loss.item()] + torch_grads.tolist()
PARAMETER_NAMES = ["loss"] + [f"layer {layer + 1}, neuron {j + 1}, " + (f"w{i + 1}" if i < n_in else "b")
                              for layer, (n_in, n_out) in enumerate([(2, 8), (8, 1)])
                              for j in range(n_out) for i in range(n_in + 1)]
solved_6 = check("Exercise 6", lambda: loss_and_gradients(MLP), exercise_6_reference, names=PARAMETER_NAMES)

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 6
class Neuron:
    def __init__(self, n_inputs, nonlinearity, rng):
        self.w = [Scalar(rng.uniform(-1.0, 1.0)) for _ in range(n_inputs)]
        self.b = Scalar(0.0)
        self.nonlinearity = nonlinearity

    def __call__(self, x):
        s = self.b
        for wi, xi in zip(self.w, x):
            s = s + wi * xi
        return s if self.nonlinearity == "linear" else s.tanh()

    def parameters(self):
        return self.w + [self.b]


class Layer:
    def __init__(self, n_inputs, n_outputs, nonlinearity, rng):
        self.neurons = [Neuron(n_inputs, nonlinearity, rng) for _ in range(n_outputs)]

    def __call__(self, x):
        return [neuron(x) for neuron in self.neurons]

    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]


class MLP:
    def __init__(self, n_inputs, sizes, seed=0):
        rng, widths = random.Random(seed), [n_inputs, *sizes]
        self.layers = [Layer(widths[i], widths[i + 1], "tanh" if i < len(sizes) - 1 else "linear", rng)
                       for i in range(len(sizes))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x[0] if len(x) == 1 else x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


assert check("Exercise 6", lambda: loss_and_gradients(MLP), exercise_6_reference, names=PARAMETER_NAMES)
solved_6 = True  # the check above passed

# %% [markdown]
# The library's `dl4nlp.scalar_nn` holds the same three classes on `Value`, and `to_torch` copies a
# network's weights into an equal `torch.nn.Sequential` (the PyTorch reference above). Here is the
# network, drawn from its own layers by `dl4nlp.diagrams.mlp_diagram`: each box is a layer's width
# and non-linearity, each arrow one weight matrix and its bias.

# %%
# NBVAL_CHECK_OUTPUT
MLP = attempt(lambda: MLP, lambda: scalar_nn.MLP, name="Exercise 6", solved=solved_6)
model = scalar_nn.MLP(2, [8, 1], seed=0)
print(model)
print(f"{len(model.parameters())} parameters:", to_torch(model))
diagram = mlp_diagram(model)
diagram.draw(title=repr(model))
plt.show()

# the library's engine against PyTorch, on the same batch
loss = scalar_nn.hinge_loss([model(p) for p in train_points[:20]], signs[:20])
loss.backward()
graph_nodes = len(topological_order(loss))  # the size of the computation
engine_grads = torch.tensor([p.grad for p in model.parameters()], dtype=torch.float64)
yours = torch.tensor(loss_and_gradients(MLP), dtype=torch.float64)

# %% [markdown]
# **Exercise 7.** One step of gradient descent on your network. Given the model, a batch of points and
# their labels in $\{-1, +1\}$: compute the hinge loss of the model's scores (`hinge`), set every
# parameter's `grad` to 0, call `backward()`, and move every parameter against its gradient,
# `p.data -= lr * p.grad`. Return the loss's value. The check takes three steps from the same start
# and compares all 33 weights afterwards with `torch.optim.SGD` taking the same steps on the
# PyTorch twin, to the rounding of three passes through the graph.
#
# Leaving out the reset is the second classic bug: `backward()` *adds* to `.grad` (that is what made
# `+=` right), so the second step would move by the sum of both steps' gradients. The first step
# would still be right, which is why the check takes three.

# %%
def gradient_step(model, points, signs, lr):
    # your code here: loss, reset the gradients, backward, update; return the loss's value
    raise NotImplementedError


def weights_after(step, steps=3, lr=0.5):
    """All weights of a fresh MLP(2, [8, 1], seed=0) after `steps` calls of `step` on the first 20 points."""
    net = MLP(2, [8, 1], seed=0)
    for _ in range(steps):
        step(net, train_points[:20], signs[:20], lr)
    return [p.data for p in net.parameters()]


def sgd_reference(steps=3, lr=0.5):
    twin = to_torch(scalar_nn.MLP(2, [8, 1], seed=0))
    sgd = torch.optim.SGD(twin.parameters(), lr=lr)
    y = torch.tensor(signs[:20], dtype=torch.float64)
    for _ in range(steps):
        sgd.zero_grad()
        torch.relu(1 - y * twin(points[:20])[:, 0]).mean().backward()
        sgd.step()
    return flat_parameters(twin)


exercise_7_reference = sgd_reference()
three_passes = rounding_tolerance(3 * graph_nodes)  # three forward and backward passes through the graph
solved_7 = check("Exercise 7", lambda: weights_after(gradient_step), exercise_7_reference, atol=three_passes, rtol=0,
                 names=PARAMETER_NAMES[1:])

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 7
def gradient_step(model, points, signs, lr):
    loss = hinge([model(p) for p in points], signs)
    for p in model.parameters():
        p.grad = 0.0  # forget the previous step's gradients
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad  # downhill
    return loss.data


assert check("Exercise 7", lambda: weights_after(gradient_step), exercise_7_reference, atol=three_passes, rtol=0,
                 names=PARAMETER_NAMES[1:])
solved_7 = True  # the check above passed

# %% [markdown]
# The bug, shown: a step without the reset takes the same first step as SGD, and ends far from
# SGD's weights after three.

# %%
def step_without_reset(model, points, signs, lr):
    loss = hinge([model(p) for p in points], signs)
    loss.backward()  # adds to whatever .grad holds from the previous step
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss.data


one_step = torch.tensor(weights_after(step_without_reset, steps=1), dtype=torch.float64)
three_steps = torch.tensor(weights_after(step_without_reset), dtype=torch.float64)
drift = (three_steps - exercise_7_reference).abs().max().item()
print(f"after one step: same as SGD; after three: the largest weight differs from SGD's by {drift:.2f}")

# %% [markdown]
# ### Training your network
#
# Now your network learns, with your step: 40 steps, each on 20 of the 60 training points drawn at
# random, with a learning rate that falls linearly from 1 at the first step to 0.1225 at the last.
# (A few seconds: every step builds and differentiates a graph of more than a thousand nodes, one
# number at a time.)

# %%
step = attempt(lambda: gradient_step, lambda: experiment.gradient_step, name="Exercise 7", solved=solved_7)
my_network = MLP(2, [8, 1], seed=0)
batches = random.Random(0)
my_losses = []
for t in range(40):
    chosen = batches.sample(range(60), 20)
    my_losses.append(step(my_network, [train_points[i] for i in chosen], [signs[i] for i in chosen],
                          lr=1.0 * (1 - 0.9 * t / 40)))
print(f"hinge loss on the mini-batch: {my_losses[0]:.3f} at the first step, {my_losses[-1]:.3f} at the last")

# %% [markdown]
# `dl4nlp.experiments.backprop.xor_mlp` runs the same loop on the library's network, and
# `twin_training` runs it in PyTorch (the same network copied into `torch.nn`, `torch.optim.SGD`, the
# same mini-batches and learning rates); the check below confirms that all three end with the same
# weights. `xor_mlp` also trains a linear model (no hidden layer) the same way for comparison, and
# measures both on 2000 fresh points from the same distribution.

# %%
xor_run = experiment.xor_mlp(seed=0)
twin_weights = experiment.twin_training(seed=0)  # the same training, by PyTorch
trained = to_torch(xor_run.model)
grid_x, grid_y = torch.meshgrid(torch.linspace(-2.2, 2.2, 200, dtype=torch.float64),
                                torch.linspace(-2.2, 2.2, 200, dtype=torch.float64), indexing="xy")
with torch.no_grad():
    scores = trained(torch.stack([grid_x.flatten(), grid_y.flatten()], dim=1)).reshape(grid_x.shape)

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
left.contourf(grid_x, grid_y, scores, levels=[-100, 0, 100], colors=["#dce6f5", "#f8e0d6"])
left.contour(grid_x, grid_y, scores, levels=[0], colors="black", linewidths=1.5)
for value, colour, marker in [(0, "#3a5a8c", "o"), (1, "#c0392b", "s")]:
    chosen = labels == value
    left.scatter(points[chosen, 0], points[chosen, 1], c=colour, marker=marker, edgecolor="white",
                 label=f"class {value} (region: {'blue' if value == 0 else 'red'})")
left.set(xlabel="$x_1$", ylabel="$x_2$", title="decision boundary (score = 0) after training", aspect="equal")
left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
right.plot(my_losses, label="your network")
right.plot(xor_run.losses, linestyle="--", label="xor_mlp")
right.set(xlabel="step", ylabel="hinge loss on the mini-batch", title="training loss")
right.legend()
plt.show()
print(f"accuracy: training points {xor_run.train_accuracy:.3f}, fresh points {xor_run.heldout_accuracy:.3f}; "
      f"linear model on fresh points {xor_run.linear_heldout_accuracy:.3f}")

# %% [markdown]
# The network classifies every training point correctly and more than 95 % of the fresh points;
# the linear model trained the same way stays below 80 % (a straight line can put at most three
# of the four blobs on their correct side).
#
# **Why the weights start random.** Start instead from every weight equal to 0.5 (biases 0). Then the
# eight hidden neurons compute the same function, receive the same gradient, take the same step, and
# remain copies of one another for ever: the network has one hidden unit, however many it was given.
# Random initial weights *break the symmetry*. `experiment.symmetric_start` runs the same training
# from the equal start:

# %%
symmetric = experiment.symmetric_start(seed=0, value=0.5)
print(f"from equal weights: after training, two hidden neurons differ by at most {symmetric.hidden_spread:g}; "
      f"fresh points right: {symmetric.heldout_accuracy:.3f} (from random weights: {xor_run.heldout_accuracy:.3f})")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the MLP, built and trained on your engine
widths = [len(model.layers[0].neurons[0].w)] + [len(layer.neurons) for layer in model.layers]
claim(f"the diagram's boxes have the network's widths {widths}",
      [int(box.label.split()[0]) for box in diagram.boxes.values()] == widths)
claim(f"before training, the library's engine gives PyTorch's loss {loss.data:.4f} to {graph_nodes} float64 roundings",
      agree(torch.tensor([loss.data]), torch_loss.detach().reshape(1), terms=graph_nodes))
claim(f"... and the gradients of all {len(engine_grads)} weights", agree(engine_grads, torch_grads, terms=graph_nodes))
claim("your network gives the same loss and gradients, to the same rounding",
      agree(yours, torch.tensor(exercise_6_reference), terms=graph_nodes))
claim("a step without resetting the gradients takes SGD's first step (to one pass's rounding)",
      agree(one_step, sgd_reference(steps=1), terms=graph_nodes))
claim(f"... and ends {drift:.2f} away from SGD's weights after three steps (more than 0.01)", drift > 0.01)
my_weights = torch.tensor([p.data for p in my_network.parameters()], dtype=torch.float64)
library_weights = torch.tensor([p.data for p in xor_run.model.parameters()], dtype=torch.float64)
claim(f"your network, trained by your step, ends with xor_mlp's weights (to 40 passes' rounding; largest difference "
      f"{(my_weights - library_weights).abs().max().item():.0e})", agree(my_weights, library_weights, terms=40 * graph_nodes))
claim(f"PyTorch, trained the same way, ends with the same weights too (largest difference "
      f"{(twin_weights - library_weights).abs().max().item():.0e})", agree(twin_weights, library_weights, terms=40 * graph_nodes))
claim(f"none of the 2000 fresh points is a training point ({xor_run.heldout_in_training} shared)",
      xor_run.heldout_in_training == 0)
claim(f"the MLP classifies every training point correctly ({xor_run.train_accuracy:.3f})", xor_run.train_accuracy == 1.0)
claim(f"... and {xor_run.heldout_accuracy:.3f} of the fresh points (more than {experiment.XOR_HELDOUT})",
      xor_run.heldout_accuracy > experiment.XOR_HELDOUT)
claim(f"the linear model gets {xor_run.linear_heldout_accuracy:.3f} of the fresh points (less than "
      f"{experiment.LINEAR_HELDOUT})", xor_run.linear_heldout_accuracy < experiment.LINEAR_HELDOUT)
claim(f"from equal weights the hidden neurons stay identical (they differ by {symmetric.hidden_spread:g}), and the "
      f"network does no better than a line: {symmetric.heldout_accuracy:.3f} of fresh points (less than "
      f"{experiment.LINEAR_HELDOUT})", symmetric.hidden_spread == 0 and symmetric.heldout_accuracy < experiment.LINEAR_HELDOUT)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Matrices: gradients from shapes
#
# Real networks apply the same rule to whole matrices at once. For a linear layer
# $Y = XW + b$ with a batch $X \in \mathbb{R}^{N\times D}$, $W \in \mathbb{R}^{D\times H}$, $b \in \mathbb{R}^{H}$ and an
# upstream gradient $G = \partial L/\partial Y \in \mathbb{R}^{N\times H}$, each entry is a scalar graph:
# $Y_{nh} = \sum_d X_{nd} W_{dh} + b_h$. Multiplication swaps, addition distributes, and
# gradients add over every path:
#
# $$\frac{\partial L}{\partial W_{dh}} = \sum_n X_{nd}\, G_{nh}, \qquad
#   \frac{\partial L}{\partial X_{nd}} = \sum_h G_{nh}\, W_{dh}, \qquad
#   \frac{\partial L}{\partial b_h} = \sum_n G_{nh}.$$
#
# You need not remember these sums: **the shapes decide them.** $\partial L/\partial W$ has $W$'s
# shape $(D, H)$ and must combine $X$ $(N, D)$ with $G$ $(N, H)$, summing over the batch index $N$
# they share; the only product that does so is $X^\top G$. Likewise $\partial L/\partial X$ must be
# $(N, D)$ from $G$ $(N, H)$ and $W$ $(D, H)$: it is $G W^\top$. And $b$ was added to every row, so its
# gradient sums $G$ over the rows.
#
# **Exercise 8.** Return `(dX, dW, db)` for `Y = X @ W + b`, given the upstream gradient `G`.

# %%
def linear_backward(X, W, G):
    raise NotImplementedError


generator = torch.Generator().manual_seed(4)
X_ex = torch.randn(5, 3, dtype=torch.float64, generator=generator, requires_grad=True)
W_ex = torch.randn(3, 4, dtype=torch.float64, generator=generator, requires_grad=True)
b_ex = torch.randn(4, dtype=torch.float64, generator=generator, requires_grad=True)
G_ex = torch.randn(5, 4, dtype=torch.float64, generator=generator)
(X_ex @ W_ex + b_ex).backward(G_ex)  # autograd's answer for the upstream gradient G
linear_reference = torch.cat([X_ex.grad.flatten(), W_ex.grad.flatten(), b_ex.grad.flatten()])


def flat(grads):
    return torch.cat([g.flatten() for g in grads])


LINEAR_NAMES = [f"dX[{n}, {d}]" for n in range(5) for d in range(3)] + [f"dW[{d}, {h}]" for d in range(3) for h in range(4)] + [
    f"db[{h}]" for h in range(4)]
check("Exercise 8", lambda: flat(linear_backward(X_ex.detach(), W_ex.detach(), G_ex)), linear_reference, names=LINEAR_NAMES);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 8
def linear_backward(X, W, G):
    dX = G @ W.T  # (N, H) @ (H, D) -> (N, D)
    dW = X.T @ G  # (D, N) @ (N, H) -> (D, H)
    db = G.sum(dim=0)  # b was added to every row
    return dX, dW, db


assert check("Exercise 8", lambda: flat(linear_backward(X_ex.detach(), W_ex.detach(), G_ex)), linear_reference,
             names=LINEAR_NAMES)

# %% [markdown]
# ### A small MLP, backpropagated with matrices
#
# Two such layers with a $\tanh$ between them and a softmax classifier over $C$ classes,
# for a batch $X \in \mathbb{R}^{N\times D}$:
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
# Each is "upstream times local" again, with the transposes that the shapes demand, and
# each weight's gradient is exercise 8's $X^\top G$ with the layer's own input and upstream gradient.

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
# The hand-written backward pass and autograd's:

# %%
# NBVAL_CHECK_OUTPUT
matrix_terms = N * (D + hidden + C)  # each gradient entry sums over the batch and one layer's width
for name, grad in grads_by_hand.items():
    print(f"d loss / d {name}: shape {tuple(grad.shape)}, equals autograd's: "
          f"{grad.shape == params[name].shape and agree(grad, leaves[name].grad, terms=matrix_terms)}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: backpropagation with matrices
claim(f"the loss by hand, {loss_by_hand.item():.4f}, equals F.cross_entropy's to {matrix_terms} float64 roundings",
      agree(loss_by_hand, loss_autograd, terms=matrix_terms))
for name, grad in grads_by_hand.items():
    claim(f"d loss / d {name} by hand has shape {tuple(grad.shape)} and equals autograd's to {matrix_terms} roundings",
          grad.shape == params[name].shape and agree(grad, leaves[name].grad, terms=matrix_terms))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - A gradient is a product of local derivatives along the graph: each node multiplies the upstream gradient by its own local gradient, and where paths meet the gradients **add** (`+=`, not `=`: with `=`, $\partial f/\partial a$ of $ab + a$ comes out $-3$ instead of $b + 1 = -2$).
# - Addition distributes the upstream gradient, multiplication swaps the inputs' values into each other's gradients, max routes it to the larger input.
# - A derivative is a slope, and a gradient can be measured: central differences agree with your engine's 60 gradients of a 27-node expression to a relative error below $10^{-6}$, and catch a broken tanh rule.
# - Your engine (your rules, your topological sort and backward loop), `dl4nlp.autograd.Value` and `torch.autograd` agree to the rounding of the computation. On your engine, your MLP with 8 hidden units, trained by your gradient step, ends with the library's weights and PyTorch's and classifies every training point and more than 95 % of fresh points of the XOR-labelled blobs, where a linear model stays below 80 %, and so does the same network started from equal weights (its hidden units stay copies). Backpropagation computes the gradients; gradient descent learns with them.
# - A custom `torch.autograd.Function` is a forward that saves what it needs and a backward that multiplies; `gradcheck` verifies it. Matrix gradients follow from shapes: $\partial\mathcal{L}/\partial W = X^\top G$, $\partial\mathcal{L}/\partial X = G W^\top$.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What comes next
#
# [02 · Neural language models before recurrence](02_before_recurrence.ipynb) puts these tools to
# work on text, starting from n-gram models and perplexity, the measure by which every language
# model in the course is compared. Chapter 03 then unrolls a recurrent network through time, where
# the product of Jacobians of *Going further* below appears with one weight matrix repeated at
# every step.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# - D. E. Rumelhart, G. E. Hinton, R. J. Williams, *Learning representations by back-propagating errors*, Nature (1986).
# - Y. Bengio, P. Simard, P. Frasconi, *Learning long-term dependencies with gradient descent is difficult*, IEEE TNN (1994).
# - X. Glorot, Y. Bengio, *Understanding the difficulty of training deep feedforward neural networks*, AISTATS (2010).
# - K. He, X. Zhang, S. Ren, J. Sun, *Delving deep into rectifiers*, ICCV (2015); *Deep residual learning for image recognition*, CVPR (2016).
# - H. Zhang, Y. N. Dauphin, T. Ma, *Fixup initialization: residual learning without normalization*, ICLR (2019).
# - A. Karpathy, *micrograd* (2020) and *Neural Networks: Zero to Hero* (2022), the scalar engine and MLP this chapter's exercises follow.
# - Stanford CS231n, *Convolutional Neural Networks for Visual Recognition*, course notes "Backpropagation, intuitions" (the sigmoid neuron's circuit).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further
#
# *Optional.* Three studies beyond one lecture: how large each layer's outputs are at the start
# (initialisation, and units that die), how the gradient changes size as it crosses many layers (the
# reason chapter 03's recurrent networks forget), and three more exercises.

# %% [markdown]
# ### Initialisation: Xavier, He, and dead ReLUs
#
# Section 5's weights were uniform in $[-1, 1]$, which suits a layer with 2 inputs. A unit of a wide
# layer sums $n$ products, so with weights of variance $\sigma^2$ and inputs of second moment $v$ its
# input has variance $n\sigma^2 v$: the scale must shrink with the width. Glorot & Bengio (2010) take
# $\sigma^2 = 1/n$ for tanh, whose slope near 0 is 1 (their *Xavier* rule averages the widths in and
# out, $2/(n_\text{in} + n_\text{out})$, which is $1/n$ for square layers); He et al. (2015) take
# $\sigma^2 = 2/n$ for ReLU, because ReLU sets half of its inputs to zero and so halves the second
# moment. Below: 10 square layers of width 256, no biases, 500 random inputs, and the root mean square
# of each layer's outputs (vectors as columns here, $h_k = \phi(W_k h_{k-1})$; section 6 used rows).

# %%
init = experiment.activation_statistics(seed=0)
fig, ax = plt.subplots(figsize=(8, 4))
for name, sizes in init.rms.items():
    ax.plot(range(1, len(sizes) + 1), sizes, marker="o", markersize=3, label=name)
ax.set(yscale="log", xlabel="layer", ylabel="root mean square of the outputs (log scale)",
       title="Forward signal through 10 layers of width 256")
ax.legend()
plt.show()
for name, sizes in init.rms.items():
    print(f"{name:>28}: layer 1 {sizes[0]:.3f}, layer 10 {sizes[-1]:.3f}")
print(f"tanh outputs beyond ±0.99 at layer 10: variance 1/n {init.saturated['tanh, variance 1/n (Xavier)']:.3f}, "
      f"variance 1 {init.saturated['tanh, variance 1']:.3f}")

# %% [markdown]
# ReLU at $1/n$ loses a factor $\sqrt2$ per layer ($2^{-5} \approx 0.031$ after ten); He's $2/n$ keeps it near 1.
# Tanh at variance 1 saturates: most outputs sit beyond $\pm0.99$, where tanh's slope $1 - h^2$ is below
# 0.02, so almost no gradient passes back. At $1/n$ tanh never saturates but still shrinks slowly, because
# its slope is below 1 away from 0.
#
# **Dead ReLUs.** A ReLU unit whose input is negative on every training point outputs 0 everywhere, and
# max routes no gradient to it: its weights never change, so it stays dead. Large negative biases (or one
# large step that pushes a bias down) produce such units. Below, a 2-32-1 ReLU network on the XOR blobs
# starts with every hidden bias at $-2$ and is trained by `torch.optim.SGD`.

# %%
dead = experiment.dead_relus(seed=0)
print(f"{dead.dead_at_start} of {dead.width} hidden units are off on every training point at the start; after training "
      f"{dead.dead_after} of them still are. The largest change of a dead unit's weights: {dead.dead_moved:g}; "
      f"of a live unit's: {dead.live_moved:.2f}. Training accuracy {dead.accuracy:.2f}.")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: initialisation and dead units
rms = init.rms
claim(f"relu at variance 1/n shrinks to {rms['relu, variance 1/n'][-1]:.3f} at layer 10, within a factor 2 of "
      f"2^-5 = {2 ** -5:.3f}", 0.5 < rms["relu, variance 1/n"][-1] / 2**-5 < 2)
claim(f"relu at He's 2/n stays near 1: {rms['relu, variance 2/n (He)'][-1]:.2f} at layer 10 (between 0.5 and 2)",
      0.5 < rms["relu, variance 2/n (He)"][-1] < 2)
claim(f"tanh at variance 1 saturates: {init.saturated['tanh, variance 1']:.2f} of its outputs beyond ±0.99 (more than 0.8)",
      init.saturated["tanh, variance 1"] > 0.8)
claim(f"tanh at 1/n does not ({init.saturated['tanh, variance 1/n (Xavier)']:.3f} beyond ±0.99, less than 0.01) but "
      f"shrinks to {rms['tanh, variance 1/n (Xavier)'][-1]:.2f} (between 0.1 and 0.5)",
      init.saturated["tanh, variance 1/n (Xavier)"] < 0.01 and 0.1 < rms["tanh, variance 1/n (Xavier)"][-1] < 0.5)
claim(f"{dead.dead_at_start} units start dead (at least 1), all {dead.dead_after} stay dead, and their weights move by "
      f"exactly {dead.dead_moved:g} while live units' move by up to {dead.live_moved:.2f}",
      dead.dead_at_start >= 1 and dead.dead_after == dead.dead_at_start and dead.dead_moved == 0 and dead.live_moved > 0.1)

# %% [markdown]
# ### Through many layers: vanishing and exploding gradients
#
# (This section writes vectors as columns, $h_k = \phi(W_k h_{k-1})$, as the papers on initialisation do;
# section 6 used rows, $Y = XW$.) In a stack of layers $h_k = \phi(W_k h_{k-1})$, the gradient that reaches layer $l$ has crossed
# every layer above it, and each crossing multiplies it by that layer's Jacobian
# $J_k = \operatorname{diag}\bigl(\phi'(a_k)\bigr)\,W_k$:
#
# $$\frac{\partial \mathcal{L}}{\partial h_l} = \frac{\partial \mathcal{L}}{\partial h_L}\; J_L\, J_{L-1} \cdots J_{l+1} .$$
#
# Many factors a little below 1 make it vanish; many a little above 1 make it explode. For a
# square layer of width $n$ with weights drawn from $\mathcal{N}(0, s^2/n)$, and a gradient $g$ from
# above that is independent of this layer (the assumption of Glorot & Bengio, 2010, and He et al.,
# 2015), on average $\mathbb{E}\,\lVert g\,J_k\rVert^2 = s^2\,\mathbb{E}\bigl[\phi'(a)^2\bigr]\,\lVert g\rVert^2$.
# For ReLU, $\phi'$ is 1 for half of the units, so the factor is $s^2/2$: level at $s = \sqrt2$, He's
# initialisation. The sigmoid's derivative is at most $\tfrac14$, so at $s = 1$ every layer divides
# the gradient by four or more.
#
# `dl4nlp.gradflow.layer_gradient_norms` builds such a network (width 64, float64, 128 random
# inputs), puts on its last layer a loss whose gradient is a random vector independent of the
# network, and measures $\lVert \partial\mathcal{L}/\partial h_l\rVert$ at every layer.

# %%
depth_run = experiment.depth_gradients(seed=0, depth=20)
plain = {name: n for name, n in depth_run.norms.items() if "residual" not in name}
fig, ax = plt.subplots(figsize=(8, 4.5))
plot_gradient_norms(plain, ax=ax, title="Gradient reaching each layer of a 20-layer network")
plt.show()
ratio = depth_run.ratio
for name in plain:
    print(f"{name:>22}: first/last = {ratio[name]:.1e}")
sigmoid_factor = ratio["sigmoid, scale 1"] ** (1 / 19)  # geometric mean over the 19 crossings
print(f"sigmoid: each layer passes on {sigmoid_factor:.3f} of the gradient")

# %% [markdown]
# Read each line from right (the layer next to the loss) to left (the input). Sigmoid at scale 1
# falls by about twelve orders of magnitude; ReLU at scale 1 halves the squared gradient at every
# layer, so it ends near $(1/\sqrt2)^{19} \approx 1.4\times10^{-3}$; tanh at scale 3 explodes. ReLU at
# He's scale $\sqrt2$ and tanh at scale 1 stay within a factor of ten of level.
#
# A **residual connection**, $h_k = h_{k-1} + \alpha\,\phi(W_k h_{k-1})$, makes each factor
# $I + \alpha\operatorname{diag}(\phi'(a_k))\,W_k$: the identity hands the gradient through, and the
# branch adds to it. With sigmoid units the branch is small and the stack stays level; with ReLU at
# $\alpha = 1$ each layer makes the gradient a little *larger*, and over many layers it explodes.
# Scaling every branch by $\alpha = 1/\sqrt{L}$ keeps the product of $L$ factors $(1 + c/L)$ below
# $e^c$ (Fixup, Zhang, Dauphin & Ma, 2019, starts each branch at zero instead; the Transformer of
# chapter 10 normalises inside each block).

# %%
residual = {name: n for name, n in depth_run.norms.items() if "residual" in name}
by_depth = experiment.residual_depths(seed=0)
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2))
plot_gradient_norms(residual, ax=left, title="20 residual layers")
right.plot(by_depth.depths, by_depth.plain, marker="o", label="relu, α = 1")
right.plot(by_depth.depths, by_depth.scaled, marker="s", label="relu, α = 1/√depth")
right.axhline(1.0, color="grey", linestyle="--", linewidth=1)
right.set(yscale="log", xlabel="depth", ylabel="first/last (log scale)", title="how the ratio grows with depth")
right.legend()
plt.show()

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: gradients through 20 layers
claim(f"sigmoid at scale 1 vanishes: first/last {ratio['sigmoid, scale 1']:.1e} (between 1e-13 and 1e-11), each layer "
      f"passing on {sigmoid_factor:.3f} (less than {experiment.SIGMOID_FACTOR})",
      1e-13 < ratio["sigmoid, scale 1"] < 1e-11 and sigmoid_factor < experiment.SIGMOID_FACTOR)
claim(f"relu at scale 1: first/last {ratio['relu, scale 1']:.1e}, within a factor 2 of (1/√2)^19 = {2 ** (-19 / 2):.1e}",
      0.5 < ratio["relu, scale 1"] / 2 ** (-19 / 2) < 2)
claim(f"tanh at scale 3 explodes: first/last {ratio['tanh, scale 3']:.1e} (above {experiment.EXPLODED:g})",
      ratio["tanh, scale 3"] > experiment.EXPLODED)
claim(f"relu at residual α = 1 explodes: first/last {ratio['relu, scale 1, residual']:.1e} (above {experiment.EXPLODED:g})",
      ratio["relu, scale 1, residual"] > experiment.EXPLODED)
for name in ["relu, scale √2 (He)", "tanh, scale 1", "sigmoid, scale 1, residual", "relu, scale 1, residual ÷ √depth"]:
    claim(f"{name} stays level: first/last {ratio[name]:.2f}, within a factor {experiment.LEVEL:g} of 1",
          1 / experiment.LEVEL < ratio[name] < experiment.LEVEL)
claim(f"from depth 10 to 60 the unscaled residual stack's ratio grows {by_depth.plain[-1] / by_depth.plain[0]:.0e}-fold "
      f"(more than 1e6); the scaled one stays below {experiment.SCALED_RESIDUAL_BOUND:g} (at most {max(by_depth.scaled):.2f})",
      by_depth.plain[-1] > 1e6 * by_depth.plain[0] and max(by_depth.scaled) < experiment.SCALED_RESIDUAL_BOUND)

# %% [markdown]
# ### He's scale, and a loss that fools the measurement
#
# The argument assumed a gradient from above that knows nothing of the network. A loss such as
# $\operatorname{mean}(h_L^2)$ breaks that: its gradient $2h_L/(Bn)$ *is* the last
# layer's output, correlated with the forward signal, so the layers nearest the loss no longer
# multiply it by the random-matrix factor. We compare the two losses on the *same* ReLU networks at
# He's scale (12 networks at each depth; `dl4nlp.experiments.backprop.he_scale`).

# %%
he = experiment.he_scale(seed=0)
print(f"{'depth':>5} {'independent upstream':>22} {'squared output':>16} {'excess (same network)':>22}")
for i, depth in enumerate(he.depths):
    print(f"{depth:5d} {he.median_ratio['independent'][i]:22.2f} {he.median_ratio['squared'][i]:16.2f} "
          f"{he.median_excess[i]:22.2f}")
print(f"share of log(excess) from the {experiment.TOP_LAYERS} layers nearest the loss (depth 20): {he.top_share:.2f}")
print(f"median level scale at depth 30: independent upstream {he.level_scale['independent']:.3f}, "
      f"squared output {he.level_scale['squared']:.3f}  (√2 = {math.sqrt(2):.3f})")

# %% [markdown]
# With the independent gradient, first/last at $\sqrt2$ stays within a factor of 3 of 1 at every
# depth, and the scale that makes a 30-layer network exactly level is within 0.03 of $\sqrt2$. The
# squared loss multiplies the ratio by 4.5 to 8.5 on the same networks, about half of it (in log)
# from the three layers nearest the loss, and would have put the level scale near 1.33: the theory
# would have looked wrong when the measurement was.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The independent-upstream medians fall slowly with depth (from about 1.0 at depth 20 to
# about 0.7 at depth 60 here) although the argument keeps the *average squared* gradient level at $\sqrt2$: on
# a network of finite width each layer's factor fluctuates, the logarithms of the factors add up, and
# a typical network drifts below the average, the more so the deeper it is.

# %% [markdown]
# **Exercise 9.** A ReLU network without biases is *positively homogeneous*: $\operatorname{relu}(c\,z) = c\,\operatorname{relu}(z)$
# for $c > 0$, so multiplying every weight by $c$ multiplies each Jacobian by $c$ and the first/last
# ratio of an $L$-layer network by exactly $c^{L-1}$. Use this to compute, from one measurement at
# $\sqrt2$, the scale at which the 30-layer network `layer_gradient_norms(30, "relu", scale, seed=0)`
# is exactly level. The check finds that scale by bisection, measuring the network at every step
# (the two agree to $10^{-6}$: the weights are drawn in float32, so scaling them is exact only up to
# float32 rounding).

# %%
def level_scale(depth, seed=0):
    ratio_at_sqrt2 = first_over_last(layer_gradient_norms(depth, "relu", math.sqrt(2), seed=seed))
    # your code here: the scale s with first/last = 1, from ratio_at_sqrt2 alone
    raise NotImplementedError


def level_scale_by_bisection(depth, seed=0, low=1.0, high=2.0):
    for _ in range(40):  # first/last grows with the scale: keep the half that brackets 1
        middle = (low + high) / 2
        if first_over_last(layer_gradient_norms(depth, "relu", middle, seed=seed)) < 1:
            low = middle
        else:
            high = middle
    return (low + high) / 2


bisection_answer = level_scale_by_bisection(30)
check("Exercise 9", lambda: level_scale(30), bisection_answer, atol=1e-6);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 9
def level_scale(depth, seed=0):
    ratio_at_sqrt2 = first_over_last(layer_gradient_norms(depth, "relu", math.sqrt(2), seed=seed))
    # ratio(s) = ratio(√2) (s / √2)^(depth - 1) = 1  <=>  s = √2 · ratio(√2)^(-1 / (depth - 1))
    return math.sqrt(2) * ratio_at_sqrt2 ** (-1 / (depth - 1))


assert check("Exercise 9", lambda: level_scale(30), bisection_answer, atol=1e-6)

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: He's scale and the squared loss (medians over 12 networks)
for i, depth in enumerate(he.depths):
    claim(f"depth {depth}: independent upstream {he.median_ratio['independent'][i]:.2f} (within a factor "
          f"{experiment.HE_LEVEL:g} of 1), squared output {he.median_ratio['squared'][i]:.2f} (between "
          f"{experiment.SQUARED_RATIO[0]:g} and {experiment.SQUARED_RATIO[1]:g}), excess {he.median_excess[i]:.2f} "
          f"(between {experiment.SQUARED_EXCESS[0]:g} and {experiment.SQUARED_EXCESS[1]:g})",
          1 / experiment.HE_LEVEL < he.median_ratio["independent"][i] < experiment.HE_LEVEL
          and experiment.SQUARED_RATIO[0] < he.median_ratio["squared"][i] < experiment.SQUARED_RATIO[1]
          and experiment.SQUARED_EXCESS[0] < he.median_excess[i] < experiment.SQUARED_EXCESS[1])
claim(f"the {experiment.TOP_LAYERS} layers nearest the loss carry {he.top_share:.2f} of log(excess) (between 0.4 and 0.7)",
      0.4 < he.top_share < 0.7)
medians = he.median_ratio["independent"]
claim(f"the independent-upstream medians fall with depth: {', '.join(f'{v:.2f}' for v in medians)} (from within 0.05 "
      "of 1.0 at depth 20 to within 0.05 of 0.7 at depth 60)",
      list(medians) == sorted(medians, reverse=True) and abs(medians[0] - 1.0) < 0.05 and abs(medians[-1] - 0.7) < 0.05)
claim(f"level scale at depth 30: {he.level_scale['independent']:.3f}, within {experiment.SCALE_TOLERANCE} of √2; "
      f"the squared loss's {he.level_scale['squared']:.3f} is below √2 - {experiment.SCALE_TOLERANCE}",
      abs(he.level_scale["independent"] - math.sqrt(2)) < experiment.SCALE_TOLERANCE
      and he.level_scale["squared"] < math.sqrt(2) - experiment.SCALE_TOLERANCE)

# %% [markdown]
# ### Play with it
#
# Change the depth, the activation, the weight scale, the residual branch and the loss. Find, for
# each activation, the scale at which the line is flat; then switch the loss to "squared output"
# and watch the top layers.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The figure below the controls is redrawn on every change (a depth-60 network takes a
# few hundredths of a second); an input the library rejects is explained there.

# %%
interactive_figure(
    experiment.depth_figure(),
    depth=widgets.IntSlider(value=20, min=2, max=60, description="depth"),
    activation=widgets.Dropdown(options=["sigmoid", "tanh", "relu"], value="relu", description="activation"),
    weight_scale=widgets.FloatSlider(value=1.0, min=0.25, max=4.0, step=0.05, description="weight scale"),
    residual=widgets.Dropdown(options=list(experiment.RESIDUAL_CHOICES), value="none", description="residual"),
    loss=widgets.Dropdown(options=list(experiment.LOSS_CHOICES), value="independent upstream", description="loss"),
)

# %% [markdown]
# ### More exercises
#
# **Exercise 10.** For $g(a, b) = a\,b + \tanh(a)$, compute $\partial g/\partial a$ and $\partial g/\partial b$ at
# $a = 0.5$, $b = -1.5$ with a forward and a backward pass written by hand (no `Value`, no
# autograd), using $\tanh'(u) = 1 - \tanh^2(u)$. Return them as a pair.

# %%
def exercise_10():
    a, b = 0.5, -1.5
    # your forward and backward pass here
    raise NotImplementedError


# The reference comes from torch.autograd, so the check gives nothing away.
_a = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
_b = torch.tensor(-1.5, dtype=torch.float64, requires_grad=True)
(_a * _b + torch.tanh(_a)).backward()
exercise_10_reference = {"dg/da": _a.grad.item(), "dg/db": _b.grad.item()}
check("Exercise 10", lambda: dict(zip(exercise_10_reference, exercise_10())), exercise_10_reference);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 10
def exercise_10():
    a, b = 0.5, -1.5
    u = math.tanh(a)  # forward
    g = a * b + u
    dg_da = 1.0 * b + 1.0 * (1 - u**2)  # two paths reach a: through a*b and through tanh(a)
    dg_db = 1.0 * a
    return dg_da, dg_db


assert check("Exercise 10", lambda: dict(zip(exercise_10_reference, exercise_10())), exercise_10_reference)

# %% [markdown]
# **Exercise 11.** Build $\operatorname{softplus}(u) = \log(1 + e^u)$ as a composite of `Value` operations,
# *without* editing the library (from `exp`, `+` and `log`: several nodes, not one new node), then return
# $d\,\operatorname{softplus}(u)/du$ at $u = 0.3$ computed by `.backward()`. (What closed form should it equal?)

# %%
def exercise_11():
    u = Value(0.3)
    # build softplus(u) from Value operations, call backward, return u.grad
    raise NotImplementedError


check("Exercise 11", exercise_11, torch.sigmoid(torch.tensor(0.3, dtype=torch.float64)));

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 11
def exercise_11():
    u = Value(0.3)
    softplus = (1 + u.exp()).log()
    softplus.backward()
    return u.grad  # equals sigmoid(0.3): the derivative of softplus is the sigmoid


assert check("Exercise 11", exercise_11, torch.sigmoid(torch.tensor(0.3, dtype=torch.float64)))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Check your understanding
#
# A few questions to answer without code, about what this chapter showed. Click an answer to see whether it is right and why; the section named under each question is where the chapter shows it.

# %%
from dl4nlp import quiz

quiz.show("01")

# %% [markdown] slideshow={"slide_type": "skip"}
# ## Instructor notes
#
# - Nothing in this chapter is trained beforehand. The XOR-blobs MLP (`experiments.backprop.xor_mlp`)
#   trains in a few seconds when the notebook runs, and so does the same network from equal weights
#   (`symmetric_start`, the slowest addition: one more scalar-engine training). The whole notebook ran in
#   15.4 s on the idle bench machine before the issue-24 additions; timed side by side on a loaded machine,
#   the added cells cost about 1.2 times what `xor_mlp` costs, so the opening's "about 25 s" leaves a margin.
#   Rerun `make bench` on an idle machine for the real figure.
# - Claims across seeds: `tests/claims/test_01_backprop.py` repeats the XOR claims (training accuracy 1,
#   fresh accuracy above 0.95, linear model below 0.8, disjoint sets), the equal-weight start (hidden units
#   stay identical, fresh accuracy below 0.8), PyTorch's twin training (the engine's weights to 40 passes'
#   rounding), the initialisation statistics and dead units, the depth and residual ratios,
#   and the He-scale/squared-loss medians (and that the independent medians fall with depth) on the
#   claim seeds.
# - Float64 agreement is checked with `dl4nlp.numerics.agree` (or `rounding_tolerance`) with the size
#   of the computation as the number of terms: the number of nodes of the scalar graph (27 for
#   `bigger`, about 1,600 for the MLP's loss on 20 points), or N·(D + hidden + C) for the matrix MLP.
#   The former checks used an absolute 1e-12 everywhere; the derived tolerances are tighter for every
#   check except exercise 7 (three passes through the graph: about 1e-12, with no relative tolerance,
#   where the former check added 1e-5 times the weight).
# - The sigmoid neuron: the lecture's slides multiply the rounded local gradient 0.2 (their $x_0$ line
#   reads 0.2 × 2 = 0.4; so $w_1$ = −0.4 and $x_1$ = −0.6), while the CS231n notes print the exact values
#   rounded (0.39, −0.59). The notebook prints both and checks each against its own arithmetic.
# - Going further's initialisation study (`activation_statistics`, `dead_relus`) is float64 and not chaotic: a dead
#   unit's gradient is exactly 0, so its weights do not move on any machine; the claims test repeats it on the claim seeds.
# - The depth study (formerly section 7 of the main line) is in *Going further*; its numbers are
#   deterministic float64 computations on random networks (weights drawn in float32), not training runs,
#   so they do not move between CPU kernel configurations beyond the last digits.
