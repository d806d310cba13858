"""Bad inputs of what notebooks 00-03 added: dl4nlp.scalar_nn, dl4nlp.bptt, dl4nlp.ngram, the gradient references of
dl4nlp.autograd, and the experiments of notebooks 00-03 (every case fails before any training starts)."""

import random

import torch
from torch import nn

from bad_inputs.harness import cases, choice_variants, exempt, float_variants, int_variants, vary, with_nan
from dl4nlp import autograd, bptt, ngram, scalar_nn
from dl4nlp.diagrams import mlp_diagram, unrolled_rnn
from dl4nlp.experiments import backprop, rnn, start_here
from dl4nlp.gradflow import first_over_last
from dl4nlp.recipes import rnn_seed_sweep
from dl4nlp.rnn import RecurrentLM, next_token_loss
from dl4nlp.tasks import xor_blobs

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'")]

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.backprop.DepthGradients",
    "dl4nlp.experiments.backprop.HeScale",
    "dl4nlp.experiments.backprop.ResidualDepths",
    "dl4nlp.experiments.backprop.XorTraining",
    "dl4nlp.experiments.rnn.Clipping",
    "dl4nlp.experiments.rnn.GradientReachingInputs",
    "dl4nlp.experiments.rnn.JacobianProducts",
    "dl4nlp.experiments.rnn.LanguageModelRun",
    "dl4nlp.experiments.rnn.MemoryByLag",
    "dl4nlp.experiments.rnn.SeedSweepCounts",
    "dl4nlp.experiments.rnn.TruncatedMemory",
    "dl4nlp.experiments.start_here.MatmulPrecision",
)
exempt("takes no arguments (reads a shipped corpus)", "dl4nlp.experiments.rnn.shakespeare_split")


# --- autograd's gradient references -------------------------------------------------------------
@cases("dl4nlp.autograd.engine_gradients")
def _():
    good = dict(build=lambda a, b: a * b, inputs=[2.0, 3.0])
    yield from vary(autograd.engine_gradients, good, "build", [("not a function", 3.0, "float")])
    yield from vary(
        autograd.engine_gradients,
        good,
        "inputs",
        [("empty", [], "[]"), ("a NaN", [2.0, float("nan")], "nan"), ("a string", "23", "str")],
    )
    yield from vary(autograd.engine_gradients, good, "value_type", [("float, not an engine", float, "float")])


@cases("dl4nlp.autograd.torch_gradients")
def _():
    good = dict(build=lambda a, b: a * b, inputs=[2.0, 3.0])
    yield from vary(
        autograd.torch_gradients,
        good,
        "build",
        [("not a function", 3.0, "float"), ("returning a vector", lambda a, b: torch.stack([a, b]), "(2,)")],
    )
    yield from vary(
        autograd.torch_gradients, good, "inputs", [("empty", [], "[]"), ("an inf", [float("inf"), 1.0], "inf")]
    )


# --- scalar_nn -------------------------------------------------------------------------------------
@cases("dl4nlp.scalar_nn.Neuron")
def _():
    yield from vary(scalar_nn.Neuron, dict(n_inputs=2), "n_inputs", int_variants(1))
    yield from vary(scalar_nn.Neuron, dict(n_inputs=2), "nonlinearity", choice_variants(scalar_nn.NONLINEARITIES))
    yield from vary(scalar_nn.Neuron, dict(n_inputs=2), "rng", [("a seed, not a Random", 0, "int")])


def _scalar_call_cases(model, n_inputs=2):
    yield from vary(
        model,
        {},
        "x",
        [
            ("one input too many", [1.0] * (n_inputs + 1), str(n_inputs + 1)),
            ("a string", "12", "str"),
            ("a NaN", [float("nan")] * n_inputs, "nan"),
            ("strings", ["a"] * n_inputs, "'a'"),
        ],
    )


