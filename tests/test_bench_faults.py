"""The measuring side of bench.faults: its proxy passes a fault through as it
is, counts what the server sent, and passes the client's leaving back."""

from __future__ import annotations

import asyncio
from contextlib import aclosing

import pytest

from bench.fault_servers import CountingProxy
from custom_components.jarvis.engine.llm import create_client
from custom_components.jarvis.engine.llm.base import (
    ChatRequest,
    LLMResponseError,
)
from custom_components.jarvis.engine.types import Message
from tests.scripted_llm import Reply, ScriptedLLMServer


@pytest.mark.parametrize("backend", ["openai", "ollama"])
async def test_the_proxy_passes_a_fault_through_and_counts_it(
    scripted_llm: ScriptedLLMServer, backend: str
) -> None:
    scripted_llm.script(Reply(content="Hi. ", long_line=1024 * 1024, hang=True))
    proxy = CountingProxy(int(scripted_llm.url.rsplit(":", 1)[1]))
    await proxy.start()
    client = create_client(backend, f"http://127.0.0.1:{proxy.port}")
    request = ChatRequest(model="test-model", messages=[Message("user", "hi")])

    async def read() -> None:
        async with aclosing(client.chat_stream(request)) as stream:
            async for _ in stream:
                pass

    try:
        with pytest.raises(LLMResponseError, match="over 512 KiB"):
            await read()
        # Jarvis's leaving reached the server, through the proxy.
        async with asyncio.timeout(5):
            await scripted_llm.wait_for_disconnects()
    finally:
        await client.close()
        await proxy.stop()
    assert proxy.sent > 512 * 1024
