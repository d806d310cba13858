"""Train skip-gram word vectors with negative sampling on ``sherlock_holmes.txt`` and write ``skipgram_sherlock.pt``.

    python -m dl4nlp.recipes.skipgram --out data/skipgram_sherlock.pt --seeds 0,1,2 --threads 1

The text is cut into lower-case words (``dl4nlp.skipgram.words``: 105,301 words);
the 2,056 words seen at least 5 times are kept and the others removed from the
stream. For every seed, ``dl4nlp.skipgram.train_skipgram`` trains 50-dimensional
vectors for 10 passes over the text (each pass subsampled afresh with t = 1e-3,
every pair within 3 words, 5 negatives per pair from counts^0.75, Adam at 5e-3
on batches of 1,024 pairs). The input vectors of every seed ship (float16, one
tensor ``seedN`` each) with the vocabulary and its counts; the provenance records
each seed's loss per pass, the mean cosine within and between the word classes of
``CLASSES``, the fraction of class words whose nearest class word is of their class,
the same numbers for two controls (rows of co-occurrence counts, random vectors)
and the nearest neighbours of ``SHOWCASE``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Optional, Sequence

import torch

from dl4nlp._checks import check_bool, check_int, check_number, check_strings
from dl4nlp.checkpoint import check_output, save_checkpoint
from dl4nlp.data import load_text
from dl4nlp.recipes import comma_ints, command_line, provenance, recipe_parser, start
from dl4nlp.skipgram import (
    KIND,
    SkipGramConfig,
    SkipGramVocab,
    class_cosines,
    cooccurrence_vectors,
    nearest,
    same_class_neighbours,
    train_skipgram,
    words,
)

NAME = "skipgram"
CORPUS = "sherlock_holmes.txt"

# Word classes read off the text (every word occurs at least 5 times in it).
CLASSES: dict[str, list[str]] = {
    "pronouns": "he she i you we they him her me them us".split(),
    "numbers": "two three four five six seven eight nine ten twenty hundred".split(),
    "colours": "red blue black white brown grey yellow".split(),
    "family": "father mother brother sister wife husband son daughter uncle".split(),
    "body": "hand hands face eyes head arm feet lips".split(),
    "time": "morning evening night day week month year hour".split(),
}
SHOWCASE = ["holmes", "three", "father", "she", "night", "red", "left", "case", "light"]

# "left" as a direction ("the left side", "his left hand", "from left to right") or as the past of "leave" ("she had
# left"): the rule that tells them apart. On this text it agrees with a reading of all 92 uses (31 and 61).
DIRECTION_BEFORE = {"the", "his", "her", "your", "my", "their"}
DIRECTION_AFTER = {"hand", "handed", "side", "arm", "leg", "foot", "shoulder", "hands", "eye", "cheek", "boot", "shoe"}
SENSES = ("left_direction", "left_leaving")


def left_senses(tokens: Sequence[str]) -> list[str]:
    """``tokens`` with each "left" replaced by "left_direction" or "left_leaving", by the words around it.

    >>> left_senses("on the left side he left us".split())
    ['on', 'the', 'left_direction', 'side', 'he', 'left_leaving', 'us']
    """
    tokens = check_strings("tokens", tokens)
    out = list(tokens)
    for i, token in enumerate(tokens):
        if token == "left":
            before = tokens[i - 1] if i > 0 else ""
            after = tokens[i + 1] if i + 1 < len(tokens) else ""
            near = tokens[max(0, i - 2) : i] + tokens[i + 1 : i + 3]
            direction = before in DIRECTION_BEFORE or after in DIRECTION_AFTER or "right" in near
            out[i] = SENSES[0] if direction else SENSES[1]
    return out


@dataclasses.dataclass(frozen=True)
class Recipe:
    """Everything that decides the shipped vectors besides the seed."""

    min_count: int = 5
    dim: int = 50
    window: int = 3
    negatives: int = 5
    threshold: float = 1e-3
    power: float = 0.75
    epochs: int = 10
    batch_size: int = 1024
    lr: float = 5e-3

    def __post_init__(self) -> None:
        for name in ("min_count", "dim", "window", "negatives", "epochs", "batch_size"):
            check_int(name, getattr(self, name))
        check_number("threshold", self.threshold, 0, 1, low_open=True)
        check_number("power", self.power, 0, 1)
        check_number("lr", self.lr, 0, low_open=True)


def corpus_ids(min_count: int = 5, split_left: bool = False) -> tuple[SkipGramVocab, torch.Tensor]:
    """The vocabulary of ``sherlock_holmes.txt`` (words seen ``min_count`` times) and the text as its ids.

    ``split_left``: each "left" becomes one of ``SENSES`` (``left_senses``), two words instead of one.
    """
    check_int("min_count", min_count)
    check_bool("split_left", split_left)
    tokens = words(load_text(CORPUS))
    tokens = left_senses(tokens) if split_left else tokens
    vocab = SkipGramVocab.build(tokens, min_count)
    return vocab, vocab.encode(tokens)


def evaluate(vectors: torch.Tensor, vocab: SkipGramVocab) -> dict:
    """Within- and between-class mean cosines, the same-class neighbour fraction and the showcase neighbours."""
    within, between = class_cosines(vectors, vocab, CLASSES)
    return {
        "within": within,
        "between": between,
        "same_class_neighbours": same_class_neighbours(vectors, vocab, CLASSES),
        "neighbours": {w: nearest(vectors, vocab, w, 5) for w in SHOWCASE},
    }


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Train every seed, then write the vectors and their provenance; returns the provenance written."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    for field in dataclasses.fields(Recipe):
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=type(field.default), default=field.default)
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated seeds, each trained and shipped")
    args = parser.parse_args(argv)
    seeds = comma_ints("--seeds", args.seeds, low=0)
    recipe = Recipe(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Recipe)})
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    device = start(args)
    started, cpu_started = time.perf_counter(), time.process_time()
    vocab, ids = corpus_ids(recipe.min_count)
    config = SkipGramConfig(len(vocab), recipe.dim, recipe.window, recipe.negatives, recipe.threshold, recipe.power)
    counts = cooccurrence_vectors(ids, len(vocab), recipe.window)
    results: dict = {
        "words": int(sum(vocab.counts)),
        "vocabulary": len(vocab),
        "controls": {
            "cooccurrence_counts": evaluate(counts, vocab),
            "random_vectors": evaluate(
                torch.randn(len(vocab), recipe.dim, generator=torch.Generator().manual_seed(0)), vocab
            ),
        },
        "seeds": {},
    }
    weights = {}
    for seed in seeds:
        run = train_skipgram(
            ids, vocab, config, seed=seed, epochs=recipe.epochs, batch_size=recipe.batch_size, lr=recipe.lr
        )
        per_pass = len(run.losses) // recipe.epochs
        vectors = run.vectors.half()
        weights[f"seed{seed}"] = vectors
        results["seeds"][str(seed)] = {
            "steps": len(run.losses),
            "pairs_seen": run.pairs_seen,
            "loss_first_step": run.losses[0],
            "loss_per_pass": [
                sum(run.losses[i * per_pass : (i + 1) * per_pass]) / per_pass for i in range(recipe.epochs)
            ],
            **evaluate(vectors.float(), vocab),
        }
        print(
            f"seed {seed}: {results['seeds'][str(seed)]['loss_per_pass'][-1]:.3f} last pass, within "
            f"{results['seeds'][str(seed)]['within']:.3f} between {results['seeds'][str(seed)]['between']:.3f}, "
            f"{time.process_time() - cpu_started:.0f} CPU s",
            flush=True,
        )
    split_vocab, split_ids = corpus_ids(recipe.min_count, split_left=True)
    split_config = dataclasses.replace(config, vocab_size=len(split_vocab))
    results["left_split"] = {
        "counts": {sense: split_vocab.counts[split_vocab.id(sense)] for sense in SENSES},
        "seeds": {},
    }
    for seed in seeds:
        run = train_skipgram(
            split_ids,
            split_vocab,
            split_config,
            seed=seed,
            epochs=recipe.epochs,
            batch_size=recipe.batch_size,
            lr=recipe.lr,
        )
        vectors = run.vectors.half().float()
        unit = torch.nn.functional.normalize(vectors.double(), dim=1)
        a, b = (split_vocab.id(sense) for sense in SENSES)
        results["left_split"]["seeds"][str(seed)] = {
            "cosine": (unit[a] @ unit[b]).item(),
            "neighbours": {sense: nearest(vectors, split_vocab, sense, 5) for sense in SENSES},
        }
        print(f"seed {seed}, left split: cosine {results['left_split']['seeds'][str(seed)]['cosine']:.3f}", flush=True)
    results["cpu_seconds"] = round(time.process_time() - cpu_started, 1)
    record = provenance(
        command=command_line(NAME, argv),
        arguments={**dataclasses.asdict(recipe), "seeds": seeds, "threads": args.threads},
        seed=seeds[0],
        device=device,
        started=started,
        corpora=[CORPUS],
        results=results,
    )
    record = save_checkpoint(
        out,
        kind=KIND,
        config=config,
        state_dict=weights,
        extra={"itos": vocab.itos, "counts": vocab.counts},
        provenance=record,
        overwrite=args.overwrite,
    )
    print(f"{out}: {len(vocab)} words, seeds {seeds}, {results['cpu_seconds']:.0f} CPU s", flush=True)
    return record


if __name__ == "__main__":
    main()