@cases("dl4nlp.scalar_nn.Neuron.__call__")
def _():
    yield from _scalar_call_cases(scalar_nn.Neuron(2, rng=random.Random(0)))


@cases("dl4nlp.scalar_nn.Layer")
def _():
    yield from vary(scalar_nn.Layer, dict(n_inputs=2, n_outputs=3), "n_outputs", int_variants(1))
    yield from vary(scalar_nn.Layer, dict(n_inputs=2, n_outputs=3), "n_inputs", int_variants(1)[:2])


@cases("dl4nlp.scalar_nn.Layer.__call__")
def _():
    yield from _scalar_call_cases(scalar_nn.Layer(2, 3, rng=random.Random(0)))


@cases("dl4nlp.scalar_nn.MLP")
def _():
    good = dict(n_inputs=2, sizes=[3, 1])
    yield from vary(
        scalar_nn.MLP,
        good,
        "sizes",
        [("empty", [], "[]"), ("a zero width", [3, 0], "0"), ("an int, not a list", 3, "3")],
    )
    yield from vary(scalar_nn.MLP, good, "seed", [("a string", "0", "'0'"), ("a float", 0.5, "0.5")])
    yield from vary(scalar_nn.MLP, good, "n_inputs", int_variants(1)[:2])


@cases("dl4nlp.scalar_nn.MLP.__call__")
def _():
    yield from _scalar_call_cases(scalar_nn.MLP(2, [3, 1]))


exempt(
    "takes no arguments (the list of a model's weights)",
    "dl4nlp.scalar_nn.Neuron.parameters",
    "dl4nlp.scalar_nn.Layer.parameters",
    "dl4nlp.scalar_nn.MLP.parameters",
)


@cases("dl4nlp.scalar_nn.hinge_loss")
def _():
    from dl4nlp.autograd import Value

    scores = [Value(0.5), Value(-1.0)]
    good = dict(scores=scores, labels=[1, -1])
    yield from vary(
        scalar_nn.hinge_loss,
        good,
        "labels",
        [("0/1 labels", [1, 0], "0"), ("one too few", [1], "1"), ("a string", "+-", "str")],
    )
    yield from vary(
        scalar_nn.hinge_loss, good, "scores", [("empty", [], "0"), ("floats, not Values", [0.5, -1.0], "float")]
    )


@cases("dl4nlp.scalar_nn.to_torch")
def _():
    yield from vary(
        scalar_nn.to_torch,
        {},
        "model",
        [("a Layer", scalar_nn.Layer(2, 3), "Layer"), ("a torch module", nn.Linear(2, 1), "Linear")],
    )


@cases("dl4nlp.scalar_nn.train_mlp")
def _():
    good = dict(
        model=scalar_nn.MLP(2, [2, 1]),
        points=[[1.0, 1.0], [-1.0, 1.0]],
        labels=[1, -1],
        steps=1,
        batch=2,
        lr=0.1,
        seed=0,
    )
    yield from vary(scalar_nn.train_mlp, good, "labels", [("one too few", [1], "1"), ("0/1 labels", [1, 0], "0")])
    yield from vary(scalar_nn.train_mlp, good, "steps", int_variants(1)[:3])
    yield from vary(scalar_nn.train_mlp, good, "batch", [("more than the points", 3, "3"), ("0", 0, "0")])
    yield from vary(scalar_nn.train_mlp, good, "lr", [("0", 0.0, "0.0"), ("NaN", float("nan"), "nan")])
    yield from vary(
        scalar_nn.train_mlp, good, "points", [("a point of 3 numbers", [[1.0, 1.0, 1.0], [-1.0, 1.0]], "3")]
    )
    yield from vary(scalar_nn.train_mlp, good, "model", [("a Neuron", scalar_nn.Neuron(2), "Neuron")])


# --- bptt --------------------------------------------------------------------------------------
def _bptt():
    params = bptt.init_rnn_lm_params(3, 4, 5, generator=torch.Generator().manual_seed(0))
    x = torch.randn(2, 6, 3, dtype=torch.float64)
    targets = torch.randint(5, (2, 6))
    return params, x, targets


