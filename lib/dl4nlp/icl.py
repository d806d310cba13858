"""In-context learning in miniature: a fresh lookup table in every prompt, read from noisy examples.

Each prompt holds ``pairs`` questions and answers about a lookup table that is
new for that prompt: each of the ``n_keys`` keys is mapped to one of the
``n_values`` values at random. A pair is two tokens, the query "key -> ?" and
then the example "key -> value" (one token each, so a single attention layer
can match a query to the examples of its key). No table can be memorised; the
only way to predict an example's value is to read the earlier examples of the
same key in the prompt. The examples are noisy: with probability ``noise`` a
shown value is replaced by a uniformly random one. One earlier example is right
with probability ``1 - noise + noise / n_values``; several, read together by a
majority vote, are right more often, so accuracy should *grow with the number of
examples*, as GPT-3's few-shot accuracy grows with the examples in its prompt.
Copying the value of the most recent example of the key stays at the
one-example level however many examples there are.

Tokens: example "k -> v" is ``k * n_values + v``; query "k -> ?" is
``n_keys * n_values + k``. The model is the library's decoder-only
``TransformerLM``; its loss is the cross-entropy of each example token,
predicted at its query.

>>> batch = query_batch(3, 2, torch.Generator().manual_seed(0))
>>> batch.ids.shape, batch.count[:, -1].tolist()  # 12 pairs; the last query's key has 2 earlier examples
(torch.Size([3, 24]), [2, 2, 2])
>>> keys = batch.ids[:, 0::2] - 64  # the keys of the 12 queries
>>> (keys[:, :-1] == keys[:, -1:]).sum(1).tolist()
[2, 2, 2]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import torch
import torch.nn.functional as F

from dl4nlp._checks import check_bool, check_int, check_number, check_sequence, check_type
from dl4nlp.device import seed_everything
from dl4nlp.train import train
from dl4nlp.transformer import TransformerConfig, TransformerLM

__all__ = [
    "ICL_SIZES",
    "COUNTS",
    "MappingBatch",
    "mapping_batch",
    "query_batch",
    "icl_model",
    "icl_loss",
    "accuracy_by_examples",
    "ideal_accuracy",
    "copy_last_accuracy",
    "train_icl_model",
    "chance",
    "heldout_generator",
    "icl_table",
    "load_icl_model",
    "ICL_CHECKPOINT",
    "ICL_KIND",
    "TEST_PROMPTS",
    "show_prompt",
    "accuracy_figure",
    "attention_on_examples",
]

ICL_SIZES = dict(
    n_keys=8,
    n_values=8,
    pairs=12,
    noise=0.25,
    d_model=64,
    n_heads=4,
    n_layers=2,
    feed_forward=False,
    positional="learned",
    steps=600,
    batch_size=64,
    lr=1e-3,
)
COUNTS = (0, 1, 2, 3, 4, 6, 8)  # numbers of earlier examples of the query key at which accuracy is measured


def _sizes(sizes: Optional[dict]) -> dict:
    s = dict(ICL_SIZES)
    if sizes is None:
        return s
    check_type("sizes", sizes, dict, f"a dict with some of {sorted(ICL_SIZES)}")
    unknown = sorted(set(sizes) - set(ICL_SIZES))
    if unknown:
        raise ValueError(f"sizes has unknown keys {unknown}; known: {sorted(ICL_SIZES)}")
    s.update(sizes)
    for key in ("n_keys", "n_values", "d_model", "n_heads", "n_layers", "steps", "batch_size"):
        check_int(f"sizes[{key!r}]", s[key])
    check_int("sizes['pairs']", s["pairs"], 2)
    check_number("sizes['noise']", s["noise"], 0.0, 1.0, high_open=True)
    check_number("sizes['lr']", s["lr"], 0.0, low_open=True)
    check_bool("sizes['feed_forward']", s["feed_forward"])
    return s


@dataclass(frozen=True)
class MappingBatch:
    """Prompts ``ids`` (B, 2P), the true value of each pair under its prompt's table ``true`` (B, P) (as value
    tokens), and ``count`` (B, P): how many earlier pairs of the same prompt have the same key."""

    ids: torch.Tensor
    true: torch.Tensor
    count: torch.Tensor


def _generator(generator) -> torch.Generator:
    return check_type("generator", generator, torch.Generator, "a torch.Generator")


def _build(keys: torch.Tensor, generator: torch.Generator, s: dict, corrupt: bool = False) -> MappingBatch:
    """The prompts for the keys (B, P): a fresh table per prompt, noisy shown values. With ``corrupt`` the
    examples before the last pair follow a second, independent table (the control)."""
    B, P = keys.shape
    table = torch.randint(0, s["n_values"], (B, s["n_keys"]), generator=generator)
    true = table.gather(1, keys)  # (B, P)
    shown_table = torch.randint(0, s["n_values"], (B, s["n_keys"]), generator=generator) if corrupt else table
    shown = shown_table.gather(1, keys)
    noisy = torch.rand(B, P, generator=generator) < s["noise"]
    shown = torch.where(noisy, torch.randint(0, s["n_values"], (B, P), generator=generator), shown)
    examples = keys * s["n_values"] + shown  # one token per example: "key -> shown value"
    queries = s["n_keys"] * s["n_values"] + keys  # "key -> ?"
    ids = torch.stack([queries, examples], dim=2).reshape(B, 2 * P)
    same = keys[:, :, None] == keys[:, None, :]  # (B, P, P)
    count = (same & torch.ones(P, P, dtype=torch.bool).tril(-1)).sum(-1)
    return MappingBatch(ids, true, count)


def mapping_batch(n: int, generator: torch.Generator, sizes: Optional[dict] = None) -> MappingBatch:
    """``n`` training prompts. Each prompt draws its keys from its own random key frequencies (a flat Dirichlet),
    so that some keys recur often and the number of earlier examples of a key ranges widely."""
    s = _sizes(sizes)
    check_int("n", n)
    _generator(generator)
    # a flat Dirichlet from the generator: normalised exponentials
    exponentials = -torch.log(torch.rand(n, s["n_keys"], generator=generator).clamp_min(1e-12))
    weights = exponentials / exponentials.sum(1, keepdim=True)
    keys = torch.multinomial(weights, s["pairs"], replacement=True, generator=generator)
    return _build(keys, generator, s)


def query_batch(
    n: int, count: int, generator: torch.Generator, sizes: Optional[dict] = None, corrupt: bool = False
) -> MappingBatch:
    """``n`` test prompts whose last key (the query) has exactly ``count`` earlier examples, at random places among
    the ``pairs - 1`` before it; the other places hold other keys, uniformly. With ``corrupt`` the examples follow
    another random table than the one the query is scored against (the control: the prompt says nothing about
    the answer)."""
    s = _sizes(sizes)
    check_int("n", n)
    check_int("count", count, 0, s["pairs"] - 1)
    _generator(generator)
    check_bool("corrupt", corrupt)
    P = s["pairs"]
    query = torch.randint(0, s["n_keys"], (n,), generator=generator)
    others = (query[:, None] + torch.randint(1, s["n_keys"], (n, P - 1), generator=generator)) % s["n_keys"]
    places = torch.rand(n, P - 1, generator=generator).argsort(1)[:, :count]  # which earlier pairs show the query
    keys = others.scatter(1, places, query[:, None].expand(-1, count))
    keys = torch.cat([keys, query[:, None]], dim=1)
    return _build(keys, generator, s, corrupt)


def icl_model(sizes: Optional[dict] = None) -> TransformerLM:
    """The decoder-only Transformer that learns the task: pre-LN, learned positions, ``TransformerLM``."""
    s = _sizes(sizes)
    config = TransformerConfig(
        vocab_size=s["n_keys"] * s["n_values"] + s["n_keys"],
        d_model=s["d_model"],
        n_heads=s["n_heads"],
        n_layers=s["n_layers"],
        max_len=2 * s["pairs"],
        positional=s["positional"],
        use_feed_forward=s["feed_forward"],
    )
    return TransformerLM(config)


def _check_model(model, batch) -> None:
    check_type("model", model, TransformerLM, "a dl4nlp.transformer.TransformerLM (from icl_model)")
    check_type("batch", batch, MappingBatch, "a MappingBatch (from mapping_batch or query_batch)")
    if batch.ids.shape[1] > model.config.max_len:
        raise ValueError(
            f"batch.ids must have at most the model's max_len={model.config.max_len} positions; "
            f"got {tuple(batch.ids.shape)}"
        )


def icl_loss(model: TransformerLM, batch: MappingBatch) -> torch.Tensor:
    """Cross-entropy of every shown value, predicted at its key (the keys themselves are not predicted)."""
    _check_model(model, batch)
    device = next(model.parameters()).device
    ids = batch.ids.to(device)
    logits = model(ids[:, :-1])[:, 0::2]  # (B, P, V): the predictions made at the keys
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1::2].reshape(-1))


@torch.no_grad()
def _predict_last(model: TransformerLM, batch: MappingBatch, s: dict) -> torch.Tensor:
    """The model's most likely value for the last query of each prompt: among the ``n_values`` example tokens
    that carry the query's key, the one it scores highest (as a value index)."""
    _check_model(model, batch)
    model.eval()
    logits = model(batch.ids[:, :-1].to(next(model.parameters()).device))[:, -1].cpu()  # (B, vocab) at the query
    key = batch.ids[:, -2] - s["n_keys"] * s["n_values"]  # (B,)
    columns = key[:, None] * s["n_values"] + torch.arange(s["n_values"])[None, :]  # the key's example tokens
    return logits.gather(1, columns).argmax(-1)


