"""dl4nlp.device: device choice and its errors, seeding, autocast, the summary line."""

import contextlib
import random

import numpy as np
import pytest
import torch

import dl4nlp
from dl4nlp import device as device_module

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv("DL4NLP_DEVICE", raising=False)
    return monkeypatch


def fake_hardware(monkeypatch, cuda: bool, mps: bool) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(device_module, "_mps_available", lambda: mps)


@pytest.mark.parametrize(
    "cuda, mps, expected", [(True, True, "cuda"), (True, False, "cuda"), (False, True, "mps"), (False, False, "cpu")]
)
def test_preference_order_is_cuda_then_mps_then_cpu(no_env, cuda, mps, expected):
    fake_hardware(no_env, cuda, mps)
    assert dl4nlp.get_device().type == expected


def test_cpu_override_wins_even_with_a_gpu(no_env):
    fake_hardware(no_env, cuda=True, mps=True)
    no_env.setenv("DL4NLP_DEVICE", "cpu")
    assert dl4nlp.get_device() == torch.device("cpu")


def test_override_is_case_and_space_insensitive(no_env):
    no_env.setenv("DL4NLP_DEVICE", " CPU ")
    assert dl4nlp.get_device().type == "cpu"


def test_empty_override_means_automatic(no_env):
    fake_hardware(no_env, cuda=False, mps=False)
    no_env.setenv("DL4NLP_DEVICE", "")
    assert dl4nlp.get_device().type == "cpu"


def test_unknown_override_names_value_and_choices(no_env):
    no_env.setenv("DL4NLP_DEVICE", "tpu")
    with pytest.raises(ValueError) as info:
        dl4nlp.get_device()
    message = str(info.value)
    assert "'tpu'" in message and "DL4NLP_DEVICE" in message
    assert all(choice in message for choice in ("cpu", "cuda", "mps"))


def test_unavailable_override_names_value_and_what_exists(no_env):
    fake_hardware(no_env, cuda=False, mps=False)
    no_env.setenv("DL4NLP_DEVICE", "cuda")
    with pytest.raises(RuntimeError) as info:
        dl4nlp.get_device()
    assert "'cuda'" in str(info.value) and "('cpu',)" in str(info.value)


def test_argument_beats_environment(no_env):
    no_env.setenv("DL4NLP_DEVICE", "tpu")
    assert dl4nlp.get_device("cpu").type == "cpu"
    with pytest.raises(TypeError, match="got 3"):
        dl4nlp.get_device(3)


def test_seed_everything_makes_all_generators_repeat():
    def draw():
        return random.random(), np.random.rand(), torch.rand(1).item()

    dl4nlp.seed_everything(123)
    first = draw()
    dl4nlp.seed_everything(123)
    assert draw() == first
    dl4nlp.seed_everything(124)
    assert draw() != first


@pytest.mark.parametrize("bad", [-1, 2**32, 1.5, "0", True])
def test_seed_everything_rejects_bad_seeds(bad):
    with pytest.raises(ValueError, match="seed must be an integer"):
        dl4nlp.seed_everything(bad)


def test_autocast_is_a_no_op_on_cpu():
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    with dl4nlp.autocast("cpu"):
        product = a @ b
    assert product.dtype == torch.float32
    assert torch.equal(product, a @ b)


@pytest.mark.parametrize(
    "capability, emulated, native",
    [((7, 5), True, False), ((7, 0), True, False), ((8, 0), True, True), ((9, 0), True, True)],
    ids=["T4 (7.5, emulated bf16)", "V100 (7.0)", "A100 (8.0)", "H100 (9.0)"],
)
def test_autocast_gates_on_native_bfloat16_not_on_emulation(monkeypatch, capability, emulated, native):
    # issue 24: torch.cuda.is_bf16_supported() answers True on a T4 through emulation; autocast must not
    from dl4nlp import device as D

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: emulated)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: capability)
    monkeypatch.setattr(torch.version, "hip", None)
    assert D.native_bfloat16("cuda") is native
    context = D.autocast("cuda")
    if native:
        assert isinstance(context, torch.autocast) and context.fast_dtype == torch.bfloat16
    else:
        assert isinstance(context, contextlib.nullcontext)


def test_native_bfloat16_is_false_off_cuda(monkeypatch):
    from dl4nlp import device as D

    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)
    assert D.native_bfloat16("cpu") is False
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert D.native_bfloat16(torch.device("cuda")) is False


def test_describe_environment_cpu(no_env):
    line = dl4nlp.describe_environment("cpu")
    assert f"torch {torch.__version__}" in line and "device: cpu" in line and "\n" not in line
    assert dl4nlp.__version__ in line


@needs_cuda
def test_autocast_uses_bfloat16_on_cuda():
    a = torch.randn(8, 8, device="cuda")
    with dl4nlp.autocast("cuda"):
        product = a @ a
    native = torch.cuda.get_device_capability(0)[0] >= 8 or bool(torch.version.hip)
    assert product.dtype == (torch.bfloat16 if native else torch.float32)


@needs_cuda
def test_describe_environment_names_the_gpu(no_env):
    assert torch.cuda.get_device_name(0) in dl4nlp.describe_environment("cuda")


@needs_cuda
def test_cuda_is_picked_first_on_a_gpu_machine(no_env):
    assert dl4nlp.get_device().type == "cuda"


def test_start_puts_torch_on_one_cpu_thread_unless_told_otherwise(monkeypatch, capsys):
    from dl4nlp.notebook import start

    monkeypatch.setenv("DL4NLP_DEVICE", "cpu")
    before = torch.get_num_threads()
    try:
        assert start(seed=0).type == "cpu" and torch.get_num_threads() == 1
        assert "device: cpu (1 thread)" in capsys.readouterr().out
        torch.set_num_threads(2)
        start(seed=0, threads=None)
        assert torch.get_num_threads() == 2
        for bad in (0, -1, 1.5, True, "2"):
            with pytest.raises(ValueError, match="threads must be a positive int or None"):
                start(seed=0, threads=bad)
    finally:
        torch.set_num_threads(before)
