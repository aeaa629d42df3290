"""Both LLM clients against the scripted server, over real loopback HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
import contextlib
from contextlib import aclosing
import json
from typing import Any, Literal

import aiohttp
import pytest
import pytest_asyncio

from custom_components.jarvis.engine.llm import (
    OllamaClient,
    OpenAIClient,
    create_client,
)
from custom_components.jarvis.engine.llm.base import (
    ChatChunk,
    ChatRequest,
    LLMAuthError,
    LLMClient,
    LLMConnectionError,
    LLMResponseError,
    LLMTimeoutError,
    LLMToolsRejectedError,
    Sampling,
    Usage,
)
from custom_components.jarvis.engine.types import Message, ToolCall, ToolSpec
from scripts.llm_server import free_port
from tests.scripted_llm import Reply, ScriptedLLMServer

BACKENDS = ["ollama", "openai"]

type ClientFactory = Callable[..., LLMClient]

LIGHT_TOOL = ToolSpec(
    name="light_on",
    description="Turn on a light",
    parameters={
        "type": "object",
        "properties": {
            "area": {"type": "string", "description": "Area name"},
            "brightness": {"type": "integer", "description": "Percent"},
        },
        "required": ["area"],
    },
)


def _request(tools: bool = False, **kwargs: object) -> ChatRequest:
    return ChatRequest(
        model="test-model",
        messages=[Message(role="user", content="hi")],
        tools=[LIGHT_TOOL] if tools else None,
        **kwargs,  # type: ignore[arg-type]
    )


async def _collect(client: LLMClient, request: ChatRequest) -> list[ChatChunk]:
    async with aclosing(client.chat_stream(request)) as stream:
        return [chunk async for chunk in stream]


@pytest_asyncio.fixture
async def make_client() -> AsyncIterator[ClientFactory]:
    """Build clients with create_client and close them after the test."""
    clients: list[LLMClient] = []

    def factory(
        backend: str, url: str, api_key: str | None = None, **kw: object
    ) -> LLMClient:
        client = create_client(backend, url, api_key, **kw)  # type: ignore[arg-type]
        clients.append(client)
        return client

    yield factory
    for client in clients:
        await client.close()


@pytest_asyncio.fixture
async def keyed_llm(socket_enabled: None) -> AsyncIterator[ScriptedLLMServer]:
    """A scripted server that requires the API key "secret"."""
    server = ScriptedLLMServer(models=["a", "b"], api_key="secret")
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def closed_port_url(socket_enabled: None) -> str:
    """A loopback URL nothing listens on."""
    return f"http://127.0.0.1:{free_port()}"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_content_streams_in_pieces_with_usage(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """Content arrives over several chunks; the last one is done and has usage."""
    text = "The kitchen light is now on, at full brightness."
    scripted_llm.script(Reply(content=text, prompt_tokens=42, completion_tokens=17))
    client = make_client(backend, scripted_llm.url)

    chunks = await _collect(client, _request())

    content_chunks = [c for c in chunks if c.content]
    assert len(content_chunks) > 3
    assert "".join(c.content for c in chunks) == text
    assert chunks[-1].done
    assert chunks[-1].usage == Usage(prompt_tokens=42, completion_tokens=17)
    assert not any(c.done for c in chunks[:-1])
    assert not any(c.tool_calls or c.thinking for c in chunks)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_native_tool_calls_parsed(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """Tool calls come out complete, with ids, names and parsed arguments."""
    scripted_llm.script(
        Reply(
            content="Sure.",
            tool_calls=[
                ("light_on", {"area": "kitchen", "brightness": 80}),
                ("get_time", {}),
            ],
        )
    )
    client = make_client(backend, scripted_llm.url)

    chunks = await _collect(client, _request(tools=True))

    calls = [call for chunk in chunks for call in chunk.tool_calls]
    assert [(c.name, c.arguments) for c in calls] == [
        ("light_on", {"area": "kitchen", "brightness": 80}),
        ("get_time", {}),
    ]
    assert all(c.id for c in calls)
    assert calls[0].id != calls[1].id
    assert "".join(c.content for c in chunks) == "Sure."
    assert chunks[-1].done


async def test_openai_tool_arguments_split_across_deltas(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory
) -> None:
    """Pieces of one call's arguments are joined before parsing."""
    arguments = {"area": "living room", "brightness": 35, "note": "x" * 40}
    scripted_llm.script(Reply(tool_calls=[("light_on", arguments)]))
    client = make_client("openai", scripted_llm.url)

    raw = await _raw_openai_stream(scripted_llm.url)
    argument_deltas = [
        d["function"]["arguments"]
        for d in raw
        if d.get("function", {}).get("arguments")
    ]
    assert len(argument_deltas) > 3  # the server really split them

    scripted_llm.script(Reply(tool_calls=[("light_on", arguments)]))
    chunks = await _collect(client, _request(tools=True))
    (call,) = [call for chunk in chunks for call in chunk.tool_calls]
    assert call.name == "light_on"
    assert call.arguments == arguments
    assert call.id.startswith("call_")