@cases("dl4nlp.bptt.init_rnn_lm_params")
def _():
    good = dict(input_size=3, hidden_size=4, vocab_size=5)
    yield from vary(bptt.init_rnn_lm_params, good, "hidden_size", int_variants(1))
    yield from vary(bptt.init_rnn_lm_params, good, "vocab_size", int_variants(1)[:2])
    yield from vary(bptt.init_rnn_lm_params, good, "generator", [("a seed", 0, "int")])


def _bptt_cases(fn):
    params, x, targets = _bptt()
    good = dict(params=params, x=x, targets=targets)
    yield from vary(
        fn,
        good,
        "x",
        float_variants(x)
        + [
            ("another input size", torch.randn(2, 6, 4, dtype=torch.float64), "(2, 6, 4)"),
            ("float32 while the params are float64", x.float(), ("float32", "float64")),
        ],
    )
    yield from vary(
        fn,
        good,
        "targets",
        [
            ("(T, B)", targets.T, "(6, 2)"),
            ("a target beyond the vocabulary", torch.full((2, 6), 5), "5"),
            ("float", targets.float(), "float32"),
        ],
    )
    yield from vary(
        fn,
        good,
        "params",
        [
            ("without U", {k: v for k, v in params.items() if k != "U"}, "U"),
            ("a NaN in W_h", {**params, "W_h": with_nan(params["W_h"])}, "nan"),
            ("U in float32, the others float64", {**params, "U": params["U"].float()}, ("float32", "float64")),
        ],
    )


@cases("dl4nlp.bptt.check_rnn_lm_inputs")
def _():
    yield from _bptt_cases(bptt.check_rnn_lm_inputs)


@cases("dl4nlp.bptt.rnn_lm_gradients")
def _():
    yield from _bptt_cases(bptt.rnn_lm_gradients)
    params, x, targets = _bptt()
    yield from vary(
        bptt.rnn_lm_gradients,
        dict(params=params, x=x, targets=targets),
        "h0",
        [("(1, B, H)", torch.zeros(1, 2, 4, dtype=torch.float64), "(1, 2, 4)")],
    )


@cases("dl4nlp.bptt.rnn_lm_autograd_gradients")
def _():
    yield from _bptt_cases(bptt.rnn_lm_autograd_gradients)


@cases("dl4nlp.bptt.rnn_lm_forward")
def _():
    params, x, _ = _bptt()
    good = dict(params=params, x=x)
    yield from vary(bptt.rnn_lm_forward, good, "x", float_variants(x)[:6])
    yield from vary(
        bptt.rnn_lm_forward,
        good,
        "h0",
        [
            ("(1, B, H)", torch.zeros(1, 2, 4, dtype=torch.float64), "(1, 2, 4)"),
            ("a batch-1 state", torch.zeros(1, 4, dtype=torch.float64), "(1, 4)"),
            ("float32 while the params are float64", torch.zeros(2, 4), ("float32", "float64")),
        ],
    )
    yield from vary(bptt.rnn_lm_forward, good, "params", [("a list", [1.0], "list")])


# --- ngram -------------------------------------------------------------------------------------
@cases("dl4nlp.ngram.perplexity")
def _():
    yield from vary(
        ngram.perplexity,
        {},
        "loss",
        [
            ("negative", -1.0, "-1.0"),
            ("NaN", float("nan"), "nan"),
            ("a string", "2", "'2'"),
            ("a tensor", torch.tensor(2.0), "tensor"),
        ],
    )