def accuracy_by_examples(
    model: TransformerLM,
    generator: torch.Generator,
    n: int = 1000,
    counts: Sequence[int] = COUNTS,
    sizes: Optional[dict] = None,
    corrupt: bool = False,
) -> dict:
    """{count: accuracy}: how often the model's most likely value for a query is the query's true value, on ``n``
    fresh prompts (fresh tables) per number of earlier examples of the query key."""
    s = _sizes(sizes)
    _generator(generator)
    check_int("n", n)
    counts = [check_int("each count", c, 0, s["pairs"] - 1) for c in check_sequence("counts", counts)]
    out = {}
    for c in counts:
        batch = query_batch(n, c, generator, s, corrupt)
        out[c] = (_predict_last(model, batch, s) == batch.true[:, -1]).float().mean().item()
    return out


def ideal_accuracy(count: int, sizes: Optional[dict] = None) -> float:
    """The accuracy of the best possible reader of the prompt: a majority vote over the ``count`` shown values
    (ties broken at random), computed exactly. Zero examples: chance, ``1 / n_values``.

    >>> round(ideal_accuracy(0), 4), round(ideal_accuracy(1), 4)  # chance; one example right 0.75 + 0.25 / 8
    (0.125, 0.7812)
    """
    s = _sizes(sizes)
    V = s["n_values"]
    check_int("count", count, 0)
    right = 1 - s["noise"] + s["noise"] / V  # a shown value is the true one
    wrong = (1 - right) / (V - 1)  # ... or one particular other value
    # enumerate the multiset of counts (true value, each of the V - 1 others) by dynamic programming over examples:
    # state = sorted tuple of the others' counts and the true value's count
    states = {(0, tuple([0] * (V - 1))): 1.0}
    for _ in range(count):
        nxt = {}
        for (t, others), p in states.items():
            key = (t + 1, others)
            nxt[key] = nxt.get(key, 0.0) + p * right
            for i in range(V - 1):
                bumped = list(others)
                bumped[i] += 1
                key = (t, tuple(sorted(bumped, reverse=True)))
                nxt[key] = nxt.get(key, 0.0) + p * wrong
        states = nxt
    total = 0.0
    for (t, others), p in states.items():
        best = max(t, others[0])
        if t == best:
            ties = 1 + sum(1 for o in others if o == best)
            total += p / ties
    return total


