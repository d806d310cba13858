"""Backpropagation through time written out by hand for a vanilla RNN language model.

The model (notebook 03), for inputs x(t) (B, I), targets y(t) (B,), t = 1..T:

    z(t) = x(t) W_eᵀ + h(t-1) W_hᵀ + b          (B, H)
    h(t) = tanh(z(t))                            (B, H), h(0) given (zeros by default)
    s(t) = h(t) Uᵀ + c                           (B, V), scores of the next token
    J    = Σ_t Σ_batch -log softmax(s(t))[y(t)]  the loss summed over time and batch

The backward pass, from the last step to the first (δ is a gradient of J):

    δs(t) = softmax(s(t)) - onehot(y(t))                 (B, V)
    δh(t) = δs(t) U + δz(t+1) W_h,   δz(T+1) = 0         (B, H)   two paths reach h(t)
    δz(t) = δh(t) ⊙ (1 - h(t)²)                          (B, H)   tanh' = 1 - tanh²
    ∂J/∂W_h = Σ_t δz(t)ᵀ h(t-1),  ∂J/∂W_e = Σ_t δz(t)ᵀ x(t),  ∂J/∂b = Σ_t Σ_batch δz(t)
    ∂J/∂U   = Σ_t δs(t)ᵀ h(t),    ∂J/∂c   = Σ_t Σ_batch δs(t)

Every weight is shared by all steps, so its gradient is a *sum over time* of
one contribution per step. ``rnn_lm_gradients`` implements exactly this and is
tested against ``torch.autograd`` in float64 (tests/test_bptt.py).

>>> params = init_rnn_lm_params(input_size=3, hidden_size=4, vocab_size=5, generator=torch.Generator().manual_seed(0))
>>> x = torch.randn(2, 6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
>>> loss, grads = rnn_lm_gradients(params, x, torch.zeros(2, 6, dtype=torch.long))
>>> sorted(grads), tuple(grads["W_h"].shape)
(['U', 'W_e', 'W_h', 'b', 'c', 'h0', 'x'], (4, 4))
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import torch

from dl4nlp._checks import check_callable, check_tensor, check_type

PARAMETER_NAMES = ("W_e", "W_h", "b", "U", "c")


def init_rnn_lm_params(
    input_size: int, hidden_size: int, vocab_size: int, generator: Optional[torch.Generator] = None
) -> dict[str, torch.Tensor]:
    """Random float64 parameters W_e (H, I), W_h (H, H), b (H,), U (V, H), c (V,), uniform in ±1/sqrt(H)."""
    for name, value in [("input_size", input_size), ("hidden_size", hidden_size), ("vocab_size", vocab_size)]:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    if generator is not None:
        check_type("generator", generator, torch.Generator, "a torch.Generator or None")
    bound = hidden_size**-0.5
    shapes = {
        "W_e": (hidden_size, input_size),
        "W_h": (hidden_size, hidden_size),
        "b": (hidden_size,),
        "U": (vocab_size, hidden_size),
        "c": (vocab_size,),
    }
    return {
        name: (torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1) * bound
        for name, shape in shapes.items()
    }


def _check_params_and_x(params: dict[str, torch.Tensor], x: torch.Tensor, h0: Optional[torch.Tensor]) -> None:
    """params of the shapes PARAMETER_NAMES need (finite floats), x (B, T, I) floats, h0 (B, H) or None."""
    if not isinstance(params, dict) or sorted(params) != sorted(PARAMETER_NAMES):
        got = sorted(params) if isinstance(params, dict) else type(params).__name__
        raise ValueError(f"params must be a dict with keys {sorted(PARAMETER_NAMES)}; got {got}")
    hidden, inputs = params["W_e"].shape if params["W_e"].dim() == 2 else (None, None)
    vocab = params["U"].shape[0] if params["U"].dim() == 2 else None
    expected = {"W_e": (hidden, inputs), "W_h": (hidden, hidden), "b": (hidden,), "U": (vocab, hidden), "c": (vocab,)}
    for name, shape in expected.items():
        if None in shape or tuple(params[name].shape) != shape:
            raise ValueError(f"params[{name!r}] must have shape {shape}; got {tuple(params[name].shape)}")
    for name in PARAMETER_NAMES:
        check_tensor(f"params[{name!r}]", params[name], dtype="float", finite=True)
    dtypes = {name: str(params[name].dtype).replace("torch.", "") for name in PARAMETER_NAMES}
    if len(set(dtypes.values())) > 1:
        raise TypeError(f"params must share one dtype; got {dtypes}")
    dtype = params["W_e"].dtype
    if not isinstance(x, torch.Tensor) or x.dim() != 3 or x.shape[2] != inputs or x.shape[0] < 1 or x.shape[1] < 1:
        got = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
        raise ValueError(f"x must have shape (B, T, {inputs}) with B, T >= 1; got {got}")
    check_tensor("x", x, dtype="float", finite=True)
    if h0 is not None:
        check_tensor(
            "h0", h0, shape=(x.shape[0], hidden), dtype="float", finite=True, expected=f"(B={x.shape[0]}, {hidden})"
        )
    for name, tensor in (("x", x), ("h0", h0)):
        if tensor is not None and tensor.dtype != dtype:
            raise TypeError(f"{name} must have the params' dtype, {dtype}; got {tensor.dtype}")


def check_rnn_lm_inputs(
    params: dict[str, torch.Tensor], x: torch.Tensor, targets: torch.Tensor, h0: Optional[torch.Tensor] = None
) -> None:
    """Raise an error unless params, x (B, T, I), targets (B, T) and h0 (B, H) (if given) fit together."""
    _check_params_and_x(params, x, h0)
    vocab = params["U"].shape[0]
    if not isinstance(targets, torch.Tensor) or tuple(targets.shape) != tuple(x.shape[:2]):
        got = tuple(targets.shape) if isinstance(targets, torch.Tensor) else type(targets).__name__
        raise ValueError(f"targets must have shape {tuple(x.shape[:2])}; got {got}")
    if targets.dtype != torch.long or targets.min() < 0 or targets.max() >= vocab:
        raise ValueError(
            f"targets must be int64 token ids in [0, {vocab}); got {targets.dtype} in "
            f"[{targets.min().item()}, {targets.max().item()}]"
        )


def rnn_lm_forward(
    params: dict[str, torch.Tensor], x: torch.Tensor, h0: Optional[torch.Tensor] = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Hidden states h(0..T) (B, T+1, H) and scores s(1..T) (B, T, V); differentiable by autograd."""
    _check_params_and_x(params, x, h0)
    h = x.new_zeros(x.shape[0], params["W_h"].shape[0]) if h0 is None else h0  # (B, H)
    states, scores = [h], []
    for t in range(x.shape[1]):
        h = torch.tanh(x[:, t] @ params["W_e"].T + h @ params["W_h"].T + params["b"])  # (B, H)
        states.append(h)
        scores.append(h @ params["U"].T + params["c"])  # (B, V)
    return torch.stack(states, dim=1), torch.stack(scores, dim=1)


