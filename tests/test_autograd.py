"""dl4nlp.autograd.Value against hand-worked examples and torch.autograd."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.autograd import Value, engine_gradients, topological_order, torch_gradients, zero_grad


def test_lecture_example_add_multiply():
    x, y, z = Value(-2.0), Value(5.0), Value(-4.0)
    f = (x + y) * z
    f.backward()
    assert (f.data, x.grad, y.grad, z.grad) == (-12.0, -4.0, -4.0, 3.0)


def test_sigmoid_neuron_matches_closed_form():
    w0, w1, w2, x0, x1 = (Value(v) for v in (2.0, -3.0, -3.0, -1.0, -2.0))
    out = (w0 * x0 + w1 * x1 + w2).sigmoid()
    out.backward()
    s = 1 / (1 + math.exp(-1))
    local = s * (1 - s)
    assert out.data == pytest.approx(s, abs=1e-15)
    assert [w0.grad, x0.grad, w1.grad, x1.grad, w2.grad] == pytest.approx(
        [-local, 2 * local, -2 * local, -3 * local, local], abs=1e-15
    )


def test_shared_node_accumulates_gradient():
    a = Value(3.0)
    f = a * a + a  # df/da = 2a + 1
    f.backward()
    assert a.grad == 7.0


def test_gradients_accumulate_across_backward_calls_like_pytorch():
    a = Value(2.0)
    (a * 3).backward()
    (a * 3).backward()
    assert a.grad == 6.0
    zero_grad([a])
    assert a.grad == 0.0


def test_deep_graph_does_not_hit_recursion_limit():
    x = Value(0.5)
    y = x
    for _ in range(5000):
        y = y * 1.0
    y.backward()
    assert x.grad == 1.0
    assert len(topological_order(y)) == 10001  # 5000 products, 5000 constants, x


class Node:
    """A node of another scalar engine (as notebook 01's students write): data, grad, inputs, op; no label."""

    def __init__(self, data, inputs=(), op=""):
        self.data, self.grad, self.inputs, self.op = data, 0.0, tuple(inputs), op


def test_topological_order_and_zero_grad_take_any_engines_nodes():
    a, b = Node(2.0), Node(3.0)
    product = Node(6.0, (a, b), "*")
    f = Node(8.0, (product, a), "+")
    order = topological_order(f)
    assert order.index(a) < order.index(product) < order.index(f) and order.index(b) < order.index(product)
    assert len(order) == 4
    a.grad = 1.0
    zero_grad(order)
    assert a.grad == 0.0
    with pytest.raises(TypeError, match="input float 2.0"):
        topological_order(Node(2.0, (2.0,), "exp"))


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="data must be an int or float; got str"):
        Value("1")
    with pytest.raises(TypeError, match="exponent"):
        Value(2.0) ** Value(2.0)
    with pytest.raises(ValueError, match="positive value; got -1"):
        Value(-1.0).log()


def test_relu_gradient_at_zero_is_zero_like_pytorch():
    a = Value(0.0)
    a.relu().backward()
    t = torch.tensor(0.0, requires_grad=True)
    torch.relu(t).backward()
    assert a.grad == t.grad.item() == 0.0


# --- property-based: random expressions, evaluated by Value and by torch -------
UNARY = ["exp", "tanh", "sigmoid", "relu", "neg", "square", "softlog"]
BINARY = ["add", "sub", "mul", "div"]


@st.composite
def expressions(draw, depth=4):
    """A random expression tree over three variables, as nested tuples."""
    if depth == 0 or draw(st.booleans()) and depth < 4:
        return ("var", draw(st.integers(0, 2)))
    if draw(st.booleans()):
        return (draw(st.sampled_from(UNARY)), draw(expressions(depth=depth - 1)))
    return (draw(st.sampled_from(BINARY)), draw(expressions(depth=depth - 1)), draw(expressions(depth=depth - 1)))


def evaluate(tree, variables, is_torch):
    op, *args = tree
    if op == "var":
        return variables[args[0]]
    values = [evaluate(a, variables, is_torch) for a in args]
    if op in BINARY:
        a, b = values
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return a * b
        return a / (b * b + 1.0)  # keep the denominator away from zero
    (a,) = values
    if op == "neg":
        return -a
    if op == "square":
        return a**2
    if op == "softlog":  # log(1 + a^2): exercises log on positive inputs only
        return (a * a + 1.0).log()
    if op == "exp":  # tanh first so exp never overflows
        return a.tanh().exp() if not is_torch else torch.exp(torch.tanh(a))
    return getattr(a, op)() if not is_torch else getattr(torch, op)(a)


@settings(max_examples=300, deadline=None)
@given(tree=expressions(), inputs=st.lists(st.floats(-3, 3).filter(lambda v: abs(v) > 1e-3), min_size=3, max_size=3))
def test_random_expressions_match_torch_autograd(tree, inputs):
    values = [Value(v) for v in inputs]
    tensors = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in inputs]
    out_value = evaluate(tree, values, is_torch=False)
    out_tensor = evaluate(tree, tensors, is_torch=True)
    if not isinstance(out_value, Value):  # the tree is a bare variable
        return
    out_value.backward()
    out_tensor.backward()
    assert out_value.data == pytest.approx(out_tensor.item(), rel=1e-9, abs=1e-12)
    for v, t in zip(values, tensors):
        expected = 0.0 if t.grad is None else t.grad.item()
        assert v.grad == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_engine_gradients_match_torch_gradients_on_every_operation():
    def build(a, b, c):
        return ((a * b + c**2).tanh() * (-a).exp() + (b - c).relu() + (a * a + 1).log() - b / (1 + c * c)).sigmoid()

    for inputs in ([0.3, -1.2, 0.7], [-0.5, 0.4, -1.1]):
        assert engine_gradients(build, inputs) == pytest.approx(torch_gradients(build, inputs), abs=1e-12)


def test_engine_gradients_name_bad_input():
    with pytest.raises(TypeError, match="build must be a function"):
        engine_gradients("a + b", [1.0])
    with pytest.raises(ValueError, match="non-empty list of finite numbers"):
        engine_gradients(lambda a: a, [])
    with pytest.raises(ValueError, match="non-empty list of finite numbers"):
        torch_gradients(lambda a: a, [float("nan")])
    with pytest.raises(TypeError, match="engine value with .data, .grad and .backward"):
        engine_gradients(lambda a: 3.0, [1.0])