def copy_last_accuracy(count: int, sizes: Optional[dict] = None) -> float:
    """The accuracy of copying the value shown at the most recent example of the key (an induction head): one
    example's accuracy for any ``count`` of at least 1, chance for 0.

    >>> copy_last_accuracy(0), copy_last_accuracy(4)
    (0.125, 0.78125)
    """
    s = _sizes(sizes)
    check_int("count", count, 0)
    return 1 / s["n_values"] if count == 0 else 1 - s["noise"] + s["noise"] / s["n_values"]


def train_icl_model(seed: int, sizes: Optional[dict] = None) -> tuple[TransformerLM, list[float]]:
    """Train ``icl_model`` with AdamW on fresh ``mapping_batch`` prompts; returns the model (eval mode) and its
    training loss at every step. Deterministic on the CPU for a seed, a torch version and a thread count."""
    check_int("seed", seed, 0)
    s = _sizes(sizes)
    seed_everything(seed)
    model = icl_model(s)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=s["lr"], weight_decay=0.01)
    history = train(
        model,
        icl_loss,
        lambda step: mapping_batch(s["batch_size"], generator, s),
        steps=s["steps"],
        optimizer=optimizer,
        progress=False,
    )
    return model.eval(), list(history.loss)


def chance(sizes: Optional[dict] = None) -> float:
    """Chance accuracy, ``1 / n_values``; and chance loss is ``log(n_values)``."""
    return 1 / _sizes(sizes)["n_values"]