@cases("dl4nlp.ngram.count_probabilities")
def _():
    good = dict(train_ids=torch.randint(5, (40,)), vocab_size=5)
    yield from vary(ngram.count_probabilities, good, "order", [("3", 3, "3"), ("True", True, "True")])
    yield from vary(ngram.count_probabilities, good, "add", [("0", 0.0, "0.0"), ("inf", float("inf"), "inf")])
    yield from vary(
        ngram.count_probabilities,
        good,
        "train_ids",
        [("an id beyond the vocabulary", torch.tensor([0, 5]), "5"), ("float", torch.zeros(4), "float32")],
    )
    yield from vary(ngram.count_probabilities, good, "vocab_size", int_variants(1)[:2])
    yield (
        "a bigram model of one id",
        lambda: ngram.count_probabilities(torch.tensor([1]), 5, order=2),
        ("bigram", "1"),
    )


@cases("dl4nlp.ngram.count_model_loss")
def _():
    train = torch.randint(5, (40,))
    windows = torch.randint(5, (3, 6))
    good = dict(train_ids=train, windows=windows, vocab_size=5)
    yield from vary(ngram.count_model_loss, good, "order", [("3", 3, "3"), ("a string", "1", "'1'")])
    yield from vary(ngram.count_model_loss, good, "add", [("0", 0.0, "0.0"), ("NaN", float("nan"), "nan")])
    yield from vary(
        ngram.count_model_loss,
        good,
        "windows",
        [
            ("one column", windows[:, :1], "(3, 1)"),
            ("an id beyond the vocabulary", torch.full((3, 6), 5), "5"),
            ("float", windows.float(), "float32"),
        ],
    )
    yield from vary(
        ngram.count_model_loss, good, "train_ids", [("empty", train[:0], "(0,)"), ("2-D", train.view(4, 10), "(4, 10)")]
    )
    yield from vary(ngram.count_model_loss, good, "vocab_size", int_variants(1)[:2])


@cases("dl4nlp.ngram.SmoothingCurves")
def _():
    train, heldout = torch.randint(5, (40,)), torch.randint(5, (10,))
    good = dict(train_ids=train, heldout_ids=heldout, vocab_size=5, sizes=[10, 40])
    yield from vary(
        ngram.SmoothingCurves,
        good,
        "sizes",
        [("a size beyond the text", [10, 41], "41"), ("empty", [], "[]"), ("a float", [10.0], "10.0")],
    )
    yield from vary(
        ngram.SmoothingCurves,
        good,
        "heldout_ids",
        [("one id", heldout[:1], "(1,)"), ("an id beyond the vocabulary", torch.tensor([0, 5]), "5")],
    )
    yield from vary(ngram.SmoothingCurves, good, "train_ids", [("float", train.float(), "float32")])
    yield from vary(ngram.SmoothingCurves, good, "vocab_size", int_variants(1)[:2])


@cases("dl4nlp.ngram.SmoothingCurves.__call__")
def _():
    curves = ngram.SmoothingCurves(torch.randint(5, (40,)), torch.randint(5, (10,)), 5, [10, 40])
    yield from vary(curves, {}, "k", [("0", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "1", "'1'")])


# --- small additions to existing modules ------------------------------------------------------
@cases("dl4nlp.gradflow.first_over_last")
def _():
    yield from vary(
        first_over_last,
        {},
        "norms",
        [
            ("one layer", [1.0], "(1,)"),
            ("a zero", [0.0, 1.0], "0."),
            ("strings", ["a", "b"], "'a'"),
            ("2-D", [[1.0, 2.0]], "(1, 2)"),
        ],
    )


@cases("dl4nlp.rnn.next_token_loss")
def _():
    torch.manual_seed(0)
    model = RecurrentLM(10, 8, "rnn", 4)
    windows = torch.randint(10, (2, 6))
    good = dict(model=model, windows=windows)
    yield from vary(
        next_token_loss,
        good,
        "windows",
        [
            ("one column", windows[:, :1], "(2, 1)"),
            ("an id beyond the vocabulary", torch.full((2, 6), 10), "10"),
            ("a string", "abc", "str"),
            ("float", windows.float(), "float32"),
        ],
    )
    yield from vary(next_token_loss, good, "model", [("a string", "lm", "str")])


