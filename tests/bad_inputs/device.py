"""Bad inputs of dl4nlp.device."""

import torch

from bad_inputs.harness import cases, exempt, vary
from dl4nlp import device as D

exempt("takes no arguments", "dl4nlp.device.available_devices")

DEVICE_VARIANTS = [
    ("an unknown name", "gpu", "'gpu'"),
    ("an int", 3, "3"),
    ("a list", ["cpu"], "list"),
]


@cases("dl4nlp.device.autocast")
def _():
    yield from vary(D.autocast, {}, "device", DEVICE_VARIANTS + [("None", None, "None")])


@cases("dl4nlp.device.native_bfloat16")
def _():
    yield from vary(D.native_bfloat16, {}, "device", DEVICE_VARIANTS + [("None", None, "None")])


@cases("dl4nlp.device.describe_environment")
def _():
    yield from vary(D.describe_environment, {}, "device", DEVICE_VARIANTS)


@cases("dl4nlp.device.get_device")
def _():
    yield from vary(
        D.get_device,
        {},
        "preference",
        [
            ("an unknown name", "gpu", "'gpu'"),
            ("an int", 0, "0"),
            ("a torch.device", torch.device("cpu"), "device"),
        ]
        + ([] if torch.cuda.is_available() else [("cuda on a machine without one", "cuda", "'cuda'")]),
    )


@cases("dl4nlp.device.seed_everything")
def _():
    yield from vary(
        D.seed_everything,
        {},
        "seed",
        [
            ("negative", -1, "-1"),
            ("2**32", 2**32, str(2**32)),
            ("a float", 2.5, "2.5"),
            ("a string", "0", "'0'"),
            ("True", True, "True"),
            ("None", None, "None"),
        ],
    )
