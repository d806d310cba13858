"""Bad inputs of the part-of-speech tagging recipe of notebook 13 (its argument checks come from argparse)."""

from bad_inputs.harness import exempt

exempt(
    "the command line of a recipe (argparse reports bad arguments; --out, --seeds, --budgets, --jobs are checked "
    "before any training)",
    "dl4nlp.recipes.pos_tagging.main",
)
exempt("takes no arguments (the recipe's argument parser)", "dl4nlp.recipes.pos_tagging.parser")