async def _raw_openai_stream(url: str) -> list[dict[str, Any]]:
    """The tool-call deltas the scripted server sends, read without the client."""
    deltas: list[dict[str, Any]] = []
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{url}/v1/chat/completions",
            json={"model": "m", "messages": [], "stream": True},
        ) as response,
    ):
        async for line in response.content:
            data = line.decode().removeprefix("data: ").strip()
            if not data or data == "[DONE]":
                continue
            for choice in json.loads(data)["choices"]:
                deltas.extend(choice["delta"].get("tool_calls", []))
    return deltas


async def test_openai_unparsable_arguments_kept_raw(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory
) -> None:
    """Broken argument JSON is handed on under "__raw__" for the loop to report."""
    events = [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "x"}},
        {"index": 0, "function": {"arguments": '{"area": kitch'}},
    ]
    body = "".join(
        f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'tool_calls': [e]}}]})}\n\n"
        for e in events
    )
    body += 'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}\n\n'
    body += "data: [DONE]\n\n"
    scripted_llm.script(Reply(raw=body))
    client = make_client("openai", scripted_llm.url)

    chunks = await _collect(client, _request(tools=True))

    calls = [call for chunk in chunks for call in chunk.tool_calls]
    assert calls == [
        ToolCall(id="call_1", name="x", arguments={"__raw__": '{"area": kitch'})
    ]
    assert chunks[-1].done
    assert chunks[-1].usage is None