# --- what the recipe ships, measured and loaded ------------------------------------------------
ICL_CHECKPOINT = "in_context.pt"  # in data/, by `python -m dl4nlp.recipes.in_context`
ICL_KIND = "in_context"
TEST_PROMPTS = 2000  # held-out prompts per number of examples, in the recipe's table


def heldout_generator(seed: int) -> torch.Generator:
    """The generator of seed ``seed``'s held-out prompts: a stream that training (``manual_seed(seed)``) never
    draws from."""
    check_int("seed", seed, 0)
    return torch.Generator().manual_seed(10_000 + seed)


def icl_table(model: TransformerLM, seed: int, n: int = TEST_PROMPTS, sizes: Optional[dict] = None) -> dict:
    """The numbers the recipe records for one trained seed: accuracy by number of examples on held-out prompts,
    the same on corrupted prompts (the control), and the two reference readers."""
    check_int("seed", seed, 0)
    s = _sizes(sizes)
    generator = heldout_generator(seed)
    accuracy = accuracy_by_examples(model, generator, n, COUNTS, s)
    control = accuracy_by_examples(model, generator, n, COUNTS, s, corrupt=True)
    return {
        "seed": seed,
        "counts": list(COUNTS),
        "accuracy": [accuracy[c] for c in COUNTS],
        "control": [control[c] for c in COUNTS],
        "ideal": [ideal_accuracy(c, s) for c in COUNTS],
        "copy_last": [copy_last_accuracy(c, s) for c in COUNTS],
    }


def load_icl_model(path=None):
    """The shipped seed-0 model (eval mode) and its checkpoint (every seed's table in
    ``checkpoint.provenance['results']['seeds']``)."""
    from dl4nlp.checkpoint import load_checkpoint
    from dl4nlp.data import data_path

    checkpoint = load_checkpoint(data_path(ICL_CHECKPOINT) if path is None else path, kind=ICL_KIND)
    model = TransformerLM(TransformerConfig(**checkpoint.config))
    model.load_state_dict(checkpoint.state_dict)
    return model.eval(), checkpoint


