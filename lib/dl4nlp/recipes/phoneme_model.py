"""Recipe: the spelling -> pronunciation model of notebook 06 (``data/seq2seq_cmudict.pt``).

    python -m dl4nlp.recipes.phoneme_model --out data/seq2seq_cmudict.pt

trains a ``dl4nlp.seq2seq.Seq2Seq`` with dot attention on the training words of
``dl4nlp.phonemes`` (CMU Pronouncing Dictionary, stress removed) and writes the
checkpoint with its provenance: command, arguments, versions, threads, wall
time, the loss at every step, and word accuracy and phoneme error rate on
2,000 held-out words (``held_out_pairs()``; no test word is ever trained on).
Deterministic on the CPU for a given torch version, thread count and CPU kernels
(weights from ``torch.manual_seed(seed)``, batches from their own generator);
``tests/test_phonemes.py`` re-runs the first steps and compares the losses, bit
for bit, with the shipped ones.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Optional, Sequence

import torch

from dl4nlp._checks import check_choice, check_int, check_number, check_type
from dl4nlp.checkpoint import check_output
from dl4nlp.data import data_path, md5sum
from dl4nlp.date_task import _check_pairs, batch_sampler, translate
from dl4nlp.phonemes import (
    DICTIONARY,
    PHONEME_VOCAB,
    SPELLING_VOCAB,
    phoneme_error_rate,
    phoneme_pairs,
    sample_pairs,
)
from dl4nlp.recipes import command_line, provenance, recipe_parser, start
from dl4nlp.seq2seq import Seq2Seq
from dl4nlp.train import History, train

NAME = "phoneme_model"
TEST_WORDS, TEST_SEED = 2000, 0


@dataclass(frozen=True)
class PhonemeRecipe:
    """Everything that decides what the recipe trains."""

    steps: int = 600
    batch_size: int = 128
    lr: float = 1e-2
    clip_norm: float = 1.0
    d_embed: int = 32
    d_hidden: int = 96
    score: str = "dot"
    seed: int = 0

    def __post_init__(self) -> None:
        check_choice("score", self.score, ("dot", "general", "additive"))
        for name in ("steps", "batch_size", "d_embed", "d_hidden"):
            check_int(name, getattr(self, name))
        check_number("lr", self.lr, 0.0, low_open=True)
        check_number("clip_norm", self.clip_norm, 0.0, low_open=True)
        check_int("seed", self.seed, low=0)


def train_phoneme_model(
    recipe: PhonemeRecipe, progress: bool = True, stop_after: Optional[int] = None
) -> tuple[Seq2Seq, History]:
    """Train on every training word (Adam, cosine schedule, clipping); returns (model, history).

    ``stop_after`` ends the run early (the schedule still spans ``recipe.steps``), so a
    test can re-run the first steps of the shipped run and compare its losses.
    """
    check_type("recipe", recipe, PhonemeRecipe, "a PhonemeRecipe")
    if stop_after is not None:
        check_int("stop_after", stop_after, 1, recipe.steps)
    torch.manual_seed(recipe.seed)
    model = Seq2Seq(
        len(SPELLING_VOCAB), len(PHONEME_VOCAB), d_embed=recipe.d_embed, d_hidden=recipe.d_hidden, score=recipe.score
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=recipe.lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=recipe.steps)
    next_batch = batch_sampler(phoneme_pairs("train"), recipe.batch_size, recipe.seed, SPELLING_VOCAB, PHONEME_VOCAB)
    history = train(
        model,
        lambda m, batch: m.loss(batch),
        next_batch,
        steps=recipe.steps if stop_after is None else stop_after,
        optimizer=optimizer,
        scheduler=schedule,
        clip_norm=recipe.clip_norm,
        progress=progress,
        desc="spelling -> phonemes",
    )
    return model, history


def held_out_pairs() -> list[tuple[str, str]]:
    """The held-out words the recipe reports its accuracy on (recorded as ``results.test_words``)."""
    return sample_pairs(TEST_WORDS, "test", seed=TEST_SEED)


def evaluate(model: Seq2Seq, pairs: Sequence[tuple[str, str]]) -> dict[str, float]:
    """Word accuracy (whole pronunciation right) and phoneme error rate of greedy decoding."""
    check_type("model", model, Seq2Seq, "a dl4nlp.seq2seq.Seq2Seq")
    _check_pairs(pairs)
    outputs = []
    for i in range(0, len(pairs), 500):
        chunk = pairs[i : i + 500]
        outputs += translate(model, [w for w, _ in chunk], SPELLING_VOCAB, PHONEME_VOCAB, max_len=20)
    targets = [p for _, p in pairs]
    return {
        "word_accuracy": sum(o == t for o, t in zip(outputs, targets)) / len(pairs),
        "phoneme_error_rate": phoneme_error_rate(outputs, targets),
    }


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Train the spelling -> phonemes model and write it, with its provenance, to --out (a .pt file)."""
    parser = recipe_parser(NAME, main.__doc__)
    parser.add_argument("--steps", type=int, default=PhonemeRecipe.steps)
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    device = start(args)
    started = time.perf_counter()
    recipe = PhonemeRecipe(steps=args.steps, seed=args.seed)
    model, history = train_phoneme_model(recipe)
    results = {
        **evaluate(model, held_out_pairs()),
        "test_words": f"sample_pairs({TEST_WORDS}, 'test', seed={TEST_SEED})",
        "dictionary": {"file": DICTIONARY, "md5": md5sum(data_path(DICTIONARY))},
        "loss": history.loss,
    }
    record = provenance(
        command=command_line(NAME, argv),
        arguments={**asdict(recipe), "threads": args.threads},
        seed=args.seed,
        device=device,
        started=started,
        results=results,
    )
    return model.save(out, provenance=record, overwrite=args.overwrite, extra={"task": "cmudict spelling -> phonemes"})


if __name__ == "__main__":
    record = main()
    results = record["results"]
    accuracy, per = results["word_accuracy"], results["phoneme_error_rate"]
    print(f"{record['artifact']['file']}: word accuracy {accuracy:.3f}, phoneme error rate {per:.3f}")