@pytest.mark.parametrize("backend", BACKENDS)
async def test_thinking_kept_apart_from_content(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """Reasoning arrives as `thinking`, never mixed into `content`."""
    scripted_llm.script(
        Reply(thinking="The user wants light. Kitchen it is.", content="Done.")
    )
    client = make_client(backend, scripted_llm.url)

    chunks = await _collect(client, _request(think=True))

    assert "".join(c.thinking for c in chunks) == "The user wants light. Kitchen it is."
    assert "".join(c.content for c in chunks) == "Done."


@pytest.mark.parametrize("backend", BACKENDS)
async def test_list_models(
    keyed_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """Model names come from /api/tags or /v1/models, sent with the API key."""
    client = make_client(backend, keyed_llm.url, "secret")

    assert await client.list_models() == ["a", "b"]
    assert keyed_llm.requests[-1]["headers"]["Authorization"] == "Bearer secret"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("api_key", [None, "wrong"])
async def test_bad_key_is_auth_error(
    keyed_llm: ScriptedLLMServer,
    make_client: ClientFactory,
    backend: str,
    api_key: str | None,
) -> None:
    """401 maps to LLMAuthError, for chat and model listing alike."""
    client = make_client(backend, keyed_llm.url, api_key)

    with pytest.raises(LLMAuthError):
        await _collect(client, _request())
    with pytest.raises(LLMAuthError):
        await client.list_models()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_tools_rejected(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """A 400 to a request with tools is LLMToolsRejectedError."""
    scripted_llm.script(Reply(reject_tools=True))
    client = make_client(backend, scripted_llm.url)

    with pytest.raises(LLMToolsRejectedError, match="does not support tools"):
        await _collect(client, _request(tools=True))


@pytest.mark.parametrize("backend", BACKENDS)
async def test_400_without_tools_is_response_error(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """Without tools in the request, a 400 says nothing about tool support."""
    scripted_llm.script(Reply(status=400, error="bad request"))
    client = make_client(backend, scripted_llm.url)

    with pytest.raises(LLMResponseError) as excinfo:
        await _collect(client, _request())
    assert not isinstance(excinfo.value, LLMToolsRejectedError)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_server_error_is_response_error(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """A 500 is LLMResponseError naming the status and the server's message."""
    scripted_llm.script(Reply(status=500, error="out of memory"))
    client = make_client(backend, scripted_llm.url)

    with pytest.raises(LLMResponseError, match=r"500.*out of memory"):
        await _collect(client, _request(tools=True))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "raw",
    [
        "this is not json\n",
        'data: {"choices": [{"index": 0, "delta": {"content": "hi"\n\n',
        "",
    ],
    ids=["garbage", "truncated-json", "empty"],
)
async def test_garbage_body_is_response_error(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str, raw: str
) -> None:
    """Unparsable or empty bodies are LLMResponseError."""
    scripted_llm.script(Reply(raw=raw))
    client = make_client(backend, scripted_llm.url)

    with pytest.raises(LLMResponseError):
        await _collect(client, _request())


@pytest.mark.parametrize(
    ("backend", "raw"),
    [
        (
            "ollama",
            '{"model": "m", "message": {"role": "assistant", "content": "hi"},'
            ' "done": false}\n',
        ),
        ("openai", 'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n'),
    ],
)
async def test_stream_cut_short_is_response_error(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str, raw: str
) -> None:
    """Well-formed pieces but no end of reply: the reply is incomplete."""
    scripted_llm.script(Reply(raw=raw))
    client = make_client(backend, scripted_llm.url)

    with pytest.raises(LLMResponseError, match="ended before"):
        await _collect(client, _request())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("cut", "error"),
    [("eof", "ended before"), ("abort", "Incomplete response|Broken response")],
)
async def test_a_reply_cut_after_its_content_is_response_error(
    scripted_llm: ScriptedLLMServer,
    make_client: ClientFactory,
    backend: str,
    cut: Literal["eof", "abort"],
    error: str,
) -> None:
    """The scripted server's `cut` (bench.faults): the content arrives, then
    the body ends cleanly without the reply's end, or the connection drops."""
    scripted_llm.script(Reply(content="The kitchen light", cut=cut))
    client = make_client(backend, scripted_llm.url)
    received: list[str] = []

    async def read() -> None:
        async with aclosing(client.chat_stream(_request())) as stream:
            async for chunk in stream:
                received.append(chunk.content)

    with pytest.raises(LLMResponseError, match=error):
        await read()
    assert "".join(received) == "The kitchen light"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_repeating_reply_streams_until_the_client_leaves(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """The scripted server's `repeat` (bench.faults): a reply that ignores
    max_tokens goes on past its content, until the client closes it."""
    scripted_llm.script(Reply(content="It is on. ", repeat=True))
    client = make_client(backend, scripted_llm.url)
    received: list[str] = []

    async with aclosing(client.chat_stream(_request())) as stream:
        async for chunk in stream:
            received.append(chunk.content)
            if len(received) == 100:
                break
    assert "".join(received) == ("It is on. " * 50)
    async with asyncio.timeout(2):
        await scripted_llm.wait_for_disconnects()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_reply_past_max_tokens_is_cut_and_left(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """A server that ignores max_tokens: the reply ends at twice as many
    pieces (each a token at least), and the client leaves so that it stops."""
    scripted_llm.script(Reply(content="It is on. ", repeat=True))
    client = make_client(backend, scripted_llm.url)

    async with asyncio.timeout(10):  # without the cut, it never ends
        chunks = await _collect(client, _request(sampling=Sampling(max_tokens=10)))

    assert "".join(chunk.content for chunk in chunks) == "It is on. " * 10
    assert chunks[-1].done
    async with asyncio.timeout(2):
        await scripted_llm.wait_for_disconnects()


def _pieces_body(backend: str, text: str, count: int) -> str:
    """A whole streamed reply of `count` pieces of `text`."""
    if backend == "openai":
        piece = {"choices": [{"index": 0, "delta": {"content": text}}]}
        end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        return "".join(f"data: {json.dumps(p)}\n\n" for p in [piece] * count + [end])
    message = {"model": "m", "message": {"role": "assistant", "content": text}}
    last = {"model": "m", "message": {"role": "assistant", "content": ""}}
    lines = [message | {"done": False}] * count + [last | {"done": True}]
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_reply_of_big_pieces_past_max_tokens_is_cut(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """Few pieces, but more text than max_tokens tokens could hold."""
    scripted_llm.script(Reply(raw=_pieces_body(backend, "x" * 1000, 3)))
    client = make_client(backend, scripted_llm.url)

    chunks = await _collect(client, _request(sampling=Sampling(max_tokens=10)))

    assert "".join(chunk.content for chunk in chunks) == "x" * 1000
    assert chunks[-1].done


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_reply_within_twice_max_tokens_pieces_is_whole(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    scripted_llm.script(Reply(content="It is on. " * 10))
    client = make_client(backend, scripted_llm.url)

    chunks = await _collect(client, _request(sampling=Sampling(max_tokens=10)))

    assert "".join(chunk.content for chunk in chunks) == "It is on. " * 10
    assert chunks[-1].usage == Usage(prompt_tokens=10, completion_tokens=5)
    assert scripted_llm.disconnects == 0


@pytest.mark.parametrize(
    ("backend", "raw"),
    [
        ("ollama", '{"error": "model runner crashed"}\n'),
        ("openai", 'data: {"error": {"message": "model runner crashed"}}\n\n'),
    ],
)
async def test_error_inside_stream(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str, raw: str
) -> None:
    """An error object sent mid-stream is LLMResponseError with its message."""
    scripted_llm.script(Reply(raw=raw))
    client = make_client(backend, scripted_llm.url)

    with pytest.raises(LLMResponseError, match="model runner crashed"):
        await _collect(client, _request())


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_line_over_the_cap_is_response_error(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """A 1 MiB line that never ends is cut at the cap while it is read."""
    scripted_llm.script(Reply(content="Hi", long_line=1024 * 1024, hang=True))
    client = make_client(backend, scripted_llm.url)

    async with asyncio.timeout(10):
        with pytest.raises(
            LLMResponseError, match="line of the reply was over 512 KiB"
        ):
            await _collect(client, _request())


@pytest.mark.parametrize("backend", BACKENDS)
async def test_server_down_is_connection_error(
    closed_port_url: str, make_client: ClientFactory, backend: str
) -> None:
    """Nothing listening: LLMConnectionError from chat and list_models."""
    client = make_client(backend, closed_port_url)

    with pytest.raises(LLMConnectionError):
        await _collect(client, _request())
    with pytest.raises(LLMConnectionError):
        await client.list_models()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_slow_server_is_timeout_error(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """No byte within read_timeout: LLMTimeoutError."""
    scripted_llm.script(Reply(content="late", delay=2))
    client = make_client(backend, scripted_llm.url, read_timeout=0.2)

    with pytest.raises(LLMTimeoutError):
        await _collect(client, _request())


@pytest.mark.parametrize("backend", BACKENDS)
async def test_cancelling_stream_disconnects(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """A timeout around consumption drops the connection, so generation stops."""
    scripted_llm.script(Reply(content="Thinking about it", hang=True))
    client = make_client(backend, scripted_llm.url)
    received: list[str] = []

    async def consume() -> None:
        async with asyncio.timeout(0.3):
            async for chunk in client.chat_stream(_request()):
                received.append(chunk.content)

    with pytest.raises(TimeoutError):
        await consume()

    assert "".join(received) == "Thinking about it"
    async with asyncio.timeout(2):
        await scripted_llm.wait_for_disconnects()
    assert scripted_llm.disconnects == 1


@pytest.mark.parametrize("backend", BACKENDS)
async def test_closing_stream_early_disconnects(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, backend: str
) -> None:
    """aclose() after the first chunk drops the connection too."""
    scripted_llm.script(Reply(content="Some long answer", hang=True))
    client = make_client(backend, scripted_llm.url)

    stream = client.chat_stream(_request())
    first = await anext(stream)
    await stream.aclose()

    assert first.content
    async with asyncio.timeout(2):
        await scripted_llm.wait_for_disconnects()
    assert scripted_llm.disconnects == 1


async def test_ollama_request_wire_format(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory
) -> None:
    """Options, keep_alive, think, tools and history reach /api/chat as Ollama expects."""
    client = make_client("ollama", scripted_llm.url, "k")
    call = ToolCall(id="call_1", name="light_on", arguments={"area": "kitchen"})
    request = ChatRequest(
        model="qwen3:4b",
        messages=[
            Message(role="system", content="Be brief."),
            Message(role="user", content="Kitchen light on"),
            Message(role="assistant", tool_calls=[call]),
            Message(role="tool", content='{"ok": true}', tool_call_id="call_1"),
        ],
        tools=[LIGHT_TOOL],
        sampling=Sampling(temperature=0.2, top_p=0.9, max_tokens=128),
        num_ctx=4096,
        keep_alive=300,
        think=False,
    )

    await _collect(client, request)

    (sent,) = scripted_llm.chat_requests
    assert sent["path"] == "/api/chat"
    assert sent["headers"]["Authorization"] == "Bearer k"
    body = sent["json"]
    assert body["model"] == "qwen3:4b"
    assert body["stream"] is True
    assert body["think"] is False
    assert body["keep_alive"] == "300s"
    assert body["options"] == {
        "num_ctx": 4096,
        "num_predict": 128,
        "temperature": 0.2,
        "top_p": 0.9,
    }
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "light_on",
                "description": "Turn on a light",
                "parameters": LIGHT_TOOL.parameters,
            },
        }
    ]
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Kitchen light on"},
        {
            "role": "assistant",
            "tool_calls": [
                {"function": {"name": "light_on", "arguments": {"area": "kitchen"}}}
            ],
        },
        {"role": "tool", "content": '{"ok": true}'},
    ]


async def test_ollama_request_omits_unset_options(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory
) -> None:
    """Unset options stay out; the token cap is always sent."""
    client = make_client("ollama", scripted_llm.url)

    await _collect(client, _request())

    body = scripted_llm.chat_requests[0]["json"]
    assert body["options"] == {"num_predict": 512}
    assert "keep_alive" not in body
    assert "think" not in body
    assert not body.get("tools")  # the ollama package sends []
    assert "Authorization" not in scripted_llm.chat_requests[0]["headers"]


async def test_openai_request_wire_format(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory
) -> None:
    """The body follows the OpenAI chat completions format."""
    client = make_client("openai", scripted_llm.url, "k")
    call = ToolCall(id="call_1", name="light_on", arguments={"area": "kitchen"})
    request = ChatRequest(
        model="local",
        messages=[
            Message(role="user", content="Kitchen light on"),
            Message(role="assistant", tool_calls=[call]),
            Message(
                role="tool",
                content='{"ok": true}',
                tool_call_id="call_1",
                name="light_on",
            ),
        ],
        tools=[LIGHT_TOOL],
        sampling=Sampling(temperature=0.5, top_p=0.8, max_tokens=64),
        num_ctx=4096,
        keep_alive=300,
    )

    await _collect(client, request)

    (sent,) = scripted_llm.chat_requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == "Bearer k"
    assert sent["json"] == {
        "model": "local",
        "messages": [
            {"role": "user", "content": "Kitchen light on"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {
                            "name": "light_on",
                            "arguments": '{"area": "kitchen"}',
                        },
                    }
                ],
            },
            {"role": "tool", "content": '{"ok": true}', "tool_call_id": "call_1"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 64,
        "temperature": 0.5,
        "top_p": 0.8,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "light_on",
                    "description": "Turn on a light",
                    "parameters": LIGHT_TOOL.parameters,
                },
            }
        ],
    }


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
async def test_openai_url_normalised(
    scripted_llm: ScriptedLLMServer, make_client: ClientFactory, suffix: str
) -> None:
    """The base URL works with or without /v1 and a trailing slash."""
    client = make_client("openai", scripted_llm.url + suffix)

    assert await client.list_models() == ["test-model"]
    assert scripted_llm.requests[-1]["path"] == "/v1/models"


async def test_openai_session_ownership(scripted_llm: ScriptedLLMServer) -> None:
    """close() closes a session the client made, never one it was given."""
    async with aiohttp.ClientSession() as session:
        client = OpenAIClient(scripted_llm.url, session=session)
        assert await client.list_models() == ["test-model"]
        await client.close()
        assert not session.closed

    owning = OpenAIClient(scripted_llm.url)
    assert await owning.list_models() == ["test-model"]
    await owning.close()


def test_factory() -> None:
    """create_client picks the class by backend name and refuses unknown ones."""
    assert isinstance(create_client("ollama", "http://127.0.0.1:1"), OllamaClient)
    assert isinstance(create_client("openai", "http://127.0.0.1:1"), OpenAIClient)
    assert create_client("ollama", "http://127.0.0.1:1").backend == "ollama"
    assert create_client("openai", "http://127.0.0.1:1").backend == "openai"
    with pytest.raises(ValueError, match="llamafile"):
        create_client("llamafile", "http://127.0.0.1:1")


async def test_openai_client_retries_a_stale_keep_alive_connection(
    socket_enabled: None,
) -> None:
    """llama.cpp drops retired keep-alive sockets; the next request must not fail."""
    body = (
        b'data: {"choices": [{"delta": {"content": "hi"}, "finish_reason": "stop"}]}\n\n'
        b"data: [DONE]\n\n"
    )

    async def read_request(reader: asyncio.StreamReader) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.lower().split(b"\r\n")
            if line.startswith(b"content-length")
        )
        await reader.readexactly(length)

    async def handle(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        await read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Connection: keep-alive\r\nContent-Length: %d\r\n\r\n%s"
            % (len(body), body)
        )
        await writer.drain()
        # Keep-alive promised, but a second request on this connection is
        # dropped unanswered.
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            await read_request(reader)
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = create_client("openai", f"http://127.0.0.1:{port}")
    try:
        for _ in range(3):
            request = ChatRequest("m", [Message("user", "x")])
            chunks = [chunk async for chunk in client.chat_stream(request)]
            assert "".join(chunk.content for chunk in chunks) == "hi"
    finally:
        await client.close()
        server.close()
        await server.wait_closed()
