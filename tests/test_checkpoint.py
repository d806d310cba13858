"""The one checkpoint format: round trip, checksums, atomic writes, refusals, and no code execution on load."""

import json

import pytest
import torch

from dl4nlp.checkpoint import (
    atomic_write,
    check_output,
    load_checkpoint,
    provenance_path,
    save_checkpoint,
    save_table,
    sha256sum,
    verify_checksum,
)


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "model.pt"
    record = save_checkpoint(
        path,
        kind="demo",
        config={"hidden": 3},
        state_dict={"w": torch.arange(6.0).view(2, 3)},
        extra={"vocab": "abc"},
        provenance={"command": "test", "seed": 0},
    )
    return path, record


def test_round_trip_and_provenance(saved):
    path, record = saved
    loaded = load_checkpoint(path, "demo")
    assert loaded.config == {"hidden": 3} and loaded.extra == {"vocab": "abc"}
    assert torch.equal(loaded.state_dict["w"], torch.arange(6.0).view(2, 3))
    on_disk = json.loads(provenance_path(path).read_text())
    assert on_disk == record and on_disk["artifact"]["sha256"] == sha256sum(path)
    assert on_disk["command"] == "test" and on_disk["environment"]["torch"] == torch.__version__


def test_wrong_kind_is_refused(saved):
    path, _ = saved
    with pytest.raises(ValueError, match="holds a 'demo' checkpoint; expected a 'char_lstm'"):
        load_checkpoint(path, "char_lstm")


def test_one_flipped_byte_is_detected(saved):
    path, _ = saved
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="damaged or was replaced"):
        load_checkpoint(path, "demo")


def test_truncated_and_empty_files(saved):
    path, _ = saved
    full = path.read_bytes()
    path.write_bytes(full[: len(full) // 2])
    with pytest.raises(ValueError, match="truncated"):
        load_checkpoint(path, "demo")
    with pytest.raises(ValueError, match="could not be read"):
        load_checkpoint(path, "demo", verify=False)
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        load_checkpoint(path, "demo")


def test_missing_file_and_missing_provenance(saved, tmp_path):
    path, _ = saved
    with pytest.raises(FileNotFoundError, match="expected a 'demo' checkpoint"):
        load_checkpoint(tmp_path / "nope.pt", "demo")
    provenance_path(path).unlink()
    with pytest.raises(FileNotFoundError, match="provenance"):
        load_checkpoint(path, "demo")


class _Exploit:
    def __reduce__(self):
        return (exec, ("import pathlib; pathlib.Path('PWNED').write_text('x')",))


def test_a_crafted_pickle_cannot_run_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil.pt"
    torch.save({"format": "dl4nlp-checkpoint", "payload": _Exploit()}, path)
    with pytest.raises(ValueError, match="weights_only=True"):
        load_checkpoint(path, "demo", verify=False)
    assert not (tmp_path / "PWNED").exists()


def test_not_a_dl4nlp_checkpoint(tmp_path):
    path = tmp_path / "plain.pt"
    torch.save({"state_dict": {}}, path)
    with pytest.raises(ValueError, match="not a dl4nlp checkpoint"):
        load_checkpoint(path, "demo", verify=False)


def test_existing_files_are_never_replaced_unless_asked(saved):
    path, _ = saved
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match="--overwrite"):
        save_checkpoint(path, kind="demo", config={}, state_dict={}, provenance={})
    assert path.read_bytes() == before
    save_checkpoint(path, kind="demo", config={}, state_dict={}, provenance={}, overwrite=True)
    verify_checksum(path)


def test_the_provenance_of_a_new_output_never_replaces_a_file_unless_asked(tmp_path):
    """``--out results.pt`` beside another recipe's ``results.json``: refused before any work, both kept."""
    results = tmp_path / "results.json"
    results.write_text('{"runs": 152}')
    with pytest.raises(FileExistsError, match=r"results\.json exists, and the provenance of results\.pt would"):
        check_output(tmp_path / "results.pt", suffix=".pt")
    with pytest.raises(FileExistsError, match="--overwrite"):
        save_checkpoint(tmp_path / "results.pt", kind="demo", config={}, state_dict={}, provenance={})
    with pytest.raises(FileExistsError, match="--overwrite"):
        save_table(tmp_path / "results.csv", [{"a": 1}], provenance={})
    assert results.read_text() == '{"runs": 152}' and sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]
    assert check_output(tmp_path / "results.pt", overwrite=True) == tmp_path / "results.pt"
    assert check_output(tmp_path / "other.json", suffix=".json") == tmp_path / "other.json"  # JSON output: none


def test_a_checkpoint_path_must_end_in_pt(tmp_path):
    with pytest.raises(ValueError, match=r"must be a \.pt file"):
        check_output(tmp_path / "results.json", suffix=".pt")


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "keep.txt"
    path.write_text("good")

    def crash(tmp):
        tmp.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, crash)
    assert path.read_text() == "good"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="kind must be a non-empty string"):
        save_checkpoint(tmp_path / "a.pt", kind="", config={}, state_dict={}, provenance={})
    with pytest.raises(TypeError, match="state_dict must map names to tensors"):
        save_checkpoint(tmp_path / "a.pt", kind="k", config={}, state_dict={"w": [1.0]}, provenance={})
    with pytest.raises(TypeError, match="config must be a dataclass instance or a mapping"):
        save_checkpoint(tmp_path / "a.pt", kind="k", config=3, state_dict={}, provenance={})


def test_reproducing_a_recipe_needs_its_torch_kernels_and_threads():
    from dl4nlp.checkpoint import environment
    from dl4nlp.recipes import not_reproducible_here, recorded_threads

    here = {"environment": environment()}
    assert not_reproducible_here(here) is None
    other = {"environment": {**here["environment"], "kernel_fingerprint": "0123456789abcdef"}}
    assert "kernel fingerprint" in not_reproducible_here(other)  # the same version strings, other bits
    unrecorded = {"environment": {k: v for k, v in here["environment"].items() if k != "kernel_fingerprint"}}
    assert "kernel fingerprint" in not_reproducible_here(unrecorded)  # not recorded: never bit for bit here
    before = torch.get_num_threads()
    with pytest.raises(KeyboardInterrupt), recorded_threads({"environment": {"torch_threads": 1}}):
        assert torch.get_num_threads() == 1
        raise KeyboardInterrupt
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match=r"torch_threads'\] must be an integer >= 1; got 0"):
        with recorded_threads({"environment": {"torch_threads": 0}}):
            pass
