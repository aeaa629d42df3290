"""The OpenAI-compatible client: llama.cpp's tokenizer, and a closed client."""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import aclosing

import aiohttp
import pytest

from custom_components.jarvis.engine.llm import OpenAIClient
from custom_components.jarvis.engine.llm.base import ChatRequest, LLMConnectionError
from custom_components.jarvis.engine.types import Message
from tests.scripted_llm import ScriptedLLMServer

REQUEST = ChatRequest(
    model="test-model",
    messages=[
        Message("system", "You are Jarvis."),
        Message("user", "what is my dog called?"),
    ],
)


def paths(server: ScriptedLLMServer) -> list[str]:
    return [request["path"] for request in server.requests]


async def test_counts_with_the_server_tokenizer_at_its_root(
    scripted_llm: ScriptedLLMServer,
) -> None:
    scripted_llm.tokenizer_chars_per_token = 2.0
    client = OpenAIClient(f"{scripted_llm.url}/v1")
    try:
        counted = await client.count_tokens(REQUEST)
    finally:
        await client.close()

    assert paths(scripted_llm) == ["/apply-template", "/tokenize"]
    # The template gets the request as the chat endpoint would.
    template, tokenize = scripted_llm.requests
    assert template["json"]["messages"][1]["content"] == "what is my dog called?"
    prompt = tokenize["json"]["content"]
    assert "You are Jarvis." in prompt
    assert counted == int(len(prompt) / 2.0)


async def test_a_server_without_a_tokenizer_is_asked_once(
    scripted_llm: ScriptedLLMServer,
) -> None:
    client = OpenAIClient(scripted_llm.url)
    try:
        assert await client.count_tokens(REQUEST) is None
        assert await client.count_tokens(REQUEST) is None
    finally:
        await client.close()

    assert paths(scripted_llm) == ["/apply-template"]


async def test_a_tokenizer_that_was_down_is_asked_again(
    scripted_llm: ScriptedLLMServer,
) -> None:
    port = int(scripted_llm.url.rsplit(":", 1)[1])
    client = OpenAIClient(scripted_llm.url)
    await scripted_llm.stop()
    revived = ScriptedLLMServer()
    revived.tokenizer_chars_per_token = 4.0
    try:
        assert await client.count_tokens(REQUEST) is None
        await revived.start(port=port)
        assert await client.count_tokens(REQUEST) is not None
    finally:
        await client.close()
        await revived.stop()


async def test_counting_survives_connections_the_server_retired(
    socket_enabled: None,
) -> None:
    """As llama.cpp does after a streamed reply: keep-alive promised, but the
    next request on that connection is dropped unanswered."""
    body = b'{"prompt": "<user>hi", "tokens": [1, 2, 3]}'

    async def answer_once(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Connection: keep-alive\r\nContent-Length: %d\r\n\r\n%s"
            % (len(body), body)
        )
        await writer.drain()
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            await reader.readuntil(b"\r\n\r\n")
        writer.close()

    server = await asyncio.start_server(answer_once, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = OpenAIClient(f"http://127.0.0.1:{port}")
    try:
        assert [await client.count_tokens(REQUEST) for _ in range(3)] == [3, 3, 3]
    finally:
        await client.close()
        server.close()
        await server.wait_closed()


async def test_a_closed_client_says_so(scripted_llm: ScriptedLLMServer) -> None:
    """Not aiohttp's bare RuntimeError: callers handle LLM errors."""
    client = OpenAIClient(scripted_llm.url)
    assert await client.list_models() == ["test-model"]
    await client.close()

    with pytest.raises(LLMConnectionError, match="closed"):
        await client.list_models()
    with pytest.raises(LLMConnectionError, match="closed"):
        async with aclosing(client.chat_stream(REQUEST)) as stream:
            await anext(stream)
    assert await client.count_tokens(REQUEST) is None


async def test_a_closed_shared_session_is_a_connection_error(
    scripted_llm: ScriptedLLMServer,
) -> None:
    """As when Home Assistant closes its HTTP session on stopping."""
    session = aiohttp.ClientSession()
    client = OpenAIClient(scripted_llm.url, session=session)
    await session.close()

    with pytest.raises(LLMConnectionError, match="closed"):
        await client.list_models()