def rnn_lm_gradients(
    params: dict[str, torch.Tensor], x: torch.Tensor, targets: torch.Tensor, h0: Optional[torch.Tensor] = None
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The summed loss J and its gradient with respect to every parameter, x and h0, by hand (no autograd).

    Returns ``(J, grads)`` with ``grads`` keyed by 'W_e', 'W_h', 'b', 'U', 'c', 'x', 'h0',
    each of the shape of what it differentiates.
    """
    check_rnn_lm_inputs(params, x, targets, h0)
    batch, steps, _ = x.shape
    with torch.no_grad():
        states, scores = rnn_lm_forward(params, x, h0)  # (B, T+1, H), (B, T, V)
        log_probs = torch.log_softmax(scores, dim=-1)  # (B, T, V)
        loss = -log_probs.gather(-1, targets[..., None]).sum()
        d_scores = log_probs.exp()  # softmax(s) ...
        d_scores.scatter_add_(-1, targets[..., None], -torch.ones_like(log_probs[..., :1]))  # ... - onehot(y)
        grads = {name: torch.zeros_like(value) for name, value in params.items()}
        grads["x"] = torch.zeros_like(x)
        d_z_next = x.new_zeros(batch, params["W_h"].shape[0])  # δz(T+1) = 0
        for t in reversed(range(steps)):  # t = T-1 ... 0 in code is step t+1 of the formulas
            h, h_prev = states[:, t + 1], states[:, t]  # (B, H)
            d_s = d_scores[:, t]  # (B, V)
            grads["U"] += d_s.T @ h
            grads["c"] += d_s.sum(0)
            d_h = d_s @ params["U"] + d_z_next @ params["W_h"]  # (B, H): from the output and from step t+2
            d_z = d_h * (1 - h**2)  # (B, H)
            grads["W_h"] += d_z.T @ h_prev
            grads["W_e"] += d_z.T @ x[:, t]
            grads["b"] += d_z.sum(0)
            grads["x"][:, t] = d_z @ params["W_e"]
            d_z_next = d_z
        grads["h0"] = d_z_next @ params["W_h"]  # (B, H)
    return loss, grads


def rnn_lm_autograd_gradients(
    params: dict[str, torch.Tensor], x: torch.Tensor, targets: torch.Tensor, h0: Optional[torch.Tensor] = None
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The same loss and gradients as ``rnn_lm_gradients``, computed by ``torch.autograd`` (the reference)."""
    check_rnn_lm_inputs(params, x, targets, h0)
    leaves = {name: value.detach().clone().requires_grad_(True) for name, value in params.items()}
    leaves["x"] = x.detach().clone().requires_grad_(True)
    leaves["h0"] = x.new_zeros(x.shape[0], params["W_h"].shape[0]) if h0 is None else h0.detach().clone()
    leaves["h0"].requires_grad_(True)
    _, scores = rnn_lm_forward({n: leaves[n] for n in PARAMETER_NAMES}, leaves["x"], leaves["h0"])
    loss = torch.nn.functional.cross_entropy(scores.reshape(-1, scores.shape[-1]), targets.reshape(-1), reduction="sum")
    loss.backward()
    return loss.detach(), {name: leaf.grad for name, leaf in leaves.items()}


def truncated_bptt_loss(model, ids: torch.Tensor, k: int) -> torch.Tensor:
    """Mean next-token loss of a ``dl4nlp.rnn.RecurrentLM`` on ``ids`` (B, T+1), by truncated BPTT every ``k`` steps.

    The inputs ``ids[:, :-1]`` are read in chunks of ``k`` positions; the state is
    carried from one chunk to the next as a value (``detach``), so the backward pass
    of this loss stops at each chunk's start: no gradient links a prediction to an
    input more than ``k`` positions (in its chunk) before it. The forward values are
    those of one pass over the whole sequence. Chapter 03 (its exercise in Going
    further is this function).

    >>> from dl4nlp.rnn import RecurrentLM
    >>> torch.manual_seed(0) and None
    >>> model = RecurrentLM(5, hidden_size=4, kind="rnn", embedding_dim=3)
    >>> ids = torch.randint(0, 5, (2, 9))
    >>> full = torch.nn.functional.cross_entropy(model(ids[:, :-1])[0].flatten(0, 1), ids[:, 1:].flatten())
    >>> bool(torch.isclose(truncated_bptt_loss(model, ids, k=3), full))  # the same value, a shorter graph
    True
    """
    from dl4nlp._checks import check_ids, check_int
    from dl4nlp.rnn import RecurrentLM

    check_type("model", model, RecurrentLM, "a dl4nlp.rnn.RecurrentLM")
    check_ids("ids", ids, model.config.vocab_size, shape=("B", "T"))
    if ids.shape[1] < 2:
        raise ValueError(
            f"ids must hold at least two positions (an input and its target); got shape {tuple(ids.shape)}"
        )
    check_int("k", k)
    ids = ids.to(next(model.parameters()).device)  # the caller's ids may sit on the CPU
    inputs, targets = ids[:, :-1], ids[:, 1:]
    state, total = None, 0.0
    for start in range(0, inputs.shape[1], k):
        if state is not None:  # keep the value, cut the graph
            state = tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()
        logits, state = model(inputs[:, start : start + k], state)  # (B, k, V)
        chunk = targets[:, start : start + k]
        total = total + torch.nn.functional.cross_entropy(logits.flatten(0, 1), chunk.flatten(), reduction="sum")
    return total / targets.numel()


# --- the training loop on one long text (chapter 03, section 2's exercise) -------------------------------
def contiguous_streams(ids: torch.Tensor, batch_size: int, length: int) -> torch.Tensor:
    """``batch_size`` contiguous streams of ``length + 1`` ids (B, length+1), stream i starting at i · len(ids) // B.

    Each row is read from its start to its end by truncated BPTT, the state carried
    from one chunk to the next, so every prediction sees the whole stream before it.

    >>> contiguous_streams(torch.arange(20), batch_size=2, length=3)
    tensor([[ 0,  1,  2,  3],
            [10, 11, 12, 13]])
    """
    from dl4nlp._checks import check_ids, check_int

    check_ids("ids", ids, None, shape=("T",))
    check_int("batch_size", batch_size)
    check_int("length", length)
    stride = len(ids) // batch_size
    if stride < length + 1:
        raise ValueError(
            f"{len(ids)} ids cannot hold {batch_size} disjoint streams of length + 1 = {length + 1}; "
            f"use fewer streams or a shorter length"
        )
    return torch.stack([ids[i * stride : i * stride + length + 1] for i in range(batch_size)])


def _detached(state):
    return tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()


def train_truncated_bptt(model, streams: torch.Tensor, k: int, optimiser, clip_norm: Optional[float]) -> list[float]:
    """The reference training loop by truncated BPTT: one optimiser step per chunk of ``k`` positions.

    ``streams`` (B, L+1): inputs ``streams[:, :-1]``, targets ``streams[:, 1:]``. For each chunk:
    forward from the carried state, mean cross-entropy over the chunk's B·k predictions,
    ``zero_grad``, ``backward``, clip the gradient's norm at ``clip_norm`` (None: no clipping),
    ``step``, and carry the state on as a value (``detach``). Returns each chunk's loss.

    >>> from dl4nlp.rnn import RecurrentLM
    >>> torch.manual_seed(0) and None
    >>> model = RecurrentLM(5, hidden_size=4, kind="rnn", embedding_dim=3)
    >>> losses = train_truncated_bptt(model, torch.randint(0, 5, (2, 13)), 4,
    ...                               torch.optim.SGD(model.parameters(), lr=0.1), clip_norm=1.0)
    >>> len(losses)  # 12 inputs in chunks of 4
    3
    """
    from dl4nlp._checks import check_ids, check_int, check_number
    from dl4nlp.rnn import RecurrentLM

    check_type("model", model, RecurrentLM, "a dl4nlp.rnn.RecurrentLM")
    streams = check_ids("streams", streams, model.config.vocab_size, shape=("B", "T"))
    if streams.shape[1] < 2:
        raise ValueError(f"streams must hold at least two positions; got shape {tuple(streams.shape)}")
    check_int("k", k)
    check_type("optimiser", optimiser, torch.optim.Optimizer, "a torch.optim optimiser")
    if clip_norm is not None:
        check_number("clip_norm", clip_norm, 0.0, low_open=True)
    streams = streams.to(next(model.parameters()).device)
    inputs, targets = streams[:, :-1], streams[:, 1:]
    state, losses = None, []
    for start in range(0, inputs.shape[1], k):
        logits, state = model(inputs[:, start : start + k], state)  # (B, k, V)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets[:, start : start + k].flatten())
        optimiser.zero_grad()
        loss.backward()
        if clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        optimiser.step()
        state = _detached(state)  # keep the value, cut the graph
        losses.append(loss.item())
    return losses


def _loop_variant(model, streams, k, optimiser, clip_norm, *, detach=True, carry=True, zero=True, clip=True):
    """``train_truncated_bptt`` with one of its four duties left out (what a student's loop may forget)."""
    inputs, targets = streams[:, :-1], streams[:, 1:]
    state, losses = None, []
    for start in range(0, inputs.shape[1], k):
        logits, state = model(inputs[:, start : start + k], state if carry else None)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets[:, start : start + k].flatten())
        if zero:
            optimiser.zero_grad()
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        optimiser.step()
        state = _detached(state) if detach else state
        losses.append(loss.item())
    return losses