@cases("dl4nlp.tasks.xor_blobs")
def _():
    yield from vary(xor_blobs, dict(n=8), "n", int_variants(4))
    yield from vary(xor_blobs, dict(n=8), "spread", [("negative", -0.1, "-0.1"), ("NaN", float("nan"), "nan")])
    yield from vary(xor_blobs, dict(n=8), "generator", [("a seed", 0, "int")])


@cases("dl4nlp.diagrams.unrolled_rnn")
def _():
    yield from vary(unrolled_rnn, dict(model=nn.RNN(8, 16)), "steps", int_variants(1) + [("9", 9, "9")])
    yield from vary(
        unrolled_rnn,
        dict(model=nn.RNN(8, 16)),
        "model",
        [("a string", "rnn", "str"), ("an LSTM", nn.LSTM(8, 16), "LSTM")],
    )


@cases("dl4nlp.diagrams.mlp_diagram")
def _():
    good = dict(model=scalar_nn.MLP(2, [4, 1]))
    yield from vary(
        mlp_diagram,
        good,
        "model",
        [
            ("a string", "mlp", "str"),
            ("a bare Linear", nn.Linear(2, 4), "Linear"),
            ("an empty Sequential", nn.Sequential(), "empty"),
            ("widths that do not chain", nn.Sequential(nn.Linear(2, 8), nn.Linear(4, 1)), ("8", "Linear(4, 1)")),
            ("an activation first", nn.Sequential(nn.ReLU(), nn.Linear(2, 1)), ("Linear", "ReLU")),
            ("a Dropout layer", nn.Sequential(nn.Linear(2, 4), nn.Dropout(0.1)), "Dropout"),
        ],
    )


# --- experiments of notebooks 00-03 ----------------------------------------------------------------
@cases("dl4nlp.experiments.start_here.matmul_precision")
def _():
    yield from vary(start_here.matmul_precision, {}, "seed", SEEDS)
    yield from vary(start_here.matmul_precision, {}, "device", [("an unknown device", "gpu", "'gpu'")])
    yield from vary(
        start_here.matmul_precision, {}, "shape", [("two sizes", (4, 4), "(4, 4)"), ("a zero", (4, 0, 4), "0")]
    )


@cases("dl4nlp.experiments.start_here.MatmulPrecision.tolerance")
def _():
    yield from vary(
        start_here.MatmulPrecision.tolerance,
        {},
        "dtype",
        [
            ("an unknown dtype", "torch.float12", "float12"),
            ("an integer dtype", "torch.int64", "int64"),
            ("a torch.dtype", torch.float32, "float32"),
        ],
    )


@cases("dl4nlp.experiments.backprop.depth_gradients")
def _():
    yield from vary(backprop.depth_gradients, {}, "seed", SEEDS)
    yield from vary(backprop.depth_gradients, {}, "depth", int_variants(2)[:3])


@cases("dl4nlp.experiments.backprop.he_scale")
def _():
    yield from vary(backprop.he_scale, {}, "seed", SEEDS[:1])
    yield from vary(
        backprop.he_scale, {}, "depths", [("a depth of 1", (1, 20), "1"), ("an int, not a tuple", 20, "int")]
    )
    yield from vary(backprop.he_scale, {}, "networks", int_variants(1)[:2])


@cases("dl4nlp.experiments.backprop.residual_depths")
def _():
    yield from vary(backprop.residual_depths, {}, "seed", SEEDS[:2])
    yield from vary(backprop.residual_depths, {}, "depths", [("empty", (), "()"), ("a string", "10", "str")])


@cases("dl4nlp.experiments.backprop.xor_mlp")
def _():
    yield from vary(backprop.xor_mlp, {}, "seed", SEEDS[:2])
    yield from vary(backprop.xor_mlp, {}, "hidden", int_variants(1)[:2])
    yield from vary(backprop.xor_mlp, {}, "steps", int_variants(1)[:2])


