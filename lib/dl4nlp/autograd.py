"""A scalar reverse-mode autodiff engine, small enough to read in one sitting.

``Value`` wraps one float, remembers which operation produced it from which
inputs, and ``backward()`` walks that graph in reverse topological order,
multiplying each node's upstream gradient by its local gradient. The names
follow PyTorch (``.data``, ``.grad``, ``.backward()``) so that the same
expression can be checked against ``torch.autograd``. Taught in notebook 01.

>>> x, y, z = Value(-2.0), Value(5.0), Value(-4.0)
>>> f = (x + y) * z
>>> f.backward()
>>> f.data, x.grad, y.grad, z.grad
(-12.0, -4.0, -4.0, 3.0)
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Tuple, Union

Number = Union[int, float]


class Value:
    """One scalar in a computational graph, with its gradient.

    ``op`` names the operation that made it ('' for a leaf) and ``inputs`` holds
    the Values it was computed from; ``label`` is an optional name for drawing.
    """

    __slots__ = ("data", "grad", "inputs", "op", "label", "_backward")

    def __init__(self, data: Number, inputs: Tuple[Value, ...] = (), op: str = "", label: str = ""):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError(f"Value data must be an int or float; got {type(data).__name__} {data!r}")
        if not math.isfinite(data):
            raise ValueError(f"Value data must be a finite number; got {data!r}")
        bad = [x for x in inputs if not isinstance(x, Value)]
        if bad:
            raise TypeError(f"Value inputs must be Values; got {type(bad[0]).__name__} {bad[0]!r}")
        self.data = float(data)
        self.grad = 0.0
        self.inputs = tuple(inputs)
        self.op = op
        self.label = label
        self._backward: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        name = f"{self.label}=" if self.label else ""
        return f"Value({name}{self.data:.4g}, grad={self.grad:.4g})"

    @staticmethod
    def _lift(other: Union[Value, Number]) -> Value:
        return other if isinstance(other, Value) else Value(other)

    # --- primitive operations: each sets how its inputs' gradients accumulate ---
    def __add__(self, other: Union[Value, Number]) -> Value:
        other = self._lift(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward() -> None:  # d(a+b)/da = d(a+b)/db = 1
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other: Union[Value, Number]) -> Value:
        other = self._lift(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward() -> None:  # d(ab)/da = b, d(ab)/db = a
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, exponent: Number) -> Value:
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError(f"Value ** expects a constant int or float exponent; got {exponent!r}")
        if self.data == 0 and exponent < 0:
            raise ValueError(f"{self.data} ** {exponent} is a division by zero: the base must not be 0 here")
        if self.data < 0 and not float(exponent).is_integer():
            raise ValueError(f"{self.data} ** {exponent} is not a real number: a negative base needs a whole exponent")
        out = Value(self.data**exponent, (self,), f"**{exponent:g}")

        def _backward() -> None:  # d(a^n)/da = n a^(n-1)
            self.grad += exponent * self.data ** (exponent - 1) * out.grad

        out._backward = _backward
        return out

    def exp(self) -> Value:
        if self.data > 709.78:  # math.exp overflows a float beyond log(max float)
            raise ValueError(f"exp({self.data}) overflows a float; the argument must be at most about 709.78")
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward() -> None:  # d(e^a)/da = e^a
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self) -> Value:
        if self.data <= 0:
            raise ValueError(f"log expects a positive value; got {self.data}")
        out = Value(math.log(self.data), (self,), "log")

        def _backward() -> None:  # d(log a)/da = 1/a
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def tanh(self) -> Value:
        out = Value(math.tanh(self.data), (self,), "tanh")

        def _backward() -> None:  # d tanh(a)/da = 1 - tanh(a)^2
            self.grad += (1.0 - out.data**2) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self) -> Value:
        out = Value(_stable_sigmoid(self.data), (self,), "sigmoid")

        def _backward() -> None:  # d sigma(a)/da = sigma(a) (1 - sigma(a)), from the cached output
            self.grad += out.data * (1.0 - out.data) * out.grad

        out._backward = _backward
        return out

    def relu(self) -> Value:
        out = Value(max(0.0, self.data), (self,), "relu")

        def _backward() -> None:  # 1 where the input was positive, else 0 (PyTorch's choice at 0)
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad

        out._backward = _backward
        return out

    # --- composites, built from the primitives above ---
    def __neg__(self) -> Value:
        return self * -1

    def __sub__(self, other: Union[Value, Number]) -> Value:
        return self + (-self._lift(other))

    def __truediv__(self, other: Union[Value, Number]) -> Value:
        return self * self._lift(other) ** -1

    def __radd__(self, other: Number) -> Value:
        return self + other

    def __rmul__(self, other: Number) -> Value:
        return self * other

    def __rsub__(self, other: Number) -> Value:
        return self._lift(other) - self

    def __rtruediv__(self, other: Number) -> Value:  # c / x: the gate "1/x" (CS231n's), times c unless c is 1
        return self**-1 if other == 1 else self**-1 * other

    # --- the backward pass ---
    def backward(self) -> None:
        """Fill ``.grad`` of every Value this one depends on with d(self)/d(that Value).

        Gradients accumulate (as in PyTorch): call ``zero_grad`` between passes.
        """
        order = topological_order(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()


def _stable_sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def topological_order(root: Value) -> list[Value]:
    """Every node that ``root`` depends on, each listed after all of its inputs.

    A node is a ``Value`` or any engine's node with a tuple of ``.inputs``
    (notebook 01's ``Scalar`` orders its graph with this function).
    """
    if not hasattr(root, "inputs"):
        raise TypeError(
            f"root must be a graph node, a Value (anything with .inputs); got {type(root).__name__} {root!r:.60}"
        )
    order: list[Value] = []
    seen: set[int] = set()
    stack: list[tuple[Value, bool]] = [(root, False)]
    while stack:  # iterative depth-first search, so deep graphs do not hit the recursion limit
        node, inputs_done = stack.pop()
        if inputs_done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for parent in node.inputs:
            if not hasattr(parent, "inputs"):
                raise TypeError(
                    f"every input of a graph node must be a node (with .inputs); {node!r:.40} has an input "
                    f"{type(parent).__name__} {parent!r:.40}"
                )
            if id(parent) not in seen:
                stack.append((parent, False))
    return order


def zero_grad(values: Iterable[Value]) -> None:
    """Reset ``.grad`` to 0 for each of ``values``."""
    if isinstance(values, (Value, str)) or not isinstance(values, Iterable):
        raise TypeError(f"values must be an iterable of Values; got {type(values).__name__} {values!r:.60}")
    values = list(values)
    bad = [v for v in values if not hasattr(v, "grad")]
    if bad:
        raise TypeError(f"values must hold Values (nodes with .grad) only; got {type(bad[0]).__name__} {bad[0]!r:.60}")
    for value in values:
        value.grad = 0.0


def engine_gradients(build: Callable[..., object], inputs: Iterable[float], value_type: type = Value) -> list[float]:
    """``[f, df/dx_1, ..., df/dx_n]`` for ``f = build(x_1, ..., x_n)`` computed by a scalar engine.

    ``value_type`` is the engine's class (``Value``, or the one a student writes in
    notebook 01): it must take a float, and its results must have ``.data``,
    ``.grad`` and ``.backward()``. Compare with ``torch_gradients`` of the same ``build``.

    >>> engine_gradients(lambda a, b: a * b + a, [2.0, -3.0])
    [-4.0, -2.0, 2.0]
    """
    if not callable(build):
        raise TypeError(f"build must be a function of the inputs; got {type(build).__name__}")
    if isinstance(inputs, (str, bytes)):
        raise TypeError(f"inputs must be a list of numbers; got {type(inputs).__name__} {inputs!r:.40}")
    values = [float(x) for x in inputs]
    if not values or not all(math.isfinite(x) for x in values):
        raise ValueError(f"inputs must be a non-empty list of finite numbers; got {values}")
    leaves = [value_type(x) for x in values]
    if not all(hasattr(leaves[0], name) for name in ("data", "grad", "backward")):
        got = getattr(value_type, "__name__", type(value_type).__name__)
        raise TypeError(f"value_type must be a scalar engine's class, with .data, .grad and .backward(); got {got}")
    out = build(*leaves)
    if not all(hasattr(out, name) for name in ("data", "grad", "backward")):
        got = type(out).__name__
        raise TypeError(f"build must return an engine value with .data, .grad and .backward(); got {got}")
    out.backward()
    return [float(out.data)] + [float(leaf.grad) for leaf in leaves]


def torch_gradients(build: Callable[..., object], inputs: Iterable[float]) -> list[float]:
    """The reference for ``engine_gradients``: the same list computed by ``torch.autograd`` in float64.

    ``build`` may use ``+ - * / **``, ``.exp()``, ``.log()``, ``.tanh()``, ``.sigmoid()`` and ``.relu()``,
    which PyTorch's tensors share with ``Value``.

    >>> torch_gradients(lambda a, b: a * b + a, [2.0, -3.0])
    [-4.0, -2.0, 2.0]
    """
    import torch  # local import: the engine itself needs only the standard library

    if not callable(build):
        raise TypeError(f"build must be a function of the inputs; got {type(build).__name__}")
    if isinstance(inputs, (str, bytes)):
        raise TypeError(f"inputs must be a list of numbers; got {type(inputs).__name__} {inputs!r:.40}")
    values = [float(x) for x in inputs]
    if not values or not all(math.isfinite(x) for x in values):
        raise ValueError(f"inputs must be a non-empty list of finite numbers; got {values}")
    leaves = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in values]
    out = build(*leaves)
    if not isinstance(out, torch.Tensor) or out.numel() != 1:
        got = f"shape {tuple(out.shape)}" if isinstance(out, torch.Tensor) else type(out).__name__
        raise ValueError(f"build must return one number (a scalar tensor here); got {got}")
    grads = torch.autograd.grad(out, leaves, allow_unused=True)
    return [out.item()] + [0.0 if g is None else g.item() for g in grads]
