"""A scripted LLM server on loopback that speaks Ollama's and OpenAI's wire formats.

Tests queue `Reply` objects with `ScriptedLLMServer.script()`; each chat request
(on either `/api/chat` or `/v1/chat/completions`) pops the next one and gets it
in the wire format of the route it hit, streamed when the request asks for it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
import itertools
import json
import time
from typing import Any, Literal
import uuid

from aiohttp import web
from aiohttp.typedefs import Handler
import pytest_asyncio

# Small pieces so clients really have to reassemble streamed text.
CONTENT_PIECE = 5
ARGUMENTS_PIECE = 8
LONG_LINE_PIECE = 64 * 1024


@dataclass
class Reply:
    """One scripted answer to a chat request."""

    content: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    thinking: str = ""
    status: int = 200
    error: str = "scripted error"
    # With tools in the request: HTTP 400, as a model without tool support gets.
    reject_tools: bool = False
    delay: float = 0.0
    # Pause after each streamed piece, like a model generating in real time.
    piece_delay: float = 0.0
    # Stream whatever content there is, then send nothing until the client leaves.
    hang: bool = False
    # Stream the content again and again until the client leaves (a server
    # that ignores max_tokens).
    repeat: bool = False
    # Stream the content, then end the reply without its end: "eof" ends the
    # body cleanly, "abort" drops the connection mid-body (a server that died).
    cut: Literal["eof", "abort"] | None = None
    # Sent verbatim (status 200) instead of a well-formed reply.
    raw: str | None = None
    # With `hang`, after the content: a line of this many bytes that never
    # ends (a runaway or broken server).
    long_line: int = 0
    prompt_tokens: int = 10
    completion_tokens: int = 5


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _content_pieces(reply: Reply) -> Iterator[str]:
    pieces = _pieces(reply.content, CONTENT_PIECE)
    return itertools.cycle(pieces) if reply.repeat else iter(pieces)


class ScriptedLLMServer:
    """Loopback HTTP server replaying scripted replies.

    `requests` records every request as {"path", "json", "headers"} ("json" is
    None for GETs); `chat_requests` keeps only the chat calls. `disconnects`
    counts chat replies the client abandoned mid-stream.
    """

    def __init__(
        self, models: list[str] | None = None, api_key: str | None = None
    ) -> None:
        """Serve `models` (default ["test-model"]); require `api_key` if given."""
        self.models = models if models is not None else ["test-model"]
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.disconnects = 0
        # Set to serve llama.cpp's /apply-template and /tokenize, counting one
        # token per this many characters of the rendered prompt.
        self.tokenizer_chars_per_token: float | None = None
        self._disconnected = asyncio.Event()
        self._queue: deque[Reply] = deque()
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def url(self) -> str:
        """Base URL, e.g. http://127.0.0.1:PORT."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The recorded requests to either chat endpoint, warm-ups left out."""
        return [r for r in self._chats() if not _is_warm_up(r["json"])]

    @property
    def warm_ups(self) -> list[dict[str, Any]]:
        """The agents' one-token requests that fill the server's prompt cache."""
        return [r for r in self._chats() if _is_warm_up(r["json"])]

    def _chats(self) -> list[dict[str, Any]]:
        return [
            r
            for r in self.requests
            if r["path"] in ("/api/chat", "/v1/chat/completions")
        ]

    async def wait_for_disconnects(self, count: int = 1) -> None:
        """Wait until `count` clients have abandoned a reply (wrap in a timeout)."""
        while self.disconnects < count:
            self._disconnected.clear()
            await self._disconnected.wait()

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next chat requests, in order."""
        self._queue.extend(replies)

    async def start(self, port: int = 0) -> None:
        """Bind 127.0.0.1 on `port`, a free one by default."""
        app = web.Application(middlewares=[self._record_and_authorize])
        app.router.add_get("/api/tags", self._ollama_tags)
        app.router.add_get("/api/version", self._ollama_version)
        app.router.add_post("/api/chat", self._ollama_chat)
        app.router.add_get("/v1/models", self._openai_models)
        app.router.add_post("/v1/chat/completions", self._openai_chat)
        app.router.add_get("/health", self._health)
        app.router.add_post("/apply-template", self._apply_template)
        app.router.add_post("/tokenize", self._tokenize)
        # handler_cancellation: like Ollama and llama.cpp, stop generating when
        # the client goes away (and let tests count it). Short shutdown timeout:
        # hanging handlers must not stall stop().
        self._runner = web.AppRunner(
            app, handler_cancellation=True, shutdown_timeout=0.5
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self._port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        """Close the listener and any open connections."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # Plumbing

    @web.middleware
    async def _record_and_authorize(
        self, request: web.Request, handler: Handler
    ) -> web.StreamResponse:
        try:
            body = await request.json() if request.can_read_body else None
        except ValueError:
            return web.json_response({"error": "invalid JSON body"}, status=400)
        self.requests.append(
            {"path": request.path, "json": body, "headers": dict(request.headers)}
        )
        if (
            self.api_key is not None
            and request.path != "/health"
            and request.headers.get("Authorization") != f"Bearer {self.api_key}"
        ):
            if request.path.startswith("/v1/"):
                return _openai_error(401, "Invalid API Key", "authentication_error")
            return web.json_response({"error": "unauthorized"}, status=401)
        return await handler(request)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        # Warm-ups come whenever the home changes: they take no scripted reply.
        if _is_warm_up(body):
            return Reply(content=".")
        return self._queue.popleft() if self._queue else Reply(content="(no script)")

    async def _stream(
        self,
        request: web.Request,
        reply: Reply,
        content_type: str,
        frames: AsyncIterator[bytes],
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": content_type})
        try:
            await response.prepare(request)
            async for frame in frames:
                await response.write(frame)
                # Yield so the client sees separate chunks, not one coalesced write.
                await asyncio.sleep(reply.piece_delay)
            for start in range(0, reply.long_line, LONG_LINE_PIECE):
                await response.write(
                    b"x" * min(LONG_LINE_PIECE, reply.long_line - start)
                )
            if reply.cut == "abort":
                assert request.transport is not None
                request.transport.abort()
                return response
            if reply.hang:
                await asyncio.Event().wait()
            await response.write_eof()
        except (asyncio.CancelledError, ConnectionResetError):
            self._client_left()
            raise
        return response

    def _client_left(self) -> None:
        self.disconnects += 1
        self._disconnected.set()

    async def _delay(self, seconds: float) -> None:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            self._client_left()
            raise

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    # llama.cpp's tokenizer routes, at the server root

    async def _apply_template(self, request: web.Request) -> web.Response:
        if self.tokenizer_chars_per_token is None:
            raise web.HTTPNotFound
        body: dict[str, Any] = await request.json()
        parts = [f"<{m['role']}>{m.get('content') or ''}" for m in body["messages"]]
        if body.get("tools"):
            parts.insert(0, json.dumps(body["tools"]))
        return web.json_response({"prompt": "\n".join(parts)})

    async def _tokenize(self, request: web.Request) -> web.Response:
        if self.tokenizer_chars_per_token is None:
            raise web.HTTPNotFound
        body: dict[str, Any] = await request.json()
        count = int(len(body["content"]) / self.tokenizer_chars_per_token)
        return web.json_response({"tokens": list(range(count))})

    # Ollama: /api/*

    async def _ollama_tags(self, request: web.Request) -> web.Response:
        models = [
            {
                "name": name,
                "model": name,
                "modified_at": "2025-01-01T00:00:00Z",
                "size": 1_000_000,
                "digest": uuid.uuid5(uuid.NAMESPACE_OID, name).hex,
                "details": {"format": "gguf", "family": "test"},
            }
            for name in self.models
        ]
        return web.json_response({"models": models})

    async def _ollama_version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": "0.12.0"})

    async def _ollama_chat(self, request: web.Request) -> web.StreamResponse:
        body: dict[str, Any] = await request.json()
        model = body.get("model", "")
        reply = self._next_reply(body)
        await self._delay(reply.delay)
        if reply.reject_tools and body.get("tools"):
            return web.json_response(
                {"error": f"{model} does not support tools"}, status=400
            )
        if reply.status != 200:
            return web.json_response({"error": reply.error}, status=reply.status)
        if reply.raw is not None:
            return web.Response(text=reply.raw, content_type="application/x-ndjson")

        tool_calls = [
            {"function": {"name": name, "arguments": arguments}}
            for name, arguments in reply.tool_calls
        ]
        final = {
            "done": True,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "load_duration": 1_000,
            "prompt_eval_count": reply.prompt_tokens,
            "prompt_eval_duration": 1_000,
            "eval_count": reply.completion_tokens,
            "eval_duration": 1_000,
        }
        # Ollama streams unless told otherwise.
        if not body.get("stream", True):
            message: dict[str, Any] = {"role": "assistant", "content": reply.content}
            if reply.thinking:
                message["thinking"] = reply.thinking
            if tool_calls:
                message["tool_calls"] = tool_calls
            return web.json_response(_ollama_chunk(model, message) | final)

        async def frames() -> AsyncIterator[bytes]:
            for piece in _pieces(reply.thinking, CONTENT_PIECE):
                yield _ndjson(
                    _ollama_chunk(
                        model, {"role": "assistant", "content": "", "thinking": piece}
                    )
                )
            for piece in _content_pieces(reply):
                yield _ndjson(
                    _ollama_chunk(model, {"role": "assistant", "content": piece})
                )
            if reply.hang or reply.cut:
                return
            if tool_calls:
                # Ollama sends each complete call in one chunk.
                yield _ndjson(
                    _ollama_chunk(
                        model,
                        {"role": "assistant", "content": "", "tool_calls": tool_calls},
                    )
                )
            last = _ollama_chunk(model, {"role": "assistant", "content": ""})
            yield _ndjson(last | final)

        return await self._stream(request, reply, "application/x-ndjson", frames())

    # OpenAI-compatible: /v1/*

    async def _openai_models(self, request: web.Request) -> web.Response:
        data = [
            {"id": name, "object": "model", "created": 0, "owned_by": "scripted"}
            for name in self.models
        ]
        return web.json_response({"object": "list", "data": data})

    async def _openai_chat(self, request: web.Request) -> web.StreamResponse:
        body: dict[str, Any] = await request.json()
        model = body.get("model", "")
        reply = self._next_reply(body)
        await self._delay(reply.delay)
        if reply.reject_tools and body.get("tools"):
            return _openai_error(
                400, f"{model} does not support tools", "invalid_request_error"
            )
        if reply.status != 200:
            return _openai_error(reply.status, reply.error, "server_error")
        if reply.raw is not None:
            return web.Response(text=reply.raw, content_type="text/event-stream")

        completion_id = f"chatcmpl-{uuid.uuid4().hex[:16]}"
        created = int(time.time())
        calls = [
            (f"call_{uuid.uuid4().hex[:12]}", name, json.dumps(arguments))
            for name, arguments in reply.tool_calls
        ]
        finish_reason = "tool_calls" if calls else "stop"
        usage = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }

        if not body.get("stream", False):
            message: dict[str, Any] = {
                "role": "assistant",
                "content": reply.content or None,
            }
            if reply.thinking:
                message["reasoning_content"] = reply.thinking
            if calls:
                message["tool_calls"] = [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                    for call_id, name, arguments in calls
                ]
            return web.json_response(
                {
                    "id": completion_id,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {"index": 0, "message": message, "finish_reason": finish_reason}
                    ],
                    "usage": usage,
                }
            )

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        async def frames() -> AsyncIterator[bytes]:
            yield _sse(chunk({"role": "assistant", "content": ""}))
            for piece in _pieces(reply.thinking, CONTENT_PIECE):
                yield _sse(chunk({"reasoning_content": piece}))
            for piece in _content_pieces(reply):
                yield _sse(chunk({"content": piece}))
            if reply.hang or reply.cut:
                return
            for index, (call_id, name, arguments) in enumerate(calls):
                # The first delta names the call; the arguments follow in pieces.
                head = {
                    "index": index,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
                yield _sse(chunk({"tool_calls": [head]}))
                for piece in _pieces(arguments, ARGUMENTS_PIECE):
                    delta = {"index": index, "function": {"arguments": piece}}
                    yield _sse(chunk({"tool_calls": [delta]}))
            yield _sse(chunk({}, finish_reason))
            if include_usage:
                last = chunk({}) | {"choices": [], "usage": usage}
                yield _sse(last)
            yield b"data: [DONE]\n\n"

        return await self._stream(request, reply, "text/event-stream", frames())


def _ollama_chunk(model: str, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": model,
        "created_at": "2025-01-01T00:00:00.000000Z",
        "message": message,
        "done": False,
    }


def _ndjson(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _sse(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _openai_error(status: int, message: str, kind: str) -> web.Response:
    return web.json_response(
        {"error": {"code": status, "message": message, "type": kind}}, status=status
    )


@pytest_asyncio.fixture
async def scripted_llm(socket_enabled: None) -> AsyncIterator[ScriptedLLMServer]:
    """A started ScriptedLLMServer without an API key, stopped after the test.

    Depends on pytest-socket's `socket_enabled`: the HA test plugin blocks socket
    creation; connections stay limited to 127.0.0.1.
    """
    server = ScriptedLLMServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _is_warm_up(body: dict[str, Any] | None) -> bool:
    """A request for one token, as Jarvis's warm-up sends (OpenAI, Ollama)."""
    if not body:
        return False
    options = body.get("options") or {}
    return 1 in (body.get("max_tokens"), options.get("num_predict"))