@cases("dl4nlp.experiments.rnn.jacobian_products")
def _():
    yield from vary(rnn.jacobian_products, {}, "seed", SEEDS[:2])
    yield from vary(
        rnn.jacobian_products, {}, "radii", [("a zero radius", (0.0, 1.0), "0.0"), ("one number", 1.0, "float")]
    )
    yield from vary(rnn.jacobian_products, {}, "distance", int_variants(1)[:2])


@cases("dl4nlp.experiments.rnn.gradient_reaching_inputs")
def _():
    yield from vary(rnn.gradient_reaching_inputs, {}, "seed", SEEDS[:2])
    yield from vary(rnn.gradient_reaching_inputs, {}, "radii", [("a negative radius", (-1.0,), "-1.0")])


@cases("dl4nlp.experiments.rnn.irnn")
def _():
    yield from vary(rnn.irnn, dict(seed=0), "seed", SEEDS[:2])
    yield from vary(rnn.irnn, dict(seed=0), "hidden_size", int_variants(1)[:2])


@cases("dl4nlp.experiments.rnn.memory_model")
def _():
    good = dict(variant=rnn.VARIANTS[0], seed=0)
    yield from vary(rnn.memory_model, good, "variant", choice_variants(rnn.VARIANTS))
    yield from vary(rnn.memory_model, good, "seed", SEEDS[:2])


@cases("dl4nlp.experiments.rnn.clipping")
def _():
    yield from vary(rnn.clipping, {}, "seed", SEEDS[:2])
    yield from vary(rnn.clipping, {}, "runs", int_variants(1)[:2])
    yield from vary(rnn.clipping, {}, "lr", [("0", 0.0, "0.0")])


@cases("dl4nlp.experiments.rnn.Clipping.final")
def _():
    result = rnn.Clipping((0,), ((1.0,),), ((1.0,),), (False,), (False,), 1)
    yield from vary(result.final, {}, "losses", [("a string", "1.0", "str"), ("a NaN", (float("nan"),), "nan")])


@cases("dl4nlp.experiments.rnn.memory_by_lag")
def _():
    yield from vary(rnn.memory_by_lag, {}, "seed", SEEDS[:2])
    yield from vary(rnn.memory_by_lag, {}, "lags", [("a zero lag", (0, 5), "0")])
    yield from vary(rnn.memory_by_lag, {}, "variants", [("an unknown variant", ("lstm",), "'lstm'")])


@cases("dl4nlp.experiments.rnn.truncated_memory")
def _():
    yield from vary(rnn.truncated_memory, {}, "seed", SEEDS[:1])
    yield from vary(rnn.truncated_memory, {}, "k", [("zero", 0, "0")])
    yield from vary(rnn.truncated_memory, {}, "lag", [("a string", "20", "'20'")])


@cases("dl4nlp.bptt.truncated_bptt_loss")
def _():
    import torch

    from dl4nlp.bptt import truncated_bptt_loss
    from dl4nlp.rnn import RecurrentLM

    good = dict(
        model=RecurrentLM(5, hidden_size=4, kind="rnn", embedding_dim=3), ids=torch.zeros(2, 6, dtype=torch.long), k=2
    )
    yield from vary(truncated_bptt_loss, good, "model", [("an nn.RNN", torch.nn.RNN(3, 4), "RNN")])
    yield from vary(truncated_bptt_loss, good, "ids", [("an id past the vocabulary", torch.full((2, 6), 7), "7")])
    yield from vary(truncated_bptt_loss, good, "ids", [("one position", torch.zeros(2, 1, dtype=torch.long), "(2, 1)")])
    yield from vary(truncated_bptt_loss, good, "k", [("zero", 0, "0")])


