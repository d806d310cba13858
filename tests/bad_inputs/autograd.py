"""Bad inputs of dl4nlp.autograd."""

import math

import torch

from bad_inputs.harness import cases, exempt
from dl4nlp.autograd import Value, topological_order, zero_grad


@cases("dl4nlp.autograd.Value")
def _():
    yield "data: a string", lambda: Value("2"), ("data", "str")
    yield "data: a bool", lambda: Value(True), ("data", "True")
    yield "data: None", lambda: Value(None), ("data", "None")
    yield "data: a list", lambda: Value([1.0]), ("data", "list")
    yield "data: a tensor", lambda: Value(torch.tensor(1.0)), ("data", "Tensor")
    yield "data: NaN", lambda: Value(math.nan), ("data", "nan")
    yield "data: inf", lambda: Value(math.inf), ("data", "inf")
    yield "inputs: a float, not a Value", lambda: Value(1.0, inputs=(2.0,)), ("inputs", "float")
    yield "a + a string", lambda: Value(1.0) + "a", ("str", "'a'")
    yield "a / 0", lambda: Value(1.0) / 0, ("division", "0")
    yield "0 ** -1", lambda: Value(0.0) ** -1, ("0.0", "-1")
    yield "(-8) ** 0.5 (a complex number)", lambda: Value(-8.0) ** 0.5, ("-8.0", "0.5")
    yield "a ** a string", lambda: Value(2.0) ** "x", ("exponent", "'x'")
    yield "a ** a Value", lambda: Value(2.0) ** Value(3.0), ("exponent", "Value")


@cases("dl4nlp.autograd.Value.exp")
def _():
    yield "overflows a float (exp of 1000)", lambda: Value(1000.0).exp(), ("exp", "1000")


@cases("dl4nlp.autograd.Value.log")
def _():
    yield "log of 0", lambda: Value(0.0).log(), ("log", "0.0")
    yield "log of -1", lambda: Value(-1.0).log(), ("log", "-1.0")


exempt(
    "defined for every finite float, and Value() admits only finite floats: no input of these can be bad",
    "dl4nlp.autograd.Value.tanh",
    "dl4nlp.autograd.Value.sigmoid",
    "dl4nlp.autograd.Value.relu",
    "dl4nlp.autograd.Value.backward",
)


@cases("dl4nlp.autograd.topological_order")
def _():
    yield "root: a string", lambda: topological_order("f"), ("root", "str")
    yield "root: a float", lambda: topological_order(1.0), ("root", "float")
    yield "root: a tensor", lambda: topological_order(torch.tensor(1.0)), ("root", "Tensor")
    yield "root: a node of another engine with a float among its inputs", _node_with_a_float_input, ("input", "float")


def _node_with_a_float_input():
    class Node:  # another engine's node, as notebook 01's Scalar, whose op stored a number, not a node
        def __init__(self, data, inputs=()):
            self.data, self.grad, self.inputs = data, 0.0, tuple(inputs)

    return topological_order(Node(2.0, (Node(1.0), 3.0)))


@cases("dl4nlp.autograd.zero_grad")
def _():
    yield "values: one Value, not a list", lambda: zero_grad(Value(1.0)), ("values", "Value")
    yield "values: floats", lambda: zero_grad([1.0, 2.0]), ("values", "float")
    yield "values: a string", lambda: zero_grad("ab"), ("values", "str")
