"""A recording reverse proxy between Jarvis and the llama.cpp server.

It sees every chat request and the server's usage figures without touching the
integration: LLM calls, prompt and completion tokens, the tokens llama.cpp took
from its prompt cache, and each request body (for prefix reuse between calls).
"""

from __future__ import annotations

from dataclasses import dataclass
import json
from pathlib import Path
import time
from typing import Any

from aiohttp import (
    ClientConnectionResetError,
    ClientSession,
    ClientTimeout,
    TCPConnector,
    web,
)

# Hop-by-hop and length headers are the proxy's own business.
_SKIP_HEADERS = {"host", "content-length", "transfer-encoding", "connection"}


@dataclass(slots=True)
class LLMCall:
    """One chat completion as the server saw it."""

    request: dict[str, Any]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None  # llama.cpp's `timings.cache_n`
    seconds: float = 0.0
    output: str = ""  # the streamed text and tool-call fragments, as they came

    def rendered(self) -> str:
        """The request as the model reads it, in order: tools, then messages.

        Character prefixes of this stand in for token prefixes of the chat
        template's output, which is what llama.cpp's prompt cache reuses.
        """
        parts = [json.dumps(self.request.get("tools"), ensure_ascii=False)]
        for message in self.request.get("messages", []):
            calls = message.get("tool_calls")
            parts.append(
                f"<{message.get('role')}>{message.get('content') or ''}"
                + (json.dumps(calls, ensure_ascii=False) if calls else "")
            )
        return "".join(parts)

    def take_event(self, event: dict[str, Any]) -> None:
        for choice in event.get("choices") or ():
            delta = choice.get("delta") or choice.get("message") or {}
            self.output += delta.get("content") or ""
            for call in delta.get("tool_calls") or ():
                function = call.get("function") or {}
                self.output += (function.get("name") or "") + (
                    function.get("arguments") or ""
                )
        if usage := event.get("usage"):
            self.prompt_tokens = int(usage.get("prompt_tokens") or 0)
            self.completion_tokens = int(usage.get("completion_tokens") or 0)
        if (timings := event.get("timings")) and "cache_n" in timings:
            self.cached_tokens = int(timings["cache_n"])


class LocalServer:
    """An aiohttp app on a free loopback port (`url`), with a client session
    for what it forwards to."""

    url = ""
    _runner: web.AppRunner | None = None
    _session: ClientSession | None = None

    async def _serve(self, app: web.Application, session: ClientSession) -> None:
        self._session = session
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()


class RecordingProxy(LocalServer):
    """Forwards every request to `upstream`; records chat completions in `calls`.

    With a `seed`, chat requests that set none sample with it (reproducible runs).
    """

    def __init__(
        self, upstream: str, dump: Path | None = None, seed: int | None = None
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.dump = dump
        self.seed = seed
        self.calls: list[LLMCall] = []
        # Jarvis's one-token requests that fill the prompt cache (at start and
        # after the home changes): not a scenario's calls.
        self.warm_ups: list[LLMCall] = []

    async def start(self) -> None:
        # No total timeout: the caller (Jarvis) decides when a call took too long.
        # A new connection per request: llama.cpp's server may drop an idle
        # kept-alive one just as the next request goes out on it.
        session = ClientSession(
            timeout=ClientTimeout(total=None),
            connector=TCPConnector(force_close=True),
        )
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{path:.*}", self._forward)
        await self._serve(app, session)

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        call: LLMCall | None = None
        if request.method == "POST" and request.path.endswith("/chat/completions"):
            call = LLMCall(json.loads(body))
            is_warm_up = call.request.get("max_tokens") == 1
            (self.warm_ups if is_warm_up else self.calls).append(call)
            if self.seed is not None and "seed" not in call.request:
                call.request["seed"] = self.seed
                body = json.dumps(call.request).encode()
        started = time.monotonic()
        headers = {
            k: v for k, v in request.headers.items() if k.lower() not in _SKIP_HEADERS
        }
        # Closing this context when Jarvis hangs up closes the upstream stream
        # too, which is what frees llama.cpp's slot.
        async with self._session.request(
            request.method, self.upstream + request.path_qs, data=body, headers=headers
        ) as upstream:
            response = web.StreamResponse(
                status=upstream.status,
                headers={
                    k: v
                    for k, v in upstream.headers.items()
                    if k.lower() not in _SKIP_HEADERS
                },
            )
            pending = b""
            try:
                await response.prepare(request)
                async for chunk in upstream.content.iter_any():
                    await response.write(chunk)
                    if call is not None:
                        pending = _take_events(pending + chunk, call)
                await response.write_eof()
            except ClientConnectionResetError:
                pass  # Jarvis hung up (a timeout or a cancelled turn)
            if call is not None:
                _take_events(pending + b"\n", call)
                call.seconds = time.monotonic() - started
                if self.dump is not None:
                    self._write_dump(call)
            return response

    def _write_dump(self, call: LLMCall) -> None:
        """One JSON line per call: what the model read and what it wrote."""
        assert self.dump is not None
        line = {
            "tools": [t["function"]["name"] for t in call.request.get("tools") or ()],
            "messages": call.request.get("messages"),
            "output": call.output,
            "seconds": round(call.seconds, 2),
        }
        with self.dump.open("a", encoding="utf-8") as file:
            file.write(json.dumps(line, ensure_ascii=False) + "\n")


def _take_events(buffer: bytes, call: LLMCall) -> bytes:
    """Read usage from complete lines (SSE `data:` lines or a JSON body)."""
    *lines, rest = buffer.split(b"\n")
    for line in lines:
        text = line.strip().removeprefix(b"data:").strip()
        if text.startswith(b"{"):
            try:
                call.take_event(json.loads(text))
            except ValueError:
                continue
    return rest