@cases("dl4nlp.experiments.rnn.irnn_learning_rate")
def _():
    yield from vary(rnn.irnn_learning_rate, {}, "seed", SEEDS[:1])
    yield from vary(rnn.irnn_learning_rate, {}, "lr", [("negative", -1.0, "-1.0")])
    yield from vary(rnn.irnn_learning_rate, {}, "lag", int_variants(1)[:2])


@cases("dl4nlp.experiments.rnn.initial_gradient_ratio")
def _():
    yield from vary(rnn.initial_gradient_ratio, {}, "seed", SEEDS[:2])
    yield from vary(rnn.initial_gradient_ratio, {}, "lag", int_variants(1)[:2])


@cases("dl4nlp.experiments.rnn.language_model")
def _():
    yield from vary(rnn.language_model, {}, "seed", SEEDS[:2])
    yield from vary(rnn.language_model, {}, "steps", int_variants(1)[:2])


@cases("dl4nlp.scalar_nn.flat_parameters")
def _():
    twin = scalar_nn.to_torch(scalar_nn.MLP(2, [3, 1], seed=0))
    good = dict(twin=twin)
    yield from vary(scalar_nn.flat_parameters, good, "twin", [("an MLP, not its twin", scalar_nn.MLP(2, [1]), "MLP")])
    yield from vary(scalar_nn.flat_parameters, good, "twin", [("no linear layer", nn.Sequential(nn.Tanh()), "none")])
    yield "grad: before backward", lambda: scalar_nn.flat_parameters(twin, grad=True), ("grad", "None")


exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.rnn_seed_sweep.main",
)


@cases("dl4nlp.recipes.rnn_seed_sweep.seed_row")
def _():
    yield from vary(rnn_seed_sweep.seed_row, {}, "seed", [("negative", -1, "-1"), ("a string", "0", "'0'")])


@cases("dl4nlp.experiments.rnn.plot_jacobian_products")
def _():
    yield from vary(rnn.plot_jacobian_products, {}, "result", [("a dict", {0.5: [1.0]}, "dict")])


@cases("dl4nlp.experiments.rnn.plot_clipping")
def _():
    yield from vary(rnn.plot_clipping, {}, "run", [("a list of losses", [[1.0, 0.5]], "list")])


@cases("dl4nlp.experiments.rnn.plot_memory_by_lag")
def _():
    good = dict(accuracy={"IRNN": (1.0, 0.9)}, lags=(5, 50), larger_lr=0.3)
    yield from vary(
        rnn.plot_memory_by_lag,
        good,
        "accuracy",
        [("a list", [(1.0, 0.9)], "list"), ("one number too few", {"IRNN": (1.0,)}, "IRNN")],
    )
    yield from vary(rnn.plot_memory_by_lag, good, "lags", [("a zero lag", (0, 50), "0"), ("a string", "5", "'5'")])
    yield from vary(rnn.plot_memory_by_lag, good, "larger_lr", [("above 1", 1.5, "1.5")])


@cases("dl4nlp.experiments.rnn.load_seed_sweep")
def _():
    yield from vary(rnn.load_seed_sweep, {}, "path", [("a missing file", "no_such_sweep.json", "no_such_sweep.json"),
                                                      ("a number", 3, "int")])  # fmt: skip


@cases("dl4nlp.experiments.rnn.seed_sweep_counts")
def _():
    row = {"seed": 0, "irnn_lag50": 0.99, "clipped_final": [0.3] * 4, "clipped_diverged": [False] * 4,
           "unclipped_failed": 4}  # fmt: skip
    tables = [
        ("a list", [row], "list"),
        ("no seeds", {"seeds": []}, "seeds"),
        ("a row out of order", {"seeds": [{**row, "seed": 3}]}, "row 0"),
        ("a row without the IRNN", {"seeds": [{k: v for k, v in row.items() if k != "irnn_lag50"}]}, "row 0"),
    ]
    yield from vary(rnn.seed_sweep_counts, {}, "table", tables)