def show_prompt(batch: MappingBatch, row: int = 0, sizes: Optional[dict] = None) -> str:
    """One prompt as text: its examples "c→F" (keys a, b, …; values A, B, …) and then its last question "c→?";
    the question before each example is left out (it repeats the example's key).

    >>> print(show_prompt(query_batch(1, 2, torch.Generator().manual_seed(0))))
    e→B  f→D  h→B  g→D  h→D  d→G  e→B  b→A  c→B  h→B  f→B  e→?
    """
    s = _sizes(sizes)
    check_type("batch", batch, MappingBatch, "a MappingBatch (from mapping_batch or query_batch)")
    check_int("row", row, 0, batch.ids.shape[0] - 1)
    examples = batch.ids[row, 1::2].tolist()[:-1]
    text = [f"{chr(97 + e // s['n_values'])}→{chr(65 + e % s['n_values'])}" for e in examples]
    query = batch.ids[row, -2].item() - s["n_keys"] * s["n_values"]
    return "  ".join(text + [f"{chr(97 + query)}→?"])


def accuracy_figure(
    counts: Sequence[int], live: dict, control: dict, seeds: Sequence[dict], sizes: Optional[dict] = None
):
    """Accuracy against the number of examples: the model measured here (``live``, ``control``: {count: accuracy}),
    every shipped seed (``seeds``: the recipe's tables), the majority-vote reader, copying the last example, and
    chance. Returns the figure."""
    import matplotlib.pyplot as plt

    s = _sizes(sizes)
    counts = [check_int("each count", c, 0) for c in check_sequence("counts", counts)]
    for name, row in (("live", live), ("control", control)):
        check_type(name, row, dict, "a dict {count: accuracy}")
        missing = [c for c in counts if c not in row]
        if missing:
            raise ValueError(f"{name} must hold an accuracy for every count; missing {missing}")
    seeds = check_sequence("seeds", seeds, nonempty=False)
    fig, ax = plt.subplots(figsize=(8, 4))
    for i, table in enumerate(seeds):
        ax.plot(
            table["counts"],
            table["accuracy"],
            color="C0",
            alpha=0.35,
            lw=4,
            label="seeds 0-2, measured when trained" if i == 0 else None,
        )
    ax.plot(counts, [live[c] for c in counts], "o-", color="C0", label="seed 0, measured here")
    ax.plot(counts, [ideal_accuracy(c, s) for c in counts], "k--", label="best possible: majority vote")
    ax.plot(counts, [copy_last_accuracy(c, s) for c in counts], ":", color="C2", lw=2, label="copy the last example")
    ax.plot(counts, [control[c] for c in counts], "s-", color="C3", label="control: examples of another table")
    ax.axhline(chance(s), color="grey", lw=1, label=f"chance (1/{s['n_values']})")
    ax.set(
        xlabel="examples of the queried key in the prompt",
        ylabel="accuracy on fresh tables",
        ylim=(0, 1.03),
        xticks=counts,
    )
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    return fig


@torch.no_grad()
def attention_on_examples(model: TransformerLM, batch: MappingBatch, sizes: Optional[dict] = None) -> list:
    """[layer][head]: the mean attention weight the last question puts on the examples of its own key, and (last
    entry of the pair) what uniform attention over the prompt would put there: ``(weights, uniform)``."""
    s = _sizes(sizes)
    _check_model(model, batch)
    if model.config.fast_attention:
        raise ValueError("model must use the readable attention path to show its weights; got fast_attention=True")
    model.eval()
    inputs = batch.ids[:, :-1]
    model(inputs.to(next(model.parameters()).device))
    key = inputs[:, -1] - s["n_keys"] * s["n_values"]  # (B,)
    is_example = torch.zeros_like(inputs, dtype=torch.bool)
    is_example[:, 1::2] = True
    own = is_example & (inputs // s["n_values"] == key[:, None])  # (B, T): examples of the queried key
    weights = []
    for block in model.encoder.blocks:
        last = block.self_attn.last_weights[:, :, -1].cpu()  # (B, H, T): the last question's weights
        weights.append([(last[:, h] * own).sum(-1).mean().item() for h in range(last.shape[1])])
    uniform = (own.sum(-1).float() / inputs.shape[1]).mean().item()
    return weights, uniform
