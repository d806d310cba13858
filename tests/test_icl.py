"""dl4nlp.icl: the prompts say what they claim, the reference readers are right, the shipped model loads."""

import math

import torch

from dl4nlp import icl


def test_query_batch_puts_exactly_count_examples_of_the_query_key_before_it():
    for count in (0, 1, 4, 11):
        batch = icl.query_batch(50, count, torch.Generator().manual_seed(count))
        keys = batch.ids[:, 0::2] - 64
        assert ((keys[:, :-1] == keys[:, -1:]).sum(1) == count).all()
        assert (batch.count[:, -1] == count).all()
        examples = batch.ids[:, 1::2]
        assert ((examples // 8) == keys).all(), "each example carries its question's key"


def test_without_noise_every_example_shows_its_tables_value():
    batch = icl.mapping_batch(20, torch.Generator().manual_seed(1), dict(noise=0.0))
    assert torch.equal(batch.ids[:, 1::2] % 8, batch.true)
    keys = batch.ids[:, 0::2] - 64
    for row in range(20):  # one table per prompt: the same key always has the same true value
        for k in keys[row].unique():
            assert batch.true[row][keys[row] == k].unique().numel() == 1


def test_the_control_draws_its_examples_from_another_table():
    sizes = dict(noise=0.0)
    batch = icl.query_batch(400, 4, torch.Generator().manual_seed(2), sizes, corrupt=True)
    keys = batch.ids[:, 0::2] - 64
    shown = batch.ids[:, 1::2] % 8
    same_key = keys[:, :-1] == keys[:, -1:]
    agree = (shown[:, :-1] == batch.true[:, -1:])[same_key].float().mean().item()
    assert abs(agree - 1 / 8) < 0.05, agree


def test_ideal_accuracy_is_the_majority_vote_by_simulation():
    generator = torch.Generator().manual_seed(3)
    for count in (1, 2, 3, 5):
        n, right = 20_000, 0
        true = torch.zeros(n, dtype=torch.long)
        noisy = torch.rand(n, count, generator=generator) < 0.25
        shown = torch.where(noisy, torch.randint(0, 8, (n, count), generator=generator), true[:, None])
        votes = torch.nn.functional.one_hot(shown, 8).sum(1).float()
        votes += 1e-3 * torch.rand(n, 8, generator=generator)  # ties broken at random
        right = (votes.argmax(1) == true).float().mean().item()
        assert abs(right - icl.ideal_accuracy(count)) < 0.01, (count, right)
    assert icl.ideal_accuracy(0) == 1 / 8 and icl.copy_last_accuracy(0) == 1 / 8
    assert math.isclose(icl.ideal_accuracy(1), icl.copy_last_accuracy(1))


def test_a_fresh_model_starts_near_a_uniform_guess_over_all_tokens():
    torch.manual_seed(0)
    model = icl.icl_model()
    loss = icl.icl_loss(model, icl.mapping_batch(16, torch.Generator().manual_seed(0)))
    assert abs(loss.item() - math.log(72)) < 0.1


def test_show_prompt_writes_keys_small_and_values_capital():
    text = icl.show_prompt(icl.query_batch(1, 2, torch.Generator().manual_seed(0)))
    pieces = text.split("  ")
    assert len(pieces) == 12 and pieces[-1].endswith("→?")
    assert all(p[0] in "abcdefgh" and p[2] in "ABCDEFGH" for p in pieces[:-1])


def test_the_shipped_model_loads_at_todays_sizes_and_reads_its_prompts():
    model, checkpoint = icl.load_icl_model()
    assert checkpoint.extra["sizes"] == icl.ICL_SIZES
    accuracy = icl.accuracy_by_examples(model, torch.Generator().manual_seed(5), n=200, counts=[0, 8])
    assert accuracy[0] < 0.25 and accuracy[8] > 0.9


def test_the_recipe_reproduces_seed_0s_first_losses():
    """Re-running the recipe's training (5 steps) gives the shipped first loss (recorded to 5 decimals)."""
    _, checkpoint = icl.load_icl_model()
    shipped = checkpoint.provenance["results"]["seeds"][0]["loss"]
    _, losses = icl.train_icl_model(0, dict(steps=5))
    assert abs(losses[0] - shipped[0]) < 2e-5, (losses[0], shipped[0])
