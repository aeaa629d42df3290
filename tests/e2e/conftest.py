"""A real llama.cpp server with the Qwen2.5-Coder 0.5B model, shared by e2e tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import pytest_socket

from scripts.llm_server import LlamaServer
from scripts.models import MODELS_DIR, model_path

# The voice pipeline tests run Jarvis's real Wyoming servers too.
from tests.wyoming.conftest import (  # noqa: F401
    all_port,
    piper,
    serve,
    stt_service,
    tts_service,
    voice_dir,
    wake_dir,
    wake_service,
)

MODEL = "qwen2.5-coder-0.5b"


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    """Started once per session; `make test` fetches the model first."""
    path = model_path(MODEL)
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make models` first")
    server = LlamaServer(path, ctx=8192, log_path=MODELS_DIR.parent / "llama-e2e.log")
    # Session fixtures run outside the per-test socket allowance.
    pytest_socket.enable_socket()
    try:
        server.start()
    finally:
        pytest_socket.disable_socket(allow_unix_socket=True)
    yield server
    server.stop()