_LOOP_MISTAKES = (
    ({"carry": False}, "your loop starts every chunk from a zero state: carry the state from chunk to chunk"),
    (
        {"clip": False},
        "your weights are those of a loop without clipping: clip the gradient's norm after "
        "backward() and before step()",
    ),
    ({"zero": False}, "your gradients pile up from chunk to chunk: call zero_grad() before backward()"),
)


def check_truncated_training(name: str, loop) -> bool:
    """Check a student's training loop ``loop(model, streams, k, optimiser, clip_norm) -> losses`` (chapter 03).

    Runs it and ``train_truncated_bptt`` from the same tiny ``RecurrentLM`` on the same
    streams (SGD, gradient norms well above the clipping threshold, so clipping acts) and
    compares every weight after training, naming the first that differs
    (``dl4nlp.exercises.check``). When they differ it also says which duty of the loop is
    missing: the state not carried, not detached, no clipping, gradients not zeroed.
    Prints a verdict and returns True when the loop is right; never raises for the student's code.
    """
    import copy

    from dl4nlp._checks import check_str
    from dl4nlp.exercises import check
    from dl4nlp.rnn import RecurrentLM

    check_str("name", name, nonempty=True)
    check_callable("loop", loop, "a function loop(model, streams, k, optimiser, clip_norm)")
    torch.manual_seed(0)
    start = RecurrentLM(6, hidden_size=5, kind="rnn", embedding_dim=3)
    streams = torch.randint(0, 6, (3, 17), generator=torch.Generator().manual_seed(1))  # 16 inputs: 4 chunks of 4
    settings = {"k": 4, "clip_norm": 0.05}

    def run(train, **leave_out):
        model = copy.deepcopy(start)
        optimiser = torch.optim.SGD(model.parameters(), lr=0.5)
        train(model, streams, settings["k"], optimiser, settings["clip_norm"], **leave_out)
        return torch.cat([p.detach().flatten() for p in model.parameters()])

    names = [f"{n}{list(i)}" for n, p in start.named_parameters() for i in np.ndindex(*p.shape)]
    expected = run(train_truncated_bptt)
    try:
        given_weights = run(loop)
    except NotImplementedError:
        print(f"{name}: not answered yet - replace the `raise NotImplementedError` line and run again.")
        return False
    except RuntimeError as error:
        if "backward through the graph a second time" in str(error):
            print(
                f"{name}: not yet - the second chunk's backward() ran into the first chunk's graph: the carried "
                f"state still links to it; carry it on as a value with .detach()"
            )
            return False
        print(f"{name}: your code raised RuntimeError: {error}")
        return False
    except Exception as error:  # the student's code failed: say how
        print(f"{name}: your code raised {type(error).__name__}: {error}")
        return False
    if check(name, given_weights, expected, names=names):
        return True
    for leave_out, message in _LOOP_MISTAKES:
        if torch.allclose(given_weights, run(_loop_variant, **leave_out), atol=1e-6, rtol=1e-5):
            print(f"  {message}.")
            break
    return False
